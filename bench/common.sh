# What bench/hall-scale.sh and bench/hall-viewers.sh share; sourced, with NAME set to the
# script's name for its messages. Sets HALL_BIN (tengen) and GEN (the hall_scale
# generator), raises the open-files limit, and defines free_port and wait_port.

if [ -n "${TENGEN_BIN:-}" ] && [ -n "${HALL_SCALE_BIN:-}" ]; then
    # Binaries already built (e.g. to rerun a count without rebuilding).
    HALL_BIN=$TENGEN_BIN
    GEN=$HALL_SCALE_BIN
else
    # One build of both (the generator's dev-dependencies change feature unification, so
    # building them separately would build the dependencies twice).
    ARTIFACTS=$(cargo build --release -p tengen-daemon --bin tengen --bench hall_scale \
        --message-format=json | python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] in ("tengen", "hall_scale"):
        print(m["target"]["kind"][0], m["executable"])')
    GEN=$(echo "$ARTIFACTS" | awk '$1 == "bench" {print $2}')
    HALL_BIN=$(echo "$ARTIFACTS" | awk '$1 == "bin" {print $2}')
fi
[ -x "$HALL_BIN" ] || { echo "$NAME: tengen did not build" >&2; exit 1; }
[ -x "$GEN" ] || { echo "$NAME: the generator did not build" >&2; exit 1; }

# Each board is one broker connection, each viewer one connection to the hall or a static
# server: the hall, the servers and the generator inherit this limit (the generator also
# raises its own soft limit to the hard one).
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
echo "open files limit: $(ulimit -n)"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {
    for _ in $(seq 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.1
    done
    echo "$NAME: nothing listens on port $1" >&2
    return 1
}

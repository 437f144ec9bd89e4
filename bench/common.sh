# What the load benches (bench/hall-scale.sh, bench/hall-viewers.sh, bench/feed-pollers.sh)
# share; sourced, with NAME set to the script's name for its messages and GEN_BENCH to its
# generator's bench target (default `hall_scale`; `$GEN_BIN` an already built one). Sets
# HALL_BIN (tengen) and GEN (the generator), raises the open-files limit, and defines
# free_port, wait_port and start_mosquitto.

GEN_BENCH=${GEN_BENCH:-hall_scale}
# The names the scripts took before (BENCHMARKS.md's commands use them).
GEN_BIN=${GEN_BIN:-${HALL_SCALE_BIN:-${FEED_POLLERS_BIN:-}}}
if [ -n "${TENGEN_BIN:-}" ] && [ -n "${GEN_BIN:-}" ]; then
    # Binaries already built (e.g. to rerun a count without rebuilding).
    HALL_BIN=$TENGEN_BIN
    GEN=$GEN_BIN
else
    # One build of both (the generator's dev-dependencies change feature unification, so
    # building them separately would build the dependencies twice).
    ARTIFACTS=$(cargo build --release -p tengen-daemon --bin tengen --bench "$GEN_BENCH" \
        --message-format=json | GEN_BENCH=$GEN_BENCH python3 -c 'import json,os,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] in ("tengen", os.environ["GEN_BENCH"]):
        print(m["target"]["kind"][0], m["executable"])')
    GEN=$(echo "$ARTIFACTS" | awk '$1 == "bench" {print $2}')
    HALL_BIN=$(echo "$ARTIFACTS" | awk '$1 == "bin" {print $2}')
fi
[ -x "$HALL_BIN" ] || { echo "$NAME: tengen did not build" >&2; exit 1; }
[ -x "$GEN" ] || { echo "$NAME: the generator did not build" >&2; exit 1; }

MOSQUITTO=$(command -v mosquitto || echo /usr/sbin/mosquitto)
[ -x "$MOSQUITTO" ] || { echo "$NAME: mosquitto is not installed" >&2; exit 1; }

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

# start_mosquitto RUN PORT: mosquitto on 127.0.0.1:PORT with the hall broker's limits and
# no TLS, its config and log `$OUT/mosquitto-RUN.*`; sets MOSQ to its pid once it listens.
start_mosquitto() {
    cat >"$OUT/mosquitto-$1.conf" <<CONF
listener $2 127.0.0.1
allow_anonymous true
persistence false
max_packet_size 1048576
max_queued_messages 10000
max_inflight_messages 100
max_connections -1
set_tcp_nodelay true
log_type error
log_type warning
CONF
    "$MOSQUITTO" -c "$OUT/mosquitto-$1.conf" >"$OUT/mosquitto-$1.log" 2>&1 &
    MOSQ=$!
    wait_port "$2"
}

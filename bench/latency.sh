#!/usr/bin/env bash
# Move latency, real time, from the sensors to an MQTT subscriber in another process:
#
#   tengen-mcu (a simulated board on a pseudo-terminal, human hands, stable time as
#   configured) -> tengen run (hardware.backend = "serial") -> mosquitto on loopback ->
#   mosquitto_sub, which stamps each message on arrival (%U, CLOCK_REALTIME).
#
# Several 19x19 games are played back to back (one `tengen run` each, fresh storage),
# thinking sped up by SPEED (hands keep human timing). tengen-mcu logs each move's
# touch-down and first stable scan (CLOCK_REALTIME µs); bench/latency_report.py joins them
# with the arrivals and prints p50/p99/max.
#
# Then the trade-off table: stable time vs false alerts under the simulator's noise, with
# `tengen sim` on virtual time (exact, fast).
#
# Usage: bench/latency.sh            (all of it, ~1,100 moves: about 20 minutes)
#        GAMES="a.sgf b.sgf" SPEED=20 STABLE_MS=150 bench/latency.sh
#        SKIP_REALTIME=1 bench/latency.sh     (only the trade-off table)
#        SKIP_TRADEOFF=1 bench/latency.sh     (only the real-time run)
#        SKIP_BUILD=1: use the release binaries already in $CARGO_TARGET_DIR
# Needs: mosquitto, mosquitto_sub, python3. Release build (built here).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
FIX=rules/tests/fixtures/gnugo/games/19
# Even games: the config says no handicap.
GAMES=${GAMES:-"$FIX/game_0000.sgf $FIX/game_0001.sgf $FIX/game_0002.sgf config/games/demo.sgf"}
SPEED=${SPEED:-20}
STABLE_MS=${STABLE_MS:-150}
MOSQUITTO=${MOSQUITTO:-/usr/sbin/mosquitto}
WORK=${WORK:-$(mktemp -d /tmp/tengen-latency.XXXXXX)}
mkdir -p "$WORK"

if [ -z "${SKIP_BUILD:-}" ]; then
    cargo build --release -q -p tengen-daemon --bin tengen -p tengen-mcu --bin tengen-mcu
fi
BIN=$CARGO_TARGET_DIR/release

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

echo "machine: $(nproc) cores, $(uname -srm); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "work dir: $WORK"

if [ -z "${SKIP_REALTIME:-}" ]; then
    PORT=$(free_port)
    printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\n' "$PORT" \
        >"$WORK/mosquitto.conf"
    "$MOSQUITTO" -c "$WORK/mosquitto.conf" >"$WORK/mosquitto.log" 2>&1 &
    PIDS+=($!)
    for _ in $(seq 100); do
        (exec 3<>/dev/tcp/127.0.0.1/"$PORT") 2>/dev/null && break
        sleep 0.1
    done
    # %U: arrival time, Unix seconds with nanoseconds (CLOCK_REALTIME), then the payload.
    mosquitto_sub -h 127.0.0.1 -p "$PORT" -q 1 -t 'tengen/+/+/events' -F '%U %p' \
        >"$WORK/arrivals.txt" &
    SUB=$!
    PIDS+=($SUB)
    sleep 0.5
    i=0
    for g in $GAMES; do
        i=$((i + 1))
        d=$WORK/g$i
        mkdir -p "$d"
        cat >"$d/board.toml" <<EOF
[board]
id = "lat-g$i"
tournament = "bench"
size = 19
[hardware]
backend = "serial"
scan_hz = 100
[hardware.serial]
path = "$d/tty"
[detection]
stable_ms = $STABLE_MS
[game]
clock_start = "now"
[time]
system = "none"
[mqtt]
url = "mqtt://127.0.0.1:$PORT"
[http]
listen = "127.0.0.1:0"
[storage]
dir = "$d/data"
EOF
        echo "game $i: $g (speed $SPEED, stable_ms $STABLE_MS)"
        "$BIN/tengen-mcu" --sgf "$g" --seed "$i" --speed "$SPEED" --link "$d/tty" \
            --log "$d/mcu.jsonl" --lead-in 3s --tail 2s --stable "${STABLE_MS}ms" >"$d/mcu.out" &
        MCU=$!
        PIDS+=($MCU)
        RUST_LOG=warn "$BIN/tengen" run --config "$d/board.toml" >"$d/run.out" 2>&1 &
        RUN=$!
        PIDS+=($RUN)
        wait "$MCU"
        sleep 1
        kill -TERM "$RUN"
        wait "$RUN" || echo "tengen run exited $?"
        tail -n 1 "$d/mcu.out"
    done
    sleep 1
    kill "$SUB" 2>/dev/null || true
    echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
    python3 bench/latency_report.py realtime "$WORK" "$STABLE_MS"
fi

if [ -z "${SKIP_TRADEOFF:-}" ]; then
    STABLES=${STABLES:-"30 50 80 100 150 200 300"}
    NOISES=${NOISES:-"0.001 0.003 0.01"}
    SIM_GAMES=${SIM_GAMES:-$GAMES}
    mkdir -p "$WORK/tradeoff"
    for s in $STABLES; do
        printf '[board]\nid = "t"\n[detection]\nstable_ms = %s\n[time]\nsystem = "none"\n' "$s" \
            >"$WORK/tradeoff/s$s.toml"
        for n in $NOISES; do
            j=0
            for g in $SIM_GAMES; do
                j=$((j + 1))
                out=$WORK/tradeoff/s${s}_n${n}_g$j.jsonl
                "$BIN/tengen" sim --sgf "$g" --seed "$j" --noise "$n" \
                    --config "$WORK/tradeoff/s$s.toml" --events "$out" >/dev/null 2>&1 || true
                echo "$s $n $g $out" >>"$WORK/tradeoff/index.txt"
            done
        done
    done
    python3 bench/latency_report.py tradeoff "$WORK/tradeoff/index.txt"
fi

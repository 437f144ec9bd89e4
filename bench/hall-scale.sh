#!/usr/bin/env bash
# bench/hall-scale.sh [COUNT...]: many simulated boards into one `tengen hall`, measured.
#
# For each board count (default: 500 1000): starts mosquitto on a free loopback port (the
# hall broker's queue/inflight/packet limits and TCP_NODELAY from
# config/mosquitto/mosquitto.conf, no TLS, no passwords), one `tengen hall` (release build) on a free port, then the load generator
# (daemon/benches/hall_scale.rs), which plays COUNT boards through the broker into the hall
# and measures the hall, mosquitto and itself from /proc. Each run's JSON summary and log go
# to $OUT (default /tmp/hall-scale); a table of the key figures is printed at the end.
#
# Environment: DURATION (s, default 150), RAMP (s, default 30), SPEED (virtual ms per wall
# ms, default 1), WATCH (boards followed over SSE, default 100), VIEWERS (overview pollers,
# default 2), DRAIN (s, default 15), OUT, CARGO_TARGET_DIR; TENGEN_BIN and GEN_BIN
# (both) skip the build and use those binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNTS=("$@")
[ ${#COUNTS[@]} -gt 0 ] || COUNTS=(500 1000)
DURATION=${DURATION:-150}
RAMP=${RAMP:-30}
SPEED=${SPEED:-1}
WATCH=${WATCH:-100}
VIEWERS=${VIEWERS:-2}
DRAIN=${DRAIN:-15}
OUT=${OUT:-/tmp/hall-scale}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
mkdir -p "$OUT"

command -v mosquitto >/dev/null || [ -x /usr/sbin/mosquitto ] || {
    echo "hall-scale: mosquitto is not installed (apt-get install mosquitto)" >&2
    exit 1
}

NAME=hall-scale
# shellcheck source=bench/common.sh
. "$(dirname "$0")/common.sh"

PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

for n in "${COUNTS[@]}"; do
    MQTT_PORT=$(free_port)
    HTTP_PORT=$(free_port)
    start_mosquitto "$n" "$MQTT_PORT"
    PIDS=("$MOSQ")
    # Every simulated viewer comes from 127.0.0.1, as behind a reverse proxy: no caps per
    # address (SECURITY.md, issue 21).
    printf '[hall]\nstreams_per_address = 100000\nidle_per_address = 65536\nbusy_per_address = 65536\n' >"$OUT/hall-$n.toml"
    RUST_LOG=warn "$HALL_BIN" hall --broker "mqtt://127.0.0.1:$MQTT_PORT" \
        --http "127.0.0.1:$HTTP_PORT" --config "$OUT/hall-$n.toml" >"$OUT/hall-$n.log" 2>&1 &
    HALL=$!
    PIDS=("$HALL" "$MOSQ")
    wait_port "$HTTP_PORT"
    echo "== $n boards: mosquitto pid $MOSQ port $MQTT_PORT, hall pid $HALL port $HTTP_PORT"
    "$GEN" --broker "mqtt://127.0.0.1:$MQTT_PORT" --hall "127.0.0.1:$HTTP_PORT" \
        --boards "$n" --duration "$DURATION" --ramp "$RAMP" --speed "$SPEED" \
        --watch "$WATCH" --viewers "$VIEWERS" --drain "$DRAIN" \
        --pid "hall:$HALL" --pid "mosquitto:$MOSQ" \
        --out "$OUT/result-$n.json" >/dev/null 2>"$OUT/generator-$n.log" ||
        echo "hall-scale: the generator failed at $n boards (see $OUT/generator-$n.log)" >&2
    tail -n 3 "$OUT/generator-$n.log"
    kill "$HALL" "$MOSQ" 2>/dev/null || true
    wait "$HALL" "$MOSQ" 2>/dev/null || true
    PIDS=()
done

python3 - "$OUT" "${COUNTS[@]}" <<'PY'
import json, sys, os
out, counts = sys.argv[1], sys.argv[2:]
print(f"{'boards':>6} {'ev/s pub':>8} {'ev/s hall':>9} {'sse p50':>8} {'p99':>7} {'max':>7} "
      f"{'hall cpu%':>9} {'rss MB':>6} {'mosq cpu%':>9} {'rss MB':>6} {'gen cpu%':>8} {'rss MB':>6} "
      f"{'ovw ms':>7} {'lost':>4} {'behind':>6}")
for n in counts:
    p = os.path.join(out, f"result-{n}.json")
    if not os.path.exists(p):
        print(f"{n:>6} (no result)"); continue
    r = json.load(open(p)); d = r["delay_publish_to_sse_steady"]; pr = r["processes"]
    g = lambda k, f: (pr.get(k) or {}).get(f, 0)
    print(f"{n:>6} {r['events_per_s_published_steady']:>8} {r['events_per_s_into_hall_steady']:>9} "
          f"{d['p50_ms']:>8} {d['p99_ms']:>7} {d['max_ms']:>7} "
          f"{g('hall','cpu_pct_of_one_core'):>9} {g('hall','rss_mb_peak'):>6} "
          f"{g('mosquitto','cpu_pct_of_one_core'):>9} {g('mosquitto','rss_mb_peak'):>6} "
          f"{g('generator','cpu_pct_of_one_core'):>8} {g('generator','rss_mb_peak'):>6} "
          f"{r['overview_ms_p50']:>7} {r['connections_lost']:>4} {r['hall_events_behind_at_end']:>6}")
PY

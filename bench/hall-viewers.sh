#!/usr/bin/env bash
# bench/hall-viewers.sh [COUNT...]: many viewers of one board's page, on the hall's SSE
# stream and on the static export behind a plain static server (issue 14, load).
#
# For each viewer count (default: 100 500 1000 2000 4000) and each way of serving the page,
# in turn (`sse`, `python`, `nginx`, then the next count), it starts afresh: mosquitto on a
# free loopback port (the hall broker's limits, no TLS), one `tengen hall` (release) with
# `[broadcast] export_dir` set, and for `python`/`nginx` that static server on the export
# folder (`python3 -m http.server`, as the tests use; nginx as a plain process with its
# config in $OUT, not as a service). Then the load generator (daemon/benches/hall_scale.rs
# with --page-viewers) plays BOARDS boards into the hall over MQTT and opens COUNT viewers
# of the first board's page: on the hall's SSE stream (`sse`) or polling the export's
# `events.json` every 2 s as the exported page does (`python`, `nginx`). It measures the
# delay from publish to each viewer, failures, the hall's intake, and the CPU and memory of
# the hall, the static server, mosquitto and itself from /proc. JSON per run and logs go
# to $OUT (default /tmp/hall-viewers); a table is printed at the end.
#
# Environment: BOARDS (default 20), MODES (default "sse python nginx"), DURATION (s, 60),
# RAMP (boards' start, s, 5), VIEWER_RAMP (viewers' page loads, s, 10), SPEED (2),
# HEAD_START (virtual s of each game published at start, 900: ~150 moves, a game well under way),
# DRAIN (s, 6), OUT, CARGO_TARGET_DIR; TENGEN_BIN and GEN_BIN (both) skip the build.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNTS=("$@")
[ ${#COUNTS[@]} -gt 0 ] || COUNTS=(100 500 1000 2000 4000)
BOARDS=${BOARDS:-20}
read -r -a MODES <<<"${MODES:-sse python nginx}"
DURATION=${DURATION:-60}
RAMP=${RAMP:-5}
VIEWER_RAMP=${VIEWER_RAMP:-10}
SPEED=${SPEED:-2}
HEAD_START=${HEAD_START:-900}
DRAIN=${DRAIN:-6}
OUT=${OUT:-/tmp/hall-viewers}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
mkdir -p "$OUT"
chmod 755 "$OUT"

NGINX=$(command -v nginx || echo /usr/sbin/nginx)
for m in "${MODES[@]}"; do
    case $m in
    sse | python) ;;
    nginx) [ -x "$NGINX" ] || { echo "hall-viewers: nginx is not installed (apt-get install nginx)" >&2; exit 1; } ;;
    *) echo "hall-viewers: unknown mode $m (sse, python, nginx)" >&2; exit 1 ;;
    esac
done

NAME=hall-viewers
# shellcheck source=bench/common.sh
. "$(dirname "$0")/common.sh"

PIDS=()
stop_all() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    PIDS=()
}
trap stop_all EXIT

RUNS=()
for n in "${COUNTS[@]}"; do
    for mode in "${MODES[@]}"; do
        run="$n-$mode"
        site="$OUT/site-$run"
        rm -rf "$site"
        mkdir -p "$site"
        chmod 755 "$site"
        MQTT_PORT=$(free_port)
        HTTP_PORT=$(free_port)
        start_mosquitto "$run" "$MQTT_PORT"
        PIDS=("$MOSQ")
        cat >"$OUT/hall-$run.toml" <<CONF
# Every simulated viewer comes from 127.0.0.1, as behind a reverse proxy: no caps per
# address, and room for every viewer (SECURITY.md, issue 21).
[hall]
max_streams = 100000
streams_per_address = 100000
idle_per_address = 65536
busy_per_address = 65536
[broadcast]
export_dir = "$site"
CONF
        RUST_LOG=warn "$HALL_BIN" hall --broker "mqtt://127.0.0.1:$MQTT_PORT" \
            --http "127.0.0.1:$HTTP_PORT" --config "$OUT/hall-$run.toml" >"$OUT/hall-$run.log" 2>&1 &
        HALL=$!
        PIDS=("$HALL" "${PIDS[@]}")
        wait_port "$HTTP_PORT"
        PAGE=(--page sse)
        SERVER_PIDS=()
        case $mode in
        python)
            SPORT=$(free_port)
            python3 -m http.server "$SPORT" --bind 127.0.0.1 --directory "$site" \
                >"$OUT/static-$run.log" 2>&1 &
            SERVER_PIDS=($!)
            PIDS=("$!" "${PIDS[@]}")
            wait_port "$SPORT"
            PAGE=(--page static --static-server "127.0.0.1:$SPORT" --pid "static:$!")
            ;;
        nginx)
            SPORT=$(free_port)
            ndir="$OUT/nginx-$run"
            mkdir -p "$ndir/tmp"
            # Debian's defaults where they matter (worker_processes auto, sendfile,
            # keepalive_timeout 65), access log off, room for many connections.
            cat >"$ndir/nginx.conf" <<CONF
worker_processes auto;
worker_rlimit_nofile 65536;
pid $ndir/nginx.pid;
error_log $ndir/error.log warn;
daemon off;
events { worker_connections 16384; }
http {
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 65;
    client_body_temp_path $ndir/tmp/body;
    proxy_temp_path $ndir/tmp/proxy;
    fastcgi_temp_path $ndir/tmp/fastcgi;
    uwsgi_temp_path $ndir/tmp/uwsgi;
    scgi_temp_path $ndir/tmp/scgi;
    server {
        listen 127.0.0.1:$SPORT;
        root $site;
        index index.html;
    }
}
CONF
            "$NGINX" -p "$ndir" -c "$ndir/nginx.conf" -e "$ndir/error.log" >"$OUT/static-$run.log" 2>&1 &
            NG=$!
            PIDS=("$NG" "${PIDS[@]}")
            wait_port "$SPORT"
            sleep 0.5
            WORKERS=$(pgrep -P "$NG" | paste -sd, -)
            PAGE=(--page static --static-server "127.0.0.1:$SPORT" --pid "static:$NG${WORKERS:+,$WORKERS}")
            ;;
        esac
        echo "== $n viewers, $mode: hall pid $HALL port $HTTP_PORT, mosquitto pid $MOSQ"
        "$GEN" --broker "mqtt://127.0.0.1:$MQTT_PORT" --hall "127.0.0.1:$HTTP_PORT" \
            --boards "$BOARDS" --duration "$DURATION" --ramp "$RAMP" --speed "$SPEED" \
            --head-start "$HEAD_START" --viewer-ramp "$VIEWER_RAMP" --drain "$DRAIN" \
            --watch 0 --viewers 0 --page-viewers "$n" "${PAGE[@]}" \
            --pid "hall:$HALL" --pid "mosquitto:$MOSQ" \
            --out "$OUT/result-$run.json" >/dev/null 2>"$OUT/generator-$run.log" ||
            echo "hall-viewers: the generator failed at $run (see $OUT/generator-$run.log)" >&2
        grep "page viewers" "$OUT/generator-$run.log" | tail -n 1 || true
        RUNS+=("$run")
        stop_all
    done
done

python3 - "$OUT" "${RUNS[@]}" <<'PY'
import json, sys, os
out, runs = sys.argv[1], sys.argv[2:]
print(f"{'viewers':>7} {'mode':>6} {'opened':>6} {'fail':>5} {'drop':>4} {'miss':>4} "
      f"{'p50 ms':>7} {'p99':>7} {'max':>7} {'hall cpu%':>9} {'MB':>5} {'static cpu%':>11} {'MB':>5} "
      f"{'gen cpu%':>8} {'MB':>5} {'mosq cpu%':>9} {'intake behind':>13}")
for run in runs:
    n, mode = run.split("-", 1)
    p = os.path.join(out, f"result-{run}.json")
    if not os.path.exists(p):
        print(f"{n:>7} {mode:>6} (no result)"); continue
    r = json.load(open(p)); v = r.get("page_viewers") or {}; d = v.get("delay_publish_to_viewer_steady", {})
    pr = r["processes"]
    g = lambda k, f: (pr.get(k) or {}).get(f, "-")
    fail = sum(v.get(k, 0) for k in ("connect_failures", "request_failures", "http_errors", "timeouts"))
    print(f"{n:>7} {mode:>6} {v.get('opened', 0):>6} {fail:>5} {v.get('sse_dropped', 0):>4} "
          f"{v.get('viewers_missing_events_at_end', 0):>4} "
          f"{d.get('p50_ms', '-'):>7} {d.get('p99_ms', '-'):>7} {d.get('max_ms', '-'):>7} "
          f"{g('hall', 'cpu_pct_of_one_core'):>9} {g('hall', 'rss_mb_peak'):>5} "
          f"{g('static', 'cpu_pct_of_one_core'):>11} {g('static', 'rss_mb_peak'):>5} "
          f"{g('generator', 'cpu_pct_of_one_core'):>8} {g('generator', 'rss_mb_peak'):>5} "
          f"{g('mosquitto', 'cpu_pct_of_one_core'):>9} "
          f"{v.get('hall_intake_max_events_behind', '-'):>4} ev {v.get('hall_intake_wait_ms_max', '-'):>5} ms")
PY

#!/usr/bin/env bash
# bench/feed-pollers.sh [COUNT...]: many viewers polling the public round feed behind nginx as
# a CDN's cache, side by side with today's exported board page (issue 24, load).
#
# For each poller count (default: 20000) and each mode, in turn, it starts afresh: mosquitto
# on a free loopback port (the hall broker's limits, no TLS), one `tengen hall` (release)
# with `[broadcast] export_dir` set, and nginx as plain processes (config in $OUT, not a
# service):
#   feed-hall    pollers -> nginx cache (config/nginx-feed.conf) -> the hall's own /feed/
#   feed-export  pollers -> nginx cache (config/nginx-feed.conf) -> nginx static origin on the
#                export folder (config/nginx-feed-origin.conf)
#   today        pollers -> nginx static on the export folder, each board's whole
#                `board/{t}/{b}/events.json` every 2 s, as the exported board page does today
# The two feed files are used as they are, with only their listen address, `proxy_pass`,
# cache folder and `root` replaced, inside a minimal nginx.conf (the cache also listens with
# `reuseport`, so that the kernel spreads 20,000 connections evenly over the workers); every
# nginx logs each request (`$msec|$status|$upstream_cache_status|$upstream_addr|$uri|
# $bytes_sent`, buffered, subrequests too) to count what reaches the origin.
#
# Then the load generator (daemon/benches/feed_pollers.rs) plays BOARDS boards (round "1",
# tables 1..BOARDS) into the hall over MQTT, a move every PACE_MIN..PACE_MAX s per board after
# HEAD_MOVES moves at once, waits until the round is served, starts COUNT pollers over
# POLLER_RAMP s (in several processes: one process may hold at most the open-files limit) and
# measures DURATION s: visibility from each move's release to each poller, bytes per viewer
# per move, requests and failures, the origin's requests per file per second (from the
# logs), and the CPU of the hall, nginx, mosquitto and itself. JSON per run and logs go to
# $OUT (default /tmp/feed-pollers), with `headers-*.txt`: what a follower's 304 and 206 and an
# SGF poller's 304 look like through the cache, fetched with curl after each feed mode; a
# table is printed at the end.
#
# Environment: MODES (default "feed-hall feed-export today"), BOARDS (50), DURATION (s, 60),
# POLLER_RAMP (s, 30), BOARD_RAMP (s, 5), DRAIN (s, 8), HEAD_MOVES (120), PACE_MIN (5),
# PACE_MAX (20), SGF_EVERY (10: one poller in ten polls the SGF), DELAY_MOVES (0: no
# `delay_moves`, a move is released when it is published), PROCESSES (poller processes, 0:
# one per 7,000), OUT, CARGO_TARGET_DIR; TENGEN_BIN and GEN_BIN (both) skip the build.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNTS=("$@")
[ ${#COUNTS[@]} -gt 0 ] || COUNTS=(20000)
read -r -a MODES <<<"${MODES:-feed-hall feed-export today}"
BOARDS=${BOARDS:-50}
DURATION=${DURATION:-60}
POLLER_RAMP=${POLLER_RAMP:-30}
BOARD_RAMP=${BOARD_RAMP:-5}
DRAIN=${DRAIN:-8}
HEAD_MOVES=${HEAD_MOVES:-120}
PACE_MIN=${PACE_MIN:-5}
PACE_MAX=${PACE_MAX:-20}
SGF_EVERY=${SGF_EVERY:-10}
DELAY_MOVES=${DELAY_MOVES:-0}
PROCESSES=${PROCESSES:-0}
OUT=${OUT:-/tmp/feed-pollers}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
mkdir -p "$OUT"
chmod 755 "$OUT"

NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || { echo "feed-pollers: nginx is not installed (apt-get install nginx)" >&2; exit 1; }
for m in "${MODES[@]}"; do
    case $m in
    feed-hall | feed-export | today) ;;
    *) echo "feed-pollers: unknown mode $m (feed-hall, feed-export, today)" >&2; exit 1 ;;
    esac
done
for f in config/nginx-feed.conf config/nginx-feed-origin.conf; do
    [ -f "$f" ] || { echo "feed-pollers: $f is missing" >&2; exit 1; }
done

NAME=feed-pollers
GEN_BENCH=feed_pollers
# shellcheck source=bench/common.sh
. "$(dirname "$0")/common.sh"

# Every poller is one connection to nginx: nginx and the generator inherit this limit (the
# generator spreads its pollers over processes below it).
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
NOFILE=$(ulimit -n)
WORKER_CONNECTIONS=$((NOFILE > 65636 ? 65536 : NOFILE - 100))
echo "open files limit: $NOFILE (nginx worker_connections $WORKER_CONNECTIONS)"

# A free port below the kernel's ephemeral range (32768 and up here): 20,000 pollers leave
# as many connections in TIME_WAIT on ephemeral ports, and a `reuseport` listener cannot
# bind a port that one of them holds.
free_port() {
    python3 -c 'import random, socket
while True:
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", random.randrange(20000, 32000)))
        print(s.getsockname()[1])
        break
    except OSError:
        s.close()'
}

# subst SRC DST 'OLD=>NEW'...: SRC with every OLD replaced (each must be on a line that is
# not a comment, exactly once).
subst() {
    python3 - "$@" <<'PY'
import sys
src, dst, *pairs = sys.argv[1:]
text = open(src).read()
for p in pairs:
    old, new = p.split("=>", 1)
    live = sum(l.count(old) for l in text.splitlines() if not l.lstrip().startswith("#"))
    if live != 1:
        sys.exit(f"feed-pollers: {src}: {old!r} found {live} times outside comments, not once")
    text = text.replace(old, new)
open(dst, "w").write(text)
PY
}

# start_nginx DIR SNIPPET: nginx as a plain process with SNIPPET in a minimal http {} block;
# sets NG (master pid) and NG_PIDS (master and every child).
start_nginx() {
    local dir=$1 snippet=$2 port=$3
    mkdir -p "$dir/tmp" "$dir/cache"
    chmod 777 "$dir/tmp" "$dir/cache"
    cat >"$dir/nginx.conf" <<CONF
worker_processes auto;
worker_rlimit_nofile $NOFILE;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
daemon off;
events { worker_connections $WORKER_CONNECTIONS; }
http {
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    log_format feed '\$msec|\$status|\$upstream_cache_status|\$upstream_addr|\$uri|\$bytes_sent';
    access_log $dir/access.log feed buffer=256k flush=1s;
    log_subrequest on;
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 65;
    client_body_temp_path $dir/tmp/body;
    proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    include $snippet;
}
CONF
    "$NGINX" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" >"$dir/stdout.log" 2>&1 &
    NG=$!
    PIDS=("$NG" "${PIDS[@]}")
    wait_port "$port"
    sleep 0.5
    NG_PIDS=$(echo "$NG" $(pgrep -P "$NG") | tr ' ' ',')
}

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
        rm -rf "$site" "$OUT/nginx-$run"
        mkdir -p "$site"
        chmod 755 "$site"
        MQTT_PORT=$(free_port)
        HTTP_PORT=$(free_port)
        start_mosquitto "$run" "$MQTT_PORT"
        PIDS=("$MOSQ")
        DELAY_LINE=""
        [ "$DELAY_MOVES" = 0 ] || DELAY_LINE="delay_moves = $DELAY_MOVES"
        cat >"$OUT/hall-$run.toml" <<CONF
# Every request comes from 127.0.0.1 (nginx, the generator): no caps per address.
[hall]
max_streams = 100000
streams_per_address = 100000
idle_per_address = 65536
busy_per_address = 65536
[broadcast]
export_dir = "$site"
$DELAY_LINE
CONF
        RUST_LOG=warn "$HALL_BIN" hall --broker "mqtt://127.0.0.1:$MQTT_PORT" \
            --http "127.0.0.1:$HTTP_PORT" --config "$OUT/hall-$run.toml" >"$OUT/hall-$run.log" 2>&1 &
        HALL=$!
        PIDS=("$HALL" "${PIDS[@]}")
        wait_port "$HTTP_PORT"
        ndir="$OUT/nginx-$run"
        SPORT=$(free_port)
        MEASURE=()
        case $mode in
        feed-hall | feed-export)
            UPSTREAM=$HTTP_PORT
            if [ "$mode" = feed-export ]; then
                OPORT=$(free_port)
                mkdir -p "$ndir/origin"
                subst config/nginx-feed-origin.conf "$ndir/origin/site.conf" \
                    "listen 127.0.0.1:8081;=>listen 127.0.0.1:$OPORT;" \
                    "root /srv/tengen/export;=>root $site;"
                start_nginx "$ndir/origin" "$ndir/origin/site.conf" "$OPORT"
                MEASURE+=(--pid "nginx-origin:$NG_PIDS" --log "origin:all:$ndir/origin/access.log")
                UPSTREAM=$OPORT
            fi
            mkdir -p "$ndir/cache-server"
            subst config/nginx-feed.conf "$ndir/cache-server/site.conf" \
                "listen 8080;=>listen 127.0.0.1:$SPORT reuseport backlog=8192;" \
                "proxy_pass http://127.0.0.1:8081;=>proxy_pass http://127.0.0.1:$UPSTREAM;" \
                "/var/cache/nginx/tengen-feed=>$ndir/cache-server/cache/feed"
            start_nginx "$ndir/cache-server" "$ndir/cache-server/site.conf" "$SPORT"
            MEASURE+=(--pid "nginx-cache:$NG_PIDS" --log "cache:upstream:$ndir/cache-server/access.log")
            GMODE=feed
            ;;
        today)
            # A plain static server on the export folder, as hall-viewers.sh's nginx mode.
            mkdir -p "$ndir/static"
            cat >"$ndir/static/site.conf" <<CONF
server {
    listen 127.0.0.1:$SPORT reuseport backlog=8192;
    root $site;
    index index.html;
}
CONF
            start_nginx "$ndir/static" "$ndir/static/site.conf" "$SPORT"
            MEASURE+=(--pid "nginx-static:$NG_PIDS" --log "static:all:$ndir/static/access.log")
            GMODE=today
            ;;
        esac
        echo "== $n pollers, $mode: hall pid $HALL port $HTTP_PORT, mosquitto pid $MOSQ, server port $SPORT ($(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg))"
        "$GEN" --mode "$GMODE" --label "$mode" --broker "mqtt://127.0.0.1:$MQTT_PORT" \
            --hall "127.0.0.1:$HTTP_PORT" --server "127.0.0.1:$SPORT" \
            --boards "$BOARDS" --pollers "$n" --processes "$PROCESSES" --sgf-every "$SGF_EVERY" \
            --duration "$DURATION" --poller-ramp "$POLLER_RAMP" --board-ramp "$BOARD_RAMP" \
            --drain "$DRAIN" --head-moves "$HEAD_MOVES" --pace-min "$PACE_MIN" --pace-max "$PACE_MAX" \
            --delay-moves "$DELAY_MOVES" \
            --pid "hall:$HALL" --pid "mosquitto:$MOSQ" "${MEASURE[@]}" \
            --out "$OUT/result-$run.json" >/dev/null 2>"$OUT/generator-$run.log" ||
            echo "feed-pollers: the generator failed at $run (see $OUT/generator-$run.log)" >&2
        if [ "$GMODE" = feed ]; then
            # What a poller's answers look like, through the cache, once the boards stopped.
            c=(curl --noproxy '*' -s -o /dev/null -D -)
            base="http://127.0.0.1:$SPORT/feed/round/1"
            {
                etag=$("${c[@]}" "$base/1.json" | tr -d '\r' | awk 'tolower($1) == "etag:" {print $2}')
                size=$(curl --noproxy '*' -s "$base/1.json" | wc -c)
                echo "# GET 1.json with Range: bytes=$((size - 3))- and If-None-Match: $etag"
                "${c[@]}" -H "Range: bytes=$((size - 3))-" -H "If-None-Match: $etag" "$base/1.json"
                echo "# GET 1.json with Range: bytes=$((size - 3))- only"
                "${c[@]}" -H "Range: bytes=$((size - 3))-" "$base/1.json"
                setag=$("${c[@]}" -H 'Accept-Encoding: gzip' "$base/1.sgf" | tr -d '\r' | awk 'tolower($1) == "etag:" {print $2}')
                echo "# GET 1.sgf with Accept-Encoding: gzip and If-None-Match: $setag"
                "${c[@]}" -H 'Accept-Encoding: gzip' -H "If-None-Match: $setag" "$base/1.sgf"
            } >"$OUT/headers-$run.txt" 2>&1 || true
        fi
        RUNS+=("$run")
        stop_all
    done
done

python3 - "$OUT" "${RUNS[@]}" <<'PY'
import json, sys, os
out, runs = sys.argv[1], sys.argv[2:]
for run in runs:
    p = os.path.join(out, f"result-{run}.json")
    if not os.path.exists(p):
        print(f"{run}: no result"); continue
    r = json.load(open(p))
    pr = r["processes"]
    cpu = lambda k: (pr.get(k) or {}).get("cpu_pct_of_one_core", "-")
    rss = lambda k: (pr.get(k) or {}).get("rss_mb_peak", "-")
    nginx = [k for k in pr if k.startswith("nginx")]
    print(f"== {run}: {r['pollers']} pollers in {r['poller_processes']} processes, {r['boards']} boards, "
          f"{r['moves_released_in_window']} moves released in the {r['window_s']} s window "
          f"({r['moves_released_per_s']}/s), delay_moves {r['delay_moves']}, load {r['load_average_samples'][-1:]}")
    print("   CPU % of one core (peak RSS MB): " + ", ".join(
        f"{k} {cpu(k)} ({rss(k)})" for k in ["hall", *nginx, "mosquitto", "generator"])
        + f"; whole machine (all cores, kernel included) {cpu('machine')}")
    for o in r["origin"]:
        for c, f in (o.get("by_file_class") or {}).items():
            print(f"   origin [{o['name']}, {o['counted']}] {c:>11}: {f['files']:>3} files, per file per s "
                  f"median {f['per_file_per_s_median']} max {f['per_file_per_s_max']}, most in one second {f['max_in_one_second']}")
    print(f"   {'kind':>5} {'pollers':>7} {'follow':>6} {'req/s':>7} {'B/move':>7} {'body B/move':>11} "
          f"{'viewer med':>10} {'vis p50 ms':>10} {'p99':>7} {'max':>7} {'seen':>7} {'missed':>6} {'fail':>5} {'restarts':>8}")
    for kind, k in r["by_kind"].items():
        v = k["visibility_from_release"]
        fail = sum(k[x] for x in ("connect_failures", "io_failures", "timeouts", "malformed", "status_other", "index_failed"))
        print(f"   {kind:>5} {k['pollers']:>7} {k['following']:>6} {k['requests_per_s_steady']:>7} "
              f"{k['bytes_per_move_steady']:>7} {k['body_bytes_per_move_steady']:>11} {k['bytes_per_move_per_viewer_median']:>10} "
              f"{v['p50_ms']:>10} {v['p99_ms']:>7} {v['max_ms']:>7} {v['count']:>7} {k['moves_missed_by_end']:>6} {fail:>5} {k['restarts']:>8}")
PY

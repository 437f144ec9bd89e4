#!/usr/bin/env bash
# bench/footprint.sh: CPU and memory of `tengen run` (release build) on the sim backend at
# 100 scans/s, in three cases, each measured for $WINDOW seconds after $WARMUP seconds:
#
#   idle   - a board with nothing happening (a script that only waits), events to an
#            external mosquitto on loopback (a hall's broker)
#   game   - the bundled demo game played at human pace (speed 1), same broker
#   served - the same game with the embedded broker, an MQTT subscriber on `tengen/#`
#            and the live page's SSE stream (/events) open
#   countdown - a byo-yomi countdown: White thinks through 60 s periods (main time 0) with
#            nothing else happening, so the players' faces change every second and ten
#            times a second in each period's last 10 s, and a call falls every few seconds
#
# DISPLAY (ssd1306 or none, default ssd1306) is the config's `[display] driver`: on the sim
# backend, ssd1306 is the real driver writing every changed face to two emulated SSD1306 on
# a simulated I2C bus. Run the same cases with both to see what the displays cost.
#
# Each case runs under `/usr/bin/time -v` (peak RSS, total CPU) and is sampled from
# /proc/PID/stat (utime+stime over the window: CPU % of one core) and /proc/PID/status
# (VmRSS, VmHWM) once a second. The sim backend generates the sensor frames in-process, so
# the figures include the simulated hardware (an upper bound for the service alone).
#
# Environment: WINDOW (s, default 60), WARMUP (s, default 5), CASES (default
# "idle game served"; also "countdown"), DISPLAY (default ssd1306), OUT (default /tmp/tengen-footprint), CARGO_TARGET_DIR, TENGEN (a
# tengen binary to use instead of building one).
set -euo pipefail
cd "$(dirname "$0")/.."
WINDOW=${WINDOW:-60}
WARMUP=${WARMUP:-5}
CASES=${CASES:-"idle game served"}
DISPLAY_DRIVER=${DISPLAY:-ssd1306}
OUT=${OUT:-/tmp/tengen-footprint}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
REPO=$PWD
mkdir -p "$OUT"

for tool in /usr/bin/time python3 curl; do
    command -v "$tool" >/dev/null || {
        echo "footprint: $tool is missing (apt-get install time python3 curl)" >&2
        exit 1
    }
done
MOSQUITTO=$(command -v mosquitto || echo /usr/sbin/mosquitto)
[ -x "$MOSQUITTO" ] || { echo "footprint: mosquitto is missing (apt-get install mosquitto)" >&2; exit 1; }
SUB=$(command -v mosquitto_sub || true)

if [ -z "${TENGEN:-}" ]; then
    cargo build --release -p tengen-daemon --bin tengen >&2
    TENGEN=$CARGO_TARGET_DIR/release/tengen
fi
CLK_TCK=$(getconf CLK_TCK)

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# config CASE DIR BROKER_PORT HTTP_PORT: writes DIR/board.toml.
config() {
    local case=$1 dir=$2 mport=$3 hport=$4 source url
    local time='system = "byoyomi"
main = "60m"
periods = 5
period = "30s"'
    if [ "$case" = idle ]; then
        # A board waiting for the game to start: 24 h of nothing (the longest wait).
        printf 'size 19\nwait 24h\n' >"$dir/idle.txt"
        source="script = \"idle.txt\""
    elif [ "$case" = countdown ]; then
        # Black plays at once; White then thinks through byo-yomi periods of 60 s.
        printf 'size 19\nplace B Q16\npress B\nwait 24h\n' >"$dir/countdown.txt"
        source="script = \"countdown.txt\""
        time='system = "byoyomi"
main = "0s"
periods = 1000
period = "60s"'
    else
        cp "$REPO/config/games/demo.sgf" "$dir/demo.sgf"
        source="sgf = \"demo.sgf\""
    fi
    if [ "$case" = served ]; then url=embedded; else url="mqtt://127.0.0.1:$mport"; fi
    cat >"$dir/board.toml" <<EOF
[board]
id = "foot-01"
tournament = "bench"
size = 19
[hardware]
backend = "sim"
scan_hz = 100
[hardware.sim]
$source
seed = 1
noise = 0.0
speed = 1.0
[time]
$time
[display]
driver = "$DISPLAY_DRIVER"
[voice]
style = "off"
[mqtt]
url = "$url"
listen = "127.0.0.1:$mport"
[http]
listen = "127.0.0.1:$hport"
[storage]
dir = "$dir/state"
EOF
}

# ticks PID: utime+stime of PID in clock ticks.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# status_kb PID FIELD: a /proc/PID/status field in kB.
status_kb() { awk -v f="$2:" '$1 == f {print $2}' "/proc/$1/status"; }

printf '%-9s %-7s %8s %9s %9s %9s %11s\n' case display cpu_pct rss_kb hwm_kb maxrss_kb events_seen
for case in $CASES; do
    dir=$(mktemp -d "$OUT/$case.XXXX")
    mport=$(free_port)
    hport=$(free_port)
    config "$case" "$dir" "$mport" "$hport"
    helpers=()
    if [ "$case" != served ]; then
        "$MOSQUITTO" -p "$mport" >"$dir/mosquitto.log" 2>&1 &
        helpers+=($!)
        sleep 0.5
    fi
    /usr/bin/time -v "$TENGEN" run --config "$dir/board.toml" >"$dir/tengen.log" 2>"$dir/time.txt" &
    timer=$!
    sleep 1
    pid=$(pgrep -P "$timer" -x tengen || true)
    [ -n "$pid" ] || { echo "footprint: tengen did not start; see $dir/time.txt" >&2; exit 1; }
    if [ "$case" = served ]; then
        sleep 1
        curl -sN "http://127.0.0.1:$hport/events" >"$dir/sse.txt" 2>/dev/null &
        helpers+=($!)
        if [ -n "$SUB" ]; then
            "$SUB" -p "$mport" -t 'tengen/#' -q 1 >"$dir/mqtt.txt" 2>/dev/null &
            helpers+=($!)
        fi
    elif [ -n "$SUB" ]; then
        "$SUB" -p "$mport" -t 'tengen/#' -q 1 >"$dir/mqtt.txt" 2>/dev/null &
        helpers+=($!)
    fi
    sleep "$WARMUP"
    t0=$(ticks "$pid")
    s0=$(date +%s.%N)
    : >"$dir/samples.txt"
    for _ in $(seq "$WINDOW"); do
        sleep 1
        echo "$(date +%s.%N) $(ticks "$pid") $(status_kb "$pid" VmRSS) $(status_kb "$pid" VmHWM)" >>"$dir/samples.txt"
    done
    t1=$(ticks "$pid")
    s1=$(date +%s.%N)
    rss=$(status_kb "$pid" VmRSS)
    hwm=$(status_kb "$pid" VmHWM)
    kill -TERM "$pid"
    wait "$timer" || true
    for h in "${helpers[@]}"; do kill "$h" 2>/dev/null || true; done
    for h in "${helpers[@]}"; do wait "$h" 2>/dev/null || true; done
    cpu=$(python3 -c "print(f'{100 * ($t1 - $t0) / $CLK_TCK / ($s1 - $s0):.2f}')")
    maxrss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$dir/time.txt")
    seen=0
    [ -f "$dir/mqtt.txt" ] && seen=$(wc -l <"$dir/mqtt.txt")
    [ -f "$dir/sse.txt" ] && seen="$seen+sse:$(grep -c '^data:' "$dir/sse.txt" || true)"
    printf '%-9s %-7s %8s %9s %9s %9s %11s\n' "$case" "$DISPLAY_DRIVER" "$cpu" "$rss" "$hwm" "$maxrss" "$seen"
    echo "{\"case\":\"$case\",\"display\":\"$DISPLAY_DRIVER\",\"window_s\":$WINDOW,\"cpu_pct\":$cpu,\"rss_kb\":$rss,\"hwm_kb\":$hwm,\"maxrss_kb\":$maxrss}" >"$dir/summary.json"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); details in $OUT" >&2

#!/usr/bin/env bash
# bench/venues.sh VENUES BOARDS: many venues pushing to one hub through chaos, measured
# (issue 37; docs/venues.md, BENCHMARKS.md "Many venues").
#
# Builds `tengen` and the bench (daemon/benches/venues.rs) in release and runs it as root:
# a hub and VENUES venues in network namespaces (veth links), in each a mosquitto and a
# `tengen hall` on the files `tengen broker-config` writes, BOARDS simulated boards per
# venue, and the chaos (link cuts, loss, throttling, brokers and halls killed and started
# again), bounded in count and time. Prints a JSON summary, then, as its last line,
# `lost N, duplicated N, catch-up p99 S s`.
#
# Environment: DURATION (s of play, default 600), CUTS (link cuts, default 20), SPEED
# (virtual ms per wall ms, default 1), DRAIN (s, default 180), SETTLE (s between one
# action's end and the next's start, default 10), SEED (default 1), OUT
# (default /tmp/venues-bench), CARGO_TARGET_DIR; TENGEN_BIN and GEN_BIN (both) skip the
# build and use those binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
VENUES=${1:-3}
BOARDS=${2:-100}
DURATION=${DURATION:-600}
CUTS=${CUTS:-20}
SPEED=${SPEED:-1}
DRAIN=${DRAIN:-180}
SETTLE=${SETTLE:-10}
SEED=${SEED:-1}
OUT=${OUT:-/tmp/venues-bench}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
mkdir -p "$OUT"
[ "$(id -u)" = 0 ] || { echo "venues: run as root (network namespaces)" >&2; exit 1; }

NAME=venues
GEN_BENCH=venues
# shellcheck source=bench/common.sh
. "$(dirname "$0")/common.sh"

"$GEN" --venues "$VENUES" --boards "$BOARDS" --duration "$DURATION" --cuts "$CUTS" \
    --speed "$SPEED" --drain "$DRAIN" --settle "$SETTLE" --seed "$SEED" --tengen "$HALL_BIN" --out "$OUT" \
    2>"$OUT/bench.log" | tee "$OUT/summary.txt"

#!/usr/bin/env bash
# fuzz/run.sh [SECONDS] [TARGET...]: the long fuzzing run, coverage-guided with AFL++.
#
# Builds the targets with `cargo afl build --release` (instrumented; its own workspace, so
# the main build is untouched), then runs `cargo afl fuzz` on each target for SECONDS
# (default 600) from its seed corpus (fuzz/corpus/TARGET, built by fuzz/make_seeds.py),
# one after the other (JOBS=2 runs two at once; on this VM that made every
# seed time out, so the default is 1), and prints each run's figures from AFL's
# fuzzer_stats: execs, execs/s, corpus (paths), edges found / map size, crashes, hangs.
#
# Afterwards `fuzz/run.sh --keep` copies each target's queue (minimised with `cargo afl
# cmin` when that keeps anything; the 150 smallest entries under 4 KiB) and every crash
# into fuzz/found/TARGET, which the CI short form
# (daemon/tests/fast/fuzz_inputs.rs) runs on every test run.
#
# Needs: `cargo install cargo-afl` and `cargo afl config --build` once. Environment: OUT
# (AFL's output, default /tmp/tengen-afl), CARGO_TARGET_DIR (default fuzz/target), JOBS.
set -euo pipefail
cd "$(dirname "$0")"
OUT=${OUT:-/tmp/tengen-afl}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
BIN=$CARGO_TARGET_DIR/release
ALL=(sgf serial script config command command_checked hall hall_config console_command)

if [ "${1:-}" = "--keep" ]; then
    shift
    targets=("$@")
    [ ${#targets[@]} -gt 0 ] || targets=("${ALL[@]}")
    for t in "${targets[@]}"; do
        [ -d "$OUT/$t/default/queue" ] || continue
        # Crashes kept before stay: they are the regression inputs of fixed bugs.
        rm -rf "$OUT/$t/cmin"
        mkdir -p found/"$t"
        src="$OUT/$t/cmin"
        cargo afl cmin -i "$OUT/$t/default/queue" -o "$src" -t 2000 -- "$BIN/$t" \
            >/dev/null 2>&1 || src="$OUT/$t/default/queue"
        # afl-cmin (the Python one in cargo-afl 0.18) can record no tuples for these
        # targets and keep nothing: then the queue itself is used.
        [ -n "$(ls -A "$src" 2>/dev/null)" ] || src="$OUT/$t/default/queue"
        # Small inputs only (the short form must stay fast): the 150 smallest under 4 KiB.
        find "$src" -maxdepth 1 -type f -size -4k -printf '%s %p\n' | sort -n |
            head -n 150 | cut -d' ' -f2- | while read -r f; do
            cp "$f" "found/$t/q-$(sha1sum "$f" | cut -c1-12)"
        done || true # head closes the pipe early: sort's SIGPIPE is not a failure
        for f in "$OUT/$t"/default/crashes/id:* "$OUT/$t"/default/hangs/id:*; do
            [ -f "$f" ] || continue
            cp "$f" "found/$t/crash-$(sha1sum "$f" | cut -c1-12)"
        done
        echo "$t: $(find found/"$t" -type f | wc -l) inputs kept in fuzz/found/$t"
    done
    exit 0
fi

SECONDS_EACH=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${ALL[@]}")
JOBS=${JOBS:-1}

cargo afl build --release >&2
mkdir -p "$OUT"

run_one() {
    local t=$1
    rm -rf "${OUT:?}/$t"
    # -V: stop after SECONDS; -t: 2 s per input is a hang; no UI, no CPU binding checks.
    AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
        cargo afl fuzz -V "$SECONDS_EACH" -t 2000 -i "corpus/$t" -o "$OUT/$t" "$BIN/$t" \
        >"$OUT/$t.log" 2>&1 || true
}

running=0
for t in "${targets[@]}"; do
    run_one "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then
        wait -n || true
        running=$((running - 1))
    fi
done
wait || true

printf '%-8s %6s %10s %9s %7s %13s %8s %6s\n' target secs execs execs/s paths edges crashes hangs
for t in "${targets[@]}"; do
    s="$OUT/$t/default/fuzzer_stats"
    if [ ! -f "$s" ]; then
        echo "$t: no fuzzer_stats (see $OUT/$t.log)"
        continue
    fi
    get() { awk -F' *: *' -v k="$1" '$1 == k {print $2}' "$s"; }
    printf '%-8s %6s %10s %9s %7s %13s %8s %6s\n' "$t" "$(get run_time)" "$(get execs_done)" \
        "$(get execs_per_sec)" "$(get corpus_count)" "$(get edges_found)/$(get total_edges)" \
        "$(get saved_crashes)" "$(get saved_hangs)"
done

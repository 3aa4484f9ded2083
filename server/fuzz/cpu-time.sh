#!/usr/bin/env bash
# Run one fuzz target until its libFuzzer process has used SECONDS of CPU time (user + system,
# all its threads), however long that takes on a shared machine, then stop it with SIGINT so
# that libFuzzer prints its final statistics. `-max_total_time` counts wall time instead: on a
# loaded machine, a niced fuzzer gets a fraction of a core and an hour of wall time is a
# fraction of an hour of fuzzing.
#
#   server/fuzz/cpu-time.sh TARGET SECONDS CORE -- CORPUS_DIRS... -- LIBFUZZER_FLAGS...
#   server/fuzz/cpu-time.sh build_project 3600 1 -- corpus/build_project seeds/build_project \
#       -- -dict=build.dict -max_len=16384 -timeout=20
#
# Runs niced (15) and pinned to CORE. Prints the CPU seconds used every 5 minutes and at the
# end; the fuzzer's output goes to stdout.
set -u
target=$1 budget=$2 core=$3
shift 3
[ "${1:-}" = "--" ] && shift
dirs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do dirs+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
cd "$(dirname "$0")" || exit 2
RUSTC_BOOTSTRAP=1 nice -n 10 taskset -c "$core" cargo fuzz build -O "$target" || exit 2
bin=target/x86_64-unknown-linux-gnu/release/$target
mkdir -p "artifacts/$target" "${dirs[0]}"
nice -n 15 taskset -c "$core" "$bin" -artifact_prefix="artifacts/$target/" \
    -print_final_stats=1 "$@" "${dirs[@]}" &
pid=$!
tick=$(getconf CLK_TCK)
cpu() { awk -v t="$tick" '{ print int(($14 + $15) / t) }' "/proc/$pid/stat" 2>/dev/null; }
last=0 used=0 stopped=0
while kill -0 "$pid" 2>/dev/null; do
    now=$(cpu)
    [ -n "$now" ] && used=$now
    if [ "$stopped" = 0 ] && [ "$used" -ge "$budget" ]; then
        kill -INT "$pid"
        stopped=1
    fi
    if [ $((used - last)) -ge 300 ]; then
        echo "cpu-time.sh: $used of $budget CPU seconds" >&2
        last=$used
    fi
    sleep 1
done
wait "$pid"
status=$?
if [ "$stopped" = 1 ]; then
    echo "cpu-time.sh: $target stopped after $used CPU seconds (exit $status)" >&2
else
    echo "cpu-time.sh: $target ended by itself after $used CPU seconds (exit $status)" >&2
fi
exit "$status"

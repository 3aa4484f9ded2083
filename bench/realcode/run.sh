#!/usr/bin/env bash
# The real-code harness of issue 16: reductio on 23 real C projects, their leak fixes and the
# hand triage of its reports. One command; see bench/realcode/README.md.
#
#   bash bench/realcode/run.sh                      # everything (takes about an hour on 2 cores)
#   bash bench/realcode/run.sh --projects jq,lmdb   # only these projects (and their leak fixes)
#
# Options:
#   --projects a,b     only these projects of projects.tsv (stats, leak-fix rows, triage)
#   --jobs N           reductio worker threads (default 1: the figures are per core)
#   --budget N         reductio's --budget (default: reductio's own)
#   --reductio PATH    use this binary instead of building the repository's (cargo build --release)
#   --no-fetch         do not run fetch.sh (use what is in bench-data/realcode/)
#   --skip-recall      no leak-fix recall
#   --skip-stats       no per-project figures (triage then re-runs reductio itself)
#   --skip-triage      no precision from triage.tsv
#   --modes LIST       recall modes (default project,file)
#   --timeout S        kill a reductio run after S seconds (default: none)
#   --no-cache         re-run the leak-fix trees even if a run of the same binary is cached
#   --recall-cached-only  score only the leak-fix runs already cached (the rest: not run)
#   --no-report        do not touch BENCHMARKS.md
#   --out FILE         where the "Real code" section goes (default BENCHMARKS.md at the top level)
#
# Raw outputs: bench-data/realcode/results/<UTC time>/ (machine.json, stats/, recall/, triage/,
# the console output in run.log). `python3 bench/realcode/report.py write DIR` renders a run again.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
data="${BENCH_DATA:-$root/bench-data}/realcode"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
command_line="bash bench/realcode/run.sh${*:+ $*}"

usage() { sed -n '2,25p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

projects=""
jobs=1
budget=""
reductio=""
fetch=1
recall=1
stats=1
triage=1
modes="project,file"
timeout=""
nocache=""
report=1
out="$root/BENCHMARKS.md"
while [ $# -gt 0 ]; do
    case "$1" in
        --projects) projects="${2:?--projects needs a list}"; shift ;;
        --jobs) jobs="${2:?}"; shift ;;
        --budget) budget="${2:?}"; shift ;;
        --reductio) reductio="${2:?}"; shift ;;
        --no-fetch) fetch=0 ;;
        --skip-recall) recall=0 ;;
        --skip-stats) stats=0 ;;
        --skip-triage) triage=0 ;;
        --modes) modes="${2:?}"; shift ;;
        --timeout) timeout="${2:?}"; shift ;;
        --no-cache) nocache="--no-cache" ;;
        --recall-cached-only) nocache="--cached-only" ;;
        --no-report) report=0 ;;
        --out) out="${2:?}"; shift ;;
        -h | --help) usage; exit 0 ;;
        *) echo "run.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

log() { printf '\n==> %s\n' "$*" >&2; }
command -v python3 >/dev/null || { echo "run.sh: python3 is required" >&2; exit 2; }
command -v git >/dev/null || { echo "run.sh: git is required" >&2; exit 2; }

stamp="$(date -u +%Y%m%dT%H%M%SZ)"
results="$data/results/$stamp"
mkdir -p "$results"
exec > >(tee -a "$results/run.log") 2>&1
log "results in $results"

# ---- the analyser --------------------------------------------------------------------------
given=""
if [ -n "$reductio" ]; then
    [ -x "$reductio" ] || { echo "run.sh: $reductio is not an executable" >&2; exit 2; }
    bin_src="$(cd "$(dirname "$reductio")" && pwd)/$(basename "$reductio")"
    given=given
else
    command -v cargo >/dev/null || { echo "run.sh: cargo is required (or give --reductio PATH)" >&2; exit 2; }
    log "building reductio (release)"
    (cd "$root" && cargo build --release -p reductio --bin reductio)
    bin_src="$target_dir/release/reductio"
fi
# A copy, so that a build made meanwhile cannot change the binary halfway; deleted at the end.
mkdir -p "$results/bin"
cp "$bin_src" "$results/bin/reductio"
bin="$results/bin/reductio"
trap 'rm -rf "$results/bin"' EXIT
python3 "$here/report.py" machine "$results" "$command_line" "$bin_src" "$jobs" "${budget:-default}" $given

# ---- the corpus ----------------------------------------------------------------------------
if [ "$fetch" = 1 ]; then
    log "fetching the corpus${projects:+ ($projects)}"
    bash "$here/fetch.sh" ${projects:+--projects "$projects"} ||
        echo "run.sh: fetch.sh could not get everything (see above); going on with what is there" >&2
fi

common=(--reductio "$bin" --results "$results" --jobs "$jobs")
[ -n "$budget" ] && common+=(--budget "$budget")
[ -n "$projects" ] && common+=(--projects "$projects")
tmo=()
[ -n "$timeout" ] && tmo=(--timeout "$timeout")
failed=()

# ---- a. leak-fix recall --------------------------------------------------------------------
if [ "$recall" = 1 ]; then
    if [ -f "$here/leakfixes.tsv" ]; then
        log "leak-fix recall (modes $modes)"
        python3 "$here/recall.py" "${common[@]}" "${tmo[@]}" --modes "$modes" $nocache || failed+=(recall)
    else
        echo "run.sh: no bench/realcode/leakfixes.tsv; recall skipped" >&2
    fi
fi

# ---- b. per-project figures ----------------------------------------------------------------
if [ "$stats" = 1 ]; then
    log "per-project figures at the pins (--all --jobs $jobs)"
    python3 "$here/stats.py" "${common[@]}" "${tmo[@]}" || failed+=(stats)
fi

# ---- c. triage -----------------------------------------------------------------------------
if [ "$triage" = 1 ]; then
    if [ -f "$here/triage.tsv" ]; then
        log "precision from the triage"
        python3 "$here/triage.py" "${common[@]}" || failed+=(triage)
    else
        echo "run.sh: no bench/realcode/triage.tsv; triage skipped" >&2
    fi
fi

# ---- d. the report -------------------------------------------------------------------------
if [ "$report" = 1 ]; then
    log "writing the Real code section of $out"
    python3 "$here/report.py" write "$results" --out "$out"
fi
if [ ${#failed[@]} -gt 0 ]; then
    log "failed: ${failed[*]} (see $results/run.log)"
    exit 1
fi
log "done (raw outputs in $results)"

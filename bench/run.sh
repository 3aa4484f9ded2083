#!/usr/bin/env bash
# The benchmark harness of issue 6: reductio against real C, against its peers, and in the
# editor. One command; see bench/README.md.
#
#   bash bench/run.sh                    # full: SQLite, libxml2, LMDB+lz4, expat; all peers
#   bash bench/run.sh --quick            # LMDB+lz4 and expat only, shorter peer timeout
#   bash bench/run.sh --corpus expat     # only this corpus (repeatable)
#
# Options:
#   --quick                 small corpora (lmdb, expat), peer timeout 60 s
#   --corpus NAME           sqlite | libxml2 | lmdb | expat (repeatable; overrides the mode's list)
#   --peers LIST            comma-separated subset of cppcheck,gcc,clang (default: all available)
#   --no-peers              skip the peer analysers
#   --no-lsp                skip the editor measurements (the session and the edit breakdown)
#   --runs N                runs of the parse and parse+lower measurements (default 3; median)
#   --peer-timeout SECONDS  per file and per peer (default 300; quick 60)
#   --peer-jobs N           files analysed at once by a peer (default: all cores)
#   --edits N               edits timed at debounce 0 in the editor session (default 100)
#   --default-debounce-edits N  edits timed at the default debounce (default 20; 0 skips)
#   --no-install            do not apt-get install missing peers
#   --out FILE              where the report goes (default: BENCHMARKS.md at the top level)
#
# Builds reductio in release, fetches the corpora (npm pack, cached in bench-data/), installs
# cppcheck and clang with apt-get if they are missing (GCC is the machine's), measures, keeps
# every raw figure under bench-data/results/<UTC time>/ and writes the report.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
data="${BENCH_DATA:-$root/bench-data}"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
command_line="bash bench/run.sh${*:+ $*}"

usage() { sed -n '2,25p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

mode=full
corpora=()
peer_list=""
do_peers=1
do_lsp=1
runs=3
peer_timeout=""
peer_jobs="$(nproc)"
edits=100
default_edits=20
install=1
out="$root/BENCHMARKS.md"
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) mode=quick ;;
        --corpus) corpora+=("${2:?--corpus needs a name}"); shift ;;
        --peers) peer_list="${2:?--peers needs a list}"; shift ;;
        --no-peers) do_peers=0 ;;
        --no-lsp) do_lsp=0 ;;
        --runs) runs="${2:?}"; shift ;;
        --peer-timeout) peer_timeout="${2:?}"; shift ;;
        --peer-jobs) peer_jobs="${2:?}"; shift ;;
        --edits) edits="${2:?}"; shift ;;
        --default-debounce-edits) default_edits="${2:?}"; shift ;;
        --no-install) install=0 ;;
        --out) out="${2:?}"; shift ;;
        -h | --help) usage; exit 0 ;;
        *) echo "run.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done
if [ ${#corpora[@]} -eq 0 ]; then
    if [ "$mode" = quick ]; then corpora=(lmdb expat); else corpora=(sqlite libxml2 lmdb expat); fi
fi
if [ -z "$peer_timeout" ]; then
    if [ "$mode" = quick ]; then peer_timeout=60; else peer_timeout=300; fi
fi

# ---- the corpora ---------------------------------------------------------------------------

package_of() {
    case "$1" in
        sqlite) echo better-sqlite3 ;;
        libxml2) echo libxmljs2 ;;
        lmdb) echo lmdb ;;
        expat) echo node-expat ;;
        *) echo "run.sh: unknown corpus $1 (sqlite, libxml2, lmdb, expat)" >&2; exit 2 ;;
    esac
}

# Directories analysed, relative to bench-data/. LMDB's package also carries an older copy
# of LMDB (lmdb-data-v1) and V8 headers; only the current LMDB and lz4 are taken.
dirs_of() {
    case "$1" in
        sqlite) echo better-sqlite3/deps/sqlite3 ;;
        libxml2) echo libxmljs2/vendor/libxml ;;
        lmdb) echo lmdb/dependencies/lmdb/libraries/liblmdb lmdb/dependencies/lz4/lib ;;
        expat) echo node-expat/deps/libexpat ;;
    esac
}

# Include directories and defines the peers compile with: those of the package's own build
# (binding.gyp / libexpat.gyp), so that a file fails only where a user's build would.
cflags_of() {
    case "$1" in
        sqlite) echo "-I $data/better-sqlite3/deps/sqlite3" ;;
        libxml2) echo "-I $data/libxmljs2/vendor/libxml -I $data/libxmljs2/vendor/libxml/include" ;;
        lmdb) echo "-I $data/lmdb/dependencies/lmdb/libraries/liblmdb -I $data/lmdb/dependencies/lz4/lib" ;;
        expat) echo "-I $data/node-expat/deps/libexpat -I $data/node-expat/deps/libexpat/lib -DHAVE_EXPAT_CONFIG_H" ;;
    esac
}

for c in "${corpora[@]}"; do package_of "$c" >/dev/null; done

# ---- tools ---------------------------------------------------------------------------------

log() { printf '\n==> %s\n' "$*" >&2; }
command -v cargo >/dev/null || { echo "run.sh: cargo is required" >&2; exit 2; }
command -v python3 >/dev/null || { echo "run.sh: python3 is required" >&2; exit 2; }

stamp="$(date -u +%Y%m%dT%H%M%SZ)"
results="$data/results/$stamp"
mkdir -p "$results"
errors="$results/errors.txt"
: >"$errors"
read -r load_start _ </proc/loadavg
echo "$load_start" >"$results/load-start.txt"
log "results in $results"

# Runs a measurement; a failure is recorded and the run goes on.
step() {
    local name="$1" rc=0
    shift
    log "$name"
    "$@" || rc=$?
    if [ "$rc" != 0 ]; then
        echo "$name: failed (exit $rc); see the logs in $results" | tee -a "$errors" >&2
    fi
}

# capture OUT LOG COMMAND...: stdout to OUT, stderr to LOG.
capture() {
    local out="$1" err="$2"
    shift 2
    "$@" >"$out" 2>"$err"
}

log "building reductio (release)"
(cd "$root" && cargo build --release -p reductio --bin reductio \
    --example bench_front --example bench_check --example bench_lsp --example bench_edit)
# The run uses copies, so that a build made meanwhile (another checkout, another engineer)
# cannot change the binary halfway through; they are deleted at the end.
snapshot="$results/bin"
mkdir -p "$snapshot"
cp "$target_dir/release/reductio" "$snapshot/"
for e in bench_front bench_check bench_lsp bench_edit; do cp "$target_dir/release/examples/$e" "$snapshot/"; done
bin="$snapshot/reductio"
ex="$snapshot"

packages=()
for c in "${corpora[@]}"; do packages+=("$(package_of "$c")"); done
log "fetching corpora: ${packages[*]}"
BENCH_DATA="$data" bash "$root/bench/fetch-corpora.sh" "${packages[@]}" >&2

can_install() {
    [ "$install" = 1 ] && command -v apt-get >/dev/null && { [ "$(id -u)" = 0 ] || sudo -n true 2>/dev/null; }
}
apt_install() {
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo -n"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "$@" >&2 ||
        { $sudo apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "$@" >&2; }
}

peers=()
if [ "$do_peers" = 1 ]; then
    wanted="${peer_list:-cppcheck,gcc,clang}"
    for p in ${wanted//,/ }; do
        case "$p" in
            cppcheck | clang)
                if ! command -v "$p" >/dev/null && can_install; then
                    # clang only if Debian has it for this release.
                    if [ "$p" = cppcheck ] || apt-cache policy clang 2>/dev/null | grep -q 'Candidate: [0-9]'; then
                        log "installing $p"
                        apt_install "$p" || true
                    fi
                fi
                ;;
            gcc) ;;
            *) echo "run.sh: unknown peer $p (cppcheck, gcc, clang)" >&2; exit 2 ;;
        esac
        if command -v "$p" >/dev/null; then
            peers+=("$p")
        else
            echo "peer $p: not available (not installed and could not be installed)" | tee -a "$errors" >&2
        fi
    done
fi

# ---- the machine ---------------------------------------------------------------------------

python3 - "$results/machine.json" "$command_line" "$mode" "$bin" "$root" "$peer_timeout" "$peer_jobs" "$runs" "${corpora[@]}" <<'EOF'
import json, os, platform, subprocess, sys
out, command, mode, binary, root, peer_timeout, peer_jobs, runs, *corpora = sys.argv[1:]
def first(path, key):
    try:
        for line in open(path):
            if line.startswith(key):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None
def head():
    # The commit checked out, read from .git without running git (the tree may differ).
    try:
        h = open(os.path.join(root, ".git", "HEAD")).read().strip()
        if not h.startswith("ref: "):
            return h
        ref = h[5:]
        p = os.path.join(root, ".git", ref)
        if os.path.exists(p):
            return open(p).read().strip() + " (" + ref.rsplit("/", 1)[-1] + ")"
        for line in open(os.path.join(root, ".git", "packed-refs")):
            if line.rstrip().endswith(" " + ref):
                return line.split()[0] + " (" + ref.rsplit("/", 1)[-1] + ")"
    except OSError:
        pass
    return None
os_name = None
try:
    for line in open("/etc/os-release"):
        if line.startswith("PRETTY_NAME="):
            os_name = line.split("=", 1)[1].strip().strip('"')
except OSError:
    pass
try:
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
except OSError:
    version = None
mem = first("/proc/meminfo", "MemTotal")
json.dump({
    "command": command,
    "mode": mode,
    "corpora": corpora,
    "date_utc": subprocess.run(["date", "-u", "+%Y-%m-%d %H:%M:%S"], capture_output=True, text=True).stdout.strip(),
    "cpu": first("/proc/cpuinfo", "model name"),
    "cores": os.cpu_count(),
    "memory_kib": int(mem.split()[0]) if mem else None,
    "kernel": platform.release(),
    "os": os_name,
    "load_start": open("/proc/loadavg").read().split()[:3],
    "reductio": version,
    "source_head": head(),
    "peer_timeout_s": float(peer_timeout),
    "peer_jobs": int(peer_jobs),
    "runs": int(runs),
}, open(out, "w"), indent=1)
EOF

# ---- measurements --------------------------------------------------------------------------

cores="$(nproc)"
for c in "${corpora[@]}"; do
    dir="$results/$c"
    mkdir -p "$dir"
    paths=()
    for d in $(dirs_of "$c"); do paths+=("$data/$d"); done
    for p in "${paths[@]}"; do
        [ -d "$p" ] || { echo "$c: $p is missing (fetch failed?)" | tee -a "$errors" >&2; continue 2; }
    done
    cp "$data/$(package_of "$c")/.fetched" "$dir/package.txt" 2>/dev/null || package_of "$c" >"$dir/package.txt"
    printf '%s\n' "${paths[@]}" >"$dir/paths.txt"
    cflags_of "$c" >"$dir/cflags.txt"

    threads=(1)
    [ "$cores" -gt 1 ] && threads+=("$cores")
    for n in "${threads[@]}"; do
        step "$c: parse and parse+lower, $n thread(s), $runs runs" \
            capture "$dir/front-$n.json" "$dir/front-$n.log" "$ex/bench_front" "${paths[@]}" --jobs "$n" --runs "$runs"
    done
    for n in "${threads[@]}"; do
        step "$c: full check, $n thread(s), once" \
            capture "$dir/check-$n.json" "$dir/check-$n.log" "$ex/bench_check" "${paths[@]}" --jobs "$n"
    done

    # The peers analyse the .c files reductio analysed (headers come in through #include).
    if ! python3 -c 'import json, sys
for f in json.load(open(sys.argv[1]))["per_file"]:
    if f["path"].endswith(".c"):
        print(f["path"])' "$dir/check-1.json" >"$dir/c-files.txt" 2>/dev/null || [ ! -s "$dir/c-files.txt" ]; then
        find "${paths[@]}" -name '*.c' -type f | LC_ALL=C sort >"$dir/c-files.txt"
    fi
    for p in "${peers[@]}"; do
        step "$c: $p on $(wc -l <"$dir/c-files.txt") files, $peer_jobs at a time, timeout ${peer_timeout} s" \
            python3 "$root/bench/peers.py" --tool "$p" --out "$dir/peer-$p.json" --logs "$dir/peer-$p-logs" \
            --jobs "$peer_jobs" --timeout "$peer_timeout" --cflags "$(cflags_of "$c")" \
            --files-from "$dir/c-files.txt"
    done

    if [ "$do_lsp" = 1 ]; then
        # The largest .c file is the one edited and proved in.
        big="$(xargs -d '\n' wc -l <"$dir/c-files.txt" | grep -v ' total$' | sort -rn | head -n 1 | awk '{print $2}')"
        roots=()
        for p in "${paths[@]}"; do roots+=(--root "$p"); done
        step "$c: editor session (reductio serve) on $(basename "$big")" \
            capture "$dir/lsp.json" "$dir/lsp.log" "$ex/bench_lsp" --server "$bin" --file "$big" "${roots[@]}" \
            --edits "$edits" --default-debounce-edits "$default_edits"
        step "$c: where an edit's time goes (in process, 20 edits)" \
            capture "$dir/edit.json" "$dir/edit.log" "$ex/bench_edit" "${paths[@]}" --file "$big" --edits 20
    fi
done

rm -rf "$snapshot"
read -r load_end _ </proc/loadavg
echo "$load_end" >"$results/load-end.txt"
log "writing $out"
# The "Real code" section belongs to bench/realcode/run.sh: kept as it is.
python3 "$root/bench/realcode/report.py" extract "$out" >"$results/realcode-section.md" 2>/dev/null || true
python3 "$root/bench/report.py" "$results" >"$out"
python3 "$root/bench/realcode/report.py" splice "$out" "$results/realcode-section.md" || true
if [ -s "$errors" ]; then
    log "some measurements failed:"
    cat "$errors" >&2
fi
log "done: $out (raw figures in $results)"

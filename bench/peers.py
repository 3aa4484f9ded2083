#!/usr/bin/env python3
"""Run one peer analyser over a corpus's .c files, in parallel, and write what happened as JSON.

    python3 bench/peers.py --tool cppcheck|gcc|clang --out FILE.json --logs DIR
        [--jobs N] [--timeout SECONDS] [--cflags "-I dir -D NAME"] FILE.c...
    (or --files-from LIST, one path a line)

Each file is one process (a translation unit, as a build runs them), started in its own
process group so that a timeout kills the compiler proper too. Per file: wall time, CPU time
(user + system of the process and its children), peak RSS
(from wait4: the largest of the process and its children), exit status, and the number of
warnings and of leak warnings in its output (kept under --logs). A file the tool could not
analyse is recorded with the reason: a missing header, another compile error, the analysis
aborted (cppcheck's syntaxError/unknownMacro/internalAstError), or the timeout.

The commands are the ones a C user would type (see bench/README.md):
    cppcheck --quiet --enable=warning CFLAGS FILE
    gcc -fanalyzer -c -o /dev/null CFLAGS FILE
    clang --analyze -o /dev/null CFLAGS FILE
Only the standard library is used.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time

CPPCHECK_TEMPLATE = "{file}:{line}:{column}: {severity}: {message} [{id}]"


def command(tool, cflags, path):
    if tool == "cppcheck":
        return [
            "cppcheck",
            "--quiet",
            "--enable=warning",
            "--template=" + CPPCHECK_TEMPLATE,
            *cflags,
            path,
        ]
    if tool == "gcc":
        return ["gcc", "-fanalyzer", "-c", "-o", "/dev/null", *cflags, path]
    if tool == "clang":
        return ["clang", "--analyze", "-o", "/dev/null", *cflags, path]
    raise SystemExit(f"peers.py: unknown tool {tool}")


def version(tool):
    try:
        out = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=30)
        return (out.stdout or out.stderr).splitlines()[0].strip()
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return None


MISSING_HEADER = re.compile(r"fatal error: (\S+?): No such file or directory|fatal error: '([^']+)' file not found")
CPPCHECK_ABORT = re.compile(r"\[(syntaxError|unknownMacro|internalAstError|cppcheckError|internalError)\]")


def count_warnings(tool, text):
    """(warnings, leak warnings) in a tool's output."""
    if tool == "cppcheck":
        ids = re.findall(r"\[([A-Za-z0-9_]+)\]$", text, re.M)
        findings = [i for i in ids if i not in ("checkersReport", "missingInclude", "missingIncludeSystem")]
        leaks = [i for i in findings if "leak" in i.lower()]
        return len(findings), len(leaks)
    if tool == "gcc":
        lines = re.findall(r"warning: .*\[(-W[^\]]+)\]$", text, re.M)
        leaks = [w for w in lines if w.startswith("-Wanalyzer") and "leak" in w]
        return len(lines), len(leaks)
    # clang --analyze: "warning: Potential leak of memory pointed to by 'p' [unix.Malloc]"
    lines = re.findall(r"warning: (.*)$", text, re.M)
    leaks = [w for w in lines if re.search(r"Potential (memory )?leak", w)]
    return len(lines), len(leaks)


def line_count(path):
    with open(path, "rb") as f:
        data = f.read()
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def run_one(tool, cflags, path, timeout, logs):
    log_path = os.path.join(logs, re.sub(r"[^A-Za-z0-9_.-]", "_", path.lstrip("/")) + ".log")
    cmd = command(tool, cflags, path)
    with open(log_path, "wb") as log:
        log.write(("$ " + shlex.join(cmd) + "\n").encode())
        log.flush()
        start = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        timed_out = threading.Event()

        def kill():
            timed_out.set()
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout, kill)
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - start
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        # The compiler proper may outlive a killed driver for a moment; take the group down.
        if timed_out.is_set():
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    with open(log_path, "r", errors="replace") as f:
        text = f.read()
    warnings, leaks = count_warnings(tool, text)
    status_name, reason = "ok", None
    if timed_out.is_set():
        status_name, reason = "timeout", f"timeout ({timeout:g} s)"
    elif proc.returncode != 0:
        m = MISSING_HEADER.search(text)
        status_name = "failed"
        if m:
            reason = "missing header " + (m.group(1) or m.group(2))
        elif proc.returncode < 0 or proc.returncode > 128:
            reason = f"killed by signal (exit {proc.returncode})"
        else:
            reason = f"compile error (exit {proc.returncode})"
    elif tool == "cppcheck":
        m = CPPCHECK_ABORT.search(text)
        if m:
            status_name, reason = "aborted", f"analysis aborted ({m.group(1)})"
    return {
        "file": path,
        "lines": line_count(path),
        "status": status_name,
        "reason": reason,
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "maxrss_kib": usage.ru_maxrss,
        "exit": proc.returncode,
        "warnings": warnings,
        "leak_warnings": leaks,
        "log": log_path,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tool", required=True, choices=["cppcheck", "gcc", "clang"])
    ap.add_argument("--out", required=True)
    ap.add_argument("--logs", required=True)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--cflags", default="")
    ap.add_argument("--files-from")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    files = list(args.files)
    if args.files_from:
        with open(args.files_from) as f:
            files += [line.strip() for line in f if line.strip()]
    if not files:
        raise SystemExit("peers.py: no files")
    os.makedirs(args.logs, exist_ok=True)
    cflags = shlex.split(args.cflags)
    # Largest first: with N workers, the long files start early and the run ends sooner.
    files.sort(key=lambda p: (-os.path.getsize(p), p))
    start = time.monotonic()
    done = 0
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_one, args.tool, cflags, p, args.timeout, args.logs) for p in files]
        for fut in concurrent.futures.as_completed(futures):
            r = fut.result()
            results.append(r)
            done += 1
            print(
                f"peers.py: {args.tool} {done}/{len(files)} {r['status']:<7} {r['wall_s']:8.2f} s  {r['file']}",
                file=sys.stderr,
                flush=True,
            )
    wall = time.monotonic() - start
    results.sort(key=lambda r: r["file"])
    out = {
        "tool": args.tool,
        "version": version(args.tool),
        "command": shlex.join(command(args.tool, cflags, "FILE.c")),
        "jobs": args.jobs,
        "timeout_s": args.timeout,
        "wall_s": wall,
        "files": results,
    }
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()

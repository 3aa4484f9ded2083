"""Shared helpers of the real-code harness (bench/realcode/, issue 16). Standard library only.

Reading the TSVs of bench/realcode/, running `reductio check` on a tree with its wall time and
peak RSS, normalising the paths of its JSON findings, and the small formatting helpers of the
report.
"""

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(os.environ.get("BENCH_DATA", os.path.join(ROOT, "bench-data")), "realcode")

# `reason` of an unproved finding (server/src/probe/mod.rs, Unproved::reason_code, and
# db.rs for internal errors). A probe is RESOLVED when proved, a leak, or unproved for a reason
# that is an answer about the program rather than a limit of the analyser.
RESOLVED_REASONS = {"input-dependent", "escaped"}
UNRESOLVED_REASONS = {"budget", "unsupported", "imprecise", "internal-error"}
REASON_ORDER = ["input-dependent", "escaped", "budget", "unsupported", "imprecise", "internal-error"]

PATTERNS = ["error-path", "overwrite", "loop", "realloc", "field-not-freed",
            "container-insert-failure", "wrapper-return", "out-parameter", "early-return",
            "missing-free-at-end", "other"]


def read_tsv(path, required=None):
    """Rows of a tab-separated file with a header line; '#' lines and blank lines skipped.
    Returns a list of dicts (missing trailing cells are empty strings)."""
    rows = []
    header = None
    if not os.path.exists(path):
        return rows
    with open(path, encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n").rstrip("\r")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            cells = line.split("\t")
            if header is None:
                header = [c.strip() for c in cells]
                if required:
                    missing = [c for c in required if c not in header]
                    if missing:
                        raise SystemExit(f"{path}: header lacks {', '.join(missing)}")
                continue
            cells += [""] * (len(header) - len(cells))
            row = {h: c.strip() for h, c in zip(header, cells)}
            row["_line"] = n
            rows.append(row)
    return rows


def projects(path=None):
    return read_tsv(path or os.path.join(HERE, "projects.tsv"),
                    ["name", "source", "commit", "kind", "lines", "description"])


def src_tree(name):
    return os.path.join(DATA, "src", name)


def tree_ready(path):
    return os.path.isfile(os.path.join(path, ".fetched"))


def fix_tree(project, kind, fix_commit):
    """The tree a leakfixes row is scored on (None if fetch.sh has not materialised it)."""
    pdir = os.path.join(DATA, "fixes", project)
    if kind == "leak":
        try:
            with open(os.path.join(pdir, fix_commit + ".parent")) as f:
                commit = f.read().strip()
        except OSError:
            return None, None
    else:
        commit = fix_commit
    t = os.path.join(pdir, commit)
    return (t if tree_ready(t) else None), commit


def count_lines(tree):
    """(.c files, .h files, newline count of all .c and .h files) under tree."""
    nc = nh = lines = 0
    for dp, dn, fn in os.walk(tree):
        dn.sort()
        for name in fn:
            if not name.endswith((".c", ".h")):
                continue
            p = os.path.join(dp, name)
            if not os.path.isfile(p):
                continue
            if name.endswith(".c"):
                nc += 1
            else:
                nh += 1
            with open(p, "rb") as f:
                lines += f.read().count(b"\n")
    return nc, nh, lines


def binary_id(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]


GNU_TIME = "/usr/bin/time"


def _gnu_time():
    try:
        r = subprocess.run([GNU_TIME, "-f", "%M", "true"], capture_output=True, text=True)
        return r.returncode == 0 and r.stderr.strip().isdigit()
    except OSError:
        return False


HAVE_GNU_TIME = _gnu_time()


def _vmhwm(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def run_check(binary, cwd, paths, out_json, log, jobs=1, budget=None, all_=True, timeout=None):
    """Runs `reductio check PATHS --format json [--all] --jobs N [--budget N]` in cwd, stdout to
    out_json, stderr to log. Returns {rc, wall_s, user_s, sys_s, maxrss_kib, timeout}.
    Exit 1 means leaks were found (not an error); 2 is an error.

    Peak RSS: the rusage of a child forked from this Python process would count this process's
    own memory (a fork's RSS before exec), so reductio runs under GNU time (`%M`, its peak
    RSS) when /usr/bin/time is there; otherwise VmHWM of /proc/PID/status is polled (the last
    growth before exit may be missed)."""
    cmd = [binary, "check", *paths, "--format", "json", "--jobs", str(jobs)]
    if all_:
        cmd.append("--all")
    if budget:
        cmd += ["--budget", str(budget)]
    os.makedirs(os.path.dirname(out_json), exist_ok=True)
    tfile = out_json + ".time"
    run = ([GNU_TIME, "-f", "%M %U %S", "-o", tfile] if HAVE_GNU_TIME else []) + cmd
    t0 = time.monotonic()
    timed_out = False
    hwm = None
    with open(out_json + ".part", "wb") as out, open(log, "wb") as err:
        p = subprocess.Popen(run, cwd=cwd, stdout=out, stderr=err, start_new_session=True)
        deadline = None if not timeout else t0 + timeout
        while True:
            if not HAVE_GNU_TIME:
                h = _vmhwm(p.pid)
                if h is not None:
                    hwm = max(hwm or 0, h)
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if deadline and time.monotonic() > deadline:
                timed_out = True
                os.killpg(p.pid, signal.SIGKILL)
                pid, status, ru = os.wait4(p.pid, 0)
                break
            time.sleep(0.05)
        p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - t0
    os.replace(out_json + ".part", out_json)
    user, sys_, rss = ru.ru_utime, ru.ru_stime, hwm
    if HAVE_GNU_TIME:
        try:
            with open(tfile) as f:
                last = [l for l in f.read().splitlines() if l.strip()][-1].split()
            rss, user, sys_ = int(last[0]), float(last[1]), float(last[2])
        except (OSError, IndexError, ValueError):
            rss = None
        try:
            os.remove(tfile)
        except OSError:
            pass
    return {"cmd": " ".join(cmd), "cwd": cwd, "rc": p.returncode, "wall_s": round(wall, 3),
            "user_s": round(user, 3), "sys_s": round(sys_, 3),
            "maxrss_kib": rss, "rss_by": "GNU time %M" if HAVE_GNU_TIME else "VmHWM polled", "timeout": timed_out}


def load_report(path):
    """reductio's JSON report with every finding's paths normalised (no leading './')."""
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError):
        return None
    for fd in d.get("findings", []):
        fd["file"] = norm(fd.get("file", ""))
        fd["message"] = re.sub(r"(?<![\w./])\./", "", fd.get("message", ""))
        for a in fd.get("allocation", []):
            a["file"] = norm(a.get("file", ""))
        for t in fd.get("trace", []):
            t["file"] = norm(t.get("file", ""))
    return d


def norm(p):
    p = p.replace("\\", "/")
    while p.startswith("./"):
        p = p[2:]
    return p


def norm_var(v):
    return "".join((v or "").split())


def fmt_int(x):
    return "—" if x is None else f"{x:,}"


def pct(a, b, digits=1):
    if not b:
        return "—"
    return f"{100.0 * a / b:.{digits}f}%"


def secs(s):
    if s is None:
        return "—"
    if s < 1:
        return f"{s * 1000:,.0f} ms"
    if s < 10:
        return f"{s:.2f} s"
    if s < 600:
        return f"{s:.1f} s"
    return f"{s / 60:.1f} min"


def mib(kib):
    return "—" if kib is None else f"{kib / 1024:,.0f} MiB"


def log(msg):
    print(msg, file=sys.stderr, flush=True)

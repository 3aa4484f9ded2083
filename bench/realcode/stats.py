#!/usr/bin/env python3
"""Per-project figures of reductio on the real-code corpus at its pins (issue 16).

    python3 bench/realcode/stats.py --reductio BIN --results DIR [--projects a,b] [--jobs N]
        [--budget N] [--timeout S]

For each project of projects.tsv whose tree fetch.sh put in bench-data/realcode/src/NAME:
`reductio check . --all --format json --jobs N` in that tree, one project at a time, with its
wall time, CPU time and peak RSS (wait4 of the process). Writes the raw output to
DIR/stats/NAME.json (stderr to NAME.log) and the figures to DIR/stats/summary.json: files,
lines (.c and .h, newlines), functions, probes, verdicts (proved, leak, unproved by reason),
the RESOLVED fraction (proved + leak + unproved input-dependent [+ escaped], i.e. not budget,
unsupported, imprecise or internal error), lines/s, wall time and peak RSS.
"""

import argparse
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402


def figures(rep, meta, tree):
    nc, nh, lines = C.count_lines(tree)
    s = rep.get("summary", {})
    reasons = collections.Counter()
    leaks = 0
    for f in rep.get("findings", []):
        if f.get("verdict") == "unproved":
            reasons[f.get("reason") or "?"] += 1
        elif f.get("verdict") == "leak":
            leaks += 1
    probes = s.get("probes", 0)
    proved = s.get("proved", 0)
    resolved = proved + leaks + sum(n for r, n in reasons.items() if r in C.RESOLVED_REASONS)
    return {
        "c_files": nc, "h_files": nh, "lines": lines,
        "files": s.get("files"), "functions": s.get("functions"), "probes": probes,
        "proved": proved, "leaks": leaks, "unproved": s.get("unproved"),
        "reasons": dict(sorted(reasons.items(), key=lambda kv: C.REASON_ORDER.index(kv[0]) if kv[0] in C.REASON_ORDER else 99)),
        "resolved": resolved, "resolved_frac": (resolved / probes) if probes else None,
        "elapsed_ms": s.get("elapsed_ms"),
        "wall_s": meta["wall_s"], "user_s": meta["user_s"], "sys_s": meta["sys_s"],
        "maxrss_kib": meta["maxrss_kib"], "rc": meta["rc"],
        "lines_per_s": (lines / meta["wall_s"]) if meta["wall_s"] else None,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reductio", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--projects", default="")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--budget", type=int, default=None)
    ap.add_argument("--timeout", type=float, default=None)
    args = ap.parse_args()

    only = [p for p in args.projects.split(",") if p]
    projs = C.projects()
    if only:
        known = {p["name"] for p in projs}
        for p in only:
            if p not in known:
                raise SystemExit(f"stats: unknown project {p}")
        projs = [p for p in projs if p["name"] in only]
    outdir = os.path.join(args.results, "stats")
    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, "summary.json")
    # Keeps the figures of projects measured earlier in the same results directory.
    summary = {"jobs": args.jobs, "budget": args.budget, "projects": {}, "errors": []}
    if os.path.exists(path):
        with open(path) as f:
            old = json.load(f)
        summary["projects"] = old.get("projects", {})
    for p in projs:
        name = p["name"]
        tree = C.src_tree(name)
        if not C.tree_ready(tree):
            summary["errors"].append(f"{name}: not fetched (bench-data/realcode/src/{name} missing)")
            C.log(f"stats: {name}: not fetched, skipped")
            continue
        C.log(f"stats: {name} ({p['lines']} lines) ...")
        out = os.path.join(outdir, f"{name}.json")
        meta = C.run_check(args.reductio, tree, ["."], out, os.path.join(outdir, f"{name}.log"),
                           jobs=args.jobs, budget=args.budget, all_=True, timeout=args.timeout)
        rep = C.load_report(out)
        if meta["timeout"] or meta["rc"] not in (0, 1) or rep is None:
            msg = f"{name}: reductio failed (exit {meta['rc']}{', timeout' if meta['timeout'] else ''}); see {out[:-5]}.log"
            summary["errors"].append(msg)
            summary["projects"].pop(name, None)
            C.log("stats: " + msg)
            continue
        fig = figures(rep, meta, tree)
        fig["commit"] = p["commit"]
        fig["kind"] = p["kind"]
        summary["projects"][name] = fig
        C.log(f"stats: {name}: {fig['probes']:,} probes, resolved {C.pct(fig['resolved'], fig['probes'])}, "
              f"{fig['leaks']} leaks, {C.secs(fig['wall_s'])}, {C.mib(fig['maxrss_kib'])}")
        with open(path, "w") as f:
            json.dump(summary, f, indent=1)
    with open(path, "w") as f:
        json.dump(summary, f, indent=1)

    order = [p["name"] for p in C.projects()]
    rows = [(n, summary["projects"][n]) for n in order if n in summary["projects"]]
    print(f"{'project':15s} {'lines':>9s} {'probes':>8s} {'resolved':>9s} {'leaks':>6s} {'wall':>9s} {'RSS':>9s}")
    for n, f in rows:
        print(f"{n:15s} {f['lines']:9,d} {f['probes']:8,d} {C.pct(f['resolved'], f['probes']):>9s} {f['leaks']:6d} "
              f"{C.secs(f['wall_s']):>9s} {C.mib(f['maxrss_kib']):>9s}")
    for e in summary["errors"]:
        print("  note: " + e)


if __name__ == "__main__":
    main()

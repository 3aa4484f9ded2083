#!/usr/bin/env python3
"""Leak-fix recall of reductio on bench/realcode/leakfixes.tsv, in two modes (issue 16).

    python3 bench/realcode/recall.py --reductio BIN --results DIR [--projects a,b] [--jobs N]
        [--budget N] [--modes project,file] [--leakfixes TSV] [--timeout S] [--no-cache]

Each row is scored on the tree fetch.sh materialised (bench-data/realcode/fixes/PROJECT/COMMIT:
the parent of the fix for a `leak` row, the fix for a `control` row):

- mode `project`: `reductio check . --format json --all --jobs N` in the whole tree (as an
  editor workspace sees it); one run per (project, commit), shared by the rows on that tree;
- mode `file`: `reductio check FILE --format json --all --jobs N` with the row's file alone.

A `leak` row is FOUND when a finding with verdict `leak` is in the row's file and function and
names the row's variable, or is at its lost_line, or has one of its allocation lines (in that
file) at its alloc_line. A `control` row is FLAGGED when a `leak` finding in its file and
function names its variable. Writes DIR/recall/rows.tsv (one line per row and mode),
DIR/recall/summary.json, and the raw reductio outputs under DIR/recall/runs/; prints recall
overall and per pattern class, and the controls flagged.

Runs are cached under bench-data/realcode/cache/ keyed by the binary's hash, the budget, the
tree's commit and the mode (the verdicts do not depend on --jobs); --no-cache runs again.
"""

import argparse
import collections
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402

FIELDS = ["id", "project", "kind", "fix_commit", "file", "function", "variable", "alloc_line",
          "lost_line", "pattern", "note"]


def row_matches(row, f):
    """Why a leak finding matches a leak row ('' if it does not)."""
    if f.get("verdict") != "leak" or f.get("file") != C.norm(row["file"]) or f.get("function") != row["function"]:
        return ""
    why = []
    if C.norm_var(f.get("variable")) == C.norm_var(row["variable"]):
        why.append("variable")
    if row["lost_line"].isdigit() and f.get("line") == int(row["lost_line"]):
        why.append("lost_line")
    if row["alloc_line"].isdigit() and any(
            a.get("line") == int(row["alloc_line"]) and a.get("file") == f["file"] for a in f.get("allocation", [])):
        why.append("alloc_line")
    return "+".join(why)


def near(row, findings):
    """What reductio said about the row's variable in its function, when not a match."""
    seen = collections.Counter()
    for f in findings:
        if f.get("file") != C.norm(row["file"]) or f.get("function") != row["function"]:
            continue
        same_var = C.norm_var(f.get("variable")) == C.norm_var(row["variable"])
        at_line = row["lost_line"].isdigit() and f.get("line") == int(row["lost_line"])
        if not (same_var or at_line):
            continue
        v = f.get("verdict")
        label = f"{v}:{f.get('reason')}" if v == "unproved" else v
        seen[f"{label}@{f.get('line')}"] += 1
    return ",".join(sorted(seen)) if seen else ""


def link_or_copy(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if os.path.exists(dst):
        os.remove(dst)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def cached_run(args, binid, project, commit, tree, mode, target, runs_dir):
    """Runs (or reuses) reductio on tree (mode project) or tree/target (mode file)."""
    safe = target.replace("/", "__") if mode == "file" else "project"
    key = os.path.join(C.DATA, "cache", f"{binid}-b{args.budget or 'default'}", project, commit, safe)
    out, meta_path = key + ".json", key + ".meta.json"
    meta = None
    if not args.no_cache and os.path.exists(out) and os.path.exists(meta_path):
        with open(meta_path) as f:
            meta = json.load(f)
        meta["cached"] = True
    elif args.cached_only:
        return None, {"rc": "not-run", "wall_s": None}, ""
    else:
        os.makedirs(os.path.dirname(key), exist_ok=True)
        paths = ["."] if mode == "project" else [target]
        what = f"{project}@{commit[:12]}" + ("" if mode == "project" else f" {target}")
        C.log(f"  {mode}: {what}")
        meta = C.run_check(args.reductio, tree, paths, out, key + ".log", jobs=args.jobs,
                           budget=args.budget, all_=True, timeout=args.timeout)
        if meta["rc"] in (0, 1) and not meta["timeout"]:
            with open(meta_path, "w") as f:
                json.dump(meta, f)
        meta["cached"] = False
    dst = os.path.join(runs_dir, project, commit[:12], f"{mode}-{safe}.json")
    link_or_copy(out, dst)
    return C.load_report(out), meta, dst


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reductio", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--leakfixes", default=os.path.join(C.HERE, "leakfixes.tsv"))
    ap.add_argument("--projects", default="")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--budget", type=int, default=None)
    ap.add_argument("--modes", default="project,file")
    ap.add_argument("--timeout", type=float, default=None, help="seconds per reductio run")
    ap.add_argument("--no-cache", action="store_true")
    ap.add_argument("--cached-only", action="store_true",
                    help="score only the rows whose runs are in the cache; the others are NOT-RUN (not scored)")
    args = ap.parse_args()

    only = set(filter(None, args.projects.split(",")))
    modes = [m for m in args.modes.split(",") if m]
    rows = [r for r in C.read_tsv(args.leakfixes, FIELDS) if not only or r["project"] in only]
    outdir = os.path.join(args.results, "recall")
    runs_dir = os.path.join(outdir, "runs")
    os.makedirs(runs_dir, exist_ok=True)
    binid = C.binary_id(args.reductio)

    ids = collections.Counter(r["id"] for r in rows)
    for i, n in ids.items():
        if n > 1:
            C.log(f"recall: warning: id {i} appears {n} times in {args.leakfixes}")

    # Group by tree so that one project-mode run serves all its rows.
    results = []
    errors = []
    by_tree = collections.defaultdict(list)
    for r in rows:
        if r["kind"] not in ("leak", "control"):
            errors.append(f"{r['id']}: unknown kind {r['kind']!r}")
            continue
        tree, commit = C.fix_tree(r["project"], r["kind"], r["fix_commit"])
        by_tree[(r["project"], commit, tree)].append(r)
    C.log(f"recall: {len(rows)} rows on {len(by_tree)} trees, modes {', '.join(modes)}")
    # Mode by mode, the cheap file mode first, and the smaller projects first: an interrupted run
    # leaves the most rows cached (see --cached-only).
    size = {p["name"]: int(p["lines"]) if p["lines"].isdigit() else 0 for p in C.projects()}
    order = sorted(by_tree.items(), key=lambda k: (size.get(k[0][0], 0), k[0][0], k[0][1] or ""))
    for mode in sorted(modes, key=lambda m: m != "file"):
        for (project, commit, tree), trs in order:
            if tree is None:
                for r in trs:
                    results.append(dict(r, mode=mode, status="NO-TREE", match="", near="", tree_commit=commit or "",
                                        wall_s="", raw=""))
                errors.append(f"{project}: no tree for {trs[0]['kind']} rows of {trs[0]['fix_commit'][:12]} (run fetch.sh)")
                continue
            targets = [None] if mode == "project" else sorted({C.norm(r["file"]) for r in trs})
            reports = {}
            for t in targets:
                if mode == "file" and not os.path.isfile(os.path.join(tree, t)):
                    reports[t] = (None, {"rc": "missing-file", "wall_s": None}, "")
                    continue
                reports[t] = cached_run(args, binid, project, commit, tree, mode, t, runs_dir)
            for r in trs:
                rep, meta, raw = reports[None if mode == "project" else C.norm(r["file"])]
                base = dict(r, mode=mode, tree_commit=commit, wall_s=meta.get("wall_s"),
                            raw=os.path.relpath(raw, args.results) if raw else "")
                if rep is None and meta.get("rc") == "not-run":
                    results.append(dict(base, status="NOT-RUN", match="not in the cache (--cached-only)", near=""))
                    continue
                if rep is None:
                    why = "file absent from tree" if meta.get("rc") == "missing-file" else f"reductio failed (exit {meta.get('rc')}, timeout {meta.get('timeout')})"
                    errors.append(f"{r['id']} ({mode}): {why}")
                    results.append(dict(base, status="ERROR", match=why, near=""))
                    continue
                fs = rep.get("findings", [])
                if r["kind"] == "leak":
                    m = [(row_matches(r, f), f) for f in fs]
                    m = [(w, f) for w, f in m if w]
                    if m:
                        w, f = max(m, key=lambda x: len(x[0].split("+")))
                        results.append(dict(base, status="FOUND", match=f"{w} @{f['line']} {f.get('probe')} {f.get('variable')}",
                                            near=""))
                    else:
                        results.append(dict(base, status="MISSED", match="", near=near(r, fs)))
                else:
                    flagged = [f for f in fs if f.get("verdict") == "leak" and f.get("file") == C.norm(r["file"])
                               and f.get("function") == r["function"]
                               and C.norm_var(f.get("variable")) == C.norm_var(r["variable"])]
                    if flagged:
                        at = [f for f in flagged if "lost_line" in row_matches(r, f)]
                        f = (at or flagged)[0]
                        where = "at the row's lost_line" if at else "elsewhere in the function"
                        results.append(dict(base, status="FLAGGED", match=f"@{f['line']} {f.get('probe')} ({where})", near=""))
                    else:
                        results.append(dict(base, status="QUIET", match="", near=near(r, fs)))

    cols = ["id", "project", "kind", "pattern", "mode", "status", "match", "near", "file", "function",
            "variable", "alloc_line", "lost_line", "fix_commit", "tree_commit", "wall_s", "raw"]
    with open(os.path.join(outdir, "rows.tsv"), "w") as f:
        f.write("\t".join(cols) + "\n")
        for r in sorted(results, key=lambda r: (r["mode"], r["project"], r["id"])):
            f.write("\t".join(str(r.get(c, "")).replace("\t", " ") for c in cols) + "\n")

    summary = {"leakfixes": os.path.abspath(args.leakfixes), "rows": len(rows), "modes": {}, "errors": errors,
               "projects": sorted({r["project"] for r in rows}),
               "kinds": dict(collections.Counter(r["kind"] for r in rows)),
               "patterns_total": dict(collections.Counter(r["pattern"] for r in rows if r["kind"] == "leak"))}
    for mode in modes:
        rs = [r for r in results if r["mode"] == mode]
        leak = [r for r in rs if r["kind"] == "leak" and r["status"] in ("FOUND", "MISSED")]
        ctl = [r for r in rs if r["kind"] == "control" and r["status"] in ("FLAGGED", "QUIET")]
        per = {}
        for p in sorted({r["pattern"] for r in leak}, key=lambda p: (C.PATTERNS.index(p) if p in C.PATTERNS else 99, p)):
            pr = [r for r in leak if r["pattern"] == p]
            per[p] = {"rows": len(pr), "found": sum(r["status"] == "FOUND" for r in pr)}
        perproj = {}
        for p in sorted({r["project"] for r in leak}):
            pr = [r for r in leak if r["project"] == p]
            perproj[p] = {"rows": len(pr), "found": sum(r["status"] == "FOUND" for r in pr)}
        near_missed = collections.Counter()
        for r in leak:
            if r["status"] == "MISSED":
                kinds = {n.split("@")[0] for n in r["near"].split(",") if n}
                near_missed[",".join(sorted(kinds)) or "no probe on the variable or line"] += 1
        summary["modes"][mode] = {
            "leak_rows": len(leak), "found": sum(r["status"] == "FOUND" for r in leak),
            "controls": len(ctl), "flagged": sum(r["status"] == "FLAGGED" for r in ctl),
            "not_scored": sum(r["status"] in ("NO-TREE", "ERROR", "NOT-RUN") for r in rs),
            "not_run": sum(r["status"] == "NOT-RUN" for r in rs),
            "per_pattern": per, "per_project": perproj, "missed_near": dict(near_missed.most_common()),
            "found_ids": sorted(r["id"] for r in leak if r["status"] == "FOUND"),
            "flagged_ids": sorted(r["id"] for r in ctl if r["status"] == "FLAGGED"),
            "flagged_elsewhere_ids": sorted(r["id"] for r in ctl if r["status"] == "FLAGGED" and "elsewhere" in r["match"]),
        }
    with open(os.path.join(outdir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)

    print(f"Leak-fix recall ({len(rows)} rows of {args.leakfixes})")
    for mode in modes:
        s = summary["modes"][mode]
        print(f"  mode {mode:8s}: found {s['found']}/{s['leak_rows']} ({C.pct(s['found'], s['leak_rows'])}); "
              f"controls flagged {s['flagged']}/{s['controls']}; not scored {s['not_scored']}")
        for p, v in s["per_pattern"].items():
            print(f"      {p:26s} {v['found']}/{v['rows']}")
    for e in errors:
        print(f"  note: {e}")
    print(f"  rows: {os.path.join(outdir, 'rows.tsv')}")


if __name__ == "__main__":
    main()

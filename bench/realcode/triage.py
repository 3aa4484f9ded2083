#!/usr/bin/env python3
"""Precision of reductio's leak reports on the real-code corpus, from the hand triage (issue 16).

    python3 bench/realcode/triage.py --results DIR [--reductio BIN] [--projects a,b]
        [--triage TSV] [--jobs N] [--budget N]

Takes each project's leak reports from DIR/stats/NAME.json (the output of stats.py in the same
run), or, when that is missing and --reductio is given, runs `reductio check . --all --format
json` in bench-data/realcode/src/NAME itself. Matches every leak report to the judged rows of
bench/realcode/triage.tsv by (project, file, function, variable, probe) — not by line, so a
judgement carries across versions and edits that move code — and prints:

- precision over the judged reports still emitted: TRUE / (TRUE + FALSE), overall and per project;
- the FALSE causes with their counts;
- judged rows no longer emitted (fixed, or the code changed);
- the NEW reports no row matches, to judge next (file:line, function, variable, probe, message).

Writes DIR/triage/summary.json and DIR/triage/new.tsv: the new reports as triage.tsv rows
with judgement, cause and note left to fill (each preceded by a '#' line with the message), so
they can be judged and appended to bench/realcode/triage.tsv.
"""

import argparse
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402

FIELDS = ["project", "file", "function", "variable", "probe", "line", "judgement", "cause", "note"]


def key_of(project, file, function, variable, probe):
    return (project, C.norm(file), function, C.norm_var(variable), probe)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", required=True)
    ap.add_argument("--reductio", default=None)
    ap.add_argument("--triage", default=os.path.join(C.HERE, "triage.tsv"))
    ap.add_argument("--projects", default="")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--budget", type=int, default=None)
    args = ap.parse_args()

    only = set(p for p in args.projects.split(",") if p)
    projs = [p["name"] for p in C.projects()]
    rows = C.read_tsv(args.triage, FIELDS)
    known = set(projs)
    notes = []
    for r in rows:
        if r["project"] not in known:
            notes.append(f"triage row (line {r['_line']}) of unknown project {r['project']}")
    outdir = os.path.join(args.results, "triage")
    os.makedirs(outdir, exist_ok=True)

    # Judged rows by key; conflicting judgements of the same key are reported, the first wins.
    # A function with two returns that lose the same variable has two reports under one key:
    # rows naming different source lines judge them apart (`by_line`); the report at the
    # lowest emitted line with a row of its own decides the key.
    judged = {}
    by_line = {}
    for r in rows:
        r["judgement"] = r["judgement"].upper()
        if r["judgement"] not in ("TRUE", "FALSE"):
            notes.append(f"triage row (line {r['_line']}): judgement {r['judgement']!r} is neither TRUE nor FALSE; ignored")
            continue
        k = key_of(r["project"], r["file"], r["function"], r["variable"], r["probe"])
        by_line.setdefault((k, str(r["line"]).strip()), r)
        if k in judged and judged[k]["judgement"] != r["judgement"]:
            if str(judged[k]["line"]).strip() == str(r["line"]).strip():
                notes.append(f"triage rows at lines {judged[k]['_line']} and {r['_line']} judge the same report differently; the first counts")
            continue
        judged.setdefault(k, r)

    # Leak reports per project.
    reports = {}
    analysed = []
    for name in projs:
        if only and name not in only:
            continue
        path = os.path.join(args.results, "stats", f"{name}.json")
        rep = C.load_report(path) if os.path.exists(path) else None
        if rep is None and args.reductio and C.tree_ready(C.src_tree(name)):
            C.log(f"triage: running reductio on {name}")
            meta = C.run_check(args.reductio, C.src_tree(name), ["."], path, path[:-5] + ".log",
                               jobs=args.jobs, budget=args.budget, all_=True)
            rep = C.load_report(path) if meta["rc"] in (0, 1) else None
        if rep is None:
            notes.append(f"{name}: no report (not fetched, not run, or reductio failed)")
            continue
        analysed.append(name)
        reports[name] = [f for f in rep.get("findings", []) if f.get("verdict") == "leak"]

    emitted = collections.defaultdict(list)
    for name, fs in reports.items():
        for f in fs:
            emitted[key_of(name, f["file"], f.get("function"), f.get("variable"), f.get("probe"))].append(f)

    for k, fs in emitted.items():
        if k not in judged:
            continue
        for f in sorted(fs, key=lambda f: f["line"]):
            r = by_line.get((k, str(f["line"])))
            if r is not None:
                judged[k] = r
                break
    hit_rows = [r for k, r in judged.items() if k in emitted]
    gone_rows = [r for k, r in judged.items() if k not in emitted and k[0] in reports]
    new = sorted((k for k in emitted if k not in judged), key=lambda k: (k[0], k[1], emitted[k][0]["line"]))
    true_n = sum(r["judgement"] == "TRUE" for r in hit_rows)
    false_n = sum(r["judgement"] == "FALSE" for r in hit_rows)
    causes = collections.Counter(r["cause"] or "?" for r in hit_rows if r["judgement"] == "FALSE")
    causes_all = collections.Counter(r["cause"] or "?" for r in judged.values() if r["judgement"] == "FALSE")
    per_project = {}
    for name in analysed:
        hr = [r for r in hit_rows if r["project"] == name]
        per_project[name] = {
            "reports": len(reports[name]),
            "judged_emitted": len(hr),
            "true": sum(r["judgement"] == "TRUE" for r in hr),
            "false": sum(r["judgement"] == "FALSE" for r in hr),
            "new": sum(1 for k in new if k[0] == name),
            "gone": sum(1 for r in gone_rows if r["project"] == name),
        }

    summary = {
        "triage": os.path.abspath(args.triage), "judged_rows": len(judged),
        "judged_projects": sorted({k[0] for k in judged}), "analysed": analysed,
        "reports": sum(len(v) for v in reports.values()),
        "judged_emitted": len(hit_rows), "true": true_n, "false": false_n,
        "precision": (true_n / (true_n + false_n)) if (true_n + false_n) else None,
        "false_causes": dict(causes.most_common()), "false_causes_all_judged": dict(causes_all.most_common()),
        "gone": [{c: r[c] for c in FIELDS} for r in gone_rows],
        "new": [{"project": k[0], "file": k[1], "function": k[2], "variable": emitted[k][0].get("variable"),
                 "probe": k[4], "line": emitted[k][0]["line"], "count": len(emitted[k]),
                 "message": emitted[k][0].get("message", "")} for k in new],
        "per_project": per_project, "notes": notes,
    }
    with open(os.path.join(outdir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    with open(os.path.join(outdir, "new.tsv"), "w") as f:
        f.write("# New leak reports, unjudged: fill judgement (TRUE/FALSE), cause (FALSE only, else -) and note,\n")
        f.write("# then append the rows to bench/realcode/triage.tsv. Generated by bench/realcode/triage.py.\n")
        f.write("\t".join(FIELDS) + "\n")
        for n in summary["new"]:
            f.write(f"# {n['file']}:{n['line']}: {n['message']}" + (f" ({n['count']} reports with this key)" if n["count"] > 1 else "") + "\n")
            f.write("\t".join([n["project"], n["file"], n["function"] or "", n["variable"] or "", n["probe"] or "",
                               str(n["line"]), "", "", ""]) + "\n")

    print(f"Triage ({len(judged)} judged rows of {args.triage}; {summary['reports']} leak reports in {len(analysed)} projects)")
    print(f"  precision over the judged reports still emitted: {true_n}/{true_n + false_n} "
          f"({C.pct(true_n, true_n + false_n)}); judged rows no longer emitted: {len(gone_rows)}; new unjudged reports: {len(new)}")
    if causes:
        print("  FALSE causes (judged reports still emitted):")
        for c, n in causes.most_common():
            print(f"      {c:26s} {n}")
    for name, pp in per_project.items():
        if pp["reports"] or pp["judged_emitted"] or pp["gone"]:
            print(f"  {name:15s} reports {pp['reports']:4d}  judged {pp['judged_emitted']:4d}  TRUE {pp['true']:3d}  "
                  f"FALSE {pp['false']:3d}  new {pp['new']:4d}  gone {pp['gone']:3d}")
    if gone_rows:
        print("  judged rows no longer emitted:")
        for r in gone_rows:
            print(f"      {r['project']} {r['file']}:{r['line']} {r['function']} {r['variable']} {r['probe']} ({r['judgement']})")
    if new:
        print("  new reports to judge next:")
        for n in summary["new"]:
            print(f"      {n['project']} {n['file']}:{n['line']} {n['function']} `{n['variable']}` {n['probe']}: {n['message']}")
    for n in notes:
        print("  note: " + n)
    print(f"  to fill: {os.path.join(outdir, 'new.tsv')}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Render one run of bench/run.sh (a directory under bench-data/results/) as Markdown.

    python3 bench/report.py bench-data/results/<UTC time> > BENCHMARKS.md

Reads machine.json, errors.txt and, per corpus, front-*.json, check-*.json, peer-*.json and
lsp.json (see bench/README.md for what each holds). Anything missing is shown as not measured.
Only the standard library is used.
"""

import json
import os
import sys

CORPUS_TITLES = {
    "sqlite": "SQLite (amalgamation)",
    "libxml2": "libxml2",
    "lmdb": "LMDB + lz4",
    "expat": "expat",
}
PEER_TITLES = {
    "cppcheck": "cppcheck",
    "gcc": "GCC `-fanalyzer`",
    "clang": "clang `--analyze`",
}


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def read(path, default=""):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def num(x, digits=0):
    if x is None:
        return "—"
    return f"{x:,.{digits}f}"


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


def millis(m, digits=1):
    return "—" if m is None else f"{m:,.{digits}f} ms"


def mib(kib):
    return "—" if kib is None else f"{kib / 1024:,.0f} MiB"


def ratio(x):
    if x is None:
        return "—"
    if x >= 10:
        return f"{x:,.0f}×"
    return f"{x:.2f}×"


class Corpus:
    def __init__(self, results, name, data_root):
        d = os.path.join(results, name)
        self.name = name
        self.dir = d
        self.data_root = data_root
        self.package = read(os.path.join(d, "package.txt"))
        self.paths = read(os.path.join(d, "paths.txt")).splitlines()
        self.cflags = read(os.path.join(d, "cflags.txt"))
        self.front = {}
        self.check = {}
        for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if f.startswith("front-") and f.endswith(".json"):
                j = load(os.path.join(d, f))
                if j:
                    self.front[j["jobs"]] = j
            if f.startswith("check-") and f.endswith(".json"):
                j = load(os.path.join(d, f))
                if j:
                    self.check[j["jobs"]] = j
        self.peers = {}
        for tool in ("cppcheck", "gcc", "clang"):
            j = load(os.path.join(d, f"peer-{tool}.json"))
            if j:
                self.peers[tool] = j
        self.lsp = load(os.path.join(d, "lsp.json"))
        self.edit = load(os.path.join(d, "edit.json"))

    def rel(self, path):
        """A path as the reader can find it: relative to the repository when inside it."""
        if path.startswith(self.data_root + "/"):
            return "bench-data/" + path[len(self.data_root) + 1 :]
        return path

    def size(self):
        j = self.check.get(1) or next(iter(self.check.values()), None) or self.front.get(1)
        return j

    # -- peers on the same files ------------------------------------------------------------

    def same_files(self, peer):
        """reductio's and the peer's time on the files the peer analysed (one core each)."""
        check = self.check.get(1)
        if not check:
            return None
        attributed = {f["path"]: f["front_s"] + f["probe_s"] for f in check["per_file"]}
        total = sum(attributed.values()) or 1.0
        ok = [f for f in peer["files"] if f["status"] == "ok"]
        timeouts = [f for f in peer["files"] if f["status"] == "timeout"]

        def share(files):
            return sum(attributed.get(f["file"], 0.0) for f in files) / total

        def on(files):
            return check["wall_s"] * share(files)

        out = {
            "ok": ok,
            "timeouts": timeouts,
            "lines": sum(f["lines"] for f in ok),
            "peer_s": sum(f["wall_s"] for f in ok),
            "reductio_s": on(ok) if ok else None,
        }
        out["ratio"] = out["peer_s"] / out["reductio_s"] if ok and out["reductio_s"] else None
        red_cpu = check.get("cpu_s", 0.0) * share(ok)
        peer_cpu = sum(f.get("cpu_s", 0.0) for f in ok)
        out["ratio_cpu"] = peer_cpu / red_cpu if ok and red_cpu > 0 and peer_cpu > 0 else None
        if timeouts:
            both = ok + timeouts
            red = on(both)
            out["ratio_lower_bound"] = sum(f["wall_s"] for f in both) / red if red else None
        return out


def verdict_line(verdicts):
    parts = []
    for key in ("proved", "leak"):
        if key in verdicts:
            parts.append(f"{key} {num(verdicts[key])}")
    unproved = [(k[len("unproved (") : -1], v) for k, v in sorted(verdicts.items()) if k.startswith("unproved")]
    if unproved:
        parts.append("unproved: " + ", ".join(f"{k} {num(v)}" for k, v in unproved))
    return " · ".join(parts)


def render(results):
    machine = load(os.path.join(results, "machine.json")) or {}
    data_root = os.path.dirname(os.path.dirname(os.path.abspath(results)))
    corpora = [Corpus(results, c, data_root) for c in machine.get("corpora", [])]
    load_end = read(os.path.join(results, "load-end.txt"), None)
    errors = read(os.path.join(results, "errors.txt"))
    o = []
    w = o.append

    w("# Benchmarks")
    w("")
    w(
        "Written by the benchmark harness (`bench/`, see `bench/README.md`); do not edit by hand. "
        "Run the same command again to compare: every figure below is regenerated, and the raw "
        f"figures stay in `bench-data/results/{os.path.basename(os.path.normpath(results))}/`."
    )
    w("")
    w("## Run")
    w("")
    w(f"- Command: `{machine.get('command', 'bash bench/run.sh')}` ({machine.get('mode', '?')} mode), from the repository root")
    w(f"- Date: {machine.get('date_utc', '?')} UTC")
    mem = machine.get("memory_kib")
    w(
        f"- Machine: {machine.get('cpu') or '?'}, {machine.get('cores', '?')} cores, "
        f"{mem / 1024 / 1024:.1f} GiB memory, {machine.get('os') or '?'}, Linux {machine.get('kernel') or '?'}"
        if mem
        else f"- Machine: {machine.get('cpu') or '?'}, {machine.get('cores', '?')} cores"
    )
    ls = machine.get("load_start") or []
    w(
        f"- Load average (1/5/15 min) at the start: {' / '.join(ls) or '?'}; 1-min load at the end: {load_end or '?'} "
        "(the machine may be shared: a load above zero at the start means another process was running)"
    )
    w(f"- reductio: {machine.get('reductio') or '?'}, release build; source at {machine.get('source_head') or '?'} (uncommitted changes, if any, included)")
    versions = {}
    for c in corpora:
        for tool, p in c.peers.items():
            versions.setdefault(tool, p.get("version"))
    if versions:
        w("- Peers: " + "; ".join(f"{PEER_TITLES[t]}: {v or '?'}" for t, v in versions.items()))
    w(
        f"- Parse and parse + lowering: median of {machine.get('runs', 3)} runs. Full check: once per thread setting. "
        f"Peers: each `.c` file once, {machine.get('peer_jobs', '?')} at a time, timeout {num(machine.get('peer_timeout_s'))} s per file."
    )
    w("")

    w("## Targets (issue 6)")
    w("")
    w("Measured, not asserted. \"Per core\" figures are the 1-thread runs.")
    w("")
    w("| target | corpus | measured | met |")
    w("|---|---|---|---|")
    for c in corpora:
        t = CORPUS_TITLES.get(c.name, c.name)
        check = c.check.get(1)
        front = c.front.get(1)
        if check:
            v = check["loc_per_s"]
            w(f"| full check ≥ 50,000 LOC/s per core | {t} | {num(v)} LOC/s | {'yes' if v >= 50000 else 'no'} |")
        if check and front and front.get("parse_s"):
            r = check["wall_s"] / front["parse_s"]
            w(f"| full check within 3× of the tree-sitter parse | {t} | {ratio(r)} the parse time | {'yes' if r <= 3 else 'no'} |")
        for tool in ("cppcheck", "gcc"):
            if tool in c.peers:
                s = c.same_files(c.peers[tool])
                if s and s["ratio"] is not None:
                    cpu = f"; by CPU time {ratio(s['ratio_cpu'])}" if s.get("ratio_cpu") else ""
                    w(
                        f"| ≥ 50× the throughput of {PEER_TITLES[tool]} | {t} | {ratio(s['ratio'])} "
                        f"(on the {len(s['ok'])} files it analysed{cpu}) | {'yes' if s['ratio'] >= 50 else 'no'} |"
                    )
                elif s:
                    lb = s.get("ratio_lower_bound")
                    w(
                        f"| ≥ 50× the throughput of {PEER_TITLES[tool]} | {t} | no file completed"
                        + (f"; ≥ {ratio(lb)} counting timeouts at the timeout" if lb else "")
                        + f" | {'yes (lower bound)' if lb and lb >= 50 else 'unknown'} |"
                    )
        if c.lsp:
            e = c.lsp.get("edits_debounce_0") or {}
            if e:
                v = e["p95_ms"]
                w(f"| didChange → diagnostics p95 ≤ 30 ms (debounce 0) | {t} | {millis(v)} | {'yes' if v <= 30 else 'no'} |")
            sv = c.lsp.get("saves") or {}
            if sv.get("count"):
                v = sv["p95_ms"]
                w(f"| didSave → diagnostics p95 ≤ 200 ms (a statement inserted or removed) | {t} | {millis(v)} | {'yes' if v <= 200 else 'no'} |")
            p = (c.lsp.get("prove") or {}).get("latency") or {}
            if p.get("count"):
                v = p["p95_ms"]
                w(f"| `reductio/prove` p95 ≤ 10 ms | {t} | {millis(v, 2)} | {'yes' if v <= 10 else 'no'} |")
            ws = c.lsp.get("workspace") or {}
            rss = ws.get("rss_after_check_kib")
            end = c.lsp.get("rss_end_kib")
            if rss is not None:
                label = "server RSS ≤ 300 MB with the corpus indexed" + (" (target: libxml2)" if c.name != "libxml2" else "")
                worst = max(rss, end or 0)
                w(
                    f"| {label} | {t} | {mib(rss)} after the first check, {mib(end)} at the end of the session "
                    f"| {'yes' if worst * 1024 <= 300e6 else 'no'} |"
                )
    w("")

    for c in corpora:
        render_corpus(c, w)

    w("## How to read this")
    w("")
    w(
        "- **LOC** are lines of the `.c` and `.h` files analysed (newlines), comments and blank lines "
        "included; the same count for every tool. Peers are given the `.c` files; the headers reach them "
        "through `#include`, so their LOC are those of the `.c` files they analysed."
    )
    w(
        "- **Parse (floor)**: `syntax::parse` (tree-sitter) of every file, nothing else. **Parse + lowering**: a "
        "fresh database, items, type environment, and every function lowered to the core IR with its CFG. "
        "**Full check**: what `reductio check` does (every probe), in timed phases (`server/examples/bench_check.rs`)."
    )
    w(
        "- **Per-probe cost**: transfer-function applications (the engine's unit of work; the budget is 500) and "
        "wall time of each `probe_verdict`, after the front end and the whole-program queries have run. With "
        "more than one thread, the per-probe times include the contention of the threads."
    )
    w(
        "- **reductio on the same files**: a peer that could not analyse some files (missing headers, compile "
        "errors, aborted analysis, timeout) is compared on the files it did analyse. reductio's time on them is "
        "its 1-thread check time multiplied by those files' share of its work (their functions' front end and "
        "probes). **reductio/peer** is the peer's time over reductio's on those files: how many times more LOC/s "
        "reductio analyses; by CPU time, the same with user + system CPU seconds (the peer's, children "
        "included, and reductio's check process's), which a loaded machine disturbs less than wall time. "
        "Timeouts give a lower bound on the wall-time ratio (the peer took at least the timeout)."
    )
    w(
        "- **Editor**: a scripted LSP client drives the release `reductio serve` over stdio "
        "(`server/examples/bench_lsp.rs`). The workspace is the corpus; the edits are a space inserted before "
        "a statement's `;` and removed again, alternately, inside one function of the largest `.c` file, each "
        "timed to the `publishDiagnostics` of its version, with `checkOn = \"change\"`. \"Debounce 0\" is the "
        "server's own latency; \"default debounce\" adds the 200 ms an editor with default settings waits. "
        "`reductio/prove` is sent at every assignment and initialized declaration of that file. "
        "The breakdown below each editor table repeats such edits in process (`server/examples/bench_edit.rs`) "
        "and times each layer the check of the edited file goes through."
    )
    w("")
    if errors:
        w("## Measurements that failed")
        w("")
        for line in errors.splitlines():
            w(f"- {line}")
        w("")
    return "\n".join(o) + "\n"


def render_corpus(c, w):
    t = CORPUS_TITLES.get(c.name, c.name)
    w(f"## {t} — `{c.package}`")
    w("")
    size = c.size()
    w("Analysed: " + ", ".join(f"`{c.rel(p)}`" for p in c.paths))
    if size:
        front = c.front.get(1) or {}
        parts = [f"{num(size['files'])} files"]
        if front.get("c_files") is not None:
            parts[0] += f" ({front['c_files']} `.c`, {front['h_files']} `.h`)"
        parts.append(f"{num(size['lines'])} lines")
        if size.get("functions") is not None:
            parts.append(f"{num(size['functions'])} functions")
        if size.get("probes") is not None:
            parts.append(f"{num(size['probes'])} probes")
        w("· " + " · ".join(parts))
    w("")

    w("### reductio")
    w("")
    w("| measurement | threads | wall time | LOC/s | probes/s | CPU time | peak RSS | × parse time (1 thread) |")
    w("|---|---|---|---|---|---|---|---|")
    floor = (c.front.get(1) or {}).get("parse_s")
    threads = sorted(set(c.front) | set(c.check))
    for n in threads:
        f = c.front.get(n)
        if f:
            runs = f.get("runs", 1)
            w(
                f"| tree-sitter parse (floor) | {n} | {secs(f['parse_s'])} (median of {runs}) | {num(f['parse_loc_per_s'])} | | | "
                f"{mib(f.get('peak_rss_kib'))} ¹ | {ratio(f['parse_s'] / floor) if floor else '—'} |"
            )
            w(
                f"| parse + lowering | {n} | {secs(f['front_s'])} (median of {runs}) | {num(f['front_loc_per_s'])} | | | "
                f"{mib(f.get('peak_rss_kib'))} ¹ | {ratio(f['front_s'] / floor) if floor else '—'} |"
            )
    for n in threads:
        k = c.check.get(n)
        if k:
            w(
                f"| full check | {n} | {secs(k['wall_s'])} (once) | {num(k['loc_per_s'])} | {num(k['probes_per_s'])} | {secs(k.get('cpu_s'))} | "
                f"{mib(k.get('peak_rss_kib'))} | {ratio(k['wall_s'] / floor) if floor else '—'} |"
            )
    if not threads:
        w("| not measured | | | | | | | |")
    w("")
    w("¹ The parse and parse + lowering runs share one process: its peak over all runs.")
    w("")
    if c.check:
        w("| full check | load | front end | whole-program queries | probes | per probe: transfers median / p95 / max | per probe: time median / p95 / max | abandoned on budget |")
        w("|---|---|---|---|---|---|---|---|")
        for n, k in sorted(c.check.items()):
            ph = k["phases_s"]
            tr = k["transfers"]
            pm = k["probe_ms"]
            w(
                f"| {n} thread{'s' if n > 1 else ''} | {secs(ph['load'])} | {secs(ph['front'])} | {secs(ph['workspace'])} | "
                f"{secs(ph['probes'])} | {tr['median']} / {tr['p95']} / {tr['max']} | "
                f"{millis(pm['median'], 2)} / {millis(pm['p95'], 2)} / {millis(pm['max'], 0)} | "
                f"{num(k['abandoned_on_budget'])} ({100 * k['abandoned_share']:.1f}%) |"
            )
        w("")
        k = c.check.get(1) or next(iter(c.check.values()))
        w(f"Verdicts: {verdict_line(k['verdicts'])}.")
        slow = sorted(k["per_file"], key=lambda f: -f["probe_s"])[:3]
        if slow and slow[0]["probe_s"] > 0:
            w(
                "Most probe time (1 thread): "
                + ", ".join(f"`{c.rel(f['path'])}` {secs(f['probe_s'])} ({num(f['probes'])} probes)" for f in slow)
                + "."
            )
        w("")

    w("### Peers")
    w("")
    if not c.peers:
        w("Not measured in this run.")
        w("")
    else:
        cores = {p["jobs"] for p in c.peers.values()}
        nk = c.check.get(max(c.check)) if c.check else None
        w(f"Compiler flags given to the peers: `{c.cflags.replace(c.data_root, 'bench-data')}`.")
        w("")
        w(
            "| peer | `.c` files analysed | LOC analysed | peer time, 1 core | peer LOC/s per core | "
            "reductio time on the same files, 1 thread | reductio LOC/s there | reductio/peer | reductio/peer by CPU time | "
            f"peer wall, {'/'.join(str(x) for x in sorted(cores))} at a time, all files | leak warnings |"
        )
        w("|---|---|---|---|---|---|---|---|---|---|---|")
        for tool, p in c.peers.items():
            s = c.same_files(p)
            files = p["files"]
            leaks = sum(f["leak_warnings"] for f in files if f["status"] == "ok")
            warnings = sum(f["warnings"] for f in files if f["status"] == "ok")
            if s is None:
                w(f"| {PEER_TITLES[tool]} | {len(files)} | | | | (no reductio check to compare) | | | | {secs(p['wall_s'])} | {leaks} |")
                continue
            ok = len(s["ok"])
            red = s["reductio_s"]
            rat = ratio(s["ratio"]) if s["ratio"] is not None else "—"
            if s.get("ratio_lower_bound"):
                rat += f" (≥ {ratio(s['ratio_lower_bound'])} with timeouts)"
            w(
                f"| {PEER_TITLES[tool]} | {ok} of {len(files)} | {num(s['lines'])} | {secs(s['peer_s']) if ok else '—'} | "
                f"{num(s['lines'] / s['peer_s']) if ok and s['peer_s'] else '—'} | {secs(red)} | "
                f"{num(s['lines'] / red) if red else '—'} | {rat} | {ratio(s.get('ratio_cpu'))} | {secs(p['wall_s'])} | {leaks} (of {warnings} warnings) |"
            )
        if nk:
            w(
                f"| reductio `check` | all | {num(nk['lines'])} (with headers) | | | {secs(c.check[1]['wall_s']) if 1 in c.check else '—'} | "
                f"{num(c.check[1]['loc_per_s']) if 1 in c.check else '—'} | | | {secs(nk['wall_s'])} ({nk['jobs']} thread{'s' if nk['jobs'] > 1 else ''}) | "
                f"{num(nk['verdicts'].get('leak', 0))} leaks |"
            )
        w("")
        for tool, p in c.peers.items():
            bad = [f for f in p["files"] if f["status"] != "ok"]
            w(f"`{p['command']}`" + (f": could not analyse {len(bad)} file{'s' if len(bad) != 1 else ''}:" if bad else ": analysed every file."))
            if bad:
                w("")
                for f in bad[:20]:
                    w(f"- `{c.rel(f['file'])}` ({num(f['lines'])} lines): {f['reason']} after {secs(f['wall_s'])}")
                if len(bad) > 20:
                    w(f"- and {len(bad) - 20} more (see `{os.path.basename(c.dir)}/peer-{tool}.json`)")
            w("")

    w("### Editor (`reductio serve` over stdio)")
    w("")
    L = c.lsp
    if not L:
        w("Not measured in this run.")
        w("")
        return
    ws = L["workspace"]
    fn = L["function"]
    e0 = L.get("edits_debounce_0") or {}
    ed = L.get("edits_debounce_default")
    pr = L["prove"]
    pl = pr["latency"]
    w("| measurement | value |")
    w("|---|---|")
    w(f"| workspace: {num(ws['files'])} files, {num(ws['lines'])} lines; indexing done | {millis(ws['indexing_done_ms'], 0)} after `initialize` |")
    fd = ws.get("first_diagnostics_ms")
    w(
        "| first diagnostics | "
        + (f"{secs(fd / 1000)} after `initialize` (`{c.rel(ws['first_diagnostics_uri'].replace('file://', ''))}`)" if fd is not None else "none: no leak found before the check ended (files without leaks are not published until opened)")
        + " |"
    )
    cd = ws.get("check_done_ms")
    signal = {"progress": "end of the server's `$/progress`", "cpu-idle": "the server's CPU time stopped growing"}.get(ws.get("check_done_signal"), "?")
    w(f"| whole workspace checked | {secs(cd / 1000) if cd is not None else 'did not end within the timeout'} after `initialize` ({signal}) |")
    w(f"| RSS after indexing / after the first check | {mib(ws.get('rss_after_indexing_kib'))} / {mib(ws.get('rss_after_check_kib'))} |")
    w(f"| open `{os.path.basename(L['file'])}` ({num(L['file_lines'])} lines) → its diagnostics | {millis(L['open_to_diagnostics_ms'], 0)} |")
    where = f"`{fn['name']}` (line {fn['line']}, {fn['lines']} lines, {fn['probes']} probes), edit at {fn['edit_at']['line']}:{fn['edit_at']['column']}"
    if e0:
        w(f"| didChange → publishDiagnostics, debounce 0, {e0['count']} edits in {where}: p50 / p95 / max | {millis(e0['p50_ms'])} / {millis(e0['p95_ms'])} / {millis(e0['max_ms'])} |")
    if ed:
        w(f"| the same with the default debounce (200 ms), {ed['count']} edits: p50 / p95 / max | {millis(ed['p50_ms'])} / {millis(ed['p95_ms'])} / {millis(ed['max_ms'])} |")
    sv = L.get("saves") or {}
    if sv.get("count"):
        w(f"| didSave → publishDiagnostics (`checkOn = \"save\"`), {sv['count']} saves, a `free(0);` inserted after the edited statement or removed: p50 / p95 / max | {millis(sv['p50_ms'])} / {millis(sv['p95_ms'])} / {millis(sv['max_ms'])} |")
    w(
        f"| `reductio/prove` at {num(pr['requests'])} assignments ({num(pr['verdicts'])} verdicts, {pr['errors']} errors): p50 / p95 / max | "
        f"{millis(pl['p50_ms'], 2)} / {millis(pl['p95_ms'], 2)} / {millis(pl['max_ms'], 1)} |"
    )
    w(f"| RSS at the end / peak | {mib(L.get('rss_end_kib'))} / {mib(L.get('peak_rss_kib'))} |")
    w("")
    E = c.edit
    if E:
        w(
            f"Where an edit's time goes, in process (`bench_edit`: {E['edits']} of the same edits in `{E['function']}`, "
            "each followed by the queries the server's check of the file asks, in layer order):"
        )
        w("")
        w("| phase | p50 | p95 | max |")
        w("|---|---|---|---|")
        for name, d in list(E["phases"].items()) + [("total", E["total"])]:
            label = name.split(" ", 1)[1] if name[0].isdigit() else f"**{name}**"
            w(f"| {label} | {millis(d['p50_ms'])} | {millis(d['p95_ms'])} | {millis(d['max_ms'])} |")
        w("")
        bg = E.get("background_other_files")
        if bg:
            w(
                f"After publishing, the server re-checks the other files in the background (salsa verifies their "
                f"results; not part of the latency above): p50 {millis(bg['p50_ms'])}, max {millis(bg['max_ms'])}."
            )
            w("")
        ex = E.get("executions_per_edit") or {}
        keys = ["probe_outcome", "probe_verdict", "body", "type_classes", "mod_table", "call_graph", "lowered"]
        shown = [f"`{k}` {num(ex[k]['median'])}" for k in keys if k in ex]
        others = [f"`{k}` {num(ex[k]['median'])}" for k in sorted(ex) if k not in keys]
        w(
            "Queries re-executed per edit (median): "
            + ", ".join(shown)
            + (f"; others: {', '.join(others)}" if others else "")
            + "."
        )
        w("")


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: report.py RESULTS_DIR")
    sys.stdout.write(render(sys.argv[1]))


if __name__ == "__main__":
    main()

//! Findings → text (rustc-style, with source snippets), JSON (the stable format of DESIGN.md)
//! and SARIF 2.1.0 (with a codeFlow per leak trace).

use crate::batch::Shard;
use crate::db::{Finding, SourceLoc, VerdictKind};
use crate::fingerprint::SARIF_KEY;
use crate::suppress::{Source, Suppression};
use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};
use serde_json::{Value, json};
use std::cmp::Ordering;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub files: usize,
    pub functions: usize,
    pub probes: usize,
    pub proved: usize,
    pub leaks: usize,
    pub unproved: usize,
    pub elapsed_ms: u128,
}

impl Summary {
    pub fn count(&mut self, f: &Finding) {
        self.probes += 1;
        match f.verdict {
            VerdictKind::Proved => self.proved += 1,
            VerdictKind::Leak => self.leaks += 1,
            VerdictKind::Unproved => self.unproved += 1,
        }
    }
}

/// Which findings a report lists: leaks always, unproved with `--all`.
pub fn listed(f: &Finding, all: bool) -> bool {
    match f.verdict {
        VerdictKind::Leak => true,
        VerdictKind::Unproved => all,
        VerdictKind::Proved => false,
    }
}

fn loc_json(l: &SourceLoc) -> Value {
    json!({"file": path_str(&l.file), "line": l.line, "column": l.column, "function": l.function})
}

fn path_str(p: &Path) -> String {
    p.to_string_lossy().replace('\\', "/")
}

/// One finding as a JSON object (shared by `check --format json`, `prove --format json` and the
/// LSP `reductio/prove` request).
pub fn finding_json(f: &Finding) -> Value {
    let mut v = json!({
        "file": path_str(&f.loc.file),
        "line": f.loc.line,
        "column": f.loc.column,
        "end_line": f.loc.end_line,
        "end_column": f.loc.end_column,
        "function": f.loc.function,
        "verdict": f.verdict.as_str(),
        "probe": f.probe.as_str(),
        "variable": f.variable,
        "message": f.message,
        "allocation": f.allocation.iter().map(loc_json).collect::<Vec<_>>(),
        "trace": f.trace.iter().map(|s| json!({
            "file": path_str(&s.loc.file), "line": s.loc.line, "column": s.loc.column, "note": s.note
        })).collect::<Vec<_>>(),
    });
    if let Some(r) = &f.reason {
        v["reason"] = json!(r);
    }
    if let Some(by) = &f.allocated_by {
        v["allocated_by"] = json!(by);
    }
    v
}

/// A finding as the team-facing reports (JSON, SARIF) list it: with its fingerprint, and why
/// it is suppressed if it is.
pub struct Entry<'a> {
    pub finding: &'a Finding,
    pub fingerprint: &'a str,
    pub suppression: Option<&'a Suppression>,
}

/// What a `--baseline` run says about the baseline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BaselineCounts {
    pub file: String,
    pub matched: usize,
    pub disappeared: usize,
}

/// A suppression as JSON: its reason and where it is written (a comment's file and line, or
/// the 1-based `[[suppress]]` entry of the configuration).
pub fn suppression_json(s: &Suppression) -> Value {
    match &s.source {
        Source::Comment { file, line } => {
            json!({"reason": s.reason, "file": path_str(file), "line": line})
        }
        Source::Config { entry } => json!({"reason": s.reason, "config_entry": entry}),
    }
}

/// One entry of `check --format json`: [`finding_json`] plus `fingerprint` (and `suppression`).
pub fn entry_json(e: &Entry<'_>) -> Value {
    let mut v = finding_json(e.finding);
    v["fingerprint"] = json!(e.fingerprint);
    if let Some(s) = e.suppression {
        v["suppression"] = suppression_json(s);
    }
    v
}

pub fn summary_json(summary: &Summary) -> Value {
    json!({
        "files": summary.files, "functions": summary.functions, "probes": summary.probes,
        "proved": summary.proved, "leaks": summary.leaks, "unproved": summary.unproved,
        "elapsed_ms": summary.elapsed_ms,
    })
}

/// The JSON report, put together in one place for `check` and `merge` (so a merge of shards
/// is byte for byte the unsharded report). `findings` and `suppressed` are sorted here.
pub fn assemble_json(
    summary: Value,
    shard: Option<Shard>,
    baseline: Option<&BaselineCounts>,
    mut findings: Vec<Value>,
    mut suppressed: Vec<Value>,
    unused: Option<Vec<Value>>,
) -> Value {
    findings.sort_by(json_order);
    suppressed.sort_by(json_order);
    let mut v = json!({"version": 1, "summary": summary});
    if let Some(s) = shard {
        v["shard"] = json!({"index": s.index, "count": s.count});
    }
    if let Some(b) = baseline {
        v["baseline"] = json!({"file": b.file, "matched": b.matched, "disappeared": b.disappeared});
    }
    v["findings"] = Value::Array(findings);
    v["suppressed"] = Value::Array(suppressed);
    if let Some(u) = unused {
        v["unused_suppressions"] = Value::Array(u);
    }
    v
}

/// The order of reported findings: file path, then start and end position, probe kind,
/// variable and fingerprint. Two findings equal in all of these have the same fingerprint, so
/// the same function: a shard never has to interleave them with another shard's.
fn order_key<'a>(
    file: &'a str,
    pos: [u64; 4],
    probe: &'a str,
    variable: &'a str,
    fingerprint: &'a str,
) -> (&'a Path, [u64; 4], &'a str, &'a str, &'a str) {
    (Path::new(file), pos, probe, variable, fingerprint)
}

fn json_key(v: &Value) -> (&Path, [u64; 4], &str, &str, &str) {
    let n = |k: &str| v[k].as_u64().unwrap_or(0);
    let s = |k: &str| v[k].as_str().unwrap_or("");
    order_key(
        s("file"),
        [n("line"), n("column"), n("end_line"), n("end_column")],
        s("probe"),
        s("variable"),
        s("fingerprint"),
    )
}

/// [`order_key`] on JSON report entries.
pub fn json_order(a: &Value, b: &Value) -> Ordering {
    json_key(a).cmp(&json_key(b))
}

fn sarif_key(r: &Value) -> (bool, (&Path, [u64; 4], &str, &str, &str)) {
    let loc = &r["locations"][0]["physicalLocation"];
    let region = &loc["region"];
    let n = |k: &str| region[k].as_u64().unwrap_or(0);
    let suppressed = r["suppressions"].as_array().is_some_and(|a| !a.is_empty());
    (
        suppressed,
        order_key(
            loc["artifactLocation"]["uri"].as_str().unwrap_or(""),
            [
                n("startLine"),
                n("startColumn"),
                n("endLine"),
                n("endColumn"),
            ],
            r["properties"]["probe"].as_str().unwrap_or(""),
            r["properties"]["variable"].as_str().unwrap_or(""),
            r["partialFingerprints"][SARIF_KEY].as_str().unwrap_or(""),
        ),
    )
}

/// [`order_key`] on SARIF results, the suppressed ones last.
pub fn sarif_order(a: &Value, b: &Value) -> Ordering {
    sarif_key(a).cmp(&sarif_key(b))
}

fn phys(l: &SourceLoc, end: bool) -> Value {
    let mut region = json!({"startLine": l.line, "startColumn": l.column});
    if end {
        region["endLine"] = json!(l.end_line);
        region["endColumn"] = json!(l.end_column);
    }
    json!({"physicalLocation": {
        "artifactLocation": {"uri": path_str(&l.file)},
        "region": region,
    }})
}

/// One SARIF result: the fingerprint in `partialFingerprints`, a suppression as SARIF's
/// `suppressions` (`inSource` for a comment, `external` for the configuration), and
/// `baselineState: new` when the run compared with a baseline.
pub fn sarif_result(e: &Entry<'_>, with_baseline: bool) -> Value {
    let f = e.finding;
    let mut r = json!({
        "ruleId": format!("reductio/{}", f.verdict.as_str()),
        "level": match f.verdict { VerdictKind::Leak => "warning", _ => "note" },
        "message": {"text": f.message},
        "locations": [phys(&f.loc, true)],
        "partialFingerprints": {SARIF_KEY: e.fingerprint},
        "properties": {"probe": f.probe.as_str(), "variable": f.variable, "function": f.loc.function},
    });
    if let Some(reason) = &f.reason {
        r["properties"]["reason"] = json!(reason);
    }
    if !f.trace.is_empty() && f.verdict == VerdictKind::Leak {
        let locs: Vec<Value> = f
            .trace
            .iter()
            .map(|s| {
                let mut l = phys(&s.loc, false);
                l["message"] = json!({"text": s.note});
                json!({"location": l})
            })
            .collect();
        r["codeFlows"] = json!([{"threadFlows": [{"locations": locs}]}]);
    }
    if !f.allocation.is_empty() {
        r["relatedLocations"] = Value::Array(
            f.allocation
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    let mut l = phys(a, false);
                    l["id"] = json!(i);
                    l["message"] = json!({"text": "allocation path"});
                    l
                })
                .collect(),
        );
    }
    if let Some(s) = e.suppression {
        let kind = match s.source {
            Source::Comment { .. } => "inSource",
            Source::Config { .. } => "external",
        };
        r["suppressions"] = json!([{"kind": kind, "justification": s.reason}]);
    } else if with_baseline {
        r["baselineState"] = json!("new");
    }
    r
}

/// The SARIF log, put together in one place for `check` and `merge`; `results` are sorted here.
pub fn assemble_sarif(mut results: Vec<Value>, shard: Option<Shard>) -> Value {
    results.sort_by(sarif_order);
    let mut run = json!({
        "tool": {"driver": {
            "name": "reductio",
            "version": env!("CARGO_PKG_VERSION"),
            "informationUri": "https://example.invalid/reductio",
            "rules": [
                {"id": "reductio/leak", "shortDescription": {"text": "Memory leak: the last reference to a heap block is lost"}},
                {"id": "reductio/unproved", "shortDescription": {"text": "A leak probe that could be neither proved nor refuted"}},
            ],
        }},
        "results": results,
    });
    if let Some(s) = shard {
        run["properties"] = json!({"reductio": {"shard": {"index": s.index, "count": s.count}}});
    }
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [run],
    })
}

/// A report as printed: pretty JSON and a final newline.
pub fn to_text(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// Text of the files findings point into, for snippets.
pub type Sources = HashMap<PathBuf, String>;

/// The char boundary at or before byte `i` of `text` (clamped to its end).
fn floor_char(text: &str, i: u32) -> usize {
    let mut i = (i as usize).min(text.len());
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// rustc-style text for findings, then the summary line.
pub fn text_report(
    findings: &[&Finding],
    summary: &Summary,
    sources: &Sources,
    color: bool,
) -> String {
    let renderer = if color {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let mut out = String::new();
    for f in findings {
        out.push_str(&render_finding(f, sources, &renderer));
        out.push_str("\n\n");
    }
    out.push_str(&format!(
        "checked {} file{}, {} function{}, {} probe{}: {} proved, {} leak{}, {} unproved in {} ms\n",
        summary.files,
        plural(summary.files),
        summary.functions,
        plural(summary.functions),
        summary.probes,
        plural(summary.probes),
        summary.proved,
        summary.leaks,
        plural(summary.leaks),
        summary.unproved,
        summary.elapsed_ms
    ));
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

pub fn render_finding(f: &Finding, sources: &Sources, renderer: &Renderer) -> String {
    let level = match f.verdict {
        VerdictKind::Leak => Level::WARNING,
        _ => Level::NOTE,
    };
    let id = match f.verdict {
        VerdictKind::Leak => "leak".to_string(),
        VerdictKind::Unproved => format!("unproved:{}", f.reason.as_deref().unwrap_or("")),
        VerdictKind::Proved => "proved".to_string(),
    };
    let path = path_str(&f.loc.file);
    let last_note = match f.verdict {
        VerdictKind::Leak => f
            .trace
            .last()
            .map(|s| s.note.clone())
            .unwrap_or_else(|| format!("`{}`", f.variable)),
        _ => format!("assuming `{}` holds the last reference here", f.variable),
    };
    let mut trace_text = String::new();
    for s in &f.trace {
        trace_text.push_str(&format!(
            "\n  {}:{}:{}: {}",
            path_str(&s.loc.file),
            s.loc.line,
            s.loc.column,
            s.note
        ));
    }
    let title = level
        .clone()
        .primary_title(f.message.as_str())
        .id(id.as_str());
    let mut groups: Vec<Group> = Vec::new();
    match sources.get(&f.loc.file) {
        Some(text) => {
            let start = floor_char(text, f.loc.range.start);
            let mut end = floor_char(text, f.loc.range.end);
            // One line is enough for the primary annotation.
            if let Some(nl) = text[start..end.max(start)].find('\n') {
                end = start + nl;
            }
            let end = end.max(start);
            let mut snippet = Snippet::source(text.as_str())
                .path(path.as_str())
                .annotation(
                    AnnotationKind::Primary
                        .span(start..end)
                        .label(last_note.as_str()),
                );
            if let Some(a) = f.headline_allocation()
                && a.file == f.loc.file
                && a.line != f.loc.line
            {
                let s = floor_char(text, a.range.start);
                let line_end = text[s..].find('\n').map(|n| s + n).unwrap_or(text.len());
                snippet = snippet.annotation(
                    AnnotationKind::Context
                        .span(s..line_end)
                        .label("allocated here"),
                );
            }
            groups.push(title.element(snippet));
        }
        None => groups.push(Group::with_title(title)),
    }
    if !trace_text.is_empty() {
        let label = match f.verdict {
            VerdictKind::Leak => "trace:",
            VerdictKind::Proved => "refuted at:",
            VerdictKind::Unproved => "at:",
        };
        let msg = format!("{label}{trace_text}");
        groups.push(Group::with_title(Level::NOTE.secondary_title(msg)));
    }
    renderer.render(&groups).to_string()
}

/// "The memory assigned here" as JSON: the `assigned` entries of `reductio prove --format
/// json` and of the LSP `reductio/prove` answer (README, "The memory assigned here").
pub fn assigned_json(a: &crate::db::AssignedMemory) -> Value {
    json!({
        "file": path_str(&a.loc.file),
        "line": a.loc.line,
        "column": a.loc.column,
        "end_line": a.loc.end_line,
        "end_column": a.loc.end_column,
        "function": a.loc.function,
        "variable": a.variable,
        "verdict": a.verdict.as_str(),
        "summary": a.summary,
        "paths": a.paths.iter().map(|p| {
            let mut v = json!({
                "kind": p.kind.as_str(),
                "file": path_str(&p.loc.file),
                "line": p.loc.line,
                "column": p.loc.column,
                "note": p.note,
            });
            if let Some(f) = &p.finding {
                v["allocated_here"] = json!(p.allocated_here);
                v["finding"] = finding_json(f);
            }
            v
        }).collect::<Vec<_>>(),
    })
}

/// "The memory assigned here" as text (also Markdown): a header line, then one `- ` item per
/// path, with a leak's trace numbered under it. Locations in `here` are written `line N`.
pub fn assigned_text(a: &crate::db::AssignedMemory, here: &Path) -> String {
    let at = |l: &SourceLoc| {
        if l.file == here {
            format!("line {}", l.line)
        } else {
            let name = l
                .file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            format!("{name}:{}", l.line)
        }
    };
    let mut out = format!("`{}` ({}): {}", a.variable, at(&a.loc), a.summary);
    for p in &a.paths {
        out.push_str(&format!("\n- {}: {}", at(&p.loc), p.note));
        if p.kind == crate::db::PathKind::Leak
            && let Some(f) = &p.finding
        {
            for (i, s) in f.trace.iter().enumerate() {
                out.push_str(&format!("\n  {}. {}: {}", i + 1, at(&s.loc), s.note));
            }
        }
    }
    out
}

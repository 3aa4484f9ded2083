//! Where the time of one keystroke goes: the in-process companion of `bench_lsp` (see
//! bench/README.md). JSON on stdout.
//!
//! ```text
//! bench_edit PATH... --file FILE [--function NAME] [--edits N] [--saves | --line TEXT] [--no-background]
//! ```
//! With `--saves`, each edit is the one `bench_lsp --saves` saves instead: a line `free(0);`
//! inserted after the statement, then removed (a change of the function's meaning); `--line
//! TEXT` inserts TEXT instead (e.g. a leaking `char *p = malloc(1);`). With
//! `--no-background` the other files are not re-checked after each edit (to profile the
//! edits alone, e.g. under `perf record`).
//!
//! Loads the corpus (PATHs, discovered as `reductio check` does) into a database that logs
//! every query execution, checks every file once (as the language server does after
//! indexing), opens FILE as an editor document, then makes `--edits` single-character edits
//! (default 20) at the place `bench_lsp` edits: a space inserted before a statement's `;` in
//! the function with the most probes among those of at most 300 lines (or `--function`), then
//! removed, alternately. Each edit is applied as the server applies it (incremental reparse,
//! new text and tree), then the queries the server's check of FILE needs are asked in layer
//! order, each timed: the file's items, the edited function's IR, the whole-program queries
//! (call graph, type classes, MOD table), and the file's findings. Reported per phase:
//! median, p95, max; and per query, how many times it re-executed per edit (median).

mod common;

use common::{percentile, pick_target};
use reductio::config::Config;
use reductio::db::{self, Database, Db};
use reductio::syntax::{Document, Position, PositionEncoding, SyntaxTree, TextChange};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

fn fail(msg: &str) -> ! {
    eprintln!("bench_edit: {msg}");
    std::process::exit(2)
}

fn since_ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn distribution(mut v: Vec<f64>) -> Value {
    v.sort_by(f64::total_cmp);
    json!({
        "p50_ms": percentile(&v, 50.0),
        "p95_ms": percentile(&v, 95.0),
        "max_ms": v.last().copied().unwrap_or(0.0),
    })
}

/// Adds one edit's query executions (from the database log, which also holds the queries'
/// own notes) to the per-query series.
fn record_executions(log: Vec<String>, series: &mut BTreeMap<String, Vec<usize>>) {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for entry in log {
        if let Some(query) = entry.strip_prefix("execute ") {
            let query = query.split('(').next().unwrap_or_default().to_string();
            *counts.entry(query).or_default() += 1;
        }
    }
    for (q, c) in counts {
        series.entry(q).or_default().push(c);
    }
}

/// Median and max executions per edit of each query; edits where a query did not run at all
/// count as zero.
fn per_edit(series: BTreeMap<String, Vec<usize>>, edits: usize) -> Map<String, Value> {
    series
        .into_iter()
        .map(|(q, mut v)| {
            v.resize(edits, 0);
            v.sort_unstable();
            (q, json!({"median": v[edits / 2], "max": v[edits - 1]}))
        })
        .collect()
}

fn main() {
    let mut paths = Vec::new();
    let mut file = None;
    let mut function = None;
    let mut edits = 20usize;
    let mut saves = false;
    let mut line_text = "\tfree(0);".to_string();
    let mut background_on = true;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--file" => file = args.next().map(PathBuf::from),
            "--function" => function = args.next(),
            "--saves" => saves = true,
            "--line" => {
                saves = true;
                line_text = args.next().unwrap_or_else(|| fail("--line needs a text"));
            }
            "--no-background" => background_on = false,
            "--edits" => {
                edits = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or_else(|| fail("--edits needs a number"))
            }
            s if s.starts_with("--") => fail(&format!("unknown option {s}")),
            _ => paths.push(PathBuf::from(a)),
        }
    }
    let file = file.unwrap_or_else(|| {
        fail("usage: bench_edit PATH... --file FILE [--function NAME] [--edits N] [--saves | --line TEXT] [--no-background]")
    });
    let canonical = |p: &PathBuf| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone());
    let target_path = canonical(&file);
    if !paths.iter().any(|p| target_path.starts_with(canonical(p))) {
        paths.push(file.clone());
    }
    let files = reductio::files::discover(&paths, &[]).unwrap_or_else(|e| fail(&e));

    let mut database = Database::with_execution_log(Config::default());
    let mut inputs = Vec::new();
    let mut target = None;
    for p in &files {
        let (text, _) = reductio::files::read_source(p).unwrap_or_else(|e| fail(&e));
        let f = database.add_file(p.clone(), text);
        if canonical(p) == target_path {
            target = Some(f);
        }
        inputs.push(f);
    }
    let target = target.unwrap_or_else(|| fail("FILE is not among the files discovered"));

    // Open it as the editor does: the document's tree goes into the database.
    let mut doc = Document::new(target.text(&database).clone());
    database.set_file_tree(target, Some(SyntaxTree(doc.tree().clone())));

    let t = Instant::now();
    for &f in &inputs {
        let _ = db::file_findings(&database, f);
    }
    let first_check = since_ms(t);
    let picked = pick_target(
        &target_path,
        target.text(&database).as_str(),
        function.as_deref(),
    )
    .unwrap_or_else(|e| fail(&e));
    let (name, (line, col)) = (picked.name, picked.edit);
    eprintln!(
        "bench_edit: first check {:.1} s; editing `{name}` at {}:{}",
        first_check / 1e3,
        line + 1,
        col + 1
    );

    database.enable_log();
    let _ = database.take_log();
    let mut phases: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let mut background: Vec<f64> = Vec::new();
    let mut background_executions: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut executions: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let n = edits + edits % 2;
    for k in 0..n {
        let at = Position::new(line as u32, col as u32);
        let below = Position::new(line as u32 + 1, 0);
        let change = if saves {
            // What `bench_lsp --saves` saves: a line `free(0);` inserted after the edited
            // statement (a change of meaning), then removed.
            if k % 2 == 0 {
                TextChange {
                    range: Some((below, below)),
                    text: format!("{line_text}\n"),
                }
            } else {
                TextChange {
                    range: Some((below, Position::new(line as u32 + 2, 0))),
                    text: String::new(),
                }
            }
        } else if k % 2 == 0 {
            TextChange {
                range: Some((at, at)),
                text: " ".into(),
            }
        } else {
            TextChange {
                range: Some((at, Position::new(line as u32, col as u32 + 1))),
                text: String::new(),
            }
        };
        let t = Instant::now();
        doc.apply_changes(&[change], PositionEncoding::Utf8)
            .unwrap_or_else(|e| fail(&e.to_string()));
        database.set_file_text(target, doc.text().to_string());
        database.set_file_tree(target, Some(SyntaxTree(doc.tree().clone())));
        phases.entry("1 apply edit").or_default().push(since_ms(t));

        let d: &dyn Db = &database;
        let t = Instant::now();
        let funcs = db::file_functions(d, target);
        phases.entry("2 file items").or_default().push(since_ms(t));
        let t = Instant::now();
        if let Some(f) = funcs.iter().find(|f| f.name(d) == name.as_str()) {
            let _ = db::lowered(d, *f);
            let _ = db::function_probes(d, *f);
        }
        phases
            .entry("3 edited function's IR and probe sites")
            .or_default()
            .push(since_ms(t));
        let ws = d.workspace();
        let t = Instant::now();
        let _ = db::call_graph(d, ws);
        phases.entry("4 call graph").or_default().push(since_ms(t));
        let t = Instant::now();
        let _ = db::type_classes(d, ws);
        phases
            .entry("5 type classes")
            .or_default()
            .push(since_ms(t));
        let t = Instant::now();
        let _ = db::mod_table(d, ws);
        phases.entry("6 MOD table").or_default().push(since_ms(t));
        let t = Instant::now();
        let _ = db::file_findings(d, target);
        phases
            .entry("7 the file's findings")
            .or_default()
            .push(since_ms(t));

        record_executions(database.take_log(), &mut executions);
        // What the server does next, after publishing the edited file: the other files'
        // findings (in the background; not part of the edit's latency).
        let t = Instant::now();
        for &f in &inputs {
            if background_on && f != target {
                let _ = db::file_findings(d, f);
            }
        }
        background.push(since_ms(t));
        record_executions(database.take_log(), &mut background_executions);
    }
    let total: Vec<f64> = (0..n)
        .map(|i| phases.values().map(|v| v[i]).sum())
        .collect();
    let out = json!({
        "tool": "bench_edit",
        "files": inputs.len(),
        "file": target_path.display().to_string(),
        "function": name,
        "edit_at": {"line": line + 1, "column": col + 1},
        "first_check_ms": first_check,
        "edits": n,
        "kind": if saves { format!("line `{}` inserted/removed", line_text.trim()) } else { "space inserted/removed".to_string() },
        "total": distribution(total),
        "background_other_files": distribution(background),
        "background_executions_per_edit": per_edit(background_executions, n),
        "phases": phases
            .into_iter()
            .map(|(k, v)| (k.to_string(), distribution(v)))
            .collect::<Map<String, Value>>(),
        "executions_per_edit": per_edit(executions, n),
    });
    println!("{}", serde_json::to_string_pretty(&out).expect("JSON"));
}

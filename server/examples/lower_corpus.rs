//! Runs the C front end over a corpus of real code and reports what it made of it: how much was
//! parsed, lowered, recovered or given up on (fallbacks by reason, with example locations), and
//! how long and how much memory that took.
//!
//! ```text
//! cargo run --release --example lower_corpus -- PATH... [--top N] [--examples N] [--stack-mb N]
//! ```
//!
//! PATHs are files or directories (searched recursively for `.c` and `.h`). All files go into
//! one database, as in a workspace, so declarations in headers are visible to every file.
//! The work runs on a thread with a 2 MiB stack by default — the stack the language server's
//! worker threads have — so a recursion problem shows up here as it would in the editor.
//! See bench/README.md.

use reductio::db::{self, Database, Db, SourceFile};
use reductio::ir::FunctionIr;
use reductio::syntax::{TextRange, decode_source};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

struct Options {
    paths: Vec<PathBuf>,
    top: usize,
    examples: usize,
    stack_mb: usize,
}

fn parse_args() -> Result<Options, String> {
    let mut o = Options {
        paths: vec![],
        top: 20,
        examples: 3,
        stack_mb: 2,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut number = |flag: &str| -> Result<usize, String> {
            args.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{flag} needs a number"))
        };
        match a.as_str() {
            "--top" => o.top = number("--top")?,
            "--examples" => o.examples = number("--examples")?,
            "--stack-mb" => o.stack_mb = number("--stack-mb")?.max(1),
            "-h" | "--help" => return Err(String::new()),
            s if s.starts_with("--") => return Err(format!("unknown option {s}")),
            _ => o.paths.push(PathBuf::from(a)),
        }
    }
    if o.paths.is_empty() {
        return Err("no paths given".into());
    }
    Ok(o)
}

const USAGE: &str = "usage: lower_corpus PATH... [--top N] [--examples N] [--stack-mb N]";

fn main() -> ExitCode {
    let opts = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("lower_corpus: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let stack = opts.stack_mb << 20;
    let worker = std::thread::Builder::new()
        .name("lower_corpus".into())
        .stack_size(stack)
        .spawn(move || run(&opts))
        .expect("spawn the worker thread");
    match worker.join() {
        Ok(code) => code,
        Err(_) => {
            eprintln!("lower_corpus: the front end panicked outside a function (see above)");
            ExitCode::from(101)
        }
    }
}

/// `.c` and `.h` files under `path`, sorted so runs are comparable.
fn collect_files(path: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let meta = std::fs::metadata(path)?;
    if meta.is_file() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for p in entries {
        let Ok(ft) = std::fs::symlink_metadata(&p).map(|m| m.file_type()) else {
            continue;
        };
        if ft.is_dir() {
            collect_files(&p, out)?;
        } else if ft.is_file() && reductio::files::is_c_file(&p) {
            out.push(p);
        }
    }
    Ok(())
}

#[derive(Default)]
struct Reason {
    count: usize,
    examples: Vec<String>,
}

#[derive(Default)]
struct Totals {
    files: usize,
    bytes: usize,
    lines: usize,
    lossy_files: usize,
    functions: usize,
    recovered: u32,
    duplicates: u32,
    error_regions: u32,
    unrecovered: usize,
    unrecovered_examples: Vec<String>,
    statements: usize,
    opaque: usize,
    dead_ends: usize,
    dead_end_examples: Vec<String>,
    functions_with_fallbacks: usize,
    fallbacks: usize,
    reasons: BTreeMap<String, Reason>,
    global_statements: usize,
    panics: Vec<String>,
    slowest: Vec<(Duration, String)>,
}

impl Totals {
    fn add_ir(&mut self, ir: &FunctionIr, loc: &dyn Fn(TextRange) -> String, examples: usize) {
        self.statements += ir.statement_count();
        self.opaque += ir.opaque_count();
        for (i, n) in ir.nodes.iter().enumerate() {
            if i != ir.exit.0 as usize && n.succs.is_empty() {
                self.dead_ends += 1;
                if self.dead_end_examples.len() < examples {
                    self.dead_end_examples.push(loc(n.stmt.range));
                }
            }
        }
        if !ir.fallbacks.is_empty() {
            self.functions_with_fallbacks += 1;
        }
        for fb in &ir.fallbacks {
            self.fallbacks += 1;
            let r = self.reasons.entry(normalize(&fb.reason)).or_default();
            r.count += 1;
            if r.examples.len() < examples {
                r.examples.push(loc(fb.range));
            }
        }
    }
}

/// Reasons that embed a user's identifiers or code (`goto to unknown label `fail``,
/// ``TODO return(…)` parsed as a prototype`) are grouped without them. Backticked tree-sitter
/// node kinds (`unsupported statement `asm_statement``) are kept: they name the construct.
fn normalize(reason: &str) -> String {
    if reason.starts_with("goto to unknown label") {
        return "goto to unknown label `…`".into();
    }
    let mut out = String::with_capacity(reason.len());
    for (i, part) in reason.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        let quoted = i % 2 == 1;
        let node_kind = part.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
        let code = part.bytes().any(|b| b.is_ascii_alphanumeric());
        if quoted && code && !node_kind {
            out.push('…');
        } else {
            out.push_str(part);
        }
    }
    out
}

fn line_count(text: &str) -> usize {
    let n = text.bytes().filter(|&b| b == b'\n').count();
    n + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn secs(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

fn run(opts: &Options) -> ExitCode {
    let wall = Instant::now();
    let mut paths = Vec::new();
    for p in &opts.paths {
        if let Err(e) = collect_files(p, &mut paths) {
            eprintln!("lower_corpus: {}: {e}", p.display());
            return ExitCode::from(2);
        }
    }
    let mut t = Totals::default();

    // Load.
    let load_start = Instant::now();
    let mut database = Database::default();
    let mut files: Vec<SourceFile> = Vec::new();
    for p in &paths {
        let bytes = match std::fs::read(p) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("lower_corpus: {}: {e}", p.display());
                continue;
            }
        };
        let (text, lossy) = decode_source(&bytes);
        t.files += 1;
        t.bytes += bytes.len();
        t.lines += line_count(&text);
        t.lossy_files += usize::from(lossy);
        files.push(database.add_file(p.clone(), text));
    }
    let load_time = load_start.elapsed();
    let db: &dyn Db = &database;

    // Parse every file, then collect its items (functions, declarations).
    let parse_start = Instant::now();
    for &f in &files {
        let _ = db::parsed(db, f);
    }
    let parse_time = parse_start.elapsed();
    let items_start = Instant::now();
    for &f in &files {
        let items = db::file_syntax_items(db, f);
        let s = &items.stats;
        t.recovered += s.recovered_functions;
        t.duplicates += s.duplicate_functions;
        t.error_regions += s.error_nodes;
        t.unrecovered += s.unrecovered.len();
        let idx = db::line_index(db, f);
        for r in &s.unrecovered {
            if t.unrecovered_examples.len() < opts.examples {
                let line = idx.line_col(r.start).line + 1;
                t.unrecovered_examples
                    .push(format!("{}:{line}", f.path(db).display()));
            }
        }
        let _ = db::file_functions(db, f);
    }
    let _ = db::type_env(db, db.workspace());
    let items_time = items_start.elapsed();

    // Lower every function and every file's global initializers.
    let lower_start = Instant::now();
    for &f in &files {
        let path = f.path(db).display().to_string();
        let idx = db::line_index(db, f);
        if db::file_syntax_items(db, f)
            .globals
            .iter()
            .any(|g| g.init.is_some())
        {
            let globals =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| db::global_inits(db, f)));
            match globals {
                Ok(ir) => {
                    let loc = |r: TextRange| format!("{path}:{}", idx.line_col(r.start).line + 1);
                    t.global_statements += ir.statement_count();
                    t.add_ir(&ir, &loc, opts.examples);
                }
                Err(_) => t.panics.push(format!("{path}: <globals>")),
            }
        }
        for func in db::file_functions(db, f) {
            let started = Instant::now();
            let ir =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| db::lowered(db, *func)));
            let took = started.elapsed();
            let line = idx.line_col(func.start(db)).line + 1;
            let at = format!("{path}:{line} {}", func.name(db));
            let ir = match ir {
                Ok(ir) => ir,
                Err(_) => {
                    t.panics.push(at);
                    continue;
                }
            };
            t.functions += 1;
            let loc = |r: TextRange| format!("{path}:{}", db::location(db, *func, r).0);
            t.add_ir(&ir, &loc, opts.examples);
            t.slowest.push((took, at));
            if t.slowest.len() > 64 {
                t.slowest.sort_by_key(|s| std::cmp::Reverse(s.0));
                t.slowest.truncate(5);
            }
        }
    }
    let lower_time = lower_start.elapsed();
    t.slowest.sort_by_key(|s| std::cmp::Reverse(s.0));
    t.slowest.truncate(5);

    report(&t, opts, |out| {
        out.push(("load (read + decode)", secs(load_time)));
        out.push(("parse (tree-sitter)", secs(parse_time)));
        out.push(("collect items + type env", secs(items_time)));
        out.push(("lower (re-parse + lower)", secs(lower_time)));
        out.push(("total wall time", secs(wall.elapsed())));
        out.push((
            "peak RSS (VmHWM)",
            peak_rss_kib()
                .map(|k| format!("{:.1} MiB", k as f64 / 1024.0))
                .unwrap_or_else(|| "n/a".into()),
        ));
    });
    if t.panics.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn pct(part: usize, whole: usize) -> String {
    if whole == 0 {
        "0.0%".into()
    } else {
        format!("{:.1}%", 100.0 * part as f64 / whole as f64)
    }
}

fn report(t: &Totals, opts: &Options, timings: impl FnOnce(&mut Vec<(&'static str, String)>)) {
    let mut rows: Vec<(&str, String)> = vec![
        (
            "files",
            format!("{} ({} not valid UTF-8)", t.files, t.lossy_files),
        ),
        ("bytes", t.bytes.to_string()),
        ("lines", t.lines.to_string()),
        ("functions lowered", t.functions.to_string()),
        (
            "  recovered from macro-decorated heads",
            t.recovered.to_string(),
        ),
        (
            "  duplicate definitions (#ifdef alternatives)",
            t.duplicates.to_string(),
        ),
        (
            "  functions with a fallback",
            format!(
                "{} ({})",
                t.functions_with_fallbacks,
                pct(t.functions_with_fallbacks, t.functions)
            ),
        ),
        ("  lowering panics", t.panics.len().to_string()),
        ("file-level ERROR regions", t.error_regions.to_string()),
        ("unrecovered fragments", t.unrecovered.to_string()),
        ("IR statements (excluding joins)", t.statements.to_string()),
        (
            "  of which in global initializers",
            t.global_statements.to_string(),
        ),
        (
            "  opaque statements",
            format!("{} ({})", t.opaque, pct(t.opaque, t.statements)),
        ),
        (
            "  dead ends (no successor, not the exit)",
            t.dead_ends.to_string(),
        ),
        (
            "fallbacks",
            format!("{} in {} reasons", t.fallbacks, t.reasons.len()),
        ),
    ];
    timings(&mut rows);
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    for (k, v) in &rows {
        println!("{k:<width$}  {v}");
    }
    if !t.unrecovered_examples.is_empty() {
        println!(
            "\nunrecovered fragments, e.g.: {}",
            t.unrecovered_examples.join(", ")
        );
    }
    if !t.dead_end_examples.is_empty() {
        println!("dead ends, e.g.: {}", t.dead_end_examples.join(", "));
    }
    let mut reasons: Vec<(&String, &Reason)> = t.reasons.iter().collect();
    reasons.sort_by(|a, b| b.1.count.cmp(&a.1.count).then(a.0.cmp(b.0)));
    if !reasons.is_empty() {
        println!("\ntop fallback reasons:");
        for (reason, r) in reasons.iter().take(opts.top) {
            println!("{:>7}  {reason}", r.count);
            for e in &r.examples {
                println!("         {e}");
            }
        }
        if reasons.len() > opts.top {
            let rest: usize = reasons[opts.top..].iter().map(|r| r.1.count).sum();
            println!("{rest:>7}  ({} other reasons)", reasons.len() - opts.top);
        }
    }
    if !t.slowest.is_empty() {
        println!("\nslowest functions to lower:");
        for (d, at) in &t.slowest {
            println!("{:>9.2} ms  {at}", d.as_secs_f64() * 1e3);
        }
    }
    if !t.panics.is_empty() {
        println!("\nPANICS while lowering:");
        for p in &t.panics {
            println!("  {p}");
        }
    }
}

//! Front-end throughput for the benchmark harness (`bench/run.sh`, see bench/README.md):
//! the tree-sitter parse alone (the floor every analysis pays) and parse + lowering (what the
//! probes need before they start), on a corpus of real C, as JSON on stdout.
//!
//! ```text
//! bench_front PATH... [--jobs N] [--runs N]
//! ```
//!
//! PATHs are files or directories, discovered as `reductio check` does (`.c` and `.h`,
//! recursively, honouring `.gitignore`). Each run starts from a fresh database:
//! - `parse`: `syntax::parse` of every file, from text already in memory;
//! - `front`: load into a `Database`, `db::parsed` + `db::file_functions` of every file,
//!   `db::type_env`, then `db::lowered` of every function and `db::global_inits` of every file
//!   (lowering re-parses each function's own text: that is what makes it incremental).
//!
//! With `--jobs N` (default 1) files are parsed, and functions lowered, on N threads (one
//! database clone per worker, as `reductio check` does); the type environment is built once,
//! on one thread, in between. The JSON holds every run and the median of each phase.

use rayon::prelude::*;
use reductio::config::Config;
use reductio::db::{self, Database, Db, SourceFile};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

struct Options {
    paths: Vec<PathBuf>,
    jobs: usize,
    runs: usize,
}

fn parse_args() -> Result<Options, String> {
    let mut o = Options {
        paths: vec![],
        jobs: 1,
        runs: 3,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut number = |flag: &str| -> Result<usize, String> {
            args.next()
                .and_then(|v| v.parse().ok())
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("{flag} needs a positive number"))
        };
        match a.as_str() {
            "--jobs" => o.jobs = number("--jobs")?,
            "--runs" => o.runs = number("--runs")?,
            s if s.starts_with("--") => return Err(format!("unknown option {s}")),
            _ => o.paths.push(PathBuf::from(a)),
        }
    }
    if o.paths.is_empty() {
        return Err("no paths given".into());
    }
    Ok(o)
}

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn line_count(text: &str) -> usize {
    let n = text.bytes().filter(|&b| b == b'\n').count();
    n + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return 0.0;
    }
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// Seconds since `t`.
fn since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64()
}

fn parse_only(texts: &[(PathBuf, String)], pool: &rayon::ThreadPool) -> f64 {
    let t = Instant::now();
    let nodes: u64 = pool.install(|| {
        texts
            .par_iter()
            .map(|(_, text)| {
                u64::from(
                    reductio::syntax::parse(text, None)
                        .root_node()
                        .child_count(),
                )
            })
            .sum()
    });
    std::hint::black_box(nodes);
    since(t)
}

struct FrontRun {
    load: f64,
    parse_items: f64,
    type_env: f64,
    lower: f64,
    total: f64,
    functions: usize,
}

fn front(texts: &[(PathBuf, String)], pool: &rayon::ThreadPool) -> FrontRun {
    let start = Instant::now();
    let mut database = Database::new(Config::default());
    let files: Vec<SourceFile> = texts
        .iter()
        .map(|(p, text)| database.add_file(p.clone(), text.clone()))
        .collect();
    let load = since(start);

    // A database handle is Send but not Sync: each worker clones its own.
    let shared = Mutex::new(database.clone());
    let clone = || shared.lock().map(|d| d.clone()).unwrap_or_default();

    let t = Instant::now();
    let functions: usize = pool.install(|| {
        files
            .par_iter()
            .map_init(clone, |db, &f| {
                let _ = db::parsed(db, f);
                db::file_functions(db, f).len()
            })
            .sum()
    });
    let parse_items = since(t);

    let t = Instant::now();
    let d: &dyn Db = &database;
    let _ = db::type_env(d, d.workspace());
    let type_env = since(t);

    let t = Instant::now();
    let work: Vec<(usize, Option<usize>)> = files
        .iter()
        .enumerate()
        .flat_map(|(i, &f)| {
            let n = db::file_functions(d, f).len();
            std::iter::once((i, None)).chain((0..n).map(move |j| (i, Some(j))))
        })
        .collect();
    pool.install(|| {
        work.par_iter().for_each_init(clone, |db, &(i, j)| match j {
            None => {
                if db::file_syntax_items(db, files[i])
                    .globals
                    .iter()
                    .any(|g| g.init.is_some())
                {
                    let _ = db::global_inits(db, files[i]);
                }
            }
            Some(j) => {
                let f = db::file_functions(db, files[i])[j];
                let _ = db::lowered(db, f);
            }
        })
    });
    let lower = since(t);
    FrontRun {
        load,
        parse_items,
        type_env,
        lower,
        total: since(start),
        functions,
    }
}

fn main() {
    let opts = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("bench_front: {e}\nusage: bench_front PATH... [--jobs N] [--runs N]");
            std::process::exit(2);
        }
    };
    let files = reductio::files::discover(&opts.paths, &[]).unwrap_or_else(|e| {
        eprintln!("bench_front: {e}");
        std::process::exit(2)
    });
    let mut texts = Vec::with_capacity(files.len());
    let (mut bytes, mut lines) = (0usize, 0usize);
    for p in &files {
        match reductio::files::read_source(p) {
            Ok((text, _lossy)) => {
                bytes += text.len();
                lines += line_count(&text);
                texts.push((p.clone(), text));
            }
            Err(e) => eprintln!("bench_front: {e}"),
        }
    }
    // Workers get the stack `reductio check` gives its own (deep expressions recurse).
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs)
        .stack_size(32 << 20)
        .build()
        .expect("a thread pool");

    let mut runs = Vec::new();
    let mut parse_s = Vec::new();
    let mut front_s = Vec::new();
    let mut phases: [Vec<f64>; 4] = Default::default();
    let mut functions = 0;
    for run in 0..opts.runs {
        let p = parse_only(&texts, &pool);
        let f = front(&texts, &pool);
        eprintln!(
            "bench_front: run {}/{}: parse {p:.3} s, parse+lower {:.3} s",
            run + 1,
            opts.runs,
            f.total
        );
        functions = f.functions;
        parse_s.push(p);
        front_s.push(f.total);
        for (k, v) in [f.load, f.parse_items, f.type_env, f.lower]
            .into_iter()
            .enumerate()
        {
            phases[k].push(v);
        }
        runs.push(json!({
            "parse_s": p,
            "front_s": f.total,
            "load_s": f.load,
            "parse_items_s": f.parse_items,
            "type_env_s": f.type_env,
            "lower_s": f.lower,
        }));
    }
    let [load, parse_items, type_env, lower] = phases.map(median);
    let parse = median(parse_s);
    let front_total = median(front_s);
    let per_s = |s: f64| if s > 0.0 { lines as f64 / s } else { 0.0 };
    let c_files = files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .count();
    let out: Value = json!({
        "tool": "bench_front",
        "jobs": opts.jobs,
        "runs": opts.runs,
        "files": texts.len(),
        "c_files": c_files,
        "h_files": texts.len() - c_files,
        "bytes": bytes,
        "lines": lines,
        "functions": functions,
        "parse_s": parse,
        "parse_loc_per_s": per_s(parse),
        "front_s": front_total,
        "front_loc_per_s": per_s(front_total),
        "front_phases_s": {
            "load": load,
            "parse_items": parse_items,
            "type_env": type_env,
            "lower": lower,
        },
        "all_runs": runs,
        "peak_rss_kib": peak_rss_kib(),
    });
    println!("{}", serde_json::to_string_pretty(&out).expect("JSON"));
}

//! The full check (every probe) of a corpus, for the benchmark harness (`bench/run.sh`, see
//! bench/README.md), as JSON on stdout.
//!
//! ```text
//! bench_check PATH... [--jobs N] [--budget N]
//! ```
//!
//! It does what `reductio check` does (`files::discover`, `batch::load`, then every
//! `db::probe_verdict` on a rayon pool with one database clone per worker and 32 MiB stacks),
//! in timed phases so the figures can be read apart:
//! 1. `load`: discover and read the files into a database;
//! 2. `front`: parse, collect items, build the type environment, lower every function and
//!    list its probe sites (per file, in parallel);
//! 3. `workspace`: the whole-program queries every probe reads (call graph, type classes,
//!    MOD table);
//! 4. `probes`: every probe, each timed on its own.
//!
//! `reductio check` computes the same queries lazily, inside its first probes; the total is
//! the same work. Reported: wall time, lines/s, probes/s, verdicts by reason, the per-probe
//! cost distribution (transfer-function applications and milliseconds: median, p95, max), the
//! share of probes abandoned on budget, CPU time (user + system, from `/proc/self/stat`: on a
//! shared machine it varies less than wall time), peak RSS (`VmHWM`), and per file the time of its
//! front end and of its probes (the harness uses these to compare with peers on the files
//! they could run).

mod common;

use common::percentile;
use rayon::prelude::*;
use reductio::config::Config;
use reductio::db::{self, Db, VerdictKind};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// User + system CPU time of this process so far, in seconds (clock ticks of 10 ms).
fn cpu_s() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = stat.rfind(')').map_or("", |i| &stat[i + 1..]);
    let f: Vec<u64> = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|x| x.parse().ok())
        .collect();
    f.iter().sum::<u64>() as f64 / 100.0
}

fn line_count(text: &str) -> usize {
    let n = text.bytes().filter(|&b| b == b'\n').count();
    n + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

fn since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64()
}

fn main() {
    let mut paths = Vec::new();
    let mut jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut cfg = Config::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--jobs" => {
                jobs = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|n| *n > 0)
                    .unwrap_or(jobs)
            }
            "--budget" => {
                if let Some(b) = args.next().and_then(|n| n.parse().ok()) {
                    cfg.budget.transfers = b;
                }
            }
            s if s.starts_with("--") => {
                eprintln!("bench_check: unknown option {s}");
                std::process::exit(2);
            }
            _ => paths.push(PathBuf::from(a)),
        }
    }
    if paths.is_empty() {
        eprintln!("usage: bench_check PATH... [--jobs N] [--budget N]");
        std::process::exit(2);
    }
    let budget = cfg.budget.transfers;

    // 1. Load.
    let started = Instant::now();
    let cpu_start = cpu_s();
    let files = reductio::files::discover(&paths, &cfg.exclude).unwrap_or_else(|e| {
        eprintln!("bench_check: {e}");
        std::process::exit(2)
    });
    let (database, inputs) = reductio::batch::load(cfg, &files).unwrap_or_else(|e| {
        eprintln!("bench_check: {e}");
        std::process::exit(2)
    });
    let d: &dyn Db = &database;
    let file_lines: Vec<usize> = inputs.iter().map(|f| line_count(f.text(d))).collect();
    let lines: usize = file_lines.iter().sum();
    let load_s = since(started);

    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .stack_size(32 << 20)
        .build()
        .expect("a thread pool");
    // A database handle is Send but not Sync: each worker clones its own from behind a lock.
    let shared = Mutex::new(database.clone());
    let clone = || shared.lock().map(|d| d.clone()).unwrap_or_default();

    // 2. Front end, per file. Items first (the type environment needs every file's), then
    //    lowering and probe sites.
    let t = Instant::now();
    let mut file_front: Vec<f64> = pool.install(|| {
        inputs
            .par_iter()
            .map_init(clone, |db, &f| {
                let t = Instant::now();
                let _ = db::parsed(db, f);
                let _ = db::file_functions(db, f);
                since(t)
            })
            .collect()
    });
    let _ = db::type_env(d, d.workspace());
    let lowering: Vec<(f64, usize)> = pool.install(|| {
        inputs
            .par_iter()
            .map_init(clone, |db, &f| {
                let t = Instant::now();
                let mut probes = 0;
                for func in db::file_functions(db, f) {
                    let _ = db::lowered(db, *func);
                    probes += db::function_probes(db, *func).len();
                }
                (since(t), probes)
            })
            .collect()
    });
    for (k, (s, _)) in lowering.iter().enumerate() {
        file_front[k] += s;
    }
    let front_s = since(t);

    // 3. Whole-program queries.
    let t = Instant::now();
    let ws = d.workspace();
    let _ = db::call_graph(d, ws);
    let _ = db::type_classes(d, ws);
    let _ = db::mod_table(d, ws);
    let workspace_s = since(t);

    // 4. Every probe, timed.
    let mut work: Vec<(usize, usize, u32)> = Vec::new();
    let mut functions = 0;
    for (i, file) in inputs.iter().enumerate() {
        for (j, f) in db::file_functions(d, *file).iter().enumerate() {
            functions += 1;
            for k in 0..db::function_probes(d, *f).len() {
                work.push((i, j, k as u32));
            }
        }
    }
    let t = Instant::now();
    let cpu_probes = cpu_s();
    let results: Vec<(usize, f64, VerdictKind, Option<String>, u32)> = pool.install(|| {
        work.par_iter()
            .map_init(clone, |db, &(i, j, k)| {
                let t = Instant::now();
                let f = db::file_functions(db, inputs[i])[j];
                let finding = db::probe_verdict(db, f, k);
                (
                    i,
                    since(t),
                    finding.verdict,
                    finding.reason.clone(),
                    finding.transfers,
                )
            })
            .collect()
    });
    let probes_s = since(t);
    let wall = since(started);
    let cpu_end = cpu_s();

    let mut verdicts: BTreeMap<String, usize> = BTreeMap::new();
    let mut transfers: Vec<u32> = Vec::with_capacity(results.len());
    let mut millis: Vec<f64> = Vec::with_capacity(results.len());
    let mut file_probe_s = vec![0.0; inputs.len()];
    let mut file_probes = vec![0usize; inputs.len()];
    for (i, s, verdict, reason, cost) in &results {
        let key = match verdict {
            VerdictKind::Unproved => {
                format!("unproved ({})", reason.as_deref().unwrap_or("unknown"))
            }
            v => v.as_str().to_string(),
        };
        *verdicts.entry(key).or_default() += 1;
        transfers.push(*cost);
        millis.push(s * 1e3);
        file_probe_s[*i] += s;
        file_probes[*i] += 1;
    }
    transfers.sort_unstable();
    millis.sort_by(f64::total_cmp);
    let abandoned = verdicts.get("unproved (budget)").copied().unwrap_or(0);
    let n = results.len();
    let per_file: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(i, f)| {
            json!({
                "path": f.path(d).display().to_string(),
                "lines": file_lines[i],
                "front_s": file_front[i],
                "probe_s": file_probe_s[i],
                "probes": file_probes[i],
            })
        })
        .collect();
    let out = json!({
        "tool": "bench_check",
        "jobs": jobs,
        "budget_transfers": budget,
        "files": inputs.len(),
        "lines": lines,
        "functions": functions,
        "probes": n,
        "verdicts": verdicts,
        "wall_s": wall,
        "phases_s": {
            "load": load_s,
            "front": front_s,
            "workspace": workspace_s,
            "probes": probes_s,
        },
        "cpu_s": cpu_end - cpu_start,
        "cpu_probes_s": cpu_end - cpu_probes,
        "loc_per_s": lines as f64 / wall.max(1e-9),
        "probes_per_s": n as f64 / wall.max(1e-9),
        "transfers": {
            "median": percentile(&transfers, 50.0),
            "p95": percentile(&transfers, 95.0),
            "max": transfers.last().copied().unwrap_or(0),
        },
        "probe_ms": {
            "median": percentile(&millis, 50.0),
            "p95": percentile(&millis, 95.0),
            "max": millis.last().copied().unwrap_or(0.0),
            "total": millis.iter().sum::<f64>(),
        },
        "abandoned_on_budget": abandoned,
        "abandoned_share": abandoned as f64 / n.max(1) as f64,
        "peak_rss_kib": peak_rss_kib(),
        "per_file": per_file,
    });
    println!("{}", serde_json::to_string_pretty(&out).expect("JSON"));
}

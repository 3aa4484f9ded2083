//! `cargo run --release --example check_stats -- PATH... [--jobs N] [--budget N]`: run every
//! probe of a corpus (as `reductio check` does) and print throughput and per-probe cost
//! figures: files, lines, functions, probes, verdicts by reason, wall time, lines/s,
//! probes/s, transfer-function applications per probe (median, p95, max), the share of
//! probes abandoned on budget, and peak RSS.

use reductio::config::Config;
use reductio::db::VerdictKind;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let mut paths = Vec::new();
    let mut jobs = None;
    let mut cfg = Config::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--jobs" => jobs = args.next().and_then(|n| n.parse().ok()),
            "--budget" => {
                if let Some(b) = args.next().and_then(|n| n.parse().ok()) {
                    cfg.budget.transfers = b;
                }
            }
            _ => paths.push(PathBuf::from(a)),
        }
    }
    if paths.is_empty() {
        eprintln!("usage: check_stats PATH... [--jobs N] [--budget N]");
        std::process::exit(2);
    }
    let started = Instant::now();
    let files = reductio::files::discover(&paths, &cfg.exclude).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let lines: usize = files
        .iter()
        .filter_map(|f| std::fs::read(f).ok())
        .map(|b| b.iter().filter(|c| **c == b'\n').count())
        .sum();
    let (database, inputs) = reductio::batch::load(cfg, &files).expect("load");
    let (findings, functions) =
        reductio::batch::run_probes(&database, &inputs, jobs, false).expect("run");
    let wall = started.elapsed().as_secs_f64();
    let mut by: BTreeMap<String, usize> = BTreeMap::new();
    let mut costs: Vec<u32> = Vec::with_capacity(findings.len());
    for f in &findings {
        let key = match f.verdict {
            VerdictKind::Unproved => format!("unproved ({})", f.reason.as_deref().unwrap_or("?")),
            v => v.as_str().to_string(),
        };
        *by.entry(key).or_default() += 1;
        costs.push(f.transfers);
    }
    costs.sort_unstable();
    let pct = |p: f64| {
        costs
            .get(((costs.len() as f64 - 1.0) * p) as usize)
            .copied()
            .unwrap_or(0)
    };
    let budget = by.get("unproved (budget)").copied().unwrap_or(0);
    println!(
        "files {}  lines {lines}  functions {functions}  probes {}",
        inputs.len(),
        findings.len()
    );
    for (k, v) in &by {
        println!("  {k:<28} {v}");
    }
    println!(
        "wall {wall:.2} s  ({:.0} lines/s, {:.0} probes/s)",
        lines as f64 / wall,
        findings.len() as f64 / wall
    );
    println!(
        "transfers per probe: median {}  p95 {}  max {}  abandoned on budget {:.1}%",
        pct(0.5),
        pct(0.95),
        costs.last().copied().unwrap_or(0),
        100.0 * budget as f64 / findings.len().max(1) as f64
    );
    for f in findings.iter().filter(|f| f.verdict == VerdictKind::Leak) {
        println!(
            "leak {}:{} in {}: {}",
            f.loc.file.display(),
            f.loc.line,
            f.loc.function,
            f.message
        );
        for s in &f.trace {
            println!("    {}:{}: {}", s.loc.file.display(), s.loc.line, s.note);
        }
    }
    if let Ok(status) = std::fs::read_to_string("/proc/self/status")
        && let Some(l) = status.lines().find(|l| l.starts_with("VmHWM"))
    {
        println!("peak RSS {}", l.trim_start_matches("VmHWM:").trim());
    }
}

//! Ground truth for the paper fixtures by concrete execution: for each routine of
//! `test-fixtures/paper/` (Figure 6 of Orlovich & Rugina), can it leak for SOME input heap?
//!
//! Each fixture has an adapter in `tests/paper_inputs/` that includes the fixture and the
//! generic driver `tests/paper_inputs/driver.h` (its header comment has the details). The
//! driver runs the fixture's entry function on thousands of small random heaps (1..5 nodes of
//! the fixture's struct, every pointer field NULL or pointing to a node, so cyclic, shared and
//! inconsistent structures are generated as well as well-formed ones; int fields and int
//! arguments in -2..5), with the nodes not reachable from the arguments freed before the call.
//! After the call the only root is the returned pointer; a block that is unreachable from it
//! leaked. LeakSanitizer (`__lsan_do_recoverable_leak_check`) decides, and a BFS over the
//! struct's pointer fields in the driver must agree with it. Trials that do not terminate
//! (step limit, recursion depth), dereference NULL or otherwise crash are discarded.
//!
//! Leaks are of two kinds. A *referencing* leak leaves a block that nothing points to any
//! more: some statement lost its last reference. That is the model of the paper and of the
//! fixtures' expectations (test-fixtures/README.md: "referencing leaks only"; garbage cycles
//! are outside it). A *cycle-only* leak leaves only unreachable blocks that are still pointed
//! to by an unreachable block, themselves included (a garbage cycle and what hangs off it):
//! LeakSanitizer counts it, the referencing model cannot see it.
//!
//! The test fails when a fixture whose expectations are all `proved` (`// mode: strict`
//! without `leak` or `unproved` annotations) has a referencing leak on some input: its
//! witness (the heap, the arguments, the heap after the call, the leaked nodes) is printed.
//! Cycle-only leaks of such a fixture are printed as a note (with
//! `REDUCTIO_PAPER_INPUT_MODEL=reachability` they fail the test too). For the fixtures that
//! expect `unproved input-dependent` it only reports whether a leaking input was found. As a
//! check of the oracle itself, a fixture that expects a `leak` must have a referencing leak on
//! some input, and LeakSanitizer and the BFS must never disagree.
//!
//! `cargo test --release --test paper_inputs -- --nocapture` prints one summary line per
//! routine. Environment: `REDUCTIO_PAPER_INPUT_TRIALS` (trials per routine, default 3000),
//! `REDUCTIO_PAPER_INPUT_WITNESSES` (witnesses printed per routine and kind of leak, default
//! 3), `REDUCTIO_PAPER_INPUT_SEED` (one seed for every routine; default: a hash of its name),
//! `REDUCTIO_PAPER_INPUT_JOBS` (routines run at once, default 2),
//! `REDUCTIO_PAPER_INPUT_MODEL` (`referencing`, the default, or `reachability`).

use reductio::db::VerdictKind;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

#[path = "common/cc.rs"]
mod cc;
#[path = "common/expectations.rs"]
mod expectations;
use cc::{env_u64, gcc, work_dir};
use expectations::{Expect, parse_expectations};

const CFLAGS: &[&str] = &[
    "-O0",
    "-g",
    "-fsanitize=address",
    "-fsanitize-coverage=trace-pc",
    "-fno-omit-frame-pointer",
    "-w",
];

/// The driver sets the same defaults itself (`__asan_default_options`); the environment wins
/// over them, so they are spelled out here too. `handle_segv=0` lets the driver catch NULL
/// dereferences; stacks and registers are not roots (the roots are the driver's globals).
const ASAN_OPTIONS: &str = "detect_leaks=1:handle_segv=0:handle_sigbus=0:\
                            allow_user_segv_handler=1:symbolize=0:print_summary=0:exitcode=66";
const LSAN_OPTIONS: &str = "use_stacks=0:use_registers=0:exitcode=23";

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../test-fixtures/paper")
}

fn adapters_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/paper_inputs")
}

/// Whether gcc can build a program with AddressSanitizer (LeakSanitizer) and the coverage hook.
fn gcc_with_asan() -> bool {
    let dir = work_dir("paper_inputs");
    let src = dir.join("probe.c");
    let ok = std::fs::write(
        &src,
        "#include <sanitizer/lsan_interface.h>\n\
         __attribute__((no_sanitize_coverage)) void __sanitizer_cov_trace_pc(void) {}\n\
         int main(void) { return __lsan_do_recoverable_leak_check(); }\n",
    )
    .is_ok()
        && gcc(CFLAGS, &[src.as_path()], &dir.join("probe")).is_ok();
    let _ = std::fs::remove_dir_all(&dir);
    ok
}

/// What one routine's driver printed.
struct Outcome {
    name: String,
    /// Strict, and no `leak` or `unproved` expectation: it must never leak.
    must_not_leak: bool,
    /// It expects a `leak`: the oracle must find one (a check of the oracle).
    expects_leak: bool,
    expected: Vec<Expect>,
    summary: BTreeMap<String, u64>,
    /// `WITNESS … END` and `MISMATCH … END` blocks, as printed.
    witnesses: Vec<String>,
    mismatches: Vec<String>,
    seconds: f64,
}

impl Outcome {
    fn get(&self, key: &str) -> u64 {
        self.summary.get(key).copied().unwrap_or(0)
    }
}

/// A driver's output: its SUMMARY fields, its `WITNESS … END` and `MISMATCH … END` blocks.
struct Parsed {
    summary: BTreeMap<String, u64>,
    witnesses: Vec<String>,
    mismatches: Vec<String>,
}

fn parse_output(stdout: &str) -> Result<Parsed, String> {
    let mut summary = None;
    let mut witnesses = Vec::new();
    let mut mismatches = Vec::new();
    let mut block: Option<(bool, String)> = None;
    for line in stdout.lines() {
        if let Some((is_witness, text)) = block.as_mut() {
            text.push_str(line);
            text.push('\n');
            if line == "END" {
                let (is_witness, text) = (*is_witness, std::mem::take(text));
                if is_witness {
                    witnesses.push(text);
                } else {
                    mismatches.push(text);
                }
                block = None;
            }
            continue;
        }
        if line.starts_with("WITNESS ") || line.starts_with("MISMATCH ") {
            block = Some((line.starts_with("WITNESS "), format!("{line}\n")));
        } else if let Some(rest) = line.strip_prefix("SUMMARY ") {
            let mut fields = BTreeMap::new();
            for word in rest.split_whitespace().skip(1) {
                if let Some((k, v)) = word.split_once('=')
                    && let Ok(v) = v.parse()
                {
                    fields.insert(k.to_string(), v);
                }
            }
            summary = Some(fields);
        }
    }
    let summary = summary.ok_or_else(|| format!("no SUMMARY line in:\n{stdout}"))?;
    for key in [
        "trials",
        "completed",
        "discarded",
        "leaking",
        "referencing",
        "cycle_only",
        "mismatches",
    ] {
        if !summary.contains_key(key) {
            return Err(format!("SUMMARY without {key}:\n{stdout}"));
        }
    }
    Ok(Parsed {
        summary,
        witnesses,
        mismatches,
    })
}

fn run_routine(
    name: &str,
    dir: &Path,
    trials: u64,
    witnesses: u64,
    seed: Option<u64>,
) -> Result<Outcome, String> {
    let started = Instant::now();
    let fixture = fixtures_dir().join(format!("{name}.c"));
    let text = std::fs::read_to_string(&fixture).map_err(|e| format!("{name}: {e}"))?;
    let (strict, expected) = parse_expectations(&text);
    let kind = |k: VerdictKind| expected.iter().any(|e| e.verdict == k);
    let exe = dir.join(name);
    gcc(
        CFLAGS,
        &[adapters_dir().join(format!("{name}.c")).as_path()],
        &exe,
    )?;
    let mut cmd = Command::new(&exe);
    cmd.arg(trials.to_string()).arg(witnesses.to_string());
    if let Some(seed) = seed {
        cmd.arg(seed.to_string());
    }
    let out = cmd
        .env("ASAN_OPTIONS", ASAN_OPTIONS)
        .env("LSAN_OPTIONS", LSAN_OPTIONS)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "{name}: the driver exited with {:?}:\n{stdout}\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let parsed = parse_output(&stdout).map_err(|e| format!("{name}: {e}"))?;
    let _ = std::fs::remove_file(&exe);
    Ok(Outcome {
        name: name.to_string(),
        must_not_leak: strict && !kind(VerdictKind::Leak) && !kind(VerdictKind::Unproved),
        expects_leak: kind(VerdictKind::Leak),
        expected,
        summary: parsed.summary,
        witnesses: parsed.witnesses,
        mismatches: parsed.mismatches,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The fixtures' names (file stems), sorted.
fn fixture_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures_dir())
        .expect("test-fixtures/paper exists")
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let p = e.path();
            (p.extension()? == "c").then(|| p.file_stem()?.to_str().map(String::from))?
        })
        .collect();
    names.sort();
    names
}

fn expectation_text(o: &Outcome) -> String {
    if o.must_not_leak {
        "all proved".to_string()
    } else {
        // Each annotation with the fixture lines that carry it.
        let mut lines: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for e in &o.expected {
            let text = format!("{} {}", e.verdict.as_str(), e.what);
            lines
                .entry(text.trim_end().to_string())
                .or_default()
                .push(e.line.to_string());
        }
        lines
            .iter()
            .map(|(e, at)| format!("{e} (line {})", at.join(", ")))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[test]
fn paper_routines_leak_only_where_their_fixtures_say() {
    assert!(
        gcc_with_asan(),
        "this check needs gcc with -fsanitize=address (LeakSanitizer) and \
         -fsanitize-coverage=trace-pc"
    );
    let names = fixture_names();
    assert_eq!(names.len(), 19, "Figure 6 has 19 routines: {names:?}");
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !adapters_dir().join(format!("{n}.c")).exists())
        .collect();
    assert!(
        missing.is_empty(),
        "fixtures without an adapter in tests/paper_inputs/: {missing:?}"
    );

    let trials = env_u64("REDUCTIO_PAPER_INPUT_TRIALS", 3000).max(1);
    let witnesses = env_u64("REDUCTIO_PAPER_INPUT_WITNESSES", 3);
    let seed = std::env::var("REDUCTIO_PAPER_INPUT_SEED")
        .ok()
        .and_then(|v| v.parse().ok());
    let jobs = env_u64("REDUCTIO_PAPER_INPUT_JOBS", 2).max(1) as usize;
    let started = Instant::now();
    let dir = work_dir("paper_inputs");
    let next = AtomicUsize::new(0);
    let results: Mutex<BTreeMap<String, Result<Outcome, String>>> = Mutex::new(BTreeMap::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.min(names.len()) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(name) = names.get(i) else {
                        break;
                    };
                    let r = run_routine(name, &dir, trials, witnesses, seed);
                    results.lock().unwrap().insert(name.clone(), r);
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
    let results = results.into_inner().unwrap();

    let reachability = std::env::var("REDUCTIO_PAPER_INPUT_MODEL").as_deref() == Ok("reachability");
    let mut failures = Vec::new();
    println!(
        "paper inputs: {trials} trials per routine, {:.1} s; leak model of the check: {}",
        started.elapsed().as_secs_f64(),
        if reachability {
            "reachability (every leak LeakSanitizer sees)"
        } else {
            "referencing (garbage cycles are not leaks)"
        }
    );
    for (name, r) in &results {
        let o = match r {
            Ok(o) => o,
            Err(e) => {
                println!("{name}: harness error: {e}");
                failures.push(format!("{name}: harness error"));
                continue;
            }
        };
        let (leaking, referencing, cycles) =
            (o.get("leaking"), o.get("referencing"), o.get("cycle_only"));
        let counted = if reachability { leaking } else { referencing };
        let verdict = match (counted > 0, o.must_not_leak) {
            (true, true) => "LEAKS, but every probe is expected proved",
            (false, true) if cycles > 0 => {
                "no referencing leak (as expected); note: garbage cycles leak"
            }
            (false, true) => "no leak found (as expected)",
            (true, false) => "leaks (expected)",
            (false, false) if o.expects_leak => "NO LEAK FOUND, but a leak is expected",
            (false, false) => "no leak found",
        };
        println!(
            "{:<12} trials {:>5}  run {:>5}  discarded {:>5} (non-terminating {}, too deep {}, \
             NULL dereference {}, crash {}, timeout {})  leaking {:>5} (referencing {}, \
             cycle-only {})  [{:.1} s]  expected: {}  => {verdict}",
            o.name,
            o.get("trials"),
            o.get("completed"),
            o.get("discarded"),
            o.get("steps"),
            o.get("stack"),
            o.get("segv"),
            o.get("crash") + o.get("overflow"),
            o.get("timeout"),
            leaking,
            referencing,
            cycles,
            o.seconds,
            expectation_text(o),
        );
        for w in &o.witnesses {
            print!("{w}");
        }
        for m in &o.mismatches {
            print!("{m}");
        }
        if o.get("completed") == 0 {
            failures.push(format!("{name}: no trial ran to completion"));
        }
        if o.get("mismatches") > 0 {
            failures.push(format!(
                "{name}: LeakSanitizer and the driver's BFS disagree on {} trial(s) (the oracle \
                 is unreliable; see MISMATCH above)",
                o.get("mismatches")
            ));
        }
        if o.must_not_leak && counted > 0 {
            failures.push(format!(
                "{name}: {} on {counted} of {} inputs although every probe of the fixture is \
                 expected proved (see the WITNESS blocks above)",
                if reachability {
                    "leaks"
                } else {
                    "loses the last reference to a block"
                },
                o.get("completed")
            ));
        }
        if o.expects_leak && referencing == 0 {
            failures.push(format!(
                "{name}: the fixture expects a leak, but no input leaks (the oracle misses it)"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

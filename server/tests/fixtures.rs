//! Runs every fixture under test-fixtures/ and compares reductio's verdicts with the
//! expectations written in the C files (convention: test-fixtures/README.md). Each file is its
//! own workspace. Prints a per-fixture line, a per-category score and the Figure 6 table.
//!
//! Fixtures that do not pass yet are listed, with the reason, in
//! test-fixtures/known-failures.txt. The test fails when a fixture outside that list fails, and
//! when a listed fixture passes (so the list is always the truth).

use reductio::config::Config;
use reductio::db::{self, Database, Db, Finding, VerdictKind};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[path = "common/expectations.rs"]
mod expectations;
use expectations::parse_expectations;

struct Outcome {
    name: String,
    category: String,
    probes: usize,
    proved: usize,
    leaks: usize,
    unproved: usize,
    problems: Vec<String>,
}

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("test-fixtures")
}

fn analyse(path: &Path) -> Vec<Arc<Finding>> {
    analyse_with(path, Config::default())
}

fn analyse_with(path: &Path, config: Config) -> Vec<Arc<Finding>> {
    analyse_together(&[path.to_path_buf()], config)
        .pop()
        .unwrap_or_default()
}

/// The files of one fixture analysed as one workspace; the findings of each, in order.
fn analyse_together(paths: &[PathBuf], config: Config) -> Vec<Vec<Arc<Finding>>> {
    let mut database = Database::new(config);
    let files: Vec<_> = paths
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).expect("fixture readable");
            database.add_file(p.clone(), text)
        })
        .collect();
    let db: &dyn Db = &database;
    files
        .iter()
        .map(|f| db::file_findings(db, *f).as_ref().clone())
        .collect()
}

/// A directory fixture: `<topic>-leak/` or `<topic>-ok/` (other directories, such as
/// `build/include/`, hold what fixtures include).
fn is_project_fixture(p: &Path) -> bool {
    p.is_dir()
        && p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with("-leak") || n.ends_with("-ok"))
}

fn variable_matches(expected: &str, found: &str) -> bool {
    if expected.is_empty() || expected == found {
        return true;
    }
    // `strdup()` names an ignored result; the finding names the call (`strdup(name)`).
    if let Some(callee) = expected.strip_suffix("()") {
        return found.starts_with(&format!("{callee}(")) || found == callee;
    }
    false
}

/// A fixture: one `.c` file, or a directory `<name>-leak/` or `<name>-ok/` whose `.c` files
/// are analysed together as one workspace (each file's expectations against its findings).
fn check_fixture(path: &Path, category: &str) -> Outcome {
    let name = format!(
        "{category}/{}",
        path.file_stem().unwrap_or_default().to_string_lossy()
    );
    let paths: Vec<PathBuf> = if path.is_dir() {
        let mut v: Vec<PathBuf> = std::fs::read_dir(path)
            .expect("fixture dir")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("c"))
            .collect();
        v.sort();
        v
    } else {
        vec![path.to_path_buf()]
    };
    let texts: Vec<String> = paths
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("fixture readable"))
        .collect();
    // Strict (paper) fixtures use the paper's probe placement, formals included.
    let strict = texts.iter().any(|t| parse_expectations(t).0);
    let config = Config {
        probe_parameters: strict,
        ..Config::default()
    };
    let all = analyse_together(&paths, config);
    let mut outcome = Outcome {
        name,
        category: category.to_string(),
        probes: 0,
        proved: 0,
        leaks: 0,
        unproved: 0,
        problems: Vec::new(),
    };
    for ((path, text), findings) in paths.iter().zip(&texts).zip(&all) {
        let prefix = if paths.len() > 1 {
            format!(
                "{}: ",
                path.file_name().unwrap_or_default().to_string_lossy()
            )
        } else {
            String::new()
        };
        let o = check_file(text, findings, strict);
        outcome.probes += o.probes;
        outcome.proved += o.proved;
        outcome.leaks += o.leaks;
        outcome.unproved += o.unproved;
        outcome
            .problems
            .extend(o.problems.into_iter().map(|p| format!("{prefix}{p}")));
    }
    outcome
}

/// One file's findings against the expectations of its text.
fn check_file(text: &str, findings: &[Arc<Finding>], strict: bool) -> Outcome {
    let (_, expects) = parse_expectations(text);
    let name = String::new();
    let category = "";
    let mut used = vec![false; findings.len()];
    let mut problems = Vec::new();
    for e in &expects {
        let hit = findings.iter().enumerate().position(|(i, f)| {
            !used[i]
                && f.loc.line <= e.line
                && e.line <= f.loc.end_line
                && f.verdict == e.verdict
                && match e.verdict {
                    VerdictKind::Leak => variable_matches(&e.what, &f.variable),
                    VerdictKind::Unproved => {
                        e.what.is_empty() || f.reason.as_deref() == Some(e.what.as_str())
                    }
                    VerdictKind::Proved => true,
                }
        });
        match hit {
            Some(i) => used[i] = true,
            None => {
                let found: Vec<String> = findings
                    .iter()
                    .filter(|f| f.loc.line <= e.line && e.line <= f.loc.end_line)
                    .map(|f| format!("{} `{}`", f.verdict.as_str(), f.variable))
                    .collect();
                problems.push(format!(
                    "line {}: expected {} {} — found [{}]",
                    e.line,
                    e.verdict.as_str(),
                    e.what,
                    found.join(", ")
                ));
            }
        }
    }
    for (i, f) in findings.iter().enumerate() {
        if used[i] {
            continue;
        }
        let bad = match f.verdict {
            VerdictKind::Leak => true,
            VerdictKind::Unproved => strict,
            VerdictKind::Proved => false,
        };
        if bad {
            problems.push(format!(
                "line {}: unexpected {} `{}` ({}): {}",
                f.loc.line,
                f.verdict.as_str(),
                f.variable,
                f.probe.as_str(),
                f.message
            ));
        }
    }
    Outcome {
        name,
        category: category.to_string(),
        probes: findings.len(),
        proved: findings
            .iter()
            .filter(|f| f.verdict == VerdictKind::Proved)
            .count(),
        leaks: findings
            .iter()
            .filter(|f| f.verdict == VerdictKind::Leak)
            .count(),
        unproved: findings
            .iter()
            .filter(|f| f.verdict == VerdictKind::Unproved)
            .count(),
        problems,
    }
}

fn known_failures() -> BTreeMap<String, String> {
    let path = fixtures_dir().join("known-failures.txt");
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|l| match l.split_once(' ') {
            Some((n, why)) => (n.trim().to_string(), why.trim().to_string()),
            None => (l.trim().to_string(), String::new()),
        })
        .collect()
}

/// The paper's Figure 6: probes total and warnings for each routine.
const FIGURE_6: &[(&str, u32, &str)] = &[
    ("si-create", 5, "0/0"),
    ("si-delete", 11, "0/0"),
    ("si-insert", 13, "1/0"),
    ("si-reverse", 9, "0/0"),
    ("si-rotate", 6, "1/1"),
    ("si-merge", 16, "0/0"),
    ("sr-append", 11, "0/0"),
    ("sr-insert", 11, "2/0"),
    ("sr-reverse", 11, "0/0"),
    ("sr-rev-leak", 13, "1/1"),
    ("di-delete", 9, "2/2"),
    ("di-prepend", 7, "1/1"),
    ("di-reverse", 7, "0/0"),
    ("di-merge", 19, "0/0"),
    ("avl-rotate", 6, "0/0"),
    ("avl-balance", 6, "1/0"),
    ("avl-insert", 31, "2/0"),
    ("dsw-list", 14, "0/0"),
    ("dsw-tree", 18, "1/0"),
];

#[test]
fn fixtures_match_their_expectations() {
    let root = fixtures_dir();
    let mut outcomes = Vec::new();
    let mut categories: Vec<String> = std::fs::read_dir(&root)
        .expect("test-fixtures exists")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    categories.sort();
    for cat in &categories {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(cat))
            .expect("category dir")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension().and_then(|e| e.to_str()) == Some("c") || is_project_fixture(p)
            })
            .collect();
        files.sort();
        for f in files {
            outcomes.push(check_fixture(&f, cat));
        }
    }
    assert!(
        !outcomes.is_empty(),
        "no fixtures found under {}",
        root.display()
    );

    let known = known_failures();
    let mut report = String::new();
    let mut unexpected_failures = Vec::new();
    let mut unexpected_passes = Vec::new();
    for o in &outcomes {
        let pass = o.problems.is_empty();
        let status = match (pass, known.contains_key(&o.name)) {
            (true, false) => "pass",
            (true, true) => {
                unexpected_passes.push(o.name.clone());
                "PASS (listed as a known failure)"
            }
            (false, true) => "known failure",
            (false, false) => {
                unexpected_failures.push(o.name.clone());
                "FAIL"
            }
        };
        report.push_str(&format!(
            "{:<36} {:<14} probes {:>3}  proved {:>3}  leak {:>2}  unproved {:>2}\n",
            o.name, status, o.probes, o.proved, o.leaks, o.unproved
        ));
        for p in &o.problems {
            report.push_str(&format!("    {p}\n"));
        }
    }
    report.push_str("\nscore per category:\n");
    for cat in &categories {
        let of: Vec<&Outcome> = outcomes.iter().filter(|o| &o.category == cat).collect();
        let passed = of.iter().filter(|o| o.problems.is_empty()).count();
        let probes: usize = of.iter().map(|o| o.probes).sum();
        let unproved: usize = of.iter().map(|o| o.unproved).sum();
        report.push_str(&format!(
            "  {cat:<10} {passed}/{} fixtures pass; {probes} probes, {unproved} unproved\n",
            of.len()
        ));
    }
    report.push_str("\nFigure 6 beside reductio (paper probes, paper warn/leak | probes, proved, leak, unproved):\n");
    for (name, probes, warn) in FIGURE_6 {
        if let Some(o) = outcomes.iter().find(|o| o.name == format!("paper/{name}")) {
            report.push_str(&format!(
                "  {name:<12} {probes:>3} {warn:>5} | {:>3} {:>3} {:>3} {:>3}\n",
                o.probes, o.proved, o.leaks, o.unproved
            ));
        }
    }
    println!("{report}");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fixture-report.txt");
    let _ = std::fs::write(&out, &report);
    let stale: BTreeSet<&String> = known
        .keys()
        .filter(|k| !outcomes.iter().any(|o| &o.name == *k))
        .collect();
    assert!(
        unexpected_failures.is_empty() && unexpected_passes.is_empty() && stale.is_empty(),
        "fixtures failing that are not known failures: {unexpected_failures:?}; \
         known failures that now pass (remove them from known-failures.txt): \
         {unexpected_passes:?}; unknown names in known-failures.txt: {stale:?}"
    );
}

/// The worklist order must not turn a proof into a leak or back: run every fixture FIFO and
/// LIFO. (An `unproved` on one side is allowed: the budget may run out at different points.)
#[test]
fn verdicts_do_not_depend_on_worklist_order() {
    let root = fixtures_dir();
    let mut differences = Vec::new();
    for cat in ["paper", "idioms"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(cat))
            .expect("category dir")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("c"))
            .collect();
        files.sort();
        for f in files {
            let fifo = analyse(&f);
            let lifo = analyse_with(
                &f,
                Config {
                    worklist_lifo: true,
                    ..Config::default()
                },
            );
            for (a, b) in fifo.iter().zip(lifo.iter()) {
                let conflict = matches!(
                    (a.verdict, b.verdict),
                    (VerdictKind::Proved, VerdictKind::Leak)
                        | (VerdictKind::Leak, VerdictKind::Proved)
                );
                if a.verdict != b.verdict {
                    println!(
                        "order difference {}:{} `{}`: {} vs {}",
                        f.display(),
                        a.loc.line,
                        a.variable,
                        a.verdict.as_str(),
                        b.verdict.as_str()
                    );
                }
                if conflict {
                    differences.push(format!(
                        "{}:{} `{}`: {} (FIFO) vs {} (LIFO)",
                        f.display(),
                        a.loc.line,
                        a.variable,
                        a.verdict.as_str(),
                        b.verdict.as_str()
                    ));
                }
            }
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}

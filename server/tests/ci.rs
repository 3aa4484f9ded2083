//! Teams and CI (issue 20), through the command line as CI runs it: suppressions by comment and
//! by `[[suppress]]` (and unused ones), fingerprints that survive inserted lines, baselines,
//! `--shard I/N` + `merge` equal to the unsharded run (fixtures and, when present, a real
//! corpus project), SARIF checked against the 2.1.0 schema, and the commands of docs/ci.md.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn reductio(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_reductio"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run reductio")
}

/// A fresh directory under the target's scratch space.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> Scratch {
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "ci-{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(root().join("test-fixtures/idioms").join(name)).unwrap()
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "JSON on stdout ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn code(out: &Output) -> Option<i32> {
    out.status.code()
}

/// The report with its one timing value zeroed (two runs never take the same time).
fn untimed(text: &[u8]) -> String {
    String::from_utf8_lossy(text)
        .lines()
        .map(|l| match l.find("\"elapsed_ms\": ") {
            Some(i) => format!("{}\"elapsed_ms\": 0", &l[..i]),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn findings(v: &Value) -> &Vec<Value> {
    v["findings"].as_array().expect("a findings list")
}

/// Insert `new` as whole lines before the first line containing `needle`.
fn insert_before(text: &str, needle: &str, new: &str) -> String {
    let at = text.find(needle).expect("needle in text");
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    format!("{}{new}{}", &text[..start], &text[start..])
}

// ---- suppressions --------------------------------------------------------------------------

#[test]
fn suppressions_by_comment_and_by_config_silence_reports_and_unused_ones_are_listed() {
    let s = scratch("suppress");
    let d = &s.0;
    let a = fixture("error-path-leak.c");
    let b = fixture("loop-overwrite-leak.c");
    std::fs::write(d.join("a.c"), &a).unwrap();
    std::fs::write(d.join("b.c"), &b).unwrap();
    let before = json(&reductio(d, &["check", "--format", "json", "."]));
    let leaks_a: Vec<&Value> = findings(&before)
        .iter()
        .filter(|f| f["file"] == "./a.c")
        .collect();
    let leaks_b: Vec<&Value> = findings(&before)
        .iter()
        .filter(|f| f["file"] == "./b.c")
        .collect();
    assert_eq!(leaks_a.len(), 1, "{before:#}");
    assert!(!leaks_b.is_empty(), "{before:#}");
    let b_function = leaks_b[0]["function"].as_str().unwrap().to_string();

    // a.c: the comment alone on the line above the leak, and a stale one at the top.
    let a2 = insert_before(
        &a,
        "return -1;                              // expect: leak copy",
        "        // reductio-ignore: leak -- the caller treats -1 as fatal and exits\n",
    );
    let a2 = format!("/* reductio-ignore: leak -- nothing is reported here */\n{a2}");
    std::fs::write(d.join("a.c"), &a2).unwrap();
    // b.c: a [[suppress]] entry by function, and one that matches nothing.
    std::fs::write(
        d.join("reductio.toml"),
        format!(
            "[[suppress]]\nfile = \"b.c\"\nfunction = \"{b_function}\"\nreason = \"judged: test code\"\n\n\
             [[suppress]]\nfunction = \"no_such_function\"\nreason = \"stale\"\n"
        ),
    )
    .unwrap();
    let out = reductio(
        d,
        &[
            "check",
            "--format",
            "json",
            "--report-unused-suppressions",
            ".",
        ],
    );
    let v = json(&out);
    let b_left = leaks_b
        .iter()
        .filter(|f| f["function"] != b_function.as_str())
        .count();
    assert_eq!(findings(&v).len(), b_left, "{v:#}");
    assert_eq!(
        code(&out),
        Some(if b_left == 0 { 0 } else { 1 }),
        "suppressed leaks do not change the exit code"
    );
    let suppressed = v["suppressed"].as_array().unwrap();
    assert_eq!(suppressed.len(), 1 + leaks_b.len() - b_left, "{v:#}");
    let by_comment = suppressed.iter().find(|f| f["file"] == "./a.c").unwrap();
    assert_eq!(by_comment["variable"], "copy");
    assert_eq!(
        by_comment["suppression"]["reason"],
        "the caller treats -1 as fatal and exits"
    );
    assert_eq!(by_comment["suppression"]["file"], "./a.c");
    let by_config = suppressed.iter().find(|f| f["file"] == "./b.c").unwrap();
    assert_eq!(by_config["suppression"]["reason"], "judged: test code");
    assert_eq!(by_config["suppression"]["config_entry"], 1);
    // The summary still counts every probe's verdict.
    assert_eq!(v["summary"]["leaks"], before["summary"]["leaks"]);
    let unused = v["unused_suppressions"].as_array().unwrap();
    assert_eq!(unused.len(), 2, "{v:#}");
    assert_eq!(
        (&unused[0]["file"], &unused[0]["line"]),
        (&Value::from("./a.c"), &Value::from(1))
    );
    assert_eq!(unused[1]["config_entry"], 2);
    assert_eq!(unused[1]["reason"], "stale");

    // Text: the leak is gone from the listing and the notes say why.
    let out = reductio(d, &["check", "--report-unused-suppressions", "a.c"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(code(&out), Some(0), "{text}");
    assert!(!text.contains("warning"), "{text}");
    assert!(text.contains("1 report suppressed"), "{text}");
    assert!(
        text.contains("a.c:1: unused suppression (nothing is reported here)"),
        "{text}"
    );

    // A malformed comment is named on stderr and not applied.
    let a3 = a2.replace("-- the caller treats -1 as fatal and exits", "");
    std::fs::write(d.join("a.c"), &a3).unwrap();
    let out = reductio(d, &["check", "--format", "json", "a.c"]);
    assert_eq!(code(&out), Some(1));
    assert_eq!(findings(&json(&out)).len(), 1);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("a.c:") && err.contains("needs a reason"),
        "{err}"
    );
}

#[test]
fn a_bad_suppress_entry_is_a_usage_error() {
    let s = scratch("bad-suppress");
    let d = &s.0;
    std::fs::write(d.join("a.c"), fixture("error-path-leak.c")).unwrap();
    std::fs::write(
        d.join("reductio.toml"),
        "[[suppress]]\nprobe = \"return\"\nreason = \"x\"\n",
    )
    .unwrap();
    let out = reductio(d, &["check", "."]);
    assert_eq!(code(&out), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("[[suppress]] entry 1") && err.contains("`return` is not a probe kind"),
        "{err}"
    );
}

// ---- fingerprints --------------------------------------------------------------------------

#[test]
fn fingerprints_do_not_change_when_lines_are_inserted_above() {
    let s = scratch("fingerprints");
    let d = &s.0;
    let src = fixture("loop-overwrite-leak.c");
    std::fs::write(d.join("f.c"), &src).unwrap();
    let run = || json(&reductio(d, &["check", "--all", "--format", "json", "f.c"]));
    let before = run();
    let fp = |v: &Value| -> Vec<(String, u64)> {
        findings(v)
            .iter()
            .map(|f| {
                (
                    f["fingerprint"].as_str().unwrap().to_string(),
                    f["line"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let old = fp(&before);
    assert!(!old.is_empty());
    let mut distinct: Vec<&String> = old.iter().map(|(f, _)| f).collect();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), old.len(), "fingerprints are distinct");
    // Three lines at the top of the file, and a comment line plus a blank one inside the
    // function just above the first finding (its line is 1-based).
    let first_line = old[0].1 as usize;
    let mut lines: Vec<&str> = src.lines().collect();
    lines.insert(first_line - 1, "    /* a comment inserted above */\n");
    let edited = format!(
        "/* three\n   new lines */\n#include <stddef.h>\n{}\n",
        lines.join("\n")
    );
    std::fs::write(d.join("f.c"), &edited).unwrap();
    let new = fp(&run());
    assert_eq!(
        new.iter().map(|(f, _)| f).collect::<Vec<_>>(),
        old.iter().map(|(f, _)| f).collect::<Vec<_>>()
    );
    assert!(
        new.iter().zip(&old).all(|(n, o)| n.1 >= o.1 + 3),
        "the lines did move: {old:?} -> {new:?}"
    );
    // SARIF carries the same fingerprints.
    let sarif = json(&reductio(
        d,
        &["check", "--all", "--format", "sarif", "f.c"],
    ));
    let in_sarif: Vec<&str> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["partialFingerprints"]["reductio/v1"].as_str().unwrap())
        .collect();
    assert_eq!(
        in_sarif,
        new.iter().map(|(f, _)| f.as_str()).collect::<Vec<_>>()
    );
}

// ---- baselines -----------------------------------------------------------------------------

const NEW_LEAK: &str = "\nint reductio_new_leak(int n)\n{\n    char *p = malloc(n);\n    if (p == NULL)\n        return -1;\n    p[0] = 1;\n    return n;\n}\n";

#[test]
fn a_baseline_run_reports_exactly_the_one_new_leak() {
    let s = scratch("baseline");
    let d = &s.0;
    copy_dir(&root().join("test-fixtures/idioms"), &d.join("src"));
    let out = reductio(
        d,
        &[
            "check",
            "--write-baseline",
            "base.json",
            "--format",
            "sarif",
            "src",
        ],
    );
    assert_eq!(code(&out), Some(1), "the fixtures have leaks");
    std::fs::write(d.join("base.sarif"), &out.stdout).unwrap();
    let base: Value = serde_json::from_slice(&std::fs::read(d.join("base.json")).unwrap()).unwrap();
    let old_leaks = findings(&base).len();
    assert!(old_leaks > 5);

    // Unchanged code: nothing new, all matched, exit 0.
    let out = reductio(
        d,
        &[
            "check",
            "--baseline",
            "base.json",
            "--format",
            "json",
            "src",
        ],
    );
    assert_eq!(code(&out), Some(0));
    let v = json(&out);
    assert!(findings(&v).is_empty(), "{v:#}");
    assert_eq!(v["baseline"]["matched"], old_leaks);
    assert_eq!(v["baseline"]["disappeared"], 0);

    // One new leak, and unrelated lines inserted above old ones.
    let path = d.join("src/error-path-ok.c");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("/* new\n   header */\n{text}{NEW_LEAK}")).unwrap();
    for base in ["base.json", "base.sarif"] {
        let out = reductio(d, &["check", "--baseline", base, "--format", "json", "src"]);
        assert_eq!(code(&out), Some(1), "{base}");
        let v = json(&out);
        let f = findings(&v);
        assert_eq!(f.len(), 1, "{base}: {v:#}");
        assert_eq!(f[0]["function"], "reductio_new_leak");
        assert_eq!(f[0]["variable"], "p");
        assert_eq!(v["baseline"]["matched"], old_leaks, "{base}");
        assert_eq!(v["baseline"]["disappeared"], 0, "{base}");
    }
    // Text says the counts.
    let out = reductio(d, &["check", "--baseline", "base.json", "src"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!(
            "baseline base.json: {old_leaks} matched, 0 disappeared, 1 new"
        )),
        "{text}"
    );
    // Fixing an old leak shows as disappeared.
    let fixed = fixture("error-path-ok.c");
    std::fs::write(d.join("src/error-path-leak.c"), fixed).unwrap();
    let v = json(&reductio(
        d,
        &[
            "check",
            "--baseline",
            "base.json",
            "--format",
            "json",
            "src",
        ],
    ));
    assert_eq!(v["baseline"]["disappeared"], 1, "{v:#}");
    // A baseline that is not a report is a usage error.
    std::fs::write(d.join("junk.json"), "{\"x\": 1}").unwrap();
    let out = reductio(d, &["check", "--baseline", "junk.json", "src"]);
    assert_eq!(code(&out), Some(2));
}

// ---- shards and merge ----------------------------------------------------------------------

/// `check ARGS --shard i/3` for i = 1..3, merged, against `check ARGS`: byte for byte, the
/// `elapsed_ms` value aside. Returns the unsharded report.
fn shards_merge_to_unsharded(dir: &Path, args: &[&str], ext: &str) -> Value {
    let out_dir = scratch("shards");
    let full = reductio(dir, args);
    assert!(matches!(code(&full), Some(0 | 1)), "{full:?}");
    let mut names = Vec::new();
    let mut functions = 0;
    for i in 1..=3 {
        let shard = format!("{i}/3");
        let mut a = args.to_vec();
        a.extend(["--shard", &shard]);
        let out = reductio(dir, &a);
        assert!(matches!(code(&out), Some(0 | 1)), "{out:?}");
        if ext == "json" {
            functions += json(&out)["summary"]["functions"].as_u64().unwrap();
        }
        let name = out_dir.0.join(format!("s{i}.{ext}"));
        std::fs::write(&name, &out.stdout).unwrap();
        names.push(name.display().to_string());
    }
    // Any order of the shard files.
    names.reverse();
    let mut m = vec!["merge"];
    m.extend(names.iter().map(String::as_str));
    let merged = reductio(dir, &m);
    assert_eq!(code(&merged), code(&full), "{merged:?}");
    assert_eq!(untimed(&merged.stdout), untimed(&full.stdout));
    let v = json(&full);
    if ext == "json" {
        assert_eq!(Some(functions), v["summary"]["functions"].as_u64());
        assert!(functions > 0);
    }
    v
}

#[test]
fn three_shards_merged_equal_the_unsharded_report_on_the_fixtures() {
    let r = root();
    for ext in ["json", "sarif"] {
        let v = shards_merge_to_unsharded(&r, &["check", "--format", ext, "test-fixtures"], ext);
        let v_all = shards_merge_to_unsharded(
            &r,
            &["check", "--all", "--format", ext, "test-fixtures"],
            ext,
        );
        if ext == "json" {
            assert!(findings(&v).len() > 10);
            assert!(findings(&v_all).len() > findings(&v).len());
        }
    }
    // With suppressions, unused ones and a baseline, the merge still equals the whole run.
    let s = scratch("shard-extras");
    let d = &s.0;
    copy_dir(&root().join("test-fixtures"), &d.join("t"));
    let out = reductio(d, &["check", "--write-baseline", "base.json", "t"]);
    assert_eq!(code(&out), Some(1));
    let path = d.join("t/idioms/error-path-ok.c");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("{text}{NEW_LEAK}")).unwrap();
    std::fs::write(
        d.join("reductio.toml"),
        "[[suppress]]\nfile = \"t/idioms/goto-cleanup-leak.c\"\nreason = \"judged\"\n\n\
         [[suppress]]\nfunction = \"unused_*\"\nreason = \"stale\"\n",
    )
    .unwrap();
    let leak = d.join("t/idioms/realloc-leak.c");
    let text = std::fs::read_to_string(&leak).unwrap();
    std::fs::write(
        &leak,
        format!("// reductio-ignore: all -- an unused comment\n{text}"),
    )
    .unwrap();
    for ext in ["json", "sarif"] {
        let v = shards_merge_to_unsharded(
            d,
            &[
                "check",
                "--all",
                "--report-unused-suppressions",
                "--baseline",
                "base.json",
                "--format",
                ext,
                "t",
            ],
            ext,
        );
        if ext == "json" {
            assert!(!v["suppressed"].as_array().unwrap().is_empty(), "{v:#}");
            assert_eq!(
                v["unused_suppressions"].as_array().unwrap().len(),
                2,
                "{v:#}"
            );
            assert!(v["baseline"]["matched"].as_u64().unwrap() > 0, "{v:#}");
            assert!(
                findings(&v)
                    .iter()
                    .any(|f| f["function"] == "reductio_new_leak")
            );
        }
    }
}

/// A real project of the corpus (bench/realcode), when its sources are on this machine:
/// `REDUCTIO_REALCODE_SRC` or `bench-data/realcode/src` of the checkout.
#[test]
fn three_shards_merged_equal_the_unsharded_report_on_a_real_project() {
    let src = std::env::var_os("REDUCTIO_REALCODE_SRC")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("bench-data/realcode/src"));
    let project = src.join("libyaml");
    if !project.is_dir() {
        eprintln!(
            "skipped: {} is absent (fetch the corpus with bench/realcode, or set \
             REDUCTIO_REALCODE_SRC)",
            project.display()
        );
        return;
    }
    let v = shards_merge_to_unsharded(
        &project,
        &["check", "--all", "--format", "json", "."],
        "json",
    );
    assert!(v["summary"]["files"].as_u64().unwrap() > 10);
    assert!(findings(&v).len() > 100);
}

#[test]
fn merging_an_incomplete_or_mixed_set_of_shards_is_an_error() {
    let s = scratch("merge-errors");
    let d = &s.0;
    let r = root();
    let write = |name: &str, args: &[&str]| {
        let out = reductio(&r, args);
        std::fs::write(d.join(name), &out.stdout).unwrap();
        d.join(name).display().to_string()
    };
    let s1 = write(
        "s1.json",
        &[
            "check",
            "--format",
            "json",
            "--shard",
            "1/2",
            "test-fixtures",
        ],
    );
    let s2 = write(
        "s2.json",
        &[
            "check",
            "--format",
            "json",
            "--shard",
            "2/2",
            "test-fixtures",
        ],
    );
    let s2s = write(
        "s2.sarif",
        &[
            "check",
            "--format",
            "sarif",
            "--shard",
            "2/2",
            "test-fixtures",
        ],
    );
    let t1 = write(
        "t1.json",
        &[
            "check",
            "--format",
            "json",
            "--shard",
            "1/3",
            "test-fixtures",
        ],
    );
    let whole = write(
        "whole.json",
        &["check", "--format", "json", "test-fixtures"],
    );
    for (args, says) in [
        (vec![s1.as_str()], "2/2 missing"),
        (vec![s1.as_str(), s1.as_str()], "both shard 1"),
        (vec![s1.as_str(), s2s.as_str()], "one format"),
        (vec![s1.as_str(), t1.as_str()], "of 2 shards"),
        (
            vec![whole.as_str(), s2.as_str()],
            "not the report of a shard",
        ),
    ] {
        let mut a = vec!["merge"];
        a.extend(args);
        let out = reductio(d, &a);
        assert_eq!(code(&out), Some(2), "{a:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{a:?}: {err}");
    }
    let out = reductio(d, &["merge", &s1, &s2, "-o", "m.json"]);
    assert_eq!(code(&out), Some(1));
    assert!(d.join("m.json").is_file());
    for bad in ["0/3", "4/3", "1/0", "x/2", "3"] {
        let out = reductio(&r, &["check", "--shard", bad, "test-fixtures"]);
        assert_eq!(code(&out), Some(2), "{bad}");
    }
}

// ---- SARIF schema --------------------------------------------------------------------------

fn sarif_schema() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sarif-schema-2.1.0.json"),
        )
        .unwrap(),
    )
    .unwrap();
    jsonschema::validator_for(&schema).expect("the SARIF schema compiles")
}

fn schema_errors(v: &jsonschema::Validator, log: &Value) -> Vec<String> {
    v.iter_errors(log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn sarif_validates_against_the_2_1_0_schema() {
    let validator = sarif_schema();
    // The validator does reject a broken log (a result without its message).
    let broken = serde_json::json!({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}},
        "results": [{"ruleId": "r", "locations": []}]}]});
    assert!(!schema_errors(&validator, &broken).is_empty());

    let s = scratch("sarif");
    let d = &s.0;
    copy_dir(&root().join("test-fixtures"), &d.join("t"));
    // Suppressions of both kinds, a baseline, and a shard: every optional part of the log.
    let out = reductio(
        d,
        &[
            "check",
            "--format",
            "sarif",
            "--write-baseline",
            "b.json",
            "t",
        ],
    );
    let plain: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(schema_errors(&validator, &plain), Vec::<String>::new());
    std::fs::write(
        d.join("reductio.toml"),
        "[[suppress]]\nfile = \"goto-cleanup-leak.c\"\nreason = \"judged\"\n",
    )
    .unwrap();
    let path = d.join("t/idioms/error-path-ok.c");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        format!(
            "{text}{}",
            NEW_LEAK.replace(
                "    return n;",
                "    return n; // reductio-ignore: leak -- test"
            )
        ),
    )
    .unwrap();
    std::fs::write(
        d.join("t/idioms/extra.c"),
        format!("#include <stdlib.h>\n{NEW_LEAK}").replace("reductio_new_leak", "another_leak"),
    )
    .unwrap();
    for args in [
        vec![
            "check",
            "--all",
            "--format",
            "sarif",
            "--baseline",
            "b.json",
            "t",
        ],
        vec!["check", "--format", "sarif", "--shard", "2/3", "t"],
    ] {
        let out = reductio(d, &args);
        let log: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            schema_errors(&validator, &log),
            Vec::<String>::new(),
            "{args:?}"
        );
        let results = log["runs"][0]["results"].as_array().unwrap();
        if args.contains(&"b.json") {
            let kinds: Vec<&str> = results
                .iter()
                .filter_map(|r| r["suppressions"][0]["kind"].as_str())
                .collect();
            assert!(
                kinds.contains(&"inSource") && kinds.contains(&"external"),
                "{kinds:?}"
            );
            assert!(results.iter().any(|r| r["baselineState"] == "new"));
        }
    }
}

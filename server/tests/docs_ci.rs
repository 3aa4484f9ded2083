//! The `reductio` commands of docs/ci.md, run as the CI systems would run them, against a copy
//! of test-fixtures: the baseline command, the GitHub Actions matrix and merge, the GitLab
//! parallel job and merge, and the pre-commit hook. Each command line is taken from the doc's
//! code blocks (a YAML `run:`, `- ` script item or `entry:` prefix removed) and run by `sh`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The fenced code blocks of docs/ci.md: (info string, lines).
fn blocks() -> Vec<(String, Vec<String>)> {
    let doc = std::fs::read_to_string(root().join("docs/ci.md")).unwrap();
    let mut out = Vec::new();
    let mut cur: Option<(String, Vec<String>)> = None;
    for line in doc.lines() {
        if let Some(info) = line.trim_start().strip_prefix("```") {
            match cur.take() {
                Some(b) => out.push(b),
                None => cur = Some((info.trim().to_string(), Vec::new())),
            }
        } else if let Some((_, lines)) = &mut cur {
            lines.push(line.to_string());
        }
    }
    out
}

/// The `reductio` command lines of the one block that contains `marker`.
fn commands(marker: &str) -> Vec<String> {
    let found: Vec<_> = blocks()
        .into_iter()
        .filter(|(_, lines)| lines.iter().any(|l| l.contains(marker)))
        .collect();
    assert_eq!(found.len(), 1, "one block of docs/ci.md with `{marker}`");
    let cmds: Vec<String> = found[0]
        .1
        .iter()
        .filter_map(|l| {
            let mut t = l.trim();
            for prefix in ["- ", "run: ", "entry: "] {
                t = t.strip_prefix(prefix).unwrap_or(t);
            }
            t.starts_with("reductio ").then(|| t.to_string())
        })
        .collect();
    assert!(!cmds.is_empty(), "`{marker}` block has reductio commands");
    cmds
}

/// Run one command line with `sh` in `dir`, the test binary first on PATH.
fn sh(dir: &Path, line: &str, env: &[(&str, String)]) -> Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_reductio")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut c = Command::new("sh");
    c.arg("-c").arg(line).current_dir(dir).env("PATH", path);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run sh")
}

fn reductio(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_reductio"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn untimed(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("\"elapsed_ms\": ") {
            Some(i) => format!("{}\"elapsed_ms\": 0", &l[..i]),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A scratch repository: a copy of test-fixtures.
struct Repo(PathBuf);

impl Drop for Repo {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn repo(name: &str) -> Repo {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            if e.path().is_dir() {
                copy(&e.path(), &to.join(e.file_name()));
            } else {
                std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
            }
        }
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("docs-ci-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy(&root().join("test-fixtures"), &dir);
    Repo(dir)
}

const NEW_LEAK: &str = "\nint docs_new_leak(int n)\n{\n    char *p = malloc(n);\n    if (p == NULL)\n        return -1;\n    p[0] = 1;\n    return n;\n}\n";

fn add_new_leak(dir: &Path) {
    let p = dir.join("idioms/error-path-ok.c");
    let text = read(&p);
    std::fs::write(&p, format!("{text}{NEW_LEAK}")).unwrap();
}

/// The baseline command of the doc, run in `dir`.
fn write_baseline(dir: &Path) {
    let cmds = commands("--write-baseline");
    assert_eq!(cmds.len(), 1);
    let out = sh(dir, &cmds[0], &[]);
    assert!(out.status.success(), "{}: {out:?}", cmds[0]);
    assert!(dir.join("reductio-baseline.json").is_file());
}

#[test]
fn the_github_actions_matrix_and_merge_give_the_unsharded_sarif() {
    let r = repo("github");
    let d = &r.0;
    let cmds = commands("matrix.shard");
    let (shard, rest): (Vec<&String>, Vec<&String>) =
        cmds.iter().partition(|c| c.contains("${{ matrix.shard }}"));
    assert_eq!((shard.len(), rest.len()), (1, 1), "{cmds:?}");
    for i in 1..=3 {
        let line = shard[0].replace("${{ matrix.shard }}", &i.to_string());
        let out = sh(d, &line, &[]);
        assert!(out.status.success(), "{line}: {out:?}");
        assert!(d.join(format!("reductio-shard-{i}.sarif")).is_file());
    }
    // The merge step's command (its `|| status=$?` keeps the step alive for the upload).
    let out = sh(d, &format!("{}; echo $status", rest[0]), &[]);
    assert!(out.status.success(), "{}: {out:?}", rest[0]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "1",
        "the fixtures have leaks: the gate step fails"
    );
    let whole = reductio(d, &["check", "--format", "sarif", "."]);
    assert_eq!(
        read(&d.join("reductio.sarif")).trim_end(),
        String::from_utf8_lossy(&whole.stdout).trim_end()
    );
}

#[test]
fn the_gitlab_jobs_and_the_baseline_report_only_new_leaks() {
    let r = repo("gitlab");
    let d = &r.0;
    write_baseline(d);
    let cmds = commands("CI_NODE_INDEX");
    assert_eq!(cmds.len(), 2, "{cmds:?}");
    let run_pipeline = || -> (Option<i32>, serde_json::Value) {
        for i in 1..=3 {
            let env = [
                ("CI_NODE_INDEX", i.to_string()),
                ("CI_NODE_TOTAL", "3".to_string()),
            ];
            let out = sh(d, &cmds[0], &env);
            assert!(out.status.success(), "{}: {out:?}", cmds[0]);
        }
        let out = sh(d, &cmds[1], &[]);
        let merged = read(&d.join("reductio.json"));
        let whole = reductio(
            d,
            &[
                "check",
                "--baseline",
                "reductio-baseline.json",
                "--format",
                "json",
                ".",
            ],
        );
        assert_eq!(
            untimed(&merged).trim_end(),
            untimed(&String::from_utf8_lossy(&whole.stdout)).trim_end()
        );
        (out.status.code(), serde_json::from_str(&merged).unwrap())
    };
    let (code, v) = run_pipeline();
    assert_eq!(code, Some(0), "nothing new: the pipeline passes");
    assert!(v["findings"].as_array().unwrap().is_empty(), "{v:#}");
    assert!(v["baseline"]["matched"].as_u64().unwrap() > 5);
    add_new_leak(d);
    let (code, v) = run_pipeline();
    assert_eq!(code, Some(1), "a new leak fails the pipeline");
    let f = v["findings"].as_array().unwrap();
    assert_eq!(f.len(), 1, "{v:#}");
    assert_eq!(f[0]["function"], "docs_new_leak");
}

#[test]
fn the_pre_commit_hook_passes_on_the_baseline_and_fails_on_a_new_leak() {
    let r = repo("pre-commit");
    let d = &r.0;
    write_baseline(d);
    let cmds = commands("pre-commit-config");
    assert_eq!(cmds.len(), 1, "{cmds:?}");
    let out = sh(d, &cmds[0], &[]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    add_new_leak(d);
    let out = sh(d, &cmds[0], &[]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("docs_new_leak") || text.contains("error-path-ok.c"),
        "{text}"
    );
    assert!(text.contains("0 disappeared, 1 new"), "{text}");
}

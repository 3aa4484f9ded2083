//! The command line as a user runs it: options, exit codes, and errors for bad input.

use std::path::PathBuf;
use std::process::{Command, Output};

fn reductio(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_reductio"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run reductio")
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn verdicts(out: &Output) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    v["verdicts"]
        .as_array()
        .expect("a verdict list")
        .iter()
        .map(|f| {
            let reason = f["reason"].as_str().unwrap_or("");
            format!("{} {}", f["verdict"].as_str().unwrap_or("?"), reason)
                .trim()
                .to_string()
        })
        .collect()
}

const PROBE: &str = "test-fixtures/idioms/error-path-ok.c:20";

#[test]
fn prove_takes_a_budget() {
    let out = reductio(&["prove", "--format", "json", PROBE]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(verdicts(&out), ["proved"]);
    let out = reductio(&["prove", "--format", "json", "--budget", "1", PROBE]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(verdicts(&out), ["unproved budget"]);
}

#[test]
fn a_zero_budget_or_a_missing_config_is_an_error() {
    for args in [
        &["prove", "--budget", "0", PROBE][..],
        &["check", "--budget", "0", "test-fixtures/idioms"][..],
        &["prove", "--config", "no/such/reductio.toml", PROBE][..],
    ] {
        let out = reductio(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).starts_with("reductio: "),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn prove_at_a_line_without_probes_or_in_a_missing_file_is_an_error() {
    for loc in [
        "test-fixtures/idioms/error-path-ok.c:1",
        "test-fixtures/idioms/no-such-file.c:3",
        "test-fixtures/idioms/error-path-ok.c:0",
        "test-fixtures/idioms/error-path-ok.c",
    ] {
        let out = reductio(&["prove", loc]);
        assert_eq!(out.status.code(), Some(2), "{loc}: {out:?}");
    }
}

#[test]
fn facts_names_the_functions_that_never_return_with_the_callee_that_stops_them() {
    let fixture = root().join("test-fixtures/idioms/noreturn-helper-ok.c");
    let out = reductio(&["facts", fixture.to_str().unwrap(), "--format", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let facts = json["facts"].as_array().unwrap();
    let never: Vec<&serde_json::Value> = facts
        .iter()
        .filter(|f| f["kind"] == "never-returns")
        .collect();
    // `fatal` ends in `exit`; `xmalloc` returns when `malloc` succeeds, so it is no fact.
    assert_eq!(never.len(), 1, "{facts:?}");
    assert_eq!(never[0]["function"], "fatal");
    assert_eq!(never[0]["fact"], "never returns");
    assert!(never[0]["reason"].as_str().unwrap().contains("`exit`"));

    // The leaking twin's `complain` returns: no function is found never to return.
    let twin = root().join("test-fixtures/idioms/noreturn-helper-leak.c");
    let out = reductio(&["facts", twin.to_str().unwrap(), "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        json["facts"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["kind"] != "never-returns")
    );
}

/// `facts` prints the MOD summary the engine uses for calls it does not follow: what a call
/// may write, which block types it may free, whether it allocates, and that a wrapper which
/// only allocates changes no memory that existed before the call.
#[test]
fn facts_lists_what_a_call_may_write_free_and_allocate() {
    let fixture = root().join("test-fixtures/idioms/dealloc-wrapper-ok.c");
    let out = reductio(&["facts", fixture.to_str().unwrap(), "--format", "json"]);
    assert!(out.status.success(), "{out:?}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let facts = json["facts"].as_array().unwrap();
    let of = |function: &str, kind: &str| -> Vec<String> {
        facts
            .iter()
            .filter(|f| f["function"] == function && f["kind"] == kind)
            .map(|f| f["fact"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        of("node_free", "frees"),
        ["may free blocks of type `struct node`"]
    );
    assert!(of("node_free", "allocates").is_empty());
    assert!(of("node_new", "allocates").len() == 1);
    let writes = of("node_free", "writes");
    assert!(writes[0].contains("`next` of `struct node`"), "{writes:?}");
    for f in facts {
        assert!(!f["reason"].as_str().unwrap().is_empty(), "{f}");
    }

    let wrapper = root().join("test-fixtures/idioms/alloc-wrapper-ok.c");
    let out = reductio(&["facts", wrapper.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("`xmalloc` changes no memory that existed before the call"),
        "{text}"
    );
}

/// A scratch directory under the target directory, emptied.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const DIE_SOURCE: &str = r#"#include <stdlib.h>

void die(const char *msg);
void platform_quit(int code);

static void fatal(const char *msg)
{
    (void)msg;
    platform_quit(1);
}

struct pair {
    char *a, *b;
};

int make_pair(struct pair *out, size_t n)
{
    char *a = malloc(n);
    char *b;

    if (a == NULL)
        return -1;
    b = malloc(n);
    if (b == NULL)
        die("out of memory");
    if (b == NULL)
        return -1;
    out->a = a;
    out->b = b;
    return 0;
}

int make_other(struct pair *out, size_t n)
{
    char *a = malloc(n);
    char *b;

    if (a == NULL)
        return -1;
    b = malloc(n);
    if (b == NULL)
        fatal("out of memory");
    if (b == NULL)
        return -1;
    out->a = a;
    out->b = b;
    return 0;
}
"#;

/// `noreturn = [...]` in `reductio.toml` corrects the inference: a body-less `die` and a
/// `fatal` whose body ends in an unknown call are taken to never return, so the `return -1`
/// after them is unreachable and the leak of `a` there is gone.
#[test]
fn noreturn_in_reductio_toml_turns_the_leaks_after_die_into_proofs() {
    let dir = scratch("noreturn-key");
    std::fs::write(dir.join("pair.c"), DIE_SOURCE).unwrap();
    let lines_of_leaks = |out: &Output| -> Vec<u64> {
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["verdict"] == "leak")
            .map(|f| f["line"].as_u64().unwrap())
            .collect()
    };
    let out = reductio(&["check", dir.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(lines_of_leaks(&out), [27, 44]);

    std::fs::write(
        dir.join("reductio.toml"),
        "noreturn = [\"die\", \"fatal\"]\n",
    )
    .unwrap();
    let out = reductio(&["check", dir.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(lines_of_leaks(&out).is_empty());

    // `facts` shows the configured function with a body, and why.
    let out = reductio(&["facts", dir.to_str().unwrap(), "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let fatal: Vec<&serde_json::Value> = json["facts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["function"] == "fatal")
        .collect();
    assert_eq!(fatal.len(), 1, "{fatal:?}");
    assert_eq!(fatal[0]["kind"], "never-returns");
    assert!(fatal[0]["reason"].as_str().unwrap().contains("`noreturn`"));

    // A bad value is a clear error, as for every key.
    for bad in [
        "noreturn = \"die\"\n",
        "noreturn = [\"die()\"]\n",
        "noreturn = [1]\n",
    ] {
        std::fs::write(dir.join("reductio.toml"), bad).unwrap();
        let out = reductio(&["check", dir.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{bad}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("noreturn") || err.contains("die()"),
            "{bad}: {err}"
        );
    }
}

/// `prove` at an allocation answers both questions: the value the assignment overwrites (its
/// probe) and the memory it assigns (every place that block can be lost, with the verdict
/// there). On the error-path fixture the block allocated on line 21 leaks at line 25.
#[test]
fn prove_at_an_allocation_names_where_the_assigned_block_leaks() {
    let out = reductio(&[
        "prove",
        "--format",
        "json",
        "test-fixtures/idioms/error-path-leak.c:21",
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(verdicts(&out), ["proved"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let a = &v["assigned"][0];
    assert_eq!(a["variable"], "copy");
    assert_eq!(a["line"], 21);
    assert_eq!(a["verdict"], "leak");
    assert_eq!(a["summary"], "leaks at line 25");
    let paths: Vec<(u64, &str)> = a["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["line"].as_u64().unwrap(), p["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(paths, [(22, "null"), (25, "leak"), (30, "freed")]);
    let leak = &a["paths"][1];
    assert_eq!(leak["allocated_here"], true);
    assert_eq!(leak["finding"]["probe"], "return-local");
    assert_eq!(leak["finding"]["trace"][0]["line"], 21);

    let out = reductio(&["prove", "test-fixtures/idioms/error-path-leak.c:21"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("the value overwritten here:\n"), "{text}");
    assert!(
        text.contains("the memory assigned here:\n`copy` (line 21): leaks at line 25\n"),
        "{text}"
    );

    // At the return: a probe, and no assignment.
    let out = reductio(&["prove", "test-fixtures/idioms/error-path-leak.c:25"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("the memory assigned here:\nno assignment here"),
        "{text}"
    );
    let out = reductio(&[
        "prove",
        "--format",
        "json",
        "test-fixtures/idioms/error-path-leak.c:25",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["assigned"], serde_json::json!([]));
}

/// The fixed twin: the block is freed on every path that does not find it NULL.
#[test]
fn prove_at_a_proved_allocation_lists_where_its_block_is_freed() {
    let out = reductio(&["prove", "--format", "json", PROBE]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["assigned"][0]["verdict"], "proved");
    assert_eq!(
        v["assigned"][0]["summary"],
        "never leaks: freed at lines 24, 31; NULL at line 21"
    );
}

#[test]
fn leak_messages_lead_with_the_variable_and_name_other_files_relative_to_the_current_directory() {
    let dir = std::env::temp_dir().join(format!("reductio-cli-msg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("src/util.c"),
        "#include <stdlib.h>\nchar *g_buf;\nchar *make_buf(int n)\n{\n    char *b = malloc(n);\n    return b;\n}\nvoid reset(void)\n{\n    g_buf = 0;\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("src/main.c"),
        "#include <stdlib.h>\nextern char *g_buf;\nchar *make_buf(int n);\nvoid reset(void);\nint main(void)\n{\n    char *buf = make_buf(16);\n    if (buf == 0)\n        return 1;\n    g_buf = malloc(8);\n    reset();\n    char *tmp = malloc(4);\n    if (tmp == 0)\n        return 1;\n    buf[0] = 0;\n    return 0;\n}\n",
    )
    .unwrap();
    // Absolute paths on the command line: the `file` fields keep them, the messages name the
    // allocation's file relative to the current directory.
    let abs = dir.join("src").display().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_reductio"))
        .args(["check", "--format", "json", &abs])
        .current_dir(&dir)
        .output()
        .expect("run reductio");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let mut messages: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    messages.sort();
    messages.dedup(); // `buf` leaks at both returns after its allocation
    assert_eq!(
        messages,
        [
            // Allocated inside `make_buf` (in util.c): named by the call in `main`.
            "`buf` leaks: allocated by `make_buf` at line 7, last reference lost here",
            // Lost in util.c's `reset`, allocated in main.c: named relative to the directory.
            "`g_buf` leaks: allocated at src/main.c:10, last reference lost here",
            "`tmp` leaks: allocated at line 12, last reference lost here",
        ]
    );
}

/// A block allocated inside a wrapper is named in the headline by the call in the user's
/// function (the outermost call of the allocation path), not by the wrapper's `malloc`; the
/// JSON keeps the whole path in `allocation` and adds `allocated_by`. A direct allocation
/// keeps the old wording and has no `allocated_by`.
#[test]
fn a_leak_allocated_in_a_wrapper_names_the_call_in_the_users_function() {
    let out = reductio(&[
        "check",
        "--format",
        "json",
        "test-fixtures/idioms/alloc-wrapper-leak.c",
        "test-fixtures/idioms/error-path-leak.c",
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = v["findings"].as_array().unwrap();
    let p = findings
        .iter()
        .find(|f| f["variable"] == "p" && f["function"] == "norm2")
        .expect("the leak of `p` in norm2");
    assert_eq!(
        p["message"],
        "`p` leaks: allocated by `point_new` at line 36, last reference lost here"
    );
    assert_eq!(p["allocated_by"], "point_new");
    let path: Vec<(u64, &str)> = p["allocation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["line"].as_u64().unwrap(), a["function"].as_str().unwrap()))
        .collect();
    assert_eq!(path, [(36, "norm2"), (27, "point_new"), (18, "xmalloc")]);
    let copy = findings
        .iter()
        .find(|f| f["variable"] == "copy")
        .expect("the leak of `copy`");
    assert_eq!(
        copy["message"],
        "`copy` leaks: allocated at line 21, last reference lost here"
    );
    assert!(copy.get("allocated_by").is_none());

    // The text headline and its "allocated here" label point at the user's call.
    let out = reductio(&["check", "test-fixtures/idioms/alloc-wrapper-leak.c"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("`p` leaks: allocated by `point_new` at line 36"),
        "{text}"
    );
    assert!(
        text.contains("36 |     struct point *p = point_new(x, y);"),
        "{text}"
    );
}

/// Trace notes and messages quote the source (`fputs(msg, stderr) != EOF`), never the IR's
/// temporaries (`$t{…}`), on every fixture, leaks and unproved probes alike.
#[test]
fn no_trace_over_the_fixtures_shows_ir_temporaries() {
    let out = reductio(&["check", "--format", "json", "--all", "test-fixtures"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("$t{"), "IR syntax in the output");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let notes: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["trace"].as_array().unwrap())
        .map(|s| s["note"].as_str().unwrap())
        .collect();
    // A call's result tested in a condition is quoted as the call. (`EOF` shows as its value
    // here: the function also writes `-1` as a number, see `ir::print`'s tests.)
    assert!(
        notes.contains(&"branch taken: `fputs(msg, stderr) != -1`"),
        "{notes:#?}"
    );
    assert!(
        notes.contains(&"branch taken: `strvec_push(v, copy) < 0`"),
        "{notes:#?}"
    );
}

//! The build model wired into the analysis (issue 19): a project tree with a compile
//! database and a header in a parent directory, bad build inputs staying bounded, header
//! edits re-lowering only what they change, and the fuzz target on its seeds.

#[path = "common/expectations.rs"]
mod expectations;
#[path = "../fuzz/src/targets.rs"]
#[allow(dead_code)]
mod targets;

use expectations::parse_expectations;
use reductio::config::Config;
use reductio::db::{self, Database, Db, VerdictKind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("test-fixtures")
        .join("build")
}

/// A fresh directory under the system temp dir for one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("reductio-build-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// `dir` with `sources` (name, text) written in it, loaded as a workspace.
fn load_tree(dir: &Path, sources: &[(&str, &str)]) -> (Database, Vec<reductio::db::SourceFile>) {
    for (name, text) in sources {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let files = reductio::files::discover(&[dir.to_path_buf()], &[]).expect("discover");
    reductio::batch::load(Config::default(), &files).expect("load")
}

/// `check tests/` on the project tree: `../check.h` and `include/pool.h` (found through
/// `compile_commands.json`'s `-Iinclude`) are read, `POOL_DEBUG=0` decides which
/// `pool_alloc` is in force, and the verdicts are the ones written in the file.
#[test]
fn project_tree_with_a_compile_database_and_a_parent_header() {
    let tests = fixtures().join("project").join("tests");
    let files = reductio::files::discover(std::slice::from_ref(&tests), &[]).expect("discover");
    assert_eq!(files.len(), 1, "{files:?}");
    let (database, inputs) = reductio::batch::load(Config::default(), &files).expect("load");
    let db: &dyn Db = &database;
    let file = inputs[0];
    let flags = db::file_flags(db, file);
    assert_eq!(flags.1, None);
    assert!(flags.0.complete, "the file has its own compile command");
    let headers: Vec<String> = db::file_headers(db, file)
        .iter()
        .map(|h| {
            h.path(db)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .to_string()
        })
        .collect();
    assert_eq!(headers, ["check.h", "pool.h"]);

    let text = std::fs::read_to_string(&files[0]).unwrap();
    let (_, expects) = parse_expectations(&text);
    let findings = db::file_findings(db, file);
    for e in &expects {
        assert!(
            findings.iter().any(|f| f.verdict == e.verdict
                && f.loc.line <= e.line
                && e.line <= f.loc.end_line
                && f.variable == e.what),
            "expected {:?} `{}` at line {}: {findings:#?}",
            e.verdict,
            e.what,
            e.line
        );
    }
    let leaks = findings
        .iter()
        .filter(|f| f.verdict == VerdictKind::Leak)
        .count();
    assert_eq!(leaks, expects.len(), "{findings:#?}");
    // `check_fail` is declared noreturn in ../check.h: the facts say so, with the reason.
    let facts = db::function_facts(db);
    assert!(
        facts.iter().any(|f| f.function == "check_fail"
            && f.fact == "never returns"
            && f.reason.contains("check.h")),
        "{facts:#?}"
    );
    // Every call has a body or is the library's: `pool_alloc`/`pool_free` come from the header.
    let calls = db::call_stats(db, &inputs);
    assert_eq!(calls.unknown, 0, "{calls:?}");
    assert!(calls.with_body >= 4, "{calls:?}");
}

/// `returns_nonnull` and `nonnull` declared in a header: `reductio facts` lists them with the
/// header named, and the lowering assumes them (`cond(… != 0)` after the call, at the entry).
#[test]
fn nonnull_attributes_are_facts_and_conditions() {
    let file = fixtures().join("nonnull-attributes-ok.c");
    let (database, inputs) =
        reductio::batch::load(Config::default(), std::slice::from_ref(&file)).expect("load");
    let db: &dyn Db = &database;
    let facts = db::function_facts(db);
    for (function, kind) in [
        ("xstrdup", "returns-nonnull"),
        ("xmalloc", "returns-nonnull"),
        ("pair_set_a", "nonnull"),
    ] {
        assert!(
            facts
                .iter()
                .any(|f| f.function == function && f.kind == kind && f.reason.contains("xalloc.h")),
            "{function} {kind}: {facts:#?}"
        );
    }
    assert!(
        !facts
            .iter()
            .any(|f| f.function == "try_strdup" && f.kind == "returns-nonnull"),
        "{facts:#?}"
    );
    let mut printed = String::new();
    for f in db::file_functions(db, inputs[0]) {
        let ir = db::lowered(db, *f);
        reductio::ir::write_function_with(&mut printed, &ir, None, Default::default()).unwrap();
    }
    assert!(printed.contains("a = alloc[xstrdup]"), "{printed}");
    assert!(printed.contains("cond(a != 0)"), "{printed}");
    // `pair_set_a` (declared `nonnull(1)`) starts with its parameter non-NULL.
    let set_a = &printed[printed.find("fn pair_set_a").expect("pair_set_a")..];
    let first = set_a
        .lines()
        .find(|l| l.trim_start().starts_with("n1 "))
        .expect("a second node");
    assert!(first.contains("cond(p != 0)"), "{set_a}");
}

/// Statements from a macro body are placed on the macro call the user wrote.
#[test]
fn expanded_statements_map_back_to_the_macro_call() {
    let dir = scratch("map");
    let text = "#define GRAB(p, n) do { (p) = malloc(n); } while (0)\n\
                void f(void) {\n  char *q;\n  GRAB(q, 8);\n  q = 0;\n}\n";
    let path = dir.join("m.c");
    std::fs::write(&path, text).unwrap();
    let mut database = Database::default();
    let file = database.add_file(path, text.to_string());
    let db: &dyn Db = &database;
    let f = db::file_functions(db, file)[0];
    assert!(db::expanded_function(db, f).is_some());
    let ir = db::lowered(db, f);
    let src = &f.source(db).text;
    let alloc = ir
        .node_ids()
        .map(|n| ir.node(n))
        .find(|n| matches!(n.stmt.kind, reductio::ir::StmtKind::Alloc { .. }))
        .expect("the macro's malloc is lowered");
    let r = alloc.stmt.range;
    let shown = &src[r.start as usize..r.end as usize];
    assert!(
        shown.starts_with("malloc(n)") || shown.contains("GRAB") || shown == "8",
        "{shown:?}"
    );
    assert!(r.end as usize <= src.len());
    let findings = db::file_findings(db, file);
    let leak = findings
        .iter()
        .find(|f| f.verdict == VerdictKind::Leak)
        .expect("q = 0 loses the block");
    assert_eq!(leak.loc.line, 5, "{leak:#?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Include cycles, a self-include, exponential macros, an include of a directory and of a
/// device, a malformed compile database: bounded, reported, and the rest still analysed.
#[test]
fn bad_build_input_is_bounded_and_reported() {
    let dir = scratch("bad");
    std::fs::create_dir_all(dir.join("sub.h")).unwrap();
    std::fs::write(dir.join("compile_commands.json"), "[{\"directory\": 3").unwrap();
    std::fs::write(dir.join("a.h"), "#include \"b.h\"\n#define FROM_A 1\n").unwrap();
    std::fs::write(dir.join("b.h"), "#include \"a.h\"\n#include \"b.h\"\n").unwrap();
    let mut text = String::from(
        "#include \"a.h\"\n#include \"sub.h\"\n#include \"/dev/zero\"\n#include \"bad.c\"\n",
    );
    let names: Vec<String> = (0..40).map(|i| format!("M{i}")).collect();
    for w in names.windows(2) {
        text.push_str(&format!("#define {} {} {}\n", w[0], w[1], w[1]));
    }
    text.push_str(
        "#include <stdlib.h>\nvoid g(void) { M0; }\n\
         void f(void) {\n  char *p = malloc(4);\n  p = 0;\n}\n",
    );
    let path = dir.join("bad.c");
    std::fs::write(&path, &text).unwrap();
    let started = Instant::now();
    let mut database = Database::default();
    let file = database.add_file(path, text);
    let db: &dyn Db = &database;
    let findings = db::file_findings(db, file);
    let messages: Vec<String> = db::build_messages(db, file)
        .iter()
        .map(|m| m.message.clone())
        .collect();
    assert!(started.elapsed() < Duration::from_secs(20));
    let all = messages.join("\n");
    assert!(all.contains("compile_commands.json"), "{all}");
    assert!(all.contains("is a directory"), "{all}");
    assert!(all.contains("not a regular file"), "{all}");
    assert!(all.contains("macro expansion limit"), "{all}");
    assert!(
        findings.iter().any(|f| f.verdict == VerdictKind::Leak),
        "what can be analysed still is: {findings:#?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Editing a header re-lowers exactly the functions whose expansion it changes. (A change to
/// what the header declares — an object-like constant, a type, a prototype — changes the
/// workspace's declarations and re-lowers every function, as an edit of a `.c` file's
/// declarations does.)
#[test]
fn a_header_edit_relowers_only_the_functions_it_changes() {
    let dir = scratch("edit");
    let h = dir.join("h.h");
    std::fs::write(&h, "#define USED(x) ((x) + 1)\n#define OTHER(x) 2\n").unwrap();
    let text = "#include \"h.h\"\nint f(int a) { return USED(a); }\nint g(int b) { return b; }\n";
    let path = dir.join("u.c");
    std::fs::write(&path, text).unwrap();
    let mut database = Database::default();
    let file = database.add_file(path, text.to_string());
    for f in db::file_functions(&database, file).clone() {
        let _ = db::lowered(&database, f);
    }
    let header = database
        .file_at(&db::absolute(&h))
        .expect("the header was read");
    database.enable_log();
    // A definition no function uses: nothing is re-lowered.
    database.set_file_text(
        header,
        "#define USED(x) ((x) + 1)\n#define OTHER(x) 3\n".into(),
    );
    for f in db::file_functions(&database, file).clone() {
        let _ = db::lowered(&database, f);
    }
    let log = database.take_log();
    assert!(log.iter().any(|e| e.starts_with("scan")), "{log:?}");
    assert!(!log.iter().any(|e| e.starts_with("lower")), "{log:?}");
    // The macro `f` uses: only `f` is re-lowered.
    database.set_file_text(
        header,
        "#define USED(x) ((x) + 2)\n#define OTHER(x) 3\n".into(),
    );
    for f in db::file_functions(&database, file).clone() {
        let _ = db::lowered(&database, f);
    }
    let log = database.take_log();
    let lowered: Vec<&String> = log.iter().filter(|e| e.starts_with("lower")).collect();
    assert_eq!(lowered, ["lower f"], "{log:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `#if` decided by the compile database's defines: the dead arm is not analysed; an
/// undecidable one keeps both arms.
#[test]
fn conditionals_are_decided_by_known_defines() {
    let dir = scratch("cond");
    std::fs::write(dir.join("compile_flags.txt"), "-DUSE_FREE=1\n").unwrap();
    let text = "#include <stdlib.h>\nvoid f(void) {\n  char *p = malloc(4);\n\
                #if USE_FREE\n  free(p);\n#else\n  p = 0;\n#endif\n}\n\
                void g(void) {\n  char *q = malloc(4);\n#if UNKNOWN_FLAG\n  free(q);\n#endif\n}\n";
    let path = dir.join("c.c");
    std::fs::write(&path, text).unwrap();
    let mut database = Database::default();
    let file = database.add_file(path, text.to_string());
    let db: &dyn Db = &database;
    let findings = db::file_findings(db, file);
    let leak_lines: Vec<u32> = findings
        .iter()
        .filter(|f| f.verdict == VerdictKind::Leak)
        .map(|f| f.loc.line)
        .collect();
    // f: `p = 0` is in the dead arm, no leak. g: the undecided arm may be skipped.
    assert_eq!(leak_lines, [15], "{findings:#?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The target decides another system's `#ifdef` arms (`build/target-system-ok.c`): on the
/// default target (Linux) the `_WIN32` arm is dead and the file is proved; with `target =
/// "windows"` (config) or a MinGW compiler in the compile database, that arm is the build's
/// and its early return loses the block; `target = "any"` analyses both arms.
#[test]
fn the_target_decides_which_system_arms_are_the_builds() {
    let leaks = |config: Config, dir: &Path| -> usize {
        let file = dir.join("target-system-ok.c");
        let (database, inputs) =
            reductio::batch::load(config, std::slice::from_ref(&file)).expect("load");
        let db: &dyn Db = &database;
        db::file_findings(db, inputs[0])
            .iter()
            .filter(|f| f.verdict == VerdictKind::Leak)
            .count()
    };
    let dir = scratch("target");
    std::fs::copy(
        fixtures().join("target-system-ok.c"),
        dir.join("target-system-ok.c"),
    )
    .unwrap();
    let with = |t: &str| Config {
        target: Some(serde_json::from_value(serde_json::json!(t)).expect("target")),
        ..Config::default()
    };
    assert_eq!(leaks(Config::default(), &dir), 0);
    assert_eq!(leaks(with("linux"), &dir), 0);
    assert_eq!(leaks(with("windows"), &dir), 1);
    assert_eq!(leaks(with("any"), &dir), 1);
    std::fs::write(
        dir.join("compile_commands.json"),
        r#"[{"directory": ".", "file": "target-system-ok.c",
             "arguments": ["x86_64-w64-mingw32-gcc", "-c", "target-system-ok.c"]}]"#,
    )
    .unwrap();
    assert_eq!(
        leaks(Config::default(), &dir),
        1,
        "the compile command targets Windows"
    );
    assert_eq!(leaks(with("linux"), &dir), 0, "the config's target wins");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A macro defined only in an undecided arm that renames a C library function the library
/// model knows is not applied: `strdup` stays an allocator.
#[test]
fn an_undecided_rename_of_a_library_function_is_not_applied() {
    let dir = scratch("rename");
    let text = "#include <string.h>\n#ifdef SOME_PLATFORM_FLAG\n#define strdup _strdup\n#endif\n\
                #define DUP(s) strdup(s)\n\
                void f(const char *s) {\n  char *p = DUP(s);\n  p = 0;\n}\n";
    let path = dir.join("r.c");
    std::fs::write(&path, text).unwrap();
    let mut database = Database::default();
    let file = database.add_file(path, text.to_string());
    let db: &dyn Db = &database;
    let findings = db::file_findings(db, file);
    assert!(
        findings
            .iter()
            .any(|f| f.verdict == VerdictKind::Leak && f.loc.line == 8),
        "{findings:#?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The `build_project` fuzz target on seed inputs made of the fixtures (each C file with each
/// header and the project's compile database) and a hostile one (include cycle, self-include,
/// a device, a directory, exponential macros, a forced include of a device). The committed
/// seeds and the regression inputs (`fuzz/seeds/build_project/`,
/// `fuzz/regressions/build_project/`) are replayed by `tests/stress.rs`.
#[test]
fn fuzz_build_project_on_seeds_and_regressions() {
    let root = fixtures();
    let cdb = std::fs::read("../test-fixtures/build/project/compile_commands.json")
        .or_else(|_| std::fs::read(root.join("project/compile_commands.json")))
        .unwrap();
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    let mut cs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    cs.sort();
    for c in &cs {
        for h in ["queue.h", "log.h", "util.h"] {
            let mut data = std::fs::read(c).unwrap();
            data.push(0);
            data.extend(std::fs::read(root.join("include").join(h)).unwrap());
            data.push(0);
            data.extend(&cdb);
            inputs.push(data);
        }
    }
    inputs.push(
        b"#define A B B\n#define B C C\n#define C D D\n#define D E E\n#define E F F\n\
          void f(void){ char *p = malloc(1); A; p = 0; }\n\0\
          #include \"h.h\"\n#include \"../src/main.c\"\n#include \"/dev/zero\"\n#include \".\"\n\0\
          [{\"directory\": \".\", \"file\": \"src/main.c\", \
          \"command\": \"cc -Iinclude -include /dev/null -D X=1 -U\"}]"
            .to_vec(),
    );
    assert!(inputs.len() > 10);
    for data in &inputs {
        let started = Instant::now();
        targets::build_project(data);
        assert!(started.elapsed() < Duration::from_secs(30));
    }
}

/// A binary or non-C file named on the command line is refused at once; a binary blob with a
/// C name found in a directory is skipped (and listed), not parsed.
#[test]
fn a_binary_or_non_c_file_is_refused() {
    let dir = scratch("bin");
    let bin = dir.join("blob.c");
    let mut bytes = vec![0x7fu8, b'E', b'L', b'F', 0, 0, 1];
    bytes.resize(1 << 20, 0);
    std::fs::write(&bin, &bytes).unwrap();
    let err = reductio::files::discover(std::slice::from_ref(&bin), &[]).unwrap_err();
    assert!(err.contains("NUL bytes"), "{err}");
    let txt = dir.join("notes.txt");
    std::fs::write(&txt, "int main(void) { return 0; }").unwrap();
    let err = reductio::files::discover(std::slice::from_ref(&txt), &[]).unwrap_err();
    assert!(err.contains("not a C file"), "{err}");
    // Found in a directory, the blob is left out and listed; the C file beside it is kept.
    let c = dir.join("real.c");
    std::fs::write(&c, "int main(void) { return 0; }\n").unwrap();
    let found = reductio::files::discover_files(std::slice::from_ref(&dir), &[]).unwrap();
    assert_eq!(found.files, [c]);
    assert_eq!(found.skipped.len(), 1, "{found:?}");
    assert_eq!(found.skipped[0].0, bin);
    assert!(found.skipped[0].1.contains("NUL bytes"), "{found:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A header read on its own takes the macros its includer defines around it: Vim's
/// `globals.h` declares `EXTERN int really_exiting INIT(= FALSE);` with `EXTERN` and `INIT`
/// from `vim.h`. Before, the declaration was a global named `INIT`, `really_exiting` was
/// declared nowhere, and so it was never an exit flag: the block `vim_free` does not free
/// while Vim exits was reported as a leak. Now it is `unproved`, with the reason.
#[test]
fn a_header_takes_its_includers_macros() {
    let dir = scratch("includer-macros");
    let sources = [
        (
            "vim.h",
            "#include <stdlib.h>\n#ifndef EXTERN\n# define EXTERN extern\n# define INIT(x)\n#else\n# define INIT(x) x\n#endif\n#include \"globals.h\"\nvoid vim_free(void *x);\nvoid preserve_exit(void);\n",
        ),
        ("globals.h", "EXTERN int really_exiting INIT(= 0);\n"),
        (
            "main.c",
            "#define EXTERN\n#include \"vim.h\"\nvoid preserve_exit(void)\n{\n    really_exiting = 1;\n    exit(1);\n}\n",
        ),
        (
            "alloc.c",
            "#include \"vim.h\"\nvoid vim_free(void *x)\n{\n    if (x != NULL && !really_exiting)\n        free(x);\n}\n",
        ),
        (
            "use.c",
            "#include \"vim.h\"\nchar *two(int n)\n{\n    char *a = malloc(n);\n    if (a == NULL)\n        return NULL;\n    char *b = malloc(n);\n    if (b == NULL) {\n        vim_free(a);\n        return NULL;\n    }\n    vim_free(b);\n    return a;\n}\n",
        ),
    ];
    let (database, inputs) = load_tree(&dir, &sources);
    let db: &dyn Db = &database;
    let globals = db::file_decls(
        db,
        *inputs
            .iter()
            .find(|f| f.path(db).ends_with("globals.h"))
            .unwrap(),
    );
    assert!(
        globals.globals.contains_key("really_exiting"),
        "{:?}",
        globals.globals.keys()
    );
    assert!(!globals.globals.contains_key("INIT"));
    let use_c = *inputs
        .iter()
        .find(|f| f.path(db).ends_with("use.c"))
        .unwrap();
    let findings = db::file_findings(db, use_c);
    assert!(
        findings.iter().all(|f| f.verdict != VerdictKind::Leak),
        "{findings:#?}"
    );
    assert!(
        findings.iter().any(|f| f.message.contains("really_exiting")
            || f.reason
                .as_deref()
                .is_some_and(|r| r.contains("really_exiting"))),
        "{findings:#?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Which `#if` names keep one value in a file's functions (`db::file_conditions`): not in a
/// header, not a name the file itself defines or undefines, and only after the last
/// `#include` (`db::unit_conditions`).
#[test]
fn a_files_constant_conditions_leave_out_headers_its_own_macros_and_early_functions() {
    let dir = scratch("unit-conditions");
    let sources = [
        (
            "pool.h",
            "#ifdef STATIC_POOL\nstatic inline int pooled(void) { return 1; }\n#endif\n",
        ),
        (
            "pool.c",
            "#include <stdlib.h>\nvoid early(void *x)\n{\n#ifdef STATIC_POOL\n    (void)x;\n#else\n    free(x);\n#endif\n}\n#include \"pool.h\"\n#ifdef TRACE\n# undef TRACE\n#endif\n#define LOCAL 1\nvoid late(void *x)\n{\n#if defined(STATIC_POOL) || defined(TRACE) || LOCAL\n    (void)x;\n#else\n    free(x);\n#endif\n}\n",
        ),
    ];
    let (database, inputs) = load_tree(&dir, &sources);
    let db: &dyn Db = &database;
    let file = |name: &str| *inputs.iter().find(|f| f.path(db).ends_with(name)).unwrap();
    assert_eq!(db::file_conditions(db, file("pool.h")), None);
    let fc = db::file_conditions(db, file("pool.c")).expect("pool.c has constant names");
    assert_eq!(fc.conditions.constant, ["STATIC_POOL"]);
    let pool_c = "#include <stdlib.h>\nvoid early(void *x)\n";
    assert!(fc.after as usize > pool_c.len());
    for &f in db::file_functions(db, file("pool.c")) {
        let unit = db::unit_conditions(db, f);
        match f.name(db).as_str() {
            "early" => assert_eq!(unit, None),
            _ => assert!(unit.is_some_and(|u| u.constant == ["STATIC_POOL"])),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// An edit inside a function body rebuilds no table of the headers the file includes first
/// (`db::scan_table` is the includer's table without positions), and the file's live text
/// (an `#if 0` arm blanked) is re-parsed incrementally: the findings are those of a fresh
/// database with the edited text.
#[test]
fn an_edit_inside_a_body_rebuilds_no_header_table() {
    let dir = scratch("body-edit");
    let h = dir.join("h.h");
    std::fs::write(
        &h,
        "#define DECLARE(n) int n##_count;\nstruct buf { char *data; };\n",
    )
    .unwrap();
    let before = "#include <stdlib.h>\n#include \"h.h\"\nDECLARE(items)\n#if 0\nint dead;\n#endif\n\
                  void f(struct buf *b) {\n  char *p = malloc(4);\n  b->data = p;\n}\n\
                  void g(void) {\n  char *q = malloc(4);\n  free(q);\n}\n";
    let after = before.replace("  free(q);\n", "  q = 0;\n  items_count = 1;\n  free(q);\n");
    let path = dir.join("u.c");
    std::fs::write(&path, before).unwrap();
    let mut database = Database::with_execution_log(Config::default());
    let file = database.add_file(path.clone(), before.to_string());
    let _ = db::file_findings(&database, file);
    let _ = db::file_decls(
        &database,
        database
            .file_at(&db::absolute(&h))
            .expect("the header was read"),
    );
    database.enable_log();
    database.set_file_text(file, after.clone());
    let edited = db::file_findings(&database, file);
    let log = database.take_log();
    let executed = |q: &str| {
        log.iter()
            .filter(|e| e.starts_with(&format!("execute {q}(")))
            .count()
    };
    assert_eq!(
        executed("macro_table"),
        1,
        "the file's own table only: {log:?}"
    );
    assert!(executed("parsed") >= 1, "{log:?}");
    let mut fresh = Database::default();
    let fresh_file = fresh.add_file(path, after);
    let expected = db::file_findings(&fresh, fresh_file);
    let summary = |fs: &[std::sync::Arc<reductio::db::Finding>]| {
        fs.iter()
            .map(|f| (f.loc.line, f.verdict, f.message.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(summary(&edited), summary(&expected));
    assert!(
        edited.iter().any(|f| f.verdict == VerdictKind::Leak),
        "`q = 0` loses the block: {edited:#?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

//! Incrementality and cross-file resolution of the queries.

use super::*;
use crate::config::Config;
use crate::ir::FunctionIr;
use std::sync::Arc;

const THREE: &str = "int a(int x) { return x + 1; }\n\
                     int b(int x) {\n  int y = x * 2;\n  return y;\n}\n\
                     int c(int x) { return b(x) - a(x); }\n";

fn lower_all(db: &Database, file: SourceFile) -> Vec<Arc<FunctionIr>> {
    file_functions(db, file)
        .iter()
        .map(|f| lowered(db, *f))
        .collect()
}

#[test]
fn editing_one_body_relowers_only_that_function() {
    let mut db = Database::default();
    db.enable_log();
    let file = db.add_file("t.c".into(), THREE.into());
    lower_all(&db, file);
    let first = db.take_log();
    assert!(first.contains(&"lower a".to_string()));
    assert!(first.contains(&"lower b".to_string()));
    assert!(first.contains(&"lower c".to_string()));

    // Change b's body: only b is lowered again.
    let edited = THREE.replace("x * 2", "x * 3 + 1");
    db.set_file_text(file, edited);
    lower_all(&db, file);
    let log = db.take_log();
    let lowers: Vec<_> = log.iter().filter(|e| e.starts_with("lower")).collect();
    assert_eq!(lowers, ["lower b"], "{log:?}");

    // Insert lines above everything: positions shift, nothing is re-lowered.
    let shifted = format!("/* header */\n\n{}", THREE.replace("x * 2", "x * 3 + 1"));
    db.set_file_text(file, shifted);
    lower_all(&db, file);
    let log = db.take_log();
    assert!(
        log.iter().all(|e| !e.starts_with("lower")),
        "moving functions re-lowered: {log:?}"
    );

    // No edit: nothing runs at all.
    lower_all(&db, file);
    assert!(db.take_log().is_empty());
}

/// Probes run again only when what their exploration read changes in meaning: an edit
/// that only moves text inside a function (spaces, a comment, a line break) re-places
/// its verdicts and re-runs no probe; a change of meaning re-runs them.
#[test]
fn a_layout_edit_inside_a_function_reruns_no_probe() {
    const SRC: &str = "#include <stdlib.h>\n\
                       struct n { struct n *next; };\n\
                       struct n *mk(void) {\n  struct n *p = malloc(sizeof *p);\n  return p;\n}\n\
                       void use(void) {\n  struct n *q = mk();\n  q = 0;\n}\n";
    let mut db = Database::with_execution_log(Config::default());
    let file = db.add_file("t.c".into(), SRC.into());
    let before = file_findings(&db, file);
    assert!(
        before.iter().any(|f| f.verdict == VerdictKind::Leak),
        "{before:?}"
    );
    db.enable_log();
    db.take_log();
    let count = |log: &[String], q: &str| {
        log.iter()
            .filter(|e| e.starts_with(&format!("execute {q}(")))
            .count()
    };

    // Spaces and a line break inside `mk`: the leak in `use` moves one line down.
    let moved = SRC.replace("return p;", "return   p ;\n  /* done */");
    db.set_file_text(file, moved);
    let after = file_findings(&db, file);
    let log = db.take_log();
    assert_eq!(count(&log, "probe_outcome"), 0, "{log:?}");
    assert!(count(&log, "probe_verdict") > 0, "{log:?}");
    let leak = |v: &[Arc<Finding>]| {
        v.iter()
            .find(|f| f.verdict == VerdictKind::Leak)
            .map(|f| (f.loc.line, f.loc.column))
    };
    let (line, col) = leak(&before).unwrap();
    assert_eq!(leak(&after), Some((line + 1, col)));

    // A change of meaning in `mk` re-runs the probes that explored it.
    db.set_file_text(file, SRC.replace("return p;", "free(p);\n  return 0;"));
    let fixed = file_findings(&db, file);
    let log = db.take_log();
    assert!(count(&log, "probe_outcome") > 0, "{log:?}");
    assert!(
        fixed.iter().all(|f| f.verdict != VerdictKind::Leak),
        "{fixed:?}"
    );
}

/// Probes read one function's MOD set at a time (`mod_of`), not the whole table: an edit that
/// changes what `helper` writes re-runs the probes that summarised a call of `helper`, and not
/// those of `b`, which only summarised `other`.
#[test]
fn a_changed_mod_set_reruns_only_the_probes_that_read_it() {
    const SRC: &str = "#include <stdlib.h>\n\
                       char *gp;\n\
                       int g;\n\
                       void other(void) { g = 1; }\n\
                       void helper(void) { }\n\
                       void a(void) { gp = malloc(1); helper(); gp = 0; }\n\
                       void b(void) { gp = malloc(1); other(); gp = 0; }\n";
    let mut db = Database::with_execution_log(Config::default());
    let file = db.add_file("t.c".into(), SRC.into());
    let before = file_findings(&db, file);
    let probes_of = |db: &Database, name: &str| {
        let f = file_functions(db, file)
            .iter()
            .copied()
            .find(|f| f.name(db) == name)
            .unwrap();
        function_probes(db, f).len()
    };
    let (in_a, in_b) = (probes_of(&db, "a"), probes_of(&db, "b"));
    assert!(in_a > 0 && in_b > 0);
    db.enable_log();
    db.take_log();
    db.set_file_text(
        file,
        SRC.replace("void helper(void) { }", "void helper(void) { g = 2; }"),
    );
    let after = file_findings(&db, file);
    let log = db.take_log();
    let count = |q: &str| {
        log.iter()
            .filter(|e| e.starts_with(&format!("execute {q}(")))
            .count()
    };
    assert_eq!(count("mod_table"), 1, "helper's MOD set changed: {log:?}");
    let rerun = count("probe_outcome");
    // Of a's two probes, only `gp = 0` explores back through `helper()` (the allocation's
    // probe starts before it); b's probes read `other`'s set, unchanged. With the whole table
    // read by every probe, b's `gp = 0` re-ran too.
    assert_eq!(rerun, 1, "`a` has {in_a} probes, `b` {in_b}: {log:?}");
    let verdicts = |v: &[Arc<Finding>]| v.iter().map(|f| f.verdict).collect::<Vec<_>>();
    assert_eq!(verdicts(&before), verdicts(&after));
}

/// A block stays fresh until its pointer (or an address inside it) is copied anywhere:
/// writes into it before that are fresh writes, writes after are not.
#[test]
fn fresh_writes_stop_at_the_first_copy() {
    const SRC: &str = "#include <stdlib.h>\n\
                       struct n { struct n *next; struct n *prev; int k; };\n\
                       void push(struct n **headp, int k) {\n\
                         struct n *n = malloc(sizeof *n);\n\
                         if (n == NULL) return;\n\
                         n->k = k;\n\
                         n->next = *headp;\n\
                         *headp = n;\n\
                         n->prev = 0;\n\
                       }\n\
                       void keep(struct n *n) ;\n\
                       void other(void) {\n\
                         struct n *m = malloc(sizeof *m);\n\
                         if (!m) return;\n\
                         struct n **f = &m->next;\n\
                         m->prev = 0;\n\
                         m = malloc(sizeof *m);\n\
                         if (!m) return;\n\
                         m->prev = 0;\n\
                         keep(m);\n\
                         m->next = 0;\n\
                         *f = 0;\n\
                       }\n";
    let mut db = Database::default();
    let file = db.add_file("t.c".into(), SRC.into());
    let irs = lower_all(&db, file);
    let fresh: Vec<Vec<String>> = irs
        .iter()
        .map(|ir| {
            let fw = crate::probe::sites::fresh_writes(ir);
            let mut v: Vec<String> = fw
                .keys()
                .map(|n| {
                    crate::ir::display_stmt(ir, &ir.node(*n).stmt.kind, crate::ir::Notation::C)
                })
                .collect();
            v.sort();
            v
        })
        .collect();
    // push: the writes before `*headp = n` only.
    assert_eq!(fresh[0], ["n->k = k", "n->next = *headp"], "{fresh:?}");
    // other: `&m->next` escapes the first block; the second is fresh until `keep(m)`.
    assert_eq!(fresh[1], ["m->prev = 0"], "{fresh:?}");
}

#[test]
fn declarations_from_other_files_are_visible() {
    let mut db = Database::default();
    db.add_file(
        "list.h".into(),
        "typedef struct node { struct node *next; int v; } Node;\nNode *node_new(int v);\n".into(),
    );
    let main = db.add_file(
        "main.c".into(),
        "void f(void) { Node *n = node_new(1); n->next = 0; }\n".into(),
    );
    let ir = &lower_all(&db, main)[0];
    let text = ir.to_string();
    assert!(text.contains("n: struct node*"), "{text}");
    assert!(text.contains("n->next = 0"), "{text}");
}

#[test]
fn changing_a_struct_in_a_header_relowers_its_users() {
    let mut db = Database::default();
    db.enable_log();
    let h = db.add_file("s.h".into(), "struct s { int *p; };\n".into());
    let c = db.add_file(
        "s.c".into(),
        "void f(struct s *x) { x->p = 0; }\nint g(int y) { return y; }\n".into(),
    );
    lower_all(&db, c);
    db.take_log();
    db.set_file_text(h, "struct s { int *p; int *q; };\n".into());
    lower_all(&db, c);
    let log = db.take_log();
    assert!(log.contains(&"lower f".to_string()), "{log:?}");
}

#[test]
fn static_functions_resolve_per_file() {
    let mut db = Database::default();
    let a = db.add_file("a.c".into(), "static int h(void) { return 1; }\n".into());
    let b = db.add_file(
        "b.c".into(),
        "int h(void) { return 2; }\nint u(void) { return h(); }\n".into(),
    );
    let from_a = resolve_function(&db, a, "h").unwrap();
    let from_b = resolve_function(&db, b, "h").unwrap();
    assert_eq!(from_a.file(&db), a);
    assert_eq!(from_b.file(&db), b);
    // From a third file, only the non-static `h` is visible.
    let c = db.add_file("c.c".into(), "int z(void) { return 0; }\n".into());
    assert_eq!(resolve_function(&db, c, "h").unwrap().file(&db), b);
}

#[test]
fn a_call_links_the_definition_nearest_in_the_directory_tree() {
    let mut db = Database::default();
    // A library definition and a tool's own override, listed first.
    let tool = db.add_file(
        "tools/conv/alloc.c".into(),
        "void *lib_realloc(void *p, int n) { return 0; }\n".into(),
    );
    let lib = db.add_file(
        "src/gc.c".into(),
        "void *lib_realloc(void *p, int n) { return p; }\n".into(),
    );
    let in_lib = db.add_file("src/array.c".into(), "int a(void) { return 0; }\n".into());
    let in_tool = db.add_file(
        "tools/conv/main.c".into(),
        "int m(void) { return 0; }\n".into(),
    );
    let elsewhere = db.add_file("test/t.c".into(), "int t(void) { return 0; }\n".into());
    assert_eq!(
        resolve_function(&db, in_lib, "lib_realloc")
            .unwrap()
            .file(&db),
        lib
    );
    assert_eq!(
        resolve_function(&db, in_tool, "lib_realloc")
            .unwrap()
            .file(&db),
        tool
    );
    // No nearer one: the first in file order, as before.
    assert_eq!(
        resolve_function(&db, elsewhere, "lib_realloc")
            .unwrap()
            .file(&db),
        tool
    );
}

/// A finding's byte range and its line/columns describe the same span, for the probe's own
/// location, its allocation path and its trace, in functions below others and across lines.
#[test]
fn byte_ranges_agree_with_lines_and_columns() {
    const SRC: &str = "#include <stdlib.h>\r\n\
                       struct n { struct n *next; };\r\n\
                       struct n *mk(void) {\r\n  struct n *p = malloc(sizeof *p);\r\n  return p;\r\n}\r\n\
                       /* é */ void use(void) {\r\n  struct n *q = mk();\r\n  q = 0;\r\n}\r\n";
    let mut db = Database::default();
    let file = db.add_file("t.c".into(), SRC.into());
    let index = crate::syntax::LineIndex::new(SRC);
    let offset = |line: u32, column: u32| {
        index
            .offset(crate::syntax::LineCol {
                line: line - 1,
                col: column - 1,
            })
            .unwrap()
    };
    let findings = file_findings(&db, file);
    assert!(findings.iter().any(|f| f.verdict == VerdictKind::Leak));
    for f in findings.iter() {
        let locs = std::iter::once(&f.loc)
            .chain(&f.allocation)
            .chain(f.trace.iter().map(|s| &s.loc));
        for l in locs {
            assert_eq!(l.range.start, offset(l.line, l.column), "{l:?}");
            assert_eq!(l.range.end, offset(l.end_line, l.end_column), "{l:?}");
        }
    }
}

/// A configuration key no probe reads (the editor's `checkOn`, `exclude`) re-runs no probe
/// and lowers nothing again; a budget change re-runs them all.
#[test]
fn an_editor_only_setting_reruns_no_probe() {
    const SRC: &str = "#include <stdlib.h>\n\
                       void f(void) { char *p = malloc(4); p = 0; }\n\
                       void g(void) { char *q = malloc(4); free(q); }\n";
    let mut db = Database::with_execution_log(Config::default());
    let file = db.add_file("t.c".into(), SRC.into());
    let before = file_findings(&db, file);
    db.enable_log();
    db.take_log();
    let outcomes = |log: &[String]| {
        log.iter()
            .filter(|e| {
                e.starts_with("execute probe_outcome(") || e.starts_with("execute lowered(")
            })
            .count()
    };

    db.set_config(Config {
        check_on: crate::config::CheckOn::Change,
        exclude: vec!["vendor/**".into()],
        ..Config::default()
    });
    let after = file_findings(&db, file);
    let log = db.take_log();
    assert_eq!(outcomes(&log), 0, "{log:?}");
    assert_eq!(before, after);

    let mut budget = Config::default();
    budget.budget.transfers += 1;
    db.set_config(budget);
    let _ = file_findings(&db, file);
    let log = db.take_log();
    let rerun = log
        .iter()
        .filter(|e| e.starts_with("execute probe_outcome("))
        .count();
    assert!(
        rerun >= 2,
        "a budget change must re-run the probes: {log:?}"
    );
}

/// The never-returns fixpoint answers from each function's cached shape: after edits that
/// make a chain of callers stop returning (and return again), the facts are those of a fresh
/// database on the same text, and only the edited function's body is explored alone again.
#[test]
fn never_returning_follows_edits_through_cached_shapes() {
    const SRC: &str = "#include <stdlib.h>\n\
                       void die(void) { for (;;) {} }\n\
                       void fatal(const char *m) { if (m) die(); else die(); }\n\
                       void wrap(void) { fatal(\"x\"); }\n\
                       int ok(int x) { if (x) fatal(\"y\"); return x; }\n\
                       void other(void) { abort(); }\n";
    let facts = |db: &Database| -> Vec<(String, String)> {
        function_facts(db)
            .into_iter()
            .filter(|f| f.kind == "never-returns")
            .map(|f| (f.function, f.reason))
            .collect()
    };
    let mut db = Database::with_execution_log(Config::default());
    let file = db.add_file("t.c".into(), SRC.into());
    let first = facts(&db);
    let names: Vec<&str> = first.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["die", "fatal", "wrap", "other"], "{first:?}");
    assert!(first[2].1.contains("`fatal`"), "{first:?}");

    // `die` returns now: the whole chain returns; `other` still calls `abort`.
    let edits = [
        SRC.replace("for (;;) {}", "return;"),
        SRC.to_string(),
        SRC.replace(
            "void wrap(void) { fatal(\"x\"); }",
            "void wrap(void) { exit(1); }",
        ),
    ];
    db.enable_log();
    for text in edits {
        db.take_log();
        db.set_file_text(file, text.clone());
        let incremental = facts(&db);
        let log = db.take_log();
        let shapes = log
            .iter()
            .filter(|e| e.starts_with("execute return_shape("))
            .count();
        assert!(
            shapes <= 1,
            "only the edited function's shape re-runs: {log:?}"
        );
        let mut fresh = Database::default();
        fresh.add_file("t.c".into(), text.clone());
        assert_eq!(incremental, facts(&fresh), "{text}");
    }
}

#[test]
fn expanded_declarations_leave_out_bodies_inside_conditional_groups() {
    let mut db = Database::default();
    let f = db.add_file(
        "decls.c".into(),
        "#define DECL(n) int n##_count;\nDECL(items)\n#ifdef FEATURE\n\
         static int helper(int x) { return x + 1; }\n#endif\n\
         extern \"C\" { int other(void) { return 2; } }\n"
            .into(),
    );
    let text = expanded_declarations(&db, f).expect("a macro is used");
    assert!(text.contains("int items_count;"), "{text}");
    assert!(text.contains("static int helper(int x) {"), "{text}");
    assert!(!text.contains("return"), "{text}");
}

#[test]
fn exit_flags_are_globals_set_only_on_the_way_out() {
    let mut db = Database::default();
    let src = "#include <stdlib.h>\n\
               int exiting;\n\
               int set_early = 1;\n\
               int looping;\n\
               int escaped;\n\
               int ordinary;\n\
               int cleared;\n\
               extern int declared;\n\
               extern double *pointer;\n\
               void watch(int *p);\n\
               void die(void) { exiting = 1; set_early = 1; escaped = 1; cleared = 1; declared = 2; pointer = (double *)1; undeclared = 1; exit(1); }\n\
               void serve(void) { for (;;) looping = 1; }\n\
               void pause_it(void) { ordinary = 1; watch(&escaped); cleared = 0; }\n\
               void die_too(void) { ordinary = 1; abort(); }\n";
    db.add_file("t.c".into(), src.into());
    let flags = super::exit_flags::exit_flags(&db, db.workspace());
    let mut names: Vec<(&String, &String)> = flags.iter().collect();
    names.sort();
    // `set_early` starts nonzero, `looping` is set by a function that loops forever (it
    // returns never, but the program runs on), `escaped` has its address passed, `ordinary`
    // is also set by a function that returns, `pointer` is no number, `undeclared` is
    // declared in no file of the program (a system header's, set by code it does not have).
    assert_eq!(
        names,
        [
            (&"cleared".to_string(), &"die".to_string()),
            (&"declared".to_string(), &"die".to_string()),
            (&"exiting".to_string(), &"die".to_string())
        ]
    );
}

/// The diagnostics read the precise walks alone (`file_leaks`, `probe_leak_verdict`): a
/// probe only the coarse walk proves is `unproved (budget)` there and proved in
/// `probe_verdict`; the leaks are the same, and the coarse walk runs only when a verdict
/// asks for it.
#[test]
fn diagnostics_need_no_coarse_walk_and_see_the_same_leaks() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../test-fixtures/idioms");
    for (name, leaks) in [
        ("loop-loaded-ref-ok.c", 0usize),
        ("loop-loaded-ref-leak.c", 1),
    ] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let mut db = Database::with_execution_log(Config::default());
        db.enable_log();
        let file = db.add_file(name.into(), text);
        let found = file_leaks(&db, file);
        assert_eq!(found.len(), leaks, "{name}");
        let log = db.take_log();
        assert!(
            log.iter().any(|e| e.contains("probe_outcome")),
            "{name}: no probe ran: {log:?}"
        );
        assert!(
            !log.iter().any(|e| e.contains("probe_coarse_outcome")),
            "{name}: the leaks ran a coarse walk"
        );
        let all_leaks: Vec<_> = file_findings(&db, file)
            .iter()
            .filter(|f| f.verdict == VerdictKind::Leak)
            .cloned()
            .collect();
        assert_eq!(all_leaks, *found, "{name}");
        // `exts` at the end of the loop body: abandoned by the precise walk in both files,
        // proved by the coarse walk only where it is leak-free.
        let f = file_functions(&db, file)
            .iter()
            .copied()
            .find(|f| f.name(&db) == "find_ext")
            .unwrap();
        let n = function_probes(&db, f).len() as u32;
        let k = (0..n)
            .find(|&i| {
                let v = probe_leak_verdict(&db, f, i);
                v.variable == "exts" && v.reason.as_deref() == Some("budget")
            })
            .expect("an abandoned `exts` probe");
        let both = probe_verdict(&db, f, k);
        if leaks == 0 {
            assert_eq!(both.verdict, VerdictKind::Proved, "{name}");
        } else {
            assert_eq!(both.reason.as_deref(), Some("budget"), "{name}");
        }
    }
}

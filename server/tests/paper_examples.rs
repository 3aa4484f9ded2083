//! The paper's worked examples (§3 and §4.3), as tests: C in, verdicts and where they were
//! decided out.

use reductio::config::Config;
use reductio::db::{self, Database, Db, Finding, VerdictKind};
use std::sync::Arc;

fn findings(src: &str) -> Vec<Arc<Finding>> {
    let mut database = Database::new(Config::default());
    let file = database.add_file("example.c".into(), src.to_string());
    let d: &dyn Db = &database;
    db::file_findings(d, file).as_ref().clone()
}

/// The verdicts whose probe sits on `line` (1-based), with `variable`.
fn at<'a>(fs: &'a [Arc<Finding>], line: u32, variable: &str) -> Vec<&'a Finding> {
    fs.iter()
        .filter(|f| f.loc.line == line && f.variable == variable)
        .map(|f| f.as_ref())
        .collect()
}

fn refuted_at_lines(f: &Finding) -> Vec<u32> {
    f.trace.iter().map(|s| s.loc.line).collect()
}

const REVERSE: &str = "typedef struct list {
    int data;
    struct list *next;
} List;

List *reverse(List *x) {
    List *y, *t;
    y = NULL;
    while (x != NULL) {
        t = x->next;
        x->next = y;
        y = x;
        x = t;
    }
    return y;
}
";

#[test]
fn figure_1_reverse_is_proved_where_section_3_says() {
    let fs = findings(REVERSE);
    assert!(!fs.is_empty());
    for f in &fs {
        assert_eq!(
            f.verdict,
            VerdictKind::Proved,
            "{}: {}",
            f.variable,
            f.message
        );
    }
    // `y = x` (line 12) is contradicted right away by `x->next = y` (line 11).
    let y_eq_x = at(&fs, 12, "y");
    assert_eq!(refuted_at_lines(y_eq_x[0]), [11], "{}", y_eq_x[0].message);
    assert!(y_eq_x[0].message.contains("x->next = y"));
    // `x->next = y` (line 11) and `x = t` (line 13) the same way, by their predecessors.
    assert_eq!(refuted_at_lines(at(&fs, 11, "x->next")[0]), [10]);
    assert_eq!(refuted_at_lines(at(&fs, 13, "x")[0]), [12]);
    // `t = x->next` (line 10): around the loop by `x = t`, out of it where t's scope begins.
    let t = refuted_at_lines(at(&fs, 10, "t")[0]);
    assert!(t.contains(&13) && t.contains(&7), "{t:?}");
    // `y = NULL` (line 8): y's scope begins right before.
    assert_eq!(refuted_at_lines(at(&fs, 8, "y")[0]), [7]);
    // The return sequence `ret = y; y = NULL; t = NULL`: y by `ret = y`, t by `x = t` and
    // its scope, the formal x by the loop exit `x == NULL`.
    let ret = at(&fs, 15, "y");
    assert!(refuted_at_lines(ret[0]).contains(&15), "{}", ret[0].message);
    let t_at_ret = refuted_at_lines(at(&fs, 15, "t")[0]);
    assert!(
        t_at_ret.contains(&13) && t_at_ret.contains(&7),
        "{t_at_ret:?}"
    );
    let x_at_ret = at(&fs, 15, "x");
    assert!(
        x_at_ret[0].message.contains("x == NULL"),
        "{}",
        x_at_ret[0].message
    );
}

#[test]
fn the_x_gets_y_triple_contradicts_immediately() {
    // §4.3: the triple ({r_y}, {*a_y}, {}) after `x ← y` is contradicted by that very
    // statement (SUBST2 gives -(*a_y), FILTER1 keeps +(*a_y)). It is exactly the probe of
    // `y = NULL` right after `x = y`.
    let src =
        "void f(char *x, char *y) {\n    x = y;\n    y = NULL;\n    g(x);\n}\nvoid g(char *p);\n";
    let fs = findings(src);
    let probe = at(&fs, 3, "y");
    assert_eq!(probe.len(), 1);
    assert_eq!(probe[0].verdict, VerdictKind::Proved);
    assert_eq!(refuted_at_lines(probe[0]), [2], "{}", probe[0].message);
    assert!(
        probe[0].transfers <= 2,
        "took {} transfers",
        probe[0].transfers
    );
}

#[test]
fn a_leaking_reverse_is_a_leak_with_its_trace() {
    let src = "#include <stdlib.h>
typedef struct list { int data; struct list *next; } List;

List *reverse_leaky(List *x) {
    List *y, *t;
    y = NULL;
    while (x != NULL) {
        t = x->next;
        y = x;          /* forgot x->next = y: the list is not reversed */
        x = t;
    }
    return y;
}

List *make(int n) {
    List *head = NULL;
    for (int i = 0; i < n; i++) {
        List *c = malloc(sizeof *c);
        if (!c) return head;
        c->data = i;
        c->next = head;
        head = c;
    }
    return head;
}

int main(void) {
    List *l = make(3);
    l = reverse_leaky(l);
    return 0;
}
";
    let fs = findings(src);
    let leaks: Vec<&Finding> = fs
        .iter()
        .filter(|f| f.verdict == VerdictKind::Leak)
        .map(|f| f.as_ref())
        .collect();
    // The old head is lost when `l` is overwritten with the (last) node reverse returns; that
    // last node is then lost when `l` goes out of scope at main's return (never freed).
    let at: Vec<(u32, &str)> = leaks
        .iter()
        .map(|l| (l.loc.line, l.variable.as_str()))
        .collect();
    assert_eq!(at, [(29, "l"), (30, "l")], "{leaks:#?}");
    let leak = leaks[0];
    // Allocation path: the call of `make` in main, then malloc in make.
    let alloc: Vec<u32> = leak.allocation.iter().map(|a| a.line).collect();
    assert_eq!(alloc, [28, 18]);
    assert_eq!(
        leak.trace.first().map(|s| s.note.as_str()),
        Some("allocated by `malloc`")
    );
    assert_eq!(
        leak.trace.last().map(|s| s.note.as_str()),
        Some("`l` is overwritten")
    );
    assert!(leak.trace.iter().any(|s| s.note == "returned from `make`"));
}

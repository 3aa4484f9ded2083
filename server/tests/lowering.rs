//! Lowering snapshots: one C snippet per construct in, its printed IR and CFG out.
//!
//! Each snapshot starts with the snippet (numbered, so the `line:col` of every node can be
//! checked against it), then the `<globals>` pseudo-function when the snippet has initialized
//! globals, then every function as `reductio ir` prints it. Every snapshot was reviewed against
//! C semantics and the paper's core language (§4): a changed snapshot is a changed lowering and
//! must be reviewed again, not just accepted.
//!
//! `cfg_is_well_formed_for_every_snippet` checks the graph invariants the analyses rely on over
//! every snippet of this file.

use reductio::db::{self, Database, Db};
use reductio::ir::{
    Callee, ExprId, ExprKind, FunctionIr, LocalId, LocalKind, NodeId, ScopeEndKind, StmtKind,
    Symbol, write_function_with,
};
use reductio::syntax::TextRange;
use std::collections::HashSet;
use std::fmt::Write;
use std::sync::Arc;

// ---- harness ----------------------------------------------------------------------------

/// Every function of a snippet, lowered: `<globals>` first when there are initialized globals.
fn lower_all(src: &str) -> Vec<Arc<FunctionIr>> {
    let mut database = Database::default();
    let file = database.add_file("test.c".into(), src.to_string());
    let db: &dyn Db = &database;
    let mut out = Vec::new();
    let items = db::file_syntax_items(db, file);
    if items.globals.iter().any(|g| g.init.is_some()) {
        out.push(db::global_inits(db, file));
    }
    for f in db::file_functions(db, file) {
        out.push(db::lowered(db, *f));
    }
    out
}

/// The printed IR of every function of `src` in `database` (with its configuration).
fn ir_in(mut database: Database, src: &str) -> String {
    let file = database.add_file("test.c".into(), src.to_string());
    let db: &dyn Db = &database;
    let mut out = String::new();
    let items = db::file_syntax_items(db, file);
    if items.globals.iter().any(|g| g.init.is_some()) {
        let globals = db::global_inits(db, file);
        let idx = db::line_index(db, file);
        let loc = |r: TextRange| {
            let lc = idx.line_col(r.start);
            format!("{}:{}", lc.line + 1, lc.col + 1)
        };
        write_function_with(&mut out, &globals, Some(&loc), Default::default()).unwrap();
        out.push('\n');
    }
    for f in db::file_functions(db, file) {
        let ir = db::lowered(db, *f);
        let loc = |r: TextRange| {
            let (l, c) = db::location(db, *f, r);
            format!("{l}:{c}")
        };
        write_function_with(&mut out, &ir, Some(&loc), Default::default()).unwrap();
        out.push('\n');
    }
    let stats = &items.stats;
    if stats.error_nodes > 0 || stats.recovered_functions > 0 || !stats.unrecovered.is_empty() {
        writeln!(
            out,
            "file: {} error region(s), {} recovered head(s), {} unrecovered fragment(s)",
            stats.error_nodes,
            stats.recovered_functions,
            stats.unrecovered.len()
        )
        .unwrap();
    }
    out
}

/// The snapshot of one snippet: the numbered source, then its IR.
fn snapshot(src: &str) -> String {
    snapshot_in(Database::default(), src)
}

fn snapshot_in(database: Database, src: &str) -> String {
    let mut out = String::new();
    for (i, line) in src.lines().enumerate() {
        writeln!(out, "{:>3} | {line}", i + 1).unwrap();
    }
    out.push_str("----\n");
    out.push_str(&ir_in(database, src));
    out
}

macro_rules! cases {
    ($($name:ident: $src:expr;)*) => {
        /// Every snippet of this file, by test name.
        const CASES: &[(&str, &str)] = &[$((stringify!($name), $src)),*];
        $(
            #[test]
            fn $name() {
                insta::assert_snapshot!(stringify!($name), snapshot($src));
            }
        )*
    };
}

/// Snippets with code no path from the entry reaches (after a `return`, in `if (0)`, after an
/// infinite loop, before the first `case`). Every other snippet must be fully reachable.
const DEAD_CODE: &[&str] = &[
    "constant_conditions",
    "switch_declaration_before_case",
    "infinite_loop_never_returns",
    "statements_after_return",
];

// ---- CFG invariants ---------------------------------------------------------------------

fn reachable(ir: &FunctionIr) -> Vec<bool> {
    let mut seen = vec![false; ir.nodes.len()];
    let mut stack = vec![ir.entry];
    seen[ir.entry.0 as usize] = true;
    while let Some(n) = stack.pop() {
        for &s in &ir.node(n).succs {
            if !seen[s.0 as usize] {
                seen[s.0 as usize] = true;
                stack.push(s);
            }
        }
    }
    seen
}

fn exprs_of(s: &StmtKind) -> Vec<ExprId> {
    match s {
        StmtKind::Assign { addr, value } => vec![*addr, *value],
        StmtKind::Alloc { addr, .. } => vec![*addr],
        StmtKind::Free { ptr } => vec![*ptr],
        StmtKind::ZeroFill { addr } => vec![*addr],
        StmtKind::Cond { lhs, rhs, .. } => vec![*lhs, *rhs],
        StmtKind::Call { dest, callee, args } => {
            let mut v: Vec<ExprId> = dest.iter().copied().collect();
            if let Callee::Indirect(f) = callee {
                v.push(*f);
            }
            v.extend(args.iter().copied());
            v
        }
        StmtKind::Return { value } => value.iter().copied().collect(),
        StmtKind::Opaque { reads, .. } => reads.clone(),
        StmtKind::Enter
        | StmtKind::ScopeBegin { .. }
        | StmtKind::ScopeEnd { .. }
        | StmtKind::Nop => vec![],
    }
}

fn locals_of(s: &StmtKind) -> Vec<LocalId> {
    match s {
        StmtKind::ScopeBegin { locals } | StmtKind::ScopeEnd { locals, .. } => locals.clone(),
        _ => vec![],
    }
}

/// Check the invariants of one function's graph; returns the problems found.
fn check_function(ir: &FunctionIr, expect_dead_code: bool) -> Vec<String> {
    let mut errs = Vec::new();
    let n = ir.nodes.len();
    let valid = |id: NodeId| (id.0 as usize) < n;
    if !valid(ir.entry) || !valid(ir.exit) {
        return vec![format!(
            "entry {:?} or exit {:?} out of range",
            ir.entry, ir.exit
        )];
    }
    // Entry and exit.
    let entry = ir.node(ir.entry);
    if !matches!(entry.stmt.kind, StmtKind::Enter) {
        errs.push(format!("entry n{} is not `enter`", ir.entry.0));
    }
    if !entry.preds.is_empty() {
        errs.push(format!("entry has predecessors {:?}", entry.preds));
    }
    let exit = ir.node(ir.exit);
    if !matches!(exit.stmt.kind, StmtKind::Return { .. }) {
        errs.push(format!("exit n{} is not `return`", ir.exit.0));
    }
    if !exit.succs.is_empty() {
        errs.push(format!("exit has successors {:?}", exit.succs));
    }
    match (ir.ret, &exit.stmt.kind) {
        (Some(r), StmtKind::Return { value: Some(v) }) => {
            let ok = matches!(ir.exprs.kind(*v), ExprKind::Deref(a)
                if *ir.exprs.kind(*a) == ExprKind::Addr(Symbol::Local(r)));
            if !ok {
                errs.push("the exit does not return `ret`".into());
            }
        }
        (None, StmtKind::Return { value: None }) => {}
        _ => errs.push("the exit's value does not match `ret`".into()),
    }
    for id in ir.node_ids() {
        let node = ir.node(id);
        if id != ir.entry && matches!(node.stmt.kind, StmtKind::Enter) {
            errs.push(format!("n{} is a second `enter`", id.0));
        }
        if id != ir.exit && matches!(node.stmt.kind, StmtKind::Return { .. }) {
            errs.push(format!("n{} is a second `return`", id.0));
        }
        // Edges: in range, no duplicates, succs and preds mirror each other.
        for (what, list) in [("succ", &node.succs), ("pred", &node.preds)] {
            let mut seen = HashSet::new();
            for &m in list.iter() {
                if !valid(m) {
                    errs.push(format!("n{}: {what} n{} out of range", id.0, m.0));
                } else if !seen.insert(m) {
                    errs.push(format!("n{}: duplicate {what} n{}", id.0, m.0));
                }
            }
        }
        for &s in node.succs.iter().filter(|s| valid(**s)) {
            if !ir.node(s).preds.contains(&id) {
                errs.push(format!("n{} -> n{} but n{} lacks the pred", id.0, s.0, s.0));
            }
        }
        for &p in node.preds.iter().filter(|p| valid(**p)) {
            if !ir.node(p).succs.contains(&id) {
                errs.push(format!("n{} has pred n{} without the edge", id.0, p.0));
            }
        }
        // Expressions and locals mentioned exist.
        for e in exprs_of(&node.stmt.kind) {
            if e.0 as usize >= ir.exprs.len() {
                errs.push(format!("n{}: expression {e:?} out of range", id.0));
            }
        }
        for l in locals_of(&node.stmt.kind) {
            if l.0 as usize >= ir.locals.len() {
                errs.push(format!("n{}: local {l:?} out of range", id.0));
            }
        }
        // A return ends the scope of every parameter and every temporary.
        if let StmtKind::ScopeEnd {
            locals,
            kind: ScopeEndKind::Return,
        } = &node.stmt.kind
        {
            for (i, l) in ir.locals.iter().enumerate() {
                let needed = matches!(l.kind, LocalKind::Param | LocalKind::Temp);
                if needed && !locals.contains(&LocalId(i as u32)) {
                    errs.push(format!("n{}: return-scope-end misses `{}`", id.0, l.name));
                }
            }
            if node.succs.as_slice() != [ir.exit] {
                errs.push(format!(
                    "n{}: return-scope-end does not go to the exit",
                    id.0
                ));
            }
        }
        // Only the exit ends a path.
        if id != ir.exit && node.succs.is_empty() {
            errs.push(format!("n{} has no successor", id.0));
        }
    }
    for (i, e) in ir.exprs.iter() {
        let bad = match &e.kind {
            ExprKind::Deref(a) | ExprKind::Field(a, _) => a.0 >= i.0,
            ExprKind::Binary(_, l, r) => l.0 >= i.0 || r.0 >= i.0,
            ExprKind::Addr(Symbol::Local(l)) => l.0 as usize >= ir.locals.len(),
            _ => false,
        };
        if bad {
            errs.push(format!("expression {i:?} refers forward or out of range"));
        }
    }
    // Reachability.
    let seen = reachable(ir);
    let dead: Vec<String> = ir
        .node_ids()
        .filter(|id| !seen[id.0 as usize])
        .map(|id| format!("n{}", id.0))
        .collect();
    if !expect_dead_code && !dead.is_empty() {
        errs.push(format!("unreachable from the entry: {}", dead.join(", ")));
    }
    if expect_dead_code && dead.is_empty() {
        errs.push("listed in DEAD_CODE but every node is reachable".into());
    }
    errs
}

#[test]
fn cfg_is_well_formed_for_every_snippet() {
    let mut failures = Vec::new();
    for (name, src) in CASES {
        let fns = lower_all(src);
        assert!(!fns.is_empty(), "{name}: no function lowered");
        let expect_dead = DEAD_CODE.contains(name);
        let mut any_dead = false;
        for ir in &fns {
            let seen = reachable(ir);
            let has_dead = seen.iter().any(|s| !s);
            any_dead |= has_dead;
            // Dead code is a per-snippet expectation: check each function without it, then
            // the snippet as a whole.
            for e in check_function(ir, has_dead && expect_dead) {
                failures.push(format!("{name}: fn {}: {e}", ir.name));
            }
        }
        if expect_dead && !any_dead {
            failures.push(format!("{name}: listed in DEAD_CODE but has no dead code"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_dead_code_entry_names_a_case() {
    for name in DEAD_CODE {
        assert!(
            CASES.iter().any(|(n, _)| n == name),
            "DEAD_CODE names `{name}`, which is not a case"
        );
    }
}

// ---- the snippets -----------------------------------------------------------------------

cases! {
    // -- declarations ---------------------------------------------------------------------

    decl_scalars_and_pointers: r#"
int f(void) {
  int x = 1, *p = &x, y;
  long l = -5;
  double d = 1.5;
  char c = 'a';
  int *q = p, **pp = &q;
  int z = { 7 };
  return x + y;
}
"#;

    decl_arrays: r#"
void f(int n) {
  int a[3] = {1, 2, 3};
  int w[4] = {0};
  int d[5] = {[2] = 3, 4};
  char buf[] = "abc";
  char name[8] = {"xy"};
  char *strs[] = {"a", "b"};
  int m[2][2] = {{1, 2}, {3, 4}};
  int vla[n + 1];
}
"#;

    decl_structs: r#"
struct P { int x; int *p; };
struct Q { struct P a; struct P *b; int arr[3]; };
void f(int *ip) {
  struct P s = {1, ip};
  struct P t = {.p = 0, .x = 2};
  struct P u = {.x = 3};
  struct Q q = {{1, ip}, 0, {7}};
  struct Q r = {.a = {.p = ip}, .arr = {1, 2}};
  struct P z = {0};
  struct P ps[2] = {{1, 0}, {.p = ip}};
  struct P c = s;
}
"#;

    // -- assignments and increments -------------------------------------------------------

    assignment_operators: r#"
void f(int x, int y, int *p, int **pp, int i) {
  x = y;
  x += 1; x -= 2; x *= 3; x /= 4; x %= 5;
  x <<= 1; x >>= 2; x &= 3; x |= 4; x ^= 5;
  p += i;
  p -= 1;
  pp[i][1] += 2;
  *p *= y;
}
"#;

    increments_as_statements: r#"
void f(int i, int *p, int **pp) {
  i++;
  ++i;
  i--;
  --i;
  p++;
  (*pp)++;
  pp[i]--;
}
"#;

    increments_as_values: r#"
void f(int x, int *p, int i, int *a) {
  *p++ = x;
  int *q = p++;
  q = p++;
  int y = ++i;
  x = *--p;
  a[i++] = 0;
  x = a[i]++;
}
"#;

    chained_assignment: r#"
void f(int a, int b, int c, int *p) {
  a = b = c;
  a = (b = 3) + 1;
  *p = a = 5;
}
"#;

    // -- branches: && || ! ?: -------------------------------------------------------------

    logical_operators_in_conditions: r#"
void f(int a, int b, int c, int *p) {
  if (a && b) a = 1;
  if (a || b) a = 2;
  if (!p) a = 3;
  if (a && (b || !c)) a = 4;
  while (p != 0 && *p > 0) p++;
}
"#;

    logical_operators_as_values: r#"
int g(void);
void f(int a, int b, int *p) {
  int x = a && b;
  int y = !p;
  int z = a < b;
  int w = a || g();
  int v = !!a;
}
"#;

    logical_operators_as_statements: r#"
int f(int);
void g(int a, int b) {
  a && f(1);
  a || f(2);
  a && b && f(3);
}
"#;

    conditional_expressions: r#"
int f(int); int g(int);
void h(int c, int d, int x, int y, int *p, int *q) {
  int t = c ? f(x) : d ? g(y) : 0;
  t = c ? f(x) : d ? g(y) : 0;
  c ? f(1) : g(2);
  int *r = c ? p : 0;
  p = c ? q : p;
  x = f(c ? x : y);
  x = (c ? p : q)[0];
}
"#;

    gnu_elvis: r#"
int *f(void);
int *g(int *p) {
  int *q = p ?: f();
  return q;
}
"#;

    // -- statements -----------------------------------------------------------------------

    if_else_chains: r#"
int f(int i) {
  int x;
  if (i == 0) x = 1;
  else if (i == 1) x = 2;
  else if (i < 0) { int y = -i; x = y; }
  else x = 4;
  if (x) x++;
  return x;
}
"#;

    while_loop: r#"
int f(int n) {
  int s = 0;
  while (n > 0) {
    int d = n % 10;
    s += d;
    n /= 10;
  }
  return s;
}
"#;

    for_loops: r#"
int f(int n, int *a) {
  int s = 0;
  for (int i = 0; i < n; i++) s += a[i];
  for (int i = 0, *p = a; i < n; i++, p++) *p = i;
  for (;;) { if (s) break; s++; }
  int j;
  for (j = 0; ; j++) if (j > n) break;
  for (; j; ) j--;
  return s;
}
"#;

    do_while: r#"
void f(int n, int *p) {
  do n--; while (n > 0);
  do {
    int k = n;
    if (k == 3) continue;
    *p = k;
  } while (n++ < 10);
}
"#;

    switch_fallthrough_default_in_middle: r#"
int f(int x) {
  int y = 0;
  switch (x) {
  case 1: y = 1;
  case 2: y += 2; break;
  default: y = 5;
  case 3: { int *k = &y; *k = 3; break; }
  case 4: return 4;
  }
  return y;
}
"#;

    switch_case_into_loop: r#"
int f(int x) {
  int y = 0;
  switch (x) { case 1: y = 1; case 2: while (y) y--; break; }
  return y;
}
"#;

    switch_without_default_and_enum_cases: r#"
enum color { RED, GREEN = 5, BLUE };
#define LIMIT 10
int f(enum color c, int n) {
  switch (c) {
  case RED: return 1;
  case GREEN:
  case BLUE: n = LIMIT; break;
  case (7): n = -1;
  }
  switch (n) { case 'a': n = 0; }
  return n;
}
"#;

    switch_declaration_before_case: r#"
void use(int *);
void f(int x) {
  switch (x) {
    int *p;
  case 1:
    p = &x;
    use(p);
    break;
  default: {
    int *q = 0;
    use(q);
  }
  }
}
"#;

    switch_case_inside_nested_loop: r#"
void f(char *to, char *from, int count) {
  int n = (count + 7) / 8;
  switch (count % 8) {
  case 0: do { char *t = to; *t = *from++;
  case 7:      *to = *from++;
  case 1:      *to = *from++;
          } while (--n > 0);
  }
}
"#;

    switch_in_loop_break_and_continue: r#"
void f(int n, int *a) {
  for (int i = 0; i < n; i++) {
    int *p = &a[i];
    switch (*p) {
    case 0: continue;
    case 1: break;
    default: { int z = 2; if (z) continue; }
    }
    *p = 9;
  }
}
"#;

    goto_forward_and_backward: r#"
int f(int n) {
again:
  if (n > 10) goto out;
  n++;
  goto again;
out:
  return n;
}
"#;

    goto_out_of_block_with_locals: r#"
void *malloc(unsigned long);
void free(void *);
int use(int *);
int f(int n) {
  {
    int *p = malloc(4);
    if (use(p)) goto fail;
    {
      int *q = p;
      if (n) goto fail;
      use(q);
    }
    free(p);
  }
  return 0;
fail:
  return -1;
}
"#;

    goto_into_block: r#"
void f(int c) {
  if (c) goto inside;
  {
    int *p = 0;
    int k = 1;
    c = k;
  inside:
    c = 2;
  }
}
"#;

    goto_backward_past_declaration: r#"
void *malloc(unsigned long);
int use(char *);
void f(void) {
  {
  retry:;
    char *buf = malloc(8);
    if (use(buf)) goto retry;
  }
}
"#;

    labels: r#"
int f(int n) {
  int x = 0;
start:
  x++;
unused:
  if (x < n) goto start;
  goto end;
end:;
  return x;
}
"#;

    computed_goto: r#"
void f(void **tbl, int op) {
  void *labels[] = { &&add, &&done };
  goto *tbl[op];
add:
  op++;
  { int *p = 0; goto *labels[op]; }
done:
  return;
}
"#;

    gnu_case_range: r#"
int f(int c) {
  switch (c) {
  case '0' ... '9': return 1;
  case 'a': return 2;
  }
  return 0;
}
"#;

    goto_unknown_label: r#"
void f(int n) {
  if (n) goto nowhere;
  n = 1;
}
"#;

    break_continue_nested_loops_with_locals: r#"
int f(int n) {
  for (int i = 0; i < n; i++) {
    int *p = 0;
    for (;;) {
      int *q = 0;
      if (n) break;
      if (i) continue;
      { int *r = 0; if (r) break; if (q) continue; }
    }
    if (n) continue;
    while (n) { int z = 0; if (z) break; n--; }
    do { int w = 1; if (w) continue; } while (n);
  }
  return 0;
}
"#;

    return_from_nested_blocks: r#"
int *f(int a, int *b) {
  int *x = b;
  {
    int *y = x;
    {
      int *z = y;
      if (a) return z;
    }
    if (a > 1) return y;
  }
  return x;
}
void g(int a) {
  int k = a;
  if (k) return;
  { int j = k; }
}
"#;

    statements_after_return: r#"
int f(int a) {
  return a;
  a = 2;
  return a + 1;
}
"#;

    constant_conditions: r#"
void f(int a) {
  while (1) { if (a) break; a++; }
  do { a--; } while (0);
  if (0) a = 5;
  if (1) a = 6; else a = 7;
}
"#;

    infinite_loop_never_returns: r#"
int f(int a) {
  for (;;) a++;
  return a;
}
"#;

    // -- calls ----------------------------------------------------------------------------

    nested_calls_get_temporaries: r#"
int f(int, int); int g(int); int h(int); void v(int);
int k(int x, int y) {
  int r = f(g(x), h(y));
  f(g(h(1)), 2);
  v(g(x));
  r = g(x) + h(y);
  return g(r);
}
"#;

    calls_as_conditions: r#"
int f(int); char *next(void);
void g(int x) {
  if (f(x)) x = 1;
  while (f(x) > 0) x--;
  if (!f(2)) x = 3;
  char *s;
  while ((s = next()) != 0) x++;
}
"#;

    comma_operator: r#"
int f(int);
void g(int a, int b) {
  a = 1, b = 2;
  a = (f(a), b);
  for (a = 0, b = 1; a < b; a++, b--) ;
  if (f(a), b) a = 3;
}
"#;

    casts_are_transparent: r#"
void *malloc(unsigned long);
struct S { int x; };
void f(void *v, long l) {
  int *p = (int *)v;
  struct S *s = (struct S *)malloc(sizeof(struct S));
  char c = (char)l;
  long back = (long)(char *)p;
  (void)p;
  ((struct S *)v)->x = 1;
}
"#;

    // GNU `typeof` (uthash's `DECLTYPE(x)` is `(__typeof(x))`, utlist's `LDECLTYPE(x) t;`):
    // a cast to it is transparent like any cast, never a call of `__typeof` whose result is
    // called with the value; a declared local gets the operand's type. Where the rewrite does
    // not parse as a type (`__builtin_types_compatible_p(typeof(a), …)`), `typeof(a)` is no
    // call either.
    typeof_casts_and_declarations: r#"
struct node { struct node *next; int v; };
struct list { struct node *items; };
typedef struct node node_t;
void *malloc(unsigned long);
void g(struct list *l, struct node *h, void *raw) {
  struct node *m = (__typeof(m))(malloc(sizeof *m));
  __typeof(l->items) t1 = l->items;
  __typeof(h) t2, *t3;
  __typeof__(*h) copy = *h;
  typeof(node_t) *tp = (typeof(h))raw;
  t2 = ((__typeof(t2))(t1->next));
  t3 = (__typeof__(t3))&t2;
  int n = __builtin_types_compatible_p(typeof(t1), typeof(m));
}
"#;

    // A statement attribute (what a project's `FALLTHROUGH` macro expands to once
    // `__has_attribute(fallthrough)` or a version test selects it): tree-sitter-c wraps it in
    // an ERROR; it is no statement, not an opaque syntax error.
    statement_attribute_is_no_statement: r#"
int f(int x) {
  switch (x) {
  case 1:
    x++;
    __attribute__((__fallthrough__));
  case 2:
    return x;
  }
  return 0;
}
"#;

    sizeof_is_a_scalar: r#"
struct S { int a; int *b; };
unsigned long f(struct S *s, int n) {
  unsigned long a = sizeof(struct S);
  unsigned long b = sizeof *s + sizeof(int) * n;
  unsigned long c = sizeof s->b;
  return a + b + c;
}
"#;

    string_literals: r#"
int puts(const char *);
const char *f(int i) {
  const char *s = "hello";
  const char *t = "con" "cat"
                  "enated";
  puts("literal");
  char c = "abc"[i];
  return i ? s : t;
}
"#;

    // -- memory ---------------------------------------------------------------------------

    arrays_and_indexing: r#"
int f(int i, int j, int *p) {
  int a[4];
  int m[3][4];
  int *ptrs[5];
  a[i] = 1;
  int x = a[i] + *(a + 1);
  m[i][j] = 2;
  ptrs[i] = &m[i][0];
  *ptrs[j] = 3;
  x += i[a];
  x += p[2];
  int *e = &a[2];
  return x + *e;
}
"#;

    struct_values_copy_field_by_field: r#"
struct S { int a; char *b; };
struct T { struct S s; struct S *ps; struct T *next; };
union U { int i; char *p; };
struct S mk(void);
void take(struct S);
void f(struct S *p, struct T *t) {
  struct S x, y;
  x = y;
  struct T u = *t;
  *p = x;
  t->s = *p;
  x = mk();
  take(x);
  union U v, w;
  v = w;
  int k = mk().a;
}
"#;

    struct_pointers_and_chains: r#"
struct D { int *d; };
struct C { struct D *d; int v; };
struct B { struct C c; struct C *cp; };
struct A { struct B b; struct B *bp; };
int *f(struct A *a, struct A s) {
  int *x = a->b.cp->d->d;
  a->bp->c.v = 3;
  (*a).b.c.v = 4;
  s.bp->cp = &s.b.c;
  struct C **pp = &a->b.cp;
  (*pp)->v = 5;
  return a->bp->cp->d->d;
}
"#;

    compound_literals: r#"
struct S { int a; int *b; };
void take(struct S *);
void f(int *c) {
  struct S *q = &(struct S){1, 0};
  struct S x;
  x = (struct S){.b = c};
  take(&(struct S){2, c});
  int *arr = (int[]){1, 2, 3};
}
"#;

    function_pointers: r#"
struct obj;
struct ops { int (*close)(struct obj *); };
struct obj { struct ops *ops; };
int three(int);
int (*global_fp)(int) = three;
int f(int (*fp)(int), struct obj *obj) {
  int r = fp(3);
  r += (*fp)(4);
  obj->ops->close(obj);
  int (*h)(int) = three;
  h = &three;
  r = h(5);
  r = global_fp(6);
  r = (*three)(7);
  return r;
}
"#;

    varargs: r#"
#include <stdarg.h>
int sum(int n, ...) {
  va_list ap;
  va_start(ap, n);
  char *s = va_arg(ap, char *);
  int v = va_arg(ap, int);
  double d = va_arg(ap, double);
  va_end(ap);
  return v;
}
"#;

    static_locals: r#"
void *malloc(unsigned long);
int counter(void) {
  static int count = 0;
  static char *buf;
  count++;
  buf = malloc(count);
  {
    static int count = 7;
    count--;
  }
  return count;
}
"#;

    globals_with_initializers: r#"
struct S { int a; char *b; struct S *next; };
static struct S head = { 1, "x", 0 };
struct S *gp = &head;
int table[3] = { 1, 2 };
char *names[] = { "a", "b", 0 };
int plain;
extern int ext;
int *uses(void) { gp->a = plain + ext; return table; }
"#;

    // -- allocation -----------------------------------------------------------------------

    malloc_calloc_free: r#"
#include <stdlib.h>
struct node { struct node *next; int v; };
struct node *f(int n) {
  struct node *p = malloc(sizeof *p);
  if (!p) return NULL;
  p->next = calloc(n, sizeof *p);
  int *q = (int *)malloc(n * sizeof(int));
  free(q);
  free(p->next);
  return p;
}
"#;

    memset_whole_object: r#"
#include <string.h>
#include <strings.h>
struct box { char *path; int opened; };
typedef struct box box_t;
void f(struct box *p, box_t *q, char *buf, unsigned long n) {
  struct box s;
  memset(p, 0, sizeof *p);
  memset(q, 0, sizeof(box_t));
  memset(&s, 0, sizeof s);
  bzero(p, sizeof(struct box));
  memset(p, 0, sizeof p);
  memset(p, 1, sizeof *p);
  memset(p, 0, n * sizeof *p);
  memset(buf, 0, n);
  memset((char *)p, 0, sizeof *p);
  p = memset(p, 0, sizeof *p);
}
"#;

    chained_assignment_of_malloc: r#"
#include <stdlib.h>
void f(unsigned long n) {
  char *p, *q;
  p = q = malloc(n);
  free(p);
}
"#;

    realloc_is_a_branch: r#"
#include <stdlib.h>
char *f(char *p, unsigned long n) {
  p = realloc(p, n);
  char *q = realloc(p, n * 2);
  if (!q) return p;
  if ((p = realloc(q, n)) == NULL) return q;
  return p;
}
"#;

    strdup_and_strndup: r#"
#include <string.h>
char *f(const char *s) {
  char *a = strdup(s);
  char *b = strndup(s, 3);
  free(a);
  return b;
}
"#;

    posix_memalign_out_parameter: r#"
#include <stdlib.h>
void *f(unsigned long n) {
  void *m;
  int rc = posix_memalign(&m, 16, n);
  if (rc != 0) return NULL;
  if (posix_memalign(&m, 32, n)) return NULL;
  return m;
}
"#;

    asprintf_out_parameter: r#"
#include <stdio.h>
char *f(const char *name) {
  char *str;
  asprintf(&str, "%s", name);
  free(str);
  if (asprintf(&str, "%d", 3) < 0) return NULL;
  return str;
}
"#;

    ignored_allocation_result: r#"
#include <stdlib.h>
#include <string.h>
void f(const char *s) {
  malloc(4);
  (void)strdup(s);
}
"#;

    // -- preprocessor ---------------------------------------------------------------------

    preproc_if_else_in_body: r#"
int f(int x) {
  int y = 0;
#if defined(FOO)
  y = 1;
#elif BAR
  y = 2;
#else
  y = 3;
#endif
#ifdef BAZ
  y = 5;
#endif
  return y;
}
"#;

    preproc_if_zero_is_skipped: r#"
int f(int x) {
#if 0
  x = 1;
#endif
#if 0
  x = 2;
#else
  x = 3;
#endif
  return x;
}
"#;

    preproc_declaration_visible_after_endif: r#"
#include <stdlib.h>
void f(int n) {
#ifdef DEBUG
  char *trace = malloc(n);
#endif
  n++;
#ifdef DEBUG
  free(trace);
#endif
#if USE_HEAP
  int *p = malloc(4);
#else
  int *p = 0;
#endif
  free(p);
}
"#;

    preproc_label_in_both_branches: r#"
int f(int x) {
  if (x) goto out;
  x = 1;
#ifdef A
out:
  x = 2;
#else
out:
  x = 3;
#endif
  return x;
}
"#;

    // -- odd heads and GNU C --------------------------------------------------------------

    knr_definition: r#"
int f(a, b, c)
  int a;
  char *b;
{
  b[a] = 0;
  return a + c;
}
"#;

    macro_decorated_heads: r#"
LUA_API int lua_gettop (lua_State *L) {
  return (int)(L->top - (L->ci->func + 1));
}
static int ZEXPORT inflate(z_streamp strm, int flush) { return flush; }
"#;

    // The parameters are the inner declarator's; the outer `(void)` is the result's.
    function_returning_a_function_pointer: r#"
void (*lookup(struct vfs *v, const char *sym))(void) {
  return v->sym(v, sym);
}
"#;

    // expat: a macro builds the name; the parameters are the outer list.
    macro_built_function_name: r#"
#define PREFIX(ident) normal_ ## ident
static int PTRCALL PREFIX(scanLt)(const ENCODING *enc, const char *ptr, const char **next) {
  *next = ptr;
  return 0;
}
"#;

    // SQLite: tree-sitter takes the macro for the type and `void` for the name.
    macro_before_a_function_returning_a_function_pointer: r#"
SQLITE_PRIVATE void (*sqlite3OsDlSym(sqlite3_vfs *pVfs, void *pHdle, const char *zSym))(void){
  return pVfs->xDlSym(pVfs, pHdle, zSym);
}
"#;

    gnu_statement_expressions: r#"
int f(int x) {
  int y = ({ int t = x * 2; t + 1; });
  ({ x++; });
  return y;
}
"#;

    macro_type_arguments: r#"
struct list { struct list *next; };
struct item { int v; struct list link; };
int f(struct list *l) {
  struct item *it = container_of(l, struct item, link);
  return it->v;
}
"#;

    // -- statement macros and #if-split code (SQLite, libxml2) ----------------------------

    else_if_behind_preprocessor_conditional: r#"
#include <stdlib.h>
int f(int x, char *g) {
  if (x == 1) { x = 2; }
#ifndef OMIT
  else if (x == 3) { free(g); }
#endif
  return x;
}
"#;

    statement_macro_before_if: r#"
#include <stdlib.h>
void f(Buf *buf) {
    CHECK_COMPAT(buf)
    if (buf->error) { free(buf); return; }
}
"#;

    statement_macro_before_call_or_return: r#"
#include <stdlib.h>
void f(char *p) {
    GROW
    free(p);
}
int g(char *p) {
    TODO
    return(0);
}
"#;

    statement_macro_reads_its_arguments: r#"
#include <stdlib.h>
void f(void) { char *s = malloc(4); FREE_AND_NULL(s) }
"#;

    loop_macro_with_break: r#"
void f(List *l) {
    Item *it;
    FOREACH(l, it) {
        if (it->v) break;
        it->v = 1;
    }
}
"#;

    functions_swallowed_by_preprocessor_braces: r#"
static int w(int rc){
#if A
  if( rc==0 ){
#else
  {
#endif
    rc = 1;
  }
  return rc;
}

static int g(char *p){
  free(p);
  return 0;
}

static int k(int rc){
  if( rc ){
#if A
  }
#else
  }
#endif
  return rc;
}
"#;

    // A statement macro without `;` is a macro (it may assign its arguments): opaque, reading
    // them, unless the library model names it (see
    // `statement_macro_named_as_a_deallocator_is_a_free`). The `if` keeps its condition even
    // when tree-sitter nests one declarator per parenthesized operand.
    statement_macro_before_if_with_compound_condition: r#"
#include <stdlib.h>
void f(Buf *buf) {
    CHECK_COMPAT(buf)
    if ((buf->error) || (buf->buffer == NULL)) { free(buf); return; }
}
"#;

    // The `for` keeps its back edge, and the `break` leaves it.
    statement_macro_before_for: r#"
int main(int argc, char **argv) {
    int i;
    LIBXML_TEST_VERSION
    for (i = 1; i < argc; i++) {
        if (argv[i][0] != 0)
            break;
    }
    return 0;
}
"#;

    // `IDENT expr` where an operand is expected: a transparent cast (`#define BAD_CAST
    // (xmlChar *)`), whatever the shape of tree-sitter's error.
    cast_macros_before_operands: r#"
void g(int n, char *s);
char *f(char *p, Node *h, Ctxt *ctxt) {
    char *x = BAD_CAST "UTF-8";
    char *y = BAD_CAST h->name;
    g(1, BAD_CAST p);
    report(ACTXT_CAST ctxt,
        1, NULL);
    return BAD_CAST p;
}
"#;

    // An `else` (or `else if`) behind `#ifdef` is the `#ifdef` alternative of the `if` before
    // it: with X the `if` has the else branch, without X it has none. The rest of the branch
    // follows the `if`.
    else_behind_preprocessor_conditional: r#"
#include <stdlib.h>
int f(int a, char *p) {
  if (a) { a = 1; }
#ifdef X
  else { free(p); }
  a = 2;
#endif
  return a;
}
"#;

    // `if (a) {…} else⏎#endif⏎S`: S is the else branch with X, and runs after the `#if`
    // without X.
    else_before_endif: r#"
#include <stdlib.h>
int f(int a, char *p) {
#ifdef X
  if (a) {
    a = 1;
  }else
#endif
  {
    free(p);
  }
  return a;
}
"#;

    // Chains: `else if` in consecutive `#ifdef`s and a last `else` after `#endif`
    // (libxml2's xmlIO.c), `} else⏎#ifndef X⏎if (b) {…} else⏎#endif⏎{…}` (SQLite's
    // where.c, trio.c).
    else_if_chains_behind_preprocessor_conditionals: r#"
int code(int e) {
    int c;
    if (e == 0) c = 0;
#ifdef EACCES
    else if (e == EACCES) c = 1;
#endif
#ifdef EAGAIN
    else if (e == EAGAIN) c = 2;
#endif
    else c = 3;
    return c;
}
int where(int a, int b) {
  if (a) {
    b = 1;
  }else
#ifndef OMIT
  if (b) {
    b = 2;
  }else
#endif
  {
    b = 3;
  }
  return b;
}
"#;

    // `#ifdef X⏎if (c)⏎#endif⏎{…}⏎#ifdef X⏎else {…}⏎#endif` (SQLite's checkMutexFree,
    // sqlite3.c:30138): with X, the block is the body of `if (c)` and the second `#ifdef` its
    // else branch; without X the block always runs.
    if_header_behind_preprocessor_conditional: r#"
#include <stdlib.h>
void f(Mutex *p) {
#ifdef ARMOR
  if( p->iType<2 )
#endif
  {
    free(p->mutex);
    free(p);
  }
#ifdef ARMOR
  else{
    misuse(p);
  }
#endif
}
"#;

    // An `#if` group inside a statement or a condition (vim's getout, main.c:1801: `if (⏎#
    // ifdef EXITFREE⏎a == FALSE &&⏎# endif⏎b)`): the statement or condition is a choice
    // between its texts for every choice of arms (here: with `a &&`, without; `+ 1`, `+ 2`,
    // `+ 0`), not a syntax error. A group between statements stays an `#if` choice.
    preprocessor_group_inside_a_statement: r#"
#include <stdlib.h>
int f(int a, int b, char *p) {
  if (
#ifdef EXITFREE
      a == 0 &&
#endif
      b != 0)
    free(p);
  int n = b
#if defined(ONE)
    + 1
#elif defined(TWO)
    + 2
#else
    + 0
#endif
    ;
#ifdef LOG
  log(n);
#endif
  return n;
}
"#;

    // `M( stmt; )` (or `M( stmt );`): the statements may run or not, in the enclosing scope,
    // and the `return` inside returns. `M( x = ) call(…)` stays opaque, reading what it
    // mentions. Nothing after them is lost.
    statement_macro_with_statement_arguments: r#"
#include <stdlib.h>
int f(Db *db, char *p) {
  int rc = 0;
  MUTEX_LOGIC( sqlite3_mutex *m; )
  MUTEX_LOGIC( m = db->mutex; )
  SimulateDiskfullError( return SQLITE_FULL; );
  VVA_ONLY( int n );
  TESTONLY( rc = ) commit(db, p);
  free(p);
  return rc;
}
"#;

    // -- errors ---------------------------------------------------------------------------

    malformed_statements: r#"
int f(int x, int *p) {
  int y = 1;
  y = = 2;
  x = 3 +;
  foo(;
  int *q = p +;
  if (x > ) y = 4;
  return y;
}
"#;

    // -- scopes and operators -------------------------------------------------------------

    block_scopes_and_shadowing: r#"
int f(int x) {
  int y = x;
  {
    int x = 2;
    y += x;
    {
      int y = 3;
      x = y;
    }
  }
  return x + y;
}
"#;

    unary_operators_and_address_of: r#"
struct S { int f; };
int f(int x, struct S s, int *a) {
  int n = -x;
  int c = ~x;
  int p = +x;
  int *px = &x;
  int *pf = &s.f;
  int *pa = &a[1];
  return n + c + p;
}
"#;

    void_returns: r#"
void v(int);
void f(int a) {
  if (a) return;
  v(a);
}
void g(int a) {
  return v(a);
}
"#;

    // `assert(e)` is `if (!(e)) abort();`.
    assert_is_a_check: r#"
#include <assert.h>
struct s { struct s *next; };
void f(struct s *p, int n) {
  assert(p != 0 && n > 0);
  p->next = 0;
}
"#;
}

/// A statement macro without `;` that the configuration names as a deallocator is a free of its
/// argument (`FREE_AND_NULL(s)` in libxml2).
#[test]
fn statement_macro_named_as_a_deallocator_is_a_free() {
    let src = r#"
#include <stdlib.h>
void f(void) {
    char *s = malloc(4);
    FREE_AND_NULL(s)
}
"#;
    let config = reductio::config::Config {
        deallocators: vec!["FREE_AND_NULL".into()],
        ..Default::default()
    };
    insta::assert_snapshot!(
        "statement_macro_named_as_a_deallocator_is_a_free",
        snapshot_in(Database::new(config.clone()), src)
    );
    let mut database = Database::new(config);
    let file = database.add_file("test.c".into(), src.to_string());
    let db: &dyn Db = &database;
    for f in db::file_functions(db, file) {
        let ir = db::lowered(db, *f);
        let errs = check_function(&ir, false);
        assert!(errs.is_empty(), "{}", errs.join("\n"));
    }
}

//! Hostile and pathological inputs for the C front end: malformed code, extreme nesting, huge
//! lines, bad encodings, many functions, and random token mutations of a valid file.
//!
//! Every case runs the whole front end the way the server and the CLI do — parse, collect the
//! file's items, lower every function (and the global initializers), print the IR in both
//! notations — and must neither panic, nor overflow the stack, nor hang.
//!
//! Each case runs on its own thread with a 2 MiB stack, the size of libtest's and rayon's
//! threads. The size is set explicitly so that a big `RUST_MIN_STACK` or main-thread stack
//! cannot hide a recursion regression: an overflow aborts this test binary loudly. The wall-time
//! bound is a hang detector only, deliberately generous for unoptimized builds on slow CI.
//!
//! A case that exposes a bug stays here with `#[ignore = "bug: …"]` and its minimal repro, so
//! the fix can be checked with `cargo test --test robustness -- --ignored`.

use reductio::db::{self, Database, Db};
use reductio::ir::{Callee, ExprKind, FunctionIr, Notation, StmtKind, Symbol, write_function_with};
use reductio::syntax::{TextRange, decode_source};
use std::sync::mpsc;
use std::time::Duration;

/// The stack of a default spawned thread (and of libtest's test threads).
const STACK: usize = 2 * 1024 * 1024;

/// Only a hang detector: every case takes well under a second in a release build.
const HANG_LIMIT: Duration = Duration::from_secs(20);

/// Nesting depth of the "deep" cases: far beyond any real code and beyond `ir::MAX_DEPTH`.
const DEEP: usize = 10_000;

const MB: usize = 1 << 20;

// ---- harness ----------------------------------------------------------------------------

/// One timed case at a time: `HANG_LIMIT` is a hang detector, and on the 2-core CI machine
/// the cases that ran beside each other took each other's cores (every prefix of a valid
/// file, 4 s alone, passed 20 s there).
static TIMED: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs `f` on a fresh 2 MiB thread; re-raises its panic, fails if it runs past `HANG_LIMIT`.
fn on_small_stack<T: Send + 'static>(name: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let _one_at_a_time = TIMED.lock().unwrap_or_else(|e| e.into_inner());
    let (tx, rx) = mpsc::channel();
    let handle = std::thread::Builder::new()
        .name(name.to_string())
        .stack_size(STACK)
        .spawn(move || {
            let _ = tx.send(f());
        })
        .expect("spawn a test thread");
    match rx.recv_timeout(HANG_LIMIT) {
        Ok(v) => {
            handle.join().expect("the thread already sent its result");
            v
        }
        // The sender was dropped without sending: the thread panicked.
        Err(mpsc::RecvTimeoutError::Disconnected) => match handle.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(()) => unreachable!("{name}: thread ended without a result"),
        },
        // The thread is left running; the test process ends anyway.
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("{name}: still running after {HANG_LIMIT:?} (a hang, or quadratic blow-up)")
        }
    }
}

/// What the front end made of one file.
#[derive(Debug, Default)]
struct Outcome {
    functions: usize,
    statements: usize,
    fallbacks: Vec<String>,
    error_nodes: u32,
    unrecovered: usize,
    printed: usize,
}

/// Parse, collect items, lower every function and the global initializers, print everything
/// in both notations, and check the IR's structural invariants.
fn lower_everything(text: String) -> Outcome {
    let mut database = Database::default();
    let file = database.add_file("robust.c".into(), text);
    let db: &dyn Db = &database;
    let items = db::file_syntax_items(db, file);
    let mut out = Outcome {
        error_nodes: items.stats.error_nodes,
        unrecovered: items.stats.unrecovered.len(),
        ..Outcome::default()
    };
    let mut printed = String::new();
    if items.globals.iter().any(|g| g.init.is_some()) {
        let globals = db::global_inits(db, file);
        check_ir(&globals, file.text(db).len(), "<globals>");
        let idx = db::line_index(db, file);
        let loc = |r: TextRange| format!("{:?}", idx.line_col(r.start));
        for notation in [Notation::C, Notation::Paper] {
            write_function_with(&mut printed, &globals, Some(&loc), notation).expect("print");
        }
        record(&mut out, &globals);
    }
    for f in db::file_functions(db, file) {
        let ir = db::lowered(db, *f);
        check_ir(&ir, f.source(db).text.len(), f.name(db));
        let loc = |r: TextRange| {
            let (l, c) = db::location(db, *f, r);
            format!("{l}:{c}")
        };
        for notation in [Notation::C, Notation::Paper] {
            write_function_with(&mut printed, &ir, Some(&loc), notation).expect("print");
        }
        record(&mut out, &ir);
        out.functions += 1;
    }
    out.printed = printed.len();
    out
}

fn record(out: &mut Outcome, ir: &FunctionIr) {
    out.statements += ir.statement_count();
    out.fallbacks
        .extend(ir.fallbacks.iter().map(|f| f.reason.clone()));
}

/// Structural invariants every consumer of the IR relies on: ids in bounds, preds mirroring
/// succs, one `Enter` entry and one `Return` exit, ranges inside the function's text.
#[track_caller]
fn check_ir(ir: &FunctionIr, text_len: usize, name: &str) {
    let n = ir.nodes.len();
    let (entry, exit) = (ir.entry.0 as usize, ir.exit.0 as usize);
    assert!(entry < n && exit < n, "{name}: entry/exit out of bounds");
    assert!(
        matches!(ir.node(ir.entry).stmt.kind, StmtKind::Enter),
        "{name}: entry is not Enter"
    );
    assert!(
        matches!(ir.node(ir.exit).stmt.kind, StmtKind::Return { .. }),
        "{name}: exit is not Return"
    );
    assert!(
        ir.node(ir.exit).succs.is_empty(),
        "{name}: exit has successors"
    );
    let expr_ok = |e: &reductio::ir::ExprId| (e.0 as usize) < ir.exprs.len();
    for (i, node) in ir.nodes.iter().enumerate() {
        for s in &node.succs {
            assert!((s.0 as usize) < n, "{name}: n{i} -> n{} out of bounds", s.0);
            assert!(
                ir.node(*s).preds.iter().any(|p| p.0 as usize == i),
                "{name}: n{i} -> n{} without the matching pred",
                s.0
            );
        }
        for p in &node.preds {
            assert!((p.0 as usize) < n, "{name}: pred n{} out of bounds", p.0);
            assert!(
                ir.node(*p).succs.iter().any(|s| s.0 as usize == i),
                "{name}: pred n{} of n{i} without the matching succ",
                p.0
            );
        }
        let r = node.stmt.range;
        assert!(
            r.start <= r.end && r.end as usize <= text_len,
            "{name}: n{i} range {r:?} outside the text (len {text_len})"
        );
        let ids: Vec<reductio::ir::ExprId> = match &node.stmt.kind {
            StmtKind::Assign { addr, value } => vec![*addr, *value],
            StmtKind::Alloc { addr, .. } => vec![*addr],
            StmtKind::Free { ptr } => vec![*ptr],
            StmtKind::ZeroFill { addr } => vec![*addr],
            StmtKind::Cond { lhs, rhs, .. } => vec![*lhs, *rhs],
            StmtKind::Call { dest, callee, args } => {
                let mut v = args.clone();
                v.extend(dest);
                if let Callee::Indirect(e) = callee {
                    v.push(*e);
                }
                v
            }
            StmtKind::Return { value } => value.iter().copied().collect(),
            StmtKind::Opaque { reads, .. } => reads.clone(),
            StmtKind::ScopeBegin { locals } | StmtKind::ScopeEnd { locals, .. } => {
                for l in locals {
                    assert!(
                        (l.0 as usize) < ir.locals.len(),
                        "{name}: local out of bounds"
                    );
                }
                vec![]
            }
            StmtKind::Enter | StmtKind::Nop => vec![],
        };
        assert!(ids.iter().all(expr_ok), "{name}: n{i} uses an unknown expr");
    }
    for (_, e) in ir.exprs.iter() {
        let ok = match &e.kind {
            ExprKind::Deref(a) | ExprKind::Field(a, _) => expr_ok(a),
            ExprKind::Binary(_, a, b) => expr_ok(a) && expr_ok(b),
            ExprKind::Addr(Symbol::Local(l)) => (l.0 as usize) < ir.locals.len(),
            _ => true,
        };
        assert!(ok, "{name}: expression with a dangling id: {e:?}");
    }
    for fb in &ir.fallbacks {
        assert!(
            fb.range.end as usize <= text_len,
            "{name}: fallback `{}` range {:?} outside the text",
            fb.reason,
            fb.range
        );
    }
}

/// Runs the whole front end on `text` on a small stack, with a hang bound.
fn survive(name: &str, text: String) -> Outcome {
    on_small_stack(name, move || lower_everything(text))
}

/// A tiny xorshift64* generator: deterministic, no dependencies.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
}

/// Tokens used to build soups and mutations: the C that trips parsers up.
const VOCAB: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ",",
    ":",
    "?",
    "*",
    "&",
    "->",
    ".",
    "=",
    "==",
    "+=",
    "++",
    "--",
    "&&",
    "||",
    "!",
    "~",
    "<<",
    "sizeof",
    "if",
    "else",
    "while",
    "for",
    "do",
    "switch",
    "case",
    "default",
    "break",
    "continue",
    "return",
    "goto",
    "struct",
    "union",
    "enum",
    "typedef",
    "static",
    "extern",
    "const",
    "void",
    "int",
    "char",
    "unsigned",
    "long",
    "x",
    "p",
    "q",
    "node",
    "next",
    "malloc",
    "free",
    "NULL",
    "0",
    "1",
    "0x7fffffffffffffff",
    "'a'",
    "\"s\"",
    "\"",
    "'",
    "/*",
    "*/",
    "//",
    "\\",
    "\n#if X\n",
    "\n#else\n",
    "\n#endif\n",
    "\n#define M(a) a\n",
    "\n#include <stdio.h>\n",
    "__attribute__((unused))",
    "asm",
    "...",
    "_Generic",
    "L\"w\"",
    "1.5e3",
    "#",
    "##",
    "\n",
];

fn token_soup(seed: u64, tokens: usize) -> String {
    let mut rng = Rng::new(seed);
    let mut s = String::new();
    for _ in 0..tokens {
        s.push_str(rng.pick(VOCAB));
        s.push(' ');
    }
    s
}

// ---- a realistic file -------------------------------------------------------------------

/// Valid C with most of what the lowering handles: structs, typedefs, loops, switch, goto,
/// `&&`/`?:`, function pointers, initializers, `#if` in a body, varargs, statics.
const VALID: &str = r#"#include <stdlib.h>
#include <string.h>

typedef struct node {
    struct node *next;
    char *name;
    int value;
} Node;

struct table { Node **buckets; unsigned size; int (*cmp)(const char *, const char *); };

static int counter = 0;
static const char *names[] = { "a", "b", "c" };
struct table global_table = { 0, 16, strcmp };

static unsigned hash(const char *s) {
    unsigned h = 5381;
    while (*s) h = h * 33 + (unsigned char)*s++;
    return h;
}

Node *node_new(const char *name, int value) {
    Node *n = malloc(sizeof *n);
    if (!n) return NULL;
    n->name = strdup(name);
    if (n->name == NULL) { free(n); return NULL; }
    n->value = value;
    n->next = NULL;
    counter++;
    return n;
}

int table_put(struct table *t, const char *name, int value) {
    unsigned i = hash(name) % t->size;
    for (Node *p = t->buckets[i]; p; p = p->next) {
        if (t->cmp(p->name, name) == 0) { p->value = value; return 0; }
    }
    Node *n = node_new(name, value);
    if (!n) goto fail;
    n->next = t->buckets[i];
    t->buckets[i] = n;
    return 1;
fail:
    return -1;
}

void table_free(struct table *t) {
    for (unsigned i = 0; i < t->size; i++) {
        Node *p = t->buckets[i], *next;
        while (p != NULL) {
            next = p->next;
            free(p->name);
            free(p);
            p = next;
        }
    }
    free(t->buckets);
    t->buckets = 0;
}

int classify(int c, int d) {
    static int calls;
    calls += 1;
    switch (c) {
    case 0: return d > 0 && c < 10 ? 1 : 2;
    case 1:
    case 2: { int k = c * 2; do { k--; } while (k > 0 || d); break; }
#if defined(EXTRA)
    case 3: return 3;
#else
    case 4: return 4;
#endif
    default: break;
    }
    char buf[16] = {0}, *s = buf;
    struct { int a; int *b; } pair = { .a = 1, .b = &c };
    s = (char *)memcpy(buf, names[c % 3], sizeof(buf) - 1);
    return pair.a + *pair.b + (s != NULL);
}
"#;

/// Splits C text into tokens, each carrying its trailing whitespace (so newlines, which
/// preprocessor lines depend on, survive deletion and duplication of their neighbours).
fn tokens_of(src: &str) -> Vec<String> {
    let b = src.as_bytes();
    let mut toks: Vec<String> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let c = b[i];
        if c.is_ascii_alphanumeric() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c && b[i] != b'\n' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
        } else {
            i += 1;
        }
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if !b[start].is_ascii_whitespace() || toks.is_empty() {
            toks.push(src[start..i].to_string());
        } else if let Some(last) = toks.last_mut() {
            last.push_str(&src[start..i]);
        }
    }
    toks
}

fn mutate(rng: &mut Rng, toks: &mut Vec<String>) {
    if toks.is_empty() {
        toks.push(format!("{} ", rng.pick(VOCAB)));
        return;
    }
    let at = rng.below(toks.len());
    match rng.below(3) {
        0 => {
            toks.remove(at);
        }
        1 => {
            let t = toks[at].clone();
            toks.insert(at, t);
        }
        _ => toks.insert(at, format!("{} ", rng.pick(VOCAB))),
    }
}

// ---- malformed input --------------------------------------------------------------------

#[test]
fn empty_and_blank_files() {
    for (name, text) in [
        ("empty", ""),
        ("blank", " \n\t\n\r\n  "),
        ("bom", "\u{feff}"),
        ("bom-function", "\u{feff}int f(void) { return 0; }\n"),
        ("nul", "\0\0\0"),
        ("semicolons", ";;;;;;;;"),
    ] {
        let out = survive(name, text.to_string());
        assert!(out.functions <= 1, "{name}: {out:?}");
    }
}

#[test]
fn random_token_soup() {
    for seed in 1..=20u64 {
        let text = token_soup(seed * 0x9e37_79b9, 3_000);
        let out = survive(&format!("soup-{seed}"), text);
        assert!(out.error_nodes > 0, "soup {seed} parsed without errors?");
    }
}

#[test]
fn unbalanced_braces() {
    let cases = [
        format!("void f(void) {{{} x = 1;", "{".repeat(2_000)),
        format!("{}int g(void) {{ return 0; }}\n", "}".repeat(2_000)),
        "void f(int x) { if (x) { } } } } int g(void) { return 0; }\n".to_string(),
        "int f(int x) { if (x) { return 1; \nint g(void) { return 2; }\n".to_string(),
        format!("int f(int x) {{ return {}x; }}", "(".repeat(2_000)),
        format!("int f(int x) {{ return x{}; }}", ")".repeat(2_000)),
        "int f(int x) { int a[3] = { 1, 2, { 3 ; return a[0]; }".to_string(),
        "struct s { int a; struct t { int b; ; int f(void) { return 0; }".to_string(),
    ];
    for (i, text) in cases.into_iter().enumerate() {
        survive(&format!("braces-{i}"), text);
    }
}

/// Every prefix of a valid file: functions cut off mid-expression, mid-string, mid-comment.
/// Each prefix is its own timed case: `HANG_LIMIT` bounds one lowering (a hang or a blow-up
/// on one cut), not the sum of two thousand of them, which an unoptimised build on a slow,
/// shared CI machine took past 20 s while every single cut took milliseconds.
#[test]
fn every_prefix_of_a_valid_file() {
    let cuts: Vec<usize> = (0..=VALID.len())
        .filter(|&i| VALID.is_char_boundary(i))
        .collect();
    let mut last = Outcome::default();
    for i in cuts {
        last = on_small_stack(&format!("prefix-{i}"), move || {
            lower_everything(VALID[..i].to_string())
        });
    }
    assert_eq!(last.functions, 5, "the whole file has five functions");
}

#[test]
fn a_function_cut_off_mid_expression() {
    for text in [
        "int f(int *p) { return p[1 + (2 * ",
        "int f(int *p) { int *q = malloc(sizeof(*p) *",
        "void f(char *s) { s = s ? s : \"unterminated",
        "void f(void) { /* never closed",
        "int f(int a, int b) { return a +",
        "int f(int a, int b) { if (a &&",
        "int f(int a) { switch (a) { case",
        "int f(int a) { lab: goto",
        "int f(int a) { return (struct { int x; }){",
    ] {
        survive("cut", text.to_string());
    }
}

#[test]
fn a_file_of_only_preprocessor_conditionals() {
    survive("ifs", "#if X\n".repeat(DEEP));
    survive("ifdefs", "#ifdef X\n#else\n".repeat(DEEP));
    survive("endifs", "#endif\n".repeat(DEEP));
    survive(
        "elifs",
        format!("#if A\n{}#endif\n", "#elif B\n".repeat(DEEP)),
    );
    survive(
        "balanced",
        format!(
            "{}int f(void) {{ return 0; }}\n{}",
            "#if X\n".repeat(DEEP),
            "#endif\n".repeat(DEEP)
        ),
    );
    survive(
        "in-body",
        format!(
            "int f(int x) {{\n{}x = 1;\n{}return x; }}\n",
            "#if X\n".repeat(DEEP),
            "#endif\n".repeat(DEEP)
        ),
    );
    survive(
        "in-body-unbalanced",
        format!(
            "int f(int x) {{\n{}return x; }}\n",
            "#ifdef X\nx++;\n".repeat(DEEP)
        ),
    );
}

#[test]
fn binary_garbage() {
    for seed in 1..=8u64 {
        let mut rng = Rng::new(seed * 0x1234_5678_9abc);
        let bytes: Vec<u8> = (0..64 * 1024).map(|_| rng.next() as u8).collect();
        let (text, lossy) = decode_source(&bytes);
        assert!(lossy, "random bytes are not UTF-8");
        survive(&format!("garbage-{seed}"), text);
    }
    // Garbage around a valid function must not hide it.
    let mut bytes = vec![0xffu8, 0xfe, 0x00, 0x80, b'\n'];
    bytes.extend_from_slice(b"int f(int x) { return x; }\n");
    bytes.extend_from_slice(&[0xc3, 0x28, 0x00, 0xa0, 0xa1]);
    let (text, _) = decode_source(&bytes);
    let out = survive("garbage-around", text);
    assert_eq!(out.functions, 1, "{out:?}");
}

// ---- extreme nesting --------------------------------------------------------------------

fn deep_parens() -> String {
    format!(
        "int f(int x) {{ return {}x{}; }}\n",
        "(".repeat(DEEP),
        ")".repeat(DEEP)
    )
}

fn deep_blocks() -> String {
    format!(
        "void f(void) {{ {}int x = 0;{} }}\n",
        "{".repeat(DEEP),
        "}".repeat(DEEP)
    )
}

fn deep_ifs() -> String {
    format!("void f(int x) {{ {}x = 1; }}\n", "if (x) ".repeat(DEEP))
}

fn else_if_chain() -> String {
    let mut s = String::from("int f(int x) {\n    if (x == 0) return 0;\n");
    for i in 1..DEEP {
        s.push_str(&format!("    else if (x == {i}) return {i};\n"));
    }
    s.push_str("    else return -1;\n}\n");
    s
}

fn deep_ternary_else() -> String {
    let mut s = String::from("int f(int x) { return ");
    for i in 0..DEEP {
        s.push_str(&format!("x == {i} ? {i} : "));
    }
    s.push_str("-1; }\n");
    s
}

fn deep_ternary_then() -> String {
    format!(
        "int f(int x) {{ return {}1{}; }}\n",
        "x ? ".repeat(DEEP),
        " : 0".repeat(DEEP)
    )
}

fn long_sum() -> String {
    format!(
        "int f(int a) {{ return {}; }}\n",
        vec!["a"; DEEP].join(" + ")
    )
}

fn deep_struct_init_local() -> String {
    format!(
        "struct s {{ int a; struct s *p; }};\nvoid f(void) {{ struct s v = {}0{}; }}\n",
        "{".repeat(DEEP),
        "}".repeat(DEEP)
    )
}

fn deep_struct_init_global() -> String {
    format!(
        "struct s {{ int a; struct s *p; }};\nstruct s v = {}0{};\n",
        "{".repeat(DEEP),
        "}".repeat(DEEP)
    )
}

fn deep_casts() -> String {
    format!(
        "char *f(void *x) {{ return {}x; }}\n",
        "(char *)(int)".repeat(DEEP / 2)
    )
}

#[test]
fn deep_parentheses() {
    survive("parens", deep_parens());
}

#[test]
fn deep_blocks_nest() {
    survive("blocks", deep_blocks());
}

#[test]
fn deep_if_if() {
    survive("if-if", deep_ifs());
}

#[test]
fn else_if_chain_of_10000_branches() {
    let out = survive("else-if", else_if_chain());
    assert_eq!(out.functions, 1);
}

#[test]
fn deep_nested_ternaries() {
    survive("ternary-else", deep_ternary_else());
    survive("ternary-then", deep_ternary_then());
}

#[test]
fn sum_of_10000_terms() {
    survive("sum", long_sum());
}

#[test]
fn deep_struct_initializers() {
    survive("init-local", deep_struct_init_local());
    survive("init-global", deep_struct_init_global());
}

#[test]
fn deep_casts_nest() {
    survive("casts", deep_casts());
}

/// Other recursive shapes, one per recursive descent in the front end (`DEEP` levels each).
fn deep_shape(name: &str) -> String {
    let d = DEEP;
    match name {
        "calls" => format!(
            "int g(int);\nint f(int x) {{ return {}x{}; }}\n",
            "g(".repeat(d),
            ")".repeat(d)
        ),
        "subscripts" => format!(
            "int f(int *a) {{ return {}0{}; }}\n",
            "a[".repeat(d),
            "]".repeat(d)
        ),
        "derefs" => format!("int f(int *p) {{ return {}p; }}\n", "*".repeat(d)),
        "nots" => format!("int f(int x) {{ return {}x; }}\n", "!".repeat(d)),
        "negs" => format!("int f(int x) {{ return {}x; }}\n", "- ".repeat(d)),
        "ands" => format!(
            "int f(int x) {{ if ({}) return 1; return 0; }}\n",
            vec!["x"; d].join(" && ")
        ),
        "ors" => format!("int f(int x) {{ return {}; }}\n", vec!["x"; d].join(" || ")),
        "assign_chain" => format!("void f(int *p) {{ {}0; }}\n", "*p = ".repeat(d)),
        "comma" => format!(
            "int f(int x) {{ return ({}); }}\n",
            vec!["x++"; d].join(", ")
        ),
        "sizeofs" => format!("int f(int x) {{ return {}x; }}\n", "sizeof ".repeat(d)),
        "fields" => format!(
            "struct s {{ struct s *n; }};\nvoid f(struct s *p) {{ p{} = 0; }}\n",
            "->n".repeat(d)
        ),
        "whiles" => format!("void f(int x) {{ {}x--; }}\n", "while (x) ".repeat(d)),
        "fors" => format!("void f(int x) {{ {}x--; }}\n", "for (;x;) ".repeat(d)),
        "dos" => format!(
            "void f(int x) {{ {}x--;{} }}\n",
            "do ".repeat(d),
            " while (x);".repeat(d)
        ),
        "switches" => format!(
            "void f(int x) {{ {}x--; }}\n",
            "switch (x) case 1: ".repeat(d)
        ),
        "labels" => {
            let labels: String = (0..d).map(|i| format!("l{i}: ")).collect();
            format!("void f(int x) {{ {labels}x--; goto l{}; }}\n", d - 1)
        }
        "compound_literals" => format!(
            "struct s {{ int a; }};\nint f(void) {{ return {}0{}; }}\n",
            "((struct s){".repeat(d),
            "}).a".repeat(d)
        ),
        "statement_exprs" => format!(
            "int f(int x) {{ return {}x{}; }}\n",
            "({ ".repeat(d),
            "; })".repeat(d)
        ),
        "pointer_declarator" => format!("void f(void) {{ int {}p = 0; }}\n", "*".repeat(d)),
        "paren_declarator" => format!(
            "void f(void) {{ int {}p{} = 0; }}\n",
            "(".repeat(d),
            ")".repeat(d)
        ),
        "param_declarator" => format!("void f(int {}p) {{ }}\n", "*".repeat(d)),
        "function_declarator" => format!(
            "int {}f{}{{ return 0; }}\n",
            "(*".repeat(d),
            ")(void)".repeat(d)
        ),
        "array_declarator" => format!(
            "void f(void) {{ int a{}; a[0][0] = 0; }}\n",
            "[2]".repeat(d)
        ),
        "nested_structs" => format!("{}int x;{};\n", "struct s { ".repeat(d), " } m;".repeat(d)),
        "nested_structs_in_body" => format!(
            "void f(void) {{ {}int x;{} v; }}\n",
            "struct { ".repeat(d),
            " } m;".repeat(d - 1) + " }"
        ),
        "nested_anonymous_members" => format!(
            "struct s {{ {}int x;{} }};\n",
            "struct { ".repeat(d),
            " };".repeat(d)
        ),
        "typedef_chain" => {
            let mut s = String::from("typedef int *T0;\n");
            for i in 1..d {
                s.push_str(&format!("typedef T{} *T{i};\n", i - 1));
            }
            s.push_str(&format!("void f(T{} p) {{ *p = 0; }}\n", d - 1));
            s
        }
        "enum_chain" => {
            let mut s = String::from("enum { E0 = 1");
            for i in 1..d {
                s.push_str(&format!(", E{i} = E{} + 1", i - 1));
            }
            s.push_str(" };\nint f(void) { return E9999; }\n");
            s
        }
        "macro_heads" => (0..d)
            .map(|i| format!("API EXPORT int f{i}(int x) {{ return x; }}\n"))
            .collect(),
        other => unreachable!("no shape {other}"),
    }
}

macro_rules! deep_shapes {
    ($($(#[$attr:meta])* $name:ident,)*) => {
        mod deep {
            $(
                $(#[$attr])*
                #[test]
                fn $name() {
                    let name = stringify!($name);
                    super::survive(name, super::deep_shape(name));
                }
            )*
        }
    };
}

deep_shapes! {
    calls,
    subscripts,
    derefs,
    nots,
    negs,
    ands,
    ors,
    assign_chain,
    comma,
    sizeofs,
    fields,
    whiles,
    fors,
    dos,
    switches,
    labels,
    compound_literals,
    statement_exprs,
    pointer_declarator,
    paren_declarator,
    param_declarator,
    function_declarator,
    array_declarator,
    nested_structs,
    nested_structs_in_body,
    nested_anonymous_members,
    typedef_chain,
    enum_chain,
    macro_heads,
}

/// The first function of `text`, lowered on a small stack.
fn lower_first(text: String) -> std::sync::Arc<FunctionIr> {
    on_small_stack("lower-first", move || {
        let mut database = Database::default();
        let file = database.add_file("one.c".into(), text);
        let db: &dyn Db = &database;
        let f = db::file_functions(db, file)[0];
        db::lowered(db, f)
    })
}

/// Statements that write the local `name` directly (`name = …`, `name = alloc`, `name = g()`).
fn writes_to(ir: &FunctionIr, name: &str) -> usize {
    let Some(l) = ir.locals.iter().position(|l| l.name == name) else {
        return 0;
    };
    let target = ExprKind::Addr(Symbol::Local(reductio::ir::LocalId(l as u32)));
    let is_target = |e: &reductio::ir::ExprId| *ir.exprs.kind(*e) == target;
    ir.nodes
        .iter()
        .filter(|n| match &n.stmt.kind {
            StmtKind::Assign { addr, .. } | StmtKind::Alloc { addr, .. } => is_target(addr),
            StmtKind::Call { dest, .. } => dest.as_ref().is_some_and(is_target),
            _ => false,
        })
        .count()
}

/// Past `MAX_DEPTH` the lowering may give up on a value, but not on where it goes: the
/// destination must still be written (with an unknown value), or a later read of `p` sees a
/// stale value and an allocation inside the expression disappears without a trace.
#[test]
fn a_shallow_right_hand_side_writes_its_destination() {
    let text = format!(
        "char *f(char *q) {{ char *p = 0; p = {}q; return p; }}\n",
        "(char *)".repeat(20)
    );
    assert_eq!(writes_to(&lower_first(text), "p"), 2);
}

#[test]
fn a_too_deep_right_hand_side_still_writes_its_destination() {
    for rhs in [
        format!("{}q", "(char *)".repeat(200)),
        format!("{}q{}", "(".repeat(200), ")".repeat(200)),
        format!("{}malloc(1)", "(char *)".repeat(200)),
    ] {
        let text = format!(
            "#include <stdlib.h>\nchar *f(char *q) {{ char *p = 0; p = {rhs}; return p; }}\n"
        );
        let ir = lower_first(text);
        assert_eq!(writes_to(&ir, "p"), 2, "{ir}");
    }
}

/// Only the exit may lack successors: any other dead end silently drops the paths through it.
fn dead_ends(ir: &FunctionIr) -> Vec<usize> {
    (0..ir.nodes.len())
        .filter(|&i| i != ir.exit.0 as usize && ir.nodes[i].succs.is_empty())
        .collect()
}

fn goto_into_nested_blocks(depth: usize) -> String {
    format!(
        "#include <stdlib.h>\nvoid f(int x) {{ char *p = malloc(1); if (x) goto out; {}out: free(p); {} }}\n",
        "{".repeat(depth),
        "}".repeat(depth)
    )
}

#[test]
fn a_goto_into_nested_blocks_reaches_its_label() {
    let ir = lower_first(goto_into_nested_blocks(20));
    assert!(dead_ends(&ir).is_empty(), "{ir}");
}

#[test]
fn a_goto_into_a_too_deep_region_keeps_a_path_to_the_exit() {
    let ir = lower_first(goto_into_nested_blocks(200));
    assert!(dead_ends(&ir).is_empty(), "{ir}");
}

// ---- real-code shapes that used to lose statements (found with bench/lower_corpus) -------
//
// tree-sitter sees macros unexpanded and `#if` branches side by side, so these parse as
// something else; the lowering must still keep every statement (or an Opaque for it).

fn has_node(ir: &FunctionIr, pred: impl Fn(&StmtKind) -> bool) -> bool {
    ir.nodes.iter().any(|n| pred(&n.stmt.kind))
}

fn is_free_or_opaque(k: &StmtKind) -> bool {
    matches!(k, StmtKind::Free { .. } | StmtKind::Opaque { .. })
}

/// An `else if` branch behind `#ifndef` is parsed by tree-sitter as a function definition
/// (`else` its type, `if` its name); SQLite has dozens (sqlite3.c:26288, 46353).
#[test]
fn an_else_if_behind_a_preprocessor_conditional_is_not_dropped() {
    let ir = lower_first(
        "int f(int x, char *g) {\n  if (x == 1) { x = 2; }\n#ifndef OMIT\n  else if (x == 3) { free(g); }\n#endif\n  return x;\n}\n".into(),
    );
    assert!(has_node(&ir, is_free_or_opaque), "{ir}");
}

/// Braces split across `#if`/`#else` (`#if A if (c) { #else { #endif`) leave a function
/// unclosed until some later `#if`-split closing brace; tree-sitter then parses every function
/// in between as nested in the first. They must still be collected and lowered: in SQLite,
/// `winWrite` (sqlite3.c:51629) swallowed ~20,000 lines (414 direct nested definitions); in
/// libxml2, `xmlSchemaCheckCOSSTRestricts` (xmlschemas.c:15379) swallowed 172.
#[test]
fn functions_after_an_unbalanced_preprocessor_brace_are_not_swallowed() {
    let text = "static int w(int rc){\n#if A\n  if( rc==0 ){\n#else\n  {\n#endif\n    rc = 1;\n  }\n  return rc;\n}\n\n\
                static int g(char *p){\n  free(p);\n  return 0;\n}\n\n\
                static int h(char *p){\n  free(p);\n  return 0;\n}\n\n\
                static int k(int rc){\n  if( rc ){\n#if A\n  }\n#else\n  }\n#endif\n  return rc;\n}\n";
    let names = on_small_stack("swallowed", move || {
        let mut database = Database::default();
        let file = database.add_file("w.c".into(), text.to_string());
        let db: &dyn Db = &database;
        db::file_functions(db, file)
            .iter()
            .map(|f| f.name(db).clone())
            .collect::<Vec<_>>()
    });
    for name in ["g", "h", "k"] {
        assert!(
            names.iter().any(|n| n == name),
            "`{name}` missing from {names:?}"
        );
    }
}

/// A statement macro without a semicolon followed by an `if` is parsed as a function definition
/// (`CHECK_COMPAT(buf)` the type, `if (…)` the declarator): libxml2's buf.c:1209, 1266.
#[test]
fn a_statement_macro_before_an_if_does_not_drop_the_if() {
    let ir = lower_first(
        "void f(Buf *buf) {\n    CHECK_COMPAT(buf)\n    if (buf->error) { free(buf); return; }\n}\n".into(),
    );
    assert!(has_node(&ir, is_free_or_opaque), "{ir}");
}

/// The same with a compound condition, exactly as in libxml2's buf.c:1209: tree-sitter nests
/// one `function_declarator` per parenthesized operand.
#[test]
fn a_statement_macro_before_an_if_with_a_compound_condition() {
    let text = "void f(Buf *buf) {\n    CHECK_COMPAT(buf)\n    if ((buf->error) || (buf->buffer == NULL)) { free(buf); return; }\n}\n";
    let (names, ir) = on_small_stack("compound-if", move || {
        let mut database = Database::default();
        let file = database.add_file("c.c".into(), text.to_string());
        let db: &dyn Db = &database;
        let fs = db::file_functions(db, file);
        let names: Vec<String> = fs.iter().map(|f| f.name(db).clone()).collect();
        (names, db::lowered(db, fs[0]))
    });
    assert_eq!(names, ["f"], "keywords are not function names");
    assert!(has_node(&ir, is_free_or_opaque), "{ir}");
}

/// A statement macro without a semicolon followed by a call or `return(…)` is parsed as a
/// block-scope function declaration (`GROW free(p);`, `TODO return(0);` as in libxml2's
/// xmlreader.c:1914), which must not lower to nothing.
#[test]
fn a_statement_macro_before_a_call_does_not_delete_the_call() {
    let ir = lower_first("void f(char *p) {\n    GROW\n    free(p);\n}\n".into());
    assert!(
        has_node(&ir, is_free_or_opaque) || !ir.fallbacks.is_empty(),
        "{ir}"
    );
    let ir = lower_first("int f(char *p) {\n    TODO\n    return(0);\n}\n".into());
    let opaque = has_node(&ir, |k| matches!(k, StmtKind::Opaque { .. }));
    assert!(writes_to(&ir, "ret") == 1 || opaque, "{ir}");
}

/// `FREE_AND_NULL(s)` without a semicolon parses as a `macro_type_specifier` whose argument is
/// a type name; the Opaque statement must still read `s`, or the analysis sees a no-op where
/// the macro frees and nulls it (libxml2's xmlschemas.c:1774, 2556).
#[test]
fn a_statement_macro_reads_its_arguments() {
    let ir = lower_first("void f(void) { char *s = malloc(4); FREE_AND_NULL(s) }\n".into());
    let s = ir
        .locals
        .iter()
        .position(|l| l.name == "s")
        .expect("local s") as u32;
    let mentions_s = |e: &reductio::ir::ExprId| {
        let mut stack = vec![*e];
        while let Some(e) = stack.pop() {
            match ir.exprs.kind(e) {
                ExprKind::Addr(Symbol::Local(l)) if l.0 == s => return true,
                ExprKind::Deref(a) | ExprKind::Field(a, _) => stack.push(*a),
                ExprKind::Binary(_, a, b) => stack.extend([*a, *b]),
                _ => {}
            }
        }
        false
    };
    let reads_s = has_node(
        &ir,
        |k| matches!(k, StmtKind::Opaque { reads, .. } if reads.iter().any(mentions_s)),
    );
    assert!(reads_s, "{ir}");
}

/// A loop macro (`XML_NSMAP_FOREACH(map, it) { … break; }`, libxml2's tree.c:8755) parses as
/// a call followed by a block, so its `break` is outside any loop; it must not cut the path.
#[test]
fn a_break_in_a_loop_macro_is_not_a_dead_end() {
    let ir = lower_first(
        "void f(List *l) {\n    Item *it;\n    FOREACH(l, it) {\n        if (it->v) break;\n    }\n}\n".into(),
    );
    assert!(dead_ends(&ir).is_empty(), "{ir}");
}

/// A statement macro without `;` before a `for` (`LIBXML_TEST_VERSION` in libxml2's
/// xmlcatalog.c:343) breaks the `for` apart: the loop has no back edge and its `break` is a
/// dead end.
#[test]
fn a_statement_macro_before_a_for_keeps_the_loop() {
    let ir = lower_first(
        "int main(int argc, char **argv) {\n    int i;\n    LIBXML_TEST_VERSION\n    for (i = 1; i < argc; i++) {\n        if (argv[i][0] != 0)\n            break;\n    }\n    return 0;\n}\n".into(),
    );
    assert!(dead_ends(&ir).is_empty(), "{ir}");
}

/// A cast macro before an argument (`BAD_CAST p`, `#define BAD_CAST (xmlChar *)`: libxml2 has
/// hundreds) must not change the call's arity or lose the argument.
#[test]
fn a_cast_macro_before_an_argument_keeps_the_arity() {
    let ir = lower_first("void f(char *p) {\n    g(1, BAD_CAST p);\n}\n".into());
    let arity = ir.nodes.iter().find_map(|n| match &n.stmt.kind {
        StmtKind::Call {
            callee: Callee::Direct(name),
            args,
            ..
        } if name == "g" => Some(args.len()),
        _ => None,
    });
    assert_eq!(arity, Some(2), "{ir}");
}

// ---- size -------------------------------------------------------------------------------

/// One function whose body is a 1 MB expression on a single line, in three shapes.
#[test]
fn one_megabyte_expression_on_one_line() {
    let terms = MB / 4;
    survive(
        "1mb-sum",
        format!(
            "int f(int a) {{ return {}; }}",
            vec!["a"; terms].join(" + ")
        ),
    );
    survive(
        "1mb-call",
        format!(
            "int g(); int f(int a) {{ return g({}); }}",
            vec!["a"; terms].join(", ")
        ),
    );
    survive(
        "1mb-init",
        format!(
            "void f(void) {{ int v[] = {{{}}}; }}",
            vec!["1"; terms].join(",")
        ),
    );
    survive(
        "1mb-global-init",
        format!("int v[] = {{{}}};", vec!["1"; terms].join(",")),
    );
    survive(
        "1mb-string",
        format!("char *f(void) {{ return \"{}\"; }}", "x".repeat(MB)),
    );
}

#[test]
fn one_megabyte_comment() {
    let f = "int f(int *p) {\n  p = malloc(4);\n  return *p;\n}\n";
    let block = survive("1mb-block-comment", format!("/*{}*/ {f}", "x".repeat(MB)));
    let line = survive("1mb-line-comment", format!("//{}\n{f}", "x".repeat(MB)));
    let inside = survive(
        "1mb-comment-in-body",
        format!("int g(void) {{ /*{}*/ return 0; }}\n{f}", "y".repeat(MB)),
    );
    assert_eq!(block.functions, 1);
    assert_eq!(line.functions, 1);
    assert_eq!(inside.functions, 2);
}

#[test]
fn five_thousand_small_functions() {
    let mut s = String::from("#include <stdlib.h>\n");
    for i in 0..5_000 {
        s.push_str(&format!(
            "int f{i}(int x) {{ int *p = malloc(sizeof *p); if (!p) return -1; *p = x; \
             x = *p + {i}; free(p); return x; }}\n"
        ));
    }
    let out = survive("5000-functions", s);
    assert_eq!(out.functions, 5_000);
    assert_eq!((out.error_nodes, out.unrecovered), (0, 0));
    assert!(
        out.fallbacks.is_empty(),
        "{:?}",
        &out.fallbacks[..out.fallbacks.len().min(5)]
    );
}

#[test]
fn very_long_flat_bodies() {
    survive(
        "100k-statements",
        format!("void f(int x) {{ {} }}\n", "x++;".repeat(100_000)),
    );
    let cases: String = (0..DEEP)
        .map(|i| format!("case {i}: x += {i}; break;\n"))
        .collect();
    survive(
        "10k-cases",
        format!("int f(int x) {{ switch (x) {{\n{cases}}} return x; }}\n"),
    );
    let gotos: String = (0..DEEP)
        .map(|i| format!("l{i}: if (x) goto l{}; x--;\n", (i * 7919) % DEEP))
        .collect();
    survive("10k-gotos", format!("void f(int x) {{\n{gotos}}}\n"));
    let locals: String = (0..DEEP)
        .map(|i| format!("{{ char *p{i} = 0; if (x) return; }}\n"))
        .collect();
    survive("10k-scopes", format!("void f(int x) {{\n{locals}}}\n"));
}

// ---- encodings and line endings ---------------------------------------------------------

#[test]
fn non_utf8_in_strings_and_comments() {
    let mut bytes = Vec::new();
    bytes.extend_from_slice(b"/* caf\xe9 \xff\xfe */\n");
    bytes.extend_from_slice(b"static const char *g = \"\xc3\x28\xa0\xa1\";\n");
    bytes.extend_from_slice(b"char *f(char *s) {\n");
    bytes.extend_from_slice(b"    // \xf0\x28\x8c\xbc trailing\n");
    bytes.extend_from_slice(b"    char *t = \"\xe2\x82 half\";\n");
    bytes.extend_from_slice(b"    if (s[0] == '\xff') return t;\n");
    bytes.extend_from_slice(b"    return s;\n}\n");
    let (text, lossy) = decode_source(&bytes);
    assert!(lossy);
    let out = survive("latin1", text);
    assert_eq!(out.functions, 1);
    assert!(out.fallbacks.is_empty(), "{:?}", out.fallbacks);
}

/// The 1-based line of every statement and fallback, per function.
fn statement_lines(text: String) -> Vec<(String, Vec<(u32, u32)>)> {
    let mut database = Database::default();
    let file = database.add_file("lines.c".into(), text);
    let db: &dyn Db = &database;
    db::file_functions(db, file)
        .iter()
        .map(|f| {
            let ir = db::lowered(db, *f);
            let mut lines: Vec<(u32, u32)> = ir
                .nodes
                .iter()
                .map(|n| db::location(db, *f, n.stmt.range))
                .collect();
            lines.extend(ir.fallbacks.iter().map(|fb| db::location(db, *f, fb.range)));
            (f.name(db).clone(), lines)
        })
        .collect()
}

#[test]
fn crlf_line_numbers_match_lf() {
    let lf = format!("{VALID}\nint tail(int x) {{\n  #pragma once\n  return x;\n}}\n");
    let crlf = lf.replace('\n', "\r\n");
    let (a, b) = on_small_stack("crlf", move || (statement_lines(lf), statement_lines(crlf)));
    assert_eq!(a.len(), 6);
    assert_eq!(a.len(), b.len());
    for ((fa, la), (fb, lb)) in a.iter().zip(&b) {
        assert_eq!(fa, fb);
        assert_eq!(la.len(), lb.len(), "{fa}: different IR sizes under CRLF");
        for (x, y) in la.iter().zip(lb) {
            // Statements start at the same line and column: the `\r` only ends lines.
            assert_eq!(x, y, "{fa}: LF {x:?} vs CRLF {y:?}");
        }
    }
    // A lone `\r` (old Mac line endings) is not a line break, but must not break anything.
    survive("cr-only", VALID.replace('\n', "\r"));
}

// ---- random mutations -------------------------------------------------------------------

/// 300 rounds of deleting, duplicating and inserting random tokens in a valid file, lowering
/// each mutant. Mutations accumulate and restart from the valid file every 25 rounds, so both
/// near-valid and badly broken inputs are covered. `REDUCTIO_FUZZ_SEED` and
/// `REDUCTIO_FUZZ_ROUNDS` vary the run; each mutant is written to the target's tmp dir first,
/// so a crash that kills the process leaves its input behind.
#[test]
fn random_token_mutations() {
    let seed: u64 = std::env::var("REDUCTIO_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_c0de);
    let rounds: usize = std::env::var("REDUCTIO_FUZZ_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let last_input = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("robustness-mutant.c");
    // Each mutant is its own timed case (`HANG_LIMIT` bounds one lowering, not the sum of
    // three hundred); a panic is re-raised by `on_small_stack` after the input was reported.
    let mut rng = Rng::new(seed);
    let original = tokens_of(VALID);
    assert_eq!(original.concat(), VALID, "the tokenizer keeps every byte");
    let mut toks = original.clone();
    for round in 0..rounds {
        if round % 25 == 0 {
            toks = original.clone();
        }
        for _ in 0..1 + rng.below(4) {
            mutate(&mut rng, &mut toks);
        }
        let text = toks.concat();
        let _ = std::fs::write(&last_input, &text);
        let shown = text.clone();
        let result = std::panic::catch_unwind(|| {
            on_small_stack(&format!("mutant-{round}"), move || lower_everything(text))
        });
        if let Err(panic) = result {
            eprintln!("seed {seed} round {round}: the front end panicked on:\n{shown}");
            std::panic::resume_unwind(panic);
        }
    }
}

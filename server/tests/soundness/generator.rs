//! Random C programs in the paper's type-safe subset (§4): structs with pointer fields, lists
//! and trees built and torn down with malloc/free, branches and bounded loops on input values
//! read from argv, helper functions (recursive ones too), returns of fresh memory.
//!
//! A program is a random selection of *helpers* (list, tree and box routines, each in one of
//! several hand-written variants, each optionally carrying an injected leak that fires only
//! for some values), random *workers* (functions whose bodies are random operations, some
//! taking ownership of a list, some borrowing a tree, some recursive on a depth argument), and
//! a random `main` that reads up to four integers from argv and runs random operations on
//! local handles (two lists, a tree, a box), with branches, loops, early returns, moves into
//! and out of structs, and a (possibly partial) teardown.
//! In one program of three (by seed), the constructors give up on a failed allocation through
//! `oom()`, the program's own function that exits, instead of calling `exit` directly: the
//! analysis must infer that `oom` never returns, and must not prove anything that needs more.
//!
//! Handles follow an ownership discipline at generation time (each structure is reachable from
//! exactly one handle; a handle is freed only after being set or checked), so programs are
//! memory-safe by construction apart from leaks. The interpreter double-checks: a program
//! with undefined behaviour on any input is rejected, not used.
//!
//! What is *not* generated, and why (see ARCHITECTURE.md, "Unsound assumptions"):
//! - casts, unions, pointer arithmetic, arrays of pointers, `&` on variables: outside the
//!   paper's type-safe subset (arrays are deliberately not probed);
//! - calls to body-less functions other than `malloc`/`calloc`/`free`/`exit`/`atoi` and
//!   `memset(b, 0, sizeof *b)` on a fresh box (one program in five; a `memset` over memory
//!   that still holds references would lose them where no probe stands): such calls make
//!   pointer arguments escape by design;
//! - function pointers: indirect calls are resolved by arity only;
//! - cyclic structures (doubly-linked lists, back pointers): the paper detects *referencing*
//!   leaks — the loss of the last reference to a cell — and a garbage cycle never loses its
//!   last reference. The interpreter rejects programs that create garbage cycles.

use std::fmt::Write as _;

/// A tiny xorshift64* generator: deterministic, no dependencies.
#[derive(Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }

    /// True with probability `p` percent.
    pub fn chance(&mut self, p: usize) -> bool {
        self.below(100) < p
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

pub const PRELUDE: &str = "\
#include <stdlib.h>
#include <string.h>
struct node {
    int val;
    struct node *next;
};

struct tree {
    int key;
    struct tree *left;
    struct tree *right;
};

struct box {
    int tag;
    struct node *items;
    struct tree *index;
};
";

/// Inputs a run passes on the command line (values the conditions compare against).
pub fn random_inputs(rng: &mut Rng, count: usize) -> Vec<i64> {
    (0..count).map(|_| rng.range(0, 7)).collect()
}

// ---- helpers ------------------------------------------------------------------------------

/// The helper routines, in dependency order (a helper only calls helpers before it).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Helper {
    NodeNew,
    TreeNew,
    BoxNew,
    ListBuild,
    ListFree,
    ListPop,
    ListRemove,
    ListReverse,
    ListSum,
    ListCopy,
    ListAppend,
    ListFilter,
    TreeInsert,
    TreeFree,
    TreeCount,
    TreeToList,
    BoxAdd,
    BoxFree,
    ListShuffle,
}

const HELPERS: [Helper; 19] = [
    Helper::NodeNew,
    Helper::TreeNew,
    Helper::BoxNew,
    Helper::ListBuild,
    Helper::ListFree,
    Helper::ListPop,
    Helper::ListRemove,
    Helper::ListReverse,
    Helper::ListSum,
    Helper::ListCopy,
    Helper::ListAppend,
    Helper::ListFilter,
    Helper::TreeInsert,
    Helper::TreeFree,
    Helper::TreeCount,
    Helper::TreeToList,
    Helper::BoxAdd,
    Helper::BoxFree,
    Helper::ListShuffle,
];

impl Helper {
    fn deps(self) -> &'static [Helper] {
        use Helper::*;
        match self {
            NodeNew | TreeNew | BoxNew | ListSum | TreeCount | ListReverse | ListAppend => &[],
            ListBuild | ListCopy => &[NodeNew],
            ListFree | ListPop | ListRemove | ListFilter => &[],
            TreeInsert => &[TreeNew],
            TreeFree => &[],
            TreeToList => &[NodeNew],
            BoxAdd => &[NodeNew, TreeInsert],
            BoxFree => &[ListFree, TreeFree],
            ListShuffle => &[NodeNew, ListFree, ListAppend],
        }
    }
}

/// Text builder with indentation.
struct Out {
    text: String,
    indent: usize,
}

impl Out {
    fn new() -> Out {
        Out {
            text: String::new(),
            indent: 0,
        }
    }

    fn line(&mut self, s: &str) {
        if s.starts_with('}') {
            self.indent = self.indent.saturating_sub(1);
        }
        for _ in 0..self.indent {
            self.text.push_str("    ");
        }
        self.text.push_str(s);
        self.text.push('\n');
        if s.ends_with('{') {
            self.indent += 1;
        }
    }
}

/// Coding-style choices, so the analysis meets more than one shape of the same routine.
struct Style {
    null_test: usize,
    /// What a helper does when an allocation fails: `exit(1);` directly, or `oom();`, a
    /// function of the program that exits (so the analysis must infer that it never returns).
    fail: &'static str,
    /// Whether `box_new` clears the new box with `memset(b, 0, sizeof *b)` instead of
    /// setting each field. Only a fresh box is cleared: a `memset` over a box whose list a
    /// buggy `list_free` left in place would lose it there, and a `memset` is not a probe
    /// site (found by seed 2487 when `box_free` cleared the box before freeing it).
    clear: bool,
}

impl Style {
    fn is_null(&self, e: &str) -> String {
        if self.null_test == 0 {
            format!("{e} == NULL")
        } else {
            format!("!{e}")
        }
    }

    fn not_null(&self, e: &str) -> String {
        if self.null_test == 0 {
            format!("{e} != NULL")
        } else {
            e.to_string()
        }
    }
}

fn alloc_expr(rng: &mut Rng, var: &str, ty: &str) -> String {
    match rng.below(4) {
        0 => format!("malloc(sizeof(struct {ty}))"),
        1 => format!("calloc(1, sizeof *{var})"),
        _ => format!("malloc(sizeof *{var})"),
    }
}

fn write_helper(out: &mut Out, rng: &mut Rng, st: &Style, h: Helper) {
    // An injected leak fires when a value equals (or exceeds) this constant.
    let k = rng.range(0, 9);
    let bug = rng.chance(30);
    let v = rng.below(3);
    match h {
        Helper::NodeNew => {
            out.line("static struct node *node_new(int v, struct node *next)");
            out.line("{");
            let a = alloc_expr(rng, "n", "node");
            out.line(&format!("struct node *n = {a};"));
            out.line(&format!("if ({})", st.is_null("n")));
            out.line(&format!("    {}", st.fail));
            out.line("n->val = v;");
            out.line("n->next = next;");
            out.line("return n;");
            out.line("}");
        }
        Helper::TreeNew => {
            out.line("static struct tree *tree_new(int k)");
            out.line("{");
            out.line("struct tree *t;");
            let a = alloc_expr(rng, "t", "tree");
            out.line(&format!("t = {a};"));
            out.line(&format!("if ({})", st.is_null("t")));
            out.line(&format!("    {}", st.fail));
            out.line("t->key = k;");
            out.line("t->left = NULL;");
            out.line("t->right = NULL;");
            out.line("return t;");
            out.line("}");
        }
        Helper::BoxNew => {
            out.line("static struct box *box_new(int tag)");
            out.line("{");
            let a = alloc_expr(rng, "b", "box");
            out.line(&format!("struct box *b = {a};"));
            out.line(&format!("if ({})", st.is_null("b")));
            out.line(&format!("    {}", st.fail));
            if st.clear {
                out.line("memset(b, 0, sizeof *b);");
                out.line("b->tag = tag;");
            } else {
                out.line("b->tag = tag;");
                out.line("b->items = NULL;");
                out.line("b->index = NULL;");
            }
            out.line("return b;");
            out.line("}");
        }
        Helper::ListBuild => {
            out.line("static struct node *list_build(int n, int seed)");
            out.line("{");
            match v {
                0 => {
                    out.line("struct node *head = NULL;");
                    out.line("int i;");
                    out.line("for (i = 0; i < n; i++) {");
                    out.line("head = node_new(seed + i, head);");
                    if bug {
                        match rng.below(3) {
                            0 => {
                                out.line(&format!("if (seed + i == {k})"));
                                out.line("    node_new(i, NULL);");
                            }
                            1 => {
                                out.line(&format!("if (seed + i == {k}) {{"));
                                out.line("struct node *extra = node_new(i, NULL);");
                                out.line("extra->val = 0;");
                                out.line("}");
                            }
                            _ => {
                                out.line(&format!("if (seed + i == {k})"));
                                out.line("    head = node_new(i, NULL);");
                            }
                        }
                    }
                    out.line("}");
                    out.line("return head;");
                }
                1 => {
                    out.line("struct node *head = NULL;");
                    out.line("struct node *tail = NULL;");
                    out.line("int i = 0;");
                    out.line("while (i < n) {");
                    let a = alloc_expr(rng, "c", "node");
                    out.line(&format!("struct node *c = {a};"));
                    out.line(&format!("if ({})", st.is_null("c")));
                    out.line(&format!("    {}", st.fail));
                    out.line("c->val = seed + i;");
                    out.line("c->next = NULL;");
                    out.line(&format!("if ({})", st.is_null("tail")));
                    out.line("    head = c;");
                    out.line("else");
                    out.line("    tail->next = c;");
                    out.line("tail = c;");
                    if bug {
                        out.line(&format!("if (c->val == {k})"));
                        out.line("    head = c;");
                    }
                    out.line("i = i + 1;");
                    out.line("}");
                    out.line("return head;");
                }
                _ => {
                    out.line("if (n <= 0)");
                    out.line("    return NULL;");
                    if bug {
                        out.line("struct node *rest = list_build(n - 1, seed + 1);");
                        out.line(&format!("if (seed == {k})"));
                        out.line("    return node_new(seed, NULL);");
                        out.line("return node_new(seed, rest);");
                    } else {
                        out.line("return node_new(seed, list_build(n - 1, seed + 1));");
                    }
                }
            }
            out.line("}");
        }
        Helper::ListFree => {
            out.line("static void list_free(struct node *p)");
            out.line("{");
            match v {
                0 => {
                    out.line(&format!("while ({}) {{", st.not_null("p")));
                    out.line("struct node *next = p->next;");
                    if bug {
                        out.line(&format!("if (p->val == {k})"));
                        out.line("    return;");
                    }
                    out.line("free(p);");
                    out.line("p = next;");
                    out.line("}");
                }
                1 => {
                    out.line(&format!("if ({})", st.is_null("p")));
                    out.line("    return;");
                    if bug {
                        if rng.chance(50) {
                            out.line(&format!("if (p->val == {k}) {{"));
                            out.line("free(p);");
                            out.line("return;");
                            out.line("}");
                        } else {
                            out.line(&format!("if (p->val > {k})"));
                            out.line("    return;");
                        }
                    }
                    out.line("list_free(p->next);");
                    out.line("free(p);");
                }
                _ => {
                    out.line("struct node *tmp;");
                    out.line(&format!("while ({}) {{", st.not_null("p")));
                    out.line("tmp = p;");
                    out.line("p = p->next;");
                    if bug {
                        out.line(&format!("if (tmp->val != {k})"));
                        out.line("    free(tmp);");
                    } else {
                        out.line("free(tmp);");
                    }
                    out.line("}");
                }
            }
            out.line("}");
        }
        Helper::ListPop => {
            out.line("static struct node *list_pop(struct node *head)");
            out.line("{");
            out.line("struct node *rest;");
            out.line(&format!("if ({})", st.is_null("head")));
            out.line("    return NULL;");
            out.line("rest = head->next;");
            if bug {
                out.line(&format!("if (head->val == {k})"));
                out.line("    return rest;");
            }
            out.line("free(head);");
            out.line("return rest;");
            out.line("}");
        }
        Helper::ListRemove => {
            out.line("static struct node *list_remove(struct node *head, int v)");
            out.line("{");
            if v == 0 {
                out.line("struct node *prev = NULL;");
                out.line("struct node *cur = head;");
                out.line(&format!("while ({}) {{", st.not_null("cur")));
                out.line("if (cur->val == v) {");
                out.line(&format!("if ({})", st.is_null("prev")));
                out.line("    head = cur->next;");
                out.line("else");
                out.line("    prev->next = cur->next;");
                if bug {
                    out.line(&format!("if (v != {k})"));
                    out.line("    free(cur);");
                } else {
                    out.line("free(cur);");
                }
                out.line("return head;");
                out.line("}");
                out.line("prev = cur;");
                out.line("cur = cur->next;");
                out.line("}");
                out.line("return head;");
            } else {
                out.line(&format!("if ({})", st.is_null("head")));
                out.line("    return NULL;");
                out.line("if (head->val == v) {");
                out.line("struct node *rest = head->next;");
                if bug {
                    out.line(&format!("if (v < {k})"));
                    out.line("    free(head);");
                } else {
                    out.line("free(head);");
                }
                out.line("return rest;");
                out.line("}");
                out.line("head->next = list_remove(head->next, v);");
                out.line("return head;");
            }
            out.line("}");
        }
        Helper::ListReverse if v == 2 => {
            // Recursive: the frame links its old successor back to itself after the call.
            out.line("static struct node *list_reverse(struct node *x)");
            out.line("{");
            out.line("struct node *rest;");
            out.line(&format!(
                "if ({} || {})",
                st.is_null("x"),
                st.is_null("x->next")
            ));
            out.line("    return x;");
            out.line("rest = list_reverse(x->next);");
            out.line("x->next->next = x;");
            out.line("x->next = NULL;");
            if bug {
                out.line(&format!("if (x->val == {k})"));
                out.line("    return x;");
            }
            out.line("return rest;");
            out.line("}");
        }
        Helper::ListReverse => {
            out.line("static struct node *list_reverse(struct node *x)");
            out.line("{");
            out.line("struct node *y = NULL;");
            out.line(&format!("while ({}) {{", st.not_null("x")));
            if bug {
                out.line(&format!("if (x->val == {k})"));
                out.line("    return y;");
            }
            out.line("struct node *t = x->next;");
            out.line("x->next = y;");
            out.line("y = x;");
            out.line("x = t;");
            out.line("}");
            out.line("return y;");
            out.line("}");
        }
        Helper::ListSum => {
            out.line("static int list_sum(struct node *p)");
            out.line("{");
            if v == 0 {
                out.line(&format!("if ({})", st.is_null("p")));
                out.line("    return 0;");
                out.line("return p->val + list_sum(p->next);");
            } else {
                out.line("int s = 0;");
                out.line(&format!("while ({}) {{", st.not_null("p")));
                out.line("s = s + p->val;");
                out.line("p = p->next;");
                out.line("}");
                out.line("return s;");
            }
            out.line("}");
        }
        Helper::ListCopy => {
            out.line("static struct node *list_copy(struct node *p)");
            out.line("{");
            if v == 0 {
                out.line(&format!("if ({})", st.is_null("p")));
                out.line("    return NULL;");
                if bug {
                    out.line("struct node *rest = list_copy(p->next);");
                    out.line(&format!("if (p->val == {k})"));
                    out.line("    return NULL;");
                    out.line("return node_new(p->val, rest);");
                } else {
                    out.line("return node_new(p->val, list_copy(p->next));");
                }
            } else {
                out.line("struct node *head = NULL;");
                out.line("struct node *tail = NULL;");
                out.line(&format!("while ({}) {{", st.not_null("p")));
                out.line("struct node *c = node_new(p->val, NULL);");
                if bug {
                    out.line(&format!("if (p->val == {k})"));
                    out.line("    c = node_new(p->val, NULL);");
                }
                out.line(&format!("if ({})", st.is_null("tail")));
                out.line("    head = c;");
                out.line("else");
                out.line("    tail->next = c;");
                out.line("tail = c;");
                out.line("p = p->next;");
                out.line("}");
                out.line("return head;");
            }
            out.line("}");
        }
        Helper::ListAppend => {
            out.line("static struct node *list_append(struct node *a, struct node *b)");
            out.line("{");
            if v == 0 {
                out.line(&format!("if ({})", st.is_null("a")));
                out.line("    return b;");
                out.line("a->next = list_append(a->next, b);");
                out.line("return a;");
            } else {
                out.line("struct node *last = a;");
                out.line(&format!("if ({})", st.is_null("a")));
                out.line("    return b;");
                out.line(&format!("while ({})", st.not_null("last->next")));
                out.line("    last = last->next;");
                if bug {
                    out.line(&format!("if (last->val != {k})"));
                    out.line("    last->next = b;");
                } else {
                    out.line("last->next = b;");
                }
                out.line("return a;");
            }
            out.line("}");
        }
        Helper::ListFilter => {
            out.line("static struct node *list_filter(struct node *p, int k)");
            out.line("{");
            out.line("struct node *head = NULL;");
            out.line(&format!("while ({}) {{", st.not_null("p")));
            out.line("struct node *next = p->next;");
            out.line("if (p->val < k) {");
            out.line("p->next = head;");
            out.line("head = p;");
            out.line("} else {");
            if bug {
                out.line(&format!("if (p->val != {k})"));
                out.line("    free(p);");
            } else {
                out.line("free(p);");
            }
            out.line("}");
            out.line("p = next;");
            out.line("}");
            out.line("return head;");
            out.line("}");
        }
        Helper::TreeInsert => {
            out.line("static struct tree *tree_insert(struct tree *t, int k)");
            out.line("{");
            if v == 0 {
                out.line(&format!("if ({})", st.is_null("t")));
                out.line("    return tree_new(k);");
                out.line("if (k < t->key)");
                out.line("    t->left = tree_insert(t->left, k);");
                out.line("else if (k > t->key)");
                out.line("    t->right = tree_insert(t->right, k);");
                if bug {
                    out.line(&format!("else if (k == {k})"));
                    out.line("    t->right = tree_new(k);");
                }
                out.line("return t;");
            } else {
                out.line("struct tree *n = tree_new(k);");
                out.line("struct tree *cur = t;");
                out.line(&format!("if ({})", st.is_null("t")));
                out.line("    return n;");
                out.line(&format!("while ({}) {{", st.not_null("cur")));
                out.line("if (k < cur->key) {");
                out.line(&format!("if ({}) {{", st.is_null("cur->left")));
                out.line("cur->left = n;");
                out.line("return t;");
                out.line("}");
                out.line("cur = cur->left;");
                out.line("} else if (k > cur->key) {");
                out.line(&format!("if ({}) {{", st.is_null("cur->right")));
                out.line("cur->right = n;");
                out.line("return t;");
                out.line("}");
                out.line("cur = cur->right;");
                out.line("} else {");
                if bug {
                    out.line(&format!("if (k != {k})"));
                    out.line("    free(n);");
                } else {
                    out.line("free(n);");
                }
                out.line("return t;");
                out.line("}");
                out.line("}");
                out.line("return t;");
            }
            out.line("}");
        }
        Helper::TreeFree => {
            out.line("static void tree_free(struct tree *t)");
            out.line("{");
            out.line(&format!("if ({})", st.is_null("t")));
            out.line("    return;");
            out.line("tree_free(t->left);");
            if bug {
                out.line(&format!("if (t->key > {k}) {{"));
                out.line("free(t);");
                out.line("return;");
                out.line("}");
            }
            out.line("tree_free(t->right);");
            out.line("free(t);");
            out.line("}");
        }
        Helper::TreeCount => {
            out.line("static int tree_count(struct tree *t)");
            out.line("{");
            out.line(&format!("if ({})", st.is_null("t")));
            out.line("    return 0;");
            out.line("return 1 + tree_count(t->left) + tree_count(t->right);");
            out.line("}");
        }
        Helper::TreeToList => {
            out.line("static struct node *tree_to_list(struct tree *t, struct node *acc)");
            out.line("{");
            out.line(&format!("if ({})", st.is_null("t")));
            out.line("    return acc;");
            out.line("acc = tree_to_list(t->right, acc);");
            if bug {
                out.line(&format!("if (t->key == {k})"));
                out.line("    acc = node_new(t->key, NULL);");
                out.line("else");
                out.line("    acc = node_new(t->key, acc);");
            } else {
                out.line("acc = node_new(t->key, acc);");
            }
            out.line("return tree_to_list(t->left, acc);");
            out.line("}");
        }
        Helper::BoxAdd => {
            out.line("static void box_add(struct box *b, int v)");
            out.line("{");
            if bug {
                out.line(&format!("if (v == {k})"));
                out.line("    b->items = node_new(v, NULL);");
                out.line("else");
                out.line("    b->items = node_new(v, b->items);");
            } else {
                out.line("b->items = node_new(v, b->items);");
            }
            out.line("b->index = tree_insert(b->index, v);");
            out.line("}");
        }
        Helper::ListShuffle => {
            // Random guarded surgery on the first cells of a list, with a side list `x`.
            out.line("static struct node *list_shuffle(struct node *l, int a)");
            out.line("{");
            out.line("struct node *x = NULL;");
            for _ in 0..2 + rng.below(4) {
                let k = rng.range(0, 9);
                let bug = rng.chance(15);
                match rng.below(5) {
                    0 => {
                        out.line(&format!(
                            "if ({} && {}) {{",
                            st.not_null("l"),
                            st.not_null("l->next")
                        ));
                        out.line("struct node *s = l->next;");
                        out.line("l->next = s->next;");
                        out.line("s->next = l;");
                        out.line("l = s;");
                        out.line("}");
                    }
                    1 => {
                        out.line(&format!(
                            "if ({} && {}) {{",
                            st.not_null("l"),
                            st.not_null("l->next")
                        ));
                        out.line("struct node *s = l->next;");
                        out.line("l->next = s->next;");
                        if bug {
                            out.line(&format!("if (a != {k})"));
                            out.line("    free(s);");
                        } else {
                            out.line("free(s);");
                        }
                        out.line("}");
                    }
                    2 => {
                        out.line(&format!("if ({}) {{", st.not_null("l")));
                        out.line("struct node *h = l;");
                        out.line("l = l->next;");
                        out.line("h->next = x;");
                        out.line("x = h;");
                        out.line("}");
                    }
                    3 => {
                        out.line("x = node_new(a, x);");
                        if bug {
                            out.line(&format!("if (a == {k})"));
                            out.line("    x = node_new(a, NULL);");
                        }
                    }
                    _ => {
                        out.line(&format!("if ({} && l->val > a) {{", st.not_null("l")));
                        out.line("struct node *h = l;");
                        out.line("l = h->next;");
                        out.line("free(h);");
                        out.line("}");
                    }
                }
            }
            if rng.chance(50) {
                out.line("return list_append(l, x);");
            } else {
                if rng.chance(80) {
                    out.line("list_free(x);");
                }
                out.line("return l;");
            }
            out.line("}");
        }
        Helper::BoxFree => {
            out.line("static void box_free(struct box *b)");
            out.line("{");
            out.line(&format!("if ({})", st.is_null("b")));
            out.line("    return;");
            out.line("list_free(b->items);");
            if bug {
                if rng.chance(50) {
                    out.line(&format!("if (b->tag < {k})"));
                    out.line("    tree_free(b->index);");
                } else {
                    out.line(&format!("if (b->tag == {k}) {{"));
                    out.line("free(b);");
                    out.line("return;");
                    out.line("}");
                    out.line("tree_free(b->index);");
                }
            } else {
                out.line("tree_free(b->index);");
            }
            out.line("free(b);");
            out.line("}");
        }
    }
    out.line("");
}

// ---- random operations (workers and main) -------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    List,
    Tree,
    Box,
}

/// What generation knows about a handle: whether it may hold a structure.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    Null,
    Owned,
    Maybe,
}

fn merge(a: State, b: State) -> State {
    if a == b { a } else { State::Maybe }
}

#[derive(Clone, Debug)]
struct Handle {
    name: String,
    kind: Kind,
    state: State,
    /// Borrowed from the caller: never freed, popped or moved.
    borrowed: bool,
}

#[derive(Clone, Debug)]
struct WorkerSig {
    name: String,
    shape: WorkerShape,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum WorkerShape {
    /// `struct node *w(struct node *l, int a)`: takes the list, returns a list.
    OwnsList,
    /// `int w(struct tree *t, int a)`: borrows the tree.
    BorrowsTree,
    /// `struct node *w(int d, int a)`: recursive on `d`, returns fresh memory.
    Recursive,
}

struct Ctx<'a> {
    rng: &'a mut Rng,
    st: &'a Style,
    out: Out,
    handles: Vec<Handle>,
    /// Integer variables the expressions may read.
    ints: Vec<String>,
    /// The int accumulator.
    acc: String,
    workers: &'a [WorkerSig],
    /// The function being generated (recursive workers call themselves).
    this: Option<WorkerSig>,
    /// What a `return` in the middle returns.
    early_return: String,
    used: &'a mut Vec<Helper>,
    loop_var: usize,
    depth: usize,
}

impl Ctx<'_> {
    fn use_helper(&mut self, h: Helper) -> &'static str {
        if !self.used.contains(&h) {
            self.used.push(h);
        }
        match h {
            Helper::NodeNew => "node_new",
            Helper::TreeNew => "tree_new",
            Helper::BoxNew => "box_new",
            Helper::ListBuild => "list_build",
            Helper::ListFree => "list_free",
            Helper::ListPop => "list_pop",
            Helper::ListRemove => "list_remove",
            Helper::ListReverse => "list_reverse",
            Helper::ListSum => "list_sum",
            Helper::ListCopy => "list_copy",
            Helper::ListAppend => "list_append",
            Helper::ListFilter => "list_filter",
            Helper::TreeInsert => "tree_insert",
            Helper::TreeFree => "tree_free",
            Helper::TreeCount => "tree_count",
            Helper::TreeToList => "tree_to_list",
            Helper::BoxAdd => "box_add",
            Helper::BoxFree => "box_free",
            Helper::ListShuffle => "list_shuffle",
        }
    }

    /// A small int expression over the inputs.
    fn int_expr(&mut self) -> String {
        let v = self.rng.pick(&self.ints).clone();
        match self.rng.below(6) {
            0 => v,
            1 => format!("{v} + {}", self.rng.range(1, 3)),
            2 => format!("{v} % 4 + 1"),
            3 => format!("{} % 5", self.acc),
            4 => self.rng.range(0, 7).to_string(),
            _ => format!("{v} * 2"),
        }
    }

    /// A small count (loop bounds, list lengths).
    fn count_expr(&mut self) -> String {
        let v = self.rng.pick(&self.ints).clone();
        match self.rng.below(3) {
            0 => format!("{v} % 4"),
            1 => format!("{v} % 3 + 1"),
            _ => self.rng.range(0, 3).to_string(),
        }
    }

    fn cond(&mut self) -> String {
        let v = self.rng.pick(&self.ints).clone();
        let c = self.rng.range(0, 7);
        match self.rng.below(7) {
            0 => format!("{v} > {c}"),
            1 => format!("{v} == {c}"),
            2 => format!("{v} % 2 == 0"),
            3 => format!("{} > {}", self.acc, self.rng.range(0, 20)),
            4 => {
                let w = self.rng.pick(&self.ints).clone();
                format!("{v} < {w}")
            }
            5 => format!("{v} != {c} && {v} < {}", c + 3),
            _ => format!("{v} <= {c} || {v} == 7"),
        }
    }

    fn pick_handle(&mut self, kind: Kind, owned_only: bool) -> Option<usize> {
        let idx: Vec<usize> = (0..self.handles.len())
            .filter(|&i| self.handles[i].kind == kind && !(owned_only && self.handles[i].borrowed))
            .collect();
        if idx.is_empty() {
            None
        } else {
            Some(*self.rng.pick(&idx))
        }
    }

    /// Whether overwriting handle `i` is acceptable now: it holds nothing, or a deliberate leak.
    fn may_overwrite(&mut self, i: usize) -> bool {
        let h = &self.handles[i];
        if h.borrowed {
            return false;
        }
        h.state == State::Null || self.rng.chance(8)
    }

    fn set(&mut self, i: usize, s: State) {
        self.handles[i].state = s;
    }

    /// One random operation (possibly compound).
    fn op(&mut self) {
        let choice = self.rng.below(if self.depth >= 2 { 26 } else { 30 });
        match choice {
            0..=2 => {
                // Build a fresh list.
                if let Some(i) = self.pick_handle(Kind::List, true)
                    && self.may_overwrite(i)
                {
                    let f = self.use_helper(Helper::ListBuild);
                    let (n, s) = (self.count_expr(), self.int_expr());
                    let name = self.handles[i].name.clone();
                    self.out.line(&format!("{name} = {f}({n}, {s});"));
                    self.set(i, State::Maybe);
                }
            }
            3 | 4 => {
                if let Some(i) = self.pick_handle(Kind::List, false) {
                    let f = self.use_helper(Helper::NodeNew);
                    let e = self.int_expr();
                    let name = self.handles[i].name.clone();
                    self.out.line(&format!("{name} = {f}({e}, {name});"));
                    self.set(i, State::Owned);
                }
            }
            5 => {
                if let Some(i) = self.pick_handle(Kind::List, true) {
                    let f = self.use_helper(Helper::ListPop);
                    let name = self.handles[i].name.clone();
                    self.out.line(&format!("{name} = {f}({name});"));
                    self.set(i, State::Maybe);
                }
            }
            6 => {
                if let Some(i) = self.pick_handle(Kind::List, true) {
                    let f = self.use_helper(Helper::ListRemove);
                    let e = self.int_expr();
                    let name = self.handles[i].name.clone();
                    self.out.line(&format!("{name} = {f}({name}, {e});"));
                    self.set(i, State::Maybe);
                }
            }
            7 if self.rng.chance(50) => {
                if let Some(i) = self.pick_handle(Kind::List, true) {
                    let f = self.use_helper(Helper::ListShuffle);
                    let e = self.int_expr();
                    let name = self.handles[i].name.clone();
                    self.out.line(&format!("{name} = {f}({name}, {e});"));
                    self.set(i, State::Maybe);
                }
            }
            7 => {
                if let Some(i) = self.pick_handle(Kind::List, true) {
                    let f = self.use_helper(Helper::ListReverse);
                    let name = self.handles[i].name.clone();
                    self.out.line(&format!("{name} = {f}({name});"));
                }
            }
            8 => {
                if let Some(i) = self.pick_handle(Kind::List, true) {
                    let f = self.use_helper(Helper::ListFilter);
                    let e = self.int_expr();
                    let name = self.handles[i].name.clone();
                    self.out.line(&format!("{name} = {f}({name}, {e});"));
                    self.set(i, State::Maybe);
                }
            }
            9 => {
                if let Some(i) = self.pick_handle(Kind::List, false) {
                    let f = self.use_helper(Helper::ListSum);
                    let name = self.handles[i].name.clone();
                    let acc = self.acc.clone();
                    self.out.line(&format!("{acc} = {acc} + {f}({name});"));
                }
            }
            10 => {
                // Copy one list into another handle.
                let a = self.pick_handle(Kind::List, false);
                let b = self.pick_handle(Kind::List, true);
                if let (Some(a), Some(b)) = (a, b)
                    && a != b
                    && self.may_overwrite(b)
                {
                    let f = self.use_helper(Helper::ListCopy);
                    let (na, nb) = (self.handles[a].name.clone(), self.handles[b].name.clone());
                    self.out.line(&format!("{nb} = {f}({na});"));
                    self.set(b, State::Maybe);
                }
            }
            11 => {
                let a = self.pick_handle(Kind::List, true);
                let b = self.pick_handle(Kind::List, true);
                if let (Some(a), Some(b)) = (a, b)
                    && a != b
                {
                    let f = self.use_helper(Helper::ListAppend);
                    let (na, nb) = (self.handles[a].name.clone(), self.handles[b].name.clone());
                    self.out.line(&format!("{na} = {f}({na}, {nb});"));
                    self.out.line(&format!("{nb} = NULL;"));
                    let s = merge(self.handles[a].state, self.handles[b].state);
                    self.set(a, s);
                    self.set(b, State::Null);
                }
            }
            12 | 13 => self.free_handle(Kind::List),
            14 | 15 => {
                if let Some(i) = self.pick_handle(Kind::Tree, false) {
                    let f = self.use_helper(Helper::TreeInsert);
                    let e = self.int_expr();
                    let name = self.handles[i].name.clone();
                    self.out.line(&format!("{name} = {f}({name}, {e});"));
                    if !self.handles[i].borrowed {
                        self.set(i, State::Owned);
                    }
                }
            }
            16 => {
                if let Some(i) = self.pick_handle(Kind::Tree, false) {
                    let f = self.use_helper(Helper::TreeCount);
                    let name = self.handles[i].name.clone();
                    let acc = self.acc.clone();
                    self.out.line(&format!("{acc} = {acc} + {f}({name});"));
                }
            }
            17 => self.free_handle(Kind::Tree),
            18 => {
                let t = self.pick_handle(Kind::Tree, false);
                let l = self.pick_handle(Kind::List, true);
                if let (Some(t), Some(l)) = (t, l) {
                    let f = self.use_helper(Helper::TreeToList);
                    let (nt, nl) = (self.handles[t].name.clone(), self.handles[l].name.clone());
                    self.out.line(&format!("{nl} = {f}({nt}, {nl});"));
                    self.set(l, State::Maybe);
                }
            }
            19 => {
                if let Some(i) = self.pick_handle(Kind::Box, true)
                    && self.may_overwrite(i)
                {
                    let f = self.use_helper(Helper::BoxNew);
                    let e = self.int_expr();
                    let name = self.handles[i].name.clone();
                    self.out.line(&format!("{name} = {f}({e});"));
                    self.set(i, State::Owned);
                }
            }
            20 | 21 => {
                if let Some(i) = self.pick_handle(Kind::Box, true) {
                    let f = self.use_helper(Helper::BoxAdd);
                    let e = self.int_expr();
                    let name = self.handles[i].name.clone();
                    let test = self.st.not_null(&name);
                    self.out.line(&format!("if ({test})"));
                    self.out.line(&format!("    {f}({name}, {e});"));
                }
            }
            22 => {
                // Move a list into the box, or the box's list out.
                let b = self.pick_handle(Kind::Box, true);
                let l = self.pick_handle(Kind::List, true);
                if let (Some(b), Some(l)) = (b, l) {
                    let (nb, nl) = (self.handles[b].name.clone(), self.handles[l].name.clone());
                    if self.rng.chance(50) {
                        self.out.line(&format!(
                            "if ({} && {}) {{",
                            self.st.not_null(&nb),
                            self.st.is_null(&format!("{nb}->items"))
                        ));
                        self.out.line(&format!("{nb}->items = {nl};"));
                        self.out.line(&format!("{nl} = NULL;"));
                        self.out.line("}");
                        let s = merge(self.handles[l].state, State::Null);
                        self.set(l, s);
                    } else if self.handles[l].state == State::Null || self.rng.chance(10) {
                        self.out.line(&format!("if ({}) {{", self.st.not_null(&nb)));
                        self.out.line(&format!("{nl} = {nb}->items;"));
                        self.out.line(&format!("{nb}->items = NULL;"));
                        self.out.line("}");
                        let s = merge(self.handles[l].state, State::Maybe);
                        self.set(l, s);
                    }
                }
            }
            23 => self.free_handle(Kind::Box),
            24 => {
                // A fresh result ignored, or a handle dropped: leaks whenever it runs.
                if self.rng.chance(50) {
                    let f = self.use_helper(Helper::NodeNew);
                    let e = self.int_expr();
                    self.out.line(&format!("{f}({e}, NULL);"));
                } else if let Some(i) = self.pick_handle(Kind::List, true) {
                    let name = self.handles[i].name.clone();
                    let c = self.cond();
                    self.out.line(&format!("if ({c})"));
                    self.out.line(&format!("    {name} = NULL;"));
                    let s = merge(self.handles[i].state, State::Null);
                    self.set(i, s);
                }
            }
            25 => self.call_worker(),
            26 | 27 => {
                // A branch on the inputs.
                let c = self.cond();
                self.out.line(&format!("if ({c}) {{"));
                let before = self.handles.clone();
                self.depth += 1;
                for _ in 0..1 + self.rng.below(3) {
                    self.op();
                }
                let after_then = std::mem::replace(&mut self.handles, before);
                if self.rng.chance(50) {
                    self.out.line("} else {");
                    for _ in 0..1 + self.rng.below(2) {
                        self.op();
                    }
                }
                self.depth -= 1;
                self.out.line("}");
                for (h, t) in self.handles.iter_mut().zip(after_then) {
                    h.state = merge(h.state, t.state);
                }
            }
            28 => {
                // A bounded loop of insertions.
                let var = format!("i{}", self.loop_var);
                self.loop_var += 1;
                let n = self.count_expr();
                self.out
                    .line(&format!("for (int {var} = 0; {var} < {n}; {var}++) {{"));
                let saved = self.ints.clone();
                self.ints.push(var.clone());
                let body = 1 + self.rng.below(2);
                for _ in 0..body {
                    match self.rng.below(4) {
                        0 => {
                            if let Some(i) = self.pick_handle(Kind::List, false) {
                                let f = self.use_helper(Helper::NodeNew);
                                let name = self.handles[i].name.clone();
                                self.out.line(&format!("{name} = {f}({var}, {name});"));
                                let s = merge(self.handles[i].state, State::Owned);
                                self.set(i, s);
                            }
                        }
                        1 => {
                            if let Some(i) = self.pick_handle(Kind::Tree, false) {
                                let f = self.use_helper(Helper::TreeInsert);
                                let name = self.handles[i].name.clone();
                                let e = self.int_expr();
                                self.out.line(&format!("{name} = {f}({name}, {e});"));
                                if !self.handles[i].borrowed {
                                    let s = merge(self.handles[i].state, State::Owned);
                                    self.set(i, s);
                                }
                            }
                        }
                        2 => {
                            if let Some(i) = self.pick_handle(Kind::Box, true) {
                                let f = self.use_helper(Helper::BoxAdd);
                                let name = self.handles[i].name.clone();
                                let test = self.st.not_null(&name);
                                self.out.line(&format!("if ({test})"));
                                self.out.line(&format!("    {f}({name}, {var});"));
                            }
                        }
                        _ => {
                            // A block-scoped temporary: built, used, and freed (or not).
                            let f = self.use_helper(Helper::ListBuild);
                            let g = self.use_helper(Helper::ListSum);
                            self.out.line("{");
                            let n = self.count_expr();
                            self.out
                                .line(&format!("struct node *tmp = {f}({n}, {var});"));
                            let acc = self.acc.clone();
                            self.out.line(&format!("{acc} = {acc} + {g}(tmp);"));
                            if !self.rng.chance(25) {
                                let h = self.use_helper(Helper::ListFree);
                                self.out.line(&format!("{h}(tmp);"));
                            }
                            self.out.line("}");
                        }
                    }
                }
                self.ints = saved;
                self.out.line("}");
            }
            _ => {
                // An early return on some inputs: whatever is live leaks.
                let c = self.cond();
                let r = self.early_return.clone();
                self.out.line(&format!("if ({c})"));
                self.out.line(&format!("    return {r};"));
            }
        }
    }

    fn free_handle(&mut self, kind: Kind) {
        let Some(i) = self.pick_handle(kind, true) else {
            return;
        };
        let f = match kind {
            Kind::List => self.use_helper(Helper::ListFree),
            Kind::Tree => self.use_helper(Helper::TreeFree),
            Kind::Box => self.use_helper(Helper::BoxFree),
        };
        let name = self.handles[i].name.clone();
        self.out.line(&format!("{f}({name});"));
        self.out.line(&format!("{name} = NULL;"));
        self.set(i, State::Null);
    }

    fn call_worker(&mut self) {
        let mut candidates: Vec<WorkerSig> = self.workers.to_vec();
        if let Some(me) = &self.this
            && me.shape == WorkerShape::Recursive
        {
            candidates.push(me.clone());
        }
        if candidates.is_empty() {
            return;
        }
        let w = self.rng.pick(&candidates).clone();
        let a = self.int_expr();
        match w.shape {
            WorkerShape::OwnsList => {
                if let Some(i) = self.pick_handle(Kind::List, true) {
                    let name = self.handles[i].name.clone();
                    self.out.line(&format!("{name} = {}({name}, {a});", w.name));
                    self.set(i, State::Maybe);
                }
            }
            WorkerShape::BorrowsTree => {
                if let Some(i) = self.pick_handle(Kind::Tree, false) {
                    let name = self.handles[i].name.clone();
                    let acc = self.acc.clone();
                    self.out
                        .line(&format!("{acc} = {acc} + {}({name}, {a});", w.name));
                }
            }
            WorkerShape::Recursive => {
                let d = if self.this.as_ref().map(|t| &t.name) == Some(&w.name) {
                    "d - 1".to_string()
                } else {
                    let v = self.rng.pick(&self.ints).clone();
                    format!("{v} % 4")
                };
                if let Some(i) = self.pick_handle(Kind::List, true)
                    && self.may_overwrite(i)
                {
                    let name = self.handles[i].name.clone();
                    self.out.line(&format!("{name} = {}({d}, {a});", w.name));
                    self.set(i, State::Maybe);
                } else {
                    let f = self.use_helper(Helper::ListFree);
                    self.out.line(&format!("{f}({}({d}, {a}));", w.name));
                }
            }
        }
    }

    /// Tear down the owned handles (each with some chance of being forgotten or conditional).
    fn teardown(&mut self, keep: Option<&str>) {
        for i in 0..self.handles.len() {
            let h = self.handles[i].clone();
            if h.borrowed || h.state == State::Null || Some(h.name.as_str()) == keep {
                continue;
            }
            if self.rng.chance(12) {
                continue; // forgotten: leaks when non-null
            }
            let f = match h.kind {
                Kind::List => self.use_helper(Helper::ListFree),
                Kind::Tree => self.use_helper(Helper::TreeFree),
                Kind::Box => self.use_helper(Helper::BoxFree),
            };
            if self.rng.chance(12) {
                let c = self.cond();
                self.out.line(&format!("if ({c})"));
                self.out.line(&format!("    {f}({});", h.name));
            } else {
                self.out.line(&format!("{f}({});", h.name));
            }
        }
    }
}

/// A generated program and what the soundness check needs to run it.
pub struct Program {
    pub text: String,
    /// How many integers `main` reads from argv.
    pub inputs: usize,
}

/// Generates program number `seed`.
pub fn generate(seed: u64) -> Program {
    let mut rng = Rng::new(seed);
    let st = Style {
        null_test: rng.below(2),
        // Chosen from the seed, not the generator, so the other programs stay as they were.
        fail: if seed.is_multiple_of(3) {
            "oom();"
        } else {
            "exit(1);"
        },
        // Also from the seed: one program in five clears its boxes with `memset`.
        clear: seed % 5 == 2,
    };
    let inputs = 2 + rng.below(3);
    let mut used: Vec<Helper> = Vec::new();
    let mut workers: Vec<WorkerSig> = Vec::new();
    let mut worker_text = String::new();
    let n_workers = rng.below(4);
    for w in 0..n_workers {
        let shape = *rng.pick(&[
            WorkerShape::OwnsList,
            WorkerShape::BorrowsTree,
            WorkerShape::Recursive,
        ]);
        let sig = WorkerSig {
            name: format!("work{w}"),
            shape,
        };
        let text = gen_worker(&mut rng, &st, &sig, &workers, &mut used);
        worker_text.push_str(&text);
        workers.push(sig);
    }
    let main_text = gen_main(&mut rng, &st, inputs, &workers, &mut used);

    // Helpers used, with their dependencies, in dependency order.
    let mut closure = used.clone();
    let mut i = 0;
    while i < closure.len() {
        for d in closure[i].deps() {
            if !closure.contains(d) {
                closure.push(*d);
            }
        }
        i += 1;
    }
    let mut helpers = Out::new();
    for h in HELPERS {
        if closure.contains(&h) {
            write_helper(&mut helpers, &mut rng, &st, h);
        }
    }
    // The program's own "out of memory" function: it never returns.
    let oom = if helpers.text.contains("oom();") {
        "static void oom(void)\n{\n    exit(1);\n}\n\n"
    } else {
        ""
    };
    let mut text = String::new();
    let _ = write!(
        text,
        "/* reductio soundness program, seed {seed} */\n{PRELUDE}\n{oom}{}{worker_text}{main_text}",
        helpers.text
    );
    Program { text, inputs }
}

fn handles_for(names: &[(&str, Kind)]) -> Vec<Handle> {
    names
        .iter()
        .map(|(n, k)| Handle {
            name: n.to_string(),
            kind: *k,
            state: State::Null,
            borrowed: false,
        })
        .collect()
}

fn decl_line(h: &Handle) -> String {
    let ty = match h.kind {
        Kind::List => "struct node",
        Kind::Tree => "struct tree",
        Kind::Box => "struct box",
    };
    format!("{ty} *{} = NULL;", h.name)
}

fn gen_worker(
    rng: &mut Rng,
    st: &Style,
    sig: &WorkerSig,
    earlier: &[WorkerSig],
    used: &mut Vec<Helper>,
) -> String {
    let mut out = Out::new();
    let (head, mut handles, early) = match sig.shape {
        WorkerShape::OwnsList => (
            format!("static struct node *{}(struct node *l, int a)", sig.name),
            vec![Handle {
                name: "l".into(),
                kind: Kind::List,
                state: State::Maybe,
                borrowed: false,
            }],
            "l",
        ),
        WorkerShape::BorrowsTree => (
            format!("static int {}(struct tree *t, int a)", sig.name),
            vec![Handle {
                name: "t".into(),
                kind: Kind::Tree,
                state: State::Maybe,
                borrowed: true,
            }],
            "s",
        ),
        WorkerShape::Recursive => (
            format!("static struct node *{}(int d, int a)", sig.name),
            vec![Handle {
                name: "l".into(),
                kind: Kind::List,
                state: State::Null,
                borrowed: false,
            }],
            "l",
        ),
    };
    out.line(&head);
    out.line("{");
    out.line("int s = a;");
    // Locals: one or two more handles.
    let extra = [("x", Kind::List), ("u", Kind::Tree), ("bx", Kind::Box)];
    for (n, k) in extra {
        if rng.chance(45) {
            handles.extend(handles_for(&[(n, k)]));
        }
    }
    for h in handles.iter().skip(1) {
        out.line(&decl_line(h));
    }
    if sig.shape == WorkerShape::Recursive {
        out.line("struct node *l = NULL;");
        out.line("if (d <= 0)");
        out.line("    return NULL;");
    }
    let mut ctx = Ctx {
        rng,
        st,
        out,
        handles,
        ints: vec!["a".into(), "s".into()],
        acc: "s".into(),
        workers: earlier,
        this: Some(sig.clone()),
        early_return: early.into(),
        used,
        loop_var: 0,
        depth: 0,
    };
    if sig.shape == WorkerShape::Recursive {
        // Recurse first, so every level runs.
        ctx.out.line(&format!("l = {}(d - 1, a + 1);", sig.name));
        ctx.handles[0].state = State::Maybe;
    }
    let n = 2 + ctx.rng.below(5);
    for _ in 0..n {
        ctx.op();
    }
    let keep = match sig.shape {
        WorkerShape::BorrowsTree => None,
        _ => Some("l"),
    };
    ctx.teardown(keep);
    let ret = if sig.shape == WorkerShape::BorrowsTree {
        "s"
    } else {
        "l"
    };
    ctx.out.line(&format!("return {ret};"));
    ctx.out.line("}");
    ctx.out.line("");
    ctx.out.text
}

fn gen_main(
    rng: &mut Rng,
    st: &Style,
    inputs: usize,
    workers: &[WorkerSig],
    used: &mut Vec<Helper>,
) -> String {
    let mut out = Out::new();
    out.line("int main(int argc, char **argv)");
    out.line("{");
    let mut ints = Vec::new();
    for k in 0..inputs {
        out.line(&format!(
            "int in{k} = argc > {} ? atoi(argv[{}]) : 0;",
            k + 1,
            k + 1
        ));
        ints.push(format!("in{k}"));
    }
    out.line("int acc = 0;");
    let handles = handles_for(&[
        ("l0", Kind::List),
        ("l1", Kind::List),
        ("t0", Kind::Tree),
        ("b0", Kind::Box),
    ]);
    for h in &handles {
        out.line(&decl_line(h));
    }
    let mut ctx = Ctx {
        rng,
        st,
        out,
        handles,
        ints,
        acc: "acc".into(),
        workers,
        this: None,
        early_return: "0".into(),
        used,
        loop_var: 0,
        depth: 0,
    };
    let n = 4 + ctx.rng.below(9);
    for _ in 0..n {
        ctx.op();
    }
    ctx.teardown(None);
    ctx.out.line("return 0;");
    ctx.out.line("}");
    ctx.out.text
}

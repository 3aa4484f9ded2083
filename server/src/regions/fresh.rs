//! Functions whose result is only ever fresh memory (or NULL): allocator wrappers
//! (`void *xmalloc(size_t n) { void *p = malloc(n); if (!p) die(); return p; }`).
//!
//! The type classes of [`super::TypeClasses`] treat a `void*` result as a conduit: every type a
//! caller converts it to is unified, because a value stored as one type may come back out as
//! another (a container's `get`). An allocator wrapper is no conduit: each call returns a block
//! nobody else has seen, so the callers' types never meet in one block. Unifying them anyway
//! collapses every struct the project allocates through its wrapper into one class without
//! field sensitivity (`debug->files[i] = file` may then overwrite `debug->files`), which is
//! the cause of many false "stored into a field, yet lost" reports.
//!
//! The test is structural and conservative, over the wrapper's IR: the returned local is
//! defined only by allocations that are not reallocations (no `free` lowered at the same call),
//! by `NULL`, by copies of such locals, or by calls to functions passing this same test (at a
//! bounded depth); and no copy of the pointer is kept: never stored to memory, never passed to
//! a function other than a known library function that captures nothing, never returned
//! through an address, its address never taken.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::ir::library::known_function;
use crate::ir::{Callee, ExprId, ExprKind, FunctionIr, LocalId, StmtKind, Symbol};

/// How deep wrappers of wrappers are followed (`xcalloc` → `xmalloc` → `malloc`).
const MAX_DEPTH: u32 = 4;

/// Whether every value `f` returns is NULL or a block allocated during the call that no one
/// else holds. `callee(name)` gives the bodies of called functions.
pub fn returns_fresh(
    f: &FunctionIr,
    callee: &dyn Fn(&str) -> Option<std::sync::Arc<FunctionIr>>,
) -> bool {
    returns_fresh_at(f, callee, MAX_DEPTH, &mut FxHashSet::default())
}

fn returns_fresh_at(
    f: &FunctionIr,
    callee: &dyn Fn(&str) -> Option<std::sync::Arc<FunctionIr>>,
    depth: u32,
    visiting: &mut FxHashSet<String>,
) -> bool {
    let Some(ret) = f.ret else {
        return false;
    };
    if !visiting.insert(f.name.clone()) {
        return false; // recursion: not a simple wrapper
    }
    let ok = analyse(f, ret, callee, depth, visiting);
    visiting.remove(&f.name);
    ok
}

fn local_addr(f: &FunctionIr, e: ExprId) -> Option<LocalId> {
    match f.exprs.kind(e) {
        ExprKind::Addr(Symbol::Local(l)) => Some(*l),
        _ => None,
    }
}

/// The local whose value `e` is (`*&l`).
fn local_value(f: &FunctionIr, e: ExprId) -> Option<LocalId> {
    match f.exprs.kind(e) {
        ExprKind::Deref(a) => local_addr(f, *a),
        _ => None,
    }
}

/// The locals whose *value* occurs in `e` (`l` read as a number or pointer, not only as the
/// base of an access `l->f` / `*l`) and the locals whose address occurs other than as the
/// root of a read.
fn uses(f: &FunctionIr, e: ExprId, values: &mut Vec<LocalId>, addrs: &mut Vec<LocalId>) {
    match f.exprs.kind(e) {
        ExprKind::Deref(a) => {
            if let Some(l) = local_addr(f, *a) {
                values.push(l);
            } else {
                access_base(f, *a, addrs);
            }
        }
        ExprKind::Addr(Symbol::Local(l)) => addrs.push(*l),
        ExprKind::Field(b, _) => uses(f, *b, values, addrs),
        ExprKind::Binary(_, a, b) => {
            uses(f, *a, values, addrs);
            uses(f, *b, values, addrs);
        }
        ExprKind::Int(_) | ExprKind::Scalar | ExprKind::Addr(_) | ExprKind::Unknown => {}
    }
}

/// An address expression that is dereferenced: `&l` itself (a direct access of `l`), or
/// `l->f`-style paths whose root value is only read to reach memory, not copied.
fn access_base(f: &FunctionIr, a: ExprId, addrs: &mut Vec<LocalId>) {
    match f.exprs.kind(a) {
        ExprKind::Addr(Symbol::Local(_)) => {}
        ExprKind::Field(b, _) => access_base(f, *b, addrs),
        ExprKind::Deref(x) if local_addr(f, *x).is_some() => {} // `*p`, `p->f`: a read through p
        _ => uses(f, a, &mut Vec::new(), addrs),
    }
}

fn analyse(
    f: &FunctionIr,
    ret: LocalId,
    callee: &dyn Fn(&str) -> Option<std::sync::Arc<FunctionIr>>,
    depth: u32,
    visiting: &mut FxHashSet<String>,
) -> bool {
    let n = f.locals.len();
    let mut bad = vec![false; n];
    for p in &f.params {
        bad[p.0 as usize] = true;
    }
    // Copies between locals: a pointer copied stays one pointer (union of the two).
    let mut copies: Vec<(LocalId, LocalId)> = Vec::new();
    // Ranges of the `free`s lowered from reallocations (`realloc` is `free(old); alloc`).
    let frees: FxHashSet<_> = f
        .nodes
        .iter()
        .filter(|n| matches!(n.stmt.kind, StmtKind::Free { .. }))
        .map(|n| n.stmt.range)
        .collect();
    let mut fresh_callee: FxHashMap<&str, bool> = FxHashMap::default();
    // Locals defined by an allocation (or a fresh call) somewhere: the result must be one.
    let mut allocated = vec![false; n];
    let mark = |bad: &mut Vec<bool>, ls: &[LocalId]| {
        for l in ls {
            if let Some(b) = bad.get_mut(l.0 as usize) {
                *b = true;
            }
        }
    };
    for node in &f.nodes {
        let mut values = Vec::new();
        let mut addrs = Vec::new();
        match &node.stmt.kind {
            StmtKind::Alloc { addr, .. } => match local_addr(f, *addr) {
                Some(l) => {
                    if frees.contains(&node.stmt.range) {
                        mark(&mut bad, &[l]); // a reallocation carries the old block's contents
                    }
                    allocated[l.0 as usize] = true;
                }
                None => access_base(f, *addr, &mut addrs),
            },
            StmtKind::Assign { addr, value } => {
                match (local_addr(f, *addr), local_value(f, *value)) {
                    (Some(l), Some(m)) => copies.push((l, m)),
                    (Some(l), None) => {
                        if !matches!(f.exprs.kind(*value), ExprKind::Int(0)) {
                            mark(&mut bad, &[l]);
                        }
                        uses(f, *value, &mut values, &mut addrs);
                    }
                    (None, _) => {
                        // A store to memory: whatever it stores is kept elsewhere.
                        access_base(f, *addr, &mut addrs);
                        uses(f, *value, &mut values, &mut addrs);
                    }
                }
            }
            StmtKind::Call {
                dest,
                callee: c,
                args,
            } => {
                let name = match c {
                    Callee::Direct(name) => Some(name.as_str()),
                    _ => None,
                };
                let harmless = name.is_some_and(|n| known_function(n).is_some());
                for a in args {
                    if harmless {
                        access_base_or_value(f, *a, &mut addrs);
                    } else {
                        uses(f, *a, &mut values, &mut addrs);
                    }
                }
                if let Some(d) = dest {
                    match local_addr(f, *d) {
                        Some(l) => {
                            let ok = depth > 0
                                && name.is_some_and(|name| {
                                    *fresh_callee.entry(name).or_insert_with(|| {
                                        callee(name).is_some_and(|g| {
                                            returns_fresh_at(&g, callee, depth - 1, visiting)
                                        })
                                    })
                                });
                            if ok {
                                allocated[l.0 as usize] = true;
                            } else {
                                mark(&mut bad, &[l]);
                            }
                        }
                        None => access_base(f, *d, &mut addrs),
                    }
                }
                if let Callee::Indirect(e) = c {
                    uses(f, *e, &mut values, &mut addrs);
                }
            }
            StmtKind::Free { ptr } | StmtKind::ZeroFill { addr: ptr } => {
                access_base_or_value(f, *ptr, &mut addrs)
            }
            StmtKind::Cond { lhs, rhs, .. } => {
                access_base_or_value(f, *lhs, &mut addrs);
                access_base_or_value(f, *rhs, &mut addrs);
            }
            StmtKind::Return { .. } | StmtKind::Enter | StmtKind::Nop => {}
            StmtKind::ScopeBegin { .. } | StmtKind::ScopeEnd { .. } => {}
            StmtKind::Opaque { reads, .. } => {
                for r in reads {
                    uses(f, *r, &mut values, &mut addrs);
                }
            }
        }
        mark(&mut bad, &values);
        mark(&mut bad, &addrs);
    }
    // A copy joins two locals into one pointer: one bad, both bad.
    loop {
        let mut changed = false;
        for (a, b) in &copies {
            let (ai, bi) = (a.0 as usize, b.0 as usize);
            if bad[ai] != bad[bi] {
                bad[ai] = true;
                bad[bi] = true;
                changed = true;
            }
            if allocated[ai] != allocated[bi] {
                allocated[ai] = true;
                allocated[bi] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    !bad[ret.0 as usize] && allocated[ret.0 as usize]
}

/// An operand that is read but not kept (a comparison, a `free`, an argument of a library
/// function that captures nothing): only a taken address counts.
fn access_base_or_value(f: &FunctionIr, e: ExprId, addrs: &mut Vec<LocalId>) {
    let mut values = Vec::new();
    uses(f, e, &mut values, addrs);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regions::{TypeClasses, TypeFacts};
    use std::sync::Arc;

    const SRC: &str = "#include <stdlib.h>\n\
        void die(const char *m);\n\
        void *xmalloc(size_t n) { void *p = malloc(n); if (p == NULL) die(\"oom\"); return p; }\n\
        void *xcalloc(size_t n, size_t s) { void *p = xmalloc(n * s); memset(p, 0, n * s); return p; }\n\
        void *maybe(size_t n) { if (n == 0) return NULL; return malloc(n); }\n\
        void *xrealloc(void *old, size_t n) { void *p = realloc(old, n); if (!p) die(\"oom\"); return p; }\n\
        static void *last;\n\
        void *remembered(size_t n) { void *p = malloc(n); last = p; return p; }\n\
        void *registered(size_t n) { void *p = malloc(n); track(p); return p; }\n\
        void *identity(void *p) { return p; }\n\
        void *lookup(void **table, int i) { return table[i]; }\n\
        void *undefined(size_t n) { void *p; return p; }\n\
        void *self_ref(size_t n) { void **p = malloc(n); *p = p; return p; }\n";

    fn fresh(name: &str) -> bool {
        let (_env, irs) = crate::ir::lower_snippet(SRC);
        let irs: Vec<Arc<FunctionIr>> = irs.into_iter().map(Arc::new).collect();
        let callee = |n: &str| irs.iter().find(|f| f.name == n).cloned();
        let f = callee(name).expect("the function");
        returns_fresh(&f, &callee)
    }

    #[test]
    fn allocator_wrappers_return_fresh_memory() {
        assert!(fresh("xmalloc"));
        assert!(fresh("xcalloc"), "a wrapper of a wrapper, with memset");
        assert!(fresh("maybe"), "NULL or fresh");
    }

    #[test]
    fn results_that_are_not_only_fresh_memory_are_not() {
        assert!(!fresh("xrealloc"), "a reallocation carries the old block");
        assert!(!fresh("remembered"), "a copy is kept in a global");
        assert!(
            !fresh("registered"),
            "handed to a function that may keep it"
        );
        assert!(!fresh("identity"));
        assert!(!fresh("lookup"));
        assert!(!fresh("undefined"), "no allocation defines the result");
        assert!(!fresh("self_ref"), "stored into memory");
    }

    #[test]
    fn an_allocator_wrapper_result_is_no_conduit_between_types() {
        let src = "#include <stdlib.h>\n\
                   struct a { struct a *n; }; struct b { struct b *m; };\n\
                   void *xmalloc(size_t n) { void *p = malloc(n); if (!p) abort(); return p; }\n\
                   void *get(void **t, int i) { return t[i]; }\n\
                   void f(void) { struct a *x = xmalloc(sizeof *x); struct b *y = xmalloc(sizeof *y); x->n = 0; y->m = 0; }\n\
                   struct a *g(void **t) { return get(t, 0); }\n\
                   struct b *h(void **t) { return get(t, 1); }\n\
                   void put(void **t, struct a *x) { t[0] = x; }\n\
                   struct b *take(void **t) { return t[0]; }\n";
        let (env, irs) = crate::ir::lower_snippet(src);
        let irs: Vec<Arc<FunctionIr>> = irs.into_iter().map(Arc::new).collect();
        let callee = |n: &str| irs.iter().find(|f| f.name == n).cloned();
        let only = |names: &[&str]| -> TypeClasses {
            let facts: Vec<TypeFacts> = irs
                .iter()
                .filter(|ir| names.contains(&ir.name.as_str()))
                .map(|ir| TypeFacts::of_function(ir, &env, &callee))
                .collect();
            TypeClasses::from_facts(&facts)
        };
        let a = crate::ir::Type::Struct("a".into());
        let b = crate::ir::Type::Struct("b".into());
        let wrapper = only(&["xmalloc", "f"]);
        assert_ne!(wrapper.class_of(&a), wrapper.class_of(&b));
        // Types that only come out of a storage (or only go in) are not unified: what a
        // container's `get` hands back as `struct a *` and as `struct b *` may be different
        // blocks of either type, each accessed as its own.
        let container = only(&["get", "g", "h"]);
        assert_ne!(container.class_of(&a), container.class_of(&b));
        // A slot a `struct a *` is stored into and a `struct b *` is read out of does unify.
        let reinterpreted = only(&["put", "take"]);
        assert_eq!(reinterpreted.class_of(&a), reinterpreted.class_of(&b));
    }
}

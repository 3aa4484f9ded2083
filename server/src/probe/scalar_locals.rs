//! Locals that never hold a pointer: an integer or floating-point variable whose address is
//! never taken and whose every write stores a value computed without a pointer (`k = 0`,
//! `k = k + 1`, `n = strlen_like_external(s)`), so it can never reference a heap block.
//!
//! The engine grows the region set S backwards by every location a statement writes (the
//! location may have held a reference the write destroyed). A variable region was always
//! taken as able to hold one, so every `k = k + 1` and every integer local's scope end added a
//! region to S: facts that differ only by such regions are not joined, and large functions
//! reached the region-set limit on loop counters and lengths alone. These locals stay out of S.
//!
//! Soundness: a local leaves S only if no statement can store a reference into it. Casts are
//! transparent in the IR (`(uintptr_t)p` keeps `p`), so a pointer cast to an integer is still
//! a pointer-typed value here. A value counts as pointer-free when it is a constant, arithmetic
//! on pointer-free values, a comparison, a load of another such local, or a load of integer
//! heap memory (whose region the engine already takes as holding no reference). Loads of
//! struct members and globals, calls of functions whose bodies are in the workspace (their
//! result may be a pointer cast to an integer), parameters (callers' arguments) and unknown
//! values all keep the local in S.

use crate::ir::{BinOp, TypeEnv};
use crate::ir::{Callee, ExprId, ExprKind, FunctionIr, LocalId, LocalKind, StmtKind, Symbol, Type};
use crate::regions::TypeClasses;
use rustc_hash::FxHashSet;

/// Whether values of this (resolved) type are numbers.
fn numeric(t: &Type) -> bool {
    matches!(t, Type::Int | Type::Float)
}

/// The locals of `ir` that never hold a pointer (see the module docs). `has_body(name)` says
/// whether a directly called function's body is in the workspace.
pub fn scalar_locals(
    ir: &FunctionIr,
    env: &TypeEnv,
    classes: &TypeClasses,
    has_body: &dyn Fn(&str) -> bool,
) -> FxHashSet<LocalId> {
    let mut set: FxHashSet<LocalId> = ir
        .locals
        .iter()
        .enumerate()
        .filter(|(_, l)| {
            !l.address_taken
                && matches!(
                    l.kind,
                    LocalKind::Local | LocalKind::Temp | LocalKind::Return
                )
                && numeric(&env.resolve(&l.ty))
        })
        .map(|(i, _)| LocalId(i as u32))
        .collect();
    if set.is_empty() {
        return set;
    }
    let direct_local = |e: ExprId| match &ir.exprs.get(e).kind {
        ExprKind::Addr(Symbol::Local(l)) => Some(*l),
        _ => None,
    };
    // Remove every candidate a statement may store a pointer into, until nothing changes (a
    // local loaded from another that turned out to hold one follows it).
    loop {
        let mut removed = Vec::new();
        for node in &ir.nodes {
            match &node.stmt.kind {
                StmtKind::Assign { addr, value } => {
                    if let Some(l) = direct_local(*addr)
                        && set.contains(&l)
                        && !pointer_free(ir, *value, &set, env, classes)
                    {
                        removed.push(l);
                    }
                }
                StmtKind::Call { dest, callee, .. } => {
                    if let Some(l) = dest.and_then(direct_local)
                        && set.contains(&l)
                        && !numeric_external_result(callee, env, has_body)
                    {
                        removed.push(l);
                    }
                }
                StmtKind::Alloc { addr, .. } => {
                    if let Some(l) = direct_local(*addr) {
                        removed.push(l);
                    }
                }
                StmtKind::Opaque { reads, .. } => {
                    for r in reads {
                        mentioned_locals(ir, *r, &mut removed);
                    }
                }
                _ => {}
            }
        }
        let before = set.len();
        for l in removed {
            set.remove(&l);
        }
        if set.len() == before || set.is_empty() {
            return set;
        }
    }
}

/// A call's result is a number that cannot carry a pointer: a direct call of a function
/// whose body is not in the workspace, declared to return a number.
fn numeric_external_result(
    callee: &Callee,
    env: &TypeEnv,
    has_body: &dyn Fn(&str) -> bool,
) -> bool {
    let Callee::Direct(name) = callee else {
        return false;
    };
    if has_body(name) {
        return false;
    }
    env.functions
        .get(name.as_str())
        .is_some_and(|sig| numeric(&env.resolve(&sig.ret)))
}

fn pointer_free(
    ir: &FunctionIr,
    e: ExprId,
    set: &FxHashSet<LocalId>,
    env: &TypeEnv,
    classes: &TypeClasses,
) -> bool {
    match &ir.exprs.get(e).kind {
        ExprKind::Int(_) | ExprKind::Scalar => true,
        ExprKind::Addr(_) | ExprKind::Field(..) | ExprKind::Unknown => false,
        ExprKind::Binary(BinOp::Compare, ..) => true,
        ExprKind::Binary(_, l, r) => {
            pointer_free(ir, *l, set, env, classes) && pointer_free(ir, *r, set, env, classes)
        }
        ExprKind::Deref(a) => match &ir.exprs.get(*a).kind {
            ExprKind::Addr(Symbol::Local(m)) => set.contains(m),
            ExprKind::Addr(_) | ExprKind::Field(..) | ExprKind::Unknown => false,
            _ => {
                // Heap memory of an integer class: the engine's `may_hold_pointer` already
                // takes its region as holding no reference.
                let Some(pointee) = ir.exprs.ty(*a).pointee() else {
                    return false;
                };
                let t = env.resolve(pointee);
                if !numeric(&t) {
                    return false;
                }
                let class = classes.class_of(&t);
                class == "int" || class == "double"
            }
        },
    }
}

/// Locals whose address appears in `e` (an opaque statement may write through it).
fn mentioned_locals(ir: &FunctionIr, e: ExprId, out: &mut Vec<LocalId>) {
    match &ir.exprs.get(e).kind {
        ExprKind::Addr(Symbol::Local(l)) => out.push(*l),
        ExprKind::Deref(a) | ExprKind::Field(a, _) => mentioned_locals(ir, *a, out),
        ExprKind::Binary(_, l, r) => {
            mentioned_locals(ir, *l, out);
            mentioned_locals(ir, *r, out);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::Program;
    use crate::probe::snippet::SnippetProgram;

    fn scalars(src: &str, func: &str) -> Vec<String> {
        let prog = SnippetProgram::new(src);
        let f = prog.func(func);
        let ir = prog.body(f);
        let has_body = |n: &str| prog.resolve(f, n).is_some();
        let set = scalar_locals(&ir, prog.env(), prog.classes(), &has_body);
        let mut names: Vec<String> = set.iter().map(|l| ir.local(*l).name.clone()).collect();
        names.sort();
        names
    }

    #[test]
    fn counters_and_lengths_hold_no_pointer() {
        let src = r#"
            unsigned long ext_len(const char *s);
            int helper(int x) { return x + 1; }
            void f(char *p, int n) {
                unsigned k, len = ext_len(p), h = helper(n), m;
                long addr = (long)p;
                long alias = addr + 1;
                int first = p[0];
                m = k;
                for (k = 0; k < 10; k++) { m = m * 2; }
            }
        "#;
        let s = scalars(src, "f");
        assert!(s.contains(&"k".to_string()), "{s:?}");
        assert!(s.contains(&"len".to_string()), "{s:?}");
        assert!(s.contains(&"m".to_string()), "{s:?}");
        assert!(s.contains(&"first".to_string()), "{s:?}");
        // A pointer cast to an integer, a value computed from one, the result of a function
        // whose body may return one, and a parameter all may hold a reference.
        for held in ["addr", "alias", "h", "n", "p"] {
            assert!(!s.contains(&held.to_string()), "{held} in {s:?}");
        }
    }
}

//! Three cheap facts about a callee, for calls that matter to a probe only through the path's
//! constraints (`Engine::constraints_only_call`): the constants it can return
//! (`return_constants`), the parameter it returns unchanged (`returned_param`), and how much
//! code exploring it would walk (`heavy`).
//!
//! Such a call cannot touch the cell: it only decides which results, and which values of the
//! memory it writes, the path's conditions can meet. Exploring a large callee for that is
//! where most of the budget went (docs/convergence.md); applying it through its MOD summary
//! instead forgets what it writes and keeps what its `return` statements say.

use super::Engine;
use crate::ir::{Callee, ExprKind, FunctionIr, LocalId, StmtKind, Symbol};
use crate::probe::FuncId;
use rustc_hash::FxHashSet;
use std::sync::Arc;

/// A callee (with the callees it calls directly) of more statements than this is summarised
/// rather than explored when only the path's constraints read what it writes.
pub(super) const HEAVY_CALLEE_STATEMENTS: usize = 40;

/// At most this many distinct constants are kept per function; more is "any value".
const MAX_RETURN_CONSTANTS: usize = 8;

/// How deep `return f(…)` chains are followed.
const MAX_RETURN_CHAIN: u32 = 4;

impl<'p> Engine<'p> {
    /// The values a call of `g` can return, when every one is a constant (`return 0;`,
    /// `return -1;`, `return f(…)` of such an `f`): sorted, without repeats. `None` when a
    /// path returns a computed value, or `g` returns nothing.
    pub(super) fn return_constants(&mut self, g: FuncId) -> Option<Arc<[i64]>> {
        if let Some(r) = self.caches.return_constants.get(&g) {
            return r.clone();
        }
        let mut visiting = FxHashSet::default();
        let r = self.compute_return_constants(g, &mut visiting, 0);
        self.caches.return_constants.insert(g, r.clone());
        r
    }

    fn compute_return_constants(
        &mut self,
        g: FuncId,
        visiting: &mut FxHashSet<FuncId>,
        depth: u32,
    ) -> Option<Arc<[i64]>> {
        if depth > MAX_RETURN_CHAIN || !visiting.insert(g) {
            return None;
        }
        let body = self.body(g);
        let r = body.ret?;
        let mut values: Vec<i64> = Vec::new();
        for n in &body.nodes {
            match &n.stmt.kind {
                StmtKind::Assign { addr, value } if is_addr_of(&body, *addr, r) => {
                    match body.exprs.kind(*value) {
                        ExprKind::Int(k) => values.push(*k),
                        _ => return None,
                    }
                }
                StmtKind::Alloc { addr, .. } if is_addr_of(&body, *addr, r) => return None,
                StmtKind::Call {
                    dest: Some(dest),
                    callee,
                    ..
                } if is_addr_of(&body, *dest, r) => {
                    let Callee::Direct(name) = callee else {
                        return None;
                    };
                    let h = self.prog.resolve(g, name)?;
                    let vs = self.compute_return_constants(h, visiting, depth + 1)?;
                    values.extend(vs.iter().copied());
                }
                _ => {}
            }
            if values.len() > 4 * MAX_RETURN_CONSTANTS {
                values.sort_unstable();
                values.dedup();
                if values.len() > MAX_RETURN_CONSTANTS {
                    return None;
                }
            }
        }
        // `ret`'s address used any other way than as the place of those writes, or read
        // (`*&ret`): something else may write it.
        if address_escapes(&body, r) {
            return None;
        }
        values.sort_unstable();
        values.dedup();
        if values.is_empty() || values.len() > MAX_RETURN_CONSTANTS {
            return None;
        }
        Some(values.into())
    }

    /// The parameter (by position) whose entry value `g` always returns, when every value
    /// it stores into its result is that parameter, read unchanged: a number-valued
    /// parameter that no statement writes and whose address is never taken (`int
    /// check(int value, …) { …; return value; }`, libarchive's `assertion_assert`). A call
    /// of `g` then returns its argument, whatever else the summary forgets. `None` for a
    /// pointer result, opaque code, or any other value.
    pub(super) fn returned_param(&mut self, g: FuncId) -> Option<usize> {
        if let Some(r) = self.caches.returned_params.get(&g) {
            return *r;
        }
        let body = self.body(g);
        let int =
            |t: &crate::ir::types::Type| self.arena.env().resolve(t) == crate::ir::types::Type::Int;
        let r = returned_param_of(&body).filter(|&k| {
            let p = body.params[k];
            body.ret.is_some_and(|r| int(&body.locals[r.0 as usize].ty))
                && int(&body.locals[p.0 as usize].ty)
        });
        self.caches.returned_params.insert(g, r);
        r
    }

    /// Whether exploring a call of `targets` would walk more than `HEAVY_CALLEE_STATEMENTS`
    /// statements: each target's own, plus those of the functions it calls directly.
    pub(super) fn heavy(&mut self, targets: &[FuncId]) -> bool {
        targets
            .iter()
            .any(|&g| self.weight(g) > HEAVY_CALLEE_STATEMENTS)
    }

    fn weight(&mut self, g: FuncId) -> usize {
        if let Some(w) = self.caches.weights.get(&g) {
            return *w;
        }
        let body = self.body(g);
        let mut total = body.statement_count();
        let mut seen: FxHashSet<FuncId> = FxHashSet::default();
        seen.insert(g);
        for n in &body.nodes {
            if total > HEAVY_CALLEE_STATEMENTS {
                break;
            }
            if let StmtKind::Call { callee, .. } = &n.stmt.kind {
                match callee {
                    Callee::Direct(name) => {
                        if let Some(h) = self.prog.resolve(g, name)
                            && seen.insert(h)
                        {
                            total += self.body(h).statement_count();
                        }
                    }
                    // Every function of that arity may be walked.
                    Callee::Indirect(_) => total += HEAVY_CALLEE_STATEMENTS,
                }
            }
        }
        self.caches.weights.insert(g, total);
        total
    }
}

/// Whether `e` is `&r`.
fn is_addr_of(body: &FunctionIr, e: crate::ir::ExprId, r: LocalId) -> bool {
    matches!(body.exprs.kind(e), ExprKind::Addr(Symbol::Local(l)) if *l == r)
}

/// Whether `&r` is used other than as the place a statement writes, or read through `*&r`
/// (the `return` itself): passed to a call, stored, compared, offset, a member taken.
fn address_escapes(body: &FunctionIr, r: LocalId) -> bool {
    let Some(addr) = body
        .exprs
        .iter()
        .find(|(_, e)| matches!(e.kind, ExprKind::Addr(Symbol::Local(l)) if l == r))
        .map(|(id, _)| id)
    else {
        return false;
    };
    // Uses inside other expressions: only `*&r` is a plain read.
    let inner = body.exprs.iter().any(|(_, e)| match e.kind {
        ExprKind::Deref(_) => false,
        ExprKind::Field(b, _) => b == addr,
        ExprKind::Binary(_, a, b) => a == addr || b == addr,
        _ => false,
    });
    if inner {
        return true;
    }
    // Uses as a whole value of a statement, other than the written place.
    body.nodes.iter().any(|n| match &n.stmt.kind {
        StmtKind::Assign { value, .. } => *value == addr,
        StmtKind::Call { args, .. } => args.contains(&addr),
        StmtKind::Cond { lhs, rhs, .. } => *lhs == addr || *rhs == addr,
        StmtKind::Free { ptr } => *ptr == addr,
        StmtKind::Opaque { reads, .. } => reads.contains(&addr),
        StmtKind::Return { value } => *value == Some(addr),
        _ => false,
    })
}

/// [`Engine::returned_param`] on one body.
fn returned_param_of(body: &FunctionIr) -> Option<usize> {
    let r = body.ret?;
    if address_escapes(body, r) {
        return None;
    }
    let mut found: Option<LocalId> = None;
    for n in &body.nodes {
        match &n.stmt.kind {
            StmtKind::Assign { addr, value } if is_addr_of(body, *addr, r) => {
                let ExprKind::Deref(a) = body.exprs.kind(*value) else {
                    return None;
                };
                let ExprKind::Addr(Symbol::Local(p)) = body.exprs.kind(*a) else {
                    return None;
                };
                if !body.params.contains(p) || found.is_some_and(|q| q != *p) {
                    return None;
                }
                found = Some(*p);
            }
            StmtKind::Alloc { addr, .. } if is_addr_of(body, *addr, r) => return None,
            StmtKind::Call { dest: Some(d), .. } if is_addr_of(body, *d, r) => return None,
            StmtKind::Opaque { .. } => return None,
            _ => {}
        }
    }
    let p = found?;
    if address_escapes(body, p) {
        return None;
    }
    // Nothing writes the parameter after entry.
    let written = body.nodes.iter().any(|n| match &n.stmt.kind {
        StmtKind::Assign { addr, .. }
        | StmtKind::Alloc { addr, .. }
        | StmtKind::ZeroFill { addr } => is_addr_of(body, *addr, p),
        StmtKind::Call { dest: Some(d), .. } => is_addr_of(body, *d, p),
        _ => false,
    });
    if written {
        return None;
    }
    body.params.iter().position(|q| *q == p)
}

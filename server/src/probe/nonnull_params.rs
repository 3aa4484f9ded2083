//! Parameters every known call passes a non-NULL value for (`nonnull_params`): a whole-program
//! greatest fixpoint over the call sites.
//!
//! A leak path that needs a pointer parameter to be NULL at the entry of its function
//! (`if (links == NULL) return;` dropping the string just made for the list) is feasible only
//! if some caller passes NULL. The engine follows such a path into the callers, where the
//! arguments decide it; with dozens of callers, each passing its own parameter on, that walk
//! runs out of budget and the leak was reported on a condition no caller meets. This pass
//! decides the common case once for the whole program: an argument is non-NULL when it is an
//! address (`&list`, `&env->from`, a string literal, an array, a function), or when it is a
//! parameter of the caller that the caller never changes and that every call of the caller
//! passes non-NULL in turn.
//!
//! It relies on what the engine already assumes when it follows a path into the callers: the
//! call sites it knows (direct calls, and indirect calls through pointers of the right arity
//! when the function's address is taken) are all of them. A function without known callers
//! has no non-NULL parameter.

use crate::ir::{BinOp, ExprId, ExprKind, FunctionIr, NodeId, StmtKind, Symbol};

/// What the fixpoint reads of one body: which parameters keep their entry value, and what
/// each argument of each call is. Computed per function (a query in the database), so that an
/// edit re-reads one body, not all of them.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct NonnullInputs {
    /// By parameter position: never written nor address-taken in the body.
    pub unchanged: Vec<bool>,
    /// Every call node, sorted, with the class of each of its arguments.
    pub calls: Vec<(NodeId, Vec<ArgClass>)>,
}

/// What one argument is, for [`nonnull_params`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgClass {
    /// An address: never NULL.
    NonNull,
    /// The value of the caller's parameter at this position.
    Param(u32),
    /// Anything else: possibly NULL.
    Other,
}

/// The [`NonnullInputs`] of one body.
pub fn nonnull_inputs(b: &FunctionIr) -> NonnullInputs {
    let mut calls: Vec<(NodeId, Vec<ArgClass>)> = b
        .node_ids()
        .filter_map(|n| match &b.node(n).stmt.kind {
            StmtKind::Call { args, .. } => {
                Some((n, args.iter().map(|&a| arg_class(b, a)).collect()))
            }
            _ => None,
        })
        .collect();
    calls.sort_unstable_by_key(|(n, _)| *n);
    NonnullInputs {
        unchanged: unchanged_params(b),
        calls,
    }
}

/// For each function, the parameters (by position) every known call passes non-NULL.
/// `bodies[i]` is function `i`; `callers[i]` its call sites as (caller, call node).
pub fn nonnull_params(bodies: &[&FunctionIr], callers: &[Vec<(u32, NodeId)>]) -> Vec<Vec<bool>> {
    let inputs: Vec<NonnullInputs> = bodies.iter().map(|b| nonnull_inputs(b)).collect();
    let refs: Vec<&NonnullInputs> = inputs.iter().collect();
    let callers: Vec<&[(u32, NodeId)]> = callers.iter().map(Vec::as_slice).collect();
    nonnull_params_of_inputs(&refs, &callers)
}

/// [`nonnull_params`] on the bodies' [`NonnullInputs`].
pub fn nonnull_params_of_inputs(
    inputs: &[&NonnullInputs],
    callers: &[&[(u32, NodeId)]],
) -> Vec<Vec<bool>> {
    let mut cand: Vec<Vec<bool>> = inputs
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let has_callers = callers.get(i).is_some_and(|c| !c.is_empty());
            b.unchanged.iter().map(|_| has_callers).collect()
        })
        .collect();
    loop {
        let mut changed = false;
        for (t, sites) in callers.iter().enumerate() {
            if t >= cand.len() || !cand[t].iter().any(|&c| c) {
                continue;
            }
            for &(c, n) in sites.iter() {
                let Some(cb) = inputs.get(c as usize) else {
                    cand[t].iter_mut().for_each(|k| *k = false);
                    changed = true;
                    break;
                };
                let args: &[ArgClass] = match cb.calls.binary_search_by_key(&n, |(m, _)| *m) {
                    Ok(i) => &cb.calls[i].1,
                    Err(_) => &[],
                };
                for k in 0..cand[t].len() {
                    if !cand[t][k] {
                        continue;
                    }
                    let ok = args.get(k).is_some_and(|a| match *a {
                        ArgClass::NonNull => true,
                        ArgClass::Param(j) => {
                            let j = j as usize;
                            cb.unchanged.get(j).copied().unwrap_or(false)
                                && cand[c as usize].get(j).copied().unwrap_or(false)
                        }
                        ArgClass::Other => false,
                    });
                    if !ok {
                        cand[t][k] = false;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            return cand;
        }
    }
}

/// The class of `e`, an argument in `b`: an address, a parameter's value, or anything else.
fn arg_class(b: &FunctionIr, e: ExprId) -> ArgClass {
    match b.exprs.kind(e) {
        ExprKind::Addr(_) | ExprKind::Field(..) => ArgClass::NonNull,
        ExprKind::Binary(BinOp::Add, base, _)
            if matches!(
                b.exprs.kind(*base),
                ExprKind::Addr(Symbol::Local(_) | Symbol::Global(_))
            ) =>
        {
            ArgClass::NonNull
        }
        ExprKind::Deref(x) => match b.exprs.kind(*x) {
            ExprKind::Addr(Symbol::Local(q)) => match b.params.iter().position(|p| p == q) {
                Some(j) => ArgClass::Param(j as u32),
                None => ArgClass::Other,
            },
            _ => ArgClass::Other,
        },
        _ => ArgClass::Other,
    }
}

/// Which parameters keep their entry value through the whole body: never written nor
/// address-taken (`sites::unassigned_params`), in a body without code the front end did not
/// understand.
fn unchanged_params(b: &FunctionIr) -> Vec<bool> {
    let opaque = !b.fallbacks.is_empty()
        || b.node_ids()
            .any(|n| matches!(b.node(n).stmt.kind, StmtKind::Opaque { .. }));
    if opaque {
        return vec![false; b.params.len()];
    }
    let unassigned = super::sites::unassigned_params(b);
    b.params.iter().map(|p| unassigned.contains(p)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::Program;
    use crate::probe::snippet::SnippetProgram;

    fn table(src: &str) -> (SnippetProgram, Vec<Vec<bool>>) {
        let prog = SnippetProgram::new(src);
        let n = prog.function_count();
        let bodies: Vec<std::sync::Arc<FunctionIr>> = (0..n as u32).map(|f| prog.body(f)).collect();
        let refs: Vec<&FunctionIr> = bodies.iter().map(|b| b.as_ref()).collect();
        let callers: Vec<Vec<(u32, NodeId)>> = (0..n as u32).map(|f| prog.callers(f)).collect();
        let t = nonnull_params(&refs, &callers);
        (prog, t)
    }

    #[test]
    fn addresses_and_unchanged_parameters_passed_on_are_non_null() {
        let (prog, t) = table(
            "struct list { struct list *next; };\n\
             void add(struct list *h, char *s) { }\n\
             void mid(struct list *h) { add(h, \"x\"); }\n\
             void top(void) { struct list l; mid(&l); }\n",
        );
        assert_eq!(t[prog.func("add") as usize], vec![true, true]);
        assert_eq!(t[prog.func("mid") as usize], vec![true]);
        assert!(t[prog.func("top") as usize].is_empty());
    }

    #[test]
    fn a_null_argument_a_changed_parameter_or_no_caller_decides_nothing() {
        let (prog, t) = table(
            "struct list { struct list *next; };\n\
             void add(struct list *h) { }\n\
             void put(struct list *h) { }\n\
             void lone(struct list *h) { }\n\
             void mid(struct list *h) { h = h->next; put(h); }\n\
             void top(struct list *p) { struct list l; add(0); add(&l); mid(&l); }\n",
        );
        assert_eq!(t[prog.func("add") as usize], vec![false]);
        assert_eq!(
            t[prog.func("put") as usize],
            vec![false],
            "`h` was reassigned"
        );
        assert_eq!(
            t[prog.func("lone") as usize],
            vec![false],
            "no known caller"
        );
        assert_eq!(t[prog.func("top") as usize], vec![false]);
    }
}

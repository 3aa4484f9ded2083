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
    /// NULL written in the caller: the constant, or a local (or parameter) the caller assigns
    /// 0 somewhere (`verbose ? &links : NULL` lowers to such a temporary).
    Null,
}

/// The [`NonnullInputs`] of one body.
pub fn nonnull_inputs(b: &FunctionIr) -> NonnullInputs {
    let zeroed = zeroed_locals(b);
    let mut calls: Vec<(NodeId, Vec<ArgClass>)> = b
        .node_ids()
        .filter_map(|n| match &b.node(n).stmt.kind {
            StmtKind::Call { args, .. } => {
                Some((n, args.iter().map(|&a| arg_class(b, a, &zeroed)).collect()))
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

/// A whole-program table by function and parameter position, from the bodies'
/// [`NonnullInputs`] and each function's call sites as (caller, call node).
pub type InputsTable = fn(&[&NonnullInputs], &[&[(u32, NodeId)]]) -> Vec<Vec<bool>>;

/// The same table from the bodies themselves.
pub type BodiesTable = fn(&[&FunctionIr], &[Vec<(u32, NodeId)>]) -> Vec<Vec<bool>>;

/// For each function, the parameters (by position) every known call passes non-NULL.
/// `bodies[i]` is function `i`; `callers[i]` its call sites as (caller, call node).
pub fn nonnull_params(bodies: &[&FunctionIr], callers: &[Vec<(u32, NodeId)>]) -> Vec<Vec<bool>> {
    of_bodies(bodies, callers, nonnull_params_of_inputs)
}

/// `table` on the bodies' [`NonnullInputs`].
fn of_bodies(
    bodies: &[&FunctionIr],
    callers: &[Vec<(u32, NodeId)>],
    table: InputsTable,
) -> Vec<Vec<bool>> {
    let inputs: Vec<NonnullInputs> = bodies.iter().map(|b| nonnull_inputs(b)).collect();
    let refs: Vec<&NonnullInputs> = inputs.iter().collect();
    let callers: Vec<&[(u32, NodeId)]> = callers.iter().map(Vec::as_slice).collect();
    table(&refs, &callers)
}

/// For each function, the parameters some chain of known calls may pass NULL
/// ([`null_passed_params_of_inputs`] on the bodies).
pub fn null_passed_params(
    bodies: &[&FunctionIr],
    callers: &[Vec<(u32, NodeId)>],
) -> Vec<Vec<bool>> {
    of_bodies(bodies, callers, null_passed_params_of_inputs)
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
                        ArgClass::Other | ArgClass::Null => false,
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

/// Which parameters (by position) the body tests itself: a `cond` one side of which is the
/// parameter's value, the value of a local assigned from it (`struct list *l = arg;`, and
/// copies of copies), or a number a call given it returned (`rc = put(h, s); if (rc)`). A parameter the function only passes on is not tested here, whatever
/// its callees check: `if (h == NULL) return NULL;` in a list helper is a defence, not a sign
/// that the callers of every function passing a list along may pass NULL. A body with code
/// the front end did not understand may test anything: every parameter counts as tested.
pub fn tested_params(b: &FunctionIr) -> Vec<bool> {
    let opaque = !b.fallbacks.is_empty()
        || b.node_ids()
            .any(|n| matches!(b.node(n).stmt.kind, StmtKind::Opaque { .. }));
    if opaque {
        return vec![true; b.params.len()];
    }
    let value_of = |e: ExprId| match b.exprs.kind(e) {
        ExprKind::Deref(x) => match b.exprs.kind(*x) {
            ExprKind::Addr(Symbol::Local(l)) => Some(*l),
            _ => None,
        },
        _ => None,
    };
    // What holds a parameter, or news of it: a copy, and the status a call returns about
    // it (`rc = refer(ce, str); if (rc) …` tests what `refer` found of `ce`). A pointer a
    // call returns (`data = make(fs); if (data)`) tests that call's allocation instead.
    let mut copies: Vec<(crate::ir::LocalId, crate::ir::LocalId)> = Vec::new();
    for n in b.node_ids() {
        match &b.node(n).stmt.kind {
            StmtKind::Assign { addr, value } => {
                if let ExprKind::Addr(Symbol::Local(c)) = b.exprs.kind(*addr)
                    && let Some(s) = value_of(*value)
                {
                    copies.push((*c, s));
                }
            }
            StmtKind::Call {
                dest: Some(d),
                args,
                ..
            } => {
                if let ExprKind::Addr(Symbol::Local(c)) = b.exprs.kind(*d)
                    && !b.local(*c).ty.is_pointer_like()
                {
                    copies.extend(args.iter().filter_map(|&a| value_of(a)).map(|s| (*c, s)));
                }
            }
            _ => {}
        }
    }
    let compared: Vec<crate::ir::LocalId> = b
        .node_ids()
        .filter_map(|n| match &b.node(n).stmt.kind {
            StmtKind::Cond { lhs, rhs, .. } => Some([value_of(*lhs), value_of(*rhs)]),
            _ => None,
        })
        .flatten()
        .flatten()
        .collect();
    b.params
        .iter()
        .map(|&p| {
            let mut holds = vec![p];
            loop {
                let more: Vec<_> = copies
                    .iter()
                    .filter(|(c, s)| holds.contains(s) && !holds.contains(c))
                    .map(|(c, _)| *c)
                    .collect();
                if more.is_empty() {
                    break;
                }
                holds.extend(more);
            }
            holds.iter().any(|l| compared.contains(l))
        })
        .collect()
}

/// For each function, the parameters (by position) some chain of known calls may pass an
/// explicit NULL: a call passes the constant or a local its function sets to 0, or passes on
/// its own parameter that may be NULL in turn. A least fixpoint, the counterpart of
/// [`nonnull_params_of_inputs`]: a parameter no call passes NULL into this way is NULL only
/// if a value the code never sets to NULL (a field, a call's result) is, or a caller outside
/// the program passes it.
pub fn null_passed_params_of_inputs(
    inputs: &[&NonnullInputs],
    callers: &[&[(u32, NodeId)]],
) -> Vec<Vec<bool>> {
    let mut may: Vec<Vec<bool>> = inputs
        .iter()
        .map(|b| vec![false; b.unchanged.len()])
        .collect();
    loop {
        let mut changed = false;
        for (t, sites) in callers.iter().enumerate() {
            if t >= may.len() {
                continue;
            }
            for &(c, n) in sites.iter() {
                let Some(cb) = inputs.get(c as usize) else {
                    continue;
                };
                let Ok(i) = cb.calls.binary_search_by_key(&n, |(m, _)| *m) else {
                    continue;
                };
                for (k, a) in cb.calls[i].1.iter().enumerate() {
                    if k >= may[t].len() || may[t][k] {
                        continue;
                    }
                    let null = match *a {
                        ArgClass::Null => true,
                        ArgClass::Param(j) => may
                            .get(c as usize)
                            .and_then(|m| m.get(j as usize))
                            .copied()
                            .unwrap_or(false),
                        ArgClass::NonNull | ArgClass::Other => false,
                    };
                    if null {
                        may[t][k] = true;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            return may;
        }
    }
}

/// Locals (parameters included) that some statement of `b` sets to the constant 0.
fn zeroed_locals(b: &FunctionIr) -> Vec<crate::ir::LocalId> {
    let mut out = Vec::new();
    for n in b.node_ids() {
        if let StmtKind::Assign { addr, value } = &b.node(n).stmt.kind
            && let ExprKind::Addr(Symbol::Local(l)) = b.exprs.kind(*addr)
            && matches!(b.exprs.kind(*value), ExprKind::Int(0))
            && !out.contains(l)
        {
            out.push(*l);
        }
    }
    out
}

/// The class of `e`, an argument in `b`: an address, a parameter's value, NULL, or anything
/// else (`zeroed`: the locals `b` sets to 0).
fn arg_class(b: &FunctionIr, e: ExprId, zeroed: &[crate::ir::LocalId]) -> ArgClass {
    match b.exprs.kind(e) {
        ExprKind::Int(0) => ArgClass::Null,
        ExprKind::Deref(x) if matches!(b.exprs.kind(*x), ExprKind::Addr(Symbol::Local(l)) if zeroed.contains(l)) => {
            ArgClass::Null
        }
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
    fn a_parameter_is_tested_where_the_body_compares_it_or_a_copy() {
        let prog = SnippetProgram::new(
            "struct list { struct list *next; };\n\
             int put(struct list *h, char *s) { if (!h) return -1; h->next = 0; return 0; }\n\
             void pass(struct list *h, char *s) { put(h, s); }\n\
             void copy(void *data, char *s) { struct list *l = data; struct list *m = l; if (m == 0) return; put(m, s); }\n\
             void deref(struct list *h, char *s) { if (h->next) put(h, s); }\n",
        );
        let tested = |f: &str| tested_params(&prog.body(prog.func(f)));
        assert_eq!(tested("put"), vec![true, false]);
        assert_eq!(tested("pass"), vec![false, false], "passed on, not tested");
        assert_eq!(
            tested("copy"),
            vec![true, false],
            "a copy of a copy is tested"
        );
        assert_eq!(
            tested("deref"),
            vec![false, false],
            "`h->next` tests a field, not `h`"
        );
    }

    #[test]
    fn a_status_a_call_returns_about_a_parameter_tests_it() {
        let prog = SnippetProgram::new(
            "struct list { struct list *next; };\n\
             int put(struct list *h, char *s) { if (!h) return -1; h->next = 0; return 0; }\n\
             struct list *make(struct list *h) { return h; }\n\
             int status(struct list *h, char *s) { int rc = put(h, s); if (rc) return rc; return 0; }\n\
             int made(struct list *h) { struct list *n = make(h); if (n) return 1; return 0; }\n",
        );
        let tested = |f: &str| tested_params(&prog.body(prog.func(f)));
        assert_eq!(tested("status"), vec![true, true]);
        assert_eq!(
            tested("made"),
            vec![false],
            "a pointer result tests its own call"
        );
    }

    #[test]
    fn an_explicit_null_is_passed_down_the_chain_of_parameters() {
        let prog = SnippetProgram::new(
            "struct list { struct list *next; };\n\
             void add(struct list *h) { }\n\
             void mid(struct list *h) { add(h); }\n\
             void quiet(int v) { struct list l; mid(v ? &l : 0); }\n\
             void other(struct list *h) { }\n\
             void field(struct list *p) { other(p->next); other(0); }\n\
             void lone(struct list *h) { }\n",
        );
        let n = prog.function_count();
        let bodies: Vec<std::sync::Arc<FunctionIr>> = (0..n as u32).map(|f| prog.body(f)).collect();
        let refs: Vec<&FunctionIr> = bodies.iter().map(|b| b.as_ref()).collect();
        let callers: Vec<Vec<(u32, NodeId)>> = (0..n as u32).map(|f| prog.callers(f)).collect();
        let t = null_passed_params(&refs, &callers);
        assert_eq!(t[prog.func("mid") as usize], vec![true], "`v ? &l : 0`");
        assert_eq!(
            t[prog.func("add") as usize],
            vec![true],
            "passed on by `mid`"
        );
        assert_eq!(t[prog.func("other") as usize], vec![true], "`other(0)`");
        assert_eq!(t[prog.func("lone") as usize], vec![false], "no caller");
        assert_eq!(t[prog.func("field") as usize], vec![false]);
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

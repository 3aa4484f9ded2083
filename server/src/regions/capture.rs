//! Where a pointer value goes: whether a function may keep a copy of a parameter's value
//! (store it into memory, return it, hand it to code that does), and whether the address of
//! one of its own locals may ever sit in memory.
//!
//! A local whose address only ever serves as an address (`&l` read or written through, or
//! handed to a callee that does no more with it: `FREE(&p)`, `asprintf(&s, …)`, `getline(&line,
//! …)`) is a location no pointer loaded from memory can point to: nothing in memory held its
//! address before its function started, and nothing stored it since. The engine then tells
//! `p` apart from `tab->items[i]` although both sit in the memory region of their type
//! (`Engine::distinct_objects`).
//!
//! The analysis is flow-insensitive and conservative: any use it does not recognise counts as
//! a capture. Per function ([`own_captures`]) it records, for each pointer parameter and each
//! address-taken local, whether the value is captured in the function itself and to which
//! callee parameters it is passed; [`captured_params`] closes that over the workspace.

use crate::ir::{BinOp, Callee, ExprId, ExprKind, FunctionIr, LocalId, StmtKind, Symbol};
use rustc_hash::FxHashSet;

/// What a function does with one pointer value (a parameter's value, or a local's address).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flow {
    /// Kept: stored into memory, returned, copied where the analysis does not follow it, or
    /// handed to code without a body that is not a known library function.
    pub captured: bool,
    /// Passed as argument `i` to the project function named (a capture if that parameter is).
    pub passed: Vec<(String, u32)>,
}

/// [`Flow`]s of one function: per parameter (in order) and per address-taken local.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct OwnCaptures {
    pub params: Vec<Flow>,
    pub locals: Vec<(LocalId, Flow)>,
}

/// How a callee of a function is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CalleeCapture {
    /// A function with a body in the workspace: what it does with its parameter decides.
    Body,
    /// A C library function of the model: it neither keeps nor frees its arguments.
    Library,
    /// Anything else: it may keep what it is given.
    Unknown,
}

/// The value being followed.
#[derive(Clone, Copy)]
enum Seed {
    /// A parameter's value: read from the parameter or from a local it was copied into.
    Param,
    /// The address of local `l`.
    LocalAddr(LocalId),
}

struct Walk<'a> {
    ir: &'a FunctionIr,
    seed: Seed,
    /// Locals holding the parameter's value (the parameter and unaddressed copies of it).
    holders: FxHashSet<LocalId>,
}

impl Walk<'_> {
    /// `e` is the followed value itself.
    fn is_seed(&self, e: ExprId) -> bool {
        match (self.seed, self.ir.exprs.kind(e)) {
            (Seed::LocalAddr(l), ExprKind::Addr(Symbol::Local(x))) => *x == l,
            (Seed::Param, ExprKind::Deref(a)) => matches!(
                self.ir.exprs.kind(*a),
                ExprKind::Addr(Symbol::Local(x)) if self.holders.contains(x)
            ),
            _ => false,
        }
    }

    /// `e` is the followed value or a pointer into the same object (`&v->f`, `v + i`).
    fn carries(&self, e: ExprId) -> bool {
        if self.is_seed(e) {
            return true;
        }
        match self.ir.exprs.kind(e) {
            ExprKind::Field(b, _) => self.carries(*b),
            ExprKind::Binary(BinOp::Add | BinOp::Sub, a, _)
                if self.ir.exprs.ty(*a).is_pointer() =>
            {
                self.carries(*a)
            }
            _ => false,
        }
    }

    /// Whether `e` uses the followed value only as an address to access memory through
    /// (`as_addr`: `e` itself is such an address, so the value may stand at its root).
    fn only_accessed(&self, e: ExprId, as_addr: bool) -> bool {
        if self.is_seed(e) {
            return as_addr;
        }
        match self.ir.exprs.kind(e) {
            ExprKind::Field(b, _) => self.only_accessed(*b, as_addr),
            ExprKind::Binary(op, a, b) => {
                let ptr = |x: ExprId| {
                    matches!(op, BinOp::Add | BinOp::Sub) && self.ir.exprs.ty(x).is_pointer()
                };
                self.only_accessed(*a, as_addr && ptr(*a))
                    && self.only_accessed(*b, as_addr && ptr(*b))
            }
            ExprKind::Deref(a) => self.only_accessed(*a, true),
            ExprKind::Int(_) | ExprKind::Scalar | ExprKind::Addr(_) | ExprKind::Unknown => true,
        }
    }

    /// The local an assignment writes, when it is an unaddressed plain local (a copy of the
    /// parameter's value into it is followed).
    fn plain_local(&self, addr: ExprId) -> Option<LocalId> {
        match self.ir.exprs.kind(addr) {
            ExprKind::Addr(Symbol::Local(l)) if !self.ir.local(*l).address_taken => Some(*l),
            _ => None,
        }
    }

    fn run(&mut self, callee_kind: &dyn Fn(&str) -> CalleeCapture) -> Flow {
        // Copies into plain locals first (a fixpoint: a copy of a copy holds it too).
        if matches!(self.seed, Seed::Param) {
            loop {
                let before = self.holders.len();
                for n in &self.ir.nodes {
                    if let StmtKind::Assign { addr, value } = &n.stmt.kind
                        && self.carries(*value)
                        && let Some(l) = self.plain_local(*addr)
                        && self.ir.local(l).kind != crate::ir::LocalKind::Return
                    {
                        self.holders.insert(l);
                    }
                }
                if self.holders.len() == before {
                    break;
                }
            }
        }
        let mut flow = Flow::default();
        for n in &self.ir.nodes {
            let ok = match &n.stmt.kind {
                StmtKind::Assign { addr, value } => {
                    let copy = matches!(self.seed, Seed::Param)
                        && self
                            .plain_local(*addr)
                            .is_some_and(|l| self.holders.contains(&l));
                    self.only_accessed(*addr, true)
                        && (if copy && self.carries(*value) {
                            self.only_accessed(*value, true)
                        } else {
                            self.only_accessed(*value, false)
                        })
                }
                StmtKind::Alloc { addr, .. } | StmtKind::ZeroFill { addr } => {
                    self.only_accessed(*addr, true)
                }
                // Freeing or comparing a pointer keeps no copy of it.
                StmtKind::Free { ptr } => self.only_accessed(*ptr, true),
                StmtKind::Cond { lhs, rhs, .. } => {
                    self.only_accessed(*lhs, true) && self.only_accessed(*rhs, true)
                }
                StmtKind::Call { dest, callee, args } => {
                    let mut ok = dest.is_none_or(|d| self.only_accessed(d, true));
                    if let Callee::Indirect(e) = callee {
                        ok &= self.only_accessed(*e, false);
                    }
                    for (i, a) in args.iter().enumerate() {
                        if !self.carries(*a) {
                            ok &= self.only_accessed(*a, false);
                            continue;
                        }
                        ok &= self.only_accessed(*a, true);
                        match callee {
                            Callee::Direct(name) => match callee_kind(name) {
                                CalleeCapture::Body => flow.passed.push((name.clone(), i as u32)),
                                CalleeCapture::Library => {}
                                CalleeCapture::Unknown => ok = false,
                            },
                            Callee::Indirect(_) => ok = false,
                        }
                    }
                    ok
                }
                StmtKind::Return { value } => value.is_none_or(|v| self.only_accessed(v, false)),
                // Code the front end did not model may do anything with what it reads.
                StmtKind::Opaque { reads, .. } => {
                    reads.iter().all(|r| self.only_accessed(*r, false))
                }
                StmtKind::Enter
                | StmtKind::ScopeBegin { .. }
                | StmtKind::ScopeEnd { .. }
                | StmtKind::Nop => true,
            };
            if !ok {
                flow.captured = true;
                flow.passed.clear();
                return flow;
            }
        }
        flow.passed.sort();
        flow.passed.dedup();
        flow
    }
}

/// What `ir` does with each of its parameters' values and with the address of each of its
/// address-taken locals. `callee_kind` says how a directly called name is known.
pub fn own_captures(ir: &FunctionIr, callee_kind: &dyn Fn(&str) -> CalleeCapture) -> OwnCaptures {
    let mut out = OwnCaptures::default();
    for &p in &ir.params {
        let l = ir.local(p);
        let flow = if l.address_taken {
            // Its value may be read through its address anywhere.
            Flow {
                captured: true,
                passed: vec![],
            }
        } else {
            Walk {
                ir,
                seed: Seed::Param,
                holders: std::iter::once(p).collect(),
            }
            .run(callee_kind)
        };
        out.params.push(flow);
    }
    for (i, l) in ir.locals.iter().enumerate() {
        let id = LocalId(i as u32);
        if !l.address_taken || l.kind == crate::ir::LocalKind::Param {
            continue;
        }
        let flow = Walk {
            ir,
            seed: Seed::LocalAddr(id),
            holders: FxHashSet::default(),
        }
        .run(callee_kind);
        out.locals.push((id, flow));
    }
    out
}

/// Which parameters each function may keep, over the workspace: `own[i]` is function `i`'s
/// [`OwnCaptures`] with its callees' names resolved by `resolve(i, name)` to function
/// indices. A parameter is captured when its function captures it, or passes it to a
/// captured parameter (or past the callee's declared parameters, into varargs). The least
/// fixpoint: a recursive function passing its parameter to itself does not keep it by that
/// alone.
pub fn captured_params(
    own: &[std::sync::Arc<OwnCaptures>],
    resolve: &dyn Fn(usize, &str) -> Option<usize>,
) -> Vec<Vec<bool>> {
    let mut captured: Vec<Vec<bool>> = own
        .iter()
        .map(|o| o.params.iter().map(|f| f.captured).collect())
        .collect();
    // Reverse edges: (callee, param) → the (caller, param) that pass to it.
    let mut users: rustc_hash::FxHashMap<(usize, u32), Vec<(usize, usize)>> =
        rustc_hash::FxHashMap::default();
    let mut work: Vec<(usize, usize)> = Vec::new();
    for (i, o) in own.iter().enumerate() {
        for (p, flow) in o.params.iter().enumerate() {
            if flow.captured {
                work.push((i, p));
                continue;
            }
            for (name, arg) in &flow.passed {
                match resolve(i, name) {
                    Some(g) if (*arg as usize) < captured[g].len() => {
                        users.entry((g, *arg)).or_default().push((i, p));
                    }
                    // Unresolved, or into the callee's varargs: kept, for all we know.
                    _ => {
                        if !captured[i][p] {
                            captured[i][p] = true;
                            work.push((i, p));
                        }
                    }
                }
            }
        }
    }
    while let Some((g, a)) = work.pop() {
        let Some(us) = users.get(&(g, a as u32)) else {
            continue;
        };
        for &(i, p) in us {
            if !captured[i][p] {
                captured[i][p] = true;
                work.push((i, p));
            }
        }
    }
    captured
}

/// The address-taken locals of a function whose address never reaches memory: each is used
/// only as an address, or passed to parameters `kept` says are not captured.
pub fn unescaped_locals(own: &OwnCaptures, kept: &dyn Fn(&str, u32) -> bool) -> Vec<LocalId> {
    own.locals
        .iter()
        .filter(|(_, f)| !f.captured && !f.passed.iter().any(|(n, a)| kept(n, *a)))
        .map(|(l, _)| *l)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    type Analysis = (Vec<Arc<FunctionIr>>, Vec<Vec<bool>>, Vec<Arc<OwnCaptures>>);

    fn analyse(src: &str) -> Analysis {
        let (_, irs) = crate::ir::lower_snippet(src);
        let irs: Vec<Arc<FunctionIr>> = irs.into_iter().map(Arc::new).collect();
        let names: Vec<String> = irs.iter().map(|f| f.name.clone()).collect();
        let kind = |n: &str| {
            if names.iter().any(|x| x == n) {
                CalleeCapture::Body
            } else if crate::ir::library::known_function(n).is_some() {
                CalleeCapture::Library
            } else {
                CalleeCapture::Unknown
            }
        };
        let own: Vec<Arc<OwnCaptures>> = irs
            .iter()
            .map(|f| Arc::new(own_captures(f, &kind)))
            .collect();
        let resolve = |_: usize, n: &str| names.iter().position(|x| x == n);
        let caps = captured_params(&own, &resolve);
        (irs, caps, own)
    }

    fn func(irs: &[Arc<FunctionIr>], name: &str) -> usize {
        irs.iter().position(|f| f.name == name).unwrap()
    }

    #[test]
    fn a_parameter_stored_returned_or_handed_on_is_kept() {
        let src = r#"
            struct node { struct node *next; char *name; };
            struct list { struct node *head; };
            void push(struct list *l, struct node *n) { n->next = l->head; l->head = n; }
            void *id(void *p) { return p; }
            void pass(struct list *l, struct node *n) { push(l, n); }
            void release(void *ptr) { void **p = (void **) ptr; if (!ptr) return; free(*p); *p = 0; }
            int length(const char *s) { int n = 0; while (s[n]) n++; return n; }
            void via_unknown(char *s) { mystery(s); }
            void via_library(char *s, char *d) { strcpy(d, s); }
            void rec(struct node *n) { if (n) rec(n->next); }
        "#;
        let (irs, caps, _) = analyse(src);
        assert_eq!(caps[func(&irs, "push")], vec![false, true]);
        assert_eq!(caps[func(&irs, "id")], vec![true]);
        assert_eq!(caps[func(&irs, "pass")], vec![false, true]);
        assert_eq!(caps[func(&irs, "release")], vec![false]);
        assert_eq!(caps[func(&irs, "length")], vec![false]);
        assert_eq!(caps[func(&irs, "via_unknown")], vec![true]);
        assert_eq!(caps[func(&irs, "via_library")], vec![false, false]);
        assert_eq!(caps[func(&irs, "rec")], vec![false]);
    }

    #[test]
    fn a_local_address_escapes_only_when_it_may_reach_memory() {
        let src = r#"
            struct node { struct node *next; };
            void release(void *ptr) { void **p = (void **) ptr; free(*p); *p = 0; }
            void keep(struct node ***slot, struct node **pp) { *slot = pp; }
            struct node **g;
            void f(struct node ***slot) {
                struct node *a = 0, *b = 0, *c = 0, *d = 0;
                release(&a);
                keep(slot, &b);
                g = &c;
                struct node **q = &d;
                *q = 0;
            }
        "#;
        let (irs, caps, own) = analyse(src);
        let f = func(&irs, "f");
        let names = |ls: Vec<LocalId>| -> Vec<String> {
            ls.iter().map(|l| irs[f].local(*l).name.clone()).collect()
        };
        let kept = |n: &str, a: u32| caps[func(&irs, n)][a as usize];
        assert_eq!(names(unescaped_locals(&own[f], &kept)), vec!["a"]);
    }
}

//! Footprints of pure-descent recursions: what a frame writes, and which of its pointers
//! hold its own node or its child's.
//!
//! Let `g` recurse by pure descent on parameter `p` (see `sites::descent`): every frame of a
//! chain of descent calls starts with the same memory, so the frames of a chain whose calls
//! return have pairwise different `p`. Call the frame's own `p` *own* and the argument it
//! passes to its descent call, once that call has returned, *child*.
//!
//! `footprint` checks, by a forward must-analysis of one frame, that every write of the frame
//! goes to a field of *own* or of *child*, to a block it allocated itself, or to its own
//! variables; and that it calls nothing else that writes memory which existed before the call.
//! By induction over the calls (the descent call writes only fields of the nodes of its own
//! chain, which all differ from *own*), a call of `g` then writes only fields of the nodes
//! its chain passes (its frames' `p`), blocks it allocated, and its own stack. In particular,
//! after the descent call returns, every field of *own* keeps the value the frame left there,
//! and a field of *own* that held the argument still holds *child*.
//!
//! The result says, at each statement, which locals and which fields of *own* (and of
//! *child*) are known to hold *own* or *child*. The engine uses it to tell that two pointers
//! are different nodes (see `Engine::frame_of`).

use super::sites::Descent;
use crate::ir::{Callee, ExprId, ExprKind, FunctionIr, LocalId, NodeId, StmtKind, Symbol};
use std::collections::BTreeMap;

/// Which node a pointer value is, relative to the frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// The frame's descent parameter.
    Own,
    /// The argument of the frame's descent call, after that call returned.
    Child,
}

/// A value the analysis follows: a node, the content a field of *own* had at entry, or
/// anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum V {
    Top,
    Is(Node),
    /// The value field `.0` (an index into the function's field names) of *own* had at entry.
    Entry(u32),
}

/// The known facts at one program point, for the engine.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Known {
    /// Locals (besides the parameter itself) that hold *own* or *child*.
    pub locals: Vec<(LocalId, Node)>,
    /// Fields of *own* that hold *own* or *child* (`""`: the pointee itself).
    pub own_fields: Vec<(String, Node)>,
    /// Fields of *child* that hold *own* or *child*.
    pub child_fields: Vec<(String, Node)>,
}

impl Known {
    /// What holds at two points: the facts they share.
    fn meet(a: &Known, b: &Known) -> Known {
        fn common<T: PartialEq + Clone>(a: &[T], b: &[T]) -> Vec<T> {
            a.iter().filter(|x| b.contains(x)).cloned().collect()
        }
        Known {
            locals: common(&a.locals, &b.locals),
            own_fields: common(&a.own_fields, &b.own_fields),
            child_fields: common(&a.child_fields, &b.child_fields),
        }
    }

    pub fn local(&self, l: LocalId) -> Option<Node> {
        self.locals.iter().find(|(x, _)| *x == l).map(|(_, n)| *n)
    }
    pub fn field(&self, of: Node, f: &str) -> Option<Node> {
        let list = match of {
            Node::Own => &self.own_fields,
            Node::Child => &self.child_fields,
        };
        list.iter().find(|(x, _)| x == f).map(|(_, n)| *n)
    }
}

/// A checked footprint: facts per statement.
#[derive(Debug)]
pub struct Footprint {
    /// Holds both right before and right after the statement (what its transfer may use).
    across: Vec<Known>,
    /// Holds right after the statement (on every edge leaving it).
    after: Vec<Known>,
}

impl Footprint {
    pub fn across(&self, n: NodeId) -> &Known {
        &self.across[n.0 as usize]
    }
    pub fn after(&self, n: NodeId) -> &Known {
        &self.after[n.0 as usize]
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct State {
    locals: Vec<V>,
    /// Fields of *own*; a field not listed still has its entry value.
    own: BTreeMap<u32, V>,
    /// Fields of *child* that are known; the others may hold anything.
    child: BTreeMap<u32, V>,
}

impl State {
    fn join(&mut self, o: &State) -> bool {
        let before = self.clone();
        for (a, b) in self.locals.iter_mut().zip(&o.locals) {
            if a != b {
                *a = V::Top;
            }
        }
        let keys: Vec<u32> = self.own.keys().chain(o.own.keys()).copied().collect();
        for k in keys {
            let a = self.own.get(&k).copied().unwrap_or(V::Entry(k));
            let b = o.own.get(&k).copied().unwrap_or(V::Entry(k));
            self.own.insert(k, if a == b { a } else { V::Top });
        }
        self.child.retain(|k, v| o.child.get(k) == Some(v));
        *self != before
    }

    fn replace(&mut self, from: V, to: V) {
        for v in self
            .locals
            .iter_mut()
            .chain(self.own.values_mut())
            .chain(self.child.values_mut())
        {
            if *v == from {
                *v = to;
            }
        }
    }

    fn known(&self, fields: &[String]) -> Known {
        let node = |v: &V| match v {
            V::Is(n) => Some(*n),
            _ => None,
        };
        let named = |m: &BTreeMap<u32, V>| -> Vec<(String, Node)> {
            m.iter()
                .filter_map(|(k, v)| node(v).map(|n| (fields[*k as usize].clone(), n)))
                .collect()
        };
        Known {
            locals: self
                .locals
                .iter()
                .enumerate()
                .filter_map(|(i, v)| node(v).map(|n| (LocalId(i as u32), n)))
                .collect(),
            own_fields: named(&self.own),
            child_fields: named(&self.child),
        }
    }
}

/// Where a write lands.
enum Dest {
    /// A local whose address is never taken: its value is followed.
    Local(LocalId),
    /// The frame's own variables otherwise (address taken, or a field of a local struct).
    Stack,
    /// Field `.1` of node `.0`.
    Field(Node, u32),
}

struct Walk<'a> {
    ir: &'a FunctionIr,
    param: LocalId,
    fields: Vec<String>,
}

impl Walk<'_> {
    fn field_id(&mut self, f: &str) -> u32 {
        match self.fields.iter().position(|x| x == f) {
            Some(i) => i as u32,
            None => {
                self.fields.push(f.to_string());
                (self.fields.len() - 1) as u32
            }
        }
    }

    /// The value of `e`.
    fn value(&mut self, s: &State, e: ExprId) -> V {
        let ExprKind::Deref(a) = self.ir.exprs.kind(e) else {
            return V::Top;
        };
        match self.ir.exprs.kind(*a) {
            ExprKind::Addr(Symbol::Local(l)) if !self.ir.local(*l).address_taken => {
                s.locals[l.0 as usize]
            }
            ExprKind::Field(b, f) => {
                let f = f.clone();
                match self.value(s, *b) {
                    V::Is(Node::Own) => {
                        let k = self.field_id(&f);
                        s.own.get(&k).copied().unwrap_or(V::Entry(k))
                    }
                    V::Is(Node::Child) => {
                        let k = self.field_id(&f);
                        s.child.get(&k).copied().unwrap_or(V::Top)
                    }
                    _ => V::Top,
                }
            }
            _ => match self.value(s, *a) {
                V::Is(Node::Own) => {
                    let k = self.field_id("");
                    s.own.get(&k).copied().unwrap_or(V::Entry(k))
                }
                V::Is(Node::Child) => {
                    let k = self.field_id("");
                    s.child.get(&k).copied().unwrap_or(V::Top)
                }
                _ => V::Top,
            },
        }
    }

    /// Where a write to address `addr` lands; `None` when it may land outside the
    /// footprint.
    fn dest(&mut self, s: &State, addr: ExprId) -> Option<Dest> {
        match self.ir.exprs.kind(addr) {
            ExprKind::Addr(Symbol::Local(l)) => Some(if self.ir.local(*l).address_taken {
                Dest::Stack
            } else {
                Dest::Local(*l)
            }),
            ExprKind::Field(b, f) => {
                let f = f.clone();
                match self.ir.exprs.kind(*b) {
                    // A field of a local struct (or of a field of one).
                    ExprKind::Addr(Symbol::Local(_)) | ExprKind::Field(..) => {
                        self.stack_place(*b).then_some(Dest::Stack)
                    }
                    _ => match self.value(s, *b) {
                        V::Is(n) => Some(Dest::Field(n, self.field_id(&f))),
                        _ => None,
                    },
                }
            }
            ExprKind::Deref(_) => match self.value(s, addr) {
                V::Is(n) => Some(Dest::Field(n, self.field_id(""))),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether address `e` is inside one of the frame's own variables.
    fn stack_place(&self, mut e: ExprId) -> bool {
        while let ExprKind::Field(b, _) = self.ir.exprs.kind(e) {
            e = *b;
        }
        matches!(self.ir.exprs.kind(e), ExprKind::Addr(Symbol::Local(_)))
    }

    /// `*addr ← v`; `false` when the write may land outside the footprint.
    fn write(&mut self, s: &mut State, addr: ExprId, v: V) -> bool {
        // A whole struct copied in would change fields this analysis names one by one.
        if self
            .ir
            .exprs
            .ty(addr)
            .pointee()
            .is_some_and(|t| t.is_aggregate())
        {
            return matches!(self.dest(s, addr), Some(Dest::Stack));
        }
        match self.dest(s, addr) {
            Some(Dest::Local(l)) => s.locals[l.0 as usize] = v,
            Some(Dest::Stack) => {}
            Some(Dest::Field(Node::Own, k)) => {
                s.own.insert(k, v);
            }
            Some(Dest::Field(Node::Child, k)) => {
                s.child.insert(k, v);
            }
            None => return false,
        }
        true
    }
}

/// Checks the footprint of `ir`, which recurses by pure descent as `descent` says (its
/// self-calls are the nodes of `self_calls`). `harmless(node)`: the call at `node` (not a
/// self-call) writes no memory that existed before it. `None`: some write or call may reach
/// beyond the footprint.
pub(super) fn footprint(
    ir: &FunctionIr,
    descent: &Descent,
    self_calls: &[NodeId],
    harmless: &dyn Fn(NodeId) -> bool,
) -> Option<Footprint> {
    let mut w = Walk {
        ir,
        param: descent.param,
        fields: Vec::new(),
    };
    let param_index = ir.params.iter().position(|p| *p == descent.param)?;
    let n = ir.nodes.len();
    let mut input: Vec<Option<State>> = vec![None; n];
    let mut output: Vec<Option<State>> = vec![None; n];
    let mut start = State {
        locals: vec![V::Top; ir.locals.len()],
        own: BTreeMap::new(),
        child: BTreeMap::new(),
    };
    start.locals[w.param.0 as usize] = V::Is(Node::Own);
    input[ir.entry.0 as usize] = Some(start);
    let mut work: Vec<NodeId> = vec![ir.entry];
    let mut queued = vec![false; n];
    queued[ir.entry.0 as usize] = true;
    // Every node is revisited only when its input grows less precise; the lattice is finite
    // (values per local and per field), so this ends. The guard is for safety.
    let mut steps = 0usize;
    while let Some(id) = work.pop() {
        queued[id.0 as usize] = false;
        steps += 1;
        if steps > 64 * n + 1024 {
            return None;
        }
        let Some(mut s) = input[id.0 as usize].clone() else {
            continue;
        };
        let node = ir.node(id);
        match &node.stmt.kind {
            StmtKind::Enter
            | StmtKind::Nop
            | StmtKind::Return { .. }
            | StmtKind::Cond { .. }
            | StmtKind::Free { .. } => {}
            StmtKind::ScopeBegin { locals } | StmtKind::ScopeEnd { locals, .. } => {
                for l in locals {
                    s.locals[l.0 as usize] = V::Top;
                }
            }
            StmtKind::Assign { addr, value } => {
                let v = w.value(&s, *value);
                if !w.write(&mut s, *addr, v) {
                    return None;
                }
            }
            StmtKind::Alloc { addr, .. } | StmtKind::ZeroFill { addr } => {
                if !w.write(&mut s, *addr, V::Top) {
                    return None;
                }
            }
            StmtKind::Call { dest, callee, args } => {
                if self_calls.contains(&id) {
                    if !descent.sites.contains(&id) {
                        return None;
                    }
                    let arg = *args.get(param_index)?;
                    let a = w.value(&s, arg);
                    // The callee writes only fields of its own chain's nodes, which all differ
                    // from this frame's: the fields of `own` keep their values, nothing is
                    // known of the child's.
                    s.child.clear();
                    match a {
                        V::Entry(k) => {
                            s.own.entry(k).or_insert(V::Entry(k));
                            s.replace(a, V::Is(Node::Child));
                        }
                        V::Top => {}
                        // Passing `own` itself (or the child) on could not return.
                        V::Is(_) => return None,
                    }
                } else if !matches!(callee, Callee::Direct(_)) || !harmless(id) {
                    return None;
                }
                if let Some(d) = dest
                    && !w.write(&mut s, *d, V::Top)
                {
                    return None;
                }
            }
            StmtKind::Opaque { .. } => return None,
        }
        output[id.0 as usize] = Some(s.clone());
        for &succ in &node.succs {
            let slot = &mut input[succ.0 as usize];
            let changed = match slot {
                None => {
                    *slot = Some(s.clone());
                    true
                }
                Some(cur) => cur.join(&s),
            };
            if changed && !queued[succ.0 as usize] {
                queued[succ.0 as usize] = true;
                work.push(succ);
            }
        }
    }
    let fields = w.fields.clone();
    let known = |s: &Option<State>| s.as_ref().map(|s| s.known(&fields)).unwrap_or_default();
    let after: Vec<Known> = output.iter().map(known).collect();
    let across: Vec<Known> = (0..n)
        .map(|i| Known::meet(&known(&input[i]), &after[i]))
        .collect();
    Some(Footprint { across, after })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The footprint of function `name` in `src`, or `None` when it does not hold; calls to
    /// other functions count as harmless when `harmless` says so.
    fn check(src: &str, name: &str, harmless: bool) -> Option<(FunctionIr, Footprint)> {
        let (ir, calls) = super::super::sites::recursive_snippet(src, name);
        let d = super::super::sites::descent(&ir, &calls)?;
        let fp = footprint(&ir, &d, &calls, &|_| harmless)?;
        Some((ir, fp))
    }

    const LIST: &str = "struct list { int data; struct list *next; };\n";

    fn node_of(ir: &FunctionIr, text: &str) -> NodeId {
        ir.node_ids()
            .find(|&n| {
                crate::ir::display_stmt(ir, &ir.node(n).stmt.kind, crate::ir::Notation::C) == text
            })
            .unwrap_or_else(|| panic!("no statement `{text}`"))
    }

    #[test]
    fn the_recursive_reversal_writes_only_its_own_node_and_its_child() {
        let src = format!(
            "{LIST}struct list *rev(struct list *x) {{\n\
             struct list *rest;\n\
             if (x == 0 || x->next == 0) return x;\n\
             rest = rev(x->next);\n\
             x->next->next = x;\n\
             x->next = 0;\n\
             return rest;\n}}\n"
        );
        let (ir, fp) = check(&src, "rev", false).expect("a footprint");
        // After the call, `x->next` still holds the child; the write through it is the
        // child's field.
        let link = node_of(&ir, "x->next->next = x");
        assert_eq!(fp.across(link).field(Node::Own, "next"), Some(Node::Child));
        assert_eq!(fp.after(link).field(Node::Child, "next"), Some(Node::Own));
        let cut = node_of(&ir, "x->next = 0");
        assert_eq!(fp.across(cut).field(Node::Own, "next"), None);
    }

    #[test]
    fn a_temporary_that_holds_the_argument_holds_the_child_afterwards() {
        let src = format!(
            "{LIST}struct list *rev(struct list *x) {{\n\
             struct list *t, *r;\n\
             if (x == 0 || x->next == 0) return x;\n\
             t = x->next;\n\
             r = rev(t);\n\
             t->next = x;\n\
             x->next = 0;\n\
             return r;\n}}\n"
        );
        let (ir, fp) = check(&src, "rev", false).expect("a footprint");
        let link = node_of(&ir, "t->next = x");
        let t = ir.locals.iter().position(|l| l.name == "t").unwrap();
        assert_eq!(fp.across(link).local(LocalId(t as u32)), Some(Node::Child));
    }

    #[test]
    fn writes_elsewhere_or_harmful_calls_have_no_footprint() {
        let global = format!(
            "{LIST}struct list *last;\n\
             void walk(struct list *x) {{\n\
             if (x == 0) return;\n\
             walk(x->next);\n\
             last = x;\n}}\n"
        );
        assert!(check(&global, "walk", true).is_none());
        let deep = format!(
            "{LIST}void walk(struct list *x) {{\n\
             if (x == 0 || x->next == 0) return;\n\
             walk(x->next);\n\
             x->next->next->next = 0;\n}}\n"
        );
        assert!(check(&deep, "walk", true).is_none());
        let call = format!(
            "{LIST}void touch(struct list *y);\n\
             void walk(struct list *x) {{\n\
             if (x == 0) return;\n\
             walk(x->next);\n\
             touch(x);\n}}\n"
        );
        assert!(check(&call, "walk", false).is_none());
        assert!(check(&call, "walk", true).is_some());
    }

    #[test]
    fn the_child_is_unknown_on_paths_that_did_not_call() {
        let src = format!(
            "{LIST}void walk(struct list *x, int k) {{\n\
             if (x == 0) return;\n\
             if (k) walk(x->next, k);\n\
             x->next->next = 0;\n}}\n"
        );
        assert!(check(&src, "walk", true).is_none());
    }
}

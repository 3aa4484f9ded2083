//! Frames of pure-descent recursions: which chain frame a pointer value is (`frame_of`,
//! from the footprint of `probe::footprint` and the chain contexts), `frames_apart`, chain
//! contexts (`chain_link`), the binding of a parameter to the caller's own node
//! (`owned_by_caller`) and the compression of caller frames that closes a recursion
//! (`compress_frames`).

use super::{Ctx, Engine};
use crate::ir::library::known_function;
use crate::ir::{Callee, LocalId, NodeId, StmtKind};
use crate::probe::FuncId;
use crate::probe::expr::{ANCESTOR, E, EKind, Sym};
use crate::probe::footprint::{Footprint, Node};
use crate::probe::state::Fact;
use std::sync::Arc;

/// How `enter_callee` names the caller frames in the callee's context.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Frames {
    /// One frame up each.
    Exact,
    /// Compressed (see `compress_frames`), the context made if new.
    Compress,
    /// Compressed, and only a context that already exists is used.
    CompressReuse,
}

/// A program point at which the footprint's facts are read (see `Cursor::point`).
#[derive(Clone, Copy)]
pub(super) struct FootprintPoint {
    pub(super) func: FuncId,
    pub(super) node: NodeId,
    pub(super) at: PointAt,
}

#[derive(Clone, Copy)]
pub(super) enum PointAt {
    /// While the statement is applied: the facts that hold across it.
    Across,
    /// Right after the statement: a fact being stored there.
    After,
}

/// Which node of a pure-descent chain a pointer value is (see `frame_of`): values that are
/// different nodes differ.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ChainNode {
    /// The current frame's descent parameter.
    Own,
    /// The argument of the current frame's descent call, once that call returned.
    Child,
    /// The descent parameter of the caller frame this many calls up (a chain context).
    Caller(u8),
}

/// A context on a chain of pure-descent self-calls (see `chain_link`): the function and its
/// descent parameter.
#[derive(Clone, Copy)]
pub(super) struct ChainLink {
    pub(super) func: FuncId,
    pub(super) param: LocalId,
}

impl<'p> Engine<'p> {
    /// How `g` recurses by pure descent, if it does (see `sites::descent`).
    pub(super) fn descent(&mut self, g: FuncId) -> Option<Arc<crate::probe::sites::Descent>> {
        if let Some(d) = self.caches.descents.get(&g) {
            return d.clone();
        }
        let b = self.body(g);
        let calls = self.self_calls(g);
        let d = crate::probe::sites::descent(&b, &calls).map(Arc::new);
        self.caches.descents.insert(g, d.clone());
        d
    }

    /// The self-calls of `g`.
    fn self_calls(&mut self, g: FuncId) -> Vec<NodeId> {
        let b = self.body(g);
        b.node_ids()
            .filter(|&n| {
                matches!(&b.node(n).stmt.kind,
                    StmtKind::Call { callee: Callee::Direct(name), .. }
                        if self.prog.resolve(g, name) == Some(g))
            })
            .collect()
    }

    /// The footprint of pure-descent function `g`, if it holds (see `footprint`). Other
    /// callees must not write memory that existed before the call: functions with a body
    /// by their MOD set, library functions that write nothing through their arguments but
    /// the caller's own variables.
    pub(super) fn footprint(&mut self, g: FuncId) -> Option<Arc<Footprint>> {
        if let Some(f) = self.caches.footprints.get(&g) {
            return f.clone();
        }
        let fp = self.descent(g).and_then(|d| {
            let b = self.body(g);
            let calls = self.self_calls(g);
            let prog = self.prog;
            let harmless = |n: NodeId| -> bool {
                let StmtKind::Call {
                    callee: Callee::Direct(name),
                    args,
                    ..
                } = &b.node(n).stmt.kind
                else {
                    return false;
                };
                match prog.resolve(g, name) {
                    Some(h) => {
                        let ms = prog.mod_set(h);
                        !ms.all && !ms.writes_old
                    }
                    None => {
                        known_function(name).is_some_and(|k| !k.writes_any())
                            && args.iter().all(|a| {
                                !b.exprs.ty(*a).pointee().is_some_and(|t| t.is_pointer())
                                    || matches!(
                                        b.exprs.kind(*a),
                                        crate::ir::ExprKind::Addr(crate::ir::Symbol::Local(_))
                                    )
                            })
                    }
                }
            };
            crate::probe::footprint::footprint(&b, &d, &calls, &harmless).map(Arc::new)
        });
        self.caches.footprints.insert(g, fp.clone());
        fp
    }

    /// Which node of a pure-descent chain pointer value `e` is, at the current point: the
    /// current frame's descent parameter, its child once the descent call returned (from the
    /// footprint), or, in a chain context, a caller frame's parameter.
    fn frame_of(&mut self, e: E) -> Option<ChainNode> {
        let ctx = self.cursor.ctx;
        if let Some(&link) = self.contexts.chains.get(&ctx)
            && let Some(n) = self.chain_frame(e, link)
        {
            return Some(n);
        }
        let FootprintPoint { func, node, at } = self.cursor.point?;
        let param = self.descent(func)?.param;
        let fp = self.footprint(func)?;
        let pa = self.local_addr(func, param);
        let pv = self.arena.deref(pa);
        let own = self.bind(func, ctx, pv);
        let known = match at {
            PointAt::After => fp.after(node),
            PointAt::Across => fp.across(node),
        };
        self.node_in(e, own, func, known).map(|n| match n {
            Node::Own => ChainNode::Own,
            Node::Child => ChainNode::Child,
        })
    }

    /// `frame_of` below the chain contexts: a read of the own parameter (or its bound value),
    /// of a local or of a field the footprint knows.
    fn node_in(
        &mut self,
        e: E,
        own: E,
        func: FuncId,
        known: &crate::probe::footprint::Known,
    ) -> Option<Node> {
        if e == own {
            return Some(Node::Own);
        }
        let EKind::Deref(a) = *self.arena.kind(e) else {
            return None;
        };
        match *self.arena.kind(a) {
            EKind::Addr(Sym::Local(f, l)) if f == func => known.local(l),
            EKind::Field(b, fld) => {
                let of = self.node_in(b, own, func, known)?;
                let name = self.arena.string_of(fld).to_string();
                known.field(of, &name)
            }
            _ => {
                let of = self.node_in(a, own, func, known)?;
                known.field(of, "")
            }
        }
    }

    /// Whether pointer values `p` and `q` are the parameters of two different frames of a
    /// pure-descent chain whose frames return (see `sites::descent`): then they differ. A
    /// caller frame and the child are both frames of the chain only in a chain context.
    pub(super) fn frames_apart(&mut self, p: E, q: E) -> bool {
        if p == q {
            return false;
        }
        let Some(a) = self.frame_of(p) else {
            return false;
        };
        matches!(self.frame_of(q), Some(b) if a != b)
    }

    /// Whether the call of `g` at `node` of `caller`, in context `ctx`, continues a chain of
    /// pure-descent self-calls that starts at a frame of the base context (`Ctx::BASE`): then
    /// every frame of the chain below the base must return. The function and its descent
    /// parameter.
    pub(super) fn chain_link(
        &mut self,
        caller: FuncId,
        node: NodeId,
        ctx: Ctx,
        g: FuncId,
    ) -> Option<ChainLink> {
        if caller != g || (ctx != Ctx::BASE && !self.contexts.chains.contains_key(&ctx)) {
            return None;
        }
        let d = self.descent(g)?;
        d.sites.contains(&node).then_some(ChainLink {
            func: g,
            param: d.param,
        })
    }

    /// The frame of `e` if it reads the descent parameter of the chain: the current frame's
    /// (`Own`), or a caller frame's (its frozen depth).
    fn chain_frame(&self, e: E, link: ChainLink) -> Option<ChainNode> {
        let EKind::Deref(x) = *self.arena.kind(e) else {
            return None;
        };
        let ChainLink { func: g, param: p } = link;
        match *self.arena.kind(x) {
            EKind::Addr(Sym::Local(f, l)) if f == g && l == p => Some(ChainNode::Own),
            EKind::Addr(Sym::Frozen(d, f, l)) if d > 0 && f == g && l == p => {
                Some(ChainNode::Caller(d))
            }
            _ => None,
        }
    }

    /// Deep in a pure-descent chain, forget the caller frames between the nearest
    /// (`Frozen(1)`) and the farthest one the fact names, which becomes `ANCESTOR`: facts
    /// about the forgotten frames are dropped, which only loses information. Then a deeper
    /// call whose fact has the same shape maps to the same context. Returns the caller frame
    /// `ANCESTOR` now stands for (`None`: it already was `ANCESTOR`).
    pub(super) fn compress_frames(
        &mut self,
        d: &Fact,
        binds: Vec<(LocalId, E)>,
    ) -> (Fact, Vec<(LocalId, E)>, Option<u8>) {
        let far = std::cell::Cell::new(1u8);
        let record = |s: Sym| -> Option<Sym> {
            if let Sym::Frozen(depth, ..) = s {
                far.set(far.get().max(depth));
            }
            Some(s)
        };
        self.rename_fact(d, &record);
        for (_, e) in &binds {
            self.arena.rename(*e, &record);
        }
        let far = far.get();
        if far < 2 {
            return (d.clone(), binds, None);
        }
        let keep = |s: Sym| -> Option<Sym> {
            match s {
                Sym::Frozen(depth, f, l) if depth == far => Some(Sym::Frozen(ANCESTOR, f, l)),
                Sym::Frozen(depth, ..) if depth >= 2 => None,
                other => Some(other),
            }
        };
        let mut out = self.rename_fact(d, &keep);
        out.normalize();
        let binds = binds
            .into_iter()
            .filter_map(|(p, e)| self.arena.rename(e, &keep).map(|e| (p, e)))
            .collect();
        (out, binds, (far != ANCESTOR).then(|| far - 1))
    }

    /// At a descent call of `g` by itself whose footprint holds (see `footprint`): the
    /// caller frame's descent parameter as seen from the callee (`shift` applied). The callee
    /// writes no field of that node, so a field of it keeps its value while the callee runs.
    pub(super) fn owned_by_caller(
        &mut self,
        caller: FuncId,
        node: NodeId,
        caller_ctx: Ctx,
        g: FuncId,
        shift: &dyn Fn(Sym) -> Option<Sym>,
    ) -> Option<E> {
        if caller != g {
            return None;
        }
        let d = self.descent(g)?;
        if !d.sites.contains(&node) {
            return None;
        }
        self.footprint(g)?;
        let pa = self.local_addr(g, d.param);
        let pv = self.arena.deref(pa);
        // The caller's own binding holds while the caller runs, and so while this call does.
        let own = self.bind(g, caller_ctx, pv);
        self.arena.rename(own, shift)
    }

    /// Whether `e` reads a field of the node `base` points to.
    pub(super) fn field_of(&self, e: E, base: E) -> bool {
        matches!(*self.arena.kind(e), EKind::Deref(x)
            if matches!(*self.arena.kind(x), EKind::Field(b, _) if b == base))
    }
}

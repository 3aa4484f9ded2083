//! Frames of pure-descent recursions: which chain frame a pointer value is (`frame_of`,
//! from the footprint of `probe::footprint` and the chain contexts), `frames_apart`, chain
//! contexts (`chain_link`), the binding of a parameter to the caller's own node
//! (`owned_by_caller`) and the compression of caller frames that closes a recursion
//! (`compress_frames`).

use super::{Ctx, Engine, NONE};
use crate::ir::{Callee, LocalId, NodeId, StmtKind};
use crate::probe::FuncId;
use crate::probe::expr::{ANCESTOR, E, EKind, Sym};
use crate::probe::footprint::{Footprint, Node};
use crate::probe::library::known_function;
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

impl<'p> Engine<'p> {
    /// How `g` recurses by pure descent, if it does (see `sites::descent`).
    pub(super) fn descent(&mut self, g: FuncId) -> Option<Arc<crate::probe::sites::Descent>> {
        if let Some(d) = self.descents.get(&g) {
            return d.clone();
        }
        let b = self.body(g);
        let calls = self.self_calls(g);
        let d = crate::probe::sites::descent(&b, &calls).map(Arc::new);
        self.descents.insert(g, d.clone());
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
        if let Some(f) = self.footprints.get(&g) {
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
                        known_function(name).is_some_and(|k| !k.writes_first_argument)
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
        self.footprints.insert(g, fp.clone());
        fp
    }

    /// Which node of a pure-descent chain pointer value `e` is, at the current point: the
    /// current frame's descent parameter (`Some(0)`), its child's once the descent call
    /// returned (`Some(-1)`, from the footprint), or, in a chain context, a caller frame's
    /// parameter (its depth).
    fn frame_of(&mut self, e: E) -> Option<i16> {
        let ctx = self.cur_ctx;
        if let Some(&(g, p)) = self.chains.get(&ctx)
            && let Some(d) = self.chain_frame(e, g, p)
        {
            return Some(d as i16);
        }
        let (func, node, after) = self.cur_point?;
        let param = self.descent(func)?.param;
        let fp = self.footprint(func)?;
        let pa = self.local_addr(func, param);
        let pv = self.a.deref(pa);
        let own = self.bind(func, ctx, pv);
        let known = if after {
            fp.after(node)
        } else {
            fp.across(node)
        };
        self.node_in(e, own, func, known).map(|n| match n {
            Node::Own => 0,
            Node::Child => -1,
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
        let EKind::Deref(a) = *self.a.kind(e) else {
            return None;
        };
        match *self.a.kind(a) {
            EKind::Addr(Sym::Local(f, l)) if f == func => known.local(l),
            EKind::Field(b, fld) => {
                let of = self.node_in(b, own, func, known)?;
                let name = self.a.string_of(fld).to_string();
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
    /// pure-descent self-calls that starts at a frame of the base context (`NONE`): then
    /// every frame of the chain below the base must return. The function and its descent
    /// parameter.
    pub(super) fn chain_link(
        &mut self,
        caller: FuncId,
        node: NodeId,
        ctx: Ctx,
        g: FuncId,
    ) -> Option<(FuncId, LocalId)> {
        if caller != g || (ctx != NONE && !self.chains.contains_key(&ctx)) {
            return None;
        }
        let d = self.descent(g)?;
        d.sites.contains(&node).then_some((g, d.param))
    }

    /// The frame of `e` if it reads descent parameter `p` of `g`: 0 for the current frame,
    /// the frozen depth for a caller's.
    fn chain_frame(&self, e: E, g: FuncId, p: LocalId) -> Option<u8> {
        let EKind::Deref(x) = *self.a.kind(e) else {
            return None;
        };
        match *self.a.kind(x) {
            EKind::Addr(Sym::Local(f, l)) if f == g && l == p => Some(0),
            EKind::Addr(Sym::Frozen(d, f, l)) if d > 0 && f == g && l == p => Some(d),
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
            self.a.rename(*e, &record);
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
            .filter_map(|(p, e)| self.a.rename(e, &keep).map(|e| (p, e)))
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
        let pv = self.a.deref(pa);
        // The caller's own binding holds while the caller runs, and so while this call does.
        let own = self.bind(g, caller_ctx, pv);
        self.a.rename(own, shift)
    }

    /// Whether `e` reads a field of the node `base` points to.
    pub(super) fn field_of(&self, e: E, base: E) -> bool {
        matches!(*self.a.kind(e), EKind::Deref(x)
            if matches!(*self.a.kind(x), EKind::Field(b, _) if b == base))
    }
}

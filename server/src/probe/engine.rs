//! The demand-driven interprocedural worklist of Figure 8, with the transfer functions of §4.3
//! and Map/Unmap of §4.4.
//!
//! A fact stored at a node is the fact *after* that node (as in the paper's R(n)(c)).
//! Processing it applies the node's transfer and inserts the pre-state at the predecessors;
//! a call maps the fact into the callee's exit under a context, an entry unmaps it to the call
//! sites registered for that context (or, for facts born in the function, to every caller).
//! Contexts are the mapped facts themselves, so a callee summary is exact per entry fact.
//! Facts are kept separated by the regions of their hit expressions (§4.8).

use super::expr::{ANCESTOR, Arena, E, EKind, MAX_FROZEN_DEPTH, Sym, display};
use super::footprint::{Footprint, Node};
use super::state::{
    Constraint, Fact, FactIndex, MAX_RELS, PtrRel, Rel, apply_tags, cleanup, infeasible, miss,
};
use super::{
    EngineConfig, FuncId, Loc, Place, ProbeResult, ProbeSite, Program, Root, Start, Subject,
    TraceStep, Unproved, Verdict,
};
use crate::ir::library::{Returns, is_noreturn, known_function};
use crate::ir::{
    Callee, CmpOp, FunctionIr, LocalId, LocalKind, NodeId, Notation, StmtKind, Type, display_stmt,
};
use crate::regions::{Region, RegionSet, VarRoot};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use std::collections::VecDeque;
use std::sync::Arc;

type Ctx = u32;
/// A callee context: the callee, the mapped fact, whether it is a witness, the bound
/// parameters, and whether it continues a chain of pure-descent self-calls (see `chain`).
type ContextKey = (FuncId, Fact, bool, Vec<(LocalId, E)>, bool);
const NONE: Ctx = 0;
type SlotId = u32;

/// Refutations kept for the report.
const MAX_REFUTATIONS: usize = 5;
/// Calls nested deeper than this (callee of a callee of …) are not explored: they are applied
/// through their MOD summary, or treated like body-less unknown functions when that cannot be
/// done soundly (the paper ignores callees more than one level deep).
const MAX_CALLEE_DEPTH: u32 = 2;
/// A pure-descent self-call (see `sites::descent`) is still explored this many calls past the
/// depth limit: its context forgets all caller frames but the nearest and one ancestor
/// (`ANCESTOR`), so deeper calls find the context of the call above them and the recursion
/// closes as a fixpoint instead of being summarised.
const CHAIN_EXTRA_DEPTH: u32 = 1;
/// A call whose result is the tracked reference is explored deeper: the block may be made by
/// an allocator wrapper several levels down (`make` → `new` → `malloc`).
const MAX_RETURN_DEPTH: u32 = 5;
/// An indirect call with more candidate targets than this is treated as an unknown call.
const MAX_INDIRECT_TARGETS: usize = 3;
/// Separated facts kept at one program point before facts with the same hit regions merge
/// regardless of their constraints (keeps loops finite).
const MAX_SLOTS_PER_POINT: usize = 12;
/// Longest trace followed back (a guard; real traces are far shorter).
const MAX_TRACE: usize = 10_000;

#[derive(Clone, Debug)]
enum Prov {
    /// The probe's own starting fact.
    Start,
    /// Pre-state of the slot's successor node.
    Edge(SlotId),
    /// Mapped into a callee's exit from the caller's slot at the call node.
    Map(SlotId),
    /// Unmapped from the callee's entry slot to the caller (registration's caller slot, if
    /// the fact was mapped from one).
    Unmap {
        entry: SlotId,
        call_node: NodeId,
        caller: Option<SlotId>,
    },
    /// The probe starts inside a callee at its exit (M2/M3 probes).
    StartInCallee,
}

struct Slot {
    func: FuncId,
    node: NodeId,
    ctx: Ctx,
    index: FactIndex,
    fact: Fact,
    prov: Prov,
    queued: bool,
    /// For a feasibility witness: the slot whose allocation validated the cell. A witness
    /// carries only the constraints of that fact backward from the allocation; reaching an
    /// entry shows the path to the allocation is feasible, and the leak is reported.
    witness_of: Option<SlotId>,
}

#[derive(Clone, Debug)]
struct Registration {
    func: FuncId,
    node: NodeId,
    ctx: Ctx,
    caller_slot: Option<SlotId>,
    /// The caller frame the callee's `ANCESTOR` frame stands for, when the map named it so
    /// (`None`: the caller's own `ANCESTOR`, if any).
    ancestor: Option<u8>,
}

enum Outcome {
    Leak { slot: SlotId, alloc_node: NodeId },
    Budget(String),
}

/// How `enter_callee` names the caller frames in the callee's context.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Frames {
    /// One frame up each.
    Exact,
    /// Compressed (see `compress_frames`), the context made if new.
    Compress,
    /// Compressed, and only a context that already exists is used.
    CompressReuse,
}

enum AllocResult {
    Contradiction,
    /// The allocation may have made the cell. `evidence`: its destination is itself a hit
    /// expression (the reference was tracked all the way); without it the fact had lost
    /// track of the reference and the allocation is only a candidate.
    Validated {
        evidence: bool,
    },
    Continue(Box<Fact>),
}

struct Engine<'p> {
    prog: &'p dyn Program,
    cfg: EngineConfig,
    a: Arena<'p>,
    bodies: FxHashMap<FuncId, Arc<FunctionIr>>,
    temp_deaths: FxHashMap<FuncId, Arc<super::TempDeaths>>,
    fresh_writes: FxHashMap<FuncId, Arc<super::FreshWrites>>,
    /// While the assignment being applied writes into a block only this local can reach
    /// (see `sites::fresh_writes`): locations reached through any other pointer are apart
    /// from the written one.
    fresh_base: Option<Sym>,
    local_addrs: FxHashMap<(FuncId, LocalId), E>,
    slots: Vec<Slot>,
    at: FxHashMap<(FuncId, NodeId, Ctx), SmallVec<[SlotId; 2]>>,
    work: VecDeque<SlotId>,
    contexts: FxHashMap<ContextKey, Ctx>,
    registrations: FxHashMap<(FuncId, Ctx), Vec<Registration>>,
    summaries: FxHashMap<(FuncId, Ctx), Vec<SlotId>>,
    next_ctx: Ctx,
    transfers: u32,
    refutations: Vec<TraceStep>,
    refuted_nodes: FxHashSet<(FuncId, NodeId)>,
    outcome: Option<Outcome>,
    input_dependent: Option<(FuncId, String)>,
    unsupported: Option<(String, Option<Loc>)>,
    imprecise: Option<(String, Option<Loc>)>,
    probe_func: FuncId,
    probe_node: NodeId,
    probe_note: String,
    /// The witness origin of the slot being processed (facts it inserts inherit it).
    current_witness: Option<SlotId>,
    /// The context of the slot being processed.
    cur_ctx: Ctx,
    /// Per callee context: the callee and its parameters bound to frame-stable arguments.
    bindings: FxHashMap<Ctx, (FuncId, Vec<(LocalId, E)>)>,
    bound_cache: FxHashMap<(Ctx, E), E>,
    stable_params: FxHashMap<FuncId, Vec<LocalId>>,
    /// How many calls deep each context is (NONE is 0).
    ctx_depth: FxHashMap<Ctx, u32>,
    /// MOD sets of callees as regions (`None`: may write anything).
    mod_regions: FxHashMap<FuncId, Option<RegionSet>>,
    /// How each function recurses by pure descent, if it does (see `sites::descent`).
    descents: FxHashMap<FuncId, Option<Arc<super::sites::Descent>>>,
    /// The footprint of each pure-descent function, if it holds (see `footprint`).
    footprints: FxHashMap<FuncId, Option<Arc<Footprint>>>,
    /// The program point whose footprint facts hold for the values being compared: a
    /// statement being applied (facts across it), or the point right after a statement (a
    /// fact being stored there).
    cur_point: Option<(FuncId, NodeId, bool)>,
    /// Contexts on a chain of pure-descent self-calls that starts at a frame of the base
    /// context: the function and its descent parameter.
    chains: FxHashMap<Ctx, (FuncId, LocalId)>,
}

/// Run one probe of function `func` to a verdict.
pub fn run_probe(
    prog: &dyn Program,
    func: FuncId,
    site: &ProbeSite,
    cfg: EngineConfig,
) -> ProbeResult {
    let mut eng = Engine {
        prog,
        cfg,
        a: Arena::new(prog.env(), prog.classes()),
        bodies: FxHashMap::default(),
        temp_deaths: FxHashMap::default(),
        fresh_writes: FxHashMap::default(),
        fresh_base: None,
        local_addrs: FxHashMap::default(),
        slots: vec![],
        at: FxHashMap::default(),
        work: VecDeque::new(),
        contexts: FxHashMap::default(),
        registrations: FxHashMap::default(),
        summaries: FxHashMap::default(),
        next_ctx: 1,
        transfers: 0,
        refutations: vec![],
        refuted_nodes: FxHashSet::default(),
        outcome: None,
        input_dependent: None,
        unsupported: None,
        imprecise: None,
        probe_func: func,
        probe_node: site.node,
        probe_note: probe_note(site),
        current_witness: None,
        cur_ctx: NONE,
        bindings: FxHashMap::default(),
        bound_cache: FxHashMap::default(),
        stable_params: FxHashMap::default(),
        ctx_depth: FxHashMap::default(),
        descents: FxHashMap::default(),
        footprints: FxHashMap::default(),
        cur_point: None,
        chains: FxHashMap::default(),
        mod_regions: FxHashMap::default(),
    };
    eng.start(func, site);
    eng.run();
    eng.finish()
}

fn probe_note(site: &ProbeSite) -> String {
    use super::ProbeKind::*;
    let v = &site.variable;
    match site.kind {
        Assignment | Allocation | AssignedReturn => format!("`{v}` is overwritten"),
        FreeField => format!("freed while `{v}` still points to it"),
        ReturnLocal | ScopeEnd => format!("`{v}` goes out of scope"),
        IgnoredReturn => format!("the result of `{v}` is dropped"),
    }
}

impl<'p> Engine<'p> {
    fn body(&mut self, f: FuncId) -> Arc<FunctionIr> {
        if let Some(b) = self.bodies.get(&f) {
            return b.clone();
        }
        let b = self.prog.body(f);
        self.a.learn_function(f, &b);
        self.bodies.insert(f, b.clone());
        b
    }

    fn local_name(&self, f: FuncId, l: LocalId) -> String {
        self.bodies
            .get(&f)
            .and_then(|b| b.locals.get(l.0 as usize))
            .map(|l| l.name.clone())
            .unwrap_or_else(|| format!("local{}", l.0))
    }

    fn show(&self, e: E) -> String {
        let names = |f: FuncId, l: LocalId| self.local_name(f, l);
        display(&self.a, e, &names)
    }

    fn loc(&self, f: FuncId, n: NodeId) -> Loc {
        Loc { func: f, node: n }
    }

    fn refute(&mut self, f: FuncId, n: NodeId, why: String) {
        if self.current_witness.is_some() {
            return; // a dead witness path is not a refutation of the probe
        }
        if self.refutations.len() < MAX_REFUTATIONS && self.refuted_nodes.insert((f, n)) {
            let loc = self.loc(f, n);
            self.refutations.push(TraceStep { loc, note: why });
        }
    }

    fn stmt_text(&mut self, f: FuncId, n: NodeId) -> String {
        let b = self.body(f);
        display_stmt(&b, &b.node(n).stmt.kind, Notation::C)
    }

    // ---- expressions of the probe -------------------------------------------------------

    /// Translate an IR expression of `f` as seen in the current context (parameter bindings
    /// of the context applied).
    fn tr(&mut self, f: FuncId, e: crate::ir::ExprId) -> E {
        let ctx = self.cur_ctx;
        self.tr_in(f, ctx, e)
    }

    fn tr_in(&mut self, f: FuncId, ctx: Ctx, e: crate::ir::ExprId) -> E {
        let b = self.body(f);
        let x = self.a.translate(f, &b, e);
        self.bind(f, ctx, x)
    }

    /// Expression `x` of `f` with the parameter bindings of context `ctx` applied.
    fn bind(&mut self, f: FuncId, ctx: Ctx, x: E) -> E {
        match self.bindings.get(&ctx) {
            Some((g, binds)) if *g == f && !binds.is_empty() => {
                if let Some(&y) = self.bound_cache.get(&(ctx, x)) {
                    return y;
                }
                let binds = binds.clone();
                let mut y = x;
                for (p, actual) in binds {
                    let pv = self.local_addr(f, p);
                    let pv = self.a.deref(pv);
                    if self.a.contains(y, pv) {
                        y = self.a.substitute(y, pv, actual);
                    }
                }
                self.bound_cache.insert((ctx, x), y);
                y
            }
            _ => x,
        }
    }

    /// Parameters `g` never assigns and whose address it never takes: inside a call they keep
    /// the caller's argument.
    fn stable_params(&mut self, g: FuncId) -> Vec<LocalId> {
        if let Some(v) = self.stable_params.get(&g) {
            return v.clone();
        }
        let b = self.body(g);
        let mut written: FxHashSet<LocalId> = FxHashSet::default();
        let root_local = |e| super::sites::written_local(&b, e);
        for id in b.node_ids() {
            match &b.node(id).stmt.kind {
                StmtKind::Assign { addr, .. } | StmtKind::Alloc { addr, .. } => {
                    written.extend(root_local(*addr));
                }
                StmtKind::Call { dest: Some(d), .. } => written.extend(root_local(*d)),
                StmtKind::Opaque { .. } => return self.remember_stable(g, vec![]),
                _ => {}
            }
        }
        let v: Vec<LocalId> = b
            .params
            .iter()
            .copied()
            .filter(|p| {
                let l = b.local(*p);
                !written.contains(p) && !l.address_taken && l.ty.is_pointer()
            })
            .collect();
        self.remember_stable(g, v)
    }

    fn remember_stable(&mut self, g: FuncId, v: Vec<LocalId>) -> Vec<LocalId> {
        self.stable_params.insert(g, v.clone());
        v
    }

    /// How `g` recurses by pure descent, if it does (see `sites::descent`).
    fn descent(&mut self, g: FuncId) -> Option<Arc<super::sites::Descent>> {
        if let Some(d) = self.descents.get(&g) {
            return d.clone();
        }
        let b = self.body(g);
        let calls = self.self_calls(g);
        let d = super::sites::descent(&b, &calls).map(Arc::new);
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
    fn footprint(&mut self, g: FuncId) -> Option<Arc<Footprint>> {
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
            super::footprint::footprint(&b, &d, &calls, &harmless).map(Arc::new)
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
        known: &super::footprint::Known,
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
    fn frames_apart(&mut self, p: E, q: E) -> bool {
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
    fn chain_link(
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
    fn compress_frames(
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

    /// The regions a function may write, transitively; `None` when it may write anything.
    fn mod_regions(&mut self, g: FuncId) -> Option<RegionSet> {
        if let Some(r) = self.mod_regions.get(&g) {
            return r.clone();
        }
        let m = self.prog.mod_set(g);
        let r = if m.all {
            None
        } else {
            let mut set = RegionSet::empty();
            for name in &m.globals {
                let ty = self
                    .a
                    .env()
                    .globals
                    .get(name)
                    .map(|t| self.a.env().resolve(t))
                    .unwrap_or_default();
                let n = self.a.string(name);
                let addr = self
                    .a
                    .mk(EKind::Addr(Sym::Global(n)), &Type::pointer_to(ty));
                let p = self.a.pt(addr);
                set.union_with(&p);
            }
            for (class, field) in &m.fields {
                let c = self.a.names.class(class);
                let f = self.a.names.name(field);
                set.insert(Region::Field(c, f));
            }
            for class in &m.mems {
                let c = self.a.names.class(class);
                set.insert(Region::Mem(c));
            }
            Some(set)
        };
        self.mod_regions.insert(g, r.clone());
        r
    }

    /// Whether a call can matter to fact `d` beyond growing S: a fact expression reads what
    /// the callee may write (`w`), the destination is read by the fact, or an argument is
    /// (part of) a hit expression.
    fn call_relevant(&mut self, d: &Fact, w: &RegionSet, dest: Option<E>, args: &[E]) -> bool {
        let exprs: Vec<E> =
            d.h.iter()
                .chain(d.m.iter())
                .copied()
                .chain(d.c.iter().map(|c| c.e))
                .chain(d.p.iter().flat_map(|r| [r.l, r.r]))
                .collect();
        if exprs.iter().any(|e| !self.disjoint(*e, w)) {
            return true;
        }
        if let Some(de) = dest {
            let dw = self.a.pt(de);
            if exprs.iter().any(|e| !self.disjoint(*e, &dw)) {
                return true;
            }
        }
        self.arg_holds_hit(d, args)
    }

    fn arg_holds_hit(&self, d: &Fact, args: &[E]) -> bool {
        args.iter().any(|a| {
            d.hits(*a)
                || d.h
                    .iter()
                    .any(|h| self.a.contains(*h, *a) || self.a.contains(*a, *h))
        })
    }

    /// A call applied through what the callee may write (`w`): S grows by its pointer-holding
    /// MOD regions, facts reading them are dropped, the destination gets an unknown value.
    /// `None`: the callee writes no memory that existed before the call, so only the
    /// destination changes.
    fn summarise_call(&mut self, d: &Fact, w: Option<&RegionSet>, dest: Option<E>) -> Option<Fact> {
        let mut cur = match w {
            Some(w) => self.havoc(d, w),
            None => d.clone(),
        };
        if let Some(de) = dest {
            let u = self.a.mk(EKind::Unknown, &Type::Unknown);
            cur = self.assign(&cur, de, u)?;
        }
        cur.normalize();
        Some(cur)
    }

    /// An expression whose value cannot change while a callee runs: numbers, addresses, and
    /// reads of frozen (caller-frame) variables whose address is not taken.
    fn frame_stable(&mut self, e: E) -> bool {
        match *self.a.kind(e) {
            EKind::Int(_) | EKind::Num => true,
            EKind::Addr(Sym::Frozen(..))
            | EKind::Addr(Sym::Global(_))
            | EKind::Addr(Sym::Function(_)) => true,
            EKind::Addr(_) => false,
            EKind::Deref(x) => {
                matches!(self.a.kind(x), EKind::Addr(Sym::Frozen(..))) && {
                    let p = self.a.pt(x);
                    !p.all_memory && p.iter().all(|r| r.is_var())
                }
            }
            EKind::Field(b, _) => matches!(self.a.kind(b), EKind::Addr(Sym::Frozen(..))),
            EKind::Bin(_, l, r) => self.frame_stable(l) && self.frame_stable(r),
            EKind::Unknown => false,
        }
    }

    /// At a descent call of `g` by itself whose footprint holds (see `footprint`): the
    /// caller frame's descent parameter as seen from the callee (`shift` applied). The callee
    /// writes no field of that node, so a field of it keeps its value while the callee runs.
    fn owned_by_caller(
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
    fn field_of(&self, e: E, base: E) -> bool {
        matches!(*self.a.kind(e), EKind::Deref(x)
            if matches!(*self.a.kind(x), EKind::Field(b, _) if b == base))
    }

    fn local_addr(&mut self, f: FuncId, l: LocalId) -> E {
        if let Some(e) = self.local_addrs.get(&(f, l)) {
            return *e;
        }
        let b = self.body(f);
        let ty = b.local(l).ty.clone();
        let e = self.a.addr_local(f, l, &ty);
        self.local_addrs.insert((f, l), e);
        e
    }

    fn field_addr(&mut self, base: E, field: &str) -> E {
        let sty = self
            .a
            .env()
            .resolve(&self.a.ty(base).pointee().cloned().unwrap_or_default());
        let fty = self.a.env().field_type(&sty, field);
        let n = self.a.string(field);
        self.a.mk(EKind::Field(base, n), &Type::pointer_to(fty))
    }

    fn place(&mut self, f: FuncId, p: &Place) -> E {
        let mut addr = match p.root {
            Root::Addr(a) => self.tr(f, a),
            Root::Local(l) => self.local_addr(f, l),
            Root::PointedBy(v) => self.tr(f, v),
        };
        for fld in &p.fields {
            addr = self.field_addr(addr, fld);
        }
        addr
    }

    fn zero(&mut self) -> E {
        self.a.int(0)
    }

    // ---- helpers of Figure 2 and disjointness --------------------------------------------

    /// `e # w`: no memory read of `e` is in `w` (or, writing a fresh block, none reads it).
    fn disjoint(&mut self, e: E, w: &RegionSet) -> bool {
        if !self.a.reads(e).intersects(w) {
            return true;
        }
        let Some(n) = self.fresh_base else {
            return false;
        };
        let mut mems: SmallVec<[E; 8]> = SmallVec::new();
        self.a.mems(e, &mut mems);
        mems.into_iter().all(|m| match *self.a.kind(m) {
            EKind::Deref(x) => !self.a.pt(x).intersects(w) || self.apart_from_fresh(x, n),
            _ => true,
        })
    }

    /// Whether the location at address `x` is outside the fresh block of local `n`: its
    /// block pointer is a variable's address, or a value read from any location but `n`
    /// (no other location holds a pointer into that block).
    fn apart_from_fresh(&self, x: E, n: Sym) -> bool {
        let mut z = x;
        loop {
            match *self.a.kind(z) {
                EKind::Field(b, _) => z = b,
                EKind::Bin(crate::ir::BinOp::Add | crate::ir::BinOp::Sub, l, _)
                    if self.a.ty(l).is_pointer_like() =>
                {
                    z = l
                }
                _ => break,
            }
        }
        match *self.a.kind(z) {
            EKind::Addr(_) | EKind::Int(_) | EKind::Num => true,
            // A value read from anywhere but `n` itself: no other location holds a pointer
            // into the block.
            EKind::Deref(a) => {
                !matches!(*self.a.kind(a), EKind::Addr(s) if s == n) && !self.has_unknown(a)
            }
            EKind::Bin(..) | EKind::Field(..) | EKind::Unknown => false,
        }
    }

    /// The local whose fresh block statement `node` of `func` writes, if any.
    fn fresh_write(&mut self, func: FuncId, node: NodeId) -> Option<Sym> {
        let prog = self.prog;
        let fw = self
            .fresh_writes
            .entry(func)
            .or_insert_with(|| prog.fresh_writes(func));
        fw.get(&node).map(|l| Sym::Local(func, *l))
    }

    /// `Miss(e, d)`, or `e` is a location of tagged regions that is none of their tag
    /// locations (a tagged region holds references only at its tags).
    fn misses(&mut self, d: &Fact, e: E) -> bool {
        miss(&mut self.a, d, e) || self.outside_tags(d, e)
    }

    /// Whether location `e` is in tagged regions of S only, and differs from each of their
    /// tag locations: then it holds no reference to the cell.
    fn outside_tags(&mut self, d: &Fact, e: E) -> bool {
        if d.t.is_empty() || d.s.all_memory {
            return false;
        }
        let EKind::Deref(x) = *self.a.kind(e) else {
            return false;
        };
        let p = self.a.pt(x);
        if p.all_memory {
            return false;
        }
        for r in p.iter() {
            if !d.s.contains(r) {
                continue;
            }
            let tags: SmallVec<[E; 4]> = d.tags_of(r).iter().map(|(_, y)| *y).collect();
            if tags.is_empty() {
                return false;
            }
            for y in tags {
                let Some(ya) = self.addr_of(y) else {
                    return false;
                };
                if !self.distinct_addrs(d, x, ya) {
                    return false;
                }
            }
        }
        true
    }

    /// Whether addresses `x` and `y` are different locations: the same field of two blocks
    /// whose pointers differ.
    fn distinct_addrs(&mut self, d: &Fact, x: E, y: E) -> bool {
        match (*self.a.kind(x), *self.a.kind(y)) {
            (EKind::Field(p, f), EKind::Field(q, g)) if f == g && p != q => {
                self.distinct_values(d, p, q)
            }
            _ => false,
        }
    }

    /// Whether pointer values `p` and `q` differ: one is the fresh block being written and
    /// the other cannot point into it, or one references the cell and the other does not.
    fn distinct_values(&mut self, d: &Fact, p: E, q: E) -> bool {
        if let Some(n) = self.fresh_base {
            let is_n = |a: &Arena, v: E| matches!(*a.kind(v), EKind::Deref(b) if matches!(*a.kind(b), EKind::Addr(s) if s == n));
            if (is_n(&self.a, p) && self.apart_from_fresh(q, n))
                || (is_n(&self.a, q) && self.apart_from_fresh(p, n))
            {
                return true;
            }
        }
        d.p.contains(&PtrRel::new(p, q, false))
            || (d.hits(p) && miss(&mut self.a, d, q))
            || (d.hits(q) && miss(&mut self.a, d, p))
            || self.frames_apart(p, q)
    }

    /// Whether location `e` of the fact is known not to be the written location `*e0`,
    /// though the regions overlap: neither address changes, and they differ.
    fn apart_from_target(&mut self, d: &Fact, e: E, e0: E, w: &RegionSet) -> bool {
        let EKind::Deref(x) = *self.a.kind(e) else {
            return false;
        };
        self.unchanged_by(x, w, e0) && self.unchanged_by(e0, w, e0) && self.distinct_addrs(d, x, e0)
    }

    /// Whether address `e` keeps its value across a write to location `*e0` in `w`: each
    /// memory read in it is outside `w`, or at an address that keeps its value and is another
    /// location than `*e0` by facts that hold before and after the write (the footprint and
    /// the chain, see `frames_apart`).
    fn unchanged_by(&mut self, e: E, w: &RegionSet, e0: E) -> bool {
        if self.disjoint(e, w) {
            return true;
        }
        match *self.a.kind(e) {
            EKind::Deref(a) => {
                a != e0
                    && self.unchanged_by(a, w, e0)
                    && match (*self.a.kind(a), *self.a.kind(e0)) {
                        (EKind::Field(p, f), EKind::Field(q, g)) => {
                            f == g && self.frames_apart(p, q)
                        }
                        _ => false,
                    }
            }
            EKind::Field(b, _) => self.unchanged_by(b, w, e0),
            EKind::Bin(_, l, r) => self.unchanged_by(l, w, e0) && self.unchanged_by(r, w, e0),
            EKind::Int(_) | EKind::Num | EKind::Addr(_) => true,
            EKind::Unknown => false,
        }
    }

    /// `e` past the write `*e0 ← e1` to `w`, like a miss expression (FILTER1, FILTER4,
    /// SUBST1); `None` when the write may change it.
    fn past_write(&mut self, e: E, w: &RegionSet, target: E, e1: E) -> Option<E> {
        if self.disjoint(e, w) {
            return Some(e);
        }
        if e == e1
            && let EKind::Deref(x) = *self.a.kind(e)
            && self.disjoint(x, w)
        {
            return Some(e);
        }
        if self.a.contains(e, target) && self.context_disjoint(e, target, w) {
            return Some(self.a.substitute(e, target, e1));
        }
        None
    }

    /// A relation between `l` and `r` added to `f`: evaluated when both are numbers, a
    /// constraint when one is, nothing when a value is unknown. `false`: it cannot hold.
    fn add_rel(&mut self, f: &mut Fact, l: E, r: E, eq: bool) -> bool {
        let rel = if eq { Rel::Eq } else { Rel::Ne };
        match (*self.a.kind(l), *self.a.kind(r)) {
            (EKind::Int(a), EKind::Int(b)) => return (a == b) == eq,
            (EKind::Num | EKind::Unknown, _) | (_, EKind::Num | EKind::Unknown) => {}
            (EKind::Int(k), _) => f.c.push(Constraint { e: r, rel, k }),
            (_, EKind::Int(k)) => f.c.push(Constraint { e: l, rel, k }),
            _ => f.p.push(PtrRel::new(l, r, eq)),
        }
        true
    }

    /// A hit location in the written field of another block, which the write may or may not
    /// reach: `(its address, its block pointer, the written block pointer)`. The assignment
    /// is then split on whether the two block pointers are equal.
    fn split_candidate(&mut self, d: &Fact, e0: E, e1: E) -> Option<(E, E, E)> {
        if d.p.len() >= MAX_RELS || d.h.is_empty() {
            return None;
        }
        let EKind::Field(q, f) = *self.a.kind(e0) else {
            return None;
        };
        if self.has_unknown(q) {
            return None;
        }
        let w = self.a.pt(e0);
        if w.all_memory || !self.disjoint(e0, &w) {
            return None;
        }
        // FILTER2 keeps every hit when the written value misses.
        if self.disjoint(e1, &w) && self.misses(d, e1) {
            return None;
        }
        let target = self.a.deref(e0);
        for e in d.h.clone() {
            if e == target {
                continue;
            }
            let EKind::Deref(x) = *self.a.kind(e) else {
                continue;
            };
            let EKind::Field(p, g) = *self.a.kind(x) else {
                continue;
            };
            if g != f || p == q || self.has_unknown(p) {
                continue;
            }
            if self.disjoint(e, &w) || !self.disjoint(x, &w) {
                continue;
            }
            if self.distinct_values(d, p, q) || d.p.contains(&PtrRel::new(p, q, true)) {
                continue;
            }
            return Some((x, p, q));
        }
        None
    }

    /// `*e0 ← e1`, split when a hit location may or may not be the written one (see
    /// `split_candidate`): one case writes that very location (`p == q`), the other leaves
    /// it alone (`p != q`). Each case that is not contradicted is returned.
    fn assign_split(&mut self, d: &Fact, e0: E, e1: E) -> SmallVec<[Fact; 2]> {
        let mut out = SmallVec::new();
        match self.split_candidate(d, e0, e1) {
            Some((x, p, q)) => {
                for eq in [true, false] {
                    let mut c = d.clone();
                    c.p.push(PtrRel::new(p, q, eq));
                    c.assumed |= eq;
                    c.normalize();
                    let dest = if eq { x } else { e0 };
                    out.extend(self.assign(&c, dest, e1));
                }
            }
            None => out.extend(self.assign(d, e0, e1)),
        }
        out
    }

    /// `E[*e0] # w`: every memory read of `e` other than the occurrences of `target` itself is
    /// disjoint from `w` (reads inside `target`'s address are checked too).
    fn context_disjoint(&mut self, e: E, target: E, w: &RegionSet) -> bool {
        let mut mems: SmallVec<[E; 8]> = SmallVec::new();
        self.a.mems(e, &mut mems);
        let e0 = self.addr_of(target);
        mems.into_iter().all(|m| {
            if m == target {
                return true;
            }
            match *self.a.kind(m) {
                EKind::Deref(x) => {
                    !self.a.pt(x).intersects(w)
                        || self.fresh_base.is_some_and(|n| self.apart_from_fresh(x, n))
                        || e0.is_some_and(|e0| self.unchanged_by(m, w, e0))
                }
                _ => true,
            }
        })
    }

    fn finish_fact(&mut self, mut f: Fact) -> Option<Fact> {
        f.normalize();
        apply_tags(&mut self.a, &mut f);
        if infeasible(&mut self.a, &f) {
            return None;
        }
        cleanup(&mut self.a, &mut f);
        if f.h.iter().any(|e| self.has_unknown(*e)) {
            f.tainted = true;
        }
        Some(f)
    }

    fn has_unknown(&self, e: E) -> bool {
        match self.a.kind(e) {
            EKind::Unknown => true,
            EKind::Deref(x) | EKind::Field(x, _) => self.has_unknown(*x),
            EKind::Bin(_, l, r) => self.has_unknown(*l) || self.has_unknown(*r),
            _ => false,
        }
    }

    /// S grows by the regions of `w` that may hold a pointer: memory written at location
    /// `loc` (the region is tagged with it, see [`Fact::add_written`]) or, with `None`, written
    /// somewhere unknown (the region becomes ⊤).
    fn grow_s(&mut self, f: &mut Fact, w: &RegionSet, loc: Option<E>) {
        for r in w.iter() {
            if self.a.may_hold_pointer(r) {
                f.add_written(r, loc);
            }
        }
        if w.all_memory {
            // A write that may land anywhere (through a pointer of unknown type): past it,
            // the facts no longer say where other references could be, so an allocation
            // reached from here is not evidence of a leak.
            f.s.all_memory = true;
            f.tainted = true;
        }
        f.normalize_tags();
    }

    /// The address `x` of a location `*x` (`None` for anything else).
    fn addr_of(&self, e: E) -> Option<E> {
        match *self.a.kind(e) {
            EKind::Deref(x) => Some(x),
            _ => None,
        }
    }

    /// The tags past a write to `w` (§4.8): a tag location whose address the write does not
    /// change stays; for `*e0 ← e1` (`subst` is `(*e0, e1)`), one whose address reads `*e0`
    /// is rewritten like SUBST1; any other makes its region ⊤.
    fn tags_past_write(
        &mut self,
        t: &[(Region, E)],
        w: &RegionSet,
        subst: Option<(E, E)>,
    ) -> SmallVec<[(Region, E); 2]> {
        let mut kept: SmallVec<[(Region, E); 2]> = SmallVec::new();
        let mut top: SmallVec<[Region; 2]> = SmallVec::new();
        let e0 = subst.and_then(|(target, _)| self.addr_of(target));
        for &(r, x) in t {
            let Some(addr) = self.addr_of(x) else {
                top.push(r);
                continue;
            };
            if self.disjoint(addr, w) || e0.is_some_and(|e0| self.unchanged_by(addr, w, e0)) {
                kept.push((r, x));
                continue;
            }
            match subst {
                Some((target, e1))
                    if self.a.contains(addr, target) && self.context_disjoint(addr, target, w) =>
                {
                    let a2 = self.a.substitute(addr, target, e1);
                    let x2 = self.a.deref(a2);
                    kept.push((r, x2));
                }
                _ => top.push(r),
            }
        }
        kept.retain(|(r, _)| !top.contains(r));
        kept
    }

    // ---- transfer functions ---------------------------------------------------------------

    /// `*e0 ← e1` (Figure 3). `None` is ⊥ (a contradiction).
    fn assign(&mut self, d: &Fact, e0: E, e1: E) -> Option<Fact> {
        let w = self.a.pt(e0);
        let target = self.a.deref(e0);
        // The pre-state: S, its tags and the taint first (`grow_s` sets the taint when the
        // write may land anywhere); H, M and the constraints are derived below.
        let mut f = Fact {
            s: d.s.clone(),
            h: SmallVec::new(),
            m: SmallVec::new(),
            c: SmallVec::new(),
            t: self.tags_past_write(&d.t, &w, Some((target, e1))),
            p: SmallVec::new(),
            tainted: d.tainted,
            assumed: d.assumed,
        };
        f.normalize_tags();
        self.grow_s(&mut f, &w, Some(target));
        let e1_disjoint = self.disjoint(e1, &w);
        let e1_misses = self.misses(d, e1);
        let e1_hits = d.hits(e1);
        let e0_disjoint = self.disjoint(e0, &w);
        let mut h2: Vec<E> = Vec::new();
        let mut m2: Vec<E> = Vec::new();
        for (sign_hit, list) in [(true, d.h.clone()), (false, d.m.clone())] {
            for e in list {
                let out = if sign_hit { &mut h2 } else { &mut m2 };
                // FILTER1 (or known to be another location than the written one)
                if self.disjoint(e, &w) || self.apart_from_target(d, e, e0, &w) {
                    out.push(e);
                } else if let EKind::Deref(x) = *self.a.kind(e) {
                    let x_disjoint = self.unchanged_by(x, &w, e0);
                    // FILTER4: the right-hand side keeps its value if it is overwritten by it.
                    if e == e1 && x_disjoint {
                        out.push(e);
                    } else if x_disjoint && e1_disjoint {
                        // FILTER2 / FILTER3: the written value's status differs from e's, so e
                        // is not the written location.
                        if (sign_hit && e1_misses) || (!sign_hit && e1_hits) {
                            out.push(e);
                        }
                    }
                }
                // SUBST1
                if self.a.contains(e, target) && self.context_disjoint(e, target, &w) {
                    let s = self.a.substitute(e, target, e1);
                    let out = if sign_hit { &mut h2 } else { &mut m2 };
                    out.push(s);
                }
            }
        }
        // SUBST2: the written location missed, so the written value misses.
        if (e0_disjoint || self.unchanged_by(e0, &w, e0)) && self.misses(d, target) {
            m2.push(e1);
        }
        // Constraints transform like miss expressions (FILTER1, FILTER4, SUBST1); a constraint
        // whose expression becomes a constant is evaluated.
        let mut c2: SmallVec<[Constraint; 2]> = SmallVec::new();
        for c in d.c.clone() {
            let Some(e2) = self.past_write(c.e, &w, target, e1) else {
                continue;
            };
            match *self.a.kind(e2) {
                EKind::Int(v) => {
                    if !c.rel.eval(v, c.k) {
                        return None;
                    }
                }
                EKind::Num | EKind::Unknown => {}
                _ => c2.push(Constraint { e: e2, ..c }),
            }
        }
        f.h = h2.into_iter().collect();
        f.m = m2.into_iter().collect();
        f.c = c2;
        // Relations transform like constraints; one side becoming a number makes a constraint.
        for r in d.p.clone() {
            let (Some(l), Some(rr)) = (
                self.past_write(r.l, &w, target, e1),
                self.past_write(r.r, &w, target, e1),
            ) else {
                continue;
            };
            if !self.add_rel(&mut f, l, rr, r.eq) {
                return None;
            }
        }
        f.normalize();
        self.finish_fact(f)
    }

    /// `*e0 ← alloc`.
    fn alloc(&mut self, d: &Fact, e0: E) -> AllocResult {
        let w = self.a.pt(e0);
        let target = self.a.deref(e0);
        let unaliased_hit = d.h.clone().into_iter().any(|e| match *self.a.kind(e) {
            EKind::Deref(x) => !self.a.pt(x).intersects(&w),
            _ => false,
        });
        let e0_disjoint = self.disjoint(e0, &w);
        if unaliased_hit && d.hits(target) && e0_disjoint {
            return AllocResult::Contradiction;
        }
        if unaliased_hit || (self.misses(d, target) && e0_disjoint) {
            // Another block (or NULL) lands in `*e0`: like the paper's `*e0 ← 0` for hits and
            // misses, but its value is unknown to the constraints.
            let fresh = self.a.mk(EKind::Num, &Type::Int);
            return match self.assign(d, e0, fresh) {
                Some(f) => AllocResult::Continue(Box::new(f)),
                None => AllocResult::Contradiction,
            };
        }
        AllocResult::Validated {
            evidence: d.hits(target),
        }
    }

    /// `free(e)`: the cell is not the freed block, and the references the block held die
    /// with it. Backwards, the block's pointer fields are written with NULL (`*e.f ← 0`), so
    /// before the free they may have referenced the cell. Through an untyped pointer
    /// (`void *`, `char *`) the block's layout is unknown and its contents are assumed to hold
    /// no reference (an unsound assumption listed in ARCHITECTURE.md).
    fn free(&mut self, d: &Fact, e: E) -> Option<Fact> {
        if d.hits(e) {
            return None;
        }
        let mut f = d.clone();
        if !miss(&mut self.a, d, e) {
            f.m.push(e);
            f.normalize();
        }
        let pointee = self
            .a
            .env()
            .resolve(&self.a.ty(e).pointee().cloned().unwrap_or_default());
        if pointee.is_pointer() || pointee.is_aggregate() {
            return self.nullify_typed(&f, e, &pointee, 0);
        }
        Some(f)
    }

    /// `cond(l op r)`.
    fn cond(&mut self, d: &Fact, l: E, op: CmpOp, r: E) -> Option<Fact> {
        let mut f = d.clone();
        match op {
            CmpOp::Eq => {
                if d.hits(l) {
                    f.h.push(r);
                }
                if d.hits(r) {
                    f.h.push(l);
                }
                if miss(&mut self.a, d, l) {
                    f.m.push(r);
                }
                if miss(&mut self.a, d, r) {
                    f.m.push(l);
                }
            }
            CmpOp::Ne => {
                if d.hits(l) {
                    f.m.push(r);
                }
                if d.hits(r) {
                    f.m.push(l);
                }
            }
            _ => {}
        }
        let rel = Rel::from_cmp(op);
        match (*self.a.kind(l), *self.a.kind(r)) {
            (EKind::Int(a), EKind::Int(b)) if !rel.eval(a, b) => {
                return None;
            }
            (_, EKind::Int(k)) if !matches!(self.a.kind(l), EKind::Num | EKind::Unknown) => {
                f.c.push(Constraint { e: l, rel, k })
            }
            (EKind::Int(k), _) if !matches!(self.a.kind(r), EKind::Num | EKind::Unknown) => {
                f.c.push(Constraint {
                    e: r,
                    rel: rel.flip(),
                    k,
                })
            }
            _ => {
                if matches!(op, CmpOp::Eq | CmpOp::Ne)
                    && l != r
                    && f.p.len() < MAX_RELS
                    && super::expr::is_pointerish(self.a.ty(l))
                    && super::expr::is_pointerish(self.a.ty(r))
                    && !self.has_unknown(l)
                    && !self.has_unknown(r)
                {
                    f.p.push(PtrRel::new(l, r, op == CmpOp::Eq));
                }
            }
        }
        f.normalize();
        self.finish_fact(f)
    }

    fn mentions_locals(&self, e: E, f: FuncId, locals: &FxHashSet<LocalId>) -> bool {
        self.a.mentions(
            e,
            &|s| matches!(s, Sym::Local(g, l) if g == f && locals.contains(&l)),
        )
    }

    /// `scope(x)` for each local: a fresh variable cannot point to the cell (⊥ if it hits);
    /// otherwise facts about it are forgotten.
    fn scope_begin(&mut self, d: &Fact, f: FuncId, locals: &[LocalId]) -> Option<Fact> {
        let set: FxHashSet<LocalId> = locals.iter().copied().collect();
        if d.h.iter().any(|e| self.mentions_locals(*e, f, &set)) {
            return None;
        }
        let mut out = d.clone();
        out.m.retain(|e| !self.mentions_locals(*e, f, &set));
        out.c.retain(|c| !self.mentions_locals(c.e, f, &set));
        out.p
            .retain(|r| !self.mentions_locals(r.l, f, &set) && !self.mentions_locals(r.r, f, &set));
        // A tag location read through a local whose scope begins names nothing before it.
        for &(r, x) in &d.t {
            if self.mentions_locals(x, f, &set) {
                out.untag(r);
            }
        }
        let mut drop_regions = Vec::new();
        for r in out.s.iter() {
            if let Region::Var(i) = r
                && let VarRoot::Local(g, l) = &self.a.names.var_path(i).root
                && *g == f
                && set.contains(l)
            {
                drop_regions.push(r);
            }
        }
        // Variables' regions carry no tags (see `Fact::t`): removing them leaves the tags as
        // they are.
        for r in drop_regions {
            out.s.remove(r);
        }
        Some(out)
    }

    /// A local's value dies (scope end): `*a_x ← 0` for each pointer it holds.
    fn nullify_local(&mut self, d: &Fact, f: FuncId, l: LocalId) -> Option<Fact> {
        let b = self.body(f);
        let local = b.local(l);
        if matches!(local.kind, LocalKind::Return) {
            return Some(d.clone());
        }
        let ty = self.a.env().resolve(&local.ty);
        let addr = self.local_addr(f, l);
        self.nullify_typed(d, addr, &ty, 0)
    }

    fn nullify_typed(&mut self, d: &Fact, addr: E, ty: &Type, depth: u32) -> Option<Fact> {
        match ty {
            Type::Pointer(_) | Type::Unknown | Type::Named(_) => {
                let z = self.zero();
                self.assign(d, addr, z)
            }
            t if t.is_aggregate() && depth < 3 => {
                let Some(def) = self.a.env().struct_def(t).cloned() else {
                    return Some(d.clone());
                };
                let mut cur = d.clone();
                for fd in &def.fields {
                    let fty = self.a.env().resolve(&fd.ty);
                    if fty.is_pointer() || fty.is_aggregate() {
                        let fa = self.field_addr(addr, &fd.name);
                        cur = self.nullify_typed(&cur, fa, &fty, depth + 1)?;
                    }
                }
                Some(cur)
            }
            Type::Array(elem, _) if elem.is_pointer() => {
                // The elements die with the array: they may have held references.
                let idx = self.a.mk(EKind::Num, &Type::Int);
                let ea = self.a.mk(
                    EKind::Bin(crate::ir::BinOp::Add, addr, idx),
                    &Type::pointer_to((**elem).clone()),
                );
                let w = self.a.pt(ea);
                let mut out = d.clone();
                self.grow_s(&mut out, &w, None);
                Some(out)
            }
            _ => Some(d.clone()),
        }
    }

    /// Memory in `w` may be overwritten with anything: facts reading it are forgotten and its
    /// regions may hold pointers to the cell.
    fn havoc(&mut self, d: &Fact, w: &RegionSet) -> Fact {
        let mut out = d.clone();
        out.t = self.tags_past_write(&d.t, w, None);
        self.grow_s(&mut out, w, None);
        let keep = |eng: &mut Self, e: E| eng.disjoint(e, w);
        let h = out.h.clone();
        out.h = h.into_iter().filter(|e| keep(self, *e)).collect();
        let m = out.m.clone();
        out.m = m.into_iter().filter(|e| keep(self, *e)).collect();
        let c = out.c.clone();
        out.c = c.into_iter().filter(|c| keep(self, c.e)).collect();
        let p = out.p.clone();
        out.p = p
            .into_iter()
            .filter(|r| keep(self, r.l) && keep(self, r.r))
            .collect();
        out
    }

    /// A call to a function without a body (library or unknown). `dest` is written unless
    /// `skip_dest` (the probe of that very write).
    fn bodyless_call(
        &mut self,
        d: &Fact,
        name: Option<&str>,
        dest: Option<E>,
        args: &[E],
        skip_dest: bool,
    ) -> Result<Fact, String> {
        if let Some(n) = name
            && is_noreturn(n)
        {
            return Err(format!("`{n}` does not return"));
        }
        let known = name.and_then(known_function);
        let mut cur = d.clone();
        let value = match known {
            Some(k) => {
                if k.writes_first_argument
                    && let Some(&a0) = args.first()
                    && self.a.ty(a0).pointee().is_some()
                {
                    let w = self.a.pt(a0);
                    cur = self.havoc(&cur, &w);
                }
                match k.returns {
                    Returns::Number => self.a.mk(EKind::Num, &Type::Int),
                    Returns::FirstArgument => match args.first() {
                        Some(&a0) => a0,
                        None => self.a.mk(EKind::Unknown, &Type::Unknown),
                    },
                    Returns::StaticMemory => {
                        let s = self.a.string("<library static memory>");
                        self.a.mk(
                            EKind::Addr(Sym::Global(s)),
                            &Type::pointer_to(Type::Unknown),
                        )
                    }
                }
            }
            None => {
                let callee = name.unwrap_or("a function pointer");
                if self.cfg.unknown_calls_escape {
                    for &arg in args {
                        if !super::expr::is_pointerish(self.a.ty(arg)) {
                            continue;
                        }
                        if cur.h.iter().any(|h| self.a.contains(*h, arg)) {
                            return Err(format!(
                                "it is passed to `{callee}`, which has no body here: it escapes"
                            ));
                        }
                        if !miss(&mut self.a, &cur, arg) {
                            cur.m.push(arg);
                        }
                    }
                }
                let mut w = RegionSet::empty();
                for &arg in args {
                    if self.a.ty(arg).pointee().is_some() {
                        let p = self.a.pt(arg);
                        w.union_with(&p);
                    }
                }
                // With `unknown-calls-escape = false` the user vouches for unknown callees:
                // they may write anything, but that alone does not make a leak unsure.
                let vouched = !self.cfg.unknown_calls_escape && !w.all_memory;
                if !self.cfg.unknown_calls_escape {
                    w = RegionSet::all_memory();
                }
                cur.normalize();
                let was = cur.tainted;
                cur = self.havoc(&cur, &w);
                if vouched {
                    cur.tainted = was;
                }
                self.a.mk(EKind::Unknown, &Type::Unknown)
            }
        };
        cur.normalize();
        if let Some(dest) = dest
            && !skip_dest
        {
            return match self.assign(&cur, dest, value) {
                Some(f) => Ok(f),
                None => Err("the call's result contradicts it".into()),
            };
        }
        match self.finish_fact(cur) {
            Some(f) => Ok(f),
            None => Err("contradiction at the call".into()),
        }
    }

    // ---- the worklist ---------------------------------------------------------------------

    fn insert(&mut self, func: FuncId, node: NodeId, ctx: Ctx, fact: Fact, prov: Prov) {
        let witness = self.current_witness;
        self.insert_w(func, node, ctx, fact, prov, witness)
    }

    fn insert_w(
        &mut self,
        func: FuncId,
        node: NodeId,
        ctx: Ctx,
        fact: Fact,
        prov: Prov,
        witness_of: Option<SlotId>,
    ) {
        if self.outcome.is_some() {
            return;
        }
        if fact.s.len() as u32 > self.cfg.max_regions {
            self.outcome = Some(Outcome::Budget(format!(
                "the region set grew past {} regions",
                self.cfg.max_regions
            )));
            return;
        }
        let saved = (self.cur_point.replace((func, node, true)), self.cur_ctx);
        self.cur_ctx = ctx;
        let apart = fact
            .p
            .iter()
            .find(|r| r.eq && self.frames_apart(r.l, r.r))
            .cloned();
        (self.cur_point, self.cur_ctx) = saved;
        if let Some(r) = apart {
            let why = format!(
                "`{}` would be passed again to a call of `{}` that is still running, which would then never return",
                self.show(r.l),
                self.prog.function_name(func)
            );
            self.refute(func, node, why);
            return;
        }
        let mut index = fact.index(&mut self.a);
        index.witness = witness_of.is_some();
        let key = (func, node, ctx);
        if let Some(ids) = self.at.get(&key) {
            let full = ids.len() >= MAX_SLOTS_PER_POINT;
            let target = ids
                .iter()
                .copied()
                .find(|id| self.slots[*id as usize].index == index)
                .or_else(|| {
                    full.then(|| {
                        ids.iter()
                            .copied()
                            .find(|id| self.slots[*id as usize].index.regions == index.regions)
                    })
                    .flatten()
                });
            if let Some(id) = target {
                let changed = self.slots[id as usize].fact.join(&fact);
                if changed && !self.slots[id as usize].queued {
                    self.slots[id as usize].queued = true;
                    self.work.push_back(id);
                }
                return;
            }
        }
        let id = self.slots.len() as SlotId;
        self.slots.push(Slot {
            func,
            node,
            ctx,
            index,
            fact,
            prov,
            queued: true,
            witness_of,
        });
        self.at.entry(key).or_default().push(id);
        self.work.push_back(id);
    }

    fn insert_preds(&mut self, func: FuncId, node: NodeId, ctx: Ctx, fact: Fact, prov: Prov) {
        let b = self.body(func);
        for &p in &b.node(node).preds {
            let Some(f) = self.after_temp_deaths(func, p, &fact) else {
                continue;
            };
            self.insert(func, p, ctx, f, prov.clone());
        }
    }

    /// The fact right after statement `node` of `func`, before the temporaries that die there
    /// are cleared (`t ← 0` for each, backwards). `None`: a dead temporary would be the
    /// reference, which C does not have.
    fn after_temp_deaths(&mut self, func: FuncId, node: NodeId, fact: &Fact) -> Option<Fact> {
        let prog = self.prog;
        let deaths = self
            .temp_deaths
            .entry(func)
            .or_insert_with(|| prog.temp_deaths(func))
            .clone();
        let Some(ts) = deaths.get(&node) else {
            return Some(fact.clone());
        };
        let mut cur = fact.clone();
        for &t in ts {
            let addr = self.local_addr(func, t);
            let sym = Sym::Local(func, t);
            let mentioned = cur
                .h
                .iter()
                .chain(cur.m.iter())
                .copied()
                .chain(cur.c.iter().map(|c| c.e))
                .chain(cur.p.iter().flat_map(|r| [r.l, r.r]))
                .chain(cur.t.iter().map(|(_, x)| *x))
                .any(|e| self.a.mentions(e, &|s| s == sym));
            if !mentioned {
                // What `assign` would do to a fact that does not read `t`: S grows by its
                // region (tagged with `t`), nothing else changes.
                let w = self.a.pt(addr);
                let loc = self.a.deref(addr);
                self.grow_s(&mut cur, &w, Some(loc));
                continue;
            }
            let z = self.zero();
            cur = self.assign(&cur, addr, z)?;
        }
        Some(cur)
    }

    fn start(&mut self, func: FuncId, site: &ProbeSite) {
        let b = self.body(func);
        let node = site.node;
        match &site.subject {
            Subject::Location {
                place,
                new_value,
                prefix,
            } => {
                let addr = self.place(func, place);
                let loc = self.a.deref(addr);
                let s0 = self.a.pt(addr);
                let mut m0 = Vec::new();
                if let Some(v) = new_value {
                    m0.push(self.tr(func, *v));
                }
                // `free(p)` dropping the references its block held: the cell is not that block
                // (a freed block is not leaked).
                if let StmtKind::Free { ptr } = &b.node(node).stmt.kind {
                    m0.push(self.tr(func, *ptr));
                }
                let f0 = Fact::probe(s0, loc, m0);
                let Some(mut f) = self.finish_fact(f0) else {
                    self.refute(func, node, "the new value is the same reference".into());
                    return;
                };
                for p in prefix.iter().rev() {
                    let pa = self.place(func, p);
                    let z = self.zero();
                    match self.assign(&f, pa, z) {
                        Some(g) => f = g,
                        None => {
                            self.refute(func, node, "another reference dies here too".into());
                            return;
                        }
                    }
                }
                match site.start {
                    Start::Before => self.insert_preds(func, node, NONE, f, Prov::Start),
                    Start::After => self.insert(func, node, NONE, f, Prov::Start),
                }
            }
            Subject::CallResult { dest } => {
                let StmtKind::Call {
                    callee,
                    args,
                    dest: _,
                } = &b.node(node).stmt.kind
                else {
                    return;
                };
                let dest_e = dest.map(|d| self.tr(func, d));
                let args_e: Vec<E> = args.iter().map(|a| self.tr(func, *a)).collect();
                let target = match callee {
                    Callee::Direct(n) => self.prog.resolve(func, n),
                    Callee::Indirect(_) => None,
                };
                match target {
                    Some(g) => {
                        let gb = self.body(g);
                        let Some(r) = gb.ret else {
                            return;
                        };
                        let mut ret_addr = self.local_addr(g, r);
                        if g == func {
                            // A recursive call: see `at_call`.
                            let ty = self.a.ty(ret_addr).clone();
                            ret_addr = self.a.mk(EKind::Addr(Sym::Frozen(0, g, r)), &ty);
                        }
                        let ret_val = self.a.deref(ret_addr);
                        // The fact right before M2 (`*dest ← ret`) or M3 (`ret ← 0`).
                        let f0 = match dest_e {
                            Some(d) => {
                                let s0 = self.a.pt(d);
                                let loc = self.a.deref(d);
                                Fact::probe(s0, loc, [ret_val])
                            }
                            None => {
                                let s0 = self.a.pt(ret_addr);
                                Fact::probe(s0, ret_val, [])
                            }
                        };
                        let Some(f0) = self.finish_fact(f0) else {
                            self.refute(func, node, "the result is the same reference".into());
                            return;
                        };
                        self.enter_callee(func, node, NONE, f0, g, None, true, Frames::Exact);
                    }
                    None => {
                        // A body-less callee: the old value is lost when the result lands.
                        let Some(d) = dest_e else { return };
                        let s0 = self.a.pt(d);
                        let loc = self.a.deref(d);
                        let f0 = Fact::probe(s0, loc, []);
                        let Some(f0) = self.finish_fact(f0) else {
                            return;
                        };
                        let name = match callee {
                            Callee::Direct(n) => Some(n.clone()),
                            Callee::Indirect(_) => None,
                        };
                        match self.bodyless_call(&f0, name.as_deref(), Some(d), &args_e, true) {
                            Ok(f) => self.insert_preds(func, node, NONE, f, Prov::Start),
                            Err(why) => self.refute(func, node, why),
                        }
                    }
                }
            }
        }
    }

    /// Rename every symbol of a fact; expressions (and constraints) whose rename is `None`
    /// are dropped, which only loses information.
    fn rename_fact(&mut self, d: &Fact, f: &dyn Fn(Sym) -> Option<Sym>) -> Fact {
        let mut out = Fact {
            s: RegionSet::empty(),
            h: SmallVec::new(),
            m: SmallVec::new(),
            c: SmallVec::new(),
            t: SmallVec::new(),
            p: SmallVec::new(),
            tainted: d.tainted,
            assumed: d.assumed,
        };
        for r in &d.p {
            if let (Some(l), Some(x)) = (self.a.rename(r.l, f), self.a.rename(r.r, f)) {
                out.p.push(PtrRel::new(l, x, r.eq));
            }
        }
        for &e in &d.h {
            if let Some(x) = self.a.rename(e, f) {
                out.h.push(x);
            }
        }
        for &e in &d.m {
            if let Some(x) = self.a.rename(e, f) {
                out.m.push(x);
            }
        }
        for c in &d.c {
            if let Some(x) = self.a.rename(c.e, f) {
                out.c.push(Constraint { e: x, ..*c });
            }
        }
        out.s.all_memory = d.s.all_memory;
        for r in d.s.iter() {
            if let Some(r2) = self.rename_region(r, f) {
                out.s.insert(r2);
            }
        }
        // A tag whose location cannot be renamed leaves its region ⊤.
        let mut top: SmallVec<[Region; 2]> = SmallVec::new();
        for &(r, x) in &d.t {
            let Some(r2) = self.rename_region(r, f) else {
                continue;
            };
            match self.a.rename(x, f) {
                Some(x2) => out.t.push((r2, x2)),
                None => top.push(r2),
            }
        }
        out.t.retain(|(r, _)| !top.contains(r));
        out.normalize();
        out
    }

    /// A variable's region follows its variable's rename (`None`: the variable is gone).
    fn rename_region(&mut self, r: Region, f: &dyn Fn(Sym) -> Option<Sym>) -> Option<Region> {
        let Region::Var(i) = r else {
            return Some(r);
        };
        let path = self.a.names.var_path(i).clone();
        let sym = match path.root {
            VarRoot::Local(func, l) => Some(Sym::Local(func, l)),
            VarRoot::Frozen(depth, func, l) => Some(Sym::Frozen(depth, func, l)),
            _ => None,
        };
        let root = match sym.map(f) {
            None => path.root.clone(),
            Some(Some(Sym::Local(func, l))) => VarRoot::Local(func, l),
            Some(Some(Sym::Frozen(depth, func, l))) => VarRoot::Frozen(depth, func, l),
            Some(None) | Some(Some(_)) => return None,
        };
        Some(self.a.names.var(crate::regions::VarPath {
            root,
            fields: path.fields.clone(),
        }))
    }

    /// Move a fact (already past M2/M3) into callee `g`'s exit. Instead of removing the
    /// caller's locals (the paper's Remove Info), rename them to frozen symbols one frame up:
    /// the callee cannot assign them, so everything known about them survives the call.
    #[allow(clippy::too_many_arguments)]
    fn enter_callee(
        &mut self,
        caller: FuncId,
        call_node: NodeId,
        caller_ctx: Ctx,
        d: Fact,
        g: FuncId,
        caller_slot: Option<SlotId>,
        probe_start: bool,
        frames: Frames,
    ) -> bool {
        let gb = self.body(g);
        let ret = gb.ret;
        let shift_in = move |s: Sym| -> Option<Sym> {
            match s {
                Sym::Local(f, l) if f == caller => Some(Sym::Frozen(1, f, l)),
                // The callee's `ret` of a recursive call (see `at_call`).
                Sym::Frozen(0, f, l) if f == g && Some(l) == ret => Some(Sym::Local(f, l)),
                Sym::Frozen(ANCESTOR, ..) => Some(s),
                Sym::Frozen(depth, f, l) => {
                    (depth < MAX_FROZEN_DEPTH).then_some(Sym::Frozen(depth + 1, f, l))
                }
                Sym::Shadow(_) => None,
                other => Some(other),
            }
        };
        let mut mapped = self.rename_fact(&d, &shift_in);
        mapped.normalize();
        // Parameters the callee never assigns keep the caller's (frame-stable) argument.
        let mut binds: Vec<(LocalId, E)> = Vec::new();
        let stable = self.stable_params(g);
        if !stable.is_empty() {
            let cb = self.body(caller);
            if let StmtKind::Call { args, .. } = &cb.node(call_node).stmt.kind {
                let args = args.clone();
                let owned = self.owned_by_caller(caller, call_node, caller_ctx, g, &shift_in);
                for p in stable {
                    let Some(i) = gb.params.iter().position(|x| *x == p) else {
                        continue;
                    };
                    let Some(a) = args.get(i) else { continue };
                    let actual = self.tr_in(caller, caller_ctx, *a);
                    if let Some(shifted) = self.a.rename(actual, &shift_in)
                        && (self.frame_stable(shifted)
                            || owned.is_some_and(|o| self.field_of(shifted, o)))
                    {
                        binds.push((p, shifted));
                    }
                }
            }
        }
        let mut ancestor = None;
        let compress = frames != Frames::Exact;
        if compress {
            (mapped, binds, ancestor) = self.compress_frames(&mapped, binds);
        }
        let link = self.chain_link(caller, call_node, caller_ctx, g);
        // A compressed context is found by its fact without the region set: a deeper call
        // that reaches it with more regions joins them into its exit fact (a weaker fact,
        // whose entry facts reach every caller registered so far).
        let mut key_fact = mapped.clone();
        if compress {
            key_fact.s = RegionSet::empty();
        }
        let key = (
            g,
            key_fact,
            self.current_witness.is_some(),
            binds.clone(),
            link.is_some(),
        );
        let ctx = match self.contexts.get(&key) {
            Some(c) => *c,
            None if frames == Frames::CompressReuse => return false,
            None => {
                let c = self.next_ctx;
                self.next_ctx += 1;
                self.contexts.insert(key, c);
                let depth = self.ctx_depth.get(&caller_ctx).copied().unwrap_or(0) + 1;
                self.ctx_depth.insert(c, depth);
                if !binds.is_empty() {
                    self.bindings.insert(c, (g, binds));
                }
                if let Some(l) = link {
                    self.chains.insert(c, l);
                }
                c
            }
        };
        let reg = Registration {
            func: caller,
            node: call_node,
            ctx: caller_ctx,
            caller_slot,
            ancestor,
        };
        self.registrations
            .entry((g, ctx))
            .or_default()
            .push(reg.clone());
        let prov = if probe_start {
            Prov::StartInCallee
        } else {
            Prov::Map(caller_slot.unwrap_or(0))
        };
        let exit = gb.exit;
        self.insert(g, exit, ctx, mapped, prov);
        // A summary already computed for this context answers right away.
        if let Some(entries) = self.summaries.get(&(g, ctx)).cloned() {
            for entry in entries {
                let f = self.slots[entry as usize].fact.clone();
                self.unmap_to(&f, g, entry, &reg);
            }
        }
        true
    }

    /// Unmap (Figure 5) a callee-entry fact to one registered call site and continue there.
    fn unmap_to(&mut self, d: &Fact, g: FuncId, entry_slot: SlotId, reg: &Registration) {
        let saved_ctx = self.cur_ctx;
        let g_ctx = self.slots[entry_slot as usize].ctx;
        let r = self.unmap(
            d,
            g,
            g_ctx,
            reg.func,
            reg.node,
            Some((reg.ctx, reg.ancestor)),
        );
        self.cur_ctx = saved_ctx;
        let Some(mut f) = r else {
            let why = format!(
                "contradiction on return to the call of `{}`",
                self.prog.function_name(g)
            );
            self.refute(reg.func, reg.node, why);
            return;
        };
        f.normalize();
        let prov = Prov::Unmap {
            entry: entry_slot,
            call_node: reg.node,
            caller: reg.caller_slot,
        };
        self.insert_preds(reg.func, reg.node, reg.ctx, f, prov);
    }

    /// formal ← shadow; scope(formals); (frozen caller locals back to locals); shadow ← actual.
    /// `back`: the fact leaves callee context `g_ctx` for caller context `.0`, and the frozen
    /// frames move back (`.1`: the caller frame `ANCESTOR` stands for, see `Registration`);
    /// `None` at the entry of a base frame, whose caller has no frozen frames.
    fn unmap(
        &mut self,
        d: &Fact,
        g: FuncId,
        g_ctx: Ctx,
        caller: FuncId,
        call_node: NodeId,
        back: Option<(Ctx, Option<u8>)>,
    ) -> Option<Fact> {
        self.cur_ctx = g_ctx;
        let gb = self.body(g);
        let cb = self.body(caller);
        let args = match &cb.node(call_node).stmt.kind {
            StmtKind::Call { args, .. } => args.clone(),
            _ => return Some(d.clone()),
        };
        let mut cur = d.clone();
        let params = gb.params.clone();
        let mut shadows = Vec::new();
        for (i, p) in params.iter().enumerate() {
            let ty = gb.local(*p).ty.clone();
            let sh = self.a.mk(
                EKind::Addr(Sym::Shadow(i as u32)),
                &Type::pointer_to(ty.clone()),
            );
            shadows.push(sh);
        }
        // In execution order each shadow dies right after `formal ← shadow`: its region may
        // hold the pointer there (nullification, backward).
        for sh in &shadows {
            let w = self.a.pt(*sh);
            let loc = self.a.deref(*sh);
            self.grow_s(&mut cur, &w, Some(loc));
        }
        for (i, p) in params.iter().enumerate() {
            let sh = shadows[i];
            let pa = self.local_addr(g, *p);
            let sv = self.a.deref(sh);
            cur = self.assign(&cur, pa, sv)?;
        }
        cur = self.scope_begin(&cur, g, &params)?;
        if let Some((caller_ctx, ancestor)) = back {
            self.cur_ctx = caller_ctx;
            let out = |s: Sym| -> Option<Sym> {
                match s {
                    Sym::Frozen(ANCESTOR, f, l) => match ancestor {
                        Some(depth) => Some(Sym::Frozen(depth, f, l)),
                        None => Some(s),
                    },
                    Sym::Frozen(1, f, l) => Some(Sym::Local(f, l)),
                    Sym::Frozen(depth, f, l) => Some(Sym::Frozen(depth - 1, f, l)),
                    other => Some(other),
                }
            };
            cur = self.rename_fact(&cur, &out);
            if infeasible(&mut self.a, &cur) {
                return None;
            }
        }
        for (i, sh) in shadows.iter().enumerate() {
            let actual = match args.get(i) {
                Some(a) => self.tr(caller, *a),
                None => self.a.mk(EKind::Unknown, &Type::Unknown),
            };
            cur = self.assign(&cur, *sh, actual)?;
        }
        // Extra (variadic) arguments: the callee may keep them.
        for a in args.iter().skip(params.len()) {
            let ae = self.tr(caller, *a);
            if cur.h.iter().any(|h| self.a.contains(*h, ae)) {
                return None;
            }
        }
        cur.normalize();
        self.finish_fact(cur)
    }

    fn run(&mut self) {
        loop {
            let next = if self.cfg.lifo {
                self.work.pop_back()
            } else {
                self.work.pop_front()
            };
            let Some(id) = next else { break };
            if self.outcome.is_some() {
                return;
            }
            self.slots[id as usize].queued = false;
            self.transfers += 1;
            if self.transfers > self.cfg.max_transfers {
                self.outcome = Some(Outcome::Budget(format!(
                    "more than {} transfer-function applications",
                    self.cfg.max_transfers
                )));
                return;
            }
            if self.transfers.is_multiple_of(64) {
                self.prog.checkpoint();
            }
            self.step(id);
        }
    }

    fn step(&mut self, id: SlotId) {
        // Footprint facts hold at the statement being applied; a call or an entry moves to
        // other frames, where they do not.
        let (func, node) = (self.slots[id as usize].func, self.slots[id as usize].node);
        let b = self.body(func);
        self.cur_point = match b.node(node).stmt.kind {
            StmtKind::Call { .. } | StmtKind::Enter => None,
            _ => Some((func, node, false)),
        };
        self.step_node(id);
        self.cur_point = None;
    }

    fn step_node(&mut self, id: SlotId) {
        let (func, node, ctx) = {
            let s = &self.slots[id as usize];
            (s.func, s.node, s.ctx)
        };
        let d = self.slots[id as usize].fact.clone();
        self.current_witness = self.slots[id as usize].witness_of;
        self.cur_ctx = ctx;
        let b = self.body(func);
        if trace_enabled() {
            super::expr::SHOW_FRAMES.store(true, std::sync::atomic::Ordering::Relaxed);
            let text = display_stmt(&b, &b.node(node).stmt.kind, Notation::C);
            eprintln!(
                "[{} n{} ctx{}{}] {text}\n    {}",
                self.prog.function_name(func),
                node.0,
                ctx,
                if self.current_witness.is_some() {
                    " witness"
                } else {
                    ""
                },
                self.show_fact(&d)
            );
        }
        let edge = Prov::Edge(id);
        match &b.node(node).stmt.kind {
            StmtKind::Enter => self.at_entry(id, func, node, ctx, &d, &b),
            StmtKind::Assign { addr, value } => {
                let e0 = self.tr(func, *addr);
                let e1 = self.tr(func, *value);
                self.fresh_base = self.fresh_write(func, node);
                let r = self.assign_split(&d, e0, e1);
                self.fresh_base = None;
                if r.is_empty() {
                    let t = self.stmt_text(func, node);
                    self.refute(func, node, format!("`{t}` contradicts it"));
                }
                for f in r {
                    self.insert_preds(func, node, ctx, f, edge.clone());
                }
            }
            StmtKind::Alloc { addr, site } => {
                let e0 = self.tr(func, *addr);
                match self.alloc(&d, e0) {
                    AllocResult::Contradiction => {
                        let t = self.stmt_text(func, node);
                        self.refute(func, node, format!("`{t}` contradicts it"));
                    }
                    AllocResult::Continue(f) => self.insert_preds(func, node, ctx, *f, edge),
                    AllocResult::Validated { .. } if self.current_witness.is_some() => {
                        // A witness carries no cell: allocations are plain writes for it.
                        let fresh = self.a.mk(EKind::Num, &Type::Int);
                        if let Some(f) = self.assign(&d, e0, fresh) {
                            self.insert_preds(func, node, ctx, f, edge);
                        }
                    }
                    AllocResult::Validated { evidence: false } => {
                        if self.imprecise.is_none() {
                            let loc = self.loc(func, node);
                            self.imprecise = Some((
                                format!(
                                    "lost track of the reference (aliasing the analysis cannot resolve); the block may come from this `{}`",
                                    site.allocator
                                ),
                                Some(loc),
                            ));
                        }
                    }
                    AllocResult::Validated { evidence: true } => {
                        if !d.tainted && !d.c.is_empty() {
                            // The allocation validates the cell; check that the path to it is
                            // feasible under the constraints gathered so far.
                            let fresh = self.a.mk(EKind::Num, &Type::Int);
                            let mut w = d.clone();
                            w.h.clear();
                            w.m.clear();
                            w.s = RegionSet::empty();
                            w.t.clear();
                            if let Some(f) = self.assign(&w, e0, fresh) {
                                let b2 = self.body(func);
                                for &p in &b2.node(node).preds {
                                    let Some(f) = self.after_temp_deaths(func, p, &f) else {
                                        continue;
                                    };
                                    self.insert_w(
                                        func,
                                        p,
                                        ctx,
                                        f.clone(),
                                        Prov::Edge(id),
                                        Some(id),
                                    );
                                }
                            }
                            return;
                        }
                        if d.assumed && !d.tainted {
                            let loc = self.loc(func, node);
                            self.assumed_leak(loc, &format!("this `{}`", site.allocator));
                        } else if d.tainted {
                            if self.unsupported.is_none() {
                                let loc = self.loc(func, node);
                                self.unsupported = Some((
                                    format!(
                                        "the path to this `{}` crosses code the analysis does not model (or a write through a pointer of unknown type)",
                                        site.allocator
                                    ),
                                    Some(loc),
                                ));
                            }
                        } else {
                            self.outcome = Some(Outcome::Leak {
                                slot: id,
                                alloc_node: node,
                            });
                        }
                    }
                }
            }
            StmtKind::Free { ptr } => {
                let e = self.tr(func, *ptr);
                match self.free(&d, e) {
                    Some(f) => self.insert_preds(func, node, ctx, f, edge),
                    None => {
                        let t = self.stmt_text(func, node);
                        self.refute(func, node, format!("`{t}` frees it"));
                    }
                }
            }
            StmtKind::Cond { lhs, op, rhs } => {
                let l = self.tr(func, *lhs);
                let r = self.tr(func, *rhs);
                match self.cond(&d, l, *op, r) {
                    Some(f) => self.insert_preds(func, node, ctx, f, edge),
                    None => {
                        let t = cond_text(&b, *lhs, *op, *rhs);
                        self.refute(func, node, format!("the branch `{t}` contradicts it"));
                    }
                }
            }
            StmtKind::ScopeBegin { locals } => match self.scope_begin(&d, func, locals) {
                Some(f) => self.insert_preds(func, node, ctx, f, edge),
                None => {
                    let names: Vec<String> = locals
                        .iter()
                        .map(|l| format!("`{}`", b.local(*l).name))
                        .collect();
                    self.refute(
                        func,
                        node,
                        format!("the scope of {} begins here", names.join(", ")),
                    )
                }
            },
            StmtKind::ScopeEnd { locals, .. } => {
                let mut cur = d.clone();
                for l in locals.iter().rev() {
                    match self.nullify_local(&cur, func, *l) {
                        Some(f) => cur = f,
                        None => {
                            self.refute(func, node, "a scope end contradicts it".into());
                            return;
                        }
                    }
                }
                self.insert_preds(func, node, ctx, cur, edge);
            }
            StmtKind::Return { .. } | StmtKind::Nop => self.insert_preds(func, node, ctx, d, edge),
            StmtKind::Opaque { reads, reason } => {
                let mut w = RegionSet::all_memory();
                for r in reads {
                    let e = self.tr(func, *r);
                    if let EKind::Deref(x) = *self.a.kind(e) {
                        let p = self.a.pt(x);
                        w.union_with(&p);
                    }
                }
                // Opaque code may write all memory: `havoc` taints the fact.
                let f = self.havoc(&d, &w);
                if !d.h.is_empty() && self.unsupported.is_none() {
                    let loc = self.loc(func, node);
                    self.unsupported = Some((format!("unsupported code: {reason}"), Some(loc)));
                }
                self.insert_preds(func, node, ctx, f, edge);
            }
            StmtKind::Call { dest, callee, args } => {
                self.at_call(id, func, node, ctx, &d, *dest, callee, args)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn at_call(
        &mut self,
        id: SlotId,
        func: FuncId,
        node: NodeId,
        ctx: Ctx,
        d: &Fact,
        dest: Option<crate::ir::ExprId>,
        callee: &Callee,
        args: &[crate::ir::ExprId],
    ) {
        let dest_e = dest.map(|x| self.tr(func, x));
        let args_e: Vec<E> = args.iter().map(|a| self.tr(func, *a)).collect();
        let (mut targets, name): (Vec<FuncId>, Option<String>) = match callee {
            Callee::Direct(n) => (
                self.prog.resolve(func, n).into_iter().collect(),
                Some(n.clone()),
            ),
            Callee::Indirect(_) => (self.prog.indirect_targets(args.len()), None),
        };
        let depth = self.ctx_depth.get(&ctx).copied().unwrap_or(0);
        let dest_hit = dest_e.is_some_and(|de| {
            let t = self.a.deref(de);
            d.hits(t)
        });
        let max_depth = if dest_hit {
            MAX_RETURN_DEPTH
        } else {
            MAX_CALLEE_DEPTH
        };
        if targets.len() > MAX_INDIRECT_TARGETS {
            // Too many possible targets: like a body-less unknown function.
            targets.clear();
        }
        // A pure-descent self-call past the depth limit is still explored with its caller
        // frames compressed, so that the recursion closes on a context already made: one
        // call deeper new contexts are made, further down only existing ones are used.
        let mut frames = Frames::Exact;
        if let [g] = targets.as_slice()
            && self.chain_link(func, node, ctx, *g).is_some()
            && depth >= max_depth
        {
            frames = if depth < max_depth + CHAIN_EXTRA_DEPTH {
                Frames::Compress
            } else {
                Frames::CompressReuse
            };
        }
        // A single callee that cannot touch the fact, or one too deep to explore, is applied
        // through its MOD summary instead of being explored.
        if let [g] = targets.as_slice() {
            let g = *g;
            if let Some(w) = self.mod_regions(g) {
                let relevant = self.call_relevant(d, &w, dest_e, &args_e);
                if !relevant || (depth >= max_depth && frames == Frames::Exact) {
                    self.unexplored_call(id, func, node, ctx, d, g, &w, dest_e, &args_e);
                    return;
                }
            } else if depth >= max_depth {
                targets.clear();
            }
        } else if depth >= max_depth {
            targets.clear();
        }
        if targets.is_empty() {
            match self.bodyless_call(d, name.as_deref(), dest_e, &args_e, false) {
                Ok(f) => self.insert_preds(func, node, ctx, f, Prov::Edge(id)),
                Err(why) => self.refute(func, node, why),
            }
            return;
        }
        // Facts a deep recursive call could not map to an existing context.
        let mut unmapped = false;
        for &g in &targets {
            let gb = self.body(g);
            // M3 then M2 (backward): `ret ← 0` after `*dest ← ret`.
            let mut cur = d.clone();
            if let Some(r) = gb.ret {
                let mut ra = self.local_addr(g, r);
                if g == func {
                    // A recursive call: the callee's `ret` is another frame's variable than
                    // the caller's. It is named `Frozen(0, g, ret)` until `enter_callee`
                    // renames it to the callee's own `ret` (and freezes the caller's).
                    let ty = self.a.ty(ra).clone();
                    ra = self.a.mk(EKind::Addr(Sym::Frozen(0, g, r)), &ty);
                }
                let z = self.zero();
                let Some(f) = self.assign(&cur, ra, z) else {
                    self.refute(func, node, "the call's result contradicts it".into());
                    continue;
                };
                cur = f;
                if let Some(de) = dest_e {
                    let rv = self.a.deref(ra);
                    let cases = self.assign_split(&cur, de, rv);
                    if cases.is_empty() {
                        let t = self.stmt_text(func, node);
                        self.refute(func, node, format!("`{t}` contradicts it"));
                    }
                    for f in cases {
                        unmapped |=
                            !self.enter_callee(func, node, ctx, f, g, Some(id), false, frames);
                    }
                    continue;
                }
            } else if let Some(de) = dest_e {
                let u = self.a.mk(EKind::Unknown, &Type::Unknown);
                match self.assign(&cur, de, u) {
                    Some(f) => cur = f,
                    None => continue,
                }
            }
            unmapped |= !self.enter_callee(func, node, ctx, cur, g, Some(id), false, frames);
        }
        if unmapped
            && let [g] = targets.as_slice()
            && let Some(w) = self.mod_regions(*g)
        {
            self.unexplored_call(id, func, node, ctx, d, *g, &w, dest_e, &args_e);
        }
    }

    /// A call of `g` applied through its MOD summary `w` instead of being explored.
    ///
    /// The summary is the fact with what `g` may write forgotten, which covers every way the
    /// call could have changed the memory a pre-existing cell lives in. It cannot say that
    /// the cell was made inside `g`. That is possible when `g` may allocate, writes a region
    /// of S (or the destination is one), and no hit expression survives the call (each reads
    /// what `g` writes, or there was none). The fact is then tainted: what can still refute
    /// it holds whatever made the cell (the path's constraints and relations), the entry of
    /// `main` ("no heap before the program starts") does not, and an allocation it reaches is
    /// no evidence of a leak. Otherwise a hit passed to `g` escapes when unknown calls make
    /// pointers escape (the callee is treated like a body-less one).
    ///
    /// A callee that writes no memory that existed before the call (`ModSet::writes_old`)
    /// changes no location the fact can name: its summary only assigns the destination.
    #[allow(clippy::too_many_arguments)]
    fn unexplored_call(
        &mut self,
        id: SlotId,
        func: FuncId,
        node: NodeId,
        ctx: Ctx,
        d: &Fact,
        g: FuncId,
        w: &RegionSet,
        dest_e: Option<E>,
        args_e: &[E],
    ) {
        let ms = self.prog.mod_set(g);
        let escapes = self.cfg.unknown_calls_escape && self.arg_holds_hit(d, args_e);
        // Every location the fact can name keeps its value: only the destination changes.
        let writes_nothing_old = !ms.writes_old && !ms.all && !escapes;
        let dw = dest_e.map(|de| self.a.pt(de));
        let kept = d.h.iter().any(|e| {
            (writes_nothing_old || self.disjoint(*e, w))
                && dw.as_ref().is_none_or(|dw| self.disjoint(*e, dw))
        });
        let writes_s = d.s.intersects(w) || dw.as_ref().is_some_and(|dw| d.s.intersects(dw));
        // A feasibility witness carries no cell, only the path's constraints.
        let made_inside = !kept && writes_s && self.current_witness.is_none() && ms.allocates;
        if escapes && !made_inside {
            let callee = self.prog.function_name(g);
            self.refute(
                func,
                node,
                format!("it is passed to `{callee}` (not followed this deep): it escapes"),
            );
            return;
        }
        let Some(mut f) = self.summarise_call(d, (!writes_nothing_old).then_some(w), dest_e) else {
            let t = self.stmt_text(func, node);
            self.refute(func, node, format!("`{t}` contradicts it"));
            return;
        };
        f.tainted |= made_inside;
        self.insert_preds(func, node, ctx, f, Prov::Edge(id));
    }

    /// An allocation validated the cell only on the "same block" side of a case split
    /// (`Fact::assumed`): not evidence of a leak, the probe is `unproved (imprecise)`.
    fn assumed_leak(&mut self, loc: Loc, what: &str) {
        if self.imprecise.is_none() {
            self.imprecise = Some((
                format!(
                    "the block from {what} is lost only if two pointers are equal, which the analysis could not rule out (for example a cyclic list)"
                ),
                Some(loc),
            ));
        }
    }

    fn at_entry(
        &mut self,
        id: SlotId,
        func: FuncId,
        node: NodeId,
        ctx: Ctx,
        d: &Fact,
        b: &FunctionIr,
    ) {
        // Every non-parameter local begins its scope at entry.
        let locals: Vec<LocalId> = (0..b.locals.len() as u32)
            .map(LocalId)
            .filter(|l| b.local(*l).kind != LocalKind::Param)
            .collect();
        let Some(f) = self.scope_begin(d, func, &locals) else {
            self.refute(
                func,
                node,
                "the function's locals begin their scope here".into(),
            );
            return;
        };
        if ctx == NONE
            && let Some(w) = self.current_witness
        {
            // A feasible path leads from an entry to the validating allocation.
            let alloc_node = self.slots[w as usize].node;
            if f.assumed {
                let loc = self.loc(self.slots[w as usize].func, alloc_node);
                self.assumed_leak(loc, "this allocation");
                return;
            }
            self.outcome = Some(Outcome::Leak {
                slot: w,
                alloc_node,
            });
            return;
        }
        if ctx != NONE {
            self.summaries.entry((func, ctx)).or_default().push(id);
            let regs = self
                .registrations
                .get(&(func, ctx))
                .cloned()
                .unwrap_or_default();
            for reg in regs {
                self.unmap_to(&f, func, id, &reg);
            }
            return;
        }
        let name = self.prog.function_name(func);
        if name == "main" && f.tainted {
            // The path crossed code that was not followed (a call applied through its summary,
            // or code the front end did not model): the block may have been made there.
            if self.unsupported.is_none() {
                let loc = self.loc(func, node);
                self.unsupported = Some((
                    "the block may come from code the analysis did not follow (a call too deep, or unsupported code)".into(),
                    Some(loc),
                ));
            }
            return;
        }
        if name == "main" {
            self.refute(
                func,
                node,
                "the start of `main` is reached: no heap block exists before the program starts"
                    .into(),
            );
            return;
        }
        let callers = self.prog.callers(func);
        if callers.is_empty() {
            if self.input_dependent.is_none() {
                let cond = self.describe_input(&f);
                self.input_dependent = Some((func, cond));
            }
            return;
        }
        for (cf, cn) in callers {
            let Some(g) = self.unmap(&f, func, NONE, cf, cn, None) else {
                let why = format!("contradiction at the call of `{name}`");
                self.refute(cf, cn, why);
                continue;
            };
            self.insert_preds(
                cf,
                cn,
                NONE,
                g,
                Prov::Unmap {
                    entry: id,
                    call_node: cn,
                    caller: None,
                },
            );
        }
    }

    /// `l == r` or `l != r`, in C.
    fn show_rel(&self, r: &PtrRel) -> String {
        let op = if r.eq { "==" } else { "!=" };
        format!("{} {op} {}", self.show(r.l), self.show(r.r))
    }

    fn show_fact(&self, f: &Fact) -> String {
        let list = |v: &[E]| {
            v.iter()
                .map(|e| self.show(*e))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let s: Vec<String> =
            f.s.iter()
                .map(|r| {
                    let name = crate::regions::RegionDisplay(&self.a.names, r).to_string();
                    let tags = f.tags_of(r);
                    if tags.is_empty() {
                        name
                    } else {
                        let t: Vec<E> = tags.iter().map(|(_, x)| *x).collect();
                        format!("{name}@[{}]", list(&t))
                    }
                })
                .collect();
        let c: Vec<String> =
            f.c.iter()
                .map(|c| format!("{} {:?} {}", self.show(c.e), c.rel, c.k))
                .chain(f.p.iter().map(|r| self.show_rel(r)))
                .collect();
        format!(
            "S={{{}{}}} H={{{}}} M={{{}}} C={{{}}}{}{}",
            s.join(", "),
            if f.s.all_memory { ", *" } else { "" },
            list(&f.h),
            list(&f.m),
            c.join(", "),
            if f.tainted { " tainted" } else { "" },
            if f.assumed { " assumed" } else { "" }
        )
    }

    fn describe_input(&mut self, f: &Fact) -> String {
        let hits: Vec<String> = f.h.iter().map(|e| format!("`{}`", self.show(*e))).collect();
        if hits.is_empty() {
            return "leaks for some inputs".into();
        }
        let verb = if hits.len() == 1 { "holds" } else { "hold" };
        let mut s = format!(
            "leaks if, on entry, {} {verb} the only reference to a heap block",
            hits.join(" and ")
        );
        let misses: Vec<String> =
            f.m.iter()
                .filter(|e| !self.has_unknown(**e))
                .filter(|e| !matches!(self.a.kind(**e), EKind::Int(_) | EKind::Num))
                .map(|e| format!("`{}`", self.show(*e)))
                .collect();
        if !misses.is_empty() {
            s.push_str(&format!(" that {} does not point to", misses.join(" or ")));
        }
        let rels: Vec<String> =
            f.p.iter()
                .map(|r| format!("`{}`", self.show_rel(r)))
                .collect();
        if !rels.is_empty() {
            s.push_str(&format!(", with {}", rels.join(" and ")));
        }
        s
    }

    // ---- verdicts and traces --------------------------------------------------------------

    fn finish(mut self) -> ProbeResult {
        let transfers = self.transfers;
        let verdict = match self.outcome.take() {
            Some(Outcome::Leak { slot, alloc_node }) => self.leak_verdict(slot, alloc_node),
            Some(Outcome::Budget(what)) => match self.input_dependent.take() {
                Some((function, condition)) => Verdict::Unproved(Unproved::InputDependent {
                    function,
                    condition,
                }),
                None => Verdict::Unproved(Unproved::Budget { what }),
            },
            None => {
                if let Some((function, condition)) = self.input_dependent.take() {
                    Verdict::Unproved(Unproved::InputDependent {
                        function,
                        condition,
                    })
                } else if let Some((what, at)) = self.unsupported.take() {
                    Verdict::Unproved(Unproved::Unsupported { what, at })
                } else if let Some((what, at)) = self.imprecise.take() {
                    Verdict::Unproved(Unproved::Imprecise { what, at })
                } else {
                    Verdict::Proved {
                        refuted_at: std::mem::take(&mut self.refutations),
                    }
                }
            }
        };
        ProbeResult { verdict, transfers }
    }

    /// Follow provenance from the validating allocation forward to the probe.
    fn leak_verdict(&mut self, slot: SlotId, alloc_node: NodeId) -> Verdict {
        let alloc_func = self.slots[slot as usize].func;
        let mut trace: Vec<TraceStep> = Vec::new();
        let mut allocation_calls: Vec<Loc> = Vec::new();
        let alloc_loc = self.loc(alloc_func, alloc_node);
        let allocator = match &self.body(alloc_func).node(alloc_node).stmt.kind {
            StmtKind::Alloc { site, .. } => site.allocator.clone(),
            _ => "alloc".into(),
        };
        trace.push(TraceStep {
            loc: alloc_loc.clone(),
            note: format!("allocated by `{allocator}`"),
        });
        let mut pending_callers: Vec<Option<SlotId>> = Vec::new();
        // The allocation path is the chain of returns that carries the block out of the
        // allocating function; once the block is passed into another call, later returns
        // are part of the trace only.
        let mut collecting = true;
        let mut cur = slot;
        let mut steps = 0;
        loop {
            steps += 1;
            if steps > MAX_TRACE {
                break;
            }
            let s = &self.slots[cur as usize];
            let (func, node, prov) = (s.func, s.node, s.prov.clone());
            // The node the slot sits after: note it if it is interesting (not the allocation).
            if !(func == alloc_func && node == alloc_node && cur == slot) {
                self.note_node(func, node, &mut trace);
            }
            match prov {
                Prov::Start => break,
                Prov::StartInCallee => {
                    // Returning from the callee to the probe's call.
                    let name = self.slots[cur as usize].func;
                    let callee = self.prog.function_name(name);
                    let loc = self.loc(self.probe_func, self.probe_node);
                    if collecting {
                        allocation_calls.push(loc.clone());
                    }
                    trace.push(TraceStep {
                        loc,
                        note: format!("returned from `{callee}`"),
                    });
                    break;
                }
                Prov::Edge(from) => cur = from,
                Prov::Map(from) => {
                    // Forward: the callee returns to its call node (the caller's slot there).
                    let callee = self.prog.function_name(func);
                    let target = match pending_callers.pop() {
                        Some(Some(c)) => c,
                        _ => from,
                    };
                    let (cf, cn) = {
                        let t = &self.slots[target as usize];
                        (t.func, t.node)
                    };
                    let loc = self.loc(cf, cn);
                    if collecting {
                        allocation_calls.push(loc.clone());
                    }
                    trace.push(TraceStep {
                        loc,
                        note: format!("returned from `{callee}`"),
                    });
                    cur = target;
                }
                Prov::Unmap {
                    entry,
                    call_node,
                    caller,
                } => {
                    let callee_func = self.slots[entry as usize].func;
                    let callee = self.prog.function_name(callee_func);
                    let loc = self.loc(func, call_node);
                    trace.push(TraceStep {
                        loc,
                        note: format!("passed to `{callee}`"),
                    });
                    pending_callers.push(caller);
                    collecting = false;
                    cur = entry;
                }
            }
        }
        trace.push(TraceStep {
            loc: self.loc(self.probe_func, self.probe_node),
            note: self.probe_note.clone(),
        });
        // Allocation path: outermost call site first, then the allocator call.
        allocation_calls.reverse();
        allocation_calls.push(alloc_loc);
        dedup_trace(&mut trace);
        Verdict::Leak {
            allocation: allocation_calls,
            trace,
        }
    }

    fn note_node(&mut self, func: FuncId, node: NodeId, trace: &mut Vec<TraceStep>) {
        let b = self.body(func);
        if let StmtKind::Cond { lhs, op, rhs } = &b.node(node).stmt.kind {
            let t = cond_text(&b, *lhs, *op, *rhs);
            let loc = self.loc(func, node);
            trace.push(TraceStep {
                loc,
                note: format!("branch taken: `{t}`"),
            });
        }
    }
}

/// A condition as C: `p != NULL`, `n == 0`.
fn cond_text(b: &FunctionIr, lhs: crate::ir::ExprId, op: CmpOp, rhs: crate::ir::ExprId) -> String {
    let l = crate::ir::display_expr(b, lhs, Notation::C);
    let r = crate::ir::display_expr(b, rhs, Notation::C);
    let pointer = b.exprs.ty(lhs).is_pointer() || b.exprs.ty(rhs).is_pointer();
    let r = if r == "0" && pointer {
        "NULL".to_string()
    } else {
        r
    };
    format!("{l} {} {r}", op.symbol())
}

/// `REDUCTIO_TRACE=1` prints every worklist step to stderr (for developing the analysis).
fn trace_enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("REDUCTIO_TRACE").is_some_and(|v| v == "1"))
}

fn dedup_trace(trace: &mut Vec<TraceStep>) {
    trace.dedup_by(|b, a| a.loc == b.loc && a.note == b.note);
}

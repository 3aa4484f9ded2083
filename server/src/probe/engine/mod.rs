//! The demand-driven interprocedural worklist of Figure 8, with the transfer functions of §4.3
//! and Map/Unmap of §4.4.
//!
//! A fact stored at a node is the fact *after* that node (as in the paper's R(n)(c)).
//! Processing it applies the node's transfer and inserts the pre-state at the predecessors;
//! a call maps the fact into the callee's exit under a context, an entry unmaps it to the call
//! sites registered for that context (or, for facts born in the function, to every caller).
//! Contexts are the mapped facts themselves, so a callee summary is exact per entry fact.
//! Facts are kept separated by the regions of their hit expressions (§4.8).

mod calls;
mod disjoint;
mod frames;
mod mapping;
mod transfer;
mod verdict;
mod worklist;

use super::expr::{Arena, E, EKind, Sym, display};
use super::footprint::Footprint;
use super::state::Fact;
use super::{EngineConfig, FuncId, Loc, Place, ProbeResult, ProbeSite, Program, Root, TraceStep};
use crate::ir::{FunctionIr, LocalId, NodeId, Notation, Type, display_stmt};
use crate::regions::RegionSet;
use mapping::Registration;
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use std::collections::VecDeque;
use std::sync::Arc;
use verdict::{Outcome, probe_note};
use worklist::Slot;

type Ctx = u32;

/// A callee context: the callee, the mapped fact, whether it is a witness, the bound
/// parameters, and whether it continues a chain of pure-descent self-calls (see `chain`).
type ContextKey = (FuncId, Fact, bool, Vec<(LocalId, E)>, bool);

const NONE: Ctx = 0;

type SlotId = u32;

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

impl<'p> Engine<'p> {
    pub(super) fn body(&mut self, f: FuncId) -> Arc<FunctionIr> {
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

    pub(super) fn show(&self, e: E) -> String {
        let names = |f: FuncId, l: LocalId| self.local_name(f, l);
        display(&self.a, e, &names)
    }

    pub(super) fn loc(&self, f: FuncId, n: NodeId) -> Loc {
        Loc { func: f, node: n }
    }

    pub(super) fn stmt_text(&mut self, f: FuncId, n: NodeId) -> String {
        let b = self.body(f);
        display_stmt(&b, &b.node(n).stmt.kind, Notation::C)
    }

    /// Translate an IR expression of `f` as seen in the current context (parameter bindings
    /// of the context applied).
    pub(super) fn tr(&mut self, f: FuncId, e: crate::ir::ExprId) -> E {
        let ctx = self.cur_ctx;
        self.tr_in(f, ctx, e)
    }

    pub(super) fn tr_in(&mut self, f: FuncId, ctx: Ctx, e: crate::ir::ExprId) -> E {
        let b = self.body(f);
        let x = self.a.translate(f, &b, e);
        self.bind(f, ctx, x)
    }

    pub(super) fn local_addr(&mut self, f: FuncId, l: LocalId) -> E {
        if let Some(e) = self.local_addrs.get(&(f, l)) {
            return *e;
        }
        let b = self.body(f);
        let ty = b.local(l).ty.clone();
        let e = self.a.addr_local(f, l, &ty);
        self.local_addrs.insert((f, l), e);
        e
    }

    pub(super) fn field_addr(&mut self, base: E, field: &str) -> E {
        let sty = self
            .a
            .env()
            .resolve(&self.a.ty(base).pointee().cloned().unwrap_or_default());
        let fty = self.a.env().field_type(&sty, field);
        let n = self.a.string(field);
        self.a.mk(EKind::Field(base, n), &Type::pointer_to(fty))
    }

    pub(super) fn place(&mut self, f: FuncId, p: &Place) -> E {
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

    pub(super) fn zero(&mut self) -> E {
        self.a.int(0)
    }

    pub(super) fn has_unknown(&self, e: E) -> bool {
        match self.a.kind(e) {
            EKind::Unknown => true,
            EKind::Deref(x) | EKind::Field(x, _) => self.has_unknown(*x),
            EKind::Bin(_, l, r) => self.has_unknown(*l) || self.has_unknown(*r),
            _ => false,
        }
    }

    /// The address `x` of a location `*x` (`None` for anything else).
    pub(super) fn addr_of(&self, e: E) -> Option<E> {
        match *self.a.kind(e) {
            EKind::Deref(x) => Some(x),
            _ => None,
        }
    }
}

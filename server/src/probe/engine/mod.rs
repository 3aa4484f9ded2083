//! The demand-driven interprocedural worklist of Figure 8, with the transfer functions of §4.3
//! and Map/Unmap of §4.4.
//!
//! A fact stored at a node is the fact *after* that node (as in the paper's R(n)(c)).
//! Processing it applies the node's transfer and inserts the pre-state at the predecessors;
//! a call maps the fact into the callee's exit under a context, an entry unmaps it to the call
//! sites registered for that context (or, for facts born in the function, to every caller).
//! Contexts are the mapped facts themselves, so a callee summary is exact per entry fact.
//! Facts are kept separated by the regions of their hit expressions (§4.8).
//!
//! One `Engine` runs one probe; its methods are spread over files by concern:
//! - `worklist`: the probe's starting fact, the slots and the queue, one step per statement
//!   kind (`step_node`), function entries (`at_entry`), temporaries' deaths;
//! - `transfer`: the transfer functions on one fact: `assign` (FILTER/SUBST, tags,
//!   relations, case splits), `alloc`, `free`, `cond`, `scope_begin`, `nullify_local`,
//!   `havoc`;
//! - `calls`: a call node (`at_call`): which callees are explored, MOD summaries
//!   (`unexplored_call`), body-less and library calls (`bodyless_call`);
//! - `returns`: for a large call that only refines the path's constraints, the constants
//!   its callee can return and whether it is large (`return_constants`, `heavy`);
//! - `mapping`: Map (`enter_callee`) and Unmap (`unmap`), contexts, registrations,
//!   summaries, parameter bindings, renaming of frames;
//! - `frames`: pure-descent recursion: footprints, chain contexts, `frames_apart`,
//!   `compress_frames`;
//! - `disjoint`: `e # w` and the §4.8 questions on top of it (`outside_tags`,
//!   `distinct_values`, `unchanged_by`, fresh blocks);
//! - `verdict`: refutations, the reasons a probe stays unproved, the verdict and a leak's
//!   trace.
//!
//! The fact itself and the helpers of Figure 2 are in `probe::state`.

mod calls;
mod disjoint;
mod frames;
mod mapping;
mod returns;
mod stats;
mod transfer;
mod verdict;
mod worklist;

#[cfg(test)]
mod tests;

use super::expr::{Arena, E, EKind, Sym, display};
use super::footprint::Footprint;
use super::{
    EngineConfig, FuncId, Loc, Place, ProbeResult, ProbeSite, Program, Root, Unproved, Verdict,
};
use crate::ir::{FunctionIr, LocalId, NodeId, Notation, Type, display_stmt};
use crate::regions::RegionSet;
use frames::FootprintPoint;
use mapping::Contexts;
use rustc_hash::FxHashMap;
use std::sync::Arc;
use verdict::VerdictState;
use worklist::Worklist;
pub use worklist::dereferenced_values;

/// A calling context of Figure 8: the probe's own frames are in `Ctx::BASE`; every other
/// context is a callee entered by Map with one fact (see `ContextKey`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Ctx(u32);

impl Ctx {
    /// The context of facts not mapped into a callee: the probe's function and, through
    /// unmapping at entries, its callers.
    const BASE: Ctx = Ctx(0);
}

impl std::fmt::Display for Ctx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

type SlotId = u32;

/// The state of one probe run.
struct Engine<'p> {
    prog: &'p dyn Program,
    cfg: EngineConfig,
    /// The probe's expressions (hash-consed) and region names.
    arena: Arena<'p>,
    caches: Caches,
    worklist: Worklist,
    contexts: Contexts,
    verdict: VerdictState,
    cursor: Cursor,
    /// Where the budget goes, when `REDUCTIO_BUDGET_STATS` is set (see `stats`).
    stats: Option<Box<stats::Stats>>,
}

/// Per-function results, computed at most once per probe run.
#[derive(Default)]
struct Caches {
    bodies: FxHashMap<FuncId, Arc<FunctionIr>>,
    temp_deaths: FxHashMap<FuncId, Arc<super::TempDeaths>>,
    fresh_writes: FxHashMap<FuncId, Arc<super::FreshWrites>>,
    fresh_values: FxHashMap<FuncId, Arc<super::FreshValues>>,
    /// The address expression of each local.
    local_addrs: FxHashMap<(FuncId, LocalId), E>,
    /// Parameters a function never assigns and whose address it never takes.
    stable_params: FxHashMap<FuncId, Vec<LocalId>>,
    /// Parameters a function assigns somewhere, with the statements before which none of
    /// them has been assigned yet (`mapping::entry_value_params`).
    entry_params: FxHashMap<FuncId, Arc<mapping::EntryParams>>,
    /// Locals that only hold a copy of a stable parameter, with that parameter.
    stable_copies: FxHashMap<FuncId, Vec<(LocalId, LocalId)>>,
    /// MOD sets of callees as regions (`None`: may write anything).
    mod_regions: FxHashMap<FuncId, Option<RegionSet>>,
    /// How each function recurses by pure descent, if it does (see `sites::descent`).
    descents: FxHashMap<FuncId, Option<Arc<super::sites::Descent>>>,
    /// Per statement of a function, the pointer values it dereferences (see
    /// `worklist::dereferenced_values`).
    derefs: FxHashMap<FuncId, Arc<Vec<crate::probe::Derefs>>>,
    /// The footprint of each pure-descent function, if it holds (see `footprint`).
    footprints: FxHashMap<FuncId, Option<Arc<Footprint>>>,
    /// Address-taken locals whose address never reaches memory (`Program::unescaped_locals`).
    unescaped: FxHashMap<FuncId, Arc<Vec<LocalId>>>,
    /// The constants each function can return, when it returns only constants (`returns`).
    return_constants: FxHashMap<FuncId, Option<Arc<[i64]>>>,
    /// The parameter each function always returns unchanged, if any (`returns`).
    returned_params: FxHashMap<FuncId, Option<usize>>,
    /// Statements a call of each function may walk (`returns::heavy`).
    weights: FxHashMap<FuncId, usize>,
    /// The parameters each function frees unless NULL (`Program::freed_params`).
    freed_params: FxHashMap<FuncId, Arc<Vec<bool>>>,
    /// The parameters each function compares itself (`nonnull_params::tested_params`).
    tested_params: FxHashMap<FuncId, Arc<Vec<bool>>>,
}

/// What the engine is looking at: set while a slot is processed (or a fact stored), read by
/// the helpers that depend on where they are asked.
struct Cursor {
    /// The witness origin of the slot being processed (facts it inserts inherit it).
    witness: Option<SlotId>,
    /// The context of the slot being processed.
    ctx: Ctx,
    /// The program point whose footprint facts hold for the values being compared: a
    /// statement being applied (facts across it), or the point right after a statement (a
    /// fact being stored there).
    point: Option<FootprintPoint>,
    /// While the assignment being applied writes into a block only this local can reach
    /// (see `sites::fresh_writes`): locations reached through any other pointer are apart
    /// from the written one.
    fresh_base: Option<Sym>,
    /// The statement of the slot being processed (parameters still holding their entry
    /// value there are bound to the caller's argument, `mapping::Bindings::early`).
    at: Option<(FuncId, NodeId)>,
}

/// Run one probe of function `func` to a verdict.
pub fn run_probe(
    prog: &dyn Program,
    func: FuncId,
    site: &ProbeSite,
    cfg: EngineConfig,
) -> ProbeResult {
    let precise = precise_walk(prog, func, site, cfg);
    match coarse_walk(prog, func, site, cfg, &precise) {
        Some(coarse) => with_coarse(precise, &coarse),
        None => precise,
    }
}

/// The precise backward walk of the probe at `site`: every verdict but the proofs the coarse
/// walk adds. A leak is found by this walk alone.
pub fn precise_walk(
    prog: &dyn Program,
    func: FuncId,
    site: &ProbeSite,
    cfg: EngineConfig,
) -> ProbeResult {
    walk(prog, func, site, cfg)
}

/// For a probe the precise walk abandoned on budget (`precise`), the walk again with every
/// branch condition taken as true and facts reduced to S, the hits and the tags
/// (`EngineConfig::ignore_conditions`). Far fewer facts differ from path to path, so a proof
/// that needs none of the dropped knowledge (a reference loaded from memory nothing writes
/// before the probe, through a loop whose conditions split the precise walk) is found within
/// the budget. `None` when the precise walk was not abandoned on budget.
pub fn coarse_walk(
    prog: &dyn Program,
    func: FuncId,
    site: &ProbeSite,
    cfg: EngineConfig,
    precise: &ProbeResult,
) -> Option<ProbeResult> {
    if cfg.ignore_conditions
        || !matches!(precise.verdict, Verdict::Unproved(Unproved::Budget { .. }))
    {
        return None;
    }
    let cfg = EngineConfig {
        ignore_conditions: true,
        ..cfg
    };
    Some(walk(prog, func, site, cfg))
}

/// The probe's verdict from both walks: the coarse walk's proof, or else the precise walk's
/// verdict (the coarse walk's other verdicts are about paths that may not exist).
pub fn with_coarse(precise: ProbeResult, coarse: &ProbeResult) -> ProbeResult {
    let transfers = precise.transfers + coarse.transfers;
    match &coarse.verdict {
        Verdict::Proved { .. } => ProbeResult {
            verdict: coarse.verdict.clone(),
            transfers,
        },
        _ => ProbeResult {
            verdict: precise.verdict,
            transfers,
        },
    }
}

/// One backward walk of the probe at `site` under `cfg`.
fn walk(prog: &dyn Program, func: FuncId, site: &ProbeSite, cfg: EngineConfig) -> ProbeResult {
    let mut eng = Engine::new(prog, cfg, func, site);
    eng.start(func, site);
    eng.run();
    eng.report_stats(site);
    eng.finish()
}

impl<'p> Engine<'p> {
    /// An engine for one probe of `func` at `site`, before its starting fact.
    fn new(prog: &'p dyn Program, cfg: EngineConfig, func: FuncId, site: &ProbeSite) -> Self {
        Engine {
            prog,
            cfg,
            arena: Arena::new(prog.env(), prog.classes()),
            caches: Caches::default(),
            worklist: Worklist::default(),
            contexts: Contexts::new(),
            verdict: VerdictState::new(func, site),
            cursor: Cursor {
                witness: None,
                ctx: Ctx::BASE,
                point: None,
                fresh_base: None,
                at: None,
            },
            stats: stats::Stats::new(func),
        }
    }

    pub(super) fn body(&mut self, f: FuncId) -> Arc<FunctionIr> {
        if let Some(b) = self.caches.bodies.get(&f) {
            return b.clone();
        }
        let b = self.prog.body(f);
        self.arena.learn_function(f, &b);
        let scalars = self.prog.scalar_locals(f);
        self.arena.learn_scalar_locals(f, scalars.iter().copied());
        self.caches.bodies.insert(f, b.clone());
        b
    }

    fn local_name(&self, f: FuncId, l: LocalId) -> String {
        self.caches
            .bodies
            .get(&f)
            .and_then(|b| b.locals.get(l.0 as usize))
            .map(|l| l.name.clone())
            .unwrap_or_else(|| format!("local{}", l.0))
    }

    pub(super) fn show(&self, e: E) -> String {
        let names = |f: FuncId, l: LocalId| self.local_name(f, l);
        display(&self.arena, e, &names)
    }

    pub(super) fn loc(&self, f: FuncId, n: NodeId) -> Loc {
        Loc { func: f, node: n }
    }

    pub(super) fn stmt_text(&mut self, f: FuncId, n: NodeId) -> String {
        let b = self.body(f);
        display_stmt(&b, &b.node(n).stmt.kind, Notation::Source)
    }

    /// Translate an IR expression of `f` as seen in the current context (parameter bindings
    /// of the context applied).
    pub(super) fn tr(&mut self, f: FuncId, e: crate::ir::ExprId) -> E {
        let ctx = self.cursor.ctx;
        self.tr_in(f, ctx, e)
    }

    pub(super) fn tr_in(&mut self, f: FuncId, ctx: Ctx, e: crate::ir::ExprId) -> E {
        let b = self.body(f);
        let x = self.arena.translate(f, &b, e);
        self.bind(f, ctx, x)
    }

    pub(super) fn local_addr(&mut self, f: FuncId, l: LocalId) -> E {
        if let Some(e) = self.caches.local_addrs.get(&(f, l)) {
            return *e;
        }
        let b = self.body(f);
        let ty = b.local(l).ty.clone();
        let e = self.arena.addr_local(f, l, &ty);
        self.caches.local_addrs.insert((f, l), e);
        e
    }

    pub(super) fn field_addr(&mut self, base: E, field: &str) -> E {
        let sty = self
            .arena
            .env()
            .resolve(&self.arena.ty(base).pointee().cloned().unwrap_or_default());
        let fty = self.arena.env().field_type(&sty, field);
        let n = self.arena.string(field);
        self.arena.mk(EKind::Field(base, n), &Type::pointer_to(fty))
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
        self.arena.int(0)
    }

    pub(super) fn has_unknown(&self, e: E) -> bool {
        match self.arena.kind(e) {
            EKind::Unknown => true,
            EKind::Deref(x) | EKind::Field(x, _) => self.has_unknown(*x),
            EKind::Bin(_, l, r) => self.has_unknown(*l) || self.has_unknown(*r),
            _ => false,
        }
    }

    /// The address `x` of a location `*x` (`None` for anything else).
    pub(super) fn addr_of(&self, e: E) -> Option<E> {
        match *self.arena.kind(e) {
            EKind::Deref(x) => Some(x),
            _ => None,
        }
    }
}

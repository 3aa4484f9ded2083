//! The demand-driven worklist of Figure 8: the probe's starting fact, the slots (a fact
//! *after* a node, per context, separated by the regions of its hit expressions, §4.8), one
//! step per statement kind, and the entry of a function (summaries and unmapping to callers).

use super::calls::{NoBody, PathEnd};
use super::frames::{FootprintPoint, Frames, PointAt};
use super::transfer::AllocResult;
use super::verdict::{InputCondition, Outcome, UntestedNull, cond_text};
use super::{Ctx, Engine, SlotId};
use crate::ir::{
    BinOp, Callee, ExprId, ExprKind, FunctionIr, LocalId, LocalKind, NodeId, Notation, StmtKind,
    Symbol, Type, display_stmt,
};
use crate::probe::expr::{E, EKind, Sym};
use crate::probe::state::{Constraint, Fact, FactIndex, Rel};
use crate::probe::{FuncId, ProbeSite, Start, Subject};
use crate::regions::RegionSet;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::collections::VecDeque;

/// Separated facts kept at one program point before facts with the same hit regions merge
/// regardless of their constraints (keeps loops finite).
const MAX_SLOTS_PER_POINT: usize = 12;

/// Facts that differ only in constraints on members of a variable's block (`s->isOwner ==
/// 0` on one path, `!= 0` on the other) are kept apart while a point holds fewer facts than
/// this; past it they are joined (and forget those constraints), as facts that differ only
/// in other expressions always are. Kept apart at every point, the corpus lost 0.9 points
/// of resolved probes (session 16).
const MEMBER_SPLIT_SLOTS: usize = 3;

/// How a slot's fact got there: a leak's trace follows it from the allocation forward.
#[derive(Clone, Debug)]
pub(super) enum Prov {
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

/// The worklist of Figure 8: every fact stored so far, where, and which wait to be processed.
#[derive(Default)]
pub(super) struct Worklist {
    pub(super) slots: Vec<Slot>,
    /// The slots of each program point and context (separated facts, at most
    /// `MAX_SLOTS_PER_POINT`).
    pub(super) slots_at: FxHashMap<(FuncId, NodeId, Ctx), SmallVec<[SlotId; 2]>>,
    pub(super) queue: VecDeque<SlotId>,
    /// Slots whose fact just passed the tests of an `#if` arm (`insert_preds`): processed when
    /// `queue` is empty, so that the facts of the group's other arms join them first (facts
    /// that differ only in those tests join losslessly) instead of after they were followed.
    pub(super) deferred: VecDeque<SlotId>,
    /// Set while the facts being inserted passed such tests.
    pub(super) deferring: bool,
    /// Transfer-function applications so far (the budget).
    pub(super) transfers: u32,
    /// Set when the budget ran out while a leak's witness was still deciding in the callers:
    /// the extra transfers the witness gets, during which only witness slots are processed.
    pub(super) witness_only: Option<u32>,
    /// The validating slots whose witness checks only the path into the callee that made the
    /// block (see the `Alloc` arm of `step_node`): back in the base context, the leak is confirmed.
    pub(super) callee_witnesses: rustc_hash::FxHashSet<SlotId>,
}

/// A fact right after a node, in a context. Facts with the same index at a point join.
pub(super) struct Slot {
    pub(super) func: FuncId,
    pub(super) node: NodeId,
    pub(super) ctx: Ctx,
    pub(super) index: FactIndex,
    /// `index` without the constraints on members (see `MEMBER_SPLIT_SLOTS`).
    pub(super) plain: FactIndex,
    pub(super) fact: Fact,
    pub(super) prov: Prov,
    pub(super) queued: bool,
    /// For a feasibility witness: the slot whose allocation validated the cell. A witness
    /// carries only the constraints of that fact backward from the allocation; reaching an
    /// entry shows the path to the allocation is feasible, and the leak is reported.
    pub(super) witness_of: Option<SlotId>,
}

/// `REDUCTIO_TRACE=1` prints every worklist step to stderr (for developing the analysis);
/// `REDUCTIO_TRACE=NAME` only the steps of probes in function `NAME` (on a whole project).
fn trace_filter() -> Option<&'static str> {
    static ON: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    ON.get_or_init(|| {
        std::env::var("REDUCTIO_TRACE")
            .ok()
            .filter(|v| !v.is_empty() && v != "0")
    })
    .as_deref()
}

impl<'p> Engine<'p> {
    pub(super) fn start(&mut self, func: FuncId, site: &ProbeSite) {
        let b = self.body(func);
        let node = site.node;
        match &site.subject {
            Subject::Location {
                place,
                new_value,
                prefix,
            } => {
                let addr = self.place(func, place);
                let loc = self.arena.deref(addr);
                let s0 = self.arena.pt(addr);
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
                    Start::Before => self.insert_preds(func, node, Ctx::BASE, f, Prov::Start),
                    Start::After => self.insert(func, node, Ctx::BASE, f, Prov::Start),
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
                            let ty = self.arena.ty(ret_addr).clone();
                            ret_addr = self.arena.mk(EKind::Addr(Sym::Frozen(0, g, r)), &ty);
                        }
                        let ret_val = self.arena.deref(ret_addr);
                        // The fact right before M2 (`*dest ← ret`) or M3 (`ret ← 0`).
                        let f0 = match dest_e {
                            Some(d) => {
                                let s0 = self.arena.pt(d);
                                let loc = self.arena.deref(d);
                                Fact::probe(s0, loc, [ret_val])
                            }
                            None => {
                                let s0 = self.arena.pt(ret_addr);
                                Fact::probe(s0, ret_val, [])
                            }
                        };
                        let Some(f0) = self.finish_fact(f0) else {
                            self.refute(func, node, "the result is the same reference".into());
                            return;
                        };
                        self.enter_callee(func, node, Ctx::BASE, f0, g, None, true, Frames::Exact);
                    }
                    None => {
                        // A body-less callee: the old value is lost when the result lands.
                        let Some(d) = dest_e else { return };
                        let s0 = self.arena.pt(d);
                        let loc = self.arena.deref(d);
                        let f0 = Fact::probe(s0, loc, []);
                        let Some(f0) = self.finish_fact(f0) else {
                            return;
                        };
                        let name = match callee {
                            Callee::Direct(n) => Some(n.clone()),
                            Callee::Indirect(_) => None,
                        };
                        let at = self.loc(func, node);
                        match self.bodyless_call(
                            &f0,
                            (name.as_deref(), NoBody::Missing),
                            Some(d),
                            &args_e,
                            true,
                            at,
                        ) {
                            Ok(f) => self.insert_preds(func, node, Ctx::BASE, f, Prov::Start),
                            Err(PathEnd::Refuted(why)) => self.refute(func, node, why),
                            Err(PathEnd::Escaped(callee)) => self.escaped(func, node, callee),
                        }
                    }
                }
            }
        }
    }

    pub(super) fn run(&mut self) {
        if self.arena.take_overflow() {
            self.verdict.outcome = Some(Outcome::Budget(format!(
                "an expression grew past {} nodes",
                crate::probe::expr::MAX_EXPR_SIZE
            )));
            return;
        }
        loop {
            let next = if self.cfg.lifo {
                self.worklist.queue.pop_back()
            } else {
                self.worklist.queue.pop_front()
            }
            .or_else(|| self.worklist.deferred.pop_front());
            let Some(id) = next else {
                if self.worklist.witness_only.is_some() && self.verdict.outcome.is_none() {
                    // Every witness path was contradicted: the leak found is not one; the
                    // exploration had stopped on budget.
                    self.verdict.pending_leak = None;
                    self.verdict.outcome = Some(Outcome::Budget(format!(
                        "more than {} transfer-function applications",
                        self.cfg.max_transfers
                    )));
                }
                break;
            };
            if self.verdict.outcome.is_some() {
                return;
            }
            self.worklist.slots[id as usize].queued = false;
            self.worklist.transfers += 1;
            if self.worklist.transfers > self.cfg.max_transfers {
                if self.verdict.pending_leak.is_some() && self.worklist.witness_only.is_none() {
                    // A leak was found and its witness is still deciding, in the callers,
                    // whether its path can be taken: the exploration stops here, the witness
                    // gets half the budget again to finish (only its slots are processed).
                    self.worklist.witness_only = Some(self.cfg.max_transfers / 2);
                    self.worklist
                        .queue
                        .retain(|&s| self.worklist.slots[s as usize].witness_of.is_some());
                    self.worklist
                        .deferred
                        .retain(|&s| self.worklist.slots[s as usize].witness_of.is_some());
                    self.worklist.queue.push_front(id);
                    self.worklist.slots[id as usize].queued = true;
                    continue;
                }
                let extra = self.worklist.witness_only.unwrap_or(0);
                if self.worklist.transfers > self.cfg.max_transfers + extra {
                    self.verdict.outcome = Some(Outcome::Budget(format!(
                        "more than {} transfer-function applications",
                        self.cfg.max_transfers
                    )));
                    return;
                }
                if self.worklist.slots[id as usize].witness_of.is_none() {
                    // Witness-only: facts of the exploration are no longer followed.
                    continue;
                }
            }
            if self.worklist.transfers.is_multiple_of(64) {
                self.prog.checkpoint();
            }
            if self.stats.is_some() {
                self.count_step(id);
            }
            self.step(id);
            if self.arena.take_overflow() {
                // A hit, a miss or a tag would have held an expression over the size bound:
                // the fact computed with its stand-in is not trusted, the probe gives up.
                self.verdict.outcome = Some(Outcome::Budget(format!(
                    "an expression grew past {} nodes (repeated arithmetic on one value, as in a hash function)",
                    crate::probe::expr::MAX_EXPR_SIZE
                )));
                return;
            }
        }
    }

    fn step(&mut self, id: SlotId) {
        // Footprint facts hold at the statement being applied; a call or an entry moves to
        // other frames, where they do not.
        let (func, node) = (
            self.worklist.slots[id as usize].func,
            self.worklist.slots[id as usize].node,
        );
        let b = self.body(func);
        self.cursor.point = match b.node(node).stmt.kind {
            StmtKind::Call { .. } | StmtKind::Enter => None,
            _ => Some(FootprintPoint {
                func,
                node,
                at: PointAt::Across,
            }),
        };
        self.step_node(id);
        self.cursor.point = None;
    }

    fn step_node(&mut self, id: SlotId) {
        let (func, node, ctx) = {
            let s = &self.worklist.slots[id as usize];
            (s.func, s.node, s.ctx)
        };
        let d = self.worklist.slots[id as usize].fact.clone();
        self.cursor.witness = self.worklist.slots[id as usize].witness_of;
        self.cursor.ctx = ctx;
        self.cursor.at = Some((func, node));
        if ctx == Ctx::BASE
            && let Some(w) = self.cursor.witness
            && self.worklist.callee_witnesses.contains(&w)
        {
            // A callee's witness is back at its call in the base context: the arguments did
            // not contradict the callee's path to the allocation.
            self.confirm_witness(w, &d);
            return;
        }
        let b = self.body(func);
        if let Some(only) = trace_filter()
            && (only == "1" || only == self.prog.function_name(self.verdict.probe_func))
        {
            crate::probe::expr::SHOW_FRAMES.store(true, std::sync::atomic::Ordering::Relaxed);
            let text = display_stmt(&b, &b.node(node).stmt.kind, Notation::C);
            eprintln!(
                "[{} n{} ctx{}{}] {text}\n    {}",
                self.prog.function_name(func),
                node.0,
                ctx,
                if self.cursor.witness.is_some() {
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
                self.cursor.fresh_base = self.fresh_write(func, node);
                let r = self.assign_split(&d, e0, e1);
                self.cursor.fresh_base = None;
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
                let d = if crate::ir::library::zeroes_memory(&site.allocator) {
                    match self.zero_new_block(&d, e0) {
                        Some(f) => f,
                        None => {
                            let t = self.stmt_text(func, node);
                            self.refute(
                                func,
                                node,
                                format!("`{t}` (zeroed memory) contradicts it"),
                            );
                            return;
                        }
                    }
                } else {
                    d
                };
                let fresh = crate::ir::library::fresh_contents(&site.allocator);
                match self.alloc(&d, e0, fresh) {
                    AllocResult::Contradiction => {
                        let t = self.stmt_text(func, node);
                        self.refute(func, node, format!("`{t}` contradicts it"));
                    }
                    AllocResult::Continue(f) => self.insert_preds(func, node, ctx, *f, edge),
                    AllocResult::Validated { .. } if self.cursor.witness.is_some() => {
                        // A witness carries no cell: allocations are plain writes for it.
                        let fresh = self.arena.mk(EKind::Num, &Type::Int);
                        if let Some(f) = self.assign(&d, e0, fresh) {
                            self.insert_preds(func, node, ctx, f, edge);
                        }
                    }
                    AllocResult::Validated { evidence: false } => {
                        let loc = self.loc(func, node);
                        self.verdict.imprecise(
                            format!(
                                "lost track of the reference (aliasing the analysis cannot resolve); the block may come from this `{}`",
                                site.allocator
                            ),
                            loc,
                        );
                    }
                    AllocResult::Validated { evidence: true } => {
                        if let Some(why) = self.exiting_only(&d) {
                            // Lost only while the process ends: no leak of a run.
                            let loc = self.loc(func, node);
                            self.verdict.imprecise(
                                format!(
                                    "the block from this `{}` is lost only while the program is exiting: {why}",
                                    site.allocator
                                ),
                                loc,
                            );
                            return;
                        }
                        if d.tainted {
                            let loc = self.loc(func, node);
                            self.verdict.unsupported(
                                format!(
                                    "the path to this `{}` crosses code the analysis does not model (or a write through a pointer of unknown type)",
                                    site.allocator
                                ),
                                loc,
                            );
                            return;
                        }
                        // The allocation validates the cell; a feasibility witness checks that
                        // the path to it can be taken: under the constraints gathered so far,
                        // and, with none, under the conditions above the allocation, which
                        // are still to meet each other and the inputs. In the base context
                        // an ordinary witness (it reports the leak, or the block's escape,
                        // at an entry: `at_entry`); in a callee context (`if (!fmt) return
                        // -1;` called with `fmt` NULL) one confirmed once back in the base
                        // context (`confirm_witness`).
                        if d.constraints.is_empty() {
                            if ctx != Ctx::BASE {
                                self.worklist.callee_witnesses.insert(id);
                            }
                            if self.verdict.pending_leak.is_none() {
                                // Reported if the budget runs out before the witness decides
                                // (as before such witnesses existed); dropped if all its
                                // paths die (`witness_only`).
                                self.verdict.pending_leak = Some((id, node));
                            }
                        }
                        let fresh = self.arena.mk(EKind::Num, &Type::Int);
                        let mut w = d.clone();
                        w.hits.clear();
                        w.misses.clear();
                        w.regions = RegionSet::empty();
                        w.tags.clear();
                        if let Some(f) = self.assign(&w, e0, fresh) {
                            let b2 = self.body(func);
                            for &p in &b2.node(node).preds {
                                let Some(f) = self.after_temp_deaths(func, p, &f) else {
                                    continue;
                                };
                                self.insert_w(func, p, ctx, f.clone(), Prov::Edge(id), Some(id));
                            }
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
            StmtKind::Cond { .. } if self.cfg.ignore_conditions => {
                self.insert_preds(func, node, ctx, d, edge)
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
            StmtKind::ZeroFill { addr } => {
                let obj = self.tr(func, *addr);
                match self.zero_object(&d, obj) {
                    Some(f) => self.insert_preds(func, node, ctx, f, edge),
                    None => {
                        let place = crate::ir::display_place(&b, *addr);
                        let why =
                            format!("every byte of `{place}` is zeroed here, which contradicts it");
                        self.refute(func, node, why);
                    }
                }
            }
            StmtKind::Return { .. } | StmtKind::Nop => self.insert_preds(func, node, ctx, d, edge),
            StmtKind::Opaque { reads, reason } => {
                let mut w = RegionSet::all_memory();
                for r in reads {
                    let e = self.tr(func, *r);
                    if let EKind::Deref(x) = *self.arena.kind(e) {
                        let p = self.arena.pt(x);
                        w.union_with(&p);
                    }
                }
                // Opaque code may write all memory: `havoc` taints the fact.
                let f = self.havoc(&d, &w);
                if !d.hits.is_empty() {
                    let loc = self.loc(func, node);
                    self.verdict
                        .unsupported(format!("unsupported code: {reason}"), loc);
                }
                self.insert_preds(func, node, ctx, f, edge);
            }
            StmtKind::Call { dest, callee, args } => {
                self.at_call(id, func, node, ctx, &d, *dest, callee, args)
            }
        }
    }

    /// At the entry of the probe's function (the path's callers not yet known): the path
    /// needs a parameter to be NULL that every known call passes non-NULL
    /// (`Program::nonnull_params`), so no caller takes it.
    fn null_parameter_no_caller_passes(&mut self, func: FuncId, f: &Fact) -> Option<String> {
        if f.constraints.is_empty() {
            return None;
        }
        let nonnull = self.prog.nonnull_params(func);
        if !nonnull.iter().any(|&b| b) {
            return None;
        }
        let b = self.body(func);
        let p =
            self.param_needed_null(func, &b, f, |k| nonnull.get(k).copied().unwrap_or(false))?;
        let name = &b.local(p).name;
        Some(format!(
            "the path needs `{name}` to be NULL on entry, and every call of `{}` passes a non-NULL `{name}`",
            self.prog.function_name(func)
        ))
    }

    /// The first parameter of `func` (body `b`) that `keep` admits (by position)
    /// and that the constraints of `f` need NULL: `v == 0`, or for a pointer the same said
    /// as `v <= 0` or `v < 1`.
    fn param_needed_null(
        &mut self,
        func: FuncId,
        b: &FunctionIr,
        f: &Fact,
        keep: impl Fn(usize) -> bool,
    ) -> Option<LocalId> {
        for (k, &p) in b.params.iter().enumerate() {
            if !keep(k) {
                continue;
            }
            let a = self.local_addr(func, p);
            let v = self.arena.deref(a);
            if f.constraints.iter().any(|c| {
                c.e == v && matches!((c.rel, c.k), (Rel::Eq, 0) | (Rel::Le, 0) | (Rel::Lt, 1))
            }) {
                return Some(p);
            }
        }
        None
    }

    /// At an entry the witness reaches with conditions still to decide: a pointer parameter
    /// the path needs NULL there that `func` never tests itself (`tested_params`), only
    /// passes on to a callee whose `if (!h) return;` dropped the block, and that no chain of
    /// known calls passes an explicit NULL (`Program::null_passed_params`). Such a path
    /// leaks only if a caller passes NULL where the function's own code assumes it does
    /// not: it depends on the callers (`UntestedNull`), and reaching an entry without
    /// callers does not confirm it while every such path so far has needed it.
    fn untested_null_parameter(&mut self, func: FuncId, f: &Fact) -> Option<InputCondition> {
        if f.constraints.is_empty() {
            return None;
        }
        let tested = match self.caches.tested_params.get(&func) {
            Some(t) => t.clone(),
            None => {
                let t = std::sync::Arc::new(crate::probe::nonnull_params::tested_params(
                    &self.body(func),
                ));
                self.caches.tested_params.insert(func, t.clone());
                t
            }
        };
        let b = self.body(func);
        // Known: no chain of calls passes it an explicit NULL (a host that does not know
        // says nothing, and then any parameter may be).
        let passed_null = self.prog.null_passed_params(func);
        let pointer: Vec<bool> = b
            .params
            .iter()
            .map(|&p| self.arena.env().resolve(&b.local(p).ty).is_pointer())
            .collect();
        let p = self.param_needed_null(func, &b, f, |k| {
            pointer[k]
                && !tested.get(k).copied().unwrap_or(true)
                && !passed_null.get(k).copied().unwrap_or(true)
        })?;
        let name = &b.local(p).name;
        let fname = self.prog.function_name(func);
        Some(InputCondition {
            function: func,
            condition: format!(
                "the leak found needs `{name}` to be NULL on entry, and `{fname}` never tests `{name}` itself: it only passes it on to code that does"
            ),
        })
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
        if ctx == Ctx::BASE
            && let Some(why) = self.null_parameter_no_caller_passes(func, &f)
        {
            self.refute(func, node, why);
            return;
        }
        if ctx == Ctx::BASE
            && let Some(w) = self.cursor.witness
        {
            // A feasible path leads from an entry to the validating allocation.
            let alloc_node = self.worklist.slots[w as usize].node;
            // The callers are asked for only when the path still has conditions to decide (a
            // path without any reaches an entry feasibly, whoever calls the function) and
            // the fact can still end in a leak.
            let callers = if f.constraints.is_empty() || f.unknown_drop.is_some() || f.assumed {
                Vec::new()
            } else {
                self.prog.callers(func)
            };
            let untested = if f.unknown_drop.is_some() || f.assumed {
                None
            } else {
                self.untested_null_parameter(func, &f)
            };
            if callers.is_empty()
                && !matches!(self.verdict.untested_null, UntestedNull::NotAll)
                && let Some(c) = untested
            {
                // No caller to ask: the path needs a NULL that the function's own code never
                // expects. It depends on the function's callers, wherever they are.
                self.verdict.untested_null.see(Some(c.clone()));
                if self.verdict.input_dependent.is_none() {
                    self.verdict.input_dependent = Some(c);
                }
                return;
            }
            if !callers.is_empty() {
                self.verdict.untested_null.see(untested);
                // The path's conditions still constrain this function's inputs (`h == NULL`
                // for a parameter every caller passes as `&list`): follow the witness into
                // the callers, where the arguments may contradict them. The leak is kept as
                // found; it is reported if the budget runs out first, and dropped only if
                // every caller path contradicts the conditions.
                if self.verdict.pending_leak.is_none() {
                    self.verdict.pending_leak = Some((w, alloc_node));
                    let cond = self.describe_constraints(&f);
                    let loc = self.loc(func, node);
                    self.verdict.pending_condition = Some((loc, cond));
                }
                self.unmap_to_callers(id, func, &f, callers);
                return;
            }
            self.confirm_witness(w, &f);
            return;
        }
        if ctx != Ctx::BASE {
            self.contexts
                .summaries
                .entry((func, ctx))
                .or_default()
                .push(id);
            let regs = self
                .contexts
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
            let loc = self.loc(func, node);
            self.verdict.unsupported(
                "the block may come from code the analysis did not follow (a call too deep, or unsupported code)".into(),
                loc,
            );
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
            if self.verdict.input_dependent.is_none() {
                let cond = self.describe_input(&f);
                self.verdict.input_dependent = Some(InputCondition {
                    function: func,
                    condition: cond,
                });
            }
            return;
        }
        self.unmap_to_callers(id, func, &f, callers);
    }

    /// A witness shows the path to the allocation of slot `w` feasible (`f` its fact where
    /// it does): the leak, unless the fact says otherwise.
    fn confirm_witness(&mut self, w: SlotId, f: &Fact) {
        let alloc_node = self.worklist.slots[w as usize].node;
        if let Some(u) = f.unknown_drop {
            self.dropped_leak(u);
            return;
        }
        if f.assumed {
            let loc = self.loc(self.worklist.slots[w as usize].func, alloc_node);
            self.assumed_leak(loc, "this allocation");
            return;
        }
        self.verdict.outcome = Some(Outcome::Leak {
            slot: w,
            alloc_node,
        });
    }

    /// A fact at the entry of `func` (in the base context) goes on before each call site
    /// (Unmap). A call whose arguments contradict it refutes that path (a witness's dead path
    /// refutes nothing: `refute` ignores it).
    fn unmap_to_callers(
        &mut self,
        id: SlotId,
        func: FuncId,
        f: &Fact,
        callers: Vec<(FuncId, NodeId)>,
    ) {
        for (cf, cn) in callers {
            let Some(g) = self.unmap(f, func, Ctx::BASE, cf, cn, None) else {
                let name = self.prog.function_name(func);
                self.refute(cf, cn, format!("contradiction at the call of `{name}`"));
                continue;
            };
            if let Some(why) = self.caller_still_holds(&g, func) {
                self.refute(cf, cn, why);
                continue;
            }
            self.insert_preds(
                cf,
                cn,
                Ctx::BASE,
                g,
                Prov::Unmap {
                    entry: id,
                    call_node: cn,
                    caller: None,
                },
            );
        }
    }

    /// The probe's point lies inside this call of `func` (a base frame: the call has not
    /// returned when the probe's reference is lost). A location of the caller's that
    /// references the cell before the call (a hit of `g`: `*slot` passed down as
    /// `f(*slot)`, or `s` whose address `f(&s)` passes) still references it at the probe's
    /// point if `func` cannot write it (its MOD regions, transitively, and no write through
    /// a `void **` argument) nor free the block holding it (a variable is never freed;
    /// memory only when `func` frees nothing): the probe's reference was not the last one.
    /// A borrowed string handed down to a parser that returns with its formal leaks nothing.
    fn caller_still_holds(&mut self, g: &Fact, func: FuncId) -> Option<String> {
        let w = self.mod_regions(func)?;
        let ms = self.prog.mod_set(func);
        if ms.generic_slots {
            return None;
        }
        let frees = ms.frees_untyped || !ms.frees.is_empty();
        for h in g.hits.clone() {
            let EKind::Deref(x) = *self.arena.kind(h) else {
                continue;
            };
            if crate::probe::state::mentions_unknown_value(&self.arena, h) {
                continue;
            }
            let reads = self.arena.reads(h);
            if reads.all_memory || reads.intersects(&w) {
                continue;
            }
            let in_variable = matches!(self.arena.kind(x), EKind::Addr(_));
            if !in_variable && frees {
                continue;
            }
            let text = self.show(h);
            let name = self.prog.function_name(func);
            return Some(format!(
                "`{text}` still references it while `{name}` runs (it neither writes nor frees it)"
            ));
        }
        None
    }

    pub(super) fn insert(&mut self, func: FuncId, node: NodeId, ctx: Ctx, fact: Fact, prov: Prov) {
        let witness = self.cursor.witness;
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
        if self.verdict.outcome.is_some() {
            return;
        }
        let mut fact = fact;
        if self.cfg.ignore_conditions {
            // The coarse walk keeps only S, the hits and the tags: dropping the rest of what
            // a fact knows weakens it (more states), so its contradictions still hold, and
            // facts that differed only in what was dropped become one.
            fact.misses.clear();
            fact.constraints.clear();
            fact.relations.clear();
        }
        if fact.regions.len() as u32 > self.cfg.max_regions {
            self.verdict.outcome = Some(Outcome::Budget(format!(
                "the region set grew past {} regions",
                self.cfg.max_regions
            )));
            return;
        }
        let saved = (
            self.cursor.point.replace(FootprintPoint {
                func,
                node,
                at: PointAt::After,
            }),
            self.cursor.ctx,
        );
        self.cursor.ctx = ctx;
        let apart = fact
            .relations
            .iter()
            .find(|r| r.eq && self.frames_apart(r.l, r.r))
            .cloned();
        (self.cursor.point, self.cursor.ctx) = saved;
        if let Some(r) = apart {
            let why = format!(
                "`{}` would be passed again to a call of `{}` that is still running, which would then never return",
                self.show(r.l),
                self.prog.function_name(func)
            );
            self.refute(func, node, why);
            return;
        }
        let mut index = fact.index(&mut self.arena);
        index.witness = witness_of.is_some();
        let plain = index.plain(&self.arena);
        let key = (func, node, ctx);
        if let Some(ids) = self.worklist.slots_at.get(&key) {
            let full = ids.len() >= MAX_SLOTS_PER_POINT;
            let crowded = ids.len() >= MEMBER_SPLIT_SLOTS;
            let joins = |id: &SlotId| {
                self.worklist.slots[*id as usize]
                    .fact
                    .joins_losslessly(&fact, &self.arena)
            };
            let target = ids
                .iter()
                .copied()
                .find(|id| self.worklist.slots[*id as usize].index == index && joins(id))
                .or_else(|| {
                    // Past a few facts at this point, constraints on members no longer
                    // keep paths apart: only those on variables do.
                    crowded
                        .then(|| {
                            ids.iter().copied().find(|id| {
                                self.worklist.slots[*id as usize].plain == plain && joins(id)
                            })
                        })
                        .flatten()
                })
                .or_else(|| {
                    full.then(|| {
                        ids.iter().copied().find(|id| {
                            self.worklist.slots[*id as usize].index.regions == index.regions
                        })
                    })
                    .flatten()
                });
            if let Some(id) = target {
                if let Some(st) = self.stats.as_mut() {
                    let forced = self.worklist.slots[id as usize].index != index;
                    st.joined(forced);
                }
                let changed = self.worklist.slots[id as usize].fact.join(&fact);
                if let Some(st) = self.stats.as_mut() {
                    let f = &self.worklist.slots[id as usize].fact;
                    st.stored(f.regions.len() as u32, f.constraints.len() as u32);
                }
                if changed && !self.worklist.slots[id as usize].queued {
                    self.worklist.slots[id as usize].queued = true;
                    if self.worklist.deferring {
                        self.worklist.deferred.push_back(id);
                    } else {
                        self.worklist.queue.push_back(id);
                    }
                }
                return;
            }
        }
        if let Some(st) = self.stats.as_mut() {
            st.stored(fact.regions.len() as u32, fact.constraints.len() as u32);
        }
        let id = self.worklist.slots.len() as SlotId;
        self.worklist.slots.push(Slot {
            func,
            node,
            ctx,
            index,
            plain,
            fact,
            prov,
            queued: true,
            witness_of,
        });
        self.worklist.slots_at.entry(key).or_default().push(id);
        if self.worklist.deferring {
            self.worklist.deferred.push_back(id);
        } else {
            self.worklist.queue.push_back(id);
        }
    }

    pub(super) fn insert_preds(
        &mut self,
        func: FuncId,
        node: NodeId,
        ctx: Ctx,
        fact: Fact,
        prov: Prov,
    ) {
        let b = self.body(func);
        let Some(fact) = self.dereferenced_nonnull(func, node, ctx, fact) else {
            let t = self.stmt_text(func, node);
            self.refute(
                func,
                node,
                format!("`{t}` dereferences a pointer the path needs to be NULL"),
            );
            return;
        };
        if b.node(node).preds.is_empty() && node != b.entry && !b.fallbacks.is_empty() {
            // Code no path from the entry reaches, in a body with syntax errors: the front end
            // may have lost the edges into it, so the path is not taken to end here.
            let loc = self.loc(func, node);
            self.verdict.unsupported(
                "code the front end could not connect to the function's start (syntax errors)"
                    .into(),
                loc,
            );
            return;
        }
        for &p in &b.node(node).preds {
            let Some(f) = self.after_temp_deaths(func, p, &fact) else {
                continue;
            };
            if let StmtKind::Cond { lhs, op, rhs } = &b.node(p).stmt.kind
                && is_condition_test(&b, *lhs)
            {
                // A test of a preprocessor condition (`ir::lower::unit_conds`) is applied on
                // the way to the statement before it: no slot of its own, so the arms of an
                // `#if` cost no more steps than they did without their tests.
                let l = self.tr(func, *lhs);
                let r = self.tr(func, *rhs);
                match self.cond(&f, l, *op, r) {
                    Some(g) => {
                        let was = std::mem::replace(&mut self.worklist.deferring, true);
                        self.insert_preds(func, p, ctx, g, prov.clone());
                        self.worklist.deferring = was;
                    }
                    None => {
                        let t = cond_text(&b, *lhs, *op, *rhs);
                        self.refute(func, p, format!("the branch `{t}` contradicts it"));
                    }
                }
                continue;
            }
            self.insert(func, p, ctx, f, prov.clone());
        }
    }

    /// The fact before statement `node` runs, with each pointer value the statement
    /// dereferences known to be non-null (`p` in `p->f`, `*p`, `p[i]`): a path on which it
    /// were NULL ends there. `None` when the fact needs one of them to be NULL. Constraints
    /// are only added while the fact carries few (`MAX_NONNULL_CONSTRAINTS`).
    fn dereferenced_nonnull(
        &mut self,
        func: FuncId,
        node: NodeId,
        ctx: Ctx,
        mut fact: Fact,
    ) -> Option<Fact> {
        let derefs = match self.caches.derefs.get(&func) {
            Some(d) => d.clone(),
            None => {
                let d = self.prog.dereferenced_values(func);
                self.caches.derefs.insert(func, d.clone());
                d
            }
        };
        let Some(values) = derefs.get(node.0 as usize) else {
            return Some(fact);
        };
        if values.is_empty() {
            return Some(fact);
        }
        let mut changed = false;
        for &x in values {
            let e = self.tr_in(func, ctx, x);
            if !matches!(self.arena.kind(e), EKind::Deref(_)) {
                continue;
            }
            let mut known = false;
            for c in &fact.constraints {
                if c.e == e {
                    if c.rel == Rel::Eq && c.k == 0 {
                        return None;
                    }
                    known |= c.rel == Rel::Ne && c.k == 0;
                }
            }
            if known || fact.is_hit(e) {
                continue;
            }
            if fact.constraints.len() < MAX_NONNULL_CONSTRAINTS {
                fact.constraints.push(Constraint {
                    e,
                    rel: Rel::Ne,
                    k: 0,
                });
                changed = true;
            }
        }
        if changed {
            fact.normalize();
        }
        Some(fact)
    }

    /// The fact right after statement `node` of `func`, before the temporaries that die there
    /// are cleared (`t ← 0` for each, backwards). `None`: a dead temporary would be the
    /// reference, which C does not have.
    fn after_temp_deaths(&mut self, func: FuncId, node: NodeId, fact: &Fact) -> Option<Fact> {
        let prog = self.prog;
        let deaths = self
            .caches
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
                .hits
                .iter()
                .chain(cur.misses.iter())
                .copied()
                .chain(cur.constraints.iter().map(|c| c.e))
                .chain(cur.relations.iter().flat_map(|r| [r.l, r.r]))
                .chain(cur.tags.iter().map(|(_, x)| *x))
                .any(|e| self.arena.mentions(e, &|s| s == sym));
            if !mentioned {
                // What `assign` would do to a fact that does not read `t`: S grows by its
                // region (tagged with `t`), nothing else changes.
                let w = self.arena.pt(addr);
                let loc = self.arena.deref(addr);
                self.grow_s(&mut cur, &w, Some(loc));
                continue;
            }
            let z = self.zero();
            cur = self.assign(&cur, addr, z)?;
        }
        Some(cur)
    }
}

/// Constraints a fact may carry before `dereferenced_nonnull` stops adding non-null ones.
const MAX_NONNULL_CONSTRAINTS: usize = 6;

/// Per statement, the pointer values it dereferences: for each memory access `*a` (a read,
/// or the location an assignment, allocation or call result writes), the pointer `a` is
/// computed from once member offsets (`p->f.g`) and indexing (`p[i]`) are taken off, when
/// that is a value loaded from memory or a variable (not the address of a variable).
pub fn dereferenced_values(b: &FunctionIr) -> Vec<crate::probe::Derefs> {
    fn base(b: &FunctionIr, mut a: ExprId) -> Option<ExprId> {
        loop {
            match b.exprs.kind(a) {
                ExprKind::Field(x, _) => a = *x,
                ExprKind::Binary(BinOp::Add | BinOp::Sub, x, _) if b.exprs.ty(*x).is_pointer() => {
                    a = *x
                }
                ExprKind::Deref(_) => return Some(a),
                _ => return None,
            }
        }
    }
    fn accessed(b: &FunctionIr, a: ExprId, out: &mut SmallVec<[ExprId; 2]>) {
        if let Some(x) = base(b, a)
            && !out.contains(&x)
        {
            out.push(x);
        }
        reads(b, a, out);
    }
    fn reads(b: &FunctionIr, e: ExprId, out: &mut SmallVec<[ExprId; 2]>) {
        match b.exprs.kind(e) {
            ExprKind::Deref(a) => accessed(b, *a, out),
            ExprKind::Field(x, _) => reads(b, *x, out),
            ExprKind::Binary(_, l, r) => {
                reads(b, *l, out);
                reads(b, *r, out);
            }
            _ => {}
        }
    }
    b.nodes
        .iter()
        .map(|n| {
            let mut out = SmallVec::new();
            match &n.stmt.kind {
                StmtKind::Assign { addr, value } => {
                    accessed(b, *addr, &mut out);
                    reads(b, *value, &mut out);
                }
                StmtKind::Alloc { addr, .. } => accessed(b, *addr, &mut out),
                StmtKind::Cond { lhs, rhs, .. } => {
                    reads(b, *lhs, &mut out);
                    reads(b, *rhs, &mut out);
                }
                StmtKind::Call { dest, args, .. } => {
                    if let Some(d) = dest {
                        accessed(b, *d, &mut out);
                    }
                    for a in args {
                        reads(b, *a, &mut out);
                    }
                }
                StmtKind::Free { ptr } => reads(b, *ptr, &mut out),
                _ => {}
            }
            out
        })
        .collect()
}

/// Whether `lhs` reads a preprocessor condition's variable (`defined(X) @ unit`).
fn is_condition_test(b: &FunctionIr, lhs: ExprId) -> bool {
    matches!(b.exprs.kind(lhs), ExprKind::Deref(a)
        if matches!(b.exprs.kind(*a), ExprKind::Addr(Symbol::Global(g))
            if crate::ir::is_condition_variable(g)))
}

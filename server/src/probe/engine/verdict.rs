//! Verdicts: refutations kept for the report, the outcome of a run (leak, budget, or the
//! reasons a probe stays unproved), the forward trace of a leak, and the text of facts and
//! input conditions.

use super::worklist::Prov;
use super::{Engine, SlotId};
use crate::ir::{CmpOp, FunctionIr, NodeId, Notation, StmtKind};
use crate::probe::expr::{E, EKind};
use crate::probe::state::{Fact, PtrRel};
use crate::probe::{FuncId, Loc, ProbeResult, ProbeSite, TraceStep, Unproved, Verdict};
use crate::regions::Region;
use rustc_hash::{FxHashMap, FxHashSet};

/// Refutations kept for the report.
const MAX_REFUTATIONS: usize = 5;

/// Longest trace followed back (a guard; real traces are far shorter).
const MAX_TRACE: usize = 10_000;

/// What a probe run has found so far, turned into a verdict by `finish`.
pub(super) struct VerdictState {
    /// Where paths were refuted (the first few), for a proof's report.
    pub(super) refutations: Vec<TraceStep>,
    pub(super) refuted_nodes: FxHashSet<(FuncId, NodeId)>,
    /// A leak or an exhausted budget ends the run.
    pub(super) outcome: Option<Outcome>,
    /// The first reason found to leave the probe unproved, of each kind.
    pub(super) input_dependent: Option<InputCondition>,
    pub(super) unsupported: Option<Reason>,
    pub(super) imprecise: Option<Reason>,
    /// The first function a path handed the block to without its body being analysed.
    pub(super) escaped: Option<(String, Loc)>,
    /// A leak whose witness reached an entry with the path's conditions still open and went
    /// on into the callers (the validating slot and its allocation): reported if the budget
    /// runs out before the callers decide, dropped if every caller path contradicts it.
    pub(super) pending_leak: Option<(SlotId, NodeId)>,
    /// Where the pending leak's witness went on into the callers, and the conditions of its
    /// path still open there (shown in the trace if the leak is reported undecided).
    pub(super) pending_condition: Option<(Loc, String)>,
    /// Whether every path of the witness that went on into the callers needed, there, a
    /// pointer parameter to be NULL that its function never tests itself (see
    /// `Engine::untested_null_parameter`): if so, a leak the callers did not decide in time
    /// depends on its callers, and is not reported.
    pub(super) untested_null: UntestedNull,
    /// The probe's node and what happens there, the last step of a leak's trace.
    pub(super) probe_func: FuncId,
    pub(super) probe_node: NodeId,
    pub(super) probe_note: String,
    /// Callees whose body was not followed and that may have written regions of S (see
    /// `Fact::unknown_top`): their description and call site, and the first one per region.
    unknown_writers: Vec<(String, Loc)>,
    unknown_writer_of: FxHashMap<Region, u32>,
}

impl VerdictState {
    pub(super) fn new(func: FuncId, site: &ProbeSite) -> VerdictState {
        VerdictState {
            refutations: vec![],
            refuted_nodes: FxHashSet::default(),
            outcome: None,
            input_dependent: None,
            unsupported: None,
            imprecise: None,
            escaped: None,
            pending_leak: None,
            pending_condition: None,
            untested_null: UntestedNull::Unseen,
            probe_func: func,
            probe_node: site.node,
            probe_note: probe_note(site),
            unknown_writers: vec![],
            unknown_writer_of: FxHashMap::default(),
        }
    }

    /// `who` (called at `at`) may have written region `r` without its body being followed.
    pub(super) fn note_unknown_writer(&mut self, r: Region, who: &str, at: Loc) {
        if self.unknown_writer_of.contains_key(&r) {
            return;
        }
        let i = match self
            .unknown_writers
            .iter()
            .position(|(w, l)| w == who && *l == at)
        {
            Some(i) => i,
            None => {
                self.unknown_writers.push((who.to_string(), at));
                self.unknown_writers.len() - 1
            }
        };
        self.unknown_writer_of.insert(r, i as u32);
    }

    /// The first unfollowed callee noted as writing region `r`.
    pub(super) fn unknown_writer(&self, r: Region) -> Option<u32> {
        self.unknown_writer_of.get(&r).copied()
    }

    /// The path crossed something the analysis does not model (the first reason is kept).
    pub(super) fn unsupported(&mut self, what: String, at: Loc) {
        if self.unsupported.is_none() {
            self.unsupported = Some(Reason { what, at: Some(at) });
        }
    }

    /// The analysis lost track of the reference (the first reason is kept).
    pub(super) fn imprecise(&mut self, what: String, at: Loc) {
        if self.imprecise.is_none() {
            self.imprecise = Some(Reason { what, at: Some(at) });
        }
    }
}

/// Why a probe stays unproved, and where.
pub(super) struct Reason {
    what: String,
    at: Option<Loc>,
}

/// What the witness's paths into the callers needed (`VerdictState::untested_null`).
pub(super) enum UntestedNull {
    /// No path has gone into the callers yet.
    Unseen,
    /// Every one so far needed an untested pointer parameter NULL; the first, described.
    All(InputCondition),
    /// Some path did not.
    NotAll,
}

impl UntestedNull {
    /// One more path of the witness reaches an entry with conditions still to decide.
    pub(super) fn see(&mut self, needs: Option<InputCondition>) {
        *self = match (std::mem::replace(self, UntestedNull::NotAll), needs) {
            (UntestedNull::Unseen, Some(c)) => UntestedNull::All(c),
            (UntestedNull::All(c), Some(_)) => UntestedNull::All(c),
            _ => UntestedNull::NotAll,
        };
    }
}

/// An entry of a function without callers was reached: the condition on its inputs under
/// which it leaks.
#[derive(Clone)]
pub(super) struct InputCondition {
    pub(super) function: FuncId,
    pub(super) condition: String,
}

pub(super) enum Outcome {
    Leak { slot: SlotId, alloc_node: NodeId },
    Budget(String),
}

pub(super) fn probe_note(site: &ProbeSite) -> String {
    use crate::probe::ProbeKind::*;
    let v = &site.variable;
    match site.kind {
        Assignment | Allocation | AssignedReturn => format!("`{v}` is overwritten"),
        FreeField => format!("freed while `{v}` still points to it"),
        ReturnLocal | ScopeEnd => format!("`{v}` goes out of scope"),
        IgnoredReturn => format!("the result of `{v}` is dropped"),
    }
}

/// A condition as C: `p != NULL`, `n == 0`.
pub(super) fn cond_text(
    b: &FunctionIr,
    lhs: crate::ir::ExprId,
    op: CmpOp,
    rhs: crate::ir::ExprId,
) -> String {
    let l = crate::ir::display_expr(b, lhs, Notation::Source);
    let r = crate::ir::display_expr(b, rhs, Notation::Source);
    let pointer = b.exprs.ty(lhs).is_pointer() || b.exprs.ty(rhs).is_pointer();
    let r = if r == "0" && pointer {
        "NULL".to_string()
    } else {
        r
    };
    format!("{l} {} {r}", op.symbol())
}

fn dedup_trace(trace: &mut Vec<TraceStep>) {
    trace.dedup_by(|b, a| a.loc == b.loc && a.note == b.note);
}

impl<'p> Engine<'p> {
    pub(super) fn refute(&mut self, f: FuncId, n: NodeId, why: String) {
        if self.cursor.witness.is_some() {
            return; // a dead witness path is not a refutation of the probe
        }
        if self.verdict.refutations.len() < MAX_REFUTATIONS
            && self.verdict.refuted_nodes.insert((f, n))
        {
            let loc = self.loc(f, n);
            self.verdict.refutations.push(TraceStep { loc, note: why });
        }
    }

    /// A path ends because the block is handed to a function whose body is not analysed
    /// (`callee`: its name and why): not a contradiction, so the probe cannot be `proved` (it
    /// is `unproved: escaped` unless something stronger is found).
    pub(super) fn escaped(&mut self, f: FuncId, n: NodeId, callee: String) {
        if self.cursor.witness.is_some() {
            return; // a dead witness path says nothing about the probe
        }
        if self.verdict.escaped.is_none() {
            let loc = self.loc(f, n);
            self.verdict.escaped = Some((callee, loc));
        }
    }

    /// An allocation validated the cell only on a path where a callee whose body was not
    /// followed must have overwritten a stored reference to the block (`Fact::unknown_drop`):
    /// not evidence of a leak, the probe is `unproved (escaped)` with that callee named.
    pub(super) fn dropped_leak(&mut self, writer: u32) {
        if self.verdict.escaped.is_some() {
            return;
        }
        if let Some((who, at)) = self.verdict.unknown_writers.get(writer as usize).cloned() {
            self.verdict.escaped = Some((
                format!("{who} (with memory the block was stored in, which it may overwrite)"),
                at,
            ));
        }
    }

    /// An allocation validated the cell only on the "same block" side of a case split
    /// (`Fact::assumed`): not evidence of a leak, the probe is `unproved (imprecise)`.
    pub(super) fn assumed_leak(&mut self, loc: Loc, what: &str) {
        self.verdict.imprecise(
            format!(
                "the block from {what} is lost only on a path the analysis could not confirm: two pointers it assumed equal (a cyclic list, the same out-parameter twice), or a condition of the path that a call it did not follow may have changed"
            ),
            loc,
        );
    }

    pub(super) fn finish(mut self) -> ProbeResult {
        let transfers = self.worklist.transfers;
        let mut undecided = None;
        if matches!(self.verdict.outcome, Some(Outcome::Budget(_)))
            && self.verdict.pending_leak.is_some()
            && let UntestedNull::All(c) =
                std::mem::replace(&mut self.verdict.untested_null, UntestedNull::NotAll)
        {
            // Every path to the leak needs a parameter NULL that its function never tests,
            // only passes on to code that does: whether a caller passes NULL decides it, and
            // the callers were not followed far enough to know. Input-dependent, not a leak.
            self.verdict.pending_leak = None;
            self.verdict.input_dependent = Some(c);
        }
        if matches!(self.verdict.outcome, Some(Outcome::Budget(_)))
            && let Some((slot, alloc_node)) = self.verdict.pending_leak.take()
        {
            // The callers did not decide the leak's conditions within the budget: the leak
            // stands as found at the allocating function's entry, its trace saying which
            // conditions on the callers' state it needs. (Reported as `budget` instead, half
            // of the leak-fix recall on the corpus went, with it about a quarter of the
            // false reports: see docs/engine.md.)
            self.verdict.outcome = Some(Outcome::Leak { slot, alloc_node });
            undecided = self.verdict.pending_condition.take();
        }
        let verdict = match self.verdict.outcome.take() {
            Some(Outcome::Leak { slot, alloc_node }) => {
                let mut v = self.leak_verdict(slot, alloc_node);
                if let (Verdict::Leak { trace, .. }, Some((loc, cond))) = (&mut v, undecided) {
                    // The path starts with conditions on the callers' state that were not
                    // decided: say so where they apply.
                    trace.insert(
                        0,
                        TraceStep {
                            loc,
                            note: format!(
                                "needs {cond} on entry (the callers were not followed far enough to decide)"
                            ),
                        },
                    );
                }
                v
            }
            Some(Outcome::Budget(what)) => match self.verdict.input_dependent.take() {
                Some(InputCondition {
                    function,
                    condition,
                }) => Verdict::Unproved(Unproved::InputDependent {
                    function,
                    condition,
                }),
                None => Verdict::Unproved(Unproved::Budget { what }),
            },
            None => {
                if let Some(InputCondition {
                    function,
                    condition,
                }) = self.verdict.input_dependent.take()
                {
                    Verdict::Unproved(Unproved::InputDependent {
                        function,
                        condition,
                    })
                } else if let Some(Reason { what, at }) = self.verdict.unsupported.take() {
                    Verdict::Unproved(Unproved::Unsupported { what, at })
                } else if let Some(Reason { what, at }) = self.verdict.imprecise.take() {
                    Verdict::Unproved(Unproved::Imprecise { what, at })
                } else if let Some((callee, at)) = self.verdict.escaped.take() {
                    Verdict::Unproved(Unproved::Escaped {
                        callee,
                        at: Some(at),
                    })
                } else {
                    Verdict::Proved {
                        refuted_at: std::mem::take(&mut self.verdict.refutations),
                    }
                }
            }
        };
        ProbeResult { verdict, transfers }
    }

    /// Follow provenance from the validating allocation forward to the probe.
    fn leak_verdict(&mut self, slot: SlotId, alloc_node: NodeId) -> Verdict {
        let alloc_func = self.worklist.slots[slot as usize].func;
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
            let s = &self.worklist.slots[cur as usize];
            let (func, node, prov) = (s.func, s.node, s.prov.clone());
            // The node the slot sits after: note it if it is interesting (not the allocation).
            if !(func == alloc_func && node == alloc_node && cur == slot) {
                self.note_node(func, node, &mut trace);
            }
            match prov {
                Prov::Start => break,
                Prov::StartInCallee => {
                    // Returning from the callee to the probe's call.
                    let name = self.worklist.slots[cur as usize].func;
                    let callee = self.prog.function_name(name);
                    let loc = self.loc(self.verdict.probe_func, self.verdict.probe_node);
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
                        let t = &self.worklist.slots[target as usize];
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
                    let callee_func = self.worklist.slots[entry as usize].func;
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
            loc: self.loc(self.verdict.probe_func, self.verdict.probe_node),
            note: self.verdict.probe_note.clone(),
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

    /// The constraints of `f` as conditions (`` `ctx->n != 0` and `really_exiting != 0` ``).
    /// Why the path of `f` runs only while the process ends, if it does: one of its
    /// conditions needs an exit flag ([`crate::probe::Program::exit_flag`]) to be nonzero.
    pub(super) fn exiting_only(&self, f: &Fact) -> Option<String> {
        f.constraints.iter().find_map(|c| {
            if c.rel.eval(0, c.k) {
                return None; // holds when the global is 0
            }
            let EKind::Deref(a) = *self.arena.kind(c.e) else {
                return None;
            };
            let EKind::Addr(crate::probe::expr::Sym::Global(g)) = *self.arena.kind(a) else {
                return None;
            };
            let name = self.arena.string_of(g);
            let setter = self.prog.exit_flag(name)?;
            Some(format!(
                "`{name}` is nonzero only after `{setter}` set it, and `{setter}` never returns"
            ))
        })
    }

    pub(super) fn describe_constraints(&mut self, f: &Fact) -> String {
        let parts: Vec<String> = f
            .constraints
            .iter()
            .take(4)
            .map(|c| {
                let op = match c.rel {
                    crate::probe::state::Rel::Eq => "==",
                    crate::probe::state::Rel::Ne => "!=",
                    crate::probe::state::Rel::Lt => "<",
                    crate::probe::state::Rel::Le => "<=",
                    crate::probe::state::Rel::Gt => ">",
                    crate::probe::state::Rel::Ge => ">=",
                };
                format!("`{} {op} {}`", self.show(c.e), c.k)
            })
            .collect();
        let more = f.constraints.len().saturating_sub(4);
        let mut s = parts.join(" and ");
        if more > 0 {
            s.push_str(&format!(" and {more} more"));
        }
        s
    }

    pub(super) fn describe_input(&mut self, f: &Fact) -> String {
        let hits: Vec<String> = f
            .hits
            .iter()
            .map(|e| format!("`{}`", self.show(*e)))
            .collect();
        if hits.is_empty() {
            return "leaks for some inputs".into();
        }
        let verb = if hits.len() == 1 { "holds" } else { "hold" };
        let mut s = format!(
            "leaks if, on entry, {} {verb} the only reference to a heap block",
            hits.join(" and ")
        );
        let misses: Vec<String> = f
            .misses
            .iter()
            .filter(|e| !self.has_unknown(**e))
            .filter(|e| !matches!(self.arena.kind(**e), EKind::Int(_) | EKind::Num))
            .map(|e| format!("`{}`", self.show(*e)))
            .collect();
        if !misses.is_empty() {
            s.push_str(&format!(" that {} does not point to", misses.join(" or ")));
        }
        let rels: Vec<String> = f
            .relations
            .iter()
            .map(|r| format!("`{}`", self.show_rel(r)))
            .collect();
        if !rels.is_empty() {
            s.push_str(&format!(", with {}", rels.join(" and ")));
        }
        s
    }

    /// `l == r` or `l != r`, in C.
    fn show_rel(&self, r: &PtrRel) -> String {
        let op = if r.eq { "==" } else { "!=" };
        format!("{} {op} {}", self.show(r.l), self.show(r.r))
    }

    pub(super) fn show_fact(&self, f: &Fact) -> String {
        let list = |v: &[E]| {
            v.iter()
                .map(|e| self.show(*e))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let s: Vec<String> = f
            .regions
            .iter()
            .map(|r| {
                let name = crate::regions::RegionDisplay(&self.arena.names, r).to_string();
                let tags = f.tags_of(r);
                if tags.is_empty() {
                    name
                } else {
                    let t: Vec<E> = tags.iter().map(|(_, x)| *x).collect();
                    format!("{name}@[{}]", list(&t))
                }
            })
            .collect();
        let c: Vec<String> = f
            .constraints
            .iter()
            .map(|c| format!("{} {:?} {}", self.show(c.e), c.rel, c.k))
            .chain(f.relations.iter().map(|r| self.show_rel(r)))
            .collect();
        format!(
            "S={{{}{}}} H={{{}}} M={{{}}} C={{{}}}{}{}",
            s.join(", "),
            if f.regions.all_memory { ", *" } else { "" },
            list(&f.hits),
            list(&f.misses),
            c.join(", "),
            if f.tainted { " tainted" } else { "" },
            if f.assumed { " assumed" } else { "" }
        )
    }
}

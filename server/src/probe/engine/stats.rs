//! Where a probe's budget goes (`REDUCTIO_BUDGET_STATS=FILE`): for every probe that ends
//! `unproved (budget)`, one JSON line appended to FILE with the size of the probe's function,
//! the most separated facts kept at one point, the growth of the region set, how often slots
//! were processed again after a join changed them (loop re-walks), the callee depth reached,
//! and which statement kinds consumed the transfers. Off (the variable unset), the engine
//! keeps no counters: `Engine::stats` is `None` and each hook is one branch on it.

use super::verdict::Outcome;
use super::{Ctx, Engine, SlotId};
use crate::ir::StmtKind;
use crate::probe::{FuncId, ProbeSite};
use rustc_hash::FxHashMap;
use std::io::Write;
use std::sync::{Mutex, OnceLock};

/// The file named by `REDUCTIO_BUDGET_STATS`, opened once per process for appending.
fn sink() -> Option<&'static Mutex<std::fs::File>> {
    static SINK: OnceLock<Option<Mutex<std::fs::File>>> = OnceLock::new();
    SINK.get_or_init(|| {
        let path = std::env::var_os("REDUCTIO_BUDGET_STATS")?;
        if path.is_empty() {
            return None;
        }
        match std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
        {
            Ok(f) => Some(Mutex::new(f)),
            Err(e) => {
                eprintln!(
                    "reductio: REDUCTIO_BUDGET_STATS: cannot open {}: {e}",
                    path.to_string_lossy()
                );
                None
            }
        }
    })
    .as_ref()
}

/// Whether budget statistics are collected in this process.
pub(super) fn enabled() -> bool {
    sink().is_some()
}

/// The statement kinds transfers are counted by.
const KINDS: [&str; 12] = [
    "enter",
    "assign",
    "alloc",
    "free",
    "cond",
    "call",
    "scope_begin",
    "scope_end",
    "return",
    "nop",
    "opaque",
    "zero_fill",
];

fn kind_index(k: &StmtKind) -> usize {
    match k {
        StmtKind::Enter => 0,
        StmtKind::Assign { .. } => 1,
        StmtKind::Alloc { .. } => 2,
        StmtKind::Free { .. } => 3,
        StmtKind::Cond { .. } => 4,
        StmtKind::Call { .. } => 5,
        StmtKind::ScopeBegin { .. } => 6,
        StmtKind::ScopeEnd { .. } => 7,
        StmtKind::Return { .. } => 8,
        StmtKind::Nop => 9,
        StmtKind::Opaque { .. } => 10,
        StmtKind::ZeroFill { .. } => 11,
    }
}

/// Counters of one probe run.
pub(super) struct Stats {
    /// The probe's function.
    probe_func: FuncId,
    by_kind: [u32; KINDS.len()],
    /// Steps of a slot that had been processed before (its fact grew by a join).
    revisits: u32,
    /// Times each slot was processed.
    visits: FxHashMap<SlotId, u32>,
    /// Steps of facts in callee contexts (entered by Map).
    callee_steps: u32,
    /// Steps in the probe's own frame but another function (callers, after Unmap).
    caller_steps: u32,
    /// Steps of feasibility witnesses.
    witness_steps: u32,
    /// Joins into an existing slot, and those forced by `MAX_SLOTS_PER_POINT`.
    joins: u32,
    forced_merges: u32,
    /// |S| of the starting fact and the largest stored.
    first_regions: Option<u32>,
    max_regions: u32,
    max_constraints: u32,
    /// Calls explored (entered by Map), by the reason they were.
    explored: FxHashMap<&'static str, u32>,
    /// Steps per function (the heaviest is reported).
    per_func: FxHashMap<FuncId, u32>,
}

impl Stats {
    /// Counters for a probe of `func` when statistics are on.
    pub(super) fn new(func: FuncId) -> Option<Box<Stats>> {
        enabled().then(|| {
            Box::new(Stats {
                probe_func: func,
                by_kind: [0; KINDS.len()],
                revisits: 0,
                visits: FxHashMap::default(),
                callee_steps: 0,
                caller_steps: 0,
                witness_steps: 0,
                joins: 0,
                forced_merges: 0,
                first_regions: None,
                max_regions: 0,
                max_constraints: 0,
                explored: FxHashMap::default(),
                per_func: FxHashMap::default(),
            })
        })
    }

    pub(super) fn joined(&mut self, forced: bool) {
        self.joins += 1;
        self.forced_merges += u32::from(forced);
    }

    pub(super) fn explored(&mut self, why: &'static str) {
        *self.explored.entry(why).or_default() += 1;
    }

    pub(super) fn stored(&mut self, regions: u32, constraints: u32) {
        self.first_regions.get_or_insert(regions);
        self.max_regions = self.max_regions.max(regions);
        self.max_constraints = self.max_constraints.max(constraints);
    }
}

impl<'p> Engine<'p> {
    /// Count the step of slot `id` (called before it is applied).
    pub(super) fn count_step(&mut self, id: SlotId) {
        let Some(mut st) = self.stats.take() else {
            return;
        };
        let s = &self.worklist.slots[id as usize];
        let (func, node, ctx, witness) = (s.func, s.node, s.ctx, s.witness_of.is_some());
        let b = self.body(func);
        st.by_kind[kind_index(&b.node(node).stmt.kind)] += 1;
        let v = st.visits.entry(id).or_default();
        *v += 1;
        if *v > 1 {
            st.revisits += 1;
        }
        if ctx != Ctx::BASE {
            st.callee_steps += 1;
        } else if func != st.probe_func {
            st.caller_steps += 1;
        }
        st.witness_steps += u32::from(witness);
        *st.per_func.entry(func).or_default() += 1;
        self.stats = Some(st);
    }

    /// Append the statistics of this run to the sink when the verdict will be `unproved
    /// (budget)` (called after the run, before `finish`).
    pub(super) fn report_stats(&mut self, site: &ProbeSite) {
        let Some(st) = self.stats.take() else {
            return;
        };
        let Some(Outcome::Budget(what)) = &self.verdict.outcome else {
            return;
        };
        if self.verdict.input_dependent.is_some() {
            return;
        }
        let what = what.clone();
        let func = st.probe_func;
        let Some(sink) = sink() else { return };
        let b = self.body(func);
        let mut max_facts_per_point = 0usize;
        let mut points = 0usize;
        for ids in self.worklist.slots_at.values() {
            max_facts_per_point = max_facts_per_point.max(ids.len());
            points += 1;
        }
        let max_depth = self.contexts.depth.values().copied().max().unwrap_or(0);
        let (heavy, heavy_steps) = st
            .per_func
            .iter()
            .max_by_key(|(f, n)| (**n, std::cmp::Reverse(**f)))
            .map(|(f, n)| (self.prog.function_name(*f), *n))
            .unwrap_or_default();
        let by_kind: serde_json::Map<String, serde_json::Value> = KINDS
            .iter()
            .zip(st.by_kind)
            .filter(|(_, n)| *n > 0)
            .map(|(k, n)| (k.to_string(), n.into()))
            .collect();
        let max_visits = st.visits.values().copied().max().unwrap_or(0);
        let line = serde_json::json!({
            "function": self.prog.function_name(func),
            "probe": site.kind.as_str(),
            "variable": site.variable,
            "offset": site.range.start,
            "what": what,
            "walk": if self.cfg.ignore_conditions { "coarse" } else { "precise" },
            "transfers": self.worklist.transfers,
            "function_nodes": b.nodes.len(),
            "functions_visited": st.per_func.len(),
            "heaviest_function": heavy,
            "heaviest_function_steps": heavy_steps,
            "slots": self.worklist.slots.len(),
            "points": points,
            "max_facts_per_point": max_facts_per_point,
            "joins": st.joins,
            "forced_merges": st.forced_merges,
            "revisits": st.revisits,
            "max_visits_of_a_slot": max_visits,
            "first_regions": st.first_regions.unwrap_or(0),
            "max_regions": st.max_regions,
            "max_constraints": st.max_constraints,
            "contexts": self.contexts.keys.len(),
            "max_callee_depth": max_depth,
            "callee_steps": st.callee_steps,
            "caller_steps": st.caller_steps,
            "witness_steps": st.witness_steps,
            "by_kind": by_kind,
            "explored_calls": st.explored,
        });
        if let Ok(mut f) = sink.lock() {
            let _ = writeln!(f, "{line}");
        }
    }
}

//! The contradiction engine: leak probes (§4.5), the error-cell abstraction (§4.2), the
//! transfer functions (§4.3, Figures 2–3), Map/Unmap and the interprocedural worklist of
//! Figure 8 with reverse summaries, and the §4.8 extensions.
//!
//! Pure functions over IR + regions: this layer knows nothing of salsa or LSP. It reads the
//! program through the [`Program`] trait, which the database implements with queries (so salsa
//! records exactly which bodies a probe read).

pub mod assigned;
mod engine;
pub mod expr;
mod footprint;
pub mod freed_params;
pub mod nonnull_params;
pub mod scalar_locals;
pub mod sites;
pub mod state;

#[cfg(test)]
mod snippet;

pub use assigned::{AssignedFlow, Event as AssignedEvent, assigned_flow, assignment_sites};
pub use engine::{coarse_walk, dereferenced_values, precise_walk, run_probe, with_coarse};
pub use sites::probe_sites;

use crate::ir::{FunctionIr, NodeId, TypeEnv};
use crate::regions::TypeClasses;
use crate::syntax::TextRange;
use std::sync::Arc;

/// An indirect call with more candidate targets than this is treated as a call of an unknown
/// function (the MOD table treats it the same way).
pub const MAX_INDIRECT_TARGETS: usize = 3;

/// A function of the program, as numbered by the [`Program`].
pub type FuncId = u32;

/// The pointer values one statement dereferences (`dereferenced_values`).
pub type Derefs = smallvec::SmallVec<[crate::ir::ExprId; 2]>;

/// What the engine needs to know about the program.
pub trait Program {
    fn body(&self, f: FuncId) -> Arc<FunctionIr>;
    fn function_name(&self, f: FuncId) -> String;
    /// The function a direct call by `name` from `from` reaches, if it has a body.
    fn resolve(&self, from: FuncId, name: &str) -> Option<FuncId>;
    /// Known call sites of `f` (direct calls, and indirect calls that may reach it).
    fn callers(&self, f: FuncId) -> Vec<(FuncId, NodeId)>;
    /// Candidates for an indirect call with `arity` arguments: functions whose address is
    /// taken somewhere.
    fn indirect_targets(&self, arity: usize) -> Vec<FuncId>;
    fn env(&self) -> &TypeEnv;
    fn classes(&self) -> &TypeClasses;
    /// What a function may write, transitively (see `regions::ModSet`).
    fn mod_set(&self, f: FuncId) -> Arc<crate::regions::ModSet>;
    /// Where the temporaries of `f` die (see `sites::temp_deaths`); a host may cache it.
    fn temp_deaths(&self, f: FuncId) -> Arc<TempDeaths> {
        Arc::new(sites::temp_deaths(&self.body(f)))
    }
    /// Writes into blocks only one local can reach (see `sites::fresh_writes`); a host may
    /// cache it.
    fn fresh_writes(&self, f: FuncId) -> Arc<FreshWrites> {
        Arc::new(sites::fresh_writes(&self.body(f)))
    }
    /// The locals of `f` holding a block nothing else points to yet, per statement (see
    /// `sites::fresh_values`); a host may cache it and knows which calls return fresh memory.
    fn fresh_values(&self, f: FuncId) -> Arc<FreshValues> {
        Arc::new(sites::fresh_values(&self.body(f), &|_| false))
    }
    /// `Some(why)` when `f` never returns (every path from its entry ends in a call that
    /// does not return, or it loops forever, or the user said so): a path through a call of
    /// `f` is infeasible.
    fn never_returns(&self, _f: FuncId) -> Option<NeverReturns> {
        None
    }
    /// Whether a call of a function without a body named `name` never returns: the C
    /// library's (`ir::library::is_noreturn`), plus, for a host with a configuration, the
    /// user's `noreturn` names.
    fn bodyless_never_returns(&self, name: &str) -> bool {
        crate::ir::library::is_noreturn(name)
    }
    /// `Some(setter)` when the global `global` is an exit flag: zero until `setter`, a
    /// function that never returns, sets it, so a path on which it is nonzero runs while the
    /// process ends (see `db::exit_flags`). A host that does not know says none.
    fn exit_flag(&self, _global: &str) -> Option<String> {
        None
    }
    /// The address-taken locals of `f` whose address never reaches memory (see
    /// `regions::capture`): a pointer loaded from memory never points to them. A host that
    /// does not know says none.
    fn unescaped_locals(&self, _f: FuncId) -> Arc<Vec<crate::ir::LocalId>> {
        Arc::new(vec![])
    }
    /// The locals of `f` that never hold a pointer (see `scalar_locals`), sorted; a host may
    /// cache it (the pass reads the whole body, and every probe run asks for it).
    fn scalar_locals(&self, f: FuncId) -> Arc<Vec<crate::ir::LocalId>> {
        let b = self.body(f);
        let has_body = |name: &str| self.resolve(f, name).is_some();
        let mut v: Vec<crate::ir::LocalId> =
            scalar_locals::scalar_locals(&b, self.env(), self.classes(), &has_body)
                .into_iter()
                .collect();
        v.sort();
        Arc::new(v)
    }
    /// The parameters of `f` (by position) every known call passes a non-NULL value for
    /// (see `nonnull_params`). A host that does not know says none.
    fn nonnull_params(&self, _f: FuncId) -> Arc<Vec<bool>> {
        Arc::new(vec![])
    }
    /// The parameters of `f` (by position) some chain of known calls may pass an explicit
    /// NULL (see `nonnull_params::null_passed_params_of_inputs`). A host that does not know
    /// says none, which the engine reads as "any may be".
    fn null_passed_params(&self, _f: FuncId) -> Arc<Vec<bool>> {
        Arc::new(vec![])
    }
    /// The parameters of `f` (by position) it frees on every path that returns unless they
    /// are NULL (see `freed_params`); a host may cache it.
    fn freed_params(&self, f: FuncId) -> Arc<Vec<bool>> {
        Arc::new(freed_params::freed_params(&self.body(f)))
    }
    /// Per statement of `f`, the pointer values it dereferences (see
    /// `engine::dereferenced_values`); a host may cache it (the pass reads the whole body, and
    /// a probe asks for it at every statement it crosses: per probe, a 20,000-case switch
    /// spent most of its time here).
    fn dereferenced_values(&self, f: FuncId) -> Arc<Vec<Derefs>> {
        Arc::new(engine::dereferenced_values(&self.body(f)))
    }
    /// Called between worklist steps so a host can abandon a probe (salsa cancellation).
    fn checkpoint(&self) {}
}

/// Why a function with a body never returns.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum NeverReturns {
    /// Every path from its entry ends in a call of this function, which does not return.
    Calls(String),
    /// No path from its entry reaches its exit: it loops forever.
    Loops,
    /// The user listed it in `noreturn` (`reductio.toml` or the editor's settings).
    Configured,
}

/// For each statement, the temporaries whose value dies right after it.
pub type TempDeaths = rustc_hash::FxHashMap<NodeId, Vec<crate::ir::LocalId>>;

/// For each assignment into a block that only one local can reach, that local.
pub type FreshWrites = rustc_hash::FxHashMap<NodeId, crate::ir::LocalId>;

/// For each statement, the locals holding a block nothing else points to yet, right before it
/// (see `sites::fresh_values`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FreshValues {
    /// The locals followed; bit `i` of an entry of `before` is `locals[i]`.
    pub locals: Vec<crate::ir::LocalId>,
    /// Per node (by index), the followed locals that are fresh right before it.
    pub before: Vec<u64>,
}

impl FreshValues {
    /// Whether local `l` holds a block nothing else points to right before `node`.
    pub fn fresh_before(&self, node: NodeId, l: crate::ir::LocalId) -> bool {
        let Some(i) = self.locals.iter().position(|x| *x == l) else {
            return false;
        };
        self.before
            .get(node.0 as usize)
            .is_some_and(|b| b & (1u64 << i) != 0)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    /// Transfer-function applications before a probe is abandoned.
    pub max_transfers: u32,
    /// Largest region set |S| before a probe is abandoned.
    pub max_regions: u32,
    /// A pointer passed to a body-less function we know nothing about escapes (the callee may
    /// keep or free it), so losing it afterwards is not reported.
    pub unknown_calls_escape: bool,
    /// Process the worklist last-in first-out. Verdicts must not depend on the order; tests
    /// run both to check that.
    pub lifo: bool,
    /// Take every branch condition as true (`cond` is a no-op): a coarser walk whose facts
    /// differ far less from path to path. Each of its paths is a path of the precise walk with
    /// a condition dropped, so a probe it proves is proved; its leaks and other verdicts are
    /// not evidence of anything (see `run_probe`).
    pub ignore_conditions: bool,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            max_transfers: 500,
            max_regions: 50,
            unknown_calls_escape: true,
            lifo: false,
            ignore_conditions: false,
        }
    }
}

/// The kinds of probe of §4.5, plus block scope ends. Names match the JSON `probe` field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProbeKind {
    /// `*e0 ← e1` overwrites a pointer.
    Assignment,
    /// `*e0 ← malloc` overwrites a pointer (probed as `*e0 ← 0`).
    Allocation,
    /// `free(e)` loses the pointers stored in the freed block's fields.
    FreeField,
    /// A pointer local or formal dies at a `return`.
    ReturnLocal,
    /// A pointer local dies at the end of its block (or a `break`/`goto` out of it).
    ScopeEnd,
    /// `*e0 ← p(…)` overwrites a pointer with a call's result.
    AssignedReturn,
    /// A call's result that may be fresh memory is dropped.
    IgnoredReturn,
}

impl ProbeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProbeKind::Assignment => "assignment",
            ProbeKind::Allocation => "allocation",
            ProbeKind::FreeField => "free-field",
            ProbeKind::ReturnLocal => "return-local",
            ProbeKind::ScopeEnd => "scope-end",
            ProbeKind::AssignedReturn => "assigned-return",
            ProbeKind::IgnoredReturn => "ignored-return",
        }
    }
}

/// Where a probe's assumption is placed, relative to its node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Start {
    /// Right before the node executes.
    Before,
    /// Right after the node executes (a temporary's value dies after its only use).
    After,
}

/// A leak probe: "could losing the value at this place here lose the last reference to a heap
/// block?". Identity is (node, subject) within its function.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ProbeSite {
    pub node: NodeId,
    pub kind: ProbeKind,
    pub start: Start,
    pub subject: Subject,
    /// Source range (relative to the function) to report.
    pub range: TextRange,
    /// The lost reference as the user wrote it (`p`, `node->next`, `strdup(s)`).
    pub variable: String,
}

/// A memory location named from the function's IR: a root and a field path.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Place {
    pub root: Root,
    pub fields: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Root {
    /// The location at this address expression.
    Addr(crate::ir::ExprId),
    /// A local variable.
    Local(crate::ir::LocalId),
    /// The block this pointer value points to (`free(p)`: fields of `*p`).
    PointedBy(crate::ir::ExprId),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Subject {
    /// The value at `place` is the last reference and is lost: overwritten by `new_value`, or
    /// nullified (scope end, free). `prefix` lists places nullified earlier in the same
    /// statement (the other locals of a scope end, the other fields of a freed block).
    Location {
        place: Place,
        new_value: Option<crate::ir::ExprId>,
        prefix: Vec<Place>,
    },
    /// The result of the call at the node is dropped or overwrites `dest`: the probe starts
    /// where the callee returns (the paper's M2/M3 of Figure 4).
    CallResult { dest: Option<crate::ir::ExprId> },
}

/// A point in the program: a function and a node. The engine reads bodies without source
/// ranges; the host finds the node's range when it places a result.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Loc {
    pub func: FuncId,
    pub node: NodeId,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TraceStep {
    pub loc: Loc,
    pub note: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Every backward path reached a contradiction; `refuted_at` lists where (first few), with
    /// a note saying why.
    Proved {
        refuted_at: Vec<TraceStep>,
    },
    /// An allocation validates the error cell.
    Leak {
        /// Outermost call site first, ending at the allocator call.
        allocation: Vec<Loc>,
        /// Forward path from the allocation to the probe, with a short note per step.
        trace: Vec<TraceStep>,
    },
    Unproved(Unproved),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Unproved {
    /// Reached the entry of a function with no known caller: it leaks for some inputs.
    InputDependent { function: FuncId, condition: String },
    /// The probe ran out of budget.
    Budget { what: String },
    /// The path crossed something the analysis does not model.
    Unsupported { what: String, at: Option<Loc> },
    /// The analysis lost track of the reference (an aliasing question it cannot answer) and
    /// reached an allocation that may or may not have made the block.
    Imprecise { what: String, at: Option<Loc> },
    /// Every other path was contradicted, but on some path the block was handed to a function
    /// whose body the analysis did not see (or did not follow this deep): whether that
    /// function keeps or frees it is unknown, so nothing is proved.
    Escaped { callee: String, at: Option<Loc> },
}

impl Unproved {
    pub fn reason_code(&self) -> &'static str {
        match self {
            Unproved::InputDependent { .. } => "input-dependent",
            Unproved::Budget { .. } => "budget",
            Unproved::Unsupported { .. } => "unsupported",
            Unproved::Imprecise { .. } => "imprecise",
            Unproved::Escaped { .. } => "escaped",
        }
    }
}

/// A verdict with the cost of reaching it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ProbeResult {
    pub verdict: Verdict,
    /// Transfer-function applications used.
    pub transfers: u32,
}

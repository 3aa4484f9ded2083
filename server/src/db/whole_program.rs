//! Whole-program queries over the workspace: call sites and the call graph (direct calls, and
//! indirect calls to address-taken functions of the right arity), the type classes of the
//! region partition, and the transitive MOD sets the engine summarises calls with.

use super::database::Db;
use super::front_end::{Function, body, library_model, type_env};
use super::inputs::{SourceFile, Workspace};
use super::names::{all_functions, function_ids, resolve_function};
use crate::ir::{Callee, ExprKind, NodeId, StmtKind, Symbol};
use crate::probe::{self, NeverReturns};
use crate::regions::{self, CalleeKind, ModSet, TypeClasses, capture};
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;

/// Direct call sites of every function (callee index → (caller index, call node)) and the
/// functions whose address is taken (possible targets of indirect calls).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct CallGraph {
    pub callers: FxHashMap<u32, Vec<(u32, NodeId)>>,
    pub address_taken: Vec<u32>,
    /// The address-taken functions by number of parameters: what an indirect call with
    /// that many arguments may reach.
    pub taken_by_arity: FxHashMap<usize, Vec<u32>>,
}

/// The calls and function addresses of one body, without source positions: a whitespace or
/// comment edit leaves it equal, so the call graph is not rebuilt.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct CallSites {
    direct: Vec<(NodeId, String)>,
    /// (call node, number of arguments)
    indirect: Vec<(NodeId, usize)>,
    address_of: Vec<String>,
}

#[salsa::tracked(returns(clone))]
pub fn call_sites<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<CallSites> {
    let ir = body(db, f);
    let mut cs = CallSites::default();
    for id in ir.node_ids() {
        if let StmtKind::Call { callee, args, .. } = &ir.node(id).stmt.kind {
            match callee {
                Callee::Direct(name) => cs.direct.push((id, name.clone())),
                Callee::Indirect(_) => cs.indirect.push((id, args.len())),
            }
        }
    }
    for (_, e) in ir.exprs.iter() {
        if let ExprKind::Addr(Symbol::Function(name)) = &e.kind {
            cs.address_of.push(name.clone());
        }
    }
    cs.address_of.sort_unstable();
    cs.address_of.dedup();
    Arc::new(cs)
}

/// Number of parameters of a function.
#[salsa::tracked]
pub fn arity<'db>(db: &'db dyn Db, f: Function<'db>) -> usize {
    body(db, f).params.len()
}

/// One function's calls resolved to the workspace's functions (indices in `all_functions`):
/// its direct calls that reach a body, its indirect calls (with their number of arguments),
/// and the functions whose address it takes. Cached per function, so that after an edit the
/// call graph only merges these instead of resolving every call of the workspace again.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ResolvedCalls {
    direct: Vec<(NodeId, u32)>,
    indirect: Vec<(NodeId, usize)>,
    address_of: Vec<u32>,
}

#[salsa::tracked(returns(clone))]
pub fn resolved_calls<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<ResolvedCalls> {
    let ws = db.workspace();
    let index = function_ids(db, ws);
    let cs = call_sites(db, f);
    let file = f.file(db);
    let resolve =
        |name: &str| resolve_function(db, file, name).and_then(|t| index.get(&t).copied());
    Arc::new(ResolvedCalls {
        direct: cs
            .direct
            .iter()
            .filter_map(|(id, name)| Some((*id, resolve(name)?)))
            .collect(),
        indirect: cs.indirect.clone(),
        address_of: cs.address_of.iter().filter_map(|n| resolve(n)).collect(),
    })
}

/// The functions whose address a file's global initializers take (`static const struct ops
/// ops = { .read = my_read };`), resolved from that file (indices in `all_functions`): they
/// are indirect-call targets like those whose address a body takes.
#[salsa::tracked(returns(clone))]
pub fn initializer_addresses(db: &dyn Db, file: SourceFile) -> Arc<Vec<u32>> {
    let ws = db.workspace();
    let index = function_ids(db, ws);
    let inits = super::front_end::global_inits(db, file);
    let mut out: Vec<u32> = inits
        .exprs
        .iter()
        .filter_map(|(_, e)| match &e.kind {
            ExprKind::Addr(Symbol::Function(name)) => {
                resolve_function(db, file, name).and_then(|t| index.get(&t).copied())
            }
            _ => None,
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    Arc::new(out)
}

#[salsa::tracked(returns(clone))]
pub fn call_graph(db: &dyn Db, ws: Workspace) -> Arc<CallGraph> {
    let funcs = all_functions(db, ws);
    let mut g = CallGraph::default();
    let mut taken: FxHashSet<u32> = FxHashSet::default();
    let calls: Vec<Arc<ResolvedCalls>> = funcs.iter().map(|f| resolved_calls(db, *f)).collect();
    for (i, rc) in calls.iter().enumerate() {
        for &(id, t) in &rc.direct {
            g.callers.entry(t).or_default().push((i as u32, id));
        }
        taken.extend(rc.address_of.iter().copied());
    }
    for file in super::build::program_files(db, ws) {
        taken.extend(initializer_addresses(db, *file).iter().copied());
    }
    // Indirect calls may reach any address-taken function of the right arity.
    let mut taken: Vec<u32> = taken.into_iter().collect();
    taken.sort_unstable();
    let arities: Vec<usize> = taken
        .iter()
        .map(|&t| *arity(db, funcs[t as usize]))
        .collect();
    for (&t, &a) in taken.iter().zip(&arities) {
        g.taken_by_arity.entry(a).or_default().push(t);
    }
    for (i, rc) in calls.iter().enumerate() {
        for &(id, n) in &rc.indirect {
            for &t in g.taken_by_arity.get(&n).map(Vec::as_slice).unwrap_or(&[]) {
                g.callers.entry(t).or_default().push((i as u32, id));
            }
        }
    }
    g.address_taken = taken;
    Arc::new(g)
}

/// Callers of one function: probes read this, not the whole graph, so an edit elsewhere does
/// not re-run them.
#[salsa::tracked(returns(clone))]
pub fn callers_of<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<Vec<(u32, NodeId)>> {
    let ws = db.workspace();
    let idx = function_ids(db, ws).get(&f).copied();
    let g = call_graph(db, ws);
    Arc::new(
        idx.and_then(|i| g.callers.get(&i).cloned())
            .unwrap_or_default(),
    )
}

/// The parameters every known call passes non-NULL, for each function by index in
/// `all_functions` (`probe::nonnull_params`).
#[salsa::tracked(returns(clone))]
pub fn nonnull_param_table(db: &dyn Db, ws: Workspace) -> Arc<Vec<Vec<bool>>> {
    param_table(db, ws, probe::nonnull_params::nonnull_params_of_inputs)
}

/// A whole-program table over every body's `NonnullInputs` and the call graph's call sites.
fn param_table(
    db: &dyn Db,
    ws: Workspace,
    table: probe::nonnull_params::InputsTable,
) -> Arc<Vec<Vec<bool>>> {
    let funcs = all_functions(db, ws);
    let g = call_graph(db, ws);
    let inputs: Vec<Arc<probe::nonnull_params::NonnullInputs>> =
        funcs.iter().map(|f| nonnull_inputs(db, *f)).collect();
    let refs: Vec<&probe::nonnull_params::NonnullInputs> =
        inputs.iter().map(|b| b.as_ref()).collect();
    let callers: Vec<&[(u32, NodeId)]> = (0..funcs.len() as u32)
        .map(|i| g.callers.get(&i).map(Vec::as_slice).unwrap_or(&[]))
        .collect();
    Arc::new(table(&refs, &callers))
}

/// The parameters some chain of known calls may pass an explicit NULL, for each function by
/// index in `all_functions` (`probe::nonnull_params::null_passed_params_of_inputs`).
#[salsa::tracked(returns(clone))]
pub fn null_passed_param_table(db: &dyn Db, ws: Workspace) -> Arc<Vec<Vec<bool>>> {
    param_table(db, ws, probe::nonnull_params::null_passed_params_of_inputs)
}

/// One function's row of [`null_passed_param_table`].
#[salsa::tracked(returns(clone))]
pub fn null_passed_params_of<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<Vec<bool>> {
    let ws = db.workspace();
    let idx = function_ids(db, ws).get(&f).copied();
    let t = null_passed_param_table(db, ws);
    Arc::new(
        idx.and_then(|i| t.get(i as usize).cloned())
            .unwrap_or_default(),
    )
}

/// What [`nonnull_param_table`] reads of one body: an edit re-reads that body only.
#[salsa::tracked(returns(clone))]
pub fn nonnull_inputs<'db>(
    db: &'db dyn Db,
    f: Function<'db>,
) -> Arc<probe::nonnull_params::NonnullInputs> {
    Arc::new(probe::nonnull_params::nonnull_inputs(&body(db, f)))
}

/// One function's row of [`nonnull_param_table`]: probes read this projection.
#[salsa::tracked(returns(clone))]
pub fn nonnull_params_of<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<Vec<bool>> {
    let ws = db.workspace();
    let idx = function_ids(db, ws).get(&f).copied();
    let t = nonnull_param_table(db, ws);
    Arc::new(
        idx.and_then(|i| t.get(i as usize).cloned())
            .unwrap_or_default(),
    )
}

/// One function's contribution to the type classes.
#[salsa::tracked(returns(clone))]
pub fn type_facts<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<regions::TypeFacts> {
    let ir = body(db, f);
    let env = type_env(db, db.workspace());
    let file = f.file(db);
    let callee = |name: &str| resolve_function(db, file, name).map(|g| body(db, g));
    Arc::new(regions::TypeFacts::of_function(&ir, &env, &callee))
}

#[salsa::tracked(returns(clone))]
pub fn type_classes(db: &dyn Db, ws: Workspace) -> Arc<TypeClasses> {
    let facts: Vec<Arc<regions::TypeFacts>> = all_functions(db, ws)
        .iter()
        .map(|f| type_facts(db, *f))
        .collect();
    Arc::new(TypeClasses::from_facts(facts.iter().map(|f| f.as_ref())))
}

/// What one function writes itself, and the functions with a body it calls.
#[salsa::tracked(returns(clone))]
pub fn own_mod<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<(ModSet, Vec<u32>)> {
    let ws = db.workspace();
    let ir = body(db, f);
    let env = type_env(db, ws);
    let classes = type_classes(db, ws);
    let index = function_ids(db, ws);
    let file = f.file(db);
    let lib = library_model(db, db.settings());
    let classify = |name: &str| match resolve_function(db, file, name) {
        Some(_) => CalleeKind::Body,
        None => match crate::ir::library::known_function(name) {
            Some(k) => CalleeKind::Library(Some(k)),
            None if lib.never_returns(name) => CalleeKind::Library(None),
            None => CalleeKind::Unknown,
        },
    };
    // `callees` are the names `classify` found a body for.
    let fresh = probe::sites::fresh_writes(&ir);
    // A call through a function pointer writes what the targets the engine would follow
    // write, or, with too many (or none), what an unknown function could.
    let targets = indirect_targets(db, ws);
    let explored = |n: usize| {
        targets
            .get(&n)
            .is_some_and(|ts| !ts.is_empty() && ts.len() <= probe::MAX_INDIRECT_TARGETS)
    };
    // Only what a returning path does reaches a caller: a call of a function that never
    // returns (`exit`, `abort`, the project's `fatal`, by `never_returning`) ends its path.
    let never = never_returning(db, ws);
    let mut stops = |c: &Callee| ends_path(db, file, c, &never);
    let returning = probe::sites::returning_nodes(&ir, &mut stops);
    let returns = |n: crate::ir::NodeId| {
        returning
            .as_ref()
            .is_none_or(|r| r.get(n.0 as usize).copied().unwrap_or(true))
    };
    // Blocks allocated during the call: writes into them are no caller's concern.
    let callee_body = |name: &str| resolve_function(db, file, name).map(|g| body(db, g));
    let fresh_call =
        |name: &str| callee_body(name).is_some_and(|g| regions::returns_fresh(&g, &callee_body));
    let new_blocks = probe::sites::new_blocks(&ir, &fresh_call);
    let new_block = |n: crate::ir::NodeId, e: crate::ir::ExprId| {
        let Some((locals, before)) = &new_blocks else {
            return false;
        };
        probe::sites::points_into_local(&ir, e).is_some_and(|l| {
            locals.iter().position(|c| *c == l).is_some_and(|i| {
                before
                    .get(n.0 as usize)
                    .is_some_and(|b| b & (1u64 << i) != 0)
            })
        })
    };
    let cx = regions::OwnWritesContext {
        fresh: &|n| fresh.contains_key(&n),
        explored: &explored,
        returns: &returns,
        new_block: &new_block,
    };
    let (m, callees, arities) = regions::own_writes_with(&ir, &env, &classes, &classify, &cx);
    let mut edges: Vec<u32> = callees
        .iter()
        .filter_map(|n| resolve_function(db, file, n))
        .filter_map(|g| index.get(&g).copied())
        .collect();
    for n in arities {
        edges.extend(targets.get(&n).into_iter().flatten().copied());
    }
    edges.sort_unstable();
    edges.dedup();
    Arc::new((m, edges))
}

/// What each function (by index in `all_functions`) may write, transitively: the MOD sets the
/// engine uses to summarise calls whose effects cannot touch a fact.
#[salsa::tracked(returns(clone))]
pub fn mod_table(db: &dyn Db, ws: Workspace) -> Arc<Vec<Arc<ModSet>>> {
    let own: Vec<Arc<(ModSet, Vec<u32>)>> = all_functions(db, ws)
        .iter()
        .map(|f| own_mod(db, *f))
        .collect();
    Arc::new(regions::transitive_mod(&own))
}

/// One function's transitive MOD set (everything, for a function not in the workspace).
/// Probes read this projection, not [`mod_table`]: when an edit changes some functions' sets
/// (adding a `free` to a function changes its callers' too), only the probes that consulted
/// one of those re-run; the rest are verified against the unchanged projections they read.
#[salsa::tracked(returns(clone))]
pub fn mod_of<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<ModSet> {
    let ws = db.workspace();
    let table = mod_table(db, ws);
    function_ids(db, ws)
        .get(&f)
        .and_then(|&i| table.get(i as usize).cloned())
        .unwrap_or_else(|| {
            Arc::new(ModSet {
                all: true,
                ..Default::default()
            })
        })
}

/// Whether one function never returns, and why: [`never_returning`]'s entry for it, read by
/// probes instead of the whole map (same reason as [`mod_of`]).
#[salsa::tracked(returns(clone))]
pub fn never_returns_of<'db>(db: &'db dyn Db, f: Function<'db>) -> Option<NeverReturns> {
    let ws = db.workspace();
    let i = *function_ids(db, ws).get(&f)?;
    never_returning(db, ws).get(&i).cloned()
}

/// The address-taken functions by arity: [`CallGraph::taken_by_arity`], which the probes that
/// meet an indirect call read. A projection of the call graph, so that an edit that changes
/// only direct calls (or merely renumbers a body's nodes, which every inserted statement does)
/// does not re-run them.
#[salsa::tracked(returns(clone))]
pub fn indirect_targets(db: &dyn Db, ws: Workspace) -> Arc<FxHashMap<usize, Vec<u32>>> {
    Arc::new(call_graph(db, ws).taken_by_arity.clone())
}

/// The functions with a body that never return, by index in `all_functions`, each with the
/// reason: the callee that ends its paths (`exit`, `abort`, a project's own `fatal`, …), a
/// loop, or the user's `noreturn` list. A function never returns when no path from its entry
/// reaches its exit once calls to functions that never return end their paths (`probe::sites::
/// can_return`); found by a fixpoint over the workspace, the C library's `is_noreturn`
/// functions and the configured `noreturn` names as the seed. A configured name is taken at
/// the user's word even when its body could return (the user corrects the inference).
///
/// A function whose lowering fell back anywhere (opaque code might hide a `return`) is never
/// counted. The fixpoint is bounded: stopping early only leaves out functions, which is safe
/// (a call is then followed or summarised as before).
/// What [`never_returning`] needs of one function, cached per function: whether its lowering
/// fell back (then it is never counted), the workspace functions it calls directly, and
/// whether it returns when only the C library's `is_noreturn` calls end paths (`Some(reason)`
/// when it does not, as `never_returning` would record it). While none of its callees is
/// known never to return, the fixpoint takes this answer instead of exploring the body again.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ReturnShape {
    opaque: bool,
    callees: Vec<u32>,
    alone: Option<NeverReturns>,
}

#[salsa::tracked(returns(clone))]
pub fn return_shape<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<ReturnShape> {
    let ir = body(db, f);
    if !ir.fallbacks.is_empty() {
        return Arc::new(ReturnShape {
            opaque: true,
            ..Default::default()
        });
    }
    let mut callees: Vec<u32> = resolved_calls(db, f)
        .direct
        .iter()
        .map(|&(_, t)| t)
        .collect();
    callees.sort_unstable();
    callees.dedup();
    let never = FxHashMap::default();
    let alone = never_returns_given(db, f, &ir, &never);
    Arc::new(ReturnShape {
        opaque: false,
        callees,
        alone,
    })
}

/// Whether a call of `c` from `file` ends its path: a function declared `noreturn`, one in
/// `never` (by index in `all_functions`), or a body-less one the library model says never
/// returns.
fn ends_path(
    db: &dyn Db,
    file: super::inputs::SourceFile,
    c: &Callee,
    never: &FxHashMap<u32, NeverReturns>,
) -> bool {
    let Callee::Direct(name) = c else {
        return false;
    };
    let lib = library_model(db, db.settings());
    lib.declared_noreturn.contains(name)
        || match resolve_function(db, file, name) {
            Some(g) => function_ids(db, db.workspace())
                .get(&g)
                .is_some_and(|j| never.contains_key(j)),
            None => lib.never_returns(name),
        }
}

/// Whether `f` (body `ir`) never returns when the functions in `never` and the C library's
/// `is_noreturn` functions end the paths that call them, and why (the first such callee met).
fn never_returns_given(
    db: &dyn Db,
    f: Function<'_>,
    ir: &crate::ir::FunctionIr,
    never: &FxHashMap<u32, NeverReturns>,
) -> Option<NeverReturns> {
    let file = f.file(db);
    let mut stopped_by: Option<String> = None;
    let mut stops = |c: &Callee| {
        let stop = ends_path(db, file, c, never);
        if stop
            && stopped_by.is_none()
            && let Callee::Direct(name) = c
        {
            stopped_by = Some(name.clone());
        }
        stop
    };
    if probe::sites::can_return(ir, &mut stops) {
        None
    } else {
        Some(match stopped_by {
            Some(s) => NeverReturns::Calls(s),
            None => NeverReturns::Loops,
        })
    }
}

/// The functions with a body that never return, by index in `all_functions`, each with the
/// reason: the callee that ends its paths (`exit`, `abort`, a project's own `fatal`, …), or
/// none when it loops forever. A function never returns when no path from its entry reaches
/// its exit once calls to functions that never return end their paths (`probe::sites::
/// can_return`); found by a fixpoint over the workspace, the C library's `is_noreturn`
/// functions as the seed.
///
/// A function whose lowering fell back anywhere (opaque code might hide a `return`) is never
/// counted. The fixpoint is bounded: stopping early only leaves out functions, which is safe
/// (a call is then followed or summarised as before).
///
/// A function none of whose callees is in the set yet answers from its [`return_shape`] (the
/// exploration it would do is the one cached there); only the callers of functions found so
/// far explore their bodies again, so an edit costs one function's exploration, not the
/// workspace's.
#[salsa::tracked(returns(clone))]
pub fn never_returning(db: &dyn Db, ws: Workspace) -> Arc<FxHashMap<u32, NeverReturns>> {
    const MAX_ROUNDS: usize = 16;
    let funcs = all_functions(db, ws);
    let lib = library_model(db, db.settings());
    let shapes: Vec<Arc<ReturnShape>> = funcs.iter().map(|f| return_shape(db, *f)).collect();
    let mut never: FxHashMap<u32, NeverReturns> = FxHashMap::default();
    for (i, f) in funcs.iter().enumerate() {
        if lib.configured_noreturn(f.name(db)) {
            never.insert(i as u32, NeverReturns::Configured);
        }
    }
    for _ in 0..MAX_ROUNDS {
        let mut changed = false;
        for (i, (f, shape)) in funcs.iter().zip(&shapes).enumerate() {
            if never.contains_key(&(i as u32)) || shape.opaque {
                continue;
            }
            let answer = if shape.callees.iter().any(|j| never.contains_key(j)) {
                never_returns_given(db, *f, &body(db, *f), &never)
            } else {
                shape.alone.clone()
            };
            if let Some(reason) = answer {
                never.insert(i as u32, reason);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    Arc::new(never)
}

/// How the workspace's calls resolve: the share of calls to functions with no body seen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallStats {
    /// Calls by name.
    pub direct: usize,
    /// ... to a function whose body the program has (the workspace or a header it reaches).
    pub with_body: usize,
    /// ... to a function the library model knows (allocator, deallocator, libc, `noreturn`).
    pub library: usize,
    /// ... to a function with neither: what the analysis must treat as unknown.
    pub unknown: usize,
    /// Calls through function pointers.
    pub indirect: usize,
}

/// [`CallStats`] over the functions of `files` (with the whole program to resolve against).
pub fn call_stats(db: &dyn Db, files: &[super::inputs::SourceFile]) -> CallStats {
    let lib = library_model(db, db.settings());
    let mut s = CallStats::default();
    for file in files {
        for f in super::front_end::file_functions(db, *file) {
            let ir = super::front_end::lowered(db, *f);
            for id in ir.node_ids() {
                let name = match &ir.node(id).stmt.kind {
                    StmtKind::Call { callee, .. } => match callee {
                        Callee::Direct(n) => n.as_str(),
                        Callee::Indirect(_) => {
                            s.indirect += 1;
                            continue;
                        }
                    },
                    StmtKind::Alloc { site, .. } => site.allocator.as_str(),
                    StmtKind::Free { .. } => "free",
                    _ => continue,
                };
                s.direct += 1;
                if resolve_function(db, *file, name).is_some() {
                    s.with_body += 1;
                } else if lib.knows(name) {
                    s.library += 1;
                } else {
                    s.unknown += 1;
                }
            }
        }
    }
    s
}

/// What one function does with its parameters' values and its locals' addresses
/// (`regions::capture`), callee names classified the way the engine meets them.
#[salsa::tracked(returns(clone))]
pub fn own_captures<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<capture::OwnCaptures> {
    let ir = body(db, f);
    let file = f.file(db);
    let lib = library_model(db, db.settings());
    let kind = |name: &str| {
        if resolve_function(db, file, name).is_some() {
            capture::CalleeCapture::Body
        } else if crate::ir::library::known_function(name).is_some()
            || lib.allocators.contains_key(name)
            || lib.deallocators.contains_key(name)
            || lib.never_returns(name)
        {
            capture::CalleeCapture::Library
        } else {
            capture::CalleeCapture::Unknown
        }
    };
    Arc::new(capture::own_captures(&ir, &kind))
}

/// Which parameters each function (by index in `all_functions`) may keep a copy of,
/// transitively (`regions::capture::captured_params`).
#[salsa::tracked(returns(clone))]
pub fn captured_params(db: &dyn Db, ws: Workspace) -> Arc<Vec<Vec<bool>>> {
    let funcs = all_functions(db, ws);
    let index = function_ids(db, ws);
    let own: Vec<Arc<capture::OwnCaptures>> = funcs.iter().map(|f| own_captures(db, *f)).collect();
    let resolve = |i: usize, name: &str| {
        resolve_function(db, funcs[i].file(db), name)
            .and_then(|g| index.get(&g).copied())
            .map(|g| g as usize)
    };
    Arc::new(capture::captured_params(&own, &resolve))
}

/// The address-taken locals of `f` whose address never reaches memory: no pointer loaded from
/// memory can point to them. Probes read this projection.
#[salsa::tracked(returns(clone))]
pub fn unescaped_locals<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<Vec<crate::ir::LocalId>> {
    let ws = db.workspace();
    let own = own_captures(db, f);
    if own.locals.is_empty() {
        return Arc::new(vec![]);
    }
    let table = captured_params(db, ws);
    let index = function_ids(db, ws);
    let file = f.file(db);
    let kept = |name: &str, arg: u32| {
        resolve_function(db, file, name)
            .and_then(|g| index.get(&g).copied())
            .and_then(|g| table.get(g as usize))
            .is_none_or(|ps| ps.get(arg as usize).copied().unwrap_or(true))
    };
    Arc::new(capture::unescaped_locals(&own, &kept))
}

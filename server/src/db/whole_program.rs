//! Whole-program queries over the workspace: call sites and the call graph (direct calls, and
//! indirect calls to address-taken functions of the right arity), the type classes of the
//! region partition, and the transitive MOD sets the engine summarises calls with.

use super::build::declared_attributes;
use super::database::Db;
use super::front_end::{Function, body, library_model, type_env};
use super::inputs::Workspace;
use super::names::{all_functions, function_ids, resolve_function};
use crate::ir::{Callee, ExprKind, NodeId, StmtKind, Symbol};
use crate::probe;
use crate::regions::{self, CalleeKind, ModSet, TypeClasses};
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

#[salsa::tracked(returns(clone))]
pub fn call_graph(db: &dyn Db, ws: Workspace) -> Arc<CallGraph> {
    let funcs = all_functions(db, ws);
    let index = function_ids(db, ws);
    let mut g = CallGraph::default();
    let mut taken: FxHashSet<u32> = FxHashSet::default();
    let sites: Vec<Arc<CallSites>> = funcs.iter().map(|f| call_sites(db, *f)).collect();
    let resolve = |f: &Function<'_>, name: &str| {
        resolve_function(db, f.file(db), name).and_then(|t| index.get(&t).copied())
    };
    for (i, (f, cs)) in funcs.iter().zip(&sites).enumerate() {
        for (id, name) in &cs.direct {
            if let Some(t) = resolve(f, name) {
                g.callers.entry(t).or_default().push((i as u32, *id));
            }
        }
        for name in &cs.address_of {
            if let Some(t) = resolve(f, name) {
                taken.insert(t);
            }
        }
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
    for (i, cs) in sites.iter().enumerate() {
        for &(id, n) in &cs.indirect {
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
            Some(k) => CalleeKind::Library(k.writes_first_argument),
            None if crate::ir::library::is_noreturn(name) || lib.noreturn.contains(name) => {
                CalleeKind::Library(false)
            }
            None => CalleeKind::Unknown,
        },
    };
    // `callees` are the names `classify` found a body for.
    let fresh = probe::sites::fresh_writes(&ir);
    let (m, callees) =
        regions::own_writes(&ir, &env, &classes, &classify, &|n| fresh.contains_key(&n));
    let mut edges: Vec<u32> = callees
        .iter()
        .filter_map(|n| resolve_function(db, file, n))
        .filter_map(|g| index.get(&g).copied())
        .collect();
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
pub fn never_returns_of<'db>(db: &'db dyn Db, f: Function<'db>) -> Option<Option<String>> {
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
/// reason: the callee that ends its paths (`exit`, `abort`, a project's own `fatal`, …), or
/// none when it loops forever. A function never returns when no path from its entry reaches
/// its exit once calls to functions that never return end their paths (`probe::sites::
/// can_return`); found by a fixpoint over the workspace, the C library's `is_noreturn`
/// functions as the seed.
///
/// A function whose lowering fell back anywhere (opaque code might hide a `return`) is never
/// counted. The fixpoint is bounded: stopping early only leaves out functions, which is safe
/// (a call is then followed or summarised as before).
#[salsa::tracked(returns(clone))]
pub fn never_returning(db: &dyn Db, ws: Workspace) -> Arc<FxHashMap<u32, Option<String>>> {
    const MAX_ROUNDS: usize = 16;
    let funcs = all_functions(db, ws);
    let index = function_ids(db, ws);
    let bodies: Vec<_> = funcs.iter().map(|f| body(db, *f)).collect();
    // Functions the program's headers declare `noreturn` (the lowering already ends paths at
    // their calls).
    let declared = library_model(db, db.settings());
    let mut never: FxHashMap<u32, Option<String>> = FxHashMap::default();
    for _ in 0..MAX_ROUNDS {
        let mut changed = false;
        for (i, (f, ir)) in funcs.iter().zip(&bodies).enumerate() {
            if never.contains_key(&(i as u32)) || !ir.fallbacks.is_empty() {
                continue;
            }
            let file = f.file(db);
            let mut stopped_by: Option<String> = None;
            let mut stops = |c: &Callee| {
                let Callee::Direct(name) = c else {
                    return false;
                };
                let stop = declared.noreturn.contains(name)
                    || match resolve_function(db, file, name) {
                        Some(g) => index.get(&g).is_some_and(|j| never.contains_key(j)),
                        None => crate::ir::library::is_noreturn(name),
                    };
                if stop && stopped_by.is_none() {
                    stopped_by = Some(name.clone());
                }
                stop
            };
            if !probe::sites::can_return(ir, &mut stops) {
                never.insert(i as u32, stopped_by);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    Arc::new(never)
}

/// One inferred fact about a function, for `reductio facts`: where the function is, what is
/// inferred (`never returns`) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionFact {
    pub file: std::path::PathBuf,
    /// 1-based line of the function's start.
    pub line: u32,
    pub function: String,
    pub fact: &'static str,
    pub reason: String,
}

/// Every inferred fact about the workspace's functions, in file and source order: the
/// functions that never return (found from their bodies), and what the program's headers
/// declare (`noreturn`, `__attribute__((malloc))` allocators and their deallocators).
pub fn function_facts(db: &dyn Db) -> Vec<FunctionFact> {
    let ws = db.workspace();
    let never = never_returning(db, ws);
    let funcs = all_functions(db, ws);
    let inferred: rustc_hash::FxHashSet<&str> = never
        .keys()
        .filter_map(|i| funcs.get(*i as usize))
        .map(|f| f.name(db).as_str())
        .collect();
    let mut declared_facts = Vec::new();
    for (name, d) in declared_attributes(db, ws).iter() {
        let file = d.file.path(db).clone();
        let text = d.file.text(db);
        let line = declaration_line(text, name);
        let shown = file.display().to_string();
        let mut push = |fact: &'static str, function: &str, reason: String| {
            declared_facts.push(FunctionFact {
                file: file.clone(),
                line,
                function: function.to_string(),
                fact,
                reason,
            })
        };
        let a = &d.attributes;
        if a.noreturn && !inferred.contains(name.as_str()) {
            push(
                "never returns",
                name,
                format!("declared noreturn in {shown}"),
            );
        }
        if a.malloc {
            push(
                "allocator",
                name,
                format!("declared `__attribute__((malloc))` in {shown}: returns fresh memory"),
            );
        }
        for (dealloc, i) in &a.deallocators {
            push(
                "deallocator",
                dealloc,
                format!(
                    "`{name}` is declared `__attribute__((malloc({dealloc}, {i})))` in {shown}: \
                     `{dealloc}` frees argument {i}"
                ),
            );
        }
    }
    let mut out: Vec<FunctionFact> = funcs
        .iter()
        .enumerate()
        .filter_map(|(i, f)| {
            let stopper = never.get(&(i as u32))?;
            let reason = match stopper {
                Some(s) => format!(
                    "every path from its entry ends in a call of `{s}`, which does not return"
                ),
                None => "no path from its entry reaches a return (it loops forever)".to_string(),
            };
            Some(FunctionFact {
                file: f.file(db).path(db).clone(),
                line: super::positions::function_anchor(db, *f).line + 1,
                function: f.name(db).clone(),
                fact: "never returns",
                reason,
            })
        })
        .collect();
    out.extend(declared_facts);
    out.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    out
}

/// 1-based line of the first `name(` or `name (` in `text` at a word boundary (1 if none).
fn declaration_line(text: &str, name: &str) -> u32 {
    let b = text.as_bytes();
    let mut from = 0;
    while let Some(k) = text[from..].find(name) {
        let at = from + k;
        let end = at + name.len();
        let word = |i: usize| b[i].is_ascii_alphanumeric() || b[i] == b'_';
        let before_ok = at == 0 || !word(at - 1);
        let rest = text[end..].trim_start_matches([' ', '\t']);
        if before_ok && rest.starts_with('(') {
            return text[..at].matches('\n').count() as u32 + 1;
        }
        from = end;
    }
    1
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
                } else if lib.allocators.contains_key(name)
                    || lib.deallocators.contains_key(name)
                    || lib.noreturn.contains(name)
                    || crate::ir::library::known_function(name).is_some()
                    || crate::ir::library::is_noreturn(name)
                {
                    s.library += 1;
                } else {
                    s.unknown += 1;
                }
            }
        }
    }
    s
}

//! Exit flags: globals that are nonzero only once the program is on its way out.
//!
//! Vim's `vim_free` skips `free()` while `really_exiting` is set, and only `preserve_exit`,
//! which never returns, sets it. A block lost because such a wrapper skipped its free is lost
//! while the process ends, not during a run: the engine reports it `unproved` with the reason
//! instead of as a leak (never as proved: the path is real).
//!
//! A global `g` is an exit flag when
//! - it is declared in the program's own files (a workspace file or a project header, not a
//!   system header: the C library's globals, `optind` say, are set by code the program does
//!   not have), with a scalar number type everywhere, and no initializer other than the
//!   constant 0;
//! - no body uses its address other than to load or store it directly (no `&g` passed or
//!   stored, no opaque statement mentions it), so every write to it is one the scan sees;
//! - every store of anything but the constant 0 into it is in a function that never returns
//!   because every path ends in a call that does not return (or the user listed it as
//!   `noreturn`): once such a store ran, the process only goes on to end. A function that
//!   never returns because it loops forever (an event loop) does not count: a flag it sets
//!   holds for the rest of an ordinary run.
//!
//! The flag may also be set by a long-running function that ends in `exit()` (a daemon's
//! main body that sets `running = 1` first); a leak that needs such a flag comes out
//! `unproved` rather than `leak`. That costs recall, never soundness.

use super::database::Db;
use super::front_end::{Function, body, file_syntax_items, global_inits, type_env};
use super::inputs::Workspace;
use super::names::all_functions;
use super::whole_program::never_returning;
use crate::ir::{ExprId, ExprKind, FunctionIr, StmtKind, Symbol};
use crate::probe::NeverReturns;
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;

/// How one body writes globals, without source positions (an edit that moves code leaves it
/// equal).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GlobalWrites {
    /// Globals the body stores something other than the constant 0 into (sorted, no repeats).
    nonzero: Vec<String>,
    /// Globals whose address the body uses other than to load or store them directly.
    escaped: Vec<String>,
}

#[salsa::tracked(returns(clone))]
pub fn global_writes<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<GlobalWrites> {
    Arc::new(scan(&body(db, f)))
}

/// The exit flags of the program: each flag's name and the function that sets it (the first
/// by name when several do).
#[salsa::tracked(returns(clone))]
pub fn exit_flags(db: &dyn Db, ws: Workspace) -> Arc<FxHashMap<String, String>> {
    let env = type_env(db, ws);
    let mut defined: FxHashSet<String> = FxHashSet::default();
    let mut excluded: FxHashSet<String> = FxHashSet::default();
    for &file in super::build::program_files(db, ws) {
        for g in &file_syntax_items(db, file).globals {
            if env.resolve(&g.ty).is_scalar_number() {
                defined.insert(g.name.clone());
            } else {
                excluded.insert(g.name.clone());
            }
        }
        // The initializers, as stores of the pseudo-function `<globals>`: a nonzero one
        // means the flag is set from the start.
        let inits = scan(&global_inits(db, file));
        excluded.extend(inits.nonzero);
        excluded.extend(inits.escaped);
    }
    let funcs = all_functions(db, ws);
    let never = never_returning(db, ws);
    let mut setters: FxHashMap<String, Vec<&str>> = FxHashMap::default();
    for (i, f) in funcs.iter().enumerate() {
        let w = global_writes(db, *f);
        excluded.extend(w.escaped.iter().cloned());
        let ends_the_process = matches!(
            never.get(&(i as u32)),
            Some(NeverReturns::Calls(_) | NeverReturns::Configured)
        );
        for g in &w.nonzero {
            if ends_the_process {
                setters.entry(g.clone()).or_default().push(f.name(db));
            } else {
                excluded.insert(g.clone());
            }
        }
    }
    let mut out = FxHashMap::default();
    for (g, mut by) in setters {
        if excluded.contains(&g) || !defined.contains(&g) {
            continue;
        }
        by.sort_unstable();
        out.insert(g, by[0].to_string());
    }
    Arc::new(out)
}

/// The globals a body stores nonzero values into, and those whose address it uses otherwise.
fn scan(ir: &FunctionIr) -> GlobalWrites {
    let mut nonzero = FxHashSet::default();
    let mut escaped = FxHashSet::default();
    let global = |e: ExprId| match &ir.exprs.get(e).kind {
        ExprKind::Addr(Symbol::Global(g)) => Some(g.clone()),
        _ => None,
    };
    for id in ir.node_ids() {
        let mut uses: Vec<ExprId> = vec![];
        match &ir.node(id).stmt.kind {
            StmtKind::Assign { addr, value } => {
                match global(*addr) {
                    Some(g) => {
                        if !matches!(ir.exprs.get(*value).kind, ExprKind::Int(0)) {
                            nonzero.insert(g);
                        }
                    }
                    None => uses.push(*addr),
                }
                uses.push(*value);
            }
            StmtKind::Alloc { addr, .. } | StmtKind::ZeroFill { addr } => match global(*addr) {
                Some(g) => {
                    if matches!(ir.node(id).stmt.kind, StmtKind::Alloc { .. }) {
                        nonzero.insert(g);
                    }
                }
                None => uses.push(*addr),
            },
            StmtKind::Call { dest, callee, args } => {
                if let Some(d) = dest {
                    match global(*d) {
                        Some(g) => {
                            nonzero.insert(g);
                        }
                        None => uses.push(*d),
                    }
                }
                if let crate::ir::Callee::Indirect(e) = callee {
                    uses.push(*e);
                }
                uses.extend(args.iter().copied());
            }
            StmtKind::Free { ptr } => uses.push(*ptr),
            StmtKind::Cond { lhs, rhs, .. } => uses.extend([*lhs, *rhs]),
            StmtKind::Return { value } => uses.extend(value.iter().copied()),
            StmtKind::Opaque { reads, .. } => {
                // Code the front end did not understand may write whatever it mentions.
                for &r in reads {
                    mentioned(ir, r, &mut escaped);
                }
            }
            StmtKind::Enter | StmtKind::ScopeBegin { .. } | StmtKind::ScopeEnd { .. } => {}
            StmtKind::Nop => {}
        }
        for e in uses {
            escapes(ir, e, &mut escaped);
        }
    }
    let mut nonzero: Vec<String> = nonzero.into_iter().collect();
    nonzero.sort_unstable();
    let mut escaped: Vec<String> = escaped.into_iter().collect();
    escaped.sort_unstable();
    GlobalWrites { nonzero, escaped }
}

/// Globals whose address `e` uses other than to load them (`*&g`).
fn escapes(ir: &FunctionIr, e: ExprId, out: &mut FxHashSet<String>) {
    match &ir.exprs.get(e).kind {
        ExprKind::Addr(Symbol::Global(g)) => {
            out.insert(g.clone());
        }
        ExprKind::Deref(a) => {
            if !matches!(ir.exprs.get(*a).kind, ExprKind::Addr(Symbol::Global(_))) {
                escapes(ir, *a, out);
            }
        }
        ExprKind::Field(a, _) => escapes(ir, *a, out),
        ExprKind::Binary(_, a, b) => {
            escapes(ir, *a, out);
            escapes(ir, *b, out);
        }
        ExprKind::Int(_) | ExprKind::Scalar | ExprKind::Addr(_) | ExprKind::Unknown => {}
    }
}

/// Every global `e` names, loaded or not.
fn mentioned(ir: &FunctionIr, e: ExprId, out: &mut FxHashSet<String>) {
    match &ir.exprs.get(e).kind {
        ExprKind::Addr(Symbol::Global(g)) => {
            out.insert(g.clone());
        }
        ExprKind::Deref(a) | ExprKind::Field(a, _) => mentioned(ir, *a, out),
        ExprKind::Binary(_, a, b) => {
            mentioned(ir, *a, out);
            mentioned(ir, *b, out);
        }
        ExprKind::Int(_) | ExprKind::Scalar | ExprKind::Addr(_) | ExprKind::Unknown => {}
    }
}

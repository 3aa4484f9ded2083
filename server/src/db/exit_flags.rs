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
//!   not have), with a scalar number type everywhere (in the declarations as expanded,
//!   `file_decls`), and no initializer other than the constant 0;
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
use super::front_end::{Function, body, file_decls, global_inits, type_env};
use super::inputs::Workspace;
use super::names::all_functions;
use super::whole_program::{never_returning, type_classes};
use crate::ir::{ExprId, ExprKind, FunctionIr, StmtKind, Symbol};
use crate::probe::NeverReturns;
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;

/// How one body writes globals, without source positions (an edit that moves code leaves it
/// equal). Globals whose address is taken are `TypeClasses::address_taken_globals`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GlobalWrites {
    /// Globals the body stores something other than the constant 0 into (sorted, no repeats).
    nonzero: Vec<String>,
    /// Globals a statement the front end did not understand mentions (it may write them).
    opaque: Vec<String>,
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
    // Globals whose address is used other than to load or store them directly.
    let mut excluded: FxHashSet<String> = type_classes(db, ws).address_taken_globals.clone();
    for &file in super::build::program_files(db, ws) {
        // As the compiler declares them: through the file's macros (Vim's `EXTERN int
        // really_exiting INIT(= FALSE);` is no declaration before expansion).
        for (name, ty) in &file_decls(db, file).globals {
            if env.resolve(ty).is_scalar_number() {
                defined.insert(name.clone());
            } else {
                excluded.insert(name.clone());
            }
        }
        // The initializers, as stores of the pseudo-function `<globals>`: a nonzero one
        // means the flag is set from the start (and `int *p = &g;` takes `g`'s address).
        let inits = global_inits(db, file);
        let w = scan(&inits);
        excluded.extend(w.nonzero);
        excluded.extend(w.opaque);
        crate::regions::collect_taken_globals(&inits, &mut excluded);
    }
    let funcs = all_functions(db, ws);
    let never = never_returning(db, ws);
    let mut setters: FxHashMap<String, Vec<&str>> = FxHashMap::default();
    for (i, f) in funcs.iter().enumerate() {
        let w = global_writes(db, *f);
        excluded.extend(w.opaque.iter().cloned());
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

/// The globals a body stores nonzero values into, and those its opaque statements mention.
fn scan(ir: &FunctionIr) -> GlobalWrites {
    let mut nonzero = FxHashSet::default();
    let mut opaque = FxHashSet::default();
    for id in ir.node_ids() {
        let (target, stores_nonzero) = match &ir.node(id).stmt.kind {
            StmtKind::Assign { addr, value } => (
                *addr,
                !matches!(ir.exprs.get(*value).kind, ExprKind::Int(0)),
            ),
            StmtKind::Alloc { addr, .. } => (*addr, true),
            StmtKind::Call { dest: Some(d), .. } => (*d, true),
            StmtKind::Opaque { reads, .. } => {
                for &r in reads {
                    mentioned(ir, r, &mut opaque);
                }
                continue;
            }
            _ => continue,
        };
        if stores_nonzero && let ExprKind::Addr(Symbol::Global(g)) = &ir.exprs.get(target).kind {
            nonzero.insert(g.clone());
        }
    }
    let mut nonzero: Vec<String> = nonzero.into_iter().collect();
    nonzero.sort_unstable();
    let mut opaque: Vec<String> = opaque.into_iter().collect();
    opaque.sort_unstable();
    GlobalWrites { nonzero, opaque }
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

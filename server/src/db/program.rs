//! [`DbProgram`]: the engine's view of the program ([`probe::Program`]), reading every body,
//! call graph edge, type class and MOD set through queries, so that salsa records what each
//! probe's exploration read. Also the per-function passes shared by all probes of a function.

use super::database::Db;
use super::front_end::{Function, body, library_model, type_env};
use super::names::{all_functions, function_ids, resolve_function};
use super::whole_program::{
    callers_of, indirect_targets, mod_of, never_returns_of, nonnull_params_of,
    null_passed_params_of, type_classes, unescaped_locals,
};
use crate::ir::{FunctionIr, NodeId, TypeEnv};
use crate::probe::{self, FuncId};
use crate::regions::{ModSet, TypeClasses};
use std::sync::Arc;

/// The engine's view of the program, reading everything through queries.
pub(super) struct DbProgram<'db> {
    db: &'db dyn Db,
    pub(super) funcs: &'db [Function<'db>],
    env: Arc<TypeEnv>,
    classes: Arc<TypeClasses>,
    /// Read once: the engine asks it at every body-less call.
    library: Arc<crate::ir::LibraryModel>,
}

impl<'db> DbProgram<'db> {
    pub(super) fn new(db: &'db dyn Db) -> Self {
        let ws = db.workspace();
        DbProgram {
            db,
            funcs: all_functions(db, ws),
            env: type_env(db, ws),
            classes: type_classes(db, ws),
            library: library_model(db, db.settings()),
        }
    }
    pub(super) fn index_of(&self, f: Function<'db>) -> Option<u32> {
        function_ids(self.db, self.db.workspace()).get(&f).copied()
    }
}

/// Where the temporaries of a function die (a liveness pass, shared by all probes).
#[salsa::tracked(returns(clone))]
pub fn temp_deaths<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<probe::TempDeaths> {
    Arc::new(probe::sites::temp_deaths(&body(db, f)))
}

/// The locals of a function that never hold a pointer (`probe::scalar_locals`, a pass over
/// the body shared by all probes), sorted.
#[salsa::tracked(returns(clone))]
pub fn scalar_locals<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<Vec<crate::ir::LocalId>> {
    let ws = db.workspace();
    let file = f.file(db);
    let has_body = |name: &str| resolve_function(db, file, name).is_some();
    let mut v: Vec<crate::ir::LocalId> = probe::scalar_locals::scalar_locals(
        &body(db, f),
        &type_env(db, ws),
        &type_classes(db, ws),
        &has_body,
    )
    .into_iter()
    .collect();
    v.sort();
    Arc::new(v)
}

/// Writes into blocks only one local can reach (a forward pass, shared by all probes).
#[salsa::tracked(returns(clone))]
pub fn fresh_writes<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<probe::FreshWrites> {
    Arc::new(probe::sites::fresh_writes(&body(db, f)))
}

/// The locals of a function holding a block nothing else points to yet (a forward pass,
/// shared by all probes), with calls of the workspace's allocator wrappers
/// (`regions::returns_fresh`) as allocations.
#[salsa::tracked(returns(clone))]
pub fn fresh_values<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<probe::FreshValues> {
    let ir = body(db, f);
    let file = f.file(db);
    let callee = |name: &str| resolve_function(db, file, name).map(|g| body(db, g));
    let fresh_call =
        |name: &str| callee(name).is_some_and(|g| crate::regions::returns_fresh(&g, &callee));
    Arc::new(probe::sites::fresh_values(&ir, &fresh_call))
}

/// Per statement, the pointer values it dereferences (a pass over the body, shared by all
/// probes).
#[salsa::tracked(returns(clone))]
pub fn dereferenced_values<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<Vec<probe::Derefs>> {
    Arc::new(probe::dereferenced_values(&body(db, f)))
}

/// The parameters a function frees on every path that returns unless they are NULL (a pass
/// over its body, shared by all probes).
#[salsa::tracked(returns(clone))]
pub fn freed_params<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<Vec<bool>> {
    Arc::new(probe::freed_params::freed_params(&body(db, f)))
}

impl probe::Program for DbProgram<'_> {
    fn body(&self, f: FuncId) -> Arc<FunctionIr> {
        body(self.db, self.funcs[f as usize])
    }
    fn temp_deaths(&self, f: FuncId) -> Arc<probe::TempDeaths> {
        temp_deaths(self.db, self.funcs[f as usize])
    }
    fn fresh_writes(&self, f: FuncId) -> Arc<probe::FreshWrites> {
        fresh_writes(self.db, self.funcs[f as usize])
    }
    fn fresh_values(&self, f: FuncId) -> Arc<probe::FreshValues> {
        fresh_values(self.db, self.funcs[f as usize])
    }
    fn function_name(&self, f: FuncId) -> String {
        self.funcs[f as usize].name(self.db).clone()
    }
    fn resolve(&self, from: FuncId, name: &str) -> Option<FuncId> {
        let file = self.funcs[from as usize].file(self.db);
        resolve_function(self.db, file, name).and_then(|g| self.index_of(g))
    }
    fn callers(&self, f: FuncId) -> Vec<(FuncId, NodeId)> {
        callers_of(self.db, self.funcs[f as usize]).as_ref().clone()
    }
    fn indirect_targets(&self, arity: usize) -> Vec<FuncId> {
        indirect_targets(self.db, self.db.workspace())
            .get(&arity)
            .cloned()
            .unwrap_or_default()
    }
    fn env(&self) -> &TypeEnv {
        &self.env
    }
    fn classes(&self) -> &TypeClasses {
        &self.classes
    }
    fn never_returns(&self, f: FuncId) -> Option<probe::NeverReturns> {
        never_returns_of(self.db, *self.funcs.get(f as usize)?)
    }
    fn bodyless_never_returns(&self, name: &str) -> bool {
        self.library.never_returns(name)
    }
    fn exit_flag(&self, global: &str) -> Option<String> {
        super::exit_flags::exit_flags(self.db, self.db.workspace())
            .get(global)
            .cloned()
    }
    fn mod_set(&self, f: FuncId) -> Arc<ModSet> {
        match self.funcs.get(f as usize) {
            Some(g) => mod_of(self.db, *g),
            None => Arc::new(ModSet {
                all: true,
                ..Default::default()
            }),
        }
    }
    fn scalar_locals(&self, f: FuncId) -> Arc<Vec<crate::ir::LocalId>> {
        match self.funcs.get(f as usize) {
            Some(g) => scalar_locals(self.db, *g),
            None => Arc::new(vec![]),
        }
    }
    fn unescaped_locals(&self, f: FuncId) -> Arc<Vec<crate::ir::LocalId>> {
        match self.funcs.get(f as usize) {
            Some(g) => unescaped_locals(self.db, *g),
            None => Arc::new(vec![]),
        }
    }
    fn dereferenced_values(&self, f: FuncId) -> Arc<Vec<probe::Derefs>> {
        match self.funcs.get(f as usize) {
            Some(g) => dereferenced_values(self.db, *g),
            None => Arc::new(vec![]),
        }
    }
    fn freed_params(&self, f: FuncId) -> Arc<Vec<bool>> {
        match self.funcs.get(f as usize) {
            Some(g) => freed_params(self.db, *g),
            None => Arc::new(vec![]),
        }
    }
    fn nonnull_params(&self, f: FuncId) -> Arc<Vec<bool>> {
        match self.funcs.get(f as usize) {
            Some(g) => nonnull_params_of(self.db, *g),
            None => Arc::new(vec![]),
        }
    }
    fn null_passed_params(&self, f: FuncId) -> Arc<Vec<bool>> {
        match self.funcs.get(f as usize) {
            Some(g) => null_passed_params_of(self.db, *g),
            None => Arc::new(vec![]),
        }
    }
    fn checkpoint(&self) {
        self.db.unwind_if_revision_cancelled();
    }
}

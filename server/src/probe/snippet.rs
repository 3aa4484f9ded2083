//! A [`Program`] over a C snippet, for unit tests of the engine's helpers: the functions of
//! the snippet lowered with the standard library model, their type classes, and calls
//! resolved by name. MOD sets are "may write anything" (tests that need summaries use the
//! database).

use super::{FuncId, Program};
use crate::ir::{Callee, FunctionIr, LocalId, NodeId, StmtKind, TypeEnv};
use crate::regions::{ModSet, TypeClasses, TypeFacts};
use std::sync::Arc;

pub(crate) struct SnippetProgram {
    env: TypeEnv,
    classes: TypeClasses,
    funcs: Vec<Arc<FunctionIr>>,
}

impl SnippetProgram {
    pub(crate) fn new(src: &str) -> SnippetProgram {
        let (env, irs) = crate::ir::lower_snippet(src);
        let funcs: Vec<Arc<FunctionIr>> = irs.into_iter().map(Arc::new).collect();
        let callee = |name: &str| funcs.iter().find(|f| f.name == name).cloned();
        let facts: Vec<TypeFacts> = funcs
            .iter()
            .map(|f| TypeFacts::of_function(f, &env, &callee))
            .collect();
        let classes = TypeClasses::from_facts(facts.iter());
        SnippetProgram {
            env,
            classes,
            funcs,
        }
    }

    /// Row `f` of a whole-program parameter table computed on the snippet's bodies.
    fn param_row(&self, f: FuncId, table: super::nonnull_params::BodiesTable) -> Arc<Vec<bool>> {
        let refs: Vec<&FunctionIr> = self.funcs.iter().map(|b| b.as_ref()).collect();
        let callers: Vec<Vec<(FuncId, NodeId)>> = (0..self.funcs.len() as FuncId)
            .map(|g| self.callers(g))
            .collect();
        let mut t = table(&refs, &callers);
        Arc::new(std::mem::take(&mut t[f as usize]))
    }

    /// The function called `name`.
    pub(crate) fn func(&self, name: &str) -> FuncId {
        self.funcs
            .iter()
            .position(|f| f.name == name)
            .unwrap_or_else(|| panic!("no function `{name}`")) as FuncId
    }

    /// Changes the lowered body of function `f` (tests of what the engine does with bodies
    /// the front end could not lower whole).
    pub(crate) fn edit_body(&mut self, f: FuncId, edit: impl FnOnce(&mut FunctionIr)) {
        edit(Arc::make_mut(&mut self.funcs[f as usize]));
    }

    /// How many functions the snippet has.
    pub(crate) fn function_count(&self) -> usize {
        self.funcs.len()
    }

    /// The local (or parameter) `name` of function `f`.
    pub(crate) fn local(&self, f: FuncId, name: &str) -> LocalId {
        let i = self.funcs[f as usize]
            .locals
            .iter()
            .position(|l| l.name == name)
            .unwrap_or_else(|| panic!("no local `{name}`"));
        LocalId(i as u32)
    }
}

impl Program for SnippetProgram {
    fn body(&self, f: FuncId) -> Arc<FunctionIr> {
        self.funcs[f as usize].clone()
    }
    fn function_name(&self, f: FuncId) -> String {
        self.funcs[f as usize].name.clone()
    }
    fn resolve(&self, _from: FuncId, name: &str) -> Option<FuncId> {
        self.funcs
            .iter()
            .position(|f| f.name == name)
            .map(|i| i as FuncId)
    }
    fn callers(&self, f: FuncId) -> Vec<(FuncId, NodeId)> {
        let name = &self.funcs[f as usize].name;
        let mut out = vec![];
        for (i, g) in self.funcs.iter().enumerate() {
            for n in g.node_ids() {
                if matches!(&g.node(n).stmt.kind,
                    StmtKind::Call { callee: Callee::Direct(c), .. } if c == name)
                {
                    out.push((i as FuncId, n));
                }
            }
        }
        out
    }
    fn indirect_targets(&self, _arity: usize) -> Vec<FuncId> {
        vec![]
    }
    fn env(&self) -> &TypeEnv {
        &self.env
    }
    fn classes(&self) -> &TypeClasses {
        &self.classes
    }
    fn nonnull_params(&self, f: FuncId) -> Arc<Vec<bool>> {
        self.param_row(f, super::nonnull_params::nonnull_params)
    }
    fn null_passed_params(&self, f: FuncId) -> Arc<Vec<bool>> {
        self.param_row(f, super::nonnull_params::null_passed_params)
    }
    fn mod_set(&self, _f: FuncId) -> Arc<ModSet> {
        Arc::new(ModSet {
            all: true,
            ..Default::default()
        })
    }
}

//! Front-end queries: parse a file, collect its top-level items, one [`Function`] per
//! definition, the workspace's declarations and the library model, and each function's lowered
//! IR (with and without source ranges), plus the pseudo-function of a file's global
//! initializers.

use super::database::Db;
use super::inputs::{Settings, SourceFile, Workspace};
use crate::ir::{self, FileItems, FunctionIr, FunctionSource, LibraryModel, LowerContext, TypeEnv};
use crate::syntax::SyntaxTree;
use std::sync::Arc;

/// A function definition in the workspace. Identity is (file, name, occurrence); the text and
/// the position are tracked separately so that moving a function does not re-lower it.
#[salsa::tracked(debug)]
pub struct Function<'db> {
    #[returns(copy)]
    pub file: SourceFile,
    #[returns(ref)]
    pub name: String,
    #[tracked]
    #[returns(ref)]
    pub source: FunctionSource,
    /// Byte offset of the definition in its file.
    #[tracked]
    #[returns(copy)]
    pub start: u32,
}

#[salsa::tracked(returns(clone), no_eq)]
pub fn parsed(db: &dyn Db, file: SourceFile) -> SyntaxTree {
    db.record(format!("parse {}", file.path(db).display()));
    match file.tree(db) {
        Some(t) => t,
        None => SyntaxTree(crate::syntax::parse(file.text(db), None)),
    }
}

/// Everything the file's top level declares. Not `Eq`-compared: it holds function texts and
/// changes with every edit; the queries below it are the ones that backdate.
#[salsa::tracked(returns(clone), no_eq)]
pub fn file_syntax_items(db: &dyn Db, file: SourceFile) -> Arc<FileItems> {
    let tree = parsed(db, file);
    Arc::new(ir::collect_items(&tree.0, file.text(db)))
}

#[salsa::tracked(returns(ref))]
pub fn file_functions(db: &dyn Db, file: SourceFile) -> Vec<Function<'_>> {
    let items = file_syntax_items(db, file);
    items
        .functions
        .iter()
        .map(|f| Function::new(db, file, f.source.name.clone(), f.source.clone(), f.start))
        .collect()
}

/// The declarations of one file: what other files' lowering may read.
#[salsa::tracked(returns(clone))]
pub fn file_decls(db: &dyn Db, file: SourceFile) -> Arc<TypeEnv> {
    Arc::new(file_syntax_items(db, file).env.clone())
}

/// Declarations of the whole workspace, merged (first definition of a name wins).
#[salsa::tracked(returns(clone))]
pub fn type_env(db: &dyn Db, ws: Workspace) -> Arc<TypeEnv> {
    let mut env = TypeEnv::default();
    for f in ws.files(db) {
        env.merge(&file_decls(db, *f));
    }
    Arc::new(env)
}

#[salsa::tracked(returns(clone))]
pub fn library_model(db: &dyn Db, settings: Settings) -> Arc<LibraryModel> {
    let c = settings.config(db);
    Arc::new(LibraryModel::with_user(&c.allocators, &c.deallocators).with_noreturn(&c.noreturn))
}

/// The lowered IR and CFG of one function.
#[salsa::tracked(returns(clone))]
pub fn lowered<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<FunctionIr> {
    db.record(format!("lower {}", f.name(db)));
    let env = type_env(db, db.workspace());
    let lib = library_model(db, db.settings());
    let ctx = LowerContext {
        env: &env,
        lib: &lib,
    };
    Arc::new(ir::lower_function(f.source(db), &ctx))
}

/// [`lowered`] without source ranges: what the analysis reads (see
/// [`FunctionIr::without_ranges`]). Results are placed with [`lowered`].
#[salsa::tracked(returns(clone))]
pub fn body<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<FunctionIr> {
    Arc::new(lowered(db, f).without_ranges())
}

/// The initializers of a file's globals, as the pseudo-function `<globals>`.
#[salsa::tracked(returns(clone))]
pub fn global_inits(db: &dyn Db, file: SourceFile) -> Arc<FunctionIr> {
    let items = file_syntax_items(db, file);
    let tree = parsed(db, file);
    let env = type_env(db, db.workspace());
    let lib = library_model(db, db.settings());
    let ctx = LowerContext {
        env: &env,
        lib: &lib,
    };
    Arc::new(ir::lower_global_inits(
        &tree.0,
        file.text(db),
        &items.globals,
        &ctx,
    ))
}

//! Front-end queries: parse a file, collect its top-level items, one [`Function`] per
//! definition, the workspace's declarations and the library model, and each function's lowered
//! IR (with and without source ranges), plus the pseudo-function of a file's global
//! initializers.

use super::build::{declared_attributes, expanded_function, parse_text, program_files};
use super::database::Db;
use super::inputs::{Settings, SourceFile, Workspace};
use crate::ir::{self, FileItems, FunctionIr, FunctionSource, LibraryModel, LowerContext, TypeEnv};
use crate::syntax::{SyntaxTree, TextRange};
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

/// The tree of the file's parse text ([`parse_text`]: the text with the `#if` arms the build
/// model decided dead and the decoration macros' invocations blanked, same offsets). The
/// editor's incremental tree is used when nothing is blanked.
#[salsa::tracked(returns(clone), no_eq)]
pub fn parsed(db: &dyn Db, file: SourceFile) -> SyntaxTree {
    db.record(format!("parse {}", file.path(db).display()));
    if let Some(live) = parse_text(db, file) {
        return SyntaxTree(db.parse_live(file, &live));
    }
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
    match parse_text(db, file) {
        Some(live) => Arc::new(ir::collect_items(&tree.0, &live)),
        None => Arc::new(ir::collect_items(&tree.0, file.text(db))),
    }
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

/// The declarations of one file: what other files' lowering may read. With a copy of each
/// type the file defines for itself under a name other files define differently, under its
/// qualified name (see `ir::local_types`).
#[salsa::tracked(returns(clone))]
pub fn file_decls(db: &dyn Db, file: SourceFile) -> Arc<TypeEnv> {
    let own = file_own_decls(db, file);
    let q = type_qualifiers(db, file);
    if q.is_empty() {
        return own;
    }
    let mut env = (*own).clone();
    q.add_qualified_copies(&mut env);
    Arc::new(env)
}

/// Which typedef names and struct tags the workspace's files define in more than one way.
#[salsa::tracked(returns(clone))]
pub fn type_collisions(db: &dyn Db, ws: Workspace) -> Arc<ir::local_types::Collisions> {
    let envs: Vec<Arc<TypeEnv>> = program_files(db, ws)
        .iter()
        .map(|f| file_own_decls(db, *f))
        .collect();
    Arc::new(ir::local_types::collisions(envs.iter().map(|e| &**e)))
}

/// The types a `.c` file defines for itself under a name other files define differently,
/// with their qualified names (empty for a header: which one a file sees is its includes').
#[salsa::tracked(returns(clone))]
pub fn type_qualifiers(db: &dyn Db, file: SourceFile) -> Arc<ir::local_types::TypeQualifiers> {
    let path = file.path(db);
    if path.extension().is_none_or(|e| e != "c") {
        return Arc::default();
    }
    let collisions = type_collisions(db, db.workspace());
    if collisions.typedefs.is_empty() && collisions.tags.is_empty() {
        return Arc::default();
    }
    let own = file_own_decls(db, file);
    Arc::new(ir::local_types::qualifiers(
        &own,
        &collisions,
        &path.display().to_string(),
    ))
}

/// The declarations the file's own text makes (see [`file_decls`]).
#[salsa::tracked(returns(clone))]
pub fn file_own_decls(db: &dyn Db, file: SourceFile) -> Arc<TypeEnv> {
    let items = file_syntax_items(db, file);
    match super::build::expanded_declarations(db, file) {
        // Declared through macros (`ARRAY_HEAD(Name, T);`, `TAILQ_ENTRY(node) link;` in a
        // struct): what the expansion declares first, the text as written for the rest.
        Some(text) => {
            let tree = crate::syntax::parse(&text, None);
            let mut env = ir::collect_items(&tree, &text).env;
            env.merge(&items.env);
            Arc::new(env)
        }
        None => Arc::new(items.env.clone()),
    }
}

/// Declarations of the whole workspace and the project headers it reaches, merged (first
/// definition of a name wins).
#[salsa::tracked(returns(clone))]
pub fn type_env(db: &dyn Db, ws: Workspace) -> Arc<TypeEnv> {
    let mut env = TypeEnv::default();
    for f in program_files(db, ws) {
        env.merge(&file_decls(db, *f));
    }
    Arc::new(env)
}

/// The names of the functions the workspace defines (has a body for).
#[salsa::tracked(returns(clone))]
pub fn defined_names(db: &dyn Db, ws: Workspace) -> Arc<rustc_hash::FxHashSet<String>> {
    Arc::new(
        super::names::all_functions(db, ws)
            .iter()
            .map(|f| f.name(db).clone())
            .collect(),
    )
}

/// The library model: the C library, the configured allocators and deallocators, and what
/// the program's headers declare (`__attribute__((malloc))` allocators, the deallocators
/// `malloc(dealloc, i)` names, `noreturn` functions, `returns_nonnull` and `nonnull`).
#[salsa::tracked(returns(clone))]
pub fn library_model(db: &dyn Db, settings: Settings) -> Arc<LibraryModel> {
    let c = settings.config(db);
    let mut m = LibraryModel::with_user(&c.allocators, &c.deallocators).with_noreturn(&c.noreturn);
    let declared = declared_attributes(db, db.workspace());
    let defined = defined_names(db, db.workspace());
    for (name, d) in declared.iter() {
        let a = &d.attributes;
        if a.noreturn {
            m.declare_noreturn(name);
        }
        // A declared allocator or deallocator whose body the workspace has is analysed
        // through that body: the attribute says the result is fresh, the body also says what
        // the new block holds (`s->owner = TRUE`) and when a release really frees
        // (`if (s->owner) free(s)`). Only a body-less declaration is modelled by it.
        if a.malloc && !defined.contains(name.as_str()) {
            m.declare_allocator(name);
        }
        for (dealloc, index) in &a.deallocators {
            if !defined.contains(dealloc.as_str()) {
                m.declare_deallocator(dealloc, index.saturating_sub(1) as usize);
            }
        }
        if a.returns_nonnull {
            m.declare_returns_nonnull(name);
        }
        if let Some(positions) = &a.nonnull {
            m.declare_nonnull(name, positions);
        }
    }
    Arc::new(m)
}

/// The lowered IR and CFG of one function.
#[salsa::tracked(returns(clone))]
pub fn lowered<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<FunctionIr> {
    db.record(format!("lower {}", f.name(db)));
    let env = type_env(db, db.workspace());
    let lib = library_model(db, db.settings());
    let unit = super::unit_conds::unit_conditions(db, f);
    let qual = type_qualifiers(db, f.file(db));
    let ctx = LowerContext {
        env: &env,
        lib: &lib,
        unit: unit.as_deref(),
        qual: (!qual.is_empty()).then_some(&*qual),
    };
    match expanded_function(db, f) {
        // The expansion is lowered; every range is mapped back to what the user wrote (a
        // statement from a macro body to the macro call, an argument to the argument).
        Some(e) => {
            let src = f.source(db);
            let expanded = FunctionSource {
                text: e.text.clone(),
                ..src.clone()
            };
            let mut ir = ir::lower_function(&expanded, &ctx);
            let len = src.text.len() as u32;
            ir.map_ranges(|r| {
                let o = e.original_range(r.start as usize..r.end as usize);
                let start = (o.start as u32).min(len);
                TextRange::new(start, (o.end as u32).clamp(start, len))
            });
            Arc::new(ir)
        }
        None => Arc::new(ir::lower_function(f.source(db), &ctx)),
    }
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
    let qual = type_qualifiers(db, file);
    let ctx = LowerContext {
        env: &env,
        lib: &lib,
        unit: None,
        qual: (!qual.is_empty()).then_some(&*qual),
    };
    Arc::new(ir::lower_global_inits(
        &tree.0,
        file.text(db),
        &items.globals,
        &ctx,
    ))
}

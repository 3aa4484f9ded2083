//! Finding functions: by name (per file and across the workspace, as the C linker would), and
//! every function of the workspace in file order with its index (the engine's
//! [`probe::FuncId`](crate::probe::FuncId)).

use super::build::{file_headers, program_files};
use super::database::Db;
use super::front_end::{Function, file_functions};
use super::inputs::{SourceFile, Workspace};
use rustc_hash::FxHashMap;

/// Function lookup by name: per file (any function, the first of its name), and across the
/// workspace (non-static functions, in file order). Rebuilt when a file's functions change;
/// equal afterwards unless a name, a file or a `static` changed, so its readers backdate.
#[derive(Debug, Default, PartialEq, Eq, salsa::SalsaValue)]
pub struct FunctionNames<'db> {
    in_file: FxHashMap<SourceFile, FxHashMap<String, Function<'db>>>,
    exported: FxHashMap<String, Vec<Function<'db>>>,
}

#[salsa::tracked(returns(ref))]
pub fn function_names(db: &dyn Db, ws: Workspace) -> FunctionNames<'_> {
    let mut names = FunctionNames::default();
    for file in program_files(db, ws) {
        let local = names.in_file.entry(*file).or_default();
        for f in file_functions(db, *file) {
            local.entry(f.name(db).clone()).or_insert(*f);
            if !f.source(db).is_static {
                names
                    .exported
                    .entry(f.name(db).clone())
                    .or_default()
                    .push(*f);
            }
        }
    }
    names
}

/// Find a function by name: a function of `from` first (`static` or not), then of a header
/// `from` includes, then the non-static one of another file nearest to `from` in the
/// directory tree (the most leading directories in common; the first in file order among
/// equals). A tool that overrides a library function in its own directory (mruby's `mrbc`
/// defines its own `mrb_realloc`) is linked with its override, and the library's files with
/// the library's definition.
pub fn resolve_function<'db>(
    db: &'db dyn Db,
    from: SourceFile,
    name: &str,
) -> Option<Function<'db>> {
    let names = function_names(db, db.workspace());
    if let Some(f) = names.in_file.get(&from).and_then(|m| m.get(name)) {
        return Some(*f);
    }
    // A function of a header `from` includes (a `static inline` one is part of `from`'s
    // translation unit).
    for h in file_headers(db, from) {
        if let Some(f) = names.in_file.get(h).and_then(|m| m.get(name)) {
            return Some(*f);
        }
    }
    let cands = names.exported.get(name)?;
    let mut best: Option<(usize, Function<'db>)> = None;
    for f in cands.iter().filter(|f| f.file(db) != from) {
        let near = shared_dirs(from.path(db), f.file(db).path(db));
        if best.is_none_or(|(b, _)| near > b) {
            best = Some((near, *f));
        }
    }
    best.map(|(_, f)| f)
}

/// How many leading directories the files `a` and `b` have in common.
fn shared_dirs(a: &std::path::Path, b: &std::path::Path) -> usize {
    let (Some(a), Some(b)) = (a.parent(), b.parent()) else {
        return 0;
    };
    // `./src/a.c` (found by walking `.`) and `src/b.c` (named on the command line) share
    // `src`.
    fn dirs(p: &std::path::Path) -> impl Iterator<Item = std::path::Component<'_>> {
        p.components()
            .filter(|c| !matches!(c, std::path::Component::CurDir))
    }
    dirs(a).zip(dirs(b)).take_while(|(x, y)| x == y).count()
}

/// Every function of the workspace and of the project headers it reaches, in file order. A
/// function's index here is its [`probe::FuncId`].
#[salsa::tracked(returns(ref))]
pub fn all_functions(db: &dyn Db, ws: Workspace) -> Vec<Function<'_>> {
    let mut out = Vec::new();
    for f in program_files(db, ws) {
        out.extend(file_functions(db, *f).iter().copied());
    }
    out
}

/// Each function's index in [`all_functions`] (its [`probe::FuncId`]).
#[salsa::tracked(returns(ref))]
pub fn function_ids(db: &dyn Db, ws: Workspace) -> FxHashMap<Function<'_>, u32> {
    all_functions(db, ws)
        .iter()
        .enumerate()
        .map(|(i, f)| (*f, i as u32))
        .collect()
}

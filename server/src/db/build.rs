//! The build model in the database: each file's compile flags, its preprocessor scan (macro
//! table, decided `#if` groups, headers reached), its live text (decided-dead arms blanked),
//! each function's macro expansion, and the function attributes the reachable headers
//! declare. Header and compile-database contents are inputs ([`Db::file_at`]): a query that
//! reads one depends on it, so editing a header re-runs the scans of the files that reach it,
//! and — because every result here is `Eq` — re-lowers only the functions whose expansion
//! changed.

use super::database::Db;
use super::front_end::Function;
use super::inputs::{SourceFile, Workspace};
use crate::build::{
    self, Budget, CompileDb, CompileDbError, CompileFlags, Expanded, FileSource, FnAttributes,
    IncludeResolver, MacroTable, Scan, ScanLimits, SkipReason, scan::DirectiveIndex,
};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `path` made absolute (against the current directory) and lexically normalized: the key
/// files are known by in the build model.
pub fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        build::includes::normalize(path)
    } else {
        let cwd = std::env::current_dir().unwrap_or_default();
        build::includes::normalize(&cwd.join(path))
    }
}

/// The database as the build model's file reader: every read records a dependency.
pub struct DbSource<'a>(pub &'a dyn Db);

impl FileSource for DbSource<'_> {
    fn read(&self, path: &Path) -> Result<Arc<str>, SkipReason> {
        let f = self.0.file_at(&absolute(path))?;
        Ok(shared_text(self.0, f))
    }
    fn exists(&self, path: &Path) -> bool {
        self.0.file_at(&absolute(path)).is_ok()
    }
    fn directives(&self, path: &Path, text: &str) -> Arc<DirectiveIndex> {
        if let Ok(f) = self.0.file_at(&absolute(path)) {
            let own = f.text(self.0);
            let same = (own.len() == text.len() && std::ptr::eq(own.as_ptr(), text.as_ptr()))
                || std::ptr::eq(shared_text(self.0, f).as_ptr(), text.as_ptr());
            if same {
                return directive_index(self.0, f);
            }
        }
        Arc::new(DirectiveIndex::of(text))
    }
}

/// A file's directive lines and include guard, lexed once per revision of its text (every
/// translation unit that includes the file walks it).
#[salsa::tracked(returns(clone))]
pub fn directive_index(db: &dyn Db, file: SourceFile) -> Arc<DirectiveIndex> {
    Arc::new(DirectiveIndex::of(&shared_text(db, file)))
}

/// A file's text as a shared string: every translation unit that reads a header gets the same
/// allocation instead of a copy.
#[salsa::tracked(returns(clone))]
pub fn shared_text(db: &dyn Db, file: SourceFile) -> Arc<str> {
    Arc::from(file.text(db).as_str())
}

/// A compile database, parsed once per revision of its text.
#[salsa::tracked(returns(clone))]
pub fn compile_db(db: &dyn Db, file: SourceFile) -> Arc<Result<CompileDb, CompileDbError>> {
    let path = file.path(db);
    let text = file.text(db);
    Arc::new(if path.extension().is_some_and(|e| e == "json") {
        CompileDb::parse_json(path, text)
    } else {
        Ok(CompileDb::parse_flags_txt(path, text))
    })
}

/// The compile flags of `file`: from `--compile-commands`, else the database found as clangd
/// finds it (the file's directory and its parents, and their `build/`), with the config's
/// `include-dirs` and `defines` on top; and the database's error, if it could not be used.
#[salsa::tracked(returns(clone))]
pub fn file_flags(db: &dyn Db, file: SourceFile) -> Arc<(CompileFlags, Option<CompileDbError>)> {
    let cfg = db.settings().config(db);
    let path = absolute(file.path(db));
    let src = DbSource(db);
    let db_path = match &cfg.compile_commands {
        Some(p) => Some(absolute(p)),
        None => build::compile_db::discover(&path, &src).map(|(p, _)| p),
    };
    let loaded = db_path.map(|p| match db.file_at(&p) {
        Ok(f) => compile_db(db, f).as_ref().clone(),
        Err(reason) => Err(CompileDbError::Unreadable { path: p, reason }),
    });
    let (mut flags, err) = match loaded {
        Some(Ok(cdb)) => (cdb.flags_for(&path).unwrap_or_default(), None),
        Some(Err(e)) => (CompileFlags::default(), Some(e)),
        None => (CompileFlags::default(), None),
    };
    let root = cfg
        .build_root
        .clone()
        .unwrap_or_else(|| absolute(Path::new(".")));
    flags.merge_config(&cfg.include_dirs, &cfg.defines, &root);
    // The compiler's predefines, for the target the config names, else the compile command.
    let target = cfg.target.or(flags.target).unwrap_or_default();
    build::target::add_predefines(&mut flags, target);
    Arc::new((flags, err))
}

/// Where quoted includes are also searched: the configuration's directory and the deepest
/// directory holding every workspace file.
#[salsa::tracked(returns(clone))]
pub fn workspace_roots(db: &dyn Db, ws: Workspace) -> Arc<Vec<PathBuf>> {
    let mut common: Option<PathBuf> = None;
    for f in ws.files(db) {
        let p = absolute(f.path(db));
        let dir = p.parent().map(Path::to_path_buf).unwrap_or_default();
        common = Some(match common {
            None => dir,
            Some(c) => {
                let mut c = c;
                while !dir.starts_with(&c) && c.pop() {}
                c
            }
        });
    }
    let mut roots: Vec<PathBuf> = db
        .settings()
        .config(db)
        .build_root
        .iter()
        .cloned()
        .collect();
    roots.extend(common.filter(|c| c.parent().is_some()));
    roots.dedup();
    Arc::new(roots)
}

/// The workspace's headers by file name: where an include the search path misses most likely
/// points (`build::HeaderIndex`).
#[salsa::tracked(returns(clone))]
pub fn workspace_headers(db: &dyn Db, ws: Workspace) -> Arc<build::HeaderIndex> {
    Arc::new(build::HeaderIndex::new(
        ws.files(db)
            .iter()
            .map(|f| absolute(f.path(db)))
            .filter(|p| p.extension().is_some_and(|e| e == "h")),
    ))
}

/// The preprocessor walk of `file` as a translation unit: its macro table, its conditional
/// groups, the project headers it reaches and what could not be read. Only the most recent
/// scans are kept in memory (`lru`): the queries below keep what they need of it, and
/// backdate when a re-scan gives the same.
#[salsa::tracked(returns(clone), lru = 64)]
pub fn file_scan(db: &dyn Db, file: SourceFile) -> Arc<Scan> {
    db.record(format!("scan {}", file.path(db).display()));
    let ws = db.workspace();
    // A file created (or deleted) in the workspace may be a header a scan missed before.
    let _ = ws.files(db).len();
    let flags = file_flags(db, file);
    let roots = workspace_roots(db, ws);
    let resolver =
        IncludeResolver::new(&flags.0, &roots).with_workspace_headers(workspace_headers(db, ws));
    let path = absolute(file.path(db));
    Arc::new(build::scan(
        &path,
        file.text(db),
        &flags.0,
        &resolver,
        &DbSource(db),
        &ScanLimits::default(),
    ))
}

/// The macros in force for `file` that its text can reach (the table at the end of its
/// translation unit, restricted to the names the file uses and, transitively, their
/// bodies): equal after a header edit that changes no definition the file uses, so
/// expansions backdate; and small, though a translation unit may see thousands of macros.
#[salsa::tracked(returns(clone))]
pub fn macro_table(db: &dyn Db, file: SourceFile) -> Arc<MacroTable> {
    let text = file.text(db);
    let mut table = file_scan(db, file).table.reachable_from(text);
    // A header is compiled inside its includer: a name its own walk leaves unknown takes the
    // includer's definition (Vim's `globals.h` declares `EXTERN int really_exiting INIT(=
    // FALSE);` with `EXTERN` and `INIT` defined by `vim.h` around its `#include`).
    if let Some(includer) = first_includers(db, db.workspace()).get(&file) {
        table.fill_from(&scan_table(db, *includer).reachable_from(text));
    }
    // A definition seen only in an undecided arm that would rename a function the library
    // model knows (`#define strdup _strdup` under `#ifdef _MSC_VER`) is not applied: the call
    // keeps its modelled meaning, as without the build model.
    let lib = crate::ir::LibraryModel::standard();
    table.retain(|d| {
        !d.uncertain
            || !(crate::ir::library::known_function(&d.name).is_some()
                || crate::ir::library::is_noreturn(&d.name)
                || lib.allocators.contains_key(&d.name)
                || lib.deallocators.contains_key(&d.name))
    });
    Arc::new(table)
}

/// The macro table at the end of `file`'s translation unit: a projection of [`file_scan`]
/// that an edit defining no macro leaves equal, so the headers `file` first includes do not
/// rebuild their tables after each keystroke in it.
#[salsa::tracked(returns(clone))]
pub fn scan_table(db: &dyn Db, file: SourceFile) -> Arc<MacroTable> {
    Arc::new(file_scan(db, file).table.clone())
}

/// For each project header, the first workspace file (in the workspace's order) whose
/// translation unit reaches it, directly or through other headers.
#[salsa::tracked(returns(ref))]
pub fn first_includers(db: &dyn Db, ws: Workspace) -> FxHashMap<SourceFile, SourceFile> {
    let mut out = FxHashMap::default();
    for &f in ws.files(db) {
        for &h in file_headers(db, f) {
            out.entry(h).or_insert(f);
        }
    }
    out
}

/// The headers `file` reaches, as inputs (those that could be read).
#[salsa::tracked(returns(ref))]
pub fn file_headers(db: &dyn Db, file: SourceFile) -> Vec<SourceFile> {
    file_scan(db, file)
        .headers
        .iter()
        .filter_map(|h| db.file_at(&absolute(h)).ok())
        .filter(|h| *h != file)
        .collect()
}

/// The byte ranges of `file` in `#if` arms decided false (and the directives of decided
/// groups).
#[salsa::tracked(returns(clone))]
pub fn inactive_ranges(db: &dyn Db, file: SourceFile) -> Arc<Vec<std::ops::Range<usize>>> {
    Arc::new(build::inactive_ranges(&file_scan(db, file).groups))
}

/// `file`'s text with the arms of `#if` groups decided false blanked (same length and lines);
/// `None` when nothing is decided dead (then the text itself is parsed).
#[salsa::tracked(returns(clone))]
pub fn live_text(db: &dyn Db, file: SourceFile) -> Option<Arc<str>> {
    let ranges = inactive_ranges(db, file);
    if ranges.is_empty() {
        return None;
    }
    let text = file.text(db);
    let mut bytes = text.as_bytes().to_vec();
    for r in ranges.iter() {
        for b in &mut bytes[r.start.min(text.len())..r.end.min(text.len())] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    Some(Arc::from(
        String::from_utf8(bytes).unwrap_or_else(|_| text.clone()),
    ))
}

/// The text tree-sitter parses for `file`: its live text with each invocation of a decoration
/// macro (one that expands to nothing or only to attributes, `build::decorations`) blanked,
/// same length and lines; `None` when that is the file's own text. A function head decorated
/// by such macros (`ATTR_NONNULL⏎static inline bool String_startsWith(…)`) then parses as the
/// compiler sees it. The attributes themselves are read from [`expanded_declarations`], which
/// starts from the live text, not from this one.
#[salsa::tracked(returns(clone))]
pub fn parse_text(db: &dyn Db, file: SourceFile) -> Option<Arc<str>> {
    let live = live_text(db, file);
    let table = macro_table(db, file);
    let base: &str = match &live {
        Some(t) => t,
        None => file.text(db).as_str(),
    };
    let ranges = build::decoration_ranges(base, &table);
    if ranges.is_empty() {
        return live;
    }
    let mut bytes = base.as_bytes().to_vec();
    for r in ranges {
        for b in &mut bytes[r.start.min(base.len())..r.end.min(base.len())] {
            if *b != b'\n' && *b != b'\r' {
                *b = b' ';
            }
        }
    }
    Some(match String::from_utf8(bytes) {
        Ok(s) => Arc::from(s),
        Err(_) => return live,
    })
}

/// The function's text with the macros of its translation unit expanded, and the map back to
/// what the user wrote; `None` when no macro is used in it.
#[salsa::tracked(returns(clone))]
pub fn expanded_function<'db>(db: &'db dyn Db, f: Function<'db>) -> Option<Arc<Expanded>> {
    let table = macro_table(db, f.file(db));
    if table.is_empty() {
        return None;
    }
    let text = &f.source(db).text;
    let e = build::expand(text, 0..text.len(), &table, &Budget::default());
    (e.expansions > 0).then(|| Arc::new(e))
}

/// `file`'s declarations as the compiler sees them: function bodies blanked (declarations
/// live outside them, and expanding bodies would cost as much as lowering them), then the
/// macros of its translation unit expanded. `None` when no macro is used (or the expansion
/// ran out of budget: then the text as written is all there is).
#[salsa::tracked(returns(clone))]
pub fn expanded_declarations(db: &dyn Db, file: SourceFile) -> Option<Arc<str>> {
    let table = macro_table(db, file);
    if table.is_empty() {
        return None;
    }
    let text = blanked_bodies(db, file);
    let e = build::expand(&text, 0..text.len(), &table, &Budget::default());
    (e.expansions > 0 && !e.truncated).then(|| Arc::from(e.text))
}

/// The live text of `file` with what is between each function body's braces blanked.
fn blanked_bodies(db: &dyn Db, file: SourceFile) -> String {
    let live = match live_text(db, file) {
        Some(t) => t,
        None => shared_text(db, file),
    };
    let tree = super::front_end::parsed(db, file);
    let mut bytes = live.as_bytes().to_vec();
    blank_bodies_in(tree.0.root_node(), &mut bytes, 0);
    String::from_utf8(bytes).unwrap_or_else(|_| live.to_string())
}

/// Blanks what is between the braces of each function body among `node`'s children, and in
/// the `#if` groups and `extern "C" { … }` blocks among them (a header's functions often sit
/// in one), and of a block standing alone at file scope (a body the grammar lost its head
/// of, beside an `#ifdef`-split signature): nothing in them declares anything at file scope.
fn blank_bodies_in(node: tree_sitter::Node, bytes: &mut [u8], depth: usize) {
    let blank = |body: tree_sitter::Node, bytes: &mut [u8]| {
        // Keep the braces (the scanner skips `{…}`), blank what is between.
        let (s, e) = (body.start_byte() + 1, body.end_byte().saturating_sub(1));
        for b in bytes.get_mut(s..e.max(s)).unwrap_or_default() {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    let mut c = node.walk();
    for item in node.children(&mut c) {
        match item.kind() {
            "function_definition" => {
                if let Some(body) = item.child_by_field_name("body") {
                    blank(body, bytes);
                }
            }
            "compound_statement" => blank(item, bytes),
            "preproc_if"
            | "preproc_ifdef"
            | "preproc_else"
            | "preproc_elif"
            | "preproc_elifdef"
            | "linkage_specification"
            | "declaration_list"
                if depth < 256 =>
            {
                blank_bodies_in(item, bytes, depth + 1);
            }
            _ => {}
        }
    }
}

/// Attributes declared in `file` (read after expanding its macros: `NORETURN void die(…);`).
#[salsa::tracked(returns(clone))]
pub fn file_attributes(db: &dyn Db, file: SourceFile) -> Arc<BTreeMap<String, FnAttributes>> {
    match expanded_declarations(db, file) {
        Some(text) => Arc::new(build::function_attributes(&text)),
        None => Arc::new(build::function_attributes(&blanked_bodies(db, file))),
    }
}

/// The files whose functions and declarations the program is made of: the workspace's, then
/// the project headers they reach (each once).
#[salsa::tracked(returns(ref))]
pub fn program_files(db: &dyn Db, ws: Workspace) -> Vec<SourceFile> {
    let mut out: Vec<SourceFile> = ws.files(db).clone();
    let mut seen: rustc_hash::FxHashSet<SourceFile> = out.iter().copied().collect();
    for f in ws.files(db) {
        for h in file_headers(db, *f) {
            if seen.insert(*h) {
                out.push(*h);
            }
        }
    }
    out
}

/// A function's declared attributes and the file that declares them (the first to).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declared {
    pub attributes: FnAttributes,
    pub file: SourceFile,
}

/// Attributes declared anywhere in the program's files, merged by function name.
#[salsa::tracked(returns(clone))]
pub fn declared_attributes(db: &dyn Db, ws: Workspace) -> Arc<BTreeMap<String, Declared>> {
    let mut out: BTreeMap<String, Declared> = BTreeMap::new();
    for f in program_files(db, ws) {
        for (name, a) in file_attributes(db, *f).iter() {
            let e = out.entry(name.clone()).or_insert_with(|| Declared {
                attributes: FnAttributes::default(),
                file: *f,
            });
            let m = &mut e.attributes;
            m.noreturn |= a.noreturn;
            m.malloc |= a.malloc;
            for d in &a.deallocators {
                if !m.deallocators.contains(d) {
                    m.deallocators.push(d.clone());
                }
            }
            m.returns_nonnull |= a.returns_nonnull;
            if m.nonnull.is_none() {
                m.nonnull = a.nonnull.clone();
            }
        }
    }
    Arc::new(out)
}

/// A problem the build model met, for the CLI's stderr and the editor's warnings: never a
/// reason to stop analysing.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct BuildMessage {
    /// The file whose build it concerns.
    pub file: PathBuf,
    pub message: String,
    /// About one include not followed (the others concern the whole file: an unusable
    /// compile database, limits reached).
    pub include: bool,
}

/// What went wrong building `file`: an unusable compile database, includes that could not be
/// read, limits reached.
#[salsa::tracked(returns(clone))]
pub fn build_messages(db: &dyn Db, file: SourceFile) -> Arc<Vec<BuildMessage>> {
    let flags = file_flags(db, file);
    let scan = file_scan(db, file);
    let path = file.path(db).clone();
    let mut out = Vec::new();
    if let Some(e) = &flags.1 {
        out.push(BuildMessage {
            file: path.clone(),
            message: format!("{e} (going on without it)"),
            include: false,
        });
    }
    for s in &scan.skipped {
        let what = match (&s.path, &s.spec) {
            (Some(p), _) => p.display().to_string(),
            (None, Some(spec)) => spec.name.clone(),
            (None, None) => "a forced include".into(),
        };
        out.push(BuildMessage {
            file: s.from.clone(),
            message: format!("include of {what} not followed: {}", s.reason),
            include: true,
        });
    }
    if scan.truncated {
        out.push(BuildMessage {
            file: path.clone(),
            message: "preprocessor limits reached; the rest of its includes were not read".into(),
            include: false,
        });
    }
    for f in super::front_end::file_functions(db, file) {
        if expanded_function(db, *f).is_some_and(|e| e.truncated) {
            out.push(BuildMessage {
                file: path.clone(),
                message: format!(
                    "macro expansion limit reached in `{}`; the rest is analysed unexpanded",
                    f.name(db)
                ),
                include: false,
            });
        }
    }
    Arc::new(out)
}

//! The salsa database: inputs (source files, the workspace's file set, configuration) and the
//! tracked queries that tie the layers together.
//!
//! Query graph (each arrow is a read):
//!
//! ```text
//! SourceFile.text ─► parsed ─► file_syntax_items ─┬─► file_functions ─► Function{source,start}
//!                                                  └─► file_decls ─► type_env (all files)
//! Function.source + type_env + library_model ─► lowered
//! ```
//!
//! `file_syntax_items` and `file_functions` re-run on every edit of their file (they are cheap:
//! one walk over the top level). `Function` is a tracked struct identified by (file, name); its
//! `source` field holds the function's own text, so an edit to one function changes only that
//! function's `source`, and only its `lowered` re-runs. `file_decls` and `type_env` are `Eq`:
//! an edit inside a body leaves them equal and salsa backdates them.

use crate::config::Config;
use crate::ir::{
    self, Callee, ExprKind, FileItems, FunctionIr, FunctionSource, LibraryModel, LowerContext,
    NodeId, StmtKind, Symbol, TypeEnv,
};
use crate::probe::{self, EngineConfig, FuncId, ProbeKind, ProbeSite, Unproved, Verdict};
use crate::regions::{self, CalleeKind, ModSet, TypeClasses};
use crate::syntax::{LineCol, LineIndex, SyntaxTree, TextRange};
use rustc_hash::{FxHashMap, FxHashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// One C source or header file.
#[salsa::input(debug)]
pub struct SourceFile {
    #[returns(ref)]
    pub path: PathBuf,
    #[returns(ref)]
    pub text: String,
    /// A tree kept up to date incrementally by the editor layer, if any. When absent the file
    /// is parsed from scratch.
    #[returns(clone)]
    pub tree: Option<SyntaxTree>,
}

/// The set of files analysed together: functions are resolved by name across them.
#[salsa::input(debug)]
pub struct Workspace {
    #[returns(ref)]
    pub files: Vec<SourceFile>,
}

#[salsa::input(debug)]
pub struct Settings {
    #[returns(ref)]
    pub config: Config,
}

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

#[salsa::db]
pub trait Db: salsa::Database {
    fn workspace(&self) -> Workspace;
    fn settings(&self) -> Settings;
    /// Record that a query body ran (tests use this to prove what re-executes).
    fn record(&self, event: String);
}

#[salsa::db]
#[derive(Clone)]
pub struct Database {
    storage: salsa::Storage<Self>,
    /// Always `Some` after `Database::new`: inputs can only be created with a database.
    workspace: Option<Workspace>,
    settings: Option<Settings>,
    log: Arc<Mutex<Option<Vec<String>>>>,
}

#[salsa::db]
impl salsa::Database for Database {}

#[salsa::db]
impl Db for Database {
    fn workspace(&self) -> Workspace {
        self.workspace.expect("Database::new sets the workspace")
    }
    fn settings(&self) -> Settings {
        self.settings.expect("Database::new sets the settings")
    }
    fn record(&self, event: String) {
        if let Ok(mut log) = self.log.lock()
            && let Some(log) = log.as_mut()
        {
            log.push(event);
        }
    }
}

impl Default for Database {
    fn default() -> Self {
        Self::new(Config::default())
    }
}

impl Database {
    pub fn new(config: Config) -> Self {
        let mut db = Database {
            storage: salsa::Storage::default(),
            workspace: None,
            settings: None,
            log: Arc::new(Mutex::new(None)),
        };
        db.workspace = Some(Workspace::new(&db, vec![]));
        db.settings = Some(Settings::new(&db, config));
        db
    }

    /// Add a file to the workspace (or replace the text of a file with the same path).
    pub fn add_file(&mut self, path: PathBuf, text: String) -> SourceFile {
        use salsa::Setter;
        let ws = self.workspace();
        let files = ws.files(self).clone();
        if let Some(&f) = files.iter().find(|f| *f.path(self) == path) {
            f.set_text(self).to(text);
            f.set_tree(self).to(None);
            return f;
        }
        let f = SourceFile::new(self, path, text, None);
        let mut files = files;
        files.push(f);
        ws.set_files(self).to(files);
        f
    }

    pub fn set_config(&mut self, config: Config) {
        use salsa::Setter;
        let settings = self.settings();
        if *settings.config(self) != config {
            settings.set_config(self).to(config);
        }
    }

    /// Start recording query executions (see [`Db::record`]).
    pub fn enable_log(&self) {
        if let Ok(mut l) = self.log.lock() {
            *l = Some(vec![]);
        }
    }

    pub fn take_log(&self) -> Vec<String> {
        self.log
            .lock()
            .ok()
            .and_then(|mut l| l.as_mut().map(std::mem::take))
            .unwrap_or_default()
    }
}

// ---- queries -----------------------------------------------------------------------------

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
    Arc::new(LibraryModel::with_user(&c.allocators, &c.deallocators))
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

#[salsa::tracked(returns(clone))]
pub fn line_index(db: &dyn Db, file: SourceFile) -> Arc<LineIndex> {
    Arc::new(LineIndex::new(file.text(db)))
}

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
    for file in ws.files(db) {
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

/// Find a function by name: a function of `from` first (`static` or not), then the first
/// non-static one of another file.
pub fn resolve_function<'db>(
    db: &'db dyn Db,
    from: SourceFile,
    name: &str,
) -> Option<Function<'db>> {
    let names = function_names(db, db.workspace());
    if let Some(f) = names.in_file.get(&from).and_then(|m| m.get(name)) {
        return Some(*f);
    }
    names
        .exported
        .get(name)?
        .iter()
        .find(|f| f.file(db) != from)
        .copied()
}

/// Where a function starts in its file (0-based line, byte column). Every function's anchor
/// is recomputed when its file changes, but it stays equal unless lines were added or removed
/// above the function, so what is placed with it (the findings) backdates.
#[salsa::tracked]
pub fn function_anchor<'db>(db: &'db dyn Db, f: Function<'db>) -> LineCol {
    line_index(db, f.file(db)).line_col(f.start(db))
}

/// The line starts of a function's own text.
#[salsa::tracked(returns(clone))]
pub fn function_lines<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<LineIndex> {
    Arc::new(LineIndex::new(&f.source(db).text))
}

/// 0-based line and byte column in the file of `offset`, relative to a function's start.
fn place(db: &dyn Db, f: Function<'_>, offset: u32) -> LineCol {
    let anchor = function_anchor(db, f);
    let rel = function_lines(db, f).line_col(offset);
    LineCol {
        line: anchor.line + rel.line,
        col: if rel.line == 0 {
            anchor.col + rel.col
        } else {
            rel.col
        },
    }
}

/// 1-based `line:column` of a range relative to a function's start.
pub fn location(db: &dyn Db, f: Function<'_>, r: TextRange) -> (u32, u32) {
    let lc = place(db, f, r.start);
    (lc.line + 1, lc.col + 1)
}

// ---- the analysis ------------------------------------------------------------------------

/// Every function of the workspace, in file order. A function's index here is its
/// [`probe::FuncId`].
#[salsa::tracked(returns(ref))]
pub fn all_functions(db: &dyn Db, ws: Workspace) -> Vec<Function<'_>> {
    let mut out = Vec::new();
    for f in ws.files(db) {
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
    let classify = |name: &str| match resolve_function(db, file, name) {
        Some(_) => CalleeKind::Body,
        None => match ir::library::known_function(name) {
            Some(k) => CalleeKind::Library(k.writes_first_argument),
            None if ir::library::is_noreturn(name) => CalleeKind::Library(false),
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

/// The probes of one function as the engine sees them: computed on the body without source
/// ranges, so that a layout edit leaves them equal.
#[salsa::tracked(returns(clone))]
pub fn engine_probes<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<Vec<ProbeSite>> {
    let env = type_env(db, db.workspace());
    let file = f.file(db);
    let has_body = |name: &str| resolve_function(db, file, name).is_some();
    let params = db.settings().config(db).probe_parameters;
    Arc::new(probe::probe_sites(&body(db, f), &env, &has_body, params))
}

/// The probes of one function, with their source ranges: [`engine_probes`], each given the
/// range of its node (a probe reports the statement it sits on).
#[salsa::tracked(returns(clone))]
pub fn function_probes<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<Vec<ProbeSite>> {
    let ir = lowered(db, f);
    Arc::new(
        engine_probes(db, f)
            .iter()
            .map(|s| ProbeSite {
                range: ir.node(s.node).stmt.range,
                ..s.clone()
            })
            .collect(),
    )
}

/// The engine's view of the program, reading everything through queries.
struct DbProgram<'db> {
    db: &'db dyn Db,
    funcs: &'db [Function<'db>],
    env: Arc<TypeEnv>,
    classes: Arc<TypeClasses>,
}

impl<'db> DbProgram<'db> {
    fn new(db: &'db dyn Db) -> Self {
        let ws = db.workspace();
        DbProgram {
            db,
            funcs: all_functions(db, ws),
            env: type_env(db, ws),
            classes: type_classes(db, ws),
        }
    }
    fn index_of(&self, f: Function<'db>) -> Option<u32> {
        function_ids(self.db, self.db.workspace()).get(&f).copied()
    }
}

/// Where the temporaries of a function die (a liveness pass, shared by all probes).
#[salsa::tracked(returns(clone))]
pub fn temp_deaths<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<probe::TempDeaths> {
    Arc::new(probe::sites::temp_deaths(&body(db, f)))
}

/// Writes into blocks only one local can reach (a forward pass, shared by all probes).
#[salsa::tracked(returns(clone))]
pub fn fresh_writes<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<probe::FreshWrites> {
    Arc::new(probe::sites::fresh_writes(&body(db, f)))
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
        let g = call_graph(self.db, self.db.workspace());
        g.taken_by_arity.get(&arity).cloned().unwrap_or_default()
    }
    fn env(&self) -> &TypeEnv {
        &self.env
    }
    fn classes(&self) -> &TypeClasses {
        &self.classes
    }
    fn mod_set(&self, f: FuncId) -> Arc<ModSet> {
        let t = mod_table(self.db, self.db.workspace());
        t.get(f as usize).cloned().unwrap_or_else(|| {
            Arc::new(ModSet {
                all: true,
                ..Default::default()
            })
        })
    }
    fn checkpoint(&self) {
        self.db.unwind_if_revision_cancelled();
    }
}

/// A location in a file, 1-based, as the JSON output writes it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceLoc {
    pub file: PathBuf,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub function: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Step {
    pub loc: SourceLoc,
    pub note: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VerdictKind {
    Proved,
    Leak,
    Unproved,
}

impl VerdictKind {
    pub fn as_str(self) -> &'static str {
        match self {
            VerdictKind::Proved => "proved",
            VerdictKind::Leak => "leak",
            VerdictKind::Unproved => "unproved",
        }
    }
}

/// One probe's verdict, ready for every output format.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Finding {
    pub loc: SourceLoc,
    pub verdict: VerdictKind,
    pub probe: ProbeKind,
    pub variable: String,
    pub message: String,
    /// `input-dependent`, `budget`, `unsupported` (unproved only).
    pub reason: Option<String>,
    pub allocation: Vec<SourceLoc>,
    /// For a leak, the path from the allocation; for a proof, where it was refuted.
    pub trace: Vec<Step>,
    pub transfers: u32,
}

/// The verdict of probe `index` of function `f`, placed in its file: the engine result of
/// [`probe_outcome`] with line and column numbers. When an edit only moves the function, this
/// cheap placement runs again, not the probe.
#[salsa::tracked(returns(clone))]
pub fn probe_verdict<'db>(db: &'db dyn Db, f: Function<'db>, index: u32) -> Arc<Finding> {
    let probes = function_probes(db, f);
    let Some(site) = probes.get(index as usize) else {
        return Arc::new(internal_finding(db, f, "probe index out of range"));
    };
    match probe_outcome(db, f, index).as_ref() {
        Ok(result) => {
            let program = DbProgram::new(db);
            Arc::new(make_finding(db, &program, f, site, result.clone()))
        }
        Err(ProbeFailure::Missing(why)) => Arc::new(internal_finding(db, f, why)),
        Err(ProbeFailure::Panic(msg)) => Arc::new(Finding {
            reason: Some("internal-error".into()),
            message: format!("unproved (internal error: {msg})"),
            ..internal_finding(db, f, "")
        }),
    }
}

/// Why a probe has no engine result.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ProbeFailure {
    /// The probe or its function does not exist (a stale index).
    Missing(&'static str),
    /// The engine panicked: one verdict is lost, not the session.
    Panic(String),
}

fn internal_finding(db: &dyn Db, f: Function<'_>, why: &str) -> Finding {
    Finding {
        loc: function_loc(db, f, TextRange::new(0, 0)),
        verdict: VerdictKind::Unproved,
        probe: ProbeKind::Assignment,
        variable: String::new(),
        message: format!("unproved (internal error: {why})"),
        reason: Some("internal-error".into()),
        allocation: vec![],
        trace: vec![],
        transfers: 0,
    }
}

fn function_loc(db: &dyn Db, f: Function<'_>, r: TextRange) -> SourceLoc {
    let start = place(db, f, r.start);
    let end = place(db, f, r.end);
    SourceLoc {
        file: f.file(db).path(db).clone(),
        line: start.line + 1,
        column: start.col + 1,
        end_line: end.line + 1,
        end_column: end.col + 1,
        function: f.name(db).clone(),
    }
}

fn make_finding(
    db: &dyn Db,
    program: &DbProgram<'_>,
    f: Function<'_>,
    site: &ProbeSite,
    result: probe::ProbeResult,
) -> Finding {
    let loc = function_loc(db, f, site.range);
    // The engine ran on bodies without ranges: its locations are found again by node.
    let to_loc = |l: &probe::Loc| {
        let g = program.funcs[l.func as usize];
        let range = lowered(db, g)
            .nodes
            .get(l.node.0 as usize)
            .map_or(TextRange::new(0, 0), |n| n.stmt.range);
        function_loc(db, g, range)
    };
    let var = &site.variable;
    let (verdict, message, reason, allocation, trace) = match &result.verdict {
        Verdict::Proved { refuted_at } => {
            let steps: Vec<Step> = refuted_at
                .iter()
                .map(|s| Step {
                    loc: to_loc(&s.loc),
                    note: s.note.clone(),
                })
                .collect();
            let msg = match steps.first() {
                Some(s) => format!(
                    "proved leak-free: assuming `{var}` held the last reference, line {} {}",
                    s.loc.line, s.note
                ),
                None => format!(
                    "proved leak-free: `{var}` cannot hold the last reference to a heap block here"
                ),
            };
            (VerdictKind::Proved, msg, None, vec![], steps)
        }
        Verdict::Leak { allocation, trace } => {
            let alloc: Vec<SourceLoc> = allocation.iter().map(to_loc).collect();
            let at = alloc
                .last()
                .map(|a| format!("{}:{}", a.file.display(), a.line))
                .unwrap_or_default();
            let steps = trace
                .iter()
                .map(|s| Step {
                    loc: to_loc(&s.loc),
                    note: s.note.clone(),
                })
                .collect();
            (
                VerdictKind::Leak,
                format!("memory allocated at {at} leaks: the last reference `{var}` is lost here"),
                None,
                alloc,
                steps,
            )
        }
        Verdict::Unproved(u) => {
            let msg = match u {
                Unproved::InputDependent {
                    function,
                    condition,
                } => format!(
                    "unproved: depends on the callers of `{}` — {condition}",
                    program.funcs[*function as usize].name(db)
                ),
                Unproved::Budget { what } => format!("unproved: probe abandoned ({what})"),
                Unproved::Unsupported { what, .. } | Unproved::Imprecise { what, .. } => {
                    format!("unproved: {what}")
                }
            };
            let steps = match u {
                Unproved::Unsupported { at: Some(l), what }
                | Unproved::Imprecise { at: Some(l), what } => vec![Step {
                    loc: to_loc(l),
                    note: what.clone(),
                }],
                _ => vec![],
            };
            (
                VerdictKind::Unproved,
                msg,
                Some(u.reason_code().to_string()),
                vec![],
                steps,
            )
        }
    };
    Finding {
        loc,
        verdict,
        probe: site.kind,
        variable: site.variable.clone(),
        message,
        reason,
        allocation,
        trace,
        transfers: result.transfers,
    }
}

/// Every verdict of a file, in source order.
#[salsa::tracked(returns(clone))]
pub fn file_findings(db: &dyn Db, file: SourceFile) -> Arc<Vec<Arc<Finding>>> {
    let mut out = Vec::new();
    for f in file_functions(db, file) {
        let n = function_probes(db, *f).len();
        for i in 0..n {
            out.push(probe_verdict(db, *f, i as u32));
        }
    }
    Arc::new(out)
}

// ---- for the language server -----------------------------------------------------------

impl Database {
    /// Like [`Database::new`], but the log (see [`Database::enable_log`]) also records every
    /// salsa query execution as `execute <query>(<key>)`. The language-server tests count the
    /// `probe_verdict` executions an edit causes with it.
    pub fn with_execution_log(config: Config) -> Self {
        Self::with_execution_hook(config, |_| {})
    }

    /// [`Database::with_execution_log`], and `hook` sees each entry before the query runs
    /// (tests inject faults with it: a hook that panics makes that query panic).
    pub fn with_execution_hook(
        config: Config,
        hook: impl Fn(&str) + Send + Sync + 'static,
    ) -> Self {
        let log: Arc<Mutex<Option<Vec<String>>>> = Arc::new(Mutex::new(None));
        let sink = log.clone();
        let storage = salsa::Storage::new(Some(Box::new(move |event: salsa::Event| {
            if let salsa::EventKind::WillExecute { database_key } = event.kind {
                let entry = format!("execute {database_key:?}");
                if let Ok(mut log) = sink.lock()
                    && let Some(log) = log.as_mut()
                {
                    log.push(entry.clone());
                }
                hook(&entry);
            }
        })));
        let mut db = Database {
            storage,
            workspace: None,
            settings: None,
            log,
        };
        db.workspace = Some(Workspace::new(&db, vec![]));
        db.settings = Some(Settings::new(&db, config));
        db
    }

    /// Take a file out of the workspace (deleted on disk, or closed in the editor and not part
    /// of any workspace folder). Returns whether it was there.
    pub fn remove_file(&mut self, path: &std::path::Path) -> bool {
        use salsa::Setter;
        let ws = self.workspace();
        let files = ws.files(self).clone();
        let kept: Vec<SourceFile> = files
            .iter()
            .copied()
            .filter(|f| f.path(self).as_path() != path)
            .collect();
        if kept.len() == files.len() {
            return false;
        }
        ws.set_files(self).to(kept);
        true
    }
}

/// The engine's result for probe `index` of `f`, before it is placed in the file. It reads
/// no line index and no function start, so an edit elsewhere in the file (which moves this
/// function, or changes the file's line starts) does not re-run the probe; only edits to what
/// its exploration read do.
#[salsa::tracked(returns(clone))]
pub fn probe_outcome<'db>(
    db: &'db dyn Db,
    f: Function<'db>,
    index: u32,
) -> Arc<Result<probe::ProbeResult, ProbeFailure>> {
    let probes = engine_probes(db, f);
    let Some(site) = probes.get(index as usize) else {
        return Arc::new(Err(ProbeFailure::Missing("probe index out of range")));
    };
    let program = DbProgram::new(db);
    let Some(func) = program.index_of(f) else {
        return Arc::new(Err(ProbeFailure::Missing("function not in the workspace")));
    };
    let c = db.settings().config(db);
    let cfg = EngineConfig {
        max_transfers: c.budget.transfers,
        max_regions: c.budget.regions,
        unknown_calls_escape: c.unknown_calls_escape,
        lifo: c.worklist_lifo,
    };
    // A bug in the engine must cost one verdict, not the session.
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        probe::run_probe(&program, func, site, cfg)
    }));
    Arc::new(match run {
        Ok(r) => Ok(r),
        Err(payload) => {
            if payload.is::<salsa::Cancelled>() {
                std::panic::resume_unwind(payload);
            }
            Err(ProbeFailure::Panic(
                payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "panic".into()),
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use salsa::Setter;

    const THREE: &str = "int a(int x) { return x + 1; }\n\
                         int b(int x) {\n  int y = x * 2;\n  return y;\n}\n\
                         int c(int x) { return b(x) - a(x); }\n";

    fn lower_all(db: &Database, file: SourceFile) -> Vec<Arc<FunctionIr>> {
        file_functions(db, file)
            .iter()
            .map(|f| lowered(db, *f))
            .collect()
    }

    #[test]
    fn editing_one_body_relowers_only_that_function() {
        let mut db = Database::default();
        db.enable_log();
        let file = db.add_file("t.c".into(), THREE.into());
        lower_all(&db, file);
        let first = db.take_log();
        assert!(first.contains(&"lower a".to_string()));
        assert!(first.contains(&"lower b".to_string()));
        assert!(first.contains(&"lower c".to_string()));

        // Change b's body: only b is lowered again.
        let edited = THREE.replace("x * 2", "x * 3 + 1");
        file.set_text(&mut db).to(edited);
        lower_all(&db, file);
        let log = db.take_log();
        let lowers: Vec<_> = log.iter().filter(|e| e.starts_with("lower")).collect();
        assert_eq!(lowers, ["lower b"], "{log:?}");

        // Insert lines above everything: positions shift, nothing is re-lowered.
        let shifted = format!("/* header */\n\n{}", THREE.replace("x * 2", "x * 3 + 1"));
        file.set_text(&mut db).to(shifted);
        lower_all(&db, file);
        let log = db.take_log();
        assert!(
            log.iter().all(|e| !e.starts_with("lower")),
            "moving functions re-lowered: {log:?}"
        );

        // No edit: nothing runs at all.
        lower_all(&db, file);
        assert!(db.take_log().is_empty());
    }

    /// Probes run again only when what their exploration read changes in meaning: an edit
    /// that only moves text inside a function (spaces, a comment, a line break) re-places
    /// its verdicts and re-runs no probe; a change of meaning re-runs them.
    #[test]
    fn a_layout_edit_inside_a_function_reruns_no_probe() {
        const SRC: &str = "#include <stdlib.h>\n\
                           struct n { struct n *next; };\n\
                           struct n *mk(void) {\n  struct n *p = malloc(sizeof *p);\n  return p;\n}\n\
                           void use(void) {\n  struct n *q = mk();\n  q = 0;\n}\n";
        let mut db = Database::with_execution_log(Config::default());
        let file = db.add_file("t.c".into(), SRC.into());
        let before = file_findings(&db, file);
        assert!(
            before.iter().any(|f| f.verdict == VerdictKind::Leak),
            "{before:?}"
        );
        db.enable_log();
        db.take_log();
        let count = |log: &[String], q: &str| {
            log.iter()
                .filter(|e| e.starts_with(&format!("execute {q}(")))
                .count()
        };

        // Spaces and a line break inside `mk`: the leak in `use` moves one line down.
        let moved = SRC.replace("return p;", "return   p ;\n  /* done */");
        file.set_text(&mut db).to(moved);
        let after = file_findings(&db, file);
        let log = db.take_log();
        assert_eq!(count(&log, "probe_outcome"), 0, "{log:?}");
        assert!(count(&log, "probe_verdict") > 0, "{log:?}");
        let leak = |v: &[Arc<Finding>]| {
            v.iter()
                .find(|f| f.verdict == VerdictKind::Leak)
                .map(|f| (f.loc.line, f.loc.column))
        };
        let (line, col) = leak(&before).unwrap();
        assert_eq!(leak(&after), Some((line + 1, col)));

        // A change of meaning in `mk` re-runs the probes that explored it.
        file.set_text(&mut db)
            .to(SRC.replace("return p;", "free(p);\n  return 0;"));
        let fixed = file_findings(&db, file);
        let log = db.take_log();
        assert!(count(&log, "probe_outcome") > 0, "{log:?}");
        assert!(
            fixed.iter().all(|f| f.verdict != VerdictKind::Leak),
            "{fixed:?}"
        );
    }

    /// A block stays fresh until its pointer (or an address inside it) is copied anywhere:
    /// writes into it before that are fresh writes, writes after are not.
    #[test]
    fn fresh_writes_stop_at_the_first_copy() {
        const SRC: &str = "#include <stdlib.h>\n\
                           struct n { struct n *next; struct n *prev; int k; };\n\
                           void push(struct n **headp, int k) {\n\
                             struct n *n = malloc(sizeof *n);\n\
                             if (n == NULL) return;\n\
                             n->k = k;\n\
                             n->next = *headp;\n\
                             *headp = n;\n\
                             n->prev = 0;\n\
                           }\n\
                           void keep(struct n *n) ;\n\
                           void other(void) {\n\
                             struct n *m = malloc(sizeof *m);\n\
                             if (!m) return;\n\
                             struct n **f = &m->next;\n\
                             m->prev = 0;\n\
                             m = malloc(sizeof *m);\n\
                             if (!m) return;\n\
                             m->prev = 0;\n\
                             keep(m);\n\
                             m->next = 0;\n\
                             *f = 0;\n\
                           }\n";
        let mut db = Database::default();
        let file = db.add_file("t.c".into(), SRC.into());
        let irs = lower_all(&db, file);
        let fresh: Vec<Vec<String>> = irs
            .iter()
            .map(|ir| {
                let fw = crate::probe::sites::fresh_writes(ir);
                let mut v: Vec<String> = fw
                    .keys()
                    .map(|n| {
                        crate::ir::display_stmt(ir, &ir.node(*n).stmt.kind, crate::ir::Notation::C)
                    })
                    .collect();
                v.sort();
                v
            })
            .collect();
        // push: the writes before `*headp = n` only.
        assert_eq!(fresh[0], ["n->k = k", "n->next = *headp"], "{fresh:?}");
        // other: `&m->next` escapes the first block; the second is fresh until `keep(m)`.
        assert_eq!(fresh[1], ["m->prev = 0"], "{fresh:?}");
    }

    #[test]
    fn declarations_from_other_files_are_visible() {
        let mut db = Database::default();
        db.add_file(
            "list.h".into(),
            "typedef struct node { struct node *next; int v; } Node;\nNode *node_new(int v);\n"
                .into(),
        );
        let main = db.add_file(
            "main.c".into(),
            "void f(void) { Node *n = node_new(1); n->next = 0; }\n".into(),
        );
        let ir = &lower_all(&db, main)[0];
        let text = ir.to_string();
        assert!(text.contains("n: struct node*"), "{text}");
        assert!(text.contains("n->next = 0"), "{text}");
    }

    #[test]
    fn changing_a_struct_in_a_header_relowers_its_users() {
        let mut db = Database::default();
        db.enable_log();
        let h = db.add_file("s.h".into(), "struct s { int *p; };\n".into());
        let c = db.add_file(
            "s.c".into(),
            "void f(struct s *x) { x->p = 0; }\nint g(int y) { return y; }\n".into(),
        );
        lower_all(&db, c);
        db.take_log();
        h.set_text(&mut db)
            .to("struct s { int *p; int *q; };\n".into());
        lower_all(&db, c);
        let log = db.take_log();
        assert!(log.contains(&"lower f".to_string()), "{log:?}");
    }

    #[test]
    fn static_functions_resolve_per_file() {
        let mut db = Database::default();
        let a = db.add_file("a.c".into(), "static int h(void) { return 1; }\n".into());
        let b = db.add_file(
            "b.c".into(),
            "int h(void) { return 2; }\nint u(void) { return h(); }\n".into(),
        );
        let from_a = resolve_function(&db, a, "h").unwrap();
        let from_b = resolve_function(&db, b, "h").unwrap();
        assert_eq!(from_a.file(&db), a);
        assert_eq!(from_b.file(&db), b);
        // From a third file, only the non-static `h` is visible.
        let c = db.add_file("c.c".into(), "int z(void) { return 0; }\n".into());
        assert_eq!(resolve_function(&db, c, "h").unwrap().file(&db), b);
    }
}

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
use crate::ir::{self, FileItems, FunctionIr, FunctionSource, LibraryModel, LowerContext, TypeEnv};
use crate::syntax::{LineIndex, SyntaxTree, TextRange};
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

/// Find a function by name: a `static` function in `from` first, then any non-static one.
pub fn resolve_function<'db>(
    db: &'db dyn Db,
    from: SourceFile,
    name: &str,
) -> Option<Function<'db>> {
    if let Some(f) = file_functions(db, from).iter().find(|f| f.name(db) == name) {
        return Some(*f);
    }
    for file in db.workspace().files(db) {
        if *file == from {
            continue;
        }
        if let Some(f) = file_functions(db, *file)
            .iter()
            .find(|f| f.name(db) == name && !f.source(db).is_static)
        {
            return Some(*f);
        }
    }
    None
}

/// 1-based `line:column` of a range relative to a function's start.
pub fn location(db: &dyn Db, f: Function<'_>, r: TextRange) -> (u32, u32) {
    let idx = line_index(db, f.file(db));
    let lc = idx.line_col(f.start(db) + r.start);
    (lc.line + 1, lc.col + 1)
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

//! The database: the [`Db`] trait every query takes, and [`Database`], its one implementation
//! (salsa storage, the handles of the two singleton inputs, and the execution log tests read).

use super::inputs::{Settings, SourceFile, Workspace};
use crate::build::{FileSource, FsSource, SkipReason};
use crate::config::Config;
use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Every file the database has read, by absolute normalized path: workspace files and the
/// headers and compile databases the build model reached (or why one could not be read).
pub(super) type FileMap = Arc<Mutex<FxHashMap<PathBuf, Result<SourceFile, SkipReason>>>>;

#[salsa::db]
pub trait Db: salsa::Database {
    fn workspace(&self) -> Workspace;
    fn settings(&self) -> Settings;
    /// Record that a query body ran (tests use this to prove what re-executes).
    fn record(&self, event: String);
    /// The file at `path` (absolute, normalized): a workspace file, or a header or compile
    /// database read from disk once and kept as an input, so a query reading its text depends
    /// on it (editing a header re-runs exactly the queries that read it).
    fn file_at(&self, path: &Path) -> Result<SourceFile, SkipReason>;
    /// The tree of `text`, the live text of `file` (its dead `#if` arms blanked): parsed
    /// incrementally from the tree of the live text parsed last for `file`, when there is one.
    fn parse_live(&self, file: SourceFile, text: &Arc<str>) -> tree_sitter::Tree;
}

/// The live text last parsed for each file, with its tree (see [`Db::parse_live`]).
type LiveTrees = Arc<Mutex<FxHashMap<SourceFile, (Arc<str>, tree_sitter::Tree)>>>;

#[salsa::db]
#[derive(Clone)]
pub struct Database {
    storage: salsa::Storage<Self>,
    /// Always `Some` after `Database::new`: inputs can only be created with a database.
    workspace: Option<Workspace>,
    settings: Option<Settings>,
    log: Arc<Mutex<Option<Vec<String>>>>,
    pub(super) files: FileMap,
    live_trees: LiveTrees,
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
    fn file_at(&self, path: &Path) -> Result<SourceFile, SkipReason> {
        let Ok(mut files) = self.files.lock() else {
            return Err(SkipReason::Unreadable("internal lock poisoned".into()));
        };
        if let Some(r) = files.get(path) {
            return r.clone();
        }
        // Read under the lock: two workers never create two inputs for one path.
        let r = FsSource::default()
            .read(path)
            .map(|text| SourceFile::new(self, path.to_path_buf(), text.to_string(), None));
        files.insert(path.to_path_buf(), r.clone());
        r
    }
    fn parse_live(&self, file: SourceFile, text: &Arc<str>) -> tree_sitter::Tree {
        let previous = self
            .live_trees
            .lock()
            .ok()
            .and_then(|m| m.get(&file).cloned());
        let tree = match previous {
            Some((old_text, old_tree)) => {
                crate::syntax::reparse_changed(&old_text, &old_tree, text)
            }
            None => crate::syntax::parse(text, None),
        };
        if let Ok(mut m) = self.live_trees.lock() {
            m.insert(file, (text.clone(), tree.clone()));
        }
        tree
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
            files: FileMap::default(),
            live_trees: LiveTrees::default(),
        };
        db.workspace = Some(Workspace::new(&db, vec![]));
        db.settings = Some(Settings::new(&db, config));
        db
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
            files: FileMap::default(),
            live_trees: LiveTrees::default(),
        };
        db.workspace = Some(Workspace::new(&db, vec![]));
        db.settings = Some(Settings::new(&db, config));
        db
    }
}

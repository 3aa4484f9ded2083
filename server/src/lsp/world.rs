//! The server's state: the salsa database (the single writer handle), the open documents and
//! the file set. Every write goes through [`World::write`], which holds the database lock,
//! applies the change and bumps the revision; a snapshot records the revision it was taken at,
//! so a result can be checked for staleness before it is published.
//!
//! Lock order: the database mutex first, then a `DashMap` shard, and never a shard guard while
//! writing to the database. A salsa write blocks until every snapshot is dropped; analysis
//! jobs never touch these maps (their [`FileCtx`] is captured up front), so a write waits only
//! for jobs to reach their next cancellation point.

use super::analysis::FileCtx;
use super::convert::{path_to_uri, uri_to_path};
use crate::config::Config;
use crate::db::{Database, SourceFile};
use crate::syntax::{Document, PositionEncoding, SyntaxTree, TextChange};
use dashmap::{DashMap, DashSet};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use tower_lsp_server::ls_types::Uri;

pub struct OpenDoc {
    pub uri: Uri,
    pub version: i32,
    pub doc: Document,
}

pub struct World {
    db: Mutex<Database>,
    revision: AtomicU64,
    /// Open documents by path; the editor's text wins over the disk's.
    pub docs: DashMap<PathBuf, OpenDoc>,
    /// Every file in the database.
    pub files: DashMap<PathBuf, SourceFile>,
    /// Files loaded from disk (workspace folders, or the directory of a lone open file): on
    /// close they go back to their disk text instead of leaving the workspace.
    pub on_disk: DashSet<PathBuf>,
}

/// A database snapshot for one job, with the revision it shows.
pub struct Snapshot {
    pub db: Database,
    pub revision: u64,
}

/// Why an edit was not applied.
#[derive(Debug)]
pub enum EditRejected {
    NotOpen,
    StaleVersion { current: i32, got: i32 },
    Invalid(String),
}

impl std::fmt::Display for EditRejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EditRejected::NotOpen => f.write_str("the document is not open"),
            EditRejected::StaleVersion { current, got } => write!(
                f,
                "edit for version {got}, but the document is already at version {current}"
            ),
            EditRejected::Invalid(e) => f.write_str(e),
        }
    }
}

impl World {
    pub fn new(db: Database) -> Self {
        World {
            db: Mutex::new(db),
            revision: AtomicU64::new(0),
            docs: DashMap::new(),
            files: DashMap::new(),
            on_disk: DashSet::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Database> {
        // A panic while writing leaves the inputs as they were before the failed setter; the
        // database stays usable.
        self.db.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn revision(&self) -> u64 {
        self.revision.load(Ordering::SeqCst)
    }

    /// Runs a change to the inputs under the database lock and starts a new revision.
    fn write<R>(&self, f: impl FnOnce(&mut Database) -> R) -> R {
        let mut db = self.lock();
        let r = f(&mut db);
        self.revision.fetch_add(1, Ordering::SeqCst);
        r
    }

    /// A snapshot and everything a job on `path` needs, taken together so they agree.
    pub fn file_snapshot(
        &self,
        path: &Path,
        enc: PositionEncoding,
        roots: Vec<PathBuf>,
    ) -> Option<(Snapshot, FileCtx)> {
        let db = self.lock();
        let file = *self.files.get(path)?;
        let (uri, version) = match self.docs.get(path) {
            Some(d) => (d.uri.clone(), Some(d.version)),
            None => (path_to_uri(path)?, None),
        };
        let open_uris: HashMap<PathBuf, Uri> = self
            .docs
            .iter()
            .map(|d| (d.key().clone(), d.uri.clone()))
            .collect();
        let snap = Snapshot {
            db: db.clone(),
            revision: self.revision(),
        };
        drop(db);
        Some((
            snap,
            FileCtx {
                file,
                path: path.to_path_buf(),
                uri,
                version,
                enc,
                open_uris: Arc::new(open_uris),
                roots: Arc::new(roots),
            },
        ))
    }

    /// `didOpen`: the editor's text replaces the disk's.
    pub fn open(&self, uri: Uri, version: i32, text: String) -> PathBuf {
        let path = uri_to_path(&uri);
        let doc = Document::new(text);
        let tree = SyntaxTree(doc.tree().clone());
        let text = doc.text().to_string();
        self.write(|db| {
            let file = match self.files.get(&path).map(|f| *f) {
                Some(f) => {
                    db.set_file_text(f, text);
                    f
                }
                None => db.add_file(path.clone(), text),
            };
            db.set_file_tree(file, Some(tree));
            self.files.insert(path.clone(), file);
            self.docs
                .insert(path.clone(), OpenDoc { uri, version, doc });
        });
        path
    }

    /// `didChange`: applies the edits to the document (incremental reparse), then to the
    /// database. Edits for an unknown document or an old version are rejected unapplied.
    pub fn change(
        &self,
        uri: &Uri,
        version: i32,
        changes: &[TextChange],
        enc: PositionEncoding,
    ) -> Result<PathBuf, EditRejected> {
        let path = uri_to_path(uri);
        self.write(|db| {
            let (text, tree) = {
                let mut open = self.docs.get_mut(&path).ok_or(EditRejected::NotOpen)?;
                if version <= open.version {
                    return Err(EditRejected::StaleVersion {
                        current: open.version,
                        got: version,
                    });
                }
                open.doc
                    .apply_changes(changes, enc)
                    .map_err(|e| EditRejected::Invalid(e.to_string()))?;
                open.version = version;
                (
                    open.doc.text().to_string(),
                    SyntaxTree(open.doc.tree().clone()),
                )
            }; // the shard guard is released before the database write
            let file = *self.files.get(&path).ok_or(EditRejected::NotOpen)?;
            db.set_file_text(file, text);
            db.set_file_tree(file, Some(tree));
            Ok(path.clone())
        })
    }

    /// `didClose`: a file from disk goes back to its disk text (re-read only when `may_read`
    /// says the path still resolves inside the workspace); any other file leaves the
    /// workspace. Returns whether the file is still analysed.
    pub fn close(&self, uri: &Uri, may_read: impl FnOnce(&Path) -> bool) -> (PathBuf, bool) {
        let path = uri_to_path(uri);
        let disk = if self.on_disk.contains(&path) && may_read(&path) {
            crate::files::read_source(&path).ok().map(|(t, _)| t)
        } else {
            None
        };
        let kept = self.write(|db| {
            self.docs.remove(&path);
            match disk {
                Some(text) => {
                    let f = db.add_file(path.clone(), text);
                    self.files.insert(path.clone(), f);
                    true
                }
                None => {
                    db.remove_file(&path);
                    self.files.remove(&path);
                    self.on_disk.remove(&path);
                    false
                }
            }
        });
        (path, kept)
    }

    /// Load files read from disk; open documents keep the editor's text.
    pub fn load(&self, files: Vec<(PathBuf, String)>) {
        if files.is_empty() {
            return;
        }
        self.write(|db| {
            for (path, text) in files {
                if self.docs.contains_key(&path) {
                    continue;
                }
                let unchanged = self
                    .files
                    .get(&path)
                    .map(|f| *f.text(&*db) == text)
                    .unwrap_or(false);
                if !unchanged {
                    let f = db.add_file(path.clone(), text);
                    self.files.insert(path.clone(), f);
                }
                self.on_disk.insert(path);
            }
        });
    }

    /// A file deleted on disk (open documents stay until closed). Returns whether it left.
    pub fn remove(&self, path: &Path) -> bool {
        if self.docs.contains_key(path) || !self.files.contains_key(path) {
            return false;
        }
        self.write(|db| {
            db.remove_file(path);
            self.files.remove(path);
            self.on_disk.remove(path);
        });
        true
    }

    /// Returns whether the configuration changed.
    pub fn set_config(&self, config: Config) -> bool {
        {
            if *self.lock().config() == config {
                return false;
            }
        }
        self.write(|db| db.set_config(config));
        true
    }

    /// The database's execution log (see [`Database::with_execution_log`]).
    pub fn take_log(&self) -> Vec<String> {
        self.lock().take_log()
    }
}

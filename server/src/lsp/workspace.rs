//! The workspace: which files the server may read and analyses (workspace folders, `exclude`,
//! documents opened outside every folder), indexing them into the [`super::world::World`],
//! the configuration in force (`reductio.toml` plus the client's settings), file watchers, and
//! the start-up sequence after `initialized`.

use super::convert;
use super::progress::PROGRESS_MIN_FILES;
use super::session::{CLIENT_REPLY_LIMIT, Session, lock};
use super::settings::ClientSettings;
use crate::config::Config;
use crate::files::is_c_file;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tower_lsp_server::ls_types::{
    DidChangeWatchedFilesRegistrationOptions, FileSystemWatcher, GlobPattern, MessageType,
    Registration,
};

/// Files read from disk per database write while indexing.
const INDEX_BATCH: usize = 256;

/// Whether `path`, with `..` and symbolic links resolved, lies inside one of `dirs` (also
/// resolved). A path that does not exist is inside nothing.
pub(super) fn within(path: &Path, dirs: &[PathBuf]) -> bool {
    let Ok(real) = path.canonicalize() else {
        return false;
    };
    dirs.iter()
        .any(|d| d.canonicalize().is_ok_and(|d| real.starts_with(d)))
}

pub(super) fn read_files(paths: Vec<PathBuf>) -> Vec<(PathBuf, String)> {
    paths
        .into_iter()
        .filter_map(|p| {
            let (text, _lossy) = crate::files::read_source(&p).ok()?;
            Some((p, text))
        })
        .collect()
}

impl Session {
    /// Whether the server may read `path` from disk: with `..` and symbolic links resolved, it
    /// lies inside a workspace folder or a directory indexed for a document opened outside
    /// them.
    pub(super) fn may_read(&self, path: &Path) -> bool {
        let mut dirs = self.roots();
        dirs.extend(self.lone_dirs.iter().map(|d| d.key().clone()));
        within(path, &dirs)
    }

    fn world_config_exclude(&self) -> Vec<String> {
        lock(&self.settings).config.exclude.clone()
    }

    /// Whether `exclude` (relative to a workspace folder) matches `path`: such files are not
    /// indexed, and get no diagnostics even when opened.
    pub(super) fn excluded(&self, path: &Path) -> bool {
        let settings = lock(&self.settings);
        settings
            .exclude
            .iter()
            .any(|o| path.starts_with(o.path()) && o.matched(path, false).is_ignore())
    }

    fn compile_exclude(&self) {
        let roots = self.roots();
        let mut settings = lock(&self.settings);
        let patterns = settings.config.exclude.clone();
        settings.exclude = if patterns.is_empty() {
            vec![]
        } else {
            roots
                .iter()
                .filter_map(|root| {
                    let mut b = ignore::overrides::OverrideBuilder::new(root);
                    for pat in &patterns {
                        b.add(&format!("!{pat}")).ok()?;
                    }
                    b.build().ok()
                })
                .collect()
        };
    }

    /// Reads `.c`/`.h` files under `roots` (honouring `.gitignore` and `exclude`) into the
    /// database, reporting `$/progress`.
    async fn index(&self, roots: Vec<PathBuf>) {
        let exclude = self.world_config_exclude();
        let found = tokio::task::spawn_blocking(move || {
            let mut all = Vec::new();
            let mut errors = Vec::new();
            for root in roots {
                match crate::files::discover_files(std::slice::from_ref(&root), &exclude) {
                    Ok(found) => {
                        all.extend(found.files);
                        for (path, why) in found.skipped {
                            errors.push(format!("{} skipped: {why}", path.display()));
                        }
                    }
                    Err(e) => errors.push(e),
                }
            }
            (all, errors)
        })
        .await;
        let (files, errors) = found.unwrap_or_default();
        for e in errors {
            self.log(MessageType::WARNING, format!("indexing: {e}"))
                .await;
        }
        let total = files.len();
        // A small workspace is read at once: no progress report, and so no round trip to the
        // client (`window/workDoneProgress/create`) before its first diagnostics.
        let progress = if total > PROGRESS_MIN_FILES {
            self.begin_progress("reductio: indexing", format!("0/{total} files"))
                .await
        } else {
            None
        };
        for (i, chunk) in files.chunks(INDEX_BATCH).enumerate() {
            let paths = chunk.to_vec();
            let read = tokio::task::spawn_blocking(move || read_files(paths))
                .await
                .unwrap_or_default();
            self.world.load(read);
            if let Some(p) = &progress {
                let done = (i * INDEX_BATCH + chunk.len()).min(total);
                let pct = (done * 100 / total.max(1)) as u32;
                p.report_with_message(format!("{done}/{total} files"), pct)
                    .await;
            }
        }
        if let Some(p) = progress {
            p.finish_with_message(format!("{total} files")).await;
        }
        self.log(MessageType::INFO, format!("indexed {total} C files"))
            .await;
    }

    /// A file outside every workspace folder brings its directory's C files along (not
    /// recursively), like `reductio prove`.
    pub(super) async fn index_lone_file(&self, path: &Path) {
        let roots = self.roots();
        if roots.iter().any(|r| path.starts_with(r)) || !path.is_absolute() {
            return;
        }
        let Some(dir) = path.parent().map(Path::to_path_buf) else {
            return;
        };
        if !self.lone_dirs.insert(dir.clone()) {
            return;
        }
        let read = tokio::task::spawn_blocking(move || {
            // Regular files only: a symbolic link could point anywhere.
            let paths: Vec<PathBuf> = std::fs::read_dir(&dir)
                .map(|rd| {
                    rd.filter_map(|e| e.ok())
                        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                        .map(|e| e.path())
                        .filter(|p| is_c_file(p))
                        .collect()
                })
                .unwrap_or_default();
            read_files(paths)
        })
        .await
        .unwrap_or_default();
        self.world.load(read);
    }

    /// The configuration in force: `reductio.toml` at the first workspace folder that has one,
    /// then the client's settings on top. Returns whether it changed.
    pub(super) async fn reload_config(&self) -> bool {
        let mut base = Config::default();
        for root in self.roots() {
            let file = root.join("reductio.toml");
            // Not through a symbolic link out of the folder (its text would be echoed in errors).
            if !file.is_file() || !within(&file, std::slice::from_ref(&root)) {
                continue;
            }
            match crate::files::load_config(&file) {
                Ok(c) => base = c,
                Err(e) => {
                    self.client
                        .show_message(MessageType::ERROR, format!("reductio: {e}"))
                        .await;
                    self.log(MessageType::ERROR, e).await;
                }
            }
            break;
        }
        let client = lock(&self.settings).client.clone();
        match client.apply_to(&base) {
            Ok(config) => {
                let old_exclude = self.world_config_exclude();
                lock(&self.settings).config = config.clone();
                self.compile_exclude();
                let changed = self.world.set_config(config.clone());
                // Before the first indexing, the indexing itself applies `exclude`.
                if changed && old_exclude != config.exclude && *self.indexed.borrow() {
                    self.reindex().await;
                }
                changed
            }
            Err(e) => {
                self.show_error(format!("reductio: settings ignored: {e}"))
                    .await;
                false
            }
        }
    }

    /// After `exclude` or the folders changed: drop files that are no longer part of the
    /// workspace, load the new ones.
    pub(super) async fn reindex(&self) {
        let roots = self.roots();
        let exclude = self.world_config_exclude();
        let r = roots.clone();
        let wanted: std::collections::HashSet<PathBuf> = tokio::task::spawn_blocking(move || {
            r.iter()
                .filter_map(|root| {
                    crate::files::discover(std::slice::from_ref(root), &exclude).ok()
                })
                .flatten()
                .collect()
        })
        .await
        .unwrap_or_default();
        let gone: Vec<PathBuf> = self
            .world
            .on_disk
            .iter()
            .map(|p| p.key().clone())
            .filter(|p| !wanted.contains(p) && roots.iter().any(|r| p.starts_with(r)))
            .collect();
        for p in gone {
            if self.world.remove(&p)
                && let Some(uri) = convert::path_to_uri(&p)
            {
                self.clear_diagnostics(&uri).await;
            }
        }
        let new: Vec<PathBuf> = wanted
            .into_iter()
            .filter(|p| !self.world.files.contains_key(p))
            .collect();
        let read = tokio::task::spawn_blocking(move || read_files(new))
            .await
            .unwrap_or_default();
        self.world.load(read);
    }

    async fn register_watchers(&self) {
        if !self.caps().watch_registration {
            return;
        }
        let watchers = ["**/*.c", "**/*.h", "**/reductio.toml"]
            .into_iter()
            .map(|g| FileSystemWatcher {
                glob_pattern: GlobPattern::String(g.into()),
                kind: None,
            })
            .collect();
        let options = DidChangeWatchedFilesRegistrationOptions { watchers };
        let registration = Registration {
            id: "reductio-watched-files".into(),
            method: "workspace/didChangeWatchedFiles".into(),
            register_options: serde_json::to_value(options).ok(),
        };
        let registered = tokio::time::timeout(
            CLIENT_REPLY_LIMIT,
            self.client.register_capability(vec![registration]),
        )
        .await;
        let error = match registered {
            Ok(Ok(())) => return,
            Ok(Err(e)) => e.message.into_owned(),
            Err(_) => "no reply".to_string(),
        };
        self.log(
            MessageType::WARNING,
            format!("could not watch files: {error}"),
        )
        .await;
    }

    /// Takes the client's settings (`workspace/didChangeConfiguration`); a bad value is shown
    /// and ignored. Returns whether they were taken.
    pub(super) async fn set_client_settings(&self, value: &Value) -> bool {
        match ClientSettings::from_json(value) {
            Ok(s) => {
                lock(&self.settings).client = s;
                true
            }
            Err(e) => {
                self.show_error(format!("reductio: settings ignored: {e}"))
                    .await;
                false
            }
        }
    }

    /// After `initialized`: watch files (registered in the background), load the
    /// configuration, index the workspace folders, then check everything.
    pub(super) async fn startup(self: Arc<Self>) {
        // The client's reply to the registration is not waited for: indexing and the first
        // diagnostics do not depend on it.
        let this = self.clone();
        tokio::spawn(async move { this.register_watchers().await });
        let init_error = lock(&self.init_error).take();
        if let Some(e) = init_error {
            self.show_error(format!("reductio: initializationOptions ignored: {e}"))
                .await;
        }
        self.reload_config().await;
        let roots = self.roots();
        if !roots.is_empty() {
            self.index(roots).await;
        }
        self.indexed.send_replace(true);
        self.schedule_check(vec![]);
    }
}

//! The `LanguageServer` implementation: lifecycle, document sync, background checking,
//! requests and commands.
//!
//! Concurrency rules (see also [`super::world`]):
//! - Notifications that change text apply their edit synchronously, before the handler's first
//!   `.await`, so edits are applied in the order they arrived even though tower-lsp runs
//!   handlers concurrently.
//! - Analysis runs on the `analysis` thread pool (32 MiB stacks, off the async runtime), each
//!   job on its own database snapshot. An edit cancels running jobs (salsa unwinds them at their
//!   next query); a cancelled check retries on the new revision unless a newer check superseded
//!   it, and a request retries a few times before answering `ContentModified`.
//! - Diagnostics are published under one lock, and only when the revision they were computed on
//!   is still the latest: stale results are never published over fresher ones.

use super::analysis::{self, EditSupport, FileCtx, Hit, PROVE_COMMAND, TRACE_COMMAND};
use super::convert::{self, uri_to_path};
use super::settings::{ClientSettings, DEFAULT_DEBOUNCE};
use super::world::{Snapshot, World};
use crate::config::{CheckOn, Config};
use crate::db::{Database, VerdictKind};
use crate::syntax::{Position, PositionEncoding, TextChange};
use dashmap::{DashMap, DashSet};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

/// Requests retry this often when an edit cancels them, then answer `ContentModified`.
const REQUEST_ATTEMPTS: usize = 4;
/// A check of one file retries this often when edits keep cancelling it.
const CHECK_ATTEMPTS: u64 = 40;
/// Checks of more files than this report `$/progress`.
const PROGRESS_MIN_FILES: usize = 10;
/// Files read from disk per database write while indexing.
const INDEX_BATCH: usize = 256;
/// How long the server waits for the client's reply to one of its own requests
/// (`workspace/configuration`, `window/workDoneProgress/create`, `client/registerCapability`):
/// a client that never answers must not hold up a handler or a check forever.
const CLIENT_REPLY_LIMIT: Duration = Duration::from_secs(10);

/// What the client can do, from `initialize`.
#[derive(Clone, Copy, Debug, Default)]
struct ClientCaps {
    progress: bool,
    watch_registration: bool,
    configuration_pull: bool,
    document_changes: bool,
}

#[derive(Default)]
struct SettingsState {
    client: ClientSettings,
    /// The configuration in force (also in the database; cached here so that hot paths do
    /// not take the database lock).
    config: Config,
    /// `exclude` compiled against each workspace folder.
    exclude: Vec<ignore::overrides::Override>,
}

pub(crate) struct Inner {
    client: Client,
    pub(crate) world: Arc<World>,
    /// Analysis threads: big stacks (the engine and the lowering recurse), off the runtime.
    pool: rayon::ThreadPool,
    enc: OnceLock<PositionEncoding>,
    caps: OnceLock<ClientCaps>,
    roots: Mutex<Vec<PathBuf>>,
    settings: Mutex<SettingsState>,
    /// A settings error found in `initialize`, shown once the client can receive messages.
    init_error: Mutex<Option<String>>,
    /// Each check gets a generation; a newer check supersedes (stops) older ones.
    check_gen: AtomicU64,
    /// Per-path edit counters for the `checkOn = "change"` debounce.
    edits: DashMap<PathBuf, u64>,
    /// Directories indexed for files outside every workspace folder.
    lone_dirs: DashSet<PathBuf>,
    /// The publish lock, and what was last published per URI.
    published: tokio::sync::Mutex<HashMap<Uri, Published>>,
    indexed: tokio::sync::watch::Sender<bool>,
    pub(crate) shutdown: AtomicBool,
    progress_tokens: AtomicU64,
}

/// The version and diagnostics last published for a document.
type Published = (Option<i32>, Vec<Diagnostic>);

pub struct Backend {
    inner: Arc<Inner>,
}

#[derive(Debug)]
enum JobError {
    Cancelled,
    Failed(String),
}

/// `reductio/prove` parameters.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProveParams {
    pub text_document: TextDocumentIdentifier,
    pub position: tower_lsp_server::ls_types::Position,
}

impl Backend {
    pub(crate) fn new(client: Client, db: Database) -> (Backend, Arc<Inner>) {
        let threads = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2)
            .max(2)
            + 1;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .stack_size(32 << 20)
            .thread_name(|i| format!("reductio-analysis-{i}"))
            .build()
            .unwrap_or_else(|_| {
                rayon::ThreadPoolBuilder::new()
                    .build()
                    .expect("a default thread pool")
            });
        let (indexed, _) = tokio::sync::watch::channel(false);
        let inner = Arc::new(Inner {
            client,
            world: Arc::new(World::new(db)),
            pool,
            enc: OnceLock::new(),
            caps: OnceLock::new(),
            roots: Mutex::new(vec![]),
            settings: Mutex::new(SettingsState::default()),
            init_error: Mutex::new(None),
            check_gen: AtomicU64::new(0),
            edits: DashMap::new(),
            lone_dirs: DashSet::new(),
            published: tokio::sync::Mutex::new(HashMap::new()),
            indexed,
            shutdown: AtomicBool::new(false),
            progress_tokens: AtomicU64::new(0),
        });
        (
            Backend {
                inner: inner.clone(),
            },
            inner,
        )
    }

    /// `reductio/prove {textDocument, position} -> {verdicts: [...]}`.
    pub async fn prove(&self, params: ProveParams) -> Result<Value> {
        let (json, _) = self
            .inner
            .prove_at(&params.text_document.uri, params.position, false)
            .await?;
        Ok(json)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}

fn is_c_file(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("c" | "h"))
}

/// Whether `path`, with `..` and symbolic links resolved, lies inside one of `dirs` (also
/// resolved). A path that does not exist is inside nothing.
fn within(path: &Path, dirs: &[PathBuf]) -> bool {
    let Ok(real) = path.canonicalize() else {
        return false;
    };
    dirs.iter()
        .any(|d| d.canonicalize().is_ok_and(|d| real.starts_with(d)))
}

fn read_files(paths: Vec<PathBuf>) -> Vec<(PathBuf, String)> {
    paths
        .into_iter()
        .filter_map(|p| {
            let (text, _lossy) = crate::files::read_source(&p).ok()?;
            Some((p, text))
        })
        .collect()
}

impl Inner {
    fn enc(&self) -> PositionEncoding {
        self.enc.get().copied().unwrap_or_default()
    }

    fn caps(&self) -> ClientCaps {
        self.caps.get().copied().unwrap_or_default()
    }

    fn roots(&self) -> Vec<PathBuf> {
        lock(&self.roots).clone()
    }

    /// Whether the server may read `path` from disk: with `..` and symbolic links resolved, it
    /// lies inside a workspace folder or a directory indexed for a document opened outside
    /// them.
    fn may_read(&self, path: &Path) -> bool {
        let mut dirs = self.roots();
        dirs.extend(self.lone_dirs.iter().map(|d| d.key().clone()));
        within(path, &dirs)
    }

    async fn log(&self, typ: MessageType, msg: impl Into<String>) {
        let msg = msg.into();
        match typ {
            MessageType::ERROR => tracing::error!("{msg}"),
            MessageType::WARNING => tracing::warn!("{msg}"),
            _ => tracing::info!("{msg}"),
        }
        self.client.log_message(typ, msg).await;
    }

    /// Runs `job` on a snapshot in the analysis pool. Salsa cancellation and panics come back
    /// as errors; nothing here can take the server down.
    async fn run<T: Send + 'static>(
        &self,
        snap: Snapshot,
        job: impl FnOnce(&Database) -> T + Send + 'static,
    ) -> std::result::Result<T, JobError> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.pool.spawn(move || {
            let db = snap.db;
            let r = std::panic::catch_unwind(AssertUnwindSafe(|| job(&db)));
            drop(db); // before reporting, so that a waiting writer is not held up
            let r = match r {
                Ok(v) => Ok(v),
                Err(p) if p.is::<salsa::Cancelled>() => Err(JobError::Cancelled),
                Err(p) => Err(JobError::Failed(panic_message(p.as_ref()))),
            };
            let _ = tx.send(r);
        });
        rx.await
            .unwrap_or_else(|_| Err(JobError::Failed("analysis job lost".into())))
    }

    /// A request on one file: unknown documents and bad positions are `InvalidParams`, an edit
    /// during the request retries it, and a failure is an `InternalError`.
    async fn on_file<T: Send + 'static>(
        &self,
        uri: &Uri,
        job: impl Fn(&Database, &FileCtx) -> std::result::Result<T, String>
        + Send
        + Sync
        + Clone
        + 'static,
    ) -> Result<T> {
        let path = uri_to_path(uri);
        for _ in 0..REQUEST_ATTEMPTS {
            let Some((snap, ctx)) = self.world.file_snapshot(&path, self.enc()) else {
                return Err(Error::invalid_params(format!(
                    "unknown document {}: neither open nor in the workspace",
                    uri.as_str()
                )));
            };
            let job = job.clone();
            match self.run(snap, move |db| job(db, &ctx)).await {
                Ok(Ok(v)) => return Ok(v),
                Ok(Err(msg)) => return Err(Error::invalid_params(msg)),
                Err(JobError::Cancelled) => continue,
                Err(JobError::Failed(msg)) => {
                    self.log(MessageType::ERROR, format!("internal error: {msg}"))
                        .await;
                    return Err(Error {
                        code: ErrorCode::InternalError,
                        message: format!("internal error: {msg}").into(),
                        data: None,
                    });
                }
            }
        }
        Err(Error::content_modified())
    }

    async fn prove_at(
        &self,
        uri: &Uri,
        pos: tower_lsp_server::ls_types::Position,
        leaks_only: bool,
    ) -> Result<(Value, Vec<(VerdictKind, String)>)> {
        self.on_file(uri, move |db, ctx| {
            let off = analysis::offset(db, ctx, pos)?;
            let hits: Vec<Hit> = if leaks_only {
                analysis::leaks_at(db, ctx, off)
            } else {
                analysis::probes_at(db, ctx.file, off, true)
            };
            let lines = hits
                .iter()
                .map(|h| {
                    (
                        h.finding.verdict,
                        analysis::describe(&h.finding, &ctx.path, false),
                    )
                })
                .collect();
            Ok((analysis::verdicts_json(&hits), lines))
        })
        .await
    }

    // ---- background checking ----------------------------------------------------------

    fn debounce(&self) -> Duration {
        lock(&self.settings)
            .client
            .debounce
            .unwrap_or(DEFAULT_DEBOUNCE)
    }

    fn superseded(&self, generation: u64) -> bool {
        self.check_gen.load(Ordering::SeqCst) != generation || self.shutdown.load(Ordering::SeqCst)
    }

    /// Check `first`, then every open document, then every other file of the workspace (salsa
    /// makes unchanged files nearly free), publishing as each file is done.
    fn schedule_check(self: &Arc<Self>, first: Vec<PathBuf>) {
        let generation = self.check_gen.fetch_add(1, Ordering::SeqCst) + 1;
        let this = self.clone();
        tokio::spawn(async move { this.check(generation, first).await });
    }

    async fn check(self: Arc<Self>, generation: u64, first: Vec<PathBuf>) {
        // Diagnostics computed before the workspace is loaded would lack other files'
        // functions; wait for indexing (bounded, in case `initialized` never comes).
        let mut ready = self.indexed.subscribe();
        let _ = tokio::time::timeout(Duration::from_secs(30), ready.wait_for(|v| *v)).await;
        if self.superseded(generation) {
            return;
        }
        let mut order = first;
        let mut open: Vec<PathBuf> = self.world.docs.iter().map(|d| d.key().clone()).collect();
        open.sort();
        let mut rest: Vec<PathBuf> = self.world.files.iter().map(|f| f.key().clone()).collect();
        rest.sort();
        order.extend(open);
        order.extend(rest);
        let mut seen = std::collections::HashSet::new();
        order.retain(|p| seen.insert(p.clone()));
        let total = order.len();
        let progress = if total > PROGRESS_MIN_FILES {
            self.begin_progress("reductio: checking", format!("0/{total} files"))
                .await
        } else {
            None
        };
        let mut last_pct = 0;
        // The first file (the edited one) alone, so that nothing competes with it; then as
        // many files at once as there are cores (each check is one job on the pool).
        let parallel = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2);
        let mut running = tokio::task::JoinSet::new();
        let mut done = 0;
        for (i, path) in order.into_iter().enumerate() {
            if self.superseded(generation) {
                break;
            }
            let this = self.clone();
            running.spawn(async move { this.check_file(generation, &path).await });
            let limit = if i == 0 { 1 } else { parallel };
            while running.len() >= limit {
                if running.join_next().await.is_none() {
                    break;
                }
                done += 1;
                if let Some(p) = &progress {
                    let pct = (done * 100 / total) as u32;
                    if pct > last_pct {
                        last_pct = pct;
                        p.report_with_message(format!("{done}/{total} files"), pct)
                            .await;
                    }
                }
            }
        }
        while running.join_next().await.is_some() {}
        if let Some(p) = progress {
            p.finish_with_message(format!("{total} files checked"))
                .await;
        }
    }

    async fn check_file(&self, generation: u64, path: &Path) {
        for attempt in 0..CHECK_ATTEMPTS {
            if attempt > 0 {
                if self.superseded(generation) {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(5 * attempt.min(20))).await;
            }
            let Some((snap, ctx)) = self.world.file_snapshot(path, self.enc()) else {
                return; // the file left the workspace
            };
            let revision = snap.revision;
            let job_ctx = ctx.clone();
            let started = std::time::Instant::now();
            match self
                .run(snap, move |db| analysis::file_diagnostics(db, &job_ctx))
                .await
            {
                Ok(diags) => {
                    tracing::debug!(
                        "checked {} (revision {revision}) in {:?}: {} leaks",
                        path.display(),
                        started.elapsed(),
                        diags.len()
                    );
                    if self.publish(&ctx, diags, revision).await {
                        return;
                    }
                }
                Err(JobError::Cancelled) => {}
                Err(JobError::Failed(msg)) => {
                    self.log(
                        MessageType::ERROR,
                        format!("checking {} failed: {msg}", path.display()),
                    )
                    .await;
                    return;
                }
            }
        }
    }

    /// Publishes unless the snapshot is no longer the latest revision (then the caller
    /// retries on the new one). Returns whether the result was current.
    async fn publish(&self, ctx: &FileCtx, diags: Vec<Diagnostic>, revision: u64) -> bool {
        let mut published = self.published.lock().await;
        if self.world.revision() != revision {
            return false;
        }
        let diags = if self.excluded(&ctx.path) {
            vec![]
        } else {
            diags
        };
        let entry = (ctx.version, diags);
        match published.get(&ctx.uri) {
            Some(prev) if *prev == entry => return true,
            None if entry.1.is_empty() && ctx.version.is_none() => return true,
            _ => {}
        }
        published.insert(ctx.uri.clone(), entry.clone());
        self.client
            .publish_diagnostics(ctx.uri.clone(), entry.1, entry.0)
            .await;
        true
    }

    async fn clear_diagnostics(&self, uri: &Uri) {
        let mut published = self.published.lock().await;
        if published.remove(uri).is_some() {
            self.client
                .publish_diagnostics(uri.clone(), vec![], None)
                .await;
        }
    }

    fn check_on_change(self: &Arc<Self>, path: PathBuf) {
        let n = {
            let mut e = self.edits.entry(path.clone()).or_insert(0);
            *e += 1;
            *e
        };
        let delay = self.debounce();
        let this = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            let latest = this.edits.get(&path).map(|e| *e).unwrap_or(0);
            if latest == n {
                this.schedule_check(vec![path]);
            }
        });
    }

    // ---- workspace: files, configuration, progress --------------------------------------

    async fn begin_progress(
        &self,
        title: &str,
        message: String,
    ) -> Option<
        tower_lsp_server::OngoingProgress<
            tower_lsp_server::Bounded,
            tower_lsp_server::NotCancellable,
        >,
    > {
        if !self.caps().progress {
            return None;
        }
        let n = self.progress_tokens.fetch_add(1, Ordering::SeqCst);
        let token = ProgressToken::String(format!("reductio/{n}"));
        tokio::time::timeout(
            CLIENT_REPLY_LIMIT,
            self.client.create_work_done_progress(token.clone()),
        )
        .await
        .ok()?
        .ok()?;
        Some(
            self.client
                .progress(token, title)
                .with_percentage(0)
                .with_message(message)
                .begin()
                .await,
        )
    }

    fn config(&self) -> Config {
        lock(&self.settings).config.clone()
    }

    fn world_config_exclude(&self) -> Vec<String> {
        lock(&self.settings).config.exclude.clone()
    }

    /// Whether `exclude` (relative to a workspace folder) matches `path`: such files are not
    /// indexed, and get no diagnostics even when opened.
    fn excluded(&self, path: &Path) -> bool {
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
                match crate::files::discover(std::slice::from_ref(&root), &exclude) {
                    Ok(files) => all.extend(files),
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
        let progress = self
            .begin_progress("reductio: indexing", format!("0/{total} files"))
            .await;
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
    async fn index_lone_file(&self, path: &Path) {
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
    async fn reload_config(&self) -> bool {
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
                let msg = format!("reductio: settings ignored: {e}");
                self.client.show_message(MessageType::ERROR, &msg).await;
                self.log(MessageType::ERROR, msg).await;
                false
            }
        }
    }

    /// After `exclude` or the folders changed: drop files that are no longer part of the
    /// workspace, load the new ones.
    async fn reindex(&self) {
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

    async fn set_client_settings(&self, value: &Value) -> bool {
        match ClientSettings::from_json(value) {
            Ok(s) => {
                lock(&self.settings).client = s;
                true
            }
            Err(e) => {
                let msg = format!("reductio: settings ignored: {e}");
                self.client.show_message(MessageType::ERROR, &msg).await;
                self.log(MessageType::ERROR, msg).await;
                false
            }
        }
    }

    async fn startup(self: Arc<Self>) {
        self.register_watchers().await;
        let init_error = lock(&self.init_error).take();
        if let Some(e) = init_error {
            let msg = format!("reductio: initializationOptions ignored: {e}");
            self.client.show_message(MessageType::ERROR, &msg).await;
            self.log(MessageType::ERROR, msg).await;
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

fn to_changes(changes: Vec<TextDocumentContentChangeEvent>) -> Vec<TextChange> {
    changes
        .into_iter()
        .map(|c| TextChange {
            range: c.range.map(|r| {
                (
                    Position::new(r.start.line, r.start.character),
                    Position::new(r.end.line, r.end.character),
                )
            }),
            text: c.text,
        })
        .collect()
}

/// `[uri, position]` (or `[{textDocument, position}]`) as `reductio.proveNoLeak` takes them.
fn command_target(args: &[Value]) -> Result<(Uri, tower_lsp_server::ls_types::Position)> {
    let bad = || {
        Error::invalid_params(
            "expected arguments [uri, position] or [{textDocument: {uri}, position}]",
        )
    };
    let (uri, pos) = match args {
        [Value::String(uri), pos, ..] => (uri.clone(), pos.clone()),
        [Value::Object(o), ..] => {
            let uri = o
                .get("textDocument")
                .and_then(|t| t.get("uri"))
                .or_else(|| o.get("uri"))
                .and_then(Value::as_str)
                .ok_or_else(bad)?;
            (uri.to_string(), o.get("position").cloned().ok_or_else(bad)?)
        }
        _ => return Err(bad()),
    };
    let uri: Uri = uri
        .parse()
        .map_err(|_| Error::invalid_params(format!("`{uri}` is not a URI")))?;
    let pos = serde_json::from_value(pos).map_err(|_| bad())?;
    Ok((uri, pos))
}

fn kind_allowed(kind: Option<&CodeActionKind>, only: &Option<Vec<CodeActionKind>>) -> bool {
    let Some(only) = only else {
        return true;
    };
    let k = kind.map(|k| k.as_str()).unwrap_or("");
    only.iter().any(|o| {
        let o = o.as_str();
        o.is_empty() || k == o || k.starts_with(&format!("{o}."))
    })
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let inner = &self.inner;
        let caps = &params.capabilities;
        let utf8 = caps
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_ref())
            .is_some_and(|v| v.contains(&PositionEncodingKind::UTF8));
        let enc = if utf8 {
            PositionEncoding::Utf8
        } else {
            PositionEncoding::Utf16
        };
        let _ = inner.enc.set(enc);
        let ws = caps.workspace.as_ref();
        let _ = inner.caps.set(ClientCaps {
            progress: caps
                .window
                .as_ref()
                .and_then(|w| w.work_done_progress)
                .unwrap_or(false),
            watch_registration: ws
                .and_then(|w| w.did_change_watched_files.as_ref())
                .and_then(|d| d.dynamic_registration)
                .unwrap_or(false),
            configuration_pull: ws.and_then(|w| w.configuration).unwrap_or(false),
            document_changes: ws
                .and_then(|w| w.workspace_edit.as_ref())
                .and_then(|e| e.document_changes)
                .unwrap_or(false),
        });
        #[allow(deprecated)] // root_uri: clients without workspace folders still send it
        let roots: Vec<PathBuf> = match (&params.workspace_folders, &params.root_uri) {
            (Some(folders), _) if !folders.is_empty() => {
                folders.iter().map(|f| uri_to_path(&f.uri)).collect()
            }
            (_, Some(root)) => vec![uri_to_path(root)],
            _ => vec![],
        };
        *lock(&inner.roots) = roots.into_iter().filter(|r| r.is_absolute()).collect();
        if let Some(opts) = &params.initialization_options
            && let Err(e) =
                ClientSettings::from_json(opts).map(|s| lock(&inner.settings).client = s)
        {
            *lock(&inner.init_error) = Some(e);
        }
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                position_encoding: Some(convert::encoding_kind(enc)),
                text_document_sync: Some(TextDocumentSyncCapability::Options(
                    TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(TextDocumentSyncKind::INCREMENTAL),
                        save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                            include_text: Some(false),
                        })),
                        ..Default::default()
                    },
                )),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                code_action_provider: Some(CodeActionProviderCapability::Options(
                    CodeActionOptions {
                        code_action_kinds: Some(vec![
                            CodeActionKind::QUICKFIX,
                            CodeActionKind::EMPTY,
                        ]),
                        resolve_provider: Some(false),
                        ..Default::default()
                    },
                )),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: vec![PROVE_COMMAND.into(), TRACE_COMMAND.into()],
                    ..Default::default()
                }),
                workspace: Some(WorkspaceServerCapabilities {
                    workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                        supported: Some(true),
                        change_notifications: Some(OneOf::Left(true)),
                    }),
                    file_operations: None,
                }),
                experimental: Some(json!({ "proveRequest": "reductio/prove" })),
                ..Default::default()
            },
            server_info: Some(ServerInfo {
                name: "reductio".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        let inner = self.inner.clone();
        tokio::spawn(inner.startup());
    }

    async fn shutdown(&self) -> Result<()> {
        self.inner.shutdown.store(true, Ordering::SeqCst);
        self.inner.check_gen.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        let path = self.inner.world.open(doc.uri, doc.version, doc.text);
        let inner = self.inner.clone();
        tokio::spawn(async move {
            inner.index_lone_file(&path).await;
            inner.schedule_check(vec![path]);
        });
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri;
        let changes = to_changes(params.content_changes);
        // Applied before any `.await`: edits keep their order.
        match self.inner.world.change(
            &uri,
            params.text_document.version,
            &changes,
            self.inner.enc(),
        ) {
            Ok(path) => {
                if self.inner.config().check_on == CheckOn::Change {
                    self.inner.check_on_change(path);
                }
            }
            Err(e) => {
                self.inner
                    .log(
                        MessageType::ERROR,
                        format!("didChange {}: {e}; the edit was ignored", uri.as_str()),
                    )
                    .await;
            }
        }
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        let path = uri_to_path(&params.text_document.uri);
        if self.inner.world.files.contains_key(&path) {
            self.inner.schedule_check(vec![path]);
        }
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        // The disk text is read again only if the path still leads inside the workspace (a
        // file replaced by a symbolic link to elsewhere leaves it instead).
        let (_, kept) = self.inner.world.close(&uri, |p| self.inner.may_read(p));
        if !kept {
            self.inner.clear_diagnostics(&uri).await;
        }
        self.inner.schedule_check(vec![]);
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        let inner = self.inner.clone();
        let mut settings = params.settings;
        let empty = settings.is_null() || settings.as_object().is_some_and(|o| o.is_empty());
        if empty && inner.caps().configuration_pull {
            let item = ConfigurationItem {
                scope_uri: None,
                section: Some("reductio".into()),
            };
            let pulled =
                tokio::time::timeout(CLIENT_REPLY_LIMIT, inner.client.configuration(vec![item]))
                    .await;
            if let Ok(Ok(mut v)) = pulled
                && !v.is_empty()
            {
                settings = v.swap_remove(0);
            }
        }
        if inner.set_client_settings(&settings).await && inner.reload_config().await {
            inner.schedule_check(vec![]);
        }
    }

    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        let inner = self.inner.clone();
        let added: Vec<PathBuf> = params
            .event
            .added
            .iter()
            .map(|f| uri_to_path(&f.uri))
            .filter(|p| p.is_absolute())
            .collect();
        let removed: Vec<PathBuf> = params
            .event
            .removed
            .iter()
            .map(|f| uri_to_path(&f.uri))
            .collect();
        {
            let mut roots = lock(&inner.roots);
            roots.retain(|r| !removed.contains(r));
            for a in &added {
                if !roots.contains(a) {
                    roots.push(a.clone());
                }
            }
        }
        inner.reload_config().await;
        inner.reindex().await;
        inner.schedule_check(vec![]);
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        let inner = self.inner.clone();
        let mut config_changed = false;
        let mut any = false;
        for event in params.changes {
            let path = uri_to_path(&event.uri);
            if path.file_name().is_some_and(|n| n == "reductio.toml") {
                config_changed = true;
                continue;
            }
            if !is_c_file(&path) || inner.world.docs.contains_key(&path) {
                continue; // an open document's text comes from the editor
            }
            if event.typ == FileChangeType::DELETED {
                if inner.world.remove(&path) {
                    inner.clear_diagnostics(&event.uri).await;
                    any = true;
                }
                continue;
            }
            let known = inner.world.files.contains_key(&path);
            // With `..` and symbolic links resolved: a watched-file event is no way out of
            // the workspace folders (or the directories of documents opened outside them).
            let in_root = within(&path, &inner.roots());
            if (in_root || (known && inner.may_read(&path))) && !inner.excluded(&path) {
                let p = path.clone();
                let read = tokio::task::spawn_blocking(move || read_files(vec![p]))
                    .await
                    .unwrap_or_default();
                inner.world.load(read);
                any = true;
            }
        }
        if config_changed && inner.reload_config().await {
            any = true;
        }
        if any {
            inner.schedule_check(vec![]);
        }
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let p = params.text_document_position_params;
        let pos = p.position;
        self.inner
            .on_file(&p.text_document.uri, move |db, ctx| {
                let off = analysis::offset(db, ctx, pos)?;
                Ok(analysis::hover(db, ctx, off))
            })
            .await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let range = params.range;
        let support = EditSupport {
            document_changes: self.inner.caps().document_changes,
        };
        let actions = self
            .inner
            .on_file(&params.text_document.uri, move |db, ctx| {
                let start = analysis::offset(db, ctx, range.start)?;
                // A selection may end just past the last line (whole-file selections).
                let end = analysis::offset(db, ctx, range.end)
                    .unwrap_or_else(|_| analysis::text_len(db, ctx));
                Ok(analysis::code_actions(
                    db,
                    ctx,
                    (start.min(end), end.max(start)),
                    support,
                ))
            })
            .await?;
        let only = params.context.only;
        let actions: Vec<CodeActionOrCommand> = actions
            .into_iter()
            .filter(|a| match a {
                CodeActionOrCommand::CodeAction(a) => kind_allowed(a.kind.as_ref(), &only),
                CodeActionOrCommand::Command(_) => only.is_none(),
            })
            .collect();
        Ok(Some(actions))
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        let leaks_only = match params.command.as_str() {
            PROVE_COMMAND => false,
            TRACE_COMMAND => true,
            other => {
                return Err(Error::invalid_params(format!("unknown command `{other}`")));
            }
        };
        let (uri, pos) = command_target(&params.arguments)?;
        let (json, lines) = self.inner.prove_at(&uri, pos, leaks_only).await?;
        let typ = if lines.iter().any(|(v, _)| *v == VerdictKind::Leak) {
            MessageType::WARNING
        } else {
            MessageType::INFO
        };
        let text = if lines.is_empty() {
            if leaks_only {
                "reductio: no leak here".to_string()
            } else {
                "reductio: no leak probe here (probes sit on pointer assignments, allocations, \
                 frees, returns and block ends)"
                    .to_string()
            }
        } else {
            let body: Vec<String> = lines.into_iter().map(|(_, l)| l).collect();
            format!("reductio: {}", body.join("\n"))
        };
        self.inner.client.show_message(typ, text).await;
        Ok(Some(json))
    }
}

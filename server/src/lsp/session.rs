//! The server's shared state ([`Session`]): the client connection, the [`World`] (database and
//! documents), the analysis thread pool, what `initialize` negotiated, the workspace folders and
//! the settings in force. Handlers, the background checker and the workspace indexer all work
//! on one `Arc<Session>`.

use super::analysis::Checked;
use super::settings::ClientSettings;
use super::world::World;
use crate::config::Config;
use crate::db::Database;
use crate::syntax::PositionEncoding;
use dashmap::{DashMap, DashSet};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;
use tower_lsp_server::Client;
use tower_lsp_server::ls_types::{Diagnostic, Uri};

/// How long the server waits for the client's reply to one of its own requests
/// (`workspace/configuration`, `window/workDoneProgress/create`, `client/registerCapability`):
/// a client that never answers must not hold up a handler or a check forever.
pub(super) const CLIENT_REPLY_LIMIT: Duration = Duration::from_secs(10);

/// What the client can do, from `initialize`.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ClientCaps {
    pub(super) progress: bool,
    pub(super) watch_registration: bool,
    pub(super) configuration_pull: bool,
    pub(super) document_changes: bool,
}

#[derive(Default)]
pub(super) struct SettingsState {
    pub(super) client: ClientSettings,
    /// The configuration in force (also in the database; cached here so that hot paths do
    /// not take the database lock).
    pub(super) config: Config,
    /// `exclude` compiled against each workspace folder.
    pub(super) exclude: Vec<ignore::overrides::Override>,
}

/// The version and diagnostics last published for a document.
pub(super) type Published = (Option<i32>, Vec<Diagnostic>);

pub(crate) struct Session {
    pub(super) client: Client,
    pub(crate) world: Arc<World>,
    /// Analysis threads: big stacks (the engine and the lowering recurse), off the runtime.
    pub(super) pool: rayon::ThreadPool,
    pub(super) enc: OnceLock<PositionEncoding>,
    pub(super) caps: OnceLock<ClientCaps>,
    pub(super) roots: Mutex<Vec<PathBuf>>,
    pub(super) settings: Mutex<SettingsState>,
    /// A settings error found in `initialize`, shown once the client can receive messages.
    pub(super) init_error: Mutex<Option<String>>,
    /// Each check gets a generation; a newer check supersedes (stops) older ones.
    pub(super) check_gen: AtomicU64,
    /// Per-path edit counters for the `checkOn = "change"` debounce.
    pub(super) edits: DashMap<PathBuf, u64>,
    /// Directories indexed for files outside every workspace folder.
    pub(super) lone_dirs: DashSet<PathBuf>,
    /// The publish lock, and what was last published per URI.
    pub(super) published: tokio::sync::Mutex<HashMap<Uri, Published>>,
    pub(super) indexed: tokio::sync::watch::Sender<bool>,
    pub(crate) shutdown: AtomicBool,
    pub(super) progress_tokens: AtomicU64,
    /// The build model's warnings already sent (`build_warnings`): each text once per session.
    pub(super) build_warned: DashSet<String>,
    /// The last check of each open document, for publishing its edited functions first.
    pub(super) checked: DashMap<PathBuf, Arc<Checked>>,
    /// Held while a path is checked as the first file of a check (see `Session::check`).
    pub(super) first_checks: DashMap<PathBuf, Arc<tokio::sync::Mutex<()>>>,
    /// `checkOn = "save"`: the version of each open document that checks may publish (the
    /// one opened, saved, or equal to the file on disk). A typed, unsaved version is not
    /// published, whatever check reaches the document.
    pub(super) publishable: DashMap<PathBuf, i32>,
}

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Session {
    pub(super) fn new(client: Client, db: Database) -> Session {
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
        Session {
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
            build_warned: DashSet::new(),
            checked: DashMap::new(),
            first_checks: DashMap::new(),
            publishable: DashMap::new(),
        }
    }

    pub(super) fn enc(&self) -> PositionEncoding {
        self.enc.get().copied().unwrap_or_default()
    }

    pub(super) fn caps(&self) -> ClientCaps {
        self.caps.get().copied().unwrap_or_default()
    }

    pub(super) fn roots(&self) -> Vec<PathBuf> {
        lock(&self.roots).clone()
    }

    pub(super) fn config(&self) -> Config {
        lock(&self.settings).config.clone()
    }
}

//! The language server (`reductio serve`): tower-lsp-server on tokio, over the salsa database.
//!
//! - `world`: the database (single writer handle), open documents (`dashmap`) and the file set;
//!   every input change goes through it (and the `db` setters) and bumps a revision.
//! - `session`: the state every handler shares (client, world, thread pool, negotiated
//!   capabilities, folders, settings).
//! - `server`: the `LanguageServer` implementation, dispatching to `handlers` (one file per
//!   request or notification group).
//! - `jobs`: analysis jobs on database snapshots off the async runtime (cancellation, panics,
//!   request retries); `background`: background checking and publishing diagnostics.
//! - `workspace`: what the server may read, indexing, `reductio.toml` and the client's
//!   settings, file watchers, start-up; `progress`: `$/progress`; `logging`: stderr logs
//!   and messages to the client.
//! - `analysis`: features computed on a snapshot (diagnostics, hover, code actions, prove),
//!   plain data in and LSP values out, calling only `db` queries; quick fixes come from
//!   [`crate::fix`] as byte-range edits.
//! - `convert`, `settings`: positions/URIs, and the editor's settings; `transport`: the
//!   guard in front of tower-lsp's input framing.
//!
//! The LSP surface is fixed in DESIGN.md ("External interfaces"); README.md lists it.

mod analysis;
mod background;
mod convert;
mod handlers;
mod jobs;
mod logging;
mod progress;
mod server;
mod session;
mod settings;
mod transport;
mod workspace;
mod world;

pub use server::{Backend, ProveParams};
pub use settings::ClientSettings;

use crate::config::Config;
use crate::db::Database;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tower_lsp_server::{ClientSocket, LspService, Server};

/// Server construction options (tests use them; `reductio serve` uses the defaults).
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Record every salsa query execution (see [`Handle::take_execution_log`]).
    pub execution_log: bool,
    /// Fault injection for tests: any query whose log entry (`execute <query>(<key>)`) starts
    /// with this text panics when it runs.
    pub panic_on_query: Option<&'static str>,
}

/// A view into a running server, for tests and for the exit code.
#[derive(Clone)]
pub struct Handle {
    session: Arc<session::Session>,
}

impl Handle {
    /// Query executions since the last call (with [`Options::execution_log`]), as
    /// `execute <query>(<key>)`, plus the database's own `lower <fn>` / `parse <file>` records.
    pub fn take_execution_log(&self) -> Vec<String> {
        self.session.world.take_log()
    }

    /// Whether the client sent `shutdown` (LSP: exit code 0 after `shutdown`, else 1).
    pub fn shut_down_cleanly(&self) -> bool {
        self.session.shutdown.load(Ordering::SeqCst)
    }
}

/// The LSP service with its custom `reductio/prove` method.
pub fn service(options: Options) -> (LspService<Backend>, ClientSocket, Handle) {
    let mut handle = None;
    let (service, socket) = LspService::build(|client| {
        let db = if let Some(prefix) = options.panic_on_query {
            Database::with_execution_hook(Config::default(), move |entry| {
                if entry.starts_with(prefix) {
                    panic!("injected fault in {entry}");
                }
            })
        } else if options.execution_log {
            let db = Database::with_execution_log(Config::default());
            db.enable_log();
            db
        } else {
            Database::new(Config::default())
        };
        let (backend, session) = Backend::new(client, db);
        handle = Some(Handle { session });
        backend
    })
    .custom_method("reductio/prove", Backend::prove)
    .custom_method("reductio/fileSummary", Backend::file_summary)
    .finish();
    let handle = handle.expect("LspService::build calls its init function");
    (service, socket, handle)
}

/// How long handlers still running after `exit` may take before the server stops anyway.
const EXIT_GRACE: Duration = Duration::from_secs(1);
/// The same when the input ends without `exit` (replies may still be read).
const EOF_GRACE: Duration = Duration::from_secs(10);

/// A server on a pair of byte streams: its handle, and the future that serves until `exit`.
/// The input goes through [`transport::sanitize`], so a malformed message cannot end the
/// session.
///
/// tower-lsp's `serve` returns only when every handler has finished, and a handler waiting
/// for the client's reply to a server request (`workspace/configuration`) waits forever once
/// the client has sent `exit` or closed the stream. So the future returns at the latest
/// [`EXIT_GRACE`] after `exit` ([`EOF_GRACE`] after the end of the input), dropping such
/// handlers.
pub fn server<I, O>(input: I, output: O, options: Options) -> (Handle, impl Future<Output = ()>)
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite,
{
    let (service, socket, handle) = service(options);
    let (input, end) = transport::sanitize(input);
    let serving = Server::new(input, output, socket).serve(service);
    let bounded = async move {
        let deadline = async {
            let grace = match end.await {
                Ok(transport::End::Exit) => EXIT_GRACE,
                _ => EOF_GRACE,
            };
            tokio::time::sleep(grace).await;
        };
        tokio::select! {
            () = serving => {}
            () = deadline => {
                tracing::warn!("handlers still running after the end of the session were dropped");
            }
        }
    };
    (handle, bounded)
}

/// `reductio serve`: LSP on stdin/stdout, logs on stderr (`REDUCTIO_LOG=debug` for more).
/// Returns whether the client shut the server down cleanly.
pub async fn serve_stdio() -> bool {
    logging::init_logging();
    tracing::info!(
        "reductio {} language server starting",
        env!("CARGO_PKG_VERSION")
    );
    let (handle, serving) = server(tokio::io::stdin(), tokio::io::stdout(), Options::default());
    serving.await;
    handle.shut_down_cleanly()
}

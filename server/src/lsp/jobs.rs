//! The job runner: analysis runs on the session's thread pool (32 MiB stacks, off the async
//! runtime), each job on its own database snapshot. Salsa cancellation (an edit arrived) and
//! panics come back as [`JobError`]s; nothing a job does can take the server down.

use super::analysis::FileCtx;
use super::convert::uri_to_path;
use super::session::Session;
use super::world::Snapshot;
use crate::db::Database;
use std::panic::AssertUnwindSafe;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::{MessageType, Uri};

/// Requests retry this often when an edit cancels them, then answer `ContentModified`.
const REQUEST_ATTEMPTS: usize = 4;

#[derive(Debug)]
pub(super) enum JobError {
    Cancelled,
    Failed(String),
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}

impl Session {
    /// Runs `job` on a snapshot in the analysis pool. Salsa cancellation and panics come back
    /// as errors; nothing here can take the server down.
    pub(super) async fn run<T: Send + 'static>(
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
    pub(super) async fn on_file<T: Send + 'static>(
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
            let Some((snap, ctx)) = self.world.file_snapshot(&path, self.enc(), self.roots())
            else {
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
}

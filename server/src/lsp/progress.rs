//! `$/progress` for long workspace operations (indexing, checking many files), when the client
//! supports it.

use super::session::{CLIENT_REPLY_LIMIT, Session};
use std::sync::atomic::Ordering;
use tower_lsp_server::ls_types::ProgressToken;
use tower_lsp_server::{Bounded, NotCancellable, OngoingProgress};

/// Indexing and checks of more files than this report `$/progress` (a smaller one is over
/// before a progress bar would mean anything).
pub(super) const PROGRESS_MIN_FILES: usize = 10;

/// A started progress report with a percentage.
pub(super) type Progress = OngoingProgress<Bounded, NotCancellable>;

impl Session {
    /// Starts a progress report, or `None` when the client cannot show one (or does not reply
    /// to `window/workDoneProgress/create` in time).
    pub(super) async fn begin_progress(&self, title: &str, message: String) -> Option<Progress> {
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
}

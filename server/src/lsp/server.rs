//! The `LanguageServer` implementation: [`Backend`] holds the shared
//! [`Session`](super::session::Session) and dispatches each request and notification to its
//! handler in [`super::handlers`].
//!
//! Concurrency rules (see also [`super::world`], [`super::jobs`], [`super::background`]):
//! - Notifications that change text apply their edit synchronously, before the handler's first
//!   `.await`, so edits are applied in the order they arrived even though tower-lsp runs
//!   handlers concurrently.
//! - Analysis runs on the `analysis` thread pool (32 MiB stacks, off the async runtime), each
//!   job on its own database snapshot. An edit cancels running jobs (salsa unwinds them at their
//!   next query); a cancelled check retries on the new revision unless a newer check superseded
//!   it, and a request retries a few times before answering `ContentModified`.
//! - Diagnostics are published under one lock, and only when the revision they were computed on
//!   is still the latest: stale results are never published over fresher ones.

use super::handlers::{
    code_action, document_sync, execute_command, file_summary, hover, lifecycle, prove,
    workspace_changes,
};
use super::session::Session;
use crate::db::Database;
use serde_json::Value;
use std::sync::Arc;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

pub use super::handlers::file_summary::FileSummaryParams;
pub use super::handlers::prove::ProveParams;

pub struct Backend {
    session: Arc<Session>,
}

impl Backend {
    pub(crate) fn new(client: Client, db: Database) -> (Backend, Arc<Session>) {
        let session = Arc::new(Session::new(client, db));
        (
            Backend {
                session: session.clone(),
            },
            session,
        )
    }

    /// `reductio/prove {textDocument, position} -> {verdicts: [...]}`.
    pub async fn prove(&self, params: ProveParams) -> Result<Value> {
        prove::prove(&self.session, params).await
    }

    /// `reductio/fileSummary {textDocument} -> {proved, leaks, unproved}`.
    pub async fn file_summary(&self, params: FileSummaryParams) -> Result<Value> {
        file_summary::file_summary(&self.session, params).await
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        lifecycle::initialize(&self.session, params)
    }

    async fn initialized(&self, _: InitializedParams) {
        lifecycle::initialized(&self.session);
    }

    async fn shutdown(&self) -> Result<()> {
        lifecycle::shutdown(&self.session)
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        document_sync::did_open(&self.session, params);
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        document_sync::did_change(&self.session, params).await;
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        document_sync::did_save(&self.session, params);
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        document_sync::did_close(&self.session, params).await;
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        workspace_changes::did_change_configuration(&self.session, params).await;
    }

    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        workspace_changes::did_change_workspace_folders(&self.session, params).await;
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        workspace_changes::did_change_watched_files(&self.session, params).await;
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        hover::hover(&self.session, params).await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        code_action::code_action(&self.session, params).await
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        execute_command::execute_command(&self.session, params).await
    }
}

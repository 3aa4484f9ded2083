//! One handler per LSP request or notification group, each a function of the shared
//! [`Session`](super::session::Session) and the request's parameters. The `LanguageServer`
//! implementation in [`super::server`] only dispatches here.
//!
//! Notifications that change text apply their edit synchronously, before the handler's first
//! `.await`, so edits are applied in the order they arrived even though tower-lsp runs
//! handlers concurrently.

pub(super) mod code_action;
pub(super) mod document_sync;
pub(super) mod execute_command;
pub(super) mod file_summary;
pub(super) mod hover;
pub(super) mod lifecycle;
pub(super) mod prove;
pub(super) mod workspace_changes;

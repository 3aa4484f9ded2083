//! The custom request `reductio/fileSummary {textDocument} -> {proved, leaks, unproved}`: the
//! verdict counts of one file, from the same findings as its diagnostics (and as
//! `reductio check FILE --all`), so an editor's status bar never disagrees with them.

use crate::db::{self, VerdictKind};
use crate::lsp::session::Session;
use serde::Deserialize;
use serde_json::{Value, json};
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::TextDocumentIdentifier;

/// `reductio/fileSummary` parameters.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileSummaryParams {
    pub text_document: TextDocumentIdentifier,
}

/// `reductio/fileSummary {textDocument} -> {proved, leaks, unproved}`.
pub(crate) async fn file_summary(session: &Session, params: FileSummaryParams) -> Result<Value> {
    session
        .on_file(&params.text_document.uri, |d, ctx| {
            let (mut proved, mut leaks, mut unproved) = (0u32, 0u32, 0u32);
            for f in db::file_findings(d, ctx.file).iter() {
                match f.verdict {
                    VerdictKind::Proved => proved += 1,
                    VerdictKind::Leak => leaks += 1,
                    VerdictKind::Unproved => unproved += 1,
                }
            }
            Ok(json!({ "proved": proved, "leaks": leaks, "unproved": unproved }))
        })
        .await
}

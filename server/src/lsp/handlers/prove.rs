//! The custom request `reductio/prove {textDocument, position} -> {verdicts: [...]}`, and the
//! probe lookup it shares with `reductio.proveNoLeak` / `reductio.showLeakTrace`.

use crate::db::VerdictKind;
use crate::lsp::analysis::{self, Hit};
use crate::lsp::session::Session;
use serde::Deserialize;
use serde_json::Value;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{Position, TextDocumentIdentifier, Uri};

/// `reductio/prove` parameters.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProveParams {
    pub text_document: TextDocumentIdentifier,
    pub position: Position,
}

/// `reductio/prove {textDocument, position} -> {verdicts: [...]}`.
pub(crate) async fn prove(session: &Session, params: ProveParams) -> Result<Value> {
    let (json, _) = prove_at(session, &params.text_document.uri, params.position, false).await?;
    Ok(json)
}

/// The verdicts at a position (all probes, or only the leaks), as the JSON answer and as one
/// line of text per verdict.
pub(crate) async fn prove_at(
    session: &Session,
    uri: &Uri,
    pos: Position,
    leaks_only: bool,
) -> Result<(Value, Vec<(VerdictKind, String)>)> {
    session
        .on_file(uri, move |db, ctx| {
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
                        analysis::describe(&h.finding, ctx, false),
                    )
                })
                .collect();
            Ok((analysis::verdicts_json(&hits, ctx), lines))
        })
        .await
}

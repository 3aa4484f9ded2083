//! The custom request `reductio/prove {textDocument, position} -> {verdicts, assigned}`, and the
//! probe lookup it shares with `reductio.proveNoLeak` / `reductio.showLeakTrace`.

use crate::db::VerdictKind;
use crate::lsp::analysis;
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

/// `reductio/prove {textDocument, position} -> {verdicts: [...], assigned: [...]}`.
pub(crate) async fn prove(session: &Session, params: ProveParams) -> Result<Value> {
    let answer = prove_at(session, &params.text_document.uri, params.position, false).await?;
    Ok(answer.json)
}

/// A prove answer: the JSON, the text for `window/showMessage`, and whether it found a leak.
pub(crate) struct ProveAnswer {
    pub json: Value,
    /// `None` when there is nothing at the position.
    pub text: Option<String>,
    pub leak: bool,
}

/// The answer at a position: all probes and the memory assigned there, or (`leaks_only`, for
/// "Show leak trace") only the leaks.
pub(crate) async fn prove_at(
    session: &Session,
    uri: &Uri,
    pos: Position,
    leaks_only: bool,
) -> Result<ProveAnswer> {
    session
        .on_file(uri, move |db, ctx| {
            let off = analysis::offset(db, ctx, pos)?;
            if leaks_only {
                let hits = analysis::leaks_at(db, ctx, off);
                let lines: Vec<String> = hits
                    .iter()
                    .map(|h| analysis::describe(&h.finding, ctx, false))
                    .collect();
                return Ok(ProveAnswer {
                    json: analysis::verdicts_json(&hits, ctx),
                    text: (!lines.is_empty()).then(|| lines.join("\n")),
                    leak: !hits.is_empty(),
                });
            }
            let hits = analysis::probes_at(db, ctx.file, off, true);
            let assigned = analysis::assigned_at(db, ctx.file, off, true);
            let leak = hits.iter().any(|h| h.finding.verdict == VerdictKind::Leak)
                || assigned.iter().any(|a| a.verdict == VerdictKind::Leak);
            Ok(ProveAnswer {
                json: analysis::prove_json(&hits, &assigned, ctx),
                text: analysis::prove_text(&hits, &assigned, ctx, false),
                leak,
            })
        })
        .await
}

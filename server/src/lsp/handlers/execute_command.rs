//! `workspace/executeCommand`: `reductio.proveNoLeak` and `reductio.showLeakTrace` with
//! `[uri, position]`; the verdicts go to `window/showMessage`, the JSON answer back.

use super::prove::prove_at;
use crate::lsp::analysis::{PROVE_COMMAND, TRACE_COMMAND};
use crate::lsp::session::Session;
use serde_json::Value;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::{ExecuteCommandParams, LSPAny, MessageType, Position, Uri};

pub(crate) async fn execute_command(
    session: &Session,
    params: ExecuteCommandParams,
) -> Result<Option<LSPAny>> {
    let leaks_only = match params.command.as_str() {
        PROVE_COMMAND => false,
        TRACE_COMMAND => true,
        other => {
            return Err(Error::invalid_params(format!("unknown command `{other}`")));
        }
    };
    let (uri, pos) = command_target(&params.arguments)?;
    let answer = prove_at(session, &uri, pos, leaks_only).await?;
    let typ = if answer.leak {
        MessageType::WARNING
    } else {
        MessageType::INFO
    };
    let text = match answer.text {
        Some(t) => format!("reductio: {t}"),
        None if leaks_only => "reductio: no leak here".to_string(),
        None => "reductio: no leak probe and no assignment here (probes sit on pointer \
                 assignments, allocations, frees, returns and block ends)"
            .to_string(),
    };
    session.client.show_message(typ, text).await;
    Ok(Some(answer.json))
}

/// `[uri, position]` (or `[{textDocument, position}]`) as `reductio.proveNoLeak` takes them.
fn command_target(args: &[Value]) -> Result<(Uri, Position)> {
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

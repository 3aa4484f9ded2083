//! `textDocument/codeAction`: quick fixes, "Suppress this leak report" (a `reductio-ignore`
//! comment, `suppress::comment_edit`) and "Show leak trace" for the leaks in the range,
//! "Prove no leak here" anywhere in a function; filtered by the client's `only` kinds.

use crate::lsp::analysis::{self, EditSupport};
use crate::lsp::session::Session;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{
    CodeActionKind, CodeActionOrCommand, CodeActionParams, CodeActionResponse,
};

pub(crate) async fn code_action(
    session: &Session,
    params: CodeActionParams,
) -> Result<Option<CodeActionResponse>> {
    let range = params.range;
    let support = EditSupport {
        document_changes: session.caps().document_changes,
    };
    let actions = session
        .on_file(&params.text_document.uri, move |db, ctx| {
            let start = analysis::offset(db, ctx, range.start)?;
            // A selection may end just past the last line (whole-file selections).
            let end = analysis::offset(db, ctx, range.end)
                .unwrap_or_else(|_| analysis::text_len(db, ctx));
            Ok(analysis::code_actions(
                db,
                ctx,
                (start.min(end), end.max(start)),
                support,
            ))
        })
        .await?;
    let only = params.context.only;
    let actions: Vec<CodeActionOrCommand> = actions
        .into_iter()
        .filter(|a| match a {
            CodeActionOrCommand::CodeAction(a) => kind_allowed(a.kind.as_ref(), &only),
            CodeActionOrCommand::Command(_) => only.is_none(),
        })
        .collect();
    Ok(Some(actions))
}

fn kind_allowed(kind: Option<&CodeActionKind>, only: &Option<Vec<CodeActionKind>>) -> bool {
    let Some(only) = only else {
        return true;
    };
    let k = kind.map(|k| k.as_str()).unwrap_or("");
    only.iter().any(|o| {
        let o = o.as_str();
        o.is_empty() || k == o || k.starts_with(&format!("{o}."))
    })
}

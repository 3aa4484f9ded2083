//! `textDocument/hover`: the verdicts of the probes under the cursor.

use crate::lsp::analysis;
use crate::lsp::session::Session;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{Hover, HoverParams};

pub(crate) async fn hover(session: &Session, params: HoverParams) -> Result<Option<Hover>> {
    let p = params.text_document_position_params;
    let pos = p.position;
    session
        .on_file(&p.text_document.uri, move |db, ctx| {
            let off = analysis::offset(db, ctx, pos)?;
            Ok(analysis::hover(db, ctx, off))
        })
        .await
}

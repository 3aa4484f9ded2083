//! Text document sync: `didOpen`, `didChange`, `didSave`, `didClose`. Each applies its change
//! to the [`World`](crate::lsp::world::World) before its first `.await` (edits keep their
//! order), then schedules a background check.

use crate::config::CheckOn;
use crate::lsp::convert::uri_to_path;
use crate::lsp::session::Session;
use crate::syntax::{Position, TextChange};
use std::sync::Arc;
use tower_lsp_server::ls_types::*;

pub(crate) fn did_open(session: &Arc<Session>, params: DidOpenTextDocumentParams) {
    let doc = params.text_document;
    let path = session.world.open(doc.uri, doc.version, doc.text);
    let session = session.clone();
    tokio::spawn(async move {
        session.index_lone_file(&path).await;
        session.schedule_check(vec![path]);
    });
}

pub(crate) async fn did_change(session: &Arc<Session>, params: DidChangeTextDocumentParams) {
    let uri = params.text_document.uri;
    let changes = to_changes(params.content_changes);
    // Applied before any `.await`: edits keep their order.
    match session
        .world
        .change(&uri, params.text_document.version, &changes, session.enc())
    {
        Ok(path) => {
            if session.config().check_on == CheckOn::Change {
                session.check_on_change(path);
            }
        }
        Err(e) => {
            session
                .log(
                    MessageType::ERROR,
                    format!("didChange {}: {e}; the edit was ignored", uri.as_str()),
                )
                .await;
        }
    }
}

pub(crate) fn did_save(session: &Arc<Session>, params: DidSaveTextDocumentParams) {
    let path = uri_to_path(&params.text_document.uri);
    if session.world.files.contains_key(&path) {
        session.schedule_check(vec![path]);
    }
}

pub(crate) async fn did_close(session: &Arc<Session>, params: DidCloseTextDocumentParams) {
    let uri = params.text_document.uri;
    // The disk text is read again only if the path still leads inside the workspace (a
    // file replaced by a symbolic link to elsewhere leaves it instead).
    let (_, kept) = session.world.close(&uri, |p| session.may_read(p));
    if !kept {
        session.clear_diagnostics(&uri).await;
    }
    session.schedule_check(vec![]);
}

fn to_changes(changes: Vec<TextDocumentContentChangeEvent>) -> Vec<TextChange> {
    changes
        .into_iter()
        .map(|c| TextChange {
            range: c.range.map(|r| {
                (
                    Position::new(r.start.line, r.start.character),
                    Position::new(r.end.line, r.end.character),
                )
            }),
            text: c.text,
        })
        .collect()
}

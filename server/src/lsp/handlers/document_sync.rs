//! Text document sync: `didOpen`, `didChange`, `didSave`, `didClose`. Each applies its change
//! to the [`World`](crate::lsp::world::World) before its first `.await` (edits keep their
//! order), then schedules a background check.

use crate::config::CheckOn;
use crate::lsp::convert::uri_to_path;
use crate::lsp::session::Session;
use crate::syntax::{Position, TextChange};
use std::path::PathBuf;
use std::sync::Arc;
use tower_lsp_server::ls_types::*;

pub(crate) fn did_open(session: &Arc<Session>, params: DidOpenTextDocumentParams) {
    let doc = params.text_document;
    let path = session.world.open(doc.uri, doc.version, doc.text);
    session.publishable.insert(path.clone(), doc.version);
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
        Ok(path) => match session.config().check_on {
            CheckOn::Change => session.check_on_change(path),
            CheckOn::Save => {
                check_if_equal_to_disk(session, path.clone(), params.text_document.version);
                session.warm_on_change(path);
            }
        },
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

/// `checkOn = "save"`: an edit that leaves the document equal to its file on disk is the
/// client reloading a file changed outside the editor (a `git checkout`: editors reload an
/// unmodified buffer and send the new text as `didChange`), or an undo back to the saved text.
/// Either way what the user sees is the saved file, so it is checked now, as a save would be.
/// Costs a `stat` per edit; the file is read only when its length matches the document's.
fn check_if_equal_to_disk(session: &Arc<Session>, path: PathBuf, version: i32) {
    let Some(len) = session.world.docs.get(&path).map(|d| d.doc.text().len()) else {
        return;
    };
    let session = session.clone();
    tokio::spawn(async move {
        // Only files the server may read: inside the workspace folders (or a lone file's
        // directory), symbolic links resolved.
        if !session.may_read(&path) {
            return;
        }
        let p = path.clone();
        let disk = tokio::task::spawn_blocking(move || {
            let meta = std::fs::metadata(&p).ok()?;
            (meta.is_file() && meta.len() == len as u64)
                .then(|| std::fs::read(&p).ok())
                .flatten()
        })
        .await
        .ok()
        .flatten();
        let Some(disk) = disk else { return };
        let same =
            session.world.docs.get(&path).is_some_and(|d| {
                d.version == version && d.doc.text().as_bytes() == disk.as_slice()
            });
        if same {
            session.publishable.insert(path.clone(), version);
            session.schedule_check(vec![path]);
        }
    });
}

pub(crate) fn did_save(session: &Arc<Session>, params: DidSaveTextDocumentParams) {
    let path = uri_to_path(&params.text_document.uri);
    if let Some(d) = session.world.docs.get(&path) {
        session.publishable.insert(path.clone(), d.version);
    }
    if session.world.files.contains_key(&path) {
        session.schedule_check(vec![path]);
    }
}

pub(crate) async fn did_close(session: &Arc<Session>, params: DidCloseTextDocumentParams) {
    let uri = params.text_document.uri;
    // The disk text is read again only if the path still leads inside the workspace (a
    // file replaced by a symbolic link to elsewhere leaves it instead).
    let (path, kept) = session.world.close(&uri, |p| session.may_read(p));
    session.checked.remove(&path);
    session.publishable.remove(&path);
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

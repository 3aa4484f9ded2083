//! Workspace notifications: `didChangeConfiguration` (pulling `workspace/configuration` when
//! the notification carries no settings), `didChangeWorkspaceFolders` and
//! `didChangeWatchedFiles`.

use crate::files::is_c_file;
use crate::lsp::convert::uri_to_path;
use crate::lsp::session::{CLIENT_REPLY_LIMIT, Session, lock};
use crate::lsp::workspace::{read_files, within};
use std::path::PathBuf;
use std::sync::Arc;
use tower_lsp_server::ls_types::*;

pub(crate) async fn did_change_configuration(
    session: &Arc<Session>,
    params: DidChangeConfigurationParams,
) {
    let mut settings = params.settings;
    let empty = settings.is_null() || settings.as_object().is_some_and(|o| o.is_empty());
    if empty && session.caps().configuration_pull {
        let item = ConfigurationItem {
            scope_uri: None,
            section: Some("reductio".into()),
        };
        let pulled =
            tokio::time::timeout(CLIENT_REPLY_LIMIT, session.client.configuration(vec![item]))
                .await;
        if let Ok(Ok(mut v)) = pulled
            && !v.is_empty()
        {
            settings = v.swap_remove(0);
        }
    }
    if session.set_client_settings(&settings).await && session.reload_config().await {
        session.schedule_check(vec![]);
    }
}

pub(crate) async fn did_change_workspace_folders(
    session: &Arc<Session>,
    params: DidChangeWorkspaceFoldersParams,
) {
    let added: Vec<PathBuf> = params
        .event
        .added
        .iter()
        .map(|f| uri_to_path(&f.uri))
        .filter(|p| p.is_absolute())
        .collect();
    let removed: Vec<PathBuf> = params
        .event
        .removed
        .iter()
        .map(|f| uri_to_path(&f.uri))
        .collect();
    {
        let mut roots = lock(&session.roots);
        roots.retain(|r| !removed.contains(r));
        for a in &added {
            if !roots.contains(a) {
                roots.push(a.clone());
            }
        }
    }
    session.reload_config().await;
    session.reindex().await;
    session.schedule_check(vec![]);
}

pub(crate) async fn did_change_watched_files(
    session: &Arc<Session>,
    params: DidChangeWatchedFilesParams,
) {
    let mut config_changed = false;
    let mut any = false;
    // The files that changed are checked first, then the open documents and the rest.
    let mut changed = Vec::new();
    for event in params.changes {
        let path = uri_to_path(&event.uri);
        if path.file_name().is_some_and(|n| n == "reductio.toml") {
            config_changed = true;
            continue;
        }
        if !is_c_file(&path) || session.world.docs.contains_key(&path) {
            continue; // an open document's text comes from the editor
        }
        if event.typ == FileChangeType::DELETED {
            if session.world.remove(&path) {
                session.clear_diagnostics(&event.uri).await;
                any = true;
            }
            continue;
        }
        let known = session.world.files.contains_key(&path);
        // With `..` and symbolic links resolved: a watched-file event is no way out of
        // the workspace folders (or the directories of documents opened outside them).
        let in_root = within(&path, &session.roots());
        if (in_root || (known && session.may_read(&path))) && !session.excluded(&path) {
            let p = path.clone();
            let read = tokio::task::spawn_blocking(move || read_files(vec![p]))
                .await
                .unwrap_or_default();
            session.world.load(read);
            changed.push(path);
            any = true;
        }
    }
    if config_changed && session.reload_config().await {
        any = true;
    }
    if any {
        session.schedule_check(changed);
    }
}

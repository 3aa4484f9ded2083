//! `initialize` (capabilities, position encoding, workspace folders, initialization options),
//! `initialized` (start-up in the background) and `shutdown`.

use crate::lsp::analysis::{PROVE_COMMAND, TRACE_COMMAND};
use crate::lsp::convert::{self, uri_to_path};
use crate::lsp::session::{ClientCaps, Session, lock};
use crate::lsp::settings::ClientSettings;
use crate::syntax::PositionEncoding;
use serde_json::json;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

pub(crate) fn initialize(session: &Session, params: InitializeParams) -> Result<InitializeResult> {
    let caps = &params.capabilities;
    let utf8 = caps
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_ref())
        .is_some_and(|v| v.contains(&PositionEncodingKind::UTF8));
    let enc = if utf8 {
        PositionEncoding::Utf8
    } else {
        PositionEncoding::Utf16
    };
    let _ = session.enc.set(enc);
    let ws = caps.workspace.as_ref();
    let _ = session.caps.set(ClientCaps {
        progress: caps
            .window
            .as_ref()
            .and_then(|w| w.work_done_progress)
            .unwrap_or(false),
        watch_registration: ws
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|d| d.dynamic_registration)
            .unwrap_or(false),
        configuration_pull: ws.and_then(|w| w.configuration).unwrap_or(false),
        document_changes: ws
            .and_then(|w| w.workspace_edit.as_ref())
            .and_then(|e| e.document_changes)
            .unwrap_or(false),
    });
    #[allow(deprecated)] // root_uri: clients without workspace folders still send it
    let roots: Vec<PathBuf> = match (&params.workspace_folders, &params.root_uri) {
        (Some(folders), _) if !folders.is_empty() => {
            folders.iter().map(|f| uri_to_path(&f.uri)).collect()
        }
        (_, Some(root)) => vec![uri_to_path(root)],
        _ => vec![],
    };
    *lock(&session.roots) = roots.into_iter().filter(|r| r.is_absolute()).collect();
    if let Some(opts) = &params.initialization_options
        && let Err(e) = ClientSettings::from_json(opts).map(|s| lock(&session.settings).client = s)
    {
        *lock(&session.init_error) = Some(e);
    }
    Ok(InitializeResult {
        capabilities: ServerCapabilities {
            position_encoding: Some(convert::encoding_kind(enc)),
            text_document_sync: Some(TextDocumentSyncCapability::Options(
                TextDocumentSyncOptions {
                    open_close: Some(true),
                    change: Some(TextDocumentSyncKind::INCREMENTAL),
                    save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                        include_text: Some(false),
                    })),
                    ..Default::default()
                },
            )),
            hover_provider: Some(HoverProviderCapability::Simple(true)),
            code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
                code_action_kinds: Some(vec![CodeActionKind::QUICKFIX, CodeActionKind::EMPTY]),
                resolve_provider: Some(false),
                ..Default::default()
            })),
            execute_command_provider: Some(ExecuteCommandOptions {
                commands: vec![PROVE_COMMAND.into(), TRACE_COMMAND.into()],
                ..Default::default()
            }),
            workspace: Some(WorkspaceServerCapabilities {
                workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                    supported: Some(true),
                    change_notifications: Some(OneOf::Left(true)),
                }),
                file_operations: None,
            }),
            experimental: Some(json!({
                "proveRequest": "reductio/prove",
                "fileSummaryRequest": "reductio/fileSummary",
            })),
            ..Default::default()
        },
        server_info: Some(ServerInfo {
            name: "reductio".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
        offset_encoding: None,
    })
}

/// Start-up (watchers, configuration, indexing, the first check) runs in the background.
pub(crate) fn initialized(session: &Arc<Session>) {
    tokio::spawn(session.clone().startup());
}

pub(crate) fn shutdown(session: &Session) -> Result<()> {
    session.shutdown.store(true, Ordering::SeqCst);
    session.supersede_checks();
    Ok(())
}

//! A small LSP client driving an in-process server ([`crate::lsp::server`]) over in-memory
//! pipes, with the server's real transport (framing, routing, concurrent handlers). It answers
//! the server's own requests like an accommodating editor and keeps every notification (and
//! server request) it receives. Used by `tests/lsp.rs`, `tests/security.rs`, `tests/stress.rs`
//! and the `lsp_session` fuzz target.
//!
//! Start it inside a multi-threaded tokio runtime.

use super::framing::{read_message, write_message};
use crate::lsp::{self, Handle, Options};
use crate::syntax::{LineIndex, PositionEncoding};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::io::{AsyncWriteExt, BufReader, DuplexStream, WriteHalf};

/// How long a request may take before the session counts as hung.
pub const REPLY_LIMIT: Duration = Duration::from_secs(20);

type Pending = Arc<Mutex<HashMap<i64, tokio::sync::oneshot::Sender<Value>>>>;
type Writer = Arc<tokio::sync::Mutex<WriteHalf<DuplexStream>>>;

/// What a session found wrong in the server's replies (besides panics).
#[derive(Debug, Default)]
pub struct SessionReport {
    pub requests: usize,
    /// Replies with the JSON-RPC `InternalError` code: a handler panicked or failed.
    pub internal_errors: Vec<String>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A `file:` URI for an absolute path.
pub fn file_uri(path: &Path) -> String {
    tower_lsp_server::ls_types::Uri::from_file_path(path)
        .map(|u| u.as_str().to_string())
        .unwrap_or_else(|| format!("file://{}", path.display()))
}

pub struct Client {
    writer: Writer,
    pending: Pending,
    next_id: AtomicI64,
    /// Every notification and server request received, in order.
    inbox: Arc<Mutex<Vec<Value>>>,
    arrived: Arc<tokio::sync::Notify>,
    /// Whether the server's own requests get a reply (an editor that has gone does not reply).
    answering: Arc<AtomicBool>,
    /// What `workspace/configuration` answers (one item).
    configuration: Arc<Mutex<Value>>,
    server: tokio::task::JoinHandle<()>,
    reader: tokio::task::JoinHandle<()>,
    report: Mutex<SessionReport>,
    pub handle: Handle,
    /// The position encoding the server chose in `initialize` (UTF-16 until then).
    pub encoding: PositionEncoding,
}

impl Client {
    /// Starts a server (call inside the runtime).
    pub fn start(options: Options) -> Client {
        let (client_end, server_end) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_end);
        let (client_read, client_write) = tokio::io::split(client_end);
        let (handle, serving) = lsp::server(server_read, server_write, options);
        let server = tokio::spawn(serving);
        let writer: Writer = Arc::new(tokio::sync::Mutex::new(client_write));
        let pending: Pending = Arc::default();
        let inbox: Arc<Mutex<Vec<Value>>> = Arc::default();
        let arrived = Arc::new(tokio::sync::Notify::new());
        let answering = Arc::new(AtomicBool::new(true));
        let configuration = Arc::new(Mutex::new(Value::Null));
        let reader = {
            let (writer, pending, inbox, arrived, answering, configuration) = (
                writer.clone(),
                pending.clone(),
                inbox.clone(),
                arrived.clone(),
                answering.clone(),
                configuration.clone(),
            );
            tokio::spawn(async move {
                let mut r = BufReader::new(client_read);
                while let Some(msg) = read_message(&mut r).await {
                    let method = msg.get("method").and_then(Value::as_str).map(String::from);
                    match (method, msg.get("id").cloned()) {
                        (None, Some(id)) => {
                            let tx = id.as_i64().and_then(|id| lock(&pending).remove(&id));
                            if let Some(tx) = tx {
                                let _ = tx.send(msg);
                            }
                        }
                        (Some(method), Some(id)) => {
                            lock(&inbox).push(msg.clone());
                            if !answering.load(Ordering::SeqCst) {
                                arrived.notify_waiters();
                                continue;
                            }
                            // A request from the server: answer like an accommodating editor.
                            let result = match method.as_str() {
                                "workspace/configuration" => json!([lock(&configuration).clone()]),
                                "workspace/applyEdit" => json!({"applied": true}),
                                _ => Value::Null,
                            };
                            let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
                            let _ = write_message(&mut *writer.lock().await, &reply).await;
                        }
                        (Some(_), None) => lock(&inbox).push(msg),
                        (None, None) => {}
                    }
                    arrived.notify_waiters();
                }
            })
        };
        Client {
            writer,
            pending,
            next_id: AtomicI64::new(1),
            inbox,
            arrived,
            answering,
            configuration,
            server,
            reader,
            report: Mutex::default(),
            handle,
            encoding: PositionEncoding::Utf16,
        }
    }

    /// `initialize` (with `root` as the only workspace folder) and `initialized`; returns the
    /// `initialize` result (`null` if it failed). `utf8` offers UTF-8 positions.
    pub async fn initialize(&mut self, root: Option<&Path>, utf8: bool, options: Value) -> Value {
        let mut caps = json!({
            "window": {"workDoneProgress": true},
            "workspace": {
                "configuration": true,
                "didChangeWatchedFiles": {"dynamicRegistration": true},
                "workspaceEdit": {"documentChanges": true}
            }
        });
        if utf8 {
            caps["general"] = json!({"positionEncodings": ["utf-8", "utf-16"]});
        }
        let folders = match root {
            Some(r) => json!([{"uri": file_uri(r), "name": "ws"}]),
            None => Value::Null,
        };
        let reply = self
            .request(
                "initialize",
                json!({"processId": null, "rootUri": null, "capabilities": caps,
                       "workspaceFolders": folders, "initializationOptions": options}),
            )
            .await;
        let result = reply.map(|r| r["result"].clone()).unwrap_or(Value::Null);
        self.encoding = match result["capabilities"]["positionEncoding"].as_str() {
            Some("utf-8") => PositionEncoding::Utf8,
            _ => PositionEncoding::Utf16,
        };
        self.notify("initialized", json!({})).await;
        result
    }

    /// Whether to answer the server's requests from now on (the default is to answer).
    pub fn answer_server_requests(&self, on: bool) {
        self.answering.store(on, Ordering::SeqCst);
    }

    /// What `workspace/configuration` answers from now on (`null` until set).
    pub fn set_configuration(&self, settings: Value) {
        *lock(&self.configuration) = settings;
    }

    pub async fn notify(&self, method: &str, params: Value) {
        let msg = json!({"jsonrpc": "2.0", "method": method, "params": params});
        let _ = write_message(&mut *self.writer.lock().await, &msg).await;
    }

    /// Writes raw bytes to the server's input.
    pub async fn raw(&self, bytes: &[u8]) {
        let mut w = self.writer.lock().await;
        let _ = w.write_all(bytes).await;
        let _ = w.flush().await;
    }

    /// Sends a request and waits for the whole reply (`None` if the server went away).
    /// Panics when no reply comes within [`REPLY_LIMIT`]; records internal errors.
    pub async fn request(&self, method: &str, params: Value) -> Option<Value> {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = tokio::sync::oneshot::channel();
        lock(&self.pending).insert(id, tx);
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let _ = write_message(&mut *self.writer.lock().await, &msg).await;
        lock(&self.report).requests += 1;
        let reply = match tokio::time::timeout(REPLY_LIMIT, rx).await {
            Ok(reply) => reply.ok(),
            Err(_) => panic!("no reply to `{method}` within {REPLY_LIMIT:?}"),
        };
        if let Some(err) = reply.as_ref().and_then(|r| r.get("error")) {
            // -32603 is InternalError: a handler panicked or failed unexpectedly.
            if err["code"] == -32603 {
                lock(&self.report)
                    .internal_errors
                    .push(format!("{method}: {}", err["message"]));
            }
        }
        reply
    }

    /// [`Client::request`], answered: `Ok(result)` or `Err(error object)`. Panics if the server
    /// went away.
    pub async fn call(&self, method: &str, params: Value) -> Result<Value, Value> {
        let reply = self
            .request(method, params)
            .await
            .unwrap_or_else(|| panic!("the server went away during `{method}`"));
        match reply.get("error") {
            Some(e) => Err(e.clone()),
            None => Ok(reply.get("result").cloned().unwrap_or(Value::Null)),
        }
    }

    /// Notifications (and requests from the server) received so far with this method.
    pub fn notifications(&self, method: &str) -> Vec<Value> {
        lock(&self.inbox)
            .iter()
            .filter(|m| m["method"] == method)
            .cloned()
            .collect()
    }

    /// Waits until a received message satisfies `pred`; returns the latest that does, or
    /// `None` after `limit`.
    pub async fn wait_for(&self, limit: Duration, pred: impl Fn(&Value) -> bool) -> Option<Value> {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let notified = self.arrived.notified();
            if let Some(v) = lock(&self.inbox).iter().rev().find(|m| pred(m)).cloned() {
                return Some(v);
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return None;
            }
        }
    }

    /// Waits (up to [`REPLY_LIMIT`]) until some received message satisfies `pred`; returns the
    /// first that does. Panics with everything received when none comes.
    pub async fn expect_message(&self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + REPLY_LIMIT;
        loop {
            let notified = self.arrived.notified();
            if let Some(m) = lock(&self.inbox).iter().find(|m| pred(m)) {
                return m.clone();
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                panic!(
                    "timed out waiting for {what}; received:\n{:#}",
                    json!(*lock(&self.inbox))
                );
            }
        }
    }

    /// `textDocument/didOpen` of a C document at version 1.
    pub async fn open(&self, path: &Path, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": file_uri(path), "languageId": "c", "version": 1, "text": text}}),
        )
        .await;
    }

    /// `textDocument/didChange` with `changes` (an array of content changes).
    pub async fn change(&self, path: &Path, version: i32, changes: Value) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": file_uri(path), "version": version}, "contentChanges": changes}),
        )
        .await;
    }

    pub async fn save(&self, path: &Path) {
        self.notify(
            "textDocument/didSave",
            json!({"textDocument": {"uri": file_uri(path)}}),
        )
        .await;
    }

    /// Every `publishDiagnostics` for `path`, oldest first.
    pub fn published(&self, path: &Path) -> Vec<Value> {
        let u = file_uri(path);
        self.notifications("textDocument/publishDiagnostics")
            .into_iter()
            .map(|m| m["params"].clone())
            .filter(|p| p["uri"] == u)
            .collect()
    }

    /// Waits (up to [`REPLY_LIMIT`]) until the latest diagnostics published for `path` satisfy
    /// `pred`; panics otherwise.
    pub async fn diagnostics_where(&self, path: &Path, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + REPLY_LIMIT;
        loop {
            let notified = self.arrived.notified();
            if let Some(last) = self.published(path).last()
                && pred(last)
            {
                return last.clone();
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                panic!(
                    "timed out waiting for diagnostics of {}; published: {:#}",
                    path.display(),
                    json!(self.published(path))
                );
            }
        }
    }

    /// The diagnostics published for `path` at `version` (waiting for them).
    pub async fn diagnostics_for_version(&self, path: &Path, version: i64) -> Vec<Value> {
        let p = self
            .diagnostics_where(path, |p| p["version"].as_i64() == Some(version))
            .await;
        p["diagnostics"].as_array().cloned().unwrap_or_default()
    }

    /// A position in the server's encoding, of the first occurrence of `needle` (+ `delta`
    /// bytes) in `text`.
    pub fn pos(&self, text: &str, needle: &str, delta: usize) -> Value {
        let off = text
            .find(needle)
            .unwrap_or_else(|| panic!("`{needle}` not found"))
            + delta;
        let idx = LineIndex::new(text);
        let p = idx.position(text, off as u32, self.encoding);
        json!({"line": p.line, "character": p.character})
    }

    /// `shutdown` + `exit`; panics if the server does not stop within [`REPLY_LIMIT`].
    pub async fn shutdown(mut self) -> SessionReport {
        self.request("shutdown", Value::Null).await;
        self.notify("exit", Value::Null).await;
        if tokio::time::timeout(REPLY_LIMIT, &mut self.server)
            .await
            .is_err()
        {
            panic!("the server did not exit after shutdown + exit");
        }
        self.reader.abort();
        std::mem::take(&mut *lock(&self.report))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_keep_the_path_as_written() {
        assert_eq!(file_uri(Path::new("/tmp/ws/a.c")), "file:///tmp/ws/a.c");
        // `..` stays (the server must resolve it itself); a space is percent-encoded.
        assert_eq!(
            file_uri(Path::new("/tmp/ws/../out side.c")),
            "file:///tmp/ws/../out%20side.c"
        );
    }
}

//! An LSP client driving `reductio serve` as a child process over its stdin/stdout, the way an
//! editor does (the latency benchmarks use it). A reader thread timestamps every message as it
//! arrives, answers the server's own requests (`workspace/configuration` with `null` settings,
//! everything else with `null`) and hands responses and notifications to the caller in order.

use reductio::testing::framing::{read_message_blocking, write_message_blocking};
use serde_json::{Value, json};
use std::io::BufReader;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

/// The server's output ended (it exited or closed stdout).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Closed;

pub struct StdioClient {
    pub child: Child,
    stdin: Arc<Mutex<ChildStdin>>,
    rx: Receiver<(Instant, Value)>,
    next_id: i64,
}

fn send(stdin: &Mutex<ChildStdin>, msg: &Value) {
    let mut w = stdin.lock().unwrap_or_else(PoisonError::into_inner);
    // A write error means the server is gone; the reader sees it and reports `Closed`.
    let _ = write_message_blocking(&mut *w, msg);
}

impl StdioClient {
    /// Starts `server serve` with `REDUCTIO_LOG=log_level` (its log goes to this process's
    /// stderr).
    pub fn spawn(server: &Path, log_level: &str) -> std::io::Result<StdioClient> {
        let mut child = Command::new(server)
            .arg("serve")
            .env("REDUCTIO_LOG", log_level)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let stdin = Arc::new(Mutex::new(child.stdin.take().expect("piped stdin")));
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = channel();
        let replies = stdin.clone();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(msg) = read_message_blocking(&mut r) {
                let now = Instant::now();
                let method = msg.get("method").and_then(Value::as_str);
                if let (Some(m), Some(id)) = (method, msg.get("id")) {
                    // Requests from the server: progress tokens, registrations, configuration.
                    let result = match m {
                        "workspace/configuration" => {
                            let n = msg["params"]["items"].as_array().map_or(1, Vec::len);
                            Value::Array(vec![Value::Null; n])
                        }
                        _ => Value::Null,
                    };
                    send(
                        &replies,
                        &json!({"jsonrpc": "2.0", "id": id, "result": result}),
                    );
                    continue;
                }
                if tx.send((now, msg)).is_err() {
                    return;
                }
            }
            // Dropping `tx` tells the receiver the output is over.
        });
        Ok(StdioClient {
            child,
            stdin,
            rx,
            next_id: 1,
        })
    }

    pub fn notify(&self, method: &str, params: Value) {
        send(
            &self.stdin,
            &json!({"jsonrpc": "2.0", "method": method, "params": params}),
        );
    }

    /// Sends a request; returns its id and when it was sent.
    pub fn send_request(&mut self, method: &str, params: Value) -> (i64, Instant) {
        let id = self.next_id;
        self.next_id += 1;
        let at = Instant::now();
        send(
            &self.stdin,
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        );
        (id, at)
    }

    /// The next response or notification with the time it arrived; `Ok(None)` when nothing
    /// came before `deadline`.
    pub fn next_message(&self, deadline: Instant) -> Result<Option<(Instant, Value)>, Closed> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.rx.recv_timeout(left) {
            Ok(m) => Ok(Some(m)),
            Err(RecvTimeoutError::Timeout) => Ok(None),
            Err(RecvTimeoutError::Disconnected) => Err(Closed),
        }
    }

    /// Sends a request and waits for its response (messages before it are dropped); the
    /// response and the round-trip time. `Err` on a timeout or when the server exits.
    pub fn request(
        &mut self,
        method: &str,
        params: Value,
        timeout: std::time::Duration,
    ) -> Result<(Value, std::time::Duration), String> {
        let (id, start) = self.send_request(method, params);
        let deadline = start + timeout;
        loop {
            match self.next_message(deadline) {
                Ok(Some((at, msg))) if msg.get("method").is_none() && msg["id"] == id => {
                    return Ok((msg, at - start));
                }
                Ok(Some(_)) => {}
                Ok(None) => return Err(format!("no answer to {method} within {timeout:?}")),
                Err(Closed) => return Err(format!("the server exited during {method}")),
            }
        }
    }
}

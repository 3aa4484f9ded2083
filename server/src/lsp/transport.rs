//! A guard in front of tower-lsp's input framing.
//!
//! tower-lsp-server reads stdin through a `tokio_util` codec, and a codec that reports an error
//! ends the stream: one malformed message (bad JSON, a JSON value that is no JSON-RPC message,
//! a header block without `Content-Length`) would stop the server. This task re-frames the
//! client's messages and replaces each invalid one by a harmless `$/` notification (which the
//! server ignores), logging it on stderr, so the session goes on.
//!
//! It also tells when the input is over ([`End`]): after `exit` or at the end of the stream.
//! tower-lsp's `serve` returns only once every running handler has finished, and a handler
//! that waits for a reply from a client that has gone (a `workspace/configuration` pull
//! answered after `exit`, say) would keep the server alive forever; [`super::server`] bounds
//! that wait.

use serde::de::IgnoredAny;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tower_lsp_server::jsonrpc::{Request, Response};

/// Messages larger than this are dropped unread (no editor sends anything close).
const MAX_MESSAGE: usize = 1 << 30;
const PLACEHOLDER: &[u8] = br#"{"jsonrpc":"2.0","method":"$/reductio/invalidMessage"}"#;

/// Why the client's input is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The `exit` notification was passed on to the server.
    Exit,
    /// The stream ended (or failed) without `exit`.
    Eof,
}

/// The client's byte stream, with only well-formed JSON-RPC messages in it, and a receiver
/// that resolves when the input is over (a dropped sender also means the input is over).
pub fn sanitize<R>(input: R) -> (DuplexStream, tokio::sync::oneshot::Receiver<End>)
where
    R: AsyncRead + Unpin + Send + 'static,
{
    let (mut to_server, from_client) = tokio::io::duplex(1 << 16);
    let (ended, end) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let mut r = BufReader::new(input);
        while let Some(body) = next_message(&mut r).await {
            let exit = is_exit(&body);
            let body = if exit || is_message(&body) {
                body
            } else {
                tracing::warn!(
                    "ignored a malformed message from the client: {}",
                    String::from_utf8_lossy(&body[..body.len().min(200)])
                );
                PLACEHOLDER.to_vec()
            };
            let header = format!("Content-Length: {}\r\n\r\n", body.len());
            if to_server.write_all(header.as_bytes()).await.is_err()
                || to_server.write_all(&body).await.is_err()
            {
                let _ = ended.send(End::Eof);
                return; // the server has stopped
            }
            if exit {
                // The server reads nothing after `exit`.
                let _ = ended.send(End::Exit);
                return;
            }
        }
        // End of input: dropping the pipe ends the server's input too.
        let _ = ended.send(End::Eof);
    });
    (from_client, end)
}

/// Whether `body` is an `exit` message (tower-lsp stops reading at one, with or without an id).
fn is_exit(body: &[u8]) -> bool {
    serde_json::from_slice::<Request>(body).is_ok_and(|r| r.method() == "exit")
}

fn is_message(body: &[u8]) -> bool {
    serde_json::from_slice::<IgnoredAny>(body).is_ok()
        && (serde_json::from_slice::<Request>(body).is_ok()
            || serde_json::from_slice::<Response>(body).is_ok())
}

/// The next message body, or `None` at the end of the input. Header blocks without a usable
/// `Content-Length` are skipped.
async fn next_message<R: AsyncRead + Unpin>(r: &mut BufReader<R>) -> Option<Vec<u8>> {
    loop {
        let mut len: Option<usize> = None;
        let mut in_headers = false;
        loop {
            let mut line = Vec::new();
            if r.read_until(b'\n', &mut line).await.ok()? == 0 {
                return None;
            }
            let text = String::from_utf8_lossy(&line);
            let text = text.trim();
            if text.is_empty() {
                if in_headers {
                    break;
                }
                continue;
            }
            in_headers = true;
            if let Some((name, value)) = text.split_once(':')
                && name.trim().eq_ignore_ascii_case("content-length")
            {
                len = value.trim().parse().ok();
            }
        }
        let Some(len) = len.filter(|&n| n <= MAX_MESSAGE) else {
            tracing::warn!("ignored a message header without a valid Content-Length");
            continue;
        };
        let mut body = vec![0; len];
        r.read_exact(&mut body).await.ok()?;
        return Some(body);
    }
}

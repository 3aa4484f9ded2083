//! A guard in front of tower-lsp's input framing.
//!
//! tower-lsp-server reads stdin through a `tokio_util` codec, and a codec that reports an error
//! ends the stream: one malformed message (bad JSON, a JSON value that is no JSON-RPC message,
//! a header block without `Content-Length`) would stop the server. This task re-frames the
//! client's messages and replaces each invalid one by a harmless `$/` notification (which the
//! server ignores), logging it on stderr, so the session goes on.

use serde::de::IgnoredAny;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tower_lsp_server::jsonrpc::{Request, Response};

/// Messages larger than this are dropped unread (no editor sends anything close).
const MAX_MESSAGE: usize = 1 << 30;
const PLACEHOLDER: &[u8] = br#"{"jsonrpc":"2.0","method":"$/reductio/invalidMessage"}"#;

/// The client's byte stream, with only well-formed JSON-RPC messages in it.
pub fn sanitize<R>(input: R) -> DuplexStream
where
    R: AsyncRead + Unpin + Send + 'static,
{
    let (mut to_server, from_client) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let mut r = BufReader::new(input);
        while let Some(body) = next_message(&mut r).await {
            let body = if is_message(&body) {
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
                return; // the server has stopped
            }
        }
        // End of input: dropping the pipe ends the server's input too.
    });
    from_client
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

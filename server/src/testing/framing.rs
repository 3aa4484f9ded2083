//! The LSP base protocol's framing: a `Content-Length` header block, then a JSON body. One
//! implementation for every test client (in-process and over a child's stdio).

use serde_json::Value;
use std::io::{BufRead, Write};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// A message as it goes on the wire: header block and body.
pub fn frame(msg: &Value) -> Vec<u8> {
    let body = msg.to_string();
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

/// Reads one header line into `len`; returns whether it was the blank line that ends the
/// header block.
fn header_line(line: &str, len: &mut Option<usize>) -> bool {
    let line = line.trim_end();
    if let Some(v) = line.strip_prefix("Content-Length:") {
        *len = v.trim().parse::<usize>().ok();
    }
    line.is_empty()
}

/// Writes one message and flushes; an error means the peer is gone.
pub async fn write_message<W: AsyncWrite + Unpin>(w: &mut W, msg: &Value) -> std::io::Result<()> {
    w.write_all(&frame(msg)).await?;
    w.flush().await
}

/// Reads one message; `None` at the end of the stream, or when a header block has no
/// `Content-Length` or the body is not JSON.
pub async fn read_message<R: AsyncBufRead + Unpin>(r: &mut R) -> Option<Value> {
    let (mut len, mut line) = (None, String::new());
    loop {
        line.clear();
        if r.read_line(&mut line).await.ok()? == 0 {
            return None;
        }
        if header_line(&line, &mut len) {
            break;
        }
    }
    let mut body = vec![0; len?];
    r.read_exact(&mut body).await.ok()?;
    serde_json::from_slice(&body).ok()
}

/// [`write_message`] on a blocking writer.
pub fn write_message_blocking(w: &mut impl Write, msg: &Value) -> std::io::Result<()> {
    w.write_all(&frame(msg))?;
    w.flush()
}

/// [`read_message`] on a blocking reader.
pub fn read_message_blocking(r: &mut impl BufRead) -> Option<Value> {
    let (mut len, mut line) = (None, String::new());
    loop {
        line.clear();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if header_line(&line, &mut len) {
            break;
        }
    }
    let mut body = vec![0; len?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_framed_message_reads_back() {
        let msg = json!({"jsonrpc": "2.0", "method": "x", "params": {"é": [1, 2]}});
        let mut wire = frame(&msg);
        wire.extend(frame(&json!(null)));
        let mut r = std::io::Cursor::new(wire);
        assert_eq!(read_message_blocking(&mut r), Some(msg));
        assert_eq!(read_message_blocking(&mut r), Some(Value::Null));
        assert_eq!(read_message_blocking(&mut r), None);
    }
}

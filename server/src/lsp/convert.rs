//! Conversions between LSP values (URIs, positions in the negotiated encoding) and the
//! analysis' values (paths, byte offsets).

use crate::syntax::{LineIndex, Position, PositionEncoding, TextRange};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use tower_lsp_server::ls_types::{self as lsp, PositionEncodingKind, Uri};

/// The path a document is analysed under. `file:` URIs map to their path; any other scheme
/// (`untitled:`) keeps the URI text as a path-like key, so such buffers are analysed too.
pub fn uri_to_path(uri: &Uri) -> PathBuf {
    if uri.scheme().as_str().eq_ignore_ascii_case("file")
        && let Some(p) = uri.to_file_path()
    {
        return p.into_owned();
    }
    PathBuf::from(uri.as_str())
}

/// The inverse of [`uri_to_path`] for paths that did not come from a client URI.
pub fn path_to_uri(path: &Path) -> Option<Uri> {
    if path.is_absolute() {
        return Uri::from_file_path(path);
    }
    // A non-file URI kept as a path, or a relative path (only in tests).
    let s = path.to_str()?;
    if s.contains(':') {
        return Uri::from_str(s).ok();
    }
    std::path::absolute(path).ok().and_then(Uri::from_file_path)
}

pub fn encoding_kind(enc: PositionEncoding) -> PositionEncodingKind {
    match enc {
        PositionEncoding::Utf8 => PositionEncodingKind::UTF8,
        PositionEncoding::Utf16 => PositionEncodingKind::UTF16,
    }
}

/// A request's position is invalid only when its line does not exist. A character past the
/// line's end means the end of the line, as LSP asks.
#[derive(Debug)]
pub struct PositionPastEnd {
    pub line: u32,
    pub lines: u32,
}

impl std::fmt::Display for PositionPastEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "position line {} is past the end of the document ({} lines)",
            self.line, self.lines
        )
    }
}

/// LSP position to a byte offset of `text`.
pub fn offset(
    text: &str,
    index: &LineIndex,
    pos: lsp::Position,
    enc: PositionEncoding,
) -> Result<u32, PositionPastEnd> {
    if pos.line >= index.line_count() {
        return Err(PositionPastEnd {
            line: pos.line,
            lines: index.line_count(),
        });
    }
    Ok(index.offset_of(text, Position::new(pos.line, pos.character), enc))
}

pub fn position(
    text: &str,
    index: &LineIndex,
    offset: u32,
    enc: PositionEncoding,
) -> lsp::Position {
    let p = index.position(text, offset, enc);
    lsp::Position::new(p.line, p.character)
}

pub fn range(
    text: &str,
    index: &LineIndex,
    start: u32,
    end: u32,
    enc: PositionEncoding,
) -> lsp::Range {
    lsp::Range::new(
        position(text, index, start, enc),
        position(text, index, end.max(start), enc),
    )
}

/// LSP range of a byte range of `text` (a finding's [`crate::db::SourceLoc::range`]).
pub fn text_range(
    text: &str,
    index: &LineIndex,
    r: TextRange,
    enc: PositionEncoding,
) -> lsp::Range {
    range(text, index, r.start, r.end, enc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_round_trip() {
        let uri = path_to_uri(Path::new("/tmp/a b/x.c")).unwrap();
        assert_eq!(uri.as_str(), "file:///tmp/a%20b/x.c");
        assert_eq!(uri_to_path(&uri), PathBuf::from("/tmp/a b/x.c"));
        let untitled = Uri::from_str("untitled:Untitled-1").unwrap();
        let p = uri_to_path(&untitled);
        assert_eq!(path_to_uri(&p).unwrap(), untitled);
    }

    #[test]
    fn positions_in_both_encodings() {
        let text = "char *s = \"é😀\"; p = q;\n";
        let index = LineIndex::new(text);
        let p_byte = text.find("p =").unwrap() as u32;
        let utf8 = position(text, &index, p_byte, PositionEncoding::Utf8);
        let utf16 = position(text, &index, p_byte, PositionEncoding::Utf16);
        assert_eq!(utf8.character, p_byte);
        assert_eq!(utf16.character, p_byte - 1 - 2); // é: 2 bytes→1 unit, 😀: 4→2
        assert_eq!(
            offset(text, &index, utf16, PositionEncoding::Utf16).unwrap(),
            p_byte
        );
        assert_eq!(
            offset(text, &index, utf8, PositionEncoding::Utf8).unwrap(),
            p_byte
        );
        assert!(
            offset(
                text,
                &index,
                lsp::Position::new(5, 0),
                PositionEncoding::Utf8
            )
            .is_err()
        );
        // Past the end of a line: the line's end.
        assert_eq!(
            offset(
                text,
                &index,
                lsp::Position::new(0, 999),
                PositionEncoding::Utf16
            )
            .unwrap(),
            text.len() as u32 - 1
        );
    }
}

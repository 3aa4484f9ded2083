//! Conversions between byte offsets, (line, byte column) pairs and LSP positions.

use super::to_u32;

/// Which unit LSP columns are measured in.
///
/// UTF-16 is the LSP default; clients such as Neovim can negotiate UTF-8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PositionEncoding {
    Utf8,
    #[default]
    Utf16,
}

/// 0-based line and column, the column in units of a [`PositionEncoding`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Position {
    pub line: u32,
    pub character: u32,
}

impl Position {
    pub fn new(line: u32, character: u32) -> Self {
        Position { line, character }
    }
}

/// 0-based line and byte column: what tree-sitter [`tree_sitter::Point`]s use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// Start offset of every line of one text.
///
/// Only line starts are stored; UTF-16 columns are counted from the text on demand, since
/// lines are short and most C source is ASCII (which takes a fast path).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIndex {
    /// `line_starts[0] == 0`; then one entry after each `'\n'`.
    line_starts: Vec<u32>,
    len: u32,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| to_u32(i + 1)),
        );
        LineIndex {
            line_starts,
            len: to_u32(text.len()),
        }
    }

    /// Number of lines; a text ending in `'\n'` has a final empty line, and `""` has one line.
    pub fn line_count(&self) -> u32 {
        to_u32(self.line_starts.len())
    }

    pub fn line_start(&self, line: u32) -> Option<u32> {
        self.line_starts.get(line as usize).copied()
    }

    /// End of a line's content (before its `'\n'`, a `'\r'` included). `line` must exist.
    fn line_end(&self, line: usize) -> u32 {
        match self.line_starts.get(line + 1) {
            Some(&next) => next - 1,
            None => self.len,
        }
    }

    /// Offsets past the end of the text are clamped to it.
    pub fn line_col(&self, offset: u32) -> LineCol {
        let offset = offset.min(self.len);
        // line_starts[0] == 0 <= offset, so the partition point is at least 1.
        let line = self.line_starts.partition_point(|&start| start <= offset) - 1;
        LineCol {
            line: to_u32(line),
            col: offset - self.line_starts[line],
        }
    }

    /// `None` if the line does not exist; a column past the line's end means the line's end.
    /// The column is not snapped to a char boundary (that needs the text; see [`Self::offset_of`]).
    pub fn offset(&self, lc: LineCol) -> Option<u32> {
        let start = self.line_start(lc.line)?;
        let end = self.line_end(lc.line as usize);
        Some(start + lc.col.min(end - start))
    }

    pub fn point(&self, offset: u32) -> tree_sitter::Point {
        let lc = self.line_col(offset);
        tree_sitter::Point {
            row: lc.line as usize,
            column: lc.col as usize,
        }
    }

    /// Byte offset to LSP position. `text` must be the indexed text (UTF-16 columns need it).
    ///
    /// Offsets past the end are clamped; offsets inside a multi-byte char round down to its start,
    /// and an offset between the `'\r'` and `'\n'` of a CRLF rounds down to before the `'\r'`,
    /// because LSP treats the pair as one terminator.
    pub fn position(&self, text: &str, offset: u32, enc: PositionEncoding) -> Position {
        let bytes = text.as_bytes();
        let mut offset = offset.min(self.len).min(to_u32(text.len())) as usize;
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        if offset > 0 && bytes[offset - 1] == b'\r' && bytes.get(offset) == Some(&b'\n') {
            offset -= 1;
        }
        let lc = self.line_col(to_u32(offset));
        let start = offset - lc.col as usize;
        let character = match enc {
            PositionEncoding::Utf8 => lc.col,
            PositionEncoding::Utf16 => match text.get(start..offset) {
                Some(prefix) => utf16_len(prefix),
                // Only reachable if `text` is not the indexed text.
                None => lc.col,
            },
        };
        Position {
            line: lc.line,
            character,
        }
    }

    /// LSP position to byte offset, clamped as LSP asks: a character past the end of its line
    /// means the line's end (before `"\r\n"` or `'\n'`), and a line past the last line means the
    /// end of the text. A character inside a char (UTF-8) or between the halves of a surrogate
    /// pair (UTF-16) rounds down to the char's start. `text` must be the indexed text.
    pub fn offset_of(&self, text: &str, pos: Position, enc: PositionEncoding) -> u32 {
        let text_len = text.len();
        let Some(start) = self.line_start(pos.line) else {
            return to_u32(text_len);
        };
        let start = (start as usize).min(text_len);
        let end = (self.line_end(pos.line as usize) as usize).clamp(start, text_len);
        let mut line = text.get(start..end).unwrap_or("");
        if text.as_bytes().get(end) == Some(&b'\n') {
            line = line.strip_suffix('\r').unwrap_or(line);
        }
        let target = pos.character as usize;
        let col = if enc == PositionEncoding::Utf8 || line.is_ascii() {
            let mut col = target.min(line.len());
            while !line.is_char_boundary(col) {
                col -= 1;
            }
            col
        } else {
            let mut units = 0;
            let mut col = 0;
            for c in line.chars() {
                units += c.len_utf16();
                if units > target {
                    break;
                }
                col += c.len_utf8();
            }
            col
        };
        to_u32(start + col)
    }
}

fn utf16_len(s: &str) -> u32 {
    if s.is_ascii() {
        to_u32(s.len())
    } else {
        to_u32(s.chars().map(char::len_utf16).sum())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::tests::naive_position;
    use PositionEncoding::{Utf8, Utf16};

    fn pos(line: u32, character: u32) -> Position {
        Position::new(line, character)
    }

    fn lc(line: u32, col: u32) -> LineCol {
        LineCol { line, col }
    }

    #[test]
    fn ascii() {
        let text = "int x;\nint y;\n";
        let index = LineIndex::new(text);
        assert_eq!(index.line_count(), 3);
        assert_eq!(index.line_start(1), Some(7));
        assert_eq!(index.line_start(2), Some(14));
        assert_eq!(index.line_start(3), None);
        assert_eq!(index.line_col(8), lc(1, 1));
        assert_eq!(index.offset(lc(1, 1)), Some(8));
        for enc in [Utf8, Utf16] {
            assert_eq!(index.position(text, 8, enc), pos(1, 1));
            assert_eq!(index.offset_of(text, pos(1, 1), enc), 8);
            assert_eq!(index.position(text, 14, enc), pos(2, 0));
        }
        assert_eq!(index.point(9), tree_sitter::Point { row: 1, column: 2 });
    }

    #[test]
    fn multi_byte_utf8() {
        // é is 2 bytes / 1 UTF-16 unit; 中 is 3 bytes / 1 unit.
        let text = "é中x\n";
        let index = LineIndex::new(text);
        assert_eq!(index.position(text, 5, Utf8), pos(0, 5));
        assert_eq!(index.position(text, 5, Utf16), pos(0, 2));
        assert_eq!(index.offset_of(text, pos(0, 2), Utf16), 5);
        assert_eq!(index.offset_of(text, pos(0, 5), Utf8), 5);
        // Inside a char: rounds down.
        assert_eq!(index.position(text, 1, Utf16), pos(0, 0));
        assert_eq!(index.position(text, 4, Utf8), pos(0, 2));
        assert_eq!(index.offset_of(text, pos(0, 3), Utf8), 2);
        assert_eq!(index.offset_of(text, pos(0, 4), Utf8), 2);
        // Byte columns are bytes.
        assert_eq!(index.line_col(5), lc(0, 5));
    }

    #[test]
    fn astral_chars_are_surrogate_pairs() {
        // 😀 is 4 bytes and 2 UTF-16 units.
        let text = "a😀b";
        let index = LineIndex::new(text);
        assert_eq!(index.position(text, 5, Utf16), pos(0, 3));
        assert_eq!(index.position(text, 5, Utf8), pos(0, 5));
        assert_eq!(index.offset_of(text, pos(0, 1), Utf16), 1);
        // Between the two surrogates: rounds down to the emoji's start.
        assert_eq!(index.offset_of(text, pos(0, 2), Utf16), 1);
        assert_eq!(index.offset_of(text, pos(0, 3), Utf16), 5);
        assert_eq!(index.offset_of(text, pos(0, 4), Utf16), 6);
        assert_eq!(index.position(text, 3, Utf16), pos(0, 1));
    }

    #[test]
    fn crlf() {
        let text = "ab\r\ncd\r\n";
        let index = LineIndex::new(text);
        assert_eq!(index.line_count(), 3);
        assert_eq!(index.line_start(1), Some(4));
        // Byte columns keep the '\r' as line content, like tree-sitter.
        assert_eq!(index.line_col(2), lc(0, 2));
        assert_eq!(index.line_col(3), lc(0, 3));
        assert_eq!(index.offset(lc(0, 9)), Some(3));
        for enc in [Utf8, Utf16] {
            // LSP positions never point between '\r' and '\n'.
            assert_eq!(index.position(text, 3, enc), pos(0, 2));
            assert_eq!(index.position(text, 2, enc), pos(0, 2));
            assert_eq!(index.offset_of(text, pos(0, 2), enc), 2);
            assert_eq!(index.offset_of(text, pos(0, 3), enc), 2);
            assert_eq!(index.offset_of(text, pos(0, 99), enc), 2);
            assert_eq!(index.offset_of(text, pos(1, 99), enc), 6);
            assert_eq!(index.position(text, 4, enc), pos(1, 0));
        }
    }

    #[test]
    fn lone_cr_at_end_is_content() {
        let text = "a\r";
        let index = LineIndex::new(text);
        assert_eq!(index.line_count(), 1);
        assert_eq!(index.position(text, 2, Utf16), pos(0, 2));
        assert_eq!(index.offset_of(text, pos(0, 9), Utf16), 2);
    }

    #[test]
    fn empty_text() {
        let text = "";
        let index = LineIndex::new(text);
        assert_eq!(index.line_count(), 1);
        assert_eq!(index.line_start(0), Some(0));
        assert_eq!(index.line_col(0), lc(0, 0));
        assert_eq!(index.line_col(10), lc(0, 0));
        assert_eq!(index.offset(lc(0, 3)), Some(0));
        assert_eq!(index.offset(lc(1, 0)), None);
        for enc in [Utf8, Utf16] {
            assert_eq!(index.position(text, 0, enc), pos(0, 0));
            assert_eq!(index.position(text, 7, enc), pos(0, 0));
            assert_eq!(index.offset_of(text, pos(0, 0), enc), 0);
            assert_eq!(index.offset_of(text, pos(5, 5), enc), 0);
        }
    }

    #[test]
    fn no_trailing_newline() {
        let text = "x;\ny";
        let index = LineIndex::new(text);
        assert_eq!(index.line_count(), 2);
        assert_eq!(index.line_col(4), lc(1, 1));
        assert_eq!(index.line_col(100), lc(1, 1));
        assert_eq!(index.offset(lc(1, 5)), Some(4));
        for enc in [Utf8, Utf16] {
            assert_eq!(index.position(text, 4, enc), pos(1, 1));
            assert_eq!(index.offset_of(text, pos(1, 1), enc), 4);
            assert_eq!(index.offset_of(text, pos(1, 9), enc), 4);
        }
    }

    #[test]
    fn clamping() {
        let text = "é中\n😀\nend";
        let index = LineIndex::new(text);
        for enc in [Utf8, Utf16] {
            // Past the line end: the line end, before the newline.
            assert_eq!(index.offset_of(text, pos(0, 100), enc), 5);
            assert_eq!(index.offset_of(text, pos(1, 100), enc), 10);
            // Past the last line: the end of the text.
            assert_eq!(index.offset_of(text, pos(3, 0), enc), 14);
            assert_eq!(index.offset_of(text, pos(u32::MAX, u32::MAX), enc), 14);
            // Offsets past the end: the end.
            assert_eq!(
                index.position(text, u32::MAX, enc),
                index.position(text, 14, enc)
            );
        }
        assert_eq!(index.offset(lc(0, 100)), Some(5));
        assert_eq!(index.offset(lc(3, 0)), None);
        assert_eq!(index.line_col(u32::MAX), lc(2, 3));
    }

    #[test]
    fn round_trip_every_char_boundary() {
        let text = "int *p = \"é中😀\";\r\n/* 𝄞 */ p++;\n\n\tq = 'ü';\r\nlast 😀";
        let index = LineIndex::new(text);
        for enc in [Utf8, Utf16] {
            for (offset, _) in text.char_indices().chain([(text.len(), ' ')]) {
                let p = index.position(text, offset as u32, enc);
                assert_eq!(
                    p,
                    naive_position(text, offset, enc),
                    "offset {offset} {enc:?}"
                );
                let is_inside_crlf =
                    text[..offset].ends_with('\r') && text[offset..].starts_with('\n');
                let back = index.offset_of(text, p, enc) as usize;
                if is_inside_crlf {
                    assert_eq!(back, offset - 1);
                } else {
                    assert_eq!(back, offset, "offset {offset} {enc:?} via {p:?}");
                }
                // Byte columns round-trip everywhere.
                let lc = index.line_col(offset as u32);
                assert_eq!(index.offset(lc), Some(offset as u32));
                let point = index.point(offset as u32);
                assert_eq!(
                    (point.row, point.column),
                    (lc.line as usize, lc.col as usize)
                );
            }
        }
    }
}

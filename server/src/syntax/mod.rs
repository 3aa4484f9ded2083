//! C syntax: tree-sitter parsing, incremental reparse, and the maps between byte offsets,
//! tree-sitter points (row, byte column) and LSP positions (UTF-8 or UTF-16 columns).
//!
//! Plain data in, plain data out: nothing here knows about the IR, salsa or LSP types, so the
//! layers above can wrap these types however they like.
//!
//! Invariants:
//! - Offsets are `u32` byte offsets. Texts larger than 4 GiB are not supported (conversions
//!   saturate rather than wrap, so they degrade instead of panicking).
//! - Lines end at `'\n'` only, like tree-sitter rows, so [`LineCol`] and [`tree_sitter::Point`]
//!   agree. A `'\r'` before `'\n'` is line content for byte columns, but LSP positions treat
//!   `"\r\n"` as one terminator and never point between its two bytes.

mod document;
mod line_index;
pub mod ts;

#[cfg(test)]
mod tests;

use std::cell::RefCell;

pub use document::{Document, EditError, TextChange};
pub use line_index::{LineCol, LineIndex, Position, PositionEncoding};

/// Byte range `[start, end)` in a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct TextRange {
    pub start: u32,
    pub end: u32,
}

impl TextRange {
    pub fn new(start: u32, end: u32) -> Self {
        debug_assert!(start <= end, "inverted range {start}..{end}");
        TextRange { start, end }
    }

    pub fn len(&self) -> u32 {
        self.end.saturating_sub(self.start)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Half-open: the end offset is not contained.
    pub fn contains(&self, offset: u32) -> bool {
        self.start <= offset && offset < self.end
    }

    /// Moves the range right, e.g. from a snippet-relative to a file-relative offset.
    pub fn shifted(self, by: u32) -> Self {
        TextRange {
            start: self.start + by,
            end: self.end + by,
        }
    }

    pub fn of_node(node: &tree_sitter::Node) -> Self {
        TextRange {
            start: to_u32(node.start_byte()),
            end: to_u32(node.end_byte()),
        }
    }
}

/// A tree-sitter tree that can live in a salsa input.
///
/// Trees have no cheap structural equality, so equality is always false: storing a new tree
/// always counts as a change, and the queries derived from it backdate instead.
#[derive(Clone)]
pub struct SyntaxTree(pub tree_sitter::Tree);

impl PartialEq for SyntaxTree {
    fn eq(&self, _other: &Self) -> bool {
        false
    }
}

// Deliberately not reflexive (see above); consumers only need the bound, not the law.
impl Eq for SyntaxTree {}

impl std::fmt::Debug for SyntaxTree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SyntaxTree(..)")
    }
}

pub fn c_language() -> tree_sitter::Language {
    tree_sitter_c::LANGUAGE.into()
}

fn new_parser() -> tree_sitter::Parser {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&c_language())
        .expect("tree-sitter-c is built against a compatible tree-sitter ABI");
    parser
}

thread_local! {
    // Parsers allocate sizeable internal stacks; reusing one per thread avoids that per parse.
    static PARSER: RefCell<tree_sitter::Parser> = RefCell::new(new_parser());
}

/// Parses `new_text` reusing `old_tree`, the tree of `old_text`: the two texts are compared
/// (common prefix and suffix), the difference is given to tree-sitter as one edit, and the
/// unchanged subtrees are reused. What an editor's incremental parse does, for a text the
/// server derives itself (the live text of a file with dead `#if` arms).
pub fn reparse_changed(
    old_text: &str,
    old_tree: &tree_sitter::Tree,
    new_text: &str,
) -> tree_sitter::Tree {
    let (a, b) = (old_text.as_bytes(), new_text.as_bytes());
    let mut start = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    while !new_text.is_char_boundary(start) || !old_text.is_char_boundary(start) {
        start -= 1;
    }
    let room = a.len().min(b.len()) - start;
    let mut suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    while !new_text.is_char_boundary(b.len() - suffix)
        || !old_text.is_char_boundary(a.len() - suffix)
    {
        suffix -= 1;
    }
    if start == a.len() && a.len() == b.len() {
        return old_tree.clone();
    }
    let point = |text: &[u8], at: usize| {
        let line_start = text[..at]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
        tree_sitter::Point::new(
            text[..line_start].iter().filter(|&&c| c == b'\n').count(),
            at - line_start,
        )
    };
    let mut tree = old_tree.clone();
    tree.edit(&tree_sitter::InputEdit {
        start_byte: start,
        old_end_byte: a.len() - suffix,
        new_end_byte: b.len() - suffix,
        start_position: point(a, start),
        old_end_position: point(a, a.len() - suffix),
        new_end_position: point(b, b.len() - suffix),
    });
    parse(new_text, Some(&tree))
}

/// Parses C text. `old` must already have been `edit`ed to match `text`; tree-sitter then reuses
/// its unchanged subtrees.
///
/// Never fails: tree-sitter only gives up on a timeout or cancellation, which we never set, but
/// if it does anyway we retry with a fresh parser and finally fall back to an empty tree.
pub fn parse(text: &str, old: Option<&tree_sitter::Tree>) -> tree_sitter::Tree {
    let reused = PARSER
        .try_with(|cell| {
            let mut parser = cell.try_borrow_mut().ok()?;
            let tree = parser.parse(text, old);
            if tree.is_none() {
                // A failed parse may leave state behind that the next parse would resume.
                *parser = new_parser();
            }
            tree
        })
        .ok()
        .flatten();
    if let Some(tree) = reused {
        return tree;
    }
    let mut parser = new_parser();
    if let Some(tree) = parser.parse(text, old) {
        return tree;
    }
    if let Some(tree) = parser.parse(text, None) {
        return tree;
    }
    new_parser()
        .parse("", None)
        .expect("a fresh parser without timeout or cancellation parses the empty string")
}

/// The text with every comment replaced by spaces (newlines kept), so that byte offsets and
/// lines are unchanged. The lowering parses this: a comment can then never stand where a
/// statement or an expression is expected (tree-sitter makes comments named children anywhere,
/// e.g. between `else` and its statement).
pub fn blank_comments(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("//") && !text.contains("/*") {
        return std::borrow::Cow::Borrowed(text);
    }
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' | b'\'' => {
                // Skip a string or character literal (escapes included; a newline ends it).
                let q = b[i];
                i += 1;
                while i < b.len() && b[i] != q && b[i] != b'\n' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    // A backslash-newline continues a `//` comment.
                    if b[i] == b'\\' && b.get(i + 1) == Some(&b'\n') {
                        out[i] = b' ';
                        i += 2;
                        continue;
                    }
                    out[i] = b' ';
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut j = i;
                while j < b.len() && !(j >= i + 3 && b[j - 1] == b'*' && b[j] == b'/') {
                    if b[j] != b'\n' {
                        out[j] = b' ';
                    }
                    j += 1;
                }
                if j < b.len() {
                    out[j] = b' ';
                }
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    // Every byte of a comment (multi-byte characters included) became a space, so the result
    // is valid UTF-8; fall back to a lossy decode rather than panic if that ever fails.
    std::borrow::Cow::Owned(
        String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
    )
}

/// Turns a file's bytes into text. Valid UTF-8 is kept as is (including a BOM); anything else is
/// decoded lossily so that one bad byte does not hide a whole file from the analysis.
/// Returns the text and whether any byte was invalid, so callers can warn.
pub fn decode_source(bytes: &[u8]) -> (String, bool) {
    match std::str::from_utf8(bytes) {
        Ok(text) => (text.to_owned(), false),
        Err(_) => (String::from_utf8_lossy(bytes).into_owned(), true),
    }
}

/// Saturating `usize -> u32`: see the module invariants on text size.
fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

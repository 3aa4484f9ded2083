//! An editable document whose tree follows its text through incremental edits.

use tree_sitter::{InputEdit, Tree};

use super::{LineIndex, Position, PositionEncoding, parse, to_u32};

/// One LSP content change: replace `range` (or, if `None`, the whole text) by `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextChange {
    pub range: Option<(Position, Position)>,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditError {
    /// Change number `change` (0-based) has its start after its end.
    InvertedRange {
        change: usize,
        start: Position,
        end: Position,
    },
}

impl std::fmt::Display for EditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EditError::InvertedRange { change, start, end } => write!(
                f,
                "change {change}: range start {}:{} is after its end {}:{}",
                start.line, start.character, end.line, end.character
            ),
        }
    }
}

impl std::error::Error for EditError {}

/// Text, tree and line index of one open file, always in sync with each other.
#[derive(Clone)]
pub struct Document {
    text: String,
    tree: Tree,
    index: LineIndex,
}

impl std::fmt::Debug for Document {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Document")
            .field("len", &self.text.len())
            .field("lines", &self.index.line_count())
            .finish_non_exhaustive()
    }
}

impl Document {
    pub fn new(text: String) -> Self {
        let tree = parse(&text, None);
        let index = LineIndex::new(&text);
        Document { text, tree, index }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    pub fn line_index(&self) -> &LineIndex {
        &self.index
    }

    /// Applies LSP content changes in order, each relative to the text left by the previous one,
    /// then reparses once, reusing the unchanged parts of the old tree.
    ///
    /// Positions are clamped like [`LineIndex::offset_of`]. All ranges are checked before anything
    /// is applied, so on error the document is unchanged.
    pub fn apply_changes(
        &mut self,
        changes: &[TextChange],
        enc: PositionEncoding,
    ) -> Result<(), EditError> {
        for (i, change) in changes.iter().enumerate() {
            if let Some((start, end)) = change.range
                && start > end
            {
                return Err(EditError::InvertedRange {
                    change: i,
                    start,
                    end,
                });
            }
        }
        if changes.is_empty() {
            return Ok(());
        }
        // After a whole-text replacement the old tree has nothing worth reusing.
        let mut reuse_tree = true;
        for change in changes {
            let Some((start, end)) = change.range else {
                self.text.clone_from(&change.text);
                self.index = LineIndex::new(&self.text);
                reuse_tree = false;
                continue;
            };
            let start = self.index.offset_of(&self.text, start, enc);
            let end = self.index.offset_of(&self.text, end, enc);
            let start_position = self.index.point(start);
            let old_end_position = self.index.point(end);
            self.text
                .replace_range(start as usize..end as usize, &change.text);
            // The next change's positions are relative to the new text; the new end point too.
            self.index = LineIndex::new(&self.text);
            let new_end = start as usize + change.text.len();
            if reuse_tree {
                self.tree.edit(&InputEdit {
                    start_byte: start as usize,
                    old_end_byte: end as usize,
                    new_end_byte: new_end,
                    start_position,
                    old_end_position,
                    new_end_position: self.index.point(to_u32(new_end)),
                });
            }
        }
        self.tree = parse(&self.text, reuse_tree.then_some(&self.tree));
        Ok(())
    }
}

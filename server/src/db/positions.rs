//! Placing results in files: line indexes, where each function starts, and the conversion of
//! function-relative byte ranges (what the IR keeps) into file locations (1-based line and
//! column, and byte offsets in the file).

use super::database::Db;
use super::finding::SourceLoc;
use super::front_end::Function;
use super::inputs::SourceFile;
use crate::syntax::{LineCol, LineIndex, TextRange};
use std::sync::Arc;

#[salsa::tracked(returns(clone))]
pub fn line_index(db: &dyn Db, file: SourceFile) -> Arc<LineIndex> {
    Arc::new(LineIndex::new(file.text(db)))
}

/// Where a function starts in its file (0-based line, byte column). Every function's anchor
/// is recomputed when its file changes, but it stays equal unless lines were added or removed
/// above the function, so what is placed with it (the findings) backdates.
#[salsa::tracked]
pub fn function_anchor<'db>(db: &'db dyn Db, f: Function<'db>) -> LineCol {
    line_index(db, f.file(db)).line_col(f.start(db))
}

/// The line starts of a function's own text.
#[salsa::tracked(returns(clone))]
pub fn function_lines<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<LineIndex> {
    Arc::new(LineIndex::new(&f.source(db).text))
}

/// 0-based line and byte column in the file of `offset`, relative to a function's start.
pub(super) fn place(db: &dyn Db, f: Function<'_>, offset: u32) -> LineCol {
    let anchor = function_anchor(db, f);
    let rel = function_lines(db, f).line_col(offset);
    LineCol {
        line: anchor.line + rel.line,
        col: if rel.line == 0 {
            anchor.col + rel.col
        } else {
            rel.col
        },
    }
}

/// 1-based `line:column` of a range relative to a function's start.
pub fn location(db: &dyn Db, f: Function<'_>, r: TextRange) -> (u32, u32) {
    let lc = place(db, f, r.start);
    (lc.line + 1, lc.col + 1)
}

/// Byte offset in the file of `offset`, relative to a function's start (clamped to the
/// function's text, as [`place`] clamps it).
fn file_offset(db: &dyn Db, f: Function<'_>, offset: u32) -> u32 {
    f.start(db) + offset.min(f.source(db).text.len() as u32)
}

/// A range relative to a function's start, placed in its file: line and column (through the
/// function's anchor, which backdates) and byte offsets (through its start, which changes with
/// any edit above it).
pub(super) fn function_loc(db: &dyn Db, f: Function<'_>, r: TextRange) -> SourceLoc {
    let start = place(db, f, r.start);
    let end = place(db, f, r.end);
    SourceLoc {
        file: f.file(db).path(db).clone(),
        line: start.line + 1,
        column: start.col + 1,
        end_line: end.line + 1,
        end_column: end.col + 1,
        range: TextRange::new(file_offset(db, f, r.start), file_offset(db, f, r.end)),
        function: f.name(db).clone(),
    }
}

/// Where one function of a file is, and a hash of its text: what it takes to move a result
/// placed in it to where the function is after an edit elsewhere in the file
/// ([`Finding::moved`](super::Finding::moved)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FunctionPlace {
    pub text_hash: u64,
    pub anchor: LineCol,
    pub start: u32,
}

/// The places of a file's functions, by name. A name the file defines more than once (the
/// arms of an `#ifdef`) is left out: a [`SourceLoc`] names its function only by name.
pub fn function_places(
    db: &dyn Db,
    file: SourceFile,
) -> rustc_hash::FxHashMap<String, FunctionPlace> {
    use std::hash::{Hash, Hasher};
    let mut places = rustc_hash::FxHashMap::default();
    let mut twice = rustc_hash::FxHashSet::default();
    for f in super::front_end::file_functions(db, file) {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        f.source(db).text.hash(&mut h);
        let place = FunctionPlace {
            text_hash: h.finish(),
            anchor: *function_anchor(db, *f),
            start: f.start(db),
        };
        if places.insert(f.name(db).clone(), place).is_some() {
            twice.insert(f.name(db).clone());
        }
    }
    for name in twice {
        places.remove(&name);
    }
    places
}

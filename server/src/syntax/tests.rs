//! Cross-cutting tests: incremental editing against fresh parses, and hostile inputs.

use super::*;
use PositionEncoding::{Utf8, Utf16};

/// Reference position computation: walk the chars, no index.
pub(super) fn naive_position(text: &str, offset: usize, enc: PositionEncoding) -> Position {
    let mut p = Position::new(0, 0);
    for (i, c) in text.char_indices() {
        if i >= offset {
            break;
        }
        if c == '\n' {
            p = Position::new(p.line + 1, 0);
        } else if !(c == '\r' && text[i..].starts_with("\r\n")) {
            p.character += match enc {
                Utf8 => c.len_utf8(),
                Utf16 => c.len_utf16(),
            } as u32;
        }
    }
    p
}

/// Every node's kind, byte range and points in document order; stricter than the S-expression,
/// which would not notice reused nodes left at stale offsets by a wrong `InputEdit`.
fn node_dump(tree: &tree_sitter::Tree) -> Vec<(&str, TextRange, tree_sitter::Point)> {
    let mut out = Vec::new();
    let mut cursor = tree.walk();
    loop {
        let node = cursor.node();
        out.push((
            node.kind(),
            TextRange::of_node(&node),
            node.start_position(),
        ));
        if cursor.goto_first_child() || cursor.goto_next_sibling() {
            continue;
        }
        loop {
            if !cursor.goto_parent() {
                return out;
            }
            if cursor.goto_next_sibling() {
                break;
            }
        }
    }
}

#[track_caller]
fn assert_matches_fresh_parse(doc: &Document, expected_text: &str) {
    assert_eq!(doc.text(), expected_text);
    assert_eq!(doc.line_index(), &LineIndex::new(expected_text));
    let fresh = parse(expected_text, None);
    assert_eq!(
        doc.tree().root_node().to_sexp(),
        fresh.root_node().to_sexp(),
        "text: {expected_text:?}"
    );
    assert_eq!(
        node_dump(doc.tree()),
        node_dump(&fresh),
        "text: {expected_text:?}"
    );
}

fn change(start: (u32, u32), end: (u32, u32), text: &str) -> TextChange {
    TextChange {
        range: Some((Position::new(start.0, start.1), Position::new(end.0, end.1))),
        text: text.to_owned(),
    }
}

fn replace_all(text: &str) -> TextChange {
    TextChange {
        range: None,
        text: text.to_owned(),
    }
}

const PROGRAM: &str = "\
#include <stdlib.h>
int *make(void) {
    int *p = malloc(4);
    return p;
}
";

#[test]
fn incremental_edits_match_fresh_parse() {
    let mut doc = Document::new(PROGRAM.to_owned());
    assert_matches_fresh_parse(&doc, PROGRAM);

    // Insert a line with multi-byte and astral chars.
    doc.apply_changes(
        &[change((3, 0), (3, 0), "    char *s = \"é中😀\";\n")],
        Utf16,
    )
    .unwrap();
    let text = "\
#include <stdlib.h>
int *make(void) {
    int *p = malloc(4);
    char *s = \"é中😀\";
    return p;
}
";
    assert_matches_fresh_parse(&doc, text);

    // Replace the literal's contents, positions after the emoji in UTF-16 units (😀 is 2).
    doc.apply_changes(&[change((3, 15), (3, 19), "x")], Utf16)
        .unwrap();
    let text = text.replace("\"é中😀\"", "\"x\"");
    assert_matches_fresh_parse(&doc, &text);

    // Delete a whole line, then, in the same batch, rename `p` (UTF-8 columns).
    doc.apply_changes(
        &[
            change((3, 0), (4, 0), ""),
            change((2, 9), (2, 10), "ptr"),
            change((3, 11), (3, 12), "ptr"),
        ],
        Utf8,
    )
    .unwrap();
    let text = PROGRAM
        .replace("*p =", "*ptr =")
        .replace("return p", "return ptr");
    assert_matches_fresh_parse(&doc, &text);

    // Introduce a syntax error and take it back out.
    doc.apply_changes(&[change((2, 4), (2, 4), "if (")], Utf16)
        .unwrap();
    let broken = text.replace("    int *ptr", "    if (int *ptr");
    assert_matches_fresh_parse(&doc, &broken);
    doc.apply_changes(&[change((2, 4), (2, 8), "")], Utf16)
        .unwrap();
    assert_matches_fresh_parse(&doc, &text);

    // Whole-document replacement followed by a ranged edit in the same batch.
    doc.apply_changes(
        &[
            replace_all("void f(void) {\r\n    free(q);\r\n}\r\n"),
            change((1, 9), (1, 10), "é"),
            change((1, 99), (1, 99), " /* 中 */"),
        ],
        Utf16,
    )
    .unwrap();
    assert_matches_fresh_parse(&doc, "void f(void) {\r\n    free(é); /* 中 */\r\n}\r\n");

    // Past the last line means the end; appending there.
    doc.apply_changes(&[change((99, 0), (99, 5), "int g;")], Utf16)
        .unwrap();
    assert_matches_fresh_parse(
        &doc,
        "void f(void) {\r\n    free(é); /* 中 */\r\n}\r\nint g;",
    );

    // Everything deleted, then rebuilt.
    doc.apply_changes(&[change((0, 0), (9, 0), "")], Utf8)
        .unwrap();
    assert_matches_fresh_parse(&doc, "");
    doc.apply_changes(&[change((0, 0), (0, 0), PROGRAM)], Utf8)
        .unwrap();
    assert_matches_fresh_parse(&doc, PROGRAM);
}

#[test]
fn inverted_range_is_an_error_and_changes_nothing() {
    let mut doc = Document::new(PROGRAM.to_owned());
    let err = doc
        .apply_changes(
            &[change((0, 0), (0, 1), "x"), change((2, 5), (1, 0), "y")],
            Utf16,
        )
        .unwrap_err();
    assert_eq!(
        err,
        EditError::InvertedRange {
            change: 1,
            start: Position::new(2, 5),
            end: Position::new(1, 0)
        }
    );
    assert_eq!(
        err.to_string(),
        "change 1: range start 2:5 is after its end 1:0"
    );
    assert_matches_fresh_parse(&doc, PROGRAM);
    doc.apply_changes(&[], Utf16).unwrap();
    assert_matches_fresh_parse(&doc, PROGRAM);
}

/// xorshift64: deterministic randomness without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const SNIPPETS: &[&str] = &[
    "int ",
    "x",
    "*",
    "é",
    "中",
    "😀",
    "\n",
    "\r\n",
    "{",
    "}",
    "(",
    ")",
    ";",
    " = ",
    "/* 𝄞 */",
    "\"s😀\"",
    "p = malloc(4);",
    "free(p);\n",
    "if (p) ",
    "return 0;",
    "struct s { int *f; };\n",
    "void g(void) { int *q = 0; }\n",
    "#define N 1\n",
];

/// Checks what a wrong `InputEdit` would break even where error recovery legitimately differs
/// from a fresh parse: every node's bytes and points agree with the text, and nest properly.
#[track_caller]
fn assert_consistent(doc: &Document) {
    let text = doc.text();
    let index = LineIndex::new(text);
    let mut cursor = doc.tree().walk();
    let mut parents: Vec<tree_sitter::Node> = Vec::new();
    let mut previous_end = 0;
    loop {
        let node = cursor.node();
        let (start, end) = (node.start_byte(), node.end_byte());
        assert!(start <= end && end <= text.len(), "{node:?} in {text:?}");
        assert!(
            start >= previous_end,
            "{node:?} overlaps its sibling in {text:?}"
        );
        if let Some(parent) = parents.last() {
            assert!(parent.start_byte() <= start && end <= parent.end_byte());
        }
        assert_eq!(node.start_position(), index.point(start as u32), "{node:?}");
        assert_eq!(node.end_position(), index.point(end as u32), "{node:?}");
        if cursor.goto_first_child() {
            parents.push(node);
            previous_end = start;
            continue;
        }
        previous_end = end;
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return;
            }
            previous_end = parents.pop().map_or(0, |p| p.end_byte());
        }
    }
}

/// How to take one change back.
enum Undo {
    /// Replace bytes `start..end` of the edited text by `removed`.
    Range {
        start: usize,
        end: usize,
        removed: String,
    },
    All(String),
}

/// Replaces bytes `start..end` of `text` by `inserted` and describes that as an LSP change.
fn ranged_change(
    rng: &mut Rng,
    text: &mut String,
    start: usize,
    end: usize,
    inserted: String,
    enc: PositionEncoding,
) -> TextChange {
    let mut range = (
        naive_position(text, start, enc),
        naive_position(text, end, enc),
    );
    // At a line end, any larger character means the same place.
    let rest = &text[end..];
    if rest.is_empty() || rest.starts_with('\n') || rest.starts_with("\r\n") {
        range.1.character += rng.below(3) as u32 * 1000;
    }
    text.replace_range(start..end, &inserted);
    TextChange {
        range: Some(range),
        text: inserted,
    }
}

/// Valid C, so that undoing every edit must give exactly a fresh parse's tree.
const BASE: &str = "\
#include <stdlib.h>
/* é中😀 */
int *make(void) {
    int *p = malloc(4);
    return p;
}\r
const char *s = \"𝄞\";\r
struct node { struct node *next; };
int main(void) { free(make()); return 0; }
";

/// Random edits (mostly garbage), then their undo, like tree-sitter's own corpus tests.
///
/// After every batch the tree must be consistent with the text, and equal to a fresh parse if
/// the text is valid C. tree-sitter's error recovery may differ between an incremental and a
/// fresh parse of invalid text, so those are only compared once the edits are undone.
#[test]
fn random_edits_match_fresh_parse() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut text = BASE.repeat(2);
    let mut doc = Document::new(text.clone());
    let (mut edits, mut exact_comparisons) = (0, 0);
    while edits < 200 {
        let valid = text.clone();
        let mut undo = Vec::new();
        for _ in 0..1 + rng.below(4) {
            let enc = if rng.below(2) == 0 { Utf8 } else { Utf16 };
            let mut changes = Vec::new();
            for _ in 0..1 + rng.below(3) {
                edits += 1;
                let mut inserted = String::new();
                if rng.below(3) > 0 {
                    for _ in 0..1 + rng.below(3) {
                        inserted.push_str(SNIPPETS[rng.below(SNIPPETS.len())]);
                    }
                }
                if rng.below(30) == 0 {
                    undo.push(Undo::All(std::mem::replace(&mut text, inserted.clone())));
                    changes.push(replace_all(&inserted));
                    continue;
                }
                let boundaries: Vec<usize> = text
                    .char_indices()
                    .map(|(i, _)| i)
                    .chain([text.len()])
                    .filter(|&i| !(text[..i].ends_with('\r') && text[i..].starts_with('\n')))
                    .collect();
                let first = rng.below(boundaries.len());
                let last = (first + rng.below(20)).min(boundaries.len() - 1);
                let (start, end) = (boundaries[first], boundaries[last]);
                undo.push(Undo::Range {
                    start,
                    end: start + inserted.len(),
                    removed: text[start..end].to_owned(),
                });
                changes.push(ranged_change(
                    &mut rng, &mut text, start, end, inserted, enc,
                ));
            }
            doc.apply_changes(&changes, enc).unwrap();
            assert_consistent(&doc);
            if !parse(&text, None).root_node().has_error() {
                assert_matches_fresh_parse(&doc, &text);
                exact_comparisons += 1;
            }
        }
        // Undo everything in one batch of changes.
        let enc = if rng.below(2) == 0 { Utf8 } else { Utf16 };
        let changes: Vec<TextChange> = undo
            .into_iter()
            .rev()
            .map(|undo| match undo {
                Undo::Range {
                    start,
                    end,
                    removed,
                } => ranged_change(&mut rng, &mut text, start, end, removed, enc),
                Undo::All(old) => {
                    let change = replace_all(&old);
                    text = old;
                    change
                }
            })
            .collect();
        assert_eq!(text, valid);
        doc.apply_changes(&changes, enc).unwrap();
        assert_matches_fresh_parse(&doc, &valid);
        exact_comparisons += 1;
    }
    assert!(
        exact_comparisons >= 20,
        "only {exact_comparisons} exact comparisons"
    );
}

#[test]
fn huge_single_line_parses() {
    let line = "int a = 1; ".repeat(1 << 20 >> 4);
    let text = format!("{line}{line}");
    assert!(text.len() >= 1 << 20);
    let tree = parse(&text, None);
    assert_eq!(tree.root_node().end_byte(), text.len());
    let index = LineIndex::new(&text);
    let end = text.len() as u32;
    assert_eq!(index.position(&text, end, Utf16), Position::new(0, end));
    assert_eq!(
        index.offset_of(&text, Position::new(0, u32::MAX), Utf16),
        end
    );
}

#[test]
fn deep_nesting_parses() {
    let depth = 10_000;
    let balanced = format!("void f(void) {}{}", "{".repeat(depth), "}".repeat(depth));
    let tree = parse(&balanced, None);
    assert_eq!(tree.root_node().end_byte(), balanced.len());
    let unbalanced = "{(".repeat(depth);
    let tree = parse(&unbalanced, None);
    assert!(tree.root_node().has_error());

    // An edit deep inside still reparses.
    let mut doc = Document::new(balanced.clone());
    doc.apply_changes(
        &[change(
            (0, 20 + depth as u32 / 2),
            (0, 20 + depth as u32 / 2),
            "x;",
        )],
        Utf8,
    )
    .unwrap();
    assert_eq!(doc.text().len(), balanced.len() + 2);
    assert_eq!(doc.tree().root_node().end_byte(), balanced.len() + 2);
}

#[test]
fn random_bytes_parse() {
    let mut rng = Rng(42);
    let bytes: Vec<u8> = (0..64 * 1024).map(|_| rng.next() as u8).collect();
    let (text, had_invalid) = decode_source(&bytes);
    assert!(had_invalid);
    let tree = parse(&text, None);
    assert_eq!(tree.root_node().end_byte(), text.len());
    // The line index copes with whatever came out.
    let index = LineIndex::new(&text);
    for offset in (0..text.len() as u32).step_by(997) {
        let p = index.position(&text, offset, Utf16);
        assert!(index.offset_of(&text, p, Utf16) <= offset);
    }
}

#[test]
fn decode_source_keeps_valid_utf8() {
    assert_eq!(decode_source(b""), (String::new(), false));
    assert_eq!(
        decode_source("int é中😀;".as_bytes()),
        ("int é中😀;".to_owned(), false)
    );
    assert_eq!(
        decode_source(b"a\xffb\xe4\xb8"),
        ("a\u{FFFD}b\u{FFFD}".to_owned(), true)
    );
}

#[test]
fn text_range() {
    let r = TextRange::new(2, 5);
    assert_eq!(r.len(), 3);
    assert!(!r.is_empty());
    assert!(TextRange::new(4, 4).is_empty());
    assert!(!r.contains(1));
    assert!(r.contains(2));
    assert!(r.contains(4));
    assert!(!r.contains(5));
    assert_eq!(r.shifted(10), TextRange::new(12, 15));
    let tree = parse("int x;", None);
    let decl = tree.root_node().child(0).unwrap();
    assert_eq!(TextRange::of_node(&decl), TextRange::new(0, 6));
}

#[test]
fn syntax_tree_always_differs() {
    let tree = SyntaxTree(parse("int x;", None));
    assert!(tree != tree.clone());
    assert_eq!(format!("{tree:?}"), "SyntaxTree(..)");
}

#[test]
fn parse_is_incremental_with_an_edited_tree() {
    let text = "int a;\nint b;\n";
    let mut old = parse(text, None);
    old.edit(&tree_sitter::InputEdit {
        start_byte: 4,
        old_end_byte: 5,
        new_end_byte: 7,
        start_position: tree_sitter::Point { row: 0, column: 4 },
        old_end_position: tree_sitter::Point { row: 0, column: 5 },
        new_end_position: tree_sitter::Point { row: 0, column: 7 },
    });
    let new_text = "int abc;\nint b;\n";
    let new = parse(new_text, Some(&old));
    assert_eq!(
        new.root_node().to_sexp(),
        parse(new_text, None).root_node().to_sexp()
    );
    assert_eq!(c_language().abi_version(), new.language().abi_version());
}

#[test]
fn blank_comments_keeps_offsets_and_code() {
    use super::blank_comments;
    let src =
        "int a; // x\nchar *s = \"/* no */\"; /* c\n é */ int b; /*/ still */ c = '/'; x /**/ y";
    let out = blank_comments(src);
    assert_eq!(out.len(), src.len());
    assert_eq!(out.matches('\n').count(), src.matches('\n').count());
    assert!(out.contains("\"/* no */\""), "{out}");
    assert!(out.contains("int b;"));
    assert!(!out.contains("still"));
    assert!(out.contains("c = '/';"));
    assert!(out.contains("x      y"));
    assert!(!out.contains("// x"));
    // Unterminated comment and lone slashes do not panic.
    assert_eq!(blank_comments("a /* b").len(), 6);
    assert_eq!(blank_comments("/").as_ref(), "/");
}

#[test]
fn else_followed_by_a_comment_keeps_its_statement() {
    let src =
        "void f(int **p, int *q) {\n  if (q) *p = 0;\n  else\n    /* why */\n    *p = q;\n}\n";
    let text = crate::ir::lower_snippet(src).1[0].to_string();
    assert!(text.contains("*p = q"), "{text}");
}

/// `reparse_changed` (the server's incremental parse of a text it derives itself, given only
/// the old and the new text) gives the tree a fresh parse gives, and never stale offsets:
/// random edits anywhere, multi-byte characters and line breaks included, several at once.
#[test]
fn reparse_of_a_changed_text_matches_fresh_parse() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut text = BASE.repeat(2);
    let mut tree = parse(&text, None);
    let mut exact = 0;
    for _ in 0..300 {
        let mut next = text.clone();
        for _ in 0..1 + rng.below(2) {
            let boundaries: Vec<usize> = next
                .char_indices()
                .map(|(i, _)| i)
                .chain([next.len()])
                .collect();
            let first = rng.below(boundaries.len());
            let last = (first + rng.below(20)).min(boundaries.len() - 1);
            let inserted = if rng.below(3) > 0 {
                SNIPPETS[rng.below(SNIPPETS.len())]
            } else {
                ""
            };
            next.replace_range(boundaries[first]..boundaries[last], inserted);
        }
        let reparsed = reparse_changed(&text, &tree, &next);
        let fresh = parse(&next, None);
        // Stale offsets would show as nodes past the text or at the wrong line and column.
        let index = LineIndex::new(&next);
        for (kind, range, start) in node_dump(&reparsed) {
            assert!(
                range.start <= range.end && range.end as usize <= next.len(),
                "{kind}"
            );
            assert_eq!(start, index.point(range.start), "{kind} in {next:?}");
        }
        if !fresh.root_node().has_error() {
            assert_eq!(
                reparsed.root_node().to_sexp(),
                fresh.root_node().to_sexp(),
                "text: {next:?}"
            );
            assert_eq!(node_dump(&reparsed), node_dump(&fresh), "text: {next:?}");
            exact += 1;
        }
        text = next;
        tree = reparsed;
    }
    assert!(exact >= 30, "only {exact} exact comparisons");
}

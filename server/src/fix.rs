//! Quick fixes for leaks, as plain text edits: byte ranges of the file's text and their
//! replacements. No LSP types and no database, so they are tested on C text alone; the language
//! server (`lsp::analysis`) turns them into LSP `TextEdit`s in the client's position encoding.
//!
//! A fix is offered only where it is clearly right:
//! - a local that dies at a `return`, `break`, `continue`, `goto` or block end: insert
//!   `free(var);` before that statement, unless the statement itself reads `var`;
//! - a local overwritten by an assignment: insert `free(var);` before it, unless the new value
//!   reads `var` (`p = realloc(p, n)` needs a different fix);
//! - `free(p)` that loses `p->field`: insert `free(p->field);` before it;
//! - in goto-style functions, a `return` before a cleanup label that already frees `var`:
//!   jump to the label instead (`rc = E; goto out;`).
//!
//! Insertions look like the code around them: the file's indentation unit (tabs, or the most
//! common step of spaces), its brace placement (`if (c) {` or the `{` on a line of its own)
//! and its line endings. A statement that is the body of an `if`/`else`/loop/label without
//! braces gets braces, so the inserted `free` runs only on that path; a comment that ends the
//! statement's line stays on that line, inside the braces.

use crate::probe::ProbeKind;
use crate::syntax::TextRange;
use tree_sitter::{Node, Tree};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuickFix {
    pub title: String,
    /// Byte ranges of the original text and their replacements; non-overlapping.
    pub edits: Vec<(TextRange, String)>,
    pub preferred: bool,
}

/// What the fixes need to know about one leak finding.
pub struct LeakSite<'a> {
    pub kind: ProbeKind,
    /// The lost reference as the user wrote it (`p`, `u->email`).
    pub variable: &'a str,
    /// The probe's byte range in the file.
    pub range: TextRange,
}

/// The quick fixes for one leak, best first.
pub fn quick_fixes(text: &str, tree: &Tree, leak: &LeakSite<'_>) -> Vec<QuickFix> {
    let var = leak.variable;
    let var_ok = match leak.kind {
        ProbeKind::FreeField => is_access_path(var),
        ProbeKind::IgnoredReturn => false,
        _ => is_identifier(var),
    };
    if !var_ok || leak.range.start as usize > text.len() {
        return vec![];
    }
    let Some(target) = losing_statement(tree, leak.range) else {
        return vec![];
    };
    let style = Style::of(text);
    let free_stmt = format!("free({var});");
    let mut fixes = Vec::new();
    match target {
        Target::BlockEnd(brace) => {
            let edit = insert_before_brace(text, brace, &free_stmt, &style);
            fixes.push(QuickFix {
                title: format!("Insert `{free_stmt}` before the end of the block"),
                edits: vec![edit],
                preferred: true,
            });
        }
        Target::Statement(stmt) => {
            let stmt_text = node_text(text, stmt);
            let uses = count_identifier(stmt_text, root_identifier(var));
            let allowed = match leak.kind {
                ProbeKind::ReturnLocal | ProbeKind::ScopeEnd => uses == 0 && is_jump(stmt.kind()),
                ProbeKind::Assignment | ProbeKind::Allocation | ProbeKind::AssignedReturn => {
                    stmt.kind() == "expression_statement" && uses == 1
                }
                ProbeKind::FreeField => stmt.kind() == "expression_statement",
                ProbeKind::IgnoredReturn => false,
            };
            if !allowed {
                return vec![];
            }
            if leak.kind == ProbeKind::ReturnLocal
                && let Some(fix) = jump_to_cleanup(text, stmt, var, &style)
            {
                fixes.push(fix);
            }
            if let Some(edit) =
                insert_before(text, stmt, std::slice::from_ref(&free_stmt), false, &style)
            {
                let first_line = stmt_text.lines().next().unwrap_or("").trim();
                fixes.push(QuickFix {
                    title: format!("Insert `{free_stmt}` before `{}`", shorten(first_line)),
                    edits: vec![edit],
                    preferred: fixes.is_empty(),
                });
            }
        }
    }
    fixes
}

/// Applies non-overlapping edits (as returned in a [`QuickFix`]) to a text.
pub fn apply(text: &str, edits: &[(TextRange, String)]) -> String {
    let mut sorted: Vec<&(TextRange, String)> = edits.iter().collect();
    sorted.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
    let mut out = text.to_string();
    for (r, new) in sorted {
        out.replace_range(r.start as usize..r.end as usize, new);
    }
    out
}

enum Target<'t> {
    Statement(Node<'t>),
    /// The closing brace of the block the variable dies at.
    BlockEnd(Node<'t>),
}

fn losing_statement(tree: &Tree, range: TextRange) -> Option<Target<'_>> {
    let start = range.start as usize;
    let end = (range.end as usize).max(start);
    let mut node = tree.root_node().descendant_for_byte_range(start, end)?;
    // A scope end at the natural end of a block points at its `}`.
    if node.kind() == "}"
        && let Some(parent) = node.parent()
        && parent.kind() == "compound_statement"
    {
        return Some(Target::BlockEnd(node));
    }
    loop {
        let kind = node.kind();
        if kind == "function_definition" || kind == "translation_unit" {
            return None;
        }
        if kind == "compound_statement" {
            return None;
        }
        if (kind.ends_with("_statement") && kind != "labeled_statement") || kind == "declaration" {
            return Some(Target::Statement(node));
        }
        node = node.parent()?;
    }
}

fn is_jump(kind: &str) -> bool {
    matches!(
        kind,
        "return_statement" | "break_statement" | "continue_statement" | "goto_statement"
    )
}

/// Parents whose children are a statement list: a new statement can go next to a child.
fn is_statement_list(kind: &str) -> bool {
    matches!(
        kind,
        "compound_statement" | "case_statement" | "translation_unit"
    ) || kind.starts_with("preproc_")
}

/// Indentation, brace and line-ending conventions of a file, so that inserted code looks like
/// the code around it.
struct Style {
    /// One level of indentation: a tab, or the most common step between a line and a more
    /// indented next line (continuation lines aligned under a parenthesis are rarer).
    unit: String,
    /// Whether the file puts the `{` of an `if`/`for`/`while`/`else` on a line of its own.
    brace_own_line: bool,
    newline: &'static str,
}

impl Style {
    fn of(text: &str) -> Style {
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let mut tabs = 0usize;
        let mut spaces = 0usize;
        // How often each increase of indentation (in spaces) occurs between successive lines.
        let mut steps = [0usize; 9];
        let mut prev: Option<usize> = None;
        let (mut same_line, mut own_line) = (0usize, 0usize);
        let mut head_pending = false;
        for line in text.lines() {
            let trimmed = line.trim_start_matches([' ', '\t']);
            let code = trimmed.trim_end();
            if code.is_empty() || code.starts_with('*') || code.starts_with('#') {
                continue; // blank lines, block comment middles and preprocessor lines say nothing
            }
            if head_pending && code == "{" {
                own_line += 1;
            }
            let is_head = [
                "if ", "if(", "for ", "for(", "while ", "while(", "else", "switch",
            ]
            .iter()
            .any(|k| code.starts_with(k));
            head_pending = is_head && code.ends_with(')') || code == "else";
            if is_head && code.ends_with('{') {
                same_line += 1;
            }
            let indent = &line[..line.len() - trimmed.len()];
            if indent.starts_with('\t') {
                tabs += 1;
                prev = None;
                continue;
            }
            if !indent.is_empty() {
                spaces += 1;
            }
            let width = indent.len();
            if let Some(p) = prev
                && width > p
                && width - p < steps.len()
            {
                steps[width - p] += 1;
            }
            prev = Some(width);
        }
        // The most common step of 2 to 8 spaces (the smaller one on a tie).
        let step = (2..steps.len())
            .filter(|&w| steps[w] > 0)
            .max_by_key(|&w| (steps[w], std::cmp::Reverse(w)));
        let unit = if tabs > spaces {
            "\t".to_string()
        } else {
            " ".repeat(step.unwrap_or(4))
        };
        Style {
            unit,
            brace_own_line: own_line > same_line,
            newline,
        }
    }
}

/// A comment that ends the line `stmt` ends on (`return -1;   // bad input`): its start and
/// end. It belongs to the statement and moves with it.
fn trailing_comment(text: &str, stmt: Node<'_>) -> Option<(usize, usize)> {
    // The comment is a node of the tree, but not always the statement's sibling (after the
    // body of an unbraced `if`, it is the `if`'s): look it up where the spaces end.
    let after = text.get(stmt.end_byte()..)?;
    let at = stmt.end_byte() + (after.len() - after.trim_start_matches([' ', '\t']).len());
    let mut root = stmt;
    while let Some(p) = root.parent() {
        root = p;
    }
    let comment = root
        .descendant_for_byte_range(at, at + 1)
        .filter(|n| n.kind() == "comment" && n.start_byte() == at)?;
    let rest = text.get(comment.end_byte()..)?;
    let line_rest = &rest[..rest.find('\n').unwrap_or(rest.len())];
    let one_line = !node_text(text, comment).contains('\n');
    (one_line && line_rest.trim().is_empty()).then(|| (comment.start_byte(), comment.end_byte()))
}

fn node_text<'a>(text: &'a str, node: Node<'_>) -> &'a str {
    text.get(node.start_byte()..node.end_byte()).unwrap_or("")
}

fn line_start(text: &str, offset: usize) -> usize {
    text[..offset].rfind('\n').map(|i| i + 1).unwrap_or(0)
}

/// The whitespace that starts the line containing `offset`.
fn indentation_at(text: &str, offset: usize) -> &str {
    let start = line_start(text, offset);
    let line = &text[start..];
    let n = line.len() - line.trim_start_matches([' ', '\t']).len();
    &line[..n]
}

/// Whether only whitespace precedes `offset` on its line.
fn starts_line(text: &str, offset: usize) -> bool {
    text[line_start(text, offset)..offset]
        .chars()
        .all(|c| c == ' ' || c == '\t')
}

/// An edit that puts `lines` (statements) right before `stmt`, on lines of their own when `stmt`
/// starts its line. If `stmt` is the unbraced body of an `if`, loop, `else` or label, the edit
/// wraps the statements and `stmt` in braces. With `replace`, `stmt` itself is dropped.
fn insert_before(
    text: &str,
    stmt: Node<'_>,
    lines: &[String],
    replace: bool,
    style: &Style,
) -> Option<(TextRange, String)> {
    let nl = style.newline;
    let start = stmt.start_byte();
    let stmt_text = node_text(text, stmt);
    let parent = stmt.parent()?;
    if is_statement_list(parent.kind()) {
        if starts_line(text, start) {
            let indent = indentation_at(text, start);
            let mut new: String = lines
                .iter()
                .map(|l| format!("{indent}{l}{nl}"))
                .collect::<String>();
            let at = line_start(text, start);
            if replace {
                // Keep the statement's indentation out of the replaced range.
                new = new.trim_end_matches(nl).to_string();
                new = new[indent.len()..].to_string();
                return Some((range(start, stmt.end_byte()), new));
            }
            return Some((range(at, at), new));
        }
        let mut new = lines.join(" ");
        if replace {
            return Some((range(start, stmt.end_byte()), new));
        }
        new.push(' ');
        return Some((range(start, start), new));
    }
    // An unbraced body: wrap it. Anything but whitespace between the head and the body (a
    // comment) would end up inside the braces or swallow them; offer nothing then.
    let head = stmt.prev_sibling()?;
    let gap = text.get(head.end_byte()..start)?;
    if !gap.chars().all(char::is_whitespace) {
        return None;
    }
    let outer = indentation_at(text, head.end_byte()).to_string();
    let inner = if starts_line(text, start) {
        indentation_at(text, start).to_string()
    } else {
        format!("{outer}{}", style.unit)
    };
    // A comment after the statement stays on the statement's line, inside the braces, instead
    // of trailing after the closing `}`.
    let (end, comment) = match trailing_comment(text, stmt) {
        Some((_, c_end)) => (c_end, text.get(stmt.end_byte()..c_end).unwrap_or("")),
        None => (stmt.end_byte(), ""),
    };
    let mut new = if style.brace_own_line {
        format!("{nl}{outer}{{{nl}")
    } else {
        format!(" {{{nl}")
    };
    for l in lines {
        new.push_str(&format!("{inner}{l}{nl}"));
    }
    if !replace {
        new.push_str(&format!("{inner}{stmt_text}{comment}{nl}"));
    } else if !comment.is_empty() {
        // The replaced statement's comment goes with the last new line.
        new.truncate(new.len() - nl.len());
        new.push_str(&format!("{comment}{nl}"));
    }
    new.push_str(&format!("{outer}}}"));
    Some((range(head.end_byte(), end), new))
}

fn insert_before_brace(
    text: &str,
    brace: Node<'_>,
    free_stmt: &str,
    style: &Style,
) -> (TextRange, String) {
    let at = brace.start_byte();
    if !starts_line(text, at) {
        return (range(at, at), format!("{free_stmt} "));
    }
    // Indent like the block's last statement, or one level deeper than the brace.
    let inner = match brace.prev_named_sibling() {
        Some(prev) if starts_line(text, prev.start_byte()) => {
            indentation_at(text, prev.start_byte()).to_string()
        }
        _ => format!("{}{}", indentation_at(text, at), style.unit),
    };
    let ls = line_start(text, at);
    (
        range(ls, ls),
        format!("{inner}{free_stmt}{}", style.newline),
    )
}

/// `return E;` before a cleanup label that already frees `var` and ends in `return R;`:
/// replace it by `R = E; goto label;`.
fn jump_to_cleanup(text: &str, ret: Node<'_>, var: &str, style: &Style) -> Option<QuickFix> {
    let mut func = ret.parent()?;
    while func.kind() != "function_definition" {
        func = func.parent()?;
    }
    let body = func.child_by_field_name("body")?;
    let label = first_label_after(body, ret.end_byte())?;
    let name = node_text(text, label.child_by_field_name("label")?);
    let cleanup = text.get(label.start_byte()..body.end_byte())?;
    if !frees(cleanup, var) {
        return None;
    }
    let final_return = last_return(label)?;
    let result = final_return
        .named_child(0)
        .map(|e| node_text(text, e).trim());
    let value = ret.named_child(0).map(|e| node_text(text, e).trim());
    let mut lines = Vec::new();
    match (value, result) {
        (None, None) => {}
        (Some(v), Some(r)) if v == r => {}
        (Some(v), Some(r)) if is_identifier(r) => lines.push(format!("{r} = {v};")),
        _ => return None,
    }
    lines.push(format!("goto {name};"));
    let edit = insert_before(text, ret, &lines, true, style)?;
    Some(QuickFix {
        title: format!("Jump to the cleanup label `{name}` (it frees `{var}`)"),
        edits: vec![edit],
        preferred: true,
    })
}

/// The first labeled statement of `body` that starts after `offset`.
fn first_label_after(body: Node<'_>, offset: usize) -> Option<Node<'_>> {
    let mut cursor = body.walk();
    let mut stack = vec![body];
    let mut best: Option<Node<'_>> = None;
    while let Some(n) = stack.pop() {
        if n.kind() == "labeled_statement" && n.start_byte() >= offset {
            if best.is_none_or(|b| n.start_byte() < b.start_byte()) {
                best = Some(n);
            }
            continue;
        }
        if n.end_byte() <= offset {
            continue;
        }
        stack.extend(n.children(&mut cursor));
    }
    best
}

/// The last `return` at or after `label`, in the same function (the cleanup's exit).
fn last_return(label: Node<'_>) -> Option<Node<'_>> {
    let mut candidates = Vec::new();
    let mut n = label;
    loop {
        collect_returns(n, &mut candidates);
        match n.next_sibling() {
            Some(s) => n = s,
            None => break,
        }
    }
    candidates.into_iter().max_by_key(|r| r.start_byte())
}

fn collect_returns<'t>(node: Node<'t>, out: &mut Vec<Node<'t>>) {
    if node.kind() == "return_statement" {
        out.push(node);
        return;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        collect_returns(child, out);
    }
}

/// Whether `code` calls `free(var)` (spacing aside).
fn frees(code: &str, var: &str) -> bool {
    let squeezed: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    let target: String = format!("free({var})")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let mut from = 0;
    while let Some(i) = squeezed[from..].find(&target) {
        let at = from + i;
        let before = squeezed[..at].chars().next_back();
        if !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            return true;
        }
        from = at + target.len();
    }
    false
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `p`, `p->next`, `s.buf`, `p->a.b`: the lost references a `free` can name directly.
fn is_access_path(s: &str) -> bool {
    s.replace("->", ".").split('.').all(is_identifier)
}

fn root_identifier(var: &str) -> &str {
    let end = var
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(var.len());
    &var[..end]
}

/// Occurrences of `ident` as a whole identifier in C text (strings and comments included,
/// which only makes the callers more careful).
fn count_identifier(code: &str, ident: &str) -> usize {
    if ident.is_empty() {
        return 0;
    }
    let bytes = code.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut count = 0;
    let mut from = 0;
    while let Some(i) = code[from..].find(ident) {
        let at = from + i;
        let end = at + ident.len();
        let before_ok = at == 0 || !is_word(bytes[at - 1]);
        let after_ok = end >= bytes.len() || !is_word(bytes[end]);
        // `x->ident` and `x.ident` name a field, not the variable.
        let field = code[..at].trim_end().ends_with("->") || code[..at].trim_end().ends_with('.');
        if before_ok && after_ok && !field {
            count += 1;
        }
        from = end;
    }
    count
}

fn shorten(s: &str) -> String {
    const MAX: usize = 40;
    if s.chars().count() <= MAX {
        return s.to_string();
    }
    let cut: String = s.chars().take(MAX).collect();
    format!("{cut}…")
}

fn range(start: usize, end: usize) -> TextRange {
    TextRange::new(start as u32, end as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixes(src: &str, kind: ProbeKind, var: &str, at: &str) -> Vec<QuickFix> {
        let tree = crate::syntax::parse(src, None);
        let start = src.find(at).expect("marker") as u32;
        let leak = LeakSite {
            kind,
            variable: var,
            range: TextRange::new(start, start + at.len() as u32),
        };
        quick_fixes(src, &tree, &leak)
    }

    fn fixed(src: &str, kind: ProbeKind, var: &str, at: &str) -> String {
        let f = fixes(src, kind, var, at);
        assert!(!f.is_empty(), "no fix");
        apply(src, &f[0].edits)
    }

    #[test]
    fn return_in_a_block_gets_a_free_on_its_own_line() {
        let src = "void f(void)\n{\n    char *p = malloc(1);\n    if (p) {\n        g();\n        return;\n    }\n    free(p);\n}\n";
        let out = fixed(src, ProbeKind::ReturnLocal, "p", "return;");
        assert!(
            out.contains("        g();\n        free(p);\n        return;\n"),
            "{out}"
        );
    }

    #[test]
    fn unbraced_if_body_is_wrapped() {
        let src = "int f(int n)\n{\n\tchar *c = malloc(4);\n\tif (n < 0)\n\t\treturn -1;\n\tfree(c);\n\treturn 0;\n}\n";
        let out = fixed(src, ProbeKind::ReturnLocal, "c", "return -1;");
        assert!(
            out.contains("\tif (n < 0) {\n\t\tfree(c);\n\t\treturn -1;\n\t}\n\tfree(c);"),
            "{out}"
        );
        let same_line = "int f(int n)\n{\n  char *c = malloc(4);\n  if (n < 0) return -1;\n  free(c);\n  return 0;\n}\n";
        let out = fixed(same_line, ProbeKind::ReturnLocal, "c", "return -1;");
        assert!(
            out.contains("  if (n < 0) {\n    free(c);\n    return -1;\n  }\n"),
            "{out}"
        );
    }

    #[test]
    fn no_fix_when_the_statement_reads_the_variable() {
        let src = "int f(void)\n{\n    int *p = malloc(4);\n    return *p;\n}\n";
        assert!(fixes(src, ProbeKind::ReturnLocal, "p", "return *p;").is_empty());
        let src = "void f(int *v)\n{\n    v = realloc(v, 8);\n}\n";
        assert!(fixes(src, ProbeKind::Assignment, "v", "v = realloc(v, 8)").is_empty());
        let src = "void f(void)\n{\n    g();\n}\n";
        assert!(fixes(src, ProbeKind::IgnoredReturn, "g()", "g()").is_empty());
    }

    #[test]
    fn overwrite_and_free_field() {
        let src = "void f(int n)\n{\n    char *row = NULL;\n    while (n--) {\n        row = malloc(8);\n    }\n    free(row);\n}\n";
        let out = fixed(src, ProbeKind::Allocation, "row", "row = malloc(8)");
        assert!(
            out.contains("        free(row);\n        row = malloc(8);"),
            "{out}"
        );
        let src = "void f(struct u *u)\n{\n    free(u);\n}\n";
        let out = fixed(src, ProbeKind::FreeField, "u->email", "free(u)");
        assert!(out.contains("    free(u->email);\n    free(u);"), "{out}");
    }

    #[test]
    fn block_end_gets_a_free_before_the_brace() {
        let src = "void f(int c)\n{\n    if (c) {\n        char *p = malloc(3);\n        p[0] = 0;\n    }\n}\n";
        let brace = src.find("    }\n}").unwrap() + 4;
        let tree = crate::syntax::parse(src, None);
        let leak = LeakSite {
            kind: ProbeKind::ScopeEnd,
            variable: "p",
            range: TextRange::new(brace as u32, brace as u32 + 1),
        };
        let f = quick_fixes(src, &tree, &leak);
        let out = apply(src, &f[0].edits);
        assert!(
            out.contains("        p[0] = 0;\n        free(p);\n    }\n"),
            "{out}"
        );
    }

    #[test]
    fn goto_style_jumps_to_the_cleanup_label() {
        let src = "int f(void)\n{\n    int rc = -1;\n    char *a = malloc(1);\n    if (a == NULL)\n        goto out;\n    if (g() < 0)\n        return -2;\n    rc = 0;\nout:\n    free(a);\n    return rc;\n}\n";
        let f = fixes(src, ProbeKind::ReturnLocal, "a", "return -2;");
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(f[0].preferred && !f[1].preferred);
        let out = apply(src, &f[0].edits);
        assert!(
            out.contains("    if (g() < 0) {\n        rc = -2;\n        goto out;\n    }\n"),
            "{out}"
        );
        // A label that does not free the variable is no cleanup for it.
        let other = src.replace("free(a);", "free(b);");
        let f = fixes(&other, ProbeKind::ReturnLocal, "a", "return -2;");
        assert_eq!(f.len(), 1);
        assert!(f[0].title.starts_with("Insert `free(a);`"));
    }

    /// issue 21: the fixture's trailing comment stayed after the inserted `}` with its run of
    /// spaces; it stays on the statement's line.
    #[test]
    fn a_trailing_comment_stays_on_its_statement_line() {
        let src = "int f(int n)\n{\n    char *copy = malloc(4);\n    if (n < 0)\n        return -1;                  // expect: leak copy\n    free(copy);\n    return 0;\n}\n";
        let out = fixed(src, ProbeKind::ReturnLocal, "copy", "return -1;");
        assert_eq!(
            out,
            "int f(int n)\n{\n    char *copy = malloc(4);\n    if (n < 0) {\n        free(copy);\n        return -1;                  // expect: leak copy\n    }\n    free(copy);\n    return 0;\n}\n"
        );
        // On the head's line too, and a block comment.
        let src = "int f(int n)\n{\n  char *c = malloc(4);\n  if (n < 0) return -1; /* bad */\n  free(c);\n  return 0;\n}\n";
        let out = fixed(src, ProbeKind::ReturnLocal, "c", "return -1;");
        assert!(
            out.contains("  if (n < 0) {\n    free(c);\n    return -1; /* bad */\n  }\n  free(c);"),
            "{out}"
        );
        // A comment that continues on the next lines is not the statement's: nothing moves
        // into the braces, and no fix swallows it.
        let src = "int f(int n)\n{\n    char *c = malloc(4);\n    if (n < 0)\n        return -1; /* long\n                      comment */\n    free(c);\n    return 0;\n}\n";
        let out = fixed(src, ProbeKind::ReturnLocal, "c", "return -1;");
        assert!(
            out.contains("    if (n < 0) {\n        free(c);\n        return -1;\n    } /* long\n"),
            "{out}"
        );
    }

    #[test]
    fn the_indent_unit_and_brace_style_come_from_the_file() {
        // Two-space steps, with a continuation line aligned under a parenthesis (odd step) and
        // a one-space comment middle: the unit is two spaces.
        let src = "int g(int a,\n      int b);\nint f(int n)\n{\n  char *c = malloc(4);\n  if (n > 0) {\n    n = g(n,\n          n);\n  }\n  /*\n   * note\n   */\n  if (n < 0) return -1;\n  free(c);\n  return 0;\n}\n";
        let out = fixed(src, ProbeKind::ReturnLocal, "c", "return -1;");
        assert!(
            out.contains("  if (n < 0) {\n    free(c);\n    return -1;\n  }\n"),
            "{out}"
        );
        // Braces on their own line (Allman), as the file's other `if`s have them.
        let src = "int f(int n)\n{\n    char *c = malloc(4);\n    if (n > 0)\n    {\n        n--;\n    }\n    if (n < 0)\n        return -1;\n    free(c);\n    return 0;\n}\n";
        let out = fixed(src, ProbeKind::ReturnLocal, "c", "return -1;");
        assert!(
            out.contains(
                "    if (n < 0)\n    {\n        free(c);\n        return -1;\n    }\n    free(c);"
            ),
            "{out}"
        );
        assert_eq!(
            Style::of("void f(void)\n{\n\tif (x) {\n\t\ty();\n\t}\n}\n").unit,
            "\t"
        );
        assert_eq!(
            Style::of("x;\n").unit,
            "    ",
            "no indented line: four spaces"
        );
    }

    #[test]
    fn crlf_files_keep_crlf() {
        let src = "void f(void)\r\n{\r\n    char *p = malloc(1);\r\n    return;\r\n}\r\n";
        let out = fixed(src, ProbeKind::ReturnLocal, "p", "return;");
        assert!(out.contains("    free(p);\r\n    return;\r\n"), "{out:?}");
    }
}

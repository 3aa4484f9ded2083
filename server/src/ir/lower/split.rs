//! `#if` groups inside one statement or one condition: `if (a &&⏎#ifdef X⏎b &&⏎#endif⏎c)`,
//! `f(a,⏎#ifdef X⏎b,⏎#endif⏎c);`, `x = y⏎#ifdef X⏎+ z⏎#endif⏎;`. tree-sitter sees directive
//! lines in the middle of an expression: a syntax error, and the statement would be opaque
//! (and its function never counted as never returning). The groups are resolved in the text:
//! the function is lowered from a text where each such group has its first arm (directive lines
//! and other arms blanked, same offsets), and the statement or condition the groups lie in is
//! lowered as a nondeterministic choice between that text and one alternative text per other
//! choice of arms, as an `#if` between statements is a choice between its branches.
//!
//! A group is *split* when no directive is nested in it and, with its first arm chosen, the
//! smallest statement or `if`/`while`/`do` condition around it begins before its `#if` line,
//! ends after its `#endif` line and parses without error. The groups of one statement are
//! chosen together: every combination of their arms (and no arm, for a group without `#else`),
//! at most [`MAX_COMBINATIONS`]. Anything else keeps its directives, as before: a group
//! between statements is lowered by `conditional`, one that fits none of this stays a syntax
//! error. One more shape is split: a group with `#else` whose arms are each the head of one
//! `if` or `while` (`#ifdef X⏎if (a)⏎#else⏎if (b)⏎#endif⏎{…}`), which tree-sitter reads as
//! nested `if`s with an error; there the statement's condition is the choice (`header_span_of`),
//! and its body is lowered once. This runs after `typeofs` and `repair` (a group those make
//! parse is not split).
//! Every alternative must be lowered: when the lowering did not meet a split statement where
//! it was planned (an `if` with a detached `else` is lowered without `stmt`), the function is
//! lowered again without splits (see `lower_function`), never with one arm only.

use super::Builder;
use crate::syntax::TextRange;
use crate::syntax::ts::has_syntax_error;
use rustc_hash::FxHashMap;
use std::ops::Range;
use tree_sitter::{InputEdit, Node, Point, Tree};

/// Combinations of arms one statement is lowered with, at most.
const MAX_COMBINATIONS: usize = 8;
/// Groups looked at per function, at most.
const MAX_GROUPS: usize = 256;
/// Bytes re-parsed for the alternative texts of one function, at most.
const MAX_REPARSE_BYTES: usize = 8 << 20;
/// Rounds of choosing groups: a group dropped can change how the others parse.
const MAX_ROUNDS: usize = 3;

/// A conditional group in the text.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Group {
    /// From the start of the `#if` line to the end of the `#endif` line (newline excluded).
    range: Range<usize>,
    /// Its directive lines (continuations included, newline excluded).
    directives: Vec<Range<usize>>,
    /// The body of each arm, between its directive line and the next.
    arms: Vec<Range<usize>>,
    has_else: bool,
}

impl Group {
    /// The choices of arm: each arm, and none when there is no `#else`.
    fn choices(&self) -> Vec<Option<usize>> {
        let mut out: Vec<Option<usize>> = (0..self.arms.len()).map(Some).collect();
        if !self.has_else {
            out.push(None);
        }
        out
    }

    /// The group's text (from `original`) with `arm` chosen: directive lines and the other arms
    /// blanked.
    fn chosen(&self, original: &[u8], arm: Option<usize>) -> Vec<u8> {
        let mut bytes = original[self.range.clone()].to_vec();
        let base = self.range.start;
        let mut blank = |r: &Range<usize>| {
            for b in &mut bytes[r.start - base..r.end - base] {
                if *b != b'\n' {
                    *b = b' ';
                }
            }
        };
        for d in &self.directives {
            blank(d);
        }
        for (i, a) in self.arms.iter().enumerate() {
            if Some(i) != arm {
                blank(a);
            }
        }
        bytes
    }
}

/// The conditional groups of `text` with no directive nested in them, whole (`#if` to
/// `#endif`), in order.
fn flat_groups(text: &[u8]) -> Vec<Group> {
    struct Open {
        start: usize,
        directives: Vec<Range<usize>>,
        arms: Vec<Range<usize>>,
        body_start: usize,
        nested: bool,
        has_else: bool,
    }
    let mut stack: Vec<Open> = Vec::new();
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let start = i;
        // The logical line: a backslash before the newline continues it.
        let mut end = i;
        let next = loop {
            match text[end..].iter().position(|&b| b == b'\n') {
                Some(k) => {
                    let nl = end + k;
                    let before = text[start..nl].trim_ascii_end();
                    if before.ends_with(b"\\") {
                        end = nl + 1;
                        continue;
                    }
                    end = nl;
                    break nl + 1;
                }
                None => {
                    end = text.len();
                    break text.len();
                }
            }
        };
        let line = text[start..end].trim_ascii_start();
        if let Some(rest) = line.strip_prefix(b"#") {
            let rest = rest.trim_ascii_start();
            let kw_len = rest
                .iter()
                .position(|b| !b.is_ascii_alphabetic())
                .unwrap_or(rest.len());
            let directive = start..end;
            match &rest[..kw_len] {
                b"if" | b"ifdef" | b"ifndef" => {
                    if let Some(top) = stack.last_mut() {
                        top.nested = true;
                    }
                    stack.push(Open {
                        start,
                        directives: vec![directive],
                        arms: Vec::new(),
                        body_start: next,
                        nested: false,
                        has_else: false,
                    });
                }
                kw @ (b"elif" | b"elifdef" | b"elifndef" | b"else") => {
                    if let Some(top) = stack.last_mut() {
                        top.arms.push(top.body_start..start);
                        top.directives.push(directive);
                        top.body_start = next;
                        top.has_else |= kw == b"else";
                    }
                }
                b"endif" => {
                    if let Some(mut top) = stack.pop() {
                        top.arms.push(top.body_start..start);
                        top.directives.push(directive);
                        if !top.nested {
                            out.push(Group {
                                range: top.start..end,
                                directives: top.directives,
                                arms: top.arms,
                                has_else: top.has_else,
                            });
                        }
                    }
                }
                _ => {
                    // `#define`, `#error`, … inside a group: not resolved here.
                    if let Some(top) = stack.last_mut() {
                        top.nested = true;
                    }
                }
            }
        }
        i = next;
    }
    out
}

/// The statement or `if`/`while`/`do` condition that `g` lies inside, in a tree where `g`'s
/// arm is chosen: begins before `g`, ends after it, and parses.
fn span_of<'t>(root: Node<'t>, g: &Group) -> Option<Node<'t>> {
    let mut n = root.descendant_for_byte_range(g.range.start, g.range.end)?;
    loop {
        let is_condition = n.kind() == "parenthesized_expression"
            && n.parent().is_some_and(|p| {
                matches!(
                    p.kind(),
                    "if_statement" | "while_statement" | "do_statement"
                ) && p.child_by_field_name("condition") == Some(n)
            });
        if is_condition {
            break;
        }
        match n.kind() {
            "expression_statement"
            | "declaration"
            | "return_statement"
            | "if_statement"
            | "while_statement"
            | "do_statement"
            | "for_statement"
            | "switch_statement" => break,
            "compound_statement"
            | "case_statement"
            | "labeled_statement"
            | "function_definition"
            | "translation_unit"
            | "ERROR" => return None,
            k if k.starts_with("preproc") => return None,
            _ => n = n.parent()?,
        }
    }
    (n.start_byte() < g.range.start && n.end_byte() > g.range.end && !has_syntax_error(n))
        .then_some(n)
}

/// The condition of the statement whose head is `g`'s chosen arm
/// (`#ifdef X⏎if (a)⏎#else⏎if (b)⏎#endif⏎{…}`, also `while`), with that statement: it begins at
/// the arm's first token, with nothing else of the group before it, ends after the `#endif`
/// line and parses. The condition is split, not the statement: its body is lowered once.
/// Only for a group with `#else`: without one, the choice of no arm is the body alone, which
/// `conditional` lowers (`preproc_then_statement`).
fn header_span_of<'t>(root: Node<'t>, g: &Group, text: &[u8]) -> Option<(Node<'t>, Node<'t>)> {
    if !g.has_else {
        return None;
    }
    let s = first_token(text, &g.range)?;
    let mut n = root.descendant_for_byte_range(s, s)?;
    let mut best = None;
    while n.start_byte() == s {
        if matches!(n.kind(), "if_statement" | "while_statement") {
            best = Some(n);
        }
        n = match n.parent() {
            Some(p) => p,
            None => break,
        };
    }
    let n = best?;
    let c = n.child_by_field_name("condition")?;
    (c.end_byte() <= g.range.end && n.end_byte() > g.range.end && !has_syntax_error(n))
        .then_some((c, n))
}

/// The offset of the first byte of `range` that is not white space.
fn first_token(text: &[u8], range: &Range<usize>) -> Option<usize> {
    let at = text.get(range.clone())?;
    Some(range.start + at.iter().position(|b| !b.is_ascii_whitespace())?)
}

/// One choice of arms of a statement's groups: each group's range with its text for it.
type Alternative = Vec<(Range<usize>, Vec<u8>)>;

/// One statement or condition with split groups, as planned.
#[derive(Debug)]
struct PlannedSpan {
    span: (u32, u32),
    /// The node's kind (`kind_id`).
    kind: u16,
    /// Each alternative: the groups' ranges with their text for that choice of arms.
    alternatives: Vec<Alternative>,
    /// When the span is a condition whose statement's head is a group's arms
    /// (`header_span_of`): where that statement is found in an alternative.
    header: Option<Header>,
}

/// A statement whose head is the arms of a group: in each alternative it begins at the chosen
/// arm's first token and ends where it does in the plan's text.
#[derive(Clone, Debug)]
struct Header {
    group: Range<usize>,
    /// The statement's kind (`kind_id`) and end.
    kind: u16,
    end: u32,
}

/// The text to lower, with the first arm of each split group, and what the alternatives are.
pub(super) struct Plan {
    pub text: String,
    pub tree: Tree,
    spans: Vec<PlannedSpan>,
}

/// The split groups of a function's text (comments blanked, rewritten by `typeofs` and
/// `repair`) and its tree; `None` when it has none (the common case: the tree has no error,
/// or no group is split).
pub(super) fn plan(text: &str, tree: &Tree) -> Option<Plan> {
    if !tree.root_node().has_error() || !text.contains('#') {
        return None;
    }
    let original = text.as_bytes();
    let groups = flat_groups(original);
    let mut chosen: Vec<usize> = (0..groups.len().min(MAX_GROUPS)).collect();
    for _ in 0..MAX_ROUNDS {
        if chosen.is_empty() {
            return None;
        }
        let mut bytes = original.to_vec();
        for &g in &chosen {
            let g = &groups[g];
            bytes[g.range.clone()].copy_from_slice(&g.chosen(original, Some(0)));
        }
        let main = String::from_utf8(bytes).ok()?;
        let main_tree = crate::syntax::parse(&main, None);
        // Groups by the statement they lie in.
        let mut by_span: FxHashMap<(u32, u32), (u16, Vec<usize>)> = FxHashMap::default();
        let mut headers: FxHashMap<(u32, u32), Header> = FxHashMap::default();
        for &g in &chosen {
            let root = main_tree.root_node();
            let n = match span_of(root, &groups[g]) {
                Some(n) => n,
                None => match header_span_of(root, &groups[g], main.as_bytes()) {
                    Some((c, statement)) => {
                        let key = (c.start_byte() as u32, c.end_byte() as u32);
                        let header = Header {
                            group: groups[g].range.clone(),
                            kind: statement.kind_id(),
                            end: statement.end_byte() as u32,
                        };
                        headers.insert(key, header);
                        c
                    }
                    None => continue,
                },
            };
            let key = (n.start_byte() as u32, n.end_byte() as u32);
            by_span
                .entry(key)
                .or_insert((n.kind_id(), Vec::new()))
                .1
                .push(g);
        }
        let mut spans: Vec<PlannedSpan> = Vec::new();
        let mut keep: Vec<usize> = Vec::new();
        let mut reparsed = 0usize;
        let mut keys: Vec<(u32, u32)> = by_span.keys().copied().collect();
        keys.sort_unstable();
        for key in keys {
            let (kind, members) = &by_span[&key];
            // A statement whose head is a group's arms is split on that group alone.
            let header = headers.get(&key).cloned();
            if header.is_some() && members.len() > 1 {
                continue;
            }
            let Some(alternatives) = combinations(&groups, members, original) else {
                continue;
            };
            let cost = alternatives.len() * original.len();
            if reparsed + cost > MAX_REPARSE_BYTES {
                continue;
            }
            reparsed += cost;
            keep.extend(members);
            spans.push(PlannedSpan {
                span: key,
                kind: *kind,
                alternatives,
                header,
            });
        }
        keep.sort_unstable();
        if keep == chosen {
            return Some(Plan {
                text: main,
                tree: main_tree,
                spans,
            });
        }
        chosen = keep;
    }
    None
}

/// Every choice of arms of the groups `members` but the first arms, as the text of each group;
/// `None` past [`MAX_COMBINATIONS`].
fn combinations(groups: &[Group], members: &[usize], original: &[u8]) -> Option<Vec<Alternative>> {
    let choices: Vec<Vec<Option<usize>>> = members.iter().map(|&g| groups[g].choices()).collect();
    let total = choices
        .iter()
        .try_fold(1usize, |acc, c| acc.checked_mul(c.len()))?;
    if total > MAX_COMBINATIONS {
        return None;
    }
    let first: Vec<Vec<u8>> = members
        .iter()
        .map(|&g| groups[g].chosen(original, Some(0)))
        .collect();
    let mut seen: Vec<Vec<Vec<u8>>> = vec![first];
    let mut out = Vec::new();
    for mut k in 0..total {
        let mut texts = Vec::with_capacity(members.len());
        for (m, c) in members.iter().zip(&choices) {
            texts.push(groups[*m].chosen(original, c[k % c.len()]));
            k /= c.len();
        }
        // An arm the build decided dead is blank already: that choice is no arm.
        if seen.contains(&texts) {
            continue;
        }
        seen.push(texts.clone());
        out.push(
            members
                .iter()
                .map(|&g| groups[g].range.clone())
                .zip(texts)
                .collect(),
        );
    }
    Some(out)
}

/// One statement or condition to lower as a choice: the node of the lowered text at `span`
/// of `kind`, and each alternative text with its tree.
pub(super) struct Split {
    pub span: (u32, u32),
    /// The node's kind (`kind_id`).
    pub kind: u16,
    pub alternatives: Vec<(String, Tree)>,
    /// Where the condition is found in an alternative, when its statement's head is the arms
    /// of a group.
    header: Option<Header>,
}

/// The alternative texts of `plan`: each one is the plan's text with the groups of one choice
/// of arms, parsed again incrementally.
pub(super) fn alternatives(plan: &Plan) -> Vec<Split> {
    let text = plan.text.as_str();
    let mut out = Vec::with_capacity(plan.spans.len());
    for s in &plan.spans {
        let mut alternatives = Vec::with_capacity(s.alternatives.len());
        for alt in &s.alternatives {
            let mut bytes = text.as_bytes().to_vec();
            let mut edited = plan.tree.clone();
            for (range, group_text) in alt {
                bytes[range.clone()].copy_from_slice(group_text);
                let (p0, p1) = (point(text, range.start), point(text, range.end));
                edited.edit(&InputEdit {
                    start_byte: range.start,
                    old_end_byte: range.end,
                    new_end_byte: range.end,
                    start_position: p0,
                    old_end_position: p1,
                    new_end_position: p1,
                });
            }
            // The groups' texts are whole lines of the same valid UTF-8 text.
            let alt_text = String::from_utf8(bytes).unwrap_or_else(|_| text.to_string());
            let alt_tree = crate::syntax::parse(&alt_text, Some(&edited));
            alternatives.push((alt_text, alt_tree));
        }
        out.push(Split {
            span: s.span,
            kind: s.kind,
            alternatives,
            header: s.header.clone(),
        });
    }
    out
}

fn point(text: &str, offset: usize) -> Point {
    let before = &text.as_bytes()[..offset.min(text.len())];
    let row = before.iter().filter(|&&b| b == b'\n').count();
    let column = before.len()
        - before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
    Point { row, column }
}

/// The node of `tree` at exactly `span`, of `kind`.
fn node_at<'t>(tree: &'t Tree, span: (u32, u32), kind: u16) -> Option<Node<'t>> {
    let (s, e) = (span.0 as usize, span.1 as usize);
    let mut n = tree.root_node().descendant_for_byte_range(s, e)?;
    loop {
        if n.start_byte() == s && n.end_byte() == e && n.kind_id() == kind {
            return Some(n);
        }
        if n.start_byte() < s || n.end_byte() > e {
            return None;
        }
        n = n.parent()?;
    }
}

/// The statement or condition of `split` in one alternative (`text`, `tree`): at the same
/// span; or, for the condition of a statement whose head is a group's arms, the condition of
/// that statement beginning at the chosen arm's first token (nothing else of the group before
/// it: an arm that holds more than a head has no such statement) and ending where the planned
/// one does.
fn split_node<'t>(split: &Split, text: &[u8], tree: &'t Tree) -> Option<Node<'t>> {
    let Some(h) = &split.header else {
        return node_at(tree, split.span, split.kind);
    };
    let start = first_token(text, &h.group)?;
    if start >= h.group.end {
        return None;
    }
    let statement = node_at(tree, (start as u32, h.end), h.kind)?;
    let c = statement.child_by_field_name("condition")?;
    (c.kind_id() == split.kind && c.end_byte() <= h.group.end).then_some(c)
}

/// How a split statement or condition is lowered, once per alternative.
pub(super) enum SplitAs {
    Statement,
    Condition {
        t: crate::ir::NodeId,
        f: crate::ir::NodeId,
    },
}

impl Builder<'_> {
    /// Lowers `n` as a choice between the texts of its split groups (see the module) when it is
    /// such a statement or condition; returns whether it was.
    pub(super) fn split_choice(&mut self, n: Node, how: SplitAs) -> bool {
        if self.splits.is_empty() {
            return false;
        }
        let key = (n.start_byte() as u32, n.end_byte() as u32);
        let splits = self.splits;
        let Some(i) = splits
            .iter()
            .position(|s| s.span == key && s.kind == n.kind_id())
        else {
            return false;
        };
        if self.split_active.contains(&i) {
            return false;
        }
        self.split_used[i] = true;
        self.split_active.push(i);
        let range = TextRange::of_node(&n);
        let start = self.ensure_reachable_point(range);
        let join = match how {
            SplitAs::Statement => Some(self.join(TextRange::new(range.end, range.end))),
            SplitAs::Condition { .. } => None,
        };
        self.cur = Some(start);
        self.lower_split_variant(n, &how, join);
        for (text, tree) in &splits[i].alternatives {
            self.cur = Some(start);
            let saved = (self.src, self.shown_src);
            self.src = text.as_bytes();
            self.shown_src = self.src;
            match split_node(&splits[i], text.as_bytes(), tree) {
                Some(alt) => self.lower_split_variant(alt, &how, join),
                None => {
                    // This choice of arms parses otherwise: opaque, as before.
                    self.fallback(range, "syntax error");
                    let p = self.emit(
                        crate::ir::StmtKind::Opaque {
                            reason: "syntax error".into(),
                            reads: vec![],
                        },
                        range,
                    );
                    match (&how, join) {
                        (SplitAs::Condition { t, f }, _) => {
                            self.link(p, *t);
                            self.link(p, *f);
                            self.cur = None;
                        }
                        (SplitAs::Statement, Some(j)) => self.jump_to(j),
                        (SplitAs::Statement, None) => {}
                    }
                }
            }
            (self.src, self.shown_src) = saved;
        }
        self.split_active.pop();
        self.cur = join;
        true
    }

    fn lower_split_variant(&mut self, n: Node, how: &SplitAs, join: Option<crate::ir::NodeId>) {
        match how {
            SplitAs::Statement => {
                self.stmt(n);
                if let Some(j) = join {
                    self.jump_to(j);
                }
            }
            SplitAs::Condition { t, f } => self.cond(n, *t, *f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_with_nothing_nested_are_found_with_their_arms() {
        let text = "a\n#ifdef X\nb\n#elif Y\nc\n#else\nd\n#endif\ne\n#if A\n# ifdef B\nf\n# endif\n#endif\n";
        let g = flat_groups(text.as_bytes());
        assert_eq!(g.len(), 2, "{g:?}");
        assert_eq!(
            &text[g[0].range.clone()],
            "#ifdef X\nb\n#elif Y\nc\n#else\nd\n#endif"
        );
        let arms: Vec<&str> = g[0].arms.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(arms, ["b\n", "c\n", "d\n"]);
        assert!(g[0].has_else);
        assert_eq!(g[0].choices().len(), 3);
        assert_eq!(&text[g[1].range.clone()], "# ifdef B\nf\n# endif");
        assert_eq!(g[1].choices(), [Some(0), None]);
        let chosen = g[0].chosen(text.as_bytes(), Some(1));
        assert_eq!(
            String::from_utf8(chosen).unwrap(),
            "        \n \n       \nc\n     \n \n      "
        );
    }

    #[test]
    fn a_group_inside_a_condition_is_split_one_between_statements_is_not() {
        let text = "void f(int a, int b) {\n  if (a\n#ifdef X\n      && b\n#endif\n     ) g();\n#ifdef Y\n  h();\n#endif\n}\n";
        let tree = crate::syntax::parse(text, None);
        let plan = plan(text, &tree).expect("a split group");
        assert_eq!(plan.spans.len(), 1);
        let s = &plan.spans[0];
        assert_eq!(
            plan.tree.root_node().language().node_kind_for_id(s.kind),
            Some("parenthesized_expression")
        );
        assert_eq!(
            &text[s.span.0 as usize..s.span.1 as usize],
            "(a\n#ifdef X\n      && b\n#endif\n     )"
        );
        assert_eq!(s.alternatives.len(), 1, "without X");
        assert!(
            plan.text.contains("#ifdef Y"),
            "a group between statements stays"
        );
        assert!(!plan.text.contains("#ifdef X"));
        assert!(!plan.tree.root_node().has_error());
        let splits = alternatives(&plan);
        let (alt, alt_tree) = &splits[0].alternatives[0];
        assert!(!alt.contains("&& b"));
        assert!(node_at(alt_tree, s.span, s.kind).is_some());
    }

    #[test]
    fn an_if_whose_head_is_a_groups_arms_splits_its_condition_not_its_body() {
        let text = "int f(int a, int b) {\n#ifdef X\n  if (a)\n#else\n  if (b)\n#endif\n  {\n    return 0;\n  }\n  return 1;\n}\n";
        let tree = crate::syntax::parse(text, None);
        let planned = plan(text, &tree).expect("a split group");
        assert_eq!(planned.spans.len(), 1);
        let s = &planned.spans[0];
        assert_eq!(&text[s.span.0 as usize..s.span.1 as usize], "(a)");
        assert!(!planned.tree.root_node().has_error());
        let splits = alternatives(&planned);
        let (alt, alt_tree) = &splits[0].alternatives[0];
        let c = split_node(&splits[0], alt.as_bytes(), alt_tree).expect("the other head");
        assert_eq!(&alt[c.byte_range()], "(b)");
        // Without `#else`, `conditional` lowers the group (the body alone is a choice).
        let no_else = text.replace("#else\n  if (b)\n", "");
        assert!(plan(&no_else, &crate::syntax::parse(&no_else, None)).is_none());
        // An arm that holds more than the head has no such statement in that alternative.
        let more = text.replace("  if (b)", "  g(); if (b)");
        let planned = plan(&more, &crate::syntax::parse(&more, None)).expect("a split group");
        let splits = alternatives(&planned);
        let (alt, alt_tree) = &splits[0].alternatives[0];
        assert!(split_node(&splits[0], alt.as_bytes(), alt_tree).is_none());
    }

    #[test]
    fn too_many_combinations_are_not_split() {
        let mut text = String::from("void f(void) {\n  g(0");
        for i in 0..4 {
            text.push_str(&format!("\n#ifdef X{i}\n  , {i}\n#endif"));
        }
        text.push_str("\n  );\n}\n");
        let tree = crate::syntax::parse(&text, None);
        assert!(plan(&text, &tree).is_none(), "16 combinations");
    }

    #[test]
    fn points_count_lines_and_columns() {
        assert_eq!(point("ab\ncd", 4), Point { row: 1, column: 1 });
        assert_eq!(point("ab", 9), Point { row: 0, column: 2 });
    }
}

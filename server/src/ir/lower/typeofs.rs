//! GNU `typeof` in a function body: `__typeof(x)`, `__typeof__(*p)`, C23 `typeof(T)` and
//! `typeof_unqual`. tree-sitter-c does not know the keyword, so uthash's
//! `(__typeof(out))(ptr)` parses as two calls (`__typeof` called with `out`, its result called
//! with `ptr`: `ptr` would escape into an unknown function), utlist's `__typeof(l->items) t;`
//! as an expression followed by an ERROR, and `(__typeof__(n))raw` as a cast to a function
//! type.
//!
//! Before a body is lowered, each `typeof ( … )` is rewritten in place to `struct $` padded
//! with spaces (same length, line breaks kept), which tree-sitter parses as a type wherever a
//! type may stand: `(struct $      )(ptr)` is a cast, `struct $           t;` a declaration.
//! The operand's text is kept, parsed on its own, and the lowering gives the type the
//! operand's static type at that point of the body ([`Builder::specifier_type`]): a cast stays
//! transparent, a declared local gets the type of what it copies. A rewrite is kept only where
//! it parses as a type outside any ERROR and the body has no more syntax errors than before;
//! elsewhere the text stays, and a call of `typeof` left in the tree is no call
//! ([`Builder::typeof_call`]).

use super::Builder;
use crate::ir::types::{TYPEOF_STAND_IN_TAG, Type};
use crate::syntax::ts::text;
use tree_sitter::{Node, Tree};

/// The spellings of the keyword (GCC, Clang, C23).
const KEYWORDS: &[&str] = &[
    "typeof",
    "__typeof",
    "__typeof__",
    "typeof_unqual",
    "__typeof_unqual",
    "__typeof_unqual__",
];

/// Operands longer than this keep their text (their parse and static type would cost more
/// than the site is worth; a statement expression in `typeof` is the only long one).
const MAX_OPERAND: usize = 512;

/// Sites rewritten per function.
const MAX_SITES: usize = 256;

/// What a site becomes: `struct $`, then spaces.
fn stand_in() -> String {
    format!("struct {TYPEOF_STAND_IN_TAG}")
}

/// Whether `name` is a spelling of `typeof`.
pub(super) fn is_typeof_keyword(name: &str) -> bool {
    KEYWORDS.contains(&name)
}

/// One `typeof ( operand )` in the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Site {
    /// The keyword's first byte.
    start: usize,
    /// One past the closing parenthesis.
    end: usize,
    /// The operand, between the parentheses.
    operand: (usize, usize),
}

/// The operand of a rewritten site, parsed on its own as `sizeof(operand)`.
pub(super) struct TypeofOperand {
    /// Where the site (now `struct $`) starts in the body's text.
    pub start: u32,
    text: String,
    tree: Tree,
}

impl TypeofOperand {
    /// The operand's node: an expression (`(x)`, `(*p)`) or a type descriptor (`int *`).
    fn node(&self) -> Option<Node<'_>> {
        let root = self.tree.root_node();
        let decl = root.named_child(0)?;
        let init = decl.child_by_field_name("declarator")?;
        let size = init.child_by_field_name("value")?;
        if size.kind() != "sizeof_expression" {
            return None;
        }
        size.child_by_field_name("type")
            .or_else(|| size.child_by_field_name("value"))
    }
}

/// A body with its `typeof`s rewritten.
pub(super) struct Rewritten {
    pub text: String,
    pub tree: Tree,
    pub operands: Vec<TypeofOperand>,
    /// The rewritten spans: names taken from the text (temporaries) show what was there.
    pub spans: Vec<(usize, usize)>,
}

/// Rewrite the `typeof`s of `text` (a function's text, comments blanked; `tree` its parse).
/// `None` when there is none, or no rewrite parses as a type.
pub(super) fn rewrite_typeofs(text: &str, tree: &Tree) -> Option<Rewritten> {
    let mut sites = find_sites(text.as_bytes());
    if sites.is_empty() {
        return None;
    }
    let before = syntax_errors(tree.root_node());
    // Twice at most: all sites, then those that parsed as a type the first time.
    for _ in 0..2 {
        let candidate = rewrite(text, &sites);
        let new_tree = crate::syntax::parse(&candidate, None);
        let root = new_tree.root_node();
        let good: Vec<Site> = sites
            .iter()
            .copied()
            .filter(|s| parses_as_type(root, s.start))
            .collect();
        if good.len() == sites.len() {
            if syntax_errors(root) > before {
                return None;
            }
            let operands = sites
                .iter()
                .map(|s| {
                    let op = &text[s.operand.0..s.operand.1];
                    let snippet = format!("int $v = sizeof({op});");
                    let tree = crate::syntax::parse(&snippet, None);
                    TypeofOperand {
                        start: s.start as u32,
                        text: snippet,
                        tree,
                    }
                })
                .collect();
            return Some(Rewritten {
                text: candidate,
                tree: new_tree,
                operands,
                spans: sites.iter().map(|s| (s.start, s.end)).collect(),
            });
        }
        if good.is_empty() {
            return None;
        }
        sites = good;
    }
    None
}

/// The `typeof ( … )` sites of `b`: outside string and character literals, parentheses
/// balanced, the operand at most [`MAX_OPERAND`] bytes, `struct $` fitting before any line
/// break. Linear in the text.
fn find_sites(b: &[u8]) -> Vec<Site> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() && out.len() < MAX_SITES {
        let c = b[i];
        if c == b'"' || c == b'\'' {
            i = skip_literal(b, i);
            continue;
        }
        if !(c.is_ascii_alphabetic() || c == b'_') {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$') {
            i += 1;
        }
        let word = std::str::from_utf8(&b[start..i]).unwrap_or("");
        let after_ident = start > 0 && (b[start - 1] == b'$' || b[start - 1] >= 0x80);
        if !is_typeof_keyword(word) || after_ident {
            continue;
        }
        let mut j = i;
        while j < b.len() && matches!(b[j], b' ' | b'\t' | b'\r' | b'\n') {
            j += 1;
        }
        if b.get(j) != Some(&b'(') {
            continue;
        }
        let Some(close) = matching_paren(b, j) else {
            continue;
        };
        let end = close + 1;
        let operand = (j + 1, close);
        let fits =
            start + stand_in().len() <= end && !b[start..start + stand_in().len()].contains(&b'\n');
        let blank = b[operand.0..operand.1].iter().all(u8::is_ascii_whitespace);
        if fits && !blank && operand.1 - operand.0 <= MAX_OPERAND {
            out.push(Site {
                start,
                end,
                operand,
            });
            i = end;
        }
    }
    out
}

/// Past the string or character literal that starts at `i` (escapes included; a line break
/// ends it, as in `blank_comments`).
fn skip_literal(b: &[u8], mut i: usize) -> usize {
    let q = b[i];
    i += 1;
    while i < b.len() && b[i] != q && b[i] != b'\n' {
        if b[i] == b'\\' {
            i += 1;
        }
        i += 1;
    }
    i + 1
}

/// The `)` that closes the `(` at `open`, within [`MAX_OPERAND`] bytes and outside literals.
fn matching_paren(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    let limit = (open + MAX_OPERAND + 2).min(b.len());
    while i < limit {
        match b[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            b'"' | b'\'' => {
                i = skip_literal(b, i);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// `text` with each site replaced by `struct $` and spaces (line breaks kept).
fn rewrite(text: &str, sites: &[Site]) -> String {
    let mut out = text.as_bytes().to_vec();
    let stand_in = stand_in();
    for s in sites {
        for (k, byte) in out[s.start..s.end].iter_mut().enumerate() {
            if let Some(&c) = stand_in.as_bytes().get(k) {
                *byte = c;
            } else if !matches!(*byte, b'\n' | b'\r') {
                *byte = b' ';
            }
        }
    }
    // Only ASCII bytes were written, over whole sites (which start and end on ASCII).
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// Whether the rewritten site at `start` parsed as a struct specifier outside any ERROR.
fn parses_as_type(root: Node, start: usize) -> bool {
    let Some(mut n) = root.descendant_for_byte_range(start, start + "struct".len()) else {
        return false;
    };
    let mut found = false;
    for _ in 0..10_000 {
        if n.kind() == "struct_specifier" && n.start_byte() == start {
            found = true;
        }
        if n.is_error() {
            return false;
        }
        match n.parent() {
            Some(p) => n = p,
            None => break,
        }
    }
    found
}

/// ERROR and missing nodes in the tree (a bounded walk).
fn syntax_errors(root: Node) -> usize {
    if !root.has_error() {
        return 0;
    }
    let mut count = 0;
    let mut stack = vec![root];
    let mut budget = 1_000_000u32;
    while let Some(n) = stack.pop() {
        if n.is_error() || n.is_missing() {
            count += 1;
        }
        budget = budget.saturating_sub(1);
        if budget == 0 {
            break;
        }
        if n.has_error() {
            let mut c = n.walk();
            stack.extend(n.children(&mut c));
        }
    }
    count
}

impl Builder<'_> {
    /// The base type a declaration specifier names: the operand's type for a rewritten
    /// `typeof`, else what `base_type` reads.
    pub(super) fn specifier_type(&mut self, spec: Node) -> Type {
        match self.typeof_type(spec) {
            Some(t) => t,
            None => crate::ir::types::base_type(spec, self.src, &mut self.local_structs),
        }
    }

    /// The type a `type_descriptor` names (a cast's, a compound literal's), resolved.
    pub(super) fn descriptor_type(&mut self, node: Node) -> Type {
        let Some(spec) = node.child_by_field_name("type") else {
            return Type::Unknown;
        };
        let base = self.specifier_type(spec);
        let t = match node.child_by_field_name("declarator") {
            Some(d) => {
                crate::ir::types::declarator_type(base, d, self.src, &mut self.local_structs).1
            }
            None => base,
        };
        self.resolve(&t)
    }

    /// The static type of the operand of the rewritten `typeof` that `spec` stands for, at
    /// this point of the body; `None` when `spec` is not one.
    fn typeof_type(&mut self, spec: Node) -> Option<Type> {
        if spec.kind() != "struct_specifier" || self.in_typeof_operand {
            return None;
        }
        let operands = self.typeof_operands;
        let start = spec.start_byte() as u32;
        let op = operands
            .binary_search_by_key(&start, |o| o.start)
            .ok()
            .map(|i| &operands[i])?;
        let Some(node) = op.node() else {
            return Some(Type::Unknown);
        };
        // The operand's nodes are read in its own text; a `struct $` offset there means
        // nothing, hence the flag.
        let saved = self.src;
        self.src = op.text.as_bytes();
        self.in_typeof_operand = true;
        let t = self.operand_type(node);
        self.in_typeof_operand = false;
        self.src = saved;
        Some(t)
    }

    /// The static type of the operand of `typeof` or `sizeof`: a type descriptor (`int *`)
    /// or an expression (`(x)`, `*p`), where `(T)` for a typedef name parses as an
    /// identifier in parentheses. `Unknown` when it cannot be told.
    pub(super) fn operand_type(&mut self, node: Node) -> Type {
        match node.kind() {
            "type_descriptor" => self.descriptor_type(node),
            _ => {
                let t = self.static_type(node);
                match (&t, single_identifier(node)) {
                    (Type::Unknown, Some(id)) if self.lookup(text(id, self.src)).is_none() => {
                        let named = Type::Named(text(id, self.src).to_string());
                        match self.resolve(&named) {
                            Type::Named(_) => Type::Unknown,
                            known => known,
                        }
                    }
                    _ => t,
                }
            }
        }
    }

    /// A call left in the tree that is really `typeof`: `(typeof(x))(y)` (a cast: the value of
    /// `y`) or `typeof(x)` itself (evaluates nothing). `Some(value)` when `n` is one.
    pub(super) fn typeof_call<'t>(&self, n: Node<'t>) -> Option<Option<Node<'t>>> {
        let callee = n.child_by_field_name("function")?;
        let keyword_call = |c: Node| {
            c.kind() == "call_expression"
                && c.child_by_field_name("function").is_some_and(|f| {
                    f.kind() == "identifier" && is_typeof_keyword(text(f, self.src))
                })
        };
        if callee.kind() == "identifier" && is_typeof_keyword(text(callee, self.src)) {
            return Some(None);
        }
        let inner = match callee.kind() {
            "parenthesized_expression" => {
                let mut c = callee.walk();
                let kids: Vec<Node> = callee.named_children(&mut c).collect();
                match kids.as_slice() {
                    [one] => *one,
                    _ => return None,
                }
            }
            _ => return None,
        };
        if !keyword_call(inner) {
            return None;
        }
        let args = n.child_by_field_name("arguments")?;
        let mut c = args.walk();
        let kids: Vec<Node> = args.named_children(&mut c).collect();
        match kids.as_slice() {
            [one] => Some(Some(*one)),
            _ => None,
        }
    }
}

/// The identifier inside `(x)`, `((x))`.
fn single_identifier(mut n: Node) -> Option<Node> {
    for _ in 0..64 {
        match n.kind() {
            "identifier" => return Some(n),
            "parenthesized_expression" if n.named_child_count() == 1 => n = n.named_child(0)?,
            _ => return None,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sites(s: &str) -> Vec<&str> {
        find_sites(s.as_bytes())
            .iter()
            .map(|x| &s[x.start..x.end])
            .collect()
    }

    #[test]
    fn sites_are_found_outside_literals_with_balanced_parentheses() {
        assert_eq!(
            sites("a = (__typeof(h))(p); b = \"typeof(x)\"; __typeof__( (f)(x) ) c; typeof_x(y);"),
            ["__typeof(h)", "__typeof__( (f)(x) )"]
        );
        assert_eq!(sites("typeof(  ) x; typeof(unclosed"), Vec::<&str>::new());
        // Not the keyword; `struct $` would cover a line break.
        assert_eq!(
            sites("my_typeof(x); $typeof(y); typeof\n(z)"),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn a_rewrite_keeps_offsets_and_line_breaks() {
        let t = "x = (typeof(a +\n b))(c);";
        let s = find_sites(t.as_bytes());
        let r = rewrite(t, &s);
        assert_eq!(r.len(), t.len());
        assert_eq!(r, "x = (struct $  \n   )(c);");
    }

    #[test]
    fn only_sites_that_parse_as_types_are_rewritten() {
        let t = "void f(void) {\n  a = (__typeof(a))(p);\n  \
                 n = __builtin_types_compatible_p(typeof(a), typeof(b));\n}\n";
        let tree = crate::syntax::parse(t, None);
        let r = rewrite_typeofs(t, &tree).expect("one site kept");
        assert_eq!(r.operands.len(), 1);
        assert!(r.text.contains("a = (struct $   )(p);"), "{}", r.text);
        assert!(r.text.contains("(typeof(a), typeof(b))"), "{}", r.text);
    }
}

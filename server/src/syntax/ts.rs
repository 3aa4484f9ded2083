//! Helpers over tree-sitter-c trees: a node's text, its operator, its last real child, and the
//! shapes the front end looks for (a function definition, a function's own declarator, a
//! control statement misparsed as a definition, `#if 0`, syntax errors).
//!
//! Every layer that reads trees (`ir::items`, `ir::types`, `ir::lower`, `ir::repair`) takes
//! these from here, so none of them depends on another for a tree walk. Each walk is bounded
//! (a budget or a fixed number of steps): trees of real code can be deep and broken.

use tree_sitter::Node;

/// The node's text in `src`; empty when it is not valid UTF-8.
pub fn text<'a>(node: Node, src: &'a [u8]) -> &'a str {
    node.utf8_text(src).unwrap_or("")
}

/// The text of the node's `operator` field (`+`, `&&`, `->`…); empty when it has none.
pub fn operator<'s>(n: Node, src: &'s [u8]) -> &'s str {
    n.child_by_field_name("operator")
        .map(|o| text(o, src))
        .unwrap_or("")
}

/// The last named child that is not a comment.
pub fn last_named(n: Node) -> Option<Node> {
    let count = n.named_child_count();
    if count == 0 {
        return None;
    }
    let mut i = count - 1;
    loop {
        let k = n.named_child(i as u32)?;
        if k.kind() != "comment" {
            return Some(k);
        }
        if i == 0 {
            return None;
        }
        i -= 1;
    }
}

/// Whether one of the node's children is a node tree-sitter had to invent (a missing `;`…).
pub fn has_missing(node: Node) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor).any(|c| c.is_missing())
}

/// Whether `n` contains an ERROR node or a missing named node (an identifier tree-sitter had to
/// invent). A missing `;` or `)` alone is harmless: the fragment is still understood.
pub fn has_syntax_error(n: Node) -> bool {
    if !n.has_error() {
        return false;
    }
    let mut stack = vec![n];
    let mut budget = 4096;
    while let Some(x) = stack.pop() {
        // A macro's type argument (`va_arg(ap, char *)`, `container_of(p, struct s, m)`)
        // parses as an ERROR in the argument list; the call is understood, the argument is
        // unknown (see the lowering's `call`).
        let type_argument = x.is_error() && x.parent().is_some_and(|p| p.kind() == "argument_list");
        if type_argument {
            continue;
        }
        if x.is_error() || (x.is_missing() && x.is_named()) {
            return true;
        }
        budget -= 1;
        if budget == 0 {
            return true;
        }
        if x.has_error() {
            let mut c = x.walk();
            stack.extend(x.children(&mut c));
        }
    }
    false
}

/// The first `function_definition` in the tree, in preorder (a function's text parsed on its
/// own holds it at or near the root).
pub fn find_definition(root: Node) -> Option<Node> {
    let mut stack = vec![root];
    let mut budget = 10_000;
    while let Some(n) = stack.pop() {
        if n.kind() == "function_definition" {
            return Some(n);
        }
        budget -= 1;
        if budget == 0 {
            return None;
        }
        let mut c = n.walk();
        let kids: Vec<Node> = n.named_children(&mut c).collect();
        stack.extend(kids.into_iter().rev());
    }
    None
}

/// The function declarator that carries the function's own parameters. In
/// `int (*f(int a))(void)` that is the inner one: the outer `(void)` belongs to the returned
/// function pointer, reached through a pointer declarator. In `PREFIX(scanLt)(const ENCODING
/// *enc, …)` (expat's name-building macro) it is the outer one: the inner `(scanLt)` is the
/// macro's argument, directly inside.
pub fn find_function_declarator(mut node: Node) -> Option<Node> {
    let mut found = None;
    let mut through_pointer = false;
    for _ in 0..64 {
        match node.kind() {
            "function_declarator" if found.is_none() || through_pointer => {
                found = Some(node);
                through_pointer = false;
            }
            "pointer_declarator" => through_pointer = true,
            _ => {}
        }
        let next = node.child_by_field_name("declarator").or_else(|| {
            let mut c = node.walk();
            node.named_children(&mut c)
                .find(|n| n.kind().ends_with("declarator"))
        });
        match next {
            Some(n) => node = n,
            None => break,
        }
    }
    found
}

/// The keyword a function definition found in a body is named after, when it is really a
/// control statement (`else if (c) { … }` behind `#if`; `MACRO(x)⏎if (c) { … }`). A
/// parenthesized operand nests one `function_declarator` per operand
/// (`if ((a) || (b))`): the name is the innermost one's.
pub fn keyword_name<'s>(def: Node, src: &'s [u8]) -> Option<&'s str> {
    let mut d = def.child_by_field_name("declarator")?;
    if d.kind() != "function_declarator" {
        return None;
    }
    for _ in 0..64 {
        let inner = d.child_by_field_name("declarator")?;
        if inner.kind() == "function_declarator" {
            d = inner;
            continue;
        }
        let t = text(inner, src);
        return matches!(t, "if" | "while" | "for" | "switch").then_some(t);
    }
    None
}

/// Whether the node is `#if 0` (dead code by intent; its `#else` side still counts).
pub fn is_if_zero(node: Node, src: &[u8]) -> bool {
    node.kind() == "preproc_if"
        && node
            .child_by_field_name("condition")
            .is_some_and(|c| text(c, src).trim() == "0")
}

/// Whether the last `if` of an else-if chain has no `else`.
pub fn innermost_if_lacks_else(mut n: Node) -> bool {
    loop {
        let Some(alt) = n.child_by_field_name("alternative") else {
            return true;
        };
        let inner = if alt.kind() == "else_clause" {
            alt.named_child(0)
        } else {
            Some(alt)
        };
        match inner {
            Some(i) if i.kind() == "if_statement" => n = i,
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse;

    fn with_definition<T>(src: &str, f: impl FnOnce(Node, &[u8]) -> T) -> T {
        let tree = parse(src, None);
        let def = find_definition(tree.root_node()).expect("a function definition");
        f(def, src.as_bytes())
    }

    #[test]
    fn the_own_declarator_of_a_function_returning_a_function_pointer_is_the_inner_one() {
        with_definition("int (*f(int a))(void) { return 0; }", |def, src| {
            let d = def.child_by_field_name("declarator").unwrap();
            let fd = find_function_declarator(d).unwrap();
            let params = fd.child_by_field_name("parameters").unwrap();
            assert_eq!(text(params, src), "(int a)");
        });
    }

    #[test]
    fn a_name_building_macro_keeps_the_outer_parameter_list() {
        with_definition(
            "int PREFIX(scanLt)(const char *p, int n) { return n; }",
            |def, src| {
                let d = def.child_by_field_name("declarator").unwrap();
                let fd = find_function_declarator(d).unwrap();
                let params = fd.child_by_field_name("parameters").unwrap();
                assert_eq!(text(params, src), "(const char *p, int n)");
            },
        );
    }

    #[test]
    fn a_control_statement_parsed_as_a_definition_is_named_after_its_keyword() {
        // libxml2's buf.c: a statement macro without `;` before an `if`.
        let src = "void f(Buf *buf) {\n    CHECK_COMPAT(buf)\n    if ((buf->error) || (buf->buffer == NULL)) { free(buf); return; }\n}\n";
        let tree = parse(src, None);
        let mut stack = vec![tree.root_node()];
        let mut keywords = Vec::new();
        while let Some(n) = stack.pop() {
            if n.kind() == "function_definition"
                && let Some(k) = keyword_name(n, src.as_bytes())
            {
                keywords.push(k);
            }
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
        }
        assert_eq!(keywords, ["if"]);
        with_definition("int g(int a) { return a; }", |def, src| {
            assert_eq!(keyword_name(def, src), None);
        });
    }

    #[test]
    fn operators_last_children_and_if_zero() {
        let src = "#if 0\nint a;\n#endif\nint x = (1, /* c */ 2) + 3;\n";
        let tree = parse(src, None);
        let root = tree.root_node();
        let pp = root.named_child(0).unwrap();
        assert!(is_if_zero(pp, src.as_bytes()));
        let decl = root.named_child(1).unwrap();
        let value = decl
            .child_by_field_name("declarator")
            .and_then(|d| d.child_by_field_name("value"))
            .unwrap();
        assert_eq!(operator(value, src.as_bytes()), "+");
        let paren = value.child_by_field_name("left").unwrap();
        let comma = last_named(paren).unwrap();
        assert_eq!(text(comma, src.as_bytes()), "1, /* c */ 2");
        assert!(!has_syntax_error(decl));
    }

    #[test]
    fn a_type_argument_is_not_a_syntax_error_but_a_broken_operand_is() {
        let src = "void f(void) { x = va_arg(ap, char *); y = (1 + ); }";
        with_definition(src, |def, _| {
            let body = def.child_by_field_name("body").unwrap();
            let stmts: Vec<Node> = {
                let mut c = body.walk();
                body.named_children(&mut c).collect()
            };
            assert!(!has_syntax_error(stmts[0]));
            assert!(has_syntax_error(stmts[1]));
        });
    }

    #[test]
    fn else_if_chains_are_followed_to_the_innermost_if() {
        with_definition(
            "void f(int a) { if (a) g(); else if (a > 1) h(); }",
            |def, _| {
                let body = def.child_by_field_name("body").unwrap();
                let if_stmt = body.named_child(0).unwrap();
                assert!(innermost_if_lacks_else(if_stmt));
            },
        );
        with_definition(
            "void f(int a) { if (a) g(); else if (a > 1) h(); else k(); }",
            |def, _| {
                let body = def.child_by_field_name("body").unwrap();
                assert!(!innermost_if_lacks_else(body.named_child(0).unwrap()));
            },
        );
    }
}

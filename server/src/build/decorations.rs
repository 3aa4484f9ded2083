//! Decoration macros: macros that expand to nothing or only to attributes (`ATTR_NONNULL`,
//! `WINPR_ATTR_NODISCARD`, `ngx_cdecl`, `ACUTEST_ATTRIBUTE_(format (printf, 1, 2))`), found
//! where they are used so that the text tree-sitter parses can have them blanked.
//!
//! tree-sitter reads a file as written, without its macros. A head such as
//! `ATTR_RETNONNULL ATTR_ALLOC_SIZE1(1)⏎void* xMalloc(size_t size);` followed by
//! `ATTR_NONNULL⏎static inline bool String_startsWith(…) {…}` parses as one broken
//! declaration, and the function after it is lost or named after a macro: its calls then have
//! no body, the pointers passed to it escape and its callers' MOD sets are "anything". The
//! compiler sees nothing there (or an attribute the analysis reads elsewhere, from the
//! expanded declarations), so blanking the invocation gives tree-sitter the declaration the
//! compiler sees.
//!
//! A macro is a decoration when its body, expanded with the table, is made only of
//! `__attribute__((…))`, `__declspec(…)`, `[[…]]`, calling conventions (`__cdecl`,
//! `__stdcall`, …), `inline` spellings and `__extension__`, or nothing. Never a storage class,
//! a qualifier or a type: blanking one of those would change what is declared.
//!
//! Invariants: pure text in, byte ranges out (sorted, disjoint, each an invocation: the name
//! and, for a function-like macro, its parenthesised arguments); never inside a directive
//! line, a string, a character constant or a comment; linear in the text (a definition is
//! classified once, through at most [`MAX_DEPTH`] levels of nested macros).

use super::lex::{TokKind, lex};
use super::macros::{MacroDef, MacroTable};
use rustc_hash::FxHashMap;
use std::ops::Range;

/// Nested decoration macros followed, at most (`WINAPI` → `__stdcall`).
const MAX_DEPTH: usize = 8;

/// Identifiers that decorate a declaration without changing what it declares.
fn decoration_word(w: &str) -> bool {
    matches!(
        w,
        "__cdecl"
            | "_cdecl"
            | "__stdcall"
            | "_stdcall"
            | "__fastcall"
            | "__thiscall"
            | "__vectorcall"
            | "__clrcall"
            | "inline"
            | "__inline"
            | "__inline__"
            | "__forceinline"
            | "__extension__"
    )
}

/// Identifiers followed by one parenthesised group that is all attribute.
fn attribute_word(w: &str) -> bool {
    matches!(w, "__attribute__" | "__attribute" | "__declspec")
}

/// The byte ranges of `text` where a decoration macro is invoked (outside directive lines).
pub fn decoration_ranges(text: &str, table: &MacroTable) -> Vec<Range<usize>> {
    if table.is_empty() {
        return Vec::new();
    }
    let toks = lex(text);
    let mut memo: FxHashMap<String, bool> = FxHashMap::default();
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        if t.kind != TokKind::Ident {
            i += 1;
            continue;
        }
        let name = &text[t.range.clone()];
        let Some(def) = table.get(name) else {
            i += 1;
            continue;
        };
        if !is_decoration(def, table, &mut memo, 0) {
            i += 1;
            continue;
        }
        if def.is_function_like() {
            // An invocation only with its arguments; the name alone is not one.
            let open = i + 1;
            if toks.get(open).is_none_or(|o| &text[o.range.clone()] != "(") {
                i += 1;
                continue;
            }
            match closing(text, &toks, open) {
                Some(close) => {
                    out.push(t.range.start..toks[close].range.end);
                    i = close + 1;
                }
                None => break,
            }
        } else {
            out.push(t.range.clone());
            i += 1;
        }
    }
    out
}

/// The index of the `)` that closes the `(` at `open`, among `toks` (a directive line ends
/// the search: an invocation does not span one here).
fn closing(text: &str, toks: &[super::lex::Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(open) {
        match (t.kind, &text[t.range.clone()]) {
            (TokKind::Directive, _) => return None,
            (TokKind::Punct, "(") => depth += 1,
            (TokKind::Punct, ")") => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether `def`'s body is only decoration (see the module docs).
fn is_decoration(
    def: &MacroDef,
    table: &MacroTable,
    memo: &mut FxHashMap<String, bool>,
    depth: usize,
) -> bool {
    if let Some(&known) = memo.get(&def.name) {
        return known;
    }
    if depth > MAX_DEPTH {
        return false;
    }
    // Recursion through itself (`#define A A`) is not a decoration.
    memo.insert(def.name.clone(), false);
    let body = &def.body;
    let mut ok = true;
    let mut k = 0;
    while k < body.len() {
        let t = &body[k];
        let text = t.text.as_str();
        match t.kind {
            TokKind::Ident if attribute_word(text) => {
                // `__attribute__` then one balanced group.
                match skip_group(body, k + 1) {
                    Some(next) => k = next,
                    None => {
                        ok = false;
                        break;
                    }
                }
            }
            TokKind::Ident if decoration_word(text) => k += 1,
            TokKind::Ident => {
                let Some(inner) = table.get(text) else {
                    ok = false;
                    break;
                };
                if inner.name == def.name || !is_decoration(inner, table, memo, depth + 1) {
                    ok = false;
                    break;
                }
                k += 1;
                if inner.is_function_like() {
                    match skip_group(body, k) {
                        Some(next) => k = next,
                        None => {
                            ok = false;
                            break;
                        }
                    }
                }
            }
            TokKind::Punct if text == "[" && body.get(k + 1).is_some_and(|n| n.text == "[") => {
                // A C23 attribute: `[[nodiscard]]`, up to its `]]`.
                match skip_brackets(body, k) {
                    Some(next) => k = next,
                    None => {
                        ok = false;
                        break;
                    }
                }
            }
            _ => {
                ok = false;
                break;
            }
        }
    }
    memo.insert(def.name.clone(), ok);
    ok
}

/// Past the balanced `( … )` that starts at `body[k]`; `None` when there is none.
fn skip_group(body: &[super::macros::BodyToken], k: usize) -> Option<usize> {
    if body.get(k)?.text != "(" {
        return None;
    }
    let mut depth = 0usize;
    for (j, t) in body.iter().enumerate().skip(k) {
        if t.kind != TokKind::Punct {
            continue;
        }
        match t.text.as_str() {
            "(" => depth += 1,
            ")" => {
                depth -= 1;
                if depth == 0 {
                    return Some(j + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Past the `[[ … ]]` that starts at `body[k]`.
fn skip_brackets(body: &[super::macros::BodyToken], k: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (j, t) in body.iter().enumerate().skip(k) {
        if t.kind != TokKind::Punct {
            continue;
        }
        match t.text.as_str() {
            "[" => depth += 1,
            "]" => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(j + 1);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::macros::parse_define_text;

    fn table(defs: &[&str]) -> MacroTable {
        let mut t = MacroTable::new();
        for d in defs {
            t.define(parse_define_text(d).expect("a definition"));
        }
        t
    }

    fn blanked(text: &str, defs: &[&str]) -> Vec<String> {
        decoration_ranges(text, &table(defs))
            .into_iter()
            .map(|r| text[r].to_string())
            .collect()
    }

    #[test]
    fn attribute_and_empty_macros_are_decorations() {
        let defs = [
            "#define ATTR_NONNULL __attribute__((nonnull))",
            "#define ATTR_ALLOC_SIZE1(a) __attribute__((alloc_size(a)))",
            "#define ngx_cdecl",
            "#define WINAPI __stdcall",
            "#define API_CALL WINAPI",
            "#define NODISCARD [[nodiscard]]",
        ];
        let text = "ATTR_NONNULL ATTR_ALLOC_SIZE1(1)\nvoid* xMalloc(size_t n);\n\
                    u_char * ngx_cdecl\nngx_sprintf(u_char *buf, ...);\n\
                    NODISCARD int API_CALL f(void);\n";
        assert_eq!(
            blanked(text, &defs),
            [
                "ATTR_NONNULL",
                "ATTR_ALLOC_SIZE1(1)",
                "ngx_cdecl",
                "NODISCARD",
                "API_CALL"
            ]
        );
    }

    #[test]
    fn types_storage_classes_and_other_macros_are_kept() {
        let defs = [
            "#define EXPORT extern",
            "#define LOCAL static",
            "#define RET int",
            "#define CONST const",
            "#define MAX(a, b) ((a) > (b) ? (a) : (b))",
            "#define LOOP(x) LOOP(x)",
            "#define FMT(f) __attribute__((format(printf, f, f + 1)))",
        ];
        let text = "EXPORT LOCAL RET CONST f(void) { return MAX(1, 2); }\nLOOP(1)\nFMT\n";
        // `FMT` without arguments is not an invocation.
        assert!(blanked(text, &defs).is_empty());
    }

    #[test]
    fn directive_lines_strings_and_unclosed_invocations_are_left_alone() {
        let defs = ["#define A __attribute__((unused))", "#define F(x)"];
        let text = "#if defined(A)\n#endif\nconst char *s = \"A\"; /* A */ int A x;\nF(1";
        assert_eq!(blanked(text, &defs), ["A"]);
    }
}

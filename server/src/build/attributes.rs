//! Function attributes read from declarations and definitions at file scope: `noreturn` in
//! all its spellings, GCC's `malloc` (with the `malloc(deallocator[, index])` pairing) and
//! `nonnull` / `returns_nonnull`.
//!
//! Run it on macro-expanded text (see [`super::expand`]), so `ATTR_NORETURN void die(void);`
//! with `#define ATTR_NORETURN __attribute__((noreturn))` is seen. A token scanner rather
//! than tree-sitter: attributes sit where tree-sitter-c's grammar is weakest (GNU attribute
//! lists before a declarator, C23 `[[…]]`, `__declspec`), and a declaration only needs its
//! function name and its attribute lists. Bodies (`{…}` at file scope) are skipped.
//! A bare `noreturn` specifier counts: `<stdnoreturn.h>` defines it as `_Noreturn`, and
//! system headers are not read.

use super::lex::{TokKind, Token, lex};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FnAttributes {
    pub noreturn: bool,
    /// `__attribute__((malloc))`: returns fresh memory not aliased by anything else.
    pub malloc: bool,
    /// `malloc(dealloc)` / `malloc(dealloc, index)`: the function to free the result with and
    /// the 1-based argument position the pointer goes in (default 1).
    pub deallocators: Vec<(String, u32)>,
    /// `nonnull(1, 2)`: the listed 1-based argument positions; `nonnull` with no list means
    /// every pointer argument (an empty vector here).
    pub nonnull: Option<Vec<u32>>,
    pub returns_nonnull: bool,
}

impl FnAttributes {
    fn is_empty(&self) -> bool {
        *self == FnAttributes::default()
    }

    fn merge(&mut self, o: FnAttributes) {
        self.noreturn |= o.noreturn;
        self.malloc |= o.malloc;
        for d in o.deallocators {
            if !self.deallocators.contains(&d) {
                self.deallocators.push(d);
            }
        }
        self.returns_nonnull |= o.returns_nonnull;
        match (&mut self.nonnull, o.nonnull) {
            (_, None) => {}
            (None, n) => self.nonnull = n,
            (Some(a), Some(b)) if a.is_empty() || b.is_empty() => a.clear(),
            (Some(a), Some(b)) => {
                a.extend(b);
                a.sort_unstable();
                a.dedup();
            }
        }
    }
}

/// Function name → its attributes (merged over all its declarations), for the functions
/// declared or defined at file scope in `text` that have any.
pub fn function_attributes(text: &str) -> BTreeMap<String, FnAttributes> {
    let toks: Vec<Token> = lex(text)
        .into_iter()
        .filter(|t| t.kind != TokKind::Directive)
        .collect();
    let s = |i: usize| toks.get(i).map_or("", |t| &text[t.range.clone()]);
    let mut out: BTreeMap<String, FnAttributes> = BTreeMap::new();
    let mut decl_attrs = FnAttributes::default();
    let mut name: Option<String> = None;
    // Past a top-level `=`: calls in an initializer are not declarators.
    let mut in_init = false;
    let mut i = 0;
    let mut finish = |name: &mut Option<String>, attrs: &mut FnAttributes| {
        let a = std::mem::take(attrs);
        if let Some(n) = name.take()
            && !a.is_empty()
        {
            out.entry(n).or_default().merge(a);
        }
    };
    while i < toks.len() {
        let t = &toks[i];
        match (t.kind, s(i)) {
            (TokKind::Punct, ";") => {
                finish(&mut name, &mut decl_attrs);
                in_init = false;
                i += 1;
            }
            (TokKind::Punct, "=") => {
                in_init = true;
                i += 1;
            }
            (TokKind::Punct, "{") => {
                let close = match_close(&toks, text, i, "{", "}");
                let was_function = name.is_some();
                i = close + 1;
                if was_function && !in_init {
                    finish(&mut name, &mut decl_attrs);
                }
            }
            (TokKind::Ident, "__attribute__" | "__attribute") if s(i + 1) == "(" => {
                let close = match_close(&toks, text, i + 1, "(", ")");
                gnu_attributes(sub(&toks, i + 2, close), text, &mut decl_attrs);
                i = close + 1;
            }
            (TokKind::Ident, "__declspec") if s(i + 1) == "(" => {
                let close = match_close(&toks, text, i + 1, "(", ")");
                for k in i + 2..close {
                    if s(k) == "noreturn" {
                        decl_attrs.noreturn = true;
                    }
                }
                i = close + 1;
            }
            (TokKind::Punct, "[") if s(i + 1) == "[" => {
                let close = match_close(&toks, text, i, "[", "]");
                std_attributes(sub(&toks, i + 2, close), text, &mut decl_attrs);
                i = close + 1;
            }
            (TokKind::Ident, "_Noreturn" | "noreturn") if s(i + 1) != "(" => {
                decl_attrs.noreturn = true;
                i += 1;
            }
            (TokKind::Ident, n) if s(i + 1) == "(" => {
                let close = match_close(&toks, text, i + 1, "(", ")");
                // The declarator's name: its parameter list is followed by what may end a
                // declarator (not by more specifiers, as after `EXPORT(x) void f(void)`).
                let after = s(close + 1);
                let ends = matches!(
                    after,
                    ";" | "{"
                        | ","
                        | ""
                        | "__attribute__"
                        | "__attribute"
                        | "["
                        | "__asm__"
                        | "asm"
                        | "__asm"
                ) || (after != "("
                    && toks
                        .get(close + 1)
                        .is_some_and(|t| t.kind == TokKind::Ident)
                    && looks_like_kr(&toks, text, close + 1));
                if name.is_none() && !in_init && ends && !is_keyword(n) {
                    name = Some(n.to_string());
                }
                i = close + 1;
            }
            (TokKind::Punct, "(") => {
                i = match_close(&toks, text, i, "(", ")") + 1;
            }
            _ => i += 1,
        }
    }
    finish(&mut name, &mut decl_attrs);
    out
}

/// K&R definitions (`int f(a) int a; {`): a parameter declaration list before the body.
fn looks_like_kr(toks: &[Token], text: &str, from: usize) -> bool {
    for t in &toks[from..] {
        match &text[t.range.clone()] {
            "{" => return true,
            "(" | ")" | "=" => return false,
            _ => {}
        }
    }
    false
}

fn is_keyword(s: &str) -> bool {
    matches!(
        s,
        "if" | "while"
            | "for"
            | "switch"
            | "return"
            | "sizeof"
            | "_Alignof"
            | "alignof"
            | "_Alignas"
            | "alignas"
            | "typeof"
            | "__typeof__"
            | "_Static_assert"
            | "static_assert"
            | "__asm__"
            | "asm"
            | "__asm"
            | "_Generic"
    )
}

/// Index of the token closing the group opened at `open` (or the last index when unclosed).
fn match_close(toks: &[Token], text: &str, open: usize, o: &str, c: &str) -> usize {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(open) {
        if t.kind != TokKind::Punct {
            continue;
        }
        let s = &text[t.range.clone()];
        if s == o {
            depth += 1;
        } else if s == c {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return k;
            }
        }
    }
    toks.len().saturating_sub(1).max(open)
}

/// `toks[a..b]`, empty where that is out of order or out of bounds.
fn sub(toks: &[Token], a: usize, b: usize) -> &[Token] {
    let b = b.min(toks.len());
    &toks[a.min(b)..b]
}

/// Strips `__x__` to `x`.
fn bare(name: &str) -> &str {
    name.strip_prefix("__")
        .and_then(|n| n.strip_suffix("__"))
        .unwrap_or(name)
}

/// Splits `a, b(c, d), e` at top-level commas into (name, argument tokens).
fn items<'t>(toks: &'t [Token], text: &str) -> Vec<(String, &'t [Token])> {
    let mut out = Vec::new();
    let mut k = 0;
    while k < toks.len() {
        let s = &text[toks[k].range.clone()];
        if toks[k].kind != TokKind::Ident {
            k += 1;
            continue;
        }
        let mut name = s.to_string();
        k += 1;
        // `gnu::malloc`
        while k + 1 < toks.len() && &text[toks[k].range.clone()] == "::" {
            name = text[toks[k + 1].range.clone()].to_string();
            k += 2;
        }
        let mut args: &[Token] = &[];
        if k < toks.len() && &text[toks[k].range.clone()] == "(" {
            let close = match_close(toks, text, k, "(", ")");
            args = sub(toks, k + 1, close);
            k = close + 1;
        }
        out.push((bare(&name).to_string(), args));
        while k < toks.len() && &text[toks[k].range.clone()] != "," {
            k += 1;
        }
    }
    out
}

/// The inside of `__attribute__(( … ))`: `toks` starts after the outer `(`.
fn gnu_attributes(toks: &[Token], text: &str, a: &mut FnAttributes) {
    // Drop the inner parentheses: `( list )`.
    let inner = match toks.first() {
        Some(t) if &text[t.range.clone()] == "(" => {
            let close = match_close(toks, text, 0, "(", ")");
            sub(toks, 1, close)
        }
        _ => toks,
    };
    apply(items(inner, text), text, a);
}

/// The inside of `[[ … ]]`.
fn std_attributes(toks: &[Token], text: &str, a: &mut FnAttributes) {
    apply(items(toks, text), text, a);
}

fn apply(items: Vec<(String, &[Token])>, text: &str, a: &mut FnAttributes) {
    for (name, args) in items {
        match name.as_str() {
            "noreturn" | "_Noreturn" => a.noreturn = true,
            "returns_nonnull" => a.returns_nonnull = true,
            "malloc" => {
                a.malloc = true;
                let parts: Vec<&str> = args.iter().map(|t| &text[t.range.clone()]).collect();
                match parts.as_slice() {
                    [f] => a.deallocators.push((f.to_string(), 1)),
                    [f, ",", n] => {
                        if let Ok(n) = n.parse() {
                            a.deallocators.push((f.to_string(), n));
                        }
                    }
                    _ => {}
                }
            }
            "nonnull" => {
                let idx: Vec<u32> = args
                    .iter()
                    .filter(|t| t.kind == TokKind::Number)
                    .filter_map(|t| text[t.range.clone()].parse().ok())
                    .collect();
                a.merge(FnAttributes {
                    nonnull: Some(idx),
                    ..Default::default()
                });
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::expand::{Budget, expand};
    use super::super::macros::MacroTable;
    use super::*;

    fn attrs(text: &str) -> BTreeMap<String, FnAttributes> {
        function_attributes(text)
    }

    fn noreturn(text: &str) -> Vec<String> {
        attrs(text)
            .into_iter()
            .filter(|(_, a)| a.noreturn)
            .map(|(n, _)| n)
            .collect()
    }

    #[test]
    fn noreturn_spellings() {
        let text = "void a(void) __attribute__((noreturn));\n\
                    __attribute__((__noreturn__)) void b(int);\n\
                    _Noreturn void c(void);\n\
                    [[noreturn]] void d(void);\n\
                    __declspec(noreturn) void e(void);\n\
                    [[gnu::noreturn]] void f(void);\n\
                    noreturn void g(const char *fmt, ...);\n\
                    void h(void) __attribute__((cold, noreturn, format(printf, 1, 2)));\n\
                    void plain(void);\n\
                    static void die(int code) __attribute__((noreturn)) { exit(code); }\n";
        assert_eq!(
            noreturn(text),
            ["a", "b", "c", "d", "die", "e", "f", "g", "h"]
        );
    }

    #[test]
    fn noreturn_behind_a_macro_after_expansion() {
        let text = "#define ATTR_NORETURN __attribute__((noreturn))\n\
                    ATTR_NORETURN void fatal(const char *msg);\n";
        let mut t = MacroTable::new();
        t.add_definitions_from(text);
        let e = expand(text, 0..text.len(), &t, &Budget::default());
        assert_eq!(noreturn(&e.text), ["fatal"]);
        // Unexpanded, the attribute is invisible.
        assert!(noreturn(text).is_empty());
    }

    #[test]
    fn malloc_and_deallocator_pairing() {
        let text = "void xfree(void *);\n\
                    void *xmalloc(size_t n) __attribute__((malloc, malloc(xfree), alloc_size(1)));\n\
                    struct obj *obj_new(void) __attribute__((__malloc__(obj_free, 1)));\n\
                    char *dup(const char *s) __attribute__((malloc)) __attribute__((nonnull(1), returns_nonnull));\n";
        let a = attrs(text);
        assert!(a["xmalloc"].malloc);
        assert_eq!(a["xmalloc"].deallocators, [("xfree".to_string(), 1)]);
        assert_eq!(a["obj_new"].deallocators, [("obj_free".to_string(), 1)]);
        assert_eq!(a["dup"].nonnull, Some(vec![1]));
        assert!(a["dup"].returns_nonnull);
        assert!(!a.contains_key("xfree"));
    }

    #[test]
    fn nonnull_forms_and_redeclarations_merge() {
        let text = "void f(void *a, void *b) __attribute__((nonnull(1)));\n\
                    void f(void *a, void *b) __attribute__((nonnull(2)));\n\
                    void g(void *a) __attribute__((nonnull));\n";
        let a = attrs(text);
        assert_eq!(a["f"].nonnull, Some(vec![1, 2]));
        assert_eq!(a["g"].nonnull, Some(vec![]));
    }

    #[test]
    fn not_fooled_by_bodies_pointers_and_macro_calls() {
        let text = "EXPORT(api) void f(void) __attribute__((noreturn));\n\
                    void (*fp)(void) __attribute__((noreturn));\n\
                    struct s { void (*cb)(void); } __attribute__((packed));\n\
                    int body(void) { if (x) g(); __attribute__((noreturn)) void inner(void); return 0; }\n\
                    int k = sizeof(int) __attribute__((aligned(8)));\n";
        let a = attrs(text);
        assert_eq!(a.keys().collect::<Vec<_>>(), ["f"]);
    }

    #[test]
    fn garbage_does_not_panic() {
        for t in [
            "__attribute__((",
            "[[",
            "__declspec(",
            "void f(",
            "}}}",
            "((((",
            "[[gnu::",
            "malloc(",
        ] {
            let _ = attrs(t);
        }
    }
}

//! Property tests: on random token soup and random bytes, the build model never panics, stays
//! within its budgets, and keeps its map well-formed.

use super::attributes::function_attributes;
use super::compile_db::{CompileDb, shell_split};
use super::cond::{eval_str, mask_inactive};
use super::expand::{Budget, Expanded, expand};
use super::lex::lex;
use super::macros::MacroTable;
use super::scan::scan_text;
use proptest::prelude::*;
use std::path::Path;

const SOUP: &[&str] = &[
    "A",
    "B",
    "C",
    "F",
    "G",
    "x",
    "y",
    "__VA_ARGS__",
    "__VA_OPT__",
    "defined",
    "(",
    ")",
    "(",
    ")",
    ",",
    ",",
    "#",
    "##",
    "...",
    "+",
    "-",
    "*",
    "/",
    "<<",
    "?",
    ":",
    "&&",
    "||",
    "!",
    "==",
    "0",
    "1",
    "2",
    "0x10",
    "'a'",
    "\"s\"",
    "/* c */",
    "//c\n",
    "\n",
    "\n",
    " ",
    "\\\n",
    ";",
    "{",
    "}",
    "é",
];

const DEFS: &[&str] = &[
    "#define A B B\n",
    "#define B A C\n",
    "#define C(x) x x F(x)\n",
    "#define F(x, ...) G(x __VA_OPT__(,) __VA_ARGS__) #x\n",
    "#define G(a, b) a ## b F(a)\n",
    "#define x y + x\n",
    "#define y (x)\n",
    "#undef B\n",
    "#if A\n",
    "#elif defined(C)\n",
    "#else\n",
    "#endif\n",
    "#ifdef F\n",
    "#define H(...) __VA_ARGS__ ## x\n",
];

fn soup(parts: &'static [&'static str], max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(parts), 0..max).prop_map(|v| v.concat())
}

fn budget() -> Budget {
    Budget {
        max_tokens: 2_000,
        max_expansions: 500,
        max_depth: 16,
    }
}

fn check_map(code: &str, e: &Expanded) {
    let mut at = 0;
    for s in &e.map {
        assert_eq!(s.expanded.start, at);
        at = s.expanded.end;
        assert!(s.original.start <= s.original.end && s.original.end <= code.len());
        if s.verbatim {
            assert_eq!(&e.text[s.expanded.clone()], &code[s.original.clone()]);
        }
    }
    assert_eq!(at, e.text.len());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn expansion_is_bounded_and_mapped(defs in soup(DEFS, 12), code in soup(SOUP, 60), a in 0usize..400, b in 0usize..400) {
        let table = scan_text(&defs, &MacroTable::new()).table;
        let b0 = budget();
        let e = expand(&code, 0..code.len(), &table, &b0);
        check_map(&code, &e);
        let input = lex(&code).len();
        let output = lex(&e.text).len();
        prop_assert!(output <= 2 * (input + b0.max_tokens), "{output} tokens from {input}");
        prop_assert!(e.expansions <= b0.max_expansions);
        let r = e.original_range(a.min(b)..a.max(b));
        prop_assert!(r.start <= r.end && r.end <= code.len().max(a.max(b)));
        let _ = e.expanded_offset(a);
        let _ = function_attributes(&e.text);
    }

    #[test]
    fn macros_defined_in_the_soup_itself(text in soup(&[
        "#define A B B\n", "#define B(x) A x ## x\n", "A", "B(", ")", "x", ",", "#undef A\n", "\n", "#if A\n", "#endif\n",
    ], 80)) {
        let e = expand(&text, 0..text.len(), &MacroTable::new(), &budget());
        check_map(&text, &e);
        let groups = scan_text(&text, &MacroTable::new()).groups;
        let masked = mask_inactive(&text, &groups);
        prop_assert_eq!(masked.len(), text.len());
    }

    #[test]
    fn conditions_never_panic(defs in soup(DEFS, 8), expr in soup(SOUP, 30)) {
        let table = scan_text(&defs, &MacroTable::new()).table;
        let _ = eval_str(&expr, &table);
        let cond_text = format!("#if {}\nx\n#elif {}\ny\n#else\nz\n#endif\n", expr.replace('\n', " "), expr.replace('\n', " "));
        let s = scan_text(&cond_text, &table);
        let _ = mask_inactive(&cond_text, &s.groups);
    }

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>(), a in 0usize..64, b in 0usize..64) {
        let _ = lex(&text);
        let t = scan_text(&text, &MacroTable::new());
        let e = expand(&text, a.min(b)..a.max(b), &t.table, &budget());
        check_map(&text, &e);
        let _ = mask_inactive(&text, &t.groups);
        let _ = function_attributes(&text);
        let _ = eval_str(&text, &t.table);
        let _ = shell_split(&text);
        let _ = CompileDb::parse_json(Path::new("/c.json"), &text);
    }
}

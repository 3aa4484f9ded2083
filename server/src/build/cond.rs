//! Conditional inclusion (`#if`, `#ifdef`, `#ifndef`, `#elif`, `#elifdef`, `#elifndef`,
//! `#else`, `#endif`) decided three-valued.
//!
//! C says an identifier left in an `#if` after expansion is 0. That is only right when the
//! build model knows every macro the compiler would see; often it does not (no compile
//! database, compiler-predefined macros). So a name whose status is unknown makes the
//! expression [`Truth::Unknown`] unless the rest decides it (`0 && X`, `1 || X`), and a group
//! with an unknown arm keeps today's behaviour: the front end sees every arm that is not
//! decided false. See [`super::macros::MacroStatus`] for when a name counts as undefined.

use super::expand::{Budget, Engine, PTok};
use super::lex::{TokKind, Token};
use super::macros::{MacroStatus, MacroTable};
use std::ops::Range;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Truth {
    True,
    False,
    Unknown,
}

impl Truth {
    pub fn and(self, o: Truth) -> Truth {
        match (self, o) {
            (Truth::False, _) | (_, Truth::False) => Truth::False,
            (Truth::True, Truth::True) => Truth::True,
            _ => Truth::Unknown,
        }
    }

    pub fn or(self, o: Truth) -> Truth {
        match (self, o) {
            (Truth::True, _) | (_, Truth::True) => Truth::True,
            (Truth::False, Truth::False) => Truth::False,
            _ => Truth::Unknown,
        }
    }

    #[allow(clippy::should_implement_trait)]
    pub fn not(self) -> Truth {
        match self {
            Truth::True => Truth::False,
            Truth::False => Truth::True,
            Truth::Unknown => Truth::Unknown,
        }
    }
}

/// One arm of a conditional group.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CondArm {
    /// The `#if …` / `#elif …` / `#else` line.
    pub directive: Range<usize>,
    /// From the end of the directive line to the start of the next directive of the group.
    pub body: Range<usize>,
    /// Whether this arm is the one compiled, assuming the group itself is reached.
    pub taken: Truth,
}

/// Which arm of a group is live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Live {
    Arm(usize),
    /// Decided: no arm is compiled (`#if 0 … #endif`).
    NoArm,
    /// Some arm's condition is unknown: see each arm's `taken`.
    Unknown,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CondGroup {
    pub arms: Vec<CondArm>,
    /// The `#endif` line; `None` when the file ends first.
    pub end: Option<Range<usize>>,
    pub live: Live,
    /// Whether the code around the group is live (False for a group inside a dead arm).
    pub reached: Truth,
}

impl CondGroup {
    pub(crate) fn finish(&mut self) {
        self.live = if self.arms.iter().any(|a| a.taken == Truth::Unknown) {
            Live::Unknown
        } else {
            self.arms
                .iter()
                .position(|a| a.taken == Truth::True)
                .map_or(Live::NoArm, Live::Arm)
        };
    }
}

/// The conditional groups of `text`, in order of their `#if`, with `#define`/`#undef` of the
/// text applied in order on top of `table` (includes are not followed: see
/// [`super::scan::scan`] for that).
pub fn conditional_groups(text: &str, table: &MacroTable) -> Vec<CondGroup> {
    super::scan::scan_text(text, table).groups
}

/// Byte ranges of `text` the compiler would not see, given `groups`: the bodies of arms
/// decided not taken, and the directive lines of groups whose live arm is decided. Arms of
/// an undecided group that may be taken stay, directives and all.
pub fn inactive_ranges(groups: &[CondGroup]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    for g in groups.iter().filter(|g| g.reached != Truth::False) {
        let decided = g.live != Live::Unknown;
        for a in &g.arms {
            if decided {
                out.push(a.directive.clone());
            }
            if a.taken == Truth::False {
                out.push(a.body.clone());
            }
        }
        if decided && let Some(e) = &g.end {
            out.push(e.clone());
        }
    }
    out.sort_by_key(|r| r.start);
    out
}

/// `text` with the [`inactive_ranges`] blanked (every byte but `\n` becomes a space), so
/// offsets and line numbers are unchanged and tree-sitter sees only the live code.
pub fn mask_inactive(text: &str, groups: &[CondGroup]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for r in inactive_ranges(groups) {
        for b in &mut bytes[r.start.min(text.len())..r.end.min(text.len())] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    // Only whole UTF-8 sequences inside ranges that start and end on ASCII bytes were blanked,
    // so this cannot fail; fall back to the text rather than panic.
    String::from_utf8(bytes).unwrap_or_else(|_| text.to_string())
}

/// Evaluates the operands of `#if`/`#elif` (tokens of `text`).
pub fn eval_condition(
    text: &str,
    operands: &[Token],
    table: &MacroTable,
    budget: &Budget,
) -> Truth {
    let toks: Vec<PTok> = operands
        .iter()
        .map(|t| PTok::from_source(text, t))
        .collect();
    let Some(toks) = replace_defined(toks, table) else {
        return Truth::Unknown;
    };
    let mut eng = Engine::new(table, *budget);
    let expanded = eng.expand_list(toks.clone(), 0);
    if eng.truncated {
        return Truth::Unknown;
    }
    // A macro defined only in an undecided arm has an unknown value: expanded again with
    // each such invocation as the unknown marker, so that `__has_attribute(x) ||
    // PREREQ(2, 5)` is still decided by its known side.
    let toks = if eng.used_uncertain {
        let mut eng = Engine::new(table, *budget);
        eng.uncertain_marker = Some(UNKNOWN);
        let toks = eng.expand_list(toks, 0);
        if eng.truncated {
            return Truth::Unknown;
        }
        toks
    } else {
        expanded
    };
    // `defined` produced by a macro (undefined behaviour; GCC evaluates it).
    let Some(toks) = replace_defined(toks, table) else {
        return Truth::Unknown;
    };
    let mut p = Parser {
        toks: &toks,
        i: 0,
        table,
    };
    let v = p.comma();
    if p.i != toks.len() {
        return Truth::Unknown;
    }
    match v {
        Some(Ok(n)) => {
            if n.v != 0 {
                Truth::True
            } else {
                Truth::False
            }
        }
        _ => Truth::Unknown,
    }
}

/// Evaluates a condition written as a string (`"defined(X) && X > 2"`).
pub fn eval_str(expr: &str, table: &MacroTable) -> Truth {
    let toks = super::lex::lex_span(expr, 0..expr.len(), false);
    eval_condition(expr, &toks, table, &Budget::default())
}

/// The marker for a value the build model does not know.
const UNKNOWN: &str = "?";

fn unknown_tok(origin: Range<usize>) -> PTok {
    PTok::synthetic(TokKind::Other, UNKNOWN, origin)
}

/// Replaces `defined X` and `defined ( X )` by `1`, `0` or the unknown marker. `None` if
/// malformed.
fn replace_defined(toks: Vec<PTok>, table: &MacroTable) -> Option<Vec<PTok>> {
    let mut out = Vec::with_capacity(toks.len());
    let mut it = toks.into_iter().peekable();
    while let Some(t) = it.next() {
        if t.kind != TokKind::Ident || &*t.text != "defined" {
            out.push(t);
            continue;
        }
        let mut name = it.next()?;
        let paren = name.kind == TokKind::Punct && &*name.text == "(";
        if paren {
            name = it.next()?;
        }
        if name.kind != TokKind::Ident {
            return None;
        }
        if paren {
            let close = it.next()?;
            if &*close.text != ")" {
                return None;
            }
        }
        out.push(match table.status(&name.text) {
            MacroStatus::Defined => PTok::synthetic(TokKind::Number, "1", t.origin),
            MacroStatus::Undefined => PTok::synthetic(TokKind::Number, "0", t.origin),
            MacroStatus::MaybeDefined | MacroStatus::Unknown => unknown_tok(t.origin),
        });
    }
    Some(out)
}

/// A preprocessor number: `intmax_t` or `uintmax_t` (C11 §6.10.1p4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Num {
    v: i64,
    unsigned: bool,
}

/// `None`: unknown value. `Some(Err)`: not a well-formed expression.
type Val = Option<Result<Num, ()>>;

struct Parser<'a> {
    toks: &'a [PTok],
    i: usize,
    table: &'a MacroTable,
}

const BINARY: &[(&str, u8)] = &[
    ("||", 1),
    ("&&", 2),
    ("|", 3),
    ("^", 4),
    ("&", 5),
    ("==", 6),
    ("!=", 6),
    ("<", 7),
    (">", 7),
    ("<=", 7),
    (">=", 7),
    ("<<", 8),
    (">>", 8),
    ("+", 9),
    ("-", 9),
    ("*", 10),
    ("/", 10),
    ("%", 10),
];

fn known(v: i64, unsigned: bool) -> Val {
    Some(Ok(Num { v, unsigned }))
}

fn truthy(v: &Val) -> Truth {
    match v {
        Some(Ok(n)) if n.v != 0 => Truth::True,
        Some(Ok(_)) => Truth::False,
        _ => Truth::Unknown,
    }
}

impl Parser<'_> {
    fn peek(&self) -> Option<&PTok> {
        self.toks.get(self.i)
    }

    fn eat(&mut self, p: &str) -> bool {
        if self
            .peek()
            .is_some_and(|t| t.kind == TokKind::Punct && &*t.text == p)
        {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn comma(&mut self) -> Val {
        let mut v = self.cond();
        while self.eat(",") {
            let r = self.cond();
            v = merge_err(&v, r);
        }
        v
    }

    fn cond(&mut self) -> Val {
        let c = self.binary(1);
        if !self.eat("?") {
            return c;
        }
        let a = self.comma();
        if !self.eat(":") {
            return Some(Err(()));
        }
        let b = self.cond();
        if matches!(c, Some(Err(()))) || matches!(a, Some(Err(()))) || matches!(b, Some(Err(()))) {
            return Some(Err(()));
        }
        let unsigned = matches!((&a, &b), (Some(Ok(x)), _) if x.unsigned)
            || matches!((&a, &b), (_, Some(Ok(y))) if y.unsigned);
        let with = |v: Val| v.map(|r| r.map(|n| Num { v: n.v, unsigned }));
        match truthy(&c) {
            Truth::True => with(a),
            Truth::False => with(b),
            Truth::Unknown if a == b => with(a),
            Truth::Unknown => None,
        }
    }

    fn binary(&mut self, min: u8) -> Val {
        let mut lhs = self.unary();
        while let Some(t) = self.peek() {
            if t.kind != TokKind::Punct {
                break;
            }
            let Some(&(op, prec)) = BINARY.iter().find(|(o, _)| *o == &*t.text) else {
                break;
            };
            if prec < min {
                break;
            }
            self.i += 1;
            let rhs = self.binary(prec + 1);
            lhs = apply(op, lhs, rhs);
        }
        lhs
    }

    fn unary(&mut self) -> Val {
        for op in ["+", "-", "~", "!"] {
            if self.eat(op) {
                let v = self.unary();
                return match v {
                    Some(Ok(n)) => {
                        let r = match op {
                            "+" => n.v,
                            "-" => n.v.wrapping_neg(),
                            "~" => !n.v,
                            _ => return known((n.v == 0) as i64, false),
                        };
                        known(r, n.unsigned)
                    }
                    other => other,
                };
            }
        }
        self.primary()
    }

    fn primary(&mut self) -> Val {
        let Some(t) = self.peek().cloned() else {
            return Some(Err(()));
        };
        self.i += 1;
        match t.kind {
            TokKind::Punct if &*t.text == "(" => {
                let v = self.comma();
                if !self.eat(")") {
                    return Some(Err(()));
                }
                v
            }
            TokKind::Number => parse_int(&t.text),
            TokKind::Char => parse_char(&t.text),
            TokKind::Other if &*t.text == UNKNOWN => None,
            TokKind::Ident => {
                match &*t.text {
                    "true" => return known(1, false),
                    "false" => return known(0, false),
                    _ => {}
                }
                // `__has_include(<x.h>)`, `__has_attribute(x)`, `__GNUC_PREREQ(4, 2)`: a
                // function-like name the model does not define.
                if self
                    .peek()
                    .is_some_and(|n| n.kind == TokKind::Punct && &*n.text == "(")
                {
                    let mut d = 0usize;
                    while let Some(n) = self.toks.get(self.i) {
                        self.i += 1;
                        if n.kind == TokKind::Punct && &*n.text == "(" {
                            d += 1;
                        } else if n.kind == TokKind::Punct && &*n.text == ")" {
                            d -= 1;
                            if d == 0 {
                                return None;
                            }
                        }
                    }
                    return Some(Err(()));
                }
                match self.table.status(&t.text) {
                    // Left after expansion: a self-referential or uncalled macro, which C says
                    // is 0, or a name known to be undefined.
                    MacroStatus::Defined | MacroStatus::Undefined => known(0, false),
                    MacroStatus::MaybeDefined | MacroStatus::Unknown => None,
                }
            }
            _ => Some(Err(())),
        }
    }
}

fn merge_err(a: &Val, b: Val) -> Val {
    if matches!(a, Some(Err(()))) {
        return Some(Err(()));
    }
    b
}

fn apply(op: &str, a: Val, b: Val) -> Val {
    if matches!(a, Some(Err(()))) || matches!(b, Some(Err(()))) {
        return Some(Err(()));
    }
    match op {
        "&&" => {
            return match truthy(&a).and(truthy(&b)) {
                Truth::True => known(1, false),
                Truth::False => known(0, false),
                Truth::Unknown => None,
            };
        }
        "||" => {
            return match truthy(&a).or(truthy(&b)) {
                Truth::True => known(1, false),
                Truth::False => known(0, false),
                Truth::Unknown => None,
            };
        }
        _ => {}
    }
    let (Some(Ok(x)), Some(Ok(y))) = (a, b) else {
        return None;
    };
    let u = x.unsigned || y.unsigned;
    let (xu, yu) = (x.v as u64, y.v as u64);
    let cmp = |r: bool| known(r as i64, false);
    match op {
        "|" => known(x.v | y.v, u),
        "^" => known(x.v ^ y.v, u),
        "&" => known(x.v & y.v, u),
        "==" => cmp(x.v == y.v),
        "!=" => cmp(x.v != y.v),
        "<" => cmp(if u { xu < yu } else { x.v < y.v }),
        ">" => cmp(if u { xu > yu } else { x.v > y.v }),
        "<=" => cmp(if u { xu <= yu } else { x.v <= y.v }),
        ">=" => cmp(if u { xu >= yu } else { x.v >= y.v }),
        "<<" => known(x.v.wrapping_shl((y.v & 63) as u32), x.unsigned),
        ">>" if x.unsigned => known((xu >> (y.v & 63)) as i64, true),
        ">>" => known(x.v.wrapping_shr((y.v & 63) as u32), false),
        "+" => known(x.v.wrapping_add(y.v), u),
        "-" => known(x.v.wrapping_sub(y.v), u),
        "*" => known(x.v.wrapping_mul(y.v), u),
        // Division by zero is an error for the compiler; here it only makes the value unknown
        // (it may sit in a branch `&&` or `?:` discards).
        "/" | "%" if y.v == 0 => None,
        "/" if u => known((xu / yu) as i64, true),
        "%" if u => known((xu % yu) as i64, true),
        "/" => known(x.v.wrapping_div(y.v), false),
        "%" => known(x.v.wrapping_rem(y.v), false),
        _ => Some(Err(())),
    }
}

fn parse_int(s: &str) -> Val {
    let lower = s.to_ascii_lowercase().replace('\'', "");
    let digits = lower.trim_end_matches(['u', 'l', 'z']);
    let unsigned = lower[digits.len()..].contains('u');
    let (radix, body) = if let Some(h) = digits.strip_prefix("0x") {
        (16, h)
    } else if let Some(b) = digits.strip_prefix("0b") {
        (2, b)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    match u64::from_str_radix(body, radix) {
        Ok(v) => known(v as i64, unsigned || v > i64::MAX as u64),
        // A floating constant or garbage: not valid in `#if`.
        Err(_) => Some(Err(())),
    }
}

fn parse_char(s: &str) -> Val {
    let body = s.trim_start_matches(['L', 'u', 'U', '8']);
    let Some(inner) = body.strip_prefix('\'').and_then(|b| b.strip_suffix('\'')) else {
        return Some(Err(()));
    };
    let b = inner.as_bytes();
    let v = match b {
        [c] => *c as i64,
        [b'\\', e] => match e {
            b'n' => 10,
            b't' => 9,
            b'r' => 13,
            b'0' => 0,
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'v' => 11,
            b'\\' | b'\'' | b'"' | b'?' => *e as i64,
            _ => return None,
        },
        [b'\\', b'x', hex @ ..] => std::str::from_utf8(hex)
            .ok()
            .and_then(|h| i64::from_str_radix(h, 16).ok())?,
        [b'\\', oct @ ..] => std::str::from_utf8(oct)
            .ok()
            .and_then(|o| i64::from_str_radix(o, 8).ok())?,
        // Multi-character or non-ASCII constants: implementation-defined.
        _ => return None,
    };
    known(v, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::directive;

    fn t(defs: &str) -> MacroTable {
        let mut t = MacroTable::new();
        t.add_definitions_from(defs);
        t
    }

    #[test]
    fn arithmetic_and_logic() {
        let tb = t("#define A 2\n#define B (A * 3)\n#define F(x) ((x) + 1)");
        for (e, want) in [
            ("1", Truth::True),
            ("0", Truth::False),
            ("A == 2 && B == 6", Truth::True),
            ("F(A) == 3", Truth::True),
            ("(1 << 4) == 16 && (-1 >> 1) == -1", Truth::True),
            ("-1 < 0u", Truth::False),
            ("0xffffffffffffffff == -1", Truth::True),
            ("'a' == 97 && '\\n' == 10 && '\\x41' == 65", Truth::True),
            ("1 ? 2 : 0", Truth::True),
            ("!A", Truth::False),
            ("~0 == -1", Truth::True),
            ("10 / 3 == 3 && 10 % 3 == 1", Truth::True),
            ("true && !false", Truth::True),
            ("defined(A) && defined B", Truth::True),
        ] {
            assert_eq!(eval_str(e, &tb), want, "{e}");
        }
    }

    #[test]
    fn unknown_names_are_unknown_unless_decided() {
        let tb = t("#define A 1\n#undef GONE");
        assert_eq!(eval_str("X", &tb), Truth::Unknown);
        assert_eq!(eval_str("defined(X)", &tb), Truth::Unknown);
        assert_eq!(eval_str("0 && X", &tb), Truth::False);
        assert_eq!(eval_str("A || X", &tb), Truth::True);
        assert_eq!(eval_str("X ? 1 : 1", &tb), Truth::True);
        assert_eq!(eval_str("GONE", &tb), Truth::False);
        assert_eq!(eval_str("defined GONE", &tb), Truth::False);
        assert_eq!(eval_str("__has_attribute(noreturn)", &tb), Truth::Unknown);
        assert_eq!(eval_str("0 && __has_include(<x.h>)", &tb), Truth::False);
        // A complete build description: undefined is 0, except compiler-predefined names.
        let mut tb = tb;
        tb.complete = true;
        assert_eq!(eval_str("X", &tb), Truth::False);
        assert_eq!(eval_str("defined(_WIN32)", &tb), Truth::Unknown);
    }

    #[test]
    fn a_macro_from_an_undecided_arm_is_unknown_unless_decided() {
        let mut tb = t("#define A 1");
        tb.apply_directive(
            "#define P(a, b) ((a) > (b))",
            &directive::parse("#define P(a, b) ((a) > (b))", 0..27),
            false,
        );
        tb.apply_directive(
            "#define U 0",
            &directive::parse("#define U 0", 0..11),
            false,
        );
        assert_eq!(eval_str("P(4, 2)", &tb), Truth::Unknown);
        assert_eq!(eval_str("U", &tb), Truth::Unknown);
        assert_eq!(eval_str("A || P(4, 9)", &tb), Truth::True);
        assert_eq!(eval_str("P(4, 9) || A", &tb), Truth::True);
        assert_eq!(eval_str("!A && U", &tb), Truth::False);
        assert_eq!(eval_str("A && P(4, 9)", &tb), Truth::Unknown);
        // An object-like macro of an undecided arm, applied to arguments, is one unknown.
        tb.apply_directive(
            "#define Q OTHER_Q",
            &directive::parse("#define Q OTHER_Q", 0..17),
            false,
        );
        assert_eq!(eval_str("A || Q(2, (5))", &tb), Truth::True);
        assert_eq!(eval_str("!A && Q(2, 5)", &tb), Truth::False);
        assert_eq!(eval_str("Q(2, 5)", &tb), Truth::Unknown);
    }

    #[test]
    fn malformed_is_unknown_not_a_panic() {
        let tb = t("#define E\n#define R R");
        for e in [
            "",
            "(",
            "1 +",
            "1 ? 2",
            "defined",
            "defined(",
            "defined(1)",
            "1.5",
            "\"s\"",
            "E",
            "1 / 0",
            "1 % 0",
            ")",
            "'ab'",
            "R(",
        ] {
            assert_eq!(eval_str(e, &tb), Truth::Unknown, "{e}");
        }
        assert_eq!(eval_str("R", &tb), Truth::False);
        assert_eq!(eval_str("0 && 1 / 0", &tb), Truth::False);
        assert_eq!(
            eval_str("-9223372036854775807 - 1 / -1 < 0", &tb),
            Truth::True
        );
    }

    #[test]
    fn groups_are_decided_with_defines_in_order() {
        let text = "#define ON 1\n\
                    #if ON\nfree(p);\n#else\nkeep(p);\n#endif\n\
                    #ifdef UNKNOWN_THING\na();\n#elif 0\nb();\n#else\nc();\n#endif\n\
                    #if 0\n#if ON\nx();\n#endif\n#endif\n";
        let groups = conditional_groups(text, &MacroTable::new());
        assert_eq!(groups.len(), 4);
        assert_eq!(groups[0].live, Live::Arm(0));
        assert_eq!(&text[groups[0].arms[0].body.clone()], "\nfree(p);\n");
        assert_eq!(groups[1].live, Live::Unknown);
        let taken: Vec<_> = groups[1].arms.iter().map(|a| a.taken).collect();
        assert_eq!(taken, [Truth::Unknown, Truth::False, Truth::Unknown]);
        assert_eq!(groups[2].live, Live::NoArm);
        assert_eq!(groups[3].reached, Truth::False);
        let masked = mask_inactive(text, &groups);
        assert_eq!(masked.len(), text.len());
        assert!(masked.contains("free(p);"));
        assert!(!masked.contains("keep(p)"));
        assert!(!masked.contains("#if ON"));
        assert!(masked.contains("#ifdef UNKNOWN_THING"));
        assert!(masked.contains("a();") && masked.contains("c();") && !masked.contains("b();"));
        assert!(!masked.contains("x();"));
        assert_eq!(masked.lines().count(), text.lines().count());
    }

    #[test]
    fn unbalanced_directives_are_tolerated() {
        let text = "#endif\n#else\n#if 1\na();\n#elif X\nb();";
        let groups = conditional_groups(text, &MacroTable::new());
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].end, None);
        assert_eq!(groups[0].arms[1].taken, Truth::False);
        assert_eq!(groups[0].live, Live::Arm(0));
    }
}

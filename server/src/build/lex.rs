//! Preprocessing tokens (C11 §6.4): the one lexer every part of the build model reads text with.
//!
//! It never fails and never panics: any byte sequence lexes (an unterminated string ends at the
//! line end, an unterminated comment at the text end, a stray byte is an `Other` token). Token
//! boundaries always fall on ASCII bytes or the text ends, so every range is a valid `str` slice.
//! Comments and whitespace are not tokens; `space_before` remembers them (for `#` stringizing
//! and for rendering). A `#` first on its line starts a directive, lexed as one `Directive`
//! token covering the whole logical line (continuations and comments included, newline
//! excluded), so expansion and scanning both see directives as opaque units.

use std::ops::Range;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokKind {
    Ident,
    Number,
    /// String literal, with its prefix (`L"…"`, `u8"…"`).
    Str,
    /// Character constant, with its prefix.
    Char,
    Punct,
    /// A whole directive line (`# define X 1`), see the module docs.
    Directive,
    /// Any other single byte (`@`, `` ` ``, a stray `\`).
    Other,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokKind,
    pub range: Range<usize>,
    /// Whitespace or a comment comes between this token and the previous one.
    pub space_before: bool,
    /// Only whitespace or comments come before this token on its (logical) line.
    pub line_start: bool,
}

/// Lexes the whole text, recognising directives.
pub fn lex(text: &str) -> Vec<Token> {
    lex_span(text, 0..text.len(), true)
}

/// Lexes `span` of `text` (clamped to the text and to char boundaries); offsets stay absolute.
/// With `directives`, a `#` first on its line becomes a `Directive` token; a span that starts
/// mid-line counts as being at a line start only if just whitespace precedes it on its line.
pub fn lex_span(text: &str, span: Range<usize>, directives: bool) -> Vec<Token> {
    let (start, end) = clamp_span(text, span);
    let b = text.as_bytes();
    let mut line_start = text[..start]
        .bytes()
        .rev()
        .take_while(|&c| c != b'\n')
        .all(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\x0c' | b'\x0b'));
    let mut lx = Lexer { b, i: start, end };
    let mut out = Vec::new();
    let mut space = false;
    while lx.i < lx.end {
        let c = b[lx.i];
        match c {
            b'\n' => {
                lx.i += 1;
                line_start = true;
                space = true;
            }
            b' ' | b'\t' | b'\r' | b'\x0c' | b'\x0b' => {
                lx.i += 1;
                space = true;
            }
            b'\\' if lx.splice_len(lx.i) > 0 => {
                lx.i += lx.splice_len(lx.i);
                space = true;
            }
            b'/' if lx.peek(1) == Some(b'*') => {
                lx.block_comment();
                space = true;
            }
            b'/' if lx.peek(1) == Some(b'/') => {
                lx.line_comment();
                space = true;
            }
            _ => {
                let s = lx.i;
                let is_hash = c == b'#'
                    || (c == b'%' && lx.peek(1) == Some(b':') && lx.peek(2) != Some(b'%'));
                let kind = if directives && line_start && is_hash {
                    lx.directive();
                    TokKind::Directive
                } else {
                    lx.token()
                };
                out.push(Token {
                    kind,
                    range: s..lx.i,
                    space_before: space,
                    line_start,
                });
                line_start = false;
                space = false;
            }
        }
    }
    out
}

fn clamp_span(text: &str, span: Range<usize>) -> (usize, usize) {
    let mut end = span.end.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut start = span.start.min(end);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    (start, end)
}

struct Lexer<'a> {
    b: &'a [u8],
    i: usize,
    end: usize,
}

const PUNCTS: [&str; 36] = [
    "%:%:", "...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
    "*=", "/=", "%=", "+=", "-=", "&=", "^=", "|=", "##", "<:", ":>", "<%", "%>", "%:", "::", "[",
    "]", "(", ")", "{", "}",
];
const SINGLE: &[u8] = b".&*+-~!/%<>^|?:;=,#";

impl Lexer<'_> {
    fn peek(&self, k: usize) -> Option<u8> {
        let j = self.i + k;
        (j < self.end).then(|| self.b[j])
    }

    /// Length of a backslash-newline at `j` (0 if there is none).
    fn splice_len(&self, j: usize) -> usize {
        if self.b.get(j) != Some(&b'\\') || j + 1 >= self.end {
            return 0;
        }
        match self.b[j + 1] {
            b'\n' => 2,
            b'\r' if j + 2 < self.end && self.b[j + 2] == b'\n' => 3,
            _ => 0,
        }
    }

    fn block_comment(&mut self) {
        self.i += 2;
        while self.i < self.end {
            if self.b[self.i] == b'*' && self.peek(1) == Some(b'/') {
                self.i += 2;
                return;
            }
            self.i += 1;
        }
    }

    /// Up to (not including) the newline that ends it; a spliced newline continues it.
    fn line_comment(&mut self) {
        while self.i < self.end && self.b[self.i] != b'\n' {
            let s = self.splice_len(self.i);
            self.i += s.max(1);
        }
    }

    fn directive(&mut self) {
        while self.i < self.end {
            match self.b[self.i] {
                b'\n' => return,
                b'\\' if self.splice_len(self.i) > 0 => self.i += self.splice_len(self.i),
                b'/' if self.peek(1) == Some(b'*') => self.block_comment(),
                b'/' if self.peek(1) == Some(b'/') => self.line_comment(),
                q @ (b'"' | b'\'') => {
                    // `#include <it's.h>` or `#error don't`: a lone quote ends at the line end.
                    self.literal(q)
                }
                _ => self.i += 1,
            }
        }
    }

    /// From an opening quote at `self.i` past the closing one, or to the line end.
    fn literal(&mut self, q: u8) {
        self.i += 1;
        while self.i < self.end {
            match self.b[self.i] {
                c if c == q => {
                    self.i += 1;
                    return;
                }
                b'\n' => return,
                b'\\' => {
                    // An escape: skip the next byte unless it is a newline we must stop at
                    // (a splice is skipped whole).
                    let s = self.splice_len(self.i);
                    if s > 0 {
                        self.i += s;
                    } else if self.i + 1 < self.end && self.b[self.i + 1].is_ascii() {
                        self.i += 2;
                    } else {
                        self.i += 1;
                    }
                }
                _ => self.i += 1,
            }
        }
    }

    fn token(&mut self) -> TokKind {
        let c = self.b[self.i];
        if is_ident_start(c) {
            let s = self.i;
            while self.i < self.end && is_ident_continue(self.b[self.i]) {
                self.i += 1;
            }
            let word = &self.b[s..self.i];
            if matches!(word, b"L" | b"u" | b"U" | b"u8") && self.i < self.end {
                match self.b[self.i] {
                    b'"' => {
                        self.literal(b'"');
                        return TokKind::Str;
                    }
                    b'\'' => {
                        self.literal(b'\'');
                        return TokKind::Char;
                    }
                    _ => {}
                }
            }
            return TokKind::Ident;
        }
        if c.is_ascii_digit() || (c == b'.' && self.peek(1).is_some_and(|d| d.is_ascii_digit())) {
            self.i += 1;
            while self.i < self.end {
                let d = self.b[self.i];
                let sign = matches!(d, b'+' | b'-')
                    && matches!(self.b[self.i - 1], b'e' | b'E' | b'p' | b'P');
                if sign || d.is_ascii_alphanumeric() || d == b'_' || d == b'.' {
                    self.i += 1;
                } else if d == b'\'' && self.peek(1).is_some_and(|e| e.is_ascii_alphanumeric()) {
                    self.i += 2; // C23 digit separator
                } else {
                    break;
                }
            }
            return TokKind::Number;
        }
        if c == b'"' {
            self.literal(b'"');
            return TokKind::Str;
        }
        if c == b'\'' {
            self.literal(b'\'');
            return TokKind::Char;
        }
        let rest = &self.b[self.i..self.end];
        for p in PUNCTS {
            if rest.starts_with(p.as_bytes()) {
                self.i += p.len();
                return TokKind::Punct;
            }
        }
        self.i += 1;
        if SINGLE.contains(&c) {
            TokKind::Punct
        } else {
            TokKind::Other
        }
    }
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c >= 0x80
}

fn is_ident_continue(c: u8) -> bool {
    is_ident_start(c) || c.is_ascii_digit()
}

/// True when `s` lexes as exactly one token (used to check `##` results).
pub fn is_single_token(s: &str) -> Option<TokKind> {
    let toks = lex_span(s, 0..s.len(), false);
    match toks.as_slice() {
        [t] if t.range == (0..s.len()) => Some(t.kind),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(TokKind, &str)> {
        lex(text)
            .into_iter()
            .map(|t| (t.kind, &text[t.range]))
            .collect()
    }

    #[test]
    fn tokens_comments_and_literals() {
        use TokKind::*;
        assert_eq!(
            kinds("x->y += 0x1fUL; /* c */ s = L\"a\\\"b\" 'c' // end\n1.5e+3"),
            vec![
                (Ident, "x"),
                (Punct, "->"),
                (Ident, "y"),
                (Punct, "+="),
                (Number, "0x1fUL"),
                (Punct, ";"),
                (Ident, "s"),
                (Punct, "="),
                (Str, "L\"a\\\"b\""),
                (Char, "'c'"),
                (Number, "1.5e+3"),
            ]
        );
    }

    #[test]
    fn directives_are_whole_logical_lines() {
        let text = "int a;\n  # define F(x) \\\n   (x) /* a\n b */ + 1\nF(2)";
        let toks = kinds(text);
        assert_eq!(toks[3].0, TokKind::Directive);
        assert_eq!(toks[3].1, "# define F(x) \\\n   (x) /* a\n b */ + 1");
        assert_eq!(toks[4], (TokKind::Ident, "F"));
        // `#` not first on its line is punctuation.
        assert_eq!(kinds("a # b")[1], (TokKind::Punct, "#"));
    }

    #[test]
    fn unterminated_things_end_cleanly() {
        assert_eq!(kinds("\"abc\nx").len(), 2);
        assert_eq!(kinds("/* never closed").len(), 0);
        assert_eq!(kinds("'").len(), 1);
        assert_eq!(kinds("é∂ x").len(), 2);
        // Spans that cut a multibyte char are clamped to boundaries.
        let t = "aé b";
        assert!(!lex_span(t, 2..4, true).is_empty() || lex_span(t, 2..4, true).is_empty());
    }

    #[test]
    fn single_token_check() {
        assert_eq!(is_single_token("ab"), Some(TokKind::Ident));
        assert_eq!(is_single_token("->"), Some(TokKind::Punct));
        assert_eq!(is_single_token("+ -"), None);
        assert_eq!(is_single_token("/"), Some(TokKind::Punct));
    }
}

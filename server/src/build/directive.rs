//! One directive line (`#define …`, `#if …`, `#include …`) split into its kind and operands.

use super::lex::{TokKind, Token, lex_span};
use std::ops::Range;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirectiveKind {
    If,
    Ifdef,
    Ifndef,
    Elif,
    Elifdef,
    Elifndef,
    Else,
    Endif,
    Define,
    Undef,
    Include,
    IncludeNext,
    Pragma,
    /// `#error`, `#line`, `#warning`, `#embed`, the null directive, anything unknown.
    Other,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Directive {
    pub kind: DirectiveKind,
    /// Tokens after the directive name, with ranges into the text the directive was lexed from.
    pub operands: Vec<Token>,
    /// Byte range after the directive name (raw text, for `#include <a b.h>`).
    pub rest: Range<usize>,
}

/// Parses the directive whose `Directive` token covers `range` of `text`.
pub fn parse(text: &str, range: Range<usize>) -> Directive {
    let toks = lex_span(text, range.clone(), false);
    // toks[0] is `#` (or `%:`); toks[1] the name.
    let (kind, skip) = match toks.get(1) {
        Some(t) if t.kind == TokKind::Ident => {
            let kind = match &text[t.range.clone()] {
                "if" => DirectiveKind::If,
                "ifdef" => DirectiveKind::Ifdef,
                "ifndef" => DirectiveKind::Ifndef,
                "elif" => DirectiveKind::Elif,
                "elifdef" => DirectiveKind::Elifdef,
                "elifndef" => DirectiveKind::Elifndef,
                "else" => DirectiveKind::Else,
                "endif" => DirectiveKind::Endif,
                "define" => DirectiveKind::Define,
                "undef" => DirectiveKind::Undef,
                "include" => DirectiveKind::Include,
                "include_next" => DirectiveKind::IncludeNext,
                "import" => DirectiveKind::Include,
                "pragma" => DirectiveKind::Pragma,
                _ => DirectiveKind::Other,
            };
            (kind, 2)
        }
        _ => (DirectiveKind::Other, toks.len().min(1)),
    };
    let rest_start = toks
        .get(skip.saturating_sub(1))
        .map_or(range.start, |t| t.range.end);
    Directive {
        kind,
        operands: toks.into_iter().skip(skip).collect(),
        rest: rest_start..range.end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_operands() {
        let text = "#  ifdef  FOO // x";
        let d = parse(text, 0..text.len());
        assert_eq!(d.kind, DirectiveKind::Ifdef);
        assert_eq!(d.operands.len(), 1);
        assert_eq!(&text[d.operands[0].range.clone()], "FOO");
        let text = "#";
        assert_eq!(parse(text, 0..1).kind, DirectiveKind::Other);
        let text = "#include <a b.h>";
        let d = parse(text, 0..text.len());
        assert_eq!(d.kind, DirectiveKind::Include);
        assert_eq!(text[d.rest].trim(), "<a b.h>");
    }
}

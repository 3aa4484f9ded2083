//! Macro expansion of a span of text (one function body, one declaration) with a map from
//! every byte of the result back to the user's text.
//!
//! Semantics are C11 §6.10.3 with Prosser's hide sets (the "blue paint" rule): a token
//! produced by expanding `M` carries `M` in its hide set and is never expanded as `M` again;
//! a function-like invocation's result is hidden by (HS(name) ∩ HS(`)`)) ∪ {name}. Arguments
//! are fully expanded before substitution, except next to `#` and `##`. Variadics (`...`,
//! `__VA_ARGS__`, GNU `args...`, GNU `, ## __VA_ARGS__` comma swallowing, C23 `__VA_OPT__`).
//! Identifiers that are not macros are left alone; string and character literals and comments
//! are never looked into (the lexer does not split them).
//!
//! Where expansion cannot be done (wrong argument count, a directive inside the arguments,
//! an unbalanced parenthesis) the text stays as written. A [`Budget`] bounds the work: past
//! it, expansion stops, the rest of the span is copied unexpanded and `truncated` is set.
//! Output is therefore at most the input plus `max_tokens` tokens.
//!
//! The map ([`Segment`]s): text outside macro invocations is copied byte for byte and maps
//! 1:1; a token produced by a macro maps to the invocation range in the user's text (for
//! nested expansions, the outermost invocation written by the user), except tokens that came
//! from an argument, which map to where the argument was written. So a diagnostic inside
//! `CHECK(p = malloc(n))` can point at `p = malloc(n)`.

use super::directive::{self, DirectiveKind};
use super::lex::{TokKind, Token, is_single_token, lex_span};
use super::macros::{MacroDef, MacroTable, parse_define};
use rustc_hash::FxHashMap;
use std::ops::Range;
use std::rc::Rc;
use std::sync::Arc;

/// Limits on one expansion (one span, or one `#if` expression).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Budget {
    /// Tokens produced by all macro replacements together.
    pub max_tokens: usize,
    /// Macro invocations replaced.
    pub max_expansions: usize,
    /// Nesting of argument pre-expansion (`F(F(F(…)))`).
    pub max_depth: usize,
}

impl Default for Budget {
    fn default() -> Self {
        // Generous for real code (a `TAILQ_FOREACH` is ~30 tokens, OpenSSH's logging macros
        // ~20; a whole function body rarely produces more than a few thousand).
        Budget {
            max_tokens: 200_000,
            max_expansions: 50_000,
            max_depth: 64,
        }
    }
}

/// One piece of the map from expanded text to original text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Segment {
    /// Byte range in [`Expanded::text`].
    pub expanded: Range<usize>,
    /// Byte range in the original text.
    pub original: Range<usize>,
    /// Copied unchanged: byte `expanded.start + k` is byte `original.start + k`. Otherwise the
    /// whole expanded range came from the whole original range (a macro invocation or an
    /// argument of one).
    pub verbatim: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Expanded {
    pub text: String,
    /// Sorted, contiguous, covering `text` exactly.
    pub map: Vec<Segment>,
    /// The budget ran out; part of the span was left unexpanded.
    pub truncated: bool,
    /// Macro invocations replaced.
    pub expansions: usize,
    /// Some expanded macro was defined only in an undecided `#if` arm.
    pub used_uncertain: bool,
}

impl Expanded {
    /// The original range a range of the expanded text came from: the union of the original
    /// ranges of the segments it touches (exact inside verbatim text).
    pub fn original_range(&self, r: Range<usize>) -> Range<usize> {
        let Some(last) = self.map.last() else {
            return r;
        };
        let end = last.expanded.end;
        let start = r.start.min(end);
        let r = start..r.end.min(end).max(start);
        let first = self
            .map
            .partition_point(|s| s.expanded.end <= r.start)
            .min(self.map.len() - 1);
        let mut out: Option<Range<usize>> = None;
        for s in &self.map[first..] {
            if s.expanded.start >= r.end && !(r.is_empty() && out.is_none()) {
                break;
            }
            let piece = if s.verbatim {
                let a = r.start.max(s.expanded.start) - s.expanded.start;
                let b =
                    r.end.min(s.expanded.end).max(r.start.max(s.expanded.start)) - s.expanded.start;
                s.original.start + a..s.original.start + b
            } else {
                s.original.clone()
            };
            out = Some(match out {
                None => piece,
                Some(o) => o.start.min(piece.start)..o.end.max(piece.end),
            });
            if r.is_empty() {
                break;
            }
        }
        out.unwrap_or(r)
    }

    /// Where an original offset landed in the expanded text: exact in verbatim text, the start
    /// of the expansion for an offset inside a macro invocation; `None` outside the span.
    pub fn expanded_offset(&self, original: usize) -> Option<usize> {
        self.map.iter().find_map(|s| {
            if s.verbatim && s.original.contains(&original) {
                Some(s.expanded.start + (original - s.original.start))
            } else if !s.verbatim && s.original.contains(&original) {
                Some(s.expanded.start)
            } else {
                None
            }
        })
    }
}

/// Expands the macros in `span` of `text` with `table` (plus `#define`/`#undef` met inside
/// the span, in order). Directives inside the span are copied as written.
pub fn expand(text: &str, span: Range<usize>, table: &MacroTable, budget: &Budget) -> Expanded {
    let toks = lex_span(text, span.clone(), true);
    let mut end = span.end.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut pos = toks.first().map_or(end, |t| {
        // `lex_span` clamps to char boundaries; start where it started.
        let mut s = span.start.min(t.range.start);
        while !text.is_char_boundary(s) {
            s -= 1;
        }
        s
    });
    let groups = ParenGroups::new(text, &toks);
    let mut eng = Engine::new(table, *budget);
    let mut out = Builder::default();
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        if t.kind == TokKind::Directive {
            eng.apply_directive(text, t.range.clone());
            i += 1;
            continue;
        }
        let Some(def) = (t.kind == TokKind::Ident && !eng.stopped)
            .then(|| eng.lookup(&text[t.range.clone()]))
            .flatten()
        else {
            i += 1;
            continue;
        };
        let end_of_call = if def.is_function_like() {
            groups.end(i + 1)
        } else {
            Some(i)
        };
        let Some(mut j) = end_of_call else {
            i += 1;
            continue;
        };
        let before = eng.counters();
        let res = loop {
            let input = toks[i..=j]
                .iter()
                .map(|t| PTok::from_source(text, t))
                .collect();
            let res = eng.expand_list(input, 0);
            // A function-like macro name left at the end of the result takes its arguments
            // from the text that follows (`#define G F`, then `G(x)` is `F(x)`): extend the
            // invocation over them and redo it. Redoing is charged as work (not undone by
            // `restore`), so a chain `G(1)(2)(3)…` stays bounded.
            if let Some(last) = res.last()
                && !eng.stopped
                && last.kind == TokKind::Ident
                && eng.would_expand_call(last)
                && let Some(k) = groups.end(j + 1)
            {
                eng.restore(before);
                j = k;
                continue;
            }
            break res;
        };
        if eng.counters().0 == before.0 {
            // Nothing was replaced (e.g. a wrong argument count): leave the text as written.
            i += 1;
            continue;
        }
        let inv = t.range.start..toks[j].range.end;
        out.verbatim(text, pos..inv.start);
        let res = without_pragma_operators(res);
        for tok in &res {
            out.token(tok);
        }
        pos = inv.end;
        i = j + 1;
    }
    out.verbatim(text, pos..end.max(pos));
    Expanded {
        text: out.text,
        map: out.map,
        truncated: eng.truncated,
        expansions: eng.expansions,
        used_uncertain: eng.used_uncertain,
    }
}

/// `res` without its `_Pragma ( "…" )` operators: a macro may emit one (to silence a warning
/// around its body), and it is a directive to the compiler, not code (C11 6.10.9): kept, it
/// would be a call without `;` in the middle of a statement.
fn without_pragma_operators(res: Vec<PTok>) -> Vec<PTok> {
    let is = |t: Option<&PTok>, kind: TokKind, text: Option<&str>| {
        t.is_some_and(|t| t.kind == kind && text.is_none_or(|x| &*t.text == x))
    };
    if !res.iter().any(|t| &*t.text == "_Pragma") {
        return res;
    }
    let mut out = Vec::with_capacity(res.len());
    let mut k = 0;
    while k < res.len() {
        if is(res.get(k), TokKind::Ident, Some("_Pragma"))
            && is(res.get(k + 1), TokKind::Punct, Some("("))
            && is(res.get(k + 2), TokKind::Str, None)
            && is(res.get(k + 3), TokKind::Punct, Some(")"))
        {
            k += 4;
            continue;
        }
        out.push(res[k].clone());
        k += 1;
    }
    out
}

/// Matching parentheses of a token list, computed once (so finding an invocation's end is
/// constant time even when many parentheses are unclosed).
struct ParenGroups {
    close: Vec<Option<usize>>,
    /// Directives before each index: a group with a directive inside is not an argument list.
    directives_before: Vec<usize>,
}

impl ParenGroups {
    fn new(text: &str, toks: &[Token]) -> Self {
        let mut close = vec![None; toks.len()];
        let mut directives_before = Vec::with_capacity(toks.len() + 1);
        let mut open = Vec::new();
        let mut d = 0;
        for (k, t) in toks.iter().enumerate() {
            directives_before.push(d);
            match (t.kind, &text[t.range.clone()]) {
                (TokKind::Directive, _) => d += 1,
                (TokKind::Punct, "(") => open.push(k),
                (TokKind::Punct, ")") => {
                    if let Some(o) = open.pop() {
                        close[o] = Some(k);
                    }
                }
                _ => {}
            }
        }
        directives_before.push(d);
        ParenGroups {
            close,
            directives_before,
        }
    }

    /// If token `open` is `(`, the index of its `)`, unless a directive lies in between.
    fn end(&self, open: usize) -> Option<usize> {
        let c = (*self.close.get(open)?)?;
        (self.directives_before[c] == self.directives_before[open]).then_some(c)
    }
}

#[derive(Default)]
struct Builder {
    text: String,
    map: Vec<Segment>,
}

impl Builder {
    fn push(&mut self, s: &str, original: Range<usize>, verbatim: bool) {
        if s.is_empty() {
            return;
        }
        let start = self.text.len();
        self.text.push_str(s);
        let expanded = start..self.text.len();
        if let Some(last) = self.map.last_mut()
            && last.verbatim == verbatim
            && ((verbatim && last.original.end == original.start)
                || (!verbatim && last.original == original))
        {
            last.expanded.end = expanded.end;
            last.original.end = original.end;
            return;
        }
        self.map.push(Segment {
            expanded,
            original,
            verbatim,
        });
    }

    fn verbatim(&mut self, text: &str, r: Range<usize>) {
        self.push(&text[r.clone()], r, true);
    }

    fn token(&mut self, tok: &PTok) {
        if tok.is_placemarker() {
            return;
        }
        let sep = match (self.text.chars().next_back(), tok.text.chars().next()) {
            (Some(a), Some(b)) => !a.is_whitespace() && (tok.space || glue_risk(a, b)),
            _ => false,
        };
        let s = if sep {
            format!(" {}", tok.text)
        } else {
            tok.text.to_string()
        };
        self.push(&s, tok.origin.clone(), false);
    }
}

/// Whether two tokens written without a space between them would lex differently.
fn glue_risk(a: char, b: char) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$' || !c.is_ascii();
    const OPS: &str = "+-*/%<>=!&|^#:.";
    (word(a) && (word(b) || b == '"' || b == '\'' || b == '.'))
        || (a == '.' && word(b))
        || (OPS.contains(a) && OPS.contains(b))
}

/// Hide set: sorted interned macro names.
type Hide = Option<Rc<[u32]>>;

fn hide_contains(h: &Hide, id: u32) -> bool {
    h.as_ref().is_some_and(|s| s.binary_search(&id).is_ok())
}

fn hide_union(a: &Hide, b: &Hide) -> Hide {
    match (a, b) {
        (None, x) | (x, None) => x.clone(),
        (Some(a), Some(b)) => {
            let mut v: Vec<u32> = a.iter().chain(b.iter()).copied().collect();
            v.sort_unstable();
            v.dedup();
            Some(v.into())
        }
    }
}

fn hide_intersect(a: &Hide, b: &Hide) -> Hide {
    match (a, b) {
        (Some(a), Some(b)) => {
            let v: Vec<u32> = a
                .iter()
                .filter(|x| b.binary_search(x).is_ok())
                .copied()
                .collect();
            (!v.is_empty()).then(|| v.into())
        }
        _ => None,
    }
}

/// A token in flight through expansion.
#[derive(Clone, Debug)]
pub(crate) struct PTok {
    pub kind: TokKind,
    pub text: Rc<str>,
    pub space: bool,
    hide: Hide,
    /// Where in the original text it came from.
    pub origin: Range<usize>,
}

impl PTok {
    pub fn from_source(text: &str, t: &Token) -> PTok {
        PTok {
            kind: t.kind,
            text: Rc::from(&text[t.range.clone()]),
            space: t.space_before,
            hide: None,
            origin: t.range.clone(),
        }
    }

    pub fn synthetic(kind: TokKind, text: &str, origin: Range<usize>) -> PTok {
        PTok {
            kind,
            text: Rc::from(text),
            space: true,
            hide: None,
            origin,
        }
    }

    fn placemarker(origin: Range<usize>) -> PTok {
        PTok::synthetic(TokKind::Other, "", origin)
    }

    fn is_placemarker(&self) -> bool {
        self.text.is_empty()
    }

    fn is_punct(&self, p: &str) -> bool {
        self.kind == TokKind::Punct && &*self.text == p
    }
}

/// The expansion machine, shared by [`expand`] and `#if` evaluation.
pub(crate) struct Engine<'t> {
    table: &'t MacroTable,
    /// `#define`/`#undef` met inside the span being expanded.
    overlay: FxHashMap<String, Option<Arc<MacroDef>>>,
    names: FxHashMap<Rc<str>, u32>,
    budget: Budget,
    produced: usize,
    /// Tokens looked at while collecting arguments.
    work: usize,
    pub expansions: usize,
    pub truncated: bool,
    pub stopped: bool,
    pub used_uncertain: bool,
    /// When set, an invocation of a macro defined only in an undecided arm is replaced by
    /// one token of this text (`#if` evaluation's unknown marker) instead of being expanded.
    pub uncertain_marker: Option<&'static str>,
}

impl<'t> Engine<'t> {
    pub fn new(table: &'t MacroTable, budget: Budget) -> Self {
        Engine {
            table,
            overlay: FxHashMap::default(),
            names: FxHashMap::default(),
            budget,
            produced: 0,
            work: 0,
            expansions: 0,
            truncated: false,
            stopped: false,
            used_uncertain: false,
            uncertain_marker: None,
        }
    }

    fn counters(&self) -> (usize, usize, bool) {
        (self.expansions, self.produced, self.used_uncertain)
    }

    fn restore(&mut self, c: (usize, usize, bool)) {
        (self.expansions, self.produced, self.used_uncertain) = c;
    }

    fn stop(&mut self) {
        self.stopped = true;
        self.truncated = true;
    }

    pub fn lookup(&self, name: &str) -> Option<Arc<MacroDef>> {
        match self.overlay.get(name) {
            Some(d) => d.clone(),
            None => self.table.get_arc(name),
        }
    }

    fn intern(&mut self, name: &Rc<str>) -> u32 {
        let n = self.names.len() as u32;
        *self.names.entry(name.clone()).or_insert(n)
    }

    fn apply_directive(&mut self, text: &str, range: Range<usize>) {
        let d = directive::parse(text, range);
        match d.kind {
            DirectiveKind::Define => {
                if let Some(def) = parse_define(text, &d) {
                    self.overlay.insert(def.name.clone(), Some(Arc::new(def)));
                }
            }
            DirectiveKind::Undef => {
                if let Some(t) = d.operands.first().filter(|t| t.kind == TokKind::Ident) {
                    self.overlay.insert(text[t.range.clone()].to_string(), None);
                }
            }
            _ => {}
        }
    }

    /// Whether `t` names a function-like macro it may still expand.
    fn would_expand_call(&mut self, t: &PTok) -> bool {
        let Some(def) = self.lookup(&t.text) else {
            return false;
        };
        let id = self.intern(&t.text);
        def.is_function_like() && !hide_contains(&t.hide, id)
    }

    /// Fully macro-expands a token list (C's rescanning included).
    pub fn expand_list(&mut self, input: Vec<PTok>, depth: usize) -> Vec<PTok> {
        let mut stack = input;
        stack.reverse();
        let mut out = Vec::with_capacity(stack.len());
        while let Some(t) = stack.pop() {
            match self.try_expand(&t, &mut stack, depth) {
                Some(rep) => stack.extend(rep.into_iter().rev()),
                None => out.push(t),
            }
        }
        out
    }

    /// Replaces the invocation starting with `t` (its arguments are popped from `stack`), or
    /// `None` (and `stack` unchanged) when `t` is not to be expanded.
    fn try_expand(&mut self, t: &PTok, stack: &mut Vec<PTok>, depth: usize) -> Option<Vec<PTok>> {
        if self.stopped || t.kind != TokKind::Ident {
            return None;
        }
        let def = self.lookup(&t.text)?;
        let id = self.intern(&t.text);
        if hide_contains(&t.hide, id) {
            return None;
        }
        if depth > self.budget.max_depth || self.expansions >= self.budget.max_expansions {
            self.stop();
            return None;
        }
        let (args, hs, origin, consumed) = match &def.params {
            None => (
                Vec::new(),
                hide_union(&t.hide, &Some(Rc::from([id]))),
                t.origin.clone(),
                Vec::new(),
            ),
            Some(params) => {
                if !stack.last().is_some_and(|p| p.is_punct("(")) {
                    return None;
                }
                let scanned = collect_args(stack, params.len(), def.variadic);
                // Looking for arguments costs work even when there are none (`F(` unclosed):
                // count it, so rescans cannot go quadratic unnoticed.
                self.work += match &scanned {
                    Ok((_, consumed)) => consumed.len(),
                    Err(n) => *n,
                };
                if self.work > self.budget.max_tokens.saturating_mul(16) {
                    self.stop();
                }
                let (args, consumed) = scanned.ok()?;
                let rparen = consumed.last().expect("collect_args keeps the `)`");
                let hs = hide_union(
                    &hide_intersect(&t.hide, &rparen.hide),
                    &Some(Rc::from([id])),
                );
                let origin = consumed.iter().fold(t.origin.clone(), |o, c| {
                    o.start.min(c.origin.start)..o.end.max(c.origin.end)
                });
                (args, hs, origin, consumed)
            }
        };
        if def.uncertain
            && let Some(marker) = self.uncertain_marker
        {
            self.used_uncertain = true;
            if def.params.is_none() && stack.last().is_some_and(|p| p.is_punct("(")) {
                // An unknown value applied to arguments (`#define PREREQ OTHER_PREREQ` in an
                // undecided arm, used as `PREREQ(2, 5)`) is one unknown value: its balanced
                // argument list goes with it.
                let mut level = 0usize;
                while let Some(p) = stack.pop() {
                    if p.is_punct("(") {
                        level += 1;
                    } else if p.is_punct(")") {
                        level -= 1;
                        if level == 0 {
                            break;
                        }
                    }
                }
            }
            return Some(vec![PTok::synthetic(TokKind::Other, marker, origin)]);
        }
        match self.subst(&def, &args, &hs, &origin, depth) {
            Some(mut res) => {
                if let Some(f) = res.first_mut() {
                    f.space = t.space;
                }
                self.expansions += 1;
                self.used_uncertain |= def.uncertain;
                Some(res)
            }
            None => {
                // Over budget: give the invocation back unexpanded.
                stack.extend(consumed.into_iter().rev());
                None
            }
        }
    }

    fn charge(&mut self, n: usize) -> bool {
        self.produced += n;
        if self.produced > self.budget.max_tokens {
            self.stop();
            return false;
        }
        true
    }

    /// The replacement list with arguments substituted, `#` and `##` applied, and `hs` added
    /// to every token; `None` when the budget ran out.
    fn subst(
        &mut self,
        def: &MacroDef,
        args: &[Vec<PTok>],
        hs: &Hide,
        origin: &Range<usize>,
        depth: usize,
    ) -> Option<Vec<PTok>> {
        let mut cache: Vec<Option<Vec<PTok>>> = vec![None; args.len()];
        let mut res = Vec::new();
        self.subst_range(
            def,
            0..def.body.len(),
            args,
            &mut cache,
            origin,
            depth,
            &mut res,
        )?;
        res.retain(|t| !t.is_placemarker());
        for t in &mut res {
            t.hide = hide_union(&t.hide, hs);
        }
        Some(res)
    }

    #[allow(clippy::too_many_arguments)]
    fn subst_range(
        &mut self,
        def: &MacroDef,
        range: Range<usize>,
        args: &[Vec<PTok>],
        cache: &mut Vec<Option<Vec<PTok>>>,
        origin: &Range<usize>,
        depth: usize,
        res: &mut Vec<PTok>,
    ) -> Option<()> {
        let body = &def.body[range.clone()];
        let params: &[String] = def.params.as_deref().unwrap_or(&[]);
        let param = |k: usize| -> Option<usize> {
            let bt = body.get(k)?;
            (bt.kind == TokKind::Ident)
                .then(|| params.iter().position(|p| *p == bt.text))
                .flatten()
        };
        let va = def.variadic.then(|| params.len() - 1);
        let is = |k: usize, s: &str| {
            body.get(k)
                .is_some_and(|b| b.kind == TokKind::Punct && b.text == s)
        };
        let mut i = 0;
        while i < body.len() {
            if !self.charge(0) {
                return None;
            }
            let bt = &body[i];
            // `#param`
            if def.is_function_like()
                && is(i, "#")
                && let Some(p) = param(i + 1)
            {
                res.push(stringify(&args[p], origin.clone(), bt.space_before));
                self.charge(1).then_some(())?;
                i += 2;
                continue;
            }
            // `__VA_OPT__( … )`
            if va.is_some()
                && bt.kind == TokKind::Ident
                && bt.text == "__VA_OPT__"
                && is(i + 1, "(")
            {
                let mut d = 0;
                let mut close = None;
                for (k, b) in body.iter().enumerate().skip(i + 1) {
                    if b.kind == TokKind::Punct && b.text == "(" {
                        d += 1;
                    } else if b.kind == TokKind::Punct && b.text == ")" {
                        d -= 1;
                        if d == 0 {
                            close = Some(k);
                            break;
                        }
                    }
                }
                if let Some(close) = close {
                    let va_arg = &args[va.unwrap_or(0)];
                    if !va_arg.is_empty() {
                        let r = range.start + i + 2..range.start + close;
                        self.subst_range(def, r, args, cache, origin, depth, res)?;
                    }
                    i = close + 1;
                    continue;
                }
            }
            // `a ## b`
            if is(i, "##") && i > 0 && i + 1 < body.len() {
                i += 1;
                let rhs: Vec<PTok> = match param(i) {
                    Some(p) => {
                        if Some(p) == va && res.last().is_some_and(|t| t.is_punct(",")) {
                            // GNU `, ## __VA_ARGS__`: swallow the comma when empty; otherwise
                            // the comma stays and the arguments follow, unpasted.
                            if args[p].is_empty() {
                                res.pop();
                            } else {
                                res.extend(args[p].iter().cloned());
                                self.charge(args[p].len()).then_some(())?;
                            }
                            i += 1;
                            continue;
                        }
                        args[p].clone()
                    }
                    None => vec![self.body_tok(&body[i], origin)],
                };
                self.charge(rhs.len()).then_some(())?;
                let lhs = res
                    .pop()
                    .unwrap_or_else(|| PTok::placemarker(origin.clone()));
                let mut rhs = rhs.into_iter();
                match rhs.next() {
                    None => res.push(lhs),
                    Some(first) => {
                        res.extend(paste(lhs, first, origin));
                        res.extend(rhs);
                    }
                }
                i += 1;
                continue;
            }
            if let Some(p) = param(i) {
                let before_paste = is(i + 1, "##");
                let mut toks = if before_paste {
                    args[p].clone()
                } else {
                    if cache[p].is_none() {
                        let e = self.expand_list(args[p].clone(), depth + 1);
                        if self.stopped {
                            return None;
                        }
                        cache[p] = Some(e);
                    }
                    cache[p].clone().unwrap_or_default()
                };
                self.charge(toks.len()).then_some(())?;
                match toks.first_mut() {
                    Some(f) => f.space = bt.space_before,
                    None if before_paste => toks.push(PTok::placemarker(origin.clone())),
                    None => {}
                }
                res.extend(toks);
                i += 1;
                continue;
            }
            self.charge(1).then_some(())?;
            res.push(self.body_tok(bt, origin));
            i += 1;
        }
        Some(())
    }

    fn body_tok(&self, bt: &super::macros::BodyToken, origin: &Range<usize>) -> PTok {
        PTok {
            kind: bt.kind,
            text: Rc::from(bt.text.as_str()),
            space: bt.space_before,
            hide: None,
            origin: origin.clone(),
        }
    }
}

/// Pops `( args )` from `stack` (reversed order). `Err(tokens looked at)`, with `stack`
/// unchanged, when the list is unterminated, contains a directive, or has the wrong number of
/// arguments.
#[allow(clippy::type_complexity)]
fn collect_args(
    stack: &mut Vec<PTok>,
    nparams: usize,
    variadic: bool,
) -> Result<(Vec<Vec<PTok>>, Vec<PTok>), usize> {
    let mut consumed = Vec::new();
    let mut args: Vec<Vec<PTok>> = vec![Vec::new()];
    let mut depth = 0usize;
    let restore = |stack: &mut Vec<PTok>, consumed: Vec<PTok>| {
        stack.extend(consumed.into_iter().rev());
    };
    loop {
        let Some(t) = stack.pop() else {
            let n = consumed.len();
            restore(stack, consumed);
            return Err(n);
        };
        if t.kind == TokKind::Directive {
            stack.push(t);
            let n = consumed.len();
            restore(stack, consumed);
            return Err(n);
        }
        let first = consumed.is_empty();
        consumed.push(t.clone());
        if first {
            depth = 1; // the `(`
            continue;
        }
        if t.is_punct("(") {
            depth += 1;
        } else if t.is_punct(")") {
            depth -= 1;
            if depth == 0 {
                break;
            }
        } else if t.is_punct(",") && depth == 1 && !(variadic && args.len() == nparams) {
            args.push(Vec::new());
            continue;
        }
        if let Some(a) = args.last_mut() {
            a.push(t);
        }
    }
    let n = args.len();
    let ok = if nparams == 0 {
        n == 1 && args[0].is_empty()
    } else if variadic {
        if n == nparams - 1 {
            args.push(Vec::new());
            true
        } else {
            n == nparams
        }
    } else {
        n == nparams
    };
    if !ok {
        let n = consumed.len();
        restore(stack, consumed);
        return Err(n);
    }
    if nparams == 0 {
        args.clear();
    }
    Ok((args, consumed))
}

fn stringify(arg: &[PTok], origin: Range<usize>, space: bool) -> PTok {
    let mut s = String::from("\"");
    for (k, t) in arg.iter().enumerate() {
        if k > 0 && t.space {
            s.push(' ');
        }
        if matches!(t.kind, TokKind::Str | TokKind::Char) {
            for c in t.text.chars() {
                if c == '"' || c == '\\' {
                    s.push('\\');
                }
                s.push(c);
            }
        } else {
            s.push_str(&t.text);
        }
    }
    s.push('"');
    let mut t = PTok::synthetic(TokKind::Str, &s, origin);
    t.space = space;
    t
}

/// `lhs ## rhs`: one token when the spellings form one, else both (lenient: a compiler would
/// reject the program).
fn paste(lhs: PTok, rhs: PTok, origin: &Range<usize>) -> Vec<PTok> {
    if lhs.is_placemarker() {
        return vec![rhs];
    }
    if rhs.is_placemarker() {
        return vec![lhs];
    }
    let joined = format!("{}{}", lhs.text, rhs.text);
    match is_single_token(&joined) {
        Some(kind) => {
            let mut t = PTok::synthetic(kind, &joined, origin.clone());
            t.space = lhs.space;
            vec![t]
        }
        None => vec![lhs, rhs],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(defs: &str) -> MacroTable {
        let mut t = MacroTable::new();
        t.add_definitions_from(defs);
        t
    }

    /// Expands the whole of `code` with the macros of `defs`; returns the text with runs of
    /// whitespace squeezed.
    fn ex(defs: &str, code: &str) -> String {
        let e = expand(code, 0..code.len(), &table(defs), &Budget::default());
        assert!(!e.truncated);
        check_map(code, &e);
        e.text.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// The map covers the output exactly, in order, and verbatim segments copy text.
    pub(super) fn check_map(code: &str, e: &Expanded) {
        let mut at = 0;
        for s in &e.map {
            assert_eq!(s.expanded.start, at, "{:?}", e.map);
            at = s.expanded.end;
            assert!(s.original.end <= code.len());
            if s.verbatim {
                assert_eq!(&e.text[s.expanded.clone()], &code[s.original.clone()]);
            }
        }
        assert_eq!(at, e.text.len());
    }

    #[test]
    fn object_and_function_like() {
        assert_eq!(
            ex("#define FATAL(m) abort()", "if (!p) FATAL(\"oom\");"),
            "if (!p) abort();"
        );
        assert_eq!(
            ex("#define DATA_PTR(x) ((x)->data)", "DATA_PTR(o) = p;"),
            "((o)->data) = p;"
        );
        assert_eq!(ex("#define N 10", "int a[N];"), "int a[10];");
        // A function-like macro name without `(` is an ordinary identifier.
        assert_eq!(ex("#define F(x) x", "f = F;"), "f = F;");
    }

    #[test]
    fn pragma_operators_are_not_code() {
        let defs = "#define CHECK(c) do { _Pragma(\"GCC diagnostic push\") if (!(c)) abort(); _Pragma(\"GCC diagnostic pop\") } while (0)";
        assert_eq!(
            ex(defs, "CHECK(p);"),
            "do { if (!(p)) abort(); } while (0);"
        );
        // Written in the text, not by a macro, it stays (the lowering reads it as a no-op).
        assert_eq!(ex(defs, "_Pragma(\"once\") f();"), "_Pragma(\"once\") f();");
        // Stringified, it is a string's content.
        assert_eq!(
            ex("#define S(x) #x", "S(_Pragma(\"a\"))"),
            "\"_Pragma(\\\"a\\\")\""
        );
    }

    #[test]
    fn unknown_identifiers_literals_and_comments_untouched() {
        let defs = "#define p q";
        assert_eq!(
            ex(defs, "x = \"p\" + 'p' /* p */ + y; // p"),
            "x = \"p\" + 'p' /* p */ + y; // p"
        );
    }

    #[test]
    fn recursion_is_blue_painted() {
        assert_eq!(ex("#define foo foo + 1", "foo"), "foo + 1");
        assert_eq!(ex("#define a b\n#define b a", "a b"), "a b");
        // C11 §6.10.3.5 example 3 (part).
        let defs = "#define x 3\n#define f(a) f(x * (a))\n#undef x\n#define x 2\n#define g f\n#define z z[0]";
        assert_eq!(
            ex(defs, "f(y+1) + f(f(z)) % t;"),
            "f(2 * (y+1)) + f(2 * (f(2 * (z[0])))) % t;"
        );
        assert_eq!(ex(defs, "g(x+(3,4)-w)"), "f(2 * (2+(3,4)-w))");
    }

    #[test]
    fn stringize_and_paste() {
        assert_eq!(
            ex("#define S(x) #x", "S(a  \"b\\n\" c)"),
            "\"a \\\"b\\\\n\\\" c\""
        );
        assert_eq!(
            ex("#define CAT(a,b) a ## b", "CAT(x, 1) CAT(,y) CAT(,)"),
            "x1 y"
        );
        assert_eq!(ex("#define ARROW(a) a -## > b", "ARROW(p)"), "p -> b");
        // Pasting operands are not pre-expanded.
        assert_eq!(
            ex("#define A 1\n#define CAT(a,b) a ## b", "CAT(A, B)"),
            "AB"
        );
    }

    #[test]
    fn variadics() {
        let defs = "#define error_f(fmt, ...) sshlog(__FILE__, fmt, ##__VA_ARGS__)\n\
                    #define LOG(...) printf(__VA_ARGS__)\n\
                    #define OPT(a, ...) f(a __VA_OPT__(,) __VA_ARGS__)\n\
                    #define NAMED(fmt, args...) g(fmt, ## args)";
        assert_eq!(
            ex(defs, "error_f(\"mkdir %s\", path);"),
            "sshlog(__FILE__, \"mkdir %s\", path);"
        );
        assert_eq!(ex(defs, "error_f(\"x\");"), "sshlog(__FILE__, \"x\");");
        assert_eq!(ex(defs, "LOG(\"%d %d\", a, b)"), "printf(\"%d %d\", a, b)");
        assert_eq!(ex(defs, "OPT(1) OPT(1, 2, 3)"), "f(1) f(1, 2, 3)");
        assert_eq!(ex(defs, "NAMED(x) NAMED(x, y)"), "g(x) g(x, y)");
    }

    #[test]
    fn wrong_arity_and_unbalanced_stay_as_written() {
        let defs = "#define F(a, b) a + b";
        assert_eq!(ex(defs, "F(1) F(1, 2, 3) F(1, 2"), "F(1) F(1, 2, 3) F(1, 2");
        assert_eq!(ex(defs, "F((1, 2), 3)"), "(1, 2) + 3");
    }

    #[test]
    fn name_from_expansion_takes_arguments_from_the_text() {
        assert_eq!(ex("#define G F\n#define F(x) [x]", "G(1) + 2"), "[1] + 2");
    }

    #[test]
    fn directives_inside_the_span_apply_in_order() {
        let code = "a = X;\n#define X 2\nb = X;\n#undef X\nc = X;";
        assert_eq!(
            ex("#define X 1", code),
            "a = 1;\n#define X 2\nb = 2;\n#undef X\nc = X;"
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        );
    }

    #[test]
    fn map_points_at_what_the_user_wrote() {
        let defs = "#define CHECK(e) if (!(e)) abort()";
        let code = "int f() {\n  CHECK(p = malloc(1));\n  return 0;\n}";
        let e = expand(code, 0..code.len(), &table(defs), &Budget::default());
        check_map(code, &e);
        let inv = code.find("CHECK").unwrap()..code.find(");").unwrap() + 1;
        // `abort` comes from the body: the whole invocation.
        let a = e.text.find("abort").unwrap();
        assert_eq!(e.original_range(a..a + 5), inv);
        // The argument maps to itself.
        let m = e.text.find("malloc").unwrap();
        let om = code.find("malloc").unwrap();
        assert_eq!(e.original_range(m..m + 6), om..om + 6);
        // Untouched text maps 1:1, across the expansion.
        let r = e.text.find("return").unwrap();
        let or = code.find("return").unwrap();
        assert_eq!(e.original_range(r..r + 6), or..or + 6);
        assert_eq!(e.expanded_offset(or), Some(r));
        // A range spanning body and argument covers the invocation.
        assert_eq!(e.original_range(a - 20..a + 5).start, inv.start.min(om));
        assert_eq!(e.original_range(0..e.text.len()), 0..code.len());
        // Empty ranges and out-of-range ranges don't panic.
        let _ = e.original_range(e.text.len()..e.text.len() + 10);
        let _ = e.original_range(5..5);
    }

    #[test]
    fn nested_expansions_map_to_the_outermost_invocation() {
        let defs = "#define INNER(x) inner(x)\n#define OUTER(x) INNER(x) + 1";
        let code = "y = OUTER(z);";
        let e = expand(code, 0..code.len(), &table(defs), &Budget::default());
        let i = e.text.find("inner").unwrap();
        assert_eq!(e.original_range(i..i + 5), 4..12);
        let z = e.text.find('z').unwrap();
        assert_eq!(e.original_range(z..z + 1), 10..11);
    }

    #[test]
    fn span_is_respected() {
        let code = "#define X 1\nint a = X; int b = X;";
        let t = table(code);
        let start = code.find("int b").unwrap();
        let e = expand(code, start..code.len(), &t, &Budget::default());
        assert_eq!(e.text, "int b = 1;");
        assert_eq!(e.original_range(0..3), start..start + 3);
    }

    #[test]
    fn unclosed_and_chained_calls_stay_linear() {
        let t = table("#define F(x) x\n#define G(x) H\n#define H(x) G");
        let code = "F(".repeat(50_000);
        let start = std::time::Instant::now();
        let e = expand(&code, 0..code.len(), &t, &Budget::default());
        assert_eq!(e.text, code);
        let chain = format!("G{}", "(1)".repeat(20_000));
        let e = expand(&chain, 0..chain.len(), &t, &Budget::default());
        check_map(&chain, &e);
        assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
    }

    #[test]
    fn macro_bombs_stop_within_budget() {
        let mut defs = String::new();
        for k in 0..40 {
            defs += &format!("#define M{k} M{n} M{n}\n", n = k + 1);
        }
        let budget = Budget {
            max_tokens: 10_000,
            ..Budget::default()
        };
        let code = "x = M0;";
        let e = expand(code, 0..code.len(), &table(&defs), &budget);
        assert!(e.truncated);
        check_map(code, &e);
        assert!(e.text.len() < 10_000 * 8);
        // Argument doubling bomb.
        let defs = "#define D(x) x x";
        let code = "D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(1))))))))))))))))))))))";
        let e = expand(code, 0..code.len(), &table(defs), &budget);
        assert!(e.truncated);
        check_map(code, &e);
        // Deep nesting.
        let defs = "#define I(x) x";
        let code = format!("{}1{}", "I(".repeat(200), ")".repeat(200));
        let e = expand(&code, 0..code.len(), &table(defs), &budget);
        assert!(e.truncated);
        check_map(&code, &e);
    }
}

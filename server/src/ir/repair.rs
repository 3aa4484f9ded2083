//! Repairs of macro misparses in a function body, by rewriting the function's text and parsing
//! it again.
//!
//! tree-sitter sees macros unexpanded, so a few shapes of real code parse as something else or
//! as ERROR nodes. Each repair here is found from the shape of the tree and the tokens around
//! it (never from a list of macro names) and rewrites a few bytes of the body *in place*: same
//! length, so every offset stays the same (only a statement macro's `;` may take a line break,
//! and lines are counted in the original file anyway). A repair is kept only when it makes its
//! statement parse with fewer syntax errors: ERROR and missing nodes, and declarations that
//! are really statements (a definition inside a definition, a declarator named `if`, `for`…).
//! For a statement macro, as few errors plus positive evidence is enough. The statement is
//! parsed on its own (braces balanced, preprocessor lines blanked), so that a trial costs
//! little in a function of 300 KB; the whole body is parsed again once per round, and the
//! repairs are all dropped if the body then ends elsewhere or has more errors than before.
//!
//! - **Cast macro** `IDENT expr` where an operand is expected (`g(1, BAD_CAST p)`,
//!   `x = BAD_CAST h->name`, `f(ACTXT_CAST ctxt, …)`): `IDENT` is blanked, which leaves `expr`,
//!   exactly a transparent cast.
//! - **Statement macro with statement arguments** `M( stmt; )` at a statement position
//!   (`MUTEX_LOGIC( sqlite3_mutex *m; )`, `SimulateIOError( return SQLITE_IOERR; );`):
//!   rewritten to a block `  { stmt; }` (`M( return X );` to `  { return X ;}`), recorded in
//!   [`Repairs::macro_blocks`]; the lowering runs it or not, in the enclosing scope (like an
//!   `#if` branch).
//! - **Statement macro without `;`** `M(args)` or `M` at a statement position, followed on a
//!   later line by the start of a statement (`CHECK_COMPAT(buf)⏎if (…)`,
//!   `LIBXML_TEST_VERSION⏎for (…)`, `FREE_AND_NULL(s)⏎}`): a `;` is written in the whitespace
//!   after it, recorded in [`Repairs::statement_macros`]. Not before a `{` (a loop macro,
//!   handled by the lowering). Evidence that a parse without syntax errors was wrong: the
//!   macro and the next statement were parsed as one declaration or definition named after a
//!   keyword, or with a variable as a type name (`FREE_AND_NULL(s)⏎s = 0;`, `GROW⏎free(p);`).
//! - **`else` separated from its `if` by a preprocessor line** (`if (a) {…}⏎#ifdef X⏎else {…}`,
//!   `if (a) {…} else⏎#endif⏎{…}`, `#endif⏎else …`): the `else` is blanked and its offset
//!   recorded in [`Repairs::detached_elses`]; the lowering attaches the branch to the `if`.

use crate::syntax::ts::{find_definition, keyword_name, text};
use rustc_hash::{FxHashMap, FxHashSet};
use tree_sitter::{InputEdit, Node, Point, Tree};

/// What the lowering must know about the rewritten text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Repairs {
    /// Offsets of blanked `else` keywords that a preprocessor line separated from their `if`,
    /// sorted.
    pub detached_elses: Vec<u32>,
    /// `M( stmt; )` rewritten to `{ stmt; }`: offset of the `{` → (macro name, its offset).
    pub macro_blocks: FxHashMap<u32, (String, u32)>,
    /// Offsets of statement macros `M(args)` or `M` that were given their `;`.
    pub statement_macros: FxHashSet<u32>,
}

pub(crate) struct Repaired {
    pub text: String,
    pub tree: Tree,
    pub repairs: Repairs,
}

/// Repairs tried per function (each parses its statement twice).
const MAX_TRIALS: usize = 1000;
/// Candidates are looked for again after a round that repaired something (a repair can
/// uncover another one).
const MAX_ROUNDS: usize = 3;
/// Tokens scanned for a matching parenthesis.
const MAX_PAREN_SCAN: usize = 4000;

/// Keywords: never a macro name, never an operand.
const KEYWORDS: &[&str] = &[
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "_Bool",
    "bool",
    "_Alignof",
    "_Alignas",
    "_Atomic",
    "_Generic",
    "_Noreturn",
    "_Static_assert",
    "_Thread_local",
    "__attribute__",
    "__extension__",
    "__typeof__",
    "typeof",
    "asm",
    "__asm__",
    "defined",
];

/// Keywords that begin a statement (or continue one, for `else`).
const STATEMENT_KEYWORDS: &[&str] = &[
    "if", "for", "while", "do", "switch", "return", "goto", "break", "continue", "else", "case",
    "default",
];

/// Keywords that begin a jump or a declaration.
const DECLARATION_OR_JUMP: &[&str] = &[
    "return", "break", "continue", "goto", "int", "char", "long", "short", "unsigned", "signed",
    "const", "static", "struct", "union", "enum", "void", "double", "float", "volatile", "_Bool",
    "bool",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Kind {
    DetachedElse,
    StatementArgs,
    MissingSemicolon,
    CastMacro,
}

struct Edit {
    start: usize,
    end: usize,
    with: Vec<u8>,
}

struct Candidate {
    kind: Kind,
    /// Where the macro (or the `else`) starts.
    at: usize,
    /// The tokens it spans (edits fall between their starts and ends).
    first: usize,
    last: usize,
    edits: Vec<Edit>,
    /// For a statement macro: the misparse is shown by the tree itself.
    evidence: bool,
    /// For a statement-arguments macro: its name and the offset of the `{`.
    block: Option<(String, usize)>,
}

/// One token of the body.
#[derive(Clone, Copy)]
struct Tok<'t> {
    kind: &'t str,
    /// The kind of the node the token is a child of.
    parent: &'t str,
    /// Some `if` statement ends with this token.
    ends_if: bool,
    start: usize,
    end: usize,
    /// On a preprocessor line.
    directive: bool,
}

/// Repair the body of the function defined in `text` (its own text, comments blanked). `None`
/// when there is nothing to repair. `is_global` tells whether a name is a file-scope variable.
pub(crate) fn repair_function(
    text: &str,
    tree: &Tree,
    is_global: &dyn Fn(&str) -> bool,
) -> Option<Repaired> {
    let def = find_definition(tree.root_node())?;
    let body = def.child_by_field_name("body")?;
    // Tokens are read up to the body's closing brace (included: a statement macro can come
    // just before it); edits stay inside.
    let (lo, hi) = (body.start_byte() + 1, body.end_byte());
    if hi <= lo + 1 || text.len() < hi {
        return None;
    }
    if !body.has_error() && !has_suspicious_node(body) {
        return None;
    }
    let variables = declared_names(def, text.as_bytes());
    let mut r = Repairer {
        text: text.to_string(),
        tree: tree.clone(),
        lo,
        hi,
        line_starts: line_starts(text.as_bytes()),
        directives: directive_lines(text.as_bytes()),
        variables,
        is_global,
        tried: FxHashSet::default(),
        trials: 0,
        accepted: 0,
        lines_changed: false,
        repairs: Repairs::default(),
    };
    let original_damage = damage(r.tree.root_node(), text.as_bytes());
    for _ in 0..MAX_ROUNDS {
        // A candidate turned down in one round may be right once its neighbours are repaired.
        r.tried.clear();
        let tree = r.tree.clone();
        let toks = r.tokens(tree.root_node());
        let mut changed: Vec<(usize, usize)> = Vec::new();
        for c in r.candidates(&toks) {
            if r.trials >= MAX_TRIALS {
                break;
            }
            changed.extend(r.attempt(c, &toks));
        }
        if changed.is_empty() {
            break;
        }
        // One re-parse of the whole function per round, to look for candidates again
        // (incremental, unless a line break was taken: then the rows moved).
        if r.lines_changed {
            r.lines_changed = false;
            r.line_starts = line_starts(r.text.as_bytes());
            r.tree = crate::syntax::parse(&r.text, None);
            continue;
        }
        let mut edited = r.tree.clone();
        for (start, end) in changed {
            let (p0, p1) = (r.point(start), r.point(end));
            edited.edit(&InputEdit {
                start_byte: start,
                old_end_byte: end,
                new_end_byte: end,
                start_position: p0,
                old_end_position: p1,
                new_end_position: p1,
            });
        }
        r.tree = crate::syntax::parse(&r.text, Some(&edited));
        if r.trials >= MAX_TRIALS {
            break;
        }
    }
    if r.accepted == 0 {
        return None;
    }
    // The last round's re-parse is the tree of the repaired text (an incremental parse gives
    // the tree a fresh one would).
    let tree = r.tree.clone();
    let def2 = find_definition(tree.root_node())?;
    let body2 = def2.child_by_field_name("body")?;
    if (body2.start_byte(), body2.end_byte()) != (body.start_byte(), body.end_byte())
        || damage(tree.root_node(), r.text.as_bytes()) > original_damage
    {
        return None;
    }
    r.repairs.detached_elses.sort_unstable();
    Some(Repaired {
        text: r.text,
        tree,
        repairs: r.repairs,
    })
}

struct Repairer<'e> {
    text: String,
    tree: Tree,
    /// The body, without its opening brace.
    lo: usize,
    hi: usize,
    line_starts: Vec<usize>,
    directives: Vec<(usize, usize)>,
    /// Names declared in the function (parameters and locals).
    variables: FxHashSet<String>,
    is_global: &'e dyn Fn(&str) -> bool,
    tried: FxHashSet<(Kind, usize)>,
    trials: usize,
    accepted: usize,
    /// A line break was replaced since the last parse.
    lines_changed: bool,
    repairs: Repairs,
}

impl Repairer<'_> {
    fn is_variable(&self, name: &str) -> bool {
        self.variables.contains(name) || (self.is_global)(name)
    }

    fn point(&self, offset: usize) -> Point {
        let row = self
            .line_starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1);
        let start = self.line_starts.get(row).copied().unwrap_or(0);
        Point::new(row, offset - start)
    }

    /// Apply the candidate's edits if they make a window around them parse better; the byte
    /// ranges changed, if so.
    fn attempt(&mut self, c: Candidate, toks: &[Tok]) -> Vec<(usize, usize)> {
        if !self.tried.insert((c.kind, c.at)) {
            return vec![];
        }
        // Edits must fall in the body, on bytes that are still what the candidate saw.
        let src = self.text.as_bytes();
        let valid = c.edits.iter().all(|e| {
            e.start >= self.lo
                && e.end < self.hi
                && e.start < e.end
                && e.with.len() == e.end - e.start
                && e.with
                    .iter()
                    .all(|b| b.is_ascii() && *b != b'\n' && *b != b'\r')
                // Line breaks stay, except the one a statement macro's `;` may take.
                && (src[e.start..e.end]
                    .iter()
                    .all(|b| *b != b'\n' && *b != b'\r')
                    || (c.kind == Kind::MissingSemicolon && e.with == b";"))
                && self.text.is_char_boundary(e.start)
                && self.text.is_char_boundary(e.end)
        });
        if !valid || c.first > c.last || c.last >= toks.len() {
            return vec![];
        }
        let (ws, we) = self.window(toks, c.first, c.last);
        if c.edits.iter().any(|e| e.start < ws || e.end > we) {
            return vec![];
        }
        self.trials += 1;
        let damage_of = |t: &str| damage(crate::syntax::parse(t, None).root_node(), t.as_bytes());
        let before = damage_of(&self.window_text(ws, we, &[]));
        let after = damage_of(&self.window_text(ws, we, &c.edits));
        let keep = match c.kind {
            Kind::DetachedElse => after <= before,
            Kind::MissingSemicolon => after < before || (c.evidence && after <= before),
            Kind::StatementArgs | Kind::CastMacro => after < before,
        };
        if !keep {
            return vec![];
        }
        for e in &c.edits {
            // Only ASCII replaced by ASCII: valid UTF-8, same length.
            if self.text.as_bytes()[e.start..e.end].contains(&b'\n') {
                self.lines_changed = true;
            }
            let with: String = e.with.iter().map(|&b| b as char).collect();
            self.text.replace_range(e.start..e.end, &with);
        }
        self.accepted += 1;
        match c.kind {
            Kind::DetachedElse => self.repairs.detached_elses.push(c.at as u32),
            Kind::StatementArgs => {
                if let Some((name, brace)) = c.block {
                    self.repairs
                        .macro_blocks
                        .insert(brace as u32, (name, c.at as u32));
                }
            }
            Kind::MissingSemicolon => {
                self.repairs.statement_macros.insert(c.at as u32);
            }
            Kind::CastMacro => {}
        }
        c.edits.iter().map(|e| (e.start, e.end)).collect()
    }

    /// The bytes of the statement(s) holding tokens `first..=last`.
    fn window(&self, toks: &[Tok], first: usize, last: usize) -> (usize, usize) {
        let src = self.text.as_bytes();
        let mut s = statement_start(toks, first, src);
        // An `else` would not parse without its `if`, before or after the edit.
        while s < first && tok_text(&toks[s], src) == "else" {
            s += 1;
        }
        let e = statement_end(toks, last, src);
        (toks[s].start, toks[e].end)
    }

    /// The window `ws..we` with `edits` applied, as a function of its own: preprocessor lines
    /// blanked, braces balanced.
    fn window_text(&self, ws: usize, we: usize, edits: &[Edit]) -> String {
        let mut b: Vec<u8> = self.text.as_bytes()[ws..we].to_vec();
        for e in edits {
            b[e.start - ws..e.end - ws].copy_from_slice(&e.with);
        }
        let k = self.directives.partition_point(|&(_, e)| e <= ws);
        for &(s, e) in self.directives[k..].iter().take_while(|(s, _)| *s < we) {
            for x in &mut b[s.max(ws) - ws..e.min(we) - ws] {
                if *x != b'\n' {
                    *x = b' ';
                }
            }
        }
        let (open, close) = brace_balance(&b);
        let mut out = String::with_capacity(b.len() + 32);
        out.push_str("void w(void){");
        out.extend(std::iter::repeat_n('{', open));
        out.push_str(&String::from_utf8_lossy(&b));
        out.extend(std::iter::repeat_n('}', close));
        out.push('}');
        out
    }

    fn candidates(&self, toks: &[Tok]) -> Vec<Candidate> {
        let src = self.text.as_bytes();
        let starts = statement_starts(toks, src);
        let mut out = Vec::new();
        for i in 0..toks.len() {
            let a = toks[i];
            if a.directive {
                continue;
            }
            let t = tok_text(&a, src);
            if t == "else" {
                if let Some(c) = self.detached_else(toks, i) {
                    out.push(c);
                }
                continue;
            }
            if !is_identifier(t) || KEYWORDS.contains(&t) {
                continue;
            }
            if starts[i] {
                if let Some(c) = self.statement_macro(toks, i) {
                    out.push(c);
                }
            } else if let Some(c) = self.cast_macro(toks, i) {
                out.push(c);
            }
        }
        out.retain(|c| !self.tried.contains(&(c.kind, c.at)));
        out.sort_by_key(|c| (c.kind, c.at));
        out
    }

    /// The body's tokens, in order. (Ancestors are tracked on the way down: `Node::parent`
    /// walks from the root, which is quadratic over a long else-if chain.)
    fn tokens<'t>(&self, root: Node<'t>) -> Vec<Tok<'t>> {
        let (lo, hi) = (self.lo, self.hi);
        let mut out = Vec::new();
        let mut cursor = root.walk();
        // (end, kind) of the ancestors of the cursor's node.
        let mut ancestors: Vec<(usize, &'t str)> = Vec::new();
        'outer: loop {
            let n = cursor.node();
            // A real definition nested in the body (braces split by `#if` swallowed the
            // functions after this one) is lowered on its own: only its closing brace counts.
            let nested = n.kind() == "function_definition"
                && n.start_byte() >= lo
                && keyword_name(n, self.text.as_bytes()).is_none();
            if nested && n.end_byte() <= hi {
                out.push(Tok {
                    kind: "}",
                    parent: n.kind(),
                    ends_if: false,
                    start: n.end_byte() - 1,
                    end: n.end_byte(),
                    directive: false,
                });
            } else if n.end_byte() > lo && n.start_byte() < hi {
                if n.child_count() == 0 {
                    if n.end_byte() > n.start_byte() && n.start_byte() >= lo && n.end_byte() <= hi {
                        let end = n.end_byte();
                        // Ancestors ending here are the innermost ones: each node is looked at
                        // for its last token only.
                        let ends_if = ancestors
                            .iter()
                            .rev()
                            .take_while(|(e, _)| *e == end)
                            .any(|(_, k)| *k == "if_statement");
                        out.push(Tok {
                            kind: n.kind(),
                            parent: ancestors.last().map_or("", |a| a.1),
                            ends_if,
                            start: n.start_byte(),
                            end,
                            directive: in_ranges(&self.directives, n.start_byte()),
                        });
                    }
                } else if cursor.goto_first_child() {
                    ancestors.push((n.end_byte(), n.kind()));
                    continue;
                }
            }
            loop {
                if cursor.goto_next_sibling() {
                    continue 'outer;
                }
                if !cursor.goto_parent() {
                    break 'outer;
                }
                ancestors.pop();
            }
        }
        out
    }

    /// An `else` that is not part of an `if` statement, right after or right before a
    /// preprocessor line.
    fn detached_else(&self, toks: &[Tok], i: usize) -> Option<Candidate> {
        let e = toks[i];
        if e.parent == "else_clause" {
            return None;
        }
        let prev = i.checked_sub(1).map(|j| toks[j]);
        let next = toks.get(i + 1);
        // Leading: the first token after a preprocessor line (of an `#if` branch, or after the
        // `#endif` of a chain of them).
        let leading = prev.is_some_and(|p| p.directive);
        // Trailing: the last token of a branch, after an `if` statement.
        let trailing = next.is_some_and(|n| n.directive) && prev.is_some_and(|p| p.ends_if);
        if !leading && !trailing {
            return None;
        }
        Some(Candidate {
            kind: Kind::DetachedElse,
            at: e.start,
            first: i,
            last: i,
            edits: vec![blank(e.start, e.end)],
            evidence: false,
            block: None,
        })
    }

    /// `M( stmt; )`, or `M(args)`/`M` without `;` before the next statement.
    fn statement_macro(&self, toks: &[Tok], i: usize) -> Option<Candidate> {
        let src = self.text.as_bytes();
        let a = toks[i];
        let mut last = i; // the macro's last token
        let mut parens = None;
        if toks
            .get(i + 1)
            .is_some_and(|t| tok_text(t, src) == "(" && is_blank(between(src, a.end, t.start)))
        {
            let close = matching_paren(toks, i + 1, src)?;
            parens = Some((i + 1, close));
            last = close;
        }
        if let Some((open, close)) = parens {
            let inner_last = close.checked_sub(1).filter(|&k| k > open);
            let has_statement = inner_last
                .is_some_and(|k| matches!(tok_text(&toks[k], src), ";" | "}"))
                && toks[open + 1..close].iter().all(|t| !t.directive);
            if has_statement {
                let (o, c) = (toks[open], toks[close]);
                return Some(Candidate {
                    kind: Kind::StatementArgs,
                    at: a.start,
                    first: i,
                    last: close,
                    edits: vec![
                        blank(a.start, a.end),
                        Edit {
                            start: o.start,
                            end: o.end,
                            with: b"{".to_vec(),
                        },
                        Edit {
                            start: c.start,
                            end: c.end,
                            with: b"}".to_vec(),
                        },
                    ],
                    evidence: false,
                    block: Some((tok_text(&a, src).to_string(), o.start)),
                });
            }
            // `M( return X );`, `M( int n );`: one statement without its `;`, then `;`. The
            // `)` becomes its `;` and the `;` the closing brace. Only when the argument begins
            // with a keyword: `M( T x )` could as well be a call with a cast macro.
            let keyword_first = toks
                .get(open + 1)
                .is_some_and(|t| DECLARATION_OR_JUMP.contains(&tok_text(t, src)));
            if let Some(semi) = toks.get(close + 1).filter(|t| tok_text(t, src) == ";")
                && keyword_first
                && toks[open + 1..close].iter().all(|t| !t.directive)
            {
                let (o, c) = (toks[open], toks[close]);
                let edit = |t: Tok, with: &[u8]| Edit {
                    start: t.start,
                    end: t.end,
                    with: with.to_vec(),
                };
                return Some(Candidate {
                    kind: Kind::StatementArgs,
                    at: a.start,
                    first: i,
                    last: close + 1,
                    edits: vec![
                        blank(a.start, a.end),
                        edit(o, b"{"),
                        edit(c, b";"),
                        edit(*semi, b"}"),
                    ],
                    evidence: false,
                    block: Some((tok_text(&a, src).to_string(), o.start)),
                });
            }
        }
        // Without `;`: the next token must begin a statement, on a later line (or be the `}`
        // closing the block).
        let n = toks.get(last + 1)?;
        let nt = tok_text(n, src);
        let gap = between(src, toks[last].end, n.start);
        if !is_blank(gap) {
            return None;
        }
        let begins_statement = n.directive
            || nt == "}"
            || matches!(nt, "*" | "++" | "--")
            || (is_identifier(nt) && (!KEYWORDS.contains(&nt) || STATEMENT_KEYWORDS.contains(&nt)))
            || matches!(
                nt,
                "int"
                    | "char"
                    | "long"
                    | "short"
                    | "unsigned"
                    | "signed"
                    | "const"
                    | "static"
                    | "struct"
                    | "union"
                    | "enum"
                    | "void"
                    | "double"
                    | "float"
            );
        if !begins_statement || (nt != "}" && !gap.contains(&b'\n')) {
            return None;
        }
        // A blank, else a `\r`, else the newline itself (not before a preprocessor line, which
        // must begin a line): `FREE_AND_NULL(s)⏎}`.
        let slot = gap
            .iter()
            .position(|b| *b == b' ' || *b == b'\t')
            .or_else(|| gap.iter().position(|b| *b == b'\r'))
            .or_else(|| (!n.directive).then(|| gap.iter().position(|b| *b == b'\n'))?)?;
        let slot = toks[last].end + slot;
        let evidence = self.misparse_evidence(toks, i, last + 1, nt);
        Some(Candidate {
            kind: Kind::MissingSemicolon,
            at: a.start,
            first: i,
            last: last + 1,
            edits: vec![Edit {
                start: slot,
                end: slot + 1,
                with: b";".to_vec(),
            }],
            evidence,
            block: None,
        })
    }

    /// The macro (token `i`) and the next statement (token `n`) were parsed as one declaration
    /// or definition, named after a keyword or with a variable as a type name.
    fn misparse_evidence(&self, toks: &[Tok], i: usize, n: usize, next_text: &str) -> bool {
        let src = self.text.as_bytes();
        let Some(next) = toks.get(n) else {
            return false;
        };
        let Some(j) = self
            .tree
            .root_node()
            .descendant_for_byte_range(toks[i].start, next.end)
        else {
            return false;
        };
        if j.start_byte() != toks[i].start
            || !matches!(j.kind(), "declaration" | "function_definition" | "ERROR")
        {
            return false;
        }
        if STATEMENT_KEYWORDS.contains(&next_text) {
            return true;
        }
        toks.iter()
            .skip(i + 1)
            .take_while(|t| t.end <= j.end_byte())
            .any(|t| t.kind == "type_identifier" && self.is_variable(tok_text(t, src)))
    }

    /// `IDENT expr` where an operand is expected: a cast macro.
    fn cast_macro(&self, toks: &[Tok], i: usize) -> Option<Candidate> {
        let src = self.text.as_bytes();
        let a = toks[i];
        let p = toks.get(i.checked_sub(1)?)?;
        let b = toks.get(i + 1)?;
        if p.directive || b.directive || !is_blank(between(src, a.end, b.start)) {
            return None;
        }
        let pt = tok_text(p, src);
        let operand_expected = matches!(
            pt,
            "(" | ","
                | "="
                | "+="
                | "-="
                | "*="
                | "/="
                | "%="
                | "&="
                | "|="
                | "^="
                | "<<="
                | ">>="
                | "return"
                | "?"
                | "["
                | "!"
                | "&&"
                | "||"
                | "=="
                | "!="
                | "<"
                | ">"
                | "<="
                | ">="
                | "+"
                | "-"
                | "case"
        );
        if !operand_expected {
            return None;
        }
        // `for (T x = …`: a declaration, not a cast.
        if pt == "(" && i >= 2 && tok_text(&toks[i - 2], src) == "for" {
            return None;
        }
        let bt = tok_text(b, src);
        let operand = (is_identifier(bt) && !KEYWORDS.contains(&bt))
            || b.kind == "number_literal"
            || bt.ends_with('"')
            || bt.ends_with('\'');
        if !operand {
            return None;
        }
        Some(Candidate {
            kind: Kind::CastMacro,
            at: a.start,
            first: i,
            last: i + 1,
            edits: vec![blank(a.start, a.end)],
            evidence: false,
            block: None,
        })
    }
}

fn blank(start: usize, end: usize) -> Edit {
    Edit {
        start,
        end,
        with: vec![b' '; end - start],
    }
}

fn tok_text<'s>(t: &Tok, src: &'s [u8]) -> &'s str {
    std::str::from_utf8(between(src, t.start, t.end)).unwrap_or("")
}

/// The bytes between two tokens (none if they overlap).
fn between(src: &[u8], from: usize, to: usize) -> &[u8] {
    src.get(from..to).unwrap_or(&[])
}

fn is_blank(b: &[u8]) -> bool {
    b.iter().all(|c| c.is_ascii_whitespace())
}

fn is_identifier(t: &str) -> bool {
    let mut cs = t.bytes();
    cs.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// Whether each token begins a statement: it follows `;`, a brace, a label's `:`, `else`,
/// `do`, the `)` of a control statement's head, a preprocessor line, or, on a later line, a
/// statement macro without `;` (`M(x)` or `M` that itself begins a statement).
fn statement_starts(toks: &[Tok], src: &[u8]) -> Vec<bool> {
    let mut starts = vec![false; toks.len()];
    for i in 0..toks.len() {
        let Some(j) = i.checked_sub(1) else {
            starts[i] = true;
            continue;
        };
        let p = &toks[j];
        let newline = between(src, p.end, toks[i].start).contains(&b'\n');
        starts[i] = p.directive
            || match tok_text(p, src) {
                ";" | "{" | "}" | ":" | "else" | "do" => true,
                ")" => matching_open_paren(toks, j, src)
                    .and_then(|o| o.checked_sub(1))
                    .is_some_and(|k| {
                        let t = tok_text(&toks[k], src);
                        matches!(t, "if" | "while" | "for" | "switch")
                            || (newline && starts[k] && is_identifier(t) && !KEYWORDS.contains(&t))
                    }),
                t => newline && starts[j] && is_identifier(t) && !KEYWORDS.contains(&t),
            };
    }
    starts
}

fn matching_paren(toks: &[Tok], open: usize, src: &[u8]) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(open).take(MAX_PAREN_SCAN) {
        match tok_text(t, src) {
            "(" => depth += 1,
            ")" => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

fn matching_open_paren(toks: &[Tok], close: usize, src: &[u8]) -> Option<usize> {
    let mut depth = 0usize;
    let lo = close.saturating_sub(MAX_PAREN_SCAN);
    for k in (lo..=close).rev() {
        match tok_text(&toks[k], src) {
            ")" => depth += 1,
            "(" => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// The first token of the statement holding token `i` (a statement ends at `;` or a brace
/// outside parentheses, or at a preprocessor line).
fn statement_start(toks: &[Tok], i: usize, src: &[u8]) -> usize {
    let mut depth = 0usize;
    let mut j = i;
    while j > 0 && i - j < MAX_PAREN_SCAN {
        let p = &toks[j - 1];
        let t = tok_text(p, src);
        if depth == 0 && (p.directive || matches!(t, ";" | "{" | "}")) {
            break;
        }
        match t {
            ")" => depth += 1,
            "(" => depth = depth.saturating_sub(1),
            _ => {}
        }
        j -= 1;
    }
    j
}

/// The last token of the statement holding token `i`.
fn statement_end(toks: &[Tok], i: usize, src: &[u8]) -> usize {
    let (mut parens, mut braces) = (0usize, 0usize);
    let mut j = i;
    while j < toks.len() && j - i < MAX_PAREN_SCAN {
        let t = &toks[j];
        if t.directive && j > i && parens == 0 && braces == 0 {
            return j - 1;
        }
        match tok_text(t, src) {
            "(" => parens += 1,
            ")" => parens = parens.saturating_sub(1),
            "{" => braces += 1,
            "}" => {
                if braces == 0 {
                    // The end of the enclosing block.
                    return j.saturating_sub(1).max(i);
                }
                braces -= 1;
                if braces == 0 && parens == 0 {
                    return j;
                }
            }
            ";" if parens == 0 && braces == 0 => return j,
            _ => {}
        }
        j += 1;
    }
    j.min(toks.len() - 1)
}

/// Braces to add before and after `b` (outside string and character literals) to balance it.
fn brace_balance(b: &[u8]) -> (usize, usize) {
    let (mut depth, mut min) = (0i64, 0i64);
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            q @ (b'"' | b'\'') => {
                i += 1;
                while i < b.len() && b[i] != q && b[i] != b'\n' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                min = min.min(depth);
            }
            _ => {}
        }
        i += 1;
    }
    ((-min) as usize, (depth - min) as usize)
}

/// Syntax errors in the tree: ERROR and missing nodes, and statements misparsed as
/// declarations (a definition inside a definition, a declarator named after a keyword:
/// `M(x)⏎if (c) {…}`, `M⏎switch (x) {…}`).
fn damage(root: Node, src: &[u8]) -> u32 {
    let mut count = 0;
    let mut cursor = root.walk();
    // Enclosing function definitions of the cursor's node.
    let mut definitions: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    'outer: loop {
        let n = cursor.node();
        if n.is_error() || n.is_missing() {
            count += 1;
        }
        match n.kind() {
            "function_definition" if !definitions.is_empty() => count += 1,
            "function_declarator"
                if n.child_by_field_name("declarator").is_some_and(|d| {
                    d.kind() == "identifier" && STATEMENT_KEYWORDS.contains(&text(d, src))
                }) =>
            {
                count += 1
            }
            _ => {}
        }
        if cursor.goto_first_child() {
            if n.kind() == "function_definition" {
                definitions.push(depth);
            }
            depth += 1;
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'outer;
            }
            if !cursor.goto_parent() {
                break 'outer;
            }
            depth -= 1;
            if definitions.last() == Some(&depth) {
                definitions.pop();
            }
        }
    }
    count
}

/// Shapes of statement macros that parse without syntax errors: a definition in the body
/// (`M(x)⏎if (c) {…}`), a declaration with a macro type (`M(s)⏎s = 0;`), a block-scope
/// prototype (`GROW⏎free(p);`).
fn has_suspicious_node(body: Node) -> bool {
    let mut cursor = body.walk();
    let mut budget = 1_000_000u32;
    'outer: loop {
        let n = cursor.node();
        budget = budget.saturating_sub(1);
        if budget == 0 {
            return true;
        }
        match n.kind() {
            "function_definition" | "macro_type_specifier" => return true,
            "declaration"
                if n.child_by_field_name("declarator")
                    .is_some_and(|d| d.kind() == "function_declarator") =>
            {
                return true;
            }
            _ => {}
        }
        // Expressions hold no statements (except GNU statement expressions, which are rare).
        let descend = !n.kind().ends_with("_expression") || n.kind() == "parenthesized_expression";
        if descend && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.node().id() != body.id() && cursor.goto_next_sibling() {
                continue 'outer;
            }
            if cursor.node().id() == body.id() || !cursor.goto_parent() {
                break 'outer;
            }
        }
    }
    false
}

/// Names of the parameters and locals declared anywhere in the definition.
fn declared_names(def: Node, src: &[u8]) -> FxHashSet<String> {
    let mut names = FxHashSet::default();
    let mut stack = vec![def];
    let mut budget = 200_000;
    while let Some(n) = stack.pop() {
        budget -= 1;
        if budget == 0 {
            break;
        }
        if matches!(n.kind(), "declaration" | "parameter_declaration") {
            let mut c = n.walk();
            for d in n.children_by_field_name("declarator", &mut c) {
                let mut d = d;
                for _ in 0..32 {
                    match d.kind() {
                        "identifier" => {
                            names.insert(text(d, src).to_string());
                            break;
                        }
                        "pointer_declarator"
                        | "array_declarator"
                        | "init_declarator"
                        | "attributed_declarator" => match d.child_by_field_name("declarator") {
                            Some(x) => d = x,
                            None => break,
                        },
                        "parenthesized_declarator" => match d.named_child(0) {
                            Some(x) => d = x,
                            None => break,
                        },
                        _ => break,
                    }
                }
            }
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    names
}

fn line_starts(src: &[u8]) -> Vec<usize> {
    let mut v = vec![0];
    v.extend(
        src.iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .map(|(i, _)| i + 1),
    );
    v
}

/// Byte ranges of preprocessor lines (with their `\` continuations).
fn directive_lines(src: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < src.len() {
        let start = i;
        let mut j = i;
        while j < src.len() && (src[j] == b' ' || src[j] == b'\t') {
            j += 1;
        }
        let is_directive = j < src.len() && src[j] == b'#';
        let mut end = i;
        loop {
            let e = src[end..]
                .iter()
                .position(|b| *b == b'\n')
                .map_or(src.len(), |p| end + p);
            let line = &src[end..e];
            let continued = line
                .iter()
                .rev()
                .find(|b| **b != b'\r')
                .is_some_and(|b| *b == b'\\');
            if is_directive && continued && e < src.len() {
                end = e + 1;
                continue;
            }
            end = e;
            break;
        }
        if is_directive {
            // With its newline: tree-sitter makes it a token of the directive.
            out.push((start, (end + 1).min(src.len())));
        }
        i = end + 1;
    }
    out
}

fn in_ranges(ranges: &[(usize, usize)], offset: usize) -> bool {
    let k = ranges.partition_point(|&(s, _)| s <= offset);
    k > 0 && offset < ranges[k - 1].1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repaired(src: &str) -> Option<(String, Repairs)> {
        let tree = crate::syntax::parse(src, None);
        repair_function(src, &tree, &|_| false).map(|r| (r.text, r.repairs))
    }

    #[test]
    fn cast_macros_are_blanked() {
        let (t, _) =
            repaired("void f(char *p) {\n  g(1, BAD_CAST p);\n  x = BAD_CAST h->name;\n}\n")
                .expect("repaired");
        assert_eq!(
            t,
            "void f(char *p) {\n  g(1,          p);\n  x =          h->name;\n}\n"
        );
    }

    #[test]
    fn statement_macros_get_a_semicolon() {
        let (t, _) = repaired("void f(B *b) {\n  CHECK(b)\n  if ((b->e) || (b->f)) { g(b); }\n}\n")
            .expect("repaired");
        assert_eq!(
            t,
            "void f(B *b) {\n  CHECK(b)\n; if ((b->e) || (b->f)) { g(b); }\n}\n"
        );
    }

    #[test]
    fn statement_arguments_become_a_block() {
        let (t, r) =
            repaired("int f(void) {\n  M( return 1; );\n  return 0;\n}\n").expect("repaired");
        assert_eq!(t, "int f(void) {\n   { return 1; };\n  return 0;\n}\n");
        assert_eq!(r.macro_blocks.len(), 1);
    }

    #[test]
    fn detached_else_is_blanked() {
        let src = "void f(int a) {\n  if (a) { a = 1; }\n#ifdef X\n  else { a = 2; }\n#endif\n}\n";
        let (t, r) = repaired(src).expect("repaired");
        assert_eq!(t, src.replace("else", "    "));
        assert_eq!(r.detached_elses, vec![src.find("else").unwrap() as u32]);
    }

    #[test]
    fn valid_code_is_left_alone() {
        assert!(
            repaired(
                "int f(int *p) {\n  int x = (int)*p;\n  if (x) return g(x, p);\n  return 0;\n}\n"
            )
            .is_none()
        );
        // A macro type in a declaration is not a statement macro.
        assert!(
            repaired("void f(void) {\n  STACK_OF(X509) *certs = 0;\n  use(certs);\n}\n").is_none()
        );
    }
}

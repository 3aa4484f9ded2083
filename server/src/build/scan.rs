//! The directive walk of one translation unit: conditionals decided in order, `#define` and
//! `#undef` applied, `#include "…"` followed into project headers, with every bad input
//! (cycles, depth, unreadable files, too many headers) skipped with a reason.
//!
//! Only directives are looked at; code between them is not lexed into anything. The result is
//! the macro table at the end of the file (what expanding a function body uses), the
//! conditional groups of the main file, and the headers read (the inputs the result depends
//! on, for salsa).

use super::compile_db::CompileFlags;
use super::cond::{CondArm, CondGroup, Live, Truth, eval_condition};
use super::directive::{self, Directive, DirectiveKind};
use super::expand::{Budget, Engine, PTok};
use super::includes::{
    FileSource, IncludeResolver, IncludeSpec, Resolution, SkipReason, parse_include_operand,
};
use super::lex::{TokKind, lex};
use super::macros::{MacroStatus, MacroTable, SharedDef};
use rustc_hash::{FxHashMap, FxHashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Bounds on one walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScanLimits {
    /// Nesting of `#include`.
    pub max_depth: usize,
    /// Header visits (a header without a guard included twice counts twice).
    pub max_visits: usize,
    /// Bytes of header text walked, all visits together.
    pub max_bytes: usize,
    /// Per `#if` expression and per computed `#include`.
    pub budget: Budget,
}

impl Default for ScanLimits {
    fn default() -> Self {
        ScanLimits {
            max_depth: 64,
            max_visits: 4096,
            max_bytes: 256 << 20,
            budget: Budget {
                max_tokens: 10_000,
                max_expansions: 2_000,
                max_depth: 64,
            },
        }
    }
}

/// An include the walk did not follow, and why.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SkippedInclude {
    /// The file containing the directive.
    pub from: PathBuf,
    /// The directive's byte range in `from`.
    pub directive: Range<usize>,
    pub spec: Option<IncludeSpec>,
    /// The path found, when the problem is with the file itself.
    pub path: Option<PathBuf>,
    pub reason: SkipReason,
}

/// An `#include` of the main file and where it led.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IncludeEdge {
    pub directive: Range<usize>,
    pub spec: IncludeSpec,
    pub resolved: Option<PathBuf>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scan {
    /// Macros defined at the end of the main file.
    pub table: MacroTable,
    /// Conditional groups of the main file, in order of their opening directive.
    pub groups: Vec<CondGroup>,
    /// `#include` directives of the main file.
    pub includes: Vec<IncludeEdge>,
    /// Headers read (first-read order, no duplicates): what the result depends on.
    pub headers: Vec<PathBuf>,
    /// Headers that could not be read, and the limits hit.
    pub skipped: Vec<SkippedInclude>,
    /// Quoted includes found nowhere (system `<…>` headers are expected to be missing and are
    /// not listed).
    pub not_found: Vec<(PathBuf, IncludeSpec)>,
    /// A limit stopped the walk somewhere (some headers were not read).
    pub truncated: bool,
    /// Header walks done (a header read twice counts twice).
    pub visits: usize,
}

/// Walks `file` (whose text is `text`) with the flags of its compile command.
pub fn scan(
    file: &Path,
    text: &str,
    flags: &CompileFlags,
    resolver: &IncludeResolver,
    source: &dyn FileSource,
    limits: &ScanLimits,
) -> Scan {
    let mut w = Walker {
        resolver,
        source,
        limits,
        stack: Vec::new(),
        once: FxHashSet::default(),
        guards: FxHashMap::default(),
        seen: FxHashSet::default(),
        visits: 0,
        bytes: 0,
        out: Scan {
            table: MacroTable::from_flags(flags),
            ..Default::default()
        },
    };
    w.stack.push(file.to_path_buf());
    for inc in &flags.forced_includes {
        match source.read(inc) {
            Ok(t) => w.enter(inc, &t, 1, Truth::True),
            Err(reason) => w.out.skipped.push(SkippedInclude {
                from: file.to_path_buf(),
                directive: 0..0,
                spec: None,
                path: Some(inc.clone()),
                reason,
            }),
        }
    }
    w.walk(file, text, 0, Truth::True, true);
    w.out.visits = w.visits;
    w.out
}

/// Walks `text` alone (includes not followed) on top of `table`.
pub fn scan_text(text: &str, table: &MacroTable) -> Scan {
    let resolver = IncludeResolver::default();
    let none = |_: &Path| Err(SkipReason::NotFound);
    let limits = ScanLimits::default();
    let mut w = Walker {
        resolver: &resolver,
        source: &none,
        limits: &limits,
        stack: Vec::new(),
        once: FxHashSet::default(),
        guards: FxHashMap::default(),
        seen: FxHashSet::default(),
        visits: 0,
        bytes: 0,
        out: Scan {
            table: table.clone(),
            ..Default::default()
        },
    };
    w.walk(Path::new(""), text, 0, Truth::True, true);
    w.out
}

struct Walker<'a> {
    resolver: &'a IncludeResolver,
    source: &'a dyn FileSource,
    limits: &'a ScanLimits,
    /// Files being walked (the include chain), for cycle detection.
    stack: Vec<PathBuf>,
    /// Files that said `#pragma once`.
    once: FxHashSet<PathBuf>,
    /// Each header's include-guard macro, if its whole text is one `#ifndef X` group.
    guards: FxHashMap<PathBuf, Option<String>>,
    seen: FxHashSet<PathBuf>,
    visits: usize,
    bytes: usize,
    out: Scan,
}

/// An open conditional group of a text (`'t`: the text, which its names borrow from).
struct Frame<'t> {
    /// Index into `out.groups` when recording the main file.
    group: Option<usize>,
    arms: Vec<CondArm>,
    reached: Truth,
    /// Some earlier arm was taken.
    any_taken: Truth,
    /// Liveness inside the current arm (reached ∧ taken).
    live: Truth,
    /// Names an undecided arm of this group defined, and which arm.
    defined_in: rustc_hash::FxHashMap<&'t str, usize>,
}

impl Walker<'_> {
    fn walk(&mut self, path: &Path, text: &str, depth: usize, base: Truth, main: bool) {
        let index = self.source.directives(path, text);
        if !main && !self.guards.contains_key(path) {
            self.guards.insert(path.to_path_buf(), index.guard.clone());
        }
        let directives = &index.directives;
        self.out.table.reserve(index.defines.len());
        let mut frames: Vec<Frame> = Vec::new();
        for (k, range) in directives.iter().enumerate() {
            let Some(d) = index.parsed.get(k) else { break };
            let live = frames.last().map_or(base, |f| f.live);
            match d.kind {
                DirectiveKind::If | DirectiveKind::Ifdef | DirectiveKind::Ifndef => {
                    let cond = if live == Truth::False {
                        Truth::False
                    } else {
                        let next = index.parsed.get(k + 1);
                        self.condition(text, d, next)
                    };
                    let taken = if live == Truth::False {
                        Truth::False
                    } else {
                        cond
                    };
                    let group = main.then(|| {
                        self.out.groups.push(CondGroup {
                            arms: Vec::new(),
                            end: None,
                            live: Live::Unknown,
                            reached: live,
                        });
                        self.out.groups.len() - 1
                    });
                    frames.push(Frame {
                        group,
                        arms: vec![CondArm {
                            directive: range.clone(),
                            body: range.end..range.end,
                            taken,
                        }],
                        reached: live,
                        any_taken: taken,
                        live: live.and(taken),
                        defined_in: Default::default(),
                    });
                }
                DirectiveKind::Elif
                | DirectiveKind::Elifdef
                | DirectiveKind::Elifndef
                | DirectiveKind::Else => {
                    let Some(f) = frames.last_mut() else { continue };
                    if let Some(a) = f.arms.last_mut() {
                        a.body.end = range.start;
                    }
                    let reached = f.reached;
                    let any = f.any_taken;
                    let taken = if reached == Truth::False || any == Truth::True {
                        Truth::False
                    } else if d.kind == DirectiveKind::Else {
                        any.not()
                    } else {
                        let cond = self.condition(text, d, None);
                        any.not().and(cond)
                    };
                    let f = frames.last_mut().expect("checked above");
                    f.any_taken = any.or(taken);
                    if d.kind == DirectiveKind::Else {
                        f.any_taken = Truth::True;
                    }
                    f.live = f.reached.and(taken);
                    f.arms.push(CondArm {
                        directive: range.clone(),
                        body: range.end..range.end,
                        taken,
                    });
                }
                DirectiveKind::Endif => {
                    let Some(f) = frames.pop() else { continue };
                    self.close(f, Some(range.clone()), range.start);
                }
                _ if live == Truth::False => {}
                // Of the undecided arms of one `#if`/`#elif` chain that each define a name,
                // the first stands for the chain: the later ones are the fallbacks
                // (`#elif defined(DOXYGEN)` / `#define EV_SSIZE_MAX ...`), and one
                // configuration's definition is better than the last arm's.
                DirectiveKind::Define
                    if live != Truth::True
                        && frames.last().is_some_and(|f| {
                            d.operands.first().is_some_and(|t| {
                                f.defined_in
                                    .get(&text[t.range.clone()])
                                    .is_some_and(|&arm| arm + 1 < f.arms.len())
                            })
                        }) => {}
                DirectiveKind::Define => {
                    if live != Truth::True
                        && let Some(f) = frames.last_mut()
                        && let Some(t) = d.operands.first()
                    {
                        let arm = f.arms.len() - 1;
                        f.defined_in.entry(&text[t.range.clone()]).or_insert(arm);
                    }
                    match index.defines.get(k) {
                        Some(Some(def)) => self.out.table.define_shared(def, live == Truth::True),
                        _ => self.out.table.apply_directive(text, d, live == Truth::True),
                    }
                }
                DirectiveKind::Undef => {
                    self.out.table.apply_directive(text, d, live == Truth::True);
                }
                DirectiveKind::Include | DirectiveKind::IncludeNext => {
                    self.include(path, text, d, range.clone(), depth, live, main);
                }
                DirectiveKind::Pragma => {
                    if d.operands
                        .first()
                        .is_some_and(|t| &text[t.range.clone()] == "once")
                    {
                        self.once.insert(path.to_path_buf());
                    }
                }
                DirectiveKind::Other => {}
            }
        }
        while let Some(f) = frames.pop() {
            self.close(f, None, text.len());
        }
    }

    fn close(&mut self, mut f: Frame, end: Option<Range<usize>>, body_end: usize) {
        if let Some(a) = f.arms.last_mut() {
            a.body.end = body_end;
        }
        if let Some(g) = f.group {
            let g = &mut self.out.groups[g];
            g.arms = std::mem::take(&mut f.arms);
            g.end = end;
            g.finish();
        }
    }

    /// The truth of an `#if`-family condition. `next` is the directive after it, to recognise
    /// include guards: `#ifndef X` directly followed by `#define X` is taken when `X` is not
    /// known to be defined (otherwise every guarded header's body would be undecided).
    fn condition(&self, text: &str, d: &Directive, next: Option<&Directive>) -> Truth {
        let table = &self.out.table;
        let name = || {
            d.operands
                .first()
                .filter(|t| t.kind == TokKind::Ident)
                .map(|t| &text[t.range.clone()])
        };
        let defined = |n: &str| match table.status(n) {
            MacroStatus::Defined => Truth::True,
            MacroStatus::Undefined => Truth::False,
            _ => Truth::Unknown,
        };
        let guard = |n: &str| {
            next.is_some_and(|nd| {
                nd.kind == DirectiveKind::Define
                    && nd
                        .operands
                        .first()
                        .is_some_and(|t| &text[t.range.clone()] == n)
            }) && table.status(n) == MacroStatus::Unknown
        };
        match d.kind {
            DirectiveKind::Ifdef | DirectiveKind::Elifdef => name().map_or(Truth::Unknown, defined),
            DirectiveKind::Ifndef | DirectiveKind::Elifndef => match name() {
                Some(n) if guard(n) => Truth::True,
                Some(n) => defined(n).not(),
                None => Truth::Unknown,
            },
            _ => {
                // `#if !defined(X)` / `#if !defined X` guards.
                let ops: Vec<&str> = d.operands.iter().map(|t| &text[t.range.clone()]).collect();
                if let ["!", "defined", "(", n, ")"] | ["!", "defined", n] = ops.as_slice()
                    && guard(n)
                {
                    return Truth::True;
                }
                eval_condition(text, &d.operands, table, &self.limits.budget)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn include(
        &mut self,
        from: &Path,
        text: &str,
        d: &Directive,
        range: Range<usize>,
        depth: usize,
        live: Truth,
        main: bool,
    ) {
        let Some(spec) = self.include_spec(text, d) else {
            return;
        };
        let skip = |this: &mut Self, path: Option<PathBuf>, reason: SkipReason| {
            this.out.skipped.push(SkippedInclude {
                from: from.to_path_buf(),
                directive: range.clone(),
                spec: Some(spec.clone()),
                path,
                reason,
            });
        };
        let mut resolution = self.resolver.resolve(&spec, from, self.source);
        if d.kind == DirectiveKind::IncludeNext
            && matches!(&resolution, Resolution::Found(p, _) if p == from)
        {
            // `#include_next` of the same name: the next match on the path, approximately.
            resolution = Resolution::NotFound;
            for p in self.resolver.candidates(&spec, from) {
                if p == from {
                    continue;
                }
                if let Ok(t) = self.source.read(&p) {
                    resolution = Resolution::Found(p, t);
                    break;
                }
            }
        }
        let resolved = match &resolution {
            Resolution::Found(p, _) | Resolution::Skipped(p, _) => Some(p.clone()),
            Resolution::NotFound => None,
        };
        if main {
            self.out.includes.push(IncludeEdge {
                directive: range.clone(),
                spec: spec.clone(),
                resolved,
            });
        }
        match resolution {
            Resolution::NotFound => {
                if !spec.angled {
                    self.out.not_found.push((from.to_path_buf(), spec.clone()));
                }
            }
            Resolution::Skipped(p, reason) => skip(self, Some(p), reason),
            Resolution::Found(p, t) => {
                // A guard only "maybe defined" (its header was read under an undecided `#if`)
                // still stops a re-read that is itself undecided, or on a cycle (the guard was
                // defined on this very path): reading again would only repeat the uncertain
                // definitions. A certain include re-reads it, to make them certain.
                let in_cycle = self.stack.contains(&p);
                // A compiler re-enters a file already being read; guards usually make that a
                // no-op, in shapes we do not all recognise (libxml2's tree.h guards inside an
                // `#else`). So allow one re-entry, and call it a cycle at the second.
                let cycle = self.stack.iter().filter(|q| **q == p).count() >= 2;
                let guarded = self.guards.get(&p).is_some_and(|g| {
                    g.as_ref().is_some_and(|g| match self.out.table.status(g) {
                        MacroStatus::Defined => true,
                        MacroStatus::MaybeDefined => in_cycle || live != Truth::True,
                        _ => false,
                    })
                });
                // A header read as its own translation unit (for its declarations) that a
                // header it includes includes back (nginx's `ngx_queue.h` ⇄ `ngx_core.h`):
                // re-entering it would define its guard in the nested copy and leave its own
                // text dead, so none of its declarations would be its own. Read it once, as
                // `#pragma once` would.
                let header_main = self
                    .stack
                    .first()
                    .is_some_and(|m| *m == p && m.extension().is_some_and(|e| e == "h"));
                if self.once.contains(&p) || guarded || header_main {
                    // Reading it again would change nothing (GCC's multiple-include
                    // optimization); this also makes guarded cycles harmless.
                    return;
                }
                if cycle {
                    skip(self, Some(p), SkipReason::Cycle);
                } else if depth + 1 > self.limits.max_depth {
                    self.out.truncated = true;
                    skip(self, Some(p), SkipReason::DepthLimit(self.limits.max_depth));
                } else if self.visits >= self.limits.max_visits
                    || self.bytes + t.len() > self.limits.max_bytes
                {
                    self.out.truncated = true;
                    skip(self, Some(p), SkipReason::FileLimit(self.limits.max_visits));
                } else {
                    self.enter(&p, &t, depth + 1, live);
                }
            }
        }
    }

    fn enter(&mut self, path: &Path, text: &str, depth: usize, live: Truth) {
        self.visits += 1;
        self.bytes += text.len();
        if self.seen.insert(path.to_path_buf()) {
            self.out.headers.push(path.to_path_buf());
        }
        self.stack.push(path.to_path_buf());
        self.walk(path, text, depth, live, false);
        self.stack.pop();
    }

    /// `"x.h"`, `<x.h>`, or a computed include (`#include HEADER`) after expansion.
    fn include_spec(&self, text: &str, d: &Directive) -> Option<IncludeSpec> {
        if let Some(s) = parse_include_operand(&text[d.rest.clone()]) {
            return Some(s);
        }
        let toks: Vec<PTok> = d
            .operands
            .iter()
            .map(|t| PTok::from_source(text, t))
            .collect();
        let mut eng = Engine::new(&self.out.table, self.limits.budget);
        let toks = eng.expand_list(toks, 0);
        let first = toks.first()?;
        if first.kind == TokKind::Str {
            return parse_include_operand(&first.text);
        }
        let joined: String = toks.iter().map(|t| &*t.text).collect();
        parse_include_operand(&joined)
    }
}

/// The directive lines of a text and its include guard: what a walk needs of a header besides
/// the directives' own text. Computing it lexes the whole text, so a [`FileSource`] may cache
/// it per file ([`FileSource::directives`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DirectiveIndex {
    pub directives: Vec<Range<usize>>,
    /// Each directive parsed (same order).
    pub parsed: Vec<Directive>,
    /// Each `#define`'s definition, parsed once and shared by every table it enters.
    pub defines: Vec<Option<SharedDef>>,
    pub guard: Option<String>,
}

impl DirectiveIndex {
    pub fn of(text: &str) -> DirectiveIndex {
        let toks = lex(text);
        let guard = include_guard(text, &toks);
        let directives: Vec<Range<usize>> = toks
            .into_iter()
            .filter(|t| t.kind == TokKind::Directive)
            .map(|t| t.range)
            .collect();
        let parsed: Vec<Directive> = directives
            .iter()
            .map(|r| directive::parse(text, r.clone()))
            .collect();
        let defines = parsed
            .iter()
            .map(|d| {
                (d.kind == DirectiveKind::Define)
                    .then(|| super::macros::parse_define(text, d).map(SharedDef::new))
                    .flatten()
            })
            .collect();
        DirectiveIndex {
            directives,
            parsed,
            defines,
            guard,
        }
    }
}

/// The guard macro of a header whose first token is `#ifndef X` (or `#if !defined(X)`),
/// directly followed by `#define X`, and whose last token is the `#endif` closing that group.
fn include_guard(text: &str, toks: &[super::lex::Token]) -> Option<String> {
    let first = toks.first().filter(|t| t.kind == TokKind::Directive)?;
    let last = toks.last().filter(|t| t.kind == TokKind::Directive)?;
    let d = directive::parse(text, first.range.clone());
    let ops: Vec<&str> = d.operands.iter().map(|t| &text[t.range.clone()]).collect();
    let name = match (d.kind, ops.as_slice()) {
        (DirectiveKind::Ifndef, [n]) => *n,
        (DirectiveKind::If, ["!", "defined", "(", n, ")"] | ["!", "defined", n]) => *n,
        _ => return None,
    };
    let second = toks.get(1).filter(|t| t.kind == TokKind::Directive)?;
    let d2 = directive::parse(text, second.range.clone());
    if d2.kind != DirectiveKind::Define
        || d2.operands.first().map(|t| &text[t.range.clone()]) != Some(name)
    {
        return None;
    }
    // The group opened by the first directive must close at the last one.
    let mut depth = 0usize;
    for t in toks.iter().filter(|t| t.kind == TokKind::Directive) {
        match directive::parse(text, t.range.clone()).kind {
            DirectiveKind::If | DirectiveKind::Ifdef | DirectiveKind::Ifndef => depth += 1,
            DirectiveKind::Endif => {
                depth = depth.checked_sub(1)?;
                if depth == 0 && t.range != last.range {
                    return None;
                }
            }
            DirectiveKind::Elif
            | DirectiveKind::Elifdef
            | DirectiveKind::Elifndef
            | DirectiveKind::Else
                if depth == 1 =>
            {
                return None;
            }
            _ => {}
        }
    }
    (depth == 0).then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::super::compile_db::parse_arguments;
    use super::super::includes::MapSource;
    use super::*;

    fn run(files: &[(&str, &str)], main: &str, args: &[&str]) -> Scan {
        let src = MapSource::new(files.iter().copied());
        let flags = parse_arguments(
            &args.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            Path::new("/p"),
            false,
        );
        let resolver = IncludeResolver::new(&flags, &[PathBuf::from("/p")]);
        let text = src.read(Path::new(main)).unwrap();
        scan(
            Path::new(main),
            &text,
            &flags,
            &resolver,
            &src,
            &ScanLimits::default(),
        )
    }

    #[test]
    fn headers_in_parent_directories_define_macros() {
        let s = run(
            &[
                (
                    "/p/check.h",
                    "#ifndef CHECK_H\n#define CHECK_H\n#include \"util/alloc.h\"\n#define FATAL(m) abort()\n#endif\n",
                ),
                (
                    "/p/util/alloc.h",
                    "#pragma once\n#define XMALLOC(n) my_malloc(n)\n",
                ),
                (
                    "/p/tests/t.c",
                    "#include \"../check.h\"\n#include \"../check.h\"\n#include <stdio.h>\nvoid f(void) { FATAL(\"x\"); }\n",
                ),
            ],
            "/p/tests/t.c",
            &[],
        );
        assert!(s.table.get("FATAL").is_some());
        assert!(s.table.get("XMALLOC").is_some());
        assert_eq!(
            s.headers,
            [
                PathBuf::from("/p/check.h"),
                PathBuf::from("/p/util/alloc.h")
            ]
        );
        assert!(s.skipped.is_empty(), "{:?}", s.skipped);
        assert!(s.not_found.is_empty());
        assert_eq!(s.includes.len(), 3);
        assert_eq!(s.includes[2].resolved, None);
    }

    #[test]
    fn a_header_included_back_by_its_own_include_stays_live() {
        // nginx: `ngx_queue.h` includes `ngx_core.h`, which includes `ngx_queue.h` before the
        // guard is defined. Read as its own unit, the header must not lose its body to the
        // nested copy.
        let files = [
            (
                "/p/queue.h",
                "#include \"core.h\"\n#ifndef QUEUE_H\n#define QUEUE_H\ntypedef struct q_s q_t;\n#endif\n",
            ),
            (
                "/p/core.h",
                "#ifndef CORE_H\n#define CORE_H\n#include \"queue.h\"\n#endif\n",
            ),
        ];
        let s = run(&files, "/p/queue.h", &[]);
        assert_eq!(s.groups[0].live, Live::Arm(0), "{:?}", s.groups);
        // A source file still re-enters itself as the compiler does.
        let files = [(
            "/p/a.c",
            "#ifndef ONCE\n#define ONCE\n#include \"a.c\"\n#endif\n",
        )];
        let s = run(&files, "/p/a.c", &[]);
        assert!(s.skipped.is_empty(), "{:?}", s.skipped);
    }

    #[test]
    fn defines_flags_decide_conditionals() {
        let files = [(
            "/p/a.c",
            "#ifdef USE_FREE\nfree(p);\n#else\nkeep(p);\n#endif\n#if LEVEL > 2\nx();\n#endif\n",
        )];
        let s = run(&files, "/p/a.c", &["-DUSE_FREE", "-DLEVEL=3"]);
        assert_eq!(s.groups[0].live, Live::Arm(0));
        assert_eq!(s.groups[1].live, Live::Arm(0));
        let s = run(&files, "/p/a.c", &["-UUSE_FREE"]);
        assert_eq!(s.groups[0].live, Live::Arm(1));
        assert_eq!(s.groups[1].live, Live::Unknown);
    }

    #[test]
    fn definitions_in_undecided_arms_are_uncertain() {
        let s = run(
            &[
                ("/p/h.h", "#define FROM_HEADER 1\n"),
                (
                    "/p/a.c",
                    "#ifdef _WIN32\n#define SEP '\\\\'\n#include \"h.h\"\n#else\n#define SEP '/'\n#endif\n#if SEP == '/'\n#endif\n",
                ),
            ],
            "/p/a.c",
            &[],
        );
        assert!(s.table.get("SEP").unwrap().uncertain);
        assert!(s.table.get("FROM_HEADER").unwrap().uncertain);
        assert_eq!(s.groups[1].live, Live::Unknown);
    }

    #[test]
    fn cycles_depth_and_bad_files_are_skipped_with_reasons() {
        let s = run(
            &[
                ("/p/a.h", "#include \"b.h\"\n#define A 1\n"),
                ("/p/b.h", "#include \"a.h\"\n#define B 1\n"),
                ("/p/self.h", "#include \"self.h\"\n"),
                (
                    "/p/m.c",
                    "#include \"a.h\"\n#include \"self.h\"\n#include \"dir.h\"\n#include \"missing.h\"\n#include HDR\n#define HDR \"a.h\"\n#include HDR\n",
                ),
            ],
            "/p/m.c",
            &[],
        );
        let reasons: Vec<_> = s
            .skipped
            .iter()
            .map(|k| (k.path.clone().unwrap(), k.reason.clone()))
            .collect();
        assert!(reasons.contains(&(PathBuf::from("/p/a.h"), SkipReason::Cycle)));
        assert!(reasons.contains(&(PathBuf::from("/p/self.h"), SkipReason::Cycle)));
        assert!(s.table.get("A").is_some() && s.table.get("B").is_some());
        assert_eq!(s.not_found.len(), 2, "{:?}", s.not_found);

        let src = MapSource::new([("/p/m.c", "#include \"dir.h\"\n")])
            .with_error("/p/dir.h", SkipReason::Directory);
        let text = src.read(Path::new("/p/m.c")).unwrap();
        let s = scan(
            Path::new("/p/m.c"),
            &text,
            &CompileFlags::default(),
            &IncludeResolver::default(),
            &src,
            &ScanLimits::default(),
        );
        assert_eq!(s.skipped[0].reason, SkipReason::Directory);
    }

    #[test]
    fn unguarded_chains_hit_the_limits() {
        // Each header includes the next twice, without guards: 2^30 visits unless bounded.
        let mut files: Vec<(String, String)> = (0..30)
            .map(|k| {
                (
                    format!("/p/h{k}.h"),
                    format!("#include \"h{n}.h\"\n#include \"h{n}.h\"\n", n = k + 1),
                )
            })
            .collect();
        files.push(("/p/m.c".into(), "#include \"h0.h\"\n".into()));
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let s = run(&refs, "/p/m.c", &[]);
        assert!(s.truncated);
        assert!(
            s.skipped
                .iter()
                .any(|k| matches!(k.reason, SkipReason::FileLimit(_)))
        );

        // A chain deeper than the depth limit.
        let mut files: Vec<(String, String)> = (0..100)
            .map(|k| (format!("/p/d{k}.h"), format!("#include \"d{}.h\"\n", k + 1)))
            .collect();
        files.push(("/p/m.c".into(), "#include \"d0.h\"\n".into()));
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let s = run(&refs, "/p/m.c", &[]);
        assert!(
            s.skipped
                .iter()
                .any(|k| matches!(k.reason, SkipReason::DepthLimit(64)))
        );
    }

    #[test]
    fn guarded_headers_are_read_once_and_guarded_cycles_are_silent() {
        let s = run(
            &[
                (
                    "/p/a.h",
                    "#ifndef A_H\n#define A_H\n#include \"b.h\"\n#define A 1\n#endif\n",
                ),
                (
                    "/p/b.h",
                    "/* c */\n#ifndef B_H\n#define B_H\n#include \"a.h\"\n#endif // B_H\n",
                ),
                (
                    "/p/m.c",
                    "#include \"a.h\"\n#include \"b.h\"\n#include \"a.h\"\n",
                ),
            ],
            "/p/m.c",
            &[],
        );
        assert!(s.skipped.is_empty(), "{:?}", s.skipped);
        assert!(s.table.get("A").is_some());
        assert_eq!(s.headers.len(), 2);
        assert_eq!(s.visits, 2);
        // Under an undecided `#ifdef`, the guard is only maybe defined: still read once.
        let s = run(
            &[
                ("/p/a.h", "#ifndef A_H\n#define A_H\n#define A 1\n#endif\n"),
                (
                    "/p/m.c",
                    "#ifdef FEATURE\n#include \"a.h\"\n#include \"a.h\"\n#endif\n#include \"a.h\"\n",
                ),
            ],
            "/p/m.c",
            &[],
        );
        assert_eq!(s.visits, 2);
        // (Still uncertain: whether the guard stops the second read depends on `FEATURE`.)
        assert!(s.table.get("A").is_some());
        let g = |t: &str| include_guard(t, &lex(t));
        assert_eq!(g("#ifndef X\n#define X\n#endif"), Some("X".into()));
        assert_eq!(
            g("#if !defined(X)\n#define X\n#if Y\n#endif\n#endif\n"),
            Some("X".into())
        );
        assert_eq!(g("#ifndef X\n#define X\n#endif\nint after;"), None);
        assert_eq!(g("#ifndef X\n#define X\n#else\n#endif"), None);
        assert_eq!(g("#ifndef X\n#define Y\n#endif"), None);
        assert_eq!(g("#ifndef X\n#define X\n#endif\n#if 1\n#endif"), None);
    }

    #[test]
    fn forced_includes_come_first() {
        let s = run(
            &[
                ("/p/cfg.h", "#define HAVE_X 1\n"),
                ("/p/a.c", "#if HAVE_X\n#endif\n"),
            ],
            "/p/a.c",
            &["-include", "cfg.h"],
        );
        assert_eq!(s.groups[0].live, Live::Arm(0));
        assert_eq!(s.headers, [PathBuf::from("/p/cfg.h")]);
    }
}

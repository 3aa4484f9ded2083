//! [`Finding`]: one probe's verdict, placed in its file and ready for every output format
//! (text, JSON, SARIF, LSP diagnostics and hover), built from the engine's result.

use super::database::Db;
use super::front_end::{Function, lowered};
use super::positions::function_loc;
use super::program::DbProgram;
use crate::probe::{self, ProbeKind, ProbeSite, Unproved, Verdict};
use crate::syntax::TextRange;
use std::path::{Path, PathBuf};

/// A location in a file: 1-based line and byte column, as the JSON output writes it, and the
/// same span as byte offsets in the file's text, for the outputs that place it in the text
/// (snippets, LSP ranges) without a line index. The byte range is not part of the JSON output.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceLoc {
    pub file: PathBuf,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    /// Byte offsets in the file of the start (`line`:`column`) and end
    /// (`end_line`:`end_column`).
    pub range: TextRange,
    pub function: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Step {
    pub loc: SourceLoc,
    pub note: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VerdictKind {
    Proved,
    Leak,
    Unproved,
}

impl VerdictKind {
    pub fn as_str(self) -> &'static str {
        match self {
            VerdictKind::Proved => "proved",
            VerdictKind::Leak => "leak",
            VerdictKind::Unproved => "unproved",
        }
    }
}

/// One probe's verdict, ready for every output format.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Finding {
    pub loc: SourceLoc,
    pub verdict: VerdictKind,
    pub probe: ProbeKind,
    pub variable: String,
    pub message: String,
    /// `input-dependent`, `budget`, `unsupported` (unproved only).
    pub reason: Option<String>,
    pub allocation: Vec<SourceLoc>,
    /// For a leak whose block was allocated inside a callee: the function called at the
    /// outermost call of the allocation path (`allocation[0]`, in the user's function), e.g.
    /// `xstrdup`. The headline names it and that call instead of the wrapper's `malloc`.
    pub allocated_by: Option<String>,
    /// For a leak, the path from the allocation; for a proof, where it was refuted.
    pub trace: Vec<Step>,
    pub transfers: u32,
}

pub(super) fn internal_finding(db: &dyn Db, f: Function<'_>, why: &str) -> Finding {
    Finding {
        loc: function_loc(db, f, TextRange::new(0, 0)),
        verdict: VerdictKind::Unproved,
        probe: ProbeKind::Assignment,
        variable: String::new(),
        message: format!("unproved (internal error: {why})"),
        reason: Some("internal-error".into()),
        allocation: vec![],
        allocated_by: None,
        trace: vec![],
        transfers: 0,
    }
}

pub(super) fn make_finding(
    db: &dyn Db,
    program: &DbProgram<'_>,
    f: Function<'_>,
    site: &ProbeSite,
    result: probe::ProbeResult,
) -> Finding {
    let loc = function_loc(db, f, site.range);
    // The engine ran on bodies without ranges: its locations are found again by node.
    let to_loc = |l: &probe::Loc| {
        let g = program.funcs[l.func as usize];
        let range = lowered(db, g)
            .nodes
            .get(l.node.0 as usize)
            .map_or(TextRange::new(0, 0), |n| n.stmt.range);
        function_loc(db, g, range)
    };
    let var = &site.variable;
    let mut allocated_by = None;
    let (verdict, message, reason, allocation, trace) = match &result.verdict {
        Verdict::Proved { refuted_at } => {
            let steps: Vec<Step> = refuted_at
                .iter()
                .map(|s| Step {
                    loc: to_loc(&s.loc),
                    note: s.note.clone(),
                })
                .collect();
            let msg = match steps.first() {
                Some(s) => format!(
                    "proved leak-free: assuming `{var}` held the last reference, line {} {}",
                    s.loc.line, s.note
                ),
                None => format!(
                    "proved leak-free: `{var}` cannot hold the last reference to a heap block here"
                ),
            };
            (VerdictKind::Proved, msg, None, vec![], steps)
        }
        Verdict::Leak { allocation, trace } => {
            let alloc: Vec<SourceLoc> = allocation.iter().map(to_loc).collect();
            if allocation.len() > 1 {
                allocated_by = allocation.first().and_then(|l| {
                    let g = program.funcs[l.func as usize];
                    match &lowered(db, g).nodes.get(l.node.0 as usize)?.stmt.kind {
                        crate::ir::StmtKind::Call {
                            callee: crate::ir::Callee::Direct(name),
                            ..
                        } => Some(name.clone()),
                        _ => None,
                    }
                });
            }
            let headline = headline_allocation(&alloc, allocated_by.as_deref());
            let message = leak_message(var, headline, &loc.file, None);
            let steps = trace
                .iter()
                .map(|s| Step {
                    loc: to_loc(&s.loc),
                    note: s.note.clone(),
                })
                .collect();
            (VerdictKind::Leak, message, None, alloc, steps)
        }
        Verdict::Unproved(u) => {
            let msg = match u {
                Unproved::InputDependent {
                    function,
                    condition,
                } => format!(
                    "unproved: depends on the callers of `{}` — {condition}",
                    program.funcs[*function as usize].name(db)
                ),
                Unproved::Budget { what } => format!("unproved: probe abandoned ({what})"),
                Unproved::Unsupported { what, .. } | Unproved::Imprecise { what, .. } => {
                    format!("unproved: {what}")
                }
                Unproved::Escaped { callee, .. } => format!(
                    "unproved: escaped — on some path the block is passed to {callee}; \
                     whether it keeps or frees it is not known"
                ),
            };
            let steps = match u {
                Unproved::Unsupported { at: Some(l), what }
                | Unproved::Imprecise { at: Some(l), what } => vec![Step {
                    loc: to_loc(l),
                    note: what.clone(),
                }],
                Unproved::Escaped {
                    at: Some(l),
                    callee,
                } => vec![Step {
                    loc: to_loc(l),
                    note: format!("passed to {callee}"),
                }],
                _ => vec![],
            };
            (
                VerdictKind::Unproved,
                msg,
                Some(u.reason_code().to_string()),
                vec![],
                steps,
            )
        }
    };
    Finding {
        loc,
        verdict,
        probe: site.kind,
        variable: site.variable.clone(),
        message,
        reason,
        allocation,
        allocated_by,
        trace,
        transfers: result.transfers,
    }
}

/// The allocation a leak's headline names: the outermost call of the allocation path when the
/// block was allocated inside a callee (named by `by`), else the allocator call.
fn headline_allocation<'a>(
    allocation: &'a [SourceLoc],
    by: Option<&'a str>,
) -> Option<(&'a SourceLoc, Option<&'a str>)> {
    match by {
        Some(name) => allocation.first().map(|a| (a, Some(name))),
        None => allocation.last().map(|a| (a, None)),
    }
}

/// A leak's message, worded so that it reads well where editors cut it short (one line of the
/// Problems panel, Neovim's virtual text): the variable and the line first ("`copy` leaks:
/// allocated at line 21, last reference lost here"). A block allocated inside a callee is named
/// by the call in the user's function ("allocated by `xstrdup` at line 860"), not by the
/// wrapper's `malloc`. An allocation in another file is named by its path, relative to `base`
/// when it lies under it.
pub fn leak_message(
    variable: &str,
    allocation: Option<(&SourceLoc, Option<&str>)>,
    here: &Path,
    base: Option<&Path>,
) -> String {
    let who = if variable.is_empty() {
        "memory".to_string()
    } else {
        format!("`{variable}`")
    };
    let Some((a, by)) = allocation else {
        return format!("{who} leaks: last reference lost here");
    };
    let by = by.map(|n| format!(" by `{n}`")).unwrap_or_default();
    if a.file == here {
        format!(
            "{who} leaks: allocated{by} at line {}, last reference lost here",
            a.line
        )
    } else {
        format!(
            "{who} leaks: allocated{by} at {}:{}, last reference lost here",
            display_path(&a.file, base),
            a.line
        )
    }
}

/// `path` as messages show it: relative to `base` when it lies under it, else as it is; `/`
/// as the separator on every platform.
pub fn display_path(path: &Path, base: Option<&Path>) -> String {
    let shown = base
        .and_then(|b| path.strip_prefix(b).ok())
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(path);
    shown.to_string_lossy().replace('\\', "/")
}

/// How far a function moved: lines and bytes (its text unchanged, so every location in it
/// moves by as much, and its columns stay).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Moved {
    pub lines: i64,
    pub bytes: i64,
}

impl SourceLoc {
    fn moved(&self, by: Moved) -> Option<SourceLoc> {
        let add = |v: u32, d: i64| u32::try_from(i64::from(v) + d).ok();
        Some(SourceLoc {
            line: add(self.line, by.lines)?,
            end_line: add(self.end_line, by.lines)?,
            range: TextRange::new(
                add(self.range.start, by.bytes)?,
                add(self.range.end, by.bytes)?,
            ),
            ..self.clone()
        })
    }
}

impl Finding {
    /// This finding as it reads after an edit of `file` that moved some of its functions and
    /// left their text alone: every location in `file` moves with its function by
    /// `moved(name)`. `None` when a location in `file` lies in a function `moved` does not
    /// know (edited, added, removed): such a finding must be computed again.
    pub fn moved(&self, file: &Path, moved: &dyn Fn(&str) -> Option<Moved>) -> Option<Finding> {
        let place = |l: &SourceLoc| {
            if l.file == file {
                l.moved(moved(&l.function)?)
            } else {
                Some(l.clone())
            }
        };
        Some(Finding {
            loc: place(&self.loc)?,
            allocation: self.allocation.iter().map(place).collect::<Option<_>>()?,
            trace: self
                .trace
                .iter()
                .map(|s| {
                    Some(Step {
                        loc: place(&s.loc)?,
                        note: s.note.clone(),
                    })
                })
                .collect::<Option<_>>()?,
            ..self.clone()
        })
    }

    /// The allocation a leak's headline and its "allocated here" label name: the outermost
    /// call of the allocation path when the block was allocated inside a callee
    /// ([`Finding::allocated_by`]), else the allocator call.
    pub fn headline_allocation(&self) -> Option<&SourceLoc> {
        headline_allocation(&self.allocation, self.allocated_by.as_deref()).map(|(a, _)| a)
    }

    /// [`Finding::message`] with the path it may name (a leak's allocation in another file)
    /// relative to `base`: the workspace folder in an editor, the current directory on the
    /// CLI. The other messages name no file.
    pub fn message_relative_to(&self, base: Option<&Path>) -> String {
        match self.verdict {
            VerdictKind::Leak => leak_message(
                &self.variable,
                self.headline_allocation()
                    .map(|a| (a, self.allocated_by.as_deref())),
                &self.loc.file,
                base,
            ),
            _ => self.message.clone(),
        }
    }
}

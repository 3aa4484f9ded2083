//! "The memory assigned here": for an assignment or allocation, every place where the value it
//! assigns can lose its last reference, each with the verdict of the probe there (see
//! `probe::assigned`), and the statements that free, return, store or pass it.

use super::database::Db;
use super::finding::{Finding, SourceLoc, VerdictKind};
use super::front_end::{Function, body, lowered, type_env};
use super::positions::function_loc;
use super::probes::{engine_probes, probe_verdict};
use crate::ir::NodeId;
use crate::probe::{self, AssignedEvent, AssignedFlow};
use crate::syntax::TextRange;
use std::sync::Arc;

/// The nodes of `f` that assign a data pointer (engine view: computed on the body without
/// ranges, so a layout edit leaves them equal).
#[salsa::tracked(returns(clone))]
pub fn assignment_nodes<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<Vec<NodeId>> {
    let env = type_env(db, db.workspace());
    Arc::new(probe::assignment_sites(&body(db, f), &env))
}

/// The flow of the value assigned at `node` of `f` (`None`: not an assignment of a pointer).
#[salsa::tracked(returns(clone))]
pub fn assigned_flow<'db>(
    db: &'db dyn Db,
    f: Function<'db>,
    node: u32,
) -> Arc<Option<AssignedFlow>> {
    let env = type_env(db, db.workspace());
    let probes = engine_probes(db, f);
    Arc::new(probe::assigned_flow(
        &body(db, f),
        &env,
        NodeId(node),
        &probes,
    ))
}

/// The assignments of `f` with their ranges relative to the function (as probes carry them).
pub fn function_assignments(db: &dyn Db, f: Function<'_>) -> Vec<(NodeId, TextRange)> {
    let ir = lowered(db, f);
    assignment_nodes(db, f)
        .iter()
        .filter_map(|n| Some((*n, ir.nodes.get(n.0 as usize)?.stmt.range)))
        .collect()
}

/// What a path of the assigned value ends in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PathKind {
    /// The probe where the last holder is lost found a leak.
    Leak,
    /// The probe there is proved: the block is not lost there.
    Proved,
    /// The probe there is unproved (its reason says why), or the value is lost where no probe
    /// is, or the flow was cut short.
    Unproved,
    Freed,
    Returned,
    Stored,
    Passed,
    /// A parameter that still holds what the caller passed goes out of scope: the caller's
    /// probes decide.
    Caller,
    /// The value is NULL on this path: nothing to lose.
    Null,
    /// Code the front end did not understand reads it.
    Opaque,
    /// The value assigned is no heap block (`NULL`, an address of a variable).
    NotHeap,
}

impl PathKind {
    pub fn as_str(self) -> &'static str {
        match self {
            PathKind::Leak => "leak",
            PathKind::Proved => "proved",
            PathKind::Unproved => "unproved",
            PathKind::Freed => "freed",
            PathKind::Returned => "returned",
            PathKind::Stored => "stored",
            PathKind::Passed => "passed",
            PathKind::Caller => "caller",
            PathKind::Null => "null",
            PathKind::Opaque => "opaque",
            PathKind::NotHeap => "not-heap",
        }
    }
}

/// One place the assigned value reaches.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AssignedPath {
    pub loc: SourceLoc,
    pub kind: PathKind,
    /// One line, without the line number: "`copy` goes out of scope: leaks",
    /// "freed (`free(copy)`)".
    pub note: String,
    /// The verdict of the probe there, for the paths that end at a probe.
    pub finding: Option<Arc<Finding>>,
    /// For a leak: the leaking block is the one allocated at this assignment.
    pub allocated_here: bool,
}

/// The answer to "could the memory assigned here leak?" at one assignment.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AssignedMemory {
    pub loc: SourceLoc,
    /// The location written (`copy`, `pkt->buf`).
    pub variable: String,
    /// `leak` if some path leaks, `unproved` if some path is not decided, else `proved`.
    pub verdict: VerdictKind,
    /// "leaks at line 25", "never leaks: freed at line 30; NULL at line 22".
    pub summary: String,
    pub paths: Vec<AssignedPath>,
}

/// The memory assigned at `node` of `f`, every path with its verdict.
pub fn assigned_memory(db: &dyn Db, f: Function<'_>, node: NodeId) -> Option<AssignedMemory> {
    let flow = assigned_flow(db, f, node.0);
    let flow = flow.as_ref().as_ref()?;
    let ir = lowered(db, f);
    let range_of = |n: NodeId| {
        ir.nodes
            .get(n.0 as usize)
            .map_or(TextRange::new(0, 0), |x| x.stmt.range)
    };
    let loc = function_loc(db, f, range_of(flow.site));
    let mut paths = Vec::new();
    for (n, event) in &flow.events {
        let at = function_loc(db, f, range_of(*n));
        let plain = |kind: PathKind, note: String| AssignedPath {
            loc: at.clone(),
            kind,
            note,
            finding: None,
            allocated_here: false,
        };
        paths.push(match event {
            AssignedEvent::Lost { probe, holder } => {
                let finding = probe_verdict(db, f, *probe as u32);
                let allocated_here = finding
                    .allocation
                    .iter()
                    .any(|a| a.file == loc.file && a.range == loc.range);
                let what = format!("`{holder}` {}", lost_how(finding.probe));
                let (kind, note) = match finding.verdict {
                    VerdictKind::Leak if allocated_here => {
                        (PathKind::Leak, format!("{what}: leaks"))
                    }
                    VerdictKind::Leak => {
                        let from = finding
                            .allocation
                            .last()
                            .map(|a| format!(" (memory allocated at line {})", a.line))
                            .unwrap_or_default();
                        (
                            PathKind::Leak,
                            format!("{what}: a leak is found here{from}"),
                        )
                    }
                    VerdictKind::Proved => (
                        PathKind::Proved,
                        format!("{what}: never leaks here ({})", finding.message),
                    ),
                    VerdictKind::Unproved => {
                        (PathKind::Unproved, format!("{what}: {}", finding.message))
                    }
                };
                AssignedPath {
                    loc: at.clone(),
                    kind,
                    note,
                    finding: Some(finding),
                    allocated_here,
                }
            }
            AssignedEvent::LostUnprobed { holder } => plain(
                PathKind::Unproved,
                format!("`{holder}` is lost here, where no probe checks it"),
            ),
            AssignedEvent::Incomplete => plain(
                PathKind::Unproved,
                "the value was not followed to the end (too many steps)".into(),
            ),
            AssignedEvent::Freed { holder } => {
                plain(PathKind::Freed, format!("freed (`free({holder})`)"))
            }
            AssignedEvent::Returned { .. } => {
                plain(PathKind::Returned, "returned to the caller".into())
            }
            AssignedEvent::Stored { into, holder } if into == holder => {
                plain(PathKind::Stored, format!("stored into `{into}`"))
            }
            AssignedEvent::Stored { into, holder } => plain(
                PathKind::Stored,
                format!("stored into `{into}` from `{holder}`"),
            ),
            AssignedEvent::Passed { callee, holder } => {
                plain(PathKind::Passed, format!("`{holder}` passed to {callee}"))
            }
            AssignedEvent::AddressPassed { callee, holder } => plain(
                PathKind::Passed,
                format!("the address of `{holder}` passed to {callee}"),
            ),
            AssignedEvent::CallerHolds { holder } => plain(
                PathKind::Caller,
                format!(
                    "`{holder}` goes out of scope: a parameter, its caller still holds the value"
                ),
            ),
            AssignedEvent::NotHeap { what } => {
                plain(PathKind::NotHeap, format!("assigns {what}, no heap memory"))
            }
            AssignedEvent::Null { holder } => plain(
                PathKind::Null,
                format!("`{holder}` is NULL on this path: no block to lose"),
            ),
            AssignedEvent::Opaque { reason } => plain(
                PathKind::Opaque,
                format!("read by code the analysis does not understand ({reason})"),
            ),
        });
    }
    let (verdict, summary) = summarize(&paths);
    Some(AssignedMemory {
        loc,
        variable: flow.target.clone(),
        verdict,
        summary,
        paths,
    })
}

fn lost_how(kind: probe::ProbeKind) -> &'static str {
    use probe::ProbeKind as K;
    match kind {
        K::Assignment | K::Allocation | K::AssignedReturn => "is overwritten",
        K::ReturnLocal | K::ScopeEnd => "goes out of scope",
        K::IgnoredReturn => "is dropped",
        K::FreeField => "is lost with the freed block",
    }
}

/// The overall verdict and its one-line summary.
fn summarize(paths: &[AssignedPath]) -> (VerdictKind, String) {
    let lines = |k: PathKind| -> Vec<u32> {
        let mut v: Vec<u32> = paths
            .iter()
            .filter(|p| p.kind == k)
            .map(|p| p.loc.line)
            .collect();
        v.dedup();
        v
    };
    let at = |v: &[u32]| {
        let s: Vec<String> = v.iter().map(u32::to_string).collect();
        match s.len() {
            1 => format!("line {}", s[0]),
            _ => format!("lines {}", s.join(", ")),
        }
    };
    let leaks = lines(PathKind::Leak);
    if !leaks.is_empty() {
        return (VerdictKind::Leak, format!("leaks at {}", at(&leaks)));
    }
    if let Some(p) = paths.iter().find(|p| p.kind == PathKind::Unproved) {
        return (
            VerdictKind::Unproved,
            format!("unproved: line {}: {}", p.loc.line, p.note),
        );
    }
    let mut parts = Vec::new();
    for (kind, word) in [
        (PathKind::Freed, "freed at"),
        (PathKind::Null, "NULL at"),
        (PathKind::Proved, "not the last reference at"),
    ] {
        let v = lines(kind);
        if !v.is_empty() {
            parts.push(format!("{word} {}", at(&v)));
        }
    }
    let returned = lines(PathKind::Returned);
    if !returned.is_empty() {
        parts.push(format!(
            "returned at {} (the callers' probes decide from there)",
            at(&returned)
        ));
    }
    // Where the value leaves what this function's probes see: other probes decide from there.
    let mut escapes = false;
    for p in paths {
        match p.kind {
            PathKind::Stored => {
                escapes = true;
                parts.push(format!(
                    "{} at line {} (its probes decide from there)",
                    p.note, p.loc.line
                ));
            }
            PathKind::Caller => {
                escapes = true;
                parts.push(format!(
                    "the caller still holds it at line {} (through a parameter)",
                    p.loc.line
                ));
            }
            PathKind::Passed | PathKind::Opaque => {
                escapes = true;
                parts.push(format!("{} at line {}", p.note, p.loc.line));
            }
            PathKind::Returned => escapes = true,
            PathKind::NotHeap => parts.push(p.note.clone()),
            _ => {}
        }
    }
    if parts.is_empty() {
        parts.push("this function never loses it".into());
    }
    let scope = if escapes { " in this function" } else { "" };
    (
        VerdictKind::Proved,
        format!("never leaks{scope}: {}", parts.join("; ")),
    )
}

/// The memory assigned by every assignment of `file` on 1-based `line` (at `col`, when given:
/// the assignments whose statement spans it), in source order. Empty when there is none.
pub fn assignments_at_line(
    db: &dyn Db,
    file: super::inputs::SourceFile,
    line: u32,
    col: Option<u32>,
) -> Vec<AssignedMemory> {
    let mut out = Vec::new();
    for f in super::front_end::file_functions(db, file) {
        for (node, range) in function_assignments(db, *f) {
            let (l, c) = super::positions::location(db, *f, range);
            let (el, ec) = super::positions::location(db, *f, TextRange::new(range.end, range.end));
            let on_line = l <= line && line <= el;
            let at_col = col.is_none_or(|col| (l, c) <= (line, col) && (line, col) <= (el, ec));
            if on_line && at_col {
                out.extend(assigned_memory(db, *f, node));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;

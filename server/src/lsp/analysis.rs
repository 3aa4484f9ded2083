//! The editor features computed on a database snapshot, off the async runtime: diagnostics,
//! the probes at a position, hover text, code actions. Plain data in (a snapshot, a file, a
//! position), LSP values out; everything the analysis knows comes from `db` queries.

use super::convert::{self, path_to_uri};
use crate::db::{self, Database, Db, Finding, FunctionPlace, SourceFile, SourceLoc, VerdictKind};
use crate::fix::{self, LeakSite};
use crate::syntax::{PositionEncoding, TextRange};
use rustc_hash::FxHashMap;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tower_lsp_server::ls_types::{
    self as lsp, CodeAction, CodeActionKind, CodeActionOrCommand, Command, Diagnostic,
    DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString,
    OptionalVersionedTextDocumentIdentifier, TextDocumentEdit, TextEdit, Uri, WorkspaceEdit,
};

pub const PROVE_COMMAND: &str = "reductio.proveNoLeak";
pub const TRACE_COMMAND: &str = "reductio.showLeakTrace";

/// What a job needs besides the database: which file, how to name files, which encoding.
/// Everything here is captured when the snapshot is taken, so a job never touches the server's
/// shared maps (a writer waiting for this snapshot may hold them).
#[derive(Clone)]
pub struct FileCtx {
    pub file: SourceFile,
    pub path: PathBuf,
    pub uri: Uri,
    pub version: Option<i32>,
    pub enc: PositionEncoding,
    /// URIs of the open documents, as the client spelled them.
    pub open_uris: Arc<HashMap<PathBuf, Uri>>,
    /// The workspace folders: messages name files relative to the folder that holds them.
    pub roots: Arc<Vec<PathBuf>>,
}

impl FileCtx {
    /// The workspace folder that holds `path` (the innermost), else the directory of this
    /// file: what the paths shown in messages are relative to.
    fn base_for(&self, path: &Path) -> Option<&Path> {
        self.roots
            .iter()
            .filter(|r| path.starts_with(r))
            .max_by_key(|r| r.as_os_str().len())
            .map(PathBuf::as_path)
            .or_else(|| self.path.parent())
    }

    /// A finding's message with the file it names relative to its workspace folder.
    pub fn message(&self, f: &Finding) -> String {
        let base = f.headline_allocation().and_then(|a| self.base_for(&a.file));
        f.message_relative_to(base)
    }

    /// How a step's place is shown: `line 21` in this file, `other.c:21` (relative to its
    /// workspace folder) in another.
    fn place(&self, loc: &SourceLoc) -> String {
        if loc.file == self.path {
            format!("line {}", loc.line)
        } else {
            let shown = db::display_path(&loc.file, self.base_for(&loc.file));
            format!("{shown}:{}", loc.line)
        }
    }

    fn uri_for(&self, path: &Path) -> Option<Uri> {
        self.open_uris
            .get(path)
            .cloned()
            .or_else(|| path_to_uri(path))
    }
}

/// Text and line index of the files a set of locations points into.
struct Texts<'a> {
    db: &'a Database,
    by_path: HashMap<PathBuf, SourceFile>,
}

impl<'a> Texts<'a> {
    fn new(db: &'a Database) -> Self {
        let d: &dyn Db = db;
        let by_path = d
            .workspace()
            .files(d)
            .iter()
            .map(|f| (f.path(d).clone(), *f))
            .collect();
        Texts { db, by_path }
    }

    fn lsp_range(&self, loc: &SourceLoc, enc: PositionEncoding) -> Option<lsp::Range> {
        let file = *self.by_path.get(&loc.file)?;
        let d: &dyn Db = self.db;
        let index = db::line_index(d, file);
        Some(convert::text_range(file.text(d), &index, loc.range, enc))
    }
}

/// Runs the probes of `file` on all the analysis threads, so that the `file_leaks` that
/// follows finds them done. After an edit, every probe of the edited function runs again (its
/// body changed), and after a change to a MOD set or the call graph, every probe that read it:
/// one thread alone would take their sum (a second on a big function of lighttpd's
/// `gw_backend.c`), the pool divides it by its size. Runs on a pool thread (a job): the
/// parallel iterator shares that pool. Each worker works on its own clone of the snapshot (a
/// database handle is not `Sync`); a salsa cancellation in one worker ends them all and
/// reaches the job as `Cancelled`.
///
/// Only the precise walks run (`db::probe_leak_verdict`): the diagnostics show leaks only,
/// and no leak comes from the coarse walk of a probe abandoned on budget, which runs when a
/// hover, a prove or the proof counts ask for that probe's verdict.
pub fn warm_file_probes(db: &Database, file: SourceFile) {
    warm_probes(db, file, |_| true);
}

/// [`warm_file_probes`] for the functions of `file` (by index in `file_functions`) that
/// `which` picks.
fn warm_probes(db: &Database, file: SourceFile, which: impl Fn(usize) -> bool) {
    use rayon::prelude::*;
    let d: &dyn Db = db;
    let work: Vec<(usize, u32)> = db::file_functions(d, file)
        .iter()
        .enumerate()
        .filter(|(j, _)| which(*j))
        .flat_map(|(j, f)| (0..db::function_probes(d, *f).len() as u32).map(move |k| (j, k)))
        .collect();
    if work.len() < 2 {
        return;
    }
    let shared = std::sync::Mutex::new(db.clone());
    work.par_iter().for_each_init(
        || {
            shared
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone()
        },
        |db, &(j, k)| {
            let d: &dyn Db = db;
            if let Some(f) = db::file_functions(d, file).get(j) {
                let _ = db::probe_leak_verdict(d, *f, k);
            }
        },
    );
}

/// What the check of an open document leaves for its next check ([`edited_first`]): the
/// file's leaks (suppressed ones included) and where each of its functions was.
pub struct Checked {
    leaks: Vec<Arc<Finding>>,
    places: FxHashMap<String, FunctionPlace>,
}

/// [`Checked`] for the file of `ctx`, on the snapshot its diagnostics were computed on.
pub fn checked(db: &Database, ctx: &FileCtx) -> Checked {
    let d: &dyn Db = db;
    Checked {
        leaks: db::file_leaks(d, ctx.file).as_ref().clone(),
        places: db::function_places(d, ctx.file),
    }
}

/// The diagnostics of a file just edited, before the probes of its other functions have run
/// again: the leaks of the functions whose text changed (their probes run now, on the whole
/// pool), and the other functions' leaks from the previous check `prev`, moved to where those
/// functions are now. A previous leak whose trace or allocation lies in an edited function
/// is left out until it is computed again. The server publishes these first and then the
/// file's complete diagnostics ([`file_diagnostics`]), which replace them: a change to the
/// edited function may change the verdicts of its callers and callees too.
///
/// `None` when every function was edited (nothing to reuse: the complete check is as
/// quick).
pub fn edited_first(db: &Database, ctx: &FileCtx, prev: &Checked) -> Option<Vec<Diagnostic>> {
    let d: &dyn Db = db;
    let now = db::function_places(d, ctx.file);
    let moved = |name: &str| {
        let (was, is) = (prev.places.get(name)?, now.get(name)?);
        (was.text_hash == is.text_hash && was.anchor.col == is.anchor.col).then(|| db::Moved {
            lines: i64::from(is.anchor.line) - i64::from(was.anchor.line),
            bytes: i64::from(is.start) - i64::from(was.start),
        })
    };
    let funcs = db::file_functions(d, ctx.file);
    let edited: Vec<bool> = funcs.iter().map(|f| moved(f.name(d)).is_none()).collect();
    if edited.iter().all(|e| *e) {
        return None;
    }
    warm_probes(db, ctx.file, |j| edited[j]);
    let mut leaks: Vec<Arc<Finding>> = Vec::new();
    for (f, edited) in funcs.iter().zip(&edited) {
        if *edited {
            leaks.extend(
                (0..db::function_probes(d, *f).len() as u32)
                    .map(|i| db::probe_leak_verdict(d, *f, i))
                    .filter(|v| v.verdict == VerdictKind::Leak),
            );
        } else {
            let name = f.name(d);
            leaks.extend(
                prev.leaks
                    .iter()
                    .filter(|v| v.loc.function == *name)
                    .filter_map(|v| v.moved(&ctx.path, &moved))
                    .map(Arc::new),
            );
        }
    }
    Some(leak_diagnostics(db, ctx, &leaks))
}

/// What the build model could not use for one file, for the user: `(shown, text)`. Shown
/// (`window/showMessage`): a compile database that could not be read or parsed, and limits
/// reached, which change what the analysis sees for the whole project. Only logged
/// (`window/logMessage`): each include not followed (a cycle, a directory, an unreadable
/// file) and each quoted include found nowhere (generated headers such as `config.h` are
/// common and harmless, so they are no reason for a pop-up). The session dedupes the texts.
pub fn build_warnings(db: &Database, ctx: &FileCtx) -> Vec<(bool, String)> {
    let d: &dyn Db = db;
    let mut out: Vec<(bool, String)> = db::build_messages(d, ctx.file)
        .iter()
        .map(|m| {
            let file = shown_path(&m.file, ctx);
            (!m.include, format!("reductio: {file}: {}", m.message))
        })
        .collect();
    for (from, spec) in db::file_scan(d, ctx.file).not_found.iter() {
        let file = shown_path(from, ctx);
        out.push((
            false,
            format!(
                "reductio: {file}: include \"{}\" not found (its macros and declarations are not seen)",
                spec.name
            ),
        ));
    }
    out
}

/// `path` relative to the workspace folder that holds it.
fn shown_path(path: &std::path::Path, ctx: &FileCtx) -> String {
    let root = ctx.roots.iter().find(|r| path.starts_with(r));
    db::display_path(path, root.map(|r| r.as_path()))
}

/// The leak diagnostics of one file: source `reductio`, code = probe kind, related information
/// = the trace, allocation first.
/// Leaks suppressed by a `reductio-ignore` comment or a `[[suppress]]` entry are not
/// diagnostics (as in `reductio check`).
pub fn file_diagnostics(db: &Database, ctx: &FileCtx) -> Vec<Diagnostic> {
    let d: &dyn Db = db;
    leak_diagnostics(db, ctx, &db::file_leaks(d, ctx.file))
}

/// The diagnostics of the leaks among `findings` that no suppression silences.
fn leak_diagnostics(db: &Database, ctx: &FileCtx, findings: &[Arc<Finding>]) -> Vec<Diagnostic> {
    let texts = Texts::new(db);
    let mut sup = suppressions(db, ctx);
    findings
        .iter()
        .filter(|f| f.verdict == VerdictKind::Leak && sup.check(f).is_none())
        .filter_map(|f| diagnostic(f, &texts, ctx))
        .collect()
}

/// The suppressions that apply to the file's findings: its comments and the configuration's
/// entries.
fn suppressions(db: &Database, ctx: &FileCtx) -> crate::suppress::Suppressions {
    let d: &dyn Db = db;
    let mut sup = crate::suppress::Suppressions::new(&db.config().suppress);
    // Malformed comments are not applied; `reductio check` names them.
    let _ = sup.add_file(ctx.file.path(d), ctx.file.text(d));
    sup
}

fn diagnostic(f: &Finding, texts: &Texts<'_>, ctx: &FileCtx) -> Option<Diagnostic> {
    let range = texts.lsp_range(&f.loc, ctx.enc)?;
    let related: Vec<DiagnosticRelatedInformation> = f
        .trace
        .iter()
        .filter_map(|step| {
            Some(DiagnosticRelatedInformation {
                location: Location::new(
                    ctx.uri_for(&step.loc.file)?,
                    texts.lsp_range(&step.loc, ctx.enc)?,
                ),
                message: step.note.clone(),
            })
        })
        .collect();
    Some(Diagnostic {
        range,
        severity: Some(DiagnosticSeverity::WARNING),
        code: Some(NumberOrString::String(f.probe.as_str().to_string())),
        source: Some("reductio".into()),
        message: ctx.message(f),
        related_information: Some(related),
        data: Some(json!({"variable": f.variable, "function": f.loc.function})),
        ..Default::default()
    })
}

/// A probe and where it sits in the file (bytes).
pub struct Hit {
    pub finding: Arc<Finding>,
    pub range: TextRange,
}

/// Byte offset of an LSP position in the snapshot's text of the file.
pub fn offset(db: &Database, ctx: &FileCtx, pos: lsp::Position) -> Result<u32, String> {
    let d: &dyn Db = db;
    let index = db::line_index(d, ctx.file);
    convert::offset(ctx.file.text(d), &index, pos, ctx.enc).map_err(|e| e.to_string())
}

pub fn text_len(db: &Database, ctx: &FileCtx) -> u32 {
    let d: &dyn Db = db;
    ctx.file.text(d).len() as u32
}

/// The probes whose statement contains `offset` (its end included, so a cursor right after
/// `p = q;` counts). With `whole_line`, and nothing there, the probes on the same line: the
/// CLI's `prove FILE:LINE`.
pub fn probes_at(db: &Database, file: SourceFile, offset: u32, whole_line: bool) -> Vec<Hit> {
    let d: &dyn Db = db;
    let index = db::line_index(d, file);
    let line = index.line_col(offset).line;
    let mut exact = Vec::new();
    let mut same_line = Vec::new();
    for f in db::file_functions(d, file) {
        let start = f.start(d);
        let end = start + f.source(d).text.len() as u32;
        if offset < start || offset > end {
            continue;
        }
        for (k, site) in db::function_probes(d, *f).iter().enumerate() {
            let range = site.range.shifted(start);
            let hit = || Hit {
                finding: db::probe_verdict(d, *f, k as u32),
                range,
            };
            if range.start <= offset && offset <= range.end {
                exact.push(hit());
            } else if whole_line
                && exact.is_empty()
                && index.line_col(range.start).line <= line
                && line <= index.line_col(range.end).line
            {
                same_line.push(hit());
            }
        }
    }
    if exact.is_empty() { same_line } else { exact }
}

/// The memory assigned by the assignments whose statement contains `offset` (with
/// `whole_line`, and none there, those on the same line), as [`probes_at`] finds probes.
pub fn assigned_at(
    db: &Database,
    file: SourceFile,
    offset: u32,
    whole_line: bool,
) -> Vec<db::AssignedMemory> {
    let d: &dyn Db = db;
    let index = db::line_index(d, file);
    let line = index.line_col(offset).line;
    let mut exact = Vec::new();
    let mut same_line = Vec::new();
    for f in db::file_functions(d, file) {
        let start = f.start(d);
        let end = start + f.source(d).text.len() as u32;
        if offset < start || offset > end {
            continue;
        }
        for (node, range) in db::function_assignments(d, *f) {
            let range = range.shifted(start);
            if range.start <= offset && offset <= range.end {
                exact.extend(db::assigned_memory(d, *f, node));
            } else if whole_line
                && exact.is_empty()
                && index.line_col(range.start).line <= line
                && line <= index.line_col(range.end).line
            {
                same_line.extend(db::assigned_memory(d, *f, node));
            }
        }
    }
    if exact.is_empty() { same_line } else { exact }
}

/// The two labelled parts of a prove answer as text (Markdown when `markdown`): the value
/// overwritten here (one line per probe) and the memory assigned here. `None` when there is
/// neither a probe nor an assignment.
pub fn prove_text(
    hits: &[Hit],
    assigned: &[db::AssignedMemory],
    ctx: &FileCtx,
    markdown: bool,
) -> Option<String> {
    if hits.is_empty() && assigned.is_empty() {
        return None;
    }
    let heading = |s: &str| {
        if markdown {
            format!("**{s}**")
        } else {
            s.to_string()
        }
    };
    let mut out = heading("The value overwritten here:");
    if hits.is_empty() {
        out.push_str("\nno leak probe here");
    }
    for h in hits {
        let d = describe(&h.finding, ctx, markdown);
        out.push('\n');
        out.push_str(&if markdown { d.replace('\n', "  \n") } else { d });
    }
    out.push_str("\n\n");
    out.push_str(&heading("The memory assigned here:"));
    if assigned.is_empty() {
        out.push_str("\nno assignment here");
    }
    for a in assigned {
        out.push('\n');
        out.push_str(&crate::report::assigned_text(a, &ctx.path));
    }
    Some(out)
}

/// Whether `offset` is inside a function body (where "Prove no leak here" makes sense).
pub fn in_function(db: &Database, file: SourceFile, offset: u32) -> bool {
    let d: &dyn Db = db;
    db::file_functions(d, file).iter().any(|f| {
        let start = f.start(d);
        start <= offset && offset <= start + f.source(d).text.len() as u32
    })
}

/// The `{verdicts: [...]}` answer of `reductio/prove` and `reductio.proveNoLeak`: the same
/// objects as `reductio check --format json` findings, messages naming files relative to the
/// workspace folder.
pub fn verdicts_json(hits: &[Hit], ctx: &FileCtx) -> Value {
    let verdicts: Vec<Value> = hits
        .iter()
        .map(|h| {
            let mut v = crate::report::finding_json(&h.finding);
            v["message"] = json!(ctx.message(&h.finding));
            v
        })
        .collect();
    json!({ "verdicts": verdicts })
}

/// [`verdicts_json`] plus `assigned`: the memory assigned here (README, "The memory assigned
/// here").
pub fn prove_json(hits: &[Hit], assigned: &[db::AssignedMemory], ctx: &FileCtx) -> Value {
    let mut v = verdicts_json(hits, ctx);
    v["assigned"] = assigned.iter().map(crate::report::assigned_json).collect();
    v
}

/// One verdict as text, for hover and for `window/showMessage`: a leak's message (it starts
/// with the variable) and its trace, once; any other verdict after its variable.
pub fn describe(f: &Finding, ctx: &FileCtx, markdown: bool) -> String {
    let code = |s: &str| {
        if markdown {
            format!("`{s}`")
        } else {
            s.to_string()
        }
    };
    let message = ctx.message(f);
    let mut out = match f.verdict {
        VerdictKind::Leak => format!("{message} ({})", f.probe.as_str()),
        _ => format!("{} ({}): {}", code(&f.variable), f.probe.as_str(), message),
    };
    if f.verdict == VerdictKind::Leak {
        for (i, step) in f.trace.iter().enumerate() {
            out.push_str(&format!(
                "\n{}. {}: {}",
                i + 1,
                ctx.place(&step.loc),
                step.note
            ));
        }
    }
    out
}

/// What is assumed about the callee of the call under `offset`, as Markdown: the facts of
/// `db::callee_facts`, one per line with its reason.
pub fn callee_text(facts: &db::CalleeFacts, ctx: &FileCtx) -> String {
    let mut out = format!("**Assumed about `{}`**", facts.name);
    if let Some((path, line)) = &facts.body {
        let place = if *path == ctx.path {
            format!("line {line}")
        } else {
            let base = ctx.base_for(path);
            format!("{}:{line}", db::display_path(path, base))
        };
        out.push_str(&format!(" (body at {place})"));
    }
    out.push(':');
    for f in &facts.facts {
        out.push_str(&format!("\n- {} — {}", f.fact, f.reason));
    }
    out
}

pub fn hover(db: &Database, ctx: &FileCtx, offset: u32) -> Option<lsp::Hover> {
    let hits = probes_at(db, ctx.file, offset, false);
    let assigned = assigned_at(db, ctx.file, offset, false);
    let d: &dyn Db = db;
    let call = db::call_at(d, ctx.file, offset);
    let callee = call
        .as_ref()
        .map(|c| callee_text(&db::callee_facts(d, ctx.file, &c.callee), ctx));
    let body = match (prove_text(&hits, &assigned, ctx, true), callee) {
        (Some(p), Some(c)) => format!("{p}\n\n{c}"),
        (Some(p), None) => p,
        (None, Some(c)) => c,
        (None, None) => return None,
    };
    let index = db::line_index(d, ctx.file);
    let text = ctx.file.text(d);
    let ranges = hits
        .iter()
        .map(|h| h.range)
        .chain(assigned.iter().map(|a| a.loc.range))
        .chain(call.iter().map(|c| c.range));
    let start = ranges.clone().map(|r| r.start).min().unwrap_or(offset);
    let end = ranges.map(|r| r.end).max().unwrap_or(offset);
    Some(lsp::Hover {
        contents: lsp::HoverContents::Markup(lsp::MarkupContent {
            kind: lsp::MarkupKind::Markdown,
            value: format!("**reductio**\n\n{body}"),
        }),
        range: Some(convert::range(text, &index, start, end, ctx.enc)),
    })
}

/// How code actions may describe edits to this client.
#[derive(Clone, Copy)]
pub struct EditSupport {
    pub document_changes: bool,
}

/// "Prove no leak here" (anywhere in a function), and for each leak in `range` that is not
/// suppressed: its quick fixes, "Suppress this leak report" and "Show leak trace".
pub fn code_actions(
    db: &Database,
    ctx: &FileCtx,
    range: (u32, u32),
    support: EditSupport,
) -> Vec<CodeActionOrCommand> {
    let d: &dyn Db = db;
    let text = ctx.file.text(d);
    let index = db::line_index(d, ctx.file);
    let (start, end) = range;
    let mut out = Vec::new();
    let pos = convert::position(text, &index, start, ctx.enc);
    let args = vec![json!(ctx.uri.as_str()), json!(pos)];
    let findings = db::file_leaks(d, ctx.file);
    let texts = Texts::new(db);
    let tree = db::parsed(d, ctx.file);
    let mut sup = suppressions(db, ctx);
    for f in findings.iter().filter(|f| f.verdict == VerdictKind::Leak) {
        let fr = f.loc.range;
        // Overlap, or touch: a cursor at either end of the diagnostic counts.
        if fr.end < start || end < fr.start || sup.check(f).is_some() {
            continue;
        }
        let diag = diagnostic(f, &texts, ctx);
        let leak = LeakSite {
            kind: f.probe,
            variable: &f.variable,
            range: fr,
        };
        for qf in fix::quick_fixes(text, &tree.0, &leak) {
            let edits: Vec<TextEdit> = qf
                .edits
                .iter()
                .map(|(r, new)| TextEdit {
                    range: convert::range(text, &index, r.start, r.end, ctx.enc),
                    new_text: new.clone(),
                })
                .collect();
            out.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: qf.title,
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: diag.clone().map(|d| vec![d]),
                edit: Some(workspace_edit(ctx, edits, support)),
                is_preferred: Some(qf.preferred),
                ..Default::default()
            }));
        }
        if let Some((r, new)) = crate::suppress::comment_edit(text, fr.start) {
            let edit = TextEdit {
                range: convert::range(text, &index, r.start, r.end, ctx.enc),
                new_text: new,
            };
            out.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: "Suppress this leak report".into(),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: diag.clone().map(|d| vec![d]),
                edit: Some(workspace_edit(ctx, vec![edit], support)),
                is_preferred: Some(false),
                ..Default::default()
            }));
        }
        let at = convert::position(text, &index, fr.start, ctx.enc);
        out.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: format!("Show leak trace of `{}`", f.variable),
            kind: Some(CodeActionKind::EMPTY),
            diagnostics: diag.map(|d| vec![d]),
            command: Some(Command {
                title: "Show leak trace".into(),
                command: TRACE_COMMAND.into(),
                arguments: Some(vec![json!(ctx.uri.as_str()), json!(at)]),
            }),
            ..Default::default()
        }));
    }
    if in_function(db, ctx.file, start) {
        out.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: "Prove no leak here".into(),
            kind: Some(CodeActionKind::EMPTY),
            command: Some(Command {
                title: "Prove no leak here".into(),
                command: PROVE_COMMAND.into(),
                arguments: Some(args),
            }),
            ..Default::default()
        }));
    }
    out
}

fn workspace_edit(ctx: &FileCtx, edits: Vec<TextEdit>, support: EditSupport) -> WorkspaceEdit {
    if support.document_changes {
        WorkspaceEdit {
            document_changes: Some(lsp::DocumentChanges::Edits(vec![TextDocumentEdit {
                text_document: OptionalVersionedTextDocumentIdentifier {
                    uri: ctx.uri.clone(),
                    version: ctx.version,
                },
                edits: edits.into_iter().map(lsp::OneOf::Left).collect(),
            }])),
            ..Default::default()
        }
    } else {
        WorkspaceEdit {
            changes: Some([(ctx.uri.clone(), edits)].into_iter().collect()),
            ..Default::default()
        }
    }
}

/// The leaks at a position, for "Show leak trace".
pub fn leaks_at(db: &Database, ctx: &FileCtx, offset: u32) -> Vec<Hit> {
    probes_at(db, ctx.file, offset, true)
        .into_iter()
        .filter(|h| h.finding.verdict == VerdictKind::Leak)
        .collect()
}

//! The editor features computed on a database snapshot, off the async runtime: diagnostics,
//! the probes at a position, hover text, code actions. Plain data in (a snapshot, a file, a
//! position), LSP values out; everything the analysis knows comes from `db` queries.

use super::convert::{self, path_to_uri};
use crate::db::{self, Database, Db, Finding, SourceFile, SourceLoc, VerdictKind};
use crate::fix::{self, LeakSite};
use crate::syntax::{PositionEncoding, TextRange};
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
        let base = f.allocation.last().and_then(|a| self.base_for(&a.file));
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

/// Runs the probes of `file` on all the analysis threads, so that the `file_findings` that
/// follows finds them done. After an edit, every probe of the edited function runs again (its
/// body changed), and after a change to a MOD set or the call graph, every probe that read it:
/// one thread alone would take their sum (a second on a big function of lighttpd's
/// `gw_backend.c`), the pool divides it by its size. Runs on a pool thread (a job): the
/// parallel iterator shares that pool. Each worker works on its own clone of the snapshot (a
/// database handle is not `Sync`); a salsa cancellation in one worker ends them all and
/// reaches the job as `Cancelled`.
pub fn warm_file_probes(db: &Database, file: SourceFile) {
    use rayon::prelude::*;
    let d: &dyn Db = db;
    let work: Vec<(usize, u32)> = db::file_functions(d, file)
        .iter()
        .enumerate()
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
                let _ = db::probe_verdict(d, *f, k);
            }
        },
    );
}

/// The leak diagnostics of one file: source `reductio`, code = probe kind, related information
/// = the trace, allocation first.
pub fn file_diagnostics(db: &Database, ctx: &FileCtx) -> Vec<Diagnostic> {
    let d: &dyn Db = db;
    let findings = db::file_findings(d, ctx.file);
    let texts = Texts::new(db);
    findings
        .iter()
        .filter(|f| f.verdict == VerdictKind::Leak)
        .filter_map(|f| diagnostic(f, &texts, ctx))
        .collect()
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

pub fn hover(db: &Database, ctx: &FileCtx, offset: u32) -> Option<lsp::Hover> {
    let hits = probes_at(db, ctx.file, offset, false);
    if hits.is_empty() {
        return None;
    }
    let d: &dyn Db = db;
    let index = db::line_index(d, ctx.file);
    let text = ctx.file.text(d);
    let start = hits.iter().map(|h| h.range.start).min().unwrap_or(offset);
    let end = hits.iter().map(|h| h.range.end).max().unwrap_or(offset);
    let body = hits
        .iter()
        .map(|h| describe(&h.finding, ctx, true).replace('\n', "  \n"))
        .collect::<Vec<_>>()
        .join("\n\n");
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

/// "Prove no leak here" (anywhere in a function), and for each leak in `range`: its quick
/// fixes and "Show leak trace".
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
    let findings = db::file_findings(d, ctx.file);
    let texts = Texts::new(db);
    let tree = db::parsed(d, ctx.file);
    for f in findings.iter().filter(|f| f.verdict == VerdictKind::Leak) {
        let fr = f.loc.range;
        // Overlap, or touch: a cursor at either end of the diagnostic counts.
        if fr.end < start || end < fr.start {
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

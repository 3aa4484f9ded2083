//! The bodies of the fuzz targets, shared by cargo-fuzz (`fuzz_targets/*.rs`, libFuzzer on
//! nightly) and by `cargo test` (`tests/stress.rs` includes this file with `#[path]`, replays
//! the seed corpus and runs a short deterministic random search on stable).
//!
//! - [`c_file`]: arbitrary bytes as a C file. Parse, collect items, lower, print the IR, run
//!   every probe, render the findings as text, JSON and SARIF, and read the same bytes as a
//!   `reductio.toml`. Checks that every finding is placed inside the file.
//! - [`lsp_session`]: arbitrary bytes decoded as a session of LSP messages (open, incremental
//!   and full changes, hover, `reductio/prove`, code actions, commands, save, close,
//!   configuration, watched files, malformed frames) against the server in-process. Every
//!   request must be answered within
//!   [`REPLY_LIMIT`](reductio::testing::lsp_client::REPLY_LIMIT) without an internal error, and the server
//!   must shut down cleanly at the end.
//!
//! A panic anywhere (including one the server catches and turns into an error reply) is a
//! finding: libFuzzer's panic hook aborts, and the `cargo test` replay counts internal-error
//! replies.

use reductio::config::Config;
use reductio::db::{self, Database, Db, Finding};
use reductio::ir::{Notation, write_function_with};
use reductio::lsp::Options;
use reductio::report::{self, Summary};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

/// The in-process LSP client the sessions (and `tests/security.rs`, `tests/stress.rs`) use.
pub use reductio::testing::lsp_client::{Client, SessionReport, file_uri};

/// The stack the CLI's and the server's analysis threads get.
const ANALYSIS_STACK: usize = 32 << 20;

/// Most operations decoded from one input (longer inputs are cut: libFuzzer's `-max_len`
/// bounds them anyway).
const MAX_OPS: usize = 48;

// ---- (c) a project: a file, a header and a compile database ------------------------------

/// Runs the build model and the whole pipeline on a small project made of `data`: split at
/// the first two NUL bytes into a C file (`src/main.c`, which includes `h.h`), a header
/// (`include/h.h`) and a `compile_commands.json`, written to a per-process directory so the
/// real file reader (directories, devices, sizes) is exercised. Panics on any crash or broken
/// invariant; a hang is libFuzzer's timeout.
pub fn build_project(data: &[u8]) {
    let data = data.to_vec();
    let worker = std::thread::Builder::new()
        .stack_size(ANALYSIS_STACK)
        .spawn(move || build_project_on_this_thread(&data))
        .expect("spawn the analysis thread");
    if let Err(panic) = worker.join() {
        std::panic::resume_unwind(panic);
    }
}

fn build_project_on_this_thread(data: &[u8]) {
    let mut parts = data.splitn(3, |&b| b == 0);
    let main = String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
    let header = parts.next().unwrap_or_default();
    let cdb = parts.next().unwrap_or_default();
    let dir = std::env::temp_dir().join(format!("reductio-fuzz-build-{}", std::process::id()));
    let _ = std::fs::create_dir_all(dir.join("src"));
    let _ = std::fs::create_dir_all(dir.join("include"));
    let _ = std::fs::write(dir.join("include/h.h"), header);
    let _ = std::fs::write(dir.join("compile_commands.json"), cdb);
    let text = format!("#include \"h.h\"\n{main}");
    let path = dir.join("src/main.c");
    let _ = std::fs::write(&path, &text);
    let mut database = Database::new(Config::default());
    let file = database.add_file(path.clone(), text.clone());
    let db: &dyn Db = &database;
    for f in db::file_functions(db, file) {
        let ir = db::lowered(db, *f);
        let len = f.source(db).text.len() as u32;
        for n in ir.node_ids() {
            let r = ir.node(n).stmt.range;
            assert!(
                r.start <= r.end && r.end <= len,
                "a range outside its function"
            );
        }
    }
    let _ = db::build_messages(db, file);
    let _ = db::function_facts(db);
    let _ = db::call_stats(db, &[file]);
    // Every place a finding names lies inside the file it names (the main file or the header).
    let header_text = String::from_utf8_lossy(header).into_owned();
    let files = [(path, text), (dir.join("include/h.h"), header_text)];
    let inside = |l: &reductio::db::SourceLoc| {
        let Some((_, t)) = files.iter().find(|(p, _)| db::absolute(&l.file) == *p) else {
            return true;
        };
        let lines = t.split('\n').count() as u32;
        l.line >= 1
            && l.line <= l.end_line
            && l.end_line <= lines
            && l.range.start <= l.range.end
            && l.range.end as usize <= t.len()
    };
    for f in db::file_findings(db, file).iter() {
        assert!(inside(&f.loc), "finding outside its file: {f:?}");
        for s in &f.trace {
            assert!(inside(&s.loc), "trace step outside its file: {f:?}");
        }
        for a in &f.allocation {
            assert!(inside(a), "allocation outside its file: {f:?}");
        }
    }
}

// ---- (a) a C file ----------------------------------------------------------------------

/// Runs the whole pipeline on `data` as a C file. Panics on any crash or broken invariant.
pub fn c_file(data: &[u8]) {
    let data = data.to_vec();
    let worker = std::thread::Builder::new()
        .stack_size(ANALYSIS_STACK)
        .spawn(move || c_file_on_this_thread(&data))
        .expect("spawn the analysis thread");
    if let Err(panic) = worker.join() {
        std::panic::resume_unwind(panic);
    }
}

fn c_file_on_this_thread(data: &[u8]) {
    let (text, _lossy) = reductio::syntax::decode_source(data);
    // The same bytes as a configuration file: errors are fine, panics are not.
    let _ = Config::from_toml(&text);
    let path = PathBuf::from("fuzz.c");
    let mut database = Database::new(Config::default());
    let file = database.add_file(path.clone(), text.clone());
    let db: &dyn Db = &database;

    let mut printed = String::new();
    for f in db::file_functions(db, file) {
        let ir = db::lowered(db, *f);
        let loc = |r: reductio::syntax::TextRange| {
            let (l, c) = db::location(db, *f, r);
            format!("{l}:{c}")
        };
        let _ = write_function_with(&mut printed, &ir, Some(&loc), Notation::C);
        let _ = write_function_with(&mut printed, &ir, None, Notation::Paper);
    }
    let _ = db::global_inits(db, file);

    let findings = db::file_findings(db, file);
    let lines = text.split('\n').count() as u32;
    for f in findings.iter() {
        check_placed(f, lines, text.len());
    }
    let mut summary = Summary {
        files: 1,
        functions: db::file_functions(db, file).len(),
        ..Default::default()
    };
    let all: Vec<&Finding> = findings.iter().map(|f| f.as_ref()).collect();
    for f in &all {
        summary.count(f);
    }
    // The reports of `check --all`, suppression comments of the input read as it is.
    let texts = [(path.clone(), text.as_str())];
    let opts = reductio::ci::Options {
        all: true,
        ..Default::default()
    };
    let triage =
        reductio::ci::triage(&findings, &texts, &[], &opts).expect("no baseline, no error");
    let json = report::to_text(&triage.json(&summary));
    serde_json::from_str::<Value>(&json).expect("the JSON report parses");
    let sarif = report::to_text(&triage.sarif());
    serde_json::from_str::<Value>(&sarif).expect("the SARIF report parses");
    let sources: report::Sources = [(path, text)].into_iter().collect();
    let _ = report::text_report(&all, &summary, &sources, false);
}

/// A finding (and its trace and allocation path) must point inside the file, in lines and in
/// bytes.
fn check_placed(f: &Finding, lines: u32, len: usize) {
    let ok = |l: &reductio::db::SourceLoc| {
        l.line >= 1
            && l.line <= l.end_line
            && l.end_line <= lines
            && l.range.start <= l.range.end
            && l.range.end as usize <= len
    };
    assert!(
        ok(&f.loc),
        "finding outside the file ({lines} lines): {f:?}"
    );
    for s in &f.trace {
        assert!(ok(&s.loc), "trace step outside: {f:?}");
    }
    for a in &f.allocation {
        assert!(ok(a), "allocation outside: {f:?}");
    }
}

// ---- (b) an LSP session ----------------------------------------------------------------

/// Reads an input as a stream of small decisions; past the end every read is zero, so every
/// input decodes to a session.
struct Input<'a> {
    data: &'a [u8],
}

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((b, rest)) => {
                self.data = rest;
                *b
            }
            None => 0,
        }
    }

    fn below(&mut self, n: usize) -> usize {
        usize::from(self.byte()) % n.max(1)
    }

    fn bytes(&mut self, max: usize) -> &[u8] {
        let n = self.below(max + 1).min(self.data.len());
        let (head, rest) = self.data.split_at(n);
        self.data = rest;
        head
    }

    fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
}

/// C texts the session opens documents with: the test fixtures (the seed corpus of this
/// target), found from this crate's location at run time.
fn fixture_texts() -> &'static [String] {
    static TEXTS: OnceLock<Vec<String>> = OnceLock::new();
    TEXTS.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let dir = if root.ends_with("fuzz") {
            root.join("../../test-fixtures")
        } else {
            root.join("../test-fixtures")
        };
        let mut paths = Vec::new();
        for sub in ["idioms", "paper"] {
            if let Ok(rd) = std::fs::read_dir(dir.join(sub)) {
                paths.extend(rd.filter_map(|e| e.ok().map(|e| e.path())));
            }
        }
        paths.sort();
        let mut texts: Vec<String> = paths
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "c"))
            .filter_map(|p| std::fs::read_to_string(p).ok())
            .collect();
        texts.push(String::new());
        texts.push(
            "struct n { struct n *next; };\nvoid f(struct n *p) {\n    p = 0;\n}\n".to_string(),
        );
        texts
    })
}

/// Snippets that edits insert: C that changes verdicts, breaks the parse, or moves positions
/// across multi-byte characters.
const SNIPPETS: &[&str] = &[
    "",
    "\n",
    "}",
    "{",
    "free(p);\n",
    "    return 0;\n",
    "p = malloc(8);\n",
    "char *s = strdup(\"x\");\n",
    "/*",
    "*/",
    "\"",
    "#if 0\n",
    "#endif\n",
    "goto out;\nout:\n",
    "é",
    "😀",
    "\r\n",
    "\t",
    "int f(void) { return 1; }\n",
    "struct s { struct s *next; } *g;\n",
    "if (p) ",
    "else ",
    "while (1) {",
    "switch (x) { case 1: break; }",
    "((((((((",
    "\u{0}",
];

/// Runs `data` as an LSP session against an in-process server. Panics on a hang, an internal
/// error reply, or a server that does not exit after `shutdown` + `exit`.
pub fn lsp_session(data: &[u8]) {
    let report = lsp_session_report(data);
    assert!(
        report.internal_errors.is_empty(),
        "internal errors: {:?}",
        report.internal_errors
    );
}

/// Each session gets its own runtime, dropped afterwards: a server leaves background tasks
/// behind after `exit` (a stdio server's process ends there; an in-process one would keep
/// its analysis threads alive), and dropping the runtime cancels them.
pub fn lsp_session_report(data: &[u8]) -> SessionReport {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let report = rt.block_on(Session::run(data));
    rt.shutdown_timeout(Duration::from_secs(5));
    report
}

/// A shared multi-threaded runtime for tests that drive one long session.
pub fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("tokio runtime")
    })
}

/// The workspace the sessions run in: a directory with one C file and a `reductio.toml`,
/// shared by all sessions of the process.
fn workspace_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("reductio-fuzz-ws-{}", std::process::id()));
        let _ = std::fs::create_dir_all(dir.join("sub"));
        let _ = std::fs::write(
            dir.join("helper.c"),
            "#include <stdlib.h>\nvoid *mk(void) { return malloc(4); }\n",
        );
        let _ = std::fs::write(dir.join("reductio.toml"), "allocators = [\"xmalloc\"]\n");
        dir
    })
}

/// A fuzzed session: a [`Client`] and the versions of its four document slots.
struct Session {
    client: Client,
    versions: [i32; 4],
}

impl Session {
    async fn run(data: &[u8]) -> SessionReport {
        let mut input = Input { data };
        let utf8 = input.byte() & 1 == 1;
        let mut client = Client::start(Options::default());
        // A pulled configuration turns on checking as you type.
        client.set_configuration(json!({"checkOn": "change"}));
        client
            .initialize(
                Some(workspace_dir()),
                utf8,
                json!({"checkOn": "change", "debounceMs": 0}),
            )
            .await;
        let mut session = Session {
            client,
            versions: [0; 4],
        };
        let mut ops = 0;
        while !input.is_empty() && ops < MAX_OPS {
            ops += 1;
            session.step(&mut input).await;
        }
        session.client.shutdown().await
    }

    fn doc_uri(slot: usize) -> String {
        match slot {
            // Outside the workspace, and a non-file scheme.
            2 => "file:///nonexistent-reductio-dir/lone.c".to_string(),
            3 => "untitled:Untitled-1".to_string(),
            _ => file_uri(&workspace_dir().join(format!("doc{slot}.c"))),
        }
    }

    async fn step(&mut self, input: &mut Input<'_>) {
        let slot = input.below(4);
        let uri = Self::doc_uri(slot);
        let pos = json!({"line": input.below(40), "character": input.below(90)});
        match input.below(13) {
            0 | 1 => {
                let texts = fixture_texts();
                let text = if input.byte() < 200 {
                    texts[input.below(texts.len())].clone()
                } else {
                    String::from_utf8_lossy(input.bytes(512)).into_owned()
                };
                self.versions[slot] += 1;
                self.client
                    .notify(
                        "textDocument/didOpen",
                        json!({"textDocument": {"uri": uri, "languageId": "c",
                           "version": self.versions[slot], "text": text}}),
                    )
                    .await;
            }
            2..=4 => {
                let n = 1 + input.below(3);
                let mut changes = Vec::new();
                for _ in 0..n {
                    let start = json!({"line": input.below(40), "character": input.below(90)});
                    let end = if input.byte() < 128 {
                        start.clone()
                    } else {
                        json!({"line": input.below(40), "character": input.below(90)})
                    };
                    let text = if input.byte() < 230 {
                        SNIPPETS[input.below(SNIPPETS.len())].to_string()
                    } else {
                        String::from_utf8_lossy(input.bytes(64)).into_owned()
                    };
                    changes.push(json!({"range": {"start": start, "end": end}, "text": text}));
                }
                // Mostly increasing versions, sometimes a stale or repeated one.
                if input.byte() < 240 {
                    self.versions[slot] += 1;
                }
                self.client
                    .notify(
                        "textDocument/didChange",
                        json!({"textDocument": {"uri": uri, "version": self.versions[slot]},
                           "contentChanges": changes}),
                    )
                    .await;
            }
            5 => {
                let texts = fixture_texts();
                let text = texts[input.below(texts.len())].clone();
                self.versions[slot] += 1;
                self.client
                    .notify(
                        "textDocument/didChange",
                        json!({"textDocument": {"uri": uri, "version": self.versions[slot]},
                           "contentChanges": [{"text": text}]}),
                    )
                    .await;
            }
            6 => {
                self.client
                    .request(
                        "textDocument/hover",
                        json!({"textDocument": {"uri": uri}, "position": pos}),
                    )
                    .await;
            }
            7 => {
                self.client
                    .request(
                        "reductio/prove",
                        json!({"textDocument": {"uri": uri}, "position": pos}),
                    )
                    .await;
            }
            8 => {
                let end = json!({"line": input.below(60), "character": input.below(90)});
                let reply = self
                    .client
                    .request(
                        "textDocument/codeAction",
                        json!({"textDocument": {"uri": uri},
                               "range": {"start": pos, "end": end},
                               "context": {"diagnostics": []}}),
                    )
                    .await;
                // Run the first command an action offers, as an editor would on a click.
                let command = reply
                    .as_ref()
                    .and_then(|r| r["result"].as_array())
                    .and_then(|a| {
                        a.iter()
                            .find_map(|x| x.get("command").filter(|c| c.is_object()).cloned())
                    });
                if let Some(c) = command {
                    self.client
                        .request(
                            "workspace/executeCommand",
                            json!({"command": c["command"], "arguments": c["arguments"]}),
                        )
                        .await;
                }
            }
            9 => {
                let command =
                    ["reductio.proveNoLeak", "reductio.showLeakTrace", "nope"][input.below(3)];
                let args = match input.below(4) {
                    0 => json!([uri, pos]),
                    1 => json!([]),
                    2 => json!([42, {"x": 1}]),
                    _ => json!([uri]),
                };
                self.client
                    .request(
                        "workspace/executeCommand",
                        json!({"command": command, "arguments": args}),
                    )
                    .await;
            }
            10 => {
                let method = ["textDocument/didSave", "textDocument/didClose"][input.below(2)];
                self.client
                    .notify(method, json!({"textDocument": {"uri": uri}}))
                    .await;
            }
            11 => {
                let settings = match input.below(6) {
                    0 => json!({"reductio": {"budget": {"transfers": 1 + input.below(20)}}}),
                    1 => json!({"allocators": ["xmalloc", "mk"], "deallocators": ["xfree"]}),
                    2 => json!({"checkOn": "bogus"}),
                    3 => json!({"exclude": ["[", "**/doc1.c"]}),
                    4 => json!({"budget": {"regions": 0}}),
                    _ => Value::Null,
                };
                self.client
                    .notify(
                        "workspace/didChangeConfiguration",
                        json!({"settings": settings}),
                    )
                    .await;
            }
            12 => {
                if input.byte() < 128 {
                    let target = match input.below(4) {
                        0 => file_uri(&workspace_dir().join("helper.c")),
                        1 => file_uri(&workspace_dir().join("reductio.toml")),
                        2 => file_uri(&workspace_dir().join("../outside.c")),
                        _ => file_uri(&workspace_dir().join("sub/gone.c")),
                    };
                    self.client
                        .notify(
                            "workspace/didChangeWatchedFiles",
                            json!({"changes": [{"uri": target, "type": 1 + input.below(3)}]}),
                        )
                        .await;
                } else {
                    // A malformed frame: the transport must skip it.
                    let body = input.bytes(40).to_vec();
                    let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
                    frame.extend(body);
                    self.client.raw(&frame).await;
                }
            }
            _ => unreachable!(),
        }
        // Occasionally let the background checks run before the next message.
        if input.byte() > 250 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

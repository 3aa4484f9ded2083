//! Latency of `reductio serve`, measured the way an editor sees it, over stdio.
//!
//! Generates a 5,000-line C file (list code: constructors, wrappers, traversals, frees, some
//! leaks), opens it, then measures:
//! - didChange → publishDiagnostics for single-character edits inside function bodies
//!   (`checkOn = "change"`), both edits that change the function's IR and edits that do not;
//! - `reductio/prove` round trips at every assignment of the file.
//!
//! ```sh
//! cargo build --release && cargo run --release --example lsp_latency -- [--debounce-ms N] [SERVER]
//! ```
//! SERVER defaults to target/release/reductio. The debounce defaults to 0 so the figures are
//! the server's own latency; an editor with the default settings adds 200 ms.

mod common;

use common::stdio_client::StdioClient;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long any one message may take.
const LIMIT: Duration = Duration::from_secs(60);

/// The server over stdio; the client declares no capability that makes the server send
/// requests (progress, watcher registration, configuration pull).
struct Lsp {
    client: StdioClient,
}

impl Lsp {
    fn start(server: &Path) -> Lsp {
        let client = StdioClient::spawn(server, "warn")
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", server.display()));
        Lsp { client }
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.client.notify(method, params);
    }

    fn request(&mut self, method: &str, params: Value) -> (Value, Duration) {
        self.client
            .request(method, params, LIMIT)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn wait_diagnostics(&mut self, version: i64, since: Instant) -> (Duration, usize) {
        loop {
            match self.client.next_message(Instant::now() + LIMIT) {
                Ok(Some((at, msg)))
                    if msg["method"] == "textDocument/publishDiagnostics"
                        && msg["params"]["version"].as_i64() == Some(version) =>
                {
                    let n = msg["params"]["diagnostics"].as_array().map_or(0, Vec::len);
                    return (at - since, n);
                }
                Ok(Some(_)) => {}
                Ok(None) => panic!("no diagnostics for version {version} within {LIMIT:?}"),
                Err(_) => panic!("the server exited while waiting for version {version}"),
            }
        }
    }
}

/// About 5,000 lines of list code, with a leak in every `sum_` function.
fn generate() -> String {
    let mut out = vec![
        "#include <stdlib.h>".to_string(),
        "#include <string.h>".into(),
        String::new(),
        "struct node { struct node *next; char *name; int v; };".into(),
        String::new(),
    ];
    let mut i = 0;
    while out.len() < 4990 {
        let body: Vec<String> = match i % 5 {
            0 => vec![
                format!("struct node *make_{i}(int v)"),
                "{".into(),
                "    struct node *n = malloc(sizeof *n);".into(),
                "    if (n == NULL)".into(),
                "        return NULL;".into(),
                "    n->v = v;".into(),
                "    n->next = NULL;".into(),
                "    n->name = NULL;".into(),
                "    return n;".into(),
                "}".into(),
            ],
            1 => vec![
                format!("int push_{i}(struct node **head, int v)"),
                "{".into(),
                format!("    struct node *n = make_{}(v);", i - 1),
                "    if (n == NULL)".into(),
                "        return -1;".into(),
                "    n->next = *head;".into(),
                "    *head = n;".into(),
                "    return 0;".into(),
                "}".into(),
            ],
            2 => vec![
                format!("int sum_{i}(struct node *l)"),
                "{".into(),
                "    int s = 0;".into(),
                "    struct node *p;".into(),
                "    for (p = l; p != NULL; p = p->next)".into(),
                "        s += p->v;".into(),
                "    char *tmp = malloc(16);".into(),
                "    if (tmp == NULL)".into(),
                "        return s;".into(),
                "    if (s < 0)".into(),
                "        return -1;".into(),
                "    free(tmp);".into(),
                "    return s;".into(),
                "}".into(),
            ],
            3 => vec![
                format!("void free_{i}(struct node *l)"),
                "{".into(),
                "    while (l != NULL) {".into(),
                "        struct node *next = l->next;".into(),
                "        free(l->name);".into(),
                "        free(l);".into(),
                "        l = next;".into(),
                "    }".into(),
                "}".into(),
            ],
            _ => vec![
                format!("char *dup_{i}(const char *s)"),
                "{".into(),
                "    size_t n = strlen(s);".into(),
                "    char *d = malloc(n + 1);".into(),
                "    if (d == NULL)".into(),
                "        return NULL;".into(),
                "    memcpy(d, s, n + 1);".into(),
                "    return d;".into(),
                "}".into(),
            ],
        };
        out.extend(body);
        out.push(String::new());
        i += 1;
    }
    out.join("\n") + "\n"
}

fn percentiles(mut v: Vec<Duration>) -> (f64, f64, f64) {
    v.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let at = |p: usize| v[(v.len() * p / 100).min(v.len() - 1)];
    (ms(at(50)), ms(at(95)), ms(*v.last().unwrap()))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut debounce = 0u64;
    let mut server: Option<PathBuf> = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--debounce-ms" => debounce = args.next().and_then(|s| s.parse().ok()).unwrap_or(0),
            _ => server = Some(PathBuf::from(a)),
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let server = server.unwrap_or_else(|| {
        let release = root.join("target/release/reductio");
        if release.exists() {
            release
        } else {
            root.join("target/debug/reductio")
        }
    });
    let dir = std::env::temp_dir().join(format!("reductio-latency-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = generate();
    let path = dir.join("big.c");
    std::fs::write(&path, &text).unwrap();
    let uri = format!("file://{}", path.display());
    println!(
        "server {}, file {} lines, debounce {debounce} ms",
        server.display(),
        text.lines().count()
    );

    let mut lsp = Lsp::start(&server);
    lsp.request(
        "initialize",
        json!({"processId": null, "rootUri": format!("file://{}", dir.display()),
               "capabilities": {"general": {"positionEncodings": ["utf-8"]}},
               "initializationOptions": {"checkOn": "change", "debounceMs": debounce}}),
    );
    lsp.notify("initialized", json!({}));
    let t = Instant::now();
    lsp.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "c", "version": 1, "text": text}}),
    );
    let (first, leaks) = lsp.wait_diagnostics(1, t);
    println!(
        "open → first diagnostics: {:.0} ms ({leaks} leaks)",
        first.as_secs_f64() * 1000.0
    );

    // Single-character edits inside function bodies: `malloc(16)` ↔ `malloc(164)` in the
    // `sum_` functions (changes the IR), and a space in and out of `s += p->v;` (does not).
    let lines: Vec<&str> = text.lines().collect();
    let ir_lines: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains("malloc(16);"))
        .collect();
    let ws_lines: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains("s += p->v;"))
        .collect();
    let mut version = 1;
    let mut edit = |lsp: &mut Lsp, line: usize, col: usize, insert: Option<&str>| {
        version += 1;
        let (end, new) = match insert {
            Some(s) => (col, s),
            None => (col + 1, ""),
        };
        let t = Instant::now();
        lsp.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version},
                   "contentChanges": [{"range": {"start": {"line": line, "character": col},
                                                 "end": {"line": line, "character": end}},
                                       "text": new}]}),
        );
        lsp.wait_diagnostics(version, t).0
    };
    let n = 60;
    let mut ir = Vec::new();
    let mut ws = Vec::new();
    for k in 0..n {
        let l = ir_lines[(k * 7) % ir_lines.len()];
        let col = lines[l].find("16)").unwrap() + 2;
        ir.push(edit(&mut lsp, l, col, Some("4")));
        ir.push(edit(&mut lsp, l, col, None));
        let l = ws_lines[(k * 11) % ws_lines.len()];
        let col = lines[l].find("+=").unwrap();
        ws.push(edit(&mut lsp, l, col, Some(" ")));
        ws.push(edit(&mut lsp, l, col, None));
    }
    let (p50, p95, max) = percentiles(ir);
    println!(
        "didChange → publishDiagnostics, edit changes the function's IR ({} edits): p50 {p50:.1} ms, p95 {p95:.1} ms, max {max:.1} ms",
        2 * n
    );
    let (p50, p95, max) = percentiles(ws);
    println!(
        "didChange → publishDiagnostics, whitespace edit ({} edits): p50 {p50:.1} ms, p95 {p95:.1} ms, max {max:.1} ms",
        2 * n
    );

    // reductio/prove at every assignment (`x = …;`, `x += …;` and initialized declarations).
    let mut times = Vec::new();
    let mut verdicts = 0;
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        let is_assignment = t.ends_with(';')
            && (t.contains(" = ") || t.contains(" += "))
            && !t.starts_with("return")
            && !t.starts_with("for");
        if !is_assignment {
            continue;
        }
        let col = l.len() - t.len();
        let (r, d) = lsp.request(
            "reductio/prove",
            json!({"textDocument": {"uri": uri}, "position": {"line": i, "character": col}}),
        );
        verdicts += r["result"]["verdicts"].as_array().map_or(0, Vec::len);
        times.push(d);
    }
    let count = times.len();
    let (p50, p95, max) = percentiles(times);
    println!(
        "reductio/prove at {count} assignments ({verdicts} verdicts): p50 {p50:.2} ms, p95 {p95:.2} ms, max {max:.2} ms"
    );

    lsp.request("shutdown", Value::Null);
    lsp.notify("exit", Value::Null);
    let _ = lsp.client.child.wait();
    let _ = std::fs::remove_dir_all(&dir);
}

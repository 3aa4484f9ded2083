//! Editor latency of the real `reductio serve`, driven over stdio by a scripted LSP client, for
//! the benchmark harness (`bench/run.sh`, see bench/README.md). JSON on stdout.
//!
//! ```text
//! bench_lsp --server PATH --file FILE [--root DIR]... [--function NAME] [--edits N]
//!           [--default-debounce-edits N] [--saves N] [--prove-limit N] [--timeout SECONDS]
//! ```
//!
//! One session, in this order:
//! 1. **Workspace.** `initialize` with the roots as workspace folders (default: FILE's
//!    directory), the client offering UTF-8 positions and `$/progress`. Measured from the
//!    `initialize` request: the end of indexing (`$/progress` "reductio: indexing"), the first
//!    `publishDiagnostics` (the server publishes only files with leaks until a file is
//!    opened), and the end of the first check of the whole workspace (`$/progress`
//!    "reductio: checking"; the server reports it only for more than 10 files, so for smaller
//!    workspaces the end is when the server's CPU time stops growing). The server's RSS is
//!    read from `/proc` when indexing ends and when the check ends.
//! 2. **Edits.** FILE is opened; then `--edits` single-character edits (default 100) inside one
//!    function (`--function`, default: the function with the most probes among those of at
//!    most 300 lines): a space inserted before the `;` of a statement in the middle of the
//!    function, then removed, alternately. Each is timed from `didChange` to the
//!    `publishDiagnostics` carrying its version, with `checkOn = "change"` and
//!    `debounceMs = 0` (the server's own latency), then again with the default debounce
//!    (`--default-debounce-edits`, default the same count; 0 skips it).
//! 3. **Saves.** With the default `checkOn = "save"`: `--saves` times (default 20), a line
//!    `free(0);` is inserted after the edited statement (a change of meaning, as a quick fix's
//!    `free(p);` is: the function's probes and its MOD set change) or removed again,
//!    alternately, then `didSave`; each timed from `didSave` to the `publishDiagnostics` of that
//!    version (`saves`), and to the last `publishDiagnostics` of that version, once none has
//!    come for a second (`saves_complete`: the server publishes the edited functions' leaks
//!    first, then the file's complete diagnostics when they differ).
//! 4. **Prove.** `reductio/prove` at every assignment of FILE (every `assignment_expression`
//!    and initialized declarator tree-sitter finds; `--prove-limit N` takes N evenly spaced
//!    ones), each timed from request to response.

mod common;

use common::stdio_client::StdioClient;
use common::{percentile, pick_target};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

struct Options {
    server: PathBuf,
    file: PathBuf,
    roots: Vec<PathBuf>,
    function: Option<String>,
    edits: usize,
    default_debounce_edits: Option<usize>,
    saves: usize,
    prove_limit: Option<usize>,
    timeout: Duration,
}

const USAGE: &str = "usage: bench_lsp --server PATH --file FILE [--root DIR]... [--function NAME] \
                     [--edits N] [--default-debounce-edits N] [--saves N] [--prove-limit N] \
                     [--timeout SECONDS]";

fn parse_args() -> Result<Options, String> {
    let mut server = None;
    let mut file = None;
    let mut o = Options {
        server: PathBuf::new(),
        file: PathBuf::new(),
        roots: vec![],
        function: None,
        edits: 100,
        default_debounce_edits: None,
        saves: 20,
        prove_limit: None,
        timeout: Duration::from_secs(3600),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |flag: &str| args.next().ok_or_else(|| format!("{flag} needs a value"));
        let number = |flag: &str, v: String| {
            v.parse::<usize>()
                .map_err(|_| format!("{flag} needs a number"))
        };
        match a.as_str() {
            "--server" => server = Some(PathBuf::from(value("--server")?)),
            "--file" => file = Some(PathBuf::from(value("--file")?)),
            "--root" => o.roots.push(PathBuf::from(value("--root")?)),
            "--function" => o.function = Some(value("--function")?),
            "--edits" => o.edits = number("--edits", value("--edits")?)?,
            "--default-debounce-edits" => {
                let v = value("--default-debounce-edits")?;
                o.default_debounce_edits = Some(number("--default-debounce-edits", v)?);
            }
            "--saves" => o.saves = number("--saves", value("--saves")?)?,
            "--prove-limit" => {
                o.prove_limit = Some(number("--prove-limit", value("--prove-limit")?)?)
            }
            "--timeout" => {
                let s = number("--timeout", value("--timeout")?)?;
                o.timeout = Duration::from_secs(s as u64);
            }
            s => return Err(format!("unexpected argument {s}")),
        }
    }
    let abs = |p: PathBuf| std::fs::canonicalize(&p).map_err(|e| format!("{}: {e}", p.display()));
    o.server = abs(server.ok_or("--server is required")?)?;
    o.file = abs(file.ok_or("--file is required")?)?;
    o.roots = o.roots.into_iter().map(abs).collect::<Result<_, _>>()?;
    if o.roots.is_empty() {
        o.roots
            .push(o.file.parent().unwrap_or(Path::new("/")).to_path_buf());
    }
    Ok(o)
}

// ---- the client --------------------------------------------------------------------------

enum Event {
    Diagnostics {
        uri: String,
        version: Option<i64>,
        count: usize,
    },
    Progress {
        token: String,
        kind: String,
        title: Option<String>,
    },
    Closed,
}

fn uri_of(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// The server over stdio (see [`StdioClient`]: it answers the server's own requests), with its
/// messages sorted into the events the benchmark waits for.
struct Lsp {
    client: StdioClient,
}

impl Lsp {
    fn start(server: &Path) -> Lsp {
        // Quiet unless asked: `REDUCTIO_LOG=debug` shows the server's timing of each check.
        let level = std::env::var("REDUCTIO_LOG").unwrap_or_else(|_| "warn".into());
        let client = StdioClient::spawn(server, &level)
            .unwrap_or_else(|e| fail(&format!("cannot start {}: {e}", server.display())));
        Lsp { client }
    }

    fn notify(&self, method: &str, params: Value) {
        self.client.notify(method, params);
    }

    fn request(&mut self, method: &str, params: Value, timeout: Duration) -> (Value, Duration) {
        self.client
            .request(method, params, timeout)
            .unwrap_or_else(|e| fail(&e))
    }

    /// The next event before `deadline` (other messages are skipped).
    fn next_event(&self, deadline: Instant) -> Option<(Instant, Event)> {
        loop {
            let (at, msg) = match self.client.next_message(deadline) {
                Ok(Some(m)) => m,
                Ok(None) => return None,
                Err(_) => return Some((Instant::now(), Event::Closed)),
            };
            let method = msg.get("method").and_then(Value::as_str);
            let event = match (method, msg.get("id")) {
                (Some("textDocument/publishDiagnostics"), None) => {
                    let p = &msg["params"];
                    Event::Diagnostics {
                        uri: p["uri"].as_str().unwrap_or_default().to_string(),
                        version: p["version"].as_i64(),
                        count: p["diagnostics"].as_array().map_or(0, Vec::len),
                    }
                }
                (Some("$/progress"), None) => {
                    let p = &msg["params"];
                    Event::Progress {
                        token: p["token"].to_string(),
                        kind: p["value"]["kind"].as_str().unwrap_or_default().to_string(),
                        title: p["value"]["title"].as_str().map(str::to_string),
                    }
                }
                _ => continue,
            };
            return Some((at, event));
        }
    }

    /// Waits for diagnostics of `uri` at `version`; the time since `since`.
    fn wait_diagnostics(&self, uri: &str, version: i64, since: Instant, timeout: Duration) -> f64 {
        let deadline = Instant::now() + timeout;
        loop {
            match self.next_event(deadline) {
                Some((
                    at,
                    Event::Diagnostics {
                        uri: u, version: v, ..
                    },
                )) if u == uri && v == Some(version) => {
                    return ms(at - since);
                }
                Some((_, Event::Closed)) => fail("the server exited while we waited"),
                Some(_) => {}
                None => fail(&format!(
                    "no diagnostics for version {version} within {timeout:?}"
                )),
            }
        }
    }

    /// After the first `publishDiagnostics` of `version` (see [`Lsp::wait_diagnostics`]): the
    /// last one of that version, once none has come for `quiet`. The server may publish a
    /// file twice per version: its edited functions first, then the complete diagnostics
    /// (only when they differ). Returns milliseconds since `since`.
    fn wait_last_diagnostics(
        &self,
        uri: &str,
        version: i64,
        since: Instant,
        first: f64,
        quiet: Duration,
    ) -> f64 {
        let mut last = first;
        let mut deadline = Instant::now() + quiet;
        loop {
            match self.next_event(deadline) {
                Some((
                    at,
                    Event::Diagnostics {
                        uri: u, version: v, ..
                    },
                )) if u == uri && v == Some(version) => {
                    last = ms(at - since);
                    deadline = Instant::now() + quiet;
                }
                Some((_, Event::Closed)) => fail("the server exited while we waited"),
                Some(_) => {}
                None => return last,
            }
        }
    }

    fn proc_status(&self, key: &str) -> Option<u64> {
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", self.client.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with(key))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    /// User + system CPU time of the server, in clock ticks.
    fn cpu_ticks(&self) -> Option<u64> {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", self.client.child.id())).ok()?;
        // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
        let rest = &stat[stat.rfind(')')? + 2..];
        let f: Vec<&str> = rest.split_whitespace().collect();
        Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
    }
}

fn fail(msg: &str) -> ! {
    eprintln!("bench_lsp: {msg}");
    std::process::exit(1)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn distribution(mut v: Vec<f64>) -> Value {
    v.sort_by(f64::total_cmp);
    json!({
        "count": v.len(),
        "p50_ms": percentile(&v, 50.0),
        "p95_ms": percentile(&v, 95.0),
        "max_ms": v.last().copied().unwrap_or(0.0),
        "mean_ms": v.iter().sum::<f64>() / v.len().max(1) as f64,
    })
}

// ---- what to edit and where to prove ----------------------------------------------------

/// 0-based (line, byte column) of every assignment and initialized declarator.
fn assignments(text: &str) -> Vec<(usize, usize)> {
    let tree = reductio::syntax::parse(text, None);
    let mut out = Vec::new();
    let mut cursor = tree.walk();
    'walk: loop {
        let node = cursor.node();
        let is_assignment = node.kind() == "assignment_expression"
            || (node.kind() == "init_declarator" && node.child_by_field_name("value").is_some());
        if is_assignment {
            let p = node.start_position();
            out.push((p.row, p.column));
        }
        if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    out.dedup();
    out
}

// ---- the session ------------------------------------------------------------------------

fn main() {
    let opts = parse_args().unwrap_or_else(|e| {
        eprintln!("bench_lsp: {e}\n{USAGE}");
        std::process::exit(2)
    });
    let (text, _) = reductio::files::read_source(&opts.file).unwrap_or_else(|e| fail(&e));
    let target =
        pick_target(&opts.file, &text, opts.function.as_deref()).unwrap_or_else(|e| fail(&e));
    let workspace_files = reductio::files::discover(&opts.roots, &[]).unwrap_or_default();
    let workspace_lines: usize = workspace_files
        .iter()
        .filter_map(|p| std::fs::read(p).ok())
        .map(|b| b.iter().filter(|&&c| c == b'\n').count())
        .sum();
    eprintln!(
        "bench_lsp: {} files, {workspace_lines} lines in the workspace; editing `{}` \
         (line {}, {} lines, {} probes) of {}",
        workspace_files.len(),
        target.name,
        target.line + 1,
        target.lines,
        target.probes,
        opts.file.display()
    );

    // 1. The workspace.
    let mut lsp = Lsp::start(&opts.server);
    let folders: Vec<Value> = opts
        .roots
        .iter()
        .map(|r| json!({"uri": uri_of(r), "name": r.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()}))
        .collect();
    let t0 = Instant::now();
    lsp.request(
        "initialize",
        json!({
            "processId": std::process::id(),
            "rootUri": uri_of(&opts.roots[0]),
            "workspaceFolders": folders,
            "capabilities": {
                "general": {"positionEncodings": ["utf-8", "utf-16"]},
                "window": {"workDoneProgress": true},
            },
            "initializationOptions": {"reductio": {"checkOn": "change", "debounceMs": 0}},
        }),
        Duration::from_secs(60),
    );
    lsp.notify("initialized", json!({}));
    let deadline = t0 + opts.timeout;
    let mut titles: std::collections::HashMap<String, String> = Default::default();
    let mut indexed: Option<f64> = None;
    let mut rss_indexed = None;
    let mut first_diag: Option<(f64, String)> = None;
    let mut published = 0usize;
    let mut leaks = 0usize;
    let mut check_begun = false;
    let mut checked: Option<(f64, &str)> = None;
    let mut cpu = (lsp.cpu_ticks().unwrap_or(0), Instant::now());
    let idle_after = Duration::from_millis(2000);
    while checked.is_none() {
        if Instant::now() > deadline {
            eprintln!(
                "bench_lsp: the workspace check did not end within {:?}",
                opts.timeout
            );
            break;
        }
        let poll = (Instant::now() + Duration::from_millis(250)).min(deadline);
        match lsp.next_event(poll) {
            Some((at, Event::Progress { token, kind, title })) => {
                if let Some(t) = title {
                    titles.insert(token.clone(), t);
                }
                let title = titles.get(&token).map(String::as_str).unwrap_or_default();
                match (title, kind.as_str()) {
                    ("reductio: indexing", "end") => {
                        indexed = Some(ms(at - t0));
                        rss_indexed = lsp.proc_status("VmRSS:");
                    }
                    ("reductio: checking", "begin") => check_begun = true,
                    ("reductio: checking", "end") => checked = Some((ms(at - t0), "progress")),
                    _ => {}
                }
            }
            Some((at, Event::Diagnostics { uri, count, .. })) => {
                published += 1;
                leaks += count;
                if first_diag.is_none() && count > 0 {
                    first_diag = Some((ms(at - t0), uri));
                }
            }
            Some((_, Event::Closed)) => fail("the server exited while indexing"),
            None => {
                // Fewer files than the server reports check progress for: the check is over
                // when the server's CPU time stops growing.
                let now = lsp.cpu_ticks().unwrap_or(0);
                if now > cpu.0 + 1 {
                    cpu = (now, Instant::now());
                } else if indexed.is_some() && !check_begun && cpu.1.elapsed() >= idle_after {
                    checked = Some((ms(cpu.1 - t0), "cpu-idle"));
                }
            }
        }
    }
    let rss_checked = lsp.proc_status("VmRSS:");
    eprintln!(
        "bench_lsp: indexed at {:.0} ms, checked at {:.0} ms ({} leaks published)",
        indexed.unwrap_or(f64::NAN),
        checked.map_or(f64::NAN, |c| c.0),
        leaks
    );

    // 2. Edits.
    let uri = uri_of(&opts.file);
    let step = Duration::from_secs(600);
    let t = Instant::now();
    lsp.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "c", "version": 1, "text": text}}),
    );
    let open_ms = lsp.wait_diagnostics(&uri, 1, t, opts.timeout);
    let mut version = 1;
    let mut edit_series = |lsp: &mut Lsp, n: usize| -> Vec<f64> {
        let (line, col) = target.edit;
        (0..n)
            .map(|k| {
                version += 1;
                let (end, insert) = if k % 2 == 0 {
                    (col, " ")
                } else {
                    (col + 1, "")
                };
                let t = Instant::now();
                lsp.notify(
                    "textDocument/didChange",
                    json!({"textDocument": {"uri": uri, "version": version},
                           "contentChanges": [{"range": {"start": {"line": line, "character": col},
                                                         "end": {"line": line, "character": end}},
                                               "text": insert}]}),
                );
                lsp.wait_diagnostics(&uri, version, t, step)
            })
            .collect()
    };
    // An even count leaves the text as it was.
    let n = opts.edits + opts.edits % 2;
    let fast = edit_series(&mut lsp, n);
    eprintln!("bench_lsp: {n} edits at debounce 0 done");
    let default_n = opts.default_debounce_edits.unwrap_or(n);
    let default_n = default_n + default_n % 2;
    let slow = if default_n > 0 {
        // The same settings without `debounceMs`: the server's default debounce.
        lsp.notify(
            "workspace/didChangeConfiguration",
            json!({"settings": {"reductio": {"checkOn": "change"}}}),
        );
        let s = edit_series(&mut lsp, default_n);
        eprintln!("bench_lsp: {default_n} edits at the default debounce done");
        Some(s)
    } else {
        None
    };

    // 3. Saves with the default `checkOn = "save"`: a statement inserted after the edited one,
    // then removed, each followed by `didSave`.
    lsp.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"reductio": {}}}),
    );
    let save_n = opts.saves + opts.saves % 2;
    let (line, _) = target.edit;
    let indent: String = text
        .lines()
        .nth(line)
        .unwrap_or("")
        .chars()
        .take_while(|c| c.is_whitespace())
        .collect();
    let inserted = format!("{indent}free(0);\n");
    // A comment on top first, so that no text of the series equals the file on disk (the
    // server checks an edit that does at once, as a reload: that is not what is measured).
    version += 1;
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": version},
               "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                                   "text": "/* bench_lsp */\n"}]}),
    );
    let line = line + 1;
    let mut saves_complete = Vec::with_capacity(save_n);
    let saves: Vec<f64> = (0..save_n)
        .map(|k| {
            version += 1;
            let at = json!({"line": line + 1, "character": 0});
            let change = if k % 2 == 0 {
                json!({"range": {"start": at, "end": at}, "text": inserted})
            } else {
                json!({"range": {"start": at, "end": {"line": line + 2, "character": 0}}, "text": ""})
            };
            lsp.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}),
            );
            let t = Instant::now();
            lsp.notify("textDocument/didSave", json!({"textDocument": {"uri": uri}}));
            let first = lsp.wait_diagnostics(&uri, version, t, step);
            saves_complete.push(lsp.wait_last_diagnostics(&uri, version, t, first, Duration::from_secs(1)));
            first
        })
        .collect();
    eprintln!("bench_lsp: {save_n} saves done");

    // 4. Prove at every assignment.
    let mut sites = assignments(&text);
    let total_sites = sites.len();
    if let Some(limit) = opts.prove_limit.filter(|&l| l > 0 && l < sites.len()) {
        sites = (0..limit).map(|i| sites[i * total_sites / limit]).collect();
    }
    let mut prove_ms = Vec::with_capacity(sites.len());
    let (mut verdicts, mut errors) = (0usize, 0usize);
    for &(line, col) in &sites {
        let (r, d) = lsp.request(
            "reductio/prove",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": col}}),
            step,
        );
        match r["result"]["verdicts"].as_array() {
            Some(v) => verdicts += v.len(),
            None => errors += 1,
        }
        prove_ms.push(ms(d));
    }
    eprintln!("bench_lsp: {} prove requests done", sites.len());
    let rss_end = lsp.proc_status("VmRSS:");
    let peak = lsp.proc_status("VmHWM:");

    lsp.request("shutdown", Value::Null, Duration::from_secs(60));
    lsp.notify("exit", Value::Null);
    let waited = Instant::now();
    loop {
        match lsp.client.child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if waited.elapsed() < Duration::from_secs(15) => {
                std::thread::sleep(Duration::from_millis(50))
            }
            _ => {
                eprintln!("bench_lsp: the server did not exit after `exit`; killing it");
                let _ = lsp.client.child.kill();
                let _ = lsp.client.child.wait();
                break;
            }
        }
    }

    let out = json!({
        "tool": "bench_lsp",
        "server": opts.server.display().to_string(),
        "roots": opts.roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>(),
        "workspace": {
            "files": workspace_files.len(),
            "lines": workspace_lines,
            "indexing_done_ms": indexed,
            "first_diagnostics_ms": first_diag.as_ref().map(|d| d.0),
            "first_diagnostics_uri": first_diag.as_ref().map(|d| d.1.clone()),
            "check_done_ms": checked.map(|c| c.0),
            "check_done_signal": checked.map(|c| c.1),
            "publications": published,
            "leaks_published": leaks,
            "rss_after_indexing_kib": rss_indexed,
            "rss_after_check_kib": rss_checked,
        },
        "file": opts.file.display().to_string(),
        "file_lines": text.lines().count(),
        "open_to_diagnostics_ms": open_ms,
        "function": {
            "name": target.name,
            "line": target.line + 1,
            "lines": target.lines,
            "probes": target.probes,
            "edit_at": {"line": target.edit.0 + 1, "column": target.edit.1 + 1},
        },
        "edits_debounce_0": distribution(fast),
        "edits_debounce_default": slow.map(distribution),
        "saves": distribution(saves),
        "saves_complete": distribution(saves_complete),
        "prove": {
            "assignments": total_sites,
            "requests": sites.len(),
            "verdicts": verdicts,
            "errors": errors,
            "latency": distribution(prove_ms),
        },
        "rss_end_kib": rss_end,
        "peak_rss_kib": peak,
    });
    println!("{}", serde_json::to_string_pretty(&out).expect("JSON"));
}

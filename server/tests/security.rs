//! Security: what the language server may read, and that it runs nothing and opens no socket.
//!
//! The promise (README, "Security"): the server reads the `.c`/`.h` files under the workspace
//! folders (not following symbolic links out of them), `reductio.toml` at a folder's root,
//! the documents the client opens (their text comes from the client), and, for a document
//! opened outside every folder, the `.c`/`.h` files beside it. It runs no external process and
//! opens no socket, and no setting of `reductio.toml` or of the client can change that.
//!
//! Each test builds a workspace next to an "outside" directory holding a leaking file with a
//! unique name, points symbolic links and `..` paths at it, and checks that the server never
//! parses it (the database's `parse <file>` log) nor publishes diagnostics for it.

use reductio::lsp::Options;
use reductio::testing::framing::frame;
use reductio::testing::lsp_client::{Client, file_uri};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;

const LEAK: &str = "#include <stdlib.h>\nvoid f(void)\n{\n    char *p = malloc(4);\n}\n";

struct Layout {
    base: PathBuf,
    root: PathBuf,
    outside: PathBuf,
}

impl Drop for Layout {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

/// `base/root/ok.c` (leaks), `base/outside/secret.c` (leaks), plus what `setup` adds.
fn layout(name: &str) -> Layout {
    let base = std::env::temp_dir().join(format!("reductio-sec-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let root = base.join("root");
    let outside = base.join("outside");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(root.join("ok.c"), LEAK).unwrap();
    std::fs::write(outside.join("secret.c"), LEAK).unwrap();
    Layout {
        base,
        root,
        outside,
    }
}

fn symlink(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).expect("symlink");
}

/// Starts a server on `root` (with the execution log), waits for the diagnostics of
/// `root/ok.c`, runs `then`, lets the background work settle, and returns every file the
/// server parsed, every URI it published diagnostics for, and its `window/showMessage`s.
fn session(
    l: &Layout,
    then: impl AsyncFnOnce(&mut Client),
) -> (Vec<String>, Vec<String>, Vec<Value>) {
    let (log, published, messages) = session_log(l, then);
    let parsed = log
        .into_iter()
        .filter_map(|e| e.strip_prefix("parse ").map(String::from))
        .collect();
    (parsed, published, messages)
}

/// [`session`], with the whole execution log (`parse <file>`, `lower <function>`, queries).
fn session_log(
    l: &Layout,
    then: impl AsyncFnOnce(&mut Client),
) -> (Vec<String>, Vec<String>, Vec<Value>) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let ok_uri = file_uri(&l.root.join("ok.c"));
    let out = rt.block_on(async {
        let mut client = Client::start(Options {
            execution_log: true,
            ..Default::default()
        });
        client.initialize(Some(&l.root), false, json!({})).await;
        let first = client
            .wait_for(Duration::from_secs(30), |m| {
                m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == ok_uri
            })
            .await;
        assert!(first.is_some(), "no diagnostics for ok.c");
        then(&mut client).await;
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let log = client.handle.take_execution_log();
        let published: Vec<String> = client
            .notifications("textDocument/publishDiagnostics")
            .iter()
            .filter_map(|m| m["params"]["uri"].as_str().map(String::from))
            .collect();
        let messages = client.notifications("window/showMessage");
        client.shutdown().await;
        (log, published, messages)
    });
    rt.shutdown_timeout(Duration::from_secs(5));
    out
}

/// Nothing outside `root` (other than `allowed`) was parsed or got diagnostics.
fn assert_contained(l: &Layout, parsed: &[String], published: &[String], allowed: &[PathBuf]) {
    let root = l.root.canonicalize().unwrap();
    let ok = |p: &Path| {
        allowed.iter().any(|a| a == p)
            || p.canonicalize()
                .is_ok_and(|c| c.starts_with(&root) && !is_link_anywhere(p, &l.root))
    };
    for p in parsed {
        assert!(ok(Path::new(p)), "parsed a file it must not read: {p}");
    }
    for u in published {
        let path = u.strip_prefix("file://").unwrap_or(u);
        assert!(
            ok(Path::new(path)),
            "published diagnostics for a file it must not read: {u}"
        );
    }
    let secret = l.outside.join("secret.c");
    assert!(
        !parsed.iter().any(|p| p.ends_with("secret.c")),
        "read {}",
        secret.display()
    );
}

/// Whether some component of `p` below `root` is a symbolic link.
fn is_link_anywhere(p: &Path, root: &Path) -> bool {
    let Ok(rest) = p.strip_prefix(root) else {
        return false;
    };
    let mut cur = root.to_path_buf();
    for c in rest.components() {
        cur.push(c);
        if cur
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink())
        {
            return true;
        }
    }
    false
}

#[test]
fn indexing_does_not_follow_symbolic_links_out_of_the_workspace() {
    let l = layout("index");
    symlink(&l.outside.join("secret.c"), &l.root.join("link.c"));
    symlink(&l.outside, &l.root.join("linkdir"));
    let (parsed, published, _) = session(&l, async |_| {});
    assert!(
        parsed.iter().any(|p| p.ends_with("root/ok.c")),
        "{parsed:?}"
    );
    assert_contained(&l, &parsed, &published, &[]);
}

#[test]
fn watched_file_events_cannot_reach_outside_the_workspace() {
    let l = layout("watched");
    symlink(&l.outside.join("secret.c"), &l.root.join("link.c"));
    let dotdot = format!("{}/../outside/secret.c", l.root.display());
    let (parsed, published, _) = session(&l, async |c| {
        for uri in [
            format!("file://{dotdot}"),
            file_uri(&l.root.join("link.c")),
            file_uri(&l.outside.join("secret.c")),
        ] {
            for typ in [1, 2] {
                c.notify(
                    "workspace/didChangeWatchedFiles",
                    json!({"changes": [{"uri": uri, "type": typ}]}),
                )
                .await;
            }
        }
    });
    assert_contained(&l, &parsed, &published, &[]);
}

#[test]
fn a_reductio_toml_linked_from_outside_is_not_read() {
    let l = layout("toml");
    // A "configuration" whose content would be echoed in the error message if it were read.
    std::fs::write(l.outside.join("private.toml"), "TOP-SECRET = [\n").unwrap();
    symlink(
        &l.outside.join("private.toml"),
        &l.root.join("reductio.toml"),
    );
    let (_, _, messages) = session(&l, async |_| {});
    for m in &messages {
        assert!(
            !m.to_string().contains("TOP-SECRET"),
            "the linked configuration was read: {m}"
        );
    }
}

#[test]
fn a_file_opened_outside_the_workspace_brings_its_directory_but_not_links_out_of_it() {
    let l = layout("lone");
    let lone = l.base.join("lone");
    std::fs::create_dir_all(&lone).unwrap();
    std::fs::write(lone.join("sibling.c"), LEAK).unwrap();
    symlink(&l.outside.join("secret.c"), &lone.join("link.c"));
    let opened = lone.join("opened.c");
    let (parsed, published, _) = session(&l, async |c| {
        c.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": file_uri(&opened), "languageId": "c", "version": 1,
                   "text": LEAK}}),
        )
        .await;
    });
    // The opened document and its directory's regular C files are part of the analysis.
    assert!(
        parsed.iter().any(|p| p.ends_with("lone/sibling.c")),
        "{parsed:?}"
    );
    assert_contained(
        &l,
        &parsed,
        &published,
        &[opened.clone(), lone.join("sibling.c")],
    );
}

#[test]
fn a_closed_document_replaced_by_a_link_out_of_the_workspace_is_not_read_again() {
    let l = layout("close");
    // The secret has its own function name, so that reading it shows in the log.
    std::fs::write(
        l.outside.join("secret.c"),
        "#include <stdlib.h>\nvoid secret_fn(void)\n{\n    char *p = malloc(4);\n}\n",
    )
    .unwrap();
    let ok = l.root.join("ok.c");
    let uri = file_uri(&ok);
    let (log, _, _) = session_log(&l, async |c| {
        c.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "c", "version": 1, "text": LEAK}}),
        )
        .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        // While the document is open, the file on disk becomes a link out of the workspace;
        // closing the document goes back to the disk text, which must not be read now.
        std::fs::remove_file(&ok).unwrap();
        symlink(&l.outside.join("secret.c"), &ok);
        c.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    });
    assert!(
        !log.iter().any(|e| e.contains("secret_fn")),
        "read the file behind the link: {log:?}"
    );
}

/// The server's source has no API that starts processes or opens sockets.
#[test]
fn the_server_source_uses_no_process_or_network_api() {
    let forbidden = [
        "std::process::Command",
        "process::Command",
        "Command::new",
        "TcpStream",
        "TcpListener",
        "UdpSocket",
        "UnixStream",
        "UnixListener",
        "tokio::net",
        "tokio::process",
        "libc::",
    ];
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut stack = vec![src];
    let mut hits = Vec::new();
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&p).unwrap();
                for f in forbidden {
                    if text.contains(f) {
                        hits.push(format!("{}: {f}", p.display()));
                    }
                }
            }
        }
    }
    assert!(hits.is_empty(), "{hits:#?}");
}

/// `reductio serve` under strace: a whole session (indexing, checks, hover, prove, a quick
/// fix) makes no `execve` beyond its own start, no `socket`/`connect`/`bind`, opens nothing
/// for writing, and opens no file outside the workspace other than the system's (libraries,
/// /proc, /sys, /dev) and git's ignore configuration.
/// Skipped (with a message) where strace is missing or not permitted.
#[test]
fn reductio_serve_under_strace_runs_nothing_and_opens_no_socket() {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
    let ok = Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=none", "true"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        // Straight to stderr: libtest would swallow a `println!` of a passing test.
        let _ = writeln!(
            std::io::stderr(),
            "reductio_serve_under_strace_runs_nothing_and_opens_no_socket: SKIPPED, `strace` is \
             missing or may not trace here (install it: apt-get install strace)"
        );
        return;
    }
    let l = layout("strace");
    symlink(&l.outside.join("secret.c"), &l.root.join("link.c"));
    let trace = l.base.join("trace.txt");
    let mut child = Command::new("strace")
        .args([
            "-f",
            "-qq",
            "-e",
            "trace=execve,socket,connect,bind,open,openat",
        ])
        .arg("-o")
        .arg(&trace)
        .arg(env!("CARGO_BIN_EXE_reductio"))
        .arg("serve")
        .current_dir(&l.root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("strace reductio serve");
    let ok_uri = file_uri(&l.root.join("ok.c"));
    let msgs = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": null, "capabilities": {},
            "workspaceFolders": [{"uri": file_uri(&l.root), "name": "ws"}]}}),
        json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": ok_uri, "languageId": "c", "version": 1, "text": LEAK}}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": {
            "textDocument": {"uri": ok_uri}, "position": {"line": 3, "character": 10}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "reductio/prove", "params": {
            "textDocument": {"uri": ok_uri}, "position": {"line": 4, "character": 0}}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "textDocument/codeAction", "params": {
            "textDocument": {"uri": ok_uri},
            "range": {"start": {"line": 4, "character": 0}, "end": {"line": 4, "character": 1}},
            "context": {"diagnostics": []}}}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "shutdown", "params": null}),
        json!({"jsonrpc": "2.0", "method": "exit", "params": null}),
    ];
    let mut stdout = child.stdout.take().unwrap();
    let received = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let reader = {
        let received = received.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 {
                    break;
                }
                received
                    .lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        })
    };
    {
        let stdin = child.stdin.as_mut().unwrap();
        for m in &msgs {
            if m["method"] == "exit" {
                // `exit` only after the reply to `shutdown` (exit code 0).
                for _ in 0..200 {
                    if received.lock().unwrap().contains("\"id\":5") {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
            let _ = stdin.write_all(&frame(m));
            let _ = stdin.flush();
            if m["method"] == "textDocument/didOpen" {
                // Let indexing and the first checks run.
                std::thread::sleep(Duration::from_millis(1500));
            }
        }
    }
    drop(child.stdin.take());
    let status = child.wait().unwrap();
    let _ = reader.join();
    let out = received.lock().unwrap().clone();
    assert!(status.success(), "reductio serve exited with {status}");
    assert!(out.contains("\"id\":5"), "no reply to shutdown: {out}");
    let trace = std::fs::read_to_string(&trace).unwrap();
    let execs = trace.lines().filter(|l| l.contains("execve(")).count();
    assert_eq!(execs, 1, "processes started:\n{trace}");
    for call in ["socket(", "connect(", "bind("] {
        assert!(!trace.contains(call), "{call} in:\n{trace}");
    }
    let base = l.base.canonicalize().unwrap();
    for line in trace.lines().filter(|l| l.contains("open")) {
        let Some(path) = line.split('"').nth(1) else {
            continue;
        };
        let system = ["/lib", "/usr/lib", "/etc/ld.so", "/proc/", "/sys/", "/dev/"]
            .iter()
            .any(|p| path.starts_with(p));
        // Git's ignore configuration, read to honour `.gitignore` (patterns only).
        let git = path.ends_with("/.gitconfig")
            || path.ends_with("/.gitignore")
            || path.ends_with("/.ignore")
            || path.ends_with("/git/config")
            || path == "/etc/gitconfig"
            || path.ends_with("/git/ignore")
            || path.contains("/.git/");
        let inside = Path::new(path)
            .canonicalize()
            .map(|c| c.starts_with(base.join("root")))
            .unwrap_or(true); // a failed open of a missing file reads nothing
        assert!(
            system || git || inside || line.contains("ENOENT"),
            "opened outside the workspace: {line}"
        );
        assert!(!path.ends_with("secret.c"), "opened the secret: {line}");
        let writes = ["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC"]
            .iter()
            .any(|f| line.contains(f));
        assert!(!writes || path == "/dev/null", "opened for writing: {line}");
    }
}

//! "The memory assigned here" through the language server: hover, `reductio/prove` and
//! `reductio.proveNoLeak` at an allocation answer both questions, labelled — the value the
//! assignment overwrites (its probe) and the block it assigns (where that block can be lost,
//! with the verdict there). Spoken to over the in-process test client, as in `tests/lsp.rs`.

use reductio::lsp::Options;
use reductio::testing::lsp_client::{Client, file_uri};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// A fresh workspace directory holding one fixture, removed when the test is done.
struct Workspace(PathBuf);

impl Drop for Workspace {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn workspace(name: &str, file: &str, text: &str) -> Workspace {
    let dir = std::env::temp_dir().join(format!(
        "reductio-lsp-assigned-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(file), text).unwrap();
    Workspace(dir)
}

fn fixture(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../test-fixtures/idioms")
        .join(name);
    std::fs::read_to_string(p).unwrap()
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// The hover at `pos` of the document `uri`.
async fn hover(c: &mut Client, uri: &impl serde::Serialize, pos: &Value) -> Value {
    c.call(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": pos}),
    )
    .await
    .unwrap()
}

#[test]
fn at_the_allocation_hover_and_prove_name_the_leak_of_the_block_allocated_there() {
    rt().block_on(async {
        let src = fixture("error-path-leak.c");
        let ws = workspace("leak", "e.c", &src);
        let path = ws.0.join("e.c");
        let mut c = Client::start(Options::default());
        c.initialize(Some(ws.0.as_path()), false, Value::Null).await;
        c.open(&path, &src).await;
        c.diagnostics_for_version(&path, 1).await;
        let uri = file_uri(&path);
        let pos = c.pos(&src, "copy = malloc", 2);

        // Hover: both parts, labelled; the assigned block leaks at line 25, with its trace.
        let h = hover(&mut c, &uri, &pos).await;
        let text = h["contents"]["value"].as_str().unwrap();
        let overwritten = text.find("**The value overwritten here:**").expect(text);
        let assigned = text.find("**The memory assigned here:**").expect(text);
        assert!(overwritten < assigned, "{text}");
        let (before, after) = text.split_at(assigned);
        assert!(before.contains("proved leak-free"), "{text}");
        assert!(
            after.contains("`copy` (line 21): leaks at line 25"),
            "{text}"
        );
        assert!(
            after.contains("- line 25: `copy` goes out of scope: leaks"),
            "{text}"
        );
        assert!(
            after.contains("1. line 21: allocated by `malloc`"),
            "{text}"
        );
        assert!(after.contains("- line 30: freed (`free(copy)`)"), "{text}");

        // `reductio/prove`: the verdicts as before, plus `assigned`.
        let r = c
            .call(
                "reductio/prove",
                json!({"textDocument": {"uri": uri}, "position": pos}),
            )
            .await
            .unwrap();
        assert_eq!(r["verdicts"][0]["verdict"], "proved", "{r:#}");
        let a = &r["assigned"][0];
        assert_eq!(a["verdict"], "leak", "{r:#}");
        assert_eq!(a["summary"], "leaks at line 25");
        assert_eq!(a["variable"], "copy");
        let kinds: Vec<(u64, &str)> = a["paths"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p["line"].as_u64().unwrap(), p["kind"].as_str().unwrap()))
            .collect();
        assert_eq!(kinds, [(22, "null"), (25, "leak"), (30, "freed")]);
        assert_eq!(a["paths"][1]["allocated_here"], true);
        assert_eq!(a["paths"][1]["finding"]["verdict"], "leak");

        // The command answers the same, and shows both parts; a leak makes it a warning.
        let via_command = c
            .call(
                "workspace/executeCommand",
                json!({"command": "reductio.proveNoLeak", "arguments": [uri, pos]}),
            )
            .await
            .unwrap();
        assert_eq!(via_command, r);
        let shown = c
            .expect_message("showMessage", |m| m["method"] == "window/showMessage")
            .await;
        let msg = shown["params"]["message"].as_str().unwrap();
        assert!(msg.contains("The value overwritten here:\n"), "{msg}");
        assert!(
            msg.contains("The memory assigned here:\n`copy` (line 21): leaks at line 25"),
            "{msg}"
        );
        assert_eq!(shown["params"]["type"], 2, "a warning: {shown:#}");

        // At the return: its probe, and "no assignment here".
        let ret = c.pos(&src, "return -1;                              // expect", 2);
        let h = hover(&mut c, &uri, &ret).await;
        let text = h["contents"]["value"].as_str().unwrap();
        assert!(
            text.contains("**The memory assigned here:**\nno assignment here"),
            "{text}"
        );
        let r = c
            .call(
                "reductio/prove",
                json!({"textDocument": {"uri": uri}, "position": ret}),
            )
            .await
            .unwrap();
        assert_eq!(r["assigned"], json!([]));
        // Nowhere near a probe or an assignment: no hover, and an empty answer.
        let blank = json!({"line": 0, "character": 0});
        let h = hover(&mut c, &uri, &blank).await;
        assert!(h.is_null(), "{h:#}");
        let r = c
            .call(
                "reductio/prove",
                json!({"textDocument": {"uri": uri}, "position": blank}),
            )
            .await
            .unwrap();
        assert_eq!(r, json!({"verdicts": [], "assigned": []}));
        c.shutdown().await;
    });
}

#[test]
fn at_a_proved_allocation_hover_lists_where_the_block_is_freed() {
    rt().block_on(async {
        let src = fixture("error-path-ok.c");
        let ws = workspace("ok", "o.c", &src);
        let path = ws.0.join("o.c");
        let mut c = Client::start(Options::default());
        c.initialize(Some(ws.0.as_path()), true, Value::Null).await;
        c.open(&path, &src).await;
        c.diagnostics_for_version(&path, 1).await;
        let uri = file_uri(&path);
        let pos = c.pos(&src, "copy = malloc", 0);
        let h = hover(&mut c, &uri, &pos).await;
        let text = h["contents"]["value"].as_str().unwrap();
        assert!(
            text.contains("`copy` (line 20): never leaks: freed at lines 24, 31; NULL at line 21"),
            "{text}"
        );
        c.shutdown().await;
    });
}

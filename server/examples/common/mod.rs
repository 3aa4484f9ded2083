//! What the benchmark examples share (`mod common;` in each): percentiles, the choice of
//! the function an editor benchmark edits, so that `bench_lsp` (through the server) and
//! `bench_edit` (in process) edit the same place, and [`stdio_client`], the LSP client that
//! drives `reductio serve` over stdio (`bench_lsp`, `lsp_latency`).
#![allow(dead_code)] // each example uses a part

pub mod stdio_client;

use reductio::db::{self, Database, Db};
use std::path::Path;

/// Nearest-rank percentile of sorted values.
pub fn percentile<T: Copy + Default>(sorted: &[T], p: f64) -> T {
    if sorted.is_empty() {
        return T::default();
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The function an editor benchmark edits (the one asked for, or the one with the most probes
/// among those of at most 300 lines), and where: before the `;` of the statement line in the
/// middle of its body.
pub struct Target {
    pub name: String,
    /// 0-based line of the function's first line, and its line count.
    pub line: usize,
    pub lines: usize,
    pub probes: usize,
    /// Where the space goes: 0-based line and byte column (before a statement's `;`).
    pub edit: (usize, usize),
}

/// Picks the function to edit, with the file alone in a database (probe sites do not depend
/// on other files' bodies).
pub fn pick_target(path: &Path, text: &str, wanted: Option<&str>) -> Result<Target, String> {
    let mut database = Database::default();
    let file = database.add_file(path.to_path_buf(), text.to_string());
    let d: &dyn Db = &database;
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line_of = |off: usize| line_starts.partition_point(|&s| s <= off) - 1;
    let mut best: Option<Target> = None;
    for f in db::file_functions(d, file) {
        let name = f.name(d).to_string();
        if wanted.is_some_and(|w| w != name) {
            continue;
        }
        let start = f.start(d) as usize;
        let end = start + f.source(d).text.len();
        let (first, last) = (line_of(start), line_of(end.saturating_sub(1)));
        let lines = last - first + 1;
        let probes = db::function_probes(d, *f).len();
        if wanted.is_none() && lines > 300 {
            continue;
        }
        if best.as_ref().is_some_and(|b| b.probes >= probes) {
            continue;
        }
        // Statement lines strictly inside the body.
        let statements: Vec<(usize, usize)> = (first + 1..last)
            .filter_map(|l| {
                let s =
                    &text[line_starts[l]..line_starts.get(l + 1).copied().unwrap_or(text.len())];
                let t = s.trim_end();
                let trimmed = t.trim_start();
                let code = !trimmed.starts_with("//")
                    && !trimmed.starts_with('*')
                    && !trimmed.starts_with("/*")
                    && !trimmed.starts_with('#');
                (code && t.ends_with(';')).then(|| (l, t.len() - 1))
            })
            .collect();
        let Some(&edit) = statements.get(statements.len() / 2) else {
            continue;
        };
        best = Some(Target {
            name,
            line: first,
            lines,
            probes,
            edit,
        });
    }
    best.ok_or_else(|| match wanted {
        Some(w) => format!(
            "no function `{w}` with a statement line in {}",
            path.display()
        ),
        None => format!("no function to edit in {}", path.display()),
    })
}

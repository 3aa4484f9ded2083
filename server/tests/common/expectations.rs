//! The `// expect:` annotations of the fixtures (convention: test-fixtures/README.md), shared
//! by the tests that read them (`fixtures.rs`, `paper_inputs.rs`).

use reductio::db::VerdictKind;

#[derive(Debug, Clone)]
pub struct Expect {
    pub line: u32,
    pub verdict: VerdictKind,
    /// Variable for leaks, reason for unproved.
    pub what: String,
}

/// Whether the fixture is in `// mode: strict`, and its expectations in file order.
pub fn parse_expectations(text: &str) -> (bool, Vec<Expect>) {
    let strict = text.lines().take(5).any(|l| l.trim() == "// mode: strict");
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some(pos) = line.find("// expect:") else {
            continue;
        };
        for part in line[pos + "// expect:".len()..].split(';') {
            let mut words = part.split_whitespace();
            let verdict = match words.next() {
                Some("leak") => VerdictKind::Leak,
                Some("unproved") => VerdictKind::Unproved,
                Some("proved") => VerdictKind::Proved,
                _ => continue,
            };
            out.push(Expect {
                line: i as u32 + 1,
                verdict,
                what: words.collect::<Vec<_>>().join(" "),
            });
        }
    }
    (strict, out)
}

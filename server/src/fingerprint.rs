//! Stable identities of findings, for baselines and code scanning (issue 20), and the stable
//! hash that picks a function's shard.
//!
//! A fingerprint hashes what a finding *is*, not where it is: the function, the variable, the
//! probe kind, the probed statement's text with its whitespace collapsed, and an occurrence
//! index that tells apart identical statements of one function. No line or column goes in, so
//! inserting lines above a finding, or reindenting it, leaves its fingerprint unchanged.

use crate::db::Finding;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The key of reductio's fingerprint in SARIF `partialFingerprints` (versioned: a change of the
/// recipe changes the key, so old baselines do not silently match the wrong findings).
pub const SARIF_KEY: &str = "reductio/v1";

/// FNV-1a (64 bits) over the parts, each followed by a 0xFF byte (never in UTF-8 text). The
/// standard library's hashers are neither stable across releases nor across platforms.
pub fn stable_hash(parts: &[&str]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut h = OFFSET;
    for part in parts {
        for b in part.bytes().chain(std::iter::once(0xff)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(PRIME);
        }
    }
    h
}

/// The text with every run of whitespace (line breaks included) collapsed to one space.
pub fn normalize(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The probed statement's text: the finding's byte range in its file, clamped to char
/// boundaries (a range past the text gives the empty string).
pub fn statement_text<'t>(f: &Finding, text: &'t str) -> &'t str {
    let floor = |i: u32| {
        let mut i = (i as usize).min(text.len());
        while i > 0 && !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let (s, e) = (floor(f.loc.range.start), floor(f.loc.range.end));
    &text[s..e.max(s)]
}

/// The fingerprints of `findings`, in order. Give every probe of a function (any verdict) in
/// source order, as `batch::run_probes` returns them: the occurrence index counts the earlier
/// probes of the same function with the same variable, kind and statement text.
pub fn fingerprints<'t>(
    findings: &[&Finding],
    text_of: &dyn Fn(&Path) -> Option<&'t str>,
) -> Vec<String> {
    let mut seen: HashMap<(PathBuf, String, String, &'static str, String), u32> = HashMap::new();
    findings
        .iter()
        .map(|f| {
            let stmt = text_of(&f.loc.file)
                .map(|t| normalize(statement_text(f, t)))
                .unwrap_or_default();
            let key = (
                f.loc.file.clone(),
                f.loc.function.clone(),
                f.variable.clone(),
                f.probe.as_str(),
                stmt,
            );
            let n = seen.entry(key.clone()).or_insert(0);
            let occurrence = *n;
            *n += 1;
            let h = stable_hash(&[&key.1, &key.2, key.3, &key.4, &occurrence.to_string()]);
            format!("{h:016x}")
        })
        .collect()
}

/// A file's path as the shard hash and the reports spell it: `/` separators, no leading `./`.
pub fn path_key(path: &Path) -> String {
    let s = path.to_string_lossy().replace('\\', "/");
    let mut t = s.as_str();
    while let Some(rest) = t.strip_prefix("./") {
        t = rest;
    }
    t.to_string()
}

/// The shard (1-based, of `count`) whose run probes `function` of `file`: a stable hash of the
/// file's path (as given on the command line) and the function's name, so the split does not
/// depend on the order of files or functions, on the machine, or on the release.
pub fn shard_of(file: &Path, function: &str, count: u32) -> u32 {
    let count = count.max(1);
    (stable_hash(&[&path_key(file), function]) % u64::from(count)) as u32 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_fixed() {
        // FNV-1a test vectors: the empty input, and "a" (here each part gets its 0xFF).
        assert_eq!(stable_hash(&[]), 0xcbf2_9ce4_8422_2325);
        assert_ne!(stable_hash(&["ab", "c"]), stable_hash(&["a", "bc"]));
        assert_eq!(stable_hash(&["x", "y"]), stable_hash(&["x", "y"]));
    }

    #[test]
    fn normalizing_collapses_whitespace_only() {
        assert_eq!(normalize("  p =\n\t malloc( 4 );  "), "p = malloc( 4 );");
        assert_ne!(normalize("p = q;"), normalize("p=q;"));
    }

    #[test]
    fn shards_cover_every_function_once_and_are_spread() {
        let names: Vec<String> = (0..300).map(|i| format!("f{i}")).collect();
        let mut counts = [0u32; 3];
        for n in &names {
            let s = shard_of(Path::new("./src/a.c"), n, 3);
            assert_eq!(s, shard_of(Path::new("src/a.c"), n, 3));
            counts[(s - 1) as usize] += 1;
        }
        assert!(counts.iter().all(|&c| c > 60), "{counts:?}");
        assert_eq!(shard_of(Path::new("a.c"), "f", 1), 1);
    }
}

//! Baselines (issue 20): a previous report (`check --format json` or `--format sarif`, or a
//! file written by `--write-baseline`), read as the fingerprints of its findings; `check
//! --baseline OLD` then reports only the findings whose fingerprint is not in it.
//!
//! Matching is by multiset: a baseline with one finding of fingerprint F matches one current
//! finding of fingerprint F, so a second, new copy of the same statement is still reported.
//! Only the baseline's findings of the verdicts the run lists are compared (unproved ones only
//! with `--all`), and with `--shard I/N` only those of the shard's functions, so that the shards'
//! counts add up to the unsharded run's.

use crate::batch::Shard;
use crate::fingerprint::{SARIF_KEY, shard_of};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// One finding of a baseline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub fingerprint: String,
    /// `leak` or `unproved`.
    pub verdict: String,
    pub file: String,
    pub function: String,
}

/// Read a baseline: a reductio JSON report or SARIF log.
pub fn load(path: &Path) -> Result<Vec<Entry>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read baseline {}: {e}", path.display()))?;
    let v: Value = serde_json::from_str(&text)
        .map_err(|e| format!("baseline {} is not JSON: {e}", path.display()))?;
    parse(&v).map_err(|e| format!("baseline {}: {e}", path.display()))
}

/// The findings of a parsed JSON report or SARIF log.
pub fn parse(v: &Value) -> Result<Vec<Entry>, String> {
    let s = |v: &Value| v.as_str().map(str::to_string);
    if let Some(findings) = v.get("findings").and_then(Value::as_array) {
        return findings
            .iter()
            .map(|f| {
                Ok(Entry {
                    fingerprint: s(&f["fingerprint"]).ok_or(
                        "a finding has no `fingerprint` (a report of an older reductio?): \
                         write the baseline again with --write-baseline",
                    )?,
                    verdict: s(&f["verdict"]).unwrap_or_default(),
                    file: s(&f["file"]).unwrap_or_default(),
                    function: s(&f["function"]).unwrap_or_default(),
                })
            })
            .collect();
    }
    if let Some(runs) = v.get("runs").and_then(Value::as_array) {
        let mut out = Vec::new();
        for run in runs {
            for r in run["results"].as_array().into_iter().flatten() {
                // A suppressed result is not a finding.
                if r["suppressions"].as_array().is_some_and(|a| !a.is_empty()) {
                    continue;
                }
                let fingerprint = s(&r["partialFingerprints"][SARIF_KEY]).ok_or_else(|| {
                    format!("a result has no partialFingerprints[\"{SARIF_KEY}\"]")
                })?;
                let rule = r["ruleId"].as_str().unwrap_or("");
                out.push(Entry {
                    fingerprint,
                    verdict: rule.strip_prefix("reductio/").unwrap_or(rule).to_string(),
                    file: s(&r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
                        .unwrap_or_default(),
                    function: s(&r["properties"]["function"]).unwrap_or_default(),
                });
            }
        }
        return Ok(out);
    }
    Err("neither a reductio JSON report (`findings`) nor a SARIF log (`runs`)".into())
}

/// The outcome of comparing a run with a baseline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparison {
    /// For each candidate, in order: whether the baseline has it.
    pub in_baseline: Vec<bool>,
    pub matched: usize,
    /// Baseline findings no current finding matched (fixed, or their code changed).
    pub disappeared: usize,
}

/// Compare candidates `(fingerprint, verdict)` with the baseline entries that the run could
/// have reported: verdicts in `verdicts`, and functions of `shard`.
pub fn compare(
    entries: &[Entry],
    candidates: &[(&str, &str)],
    verdicts: &[&str],
    shard: Option<Shard>,
) -> Comparison {
    let mut left: HashMap<&str, usize> = HashMap::new();
    for e in entries {
        if !verdicts.contains(&e.verdict.as_str()) {
            continue;
        }
        if let Some(s) = shard
            && shard_of(Path::new(&e.file), &e.function, s.count) != s.index
        {
            continue;
        }
        *left.entry(e.fingerprint.as_str()).or_insert(0) += 1;
    }
    let mut matched = 0;
    let in_baseline = candidates
        .iter()
        .map(|(fp, _)| match left.get_mut(fp) {
            Some(n) if *n > 0 => {
                *n -= 1;
                matched += 1;
                true
            }
            _ => false,
        })
        .collect();
    Comparison {
        in_baseline,
        matched,
        disappeared: left.values().sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(fp: &str, verdict: &str) -> Entry {
        Entry {
            fingerprint: fp.into(),
            verdict: verdict.into(),
            file: "a.c".into(),
            function: "f".into(),
        }
    }

    #[test]
    fn matching_is_a_multiset_and_counts_what_disappeared() {
        let base = [
            entry("A", "leak"),
            entry("B", "leak"),
            entry("C", "unproved"),
        ];
        let c = compare(
            &base,
            &[("A", "leak"), ("A", "leak"), ("D", "leak")],
            &["leak"],
            None,
        );
        assert_eq!(c.in_baseline, [true, false, false]);
        assert_eq!((c.matched, c.disappeared), (1, 1));
        // With unproved findings listed, C counts too.
        let c = compare(&base, &[], &["leak", "unproved"], None);
        assert_eq!(c.disappeared, 3);
    }

    #[test]
    fn a_report_without_fingerprints_or_of_another_shape_is_an_error() {
        let old = serde_json::json!({"findings": [{"verdict": "leak"}]});
        assert!(parse(&old).unwrap_err().contains("write-baseline"));
        assert!(parse(&serde_json::json!({"x": 1})).is_err());
        let sarif = serde_json::json!({"runs": [{"results": [
            {"ruleId": "reductio/leak", "partialFingerprints": {"reductio/v1": "ab"}},
            {"ruleId": "reductio/leak", "partialFingerprints": {"reductio/v1": "cd"},
             "suppressions": [{"kind": "inSource"}]}
        ]}]});
        let e = parse(&sarif).unwrap();
        assert_eq!(e.len(), 1);
        assert_eq!(
            (e[0].fingerprint.as_str(), e[0].verdict.as_str()),
            ("ab", "leak")
        );
    }
}

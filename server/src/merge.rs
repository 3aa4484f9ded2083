//! `reductio merge`: the reports of `check --shard 1/N` … `N/N` put back together into the
//! report the unsharded `check` writes (issue 20). JSON reports merge into JSON, SARIF logs into
//! SARIF; the shards must be one complete set (each index of one count exactly once).
//!
//! JSON: the summaries add up (`files` is the same in every shard, since each loads every file;
//! `elapsed_ms` is the slowest shard's, the wall time of a parallel matrix), findings and
//! suppressed reports are sorted as `check` sorts them, baseline counts add up (each shard
//! compares only its own functions), and an unused suppression is one no shard used.

use crate::batch::Shard;
use crate::report;
use serde_json::{Value, json};

/// Which kind of report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Json,
    Sarif,
}

/// The merged report and whether it lists a leak (the exit status).
pub struct Merged {
    pub kind: Kind,
    pub report: Value,
    pub has_leaks: bool,
}

fn kind_of(v: &Value) -> Option<Kind> {
    if v.get("findings").is_some() {
        Some(Kind::Json)
    } else if v.get("runs").is_some() {
        Some(Kind::Sarif)
    } else {
        None
    }
}

fn shard_of(v: &Value, kind: Kind) -> Option<Shard> {
    let s = match kind {
        Kind::Json => &v["shard"],
        Kind::Sarif => &v["runs"][0]["properties"]["reductio"]["shard"],
    };
    Some(Shard {
        index: u32::try_from(s["index"].as_u64()?).ok()?,
        count: u32::try_from(s["count"].as_u64()?).ok()?,
    })
}

/// Merge parsed reports, `(name, report)` (names for error messages).
pub fn merge(inputs: &[(String, Value)]) -> Result<Merged, String> {
    let Some((_, first)) = inputs.first() else {
        return Err("merge needs the shard reports to merge".into());
    };
    let kind = kind_of(first).ok_or_else(|| {
        format!(
            "{} is neither a reductio JSON report nor a SARIF log",
            inputs[0].0
        )
    })?;
    let mut seen: Vec<Option<&str>> = Vec::new();
    let mut count = None;
    for (name, v) in inputs {
        if kind_of(v) != Some(kind) {
            return Err(format!(
                "{name} is not a {} report like {}: merge reports of one format",
                if kind == Kind::Json { "JSON" } else { "SARIF" },
                inputs[0].0
            ));
        }
        let s = shard_of(v, kind).ok_or_else(|| {
            format!("{name} is not the report of a shard (made with `check --shard I/N`)")
        })?;
        if s.index == 0 || s.index > s.count {
            return Err(format!("{name}: bad shard {}/{}", s.index, s.count));
        }
        match count {
            None => {
                count = Some(s.count);
                seen = vec![None; s.count as usize];
            }
            Some(n) if n != s.count => {
                return Err(format!(
                    "{name} is shard {}/{} but {} is of {n} shards",
                    s.index, s.count, inputs[0].0
                ));
            }
            Some(_) => {}
        }
        let slot = &mut seen[(s.index - 1) as usize];
        if let Some(other) = slot {
            return Err(format!("{name} and {other} are both shard {}", s.index));
        }
        *slot = Some(name.as_str());
    }
    let missing: Vec<String> = seen
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_none())
        .map(|(i, _)| format!("{}/{}", i + 1, seen.len()))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "shard{} {} missing: the merge would not be the whole result",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", ")
        ));
    }
    match kind {
        Kind::Json => merge_json(inputs),
        Kind::Sarif => merge_sarif(inputs),
    }
}

fn array<'a>(v: &'a Value, key: &str) -> impl Iterator<Item = &'a Value> {
    v[key].as_array().into_iter().flatten()
}

fn merge_json(inputs: &[(String, Value)]) -> Result<Merged, String> {
    let (first_name, first) = &inputs[0];
    if first["version"] != json!(1) {
        return Err(format!("{first_name}: unknown report version"));
    }
    let mut summary = first["summary"].clone();
    let files = &first["summary"]["files"];
    let add = |a: &Value, b: &Value| json!(a.as_u64().unwrap_or(0) + b.as_u64().unwrap_or(0));
    for (name, v) in &inputs[1..] {
        if v["version"] != json!(1) {
            return Err(format!("{name}: unknown report version"));
        }
        let s = &v["summary"];
        if &s["files"] != files {
            return Err(format!(
                "{name} checked {} files but {first_name} checked {}: shards must check the \
                 same paths",
                s["files"], files
            ));
        }
        for k in ["functions", "probes", "proved", "leaks", "unproved"] {
            summary[k] = add(&summary[k], &s[k]);
        }
        let slowest = summary["elapsed_ms"]
            .as_u64()
            .unwrap_or(0)
            .max(s["elapsed_ms"].as_u64().unwrap_or(0));
        summary["elapsed_ms"] = json!(slowest);
    }
    let baseline = match inputs
        .iter()
        .filter(|(_, v)| v.get("baseline").is_some())
        .count()
    {
        0 => None,
        n if n == inputs.len() => {
            let file = first["baseline"]["file"].clone();
            let mut b = report::BaselineCounts {
                file: file.as_str().unwrap_or("").to_string(),
                matched: 0,
                disappeared: 0,
            };
            for (name, v) in inputs {
                if v["baseline"]["file"] != file {
                    return Err(format!("{name} was compared with another baseline"));
                }
                b.matched += v["baseline"]["matched"].as_u64().unwrap_or(0) as usize;
                b.disappeared += v["baseline"]["disappeared"].as_u64().unwrap_or(0) as usize;
            }
            Some(b)
        }
        _ => return Err("some shards were compared with a baseline and some not".into()),
    };
    let unused = match inputs
        .iter()
        .filter(|(_, v)| v.get("unused_suppressions").is_some())
        .count()
    {
        0 => None,
        n if n == inputs.len() => Some(
            array(first, "unused_suppressions")
                .filter(|u| {
                    inputs[1..]
                        .iter()
                        .all(|(_, v)| array(v, "unused_suppressions").any(|w| w == *u))
                })
                .cloned()
                .collect::<Vec<_>>(),
        ),
        _ => {
            return Err(
                "some shards were run with --report-unused-suppressions and some not".into(),
            );
        }
    };
    let findings: Vec<Value> = inputs
        .iter()
        .flat_map(|(_, v)| array(v, "findings"))
        .cloned()
        .collect();
    let suppressed: Vec<Value> = inputs
        .iter()
        .flat_map(|(_, v)| array(v, "suppressed"))
        .cloned()
        .collect();
    let has_leaks = findings.iter().any(|f| f["verdict"] == "leak");
    Ok(Merged {
        kind: Kind::Json,
        report: report::assemble_json(
            summary,
            None,
            baseline.as_ref(),
            findings,
            suppressed,
            unused,
        ),
        has_leaks,
    })
}

fn merge_sarif(inputs: &[(String, Value)]) -> Result<Merged, String> {
    let mut results = Vec::new();
    for (name, v) in inputs {
        let runs = v["runs"].as_array().map_or(0, Vec::len);
        if runs != 1 {
            return Err(format!("{name} has {runs} runs: a reductio log has one"));
        }
        results.extend(array(&v["runs"][0], "results").cloned());
    }
    let has_leaks = results.iter().any(|r| {
        r["ruleId"] == "reductio/leak" && r["suppressions"].as_array().is_none_or(|a| a.is_empty())
    });
    Ok(Merged {
        kind: Kind::Sarif,
        report: report::assemble_sarif(results, None),
        has_leaks,
    })
}

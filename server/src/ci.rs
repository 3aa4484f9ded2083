//! What `check` adds for teams and CI on top of the probes' findings (issue 20): fingerprints,
//! suppressions (comments and `[[suppress]]`), the baseline comparison, and the reports that
//! `merge` can put back together from shards.

use crate::baseline;
use crate::batch::Shard;
use crate::config::SuppressRule;
use crate::db::{Finding, VerdictKind};
use crate::report::{self, BaselineCounts, Entry, Summary};
use crate::suppress::{Suppression, Suppressions};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The team options of a `check` run.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// List unproved probes too (`--all`).
    pub all: bool,
    pub shard: Option<Shard>,
    /// `--baseline FILE`.
    pub baseline: Option<PathBuf>,
    /// `--report-unused-suppressions`.
    pub report_unused: bool,
}

/// A listed finding (leak, or unproved with `--all`) with its identity.
#[derive(Clone)]
pub struct Item {
    pub finding: Arc<Finding>,
    pub fingerprint: String,
    pub suppression: Option<Suppression>,
}

impl Item {
    pub fn entry(&self) -> Entry<'_> {
        Entry {
            finding: &self.finding,
            fingerprint: &self.fingerprint,
            suppression: self.suppression.as_ref(),
        }
    }
}

/// A run's findings sorted out.
pub struct Triage {
    /// Listed, not suppressed, not in the baseline: the report (and the exit code).
    pub reported: Vec<Item>,
    /// Listed and not suppressed, before the baseline: what `--write-baseline` writes.
    pub in_baseline: Vec<Item>,
    pub suppressed: Vec<Item>,
    /// With `--report-unused-suppressions`.
    pub unused: Option<Vec<Suppression>>,
    pub baseline: Option<BaselineCounts>,
    /// Malformed suppression comments (`file:line: message`).
    pub warnings: Vec<String>,
    pub shard: Option<Shard>,
}

/// Sort out `findings` (every probe of the probed functions, in source order, as
/// `batch::run_probes` returns them). `texts` are the loaded files, in load order.
pub fn triage(
    findings: &[Arc<Finding>],
    texts: &[(PathBuf, &str)],
    rules: &[SuppressRule],
    opts: &Options,
) -> Result<Triage, String> {
    let refs: Vec<&Finding> = findings.iter().map(|f| f.as_ref()).collect();
    let by_path: HashMap<&Path, &str> = texts.iter().map(|(p, t)| (p.as_path(), *t)).collect();
    let text_of = |p: &Path| by_path.get(p).copied();
    let fps = crate::fingerprint::fingerprints(&refs, &text_of);
    let mut sup = Suppressions::new(rules);
    let mut warnings = Vec::new();
    for (path, text) in texts {
        for e in sup.add_file(path, text) {
            warnings.push(format!(
                "{}:{}: ignored suppression: {}",
                path.display(),
                e.line,
                e.message
            ));
        }
    }
    let mut listed = Vec::new();
    let mut suppressed = Vec::new();
    for (f, fp) in findings.iter().zip(fps) {
        // Suppressions are matched against every report, listed or not, so whether one is
        // used does not depend on `--all`.
        let suppression = sup.check(f);
        if !report::listed(f, opts.all) {
            continue;
        }
        let item = Item {
            finding: f.clone(),
            fingerprint: fp,
            suppression,
        };
        if item.suppression.is_some() {
            suppressed.push(item);
        } else {
            listed.push(item);
        }
    }
    sort(&mut listed);
    sort(&mut suppressed);
    let (reported, baseline) = match &opts.baseline {
        None => (listed.clone(), None),
        Some(path) => {
            let entries = baseline::load(path)?;
            let candidates: Vec<(&str, &str)> = listed
                .iter()
                .map(|i| (i.fingerprint.as_str(), i.finding.verdict.as_str()))
                .collect();
            let verdicts: &[&str] = if opts.all {
                &["leak", "unproved"]
            } else {
                &["leak"]
            };
            let c = baseline::compare(&entries, &candidates, verdicts, opts.shard);
            let reported = listed
                .iter()
                .zip(&c.in_baseline)
                .filter(|(_, old)| !**old)
                .map(|(i, _)| i.clone())
                .collect();
            let counts = BaselineCounts {
                file: crate::fingerprint::path_key(path),
                matched: c.matched,
                disappeared: c.disappeared,
            };
            (reported, Some(counts))
        }
    };
    Ok(Triage {
        reported,
        in_baseline: listed,
        suppressed,
        unused: opts.report_unused.then(|| sup.unused()),
        baseline,
        warnings,
        shard: opts.shard,
    })
}

/// The reports' order (`report::json_order`), each entry's JSON built once.
fn sort(items: &mut Vec<Item>) {
    let mut keyed: Vec<(Value, Item)> = items
        .drain(..)
        .map(|i| (report::entry_json(&i.entry()), i))
        .collect();
    keyed.sort_by(|a, b| report::json_order(&a.0, &b.0));
    items.extend(keyed.into_iter().map(|(_, i)| i));
}

impl Triage {
    /// Exit status 1: a leak is reported (suppressed and baseline leaks do not count).
    pub fn has_leaks(&self) -> bool {
        self.reported
            .iter()
            .any(|i| i.finding.verdict == VerdictKind::Leak)
    }

    /// `check --format json`.
    pub fn json(&self, summary: &Summary) -> Value {
        self.json_of(summary, &self.reported, self.baseline.as_ref())
    }

    /// What `--write-baseline` writes: the JSON report before the baseline comparison.
    pub fn baseline_json(&self, summary: &Summary) -> Value {
        self.json_of(summary, &self.in_baseline, None)
    }

    fn json_of(&self, summary: &Summary, items: &[Item], b: Option<&BaselineCounts>) -> Value {
        report::assemble_json(
            report::summary_json(summary),
            self.shard,
            b,
            items
                .iter()
                .map(|i| report::entry_json(&i.entry()))
                .collect(),
            self.suppressed
                .iter()
                .map(|i| report::entry_json(&i.entry()))
                .collect(),
            self.unused
                .as_ref()
                .map(|u| u.iter().map(report::suppression_json).collect()),
        )
    }

    /// `check --format sarif`: the reported findings, then the suppressed ones with SARIF
    /// `suppressions`.
    pub fn sarif(&self) -> Value {
        let with_baseline = self.baseline.is_some();
        report::assemble_sarif(
            self.reported
                .iter()
                .chain(&self.suppressed)
                .map(|i| report::sarif_result(&i.entry(), with_baseline))
                .collect(),
            self.shard,
        )
    }

    /// Lines after the text report's summary: suppressed count, baseline, unused suppressions.
    pub fn text_notes(&self) -> String {
        let mut out = String::new();
        if !self.suppressed.is_empty() {
            out.push_str(&format!(
                "{} report{} suppressed\n",
                self.suppressed.len(),
                if self.suppressed.len() == 1 { "" } else { "s" }
            ));
        }
        if let Some(b) = &self.baseline {
            out.push_str(&format!(
                "baseline {}: {} matched, {} disappeared, {} new\n",
                b.file,
                b.matched,
                b.disappeared,
                self.reported.len()
            ));
        }
        for u in self.unused.iter().flatten() {
            match &u.source {
                crate::suppress::Source::Comment { file, line } => out.push_str(&format!(
                    "{}:{line}: unused suppression ({})\n",
                    file.display(),
                    u.reason
                )),
                crate::suppress::Source::Config { entry } => out.push_str(&format!(
                    "reductio.toml [[suppress]] entry {entry}: unused suppression ({})\n",
                    u.reason
                )),
            }
        }
        out
    }
}

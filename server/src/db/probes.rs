//! Probe queries: the probe sites of a function (as the engine sees them, and with source
//! ranges), the engine's result for one probe (cached apart from its placement, so that moving
//! a function re-runs no probe), the placed verdict, and a file's findings.

use super::database::Db;
use super::finding::{Finding, VerdictKind, internal_finding, make_finding};
use super::front_end::{Function, body, file_functions, lowered, type_env};
use super::inputs::{Settings, SourceFile};
use super::names::resolve_function;
use super::program::DbProgram;
use crate::probe::{self, EngineConfig, ProbeSite};
use std::sync::Arc;

/// What the probes read of the configuration: the engine's settings and whether parameters
/// are probed. A projection of the settings input, so that changing a key no probe reads (the
/// editor's `checkOn`, `debounceMs`, `exclude`, `[[suppress]]`) re-runs no probe: this query
/// runs again, finds the same value, and its readers are verified, not re-executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProbeSettings {
    pub engine: EngineConfig,
    pub probe_parameters: bool,
}

#[salsa::tracked]
pub fn probe_settings(db: &dyn Db, settings: Settings) -> ProbeSettings {
    let c = settings.config(db);
    ProbeSettings {
        engine: EngineConfig {
            max_transfers: c.budget.transfers,
            max_regions: c.budget.regions,
            unknown_calls_escape: c.unknown_calls_escape,
            lifo: c.worklist_lifo,
            ignore_conditions: false,
        },
        probe_parameters: c.probe_parameters,
    }
}

/// The probes of one function as the engine sees them: computed on the body without source
/// ranges, so that a layout edit leaves them equal.
#[salsa::tracked(returns(clone))]
pub fn engine_probes<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<Vec<ProbeSite>> {
    let env = type_env(db, db.workspace());
    let file = f.file(db);
    let has_body = |name: &str| resolve_function(db, file, name).is_some();
    let params = probe_settings(db, db.settings()).probe_parameters;
    Arc::new(probe::probe_sites(&body(db, f), &env, &has_body, params))
}

/// The probes of one function, with their source ranges: [`engine_probes`], each given the
/// range of its node (a probe reports the statement it sits on).
#[salsa::tracked(returns(clone))]
pub fn function_probes<'db>(db: &'db dyn Db, f: Function<'db>) -> Arc<Vec<ProbeSite>> {
    let ir = lowered(db, f);
    Arc::new(
        engine_probes(db, f)
            .iter()
            .map(|s| ProbeSite {
                range: ir.node(s.node).stmt.range,
                ..s.clone()
            })
            .collect(),
    )
}

/// The precise walk's result for probe `index` of `f`, before it is placed in the file. It
/// reads no line index and no function start, so an edit elsewhere in the file (which moves
/// this function, or changes the file's line starts) does not re-run the probe; only edits to
/// what its exploration read do. Every leak is found here ([`probe_leak_verdict`]); a probe
/// abandoned on budget may still be proved by [`probe_coarse_outcome`].
#[salsa::tracked(returns(clone))]
pub fn probe_outcome<'db>(
    db: &'db dyn Db,
    f: Function<'db>,
    index: u32,
) -> Arc<Result<probe::ProbeResult, ProbeFailure>> {
    Arc::new(
        run_walk(db, f, index, |program, func, site, cfg| {
            Some(probe::precise_walk(program, func, site, cfg))
        })
        .and_then(|r| r.ok_or(ProbeFailure::Missing("no walk"))),
    )
}

/// The coarse walk of a probe the precise walk abandoned on budget (`probe::coarse_walk`):
/// `None` when there is none (the precise walk ended otherwise, or failed).
#[salsa::tracked(returns(clone))]
pub fn probe_coarse_outcome<'db>(
    db: &'db dyn Db,
    f: Function<'db>,
    index: u32,
) -> Arc<Option<Result<probe::ProbeResult, ProbeFailure>>> {
    let precise = probe_outcome(db, f, index);
    let Ok(precise) = precise.as_ref() else {
        return Arc::new(None);
    };
    if !matches!(
        precise.verdict,
        probe::Verdict::Unproved(probe::Unproved::Budget { .. })
    ) {
        return Arc::new(None);
    }
    Arc::new(
        run_walk(db, f, index, |program, func, site, cfg| {
            probe::coarse_walk(program, func, site, cfg, precise)
        })
        .transpose(),
    )
}

/// Runs one walk of probe `index` of `f` on the database's program. A bug in the engine
/// costs one verdict, not the session.
fn run_walk<'db>(
    db: &'db dyn Db,
    f: Function<'db>,
    index: u32,
    walk: impl FnOnce(
        &DbProgram<'db>,
        probe::FuncId,
        &ProbeSite,
        probe::EngineConfig,
    ) -> Option<probe::ProbeResult>,
) -> Result<Option<probe::ProbeResult>, ProbeFailure> {
    let probes = engine_probes(db, f);
    let Some(site) = probes.get(index as usize) else {
        return Err(ProbeFailure::Missing("probe index out of range"));
    };
    let program = DbProgram::new(db);
    let Some(func) = program.index_of(f) else {
        return Err(ProbeFailure::Missing("function not in the workspace"));
    };
    let cfg = probe_settings(db, db.settings()).engine;
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        walk(&program, func, site, cfg)
    }));
    match run {
        Ok(r) => Ok(r),
        Err(payload) => {
            if payload.is::<salsa::Cancelled>() {
                std::panic::resume_unwind(payload);
            }
            Err(ProbeFailure::Panic(
                payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "panic".into()),
            ))
        }
    }
}

/// The verdict of probe `index` of function `f`, placed in its file: the engine result of
/// both walks ([`probe_outcome`], then [`probe_coarse_outcome`] for a probe abandoned on
/// budget) with line and column numbers. When an edit only moves the function, this cheap
/// placement runs again, not the probe.
#[salsa::tracked(returns(clone))]
pub fn probe_verdict<'db>(db: &'db dyn Db, f: Function<'db>, index: u32) -> Arc<Finding> {
    let outcome = probe_outcome(db, f, index);
    let outcome = match (
        outcome.as_ref(),
        probe_coarse_outcome(db, f, index).as_ref(),
    ) {
        (Ok(precise), Some(Ok(coarse))) => Ok(probe::with_coarse(precise.clone(), coarse)),
        // A coarse walk that failed proves nothing: the precise verdict stands.
        (o, _) => o.clone(),
    };
    place_outcome(db, f, index, &outcome)
}

/// The verdict of probe `index` of `f` from the precise walk alone, placed: the same as
/// [`probe_verdict`] except that a probe only the coarse walk proves is `unproved (budget)`
/// here. Leaks are exactly [`probe_verdict`]'s, so diagnostics (which show leaks only) are
/// computed from this without waiting for the coarse walks.
#[salsa::tracked(returns(clone))]
pub fn probe_leak_verdict<'db>(db: &'db dyn Db, f: Function<'db>, index: u32) -> Arc<Finding> {
    place_outcome(db, f, index, probe_outcome(db, f, index).as_ref())
}

fn place_outcome<'db>(
    db: &'db dyn Db,
    f: Function<'db>,
    index: u32,
    outcome: &Result<probe::ProbeResult, ProbeFailure>,
) -> Arc<Finding> {
    let probes = function_probes(db, f);
    let Some(site) = probes.get(index as usize) else {
        return Arc::new(internal_finding(db, f, "probe index out of range"));
    };
    match outcome {
        Ok(result) => {
            let program = DbProgram::new(db);
            Arc::new(make_finding(db, &program, f, site, result.clone()))
        }
        Err(ProbeFailure::Missing(why)) => Arc::new(internal_finding(db, f, why)),
        Err(ProbeFailure::Panic(msg)) => Arc::new(Finding {
            reason: Some("internal-error".into()),
            message: format!("unproved (internal error: {msg})"),
            ..internal_finding(db, f, "")
        }),
    }
}

/// Why a probe has no engine result.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ProbeFailure {
    /// The probe or its function does not exist (a stale index).
    Missing(&'static str),
    /// The engine panicked: one verdict is lost, not the session.
    Panic(String),
}

/// The leaks of a file, in source order, from the precise walks alone
/// ([`probe_leak_verdict`]): the same as those of [`file_findings`], without the coarse walks.
#[salsa::tracked(returns(clone))]
pub fn file_leaks(db: &dyn Db, file: SourceFile) -> Arc<Vec<Arc<Finding>>> {
    let mut out = Vec::new();
    for f in file_functions(db, file) {
        let n = function_probes(db, *f).len();
        for i in 0..n {
            let v = probe_leak_verdict(db, *f, i as u32);
            if v.verdict == VerdictKind::Leak {
                out.push(v);
            }
        }
    }
    Arc::new(out)
}

/// Every verdict of a file, in source order.
#[salsa::tracked(returns(clone))]
pub fn file_findings(db: &dyn Db, file: SourceFile) -> Arc<Vec<Arc<Finding>>> {
    let mut out = Vec::new();
    for f in file_functions(db, file) {
        let n = function_probes(db, *f).len();
        for i in 0..n {
            out.push(probe_verdict(db, *f, i as u32));
        }
    }
    Arc::new(out)
}

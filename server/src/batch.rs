//! Batch analysis shared by the CLI and the benchmark harness: load files into a database,
//! run every probe in parallel (rayon, one database clone per worker).

use crate::config::Config;
use crate::db::{self, Database, Db, Finding, SourceFile};
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

/// Load files into a fresh database; invalid UTF-8 is reported and replaced.
pub fn load(config: Config, files: &[PathBuf]) -> Result<(Database, Vec<SourceFile>), String> {
    let mut database = Database::new(config);
    let mut inputs = Vec::new();
    for path in files {
        let (text, lossy) = crate::files::read_source(path)?;
        if lossy {
            eprintln!(
                "reductio: {} is not valid UTF-8; invalid bytes were replaced",
                path.display()
            );
        }
        inputs.push(database.add_file(path.clone(), text));
    }
    Ok((database, inputs))
}

/// One shard of a run split over a CI matrix: `index` of `count`, 1-based (`--shard I/N`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("`{s}` is not a shard I/N with 1 <= I <= N (for example 2/3)");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// Run every probe of `files` in parallel; findings in source order.
pub fn run_probes(
    database: &Database,
    files: &[SourceFile],
    jobs: Option<usize>,
    progress: bool,
) -> Result<(Vec<Arc<Finding>>, usize), String> {
    run_probes_shard(database, files, jobs, progress, None)
}

/// [`run_probes`] for one shard: every file is loaded and the whole program is the context,
/// but only the functions whose stable hash (`fingerprint::shard_of`: the file's path and the
/// function's name) falls in the shard are probed. Returns the findings and the number of
/// functions probed.
pub fn run_probes_shard(
    database: &Database,
    files: &[SourceFile],
    jobs: Option<usize>,
    progress: bool,
    shard: Option<Shard>,
) -> Result<(Vec<Arc<Finding>>, usize), String> {
    let db: &dyn Db = database;
    let mut work: Vec<(usize, usize, u32)> = Vec::new();
    let mut functions = 0;
    for (i, file) in files.iter().enumerate() {
        let path = file.path(db);
        for (j, f) in db::file_functions(db, *file).iter().enumerate() {
            if let Some(s) = shard
                && crate::fingerprint::shard_of(path, f.name(db), s.count) != s.index
            {
                continue;
            }
            functions += 1;
            for k in 0..db::function_probes(db, *f).len() {
                work.push((i, j, k as u32));
            }
        }
    }
    let bar = if progress && work.len() > 200 {
        let b = indicatif::ProgressBar::new(work.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} probes {elapsed}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        Some(b)
    } else {
        None
    };
    let mut builder = rayon::ThreadPoolBuilder::new().stack_size(32 << 20);
    if let Some(n) = jobs {
        builder = builder.num_threads(n.max(1));
    }
    let pool = builder.build().map_err(|e| e.to_string())?;
    // A database handle is Send but not Sync: each worker clones its own from behind a lock.
    let shared = std::sync::Mutex::new(database.clone());
    let findings: Vec<Arc<Finding>> = pool.install(|| {
        work.par_iter()
            .map_init(
                || shared.lock().map(|d| d.clone()).unwrap_or_default(),
                |db, &(i, j, k)| {
                    let f = db::file_functions(db, files[i])[j];
                    let r = db::probe_verdict(db, f, k);
                    if let Some(b) = &bar {
                        b.inc(1);
                    }
                    r
                },
            )
            .collect()
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    Ok((findings, functions))
}

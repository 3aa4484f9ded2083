//! The `reductio` command line: `serve`, `check`, `merge`, `prove`, `facts`, `ir`.

use clap::{Parser, Subcommand, ValueEnum};
use reductio::config::Config;
use reductio::db::{self, Database, Db, Finding, VerdictKind};
use reductio::ir::{Notation, write_function_with};
use reductio::report::{self, Summary};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

/// `println!` and `print!` to standard output, except that a reader that went away (`reductio
/// check | head`) ends the process quietly with the I/O error status instead of a panic.
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        if writeln!(std::io::stdout(), $($t)*).is_err() {
            std::process::exit(2);
        }
    }};
}
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        if write!(std::io::stdout(), $($t)*).is_err() {
            std::process::exit(2);
        }
    }};
}

#[derive(Parser)]
#[command(
    name = "reductio",
    version,
    about = "Proves or refutes memory leaks in C by contradiction",
    long_about = "reductio answers \"could this assignment leak memory?\" by assuming the leak \
                  happened and analysing the program backwards to contradict it (Orlovich & \
                  Rugina, \"Memory Leak Analysis by Contradiction\").\n\n\
                  Exit codes: 0 no leaks, 1 leaks found, 2 usage or I/O error."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the language server over stdio (editors launch this).
    Serve {
        /// Accepted for clients that pass it; stdio is the only transport.
        #[arg(long)]
        stdio: bool,
    },
    /// Analyse files and directories (recursively, .c and .h) and report leaks.
    Check {
        /// Files or directories (default: the current directory).
        paths: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Also list probes that could be neither proved nor refuted.
        #[arg(long)]
        all: bool,
        /// Worker threads (default: all cores).
        #[arg(long)]
        jobs: Option<usize>,
        /// Transfer-function applications per walk of a probe (default 500; a probe the precise
        /// walk abandons gets one more walk that ignores branch conditions)
        #[arg(long)]
        budget: Option<u32>,
        /// Configuration file (default: reductio.toml in the first path's directory).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Probe only shard I of N (1-based) of the functions, chosen by a stable hash of file
        /// path and function name; every file is still loaded as context. Merge the shards'
        /// JSON or SARIF reports with `reductio merge`.
        #[arg(long, value_name = "I/N")]
        shard: Option<reductio::batch::Shard>,
        /// Report only findings whose fingerprint is not in this earlier JSON report or SARIF
        /// log; print how many were matched and how many disappeared.
        #[arg(long, value_name = "OLD.json|OLD.sarif")]
        baseline: Option<PathBuf>,
        /// Also write this run's findings (before --baseline) as a JSON baseline to FILE.
        #[arg(long, value_name = "FILE")]
        write_baseline: Option<PathBuf>,
        /// List the suppressions (comments and [[suppress]] entries) that matched no report.
        #[arg(long)]
        report_unused_suppressions: bool,
        /// A compile database (`compile_commands.json`) or `compile_flags.txt` to take include
        /// directories and macros from (default: found next to each file or above, as clangd
        /// finds it).
        #[arg(long, value_name = "FILE")]
        compile_commands: Option<PathBuf>,
    },
    /// Merge the JSON reports (or SARIF logs) of `check --shard 1/N` … `N/N` into the report of
    /// the unsharded run. Exit code 1 when it lists a leak.
    Merge {
        /// The shards' reports, all JSON or all SARIF.
        #[arg(required = true)]
        reports: Vec<PathBuf>,
        /// Write the merged report to FILE instead of stdout.
        #[arg(long, short, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Run the probes at FILE:LINE[:COL] and print each verdict with its reason and trace: the
    /// value overwritten or lost there, and the memory an assignment there assigns (every
    /// place where it can lose its last reference, with that place's verdict).
    Prove {
        /// Location as FILE:LINE or FILE:LINE:COL (1-based).
        location: String,
        #[arg(long, value_enum, default_value_t = ProveFormat::Text)]
        format: ProveFormat,
        /// Transfer-function applications per walk of a probe (default 500): raise it when a verdict is
        /// `unproved (budget)`.
        #[arg(long)]
        budget: Option<u32>,
        /// Configuration file (default: reductio.toml in the file's directory or above).
        #[arg(long)]
        config: Option<PathBuf>,
        /// A compile database (`compile_commands.json`) or `compile_flags.txt` to take include
        /// directories and macros from (default: found next to each file or above, as clangd
        /// finds it).
        #[arg(long, value_name = "FILE")]
        compile_commands: Option<PathBuf>,
        /// The program is every C file under DIR, as `check DIR` sees it (default: the
        /// file's own directory, not recursively).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
    },
    /// Print what the analysis assumes about each of the project's functions (allocator or
    /// deallocator by configuration, never returns, what a call may write, free or allocate),
    /// with the reason for each.
    Facts {
        /// Files or directories (default: the current directory).
        paths: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = ProveFormat::Text)]
        format: ProveFormat,
        /// Configuration file (default: reductio.toml in the first path's directory).
        #[arg(long)]
        config: Option<PathBuf>,
        /// A compile database (`compile_commands.json`) or `compile_flags.txt` to take include
        /// directories and macros from (default: found next to each file or above, as clangd
        /// finds it).
        #[arg(long, value_name = "FILE")]
        compile_commands: Option<PathBuf>,
    },
    /// Print the lowered IR and control-flow graph of a file's functions.
    Ir {
        file: PathBuf,
        /// Only this function.
        #[arg(long)]
        function: Option<String>,
        /// Print expressions in the paper's notation (`*(*a_p).next`) instead of C.
        #[arg(long)]
        paper: bool,
        /// Lower the file as part of every C file under DIR (its headers and macros, as `check
        /// DIR` sees them) instead of alone.
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
        /// Also print each function's text after macro expansion (what is lowered).
        #[arg(long)]
        expanded: bool,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
    Sarif,
}

#[derive(Clone, Copy, ValueEnum)]
enum ProveFormat {
    Text,
    Json,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Ir {
            file,
            function,
            paper,
            root,
            expanded,
        } => ir_command(&file, function.as_deref(), paper, root.as_deref(), expanded),
        Command::Check {
            paths,
            format,
            all,
            jobs,
            budget,
            config,
            shard,
            baseline,
            write_baseline,
            report_unused_suppressions,
            compile_commands,
        } => match check_command(
            paths,
            format,
            jobs,
            budget,
            config,
            compile_commands,
            write_baseline,
            reductio::ci::Options {
                all,
                shard,
                baseline,
                report_unused: report_unused_suppressions,
            },
        ) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("reductio: {e}");
                ExitCode::from(2)
            }
        },
        Command::Merge { reports, output } => match merge_command(&reports, output.as_deref()) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("reductio: {e}");
                ExitCode::from(2)
            }
        },
        Command::Prove {
            location,
            format,
            budget,
            config,
            compile_commands,
            root,
        } => match prove_command(&location, format, budget, config, compile_commands, root) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("reductio: {e}");
                ExitCode::from(2)
            }
        },
        Command::Facts {
            paths,
            format,
            config,
            compile_commands,
        } => match facts_command(paths, format, config, compile_commands) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("reductio: {e}");
                ExitCode::from(2)
            }
        },
        Command::Serve { .. } => {
            // Handlers run on the runtime; analysis runs on the server's own thread pool.
            let runtime = match tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
            {
                Ok(rt) => rt,
                Err(e) => {
                    eprintln!("reductio: cannot start the async runtime: {e}");
                    return ExitCode::from(2);
                }
            };
            let clean = runtime.block_on(reductio::lsp::serve_stdio());
            // Analysis jobs still running are abandoned: the client is gone.
            runtime.shutdown_timeout(std::time::Duration::from_millis(100));
            if clean {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
    }
}

/// The configuration for `first` (or the explicit file), with `--budget` applied.
fn config_for(
    explicit: Option<&Path>,
    first: &Path,
    budget: Option<u32>,
    compile_commands: Option<PathBuf>,
) -> Result<Config, String> {
    let mut cfg = match explicit {
        Some(p) => reductio::files::load_config(p),
        None => match reductio::files::find_config(first) {
            Some(p) => reductio::files::load_config(&p),
            None => Ok(Config::default()),
        },
    }?;
    if let Some(b) = budget {
        if b == 0 {
            return Err("--budget must be at least 1".into());
        }
        cfg.budget.transfers = b;
    }
    if let Some(p) = compile_commands {
        let meta =
            std::fs::metadata(&p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
        if !meta.is_file() {
            return Err(format!(
                "--compile-commands {}: not a regular file",
                p.display()
            ));
        }
        cfg.compile_commands = Some(db::absolute(&p));
    }
    Ok(cfg)
}

/// The build model's problems (an unusable compile database, includes not followed, limits
/// reached), each once, on stderr: warnings, never a reason to stop.
fn report_build_messages(db: &dyn Db, files: &[db::SourceFile]) {
    let mut seen = std::collections::BTreeSet::new();
    for f in files {
        for m in db::build_messages(db, *f).iter() {
            if seen.insert(m.message.clone()) {
                eprintln!("reductio: warning: {}: {}", m.file.display(), m.message);
            }
        }
    }
}

/// `reductio facts`: the inferred facts about the functions of the given files, in source
/// order, each with its reason.
fn facts_command(
    paths: Vec<PathBuf>,
    format: ProveFormat,
    config: Option<PathBuf>,
    compile_commands: Option<PathBuf>,
) -> Result<ExitCode, String> {
    let paths = if paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        paths
    };
    let cfg = config_for(config.as_deref(), &paths[0], None, compile_commands)?;
    let files = discover_reporting(&paths, &cfg.exclude)?;
    let (database, inputs) = reductio::batch::load(cfg, &files)?;
    report_build_messages(&database, &inputs);
    let facts = db::function_facts(&database);
    let calls = db::call_stats(&database, &inputs);
    match format {
        ProveFormat::Json => {
            let list: Vec<serde_json::Value> = facts
                .iter()
                .map(|f| {
                    serde_json::json!({
                        "file": f.file.display().to_string(),
                        "line": f.line,
                        "function": f.function,
                        "kind": f.kind,
                        "fact": f.fact,
                        "reason": f.reason,
                    })
                })
                .collect();
            let out = serde_json::json!({
                "version": 1,
                "facts": list,
                "calls": {
                    "direct": calls.direct,
                    "with_body": calls.with_body,
                    "library": calls.library,
                    "unknown": calls.unknown,
                    "indirect": calls.indirect,
                },
            });
            outln!(
                "{}",
                serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?
            );
        }
        ProveFormat::Text => {
            for f in &facts {
                outln!(
                    "{}:{}: `{}` {}: {}",
                    f.file.display(),
                    f.line,
                    f.function,
                    f.fact,
                    f.reason
                );
            }
            outln!(
                "{} fact{} about {} file{}",
                facts.len(),
                if facts.len() == 1 { "" } else { "s" },
                files.len(),
                if files.len() == 1 { "" } else { "s" }
            );
            let pct = |n: usize| 100.0 * n as f64 / calls.direct.max(1) as f64;
            outln!(
                "{} direct call{}: {} to a body ({:.1}%), {} to the library model ({:.1}%), \
                 {} to no body seen ({:.1}%); {} indirect",
                calls.direct,
                if calls.direct == 1 { "" } else { "s" },
                calls.with_body,
                pct(calls.with_body),
                calls.library,
                pct(calls.library),
                calls.unknown,
                pct(calls.unknown),
                calls.indirect
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[allow(clippy::too_many_arguments)]
fn check_command(
    paths: Vec<PathBuf>,
    format: Format,
    jobs: Option<usize>,
    budget: Option<u32>,
    config: Option<PathBuf>,
    compile_commands: Option<PathBuf>,
    write_baseline: Option<PathBuf>,
    opts: reductio::ci::Options,
) -> Result<ExitCode, String> {
    let started = Instant::now();
    let paths = if paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        paths
    };
    let cfg = config_for(config.as_deref(), &paths[0], budget, compile_commands)?;
    let rules = cfg.suppress.clone();
    let files = discover_reporting(&paths, &cfg.exclude)?;
    let (database, inputs) = reductio::batch::load(cfg, &files)?;
    report_build_messages(&database, &inputs);
    let (findings, functions) = reductio::batch::run_probes_shard(
        &database,
        &inputs,
        jobs,
        std::io::stderr().is_terminal(),
        opts.shard,
    )?;
    let mut summary = Summary {
        files: inputs.len(),
        functions,
        ..Default::default()
    };
    for f in &findings {
        summary.count(f);
    }
    let db: &dyn Db = &database;
    let texts: Vec<(PathBuf, &str)> = inputs
        .iter()
        .map(|f| (f.path(db).clone(), f.text(db).as_str()))
        .collect();
    let relative = with_relative_messages(&findings.iter().map(|f| f.as_ref()).collect::<Vec<_>>());
    let findings: Vec<std::sync::Arc<Finding>> =
        relative.into_iter().map(std::sync::Arc::new).collect();
    let triage = reductio::ci::triage(&findings, &texts, &rules, &opts)?;
    for w in &triage.warnings {
        eprintln!("reductio: {w}");
    }
    summary.elapsed_ms = started.elapsed().as_millis();
    if let Some(path) = &write_baseline {
        let text = report::to_text(&triage.baseline_json(&summary));
        std::fs::write(path, text + "\n")
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    let out = match format {
        Format::Json => report::to_text(&triage.json(&summary)),
        Format::Sarif => report::to_text(&triage.sarif()),
        Format::Text => {
            let sources: report::Sources = inputs
                .iter()
                .map(|f| (f.path(db).clone(), f.text(db).clone()))
                .collect();
            let listed: Vec<&Finding> = triage.reported.iter().map(|i| &*i.finding).collect();
            let mut text =
                report::text_report(&listed, &summary, &sources, std::io::stdout().is_terminal());
            text.push_str(&triage.text_notes());
            text
        }
    };
    outln!("{out}");
    Ok(if triage.has_leaks() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `reductio merge`: the shards' reports put back together.
fn merge_command(reports: &[PathBuf], output: Option<&Path>) -> Result<ExitCode, String> {
    let mut inputs = Vec::new();
    for p in reports {
        let text =
            std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
        let v: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", p.display()))?;
        inputs.push((p.display().to_string(), v));
    }
    let merged = reductio::merge::merge(&inputs)?;
    let text = report::to_text(&merged.report);
    match output {
        Some(path) => std::fs::write(path, text + "\n")
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?,
        None => outln!("{text}"),
    }
    Ok(if merged.has_leaks {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The findings with the paths their messages name relative to the current directory (the
/// `file` fields keep the paths as given).
fn with_relative_messages(findings: &[&Finding]) -> Vec<Finding> {
    let cwd = std::env::current_dir().ok();
    findings
        .iter()
        .map(|f| Finding {
            message: f.message_relative_to(cwd.as_deref()),
            ..(*f).clone()
        })
        .collect()
}

/// `FILE:LINE[:COL]`, split from the right so that paths may contain colons.
fn parse_location(s: &str) -> Result<(PathBuf, u32, Option<u32>), String> {
    let bad = || format!("`{s}` is not FILE:LINE or FILE:LINE:COL");
    let parts: Vec<&str> = s.rsplitn(3, ':').collect();
    let num = |x: &str| x.parse::<u32>().ok().filter(|n| *n > 0);
    match parts.as_slice() {
        [col, line, file] if num(col).is_some() && num(line).is_some() => {
            Ok((PathBuf::from(file), num(line).ok_or_else(bad)?, num(col)))
        }
        [line, rest @ ..] if num(line).is_some() => {
            let file = rest.iter().rev().copied().collect::<Vec<_>>().join(":");
            if file.is_empty() {
                return Err(bad());
            }
            Ok((PathBuf::from(file), num(line).ok_or_else(bad)?, None))
        }
        _ => Err(bad()),
    }
}

/// The C files under `paths`, each file left out (a binary blob named `*.c`) reported on
/// stderr.
fn discover_reporting(paths: &[PathBuf], exclude: &[String]) -> Result<Vec<PathBuf>, String> {
    let found = reductio::files::discover_files(paths, exclude)?;
    for (path, why) in &found.skipped {
        eprintln!("reductio: warning: {} skipped: {why}", path.display());
    }
    Ok(found.files)
}

fn prove_command(
    location: &str,
    format: ProveFormat,
    budget: Option<u32>,
    config: Option<PathBuf>,
    compile_commands: Option<PathBuf>,
    root: Option<PathBuf>,
) -> Result<ExitCode, String> {
    let (file, line, col) = parse_location(location)?;
    reductio::files::check_source_path(&file)?;
    let cfg = config_for(config.as_deref(), &file, budget, compile_commands)?;
    let mut files: Vec<PathBuf> = match &root {
        // The whole tree, as `check DIR` loads it.
        Some(r) => {
            if !r.is_dir() {
                return Err(format!("--root {}: not a directory", r.display()));
            }
            reductio::files::discover(std::slice::from_ref(r), &cfg.exclude)?
        }
        // The file's directory is its workspace (not recursively): enough for helpers next
        // door.
        None => {
            let dir = file
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            std::fs::read_dir(dir)
                .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| reductio::files::is_c_file(p))
                .collect()
        }
    };
    let canonical = std::fs::canonicalize(&file).ok();
    files.retain(|p| std::fs::canonicalize(p).ok() != canonical);
    files.sort();
    files.insert(0, file.clone());
    let (database, inputs) = reductio::batch::load(cfg, &files)?;
    report_build_messages(&database, &inputs[..1]);
    let db: &dyn Db = &database;
    let target = inputs[0];
    let mut verdicts: Vec<Arc<Finding>> = Vec::new();
    for f in db::file_functions(db, target) {
        let probes = db::function_probes(db, *f);
        for (k, site) in probes.iter().enumerate() {
            let (l, c) = db::location(db, *f, site.range);
            let (el, ec) = db::location(
                db,
                *f,
                reductio::syntax::TextRange::new(site.range.end, site.range.end),
            );
            let on_line = l <= line && line <= el;
            let at_col = match col {
                None => true,
                Some(col) => (l, c) <= (line, col) && (line, col) <= (el, ec),
            };
            if on_line && at_col {
                verdicts.push(db::probe_verdict(db, *f, k as u32));
            }
        }
    }
    // The memory assigned here: the block a `p = …` on this line gives `p`, followed forward.
    let assigned = db::assignments_at_line(db, target, line, col);
    if verdicts.is_empty() && assigned.is_empty() {
        return Err(format!(
            "no leak probe and no pointer assignment at {location}: probes sit on pointer \
             assignments, allocations, frees, returns and block ends"
        ));
    }
    let verdicts = with_relative_messages(&verdicts.iter().map(|v| v.as_ref()).collect::<Vec<_>>());
    match format {
        ProveFormat::Json => {
            let v = serde_json::json!({
                "verdicts": verdicts.iter().map(report::finding_json).collect::<Vec<_>>(),
                "assigned": assigned.iter().map(report::assigned_json).collect::<Vec<_>>(),
            });
            outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        }
        ProveFormat::Text => {
            outln!("the value overwritten here:");
            if verdicts.is_empty() {
                outln!("no leak probe here\n");
            }
            let sources: report::Sources = inputs
                .iter()
                .map(|f| (f.path(db).clone(), f.text(db).clone()))
                .collect();
            let renderer = if std::io::stdout().is_terminal() {
                annotate_snippets::Renderer::styled()
            } else {
                annotate_snippets::Renderer::plain()
            };
            for v in &verdicts {
                outln!("{}\n", report::render_finding(v, &sources, &renderer));
            }
            outln!("the memory assigned here:");
            if assigned.is_empty() {
                outln!("no assignment here");
            }
            for a in &assigned {
                outln!("{}", report::assigned_text(a, target.path(db)));
            }
        }
    }
    let leaks = verdicts.iter().any(|v| v.verdict == VerdictKind::Leak)
        || assigned.iter().any(|a| a.verdict == VerdictKind::Leak);
    Ok(if leaks {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The file alone in a database (`reductio ir FILE`).
fn ir_alone(path: &std::path::Path) -> Result<(Database, reductio::db::SourceFile), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let (text, lossy) = reductio::syntax::decode_source(&bytes);
    if lossy {
        eprintln!(
            "reductio: {} is not valid UTF-8; invalid bytes were replaced",
            path.display()
        );
    }
    let mut database = Database::default();
    let file = database.add_file(path.to_path_buf(), text);
    Ok((database, file))
}

/// The file among every C file under `root`, with the configuration found for it.
fn ir_in_tree(
    path: &std::path::Path,
    root: &std::path::Path,
) -> Result<(Database, reductio::db::SourceFile), String> {
    if !root.is_dir() {
        return Err(format!("--root {}: not a directory", root.display()));
    }
    let cfg = config_for(None, path, None, None)?;
    let mut files = reductio::files::discover(&[root.to_path_buf()], &cfg.exclude)?;
    let canonical = std::fs::canonicalize(path).ok();
    files.retain(|p| std::fs::canonicalize(p).ok() != canonical);
    files.insert(0, path.to_path_buf());
    let (database, inputs) = reductio::batch::load(cfg, &files)?;
    Ok((database, inputs[0]))
}

fn ir_command(
    path: &std::path::Path,
    only: Option<&str>,
    paper: bool,
    root: Option<&std::path::Path>,
    expanded: bool,
) -> ExitCode {
    if let Err(e) = reductio::files::check_source_path(path) {
        eprintln!("reductio: {e}");
        return ExitCode::from(2);
    }
    let loaded = match root {
        Some(r) => ir_in_tree(path, r),
        None => ir_alone(path),
    };
    let (database, file) = match loaded {
        Ok(x) => x,
        Err(e) => {
            eprintln!("reductio: {e}");
            return ExitCode::from(2);
        }
    };
    let db: &dyn Db = &database;
    let notation = if paper { Notation::Paper } else { Notation::C };
    let mut out = String::new();
    let mut found = false;
    let items = db::file_syntax_items(db, file);
    if only.is_none() && items.globals.iter().any(|g| g.init.is_some()) {
        let globals = db::global_inits(db, file);
        let idx = db::line_index(db, file);
        let loc = |r: reductio::syntax::TextRange| {
            let lc = idx.line_col(r.start);
            format!("{}:{}", lc.line + 1, lc.col + 1)
        };
        let _ = write_function_with(&mut out, &globals, Some(&loc), notation);
        out.push('\n');
    }
    for f in db::file_functions(db, file) {
        if let Some(name) = only
            && f.name(db) != name
        {
            continue;
        }
        found = true;
        let ir = db::lowered(db, *f);
        if expanded {
            match db::expanded_function(db, *f) {
                Some(e) => {
                    out.push_str(&format!("// {} after macro expansion:\n", f.name(db)));
                    out.push_str(&e.text);
                    out.push('\n');
                }
                None => out.push_str(&format!("// {}: no macro to expand\n", f.name(db))),
            }
        }
        let loc = |r: reductio::syntax::TextRange| {
            let (l, c) = db::location(db, *f, r);
            format!("{l}:{c}")
        };
        let _ = write_function_with(&mut out, &ir, Some(&loc), notation);
        out.push('\n');
    }
    out!("{out}");
    let stats = &items.stats;
    if stats.error_nodes > 0 || !stats.unrecovered.is_empty() {
        eprintln!(
            "reductio: {} syntax error region(s) at file level; {} function(s) recovered from \
             macro-decorated heads; {} fragment(s) could not be recovered",
            stats.error_nodes,
            stats.recovered_functions,
            stats.unrecovered.len()
        );
    }
    if let Some(name) = only
        && !found
    {
        eprintln!("reductio: no function `{name}` in {}", path.display());
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

//! The `reductio` command line: `serve`, `check`, `prove`, `ir`.

use clap::{Parser, Subcommand, ValueEnum};
use reductio::db::{self, Database, Db};
use reductio::ir::{Notation, write_function_with};
use std::path::PathBuf;
use std::process::ExitCode;

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
    Serve,
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
        /// Transfer-function applications per probe (default 500).
        #[arg(long)]
        budget: Option<u32>,
        /// Configuration file (default: reductio.toml in the first path's directory).
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Run the probes at FILE:LINE[:COL] and print each verdict with its reason and trace.
    Prove {
        /// Location as FILE:LINE or FILE:LINE:COL (1-based).
        location: String,
        #[arg(long, value_enum, default_value_t = ProveFormat::Text)]
        format: ProveFormat,
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
        } => ir_command(&file, function.as_deref(), paper),
        Command::Serve | Command::Check { .. } | Command::Prove { .. } => {
            eprintln!(
                "reductio: this build has the C front end only; `serve`, `check` and `prove` \
                 arrive with the contradiction engine"
            );
            ExitCode::from(2)
        }
    }
}

fn ir_command(path: &std::path::Path, only: Option<&str>, paper: bool) -> ExitCode {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("reductio: cannot read {}: {e}", path.display());
            return ExitCode::from(2);
        }
    };
    let (text, lossy) = reductio::syntax::decode_source(&bytes);
    if lossy {
        eprintln!(
            "reductio: {} is not valid UTF-8; invalid bytes were replaced",
            path.display()
        );
    }
    let mut database = Database::default();
    let file = database.add_file(path.to_path_buf(), text);
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
        let loc = |r: reductio::syntax::TextRange| {
            let (l, c) = db::location(db, *f, r);
            format!("{l}:{c}")
        };
        let _ = write_function_with(&mut out, &ir, Some(&loc), notation);
        out.push('\n');
    }
    print!("{out}");
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

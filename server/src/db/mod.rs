//! The salsa database: inputs (source files, the workspace's file set, configuration) and the
//! tracked queries that tie the layers together.
//!
//! - `inputs`: the inputs and the setter API ([`Database::add_file`],
//!   [`Database::remove_file`], [`Database::set_file_text`], [`Database::set_file_tree`],
//!   [`Database::set_config`]): nothing outside `db` writes a salsa input.
//! - `database`: the [`Db`] trait and [`Database`] (storage, execution log).
//! - `front_end`: parse → items → functions → lowered IR.
//! - `names`: functions by name and by index ([`probe::FuncId`](crate::probe::FuncId)).
//! - `whole_program`: call graph, type classes, MOD sets.
//! - `program`: [`probe::Program`](crate::probe::Program) over the queries,
//!   and the per-function passes shared by all probes.
//! - `probes`: probe sites, the engine's result per probe, placed verdicts.
//! - `finding`: [`Finding`], what every output format reads.
//! - `assigned`: the memory an assignment assigns, followed to the probes that can lose it.
//! - `positions`: line indexes and placing function-relative ranges in files.
//!
//! Query graph (each arrow is a read; `(ws)` queries take the [`Workspace`], `(f)` a
//! [`Function`], `(f, i)` a function and a probe index):
//!
//! ```text
//! front end
//!   SourceFile.text/.tree ─► parsed ─► file_syntax_items ─┬─► file_functions ─► Function{source,start}
//!                                                          └─► file_decls ─► type_env (ws, all files)
//!   Settings.config ─► library_model
//!   Function.source + type_env + library_model ─► lowered(f) ─► body(f)   (body: ranges stripped)
//!   file_syntax_items + parsed + type_env + library_model ─► global_inits(file)
//! names
//!   file_functions (all files) ─► function_names (ws) ─► resolve_function   (plain fn)
//!   file_functions (all files) ─► all_functions (ws) ─► function_ids (ws)
//! whole program
//!   body ─► call_sites(f), arity(f)
//!   call_sites + resolve_function + function_ids ─► resolved_calls(f)
//!   resolved_calls + arity ─► call_graph (ws) ─► callers_of(f)
//!                                                            call_graph ─► indirect_targets (ws)
//!   body + type_env + resolve_function ─► type_facts(f) ─► type_classes (ws)
//!   body + type_env + type_classes + resolve_function ─► own_mod(f) ─► mod_table (ws) ─► mod_of(f)
//!   body + resolved_calls ─► return_shape(f)   (returns when only the C library ends paths?)
//!   return_shape + body + resolve_function ─► never_returning (ws) ─► never_returns_of(f)
//!   body ─► global_writes(f); global_writes + global_inits + file_syntax_items + type_env
//!       + type_classes + never_returning ─► exit_flags (ws)   (globals set only on the way out)
//! per-function passes
//!   body ─► temp_deaths(f), fresh_writes(f)
//! probes
//!   Settings.config ─► probe_settings   (the budget and flags; other keys re-run no probe)
//!   body + type_env + resolve_function + probe_settings ─► engine_probes(f)
//!   engine_probes + lowered ─► function_probes(f)                 (with source ranges)
//!   engine_probes + DbProgram + probe_settings ─► probe_outcome(f, i)
//!       DbProgram reads: body, temp_deaths, fresh_writes, callers_of, indirect_targets,
//!       type_env, type_classes, mod_of, never_returns_of, exit_flags, all_functions, function_ids,
//!       resolve_function (per-function projections where a whole-program table would make
//!       every probe re-run when one function's entry changes)
//!   probe_outcome (precise walk) ─► probe_coarse_outcome (only after a budget abandon)
//!   probe_outcome + probe_coarse_outcome + function_probes + lowered + placement ─► probe_verdict(f, i)
//!   probe_outcome + function_probes + lowered + placement ─► probe_leak_verdict(f, i) ─► file_leaks(file)
//!   file_functions + function_probes + probe_verdict ─► file_findings(file)
//! the memory assigned here (hover, prove)
//!   body + type_env ─► assignment_nodes(f)
//!   body + type_env + engine_probes ─► assigned_flow(f, node)   (forward from the assignment)
//!   assigned_flow + probe_verdict + lowered + placement ─► assigned_memory (plain fn)
//! placement
//!   SourceFile.text ─► line_index ─► function_anchor(f)
//!   Function.source ─► function_lines(f)
//! ```
//!
//! `file_syntax_items` and `file_functions` re-run on every edit of their file (they are cheap:
//! one walk over the top level). `Function` is a tracked struct identified by (file, name); its
//! `source` field holds the function's own text, so an edit to one function changes only that
//! function's `source`, and only its `lowered` re-runs. `file_decls` and `type_env` are `Eq`:
//! an edit inside a body leaves them equal and salsa backdates them.
//!
//! The analysis reads `body` (no source ranges), never `lowered`: a layout edit (spaces, a
//! comment, a line break inside a function) leaves `body` equal, so no probe re-runs.
//! `probe_outcome` reads no line index and no function start; only its placement,
//! `probe_verdict`, does (line and column through `function_anchor`, the byte range through
//! `Function.start`), so an edit that only moves a function re-places its verdicts without
//! re-running a probe. Because a [`Finding`] carries byte offsets in the file, any edit
//! re-places the verdicts of the functions below it in that file, a same-line edit included
//! (placement only: `bench_edit` on `sqlite3.c`, a space typed in `renameColumnFunc`,
//! re-places about 21,000 verdicts per keystroke).

mod assigned;
mod build;
mod database;
mod exit_flags;
mod facts;
mod finding;
mod front_end;
mod inputs;
mod names;
mod positions;
mod probes;
mod program;
mod unit_conds;
mod whole_program;

#[cfg(test)]
mod tests;

pub use assigned::{
    AssignedMemory, AssignedPath, PathKind, assigned_flow, assigned_memory, assignment_nodes,
    assignments_at_line, function_assignments,
};
pub use build::{
    BuildMessage, DbSource, Declared, absolute, build_messages, compile_db, declared_attributes,
    expanded_declarations, expanded_function, file_attributes, file_flags, file_headers, file_scan,
    inactive_ranges, live_text, macro_table, program_files, shared_text, workspace_roots,
};
pub use database::{Database, Db};
pub use facts::{
    CallAt, CalleeFacts, Fact, FunctionFact, call_at, callee_facts, facts_of, function_facts,
};
pub use finding::{Finding, Moved, SourceLoc, Step, VerdictKind, display_path, leak_message};
pub use front_end::{
    Function, body, file_decls, file_functions, file_syntax_items, global_inits, library_model,
    lowered, parsed, type_env,
};
pub use inputs::{Settings, SourceFile, Workspace};
pub use names::{FunctionNames, all_functions, function_ids, function_names, resolve_function};
pub use positions::{
    FunctionPlace, function_anchor, function_lines, function_places, line_index, location,
};
pub use probes::{
    ProbeFailure, engine_probes, file_findings, file_leaks, function_probes, probe_coarse_outcome,
    probe_leak_verdict, probe_outcome, probe_verdict,
};
pub use program::{fresh_values, fresh_writes, temp_deaths};
pub use unit_conds::{FileConditions, file_conditions, unit_conditions};
pub use whole_program::{
    CallGraph, CallSites, CallStats, arity, call_graph, call_sites, call_stats, callers_of,
    captured_params, indirect_targets, mod_of, mod_table, never_returning, never_returns_of,
    own_captures, own_mod, resolved_calls, return_shape, type_classes, type_facts,
    unescaped_locals,
};

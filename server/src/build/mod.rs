//! The build model: what the compiler would see of a C file. Compile flags (from
//! `compile_commands.json`, `compile_flags.txt`, or config), `#include` resolution into
//! project headers, the macro table, conditional inclusion decided three-valued, macro
//! expansion with a map back to the user's text, and function attributes.
//!
//! Plain data in, plain data out: nothing here knows about the IR, probes, salsa or LSP; file
//! contents come through [`FileSource`], so the language server can supply open buffers and
//! tests an in-memory map. Layer: below `syntax`, above `ir` (it does not use either).
//!
//! Invariants:
//! - Never panics and stays bounded on any input: every loop over text is linear in it, and
//!   includes ([`ScanLimits`]), expansion and `#if` evaluation ([`Budget`]) have limits; hitting
//!   one is reported (`truncated`, [`SkipReason`]), never silent.
//! - Three-valued knowledge: what the model does not know (a macro no reachable file or flag
//!   defines) is [`Truth::Unknown`], never guessed as 0, unless the flags are a complete
//!   compile command ([`CompileFlags::complete`]).
//! - Offsets are byte offsets into the text given; expanded text maps back through
//!   [`Expanded::original_range`], and text outside macro invocations is copied unchanged.
//! - System headers (`<…>` not found on `-I`/`-isystem` paths) are never read: the library
//!   model covers libc.

pub mod attributes;
pub mod compile_db;
pub mod cond;
pub mod directive;
pub mod expand;
pub mod includes;
pub mod lex;
pub mod macros;
pub mod scan;

#[cfg(test)]
mod fuzz_tests;

pub use attributes::{FnAttributes, function_attributes};
pub use compile_db::{CompileDb, CompileDbError, CompileFlags, IncludeDir, IncludeDirKind};
pub use cond::{
    CondArm, CondGroup, Live, Truth, conditional_groups, inactive_ranges, mask_inactive,
};
pub use expand::{Budget, Expanded, Segment, expand};
pub use includes::{FileSource, FsSource, IncludeResolver, IncludeSpec, MapSource, SkipReason};
pub use macros::{MacroDef, MacroStatus, MacroTable};
pub use scan::{Scan, ScanLimits, SkippedInclude, scan};

//! Lowering from tree-sitter-c to the core language and a statement-level CFG.
//!
//! Conventions (see ARCHITECTURE.md for the full list; `tests/lowering.rs` shows each one):
//! - `rvalue` gives the value of an expression, `lvalue` its address; side effects (calls,
//!   assignments, `++`) become statements emitted before, in left-to-right order; nested calls
//!   get temporaries. Temporaries are function-scoped.
//! - `&&`, `||`, `?:` and `!` become branches with `cond` statements; as statements
//!   (`a && f()`) only their left operands are tested. A condition comparing two constants
//!   (`while (1)`, `do … while (0)`) is decided at lowering time: one edge, no `cond`.
//! - Every `return` assigns `ret`, then ends the scope of every live local and parameter,
//!   innermost first, and of every temporary (the paper's return sequence), then jumps to the
//!   single exit.
//! - Leaving a block (normally, or by `break`/`continue`/`goto`) ends the scope of its locals.
//!   A jump (`goto`, or a `case` label's dispatch) ends, on its edge, the scope of the locals it
//!   leaves (jumping back above a declaration in the same block leaves it too), and begins the
//!   scope of the locals whose declarations it skips.
//! - `#if`/`#ifdef` inside a body is a nondeterministic choice between its branches (an
//!   `#if 0` branch is dead code and skipped); other directives are skipped. A declaration in
//!   a branch belongs to the enclosing block; declaring the same name in two branches declares
//!   one local. A group inside one statement or condition (`if (a &&⏎#ifdef X⏎b &&⏎#endif⏎c)`)
//!   makes that statement a choice between its texts for every choice of arms (see `split`).
//! - Anything not understood becomes `Opaque` (statements) or `Unknown` (values), recorded as a
//!   [`Fallback`]; a fragment with a syntax error too (its destination, if any, gets
//!   `Unknown`), and nesting deeper than [`MAX_DEPTH`]. A `goto` to a label that does not exist
//!   is opaque, then returns; a computed `goto *p` is opaque, then may reach every label.
//!   Never a panic, never silent deletion.
//! - Macro misparses from real code are repaired conservatively. First in the text (see
//!   `repair`: same offsets, kept only when the re-parse has fewer syntax errors): a cast macro
//!   `BAD_CAST p` where an operand is expected is a transparent cast of `p`; a statement macro
//!   without `;` (`M(x)⏎if …`, `M⏎for …`, `M(x) }`) gets its `;`, and is then opaque, reading
//!   its arguments (a macro may assign them), unless the library model names `M` (a configured
//!   allocator or deallocator: then it is that call); `M( stmt; )` is a block that may run or
//!   not, in the enclosing scope (its `return` returns); an `else` that a preprocessor line
//!   separates from its `if` is attached to it as that `#if`'s alternative (`if (a) {…}⏎#ifdef
//!   X⏎else {…}⏎#endif`: with X the `if` has the else branch, without X none; chains of
//!   `#ifdef X⏎else if …⏎#endif`; `if (a) {…} else⏎#endif⏎S` and `#ifdef X⏎if (c)⏎#endif⏎S`
//!   take S as else branch or body), or, when no `if` is found, recorded as a fallback. Then in
//!   the tree: `M(x)` without `;` before a block is a loop macro (the block may run any number
//!   of times, `break` leaves it); `M⏎f(x);` (parsed as a prototype) is `f(x)`; a definition
//!   named `if`/`while`/`for`/`switch` in a body (`#if`-split `else if`, `M(x)⏎if (c) {…}`) is
//!   that statement with an opaque condition; a real nested definition is not part of the
//!   body (items collects it). GNU case ranges match an unknown value.
//! - GNU `typeof` is rewritten in the text first (`typeofs`, same offsets): `(__typeof(x))(p)`
//!   is a transparent cast of `p`, `__typeof(l->items) t;` declares `t` with the type of
//!   `l->items`; a `typeof` never lowers to a call.
//! - Nodes are numbered in reverse postorder from the entry (roughly source order), then
//!   unreachable code, then the exit.
//!
//! One collector, [`Builder`], with its methods spread over files by concern:
//! - `cfg`: statements and edges at the current point, fallbacks, the depth guard;
//! - `scopes`: parameters, locals, temporaries, block scopes, the return sequence, jumps;
//! - `stmt`: statements and control flow; `decl`: block-scope declarations;
//! - `conditional`: `#if` in a body and detached `else`s; `split`: `#if` inside a statement;
//!   `macros`: macro-shaped statements;
//! - `cond`: conditions; `assign`: side effects, assignments and initializers;
//! - `expr`: rvalues, lvalues and static types; `call`: calls and the library's allocators;
//! - `typeofs`: `typeof` rewritten as a type, the operand's type at its use;
//! - `compact`: the finished CFG.

mod assign;
mod call;
mod cfg;
mod compact;
mod cond;
mod conditional;
mod decl;
mod expr;
mod macros;
mod scopes;
mod split;
mod stmt;
mod typeofs;
mod unit_conds;

pub use unit_conds::{UnitConditions, condition_variable, is_condition_variable, shown_global};

use super::items::{FunctionSource, GlobalItem};
use super::library::LibraryModel;
use super::repair::{Repairs, repair_function};
use super::types::{FnSig, StructDef, Type, TypeEnv};
use super::{
    ExprArena, ExprId, ExprKind, Fallback, FunctionIr, Local, LocalId, NodeId, Stmt, StmtKind,
    Symbol,
};
use crate::syntax::TextRange;
use crate::syntax::ts::find_definition;
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use tree_sitter::{Node, Tree};

/// Statements and expressions nested deeper than this lower to a conservative form. It keeps
/// the recursive lowering far from the stack limit on the 2 MB threads tests and rayon use.
pub const MAX_DEPTH: u32 = 160;

/// Struct copies are expanded field by field down to this depth of nested struct members.
const MAX_STRUCT_EXPANSION: u32 = 4;

/// Arrays initialized with more elements than this are lowered as one opaque block write.
const MAX_INIT_ELEMENTS: usize = 4096;

/// What lowering reads besides the function's own text.
pub struct LowerContext<'a> {
    pub env: &'a TypeEnv,
    pub lib: &'a LibraryModel,
    /// The translation unit's undecided `#if` conditions that keep one value in all its
    /// functions (see `unit_conds`); `None`: every `#if` is a choice of its own.
    pub unit: Option<&'a UnitConditions>,
    /// The types this function's file defines for itself under a name other files define
    /// differently (see `ir::local_types`): every type the lowering reads goes through it.
    pub qual: Option<&'a crate::ir::local_types::TypeQualifiers>,
}

impl LowerContext<'_> {
    /// `t` as the function's file names it (see `qual`); borrowed when nothing changes.
    pub(crate) fn qualify<'t>(&self, t: &'t Type) -> std::borrow::Cow<'t, Type> {
        match self.qual {
            Some(q) => std::borrow::Cow::Owned(q.qualify(t)),
            None => std::borrow::Cow::Borrowed(t),
        }
    }

    /// As `qualify`, for a type the caller owns.
    pub(crate) fn qualified(&self, t: Type) -> Type {
        match self.qual {
            Some(q) => q.qualify(&t),
            None => t,
        }
    }
}

/// Lower one function definition. Re-parses the function's own text so that the result depends
/// on nothing else in its file.
pub fn lower_function(source: &FunctionSource, ctx: &LowerContext) -> FunctionIr {
    // Comments become spaces (same offsets): no comment node can then stand where the
    // lowering expects a statement or an expression.
    let blanked = crate::syntax::blank_comments(&source.text);
    let first = crate::syntax::parse(&blanked, None);
    // `typeof ( … )` becomes a type tree-sitter knows (same offsets): see `typeofs`.
    let (blanked, first, operands, typeof_spans) = match typeofs::rewrite_typeofs(&blanked, &first)
    {
        Some(r) => (std::borrow::Cow::Owned(r.text), r.tree, r.operands, r.spans),
        None => (blanked, first, Vec::new(), Vec::new()),
    };
    // Macro misparses are repaired in the text first (same offsets): see `repair`.
    let repaired = repair_function(&blanked, &first, &|name| ctx.env.globals.contains_key(name));
    let (text, tree, repairs) = match repaired {
        Some(r) => (std::borrow::Cow::Owned(r.text), r.tree, r.repairs),
        None => (blanked, first, Repairs::default()),
    };
    let prepared = Prepared {
        operands: &operands,
        typeof_spans: &typeof_spans,
        repairs: &repairs,
    };
    // `#if` groups still inside a statement are resolved in the text: see `split`.
    if let Some(plan) = split::plan(&text, &tree) {
        let splits = split::alternatives(&plan);
        let (ir, complete) = lower_text(source, ctx, &plan.text, &plan.tree, &prepared, &splits);
        if complete {
            return ir;
        }
    }
    lower_text(source, ctx, &text, &tree, &prepared, &[]).0
}

/// What the text rewrites before `split` found.
struct Prepared<'p> {
    operands: &'p [typeofs::TypeofOperand],
    typeof_spans: &'p [(usize, usize)],
    repairs: &'p Repairs,
}

/// Lower the function from its rewritten `text` and its tree, with the statements of `splits`
/// as choices; and whether every one of them was met where it was planned (else its other
/// arms are missing: the result is not used).
fn lower_text(
    source: &FunctionSource,
    ctx: &LowerContext,
    text: &str,
    tree: &Tree,
    prepared: &Prepared,
    splits: &[split::Split],
) -> (FunctionIr, bool) {
    let src = text.as_bytes();
    // Temporaries are named after the text they hold: the `typeof`s as written.
    let shown: Option<Vec<u8>> = (!prepared.typeof_spans.is_empty()).then(|| {
        let mut shown = src.to_vec();
        let original = source.text.as_bytes();
        for &(s, e) in prepared.typeof_spans {
            if let (Some(to), Some(from)) = (shown.get_mut(s..e), original.get(s..e)) {
                to.copy_from_slice(from);
            }
        }
        shown
    });
    let mut b = Builder::new(&source.name, ctx, src);
    b.shown_src = shown.as_deref().unwrap_or(src);
    b.typeof_operands = prepared.operands;
    b.repairs = prepared.repairs.clone();
    b.splits = splits;
    b.split_used = vec![false; splits.len()];
    b.sig = b.resolve_sig(&source.sig);
    let def = find_definition(tree.root_node());
    match def {
        Some(def) => {
            b.lower_definition(def);
            b.report_unattached_elses();
        }
        None => {
            b.start();
            let range = TextRange::new(0, src.len() as u32);
            b.fallback(range, "the function could not be re-parsed on its own");
            b.emit(
                StmtKind::Opaque {
                    reason: "unparsed function".into(),
                    reads: vec![],
                },
                range,
            );
            b.finish_body(range);
        }
    }
    let complete = b.split_used.iter().all(|&used| used);
    (b.finish(), complete)
}

/// Lower the initializers of a file's globals into one pseudo-function `<globals>` whose
/// statements run "before main". Ranges are absolute in the file.
pub fn lower_global_inits(
    tree: &Tree,
    text_: &str,
    globals: &[GlobalItem],
    ctx: &LowerContext,
) -> FunctionIr {
    let src = text_.as_bytes();
    let mut b = Builder::new("<globals>", ctx, src);
    b.sig.ret = Type::Void;
    b.start();
    for g in globals {
        let Some(r) = g.init else { continue };
        let Some(node) = tree
            .root_node()
            .descendant_for_byte_range(r.start as usize, r.end as usize)
        else {
            continue;
        };
        let Some(value) = node.child_by_field_name("value") else {
            continue;
        };
        let ty = ctx.env.resolve(&g.ty);
        let addr = b.expr(
            ExprKind::Addr(Symbol::Global(g.name.clone())),
            Type::pointer_to(ty.clone()),
        );
        b.assign_into(addr, &ty, value, TextRange::of_node(&node));
    }
    let end = TextRange::new(src.len() as u32, src.len() as u32);
    b.finish_body(end);
    b.finish()
}

impl Builder<'_> {
    /// A signature with its types resolved as this file names them.
    fn resolve_sig(&self, sig: &FnSig) -> FnSig {
        let env = self.ctx.env;
        let r = |t: &Type| {
            let t = env.resolve(&self.ctx.qualify(t));
            self.ctx.qualify(&t).into_owned()
        };
        FnSig {
            ret: r(&sig.ret),
            params: sig.params.iter().map(r).collect(),
            variadic: sig.variadic,
        }
    }
}

#[derive(Clone, Debug)]
enum Binding {
    Local(LocalId),
    /// A function-scope `static` or block-scope `extern`: a global of this name.
    Global(String, Type),
}

#[derive(Default)]
struct Scope {
    id: u32,
    names: FxHashMap<String, Binding>,
    /// Locals declared in this scope, in declaration order.
    locals: Vec<LocalId>,
    typedefs: FxHashMap<String, Type>,
}

struct LoopTarget {
    brk: NodeId,
    cont: Option<NodeId>,
    /// Scope depth at the loop statement: leaving to the target ends deeper scopes.
    depth: usize,
}

struct SwitchCtx {
    value: ExprId,
    /// (value, label node, range, scopes open at the label).
    cases: Vec<(ExprId, NodeId, TextRange, ScopeChain)>,
    default: Option<(NodeId, ScopeChain)>,
    /// Scopes open at the `switch` (the dispatch).
    chain: ScopeChain,
}

/// (scope id, locals declared so far) of every open scope, outermost first.
type ScopeChain = Vec<(u32, Vec<LocalId>)>;

/// One branch of an `#if` chain in a body.
struct PpBranch<'t> {
    kids: Vec<Node<'t>>,
    /// The unit's test this branch's own condition makes (see `unit_conds`).
    test: Option<unit_conds::ArmTest>,
    /// An `#if 0` branch.
    dead: bool,
    /// Begins with a detached `else` (see `repair`).
    leading_else: bool,
    /// Ends with an `if` statement followed by a detached `else`.
    trailing_else: bool,
    /// Ends with a bare `if (c)` header.
    trailing_header: bool,
}

/// Where the innermost `if` of a chain without an `else` continues when its condition fails.
#[derive(Clone, Copy)]
enum ElseFrom {
    /// After the `if` statement.
    Nothing,
    Target(NodeId),
    /// Left open: `if_stmt_with` returns the node, for the caller to attach an else branch.
    Open,
}

struct PendingGoto {
    from: NodeId,
    label: String,
    chain: ScopeChain,
    range: TextRange,
}

struct Builder<'a> {
    name: String,
    ctx: &'a LowerContext<'a>,
    src: &'a [u8],
    /// `src` as the user wrote it where they differ (the rewritten `typeof`s): temporaries
    /// are named from it.
    shown_src: &'a [u8],
    /// The operands of the rewritten `typeof`s, by offset (see `typeofs`).
    typeof_operands: &'a [typeofs::TypeofOperand],
    /// Set while the static type of a `typeof` operand is read (in the operand's own text).
    in_typeof_operand: bool,
    sig: FnSig,
    locals: Vec<Local>,
    params: Vec<LocalId>,
    /// Each parameter's position in the declaration (unnamed ones are not locals).
    param_positions: Vec<u32>,
    ret: Option<LocalId>,
    exprs: ExprArena,
    nodes: Vec<Node0>,
    entry: NodeId,
    exit: NodeId,
    cur: Option<NodeId>,
    scopes: Vec<Scope>,
    next_scope_id: u32,
    loops: Vec<LoopTarget>,
    switches: Vec<SwitchCtx>,
    /// Label → (its node, (scope id, locals declared so far) of every scope open at it).
    /// (Two definitions of one label come from alternative `#if` branches: a goto reaches both.)
    labels: FxHashMap<String, Vec<(NodeId, ScopeChain)>>,
    gotos: Vec<PendingGoto>,
    depth: u32,
    fallbacks: Vec<Fallback>,
    /// Values written as a C library constant's name (`EOF`), with the name, and values
    /// written as numbers: what `FunctionIr::constant_names` is made of.
    named_constants: std::collections::BTreeMap<i64, Option<String>>,
    numbers: rustc_hash::FxHashSet<i64>,
    statics: Vec<(String, Type)>,
    string_literals: u32,
    local_structs: Vec<StructDef>,
    temps: Vec<LocalId>,
    /// Fragments lowered as one opaque statement because they nest too deeply: (range, node,
    /// scopes open there). A goto to a label inside one jumps to its node.
    opaque_regions: Vec<(TextRange, NodeId, ScopeChain)>,
    /// `goto *e`: (the opaque node, scopes open there, range); it jumps to every label.
    computed_gotos: Vec<(NodeId, ScopeChain, TextRange)>,
    /// What `repair` rewrote in the text.
    repairs: Repairs,
    /// Detached `else`s (see `Repairs`) attached to their `if`, or in dead code.
    consumed_elses: FxHashSet<u32>,
    /// Statements and conditions with `#if` groups inside (see `split`), whether each was
    /// lowered, and those being lowered now.
    splits: &'a [split::Split],
    split_used: Vec<bool>,
    split_active: Vec<usize>,
}

/// A node under construction (edges are added as we go; preds are computed at the end).
struct Node0 {
    stmt: Stmt,
    succs: SmallVec<[NodeId; 2]>,
}

impl<'a> Builder<'a> {
    fn new(name: &str, ctx: &'a LowerContext<'a>, src: &'a [u8]) -> Self {
        Builder {
            name: name.to_string(),
            ctx,
            src,
            shown_src: src,
            typeof_operands: &[],
            in_typeof_operand: false,
            sig: FnSig::default(),
            locals: vec![],
            params: vec![],
            param_positions: vec![],
            ret: None,
            exprs: ExprArena::default(),
            nodes: vec![],
            entry: NodeId(0),
            exit: NodeId(0),
            cur: None,
            scopes: vec![],
            next_scope_id: 0,
            loops: vec![],
            switches: vec![],
            labels: FxHashMap::default(),
            gotos: vec![],
            depth: 0,
            fallbacks: vec![],
            named_constants: Default::default(),
            numbers: Default::default(),
            statics: vec![],
            string_literals: 0,
            local_structs: vec![],
            temps: vec![],
            opaque_regions: vec![],
            computed_gotos: vec![],
            repairs: Repairs::default(),
            consumed_elses: FxHashSet::default(),
            splits: &[],
            split_used: vec![],
            split_active: vec![],
        }
    }
}

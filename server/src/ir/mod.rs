//! The paper's core language (§4): expressions `n | a | *e | e.f | e0 ⊕ e1`, statements
//! `*e0 ← e1`, alloc, free, cond, return, enter, call and scope-end, one CFG per function.
//!
//! Every memory read is an explicit `Deref`; a variable `x` is `*a_x` (`Deref(Addr(x))`). Every
//! write is `*e0 ← …` where `e0` is the *address* being written, exactly as in the paper.
//! Expressions are hash-consed per function ([`ExprArena`]); an [`ExprId`] is only meaningful with
//! the arena of the function that made it. Source ranges are relative to the function's first
//! byte, so an edit elsewhere in the file leaves a function's IR equal (and salsa backdates it).

mod items;
pub mod library;
pub mod local_types;
mod lower;
mod print;
mod repair;
pub mod types;

pub use items::{FileItems, FunctionItem, FunctionSource, GlobalItem, ItemStats, collect_items};
pub use library::{AllocKind, LibraryModel};
pub use lower::{
    LowerContext, MAX_DEPTH, UnitConditions, condition_variable, is_condition_variable,
    lower_function, lower_global_inits, shown_global,
};
pub use types::{FieldDef, FnSig, StructDef, Type, TypeEnv};

use crate::syntax::TextRange;

/// Every function of a C snippet, lowered with the standard library model, and the snippet's
/// type environment (for unit tests; the database does this for real files).
#[cfg(test)]
pub(crate) fn lower_snippet(src: &str) -> (TypeEnv, Vec<FunctionIr>) {
    let tree = crate::syntax::parse(src, None);
    let items = collect_items(&tree, src);
    let lib = LibraryModel::standard();
    let ctx = LowerContext {
        env: &items.env,
        lib: &lib,
        unit: None,
        qual: None,
    };
    let irs = items
        .functions
        .iter()
        .map(|f| lower_function(&f.source, &ctx))
        .collect();
    (items.env, irs)
}
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::fmt;

/// Index of an expression in its function's [`ExprArena`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExprId(pub u32);

/// Index of a local (parameter, local, temporary, `ret`) in [`FunctionIr::locals`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalId(pub u32);

/// Index of a CFG node in [`FunctionIr::nodes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

/// A symbol whose address is a symbolic address `a` of the paper.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Symbol {
    /// A parameter, block local, temporary or `ret` of the current function.
    Local(LocalId),
    /// A file-scope variable, or a function-scope `static` (named `function::name`).
    Global(String),
    /// A function designator: `f` used as a value is the address of `f`.
    Function(String),
    /// The n-th string literal of the function: a non-heap address.
    StringLit(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    /// A comparison or logical operator used as a value (0 or 1).
    Compare,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Compare => "<=>",
        }
    }

    /// The arithmetic or bitwise operator C writes `op` (`+`, `<<`, `^`…; the inverse of
    /// [`BinOp::symbol`]). `None` for comparisons, logical operators and anything else.
    pub fn from_c_operator(op: &str) -> Option<BinOp> {
        const ARITHMETIC: [BinOp; 10] = [
            BinOp::Add,
            BinOp::Sub,
            BinOp::Mul,
            BinOp::Div,
            BinOp::Rem,
            BinOp::Shl,
            BinOp::Shr,
            BinOp::BitAnd,
            BinOp::BitOr,
            BinOp::BitXor,
        ];
        ARITHMETIC.into_iter().find(|b| b.symbol() == op)
    }
}

/// An expression of the core language (plus two honest extensions: a number whose value we do
/// not track, and a value we could not understand).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ExprKind {
    /// `n`: a numeric constant; NULL is `Int(0)`.
    Int(i64),
    /// A number whose value is not tracked (`sizeof`, float literals, `x < y` as a value…).
    /// Like `n`, it can never reference a heap cell.
    Scalar,
    /// `a`: the symbolic address of a variable, function or string literal.
    Addr(Symbol),
    /// `*e`: the value stored at address `e`.
    Deref(ExprId),
    /// `e.f`: the address of field `f` of the struct at address `e`.
    Field(ExprId, String),
    /// `e0 ⊕ e1`: arithmetic, including pointer arithmetic and array indexing (`a[i]` is
    /// `*(a ⊕ i)`).
    Binary(BinOp, ExprId, ExprId),
    /// A value the front end could not understand. Analyses must treat it as "anything",
    /// including a reference to the error cell.
    Unknown,
}

/// An expression node: what it is and its C type (`None` when unknown).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Type,
}

/// Hash-consed expressions of one function: structurally equal expressions get the same id,
/// so hit and miss sets can be sets of ids.
#[derive(Clone, Debug, Default)]
pub struct ExprArena {
    exprs: Vec<Expr>,
    index: FxHashMap<Expr, ExprId>,
}

impl PartialEq for ExprArena {
    fn eq(&self, other: &Self) -> bool {
        // The index is derived from `exprs`.
        self.exprs == other.exprs
    }
}
impl Eq for ExprArena {}

impl ExprArena {
    pub fn intern(&mut self, expr: Expr) -> ExprId {
        if let Some(&id) = self.index.get(&expr) {
            return id;
        }
        let id = ExprId(self.exprs.len() as u32);
        self.exprs.push(expr.clone());
        self.index.insert(expr, id);
        id
    }
    pub fn get(&self, id: ExprId) -> &Expr {
        &self.exprs[id.0 as usize]
    }
    pub fn kind(&self, id: ExprId) -> &ExprKind {
        &self.get(id).kind
    }
    pub fn ty(&self, id: ExprId) -> &Type {
        &self.get(id).ty
    }
    pub fn len(&self) -> usize {
        self.exprs.len()
    }
    pub fn is_empty(&self) -> bool {
        self.exprs.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = (ExprId, &Expr)> {
        self.exprs
            .iter()
            .enumerate()
            .map(|(i, e)| (ExprId(i as u32), e))
    }
    /// The id of an expression if it was interned, without adding it.
    pub fn lookup(&self, expr: &Expr) -> Option<ExprId> {
        self.index.get(expr).copied()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LocalKind {
    Param,
    Local,
    /// A temporary the lowering introduced for a nested call or a side effect.
    Temp,
    /// The special `ret` variable that holds the return value.
    Return,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Local {
    /// Source name, or for a temporary the source text it holds (e.g. `malloc(n)`).
    pub name: String,
    pub ty: Type,
    pub kind: LocalKind,
    /// `&x` appears somewhere in the function (or `x` is an array, whose name is its address).
    pub address_taken: bool,
    /// Where the local is declared (relative range).
    pub range: TextRange,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
    pub fn negate(self) -> CmpOp {
        match self {
            CmpOp::Eq => CmpOp::Ne,
            CmpOp::Ne => CmpOp::Eq,
            CmpOp::Lt => CmpOp::Ge,
            CmpOp::Le => CmpOp::Gt,
            CmpOp::Gt => CmpOp::Le,
            CmpOp::Ge => CmpOp::Lt,
        }
    }
}

/// Which allocator made a cell. The library model decides which calls are allocators.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AllocSite {
    /// The allocating function as written (`malloc`, `strdup`, a configured name…).
    pub allocator: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Callee {
    /// A call by name; resolved against the workspace by the analysis.
    Direct(String),
    /// A call through a function pointer value.
    Indirect(ExprId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScopeEndKind {
    /// Leaving a block normally, or by `break`, `continue` or `goto`.
    Block,
    /// At a `return` (or falling off the end of the function): the locals and formals of the
    /// paper's return sequence (R2, R3 of Figure 4).
    Return,
}

/// A statement of the core language.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StmtKind {
    /// Function entry: every local begins its scope here.
    Enter,
    /// `*addr ← value`.
    Assign { addr: ExprId, value: ExprId },
    /// `*addr ← alloc`: a fresh heap cell (or NULL on failure).
    Alloc { addr: ExprId, site: AllocSite },
    /// `free(ptr)`.
    Free { ptr: ExprId },
    /// `cond(lhs op rhs)`: execution continues only if the comparison holds.
    Cond { lhs: ExprId, op: CmpOp, rhs: ExprId },
    /// `*dest ← p(args)` (dest absent when the result is ignored).
    Call {
        dest: Option<ExprId>,
        callee: Callee,
        args: Vec<ExprId>,
    },
    /// A block-local declaration: `locals` begin their scope (their old values are gone).
    ScopeBegin { locals: Vec<LocalId> },
    /// `locals` go out of scope, innermost first.
    ScopeEnd {
        locals: Vec<LocalId>,
        kind: ScopeEndKind,
    },
    /// The single exit: the function returns the value of `ret` (if it has one).
    Return { value: Option<ExprId> },
    /// `memset(addr, 0, sizeof *addr)` (or `bzero`): every byte of the object at `addr` is
    /// zero, so its pointer fields are NULL and its integer fields 0. Emitted right after the
    /// call, which keeps its own effect (a write of the object's regions): analyses that do
    /// not know this statement stay sound by treating it as a no-op.
    ZeroFill { addr: ExprId },
    /// A join point, label or empty statement.
    Nop,
    /// Something the front end did not understand. It may read `reads` and write anything
    /// reachable from them; analyses must be conservative here.
    Opaque { reason: String, reads: Vec<ExprId> },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Stmt {
    pub kind: StmtKind,
    /// Source range relative to the start of the function.
    pub range: TextRange,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Node {
    pub stmt: Stmt,
    pub succs: SmallVec<[NodeId; 2]>,
    pub preds: SmallVec<[NodeId; 2]>,
}

/// A construct the lowering replaced by a conservative form, with the reason.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Fallback {
    pub range: TextRange,
    pub reason: String,
}

/// The lowered body of one function: locals, expressions, and a statement-level CFG with one
/// entry (`Enter`) and one exit (`Return`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionIr {
    pub name: String,
    pub sig: FnSig,
    pub locals: Vec<Local>,
    pub params: Vec<LocalId>,
    pub ret: Option<LocalId>,
    pub exprs: ExprArena,
    pub nodes: Vec<Node>,
    pub entry: NodeId,
    pub exit: NodeId,
    /// Function-scope `static` variables, lowered as globals named `function::name`.
    pub statics: Vec<(String, Type)>,
    pub string_literals: u32,
    pub fallbacks: Vec<Fallback>,
    /// Numbers the function writes only as one C library constant's name (`EOF` for -1), for
    /// showing conditions as written (`fputs(msg, stderr) != EOF`).
    pub constant_names: Vec<(i64, String)>,
}

impl FunctionIr {
    /// The same body with every source range emptied: what the analysis reads. It is equal
    /// before and after an edit that only moves text inside the function (whitespace,
    /// comments, line breaks), so nothing that reads it runs again; ranges are looked up in
    /// the full IR by node when results are placed.
    pub fn without_ranges(&self) -> FunctionIr {
        let mut ir = self.clone();
        let empty = crate::syntax::TextRange::new(0, 0);
        for n in &mut ir.nodes {
            n.stmt.range = empty;
        }
        for l in &mut ir.locals {
            l.range = empty;
        }
        for f in &mut ir.fallbacks {
            f.range = empty;
        }
        ir
    }
    /// Replace every source range with `f(range)`: the front end maps the ranges of a
    /// macro-expanded body back to the user's text with it.
    pub fn map_ranges(&mut self, f: impl Fn(TextRange) -> TextRange) {
        for n in &mut self.nodes {
            n.stmt.range = f(n.stmt.range);
        }
        for l in &mut self.locals {
            l.range = f(l.range);
        }
        for b in &mut self.fallbacks {
            b.range = f(b.range);
        }
    }
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0 as usize]
    }
    pub fn local(&self, id: LocalId) -> &Local {
        &self.locals[id.0 as usize]
    }
    pub fn node_ids(&self) -> impl Iterator<Item = NodeId> + use<> {
        (0..self.nodes.len() as u32).map(NodeId)
    }
    /// Number of statements, not counting joins.
    pub fn statement_count(&self) -> usize {
        self.nodes
            .iter()
            .filter(|n| !matches!(n.stmt.kind, StmtKind::Nop))
            .count()
    }
    pub fn opaque_count(&self) -> usize {
        self.nodes
            .iter()
            .filter(|n| matches!(n.stmt.kind, StmtKind::Opaque { .. }))
            .count()
    }
}

impl fmt::Display for FunctionIr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        print::write_function(f, self, None)
    }
}

pub use print::{
    Notation, display_expr, display_place, display_stmt, write_function, write_function_with,
};

#[cfg(test)]
mod tests {
    use super::BinOp;

    #[test]
    fn c_operators_round_trip_through_binop() {
        for op in ["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^"] {
            let b = BinOp::from_c_operator(op).expect(op);
            assert_eq!(b.symbol(), op);
        }
        for op in ["==", "<", "&&", "||", "<=>", "", "="] {
            assert_eq!(BinOp::from_c_operator(op), None, "{op}");
        }
    }
}

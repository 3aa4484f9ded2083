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
//!   one local.
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
//! - Nodes are numbered in reverse postorder from the entry (roughly source order), then
//!   unreachable code, then the exit.

use super::Node as IrNode;
use super::items::{FunctionSource, GlobalItem};
use super::library::{AllocKind, LibraryModel};
use super::repair::{Repairs, repair_function};
use super::types::{
    FnSig, StructDef, Type, TypeEnv, adjust_param_type, base_type, char_literal_value,
    declarator_type, is_builtin_integer_typedef, parse_int_literal, type_descriptor,
};
use super::*;
use crate::syntax::TextRange;
use crate::syntax::ts::{
    find_definition, find_function_declarator, has_syntax_error, innermost_if_lacks_else,
    is_if_zero, keyword_name, last_named, operator, text,
};
use rustc_hash::{FxHashMap, FxHashSet};
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
}

/// Lower one function definition. Re-parses the function's own text so that the result depends
/// on nothing else in its file.
pub fn lower_function(source: &FunctionSource, ctx: &LowerContext) -> FunctionIr {
    // Comments become spaces (same offsets): no comment node can then stand where the
    // lowering expects a statement or an expression.
    let blanked = crate::syntax::blank_comments(&source.text);
    let first = crate::syntax::parse(&blanked, None);
    // Macro misparses are repaired in the text first (same offsets): see `repair`.
    let repaired = repair_function(&blanked, &first, &|name| ctx.env.globals.contains_key(name));
    let (text, tree, repairs) = match repaired {
        Some(r) => (std::borrow::Cow::Owned(r.text), r.tree, r.repairs),
        None => (blanked, first, Repairs::default()),
    };
    let src = text.as_bytes();
    let mut b = Builder::new(&source.name, ctx, src);
    b.repairs = repairs;
    b.sig = resolve_sig(ctx.env, &source.sig);
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
    b.finish()
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

fn resolve_sig(env: &TypeEnv, sig: &FnSig) -> FnSig {
    FnSig {
        ret: env.resolve(&sig.ret),
        params: sig.params.iter().map(|p| env.resolve(p)).collect(),
        variadic: sig.variadic,
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
    sig: FnSig,
    locals: Vec<Local>,
    params: Vec<LocalId>,
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
            sig: FnSig::default(),
            locals: vec![],
            params: vec![],
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
            statics: vec![],
            string_literals: 0,
            local_structs: vec![],
            temps: vec![],
            opaque_regions: vec![],
            computed_gotos: vec![],
            repairs: Repairs::default(),
            consumed_elses: FxHashSet::default(),
        }
    }

    // ---- graph construction ------------------------------------------------------------

    fn new_node(&mut self, kind: StmtKind, range: TextRange) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(Node0 {
            stmt: Stmt { kind, range },
            succs: SmallVec::new(),
        });
        id
    }

    fn link(&mut self, from: NodeId, to: NodeId) {
        let s = &mut self.nodes[from.0 as usize].succs;
        if !s.contains(&to) {
            s.push(to);
        }
    }

    /// Append a statement at the current point. Code after a jump is unreachable but still
    /// lowered (it may be a label's target): it starts a fresh node without predecessors.
    fn emit(&mut self, kind: StmtKind, range: TextRange) -> NodeId {
        let id = self.new_node(kind, range);
        if let Some(c) = self.cur {
            self.link(c, id);
        }
        self.cur = Some(id);
        id
    }

    fn join(&mut self, range: TextRange) -> NodeId {
        self.new_node(StmtKind::Nop, range)
    }

    /// Continue at `node` from the current point (if reachable).
    fn goto_node(&mut self, node: NodeId) {
        if let Some(c) = self.cur {
            self.link(c, node);
        }
        self.cur = Some(node);
    }

    fn jump_to(&mut self, node: NodeId) {
        if let Some(c) = self.cur {
            self.link(c, node);
        }
        self.cur = None;
    }

    fn ensure_reachable_point(&mut self, range: TextRange) -> NodeId {
        match self.cur {
            Some(c) => c,
            None => self.emit(StmtKind::Nop, range),
        }
    }

    fn fallback(&mut self, range: TextRange, reason: impl Into<String>) {
        self.fallbacks.push(Fallback {
            range,
            reason: reason.into(),
        });
    }

    /// A fragment with a syntax error: an opaque statement reading the variables it mentions.
    fn syntax_error(&mut self, n: Node) {
        let range = TextRange::of_node(&n);
        self.fallback(range, "syntax error");
        let reads = self.reads_in(n);
        self.emit(
            StmtKind::Opaque {
                reason: "syntax error".into(),
                reads,
            },
            range,
        );
    }

    /// ERROR children of a control statement that its fields do not reach (`if x > 0) …`).
    fn stray_errors(&mut self, n: Node) {
        let mut c = n.walk();
        let errors: Vec<Node> = n.children(&mut c).filter(|k| k.is_error()).collect();
        for e in errors {
            self.syntax_error(e);
        }
    }

    // ---- expressions -------------------------------------------------------------------

    fn expr(&mut self, kind: ExprKind, ty: Type) -> ExprId {
        self.exprs.intern(Expr { kind, ty })
    }
    fn int(&mut self, v: i64) -> ExprId {
        self.expr(ExprKind::Int(v), Type::Int)
    }
    fn scalar(&mut self) -> ExprId {
        self.expr(ExprKind::Scalar, Type::Int)
    }
    fn unknown(&mut self, ty: Type) -> ExprId {
        self.expr(ExprKind::Unknown, ty)
    }
    fn ty(&self, e: ExprId) -> Type {
        self.exprs.ty(e).clone()
    }
    fn addr_of_local(&mut self, l: LocalId) -> ExprId {
        let ty = Type::pointer_to(self.locals[l.0 as usize].ty.clone());
        self.expr(ExprKind::Addr(Symbol::Local(l)), ty)
    }
    fn addr_of_global(&mut self, name: &str, ty: Type) -> ExprId {
        self.expr(
            ExprKind::Addr(Symbol::Global(name.to_string())),
            Type::pointer_to(ty),
        )
    }
    fn deref(&mut self, addr: ExprId) -> ExprId {
        let ty = match self.exprs.ty(addr) {
            Type::Pointer(t) => (**t).clone(),
            _ => Type::Unknown,
        };
        self.expr(ExprKind::Deref(addr), ty)
    }
    fn field(&mut self, base_addr: ExprId, name: &str) -> ExprId {
        let sty = match self.exprs.ty(base_addr) {
            Type::Pointer(t) => (**t).clone(),
            _ => Type::Unknown,
        };
        let fty = self.field_type(&sty, name);
        self.expr(
            ExprKind::Field(base_addr, name.to_string()),
            Type::pointer_to(fty),
        )
    }
    fn struct_def(&self, ty: &Type) -> Option<StructDef> {
        let tag = ty.struct_tag()?;
        self.local_structs
            .iter()
            .rev()
            .find(|s| s.tag == tag)
            .or_else(|| self.ctx.env.structs.get(tag))
            .cloned()
    }
    fn field_type(&self, sty: &Type, name: &str) -> Type {
        match self.struct_def(sty) {
            Some(def) => def
                .fields
                .iter()
                .find(|f| f.name == name)
                .map(|f| self.resolve(&f.ty))
                .unwrap_or(Type::Unknown),
            None => Type::Unknown,
        }
    }
    /// `base ⊕ index` where base is a pointer or array address: the element address.
    fn index_addr(&mut self, base: ExprId, index: ExprId) -> ExprId {
        let elem = elem_type(self.exprs.ty(base));
        self.expr(
            ExprKind::Binary(BinOp::Add, base, index),
            Type::pointer_to(elem),
        )
    }
    fn binary(&mut self, op: BinOp, l: ExprId, r: ExprId) -> ExprId {
        let lt = self.ty(l);
        let rt = self.ty(r);
        let ty = match op {
            BinOp::Compare => Type::Int,
            BinOp::Sub if lt.is_pointer_like() && rt.is_pointer_like() => Type::Int,
            BinOp::Add | BinOp::Sub if lt.is_pointer_like() => decayed(&lt),
            BinOp::Add if rt.is_pointer_like() => decayed(&rt),
            _ if lt == Type::Float || rt == Type::Float => Type::Float,
            _ => Type::Int,
        };
        self.expr(ExprKind::Binary(op, l, r), ty)
    }

    fn resolve(&self, ty: &Type) -> Type {
        // Block-scope typedefs shadow the workspace's.
        if let Type::Named(n) = ty {
            for s in self.scopes.iter().rev() {
                if let Some(t) = s.typedefs.get(n) {
                    return self.ctx.env.resolve(t);
                }
            }
        }
        let t = self.ctx.env.resolve(ty);
        match (&t, ty) {
            (Type::Pointer(inner), _) if matches!(**inner, Type::Named(_)) => {
                Type::pointer_to(self.resolve(inner))
            }
            _ => t,
        }
    }

    fn new_local(&mut self, name: &str, ty: Type, kind: LocalKind, range: TextRange) -> LocalId {
        let id = LocalId(self.locals.len() as u32);
        let address_taken = matches!(ty, Type::Array(..));
        self.locals.push(Local {
            name: name.to_string(),
            ty,
            kind,
            address_taken,
            range,
        });
        id
    }

    fn new_temp(&mut self, ty: Type, origin: Node) -> LocalId {
        let mut name: String = text(origin, self.src)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        if name.len() > 40 {
            let mut cut = 37;
            while !name.is_char_boundary(cut) {
                cut -= 1;
            }
            name.truncate(cut);
            name.push_str("...");
        }
        let t = self.new_local(&name, ty, LocalKind::Temp, TextRange::of_node(&origin));
        self.temps.push(t);
        t
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.names.get(name).cloned())
    }

    fn mark_address_taken(&mut self, addr: ExprId) {
        let mut e = addr;
        loop {
            match self.exprs.kind(e).clone() {
                ExprKind::Addr(Symbol::Local(l)) => {
                    self.locals[l.0 as usize].address_taken = true;
                    return;
                }
                ExprKind::Field(b, _) => e = b,
                ExprKind::Binary(BinOp::Add | BinOp::Sub, b, _) => e = b,
                _ => return,
            }
        }
    }

    // ---- function structure ------------------------------------------------------------

    fn start(&mut self) {
        self.entry = self.new_node(StmtKind::Enter, TextRange::default());
        self.cur = Some(self.entry);
        self.push_scope();
    }

    fn lower_definition(&mut self, def: Node) {
        self.start();
        // Parameters live in the outermost scope.
        if let Some(decl) = def.child_by_field_name("declarator")
            && let Some(fd) = find_function_declarator(decl)
            && let Some(params) = fd.child_by_field_name("parameters")
        {
            self.declare_params(def, params);
        }
        if self.sig.ret != Type::Void {
            let ty = self.sig.ret.clone();
            let r = self.new_local("ret", ty, LocalKind::Return, TextRange::default());
            self.ret = Some(r);
        }
        match def.child_by_field_name("body") {
            Some(body) => {
                self.push_scope();
                self.block_items(body);
                let end = TextRange::new(body.end_byte() as u32 - 1, body.end_byte() as u32);
                // Falling off the end: the block scope ends as part of the return sequence.
                self.finish_body(end);
            }
            None => {
                let r = TextRange::of_node(&def);
                self.fallback(r, "function without a body");
                self.finish_body(r);
            }
        }
    }

    fn declare_params(&mut self, def: Node, params: Node) {
        let src = self.src;
        let mut knr_types: FxHashMap<String, Type> = FxHashMap::default();
        let mut c = def.walk();
        for d in def.children(&mut c).filter(|c| c.kind() == "declaration") {
            let Some(spec) = d.child_by_field_name("type") else {
                continue;
            };
            let base = base_type(spec, src, &mut self.local_structs);
            let mut c3 = d.walk();
            for dd in d.children_by_field_name("declarator", &mut c3) {
                let (n, t) = declarator_type(base.clone(), dd, src, &mut self.local_structs);
                if let Some((n, _)) = n {
                    knr_types.insert(n, adjust_param_type(t));
                }
            }
        }
        let mut c = params.walk();
        let mut index = 0usize;
        for p in params.named_children(&mut c) {
            let (name, ty, range) = match p.kind() {
                "parameter_declaration" => {
                    let base = p
                        .child_by_field_name("type")
                        .map(|t| base_type(t, src, &mut self.local_structs))
                        .unwrap_or_default();
                    match p.child_by_field_name("declarator") {
                        Some(d) => {
                            let (n, t) = declarator_type(base, d, src, &mut self.local_structs);
                            match n {
                                Some((n, r)) => (n, t, r),
                                None => continue,
                            }
                        }
                        None => {
                            if base == Type::Void {
                                continue;
                            }
                            // Unnamed parameter: still a parameter position.
                            (format!("<param{index}>"), base, TextRange::of_node(&p))
                        }
                    }
                }
                "identifier" => {
                    let n = text(p, src).to_string();
                    let t = knr_types.get(&n).cloned().unwrap_or(Type::Int);
                    (n, t, TextRange::of_node(&p))
                }
                _ => continue,
            };
            let ty = match self.sig.params.get(index) {
                Some(t) if *t != Type::Unknown => t.clone(),
                _ => self.resolve(&adjust_param_type(ty)),
            };
            index += 1;
            let l = self.new_local(&name, ty, LocalKind::Param, range);
            self.params.push(l);
            let scope = self.scopes.last_mut().expect("param scope");
            scope.names.insert(name, Binding::Local(l));
            scope.locals.push(l);
        }
    }

    /// The return sequence at the end of the body (falling off the end), then the exit node.
    fn finish_body(&mut self, end: TextRange) {
        if self.cur.is_some() {
            self.scope_end_all(end);
        }
        let value = self.ret.map(|r| {
            let a = self.addr_of_local(r);
            self.deref(a)
        });
        let exit_range = TextRange::new(end.end, end.end);
        self.exit = self.new_node(StmtKind::Return { value }, exit_range);
        if let Some(c) = self.cur {
            self.link(c, self.exit);
        }
        // Pending returns were linked to a placeholder list; patch them now.
        let exit = self.exit;
        for n in std::mem::take(&mut self.pending_returns_list()) {
            self.link(n, exit);
        }
        self.cur = None;
        self.resolve_gotos();
        // Every temporary lives until the function returns, wherever in the body it was made
        // (a loop can carry a temporary made after the `return` in source order to it).
        let temps: Vec<LocalId> = self.temps.iter().rev().copied().collect();
        for n in &mut self.nodes {
            if let StmtKind::ScopeEnd {
                locals,
                kind: ScopeEndKind::Return,
            } = &mut n.stmt.kind
            {
                locals.extend(temps.iter().copied());
            }
        }
    }

    fn pending_returns_list(&mut self) -> Vec<NodeId> {
        // Returns are emitted as a ScopeEnd(Return) whose successor is filled in here: every
        // such node without successors is a return waiting for the exit.
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| {
                n.succs.is_empty()
                    && matches!(
                        n.stmt.kind,
                        StmtKind::ScopeEnd {
                            kind: ScopeEndKind::Return,
                            ..
                        }
                    )
            })
            .map(|(i, _)| NodeId(i as u32))
            .collect()
    }

    /// End the scope of every local and parameter (innermost first) as a return does.
    fn scope_end_all(&mut self, range: TextRange) {
        let mut locals: Vec<LocalId> = Vec::new();
        for s in self.scopes.iter().rev() {
            locals.extend(s.locals.iter().rev().copied());
        }
        // Temporaries are function-scoped: `finish_body` adds all of them to every return.
        self.emit(
            StmtKind::ScopeEnd {
                locals,
                kind: ScopeEndKind::Return,
            },
            range,
        );
    }

    fn push_scope(&mut self) {
        let id = self.next_scope_id;
        self.next_scope_id += 1;
        self.scopes.push(Scope {
            id,
            ..Default::default()
        });
    }

    /// Close the innermost scope, ending its locals' lifetimes on the fall-through path.
    fn pop_scope(&mut self, range: TextRange) {
        let scope = self.scopes.pop().expect("scope");
        if !scope.locals.is_empty() && self.cur.is_some() {
            let locals = scope.locals.iter().rev().copied().collect();
            self.emit(
                StmtKind::ScopeEnd {
                    locals,
                    kind: ScopeEndKind::Block,
                },
                range,
            );
        }
    }

    /// Locals of every scope deeper than `depth`, innermost first (for break/continue).
    fn locals_above(&self, depth: usize) -> Vec<LocalId> {
        let mut v = Vec::new();
        for s in self.scopes[depth.min(self.scopes.len())..].iter().rev() {
            v.extend(s.locals.iter().rev().copied());
        }
        v
    }

    fn resolve_gotos(&mut self) {
        let mut labels: Vec<(NodeId, ScopeChain)> =
            self.labels.values().flatten().cloned().collect();
        labels.sort_by_key(|l| l.0);
        for (from, chain, range) in std::mem::take(&mut self.computed_gotos) {
            if labels.is_empty() {
                self.return_from_unknown_jump(from, &chain, range);
            }
            for (target, label_chain) in &labels {
                let (leaving, entering) = scope_difference(&chain, label_chain);
                self.jump_edge(from, leaving, entering, range, *target);
            }
        }
        for g in std::mem::take(&mut self.gotos) {
            let Some(targets) = self.labels.get(&g.label).cloned() else {
                // A label inside a fragment lowered as one opaque statement: jump to it.
                let src = self.src;
                let region = self.opaque_regions.iter().find(|(r, _, _)| {
                    let t = src
                        .get(r.start as usize..r.end as usize)
                        .unwrap_or_default();
                    defines_label(t, &g.label)
                });
                if let Some((_, node, chain)) = region.cloned() {
                    let (leaving, entering) = scope_difference(&g.chain, &chain);
                    self.jump_edge(g.from, leaving, entering, g.range, node);
                    continue;
                }
                // A label that does not exist (hidden in a macro?): the jump goes somewhere
                // unknown. Keep a path to the exit so that nothing after it is lost: opaque,
                // then the return sequence of the scopes open at the goto.
                self.fallback(g.range, format!("goto to unknown label `{}`", g.label));
                let n = self.new_node(
                    StmtKind::Opaque {
                        reason: format!("goto {}", g.label),
                        reads: vec![],
                    },
                    g.range,
                );
                self.link(g.from, n);
                self.return_from_unknown_jump(n, &g.chain, g.range);
                continue;
            };
            for (target, label_chain) in targets {
                let (leaving, entering) = scope_difference(&g.chain, &label_chain);
                self.jump_edge(g.from, leaving, entering, g.range, target);
            }
        }
    }

    /// A jump to nowhere known continues with the return sequence of the scopes open at it.
    fn return_from_unknown_jump(&mut self, from: NodeId, chain: &ScopeChain, range: TextRange) {
        let mut locals: Vec<LocalId> = Vec::new();
        for (_, ls) in chain.iter().rev() {
            locals.extend(ls.iter().rev().copied());
        }
        let end = self.new_node(
            StmtKind::ScopeEnd {
                locals,
                kind: ScopeEndKind::Return,
            },
            range,
        );
        self.link(from, end);
        self.link(end, self.exit);
    }

    /// The edge of a jump: end the scope of the locals it leaves, begin the scope of the
    /// locals whose declarations it skips, then continue at `target`.
    fn jump_edge(
        &mut self,
        from: NodeId,
        leaving: Vec<LocalId>,
        entering: Vec<LocalId>,
        range: TextRange,
        target: NodeId,
    ) {
        let mut at = from;
        if !leaving.is_empty() {
            let n = self.new_node(
                StmtKind::ScopeEnd {
                    locals: leaving,
                    kind: ScopeEndKind::Block,
                },
                range,
            );
            self.link(at, n);
            at = n;
        }
        if !entering.is_empty() {
            let n = self.new_node(StmtKind::ScopeBegin { locals: entering }, range);
            self.link(at, n);
            at = n;
        }
        self.link(at, target);
    }

    fn scope_chain(&self) -> ScopeChain {
        self.scopes
            .iter()
            .map(|s| (s.id, s.locals.clone()))
            .collect()
    }

    // ---- statements --------------------------------------------------------------------

    fn block_items(&mut self, block: Node) {
        let mut c = block.walk();
        let kids: Vec<Node> = block.named_children(&mut c).collect();
        self.stmt_list(&kids);
    }

    /// Statements in sequence.
    fn stmt_list(&mut self, kids: &[Node]) {
        let mut i = 0;
        while i < kids.len() {
            i += self.stmt_group(&kids[i..]).max(1);
        }
    }

    /// Lower the statement that begins `kids`, with the statements after it that belong to it
    /// (a macro or an `#if` split it apart); returns how many of `kids` that was.
    /// - tree-sitter-c parses GNU `goto *p;` as ERROR(`goto`) followed by the statement `*p;`:
    ///   that pair is a computed goto.
    /// - `M(x)` without `;` followed by a block is a loop macro.
    /// - An `if` followed by an `else` that a preprocessor line separated from it (see
    ///   `repair`) gets it as its else branch: `if (a) {…}⏎#ifdef X⏎else {…}⏎#endif`, chains
    ///   of such `#ifdef X⏎else if (b) {…}⏎#endif`, `} else⏎#ifdef X⏎…`.
    /// - `#if` branches ending with `if (c) {…} else` or with an `if (c)` header take the
    ///   statement after `#endif` as that else branch or body.
    fn stmt_group(&mut self, kids: &[Node]) -> usize {
        let Some(&k) = kids.first() else {
            return 0;
        };
        let next = kids.get(1).copied();
        if k.is_error()
            && text(k, self.src).trim() == "goto"
            && let Some(next) = next
            && next.kind() == "expression_statement"
            && let Some(e) = next.named_child(0)
            && e.kind() == "pointer_expression"
            && operator(e, self.src) == "*"
        {
            self.computed_goto(k, e);
            return 2;
        }
        if k.kind() == "expression_statement"
            && let Some(call) = k.named_child(0)
            && call.kind() == "call_expression"
            && let Some(semi) = k.child(k.child_count().saturating_sub(1))
            && semi.kind() == ";"
            && semi.is_missing()
            && let Some(next) = next
            && next.kind() == "compound_statement"
        {
            self.loop_macro(call, next);
            return 2;
        }
        if let Some(next) = next
            && self.depth < MAX_DEPTH
        {
            let used = match k.kind() {
                "if_statement" if self.else_follows(k, next) => {
                    self.depth += 1;
                    let used = self.if_with_detached_else(kids);
                    self.depth -= 1;
                    used
                }
                "preproc_if" | "preproc_ifdef" => {
                    self.depth += 1;
                    let used = self.preproc_then_statement(kids);
                    self.depth -= 1;
                    used
                }
                _ => 0,
            };
            if used > 0 {
                return used;
            }
        }
        self.stmt(k);
        1
    }

    /// Whether a detached `else` follows the `if` statement `k` (before `next`, or leading a
    /// branch of `next`), and the `if` has no `else` of its own.
    fn else_follows(&self, k: Node, next: Node) -> bool {
        if self.repairs.detached_elses.is_empty() || !innermost_if_lacks_else(k) {
            return false;
        }
        if self.has_detached_else(k.end_byte() as u32, next.start_byte() as u32) {
            return true;
        }
        matches!(next.kind(), "preproc_if" | "preproc_ifdef")
            && self
                .preproc_branch_list(next)
                .0
                .iter()
                .any(|b| !b.dead && b.leading_else)
    }

    /// `kids[0]` is an `if` without `else`, and a detached `else` follows.
    fn if_with_detached_else(&mut self, kids: &[Node]) -> usize {
        let k = kids[0];
        let Some(f) = self.if_stmt_with(k, ElseFrom::Open) else {
            return 1;
        };
        let join = self.ensure_reachable_point(TextRange::of_node(&k));
        let (used, remainder) = self.else_part(f, k.end_byte() as u32, &kids[1..], join);
        self.cur = Some(join);
        if let Some(pp) = remainder {
            self.preproc_remainder(pp);
        }
        1 + used
    }

    /// The else branch of an `if` whose condition fails at `f`, from the statements after it
    /// (`rest`, which begin after byte `prev_end`): every path of it ends at `join`. Returns
    /// how many of `rest` it took, and an `#if` whose branches go on after the `if` statement.
    fn else_part<'t>(
        &mut self,
        mut f: NodeId,
        mut prev_end: u32,
        rest: &[Node<'t>],
        join: NodeId,
    ) -> (usize, Option<Node<'t>>) {
        let mut used = 0;
        while let Some(&next) = rest.get(used) {
            if self.has_detached_else(prev_end, next.start_byte() as u32) {
                // `} else⏎#ifdef X⏎…`: the else branch is the statement that follows.
                self.consume_elses(TextRange::new(prev_end, next.start_byte() as u32));
                self.cur = Some(f);
                used += self.stmt_group(&rest[used..]).max(1);
                self.jump_to(join);
                return (used, None);
            }
            if !matches!(next.kind(), "preproc_if" | "preproc_ifdef") {
                break;
            }
            let (branches, has_else) = self.preproc_branch_list(next);
            if !branches.iter().any(|b| !b.dead && b.leading_else) {
                break;
            }
            // `#ifdef X⏎else …⏎#endif`. When each branch is just its `else if`, or nothing, the
            // chain may go on with the next `#ifdef`.
            let chain = branches
                .iter()
                .all(|b| b.dead || b.kids.len() == usize::from(b.leading_else));
            let range = TextRange::of_node(&next);
            self.consume_elses(range);
            used += 1;
            let mut open = Vec::new();
            let mut falls_through = !has_else;
            for b in branches.iter().filter(|b| !b.dead) {
                let (true, Some(&body)) = (b.leading_else, b.kids.first()) else {
                    falls_through = true;
                    continue;
                };
                self.cur = Some(f);
                if chain && body.kind() == "if_statement" && innermost_if_lacks_else(body) {
                    if let Some(fb) = self.if_stmt_with(body, ElseFrom::Open) {
                        open.push(fb);
                    }
                } else {
                    self.stmt(body);
                }
                self.jump_to(join);
            }
            if falls_through {
                open.push(f);
            }
            if !chain {
                for o in open {
                    self.link(o, join);
                }
                return (used, Some(next));
            }
            f = self.join(TextRange::new(range.end, range.end));
            for o in open {
                self.link(o, f);
            }
            prev_end = range.end;
        }
        self.link(f, join);
        (used, None)
    }

    /// What an `#if` with leading `else`s leaves after the `if` statement: one of its branches
    /// without their `else` statement.
    fn preproc_remainder(&mut self, pp: Node) {
        let (branches, has_else) = self.preproc_branch_list(pp);
        let rest: Vec<(bool, Vec<Node>)> = branches
            .iter()
            .map(|b| {
                let skip = usize::from(b.leading_else);
                (b.dead, b.kids.iter().skip(skip).copied().collect())
            })
            .collect();
        self.preproc_choice(TextRange::of_node(&pp), &rest, has_else);
    }

    /// `kids[0]` is an `#if` some of whose branches end with `if (c) {…} else` or with a bare
    /// `if (c)` header (`#ifdef X⏎if (c)⏎#endif⏎{…}`): the statement after `#endif` is that else
    /// branch or body; the other branches run before it. 0 when there is no such branch.
    fn preproc_then_statement(&mut self, kids: &[Node]) -> usize {
        let (pp, Some(&next)) = (kids[0], kids.get(1)) else {
            return 0;
        };
        let (branches, has_else) = self.preproc_branch_list(pp);
        if !branches
            .iter()
            .any(|b| !b.dead && (b.trailing_else || b.trailing_header))
        {
            return 0;
        }
        let range = TextRange::of_node(&pp);
        let next_range = TextRange::of_node(&next);
        let start = self.ensure_reachable_point(range);
        let entry = self.join(TextRange::new(next_range.start, next_range.start));
        let end = self.join(TextRange::new(next_range.end, next_range.end));
        // Where the bare headers' conditions fail.
        let mut fails = Vec::new();
        for b in branches.iter().filter(|b| !b.dead) {
            self.cur = Some(start);
            match b.kids.split_last() {
                Some((&last, init)) if b.trailing_else => {
                    self.stmt_list(init);
                    self.if_stmt_with(last, ElseFrom::Target(entry));
                    self.jump_to(end);
                }
                Some((&last, init)) if b.trailing_header => {
                    self.stmt_list(init);
                    self.stray_errors(last);
                    let fail = self.join(TextRange::of_node(&last));
                    match last.child_by_field_name("condition") {
                        Some(c) => self.cond(c, entry, fail),
                        None => {
                            let p = self.ensure_reachable_point(TextRange::of_node(&last));
                            self.link(p, entry);
                            self.link(p, fail);
                        }
                    }
                    self.cur = None;
                    fails.push(fail);
                }
                _ => {
                    self.stmt_list(&b.kids);
                    self.jump_to(entry);
                }
            }
        }
        if !has_else {
            self.link(start, entry);
        }
        self.consume_elses(range);
        self.cur = Some(entry);
        let mut used = 1 + self.stmt_group(&kids[1..]).max(1);
        self.jump_to(end);
        if !fails.is_empty() {
            // The headers' else branches come after their body.
            let f = self.join(TextRange::new(next_range.end, next_range.end));
            for x in fails {
                self.link(x, f);
            }
            let body_end = kids[used - 1].end_byte() as u32;
            let (more, remainder) = self.else_part(f, body_end, &kids[used..], end);
            used += more;
            self.cur = Some(end);
            if let Some(pp) = remainder {
                self.preproc_remainder(pp);
            }
            return used;
        }
        self.cur = Some(end);
        used
    }

    /// The branches of `#if … #elif … #else … #endif` (`p`), and whether there is an `#else`.
    fn preproc_branch_list<'t>(&self, p: Node<'t>) -> (Vec<PpBranch<'t>>, bool) {
        let mut out = Vec::new();
        let mut has_else = false;
        let mut branch = Some(p);
        while let Some(b) = branch {
            if out.len() > 1000 {
                break;
            }
            if b.kind() == "preproc_else" {
                has_else = true;
            }
            let alternative = b.child_by_field_name("alternative");
            let head = b
                .child_by_field_name("condition")
                .or_else(|| b.child_by_field_name("name"))
                .or_else(|| b.child(0));
            let start = head.map_or(b.start_byte(), |h| h.end_byte()) as u32;
            let end = alternative.map_or(b.end_byte(), |a| a.start_byte()) as u32;
            let skip = [
                b.child_by_field_name("condition"),
                b.child_by_field_name("name"),
                alternative,
            ];
            let mut c = b.walk();
            let kids: Vec<Node<'t>> = b
                .named_children(&mut c)
                .filter(|k| !skip.contains(&Some(*k)))
                .collect();
            let leading_else = kids
                .first()
                .is_some_and(|k| self.has_detached_else(start, k.start_byte() as u32));
            let last_if = kids.last().filter(|k| k.kind() == "if_statement");
            let trailing_else = last_if.is_some_and(|k| {
                innermost_if_lacks_else(*k) && self.has_detached_else(k.end_byte() as u32, end)
            });
            // `if (c)` and nothing else: the body is after `#endif` (tree-sitter gives the `if`
            // an empty statement).
            let trailing_header = !trailing_else
                && last_if.is_some_and(|k| {
                    k.child_by_field_name("alternative").is_none()
                        && k.child_by_field_name("consequence")
                            .is_none_or(|c| c.start_byte() == c.end_byte())
                });
            out.push(PpBranch {
                kids,
                dead: is_if_zero(b, self.src),
                leading_else,
                trailing_else,
                trailing_header,
            });
            branch = alternative;
        }
        (out, has_else)
    }

    fn has_detached_else(&self, from: u32, to: u32) -> bool {
        let v = &self.repairs.detached_elses;
        let k = v.partition_point(|&o| o < from);
        k < v.len() && v[k] < to
    }

    fn consume_elses(&mut self, range: TextRange) {
        let v = &self.repairs.detached_elses;
        let k = v.partition_point(|&o| o < range.start);
        for &o in v[k..].iter().take_while(|&&o| o < range.end) {
            self.consumed_elses.insert(o);
        }
    }

    /// A detached `else` the lowering could not attach to an `if`: its branch was lowered
    /// as a plain statement.
    fn report_unattached_elses(&mut self) {
        let elses = self.repairs.detached_elses.clone();
        for o in elses {
            if !self.consumed_elses.contains(&o) {
                self.fallback(
                    TextRange::new(o, o + 4),
                    "`else` separated from its `if` by a preprocessor line: not attached",
                );
            }
        }
    }

    /// One of `branches` runs (dead ones never; none of them when there is no `#else`), in the
    /// enclosing scope. Nothing when they are all empty.
    fn preproc_choice(&mut self, range: TextRange, branches: &[(bool, Vec<Node>)], has_else: bool) {
        if branches.iter().all(|(dead, kids)| *dead || kids.is_empty()) {
            return;
        }
        let start = self.ensure_reachable_point(range);
        let join = self.join(TextRange::new(range.end, range.end));
        for (dead, kids) in branches {
            if *dead {
                continue;
            }
            self.cur = Some(start);
            self.stmt_list(kids);
            self.jump_to(join);
        }
        if !has_else {
            self.link(start, join);
        }
        self.cur = Some(join);
    }

    /// A statement macro that had no `;` (`FREE_AND_NULL(s)`, `CHECK_COMPAT(buf)⏎if …`,
    /// `LIBXML_TEST_VERSION⏎for …`), given one by `repair`. Unlike a call, a macro can assign
    /// its arguments or jump: `M(args)` is the call only when the library model names `M` (a
    /// configured allocator or deallocator), and otherwise opaque, reading its arguments. A
    /// bare `M` is what `M;` is: a name read for nothing.
    fn statement_macro(&mut self, n: Node) {
        let range = TextRange::of_node(&n);
        let Some(e) = n.named_child(0) else {
            return;
        };
        if e.kind() != "call_expression" || has_syntax_error(e) {
            return self.effect(e);
        }
        let callee = e.child_by_field_name("function");
        let name = callee.map(|c| text(c, self.src)).unwrap_or_default();
        let lib = self.ctx.lib;
        let modelled = callee.is_some_and(|c| c.kind() == "identifier")
            && (lib.allocators.contains_key(name) || lib.deallocators.contains_key(name));
        if modelled {
            return self.effect(e);
        }
        let name = name.to_string();
        self.fallback(
            range,
            format!("statement macro `{name}(…)` without `;`: not understood"),
        );
        let reads = match e.child_by_field_name("arguments") {
            Some(a) => self.reads_in(a),
            None => vec![],
        };
        self.emit(
            StmtKind::Opaque {
                reason: format!("statement macro `{name}`"),
                reads,
            },
            range,
        );
    }

    /// `M( stmt; )` rewritten to a block by `repair` (`SimulateIOError( return X; )`,
    /// `MUTEX_LOGIC( sqlite3_mutex *m; )`): the statements may run or not, like an `#if` branch,
    /// and their declarations belong to the enclosing block.
    fn macro_block(&mut self, block: Node, name: &str, at: u32) {
        let range = TextRange::new(at, block.end_byte() as u32);
        self.fallback(
            range,
            format!(
                "statement macro `{name}` with statements as its argument: they may run or not"
            ),
        );
        let start = self.ensure_reachable_point(range);
        let join = self.join(TextRange::new(range.end, range.end));
        self.block_items(block);
        self.jump_to(join);
        self.link(start, join);
        self.cur = Some(join);
    }

    /// `goto *e;` may jump to any label of the function (whose address `&&label` was taken).
    fn computed_goto(&mut self, keyword: Node, target: Node) {
        let range = TextRange::new(keyword.start_byte() as u32, target.end_byte() as u32);
        self.fallback(range, "computed goto: it may jump to any label");
        let v = match target.child_by_field_name("argument") {
            Some(a) => self.rvalue(a),
            None => self.unknown(Type::Unknown),
        };
        let from = self.emit(
            StmtKind::Opaque {
                reason: "computed goto".into(),
                reads: vec![v],
            },
            range,
        );
        let chain = self.scope_chain();
        self.computed_gotos.push((from, chain, range));
        self.cur = None;
    }

    fn stmt(&mut self, n: Node) {
        if self.depth >= MAX_DEPTH {
            let r = TextRange::of_node(&n);
            self.fallback(r, "statement nested too deeply");
            self.opaque_region(n);
            return;
        }
        self.depth += 1;
        self.stmt_inner(n);
        self.depth -= 1;
    }

    fn stmt_inner(&mut self, n: Node) {
        let range = TextRange::of_node(&n);
        match n.kind() {
            "compound_statement" => {
                if let Some((name, at)) = self.repairs.macro_blocks.get(&range.start).cloned() {
                    self.macro_block(n, &name, at);
                    return;
                }
                self.push_scope();
                self.block_items(n);
                let end = TextRange::new(range.end.saturating_sub(1), range.end);
                self.pop_scope(end);
            }
            "expression_statement" if self.repairs.statement_macros.contains(&range.start) => {
                self.statement_macro(n)
            }
            "expression_statement" => {
                if has_syntax_error(n) {
                    self.syntax_error(n);
                } else if let Some(e) = n.named_child(0) {
                    self.effect(e);
                }
            }
            "declaration" => self.local_declaration(n),
            "type_definition" => self.local_typedef(n),
            "if_statement" => self.if_stmt(n),
            "while_statement" => {
                self.stray_errors(n);
                self.while_stmt(n)
            }
            "do_statement" => {
                self.stray_errors(n);
                self.do_stmt(n)
            }
            "for_statement" => {
                self.stray_errors(n);
                self.for_stmt(n)
            }
            "switch_statement" => {
                self.stray_errors(n);
                self.switch_stmt(n)
            }
            "case_statement" => self.case_stmt(n),
            "return_statement" => self.return_stmt(n),
            "break_statement" => self.break_stmt(n, false),
            "continue_statement" => self.break_stmt(n, true),
            "goto_statement" => {
                let label = n
                    .child_by_field_name("label")
                    .map(|l| text(l, self.src).to_string())
                    .unwrap_or_default();
                let from = self.ensure_reachable_point(range);
                let chain = self.scope_chain();
                self.gotos.push(PendingGoto {
                    from,
                    label,
                    chain,
                    range,
                });
                self.cur = None;
            }
            "labeled_statement" => {
                let label = n
                    .child_by_field_name("label")
                    .map(|l| text(l, self.src).to_string())
                    .unwrap_or_default();
                let node = self.join(TextRange::new(range.start, range.start));
                self.goto_node(node);
                let chain = self.scope_chain();
                self.labels.entry(label).or_default().push((node, chain));
                let mut c = n.walk();
                let inner: Vec<Node> = n
                    .named_children(&mut c)
                    .filter(|k| k.kind() != "statement_identifier")
                    .collect();
                self.stmt_list(&inner);
            }
            "preproc_if" | "preproc_ifdef" | "preproc_elif" | "preproc_elifdef" => {
                self.preproc_branches(n)
            }
            "preproc_else" => self.preproc_body(n),
            "preproc_call"
            | "preproc_def"
            | "preproc_function_def"
            | "preproc_include"
            | "comment"
            | ";" => {}
            "attributed_statement" => {
                let mut c = n.walk();
                let inner: Vec<Node> = n
                    .named_children(&mut c)
                    .filter(|k| k.kind() != "attribute_declaration")
                    .collect();
                for k in inner {
                    self.stmt(k);
                }
            }
            "function_definition" => match keyword_name(n, self.src) {
                Some(keyword) => self.misparsed_control_statement(n, keyword),
                None => {
                    // A nested function (GNU C), or a function swallowed by braces split
                    // across `#if` branches (collected as a function of its own): not part of
                    // this body.
                    self.fallback(range, "nested function definition");
                }
            },
            "struct_specifier" | "union_specifier" | "enum_specifier" => {
                base_type(n, self.src, &mut self.local_structs);
            }
            "gnu_asm_expression" | "asm_statement" => {
                let reads = self.reads_in(n);
                self.emit(
                    StmtKind::Opaque {
                        reason: "inline assembly".into(),
                        reads,
                    },
                    range,
                );
            }
            "seh_try_statement" | "seh_leave_statement" => {
                self.fallback(range, format!("unsupported statement `{}`", n.kind()));
                let reads = self.reads_in(n);
                self.emit(
                    StmtKind::Opaque {
                        reason: n.kind().to_string(),
                        reads,
                    },
                    range,
                );
            }
            _ if n.is_error() || n.kind() == "ERROR" => {
                self.fallback(range, "syntax error");
                let reads = self.reads_in(n);
                self.emit(
                    StmtKind::Opaque {
                        reason: "syntax error".into(),
                        reads,
                    },
                    range,
                );
            }
            k if k.ends_with("_expression") || k == "identifier" => {
                // An expression where a statement was expected (error recovery).
                self.effect(n);
            }
            other => {
                self.fallback(range, format!("unsupported statement `{other}`"));
                let reads = self.reads_in(n);
                self.emit(
                    StmtKind::Opaque {
                        reason: other.to_string(),
                        reads,
                    },
                    range,
                );
            }
        }
    }

    /// Values of the variables an unsupported fragment mentions: whatever it does, it may read
    /// (and let escape) these.
    fn reads_in(&mut self, n: Node) -> Vec<ExprId> {
        let mut names: Vec<String> = Vec::new();
        let mut seen = FxHashSet::default();
        let mut stack = vec![n];
        let mut budget = 4096;
        while let Some(x) = stack.pop() {
            budget -= 1;
            if budget == 0 {
                break;
            }
            // A variable can hide as a type name in a misparsed macro (`FREE_AND_NULL(s)`).
            let variable_as_type =
                x.kind() == "type_identifier" && self.is_variable(text(x, self.src));
            if x.kind() == "identifier" || variable_as_type {
                let t = text(x, self.src).to_string();
                if seen.insert(t.clone()) {
                    names.push(t);
                }
            }
            let mut c = x.walk();
            stack.extend(x.children(&mut c));
        }
        let mut reads = Vec::new();
        for name in names {
            match self.lookup(&name) {
                Some(Binding::Local(l)) => {
                    let a = self.addr_of_local(l);
                    reads.push(self.deref(a));
                }
                Some(Binding::Global(g, ty)) => {
                    let a = self.addr_of_global(&g, ty);
                    reads.push(self.deref(a));
                }
                None => {
                    if let Some(ty) = self.ctx.env.globals.get(&name).cloned() {
                        let ty = self.resolve(&ty);
                        let a = self.addr_of_global(&name, ty);
                        reads.push(self.deref(a));
                    }
                }
            }
        }
        reads
    }

    fn preproc_body(&mut self, n: Node) {
        let mut c = n.walk();
        let skip = [
            n.child_by_field_name("condition"),
            n.child_by_field_name("name"),
            n.child_by_field_name("alternative"),
        ];
        let kids: Vec<Node> = n
            .named_children(&mut c)
            .filter(|k| !skip.contains(&Some(*k)))
            .collect();
        self.stmt_list(&kids);
    }

    /// `#if A … #elif B … #else … #endif` in a body: one of the branches runs.
    fn preproc_branches(&mut self, n: Node) {
        let range = TextRange::of_node(&n);
        let start = self.ensure_reachable_point(range);
        let join = self.join(TextRange::new(range.end, range.end));
        let mut branch = Some(n);
        let mut saw_else = false;
        let mut guard = 0;
        while let Some(b) = branch {
            guard += 1;
            if guard > 1000 {
                break;
            }
            let is_zero = is_if_zero(b, self.src);
            if b.kind() == "preproc_else" {
                saw_else = true;
            }
            if !is_zero {
                // No new scope: a declaration in a branch belongs to the enclosing block and
                // stays visible after `#endif` (see `local_declaration` for redeclarations).
                self.cur = Some(start);
                self.preproc_body(b);
                self.jump_to(join);
            } else {
                self.consume_elses(TextRange::of_node(&b));
            }
            branch = b.child_by_field_name("alternative");
        }
        if !saw_else {
            self.link(start, join);
        }
        self.cur = Some(join);
    }

    /// `else if (c) { … }` behind `#ifndef`, or `MACRO(x)` without `;` before `if (c) { … }`,
    /// parse as a function definition named `if`. The condition is not understood: the body
    /// may run (once for `if`, any number of times for `while`/`for`) or not.
    fn misparsed_control_statement(&mut self, n: Node, keyword: &str) {
        let range = TextRange::of_node(&n);
        self.fallback(
            range,
            format!("`{keyword}` statement parsed as a function definition: its condition is not understood"),
        );
        // The statement macro in front, if any, and the condition: what they read.
        let mut reads = match n.child_by_field_name("type") {
            Some(t) if t.kind() == "macro_type_specifier" => self.reads_in(t),
            _ => vec![],
        };
        // The declarator holds the condition (one nested declarator per parenthesized operand).
        if let Some(declarator) = n.child_by_field_name("declarator") {
            for r in self.reads_in(declarator) {
                if !reads.contains(&r) {
                    reads.push(r);
                }
            }
        }
        self.emit(
            StmtKind::Opaque {
                reason: format!("`{keyword}` condition not understood"),
                reads,
            },
            range,
        );
        let Some(body) = n.child_by_field_name("body") else {
            return;
        };
        let head = self.ensure_reachable_point(range);
        let exit = self.join(TextRange::new(range.end, range.end));
        let looping = matches!(keyword, "while" | "for");
        if looping {
            self.loops.push(LoopTarget {
                brk: exit,
                cont: Some(head),
                depth: self.scopes.len(),
            });
        }
        self.stmt(body);
        if looping {
            self.loops.pop();
            self.jump_to(head);
        } else {
            self.jump_to(exit);
        }
        self.link(head, exit);
        self.cur = Some(exit);
    }

    /// `MACRO(x)` without `;` followed by a block: a loop macro (`FOREACH(list, it) { … }`).
    /// The macro runs at the head of each iteration; `break` and `continue` in the block work.
    fn loop_macro(&mut self, call: Node, body: Node) {
        let range = TextRange::new(call.start_byte() as u32, body.end_byte() as u32);
        let name = call
            .child_by_field_name("function")
            .map(|f| text(f, self.src).to_string())
            .unwrap_or_default();
        self.fallback(
            TextRange::of_node(&call),
            format!("`{name}` without `;` before a block: lowered as a loop macro"),
        );
        let head = self.join(TextRange::new(range.start, range.start));
        self.goto_node(head);
        let exit = self.join(TextRange::new(range.end, range.end));
        self.effect(call);
        let test = self.ensure_reachable_point(range);
        self.loops.push(LoopTarget {
            brk: exit,
            cont: Some(head),
            depth: self.scopes.len(),
        });
        self.stmt(body);
        self.loops.pop();
        self.jump_to(head);
        self.link(test, exit);
        self.cur = Some(exit);
    }

    /// `GROW⏎free(p);` or `TODO⏎return(0);`: a statement macro without `;` followed by a call
    /// or a `return`, parsed as a block-scope prototype `GROW free(p);`. Returns false for a
    /// real prototype.
    fn misparsed_prototype(&mut self, n: Node) -> bool {
        let src = self.src;
        let Some(spec) = n.child_by_field_name("type") else {
            return false;
        };
        let mut c = n.walk();
        let decls: Vec<Node> = n.children_by_field_name("declarator", &mut c).collect();
        let [fd] = decls.as_slice() else {
            return false;
        };
        let fd = *fd;
        let storage = {
            let mut c = n.walk();
            n.children(&mut c)
                .any(|k| k.kind() == "storage_class_specifier")
        };
        // The "type" must be a name that is not a type (a macro).
        let macro_name = spec.kind() == "type_identifier"
            && !is_builtin_integer_typedef(text(spec, src))
            && !self.ctx.env.typedefs.contains_key(text(spec, src))
            && !self
                .scopes
                .iter()
                .any(|s| s.typedefs.contains_key(text(spec, src)));
        if fd.kind() != "function_declarator" || storage || !macro_name {
            return false;
        }
        let Some(name_node) = fd.child_by_field_name("declarator") else {
            return false;
        };
        let name = text(name_node, src).to_string();
        let params = fd.child_by_field_name("parameters");
        // Evidence of a statement: a keyword as the name, or an argument that is a variable
        // in scope, a literal or not a parameter at all.
        let mut args: Vec<Node> = Vec::new();
        if let Some(p) = params {
            let mut c = p.walk();
            args = p.named_children(&mut c).collect();
        }
        let is_value = |b: &Self, a: &Node| match a.kind() {
            "parameter_declaration" => {
                a.named_child_count() == 1
                    && a.named_child(0).is_some_and(|t| {
                        t.kind() == "type_identifier" && b.is_variable(text(t, src))
                    })
            }
            "comment" => false,
            _ => true,
        };
        let keyword = name_node.kind() == "identifier" && name == "return";
        if !keyword && !args.iter().any(|a| is_value(self, a)) {
            return false;
        }
        let range = TextRange::of_node(&n);
        self.fallback(
            range,
            format!(
                "`{} {name}(…)` parsed as a prototype: lowered as the statement macro `{}` then a {}",
                text(spec, src),
                text(spec, src),
                if keyword { "return" } else { "call" }
            ),
        );
        if keyword {
            let reads = params.map(|p| self.reads_in(p)).unwrap_or_default();
            self.emit(
                StmtKind::Opaque {
                    reason: "return value not understood".into(),
                    reads,
                },
                range,
            );
            if let Some(r) = self.ret {
                let addr = self.addr_of_local(r);
                let u = self.unknown(self.locals[r.0 as usize].ty.clone());
                self.emit(StmtKind::Assign { addr, value: u }, range);
            }
            self.ensure_reachable_point(range);
            self.scope_end_all(range);
            self.cur = None;
            return true;
        }
        let arg_values: Vec<ExprId> = args
            .iter()
            .filter(|a| a.kind() != "comment")
            .map(|a| {
                let var = (a.kind() == "parameter_declaration" && a.named_child_count() == 1)
                    .then(|| a.named_child(0))
                    .flatten()
                    .filter(|t| self.is_variable(text(*t, src)));
                match var {
                    Some(t) => self.identifier_value(t),
                    None => {
                        let reads = self.reads_in(*a);
                        if !reads.is_empty() {
                            self.emit(
                                StmtKind::Opaque {
                                    reason: "argument not understood".into(),
                                    reads,
                                },
                                TextRange::of_node(a),
                            );
                        }
                        self.unknown(Type::Unknown)
                    }
                }
            })
            .collect();
        let callee = if self.is_direct_callee(&name) {
            Callee::Direct(name)
        } else {
            let f = self.identifier_value(name_node);
            Callee::Indirect(f)
        };
        self.emit_call(callee, arg_values, None, n, range);
        true
    }

    /// A name that denotes a variable here (a local, a static, a global).
    fn is_variable(&self, name: &str) -> bool {
        self.lookup(name).is_some() || self.ctx.env.globals.contains_key(name)
    }

    fn local_typedef(&mut self, n: Node) {
        let src = self.src;
        let Some(spec) = n.child_by_field_name("type") else {
            return;
        };
        let base = base_type(spec, src, &mut self.local_structs);
        let mut c = n.walk();
        for d in n.children_by_field_name("declarator", &mut c) {
            let (name, ty) = declarator_type(base.clone(), d, src, &mut self.local_structs);
            if let Some((name, _)) = name
                && let Some(s) = self.scopes.last_mut()
            {
                s.typedefs.insert(name, ty);
            }
        }
    }

    fn local_declaration(&mut self, n: Node) {
        if self.misparsed_prototype(n) {
            return;
        }
        let src = self.src;
        let Some(spec) = n.child_by_field_name("type") else {
            self.fallback(TextRange::of_node(&n), "declaration without a type");
            return;
        };
        let mut storage = "";
        let mut c = n.walk();
        for ch in n.children(&mut c) {
            if ch.kind() == "storage_class_specifier" {
                storage = text(ch, src);
            }
        }
        let base = base_type(spec, src, &mut self.local_structs);
        let mut c = n.walk();
        let declarators: Vec<Node> = n.children_by_field_name("declarator", &mut c).collect();
        let mut declared: Vec<(LocalId, Option<Node>, TextRange)> = Vec::new();
        for d in declarators {
            let (name, ty) = declarator_type(base.clone(), d, src, &mut self.local_structs);
            let Some((name, name_range)) = name else {
                continue;
            };
            let ty = self.resolve(&ty);
            let init = if d.kind() == "init_declarator" {
                d.child_by_field_name("value")
            } else {
                None
            };
            if let Type::Function(_) = ty {
                // A block-scope prototype: nothing to lower.
                continue;
            }
            if storage == "static" || storage == "extern" {
                let global = if storage == "static" {
                    // Two block-scope statics of one name are two objects.
                    let base = format!("{}::{}", self.name, name);
                    let mut global = base.clone();
                    let mut k = 1;
                    while self.statics.iter().any(|(g, _)| *g == global) {
                        k += 1;
                        global = format!("{base}#{k}");
                    }
                    global
                } else {
                    name.clone()
                };
                if storage == "static" {
                    self.statics.push((global.clone(), ty.clone()));
                }
                if let Some(s) = self.scopes.last_mut() {
                    s.names.insert(name, Binding::Global(global, ty));
                }
                // A static's initializer runs once before main, not at each call; it is
                // recorded with the statics, not lowered here.
                continue;
            }
            // VLA sizes are evaluated at the declaration.
            self.vla_sizes(d);
            // A name declared twice in one block comes from alternative `#if` branches
            // (`#ifdef A int *p = x; #else int *p = y; #endif`): both declare the same object.
            let again = self.scopes.last().and_then(|s| match s.names.get(&name) {
                Some(Binding::Local(l)) if self.locals[l.0 as usize].ty == ty => Some(*l),
                _ => None,
            });
            let l = match again {
                Some(l) => l,
                None => {
                    let l = self.new_local(&name, ty, LocalKind::Local, name_range);
                    if let Some(s) = self.scopes.last_mut() {
                        s.names.insert(name, Binding::Local(l));
                        s.locals.push(l);
                    }
                    l
                }
            };
            declared.push((l, init, TextRange::of_node(&d)));
        }
        if declared.is_empty() {
            return;
        }
        let locals: Vec<LocalId> = declared.iter().map(|d| d.0).collect();
        self.emit(StmtKind::ScopeBegin { locals }, TextRange::of_node(&n));
        if has_syntax_error(n) {
            // The names are declared (later statements use them); the initializers are not
            // understood: opaque, and every initialized local gets an unknown value.
            self.syntax_error(n);
            for (l, init, range) in declared {
                if init.is_some() {
                    let addr = self.addr_of_local(l);
                    let u = self.unknown(self.locals[l.0 as usize].ty.clone());
                    self.emit(StmtKind::Assign { addr, value: u }, range);
                }
            }
            return;
        }
        for (l, init, range) in declared {
            if let Some(v) = init {
                let addr = self.addr_of_local(l);
                let ty = self.locals[l.0 as usize].ty.clone();
                self.assign_into(addr, &ty, v, range);
            }
        }
    }

    fn vla_sizes(&mut self, d: Node) {
        let mut node = d;
        for _ in 0..16 {
            if node.kind() == "array_declarator"
                && let Some(size) = node.child_by_field_name("size")
                && !matches!(size.kind(), "number_literal")
            {
                self.effect(size);
            }
            match node.child_by_field_name("declarator") {
                Some(n) => node = n,
                None => break,
            }
        }
    }

    fn if_stmt(&mut self, n: Node) {
        self.if_stmt_with(n, ElseFrom::Nothing);
    }

    /// An `if` (chain); `else_from` says where the innermost `if` without an `else` goes when
    /// its condition fails. Returns that node for `ElseFrom::Open`.
    fn if_stmt_with(&mut self, n: Node, else_from: ElseFrom) -> Option<NodeId> {
        // else-if chains are walked iteratively: they can be thousands long.
        let mut cur_if = n;
        let mut joins: Vec<NodeId> = Vec::new();
        let mut open = None;
        loop {
            self.stray_errors(cur_if);
            let range = TextRange::of_node(&cur_if);
            let join = self.join(TextRange::new(range.end, range.end));
            joins.push(join);
            let t = self.join(range);
            let f = self.join(range);
            match cur_if.child_by_field_name("condition") {
                Some(c) => self.cond(c, t, f),
                None => {
                    let p = self.ensure_reachable_point(range);
                    self.link(p, t);
                    self.link(p, f);
                    self.cur = None;
                }
            }
            self.cur = Some(t);
            if let Some(cons) = cur_if.child_by_field_name("consequence") {
                self.stmt(cons);
            }
            self.jump_to(join);
            self.cur = Some(f);
            let alt = cur_if.child_by_field_name("alternative").and_then(|a| {
                // `else_clause` wraps the statement.
                if a.kind() == "else_clause" {
                    a.named_child(0)
                } else {
                    Some(a)
                }
            });
            match alt {
                Some(a) if a.kind() == "if_statement" => {
                    cur_if = a;
                    continue;
                }
                Some(a) => {
                    self.stmt(a);
                    self.jump_to(join);
                }
                None => match else_from {
                    ElseFrom::Nothing => self.jump_to(join),
                    ElseFrom::Target(target) => self.jump_to(target),
                    ElseFrom::Open => {
                        open = Some(f);
                        self.cur = None;
                    }
                },
            }
            break;
        }
        // Inner joins flow to outer joins.
        for w in joins.windows(2).rev() {
            self.link(w[1], w[0]);
        }
        self.cur = Some(joins[0]);
        open
    }

    fn while_stmt(&mut self, n: Node) {
        let range = TextRange::of_node(&n);
        let head = self.join(TextRange::new(range.start, range.start));
        self.goto_node(head);
        let body = self.join(range);
        let exit = self.join(TextRange::new(range.end, range.end));
        match n.child_by_field_name("condition") {
            Some(c) => self.cond(c, body, exit),
            None => self.jump_to(body),
        }
        self.loops.push(LoopTarget {
            brk: exit,
            cont: Some(head),
            depth: self.scopes.len(),
        });
        self.cur = Some(body);
        if let Some(b) = n.child_by_field_name("body") {
            self.stmt(b);
        }
        self.jump_to(head);
        self.loops.pop();
        self.cur = Some(exit);
    }

    fn do_stmt(&mut self, n: Node) {
        let range = TextRange::of_node(&n);
        let body = self.join(TextRange::new(range.start, range.start));
        self.goto_node(body);
        let test = self.join(range);
        let exit = self.join(TextRange::new(range.end, range.end));
        self.loops.push(LoopTarget {
            brk: exit,
            cont: Some(test),
            depth: self.scopes.len(),
        });
        if let Some(b) = n.child_by_field_name("body") {
            self.stmt(b);
        }
        self.loops.pop();
        self.goto_node(test);
        match n.child_by_field_name("condition") {
            Some(c) => self.cond(c, body, exit),
            None => self.jump_to(body),
        }
        self.cur = Some(exit);
    }

    fn for_stmt(&mut self, n: Node) {
        let range = TextRange::of_node(&n);
        self.push_scope();
        if let Some(init) = n.child_by_field_name("initializer") {
            if init.kind() == "declaration" {
                self.local_declaration(init);
            } else {
                self.effect(init);
            }
        }
        let head = self.join(TextRange::new(range.start, range.start));
        self.goto_node(head);
        let body = self.join(range);
        let exit = self.join(TextRange::new(range.end, range.end));
        match n.child_by_field_name("condition") {
            Some(c) => self.cond(c, body, exit),
            None => self.jump_to(body),
        }
        let update_node = self.join(range);
        self.loops.push(LoopTarget {
            brk: exit,
            cont: Some(update_node),
            depth: self.scopes.len(),
        });
        self.cur = Some(body);
        if let Some(b) = n.child_by_field_name("body") {
            self.stmt(b);
        }
        self.loops.pop();
        self.goto_node(update_node);
        if let Some(u) = n.child_by_field_name("update") {
            self.effect(u);
        }
        self.jump_to(head);
        self.cur = Some(exit);
        self.pop_scope(TextRange::new(range.end, range.end));
    }

    fn switch_stmt(&mut self, n: Node) {
        let range = TextRange::of_node(&n);
        let value = match n.child_by_field_name("condition") {
            Some(c) => self.rvalue(c),
            None => self.scalar(),
        };
        let dispatch = self.ensure_reachable_point(range);
        let exit = self.join(TextRange::new(range.end, range.end));
        let chain = self.scope_chain();
        self.switches.push(SwitchCtx {
            value,
            cases: vec![],
            default: None,
            chain,
        });
        self.loops.push(LoopTarget {
            brk: exit,
            cont: None,
            depth: self.scopes.len(),
        });
        // Code before the first case label is unreachable.
        self.cur = None;
        if let Some(body) = n.child_by_field_name("body") {
            self.stmt(body);
        }
        self.jump_to(exit);
        self.loops.pop();
        let sw = self.switches.pop().expect("switch");
        // Dispatch: one `cond(v == case)` edge per case; the default (or the exit) is reached
        // when every case test fails.
        // A case label after declarations in the switch body skips them: their scope begins
        // on the dispatch edge.
        let mut not_matched = dispatch;
        for (val, target, r, label_chain) in &sw.cases {
            let hit = self.new_node(
                StmtKind::Cond {
                    lhs: sw.value,
                    op: CmpOp::Eq,
                    rhs: *val,
                },
                *r,
            );
            self.link(dispatch, hit);
            let (leaving, entering) = scope_difference(&sw.chain, label_chain);
            self.jump_edge(hit, leaving, entering, *r, *target);
            let miss = self.new_node(
                StmtKind::Cond {
                    lhs: sw.value,
                    op: CmpOp::Ne,
                    rhs: *val,
                },
                *r,
            );
            self.link(not_matched, miss);
            not_matched = miss;
        }
        match &sw.default {
            Some((target, label_chain)) => {
                let (leaving, entering) = scope_difference(&sw.chain, label_chain);
                self.jump_edge(not_matched, leaving, entering, range, *target);
            }
            None => self.link(not_matched, exit),
        }
        self.cur = Some(exit);
    }

    fn case_stmt(&mut self, n: Node) {
        let range = TextRange::of_node(&n);
        let label = self.join(TextRange::new(range.start, range.start));
        // Fall-through from the previous case.
        self.goto_node(label);
        let value_node = n.child_by_field_name("value");
        if self.switches.is_empty() {
            self.fallback(range, "case label outside a switch");
        } else if let Some(v) = value_node {
            // GNU `case 1 ... 5:` parses as `case 1` and ERROR(`... 5`): any of a range.
            let mut c = n.walk();
            let range_case = n.children(&mut c).any(|k| is_case_range_part(k, self.src));
            let val = if range_case {
                self.scalar()
            } else {
                self.case_value(v)
            };
            let r = TextRange::of_node(&v);
            let chain = self.scope_chain();
            self.switches
                .last_mut()
                .expect("switch")
                .cases
                .push((val, label, r, chain));
        } else {
            let chain = self.scope_chain();
            self.switches.last_mut().expect("switch").default = Some((label, chain));
        }
        let mut c = n.walk();
        let kids: Vec<Node> = n
            .named_children(&mut c)
            .filter(|k| Some(*k) != value_node && !is_case_range_part(*k, self.src))
            .collect();
        self.stmt_list(&kids);
    }

    /// Case labels are constant expressions: no statements are emitted for them.
    fn case_value(&mut self, v: Node) -> ExprId {
        match v.kind() {
            "number_literal" => match parse_int_literal(text(v, self.src)) {
                Some(i) => self.int(i),
                None => self.scalar(),
            },
            "identifier" => match self.ctx.env.constants.get(text(v, self.src)) {
                Some(Some(i)) => self.int(*i),
                _ => self.scalar(),
            },
            "char_literal" => match char_literal_value(text(v, self.src)) {
                Some(i) => self.int(i),
                None => self.scalar(),
            },
            "parenthesized_expression" => match v.named_child(0) {
                Some(inner) => self.case_value(inner),
                None => self.scalar(),
            },
            "unary_expression" if operator(v, self.src) == "-" => {
                match v
                    .child_by_field_name("argument")
                    .map(|a| self.case_value(a))
                {
                    Some(a) => match *self.exprs.kind(a) {
                        ExprKind::Int(i) => self.int(i.wrapping_neg()),
                        _ => self.scalar(),
                    },
                    None => self.scalar(),
                }
            }
            _ => self.scalar(),
        }
    }

    fn return_stmt(&mut self, n: Node) {
        let range = TextRange::of_node(&n);
        if has_syntax_error(n) {
            // The returned value is unknown, but the return itself is certain.
            self.syntax_error(n);
            if let Some(r) = self.ret {
                let addr = self.addr_of_local(r);
                let ty = self.locals[r.0 as usize].ty.clone();
                let u = self.unknown(ty);
                self.emit(StmtKind::Assign { addr, value: u }, range);
            }
        } else if let Some(v) = n.named_child(0)
            && v.kind() != "comment"
        {
            match self.ret {
                Some(r) => {
                    let addr = self.addr_of_local(r);
                    let ty = self.locals[r.0 as usize].ty.clone();
                    self.assign_into(addr, &ty, v, range);
                }
                None => {
                    // `return f();` in a void function: evaluate for effects.
                    self.effect(v);
                }
            }
        }
        self.ensure_reachable_point(range);
        self.scope_end_all(range);
        // The successor (the exit) is linked in `finish_body`.
        self.cur = None;
    }

    fn break_stmt(&mut self, n: Node, is_continue: bool) {
        let range = TextRange::of_node(&n);
        let target = self.loops.iter().rev().find_map(|l| {
            if is_continue {
                l.cont.map(|c| (c, l.depth))
            } else {
                Some((l.brk, l.depth))
            }
        });
        let Some((target, depth)) = target else {
            self.fallback(range, "break or continue outside a loop");
            self.cur = None;
            return;
        };
        let leaving = self.locals_above(depth);
        self.ensure_reachable_point(range);
        if !leaving.is_empty() {
            self.emit(
                StmtKind::ScopeEnd {
                    locals: leaving,
                    kind: ScopeEndKind::Block,
                },
                range,
            );
        }
        self.jump_to(target);
    }

    // ---- conditions --------------------------------------------------------------------

    /// Branch on a condition: continue at `t` when it holds and at `f` otherwise.
    fn cond(&mut self, n: Node, t: NodeId, f: NodeId) {
        if self.depth >= MAX_DEPTH {
            let r = TextRange::of_node(&n);
            self.fallback(r, "condition nested too deeply");
            let p = self.ensure_reachable_point(r);
            self.link(p, t);
            self.link(p, f);
            self.cur = None;
            return;
        }
        if has_syntax_error(n) {
            self.syntax_error(n);
            let p = self.ensure_reachable_point(TextRange::of_node(&n));
            self.link(p, t);
            self.link(p, f);
            self.cur = None;
            return;
        }
        self.depth += 1;
        self.cond_inner(n, t, f);
        self.depth -= 1;
    }

    fn cond_inner(&mut self, n: Node, t: NodeId, f: NodeId) {
        let range = TextRange::of_node(&n);
        match n.kind() {
            "parenthesized_expression" => {
                if let Some(inner) = last_named(n) {
                    return self.cond(inner, t, f);
                }
            }
            "comma_expression" => {
                if let Some(l) = n.child_by_field_name("left") {
                    self.effect(l);
                }
                if let Some(r) = n.child_by_field_name("right") {
                    return self.cond(r, t, f);
                }
            }
            "unary_expression" if operator(n, self.src) == "!" => {
                if let Some(a) = n.child_by_field_name("argument") {
                    return self.cond(a, f, t);
                }
            }
            "binary_expression" => {
                let op = operator(n, self.src);
                let (l, r) = (
                    n.child_by_field_name("left"),
                    n.child_by_field_name("right"),
                );
                if let (Some(l), Some(r)) = (l, r) {
                    match op {
                        "&&" => {
                            let mid = self.join(TextRange::of_node(&r));
                            self.cond(l, mid, f);
                            self.cur = Some(mid);
                            return self.cond(r, t, f);
                        }
                        "||" => {
                            let mid = self.join(TextRange::of_node(&r));
                            self.cond(l, t, mid);
                            self.cur = Some(mid);
                            return self.cond(r, t, f);
                        }
                        "==" | "!=" | "<" | "<=" | ">" | ">=" => {
                            let lv = self.rvalue(l);
                            let rv = self.rvalue(r);
                            let op = match op {
                                "==" => CmpOp::Eq,
                                "!=" => CmpOp::Ne,
                                "<" => CmpOp::Lt,
                                "<=" => CmpOp::Le,
                                ">" => CmpOp::Gt,
                                _ => CmpOp::Ge,
                            };
                            return self.branch(lv, op, rv, range, t, f);
                        }
                        _ => {}
                    }
                }
            }
            "cast_expression" => {
                if let Some(v) = n.child_by_field_name("value") {
                    return self.cond(v, t, f);
                }
            }
            _ => {}
        }
        // Any other scalar: true when it is not zero.
        let v = self.rvalue(n);
        let zero = self.int(0);
        self.branch(v, CmpOp::Ne, zero, range, t, f);
    }

    fn branch(&mut self, l: ExprId, op: CmpOp, r: ExprId, range: TextRange, t: NodeId, f: NodeId) {
        let from = self.ensure_reachable_point(range);
        if let (ExprKind::Int(a), ExprKind::Int(b)) = (self.exprs.kind(l), self.exprs.kind(r)) {
            // A constant condition (`while (1)`, `do … while (0)`): only one way to go.
            let holds = match op {
                CmpOp::Eq => a == b,
                CmpOp::Ne => a != b,
                CmpOp::Lt => a < b,
                CmpOp::Le => a <= b,
                CmpOp::Gt => a > b,
                CmpOp::Ge => a >= b,
            };
            self.link(from, if holds { t } else { f });
            self.cur = None;
            return;
        }
        let yes = self.new_node(StmtKind::Cond { lhs: l, op, rhs: r }, range);
        let no = self.new_node(
            StmtKind::Cond {
                lhs: l,
                op: op.negate(),
                rhs: r,
            },
            range,
        );
        self.link(from, yes);
        self.link(yes, t);
        self.link(from, no);
        self.link(no, f);
        self.cur = None;
    }

    /// A condition used as a value (`x = p && q`): branches that store 1 or 0 in a temporary.
    fn cond_value(&mut self, n: Node) -> ExprId {
        let range = TextRange::of_node(&n);
        let tmp = self.new_temp(Type::Int, n);
        let t = self.join(range);
        let f = self.join(range);
        let join = self.join(TextRange::new(range.end, range.end));
        self.cond(n, t, f);
        let addr = self.addr_of_local(tmp);
        let one = self.int(1);
        let zero = self.int(0);
        self.cur = Some(t);
        self.emit(StmtKind::Assign { addr, value: one }, range);
        self.jump_to(join);
        self.cur = Some(f);
        self.emit(StmtKind::Assign { addr, value: zero }, range);
        self.jump_to(join);
        self.cur = Some(join);
        self.deref(addr)
    }

    // ---- expression evaluation ---------------------------------------------------------

    /// Evaluate for side effects only.
    fn effect(&mut self, n: Node) {
        if self.depth >= MAX_DEPTH {
            self.too_deep_stmt(n);
            return;
        }
        if has_syntax_error(n) {
            self.syntax_error(n);
            return;
        }
        self.depth += 1;
        self.effect_inner(n);
        self.depth -= 1;
    }

    fn too_deep_stmt(&mut self, n: Node) {
        let r = TextRange::of_node(&n);
        self.fallback(r, "expression nested too deeply");
        self.opaque_region(n);
    }

    /// One opaque statement for a fragment nested too deeply to lower.
    fn opaque_region(&mut self, n: Node) {
        let r = TextRange::of_node(&n);
        let reads = self.reads_in(n);
        let node = self.emit(
            StmtKind::Opaque {
                reason: "nested too deeply".into(),
                reads,
            },
            r,
        );
        let chain = self.scope_chain();
        self.opaque_regions.push((r, node, chain));
    }

    fn effect_inner(&mut self, n: Node) {
        let range = TextRange::of_node(&n);
        match n.kind() {
            "call_expression" if self.is_assert(n) => self.assert_call(n, range),
            "call_expression" => self.call(n, None, range),
            "assignment_expression" => {
                self.assignment(n);
            }
            "update_expression" => {
                if let Some(a) = n.child_by_field_name("argument") {
                    let addr = self.lvalue(a);
                    self.increment(addr, n, range);
                }
            }
            "comma_expression" => {
                if let Some(l) = n.child_by_field_name("left") {
                    self.effect(l);
                }
                if let Some(r) = n.child_by_field_name("right") {
                    self.effect(r);
                }
            }
            "parenthesized_expression" => {
                let mut c = n.walk();
                let kids: Vec<Node> = n.named_children(&mut c).collect();
                for k in kids {
                    if k.kind() == "compound_statement" {
                        // GNU statement expression used as a statement.
                        self.stmt(k);
                    } else {
                        self.effect(k);
                    }
                }
            }
            "cast_expression" => {
                if let Some(v) = n.child_by_field_name("value") {
                    self.effect(v);
                }
            }
            "conditional_expression" => {
                let t = self.join(range);
                let f = self.join(range);
                let join = self.join(TextRange::new(range.end, range.end));
                match n.child_by_field_name("condition") {
                    Some(c) => self.cond(c, t, f),
                    None => self.jump_to(t),
                }
                self.cur = Some(t);
                if let Some(c) = n.child_by_field_name("consequence") {
                    self.effect(c);
                }
                self.jump_to(join);
                self.cur = Some(f);
                if let Some(a) = n.child_by_field_name("alternative") {
                    self.effect(a);
                }
                self.jump_to(join);
                self.cur = Some(join);
            }
            "binary_expression" if matches!(operator(n, self.src), "&&" | "||") => {
                // `a && f()` as a statement: `f()` runs only when `a` holds; its value is
                // not tested.
                let join = self.join(TextRange::new(range.end, range.end));
                let (Some(l), Some(r)) = (
                    n.child_by_field_name("left"),
                    n.child_by_field_name("right"),
                ) else {
                    self.rvalue(n);
                    return;
                };
                let rhs = self.join(TextRange::of_node(&r));
                if operator(n, self.src) == "&&" {
                    self.cond(l, rhs, join);
                } else {
                    self.cond(l, join, rhs);
                }
                self.cur = Some(rhs);
                self.effect(r);
                self.jump_to(join);
                self.cur = Some(join);
            }
            "gnu_asm_expression" => {
                let reads = self.reads_in(n);
                self.emit(
                    StmtKind::Opaque {
                        reason: "inline assembly".into(),
                        reads,
                    },
                    range,
                );
            }
            _ => {
                // A pure expression: only its nested side effects matter.
                self.rvalue(n);
            }
        }
    }

    /// `x++`, `--x` as a statement: `*addr ← *addr ± 1`.
    fn increment(&mut self, addr: ExprId, n: Node, range: TextRange) {
        let old = self.deref(addr);
        let one = self.int(1);
        let op = if text(n, self.src).contains("++") {
            BinOp::Add
        } else {
            BinOp::Sub
        };
        let new = self.binary(op, old, one);
        self.emit(StmtKind::Assign { addr, value: new }, range);
    }

    /// An assignment expression; returns the assigned location's address.
    fn assignment(&mut self, n: Node) -> ExprId {
        let range = TextRange::of_node(&n);
        let (Some(left), Some(right)) = (
            n.child_by_field_name("left"),
            n.child_by_field_name("right"),
        ) else {
            self.fallback(range, "incomplete assignment");
            return self.unknown(Type::Unknown);
        };
        let addr = self.lvalue(left);
        let op = operator(n, self.src);
        if op == "=" {
            let ty = match self.exprs.ty(addr) {
                Type::Pointer(t) => (**t).clone(),
                _ => Type::Unknown,
            };
            self.assign_into(addr, &ty, right, range);
        } else {
            let bop = match op.trim_end_matches('=') {
                "+" => BinOp::Add,
                "-" => BinOp::Sub,
                "*" => BinOp::Mul,
                "/" => BinOp::Div,
                "%" => BinOp::Rem,
                "<<" => BinOp::Shl,
                ">>" => BinOp::Shr,
                "&" => BinOp::BitAnd,
                "|" => BinOp::BitOr,
                "^" => BinOp::BitXor,
                _ => BinOp::Add,
            };
            let r = self.rvalue(right);
            let old = self.deref(addr);
            let value = self.binary(bop, old, r);
            self.emit(StmtKind::Assign { addr, value }, range);
        }
        addr
    }

    /// Store the value of `value` at `addr` (whose pointee type is `ty`): calls store straight
    /// into the destination, struct values are copied field by field, initializer lists are
    /// spread over fields and elements, `?:` assigns in each branch.
    fn assign_into(&mut self, addr: ExprId, ty: &Type, value: Node, range: TextRange) {
        if self.depth >= MAX_DEPTH {
            // The value is not understood, but where it goes is: the destination is written.
            self.too_deep_stmt(value);
            let u = self.unknown(ty.clone());
            self.emit(StmtKind::Assign { addr, value: u }, range);
            return;
        }
        if has_syntax_error(value) {
            self.syntax_error(value);
            let u = self.unknown(ty.clone());
            self.emit(StmtKind::Assign { addr, value: u }, range);
            return;
        }
        self.depth += 1;
        self.assign_into_inner(addr, ty, value, range);
        self.depth -= 1;
    }

    fn assign_into_inner(&mut self, addr: ExprId, ty: &Type, value: Node, range: TextRange) {
        match value.kind() {
            "string_literal" | "concatenated_string" if matches!(ty, Type::Array(..)) => {
                // `char buf[] = "abc"` copies characters into the array: numbers, not the
                // literal's address.
                let zero = self.int(0);
                let first = self.index_addr(addr, zero);
                let v = self.scalar();
                self.emit(
                    StmtKind::Assign {
                        addr: first,
                        value: v,
                    },
                    range,
                );
            }
            "call_expression" if !self.is_builtin_value_call(value) => {
                self.call(value, Some(addr), range)
            }
            "parenthesized_expression" if value.named_child_count() == 1 => {
                let inner = value.named_child(0).expect("child");
                if inner.kind() == "compound_statement" {
                    let v = self.rvalue(value);
                    self.store(addr, ty, v, range);
                } else {
                    self.assign_into(addr, ty, inner, range)
                }
            }
            "cast_expression" => match value.child_by_field_name("value") {
                Some(v) => self.assign_into(addr, ty, v, range),
                None => {
                    let u = self.unknown(ty.clone());
                    self.store(addr, ty, u, range)
                }
            },
            "conditional_expression" => {
                let vrange = TextRange::of_node(&value);
                let t = self.join(vrange);
                let f = self.join(vrange);
                let join = self.join(TextRange::new(vrange.end, vrange.end));
                let cons = value.child_by_field_name("consequence");
                match value.child_by_field_name("condition") {
                    Some(c) if cons.is_none() => {
                        // GNU `a ?: b`: the condition's value is the result.
                        let cv = self.rvalue(c);
                        let zero = self.int(0);
                        self.branch(cv, CmpOp::Ne, zero, vrange, t, f);
                        self.cur = Some(t);
                        self.store(addr, ty, cv, range);
                        self.jump_to(join);
                    }
                    Some(c) => {
                        self.cond(c, t, f);
                        self.cur = Some(t);
                        if let Some(cons) = cons {
                            self.assign_into(addr, ty, cons, range);
                        }
                        self.jump_to(join);
                    }
                    None => self.jump_to(t),
                }
                self.cur = Some(f);
                if let Some(alt) = value.child_by_field_name("alternative") {
                    self.assign_into(addr, ty, alt, range);
                }
                self.jump_to(join);
                self.cur = Some(join);
            }
            "initializer_list" => self.init_list(addr, ty, value, range, 0),
            "assignment_expression" => {
                // `p = q = e`: the inner assignment first, then copy its location.
                let inner = self.assignment(value);
                let v = self.deref(inner);
                self.store(addr, ty, v, range);
            }
            _ => {
                let v = self.rvalue(value);
                self.store(addr, ty, v, range);
            }
        }
    }

    /// `*addr ← v`, expanding struct copies into field copies.
    fn store(&mut self, addr: ExprId, ty: &Type, v: ExprId, range: TextRange) {
        if ty.is_aggregate()
            && let ExprKind::Deref(src_addr) = *self.exprs.kind(v)
            && self.expand_struct_copy(addr, src_addr, ty, range, 0)
        {
            return;
        }
        self.emit(StmtKind::Assign { addr, value: v }, range);
    }

    /// Copy a struct field by field (recursing into nested struct members). Returns false when
    /// the layout is unknown, so that the caller emits one whole-struct assignment.
    fn expand_struct_copy(
        &mut self,
        dst: ExprId,
        src: ExprId,
        ty: &Type,
        range: TextRange,
        depth: u32,
    ) -> bool {
        let Some(def) = self.struct_def(ty) else {
            return false;
        };
        if def.is_union || def.fields.is_empty() || depth > MAX_STRUCT_EXPANSION {
            return false;
        }
        for f in &def.fields {
            let fty = self.resolve(&f.ty);
            let d = self.field(dst, &f.name);
            let s = self.field(src, &f.name);
            if fty.is_aggregate() && self.expand_struct_copy(d, s, &fty, range, depth + 1) {
                continue;
            }
            let v = self.deref(s);
            self.emit(StmtKind::Assign { addr: d, value: v }, range);
        }
        true
    }

    /// Spread an initializer list over the fields or elements at `addr`. Pointer fields a
    /// struct initializer does not mention are zero, as C says.
    fn init_list(&mut self, addr: ExprId, ty: &Type, list: Node, range: TextRange, depth: u32) {
        let mut c = list.walk();
        let items: Vec<Node> = list
            .named_children(&mut c)
            .filter(|k| k.kind() != "comment")
            .collect();
        if depth > MAX_STRUCT_EXPANSION + 4 {
            self.fallback(TextRange::of_node(&list), "initializer nested too deeply");
            let u = self.unknown(ty.clone());
            self.emit(StmtKind::Assign { addr, value: u }, range);
            return;
        }
        match ty {
            Type::Struct(_) | Type::Union(_) => {
                let Some(def) = self.struct_def(ty) else {
                    for it in items {
                        let v = it.child_by_field_name("value").unwrap_or(it);
                        self.effect(v);
                    }
                    let u = self.unknown(ty.clone());
                    self.emit(StmtKind::Assign { addr, value: u }, range);
                    return;
                };
                let mut next = 0usize;
                let mut mentioned: FxHashSet<String> = FxHashSet::default();
                for it in items {
                    let (field_name, value) = if it.kind() == "initializer_pair" {
                        let d = it.child_by_field_name("designator");
                        let name = d
                            .filter(|d| d.kind() == "field_designator")
                            .and_then(|d| d.named_child(0))
                            .map(|f| text(f, self.src).to_string());
                        let Some(v) = it.child_by_field_name("value") else {
                            continue;
                        };
                        match name {
                            Some(n) => {
                                next = def.fields.iter().position(|f| f.name == n).unwrap_or(0) + 1;
                                (Some(n), v)
                            }
                            None => {
                                // Nested designators (`.a.b = x`, `[i].f = y`).
                                self.fallback(
                                    TextRange::of_node(&it),
                                    "nested designator in initializer",
                                );
                                let v2 = self.rvalue(v);
                                let u = self.unknown(Type::Unknown);
                                let _ = v2;
                                self.emit(StmtKind::Assign { addr, value: u }, range);
                                continue;
                            }
                        }
                    } else {
                        let n = def.fields.get(next).map(|f| f.name.clone());
                        next += 1;
                        (n, it)
                    };
                    let Some(fname) = field_name else {
                        self.effect(value);
                        continue;
                    };
                    mentioned.insert(fname.clone());
                    let fty = self.field_type(ty, &fname);
                    let faddr = self.field(addr, &fname);
                    if value.kind() == "initializer_list" {
                        self.init_list(faddr, &fty, value, range, depth + 1);
                    } else {
                        self.assign_into(faddr, &fty, value, range);
                    }
                    if def.is_union {
                        break;
                    }
                }
                if !def.is_union {
                    for f in &def.fields {
                        if mentioned.contains(&f.name) {
                            continue;
                        }
                        let fty = self.resolve(&f.ty);
                        if fty.is_pointer() {
                            let faddr = self.field(addr, &f.name);
                            let zero = self.int(0);
                            self.emit(
                                StmtKind::Assign {
                                    addr: faddr,
                                    value: zero,
                                },
                                range,
                            );
                        }
                    }
                }
            }
            Type::Array(elem, _) => {
                if items.len() > MAX_INIT_ELEMENTS {
                    self.fallback(TextRange::of_node(&list), "very large array initializer");
                    let u = self.unknown(ty.clone());
                    self.emit(StmtKind::Assign { addr, value: u }, range);
                    return;
                }
                let elem = (**elem).clone();
                if let [only] = items.as_slice()
                    && matches!(only.kind(), "string_literal" | "concatenated_string")
                    && !elem.is_pointer()
                {
                    // `char buf[8] = { "abc" }`: braces around a string initializer.
                    let only = *only;
                    self.assign_into(addr, ty, only, range);
                    return;
                }
                let mut idx: i64 = 0;
                for it in items {
                    let value = if it.kind() == "initializer_pair" {
                        if let Some(d) = it.child_by_field_name("designator")
                            && d.kind() == "subscript_designator"
                            && let Some(i) = d
                                .named_child(0)
                                .and_then(|x| parse_int_literal(text(x, self.src)))
                        {
                            idx = i;
                        }
                        match it.child_by_field_name("value") {
                            Some(v) => v,
                            None => continue,
                        }
                    } else {
                        it
                    };
                    let i = self.int(idx);
                    let eaddr = self.index_addr(addr, i);
                    if value.kind() == "initializer_list" {
                        self.init_list(eaddr, &elem, value, range, depth + 1);
                    } else {
                        self.assign_into(eaddr, &elem, value, range);
                    }
                    idx += 1;
                }
            }
            _ => {
                // `int x = { 0 };`, or a type we could not resolve: the first item is the value.
                match items.first() {
                    Some(first) if items.len() == 1 && first.kind() != "initializer_pair" => {
                        let f = *first;
                        self.assign_into(addr, ty, f, range)
                    }
                    _ => {
                        for it in items {
                            let v = it.child_by_field_name("value").unwrap_or(it);
                            self.effect(v);
                        }
                        let u = self.unknown(ty.clone());
                        self.emit(StmtKind::Assign { addr, value: u }, range);
                    }
                }
            }
        }
    }

    /// The value of an expression.
    fn rvalue(&mut self, n: Node) -> ExprId {
        if self.depth >= MAX_DEPTH {
            self.fallback(TextRange::of_node(&n), "expression nested too deeply");
            self.opaque_region(n);
            return self.unknown(Type::Unknown);
        }
        if has_syntax_error(n) {
            self.syntax_error(n);
            return self.unknown(Type::Unknown);
        }
        self.depth += 1;
        let v = self.rvalue_inner(n);
        self.depth -= 1;
        v
    }

    fn rvalue_inner(&mut self, n: Node) -> ExprId {
        let range = TextRange::of_node(&n);
        let src = self.src;
        match n.kind() {
            "number_literal" => match parse_int_literal(text(n, src)) {
                Some(v) => self.int(v),
                None => self.expr(ExprKind::Scalar, Type::Float),
            },
            "char_literal" => match char_literal_value(text(n, src)) {
                Some(v) => self.int(v),
                None => self.scalar(),
            },
            "true" => self.int(1),
            "false" | "null" => self.int(0),
            "string_literal" | "concatenated_string" | "raw_string_literal" => {
                let k = self.string_literals;
                self.string_literals += 1;
                self.expr(
                    ExprKind::Addr(Symbol::StringLit(k)),
                    Type::pointer_to(Type::Int),
                )
            }
            "identifier" => self.identifier_value(n),
            "field_expression" | "subscript_expression" => {
                let a = self.lvalue(n);
                self.value_at(a)
            }
            "pointer_expression" => {
                let op = operator(n, src);
                let Some(arg) = n.child_by_field_name("argument") else {
                    return self.unknown(Type::Unknown);
                };
                if op == "&" && arg.kind() == "pointer_expression" && operator(arg, src) == "&" {
                    // GNU `&&label` (parsed as `&(&label)`): a code address, never heap.
                    return self.expr(ExprKind::Scalar, Type::pointer_to(Type::Void));
                }
                if op == "&" {
                    let a = self.lvalue(arg);
                    self.mark_address_taken(a);
                    a
                } else {
                    let p = self.rvalue(arg);
                    // `*fp` for a function pointer is the function pointer itself.
                    if let Type::Pointer(t) = self.exprs.ty(p)
                        && matches!(**t, Type::Function(_))
                    {
                        return p;
                    }
                    self.value_at(p)
                }
            }
            "call_expression" => self.call_value(n),
            "assignment_expression" => {
                let a = self.assignment(n);
                self.deref(a)
            }
            "update_expression" => {
                let Some(arg) = n.child_by_field_name("argument") else {
                    return self.unknown(Type::Unknown);
                };
                let addr = self.lvalue(arg);
                let prefix = text(n, src).trim_start().starts_with(['+', '-']);
                if prefix {
                    self.increment(addr, n, range);
                    self.deref(addr)
                } else {
                    // Postfix: the old value lives in a temporary.
                    let ty = match self.exprs.ty(addr) {
                        Type::Pointer(t) => (**t).clone(),
                        _ => Type::Unknown,
                    };
                    let tmp = self.new_temp(ty, n);
                    let taddr = self.addr_of_local(tmp);
                    let old = self.deref(addr);
                    self.emit(
                        StmtKind::Assign {
                            addr: taddr,
                            value: old,
                        },
                        range,
                    );
                    self.increment(addr, n, range);
                    self.deref(taddr)
                }
            }
            "binary_expression" => {
                let op = operator(n, src);
                match op {
                    "&&" | "||" | "==" | "!=" | "<" | "<=" | ">" | ">=" => self.cond_value(n),
                    _ => {
                        let (Some(l), Some(r)) = (
                            n.child_by_field_name("left"),
                            n.child_by_field_name("right"),
                        ) else {
                            return self.unknown(Type::Unknown);
                        };
                        let lv = self.rvalue(l);
                        let rv = self.rvalue(r);
                        let bop = match op {
                            "+" => BinOp::Add,
                            "-" => BinOp::Sub,
                            "*" => BinOp::Mul,
                            "/" => BinOp::Div,
                            "%" => BinOp::Rem,
                            "<<" => BinOp::Shl,
                            ">>" => BinOp::Shr,
                            "&" => BinOp::BitAnd,
                            "|" => BinOp::BitOr,
                            "^" => BinOp::BitXor,
                            _ => BinOp::Compare,
                        };
                        self.binary(bop, lv, rv)
                    }
                }
            }
            "unary_expression" => {
                let op = operator(n, src);
                let Some(arg) = n.child_by_field_name("argument") else {
                    return self.unknown(Type::Unknown);
                };
                match op {
                    "!" => self.cond_value(n),
                    "+" => self.rvalue(arg),
                    "-" => {
                        if arg.kind() == "number_literal"
                            && let Some(v) = parse_int_literal(text(arg, src))
                        {
                            return self.int(-v);
                        }
                        let v = self.rvalue(arg);
                        let zero = self.int(0);
                        self.binary(BinOp::Sub, zero, v)
                    }
                    _ => {
                        let v = self.rvalue(arg);
                        let m1 = self.int(-1);
                        self.binary(BinOp::BitXor, v, m1)
                    }
                }
            }
            "parenthesized_expression" => {
                let mut c = n.walk();
                let kids: Vec<Node> = n.named_children(&mut c).collect();
                match kids.as_slice() {
                    [one] if one.kind() == "compound_statement" => self.statement_expr(*one),
                    [.., last] => {
                        let last = *last;
                        for k in &kids[..kids.len() - 1] {
                            self.effect(*k);
                        }
                        self.rvalue(last)
                    }
                    [] => self.unknown(Type::Unknown),
                }
            }
            "comma_expression" => {
                if let Some(l) = n.child_by_field_name("left") {
                    self.effect(l);
                }
                match n.child_by_field_name("right") {
                    Some(r) => self.rvalue(r),
                    None => self.unknown(Type::Unknown),
                }
            }
            "cast_expression" => {
                // Casts are transparent: the value keeps its identity (and its type), so hit
                // and miss facts about it survive the cast.
                let target = n
                    .child_by_field_name("type")
                    .map(|t| type_descriptor(t, src, &mut self.local_structs))
                    .map(|t| self.resolve(&t))
                    .unwrap_or_default();
                match n.child_by_field_name("value") {
                    Some(v) => {
                        let e = self.rvalue(v);
                        if *self.exprs.ty(e) == Type::Unknown && target != Type::Unknown {
                            // Re-type a value we knew nothing about: the cast is the best
                            // information there is.
                            let kind = self.exprs.kind(e).clone();
                            return self.expr(kind, target);
                        }
                        e
                    }
                    None => self.unknown(target),
                }
            }
            "conditional_expression" => {
                let ty = self.static_type(n);
                let tmp = self.new_temp(ty.clone(), n);
                let a = self.addr_of_local(tmp);
                self.assign_into(a, &ty, n, range);
                self.deref(a)
            }
            "sizeof_expression" | "alignof_expression" | "offsetof_expression" => self.scalar(),
            "compound_literal_expression" => {
                let a = self.compound_literal(n);
                self.value_at(a)
            }
            "initializer_list" => {
                // Only meaningful in an initializer; as a value, evaluate its parts.
                let mut c = n.walk();
                let kids: Vec<Node> = n.named_children(&mut c).collect();
                for k in kids {
                    self.effect(k);
                }
                self.unknown(Type::Unknown)
            }
            "generic_expression" => {
                self.fallback(range, "_Generic selection");
                self.unknown(Type::Unknown)
            }
            "gnu_asm_expression" => {
                let reads = self.reads_in(n);
                self.emit(
                    StmtKind::Opaque {
                        reason: "inline assembly".into(),
                        reads,
                    },
                    range,
                );
                self.unknown(Type::Unknown)
            }
            "extension_expression" => match n.named_child(0) {
                Some(inner) => self.rvalue(inner),
                None => self.unknown(Type::Unknown),
            },
            "comment" => self.scalar(),
            other => {
                self.fallback(range, format!("unsupported expression `{other}`"));
                let reads = self.reads_in(n);
                if !reads.is_empty() {
                    self.emit(
                        StmtKind::Opaque {
                            reason: format!("unsupported expression `{other}`"),
                            reads,
                        },
                        range,
                    );
                }
                self.unknown(Type::Unknown)
            }
        }
    }

    /// The value stored at `addr`: arrays decay to their address instead of being read.
    fn value_at(&mut self, addr: ExprId) -> ExprId {
        match self.exprs.ty(addr) {
            Type::Pointer(t) if matches!(**t, Type::Array(..) | Type::Function(_)) => addr,
            _ => self.deref(addr),
        }
    }

    fn identifier_value(&mut self, n: Node) -> ExprId {
        let name = text(n, self.src);
        match name {
            "NULL" => return self.expr(ExprKind::Int(0), Type::pointer_to(Type::Void)),
            "true" | "TRUE" => return self.int(1),
            "false" | "FALSE" => return self.int(0),
            // A type keyword as a macro argument (`container_of(p, struct s, m)`).
            "struct" | "union" | "enum" | "int" | "char" | "short" | "long" | "unsigned"
            | "signed" | "float" | "double" | "void" | "const" | "volatile" => {
                return self.scalar();
            }
            _ => {}
        }
        match self.lookup(name) {
            Some(Binding::Local(l)) => {
                let a = self.addr_of_local(l);
                self.value_at(a)
            }
            Some(Binding::Global(g, ty)) => {
                let a = self.addr_of_global(&g, ty);
                self.value_at(a)
            }
            None => {
                if let Some(ty) = self.ctx.env.globals.get(name).cloned() {
                    let ty = self.resolve(&ty);
                    let a = self.addr_of_global(name, ty);
                    return self.value_at(a);
                }
                if let Some(sig) = self.ctx.env.functions.get(name).cloned() {
                    let sig = resolve_sig(self.ctx.env, &sig);
                    return self.expr(
                        ExprKind::Addr(Symbol::Function(name.to_string())),
                        Type::pointer_to(Type::Function(Box::new(sig))),
                    );
                }
                if let Some(c) = self.ctx.env.constants.get(name) {
                    return match c {
                        Some(v) => self.int(*v),
                        None => self.scalar(),
                    };
                }
                // Declared in a header we cannot see (or a macro): read it as a global of
                // unknown type. Treating it as a number could hide a pointer and wrongly
                // contradict a probe.
                let a = self.addr_of_global(name, Type::Unknown);
                self.deref(a)
            }
        }
    }

    /// GNU `({ stmts; e; })`: lower the statements, the last expression is the value.
    fn statement_expr(&mut self, block: Node) -> ExprId {
        self.push_scope();
        let mut c = block.walk();
        let kids: Vec<Node> = block.named_children(&mut c).collect();
        let mut value = None;
        for (i, k) in kids.iter().enumerate() {
            if i + 1 == kids.len() && k.kind() == "expression_statement" {
                value = k.named_child(0).map(|e| self.rvalue(e));
            } else {
                self.stmt(*k);
            }
        }
        let v = value.unwrap_or_else(|| self.scalar());
        // The value may read a block local: copy it out before the scope ends.
        let ty = self.ty(v);
        let tmp = self.new_temp(ty, block);
        let a = self.addr_of_local(tmp);
        self.ensure_reachable_point(TextRange::of_node(&block));
        self.emit(
            StmtKind::Assign { addr: a, value: v },
            TextRange::of_node(&block),
        );
        let end = TextRange::of_node(&block);
        self.pop_scope(TextRange::new(end.end.saturating_sub(1), end.end));
        self.deref(a)
    }

    fn compound_literal(&mut self, n: Node) -> ExprId {
        let ty = n
            .child_by_field_name("type")
            .map(|t| type_descriptor(t, self.src, &mut self.local_structs))
            .map(|t| self.resolve(&t))
            .unwrap_or_default();
        let tmp = self.new_temp(ty.clone(), n);
        let a = self.addr_of_local(tmp);
        if let Some(v) = n.child_by_field_name("value") {
            self.init_list(a, &ty, v, TextRange::of_node(&n), 0);
        }
        a
    }

    /// The type an expression would have, without lowering it (for `?:` temporaries).
    fn static_type(&mut self, n: Node) -> Type {
        match n.kind() {
            "identifier" => {
                let name = text(n, self.src);
                match self.lookup(name) {
                    Some(Binding::Local(l)) => self.locals[l.0 as usize].ty.clone(),
                    Some(Binding::Global(_, t)) => t,
                    None => {
                        if let Some(t) = self.ctx.env.globals.get(name) {
                            self.resolve(t)
                        } else if let Some(sig) = self.ctx.env.functions.get(name) {
                            let sig = resolve_sig(self.ctx.env, sig);
                            Type::pointer_to(Type::Function(Box::new(sig)))
                        } else if name == "NULL" {
                            Type::pointer_to(Type::Void)
                        } else if self.ctx.env.constants.contains_key(name) {
                            Type::Int
                        } else {
                            Type::Unknown
                        }
                    }
                }
            }
            "call_expression" => {
                let callee = n.child_by_field_name("function");
                match callee.filter(|c| c.kind() == "identifier") {
                    Some(c) if self.is_direct_callee(text(c, self.src)) => {
                        self.call_return_type(text(c, self.src))
                    }
                    _ => self.indirect_return_type(callee),
                }
            }
            "pointer_expression" => {
                let Some(arg) = n.child_by_field_name("argument") else {
                    return Type::Unknown;
                };
                let t = self.static_type(arg);
                if operator(n, self.src) == "&" {
                    return Type::pointer_to(t);
                }
                match t {
                    // `*fp` for a function pointer is the function pointer itself.
                    Type::Pointer(inner) if matches!(*inner, Type::Function(_)) => {
                        Type::Pointer(inner)
                    }
                    Type::Pointer(inner) | Type::Array(inner, _) => *inner,
                    _ => Type::Unknown,
                }
            }
            "field_expression" => {
                let (Some(arg), Some(f)) = (
                    n.child_by_field_name("argument"),
                    n.child_by_field_name("field"),
                ) else {
                    return Type::Unknown;
                };
                let base = self.static_type(arg);
                let arrow = n
                    .child_by_field_name("operator")
                    .map(|o| text(o, self.src) == "->")
                    .unwrap_or(false);
                let sty = match base {
                    Type::Pointer(inner) | Type::Array(inner, _) if arrow => *inner,
                    t if !arrow => t,
                    _ => Type::Unknown,
                };
                self.field_type(&sty, text(f, self.src))
            }
            "subscript_expression" => {
                let (Some(a), Some(i)) = (
                    n.child_by_field_name("argument"),
                    n.child_by_field_name("index"),
                ) else {
                    return Type::Unknown;
                };
                let base = self.static_type(a);
                let base = if base.is_pointer_like() {
                    base
                } else {
                    self.static_type(i)
                };
                base.pointee().cloned().unwrap_or_default()
            }
            "assignment_expression" => match n.child_by_field_name("left") {
                Some(l) => self.static_type(l),
                None => Type::Unknown,
            },
            "conditional_expression" => {
                let a = n
                    .child_by_field_name("consequence")
                    .map(|c| self.static_type(c))
                    .unwrap_or_default();
                let b = n
                    .child_by_field_name("alternative")
                    .map(|c| self.static_type(c))
                    .unwrap_or_default();
                // `c ? p : 0` has the pointer's type, not the constant's.
                match (&a, &b) {
                    (_, b) if b.is_pointer_like() && !a.is_pointer_like() => decayed(b),
                    (Type::Unknown, _) => b,
                    _ => decayed(&a),
                }
            }
            "compound_literal_expression" => n
                .child_by_field_name("type")
                .map(|t| type_descriptor(t, self.src, &mut self.local_structs))
                .map(|t| self.resolve(&t))
                .unwrap_or_default(),
            "string_literal" | "concatenated_string" => Type::pointer_to(Type::Int),
            "number_literal" => match parse_int_literal(text(n, self.src)) {
                Some(_) => Type::Int,
                None => Type::Float,
            },
            "char_literal" | "sizeof_expression" => Type::Int,
            "null" => Type::pointer_to(Type::Void),
            "cast_expression" => n
                .child_by_field_name("type")
                .map(|t| type_descriptor(t, self.src, &mut self.local_structs))
                .map(|t| self.resolve(&t))
                .unwrap_or_default(),
            "parenthesized_expression" => match last_named(n) {
                Some(i) => self.static_type(i),
                None => Type::Unknown,
            },
            _ => Type::Unknown,
        }
    }

    /// The address an lvalue expression designates.
    fn lvalue(&mut self, n: Node) -> ExprId {
        if self.depth >= MAX_DEPTH {
            self.fallback(TextRange::of_node(&n), "expression nested too deeply");
            return self.unknown(Type::pointer_to(Type::Unknown));
        }
        if has_syntax_error(n) {
            self.syntax_error(n);
            return self.unknown(Type::pointer_to(Type::Unknown));
        }
        self.depth += 1;
        let v = self.lvalue_inner(n);
        self.depth -= 1;
        v
    }

    fn lvalue_inner(&mut self, n: Node) -> ExprId {
        let range = TextRange::of_node(&n);
        let src = self.src;
        match n.kind() {
            "identifier" => {
                let name = text(n, src);
                match self.lookup(name) {
                    Some(Binding::Local(l)) => self.addr_of_local(l),
                    Some(Binding::Global(g, ty)) => self.addr_of_global(&g, ty),
                    None => {
                        if let Some(sig) = self.ctx.env.functions.get(name).cloned() {
                            let sig = resolve_sig(self.ctx.env, &sig);
                            return self.expr(
                                ExprKind::Addr(Symbol::Function(name.to_string())),
                                Type::pointer_to(Type::Function(Box::new(sig))),
                            );
                        }
                        let ty = self
                            .ctx
                            .env
                            .globals
                            .get(name)
                            .map(|t| self.resolve(t))
                            .unwrap_or_default();
                        self.addr_of_global(name, ty)
                    }
                }
            }
            "field_expression" => {
                let (Some(arg), Some(f)) = (
                    n.child_by_field_name("argument"),
                    n.child_by_field_name("field"),
                ) else {
                    return self.unknown(Type::pointer_to(Type::Unknown));
                };
                let fname = text(f, src).to_string();
                let arrow = n
                    .child_by_field_name("operator")
                    .map(|o| text(o, src) == "->")
                    .unwrap_or_else(|| text(n, src).contains("->"));
                let base = if arrow {
                    self.rvalue(arg)
                } else {
                    self.lvalue(arg)
                };
                // `arr->f` on an array is `arr[0].f`: the array's address is the base.
                self.field(base, &fname)
            }
            "subscript_expression" => {
                let (Some(a), Some(i)) = (
                    n.child_by_field_name("argument"),
                    n.child_by_field_name("index"),
                ) else {
                    return self.unknown(Type::pointer_to(Type::Unknown));
                };
                let base = self.rvalue(a);
                let idx = self.rvalue(i);
                // `i[a]` is legal C: keep the pointer on the left.
                if !self.exprs.ty(base).is_pointer_like() && self.exprs.ty(idx).is_pointer_like() {
                    return self.index_addr(idx, base);
                }
                self.index_addr(base, idx)
            }
            "pointer_expression" if operator(n, src) == "*" => {
                match n.child_by_field_name("argument") {
                    Some(a) => self.rvalue(a),
                    None => self.unknown(Type::pointer_to(Type::Unknown)),
                }
            }
            "parenthesized_expression" => match last_named(n) {
                Some(inner) => {
                    let mut c = n.walk();
                    let kids: Vec<Node> = n.named_children(&mut c).collect();
                    for k in &kids[..kids.len().saturating_sub(1)] {
                        self.effect(*k);
                    }
                    self.lvalue(inner)
                }
                None => self.unknown(Type::pointer_to(Type::Unknown)),
            },
            "cast_expression" => match n.child_by_field_name("value") {
                Some(v) => self.lvalue(v),
                None => self.unknown(Type::pointer_to(Type::Unknown)),
            },
            "compound_literal_expression" => self.compound_literal(n),
            "comma_expression" => {
                if let Some(l) = n.child_by_field_name("left") {
                    self.effect(l);
                }
                match n.child_by_field_name("right") {
                    Some(r) => self.lvalue(r),
                    None => self.unknown(Type::pointer_to(Type::Unknown)),
                }
            }
            "string_literal" | "concatenated_string" => self.rvalue(n),
            "call_expression" | "assignment_expression" | "conditional_expression" => {
                // A struct-valued rvalue used as an object (`f().x`): materialize it.
                let v = self.rvalue(n);
                let ty = self.ty(v);
                if let ExprKind::Deref(a) = *self.exprs.kind(v) {
                    return a;
                }
                let tmp = self.new_temp(ty.clone(), n);
                let a = self.addr_of_local(tmp);
                self.emit(StmtKind::Assign { addr: a, value: v }, range);
                a
            }
            other => {
                self.fallback(range, format!("unsupported lvalue `{other}`"));
                let reads = self.reads_in(n);
                if !reads.is_empty() {
                    self.emit(
                        StmtKind::Opaque {
                            reason: format!("unsupported lvalue `{other}`"),
                            reads,
                        },
                        range,
                    );
                }
                self.unknown(Type::pointer_to(Type::Unknown))
            }
        }
    }

    // ---- calls -------------------------------------------------------------------------

    fn call_return_type(&self, name: &str) -> Type {
        if let Some(t) = self.ctx.lib.alloc_return_type(name) {
            return t;
        }
        match self.ctx.env.functions.get(name) {
            Some(sig) => self.resolve(&sig.ret),
            None => Type::Unknown,
        }
    }

    /// A called name that is not a variable (a local, a function-scope static or a global
    /// function pointer) is a direct call.
    fn is_direct_callee(&self, name: &str) -> bool {
        self.lookup(name).is_none() && !self.ctx.env.globals.contains_key(name)
    }

    /// Calls that are really operators or macros with a value (`__builtin_expect`, `va_arg`).
    fn is_builtin_value_call(&self, n: Node) -> bool {
        n.child_by_field_name("function")
            .filter(|f| f.kind() == "identifier")
            .map(|f| {
                matches!(
                    text(f, self.src),
                    "__builtin_expect"
                        | "likely"
                        | "unlikely"
                        | "va_arg"
                        | "__builtin_va_arg"
                        | "offsetof"
                )
            })
            .unwrap_or(false)
    }

    /// The value of a call: the result lands in a fresh temporary.
    fn call_value(&mut self, n: Node) -> ExprId {
        let range = TextRange::of_node(&n);
        let callee = n.child_by_field_name("function");
        let name = callee
            .filter(|c| c.kind() == "identifier")
            .map(|c| text(c, self.src).to_string());
        if let Some(name) = &name {
            let args = n.child_by_field_name("arguments");
            match name.as_str() {
                "__builtin_expect" | "likely" | "unlikely" => {
                    if let Some(a) = args.and_then(|a| a.named_child(0)) {
                        return self.rvalue(a);
                    }
                }
                "va_arg" | "__builtin_va_arg" => {
                    // `va_arg(ap, T)`: the grammar sees a call with a type argument. The value
                    // comes from the caller's variadic arguments: unknown.
                    if let Some(a) = args.and_then(|a| a.named_child(0)) {
                        self.rvalue(a);
                    }
                    let ty = self.va_arg_type(n);
                    return self.unknown(ty);
                }
                "offsetof" => return self.scalar(),
                _ => {}
            }
        }
        let ty = self.static_type(n);
        if ty == Type::Void {
            self.call(n, None, range);
            return self.scalar();
        }
        let tmp = self.new_temp(ty, n);
        let a = self.addr_of_local(tmp);
        self.call(n, Some(a), range);
        self.value_at(a)
    }

    fn va_arg_type(&mut self, n: Node) -> Type {
        // `va_arg(ap, char *)` parses as arguments `ap`, `char`, ERROR(`*`).
        let t = text(n, self.src);
        let inner = t
            .split_once(',')
            .map(|(_, r)| r.trim_end_matches(')').trim())
            .unwrap_or("");
        if inner.ends_with('*') {
            Type::pointer_to(Type::Unknown)
        } else if inner.contains("double") || inner.contains("float") {
            Type::Float
        } else if inner.contains("int") || inner.contains("long") || inner.contains("char") {
            Type::Int
        } else {
            Type::Unknown
        }
    }

    fn indirect_return_type(&mut self, callee: Option<Node>) -> Type {
        let Some(c) = callee else {
            return Type::Unknown;
        };
        let t = self.static_type(c);
        match t {
            Type::Pointer(inner) => match *inner {
                Type::Function(sig) => sig.ret,
                _ => Type::Unknown,
            },
            Type::Function(sig) => sig.ret,
            _ => Type::Unknown,
        }
    }

    /// Lower a call, storing the result at `dest` (an address) if given.
    /// `assert(e)` (the `<assert.h>` macro, seen unexpanded), unless the file declares an
    /// `assert` of its own.
    fn is_assert(&self, n: Node) -> bool {
        n.child_by_field_name("function")
            .is_some_and(|f| f.kind() == "identifier" && text(f, self.src) == "assert")
            && self.is_direct_callee("assert")
            && !self.ctx.env.functions.contains_key("assert")
            && n.child_by_field_name("arguments")
                .is_some_and(|a| a.named_child_count() == 1)
    }

    /// `assert(e)` as `if (!(e)) abort();`: past it, `e` holds. A program built with
    /// `NDEBUG` skips the check; a path on which an assertion fails is one its author ruled
    /// out, and the analysis does the same (ARCHITECTURE.md, "Unsound assumptions").
    fn assert_call(&mut self, n: Node, range: TextRange) {
        let Some(arg) = n
            .child_by_field_name("arguments")
            .and_then(|a| a.named_child(0))
        else {
            return;
        };
        self.ensure_reachable_point(range);
        let holds = self.join(range);
        let fails = self.join(range);
        self.cond(arg, holds, fails);
        self.cur = Some(fails);
        self.emit_call(Callee::Direct("abort".into()), Vec::new(), None, n, range);
        self.jump_to(holds);
        self.cur = Some(holds);
    }

    fn call(&mut self, n: Node, dest: Option<ExprId>, range: TextRange) {
        let Some(callee_node) = n.child_by_field_name("function") else {
            self.fallback(range, "call without a callee");
            return;
        };
        let mut arg_nodes: Vec<Node> = Vec::new();
        if let Some(args) = n.child_by_field_name("arguments") {
            let mut c = args.walk();
            arg_nodes = args
                .named_children(&mut c)
                .filter(|a| a.kind() != "comment")
                .collect();
        }
        let direct_name = (callee_node.kind() == "identifier")
            .then(|| text(callee_node, self.src).to_string())
            .filter(|nm| self.is_direct_callee(nm));
        let callee = match &direct_name {
            Some(nm) => Callee::Direct(nm.clone()),
            None => {
                let f = self.rvalue(callee_node);
                // A function designator reached through `(*f)` or `(f)` is a direct call.
                match self.exprs.kind(f) {
                    ExprKind::Addr(Symbol::Function(nm)) => Callee::Direct(nm.clone()),
                    _ => Callee::Indirect(f),
                }
            }
        };
        let args: Vec<ExprId> = arg_nodes
            .iter()
            .map(|a| {
                if a.is_error() {
                    self.fallback(TextRange::of_node(a), "argument not understood (a type?)");
                    self.unknown(Type::Unknown)
                } else {
                    self.rvalue(*a)
                }
            })
            .collect();
        self.emit_call(callee, args, dest, n, range);
    }

    /// The call statement itself, its arguments evaluated: an allocation, a free, or a call.
    fn emit_call(
        &mut self,
        callee: Callee,
        args: Vec<ExprId>,
        dest: Option<ExprId>,
        n: Node,
        range: TextRange,
    ) {
        self.ensure_reachable_point(range);
        if let Callee::Direct(name) = &callee {
            if let Some(kind) = self.ctx.lib.allocators.get(name).cloned() {
                self.alloc_call(name, kind, dest, &args, n, range);
                return;
            }
            if let Some(&i) = self.ctx.lib.deallocators.get(name) {
                match args.get(i as usize) {
                    Some(&p) => {
                        self.emit(StmtKind::Free { ptr: p }, range);
                    }
                    None => self.fallback(range, format!("`{name}` called without its argument")),
                }
                if let Some(d) = dest {
                    let z = self.int(0);
                    self.emit(StmtKind::Assign { addr: d, value: z }, range);
                }
                return;
            }
        }
        self.emit(StmtKind::Call { dest, callee, args }, range);
    }

    fn alloc_call(
        &mut self,
        name: &str,
        kind: AllocKind,
        dest: Option<ExprId>,
        args: &[ExprId],
        n: Node,
        range: TextRange,
    ) {
        let site = AllocSite {
            allocator: name.to_string(),
        };
        // An ignored allocation still makes a cell: it lands in a temporary nobody reads.
        let dest_or_temp = |b: &mut Self| -> ExprId {
            match dest {
                Some(d) => d,
                None => {
                    let ty = b.call_return_type(name);
                    let t = b.new_temp(ty, n);
                    b.addr_of_local(t)
                }
            }
        };
        match kind {
            AllocKind::Returns => {
                let addr = dest_or_temp(self);
                self.emit(StmtKind::Alloc { addr, site }, range);
            }
            AllocKind::Realloc { ptr_arg } => {
                // Success: the old block is freed and a new one returned. Failure: NULL is
                // returned and the old block is untouched.
                let addr = dest_or_temp(self);
                let from = self.ensure_reachable_point(range);
                let join = self.join(TextRange::new(range.end, range.end));
                match args.get(ptr_arg as usize) {
                    Some(&old) => {
                        self.emit(StmtKind::Free { ptr: old }, range);
                    }
                    None => self.fallback(range, format!("`{name}` without its pointer argument")),
                }
                self.emit(StmtKind::Alloc { addr, site }, range);
                self.jump_to(join);
                self.cur = Some(from);
                let zero = self.int(0);
                self.emit(StmtKind::Assign { addr, value: zero }, range);
                self.jump_to(join);
                self.cur = Some(join);
            }
            AllocKind::OutParam {
                arg,
                success,
                failure,
            } => {
                let Some(&out) = args.get(arg as usize) else {
                    self.fallback(range, format!("`{name}` without its out-parameter"));
                    return;
                };
                let from = self.ensure_reachable_point(range);
                let join = self.join(TextRange::new(range.end, range.end));
                self.emit(StmtKind::Alloc { addr: out, site }, range);
                if let Some(d) = dest {
                    match success {
                        Some(s) => {
                            let v = self.int(s);
                            self.emit(StmtKind::Assign { addr: d, value: v }, range);
                        }
                        None => {
                            // A count we do not track, but never negative: say so, so that
                            // `if (asprintf(...) < 0)` separates the two outcomes.
                            let v = self.scalar();
                            self.emit(StmtKind::Assign { addr: d, value: v }, range);
                            let result = self.deref(d);
                            let zero = self.int(0);
                            self.emit(
                                StmtKind::Cond {
                                    lhs: result,
                                    op: CmpOp::Ge,
                                    rhs: zero,
                                },
                                range,
                            );
                        }
                    }
                }
                self.jump_to(join);
                self.cur = Some(from);
                if let Some(d) = dest {
                    let v = self.int(failure);
                    self.emit(StmtKind::Assign { addr: d, value: v }, range);
                } else {
                    // Keep the failure path a distinct edge even with no result to store.
                    self.emit(StmtKind::Nop, range);
                }
                self.jump_to(join);
                self.cur = Some(join);
            }
        }
    }

    // ---- finishing ---------------------------------------------------------------------

    fn finish(self) -> FunctionIr {
        let (nodes, entry, exit) = compact(self.nodes, self.entry, self.exit);
        FunctionIr {
            name: self.name,
            sig: self.sig,
            locals: self.locals,
            params: self.params,
            ret: self.ret,
            exprs: self.exprs,
            nodes,
            entry,
            exit,
            statics: self.statics,
            string_literals: self.string_literals,
            fallbacks: self.fallbacks,
        }
    }
}

fn elem_type(t: &Type) -> Type {
    match t {
        Type::Pointer(inner) => match &**inner {
            Type::Array(e, _) => (**e).clone(),
            other => other.clone(),
        },
        Type::Array(e, _) => (**e).clone(),
        _ => Type::Unknown,
    }
}

/// The pointer type an array-or-pointer value has in arithmetic.
fn decayed(t: &Type) -> Type {
    match t {
        Type::Array(e, _) => Type::Pointer(e.clone()),
        Type::Pointer(inner) => match &**inner {
            Type::Array(e, _) => Type::Pointer(e.clone()),
            _ => t.clone(),
        },
        _ => t.clone(),
    }
}

/// The ERROR of a GNU case range: `case 1 ... 5:` parses as `case 1` ERROR(`... 5`), and
/// `case '0' ... '9':` as `case` ERROR(`'0' ...`) `'9'`. `n` is a child of a case statement.
fn is_case_range_part(n: Node, src: &[u8]) -> bool {
    if !n.is_error() || !text(n, src).contains("...") {
        return false;
    }
    // Only before the label's `:`.
    let mut s = n.next_sibling();
    while let Some(x) = s {
        if x.kind() == ":" {
            return true;
        }
        s = x.next_sibling();
    }
    false
}

/// Whether C text defines `label` (`label:` after something that is not part of a name).
fn defines_label(t: &[u8], label: &str) -> bool {
    let l = label.as_bytes();
    if l.is_empty() {
        return false;
    }
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i + l.len() <= t.len() {
        if &t[i..i + l.len()] == l
            && (i == 0 || !is_ident(t[i - 1]))
            && t.get(i + l.len()).is_none_or(|b| !is_ident(*b))
        {
            let rest = &t[i + l.len()..];
            let next = rest.iter().copied().find(|b| !b.is_ascii_whitespace());
            if next == Some(b':') {
                return true;
            }
        }
        i += 1;
    }
    false
}

/// What a jump from a point with open scopes `from` to a label with open scopes `to` leaves and
/// enters: locals in scope at the jump but not at the label (innermost first: scopes the jump
/// leaves, and, jumping backwards, locals declared after the label in a shared scope), and
/// locals in scope at the label but not at the jump (outermost first: declarations the jump
/// skips).
fn scope_difference(from: &ScopeChain, to: &ScopeChain) -> (Vec<LocalId>, Vec<LocalId>) {
    let locals_of = |chain: &ScopeChain, id: u32| -> Vec<LocalId> {
        chain
            .iter()
            .find(|(s, _)| *s == id)
            .map(|(_, l)| l.clone())
            .unwrap_or_default()
    };
    let mut leaving = Vec::new();
    for (sid, locals) in from.iter().rev() {
        let kept = locals_of(to, *sid);
        leaving.extend(locals.iter().rev().filter(|l| !kept.contains(l)).copied());
    }
    let mut entering = Vec::new();
    for (sid, locals) in to {
        let had = locals_of(from, *sid);
        entering.extend(locals.iter().filter(|l| !had.contains(l)).copied());
    }
    (leaving, entering)
}

/// Remove `Nop` joins with a single successor (redirecting their predecessors), then renumber
/// the remaining nodes and compute predecessors. Entry and exit are kept.
fn compact(nodes: Vec<Node0>, entry: NodeId, exit: NodeId) -> (Vec<IrNode>, NodeId, NodeId) {
    let n = nodes.len();
    // forward[i]: where an edge into i should go instead.
    let mut forward: Vec<u32> = (0..n as u32).collect();
    let skippable = |i: usize| {
        i != entry.0 as usize
            && i != exit.0 as usize
            && matches!(nodes[i].stmt.kind, StmtKind::Nop)
            && nodes[i].succs.len() == 1
            && nodes[i].succs[0].0 as usize != i
    };
    for (i, f) in forward.iter_mut().enumerate() {
        if skippable(i) {
            *f = nodes[i].succs[0].0;
        }
    }
    // Follow chains (cycle-safe: a chain longer than n is a cycle of Nops; stop there).
    let resolve = |mut i: u32, forward: &[u32]| -> u32 {
        let mut steps = 0;
        while forward[i as usize] != i && steps <= n {
            i = forward[i as usize];
            steps += 1;
        }
        i
    };
    let mut target: Vec<u32> = (0..n as u32).map(|i| resolve(i, &forward)).collect();
    // A Nop cycle resolves to some member; keep that member as a real node.
    let kept: Vec<bool> = (0..n).map(|i| target[i] == i as u32).collect();
    let mut renum = vec![u32::MAX; n];
    // Number the kept nodes in source-like order: reverse postorder from the entry (a branch's
    // first successor first), then unreachable code in creation order, then the exit.
    let succs_of = |i: usize| -> Vec<u32> {
        let mut v: Vec<u32> = Vec::new();
        for s in &nodes[i].succs {
            let t = target[s.0 as usize];
            if !v.contains(&t) {
                v.push(t);
            }
        }
        v
    };
    let mut order: Vec<u32> = Vec::with_capacity(n);
    let mut visited = vec![false; n];
    let e = entry.0 as usize;
    visited[e] = true;
    // (node, its successors, how many have been visited), successors taken last-first so that
    // the reversed postorder lists the first successor's code first.
    let mut stack: Vec<(u32, Vec<u32>, usize)> = vec![(e as u32, succs_of(e), 0)];
    while let Some(top) = stack.last_mut() {
        let (node, succs, next) = (top.0, &top.1, top.2);
        if next < succs.len() {
            let s = succs[succs.len() - 1 - next];
            top.2 += 1;
            if !visited[s as usize] {
                visited[s as usize] = true;
                stack.push((s, succs_of(s as usize), 0));
            }
        } else {
            order.push(node);
            stack.pop();
        }
    }
    order.reverse();
    order.retain(|&i| i != exit.0);
    for i in 0..n {
        if kept[i] && !visited[i] && i != exit.0 as usize {
            order.push(i as u32);
        }
    }
    order.push(exit.0);
    let mut out: Vec<IrNode> = Vec::new();
    for &i in &order {
        let i = i as usize;
        renum[i] = out.len() as u32;
        out.push(IrNode {
            stmt: nodes[i].stmt.clone(),
            succs: SmallVec::new(),
            preds: SmallVec::new(),
        });
    }
    for t in target.iter_mut() {
        *t = renum[*t as usize];
    }
    for &i in &order {
        let i = i as usize;
        let from = renum[i];
        for s in &nodes[i].succs {
            let to = NodeId(target[s.0 as usize]);
            let succs = &mut out[from as usize].succs;
            if !succs.contains(&to) {
                succs.push(to);
            }
        }
    }
    for i in 0..out.len() {
        let succs = out[i].succs.clone();
        for s in succs {
            out[s.0 as usize].preds.push(NodeId(i as u32));
        }
    }
    (
        out,
        NodeId(renum[entry.0 as usize]),
        NodeId(renum[exit.0 as usize]),
    )
}

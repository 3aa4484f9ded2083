//! The function's frame: parameters, locals and temporaries, block scopes and the return
//! sequence, and jumps (`goto`, labels, computed gotos), whose edges end and begin the scopes
//! they leave and enter.

use super::{Binding, Builder, Scope, ScopeChain};
use crate::ir::types::{Type, adjust_param_type, base_type, declarator_type};
use crate::ir::{
    BinOp, CmpOp, ExprId, ExprKind, Local, LocalId, LocalKind, NodeId, ScopeEndKind, StmtKind,
    Symbol,
};
use crate::syntax::TextRange;
use crate::syntax::ts::{find_function_declarator, text};
use rustc_hash::FxHashMap;
use tree_sitter::Node;

impl Builder<'_> {
    pub(super) fn new_local(
        &mut self,
        name: &str,
        ty: Type,
        kind: LocalKind,
        range: TextRange,
    ) -> LocalId {
        let id = LocalId(self.locals.len() as u32);
        let ty = self.ctx.qualified(ty);
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

    pub(super) fn new_temp(&mut self, ty: Type, origin: Node) -> LocalId {
        // Read from the text as written unless the node is in a `typeof` operand's own text.
        let shown = if self.in_typeof_operand {
            self.src
        } else {
            self.shown_src
        };
        let mut name: String = text(origin, shown)
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

    pub(super) fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.names.get(name).cloned())
    }

    /// A name that denotes a variable here (a local, a static, a global).
    pub(super) fn is_variable(&self, name: &str) -> bool {
        self.lookup(name).is_some() || self.ctx.env.globals.contains_key(name)
    }

    pub(super) fn mark_address_taken(&mut self, addr: ExprId) {
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

    pub(super) fn start(&mut self) {
        self.entry = self.new_node(StmtKind::Enter, TextRange::default());
        self.cur = Some(self.entry);
        self.push_scope();
    }

    pub(super) fn lower_definition(&mut self, def: Node) {
        self.start();
        // Parameters live in the outermost scope.
        if let Some(decl) = def.child_by_field_name("declarator")
            && let Some(fd) = find_function_declarator(decl)
            && let Some(params) = fd.child_by_field_name("parameters")
        {
            self.declare_params(def, params);
        }
        self.assume_nonnull_params();
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

    /// The parameters the program's headers declare `__attribute__((nonnull(…)))` for this
    /// function: its callers never pass NULL there, so its body starts with them non-null.
    fn assume_nonnull_params(&mut self) {
        let Some(positions) = self.ctx.lib.declared_nonnull.get(&self.name) else {
            return;
        };
        let params: Vec<(LocalId, u32)> = self
            .params
            .iter()
            .copied()
            .zip(self.param_positions.iter().copied())
            .collect();
        for (p, position) in params {
            let local = &self.locals[p.0 as usize];
            let listed = positions.is_empty() || positions.contains(&position);
            if !listed || !local.ty.is_pointer_like() {
                continue;
            }
            let range = local.range;
            let addr = self.addr_of_local(p);
            let value = self.deref(addr);
            let zero = self.int(0);
            self.emit(
                StmtKind::Cond {
                    lhs: value,
                    op: CmpOp::Ne,
                    rhs: zero,
                },
                range,
            );
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
        // The parameter's position in the C declaration (`index` skips unnamed ones).
        let mut position = 0u32;
        for p in params.named_children(&mut c) {
            let this_position = position;
            if matches!(p.kind(), "parameter_declaration" | "identifier") {
                position += 1;
            }
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
            self.param_positions.push(this_position);
            let scope = self.scopes.last_mut().expect("param scope");
            scope.names.insert(name, Binding::Local(l));
            scope.locals.push(l);
        }
    }

    /// The return sequence at the end of the body (falling off the end), then the exit node.
    pub(super) fn finish_body(&mut self, end: TextRange) {
        if self.cur.is_some() {
            self.scope_end_all(end);
        }
        let value = self.ret.map(|r| {
            let a = self.addr_of_local(r);
            self.deref(a)
        });
        let exit_range = TextRange::new(end.end, end.end);
        self.exit = self.new_node(StmtKind::Return { value }, exit_range);
        // A function the program's headers declare `returns_nonnull` does not return NULL
        // (the compiler assumes it too): its returns pass `cond(ret != 0)` on the way out, so
        // that a path of its body that would return NULL is infeasible.
        let mut exit = self.exit;
        if let Some(v) = value
            && self.ctx.lib.declared_returns_nonnull.contains(&self.name)
            && self.sig.ret.is_pointer_like()
        {
            let zero = self.int(0);
            let check = self.new_node(
                StmtKind::Cond {
                    lhs: v,
                    op: CmpOp::Ne,
                    rhs: zero,
                },
                exit_range,
            );
            self.link(check, exit);
            exit = check;
        }
        if let Some(c) = self.cur {
            self.link(c, exit);
        }
        // Pending returns were linked to a placeholder list; patch them now.
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
    pub(super) fn scope_end_all(&mut self, range: TextRange) {
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

    pub(super) fn push_scope(&mut self) {
        let id = self.next_scope_id;
        self.next_scope_id += 1;
        self.scopes.push(Scope {
            id,
            ..Default::default()
        });
    }

    /// Close the innermost scope, ending its locals' lifetimes on the fall-through path.
    pub(super) fn pop_scope(&mut self, range: TextRange) {
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
    pub(super) fn locals_above(&self, depth: usize) -> Vec<LocalId> {
        let mut v = Vec::new();
        for s in self.scopes[depth.min(self.scopes.len())..].iter().rev() {
            v.extend(s.locals.iter().rev().copied());
        }
        v
    }

    pub(super) fn scope_chain(&self) -> ScopeChain {
        self.scopes
            .iter()
            .map(|s| (s.id, s.locals.clone()))
            .collect()
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
    pub(super) fn jump_edge(
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
pub(super) fn scope_difference(from: &ScopeChain, to: &ScopeChain) -> (Vec<LocalId>, Vec<LocalId>) {
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

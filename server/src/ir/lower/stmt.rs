//! Statements: blocks and statement lists, `if`, loops, `switch`/`case`, `return`,
//! `break`/`continue`, `goto` and GNU computed gotos.

use super::cfg::Guard;
use super::scopes::scope_difference;
use super::split::SplitAs;
use super::{Builder, ElseFrom, LoopTarget, MAX_DEPTH, PendingGoto, SwitchCtx};
use crate::ir::types::{Type, base_type, char_literal_value, parse_int_literal};
use crate::ir::{CmpOp, ExprId, ExprKind, NodeId, ScopeEndKind, StmtKind};
use crate::syntax::TextRange;
use crate::syntax::ts::{has_syntax_error, keyword_name, operator, text};
use tree_sitter::Node;

impl Builder<'_> {
    pub(super) fn block_items(&mut self, block: Node) {
        let mut c = block.walk();
        let kids: Vec<Node> = block.named_children(&mut c).collect();
        self.stmt_list(&kids);
    }

    /// Statements in sequence.
    pub(super) fn stmt_list(&mut self, kids: &[Node]) {
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
    pub(super) fn stmt_group(&mut self, kids: &[Node]) -> usize {
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
                    self.deeper(|b| b.if_with_detached_else(kids))
                }
                "preproc_if" | "preproc_ifdef" => self.deeper(|b| b.preproc_then_statement(kids)),
                _ => 0,
            };
            if used > 0 {
                return used;
            }
        }
        self.stmt(k);
        1
    }

    pub(super) fn stmt(&mut self, n: Node) {
        if self.split_choice(n, SplitAs::Statement) {
            return;
        }
        self.guarded(n, Guard::STATEMENT, |b| b.stmt_inner(n), |_| ());
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
                self.opaque(n, "inline assembly");
            }
            "seh_try_statement" | "seh_leave_statement" => {
                self.fallback(range, format!("unsupported statement `{}`", n.kind()));
                self.opaque(n, n.kind());
            }
            // A statement attribute (`__attribute__((fallthrough));`, what a project's
            // `FALLTHROUGH` macro expands to): tree-sitter-c wraps it in an ERROR; it does
            // nothing.
            _ if n.kind() == "ERROR" && only_attributes(n) => {}
            _ if n.is_error() || n.kind() == "ERROR" => self.syntax_error(n),
            k if k.ends_with("_expression") || k == "identifier" => {
                // An expression where a statement was expected (error recovery).
                self.effect(n);
            }
            other => {
                self.fallback(range, format!("unsupported statement `{other}`"));
                self.opaque(n, other);
            }
        }
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

    fn if_stmt(&mut self, n: Node) {
        self.if_stmt_with(n, ElseFrom::Nothing);
    }

    /// An `if` (chain); `else_from` says where the innermost `if` without an `else` goes when
    /// its condition fails. Returns that node for `ElseFrom::Open`.
    pub(super) fn if_stmt_with(&mut self, n: Node, else_from: ElseFrom) -> Option<NodeId> {
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
        self.cur = Some(body);
        self.loop_body(n.child_by_field_name("body"), exit, Some(head));
        self.jump_to(head);
        self.cur = Some(exit);
    }

    /// A loop's (or a `switch`'s) body, from the current point: `break` goes to `brk`,
    /// `continue` to `cont`, leaving the scopes opened inside.
    pub(super) fn loop_body(&mut self, body: Option<Node>, brk: NodeId, cont: Option<NodeId>) {
        self.loops.push(LoopTarget {
            brk,
            cont,
            depth: self.scopes.len(),
        });
        if let Some(b) = body {
            self.stmt(b);
        }
        self.loops.pop();
    }

    fn do_stmt(&mut self, n: Node) {
        let range = TextRange::of_node(&n);
        let body = self.join(TextRange::new(range.start, range.start));
        self.goto_node(body);
        let test = self.join(range);
        let exit = self.join(TextRange::new(range.end, range.end));
        self.loop_body(n.child_by_field_name("body"), exit, Some(test));
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
        self.cur = Some(body);
        self.loop_body(n.child_by_field_name("body"), exit, Some(update_node));
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
        // Code before the first case label is unreachable.
        self.cur = None;
        self.loop_body(n.child_by_field_name("body"), exit, None);
        self.jump_to(exit);
        let sw = self.switches.pop().expect("switch");
        // Dispatch: one `cond(v == case)` edge per case; the default (or the exit) is reached
        // when every case test fails.
        // A case label after declarations in the switch body skips them: their scope begins
        // on the dispatch edge.
        let mut not_matched = dispatch;
        for (val, target, r, label_chain) in &sw.cases {
            let hit = self.cond_node(sw.value, CmpOp::Eq, *val, *r);
            self.link(dispatch, hit);
            let (leaving, entering) = scope_difference(&sw.chain, label_chain);
            self.jump_edge(hit, leaving, entering, *r, *target);
            let miss = self.cond_node(sw.value, CmpOp::Ne, *val, *r);
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

/// Whether an ERROR node holds nothing but `__attribute__((…))` specifiers.
fn only_attributes(n: Node) -> bool {
    let mut c = n.walk();
    let kids: Vec<Node> = n.children(&mut c).collect();
    !kids.is_empty()
        && kids
            .iter()
            .all(|k| k.kind() == "attribute_specifier" && !k.has_error())
}

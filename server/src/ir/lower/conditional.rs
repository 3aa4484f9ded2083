//! `#if` in a body, a nondeterministic choice between its branches, and the `else` that a
//! preprocessor line separated from its `if` (found by `repair`), attached back to it.

use super::unit_conds::ArmTest;
use super::{Builder, ElseFrom, PpBranch};
use crate::ir::NodeId;
use crate::syntax::TextRange;
use crate::syntax::ts::{innermost_if_lacks_else, is_if_zero};
use tree_sitter::Node;

impl Builder<'_> {
    pub(super) fn preproc_body(&mut self, n: Node) {
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

    /// `#if A … #elif B … #else … #endif` in a body: one of the branches runs, each after the
    /// tests of the unit's conditions it implies (see `unit_conds`).
    pub(super) fn preproc_branches(&mut self, n: Node) {
        let range = TextRange::of_node(&n);
        let start = self.ensure_reachable_point(range);
        let join = self.join(TextRange::new(range.end, range.end));
        let mut chain = Vec::new();
        let mut branch = Some(n);
        while let Some(b) = branch {
            if chain.len() >= 1000 {
                break;
            }
            chain.push(b);
            branch = b.child_by_field_name("alternative");
        }
        let dead: Vec<bool> = chain.iter().map(|b| is_if_zero(*b, self.src)).collect();
        let tests: Vec<Option<ArmTest>> = chain
            .iter()
            .zip(&dead)
            .map(|(b, dead)| if *dead { None } else { self.arm_test(*b) })
            .collect();
        let mut saw_else = false;
        for (k, b) in chain.iter().enumerate() {
            if b.kind() == "preproc_else" {
                saw_else = true;
            }
            if !dead[k] {
                // No new scope: a declaration in a branch belongs to the enclosing block and
                // stays visible after `#endif` (see `local_declaration` for redeclarations).
                let at = self.assume_tests(start, &Self::arm_tests(&tests, k));
                self.cur = Some(at);
                self.preproc_body(*b);
                self.jump_to(join);
            } else {
                self.consume_elses(TextRange::of_node(b));
            }
        }
        if !saw_else {
            let at = self.assume_tests(start, &Self::arm_tests(&tests, chain.len()));
            self.link(at, join);
        }
        self.cur = Some(join);
    }

    /// One of `branches` runs (dead ones never; none of them when there is no `#else`), in the
    /// enclosing scope, after the tests its arm implies. Nothing when they are all empty.
    fn preproc_choice(
        &mut self,
        range: TextRange,
        branches: &[(bool, Vec<Node>)],
        tests: &[Option<ArmTest>],
        has_else: bool,
    ) {
        if branches.iter().all(|(dead, kids)| *dead || kids.is_empty()) {
            return;
        }
        let start = self.ensure_reachable_point(range);
        let join = self.join(TextRange::new(range.end, range.end));
        for (k, (dead, kids)) in branches.iter().enumerate() {
            if *dead {
                continue;
            }
            let at = self.assume_tests(start, &Self::arm_tests(tests, k));
            self.cur = Some(at);
            self.stmt_list(kids);
            self.jump_to(join);
        }
        if !has_else {
            let at = self.assume_tests(start, &Self::arm_tests(tests, branches.len()));
            self.link(at, join);
        }
        self.cur = Some(join);
    }

    /// Whether a detached `else` follows the `if` statement `k` (before `next`, or leading a
    /// branch of `next`), and the `if` has no `else` of its own.
    pub(super) fn else_follows(&self, k: Node, next: Node) -> bool {
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
    pub(super) fn if_with_detached_else(&mut self, kids: &[Node]) -> usize {
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
        let tests: Vec<Option<ArmTest>> = branches.iter().map(|b| b.test.clone()).collect();
        self.preproc_choice(TextRange::of_node(&pp), &rest, &tests, has_else);
    }

    /// `kids[0]` is an `#if` some of whose branches end with `if (c) {…} else` or with a bare
    /// `if (c)` header (`#ifdef X⏎if (c)⏎#endif⏎{…}`): the statement after `#endif` is that else
    /// branch or body; the other branches run before it. 0 when there is no such branch.
    pub(super) fn preproc_then_statement(&mut self, kids: &[Node]) -> usize {
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
        let tests: Vec<Option<ArmTest>> = branches.iter().map(|b| b.test.clone()).collect();
        for (k, b) in branches.iter().enumerate().filter(|(_, b)| !b.dead) {
            let at = self.assume_tests(start, &Self::arm_tests(&tests, k));
            self.cur = Some(at);
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
            let at = self.assume_tests(start, &Self::arm_tests(&tests, branches.len()));
            self.link(at, entry);
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
            let dead = is_if_zero(b, self.src);
            out.push(PpBranch {
                kids,
                test: if dead { None } else { self.arm_test(b) },
                dead,
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
    pub(super) fn report_unattached_elses(&mut self) {
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
}

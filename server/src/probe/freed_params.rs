//! Parameters a function frees on every path that returns, unless they are NULL
//! (`freed_params`): `void yaml_free(void *p) { if (p) free(p); }`, a destructor that ends in
//! `free(node)`.
//!
//! The engine applies most calls through their MOD summaries without walking the callee. A
//! summary says what the callee may write, not that it frees the block its argument points
//! to, so before `yaml_free(tag)` the fact still allowed `tag` to be the leaked cell, and a
//! leak through `node.tag`, a copy of `tag`, was reported on the path that frees it. With
//! this pass the argument of such a parameter is known not to be the cell before the call:
//! had it been, the cell would be freed, not leaked.

use crate::ir::{CmpOp, ExprId, ExprKind, FunctionIr, LocalId, StmtKind, Symbol};

/// For each parameter of `ir` (by position), whether every path from the entry to the
/// return frees the value the parameter had on entry or takes a branch where it is NULL.
/// Only parameters the function never assigns and whose address it never takes count, so
/// the freed value is the argument.
pub fn freed_params(ir: &FunctionIr) -> Vec<bool> {
    let stable = super::sites::unassigned_params(ir);
    ir.params
        .iter()
        .map(|p| stable.contains(p) && ir.local(*p).ty.is_pointer() && freed_on_return(ir, *p))
        .collect()
}

/// Whether the return is unreachable from the entry once the statements `free(p)` and the
/// branches `p == NULL` are taken out.
fn freed_on_return(ir: &FunctionIr, p: LocalId) -> bool {
    let is_p = |e: ExprId| {
        matches!(ir.exprs.kind(e), ExprKind::Deref(a)
            if matches!(ir.exprs.kind(*a), ExprKind::Addr(Symbol::Local(l)) if *l == p))
    };
    let is_null = |e: ExprId| matches!(ir.exprs.kind(e), ExprKind::Int(0));
    let ends_path = |k: &StmtKind| match k {
        StmtKind::Free { ptr } => is_p(*ptr),
        StmtKind::Cond {
            lhs,
            op: CmpOp::Eq,
            rhs,
        } => (is_p(*lhs) && is_null(*rhs)) || (is_null(*lhs) && is_p(*rhs)),
        _ => false,
    };
    let mut seen = vec![false; ir.nodes.len()];
    let mut stack = vec![ir.entry];
    while let Some(n) = stack.pop() {
        let i = n.0 as usize;
        if i >= seen.len() || seen[i] {
            continue;
        }
        seen[i] = true;
        if n == ir.exit {
            return false;
        }
        let node = ir.node(n);
        if ends_path(&node.stmt.kind) {
            continue;
        }
        stack.extend(node.succs.iter().copied());
    }
    true
}

#[cfg(test)]
mod tests {
    use super::freed_params;

    fn freed(src: &str, func: &str) -> Vec<bool> {
        let ir = crate::ir::lower_snippet(src)
            .1
            .into_iter()
            .find(|ir| ir.name == func)
            .expect("the function");
        freed_params(&ir)
    }

    #[test]
    fn a_free_unless_null_frees_the_parameter() {
        let src = "#include <stdlib.h>\nvoid xfree(void *p) { if (p) free(p); }\n\
                   void node_free(char *a, char *b) { if (a == NULL) return; free(b); free(a); }\n";
        assert_eq!(freed(src, "xfree"), vec![true]);
        assert_eq!(freed(src, "node_free"), vec![true, false]);
    }

    #[test]
    fn a_path_that_keeps_the_block_or_a_reassigned_parameter_does_not() {
        let src = "#include <stdlib.h>\nstruct o { int ref; };\n\
                   void unref(struct o *o) { if (--o->ref == 0) free(o); }\n\
                   void swap(char *p, char *q) { p = q; free(p); }\n";
        assert_eq!(freed(src, "unref"), vec![false]);
        assert_eq!(freed(src, "swap"), vec![false, false]);
    }
}

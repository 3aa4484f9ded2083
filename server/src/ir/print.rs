//! Human-readable IR: what `reductio ir` prints and what the lowering snapshots compare.
//!
//! Expressions print in C notation (`p->next`, `&x`, `a[i]`) because that is what a C
//! programmer reads; `Notation::Paper` prints the core language as the paper writes it
//! (`*(*a_p).next`).

use super::*;
use std::fmt::{self, Write};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Notation {
    #[default]
    C,
    Paper,
    /// C as the user wrote it, for messages and trace notes: a temporary prints as the source
    /// text it holds (`fread(ptr, 1, n, f) != n`), not as `$t{…}`.
    Source,
}

/// Renders expressions of one function.
pub fn display_expr(ir: &FunctionIr, e: ExprId, notation: Notation) -> String {
    let mut s = String::new();
    match notation {
        Notation::C => c_expr(ir, e, &mut s, 0, false),
        Notation::Source => c_expr(ir, e, &mut s, 0, true),
        Notation::Paper => paper_expr(ir, e, &mut s, 0),
    }
    s
}

/// The C lvalue whose address is `addr` (`*addr` written as C: `p->next`, `g`, `a[i]`).
pub fn display_place(ir: &FunctionIr, addr: ExprId) -> String {
    let mut s = String::new();
    c_lvalue(ir, addr, &mut s, 0, false);
    s
}

/// Rendering stops descending past this depth (the IR bounds depth already; this is a guard).
const MAX_PRINT_DEPTH: u32 = 200;

/// [`symbol_name`], or with `src` a temporary as the source text it holds (in parentheses
/// unless it is a call or a name, so that `(a ? b : c) != 0` keeps its meaning). The lowering
/// names a temporary by the whitespace-collapsed text of the expression it holds, cut at 40
/// bytes (`ir::lower::scopes::new_temp`).
fn symbol_text(ir: &FunctionIr, s: &Symbol, src: bool) -> String {
    if src
        && let Symbol::Local(l) = s
        && let Some(local) = ir.locals.get(l.0 as usize)
        && local.kind == LocalKind::Temp
    {
        let t = &local.name;
        // A call, possibly cut short by the lowering (`f(a, b...`), or a lone name.
        let simple = t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && (t.ends_with(')') || (t.ends_with("...") && t.contains('(')) || !t.contains(' '));
        return if simple { t.clone() } else { format!("({t})") };
    }
    if src && let Symbol::Global(g) = s {
        // A preprocessor condition's variable without its file (`ir::lower::unit_conds`).
        return crate::ir::shown_global(g).to_string();
    }
    symbol_name(ir, s)
}

fn symbol_name(ir: &FunctionIr, s: &Symbol) -> String {
    match s {
        Symbol::Local(l) => ir
            .locals
            .get(l.0 as usize)
            .map(|l| match l.kind {
                LocalKind::Temp => format!("$t{{{}}}", l.name),
                _ => l.name.clone(),
            })
            .unwrap_or_else(|| format!("local{}", l.0)),
        Symbol::Global(g) => g.clone(),
        Symbol::Function(f) => f.clone(),
        Symbol::StringLit(n) => format!("\"str{n}\""),
    }
}

fn c_expr(ir: &FunctionIr, e: ExprId, out: &mut String, depth: u32, src: bool) {
    if depth > MAX_PRINT_DEPTH {
        out.push('…');
        return;
    }
    match ir.exprs.kind(e) {
        ExprKind::Int(n) => match ir.constant_names.iter().find(|(v, _)| v == n) {
            Some((_, name)) if src => out.push_str(name),
            _ => {
                let _ = write!(out, "{n}");
            }
        },
        ExprKind::Scalar => out.push_str("<num>"),
        ExprKind::Unknown => out.push_str("<unknown>"),
        ExprKind::Addr(s @ (Symbol::Function(_) | Symbol::StringLit(_))) => {
            out.push_str(&symbol_text(ir, s, src))
        }
        // An array's name is its address.
        ExprKind::Addr(s) if points_to_array(ir, e) => out.push_str(&symbol_text(ir, s, src)),
        ExprKind::Addr(s) => {
            out.push('&');
            out.push_str(&symbol_text(ir, s, src));
        }
        ExprKind::Deref(a) => c_lvalue(ir, *a, out, depth + 1, src),
        // An array member's name is its address too.
        ExprKind::Field(..) if points_to_array(ir, e) => c_lvalue(ir, e, out, depth + 1, src),
        ExprKind::Field(..) => {
            out.push('&');
            c_lvalue(ir, e, out, depth + 1, src);
        }
        ExprKind::Binary(op, l, r) => {
            out.push('(');
            c_expr(ir, *l, out, depth + 1, src);
            let _ = write!(out, " {} ", op.symbol());
            c_expr(ir, *r, out, depth + 1, src);
            out.push(')');
        }
    }
}

fn points_to_array(ir: &FunctionIr, e: ExprId) -> bool {
    matches!(ir.exprs.ty(e), Type::Pointer(t) if matches!(**t, Type::Array(..)))
}

/// The C lvalue whose address is `addr` (`*addr` as C).
fn c_lvalue(ir: &FunctionIr, addr: ExprId, out: &mut String, depth: u32, src: bool) {
    if depth > MAX_PRINT_DEPTH {
        out.push('…');
        return;
    }
    match ir.exprs.kind(addr) {
        ExprKind::Addr(s) => out.push_str(&symbol_text(ir, s, src)),
        ExprKind::Field(base, f) => {
            match ir.exprs.kind(*base) {
                // `(&s).f` is `s.f`, and `(a + i)->f` is `a[i].f`
                ExprKind::Addr(_) | ExprKind::Field(..) | ExprKind::Binary(BinOp::Add, ..) => {
                    c_lvalue(ir, *base, out, depth + 1, src);
                    out.push('.');
                }
                _ => {
                    c_postfix_operand(ir, *base, out, depth + 1, src);
                    out.push_str("->");
                }
            }
            out.push_str(f);
        }
        ExprKind::Binary(BinOp::Add, b, i) => {
            // `m[i][j]`: the row `m[i]` is an array, whose address is `m + i`.
            if points_to_array(ir, *b) && matches!(ir.exprs.kind(*b), ExprKind::Binary(..)) {
                c_lvalue(ir, *b, out, depth + 1, src);
            } else {
                c_postfix_operand(ir, *b, out, depth + 1, src);
            }
            out.push('[');
            c_expr(ir, *i, out, depth + 1, src);
            out.push(']');
        }
        _ => {
            out.push('*');
            c_expr(ir, addr, out, depth + 1, src);
        }
    }
}

/// An expression followed by `->f` or `[i]`: a prefix `*` or `&` needs parentheses
/// (`(*pp)->v`, not `*pp->v`).
fn c_postfix_operand(ir: &FunctionIr, e: ExprId, out: &mut String, depth: u32, src: bool) {
    let mut s = String::new();
    c_expr(ir, e, &mut s, depth, src);
    if s.starts_with(['*', '&']) {
        out.push('(');
        out.push_str(&s);
        out.push(')');
    } else {
        out.push_str(&s);
    }
}

fn paper_expr(ir: &FunctionIr, e: ExprId, out: &mut String, depth: u32) {
    if depth > MAX_PRINT_DEPTH {
        out.push('…');
        return;
    }
    match ir.exprs.kind(e) {
        ExprKind::Int(n) => {
            let _ = write!(out, "{n}");
        }
        ExprKind::Scalar => out.push_str("n?"),
        ExprKind::Unknown => out.push('⊤'),
        ExprKind::Addr(s) => {
            let _ = write!(out, "a_{}", symbol_name(ir, s));
        }
        ExprKind::Deref(a) => {
            out.push('*');
            paper_expr(ir, *a, out, depth + 1);
        }
        ExprKind::Field(b, f) => {
            let paren = matches!(ir.exprs.kind(*b), ExprKind::Deref(_) | ExprKind::Binary(..));
            if paren {
                out.push('(');
            }
            paper_expr(ir, *b, out, depth + 1);
            if paren {
                out.push(')');
            }
            let _ = write!(out, ".{f}");
        }
        ExprKind::Binary(op, l, r) => {
            out.push('(');
            paper_expr(ir, *l, out, depth + 1);
            let _ = write!(out, " ⊕{} ", op.symbol());
            paper_expr(ir, *r, out, depth + 1);
            out.push(')');
        }
    }
}

/// One statement as text.
pub fn display_stmt(ir: &FunctionIr, s: &StmtKind, notation: Notation) -> String {
    let e = |id: ExprId| display_expr(ir, id, notation);
    // The location an address designates: `x` for `&x` in C notation, `*a_x` in the paper's.
    let place = |id: ExprId| match notation {
        Notation::C | Notation::Source => {
            let mut s = String::new();
            c_lvalue(ir, id, &mut s, 0, notation == Notation::Source);
            s
        }
        Notation::Paper => format!("*{}", display_expr(ir, id, notation)),
    };
    let arrow = match notation {
        Notation::C | Notation::Source => "=",
        Notation::Paper => "←",
    };
    let names = |ls: &[LocalId]| -> String {
        ls.iter()
            .map(|l| symbol_name(ir, &Symbol::Local(*l)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match s {
        StmtKind::Enter => "enter".into(),
        StmtKind::Assign { addr, value } => format!("{} {arrow} {}", place(*addr), e(*value)),
        StmtKind::Alloc { addr, site } => {
            format!("{} {arrow} alloc[{}]", place(*addr), site.allocator)
        }
        StmtKind::Free { ptr } => format!("free({})", e(*ptr)),
        StmtKind::Cond { lhs, op, rhs } => {
            format!("cond({} {} {})", e(*lhs), op.symbol(), e(*rhs))
        }
        StmtKind::Call { dest, callee, args } => {
            let callee = match callee {
                Callee::Direct(n) => n.clone(),
                Callee::Indirect(f) => format!("(*{})", e(*f)),
            };
            let args = args.iter().map(|a| e(*a)).collect::<Vec<_>>().join(", ");
            match dest {
                Some(d) => format!("{} {arrow} call {callee}({args})", place(*d)),
                None => format!("call {callee}({args})"),
            }
        }
        StmtKind::ScopeBegin { locals } => format!("scope-begin {}", names(locals)),
        StmtKind::ScopeEnd { locals, kind } => match kind {
            ScopeEndKind::Block => format!("scope-end {}", names(locals)),
            ScopeEndKind::Return => format!("return-scope-end {}", names(locals)),
        },
        StmtKind::Return { value } => match value {
            Some(v) => format!("return {}", e(*v)),
            None => "return".into(),
        },
        StmtKind::ZeroFill { addr } => format!("zero {}", place(*addr)),
        StmtKind::Nop => "nop".into(),
        StmtKind::Opaque { reason, reads } => {
            let reads = reads.iter().map(|a| e(*a)).collect::<Vec<_>>().join(", ");
            format!("opaque[{reason}]({reads})")
        }
    }
}

/// Write a function: signature, locals, then one line per CFG node with its successors.
/// `loc` renders a relative range as a source location (e.g. `12:5`), when the caller has the
/// text to do so.
pub fn write_function(
    f: &mut dyn fmt::Write,
    ir: &FunctionIr,
    loc: Option<&dyn Fn(crate::syntax::TextRange) -> String>,
) -> fmt::Result {
    write_function_with(f, ir, loc, Notation::C)
}

pub fn write_function_with(
    f: &mut dyn fmt::Write,
    ir: &FunctionIr,
    loc: Option<&dyn Fn(crate::syntax::TextRange) -> String>,
    notation: Notation,
) -> fmt::Result {
    let params = ir
        .params
        .iter()
        .map(|p| {
            let l = ir.local(*p);
            format!("{}: {}", l.name, l.ty)
        })
        .collect::<Vec<_>>()
        .join(", ");
    writeln!(f, "fn {}({}) -> {}", ir.name, params, ir.sig.ret)?;
    let others: Vec<String> = ir
        .locals
        .iter()
        .filter(|l| l.kind != LocalKind::Param)
        .map(|l| {
            let kind = match l.kind {
                LocalKind::Temp => " (temp)",
                LocalKind::Return => " (return)",
                _ => "",
            };
            let taken = if l.address_taken { " (&)" } else { "" };
            let name = match l.kind {
                LocalKind::Temp => format!("$t{{{}}}", l.name),
                _ => l.name.clone(),
            };
            format!("{name}: {}{kind}{taken}", l.ty)
        })
        .collect();
    if !others.is_empty() {
        writeln!(f, "  locals: {}", others.join(", "))?;
    }
    for (name, ty) in &ir.statics {
        writeln!(f, "  static {name}: {ty}")?;
    }
    for id in ir.node_ids() {
        let node = ir.node(id);
        let mut line = format!("  n{:<3} ", id.0);
        if let Some(loc) = loc {
            let _ = write!(line, "{:<7} ", loc(node.stmt.range));
        }
        line.push_str(&display_stmt(ir, &node.stmt.kind, notation));
        let succs = node
            .succs
            .iter()
            .map(|s| format!("n{}", s.0))
            .collect::<Vec<_>>()
            .join(", ");
        if id == ir.exit {
            line.push_str("   (exit)");
        } else if !succs.is_empty() {
            let _ = write!(line, "   -> {succs}");
        } else {
            line.push_str("   -> (none)");
        }
        writeln!(f, "{}", line.trim_end())?;
    }
    for fb in &ir.fallbacks {
        let at = loc.map(|l| l(fb.range)).unwrap_or_default();
        writeln!(f, "  fallback {at}: {}", fb.reason)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::StmtKind;

    /// The condition of the first `cond` node of `f`, as a trace note shows it.
    fn first_cond(src: &str) -> String {
        let ir = crate::ir::lower_snippet(src).1.remove(0);
        let (l, op, r) = ir
            .nodes
            .iter()
            .find_map(|n| match &n.stmt.kind {
                StmtKind::Cond { lhs, op, rhs } => Some((*lhs, *op, *rhs)),
                _ => None,
            })
            .expect("a condition");
        format!(
            "{} {} {}",
            display_expr(&ir, l, Notation::Source),
            op.symbol(),
            display_expr(&ir, r, Notation::Source)
        )
    }

    #[test]
    fn a_library_constant_shows_by_name_unless_the_number_is_also_written() {
        let named = "int f(int c) { if (c == EOF) return 1; return 0; }";
        assert_eq!(first_cond(named), "c == EOF");
        // `-1` written as a number too: which one a `-1` is cannot be told, the value shows.
        let both = "int f(int c) { if (c == EOF) return -1; return 0; }";
        assert_eq!(first_cond(both), "c == -1");
    }
}

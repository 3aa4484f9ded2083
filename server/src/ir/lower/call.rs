//! Calls: the callee (direct or indirect), the arguments, the result's temporary, `assert`,
//! and the library model's allocators and deallocators, lowered to `Alloc` and `Free`.

use super::Builder;
use crate::ir::library::AllocKind;
use crate::ir::types::Type;
use crate::ir::{AllocSite, Callee, CmpOp, ExprId, ExprKind, StmtKind, Symbol};
use crate::syntax::TextRange;
use crate::syntax::ts::text;
use tree_sitter::Node;

impl Builder<'_> {
    pub(super) fn call_return_type(&self, name: &str) -> Type {
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
    pub(super) fn is_direct_callee(&self, name: &str) -> bool {
        self.lookup(name).is_none() && !self.ctx.env.globals.contains_key(name)
    }

    /// A name that is a type here: a typedef of the workspace or one the C library defines
    /// (`off_t`, `size_t`), and not a variable or function in scope.
    fn is_type_name(&self, name: &str) -> bool {
        self.lookup(name).is_none()
            && !self.ctx.env.globals.contains_key(name)
            && !self.ctx.env.functions.contains_key(name)
            && (self.ctx.env.typedefs.contains_key(name)
                || crate::ir::types::is_builtin_integer_typedef(name))
    }

    /// Calls that are really operators or macros with a value (`__builtin_expect`, `va_arg`).
    pub(super) fn is_builtin_value_call(&self, n: Node) -> bool {
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
                        | "__builtin_offsetof"
                )
            })
            .unwrap_or(false)
    }

    /// `(off_t)(x)`: a cast to a type name the grammar does not know as a type parses as a
    /// call through the parenthesized name (libxml2's `(xmlNodePtr) (cur)`). The operand, when
    /// call `n` is one; casts are transparent.
    fn cast_parsed_as_call<'t>(&self, n: Node<'t>) -> Option<Node<'t>> {
        let t = n
            .child_by_field_name("function")
            .filter(|c| c.kind() == "parenthesized_expression" && c.named_child_count() == 1)?;
        let id = t.named_child(0).filter(|i| i.kind() == "identifier")?;
        if !self.is_type_name(text(id, self.src)) {
            return None;
        }
        let args = n.child_by_field_name("arguments")?;
        if args.named_child_count() != 1 {
            return None;
        }
        args.named_child(0)
    }

    /// The value of a call: the result lands in a fresh temporary.
    pub(super) fn call_value(&mut self, n: Node) -> ExprId {
        let range = TextRange::of_node(&n);
        if let Some(value) = self.typeof_call(n) {
            // A cast to `typeof(x)` is transparent; `typeof(x)` itself evaluates nothing.
            return match value {
                Some(v) => self.rvalue(v),
                None => self.unknown(Type::Unknown),
            };
        }
        let callee = n.child_by_field_name("function");
        if let Some(a) = self.cast_parsed_as_call(n) {
            return self.rvalue(a);
        }
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
                "offsetof" | "__builtin_offsetof" => return self.scalar(),
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

    pub(super) fn indirect_return_type(&mut self, callee: Option<Node>) -> Type {
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
    pub(super) fn call(&mut self, n: Node, dest: Option<ExprId>, range: TextRange) {
        if let Some(value) = self.typeof_call(n) {
            let v = match value {
                Some(v) => self.rvalue(v),
                None => self.unknown(Type::Unknown),
            };
            if let Some(addr) = dest {
                self.emit(StmtKind::Assign { addr, value: v }, range);
            }
            return;
        }
        if let Some(a) = self.cast_parsed_as_call(n) {
            let v = self.rvalue(a);
            if let Some(addr) = dest {
                self.emit(StmtKind::Assign { addr, value: v }, range);
            }
            return;
        }
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
        let undeclared = match &callee {
            Callee::Direct(name) => self.declared_nowhere(name),
            Callee::Indirect(_) => false,
        };
        self.emit_call(callee, args.clone(), dest, n, range);
        // Not when the call's result is stored anywhere but a temporary: the store may change
        // what the object argument denotes (`q = memset(q->next, 0, sizeof *q->next)`).
        let stored = dest.is_some_and(|d| match self.exprs.kind(d) {
            ExprKind::Addr(Symbol::Local(l)) => {
                !matches!(self.locals[l.0 as usize].kind, crate::ir::LocalKind::Temp)
            }
            _ => true,
        });
        if !stored
            && let Some(name) = &direct_name
            && let Some(obj) = self.zero_filled_object(name, &arg_nodes, &args)
        {
            self.emit(StmtKind::ZeroFill { addr: obj }, range);
        }
        if undeclared {
            // A name declared nowhere is most often a macro seen unexpanded
            // (`Stream_Read_UINT16(s, v)` assigns `v`): an integer lvalue passed to it may
            // change. Without this, a condition on `v` met later would meet `v`'s old value
            // and refute a feasible path.
            for a in args {
                if let ExprKind::Deref(addr) = *self.exprs.kind(a)
                    && self.exprs.ty(a).is_scalar_number()
                {
                    let v = self.scalar();
                    self.emit(StmtKind::Assign { addr, value: v }, range);
                }
            }
        }
    }

    /// The object a call sets to zero bytes, whole: `memset(p, 0, sizeof *p)`,
    /// `memset(&s, 0, sizeof s)`, `bzero(p, sizeof(struct t))` (and `explicit_bzero`, the
    /// Windows `ZeroMemory` family), when the size is a `sizeof` of exactly the type the
    /// pointer points to. A size computed any other way (`n * sizeof *p`, a length) may
    /// cover less, or other objects, and gives `None`.
    fn zero_filled_object(
        &mut self,
        name: &str,
        arg_nodes: &[Node],
        args: &[ExprId],
    ) -> Option<ExprId> {
        let (value, size) = match name {
            "memset" => (Some(1), 2),
            "bzero"
            | "explicit_bzero"
            | "ZeroMemory"
            | "SecureZeroMemory"
            | "RtlZeroMemory"
            | "RtlSecureZeroMemory" => (None, 1),
            _ => return None,
        };
        if args.len() != size + 1 || arg_nodes.len() != args.len() {
            return None;
        }
        if let Some(v) = value
            && !matches!(self.exprs.kind(args[v]), ExprKind::Int(0))
        {
            return None;
        }
        let obj = args[0];
        let pointee = self.resolve(self.exprs.ty(obj).pointee()?);
        if matches!(pointee, Type::Unknown | Type::Void) {
            return None;
        }
        let sized = self.sizeof_operand_type(arg_nodes[size])?;
        (sized == pointee).then_some(obj)
    }

    /// The type whose size a `sizeof` expression takes (resolved), `None` for anything else.
    fn sizeof_operand_type(&mut self, mut n: Node) -> Option<Type> {
        while n.kind() == "parenthesized_expression" && n.named_child_count() == 1 {
            n = n.named_child(0)?;
        }
        if n.kind() != "sizeof_expression" {
            return None;
        }
        let operand = n
            .child_by_field_name("type")
            .or_else(|| n.child_by_field_name("value"))?;
        let t = self.operand_type(operand);
        let t = self.resolve(&t);
        (!matches!(t, Type::Unknown)).then_some(t)
    }

    /// A called name with no declaration or definition in the workspace and unknown to the
    /// library model.
    fn declared_nowhere(&self, name: &str) -> bool {
        !self.ctx.env.functions.contains_key(name) && !self.ctx.lib.knows(name)
    }

    /// `assert(e)` (the `<assert.h>` macro, seen unexpanded), unless the file declares an
    /// `assert` of its own.
    pub(super) fn is_assert(&self, n: Node) -> bool {
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
    pub(super) fn assert_call(&mut self, n: Node, range: TextRange) {
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

    /// The call statement itself, its arguments evaluated: an allocation, a free, or a call.
    pub(super) fn emit_call(
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
                self.assume_nonnull_result(name, dest, range);
                return;
            }
            if let Some(&i) = self.ctx.lib.deallocators.get(name) {
                match args.get(i as usize) {
                    Some(&p) => {
                        self.emit(StmtKind::Free { ptr: p }, range);
                    }
                    None => self.fallback(range, format!("`{name}` called without its argument")),
                }
                // What a release returns (`fclose`'s status) is a number the analysis does not
                // know: 0 would make its failure branch dead.
                if let Some(d) = dest {
                    let z = self.scalar();
                    self.emit(StmtKind::Assign { addr: d, value: z }, range);
                }
                return;
            }
        }
        // A function the program's headers declare `noreturn`: the path ends at the call.
        let ends = matches!(&callee, Callee::Direct(name) if self.ctx.lib.declared_noreturn.contains(name));
        let name = match &callee {
            Callee::Direct(name) => Some(name.clone()),
            Callee::Indirect(_) => None,
        };
        self.emit(StmtKind::Call { dest, callee, args }, range);
        if ends {
            self.cur = None;
        } else if let Some(name) = name {
            self.assume_nonnull_result(&name, dest, range);
        }
    }

    /// A function the program's headers declare `__attribute__((returns_nonnull))`: the result
    /// it stores is not NULL (`p = xstrdup(s); if (p == NULL) …` cannot take the branch).
    fn assume_nonnull_result(&mut self, name: &str, dest: Option<ExprId>, range: TextRange) {
        let Some(d) = dest else { return };
        if self.cur.is_none()
            || !self.ctx.lib.declared_returns_nonnull.contains(name)
            || !self
                .exprs
                .ty(d)
                .pointee()
                .is_some_and(|t| t.is_pointer_like())
        {
            return;
        }
        self.assume_nonzero(d, range);
    }

    /// `*d != 0` holds from here on this path (an assumption, not a branch).
    fn assume_nonzero(&mut self, d: ExprId, range: TextRange) {
        let result = self.deref(d);
        let zero = self.int(0);
        self.emit(
            StmtKind::Cond {
                lhs: result,
                op: CmpOp::Ne,
                rhs: zero,
            },
            range,
        );
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
                            // A count we do not track, but never less than what the format
                            // always prints (and never negative): say so, so that
                            // `if (asprintf(...) < 0)` and `if (asprintf(&s, "%zu", n) <= 0)`
                            // separate the two outcomes.
                            let least = self.format_min_len(n, arg + 1).unwrap_or(0);
                            let v = self.scalar();
                            self.emit(StmtKind::Assign { addr: d, value: v }, range);
                            let result = self.deref(d);
                            let least = self.int(least);
                            self.emit(
                                StmtKind::Cond {
                                    lhs: result,
                                    op: CmpOp::Ge,
                                    rhs: least,
                                },
                                range,
                            );
                        }
                    }
                }
                self.jump_to(join);
                self.cur = Some(from);
                if let Some(d) = dest {
                    match failure {
                        Some(code) => {
                            let v = self.int(code);
                            self.emit(StmtKind::Assign { addr: d, value: v }, range);
                        }
                        None => {
                            // A code we do not track, but never 0 (the success value).
                            let v = self.scalar();
                            self.emit(StmtKind::Assign { addr: d, value: v }, range);
                            self.assume_nonzero(d, range);
                        }
                    }
                } else {
                    // Keep the failure path a distinct edge even with no result to store.
                    self.emit(StmtKind::Nop, range);
                }
                self.jump_to(join);
                self.cur = Some(join);
            }
            AllocKind::ReallocThrough { arg, size_arg } => {
                // Either the buffer `*out` stays (large enough, or the allocation failed), or
                // it is freed and a fresh one stored; the size and the result are counts we
                // do not track, on both paths (-1 at end of file after allocating, too).
                let (Some(&out), Some(&size)) =
                    (args.get(arg as usize), args.get(size_arg as usize))
                else {
                    self.fallback(range, format!("`{name}` without its buffer and size"));
                    return;
                };
                let from = self.ensure_reachable_point(range);
                let join = self.join(TextRange::new(range.end, range.end));
                let old = self.deref(out);
                self.emit(StmtKind::Free { ptr: old }, range);
                self.emit(StmtKind::Alloc { addr: out, site }, range);
                self.jump_to(join);
                self.cur = Some(from);
                self.emit(StmtKind::Nop, range);
                self.jump_to(join);
                self.cur = Some(join);
                let v = self.scalar();
                self.emit(
                    StmtKind::Assign {
                        addr: size,
                        value: v,
                    },
                    range,
                );
                if let Some(d) = dest {
                    let v = self.scalar();
                    self.emit(StmtKind::Assign { addr: d, value: v }, range);
                }
            }
        }
    }

    /// The fewest characters the format argument `index` of call `n` always prints, when it
    /// is a string literal (see [`format_min_len`]).
    fn format_min_len(&self, n: Node, index: u32) -> Option<i64> {
        let args = n.child_by_field_name("arguments")?;
        let mut c = args.walk();
        let fmt = args
            .named_children(&mut c)
            .filter(|a| a.kind() != "comment")
            .nth(index as usize)?;
        if fmt.kind() != "string_literal" {
            return None;
        }
        let t = text(fmt, self.src);
        let body = t.strip_prefix('"')?.strip_suffix('"')?;
        Some(format_min_len(body))
    }
}

/// The fewest characters a `printf` format (the text between the quotes of a literal)
/// always prints: its literal characters, and one for each conversion that prints at least
/// one (`%d`, `%zu`, `%c`, `%p`, …, unless a precision allows an empty number), or its
/// literal field width; `%s` may print nothing.
pub(super) fn format_min_len(body: &str) -> i64 {
    let b = body.as_bytes();
    let mut n: i64 = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                // An escape sequence is one character (octal and hex digits are swallowed
                // loosely: at worst the count is lower, never higher).
                n += 1;
                i += 2;
            }
            b'%' if b.get(i + 1) == Some(&b'%') => {
                n += 1;
                i += 2;
            }
            b'%' => {
                i += 1;
                while i < b.len() && b"-+ #0'".contains(&b[i]) {
                    i += 1;
                }
                let mut width: i64 = 0;
                while i < b.len() && b[i].is_ascii_digit() {
                    width = width
                        .saturating_mul(10)
                        .saturating_add(i64::from(b[i] - b'0'));
                    i += 1;
                }
                if b.get(i) == Some(&b'*') {
                    width = 0;
                    i += 1;
                }
                let mut precision = false;
                if b.get(i) == Some(&b'.') {
                    precision = true;
                    i += 1;
                    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'*') {
                        i += 1;
                    }
                }
                while i < b.len() && b"hlLqjzt".contains(&b[i]) {
                    i += 1;
                }
                let Some(&conv) = b.get(i) else {
                    break;
                };
                i += 1;
                let least = match conv {
                    b'c' | b'p' | b'e' | b'E' | b'f' | b'F' | b'g' | b'G' | b'a' | b'A' => 1,
                    b'd' | b'i' | b'u' | b'o' | b'x' | b'X' if !precision => 1,
                    _ => 0,
                };
                n = n.saturating_add(least.max(width.min(4096)));
            }
            _ => {
                n += 1;
                i += 1;
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::format_min_len;

    #[test]
    fn the_least_a_format_prints() {
        assert_eq!(format_min_len("%zu"), 1);
        assert_eq!(format_min_len("%s"), 0);
        assert_eq!(format_min_len("%s/%s"), 1);
        assert_eq!(format_min_len("%%"), 1);
        assert_eq!(format_min_len("p%.0d"), 1);
        assert_eq!(format_min_len("%5s"), 5);
        assert_eq!(format_min_len("a\\nb"), 3);
        assert_eq!(format_min_len("%*d"), 1);
        assert_eq!(format_min_len("%"), 0);
        assert_eq!(format_min_len(""), 0);
    }
}

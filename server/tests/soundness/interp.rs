//! A reference interpreter for the generated programs, which says *where* each leak happens.
//!
//! The sanitizer run of the compiled program says *which* allocation sites leak; it cannot say
//! at which statement a block lost its last reference. This interpreter runs the same C text
//! (parsed here, for the subset the generator writes) and, after every statement, block end
//! and function return, finds the heap cells that just became unreachable:
//!
//! - a newly unreachable cell that no other cell (live or garbage) points to is a *root loss*:
//!   the statement just executed lost its last reference. That is exactly what the paper's
//!   probe at that statement assumes, so a sound analysis cannot prove that probe;
//! - a newly unreachable cell still pointed to by garbage is an *indirect* loss: it is caught
//!   at the root losses of the garbage that points to it (its *catch points*).
//!
//! The harness compares the sites that leak here with the sites LeakSanitizer reports for the
//! real run, so the interpreter is itself checked against reality.
//!
//! Programs with undefined behaviour (null or dangling dereference, double free, reading
//! uninitialised memory, overflow), with garbage cycles, or that run too long are rejected.

use std::collections::{BTreeSet, HashMap};

// ---- syntax ------------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Num(i64),
    Punct(&'static str),
}

const PUNCTS: [&str; 29] = [
    "->", "==", "!=", "<=", ">=", "&&", "||", "++", "--", "+=", "{", "}", "(", ")", "[", "]", ";",
    ",", "=", "<", ">", "+", "-", "*", "/", "%", "!", "?", ":",
];

fn tokenize(text: &str) -> Result<Vec<(Tok, u32)>, String> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut line = 1u32;
    let mut out = Vec::new();
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
            i += 1;
            line_start = true;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if line_start && c == b'#' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        line_start = false;
        if b[i..].starts_with(b"/*") {
            i += 2;
            while i < b.len() && !b[i..].starts_with(b"*/") {
                if b[i] == b'\n' {
                    line += 1;
                }
                i += 1;
            }
            i += 2;
            continue;
        }
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push((Tok::Ident(text[s..i].to_string()), line));
            continue;
        }
        if c.is_ascii_digit() {
            let s = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let n = text[s..i].parse().map_err(|e| format!("number: {e}"))?;
            out.push((Tok::Num(n), line));
            continue;
        }
        match PUNCTS.iter().find(|p| b[i..].starts_with(p.as_bytes())) {
            Some(p) => {
                out.push((Tok::Punct(p), line));
                i += p.len();
            }
            None => return Err(format!("line {line}: unexpected character `{}`", c as char)),
        }
    }
    Ok(out)
}

#[derive(Clone, Debug)]
enum Expr {
    Num(i64),
    Var(String),
    Arrow(Box<Expr>, String),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Bin(&'static str, Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    Call(String, Vec<Expr>),
    /// `atoi(argv[k])`: input number `k` (1-based).
    Arg(usize),
    Assign(Box<Expr>, Box<Expr>),
    /// `sizeof …`: the interpreter does not need sizes.
    Sizeof,
}

#[derive(Clone, Debug)]
enum Stmt {
    Decl(String, Option<Expr>, u32),
    Expr(Expr, u32),
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    While(Expr, Box<Stmt>),
    /// `for (init; cond; v++) body`; the init may declare `v`.
    For(Box<Stmt>, Expr, String, Box<Stmt>),
    Return(Option<Expr>, u32),
    /// Statements, and the line of the closing brace.
    Block(Vec<Stmt>, u32),
}

#[derive(Clone, Debug)]
struct Func {
    /// Falling off the end of a function that returns a value is undefined behaviour if the
    /// caller uses the value; the generated code never does it, so it is rejected outright.
    returns_value: bool,
    params: Vec<String>,
    body: Vec<Stmt>,
    /// Line of the closing brace (falling off the end returns there).
    end: u32,
}

struct Parser {
    toks: Vec<(Tok, u32)>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }

    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k).map(|t| &t.0)
    }

    fn line(&self) -> u32 {
        self.toks
            .get(self.pos)
            .or(self.toks.last())
            .map(|t| t.1)
            .unwrap_or(0)
    }

    fn next(&mut self) -> Result<Tok, String> {
        let t = self.toks.get(self.pos).cloned().ok_or("unexpected end")?;
        self.pos += 1;
        Ok(t.0)
    }

    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(q)) if *q == p)
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(s)) if s == w)
    }

    fn eat(&mut self, p: &str) -> bool {
        if self.is(p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, p: &str) -> Result<(), String> {
        if self.eat(p) {
            Ok(())
        } else {
            Err(format!(
                "line {}: expected `{p}`, found {:?}",
                self.line(),
                self.peek()
            ))
        }
    }

    fn ident(&mut self) -> Result<String, String> {
        match self.next()? {
            Tok::Ident(s) => Ok(s),
            t => Err(format!(
                "line {}: expected a name, found {t:?}",
                self.line()
            )),
        }
    }

    fn starts_type(&self) -> bool {
        matches!(self.peek(), Some(Tok::Ident(s)) if matches!(s.as_str(), "int" | "void" | "char" | "struct" | "static"))
    }

    /// A type and a declarator name: `static struct node *name`, `int x`, `char **argv`.
    fn type_and_name(&mut self) -> Result<String, String> {
        if self.is_word("static") {
            self.pos += 1;
        }
        if self.is_word("struct") {
            self.pos += 1;
        }
        self.ident()?;
        while self.eat("*") {}
        self.ident()
    }

    fn program(&mut self) -> Result<HashMap<String, Func>, String> {
        let mut funcs = HashMap::new();
        while self.peek().is_some() {
            if self.is_word("struct") && matches!(self.peek_at(2), Some(Tok::Punct("{"))) {
                // A struct definition: fields are looked up by name at run time.
                while !self.eat("}") {
                    self.next()?;
                }
                self.expect(";")?;
                continue;
            }
            let returns_value = !(self.is_word("void")
                || (self.is_word("static")
                    && matches!(self.peek_at(1), Some(Tok::Ident(s)) if s == "void")))
                || self.toks[self.pos..]
                    .iter()
                    .take(4)
                    .any(|t| t.0 == Tok::Punct("*"));
            let name = self.type_and_name()?;
            self.expect("(")?;
            let mut params = Vec::new();
            if self.is_word("void") && matches!(self.peek_at(1), Some(Tok::Punct(")"))) {
                self.pos += 1;
            }
            while !self.eat(")") {
                params.push(self.type_and_name()?);
                self.eat(",");
            }
            let Stmt::Block(body, end) = self.block()? else {
                unreachable!()
            };
            funcs.insert(
                name,
                Func {
                    returns_value,
                    params,
                    body,
                    end,
                },
            );
        }
        Ok(funcs)
    }

    fn block(&mut self) -> Result<Stmt, String> {
        self.expect("{")?;
        let mut body = Vec::new();
        while !self.is("}") {
            body.push(self.stmt()?);
        }
        let end = self.line();
        self.expect("}")?;
        Ok(Stmt::Block(body, end))
    }

    fn stmt(&mut self) -> Result<Stmt, String> {
        let line = self.line();
        if self.is("{") {
            return self.block();
        }
        if self.is_word("if") {
            self.pos += 1;
            self.expect("(")?;
            let c = self.expr()?;
            self.expect(")")?;
            let then = Box::new(self.stmt()?);
            let els = if self.is_word("else") {
                self.pos += 1;
                Some(Box::new(self.stmt()?))
            } else {
                None
            };
            return Ok(Stmt::If(c, then, els));
        }
        if self.is_word("while") {
            self.pos += 1;
            self.expect("(")?;
            let c = self.expr()?;
            self.expect(")")?;
            return Ok(Stmt::While(c, Box::new(self.stmt()?)));
        }
        if self.is_word("for") {
            self.pos += 1;
            self.expect("(")?;
            let init = self.simple_stmt(line)?;
            let c = self.expr()?;
            self.expect(";")?;
            let v = self.ident()?;
            self.expect("++")?;
            self.expect(")")?;
            return Ok(Stmt::For(Box::new(init), c, v, Box::new(self.stmt()?)));
        }
        if self.is_word("return") {
            self.pos += 1;
            let e = if self.is(";") {
                None
            } else {
                Some(self.expr()?)
            };
            self.expect(";")?;
            return Ok(Stmt::Return(e, line));
        }
        self.simple_stmt(line)
    }

    /// A declaration or an expression statement, with its `;`.
    fn simple_stmt(&mut self, line: u32) -> Result<Stmt, String> {
        if self.starts_type() {
            let name = self.type_and_name()?;
            let init = if self.eat("=") {
                Some(self.expr()?)
            } else {
                None
            };
            self.expect(";")?;
            return Ok(Stmt::Decl(name, init, line));
        }
        let e = self.expr()?;
        self.expect(";")?;
        Ok(Stmt::Expr(e, line))
    }

    fn expr(&mut self) -> Result<Expr, String> {
        let lhs = self.ternary()?;
        if self.eat("=") {
            let rhs = self.expr()?;
            return Ok(Expr::Assign(Box::new(lhs), Box::new(rhs)));
        }
        Ok(lhs)
    }

    fn ternary(&mut self) -> Result<Expr, String> {
        let c = self.binary(0)?;
        if self.eat("?") {
            let a = self.expr()?;
            self.expect(":")?;
            let b = self.ternary()?;
            return Ok(Expr::Cond(Box::new(c), Box::new(a), Box::new(b)));
        }
        Ok(c)
    }

    fn binary(&mut self, min: u8) -> Result<Expr, String> {
        let mut lhs = self.unary()?;
        loop {
            let Some(Tok::Punct(op)) = self.peek().cloned() else {
                return Ok(lhs);
            };
            let prec = match op {
                "||" => 1,
                "&&" => 2,
                "==" | "!=" => 3,
                "<" | "<=" | ">" | ">=" => 4,
                "+" | "-" => 5,
                "*" | "/" | "%" => 6,
                _ => return Ok(lhs),
            };
            if prec < min || prec == 0 {
                return Ok(lhs);
            }
            self.pos += 1;
            let rhs = self.binary(prec + 1)?;
            lhs = Expr::Bin(op, Box::new(lhs), Box::new(rhs));
        }
    }

    fn unary(&mut self) -> Result<Expr, String> {
        if self.eat("!") {
            return Ok(Expr::Not(Box::new(self.unary()?)));
        }
        if self.eat("-") {
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        if self.is_word("sizeof") {
            self.pos += 1;
            if self.is("(") && matches!(self.peek_at(1), Some(Tok::Ident(s)) if s == "struct") {
                while !self.eat(")") {
                    self.next()?;
                }
            } else {
                self.unary()?;
            }
            return Ok(Expr::Sizeof);
        }
        if self.eat("*") {
            // Only `sizeof *p` dereferences with `*` in the generated programs.
            self.unary()?;
            return Ok(Expr::Sizeof);
        }
        self.postfix()
    }

    fn postfix(&mut self) -> Result<Expr, String> {
        let mut e = self.primary()?;
        loop {
            if self.eat("->") {
                e = Expr::Arrow(Box::new(e), self.ident()?);
            } else if self.is("(") {
                let Expr::Var(name) = e else {
                    return Err(format!("line {}: call of a non-name", self.line()));
                };
                self.pos += 1;
                let mut args = Vec::new();
                while !self.eat(")") {
                    args.push(self.expr()?);
                    self.eat(",");
                }
                if name == "atoi"
                    && let [Expr::Arg(k)] = args.as_slice()
                {
                    e = Expr::Arg(*k);
                } else {
                    e = Expr::Call(name, args);
                }
            } else if self.eat("[") {
                let Expr::Num(k) = self.expr()? else {
                    return Err("only argv[k] is indexed".into());
                };
                self.expect("]")?;
                e = Expr::Arg(k as usize);
            } else if self.eat("++") {
                // `v++` as a statement (loop increments).
                e = Expr::Assign(
                    Box::new(e.clone()),
                    Box::new(Expr::Bin("+", Box::new(e), Box::new(Expr::Num(1)))),
                );
            } else {
                return Ok(e);
            }
        }
    }

    fn primary(&mut self) -> Result<Expr, String> {
        match self.next()? {
            Tok::Num(n) => Ok(Expr::Num(n)),
            Tok::Ident(s) if s == "NULL" => Ok(Expr::Num(0)),
            Tok::Ident(s) => Ok(Expr::Var(s)),
            Tok::Punct("(") => {
                let e = self.expr()?;
                self.expect(")")?;
                Ok(e)
            }
            t => Err(format!("line {}: unexpected {t:?}", self.line())),
        }
    }
}

// ---- execution ---------------------------------------------------------------------------

fn int(v: Val) -> Result<i64, String> {
    match v {
        Val::Int(n) => Ok(n),
        Val::Ptr(_) => Ok(1), // only in truth tests: non-null
        Val::Uninit => Err("uninitialised value read".into()),
    }
}

fn truth(v: Val) -> Result<bool, String> {
    Ok(int(v)? != 0)
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Val {
    Int(i64),
    Ptr(usize),
    Uninit,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum CellState {
    Live,
    Freed,
    Leaked,
}

/// A program point where a reference was lost: (function, line).
pub type Point = (String, u32);

struct Cell {
    fields: HashMap<String, Val>,
    zeroed: bool,
    state: CellState,
    site: u32,
    catch: BTreeSet<Point>,
}

/// One heap cell that leaked during a run.
#[derive(Clone, Debug)]
pub struct Leak {
    /// Line of the allocator call.
    pub site: u32,
    /// Whether its own last reference was lost (a root loss), or it leaked with garbage that
    /// points to it.
    pub root: bool,
    /// Where its loss can be caught: its own root loss, or those of the garbage pointing to it.
    pub catch: BTreeSet<Point>,
}

/// What one run did.
#[derive(Debug, Default)]
pub struct RunResult {
    pub leaks: Vec<Leak>,
    pub steps: u64,
}

enum Flow {
    Normal,
    /// A `return`: the value and the statement's line.
    Return(Val, u32),
}

const MAX_STEPS: u64 = 2_000_000;
const MAX_DEPTH: usize = 400;

struct Frame {
    func: String,
    scopes: Vec<Vec<(String, Val)>>,
}

struct Machine<'a> {
    funcs: &'a HashMap<String, Func>,
    args: &'a [i64],
    cells: Vec<Cell>,
    frames: Vec<Frame>,
    /// Values computed but not yet stored: call arguments and return values.
    inflight: Vec<Val>,
    leaks: Vec<Leak>,
    steps: u64,
}

/// A parsed program, ready to run with different inputs.
pub struct Parsed {
    funcs: HashMap<String, Func>,
}

pub fn parse(text: &str) -> Result<Parsed, String> {
    let toks = tokenize(text)?;
    let funcs = Parser { toks, pos: 0 }.program()?;
    if !funcs.contains_key("main") {
        return Err("no main".into());
    }
    Ok(Parsed { funcs })
}

/// Runs `main` with `args` as argv[1..]. `Err` means the program is unusable (undefined
/// behaviour, a garbage cycle, too long a run).
pub fn run(p: &Parsed, args: &[i64]) -> Result<RunResult, String> {
    let mut m = Machine {
        funcs: &p.funcs,
        args,
        cells: Vec::new(),
        frames: Vec::new(),
        inflight: Vec::new(),
        leaks: Vec::new(),
        steps: 0,
    };
    let mut argv = vec![Val::Int(args.len() as i64 + 1), Val::Int(0)];
    argv.truncate(p.funcs["main"].params.len());
    m.call("main", argv)?;
    m.inflight.clear();
    m.check(&("main".to_string(), 0))?;
    Ok(RunResult {
        leaks: m.leaks,
        steps: m.steps,
    })
}

impl Machine<'_> {
    fn func_name(&self) -> String {
        self.frames
            .last()
            .map(|f| f.func.clone())
            .unwrap_or_default()
    }

    fn lookup(&mut self, name: &str) -> Result<&mut Val, String> {
        let frame = self.frames.last_mut().ok_or("no frame")?;
        for scope in frame.scopes.iter_mut().rev() {
            if let Some((_, v)) = scope.iter_mut().rev().find(|(n, _)| n == name) {
                return Ok(v);
            }
        }
        Err(format!("unknown variable `{name}`"))
    }

    fn cell(&mut self, v: Val, what: &str) -> Result<usize, String> {
        match v {
            Val::Ptr(c) if self.cells[c].state == CellState::Live => Ok(c),
            Val::Ptr(_) => Err(format!("{what}: dangling pointer dereferenced")),
            Val::Int(0) => Err(format!("{what}: null pointer dereferenced")),
            Val::Int(_) => Err(format!("{what}: integer dereferenced")),
            Val::Uninit => Err(format!("{what}: uninitialised pointer dereferenced")),
        }
    }

    fn tick(&mut self) -> Result<(), String> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Err("run too long".into());
        }
        Ok(())
    }

    fn eval(&mut self, e: &Expr) -> Result<Val, String> {
        self.tick()?;
        Ok(match e {
            Expr::Num(n) => Val::Int(*n),
            Expr::Sizeof => Val::Int(8),
            Expr::Arg(k) => Val::Int(*self.args.get(k - 1).ok_or("missing argument")?),
            Expr::Var(n) => {
                let v = *self.lookup(n)?;
                if v == Val::Uninit {
                    return Err(format!("`{n}` read uninitialised"));
                }
                v
            }
            Expr::Arrow(base, f) => {
                let b = self.eval(base)?;
                let c = self.cell(b, f)?;
                let cell = &self.cells[c];
                match cell.fields.get(f) {
                    Some(Val::Uninit) | None if !cell.zeroed => {
                        return Err(format!("field `{f}` read uninitialised"));
                    }
                    Some(v) => *v,
                    None => Val::Int(0),
                }
            }
            Expr::Not(a) => Val::Int(i64::from(!truth(self.eval(a)?)?)),
            Expr::Neg(a) => Val::Int(-int(self.eval(a)?)?),
            Expr::Bin(op, a, b) => {
                let x = self.eval(a)?;
                if *op == "&&" && !truth(x)? {
                    return Ok(Val::Int(0));
                }
                if *op == "||" && truth(x)? {
                    return Ok(Val::Int(1));
                }
                let y = self.eval(b)?;
                if matches!(*op, "==" | "!=") {
                    let same = match (x, y) {
                        (Val::Ptr(p), Val::Ptr(q)) => p == q,
                        (Val::Int(p), Val::Int(q)) => p == q,
                        (Val::Ptr(_), Val::Int(0)) | (Val::Int(0), Val::Ptr(_)) => false,
                        _ => return Err("bad comparison".into()),
                    };
                    return Ok(Val::Int(i64::from(same == (*op == "=="))));
                }
                let (x, y) = (int(x)?, int(y)?);
                let r = match *op {
                    "&&" | "||" => i64::from(y != 0),
                    "<" => i64::from(x < y),
                    "<=" => i64::from(x <= y),
                    ">" => i64::from(x > y),
                    ">=" => i64::from(x >= y),
                    "+" => x + y,
                    "-" => x - y,
                    "*" => x * y,
                    "/" | "%" if y == 0 => return Err("division by zero".into()),
                    "/" => x / y,
                    "%" => x % y,
                    _ => return Err(format!("operator {op}")),
                };
                if r.abs() > i64::from(i32::MAX) {
                    return Err("integer overflow".into());
                }
                Val::Int(r)
            }
            Expr::Cond(c, a, b) => {
                if truth(self.eval(c)?)? {
                    self.eval(a)?
                } else {
                    self.eval(b)?
                }
            }
            Expr::Assign(lhs, rhs) => {
                let v = self.eval(rhs)?;
                self.inflight.push(v);
                self.store(lhs, v)?;
                self.inflight.pop();
                v
            }
            Expr::Call(name, args) => self.eval_call(name, args)?,
        })
    }

    fn store(&mut self, lhs: &Expr, v: Val) -> Result<(), String> {
        match lhs {
            Expr::Var(n) => *self.lookup(n)? = v,
            Expr::Arrow(base, f) => {
                let b = self.eval(base)?;
                let c = self.cell(b, f)?;
                self.cells[c].fields.insert(f.clone(), v);
            }
            _ => return Err("bad assignment target".into()),
        }
        Ok(())
    }

    fn eval_call(&mut self, name: &str, args: &[Expr]) -> Result<Val, String> {
        let base = self.inflight.len();
        for a in args {
            let v = self.eval(a)?;
            self.inflight.push(v);
        }
        let vals: Vec<Val> = self.inflight.drain(base..).collect();
        match name {
            "malloc" | "calloc" => {
                self.cells.push(Cell {
                    fields: HashMap::new(),
                    zeroed: name == "calloc",
                    state: CellState::Live,
                    site: 0, // set by the statement (the allocator call's line)
                    catch: BTreeSet::new(),
                });
                Ok(Val::Ptr(self.cells.len() - 1))
            }
            "free" => {
                match vals.first() {
                    Some(Val::Int(0)) => {}
                    Some(&v @ Val::Ptr(_)) => {
                        let c = self
                            .cell(v, "free")
                            .map_err(|_| "double free or free of a dangling pointer")?;
                        self.cells[c].state = CellState::Freed;
                    }
                    _ => return Err("free of a non-pointer".into()),
                }
                Ok(Val::Int(0))
            }
            // `memset(p, 0, sizeof *p)`: every field of the cell reads 0 afterwards.
            "memset" => match (vals.first(), vals.get(1)) {
                (Some(&v @ Val::Ptr(_)), Some(Val::Int(0))) => {
                    let c = self.cell(v, "memset")?;
                    self.cells[c].fields.clear();
                    self.cells[c].zeroed = true;
                    Ok(v)
                }
                _ => Err("memset of a non-pointer or to a non-zero value".into()),
            },
            "exit" | "abort" => Err("exit called (an allocation failed?)".into()),
            _ => self.call(name, vals),
        }
    }

    fn call(&mut self, name: &str, vals: Vec<Val>) -> Result<Val, String> {
        let funcs = self.funcs;
        let f = funcs
            .get(name)
            .ok_or_else(|| format!("call of unknown `{name}`"))?;
        if self.frames.len() >= MAX_DEPTH {
            return Err("recursion too deep".into());
        }
        if f.params.len() != vals.len() {
            return Err(format!("`{name}` called with the wrong arity"));
        }
        let params = f.params.iter().cloned().zip(vals).collect();
        self.frames.push(Frame {
            func: name.to_string(),
            scopes: vec![params],
        });
        let (ret, line) = match self.block(&f.body)? {
            Flow::Return(v, line) => (v, line),
            Flow::Normal if f.returns_value && name != "main" => {
                return Err(format!("`{name}` falls off its end without a value"));
            }
            Flow::Normal => (Val::Int(0), f.end),
        };
        // The callee's locals die; the returned value is still held by the caller.
        self.inflight.push(ret);
        self.frames.pop();
        self.check(&(name.to_string(), line))?;
        self.inflight.pop();
        Ok(ret)
    }

    fn block(&mut self, body: &[Stmt]) -> Result<Flow, String> {
        for s in body {
            if let flow @ Flow::Return(..) = self.stmt(s)? {
                return Ok(flow);
            }
        }
        Ok(Flow::Normal)
    }

    fn stmt(&mut self, s: &Stmt) -> Result<Flow, String> {
        self.tick()?;
        match s {
            Stmt::Decl(name, init, line) => {
                let v = match init {
                    Some(e) => self.eval_at(e, *line)?,
                    None => Val::Uninit,
                };
                let frame = self.frames.last_mut().ok_or("no frame")?;
                frame
                    .scopes
                    .last_mut()
                    .ok_or("no scope")?
                    .push((name.clone(), v));
                self.check(&(self.func_name(), *line))?;
            }
            Stmt::Expr(e, line) => {
                self.eval_at(e, *line)?;
                self.check(&(self.func_name(), *line))?;
            }
            Stmt::If(c, then, els) => {
                if truth(self.eval(c)?)? {
                    return self.stmt(then);
                } else if let Some(e) = els {
                    return self.stmt(e);
                }
            }
            Stmt::While(c, body) => {
                while truth(self.eval(c)?)? {
                    if let flow @ Flow::Return(..) = self.stmt(body)? {
                        return Ok(flow);
                    }
                }
            }
            Stmt::For(init, c, var, body) => {
                self.push_scope()?;
                self.stmt(init)?;
                while truth(self.eval(c)?)? {
                    if let flow @ Flow::Return(..) = self.stmt(body)? {
                        return Ok(flow);
                    }
                    let next = Expr::Bin(
                        "+",
                        Box::new(Expr::Var(var.clone())),
                        Box::new(Expr::Num(1)),
                    );
                    let v = self.eval(&next)?;
                    *self.lookup(var)? = v;
                }
                self.pop_scope()?;
            }
            Stmt::Return(e, line) => {
                let v = match e {
                    Some(e) => self.eval_at(e, *line)?,
                    None => Val::Int(0),
                };
                return Ok(Flow::Return(v, *line));
            }
            Stmt::Block(body, end) => {
                self.push_scope()?;
                if let flow @ Flow::Return(..) = self.block(body)? {
                    return Ok(flow);
                }
                self.pop_scope()?;
                self.check(&(self.func_name(), *end))?;
            }
        }
        Ok(Flow::Normal)
    }

    /// Evaluates `e`, stamping cells allocated by it with the statement's line.
    fn eval_at(&mut self, e: &Expr, line: u32) -> Result<Val, String> {
        let before = self.cells.len();
        let v = self.eval(e)?;
        for c in &mut self.cells[before..] {
            if c.site == 0 {
                c.site = line;
            }
        }
        Ok(v)
    }

    fn push_scope(&mut self) -> Result<(), String> {
        self.frames
            .last_mut()
            .ok_or("no frame")?
            .scopes
            .push(Vec::new());
        Ok(())
    }

    fn pop_scope(&mut self) -> Result<(), String> {
        self.frames.last_mut().ok_or("no frame")?.scopes.pop();
        Ok(())
    }

    /// Finds the cells that just became unreachable, and where their loss can be caught.
    fn check(&mut self, at: &Point) -> Result<(), String> {
        let n = self.cells.len();
        let mut reach = vec![false; n];
        let mut stack: Vec<usize> = Vec::new();
        let roots = self
            .frames
            .iter()
            .flat_map(|f| f.scopes.iter().flatten().map(|(_, v)| *v))
            .chain(self.inflight.iter().copied());
        for v in roots {
            if let Val::Ptr(c) = v {
                stack.push(c);
            }
        }
        while let Some(c) = stack.pop() {
            if reach[c] || self.cells[c].state != CellState::Live {
                continue;
            }
            reach[c] = true;
            for v in self.cells[c].fields.values() {
                if let Val::Ptr(d) = v {
                    stack.push(*d);
                }
            }
        }
        let fresh: Vec<usize> = (0..n)
            .filter(|&c| self.cells[c].state == CellState::Live && !reach[c])
            .collect();
        if fresh.is_empty() {
            return Ok(());
        }
        for &c in &fresh {
            self.cells[c].state = CellState::Leaked;
        }
        // Referrers among garbage (every referrer of an unreachable cell is garbage).
        let mut referrers: HashMap<usize, Vec<usize>> = HashMap::new();
        for (g, cell) in self.cells.iter().enumerate() {
            if cell.state != CellState::Leaked {
                continue;
            }
            for v in cell.fields.values() {
                if let Val::Ptr(d) = v
                    && fresh.contains(d)
                {
                    referrers.entry(*d).or_default().push(g);
                }
            }
        }
        let mut roots = Vec::new();
        for &c in &fresh {
            if !referrers.contains_key(&c) {
                self.cells[c].catch.insert(at.clone());
                roots.push(c);
            }
        }
        // Propagate catch points down the garbage to a fixpoint.
        loop {
            let mut changed = false;
            for &c in &fresh {
                let Some(rs) = referrers.get(&c) else {
                    continue;
                };
                let mut add = BTreeSet::new();
                for &g in rs {
                    add.extend(self.cells[g].catch.iter().cloned());
                }
                let cell = &mut self.cells[c];
                let before = cell.catch.len();
                cell.catch.extend(add);
                changed |= cell.catch.len() != before;
            }
            if !changed {
                break;
            }
        }
        for &c in &fresh {
            let cell = &self.cells[c];
            if cell.catch.is_empty() {
                return Err("a garbage cycle (outside the referencing-leak model)".into());
            }
            self.leaks.push(Leak {
                site: cell.site,
                root: roots.contains(&c),
                catch: cell.catch.clone(),
            });
        }
        Ok(())
    }
}

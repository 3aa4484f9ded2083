//! The items of one file: function definitions (as source text to lower on demand), typedefs,
//! structs, prototypes, globals and integer constants.
//!
//! Real headers and sources are full of macro-decorated declarations (`LUA_API int f(…)`,
//! `static int ZEXPORT f(…)`, `SQLITE_API int SQLITE_STDCALL f(…)`) that tree-sitter parses with
//! ERROR nodes. tree-sitter still recovers the `function_definition` around them; what it gets
//! wrong is the return type (the macro is taken as the type and the real type lands in an ERROR
//! node, or in a broken declaration just before). We repair that here, walk into ERROR and `#if`
//! regions to find functions, and count bodies that could not be attached to a function.

use super::types::{
    FnSig, StructDef, Type, TypeEnv, adjust_param_type, base_type, char_literal_value,
    declarator_type, parse_int_literal,
};
use crate::syntax::TextRange;
use crate::syntax::ts::{
    find_function_declarator, has_missing, is_if_zero, keyword_name, operator, text,
};
use tree_sitter::{Node, Tree};

/// A function definition as source: lowering re-parses `text` on demand, so a function's IR
/// depends only on its own text (plus the workspace's declarations).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FunctionSource {
    pub name: String,
    /// The definition's text, from its first specifier to its closing brace.
    pub text: String,
    pub is_static: bool,
    pub sig: FnSig,
    /// The head had ERROR nodes (macro decorations) and the return type was repaired.
    pub recovered: bool,
}

/// A function definition and where it starts in its file. The position is kept apart from the
/// source so that moving a function (an edit above it) does not change what it lowers to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FunctionItem {
    pub start: u32,
    pub source: FunctionSource,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GlobalItem {
    pub name: String,
    pub ty: Type,
    pub is_static: bool,
    pub is_extern: bool,
    /// Range of the `init_declarator` in the file, when the global has an initializer.
    pub init: Option<TextRange>,
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ItemStats {
    /// ERROR nodes at file level (outside function bodies).
    pub error_nodes: u32,
    /// Functions found with a macro-decorated head whose return type was repaired.
    pub recovered_functions: u32,
    /// Function-like fragments (a body or a function declarator) inside ERROR regions that could
    /// not be turned into a function.
    pub unrecovered: Vec<TextRange>,
    /// Definitions of an already-defined name in the same file (e.g. `#ifdef` alternatives).
    pub duplicate_functions: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct FileItems {
    pub functions: Vec<FunctionItem>,
    pub globals: Vec<GlobalItem>,
    /// This file's declarations (typedefs, structs, signatures, globals, constants).
    pub env: TypeEnv,
    pub stats: ItemStats,
}

/// Preprocessor and ERROR regions nest deeper than this only in hostile input.
const MAX_ITEM_DEPTH: u32 = 200;

pub fn collect_items(tree: &Tree, src: &str) -> FileItems {
    let mut c = Collector::new(src.as_bytes(), false);
    c.walk(tree.root_node(), 0);
    for s in std::mem::take(&mut c.structs) {
        c.add_struct(s);
    }
    c.items
}

struct Collector<'a> {
    src: &'a [u8],
    items: FileItems,
    structs: Vec<StructDef>,
    defined: rustc_hash::FxHashSet<String>,
    /// This collector works on a definition parsed again with a macro blanked out (see
    /// [`Collector::reparse_blanked`]); it does not try that again.
    reparsed: bool,
}

impl<'a> Collector<'a> {
    fn new(src: &'a [u8], reparsed: bool) -> Self {
        Collector {
            src,
            items: FileItems::default(),
            structs: Vec::new(),
            defined: Default::default(),
            reparsed,
        }
    }

    /// Record a function definition; a second definition of a name is counted, and only the
    /// first one's signature is declared.
    fn add_function(&mut self, f: FunctionItem) {
        if !self.defined.insert(f.source.name.clone()) {
            self.items.stats.duplicate_functions += 1;
        } else {
            self.items
                .env
                .functions
                .insert(f.source.name.clone(), f.source.sig.clone());
        }
        self.items.functions.push(f);
    }
    fn add_struct(&mut self, s: StructDef) {
        match self.items.env.structs.get(&s.tag) {
            Some(old) if !old.fields.is_empty() => {}
            _ => {
                self.items.env.structs.insert(s.tag.clone(), s);
            }
        }
    }

    fn walk(&mut self, node: Node, depth: u32) {
        if depth > MAX_ITEM_DEPTH {
            self.items.stats.unrecovered.push(TextRange::of_node(&node));
            return;
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for (i, child) in children.iter().enumerate() {
            let prev = if i > 0 { Some(children[i - 1]) } else { None };
            match child.kind() {
                "function_definition" => self.function(*child, prev),
                "declaration" => self.declaration(*child),
                "type_definition" => self.typedef(*child),
                "preproc_def" => self.define(*child),
                "preproc_if" | "preproc_ifdef" | "preproc_elif" | "preproc_elifdef" => {
                    if is_if_zero(*child, self.src) {
                        // `#if 0` code is dead by intent; only its #else side counts.
                        if let Some(alt) = child.child_by_field_name("alternative") {
                            self.walk(alt, depth + 1);
                        }
                    } else {
                        self.walk(*child, depth + 1);
                    }
                }
                "preproc_else" | "linkage_specification" | "declaration_list" => {
                    self.walk(*child, depth + 1)
                }
                "ERROR" => {
                    self.items.stats.error_nodes += 1;
                    self.walk(*child, depth + 1);
                }
                "compound_statement" if node.kind() == "ERROR" => {
                    self.items.stats.unrecovered.push(TextRange::of_node(child));
                }
                "function_declarator" if node.kind() == "ERROR" => {
                    // A function head whose body tree-sitter could not attach (e.g. a head
                    // split by `#ifdef`). Its body, if any, is recovered separately.
                    self.items.stats.unrecovered.push(TextRange::of_node(child));
                }
                "struct_specifier" | "union_specifier" | "enum_specifier" => {
                    base_type(*child, self.src, &mut self.structs);
                    self.enumerators(*child, 0);
                }
                _ => {}
            }
        }
    }

    fn function(&mut self, node: Node, prev: Option<Node>) {
        let src = self.src;
        let Some(declarator) = node.child_by_field_name("declarator") else {
            self.items.stats.unrecovered.push(TextRange::of_node(&node));
            return;
        };
        let mut has_error_head = false;
        let mut is_static = false;
        let mut cursor = node.walk();
        for ch in node.children(&mut cursor) {
            if ch.id() == declarator.id() {
                break;
            }
            match ch.kind() {
                "ERROR" => has_error_head = true,
                "storage_class_specifier" if text(ch, src) == "static" => is_static = true,
                _ => {}
            }
        }
        let type_node = node.child_by_field_name("type");
        // `SQLITE_API int SQLITE_STDCALL f(…)`: tree-sitter ends a broken declaration
        // `SQLITE_API int` (missing `;`) just before and takes `SQLITE_STDCALL` as the type.
        let broken_prev = prev.filter(|p| {
            p.kind() == "declaration"
                && has_missing(*p)
                && node.start_byte().saturating_sub(p.end_byte()) <= 2
        });
        if let Some(p) = broken_prev {
            let t = text(p, src);
            is_static |= t.split_whitespace().any(|w| w == "static");
        }
        let type_is_macro = type_node
            .map(|t| t.kind() == "type_identifier" && looks_like_macro(text(t, src)))
            .unwrap_or(false)
            || type_node.map(|t| t.kind()) == Some("macro_type_specifier");
        let recovered = has_error_head || (broken_prev.is_some() && type_is_macro);
        let ret_base = if recovered {
            let mut words: Vec<&str> = Vec::new();
            if let Some(p) = broken_prev {
                words.extend(words_of(p, src));
            }
            if let Some(t) = type_node {
                words.extend(words_of(t, src));
            }
            let mut cursor = node.walk();
            for ch in node.children(&mut cursor) {
                if ch.id() == declarator.id() {
                    break;
                }
                if ch.kind() == "ERROR" {
                    words.extend(words_of(ch, src));
                }
            }
            pick_return_type(&words)
        } else {
            type_node
                .map(|t| base_type(t, src, &mut self.structs))
                .unwrap_or(Type::Int)
        };
        let (name, ty) = declarator_type(ret_base, declarator, src, &mut self.structs);
        // `MACRO void (*f(args))(void) { … }`: tree-sitter takes MACRO for the type and `void`
        // for the name of a function whose parameters are `(*f(args))`.
        if let (Some((n, _)), Some(t)) = (&name, type_node)
            && is_type_keyword(n)
            && type_is_macro
            && !self.reparsed
            && self.reparse_blanked(node, t)
        {
            return;
        }
        let (Some((name, _)), Type::Function(sig)) = (name, ty) else {
            self.items.stats.unrecovered.push(TextRange::of_node(&node));
            return;
        };
        let mut sig = *sig;
        self.knr_params(node, declarator, &mut sig);
        if recovered {
            self.items.stats.recovered_functions += 1;
        }
        self.add_function(FunctionItem {
            start: node.start_byte() as u32,
            source: FunctionSource {
                name,
                text: text(node, src).to_string(),
                is_static,
                sig,
                recovered,
            },
        });
        if let Some(body) = node.child_by_field_name("body") {
            self.nested_functions(body);
        }
    }

    /// Parse a definition again with the node `blank` (a macro) replaced by spaces, and
    /// collect it from that text: offsets are unchanged, and the lowering, which parses the
    /// function's own text, sees the blanked text too. Returns whether that gave a function
    /// with a proper name.
    fn reparse_blanked(&mut self, node: Node, blank: Node) -> bool {
        let (start, end) = (node.start_byte(), node.end_byte());
        let Some(mut bytes) = self.src.get(start..end).map(<[u8]>::to_vec) else {
            return false;
        };
        let Some(hole) = bytes.get_mut(blank.start_byte() - start..blank.end_byte() - start) else {
            return false;
        };
        hole.fill(b' ');
        let Ok(text) = String::from_utf8(bytes) else {
            return false;
        };
        let tree = crate::syntax::parse(&text, None);
        let root = tree.root_node();
        let mut cursor = root.walk();
        let Some(def) = root
            .named_children(&mut cursor)
            .find(|c| c.kind() == "function_definition")
        else {
            return false;
        };
        let mut sub = Collector::new(text.as_bytes(), true);
        sub.function(def, None);
        if sub.items.functions.is_empty()
            || sub
                .items
                .functions
                .iter()
                .any(|f| is_type_keyword(&f.source.name))
        {
            return false;
        }
        self.structs.extend(sub.structs);
        self.items.stats.recovered_functions += 1;
        for mut f in sub.items.functions {
            f.start += start as u32;
            self.add_function(f);
        }
        true
    }

    /// Function definitions inside a body. Braces split across `#if` branches
    /// (`#if A if (c) { #else { #endif`) leave a function open, and tree-sitter parses every
    /// later function up to a matching brace as nested in it: collect them as functions. (GNU
    /// nested functions are collected too.) A definition named `if`/`while`/… is a misparsed
    /// statement, lowered with its function.
    fn nested_functions(&mut self, body: Node) {
        // Depth-first in source order: (node, depth) to visit.
        let mut cursor = body.walk();
        let mut stack: Vec<(Node, u32)> = body
            .named_children(&mut cursor)
            .map(|k| (k, 1))
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let mut budget = 100_000;
        while let Some((k, depth)) = stack.pop() {
            budget -= 1;
            if budget == 0 || depth > MAX_ITEM_DEPTH {
                return;
            }
            let misparsed =
                k.kind() == "function_definition" && keyword_name(k, self.src).is_some();
            if k.kind() == "function_definition" && !misparsed {
                // Its own body is searched when it is collected.
                self.function(k, None);
            } else if is_statement_container(k.kind()) || misparsed {
                let mut cursor = k.walk();
                let kids: Vec<Node> = k.named_children(&mut cursor).collect();
                stack.extend(kids.into_iter().rev().map(|c| (c, depth + 1)));
            }
        }
    }

    /// K&R definitions declare parameter types between the head and the body.
    fn knr_params(&mut self, node: Node, declarator: Node, sig: &mut FnSig) {
        let src = self.src;
        let mut cursor = node.walk();
        let decls: Vec<Node> = node
            .children(&mut cursor)
            .filter(|c| c.kind() == "declaration")
            .collect();
        if decls.is_empty() {
            return;
        }
        let Some(fd) = find_function_declarator(declarator) else {
            return;
        };
        let Some(params) = fd.child_by_field_name("parameters") else {
            return;
        };
        let mut c2 = params.walk();
        let names: Vec<&str> = params
            .named_children(&mut c2)
            .filter(|p| p.kind() == "identifier")
            .map(|p| text(p, src))
            .collect();
        for d in decls {
            let Some(spec) = d.child_by_field_name("type") else {
                continue;
            };
            let base = base_type(spec, src, &mut self.structs);
            let mut c3 = d.walk();
            for dd in d.children_by_field_name("declarator", &mut c3) {
                let (n, t) = declarator_type(base.clone(), dd, src, &mut self.structs);
                if let Some((n, _)) = n
                    && let Some(i) = names.iter().position(|x| *x == n)
                    && i < sig.params.len()
                {
                    sig.params[i] = adjust_param_type(t);
                }
            }
        }
    }

    fn declaration(&mut self, node: Node) {
        let src = self.src;
        self.enumerators(node, 0);
        if has_missing(node) {
            // A macro-decorated head that tree-sitter split; it is not a real declaration.
            return;
        }
        let Some(spec) = node.child_by_field_name("type") else {
            return;
        };
        let base = base_type(spec, src, &mut self.structs);
        let mut is_static = false;
        let mut is_extern = false;
        let mut cursor = node.walk();
        for ch in node.children(&mut cursor) {
            if ch.kind() == "storage_class_specifier" {
                match text(ch, src) {
                    "static" => is_static = true,
                    "extern" => is_extern = true,
                    _ => {}
                }
            }
        }
        let mut cursor = node.walk();
        for d in node.children_by_field_name("declarator", &mut cursor) {
            let (name, ty) = declarator_type(base.clone(), d, src, &mut self.structs);
            let Some((name, _)) = name else { continue };
            match ty {
                Type::Function(sig) => {
                    if !self.defined.contains(&name) {
                        self.items.env.functions.insert(name, *sig);
                    }
                }
                ty => {
                    self.items.env.globals.insert(name.clone(), ty.clone());
                    let init = (d.kind() == "init_declarator").then(|| TextRange::of_node(&d));
                    self.items.globals.push(GlobalItem {
                        name,
                        ty,
                        is_static,
                        is_extern,
                        init,
                    });
                }
            }
        }
    }

    fn typedef(&mut self, node: Node) {
        let src = self.src;
        self.enumerators(node, 0);
        let Some(spec) = node.child_by_field_name("type") else {
            return;
        };
        let mut base = base_type(spec, src, &mut self.structs);
        let mut cursor = node.walk();
        let declarators: Vec<Node> = node
            .children_by_field_name("declarator", &mut cursor)
            .collect();
        // `typedef struct { … } Foo;`: name the anonymous struct after its typedef so that
        // its regions read well.
        if let Some(tag) = base.struct_tag()
            && tag.starts_with("<anon")
            && let Some(first) = declarators.first()
            && first.kind() == "type_identifier"
        {
            let new_tag = text(*first, src).to_string();
            if let Some(s) = self.structs.iter_mut().rev().find(|s| s.tag == tag) {
                s.tag = new_tag.clone();
            }
            base = match base {
                Type::Union(_) => Type::Union(new_tag),
                _ => Type::Struct(new_tag),
            };
        }
        for d in declarators {
            let (name, ty) = declarator_type(base.clone(), d, src, &mut self.structs);
            if let Some((name, _)) = name
                && Type::Named(name.clone()) != ty
            {
                self.items.env.typedefs.insert(name, ty);
            }
        }
    }

    /// `#define NAME <integer>` gives a known constant.
    fn define(&mut self, node: Node) {
        let src = self.src;
        let (Some(name), Some(value)) = (
            node.child_by_field_name("name"),
            node.child_by_field_name("value"),
        ) else {
            return;
        };
        let v = text(value, src).trim();
        let v = v.trim_start_matches('(').trim_end_matches(')');
        if let Some(n) = parse_int_literal(v) {
            self.items
                .env
                .constants
                .insert(text(name, src).to_string(), Some(n));
        }
    }

    fn enumerators(&mut self, node: Node, depth: u32) {
        if depth > 8 {
            return;
        }
        let src = self.src;
        let mut cursor = node.walk();
        // An enumerator without a value is one more than the previous one (the first is 0).
        let mut next = Some(0i64);
        for ch in node.named_children(&mut cursor) {
            match ch.kind() {
                "enumerator" => {
                    if let Some(n) = ch.child_by_field_name("name") {
                        let v = match ch.child_by_field_name("value") {
                            Some(v) => self.constant_value(v),
                            None => next,
                        };
                        next = v.and_then(|v| v.checked_add(1));
                        self.items.env.constants.insert(text(n, src).to_string(), v);
                    }
                }
                "enum_specifier" | "enumerator_list" | "init_declarator" | "type_descriptor" => {
                    self.enumerators(ch, depth + 1)
                }
                _ => {}
            }
        }
    }
}

impl Collector<'_> {
    /// The value of a simple constant expression: a literal, a known constant, or one in
    /// parentheses or negated.
    fn constant_value(&self, v: Node) -> Option<i64> {
        let src = self.src;
        match v.kind() {
            "number_literal" => parse_int_literal(text(v, src)),
            "char_literal" => char_literal_value(text(v, src)),
            "identifier" => self
                .items
                .env
                .constants
                .get(text(v, src))
                .copied()
                .flatten(),
            "parenthesized_expression" => v.named_child(0).and_then(|i| self.constant_value(i)),
            "unary_expression" => {
                let arg = v.child_by_field_name("argument")?;
                match operator(v, src) {
                    "-" => self.constant_value(arg)?.checked_neg(),
                    "+" => self.constant_value(arg),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// Nodes a function definition can hide in, inside a body.
fn is_statement_container(kind: &str) -> bool {
    kind.ends_with("_statement")
        || kind.starts_with("preproc_")
        || matches!(kind, "else_clause" | "ERROR")
}

/// A word tree-sitter may take for a declarator's name when a macro stands before it.
fn is_type_keyword(word: &str) -> bool {
    C_TYPE_WORDS.contains(&word) || matches!(word, "const" | "volatile")
}

/// `LUA_API`, `ZEXPORT`, `SQLITE_STDCALL`: all-caps words are macros by convention.
fn looks_like_macro(word: &str) -> bool {
    word.len() > 1
        && word.chars().any(|c| c.is_ascii_uppercase())
        && word
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

fn words_of<'a>(node: Node, src: &'a [u8]) -> Vec<&'a str> {
    text(node, src)
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect()
}

const C_TYPE_WORDS: &[&str] = &[
    "void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "_Bool",
    "bool",
];
const C_QUALIFIER_WORDS: &[&str] = &[
    "static",
    "extern",
    "inline",
    "const",
    "volatile",
    "register",
    "restrict",
    "__inline",
    "__inline__",
    "struct",
    "union",
    "enum",
];

/// Choose the real return type among the words of a macro-decorated head: a C type keyword if
/// there is one, else the last word that does not look like a macro.
fn pick_return_type(words: &[&str]) -> Type {
    if let Some(w) = words.iter().rev().find(|w| C_TYPE_WORDS.contains(w)) {
        return match *w {
            "void" => Type::Void,
            "float" | "double" => Type::Float,
            _ => Type::Int,
        };
    }
    let candidates: Vec<&&str> = words
        .iter()
        .filter(|w| !C_QUALIFIER_WORDS.contains(w) && !w.starts_with("__"))
        .collect();
    // `struct foo` in a decorated head: the word after `struct`.
    if let Some(i) = words.iter().rposition(|w| *w == "struct" || *w == "union")
        && let Some(tag) = words.get(i + 1)
    {
        return if words[i] == "union" {
            Type::Union(tag.to_string())
        } else {
            Type::Struct(tag.to_string())
        };
    }
    match candidates.iter().rev().find(|w| !looks_like_macro(w)) {
        Some(w) => Type::Named(w.to_string()),
        None => Type::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(src: &str) -> FileItems {
        let tree = crate::syntax::parse(src, None);
        collect_items(&tree, src)
    }

    #[test]
    fn macro_decorated_heads_recover_functions_and_return_types() {
        let f = items(
            "LUA_API int lua_f (lua_State *L, int x) { return x; }\n\
             static int ZEXPORT deflate(z_streamp strm, int flush) { return 0; }\n\
             SQLITE_API int SQLITE_STDCALL sqlite3_foo(int *p) { return 0; }\n\
             LUA_API lua_State *lua_newstate (lua_Alloc f, void *ud) { return 0; }\n\
             char FAR * FAR p2(int a) { return 0; }\n\
             int __attribute__((noinline)) g(void) { return 1; }\n",
        );
        let names: Vec<_> = f.functions.iter().map(|f| f.source.name.as_str()).collect();
        assert_eq!(
            names,
            ["lua_f", "deflate", "sqlite3_foo", "lua_newstate", "p2", "g"]
        );
        let ret = |n: &str| f.env.functions[n].ret.clone();
        assert_eq!(ret("lua_f"), Type::Int);
        assert_eq!(ret("deflate"), Type::Int);
        assert_eq!(ret("sqlite3_foo"), Type::Int);
        assert_eq!(
            ret("lua_newstate"),
            Type::pointer_to(Type::Named("lua_State".into()))
        );
        assert_eq!(ret("p2"), Type::pointer_to(Type::Int));
        assert!(f.functions[1].source.is_static);
        assert!(f.functions[2].source.text.starts_with("SQLITE_STDCALL"));
        assert!(f.env.globals.is_empty(), "{:?}", f.env.globals);
    }

    #[test]
    fn typedefs_structs_globals_and_constants() {
        let f = items(
            "typedef struct list { int data; struct list *next; } List;\n\
             typedef struct { char *name; union { int a; void *b; }; } Anon;\n\
             enum color { RED, GREEN = 5, BLUE, BLACK = -(2), WHITE = 'w' };\n\
             #define BUFSZ 4096\n\
             static List *head = 0;\n\
             extern char *names[];\n\
             List *prepend(List *l, int v);\n",
        );
        assert_eq!(f.env.typedefs["List"], Type::Struct("list".into()));
        assert_eq!(f.env.typedefs["Anon"], Type::Struct("Anon".into()));
        let anon = &f.env.structs["Anon"];
        let fields: Vec<_> = anon.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(fields, ["name", "a", "b"]);
        assert_eq!(f.env.constants["GREEN"], Some(5));
        // Enumerators without a value count on from the previous one, starting at 0.
        assert_eq!(f.env.constants["RED"], Some(0));
        assert_eq!(f.env.constants["BLUE"], Some(6));
        assert_eq!(f.env.constants["BLACK"], Some(-2));
        assert_eq!(f.env.constants["WHITE"], Some(119));
        assert_eq!(f.env.constants["BUFSZ"], Some(4096));
        assert_eq!(
            f.env.globals["head"],
            Type::pointer_to(Type::Named("List".into()))
        );
        assert!(
            f.globals
                .iter()
                .any(|g| g.name == "head" && g.is_static && g.init.is_some())
        );
        assert_eq!(
            f.env.functions["prepend"].params,
            vec![Type::pointer_to(Type::Named("List".into())), Type::Int]
        );
    }

    #[test]
    fn functions_inside_error_and_if_regions_are_found() {
        let f = items(
            "#ifdef WIN\nint w(void) {\n#else\nint w(int a) {\n#endif\n  return 0;\n}\n\
             int ok(void) { return 1; }\n#if 0\nint dead(void) { return 0; }\n#endif\n",
        );
        let names: Vec<_> = f.functions.iter().map(|f| f.source.name.as_str()).collect();
        assert!(names.contains(&"w") && names.contains(&"ok"), "{names:?}");
        assert!(!names.contains(&"dead"));
    }

    #[test]
    fn knr_parameters_get_their_declared_types() {
        let f = items("int knr(a, b) int a; char *b; { return a; }\n");
        assert_eq!(
            f.env.functions["knr"].params,
            vec![Type::Int, Type::pointer_to(Type::Int)]
        );
    }
}

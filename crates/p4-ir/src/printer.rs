//! The IR's text form. Stable: snapshot tests depend on it, and [`crate::text::parse_program`]
//! reads it back (print → parse → print gives the same text; spans are not part of it).
//!
//! Layout: type declarations, errors and match kinds, extern instances and value sets, then each
//! parser and control, then `package`. One statement per line; expressions in P4-like syntax
//! where every implicit conversion is an explicit cast and every constant carries its type (`8w5`,
//! `4s-1`). Every nested operator is parenthesised, so there is no precedence to know.
//!
//! What makes it complete:
//! - Each block lists its whole frame in slot order (`vars { param in H hdr; local bit<8> x;
//!   arg bit<9> fwd.port; temp ...; return ... }`): a [`VarId`] is the position there, and
//!   variables print as their frame name (names are unique in a frame; the verifier checks it).
//! - Actions, functions and tables are declared with their id (`action #3 NoAction()`), inside the
//!   block they run in; a parameter whose frame slot has another name prints as `bit<9> port: fwd.port`.
//!   A block's extern instances and value sets are listed (`externs { ... }`), its action list
//!   only when it differs from the actions declared in it.
//! - References to program-level objects print as their name; where that would not read back (a
//!   name that is not an identifier path, repeats among objects of its kind, or starts with a
//!   variable's name) as `` `name`#id ``. Declared names that are not identifier paths are quoted.
//! - An expression whose type is not the one [`infer_type`] gives its kind (e.g. a call of an
//!   extern method returning a value, an aggregate constant, `_`) prints as `(e : T)`; a method call
//!   whose extern type its target does not imply prints as `t.[ext]m(...)`.
//! - Table properties other than key/actions/default/size/entries/counters/meters/implementation
//!   print as `property name = value;`; package arguments say what they are (`parser P`,
//!   `control C`, `instance x`, `package T n(...)`, or a value).
use crate::*;

/// Print a whole program.
pub fn print_program(program: &Program) -> String {
    let mut p = Printer { prog: program, out: String::new(), vars: &[], indent: 0 };
    p.program();
    p.out
}

/// Print one type (e.g. `bit<8>`, `headers_t`).
pub fn type_to_string(program: &Program, ty: &Type) -> String {
    let p = Printer { prog: program, out: String::new(), vars: &[], indent: 0 };
    p.ty(ty)
}

/// Print one expression in the frame `vars`.
pub fn expr_to_string(program: &Program, vars: &[Var], e: &Expr) -> String {
    let p = Printer { prog: program, out: String::new(), vars, indent: 0 };
    p.expr(e)
}

struct Printer<'p> {
    prog: &'p Program,
    out: String,
    vars: &'p [Var],
    indent: usize,
}

fn dir(d: Direction) -> &'static str {
    match d {
        Direction::None => "",
        Direction::In => "in ",
        Direction::Out => "out ",
        Direction::InOut => "inout ",
    }
}

impl<'p> Printer<'p> {
    fn line(&mut self, s: impl AsRef<str>) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
        self.out.push_str(s.as_ref());
        self.out.push('\n');
    }

    fn ty(&self, t: &Type) -> String {
        match t {
            Type::Bool => "bool".into(),
            Type::Bits { width, signed: false } => format!("bit<{width}>"),
            Type::Bits { width, signed: true } => format!("int<{width}>"),
            Type::Varbit(w) => format!("varbit<{w}>"),
            Type::InfInt => "int".into(),
            Type::String => "string".into(),
            Type::Error => "error".into(),
            Type::MatchKind => "match_kind".into(),
            Type::Void => "void".into(),
            Type::Named(id) => match self.prog.types.get(id.index()) {
                Some(TypeDef::Extern { name, type_args }) if !type_args.is_empty() => {
                    let a: Vec<String> = type_args.iter().map(|t| self.ty(t)).collect();
                    format!("{name}<{}>", a.join(", "))
                }
                Some(TypeDef::Extern { name, .. }) => name.clone(),
                _ => self.type_name(*id),
            },
            Type::Stack(e, n) => format!("{}[{n}]", self.ty(e)),
            Type::Tuple(ts) => {
                let a: Vec<String> = ts.iter().map(|t| self.ty(t)).collect();
                format!("tuple<{}>", a.join(", "))
            }
        }
    }

    fn value(&self, v: &Value) -> String {
        match v {
            Value::Bool(b) => b.to_string(),
            Value::Bits { width, signed: false, value } => format!("{width}w{value}"),
            Value::Bits { width, signed: true, value } => format!("{width}s{value}"),
            Value::InfInt(x) => x.to_string(),
            Value::String(s) => format!("{s:?}"),
            Value::Error(i) => {
                format!("error.{}", self.prog.errors.get(*i as usize).map(String::as_str).unwrap_or("?"))
            }
            Value::Enum(t, i) => match self.prog.types.get(t.index()) {
                Some(TypeDef::Enum { members, .. }) => {
                    format!("{}.{}", self.type_name(*t), members.get(*i as usize).map(|m| m.0.as_str()).unwrap_or("?"))
                }
                _ => format!("<enum#{}>.{i}", t.0),
            },
            Value::MatchKind(i) => format!(
                "match_kind.{}",
                self.prog.match_kinds.get(*i as usize).cloned().unwrap_or_else(|| format!("<{i}>"))
            ),
            Value::Aggregate { valid, fields } => {
                let f: Vec<String> = fields.iter().map(|x| self.value(x)).collect();
                let inv = if *valid { "" } else { "#invalid " };
                format!("{{{inv}{}}}", f.join(", "))
            }
        }
    }

    fn var(&self, id: VarId) -> String {
        self.vars.get(id.index()).map(|v| decl_name(&v.name)).unwrap_or_else(|| format!("$v{}", id.0))
    }

    fn field_name(&self, base: &Expr, i: u32) -> String {
        match &base.ty {
            Type::Named(t) => self
                .prog
                .types
                .get(t.index())
                .and_then(|d| d.fields().get(i as usize))
                .map(|f| f.name.clone())
                .unwrap_or_else(|| format!("${i}")),
            _ => format!("${i}"),
        }
    }

    /// An expression, with `(e : T)` wherever its type is not the one [`infer_type`] gives, so the
    /// text form determines every type.
    fn expr(&self, e: &Expr) -> String {
        let s = self.expr_bare(e);
        match &e.kind {
            ExprKind::Cast(_) | ExprKind::Aggregate(_) | ExprKind::InvalidHeader => s,
            k if infer_type(self.prog, self.vars, k).as_ref() == Some(&e.ty) => s,
            _ => format!("({s} : {})", self.ty(&e.ty)),
        }
    }

    fn expr_bare(&self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Const(v) => self.value(v),
            ExprKind::Var(id) => self.var(*id),
            ExprKind::Field(b, i) => match b.ty {
                Type::Tuple(_) => format!("{}[{i}]", self.atom(b)),
                _ => format!("{}.{}", self.atom(b), self.field_name(b, *i)),
            },
            ExprKind::Index(b, i) => format!("{}[{}]", self.atom(b), self.expr(i)),
            ExprKind::StackNext(b) => format!("{}.next", self.atom(b)),
            ExprKind::StackLast(b) => format!("{}.last", self.atom(b)),
            ExprKind::StackLastIndex(b) => format!("{}.lastIndex", self.atom(b)),
            ExprKind::Slice(b, h, l) => format!("{}[{h}:{l}]", self.atom(b)),
            ExprKind::Unary(op, x) => {
                let s = match op {
                    UnOp::Not => "!",
                    UnOp::BitNot => "~",
                    UnOp::Neg => "-",
                    UnOp::Plus => "+",
                };
                let a = self.atom(x);
                // `-(5)`: a bare `-5` reads back as the literal -5.
                if a.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
                    format!("{s}({a})")
                } else {
                    format!("{s}{a}")
                }
            }
            ExprKind::Binary(op, l, r) => format!("{} {} {}", self.atom(l), op.symbol(), self.atom(r)),
            ExprKind::Mux(c, a, b) => format!("{} ? {} : {}", self.atom(c), self.atom(a), self.atom(b)),
            ExprKind::Cast(x) => format!("({}){}", self.ty(&e.ty), self.atom(x)),
            ExprKind::Call(c) => self.call(c),
            ExprKind::ApplyTable(t, r) => {
                let r = match r {
                    ApplyResult::Hit => "hit",
                    ApplyResult::Miss => "miss",
                    ApplyResult::ActionRun => "action_run",
                };
                format!("{}.apply().{r}", self.table_name(*t))
            }
            ExprKind::Aggregate(xs) => {
                let a: Vec<String> = xs.iter().map(|x| self.expr(x)).collect();
                format!("({}){{{}}}", self.ty(&e.ty), a.join(", "))
            }
            ExprKind::InvalidHeader => format!("({}){{#}}", self.ty(&e.ty)),
            ExprKind::Extern(id) => self.extern_name(*id),
            ExprKind::DontCare => "_".into(),
        }
    }

    /// An operand: parenthesised unless it is atomic.
    fn atom(&self, e: &Expr) -> String {
        let s = self.expr(e);
        match e.kind {
            ExprKind::Binary(..) | ExprKind::Mux(..) | ExprKind::Cast(..) | ExprKind::Unary(..) => format!("({s})"),
            _ => s,
        }
    }

    /// A reference to a program-level object: its name when that reads back unambiguously (a dotted
    /// identifier path, unique among `all` names of its kind, not starting with a variable of the
    /// current frame), else `` `name`#index ``.
    fn global(&self, name: &str, index: usize, all: impl Iterator<Item = &'p str>) -> String {
        let mut same = 0;
        for n in all {
            same += (n == name) as usize;
        }
        let first = name.split('.').next().unwrap_or("");
        if same == 1 && is_path(name) && !self.vars.iter().any(|v| v.name == first) && !KEYWORDS.contains(&first) {
            name.to_string()
        } else {
            format!("`{name}`#{index}")
        }
    }
    fn table_name(&self, t: TableId) -> String {
        match self.prog.tables.get(t.index()) {
            Some(x) => self.global(&x.name, t.index(), self.prog.tables.iter().map(|x| x.name.as_str())),
            None => format!("<table#{}>", t.0),
        }
    }
    fn extern_name(&self, id: ExternId) -> String {
        match self.prog.externs.get(id.index()) {
            Some(x) => self.global(&x.name, id.index(), self.prog.externs.iter().map(|x| x.name.as_str())),
            None => format!("<extern#{}>", id.0),
        }
    }
    fn action_name(&self, id: ActionId) -> String {
        match self.prog.actions.get(id.index()) {
            Some(x) => self.global(&x.name, id.index(), self.prog.actions.iter().map(|x| x.name.as_str())),
            None => format!("<action#{}>", id.0),
        }
    }
    fn function_name(&self, id: FunctionId) -> String {
        match self.prog.functions.get(id.index()) {
            Some(x) => self.global(&x.name, id.index(), self.prog.functions.iter().map(|x| x.name.as_str())),
            None => format!("<function#{}>", id.0),
        }
    }
    fn value_set_name(&self, id: ValueSetId) -> String {
        match self.prog.value_sets.get(id.index()) {
            Some(x) => self.global(&x.name, id.index(), self.prog.value_sets.iter().map(|x| x.name.as_str())),
            None => format!("<value_set#{}>", id.0),
        }
    }
    fn block_name(&self, b: &BlockRef) -> String {
        let prog = self.prog;
        let names = || {
            prog.parsers
                .iter()
                .map(|p| p.block.name.as_str())
                .chain(prog.controls.iter().map(|c| c.block.name.as_str()))
        };
        match b {
            BlockRef::Parser(p) => prog.parsers.get(p.index()).map(|x| self.global(&x.block.name, p.index(), names())),
            BlockRef::Control(c) => {
                prog.controls.get(c.index()).map(|x| self.global(&x.block.name, c.index(), names()))
            }
        }
        .unwrap_or_else(|| "<block>".into())
    }
    fn type_name(&self, id: TypeId) -> String {
        match self.prog.types.get(id.index()) {
            Some(d) => self.global(
                d.name(),
                id.index(),
                self.prog.types.iter().filter(|t| !matches!(t, TypeDef::Extern { .. })).map(|t| t.name()),
            ),
            None => format!("<type#{}>", id.0),
        }
    }

    fn type_args(&self, ts: &[Type]) -> String {
        if ts.is_empty() {
            return String::new();
        }
        let a: Vec<String> = ts.iter().map(|t| self.ty(t)).collect();
        format!("<{}>", a.join(", "))
    }

    fn call(&self, c: &Call) -> String {
        let args: Vec<String> = c.args.iter().map(|a| format!("{}{}", dir(a.direction), self.expr(&a.expr))).collect();
        let args = args.join(", ");
        match &c.callee {
            Callee::Action(a) => format!("{}({args})", self.action_name(*a)),
            Callee::Function(f) => format!("{}({args})", self.function_name(*f)),
            Callee::ExternFunction { name, type_args } => format!("{name}{}({args})", self.type_args(type_args)),
            Callee::Method { target, method, type_args, extern_type } => {
                // The extern type is implied by the target's type; spelled out (`.[T]m`) when not.
                let ext = if method_extern_type(self.prog, target).as_deref() == Some(extern_type.as_str()) {
                    String::new()
                } else {
                    format!("[{extern_type}]")
                };
                format!("{}.{ext}{method}{}({args})", self.atom(target), self.type_args(type_args))
            }
            Callee::Builtin { target, builtin } => {
                let m = match builtin {
                    Builtin::IsValid => "isValid()".to_string(),
                    Builtin::SetValid => "setValid()".to_string(),
                    Builtin::SetInvalid => "setInvalid()".to_string(),
                    Builtin::PushFront(n) => format!("push_front({n})"),
                    Builtin::PopFront(n) => format!("pop_front({n})"),
                };
                format!("{}.{m}", self.atom(target))
            }
        }
    }

    fn stmts(&mut self, ss: &[Stmt]) {
        for s in ss {
            self.stmt(s);
        }
    }

    fn braced(&mut self, head: String, body: &[Stmt]) {
        // A bare block (no head) opens with `{` alone.
        self.line(if head.is_empty() { "{".to_string() } else { format!("{head} {{") });
        self.indent += 1;
        self.stmts(body);
        self.indent -= 1;
        self.line("}");
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::VarInit { var, init, .. } => {
                let v = self.var(*var);
                match init {
                    Some(e) => {
                        let e = self.expr(e);
                        self.line(format!("init {v} = {e};"))
                    }
                    None => self.line(format!("init {v};")),
                }
            }
            Stmt::Assign { lhs, rhs, .. } => {
                let (l, r) = (self.expr(lhs), self.expr(rhs));
                self.line(format!("{l} = {r};"));
            }
            Stmt::Call(c) => {
                let c = self.call(c);
                self.line(format!("{c};"));
            }
            Stmt::ApplyTable { table, .. } => {
                let t = self.table_name(*table);
                self.line(format!("{t}.apply();"));
            }
            Stmt::ApplyBlock { block, args, .. } => {
                let a: Vec<String> =
                    args.iter().map(|a| format!("{}{}", dir(a.direction), self.expr(&a.expr))).collect();
                let b = self.block_name(block);
                self.line(format!("{b}.apply({});", a.join(", ")));
            }
            Stmt::If { cond, then, otherwise, .. } => {
                let c = self.expr(cond);
                self.braced(format!("if ({c})"), then);
                if !otherwise.is_empty() {
                    self.braced("else".into(), otherwise);
                }
            }
            Stmt::SwitchAction { table, cases, .. } => {
                let t = self.table_name(*table);
                self.line(format!("switch ({t}.apply().action_run) {{"));
                self.indent += 1;
                for (a, body) in cases {
                    let l = a.map(|a| self.action_name(a)).unwrap_or_else(|| "default".into());
                    self.braced(format!("{l}:"), body);
                }
                self.indent -= 1;
                self.line("}");
            }
            Stmt::SwitchValue { expr, cases, .. } => {
                let e = self.expr(expr);
                self.line(format!("switch ({e}) {{"));
                self.indent += 1;
                for (v, body) in cases {
                    let l = v.as_ref().map(|v| self.value(v)).unwrap_or_else(|| "default".into());
                    self.braced(format!("{l}:"), body);
                }
                self.indent -= 1;
                self.line("}");
            }
            Stmt::Block(b) => self.braced(String::new(), b),
            Stmt::Exit(_) => self.line("exit;"),
            Stmt::Return(v, _) => match v {
                Some(e) => {
                    let e = self.expr(e);
                    self.line(format!("return {e};"))
                }
                None => self.line("return;"),
            },
            Stmt::For { init, cond, update, body, .. } => {
                self.line("for {");
                self.indent += 1;
                self.braced("init".into(), init);
                let c = cond.as_ref().map(|c| self.expr(c)).unwrap_or_else(|| "true".into());
                self.line(format!("while ({c})"));
                self.braced("update".into(), update);
                self.braced("body".into(), body);
                self.indent -= 1;
                self.line("}");
            }
            Stmt::Break(_) => self.line("break;"),
            Stmt::Continue(_) => self.line("continue;"),
            Stmt::Empty => self.line(";"),
        }
    }

    fn annotations(&self, anns: &[Annotation]) -> String {
        anns.iter()
            .map(|a| {
                if a.args.is_empty() {
                    format!("@{} ", a.name)
                } else {
                    let v: Vec<String> = a.args.iter().map(|v| self.value(v)).collect();
                    format!("@{}({}) ", a.name, v.join(", "))
                }
            })
            .collect()
    }

    fn program(&mut self) {
        let prog = self.prog;
        for t in &prog.types {
            match t {
                TypeDef::Struct { name, fields }
                | TypeDef::Header { name, fields, .. }
                | TypeDef::Union { name, fields } => {
                    let kw = match t {
                        TypeDef::Struct { .. } => "struct",
                        TypeDef::Header { .. } => "header",
                        _ => "header_union",
                    };
                    let f: Vec<String> = fields
                        .iter()
                        .map(|f| format!("{}{} {};", self.annotations(&f.annotations), self.ty(&f.ty), f.name))
                        .collect();
                    let own = match t {
                        TypeDef::Header { annotations, .. } => self.annotations(annotations),
                        _ => String::new(),
                    };
                    self.line(format!("{own}{kw} {} {{ {} }}", decl_name(name), f.join(" ")));
                }
                TypeDef::Enum { name, underlying, members } => {
                    let u = underlying.as_ref().map(|u| format!("{} ", self.ty(u))).unwrap_or_default();
                    let m: Vec<String> = members
                        .iter()
                        .map(|(n, v)| v.as_ref().map(|v| format!("{n} = {v}")).unwrap_or_else(|| n.clone()))
                        .collect();
                    self.line(format!("enum {u}{} {{ {} }}", decl_name(name), m.join(", ")));
                }
                TypeDef::Extern { name, type_args } => {
                    let a = self.type_args(type_args);
                    self.line(format!("extern {}{a};", decl_name(name)));
                }
            }
        }
        self.line(format!("errors {{ {} }}", prog.errors.join(", ")));
        self.line(format!("match_kinds {{ {} }}", prog.match_kinds.join(", ")));
        for x in &prog.externs {
            let args: Vec<String> =
                x.ctor_args.iter().map(|a| a.as_ref().map(|v| self.value(v)).unwrap_or_else(|| "_".into())).collect();
            let ann = self.annotations(&x.annotations);
            self.line(format!(
                "instance {ann}{}{}({}) {};",
                x.type_name,
                self.type_args(&x.type_args),
                args.join(", "),
                decl_name(&x.name)
            ));
        }
        for v in &prog.value_sets {
            self.line(format!("value_set<{}>({}) {};", self.ty(&v.elem), v.size, decl_name(&v.name)));
        }
        for (i, p) in prog.parsers.iter().enumerate() {
            self.out.push('\n');
            self.vars = &p.block.vars;
            self.block_head("parser", &p.block);
            self.indent += 1;
            self.id_list("externs", p.externs.iter().map(|x| self.extern_name(*x)).collect());
            self.id_list("value_sets", p.value_sets.iter().map(|x| self.value_set_name(*x)).collect());
            self.callables(&BlockRef::Parser(ParserId(i as u32)));
            if !p.init.is_empty() {
                self.braced("init".into(), &p.init);
            }
            for s in &p.states {
                self.line(format!("state {} {{", decl_name(&s.name)));
                self.indent += 1;
                self.stmts(&s.body);
                self.transition(&s.transition, &p.states);
                self.indent -= 1;
                self.line("}");
            }
            self.indent -= 1;
            self.line("}");
        }
        for (i, c) in prog.controls.iter().enumerate() {
            self.out.push('\n');
            self.vars = &c.block.vars;
            self.block_head("control", &c.block);
            self.indent += 1;
            self.id_list("externs", c.externs.iter().map(|x| self.extern_name(*x)).collect());
            // The control's action list is implied by the actions running in it, unless it differs.
            let me = BlockRef::Control(ControlId(i as u32));
            let implied: Vec<ActionId> =
                (0..prog.actions.len() as u32).map(ActionId).filter(|a| prog.actions[a.index()].block == me).collect();
            if c.actions != implied {
                let names: Vec<String> = c.actions.iter().map(|a| self.action_name(*a)).collect();
                self.line(format!("actions {{ {} }}", names.join(", ")));
            }
            self.callables(&me);
            for t in &c.tables {
                if let Some(tb) = prog.tables.get(t.index()) {
                    self.table(tb, *t);
                }
            }
            if !c.init.is_empty() {
                self.braced("init".into(), &c.init);
            }
            self.braced("apply".into(), &c.body);
            self.indent -= 1;
            self.line("}");
        }
        self.out.push('\n');
        let m = self.package(&prog.main);
        self.line(format!("package {m};"));
    }

    fn package(&self, p: &Package) -> String {
        let args: Vec<String> = p
            .args
            .iter()
            .map(|(n, a)| {
                let v = match a {
                    PackageArg::Parser(x) => format!("parser {}", self.block_name(&BlockRef::Parser(*x))),
                    PackageArg::Control(x) => format!("control {}", self.block_name(&BlockRef::Control(*x))),
                    PackageArg::Package(p) => format!("package {}", self.package(p)),
                    PackageArg::Extern(x) => format!("instance {}", self.extern_name(*x)),
                    PackageArg::Value(v) => self.value(v),
                };
                format!("{} = {v}", decl_name(n))
            })
            .collect();
        format!("{} {}({})", decl_name(&p.type_name), decl_name(&p.name), args.join(", "))
    }

    fn block_head(&mut self, kw: &str, b: &Block) {
        let params: Vec<String> = b
            .params
            .iter()
            .filter_map(|v| b.vars.get(v.index()))
            .map(|v| {
                let d = match v.kind {
                    VarKind::Param(d) => dir(d),
                    _ => "",
                };
                format!("{d}{} {}", self.ty(&v.ty), decl_name(&v.name))
            })
            .collect();
        let ann = self.annotations(&b.annotations);
        self.line(format!("{ann}{kw} {} : {}({}) {{", decl_name(&b.name), decl_name(&b.type_name), params.join(", ")));
        self.indent += 1;
        // The whole frame in slot order (a `VarId` is the position here).
        let vars: Vec<String> = b
            .vars
            .iter()
            .map(|v| {
                let k = match &v.kind {
                    VarKind::Param(d) => format!("param {}", dir(*d)),
                    VarKind::Local => "local ".into(),
                    VarKind::CallParam(d) => format!("arg {}", dir(*d)),
                    VarKind::Temp => "temp ".into(),
                    VarKind::Return => "return ".into(),
                };
                format!("{k}{} {}", self.ty(&v.ty), decl_name(&v.name))
            })
            .collect();
        if !vars.is_empty() {
            self.line(format!("vars {{ {} }}", vars.join("; ")));
        }
        self.indent -= 1;
    }

    fn callables(&mut self, b: &BlockRef) {
        let prog = self.prog;
        // `#N` is the id; `name: slot` when a parameter's frame slot has another name.
        let params = |me: &Self, ps: &[Param]| -> String {
            let v: Vec<String> = ps
                .iter()
                .map(|p| {
                    let slot = me.var(p.var);
                    let slot = if slot == p.name { String::new() } else { format!(": {slot}") };
                    format!("{}{}{} {}{slot}", me.annotations(&p.annotations), dir(p.direction), me.ty(&p.ty), decl_name(&p.name))
                })
                .collect();
            v.join(", ")
        };
        for (i, a) in prog.actions.iter().enumerate().filter(|(_, a)| a.block == *b) {
            let ann = self.annotations(&a.annotations);
            let head = format!("{ann}action #{i} {}({})", decl_name(&a.name), params(self, &a.params));
            self.braced(head, &a.body);
        }
        for (i, f) in prog.functions.iter().enumerate().filter(|(_, f)| f.block == *b) {
            let ret = f.ret_var.map(|r| format!(" returns {}", self.var(r))).unwrap_or_default();
            let head =
                format!("function #{i} {} {}({}){ret}", self.ty(&f.ret), decl_name(&f.name), params(self, &f.params));
            self.braced(head, &f.body);
        }
    }

    fn transition(&mut self, t: &Transition, states: &[ParserState]) {
        let target = |t: &StateTarget| match t {
            StateTarget::Accept => "accept".to_string(),
            StateTarget::Reject => "reject".to_string(),
            StateTarget::State(s) => {
                states.get(s.index()).map(|s| decl_name(&s.name)).unwrap_or_else(|| "<state>".into())
            }
        };
        match t {
            Transition::Goto(s) => self.line(format!("transition {};", target(s))),
            Transition::Select { keys, cases } => {
                let k: Vec<String> = keys.iter().map(|k| self.expr(k)).collect();
                self.line(format!("transition select({}) {{", k.join(", ")));
                self.indent += 1;
                for c in cases {
                    let ks = self.keysets(&c.keysets);
                    self.line(format!("{ks}: {};", target(&c.target)));
                }
                self.indent -= 1;
                self.line("}");
            }
        }
    }

    fn keysets(&self, ks: &[Keyset]) -> String {
        let one = |k: &Keyset| match k {
            Keyset::Value(e) => self.expr(e),
            Keyset::Mask(a, b) => format!("{} &&& {}", self.atom(a), self.atom(b)),
            Keyset::Range(a, b) => format!("{} .. {}", self.atom(a), self.atom(b)),
            Keyset::Any => "_".into(),
            Keyset::ValueSet(v) => format!("value_set {}", self.value_set_name(*v)),
            Keyset::Lpm(e, n) => format!("{} / {n}", self.atom(e)),
        };
        let v: Vec<String> = ks.iter().map(one).collect();
        if v.len() == 1 {
            v.into_iter().next().unwrap_or_default()
        } else {
            format!("({})", v.join(", "))
        }
    }

    fn action_call(&self, a: &ActionCall) -> String {
        let args: Vec<String> = a.args.iter().map(|x| self.expr(x)).collect();
        format!("{}({})", self.action_name(a.action), args.join(", "))
    }

    fn id_list(&mut self, label: &str, names: Vec<String>) {
        if !names.is_empty() {
            self.line(format!("{label} {{ {} }}", names.join(", ")));
        }
    }

    fn table(&mut self, t: &Table, id: TableId) {
        let ann = self.annotations(&t.annotations);
        self.line(format!("{ann}table #{} {} {{", id.0, decl_name(&t.name)));
        self.indent += 1;
        for k in &t.keys {
            let mk = k.match_kind.name();
            let e = self.expr(&k.expr);
            let ann = self.annotations(&k.annotations);
            self.line(format!("{ann}key {e}: {mk} as {:?};", k.name));
        }
        for a in &t.actions {
            let b: Vec<String> = a.bound_args.iter().map(|x| self.expr(x)).collect();
            let mut flags = String::new();
            if a.table_only {
                flags.push_str("@tableonly ");
            }
            if a.default_only {
                flags.push_str("@defaultonly ");
            }
            let args = if b.is_empty() { String::new() } else { format!("({})", b.join(", ")) };
            self.line(format!("action {flags}{}{args};", self.action_name(a.action)));
        }
        if let Some(d) = &t.default_action {
            let c = if t.default_is_const { "const " } else { "" };
            let s = self.action_call(d);
            self.line(format!("{c}default_action = {s};"));
        }
        if let Some(n) = t.size {
            self.line(format!("size = {n};"));
        }
        for (label, x) in
            [("counters", t.direct_counter), ("meters", t.direct_meter), ("implementation", t.implementation)]
        {
            if let Some(x) = x {
                let n = self.extern_name(x);
                self.line(format!("{label} = {n};"));
            }
        }
        for (n, v) in &t.properties {
            let v = self.value(v);
            self.line(format!("property {} = {v};", decl_name(n)));
        }
        if !t.entries.is_empty() || t.entries_const {
            let c = if t.entries_const { "const " } else { "" };
            self.line(format!("{c}entries {{"));
            self.indent += 1;
            for e in &t.entries {
                let p = e.priority.map(|p| format!("priority={p}: ")).unwrap_or_default();
                let ks = self.keysets(&e.keys);
                let a = self.action_call(&e.action);
                self.line(format!("{p}{ks}: {a};"));
            }
            self.indent -= 1;
            self.line("}");
        }
        self.indent -= 1;
        self.line("}");
    }
}

/// Words the reader treats specially at the start of an expression or statement.
pub(crate) const KEYWORDS: &[&str] = &[
    "true",
    "false",
    "error",
    "match_kind",
    "init",
    "if",
    "else",
    "switch",
    "exit",
    "return",
    "for",
    "break",
    "continue",
    "in",
    "out",
    "inout",
    "value_set",
    "default",
    "bit",
    "int",
    "varbit",
    "bool",
    "string",
    "void",
    "tuple",
    "param",
    "local",
    "arg",
    "temp",
    "action",
    "function",
    "table",
    "parser",
    "control",
    "package",
    "instance",
    "extern",
    "struct",
    "header",
    "header_union",
    "enum",
    "state",
    "transition",
    "select",
    "accept",
    "reject",
    "key",
    "size",
    "counters",
    "meters",
    "implementation",
    "property",
    "entries",
    "const",
    "priority",
    "vars",
    "externs",
    "value_sets",
    "actions",
    "apply",
    "returns",
    "errors",
    "match_kinds",
    "while",
    "update",
    "body",
    "as",
];

/// `a.b.c` where each part is an identifier.
pub(crate) fn is_path(s: &str) -> bool {
    !s.is_empty()
        && s.split('.').all(|p| {
            let mut c = p.chars();
            c.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && c.all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// A name where it is declared: as is if it is a plain path, else quoted in backticks.
pub(crate) fn decl_name(s: &str) -> String {
    if is_path(s) && !KEYWORDS.contains(&s) {
        s.to_string()
    } else {
        format!("`{s}`")
    }
}

/// The extern type a method call's target implies: the instance's type, or the extern type of a
/// variable such as `packet_in pkt`.
pub(crate) fn method_extern_type(prog: &Program, target: &Expr) -> Option<String> {
    match (&target.kind, &target.ty) {
        (ExprKind::Extern(x), _) => prog.externs.get(x.index()).map(|x| x.type_name.clone()),
        (_, Type::Named(t)) => match prog.types.get(t.index()) {
            Some(TypeDef::Extern { name, .. }) => Some(name.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// The type an expression of this kind has unless it says otherwise: what the reader gives an
/// expression that carries no `(e : T)`. `None` where the kind does not determine it.
pub fn infer_type(prog: &Program, vars: &[Var], k: &ExprKind) -> Option<Type> {
    Some(match k {
        ExprKind::Const(v) => match v {
            Value::Bool(_) => Type::Bool,
            Value::Bits { width, signed, .. } => Type::Bits { width: *width, signed: *signed },
            Value::InfInt(_) => Type::InfInt,
            Value::String(_) => Type::String,
            Value::Error(_) => Type::Error,
            Value::Enum(t, _) => Type::Named(*t),
            Value::MatchKind(_) => Type::MatchKind,
            Value::Aggregate { .. } => return None,
        },
        ExprKind::Var(v) => vars.get(v.index())?.ty.clone(),
        ExprKind::Field(b, i) => match &b.ty {
            Type::Tuple(ts) => ts.get(*i as usize)?.clone(),
            Type::Named(t) => prog.types.get(t.index())?.fields().get(*i as usize)?.ty.clone(),
            _ => return None,
        },
        ExprKind::Index(b, _) | ExprKind::StackNext(b) | ExprKind::StackLast(b) => match &b.ty {
            Type::Stack(e, _) => (**e).clone(),
            _ => return None,
        },
        ExprKind::StackLastIndex(_) => Type::bit(32),
        ExprKind::Slice(_, h, l) => Type::bit(h.checked_sub(*l)? + 1),
        ExprKind::Unary(UnOp::Not, _) => Type::Bool,
        ExprKind::Unary(_, x) => x.ty.clone(),
        ExprKind::Binary(op, l, r) => match op {
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::And | BinOp::Or => {
                Type::Bool
            }
            BinOp::Concat => match (&l.ty, &r.ty) {
                (Type::Bits { width: a, signed }, Type::Bits { width: b, .. }) => {
                    Type::Bits { width: a + b, signed: *signed }
                }
                _ => return None,
            },
            _ => l.ty.clone(),
        },
        ExprKind::Mux(_, a, _) => a.ty.clone(),
        ExprKind::Call(c) => match &c.callee {
            Callee::Function(f) => prog.functions.get(f.index())?.ret.clone(),
            Callee::Builtin { builtin: Builtin::IsValid, .. } => Type::Bool,
            _ => Type::Void,
        },
        ExprKind::ApplyTable(_, ApplyResult::ActionRun) => Type::bit(32),
        ExprKind::ApplyTable(..) => Type::Bool,
        ExprKind::Extern(x) => {
            let x = prog.externs.get(x.index())?;
            let t = prog.types.iter().position(|t| matches!(t, TypeDef::Extern { name, type_args } if *name == x.type_name && *type_args == x.type_args))?;
            Type::Named(TypeId(t as u32))
        }
        ExprKind::Cast(_) | ExprKind::Aggregate(_) | ExprKind::InvalidHeader | ExprKind::DontCare => return None,
    })
}

//! The IR's text form. Stable: snapshot tests depend on it.
//!
//! Layout: type declarations, errors and match kinds, then each parser and control with its frame
//! (`vars`), the actions/functions/tables that run in it, and its body; finally extern instances,
//! value sets and `main`. One statement per line; expressions in P4-like syntax where every implicit
//! conversion is an explicit cast and every constant carries its type (`8w5`, `4s-1`).
//! Variables print as their frame name (sema keeps names unique within a frame); each block lists
//! its frame once (`vars { ... }`) with types, so expressions need not repeat them.

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
                Some(d) => d.name().to_string(),
                None => format!("<type#{}>", id.0),
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
            Value::Error(i) => format!("error.{}", self.prog.errors.get(*i as usize).map(String::as_str).unwrap_or("?")),
            Value::Enum(t, i) => match self.prog.types.get(t.index()) {
                Some(TypeDef::Enum { name, members, .. }) => {
                    format!("{name}.{}", members.get(*i as usize).map(|m| m.0.as_str()).unwrap_or("?"))
                }
                _ => format!("<enum#{}>.{i}", t.0),
            },
            Value::MatchKind(i) => self.prog.match_kinds.get(*i as usize).cloned().unwrap_or_else(|| format!("<match_kind#{i}>")),
            Value::Aggregate { valid, fields } => {
                let f: Vec<String> = fields.iter().map(|x| self.value(x)).collect();
                let inv = if *valid { "" } else { "#invalid " };
                format!("{{{inv}{}}}", f.join(", "))
            }
        }
    }

    fn var(&self, id: VarId) -> String {
        self.vars.get(id.index()).map(|v| v.name.clone()).unwrap_or_else(|| format!("$v{}", id.0))
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

    fn expr(&self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Const(v) => self.value(v),
            ExprKind::Var(id) => self.var(*id),
            ExprKind::Field(b, i) => match b.ty {
                Type::Tuple(_) => format!("{}[{i}]", self.expr(b)),
                _ => format!("{}.{}", self.expr(b), self.field_name(b, *i)),
            },
            ExprKind::Index(b, i) => format!("{}[{}]", self.expr(b), self.expr(i)),
            ExprKind::StackNext(b) => format!("{}.next", self.expr(b)),
            ExprKind::StackLast(b) => format!("{}.last", self.expr(b)),
            ExprKind::StackLastIndex(b) => format!("{}.lastIndex", self.expr(b)),
            ExprKind::Slice(b, h, l) => format!("{}[{h}:{l}]", self.expr(b)),
            ExprKind::Unary(op, x) => {
                let s = match op {
                    UnOp::Not => "!",
                    UnOp::BitNot => "~",
                    UnOp::Neg => "-",
                    UnOp::Plus => "+",
                };
                format!("{s}{}", self.atom(x))
            }
            ExprKind::Binary(op, l, r) => format!("{} {} {}", self.atom(l), op.symbol(), self.atom(r)),
            ExprKind::Mux(c, a, b) => format!("{} ? {} : {}", self.atom(c), self.atom(a), self.atom(b)),
            ExprKind::Cast(x) => format!("({}){}", self.ty(&e.ty), self.atom(x)),
            ExprKind::Call(c) => self.call(c),
            ExprKind::ApplyTable(t, r) => {
                let r = match r {
                    ApplyResult::Hit => "hit",
                    ApplyResult::Miss => "miss",
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

    fn table_name(&self, t: TableId) -> String {
        self.prog.tables.get(t.index()).map(|t| t.name.clone()).unwrap_or_else(|| format!("<table#{}>", t.0))
    }
    fn extern_name(&self, id: ExternId) -> String {
        self.prog.externs.get(id.index()).map(|x| x.name.clone()).unwrap_or_else(|| format!("<extern#{}>", id.0))
    }
    fn action_name(&self, id: ActionId) -> String {
        self.prog.actions.get(id.index()).map(|x| x.name.clone()).unwrap_or_else(|| format!("<action#{}>", id.0))
    }
    fn block_name(&self, b: &BlockRef) -> String {
        match b {
            BlockRef::Parser(p) => self.prog.parsers.get(p.index()).map(|x| x.block.name.clone()),
            BlockRef::Control(c) => self.prog.controls.get(c.index()).map(|x| x.block.name.clone()),
        }
        .unwrap_or_else(|| "<block>".into())
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
            Callee::Function(f) => format!("{}({args})", self.prog.functions.get(f.index()).map(|f| f.name.as_str()).unwrap_or("<function>")),
            Callee::ExternFunction { name, type_args } => format!("{name}{}({args})", self.type_args(type_args)),
            Callee::Method { target, method, type_args, .. } => format!("{}.{method}{}({args})", self.expr(target), self.type_args(type_args)),
            Callee::Builtin { target, builtin } => {
                let m = match builtin {
                    Builtin::IsValid => "isValid()".to_string(),
                    Builtin::SetValid => "setValid()".to_string(),
                    Builtin::SetInvalid => "setInvalid()".to_string(),
                    Builtin::PushFront(n) => format!("push_front({n})"),
                    Builtin::PopFront(n) => format!("pop_front({n})"),
                };
                format!("{}.{m}", self.expr(target))
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
                let a: Vec<String> = args.iter().map(|a| format!("{}{}", dir(a.direction), self.expr(&a.expr))).collect();
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
                TypeDef::Struct { name, fields } | TypeDef::Header { name, fields } | TypeDef::Union { name, fields } => {
                    let kw = match t {
                        TypeDef::Struct { .. } => "struct",
                        TypeDef::Header { .. } => "header",
                        _ => "header_union",
                    };
                    let f: Vec<String> = fields.iter().map(|f| format!("{}{} {};", self.annotations(&f.annotations), self.ty(&f.ty), f.name)).collect();
                    self.line(format!("{kw} {name} {{ {} }}", f.join(" ")));
                }
                TypeDef::Enum { name, underlying, members } => {
                    let u = underlying.as_ref().map(|u| format!("{} ", self.ty(u))).unwrap_or_default();
                    let m: Vec<String> = members.iter().map(|(n, v)| v.as_ref().map(|v| format!("{n} = {v}")).unwrap_or_else(|| n.clone())).collect();
                    self.line(format!("enum {u}{name} {{ {} }}", m.join(", ")));
                }
                TypeDef::Extern { name, type_args } => {
                    let a = self.type_args(type_args);
                    self.line(format!("extern {name}{a};"));
                }
            }
        }
        self.line(format!("errors {{ {} }}", prog.errors.join(", ")));
        self.line(format!("match_kinds {{ {} }}", prog.match_kinds.join(", ")));
        for x in &prog.externs {
            let args: Vec<String> = x.ctor_args.iter().map(|a| a.as_ref().map(|v| self.value(v)).unwrap_or_else(|| "_".into())).collect();
            let ann = self.annotations(&x.annotations);
            self.line(format!("instance {ann}{}{}({}) {};", x.type_name, self.type_args(&x.type_args), args.join(", "), x.name));
        }
        for v in &prog.value_sets {
            self.line(format!("value_set<{}>({}) {};", self.ty(&v.elem), v.size, v.name));
        }
        for (i, p) in prog.parsers.iter().enumerate() {
            self.out.push('\n');
            self.vars = &p.block.vars;
            self.block_head("parser", &p.block);
            self.indent += 1;
            self.callables(&BlockRef::Parser(ParserId(i as u32)));
            if !p.init.is_empty() {
                self.braced("init".into(), &p.init);
            }
            for s in &p.states {
                self.line(format!("state {} {{", s.name));
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
            self.callables(&BlockRef::Control(ControlId(i as u32)));
            for t in &c.tables {
                if let Some(t) = prog.tables.get(t.index()) {
                    self.table(t);
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
        self.line(format!("main = {m};"));
    }

    fn package(&self, p: &Package) -> String {
        let args: Vec<String> = p
            .args
            .iter()
            .map(|(n, a)| {
                let v = match a {
                    PackageArg::Parser(x) => self.block_name(&BlockRef::Parser(*x)),
                    PackageArg::Control(x) => self.block_name(&BlockRef::Control(*x)),
                    PackageArg::Package(p) => self.package(p),
                    PackageArg::Extern(x) => self.extern_name(*x),
                    PackageArg::Value(v) => self.value(v),
                };
                format!("{n} = {v}")
            })
            .collect();
        format!("{}({})", p.type_name, args.join(", "))
    }

    fn block_head(&mut self, kw: &str, b: &Block) {
        let params: Vec<String> = b.params.iter().filter_map(|v| b.vars.get(v.index())).map(|v| {
            let d = match v.kind {
                VarKind::Param(d) => dir(d),
                _ => "",
            };
            format!("{d}{} {}", self.ty(&v.ty), v.name)
        }).collect();
        let ann = self.annotations(&b.annotations);
        self.line(format!("{ann}{kw} {} : {}({}) {{", b.name, b.type_name, params.join(", ")));
        self.indent += 1;
        let vars: Vec<String> = b
            .vars
            .iter()
            .filter(|v| !matches!(v.kind, VarKind::Param(_)))
            .map(|v| {
                let k = match &v.kind {
                    VarKind::Param(_) => "",
                    VarKind::Local => "local ",
                    VarKind::CallParam(d) => dir(*d),
                    VarKind::Temp => "",
                    VarKind::Return => "return ",
                };
                format!("{k}{} {}", self.ty(&v.ty), v.name)
            })
            .collect();
        if !vars.is_empty() {
            self.line(format!("vars {{ {} }}", vars.join("; ")));
        }
        self.indent -= 1;
    }

    fn callables(&mut self, b: &BlockRef) {
        let prog = self.prog;
        for a in prog.actions.iter().filter(|a| a.block == *b) {
            let ps: Vec<String> = a.params.iter().map(|p| format!("{}{} {}", dir(p.direction), self.ty(&p.ty), self.var(p.var))).collect();
            let ann = self.annotations(&a.annotations);
            self.braced(format!("{ann}action {}({})", a.name, ps.join(", ")), &a.body);
        }
        for f in prog.functions.iter().filter(|f| f.block == *b) {
            let ps: Vec<String> = f.params.iter().map(|p| format!("{}{} {}", dir(p.direction), self.ty(&p.ty), self.var(p.var))).collect();
            self.braced(format!("function {} {}({})", self.ty(&f.ret), f.name, ps.join(", ")), &f.body);
        }
    }

    fn transition(&mut self, t: &Transition, states: &[ParserState]) {
        let target = |t: &StateTarget| match t {
            StateTarget::Accept => "accept".to_string(),
            StateTarget::Reject => "reject".to_string(),
            StateTarget::State(s) => states.get(s.index()).map(|s| s.name.clone()).unwrap_or_else(|| "<state>".into()),
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
            Keyset::Mask(a, b) => format!("{} &&& {}", self.expr(a), self.expr(b)),
            Keyset::Range(a, b) => format!("{} .. {}", self.expr(a), self.expr(b)),
            Keyset::Any => "_".into(),
            Keyset::ValueSet(v) => self.prog.value_sets.get(v.index()).map(|v| v.name.clone()).unwrap_or_else(|| "<value_set>".into()),
            Keyset::Lpm(e, n) => format!("{} / {n}", self.expr(e)),
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

    fn table(&mut self, t: &Table) {
        let ann = self.annotations(&t.annotations);
        self.line(format!("{ann}table {} {{", t.name));
        self.indent += 1;
        for k in &t.keys {
            let mk = match &k.match_kind {
                MatchKind::Exact => "exact".to_string(),
                MatchKind::Ternary => "ternary".into(),
                MatchKind::Lpm => "lpm".into(),
                MatchKind::Range => "range".into(),
                MatchKind::Optional => "optional".into(),
                MatchKind::Selector => "selector".into(),
                MatchKind::Other(s) => s.clone(),
            };
            let e = self.expr(&k.expr);
            self.line(format!("key {e}: {mk} as {:?};", k.name));
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
        for (label, x) in [("counters", t.direct_counter), ("meters", t.direct_meter), ("implementation", t.implementation)] {
            if let Some(x) = x {
                let n = self.extern_name(x);
                self.line(format!("{label} = {n};"));
            }
        }
        for (n, v) in &t.properties {
            let v = self.value(v);
            self.line(format!("{n} = {v};"));
        }
        if !t.entries.is_empty() {
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

//! Print an AST back to P4_16 source.
//!
//! Invariant (tested on every program we can find): parsing the printed text gives the same AST
//! modulo spans. The AST keeps no parentheses, so they are inserted from operator binding powers
//! (the same numbers the parser uses); printing is otherwise canonical (4-space indent, one
//! declaration or statement per line, integer literals in decimal).

use crate::ast::*;
use std::fmt::Write;

/// An integer literal in canonical form: `8w5`, `4s3`, `17`.
pub fn int_lit(lit: &IntLit) -> String {
    match lit.width {
        Some((w, signed)) => format!("{w}{}{}", if signed { 's' } else { 'w' }, lit.value),
        None => lit.value.to_string(),
    }
}

/// Print a whole program.
pub fn print_program(p: &Program) -> String {
    let mut pr = Printer::default();
    for d in &p.decls {
        pr.decl(d);
    }
    pr.out
}

/// Print one expression.
pub fn print_expr(e: &Expr) -> String {
    let mut pr = Printer::default();
    pr.expr(e, 0);
    pr.out
}

/// Print one type.
pub fn print_type(t: &TypeRef) -> String {
    let mut pr = Printer::default();
    pr.ty(t);
    pr.out
}

// Binding powers, as in the parser (higher binds tighter).
const BP_TERNARY: u8 = 1;
const BP_PREFIX: u8 = 12;
const BP_POSTFIX: u8 = 13;
const BP_PRIMARY: u8 = 14;

fn binop_bp(op: BinOp) -> u8 {
    use BinOp::*;
    match op {
        Or => 2,
        And => 3,
        Eq | Ne => 4,
        Lt | Le | Gt | Ge => 5,
        BitOr => 6,
        BitXor => 7,
        BitAnd => 8,
        Shl | Shr => 9,
        Concat | Add | Sub | AddSat | SubSat => 10,
        Mul | Div | Mod => 11,
    }
}

fn expr_bp(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Ternary(..) => BP_TERNARY,
        ExprKind::Binary(op, ..) => binop_bp(*op),
        ExprKind::Mask(..) | ExprKind::Range(..) => 0,
        ExprKind::Unary(..) | ExprKind::Cast(..) => BP_PREFIX,
        ExprKind::Member(..)
        | ExprKind::Index(..)
        | ExprKind::Slice(..)
        | ExprKind::IndexedSlice(..)
        | ExprKind::Call { .. }
        | ExprKind::Construct { .. } => BP_POSTFIX,
        _ => BP_PRIMARY,
    }
}

#[derive(Default)]
struct Printer {
    out: String,
    indent: usize,
}

impl Printer {
    fn line_start(&mut self) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
    }

    fn s(&mut self, s: &str) {
        self.out.push_str(s);
    }

    fn nl(&mut self) {
        self.out.push('\n');
    }

    // ------------------------------------------------------------ annotations

    fn annotations(&mut self, anns: &[Annotation], trailing_space: bool) {
        for (i, a) in anns.iter().enumerate() {
            if i > 0 {
                self.s(" ");
            }
            self.annotation(a);
        }
        if trailing_space && !anns.is_empty() {
            self.s(" ");
        }
    }

    fn annotation(&mut self, a: &Annotation) {
        let _ = write!(self.out, "@{}", a.name.name);
        match &a.body {
            AnnotationBody::Empty => {}
            AnnotationBody::Unstructured { text, .. } => {
                let _ = write!(self.out, "({text})");
            }
            AnnotationBody::ExprList(es) => {
                self.s("[");
                self.expr_list(es);
                self.s("]");
            }
            AnnotationBody::KeyValue(kvs) => {
                self.s("[");
                for (i, (k, v)) in kvs.iter().enumerate() {
                    if i > 0 {
                        self.s(", ");
                    }
                    let _ = write!(self.out, "{} = ", k.name);
                    self.expr(v, 0);
                }
                self.s("]");
            }
        }
    }

    // ------------------------------------------------------------ types

    fn ty(&mut self, t: &TypeRef) {
        match &t.kind {
            TypeRefKind::Bool => self.s("bool"),
            TypeRefKind::Error => self.s("error"),
            TypeRefKind::String => self.s("string"),
            TypeRefKind::MatchKind => self.s("match_kind"),
            TypeRefKind::Void => self.s("void"),
            TypeRefKind::InfInt => self.s("int"),
            TypeRefKind::Bit(w) => self.sized("bit", w),
            TypeRefKind::Int(w) => self.sized("int", w),
            TypeRefKind::VarBit(w) => self.sized("varbit", w),
            TypeRefKind::DontCare => self.s("_"),
            TypeRefKind::Named(p) => self.path(p),
            TypeRefKind::Specialized(p, args) => {
                self.path(p);
                self.type_args(args);
            }
            TypeRefKind::Stack(elem, size) => {
                self.ty(elem);
                self.s("[");
                self.expr(size, 0);
                self.s("]");
            }
            TypeRefKind::Tuple(args) => {
                self.s("tuple");
                self.type_args(args);
            }
            TypeRefKind::List(elem) => {
                self.s("list<");
                self.ty(elem);
                self.s(">");
            }
        }
    }

    fn sized(&mut self, kw: &str, width: &Expr) {
        let _ = write!(self.out, "{kw}<");
        match &width.kind {
            ExprKind::Int(lit) => self.s(&int_lit(lit)),
            _ => {
                self.s("(");
                self.expr(width, 0);
                self.s(")");
            }
        }
        self.s(">");
    }

    fn type_args(&mut self, args: &[TypeRef]) {
        self.s("<");
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                self.s(", ");
            }
            self.ty(a);
        }
        self.s(">");
    }

    fn path(&mut self, p: &Path) {
        if p.global {
            self.s(".");
        }
        self.s(&p.name.name);
    }

    fn type_params(&mut self, ps: &[Ident]) {
        if ps.is_empty() {
            return;
        }
        self.s("<");
        for (i, p) in ps.iter().enumerate() {
            if i > 0 {
                self.s(", ");
            }
            self.s(&p.name);
        }
        self.s(">");
    }

    fn params(&mut self, ps: &[Param]) {
        self.s("(");
        for (i, p) in ps.iter().enumerate() {
            if i > 0 {
                self.s(", ");
            }
            self.annotations(&p.annotations, true);
            match p.direction {
                Direction::None => {}
                Direction::In => self.s("in "),
                Direction::Out => self.s("out "),
                Direction::InOut => self.s("inout "),
            }
            self.ty(&p.ty);
            let _ = write!(self.out, " {}", p.name.name);
            if let Some(d) = &p.default {
                self.s(" = ");
                self.expr(d, 0);
            }
        }
        self.s(")");
    }

    // ------------------------------------------------------------ expressions

    fn expr_list(&mut self, es: &[Expr]) {
        for (i, e) in es.iter().enumerate() {
            if i > 0 {
                self.s(", ");
            }
            self.expr(e, 0);
        }
    }

    fn args(&mut self, args: &[Arg]) {
        self.s("(");
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                self.s(", ");
            }
            if let Some(n) = &a.name {
                let _ = write!(self.out, "{} = ", n.name);
            }
            self.expr(&a.value, 0);
        }
        self.s(")");
    }

    fn expr(&mut self, e: &Expr, min_bp: u8) {
        let paren = expr_bp(e) < min_bp;
        if paren {
            self.s("(");
        }
        self.expr_inner(e);
        if paren {
            self.s(")");
        }
    }

    fn expr_inner(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Bool(b) => self.s(if *b { "true" } else { "false" }),
            ExprKind::Int(lit) => self.s(&int_lit(lit)),
            ExprKind::String(s) => {
                let _ = write!(self.out, "\"{s}\"");
            }
            ExprKind::Name(p) => self.path(p),
            ExprKind::This => self.s("this"),
            ExprKind::Member(base, m) => {
                self.expr(base, BP_POSTFIX);
                let _ = write!(self.out, ".{}", m.name);
            }
            ExprKind::Index(base, i) => self.subscript(base, i, None),
            ExprKind::Slice(base, hi, lo) => self.subscript(base, hi, Some((":", lo))),
            ExprKind::IndexedSlice(base, lo, w) => self.subscript(base, lo, Some((" +: ", w))),
            ExprKind::Call { callee, type_args, args } => {
                self.expr(callee, BP_POSTFIX);
                if !type_args.is_empty() {
                    self.type_args(type_args);
                }
                self.args(args);
            }
            ExprKind::Construct { ty, args } => {
                self.ty(ty);
                self.args(args);
            }
            ExprKind::Unary(op, operand) => {
                self.s(match op {
                    UnOp::Not => "!",
                    UnOp::BitNot => "~",
                    UnOp::Neg => "-",
                    UnOp::Plus => "+",
                });
                let mut inner = Printer::default();
                inner.expr(operand, BP_PREFIX);
                // `- -x` must not become `--x`, nor `+ +x` the concatenation `++x`.
                if inner.out.starts_with(['-', '+']) {
                    self.s(" ");
                }
                self.s(&inner.out);
            }
            ExprKind::Binary(op, l, r) => {
                let bp = binop_bp(*op);
                self.expr(l, bp);
                let _ = write!(self.out, " {} ", op.symbol());
                self.expr(r, bp + 1);
            }
            ExprKind::Ternary(c, a, b) => {
                self.expr(c, BP_TERNARY + 1);
                self.s(" ? ");
                // A nested `?:` in the middle is legal but hard to read: parenthesize it.
                self.expr(a, BP_TERNARY + 1);
                self.s(" : ");
                self.expr(b, BP_TERNARY);
            }
            ExprKind::Cast(t, e) => {
                self.s("(");
                self.ty(t);
                self.s(")");
                self.expr(e, BP_PREFIX);
            }
            ExprKind::List(items) => {
                self.s("{");
                self.expr_list(items);
                self.s("}");
            }
            ExprKind::StructInit { fields, has_dots } => {
                self.s("{");
                for (i, (n, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        self.s(", ");
                    }
                    let _ = write!(self.out, "{} = ", n.name);
                    self.expr(v, 0);
                }
                if *has_dots {
                    self.s(if fields.is_empty() { "..." } else { ", ..." });
                }
                self.s("}");
            }
            ExprKind::InvalidHeader => self.s("{#}"),
            ExprKind::Dots => self.s("..."),
            ExprKind::DontCare => self.s("_"),
            ExprKind::Default => self.s("default"),
            ExprKind::Mask(a, b) => {
                self.expr(a, BP_TERNARY);
                self.s(" &&& ");
                self.expr(b, BP_TERNARY);
            }
            ExprKind::Range(a, b) => {
                self.expr(a, BP_TERNARY);
                self.s(" .. ");
                self.expr(b, BP_TERNARY);
            }
            ExprKind::Tuple(items) => {
                self.s("(");
                self.expr_list(items);
                self.s(")");
            }
            ExprKind::Type(t) => self.ty(t),
            ExprKind::Error => self.s("/* error */"),
        }
    }

    // ------------------------------------------------------------ statements

    fn block(&mut self, b: &Block) {
        self.annotations(&b.annotations, true);
        self.s("{");
        self.nl();
        self.indent += 1;
        for s in &b.stmts {
            self.stmt(s);
        }
        self.indent -= 1;
        self.line_start();
        self.s("}");
    }

    /// A statement on its own line(s).
    fn stmt(&mut self, s: &Stmt) {
        self.line_start();
        self.stmt_inline(s);
        self.nl();
    }

    /// A statement starting at the current position (after indentation).
    fn stmt_inline(&mut self, s: &Stmt) {
        match s {
            Stmt::Assign { .. } | Stmt::Call { .. } => {
                self.simple_stmt(s);
                self.s(";");
            }
            Stmt::If { cond, then, otherwise, .. } => {
                self.s("if (");
                self.expr(cond, 0);
                self.s(")");
                self.sub_stmt(then);
                if let Some(o) = otherwise {
                    if matches!(**then, Stmt::Block(_)) {
                        self.s(" else");
                    } else {
                        self.nl();
                        self.line_start();
                        self.s("else");
                    }
                    self.sub_stmt(o);
                }
            }
            Stmt::Block(b) => self.block(b),
            Stmt::Exit(_) => self.s("exit;"),
            Stmt::Return(v, _) => match v {
                Some(e) => {
                    self.s("return ");
                    self.expr(e, 0);
                    self.s(";");
                }
                None => self.s("return;"),
            },
            Stmt::Break(_) => self.s("break;"),
            Stmt::Continue(_) => self.s("continue;"),
            Stmt::Empty(_) => self.s(";"),
            Stmt::Switch { expr, cases, .. } => {
                self.s("switch (");
                self.expr(expr, 0);
                self.s(") {");
                self.nl();
                self.indent += 1;
                for c in cases {
                    self.line_start();
                    match &c.label {
                        Some(l) => self.expr(l, 0),
                        None => self.s("default"),
                    }
                    self.s(":");
                    if let Some(b) = &c.body {
                        self.s(" ");
                        self.block(b);
                    }
                    self.nl();
                }
                self.indent -= 1;
                self.line_start();
                self.s("}");
            }
            Stmt::For { annotations, init, cond, update, body, .. } => {
                self.annotations(annotations, true);
                self.s("for (");
                for (i, s) in init.iter().enumerate() {
                    if i > 0 {
                        self.s(", ");
                    }
                    self.for_clause(s);
                }
                self.s(";");
                if let Some(c) = cond {
                    self.s(" ");
                    self.expr(c, 0);
                }
                self.s(";");
                if !update.is_empty() {
                    self.s(" ");
                }
                for (i, s) in update.iter().enumerate() {
                    if i > 0 {
                        self.s(", ");
                    }
                    self.for_clause(s);
                }
                self.s(")");
                self.sub_stmt(body);
            }
            Stmt::ForIn { annotations, ty, var, collection, body, .. } => {
                self.annotations(annotations, true);
                self.s("for (");
                self.ty(ty);
                let _ = write!(self.out, " {} in ", var.name);
                self.expr(collection, 0);
                self.s(")");
                self.sub_stmt(body);
            }
            Stmt::Decl(d) => self.decl_inline(d),
        }
    }

    /// The body of `if`/`else`/`for` (printed right after the keyword or `)`): blocks and
    /// `else if` stay on the line, others go on the next line.
    fn sub_stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Block(_) | Stmt::If { .. } => {
                self.s(" ");
                self.stmt_inline(s);
            }
            _ => {
                self.nl();
                self.indent += 1;
                self.line_start();
                self.stmt_inline(s);
                self.indent -= 1;
            }
        }
    }

    fn for_clause(&mut self, s: &Stmt) {
        match s {
            Stmt::Decl(d) => {
                if let Decl::Var(v) = &**d {
                    self.annotations(&v.annotations, true);
                    self.ty(&v.ty);
                    let _ = write!(self.out, " {}", v.name.name);
                    if let Some(i) = &v.init {
                        self.s(" = ");
                        self.expr(i, 0);
                    }
                }
            }
            other => self.simple_stmt(other),
        }
    }

    fn simple_stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Assign { lhs, op, rhs, .. } => {
                self.expr(lhs, 0);
                match op {
                    Some(op) => {
                        let _ = write!(self.out, " {}= ", op.symbol());
                    }
                    None => self.s(" = "),
                }
                self.expr(rhs, 0);
            }
            Stmt::Call { call, .. } => self.expr(call, 0),
            _ => {}
        }
    }

    // ------------------------------------------------------------ declarations

    fn decl(&mut self, d: &Decl) {
        self.line_start();
        self.decl_inline(d);
        self.nl();
    }

    fn decl_inline(&mut self, d: &Decl) {
        match d {
            Decl::Const(c) => {
                self.annotations(&c.annotations, true);
                self.s("const ");
                self.ty(&c.ty);
                let _ = write!(self.out, " {} = ", c.name.name);
                self.expr(&c.value, 0);
                self.s(";");
            }
            Decl::Var(v) => {
                self.annotations(&v.annotations, true);
                self.ty(&v.ty);
                let _ = write!(self.out, " {}", v.name.name);
                if let Some(i) = &v.init {
                    self.s(" = ");
                    self.expr(i, 0);
                }
                self.s(";");
            }
            Decl::Typedef(t) => {
                self.annotations(&t.annotations, true);
                self.s(if t.is_new_type { "type " } else { "typedef " });
                match &t.ty {
                    TypedefTarget::Type(ty) => self.ty(ty),
                    TypedefTarget::Derived(d) => self.decl_inline(d),
                }
                let _ = write!(self.out, " {};", t.name.name);
            }
            Decl::StructLike(s) => {
                self.annotations(&s.annotations, true);
                self.s(match s.kind {
                    StructKind::Struct => "struct ",
                    StructKind::Header => "header ",
                    StructKind::HeaderUnion => "header_union ",
                });
                self.s(&s.name.name);
                self.type_params(&s.type_params);
                self.s(" {");
                self.nl();
                self.indent += 1;
                for f in &s.fields {
                    self.line_start();
                    self.annotations(&f.annotations, true);
                    self.ty(&f.ty);
                    let _ = write!(self.out, " {};", f.name.name);
                    self.nl();
                }
                self.indent -= 1;
                self.line_start();
                self.s("}");
            }
            Decl::Enum(e) => {
                self.annotations(&e.annotations, true);
                self.s("enum ");
                if let Some(u) = &e.underlying {
                    self.ty(u);
                    self.s(" ");
                }
                let _ = write!(self.out, "{} {{", e.name.name);
                for (i, (m, v)) in e.members.iter().enumerate() {
                    self.s(if i > 0 { ", " } else { " " });
                    self.s(&m.name);
                    if let Some(v) = v {
                        self.s(" = ");
                        self.expr(v, 0);
                    }
                }
                self.s(" }");
            }
            Decl::Error(members, _) => self.ident_list("error", members),
            Decl::MatchKind(members, _) => self.ident_list("match_kind", members),
            Decl::Extern(x) => {
                self.annotations(&x.annotations, true);
                let _ = write!(self.out, "extern {}", x.name.name);
                self.type_params(&x.type_params);
                self.s(" {");
                self.nl();
                self.indent += 1;
                for m in &x.methods {
                    self.line_start();
                    if m.is_abstract {
                        // Annotations precede `abstract` in the grammar.
                        self.annotations(&m.proto.annotations, true);
                        self.s("abstract ");
                        self.proto_without_annotations(&m.proto);
                    } else {
                        self.proto(&m.proto);
                    }
                    self.s(";");
                    self.nl();
                }
                self.indent -= 1;
                self.line_start();
                self.s("}");
            }
            Decl::ExternFunction(p) => {
                self.annotations(&p.annotations, true);
                self.s("extern ");
                self.proto_without_annotations(p);
                self.s(";");
            }
            Decl::Function(f) => {
                self.proto(&f.proto);
                self.s(" ");
                self.block(&f.body);
            }
            Decl::Action(a) => {
                self.annotations(&a.annotations, true);
                let _ = write!(self.out, "action {}", a.name.name);
                self.params(&a.params);
                self.s(" ");
                self.block(&a.body);
            }
            Decl::ParserType(t) => {
                self.block_type("parser", t);
                self.s(";");
            }
            Decl::ControlType(t) => {
                self.block_type("control", t);
                self.s(";");
            }
            Decl::Package(t) => {
                self.block_type("package", t);
                self.s(";");
            }
            Decl::Parser(p) => self.block_decl("parser", &p.ty, &p.ctor_params, &p.locals, |out| {
                for s in &p.states {
                    out.state(s);
                }
            }),
            Decl::Control(c) => self.block_decl("control", &c.ty, &c.ctor_params, &c.locals, |out| {
                out.line_start();
                out.s("apply ");
                out.block(&c.apply);
                out.nl();
            }),
            Decl::Instantiation(i) => {
                self.annotations(&i.annotations, true);
                self.ty(&i.ty);
                self.args(&i.args);
                let _ = write!(self.out, " {}", i.name.name);
                if let Some(init) = &i.initializer {
                    self.s(" = {");
                    self.nl();
                    self.indent += 1;
                    for d in init {
                        self.decl(d);
                    }
                    self.indent -= 1;
                    self.line_start();
                    self.s("}");
                }
                self.s(";");
            }
            Decl::Table(t) => self.table(t),
            Decl::ValueSet(v) => {
                self.annotations(&v.annotations, true);
                self.s("value_set<");
                self.ty(&v.elem);
                self.s(">(");
                self.expr(&v.size, 0);
                let _ = write!(self.out, ") {};", v.name.name);
            }
        }
    }

    fn ident_list(&mut self, kw: &str, members: &[Ident]) {
        let _ = write!(self.out, "{kw} {{");
        for (i, m) in members.iter().enumerate() {
            self.s(if i > 0 { ", " } else { " " });
            self.s(&m.name);
        }
        self.s(" }");
    }

    fn proto(&mut self, p: &FunctionProto) {
        self.annotations(&p.annotations, true);
        self.proto_without_annotations(p);
    }

    fn proto_without_annotations(&mut self, p: &FunctionProto) {
        if let Some(r) = &p.ret {
            self.ty(r);
            self.s(" ");
        }
        self.s(&p.name.name);
        self.type_params(&p.type_params);
        self.params(&p.params);
    }

    /// `base[first]`, or `base[first SEP second]` for the two slice forms.
    fn subscript(&mut self, base: &Expr, first: &Expr, second: Option<(&str, &Expr)>) {
        self.expr(base, BP_POSTFIX);
        self.s("[");
        self.expr(first, 0);
        if let Some((sep, e)) = second {
            self.s(sep);
            self.expr(e, 0);
        }
        self.s("]");
    }

    /// A parser or control: its type, constructor parameters and local declarations, then
    /// `body` (the states, or the apply block) inside the braces.
    fn block_decl(
        &mut self,
        kw: &str,
        ty: &BlockTypeDecl,
        ctor_params: &[Param],
        locals: &[Decl],
        body: impl FnOnce(&mut Self),
    ) {
        self.block_type(kw, ty);
        if !ctor_params.is_empty() {
            self.params(ctor_params);
        }
        self.s(" {");
        self.nl();
        self.indent += 1;
        for l in locals {
            self.decl(l);
        }
        body(self);
        self.indent -= 1;
        self.line_start();
        self.s("}");
    }

    fn block_type(&mut self, kw: &str, t: &BlockTypeDecl) {
        self.annotations(&t.annotations, true);
        let _ = write!(self.out, "{kw} {}", t.name.name);
        self.type_params(&t.type_params);
        self.params(&t.params);
    }

    fn state(&mut self, s: &ParserState) {
        self.line_start();
        self.annotations(&s.annotations, true);
        let _ = write!(self.out, "state {} {{", s.name.name);
        self.nl();
        self.indent += 1;
        for st in &s.body {
            self.stmt(st);
        }
        if let Some(t) = &s.transition {
            self.line_start();
            self.s("transition ");
            match t {
                Transition::Direct(p, _) => {
                    self.path(p);
                    self.s(";");
                }
                Transition::Select { exprs, cases, .. } => {
                    self.s("select(");
                    self.expr_list(exprs);
                    self.s(") {");
                    self.nl();
                    self.indent += 1;
                    for c in cases {
                        self.line_start();
                        self.expr(&c.keyset, 0);
                        self.s(": ");
                        self.path(&c.next);
                        self.s(";");
                        self.nl();
                    }
                    self.indent -= 1;
                    self.line_start();
                    self.s("}");
                }
            }
            self.nl();
        }
        self.indent -= 1;
        self.line_start();
        self.s("}");
        self.nl();
    }

    fn action_ref(&mut self, a: &ActionRef) {
        self.path(&a.name);
        if let Some(args) = &a.args {
            self.args(args);
        }
    }

    fn table(&mut self, t: &TableDecl) {
        self.annotations(&t.annotations, true);
        let _ = write!(self.out, "table {}", t.name.name);
        if !t.params.is_empty() {
            self.params(&t.params);
        }
        self.s(" {");
        self.nl();
        self.indent += 1;
        for p in &t.properties {
            self.line_start();
            match p {
                TableProperty::Key { elements, .. } => {
                    self.s("key = {");
                    self.nl();
                    self.indent += 1;
                    for k in elements {
                        self.line_start();
                        self.expr(&k.expr, 0);
                        let _ = write!(self.out, " : {}", k.match_kind.name);
                        if !k.annotations.is_empty() {
                            self.s(" ");
                            self.annotations(&k.annotations, false);
                        }
                        self.s(";");
                        self.nl();
                    }
                    self.indent -= 1;
                    self.line_start();
                    self.s("}");
                }
                TableProperty::Actions { actions, .. } => {
                    self.s("actions = {");
                    self.nl();
                    self.indent += 1;
                    for a in actions {
                        self.line_start();
                        self.annotations(&a.annotations, true);
                        self.action_ref(a);
                        self.s(";");
                        self.nl();
                    }
                    self.indent -= 1;
                    self.line_start();
                    self.s("}");
                }
                TableProperty::Entries { annotations, is_const, entries, .. } => {
                    self.annotations(annotations, true);
                    self.s(if *is_const { "const entries = {" } else { "entries = {" });
                    self.nl();
                    self.indent += 1;
                    for e in entries {
                        self.line_start();
                        if e.is_const {
                            self.s("const ");
                        }
                        if let Some(p) = &e.priority {
                            // The grammar allows a literal or a parenthesized expression here.
                            self.s("priority = ");
                            self.expr(p, BP_PRIMARY);
                            self.s(" : ");
                        }
                        self.expr(&e.keyset, 0);
                        self.s(" : ");
                        self.action_ref(&e.action);
                        if !e.annotations.is_empty() {
                            self.s(" ");
                            self.annotations(&e.annotations, false);
                        }
                        self.s(";");
                        self.nl();
                    }
                    self.indent -= 1;
                    self.line_start();
                    self.s("}");
                }
                TableProperty::Other { annotations, is_const, name, value, .. } => {
                    self.annotations(annotations, true);
                    if *is_const {
                        self.s("const ");
                    }
                    let _ = write!(self.out, "{} = ", name.name);
                    self.expr(value, 0);
                    self.s(";");
                }
            }
            self.nl();
        }
        self.indent -= 1;
        self.line_start();
        self.s("}");
    }
}

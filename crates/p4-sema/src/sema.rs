//! The checker's state and top-level declaration processing.
//!
//! Design: one lowering routine per construct serves both *checking* and *elaboration*. Every
//! parser, control, action and function is first lowered once in "check mode" (type parameters
//! opaque, constructor parameters unknown) into a scratch [`Out`] that is thrown away — this reports
//! errors in every declaration, used or not. Elaboration of `main` then lowers each instance again
//! with concrete types and constructor values into the real output. Diagnostics are deduplicated.
//!
//! Invariant: top-level declarations are processed in source order, so a name is only visible after
//! its declaration (P4's declare-before-use rule).

use crate::types::{NId, NamedDef, NamedKind, NewTypeDef, Subst, Ty, TyNames};
use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive};
use p4_ir as ir;
use p4_syntax::ast::{self, Decl, Direction, TypeRef, TypeRefKind};
use p4_syntax::diag::Diagnostic;
use p4_syntax::span::{SourceMap, Span};
use std::collections::HashMap;

/// A top-level name's meaning.
#[derive(Clone, Debug)]
pub enum Global {
    Type(Ty),
    GenericStruct(usize),
    Const { value: ir::Value, ty: Ty },
    Action(usize),
    Function(usize),
    ExternFunction(usize),
    ExternType(usize),
    /// `parser P(...)` / `control C(...)` with a body.
    Parser(usize),
    Control(usize),
    /// `parser P(...);`, `control C(...);`, `package P(...);`
    BlockType(usize),
    /// A top-level instantiation (`main`, shared extern objects).
    Instance(usize),
}

/// A local name's meaning inside a parser/control/action/function.
#[derive(Clone, Debug)]
pub enum Local<'a> {
    Var { id: ir::VarId, ty: Ty, writable: bool },
    Const { value: ir::Value, ty: Ty },
    Extern { id: ir::ExternId, ty: Ty },
    Table { id: ir::TableId },
    Action { id: ir::ActionId, decl: &'a ast::ActionDecl },
    Instance { block: Option<ir::BlockRef>, decl: usize, ty: Ty },
    ValueSet { id: ir::ValueSetId, ty: Ty },
    /// A function declared inside a control (declaration index; it sees the control's locals).
    Function(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    Parser,
    Control,
}

/// What is being lowered right now (decides which statements are legal).
#[derive(Clone, Debug, PartialEq)]
pub enum Callable {
    /// Block-level declarations of a parser or control.
    BlockDecls,
    ParserState,
    ControlApply,
    Action,
    Function { ret: Ty },
}

/// Per parser/control instance state: its frame and what it owns.
#[derive(Debug)]
pub struct BlockCx {
    pub kind: BlockKind,
    pub block_ref: ir::BlockRef,
    /// Control-plane name prefix (`MyIngress`, `MyIngress.sub`).
    pub name: String,
    pub vars: Vec<ir::Var>,
    pub actions: Vec<ir::ActionId>,
    pub tables: Vec<ir::TableId>,
    pub externs: Vec<ir::ExternId>,
    pub value_sets: Vec<ir::ValueSetId>,
    pub global_actions: HashMap<usize, ir::ActionId>,
    pub functions: HashMap<(usize, Vec<Ty>), ir::FunctionId>,
    /// Implicit instances of directly invoked parsers/controls.
    pub direct: HashMap<usize, ir::BlockRef>,
    /// Check mode: the variables standing for constructor parameters.
    pub ctor_vars: Vec<ir::VarId>,
}

/// The IR objects being produced (real output, or a scratch copy in check mode).
#[derive(Debug, Default)]
pub struct Out {
    pub prog: ir::Program,
    pub global_externs: HashMap<usize, ir::ExternId>,
    pub extern_tys: HashMap<ir::ExternId, Ty>,
}

pub struct Sema<'a> {
    pub sources: &'a SourceMap,
    pub decls: Vec<&'a Decl>,
    pub globals: HashMap<String, Vec<Global>>,
    pub named: Vec<NamedDef>,
    pub newtypes: Vec<NewTypeDef>,
    pub generic_structs: HashMap<(usize, Vec<Ty>), NId>,
    /// For each specialised generic struct: its declaration and type arguments.
    pub generic_origin: HashMap<NId, (usize, Vec<Ty>)>,
    pub errors: Vec<String>,
    pub match_kinds: Vec<String>,
    pub diags: Vec<Diagnostic>,
    /// IR type table (never scratch: ids stay valid across modes).
    pub types: Vec<ir::TypeDef>,
    pub type_ids: HashMap<Ty, ir::TypeId>,
    pub out: Out,
    pub scopes: Vec<HashMap<String, Local<'a>>>,
    pub cx: Option<BlockCx>,
    pub callable: Callable,
    pub loop_depth: u32,
    /// Type parameter bindings in effect (`Ty::Param(name)` while checking generically).
    pub tparams: HashMap<String, Ty>,
    /// True while lowering into a scratch output.
    pub check_mode: bool,
    pub subst: Subst,
    pub next_infer: u32,
    /// Declarations whose bodies are being lowered (recursion detection).
    pub active: Vec<usize>,
    /// Parser/control declarations being lowered (recursive instantiation detection).
    pub active_blocks: Vec<usize>,
    /// Declaration indices of functions declared inside parsers/controls.
    pub local_functions: std::collections::HashSet<usize>,
    /// Set when a valid construct cannot be elaborated by p4forge (a warning was emitted).
    pub unsupported: bool,
    /// Set while checking a call argument, the one place `_` (don't care) is an expression.
    pub dont_care_argument: bool,
    /// Set while checking an abstract method's implementation, the one place `this` means something.
    pub in_abstract_impl: bool,
    /// Control-plane names given out during elaboration: (kind, name) → declaring span.
    pub cp_names: HashMap<(&'static str, String), Span>,
    /// For actions in `cp_names`: the text of the first one's parameters and body. Several copies of
    /// one action may share a control-plane name (compilers emit `@name(".NoAction")` on each copy).
    pub cp_action_text: HashMap<String, String>,
}

pub type R<T> = Result<T, ()>;

/// Largest bit width accepted (keeps constant folding and concatenation widths bounded).
pub const MAX_WIDTH: u32 = 1 << 20;

impl<'a> Sema<'a> {
    pub fn new(sources: &'a SourceMap) -> Sema<'a> {
        Sema {
            sources,
            decls: vec![],
            globals: HashMap::new(),
            named: vec![],
            newtypes: vec![],
            generic_structs: HashMap::new(),
            generic_origin: HashMap::new(),
            errors: vec![],
            match_kinds: vec![],
            diags: vec![],
            types: vec![],
            type_ids: HashMap::new(),
            out: Out::default(),
            scopes: vec![],
            cx: None,
            callable: Callable::BlockDecls,
            loop_depth: 0,
            tparams: HashMap::new(),
            check_mode: false,
            subst: Subst::default(),
            next_infer: 0,
            active: vec![],
            active_blocks: vec![],
            local_functions: Default::default(),
            unsupported: false,
            dont_care_argument: false,
            in_abstract_impl: false,
            cp_names: HashMap::new(),
            cp_action_text: HashMap::new(),
        }
    }

    // ------------------------------------------------------------ diagnostics

    pub fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, msg));
    }
    /// An error with text under the caret.
    pub fn error_at(&mut self, span: Span, msg: impl Into<String>, label: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, msg).with_label(label));
    }
    pub fn error_count(&self) -> usize {
        self.diags.iter().filter(|d| d.is_error()).count()
    }
    pub fn warn(&mut self, span: Span, msg: impl Into<String>) {
        self.diags.push(Diagnostic::warning(span, msg));
    }
    pub fn show(&self, t: &Ty) -> String {
        let decls = &self.decls;
        let name = move |d: usize| decls.get(d).and_then(|d| d.name()).map(|n| n.name.to_string()).unwrap_or_default();
        TyNames { named: &self.named, newtypes: &self.newtypes, decl_name: &name }.show(&self.subst.resolve(t))
    }
    /// The source text of a span (for table key names).
    pub fn text(&self, span: Span) -> String {
        self.sources
            .get(span.file)
            .and_then(|f| f.text.get(span.lo as usize..span.hi as usize))
            .map(|s| s.split_whitespace().collect::<String>())
            .unwrap_or_default()
    }

    pub fn fresh(&mut self) -> Ty {
        self.next_infer += 1;
        Ty::Infer(self.next_infer)
    }

    // ------------------------------------------------------------ lookup

    pub fn lookup_local(&self, name: &str) -> Option<&Local<'a>> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }
    pub fn lookup_global(&self, name: &str) -> Option<&Global> {
        self.globals.get(name).and_then(|v| v.first())
    }
    pub fn global_overloads(&self, name: &str) -> Vec<Global> {
        self.globals.get(name).cloned().unwrap_or_default()
    }

    pub fn bind_local(&mut self, name: &ast::Ident, local: Local<'a>) {
        let n = self.scopes.len();
        if n > 1 && self.scopes[..n - 1].iter().any(|s| s.contains_key(name.name.as_str())) {
            self.diags.push(Diagnostic::warning(name.span, format!("declaration of `{}` shadows an earlier declaration", name.name)));
        }
        if let Some(scope) = self.scopes.last_mut() {
            if scope.contains_key(name.name.as_str()) {
                self.diags.push(Diagnostic::error(name.span, format!("duplicate declaration of `{}`", name.name)));
                return;
            }
            scope.insert(name.name.to_string(), local);
        }
    }

    fn declare_global(&mut self, name: &ast::Ident, g: Global) {
        let overloadable = matches!(g, Global::Function(_) | Global::ExternFunction(_));
        // A parser or control declared with the name of functions declared before (v1model's
        // `verify_checksum`) takes the name over from there on, as in the reference compiler,
        // whose lexer then reads the name as a type's.
        let is_block = matches!(g, Global::Parser(_) | Global::Control(_));
        let over_functions = self.globals.get(name.name.as_str()).is_some_and(|p| p.iter().all(|x| matches!(x, Global::Function(_) | Global::ExternFunction(_))));
        if is_block && over_functions {
            self.diags.push(Diagnostic::warning(name.span, format!("`{}` names this block from here on; the function of that name can no longer be called", name.name)));
            self.globals.insert(name.name.to_string(), vec![g]);
            return;
        }
        if let Some(prev) = self.globals.get(name.name.as_str()) {
            let ok = overloadable
                && prev.iter().all(|p| matches!(p, Global::Function(_) | Global::ExternFunction(_)))
                && prev.iter().all(|p| self.callable_arity(p) != self.callable_arity(&g) || self.callable_param_names(p) != self.callable_param_names(&g));
            if !ok {
                self.error(name.span, format!("duplicate declaration of `{}`", name.name));
                return;
            }
        }
        self.globals.entry(name.name.to_string()).or_default().push(g);
    }

    /// The parameter names of a function or extern function, sorted: two overloads with the same
    /// number of parameters are told apart by them (spec, "Extern objects").
    fn callable_param_names(&self, g: &Global) -> Vec<String> {
        let params = match g {
            Global::Function(d) | Global::ExternFunction(d) => match self.decls.get(*d) {
                Some(Decl::Function(f)) => &f.proto.params[..],
                Some(Decl::ExternFunction(p)) => &p.params[..],
                _ => &[][..],
            },
            _ => &[][..],
        };
        let mut names: Vec<String> = params.iter().map(|p| p.name.name.to_string()).collect();
        names.sort();
        names
    }

    fn callable_arity(&self, g: &Global) -> usize {
        match g {
            Global::Function(d) | Global::ExternFunction(d) => match self.decls.get(*d) {
                Some(Decl::Function(f)) => f.proto.params.len(),
                Some(Decl::ExternFunction(p)) => p.params.len(),
                _ => 0,
            },
            _ => 0,
        }
    }

    /// Record an action's control-plane name. Copies of one action (the same parameters and body,
    /// as a compiler's output names every copy of `NoAction` `.NoAction`) may share a name; two
    /// different actions may not.
    pub fn claim_action_cp_name(&mut self, name: &str, a: &ast::ActionDecl) {
        if self.check_mode {
            return;
        }
        let params: Vec<String> = a.params.iter().map(|p| self.text(p.span)).collect();
        let shape = format!("({}){}", params.join(","), self.text(a.body.span));
        match self.cp_action_text.get(name) {
            Some(prev) if *prev == shape => {}
            _ => {
                self.claim_cp_name("action", name, a.name.span);
                self.cp_action_text.entry(name.to_string()).or_insert(shape);
            }
        }
    }

    /// Record a control-plane name; two different declarations may not share one.
    pub fn claim_cp_name(&mut self, kind: &'static str, name: &str, decl_span: Span) {
        if self.check_mode {
            return;
        }
        match self.cp_names.get(&(kind, name.to_string())) {
            Some(prev) if *prev != decl_span => {
                self.error(decl_span, format!("{kind} control-plane name `{name}` is already used by another {kind}"));
            }
            // Copies of one action are one action; two instances of one table are two tables.
            Some(_) if kind == "table" => {
                self.error(decl_span, format!("table control-plane name `{name}` names two tables: its control is instantiated more than once and the name is global (leading `.`)"));
            }
            Some(_) => {}
            None => {
                self.cp_names.insert((kind, name.to_string()), decl_span);
            }
        }
    }

    // ------------------------------------------------------------ types

    /// Evaluate a constant expression to a non-negative integer that fits `u32` (widths, sizes).
    pub fn const_u32(&mut self, e: &'a ast::Expr, what: &str) -> R<u32> {
        let te = self.expr(e, None)?;
        match te.val.as_ref().and_then(crate::consteval::int_of) {
            Some(v) if !v.is_negative() => v.to_u32().ok_or_else(|| self.error(e.span, format!("{what} {v} is too large"))),
            Some(v) => {
                self.error(e.span, format!("{what} must not be negative (found {v})"));
                Err(())
            }
            None => {
                self.error(e.span, format!("{what} must be a compile-time constant integer"));
                Err(())
            }
        }
    }

    /// A type's width: a constant in `0..=MAX_WIDTH`.
    fn width(&mut self, w: &'a ast::Expr) -> R<u32> {
        let n = self.const_u32(w, "width")?;
        if n > MAX_WIDTH {
            self.error(w.span, format!("width {n} exceeds the supported maximum of {MAX_WIDTH} bits"));
            return Err(());
        }
        Ok(n)
    }

    pub fn resolve_type(&mut self, t: &'a TypeRef) -> Ty {
        self.try_type(t).unwrap_or(Ty::Unknown)
    }

    /// A type written in a declaration (constant, variable, field, parameter): `_` is not allowed.
    pub fn decl_type(&mut self, t: &'a TypeRef) -> Ty {
        if matches!(t.kind, TypeRefKind::DontCare) {
            self.error(t.span, "`_` can only be used as a type argument");
            return Ty::Unknown;
        }
        self.resolve_type(t)
    }

    /// The type of a constant or variable: it must be fully known, so `_` may not appear even as
    /// a type argument (parameters of generic blocks may use `S<_>`, values may not).
    pub fn value_decl_type(&mut self, t: &'a TypeRef) -> Ty {
        if let Some(span) = dont_care_inside(t).filter(|_| !matches!(t.kind, TypeRefKind::DontCare)) {
            self.error(span, "the type of a constant or variable cannot contain `_`");
            return Ty::Unknown;
        }
        self.decl_type(t)
    }

    fn try_type(&mut self, t: &'a TypeRef) -> R<Ty> {
        Ok(match &t.kind {
            TypeRefKind::Bool => Ty::Bool,
            TypeRefKind::Error => Ty::Error,
            TypeRefKind::String => Ty::String,
            TypeRefKind::MatchKind => Ty::MatchKind,
            TypeRefKind::Void => Ty::Void,
            TypeRefKind::InfInt => Ty::InfInt,
            TypeRefKind::Bit(w) => Ty::Bits { width: self.width(w)?, signed: false },
            TypeRefKind::Int(w) => {
                let width = self.width(w)?;
                if width == 0 {
                    self.error(w.span, "signed integer type `int<0>` must be at least 1 bit wide");
                    return Err(());
                }
                Ty::Bits { width, signed: true }
            }
            TypeRefKind::VarBit(w) => Ty::Varbit(self.width(w)?),
            TypeRefKind::DontCare => self.fresh(),
            TypeRefKind::Named(p) => self.named_type(p, &[], t.span)?,
            TypeRefKind::Specialized(p, args) => {
                let args: Vec<Ty> = args.iter().map(|a| self.resolve_type(a)).collect();
                self.named_type(p, &args, t.span)?
            }
            TypeRefKind::Stack(elem, n) => {
                let e = self.try_type(elem)?;
                let n = self.const_u32(n, "stack size")?;
                if n == 0 {
                    self.error(t.span, "stack size must be positive");
                    return Err(());
                }
                match &e {
                    Ty::Named(id) if matches!(self.named[*id].kind, NamedKind::Header | NamedKind::Union | NamedKind::Struct) => {}
                    Ty::Param(_) | Ty::Unknown => {}
                    // Arrays of arrays (`bit<8>[2][2]`) are accepted by p4c.
                    Ty::Bits { .. } | Ty::Bool | Ty::Stack(..) => {}
                    other => {
                        let s = self.show(other);
                        self.error(t.span, format!("invalid element type `{s}` for a stack/array"));
                        return Err(());
                    }
                }
                Ty::Stack(Box::new(e), n)
            }
            TypeRefKind::Tuple(ts) => {
                let elems: Vec<Ty> = ts.iter().map(|x| self.resolve_type(x)).collect();
                for (e, r) in elems.iter().zip(ts) {
                    if matches!(e, Ty::Void | Ty::String | Ty::List(_) | Ty::Extern(..) | Ty::Block(..)) {
                        let s = self.show(e);
                        self.error(r.span, format!("`{s}` cannot be a tuple element type"));
                        return Err(());
                    }
                    // The spec's type nesting table forbids `int` and `match_kind` in tuples, but
                    // p4c accepts them (constant tuples of `int`s are common): a warning.
                    if matches!(e, Ty::InfInt | Ty::MatchKind) {
                        let s = self.show(e);
                        self.warn(r.span, format!("`{s}` as a tuple element type is not allowed by the spec's type nesting rules (accepted, as p4c does)"));
                    }
                }
                Ty::Tuple(elems)
            }
            TypeRefKind::List(e) => Ty::List(Box::new(self.resolve_type(e))),
        })
    }

    fn named_type(&mut self, p: &'a ast::Path, args: &[Ty], span: Span) -> R<Ty> {
        if !p.global {
            if let Some(t) = self.tparams.get(p.name.name.as_str()) {
                return Ok(t.clone());
            }
        }
        let Some(g) = self.lookup_global(&p.name.name).cloned() else {
            self.error_at(p.name.span, format!("unknown type `{}`", p.name.name), "not found in this scope");
            return Err(());
        };
        let nparams = |s: &Self, d: usize| s.type_params_of(d).len();
        let check_args = |s: &mut Self, d: usize| -> R<()> {
            let n = nparams(s, d);
            if !args.is_empty() && args.len() != n {
                s.error(span, format!("`{}` expects {n} type argument(s), {} given", p.name.name, args.len()));
                return Err(());
            }
            Ok(())
        };
        match g {
            Global::Type(t) => {
                if !args.is_empty() {
                    self.error(span, format!("type `{}` is not generic", p.name.name));
                }
                Ok(t)
            }
            Global::GenericStruct(d) => {
                check_args(self, d)?;
                if args.is_empty() {
                    self.error(span, format!("generic type `{}` needs type arguments", p.name.name));
                    return Err(());
                }
                if args.iter().any(|a| self.mentions_generic(a, d)) {
                    self.error(span, format!("`{}` contains a specialization of itself as a type argument", p.name.name));
                    return Err(());
                }
                Ok(self.specialize_struct(d, args))
            }
            Global::ExternType(d) | Global::BlockType(d) | Global::Parser(d) | Global::Control(d) => {
                check_args(self, d)?;
                let args = if args.is_empty() { (0..nparams(self, d)).map(|_| self.fresh()).collect() } else { args.to_vec() };
                Ok(if matches!(g, Global::ExternType(_)) { Ty::Extern(d, args) } else { Ty::Block(d, args) })
            }
            _ => {
                self.error(p.name.span, format!("`{}` is not a type", p.name.name));
                Err(())
            }
        }
    }

    pub fn type_params_of(&self, d: usize) -> &'a [ast::Ident] {
        match self.decls.get(d).copied() {
            Some(Decl::Extern(e)) => &e.type_params,
            Some(Decl::ParserType(b) | Decl::ControlType(b) | Decl::Package(b)) => &b.type_params,
            Some(Decl::Parser(p)) => &p.ty.type_params,
            Some(Decl::Control(c)) => &c.ty.type_params,
            Some(Decl::StructLike(s)) => &s.type_params,
            Some(Decl::Function(f)) => &f.proto.type_params,
            Some(Decl::ExternFunction(f)) => &f.type_params,
            _ => &[],
        }
    }

    /// Run `f` with extra type parameter bindings.
    pub fn with_tparams<T>(&mut self, binds: HashMap<String, Ty>, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = self.tparams.clone();
        self.tparams.extend(binds);
        let r = f(self);
        self.tparams = saved;
        r
    }

    pub fn bind_params(names: &[ast::Ident], args: &[Ty]) -> HashMap<String, Ty> {
        names.iter().zip(args).map(|(n, t)| (n.name.to_string(), t.clone())).collect()
    }

    /// True if `t` is or contains (through type arguments, arrays and tuples) a specialization of
    /// the generic struct declared at `d`.
    fn mentions_generic(&self, t: &Ty, d: usize) -> bool {
        match self.subst.resolve(t) {
            Ty::Named(id) => self.generic_origin.get(&id).is_some_and(|(o, args)| *o == d || args.iter().any(|a| self.mentions_generic(a, d))),
            Ty::Stack(e, _) => self.mentions_generic(&e, d),
            Ty::Tuple(ts) => ts.iter().any(|x| self.mentions_generic(x, d)),
            _ => false,
        }
    }

    fn specialize_struct(&mut self, d: usize, args: &[Ty]) -> Ty {
        let args: Vec<Ty> = args.iter().map(|a| self.subst.resolve(a)).collect();
        if let Some(id) = self.generic_structs.get(&(d, args.clone())) {
            return Ty::Named(*id);
        }
        let Some(Decl::StructLike(s)) = self.decls.get(d).copied() else { return Ty::Unknown };
        let binds = Self::bind_params(&s.type_params, &args);
        let suffix: Vec<String> = args.iter().map(|a| self.show(a)).collect();
        let name = format!("{}<{}>", s.name.name, suffix.join(", "));
        let id = self.with_tparams(binds, |me| me.define_struct(s, name));
        self.generic_origin.insert(id, (d, args.clone()));
        self.generic_structs.insert((d, args), id);
        Ty::Named(id)
    }

    /// Check a struct/header/union's fields and add it to the type tables.
    fn define_struct(&mut self, s: &'a ast::StructLikeDecl, name: String) -> NId {
        let kind = match s.kind {
            ast::StructKind::Struct => NamedKind::Struct,
            ast::StructKind::Header => NamedKind::Header,
            ast::StructKind::HeaderUnion => NamedKind::Union,
        };
        let mut fields: Vec<(String, Ty)> = vec![];
        let mut anns = vec![];
        let mut varbits = 0;
        for f in &s.fields {
            let ty = self.decl_type(&f.ty);
            if fields.iter().any(|(n, _)| *n == f.name.name) {
                self.error(f.name.span, format!("duplicate field `{}` in `{}`", f.name.name, s.name.name));
                continue;
            }
            // `@match(kind)` (a value set's field's match kind) names a declared match kind.
            for a in f.annotations.iter().filter(|a| a.name.name == "match") {
                let ast::AnnotationBody::Unstructured { text, .. } = &a.body else { continue };
                if !self.match_kinds.iter().any(|m| m == text.trim()) {
                    self.error(a.span, format!("`@match({})`: the value must be a match_kind", text.trim()));
                }
            }
            if matches!(ty, Ty::Varbit(_)) && kind == NamedKind::Header {
                varbits += 1;
                if varbits == 2 {
                    self.error(f.span, "a header may contain at most one varbit field");
                }
            }
            if let Some(why) = self.field_type_problem(kind, &ty) {
                let ts = self.show(&ty);
                self.error(f.ty.span, format!("field `{}` of {} `{}` cannot have type `{ts}`: {why}", f.name.name, kind_word(kind), s.name.name));
            }
            if kind == NamedKind::Header && (matches!(ty, Ty::Stack(..)) || self.struct_has_array(&ty)) {
                self.warn(f.span, format!("unsupported: array field `{}` inside header `{}` (p4forge cannot lay it out)", f.name.name, s.name.name));
                self.unsupported = true;
            }
            anns.push(self.annotations(&f.annotations));
            fields.push((f.name.name.to_string(), ty));
        }
        let id = self.named.len();
        let annotations = self.annotations(&s.annotations);
        self.named.push(NamedDef { kind, name, fields, field_annotations: anns, annotations, underlying: None, members: vec![] });
        if !self.named[id].fields.iter().any(|(_, t)| t.has_vars()) {
            let _ = self.ir_type(&Ty::Named(id));
        }
        id
    }

    /// The spec's restrictions on field types (§7.2.2 table).
    fn field_type_problem(&self, kind: NamedKind, ty: &Ty) -> Option<&'static str> {
        let is_named = |k: NamedKind| matches!(ty, Ty::Named(n) if self.named[*n].kind == k);
        let ser_enum = matches!(ty, Ty::Named(n) if self.named[*n].kind == NamedKind::Enum && self.named[*n].underlying.is_some());
        let newtype_bits = self.is_new_type_of_bits(ty);
        match kind {
            NamedKind::Header => {
                let ok = matches!(ty, Ty::Bits { .. } | Ty::Varbit(_) | Ty::Bool | Ty::Param(_) | Ty::Unknown)
                    || matches!(ty, Ty::Stack(e, _) if self.header_array_element(e))
                    || ser_enum
                    || newtype_bits
                    || (is_named(NamedKind::Struct) && self.is_flat_bits_struct(ty));
                if !ok && is_named(NamedKind::Struct) {
                    return Some("a struct inside a header may hold only bit<W>, int<W>, bool, serializable enums and such structs (no arrays)");
                }
                (!ok).then_some("header fields must be bit<W>, int<W>, varbit<W>, bool or serializable enums")
            }
            NamedKind::Union => (!(is_named(NamedKind::Header) || matches!(ty, Ty::Param(_) | Ty::Unknown)))
                .then_some("header union members must be headers"),
            NamedKind::Struct => match ty {
                Ty::Void => Some("void is not a field type"),
                Ty::Extern(..) | Ty::Block(..) => Some("externs, parsers and controls cannot be fields"),
                Ty::InfInt => Some("`int` has no storage size"),
                Ty::String => Some("strings cannot be stored"),
                _ => None,
            },
            NamedKind::Enum => None,
        }
    }

    /// An array inside a header holds bits, booleans, flat bit structs or such arrays, or structs
    /// of those (the spec's type nesting table allows arrays in headers and structs in arrays).
    fn header_array_element(&self, e: &Ty) -> bool {
        match e {
            Ty::Bits { .. } | Ty::Bool => true,
            Ty::Stack(inner, _) => self.header_array_element(inner),
            Ty::Named(n) if self.named[*n].kind == NamedKind::Struct => self.named[*n].fields.iter().all(|(_, t)| {
                matches!(t, Ty::Bits { .. } | Ty::Bool) || self.is_new_type_of_bits(t) || self.ser_enum_field(t) || self.header_array_element(t)
            }),
            other => self.is_flat_bits_struct(other),
        }
    }

    /// A serializable enum.
    fn ser_enum_field(&self, t: &Ty) -> bool {
        matches!(t, Ty::Named(e) if self.named[*e].kind == NamedKind::Enum && self.named[*e].underlying.is_some())
    }

    fn struct_has_array(&self, ty: &Ty) -> bool {
        match ty {
            Ty::Stack(..) => true,
            Ty::Named(n) if self.named[*n].kind == NamedKind::Struct => self.named[*n].fields.iter().any(|(_, t)| self.struct_has_array(t)),
            _ => false,
        }
    }

    /// `@p4runtime_translation(uri, width)`: a string URI, then the controller's width (a positive
    /// integer) or `string`.
    fn check_translation(&mut self, a: &ir::Annotation, span: Span) {
        let uri_ok = matches!(a.args.first(), Some(ir::Value::String(_)));
        let width_ok = match a.args.get(1) {
            Some(ir::Value::InfInt(w)) | Some(ir::Value::Bits { value: w, .. }) => w.sign() == num_bigint::Sign::Plus,
            // `string`, or the width as a type (`bit<32>`).
            Some(ir::Value::String(s)) => s == "string" || s.starts_with("bit<"),
            _ => false,
        };
        if a.args.len() != 2 || !uri_ok || !width_ok {
            self.error(span, "`@p4runtime_translation` takes a URI string and the controller's width (a positive integer) or `string`");
        }
    }

    /// A `type` over `bit<W>`, `int<W>` or `bool`, directly or through other `type`s.
    fn is_new_type_of_bits(&self, ty: &Ty) -> bool {
        let mut ty = ty;
        // Each `type` is declared over one declared before it: the chain ends.
        while let Ty::NewType(n) = ty {
            ty = &self.newtypes[*n].underlying;
            if matches!(ty, Ty::Bits { .. } | Ty::Bool) {
                return true;
            }
        }
        false
    }

    /// A struct that may be a header field (spec, "Type nesting rules", note [2]): only
    /// `bit<W>`, `int<W>`, serializable enums, `bool` and such structs; no arrays.
    fn is_flat_bits_struct(&self, ty: &Ty) -> bool {
        match ty {
            Ty::Named(n) => self.named[*n].kind == NamedKind::Struct
                && self.named[*n].fields.iter().all(|(_, t)| {
                    matches!(t, Ty::Bits { .. } | Ty::Bool)
                        || matches!(t, Ty::Named(e) if self.named[*e].kind == NamedKind::Enum && self.named[*e].underlying.is_some())
                        || self.is_new_type_of_bits(t)
                        || self.is_flat_bits_struct(t)
                }),
            _ => false,
        }
    }

    // ------------------------------------------------------------ IR types

    /// The IR form of a type. Types still containing variables become `Void` (check mode only).
    pub fn ir_type(&mut self, t: &Ty) -> ir::Type {
        let t = self.subst.resolve(t);
        match &t {
            Ty::Bool => ir::Type::Bool,
            Ty::Bits { width, signed } => ir::Type::Bits { width: *width, signed: *signed },
            Ty::Varbit(w) => ir::Type::Varbit(*w),
            Ty::InfInt => ir::Type::InfInt,
            Ty::String => ir::Type::String,
            Ty::Error => ir::Type::Error,
            Ty::MatchKind => ir::Type::MatchKind,
            Ty::NewType(n) => {
                let u = self.newtypes[*n].underlying.clone();
                self.ir_type(&u)
            }
            Ty::Stack(e, n) => ir::Type::Stack(Box::new(self.ir_type(e)), *n),
            Ty::Tuple(ts) => ir::Type::Tuple(ts.iter().map(|x| self.ir_type(x)).collect()),
            Ty::List(e) => ir::Type::Tuple(vec![self.ir_type(e)]),
            Ty::Named(_) | Ty::Extern(..) if !t.has_vars() => ir::Type::Named(self.ir_type_id(&t)),
            _ => ir::Type::Void,
        }
    }

    pub fn ir_type_id(&mut self, t: &Ty) -> ir::TypeId {
        if let Some(id) = self.type_ids.get(t) {
            return *id;
        }
        let def = match t {
            Ty::Named(n) => {
                let d = self.named[*n].clone();
                let fields: Vec<ir::FieldDef> = d
                    .fields
                    .iter()
                    .zip(d.field_annotations.iter().chain(std::iter::repeat(&vec![])))
                    .map(|((name, ty), anns)| ir::FieldDef { name: name.clone(), ty: self.ir_type(ty), annotations: anns.clone() })
                    .collect();
                match d.kind {
                    NamedKind::Struct => ir::TypeDef::Struct { name: d.name, fields },
                    NamedKind::Header => ir::TypeDef::Header { name: d.name, fields, annotations: d.annotations },
                    NamedKind::Union => ir::TypeDef::Union { name: d.name, fields },
                    NamedKind::Enum => {
                        let underlying = d.underlying.as_ref().map(|u| self.ir_type(u));
                        ir::TypeDef::Enum { name: d.name, underlying, members: d.members }
                    }
                }
            }
            Ty::Extern(d, args) => {
                let name = self.decls.get(*d).and_then(|x| x.name()).map(|n| n.name.to_string()).unwrap_or_default();
                let type_args = args.iter().map(|a| self.ir_type(a)).collect();
                ir::TypeDef::Extern { name, type_args }
            }
            _ => ir::TypeDef::Struct { name: "<invalid>".into(), fields: vec![] },
        };
        let id = ir::TypeId(self.types.len() as u32);
        self.types.push(def);
        self.type_ids.insert(t.clone(), id);
        id
    }

    // ------------------------------------------------------------ annotations

    /// Structured annotations (`@a[...]`) hold compile-time `int`, string or bool values, with
    /// distinct keys.
    pub fn check_structured_annotation(&mut self, a: &'a ast::Annotation) {
        let exprs: Vec<&'a ast::Expr> = match &a.body {
            ast::AnnotationBody::ExprList(es) => es.iter().collect(),
            ast::AnnotationBody::KeyValue(kvs) => {
                for (i, (k, _)) in kvs.iter().enumerate() {
                    if kvs[..i].iter().any(|(j, _)| j.name == k.name) {
                        self.error(k.span, format!("duplicate key `{}` in structured annotation `@{}`", k.name, a.name.name));
                    }
                }
                kvs.iter().map(|(_, e)| e).collect()
            }
            _ => return,
        };
        for e in exprs {
            let ok = self.expr(e, None).ok().is_some_and(|t| t.val.is_some() && matches!(t.ty, Ty::InfInt | Ty::String | Ty::Bool));
            if !ok {
                self.error(e.span, "structured annotation values must be compile-time `int`, string or bool constants");
            }
        }
    }

    /// What the control plane learns of a key or action parameter of type `ty`: for a `type`
    /// (new type), `@p4runtime_type("Name")` and its `@p4runtime_translation`, as p4info names it.
    pub fn new_type_annotations(&self, ty: &Ty) -> Vec<ir::Annotation> {
        let Ty::NewType(n) = ty else { return Vec::new() };
        let def = &self.newtypes[*n];
        let named = ir::Annotation { name: "p4runtime_type".into(), args: vec![ir::Value::String(def.name.clone())] };
        std::iter::once(named).chain(def.translation.clone()).collect()
    }

    pub fn annotations(&mut self, anns: &'a [ast::Annotation]) -> Vec<ir::Annotation> {
        for a in anns {
            self.check_structured_annotation(a);
        }
        anns.iter()
            .map(|a| {
                let args = match &a.body {
                    ast::AnnotationBody::Empty => vec![],
                    ast::AnnotationBody::Unstructured { text, exprs } => match exprs {
                        Some(es) => es.iter().map(|e| self.annotation_value(e)).collect(),
                        None if text.trim().is_empty() => vec![],
                        None => vec![ir::Value::String(text.clone())],
                    },
                    ast::AnnotationBody::ExprList(es) => es.iter().map(|e| self.annotation_value(e)).collect(),
                    ast::AnnotationBody::KeyValue(kvs) => kvs.iter().map(|(_, e)| self.annotation_value(e)).collect(),
                };
                ir::Annotation { name: a.name.name.to_string(), args }
            })
            .collect()
    }

    fn annotation_value(&mut self, e: &'a ast::Expr) -> ir::Value {
        match &e.kind {
            ast::ExprKind::String(s) => ir::Value::String(s.clone()),
            ast::ExprKind::Int(i) => ir::Value::InfInt(i.value.clone()),
            ast::ExprKind::Bool(b) => ir::Value::Bool(*b),
            _ => {
                // Annotation bodies may mention names we do not resolve; keep their text.
                let n = self.diags.len();
                let v = self.expr(e, None).ok().and_then(|t| t.val);
                self.diags.truncate(n);
                v.unwrap_or_else(|| ir::Value::String(self.text(e.span)))
            }
        }
    }

    /// `@name("...")` if present.
    pub fn name_annotation(anns: &[ast::Annotation]) -> Option<String> {
        anns.iter().find(|a| a.name.name == "name").and_then(|a| match &a.body {
            ast::AnnotationBody::Unstructured { exprs: Some(es), .. } | ast::AnnotationBody::ExprList(es) => match es.first().map(|e| &e.kind) {
                Some(ast::ExprKind::String(s)) => Some(s.clone()),
                _ => None,
            },
            ast::AnnotationBody::Unstructured { text, .. } => Some(text.trim().trim_matches('"').to_string()),
            _ => None,
        })
    }

    /// The control-plane name of an object declared inside `prefix` (honouring `@name`).
    pub fn cp_name(prefix: Option<&str>, anns: &[ast::Annotation], local: &str) -> String {
        let base = Self::name_annotation(anns).unwrap_or_else(|| local.to_string());
        if let Some(abs) = base.strip_prefix('.') {
            return abs.to_string();
        }
        match prefix {
            Some(p) if !p.is_empty() => format!("{p}.{base}"),
            _ => base,
        }
    }

    // ------------------------------------------------------------ top-level declarations

    pub fn declare_all(&mut self, prog: &'a ast::Program) {
        for d in &prog.decls {
            self.top_decl(d);
        }
    }

    fn top_decl(&mut self, d: &'a Decl) {
        let idx = self.decls.len();
        self.decls.push(d);
        let anns: &'a [ast::Annotation] = match d {
            Decl::Const(c) => &c.annotations,
            Decl::Typedef(t) => &t.annotations,
            Decl::StructLike(s) => &s.annotations,
            Decl::Enum(e) => &e.annotations,
            Decl::Extern(e) => &e.annotations,
            Decl::ExternFunction(f) => &f.annotations,
            Decl::Function(f) => &f.proto.annotations,
            Decl::ParserType(b) | Decl::ControlType(b) | Decl::Package(b) => &b.annotations,
            Decl::Instantiation(i) => &i.annotations,
            _ => &[],
        };
        for a in anns {
            self.check_structured_annotation(a);
        }
        // `main` names the program's package instance and nothing else.
        let names_a_type = !matches!(d, Decl::Instantiation(_) | Decl::Function(_) | Decl::Action(_) | Decl::Const(_) | Decl::ExternFunction(_));
        if let Some(n) = d.name().filter(|n| n.name == "main" && names_a_type) {
            self.error(n.span, "`main` must be the instantiation of a package, not a type");
        }
        match d {
            Decl::Const(c) => {
                let ty = self.value_decl_type(&c.ty);
                // An ill-formed type was reported already; its initializer cannot be judged.
                let value = if ty == Ty::Unknown { None } else { self.const_value(&c.value, &ty) };
                if let Some(value) = value {
                    self.declare_global(&c.name, Global::Const { value, ty });
                } else {
                    self.declare_global(&c.name, Global::Const { value: ir::Value::Bool(false), ty: Ty::Unknown });
                }
            }
            Decl::Var(v) => {
                self.error(v.span, "variables cannot be declared at the top level");
            }
            Decl::Typedef(t) => {
                let ty = match &t.ty {
                    ast::TypedefTarget::Type(r) => self.decl_type(r),
                    ast::TypedefTarget::Derived(inner) => {
                        self.top_decl(inner);
                        match inner.name().and_then(|n| self.lookup_global(&n.name)) {
                            Some(Global::Type(t)) => t.clone(),
                            _ => Ty::Unknown,
                        }
                    }
                };
                if matches!(ty, Ty::Void) {
                    self.error(t.span, "cannot define a type as `void`");
                }
                let ty = if t.is_new_type {
                    if !matches!(ty, Ty::Bits { .. } | Ty::Bool | Ty::NewType(_) | Ty::Unknown) {
                        let s = self.show(&ty);
                        self.error(t.span, format!("`type` cannot be defined over `{s}`; only bit<W>, int<W>, bool and other `type`s are allowed"));
                    }
                    let translation = self.annotations(&t.annotations).into_iter().find(|a| a.name == "p4runtime_translation");
                    if let (Some(a), Some(at)) = (&translation, t.annotations.iter().find(|a| a.name.name == "p4runtime_translation")) {
                        self.check_translation(a, at.span);
                    }
                    self.newtypes.push(NewTypeDef { name: t.name.name.to_string(), underlying: ty, translation });
                    Ty::NewType(self.newtypes.len() - 1)
                } else {
                    ty
                };
                self.declare_global(&t.name, Global::Type(ty));
            }
            Decl::StructLike(s) => {
                if !s.type_params.is_empty() {
                    self.declare_global(&s.name, Global::GenericStruct(idx));
                    // Check the body once with opaque parameters.
                    let binds = s.type_params.iter().map(|p| (p.name.to_string(), Ty::Param(p.name.to_string()))).collect();
                    let n = self.named.len();
                    self.with_tparams(binds, |me| me.define_struct(s, s.name.name.to_string()));
                    self.named.truncate(n);
                    return;
                }
                // Declare first so self-reference reports "recursive" rather than "unknown".
                let id = self.define_struct(s, s.name.name.to_string());
                if self.named[id].fields.iter().any(|(_, t)| *t == Ty::Named(id)) {
                    self.error(s.name.span, format!("type `{}` contains itself", s.name.name));
                }
                self.declare_global(&s.name, Global::Type(Ty::Named(id)));
            }
            Decl::Enum(e) => self.enum_decl(e),
            Decl::Error(members, _) => {
                for m in members {
                    if self.errors.iter().any(|e| *e == m.name) {
                        self.error(m.span, format!("duplicate error member `{}`", m.name));
                    } else {
                        self.errors.push(m.name.to_string());
                    }
                }
            }
            Decl::MatchKind(members, _) => {
                for m in members {
                    if self.match_kinds.iter().any(|k| *k == m.name) {
                        self.error(m.span, format!("duplicate match_kind member `{}`", m.name));
                    } else {
                        self.match_kinds.push(m.name.to_string());
                    }
                }
            }
            Decl::Extern(e) => {
                self.declare_global(&e.name, Global::ExternType(idx));
                self.check_extern_decl(e, idx);
            }
            Decl::ExternFunction(f) => {
                self.declare_global(&f.name, Global::ExternFunction(idx));
                self.check_proto(f, &[]);
            }
            Decl::Function(f) => {
                self.check_param_lists(&f.proto.type_params, &[&f.proto.params]);
                self.no_optional_params(&[&f.proto.params]);
                self.constant_defaults(&f.proto.params);
                self.declare_global(&f.proto.name, Global::Function(idx));
                self.check_function(idx, f);
            }
            Decl::Action(a) => {
                self.declare_global(&a.name, Global::Action(idx));
                self.check_global_action(idx, a);
            }
            Decl::ParserType(b) | Decl::ControlType(b) | Decl::Package(b) => {
                self.declare_global(&b.name, Global::BlockType(idx));
                self.check_proto_params(&b.type_params, &b.params);
                // A package may leave out arguments; parsers and controls take them all.
                if !matches!(d, Decl::Package(_)) {
                    self.no_optional_params(&[&b.params]);
                }
            }
            Decl::Parser(p) => {
                self.check_param_lists(&p.ty.type_params, &[&p.ty.params, &p.ctor_params]);
                self.no_optional_params(&[&p.ty.params, &p.ctor_params]);
                self.declare_global(&p.ty.name, Global::Parser(idx));
                self.check_block_decl(idx);
            }
            Decl::Control(c) => {
                self.check_param_lists(&c.ty.type_params, &[&c.ty.params, &c.ctor_params]);
                self.no_optional_params(&[&c.ty.params, &c.ctor_params]);
                self.declare_global(&c.ty.name, Global::Control(idx));
                self.check_block_decl(idx);
            }
            Decl::Instantiation(i) => {
                self.check_top_instantiation(i);
                self.declare_global(&i.name, Global::Instance(idx));
            }
            Decl::Table(t) => self.error(t.span, "tables can only be declared inside controls"),
            Decl::ValueSet(v) => self.error(v.span, "value sets can only be declared inside parsers"),
        }
    }

    fn enum_decl(&mut self, e: &'a ast::EnumDecl) {
        let underlying = e.underlying.as_ref().map(|u| self.resolve_type(u));
        if let Some(u) = &underlying {
            if !matches!(u, Ty::Bits { .. } | Ty::Unknown) {
                let s = self.show(u);
                self.error(e.underlying.as_ref().map(|u| u.span).unwrap_or(e.span), format!("the underlying type of a serializable enum must be bit<W> or int<W>, not `{s}`"));
            }
        }
        let mut members: Vec<(String, Option<BigInt>)> = vec![];
        for (m, v) in &e.members {
            if members.iter().any(|(n, _)| *n == m.name) {
                self.error(m.span, format!("duplicate enum member `{}`", m.name));
                continue;
            }
            let value = match (&underlying, v) {
                (Some(u), Some(v)) => self.const_value(v, u).and_then(|x| crate::consteval::int_of(&x).cloned()),
                (Some(_), None) => {
                    self.error(m.span, format!("member `{}` of a serializable enum needs a value", m.name));
                    None
                }
                (None, Some(v)) => {
                    self.error(v.span, "members of a plain enum cannot have values");
                    None
                }
                (None, None) => None,
            };
            members.push((m.name.to_string(), value));
        }
        let id = self.named.len();
        self.named.push(NamedDef {
            kind: NamedKind::Enum,
            name: e.name.name.to_string(),
            fields: vec![],
            field_annotations: vec![],
            annotations: vec![],
            underlying,
            members,
        });
        let _ = self.ir_type(&Ty::Named(id));
        self.declare_global(&e.name, Global::Type(Ty::Named(id)));
    }

    /// Resolve a constant initializer against its declared type.
    pub fn const_value(&mut self, e: &'a ast::Expr, ty: &Ty) -> Option<ir::Value> {
        let te = self.expr(e, Some(ty)).ok()?;
        let te = self.coerce(te, ty, e.span).ok()?;
        match te.val {
            Some(v) => Some(v),
            None => {
                self.error(e.span, "initializer of a constant must be a compile-time constant");
                None
            }
        }
    }

    fn check_proto_params(&mut self, tps: &'a [ast::Ident], params: &'a [ast::Param]) {
        let binds = tps.iter().map(|p| (p.name.to_string(), Ty::Param(p.name.to_string()))).collect();
        self.check_param_lists(tps, &[params]);
        self.with_tparams(binds, |me| {
            for p in params {
                let t = me.decl_type(&p.ty);
                if t == Ty::Void {
                    me.error(p.ty.span, format!("parameter `{}` cannot have type void", p.name.name));
                }
            }
        });
    }

    fn check_proto(&mut self, f: &'a ast::FunctionProto, outer: &'a [ast::Ident]) {
        let binds = outer.iter().chain(&f.type_params).map(|p| (p.name.to_string(), Ty::Param(p.name.to_string()))).collect();
        self.with_tparams(binds, |me| {
            me.check_proto_params(&f.type_params, &f.params);
            if let Some(r) = &f.ret {
                // p4c: `int` has no runtime representation, so no extern can return it.
                if me.resolve_type(r) == Ty::InfInt {
                    me.error(r.span, "`int` is not a legal return type for an extern function or method");
                }
            }
        });
    }

    fn check_extern_decl(&mut self, e: &'a ast::ExternDecl, _idx: usize) {
        // Methods and constructors may be overloaded by number of parameters and, with the same
        // number, by parameter names: a call tells them apart by its argument names (spec, Extern
        // objects). Two with the same names cannot be told apart by any call. A generic method
        // shares its name and number of parameters with no other (as the reference compiler
        // requires: its argument types are not known before the call).
        let mut seen: Vec<(&str, usize, Vec<&str>, bool)> = vec![];
        for m in &e.methods {
            // A method's type parameter may not reuse a name of the extern's (p4c refuses it).
            for tp in &m.proto.type_params {
                if e.type_params.iter().any(|x| x.name == tp.name) {
                    self.error(tp.span, format!("type parameter `{}` of method `{}` shadows the type parameter `{}` of extern `{}`", tp.name, m.proto.name.name, tp.name, e.name.name));
                }
            }
            let mut names: Vec<&str> = m.proto.params.iter().map(|p| p.name.name.as_str()).collect();
            names.sort();
            let key = (m.proto.name.name.as_str(), m.proto.params.len(), names, !m.proto.type_params.is_empty());
            let clash = seen.iter().find(|s| s.0 == key.0 && s.1 == key.1 && (s.2 == key.2 || s.3 || key.3));
            if let Some(other) = clash {
                let why = if other.2 == key.2 { "and the same parameter names: no call could tell them apart" } else { "where one is generic" };
                self.error(m.proto.name.span, format!("duplicate method `{}` with {} parameter(s) {why} in extern `{}`", key.0, key.1, e.name.name));
            }
            seen.push(key);
            if m.proto.ret.is_none() && !m.proto.type_params.is_empty() {
                self.error(m.proto.name.span, "constructors cannot have type parameters");
            }
            if m.proto.ret.is_some() && m.proto.name.name == e.name.name {
                self.error(m.proto.name.span, format!("constructor `{}` cannot have a return type", e.name.name));
            }
            if m.proto.ret.is_none() && m.proto.name.name != e.name.name {
                self.error(m.proto.name.span, format!("constructor name `{}` differs from extern `{}`", m.proto.name.name, e.name.name));
            }
            // An extern's method cannot take the extern itself (a self-referencing type).
            for p in &m.proto.params {
                if let ast::TypeRefKind::Named(path) | ast::TypeRefKind::Specialized(path, _) = &p.ty.kind {
                    if path.name.name == e.name.name {
                        self.error(p.ty.span, format!("method `{}` of extern `{}` takes an `{}`: an extern cannot refer to itself", m.proto.name.name, e.name.name, e.name.name));
                    }
                }
            }
            self.check_proto(&m.proto, &e.type_params);
        }
    }
}

fn kind_word(k: NamedKind) -> &'static str {
    match k {
        NamedKind::Struct => "struct",
        NamedKind::Header => "header",
        NamedKind::Union => "header_union",
        NamedKind::Enum => "enum",
    }
}

/// A parameter signature after type resolution.
#[derive(Clone, Debug)]
pub struct ParamSig<'a> {
    pub name: String,
    pub dir: Direction,
    pub ty: Ty,
    pub default: Option<&'a ast::Expr>,
    pub optional: bool,
}

impl<'a> Sema<'a> {
    pub fn param_sigs(&mut self, params: &'a [ast::Param]) -> Vec<ParamSig<'a>> {
        params
            .iter()
            .map(|p| ParamSig {
                name: p.name.name.to_string(),
                dir: p.direction,
                ty: self.resolve_type(&p.ty),
                default: p.default.as_ref(),
                optional: p.annotations.iter().any(|a| a.name.name == "optional"),
            })
            .collect()
    }
}

/// The span of a `_` nested anywhere in a written type.
fn dont_care_inside(t: &TypeRef) -> Option<Span> {
    match &t.kind {
        TypeRefKind::DontCare => Some(t.span),
        TypeRefKind::Specialized(_, args) | TypeRefKind::Tuple(args) => args.iter().find_map(dont_care_inside),
        TypeRefKind::Stack(e, _) | TypeRefKind::List(e) => dont_care_inside(e),
        _ => None,
    }
}

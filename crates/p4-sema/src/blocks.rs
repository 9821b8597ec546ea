//! Parsers, controls, actions, functions, tables, value sets and extern instances (§12–§14).
//!
//! Invariant: every variable an action or function uses lives in the frame of the block it runs in
//! (`BlockCx::vars`); top-level actions and functions are lowered once per block that uses them.

use p4_ir::arch::TableProperty as TP;
use crate::sema::{BlockCx, BlockKind, Callable, Global, Local, Sema, R};
use crate::stmt::always_returns;
use crate::types::{NamedKind, Ty};
use p4_ir::{self as ir, Value};
use p4_syntax::ast::{self, Decl, Direction, ExprKind as A};
use p4_syntax::span::Span;
use std::collections::HashMap;

/// Saved lowering state (restored after lowering a nested object).
struct Saved<'a> {
    scopes: Vec<HashMap<String, Local<'a>>>,
    callable: Callable,
    loop_depth: u32,
    tparams: HashMap<String, Ty>,
}

impl<'a> Sema<'a> {
    fn save(&mut self) -> Saved<'a> {
        Saved {
            scopes: std::mem::take(&mut self.scopes),
            callable: self.callable.clone(),
            loop_depth: std::mem::replace(&mut self.loop_depth, 0),
            tparams: self.tparams.clone(),
        }
    }
    fn restore(&mut self, s: Saved<'a>) {
        self.scopes = s.scopes;
        self.callable = s.callable;
        self.loop_depth = s.loop_depth;
        self.tparams = s.tparams;
    }

    /// Run `f` in check mode against a scratch output that is discarded afterwards.
    pub fn in_scratch<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let out = std::mem::take(&mut self.out);
        let cx = self.cx.take();
        let cm = std::mem::replace(&mut self.check_mode, true);
        let saved = self.save();
        let r = f(self);
        self.restore(saved);
        self.check_mode = cm;
        self.cx = cx;
        self.out = out;
        r
    }

    fn new_cx(&mut self, kind: BlockKind, name: String) -> BlockCx {
        let block_ref = match kind {
            BlockKind::Parser => ir::BlockRef::Parser(ir::ParserId(self.out.prog.parsers.len() as u32)),
            BlockKind::Control => ir::BlockRef::Control(ir::ControlId(self.out.prog.controls.len() as u32)),
        };
        // Reserve the slot so nested instances get later ids.
        match kind {
            BlockKind::Parser => self.out.prog.parsers.push(ir::Parser { block: ir::Block::default(), init: vec![], states: vec![], externs: vec![], value_sets: vec![] }),
            BlockKind::Control => self.out.prog.controls.push(ir::Control { block: ir::Block::default(), init: vec![], body: vec![], actions: vec![], tables: vec![], externs: vec![] }),
        }
        BlockCx {
            kind,
            block_ref,
            name,
            vars: vec![],
            actions: vec![],
            tables: vec![],
            externs: vec![],
            value_sets: vec![],
            global_actions: HashMap::new(),
            functions: HashMap::new(),
            direct: HashMap::new(),
            ctor_vars: vec![],
        }
    }

    // ------------------------------------------------------------ check mode entry points

    pub fn check_block_decl(&mut self, idx: usize) {
        let tps = self.type_params_of(idx);
        let binds: HashMap<String, Ty> = tps.iter().map(|p| (p.name.to_string(), Ty::Param(p.name.to_string()))).collect();
        let name = self.decls.get(idx).and_then(|d| d.name()).map(|n| n.name.to_string()).unwrap_or_default();
        self.in_scratch(|me| {
            let _ = me.lower_block(idx, name.to_string(), binds, None);
        });
    }

    pub fn check_function(&mut self, idx: usize, f: &'a ast::FunctionDecl) {
        let targs: Vec<Ty> = f.proto.type_params.iter().map(|p| Ty::Param(p.name.to_string())).collect();
        self.in_scratch(|me| {
            let cx = me.new_cx(BlockKind::Control, String::new());
            me.cx = Some(cx);
            let _ = me.function_instance(idx, targs);
        });
    }

    pub fn check_global_action(&mut self, idx: usize, _a: &'a ast::ActionDecl) {
        self.in_scratch(|me| {
            let cx = me.new_cx(BlockKind::Control, String::new());
            me.cx = Some(cx);
            let _ = me.global_action(idx);
        });
    }

    pub fn check_top_instantiation(&mut self, i: &'a ast::Instantiation) {
        let ty = self.resolve_type(&i.ty);
        self.check_initializer(i, &ty);
        match &ty {
            Ty::Extern(..) => {
                self.in_scratch(|me| {
                    let _ = me.instantiate_extern(&ty, &i.args, i.name.name.to_string(), &i.annotations, i.initializer.as_deref(), i.span);
                });
            }
            Ty::Block(d, _) => match self.decls.get(*d) {
                // `main` is elaborated with the instances it uses; another package instance is
                // checked here, so one `main` does not use is checked too.
                Some(Decl::Package(_)) if i.name.name != "main" => {
                    self.in_scratch(|me| me.check_package_args(&ty, &i.args, i.span));
                }
                Some(Decl::Package(_)) => {}
                Some(Decl::Parser(_) | Decl::Control(_)) => {
                    self.error(i.span, "parsers and controls cannot be instantiated at the top level; instantiate them inside a parser/control or pass them to a package");
                }
                _ => {
                    let s = self.show(&ty);
                    self.error(i.ty.span, format!("`{s}` cannot be instantiated (it is a type declaration without a body)"));
                }
            },
            Ty::Unknown => {}
            other => {
                let s = self.show(other);
                self.error(i.ty.span, format!("`{s}` cannot be instantiated"));
            }
        }
    }

    // ------------------------------------------------------------ blocks

    /// Lower one parser/control instance. `ctor` holds the constructor parameters' bindings (`None` in
    /// check mode: they become read-only variables of unknown value).
    pub fn lower_block(&mut self, idx: usize, name: String, tparams: HashMap<String, Ty>, ctor: Option<Vec<Local<'a>>>) -> R<ir::BlockRef> {
        let decl = self.decls.get(idx).copied().ok_or(())?;
        let (kind, ty, ctor_params, locals) = match decl {
            Decl::Parser(p) => (BlockKind::Parser, &p.ty, &p.ctor_params, &p.locals),
            Decl::Control(c) => (BlockKind::Control, &c.ty, &c.ctor_params, &c.locals),
            _ => return Err(()),
        };
        if self.active_blocks.contains(&idx) {
            self.error(ty.name.span, format!("`{}` instantiates itself (recursive instantiation)", ty.name.name));
            return Err(());
        }
        self.active_blocks.push(idx);
        let r = self.lower_block_inner(idx, decl, kind, ty, ctor_params, locals, name, tparams, ctor);
        self.active_blocks.pop();
        r
    }

    #[allow(clippy::too_many_arguments)]
    fn lower_block_inner(
        &mut self,
        _idx: usize,
        decl: &'a Decl,
        kind: BlockKind,
        ty: &'a ast::BlockTypeDecl,
        ctor_params: &'a [ast::Param],
        locals: &'a [Decl],
        name: String,
        tparams: HashMap<String, Ty>,
        ctor: Option<Vec<Local<'a>>>,
    ) -> R<ir::BlockRef> {
        let saved = self.save();
        let saved_cx = self.cx.take();
        self.tparams = tparams;
        self.scopes = vec![HashMap::new()];
        self.callable = Callable::BlockDecls;
        let cx = self.new_cx(kind, name.clone());
        let block_ref = cx.block_ref.clone();
        self.cx = Some(cx);

        for p in ctor_params {
            let t = self.resolve_type(&p.ty);
            if matches!(&t, Ty::Block(d, _) if matches!(self.decls.get(*d), Some(Decl::Package(_)))) {
                self.error(p.ty.span, "only packages can take packages as parameters");
            }
        }
        match ctor {
            Some(binds) => {
                for (p, b) in ctor_params.iter().zip(binds) {
                    self.bind_local(&p.name, b);
                }
            }
            None => {
                for p in ctor_params {
                    let t = self.resolve_type(&p.ty);
                    if let Ty::Block(d, _) = &t {
                        // Only its type is known while checking; elaboration binds the real instance.
                        self.bind_local(&p.name, Local::Instance { block: None, decl: *d, ty: t.clone() });
                        continue;
                    }
                    let id = self.alloc_var(&p.name.name, &t, ir::VarKind::Local);
                    if let Some(cx) = self.cx.as_mut() {
                        cx.ctor_vars.push(id);
                    }
                    self.bind_local(&p.name, Local::Var { id, ty: t, writable: false });
                }
            }
        }
        let mut params = vec![];
        for p in &ty.params {
            let t = self.resolve_type(&p.ty);
            // A directionless parameter takes a compile-time known value (spec, "Calling convention"), so it may
            // be an `int`; with a direction, an `int` has no storage.
            if matches!(t, Ty::Block(..) | Ty::String) || (t == Ty::InfInt && p.direction != Direction::None) {
                let s = self.show(&t);
                self.error(p.ty.span, format!("`{s}` cannot be the type of a runtime parameter (parsers and controls can only be constructor parameters)"));
            }
            let id = self.alloc_var(&p.name.name, &t, ir::VarKind::Param(p.direction));
            if t == Ty::InfInt {
                if let Some(cx) = self.cx.as_mut() {
                    cx.ctor_vars.push(id);
                }
            }
            let writable = matches!(p.direction, Direction::Out | Direction::InOut);
            self.bind_local(&p.name, Local::Var { id, ty: t, writable });
            params.push(id);
        }
        // The local declarations are in a scope inside the parameters' (as in p4c): a local with a
        // parameter's name shadows it, with a warning, instead of being a duplicate.
        self.scopes.push(HashMap::new());
        // The IR keeps a table per table declaration, for good: room for this block's at once,
        // rather than up to twice what is needed from doubling.
        let tables = locals.iter().filter(|l| matches!(l, Decl::Table(_))).count();
        self.out.prog.tables.reserve_exact(tables);
        let mut init = vec![];
        for l in locals {
            self.block_local(l, kind, &name, &mut init);
        }
        let annotations = self.annotations(&ty.annotations);
        let cx = self.cx.take();
        let Some(cx) = cx else {
            self.restore(saved);
            self.cx = saved_cx;
            return Err(());
        };
        self.cx = Some(cx);
        match decl {
            Decl::Parser(p) => {
                let states = self.parser_states(p);
                let cx = self.cx.take().ok_or(())?;
                let block = ir::Block { name: name.clone(), type_name: ty.name.name.to_string(), vars: cx.vars, params, annotations };
                let parser = ir::Parser { block, init, states, externs: cx.externs, value_sets: cx.value_sets };
                self.diags.extend(crate::uninit::check_parser(&parser));
                if let ir::BlockRef::Parser(id) = &block_ref {
                    if let Some(slot) = self.out.prog.parsers.get_mut(id.index()) {
                        *slot = parser;
                    }
                }
            }
            Decl::Control(c) => {
                self.callable = Callable::ControlApply;
                let body = self.block_stmts(&c.apply.stmts);
                let cx = self.cx.take().ok_or(())?;
                self.diags.extend(crate::uninit::check(&cx.vars, &[&init, &body]));
                let block = ir::Block { name: name.clone(), type_name: ty.name.name.to_string(), vars: cx.vars, params, annotations };
                if let ir::BlockRef::Control(id) = &block_ref {
                    if let Some(slot) = self.out.prog.controls.get_mut(id.index()) {
                        *slot = ir::Control { block, init, body, actions: cx.actions, tables: cx.tables, externs: cx.externs };
                    }
                }
            }
            _ => {}
        }
        self.restore(saved);
        self.cx = saved_cx;
        Ok(block_ref)
    }

    fn block_local(&mut self, l: &'a Decl, kind: BlockKind, prefix: &str, init: &mut Vec<ir::Stmt>) {
        match l {
            Decl::Const(c) => {
                let ty = self.resolve_type(&c.ty);
                if let Some(value) = self.const_value(&c.value, &ty) {
                    self.bind_local(&c.name, Local::Const { value, ty });
                }
            }
            Decl::Var(v) => {
                if let Ok(s) = self.var_decl(v, ir::VarKind::Local) {
                    init.push(s);
                }
            }
            Decl::Instantiation(i) => self.local_instantiation(i, kind, prefix),
            Decl::Action(a) if kind == BlockKind::Control => {
                let name = Self::cp_name(Some(prefix), &a.annotations, &a.name.name);
                if let Ok(id) = self.lower_action(a, name, None) {
                    self.bind_local(&a.name, Local::Action { id, decl: a });
                }
            }
            Decl::Table(t) if kind == BlockKind::Control => {
                if let Ok(id) = self.lower_table(t, prefix) {
                    self.bind_local(&t.name, Local::Table { id });
                }
            }
            Decl::ValueSet(v) if kind == BlockKind::Parser => {
                let elem = self.resolve_type(&v.elem);
                if matches!(elem, Ty::InfInt | Ty::String | Ty::Bool | Ty::Void | Ty::Varbit(_) | Ty::Extern(..) | Ty::Block(..)) {
                    let s = self.show(&elem);
                    self.error(v.elem.span, format!("a value set cannot have elements of type `{s}`"));
                }
                let size = self.const_u32(&v.size, "value set size").unwrap_or(0);
                let name = Self::cp_name(Some(prefix), &v.annotations, &v.name.name);
                let e = self.ir_type(&elem);
                let id = ir::ValueSetId(self.out.prog.value_sets.len() as u32);
                self.out.prog.value_sets.push(ir::ValueSet { name, elem: e, size });
                if let Some(cx) = self.cx.as_mut() {
                    cx.value_sets.push(id);
                }
                self.bind_local(&v.name, Local::ValueSet { id, ty: elem });
            }
            Decl::Function(f) => {
                let idx = self.decls.len();
                self.decls.push(l);
                self.local_functions.insert(idx);
                self.bind_local(&f.proto.name, Local::Function(idx));
            }
            other => {
                let what = match kind {
                    BlockKind::Parser => "parser",
                    BlockKind::Control => "control",
                };
                let sp = other.name().map(|n| n.span).unwrap_or(Span::DUMMY);
                let dk = match other {
                    Decl::Action(_) => "actions",
                    Decl::Table(_) => "tables",
                    Decl::ValueSet(_) => "value sets",
                    _ => "this declaration",
                };
                self.error(sp, format!("{dk} cannot be declared inside a {what}"));
            }
        }
    }

    /// `= { ... }` initializers (abstract method implementations) only exist for extern instances.
    fn check_initializer(&mut self, i: &'a ast::Instantiation, ty: &Ty) {
        if i.initializer.is_some() && !matches!(ty, Ty::Extern(..) | Ty::Unknown) {
            self.error(i.span, format!("only extern instances can have an initializer block (`{}` is not an extern)", i.name.name));
        }
    }

    pub(crate) fn local_instantiation(&mut self, i: &'a ast::Instantiation, kind: BlockKind, prefix: &str) {
        let ty = self.resolve_type(&i.ty);
        self.check_initializer(i, &ty);
        match &ty {
            Ty::Extern(..) => {
                let name = Self::cp_name(Some(prefix), &i.annotations, &i.name.name);
                if let Ok((id, ty)) = self.instantiate_extern(&ty, &i.args, name, &i.annotations, i.initializer.as_deref(), i.span) {
                    self.bind_local(&i.name, Local::Extern { id, ty });
                }
            }
            Ty::Block(d, targs) => {
                let d = *d;
                let sub_kind = match self.decls.get(d) {
                    Some(Decl::Parser(_)) => BlockKind::Parser,
                    Some(Decl::Control(_)) => BlockKind::Control,
                    _ => {
                        self.error(i.ty.span, "only parsers, controls and externs can be instantiated here");
                        return;
                    }
                };
                if sub_kind != kind {
                    let msg = match kind {
                        BlockKind::Parser => "controls cannot be instantiated inside parsers",
                        BlockKind::Control => "parsers cannot be instantiated inside controls",
                    };
                    self.error(i.span, msg);
                    return;
                }
                if self.active_blocks.contains(&d) {
                    self.error(i.span, format!("`{}` instantiates itself (recursive instantiation)", i.name.name));
                    self.bind_local(&i.name, Local::Instance { block: None, decl: d, ty: ty.clone() });
                    return;
                }
                let block = if self.check_mode {
                    for a in &i.args {
                        // Parser/control instances and extern instantiations passed on are
                        // checked when elaborated.
                        if !self.is_block_arg(&a.value) && !self.is_extern_construction(&a.value) {
                            let _ = self.expr(&a.value, None);
                        }
                    }
                    None
                } else {
                    let targs: Vec<Ty> = targs.iter().map(|t| self.subst.resolve(t)).collect();
                    let name = Self::cp_name(Some(prefix), &i.annotations, &i.name.name);
                    self.instantiate_block(d, targs, &i.args, name, i.span).ok()
                };
                self.bind_local(&i.name, Local::Instance { block, decl: d, ty });
            }
            Ty::Unknown => {}
            other => {
                let s = self.show(other);
                self.error(i.ty.span, format!("`{s}` cannot be instantiated"));
            }
        }
    }

    /// Elaborate a parser/control with constructor arguments evaluated in the current scope.
    pub fn instantiate_block(&mut self, d: usize, targs: Vec<Ty>, args: &'a [ast::Arg], name: String, span: Span) -> R<ir::BlockRef> {
        let (tps, ctor_params) = match self.decls.get(d).copied() {
            Some(Decl::Parser(p)) => (&p.ty.type_params, &p.ctor_params),
            Some(Decl::Control(c)) => (&c.ty.type_params, &c.ctor_params),
            _ => return Err(()),
        };
        let binds = Self::bind_params(tps, &targs);
        let sigs = self.with_tparams(binds.clone(), |me| me.param_sigs(ctor_params));
        let slots = self.match_ctor_args(&sigs, args, span)?;
        let mut locals = vec![];
        for (s, e) in sigs.iter().zip(slots) {
            let Some(e) = e else {
                locals.push(Local::Const { value: Value::Bool(false), ty: Ty::Unknown });
                continue;
            };
            let st = self.subst.resolve(&s.ty);
            match &st {
                Ty::Extern(..) => {
                    let (id, ty) = self.ctor_extern_arg(e, &format!("{name}.{}", s.name))?;
                    locals.push(Local::Extern { id, ty });
                }
                Ty::Block(..) => locals.push(self.ctor_block_arg(e, &st, &format!("{name}.{}", s.name))?),
                _ => {
                    let v = self.const_value(e, &st).ok_or(())?;
                    locals.push(Local::Const { value: v, ty: st });
                }
            }
        }
        // Type arguments not given explicitly are inferred from the constructor arguments.
        let binds: HashMap<String, Ty> = binds.into_iter().map(|(k, t)| (k, self.subst.resolve(&t))).collect();
        if binds.values().any(Ty::has_vars) {
            self.warn(span, "unsupported: the type arguments of this instance could not be inferred from its constructor arguments");
            self.unsupported = true;
            return Err(());
        }
        let locals = locals
            .into_iter()
            .map(|l| match l {
                Local::Const { value, ty } => Local::Const { value, ty: self.subst.resolve(&ty) },
                other => other,
            })
            .collect();
        self.lower_block(d, name, binds, Some(locals))
    }

    /// A constructor argument of parser/control type: a parser/control instance of the enclosing
    /// block or an inline instantiation `C()`. The callee applies it like one of its own instances.
    fn ctor_block_arg(&mut self, e: &'a ast::Expr, param: &Ty, name: &str) -> R<Local<'a>> {
        if let Some(Local::Instance { block, decl, ty }) = self.name_local(e) {
            self.unify_block_types(param, &ty, e.span)?;
            return Ok(Local::Instance { block, decl, ty });
        }
        let (callee, targs, args) = match &e.kind {
            A::Construct { ty, args } => match &ty.kind {
                ast::TypeRefKind::Named(p) => (p, vec![], args),
                ast::TypeRefKind::Specialized(p, ts) => (p, ts.iter().map(|t| self.resolve_type(t)).collect(), args),
                _ => return self.bad_block_arg(e),
            },
            A::Call { callee, type_args, args } => match &callee.kind {
                A::Name(p) => (p, type_args.iter().map(|t| self.resolve_type(t)).collect(), args),
                _ => return self.bad_block_arg(e),
            },
            _ => return self.bad_block_arg(e),
        };
        let Some(Global::Parser(d) | Global::Control(d)) = self.lookup_global(&callee.name.name).cloned() else {
            return self.bad_block_arg(e);
        };
        let tps = self.type_params_of(d);
        let targs: Vec<Ty> = if targs.is_empty() { tps.iter().map(|_| self.fresh()).collect() } else { targs };
        let ty = Ty::Block(d, targs.clone());
        self.unify_block_types(param, &ty, e.span)?;
        let targs: Vec<Ty> = targs.iter().map(|t| self.subst.resolve(t)).collect();
        let block = self.instantiate_block(d, targs.clone(), args, name.to_string(), e.span)?;
        Ok(Local::Instance { block: Some(block), decl: d, ty: Ty::Block(d, targs) })
    }

    /// True for an argument that is a parser/control instance or instantiation.
    fn is_block_arg(&self, e: &ast::Expr) -> bool {
        if let A::Name(_) = &e.kind {
            return matches!(self.name_local(e), Some(Local::Instance { .. }));
        }
        constructed(e).is_some_and(|p| matches!(self.lookup_global(&p.name.name), Some(Global::Parser(_) | Global::Control(_))))
    }

    /// Whether `e` makes an extern instance (`Y(arg)` passed as a constructor argument).
    fn is_extern_construction(&self, e: &ast::Expr) -> bool {
        constructed(e).is_some_and(|p| matches!(self.lookup_global(&p.name.name), Some(Global::ExternType(_))))
    }

    fn bad_block_arg<T>(&mut self, e: &ast::Expr) -> R<T> {
        self.error(e.span, "expected a parser or control instance or instantiation");
        Err(())
    }

    /// A constructor argument of extern type: an inline instantiation or a named instance.
    pub fn ctor_extern_arg(&mut self, e: &'a ast::Expr, name: &str) -> R<(ir::ExternId, Ty)> {
        match &e.kind {
            A::Construct { ty, args } => {
                let t = self.resolve_type(ty);
                self.instantiate_extern(&t, args, name.to_string(), &[], None, e.span)
            }
            A::Call { callee, type_args, args } => {
                let A::Name(p) = &callee.kind else {
                    self.error(e.span, "expected an extern instantiation");
                    return Err(());
                };
                let t = match self.lookup_global(&p.name.name) {
                    Some(Global::ExternType(d)) => {
                        let d = *d;
                        let targs = self.explicit_or_fresh(self.type_params_of(d), type_args, e.span)?;
                        Ty::Extern(d, targs)
                    }
                    // An extern function returning an extern object (a factory) is valid P4, but
                    // the object it makes is target-defined.
                    Some(Global::ExternFunction(_)) => {
                        let te = self.expr(e, None)?;
                        if !matches!(self.subst.resolve(&te.ty), Ty::Extern(..)) {
                            self.error(e.span, "expected an extern instance");
                            return Err(());
                        }
                        self.warn(e.span, format!("unsupported: extern objects made by extern function `{}`", p.name.name));
                        self.unsupported = true;
                        return Err(());
                    }
                    _ => {
                        self.error(e.span, format!("`{}` is not an extern type", p.name.name));
                        return Err(());
                    }
                };
                self.instantiate_extern(&t, args, name.to_string(), &[], None, e.span)
            }
            _ => {
                let te = self.expr(e, None)?;
                match te.kind {
                    ir::ExprKind::Extern(id) => Ok((id, te.ty)),
                    _ => {
                        self.error(e.span, "expected an extern instance");
                        Err(())
                    }
                }
            }
        }
    }

    pub fn match_ctor_args(&mut self, sigs: &[crate::sema::ParamSig<'a>], args: &'a [ast::Arg], span: Span) -> R<Vec<Option<&'a ast::Expr>>> {
        let mut slots: Vec<Option<&'a ast::Expr>> = vec![None; sigs.len()];
        if args.iter().any(|a| a.name.is_some()) {
            for a in args {
                let Some(i) = a.name.as_ref().and_then(|n| sigs.iter().position(|s| s.name == n.name)) else {
                    self.error(a.span, "unknown or missing argument name");
                    return Err(());
                };
                slots[i] = Some(&a.value);
            }
        } else {
            if args.len() > sigs.len() {
                self.error(span, format!("expected {} constructor argument(s), found {}", sigs.len(), args.len()));
                return Err(());
            }
            for (i, a) in args.iter().enumerate() {
                slots[i] = Some(&a.value);
            }
        }
        for (i, s) in sigs.iter().enumerate() {
            if slots[i].is_none() {
                slots[i] = s.default;
                if slots[i].is_none() && !s.optional {
                    self.error(span, format!("expected {} constructor argument(s), found {}", sigs.len(), args.len()));
                    return Err(());
                }
            }
        }
        Ok(slots)
    }

    // ------------------------------------------------------------ parser states

    fn parser_states(&mut self, p: &'a ast::ParserDecl) -> Vec<ir::ParserState> {
        let mut names: Vec<&str> = vec![];
        for s in &p.states {
            if s.name.name == "accept" || s.name.name == "reject" {
                self.error(s.name.span, format!("state `{}` is predefined and cannot be declared", s.name.name));
            } else if names.contains(&s.name.name.as_str()) {
                self.error(s.name.span, format!("duplicate state `{}`", s.name.name));
            }
            names.push(&s.name.name);
        }
        // `start` first, the others in declaration order.
        let mut order: Vec<&'a ast::ParserState> = p.states.iter().filter(|s| s.name.name == "start").take(1).collect();
        if order.is_empty() {
            self.error(p.ty.name.span, format!("parser `{}` has no `start` state", p.ty.name.name));
        }
        let mut seen = vec!["start".to_string()];
        for s in &p.states {
            if !seen.iter().any(|x| *x == s.name.name) && s.name.name != "accept" && s.name.name != "reject" {
                seen.push(s.name.name.to_string());
                order.push(s);
            }
        }
        let ids: HashMap<String, ir::StateId> = order.iter().enumerate().map(|(i, s)| (s.name.name.to_string(), ir::StateId(i as u32))).collect();
        let mut out = vec![];
        for s in order {
            self.callable = Callable::ParserState;
            self.scopes.push(HashMap::new());
            let mut body = vec![];
            for st in &s.body {
                self.stmt(st, &mut body);
            }
            let transition = match &s.transition {
                None => ir::Transition::Goto(ir::StateTarget::Reject),
                Some(t) => self.transition(t, &ids).unwrap_or(ir::Transition::Goto(ir::StateTarget::Reject)),
            };
            self.scopes.pop();
            out.push(ir::ParserState { name: s.name.name.to_string(), body, transition, span: s.span });
        }
        if !out.is_empty() && !can_finish(&out) {
            self.error(p.ty.name.span, format!("parser `{}` can never reach `accept` or `reject`", p.ty.name.name));
        }
        out
    }

    fn state_target(&mut self, p: &ast::Path, ids: &HashMap<String, ir::StateId>) -> R<ir::StateTarget> {
        match p.name.name.as_str() {
            "accept" => Ok(ir::StateTarget::Accept),
            "reject" => Ok(ir::StateTarget::Reject),
            n => match ids.get(n) {
                Some(id) => Ok(ir::StateTarget::State(*id)),
                None => {
                    self.error(p.name.span, format!("transition to unknown state `{n}`"));
                    Err(())
                }
            },
        }
    }

    fn transition(&mut self, t: &'a ast::Transition, ids: &HashMap<String, ir::StateId>) -> R<ir::Transition> {
        match t {
            ast::Transition::Direct(p, _) => Ok(ir::Transition::Goto(self.state_target(p, ids)?)),
            ast::Transition::Select { exprs, cases, .. } => {
                let mut keys = vec![];
                let mut key_tys = vec![];
                for e in exprs {
                    let te = self.expr(e, None)?;
                    let t = self.subst.resolve(&te.ty);
                    if matches!(t, Ty::InfInt) && te.val.is_none() {
                        self.error(e.span, "select keys need a width");
                    }
                    let bad = matches!(t, Ty::Varbit(_) | Ty::String | Ty::Stack(..) | Ty::Extern(..) | Ty::Block(..) | Ty::Void)
                        || matches!(&t, Ty::Named(n) if matches!(self.named[*n].kind, NamedKind::Header | NamedKind::Union));
                    if bad {
                        let s = self.show(&t);
                        self.error(e.span, format!("a select key cannot have type `{s}`"));
                        return Err(());
                    }
                    key_tys.push(t);
                    keys.push(self.lower_te(te));
                }
                let mut out = vec![];
                let mut failed = false;
                for c in cases {
                    let ks = self.keysets(&c.keyset, &key_tys, true);
                    let target = self.state_target(&c.next, ids);
                    match (ks, target) {
                        (Ok(keysets), Ok(target)) => out.push(ir::SelectCase { keysets, target }),
                        _ => failed = true,
                    }
                }
                if failed {
                    return Err(());
                }
                Ok(ir::Transition::Select { keys, cases: out })
            }
        }
    }

    /// A keyset (select case or table entry) against the key types.
    pub fn keysets(&mut self, e: &'a ast::Expr, key_tys: &[Ty], allow_value_sets: bool) -> R<Vec<ir::Keyset>> {
        match &e.kind {
            A::Default | A::DontCare => Ok(vec![ir::Keyset::Any; key_tys.len()]),
            A::Tuple(items) | A::List(items) if key_tys.len() != 1 || items.len() == 1 => {
                if items.len() != key_tys.len() {
                    self.error(e.span, format!("keyset has {} components but there are {} keys", items.len(), key_tys.len()));
                    return Err(());
                }
                let mut out = vec![];
                let mut ok = true;
                for (it, t) in items.iter().zip(key_tys) {
                    match self.keyset(it, t, allow_value_sets) {
                        Ok(k) => out.push(k),
                        Err(()) => ok = false,
                    }
                }
                if ok {
                    Ok(out)
                } else {
                    Err(())
                }
            }
            _ => {
                if key_tys.len() != 1 {
                    // A value set over a struct matches all keys at once.
                    if let Some(Local::ValueSet { id, ty }) = self.name_local(e) {
                        if allow_value_sets {
                            if !self.value_set_fits(&ty, key_tys) {
                                let a = self.show(&ty);
                                self.error(e.span, format!("value set of `{a}` does not match the {} select keys", key_tys.len()));
                                return Err(());
                            }
                            return Ok(vec![ir::Keyset::ValueSet(id)]);
                        }
                    }
                    self.error(e.span, format!("keyset has 1 component but there are {} keys", key_tys.len()));
                    return Err(());
                }
                Ok(vec![self.keyset(e, &key_tys[0], allow_value_sets)?])
            }
        }
    }

    fn keyset(&mut self, e: &'a ast::Expr, t: &Ty, allow_value_sets: bool) -> R<ir::Keyset> {
        match &e.kind {
            A::Default | A::DontCare => Ok(ir::Keyset::Any),
            // Masks and ranges must be compile-time known, in select cases too (p4c).
            A::Mask(a, b) => {
                let x = self.key_const(a, t, false)?;
                let y = self.key_const(b, t, false)?;
                Ok(ir::Keyset::Mask(x, y))
            }
            A::Range(a, b) => {
                let x = self.key_const(a, t, false)?;
                let y = self.key_const(b, t, false)?;
                let bound = |e: &ir::Expr| match &e.kind {
                    ir::ExprKind::Const(v) => crate::consteval::int_of(v).cloned(),
                    _ => None,
                };
                if let (Some(lo), Some(hi)) = (bound(&x), bound(&y)) {
                    if hi < lo {
                        self.error(e.span, format!("empty range: its end ({hi}) is less than its start ({lo})"));
                        return Err(());
                    }
                }
                Ok(ir::Keyset::Range(x, y))
            }
            _ => {
                if let Some(Local::ValueSet { id, ty }) = self.name_local(e) {
                    if !allow_value_sets {
                        self.error(e.span, "value sets can only be used in select cases");
                        return Err(());
                    }
                    if !self.value_set_fits(&ty, std::slice::from_ref(t)) {
                        let (a, b) = (self.show(&ty), self.show(t));
                        self.error(e.span, format!("value set of `{a}` used for a key of type `{b}`"));
                        return Err(());
                    }
                    return Ok(ir::Keyset::ValueSet(id));
                }
                Ok(ir::Keyset::Value(self.key_const(e, t, allow_value_sets)?))
            }
        }
    }

    /// A keyset component. Table entries need compile-time constants; select cases (`in_select`)
    /// may use run-time values, as p4c accepts.
    /// A value set's element matches the select keys if it has their type, or is a struct (or
    /// tuple) whose fields have the keys' types in order.
    fn value_set_fits(&mut self, elem: &Ty, key_tys: &[Ty]) -> bool {
        if let [one] = key_tys {
            if self.unify(elem, one) {
                return true;
            }
        }
        let fields: Vec<Ty> = match self.subst.resolve(elem) {
            Ty::Named(n) if self.named[n].kind == NamedKind::Struct => self.named[n].fields.iter().map(|(_, t)| t.clone()).collect(),
            Ty::Tuple(ts) => ts,
            _ => return false,
        };
        fields.len() == key_tys.len() && fields.iter().zip(key_tys).all(|(f, k)| self.value_set_field_fits(f, k))
    }

    /// A value-set struct field matches one select key: the key's type, or (as p4c accepts) a
    /// struct wrapping a single such field.
    fn value_set_field_fits(&mut self, field: &Ty, key: &Ty) -> bool {
        if self.unify(field, key) {
            return true;
        }
        match self.subst.resolve(field) {
            Ty::Named(n) if self.named[n].kind == NamedKind::Struct && self.named[n].fields.len() == 1 => {
                let inner = self.named[n].fields[0].1.clone();
                self.value_set_field_fits(&inner, key)
            }
            _ => false,
        }
    }

    fn key_const(&mut self, e: &'a ast::Expr, t: &Ty, in_select: bool) -> R<ir::Expr> {
        // p4c: keyset expressions cannot call functions (not even ones returning a constant).
        if let A::Call { callee, .. } = &e.kind {
            if matches!(callee.kind, A::Name(_)) {
                self.error(e.span, "function calls are not allowed in keyset expressions");
                return Err(());
            }
        }
        if let (A::Int(lit), Ty::Bits { width, signed }) = (&e.kind, t) {
            let fits = crate::consteval::fits(*width, *signed, &lit.value) || (!*signed && lit.value < num_bigint::BigInt::from(0) && crate::consteval::fits(*width, true, &lit.value));
            if lit.width.is_none() && !fits {
                self.error(e.span, format!("value {} does not fit in the key's {} bits", lit.value, width));
                return Err(());
            }
        }
        let te = self.expr(e, Some(t))?;
        // p4c: a serializable-enum key also matches values of the enum's underlying type
        // (e.g. `(bit<16>)E.A &&& 0xff00`).
        let underlying = match t {
            Ty::Named(n) if self.named[*n].kind == NamedKind::Enum => self.named[*n].underlying.clone(),
            _ => None,
        };
        let target = match underlying {
            Some(u) if matches!(self.subst.resolve(&te.ty), Ty::InfInt) || self.subst.resolve(&te.ty) == u => u,
            _ => t.clone(),
        };
        let te = self.coerce(te, &target, e.span)?;
        let x = self.lower_te(te);
        if !matches!(x.kind, ir::ExprKind::Const(_)) && !in_select && !self.is_ctor_param_var(&x) {
            self.error(e.span, "keyset values must be compile-time constants");
            return Err(());
        }
        Ok(x)
    }

    // ------------------------------------------------------------ actions and functions

    /// Lower an action into the current block. `global` is the declaration index of a top-level action.
    pub fn lower_action(&mut self, a: &'a ast::ActionDecl, name: String, global: Option<usize>) -> R<ir::ActionId> {
        self.claim_action_cp_name(&name, a);
        self.check_param_lists(&[], &[&a.params]);
        self.no_optional_params(&[&a.params]);
        self.constant_defaults(&a.params);
        let id = ir::ActionId(self.out.prog.actions.len() as u32);
        let block = self.cx.as_ref().map(|c| c.block_ref.clone()).ok_or(())?;
        self.out.prog.actions.push(ir::Action { name: name.clone(), block: block.clone(), params: vec![], body: vec![], annotations: vec![] });
        let saved = self.save();
        if global.is_some() {
            self.scopes = vec![];
            self.tparams.clear();
        } else {
            self.scopes = saved.scopes.clone();
        }
        self.scopes.push(HashMap::new());
        self.callable = Callable::Action;
        let mut params = vec![];
        let mut seen_directionless = false;
        for p in &a.params {
            let t = self.resolve_type(&p.ty);
            if p.direction == Direction::None {
                seen_directionless = true;
            } else if seen_directionless {
                self.error(p.span, "directionless action parameters must come after all directional ones");
            }
            let bad = match &t {
                Ty::Extern(..) | Ty::Block(..) => Some("externs, parsers and controls"),
                Ty::InfInt => Some("`int` values"),
                Ty::String => Some("strings"),
                Ty::Named(n) if p.direction == Direction::None && self.named[*n].kind != NamedKind::Enum => Some("structs and headers (as action data)"),
                Ty::Stack(..) | Ty::Tuple(_) | Ty::List(_) if p.direction == Direction::None => Some("stacks and tuples (as action data)"),
                _ => None,
            };
            if let Some(what) = bad {
                self.error(p.ty.span, format!("action parameters cannot be {what}"));
            }
            let short = name.rsplit('.').next().unwrap_or(&name).to_string();
            let var = self.alloc_var(&format!("{short}.{}", p.name.name), &t, ir::VarKind::CallParam(p.direction));
            let writable = matches!(p.direction, Direction::Out | Direction::InOut);
            self.bind_local(&p.name, Local::Var { id: var, ty: t.clone(), writable });
            let ty = self.ir_type(&t);
            let mut annotations = self.annotations(&p.annotations);
            annotations.extend(self.new_type_annotations(&t));
            params.push(ir::Param { name: p.name.name.to_string(), ty, direction: p.direction, var, annotations });
        }
        if let Some(id) = duplicate_id(params.iter().map(|p| &p.annotations[..])) {
            self.error(a.name.span, format!("two parameters of this action have @id({id}): parameter ids must differ"));
        }
        if let Some(d) = global {
            self.active.push(d);
        }
        let body = self.block_stmts(&a.body.stmts);
        if global.is_some() {
            self.active.pop();
        }
        self.restore(saved);
        if let Some(cx) = &self.cx {
            self.diags.extend(crate::uninit::check(&cx.vars, &[&body]));
        }
        let annotations = self.annotations(&a.annotations);
        if let Some(slot) = self.out.prog.actions.get_mut(id.index()) {
            *slot = ir::Action { name, block, params, body, annotations };
        }
        if let Some(cx) = self.cx.as_mut() {
            cx.actions.push(id);
        }
        Ok(id)
    }

    /// The per-block copy of a top-level action.
    pub fn global_action(&mut self, d: usize) -> R<ir::ActionId> {
        if let Some(id) = self.cx.as_ref().and_then(|c| c.global_actions.get(&d)) {
            return Ok(*id);
        }
        let Some(Decl::Action(a)) = self.decls.get(d).copied() else { return Err(()) };
        if self.active.contains(&d) {
            self.error(a.name.span, format!("action `{}` is recursive", a.name.name));
            return Err(());
        }
        let name = Self::cp_name(None, &a.annotations, &a.name.name);
        let id = self.lower_action(a, name, Some(d))?;
        if let Some(cx) = self.cx.as_mut() {
            cx.global_actions.insert(d, id);
        }
        Ok(id)
    }

    /// The per-block, per-type-argument copy of a top-level function.
    pub fn function_instance(&mut self, d: usize, targs: Vec<Ty>) -> R<ir::FunctionId> {
        let key = (d, targs.clone());
        if let Some(id) = self.cx.as_ref().and_then(|c| c.functions.get(&key)) {
            return Ok(*id);
        }
        let Some(Decl::Function(f)) = self.decls.get(d).copied() else { return Err(()) };
        let block = self.cx.as_ref().map(|c| c.block_ref.clone()).ok_or(())?;
        let id = ir::FunctionId(self.out.prog.functions.len() as u32);
        let name = f.proto.name.name.clone();
        self.out.prog.functions.push(ir::Function { name: name.to_string(), block: block.clone(), params: vec![], ret: ir::Type::Void, ret_var: None, body: vec![] });
        if let Some(cx) = self.cx.as_mut() {
            cx.functions.insert(key, id);
        }
        let saved = self.save();
        if self.local_functions.contains(&d) {
            // A function declared in a block sees the block's declarations, like its actions.
            self.scopes = saved.scopes.clone();
            self.scopes.push(HashMap::new());
            self.tparams = saved.tparams.clone();
            self.tparams.extend(Self::bind_params(&f.proto.type_params, &targs));
        } else {
            self.scopes = vec![HashMap::new()];
            self.tparams = Self::bind_params(&f.proto.type_params, &targs);
        }
        let ret = f.proto.ret.as_ref().map(|r| self.resolve_type(r)).unwrap_or(Ty::Void);
        if matches!(ret, Ty::Extern(..) | Ty::Block(..) | Ty::String) {
            let s = self.show(&ret);
            self.error(f.proto.name.span, format!("a function cannot return `{s}`"));
        }
        for p in &f.proto.params {
            let t = self.resolve_type(&p.ty);
            if matches!(t, Ty::Block(..) | Ty::String) {
                let s = self.show(&t);
                self.error(p.ty.span, format!("function parameters cannot have type `{s}`"));
            }
        }
        self.callable = Callable::Function { ret: ret.clone() };
        let mut params = vec![];
        for p in &f.proto.params {
            let t = self.resolve_type(&p.ty);
            let var = self.alloc_var(&format!("{name}.{}", p.name.name), &t, ir::VarKind::CallParam(p.direction));
            let writable = matches!(p.direction, Direction::Out | Direction::InOut);
            self.bind_local(&p.name, Local::Var { id: var, ty: t.clone(), writable });
            let ty = self.ir_type(&t);
            let annotations = self.annotations(&p.annotations);
            params.push(ir::Param { name: p.name.name.to_string(), ty, direction: p.direction, var, annotations });
        }
        let ret_var = (ret != Ty::Void).then(|| self.alloc_var(&format!("{name}.return"), &ret, ir::VarKind::Return));
        self.active.push(d);
        let errors_before = self.error_count();
        let body = self.block_stmts(&f.body.stmts);
        self.active.pop();
        if ret != Ty::Void && !always_returns(&body) && self.error_count() == errors_before {
            self.error(f.proto.name.span, format!("function `{name}` does not return a value on every path"));
        }
        self.restore(saved);
        let ret_ir = self.ir_type(&ret);
        if let Some(slot) = self.out.prog.functions.get_mut(id.index()) {
            *slot = ir::Function { name: name.to_string(), block, params, ret: ret_ir, ret_var, body };
        }
        Ok(id)
    }

    // ------------------------------------------------------------ externs

    /// Instantiate an extern object: pick the constructor by argument count, evaluate the arguments,
    /// infer missing type arguments.
    pub fn instantiate_extern(
        &mut self,
        ty: &Ty,
        args: &'a [ast::Arg],
        name: String,
        anns: &'a [ast::Annotation],
        initializer: Option<&'a [Decl]>,
        span: Span,
    ) -> R<(ir::ExternId, Ty)> {
        let Ty::Extern(d, targs) = ty else { return Err(()) };
        let Some(Decl::Extern(ext)) = self.decls.get(*d).copied() else { return Err(()) };
        self.check_abstract_impls(ext, initializer, span);
        let ctors: Vec<&'a ast::FunctionProto> = ext.methods.iter().filter(|m| m.proto.ret.is_none()).map(|m| &m.proto).collect();
        let ctor_args: Vec<Option<Value>> = if ctors.is_empty() {
            if !args.is_empty() {
                self.error(span, format!("extern `{}` has no constructor taking arguments", ext.name.name));
                return Err(());
            }
            // An extern without declared constructors has an implicit one without parameters.
            vec![]
        } else {
            // Constructors overloaded with the same number of parameters are told apart by the
            // names of the arguments (spec, Extern objects).
            let named: Vec<&str> = args.iter().filter_map(|a| a.name.as_ref().map(|n| n.name.as_str())).collect();
            let by_name: Vec<&'a ast::FunctionProto> =
                ctors.iter().copied().filter(|p| named.iter().all(|n| p.params.iter().any(|x| x.name.name == *n))).collect();
            let ctors = if by_name.is_empty() { ctors } else { by_name };
            let proto = match ctors.iter().find(|p| p.params.len() == args.len()) {
                Some(p) => *p,
                None => match ctors.iter().find(|p| p.params.len() >= args.len() && p.params.iter().skip(args.len()).all(|x| x.default.is_some() || x.annotations.iter().any(|a| a.name.name == "optional"))) {
                    Some(p) => *p,
                    None => {
                        let counts: Vec<String> = ctors.iter().map(|p| p.params.len().to_string()).collect();
                        self.error(span, format!("`{}` constructor expects {} argument(s), found {}", ext.name.name, counts.join(" or "), args.len()));
                        return Err(());
                    }
                },
            };
            let binds = Self::bind_params(&ext.type_params, targs);
            let sigs = self.with_tparams(binds, |me| me.param_sigs(&proto.params));
            for (s, p) in sigs.iter().zip(&proto.params) {
                if matches!(s.ty, Ty::Block(..)) {
                    let t = self.show(&s.ty);
                    self.error(p.ty.span, format!("extern constructor parameter `{}` cannot have type `{t}`", s.name));
                    return Err(());
                }
            }
            let slots = self.match_ctor_args(&sigs, args, span)?;
            let mut vals = vec![];
            for (s, e) in sigs.iter().zip(slots) {
                match e {
                    None => vals.push(None),
                    Some(e) => {
                        let pt = self.subst.resolve(&s.ty);
                        // An extern instance as a constructor argument (`Hash(poly = CRCPolynomial(...))`,
                        // `Hash(matrix = m)`): checked for its extern type; not elaborated.
                        if let Ty::Extern(pd, _) = &pt {
                            let ok = match &e.kind {
                                A::Call { callee, .. } => matches!(&callee.kind, A::Name(p) if matches!(self.lookup_global(&p.name.name), Some(Global::ExternType(x)) if x == pd)),
                                A::Construct { .. } => true,
                                _ => matches!(self.expr(e, None).map(|t| self.subst.resolve(&t.ty)), Ok(Ty::Extern(x, _)) if x == *pd),
                            };
                            if !ok {
                                let t = self.show(&pt);
                                self.error(e.span, format!("argument `{}` must be an instance of `{t}`", s.name));
                                return Err(());
                            }
                            if !self.check_mode {
                                self.warn(e.span, "unsupported: an extern instance as a constructor argument of an extern");
                                self.unsupported = true;
                            }
                            vals.push(None);
                            continue;
                        }
                        let te = self.expr(e, Some(&pt))?;
                        if te.ty == Ty::InfInt && matches!(pt, Ty::Infer(_)) {
                            self.error(e.span, "cannot infer the width of this argument; give the literal a width");
                            return Err(());
                        }
                        let te = self.coerce(te, &pt, e.span)?;
                        match te.val {
                            Some(v) => vals.push(Some(v)),
                            None if self.check_mode => vals.push(None),
                            None => {
                                self.error(e.span, "constructor arguments must be compile-time constants");
                                return Err(());
                            }
                        }
                    }
                }
            }
            vals
        };
        let targs: Vec<Ty> = targs.iter().map(|t| self.subst.resolve(t)).collect();
        // With no arguments there is nothing to infer type arguments from, in generic code too.
        if targs.iter().any(|t| matches!(t, Ty::Infer(_))) && (!self.check_mode || args.is_empty()) {
            self.error(span, format!("cannot infer the type arguments of `{}`; write them explicitly", ext.name.name));
            return Err(());
        }
        // An extern's type argument cannot hold the extern itself (p4c: "contains self").
        if targs.iter().any(|t| contains_extern(t, *d)) {
            self.error(span, format!("`{}` cannot be its own type argument", ext.name.name));
            return Err(());
        }
        let full = Ty::Extern(*d, targs.clone());
        let type_args = targs.iter().map(|t| self.ir_type(t)).collect();
        let annotations = self.annotations(anns);
        self.claim_cp_name("extern instance", &name, span);
        let id = ir::ExternId(self.out.prog.externs.len() as u32);
        self.out.prog.externs.push(ir::ExternInstance { name, type_name: ext.name.name.to_string(), type_args, ctor_args, annotations });
        if let Some(cx) = self.cx.as_mut() {
            cx.externs.push(id);
        }
        Ok((id, full))
    }

    /// Abstract methods must all be implemented, and only they; implementations are checked like
    /// functions (p4forge does not elaborate them: the program is reported as unsupported).
    fn check_abstract_impls(&mut self, ext: &'a ast::ExternDecl, initializer: Option<&'a [Decl]>, span: Span) {
        let abstracts: Vec<&'a ast::FunctionProto> = ext.methods.iter().filter(|m| m.is_abstract).map(|m| &m.proto).collect();
        let Some(decls) = initializer else {
            if let Some(m) = abstracts.first() {
                self.error(span, format!("extern `{}` has abstract method `{}`; the instance must implement it (`= {{ ... }}`)", ext.name.name, m.name.name));
            }
            return;
        };
        if self.check_mode {
            self.warn(span, "unsupported: extern instances with abstract method implementations");
        }
        self.unsupported = true;
        let mut implemented: Vec<&str> = vec![];
        for d in decls {
            let Decl::Function(f) = d else {
                let sp = d.name().map(|n| n.span).unwrap_or(span);
                self.error(sp, "only abstract method implementations may appear in an instance's initializer");
                continue;
            };
            let Some(m) = abstracts.iter().find(|m| m.name.name == f.proto.name.name && m.params.len() == f.proto.params.len()) else {
                self.error(f.proto.name.span, format!("extern `{}` has no abstract method `{}` with {} parameter(s)", ext.name.name, f.proto.name.name, f.proto.params.len()));
                continue;
            };
            implemented.push(&m.name.name);
            // The implementation has the abstract method's signature: directions and types.
            let binds = ext.type_params.iter().map(|p| (p.name.to_string(), Ty::Param(p.name.to_string()))).collect();
            self.with_tparams(binds, |me| {
                for (ip, ap) in f.proto.params.iter().zip(&m.params) {
                    if ip.direction != ap.direction {
                        me.error(ip.name.span, format!("parameter `{}` of `{}` has another direction than the abstract method's", ip.name.name, f.proto.name.name));
                    } else if me.resolve_type(&ip.ty) != me.resolve_type(&ap.ty) {
                        let (x, y) = (me.resolve_type(&ip.ty), me.resolve_type(&ap.ty));
                        let (x, y) = (me.show(&x), me.show(&y));
                        me.error(ip.ty.span, format!("parameter `{}` of `{}` has type `{x}`; the abstract method's has `{y}`", ip.name.name, f.proto.name.name));
                    }
                }
                let ret = |me: &mut Sema<'a>, r: &'a Option<ast::TypeRef>| r.as_ref().map_or(Ty::Void, |t| me.resolve_type(t));
                let (ir_, ar) = (ret(me, &f.proto.ret), ret(me, &m.ret));
                if ir_ != ar {
                    let (x, y) = (me.show(&ir_), me.show(&ar));
                    me.error(f.proto.name.span, format!("`{}` returns `{x}`; the abstract method returns `{y}`", f.proto.name.name));
                }
            });
            if self.check_mode {
                // Check the body as a function in a scratch frame.
                let idx = self.decls.len();
                self.decls.push(d);
                let saved_cx = self.cx.take();
                let cx = self.new_cx(BlockKind::Control, String::new());
                self.cx = Some(cx);
                let was = std::mem::replace(&mut self.in_abstract_impl, true);
                let _ = self.function_instance(idx, vec![]);
                self.in_abstract_impl = was;
                self.cx = saved_cx;
            }
        }
        for m in abstracts {
            if !implemented.contains(&m.name.name.as_str()) {
                self.error(span, format!("abstract method `{}` of extern `{}` is not implemented", m.name.name, ext.name.name));
            }
        }
    }

    /// A top-level extern instance, created once per output.
    pub fn global_instance(&mut self, d: usize, span: Span) -> R<(ir::ExternId, Ty)> {
        let Some(Decl::Instantiation(i)) = self.decls.get(d).copied() else { return Err(()) };
        if let Some(id) = self.out.global_externs.get(&d).copied() {
            let ty = self.extern_ty_of(id).unwrap_or(Ty::Unknown);
            if let Some(cx) = self.cx.as_mut() {
                if !cx.externs.contains(&id) {
                    cx.externs.push(id);
                }
            }
            return Ok((id, ty));
        }
        let saved = self.save();
        self.scopes = vec![];
        self.tparams.clear();
        let ty = self.resolve_type(&i.ty);
        let r = match &ty {
            Ty::Extern(..) => {
                let name = Self::cp_name(None, &i.annotations, &i.name.name);
                self.instantiate_extern(&ty, &i.args, name, &i.annotations, i.initializer.as_deref(), i.span)
            }
            _ => {
                self.error(span, format!("`{}` is not an extern instance", i.name.name));
                Err(())
            }
        };
        self.restore(saved);
        let (id, ty) = r?;
        self.out.global_externs.insert(d, id);
        self.out.extern_tys.insert(id, ty.clone());
        Ok((id, ty))
    }

    fn extern_ty_of(&self, id: ir::ExternId) -> Option<Ty> {
        self.out.extern_tys.get(&id).cloned()
    }

    // ------------------------------------------------------------ tables

    fn lower_table(&mut self, t: &'a ast::TableDecl, prefix: &str) -> R<ir::TableId> {
        let id = ir::TableId(self.out.prog.tables.len() as u32);
        let name = Self::cp_name(Some(prefix), &t.annotations, &t.name.name);
        self.claim_cp_name("table", &name, t.name.span);
        let control = match self.cx.as_ref().map(|c| c.block_ref.clone()) {
            Some(ir::BlockRef::Control(c)) => c,
            _ => return Err(()),
        };
        let annotations = self.annotations(&t.annotations);
        let mut table = ir::Table {
            name: name.clone(),
            control,
            keys: vec![],
            actions: vec![],
            default_action: None,
            default_is_const: false,
            entries: vec![],
            entries_const: true,
            size: None,
            direct_counter: None,
            direct_meter: None,
            implementation: None,
            properties: vec![],
            annotations,
        };
        let mut key_tys: Vec<Ty> = vec![];
        let mut seen: Vec<String> = vec![];
        let mut has_actions = false;
        // A duplicated property is the error to report first (its table is malformed anyway).
        let mut duplicate = false;
        // The priority each entry gives (`priority = N :`), with its span.
        let mut given_priorities: Vec<(Option<u64>, Span)> = Vec::new();
        let mut action_decls: Vec<(ir::ActionId, Vec<Direction>)> = vec![];
        let mut bound_texts: HashMap<ir::ActionId, Vec<String>> = HashMap::new();
        // Properties are processed in source order, as in p4c: a default action or entries written
        // before the `actions`/`key` they refer to are errors.
        for p in &t.properties {
            let (pname, pspan) = match p {
                ast::TableProperty::Key { span, .. } => ("key".to_string(), *span),
                ast::TableProperty::Actions { span, .. } => ("actions".to_string(), *span),
                ast::TableProperty::Entries { span, .. } => ("entries".to_string(), *span),
                ast::TableProperty::Other { name, span, .. } => (name.name.to_string(), *span),
            };
            if seen.contains(&pname) {
                self.error(pspan, format!("duplicate table property `{pname}`"));
                duplicate = true;
                continue;
            }
            seen.push(pname.clone());
            match p {
                ast::TableProperty::Key { elements, .. } => {
                    // Kept with the table for good: no room left over from growing.
                    table.keys.reserve_exact(elements.len());
                    for k in elements {
                        // Inside its declaration the table's name is the table's (p4c: "Cannot
                        // refer to the containing table"), not a variable it may shadow.
                        if matches!(&k.expr.kind, A::Name(p) if p.name.name == t.name.name) {
                            self.error(k.expr.span, format!("a key of table `{}` cannot refer to the table itself", t.name.name));
                            continue;
                        }
                        let Ok(te) = self.expr(&k.expr, None) else { continue };
                        let kt = self.subst.resolve(&te.ty);
                        let ok = matches!(kt, Ty::Bits { .. } | Ty::Bool | Ty::Error | Ty::Unknown | Ty::Param(_) | Ty::NewType(_) | Ty::Varbit(_))
                            || matches!(&kt, Ty::Named(n) if self.named[*n].kind == NamedKind::Enum);
                        if !ok {
                            let s = self.show(&kt);
                            self.error(k.expr.span, format!("table keys must be bit<W>, int<W>, bool, error or enum values, not `{s}`"));
                            continue;
                        }
                        if kt == Ty::InfInt {
                            self.error(k.expr.span, "a table key needs a width");
                            continue;
                        }
                        let mk = k.match_kind.name.as_str();
                        if !self.match_kinds.iter().any(|m| m == mk) {
                            self.error(k.match_kind.span, format!("unknown match kind `{mk}`"));
                            continue;
                        }
                        let match_kind = match mk {
                            "exact" => ir::MatchKind::Exact,
                            "ternary" => ir::MatchKind::Ternary,
                            "lpm" => ir::MatchKind::Lpm,
                            "range" => ir::MatchKind::Range,
                            "optional" => ir::MatchKind::Optional,
                            "selector" => ir::MatchKind::Selector,
                            other => ir::MatchKind::Other(other.to_string()),
                        };
                        // Prefixes and ranges are of numbers.
                        let numeric = matches!(kt, Ty::Bits { .. } | Ty::Unknown | Ty::Param(_) | Ty::NewType(_))
                            || self.ser_enum_underlying(&kt).is_some();
                        if matches!(match_kind, ir::MatchKind::Lpm | ir::MatchKind::Range) && !numeric {
                            let s = self.show(&kt);
                            self.error(k.match_kind.span, format!("match kind `{mk}` needs a bit<W> or int<W> key, not `{s}`"));
                            continue;
                        }
                        let named = Self::name_annotation(&k.annotations);
                        if named.is_none() && !simple_key(&k.expr) {
                            self.error_at(k.expr.span, "complex key expression requires a @name annotation", "give this key a control-plane name with @name(\"...\")");
                            continue;
                        }
                        let kname = named.unwrap_or_else(|| self.text(k.expr.span));
                        key_tys.push(kt.clone());
                        let expr = self.lower_te(te);
                        // `@name` is the key's name already.
                        let mut annotations = self.annotations(&k.annotations);
                        annotations.retain(|a| a.name != "name");
                        annotations.extend(self.new_type_annotations(&kt));
                        table.keys.push(ir::TableKey { expr, match_kind, name: kname, annotations });
                    }
                    let lpms = table.keys.iter().filter(|k| k.match_kind == ir::MatchKind::Lpm).count();
                    if lpms > 1 {
                        self.error(pspan, "a table can have at most one `lpm` key");
                    }
                    if let Some(id) = duplicate_id(table.keys.iter().map(|k| &k.annotations[..])) {
                        self.error(pspan, format!("two keys of this table have @id({id}): match-field ids must differ"));
                    }
                }
                ast::TableProperty::Actions { actions, .. } => {
                    table.actions.reserve_exact(actions.len());
                    has_actions = true;
                    for a in actions {
                        let Ok((aid, decl)) = self.resolve_action_ref(&a.name) else { continue };
                        if table.actions.iter().any(|x| x.action == aid) {
                            self.error(a.span, format!("action `{}` appears twice in the actions list", a.name.name.name));
                            continue;
                        }
                        let sigs = self.param_sigs(&decl.params);
                        let ndir = sigs.iter().filter(|s| s.dir != Direction::None).count();
                        let given = a.args.as_ref().map(|x| x.len()).unwrap_or(0);
                        let bound_args = if given != ndir {
                            if given > ndir {
                                self.error(a.span, format!("action `{}` in the actions list: {given} argument(s) given but it has {ndir} directional parameter(s); directionless parameters are supplied by the control plane", a.name.name.name));
                            } else {
                                self.error(a.span, format!("action `{}`: its {ndir} directional parameter(s) must be bound in the actions list", a.name.name.name));
                            }
                            continue;
                        } else if ndir == 0 {
                            vec![]
                        } else {
                            let Ok(args) = self.call_args(&sigs[..ndir], a.args.as_deref().unwrap_or(&[]), a.span, &a.name.name.name) else { continue };
                            args.into_iter().map(|x| x.expr).collect()
                        };
                        let texts = a.args.as_deref().unwrap_or(&[]).iter().map(|x| self.text(x.value.span)).collect();
                        bound_texts.insert(aid, texts);
                        let has = |n: &str| a.annotations.iter().any(|x| x.name.name == n);
                        action_decls.push((aid, sigs.iter().map(|s| s.dir).collect()));
                        table.actions.push(ir::TableAction { action: aid, bound_args, table_only: has("tableonly"), default_only: has("defaultonly") });
                    }
                }
                ast::TableProperty::Entries { is_const, entries, .. } => {
                    table.entries_const = *is_const;
                    if table.keys.is_empty() && !entries.is_empty() {
                        self.error(pspan, "a table without keys cannot have entries");
                        continue;
                    }
                    // With priorities given for some entries, the first must have one (the others
                    // count from it; spec, "Entry priorities"); and only a table whose entries can
                    // overlap (a ternary, range or optional key) orders them by priority.
                    if let Some(first) = entries.first().filter(|f| f.priority.is_none() && entries.iter().any(|e| e.priority.is_some())) {
                        self.error(first.keyset.span, "the first entry needs a priority when other entries give one");
                    }
                    let overlapping = table.keys.iter().any(|k| matches!(k.match_kind, ir::MatchKind::Ternary | ir::MatchKind::Range | ir::MatchKind::Optional | ir::MatchKind::Other(_)));
                    if let Some(e) = entries.iter().find(|e| e.priority.is_some()).filter(|_| !overlapping) {
                        self.error(e.keyset.span, "this table's keys (exact or lpm) do not need priorities, but an entry gives one");
                    }
                    for en in entries {
                        let keys = self.keysets(&en.keyset, &key_tys, false);
                        let action = self.entry_action(&en.action.name, en.action.args.as_deref(), en.action.span, &table, true, &bound_texts);
                        let priority = match &en.priority {
                            Some(p) => self.const_u32(p, "priority").ok().map(u64::from),
                            None => self.annotations(&en.annotations).iter().find(|a| a.name == "priority").and_then(|a| a.args.first()).and_then(crate::consteval::int_of).and_then(num_traits::ToPrimitive::to_u64),
                        };
                        given_priorities.push((en.priority.as_ref().and(priority), en.keyset.span));
                        if let (Ok(keys), Ok(action)) = (keys, action) {
                            for (k, key) in keys.iter().zip(&table.keys) {
                                if matches!(k, ir::Keyset::Mask(..) | ir::Keyset::Range(..)) && key.match_kind == ir::MatchKind::Exact {
                                    self.error(en.keyset.span, format!("key `{}` is `exact`: entries cannot use masks or ranges for it", key.name));
                                }
                                if matches!(k, ir::Keyset::Range(..)) && !matches!(key.match_kind, ir::MatchKind::Range | ir::MatchKind::Other(_)) {
                                    self.error(en.keyset.span, format!("key `{}` is not a `range` key", key.name));
                                }
                                if let (ir::Keyset::Mask(_, m), ir::MatchKind::Lpm) = (k, &key.match_kind) {
                                    if let ir::ExprKind::Const(v) = &m.kind {
                                        if !is_prefix_mask(v) {
                                            self.error(en.keyset.span, format!("the mask for `lpm` key `{}` is not a prefix mask", key.name));
                                        }
                                    }
                                }
                            }
                            table.entries.push(ir::TableEntry { keys, action, priority });
                        }
                    }
                }
                ast::TableProperty::Other { name: pn, value, is_const, annotations, .. } => match pn.name.as_str() {
                    "default_action" => {
                        if let Ok(a) = self.entry_action_expr(value, &table, &bound_texts) {
                            table.default_action = Some(a);
                            table.default_is_const = *is_const;
                        }
                    }
                    "size" => {
                        if let Ok(n) = self.const_u32(value, "table size") {
                            table.size = Some(n as u64);
                        }
                    }
                    property if matches!(p4_ir::arch::table_property(property), Some(TP::DirectCounter | TP::DirectMeter | TP::Implementation)) => {
                        // An instance made in the property and named there is named as written,
                        // not inside its control (as the reference compiler names it).
                        let inline_name = match Self::name_annotation(annotations) {
                            Some(given) => given.trim_start_matches('.').to_string(),
                            None => format!("{name}.{}", pn.name),
                        };
                        // `{ instance }`: a list of the one instance a table takes.
                        let value = match &value.kind {
                            ast::ExprKind::List(items) if items.len() == 1 => &items[0],
                            ast::ExprKind::List(items) => {
                                self.error(value.span, format!("`{}` takes one instance, not a list of {}", pn.name, items.len()));
                                continue;
                            }
                            _ => value,
                        };
                        let Ok((eid, ety)) = self.ctor_extern_arg(value, &inline_name) else { continue };
                        let tn = self.show(&ety);
                        let tn = tn.split('<').next().unwrap_or("").to_string();
                        match p4_ir::arch::table_property(&pn.name) {
                            Some(TP::DirectCounter) => {
                                if !tn.contains("counter") && !tn.contains("Counter") {
                                    self.error(value.span, format!("`{}` must name a direct counter, not a `{tn}`", pn.name));
                                }
                                table.direct_counter = Some(eid)
                            }
                            Some(TP::DirectMeter) => table.direct_meter = Some(eid),
                            _ => table.implementation = Some(eid),
                        }
                    }
                    _ => {
                        let n = self.diags.len();
                        let v = self.expr(value, None).ok().and_then(|t| t.val);
                        self.diags.truncate(n);
                        // The spec's entry-priority properties: a bool, a positive integer.
                        match (pn.name.as_str(), &v) {
                            ("largest_priority_wins", Some(Value::Bool(_))) => {}
                            ("largest_priority_wins", _) => self.error(value.span, "`largest_priority_wins` must be `true` or `false`"),
                            ("priority_delta", Some(Value::InfInt(d) | Value::Bits { value: d, .. })) if d.sign() == num_bigint::Sign::Plus => {}
                            ("priority_delta", _) => self.error(value.span, "`priority_delta` must be a positive integer constant"),
                            _ => {}
                        }
                        let v = v.unwrap_or_else(|| Value::String(self.text(value.span)));
                        // An idle-timeout request, however the architecture writes it, is the
                        // IR's `support_timeout`.
                        if let Some(TP::IdleTimeout { notify }) = p4_ir::arch::table_property(&pn.name) {
                            let on = match (notify, &v) {
                                (None, Value::Bool(b)) => *b,
                                (Some(member), Value::Enum(t, i)) => self.enum_member_is(*t, *i, member),
                                _ => false,
                            };
                            table.properties.push((p4_ir::SUPPORT_TIMEOUT.to_string(), Value::Bool(on)));
                            continue;
                        }
                        table.properties.push((pn.name.to_string(), v));
                    }
                },
            }
        }
        self.check_entry_priorities(&table, &given_priorities);
        if !has_actions && !duplicate {
            self.error(t.name.span, format!("table `{}` has no `actions` property", t.name.name));
        }
        if table.default_action.is_none() {
            match self.lookup_global("NoAction").cloned() {
                Some(Global::Action(d)) => {
                    let takes_params = matches!(self.decls.get(d), Some(Decl::Action(a)) if !a.params.is_empty());
                    if takes_params {
                        self.error(t.name.span, "`NoAction` (the implicit default action) must be an action without parameters");
                    } else if let Ok(aid) = self.global_action(d) {
                        table.default_action = Some(ir::ActionCall { action: aid, args: vec![] });
                    }
                }
                Some(_) => self.error(t.name.span, "`NoAction` (the implicit default action) must be an action"),
                None => {}
            }
        }
        self.out.prog.tables.push(table);
        if let Some(cx) = self.cx.as_mut() {
            cx.tables.push(id);
        }
        Ok(id)
    }

    /// The priorities of entries that give none count from the entry before by `priority_delta`
    /// (down when the largest wins, the default; spec, "Entry priorities"): none may fall below
    /// 0 or beyond 32 bits.
    fn check_entry_priorities(&mut self, table: &ir::Table, given: &[(Option<u64>, Span)]) {
        if given.first().is_none_or(|(p, _)| p.is_none()) {
            return;
        }
        let prop = |n: &str| table.properties.iter().find(|(k, _)| k == n).map(|(_, v)| v);
        let largest_wins = !matches!(prop("largest_priority_wins"), Some(Value::Bool(false)));
        let delta = match prop("priority_delta") {
            Some(Value::InfInt(d) | Value::Bits { value: d, .. }) => num_traits::ToPrimitive::to_i128(d).unwrap_or(1),
            _ => 1,
        };
        let mut p: i128 = 0;
        for (given, span) in given {
            p = match given {
                Some(v) => i128::from(*v),
                None if largest_wins => p - delta,
                None => p + delta,
            };
            if !(0..=i128::from(u32::MAX)).contains(&p) {
                self.error(*span, format!("this entry's priority comes to {p}, outside 0..2^32: give it one, or a smaller priority_delta"));
                return;
            }
        }
    }

    fn resolve_action_ref(&mut self, p: &'a ast::Path) -> R<(ir::ActionId, &'a ast::ActionDecl)> {
        if !p.global {
            match self.lookup_local(&p.name.name).cloned() {
                Some(Local::Action { id, decl }) => return Ok((id, decl)),
                Some(_) => {
                    self.error(p.name.span, format!("`{}` is not an action", p.name.name));
                    return Err(());
                }
                None => {}
            }
        }
        match self.lookup_global(&p.name.name).cloned() {
            Some(Global::Action(d)) => {
                let Some(Decl::Action(a)) = self.decls.get(d).copied() else { return Err(()) };
                Ok((self.global_action(d)?, a))
            }
            Some(_) => {
                self.error(p.name.span, format!("`{}` is not an action", p.name.name));
                Err(())
            }
            None => {
                self.error(p.name.span, format!("undeclared action `{}`", p.name.name));
                Err(())
            }
        }
    }

    /// `default_action = a(args)` (an expression).
    fn entry_action_expr(&mut self, e: &'a ast::Expr, table: &ir::Table, bound: &HashMap<ir::ActionId, Vec<String>>) -> R<ir::ActionCall> {
        let (path, args): (&'a ast::Path, Option<&'a [ast::Arg]>) = match &e.kind {
            A::Name(p) => (p, None),
            A::Call { callee, args, .. } => match &callee.kind {
                A::Name(p) => (p, Some(args.as_slice())),
                _ => {
                    self.error(e.span, "`default_action` must name an action");
                    return Err(());
                }
            },
            _ => {
                self.error(e.span, "`default_action` must name an action");
                return Err(());
            }
        };
        self.entry_action(path, args, e.span, table, false, bound)
    }

    /// An action call in an entry or default action: the action must be in the table's list; the
    /// arguments cover all parameters (or just the directionless ones when directional ones are bound).
    fn entry_action(&mut self, path: &'a ast::Path, args: Option<&'a [ast::Arg]>, span: Span, table: &ir::Table, entry: bool, bound: &HashMap<ir::ActionId, Vec<String>>) -> R<ir::ActionCall> {
        let (aid, decl) = self.resolve_action_ref(path)?;
        let aname = &path.name.name;
        let Some(ta) = table.actions.iter().find(|x| x.action == aid) else {
            let what = if entry { "entry" } else { "default action" };
            self.error(span, format!("{what} `{aname}` is not in the table's `actions` list"));
            return Err(());
        };
        if entry && ta.default_only {
            self.error(span, format!("action `{aname}` is `@defaultonly`; it cannot be used in entries"));
            return Err(());
        }
        if !entry && ta.table_only {
            self.error(span, format!("action `{aname}` is `@tableonly`; it cannot be the default action"));
            return Err(());
        }
        let sigs = self.param_sigs(&decl.params);
        let given: &'a [ast::Arg] = args.unwrap_or(&[]);
        let ndir = sigs.iter().filter(|s| s.dir != Direction::None).count();
        if given.len() == sigs.len() - ndir && ndir > 0 {
            let mut args = ta.bound_args.clone();
            let rest = self.call_args(&sigs[ndir..], given, span, aname)?;
            args.extend(rest.into_iter().map(|x| x.expr));
            return Ok(ir::ActionCall { action: aid, args });
        }
        if args.is_none() && !sigs.is_empty() {
            self.error(span, format!("action `{aname}` needs arguments here"));
            return Err(());
        }
        if ndir > 0 {
            let want = bound.get(&aid).cloned().unwrap_or_default();
            for (i, g) in given.iter().take(ndir).enumerate() {
                let t = self.text(g.value.span);
                if want.get(i).is_some_and(|w| *w != t) {
                    self.error(g.value.span, format!("argument `{t}` differs from the argument bound in the table's actions list"));
                    return Err(());
                }
            }
        }
        let args = self.call_args(&sigs, given, span, aname)?;
        for (x, s) in args.iter().zip(&sigs) {
            if s.dir == Direction::None && !matches!(x.expr.kind, ir::ExprKind::Const(_)) && !self.is_ctor_param_var(&x.expr) {
                self.error(x.expr.span, "action data in entries and default actions must be compile-time constants");
                return Err(());
            }
        }
        Ok(ir::ActionCall { action: aid, args: args.into_iter().map(|x| x.expr).collect() })
    }
}


/// Key expressions the control plane can name by their text: names, fields, constant indices,
/// slices, `isValid()`, and masks with a constant (p4c asks for `@name` on anything else).
fn simple_key(e: &ast::Expr) -> bool {
    let is_const = |e: &ast::Expr| matches!(e.kind, A::Int(_) | A::Name(_));
    match &e.kind {
        A::Name(_) | A::Int(_) | A::Bool(_) => true,
        A::Member(b, _) => simple_key(b),
        // A run-time index (`hdr.vlan[meta.depth].vid`) is named after its text as p4c does.
        A::Index(b, i) => simple_key(b) && simple_key(i),
        A::Slice(b, _, _) => simple_key(b),
        // Not certain p4c names casts; accept rather than reject a possibly valid program.
        A::Cast(_, b) => simple_key(b),
        A::Call { callee, args, .. } => args.is_empty() && matches!(&callee.kind, A::Member(b, m) if m.name == "isValid" && simple_key(b)),
        A::Binary(ast::BinOp::BitAnd, l, r) => (simple_key(l) && is_const(r)) || (is_const(l) && simple_key(r)),
        _ => false,
    }
}

/// `1...10...0` within the value's width.
fn is_prefix_mask(v: &Value) -> bool {
    match v {
        Value::Bits { width, value, .. } => {
            let m = crate::consteval::normalize(*width, false, value);
            let ones = m.magnitude().count_ones() as u32;
            let expect = crate::consteval::normalize(*width, false, &(((num_bigint::BigInt::from(1) << ones) - 1) << (width - ones)));
            m == expect
        }
        _ => true,
    }
}

/// True if some state reachable from `start` can end the parser (a `select` can always reject).
fn can_finish(states: &[ir::ParserState]) -> bool {
    let mut seen = vec![false; states.len()];
    let mut todo = vec![0usize];
    while let Some(i) = todo.pop() {
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        let targets: Vec<ir::StateTarget> = match &states[i].transition {
            ir::Transition::Goto(t) => vec![*t],
            ir::Transition::Select { .. } => return true,
        };
        for t in targets {
            match t {
                ir::StateTarget::Accept | ir::StateTarget::Reject => return true,
                ir::StateTarget::State(s) if s.index() < states.len() => todo.push(s.index()),
                ir::StateTarget::State(_) => {}
            }
        }
    }
    false
}

/// An `@id` that two of these annotation lists give, if any (match fields of a table, parameters
/// of an action: their control-plane ids must differ).
fn duplicate_id<'a>(lists: impl Iterator<Item = &'a [ir::Annotation]>) -> Option<u128> {
    let mut seen = std::collections::BTreeSet::new();
    lists.filter_map(ir::layout::id_annotation).find(|id| !seen.insert(*id))
}

/// Whether type `t` contains extern type `d` (as itself or in a type argument, tuple or stack).
fn contains_extern(t: &Ty, d: usize) -> bool {
    match t {
        Ty::Extern(x, args) => *x == d || args.iter().any(|a| contains_extern(a, d)),
        Ty::Tuple(ts) | Ty::Block(_, ts) => ts.iter().any(|a| contains_extern(a, d)),
        Ty::Stack(e, _) | Ty::List(e) => contains_extern(e, d),
        _ => false,
    }
}

/// The type or callee named by a constructor call (`T(...)`, `T<A>(...)`, `name(...)`).
fn constructed(e: &ast::Expr) -> Option<&ast::Path> {
    match &e.kind {
        A::Construct { ty, .. } => match &ty.kind {
            ast::TypeRefKind::Named(p) | ast::TypeRefKind::Specialized(p, _) => Some(p),
            _ => None,
        },
        A::Call { callee, .. } => match &callee.kind {
            A::Name(p) => Some(p),
            _ => None,
        },
        _ => None,
    }
}

//! Calls and statements (§9–§12).
//!
//! Invariant: a statement that fails to check is reported and dropped; lowering continues with the
//! next one so that one program yields all of its errors.

use crate::expr::TE;
use crate::sema::{BlockKind, Callable, Global, Local, ParamSig, Sema, R};
use crate::types::{NamedKind, Ty};
use num_bigint::BigInt;
use p4_ir::{self as ir, Value};
use p4_syntax::ast::{self, Direction, ExprKind as A};
use p4_syntax::span::Span;
use std::collections::HashMap;

/// A call lowers to a value or, for `void` calls and applies, to a statement.
pub enum CallOut {
    Expr(TE),
    Stmt(ir::Stmt),
}

impl<'a> Sema<'a> {
    // ------------------------------------------------------------ calls

    pub fn call(&mut self, e: &'a ast::Expr, _expected: Option<&Ty>) -> R<CallOut> {
        let A::Call { callee, type_args, args } = &e.kind else {
            self.error(e.span, "not a call");
            return Err(());
        };
        match &callee.kind {
            A::Member(base, m) => self.method_call(base, m, type_args, args, e.span),
            A::Name(p) => self.named_call(p, type_args, args, e.span),
            _ => {
                self.error(callee.span, "this expression cannot be called");
                Err(())
            }
        }
    }

    fn method_call(&mut self, base: &'a ast::Expr, m: &'a ast::Ident, type_args: &'a [ast::TypeRef], args: &'a [ast::Arg], span: Span) -> R<CallOut> {
        if m.name == "apply" {
            match self.name_local(base) {
                Some(Local::Table { id, .. }) => {
                    self.check_table_apply_context(span)?;
                    if !args.is_empty() {
                        self.error(span, "a table's `apply` takes no arguments");
                        return Err(());
                    }
                    return Ok(CallOut::Stmt(ir::Stmt::ApplyTable { table: id, span }));
                }
                Some(Local::Instance { block, decl, ty }) => return self.block_apply(block, decl, &ty, args, span),
                None => {
                    if let A::Name(p) = &base.kind {
                        if let Some(Global::Parser(d) | Global::Control(d)) = self.lookup_global(&p.name.name).cloned() {
                            return self.direct_apply(d, &p.name.name, args, span);
                        }
                    }
                }
                _ => {}
            }
        }
        if matches!(m.name.as_str(), "minSizeInBits" | "maxSizeInBits" | "minSizeInBytes" | "maxSizeInBytes" | "sizeInBits" | "sizeInBytes") && args.is_empty() {
            let ty = match self.expr_as_type(base) {
                Some(t) => t,
                None => self.expr(base, None)?.ty,
            };
            let (lo, hi) = self.type_size(&ty, span)?;
            let v = match m.name.as_str() {
                "minSizeInBits" => lo,
                "maxSizeInBits" => hi,
                "minSizeInBytes" => lo.div_ceil(8),
                "sizeInBits" | "sizeInBytes" if lo != hi => {
                    self.error(span, format!("`{}` needs a fixed-size type; use min/maxSizeInBits for varbit", m.name));
                    return Err(());
                }
                "sizeInBits" => hi,
                _ => hi.div_ceil(8),
            };
            return Ok(CallOut::Expr(self.konst(Value::InfInt(BigInt::from(v)), Ty::InfInt, span)));
        }
        if let Some(t) = self.expr_as_type(base) {
            let s = self.show(&t);
            self.error(span, format!("type `{s}` has no method `{}`", m.name));
            return Err(());
        }
        let target = self.expr(base, None)?;
        let bt = self.subst.resolve(&target.ty);
        let builtin = |s: &mut Self, target: TE, b: ir::Builtin, needs_lv: bool| -> R<CallOut> {
            if needs_lv && target.lv != Some(true) {
                s.error(span, format!("`{}` needs a writable header, not a read-only value", m.name));
                return Err(());
            }
            let t = s.lower_te(target);
            let call = ir::Call { callee: ir::Callee::Builtin { target: Box::new(t), builtin: b }, args: vec![], span };
            Ok(if b == ir::Builtin::IsValid {
                CallOut::Expr(TE::new(Ty::Bool, ir::ExprKind::Call(Box::new(call)), span))
            } else {
                CallOut::Stmt(ir::Stmt::Call(call))
            })
        };
        match &bt {
            Ty::Named(n) if matches!(self.named[*n].kind, NamedKind::Header | NamedKind::Union) => {
                let is_header = self.named[*n].kind == NamedKind::Header;
                if !args.is_empty() {
                    self.error(span, format!("`{}` takes no arguments", m.name));
                    return Err(());
                }
                match m.name.as_str() {
                    "isValid" => builtin(self, target, ir::Builtin::IsValid, false),
                    "setValid" if is_header => builtin(self, target, ir::Builtin::SetValid, true),
                    "setInvalid" if is_header => builtin(self, target, ir::Builtin::SetInvalid, true),
                    _ => {
                        let s = self.show(&bt);
                        self.error(m.span, format!("`{s}` has no method `{}`", m.name));
                        Err(())
                    }
                }
            }
            Ty::Stack(_, _) if matches!(m.name.as_str(), "push_front" | "pop_front") => {
                let [arg] = args else {
                    self.error(span, format!("`{}` takes exactly one argument", m.name));
                    return Err(());
                };
                let n = self.const_u32(&arg.value, "count")?;
                let b = if m.name == "push_front" { ir::Builtin::PushFront(n) } else { ir::Builtin::PopFront(n) };
                builtin(self, target, b, true)
            }
            Ty::Extern(d, targs) => self.extern_method(*d, targs.clone(), target, m, type_args, args, span),
            Ty::Param(_) | Ty::Unknown | Ty::Infer(_) => {
                for a in args {
                    let _ = self.expr(&a.value, None);
                }
                Ok(CallOut::Expr(TE::unknown(span)))
            }
            other => {
                let s = self.show(other);
                self.error(m.span, format!("type `{s}` has no method `{}`", m.name));
                Err(())
            }
        }
    }

    /// Direct invocation `C.apply(...)` of a parser/control type without constructor parameters
    /// (one implicit instance per enclosing block, named `<block>.<type>`).
    fn direct_apply(&mut self, d: usize, name: &str, args: &'a [ast::Arg], span: Span) -> R<CallOut> {
        let (tps, _) = self.block_params_ast(d);
        let has_ctor = match self.decls.get(d).copied() {
            Some(ast::Decl::Parser(p)) => !p.ctor_params.is_empty(),
            Some(ast::Decl::Control(c)) => !c.ctor_params.is_empty(),
            _ => false,
        };
        if has_ctor {
            self.error(span, format!("`{name}` has constructor parameters; instantiate it (`{name}(...) inst;`) and apply the instance"));
            return Err(());
        }
        if self.active_blocks.contains(&d) {
            self.error(span, format!("`{name}` applies itself (recursion is not allowed)"));
            return Err(());
        }
        if !tps.is_empty() {
            self.warn(span, format!("unsupported: direct invocation of the generic `{name}`"));
            self.unsupported = true;
            return Err(());
        }
        let block = if self.check_mode {
            None
        } else if let Some(b) = self.cx.as_ref().and_then(|c| c.direct.get(&d).cloned()) {
            Some(b)
        } else {
            let prefix = self.cx.as_ref().map(|c| c.name.clone()).unwrap_or_default();
            let b = self.instantiate_block(d, vec![], &[], format!("{prefix}.{name}"), span)?;
            if let Some(cx) = self.cx.as_mut() {
                cx.direct.insert(d, b.clone());
            }
            Some(b)
        };
        self.block_apply(block, d, &Ty::Block(d, vec![]), args, span)
    }

    fn block_apply(&mut self, block: Option<ir::BlockRef>, decl: usize, ty: &Ty, args: &'a [ast::Arg], span: Span) -> R<CallOut> {
        let kind = match self.decls.get(decl) {
            Some(ast::Decl::Parser(_) | ast::Decl::ParserType(_)) => BlockKind::Parser,
            _ => BlockKind::Control,
        };
        let ok = match kind {
            BlockKind::Parser => self.callable == Callable::ParserState,
            BlockKind::Control => self.callable == Callable::ControlApply,
        };
        if !ok {
            self.error(span, "a sub-parser can only be applied in a parser state, a sub-control only in an apply block");
            return Err(());
        }
        let targs = match ty {
            Ty::Block(_, a) => a.clone(),
            _ => vec![],
        };
        let (tps, params) = self.block_params_ast(decl);
        let binds = Self::bind_params(tps, &targs);
        let sigs = self.with_tparams(binds, |me| me.param_sigs(params));
        let args = self.call_args(&sigs, args, span, "apply")?;
        Ok(CallOut::Stmt(match block {
            Some(block) => ir::Stmt::ApplyBlock { block, args, span },
            None => ir::Stmt::Empty,
        }))
    }

    pub fn block_params_ast(&self, decl: usize) -> (&'a [ast::Ident], &'a [ast::Param]) {
        match self.decls.get(decl).copied() {
            Some(ast::Decl::Parser(p)) => (&p.ty.type_params, &p.ty.params),
            Some(ast::Decl::Control(c)) => (&c.ty.type_params, &c.ty.params),
            Some(ast::Decl::ParserType(b) | ast::Decl::ControlType(b) | ast::Decl::Package(b)) => (&b.type_params, &b.params),
            _ => (&[], &[]),
        }
    }

    /// Overload resolution (spec, "Extern objects"): by the number of arguments, and by their names when
    /// the call names them. Argument types are not used.
    fn pick_overload(&mut self, cands: Vec<&'a ast::FunctionProto>, args: &[ast::Arg], what: &str, span: Span) -> R<&'a ast::FunctionProto> {
        let nargs = args.len();
        if cands.is_empty() {
            self.error(span, format!("no method named `{what}`"));
            return Err(());
        }
        let names: Vec<&str> = args.iter().filter_map(|a| a.name.as_ref().map(|n| n.name.as_str())).collect();
        let named_ok = |p: &ast::FunctionProto| names.iter().all(|n| p.params.iter().any(|x| x.name.name == *n));
        let by_name: Vec<&'a ast::FunctionProto> = cands.iter().copied().filter(|p| named_ok(p)).collect();
        let cands = if by_name.is_empty() { cands } else { by_name };
        let fits = |p: &ast::FunctionProto| {
            let required = p.params.iter().filter(|x| x.default.is_none() && !x.annotations.iter().any(|a| a.name.name == "optional")).count();
            nargs >= required && nargs <= p.params.len()
        };
        let exact: Vec<&'a ast::FunctionProto> = cands.iter().copied().filter(|p| p.params.len() == nargs).collect();
        if exact.len() > 1 {
            self.error(span, format!("call of `{what}` is ambiguous: {} overloads take {nargs} argument(s); name the arguments to pick one", exact.len()));
            return Err(());
        }
        match exact.first().or_else(|| cands.iter().find(|p| fits(p))) {
            Some(p) => Ok(p),
            None => {
                let counts: Vec<String> = cands.iter().map(|p| p.params.len().to_string()).collect();
                self.error(span, format!("`{what}` expects {} argument(s), found {nargs}", counts.join(" or ")));
                Err(())
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn extern_method(&mut self, d: usize, targs: Vec<Ty>, target: TE, m: &'a ast::Ident, type_args: &'a [ast::TypeRef], args: &'a [ast::Arg], span: Span) -> R<CallOut> {
        let Some(ast::Decl::Extern(ext)) = self.decls.get(d).copied() else { return Err(()) };
        let cands: Vec<&'a ast::FunctionProto> = ext.methods.iter().filter(|x| x.proto.ret.is_some() && x.proto.name.name == m.name).map(|x| &x.proto).collect();
        if cands.is_empty() {
            self.error(m.span, format!("extern `{}` has no method `{}`", ext.name.name, m.name));
            return Err(());
        }
        let proto = self.pick_overload(cands, args, &m.name, span)?;
        let mut binds = Self::bind_params(&ext.type_params, &targs);
        let mtargs = self.explicit_or_fresh(&proto.type_params, type_args, span)?;
        binds.extend(Self::bind_params(&proto.type_params, &mtargs));
        let (sigs, ret) = self.with_tparams(binds, |me| {
            let sigs = me.param_sigs(&proto.params);
            let ret = proto.ret.as_ref().map(|r| me.resolve_type(r)).unwrap_or(Ty::Void);
            (sigs, ret)
        });
        let nargs = args.len();
        let args = spread_const_lists(self.call_args(&sigs, args, span, &m.name)?);
        let ret = self.subst.resolve(&ret);
        let mtargs: Vec<Ty> = mtargs.iter().map(|t| self.subst.resolve(t)).collect();
        self.check_inferred(&proto.type_params, &mtargs, span)?;
        if ext.name.name == "packet_in" {
            self.check_packet_in(&m.name, &mtargs, nargs, span)?;
        }
        let type_args = mtargs.iter().map(|t| self.ir_type(t)).collect();
        let t = self.lower_te(target);
        let call = ir::Call {
            callee: ir::Callee::Method { target: Box::new(t), extern_type: ext.name.name.to_string(), method: m.name.to_string(), type_args },
            args,
            span,
        };
        Ok(self.call_out(call, ret, span))
    }

    /// Inferred type arguments must be concrete: an `int` literal alone gives no width.
    fn check_inferred(&mut self, names: &[ast::Ident], targs: &[Ty], span: Span) -> R<()> {
        for (n, t) in names.iter().zip(targs) {
            // (An unresolved variable is fine: it may belong only to omitted `@optional` parameters.)
            let has_int = |t: &Ty| -> bool {
                fn walk(t: &Ty) -> bool {
                    match t {
                        Ty::InfInt => true,
                        Ty::Tuple(ts) => ts.iter().any(walk),
                        Ty::List(e) | Ty::Stack(e, _) => walk(e),
                        _ => false,
                    }
                }
                walk(t)
            };
            if has_int(t) {
                self.error(span, format!("cannot infer a type with a width for type parameter `{}`; give the arguments explicit widths", n.name));
                return Err(());
            }
        }
        Ok(())
    }

    /// `extract` needs a header (fixed-size with one argument, with a varbit field with two);
    /// `lookahead` needs a fixed-size type.
    fn check_packet_in(&mut self, method: &str, targs: &[Ty], nargs: usize, span: Span) -> R<()> {
        let Some(t) = targs.first() else { return Ok(()) };
        let header = match t {
            Ty::Named(n) if self.named[*n].kind == NamedKind::Header => Some(*n),
            Ty::Param(_) | Ty::Unknown | Ty::Infer(_) => return Ok(()),
            _ => None,
        };
        let has_varbit = |s: &Self, n: usize| s.named[n].fields.iter().any(|(_, t)| matches!(t, Ty::Varbit(_)));
        let shown = self.show(t);
        match method {
            "extract" => match header {
                None => {
                    self.error(span, format!("`extract` needs a header, not `{shown}`"));
                    Err(())
                }
                Some(n) if nargs == 1 && has_varbit(self, n) => {
                    self.error(span, format!("`{shown}` has a varbit field; extract it with a size argument"));
                    Err(())
                }
                Some(n) if nargs == 2 && !has_varbit(self, n) => {
                    self.error(span, format!("`{shown}` is not a variable-sized header; extract it without a size"));
                    Err(())
                }
                _ => Ok(()),
            },
            "lookahead" => {
                let varsize = match t {
                    Ty::Void => true,
                    Ty::Varbit(_) => true,
                    Ty::Named(n) => has_varbit(self, *n),
                    _ => false,
                };
                if varsize {
                    self.error(span, format!("`lookahead` needs a fixed-size type, not `{shown}`"));
                    return Err(());
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn call_out(&mut self, call: ir::Call, ret: Ty, span: Span) -> CallOut {
        if ret == Ty::Void {
            CallOut::Stmt(ir::Stmt::Call(call))
        } else {
            CallOut::Expr(TE::new(ret, ir::ExprKind::Call(Box::new(call)), span))
        }
    }

    pub fn explicit_or_fresh(&mut self, tps: &[ast::Ident], type_args: &'a [ast::TypeRef], span: Span) -> R<Vec<Ty>> {
        if type_args.is_empty() {
            return Ok(tps.iter().map(|_| self.fresh()).collect());
        }
        if type_args.len() != tps.len() {
            self.error(span, format!("expected {} type argument(s), found {}", tps.len(), type_args.len()));
            return Err(());
        }
        Ok(type_args.iter().map(|t| self.resolve_type(t)).collect())
    }

    fn named_call(&mut self, p: &'a ast::Path, type_args: &'a [ast::TypeRef], args: &'a [ast::Arg], span: Span) -> R<CallOut> {
        if !p.global {
            if let Some(l) = self.lookup_local(&p.name.name).cloned() {
                return match l {
                    Local::Action { .. } if !type_args.is_empty() => {
                        self.error(span, "actions take no type arguments");
                        Err(())
                    }
                    Local::Action { id, decl } => self.action_call(id, decl, args, span),
                    Local::Function(d) => {
                        let Some(ast::Decl::Function(f)) = self.decls.get(d).copied() else { return Err(()) };
                        self.function_call(vec![(d, &f.proto)], &p.name.name, type_args, args, span)
                    }
                    _ => {
                        self.error(p.name.span, format!("`{}` is not callable", p.name.name));
                        Err(())
                    }
                };
            }
        }
        let name = p.name.name.as_str();
        let overloads = self.global_overloads(name);
        if overloads.is_empty() {
            self.error_at(p.name.span, format!("undeclared name `{name}`"), "not found in this scope");
            return Err(());
        }
        if name == "static_assert" {
            return self.static_assert(args, span);
        }
        match overloads[0].clone() {
            Global::Action(_) if !type_args.is_empty() => {
                self.error(span, "actions take no type arguments");
                Err(())
            }
            Global::Action(d) => {
                let Some(ast::Decl::Action(a)) = self.decls.get(d).copied() else { return Err(()) };
                if self.active.contains(&d) {
                    self.error(span, format!("action `{name}` calls itself (recursion is not allowed)"));
                    return Err(());
                }
                if self.callable == Callable::ParserState || self.cx.as_ref().is_some_and(|c| c.kind == BlockKind::Parser) {
                    self.error(span, "actions cannot be called from parsers");
                    return Err(());
                }
                let id = self.global_action(d)?;
                self.action_call(id, a, args, span)
            }
            Global::Function(_) | Global::ExternFunction(_) => {
                let protos: Vec<(usize, &'a ast::FunctionProto)> = overloads
                    .iter()
                    .filter_map(|g| match g {
                        Global::Function(d) | Global::ExternFunction(d) => match self.decls.get(*d).copied() {
                            Some(ast::Decl::Function(f)) => Some((*d, &f.proto)),
                            Some(ast::Decl::ExternFunction(f)) => Some((*d, f)),
                            _ => None,
                        },
                        _ => None,
                    })
                    .collect();
                self.function_call(protos, name, type_args, args, span)
            }
            Global::Parser(_) | Global::Control(_) | Global::ExternType(_) | Global::BlockType(_) => {
                self.error(span, format!("`{name}` can only be instantiated in a declaration (`{name}(...) instance_name;`)"));
                Err(())
            }
            _ => {
                self.error(p.name.span, format!("`{name}` is not callable"));
                Err(())
            }
        }
    }

    /// A call of a (possibly overloaded) function or extern function.
    fn function_call(&mut self, protos: Vec<(usize, &'a ast::FunctionProto)>, name: &str, type_args: &'a [ast::TypeRef], args: &'a [ast::Arg], span: Span) -> R<CallOut> {
        let proto = self.pick_overload(protos.iter().map(|x| x.1).collect(), args, name, span)?;
        let d = protos.iter().find(|x| std::ptr::eq(x.1, proto)).map(|x| x.0).unwrap_or(0);
        if name == "verify" && self.callable != Callable::ParserState {
            self.error(span, "`verify` can only be called in parsers");
            return Err(());
        }
        let is_extern = matches!(self.decls.get(d), Some(ast::Decl::ExternFunction(_)));
        if !is_extern && self.active.contains(&d) {
            self.error(span, format!("function `{name}` calls itself (recursion is not allowed)"));
            return Err(());
        }
        let targs = self.explicit_or_fresh(&proto.type_params, type_args, span)?;
        let binds = Self::bind_params(&proto.type_params, &targs);
        let (sigs, ret) = self.with_tparams(binds, |me| {
            let sigs = me.param_sigs(&proto.params);
            let ret = proto.ret.as_ref().map(|r| me.resolve_type(r)).unwrap_or(Ty::Void);
            (sigs, ret)
        });
        let args = spread_const_lists(self.call_args(&sigs, args, span, name)?);
        let ret = self.subst.resolve(&ret);
        // An extern object factory makes its object at compile time, from constants.
        if let (true, Ty::Extern(..)) = (is_extern, &ret) {
            if let Some(a) = args.iter().find(|a| !matches!(a.expr.kind, ir::ExprKind::Const(_))) {
                self.error(a.expr.span, format!("the arguments of `{name}`, which makes an extern object, must be compile-time constants"));
                return Err(());
            }
        }
        let targs: Vec<Ty> = targs.iter().map(|t| self.subst.resolve(t)).collect();
        self.check_inferred(&proto.type_params, &targs, span)?;
        let callee = if is_extern {
            ir::Callee::ExternFunction { name: name.to_string(), type_args: targs.iter().map(|t| self.ir_type(t)).collect() }
        } else {
            ir::Callee::Function(self.function_instance(d, targs)?)
        };
        Ok(self.call_out(ir::Call { callee, args, span }, ret, span))
    }

    fn static_assert(&mut self, args: &'a [ast::Arg], span: Span) -> R<CallOut> {
        let Some(first) = args.first() else {
            self.error(span, "`static_assert` needs a condition");
            return Err(());
        };
        let c = self.expr(&first.value, None)?;
        match c.val {
            Some(Value::Bool(true)) => {}
            Some(Value::Bool(false)) => {
                let msg = match args.get(1).map(|a| &a.value.kind) {
                    Some(A::String(s)) => format!(": {s}"),
                    _ => String::new(),
                };
                self.error(span, format!("static assertion failed{msg}"));
                return Err(());
            }
            _ => {
                self.error(first.value.span, "`static_assert` needs a compile-time constant bool");
                return Err(());
            }
        }
        Ok(CallOut::Expr(self.konst(Value::Bool(true), Ty::Bool, span)))
    }

    fn action_call(&mut self, id: ir::ActionId, decl: &'a ast::ActionDecl, args: &'a [ast::Arg], span: Span) -> R<CallOut> {
        match self.callable {
            Callable::ParserState | Callable::BlockDecls if self.cx.as_ref().is_some_and(|c| c.kind == BlockKind::Parser) => {
                self.error(span, "actions cannot be called from parsers");
                return Err(());
            }
            // The spec's table of what may call what: actions from apply blocks and actions only.
            Callable::Function { .. } => {
                self.error(span, "actions cannot be called from functions");
                return Err(());
            }
            _ => {}
        }
        let sigs = self.param_sigs(&decl.params);
        let args = self.call_args(&sigs, args, span, &decl.name.name)?;
        if args.iter().any(|a| applies_table(&a.expr)) {
            self.error(span, "a table cannot be applied in the arguments of an action call");
            return Err(());
        }
        // Called directly, an action's directionless (action data) parameters behave like `in`
        // parameters (spec, "Invoking actions"): run-time values are fine. p4c refuses them in a
        // call from an apply block (not from another action): a portability warning there.
        if self.callable == Callable::ControlApply {
            for (a, s) in args.iter().zip(&sigs) {
                if s.dir == Direction::None && !matches!(a.expr.kind, ir::ExprKind::Const(_)) {
                    self.warn(a.expr.span, format!("run-time value for directionless parameter `{}` of action `{}`: legal P4 (it acts as an `in` parameter), but p4c requires a compile-time constant in a call from an apply block", s.name, decl.name.name));
                }
            }
        }
        Ok(CallOut::Stmt(ir::Stmt::Call(ir::Call { callee: ir::Callee::Action(id), args, span })))
    }

    /// In check mode constructor parameters are variables whose values are only known at
    /// elaboration; they count as constants.
    pub fn is_ctor_param_var(&self, e: &ir::Expr) -> bool {
        match (&e.kind, &self.cx) {
            (ir::ExprKind::Var(v), Some(cx)) => self.check_mode && cx.ctor_vars.contains(v),
            _ => false,
        }
    }

    /// Match arguments to parameters (positional or named, defaults, `@optional`) and lower them with
    /// the parameters' types; out/inout arguments must be writable l-values.
    pub fn call_args(&mut self, sigs: &[ParamSig<'a>], args: &'a [ast::Arg], span: Span, what: &str) -> R<Vec<ir::Arg>> {
        for a in args {
            self.reject_default_values(&a.value, "a call argument")?;
        }
        let mut slots: Vec<Option<&'a ast::Expr>> = vec![None; sigs.len()];
        let named = args.iter().any(|a| a.name.is_some());
        if named {
            for a in args {
                let Some(n) = &a.name else {
                    self.error(a.span, "cannot mix named and positional arguments");
                    return Err(());
                };
                let Some(i) = sigs.iter().position(|s| s.name == n.name) else {
                    self.error(n.span, format!("`{what}` has no parameter named `{}`", n.name));
                    return Err(());
                };
                if slots[i].is_some() {
                    self.error(n.span, format!("argument `{}` given twice", n.name));
                    return Err(());
                }
                slots[i] = Some(&a.value);
            }
        } else {
            if args.len() > sigs.len() {
                self.error(span, format!("`{what}` expects {} argument(s), found {}", sigs.len(), args.len()));
                return Err(());
            }
            for (i, a) in args.iter().enumerate() {
                slots[i] = Some(&a.value);
            }
        }
        for (i, s) in sigs.iter().enumerate() {
            if slots[i].is_none() {
                if let Some(d) = s.default {
                    slots[i] = Some(d);
                } else if !s.optional {
                    if named {
                        self.error(span, format!("missing argument for parameter `{}` of `{what}`", s.name));
                    } else {
                        self.error(span, format!("`{what}` expects {} argument(s), found {}", sigs.len(), args.len()));
                    }
                    return Err(());
                }
            }
        }
        let mut out: Vec<Option<ir::Arg>> = vec![];
        let mut deferred: Vec<(usize, TE)> = vec![];
        let mut ok = true;
        for (i, (s, slot)) in sigs.iter().zip(&slots).enumerate() {
            let Some(e) = slot else {
                let t = self.ir_type(&s.ty);
                out.push(Some(ir::Arg { direction: s.dir, expr: ir::Expr::new(t, ir::ExprKind::DontCare, span) }));
                continue;
            };
            let pt = self.subst.resolve(&s.ty);
            self.dont_care_argument = matches!(e.kind, A::DontCare);
            let te = self.expr(e, Some(&pt));
            self.dont_care_argument = false;
            let te = match te {
                Ok(t) => t,
                Err(()) => {
                    ok = false;
                    out.push(None);
                    continue;
                }
            };
            match s.dir {
                Direction::Out | Direction::InOut => {
                    if te.lv != Some(true) || (s.dir == Direction::InOut && matches!(e.kind, A::DontCare)) {
                        let d = if s.dir == Direction::Out { "out" } else { "inout" };
                        self.error(e.span, format!("argument for `{d}` parameter `{}` must be a writable l-value", s.name));
                        ok = false;
                        out.push(None);
                        continue;
                    }
                    let at = self.subst.resolve(&te.ty);
                    if !self.unify(&pt, &at) {
                        let (x, y) = (self.show(&pt), self.show(&at));
                        self.error(e.span, format!("argument for parameter `{}` has type `{y}`, expected `{x}`", s.name));
                        ok = false;
                        out.push(None);
                        continue;
                    }
                    let ex = self.lower_te(te);
                    out.push(Some(ir::Arg { direction: s.dir, expr: ex }));
                }
                _ => {
                    if matches!(e.kind, A::DontCare) {
                        self.error(e.span, format!("`_` can only be passed to `out` parameters (parameter `{}`)", s.name));
                        ok = false;
                        out.push(None);
                        continue;
                    }
                    if te.ty == Ty::InfInt && matches!(pt, Ty::Infer(_)) {
                        deferred.push((i, te));
                        out.push(None);
                        continue;
                    }
                    match self.coerce(te, &pt, e.span) {
                        Ok(te) => {
                            let ex = self.lower_te(te);
                            out.push(Some(ir::Arg { direction: s.dir, expr: ex }));
                        }
                        Err(()) => {
                            ok = false;
                            out.push(None);
                        }
                    }
                }
            }
        }
        for (s, slot) in sigs.iter().zip(&slots) {
            if let Some(e) = slot {
                if matches!(e.kind, A::DontCare) && matches!(self.subst.resolve(&s.ty), Ty::Infer(_)) {
                    self.error(e.span, format!("cannot infer the type of `_` passed to parameter `{}`", s.name));
                    ok = false;
                }
            }
        }
        for (i, te) in deferred {
            let pt = self.subst.resolve(&sigs[i].ty);
            let sp = te.span;
            match self.coerce(te, &pt, sp) {
                Ok(te) => {
                    let ex = self.lower_te(te);
                    out[i] = Some(ir::Arg { direction: sigs[i].dir, expr: ex });
                }
                Err(()) => ok = false,
            }
        }
        if !ok {
            return Err(());
        }
        Ok(out.into_iter().flatten().collect())
    }

    // ------------------------------------------------------------ statements

    pub fn alloc_var(&mut self, name: &str, ty: &Ty, kind: ir::VarKind) -> ir::VarId {
        let t = self.ir_type(ty);
        self.alloc_ir_var(name, t, kind)
    }

    fn alloc_ir_var(&mut self, name: &str, t: ir::Type, kind: ir::VarKind) -> ir::VarId {
        let Some(cx) = self.cx.as_mut() else { return ir::VarId(0) };
        let mut unique = name.to_string();
        let mut n = 1;
        while cx.vars.iter().any(|v| v.name == unique) {
            unique = format!("{name}_{n}");
            n += 1;
        }
        cx.vars.push(ir::Var { name: unique, ty: t, kind });
        ir::VarId(cx.vars.len() as u32 - 1)
    }

    /// Moves index expressions with side effects (calls, table applies) out of the l-value `k`
    /// into temporaries initialised by statements appended to `pre`.
    fn hoist_effectful_indices(&mut self, k: &mut ir::ExprKind, pre: &mut Vec<ir::Stmt>) {
        use ir::ExprKind as K;
        match k {
            K::Field(b, _) | K::Slice(b, _, _) | K::StackNext(b) | K::StackLast(b) => self.hoist_effectful_indices(&mut b.kind, pre),
            K::Index(b, idx) => {
                self.hoist_effectful_indices(&mut b.kind, pre);
                if has_effects(idx) {
                    let var = self.alloc_ir_var("index_tmp", idx.ty.clone(), ir::VarKind::Temp);
                    let tmp = ir::Expr::new(idx.ty.clone(), K::Var(var), idx.span);
                    let old = std::mem::replace(&mut **idx, tmp);
                    pre.push(ir::Stmt::VarInit { var, span: old.span, init: Some(old) });
                }
            }
            _ => {}
        }
    }

    pub fn block_stmts(&mut self, ss: &'a [ast::Stmt]) -> Vec<ir::Stmt> {
        self.scopes.push(HashMap::new());
        // Most statements lower to one: no room left over from growing (the IR is kept).
        let mut out = Vec::with_capacity(ss.len());
        for s in ss {
            self.stmt(s, &mut out);
        }
        self.scopes.pop();
        out
    }

    fn sub_stmt(&mut self, s: &'a ast::Stmt) -> Vec<ir::Stmt> {
        match s {
            ast::Stmt::Block(b) => self.block_stmts(&b.stmts),
            other => self.block_stmts(std::slice::from_ref(other)),
        }
    }

    pub fn stmt(&mut self, s: &'a ast::Stmt, out: &mut Vec<ir::Stmt>) {
        if let Ok(st) = self.stmt_inner(s) {
            if !matches!(st, ir::Stmt::Empty) {
                out.push(st);
            }
        }
    }

    fn stmt_inner(&mut self, s: &'a ast::Stmt) -> R<ir::Stmt> {
        use ast::Stmt as S;
        Ok(match s {
            S::Assign { lhs, op, rhs, span } => {
                let l = self.expr(lhs, None)?;
                match l.lv {
                    Some(true) => {}
                    Some(false) => {
                        self.error(lhs.span, "cannot assign to a read-only value (an `in` or directionless parameter, or a constant)");
                        return Err(());
                    }
                    None => {
                        self.error(lhs.span, "the left-hand side of an assignment must be an l-value");
                        return Err(());
                    }
                }
                // `a[f(x)] op= e` reads and writes `a[f(x)]` but evaluates `f(x)` once.
                let mut l = l;
                let mut pre = vec![];
                if op.is_some() {
                    self.hoist_effectful_indices(&mut l.kind, &mut pre);
                }
                let lt = self.subst.resolve(&l.ty);
                let r = self.expr(rhs, Some(&lt))?;
                let r = match op {
                    Some(op) => self.binary_te(*op, l.clone(), r, lhs.span, rhs.span, *span)?,
                    None => r,
                };
                let r = self.coerce(r, &lt, rhs.span)?;
                let (li, ri) = (self.lower_te(l), self.lower_te(r));
                let assign = ir::Stmt::Assign { lhs: li, rhs: ri, span: *span };
                if pre.is_empty() {
                    assign
                } else {
                    pre.push(assign);
                    ir::Stmt::Block(pre)
                }
            }
            S::Call { call, span } => match self.call(call, None)? {
                CallOut::Stmt(s) => s,
                CallOut::Expr(te) => match te.kind {
                    ir::ExprKind::Call(c) => ir::Stmt::Call(*c),
                    ir::ExprKind::ApplyTable(t, _) => ir::Stmt::ApplyTable { table: t, span: *span },
                    _ => ir::Stmt::Empty,
                },
            },
            S::If { cond, then, otherwise, span } => {
                let c = self.expr(cond, None).and_then(|c| {
                    if !matches!(self.subst.resolve(&c.ty), Ty::Bool | Ty::Unknown) {
                        let t = self.show(&c.ty);
                        self.error(cond.span, format!("condition must be bool, found `{t}`"));
                        return Err(());
                    }
                    Ok(c)
                });
                let t = self.sub_stmt(then);
                let o = otherwise.as_ref().map(|o| self.sub_stmt(o)).unwrap_or_default();
                if self.callable == Callable::Action && self.lookup_global("V1Switch").is_some() {
                    // For v1model (bmv2), p4c turns an `if` in an action into predicated
                    // assignments and refuses an extern call it cannot predicate ("not supported
                    // on this target", its issue513 test). Other architectures are not restricted.
                    if let Some(call_span) = t.iter().chain(&o).find_map(conditional_extern_call) {
                        self.error_at(
                            call_span,
                            "an extern call under a condition in an action is not supported (p4c: conditional execution in actions is not supported on this target)",
                            "call it from the control's apply block, or from an action without the `if`",
                        );
                        return Err(());
                    }
                }
                let c = c?;
                let c = self.lower_te(c);
                ir::Stmt::If { cond: c, then: t, otherwise: o, span: *span }
            }
            S::Block(b) => ir::Stmt::Block(self.block_stmts(&b.stmts)),
            S::Exit(span) => {
                match self.callable {
                    Callable::Function { .. } => self.error(*span, "`exit` is not allowed in functions"),
                    Callable::ParserState => self.error(*span, "`exit` is not allowed in parsers"),
                    _ => {}
                }
                ir::Stmt::Exit(*span)
            }
            S::Return(v, span) => self.return_stmt(v.as_ref(), *span)?,
            S::Break(span) | S::Continue(span) => {
                if self.loop_depth == 0 {
                    self.error(*span, "`break`/`continue` outside of a loop");
                    return Err(());
                }
                if matches!(s, S::Break(_)) {
                    ir::Stmt::Break(*span)
                } else {
                    ir::Stmt::Continue(*span)
                }
            }
            S::Empty(_) => ir::Stmt::Empty,
            S::Switch { span, .. } if self.callable == Callable::ParserState => {
                self.error(*span, "`switch` statements are not allowed in parsers");
                return Err(());
            }
            S::Switch { span, .. } if self.callable == Callable::Action => {
                self.error(*span, "`switch` statements are not allowed in actions");
                return Err(());
            }
            S::Switch { expr, cases, span } => self.switch(expr, cases, *span)?,
            S::For { init, cond, update, body, span, .. } => {
                self.scopes.push(HashMap::new());
                let mut i = vec![];
                for s in init {
                    self.stmt(s, &mut i);
                }
                let c = cond.as_ref().map(|c| self.lower(c, Some(&Ty::Bool)));
                let mut u = vec![];
                for s in update {
                    self.stmt(s, &mut u);
                }
                self.loop_depth += 1;
                let b = self.sub_stmt(body);
                self.loop_depth -= 1;
                self.scopes.pop();
                let cond = match c {
                    Some(c) => Some(c?),
                    None => None,
                };
                ir::Stmt::For { init: i, cond, update: u, body: b, span: *span }
            }
            S::ForIn { ty, var, collection, body, span, .. } => self.for_in(ty, var, collection, body, *span)?,
            S::Decl(d) => self.local_decl_stmt(d)?,
        })
    }

    /// The control-plane name of an extern instance hoisted out of a body into its block.
    pub fn hoisted_instance_name(&self, anns: &[ast::Annotation], local: &str) -> String {
        let prefix = self.cx.as_ref().map(|c| c.name.clone()).unwrap_or_default();
        Self::cp_name(Some(&prefix), anns, local)
    }

    fn local_decl_stmt(&mut self, d: &'a ast::Decl) -> R<ir::Stmt> {
        match d {
            ast::Decl::Var(v) => self.var_decl(v, ir::VarKind::Temp),
            ast::Decl::Const(c) => {
                self.check_param_shadowing(&c.name);
                let ty = self.value_decl_type(&c.ty);
                let value = self.const_value(&c.value, &ty).ok_or(())?;
                self.bind_local(&c.name, Local::Const { value, ty });
                Ok(ir::Stmt::Empty)
            }
            ast::Decl::Instantiation(i) => {
                // p4c accepts extern instances declared in bodies (e.g. a register local to an
                // action); like p4c they are hoisted to the enclosing block. A parser instantiated
                // in a parser state is an instance of the enclosing parser too, as if declared
                // among its locals; a control cannot be instantiated in an apply block (p4c:
                // "instances cannot be in a control 'apply' block"), nor parsers, controls and
                // packages in actions and functions.
                let ty = self.resolve_type(&i.ty);
                if let (Ty::Block(..), Callable::ControlApply) = (&ty, &self.callable) {
                    self.error(i.span, "parsers and controls cannot be instantiated in an apply block: declare the instance among the control's locals");
                    self.bind_local(&i.name, Local::Const { value: Value::Bool(false), ty: Ty::Unknown });
                    return Err(());
                }
                let in_block_body = self.callable == Callable::ParserState;
                if let (Ty::Block(..), true, Some(cx)) = (&ty, in_block_body, self.cx.as_ref()) {
                    let (kind, prefix) = (cx.kind, cx.name.clone());
                    let callable = std::mem::replace(&mut self.callable, Callable::BlockDecls);
                    self.local_instantiation(i, kind, &prefix);
                    self.callable = callable;
                    return Ok(ir::Stmt::Empty);
                }
                if !matches!(ty, Ty::Extern(..)) {
                    if !ty.is_unknown() {
                        self.error(i.span, "only extern instances can be declared inside actions and functions");
                    }
                    // Later uses of the name would only repeat the problem.
                    self.bind_local(&i.name, Local::Const { value: Value::Bool(false), ty: Ty::Unknown });
                    return Err(());
                }
                let name = self.hoisted_instance_name(&i.annotations, &i.name.name);
                let (id, ty) = self.instantiate_extern(&ty, &i.args, name, &i.annotations, i.initializer.as_deref(), i.span)?;
                self.bind_local(&i.name, Local::Extern { id, ty });
                Ok(ir::Stmt::Empty)
            }
            other => {
                let sp = other.name().map(|n| n.span).unwrap_or(Span::DUMMY);
                self.error(sp, "this declaration is not allowed inside a statement block");
                Err(())
            }
        }
    }

    /// `T x = init;` as a statement or block-level local.
    /// A declaration in a statement block may not hide a parameter of the enclosing parser or
    /// control (p4c: "declaration shadows a parameter"); block-level locals only warn.
    fn check_param_shadowing(&mut self, name: &ast::Ident) {
        let shadows_param = match (self.lookup_local(&name.name), &self.cx) {
            (Some(Local::Var { id, .. }), Some(cx)) => matches!(cx.vars.get(id.index()).map(|v| &v.kind), Some(ir::VarKind::Param(_))),
            _ => false,
        };
        if shadows_param {
            self.error(name.span, format!("declaration of `{}` shadows a parameter of the enclosing block", name.name));
        }
    }

    pub fn var_decl(&mut self, v: &'a ast::VarDecl, kind: ir::VarKind) -> R<ir::Stmt> {
        if kind == ir::VarKind::Temp {
            self.check_param_shadowing(&v.name);
        }
        let ty = self.value_decl_type(&v.ty);
        match &ty {
            Ty::Void | Ty::InfInt | Ty::String => {
                let s = self.show(&ty);
                self.error(v.ty.span, format!("variables cannot have type `{s}`"));
            }
            Ty::Extern(..) | Ty::Block(..) => {
                let s = self.show(&ty);
                self.error(v.ty.span, format!("`{s}` objects must be instantiated (`{s}(...) {};`), not declared as variables", v.name.name));
            }
            _ => {}
        }
        let init = match &v.init {
            Some(e) => self.lower(e, Some(&ty)).ok(),
            None => None,
        };
        let id = self.alloc_var(&v.name.name, &ty, kind);
        self.bind_local(&v.name, Local::Var { id, ty, writable: true });
        if v.init.is_some() && init.is_none() {
            return Err(());
        }
        Ok(ir::Stmt::VarInit { var: id, init, span: v.span })
    }

    fn return_stmt(&mut self, v: Option<&'a ast::Expr>, span: Span) -> R<ir::Stmt> {
        if let Some(e) = v {
            self.reject_default_values(e, "a return statement")?;
        }
        match self.callable.clone() {
            Callable::Function { ret } => match (v, ret == Ty::Void) {
                (None, true) => Ok(ir::Stmt::Return(None, span)),
                (Some(e), true) => {
                    self.error(e.span, "a `void` function cannot return a value");
                    Err(())
                }
                (None, false) => {
                    let s = self.show(&ret);
                    self.error(span, format!("`return` needs a value of type `{s}`"));
                    Err(())
                }
                (Some(e), false) => {
                    let x = self.lower(e, Some(&ret))?;
                    Ok(ir::Stmt::Return(Some(x), span))
                }
            },
            Callable::ParserState | Callable::BlockDecls => {
                self.error(span, "`return` is not allowed in parsers");
                Err(())
            }
            _ => match v {
                Some(e) => {
                    self.error(e.span, "actions and controls cannot return a value");
                    Err(())
                }
                None => Ok(ir::Stmt::Return(None, span)),
            },
        }
    }

    /// Declares the loop variable `var` (read-only, of type `t`) in the loop's scope, which the
    /// caller has pushed, lowers `body` with it in scope, and pops the scope.
    fn loop_var_and_body(&mut self, var: &'a ast::Ident, t: &Ty, body: &'a ast::Stmt) -> (ir::VarId, Vec<ir::Stmt>) {
        let id = self.alloc_var(&var.name, t, ir::VarKind::Temp);
        self.bind_local(var, Local::Var { id, ty: t.clone(), writable: false });
        self.loop_depth += 1;
        let b = self.sub_stmt(body);
        self.loop_depth -= 1;
        self.scopes.pop();
        (id, b)
    }

    fn for_in(&mut self, ty: &'a ast::TypeRef, var: &'a ast::Ident, coll: &'a ast::Expr, body: &'a ast::Stmt, span: Span) -> R<ir::Stmt> {
        let A::Range(lo, hi) = &coll.kind else {
            return self.for_in_collection(ty, var, coll, body, span);
        };
        let t = self.resolve_type(ty);
        if !t.is_bits() {
            let s = self.show(&t);
            self.error(ty.span, format!("a range loop variable must be bit<W> or int<W>, not `{s}`"));
            return Err(());
        }
        self.scopes.push(HashMap::new());
        let l = self.lower(lo, Some(&t));
        let h = self.lower(hi, Some(&t));
        let (id, b) = self.loop_var_and_body(var, &t, body);
        let (l, h) = (l?, h?);
        // Lowered as: `i = lo; end = hi; go = lo <= end; while (go) { body } update { if (i == end)
        // go = false; else i = i + 1; }` — the bounds are evaluated once and the counter never wraps.
        let vname = self.cx.as_ref().and_then(|c| c.vars.get(id.index())).map(|v| v.name.clone()).unwrap_or_default();
        let end = self.alloc_var(&format!("{vname}.end"), &t, ir::VarKind::Temp);
        let go = self.alloc_var(&format!("{vname}.go"), &Ty::Bool, ir::VarKind::Temp);
        let it = self.ir_type(&t);
        let Ty::Bits { width, signed } = t else { return Err(()) };
        let var_e = |v: ir::VarId, ty: &ir::Type| ir::Expr::new(ty.clone(), ir::ExprKind::Var(v), span);
        let bin = |op: ir::BinOp, ty: ir::Type, a: ir::Expr, b: ir::Expr| ir::Expr::new(ty, ir::ExprKind::Binary(op, Box::new(a), Box::new(b)), span);
        let (iv, ev, gv) = (var_e(id, &it), var_e(end, &it), var_e(go, &ir::Type::Bool));
        let one = ir::Expr::constant(crate::consteval::bits(width, signed, 1.into()), it.clone(), span);
        let init = vec![
            ir::Stmt::VarInit { var: id, init: Some(l), span },
            ir::Stmt::VarInit { var: end, init: Some(h), span },
            ir::Stmt::VarInit { var: go, init: Some(bin(ir::BinOp::Le, ir::Type::Bool, iv.clone(), ev.clone())), span },
        ];
        let update = vec![ir::Stmt::If {
            cond: bin(ir::BinOp::Eq, ir::Type::Bool, iv.clone(), ev),
            then: vec![ir::Stmt::Assign { lhs: gv.clone(), rhs: ir::Expr::constant(Value::Bool(false), ir::Type::Bool, span), span }],
            otherwise: vec![ir::Stmt::Assign { lhs: iv.clone(), rhs: bin(ir::BinOp::Add, it, iv, one), span }],
            span,
        }];
        Ok(ir::Stmt::For { init, cond: Some(gv), update, body: b, span })
    }

    /// `for (T x in stack_or_list)`: a counted loop over a hidden index; `x` is a read-only copy of
    /// the element (a list's elements are selected with a `switch` on the index).
    fn for_in_collection(&mut self, ty: &'a ast::TypeRef, var: &'a ast::Ident, coll: &'a ast::Expr, body: &'a ast::Stmt, span: Span) -> R<ir::Stmt> {
        let t = self.resolve_type(ty);
        let c = self.expr(coll, None)?;
        let ct = self.subst.resolve(&c.ty);
        let n = match &ct {
            Ty::Stack(_, n) => *n,
            Ty::Tuple(ts) => ts.len() as u32,
            Ty::List(_) => match &c.kind {
                ir::ExprKind::Aggregate(xs) => xs.len() as u32,
                _ => 0,
            },
            other => {
                let s = self.show(other);
                self.error(coll.span, format!("cannot iterate over a value of type `{s}`"));
                return Err(());
            }
        };
        let elem_tys: Vec<Ty> = match &ct {
            Ty::Stack(e, n) => vec![(**e).clone(); *n as usize],
            Ty::Tuple(ts) => ts.clone(),
            _ => vec![],
        };
        for et in &elem_tys {
            let int_into_bits = *et == Ty::InfInt && t.is_bits();
            if !int_into_bits && !self.unify(et, &t) {
                let (a, b) = (self.show(et), self.show(&t));
                self.error(coll.span, format!("element of type `{a}` cannot be bound to a loop variable of type `{b}`"));
                return Err(());
            }
        }
        self.scopes.push(HashMap::new());
        let idx_t = Ty::bit(32);
        let idx = self.alloc_var(&format!("{}.index", var.name), &idx_t, ir::VarKind::Temp);
        let (id, b) = self.loop_var_and_body(var, &t, body);
        let it = self.ir_type(&idx_t);
        let vt = self.ir_type(&t);
        let iv = ir::Expr::new(it.clone(), ir::ExprKind::Var(idx), span);
        let konst = |k: u32| ir::Expr::constant(crate::consteval::bits(32, false, k.into()), ir::Type::bit(32), span);
        let const_elems = match &c.val {
            Some(Value::Aggregate { fields, .. }) => Some(fields.clone()),
            _ => None,
        };
        let cir = self.lower_te(c);
        let fetch = match &ct {
            Ty::Stack(..) => vec![ir::Stmt::VarInit {
                var: id,
                init: Some(ir::Expr::new(vt, ir::ExprKind::Index(Box::new(cir), Box::new(iv.clone())), span)),
                span,
            }],
            _ => {
                let elems: Vec<ir::Expr> = match (const_elems, cir.kind.clone()) {
                    (Some(vs), _) => vs.into_iter().map(|v| ir::Expr::constant(v, vt.clone(), span)).collect(),
                    (None, ir::ExprKind::Aggregate(xs)) => xs,
                    _ => (0..n).map(|k| ir::Expr::new(vt.clone(), ir::ExprKind::Field(Box::new(cir.clone()), k), span)).collect(),
                };
                let cases = elems
                    .into_iter()
                    .enumerate()
                    .map(|(k, mut e)| {
                        if let (ir::ExprKind::Const(v), ir::Type::Bits { width, signed }) = (&e.kind, &vt) {
                            if let Some(c) = crate::consteval::to_bits(v, *width, *signed) {
                                e = ir::Expr::constant(c, vt.clone(), e.span);
                            }
                        }
                        (Some(crate::consteval::bits(32, false, k.into())), vec![ir::Stmt::VarInit { var: id, init: Some(e), span }])
                    })
                    .collect();
                vec![ir::Stmt::SwitchValue { expr: iv.clone(), cases, span }]
            }
        };
        let mut full_body = fetch;
        full_body.extend(b);
        let cond = ir::Expr::new(ir::Type::Bool, ir::ExprKind::Binary(ir::BinOp::Lt, Box::new(iv.clone()), Box::new(konst(n))), span);
        let inc = ir::Expr::new(it, ir::ExprKind::Binary(ir::BinOp::Add, Box::new(iv.clone()), Box::new(konst(1))), span);
        Ok(ir::Stmt::For {
            init: vec![ir::Stmt::VarInit { var: idx, init: Some(konst(0)), span }],
            cond: Some(cond),
            update: vec![ir::Stmt::Assign { lhs: iv, rhs: inc, span }],
            body: full_body,
            span,
        })
    }

    fn switch(&mut self, e: &'a ast::Expr, cases: &'a [ast::SwitchCase], span: Span) -> R<ir::Stmt> {
        // `switch (t.apply().action_run)`
        if let A::Member(call, m) = &e.kind {
            if m.name == "action_run" {
                if let A::Call { callee, args, .. } = &call.kind {
                    if let A::Member(tb, apply) = &callee.kind {
                        if let (Some(Local::Table { id, .. }), "apply", true) = (self.name_local(tb), apply.name.as_str(), args.is_empty()) {
                            self.check_table_apply_context(span)?;
                            return self.switch_action(id, cases, span);
                        }
                    }
                }
            }
        }
        let te = self.expr(e, None)?;
        let t = self.subst.resolve(&te.ty);
        let ok = match &t {
            Ty::Bits { .. } | Ty::Error | Ty::Unknown | Ty::Param(_) => true,
            Ty::Named(n) => self.named[*n].kind == NamedKind::Enum,
            Ty::NewType(_) => true,
            _ => false,
        };
        if !ok {
            let s = self.show(&t);
            self.error(e.span, format!("cannot switch on a value of type `{s}`"));
            return Err(());
        }
        let labels = self.switch_cases(cases, |this, l, labels| {
            let v = this.expr(l, Some(&t)).and_then(|x| this.coerce(x, &t, l.span));
            match v.ok().and_then(|x| x.val) {
                Some(v) => {
                    let duplicate = labels.iter().any(|(s, _)| s.as_ref().is_some_and(|s| crate::consteval::equal(s, &v)));
                    if duplicate {
                        this.error(l.span, "duplicate switch label");
                    }
                    (Some(v), !duplicate)
                }
                None => {
                    this.error(l.span, "switch labels must be compile-time constants of the switched type");
                    (None, false)
                }
            }
        })?;
        let cases = resolve_fallthrough(labels);
        let ex = self.lower_te(te);
        Ok(ir::Stmt::SwitchValue { expr: ex, cases, span })
    }

    fn switch_action(&mut self, table: ir::TableId, cases: &'a [ast::SwitchCase], span: Span) -> R<ir::Stmt> {
        let table_actions: Vec<ir::ActionId> = self.out.prog.tables.get(table.index()).map(|t| t.actions.iter().map(|a| a.action).collect()).unwrap_or_default();
        let labels = self.switch_cases(cases, |this, l, labels| match this.action_by_name(l) {
            Some(a) => {
                let mut ok = true;
                if !table_actions.contains(&a) && !this.check_mode_table_unknown(table) {
                    this.error(l.span, "this action is not in the table's `actions` list");
                    ok = false;
                }
                if labels.iter().any(|(x, _)| *x == Some(a)) {
                    this.error(l.span, "duplicate switch label");
                    ok = false;
                }
                (Some(a), ok)
            }
            None => {
                this.error(l.span, "labels of a `switch` on `action_run` must be action names");
                (None, false)
            }
        })?;
        Ok(ir::Stmt::SwitchAction { table, cases: resolve_fallthrough(labels), span })
    }

    /// The cases of a `switch`, each with its label and its body (`None` for a label that
    /// falls through). `label` resolves a non-default label given the cases so far, reports
    /// what is wrong with it, and says whether it is good; `default` must come last. Fails
    /// after reading every case if any label was bad, so all their errors are reported.
    fn switch_cases<L>(
        &mut self,
        cases: &'a [ast::SwitchCase],
        mut label: impl FnMut(&mut Self, &'a ast::Expr, &SwitchCases<L>) -> (Option<L>, bool),
    ) -> R<SwitchCases<L>> {
        let mut labels = vec![];
        let mut failed = false;
        for (i, c) in cases.iter().enumerate() {
            let l = match &c.label {
                None => {
                    if i + 1 != cases.len() {
                        self.error(c.span, "`default` must be the last switch label");
                        failed = true;
                    }
                    None
                }
                Some(l) if matches!(l.kind, A::Default) => None,
                Some(l) => {
                    let (l, ok) = label(self, l, &labels);
                    failed |= !ok;
                    l
                }
            };
            let body = c.body.as_ref().map(|b| self.block_stmts(&b.stmts));
            labels.push((l, body));
        }
        if failed {
            return Err(());
        }
        Ok(labels)
    }

    fn check_mode_table_unknown(&self, table: ir::TableId) -> bool {
        self.out.prog.tables.get(table.index()).is_none()
    }

    /// The action an expression names (local or already-lowered top-level action).
    pub fn action_by_name(&mut self, e: &'a ast::Expr) -> Option<ir::ActionId> {
        let A::Name(p) = &e.kind else { return None };
        if !p.global {
            if let Some(Local::Action { id, .. }) = self.lookup_local(&p.name.name) {
                return Some(*id);
            }
        }
        match self.lookup_global(&p.name.name) {
            Some(Global::Action(d)) => {
                let d = *d;
                self.global_action(d).ok()
            }
            _ => None,
        }
    }
}

/// Give each fall-through label (no body) the body of the next label that has one.
/// A switch's cases as written: label (`None` for `default`) and body (`None` to fall through).
type SwitchCases<L> = Vec<(Option<L>, Option<Vec<ir::Stmt>>)>;

fn resolve_fallthrough<L>(labels: Vec<(L, Option<Vec<ir::Stmt>>)>) -> Vec<(L, Vec<ir::Stmt>)> {
    let mut out: Vec<(L, Vec<ir::Stmt>)> = vec![];
    let mut next: Vec<ir::Stmt> = vec![];
    for (l, b) in labels.into_iter().rev() {
        if let Some(b) = b {
            next = b;
        }
        out.push((l, next.clone()));
    }
    out.reverse();
    out
}

/// True if every path through `ss` ends in `return` (or `exit`).
pub fn always_returns(ss: &[ir::Stmt]) -> bool {
    ss.iter().any(|s| match s {
        ir::Stmt::Return(..) | ir::Stmt::Exit(_) => true,
        ir::Stmt::Block(b) => always_returns(b),
        ir::Stmt::If { then, otherwise, .. } => always_returns(then) && always_returns(otherwise),
        ir::Stmt::SwitchValue { cases, .. } => cases.iter().any(|(l, _)| l.is_none()) && cases.iter().all(|(_, b)| always_returns(b)),
        _ => false,
    })
}

/// True if evaluating `e` applies a table (`t.apply().hit`).
fn applies_table(e: &ir::Expr) -> bool {
    e.any(&mut |x| matches!(x.kind, ir::ExprKind::ApplyTable(..)))
}

/// True if evaluating `e` can change state (it calls something or applies a table).
fn has_effects(e: &ir::Expr) -> bool {
    e.any(&mut |x| matches!(x.kind, ir::ExprKind::Call(_) | ir::ExprKind::ApplyTable(..)))
}

/// Extern arguments that are constant lists (data lists such as `{ 16w1 }`) stay lists of
/// constants: the target reads them element by element, which one folded aggregate constant hides.
fn spread_const_lists(args: Vec<ir::Arg>) -> Vec<ir::Arg> {
    args.into_iter().map(|a| ir::Arg { expr: spread_const_list(a.expr), ..a }).collect()
}

fn spread_const_list(e: ir::Expr) -> ir::Expr {
    match (&e.kind, &e.ty) {
        (ir::ExprKind::Const(Value::Aggregate { fields, .. }), ir::Type::Tuple(tys)) if fields.len() == tys.len() => {
            let items = fields.iter().zip(tys).map(|(f, t)| spread_const_list(ir::Expr::constant(f.clone(), t.clone(), e.span))).collect();
            ir::Expr::new(e.ty.clone(), ir::ExprKind::Aggregate(items), e.span)
        }
        _ => e,
    }
}

/// The span of an extern function or method call statement in `s` (looking into nested blocks
/// and conditionals), if any.
fn conditional_extern_call(s: &ir::Stmt) -> Option<Span> {
    match s {
        ir::Stmt::Call(c) if matches!(c.callee, ir::Callee::ExternFunction { .. } | ir::Callee::Method { .. }) => Some(c.span),
        ir::Stmt::If { then, otherwise, .. } => then.iter().chain(otherwise).find_map(conditional_extern_call),
        ir::Stmt::Block(b) => b.iter().find_map(conditional_extern_call),
        _ => None,
    }
}

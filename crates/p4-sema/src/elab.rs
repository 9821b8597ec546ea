//! Elaboration of the top-level `main` package instantiation.
//!
//! Invariant: package type parameters are inferred by unifying each package parameter's block type
//! (e.g. `Parser<H, M>`) with the argument's own signature, parameter by parameter; blocks are then
//! instantiated with fully resolved (variable-free) types.

use crate::sema::{Global, Sema, R};
use crate::types::Ty;
use p4_ir as ir;
use p4_syntax::ast::{self, Decl, Direction, ExprKind as A};
use p4_syntax::span::Span;

/// What one package argument denotes before it is instantiated.
enum ArgKind<'a> {
    Block { decl: usize, targs: Vec<Ty>, args: &'a [ast::Arg] },
    Package { ty: Ty, args: &'a [ast::Arg] },
    Extern,
    Value,
}

impl<'a> Sema<'a> {
    /// Elaborate `main`. `None` if elaboration failed (errors or unsupported constructs reported).
    pub fn elaborate(&mut self) -> Option<ir::Package> {
        let Some(Global::Instance(d)) = self.lookup_global("main").cloned() else {
            return Some(ir::Package::default());
        };
        let Some(Decl::Instantiation(i)) = self.decls.get(d).copied() else { return None };
        let ty = self.resolve_type(&i.ty);
        match &ty {
            Ty::Block(pd, _) if matches!(self.decls.get(*pd), Some(Decl::Package(_))) => {}
            Ty::Unknown => return None,
            _ => {
                let s = self.show(&ty);
                self.error(i.span, format!("`main` must be an instance of a package, not of `{s}`"));
                return None;
            }
        }
        self.package(&ty, &i.args, "main".to_string(), i.span).ok()
    }

    /// Checks a package instance's arguments against its parameters without elaborating it (a
    /// top-level package instance other than `main`: `main` elaborates those it uses).
    pub(crate) fn check_package_args(&mut self, ty: &Ty, args: &'a [ast::Arg], span: Span) {
        let _ = self.package_arg_kinds(ty, args, span);
    }

    /// The package's parameters, the argument for each, and what each argument is, with the
    /// arguments' types unified with the parameters'.
    #[allow(clippy::type_complexity)]
    fn package_arg_kinds(&mut self, ty: &Ty, args: &'a [ast::Arg], span: Span) -> R<(&'a ast::BlockTypeDecl, Vec<crate::sema::ParamSig<'a>>, Vec<Option<&'a ast::Expr>>, Vec<Option<ArgKind<'a>>>)> {
        let Ty::Block(pd, targs) = ty else { return Err(()) };
        let Some(Decl::Package(pkg)) = self.decls.get(*pd).copied() else { return Err(()) };
        let binds = Self::bind_params(&pkg.type_params, targs);
        let sigs = self.with_tparams(binds, |me| me.param_sigs(&pkg.params));
        let slots = self.match_ctor_args(&sigs, args, span)?;
        // First pass: classify arguments and unify their types with the parameters.
        let mut kinds = vec![];
        for (s, e) in sigs.iter().zip(&slots) {
            let Some(e) = e else {
                kinds.push(None);
                continue;
            };
            let k = self.classify_arg(e)?;
            match &k {
                ArgKind::Block { decl, targs, .. } => {
                    let arg_ty = Ty::Block(*decl, targs.clone());
                    self.unify_block_types(&s.ty, &arg_ty, e.span)?;
                }
                ArgKind::Package { ty, .. } => {
                    if !self.unify(&s.ty, ty) {
                        let (a, b) = (self.show(&s.ty), self.show(ty));
                        self.error(e.span, format!("package argument of type `{b}` does not match parameter type `{a}`"));
                        return Err(());
                    }
                }
                ArgKind::Extern | ArgKind::Value => {}
            }
            kinds.push(Some(k));
        }
        Ok((pkg, sigs, slots, kinds))
    }

    fn package(&mut self, ty: &Ty, args: &'a [ast::Arg], name: String, span: Span) -> R<ir::Package> {
        let (pkg, sigs, slots, kinds) = self.package_arg_kinds(ty, args, span)?;
        let type_name = pkg.name.name.clone();
        let mut out = ir::Package { type_name: type_name.to_string(), name, args: vec![] };
        for ((s, e), k) in sigs.iter().zip(slots).zip(kinds) {
            let (Some(e), Some(k)) = (e, k) else { continue };
            let arg = match k {
                ArgKind::Block { decl, targs, args } => {
                    let targs: Vec<Ty> = targs.iter().map(|t| self.subst.resolve(t)).collect();
                    if targs.iter().any(Ty::has_vars) {
                        self.error(e.span, "cannot infer the type arguments of this instance");
                        return Err(());
                    }
                    let base = self.decls.get(decl).and_then(|d| d.name()).map(|n| n.name.to_string()).unwrap_or_default();
                    let name = self.unique_block_name(&base);
                    match self.instantiate_block(decl, targs, args, name, e.span)? {
                        ir::BlockRef::Parser(p) => ir::PackageArg::Parser(p),
                        ir::BlockRef::Control(c) => ir::PackageArg::Control(c),
                    }
                }
                ArgKind::Package { ty, args } => {
                    let ty = self.subst.resolve(&ty);
                    ir::PackageArg::Package(Box::new(self.package(&ty, args, s.name.clone(), e.span)?))
                }
                ArgKind::Extern => {
                    let (id, _) = self.ctor_extern_arg(e, &s.name)?;
                    ir::PackageArg::Extern(id)
                }
                ArgKind::Value => {
                    let pt = self.subst.resolve(&s.ty);
                    ir::PackageArg::Value(self.const_value(e, &pt).ok_or(())?)
                }
            };
            out.args.push((s.name.clone(), arg));
        }
        Ok(out)
    }

    fn unique_block_name(&self, base: &str) -> String {
        let taken = |n: &str| self.out.prog.parsers.iter().any(|p| p.block.name == n) || self.out.prog.controls.iter().any(|c| c.block.name == n);
        if !taken(base) {
            return base.to_string();
        }
        (1..).map(|i| format!("{base}_{i}")).find(|n| !taken(n)).unwrap_or_default()
    }

    fn classify_arg(&mut self, e: &'a ast::Expr) -> R<ArgKind<'a>> {
        let (path, type_args, args): (&'a ast::Path, Vec<Ty>, &'a [ast::Arg]) = match &e.kind {
            A::Construct { ty, args } => match &ty.kind {
                ast::TypeRefKind::Named(p) => (p, vec![], args),
                ast::TypeRefKind::Specialized(p, ts) => (p, ts.iter().map(|t| self.resolve_type(t)).collect(), args),
                _ => return Ok(ArgKind::Value),
            },
            A::Call { callee, type_args, args } => match &callee.kind {
                A::Name(p) => (p, type_args.iter().map(|t| self.resolve_type(t)).collect(), args),
                _ => return Ok(ArgKind::Value),
            },
            A::Name(p) => match self.lookup_global(&p.name.name).cloned() {
                // A top-level instance of a package, parser or control passed by name
                // (`Pipeline(...) p0; Switch(p0) main;`) is classified by its instantiation.
                Some(Global::Instance(d)) => {
                    let decl: Option<&'a Decl> = self.decls.get(d).copied();
                    let Some(Decl::Instantiation(inst)) = decl else { return Ok(ArgKind::Extern) };
                    let (ip, targs) = match &inst.ty.kind {
                        ast::TypeRefKind::Named(ip) => (ip, vec![]),
                        ast::TypeRefKind::Specialized(ip, ts) => (ip, ts.iter().map(|t| self.resolve_type(t)).collect()),
                        _ => return Ok(ArgKind::Extern),
                    };
                    match self.lookup_global(&ip.name.name) {
                        Some(Global::Parser(_) | Global::Control(_) | Global::BlockType(_)) => (ip, targs, &inst.args[..]),
                        _ => return Ok(ArgKind::Extern),
                    }
                }
                _ => return Ok(ArgKind::Value),
            },
            _ => return Ok(ArgKind::Value),
        };
        match self.lookup_global(&path.name.name).cloned() {
            Some(Global::Parser(d) | Global::Control(d)) => {
                let tps = self.type_params_of(d);
                let targs = if type_args.is_empty() { tps.iter().map(|_| self.fresh()).collect() } else { type_args };
                Ok(ArgKind::Block { decl: d, targs, args })
            }
            Some(Global::BlockType(d)) if matches!(self.decls.get(d), Some(Decl::Package(_))) => {
                let tps = self.type_params_of(d);
                let targs = if type_args.is_empty() { tps.iter().map(|_| self.fresh()).collect() } else { type_args };
                Ok(ArgKind::Package { ty: Ty::Block(d, targs), args })
            }
            Some(Global::BlockType(_)) => {
                self.error(e.span, format!("`{}` is a type declaration without a body; it cannot be instantiated", path.name.name));
                Err(())
            }
            Some(Global::ExternType(_)) => Ok(ArgKind::Extern),
            Some(Global::Function(_) | Global::ExternFunction(_)) => Ok(ArgKind::Value),
            None => {
                self.error(path.name.span, format!("undeclared name `{}`", path.name.name));
                Err(())
            }
            _ => Ok(ArgKind::Value),
        }
    }

    /// Unify a package parameter's block type with an argument's block type by signature.
    pub(crate) fn unify_block_types(&mut self, param: &Ty, arg: &Ty, span: Span) -> R<()> {
        let param = self.subst.resolve(param);
        let (Ty::Block(pd, pargs), Ty::Block(ad, aargs)) = (&param, arg) else {
            let (a, b) = (self.show(&param), self.show(arg));
            self.error(span, format!("argument of type `{b}` does not match parameter type `{a}`"));
            return Err(());
        };
        let kind_of = |s: &Self, d: usize| match s.decls.get(d) {
            Some(Decl::Parser(_) | Decl::ParserType(_)) => "parser",
            Some(Decl::Control(_) | Decl::ControlType(_)) => "control",
            Some(Decl::Package(_)) => "package",
            _ => "?",
        };
        let (pk, ak) = (kind_of(self, *pd), kind_of(self, *ad));
        let aname = self.decls.get(*ad).and_then(|d| d.name()).map(|n| n.name.to_string()).unwrap_or_default();
        let pname = self.show(&param);
        if pk != ak {
            self.error(span, format!("`{aname}` is a {ak}, but a {pk} of type `{pname}` is expected here"));
            return Err(());
        }
        let (ptps, pparams) = self.block_params_ast(*pd);
        let (atps, aparams) = self.block_params_ast(*ad);
        if pparams.len() != aparams.len() {
            self.error(span, format!("`{aname}` has {} parameters but `{pname}` has {}", aparams.len(), pparams.len()));
            return Err(());
        }
        let pb = Self::bind_params(ptps, pargs);
        let ab = Self::bind_params(atps, aargs);
        let psigs = self.with_tparams(pb, |me| me.param_sigs(pparams));
        let asigs = self.with_tparams(ab, |me| me.param_sigs(aparams));
        for (p, a) in psigs.iter().zip(&asigs) {
            // An `in` parameter where the architecture's block type says `inout` (v1model programs
            // commonly declare `control vrfy(in H hdr, ...)`): p4c accepts it (its own sample
            // programs do it), so p4forge does with a warning; the block simply cannot change
            // that argument. Every other mismatch is an error.
            let legacy_in = p.dir == Direction::InOut && a.dir == Direction::In;
            if legacy_in {
                self.warn(span, format!("parameter `{}` of `{aname}` is `in` where `{pname}` says `inout`; accepted as read-only", a.name));
            } else if p.dir != a.dir {
                self.error(span, format!("parameter `{}` of `{aname}` is `{}` but `{pname}` declares it `{}`", a.name, dir_word(a.dir), dir_word(p.dir)));
                return Err(());
            }
            if !self.unify(&p.ty, &a.ty) {
                let (x, y) = (self.show(&p.ty), self.show(&a.ty));
                self.error(span, format!("parameter `{}` of `{aname}` has type `{y}`, but `{pname}` expects `{x}`", a.name));
                return Err(());
            }
        }
        Ok(())
    }
}

/// A direction as written in P4 (`directionless` for none).
fn dir_word(d: Direction) -> &'static str {
    match d {
        Direction::In => "in",
        Direction::Out => "out",
        Direction::InOut => "inout",
        Direction::None => "directionless",
    }
}

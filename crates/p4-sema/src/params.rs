//! Rules every parameter list obeys, whatever declares it (function, extern function or method,
//! action, parser, control, package, block type). They are checked on the syntax alone, once per
//! declaration, so a rule cannot be forgotten by one of the lowering routines:
//! - type parameters and all parameter lists of one declaration (apply and constructor parameters)
//!   share one namespace: a name may be declared only once among them;
//! - `out`/`inout` parameters cannot have default values (`@optional` ones cannot have both);
//! - a `string` parameter must be directionless (strings only exist at compile time), and so must
//!   a parameter of an extern type (instances are passed by reference).

use crate::sema::{Global, Sema};
use p4_syntax::ast::{self, Direction, TypeRefKind};

impl<'a> Sema<'a> {
    /// Check the type parameters `tps` and the parameter lists `lists` of one declaration.
    /// A function's or action's default argument values are compile-time constants, not calls (a
    /// package's may instantiate a block).
    pub fn constant_defaults(&mut self, params: &[ast::Param]) {
        for p in params {
            if let Some(d) = p.default.as_ref().filter(|d| has_call(d)) {
                self.error(d.span, format!("the default value of parameter `{}` must be a compile-time constant, not a call", p.name.name));
            }
        }
    }

    /// `@optional` parameters belong to extern functions, methods and constructors only.
    pub fn no_optional_params(&mut self, lists: &[&[ast::Param]]) {
        for p in lists.iter().flat_map(|l| l.iter()) {
            if p.annotations.iter().any(|a| a.name.name == "optional") {
                self.error(p.name.span, format!("`@optional` parameter `{}`: only extern functions, methods and constructors have optional parameters", p.name.name));
            }
        }
    }

    pub fn check_param_lists(&mut self, tps: &[ast::Ident], lists: &[&[ast::Param]]) {
        let mut seen: Vec<&str> = vec![];
        for t in tps {
            if seen.contains(&t.name.as_str()) {
                self.error(t.span, format!("duplicate type parameter `{}`", t.name));
            }
            seen.push(&t.name);
        }
        for p in lists.iter().flat_map(|l| l.iter()) {
            let name = p.name.name.as_str();
            if tps.iter().any(|t| t.name == name) {
                self.error(p.name.span, format!("parameter `{name}` has the same name as a type parameter"));
            } else if seen.contains(&name) {
                self.error(p.name.span, format!("duplicate parameter `{name}`"));
            }
            seen.push(name);
            if let Some(d) = &p.default {
                // A default is a value known at compile time: no call; `...` (the type's default
                // value) only for a type that has one, which a list has not.
                if matches!(d.kind, ast::ExprKind::Dots) && matches!(p.ty.kind, TypeRefKind::List(_)) {
                    self.error(d.span, format!("`...` is not a value of `list` parameter `{name}`: lists have no default value"));
                }
                if matches!(p.direction, Direction::Out | Direction::InOut) {
                    self.error(p.name.span, format!("`out`/`inout` parameter `{name}` cannot have a default value"));
                } else if p.annotations.iter().any(|a| a.name.name == "optional") {
                    self.error(p.name.span, format!("`@optional` parameter `{name}` cannot also have a default value"));
                }
            }
            if matches!(p.ty.kind, TypeRefKind::String) && p.direction != Direction::None {
                self.error(p.name.span, format!("parameter `{name}` of type `string` cannot have a direction"));
            }
            // Extern instances are passed by reference, directionless (spec, "Calling convention").
            let extern_name = match &p.ty.kind {
                TypeRefKind::Named(path) | TypeRefKind::Specialized(path, _) if !tps.iter().any(|t| t.name == path.name.name) => Some(&path.name.name),
                _ => None,
            };
            if p.direction != Direction::None && extern_name.is_some_and(|n| matches!(self.lookup_global(n), Some(Global::ExternType(_)))) {
                self.error(p.name.span, format!("parameter `{name}` of an extern type cannot have a direction"));
            }
        }
    }
}

/// Whether expression `e` calls something.
fn has_call(e: &ast::Expr) -> bool {
    use ast::ExprKind as A;
    match &e.kind {
        A::Call { .. } | A::Construct { .. } => true,
        A::Unary(_, x) | A::Cast(_, x) => has_call(x),
        A::Binary(_, x, y) => has_call(x) || has_call(y),
        A::Ternary(c, x, y) => has_call(c) || has_call(x) || has_call(y),
        A::List(xs) => xs.iter().any(has_call),
        A::StructInit { fields, .. } => fields.iter().any(|(_, x)| has_call(x)),
        A::Member(x, _) | A::Index(x, _) => has_call(x),
        _ => false,
    }
}

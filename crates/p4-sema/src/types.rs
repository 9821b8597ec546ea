//! The checker's own view of types: richer than `p4_ir::Type` (it also knows type parameters,
//! inference variables, `type` new types, lists and the types of parsers/controls/packages).
//!
//! Invariant: `Ty::Named` indexes [`NamedDef`]s owned by the checker; the IR's `TypeId`s are assigned
//! separately when a type reaches the output (see `Sema::ir_type`).

use num_bigint::BigInt;
use std::collections::HashMap;
use std::fmt::Write;

/// Index of a struct/header/union/enum definition in the checker's table.
pub type NId = usize;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Bool,
    Bits { width: u32, signed: bool },
    Varbit(u32),
    InfInt,
    String,
    Error,
    MatchKind,
    Void,
    Named(NId),
    /// `type T N;` — index into the checker's new-type table.
    NewType(usize),
    Stack(Box<Ty>, u32),
    Tuple(Vec<Ty>),
    List(Box<Ty>),
    /// An extern type (top-level declaration index) specialised with type arguments.
    Extern(usize, Vec<Ty>),
    /// A parser, control or package (declaration index; type arguments).
    Block(usize, Vec<Ty>),
    /// A type parameter of the declaration being checked generically (opaque).
    Param(String),
    /// An inference variable.
    Infer(u32),
    /// `_` as a type argument: anything.
    DontCare,
    /// Error recovery: an expression whose type could not be determined; compatible with all.
    Unknown,
}

impl Ty {
    pub fn bit(width: u32) -> Ty {
        Ty::Bits { width, signed: false }
    }
    pub fn is_unknown(&self) -> bool {
        matches!(self, Ty::Unknown | Ty::DontCare)
    }
    pub fn is_bits(&self) -> bool {
        matches!(self, Ty::Bits { .. })
    }
    pub fn is_numeric(&self) -> bool {
        matches!(self, Ty::Bits { .. } | Ty::InfInt)
    }
    /// True if the type (transitively) mentions a type parameter or inference variable.
    pub fn has_vars(&self) -> bool {
        match self {
            Ty::Param(_) | Ty::Infer(_) => true,
            Ty::Stack(t, _) | Ty::List(t) => t.has_vars(),
            Ty::Tuple(ts) | Ty::Extern(_, ts) | Ty::Block(_, ts) => ts.iter().any(Ty::has_vars),
            _ => false,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NamedKind {
    Struct,
    Header,
    Union,
    Enum,
}

/// A struct, header, union or enum definition as the checker knows it.
#[derive(Clone, Debug)]
pub struct NamedDef {
    pub kind: NamedKind,
    pub name: String,
    pub fields: Vec<(String, Ty)>,
    pub field_annotations: Vec<Vec<p4_ir::Annotation>>,
    /// The declaration's own annotations (headers keep them in the IR).
    pub annotations: Vec<p4_ir::Annotation>,
    /// Enums only.
    pub underlying: Option<Ty>,
    pub members: Vec<(String, Option<BigInt>)>,
}

/// A `type T N;` declaration.
#[derive(Clone, Debug)]
pub struct NewTypeDef {
    pub name: String,
    pub underlying: Ty,
    /// Its `@p4runtime_translation(uri, width)`, for the keys and action parameters of this type.
    pub translation: Option<p4_ir::Annotation>,
}

/// Type substitution produced by unification (inference variables → types).
#[derive(Default, Debug, Clone)]
pub struct Subst {
    pub vars: HashMap<u32, Ty>,
}

impl Subst {
    pub fn resolve(&self, t: &Ty) -> Ty {
        match t {
            Ty::Infer(v) => match self.vars.get(v) {
                Some(b) => self.resolve(b),
                None => t.clone(),
            },
            Ty::Stack(e, n) => Ty::Stack(Box::new(self.resolve(e)), *n),
            Ty::List(e) => Ty::List(Box::new(self.resolve(e))),
            Ty::Tuple(ts) => Ty::Tuple(ts.iter().map(|x| self.resolve(x)).collect()),
            Ty::Extern(d, ts) => Ty::Extern(*d, ts.iter().map(|x| self.resolve(x)).collect()),
            Ty::Block(d, ts) => Ty::Block(*d, ts.iter().map(|x| self.resolve(x)).collect()),
            _ => t.clone(),
        }
    }

    /// Make `a` and `b` equal by binding inference variables; false if impossible.
    pub fn unify(&mut self, a: &Ty, b: &Ty) -> bool {
        let a = self.resolve(a);
        let b = self.resolve(b);
        match (&a, &b) {
            _ if a == b => true,
            (Ty::Unknown | Ty::DontCare, _) | (_, Ty::Unknown | Ty::DontCare) => true,
            (Ty::Infer(v), t) | (t, Ty::Infer(v)) => {
                if occurs(*v, t) {
                    return false;
                }
                self.vars.insert(*v, t.clone());
                true
            }
            (Ty::Stack(x, n), Ty::Stack(y, m)) => n == m && self.unify(x, y),
            (Ty::List(x), Ty::List(y)) => self.unify(x, y),
            (Ty::Tuple(xs), Ty::Tuple(ys)) | (Ty::Extern(_, xs), Ty::Extern(_, ys)) | (Ty::Block(_, xs), Ty::Block(_, ys)) => {
                let same_head = match (&a, &b) {
                    (Ty::Extern(d, _), Ty::Extern(e, _)) | (Ty::Block(d, _), Ty::Block(e, _)) => d == e,
                    _ => true,
                };
                same_head && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| self.unify(x, y))
            }
            _ => false,
        }
    }
}

fn occurs(v: u32, t: &Ty) -> bool {
    match t {
        Ty::Infer(w) => *w == v,
        Ty::Stack(e, _) | Ty::List(e) => occurs(v, e),
        Ty::Tuple(ts) | Ty::Extern(_, ts) | Ty::Block(_, ts) => ts.iter().any(|x| occurs(v, x)),
        _ => false,
    }
}

/// Names needed to print types in diagnostics.
pub struct TyNames<'s> {
    pub named: &'s [NamedDef],
    pub newtypes: &'s [NewTypeDef],
    pub decl_name: &'s dyn Fn(usize) -> String,
}

impl TyNames<'_> {
    pub fn show(&self, t: &Ty) -> String {
        let mut s = String::new();
        self.write(&mut s, t);
        s
    }
    fn list(&self, out: &mut String, ts: &[Ty]) {
        for (i, t) in ts.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.write(out, t);
        }
    }
    fn write(&self, out: &mut String, t: &Ty) {
        let _ = match t {
            Ty::Bool => write!(out, "bool"),
            Ty::Bits { width, signed: false } => write!(out, "bit<{width}>"),
            Ty::Bits { width, signed: true } => write!(out, "int<{width}>"),
            Ty::Varbit(w) => write!(out, "varbit<{w}>"),
            Ty::InfInt => write!(out, "int"),
            Ty::String => write!(out, "string"),
            Ty::Error => write!(out, "error"),
            Ty::MatchKind => write!(out, "match_kind"),
            Ty::Void => write!(out, "void"),
            Ty::Named(n) => write!(out, "{}", self.named.get(*n).map(|d| d.name.as_str()).unwrap_or("?")),
            Ty::NewType(n) => write!(out, "{}", self.newtypes.get(*n).map(|d| d.name.as_str()).unwrap_or("?")),
            Ty::Stack(e, n) => {
                self.write(out, e);
                write!(out, "[{n}]")
            }
            Ty::Tuple(ts) => {
                out.push_str("tuple<");
                self.list(out, ts);
                write!(out, ">")
            }
            Ty::List(e) => {
                out.push_str("list<");
                self.write(out, e);
                write!(out, ">")
            }
            Ty::Extern(d, ts) | Ty::Block(d, ts) => {
                out.push_str(&(self.decl_name)(*d));
                if !ts.is_empty() {
                    out.push('<');
                    self.list(out, ts);
                    out.push('>');
                }
                Ok(())
            }
            Ty::Param(n) => write!(out, "{n}"),
            Ty::Infer(_) | Ty::DontCare => write!(out, "_"),
            Ty::Unknown => write!(out, "<unknown>"),
        };
    }
}

//! P4 types as SystemVerilog packed types. Each struct, header and union of the program becomes a
//! `typedef struct packed` named after it, fields in declaration order, so `hdr.ipv4.ttl` in P4 is
//! `phv.hdr.ipv4.ttl` in the generated code. A header's fields come first and its validity bit
//! `valid_` last: the fields part is then exactly the header's wire bits, most significant first
//! (`h[$bits(h)-1:1]`), which the parser fills and the deparser emits with one part-select.
//!
//! Scalars take the widths of [`p4_ir::layout::scalar_width`] (the one place widths of scalars are
//! decided), so a table key of type `error` is as wide here as in the key layout.

use std::fmt::Write;

use p4_ir::layout::scalar_width;
use p4_ir::visit::{walk_stmt, Visit};
use p4_ir::{Program, Type, TypeDef, TypeId};

use crate::error::{Result, RtlError};
use crate::names::Scope;

/// Suffix of the generated field that holds a header stack's next index.
pub const NEXT_INDEX: &str = "_nidx_";

/// Suffix of the generated field that holds a varbit field's current length in bits. A header
/// with a varbit field keeps these after its fields (before `valid_`); the varbit field itself is
/// as wide as its maximum, its bits left-aligned (first wire bit most significant) and the bits
/// past its length zero, so equal values have equal vectors.
pub const VARBIT_LEN: &str = "_len_";

/// How a header with a varbit field lies on the wire: `pre` fixed bits, the varbit field (at most
/// `max` bits), then `post` fixed bits.
#[derive(Clone, Debug)]
pub struct VarbitLayout {
    pub pre: u32,
    pub field: String,
    pub max: u32,
    pub post: u32,
    /// Low bits that are zero in every length the program's extracts give this header (3: whole
    /// bytes), so shifts by the length can skip those stages.
    pub align: u32,
}

/// The SystemVerilog view of a program's types.
pub struct TypeMap<'p> {
    p: &'p Program,
    names: Vec<Option<String>>,
    /// Per header type with a varbit field: [`VarbitLayout::align`].
    varbit_align: Vec<u32>,
}

/// Width of the next-index field of a stack of `n` elements (holds 0..=n).
pub fn next_index_width(n: u32) -> u32 {
    32 - n.leading_zeros().min(31)
}

/// Per type: the low bits known to be zero in every length a two-argument extract of the program
/// gives a header of that type (64 for a type never extracted so; capped at 64). Only extracts
/// set a varbit length in the hardware subset (assigning a varbit field is refused), and copies of
/// a whole header keep it.
fn varbit_alignment(p: &Program) -> Vec<u32> {
    /// Narrows the alignment of each header type a two-argument `extract` statement fills.
    struct Extracts<'a>(&'a mut [u32]);
    impl Visit<'_> for Extracts<'_> {
        fn visit_stmt(&mut self, st: &p4_ir::Stmt) {
            if let p4_ir::Stmt::Call(c) = st {
                let is_extract = matches!(&c.callee, p4_ir::Callee::Method { extern_type, method, .. }
                    if extern_type == "packet_in" && method == "extract");
                if let ([h, len], true) = (&c.args[..], is_extract) {
                    let ty = match &h.expr.ty {
                        Type::Stack(e, _) => e.as_ref(),
                        t => t,
                    };
                    if let Type::Named(id) = ty {
                        if let Some(a) = self.0.get_mut(id.index()) {
                            *a = (*a).min(len.expr.known_low_zeros());
                        }
                    }
                }
            }
            walk_stmt(self, st);
        }
        fn visit_expr(&mut self, _: &p4_ir::Expr) {}
    }
    let mut align = vec![64; p.types.len()];
    let mut extracts = Extracts(&mut align);
    for parser in &p.parsers {
        extracts.visit_stmts(&parser.init);
        for s in &parser.states {
            extracts.visit_stmts(&s.body);
        }
    }
    align
}

/// A shift amount for `value`, which is at most `max` and has `align` low bits that are always
/// zero: only the bits that can be one, so Yosys builds a shifter of those stages alone (a 32-bit
/// amount would give 32 stages; a byte-aligned one drops three more).
pub fn shift_amount(value: &str, max: u32, align: u32) -> String {
    let k = next_index_width(max);
    match align.min(k) {
        a if a == k => "1'b0".into(),
        0 => format!("{k}'({value})"),
        a => format!("{{{value}[{}:{a}], {a}'d0}}", k - 1),
    }
}

impl<'p> TypeMap<'p> {
    /// Names every struct-like type; `reserved` are names the caller uses in the same package.
    pub fn new(p: &'p Program, reserved: &[&str]) -> TypeMap<'p> {
        let mut scope = Scope::default();
        for r in reserved {
            scope.fresh(r);
        }
        let names = p
            .types
            .iter()
            .map(|t| match t {
                TypeDef::Struct { name, .. } | TypeDef::Header { name, .. } | TypeDef::Union { name, .. } => {
                    Some(scope.fresh(&if name.ends_with("_t") { name.clone() } else { format!("{name}_t") }))
                }
                _ => None,
            })
            .collect();
        TypeMap { p, names, varbit_align: varbit_alignment(p) }
    }

    pub fn program(&self) -> &'p Program {
        self.p
    }

    /// The typedef name of a struct, header or union.
    pub fn name(&self, id: TypeId) -> Option<&str> {
        self.names.get(id.index()).and_then(|n| n.as_deref())
    }

    pub fn is_header(&self, ty: &Type) -> bool {
        matches!(ty, Type::Named(id) if matches!(self.p.types.get(id.index()), Some(TypeDef::Header { .. })))
    }

    pub fn is_union(&self, ty: &Type) -> bool {
        matches!(ty, Type::Named(id) if matches!(self.p.types.get(id.index()), Some(TypeDef::Union { .. })))
    }

    pub fn is_aggregate(&self, ty: &Type) -> bool {
        matches!(ty, Type::Named(id) if self.names.get(id.index()).is_some_and(|n| n.is_some()))
            || matches!(ty, Type::Stack(..))
    }

    /// Packed width in bits (a header's includes its validity bit; a stack's its elements only).
    pub fn width(&self, ty: &Type) -> Result<u32> {
        Ok(match ty {
            Type::Stack(elem, n) => self.width(elem)? * n,
            Type::Named(id) => match self.p.types.get(id.index()) {
                Some(TypeDef::Struct { fields, .. }) | Some(TypeDef::Union { fields, .. }) => {
                    let mut w = 0;
                    for f in fields {
                        w += self.field_width(&f.ty)?;
                    }
                    w
                }
                Some(TypeDef::Header { fields, .. }) => {
                    let mut w = 1;
                    for f in fields {
                        w += self.width(&f.ty)?;
                        if let Type::Varbit(n) = f.ty {
                            w += next_index_width(n);
                        }
                    }
                    w
                }
                _ => scalar_width(self.p, ty),
            },
            Type::Varbit(n) => *n,
            Type::Bits { width: 0, .. } => {
                return Err(RtlError::global("bit<0> fields are outside the hardware subset"))
            }
            // A tuple of scalars: its elements concatenated, the first most significant.
            Type::Tuple(elems) if elems.iter().all(|t| !self.is_aggregate(t) && !matches!(t, Type::Tuple(_))) => {
                let mut w = 0;
                for t in elems {
                    w += self.width(t)?;
                }
                w
            }
            Type::Tuple(_) | Type::String | Type::Void | Type::MatchKind => {
                return Err(RtlError::global(format!("a value of type {ty:?} cannot be held in hardware")))
            }
            _ => scalar_width(self.p, ty),
        })
    }

    /// The wire layout of a header type with a varbit field (`None` for any other type).
    pub fn varbit_layout(&self, ty: &Type) -> Result<Option<VarbitLayout>> {
        let Type::Named(id) = ty else { return Ok(None) };
        let Some(TypeDef::Header { fields, .. }) = self.p.types.get(id.index()) else { return Ok(None) };
        let Some(at) = fields.iter().position(|f| matches!(f.ty, Type::Varbit(_))) else { return Ok(None) };
        let Type::Varbit(max) = fields[at].ty else { return Ok(None) };
        let mut pre = 0;
        for f in &fields[..at] {
            pre += self.width(&f.ty)?;
        }
        let mut post = 0;
        for f in &fields[at + 1..] {
            post += self.width(&f.ty)?;
        }
        let align = self.varbit_align.get(id.index()).copied().unwrap_or(0);
        Ok(Some(VarbitLayout { pre, field: crate::names::ident(&fields[at].name), max, post, align }))
    }

    /// Bits `[hi:lo]` of element `i` in a tuple of type `ty` (see [`TypeMap::width`]).
    pub fn tuple_element(&self, ty: &Type, i: usize) -> Result<Option<(u32, u32)>> {
        let Type::Tuple(elems) = ty else { return Ok(None) };
        let mut lo = 0;
        for t in elems.iter().skip(i + 1) {
            lo += self.width(t)?;
        }
        let w = match elems.get(i) {
            Some(t) => self.width(t)?,
            None => return Ok(None),
        };
        Ok(Some((lo + w - 1, lo)))
    }

    /// Width a struct field of type `ty` takes (a stack adds its next-index field).
    fn field_width(&self, ty: &Type) -> Result<u32> {
        Ok(match ty {
            Type::Stack(_, n) => self.width(ty)? + next_index_width(*n),
            _ => self.width(ty)?,
        })
    }

    /// The declaration type of a scalar or aggregate (for a stack: the element type and the
    /// packed dimension, e.g. `vlan_t [1:0]`).
    pub fn sv(&self, ty: &Type) -> Result<String> {
        Ok(match ty {
            Type::Named(id) if self.name(*id).is_some() => self.name(*id).unwrap_or_default().to_string(),
            Type::Stack(elem, n) => format!("{} [{}:0]", self.sv(elem)?, n - 1),
            _ => logic(self.width(ty)?),
        })
    }

    /// Fields of a struct-like type.
    pub fn fields(&self, ty: &Type) -> &'p [p4_ir::FieldDef] {
        match ty {
            Type::Named(id) => self.p.types.get(id.index()).map(|t| t.fields()).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Every typedef, each after the types its fields use.
    pub fn typedefs(&self) -> Result<String> {
        let mut out = String::new();
        let mut done = vec![false; self.p.types.len()];
        for i in 0..self.p.types.len() {
            self.emit(TypeId(i as u32), &mut done, &mut out)?;
        }
        Ok(out)
    }

    fn emit(&self, id: TypeId, done: &mut [bool], out: &mut String) -> Result<()> {
        if done[id.index()] {
            return Ok(());
        }
        done[id.index()] = true;
        let Some(name) = self.name(id) else { return Ok(()) };
        let def = &self.p.types[id.index()];
        for f in def.fields() {
            if let Some(inner) = named_in(&f.ty) {
                self.emit(inner, done, out)?;
            }
        }
        let kind = match def {
            TypeDef::Header { .. } => "header",
            TypeDef::Union { .. } => "header_union",
            _ => "struct",
        };
        let _ = writeln!(out, "    // P4 {kind} {}", def_name(def));
        let _ = writeln!(out, "    typedef struct packed {{");
        for f in def.fields() {
            let fname = crate::names::ident(&f.name);
            let w = self
                .width(&f.ty)
                .map_err(|e| RtlError::global(format!("field `{}` of `{}`: {}", f.name, def_name(def), e.message)))?;
            let _ = w;
            let _ = writeln!(out, "        {} {fname};", self.sv(&f.ty)?);
            if let Type::Stack(_, n) = &f.ty {
                let _ = writeln!(out, "        {} {fname}{NEXT_INDEX};", logic(next_index_width(*n)));
            }
        }
        for f in def.fields() {
            if let Type::Varbit(n) = f.ty {
                let _ = writeln!(out, "        {} {}{VARBIT_LEN};", logic(next_index_width(n)), crate::names::ident(&f.name));
            }
        }
        if matches!(def, TypeDef::Header { .. }) {
            let _ = writeln!(out, "        logic valid_;");
        }
        if def.fields().is_empty() && !matches!(def, TypeDef::Header { .. }) {
            // SystemVerilog has no empty packed struct; one unused bit stands in.
            let _ = writeln!(out, "        logic empty_;");
        }
        let _ = writeln!(out, "    }} {name};\n");
        Ok(())
    }
}

/// `logic [w-1:0]` (or plain `logic` for one bit).
pub fn logic(w: u32) -> String {
    if w == 1 {
        "logic".to_string()
    } else {
        format!("logic [{}:0]", w - 1)
    }
}

fn named_in(ty: &Type) -> Option<TypeId> {
    match ty {
        Type::Named(id) => Some(*id),
        Type::Stack(elem, _) => named_in(elem),
        _ => None,
    }
}

fn def_name(def: &TypeDef) -> &str {
    match def {
        TypeDef::Struct { name, .. }
        | TypeDef::Header { name, .. }
        | TypeDef::Union { name, .. }
        | TypeDef::Enum { name, .. }
        | TypeDef::Extern { name, .. } => name,
    }
}

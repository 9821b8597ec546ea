//! What the executor ([`crate::fast`]) compiles a program with: the frame layout of every block's
//! variables ([`lay_out`]), and the compile-time context ([`Compiler`]) that answers where a
//! variable is, how many slots a type takes and what a constant is.
//!
//! Layout invariants (relied on by every closure the executor builds):
//! - every variable of every block gets a contiguous slot range, laid out depth-first: a header is
//!   `[valid, fields...]`, a struct `[fields...]`, a union `[member headers...]`, a stack
//!   `[nextIndex, elements...]`, a varbit `[length in bits, 128-bit chunks...]`, a scalar one slot;
//! - so two values of the same type have isomorphic ranges and copying a value is a slot-range copy;
//! - the parameters the architecture marks as shared ([`p4_arch::SharedParam`]; v1model: headers,
//!   user metadata, standard metadata of the six V1Switch blocks) get one range each (the
//!   architecture passes them from block to block, so aliasing equals copy-in/copy-out);
//! - headers are invalidated by zeroing their range, so reading a field of an invalid header gives 0.

pub(crate) mod pending_exit;
mod program;
mod shared;

use std::collections::HashMap;
use std::sync::Arc;

use p4_ir::layout::{scalar_width, Layouts};
use p4_ir::{BlockRef, ExprKind, Program, Type, TypeDef, Value, VarId};

use crate::fast::exec::{ErrorCodes, Intrinsic};
use crate::DataplaneError;

pub(crate) use program::lay_out;

pub(crate) type R<T> = Result<T, DataplaneError>;

pub(crate) fn unsupported<T>(what: impl Into<String>) -> R<T> {
    Err(DataplaneError::unsupported(what.into()))
}

/// One field of a header as laid out in the frame.
#[derive(Clone, Copy, Debug)]
pub(crate) enum FieldKind {
    Bits(u32),
    Varbit(u32),
}

/// `$body` with `$T` a `const bool` that is `$tracing`: code for a traced build and code for an
/// untraced one from one text, so the untraced program carries no test of the trace at all
/// (`TableProg::apply::<{ T }>`, `run_control::<{ T }>`).
macro_rules! by_tracing {
    ($tracing:expr, $T:ident => $body:expr) => {
        if $tracing {
            const $T: bool = true;
            $body
        } else {
            const $T: bool = false;
            $body
        }
    };
}
pub(crate) use by_tracing;

pub(crate) struct Compiler<'a> {
    pub ir: &'a Program,
    /// Wire, key and action-data layouts: computed once by the IR ([`p4_ir::layout`]), never here.
    pub layouts: Arc<Layouts>,
    sizes: HashMap<Type, usize>,
    pub next_slot: usize,
    pub parser_vars: Vec<Vec<usize>>,
    pub control_vars: Vec<Vec<usize>>,
    pub field_sets: Vec<Vec<(usize, usize)>>,
    /// `@field_list(N)` → field set index.
    pub field_lists: HashMap<u64, usize>,
    /// User metadata `(base, type)`, the home of `@field_list` fields.
    pub meta: Option<(usize, Type)>,
    /// Intrinsic metadata slots by role.
    pub intrinsic: Intrinsic,
    pub errors: ErrorCodes,
    /// Set when compiled code draws from the switch's random generator (`random`, a `random` hash).
    pub draws_random: std::cell::Cell<bool>,
    /// Compile the recording of a traced switch ([`crate::trace`]) into the program.
    pub tracing: bool,
}

impl<'a> Compiler<'a> {
    pub(crate) fn new(ir: &'a Program) -> Compiler<'a> {
        let code = |name: &str, default: u32| ir.error_code(name).unwrap_or(default);
        Compiler {
            ir,
            layouts: Arc::new(Layouts::of(ir)),
            sizes: HashMap::new(),
            next_slot: 0,
            parser_vars: Vec::new(),
            control_vars: Vec::new(),
            field_sets: vec![Vec::new()],
            field_lists: HashMap::new(),
            meta: None,
            intrinsic: Intrinsic::default(),
            errors: ErrorCodes {
                packet_too_short: code("PacketTooShort", 1),
                no_match: code("NoMatch", 2),
                stack_out_of_bounds: code("StackOutOfBounds", 3),
                header_too_short: code("HeaderTooShort", 4),
                parser_timeout: code("ParserTimeout", 5),
                parser_invalid_argument: code("ParserInvalidArgument", 6),
            },
            draws_random: std::cell::Cell::new(false),
            tracing: false,
        }
    }

    pub(crate) fn alloc(&mut self, ty: &Type) -> R<usize> {
        let base = self.next_slot;
        self.next_slot += self.size(ty)?;
        Ok(base)
    }

    /// Number of frame slots a value of `ty` occupies.
    pub(crate) fn size(&mut self, ty: &Type) -> R<usize> {
        if let Some(s) = self.sizes.get(ty) {
            return Ok(*s);
        }
        let s = match ty {
            Type::Bool | Type::Error | Type::MatchKind => 1,
            // Wider values are header payload only: 128-bit chunks, most significant first.
            Type::Bits { width, .. } => (*width as usize).div_ceil(128).max(1),
            Type::Varbit(max) => 1 + (*max as usize).div_ceil(128).max(1),
            Type::InfInt | Type::String | Type::Void => 0,
            Type::Named(id) => match self.ir.types.get(id.index()) {
                Some(TypeDef::Struct { fields, .. }) | Some(TypeDef::Union { fields, .. }) => {
                    let mut n = 0;
                    for f in fields {
                        n += self.size(&f.ty)?;
                    }
                    n
                }
                Some(TypeDef::Header { fields, .. }) => {
                    let mut n = 1;
                    for f in fields {
                        n += self.size(&f.ty)?;
                    }
                    n
                }
                Some(TypeDef::Enum { .. }) => 1,
                Some(TypeDef::Extern { .. }) => 0,
                None => return unsupported(format!("unknown type id {}", id.0)),
            },
            Type::Stack(elem, n) => 1 + self.size(elem)? * (*n as usize),
            Type::Tuple(items) => {
                let mut n = 0;
                for t in items {
                    n += self.size(t)?;
                }
                n
            }
        };
        self.sizes.insert(ty.clone(), s);
        Ok(s)
    }

    pub(crate) fn type_def(&self, ty: &Type) -> Option<&'a TypeDef> {
        match ty {
            Type::Named(id) => self.ir.types.get(id.index()),
            _ => None,
        }
    }

    pub(crate) fn is_header(&self, ty: &Type) -> bool {
        matches!(self.type_def(ty), Some(TypeDef::Header { .. }))
    }

    /// True for types held in a single slot.
    pub(crate) fn is_scalar(&self, ty: &Type) -> bool {
        match ty {
            Type::Bits { width, .. } => *width <= 128,
            Type::Bool | Type::Error | Type::MatchKind | Type::InfInt => true,
            Type::Named(_) => matches!(self.type_def(ty), Some(TypeDef::Enum { .. })),
            _ => false,
        }
    }

    /// Width and signedness of a scalar type (the width is [`p4_ir::layout::scalar_width`]).
    pub(crate) fn width(&self, ty: &Type) -> (u32, bool) {
        let signed = match ty {
            Type::Bits { signed, .. } => *signed,
            Type::InfInt => true,
            Type::Named(_) => match self.type_def(ty) {
                Some(TypeDef::Enum { underlying: Some(u), .. }) => self.width(u).1,
                _ => false,
            },
            _ => false,
        };
        (scalar_width(self.ir, ty), signed)
    }

    /// Offset (in slots) and type of field `index` of a struct, header, union or tuple.
    pub(crate) fn field_offset(&mut self, ty: &Type, index: u32) -> R<(usize, Type)> {
        let fields: Vec<Type> = match ty {
            Type::Tuple(items) => items.clone(),
            _ => match self.type_def(ty) {
                Some(d) => d.fields().iter().map(|f| f.ty.clone()).collect(),
                None => return unsupported(format!("field access on {}", type_name(self.ir, ty))),
            },
        };
        let mut off = usize::from(self.is_header(ty));
        for (i, f) in fields.iter().enumerate() {
            if i as u32 == index {
                return Ok((off, f.clone()));
            }
            off += self.size(f)?;
        }
        unsupported(format!("field {index} of {} does not exist", type_name(self.ir, ty)))
    }

    /// The fields of a header type with their slot offsets (relative to the header's base), in wire
    /// order. Names, order and widths come from the IR's header layout; this only adds where each
    /// field sits in the frame (fields wider than 128 bits span several slots, most significant first).
    pub(crate) fn header_fields(&mut self, ty: &Type) -> R<Vec<(usize, FieldKind)>> {
        let layouts = self.layouts.clone();
        let Some(h) = layouts.header(ty) else {
            return unsupported(format!("{} is not a header", type_name(self.ir, ty)));
        };
        let mut out = Vec::new();
        for f in &h.fields {
            let mut off = 0;
            let mut fty = ty.clone();
            for i in &f.path {
                let (o, t) = self.field_offset(&fty, *i)?;
                off += o;
                fty = t;
            }
            if f.varbit {
                out.push((off, FieldKind::Varbit(f.width)));
            } else if f.width > 128 {
                let first = match f.width % 128 {
                    0 => 128,
                    r => r,
                };
                out.push((off, FieldKind::Bits(first)));
                for k in 0..(f.width as usize).div_ceil(128) - 1 {
                    out.push((off + 1 + k, FieldKind::Bits(128)));
                }
            } else {
                out.push((off, FieldKind::Bits(f.width)));
            }
        }
        Ok(out)
    }

    pub(crate) fn var_slot(&self, b: &BlockRef, v: VarId) -> R<usize> {
        let table = match b {
            BlockRef::Parser(p) => self.parser_vars.get(p.index()),
            BlockRef::Control(c) => self.control_vars.get(c.index()),
        };
        table
            .and_then(|t| t.get(v.index()))
            .copied()
            .ok_or_else(|| DataplaneError::invalid(format!("variable {} has no slot in its block", v.0)))
    }

    pub(crate) fn var_type(&self, b: &BlockRef, v: VarId) -> Option<&'a Type> {
        let block = match b {
            BlockRef::Parser(p) => &self.ir.parsers.get(p.index())?.block,
            BlockRef::Control(c) => &self.ir.controls.get(c.index())?.block,
        };
        block.vars.get(v.index()).map(|v| &v.ty)
    }

    /// A compile-time value as a normalised scalar of type `ty`.
    pub(crate) fn scalar_value(&self, v: &Value, ty: &Type) -> R<u128> {
        const_scalar(self.ir, v, ty)
    }

    /// Slot ranges of the user-metadata fields annotated `@field_list(index)`.
    pub(crate) fn field_list(&mut self, index: u64) -> R<usize> {
        if let Some(i) = self.field_lists.get(&index) {
            return Ok(*i);
        }
        let mut ranges = Vec::new();
        if let Some((base, ty)) = self.meta.clone() {
            for i in self.ir.field_list_fields(&ty, index) {
                let (off, fty) = self.field_offset(&ty, i as u32)?;
                let len = self.size(&fty)?;
                ranges.push((base + off, len));
            }
        }
        self.field_sets.push(ranges);
        let id = self.field_sets.len() - 1;
        self.field_lists.insert(index, id);
        Ok(id)
    }
}

/// A short description of an expression for error messages: its kind, type and source offsets.
pub(crate) fn describe(ir: &p4_ir::Program, e: &p4_ir::Expr) -> String {
    format!("{} of type {}", expr_kind_name(&e.kind), type_name(ir, &e.ty))
}

/// What kind of expression `kind` is, in words (the location travels separately as a span).
fn expr_kind_name(kind: &ExprKind) -> &'static str {
    match kind {
        ExprKind::Const(_) => "a constant",
        ExprKind::Var(_) => "a variable",
        ExprKind::Field(..) => "a field",
        ExprKind::Index(..) => "a header stack element",
        ExprKind::StackNext(_) => "`next`",
        ExprKind::StackLast(_) => "`last`",
        ExprKind::StackLastIndex(_) => "`lastIndex`",
        ExprKind::Slice(..) => "a bit slice",
        ExprKind::Unary(..) => "a unary operation",
        ExprKind::Binary(..) => "a binary operation",
        ExprKind::Mux(..) => "a conditional expression",
        ExprKind::Cast(_) => "a cast",
        ExprKind::Call(_) => "a call",
        ExprKind::ApplyTable(..) => "a table application",
        ExprKind::Aggregate(_) => "a list or structure expression",
        ExprKind::InvalidHeader => "an invalid header",
        ExprKind::DontCare => "`_`",
        _ => "an expression",
    }
}

/// The operator as P4 writes it.
pub(crate) fn binop_name(op: p4_ir::BinOp) -> &'static str {
    use p4_ir::BinOp as B;
    match op {
        B::Mul => "*",
        B::Div => "/",
        B::Mod => "%",
        B::Add => "+",
        B::Sub => "-",
        B::AddSat => "|+|",
        B::SubSat => "|-|",
        B::Shl => "<<",
        B::Shr => ">>",
        B::Eq => "==",
        B::Ne => "!=",
        B::Lt => "<",
        B::Le => "<=",
        B::Gt => ">",
        B::Ge => ">=",
        B::BitAnd => "&",
        B::BitXor => "^",
        B::BitOr => "|",
        B::Concat => "++",
        B::And => "&&",
        B::Or => "||",
    }
}

/// A short name of a type for error messages (a named type by its name in `ir`).
pub(crate) fn type_name(ir: &p4_ir::Program, ty: &Type) -> String {
    match ty {
        Type::Bool => "bool".into(),
        Type::Bits { width, signed: false } => format!("bit<{width}>"),
        Type::Bits { width, signed: true } => format!("int<{width}>"),
        Type::Varbit(m) => format!("varbit<{m}>"),
        Type::Stack(e, n) => format!("{}[{n}]", type_name(ir, e)),
        Type::Tuple(items) => format!("tuple<{}>", items.iter().map(|t| type_name(ir, t)).collect::<Vec<_>>().join(", ")),
        Type::Named(id) => ir.types.get(id.index()).map_or_else(|| format!("type #{}", id.0), |t| t.name().to_string()),
        Type::InfInt => "int".into(),
        Type::String => "string".into(),
        Type::Void => "void".into(),
        Type::Error => "error".into(),
        Type::MatchKind => "match_kind".into(),
    }
}

pub(crate) fn callee_name(c: &p4_ir::Callee) -> String {
    match c {
        p4_ir::Callee::Action(a) => format!("action #{}", a.0),
        p4_ir::Callee::Function(f) => format!("function #{}", f.0),
        p4_ir::Callee::ExternFunction { name, .. } => format!("extern function `{name}`"),
        p4_ir::Callee::Method { extern_type, method, .. } => format!("method `{extern_type}.{method}`"),
        p4_ir::Callee::Builtin { builtin, .. } => format!("built-in {builtin:?}"),
    }
}

/// A compile-time scalar value of type `ty` (used for control-plane-visible constants): the IR's
/// one conversion ([`p4_ir::layout::scalar_value`]).
pub(crate) fn const_scalar(ir: &Program, v: &Value, ty: &Type) -> R<u128> {
    p4_ir::layout::scalar_value(ir, v, ty).map_err(crate::DataplaneError::unsupported)
}

impl Compiler<'_> {
    /// The variables of a block (for printing expressions of it).
    pub(crate) fn block_vars(&self, b: &BlockRef) -> &[p4_ir::Var] {
        let block = match b {
            BlockRef::Parser(p) => self.ir.parsers.get(p.index()).map(|p| &p.block),
            BlockRef::Control(c) => self.ir.controls.get(c.index()).map(|c| &c.block),
        };
        block.map_or(&[], |b| b.vars.as_slice())
    }

    /// A name for every frame slot a block variable occupies, as a trace shows it
    /// (`hdr.ipv4.ttl`, `hdr.ipv4.isValid()`, `MyIngress.nhop`); temporaries have none. Parameters
    /// shared by several blocks take the name the first block gives them.
    pub(crate) fn slot_names(&mut self) -> R<Vec<Option<crate::trace::SlotName>>> {
        let mut names = vec![None; self.next_slot];
        let mut blocks: Vec<(BlockRef, String)> = Vec::new();
        for (i, p) in self.ir.parsers.iter().enumerate() {
            blocks.push((BlockRef::Parser(p4_ir::ParserId(i as u32)), p.block.name.clone()));
        }
        for (i, c) in self.ir.controls.iter().enumerate() {
            blocks.push((BlockRef::Control(p4_ir::ControlId(i as u32)), c.block.name.clone()));
        }
        for (b, block_name) in blocks {
            let vars: Vec<(usize, p4_ir::Var)> = self.block_vars(&b).iter().cloned().enumerate().collect();
            let params: Vec<p4_ir::VarId> = match &b {
                BlockRef::Parser(p) => self.ir.parsers[p.index()].block.params.clone(),
                BlockRef::Control(c) => self.ir.controls[c.index()].block.params.clone(),
            };
            // Directionless action parameters are the action data a table's line already shows.
            let action_data: Vec<usize> = self
                .ir
                .actions
                .iter()
                .filter(|a| a.block == b)
                .flat_map(|a| a.params.iter().filter(|p| p.direction == p4_ir::Direction::None).map(|p| p.var.index()))
                .collect();
            for (v, var) in vars {
                if action_data.contains(&v) {
                    continue;
                }
                let base = self.var_slot(&b, p4_ir::VarId(v as u32))?;
                let name = if params.iter().any(|p| p.index() == v) { var.name.clone() } else { format!("{block_name}.{}", var.name) };
                self.name_slots(&var.ty, base, &name, false, &mut names)?;
            }
        }
        Ok(names)
    }

    fn name_slots(&mut self, ty: &Type, base: usize, name: &str, in_header: bool, names: &mut [Option<crate::trace::SlotName>]) -> R<()> {
        let mut put = |slot: usize, name: String, width: u32, in_header: bool| {
            if let Some(s @ None) = names.get_mut(slot) {
                *s = Some(crate::trace::SlotName { name: name.into(), width, in_header });
            }
        };
        match ty {
            Type::Bool => put(base, name.to_string(), 0, in_header),
            Type::Bits { width, .. } if *width <= 128 => put(base, name.to_string(), *width, in_header),
            Type::Bits { width, .. } => {
                for k in 0..(*width as usize).div_ceil(128) {
                    put(base + k, format!("{name}[chunk {k}]"), 128, in_header);
                }
            }
            Type::Varbit(_) => put(base, format!("{name} (length in bits)"), 32, in_header),
            Type::Error | Type::MatchKind => put(base, name.to_string(), 32, in_header),
            Type::Stack(elem, n) => {
                put(base, format!("{name}.nextIndex"), 32, in_header);
                let es = self.size(elem)?;
                for i in 0..*n as usize {
                    self.name_slots(elem, base + 1 + i * es, &format!("{name}[{i}]"), in_header, names)?;
                }
            }
            Type::Tuple(items) => {
                for (i, item) in items.iter().enumerate() {
                    let (off, _) = self.field_offset(ty, i as u32)?;
                    self.name_slots(item, base + off, &format!("{name}[{i}]"), in_header, names)?;
                }
            }
            Type::Named(_) => match self.type_def(ty) {
                Some(TypeDef::Enum { .. }) => put(base, name.to_string(), 32, in_header),
                Some(def @ (TypeDef::Header { .. } | TypeDef::Struct { .. } | TypeDef::Union { .. })) => {
                    let header = matches!(def, TypeDef::Header { .. });
                    if header {
                        put(base, format!("{name}.isValid()"), 0, true);
                    }
                    let fields: Vec<(String, Type)> = def.fields().iter().map(|f| (f.name.clone(), f.ty.clone())).collect();
                    for (i, (fname, fty)) in fields.iter().enumerate() {
                        let (off, _) = self.field_offset(ty, i as u32)?;
                        self.name_slots(fty, base + off, &format!("{name}.{fname}"), in_header || header, names)?;
                    }
                }
                _ => {}
            },
            Type::InfInt | Type::String | Type::Void => {}
        }
        Ok(())
    }
}

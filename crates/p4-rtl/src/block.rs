//! Translating one block's expressions and straight-line statements into SystemVerilog.
//!
//! Every generated stage is an `always_comb` that copies its input stage register into a variable
//! `s`, runs the block's statements on `s` with blocking assignments, and hands `s` to the next
//! register. Blocking assignments in order are exactly P4's sequential semantics, so a statement
//! list translates one statement at a time. `s.phv` holds what the architecture shares between
//! blocks (headers, user metadata, intrinsic metadata, packet facts); `s.l` holds this block's own
//! variables plus the generator's flags (`done_` after `exit`/`return`, branch predicates, table
//! results).

use std::collections::BTreeMap;
use std::fmt::Write;

use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};
use p4_arch::{Architecture, ExternOp, HashAlgorithm, MetaRole, Preserve, SharedKind};
use p4_ir::{
    Arg, BinOp, Block, Builtin, Call, Callee, Direction, Expr, ExprKind, ExternId, Program, Span, Stmt, Type, TypeDef,
    UnOp, Value, VarId, VarKind,
};

use crate::error::{unsupported, Result, RtlError};
use crate::names::{ident, Scope};
use crate::types::{logic, TypeMap, NEXT_INDEX, VARBIT_LEN};

/// The PHV member holding each kind of shared storage.
/// How a counter reads the packet's length where the architecture has no packet-length field:
/// the length the packet entered the pipeline with (the top's cut-through choice looks for it).
pub const PI_LENGTH_READ: &str = "32'(s.phv.pi.len)";

/// A block parameter held in the PHV: its position among the block's parameters, the storage it
/// is, and the PHV member (`s.phv.<member>`) holding it.
#[derive(Clone, Debug, PartialEq)]
pub struct HeldParam {
    pub pos: usize,
    pub kind: SharedKind,
    pub member: String,
}

pub fn shared_member(kind: SharedKind) -> &'static str {
    match kind {
        SharedKind::Headers => "hdr",
        SharedKind::UserMetadata => "meta",
        SharedKind::Intrinsic => "std",
        SharedKind::Handoff => "handoff",
    }
}

/// A checksum or hash function the package must define: algorithm and input width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct HashFn {
    pub algo: AlgoKey,
    pub width: u32,
}

/// Algorithms the hardware computes (an ordered copy of the architecture's enum).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum AlgoKey {
    Csum16,
    Xor16,
    Crc16,
    Crc32,
    Identity,
}

impl HashFn {
    pub fn name(&self) -> String {
        let a = match self.algo {
            AlgoKey::Csum16 => "csum16",
            AlgoKey::Xor16 => "xor16",
            AlgoKey::Crc16 => "crc16",
            AlgoKey::Crc32 => "crc32",
            AlgoKey::Identity => "identity",
        };
        format!("{a}_w{}", self.width)
    }
    /// Bits of a ones'-complement checksum's plain sum of its 16-bit words (enough that the sum
    /// cannot wrap), the value a split checksum carries across its register.
    pub fn sum_bits(&self) -> u32 {
        16 + crate::control::bits_for_index(self.width.div_ceil(16))
    }
    pub fn out_width(&self) -> u32 {
        match self.algo {
            AlgoKey::Crc32 => 32,
            AlgoKey::Identity => self.width.div_ceil(8) * 8,
            _ => 16,
        }
    }
}

/// A register extern used by a block: its array and this packet's pending write.
#[derive(Clone, Debug)]
pub struct RegisterUse {
    pub name: String,
    /// What the control plane sees: a `register` array, or an indirect `counter` whose cells are
    /// {packets[63:0], bytes[63:0]}.
    pub kind: RegisterKind,
    /// A direct counter's table (control-plane name).
    pub table: Option<String>,
    pub width: u32,
    pub size: u64,
    pub index_width: u32,
    /// The stage (segment) that accesses it; every access must be in one stage.
    pub stage: Option<usize>,
    pub span: Span,
    /// What every cell holds at reset (a register's initial value; 0 for the others).
    pub initial: u128,
}

/// A register read made a cycle ahead (see [`BlockGen::read_ahead`]).
#[derive(Clone, Debug)]
pub struct ReadAhead {
    /// The register holding the cell.
    pub reg: String,
    pub array: String,
    /// The index as the stage computes it (paths from `s.`).
    pub index: String,
    /// The statement stage that reads it.
    pub stage: usize,
}

/// `text` with every path from the stage variable `s.` taken from `base.` instead.
pub fn from_stage(text: &str, base: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut k = 0;
    while k < b.len() {
        let starts = k == 0 || !(b[k - 1].is_ascii_alphanumeric() || b[k - 1] == b'_' || b[k - 1] == b'$' || b[k - 1] == b'.');
        if starts && b[k] == b's' && b.get(k + 1) == Some(&b'.') {
            out.push_str(base);
            out.push('.');
            k += 2;
        } else {
            out.push(b[k] as char);
            k += 1;
        }
    }
    out
}

/// What a hardware array holds for the control plane (`manifest.json`'s `"kind"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RegisterKind {
    Register,
    Counter,
}

/// A call's identity for [`BlockGen::presums`].
pub fn call_address(call: &Call) -> usize {
    call as *const Call as usize
}

/// Bits of a counter cell: packets then bytes, 64 each (the software target's counts are 64-bit).
pub const COUNTER_CELL_BITS: u32 = 128;

/// A counter's cells are kept in two arrays, so that no packet waits on a 64-bit carry chain: the
/// packet's stage adds to the low halves (`<name>`: {packets[31:0], bytes[31:0]}) and the carries
/// out of them reach the high halves (`<name>_hi`: {packets[63:32], bytes[63:32]}) a cycle later.
/// The data plane never reads a counter, so only the control plane sees both, as one cell.
pub const COUNTER_HALF_BITS: u32 = 64;

impl RegisterUse {
    /// Bits of one element of the array the stages read and write (for a counter, the low halves).
    pub fn storage_bits(&self) -> u32 {
        match self.kind {
            RegisterKind::Counter => COUNTER_HALF_BITS,
            RegisterKind::Register => self.width,
        }
    }
}

/// Per-block translation state.
pub struct BlockGen<'a> {
    pub p: &'a Program,
    pub tm: &'a TypeMap<'a>,
    pub arch: &'a Architecture,
    pub block: &'a Block,
    /// SystemVerilog path of each variable (`None`: a packet_in/packet_out parameter).
    paths: Vec<Option<String>>,
    /// The pipeline's intrinsic metadata in the PHV: (path, struct type name). [`BlockGen::meta`]
    /// looks here for a role none of the block's own parameters holds.
    pub pipeline_meta: Vec<(String, String)>,
    /// Variables whose type hardware cannot hold, with the reason (refused at their first use).
    unheld: Vec<(usize, String)>,
    /// The block's own variables and generated flags: (name, declaration type).
    pub locals: Vec<(String, String)>,
    scope: Scope,
    /// The flag that ends the block early (`s.l.done_`), set by `exit`/`return` (controls) or a
    /// failed extract/verify (parsers).
    pub done: String,
    pub hashes: BTreeMap<HashFn, ()>,
    pub registers: BTreeMap<ExternId, RegisterUse>,
    /// The stage currently being generated (registers must stay in one).
    pub stage: usize,
    /// Whether the block writes the multicast group (see [`BlockGen::note_multicast`]).
    pub multicast: bool,
    /// Whether a `clone` call may be made here (ingress: to egress; egress: to egress again;
    /// anywhere else a clone is refused).
    pub clone_here: bool,
    /// Whether the block calls `clone` (where: the first call).
    pub clones: bool,
    pub clone_span: Option<Span>,
    /// The field sets clone calls keep, as PHV paths (`meta.f`): set `i + 1` is `kept_sets[i]`
    /// (set 0 keeps nothing).
    pub kept_sets: Vec<Vec<String>>,
    /// The user-metadata parameter's type, where `@field_list` fields live.
    user_meta: Option<Type>,
    /// Whether the block calls `truncate`.
    pub truncates: bool,
    /// Which re-parse may be asked for here: `Some(true)` resubmit (ingress), `Some(false)`
    /// recirculate (egress); anywhere else they are refused.
    pub loop_here: Option<bool>,
    /// Whether the block calls `resubmit` or `recirculate`.
    pub loops: bool,
    /// Value sets the parser's selects use: index in the program's value sets -> (port name,
    /// members, element width). See [`crate::parser::value_set_cond`].
    pub value_sets: BTreeMap<usize, (String, u32, u32)>,
    pub out: String,
    indent: usize,
    /// Checksum calls whose word sum an earlier stage computed (see `control::CtlGen::presum`):
    /// the call (by address: the IR is borrowed for the whole generation) and the register
    /// holding its sum.
    pub presums: Vec<(usize, String)>,
    /// Varbit extracts whose length and bound an earlier parser stage computed (see
    /// `parser::varbit_ahead`): the call (by address) and the registers.
    pub varbit_ahead: Vec<(usize, crate::parser::VarbitAhead)>,
    /// What the statements emitted so far in the current stage may write (see
    /// [`BlockGen::read_ahead`]); the control generator clears it at each stage.
    pub stage_writes: Vec<p4_ir::cfg::Location>,
    /// Whether the current stage's input is a stage register of this block (not the block's input
    /// port), so that a read can be made a cycle ahead.
    pub stage_input_registered: bool,
    /// Register reads made a cycle ahead.
    pub aheads: Vec<ReadAhead>,
    /// Parser mode: how packet_in calls translate (set by the parser generator).
    pub parser: Option<ParserCtx>,
    /// Deparser mode: where packet_out.emit writes (set by the deparser generator).
    pub deparser: Option<crate::deparser::DeparserCtx>,
}

/// What the parser generator provides to statement translation.
#[derive(Clone, Debug)]
pub struct ParserCtx {
    /// Bit offset variable (`off`), window vector (`wbe`), its width in bits, valid bits (`wlen`).
    pub offset: String,
    pub window: String,
    pub window_bits: u32,
    pub valid_bits: String,
    /// Error field path and the error codes to use.
    pub error_field: Option<String>,
    pub too_short: u32,
    pub stack_oob: u32,
    /// Constant bit offset at the start of the current statement into `static_window` (`static_bits`
    /// wide, most significant bit first), when known.
    pub static_offset: Option<u32>,
    pub static_window: String,
    pub static_bits: u32,
    /// Where the deparser's unchanged tail starts in the packet, when it has one.
    pub keep: Option<KeepCtx>,
    /// Below an anchor whose window is moved: registers holding the offset at the anchor's start
    /// and the valid bits from there on ([`ROOM_BITS`] wide), so that where `static_offset` is
    /// known a read's bound check and the new offset are each one operation on registers instead
    /// of a chain through every state before.
    pub base: Option<AnchorBase>,
}

/// Width of an anchor's room (valid bits past its start): the window's valid bits are a 16-bit
/// byte count.
pub const ROOM_BITS: u32 = 19;

#[derive(Clone, Debug)]
pub struct AnchorBase {
    /// The offset at the anchor's start (32 bits) and the valid bits past it.
    pub at: String,
    pub room: String,
}

/// The parser's record of where the first header of the deparser's unchanged tail was extracted
/// (see [`crate::unchanged`]).
#[derive(Clone, Debug)]
pub struct KeepCtx {
    pub tail: crate::unchanged::UnchangedTail,
    /// The offset (bits) and whether it is set.
    pub keep: String,
    pub kept: String,
}

impl ParserCtx {
    /// The condition that `bits` more bits at the current offset are past the valid bits. Where
    /// the offset is a constant distance from the packet's start or from a moved window's anchor,
    /// a comparison of a constant with the valid bits from there.
    pub fn short(&self, bits: u32) -> String {
        match (&self.base, self.static_offset) {
            (Some(b), Some(c)) if c + bits < 1 << ROOM_BITS => format!("({ROOM_BITS}'d{} > {})", c + bits, b.room),
            (None, Some(c)) => format!("(32'd{} > {})", c + bits, self.valid_bits),
            _ => format!("({} + 32'd{bits} > {})", self.offset, self.valid_bits),
        }
    }

    /// The offset `bits` past the current one: a constant, or the anchor's offset plus one, where
    /// the current one is.
    pub fn advanced(&self, bits: u32) -> String {
        match (&self.base, self.static_offset) {
            (Some(b), Some(c)) => format!("{} + 32'd{}", b.at, c + bits),
            (None, Some(c)) => format!("32'd{}", c + bits),
            _ => format!("{} + 32'd{bits}", self.offset),
        }
    }

    /// The constant distance of the current offset from the start of the packet (`at` is `None`)
    /// or of a moved window's anchor, and the valid bits from there on (`ROOM_BITS` wide).
    pub fn known(&self) -> Option<(Option<String>, String, u32)> {
        match (&self.base, self.static_offset) {
            (Some(b), Some(c)) => Some((Some(b.at.clone()), b.room.clone(), c)),
            (None, Some(c)) => Some((None, format!("{ROOM_BITS}'({})", self.valid_bits), c)),
            _ => None,
        }
    }

    /// The `bits` bits at the current offset: wiring out of the static window where the offset is
    /// constant there, else a part-select of the packet's window at the run-time offset.
    pub fn read(&self, bits: u32) -> String {
        self.read_at(0, bits)
    }

    /// The `bits` bits `skip` bits past the current offset.
    pub fn read_at(&self, skip: u32, bits: u32) -> String {
        match self.static_offset {
            Some(c) => {
                let (w, top) = (&self.static_window, self.static_bits - 1 - c - skip);
                format!("{w}[{top}:{}]", top + 1 - bits)
            }
            None if skip == 0 => format!("{}[{} - {} -: {bits}]", self.window, self.window_bits - 1, self.offset),
            None => format!("{}[{} - ({} + 32'd{skip}) -: {bits}]", self.window, self.window_bits - 1, self.offset),
        }
    }
}

impl<'a> BlockGen<'a> {
    /// `role_params`: for each block parameter position, the shared storage it is (from the
    /// architecture description).
    pub fn new(
        p: &'a Program,
        tm: &'a TypeMap<'a>,
        arch: &'a Architecture,
        block: &'a Block,
        shared: &[HeldParam],
    ) -> Result<Self> {
        let mut scope = Scope::default();
        let mut paths = vec![None; block.vars.len()];
        let mut unheld = Vec::new();
        let mut locals = Vec::new();
        let mut user_meta = None;
        for HeldParam { pos, kind, member } in shared {
            if let Some(v) = block.params.get(*pos) {
                paths[v.index()] = Some(format!("s.phv.{member}"));
                if *kind == SharedKind::UserMetadata {
                    user_meta = block.vars.get(v.index()).map(|x| x.ty.clone());
                }
            }
        }
        for r in ["done_"] {
            scope.fresh(r);
        }
        for (i, v) in block.vars.iter().enumerate() {
            if paths[i].is_some() {
                continue;
            }
            if matches!(v.kind, VarKind::Param(_)) {
                // packet_in / packet_out and other non-shared parameters hold no packet state here.
                if matches!(&v.ty, Type::Named(id) if matches!(p.types.get(id.index()), Some(TypeDef::Extern { .. }))) {
                    continue;
                }
                return Err(RtlError::global(format!(
                    "parameter `{}` of `{}` is not storage the architecture shares between blocks",
                    v.name, block.name
                )));
            }
            if matches!(&v.ty, Type::Named(id) if matches!(p.types.get(id.index()), Some(TypeDef::Extern { .. }))) {
                continue;
            }
            let name = scope.fresh(&v.name);
            // A variable of a type hardware cannot hold is refused where it is first used, which
            // gives the refusal a location (variables carry none); an unused one costs nothing.
            let decl = match tm.sv(&v.ty) {
                Ok(d) => d,
                Err(e) => {
                    unheld.push((i, format!("variable `{}`: {}", v.name, e.message)));
                    continue;
                }
            };
            if let Type::Stack(_, n) = &v.ty {
                locals.push((format!("{name}{NEXT_INDEX}"), logic(crate::types::next_index_width(*n))));
            }
            locals.push((name.clone(), decl));
            paths[i] = Some(format!("s.l.{name}"));
        }
        locals.push(("done_".into(), "logic".into()));
        Ok(BlockGen {
            p,
            tm,
            arch,
            block,
            paths,
            pipeline_meta: vec![(format!("s.phv.{}", shared_member(SharedKind::Intrinsic)), arch.intrinsic_type.to_string())],
            unheld,
            locals,
            scope,
            done: "s.l.done_".into(),
            hashes: BTreeMap::new(),
            registers: BTreeMap::new(),
            multicast: false,
            clone_here: false,
            clones: false,
            clone_span: None,
            kept_sets: Vec::new(),
            user_meta,
            truncates: false,
            loop_here: None,
            loops: false,
            value_sets: BTreeMap::new(),
            stage: 0,
            out: String::new(),
            indent: 2,
            presums: Vec::new(),
            varbit_ahead: Vec::new(),
            stage_writes: Vec::new(),
            stage_input_registered: false,
            aheads: Vec::new(),
            parser: None,
            deparser: None,
        })
    }

    /// A new one-bit or wider generated local (`s.l.<name>`).
    pub fn extra(&mut self, name: &str, width: u32) -> String {
        self.local(name, logic(width))
    }

    /// A fresh local declared as `decl` (a packed type); returns its path.
    pub fn local(&mut self, name: &str, decl: String) -> String {
        let n = self.scope.fresh(name);
        self.locals.push((format!("{n}_"), decl));
        format!("s.l.{n}_")
    }

    pub fn line(&mut self, text: impl AsRef<str>) {
        let _ = writeln!(self.out, "{}{}", "    ".repeat(self.indent), text.as_ref());
    }
    pub fn open(&mut self, text: impl AsRef<str>) {
        self.line(text);
        self.indent += 1;
    }
    pub fn close(&mut self, text: impl AsRef<str>) {
        self.indent -= 1;
        self.line(text);
    }
    /// `end else begin` and the like: one line at the enclosing level.
    pub fn reopen(&mut self, text: impl AsRef<str>) {
        self.indent -= 1;
        self.line(text);
        self.indent += 1;
    }
    pub fn take_out(&mut self) -> String {
        std::mem::take(&mut self.out)
    }
    pub fn set_indent(&mut self, n: usize) {
        self.indent = n;
    }

    /// The path of a variable.
    pub fn var(&self, v: VarId, span: Span) -> Result<String> {
        if let Some((_, why)) = self.unheld.iter().find(|(i, _)| *i == v.index()) {
            return unsupported(span, why.clone());
        }
        self.paths
            .get(v.index())
            .cloned()
            .flatten()
            .ok_or_else(|| RtlError::new(span, format!("`{}` holds no value the hardware keeps", self.var_name(v))))
    }

    fn var_name(&self, v: VarId) -> &str {
        self.block.vars.get(v.index()).map_or("?", |x| x.name.as_str())
    }

    pub fn width(&self, ty: &Type, span: Span) -> Result<u32> {
        self.tm.width(ty).map_err(|e| RtlError::new(span, e.message))
    }

    /// The path of the intrinsic metadata field playing `role`: in the block's own intrinsic
    /// parameter that has the role, else in the pipeline's ([`BlockGen::pipeline_meta`]).
    pub fn meta(&self, role: MetaRole) -> Option<String> {
        let field = self.arch.field(role)?;
        let own = self.block.params.iter().find_map(|v| {
            let path = self.paths.get(v.index())?.as_ref()?;
            let Type::Named(id) = &self.block.vars.get(v.index())?.ty else { return None };
            let name = self.p.types.get(id.index())?.name();
            self.arch.holds(name, role).then(|| path.clone())
        });
        let path = own.or_else(|| self.pipeline_meta.iter().find(|(_, ty)| self.arch.holds(ty, role)).map(|(p, _)| p.clone()))?;
        Some(format!("{path}.{}", ident(field)))
    }

    // ------------------------------------------------------------ expressions

    /// A storage path (`s.phv.hdr.ipv4.ttl`, `s.phv.hdr.vlan[1]`).
    pub fn lval(&mut self, e: &Expr) -> Result<String> {
        Ok(match &e.kind {
            ExprKind::Var(v) => self.var(*v, e.span)?,
            ExprKind::Field(inner, i) if matches!(inner.ty, Type::Tuple(_)) => {
                let base = self.lval(inner)?;
                match self.tm.tuple_element(&inner.ty, *i as usize).map_err(|x| RtlError::new(e.span, x.message))? {
                    Some((hi, lo)) => format!("{base}[{hi}:{lo}]"),
                    None => return unsupported(e.span, "tuple element out of range"),
                }
            }
            ExprKind::Field(_, _) if matches!(e.ty, Type::Varbit(_)) => {
                return unsupported(e.span, "a varbit field outside extract, emit and whole-header copies")
            }
            ExprKind::Field(inner, i) => {
                let base = self.lval(inner)?;
                let f = self
                    .tm
                    .fields(&inner.ty)
                    .get(*i as usize)
                    .ok_or_else(|| RtlError::new(e.span, "field index out of range"))?;
                format!("{base}.{}", ident(&f.name))
            }
            ExprKind::Index(inner, idx) => {
                let base = self.lval(inner)?;
                format!("{base}[{}]", self.expr(idx)?)
            }
            ExprKind::StackNext(inner) => {
                let base = self.lval(inner)?;
                format!("{base}[{base}{NEXT_INDEX}]")
            }
            ExprKind::StackLast(inner) => {
                let base = self.lval(inner)?;
                format!("{base}[{base}{NEXT_INDEX} - 1'b1]")
            }
            ExprKind::Slice(inner, hi, lo) => format!("{}[{hi}:{lo}]", self.lval(inner)?),
            _ => return unsupported(e.span, "this expression is not storage"),
        })
    }

    /// An expression's value, sized to its P4 type.
    pub fn expr(&mut self, e: &Expr) -> Result<String> {
        let w = || self.tm.width(&e.ty).unwrap_or(1);
        Ok(match &e.kind {
            ExprKind::Const(v) => self.literal(v, &e.ty, e.span)?,
            ExprKind::Var(_)
            | ExprKind::Field(..)
            | ExprKind::Index(..)
            | ExprKind::StackNext(_)
            | ExprKind::StackLast(_) => self.lval(e)?,
            ExprKind::StackLastIndex(inner) => {
                let base = self.lval(inner)?;
                format!("32'({base}{NEXT_INDEX} - 1'b1)")
            }
            ExprKind::Slice(inner, hi, lo) => {
                if inner.is_lvalue() {
                    format!("{}[{hi}:{lo}]", self.lval(inner)?)
                } else {
                    format!("{}'(({}) >> {lo})", hi - lo + 1, self.expr(inner)?)
                }
            }
            ExprKind::Unary(op, a) => {
                let x = self.expr(a)?;
                match op {
                    UnOp::Not => format!("(!{x})"),
                    UnOp::BitNot => format!("{}'(~{x})", w()),
                    UnOp::Neg => format!("{}'(-{x})", w()),
                    UnOp::Plus => x,
                }
            }
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, e)?,
            ExprKind::Mux(c, a, b) => format!("({} ? {} : {})", self.expr(c)?, self.expr(a)?, self.expr(b)?),
            ExprKind::Cast(a) => self.cast(a, &e.ty, e.span)?,
            ExprKind::Call(call) => match &call.callee {
                Callee::Builtin { target, builtin: Builtin::IsValid } => self.is_valid(target)?,
                _ => {
                    return unsupported(
                        e.span,
                        "a call inside an expression that the mid-end leaves in place (e.g. inside a header stack index)",
                    )
                }
            },
            ExprKind::ApplyTable(..) => return unsupported(e.span, "a table apply inside an expression"),
            ExprKind::Aggregate(items) => {
                let mut parts = Vec::new();
                for i in items {
                    parts.push(self.expr(i)?);
                }
                if self.tm.is_header(&e.ty) {
                    parts.push("1'b1".into());
                }
                format!("{{{}}}", parts.join(", "))
            }
            ExprKind::InvalidHeader => "'0".into(),
            ExprKind::Extern(_) | ExprKind::DontCare => {
                return unsupported(e.span, "this expression has no value in hardware")
            }
        })
    }

    /// `a == b` for headers, unions and structs (spec 8.9): two headers are equal when both are
    /// invalid, or both valid with equal fields; structs and unions when every member is. Each
    /// side goes into a local of its type first, so its members can be selected.
    fn aggregate_eq(&mut self, a: &Expr, b: &Expr, span: Span) -> Result<String> {
        let mut sides = Vec::new();
        for x in [a, b] {
            let side = self.local("eq", self.tm.sv(&x.ty)?);
            let v = self.expr(x)?;
            self.line(format!("{side} = {v};"));
            sides.push(side);
        }
        self.members_eq(&sides[0], &sides[1], &a.ty, span)
    }

    fn members_eq(&self, x: &str, y: &str, ty: &Type, span: Span) -> Result<String> {
        if matches!(ty, Type::Stack(..)) {
            return unsupported(span, "comparing header stacks with == / !=");
        }
        if !self.tm.is_aggregate(ty) {
            return Ok(format!("({x} == {y})"));
        }
        let mut parts = Vec::new();
        for f in self.tm.fields(ty) {
            let n = ident(&f.name);
            parts.push(self.members_eq(&format!("{x}.{n}"), &format!("{y}.{n}"), &f.ty, span)?);
            if matches!(f.ty, Type::Varbit(_)) {
                // Equal varbits have equal lengths (and, past them, zero bits alike).
                parts.push(format!("({x}.{n}{VARBIT_LEN} == {y}.{n}{VARBIT_LEN})"));
            }
        }
        let all = if parts.is_empty() { "1'b1".to_string() } else { parts.join(" && ") };
        Ok(if self.tm.is_header(ty) {
            format!("(({x}.valid_ == {y}.valid_) && (!{x}.valid_ || ({all})))")
        } else {
            format!("({all})")
        })
    }

    fn signed(ty: &Type) -> bool {
        matches!(ty, Type::Bits { signed: true, .. })
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, e: &Expr) -> Result<String> {
        let w = self.width(&e.ty, e.span)?;
        let sa = Self::signed(&a.ty);
        if matches!(op, BinOp::Eq | BinOp::Ne) && (self.tm.is_aggregate(&a.ty) || self.tm.is_aggregate(&b.ty)) {
            let eq = self.aggregate_eq(a, b, e.span)?;
            return Ok(if op == BinOp::Eq { eq } else { format!("!{eq}") });
        }
        let x = self.expr(a)?;
        // A constant divisor or modulus that is a power of two becomes a shift or a mask.
        if matches!(op, BinOp::Div | BinOp::Mod) {
            if let ExprKind::Const(Value::Bits { value, .. } | Value::InfInt(value)) = &b.kind {
                if !sa && value.is_positive() && (value & (value - BigInt::from(1))).is_zero() {
                    let k = value.bits() - 1;
                    return Ok(if op == BinOp::Div {
                        format!("{w}'({x} >> {k})")
                    } else {
                        format!("{w}'({x} & {w}'d{})", value - 1)
                    });
                }
            }
            return unsupported(e.span, "division or modulo by anything but a constant power of two");
        }
        let y = self.expr(b)?;
        let (xs, ys) = if sa { (format!("$signed({x})"), format!("$signed({y})")) } else { (x.clone(), y.clone()) };
        Ok(match op {
            BinOp::Add => format!("{w}'({x} + {y})"),
            BinOp::Sub => format!("{w}'({x} - {y})"),
            BinOp::Mul => format!("{w}'({x} * {y})"),
            BinOp::AddSat | BinOp::SubSat if sa => {
                // Two's complement overflow: the operands' signs say which way it can go, the wrapped
                // result's sign whether it did.
                let max = (num_bigint::BigUint::from(1u8) << (w - 1)) - 1u8;
                let min = num_bigint::BigUint::from(1u8) << (w - 1);
                let (r, y_pos) = if op == BinOp::AddSat {
                    (format!("$signed({w}'({x} + {y}))"), format!("($signed({y}) >= 0)"))
                } else {
                    (format!("$signed({w}'({x} - {y}))"), format!("($signed({y}) < 0)"))
                };
                let (x_pos, x_neg) = (format!("($signed({x}) >= 0)"), format!("($signed({x}) < 0)"));
                format!(
                    "(({x_pos} && {y_pos} && ({r} < 0)) ? {w}'d{max} : (({x_neg} && !{y_pos} && ({r} >= 0)) ? {w}'d{min} : {w}'({r})))"
                )
            }
            BinOp::AddSat => {
                format!("((({}'({x}) + {}'({y})) >> {w}) != 0 ? {{{w}{{1'b1}}}} : {w}'({x} + {y}))", w + 1, w + 1)
            }
            BinOp::SubSat => format!("(({x} < {y}) ? {w}'d0 : {w}'({x} - {y}))"),
            BinOp::Shl => format!("{w}'({x} << {y})"),
            BinOp::Shr if sa => format!("{w}'({xs} >>> {y})"),
            BinOp::Shr => format!("{w}'({x} >> {y})"),
            BinOp::Eq => format!("({x} == {y})"),
            BinOp::Ne => format!("({x} != {y})"),
            BinOp::Lt => format!("({xs} < {ys})"),
            BinOp::Le => format!("({xs} <= {ys})"),
            BinOp::Gt => format!("({xs} > {ys})"),
            BinOp::Ge => format!("({xs} >= {ys})"),
            BinOp::BitAnd => format!("{w}'({x} & {y})"),
            BinOp::BitOr => format!("{w}'({x} | {y})"),
            BinOp::BitXor => format!("{w}'({x} ^ {y})"),
            BinOp::Concat => format!("{{{x}, {y}}}"),
            BinOp::And => format!("({x} && {y})"),
            BinOp::Or => format!("({x} || {y})"),
            BinOp::Div | BinOp::Mod => unreachable!("handled above"),
        })
    }

    fn cast(&mut self, a: &Expr, to: &Type, span: Span) -> Result<String> {
        if let ExprKind::Const(v) = &a.kind {
            if let Some(lit) = self.const_as(v, to) {
                return Ok(lit);
            }
        }
        let x = self.expr(a)?;
        let wt = self.width(to, span)?;
        let wf = self.width(&a.ty, span).unwrap_or(wt);
        Ok(if wt > wf && Self::signed(&a.ty) {
            format!("{wt}'($signed({x}))")
        } else if wt == wf {
            x
        } else {
            format!("{wt}'({x})")
        })
    }

    /// A constant converted to `to` at generation time, when it is a number.
    fn const_as(&self, v: &Value, to: &Type) -> Option<String> {
        let n = match v {
            Value::Bits { value, .. } | Value::InfInt(value) => value.clone(),
            Value::Bool(b) => BigInt::from(*b as u8),
            _ => return None,
        };
        let w = self.tm.width(to).ok()?;
        if !matches!(to, Type::Bits { .. } | Type::Bool) {
            return None;
        }
        Some(sized(&n, w))
    }

    /// A value as a sized literal of type `ty`.
    pub fn literal(&self, v: &Value, ty: &Type, span: Span) -> Result<String> {
        Ok(match v {
            Value::Bool(b) => if *b { "1'b1" } else { "1'b0" }.to_string(),
            Value::Bits { width, value, .. } => sized(value, *width),
            Value::InfInt(value) => match ty {
                Type::InfInt => value.to_string(),
                _ => sized(value, self.width(ty, span)?),
            },
            Value::Error(i) => format!("{}'d{i}", self.width(ty, span)?),
            Value::Enum(t, i) => {
                let w = self.width(ty, span)?;
                match self.p.types.get(t.index()) {
                    Some(TypeDef::Enum { members, underlying: Some(_), .. }) => {
                        let value = members.get(*i as usize).and_then(|m| m.1.clone()).unwrap_or_default();
                        sized(&value, w)
                    }
                    _ => format!("{w}'d{i}"),
                }
            }
            Value::Aggregate { valid, fields } => {
                let defs = self.tm.fields(ty);
                let mut parts = Vec::new();
                for (f, d) in fields.iter().zip(defs) {
                    parts.push(self.literal(f, &d.ty, span)?);
                }
                if self.tm.is_header(ty) {
                    parts.push(if *valid { "1'b1" } else { "1'b0" }.into());
                }
                if parts.is_empty() {
                    "'0".into()
                } else {
                    format!("{{{}}}", parts.join(", "))
                }
            }
            Value::String(_) | Value::MatchKind(_) => return unsupported(span, "a string or match_kind value"),
        })
    }

    // ------------------------------------------------------------ statements

    /// Whether `st` may end the block (so the statements after it need a guard).
    pub fn may_end(&self, st: &Stmt) -> bool {
        match st {
            Stmt::Exit(_) | Stmt::Return(..) => true,
            Stmt::If { then, otherwise, .. } => then.iter().chain(otherwise).any(|s| self.may_end(s)),
            Stmt::SwitchValue { cases, .. } => cases.iter().flat_map(|c| &c.1).any(|s| self.may_end(s)),
            Stmt::SwitchAction { cases, .. } => cases.iter().flat_map(|c| &c.1).any(|s| self.may_end(s)),
            Stmt::Block(b) => b.iter().any(|s| self.may_end(s)),
            Stmt::Call(c) => match &c.callee {
                Callee::Action(a) => {
                    self.p.actions.get(a.index()).is_some_and(|a| a.body.iter().any(|s| self.may_end(s)))
                }
                Callee::Method { method, extern_type, .. } if self.parser.is_some() => {
                    extern_type == "packet_in" && (method == "extract" || method == "advance" || method == "lookahead")
                }
                Callee::ExternFunction { name, .. } if self.parser.is_some() => name == "verify",
                _ => false,
            },
            _ => false,
        }
    }

    /// Straight-line statements (no table applies), each after the previous one, the rest of the
    /// list skipped once one of them ends the block.
    pub fn stmts(&mut self, list: &[Stmt]) -> Result<()> {
        let mut opened = 0;
        for (i, st) in list.iter().enumerate() {
            self.stmt(st)?;
            if i + 1 < list.len() && self.may_end(st) {
                let done = self.done.clone();
                self.open(format!("if (!{done}) begin"));
                opened += 1;
            }
        }
        for _ in 0..opened {
            self.close("end");
        }
        Ok(())
    }

    pub fn stmt(&mut self, st: &Stmt) -> Result<()> {
        self.stmt_code(st)?;
        let fx = p4_ir::cfg::stmts_effects(self.p, std::slice::from_ref(st));
        self.stage_writes.extend(fx.may_writes);
        Ok(())
    }

    fn stmt_code(&mut self, st: &Stmt) -> Result<()> {
        match st {
            Stmt::VarInit { var, init, span } => {
                let path = self.var(*var, *span)?;
                let ty = self.block.vars[var.index()].ty.clone();
                match init {
                    Some(e) => self.assign_value(&path, &ty, e)?,
                    None => {
                        if let Type::Stack(..) = ty {
                            self.line(format!("{path}{NEXT_INDEX} = '0;"));
                        }
                        self.line(format!("{path} = '0;"));
                    }
                }
            }
            Stmt::Assign { lhs, rhs, .. } => {
                if matches!(lhs.kind, ExprKind::DontCare) {
                    return Ok(());
                }
                let path = self.lval(lhs)?;
                // A register read that returns its value (PSA's `Register.read(index)`).
                if let Some((id, call)) = self.returning_register_read(rhs) {
                    let [idx] = &call.args[..] else { return unsupported(call.span, "register read arguments") };
                    return self.register_read(id, path, &idx.expr, call.span);
                }
                self.note_multicast(&path, rhs);
                self.assign_value(&path, &lhs.ty, rhs)?;
                self.invalidate_union_siblings(lhs, Some(&format!("{path}.valid_")))?;
            }
            Stmt::Call(call) => self.call(call)?,
            Stmt::If { cond, then, otherwise, .. } => {
                let c = self.expr(cond)?;
                self.open(format!("if ({c}) begin"));
                self.stmts(then)?;
                if otherwise.is_empty() {
                    self.close("end");
                } else {
                    self.indent -= 1;
                    self.line("end else begin");
                    self.indent += 1;
                    self.stmts(otherwise)?;
                    self.close("end");
                }
            }
            Stmt::SwitchValue { expr, cases, span } => {
                let x = self.expr(expr)?;
                let mut first = true;
                let mut default: Option<&Vec<Stmt>> = None;
                for (label, body) in cases {
                    let Some(v) = label else {
                        default = Some(body);
                        continue;
                    };
                    let lit = self.literal(v, &expr.ty, *span)?;
                    let kw = if first { "if" } else { "end else if" };
                    if !first {
                        self.indent -= 1;
                    }
                    self.line(format!("{kw} ({x} == {lit}) begin"));
                    self.indent += 1;
                    self.stmts(body)?;
                    first = false;
                }
                if let Some(body) = default {
                    if first {
                        self.stmts(body)?;
                    } else {
                        self.indent -= 1;
                        self.line("end else begin");
                        self.indent += 1;
                        self.stmts(body)?;
                    }
                }
                if !first {
                    self.close("end");
                }
            }
            Stmt::Block(b) => self.stmts(b)?,
            Stmt::Exit(_) | Stmt::Return(None, _) => {
                let d = self.done.clone();
                self.line(format!("{d} = 1'b1;"));
            }
            Stmt::Return(Some(_), span) => {
                return unsupported(*span, "a value-returning `return` (run the lowered program)")
            }
            Stmt::Empty => {}
            Stmt::For { span, .. } => return unsupported(*span, "a `for` loop"),
            Stmt::Break(span) | Stmt::Continue(span) => return unsupported(*span, "`break`/`continue`"),
            Stmt::ApplyTable { span, .. } | Stmt::SwitchAction { span, .. } => {
                return unsupported(*span, "a table apply here (inside an action or a loop)")
            }
            Stmt::ApplyBlock { span, .. } => {
                return unsupported(*span, "applying a sub-parser or sub-control that the mid-end could not inline")
            }
        }
        Ok(())
    }

    /// `e.isValid()`: a header's validity bit; a header union is valid when one of its members is.
    fn is_valid(&mut self, e: &Expr) -> Result<String> {
        let path = self.lval(e)?;
        if !self.tm.is_union(&e.ty) {
            return Ok(format!("{path}.valid_"));
        }
        let members: Vec<String> =
            self.tm.fields(&e.ty).iter().map(|f| format!("{path}.{}.valid_", ident(&f.name))).collect();
        Ok(if members.is_empty() { "1'b0".into() } else { format!("({})", members.join(" || ")) })
    }

    /// After `member` of a header union became valid (unconditionally, or when `when` holds): the
    /// union's other members become invalid (at most one member of a union is valid).
    pub fn invalidate_union_siblings(&mut self, member: &Expr, when: Option<&str>) -> Result<()> {
        let ExprKind::Field(union, i) = &member.kind else { return Ok(()) };
        if !self.tm.is_union(&union.ty) {
            return Ok(());
        }
        let base = self.lval(union)?;
        let others: Vec<String> = self
            .tm
            .fields(&union.ty)
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != *i as usize)
            .map(|(_, f)| format!("{base}.{}.valid_ = 1'b0;", ident(&f.name)))
            .collect();
        if others.is_empty() {
            return Ok(());
        }
        match when {
            None => self.line(others.join(" ")),
            Some(c) => self.line(format!("if ({c}) begin {} end", others.join(" "))),
        }
        Ok(())
    }

    /// Notes a write of anything but 0 to the multicast-group field: the top then builds the
    /// traffic manager's replication engine.
    fn note_multicast(&mut self, path: &str, rhs: &Expr) {
        let Some(target) = self.meta(MetaRole::MulticastGroup) else { return };
        let zero =
            matches!(&rhs.kind, ExprKind::Const(Value::Bits { value, .. } | Value::InfInt(value)) if value.is_zero());
        if path == target && !zero {
            self.multicast = true;
        }
    }

    /// `path = e`, splitting list expressions assigned to headers and structs.
    fn assign_value(&mut self, path: &str, ty: &Type, e: &Expr) -> Result<()> {
        if let ExprKind::Call(call) = &e.kind {
            if let Callee::Method { extern_type, method, .. } = &call.callee {
                if extern_type == "packet_in" && method == "lookahead" {
                    return crate::parser::lookahead(self, path, ty, call);
                }
            }
        }
        if let ExprKind::ApplyTable(..) = &e.kind {
            return unsupported(e.span, "a table apply result used here");
        }
        let v = self.expr(e)?;
        self.line(format!("{path} = {v};"));
        let _ = ty;
        Ok(())
    }

    /// Binds an action's parameters to argument expressions (`in`/`inout`), runs its body and
    /// copies `out`/`inout` parameters back.
    pub fn inline_action(&mut self, action: p4_ir::ActionId, args: &[Arg], span: Span) -> Result<()> {
        let a = self.p.actions.get(action.index()).ok_or_else(|| RtlError::new(span, "unknown action"))?;
        if p4_ir::visit::any_stmt(&a.body, |s| matches!(s, Stmt::Return(..))) {
            return unsupported(span, format!("`return` inside action `{}`", a.name));
        }
        for (param, arg) in a.params.iter().zip(args) {
            if matches!(param.direction, Direction::In | Direction::InOut | Direction::None) {
                let path = self.var(param.var, span)?;
                let v = self.expr(&arg.expr)?;
                self.line(format!("{path} = {v};"));
            }
        }
        self.line(format!("// action {}", a.name));
        self.stmts(&a.body)?;
        for (param, arg) in a.params.iter().zip(args) {
            if matches!(param.direction, Direction::Out | Direction::InOut)
                && !matches!(arg.expr.kind, ExprKind::DontCare)
            {
                let path = self.var(param.var, span)?;
                let target = self.lval(&arg.expr)?;
                self.line(format!("{target} = {path};"));
            }
        }
        Ok(())
    }

    fn call(&mut self, call: &Call) -> Result<()> {
        match &call.callee {
            Callee::Action(a) => self.inline_action(*a, &call.args, call.span),
            Callee::Function(_) => {
                unsupported(call.span, "a function call (the mid-end inlines functions; run the lowered program)")
            }
            Callee::Builtin { target, builtin } => {
                let path = self.lval(target)?;
                match builtin {
                    Builtin::SetValid => {
                        self.line(format!("{path}.valid_ = 1'b1;"));
                        self.invalidate_union_siblings(target, None)?;
                    }
                    Builtin::SetInvalid => self.line(format!("{path}.valid_ = 1'b0;")),
                    Builtin::IsValid => {}
                    Builtin::PushFront(k) | Builtin::PopFront(k) => {
                        let Type::Stack(_, n) = &target.ty else {
                            return unsupported(call.span, "push_front/pop_front on something that is not a stack");
                        };
                        let (n, k) = (*n as u64, *k as u64);
                        let ni = format!("{path}{NEXT_INDEX}");
                        // Element i takes element i - k (push) or i + k (pop), in the order that reads
                        // each source before it is overwritten; the elements shifted in are invalid.
                        if matches!(builtin, Builtin::PushFront(_)) {
                            for i in (0..n).rev() {
                                let src = if i >= k { format!("{path}[{}]", i - k) } else { "'0".into() };
                                self.line(format!("{path}[{i}] = {src};"));
                            }
                            self.line(format!(
                                "{ni} = $bits({ni})'((32'({ni}) + 32'd{k} > 32'd{n}) ? 32'd{n} : 32'({ni}) + 32'd{k});"
                            ));
                        } else {
                            for i in 0..n {
                                let src = if i + k < n { format!("{path}[{}]", i + k) } else { "'0".into() };
                                self.line(format!("{path}[{i}] = {src};"));
                            }
                            self.line(format!(
                                "{ni} = $bits({ni})'((32'({ni}) > 32'd{k}) ? 32'({ni}) - 32'd{k} : 32'd0);"
                            ));
                        }
                    }
                }
                Ok(())
            }
            Callee::ExternFunction { name, .. } => self.extern_function(name, call),
            Callee::Method { target, extern_type, method, .. } => {
                if extern_type == "packet_in" || extern_type == "packet_out" {
                    return crate::parser::packet_call(self, extern_type, method, call);
                }
                let ExprKind::Extern(id) = target.kind else {
                    return unsupported(
                        call.span,
                        format!("method `{method}` on something that is not an extern instance"),
                    );
                };
                self.extern_method(id, extern_type, method, call)
            }
        }
    }

    fn extern_function(&mut self, name: &str, call: &Call) -> Result<()> {
        if self.parser.is_some() && name == "verify" {
            return crate::parser::verify(self, call);
        }
        let Some(sig) = self.arch.function(name) else {
            return unsupported(call.span, format!("extern function `{name}`"));
        };
        match sig.op {
            ExternOp::MarkToDrop => {
                let p4_arch::DropMarker::AllOnes(role) = self.arch.drop;
                for r in sig.writes {
                    if let Some(path) = self.meta(*r) {
                        self.line(format!("{path} = {};", if *r == role { "'1" } else { "'0" }));
                    }
                }
                Ok(())
            }
            ExternOp::VerifyChecksum { payload: false } | ExternOp::UpdateChecksum { payload: false } => {
                let [cond, data, sum, algo] = &call.args[..] else {
                    return unsupported(call.span, format!("`{name}` with {} arguments", call.args.len()));
                };
                let f = self.hash_fn(&data.expr, &algo.expr)?;
                let c = self.expr(&cond.expr)?;
                let d = self.concat(&data.expr)?;
                let sw = self.width(&sum.expr.ty, call.span)?;
                let computed = match self.presums.iter().find(|(at, _)| *at == call_address(call)) {
                    Some((_, reg)) => format!("{sw}'({}_fin({reg}))", f.name()),
                    None => format!("{sw}'({}({d}))", f.name()),
                };
                if matches!(sig.op, ExternOp::VerifyChecksum { .. }) {
                    let v = self.expr(&sum.expr)?;
                    let err = self
                        .meta(MetaRole::ChecksumError)
                        .ok_or_else(|| RtlError::new(call.span, "no checksum-error metadata"))?;
                    self.line(format!("if ({c} && ({computed} != {v})) {err} = 1'b1;"));
                } else {
                    let target = self.lval(&sum.expr)?;
                    self.line(format!("if ({c}) {target} = {computed};"));
                }
                Ok(())
            }
            ExternOp::Random => {
                let [res, lo, hi] = &call.args[..] else {
                    return unsupported(call.span, format!("`{name}` with {} arguments", call.args.len()));
                };
                let (l, h) = (self.expr(&lo.expr)?, self.expr(&hi.expr)?);
                // Only a range of one value: any other would give numbers the software target's
                // generator does not, and the targets must produce the same packets.
                if l != h {
                    return unsupported(
                        call.span,
                        "`random` over more than one value (the targets' random numbers would differ)",
                    );
                }
                let w = self.width(&res.expr.ty, call.span)?;
                let target = self.lval(&res.expr)?;
                self.line(format!("{target} = {w}'({l});"));
                Ok(())
            }
            ExternOp::Hash => {
                let [res, algo, base, data, max] = &call.args[..] else {
                    return unsupported(call.span, format!("`{name}` with {} arguments", call.args.len()));
                };
                if !matches!(max.expr.kind, ExprKind::Const(_)) {
                    return unsupported(
                        max.expr.span,
                        "a hash range (`max`) known only at run time (a divider per packet)",
                    );
                }
                let f = self.hash_fn(&data.expr, &algo.expr)?;
                let d = self.concat(&data.expr)?;
                let (b, m) = (self.expr(&base.expr)?, self.expr(&max.expr)?);
                let w = self.width(&res.expr.ty, call.span)?;
                // Wide enough that base + (h % max) cannot wrap before the cut to the result's width,
                // as the software target computes it (max 0: the result is base).
                let cw =
                    [f.out_width(), self.width(&base.expr.ty, call.span)?, self.width(&max.expr.ty, call.span)?, w]
                        .into_iter()
                        .max()
                        .unwrap_or(w)
                        + 1;
                let target = self.lval(&res.expr)?;
                let h = format!("{cw}'({}({d}))", f.name());
                self.line(format!(
                    "{target} = {w}'(({cw}'({m}) != {cw}'d0) ? ({cw}'({b}) + ({h} % {cw}'({m}))) : {cw}'({b}));"
                ));
                Ok(())
            }
            // log_msg and digest write lines for the user to read (the software target's log);
            // neither changes a packet.
            ExternOp::LogMsg | ExternOp::Digest => {
                self.line(format!("// {name}: no effect on packets"));
                Ok(())
            }
            ExternOp::Assert => {
                // A failed assert/assume stops the packet: it is dropped, and nothing after it
                // (in this block or the next ones) has an effect.
                if self.parser.is_some() {
                    return unsupported(call.span, format!("`{name}` in the parser"));
                }
                let [cond] = &call.args[..] else { return unsupported(call.span, format!("`{name}` arguments")) };
                let c = self.expr(&cond.expr)?;
                let done = self.done.clone();
                self.line(format!("if (!({c})) begin s.phv.pi.aborted = 1'b1; {done} = 1'b1; end"));
                Ok(())
            }
            ExternOp::Clone(keep) => self.clone_call(name, keep, call),
            ExternOp::Resubmit(keep) => self.loop_call(name, keep, true, call),
            ExternOp::Recirculate(keep) => self.loop_call(name, keep, false, call),
            ExternOp::Truncate => {
                let [len] = &call.args[..] else { return unsupported(call.span, format!("`{name}` arguments")) };
                let n = self.expr(&len.expr)?;
                // A length beyond what a packet can have cuts nothing.
                self.line(format!(
                    "s.phv.pi.truncate = 1'b1; s.phv.pi.max_len = (32'({n}) > 32'd65535) ? 16'hFFFF : 16'({n});"
                ));
                self.truncates = true;
                Ok(())
            }
            _ => unsupported(call.span, format!("extern function `{name}`")),
        }
    }

    /// `clone(type, session)` and its field-keeping forms: the packet carries the request to the
    /// traffic manager (`pi.clone`, the session, the field set); the last call wins, as in the
    /// software target.
    fn clone_call(&mut self, name: &str, keep: Preserve, call: &Call) -> Result<()> {
        if !self.clone_here {
            return unsupported(call.span, format!("`{name}` outside ingress and egress"));
        }
        let Some(session) = call.args.get(1) else { return unsupported(call.span, format!("`{name}` arguments")) };
        let sess = self.expr(&session.expr)?;
        let set = self.kept_set(keep, call)?;
        self.clones = true;
        self.clone_span.get_or_insert(call.span);
        self.line(format!("s.phv.pi.clone = 1'b1; s.phv.pi.clone_session = 32'({sess}); s.phv.pi.clone_set = 8'd{set};"));
        Ok(())
    }

    /// `resubmit` (ingress) and `recirculate` (egress), with the fields they keep: the packet
    /// carries the request to the traffic manager (resubmit) or the deparser (recirculate).
    fn loop_call(&mut self, name: &str, keep: Preserve, resubmit: bool, call: &Call) -> Result<()> {
        if self.loop_here != Some(resubmit) {
            let place = if resubmit { "ingress" } else { "egress" };
            return unsupported(call.span, format!("`{name}` outside {place}"));
        }
        let set = self.kept_set(keep, call)?;
        self.loops = true;
        let (flag, field) = if resubmit { ("resubmit", "resub_set") } else { ("recirc", "recirc_set") };
        self.line(format!("s.phv.pi.{flag} = 1'b1; s.phv.pi.{field} = 8'd{set};"));
        Ok(())
    }

    /// The number of the field set a clone, resubmit or recirculate keeps (0: none), as PHV paths
    /// registered in `kept_sets`.
    fn kept_set(&mut self, keep: Preserve, call: &Call) -> Result<usize> {
        let mut paths = Vec::new();
        match keep {
            Preserve::Nothing => {}
            Preserve::FieldList(i) => {
                let index = match call.args.get(i).map(|a| &a.expr.kind) {
                    Some(ExprKind::Const(Value::Bits { value, .. } | Value::InfInt(value))) => value.to_u64(),
                    _ => None,
                };
                let Some(index) = index else { return unsupported(call.span, "a field list index known only at run time") };
                if let Some(ty) = self.user_meta.clone() {
                    for f in self.p.field_list_fields(&ty, index) {
                        let fname = &self.tm.fields(&ty)[f].name;
                        paths.push(format!("meta.{}", ident(fname)));
                    }
                }
            }
            Preserve::Data(i) => {
                if let Some(arg) = call.args.get(i) {
                    let mut items = vec![&arg.expr];
                    if let ExprKind::Cast(inner) = &arg.expr.kind {
                        items = vec![inner.as_ref()];
                    }
                    if let ExprKind::Aggregate(xs) = &items[0].kind {
                        items = xs.iter().collect();
                    }
                    for it in items {
                        if !it.is_lvalue() {
                            continue;
                        }
                        let path = self.lval(it)?;
                        match path.strip_prefix("s.phv.") {
                            Some(p) => paths.push(p.to_string()),
                            None => return unsupported(it.span, "keeping a local variable for the new packet"),
                        }
                    }
                }
            }
        }
        if paths.is_empty() {
            return Ok(0);
        }
        let set = match self.kept_sets.iter().position(|s| *s == paths) {
            Some(i) => i + 1,
            None => {
                self.kept_sets.push(paths);
                self.kept_sets.len()
            }
        };
        if set > 255 {
            return unsupported(call.span, "more than 255 different sets of fields kept for new packets");
        }
        Ok(set)
    }

    /// The function computing `algo` over the bits of `data`.
    pub fn hash_fn(&mut self, data: &Expr, algo: &Expr) -> Result<HashFn> {
        let ExprKind::Const(Value::Enum(t, i)) = &algo.kind else {
            return unsupported(algo.span, "a hash algorithm that is not a constant");
        };
        let member = match self.p.types.get(t.index()) {
            Some(TypeDef::Enum { members, .. }) => members.get(*i as usize).map(|m| m.0.clone()).unwrap_or_default(),
            _ => String::new(),
        };
        let algo_key = match self.arch.hash_algorithm(&member) {
            Some(HashAlgorithm::Csum16) => AlgoKey::Csum16,
            Some(HashAlgorithm::Xor16) => AlgoKey::Xor16,
            Some(HashAlgorithm::Crc16) => AlgoKey::Crc16,
            Some(HashAlgorithm::Crc32) => AlgoKey::Crc32,
            Some(HashAlgorithm::Identity) => AlgoKey::Identity,
            _ => return unsupported(algo.span, format!("hash algorithm `{member}`")),
        };
        let width = self.leaf_width(data)?;
        if width == 0 {
            return unsupported(data.span, "a checksum over no data");
        }
        let f = HashFn { algo: algo_key, width };
        self.hashes.insert(f, ());
        Ok(f)
    }

    fn leaf_width(&self, e: &Expr) -> Result<u32> {
        match &e.kind {
            ExprKind::Aggregate(items) => items.iter().map(|i| self.leaf_width(i)).sum(),
            _ if self.tm.is_header(&e.ty) => Ok(self.width(&e.ty, e.span)? - 1),
            _ => self.width(&e.ty, e.span),
        }
    }

    /// The bits of a list or header, most significant first (as the software target serialises them).
    pub fn concat(&mut self, e: &Expr) -> Result<String> {
        match &e.kind {
            ExprKind::Aggregate(items) => {
                let mut parts = Vec::new();
                for i in items {
                    parts.push(self.concat(i)?);
                }
                Ok(format!("{{{}}}", parts.join(", ")))
            }
            _ if self.tm.is_header(&e.ty) => {
                let w = self.width(&e.ty, e.span)?;
                Ok(format!("{}[{}:1]", self.lval(e)?, w - 1))
            }
            _ if self.tm.is_aggregate(&e.ty) => unsupported(e.span, "a struct as checksum data"),
            _ => self.expr(e),
        }
    }

    fn extern_method(&mut self, id: ExternId, extern_type: &str, method: &str, call: &Call) -> Result<()> {
        let Some(sig) = self.arch.method(extern_type, method) else {
            return unsupported(call.span, format!("`{extern_type}.{method}`"));
        };
        match sig.op {
            ExternOp::RegisterRead | ExternOp::RegisterWrite => self.register_access(id, sig.op, call),
            ExternOp::CounterCount => self.counter_count(id, call),
            ExternOp::DirectCounterCount => {
                self.line(format!("// {extern_type}.{method}: the table's hit counts (see direct_count)"));
                Ok(())
            }
            _ => unsupported(call.span, format!("`{extern_type}.{method}`")),
        }
    }

    /// The array behind a register or counter extern, declared at its first use; every use must
    /// be in one pipeline stage.
    fn register_array(&mut self, id: ExternId, kind: RegisterKind, span: Span, direct: Option<(&str, u64)>) -> Result<RegisterUse> {
        let inst = &self.p.externs[id.index()];
        let stage = self.stage;
        let entry = match self.registers.get(&id) {
            Some(r) => r.clone(),
            None => {
                let size = match (direct, inst.ctor_args.first()) {
                    (Some((_, slots)), _) => slots,
                    (None, Some(Some(Value::Bits { value, .. } | Value::InfInt(value)))) => value.to_u64().unwrap_or(0),
                    _ => 0,
                };
                let (prefix, width) = match kind {
                    RegisterKind::Counter => ("cnt", COUNTER_CELL_BITS),
                    RegisterKind::Register => match inst.type_args.first() {
                        Some(t) => ("reg", self.width(t, span)?),
                        None => return unsupported(span, "a register without an element type"),
                    },
                };
                if size == 0 || size > 65536 {
                    return unsupported(span, format!("{prefix} `{}` of {size} cells (1..65536 are built)", inst.name));
                }
                // A register's initial value (PSA's `Register(size, initial_value)`), cut to its width.
                let initial_arg = self.arch.extern_type(&inst.type_name).and_then(|sig| sig.initial_arg);
                let initial = match (kind, initial_arg.and_then(|a| inst.ctor_args.get(a)?.as_ref()), inst.type_args.first()) {
                    (RegisterKind::Register, Some(v), Some(ty)) => {
                        let value = p4_ir::layout::scalar_value(self.p, v, ty).map_err(|e| RtlError::new(span, e))?;
                        if width >= 128 { value } else { value & ((1u128 << width) - 1) }
                    }
                    _ => 0,
                };
                let r = RegisterUse {
                    name: format!("{prefix}_{}", ident(&inst.name)),
                    kind,
                    table: direct.map(|(t, _)| t.to_string()),
                    width,
                    size,
                    index_width: 32,
                    stage: Some(stage),
                    span,
                    initial,
                };
                self.registers.insert(id, r.clone());
                r
            }
        };
        if entry.stage != Some(stage) {
            return Err(RtlError::new(
                span,
                format!(
                    "`{}` is used in two pipeline stages (a table apply lies between its uses); the hardware keeps one packet per cycle only when every access to a register or counter is in one stage",
                    inst.name
                ),
            ));
        }
        Ok(entry)
    }

    /// The cell at index `i` as this packet sees it: its own earlier write in the stage wins over
    /// the array; an index past the end reads 0.
    fn cell_value(&self, r: &RegisterUse, i: &str) -> String {
        let array = format!(
            "({} ? {}[{}'({i})] : {}'d0)",
            in_range(i, r.size),
            r.name,
            crate::control::bits_for_index(r.size as u32),
            r.storage_bits()
        );
        own_write_or(r, i, &array)
    }

    /// A register read whose index is known as the packet enters the stage (it reads only the
    /// block's parameters, block-level locals and the apply body's temporaries, all of them held in
    /// the stage registers, none of them written earlier in the stage) is
    /// made a cycle ahead: a register takes the cell as the packet enters the stage, forwarded
    /// from the write the packet before it makes at that edge. The array's read multiplexer then
    /// lies before the stage instead of in front of its compares, and the read is synchronous, as
    /// block RAM reads are. Returns that register's name.
    fn read_ahead(&mut self, r: &RegisterUse, idx: &Expr, i: &str) -> Option<String> {
        if !self.stage_input_registered || !i.contains("s.") {
            return None;
        }
        let reads = p4_ir::cfg::expr_reads(self.p, idx);
        let invariant = reads.iter().all(|l| {
            let held = self.block.vars.get(l.var.index()).is_some_and(|v| matches!(v.kind, VarKind::Param(_) | VarKind::Local | VarKind::Temp));
            held && !self.stage_writes.iter().any(|w| w.overlaps(l))
        });
        if !invariant {
            return None;
        }
        if let Some(a) = self.aheads.iter().find(|a| a.array == r.name && a.index == i && a.stage == self.stage) {
            return Some(a.reg.clone());
        }
        let reg = format!("{}_ahead{}_", r.name, self.aheads.len());
        self.aheads.push(ReadAhead { reg: reg.clone(), array: r.name.clone(), index: i.to_string(), stage: self.stage });
        Some(reg)
    }

    /// `e` as a call of a register's read method that returns the value: the register and the call.
    fn returning_register_read<'e>(&self, e: &'e Expr) -> Option<(ExternId, &'e Call)> {
        let ExprKind::Call(call) = &e.kind else { return None };
        let Callee::Method { target, extern_type, method, .. } = &call.callee else { return None };
        let ExprKind::Extern(id) = target.kind else { return None };
        let sig = self.arch.method_with_arity(extern_type, method, call.args.len())?;
        (sig.op == ExternOp::RegisterRead).then_some((id, call))
    }

    /// `target = ` the cell at `idx` of register `id`.
    fn register_read(&mut self, id: ExternId, target: String, idx: &Expr, span: Span) -> Result<()> {
        let entry = self.register_array(id, RegisterKind::Register, span, None)?;
        let i = self.expr(idx)?;
        let value = match self.read_ahead(&entry, idx, &i) {
            Some(reg) => own_write_or(&entry, &i, &reg),
            None => self.cell_value(&entry, &i),
        };
        self.line(format!("{target} = {value};"));
        Ok(())
    }

    fn register_access(&mut self, id: ExternId, op: ExternOp, call: &Call) -> Result<()> {
        match op {
            ExternOp::RegisterRead => {
                let [out, idx] = &call.args[..] else { return unsupported(call.span, "register read arguments") };
                let target = self.lval(&out.expr)?;
                self.register_read(id, target, &idx.expr, call.span)?;
            }
            _ => {
                let entry = self.register_array(id, RegisterKind::Register, call.span, None)?;
                let name = &entry.name;
                let [idx, value] = &call.args[..] else { return unsupported(call.span, "register write arguments") };
                let i = self.expr(&idx.expr)?;
                let v = self.expr(&value.expr)?;
                self.line(format!("{name}_we = {}; {name}_wa = 32'({i}); {name}_wd = {v};", in_range(&i, entry.size)));
            }
        }
        Ok(())
    }

    /// `counter.count(i)`: one more packet and `packet_length` more bytes in cell `i` (an index
    /// past the end counts nothing, as in the software target).
    fn counter_count(&mut self, id: ExternId, call: &Call) -> Result<()> {
        let [idx] = &call.args[..] else { return unsupported(call.span, "counter count arguments") };
        let i = self.expr(&idx.expr)?;
        let entry = self.register_array(id, RegisterKind::Counter, call.span, None)?;
        self.count_cell(&entry, &i, "1'b1");
        Ok(())
    }

    /// A hit of `table`, whose direct counter is `id`, counts in the cell of the entry's slot
    /// (`slot`, carried in the entry's data); as in the software target every hit counts, whether
    /// or not an action calls `count()`.
    pub fn direct_count(&mut self, id: ExternId, table: &str, slots: u64, slot: &str, hit: &str, span: Span) -> Result<()> {
        let entry = self.register_array(id, RegisterKind::Counter, span, Some((table, slots)))?;
        self.count_cell(&entry, slot, hit);
        Ok(())
    }

    /// One more packet and `packet_length` more bytes in cell `i` when `cond` (an index past the
    /// end counts nothing, as in the software target). The stage adds to the low halves only and
    /// hands their carries to the array's high halves (see [`COUNTER_HALF_BITS`]); a second count
    /// of the same cell in the stage adds to the first's carries (two counts cannot both carry).
    fn count_cell(&mut self, entry: &RegisterUse, i: &str, cond: &str) {
        // Without a packet-length field (PSA), the length the packet entered this pipeline with.
        let len = self.meta(MetaRole::PacketLength).map_or(PI_LENGTH_READ.to_string(), |l| format!("32'({l})"));
        let cur = self.local("cell", logic(COUNTER_HALF_BITS));
        let packets = self.local("packets", logic(33));
        let bytes = self.local("bytes", logic(33));
        let name = &entry.name;
        self.line(format!("{cur} = {};", self.cell_value(entry, i)));
        self.line(format!("{packets} = {{1'b0, {cur}[63:32]}} + 33'd1;"));
        self.line(format!("{bytes} = {{1'b0, {cur}[31:0]}} + {{1'b0, {len}}};"));
        self.line(format!(
            "if ({cond}) begin {name}_wc = (({name}_we && {name}_wa == 32'({i})) ? {name}_wc : 2'b00) | {{{packets}[32], {bytes}[32]}}; \
             {name}_we = {}; {name}_wa = 32'({i}); {name}_wd = {{{packets}[31:0], {bytes}[31:0]}}; end",
            in_range(i, entry.size)
        ));
    }
}

/// Cell `i` of `r` as the packet sees it when `other` is what the cell holds otherwise: the
/// packet's own earlier write in the stage wins.
fn own_write_or(r: &RegisterUse, i: &str, other: &str) -> String {
    let name = &r.name;
    format!("(({name}_we && {name}_wa == 32'({i})) ? {name}_wd : {other})")
}

/// Whether index `i` is within an array of `size` cells. For a power of two that is the index's
/// high bits all zero, a few LUTs (or none, when they are known zeros) where a compare would be a
/// carry chain on the path to the array.
pub fn in_range(i: &str, size: u64) -> String {
    if size >= 1 << 32 {
        "1'b1".to_string()
    } else if size.is_power_of_two() {
        format!("((32'({i}) >> {}) == 32'd0)", size.trailing_zeros())
    } else {
        format!("(32'({i}) < 32'd{size})")
    }
}

/// `value` as a `w`-bit literal (two's complement for negative values).
pub fn sized(value: &BigInt, w: u32) -> String {
    let modulus = BigInt::from(1) << w;
    let mut v = value % &modulus;
    if v.is_negative() {
        v += &modulus;
    }
    format!("{w}'h{}", v.to_str_radix(16))
}

//! The deparser: valid headers, in `emit` order, written one after another into a header vector
//! (most significant bit = first bit on the wire), with the byte count. `p4f_deparse_merge` then
//! sends those bytes followed by the packet's unparsed rest.
//!
//! Each `emit` takes a copy of its header where the program runs it; [`assemble`] then builds the
//! vector from the last emit back, putting each valid header in front of what follows it. A
//! header's place in the vector depends on which headers before it are valid, but in this order
//! every step is a constant shift (wiring and one 2:1 multiplexer per bit), where writing at the
//! running offset would need a shifter across the whole vector per emit (mdp has 32 emits into a
//! 9,392-bit vector). Only a varbit field moves what follows it by a run-time amount.

use p4_ir::{Call, Type, TypeDef};

use crate::block::BlockGen;
use crate::error::{unsupported, Result, RtlError};
use crate::names::ident;
use crate::types::{shift_amount, VARBIT_LEN};

/// Where `emit` writes.
#[derive(Clone, Debug)]
pub struct DeparserCtx {
    /// The header vector (big-endian view) and its width in bits.
    pub vector: String,
    pub vector_bits: u32,
    /// The running offset in bits.
    pub offset: String,
    /// The emits so far, in program order.
    pub emits: Vec<Emit>,
}

/// One `emit` of one header: the local holding its copy, and its layout on the wire.
#[derive(Clone, Debug)]
pub struct Emit {
    pub copy: String,
    /// Bits without the validity bit (a varbit field counted at its maximum).
    pub bits: u32,
    pub varbit: Option<crate::types::VarbitLayout>,
}

/// Bits the deparser can emit at most (every emit counted once).
pub fn max_bits(g: &BlockGen, body: &[p4_ir::Stmt]) -> Result<u32> {
    let mut total = 0;
    for st in body {
        total += match st {
            p4_ir::Stmt::Call(c) => match &c.callee {
                p4_ir::Callee::Method { extern_type, method, .. }
                    if extern_type == "packet_out" && method == "emit" =>
                {
                    let [arg] = &c.args[..] else { return unsupported(c.span, "emit arguments") };
                    wire_bits(g, &arg.expr.ty, c.span)?
                }
                _ => 0,
            },
            p4_ir::Stmt::If { then, otherwise, .. } => max_bits(g, then)? + max_bits(g, otherwise)?,
            p4_ir::Stmt::Block(b) => max_bits(g, b)?,
            _ => 0,
        };
    }
    Ok(total)
}

fn wire_bits(g: &BlockGen, ty: &Type, span: p4_ir::Span) -> Result<u32> {
    Ok(match ty {
        Type::Stack(elem, n) => wire_bits(g, elem, span)? * n,
        Type::Named(id) => match g.p.types.get(id.index()) {
            Some(TypeDef::Header { .. }) => match g.tm.varbit_layout(ty).map_err(|e| RtlError::new(span, e.message))? {
                Some(l) => l.pre + l.max + l.post,
                None => g.width(ty, span)? - 1,
            },
            Some(TypeDef::Struct { fields, .. }) | Some(TypeDef::Union { fields, .. }) => {
                let mut t = 0;
                for f in fields {
                    t += wire_bits(g, &f.ty, span)?;
                }
                t
            }
            _ => {
                return unsupported(
                    span,
                    "emit of something that is not a header, header stack, union or struct of them",
                )
            }
        },
        _ => return unsupported(span, "emit of something that is not a header, header stack, union or struct of them"),
    })
}

/// `packet.emit(x)`.
pub fn emit_call(g: &mut BlockGen, method: &str, call: &Call) -> Result<()> {
    if method != "emit" {
        return unsupported(call.span, format!("packet_out.{method}"));
    }
    if g.deparser.is_none() {
        return unsupported(call.span, "emit outside the deparser");
    }
    let [arg] = &call.args[..] else { return unsupported(call.span, "emit arguments") };
    let path = g.lval(&arg.expr)?;
    emit_path(g, &path, &arg.expr.ty, call.span)
}

fn emit_path(g: &mut BlockGen, path: &str, ty: &Type, span: p4_ir::Span) -> Result<()> {
    let Some(ctx) = g.deparser.clone() else { return Ok(()) };
    match ty {
        Type::Stack(elem, n) => {
            for i in 0..*n {
                emit_path(g, &format!("{path}[{i}]"), elem, span)?;
            }
            Ok(())
        }
        Type::Named(id) => match g.p.types.get(id.index()) {
            Some(TypeDef::Header { .. }) => {
                let varbit = g.tm.varbit_layout(ty).map_err(|e| RtlError::new(span, e.message))?;
                let bits = match &varbit {
                    Some(l) => l.pre + l.max + l.post,
                    None => g.width(ty, span)? - 1,
                };
                let len = match &varbit {
                    Some(l) => format!("32'd{} + 32'({path}.{}{VARBIT_LEN})", l.pre + l.post, l.field),
                    None => format!("32'd{bits}"),
                };
                let copy = g.local("emit", g.tm.sv(ty)?);
                let off = &ctx.offset;
                g.line(format!("{copy} = {path}; if ({path}.valid_) {off} = {off} + {len};"));
                if let Some(d) = g.deparser.as_mut() {
                    d.emits.push(Emit { copy, bits, varbit });
                }
                Ok(())
            }
            Some(TypeDef::Struct { fields, .. }) | Some(TypeDef::Union { fields, .. }) => {
                for f in fields.clone() {
                    emit_path(g, &format!("{path}.{}", ident(&f.name)), &f.ty, span)?;
                }
                Ok(())
            }
            _ => unsupported(span, "emit of a value that is not a header"),
        },
        _ => unsupported(span, "emit of a value that is not a header"),
    }
}

/// The header vector from the emits' copies, last first (see the module comment).
pub fn assemble(g: &mut BlockGen) -> Result<()> {
    let Some(ctx) = g.deparser.clone() else { return Ok(()) };
    let (v, vb) = (&ctx.vector, ctx.vector_bits);
    let top = vb - 1;
    // Prepends `bits` bits in front of the vector (its last bits are past every header: zero).
    let prepend = |value: String, bits: u32| {
        if bits >= vb {
            format!("{v} = {vb}'({value});")
        } else {
            format!("{v} = {{{value}, {v}[{top}:{bits}]}};")
        }
    };
    if !ctx.emits.is_empty() {
        g.line("// The header vector, from the last emit back: each valid header goes in front of what follows it.");
    }
    let mut rest = 0; // bits that can follow the current emit
    for e in ctx.emits.iter().rev() {
        let c = &e.copy;
        match &e.varbit {
            None => g.line(format!("if ({c}.valid_) {}", prepend(format!("{c}[{}:1]", e.bits), e.bits))),
            Some(l) => {
                g.open(format!("if ({c}.valid_) begin"));
                let mut after = rest;
                if l.post > 0 {
                    g.line(prepend(format!("{c}[$bits({c}) - 1 - {} -: {}]", l.pre + l.max, l.post), l.post));
                    after += l.post;
                }
                // The field's bits past its length are zero (an extract clears them), so what
                // follows moves down by the length and the field fills the gap above it.
                let len = shift_amount(&format!("{c}.{}{VARBIT_LEN}", l.field), l.max, l.align);
                if after > 0 {
                    let w = after + l.max;
                    g.line(format!("{v}[{top} -: {w}] = {w}'({{{v}[{top} -: {after}], {}'(0)}} >> {len});", l.max));
                }
                g.line(format!("{v}[{top} -: {}] = {v}[{top} -: {}] | {c}.{};", l.max, l.max, l.field));
                if l.pre > 0 {
                    g.line(prepend(format!("{c}[$bits({c}) - 1 -: {}]", l.pre), l.pre));
                }
                g.close("end");
            }
        }
        rest += e.bits;
    }
    Ok(())
}

//! The deparser: valid headers, in `emit` order, written one after another into a header vector
//! (most significant bit = first bit on the wire), with the byte count. `p4f_deparse_merge` then
//! sends those bytes followed by the packet's unparsed rest.

use p4_ir::{Call, Type, TypeDef};

use crate::block::BlockGen;
use crate::error::{unsupported, Result, RtlError};
use crate::names::ident;
use crate::types::{NEXT_INDEX, VARBIT_LEN};

/// Where `emit` writes.
#[derive(Clone, Debug)]
pub struct DeparserCtx {
    /// The header vector (big-endian view) and its width in bits.
    pub vector: String,
    pub vector_bits: u32,
    /// The running offset in bits.
    pub offset: String,
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
            Some(TypeDef::Header { .. }) if g.tm.varbit_layout(ty).map_err(|e| RtlError::new(span, e.message))?.is_some() => {
                emit_varbit_header(g, path, ty, span)
            }
            Some(TypeDef::Header { .. }) => {
                let w = g.width(ty, span)?;
                let bits = w - 1;
                let (v, vb, off) = (&ctx.vector, ctx.vector_bits, &ctx.offset);
                g.line(format!(
                    "if ({path}.valid_) begin {v}[{} - {off} -: {bits}] = {path}[{}:1]; {off} = {off} + 32'd{bits}; end",
                    vb - 1,
                    w - 1
                ));
                Ok(())
            }
            Some(TypeDef::Struct { fields, .. }) | Some(TypeDef::Union { fields, .. }) => {
                for f in fields.clone() {
                    emit_path(g, &format!("{path}.{}", ident(&f.name)), &f.ty, span)?;
                    let _ = NEXT_INDEX;
                }
                Ok(())
            }
            _ => unsupported(span, "emit of a value that is not a header"),
        },
        _ => unsupported(span, "emit of a value that is not a header"),
    }
}

/// A header with a varbit field: its fixed bits before, the varbit field at its maximum width (the
/// bits past its length are zero and the next emit overwrites them), the fixed bits after it at
/// the end of its current length.
fn emit_varbit_header(g: &mut BlockGen, path: &str, ty: &Type, span: p4_ir::Span) -> Result<()> {
    let Some(ctx) = g.deparser.clone() else { return Ok(()) };
    let Some(l) = g.tm.varbit_layout(ty).map_err(|e| RtlError::new(span, e.message))? else { return Ok(()) };
    let (v, top, off) = (&ctx.vector, ctx.vector_bits - 1, &ctx.offset);
    let len = format!("32'({path}.{}{VARBIT_LEN})", l.field);
    g.open(format!("if ({path}.valid_) begin"));
    if l.pre > 0 {
        g.line(format!("{v}[{top} - {off} -: {}] = {path}[$bits({path}) - 1 -: {}];", l.pre, l.pre));
    }
    g.line(format!("{v}[{top} - {off} - {} -: {}] = {path}.{};", l.pre, l.max, l.field));
    if l.post > 0 {
        g.line(format!(
            "{v}[{top} - {off} - {} - {len} -: {}] = {path}[$bits({path}) - 1 - {} -: {}];",
            l.pre,
            l.post,
            l.pre + l.max,
            l.post
        ));
    }
    g.line(format!("{off} = {off} + 32'd{} + {len};", l.pre + l.post));
    g.close("end");
    Ok(())
}

//! Where values live for the wire-format executor: every header instance the program declares gets
//! a region of the wire buffer; everything else keeps the frame slot the layout
//! ([`crate::fast::compile::lay_out`]) gave it.

use std::collections::HashMap;

use p4_ir::{BlockRef, Expr, Type, TypeDef};

use crate::fast::compile::{unsupported, Compiler, FieldKind, R};

/// A header instance's bytes in the wire buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Region {
    /// Index of its validity bit.
    pub index: usize,
    /// First byte.
    pub at: usize,
    /// Length in bytes (with a varbit field, at its maximum; a header that is not whole bytes
    /// rounded up, its last byte's low bits zero).
    pub len: usize,
    /// Bits of the fixed-width fields: what `extract` takes and `emit` gives of a header without
    /// a varbit field.
    pub bits: usize,
    /// Its last field when that is a varbit: the header's bytes on the wire are then its first
    /// `len - varbit.max_len` bytes and the varbit's current length.
    pub varbit: Option<Varbit>,
}

/// A header's trailing varbit field in the wire buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Varbit {
    /// The frame slot of its current length in bits (the layout's slot for the field; its
    /// 128-bit pieces follow it there, filled only when a traced switch shows the packet).
    pub length_slot: usize,
    /// Bytes it can take (its maximum width, rounded up to whole bytes); they end the region, and
    /// those past its current length are zero.
    pub max_len: usize,
    /// Its maximum width in bits.
    pub max_bits: usize,
}

impl Region {
    /// Bytes of the fixed-width fields.
    pub(crate) fn fixed_len(&self) -> usize {
        self.len - self.varbit.map_or(0, |v| v.max_len)
    }

    /// Bytes the header has on the wire now: the fixed fields' and the varbit's current length
    /// (whole bytes: the executors extract no other).
    #[inline]
    pub(crate) fn wire_len(&self, frame: &crate::fast::exec::Ctx) -> usize {
        match self.varbit {
            None => self.len,
            Some(v) => self.fixed_len() + (frame.get(v.length_slot) as usize).div_ceil(8).min(v.max_len),
        }
    }

    /// Bits the header has on the wire now (see [`Region::wire_len`]).
    #[inline]
    pub(crate) fn wire_bits(&self, frame: &crate::fast::exec::Ctx) -> usize {
        match self.varbit {
            None => self.bits,
            Some(_) => self.wire_len(frame) * 8,
        }
    }
}

/// A header instance both as its wire region and as its frame slots: what a traced switch copies
/// into the frame to show the packet ([`to_frame`]).
#[derive(Clone, Debug)]
pub(crate) struct FrameHeader {
    pub region: Region,
    /// The frame slot of its validity (the header's base slot).
    pub valid: usize,
    /// `(frame slot, bit offset in the wire buffer, width)` of each field.
    pub fields: Vec<(usize, usize, u32)>,
}

impl FrameHeader {
    /// Frame slots `[start, end)` the header occupies.
    fn slots(&self) -> (usize, usize) {
        let fields = self.fields.iter().map(|f| f.0 + 1).max().unwrap_or(self.valid + 1);
        // A varbit's length and its 128-bit pieces (the frame layout).
        let varbit = self.region.varbit.map_or(0, |v| v.length_slot + 1 + v.max_bits.div_ceil(128).max(1));
        (self.valid, fields.max(varbit))
    }
}

/// Where an l-value or readable place is.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Place {
    /// A scalar frame slot (metadata, a local, action data).
    Slot(usize),
    /// A header field: absolute bit offset into the wire buffer and width.
    Field { bit: usize, width: u32 },
    /// A whole header instance.
    Header(Region),
}

/// Where a value wider than 128 bits is.
#[derive(Clone, Copy, Debug)]
pub(crate) enum WidePlace {
    /// A header field: its bits in the wire buffer from absolute bit `bit`.
    Wire { bit: usize, width: u32 },
    /// A local, metadata or action data: 128-bit frame slots from `base`, most significant
    /// first, the first holding the `width % 128` top bits.
    Slots { base: usize, width: u32 },
}

impl WidePlace {
    /// Its value, as an unsigned number of its width.
    pub(crate) fn read(&self, c: &crate::fast::exec::Ctx) -> num_bigint::BigUint {
        let mut v = num_bigint::BigUint::default();
        for (k, (w, at)) in pieces_of(self.width()).enumerate() {
            let x = match *self {
                WidePlace::Wire { bit, .. } => super::read_field(&c.wire, bit + at, w),
                WidePlace::Slots { base, .. } => c.get(base + k),
            };
            v = (v << w) | num_bigint::BigUint::from(x);
        }
        v
    }

    /// Writes `v` (already of its width).
    pub(crate) fn write(&self, c: &mut crate::fast::exec::Ctx, v: &num_bigint::BigUint) {
        let n = crate::wide::pieces(self.width());
        for (k, (w, at)) in pieces_of(self.width()).enumerate() {
            let x = crate::wide::piece(v, n, k);
            match *self {
                WidePlace::Wire { bit, .. } => super::write_field(&mut c.wire, bit + at, w, x),
                WidePlace::Slots { base, .. } => c.set(base + k, x),
            }
        }
    }

    pub(crate) fn width(&self) -> u32 {
        match *self {
            WidePlace::Wire { width, .. } | WidePlace::Slots { width, .. } => width,
        }
    }
}

/// The 128-bit pieces of a `width`-bit value, most significant first: `(width, bit offset)`, the
/// first taking the bits past the others.
fn pieces_of(width: u32) -> impl Iterator<Item = (u32, usize)> {
    let n = crate::wide::pieces(width);
    let first = width - 128 * (n as u32 - 1);
    (0..n).map(move |k| if k == 0 { (first, 0) } else { (128, first as usize + 128 * (k - 1)) })
}

/// The header instances of a program and the frame slots they stand for.
#[derive(Default)]
pub(crate) struct Places {
    /// Header instance by the frame slot of its validity field (the header's base slot).
    headers: HashMap<usize, Region>,
    /// Header field by its frame slot.
    fields: HashMap<usize, (usize, u32)>,
    /// Frame slot ranges `[start, end)` of values this executor does not place (header stacks and
    /// unions, headers with varbit or very wide fields): a place inside one is refused.
    refused: Vec<(usize, usize, String)>,
    /// Bytes used by the regions.
    pub wire_len: usize,
    /// Why the parser's cursor or the deparser's output may stop off a byte boundary (a header
    /// that is not whole bytes, an `advance` by other bits); `None`: never. The closures check
    /// the boundary per packet; the machine code assumes it, so it takes no block of such a
    /// program.
    pub unaligned: Option<String>,
    /// Every placed header with its frame slots, in placement order.
    frame_headers: Vec<FrameHeader>,
    /// The members of each header union (by the union's first frame slot), placed as headers of
    /// their own: at most one of them is valid.
    unions: HashMap<usize, Vec<Region>>,
}

/// Most header instances a program may have (one validity bit each in [`crate::fast::exec::Validity`]).
pub(crate) const MAX_HEADERS: usize = 64 * crate::fast::exec::VALIDITY_WORDS;

impl Places {
    /// Words of [`crate::fast::exec::Validity`] the program's header instances use.
    pub(crate) fn validity_words(&self) -> usize {
        self.headers.len().div_ceil(64).max(1)
    }

    /// Lays out every header instance reachable from the variables of every parser and control.
    pub(crate) fn of(cx: &mut Compiler<'_>) -> R<Places> {
        let mut places = Places::default();
        let ir = cx.ir;
        for (i, p) in ir.parsers.iter().enumerate() {
            let b = BlockRef::Parser(p4_ir::ParserId(i as u32));
            for (v, var) in p.block.vars.iter().enumerate() {
                let slot = cx.var_slot(&b, p4_ir::VarId(v as u32))?;
                places.visit(cx, slot, &var.ty)?;
            }
        }
        for (i, ctl) in ir.controls.iter().enumerate() {
            let b = BlockRef::Control(p4_ir::ControlId(i as u32));
            for (v, var) in ctl.block.vars.iter().enumerate() {
                let slot = cx.var_slot(&b, p4_ir::VarId(v as u32))?;
                places.visit(cx, slot, &var.ty)?;
            }
        }
        Ok(places)
    }

    fn visit(&mut self, cx: &mut Compiler<'_>, slot: usize, ty: &Type) -> R<()> {
        if self.headers.contains_key(&slot) && cx.is_header(ty) {
            return Ok(()); // a shared parameter seen from another block
        }
        match cx.type_def(ty) {
            Some(TypeDef::Header { .. }) => self.header(cx, slot, ty),
            Some(TypeDef::Struct { fields, .. }) => {
                for i in 0..fields.len() {
                    let (off, fty) = cx.field_offset(ty, i as u32)?;
                    self.visit(cx, slot + off, &fty)?;
                }
                Ok(())
            }
            Some(TypeDef::Union { fields, .. }) => {
                if self.unions.contains_key(&slot) {
                    return Ok(()); // a shared parameter seen from another block
                }
                let mut members = Vec::with_capacity(fields.len());
                for i in 0..fields.len() {
                    let (off, fty) = cx.field_offset(ty, i as u32)?;
                    self.visit(cx, slot + off, &fty)?;
                    match self.headers.get(&(slot + off)) {
                        Some(r) => members.push(*r),
                        None => return self.refuse(cx, slot, ty, "a header union with a member it cannot place"),
                    }
                }
                self.unions.insert(slot, members);
                Ok(())
            }
            _ => match ty {
                // Elements of a header stack are header instances (or unions) of their own, one
                // after the other; `nextIndex` (the stack's first slot) stays in the frame.
                Type::Stack(elem, n) if cx.is_header(elem) || matches!(cx.type_def(elem), Some(TypeDef::Union { .. })) => {
                    let es = cx.size(elem)?;
                    for k in 0..*n as usize {
                        self.visit(cx, slot + 1 + k * es, elem)?;
                    }
                    Ok(())
                }
                Type::Stack(..) => self.refuse(cx, slot, ty, "a stack of neither headers nor header unions"),
                Type::Tuple(items) => {
                    for (i, item) in items.iter().enumerate() {
                        let (off, _) = cx.field_offset(ty, i as u32)?;
                        self.visit(cx, slot + off, item)?;
                    }
                    Ok(())
                }
                Type::Varbit(_) => self.refuse(cx, slot, ty, "a varbit"),
                _ => Ok(()),
            },
        }
    }

    fn refuse(&mut self, cx: &mut Compiler<'_>, slot: usize, ty: &Type, what: &str) -> R<()> {
        let len = cx.size(ty)?;
        if !self.refused.iter().any(|r| r.0 == slot) {
            self.refused.push((slot, slot + len, what.to_string()));
        }
        Ok(())
    }

    fn header(&mut self, cx: &mut Compiler<'_>, base: usize, ty: &Type) -> R<()> {
        let fields = cx.header_fields(ty)?;
        let mut bit = 0usize;
        let mut placed = Vec::new();
        let mut varbit = None;
        let last = fields.len().saturating_sub(1);
        for (i, (off, kind)) in fields.into_iter().enumerate() {
            let w = match kind {
                FieldKind::Bits(w) => w,
                // A trailing varbit after whole bytes: its bytes follow the fixed fields'.
                FieldKind::Varbit(max) if i == last && bit.is_multiple_of(8) => {
                    let max_len = (max as usize).div_ceil(8);
                    varbit = Some(Varbit { length_slot: base + off, max_len, max_bits: max as usize });
                    bit += max_len * 8;
                    continue;
                }
                FieldKind::Varbit(_) if i == last => return self.refuse(cx, base, ty, "a header whose varbit field does not start on a byte"),
                FieldKind::Varbit(_) => return self.refuse(cx, base, ty, "a header with a varbit field before its last field"),
            };
            // A place of at most 128 bits: read and written with one 16-byte access, or two
            // where one does not reach from the byte it starts in (`read_field`, `write_field`).
            placed.push((base + off, bit, w));
            bit += w as usize;
        }
        if !bit.is_multiple_of(8) && self.unaligned.is_none() {
            let name = cx.type_def(ty).map_or_else(String::new, |d| format!(" `{}`", d.name()));
            self.unaligned = Some(format!("header type{name} is not whole bytes"));
        }
        if self.headers.len() >= MAX_HEADERS {
            return self.refuse(cx, base, ty, &format!("more than {MAX_HEADERS} header instances"));
        }
        let region = Region { index: self.headers.len(), at: self.wire_len, len: bit.div_ceil(8), bits: bit - varbit.map_or(0, |v| v.max_len * 8), varbit };
        self.wire_len += region.len;
        let mut frame = FrameHeader { region, valid: base, fields: Vec::new() };
        for (slot, b, w) in placed {
            self.fields.insert(slot, (region.at * 8 + b, w));
            frame.fields.push((slot, region.at * 8 + b, w));
        }
        self.headers.insert(base, region);
        self.frame_headers.push(frame);
        Ok(())
    }

    /// The placed headers whose frame slots overlap one of `ranges` (`None`: every header).
    pub(crate) fn frame_headers(&self, ranges: Option<&[(usize, usize)]>) -> Vec<FrameHeader> {
        let touched = |h: &FrameHeader| {
            let (start, end) = h.slots();
            ranges.is_none_or(|rs| rs.iter().any(|&(a, b)| a < end && start < b))
        };
        self.frame_headers.iter().filter(|h| touched(h)).cloned().collect()
    }

    /// The frame slot ranges `[start, end)` below `frame_len` that hold no placed header (the
    /// slots this executor reads and writes in the frame), adjacent ranges merged.
    pub(crate) fn frame_ranges(&self, frame_len: usize) -> Vec<(usize, usize)> {
        let mut header = vec![false; frame_len];
        for slot in self.headers.keys().chain(self.fields.keys()) {
            if let Some(h) = header.get_mut(*slot) {
                *h = true;
            }
        }
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        for (slot, _) in header.iter().enumerate().filter(|(_, h)| !**h) {
            match ranges.last_mut() {
                Some((_, end)) if *end == slot => *end += 1,
                _ => ranges.push((slot, slot + 1)),
            }
        }
        ranges
    }

    /// The frame slot of a place written as variables, field accesses and header stack elements
    /// at constant indices within the stack (`None`: anything else).
    pub(crate) fn static_slot(cx: &mut Compiler<'_>, b: &BlockRef, e: &Expr) -> R<Option<usize>> {
        cx.static_slot(b, e)
    }

    /// `(bit offset in the wire buffer, width)` of each fixed-width field of header `r` in wire
    /// order (a field wider than 128 bits as its 128-bit pieces, most significant first).
    pub(crate) fn header_fields(&self, r: Region) -> Vec<(usize, u32)> {
        let h = self.frame_headers.iter().find(|h| h.region.index == r.index);
        h.map_or_else(Vec::new, |h| h.fields.iter().map(|&(_, bit, width)| (bit, width)).collect())
    }

    /// The pieces `(bit offset, width)` of the header field whose frame slots start at `slot`
    /// and take `len` slots (a field wider than 128 bits, or one a 16-byte access does not
    /// reach); `None`: no header field starts there.
    pub(crate) fn field_pieces(&self, slot: usize, len: usize) -> Option<Vec<(usize, u32)>> {
        let h = self.frame_headers.iter().find(|h| h.fields.iter().any(|f| f.0 == slot))?;
        let pieces: Vec<(usize, u32)> = h.fields.iter().filter(|f| (slot..slot + len).contains(&f.0)).map(|&(_, bit, width)| (bit, width)).collect();
        (pieces.len() == len).then_some(pieces)
    }

    /// The header whose trailing varbit's length is in frame slot `slot` (the varbit field's own
    /// slot), if any.
    pub(crate) fn varbit_header(&self, slot: usize) -> Option<Region> {
        self.headers.values().find(|r| r.varbit.is_some_and(|v| v.length_slot == slot)).copied()
    }

    /// The other members of the header union `r` is a member of (empty: not a union member).
    pub(crate) fn union_siblings(&self, r: Region) -> Vec<Region> {
        let members = self.unions.values().find(|m| m.iter().any(|x| x.index == r.index));
        members.map_or_else(Vec::new, |m| m.iter().filter(|x| x.index != r.index).copied().collect())
    }

    /// The members of the header union `e`, in order, or why this executor cannot place them.
    pub(crate) fn union(&self, cx: &mut Compiler<'_>, b: &BlockRef, e: &Expr) -> R<Vec<Region>> {
        let Some(slot) = Self::static_slot(cx, b, e)? else {
            return unsupported(format!("{} as a place", crate::fast::compile::describe(cx.ir, e)));
        };
        if let Some((_, _, what)) = self.refused.iter().find(|(s, end, _)| (*s..*end).contains(&slot)) {
            return unsupported(format!("{what} (the wire-format executor does not place it)"));
        }
        match self.unions.get(&slot) {
            Some(members) => Ok(members.clone()),
            None => unsupported("a header union that is not a declared instance"),
        }
    }

    /// A header stack's elements in index order and the frame slot of its `nextIndex`, or why
    /// this executor cannot place them.
    pub(crate) fn stack(&self, cx: &mut Compiler<'_>, b: &BlockRef, e: &Expr) -> R<(Vec<Region>, usize)> {
        let Type::Stack(elem, n) = &e.ty else { return unsupported(format!("{} is not a header stack", crate::fast::compile::describe(cx.ir, e))) };
        if !cx.is_header(elem) {
            return unsupported(format!("{} as a whole (a stack of header unions)", crate::fast::compile::describe(cx.ir, e)));
        }
        let Some(base) = Self::static_slot(cx, b, e)? else {
            return unsupported(format!("{} as a place", crate::fast::compile::describe(cx.ir, e)));
        };
        let es = cx.size(elem)?;
        let mut elements = Vec::with_capacity(*n as usize);
        for k in 0..*n as usize {
            let slot = base + 1 + k * es;
            if let Some((_, _, what)) = self.refused.iter().find(|(s, end, _)| (*s..*end).contains(&slot)) {
                return unsupported(format!("{what} (the wire-format executor does not place it)"));
            }
            match self.headers.get(&slot) {
                Some(r) => elements.push(*r),
                None => return unsupported("a header stack that is not a declared instance"),
            }
        }
        Ok((elements, base))
    }

    /// Where `e`, a value wider than 128 bits, is, or why this executor cannot place it.
    pub(crate) fn wide(&self, cx: &mut Compiler<'_>, b: &BlockRef, e: &Expr) -> R<WidePlace> {
        let Some(slot) = Self::static_slot(cx, b, e)? else {
            return unsupported(format!("{} as a place", crate::fast::compile::describe(cx.ir, e)));
        };
        if let Some((_, _, what)) = self.refused.iter().find(|(s, end, _)| (*s..*end).contains(&slot)) {
            return unsupported(format!("{what} (the wire-format executor does not place it)"));
        }
        let width = cx.width(&e.ty).0;
        // A header field wider than 128 bits is placed as its 128-bit pieces, one after the
        // other in the wire buffer: the first piece's place is where the field starts.
        Ok(match self.fields.get(&slot) {
            Some(&(bit, _)) => WidePlace::Wire { bit, width },
            None => WidePlace::Slots { base: slot, width },
        })
    }

    /// Where `e` is, or why this executor cannot place it.
    pub(crate) fn place(&self, cx: &mut Compiler<'_>, b: &BlockRef, e: &Expr) -> R<Place> {
        let Some(slot) = Self::static_slot(cx, b, e)? else {
            return unsupported(format!("{} as a place", crate::fast::compile::describe(cx.ir, e)));
        };
        if let Some((_, _, what)) = self.refused.iter().find(|(s, end, _)| (*s..*end).contains(&slot)) {
            return unsupported(format!("{what} (the wire-format executor does not place it)"));
        }
        if cx.is_header(&e.ty) {
            return match self.headers.get(&slot) {
                Some(r) => Ok(Place::Header(*r)),
                None => unsupported("a header that is not a declared instance"),
            };
        }
        if let Some(&(bit, width)) = self.fields.get(&slot) {
            return Ok(Place::Field { bit, width });
        }
        if cx.is_scalar(&e.ty) {
            return Ok(Place::Slot(slot));
        }
        unsupported(format!("{} (an aggregate) as a place", crate::fast::compile::describe(cx.ir, e)))
    }
}

/// Copies `headers` from the wire buffer into their frame slots (a traced switch, to show the
/// packet field by field).
pub(super) fn to_frame(headers: &[FrameHeader], c: &mut crate::fast::exec::Ctx) {
    for h in headers {
        c.set(h.valid, u128::from(c.wire_valid.has(h.region.index)));
        for &(slot, bit, width) in &h.fields {
            let v = super::read_field(&c.wire, bit, width);
            c.set(slot, v);
        }
        if let Some(v) = h.region.varbit {
            // Its length is in the frame already; its bits go in 128-bit pieces after it.
            let at = (h.region.at + h.region.fixed_len()) * 8;
            for (k, (bit, width)) in varbit_pieces(c.get(v.length_slot) as usize, v.max_len).enumerate() {
                let piece = super::read_field(&c.wire, at + bit, width);
                c.set(v.length_slot + 1 + k, piece);
            }
        }
    }
}

/// The pieces a frame keeps a varbit of `length` bits in (at most `max_len` bytes):
/// `(bit offset, width)` of each, 128 bits but the last.
fn varbit_pieces(length: usize, max_len: usize) -> impl Iterator<Item = (usize, u32)> {
    let length = length.min(max_len * 8);
    (0..length).step_by(128).map(move |bit| (bit, (length - bit).min(128) as u32))
}

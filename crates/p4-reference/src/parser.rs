//! Parsers: states, `select`, and the packet reads (`extract`, `lookahead`, `advance`).

use num_bigint::BigUint;
use p4_ir::{BlockRef, Expr, ExprKind, Keyset, Parser, StateTarget, Transition, Type, TypeDef};

use crate::place::Place;
use crate::value::{self, Value};
use crate::{Flow, Interpreter, Run, MAX_PARSER_STEPS};

/// How one header field sits on the wire.
enum WireField {
    Bits { width: u32, signed: bool },
    Bool,
    Varbit(u32),
}

impl Interpreter {
    /// Runs a parser's initialisation and states from `start`: `Ok` on `accept`, `Err(Reject(code))`
    /// on `reject` or a parser error.
    pub(crate) fn run_parser_states(&mut self, parser: &Parser) -> Run<()> {
        let b = self.parser_ref(parser);
        self.exec_all(&b, &parser.init)?;
        let mut state = 0usize;
        for _ in 0..MAX_PARSER_STEPS {
            let Some(st) = parser.states.get(state) else { return Ok(()) };
            self.exec_all(&b, &st.body)?;
            let target = match &st.transition {
                Transition::Goto(t) => *t,
                Transition::Select { keys, cases } => {
                    let mut values = Vec::new();
                    for k in keys {
                        values.push(self.eval(&b, k)?);
                    }
                    let mut found = None;
                    for case in cases {
                        if self.case_matches(&b, &case.keysets, &values, keys)? {
                            found = Some(case.target);
                            break;
                        }
                    }
                    match found {
                        Some(t) => t,
                        None => return Err(Flow::Reject(self.error_code("NoMatch"))),
                    }
                }
            };
            match target {
                StateTarget::Accept => return Ok(()),
                // An explicit `reject` leaves error code 0 (no error), as the switch does.
                StateTarget::Reject => return Err(Flow::Reject(0)),
                StateTarget::State(s) => state = s.index(),
            }
        }
        Err(Flow::Reject(self.error_code("ParserTimeout")))
    }

    fn parser_ref(&self, parser: &Parser) -> BlockRef {
        let i = self.program.parsers.iter().position(|p| std::ptr::eq(p, parser)).unwrap_or(0);
        BlockRef::Parser(p4_ir::ParserId(i as u32))
    }

    /// Whether one select case matches the key values.
    fn case_matches(&mut self, b: &BlockRef, keysets: &[Keyset], values: &[Value], keys: &[Expr]) -> Run<bool> {
        // One value set for several keys matches their concatenation.
        if let ([Keyset::ValueSet(vs)], true) = (keysets, values.len() > 1) {
            let mut all = BigUint::default();
            for (v, k) in values.iter().zip(keys) {
                let w = p4_ir::layout::scalar_width(&self.program, &k.ty);
                all = (all << w) | crate::expr::to_bits(v, w);
            }
            return Ok(self.in_value_set(vs.index(), &all));
        }
        for ((ks, v), k) in keysets.iter().zip(values).zip(keys) {
            let w = p4_ir::layout::scalar_width(&self.program, &k.ty);
            let key = crate::expr::to_bits(v, w);
            let ok = match ks {
                Keyset::Any => true,
                Keyset::Value(e) => crate::expr::equal(&self.eval(b, e)?, v),
                Keyset::Mask(x, m) => {
                    let (x, m) =
                        (crate::expr::to_bits(&self.eval(b, x)?, w), crate::expr::to_bits(&self.eval(b, m)?, w));
                    key & &m == x & m
                }
                Keyset::Range(lo, hi) => {
                    let (lo, hi) =
                        (crate::expr::to_bits(&self.eval(b, lo)?, w), crate::expr::to_bits(&self.eval(b, hi)?, w));
                    lo <= key && key <= hi
                }
                Keyset::ValueSet(vs) => self.in_value_set(vs.index(), &key),
                Keyset::Lpm(x, len) => {
                    let m = value::mask(w) ^ value::mask(w.saturating_sub(*len));
                    let x = crate::expr::to_bits(&self.eval(b, x)?, w);
                    key & &m == x & m
                }
            };
            if !ok {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn in_value_set(&self, vs: usize, key: &BigUint) -> bool {
        // Members are held in 128 bits; so are the keys they are compared with.
        let key = key & value::mask(128);
        self.control.value_set_members(vs).iter().any(|(v, m)| key.clone() & BigUint::from(*m) == BigUint::from(*v))
    }

    /// The wire layout of header type `ty`.
    fn wire_fields(&self, ty: &Type) -> Vec<WireField> {
        let Type::Named(id) = ty else { return Vec::new() };
        self.program
            .type_def(*id)
            .fields()
            .iter()
            .map(|f| match value::underlying(&self.program, &f.ty) {
                Some(Type::Bool) => WireField::Bool,
                Some(Type::Bits { width, signed }) => WireField::Bits { width, signed },
                _ => match f.ty {
                    Type::Varbit(max) => WireField::Varbit(max),
                    _ => WireField::Bits { width: 0, signed: false },
                },
            })
            .collect()
    }

    /// `bits` bits of the packet from bit `at`, most significant first.
    fn packet_bits(&self, at: usize, bits: u32) -> BigUint {
        let mut v = BigUint::default();
        for i in 0..bits as usize {
            let pos = at + i;
            let bit = self.state.data.get(pos / 8).map_or(0, |byte| (byte >> (7 - pos % 8)) & 1);
            v = (v << 1u32) | BigUint::from(bit);
        }
        v
    }

    /// Reads a header of type `ty` from bit `at` (`varbit_len`: the varbit field's length).
    fn read_header(&self, ty: &Type, at: usize, varbit_len: u32) -> (Value, usize) {
        let mut pos = at;
        let mut fields = Vec::new();
        for f in self.wire_fields(ty) {
            let v = match f {
                WireField::Bits { width, signed } => {
                    let v = Value::Bits { width, signed, v: self.packet_bits(pos, width) };
                    pos += width as usize;
                    v
                }
                WireField::Bool => {
                    let v = Value::Bool(self.packet_bits(pos, 1) == BigUint::from(1u8));
                    pos += 1;
                    v
                }
                WireField::Varbit(max) => {
                    let v = Value::Varbit { max, len: varbit_len, v: self.packet_bits(pos, varbit_len) };
                    pos += varbit_len as usize;
                    v
                }
            };
            fields.push(v);
        }
        (Value::Header { valid: true, fields }, pos)
    }

    /// `pkt.extract(target)` / `pkt.extract(target, varbit_size)`.
    pub(crate) fn extract(&mut self, b: &BlockRef, target: &Expr, size: Option<&Expr>) -> Run<()> {
        let fields = self.wire_fields(&target.ty);
        let fixed: usize = fields
            .iter()
            .map(|f| match f {
                WireField::Bits { width, .. } => *width as usize,
                WireField::Bool => 1,
                WireField::Varbit(_) => 0,
            })
            .sum();
        let var_max: u32 = fields.iter().map(|f| if let WireField::Varbit(m) = f { *m } else { 0 }).sum();
        let too_short = Flow::Reject(self.error_code("PacketTooShort"));
        let available = self.state.data.len() * 8;
        if matches!(target.kind, ExprKind::DontCare) {
            if self.state.cursor + fixed > available {
                return Err(too_short);
            }
            self.state.cursor += fixed;
            return Ok(());
        }
        let place: Option<Place> = self.place(b, target)?;
        let Some(place) = place.filter(|p| !p.out_of_range()) else {
            return Err(Flow::Reject(self.error_code("StackOutOfBounds")));
        };
        let vlen = match size {
            Some(e) => self.eval(b, e)?.to_u128(),
            None => 0,
        };
        // The size must be whole bytes (checked before the maximum, as BMv2 does).
        if vlen % 8 != 0 {
            return Err(Flow::Reject(self.error_code("ParserInvalidArgument")));
        }
        if vlen > u128::from(var_max) {
            return Err(Flow::Reject(self.error_code("HeaderTooShort")));
        }
        if self.state.cursor + fixed + vlen as usize > available {
            return Err(too_short);
        }
        let (header, end) = self.read_header(&target.ty, self.state.cursor, vlen as u32);
        self.state.cursor = end;
        self.write_place(&place, header);
        self.union_fixup(b, target)?;
        // Extracting into `stack.next` (or a member of it, for a stack of unions) advances
        // `nextIndex`.
        let mut inner = target;
        while let ExprKind::Field(base, _) = &inner.kind {
            inner = base;
        }
        if let ExprKind::StackNext(stack) = &inner.kind {
            if let Some(sp) = self.place(b, stack)? {
                if let Some(Value::Stack { next, .. }) = crate::place::at_mut(self.var_mut(&sp.block, sp.var), &sp.path)
                {
                    *next += 1;
                }
            }
        }
        Ok(())
    }

    /// `pkt.lookahead<T>()`: T's bits at the cursor, without moving it.
    pub(crate) fn lookahead(&mut self, ty: &Type) -> Run<Value> {
        let width = p4_ir::layout::wire_width(&self.program, ty) as usize;
        if self.state.cursor + width > self.state.data.len() * 8 {
            return Err(Flow::Reject(self.error_code("PacketTooShort")));
        }
        let at = self.state.cursor;
        Ok(match ty {
            Type::Named(id) if matches!(self.program.type_def(*id), TypeDef::Header { .. }) => {
                self.read_header(ty, at, 0).0
            }
            Type::Bool => Value::Bool(self.packet_bits(at, 1) == BigUint::from(1u8)),
            Type::Bits { width, signed } => {
                Value::Bits { width: *width, signed: *signed, v: self.packet_bits(at, *width) }
            }
            _ => {
                // A struct or tuple: its fields' bits in order.
                let mut pos = at;
                let mut items = Vec::new();
                for t in value::field_types(&self.program, ty) {
                    let w = p4_ir::layout::wire_width(&self.program, &t);
                    let bits = Value::Bits { width: w, signed: false, v: self.packet_bits(pos, w) };
                    items.push(value::convert(&self.program, bits, &t));
                    pos += w as usize;
                }
                value::convert(&self.program, Value::Struct(items), ty)
            }
        })
    }

    /// `pkt.advance(bits)`.
    pub(crate) fn advance(&mut self, bits: u128) -> Run<()> {
        let end = (self.state.cursor as u128).saturating_add(bits);
        if end > (self.state.data.len() * 8) as u128 {
            return Err(Flow::Reject(self.error_code("PacketTooShort")));
        }
        self.state.cursor = end as usize;
        Ok(())
    }

    /// `pkt.emit(v)`: valid headers (of stacks, structs and unions, in order) go out.
    pub(crate) fn emit_value(&mut self, v: &Value) {
        match v {
            Value::Header { valid: false, .. } => {}
            Value::Header { valid: true, fields } => {
                for f in fields {
                    self.emit_bits(f);
                }
            }
            Value::Struct(items) | Value::Union(items) | Value::Stack { elems: items, .. } => {
                for item in items {
                    self.emit_value(item);
                }
            }
            // Only headers go on the wire.
            _ => {}
        }
    }

    fn emit_bits(&mut self, v: &Value) {
        let (bits, width) = match v {
            Value::Varbit { len, v, .. } => (v.clone(), *len),
            other => (other.to_biguint(), other.width()),
        };
        for i in (0..width).rev() {
            self.emitted.push(bits.bit(u64::from(i)));
        }
    }
}

//! P4 data types as P4Runtime describes them: the `P4DataTypeSpec` of an IR type (the named types
//! it uses go into the p4info's `type_info`, as the reference compiler writes them), and a value of
//! such a type as `P4Data`, read from the bits a dataplane sent back to back (a digest's data,
//! [`p4_control::Digest`]).

use p4_ir::{Program, Type, TypeDef};

use crate::proto::p4::config::v1 as p4info;
use crate::proto::p4::v1 as p4v1;

use p4info::p4_bitstring_like_type_spec::TypeSpec as Bitstring;
use p4info::p4_data_type_spec::TypeSpec as Data;

/// The type spec of `ty`; the structs, headers, enums and errors it names are added to `info`.
pub fn spec(program: &Program, ty: &Type, info: &mut p4info::P4TypeInfo) -> p4info::P4DataTypeSpec {
    let data = match ty {
        Type::Bool => Data::Bool(p4info::P4BoolType {}),
        Type::Bits { .. } | Type::Varbit(_) => Data::Bitstring(bitstring_like(ty)),
        Type::Error => {
            info.error = Some(p4info::P4ErrorTypeSpec { members: program.errors.clone() });
            Data::Error(p4info::P4ErrorType {})
        }
        Type::Named(id) => match program.types.get(id.index()) {
            Some(TypeDef::Struct { name, fields }) => {
                if !info.structs.contains_key(name) {
                    // Inserted first, so a type naming itself through a member cannot recurse.
                    info.structs.insert(name.clone(), p4info::P4StructTypeSpec::default());
                    let members = fields
                        .iter()
                        .map(|f| p4info::p4_struct_type_spec::Member { name: f.name.clone(), type_spec: Some(spec(program, &f.ty, info)) })
                        .collect();
                    info.structs.insert(name.clone(), p4info::P4StructTypeSpec { members, ..Default::default() });
                }
                Data::Struct(named(name))
            }
            Some(TypeDef::Header { name, fields, .. }) => {
                let members = fields
                    .iter()
                    .map(|f| p4info::p4_header_type_spec::Member { name: f.name.clone(), type_spec: Some(bitstring_like(&f.ty)) })
                    .collect();
                info.headers.insert(name.clone(), p4info::P4HeaderTypeSpec { members, ..Default::default() });
                Data::Header(named(name))
            }
            Some(TypeDef::Enum { name, underlying: Some(u), members }) => {
                let width = p4_ir::layout::scalar_width(program, u);
                let members = members
                    .iter()
                    .map(|(member, value)| p4info::p4_serializable_enum_type_spec::Member {
                        name: member.clone(),
                        value: value.as_ref().map_or_else(|| vec![0], |v| big_canonical(v, width)),
                        ..Default::default()
                    })
                    .collect();
                let underlying = Some(p4info::P4BitTypeSpec { bitwidth: width as i32 });
                info.serializable_enums.insert(name.clone(), p4info::P4SerializableEnumTypeSpec { underlying_type: underlying, members, ..Default::default() });
                Data::SerializableEnum(named(name))
            }
            Some(TypeDef::Enum { name, underlying: None, members }) => {
                let members = members.iter().map(|(m, _)| p4info::p4_enum_type_spec::Member { name: m.clone(), ..Default::default() }).collect();
                info.enums.insert(name.clone(), p4info::P4EnumTypeSpec { members, ..Default::default() });
                Data::Enum(named(name))
            }
            _ => Data::Bitstring(bit(p4_ir::layout::scalar_width(program, ty))),
        },
        Type::Tuple(items) => Data::Tuple(p4info::P4TupleTypeSpec { members: items.iter().map(|t| spec(program, t, info)).collect() }),
        _ => Data::Bitstring(bit(p4_ir::layout::scalar_width(program, ty))),
    };
    p4info::P4DataTypeSpec { type_spec: Some(data) }
}

fn named(name: &str) -> p4info::P4NamedType {
    p4info::P4NamedType { name: name.to_string() }
}

fn bit(width: u32) -> p4info::P4BitstringLikeTypeSpec {
    p4info::P4BitstringLikeTypeSpec { type_spec: Some(Bitstring::Bit(p4info::P4BitTypeSpec { bitwidth: width as i32 })), ..Default::default() }
}

/// A header field's type: `bit<W>`, `int<W>` or `varbit<W>` (a `bool` or an enum counts as its
/// width in bits).
fn bitstring_like(ty: &Type) -> p4info::P4BitstringLikeTypeSpec {
    let spec = match ty {
        Type::Bits { width, signed: true } => Bitstring::Int(p4info::P4IntTypeSpec { bitwidth: *width as i32 }),
        Type::Bits { width, .. } => Bitstring::Bit(p4info::P4BitTypeSpec { bitwidth: *width as i32 }),
        Type::Varbit(max) => Bitstring::Varbit(p4info::P4VarbitTypeSpec { max_bitwidth: *max as i32 }),
        _ => Bitstring::Bit(p4info::P4BitTypeSpec { bitwidth: 1 }),
    };
    p4info::P4BitstringLikeTypeSpec { type_spec: Some(spec), ..Default::default() }
}

/// A compile-time value as a canonical byte string of a `width`-bit field (two's complement for
/// negative values).
fn big_canonical(v: &num_bigint::BigInt, width: u32) -> Vec<u8> {
    let modulus = num_bigint::BigInt::from(1u8) << width;
    let v = ((v % &modulus) + &modulus) % &modulus;
    let (_, bytes) = v.to_bytes_be();
    let first = bytes.iter().position(|b| *b != 0).unwrap_or(bytes.len().saturating_sub(1));
    if bytes.is_empty() {
        vec![0]
    } else {
        bytes[first..].to_vec()
    }
}

/// Reads values of P4 types from bits sent back to back, most significant bit first.
pub struct Reader<'a> {
    data: &'a [u8],
    bits: usize,
    at: usize,
    varbit_lengths: std::slice::Iter<'a, u32>,
}

impl<'a> Reader<'a> {
    /// A reader of the first `bits` bits of `data`, where the varbit values have the lengths given
    /// in order.
    pub fn new(data: &'a [u8], bits: usize, varbit_lengths: &'a [u32]) -> Reader<'a> {
        Reader { data, bits: bits.min(data.len() * 8), at: 0, varbit_lengths: varbit_lengths.iter() }
    }

    /// Whether every bit was read.
    pub fn is_done(&self) -> bool {
        self.at == self.bits
    }

    /// The next `width` bits as a canonical byte string.
    fn take(&mut self, width: u32) -> Result<Vec<u8>, String> {
        let width = width as usize;
        if self.at + width > self.bits {
            return Err(format!("the data has {} bits, fewer than its type", self.bits));
        }
        let mut out = vec![0u8; width.div_ceil(8)];
        // Right-aligned: the value's last bit is the last byte's lowest.
        let pad = out.len() * 8 - width;
        for i in 0..width {
            let from = self.at + i;
            if self.data[from / 8] >> (7 - from % 8) & 1 == 1 {
                let to = pad + i;
                out[to / 8] |= 1 << (7 - to % 8);
            }
        }
        self.at += width;
        let first = out.iter().position(|b| *b != 0).unwrap_or(out.len().saturating_sub(1));
        Ok(if out.is_empty() { vec![0] } else { out[first..].to_vec() })
    }

    fn take_bitstring(&mut self, spec: Option<&p4info::P4BitstringLikeTypeSpec>) -> Result<p4v1::p4_data::Data, String> {
        use p4v1::p4_data::Data as D;
        Ok(match spec.and_then(|s| s.type_spec.as_ref()) {
            Some(Bitstring::Bit(b)) => D::Bitstring(self.take(b.bitwidth as u32)?),
            Some(Bitstring::Int(b)) => D::Bitstring(self.take(b.bitwidth as u32)?),
            Some(Bitstring::Varbit(_)) => {
                let len = *self.varbit_lengths.next().ok_or("a varbit without its length")?;
                D::Varbit(p4v1::P4Varbit { bitstring: self.take(len)?, bitwidth: len as i32 })
            }
            None => return Err("a bitstring of no width".to_string()),
        })
    }

    /// The next value, of type `spec` (whose named types `info` describes).
    pub fn read(&mut self, info: &p4info::P4TypeInfo, spec: &p4info::P4DataTypeSpec) -> Result<p4v1::P4Data, String> {
        use p4v1::p4_data::Data as D;
        let data = match spec.type_spec.as_ref() {
            Some(Data::Bitstring(b)) => self.take_bitstring(Some(b))?,
            Some(Data::Bool(_)) => D::Bool(self.take(1)? == [1]),
            Some(Data::Struct(n)) => {
                let s = info.structs.get(&n.name).ok_or_else(|| format!("no struct {} in type_info", n.name))?;
                let mut members = Vec::with_capacity(s.members.len());
                for m in &s.members {
                    members.push(self.read(info, m.type_spec.as_ref().ok_or("a struct member without a type")?)?);
                }
                D::Struct(p4v1::P4StructLike { members })
            }
            Some(Data::Tuple(t)) => {
                let mut members = Vec::with_capacity(t.members.len());
                for m in &t.members {
                    members.push(self.read(info, m)?);
                }
                D::Tuple(p4v1::P4StructLike { members })
            }
            Some(Data::Header(n)) => {
                let h = info.headers.get(&n.name).ok_or_else(|| format!("no header {} in type_info", n.name))?;
                let mut bitstrings = Vec::with_capacity(h.members.len());
                for m in &h.members {
                    match self.take_bitstring(m.type_spec.as_ref())? {
                        D::Varbit(v) => bitstrings.push(v.bitstring),
                        D::Bitstring(b) => bitstrings.push(b),
                        _ => {}
                    }
                }
                // The dataplane sends a header's fields, not its validity.
                D::Header(p4v1::P4Header { is_valid: true, bitstrings })
            }
            Some(Data::SerializableEnum(n)) => {
                let e = info.serializable_enums.get(&n.name).ok_or_else(|| format!("no enum {} in type_info", n.name))?;
                D::EnumValue(self.take(e.underlying_type.as_ref().map_or(32, |u| u.bitwidth as u32))?)
            }
            Some(Data::Enum(n)) => {
                let e = info.enums.get(&n.name).ok_or_else(|| format!("no enum {} in type_info", n.name))?;
                let code = code(&self.take(32)?);
                D::Enum(e.members.get(code).map_or_else(|| code.to_string(), |m| m.name.clone()))
            }
            Some(Data::Error(_)) => {
                let code = code(&self.take(32)?);
                let members = info.error.as_ref().map_or(&[][..], |e| &e.members[..]);
                D::Error(members.get(code).cloned().unwrap_or_else(|| code.to_string()))
            }
            _ => return Err("a type P4Runtime data of digests does not carry".to_string()),
        };
        Ok(p4v1::P4Data { data: Some(data) })
    }
}

/// A canonical byte string of at most 4 bytes as an index.
fn code(bytes: &[u8]) -> usize {
    bytes.iter().fold(0usize, |v, b| v << 8 | usize::from(*b))
}

/// A scalar as the reader expects it: `value`'s low `width` bits, big-endian, padded at the end.
#[cfg(test)]
fn sent(values: &[(u128, u32)]) -> (Vec<u8>, usize) {
    let bits: Vec<bool> = values.iter().flat_map(|(v, w)| (0..*w).rev().map(move |i| v >> i & 1 == 1)).collect();
    let mut data = vec![0u8; bits.len().div_ceil(8)];
    for (i, b) in bits.iter().enumerate() {
        if *b {
            data[i / 8] |= 1 << (7 - i % 8);
        }
    }
    (data, bits.len())
}

/// A key's or an action parameter's new type, which sema notes as `@p4runtime_type("Name")` with
/// the type's own `@p4runtime_translation(uri, width | string)`: the `type_name` p4info gives it
/// (the type listed in `info.new_types`, translated or as its underlying type `ty`) and the bit
/// width the control plane uses (the translation's; 0 for a string; else `width`).
pub fn new_type(program: &Program, annotations: &[p4_ir::Annotation], ty: &Type, width: u32, info: &mut p4info::P4TypeInfo) -> (Option<p4info::P4NamedType>, i32) {
    use p4info::p4_new_type_spec::Representation;
    use p4info::p4_new_type_translation::{SdnString, SdnType};
    let find = |name: &str| annotations.iter().find(|a| a.name == name);
    let Some(p4_ir::Value::String(name)) = find("p4runtime_type").and_then(|a| a.args.first()) else { return (None, width as i32) };
    let (representation, bitwidth) = match find("p4runtime_translation").map(|a| &a.args[..]) {
        Some([p4_ir::Value::String(uri), rest @ ..]) => {
            let sdn = match rest.first() {
                Some(p4_ir::Value::Bits { value, .. } | p4_ir::Value::InfInt(value)) => i32::try_from(value).ok().map(SdnType::SdnBitwidth),
                Some(p4_ir::Value::String(s)) if s.trim() == "string" => Some(SdnType::SdnString(SdnString {})),
                _ => None,
            };
            let bitwidth = match sdn {
                Some(SdnType::SdnBitwidth(w)) => w,
                Some(SdnType::SdnString(_)) => 0,
                None => width as i32,
            };
            (Representation::TranslatedType(p4info::P4NewTypeTranslation { uri: uri.clone(), sdn_type: sdn }), bitwidth)
        }
        _ => (Representation::OriginalType(spec(program, ty, info)), width as i32),
    };
    info.new_types.entry(name.clone()).or_insert(p4info::P4NewTypeSpec { representation: Some(representation), ..Default::default() });
    (Some(p4info::P4NamedType { name: name.clone() }), bitwidth)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn struct_info() -> (p4info::P4TypeInfo, p4info::P4DataTypeSpec) {
        let mut info = p4info::P4TypeInfo::default();
        let member = |name: &str, t: Data| p4info::p4_struct_type_spec::Member { name: name.into(), type_spec: Some(p4info::P4DataTypeSpec { type_spec: Some(t) }) };
        info.structs.insert(
            "learn_t".into(),
            p4info::P4StructTypeSpec {
                members: vec![member("mac", Data::Bitstring(bit(48))), member("port", Data::Bitstring(bit(9))), member("flag", Data::Bool(p4info::P4BoolType {}))],
                ..Default::default()
            },
        );
        (info, p4info::P4DataTypeSpec { type_spec: Some(Data::Struct(named("learn_t"))) })
    }

    #[test]
    fn a_struct_of_bit_fields_reads_back_member_by_member_in_canonical_form() {
        let (info, spec) = struct_info();
        let (data, bits) = sent(&[(0x0000_0a0b_0c0d, 48), (0x101, 9), (1, 1)]);
        let mut r = Reader::new(&data, bits, &[]);
        let value = r.read(&info, &spec).unwrap();
        assert!(r.is_done());
        use p4v1::p4_data::Data as D;
        let Some(D::Struct(s)) = value.data else { panic!("not a struct: {value:?}") };
        let got: Vec<_> = s.members.into_iter().map(|m| m.data.unwrap()).collect();
        assert_eq!(got, vec![D::Bitstring(vec![0x0a, 0x0b, 0x0c, 0x0d]), D::Bitstring(vec![0x01, 0x01]), D::Bool(true)]);
    }

    #[test]
    fn data_shorter_than_its_type_is_an_error() {
        let (info, spec) = struct_info();
        let (data, bits) = sent(&[(1, 48)]);
        assert_eq!(Reader::new(&data, bits, &[]).read(&info, &spec).unwrap_err(), "the data has 48 bits, fewer than its type");
    }

    #[test]
    fn a_zero_value_is_one_zero_byte_and_negative_enum_values_wrap() {
        let (data, bits) = sent(&[(0, 12)]);
        assert_eq!(Reader::new(&data, bits, &[]).take(12).unwrap(), vec![0]);
        assert_eq!(big_canonical(&num_bigint::BigInt::from(-1), 12), vec![0x0f, 0xff]);
    }
}

//! Run-time values of any width, and how they are made from types and constants.
//!
//! Scalars that only compare for equality (`error`, plain enums, match kinds) are held as
//! `bit<32>` codes, and a serializable enum as its underlying `bit<W>`/`int<W>`: the same numbers
//! the control plane gives table keys and action data of those types
//! ([`p4_ir::layout::scalar_value`]), so keys, `switch` labels and casts need no special case.

use num_bigint::{BigInt, BigUint, Sign};
use num_traits::{One, ToPrimitive, Zero};
use p4_ir::{Program, Type, TypeDef};

/// One value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Bool(bool),
    /// `bit<W>` or `int<W>`: `v` is the two's complement bit pattern, always below `2^width`.
    Bits {
        width: u32,
        signed: bool,
        v: BigUint,
    },
    /// A compile-time `int`.
    Int(BigInt),
    /// `varbit<max>` holding `len` bits.
    Varbit {
        max: u32,
        len: u32,
        v: BigUint,
    },
    Str(String),
    /// A header: fields in wire order. Fields keep what was written even while invalid.
    Header {
        valid: bool,
        fields: Vec<Value>,
    },
    /// A struct or a tuple.
    Struct(Vec<Value>),
    /// A header union: one header per member.
    Union(Vec<Value>),
    /// A header stack (or array): elements and `nextIndex`.
    Stack {
        elems: Vec<Value>,
        next: u32,
    },
    /// Something without a value the program can look at (extern objects, `packet_in`).
    Opaque,
}

/// `2^width - 1`.
pub fn mask(width: u32) -> BigUint {
    (BigUint::one() << width) - BigUint::one()
}

/// The low `width` bits of a signed number (two's complement).
pub fn wrap(x: &BigInt, width: u32) -> BigUint {
    match x.sign() {
        Sign::Minus => {
            let modulus = BigInt::one() << width;
            let r = ((x % &modulus) + &modulus) % &modulus;
            r.to_biguint().unwrap_or_default()
        }
        _ => truncate(x.magnitude().clone(), width),
    }
}

/// The low `width` bits of `v`.
pub fn truncate(v: BigUint, width: u32) -> BigUint {
    if v.bits() <= u64::from(width) {
        v
    } else {
        v & mask(width)
    }
}

impl Value {
    /// `bit<width>` / `int<width>` holding the low `width` bits of `v`.
    pub fn bits(width: u32, signed: bool, v: BigUint) -> Value {
        Value::Bits { width, signed, v: truncate(v, width) }
    }

    pub fn bit(width: u32, v: u128) -> Value {
        Value::bits(width, false, BigUint::from(v))
    }

    /// The number a scalar stands for: signed types as signed, `bool` as 0/1.
    pub fn to_bigint(&self) -> BigInt {
        match self {
            Value::Bool(b) => BigInt::from(u8::from(*b)),
            Value::Bits { width, signed: true, v } if *width > 0 && v.bit(u64::from(*width - 1)) => {
                BigInt::from(v.clone()) - (BigInt::one() << *width)
            }
            Value::Bits { v, .. } | Value::Varbit { v, .. } => BigInt::from(v.clone()),
            Value::Int(i) => i.clone(),
            _ => BigInt::zero(),
        }
    }

    /// The bit pattern of a scalar (signed `int` constants as their low 128 bits).
    pub fn to_biguint(&self) -> BigUint {
        match self {
            Value::Bool(b) => BigUint::from(u8::from(*b)),
            Value::Bits { v, .. } | Value::Varbit { v, .. } => v.clone(),
            Value::Int(i) => match i.sign() {
                Sign::Minus => wrap(i, 128),
                _ => i.to_biguint().unwrap_or_default(),
            },
            _ => BigUint::zero(),
        }
    }

    /// The low 128 bits of a scalar: what table keys, indexes and select keys use.
    pub fn to_u128(&self) -> u128 {
        (self.to_biguint() & mask(128)).to_u128().unwrap_or(0)
    }

    /// A scalar's width (`int` counts 128, as layouts count it).
    pub fn width(&self) -> u32 {
        match self {
            Value::Bool(_) => 1,
            Value::Bits { width, .. } => *width,
            Value::Varbit { len, .. } => *len,
            _ => 128,
        }
    }

    pub fn is_true(&self) -> bool {
        match self {
            Value::Bool(b) => *b,
            other => !other.to_biguint().is_zero(),
        }
    }

    /// Whether a header (or a union, through any member) is valid.
    pub fn is_valid(&self) -> bool {
        match self {
            Value::Header { valid, .. } => *valid,
            Value::Union(members) => members.iter().any(Value::is_valid),
            _ => false,
        }
    }
}

/// The value a variable of type `ty` starts with: zeros, `false`, invalid headers, empty stacks.
pub fn default_of(p: &Program, ty: &Type) -> Value {
    match ty {
        Type::Bool => Value::Bool(false),
        Type::Bits { width, signed } => Value::Bits { width: *width, signed: *signed, v: BigUint::zero() },
        Type::Varbit(max) => Value::Varbit { max: *max, len: 0, v: BigUint::zero() },
        Type::InfInt => Value::Int(BigInt::zero()),
        Type::String => Value::Str(String::new()),
        Type::Error | Type::MatchKind => Value::bit(32, 0),
        Type::Void => Value::Opaque,
        Type::Stack(elem, n) => Value::Stack { elems: (0..*n).map(|_| default_of(p, elem)).collect(), next: 0 },
        Type::Tuple(items) => Value::Struct(items.iter().map(|t| default_of(p, t)).collect()),
        Type::Named(id) => match p.type_def(*id) {
            TypeDef::Struct { fields, .. } => Value::Struct(fields.iter().map(|f| default_of(p, &f.ty)).collect()),
            TypeDef::Header { fields, .. } => {
                Value::Header { valid: false, fields: fields.iter().map(|f| default_of(p, &f.ty)).collect() }
            }
            TypeDef::Union { fields, .. } => Value::Union(fields.iter().map(|f| default_of(p, &f.ty)).collect()),
            TypeDef::Enum { underlying: Some(u), .. } => default_of(p, u),
            TypeDef::Enum { underlying: None, .. } => Value::bit(32, 0),
            TypeDef::Extern { .. } => Value::Opaque,
        },
    }
}

/// A compile-time constant of type `ty` as a run-time value.
pub fn constant(p: &Program, c: &p4_ir::Value, ty: &Type) -> Value {
    use p4_ir::Value as C;
    match c {
        C::Bool(b) => Value::Bool(*b),
        C::Bits { width, signed, value } => Value::Bits { width: *width, signed: *signed, v: wrap(value, *width) },
        C::InfInt(i) => match underlying(p, ty) {
            Some(Type::Bits { width, signed }) => Value::Bits { width, signed, v: wrap(i, width) },
            Some(Type::Bool) => Value::Bool(!i.is_zero()),
            _ => Value::Int(i.clone()),
        },
        C::String(s) => Value::Str(s.clone()),
        C::Error(code) => Value::bit(32, u128::from(*code)),
        C::MatchKind(k) => Value::bit(32, u128::from(*k)),
        C::Enum(t, i) => match p.types.get(t.index()) {
            Some(TypeDef::Enum { underlying: Some(u), members, .. }) => {
                let (width, signed) = match u {
                    Type::Bits { width, signed } => (*width, *signed),
                    _ => (32, false),
                };
                let x = members.get(*i as usize).and_then(|m| m.1.clone()).unwrap_or_default();
                Value::Bits { width, signed, v: wrap(&x, width) }
            }
            _ => Value::bit(32, u128::from(*i)),
        },
        C::Aggregate { valid, fields } => {
            let types = field_types(p, ty);
            let items: Vec<Value> =
                fields.iter().enumerate().map(|(i, f)| constant(p, f, types.get(i).unwrap_or(&Type::InfInt))).collect();
            match ty {
                Type::Named(id) => match p.type_def(*id) {
                    TypeDef::Header { .. } => Value::Header { valid: *valid, fields: items },
                    TypeDef::Union { .. } => Value::Union(items),
                    _ => Value::Struct(items),
                },
                Type::Stack(..) => Value::Stack { elems: items, next: 0 },
                _ => Value::Struct(items),
            }
        }
    }
}

/// The `bit`/`int`/`bool` type a scalar type stands for (a serializable enum: its underlying type).
pub fn underlying(p: &Program, ty: &Type) -> Option<Type> {
    match ty {
        Type::Bits { .. } | Type::Bool => Some(ty.clone()),
        Type::Error | Type::MatchKind => Some(Type::bit(32)),
        Type::Named(id) => match p.types.get(id.index()) {
            Some(TypeDef::Enum { underlying: Some(u), .. }) => Some(u.clone()),
            Some(TypeDef::Enum { underlying: None, .. }) => Some(Type::bit(32)),
            _ => None,
        },
        _ => None,
    }
}

/// The types of the fields (or tuple items, or stack elements) of an aggregate type.
pub fn field_types(p: &Program, ty: &Type) -> Vec<Type> {
    match ty {
        Type::Named(id) => p.type_def(*id).fields().iter().map(|f| f.ty.clone()).collect(),
        Type::Tuple(items) => items.clone(),
        Type::Stack(elem, n) => vec![(**elem).clone(); *n as usize],
        _ => Vec::new(),
    }
}

/// `v` converted to type `to` (a cast): bits are cut or extended (sign-extended from a signed
/// type), `bool` and `bit<1>` convert both ways, a list or struct becomes a struct or a valid
/// header field by field.
pub fn convert(p: &Program, v: Value, to: &Type) -> Value {
    if let Some(u) = underlying(p, to) {
        return match (u, v) {
            (Type::Bool, v) => Value::Bool(v.is_true()),
            // Cutting, or widening an unsigned value: the low bits of the pattern.
            (Type::Bits { width, signed }, Value::Bits { width: from, signed: from_signed, v })
                if !from_signed || width <= from =>
            {
                Value::Bits { width, signed, v: truncate(v, width) }
            }
            // Widening a signed value extends its sign.
            (Type::Bits { width, signed }, v) => Value::Bits { width, signed, v: wrap(&v.to_bigint(), width) },
            (_, v) => v,
        };
    }
    match (to, v) {
        (Type::InfInt, v) => Value::Int(v.to_bigint()),
        (Type::Varbit(max), Value::Bits { width, v, .. }) => Value::Varbit { max: *max, len: width, v },
        (Type::Varbit(max), Value::Varbit { len, v, .. }) => Value::Varbit { max: *max, len, v },
        (_, Value::Header { valid, fields }) if matches!(to, Type::Named(id) if matches!(p.type_def(*id), TypeDef::Header { .. })) => {
            Value::Header { valid, fields }
        }
        (_, Value::Struct(items)) | (_, Value::Header { fields: items, .. }) => {
            let types = field_types(p, to);
            let items: Vec<Value> = items.into_iter().zip(&types).map(|(item, t)| convert(p, item, t)).collect();
            match to {
                Type::Named(id) => match p.type_def(*id) {
                    TypeDef::Header { .. } => Value::Header { valid: true, fields: items },
                    TypeDef::Union { .. } => Value::Union(items),
                    _ => Value::Struct(items),
                },
                _ => Value::Struct(items),
            }
        }
        (_, v) => v,
    }
}

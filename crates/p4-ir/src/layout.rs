//! Layouts and control-plane ids, computed once per program ([`Layouts::of`]) and shared by every
//! back end and by the control plane. Nobody else computes a header's wire layout, a table's key
//! layout, an action's data layout or a control-plane id.
//!
//! Conventions:
//! - **Bit offsets count from the most significant end.** A header's first field starts at bit 0 (the
//!   first bit on the wire); a packed table key or action-data block puts its first component at bit
//!   0. A field of width `w` at offset `o` occupies bits `o .. o + w`.
//! - **Widths of scalars** ([`scalar_width`]): `bool` is 1 bit, `bit<W>`/`int<W>` are `W`, a
//!   serializable enum takes its underlying type's width, `int` (compile-time only) counts as 128 and
//!   anything else held in one value (`error`, plain enums, match kinds) as 32 — what the software
//!   dataplane has always used for keys and parameters of those types.
//! - **Varbit fields**: a header's varbit field has `width` = its maximum; fields after it have offsets
//!   computed as if the varbit were empty (add its actual length at run time).
//! - **Key layouts** list the fields that take part in matching, in declaration order; `selector`
//!   keys feed an action selector's member choice and are listed apart ([`KeyLayout::selector_keys`]).
//! - **Action data** is the action's directionless parameters in declaration order; directional ones
//!   are bound in the table's `actions` list and carry no data.
//!
//! Control-plane ids ([`ControlPlaneIds`]) are the ones the P4 reference compiler puts in its
//! P4Runtime p4info, so that controllers and saved entries keep working: 32 bits, the object kind's
//! prefix byte ([`ObjectKind::prefix`]) in the top 8 bits, 24 bits below it. The 24 bits are
//! - the value of an `@id(N)` annotation when the object has one (taken first; `N` may carry the
//!   kind's prefix, another prefix or an id given twice is an error in [`ControlPlaneIds::errors`]),
//!   else
//! - the low 24 bits of the Jenkins one-at-a-time hash of the fully qualified control-plane name;
//! - on a collision with an id already given (same kind), the next free value upwards (wrapping
//!   from `0xff_ffff` to 0). Names are assigned in sorted order, so the result depends only on the
//!   set of names, never on declaration order or on the IR's indices.
//!
//! Objects with the same kind and name (the IR has one action instance per block using a shared
//! action such as `NoAction`) share one id.

use std::collections::BTreeMap;
use std::fmt::Write;

use num_traits::ToPrimitive;

use crate::{
    ActionId, Builtin, Callee, ExprKind, ExternId, MatchKind, Program, TableId, Type, TypeDef, TypeId, Value,
    ValueSetId,
};

// ---------------------------------------------------------------- widths

/// Width in bits of a value held as one scalar (see the module documentation).
pub fn scalar_width(p: &Program, ty: &Type) -> u32 {
    match ty {
        Type::Bool => 1,
        Type::Bits { width, .. } => *width,
        Type::InfInt => 128,
        Type::Named(id) => match p.types.get(id.index()) {
            Some(TypeDef::Enum { underlying: Some(u), .. }) => scalar_width(p, u),
            _ => 32,
        },
        _ => 32,
    }
}

/// A compile-time constant of type `ty` as the control plane and the dataplanes hold it: its low
/// [`scalar_width`] bits (a serializable enum member: its underlying value; `bool`: 0 or 1; an error
/// or match kind: its code). `Err` names what is not a number (a string, a list or structure).
pub fn scalar_value(p: &Program, v: &Value, ty: &Type) -> Result<u128, String> {
    let low_bits = |x: &num_bigint::BigInt, width: u32| {
        let mask = if width >= 128 { u128::MAX } else { (1u128 << width) - 1 };
        (x & num_bigint::BigInt::from(mask)).to_u128().unwrap_or(0)
    };
    Ok(match v {
        Value::Bool(b) => u128::from(*b),
        Value::Bits { value, width, .. } => low_bits(value, *width),
        Value::InfInt(value) => low_bits(value, scalar_width(p, ty)),
        Value::Error(c) => u128::from(*c),
        Value::MatchKind(k) => u128::from(*k),
        Value::Enum(t, i) => match p.types.get(t.index()) {
            Some(TypeDef::Enum { underlying: Some(u), members, .. }) => {
                let width = scalar_width(p, u);
                members.get(*i as usize).and_then(|m| m.1.as_ref()).map_or(0, |x| low_bits(x, width))
            }
            _ => u128::from(*i),
        },
        Value::String(_) => return Err("a string used as a number".into()),
        Value::Aggregate { .. } => return Err("a list or structure used as a number".into()),
    })
}

/// Wire width of a value that is serialised as its bits concatenated: bits, `bool`, serializable
/// enums, and structs/headers/tuples of those. Anything without a wire form counts 0.
pub fn wire_width(p: &Program, ty: &Type) -> u32 {
    match ty {
        Type::Bits { width, .. } => *width,
        Type::Bool => 1,
        Type::Tuple(items) => items.iter().map(|t| wire_width(p, t)).sum(),
        Type::Named(id) => match p.types.get(id.index()) {
            Some(TypeDef::Enum { underlying: Some(u), .. }) => wire_width(p, u),
            Some(d) => d.fields().iter().map(|f| wire_width(p, &f.ty)).sum(),
            None => 0,
        },
        _ => 0,
    }
}

// ---------------------------------------------------------------- headers

/// One leaf field of a header on the wire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldLayout {
    /// Field name; members of struct-typed fields are `outer.inner`.
    pub name: String,
    /// Field indices from the header down to this leaf (one index for an ordinary field).
    pub path: Vec<u32>,
    pub bit_offset: u32,
    /// Width in bits (the maximum for a varbit).
    pub width: u32,
    pub varbit: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderLayout {
    pub ty: TypeId,
    pub name: String,
    pub fields: Vec<FieldLayout>,
    /// Bits of the fixed-width fields.
    pub fixed_bits: u32,
    /// Maximum bits of the varbit field, 0 without one.
    pub varbit_max: u32,
}

impl HeaderLayout {
    pub fn field(&self, name: &str) -> Option<&FieldLayout> {
        self.fields.iter().find(|f| f.name == name)
    }
}

fn header_fields(
    p: &Program,
    ty: &Type,
    prefix: &str,
    path: &mut Vec<u32>,
    offset: &mut u32,
    out: &mut Vec<FieldLayout>,
) {
    let push = |out: &mut Vec<FieldLayout>, path: &[u32], offset: &mut u32, width: u32, varbit: bool| {
        out.push(FieldLayout { name: prefix.to_string(), path: path.to_vec(), bit_offset: *offset, width, varbit });
        if !varbit {
            *offset += width;
        }
    };
    match ty {
        Type::Varbit(max) => push(out, path, offset, *max, true),
        Type::Named(id) => match p.types.get(id.index()) {
            Some(TypeDef::Struct { fields, .. }) | Some(TypeDef::Header { fields, .. }) => {
                for (i, f) in fields.iter().enumerate() {
                    let name = if prefix.is_empty() { f.name.clone() } else { format!("{prefix}.{}", f.name) };
                    path.push(i as u32);
                    header_fields(p, &f.ty, &name, path, offset, out);
                    path.pop();
                }
            }
            _ => push(out, path, offset, scalar_width(p, ty), false),
        },
        _ => push(out, path, offset, scalar_width(p, ty), false),
    }
}

/// The leaf fields of a header or struct type as they lie on the wire (a header's layout's
/// fields; also for the struct a `lookahead` reads).
pub fn wire_fields(p: &Program, ty: &Type) -> Vec<FieldLayout> {
    let mut fields = Vec::new();
    header_fields(p, ty, "", &mut Vec::new(), &mut 0, &mut fields);
    fields
}

fn header_layout(p: &Program, id: TypeId) -> HeaderLayout {
    let fields = wire_fields(p, &Type::Named(id));
    let fixed_bits = fields.iter().filter(|f| !f.varbit).map(|f| f.width).sum();
    let varbit_max = fields.iter().filter(|f| f.varbit).map(|f| f.width).sum();
    HeaderLayout { ty: id, name: p.types[id.index()].name().to_string(), fields, fixed_bits, varbit_max }
}

// ---------------------------------------------------------------- tables

/// One matched component of a table key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyField {
    /// Control-plane name, as BMv2 and P4Runtime use it (`hdr.ipv4.dstAddr`, `@name` when given).
    pub name: String,
    /// Index into the IR table's [`crate::Table::keys`].
    pub index: usize,
    pub width: u32,
    pub match_kind: MatchKind,
    pub bit_offset: u32,
    /// The key is `h.isValid()` (BMv2 also calls it `$valid$`).
    pub is_valid: bool,
    /// Its P4Runtime match-field id ([`local_ids`]).
    pub id: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyLayout {
    pub table: TableId,
    pub name: String,
    pub fields: Vec<KeyField>,
    pub total_bits: u32,
    /// Indices into the IR table's keys of its `selector` keys (not part of the match).
    pub selector_keys: Vec<usize>,
    /// The match kind that makes entries carry a priority (ternary, range or optional), if any.
    pub priority_kind: Option<MatchKind>,
}

impl KeyLayout {
    pub fn field(&self, name: &str) -> Option<&KeyField> {
        self.fields.iter().find(|f| f.name == name)
    }
}

fn key_layout(p: &Program, id: TableId) -> KeyLayout {
    let t = &p.tables[id.index()];
    let mut fields = Vec::new();
    let mut selector_keys = Vec::new();
    let mut offset = 0;
    for (index, k) in t.keys.iter().enumerate() {
        if k.match_kind == MatchKind::Selector {
            selector_keys.push(index);
            continue;
        }
        let width = scalar_width(p, &k.expr.ty);
        let is_valid = matches!(&k.expr.kind, ExprKind::Call(c) if matches!(c.callee, Callee::Builtin { builtin: Builtin::IsValid, .. }));
        fields.push(KeyField {
            name: k.name.clone(),
            index,
            width,
            match_kind: k.match_kind.clone(),
            bit_offset: offset,
            is_valid,
            id: 0,
        });
        offset += width;
    }
    let ids = local_ids(fields.iter().map(|f| id_annotation(&t.keys[f.index].annotations)));
    for (f, id) in fields.iter_mut().zip(ids) {
        f.id = id;
    }
    let priority_kind = fields
        .iter()
        .map(|f| &f.match_kind)
        .find(|k| matches!(k, MatchKind::Ternary | MatchKind::Range | MatchKind::Optional))
        .cloned();
    KeyLayout { table: id, name: t.name.clone(), fields, total_bits: offset, selector_keys, priority_kind }
}

// ---------------------------------------------------------------- actions

/// One action-data parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamLayout {
    pub name: String,
    /// Index into the IR action's [`crate::Action::params`].
    pub index: usize,
    pub width: u32,
    pub bit_offset: u32,
    /// Its P4Runtime parameter id ([`local_ids`]).
    pub id: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionDataLayout {
    pub action: ActionId,
    pub name: String,
    /// The action's control-plane id.
    pub id: u32,
    pub params: Vec<ParamLayout>,
    pub total_bits: u32,
}

fn action_layout(p: &Program, id: ActionId, cp_id: u32) -> ActionDataLayout {
    let a = &p.actions[id.index()];
    let mut params = Vec::new();
    let mut offset = 0;
    for (index, prm) in a.params.iter().enumerate() {
        if prm.direction != crate::Direction::None {
            continue;
        }
        let width = scalar_width(p, &prm.ty);
        params.push(ParamLayout { name: prm.name.clone(), index, width, bit_offset: offset, id: 0 });
        offset += width;
    }
    let ids = local_ids(params.iter().map(|x| id_annotation(&a.params[x.index].annotations)));
    for (x, id) in params.iter_mut().zip(ids) {
        x.id = id;
    }
    ActionDataLayout { action: id, name: a.name.clone(), id: cp_id, params, total_bits: offset }
}

// ---------------------------------------------------------------- control-plane ids

/// Kinds of control-plane objects, with P4Runtime's id prefixes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ObjectKind {
    Action,
    Table,
    ValueSet,
    /// A header type annotated `@controller_header` (packet-in/packet-out metadata).
    ControllerHeader,
    ActionProfile,
    Counter,
    DirectCounter,
    Meter,
    DirectMeter,
    Register,
    /// The data type of a v1model `digest<T>` call (a struct or header type); its id is hashed
    /// from the type's name.
    Digest,
}

impl ObjectKind {
    /// The top byte of every id of this kind (P4Runtime's `P4Ids.Prefix`).
    pub fn prefix(self) -> u8 {
        match self {
            ObjectKind::Action => 0x01,
            ObjectKind::Table => 0x02,
            ObjectKind::ValueSet => 0x03,
            ObjectKind::ControllerHeader => 0x04,
            ObjectKind::ActionProfile => 0x11,
            ObjectKind::Counter => 0x12,
            ObjectKind::DirectCounter => 0x13,
            ObjectKind::Meter => 0x14,
            ObjectKind::DirectMeter => 0x15,
            ObjectKind::Register => 0x16,
            ObjectKind::Digest => 0x17,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ObjectKind::Action => "action",
            ObjectKind::Table => "table",
            ObjectKind::ValueSet => "value_set",
            ObjectKind::ControllerHeader => "controller_header",
            ObjectKind::ActionProfile => "action_profile",
            ObjectKind::Counter => "counter",
            ObjectKind::DirectCounter => "direct_counter",
            ObjectKind::Meter => "meter",
            ObjectKind::DirectMeter => "direct_meter",
            ObjectKind::Register => "register",
            ObjectKind::Digest => "digest",
        }
    }

}

/// The control-plane object kind of an instance of extern type `type_name`, as the program's
/// architecture describes it ([`crate::arch::ExternSig::object`]); `None` for externs the control
/// plane does not see and for programs of no known architecture.
pub fn extern_kind(p: &Program, type_name: &str) -> Option<ObjectKind> {
    crate::arch::of_program(p)?.object_kind(type_name)
}

/// What a control-plane id names in the IR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    Table(TableId),
    Action(ActionId),
    Extern(ExternId),
    ValueSet(ValueSetId),
    /// A header type annotated `@controller_header`; its id is hashed from the type's name.
    ControllerHeader(TypeId),
    /// The struct or header type a `digest<T>` call sends; its id is hashed from the type's name.
    Digest(TypeId),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ControlPlaneObject {
    pub kind: ObjectKind,
    /// Fully qualified control-plane name.
    pub name: String,
    pub id: u32,
    /// The IR objects carrying this name (more than one for an action instantiated in several blocks).
    pub targets: Vec<Target>,
}

/// Every control-plane object of a program, sorted by id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ControlPlaneIds {
    pub objects: Vec<ControlPlaneObject>,
    by_target: BTreeMap<Target, usize>,
    /// `@id` annotations that cannot be honoured (a wrong prefix, an id given twice); the objects
    /// named get hashed ids meanwhile. The front end reports these as errors.
    pub errors: Vec<String>,
}

impl ControlPlaneIds {
    /// The id of an IR object, if the control plane sees it.
    pub fn id(&self, t: Target) -> Option<u32> {
        self.by_target.get(&t).map(|i| self.objects[*i].id)
    }
    pub fn by_id(&self, id: u32) -> Option<&ControlPlaneObject> {
        self.objects.binary_search_by_key(&id, |o| o.id).ok().map(|i| &self.objects[i])
    }
    /// Exact fully qualified name lookup.
    pub fn find(&self, kind: ObjectKind, name: &str) -> Option<&ControlPlaneObject> {
        self.objects.iter().find(|o| o.kind == kind && o.name == name)
    }
}

/// Bob Jenkins's one-at-a-time hash of `name`, the hash P4Runtime ids are made from.
pub fn one_at_a_time(name: &str) -> u32 {
    let mut h: u32 = 0;
    for b in name.bytes() {
        h = h.wrapping_add(u32::from(b));
        h = h.wrapping_add(h << 10);
        h ^= h >> 6;
    }
    h = h.wrapping_add(h << 3);
    h ^= h >> 11;
    h.wrapping_add(h << 15)
}

/// The ids of a table's match fields or an action's parameters, in order, as the reference
/// compiler gives them: `@id(N)` where given (N in 32 bits), else counting up from 1, skipping the
/// ids given.
pub fn local_ids(given: impl Iterator<Item = Option<u128>>) -> Vec<u32> {
    let given: Vec<Option<u32>> = given.map(|g| g.and_then(|v| u32::try_from(v).ok())).collect();
    let taken: std::collections::BTreeSet<u32> = given.iter().flatten().copied().collect();
    let mut next = 1u32;
    given
        .into_iter()
        .map(|g| {
            g.unwrap_or_else(|| {
                while taken.contains(&next) {
                    next += 1;
                }
                next += 1;
                next - 1
            })
        })
        .collect()
}

/// The value of an object's `@id(N)` annotation, if it has one with a number.
pub fn id_annotation(annotations: &[crate::Annotation]) -> Option<u128> {
    let a = annotations.iter().find(|a| a.name == "id")?;
    match a.args.first()? {
        Value::Bits { value, .. } | Value::InfInt(value) => value.to_u128(),
        _ => None,
    }
}

/// The data types of the program's digests: the struct or header type `T` of every call of the
/// architecture's digest function (v1model's `digest<T>(receiver, data)`), each once, in order of
/// type id. Digests of other data (a tuple, a list) have no control-plane object.
pub fn digest_types(p: &Program) -> Vec<TypeId> {
    struct Finder {
        arch: &'static crate::arch::Architecture,
        found: std::collections::BTreeSet<TypeId>,
    }
    impl<'a> crate::visit::Visit<'a> for Finder {
        fn visit_call(&mut self, call: &'a crate::Call) {
            if let Callee::ExternFunction { name, .. } = &call.callee {
                let is_digest = self.arch.function(name).is_some_and(|f| f.op == crate::arch::ExternOp::Digest);
                if let (true, Some(data)) = (is_digest, call.args.get(1)) {
                    if let Type::Named(ty) = &data.expr.ty {
                        self.found.insert(*ty);
                    }
                }
            }
            crate::visit::walk_call(self, call);
        }
    }
    let Some(arch) = crate::arch::of_program(p) else { return Vec::new() };
    let mut finder = Finder { arch, found: Default::default() };
    crate::visit::walk_program(&mut finder, p);
    finder
        .found
        .into_iter()
        .filter(|ty| matches!(p.types.get(ty.index()), Some(TypeDef::Struct { .. } | TypeDef::Header { .. })))
        .collect()
}

/// The control-plane ids of every object of `p` (see the module documentation).
pub fn assign_ids(p: &Program) -> ControlPlaneIds {
    // (kind, name) → (targets, @id); BTreeMap iterates in sorted order, making ids order-independent.
    let mut named: BTreeMap<(ObjectKind, String), (Vec<Target>, Option<u128>)> = BTreeMap::new();
    let mut add = |kind: ObjectKind, name: &str, t: Target, at: Option<u128>| {
        let e = named.entry((kind, name.to_string())).or_default();
        e.0.push(t);
        e.1 = e.1.or(at);
    };
    for (i, t) in p.tables.iter().enumerate() {
        add(ObjectKind::Table, &t.name, Target::Table(TableId(i as u32)), id_annotation(&t.annotations));
    }
    for (i, a) in p.actions.iter().enumerate() {
        add(ObjectKind::Action, &a.name, Target::Action(ActionId(i as u32)), id_annotation(&a.annotations));
    }
    for (i, e) in p.externs.iter().enumerate() {
        if let Some(kind) = extern_kind(p, &e.type_name) {
            add(kind, &e.name, Target::Extern(ExternId(i as u32)), id_annotation(&e.annotations));
        }
    }
    for (i, v) in p.value_sets.iter().enumerate() {
        add(ObjectKind::ValueSet, &v.name, Target::ValueSet(ValueSetId(i as u32)), None);
    }
    for (i, t) in p.types.iter().enumerate() {
        if let TypeDef::Header { name, annotations, .. } = t {
            if annotations.iter().any(|a| a.name == "controller_header") {
                add(ObjectKind::ControllerHeader, name, Target::ControllerHeader(TypeId(i as u32)), id_annotation(annotations));
            }
        }
    }
    for ty in digest_types(p) {
        if let Some(def) = p.types.get(ty.index()) {
            add(ObjectKind::Digest, def.name(), Target::Digest(ty), None);
        }
    }
    let mut errors = Vec::new();
    let mut taken: BTreeMap<u32, String> = BTreeMap::new();
    let mut ids: BTreeMap<(ObjectKind, String), u32> = BTreeMap::new();
    // Explicit `@id`s first, so a hashed name never takes one.
    for ((kind, name), (_, at)) in &named {
        let Some(given) = *at else { continue };
        let prefix = u128::from(kind.prefix());
        if given >> 32 != 0 || (given >> 24 != 0 && given >> 24 != prefix) {
            errors.push(format!(
                "{} {name}: @id({given:#x}) carries the prefix {:#04x}, but {} ids carry {prefix:#04x} (or give none)",
                kind.name(),
                given >> 24,
                kind.name()
            ));
            continue;
        }
        let id = (kind.prefix() as u32) << 24 | (given as u32 & 0xff_ffff);
        match taken.get(&id) {
            Some(other) => errors.push(format!("{} {name}: @id({given:#x}) is already the id of {other}", kind.name())),
            None => {
                taken.insert(id, format!("{} {name}", kind.name()));
                ids.insert((*kind, name.clone()), id);
            }
        }
    }
    for (kind, name) in named.keys() {
        if ids.contains_key(&(*kind, name.clone())) {
            continue;
        }
        let prefix = u32::from(kind.prefix()) << 24;
        let mut low = one_at_a_time(name) & 0xff_ffff;
        // 2^24 ids per kind: a program cannot have that many objects, so the probe ends.
        while taken.contains_key(&(prefix | low)) {
            low = (low + 1) & 0xff_ffff;
        }
        taken.insert(prefix | low, format!("{} {name}", kind.name()));
        ids.insert((*kind, name.clone()), prefix | low);
    }
    let mut objects: Vec<ControlPlaneObject> = named
        .into_iter()
        .map(|((kind, name), (targets, _))| {
            let id = ids[&(kind, name.clone())];
            ControlPlaneObject { kind, name, id, targets }
        })
        .collect();
    objects.sort_by_key(|o| o.id);
    let mut by_target = BTreeMap::new();
    for (i, o) in objects.iter().enumerate() {
        for t in &o.targets {
            by_target.insert(*t, i);
        }
    }
    ControlPlaneIds { objects, by_target, errors }
}

// ---------------------------------------------------------------- all of it

/// Every layout and id of one program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layouts {
    /// By [`TypeId`]; `None` for types that are not headers.
    pub headers: Vec<Option<HeaderLayout>>,
    /// By [`TableId`].
    pub keys: Vec<KeyLayout>,
    /// By [`ActionId`].
    pub actions: Vec<ActionDataLayout>,
    /// Wire width of each value set's element, by [`ValueSetId`].
    pub value_set_widths: Vec<u32>,
    /// Cell width of each register whose element is `bit<W>`/`int<W>` (W) or `bool` (1), by
    /// [`ExternId`]; `None` for other externs and other element types (a back end decides how to
    /// hold those).
    pub register_widths: Vec<Option<u32>>,
    pub ids: ControlPlaneIds,
}

impl Layouts {
    /// Computes everything; linear in the program's size.
    pub fn of(p: &Program) -> Layouts {
        let ids = assign_ids(p);
        let headers = (0..p.types.len())
            .map(|i| matches!(p.types[i], TypeDef::Header { .. }).then(|| header_layout(p, TypeId(i as u32))))
            .collect();
        let keys = (0..p.tables.len()).map(|i| key_layout(p, TableId(i as u32))).collect();
        let actions = (0..p.actions.len())
            .map(|i| {
                let id = ActionId(i as u32);
                action_layout(p, id, ids.id(Target::Action(id)).unwrap_or(0))
            })
            .collect();
        let value_set_widths = p.value_sets.iter().map(|v| wire_width(p, &v.elem)).collect();
        let register_widths = p
            .externs
            .iter()
            .map(|e| match (extern_kind(p, &e.type_name), e.type_args.first()) {
                (Some(ObjectKind::Register), Some(Type::Bits { width, .. })) => Some(*width),
                (Some(ObjectKind::Register), Some(Type::Bool)) => Some(1),
                _ => None,
            })
            .collect();
        Layouts { headers, keys, actions, value_set_widths, register_widths, ids }
    }

    /// The layout of a header type (`None` if `ty` is not a header).
    pub fn header(&self, ty: &Type) -> Option<&HeaderLayout> {
        match ty {
            Type::Named(id) => self.headers.get(id.index())?.as_ref(),
            _ => None,
        }
    }
    pub fn header_named(&self, name: &str) -> Option<&HeaderLayout> {
        self.headers.iter().flatten().find(|h| h.name == name)
    }
    pub fn key(&self, t: TableId) -> &KeyLayout {
        &self.keys[t.index()]
    }
    pub fn table_named(&self, name: &str) -> Option<&KeyLayout> {
        self.keys.iter().find(|k| k.name == name)
    }
    pub fn action(&self, a: ActionId) -> &ActionDataLayout {
        &self.actions[a.index()]
    }
    pub fn action_named(&self, name: &str) -> Option<&ActionDataLayout> {
        self.actions.iter().find(|a| a.name == name)
    }
}

// ---------------------------------------------------------------- name resolution

/// Why a control-plane name did not resolve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NameError {
    /// `known` lists every candidate name.
    NotFound {
        known: Vec<String>,
    },
    Ambiguous {
        candidates: Vec<String>,
    },
}

/// Finds `query` among `names` the way the control plane does everywhere: an exact match, else a
/// unique match on a `.`-separated suffix (`ipv4_lpm` for `MyIngress.ipv4_lpm`).
pub fn resolve<'n>(names: impl Iterator<Item = &'n str> + Clone, query: &str) -> Result<usize, NameError> {
    if let Some(i) = names.clone().position(|n| n == query) {
        return Ok(i);
    }
    let hits: Vec<(usize, &str)> = names
        .clone()
        .enumerate()
        .filter(|(_, n)| n.ends_with(query) && n[..n.len() - query.len()].ends_with('.'))
        .collect();
    match hits.as_slice() {
        [(i, _)] => Ok(*i),
        [] => Err(NameError::NotFound { known: names.map(str::to_string).collect() }),
        many => Err(NameError::Ambiguous { candidates: many.iter().map(|(_, n)| n.to_string()).collect() }),
    }
}

// ---------------------------------------------------------------- text form

/// A stable, line-oriented listing of every layout and id (for `--emit layout` and snapshots).
pub fn print(l: &Layouts, p: &Program) -> String {
    let mut s = String::new();
    for h in l.headers.iter().flatten() {
        let _ = writeln!(
            s,
            "header {} ({} bits{})",
            h.name,
            h.fixed_bits,
            if h.varbit_max > 0 { format!(" + varbit<{}>", h.varbit_max) } else { String::new() }
        );
        for f in &h.fields {
            let _ = writeln!(s, "  {:>5} {:>4}{} {}", f.bit_offset, f.width, if f.varbit { "v" } else { " " }, f.name);
        }
    }
    for k in &l.keys {
        let id = l.ids.id(Target::Table(k.table)).unwrap_or(0);
        let _ = writeln!(s, "table {} id 0x{id:08x} key {} bits", k.name, k.total_bits);
        for f in &k.fields {
            let _ = writeln!(
                s,
                "  {:>5} {:>4} {:<8} {}{}",
                f.bit_offset,
                f.width,
                f.match_kind.name(),
                f.name,
                if f.is_valid { " (valid)" } else { "" }
            );
        }
        for i in &k.selector_keys {
            let _ = writeln!(s, "  selector {}", p.tables[k.table.index()].keys[*i].name);
        }
    }
    for a in &l.actions {
        let _ = writeln!(s, "action {} id 0x{:08x} data {} bits", a.name, a.id, a.total_bits);
        for prm in &a.params {
            let _ = writeln!(s, "  {:>5} {:>4} {}", prm.bit_offset, prm.width, prm.name);
        }
    }
    for (v, w) in p.value_sets.iter().zip(&l.value_set_widths) {
        let id = l.ids.find(ObjectKind::ValueSet, &v.name).map_or(0, |o| o.id);
        let _ = writeln!(s, "value_set {} id 0x{id:08x} {w} bits", v.name);
    }
    for (e, w) in p.externs.iter().zip(&l.register_widths) {
        if let Some(w) = w {
            let id = l.ids.find(ObjectKind::Register, &e.name).map_or(0, |o| o.id);
            let _ = writeln!(s, "register {} id 0x{id:08x} cell {w} bits", e.name);
        }
    }
    for o in &l.ids.objects {
        let _ = writeln!(s, "id 0x{:08x} {} {}", o.id, o.kind.name(), o.name);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_the_reference_compilers() {
        // The ids the P4 reference compiler gives the P4 tutorials' basic.p4 (its published p4info).
        assert_eq!(0x0200_0000 | one_at_a_time("MyIngress.ipv4_lpm") & 0xff_ffff, 37_375_156);
        assert_eq!(0x0100_0000 | one_at_a_time("NoAction") & 0xff_ffff, 21_257_015);
        assert_eq!(0x0100_0000 | one_at_a_time("MyIngress.drop") & 0xff_ffff, 25_652_968);
        assert_eq!(0x0100_0000 | one_at_a_time("MyIngress.ipv4_forward") & 0xff_ffff, 28_792_405);
        // The published reference value for "a".
        assert_eq!(one_at_a_time("a"), 0xca2e_9442);
        assert_eq!(one_at_a_time(""), 0);
    }

    #[test]
    fn names_resolve_exactly_or_by_unique_suffix() {
        let names = ["MyIngress.ipv4_lpm", "MyIngress.mac", "MyEgress.mac"];
        assert_eq!(resolve(names.iter().copied(), "ipv4_lpm"), Ok(0));
        assert_eq!(resolve(names.iter().copied(), "MyEgress.mac"), Ok(2));
        assert!(matches!(resolve(names.iter().copied(), "mac"), Err(NameError::Ambiguous { .. })));
        assert!(matches!(resolve(names.iter().copied(), "pv4_lpm"), Err(NameError::NotFound { .. })));
    }
}

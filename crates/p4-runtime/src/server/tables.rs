//! Table entries between P4Runtime and the control-plane API: a `p4.v1.TableEntry` checked against
//! the program (ids, match kinds, widths, canonical values, priority) and turned into
//! [`ControlPlane`] calls; and the entries as written, kept in canonical form so that a read
//! returns exactly them.

use std::collections::BTreeMap;

use num_bigint::BigUint;
use p4_control::catalog::{Catalog, TableInfo};
use p4_control::{ActionArgs, ControlPlane, Handle, KeyValue, Keys};
use p4_ir::layout::{ControlPlaneIds, KeyField, Target};
use p4_ir::MatchKind;
use prost::Message;
use tonic::Code;

use super::profiles::{Named, Profiles, Resolved};
use crate::p4info::canonical_bytes;
use crate::proto::p4::v1::{field_match, table_action, Action, FieldMatch, TableAction, TableEntry};

/// Why an update was refused: a gRPC code and the reason, for its `p4.v1.Error`.
pub type Refusal = (Code, String);

/// A refusal with `code` and the reason, as a result.
pub(super) fn refuse<T>(code: Code, why: impl Into<String>) -> Result<T, Refusal> {
    Err((code, why.into()))
}

/// Refuses an INSERT of what exists, a MODIFY or DELETE of what does not, and an unspecified
/// update; `what` names the object (`clone session 9`).
pub(super) fn check_presence(kind: crate::proto::p4::v1::update::Type, exists: bool, what: impl std::fmt::Display) -> Result<(), Refusal> {
    use crate::proto::p4::v1::update::Type;
    match (kind, exists) {
        (Type::Insert, true) => refuse(Code::AlreadyExists, format!("{what} exists")),
        (Type::Modify | Type::Delete, false) => refuse(Code::NotFound, format!("no {what}")),
        (Type::Unspecified, _) => refuse(Code::InvalidArgument, "update type unspecified"),
        _ => Ok(()),
    }
}

/// One table's entries as the controller wrote them, by canonical key.
#[derive(Default)]
pub struct TableEntries {
    /// Canonical match (and priority) bytes → (handle in the dataplane, the entry in canonical form).
    by_key: BTreeMap<Vec<u8>, (Handle, TableEntry)>,
    /// The default entry as last written (`None`: the program's).
    default: Option<TableEntry>,
}

/// Every table's entries, by table index.
pub struct Entries {
    tables: Vec<TableEntries>,
}

/// A table entry checked against the program: what the control-plane API needs.
struct Checked {
    /// The entry in canonical form (values shortest, matches in field order).
    canonical: TableEntry,
    /// Canonical match and priority: the entry's identity.
    key: Vec<u8>,
    keys: Vec<KeyValue>,
    /// BMv2-style priority (smaller wins), for tables that take one.
    priority: Option<i64>,
}

impl Entries {
    pub fn new(catalog: &Catalog) -> Entries {
        Entries { tables: catalog.tables.iter().map(|_| TableEntries::default()).collect() }
    }

    /// Applies one INSERT, MODIFY or DELETE of `entry`.
    pub fn write(
        &mut self,
        target: &mut dyn ControlPlane,
        catalog: &Catalog,
        ids: &ControlPlaneIds,
        kind: crate::proto::p4::v1::update::Type,
        entry: &TableEntry,
        profiles: &Profiles,
    ) -> Result<(), Refusal> {
        use crate::proto::p4::v1::update::Type;
        let table = table_index(ids, entry.table_id)?;
        let info = &catalog.tables[table];
        if entry.is_default_action {
            return self.write_default(target, catalog, ids, kind, table, entry);
        }
        if info.entries_const {
            return refuse(Code::PermissionDenied, format!("table {} has const entries", info.name));
        }
        let Checked { canonical, key, keys, priority } = check_entry(catalog, ids, table, entry)?;
        let store = &mut self.tables[table];
        match kind {
            Type::Insert => {
                if store.by_key.contains_key(&key) {
                    return refuse(Code::AlreadyExists, format!("table {} already has this entry", info.name));
                }
                let resolved = profiles.resolve(catalog, ids, table, entry.action.as_ref())?;
                let written = with_action(canonical, entry)?;
                let (action, args) = resolved.first();
                let handle = target.table_add(&info.name, Keys::Positional(keys), &action, args, priority).map_err(|e| refusal(&e))?;
                if let Resolved::Select(members) = resolved {
                    if let Err(e) = target.table_select(&info.name, handle, members) {
                        // Not applied: the entry goes again.
                        let _ = target.table_delete(&info.name, handle);
                        return Err(cannot_select(&e));
                    }
                }
                store.by_key.insert(key, (handle, written));
            }
            Type::Modify => {
                let Some((handle, stored)) = store.by_key.get_mut(&key) else {
                    return refuse(Code::NotFound, format!("table {} has no such entry", info.name));
                };
                let resolved = profiles.resolve(catalog, ids, table, entry.action.as_ref())?;
                let written = with_action(canonical, entry)?;
                apply_action(target, &info.name, *handle, resolved)?;
                *stored = written;
            }
            Type::Delete => {
                let Some((handle, _)) = store.by_key.get(&key) else {
                    return refuse(Code::NotFound, format!("table {} has no such entry", info.name));
                };
                target.table_delete(&info.name, *handle).map_err(|e| refusal(&e))?;
                store.by_key.remove(&key);
            }
            Type::Unspecified => return refuse(Code::InvalidArgument, "update type unspecified"),
        }
        Ok(())
    }

    fn write_default(
        &mut self,
        target: &mut dyn ControlPlane,
        catalog: &Catalog,
        ids: &ControlPlaneIds,
        kind: crate::proto::p4::v1::update::Type,
        table: usize,
        entry: &TableEntry,
    ) -> Result<(), Refusal> {
        use crate::proto::p4::v1::update::Type;
        let info = &catalog.tables[table];
        if !entry.r#match.is_empty() || entry.priority != 0 {
            return refuse(Code::InvalidArgument, "a default entry has no match and no priority");
        }
        if kind != Type::Modify {
            return refuse(Code::InvalidArgument, "the default entry can only be modified (INSERT and DELETE do not apply)");
        }
        if info.default_is_const {
            return refuse(Code::PermissionDenied, format!("table {} has a const default action", info.name));
        }
        // No action: reset to the program's default.
        let (action, args, written) = match &entry.action {
            None => {
                let (pos, data) = &info.initial_default;
                let a = &info.actions[*pos];
                let args = ActionArgs::Positional(data.iter().map(|v| BigUint::from(*v)).collect());
                (a.name.clone(), args, None)
            }
            Some(_) => {
                let (action, args) = action_call(catalog, ids, table, entry.action.as_ref(), true)?;
                let mut canonical = TableEntry { table_id: entry.table_id, is_default_action: true, ..Default::default() };
                canonical.action = Some(canonical_action(entry.action.as_ref())?);
                (action, args, Some(canonical))
            }
        };
        target.table_set_default(&info.name, &action, args).map_err(|e| refusal(&e))?;
        self.tables[table].default = written;
        Ok(())
    }

    /// The entries a read of `entry` asks for: one table's or every table's (`table_id` 0), one
    /// entry (a match given), or the default entry.
    pub fn read(&self, catalog: &Catalog, ids: &ControlPlaneIds, entry: &TableEntry) -> Result<Vec<TableEntry>, Refusal> {
        if entry.is_default_action {
            let tables: Vec<usize> = match entry.table_id {
                0 => (0..self.tables.len()).collect(),
                id => vec![table_index(ids, id)?],
            };
            return Ok(tables.into_iter().map(|t| self.default_entry(catalog, ids, t)).collect());
        }
        Ok(self.matching(catalog, ids, entry)?.into_iter().map(|(_, _, e)| e).collect())
    }

    /// The installed entries `pattern` names (every table's for `table_id` 0, a table's without a
    /// match, else the one with that match), each with its table and handle.
    pub fn matching(&self, catalog: &Catalog, ids: &ControlPlaneIds, pattern: &TableEntry) -> Result<Vec<(usize, Handle, TableEntry)>, Refusal> {
        let tables: Vec<usize> = match pattern.table_id {
            0 => (0..self.tables.len()).collect(),
            id => vec![table_index(ids, id)?],
        };
        let mut out = Vec::new();
        for t in tables {
            if pattern.table_id != 0 && !pattern.r#match.is_empty() {
                let checked = check_entry(catalog, ids, t, pattern)?;
                out.extend(self.tables[t].by_key.get(&checked.key).map(|(h, e)| (t, *h, e.clone())));
                continue;
            }
            out.extend(self.tables[t].by_key.values().map(|(h, e)| (t, *h, e.clone())));
        }
        Ok(out)
    }

    fn default_entry(&self, catalog: &Catalog, ids: &ControlPlaneIds, table: usize) -> TableEntry {
        if let Some(e) = &self.tables[table].default {
            return e.clone();
        }
        let info = &catalog.tables[table];
        let (pos, data) = &info.initial_default;
        let a = &info.actions[*pos];
        TableEntry {
            table_id: ids.id(Target::Table(p4_ir::TableId(table as u32))).unwrap_or(0),
            is_default_action: true,
            action: Some(TableAction {
                r#type: Some(table_action::Type::Action(Action {
                    action_id: ids.id(Target::Action(p4_ir::ActionId(a.action as u32))).unwrap_or(0),
                    params: a
                        .params
                        .iter()
                        .zip(data)
                        .map(|(p, v)| crate::proto::p4::v1::action::Param {
                            param_id: p.id,
                            value: canonical_bytes(*v, p.width),
                        })
                        .collect(),
                })),
            }),
            ..Default::default()
        }
    }
}

/// Makes installed entry `handle` run `resolved`. A selection replaces the members at once (the
/// entry's own action stays, unused); one action makes it a plain entry.
fn apply_action(target: &mut dyn ControlPlane, table: &str, handle: Handle, resolved: Resolved) -> Result<(), Refusal> {
    match resolved {
        Resolved::One(action, args) => target.table_modify(table, handle, &action, args).map_err(|e| refusal(&e)),
        Resolved::Select(members) => target.table_select(table, handle, members).map_err(|e| cannot_select(&e)),
    }
}

/// A target's refusal of a selection the server has checked: it cannot select (the hardware
/// target has no action selectors).
fn cannot_select(e: &p4_control::ControlError) -> Refusal {
    (Code::Unimplemented, e.to_string())
}

impl Entries {
    /// The table and handle of the installed entry with `entry`'s match (and priority), if any.
    pub fn handle_of(&self, catalog: &Catalog, ids: &ControlPlaneIds, entry: &TableEntry) -> Option<(usize, Handle)> {
        if entry.is_default_action {
            return None;
        }
        let table = table_index(ids, entry.table_id).ok()?;
        let key = check_entry(catalog, ids, table, entry).ok()?.key;
        self.tables[table].by_key.get(&key).map(|(h, _)| (table, *h))
    }

    /// The table `entry` names.
    pub fn table_of(&self, ids: &ControlPlaneIds, entry: &TableEntry) -> Result<usize, Refusal> {
        table_index(ids, entry.table_id)
    }

    /// Every installed entry with an idle timeout: table, handle, the entry as written.
    pub fn with_idle_timeouts(&self) -> impl Iterator<Item = (usize, Handle, &TableEntry)> {
        self.tables.iter().enumerate().flat_map(|(t, store)| {
            store.by_key.values().filter(|(_, e)| e.idle_timeout_ns > 0).map(move |(h, e)| (t, *h, e))
        })
    }

    /// Whether an entry points to what `what` names.
    pub fn in_use(&self, catalog: &Catalog, ids: &ControlPlaneIds, profiles: &Profiles, what: &Named) -> bool {
        self.using(catalog, ids, profiles, what).next().is_some()
    }

    /// The (table, canonical key) of every entry pointing to what `what` names.
    fn using<'a>(&'a self, catalog: &'a Catalog, ids: &'a ControlPlaneIds, profiles: &'a Profiles, what: &'a Named) -> impl Iterator<Item = (usize, &'a Vec<u8>)> + 'a {
        let of_profile = move |t: usize| catalog.tables[t].implementation.and_then(|e| ids.id(Target::Extern(p4_ir::ExternId(e as u32)))) == Some(what.profile);
        self.tables.iter().enumerate().filter(move |(t, _)| of_profile(*t)).flat_map(move |(t, store)| {
            store.by_key.iter().filter(move |(_, (_, e))| profiles.uses(e.action.as_ref(), what)).map(move |(k, _)| (t, k))
        })
    }

    /// Writes again every entry pointing to what `what` names (which changed).
    pub fn refresh(&self, target: &mut dyn ControlPlane, catalog: &Catalog, ids: &ControlPlaneIds, profiles: &Profiles, what: &Named) -> Result<(), Refusal> {
        let stale: Vec<(usize, Handle, Option<TableAction>)> = self
            .using(catalog, ids, profiles, what)
            .filter_map(|(t, k)| self.tables[t].by_key.get(k).map(|(h, e)| (t, *h, e.action.clone())))
            .collect();
        for (t, handle, action) in stale {
            let resolved = profiles.resolve(catalog, ids, t, action.as_ref())?;
            apply_action(target, &catalog.tables[t].name, handle, resolved)?;
        }
        Ok(())
    }
}

/// `canonical` as a read returns it, with `entry`'s action.
fn with_action(mut canonical: TableEntry, entry: &TableEntry) -> Result<TableEntry, Refusal> {
    canonical.action = Some(canonical_action(entry.action.as_ref())?);
    Ok(canonical)
}

fn refusal(e: &p4_control::ControlError) -> Refusal {
    match e {
        p4_control::ControlError::NotFound { .. } => (Code::NotFound, e.to_string()),
        _ => (Code::InvalidArgument, e.to_string()),
    }
}

fn table_index(ids: &ControlPlaneIds, id: u32) -> Result<usize, Refusal> {
    match ids.by_id(id).and_then(|o| o.targets.first()) {
        Some(Target::Table(t)) => Ok(t.index()),
        _ => refuse(Code::NotFound, format!("no table has id {id:#x}")),
    }
}

/// A byte string as a number that must fit `width` bits.
fn number(bytes: &[u8], width: u32, what: &str) -> Result<BigUint, Refusal> {
    if bytes.is_empty() {
        return refuse(Code::InvalidArgument, format!("{what}: empty byte string"));
    }
    let v = BigUint::from_bytes_be(bytes);
    if v.bits() > u64::from(width) {
        return refuse(Code::OutOfRange, format!("{what}: {v:#x} does not fit {width} bits"));
    }
    Ok(v)
}

fn bytes_of(v: &BigUint) -> Vec<u8> {
    v.to_bytes_be()
}

/// Checks `entry`'s match and priority against table `table`.
// Clients before P4Runtime 1.4 set the deprecated `controller_metadata`: it reads back as written.
#[allow(deprecated)]
fn check_entry(catalog: &Catalog, ids: &ControlPlaneIds, table: usize, entry: &TableEntry) -> Result<Checked, Refusal> {
    let info: &TableInfo = &catalog.tables[table];
    let fields = &info.key.fields;
    let mut given: BTreeMap<u32, &FieldMatch> = BTreeMap::new();
    for m in &entry.r#match {
        if !fields.iter().any(|f| f.id == m.field_id) {
            return refuse(Code::InvalidArgument, format!("table {} has no match field {}", info.name, m.field_id));
        }
        if given.insert(m.field_id, m).is_some() {
            return refuse(Code::InvalidArgument, format!("match field {} given twice", m.field_id));
        }
    }
    let mut keys = Vec::with_capacity(fields.len());
    let mut canonical = Vec::new();
    for f in fields {
        let id = f.id;
        let (key, m) = match given.get(&id) {
            None if f.match_kind == MatchKind::Exact => {
                return refuse(Code::InvalidArgument, format!("exact match field {} ({}) is missing", id, f.name))
            }
            None => (KeyValue::Wildcard, None),
            Some(m) => field(f, m)?,
        };
        keys.push(key);
        canonical.extend(m.map(|t| FieldMatch { field_id: id, field_match_type: Some(t) }));
    }
    match entry.idle_timeout_ns {
        0 => {}
        n if n < 0 => return refuse(Code::InvalidArgument, format!("idle_timeout_ns {n} is negative")),
        _ if !info.records_hits => return refuse(Code::InvalidArgument, format!("table {} has no support_timeout: its entries take no idle timeout", info.name)),
        _ => {}
    }
    let priority = match (info.key.priority_kind.is_some(), entry.priority) {
        (true, p) if p <= 0 => return refuse(Code::InvalidArgument, format!("table {} needs a priority above 0", info.name)),
        (true, p) => Some(i64::from(i32::MAX) - i64::from(p)),
        (false, 0) => None,
        (false, _) => return refuse(Code::InvalidArgument, format!("table {} takes no priority", info.name)),
    };
    let canonical = TableEntry {
        table_id: ids.id(Target::Table(p4_ir::TableId(table as u32))).unwrap_or(entry.table_id),
        r#match: canonical,
        priority: entry.priority,
        controller_metadata: entry.controller_metadata,
        metadata: entry.metadata.clone(),
        idle_timeout_ns: entry.idle_timeout_ns,
        ..Default::default()
    };
    let identity = TableEntry { r#match: canonical.r#match.clone(), priority: canonical.priority, ..Default::default() };
    Ok(Checked { canonical, key: identity.encode_to_vec(), keys, priority })
}

/// One match field: its key value and canonical form (`None`: a don't-care, which P4Runtime omits).
pub(super) fn field(f: &KeyField, m: &FieldMatch) -> Result<(KeyValue, Option<field_match::FieldMatchType>), Refusal> {
    use field_match::FieldMatchType as T;
    let w = f.width;
    let name = &f.name;
    let wrong = |given: &str| refuse(Code::InvalidArgument, format!("match field {name} is {}, not {given}", f.match_kind.name()));
    match (&f.match_kind, &m.field_match_type) {
        (MatchKind::Exact, Some(T::Exact(e))) => {
            let v = number(&e.value, w, name)?;
            Ok((KeyValue::Value(v.clone()), Some(T::Exact(field_match::Exact { value: bytes_of(&v) }))))
        }
        (MatchKind::Lpm, Some(T::Lpm(l))) => {
            let v = number(&l.value, w, name)?;
            if l.prefix_len <= 0 || l.prefix_len as u32 > w {
                return refuse(Code::InvalidArgument, format!("match field {name}: prefix length {} is not in 1..{w} (a don't-care is omitted)", l.prefix_len));
            }
            let len = l.prefix_len as u32;
            if v.clone() & ((BigUint::from(1u8) << (w - len)) - 1u8) != BigUint::default() {
                return refuse(Code::InvalidArgument, format!("match field {name}: {v:#x} has bits set past its /{len} prefix"));
            }
            Ok((KeyValue::Prefix(v.clone(), len), Some(T::Lpm(field_match::Lpm { value: bytes_of(&v), prefix_len: l.prefix_len }))))
        }
        (MatchKind::Ternary, Some(T::Ternary(t))) => {
            let v = number(&t.value, w, name)?;
            let mask = number(&t.mask, w, name)?;
            if mask == BigUint::default() {
                return refuse(Code::InvalidArgument, format!("match field {name}: an all-zero mask is a don't-care, which is omitted"));
            }
            if v.clone() & mask.clone() != v {
                return refuse(Code::InvalidArgument, format!("match field {name}: value {v:#x} has bits outside mask {mask:#x}"));
            }
            Ok((KeyValue::Masked(v.clone(), mask.clone()), Some(T::Ternary(field_match::Ternary { value: bytes_of(&v), mask: bytes_of(&mask) }))))
        }
        (MatchKind::Range, Some(T::Range(r))) => {
            let lo = number(&r.low, w, name)?;
            let hi = number(&r.high, w, name)?;
            if lo > hi {
                return refuse(Code::InvalidArgument, format!("match field {name}: range {lo:#x}..{hi:#x} is empty"));
            }
            if lo == BigUint::default() && hi == (BigUint::from(1u8) << w) - 1u8 {
                return refuse(Code::InvalidArgument, format!("match field {name}: the full range is a don't-care, which is omitted"));
            }
            Ok((KeyValue::Range(lo.clone(), hi.clone()), Some(T::Range(field_match::Range { low: bytes_of(&lo), high: bytes_of(&hi) }))))
        }
        (MatchKind::Optional, Some(T::Optional(o))) => {
            let v = number(&o.value, w, name)?;
            Ok((KeyValue::Value(v.clone()), Some(T::Optional(field_match::Optional { value: bytes_of(&v) }))))
        }
        (_, Some(T::Exact(_))) => wrong("exact"),
        (_, Some(T::Lpm(_))) => wrong("lpm"),
        (_, Some(T::Ternary(_))) => wrong("ternary"),
        (_, Some(T::Range(_))) => wrong("range"),
        (_, Some(T::Optional(_))) => wrong("optional"),
        (_, Some(T::Other(_))) => refuse(Code::Unimplemented, format!("match field {name}: other match types are not supported")),
        (_, None) => refuse(Code::InvalidArgument, format!("match field {name}: no match given")),
    }
}

/// The action of an entry (or a default entry) as a control-plane call: its name and arguments.
pub(super) fn action_call(
    catalog: &Catalog,
    ids: &ControlPlaneIds,
    table: usize,
    action: Option<&TableAction>,
    default: bool,
) -> Result<(String, ActionArgs), Refusal> {
    let info = &catalog.tables[table];
    let call = match action.and_then(|a| a.r#type.as_ref()) {
        Some(table_action::Type::Action(a)) => a,
        Some(_) => return refuse(Code::InvalidArgument, format!("table {} has no action profile: its entries name an action", info.name)),
        None => return refuse(Code::InvalidArgument, "the entry has no action"),
    };
    let Some(offered) = info.actions.iter().find(|a| ids.id(Target::Action(p4_ir::ActionId(a.action as u32))) == Some(call.action_id))
    else {
        return refuse(Code::InvalidArgument, format!("action id {:#x} is not an action of table {}", call.action_id, info.name));
    };
    if default && offered.table_only {
        return refuse(Code::PermissionDenied, format!("action {} is @tableonly in table {}", offered.name, info.name));
    }
    if !default && offered.default_only {
        return refuse(Code::PermissionDenied, format!("action {} is @defaultonly in table {}", offered.name, info.name));
    }
    let mut values: Vec<Option<BigUint>> = vec![None; offered.params.len()];
    for p in &call.params {
        let Some(position) = offered.params.iter().position(|x| x.id == p.param_id) else {
            return refuse(Code::InvalidArgument, format!("action {} has no parameter {}", offered.name, p.param_id));
        };
        let slot = &mut values[position];
        if slot.is_some() {
            return refuse(Code::InvalidArgument, format!("action {}: parameter {} given twice", offered.name, p.param_id));
        }
        let layout = &offered.params[position];
        *slot = Some(number(&p.value, layout.width, &format!("{} parameter {}", offered.name, layout.name))?);
    }
    let mut args = Vec::with_capacity(values.len());
    for (v, layout) in values.into_iter().zip(&offered.params) {
        match v {
            Some(v) => args.push(v),
            None => return refuse(Code::InvalidArgument, format!("action {}: parameter {} is missing", offered.name, layout.name)),
        }
    }
    Ok((offered.name.clone(), ActionArgs::Positional(args)))
}

/// The action as a read returns it: parameters in id order, values canonical (members and groups
/// as given).
fn canonical_action(action: Option<&TableAction>) -> Result<TableAction, Refusal> {
    let canonical = match action.and_then(|a| a.r#type.as_ref()) {
        Some(table_action::Type::Action(call)) => table_action::Type::Action(canonical_call(call)),
        Some(table_action::Type::ActionProfileActionSet(set)) => {
            let mut set = set.clone();
            for a in &mut set.action_profile_actions {
                a.action = a.action.as_ref().map(canonical_call);
            }
            table_action::Type::ActionProfileActionSet(set)
        }
        Some(other) => other.clone(),
        None => return refuse(Code::InvalidArgument, "the entry has no action"),
    };
    Ok(TableAction { r#type: Some(canonical) })
}

/// An action call as a read returns it: parameters in id order, values canonical.
pub(super) fn canonical_call(call: &Action) -> Action {
    let mut params = call.params.clone();
    params.sort_by_key(|p| p.param_id);
    for p in &mut params {
        p.value = bytes_of(&BigUint::from_bytes_be(&p.value));
    }
    Action { action_id: call.action_id, params }
}

impl Entries {
    /// Takes the entries `target` already holds (the program's own `entries`, or entries a file
    /// loaded before the server started) into the store, so that reads return them: each in
    /// canonical form, with priorities that keep the target's precedence (the first entry gets
    /// the highest), `is_const` for a table whose entries the program fixes.
    pub fn adopt(&mut self, target: &dyn ControlPlane, catalog: &Catalog, ids: &ControlPlaneIds) {
        for (t, info) in catalog.tables.iter().enumerate() {
            let Some(snapshot) = target.table_contents(t) else { continue };
            let count = snapshot.entries.len();
            let table_id = ids.id(Target::Table(p4_ir::TableId(t as u32))).unwrap_or(0);
            for (position, e) in snapshot.entries.iter().enumerate() {
                let Some(offered) = info.actions.get(e.action) else { continue };
                let r#match = info
                    .key
                    .fields
                    .iter()
                    .zip(&e.matches)
                    .filter_map(|(f, m)| snapshot_match(f, m).map(|t| FieldMatch { field_id: f.id, field_match_type: Some(t) }))
                    .collect();
                let action = Action {
                    action_id: ids.id(Target::Action(p4_ir::ActionId(offered.action as u32))).unwrap_or(0),
                    params: offered
                        .params
                        .iter()
                        .zip(&e.args)
                        .map(|(p, v)| crate::proto::p4::v1::action::Param { param_id: p.id, value: canonical_bytes(*v, p.width) })
                        .collect(),
                };
                let entry = TableEntry {
                    table_id,
                    r#match,
                    action: Some(TableAction { r#type: Some(table_action::Type::Action(action)) }),
                    priority: if info.key.priority_kind.is_some() { (count - position) as i32 } else { 0 },
                    is_const: info.entries_const,
                    ..Default::default()
                };
                let identity = TableEntry { r#match: entry.r#match.clone(), priority: entry.priority, ..Default::default() };
                self.tables[t].by_key.insert(identity.encode_to_vec(), (e.handle, entry));
            }
        }
    }
}

/// One key field of an installed entry as P4Runtime writes it; `None` for a don't-care.
fn snapshot_match(f: &KeyField, m: &p4_control::Match) -> Option<field_match::FieldMatchType> {
    use field_match::FieldMatchType as T;
    let bytes = |v: u128| canonical_bytes(v, f.width);
    let full = if f.width >= 128 { u128::MAX } else { (1u128 << f.width) - 1 };
    match (&f.match_kind, *m) {
        (MatchKind::Exact, p4_control::Match::Mask(v, _)) => Some(T::Exact(field_match::Exact { value: bytes(v) })),
        (_, p4_control::Match::Mask(_, 0)) => None,
        (MatchKind::Lpm, p4_control::Match::Mask(v, mask)) => Some(T::Lpm(field_match::Lpm { value: bytes(v), prefix_len: mask.count_ones() as i32 })),
        (MatchKind::Optional, p4_control::Match::Mask(v, _)) => Some(T::Optional(field_match::Optional { value: bytes(v) })),
        (MatchKind::Range, p4_control::Match::Range(0, hi)) if hi == full => None,
        (_, p4_control::Match::Range(lo, hi)) => Some(T::Range(field_match::Range { low: bytes(lo), high: bytes(hi) })),
        (_, p4_control::Match::Mask(v, mask)) => Some(T::Ternary(field_match::Ternary { value: bytes(v), mask: bytes(mask) })),
    }
}

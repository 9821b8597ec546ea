//! Parser value sets (`ValueSetEntry`, which BMv2's server answers UNIMPLEMENTED): a MODIFY replaces
//! a set's members with the ones given, all or nothing; a read returns the members as written, in
//! canonical form. Each member is one field (id 1, as the p4info lists it) matched exactly, by
//! ternary value and mask, or by prefix.

use std::collections::BTreeMap;

use p4_control::catalog::Catalog;
use p4_control::{ControlPlane, KeyValue};
use p4_ir::layout::{ControlPlaneIds, KeyField, Target};
use p4_ir::MatchKind;
use tonic::Code;

use super::tables::{field, Refusal};
use crate::proto::p4::v1::{field_match::FieldMatchType as T, update, FieldMatch, ValueSetEntry, ValueSetMember};

/// The members of every value set written, canonical, by value set index.
#[derive(Default)]
pub struct ValueSets {
    members: BTreeMap<usize, Vec<ValueSetMember>>,
}

/// The value set index of `id`.
fn index_of(catalog: &Catalog, ids: &ControlPlaneIds, id: u32) -> Result<usize, Refusal> {
    (0..catalog.value_sets.len())
        .find(|i| ids.id(Target::ValueSet(p4_ir::ValueSetId(*i as u32))) == Some(id))
        .ok_or_else(|| (Code::NotFound, format!("no value set with id {id:#x}")))
}

impl ValueSets {
    /// A `ValueSetEntry` update: MODIFY replaces the members; on any refusal the set keeps the
    /// members it had.
    pub fn write(&mut self, target: &mut dyn ControlPlane, catalog: &Catalog, ids: &ControlPlaneIds, kind: update::Type, entry: &ValueSetEntry) -> Result<(), Refusal> {
        if kind != update::Type::Modify {
            return Err((Code::InvalidArgument, "a value set is only modified (its members replaced); INSERT and DELETE do not apply".to_string()));
        }
        let index = index_of(catalog, ids, entry.value_set_id)?;
        let set = &catalog.value_sets[index];
        if set.size > 0 && entry.members.len() > set.size {
            return Err((Code::ResourceExhausted, format!("value set {} holds {} members, not {}", set.name, set.size, entry.members.len())));
        }
        let mut values = Vec::with_capacity(entry.members.len());
        let mut canonical = Vec::with_capacity(entry.members.len());
        for member in &entry.members {
            let (value, m) = self::member(&set.name, set.width, member)?;
            if canonical.contains(&m) {
                return Err((Code::InvalidArgument, format!("value set {}: a member given twice", set.name)));
            }
            values.push(value);
            canonical.push(m);
        }
        let control = |e: p4_control::ControlError| (Code::InvalidArgument, e.to_string());
        target.value_set_clear(&set.name).map_err(control)?;
        for (k, value) in values.into_iter().enumerate() {
            if let Err(e) = target.value_set_add(&set.name, value) {
                // Back to the members it had.
                let _ = target.value_set_clear(&set.name);
                for old in self.members.get(&index).into_iter().flatten() {
                    if let Ok((v, _)) = self::member(&set.name, set.width, old) {
                        let _ = target.value_set_add(&set.name, v);
                    }
                }
                return Err((Code::InvalidArgument, format!("value set {} member {k}: {e}", set.name)));
            }
        }
        self.members.insert(index, canonical);
        Ok(())
    }

    /// The value sets `entry` asks for (every one for id 0), with their members.
    pub fn read(&self, catalog: &Catalog, ids: &ControlPlaneIds, entry: &ValueSetEntry) -> Result<Vec<ValueSetEntry>, Refusal> {
        let wanted = match entry.value_set_id {
            0 => (0..catalog.value_sets.len()).collect(),
            id => vec![index_of(catalog, ids, id)?],
        };
        Ok(wanted
            .into_iter()
            .map(|i| ValueSetEntry {
                value_set_id: ids.id(Target::ValueSet(p4_ir::ValueSetId(i as u32))).unwrap_or(0),
                members: self.members.get(&i).cloned().unwrap_or_default(),
            })
            .collect())
    }
}

/// One member: its value for the control-plane API and its canonical form.
fn member(name: &str, width: u32, member: &ValueSetMember) -> Result<(KeyValue, ValueSetMember), Refusal> {
    let [m] = &member.r#match[..] else {
        return Err((Code::InvalidArgument, format!("value set {name}: a member is one match field (id 1), not {}", member.r#match.len())));
    };
    if m.field_id != 1 {
        return Err((Code::InvalidArgument, format!("value set {name} has no match field {}", m.field_id)));
    }
    let match_kind = match &m.field_match_type {
        Some(T::Ternary(_)) => MatchKind::Ternary,
        Some(T::Lpm(_)) => MatchKind::Lpm,
        _ => MatchKind::Exact,
    };
    let key = KeyField { name: name.to_string(), index: 0, width, match_kind, bit_offset: 0, is_valid: false, id: 1 };
    let (value, canonical) = field(&key, m)?;
    let canonical = ValueSetMember { r#match: vec![FieldMatch { field_id: 1, field_match_type: canonical }] };
    Ok((value, canonical))
}

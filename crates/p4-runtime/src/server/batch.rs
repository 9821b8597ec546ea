//! A Write's updates applied to the pipeline, in one of the three atomicity modes.
//!
//! - CONTINUE_ON_ERROR: every update is tried; each reports its own outcome.
//! - ROLLBACK_ON_ERROR: before an update is applied, its inverse (the updates that would put back
//!   what it changes, read from the state it is about to change) is recorded; when one fails, the
//!   applied ones are undone newest first. The failed update reports its error, the others ABORTED
//!   (rolled back, or not attempted).
//! - DATAPLANE_ATOMIC: the same, and no packet sees a state between: the packet loop takes the
//!   device lock for each batch of packets and a Write holds it from its first update through any
//!   rollback, so packets are processed with the tables as they were before or after the Write.

use tonic::Code;

use super::tables::Refusal;
use super::profiles::Named;
use super::{cells, Pipeline, Target};
use crate::proto::p4::v1 as p4v1;
use p4v1::entity::Entity as E;
use p4v1::update::Type;
use p4v1::write_request::Atomicity;
use p4v1::{DirectCounterEntry, DirectMeterEntry, PacketReplicationEngineEntry, TableEntry};

/// Updates that undo one applied update, in the order to apply them.
type Inverse = Vec<(Type, E)>;

fn entity_of(update: &p4v1::Update) -> Option<&E> {
    update.entity.as_ref().and_then(|e| e.entity.as_ref())
}

impl<T: Target> Pipeline<T> {
    /// Applies the updates of one Write; one outcome per update.
    /// `allowed` refuses the entities the writer may not write (its role's scope).
    pub(super) fn write_batch(
        &mut self,
        updates: &[p4v1::Update],
        atomicity: Atomicity,
        allowed: &dyn Fn(&E) -> Result<(), Refusal>,
    ) -> Vec<Result<(), Refusal>> {
        let kind_of = |u: &p4v1::Update| Type::try_from(u.r#type).unwrap_or(Type::Unspecified);
        let permitted = |u: &p4v1::Update| entity_of(u).map_or(Ok(()), allowed);
        if atomicity == Atomicity::ContinueOnError {
            return updates.iter().map(|u| permitted(u).and_then(|()| self.apply(kind_of(u), entity_of(u)))).collect();
        }
        let mut undo: Vec<Inverse> = Vec::with_capacity(updates.len());
        for (i, u) in updates.iter().enumerate() {
            let (kind, entity) = (kind_of(u), entity_of(u));
            let applied = permitted(u).and_then(|()| self.inverse(kind, entity)).and_then(|inverse| self.apply(kind, entity).map(|()| inverse));
            match applied {
                Ok(inverse) => undo.push(inverse),
                Err(refusal) => return self.roll_back(undo, i, refusal, updates.len()),
            }
        }
        updates.iter().map(|_| Ok(())).collect()
    }

    /// Undoes the updates before `failed` (newest first) and reports the batch: `refusal` for the
    /// failed update, ABORTED for the others.
    fn roll_back(&mut self, undo: Vec<Inverse>, failed: usize, refusal: Refusal, count: usize) -> Vec<Result<(), Refusal>> {
        let mut undo_error = None;
        for (kind, entity) in undo.into_iter().rev().flatten() {
            if let Err((_, why)) = self.apply(kind, Some(&entity)) {
                undo_error.get_or_insert(why);
            }
        }
        (0..count)
            .map(|i| match i {
                _ if i == failed => Err(refusal.clone()),
                _ if i > failed => Err((Code::Aborted, format!("not attempted: update {failed} of the batch failed"))),
                _ => Err(match &undo_error {
                    None => (Code::Aborted, format!("rolled back: update {failed} of the batch failed")),
                    Some(why) => (Code::Internal, format!("update {failed} of the batch failed and the rollback did not complete: {why}")),
                }),
            })
            .collect()
    }

    /// What undoes `kind` of `entity`, read from the state before it. An update that cannot apply
    /// needs none (it fails by itself).
    fn inverse(&mut self, kind: Type, entity: Option<&E>) -> Result<Inverse, Refusal> {
        let Some(entity) = entity else { return Ok(Vec::new()) };
        let prior = |this: &mut Self, to: Type| -> Result<Inverse, Refusal> { Ok(this.read_entity(Some(entity))?.into_iter().map(|e| (to, e)).collect()) };
        match (entity, kind) {
            (_, Type::Unspecified) => Ok(Vec::new()),
            (E::TableEntry(e), Type::Delete) if !e.is_default_action => self.deleted_entry(e),
            (E::TableEntry(e), Type::Insert) => Ok(vec![(Type::Delete, E::TableEntry(e.clone()))]),
            (E::PacketReplicationEngineEntry(e), Type::Insert) => Ok(vec![(Type::Delete, E::PacketReplicationEngineEntry(e.clone()))]),
            (E::DigestEntry(e), Type::Insert) => Ok(vec![(Type::Delete, E::DigestEntry(*e))]),
            (E::ActionProfileMember(e), Type::Insert) => Ok(vec![(Type::Delete, E::ActionProfileMember(e.clone()))]),
            (E::ActionProfileGroup(e), Type::Insert) => Ok(vec![(Type::Delete, E::ActionProfileGroup(e.clone()))]),
            (E::TableEntry(_) | E::PacketReplicationEngineEntry(_) | E::DigestEntry(_) | E::ActionProfileMember(_) | E::ActionProfileGroup(_), Type::Delete) => {
                prior(self, Type::Insert)
            }
            (_, Type::Modify) => prior(self, Type::Modify),
            _ => Ok(Vec::new()),
        }
    }

    /// What puts back a table entry about to be deleted: the entry, then its direct counter's
    /// counts and its direct meter's config.
    fn deleted_entry(&mut self, entry: &TableEntry) -> Result<Inverse, Refusal> {
        let mut inverse: Inverse = self.read_entity(Some(&E::TableEntry(entry.clone())))?.into_iter().map(|e| (Type::Insert, e)).collect();
        if inverse.is_empty() {
            return Ok(inverse);
        }
        let key = Some(entry.clone());
        // A table without the resource answers an error: it has nothing to put back.
        let counter = E::DirectCounterEntry(DirectCounterEntry { table_entry: key.clone(), data: None });
        inverse.extend(self.read_entity(Some(&counter)).unwrap_or_default().into_iter().map(|e| (Type::Modify, e)));
        let meter = E::DirectMeterEntry(DirectMeterEntry { table_entry: key, ..Default::default() });
        inverse.extend(self.read_entity(Some(&meter)).unwrap_or_default().into_iter().map(|e| (Type::Modify, e)));
        Ok(inverse)
    }

    /// Applies one INSERT, MODIFY or DELETE.
    pub(super) fn apply(&mut self, kind: Type, entity: Option<&E>) -> Result<(), Refusal> {
        let (target, catalog, ids) = (&mut self.target, &self.catalog, &self.ids);
        let modify_only = |what: &str| -> Result<(), Refusal> {
            match kind {
                Type::Modify => Ok(()),
                _ => Err((Code::InvalidArgument, format!("{what} can only be modified (INSERT and DELETE do not apply)"))),
            }
        };
        match entity {
            Some(E::TableEntry(entry)) => {
                // Only a table that records hits has idle timers to keep (a table without
                // support_timeout refuses an idle timeout with the entry's other checks).
                let Some(table) = self.entries.table_of(ids, entry).ok().filter(|t| catalog.tables[*t].records_hits) else {
                    return self.entries.write(target, catalog, ids, kind, entry, &self.profiles);
                };
                let now = std::time::Instant::now();
                let before = self.entries.handle_of(catalog, ids, entry);
                if entry.idle_timeout_ns > 0 && kind != Type::Delete {
                    // The target must record hits; what it recorded so far counts.
                    self.idle.take(target, catalog, table, now)?;
                }
                self.entries.write(target, catalog, ids, kind, entry, &self.profiles)?;
                self.idle.written(before, self.entries.handle_of(catalog, ids, entry), now);
                Ok(())
            }
            Some(E::ActionProfileMember(m)) => {
                let named = Named { profile: m.action_profile_id, member: Some(m.member_id), group: None };
                let in_use = self.entries.in_use(catalog, ids, &self.profiles, &named);
                self.profiles.write_member(catalog, ids, kind, m, in_use)?;
                self.entries.refresh(target, catalog, ids, &self.profiles, &named)
            }
            Some(E::ActionProfileGroup(g)) => {
                let named = Named { profile: g.action_profile_id, member: None, group: Some(g.group_id) };
                let in_use = self.entries.in_use(catalog, ids, &self.profiles, &named);
                let profiles = self.config.p4info.as_ref().map_or(&[][..], |i| &i.action_profiles[..]);
                let limit = profiles.iter().find(|p| p.preamble.as_ref().is_some_and(|x| x.id == g.action_profile_id)).map_or(0, |p| p.max_group_size);
                self.profiles.write_group(catalog, ids, kind, g, in_use, limit)?;
                self.entries.refresh(target, catalog, ids, &self.profiles, &named)
            }
            Some(E::CounterEntry(entry)) => modify_only("a counter").and_then(|()| cells::write_counter(target, catalog, ids, entry)),
            Some(E::DirectCounterEntry(entry)) => modify_only("a direct counter").and_then(|()| cells::write_direct(target, catalog, ids, &self.entries, entry)),
            Some(E::RegisterEntry(entry)) => modify_only("a register").and_then(|()| cells::write_register(target, catalog, ids, entry)),
            Some(E::PacketReplicationEngineEntry(PacketReplicationEngineEntry { r#type: Some(entry) })) => self.replication.write(target, catalog, kind, entry),
            Some(E::MeterEntry(entry)) => modify_only("a meter").and_then(|()| self.meters.write(target, catalog, ids, entry)),
            Some(E::DirectMeterEntry(entry)) => {
                modify_only("a direct meter").and_then(|()| self.meters.write_direct(target, catalog, ids, &self.entries, entry))
            }
            Some(E::DigestEntry(_)) if kind != Type::Delete && !target.sends_digests() => {
                Err((Code::Unimplemented, "this target sends no digests (the hardware target has no digest path)".to_string()))
            }
            Some(E::DigestEntry(entry)) => self.digests.write(kind, entry),
            Some(E::ValueSetEntry(entry)) => self.value_sets.write(target, catalog, ids, kind, entry),
            Some(_) => Err((Code::Unimplemented, "this entity cannot be written yet".to_string())),
            None => Err((Code::InvalidArgument, "an update without an entity".to_string())),
        }
    }

    /// The entities a read of `entity` returns.
    pub(super) fn read_entity(&mut self, entity: Option<&E>) -> Result<Vec<E>, Refusal> {
        let (target, catalog, ids) = (&mut self.target, &self.catalog, &self.ids);
        Ok(match entity {
            Some(E::TableEntry(entry)) if !entry.is_default_action => {
                let mut found = match entry.counter_data.is_some() || entry.meter_config.is_some() {
                    true => cells::entries_with_resources(target, catalog, ids, &self.entries, &self.meters, entry)?,
                    false => self.entries.read(catalog, ids, entry)?,
                };
                if entry.time_since_last_hit.is_some() {
                    // Hits up to now count.
                    let now = std::time::Instant::now();
                    self.idle.poll(target, catalog, now);
                    let handles = self.entries.matching(catalog, ids, entry)?;
                    for (e, (table, handle, _)) in found.iter_mut().zip(handles) {
                        let elapsed = self.idle.since_last_hit(table, handle, now).filter(|_| catalog.tables[table].records_hits);
                        e.time_since_last_hit = elapsed.map(|d| p4v1::table_entry::IdleTimeout { elapsed_ns: d.as_nanos() as i64 });
                    }
                }
                found.into_iter().map(E::TableEntry).collect()
            }
            Some(E::TableEntry(entry)) => self.entries.read(catalog, ids, entry)?.into_iter().map(E::TableEntry).collect(),
            Some(E::CounterEntry(entry)) => cells::read_counters(target, catalog, ids, entry)?.into_iter().map(E::CounterEntry).collect(),
            Some(E::DirectCounterEntry(entry)) => cells::read_direct(target, catalog, ids, &self.entries, entry)?.into_iter().map(E::DirectCounterEntry).collect(),
            Some(E::RegisterEntry(entry)) => cells::read_registers(target, catalog, ids, entry)?.into_iter().map(E::RegisterEntry).collect(),
            Some(E::MeterEntry(entry)) => self.meters.read(catalog, ids, entry)?.into_iter().map(E::MeterEntry).collect(),
            Some(E::DirectMeterEntry(entry)) => self.meters.read_direct(catalog, ids, &self.entries, entry)?.into_iter().map(E::DirectMeterEntry).collect(),
            Some(E::PacketReplicationEngineEntry(PacketReplicationEngineEntry { r#type: Some(entry) })) => self
                .replication
                .read(entry)
                .into_iter()
                .map(|e| E::PacketReplicationEngineEntry(PacketReplicationEngineEntry { r#type: Some(e) }))
                .collect(),
            Some(E::DigestEntry(entry)) => self.digests.read(entry).into_iter().map(E::DigestEntry).collect(),
            Some(E::ActionProfileMember(m)) => self.profiles.read_members(m).into_iter().map(E::ActionProfileMember).collect(),
            Some(E::ActionProfileGroup(g)) => self.profiles.read_groups(g).into_iter().map(E::ActionProfileGroup).collect(),
            Some(E::ValueSetEntry(entry)) => self.value_sets.read(catalog, ids, entry)?.into_iter().map(E::ValueSetEntry).collect(),
            Some(_) => return Err((Code::Unimplemented, "this entity cannot be read yet".to_string())),
            None => return Err((Code::InvalidArgument, "a read of an empty entity".to_string())),
        })
    }
}

//! The control-plane model: everything a controller can set or read of a program's dataplane,
//! held without a dataplane. A target that keeps its tables elsewhere (the hardware target keeps
//! them in the design's memories) applies each call here first and then loads what changed from
//! the snapshots; the state is the one the software switch keeps for the same calls.

use std::collections::BTreeMap;

use num_bigint::BigUint;

use crate::catalog::Catalog;
use crate::convert::invalid;
use crate::entries::EntryStore;
use crate::replication::Replication;
use crate::requests::Cells;
use crate::snapshot::TableSnapshot;
use crate::{ActionArgs, ControlError, ControlPlane, Handle, KeyValue, Keys, MeterRate, Mirror};

/// A program's control-plane state.
#[derive(Clone, Debug)]
pub struct ControlState {
    catalog: Catalog,
    tables: Vec<EntryStore>,
    replication: Replication,
    /// By extern index: the register cells written (a cell not here holds 0). Sparse, as P4
    /// allows arrays of 2^32 cells.
    registers: Vec<BTreeMap<u64, u128>>,
    /// By extern index: the counter cells written (a cell not here holds no counts).
    counters: Vec<BTreeMap<u64, (u64, u64)>>,
    /// By value set index: members as (value, mask), in the order they were added.
    value_sets: Vec<Vec<(u128, u128)>>,
    /// Tables take no more entries than their size (see [`ControlState::ignore_table_sizes`]).
    sizes_enforced: bool,
}

impl ControlState {
    /// The state of a program just loaded: its own defaults and entries installed.
    pub fn new(catalog: Catalog) -> Result<ControlState, String> {
        let mut tables = Vec::new();
        for t in &catalog.tables {
            let mut store = EntryStore::new(t.precedence());
            store.set_default(t.initial_default.0, t.initial_default.1.clone());
            for (pos, e) in t.initial_entries.iter().enumerate() {
                let entry = crate::requests::NewEntry {
                    matches: e.matches.clone(),
                    priority: e.priority,
                    action: e.action,
                    args: e.args.clone(),
                };
                store.insert(entry).map_err(|m| format!("table {}: entry {}: {m}", t.name, pos + 1))?;
            }
            tables.push(store);
        }
        let registers = vec![BTreeMap::new(); catalog.externs.len()];
        let counters = vec![BTreeMap::new(); catalog.externs.len()];
        let value_sets = vec![Vec::new(); catalog.value_sets.len()];
        Ok(ControlState {
            catalog,
            tables,
            replication: Replication::default(),
            registers,
            counters,
            value_sets,
            sizes_enforced: true,
        })
    }

    /// Lets tables take entries beyond their size (as the software switch allows on request).
    pub fn ignore_table_sizes(&mut self) {
        self.sizes_enforced = false;
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The contents of table `table` (by [`p4_ir::TableId`] index) in precedence order.
    pub fn table_snapshot(&self, table: usize) -> Option<TableSnapshot> {
        Some(self.tables.get(table)?.snapshot())
    }

    /// Every multicast group with its copies ((replication id, port) in order), by group id.
    pub fn multicast_groups(&self) -> Vec<(u32, Vec<(u32, u32)>)> {
        self.replication.multicast_groups()
    }

    /// Every clone session and where it sends copies, by session id.
    pub fn mirror_sessions(&self) -> Vec<(u32, Mirror)> {
        self.replication.mirror_sessions()
    }

    /// Notes that a packet hit entry `handle` of table `table` (by index), for a table that
    /// records hits.
    pub fn mark_hit(&mut self, table: usize, handle: Handle) {
        if self.catalog.tables.get(table).is_some_and(|t| t.records_hits) {
            self.tables[table].mark_hit(handle);
        }
    }

    /// The members entry `handle` of table `table` (by index) chooses among, if it is an action
    /// selector's group entry.
    pub fn members(&self, table: usize, handle: Handle) -> Option<&[(usize, Vec<u128>)]> {
        self.tables.get(table)?.members(handle)
    }

    /// The bytes clone session `session`'s copies are cut to, if it truncates.
    pub fn mirror_truncation(&self, session: u32) -> Option<u32> {
        self.replication.truncation(session)
    }

    /// The members of value set `index` as (value, mask), in the order they were added.
    pub fn value_set_members(&self, index: usize) -> Vec<(u128, u128)> {
        self.value_sets.get(index).cloned().unwrap_or_default()
    }

    /// The largest port the program's port fields hold.
    pub fn max_port(&self) -> u32 {
        self.catalog.max_port
    }

    /// `Err` unless counter `id` has a cell `index`.
    fn counter_cell(&self, id: usize, name: &str, index: u64) -> Result<(), ControlError> {
        match index < self.catalog.externs[id].size {
            true => Ok(()),
            false => invalid(format!("counter {name}: index {index} out of range")),
        }
    }
}

fn table_error(name: &str) -> impl Fn(String) -> ControlError + '_ {
    move |m| ControlError::Invalid(format!("table {name}: {m}"))
}

impl ControlPlane for ControlState {
    fn control_catalog(&self) -> Option<&Catalog> {
        Some(&self.catalog)
    }

    fn table_contents(&self, table: usize) -> Option<TableSnapshot> {
        self.table_snapshot(table)
    }

    fn table_add(
        &mut self,
        table: &str,
        keys: Keys,
        action: &str,
        args: ActionArgs,
        priority: Option<i64>,
    ) -> Result<Handle, ControlError> {
        let (ti, entry) = self.catalog.entry_to_add(table, &keys, action, &args, priority)?;
        if self.sizes_enforced {
            self.catalog.check_room(ti, self.tables[ti].len())?;
        }
        self.tables[ti].insert(entry).map_err(table_error(&self.catalog.tables[ti].name))
    }

    fn table_modify(
        &mut self,
        table: &str,
        handle: Handle,
        action: &str,
        args: ActionArgs,
    ) -> Result<(), ControlError> {
        let (ti, ai, data) = self.catalog.action_to_modify(table, action, &args)?;
        if !self.tables[ti].set_action(handle, ai, data) {
            return invalid(format!("table {}: no entry with handle {handle}", self.catalog.tables[ti].name));
        }
        Ok(())
    }

    fn take_hits(&mut self, table: &str) -> Result<Vec<Handle>, ControlError> {
        let ti = self.catalog.table_recording_hits(table)?;
        Ok(self.tables[ti].take_hits())
    }

    fn table_select(&mut self, table: &str, handle: Handle, members: Vec<(String, ActionArgs)>) -> Result<(), ControlError> {
        let (ti, chosen) = self.catalog.members_to_select(table, &members)?;
        if !self.tables[ti].set_members(handle, chosen) {
            return invalid(format!("table {}: no entry with handle {handle}", self.catalog.tables[ti].name));
        }
        Ok(())
    }

    fn table_delete(&mut self, table: &str, handle: Handle) -> Result<(), ControlError> {
        let ti = self.catalog.table_index(table)?;
        self.tables[ti].remove(handle).map_err(table_error(&self.catalog.tables[ti].name))
    }

    fn table_clear(&mut self, table: &str) -> Result<(), ControlError> {
        let ti = self.catalog.table_to_clear(table)?;
        self.tables[ti].clear();
        Ok(())
    }

    fn table_set_default(&mut self, table: &str, action: &str, args: ActionArgs) -> Result<(), ControlError> {
        let (ti, ai, data) = self.catalog.default_to_set(table, action, &args)?;
        self.tables[ti].set_default(ai, data);
        Ok(())
    }

    fn mc_mgrp_create(&mut self, group: u32) -> Result<(), ControlError> {
        self.replication.create_group(&self.catalog, group)
    }

    fn mc_mgrp_destroy(&mut self, group: u32) -> Result<(), ControlError> {
        self.replication.mc_mgrp_destroy(group)
    }

    fn mc_node_create(&mut self, rid: u32, ports: &[u32]) -> Result<Handle, ControlError> {
        self.replication.create_node(&self.catalog, rid, ports)
    }

    fn mc_node_update(&mut self, node: Handle, ports: &[u32]) -> Result<(), ControlError> {
        self.replication.update_node(&self.catalog, node, ports)
    }

    fn mc_node_associate(&mut self, group: u32, node: Handle) -> Result<(), ControlError> {
        self.replication.mc_node_associate(group, node)
    }

    fn mc_node_dissociate(&mut self, group: u32, node: Handle) -> Result<(), ControlError> {
        self.replication.mc_node_dissociate(group, node)
    }

    fn mc_node_destroy(&mut self, node: Handle) -> Result<(), ControlError> {
        self.replication.mc_node_destroy(node)
    }

    fn mirroring_add(&mut self, session: u32, port: u32) -> Result<(), ControlError> {
        self.replication.mirror_to_port(&self.catalog, session, port)
    }

    fn mirroring_add_mc(&mut self, session: u32, group: u32) -> Result<(), ControlError> {
        self.replication.mirror_to_group(&self.catalog, session, group)
    }

    fn mirroring_delete(&mut self, session: u32) -> Result<(), ControlError> {
        self.replication.mirroring_delete(session)
    }

    fn mirroring_truncate(&mut self, session: u32, bytes: Option<u32>) -> Result<(), ControlError> {
        self.replication.mirroring_truncate(session, bytes)
    }

    fn register_read(&mut self, register: &str, index: u64) -> Result<BigUint, ControlError> {
        let id = self.catalog.register_index(register)?;
        self.catalog.register_cell(id, register, index)?;
        Ok(BigUint::from(self.registers[id].get(&index).copied().unwrap_or(0)))
    }

    fn register_write(&mut self, register: &str, index: u64, value: BigUint) -> Result<(), ControlError> {
        let id = self.catalog.register_index(register)?;
        let v = self.catalog.register_value(id, register, index, &value)?;
        self.registers[id].insert(index, v);
        Ok(())
    }

    fn register_reset(&mut self, register: &str) -> Result<(), ControlError> {
        let id = self.catalog.register_index(register)?;
        self.registers[id].clear();
        Ok(())
    }

    fn counter_read(&mut self, counter: &str, index: u64) -> Result<(u64, u64), ControlError> {
        match self.catalog.counter_cells(counter)? {
            Cells::PerEntry(ti) => self.tables[ti].counts(index).ok_or_else(|| {
                ControlError::Invalid(format!("direct counter {counter}: no entry with handle {index}"))
            }),
            Cells::Indexed(id) => {
                self.counter_cell(id, counter, index)?;
                Ok(self.counters[id].get(&index).copied().unwrap_or((0, 0)))
            }
        }
    }

    fn counter_write(&mut self, counter: &str, index: u64, packets: u64, bytes: u64) -> Result<(), ControlError> {
        match self.catalog.counter_cells(counter)? {
            Cells::PerEntry(ti) => match self.tables[ti].set_counts(index, (packets, bytes)) {
                true => Ok(()),
                false => invalid(format!("direct counter {counter}: no entry with handle {index}")),
            },
            Cells::Indexed(id) => {
                self.counter_cell(id, counter, index)?;
                self.counters[id].insert(index, (packets, bytes));
                Ok(())
            }
        }
    }

    fn counter_reset(&mut self, counter: &str) -> Result<(), ControlError> {
        match self.catalog.counter_cells(counter)? {
            Cells::PerEntry(ti) => self.tables[ti].reset_counts(),
            Cells::Indexed(id) => self.counters[id].clear(),
        }
        Ok(())
    }

    /// Checks the meter and the index; the model keeps no meter state (rates only matter to a
    /// dataplane metering packets).
    fn meter_set_rates(&mut self, meter: &str, index: Option<u64>, rates: &[MeterRate]) -> Result<(), ControlError> {
        let cells = self.catalog.meter_cells(meter)?;
        if rates.len() != 2 {
            return invalid(format!("meter {meter}: give two rates (committed, peak)"));
        }
        match (cells, index) {
            (Cells::PerEntry(ti), Some(h)) if !self.tables[ti].contains(h) => {
                invalid(format!("direct meter {meter}: no entry with handle {h}"))
            }
            (Cells::Indexed(id), Some(i)) if i >= self.catalog.externs[id].size => {
                invalid(format!("meter {meter}: index {i} out of range"))
            }
            _ => Ok(()),
        }
    }

    fn value_set_add(&mut self, value_set: &str, value: KeyValue) -> Result<(), ControlError> {
        let sets = &self.value_sets;
        let (i, v, m) = self.catalog.value_set_member(value_set, &value, |i| sets[i].len())?;
        self.value_sets[i].push((v, m));
        Ok(())
    }

    fn value_set_clear(&mut self, value_set: &str) -> Result<(), ControlError> {
        let i = self.catalog.value_set_index(value_set)?;
        self.value_sets[i].clear();
        Ok(())
    }
}

//! The control-plane API ([`ControlPlane`]) of [`Switch`]: each call is checked and converted by
//! the program's [`p4_control::Catalog`] (the same checks and words as every other target), then
//! applied to the switch's own state: its table indexes, extern cells and value sets, and the
//! replication state the traffic manager reads.

use num_bigint::BigUint;

use crate::control::{ActionArgs, ControlError, ControlPlane, Handle, KeyValue, Keys, MeterRate};
use crate::fast::exec::ExternState;
use crate::switch::Switch;
use crate::table::Entry;
use p4_control::requests::Cells;

fn invalid<T>(msg: impl Into<String>) -> Result<T, ControlError> {
    Err(ControlError::Invalid(msg.into()))
}

impl ControlPlane for Switch {
    fn control_catalog(&self) -> Option<&p4_control::Catalog> {
        Some(&self.catalog)
    }

    fn table_contents(&self, table: usize) -> Option<p4_control::TableSnapshot> {
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
        let (ti, e) = self.catalog.entry_to_add(table, &keys, action, &args, priority)?;
        if self.sizes_enforced {
            self.catalog.check_room(ti, self.ctx.tables[ti].live())?;
        }
        let entry = Entry {
            matches: e.matches,
            priority: e.priority,
            action: e.action,
            args: e.args,
            meter: Default::default(),
        };
        let name = &self.catalog.tables[ti].name;
        self.ctx.tables[ti].insert(entry).map_err(|m| ControlError::Invalid(format!("table {name}: {m}")))
    }

    fn take_hits(&mut self, table: &str) -> Result<Vec<Handle>, ControlError> {
        let ti = self.catalog.table_recording_hits(table)?;
        Ok(self.ctx.tables.get_mut(ti).map_or_else(Vec::new, |t| t.take_hits()))
    }

    fn table_select(&mut self, table: &str, handle: Handle, members: Vec<(String, ActionArgs)>) -> Result<(), ControlError> {
        let (ti, chosen) = self.catalog.members_to_select(table, &members)?;
        match self.ctx.tables.get_mut(ti).is_some_and(|t| t.set_members(handle, chosen)) {
            true => Ok(()),
            false => Err(ControlError::Invalid(format!("table {}: no entry with handle {handle}", self.catalog.tables[ti].name))),
        }
    }

    fn table_modify(
        &mut self,
        table: &str,
        handle: Handle,
        action: &str,
        args: ActionArgs,
    ) -> Result<(), ControlError> {
        let (ti, ai, data) = self.catalog.action_to_modify(table, action, &args)?;
        if !self.ctx.tables[ti].set_action(handle, ai, data) {
            return invalid(format!("table {}: no entry with handle {handle}", self.catalog.tables[ti].name));
        }
        Ok(())
    }

    fn table_delete(&mut self, table: &str, handle: Handle) -> Result<(), ControlError> {
        let ti = self.catalog.table_index(table)?;
        let name = &self.catalog.tables[ti].name;
        self.ctx.tables[ti].remove(handle).map(|_| ()).map_err(|m| ControlError::Invalid(format!("table {name}: {m}")))
    }

    fn table_clear(&mut self, table: &str) -> Result<(), ControlError> {
        let ti = self.catalog.table_to_clear(table)?;
        self.ctx.tables[ti].clear();
        Ok(())
    }

    fn table_set_default(&mut self, table: &str, action: &str, args: ActionArgs) -> Result<(), ControlError> {
        let (ti, ai, data) = self.catalog.default_to_set(table, action, &args)?;
        self.ctx.tables[ti].set_default(ai, data);
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
        match self.ctx.externs.get(id) {
            Some(ExternState::Register { cells, .. }) => Ok(BigUint::from(cells.get(index).copied().unwrap_or(0))),
            _ => invalid(format!("{register} is not a register")),
        }
    }

    fn register_write(&mut self, register: &str, index: u64, value: BigUint) -> Result<(), ControlError> {
        let id = self.catalog.register_index(register)?;
        let v = self.catalog.register_value(id, register, index, &value)?;
        match self.ctx.externs.get_mut(id).and_then(|s| match s {
            ExternState::Register { cells, .. } => cells.get_mut(index),
            _ => None,
        }) {
            Some(c) => {
                *c = v;
                Ok(())
            }
            None => invalid(format!("{register} is not a register")),
        }
    }

    fn register_reset(&mut self, register: &str) -> Result<(), ControlError> {
        let id = self.catalog.register_index(register)?;
        if let Some(ExternState::Register { cells, .. }) = self.ctx.externs.get_mut(id) {
            cells.fill(0);
        }
        Ok(())
    }

    fn counter_read(&mut self, counter: &str, index: u64) -> Result<(u64, u64), ControlError> {
        match self.catalog.counter_cells(counter)? {
            Cells::PerEntry(ti) => match self.ctx.tables[ti].count(index) {
                Some(c) => Ok((c.packets, c.bytes)),
                None => invalid(format!("direct counter {counter}: no entry with handle {index}")),
            },
            Cells::Indexed(id) => match self.ctx.externs.get(id) {
                Some(ExternState::Counter { cells }) => cells
                    .get(index)
                    .copied()
                    .ok_or_else(|| ControlError::Invalid(format!("counter {counter}: index {index} out of range"))),
                _ => invalid(format!("{counter} is not a counter")),
            },
        }
    }

    fn counter_write(&mut self, counter: &str, index: u64, packets: u64, bytes: u64) -> Result<(), ControlError> {
        match self.catalog.counter_cells(counter)? {
            Cells::PerEntry(ti) => match self.ctx.tables[ti].set_count(index, crate::table::Count { packets, bytes }) {
                true => Ok(()),
                false => invalid(format!("direct counter {counter}: no entry with handle {index}")),
            },
            Cells::Indexed(id) => match self.ctx.externs.get_mut(id) {
                Some(ExternState::Counter { cells }) => match cells.get_mut(index) {
                    Some(c) => {
                        *c = (packets, bytes);
                        Ok(())
                    }
                    None => invalid(format!("counter {counter}: index {index} out of range")),
                },
                _ => invalid(format!("{counter} is not a counter")),
            },
        }
    }

    fn counter_reset(&mut self, counter: &str) -> Result<(), ControlError> {
        match self.catalog.counter_cells(counter)? {
            Cells::PerEntry(ti) => self.ctx.tables[ti].reset_counts(),
            Cells::Indexed(id) => {
                if let Some(ExternState::Counter { cells }) = self.ctx.externs.get_mut(id) {
                    cells.fill((0, 0));
                }
            }
        }
        Ok(())
    }

    fn meter_set_rates(&mut self, meter: &str, index: Option<u64>, rates: &[MeterRate]) -> Result<(), ControlError> {
        let cells = self.catalog.meter_cells(meter)?;
        let [committed, peak] = rates else {
            return invalid(format!("meter {meter}: give two rates (committed, peak)"));
        };
        let now = self.ctx.now_us as f64;
        match cells {
            Cells::PerEntry(ti) => {
                let ts = &mut self.ctx.tables[ti];
                match index {
                    Some(h) => match ts.get_mut(h) {
                        Some(e) => e.meter.set_rates(*committed, *peak, now),
                        None => return invalid(format!("direct meter {meter}: no entry with handle {h}")),
                    },
                    None => {
                        for e in ts.entries.iter_mut().flatten() {
                            e.meter.set_rates(*committed, *peak, now);
                        }
                    }
                }
                Ok(())
            }
            Cells::Indexed(id) => match self.ctx.externs.get_mut(id) {
                Some(ExternState::Meter { cells, .. }) => match index {
                    Some(i) => match cells.get_mut(i) {
                        Some(m) => {
                            m.set_rates(*committed, *peak, now);
                            Ok(())
                        }
                        None => invalid(format!("meter {meter}: index {i} out of range")),
                    },
                    None => {
                        // Every cell, including never-used ones, starts from this configured meter.
                        let mut configured = crate::meter::Meter::default();
                        configured.set_rates(*committed, *peak, now);
                        cells.fill(configured);
                        Ok(())
                    }
                },
                _ => invalid(format!("{meter} is not a meter")),
            },
        }
    }

    fn value_set_add(&mut self, value_set: &str, value: KeyValue) -> Result<(), ControlError> {
        let sets = &self.ctx.value_sets;
        let (i, v, m) = self.catalog.value_set_member(value_set, &value, |i| sets[i].len())?;
        self.ctx.value_sets[i].push((v, m));
        Ok(())
    }

    fn value_set_clear(&mut self, value_set: &str) -> Result<(), ControlError> {
        let i = self.catalog.value_set_index(value_set)?;
        self.ctx.value_sets[i].clear();
        Ok(())
    }
}

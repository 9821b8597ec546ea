//! Control-plane calls checked against a program's [`Catalog`] before any state changes: which
//! table, action, extern instance or value set a name means, and the entry, action data or member
//! a call gives, converted and checked. Every target (the software switch, the control-plane model
//! the hardware target mirrors) asks here, so all refuse the same calls with the same words.

use num_bigint::BigUint;
use p4_ir::arch::StateKind;
use p4_ir::layout::ObjectKind;
use p4_ir::MatchKind;

use crate::catalog::Catalog;
use crate::convert::{action_data, invalid, key_match, key_matches, resolve, to_u128};
use crate::{ActionArgs, ControlError, KeyValue, Keys, Match};

/// An entry a `table_add` asks for, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewEntry {
    pub matches: Vec<Match>,
    /// BMv2's convention: smaller wins (0 for tables without priorities).
    pub priority: i64,
    /// Position in the table's actions.
    pub action: usize,
    pub args: Vec<u128>,
}

/// Which cells of an extern instance a call addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cells {
    /// The instance's own array (by [`p4_ir::ExternId`] index).
    Indexed(usize),
    /// The counts or meters kept in the entries of a table (by table index).
    PerEntry(usize),
}

impl Catalog {
    /// The table `name` means.
    pub fn table_index(&self, name: &str) -> Result<usize, ControlError> {
        resolve("table", self.tables.iter().map(|t| t.name.as_str()), name)
    }

    /// The position of action `name` in table `ti`'s actions.
    pub fn table_action(&self, ti: usize, name: &str) -> Result<usize, ControlError> {
        resolve("action", self.tables[ti].actions.iter().map(|a| a.name.as_str()), name)
    }

    /// `table_add`: the table and the entry, checked (keys by match kind, a priority where the
    /// table needs one, an action entries may use, its data).
    pub fn entry_to_add(
        &self,
        table: &str,
        keys: &Keys,
        action: &str,
        args: &ActionArgs,
        priority: Option<i64>,
    ) -> Result<(usize, NewEntry), ControlError> {
        let ti = self.table_index(table)?;
        let tp = &self.tables[ti];
        if tp.entries_const {
            return invalid(format!("table {} has const entries", tp.name));
        }
        let matches = key_matches(tp, keys)?;
        let priority = match (priority, tp.priority_kind()) {
            (None, Some(kind)) => return Err(ControlError::MissingPriority { table: tp.name.clone(), kind: kind.to_string() }),
            (priority, _) => priority.unwrap_or(0),
        };
        let ai = self.table_action(ti, action)?;
        if tp.actions[ai].default_only {
            return invalid(format!("action {} is @defaultonly in table {}", tp.actions[ai].name, tp.name));
        }
        let args = action_data(tp, ai, args)?;
        Ok((ti, NewEntry { matches, priority, action: ai, args }))
    }

    /// `Err` when table `ti`, holding `live` entries, has no room for another (as BMv2 answers
    /// TABLE_FULL).
    pub fn check_room(&self, ti: usize, live: usize) -> Result<(), ControlError> {
        let t = &self.tables[ti];
        if live < t.capacity {
            return Ok(());
        }
        let why = if t.sized { "its `size`" } else { "the default size of a table without `size`" };
        invalid(format!("table {} is full: it holds {} entries ({why})", t.name, t.capacity))
    }

    /// `table_modify`: the table, the action's position and its data.
    pub fn action_to_modify(
        &self,
        table: &str,
        action: &str,
        args: &ActionArgs,
    ) -> Result<(usize, usize, Vec<u128>), ControlError> {
        let ti = self.table_index(table)?;
        let ai = self.table_action(ti, action)?;
        Ok((ti, ai, action_data(&self.tables[ti], ai, args)?))
    }

    /// `take_hits`: the table `name` means, which must record hits (`support_timeout = true`).
    pub fn table_recording_hits(&self, name: &str) -> Result<usize, ControlError> {
        let ti = self.table_index(name)?;
        if !self.tables[ti].records_hits {
            return invalid(format!("table {}: hits are recorded only for a table with support_timeout = true", self.tables[ti].name));
        }
        Ok(ti)
    }

    /// `table_select`: the table (one with an action selector) and each member's action position
    /// and data; at least one member.
    pub fn members_to_select(&self, table: &str, members: &[(String, ActionArgs)]) -> Result<(usize, crate::Members), ControlError> {
        let ti = self.table_index(table)?;
        let tp = &self.tables[ti];
        if tp.selector.is_none() {
            return invalid(format!("table {} has no action selector", tp.name));
        }
        if members.is_empty() {
            return invalid(format!("table {}: an entry selects among at least one member", tp.name));
        }
        let chosen = members
            .iter()
            .map(|(action, args)| {
                let ai = self.table_action(ti, action)?;
                Ok((ai, action_data(tp, ai, args)?))
            })
            .collect::<Result<Vec<_>, ControlError>>()?;
        Ok((ti, chosen))
    }

    /// `table_set_default`: the table, the action's position and its data.
    pub fn default_to_set(
        &self,
        table: &str,
        action: &str,
        args: &ActionArgs,
    ) -> Result<(usize, usize, Vec<u128>), ControlError> {
        let ti = self.table_index(table)?;
        let tp = &self.tables[ti];
        if tp.default_is_const {
            return invalid(format!("table {} has a const default action", tp.name));
        }
        let ai = self.table_action(ti, action)?;
        if tp.actions[ai].table_only {
            return invalid(format!("action {} is @tableonly in table {}", tp.actions[ai].name, tp.name));
        }
        Ok((ti, ai, action_data(tp, ai, args)?))
    }

    /// `table_clear`: the table, unless the program fixed its entries.
    pub fn table_to_clear(&self, table: &str) -> Result<usize, ControlError> {
        let ti = self.table_index(table)?;
        if self.tables[ti].entries_const {
            return invalid(format!("table {} has const entries", self.tables[ti].name));
        }
        Ok(ti)
    }

    /// The extern instance named `name` among those of the control-plane `kinds` (the first kind
    /// names them in errors).
    pub fn extern_index(&self, kinds: &[ObjectKind], name: &str) -> Result<usize, ControlError> {
        let kind = kinds.first().map_or("extern", |k| k.name());
        let idx: Vec<usize> =
            (0..self.externs.len()).filter(|i| self.externs[*i].kind.is_some_and(|k| kinds.contains(&k))).collect();
        let i = resolve(kind, idx.iter().map(|i| self.externs[*i].name.as_str()), name)?;
        Ok(idx[i])
    }

    /// The register `name` means, if it is one.
    pub fn register_index(&self, name: &str) -> Result<usize, ControlError> {
        let id = self.extern_index(&[ObjectKind::Register], name)?;
        match self.externs[id].state {
            StateKind::Register => Ok(id),
            _ => invalid(format!("{name} is not a register")),
        }
    }

    /// A value for cell `index` of register `id`, checked against its width and size.
    pub fn register_value(&self, id: usize, name: &str, index: u64, value: &BigUint) -> Result<u128, ControlError> {
        let r = &self.externs[id];
        let v = to_u128(value, r.width, name)?;
        self.register_cell(id, name, index)?;
        Ok(v)
    }

    /// `Err` unless register `id` has a cell `index`.
    pub fn register_cell(&self, id: usize, name: &str, index: u64) -> Result<(), ControlError> {
        let size = self.externs[id].size;
        if index >= size {
            return invalid(format!("register {name}: index {index} out of range (size {size})"));
        }
        Ok(())
    }

    /// The cells counter `name` (direct or not) keeps.
    pub fn counter_cells(&self, name: &str) -> Result<Cells, ControlError> {
        self.cells([ObjectKind::Counter, ObjectKind::DirectCounter], StateKind::Counter, name)
    }

    /// The cells meter `name` (direct or not) keeps.
    pub fn meter_cells(&self, name: &str) -> Result<Cells, ControlError> {
        self.cells([ObjectKind::Meter, ObjectKind::DirectMeter], StateKind::Meter, name)
    }

    /// The cells of instance `name` of an indexed kind or its direct kind (`kinds`: the two, the
    /// indexed one first); `indexed` is the state its own array has.
    fn cells(&self, kinds: [ObjectKind; 2], indexed: StateKind, name: &str) -> Result<Cells, ControlError> {
        let id = self.extern_index(&kinds, name)?;
        if let Some(ti) = self.direct_table(id) {
            return Ok(Cells::PerEntry(ti));
        }
        match self.externs[id].state {
            state if state == indexed => Ok(Cells::Indexed(id)),
            _ => invalid(format!("{name} is not a {}", kinds[0].name())),
        }
    }

    /// `value_set_add`: the value set and the member as (value, mask), checked against the set's
    /// width; `members` is how many it holds now.
    /// The index of value set `name` (exact, or a unique suffix).
    pub fn value_set_index(&self, name: &str) -> Result<usize, ControlError> {
        resolve("value set", self.value_sets.iter().map(|v| v.name.as_str()), name)
    }

    pub fn value_set_member(
        &self,
        name: &str,
        value: &KeyValue,
        members: impl Fn(usize) -> usize,
    ) -> Result<(usize, u128, u128), ControlError> {
        let i = resolve("value set", self.value_sets.iter().map(|v| v.name.as_str()), name)?;
        let set = &self.value_sets[i];
        let Match::Mask(v, m) = key_match(&MatchKind::Ternary, set.width, value, name)? else {
            return invalid("value sets take values or masks");
        };
        if set.size > 0 && members(i) >= set.size {
            return invalid(format!("value set {name} is full ({} members)", set.size));
        }
        Ok((i, v, m))
    }

    /// `Err` for a multicast group id the program's group field cannot hold (such a group could
    /// never be chosen: the field would cut the id to its low bits, another group).
    pub fn check_group(&self, group: u32) -> Result<(), ControlError> {
        if group <= self.max_group {
            return Ok(());
        }
        let bits = u32::BITS - self.max_group.leading_zeros();
        invalid(format!(
            "multicast group {group} does not fit {}'s {bits}-bit multicast group field (0..{})",
            self.arch, self.max_group
        ))
    }

    /// `Err` for a port the program's port fields cannot hold.
    pub fn check_port(&self, port: u32) -> Result<(), ControlError> {
        crate::check_port_fits(port, self.max_port, self.arch)
    }
}

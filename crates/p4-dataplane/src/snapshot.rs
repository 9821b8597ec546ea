//! What a table holds, for a target that mirrors the software switch's tables (the hardware
//! target's driver loads these into its table memories).

use crate::switch::Switch;
pub use p4_control::snapshot::{EntrySnapshot, TableSnapshot};

impl Switch {
    /// The contents of table `table` (by [`p4_ir::TableId`] index); `None` for no such table.
    pub fn table_snapshot(&self, table: usize) -> Option<TableSnapshot> {
        let state = self.ctx.tables.get(table)?;
        let entries = state
            .precedence()
            .into_iter()
            .filter_map(|h| state.entries.get(h as usize).and_then(|e| e.as_ref()).map(|e| (h, e)))
            .map(|(handle, e)| EntrySnapshot { handle, matches: e.matches.clone(), action: e.action, args: e.args.clone() })
            .collect();
        let (default_action, default_args) = (state.default_action().0, state.default_action().1.to_vec());
        Some(TableSnapshot { entries, default_action, default_args })
    }
}

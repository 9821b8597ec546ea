//! Per-packet traces: what happened to a packet, step by step, for `--trace`.
//!
//! A switch built with [`crate::Switch::new_traced`] records, for every packet: the parser states
//! it went through and the headers it extracted (with their fields as they were on the wire), each
//! block it ran, each table applied (key, hit or miss, the entry, the action and its data), every
//! field a table's action or a block changed (old → new), the extern calls made, the traffic
//! manager's decision and what left or was dropped.
//!
//! Costs nothing when off: a switch built with [`crate::Switch::new`] has none of the recording
//! code compiled into its program (the extract and extern-call wrappers are only made for a traced
//! build), and the few checks left in the per-packet path test one `Option` that is `None`. Field
//! changes are found by comparing the frame with a snapshot at each step, so assignments carry no
//! hook at all.

pub use p4_control::trace::{render_json, render_text, value_text, Event, MAX_EVENTS};

/// How a frame slot is shown in a trace.
#[derive(Clone, Debug)]
pub(crate) struct SlotName {
    pub name: std::sync::Arc<str>,
    /// 0: a boolean (validity bits included).
    pub width: u32,
    /// The slot is part of a header (its changes in the parser are shown as extractions).
    pub in_header: bool,
}

/// What a traced switch records while a packet is processed.
#[derive(Debug, Default)]
pub struct TraceBuf {
    pub(crate) events: Vec<Event>,
    /// The frame as it was at the last step (to find what changed since).
    pub(crate) snapshot: Vec<u128>,
    /// Steps not recorded since the packet's trace reached [`MAX_EVENTS`].
    omitted: u64,
}

impl TraceBuf {
    pub(crate) fn push(&mut self, event: Event) {
        if self.events.len() < MAX_EVENTS {
            self.events.push(event);
        } else {
            self.omitted += 1;
        }
    }

    /// The packet's steps, in order, ending with [`Event::Truncated`] if some were not recorded;
    /// the buffer is left empty for the next packet.
    pub(crate) fn take_packet(&mut self) -> impl Iterator<Item = Event> + '_ {
        let omitted = std::mem::take(&mut self.omitted);
        self.events.drain(..).chain((omitted > 0).then_some(Event::Truncated { omitted }))
    }

    /// Reports every named slot that differs from the snapshot (skipping header slots when
    /// `headers` is false) and takes the frame as the new snapshot.
    pub(crate) fn diff(&mut self, frame: &[u128], names: &[Option<SlotName>], headers: bool) {
        if self.snapshot.len() != frame.len() {
            self.snapshot = vec![0; frame.len()];
        }
        let snapshot = std::mem::take(&mut self.snapshot);
        for (slot, (new, old)) in frame.iter().zip(snapshot.iter()).enumerate() {
            if new == old {
                continue;
            }
            let Some(Some(name)) = names.get(slot) else { continue };
            if name.in_header && !headers {
                continue;
            }
            self.push(Event::Set { field: name.name.to_string(), old: value_text(*old, name.width), new: value_text(*new, name.width) });
        }
        self.snapshot = snapshot;
        self.snapshot_of(frame);
    }

    /// Takes `frame` as the point later changes are reported from.
    pub(crate) fn snapshot_of(&mut self, frame: &[u128]) {
        self.snapshot.clear();
        self.snapshot.extend_from_slice(frame);
    }

    /// Records the application of table `t`, named `table`, with `key` (laid out as `layouts`
    /// says): hit entry `entry` or miss, running IR action `action` with `data`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn table_applied(&mut self, layouts: &p4_ir::layout::Layouts, t: usize, table: &str, key: &[u128], entry: Option<u64>, action: usize, data: &[u128]) {
        let Some(layout) = layouts.keys.get(t) else { return };
        let key = layout.fields.iter().zip(key).map(|(f, v)| (f.name.clone(), value_text(*v, f.width))).collect();
        let action_layout = layouts.actions.get(action);
        let data = action_layout
            .map(|a| a.params.iter().zip(data).map(|(d, v)| (d.name.clone(), value_text(*v, d.width))).collect())
            .unwrap_or_default();
        let action = action_layout.map_or_else(|| format!("action {action}"), |a| a.name.clone());
        self.push(Event::Table { table: table.to_string(), key, hit: entry.is_some(), entry, action, data });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_reports_named_changed_slots_once() {
        let names = vec![
            Some(SlotName { name: "hdr.h.isValid()".into(), width: 0, in_header: true }),
            Some(SlotName { name: "hdr.h.f".into(), width: 8, in_header: true }),
            None,
            Some(SlotName { name: "meta.m".into(), width: 16, in_header: false }),
        ];
        let mut t = TraceBuf::default();
        t.diff(&[1, 7, 9, 3], &names, false);
        assert_eq!(t.events, vec![Event::Set { field: "meta.m".into(), old: "0x0000".into(), new: "0x0003".into() }]);
        t.events.clear();
        t.diff(&[1, 8, 10, 3], &names, true);
        assert_eq!(t.events, vec![Event::Set { field: "hdr.h.f".into(), old: "0x07".into(), new: "0x08".into() }]);
        t.events.clear();
        t.diff(&[1, 8, 10, 3], &names, true);
        assert!(t.events.is_empty());
    }
}

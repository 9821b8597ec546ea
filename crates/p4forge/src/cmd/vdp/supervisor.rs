//! The VDP supervisor: hands out the two TCAM tables of `examples/vdp/vdp.p4` in slices, keeps
//! each VDP's rules in the VDP's own terms (its rule numbers and priorities), and translates them
//! into the physical entries the tables hold.
//!
//! Isolation comes from the translation, not from trust in the tenants:
//! - every action rule of VDP v matches `vid == v` exactly, so no rule of one VDP can meet
//!   another's packets, and rules of different VDPs need no order between them;
//! - mapping rules decide which VDP a packet belongs to, so two VDPs' mapping rules may not
//!   overlap (some packet would match both, and the higher one would take the other's traffic):
//!   such a rule is refused, naming the rule it overlaps;
//! - each VDP's entries fit the slices it was given: one tenant cannot take entries from another.
//!
//! Every change is computed on a copy: the new physical entries are compared with the old, and the
//! operations to get there come out in an order that never leaves a packet without its rule
//! (inserts, then modifications, then deletions), or an error comes back and nothing changed.
//! Moving a VDP to software puts a catch-all "to software" entry above its rules, then removes
//! them; moving it back puts them back under the catch-all, then removes it: every packet sees
//! the VDP wholly in hardware or wholly in software.

use std::collections::{BTreeMap, BTreeSet};

use super::tuple::TupleMatch;

/// VDP ids the supervisor hands out (0 is the software VDP, whose packets no mapping rule claims).
pub const VIDS: std::ops::RangeInclusive<u16> = 1..=4095;
/// A VDP's rule priorities (larger wins within the VDP).
pub const PRIORITIES: std::ops::RangeInclusive<u32> = 1..=1_000_000;
/// DMA channels of the host's engine.
pub const CHANNELS: u8 = 4;

/// The action result's bitmap (`ACT_*` in vdp.p4).
pub mod flags {
    pub const PORT_VALID: u8 = 0b00001;
    pub const CHANGE_MAC: u8 = 0b00010;
    pub const TTL: u8 = 0b00100;
    pub const FORWARD: u8 = 0b01000;
    pub const DROP: u8 = 0b10000;
}

/// How the tables are cut: entries of each, and entries per slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub map_entries: u32,
    pub action_entries: u32,
    pub slice_entries: u32,
}

impl Geometry {
    pub fn map_slices(&self) -> u32 {
        self.map_entries / self.slice_entries
    }
    pub fn action_slices(&self) -> u32 {
        self.action_entries / self.slice_entries
    }
}

/// What an action rule (or a VDP's default) does with a packet: the action result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Action {
    /// `process(flags, port, dst_mac, src_mac, channel)`.
    Process { flags: u8, port: u16, dst_mac: u64, src_mac: u64, channel: u8 },
    /// `to_software(channel)`: to the host on that DMA channel.
    ToSoftware { channel: u8 },
}

/// Where a VDP's action rules run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Place {
    Hardware,
    Software,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapRule {
    pub priority: u32,
    pub m: TupleMatch,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionRule {
    pub priority: u32,
    pub m: TupleMatch,
    pub action: Action,
}

/// One VDP.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vdp {
    pub map_slices: Vec<u32>,
    pub action_slices: Vec<u32>,
    /// By the VDP's own rule numbers.
    pub map: BTreeMap<u32, MapRule>,
    pub rules: BTreeMap<u32, ActionRule>,
    /// What a packet no rule of the VDP matches gets.
    pub default: Action,
    pub place: Place,
    /// The DMA channel its packets go to the host on when it is in software.
    pub channel: u8,
}

/// The two tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Table {
    Map,
    Action,
}

/// A physical entry: its key (the VDP id, for the action table, then the tuple), its priority
/// (BMv2's convention: a smaller number wins) and its action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Entry {
    pub table: Table,
    pub vid: Option<u16>,
    pub m: TupleMatch,
    pub priority: u32,
    pub action: PhysAction,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PhysAction {
    SetVdp(u16),
    Do(Action),
}

impl Entry {
    /// What identifies the entry in its table (everything but the action).
    pub fn key(&self) -> (Table, Option<u16>, TupleMatch, u32) {
        (self.table, self.vid, self.m, self.priority)
    }
}

/// One step towards the new tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Insert(Entry),
    /// The entry with this key gets this action.
    Modify(Entry),
    Delete(Entry),
}

/// Physical priority of a VDP priority (smaller wins), the catch-all's above all, the default's
/// below all.
fn physical(priority: u32) -> u32 {
    PRIORITIES.end() + 1 - priority
}
const CATCH_ALL: u32 = 0;
const DEFAULT: u32 = 1_000_001;

/// The supervisor's state.
#[derive(Clone, Debug)]
pub struct Supervisor {
    pub geometry: Geometry,
    pub vdps: BTreeMap<u16, Vdp>,
}

impl Supervisor {
    pub fn new(geometry: Geometry) -> Result<Supervisor, String> {
        if geometry.slice_entries == 0 || geometry.map_entries % geometry.slice_entries != 0 || geometry.action_entries % geometry.slice_entries != 0 {
            return Err(format!(
                "slices of {} entries do not cut tables of {} and {} entries",
                geometry.slice_entries, geometry.map_entries, geometry.action_entries
            ));
        }
        Ok(Supervisor { geometry, vdps: BTreeMap::new() })
    }

    /// The physical entries of the hardware tables: every VDP's mapping rules; the action rules
    /// and default of each VDP in hardware, a catch-all to software for each VDP in software.
    pub fn entries(&self) -> BTreeSet<Entry> {
        let mut out = BTreeSet::new();
        for (&vid, v) in &self.vdps {
            out.extend(map_entries(vid, v));
            match v.place {
                Place::Hardware => out.extend(action_entries(vid, v)),
                Place::Software => {
                    out.insert(Entry { table: Table::Action, vid: Some(vid), m: TupleMatch::default(), priority: CATCH_ALL, action: PhysAction::Do(Action::ToSoftware { channel: v.channel }) });
                }
            }
        }
        out
    }

    /// The physical entries of the software path's tables (the same pipeline on the software
    /// target behind the host's DMA channels): each VDP in software, whole.
    pub fn software_entries(&self) -> BTreeSet<Entry> {
        let mut out = BTreeSet::new();
        for (&vid, v) in self.vdps.iter().filter(|(_, v)| v.place == Place::Software) {
            out.extend(map_entries(vid, v));
            out.extend(action_entries(vid, v));
        }
        out
    }

    /// The VDPs in software.
    pub fn in_software(&self) -> BTreeSet<u16> {
        self.vdps.iter().filter(|(_, v)| v.place == Place::Software).map(|(vid, _)| *vid).collect()
    }

    /// Makes `change` on a copy; on success the copy becomes the state and the steps that turn the
    /// old tables into the new come back ([`Plan`]).
    pub fn change(&mut self, change: impl FnOnce(&mut Supervisor) -> Result<(), String>) -> Result<Plan, String> {
        let mut next = self.clone();
        change(&mut next)?;
        let plan = Plan {
            hardware: diff(&self.entries(), &next.entries()),
            software: diff(&self.software_entries(), &next.software_entries()),
            before: self.in_software(),
            after: next.in_software(),
        };
        *self = next;
        Ok(plan)
    }

    fn vdp(&mut self, vid: u16) -> Result<&mut Vdp, String> {
        self.vdps.get_mut(&vid).ok_or_else(|| format!("VDP {vid} does not exist"))
    }

    /// Slices of a pool no VDP holds, lowest first.
    fn free_slices(&self, table: Table) -> Vec<u32> {
        let total = match table {
            Table::Map => self.geometry.map_slices(),
            Table::Action => self.geometry.action_slices(),
        };
        let held: BTreeSet<u32> = self
            .vdps
            .values()
            .flat_map(|v| match table {
                Table::Map => v.map_slices.iter(),
                Table::Action => v.action_slices.iter(),
            })
            .copied()
            .collect();
        (0..total).filter(|s| !held.contains(s)).collect()
    }

    /// Creates VDP `vid` with `map` mapping slices and `action` action slices; its default sends
    /// its packets to software on `channel`.
    pub fn create(&mut self, vid: u16, map: u32, action: u32, channel: u8) -> Result<(), String> {
        if !VIDS.contains(&vid) {
            return Err(format!("VDP {vid}: ids are {} to {} (0 is the software VDP)", VIDS.start(), VIDS.end()));
        }
        if self.vdps.contains_key(&vid) {
            return Err(format!("VDP {vid} exists already"));
        }
        if channel >= CHANNELS {
            return Err(format!("channel {channel}: the DMA engine has channels 0 to {}", CHANNELS - 1));
        }
        if action == 0 {
            return Err(format!("VDP {vid}: it needs an action slice at least (its default rule)"));
        }
        let take = |table: Table, n: u32, what: &str| -> Result<Vec<u32>, String> {
            let free = self.free_slices(table);
            if (free.len() as u32) < n {
                let total = match table {
                    Table::Map => self.geometry.map_slices(),
                    Table::Action => self.geometry.action_slices(),
                };
                return Err(format!(
                    "VDP {vid}: {n} {what} slices asked, {} free of {total} ({} entries each): the TCAM is exhausted",
                    free.len(),
                    self.geometry.slice_entries
                ));
            }
            Ok(free[..n as usize].to_vec())
        };
        let map_slices = take(Table::Map, map, "mapping")?;
        let action_slices = take(Table::Action, action, "action")?;
        self.vdps.insert(
            vid,
            Vdp { map_slices, action_slices, map: BTreeMap::new(), rules: BTreeMap::new(), default: Action::ToSoftware { channel }, place: Place::Hardware, channel },
        );
        Ok(())
    }

    pub fn destroy(&mut self, vid: u16) -> Result<(), String> {
        self.vdps.remove(&vid).map(|_| ()).ok_or_else(|| format!("VDP {vid} does not exist"))
    }

    /// Adds (or replaces) the VDP's mapping rule `rule`.
    pub fn map_add(&mut self, vid: u16, rule: u32, priority: u32, m: TupleMatch) -> Result<(), String> {
        check_priority(priority)?;
        self.vdp(vid)?;
        let slice = self.geometry.slice_entries;
        for (&other, v) in &self.vdps {
            if other == vid {
                continue;
            }
            if let Some((n, _)) = v.map.iter().find(|(_, r)| r.m.overlaps(&m)) {
                return Err(format!("VDP {vid} mapping rule {rule} ({m}) overlaps VDP {other}'s mapping rule {n}: a packet could belong to both"));
            }
        }
        let v = self.vdp(vid)?;
        if let Some((n, _)) = v.map.iter().find(|(n, r)| **n != rule && r.priority == priority) {
            return Err(format!("VDP {vid}: mapping rule {n} has priority {priority} already"));
        }
        v.map.insert(rule, MapRule { priority, m });
        let cap = v.map_slices.len() as u32 * slice;
        if v.map.len() as u32 > cap {
            return Err(format!("VDP {vid}: its {} mapping slices hold {cap} rules, all taken", v.map_slices.len()));
        }
        Ok(())
    }

    pub fn map_delete(&mut self, vid: u16, rule: u32) -> Result<(), String> {
        self.vdp(vid)?.map.remove(&rule).map(|_| ()).ok_or_else(|| format!("VDP {vid} has no mapping rule {rule}"))
    }

    /// Adds (or replaces) the VDP's action rule `rule`.
    pub fn rule_add(&mut self, vid: u16, rule: u32, priority: u32, m: TupleMatch, action: Action) -> Result<(), String> {
        check_priority(priority)?;
        check_action(&action)?;
        let slice = self.geometry.slice_entries;
        let v = self.vdp(vid)?;
        if let Some((n, _)) = v.rules.iter().find(|(n, r)| **n != rule && r.priority == priority) {
            return Err(format!("VDP {vid}: rule {n} has priority {priority} already"));
        }
        v.rules.insert(rule, ActionRule { priority, m, action });
        // The default and the catch-all of a move to software take an entry each.
        let cap = v.action_slices.len() as u32 * slice - 2;
        if v.rules.len() as u32 > cap {
            return Err(format!("VDP {vid}: its {} action slices hold {cap} rules beside its default, all taken", v.action_slices.len()));
        }
        Ok(())
    }

    pub fn rule_delete(&mut self, vid: u16, rule: u32) -> Result<(), String> {
        self.vdp(vid)?.rules.remove(&rule).map(|_| ()).ok_or_else(|| format!("VDP {vid} has no rule {rule}"))
    }

    pub fn set_default(&mut self, vid: u16, action: Action) -> Result<(), String> {
        check_action(&action)?;
        self.vdp(vid)?.default = action;
        Ok(())
    }

    pub fn migrate(&mut self, vid: u16, place: Place) -> Result<(), String> {
        self.vdp(vid)?.place = place;
        Ok(())
    }

    /// What a VDP lookup searches: the slices of the table the lookup can match (the VDP's own
    /// for an action lookup), against the whole table.
    pub fn slices_searched(&self, vid: u16) -> Option<(u32, u32)> {
        self.vdps.get(&vid).map(|v| (v.action_slices.len() as u32, self.geometry.action_slices()))
    }
}

fn check_priority(priority: u32) -> Result<(), String> {
    if PRIORITIES.contains(&priority) {
        Ok(())
    } else {
        Err(format!("priority {priority}: from {} to {} (larger wins)", PRIORITIES.start(), PRIORITIES.end()))
    }
}

fn check_action(action: &Action) -> Result<(), String> {
    let channel = match *action {
        Action::Process { flags, port, channel, .. } => {
            if flags >= 1 << 5 {
                return Err(format!("flags {flags:#x}: the bitmap has 5 bits"));
            }
            if port >= 1 << 9 {
                return Err(format!("port {port} does not fit 9 bits"));
            }
            channel
        }
        Action::ToSoftware { channel } => channel,
    };
    if channel >= CHANNELS {
        return Err(format!("channel {channel}: the DMA engine has channels 0 to {}", CHANNELS - 1));
    }
    Ok(())
}

/// A VDP's mapping rules as physical entries.
fn map_entries(vid: u16, v: &Vdp) -> impl Iterator<Item = Entry> + '_ {
    v.map.values().map(move |r| Entry { table: Table::Map, vid: None, m: r.m, priority: physical(r.priority), action: PhysAction::SetVdp(vid) })
}

/// A VDP's action rules and default as physical entries.
fn action_entries(vid: u16, v: &Vdp) -> impl Iterator<Item = Entry> + '_ {
    let rule = move |m: TupleMatch, priority: u32, action: Action| Entry { table: Table::Action, vid: Some(vid), m, priority, action: PhysAction::Do(action) };
    v.rules.values().map(move |r| rule(r.m, physical(r.priority), r.action)).chain(std::iter::once(rule(TupleMatch::default(), DEFAULT, v.default)))
}

/// What a change takes: the operations on the hardware's tables and on the software path's, and
/// the VDPs in software before and after.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub hardware: Vec<Op>,
    pub software: Vec<Op>,
    pub before: BTreeSet<u16>,
    pub after: BTreeSet<u16>,
}

/// One step of a [`Plan`], in the order they are carried out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Hardware(Op),
    Software(Op),
    /// From here the host hands the packets of these VDPs (by the VDP id in front of them) to
    /// the software path; others' go to the host's software as they are.
    SlowPath(BTreeSet<u16>),
}

impl Plan {
    /// The steps in an order that never leaves a packet without its rules: the software path
    /// gets its new entries first, then takes the packets of every VDP in software before or
    /// after; the hardware changes; then the software path takes only those in software after,
    /// and loses its old entries.
    pub fn steps(&self) -> Vec<Step> {
        let (sw_in, sw_out): (Vec<Op>, Vec<Op>) = self.software.iter().partition(|o| !matches!(o, Op::Delete(_)));
        let mut steps: Vec<Step> = sw_in.into_iter().map(Step::Software).collect();
        steps.push(Step::SlowPath(self.before.union(&self.after).copied().collect()));
        steps.extend(self.hardware.iter().copied().map(Step::Hardware));
        steps.push(Step::SlowPath(self.after.clone()));
        steps.extend(sw_out.into_iter().map(Step::Software));
        steps
    }

    /// Whether nothing changes.
    pub fn is_empty(&self) -> bool {
        self.hardware.is_empty() && self.software.is_empty()
    }
}

/// The operations from `old` to `new`: inserts first, then modifications, then deletions, so
/// that every packet meets either the old rule or the new one; action rules are inserted before
/// the mapping rules that send packets to them, and mapping rules deleted before them.
pub fn diff(old: &BTreeSet<Entry>, new: &BTreeSet<Entry>) -> Vec<Op> {
    let by_key = |s: &BTreeSet<Entry>| s.iter().map(|e| (e.key(), *e)).collect::<BTreeMap<_, _>>();
    let (old, new) = (by_key(old), by_key(new));
    let mut inserts: Vec<Entry> = new.iter().filter(|(k, _)| !old.contains_key(k)).map(|(_, e)| *e).collect();
    inserts.sort_by_key(|e| std::cmp::Reverse(e.table));
    let mut ops: Vec<Op> = inserts.into_iter().map(Op::Insert).collect();
    ops.extend(new.iter().filter(|(k, e)| old.get(k).is_some_and(|o| o != *e)).map(|(_, e)| Op::Modify(*e)));
    ops.extend(old.iter().filter(|(k, _)| !new.contains_key(k)).map(|(_, e)| Op::Delete(*e)));
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sup() -> Supervisor {
        Supervisor::new(Geometry { map_entries: 32, action_entries: 64, slice_entries: 8 }).unwrap()
    }

    fn m(terms: &[&str]) -> TupleMatch {
        TupleMatch::parse(terms.iter().copied()).unwrap()
    }

    const FWD1: Action = Action::Process { flags: flags::FORWARD | flags::PORT_VALID, port: 1, dst_mac: 0, src_mac: 0, channel: 0 };

    #[test]
    fn a_vdp_becomes_its_mapping_rule_rules_and_default() {
        let mut s = sup();
        let ops = s.change(|s| s.create(7, 1, 1, 2)).unwrap().hardware;
        let default = Entry { table: Table::Action, vid: Some(7), m: TupleMatch::default(), priority: DEFAULT, action: PhysAction::Do(Action::ToSoftware { channel: 2 }) };
        assert_eq!(ops, vec![Op::Insert(default)]);
        let ops = s.change(|s| s.map_add(7, 1, 10, m(&["in_port=0"]))).unwrap().hardware;
        assert_eq!(ops, vec![Op::Insert(Entry { table: Table::Map, vid: None, m: m(&["in_port=0"]), priority: 999_991, action: PhysAction::SetVdp(7) })]);
        let ops = s.change(|s| s.rule_add(7, 1, 5, m(&["dst_ip=10.0.0.0/8"]), FWD1)).unwrap().hardware;
        assert_eq!(ops, vec![Op::Insert(Entry { table: Table::Action, vid: Some(7), m: m(&["dst_ip=10.0.0.0/8"]), priority: 999_996, action: PhysAction::Do(FWD1) })]);
        // A new default modifies the entry in place.
        let ops = s.change(|s| s.set_default(7, FWD1)).unwrap().hardware;
        assert_eq!(ops, vec![Op::Modify(Entry { action: PhysAction::Do(FWD1), ..default })]);
        // Destroyed: every entry deleted, the slices free again.
        let ops = s.change(|s| s.destroy(7)).unwrap().hardware;
        assert_eq!(ops.len(), 3);
        assert!(ops.iter().all(|o| matches!(o, Op::Delete(_))));
        assert_eq!(s.free_slices(Table::Action).len(), 8);
    }

    #[test]
    fn moving_to_software_and_back_never_leaves_a_packet_without_its_rule() {
        let mut s = sup();
        s.change(|s| {
            s.create(3, 1, 1, 1)?;
            s.rule_add(3, 1, 9, m(&["proto=6"]), FWD1)
        })
        .unwrap();
        let plan = s.change(|s| s.migrate(3, Place::Software)).unwrap();
        let ops = &plan.hardware;
        // The catch-all first, then the rules it hides go.
        assert!(matches!(ops[0], Op::Insert(Entry { priority: CATCH_ALL, action: PhysAction::Do(Action::ToSoftware { channel: 1 }), .. })), "{ops:?}");
        assert_eq!(ops[1..].iter().filter(|o| matches!(o, Op::Delete(_))).count(), 2, "{ops:?}");
        // The software path has the VDP's rules and default before the hardware sends it packets.
        let steps = plan.steps();
        assert_eq!(steps.len(), 2 + 1 + 3 + 1, "{steps:?}");
        assert!(steps[..2].iter().all(|st| matches!(st, Step::Software(Op::Insert(Entry { table: Table::Action, .. })))), "{steps:?}");
        assert_eq!(steps[2], Step::SlowPath([3].into()));
        assert!(matches!(steps[3], Step::Hardware(Op::Insert(Entry { priority: CATCH_ALL, .. }))), "{steps:?}");
        assert_eq!(steps[6], Step::SlowPath([3].into()));
        let plan = s.change(|s| s.migrate(3, Place::Hardware)).unwrap();
        let ops = &plan.hardware;
        assert!(matches!(ops.last(), Some(Op::Delete(Entry { priority: CATCH_ALL, .. }))), "{ops:?}");
        assert_eq!(ops.iter().filter(|o| matches!(o, Op::Insert(_))).count(), 2, "{ops:?}");
        // The software path keeps the packets until the hardware has the rules back.
        let steps = plan.steps();
        assert_eq!(steps[0], Step::SlowPath([3].into()));
        assert_eq!(steps[4], Step::SlowPath([].into()));
        assert!(steps[5..].iter().all(|st| matches!(st, Step::Software(Op::Delete(_)))), "{steps:?}");
    }

    #[test]
    fn refusals_name_the_reason_and_change_nothing() {
        let mut s = sup();
        s.change(|s| {
            s.create(1, 2, 4, 0)?;
            s.map_add(1, 1, 1, m(&["in_port=0"]))
        })
        .unwrap();
        let before = s.entries();
        let refused = |s: &mut Supervisor, f: &dyn Fn(&mut Supervisor) -> Result<(), String>, why: &str| {
            let e = s.change(f).unwrap_err();
            assert!(e.contains(why), "{e}");
        };
        refused(&mut s, &|s| s.create(2, 3, 1, 0), "VDP 2: 3 mapping slices asked, 2 free of 4 (8 entries each): the TCAM is exhausted");
        refused(&mut s, &|s| s.create(2, 1, 5, 0), "VDP 2: 5 action slices asked, 4 free of 8");
        refused(&mut s, &|s| s.create(1, 1, 1, 0), "VDP 1 exists already");
        refused(&mut s, &|s| s.create(0, 1, 1, 0), "VDP 0: ids are 1 to 4095 (0 is the software VDP)");
        refused(&mut s, &|s| s.map_add(9, 1, 1, m(&[])), "VDP 9 does not exist");
        refused(&mut s, &|s| s.rule_add(9, 1, 1, m(&[]), FWD1), "VDP 9 does not exist");
        refused(&mut s, &|s| s.migrate(9, Place::Software), "VDP 9 does not exist");
        refused(&mut s, &|s| s.destroy(9), "VDP 9 does not exist");
        refused(&mut s, &|s| s.rule_add(1, 1, 1, m(&[]), Action::ToSoftware { channel: 4 }), "channel 4: the DMA engine has channels 0 to 3");
        refused(&mut s, &|s| s.rule_add(1, 1, 0, m(&[]), FWD1), "priority 0: from 1 to 1000000");
        // Another VDP's mapping rule that would take some of VDP 1's packets.
        refused(
            &mut s,
            &|s| {
                s.create(2, 1, 1, 0)?;
                s.map_add(2, 4, 100, m(&["vlan=100"]))
            },
            "VDP 2 mapping rule 4 (vlan=0x64) overlaps VDP 1's mapping rule 1: a packet could belong to both",
        );
        // More rules than the slices hold: 4 slices of 8, less the default and the catch-all.
        refused(
            &mut s,
            &|s| (1..=31).try_for_each(|r| s.rule_add(1, r, r, m(&[]), FWD1)),
            "VDP 1: its 4 action slices hold 30 rules beside its default, all taken",
        );
        refused(&mut s, &|s| s.rule_add(1, 1, 5, m(&[]), FWD1).and_then(|_| s.rule_add(1, 2, 5, m(&[]), FWD1)), "VDP 1: rule 1 has priority 5 already");
        assert_eq!(s.entries(), before);
        assert_eq!(s.vdps.len(), 1);
        // Non-overlapping mapping rules of two VDPs are fine.
        s.change(|s| {
            s.create(2, 1, 1, 0)?;
            s.map_add(2, 1, 1, m(&["in_port=1"]))
        })
        .unwrap();
        assert_eq!(s.slices_searched(2), Some((1, 8)));
    }
}

//! One table's entries as the control plane sees them: handles, duplicates, which entry wins.
//! This is the plain statement of the rules ([`Precedence`]); the software switch keeps its entries
//! in indexes built for speed, and its tests check that those agree with this store.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use crate::catalog::Precedence;
use crate::convert::{duplicate, prefix_len};
use crate::requests::NewEntry;
use crate::snapshot::{EntrySnapshot, TableSnapshot};
use crate::{Handle, Match};

#[derive(Clone, Debug)]
struct Stored {
    entry: NewEntry,
    /// Insertion order, unique within the table: breaks priority ties.
    seq: u64,
    /// Direct counts (packets, bytes).
    counts: (u64, u64),
    /// The members an action selector's entry chooses among (`None`: a plain entry).
    members: Option<crate::Members>,
    /// A packet hit it since the hits were last taken.
    hit: bool,
}

/// The entries of one table and its default action.
#[derive(Clone, Debug)]
pub struct EntryStore {
    precedence: Precedence,
    /// By handle.
    entries: Vec<Option<Stored>>,
    /// Handles of removed entries: the next insert takes the smallest (as BMv2's handle manager).
    free: BinaryHeap<Reverse<Handle>>,
    /// What makes two entries the same entry (see [`EntryStore::identity`]) → its handle.
    by_identity: HashMap<(Vec<Match>, i64), Handle>,
    next_seq: u64,
    default: (usize, Vec<u128>),
}

impl EntryStore {
    pub fn new(precedence: Precedence) -> EntryStore {
        EntryStore {
            precedence,
            entries: Vec::new(),
            free: BinaryHeap::new(),
            by_identity: HashMap::new(),
            next_seq: 0,
            default: (0, Vec::new()),
        }
    }

    /// The same keys (and, where priorities decide, the same priority) make the same entry.
    fn identity(&self, e: &NewEntry) -> (Vec<Match>, i64) {
        let priority = if self.precedence == Precedence::Priority { e.priority } else { 0 };
        (e.matches.clone(), priority)
    }

    /// Adds an entry and gives its handle; refuses a duplicate, and an lpm key that is no prefix.
    pub fn insert(&mut self, entry: NewEntry) -> Result<Handle, String> {
        if let Precedence::LongestPrefix { field, width } = self.precedence {
            match entry.matches.get(field) {
                Some(Match::Mask(_, m)) if prefix_len(*m, width).is_some() => {}
                Some(Match::Mask(..)) => return Err("lpm mask is not a prefix".into()),
                _ => return Err("lpm key must be a prefix".into()),
            }
        }
        let id = self.identity(&entry);
        if let Some(existing) = self.by_identity.get(&id) {
            let what = if self.precedence == Precedence::Priority { "key and priority" } else { "key" };
            return Err(duplicate(*existing, what));
        }
        let handle = match self.free.pop() {
            Some(Reverse(h)) => h,
            None => {
                self.entries.push(None);
                self.entries.len() as Handle - 1
            }
        };
        self.by_identity.insert(id, handle);
        self.entries[handle as usize] = Some(Stored { entry, seq: self.next_seq, counts: (0, 0), members: None, hit: false });
        self.next_seq += 1;
        Ok(handle)
    }

    pub fn remove(&mut self, handle: Handle) -> Result<(), String> {
        let stored = self
            .entries
            .get_mut(handle as usize)
            .and_then(Option::take)
            .ok_or_else(|| format!("no entry with handle {handle}"))?;
        let id = self.identity(&stored.entry);
        self.by_identity.remove(&id);
        self.free.push(Reverse(handle));
        Ok(())
    }

    /// Removes every entry; handles start again from 0.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.free.clear();
        self.by_identity.clear();
    }

    /// Gives entry `handle` another action and data; `false`: there is no such entry.
    pub fn set_action(&mut self, handle: Handle, action: usize, args: Vec<u128>) -> bool {
        match self.entries.get_mut(handle as usize).and_then(Option::as_mut) {
            Some(s) => {
                s.entry.action = action;
                s.entry.args = args;
                s.members = None;
                true
            }
            None => false,
        }
    }

    /// Makes entry `handle` choose among `members` (see `ControlPlane::table_select`); `false`:
    /// there is no such entry.
    pub fn set_members(&mut self, handle: Handle, members: crate::Members) -> bool {
        match self.entries.get_mut(handle as usize).and_then(Option::as_mut) {
            Some(s) => {
                s.members = Some(members);
                true
            }
            None => false,
        }
    }

    /// Notes that a packet hit entry `handle`.
    pub fn mark_hit(&mut self, handle: Handle) {
        if let Some(s) = self.entries.get_mut(handle as usize).and_then(Option::as_mut) {
            s.hit = true;
        }
    }

    /// The entries hit since the last call, in handle order; forgets them.
    pub fn take_hits(&mut self) -> Vec<Handle> {
        let hit = self.entries.iter_mut().enumerate().filter_map(|(h, s)| s.as_mut().filter(|s| s.hit).map(|s| (h, s)));
        hit.map(|(h, s)| {
            s.hit = false;
            h as Handle
        })
        .collect()
    }

    /// The members entry `handle` chooses among, if it is an action selector's group entry.
    pub fn members(&self, handle: Handle) -> Option<&[(usize, Vec<u128>)]> {
        self.entries.get(handle as usize)?.as_ref()?.members.as_deref()
    }

    pub fn set_default(&mut self, action: usize, args: Vec<u128>) {
        self.default = (action, args);
    }

    /// Entry `handle`'s direct counts (`None`: no such entry).
    pub fn counts(&self, handle: Handle) -> Option<(u64, u64)> {
        Some(self.entries.get(handle as usize)?.as_ref()?.counts)
    }

    /// Sets entry `handle`'s direct counts; `false`: there is no such entry.
    pub fn set_counts(&mut self, handle: Handle, counts: (u64, u64)) -> bool {
        match self.entries.get_mut(handle as usize).and_then(Option::as_mut) {
            Some(s) => {
                s.counts = counts;
                true
            }
            None => false,
        }
    }

    pub fn reset_counts(&mut self) {
        for s in self.entries.iter_mut().flatten() {
            s.counts = (0, 0);
        }
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len() - self.free.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether entry `handle` exists.
    pub fn contains(&self, handle: Handle) -> bool {
        matches!(self.entries.get(handle as usize), Some(Some(_)))
    }

    /// The live handles, the winner of any key before the entries it beats.
    pub fn precedence(&self) -> Vec<Handle> {
        let live = self.entries.iter().enumerate().filter_map(|(h, s)| Some((h as Handle, s.as_ref()?)));
        let mut ranked: Vec<((i64, u64), Handle)> = match self.precedence {
            Precedence::Exact => live.map(|(h, _)| ((0, h), h)).collect(),
            Precedence::LongestPrefix { field, width } => live
                .map(|(h, s)| {
                    let len = match s.entry.matches.get(field) {
                        Some(Match::Mask(_, m)) => prefix_len(*m, width).unwrap_or(0),
                        _ => 0,
                    };
                    ((-i64::from(len), h), h)
                })
                .collect(),
            Precedence::Priority => live.map(|(h, s)| ((s.entry.priority, s.seq), h)).collect(),
        };
        ranked.sort_unstable();
        ranked.into_iter().map(|(_, h)| h).collect()
    }

    /// The entry a packet with key `key` (one value per key field) hits, if any.
    pub fn lookup(&self, key: &[u128]) -> Option<Handle> {
        self.precedence().into_iter().find(|h| {
            self.entries[*h as usize].as_ref().is_some_and(|s| {
                s.entry.matches.len() == key.len() && s.entry.matches.iter().zip(key).all(|(m, k)| m.matches(*k))
            })
        })
    }

    /// The entries in precedence order and the default action.
    pub fn snapshot(&self) -> TableSnapshot {
        let entries = self
            .precedence()
            .into_iter()
            .filter_map(|h| {
                let s = self.entries[h as usize].as_ref()?;
                Some(EntrySnapshot {
                    handle: h,
                    matches: s.entry.matches.clone(),
                    action: s.entry.action,
                    args: s.entry.args.clone(),
                })
            })
            .collect();
        TableSnapshot { entries, default_action: self.default.0, default_args: self.default.1.clone() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(matches: Vec<Match>, priority: i64) -> NewEntry {
        NewEntry { matches, priority, action: 0, args: vec![] }
    }

    #[test]
    fn the_longest_prefix_wins_and_handles_are_reused_smallest_first() {
        let mut t = EntryStore::new(Precedence::LongestPrefix { field: 0, width: 32 });
        let short = t.insert(entry(vec![Match::Mask(0x0a00_0000, 0xff00_0000)], 0)).expect("/8");
        let long = t.insert(entry(vec![Match::Mask(0x0a01_0000, 0xffff_0000)], 0)).expect("/16");
        assert_eq!((short, long), (0, 1));
        assert_eq!(t.lookup(&[0x0a01_0203]), Some(long));
        assert_eq!(t.lookup(&[0x0a02_0203]), Some(short));
        assert_eq!(t.precedence(), vec![long, short]);
        assert_eq!(
            t.insert(entry(vec![Match::Mask(0x0a01_0000, 0xffff_0000)], 0)),
            Err("duplicate entry: the entry with handle 1 has the same key".into())
        );
        assert_eq!(
            t.insert(entry(vec![Match::Mask(0x0a01_0000, 0xff0f_0000)], 0)),
            Err("lpm mask is not a prefix".into())
        );
        t.remove(short).expect("remove");
        assert_eq!(t.lookup(&[0x0a02_0203]), None);
        assert_eq!(t.insert(entry(vec![Match::Mask(0, 0)], 0)), Ok(0), "the freed handle is taken again");
    }

    #[test]
    fn priorities_win_then_the_earlier_entry() {
        let mut t = EntryStore::new(Precedence::Priority);
        let any = Match::Mask(0, 0);
        let a = t.insert(entry(vec![any], 5)).expect("a");
        let b = t.insert(entry(vec![Match::Mask(1, 0xff)], 5)).expect("b");
        let c = t.insert(entry(vec![Match::Mask(1, 0x0f)], 2)).expect("c");
        assert_eq!(t.precedence(), vec![c, a, b]);
        assert_eq!(t.lookup(&[1]), Some(c));
        assert_eq!(t.lookup(&[2]), Some(a));
        assert!(t.insert(entry(vec![any], 6)).is_ok(), "another priority is another entry");
        assert_eq!(
            t.insert(entry(vec![any], 5)),
            Err("duplicate entry: the entry with handle 0 has the same key and priority".into())
        );
    }
}

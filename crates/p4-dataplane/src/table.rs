//! Match-action table storage and lookup.
//!
//! Three index shapes, chosen from the key's match kinds when the switch is built (as BMv2 does):
//! - **exact** (only exact keys): one hash map from the key tuple to the entry;
//! - **lpm** (exact keys + one lpm key): one hash map per prefix length, probed longest first;
//! - **ternary** (any ternary/range/optional key): entries sorted by priority (smaller number wins,
//!   ties by insertion order) and scanned in that order.
//!
//! Invariants: `entries[h]` is `Some` exactly for live handles, and every live handle appears once in
//! the index; masked values are stored pre-masked (`value & mask`).

use std::collections::HashMap as StdHashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::bits::mask;
use crate::meter::Meter;

/// A fast multiply-mix hasher for key tuples of `u128`s (SipHash dominated lookups). Not
/// collision-resistant against chosen keys; tables are sized by the control plane, not by traffic.
#[derive(Clone, Copy, Debug, Default)]
pub struct KeyHasher(u64);

const MIX: u64 = 0x9E37_79B9_7F4A_7C15;

impl KeyHasher {
    #[inline]
    fn mix(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(23) ^ x).wrapping_mul(MIX);
    }
}

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            if let Some(dst) = b.get_mut(..chunk.len()) {
                dst.copy_from_slice(chunk);
            }
            self.mix(u64::from_le_bytes(b));
        }
    }
    #[inline]
    fn write_u128(&mut self, v: u128) {
        self.mix(v as u64);
        self.mix((v >> 64) as u64);
    }
    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.mix(n as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        // Fold the well-mixed high bits into the low bits the bucket index uses.
        let h = self.0;
        (h ^ (h >> 32)).wrapping_mul(MIX) ^ (h >> 29)
    }
}

type HashMap<K, V> = StdHashMap<K, V, BuildHasherDefault<KeyHasher>>;
/// Key tuple → entry handle.
type KeyMap = HashMap<Box<[u128]>, u64>;

/// How one key component of an entry matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Match {
    /// `key & mask == value` (exact: mask all ones; LPM: prefix mask).
    Mask(u128, u128),
    /// `lo <= key <= hi`
    Range(u128, u128),
}

impl Match {
    #[inline]
    fn matches(&self, key: u128) -> bool {
        match *self {
            Match::Mask(v, m) => key & m == v,
            Match::Range(lo, hi) => lo <= key && key <= hi,
        }
    }
}

/// Which index a table uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexKind {
    Exact,
    /// Position of the lpm key within the key tuple.
    Lpm(usize),
    Ternary,
}

/// An installed entry.
#[derive(Clone, Debug)]
pub struct Entry {
    pub matches: Vec<Match>,
    /// Smaller wins.
    pub priority: i64,
    /// Index into the table's action list.
    pub action: usize,
    pub args: Vec<u128>,
    pub packets: u64,
    pub bytes: u64,
    pub meter: Meter,
}

#[derive(Clone, Debug)]
enum Index {
    Exact(HashMap<Box<[u128]>, u64>),
    /// A key of one field: its value is the map key (no slice to hash and compare).
    Exact1(HashMap<u128, u64>),
    /// `(prefix length, masked key tuple → handle)`, longest prefix first.
    Lpm { pos: usize, width: u32, by_len: Vec<(u32, KeyMap)> },
    /// The lpm field alone: `(prefix length, its mask, masked value → handle)`, longest first.
    Lpm1 { width: u32, by_len: Vec<(u32, u128, HashMap<u128, u64>)> },
    Ternary(Vec<u64>),
}

/// The mutable state of one table.
#[derive(Clone, Debug)]
pub struct TableState {
    pub entries: Vec<Option<Entry>>,
    index: Index,
    /// Scratch for LPM probes (reused; never shrinks).
    probe: Vec<u128>,
}

/// Prefix length of a prefix mask of `width` bits, or `None` if `m` is not one.
pub fn prefix_len(m: u128, width: u32) -> Option<u32> {
    let ones = m.count_ones();
    (prefix_mask(ones, width) == m).then_some(ones)
}

/// The mask of the `len` most significant bits of a `width`-bit field.
pub fn prefix_mask(len: u32, width: u32) -> u128 {
    mask(width) & !mask(width.saturating_sub(len))
}

/// The refusal of an entry that duplicates the entry with handle `existing`.
fn duplicate(existing: u64, what: &str) -> String {
    format!("duplicate entry: the entry with handle {existing} has the same {what}")
}

fn exact_key(matches: &[Match]) -> Box<[u128]> {
    matches.iter().map(|m| match *m { Match::Mask(v, _) | Match::Range(v, _) => v }).collect()
}

impl TableState {
    /// An empty table; `lpm_width` is the lpm key's width for [`IndexKind::Lpm`].
    pub fn new(kind: IndexKind, lpm_width: u32) -> TableState {
        TableState::with_fields(kind, lpm_width, 0)
    }

    /// An empty table whose keys have `fields` fields (a one-field exact or lpm table gets an
    /// index keyed by the value itself; 0: not known, the general index).
    pub fn with_fields(kind: IndexKind, lpm_width: u32, fields: usize) -> TableState {
        let index = match (kind, fields) {
            (IndexKind::Exact, 1) => Index::Exact1(HashMap::default()),
            (IndexKind::Exact, _) => Index::Exact(HashMap::default()),
            (IndexKind::Lpm(0), 1) => Index::Lpm1 { width: lpm_width, by_len: Vec::new() },
            (IndexKind::Lpm(pos), _) => Index::Lpm { pos, width: lpm_width, by_len: Vec::new() },
            (IndexKind::Ternary, _) => Index::Ternary(Vec::new()),
        };
        TableState { entries: Vec::new(), index, probe: Vec::new() }
    }

    /// Number of live entries.
    pub fn len(&self) -> usize {
        self.entries.iter().filter(|e| e.is_some()).count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Installs an entry and returns its handle; refuses a duplicate (BMv2's DUPLICATE_ENTRY): the same
    /// key in exact/lpm tables, the same key and priority in ternary tables.
    pub fn insert(&mut self, entry: Entry) -> Result<u64, String> {
        let handle = self.entries.len() as u64;
        match &mut self.index {
            Index::Exact(map) => {
                let key = exact_key(&entry.matches);
                if let Some(existing) = map.get(&key) {
                    return Err(duplicate(*existing, "key"));
                }
                map.insert(key, handle);
            }
            Index::Exact1(map) => {
                let key = exact_key(&entry.matches).first().copied().ok_or("a key of one field has none")?;
                if let Some(existing) = map.get(&key) {
                    return Err(duplicate(*existing, "key"));
                }
                map.insert(key, handle);
            }
            Index::Lpm1 { width, by_len } => {
                let (value, len) = match entry.matches.first() {
                    Some(Match::Mask(v, m)) => (*v, prefix_len(*m, *width).ok_or("lpm mask is not a prefix")?),
                    _ => return Err("lpm key must be a prefix".into()),
                };
                let slot = match by_len.iter().position(|(l, _, _)| *l == len) {
                    Some(i) => i,
                    None => {
                        let at = by_len.iter().position(|(l, _, _)| *l < len).unwrap_or(by_len.len());
                        by_len.insert(at, (len, prefix_mask(len, *width), HashMap::default()));
                        at
                    }
                };
                let map = &mut by_len[slot].2;
                if let Some(existing) = map.get(&value) {
                    return Err(duplicate(*existing, "key"));
                }
                map.insert(value, handle);
            }
            Index::Lpm { pos, width, by_len } => {
                let len = match entry.matches.get(*pos) {
                    Some(Match::Mask(_, m)) => prefix_len(*m, *width).ok_or("lpm mask is not a prefix")?,
                    _ => return Err("lpm key must be a prefix".into()),
                };
                let key = exact_key(&entry.matches);
                let slot = match by_len.iter().position(|(l, _)| *l == len) {
                    Some(i) => i,
                    None => {
                        let at = by_len.iter().position(|(l, _)| *l < len).unwrap_or(by_len.len());
                        by_len.insert(at, (len, HashMap::default()));
                        at
                    }
                };
                let map = &mut by_len[slot].1;
                if let Some(existing) = map.get(&key) {
                    return Err(duplicate(*existing, "key"));
                }
                map.insert(key, handle);
            }
            Index::Ternary(order) => {
                // As BMv2: the same values, masks/ranges and priority would be two entries of which
                // only the first could ever match.
                let same = |e: &Entry| e.priority == entry.priority && e.matches == entry.matches;
                if let Some(existing) = order.iter().copied().find(|h| self.entries.get(*h as usize).and_then(Option::as_ref).is_some_and(same)) {
                    return Err(duplicate(existing, "key and priority"));
                }
                let at = order.partition_point(|h| {
                    self.entries
                        .get(*h as usize)
                        .and_then(|e| e.as_ref())
                        .is_some_and(|e| e.priority <= entry.priority)
                });
                order.insert(at, handle);
            }
        }
        self.entries.push(Some(entry));
        Ok(handle)
    }

    /// Removes an entry.
    pub fn remove(&mut self, handle: u64) -> Result<Entry, String> {
        let entry = self
            .entries
            .get_mut(handle as usize)
            .and_then(Option::take)
            .ok_or_else(|| format!("no entry with handle {handle}"))?;
        match &mut self.index {
            Index::Exact(map) => {
                map.remove(&exact_key(&entry.matches));
            }
            Index::Exact1(map) => {
                if let Some(key) = exact_key(&entry.matches).first() {
                    map.remove(key);
                }
            }
            Index::Lpm1 { by_len, .. } => {
                let value = exact_key(&entry.matches).first().copied().unwrap_or(0);
                for (_, _, map) in by_len.iter_mut() {
                    if map.get(&value) == Some(&handle) {
                        map.remove(&value);
                    }
                }
                by_len.retain(|(_, _, m)| !m.is_empty());
            }
            Index::Lpm { by_len, .. } => {
                let key = exact_key(&entry.matches);
                for (_, map) in by_len.iter_mut() {
                    if map.get(&key) == Some(&handle) {
                        map.remove(&key);
                    }
                }
                by_len.retain(|(_, m)| !m.is_empty());
            }
            Index::Ternary(order) => order.retain(|h| *h != handle),
        }
        Ok(entry)
    }

    /// Removes every entry (handles are not reused).
    pub fn clear(&mut self) {
        for e in self.entries.iter_mut() {
            *e = None;
        }
        match &mut self.index {
            Index::Exact(map) => map.clear(),
            Index::Exact1(map) => map.clear(),
            Index::Lpm { by_len, .. } => by_len.clear(),
            Index::Lpm1 { by_len, .. } => by_len.clear(),
            Index::Ternary(order) => order.clear(),
        }
    }

    pub fn get_mut(&mut self, handle: u64) -> Option<&mut Entry> {
        self.entries.get_mut(handle as usize).and_then(Option::as_mut)
    }

    /// Handles of the live entries in the order a first-match lookup must try them to give the
    /// same winner as [`TableState::lookup`]: ternary by priority then insertion, LPM by prefix
    /// length (longest first), exact in handle order (exact keys never overlap).
    pub fn precedence(&self) -> Vec<u64> {
        match &self.index {
            Index::Exact(_) | Index::Exact1(_) => (0..self.entries.len() as u64).filter(|h| self.entries[*h as usize].is_some()).collect(),
            Index::Lpm1 { by_len, .. } => {
                let mut hs: Vec<u64> = Vec::new();
                for (_, _, map) in by_len {
                    let mut level: Vec<u64> = map.values().copied().collect();
                    level.sort_unstable();
                    hs.extend(level);
                }
                hs
            }
            Index::Lpm { by_len, .. } => {
                let mut hs: Vec<u64> = Vec::new();
                for (_, map) in by_len {
                    let mut level: Vec<u64> = map.values().copied().collect();
                    level.sort_unstable();
                    hs.extend(level);
                }
                hs
            }
            Index::Ternary(order) => order.clone(),
        }
    }

    /// The handle of the winning entry for `key`, if any.
    pub fn lookup(&mut self, key: &[u128]) -> Option<u64> {
        match &self.index {
            Index::Exact(map) => map.get(key).copied(),
            Index::Exact1(map) => key.first().and_then(|k| map.get(k)).copied(),
            Index::Lpm1 { by_len, .. } => {
                let k = key.first().copied().unwrap_or(0);
                by_len.iter().find_map(|(_, mask, map)| map.get(&(k & mask)).copied())
            }
            Index::Lpm { pos, width, by_len } => {
                self.probe.clear();
                self.probe.extend_from_slice(key);
                let full = key.get(*pos).copied().unwrap_or(0);
                for (len, map) in by_len {
                    if let Some(k) = self.probe.get_mut(*pos) {
                        *k = full & prefix_mask(*len, *width);
                    }
                    if let Some(h) = map.get(self.probe.as_slice()) {
                        return Some(*h);
                    }
                }
                None
            }
            Index::Ternary(order) => order.iter().copied().find(|h| {
                self.entries.get(*h as usize).and_then(|e| e.as_ref()).is_some_and(|e| {
                    e.matches.len() == key.len() && e.matches.iter().zip(key).all(|(m, k)| m.matches(*k))
                })
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(matches: Vec<Match>, priority: i64, action: usize) -> Entry {
        Entry { matches, priority, action, args: vec![], packets: 0, bytes: 0, meter: Meter::default() }
    }

    #[test]
    fn exact_lookup_and_duplicates() {
        let mut t = TableState::new(IndexKind::Exact, 0);
        let h = t.insert(entry(vec![Match::Mask(5, 0xff), Match::Mask(1, 1)], 0, 0));
        assert_eq!(h, Ok(0));
        assert_eq!(
            t.insert(entry(vec![Match::Mask(5, 0xff), Match::Mask(1, 1)], 0, 1)),
            Err("duplicate entry: the entry with handle 0 has the same key".to_string())
        );
        assert_eq!(t.lookup(&[5, 1]), Some(0));
        assert_eq!(t.lookup(&[5, 0]), None);
        assert!(t.remove(0).is_ok());
        assert_eq!(t.lookup(&[5, 1]), None);
    }

    #[test]
    fn longest_prefix_wins_regardless_of_order() {
        let mut t = TableState::new(IndexKind::Lpm(0), 32);
        let p = |v: u128, len: u32| Match::Mask(v & prefix_mask(len, 32), prefix_mask(len, 32));
        assert_eq!(t.insert(entry(vec![p(0x0a00_0000, 8)], 0, 0)), Ok(0));
        assert_eq!(t.insert(entry(vec![p(0x0a01_0200, 24)], 0, 1)), Ok(1));
        assert_eq!(t.insert(entry(vec![p(0, 0)], 0, 2)), Ok(2));
        assert_eq!(t.lookup(&[0x0a01_0203]), Some(1));
        assert_eq!(t.lookup(&[0x0a02_0203]), Some(0));
        assert_eq!(t.lookup(&[0x0b00_0000]), Some(2));
        assert_eq!(prefix_len(0xffff_ff00, 32), Some(24));
        assert_eq!(prefix_len(0xff00_ff00, 32), None);
    }

    #[test]
    fn ternary_smaller_priority_wins_then_insertion_order() {
        let mut t = TableState::new(IndexKind::Ternary, 0);
        assert_eq!(t.insert(entry(vec![Match::Mask(0x04, 0xfc)], 10, 0)), Ok(0));
        assert_eq!(t.insert(entry(vec![Match::Mask(0x00, 0x00)], 20, 1)), Ok(1));
        assert_eq!(t.insert(entry(vec![Match::Range(4, 6)], 5, 2)), Ok(2));
        assert_eq!(t.insert(entry(vec![Match::Range(3, 6)], 5, 3)), Ok(3));
        assert_eq!(t.lookup(&[0x05]), Some(2));
        assert_eq!(t.lookup(&[0x07]), Some(0));
        assert_eq!(t.lookup(&[0x80]), Some(1));
        assert!(t.remove(2).is_ok());
        assert_eq!(t.lookup(&[0x05]), Some(3));
    }

    #[test]
    fn one_field_indexes_agree_with_the_general_ones() {
        let p = |v: u128, len: u32| Match::Mask(v & prefix_mask(len, 32), prefix_mask(len, 32));
        for fields in [0, 1] {
            let mut t = TableState::with_fields(IndexKind::Lpm(0), 32, fields);
            assert_eq!(t.insert(entry(vec![p(0x0a00_0000, 8)], 0, 0)), Ok(0));
            assert_eq!(t.insert(entry(vec![p(0x0a01_0200, 24)], 0, 1)), Ok(1));
            assert_eq!(t.insert(entry(vec![p(0, 0)], 0, 2)), Ok(2));
            assert_eq!(t.insert(entry(vec![p(0x0a01_0200, 24)], 0, 1)), Err("duplicate entry: the entry with handle 1 has the same key".to_string()));
            assert_eq!((t.lookup(&[0x0a01_0203]), t.lookup(&[0x0a02_0203]), t.lookup(&[0x0b00_0000])), (Some(1), Some(0), Some(2)));
            assert_eq!(t.precedence(), vec![1, 0, 2]);
            assert!(t.remove(1).is_ok());
            assert_eq!(t.lookup(&[0x0a01_0203]), Some(0), "fields {fields}");
            let mut e = TableState::with_fields(IndexKind::Exact, 0, fields);
            assert_eq!(e.insert(entry(vec![Match::Mask(7, 0xff)], 0, 0)), Ok(0));
            assert_eq!(e.insert(entry(vec![Match::Mask(7, 0xff)], 0, 1)), Err("duplicate entry: the entry with handle 0 has the same key".to_string()));
            assert_eq!((e.lookup(&[7]), e.lookup(&[8])), (Some(0), None));
            assert!(e.remove(0).is_ok());
            assert_eq!(e.lookup(&[7]), None);
            e.clear();
            assert!(e.is_empty());
        }
    }

    #[test]
    fn lpm_duplicates_are_the_same_prefix_and_length() {
        let mut t = TableState::new(IndexKind::Lpm(0), 32);
        let p = |v: u128, len: u32| Match::Mask(v & prefix_mask(len, 32), prefix_mask(len, 32));
        assert_eq!(t.insert(entry(vec![p(0x0a00_0000, 8)], 0, 0)), Ok(0));
        assert_eq!(t.insert(entry(vec![p(0x0a00_0000, 16)], 0, 0)), Ok(1), "another length is another entry");
        assert_eq!(t.insert(entry(vec![p(0x0a00_0000, 8)], 0, 1)), Err("duplicate entry: the entry with handle 0 has the same key".to_string()));
    }

    #[test]
    fn ternary_duplicates_are_the_same_keys_masks_and_priority() {
        let mut t = TableState::new(IndexKind::Ternary, 0);
        assert_eq!(t.insert(entry(vec![Match::Mask(0x0a, 0xff), Match::Range(1, 2)], 10, 0)), Ok(0));
        assert_eq!(t.insert(entry(vec![Match::Mask(0x0a, 0xff), Match::Range(1, 2)], 11, 0)), Ok(1), "another priority");
        assert_eq!(t.insert(entry(vec![Match::Mask(0x0a, 0x0f), Match::Range(1, 2)], 10, 0)), Ok(2), "another mask");
        assert_eq!(
            t.insert(entry(vec![Match::Mask(0x0a, 0xff), Match::Range(1, 2)], 10, 3)),
            Err("duplicate entry: the entry with handle 0 has the same key and priority".to_string())
        );
        assert!(t.remove(0).is_ok());
        assert_eq!(t.insert(entry(vec![Match::Mask(0x0a, 0xff), Match::Range(1, 2)], 10, 3)), Ok(3), "a deleted entry is no duplicate");
    }
}

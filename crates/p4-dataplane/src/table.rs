//! Match-action table storage and lookup.
//!
//! Three index shapes, chosen from the key's match kinds when the switch is built (as BMv2 does):
//! - **exact** (only exact keys): one hash map from the key tuple to the entry;
//! - **lpm** (exact keys + one lpm key): one hash map per prefix length, probed longest first;
//! - **ternary** (entries carry priorities: any ternary/range/optional key, or more than one lpm
//!   key): the smallest priority number wins, ties by insertion order (not by handle: handles are
//!   reused). A tuple-space search (`table/tuple_space.rs`): entries grouped by shape (per field its mask, or
//!   "range"), one hash map per shape from the values to the entries holding them, best first;
//!   shapes probed in the order of the best entry each holds, stopping once the match in hand
//!   beats every shape left. Range fields are left out of the hash and checked entry by entry in
//!   the bucket the other fields select. A lookup costs a hash probe per shape (a shape of one entry
//!   is compared instead), not a comparison per entry: with 1,000 ACL rules of 10 shapes, 25–30 ×
//!   fewer nanoseconds; with a shape per entry, about the scan's cost (`benches/ternary.rs`).
//!   [`TableState::first_match`] keeps the priority-ordered scan it replaced, as the reference.
//!
//! A table whose key is the lpm field alone, at most 32 bits wide (IPv4 routes), also keeps an
//! `LpmTrie` beside its per-length maps, because probing one map per length (4+ hashes for a
//! routing table) dominated its lookups: a multibit trie with fixed strides (16, 8, 8 for 32 bits)
//! and controlled prefix expansion, where a lookup reads one `u32` slot per level it descends and
//! then the winner's handle, with no hashing. The maps stay the source of truth (duplicates,
//! [`TableState::precedence`], the fallback when a prefix is removed); the trie is updated
//! incrementally with them and only answers lookups. Its cost: nothing until the first insert,
//! then a root of `4 << min(width, 16)` bytes (256 KiB for 32 bits) and 1 KiB per node below it
//! (for 32 bits: one per /16 and one per /24 that holds a longer prefix).
//!
//! Invariants: `entries[h]` is `Some` exactly for live handles, every other `h < entries.len()` is in
//! `free` (given out again smallest first, as BMv2 does, so churn does not grow the table), and every
//! live handle appears once in the index; an entry's matches and priority are never changed in place
//! (the index is keyed by them: [`TableState::get_mut`] is for action, data, counters and meter);
//! masked values are stored pre-masked (`value & mask`). An entry whose value has bits outside its
//! mask can never match: an lpm one is in the maps (so it is a duplicate, listed and removable) but
//! not in the trie; a ternary one is in its shape's members but in no bucket. The trie gives, for
//! every key, the entry the maps' probing would give; the tuple space, the entry the scan would.

use std::collections::HashMap as StdHashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::bits::mask;
use crate::meter::Meter;

mod flat;
mod tuple_space;
use flat::FlatMap;
pub(crate) use flat::{FlatSlot, EMPTY as FLAT_EMPTY, MIX as FLAT_MIX};
use tuple_space::TupleSpace;

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
    fn write_u64(&mut self, n: u64) {
        self.mix(n);
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

pub use p4_control::Match;

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
    pub meter: Meter,
}

/// An entry's direct counts, kept by handle in [`TableState`] (not in the entry) so that generated
/// code adds to them where it found the entry (`#[repr(C)]`: at their offsets).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Count {
    pub packets: u64,
    pub bytes: u64,
}

#[derive(Clone, Debug)]
enum Index {
    Exact(HashMap<Box<[u128]>, u64>),
    /// Exact fields of at most 128 bits in all: the map key is their values packed into one
    /// number ([`pack`]; one field: its value), not a slice to hash and compare.
    ExactPacked { widths: Box<[u32]>, map: OneFieldMap },
    /// `(prefix length, masked key tuple → handle)`, longest prefix first.
    Lpm { pos: usize, width: u32, by_len: Vec<(u32, KeyMap)> },
    /// The lpm field alone: `(prefix length, its mask, masked value → handle)`, longest first;
    /// for a width of 1..=32 bits, also a trie answering lookups from the same entries.
    Lpm1 { width: u32, by_len: Vec<(u32, u128, HashMap<u128, u64>)>, trie: Option<LpmTrie> },
    /// Entries with priorities, grouped by shape (tuple-space search).
    Ternary(TupleSpace),
}

/// An entry's action and data as a packet that hits it needs them, kept apart from the entry (by
/// handle, in [`TableState`]) so a hit reads one small record instead of the whole entry and then
/// its data on the heap. 32 bytes, two to a cache line: a table of a thousand entries keeps its
/// records in 32 KiB.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct Hit {
    /// Index into the table's action list.
    pub action: u32,
    /// Number of data values; [`Hit::IN_ENTRY`]: the data are only in the entry.
    len: u32,
    inline: [u64; Hit::INLINE],
}

impl Hit {
    /// Data values kept in the record (most actions take no more).
    pub const INLINE: usize = 3;
    /// A record of action 0 without data (a vacant slot's).
    pub(crate) const NONE: Hit = Hit { action: 0, len: 0, inline: [0; Hit::INLINE] };
    /// The number of data values of a record that does not hold them (read by generated code too).
    pub(crate) const IN_ENTRY: u32 = u32::MAX;

    /// Where generated machine code finds the data of a record, and their number.
    pub(crate) const DATA_OFFSET: usize = std::mem::offset_of!(Hit, inline);
    pub(crate) const LEN_OFFSET: usize = std::mem::offset_of!(Hit, len);

    fn of(entry: &Entry) -> Hit {
        Hit::new(entry.action, &entry.args)
    }

    fn new(action: usize, args: &[u128]) -> Hit {
        let mut hit = Hit { action: action as u32, len: Hit::IN_ENTRY, inline: [0; Hit::INLINE] };
        // Only data that all fit 64 bits (MAC and IPv4 addresses, ports: nearly all) are kept here.
        if args.len() <= Hit::INLINE && args.iter().all(|v| u64::try_from(*v).is_ok()) {
            hit.len = args.len() as u32;
            for (to, v) in hit.inline.iter_mut().zip(args) {
                *to = *v as u64;
            }
        }
        hit
    }

    /// The action's data, when the record holds them all.
    #[inline]
    pub fn data(&self) -> Option<&[u64]> {
        self.inline.get(..self.len as usize)
    }
}

/// Entry handles by the value of a one-field key. Values that fit 64 bits (MAC and IPv4 addresses,
/// ports: nearly every key) live in a flat map of `u64`s that generated code probes too
/// ([`FlatProbe`]); wider ones in a map of their own.
#[derive(Clone, Debug, Default)]
struct OneFieldMap {
    narrow: FlatMap,
    wide: HashMap<u128, u64>,
}

impl OneFieldMap {
    #[inline]
    fn get(&self, key: u128) -> Option<u64> {
        match u64::try_from(key) {
            Ok(k) => self.narrow.get(k),
            Err(_) => self.wide.get(&key).copied(),
        }
    }

    fn insert(&mut self, key: u128, handle: u64, hit: Hit) {
        match u64::try_from(key) {
            Ok(k) => self.narrow.insert(k, handle, hit),
            Err(_) => {
                self.wide.insert(key, handle);
            }
        };
    }

    /// Replaces the record the flat map keeps with `key` (wider keys keep none).
    fn set_hit(&mut self, key: u128, hit: Hit) {
        if let Ok(k) = u64::try_from(key) {
            self.narrow.set_hit(k, hit);
        }
    }

    fn remove(&mut self, key: u128) {
        match u64::try_from(key) {
            Ok(k) => self.narrow.remove(k),
            Err(_) => {
                self.wide.remove(&key);
            }
        };
    }

    fn clear(&mut self) {
        self.narrow.clear();
        self.wide.clear();
    }
}

/// What generated code reads to look a one-field key up in a table's flat map itself and find
/// the record a packet runs (`#[repr(C)]`: read at its offsets; inside [`TableState`], at
/// [`TableState::FLAT_PROBE_OFFSET`]). Refreshed by every change to the table
/// ([`TableState::refresh_flat_probe`]). `slots` is null for a table without a flat map: the code
/// then asks Rust.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub(crate) struct FlatProbe {
    pub(crate) slots: *const FlatSlot,
    /// The shift taking a hash's top bits to a slot, and the index mask.
    pub(crate) shift: u64,
    pub(crate) mask: u64,
    /// The default's record, by value (so it moves with the table).
    pub(crate) default: Hit,
    /// For a table of one lpm field of 1..=32 bits ([`trie_width`]): its trie's slots by level
    /// (the strides are [`trie_strides`] of the width) and its leaves, which generated code walks
    /// itself as [`LpmTrie::lookup`] does. `trie[0]` is null while the trie has no root (no entry
    /// yet, or none since the trie ran out of leaf ids): the code then asks Rust.
    pub(crate) trie: [*const u32; TRIE_LEVELS],
    pub(crate) leaves: *const Leaf,
    /// The entries' direct counts by handle (`TableState::counts`); a record found in a flat-map
    /// slot or a trie leaf has its entry's handle just before it ([`HANDLE_BEFORE_HIT`]).
    pub(crate) counts: *mut Count,
}

/// How far before a record kept in a [`FlatSlot`] or a [`Leaf`] its entry's handle is.
pub(crate) const HANDLE_BEFORE_HIT: usize = 8;
const _: () = assert!(std::mem::offset_of!(FlatSlot, hit) - std::mem::offset_of!(FlatSlot, handle) == HANDLE_BEFORE_HIT);
const _: () = assert!(std::mem::offset_of!(Leaf, hit) - std::mem::offset_of!(Leaf, handle) == HANDLE_BEFORE_HIT);

// SAFETY: the pointers are into the owning `TableState`'s own heap buffers, refreshed whenever
// those change (clones refresh their own), and only read through that table.
unsafe impl Send for FlatProbe {}
unsafe impl Sync for FlatProbe {}

/// The mutable state of one table.
#[derive(Debug)]
pub struct TableState {
    pub entries: Vec<Option<Entry>>,
    /// By handle: the action and data of the entry there ([`Hit`]); kept in step with `entries`
    /// (so an entry's action and data change only through [`TableState::set_action`]).
    hits: Vec<Hit>,
    /// By handle: the entry's direct counts (a removed entry's stay until the handle is reused).
    counts: Vec<Count>,
    /// Handles of removed entries, smallest first: the next insert takes the smallest (as BMv2's
    /// handle manager does), so a table whose entries change under traffic keeps its size.
    free: std::collections::BinaryHeap<std::cmp::Reverse<u64>>,
    /// By handle: the members an action selector's group entry chooses among (action index and
    /// data each); a plain entry has none. Only the full lookup reads them (generated code takes
    /// it for every table with a selector).
    members: HashMap<u64, p4_control::Members>,
    /// By handle: a packet hit the entry since the hits were last taken (tables that record hits;
    /// grown on the first hit).
    hit_bits: Vec<bool>,
    index: Index,
    /// Scratch for LPM probes (reused; never shrinks).
    probe: Vec<u128>,
    /// The action a miss runs (index into the table's action list) and its data, and the same as
    /// a record.
    default: (usize, Vec<u128>),
    default_hit: Hit,
    flat_probe: FlatProbe,
}

impl Clone for TableState {
    fn clone(&self) -> TableState {
        let mut copy = TableState {
            entries: self.entries.clone(),
            hits: self.hits.clone(),
            counts: self.counts.clone(),
            free: self.free.clone(),
            members: self.members.clone(),
            hit_bits: self.hit_bits.clone(),
            index: self.index.clone(),
            probe: self.probe.clone(),
            default: self.default.clone(),
            default_hit: self.default_hit,
            flat_probe: self.flat_probe,
        };
        // The copy's own buffers, not the original's.
        copy.refresh_flat_probe();
        copy
    }
}

pub use p4_control::convert::{duplicate, prefix_len, prefix_mask};

fn exact_key(matches: &[Match]) -> Box<[u128]> {
    matches.iter().map(|m| match *m { Match::Mask(v, _) | Match::Range(v, _) => v }).collect()
}

/// A slot of an [`LpmTrie`] node: `EMPTY`, `CHILD | n` (node `n` of the next level), or leaf
/// `id + 1`. One `u32` a slot keeps the 65,536-slot root of a 32-bit key at 256 KiB.
const EMPTY: u32 = 0;
pub(crate) const CHILD: u32 = 1 << 31;
/// Leaf ids stay below this, so that `id + 1` never reads as a child.
const MAX_LEAVES: usize = (CHILD - 1) as usize;

/// One level of an [`LpmTrie`]: its nodes, `1 << bits` slots each, back to back in one arena.
#[derive(Clone)]
struct Level {
    /// Key bits this level consumes (its stride).
    bits: u32,
    /// The right shift bringing them to the bottom of the key.
    shift: u32,
    /// Key bits consumed by this level and the ones above: prefixes longer than the level above's
    /// `end` and at most this `end` long are expanded into this level's slots.
    end: u32,
    /// Node `n` is `slots[n << bits..(n + 1) << bits]`; level 0 has one node, the root.
    slots: Vec<u32>,
    /// Freed nodes, reused before the arena grows.
    free: Vec<u32>,
}

impl Level {
    /// The slot of node `node` that `key` selects.
    #[inline]
    fn index(&self, node: u32, key: u32) -> usize {
        ((node as usize) << self.bits) | ((key >> self.shift) & ((1 << self.bits) - 1)) as usize
    }
}

/// A prefix in the trie: its entry, its length (a longer prefix overrides a shorter one) and a
/// copy of its entry's record, which generated code reads from the leaf it found
/// ([`FlatProbe::leaves`]) instead of loading the record by handle (one dependent miss fewer per
/// lookup). `#[repr(C)]`: read at its offsets; one cache line each.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct Leaf {
    len: u32,
    handle: u64,
    pub(crate) hit: Hit,
}

/// Longest-prefix match on one key of 1..=32 bits: a multibit trie with fixed strides (the first
/// `min(width, 16)` bits, then 8 at a time, the last stride shorter) and controlled prefix
/// expansion. A prefix ending inside a level's stride fills the `2^(end - len)` slots it covers,
/// and the slots below them in child nodes, except where a longer prefix is; a child node created
/// under a leaf starts filled with that leaf (leaf pushing). So a slot that is not a child holds
/// the longest prefix covering its whole key range, and no longer prefix lies in that range: a
/// lookup reads one slot per level while it finds children, then the leaf's handle.
///
/// A child exists only while its range holds a prefix longer than its parent level's `end`: when
/// a removal leaves a node holding one leaf throughout, it is freed (onto its level's free list)
/// and its parent slot takes that leaf. Memory is thus bounded by the live prefixes' high-water
/// mark. Updates cost the slots a prefix's range covers, never a rebuild.
#[derive(Clone)]
struct LpmTrie {
    /// Root first; the root's slots are allocated by the first insert.
    levels: Vec<Level>,
    /// Leaf ids index this; `free_leaves` are ids to reuse.
    leaves: Vec<Leaf>,
    free_leaves: Vec<u32>,
    /// Entry handle → leaf id, for removal (a prefix overridden everywhere is in no slot).
    leaf_of: HashMap<u64, u32>,
}

impl std::fmt::Debug for LpmTrie {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LpmTrie")
            .field("strides", &self.levels.iter().map(|l| l.bits).collect::<Vec<_>>())
            .field("nodes", &self.levels.iter().map(|l| (l.slots.len() >> l.bits) - l.free.len()).collect::<Vec<_>>())
            .field("prefixes", &self.leaf_of.len())
            .finish()
    }
}

/// One level's stride in an [`LpmTrie`] of a given width: the key bits it consumes and the right
/// shift bringing them to the bottom of the key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stride {
    pub(crate) bits: u32,
    pub(crate) shift: u32,
}

/// The most levels a trie has (a 32-bit key: 16, 8, 8).
pub(crate) const TRIE_LEVELS: usize = 3;

/// The strides of the trie of a key of `width` bits, root first (the first `min(width, 16)` bits,
/// then 8 at a time, the last stride shorter); `None` unless `width` is 1..=32 (no trie then).
pub(crate) fn trie_strides(width: u32) -> Option<Vec<Stride>> {
    if !(1..=32).contains(&width) {
        return None;
    }
    let mut strides = Vec::new();
    let mut end = 0;
    while end < width {
        let bits = if end == 0 { width.min(16) } else { (width - end).min(8) };
        end += bits;
        strides.push(Stride { bits, shift: width - end });
    }
    Some(strides)
}

impl LpmTrie {
    /// An empty trie (no slots yet) for keys of `width` bits; `None` unless `width` is 1..=32.
    fn new(width: u32) -> Option<LpmTrie> {
        let levels = trie_strides(width)?
            .into_iter()
            .map(|Stride { bits, shift }| Level { bits, shift, end: width - shift, slots: Vec::new(), free: Vec::new() })
            .collect();
        Some(LpmTrie { levels, leaves: Vec::new(), free_leaves: Vec::new(), leaf_of: HashMap::default() })
    }

    /// The handle of the longest prefix matching `key` (each level reads only its bits: those
    /// above the width are ignored).
    #[inline]
    fn lookup(&self, key: u128) -> Option<u64> {
        let k = key as u32;
        let mut levels = self.levels.iter();
        let root = levels.next()?;
        let mut slot = *root.slots.get(root.index(0, k))?;
        while slot & CHILD != 0 {
            let level = levels.next()?;
            slot = *level.slots.get(level.index(slot & !CHILD, k))?;
        }
        self.leaves.get(slot.checked_sub(1)? as usize).map(|l| l.handle)
    }

    /// The level a prefix of `len` bits is expanded in.
    fn level_of(&self, len: u32) -> usize {
        self.levels.iter().position(|l| l.end >= len).unwrap_or(0)
    }

    /// Adds prefix `value/len` (`value` pre-masked) of entry `handle` (whose record is `hit`);
    /// `false` when out of leaf ids (the trie is then unusable).
    fn insert(&mut self, value: u32, len: u32, handle: u64, hit: Hit) -> bool {
        let leaf = Leaf { handle, len, hit };
        let id = match self.free_leaves.pop() {
            Some(id) => {
                self.leaves[id as usize] = leaf;
                id
            }
            None if self.leaves.len() < MAX_LEAVES => {
                self.leaves.push(leaf);
                (self.leaves.len() - 1) as u32
            }
            None => return false,
        };
        self.leaf_of.insert(handle, id);
        let root = &mut self.levels[0];
        if root.slots.is_empty() {
            root.slots = vec![EMPTY; 1 << root.bits];
        }
        let target = self.level_of(len);
        let mut node = 0;
        for l in 0..target {
            let i = self.levels[l].index(node, value);
            let s = self.levels[l].slots[i];
            node = if s & CHILD != 0 {
                s & !CHILD
            } else {
                let child = self.alloc_node(l + 1, s);
                self.levels[l].slots[i] = CHILD | child;
                child
            };
        }
        let level = &self.levels[target];
        let first = level.index(node, value);
        for i in first..first + (1 << (level.end - len)) {
            self.cover(target, i, id + 1, len);
        }
        true
    }

    /// Replaces the record kept with entry `handle`'s leaf (nothing when it has none).
    fn set_hit(&mut self, handle: u64, hit: Hit) {
        if let Some(&id) = self.leaf_of.get(&handle) {
            self.leaves[id as usize].hit = hit;
        }
    }

    /// Puts `leaf` (a prefix `len` long) in slot `i` of level `l` and in the slots of its
    /// descendants, except where a longer prefix is.
    fn cover(&mut self, l: usize, i: usize, leaf: u32, len: u32) {
        let s = self.levels[l].slots[i];
        if s & CHILD != 0 {
            let child = &self.levels[l + 1];
            let first = child.index(s & !CHILD, 0);
            for j in first..first + (1 << child.bits) {
                self.cover(l + 1, j, leaf, len);
            }
        } else if s == EMPTY || self.leaves[(s - 1) as usize].len < len {
            self.levels[l].slots[i] = leaf;
        }
    }

    /// Removes prefix `value/len` of entry `handle` (nothing if it is not in the trie); the slots it
    /// held take entry `fallback`'s leaf: the longest remaining prefix shorter than `len` covering
    /// `value`, which covers them all.
    fn remove(&mut self, value: u32, len: u32, handle: u64, fallback: Option<u64>) {
        let Some(id) = self.leaf_of.remove(&handle) else { return };
        self.free_leaves.push(id);
        let to = fallback.and_then(|h| self.leaf_of.get(&h)).map_or(EMPTY, |f| f + 1);
        let target = self.level_of(len);
        // `(slot followed, node)` at each level above the target; widths up to 32 have 3 levels.
        let mut path = [(0usize, 0u32); 4];
        let mut node = 0;
        for (l, step) in path.iter_mut().enumerate().take(target) {
            let i = self.levels[l].index(node, value);
            *step = (i, node);
            let s = self.levels[l].slots[i];
            if s & CHILD == 0 {
                debug_assert!(false, "a prefix's node is missing");
                return;
            }
            node = s & !CHILD;
        }
        let level = &self.levels[target];
        let first = level.index(node, value);
        for i in first..first + (1 << (level.end - len)) {
            self.uncover(target, i, id + 1, to);
        }
        // Free the nodes on the path left with one leaf throughout (no longer prefix inside).
        for l in (1..=target).rev() {
            let Some(only) = self.uniform(l, node) else { break };
            self.levels[l].free.push(node);
            let (i, parent) = path[l - 1];
            self.levels[l - 1].slots[i] = only;
            node = parent;
        }
    }

    /// Replaces `leaf` by `to` in slot `i` of level `l` and in its descendants.
    fn uncover(&mut self, l: usize, i: usize, leaf: u32, to: u32) {
        let s = self.levels[l].slots[i];
        if s == leaf {
            self.levels[l].slots[i] = to;
        } else if s & CHILD != 0 {
            let child = &self.levels[l + 1];
            let first = child.index(s & !CHILD, 0);
            for j in first..first + (1 << child.bits) {
                self.uncover(l + 1, j, leaf, to);
            }
        }
    }

    /// The one value all slots of node `node` of level `l` hold, if they hold one and it is a leaf
    /// (or empty).
    fn uniform(&self, l: usize, node: u32) -> Option<u32> {
        let level = &self.levels[l];
        let first = level.index(node, 0);
        let slots = &level.slots[first..first + (1 << level.bits)];
        let only = slots[0];
        (only & CHILD == 0 && slots.iter().all(|s| *s == only)).then_some(only)
    }

    /// A node of level `l` with every slot `fill`: a freed one, else a new one at the arena's end.
    fn alloc_node(&mut self, l: usize, fill: u32) -> u32 {
        let level = &mut self.levels[l];
        let size = 1usize << level.bits;
        match level.free.pop() {
            Some(n) => {
                let first = level.index(n, 0);
                level.slots[first..first + size].fill(fill);
                n
            }
            None => {
                // Nodes of a level cover disjoint ranges, each holding a live prefix: fewer than
                // `MAX_LEAVES`, so the number fits beside the `CHILD` bit.
                let n = (level.slots.len() >> level.bits) as u32;
                level.slots.resize(level.slots.len() + size, fill);
                n
            }
        }
    }
}

/// The lookup structure for a table's key layout: ternary when entries carry priorities (or more than
/// one lpm key), lpm on the one lpm key, else exact.
fn index_kind(k: &p4_ir::layout::KeyLayout) -> IndexKind {
    let mut lpms = k.fields.iter().enumerate().filter(|(_, f)| f.match_kind == p4_ir::MatchKind::Lpm);
    match (k.priority_kind.is_some(), lpms.next(), lpms.next()) {
        (false, Some((pos, _)), None) => IndexKind::Lpm(pos),
        (false, None, _) => IndexKind::Exact,
        _ => IndexKind::Ternary,
    }
}

/// Width of the lpm key (0 without one).
fn lpm_width(k: &p4_ir::layout::KeyLayout) -> u32 {
    k.fields.iter().find(|f| f.match_kind == p4_ir::MatchKind::Lpm).map_or(0, |f| f.width)
}

/// The widths of the fields of key `k` when a table keeps its entries by their packed values
/// ([`pack`]): every field exact, at most 128 bits in all.
pub(crate) fn packed_widths(k: &p4_ir::layout::KeyLayout) -> Option<Vec<u32>> {
    let widths: Vec<u32> = k.fields.iter().map(|f| f.width).collect();
    let bits: u32 = widths.iter().sum();
    (index_kind(k) == IndexKind::Exact && !widths.is_empty() && bits <= 128).then_some(widths)
}

/// The values of an exact key's fields of widths `widths` as one number, the first field in the
/// high bits (a field's bits above its width dropped); one field: its value as it is. `None` for
/// a key of another number of fields.
#[inline]
pub(crate) fn pack(widths: &[u32], values: &[u128]) -> Option<u128> {
    match (widths, values) {
        ([_], [v]) => Some(*v),
        _ if widths.len() == values.len() => Some(widths.iter().zip(values).fold(0u128, |acc, (w, v)| acc.checked_shl(*w).unwrap_or(0) | (v & mask(*w)))),
        _ => None,
    }
}

/// The width of the trie a table with key `k` keeps ([`LpmTrie`]: one lpm field of 1..=32 bits),
/// if it keeps one.
pub(crate) fn trie_width(k: &p4_ir::layout::KeyLayout) -> Option<u32> {
    let width = lpm_width(k);
    (index_kind(k) == IndexKind::Lpm(0) && k.fields.len() == 1 && (1..=32).contains(&width)).then_some(width)
}

impl Index {
    /// The empty index of a table of `kind` whose keys have `fields` fields (0: not known); a
    /// one-field exact key is its own packed value, whatever its width.
    fn of(kind: IndexKind, lpm_width: u32, fields: usize) -> Index {
        match (kind, fields) {
            (IndexKind::Exact, 1) => Index::ExactPacked { widths: Box::new([128]), map: OneFieldMap::default() },
            (IndexKind::Exact, _) => Index::Exact(HashMap::default()),
            (IndexKind::Lpm(0), 1) => Index::Lpm1 { width: lpm_width, by_len: Vec::new(), trie: LpmTrie::new(lpm_width) },
            (IndexKind::Lpm(pos), _) => Index::Lpm { pos, width: lpm_width, by_len: Vec::new() },
            (IndexKind::Ternary, _) => Index::Ternary(TupleSpace::default()),
        }
    }
}

impl TableState {
    /// The empty table for key `k`.
    pub(crate) fn for_key(k: &p4_ir::layout::KeyLayout) -> TableState {
        let index = match packed_widths(k) {
            Some(widths) => Index::ExactPacked { widths: widths.into(), map: OneFieldMap::default() },
            None => Index::of(index_kind(k), lpm_width(k), k.fields.len()),
        };
        TableState::with_index(index)
    }

    /// An empty table; `lpm_width` is the lpm key's width for [`IndexKind::Lpm`].
    pub fn new(kind: IndexKind, lpm_width: u32) -> TableState {
        TableState::with_fields(kind, lpm_width, 0)
    }

    /// An empty table whose keys have `fields` fields (a one-field exact or lpm table gets an
    /// index keyed by the value itself; 0: not known, the general index).
    pub fn with_fields(kind: IndexKind, lpm_width: u32, fields: usize) -> TableState {
        TableState::with_index(Index::of(kind, lpm_width, fields))
    }

    fn with_index(index: Index) -> TableState {
        let default_hit = Hit::new(0, &[]);
        let flat_probe = FlatProbe {
            slots: std::ptr::null(),
            shift: 0,
            mask: 0,
            default: default_hit,
            trie: [std::ptr::null(); TRIE_LEVELS],
            leaves: std::ptr::null(),
            counts: std::ptr::null_mut(),
        };
        let mut table =
            TableState { entries: Vec::new(), hits: Vec::new(), counts: Vec::new(), free: Default::default(), members: HashMap::default(), hit_bits: Vec::new(), index, probe: Vec::new(), default: (0, Vec::new()), default_hit, flat_probe };
        table.refresh_flat_probe();
        table
    }

    /// Where generated code finds a table's [`FlatProbe`] in it.
    pub(crate) const FLAT_PROBE_OFFSET: usize = std::mem::offset_of!(TableState, flat_probe);

    /// Points the [`FlatProbe`] at the table's current buffers and default: after every change.
    fn refresh_flat_probe(&mut self) {
        self.flat_probe = FlatProbe { counts: self.counts.as_mut_ptr(), ..self.current_flat_probe() };
    }

    fn current_flat_probe(&self) -> FlatProbe {
        let (slots, shift, mask) = match &self.index {
            Index::ExactPacked { map, .. } => (map.narrow.slots_ptr(), u64::from(map.narrow.shift()), map.narrow.mask() as u64),
            _ => (std::ptr::null(), 0, 0),
        };
        let (mut trie, mut leaves) = ([std::ptr::null(); TRIE_LEVELS], std::ptr::null());
        if let Index::Lpm1 { trie: Some(t), .. } = &self.index {
            if t.levels.first().is_some_and(|root| !root.slots.is_empty()) {
                for (at, level) in trie.iter_mut().zip(&t.levels) {
                    *at = level.slots.as_ptr();
                }
                leaves = t.leaves.as_ptr();
            }
        }
        // The same address `refresh_flat_probe` takes mutably (only generated code running on a
        // switch held mutably writes through it).
        let counts = self.counts.as_ptr().cast_mut();
        FlatProbe { slots, shift, mask, default: self.default_hit, trie, leaves, counts }
    }

    /// Whether the [`FlatProbe`] is as a refresh would leave it.
    #[cfg(test)]
    fn flat_probe_is_fresh(&self) -> bool {
        format!("{:?}", self.flat_probe) == format!("{:?}", self.current_flat_probe())
    }

    /// Number of live entries.
    pub fn len(&self) -> usize {
        self.live()
    }

    /// Number of live entries, without looking at them (every free handle is a hole in `entries`).
    pub fn live(&self) -> usize {
        self.entries.len() - self.free.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Installs an entry and returns its handle; refuses a duplicate (BMv2's DUPLICATE_ENTRY): the same
    /// key in exact/lpm tables, the same key and priority in ternary tables.
    pub fn insert(&mut self, entry: Entry) -> Result<u64, String> {
        let handle = self.free.peek().map_or(self.entries.len() as u64, |r| r.0);
        let hit = Hit::of(&entry);
        match &mut self.index {
            Index::Exact(map) => {
                let key = exact_key(&entry.matches);
                if let Some(existing) = map.get(&key) {
                    return Err(duplicate(*existing, "key"));
                }
                map.insert(key, handle);
            }
            Index::ExactPacked { widths, map } => {
                let key = pack(widths, &exact_key(&entry.matches)).ok_or("the key has the wrong number of fields")?;
                if let Some(existing) = map.get(key) {
                    return Err(duplicate(existing, "key"));
                }
                map.insert(key, handle, hit);
            }
            Index::Lpm1 { width, by_len, trie } => {
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
                // Only a pre-masked value can match (the maps are probed with masked keys).
                let reachable = value & prefix_mask(len, *width) == value;
                if reachable && trie.as_mut().is_some_and(|t| !t.insert(value as u32, len, handle, hit)) {
                    *trie = None;
                }
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
            // As BMv2, refuses the same values, masks/ranges and priority: two entries of which only
            // the first could ever match.
            Index::Ternary(space) => space.insert(&self.entries, &entry, handle)?,
        }
        match self.entries.get_mut(handle as usize) {
            Some(slot) => {
                *slot = Some(entry);
                self.free.pop();
            }
            None => self.entries.push(Some(entry)),
        }
        match self.hits.get_mut(handle as usize) {
            Some(slot) => *slot = hit,
            None => self.hits.push(hit),
        }
        match self.counts.get_mut(handle as usize) {
            Some(count) => *count = Count::default(),
            None => self.counts.push(Count::default()),
        }
        self.refresh_flat_probe();
        Ok(handle)
    }

    /// Removes an entry.
    pub fn remove(&mut self, handle: u64) -> Result<Entry, String> {
        let entry = self
            .entries
            .get_mut(handle as usize)
            .and_then(Option::take)
            .ok_or_else(|| format!("no entry with handle {handle}"))?;
        self.free.push(std::cmp::Reverse(handle));
        self.members.remove(&handle);
        if let Some(bit) = self.hit_bits.get_mut(handle as usize) {
            *bit = false;
        }
        match &mut self.index {
            Index::Exact(map) => {
                map.remove(&exact_key(&entry.matches));
            }
            Index::ExactPacked { widths, map } => {
                if let Some(key) = pack(widths, &exact_key(&entry.matches)) {
                    map.remove(key);
                }
            }
            Index::Lpm1 { width, by_len, trie } => {
                let value = exact_key(&entry.matches).first().copied().unwrap_or(0);
                for (_, _, map) in by_len.iter_mut() {
                    if map.get(&value) == Some(&handle) {
                        map.remove(&value);
                    }
                }
                by_len.retain(|(_, _, m)| !m.is_empty());
                let len = match entry.matches.first() {
                    Some(Match::Mask(_, m)) => prefix_len(*m, *width),
                    _ => None,
                };
                if let (Some(t), Some(len)) = (trie.as_mut(), len) {
                    // The longest remaining prefix shorter than this one covering it.
                    let mut shorter = by_len.iter().filter(|(l, _, _)| *l < len);
                    let fallback = shorter.find_map(|(_, m, map)| map.get(&(value & m)).copied());
                    t.remove(value as u32, len, handle, fallback);
                }
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
            Index::Ternary(space) => space.remove(&entry, handle),
        }
        self.refresh_flat_probe();
        Ok(entry)
    }

    /// Removes every entry; handles start again from 0.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.members.clear();
        self.hit_bits.clear();
        self.hits.clear();
        self.counts.clear();
        self.free.clear();
        match &mut self.index {
            Index::Exact(map) => map.clear(),
            Index::ExactPacked { map, .. } => map.clear(),
            Index::Lpm { by_len, .. } => by_len.clear(),
            Index::Lpm1 { width, by_len, trie } => {
                by_len.clear();
                *trie = LpmTrie::new(*width);
            }
            Index::Ternary(space) => space.clear(),
        }
        self.refresh_flat_probe();
    }

    /// For a ternary table, the number of distinct entry shapes (masks and ranges per field): the
    /// most hash probes a lookup makes. `None` for other tables.
    pub fn tuple_count(&self) -> Option<usize> {
        match &self.index {
            Index::Ternary(space) => Some(space.tuple_count()),
            _ => None,
        }
    }

    /// The entry `handle`, to update its meter (its counts are [`TableState::add_count`]'s); its
    /// matches and priority must stay as they are (the index is keyed by them), and its action
    /// and data change only through [`TableState::set_action`] (the hit records copy them).
    /// Makes entry `handle` choose among `members` (`ControlPlane::table_select`); `false`: no
    /// such entry.
    pub fn set_members(&mut self, handle: u64, members: p4_control::Members) -> bool {
        if self.entries.get(handle as usize).and_then(Option::as_ref).is_none() {
            return false;
        }
        self.members.insert(handle, members);
        true
    }

    /// Sets entry `handle`'s hit bit.
    pub fn mark_hit(&mut self, handle: u64) {
        let at = handle as usize;
        if at >= self.hit_bits.len() {
            self.hit_bits.resize(self.entries.len().max(at + 1), false);
        }
        self.hit_bits[at] = true;
    }

    /// The entries hit since the last call, in handle order; clears their bits.
    pub fn take_hits(&mut self) -> Vec<u64> {
        let hit = self.hit_bits.iter_mut().enumerate().filter(|(_, b)| **b);
        hit.map(|(h, b)| {
            *b = false;
            h as u64
        })
        .collect()
    }

    /// The members entry `handle` chooses among, if it is an action selector's group entry.
    pub fn members(&self, handle: u64) -> Option<&[(usize, Vec<u128>)]> {
        self.members.get(&handle).map(Vec::as_slice)
    }

    pub fn get_mut(&mut self, handle: u64) -> Option<&mut Entry> {
        self.entries.get_mut(handle as usize).and_then(Option::as_mut)
    }

    /// Entry `handle`'s direct counts (`None`: no such entry).
    pub fn count(&self, handle: u64) -> Option<Count> {
        self.entries.get(handle as usize).and_then(Option::as_ref).and(self.counts.get(handle as usize).copied())
    }

    /// Sets entry `handle`'s direct counts; `false`: there is no such entry.
    pub fn set_count(&mut self, handle: u64, count: Count) -> bool {
        match (self.entries.get(handle as usize).and_then(Option::as_ref), self.counts.get_mut(handle as usize)) {
            (Some(_), Some(c)) => {
                *c = count;
                true
            }
            _ => false,
        }
    }

    /// Counts a packet of `bytes` bytes for entry `handle`.
    #[inline]
    pub fn add_count(&mut self, handle: u64, bytes: u64) {
        if let Some(c) = self.counts.get_mut(handle as usize) {
            c.packets += 1;
            c.bytes += bytes;
        }
    }

    /// Sets every entry's direct counts to zero.
    pub fn reset_counts(&mut self) {
        self.counts.fill(Count::default());
    }

    /// Gives entry `handle` another action and data; `false`: there is no such entry.
    pub fn set_action(&mut self, handle: u64, action: usize, args: Vec<u128>) -> bool {
        let Some(entry) = self.entries.get_mut(handle as usize).and_then(Option::as_mut) else { return false };
        entry.action = action;
        entry.args = args;
        self.members.remove(&handle);
        let hit = Hit::of(entry);
        if let Some(slot) = self.hits.get_mut(handle as usize) {
            *slot = hit;
        }
        match &mut self.index {
            Index::ExactPacked { widths, map } => {
                if let Some(key) = pack(widths, &exact_key(&entry.matches)) {
                    map.set_hit(key, hit);
                }
            }
            Index::Lpm1 { trie: Some(t), .. } => t.set_hit(handle, hit),
            _ => {}
        }
        self.refresh_flat_probe();
        true
    }

    /// The action and data of the entry `lookup` found (`handle` of a live entry).
    #[inline]
    pub fn hit(&self, handle: u64) -> Option<&Hit> {
        self.hits.get(handle as usize)
    }

    /// The action a miss runs (index into the table's action list) and its data.
    pub fn default_action(&self) -> (usize, &[u128]) {
        (self.default.0, &self.default.1)
    }

    pub fn set_default(&mut self, action: usize, data: Vec<u128>) {
        self.default_hit = Hit::new(action, &data);
        self.default = (action, data);
        self.refresh_flat_probe();
    }

    /// The record a packet with the one-field key `key` runs: the winning entry's (`true`) or
    /// the default's (`false`); `None` when the record does not hold its data.
    #[inline]
    pub fn record_for(&mut self, key: u128) -> Option<(&Hit, bool)> {
        // The exact map of one field directly (most tables), else the general lookup.
        let handle = match &self.index {
            Index::ExactPacked { map, .. } => map.get(key),
            _ => self.lookup(&[key]),
        };
        let (hit, found) = match handle {
            Some(h) => (self.hits.get(h as usize)?, true),
            None => (&self.default_hit, false),
        };
        hit.data().is_some().then_some((hit, found))
    }

    /// Handles of the live entries in the order a first-match lookup must try them to give the
    /// same winner as [`TableState::lookup`]: ternary by priority then insertion, LPM by prefix
    /// length (longest first), exact in handle order (exact keys never overlap).
    pub fn precedence(&self) -> Vec<u64> {
        match &self.index {
            Index::Exact(_) | Index::ExactPacked { .. } => (0..self.entries.len() as u64).filter(|h| self.entries[*h as usize].is_some()).collect(),
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
            Index::Ternary(space) => space.precedence(),
        }
    }

    /// The handle of the winning entry for `key`, if any.
    pub fn lookup(&mut self, key: &[u128]) -> Option<u64> {
        match &self.index {
            Index::Exact(map) => map.get(key).copied(),
            Index::ExactPacked { widths, map } => pack(widths, key).and_then(|k| map.get(k)),
            Index::Lpm1 { by_len, trie, .. } => {
                let k = key.first().copied().unwrap_or(0);
                match trie {
                    Some(t) => t.lookup(k),
                    None => by_len.iter().find_map(|(_, mask, map)| map.get(&(k & mask)).copied()),
                }
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
            Index::Ternary(space) => space.lookup(&self.entries, key),
        }
    }

    /// The first entry in `order` (handles, as [`TableState::precedence`] gives them) matching
    /// `key`: how ternary tables were looked up before the tuple-space search, entry by entry. Kept as
    /// the reference the `ternary` bench measures against; it gives the same winner as
    /// [`TableState::lookup`] for any table and key.
    #[doc(hidden)]
    pub fn first_match(&self, order: &[u64], key: &[u128]) -> Option<u64> {
        order.iter().copied().find(|h| {
            self.entries.get(*h as usize).and_then(|e| e.as_ref()).is_some_and(|e| {
                e.matches.len() == key.len() && e.matches.iter().zip(key).all(|(m, k)| m.matches(*k))
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn entry(matches: Vec<Match>, priority: i64, action: usize) -> Entry {
        Entry { matches, priority, action, args: vec![], meter: Meter::default() }
    }

    #[test]
    fn one_field_keys_of_any_width_are_found_refused_twice_and_removed() {
        let mut t = TableState::with_fields(IndexKind::Exact, 0, 1);
        let exact = |k: u128| vec![Match::Mask(k, u128::MAX)];
        let (small, edge, wide) = (0x0200_0000_0001u128, u128::from(u64::MAX), 1u128 << 100);
        let hs: Vec<u64> = [small, edge, wide, edge + 1].iter().map(|k| t.insert(entry(exact(*k), 0, 0)).expect("insert")).collect();
        assert_eq!([small, edge, wide, edge + 1].map(|k| t.lookup(&[k])), [Some(hs[0]), Some(hs[1]), Some(hs[2]), Some(hs[3])]);
        assert_eq!(t.lookup(&[wide + 1]), None);
        assert!(t.insert(entry(exact(wide), 0, 0)).is_err(), "a wide key is refused twice");
        assert!(t.insert(entry(exact(edge), 0, 0)).is_err(), "a 64-bit key is refused twice");
        t.remove(hs[2]).expect("remove");
        assert_eq!((t.lookup(&[wide]), t.lookup(&[small])), (None, Some(hs[0])));
    }

    #[test]
    fn the_flat_probe_follows_every_change_and_every_clone() {
        let exact = |k: u128| vec![Match::Mask(k, u128::MAX)];
        let mut t = TableState::with_fields(IndexKind::Exact, 0, 1);
        assert!(t.flat_probe_is_fresh() && !t.flat_probe.slots.is_null(), "a one-field exact table has a flat map");
        for k in 0..40 {
            t.insert(Entry { args: vec![k], ..entry(exact(k), 0, 1) }).expect("insert");
            assert!(t.flat_probe_is_fresh(), "after insert {k} (the slots and records grow)");
        }
        t.remove(3).expect("remove");
        assert!(t.flat_probe_is_fresh(), "after remove");
        assert!(t.set_action(4, 2, vec![1]));
        assert!(t.flat_probe_is_fresh(), "after set_action");
        t.set_default(2, vec![6]);
        assert!(t.flat_probe_is_fresh(), "after set_default");
        assert_eq!(t.flat_probe.default.data(), Some(&[6u64][..]));
        let copy = t.clone();
        assert!(copy.flat_probe_is_fresh(), "a clone points at its own buffers");
        assert_ne!(copy.flat_probe.slots, t.flat_probe.slots);
        t.clear();
        assert!(t.flat_probe_is_fresh(), "after clear");
        let mut lpm = TableState::with_fields(IndexKind::Lpm(0), 32, 1);
        assert!(lpm.flat_probe.slots.is_null(), "other tables have none: generated code asks Rust");
        assert!(lpm.flat_probe.trie[0].is_null(), "a trie without a root: generated code asks Rust");
        let prefix = |v: u128, len: u32| vec![Match::Mask(v, prefix_mask(len, 32))];
        for (i, len) in [8u32, 16, 20, 24, 32, 32, 12].into_iter().enumerate() {
            let v = (0x0a00_0000 | (i as u128) << 8 | i as u128) & prefix_mask(len, 32);
            lpm.insert(Entry { args: vec![i as u128], ..entry(prefix(v, len), 0, 1) }).expect("insert");
            assert!(lpm.flat_probe_is_fresh(), "after route {i} (levels' arenas and the leaves grow)");
        }
        assert!(!lpm.flat_probe.trie.iter().any(|l| l.is_null()) && !lpm.flat_probe.leaves.is_null(), "a 32-bit key's three levels");
        lpm.remove(4).expect("remove");
        assert!(lpm.flat_probe_is_fresh(), "after remove");
        let copy = lpm.clone();
        assert!(copy.flat_probe_is_fresh() && copy.flat_probe.trie[0] != lpm.flat_probe.trie[0], "a clone walks its own trie");
        lpm.clear();
        assert!(lpm.flat_probe_is_fresh() && lpm.flat_probe.trie[0].is_null(), "after clear");
    }

    #[test]
    fn a_hit_record_follows_its_entry_through_insert_modify_reuse_and_clear() {
        let mut t = TableState::with_fields(IndexKind::Exact, 0, 1);
        let exact = |k: u128| vec![Match::Mask(k, u128::MAX)];
        let a = t.insert(Entry { args: vec![7, 8], ..entry(exact(1), 0, 1) }).expect("insert");
        let wide = t.insert(Entry { args: vec![1, 2, 3, 4], ..entry(exact(2), 0, 2) }).expect("insert");
        let found = t.lookup(&[1]).and_then(|h| t.hit(h)).copied();
        assert_eq!(found.map(|h| (h.action, h.data().map(<[u64]>::to_vec))), Some((1, Some(vec![7, 8]))));
        // More data than the record holds, or a value wider than 64 bits: the caller reads the entry's.
        assert_eq!(t.hit(wide).map(|h| (h.action, h.data().is_none())), Some((2, true)));
        let wide_value = t.insert(Entry { args: vec![1 << 64], ..entry(exact(4), 0, 2) }).expect("insert");
        assert_eq!(t.hit(wide_value).map(|h| (h.action, h.data().is_none())), Some((2, true)));
        assert!(t.set_action(a, 3, vec![9]));
        assert_eq!(t.hit(a).map(|h| (h.action, h.data().map(<[u64]>::to_vec))), Some((3, Some(vec![9]))));
        assert_eq!(t.get_mut(a).map(|e| (e.action, e.args.clone())), Some((3, vec![9])));
        assert!(!t.set_action(99, 0, vec![]));
        // A removed entry's handle taken by a new entry gets the new entry's record.
        t.remove(a).expect("remove");
        let b = t.insert(Entry { args: vec![5], ..entry(exact(3), 0, 0) }).expect("insert");
        assert_eq!(b, a);
        assert_eq!(t.lookup(&[3]).and_then(|h| t.hit(h)).map(|h| (h.action, h.data().map(<[u64]>::to_vec))), Some((0, Some(vec![5]))));
        t.clear();
        assert!(t.hit(a).is_none());
    }

    #[test]
    fn removed_handles_are_reused_smallest_first_and_the_table_keeps_its_size() {
        let mut t = TableState::with_fields(IndexKind::Exact, 0, 1);
        for k in 0..4 {
            assert_eq!(t.insert(entry(vec![Match::Mask(k, 0xff)], 0, 0)), Ok(k as u64));
        }
        assert!(t.remove(2).is_ok() && t.remove(0).is_ok());
        // A refused duplicate takes no handle.
        assert!(t.insert(entry(vec![Match::Mask(1, 0xff)], 0, 0)).is_err());
        assert_eq!(t.insert(entry(vec![Match::Mask(7, 0xff)], 0, 0)), Ok(0));
        assert_eq!(t.insert(entry(vec![Match::Mask(8, 0xff)], 0, 0)), Ok(2));
        assert_eq!(t.insert(entry(vec![Match::Mask(9, 0xff)], 0, 0)), Ok(4));
        assert_eq!((t.lookup(&[7]), t.lookup(&[8]), t.lookup(&[2])), (Some(0), Some(2), None));
        for _ in 0..1000 {
            let h = t.insert(entry(vec![Match::Mask(50, 0xff)], 0, 0)).unwrap_or(u64::MAX);
            assert_eq!(h, 5);
            assert!(t.remove(h).is_ok());
        }
        assert_eq!(t.entries.len(), 6, "churn reuses one slot");
        t.clear();
        assert_eq!(t.insert(entry(vec![Match::Mask(1, 0xff)], 0, 0)), Ok(0));
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
    fn ternary_ties_go_to_the_earlier_insert_not_the_smaller_handle() {
        let mut t = TableState::new(IndexKind::Ternary, 0);
        assert_eq!(t.insert(entry(vec![Match::Mask(0x10, 0xf0)], 5, 0)), Ok(0));
        assert_eq!(t.insert(entry(vec![Match::Mask(0x01, 0x0f)], 5, 1)), Ok(1));
        assert!(t.remove(0).is_ok());
        assert_eq!(t.insert(entry(vec![Match::Mask(0x11, 0xff)], 5, 2)), Ok(0), "handle 0 again, inserted last");
        assert_eq!(t.lookup(&[0x11]), Some(1));
        assert_eq!(t.precedence(), vec![1, 0]);
        assert_eq!(t.insert(entry(vec![Match::Mask(0, 0)], 4, 3)), Ok(2));
        assert_eq!(t.lookup(&[0x11]), Some(2), "a smaller priority number wins whatever its shape");
        assert_eq!(t.lookup(&[0x11, 0]), None, "a key of another length matches nothing");
        assert_eq!(t.tuple_count(), Some(3));
    }

    #[test]
    fn ternary_ranges_are_checked_entry_by_entry_and_unmasked_values_never_match() {
        let mut t = TableState::new(IndexKind::Ternary, 0);
        // One shape (exact, range): one bucket for value 7, its entries tried best first.
        assert_eq!(t.insert(entry(vec![Match::Mask(7, 0xff), Match::Range(10, 20)], 1, 0)), Ok(0));
        assert_eq!(t.insert(entry(vec![Match::Mask(7, 0xff), Match::Range(0, 100)], 2, 0)), Ok(1));
        assert_eq!(t.insert(entry(vec![Match::Mask(0x17, 0x0f), Match::Range(0, 100)], 0, 0)), Ok(2), "never matches");
        assert_eq!(t.tuple_count(), Some(2));
        assert_eq!((t.lookup(&[7, 15]), t.lookup(&[7, 50]), t.lookup(&[7, 101]), t.lookup(&[8, 15])), (Some(0), Some(1), None, None));
        assert!(t.remove(0).is_ok());
        assert_eq!(t.lookup(&[7, 15]), Some(1));
        assert!(t.remove(1).is_ok() && t.remove(2).is_ok());
        assert_eq!((t.tuple_count(), t.lookup(&[7, 15])), (Some(0), None));
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
        assert_eq!(t.insert(entry(vec![Match::Mask(0x0a, 0xff), Match::Range(1, 2)], 10, 3)), Ok(0), "a deleted entry is no duplicate (its handle is free again)");
    }

    /// The one-field LPM table's trie, which must be in use for the tests below to test it.
    fn trie(t: &TableState) -> &LpmTrie {
        match &t.index {
            Index::Lpm1 { trie: Some(trie), .. } => trie,
            other => panic!("no trie: {other:?}"),
        }
    }

    /// Nodes in use at each level below the root.
    fn live_nodes(t: &LpmTrie) -> Vec<usize> {
        t.levels.iter().skip(1).map(|l| (l.slots.len() >> l.bits) - l.free.len()).collect()
    }

    #[test]
    fn trie_longest_prefix_and_removal_falls_back() {
        let p = |v: u128, len: u32| Match::Mask(v & prefix_mask(len, 32), prefix_mask(len, 32));
        let mut t = TableState::with_fields(IndexKind::Lpm(0), 32, 1);
        assert_eq!(trie(&t).levels.iter().map(|l| (l.bits, l.slots.len())).collect::<Vec<_>>(), vec![(16, 0), (8, 0), (8, 0)], "no slots before the first insert");
        assert_eq!(t.lookup(&[0x0a01_0203]), None);
        assert_eq!(t.insert(entry(vec![p(0x0a01_0203, 32)], 0, 0)), Ok(0));
        assert_eq!(t.insert(entry(vec![p(0x0a00_0000, 8)], 0, 0)), Ok(1));
        assert_eq!(t.insert(entry(vec![p(0x0a01_0000, 16)], 0, 0)), Ok(2));
        assert_eq!(trie(&t).levels[0].slots.len() * 4, 256 * 1024, "the root: 65,536 slots of 4 bytes");
        assert_eq!(live_nodes(trie(&t)), vec![1, 1], "10.1/16 and 10.1.2/24 each got a node for the /32");
        let at = |t: &mut TableState| [0x0a01_0203, 0x0a01_0204, 0x0a01_ff00, 0x0a02_0000, 0x0aff_ffff, 0x0b00_0000, 0x0900_0000].map(|k| t.lookup(&[k]));
        assert_eq!(at(&mut t), [Some(0), Some(2), Some(2), Some(1), Some(1), None, None]);
        assert_eq!(t.lookup(&[0x1_0a01_0203]), Some(0), "bits above the width are not looked at");
        let copy = t.clone();
        assert!(t.remove(2).is_ok());
        assert_eq!(at(&mut t), [Some(0), Some(1), Some(1), Some(1), Some(1), None, None], "10.1/16 gone: back to 10/8");
        assert!(t.remove(0).is_ok());
        assert_eq!(at(&mut t), [Some(1), Some(1), Some(1), Some(1), Some(1), None, None]);
        assert_eq!(live_nodes(trie(&t)), vec![0, 0], "no prefix longer than 16 bits left: nodes freed");
        assert!(t.remove(1).is_ok());
        assert_eq!(at(&mut t), [None; 7]);
        assert_eq!(trie(&t).leaf_of.len(), 0);
        let mut copy = copy;
        assert_eq!(at(&mut copy), [Some(0), Some(2), Some(2), Some(1), Some(1), None, None], "a clone keeps its own trie");
        // A shorter prefix inserted over longer ones fills only around them; a default route.
        assert_eq!(copy.insert(entry(vec![p(0, 0)], 0, 0)), Ok(3));
        assert_eq!(copy.insert(entry(vec![p(0x0a01_0200, 24)], 0, 0)), Ok(4));
        assert_eq!(at(&mut copy), [Some(0), Some(4), Some(2), Some(1), Some(1), Some(3), Some(3)]);
        assert!(copy.remove(1).is_ok());
        assert_eq!(at(&mut copy), [Some(0), Some(4), Some(2), Some(3), Some(3), Some(3), Some(3)], "10/8 gone: back to 0/0");
        copy.clear();
        assert_eq!(trie(&copy).levels[0].slots.len(), 0, "clear frees the slots");
        assert_eq!(at(&mut copy), [None; 7]);
    }

    #[test]
    fn trie_memory_is_bounded_under_churn() {
        let p = |v: u128, len: u32| Match::Mask(v & prefix_mask(len, 32), prefix_mask(len, 32));
        let mut t = TableState::with_fields(IndexKind::Lpm(0), 32, 1);
        assert!(t.insert(entry(vec![p(0x0a00_0000, 8)], 0, 0)).is_ok());
        let mut sizes = Vec::new();
        for round in 0..1000u128 {
            let a = t.insert(entry(vec![p(0x0a01_0203 + ((round % 3) << 8), 32)], 0, 0)).expect("a");
            let b = t.insert(entry(vec![p(0xc0a8_0000 + ((round % 5) << 12), 20)], 0, 0)).expect("b");
            let c = t.insert(entry(vec![p(0x0a01_0200, 23)], 0, 0)).expect("c");
            assert_eq!((t.lookup(&[0x0a01_0203 + ((round % 3) << 8)]), t.lookup(&[0xc0a8_0000 + ((round % 5) << 12)])), (Some(a), Some(b)));
            for h in [a, c, b] {
                assert!(t.remove(h).is_ok());
            }
            let tr = trie(&t);
            assert_eq!(live_nodes(tr), vec![0, 0], "round {round}");
            sizes.push((tr.levels.iter().map(|l| l.slots.len()).sum::<usize>(), tr.leaves.len()));
        }
        assert_eq!(sizes.first(), sizes.last(), "the arenas stop growing");
        assert_eq!(t.lookup(&[0x0a01_0203]), Some(0));
    }

    /// One step of the property test: insert prefix `base ^ flip` / `len` (masked or, rarely, not),
    /// or remove a live entry.
    #[derive(Clone, Debug)]
    enum Op {
        Insert { base: usize, flip: u32, len: u32, masked: bool },
        Remove(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => (0..3usize, prop_oneof![Just(0u32), 0..32u32].prop_map(|b| if b == 0 { 0 } else { 1 << (b - 1) }), 0..=40u32, prop::bool::weighted(0.95))
                .prop_map(|(base, flip, len, masked)| Op::Insert { base, flip, len, masked }),
            4 => any::<usize>().prop_map(Op::Remove),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
        #[test]
        fn trie_agrees_with_brute_force(
            width in prop_oneof![Just(1u32), Just(8), Just(12), Just(17), Just(25), Just(32)],
            bases in prop::array::uniform3(any::<u32>()),
            ops in prop::collection::vec(op(), 1..60),
            probes in prop::collection::vec(any::<u128>(), 8),
        ) {
            let mut t = TableState::with_fields(IndexKind::Lpm(0), width, 1);
            prop_assert!(trie(&t).levels.iter().map(|l| l.bits).sum::<u32>() == width);
            // Live entries: (value, length, handle).
            let mut live: Vec<(u128, u32, u64)> = Vec::new();
            let brute = |live: &[(u128, u32, u64)], k: u128| {
                live.iter()
                    .filter(|(v, len, _)| k & prefix_mask(*len, width) == *v)
                    .max_by_key(|(_, len, _)| *len)
                    .map(|(_, _, h)| *h)
            };
            for op in ops {
                match op {
                    Op::Insert { base, flip, len, masked } => {
                        let len = len % (width + 1);
                        let m = prefix_mask(len, width);
                        let raw = u128::from(bases[base] ^ flip) & mask(width);
                        let v = if masked { raw & m } else { raw | !m & mask(width) };
                        let dup = live.iter().find(|(w, l, _)| *w == v && *l == len).map(|e| e.2);
                        match t.insert(entry(vec![Match::Mask(v, m)], 0, 0)) {
                            Ok(h) => {
                                prop_assert_eq!(dup, None);
                                live.push((v, len, h));
                            }
                            Err(_) => prop_assert!(dup.is_some()),
                        }
                    }
                    Op::Remove(i) if !live.is_empty() => {
                        let (_, _, h) = live.swap_remove(i % live.len());
                        prop_assert!(t.remove(h).is_ok());
                    }
                    Op::Remove(_) => {}
                }
                // Keys: the probes, the bases, and each live prefix's first and last key and their
                // neighbours; with bits above the width set too.
                let mut keys: Vec<u128> = probes.iter().map(|k| k & mask(width)).chain(bases.iter().map(|b| u128::from(*b) & mask(width))).collect();
                for (v, len, _) in &live {
                    let last = v | !prefix_mask(*len, width) & mask(width);
                    keys.extend([*v, last, v.wrapping_sub(1) & mask(width), (last + 1) & mask(width)]);
                }
                for k in keys {
                    let want = brute(&live, k);
                    prop_assert_eq!(t.lookup(&[k]), want, "key {:#x}, width {}, live {:?}", k, width, live);
                    prop_assert_eq!(t.lookup(&[k | 1 << width | 1 << 40]), want);
                }
                let tr = trie(&t);
                prop_assert_eq!(tr.leaf_of.len(), live.iter().filter(|(v, len, _)| v & prefix_mask(*len, width) == *v).count());
            }
            // No prefix left: no node below the root left either.
            for (_, _, h) in live.drain(..) {
                prop_assert!(t.remove(h).is_ok());
            }
            prop_assert!(live_nodes(trie(&t)).iter().all(|n| *n == 0));
            prop_assert_eq!(t.lookup(&[u128::from(bases[0])]), None);
        }
    }

    /// One step of the ternary property test.
    #[derive(Clone, Debug)]
    enum TernaryOp {
        Insert { matches: Vec<Match>, priority: i64 },
        Remove(usize),
        Clear,
    }

    /// An entry of the property test's key: a ternary byte (masks from a few, so that shapes are
    /// shared, or any), an lpm byte, a byte that is a range or a ternary wildcard, an exact nibble.
    /// Rarely a value has bits outside its mask (such an entry never matches).
    fn ternary_matches() -> impl Strategy<Value = Vec<Match>> {
        let ternary_mask = prop_oneof![Just(0u128), Just(0xff), Just(0xf0), Just(0x0c), 0..=0xffu128];
        let third = prop_oneof![
            (0..=0xffu128, 0..=0xffu128).prop_map(|(a, b)| if b % 8 == 0 { Match::Range(b, a) } else { Match::Range(a.min(b), a.max(b)) }),
            Just(Match::Mask(0, 0)),
        ];
        (ternary_mask, 0..=0xffu128, 0..=8u32, 0..=0xffu128, third, 0..=0xfu128, prop::bool::weighted(0.95)).prop_map(
            |(m, v, len, prefix, third, nibble, masked)| {
                let v = if masked { v & m } else { v | !m & 0xff };
                let p = prefix_mask(len, 8);
                vec![Match::Mask(v, m), Match::Mask(prefix & p, p), third, Match::Mask(nibble, 0xf)]
            },
        )
    }

    fn ternary_op() -> impl Strategy<Value = TernaryOp> {
        prop_oneof![
            12 => (ternary_matches(), 0..4i64).prop_map(|(matches, priority)| TernaryOp::Insert { matches, priority }),
            6 => any::<usize>().prop_map(TernaryOp::Remove),
            1 => Just(TernaryOp::Clear),
        ]
    }

    /// A key `m` matches: the value where it is masked, `noise` elsewhere; a range's low or high end.
    fn key_matching(matches: &[Match], noise: u128) -> Vec<u128> {
        matches
            .iter()
            .map(|m| match *m {
                Match::Mask(v, m) => v & m | noise & !m & 0xff,
                Match::Range(lo, hi) => if noise.is_multiple_of(2) { lo } else { hi },
            })
            .collect()
    }

    /// A live entry of the property test's reference: (matches, priority, insertion number, handle).
    type Live = (Vec<Match>, i64, u64, u64);

    /// The reference: every live entry tried, the smallest (priority, insertion) among the matching wins.
    fn brute_force(live: &[Live], key: &[u128]) -> Option<u64> {
        live.iter()
            .filter(|(ms, ..)| ms.len() == key.len() && ms.iter().zip(key).all(|(m, k)| m.matches(*k)))
            .min_by_key(|(_, p, seq, _)| (*p, *seq))
            .map(|(.., h)| *h)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
        #[test]
        fn tuple_space_agrees_with_brute_force(
            ops in prop::collection::vec(ternary_op(), 1..80),
            probes in prop::collection::vec(prop::array::uniform4(0..=0xffu128), 12),
            noise in any::<u128>(),
        ) {
            let mut t = TableState::with_fields(IndexKind::Ternary, 0, 4);
            let mut live: Vec<Live> = Vec::new();
            let mut inserted = 0u64;
            for op in ops {
                match op {
                    TernaryOp::Insert { matches, priority } => {
                        let dup = live.iter().find(|(ms, p, ..)| *ms == matches && *p == priority).map(|e| e.3);
                        match t.insert(entry(matches.clone(), priority, 0)) {
                            Ok(h) => {
                                prop_assert_eq!(dup, None);
                                prop_assert!(live.iter().all(|e| e.3 != h));
                                live.push((matches, priority, inserted, h));
                                inserted += 1;
                            }
                            Err(e) => prop_assert_eq!(Some(e), dup.map(|h| duplicate(h, "key and priority"))),
                        }
                    }
                    TernaryOp::Remove(i) if !live.is_empty() => {
                        let (.., h) = live.remove(i % live.len());
                        prop_assert!(t.remove(h).is_ok());
                    }
                    TernaryOp::Remove(_) => {}
                    TernaryOp::Clear => {
                        t.clear();
                        live.clear();
                    }
                }
                let mut by_rank = live.clone();
                by_rank.sort_by_key(|(_, p, seq, _)| (*p, *seq));
                let order: Vec<u64> = by_rank.iter().map(|e| e.3).collect();
                prop_assert_eq!(t.precedence(), order.clone());
                let mut keys: Vec<Vec<u128>> = probes.iter().map(|k| k.to_vec()).collect();
                keys.extend(live.iter().map(|(ms, ..)| key_matching(ms, noise)));
                keys.extend(live.iter().map(|(ms, ..)| key_matching(ms, !noise)));
                for key in &keys {
                    let want = brute_force(&live, key);
                    prop_assert_eq!(t.lookup(key), want, "key {:x?}, live {:?}", key, live);
                    prop_assert_eq!(t.first_match(&order, key), want);
                }
                prop_assert_eq!(t.lookup(&[0, 0, 0]), None);
                match &t.index {
                    Index::Ternary(space) => space.check_invariants(&t.entries),
                    other => prop_assert!(false, "not a tuple space: {:?}", other),
                }
            }
        }
    }
}

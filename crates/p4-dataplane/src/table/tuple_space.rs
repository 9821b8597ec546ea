//! Tuple-space search: the index of tables whose entries carry priorities (ternary, range or
//! optional keys, or more than one lpm key).
//!
//! Entries are grouped by their *shape*: per key field, its mask (an lpm field's is its prefix
//! mask, an exact field's all ones) or "range". All entries of one shape match a key exactly when
//! the key, masked with the shape's masks, equals their values; so each shape (a [`Tuple`]) keeps one
//! hash map from values to the entries holding them (a [`Bucket`]), and a lookup costs one hash probe
//! per shape instead of one comparison per entry (a shape of one entry is compared instead: that is
//! cheaper than hashing). Range fields cannot be masked: a shape leaves them out of its hash key and
//! checks them entry by entry in the bucket the other fields select, best first.
//!
//! Which entry wins is exactly what the priority-ordered scan this replaced gave (and what
//! [`super::TableState::first_match`] still gives): the smallest priority number, ties by insertion
//! order. Each entry gets a [`Rank`], `(priority, insertion sequence)`, unique within the table.
//! Shapes are probed in the order of the best rank they hold, and the search stops as soon as the best
//! match found so far ranks before every shape not yet probed.
//!
//! Invariants (checked by the property test in `table.rs`): every live entry is in exactly one tuple
//! (the one of its shape), in that tuple's `members`, and, unless a value has bits outside its mask
//! (it can never match), in the bucket of its values; buckets are sorted by rank and never empty; a
//! tuple's `best` is the first of its `members`, which are never empty; `tuples` is sorted by `best`.
//! Updates touch one tuple and move it within `tuples`: no rebuild.

use std::collections::BTreeMap;
use std::hash::Hasher;

use super::{duplicate, Entry, HashMap, KeyHasher, Match};

/// The order entries win in: smaller priority number first, then earlier insertion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Rank {
    priority: i64,
    /// Insertion sequence number, unique within the table: breaks priority ties.
    seq: u64,
}

/// An entry in a bucket: its rank and handle.
#[derive(Clone, Copy, Debug)]
struct Ranked {
    rank: Rank,
    handle: u64,
}

/// How one key field of an entry matches, without its values: what groups entries into tuples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum FieldShape {
    Mask(u128),
    Range,
}

fn shape_of(matches: &[Match]) -> Box<[FieldShape]> {
    matches
        .iter()
        .map(|m| match m {
            Match::Mask(_, mask) => FieldShape::Mask(*mask),
            Match::Range(..) => FieldShape::Range,
        })
        .collect()
}

/// The entries of one shape.
#[derive(Clone, Debug)]
struct Tuple {
    shape: Box<[FieldShape]>,
    /// The fields the hash key is made of: `(position in the key, mask)` for every masked field
    /// with a non-zero mask (a wildcard field would only add a zero to hash).
    hashed: Box<[(usize, u128)]>,
    /// Whether some field is a range, to be checked entry by entry.
    has_ranges: bool,
    /// The hash of the `hashed` fields' values ([`values_hash`]) → the buckets of the values
    /// with that hash (almost always one). Keyed by the hash, so that a lookup hashes the key's
    /// fields as it masks them and builds no key. An entry that can never match is in no bucket
    /// (only in `members`).
    buckets: HashMap<u64, Vec<Bucket>>,
    /// Every entry of the tuple by rank: the first is `best`, and the next best when it goes.
    members: BTreeMap<Rank, u64>,
    /// The best-ranked entry of the tuple (no key can get a better one from it), beside `members`
    /// so that probing a tuple of one entry reads no tree.
    best: Ranked,
}

/// The entries of a tuple holding the same values.
#[derive(Clone, Debug)]
struct Bucket {
    /// The values of the tuple's hashed fields.
    values: Box<[u128]>,
    /// Best first; never empty.
    entries: Vec<Ranked>,
}

/// The hash of the values of a tuple's hashed fields.
#[inline]
fn values_hash(values: impl Iterator<Item = u128>) -> u64 {
    let mut h = KeyHasher::default();
    for v in values {
        h.write_u128(v);
    }
    h.finish()
}

impl Tuple {
    fn new(shape: Box<[FieldShape]>, best: Ranked) -> Tuple {
        let hashed = shape
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match s {
                FieldShape::Mask(m) if *m != 0 => Some((i, *m)),
                _ => None,
            })
            .collect();
        let has_ranges = shape.contains(&FieldShape::Range);
        Tuple { shape, hashed, has_ranges, buckets: HashMap::default(), members: BTreeMap::new(), best }
    }

    /// The hash key of an entry of this tuple: its values in the hashed fields.
    fn entry_key(&self, matches: &[Match]) -> Box<[u128]> {
        self.hashed
            .iter()
            .map(|(i, _)| match matches.get(*i) {
                Some(Match::Mask(v, _)) => *v,
                _ => 0,
            })
            .collect()
    }

    /// The bucket of `values` (of the hashed fields), if an entry has them.
    fn bucket(&self, values: &[u128]) -> Option<&Bucket> {
        let candidates = self.buckets.get(&values_hash(values.iter().copied()))?;
        candidates.iter().find(|b| *b.values == *values)
    }

    /// Adds `ranked` to the bucket of `values`, in rank order.
    fn add_to_bucket(&mut self, values: Box<[u128]>, ranked: Ranked) {
        let candidates = self.buckets.entry(values_hash(values.iter().copied())).or_default();
        match candidates.iter_mut().find(|b| b.values == values) {
            Some(bucket) => {
                let pos = bucket.entries.partition_point(|r| r.rank < ranked.rank);
                bucket.entries.insert(pos, ranked);
            }
            None => candidates.push(Bucket { values, entries: vec![ranked] }),
        }
    }

    /// Takes `handle` out of the bucket of `values` (nothing if it is not there), dropping the
    /// bucket if it empties.
    fn remove_from_bucket(&mut self, values: &[u128], handle: u64) {
        let hash = values_hash(values.iter().copied());
        let Some(candidates) = self.buckets.get_mut(&hash) else { return };
        for bucket in candidates.iter_mut().filter(|b| *b.values == *values) {
            bucket.entries.retain(|r| r.handle != handle);
        }
        candidates.retain(|b| !b.entries.is_empty());
        if candidates.is_empty() {
            self.buckets.remove(&hash);
        }
    }

    /// The best-ranked entry of this tuple matching `key`.
    #[inline]
    fn best_match(&self, entries: &[Option<Entry>], key: &[u128]) -> Option<Ranked> {
        if key.len() != self.shape.len() {
            return None;
        }
        if self.members.len() == 1 {
            // One entry: comparing it is cheaper than hashing the key, and keeps a table whose
            // entries all have shapes of their own near the cost of the scan.
            return entry_matches(entries, self.best.handle, key).then_some(self.best);
        }
        let masked = |&(i, m): &(usize, u128)| key.get(i).map_or(0, |k| k & m);
        let candidates = self.buckets.get(&values_hash(self.hashed.iter().map(masked)))?;
        let bucket = candidates.iter().find(|b| b.values.iter().zip(self.hashed.iter()).all(|(v, f)| *v == masked(f)))?;
        if !self.has_ranges {
            // Same shape and same values: every entry of the bucket matches; the first is best.
            return bucket.entries.first().copied();
        }
        bucket.entries.iter().copied().find(|r| entry_matches(entries, r.handle, key))
    }
}

/// Whether some key can match `matches`: not when a value has bits outside its mask (a wildcard
/// field's value would not even be hashed, so such an entry must stay out of the buckets).
fn can_match(matches: &[Match]) -> bool {
    matches.iter().all(|m| match *m {
        Match::Mask(v, mask) => v & !mask == 0,
        Match::Range(..) => true,
    })
}

/// Whether live entry `handle` matches `key` in every field.
fn entry_matches(entries: &[Option<Entry>], handle: u64, key: &[u128]) -> bool {
    entries
        .get(handle as usize)
        .and_then(Option::as_ref)
        .is_some_and(|e| e.matches.len() == key.len() && e.matches.iter().zip(key).all(|(m, k)| m.matches(*k)))
}

/// The index: tuples in probe order and each live handle's insertion sequence number.
#[derive(Clone, Debug, Default)]
pub(super) struct TupleSpace {
    /// Sorted by `best`.
    tuples: Vec<Tuple>,
    /// Handle → the sequence number it was inserted with (meaningful for live handles only).
    seq_of: Vec<u64>,
    next_seq: u64,
}

impl TupleSpace {
    /// The handle of the entry winning `key`, if any: the best-ranked matching entry.
    #[inline]
    pub(super) fn lookup(&self, entries: &[Option<Entry>], key: &[u128]) -> Option<u64> {
        let mut found: Option<Ranked> = None;
        for tuple in &self.tuples {
            // Tuples come best first: once the match in hand beats this one's best, it beats
            // everything left.
            if found.is_some_and(|f| f.rank < tuple.best.rank) {
                break;
            }
            if let Some(hit) = tuple.best_match(entries, key) {
                if found.is_none_or(|f| hit.rank < f.rank) {
                    found = Some(hit);
                }
            }
        }
        found.map(|f| f.handle)
    }

    /// Adds `entry` under `handle`; refuses it, changing nothing, when an entry with the same
    /// matches and priority is live (BMv2's DUPLICATE_ENTRY: the second could never win).
    pub(super) fn insert(&mut self, entries: &[Option<Entry>], entry: &Entry, handle: u64) -> Result<(), String> {
        let shape = shape_of(&entry.matches);
        let at = self.tuples.iter().position(|t| t.shape == shape);
        if let Some(existing) = at.and_then(|i| self.same_entry(i, entries, entry)) {
            return Err(duplicate(existing, "key and priority"));
        }
        let rank = Rank { priority: entry.priority, seq: self.next_seq };
        self.next_seq += 1;
        self.remember_seq(handle, rank.seq);
        let ranked = Ranked { rank, handle };
        let i = match at {
            Some(i) => i,
            None => {
                self.tuples.push(Tuple::new(shape, ranked));
                self.tuples.len() - 1
            }
        };
        let tuple = &mut self.tuples[i];
        if can_match(&entry.matches) {
            tuple.add_to_bucket(tuple.entry_key(&entry.matches), ranked);
        }
        tuple.members.insert(rank, handle);
        // A new tuple (whose best is this entry) or a better best: its place in the order moves.
        if rank <= tuple.best.rank {
            tuple.best = ranked;
            self.reposition(i);
        }
        Ok(())
    }

    /// The live entry of tuple `i` with `entry`'s matches and priority, if there is one.
    fn same_entry(&self, i: usize, entries: &[Option<Entry>], entry: &Entry) -> Option<u64> {
        let tuple = self.tuples.get(i)?;
        let same = |h: &u64| {
            entries
                .get(*h as usize)
                .and_then(Option::as_ref)
                .is_some_and(|e| e.priority == entry.priority && e.matches == entry.matches)
        };
        if can_match(&entry.matches) {
            let bucket = tuple.bucket(&tuple.entry_key(&entry.matches))?;
            bucket.entries.iter().map(|r| r.handle).find(same)
        } else {
            // Entries that never match are in no bucket; they are rare enough to look for one by one.
            tuple.members.values().copied().find(same)
        }
    }

    fn remember_seq(&mut self, handle: u64, seq: u64) {
        let h = handle as usize;
        if self.seq_of.len() <= h {
            self.seq_of.resize(h + 1, 0);
        }
        self.seq_of[h] = seq;
    }

    /// Takes out `entry`, live under `handle` until now (nothing if it is not in the index).
    pub(super) fn remove(&mut self, entry: &Entry, handle: u64) {
        let Some(&seq) = self.seq_of.get(handle as usize) else { return };
        let rank = Rank { priority: entry.priority, seq };
        let shape = shape_of(&entry.matches);
        let Some(i) = self.tuples.iter().position(|t| t.shape == shape) else { return };
        let tuple = &mut self.tuples[i];
        tuple.remove_from_bucket(&tuple.entry_key(&entry.matches), handle);
        tuple.members.remove(&rank);
        match tuple.members.first_key_value() {
            None => {
                self.tuples.remove(i);
            }
            Some((&next, &next_handle)) if rank == tuple.best.rank => {
                tuple.best = Ranked { rank: next, handle: next_handle };
                self.reposition(i);
            }
            Some(_) => {}
        }
    }

    /// Moves tuple `i`, whose `best` changed, to its place in the probe order (the others are in
    /// order, and no two tuples share a best rank since ranks are unique), shifting only the
    /// tuples between its old and new places.
    fn reposition(&mut self, i: usize) {
        let Some(best) = self.tuples.get(i).map(|t| t.best.rank) else { return };
        let before = self.tuples[..i].partition_point(|t| t.best.rank < best);
        if before < i {
            self.tuples[before..=i].rotate_right(1);
            return;
        }
        let after = i + 1 + self.tuples[i + 1..].partition_point(|t| t.best.rank < best);
        self.tuples[i..after].rotate_left(1);
    }

    pub(super) fn clear(&mut self) {
        *self = TupleSpace::default();
    }

    /// Every live handle, the winner of any key before the entries it beats.
    pub(super) fn precedence(&self) -> Vec<u64> {
        let mut ranked: Vec<(Rank, u64)> = self.tuples.iter().flat_map(|t| t.members.iter().map(|(r, h)| (*r, *h))).collect();
        ranked.sort_unstable_by_key(|(r, _)| *r);
        ranked.into_iter().map(|(_, h)| h).collect()
    }

    /// The number of distinct entry shapes (hash probes a lookup makes at most).
    pub(super) fn tuple_count(&self) -> usize {
        self.tuples.len()
    }

    /// Panics unless the module's invariants hold (tests).
    #[cfg(test)]
    pub(super) fn check_invariants(&self, entries: &[Option<Entry>]) {
        let ranks: Vec<Rank> = self.tuples.iter().map(|t| t.best.rank).collect();
        assert!(ranks.windows(2).all(|w| w[0] < w[1]), "tuples out of order: {ranks:?}");
        let mut in_buckets = 0;
        for t in &self.tuples {
            assert_eq!(t.members.first_key_value().map(|(r, h)| (*r, *h)), Some((t.best.rank, t.best.handle)));
            for (hash, candidates) in &t.buckets {
                for b in candidates {
                    assert_eq!(values_hash(b.values.iter().copied()), *hash);
                    assert!(!b.entries.is_empty() && b.entries.windows(2).all(|w| w[0].rank < w[1].rank));
                    in_buckets += b.entries.len();
                }
            }
            for (r, h) in &t.members {
                let e = entries.get(*h as usize).and_then(Option::as_ref).expect("a member is live");
                assert_eq!((e.priority, shape_of(&e.matches)), (r.priority, t.shape.clone()));
            }
        }
        let live = entries.iter().flatten().filter(|e| can_match(&e.matches)).count();
        assert_eq!(in_buckets, live, "every entry that can match is in one bucket");
        assert_eq!(self.tuples.iter().map(|t| t.members.len()).sum::<usize>(), entries.iter().flatten().count());
    }
}

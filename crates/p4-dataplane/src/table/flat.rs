//! An open-addressing map from keys of at most 64 bits (MAC and IPv4 addresses, ports, exact
//! fields packed) to entry handles and the entries' records, laid out so that generated machine
//! code probes it as Rust does ([`FlatProbe`]): a lookup is a multiply, a shift and, nearly always,
//! one slot read, with no call into Rust. The slot holds a copy of the entry's record ([`Hit`]) so
//! that a hit reads the action and its data from the cache line it found the key in, instead of
//! then loading the record by handle (a second dependent miss per packet on a table larger than
//! the L1 cache).
//!
//! Linear probing over a power-of-two array kept at most half full; a slot whose handle is
//! [`EMPTY`] ends a probe. Removal shifts the following slots of the run back (no tombstones), so
//! a table whose entries change under traffic keeps its probe lengths.

use super::Hit;

/// A slot's handle when it holds no key.
pub(crate) const EMPTY: u64 = u64::MAX;
/// Fibonacci hashing: the key times 2^64 / φ, its top bits the slot.
pub(crate) const MIX: u64 = 0x9E37_79B9_7F4A_7C15;
/// Slots of an empty map (never fewer: a probe needs an empty slot to end on).
const MIN_SLOTS: usize = 8;

/// One slot: a key, its entry's handle and a copy of the entry's record. `#[repr(C)]`: generated
/// code reads the fields at their offsets.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(crate) struct FlatSlot {
    pub(crate) key: u64,
    pub(crate) handle: u64,
    pub(crate) hit: Hit,
}

impl FlatSlot {
    const VACANT: FlatSlot = FlatSlot { key: 0, handle: EMPTY, hit: Hit::NONE };
}

/// The map: `slots.len()` is a power of two, at least [`MIN_SLOTS`], more than twice `len`.
#[derive(Clone, Debug)]
pub(crate) struct FlatMap {
    slots: Vec<FlatSlot>,
    len: usize,
}

impl Default for FlatMap {
    fn default() -> FlatMap {
        FlatMap { slots: vec![FlatSlot::VACANT; MIN_SLOTS], len: 0 }
    }
}

impl FlatMap {
    /// Right shift taking a hash's top bits to a slot index.
    pub(crate) fn shift(&self) -> u32 {
        64 - self.slots.len().trailing_zeros()
    }

    /// Where generated code finds the slots.
    pub(crate) fn slots_ptr(&self) -> *const FlatSlot {
        self.slots.as_ptr()
    }

    /// The index mask (slots - 1).
    pub(crate) fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    #[inline]
    fn home(&self, key: u64) -> usize {
        (key.wrapping_mul(MIX) >> self.shift()) as usize
    }

    #[inline]
    pub(crate) fn get(&self, key: u64) -> Option<u64> {
        self.find(key).map(|slot| slot.handle)
    }

    /// The slot holding `key`.
    #[inline]
    fn find(&self, key: u64) -> Option<&FlatSlot> {
        let mask = self.mask();
        let mut i = self.home(key);
        loop {
            let slot = &self.slots[i];
            if slot.handle == EMPTY {
                return None;
            }
            if slot.key == key {
                return Some(slot);
            }
            i = (i + 1) & mask;
        }
    }

    /// Sets `key`'s handle and record (replacing any it had).
    pub(crate) fn insert(&mut self, key: u64, handle: u64, hit: Hit) {
        debug_assert_ne!(handle, EMPTY, "the empty marker is not a handle");
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.mask();
        let mut i = self.home(key);
        loop {
            let slot = &mut self.slots[i];
            if slot.handle == EMPTY {
                *slot = FlatSlot { key, handle, hit };
                self.len += 1;
                return;
            }
            if slot.key == key {
                (slot.handle, slot.hit) = (handle, hit);
                return;
            }
            i = (i + 1) & mask;
        }
    }

    /// Replaces the record kept with `key` (nothing when it is absent).
    pub(crate) fn set_hit(&mut self, key: u64, hit: Hit) {
        if let Some(handle) = self.get(key) {
            self.insert(key, handle, hit);
        }
    }

    /// Removes `key`, moving back the slots after it that its removal would cut off from their
    /// home slot.
    pub(crate) fn remove(&mut self, key: u64) {
        let mask = self.mask();
        let mut hole = self.home(key);
        loop {
            let slot = self.slots[hole];
            if slot.handle == EMPTY {
                return;
            }
            if slot.key == key {
                break;
            }
            hole = (hole + 1) & mask;
        }
        let mut next = (hole + 1) & mask;
        loop {
            let slot = self.slots[next];
            if slot.handle == EMPTY {
                break;
            }
            // The slot may fill the hole when its home is not after the hole (cyclically) and
            // before or at its place: i.e. the hole lies on its probe path.
            let home = self.home(slot.key);
            let distance_to_hole = hole.wrapping_sub(home) & mask;
            let distance_to_slot = next.wrapping_sub(home) & mask;
            if distance_to_hole < distance_to_slot {
                self.slots[hole] = slot;
                hole = next;
            }
            next = (next + 1) & mask;
        }
        self.slots[hole] = FlatSlot::VACANT;
        self.len -= 1;
    }

    pub(crate) fn clear(&mut self) {
        *self = FlatMap::default();
    }

    fn grow(&mut self) {
        let bigger = vec![FlatSlot::VACANT; self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, bigger);
        self.len = 0;
        for slot in old.into_iter().filter(|s| s.handle != EMPTY) {
            self.insert(slot.key, slot.handle, slot.hit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    #[test]
    fn keys_are_found_replaced_and_removed_through_growth() {
        let mut map = FlatMap::default();
        assert_eq!((map.get(0), map.slots.len(), map.shift()), (None, 8, 61));
        for k in 0..100u64 {
            map.insert(k << 40 | 0x1122, k, Hit::NONE);
        }
        assert_eq!((map.len, map.slots.len()), (100, 256));
        assert_eq!(map.get(7 << 40 | 0x1122), Some(7));
        map.insert(7 << 40 | 0x1122, 1000, Hit::NONE);
        assert_eq!((map.get(7 << 40 | 0x1122), map.len), (Some(1000), 100));
        for k in (0..100u64).step_by(2) {
            map.remove(k << 40 | 0x1122);
        }
        map.remove(12345);
        assert_eq!(map.len, 50);
        for k in 0..100u64 {
            assert_eq!(map.get(k << 40 | 0x1122), (k % 2 == 1).then_some(if k == 7 { 1000 } else { k }), "key {k}");
        }
        map.clear();
        assert_eq!((map.get(1 << 40 | 0x1122), map.slots.len()), (None, 8));
    }

    /// A record telling which handle it was made for.
    fn record(handle: u64) -> Hit {
        Hit::new((handle % 7) as usize, &[u128::from(handle)])
    }

    proptest! {
        /// Any sequence of inserts and removals leaves the map answering as a `HashMap` does,
        /// with room for a probe to end (keys drawn from a small set so that runs collide).
        #[test]
        fn agrees_with_a_hash_map(ops in prop::collection::vec((any::<bool>(), 0u64..64, 0u64..1000), 0..400)) {
            let (mut map, mut reference) = (FlatMap::default(), HashMap::new());
            for (insert, key, handle) in ops {
                let key = key.wrapping_mul(0x0101_0101_0101) ^ (key << 56);
                if insert {
                    map.insert(key, handle, record(handle));
                    reference.insert(key, handle);
                } else {
                    map.remove(key);
                    reference.remove(&key);
                }
                prop_assert_eq!(map.len, reference.len());
                prop_assert!(map.len * 2 <= map.slots.len());
            }
            for key in 0u64..64 {
                let key = key.wrapping_mul(0x0101_0101_0101) ^ (key << 56);
                prop_assert_eq!(map.get(key), reference.get(&key).copied());
                let found = map.find(key).map(|slot| (slot.hit.action, slot.hit.data().map(<[u64]>::to_vec)));
                prop_assert_eq!(found, reference.get(&key).map(|h| (record(*h).action, Some(vec![*h]))), "the record moves with its key");
            }
            // A record replaced stays with its key; an absent key gets none.
            if let Some((&key, &handle)) = reference.iter().next() {
                map.set_hit(key, record(handle + 1));
                prop_assert_eq!(map.find(key).map(|slot| slot.hit.data().map(<[u64]>::to_vec)), Some(Some(vec![handle + 1])));
            }
            map.set_hit(u64::MAX, record(0));
            prop_assert_eq!(map.get(u64::MAX), None);
        }
    }
}

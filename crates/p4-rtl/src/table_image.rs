//! A table's entries as the hardware holds them: which slot each entry takes and the AXI4-Lite
//! register writes that put it there ([`plan`]). A change of the table writes only the slots
//! whose contents change, so a control plane adding entries one at a time costs a few register
//! writes each, not a rewrite of the table.
//!
//! Slots:
//! - an exact hash table puts an entry in a free way of its key's bucket; an entry keeps its slot
//!   while its key stays;
//! - the other kinds (TCAM, LPM, BCAM) answer with the matching slot of lowest index, so slots
//!   follow the entries' precedence order. An entry keeps its slot when the order allows (the
//!   longest run of entries whose old slots are still in order keeps them); the others go into the
//!   gaps between, spread out in a gap between two entries, next to the neighbour at either end of
//!   the table (so that entries added in priority order, first or last, take one slot each). Only
//!   when a gap is too small are all entries spread out again.
//!
//! A range field becomes the prefixes covering it: one slot per prefix (a *part* of the entry).

use std::collections::{BTreeMap, HashSet};

use num_bigint::BigUint;
use p4_control::{Match, TableSnapshot};
use p4_ir::layout::Layouts;

use crate::tables::{hash_bucket, TableHw, TableKind};

/// Register writes: (byte address, 32-bit value).
pub type Writes = Vec<(u32, u32)>;

/// What a table holds, as written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Image {
    /// The writes of the default action.
    default: Writes,
    /// (entry handle, part) → its slot and the writes that put it there.
    parts: BTreeMap<(u64, u32), (u32, Writes)>,
}

impl Image {
    /// The slots of entry `handle`, part by part.
    pub fn slots_of(&self, handle: u64) -> Vec<u32> {
        self.parts.range((handle, 0)..=(handle, u32::MAX)).map(|(_, (slot, _))| *slot).collect()
    }
}

/// One part of an entry: its key, mask and result (without the slot).
struct Part {
    id: (u64, u32),
    key: BigUint,
    mask: BigUint,
    data: BigUint,
}

/// `value` as 32-bit words, least significant first.
pub(crate) fn words(value: &BigUint, n: u32) -> Vec<u32> {
    let digits = value.to_u32_digits();
    (0..n as usize).map(|i| digits.get(i).copied().unwrap_or(0)).collect()
}

/// The image of `snap` in table `t`, and the writes that change `previous` into it (only the
/// slots whose contents change; slots no longer used are invalidated).
pub fn plan(t: &TableHw, layouts: &Layouts, program: &p4_ir::Program, snap: &TableSnapshot, previous: &Image) -> Result<(Writes, Image), String> {
    let table = &program.tables[t.id.index()];
    let word = |off: u32| t.regs.base + off * 4;
    let push_value = |out: &mut Writes, off: u32, n: u32, v: &BigUint| {
        out.extend(words(v, n).into_iter().enumerate().map(|(i, w)| (word(off + i as u32), w)));
    };
    let data_of = |action: usize, args: &[u128]| -> BigUint {
        let mut v = BigUint::from(action as u64) << t.data_bits;
        if let Some(ta) = table.effective_actions().get(action) {
            let layout = &layouts.actions[ta.action.index()];
            for (pl, a) in layout.params.iter().zip(args) {
                let mask = (BigUint::from(1u8) << pl.width) - 1u8;
                let shift = t.data_bits - pl.bit_offset - pl.width;
                v |= (BigUint::from(*a) & mask) << shift;
            }
        }
        v
    };
    let mut out = Writes::new();
    let mut image = Image::default();
    push_value(&mut image.default, t.regs.data, t.regs.data_words, &data_of(snap.default_action, &snap.default_args));
    image.default.push((word(t.regs.cmd), 2));
    if image.default != previous.default {
        out.extend_from_slice(&image.default);
    }
    if t.kind == TableKind::Keyless {
        return Ok((out, image));
    }
    let parts = parts(t, layouts, snap, &data_of);
    let slots = match t.kind {
        TableKind::ExactHash => hash_slots(t, &parts, previous)?,
        _ => ordered_slots(t, &parts, previous, snap.entries.len())?,
    };
    for (part, slot) in parts.iter().zip(slots) {
        let mut writes = Writes::new();
        push_value(&mut writes, t.regs.key, t.regs.key_words, &part.key);
        if matches!(t.kind, TableKind::Ternary | TableKind::Lpm | TableKind::ExactBcam) {
            push_value(&mut writes, t.regs.mask, t.regs.key_words, &part.mask);
        }
        // The slot rides in the data's low bits when the table counts per entry.
        let data = &part.data | BigUint::from(if t.slot_bits > 0 { slot } else { 0 });
        push_value(&mut writes, t.regs.data, t.regs.data_words, &data);
        writes.push((word(t.regs.index), slot));
        writes.push((word(t.regs.cmd), 1));
        if previous.parts.get(&part.id) != Some(&(slot, writes.clone())) {
            out.extend_from_slice(&writes);
        }
        image.parts.insert(part.id, (slot, writes));
    }
    let used: HashSet<u32> = image.parts.values().map(|(slot, _)| *slot).collect();
    let mut freed: Vec<u32> = previous.parts.values().map(|(slot, _)| *slot).filter(|s| !used.contains(s)).collect();
    freed.sort_unstable();
    for slot in freed {
        out.push((word(t.regs.index), slot));
        out.push((word(t.regs.cmd), 0));
    }
    Ok((out, image))
}

/// The parts of `snap`'s entries in precedence order.
fn parts(t: &TableHw, layouts: &Layouts, snap: &TableSnapshot, data_of: &dyn Fn(usize, &[u128]) -> BigUint) -> Vec<Part> {
    let key_layout = &layouts.keys[t.id.index()];
    let mut out = Vec::new();
    for e in &snap.entries {
        let mut combos: Vec<Vec<(u128, u128)>> = vec![Vec::new()];
        for (f, m) in key_layout.fields.iter().zip(&e.matches) {
            let alts = match m {
                Match::Mask(v, mk) => vec![(*v, *mk)],
                Match::Range(lo, hi) => crate::tables::range_prefixes(*lo, *hi, f.width),
            };
            combos = combos.iter().flat_map(|c| alts.iter().map(move |a| [c.clone(), vec![*a]].concat())).collect();
        }
        let data = data_of(e.action, &e.args);
        for (k, combo) in combos.into_iter().enumerate() {
            let mut key = BigUint::from(0u8);
            let mut mask = BigUint::from(0u8);
            for (f, (v, mk)) in key_layout.fields.iter().zip(combo) {
                let shift = t.key_bits - f.bit_offset - f.width;
                let full = (BigUint::from(1u8) << f.width) - 1u8;
                key |= (BigUint::from(v) & &full) << shift;
                mask |= (BigUint::from(mk) & &full) << shift;
            }
            out.push(Part { id: (e.handle, k as u32), key, mask, data: data.clone() });
        }
    }
    out
}

/// Slots in a hash table: each part in its key's bucket, where it was if it was there.
fn hash_slots(t: &TableHw, parts: &[Part], previous: &Image) -> Result<Vec<u32>, String> {
    let kb = t.key_bits.div_ceil(8) as usize;
    let bucket_of = |key: &BigUint| {
        let bytes = key.to_bytes_be();
        let mut padded = vec![0u8; kb.saturating_sub(bytes.len())];
        padded.extend_from_slice(&bytes);
        hash_bucket(&padded, t.key_bits, t.buckets)
    };
    let ways = t.ways.max(1);
    let buckets: Vec<u32> = parts.iter().map(|p| bucket_of(&p.key)).collect();
    let mut taken = HashSet::new();
    let mut slots: Vec<Option<u32>> = parts
        .iter()
        .zip(&buckets)
        .map(|(p, b)| previous.parts.get(&p.id).map(|(s, _)| *s).filter(|s| s / ways == *b && taken.insert(*s)))
        .collect();
    for (i, b) in buckets.iter().enumerate() {
        if slots[i].is_some() {
            continue;
        }
        let free = (b * ways..(b + 1) * ways).find(|s| !taken.contains(s));
        let Some(slot) = free else {
            return Err(format!("table {}: more than {} entries hash to bucket {b}; the hardware table cannot hold this set", t.name, t.ways));
        };
        taken.insert(slot);
        slots[i] = Some(slot);
    }
    Ok(slots.into_iter().map(|s| s.unwrap_or(0)).collect())
}

/// Slots in increasing order for the parts, keeping old slots where the order allows.
fn ordered_slots(t: &TableHw, parts: &[Part], previous: &Image, entries: usize) -> Result<Vec<u32>, String> {
    let n = t.entries;
    if parts.len() > n as usize {
        return Err(format!("table {}: {entries} entries (ranges counted as their prefixes) do not fit its {n} slots", t.name));
    }
    let old: Vec<Option<u32>> = parts.iter().map(|p| previous.parts.get(&p.id).map(|(s, _)| *s).filter(|s| *s < n)).collect();
    let kept = longest_increasing(&old);
    let slots: Vec<Option<u32>> = (0..parts.len()).map(|i| kept.contains(&i).then(|| old[i]).flatten()).collect();
    Ok(place(slots, n))
}

/// Slots (of `n`, in increasing order) for the parts not placed yet (`None`), between the placed
/// ones. A run of new parts goes into the gap between its placed neighbours: next to the one
/// there is at an end of the table, spread out between two (or in an empty table). Where the gap
/// is too small, every part moves: a run past the last placed part packs them all from the
/// table's start (so that entries added in priority order, last each time, find room after them
/// until the table is full), a run before the first packs them all against its end, and a run
/// between two spreads them all out evenly.
fn place(mut slots: Vec<Option<u32>>, n: u32) -> Vec<u32> {
    let len = slots.len();
    let mut i = 0;
    while i < len {
        if slots[i].is_some() {
            i += 1;
            continue;
        }
        let start = i;
        while i < len && slots[i].is_none() {
            i += 1;
        }
        let lo = if start == 0 { None } else { slots[start - 1] };
        let hi = slots.get(i).copied().flatten();
        let (first, end) = (lo.map_or(0, |l| l + 1), hi.unwrap_or(n));
        let count = (i - start) as u32;
        if end.saturating_sub(first) < count {
            return match (lo, hi) {
                (Some(_), None) => (0..len as u32).collect(),
                (None, Some(_)) => (n - len as u32..n).collect(),
                _ => spread(len as u32, n),
            };
        }
        let placed: Vec<u32> = match (lo, hi) {
            // Before the first placed part: next to it; after the last: next to it.
            (None, Some(h)) => (h - count..h).collect(),
            (Some(l), None) => (l + 1..l + 1 + count).collect(),
            // Between two, or in an empty table: spread out, leaving room on both sides.
            _ => {
                let room = end - first;
                (0..count).map(|k| first + (2 * k + 1) * room / (2 * count)).collect()
            }
        };
        for (k, slot) in placed.into_iter().enumerate() {
            slots[start + k] = Some(slot);
        }
    }
    slots.into_iter().map(|s| s.unwrap_or(0)).collect()
}

/// `count` slots of `n` in increasing order, evenly apart.
fn spread(count: u32, n: u32) -> Vec<u32> {
    let count = count.max(1);
    (0..count).map(|k| ((2 * u64::from(k) + 1) * u64::from(n) / (2 * u64::from(count))) as u32).collect()
}

/// The positions of a longest strictly increasing subsequence of the known values of `seq`.
fn longest_increasing(seq: &[Option<u32>]) -> HashSet<usize> {
    // Patience sorting: tails[k] is the position of the smallest last value of an increasing run
    // of length k + 1; back[i] the position before i in its run.
    let mut tails: Vec<usize> = Vec::new();
    let mut back: Vec<Option<usize>> = vec![None; seq.len()];
    for (i, v) in seq.iter().enumerate() {
        let Some(v) = v else { continue };
        let k = tails.partition_point(|&j| seq[j].is_some_and(|x| x < *v));
        back[i] = k.checked_sub(1).map(|p| tails[p]);
        if k == tails.len() {
            tails.push(i);
        } else {
            tails[k] = i;
        }
    }
    let mut out = HashSet::new();
    let mut at = tails.last().copied();
    while let Some(i) = at {
        out.insert(i);
        at = back[i];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_increasing_run_of_old_slots_is_kept() {
        let kept = longest_increasing(&[Some(5), None, Some(1), Some(2), Some(9), Some(3)]);
        let mut kept: Vec<usize> = kept.into_iter().collect();
        kept.sort_unstable();
        assert_eq!(kept, vec![2, 3, 5]);
    }

    /// Entries added one at a time in priority order, each after the last, as a control plane
    /// loading a table does.
    #[test]
    fn filling_a_table_in_order_moves_few_entries() {
        for n in [16u32, 1024] {
            let mut slots: Vec<u32> = Vec::new();
            let mut moved = 0;
            for _ in 0..n {
                let mut next: Vec<Option<u32>> = slots.iter().map(|s| Some(*s)).collect();
                next.push(None);
                let placed = place(next, n);
                assert!(placed.windows(2).all(|w| w[0] < w[1]) && placed.iter().all(|s| *s < n), "{placed:?}");
                moved += slots.iter().zip(&placed).filter(|(a, b)| a != b).count();
                slots = placed;
            }
            // Half the table fills from its middle without a move; then that half moves once,
            // to the table's start, and the rest fill after it.
            assert_eq!(moved, n as usize / 2, "{n} slots");
        }
        // Likewise added first each time: packed against the end once (the first entry sat just
        // past the middle).
        let mut slots: Vec<u32> = Vec::new();
        let mut moved = 0;
        for _ in 0..16 {
            let mut next: Vec<Option<u32>> = slots.iter().map(|s| Some(*s)).collect();
            next.insert(0, None);
            let placed = place(next, 16);
            moved += slots.iter().zip(&placed[1..]).filter(|(a, b)| a != b).count();
            slots = placed;
        }
        assert_eq!((slots, moved), ((0..16).collect(), 9));
        // Before the first and after the last: next to it; between two: in the middle.
        assert_eq!(place(vec![None, Some(8)], 16), vec![7, 8]);
        assert_eq!(place(vec![Some(8), None], 16), vec![8, 9]);
        assert_eq!(place(vec![Some(4), None, Some(8)], 16), vec![4, 6, 8]);
        // No room between two: all spread out evenly; none after the last: all packed from 0.
        assert_eq!(place(vec![Some(0), Some(1), Some(2), None, Some(3), Some(9)], 6), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(place(vec![Some(0), Some(1), None, Some(2), Some(7)], 8), vec![0, 2, 4, 5, 7]);
        assert_eq!(place(vec![Some(4), Some(6), Some(7), None], 8), vec![0, 1, 2, 3]);
        assert_eq!(place(vec![None; 4], 16), vec![2, 6, 10, 14]);
        assert_eq!(spread(16, 16), (0..16).collect::<Vec<_>>());
    }
}

//! The event queue: a binary heap of small (time, sequence, place) keys over a slab of events.
//!
//! Invariants: events at equal times pop in insertion order, so a run is a pure function of its
//! configuration and seed; heap keys stay 24 bytes whatever the event size, which keeps sifting
//! cheap; freed slab slots are reused, so a long run allocates only while its backlog grows.
//!
//! An event's payload is in the queue's slab, or away in a slab of its owner's (a protocol's,
//! typed as the protocol likes): the queue orders it all the same and hands back owner and slot.

use crate::time::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Values parked under small integer slots: the queue's events, and the events owners keep away
/// from the queue.
pub struct Slab<T> {
    items: Vec<Option<T>>,
    free: Vec<u32>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab { items: Vec::new(), free: Vec::new() }
    }
}

impl<T> Slab<T> {
    /// Parks `item` and returns its slot.
    #[inline]
    pub fn insert(&mut self, item: T) -> u32 {
        match self.free.pop() {
            Some(s) => {
                self.items[s as usize] = Some(item);
                s
            }
            None => {
                self.items.push(Some(item));
                (self.items.len() - 1) as u32
            }
        }
    }

    /// Takes the item out of `slot`, freeing the slot (`None` for a free or unknown slot).
    #[inline]
    pub fn take(&mut self, slot: u32) -> Option<T> {
        let item = self.items.get_mut(slot as usize)?.take()?;
        self.free.push(slot);
        Some(item)
    }
}

/// An event that is due, as the queue hands it back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Due<E> {
    /// An event the queue held.
    Held(E),
    /// An event its owner holds at `slot` ([`EventQueue::push_away`]).
    Away {
        /// Owner.
        owner: u32,
        /// The owner's slot.
        slot: u32,
    },
}

/// A min-queue of timed events.
pub struct EventQueue<E> {
    /// (time, sequence, place): the place is a slot of `slab` below 2^32, or `(owner + 1) << 32 |
    /// slot` for an event held away.
    heap: BinaryHeap<Reverse<(Time, u64, u64)>>,
    slab: Slab<E>,
    seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { heap: BinaryHeap::new(), slab: Slab::default(), seq: 0 }
    }
}

impl<E> EventQueue<E> {
    /// Schedules `ev` at `time`.
    pub fn push(&mut self, time: Time, ev: E) {
        let slot = self.slab.insert(ev);
        self.push_place(time, u64::from(slot));
    }

    /// Schedules at `time` an event that `owner` (below `u32::MAX`) holds at `slot`: only its
    /// key is queued, and [`EventQueue::pop_due`] hands owner and slot back.
    pub fn push_away(&mut self, time: Time, owner: u32, slot: u32) {
        debug_assert!(owner < u32::MAX, "owner {owner} does not fit a place");
        self.push_place(time, (u64::from(owner) + 1) << 32 | u64::from(slot));
    }

    #[inline]
    fn push_place(&mut self, time: Time, place: u64) {
        self.seq += 1;
        // the sequence keeps FIFO order among equal times
        self.heap.push(Reverse((time, self.seq, place)));
    }

    /// Removes and returns the earliest event, wherever it is held.
    #[inline]
    pub fn pop_due(&mut self) -> Option<(Time, Due<E>)> {
        let Reverse((time, _, place)) = self.heap.pop()?;
        let due = match place >> 32 {
            0 => Due::Held(self.slab.take(place as u32)?),
            owner => Due::Away { owner: (owner - 1) as u32, slot: place as u32 },
        };
        Some((time, due))
    }

    /// Removes and returns the earliest event if the queue holds it (`None` when the earliest
    /// is held away: [`EventQueue::pop_due`] returns those).
    pub fn pop(&mut self) -> Option<(Time, E)> {
        if self.heap.peek()?.0 .2 >> 32 != 0 {
            return None;
        }
        match self.pop_due()? {
            (time, Due::Held(ev)) => Some((time, ev)),
            (_, Due::Away { .. }) => None,
        }
    }

    /// Time of the earliest event.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|r| r.0 .0)
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut q = EventQueue::default();
        q.push(5, 'a');
        q.push(1, 'b');
        q.push(5, 'c');
        q.push(0, 'd');
        assert_eq!(q.pop(), Some((0, 'd')));
        q.push(5, 'e');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'a', 'c', 'e']);
        assert!(q.is_empty());
    }

    #[test]
    fn events_held_away_take_their_turn() {
        let mut q = EventQueue::default();
        q.push(5, 'a');
        q.push_away(5, 7, 3);
        q.push_away(1, 0, u32::MAX);
        q.push(5, 'b');
        assert_eq!(q.pop(), None, "the earliest is held away");
        assert_eq!(q.pop_due(), Some((1, Due::Away { owner: 0, slot: u32::MAX })));
        assert_eq!(q.pop(), Some((5, 'a')));
        assert_eq!(q.pop_due(), Some((5, Due::Away { owner: 7, slot: 3 })));
        assert_eq!(q.pop_due(), Some((5, Due::Held('b'))));
        assert_eq!(q.pop_due(), None);
    }
}

//! The event queue: a binary heap of small (time, sequence, slot) keys over a slab of events.
//!
//! Invariants: events at equal times pop in insertion order, so a run is a pure function of its
//! configuration and seed; heap keys stay 24 bytes whatever the event size, which keeps sifting
//! cheap; freed slab slots are reused.

use crate::time::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A min-queue of timed events.
pub struct EventQueue<E> {
    heap: BinaryHeap<Reverse<(Time, u64, u32)>>,
    slab: Vec<Option<E>>,
    free: Vec<u32>,
    seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { heap: BinaryHeap::new(), slab: Vec::new(), free: Vec::new(), seq: 0 }
    }
}

impl<E> EventQueue<E> {
    /// Schedules `ev` at `time`.
    pub fn push(&mut self, time: Time, ev: E) {
        let slot = match self.free.pop() {
            Some(s) => {
                self.slab[s as usize] = Some(ev);
                s
            }
            None => {
                self.slab.push(Some(ev));
                (self.slab.len() - 1) as u32
            }
        };
        self.seq += 1;
        // the sequence keeps FIFO order among equal times
        self.heap.push(Reverse((time, self.seq, slot)));
    }

    /// Removes and returns the earliest event.
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let Reverse((time, _, slot)) = self.heap.pop()?;
        let ev = self.slab.get_mut(slot as usize)?.take()?;
        self.free.push(slot);
        Some((time, ev))
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
}

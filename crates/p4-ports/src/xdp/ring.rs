//! The four single-producer, single-consumer rings an AF_XDP socket shares with the kernel (fill,
//! completion, receive, transmit), and the memory mappings they live in.
//!
//! Each ring is an array of `size` entries (a power of two) with a producer and a consumer index
//! that only ever grow (wrapping at 2^32); entry `i` lives in slot `i % size`. One side writes the
//! entries and then publishes them by storing the producer index (release, so the entries are
//! visible before the index is); the other side loads the producer index (acquire, so it sees the
//! entries), reads them, and gives the slots back by storing the consumer index (release, so it
//! has finished reading before the slots can be overwritten).

use rustix::mm::{mmap, mmap_anonymous, munmap, MapFlags, ProtFlags};
use std::cell::Cell;
use std::io;
use std::marker::PhantomData;
use std::os::fd::BorrowedFd;
use std::sync::atomic::{AtomicU32, Ordering};

/// Entries published but not yet consumed (the indexes wrap, so this is a wrapping difference).
pub fn filled(producer: u32, consumer: u32) -> u32 {
    producer.wrapping_sub(consumer)
}

/// Slots a producer may still write before it would overwrite unconsumed entries.
pub fn free(size: u32, producer: u32, consumer: u32) -> u32 {
    size - filled(producer, consumer)
}

/// The slot entry `index` lives in (`size` is a power of two).
pub fn slot(index: u32, size: u32) -> usize {
    (index & (size - 1)) as usize
}

/// A shared memory mapping, unmapped on drop.
pub struct Mapping {
    base: *mut u8,
    length: usize,
}

impl Mapping {
    /// Maps `length` bytes of `fd` at `offset` (a ring of an AF_XDP socket).
    pub fn of_socket(fd: BorrowedFd<'_>, length: usize, offset: u64) -> io::Result<Mapping> {
        // SAFETY: a new mapping at an address the kernel chooses overlaps nothing Rust owns.
        let base = unsafe {
            mmap(
                std::ptr::null_mut(),
                length,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED | MapFlags::POPULATE,
                fd,
                offset,
            )?
        };
        Ok(Mapping { base: base.cast(), length })
    }

    /// `length` bytes of zeroed private memory (the UMEM the frames live in).
    pub fn anonymous(length: usize) -> io::Result<Mapping> {
        // SAFETY: as above, with no file behind it.
        let base = unsafe {
            mmap_anonymous(
                std::ptr::null_mut(),
                length,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::PRIVATE | MapFlags::POPULATE,
            )?
        };
        Ok(Mapping { base: base.cast(), length })
    }

    pub fn base(&self) -> *mut u8 {
        self.base
    }

    pub fn len(&self) -> usize {
        self.length
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in of_socket/anonymous; no reference into it
        // outlives its owner (rings and UMEM slices borrow the owner).
        unsafe {
            let _ = munmap(self.base.cast(), self.length);
        }
    }
}

/// Where one ring lies in its mapping, from `XDP_MMAP_OFFSETS`.
pub struct RingLayout {
    pub producer: u64,
    pub consumer: u64,
    pub descriptors: u64,
}

/// One ring inside its mapping; `T` is the entry type (a UMEM address for fill and completion, an
/// `xdp_desc` for receive and transmit). Which side this process is on is in the methods used:
/// [`Ring::free_slots`]/[`Ring::write`]/[`Ring::publish`] for a ring it produces into,
/// [`Ring::available`]/[`Ring::read`]/[`Ring::release`] for one it consumes from.
pub struct Ring<T: Copy> {
    /// Holds the memory the pointers below point into; unmapped when the ring goes.
    _mapping: Mapping,
    producer: *const AtomicU32,
    consumer: *const AtomicU32,
    entries: *mut T,
    size: u32,
    /// This side's own index: the producer's when producing, the consumer's when consuming. Only
    /// this process writes it, so the copy kept here is always current.
    own: Cell<u32>,
    _entries: PhantomData<T>,
}

impl<T: Copy> Ring<T> {
    /// The ring of `size` entries at `layout` in `mapping`, checked to lie inside it.
    pub fn new(mapping: Mapping, layout: &RingLayout, size: u32, producing: bool) -> io::Result<Ring<T>> {
        let entries_end = layout.descriptors as usize + size as usize * std::mem::size_of::<T>();
        let words_fit =
            [layout.producer, layout.consumer].iter().all(|&o| o as usize + 4 <= mapping.len() && o.is_multiple_of(4));
        if !size.is_power_of_two()
            || !words_fit
            || entries_end > mapping.len()
            || !(layout.descriptors as usize).is_multiple_of(std::mem::align_of::<T>())
        {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the kernel's ring offsets do not fit the mapped ring",
            ));
        }
        let base = mapping.base();
        // SAFETY: each offset was just checked to lie inside the mapping and to be aligned for
        // what is read there; AtomicU32 has the layout of u32, and the kernel accesses these words
        // atomically too.
        let (producer, consumer, entries) = unsafe {
            (
                base.add(layout.producer as usize).cast::<AtomicU32>(),
                base.add(layout.consumer as usize).cast::<AtomicU32>(),
                base.add(layout.descriptors as usize).cast::<T>(),
            )
        };
        let ring =
            Ring { _mapping: mapping, producer, consumer, entries, size, own: Cell::new(0), _entries: PhantomData };
        // Start from wherever the kernel's indexes are (zero on a fresh socket).
        ring.own.set(if producing {
            ring.producer().load(Ordering::Relaxed)
        } else {
            ring.consumer().load(Ordering::Relaxed)
        });
        Ok(ring)
    }

    fn producer(&self) -> &AtomicU32 {
        // SAFETY: checked in new() to point into the mapping, which lives as long as self.
        unsafe { &*self.producer }
    }

    fn consumer(&self) -> &AtomicU32 {
        // SAFETY: as producer().
        unsafe { &*self.consumer }
    }

    /// Producing side: slots that can be written now.
    pub fn free_slots(&self) -> u32 {
        free(self.size, self.own.get(), self.consumer().load(Ordering::Acquire))
    }

    /// Producing side: writes the `n`th entry after the published ones (`n < free_slots()`).
    pub fn write(&self, n: u32, value: T) {
        debug_assert!(n < self.free_slots());
        let index = slot(self.own.get().wrapping_add(n), self.size);
        // SAFETY: index < size, so the entry lies inside the mapping (checked in new()); the slot
        // is free, so the kernel does not read it until the producer index is published.
        unsafe { self.entries.add(index).write_volatile(value) }
    }

    /// Producing side: hands the next `count` written entries to the kernel.
    pub fn publish(&self, count: u32) {
        let index = self.own.get().wrapping_add(count);
        self.own.set(index);
        self.producer().store(index, Ordering::Release);
    }

    /// Producing side: entries published and not yet consumed by the kernel.
    pub fn queued(&self) -> u32 {
        filled(self.own.get(), self.consumer().load(Ordering::Acquire))
    }

    /// Consuming side: entries the kernel has published and this side not yet released.
    pub fn available(&self) -> u32 {
        filled(self.producer().load(Ordering::Acquire), self.own.get())
    }

    /// Consuming side: the `n`th unreleased entry (`n < available()`).
    pub fn read(&self, n: u32) -> T {
        let index = slot(self.own.get().wrapping_add(n), self.size);
        // SAFETY: index < size, inside the mapping; the entry was published (acquire in
        // available()) and stays untouched by the kernel until it is released.
        unsafe { self.entries.add(index).read_volatile() }
    }

    /// Consuming side: gives the next `count` entries' slots back to the kernel.
    pub fn release(&self, count: u32) {
        let index = self.own.get().wrapping_add(count);
        self.own.set(index);
        self.consumer().store(index, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_hold_across_the_wrap_of_the_indexes() {
        assert_eq!(filled(5, 2), 3);
        assert_eq!(filled(2, u32::MAX - 1), 4);
        assert_eq!(free(8, 2, u32::MAX - 1), 4);
        assert_eq!(free(8, 7, 7), 8);
        assert_eq!(free(8, 15, 7), 0);
    }

    #[test]
    fn slots_repeat_every_size_entries_even_across_the_wrap() {
        assert_eq!(slot(0, 8), 0);
        assert_eq!(slot(9, 8), 1);
        assert_eq!(slot(u32::MAX, 8), 7);
        assert_eq!(slot(u32::MAX.wrapping_add(1), 8), 0);
    }

    /// A ring in ordinary memory laid out as the kernel lays one out (producer word, consumer
    /// word, entries); the tests play the kernel's side by writing those directly.
    fn test_ring(size: u32, producing: bool) -> Ring<u64> {
        let layout = RingLayout { producer: 0, consumer: 64, descriptors: 128 };
        let mapping = Mapping::anonymous(128 + size as usize * 8).unwrap();
        Ring::new(mapping, &layout, size, producing).unwrap()
    }

    #[test]
    fn a_producer_fills_the_ring_exactly_and_sees_slots_come_back_as_they_are_consumed() {
        let ring = test_ring(4, true);
        assert_eq!(ring.free_slots(), 4);
        for n in 0..4 {
            ring.write(n, 100 + u64::from(n));
        }
        ring.publish(4);
        assert_eq!(ring.producer().load(Ordering::Acquire), 4);
        assert_eq!(ring.free_slots(), 0);
        // The kernel consumes two.
        ring.consumer().store(2, Ordering::Release);
        assert_eq!(ring.free_slots(), 2);
        ring.write(0, 104);
        ring.publish(1);
        // SAFETY: slot 0 of the test ring's entries, where entry 4 goes.
        assert_eq!(unsafe { ring.entries.read() }, 104);
    }

    #[test]
    fn a_consumer_reads_published_entries_in_order_and_releases_them() {
        let ring = test_ring(4, false);
        // The kernel's side: three entries, then its producer index.
        for (index, value) in [10u64, 11, 12].into_iter().enumerate() {
            // SAFETY: slots 0 to 2 of the test ring's four.
            unsafe { ring.entries.add(index).write(value) }
        }
        ring.producer().store(3, Ordering::Release);
        assert_eq!(ring.available(), 3);
        assert_eq!([ring.read(0), ring.read(1), ring.read(2)], [10, 11, 12]);
        ring.release(2);
        assert_eq!(ring.available(), 1);
        assert_eq!(ring.consumer().load(Ordering::Acquire), 2);
        assert_eq!(ring.read(0), 12);
    }

    #[test]
    fn offsets_outside_the_mapping_are_refused() {
        let mapping = Mapping::anonymous(4096).unwrap();
        let layout = RingLayout { producer: 0, consumer: 64, descriptors: 4096 - 8 };
        assert!(Ring::<u64>::new(mapping, &layout, 2, true).is_err());
        let mapping = Mapping::anonymous(4096).unwrap();
        assert!(
            Ring::<u64>::new(mapping, &RingLayout { producer: 0, consumer: 64, descriptors: 128 }, 3, true).is_err()
        );
    }
}

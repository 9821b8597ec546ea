//! The UMEM: the memory area frames live in while the kernel and the switch pass them back and
//! forth by address, cut into fixed-size frames.
//!
//! The first half of the frames is for receiving: each is always in exactly one place (the fill
//! ring, with the kernel, in the receive ring, or being read by the switch) and goes back to the
//! fill ring once read, so no bookkeeping beyond the rings is needed. The second half is for
//! sending, tracked by [`TxFrames`]: free, or in flight until the completion ring gives it back.
//! Keeping the halves apart means receiving and sending share no state: a transmit frame is never
//! a receive frame's memory, whatever order the tokens of a port are used in.

use super::ring::Mapping;
use std::io;

/// Bytes per frame: a full Ethernet frame (1,518 bytes, 1,522 with a VLAN tag) plus the kernel's
/// receive headroom (`XDP_PACKET_HEADROOM`, 256 bytes) fits, and frames never straddle a page.
pub const FRAME_SIZE: u32 = 2048;
/// Frames in the UMEM (8 MiB in all, as the AF_PACKET ring per port).
pub const FRAMES: u32 = 4096;
/// Frames `0..RX_FRAMES` receive; the rest send.
pub const RX_FRAMES: u32 = FRAMES / 2;
pub const TX_FRAMES: u32 = FRAMES - RX_FRAMES;

/// The address of the frame that holds `address` (the kernel hands back addresses inside a frame,
/// after its headroom).
pub fn frame_start(address: u64) -> u64 {
    address & !u64::from(FRAME_SIZE - 1)
}

/// Addresses of the receive frames, to put in the fill ring at the start.
pub fn rx_frame_addresses() -> impl Iterator<Item = u64> {
    (0..RX_FRAMES).map(|index| u64::from(index) * u64::from(FRAME_SIZE))
}

/// Whether `length` bytes at `address` lie inside one frame of the UMEM.
pub fn in_one_frame(address: u64, length: u32) -> bool {
    let end = address + u64::from(length);
    end <= u64::from(FRAMES) * u64::from(FRAME_SIZE) && end <= frame_start(address) + u64::from(FRAME_SIZE)
}

pub struct Umem {
    mapping: Mapping,
}

impl Umem {
    pub fn new() -> io::Result<Umem> {
        Ok(Umem { mapping: Mapping::anonymous(FRAMES as usize * FRAME_SIZE as usize)? })
    }

    /// What `XDP_UMEM_REG` takes to register this area.
    pub fn registration(&self) -> rustix::net::xdp::XdpUmemReg {
        rustix::net::xdp::XdpUmemReg {
            addr: self.mapping.base() as u64,
            len: self.mapping.len() as u64,
            chunk_size: FRAME_SIZE,
            headroom: 0,
            flags: rustix::net::xdp::XdpUmemRegFlags::empty(),
            tx_metadata_len: 0,
        }
    }

    /// The `length` bytes at `address`, or `None` when they do not lie inside one frame (a
    /// descriptor the kernel should never produce).
    ///
    /// # Safety
    /// The frame must be this process's for as long as the slice lives: a receive frame taken from
    /// the receive ring and not yet given back to the fill ring.
    pub unsafe fn bytes(&self, address: u64, length: u32) -> Option<&[u8]> {
        if !in_one_frame(address, length) {
            return None;
        }
        // SAFETY: inside the mapping (checked just above); the caller guarantees the kernel does
        // not write the frame meanwhile.
        Some(unsafe { std::slice::from_raw_parts(self.mapping.base().add(address as usize), length as usize) })
    }

    /// The first `length` bytes of the frame at `address` (a transmit frame's start), to fill.
    ///
    /// # Safety
    /// The frame must be a free transmit frame, not in the kernel's hands, and no other reference
    /// to it may exist while the slice lives.
    pub unsafe fn frame_mut(&mut self, address: u64, length: usize) -> &mut [u8] {
        assert!(length <= FRAME_SIZE as usize && in_one_frame(address, length as u32));
        // SAFETY: inside the mapping (asserted); no other reference to the frame exists (caller),
        // and `&mut self` keeps this one the only slice of the UMEM handed out.
        unsafe { std::slice::from_raw_parts_mut(self.mapping.base().add(address as usize), length) }
    }
}

/// The transmit frames that are free, as a stack (the most recently completed frame is the most
/// likely to still be in cache).
pub struct TxFrames {
    free: Vec<u64>,
}

impl TxFrames {
    pub fn new() -> TxFrames {
        TxFrames { free: (RX_FRAMES..FRAMES).rev().map(|index| u64::from(index) * u64::from(FRAME_SIZE)).collect() }
    }

    /// A free transmit frame's address, if any.
    pub fn take(&mut self) -> Option<u64> {
        self.free.pop()
    }

    /// Marks the frame holding `address` free again (from the completion ring, or a send that was
    /// not posted). Anything else (not a transmit frame, or more frames than exist, which only a
    /// kernel bug could cause) is ignored rather than allowed to make a frame free twice.
    pub fn give_back(&mut self, address: u64) -> bool {
        let start = frame_start(address);
        let is_tx_frame =
            (u64::from(RX_FRAMES) * u64::from(FRAME_SIZE)..u64::from(FRAMES) * u64::from(FRAME_SIZE)).contains(&start);
        if !is_tx_frame || self.free.len() >= TX_FRAMES as usize {
            return false;
        }
        self.free.push(start);
        true
    }

    #[cfg(test)]
    pub fn free_count(&self) -> usize {
        self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn receive_frames_are_the_first_half_and_frame_aligned() {
        let addresses: Vec<u64> = rx_frame_addresses().collect();
        assert_eq!(addresses.len(), RX_FRAMES as usize);
        assert_eq!(addresses[1], 2048);
        assert!(addresses.iter().all(|&a| frame_start(a) == a && a < u64::from(RX_FRAMES) * 2048));
    }

    #[test]
    fn an_address_inside_a_frame_leads_back_to_its_start() {
        assert_eq!(frame_start(2048 + 256), 2048);
        assert_eq!(frame_start(4095), 2048);
        assert_eq!(frame_start(4096), 4096);
    }

    #[test]
    fn bytes_that_straddle_two_frames_or_leave_the_umem_are_refused() {
        assert!(in_one_frame(256, 1792));
        assert!(!in_one_frame(256, 1793));
        let last = u64::from(FRAMES - 1) * 2048;
        assert!(in_one_frame(last, 2048));
        assert!(!in_one_frame(last + 2048, 1));
    }

    #[test]
    fn every_transmit_frame_can_be_taken_once_then_none_until_one_completes() {
        let mut frames = TxFrames::new();
        let mut taken = Vec::new();
        while let Some(address) = frames.take() {
            taken.push(address);
        }
        assert_eq!(taken.len(), TX_FRAMES as usize);
        taken.sort();
        taken.dedup();
        assert_eq!(taken.len(), TX_FRAMES as usize);
        assert_eq!(taken[0], u64::from(RX_FRAMES) * 2048);
        assert!(frames.give_back(taken[5] + 10));
        assert_eq!(frames.take(), Some(taken[5]));
    }

    #[test]
    fn receive_frames_and_surplus_completions_are_not_taken_as_free_transmit_frames() {
        let mut frames = TxFrames::new();
        assert!(!frames.give_back(0));
        let first_tx = u64::from(RX_FRAMES) * 2048;
        assert!(!frames.give_back(first_tx), "every frame is already free");
        frames.take();
        assert!(frames.give_back(first_tx));
        assert_eq!(frames.free_count(), TX_FRAMES as usize);
    }
}

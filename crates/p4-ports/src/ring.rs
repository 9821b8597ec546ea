//! A `TPACKET_V3` receive ring: the kernel writes arriving frames into blocks of a memory area
//! shared with the switch, so a burst of frames costs no system call per frame (the socket path
//! costs one `recv` each). A block is handed over when full or after a 1 ms timeout, then read
//! frame by frame in place and given back once its last frame has been read.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::sync::atomic::{fence, Ordering};

use rustix::mm::{mmap, munmap, MapFlags, ProtFlags};

/// Bytes per block and blocks per ring: 8 MiB per port, as the socket buffer it replaces.
const BLOCK_SIZE: u32 = 1 << 20;
const BLOCKS: u32 = 8;
/// Frame slot size the kernel checks the block size against (TPACKET_V3 packs frames tightly).
const FRAME_SIZE: u32 = 2048;
/// Milliseconds after which the kernel hands over a block that is not full.
const RETIRE_MS: u32 = 1;

/// Where reading stands in the block the switch holds.
#[derive(Clone, Copy)]
struct InHand {
    /// Frames of the block not yet read.
    left: u32,
    /// Offset in the block of the next frame's header.
    at: usize,
}

pub struct RxRing {
    base: *mut u8,
    length: usize,
    /// The block to read next, or being read.
    current: u32,
    /// `Some` while the switch holds block `current` (its status says TP_STATUS_USER).
    in_hand: Option<InHand>,
}

/// A frame located in the ring: its bytes' offset from the ring's start and their length, and
/// the time its header gives.
#[derive(Clone, Copy)]
pub struct Located {
    start: usize,
    length: usize,
    arrival_ns: u64,
}

impl Located {
    /// When the kernel received the frame (`tp_sec`, `tp_nsec` of its header: `CLOCK_REALTIME`),
    /// in nanoseconds since the Unix epoch.
    pub fn arrival_ns(&self) -> u64 {
        self.arrival_ns
    }
}

/// `setsockopt` for the `SOL_PACKET` options rustix does not cover.
fn packet_option<T>(fd: BorrowedFd<'_>, option: libc::c_int, value: &T) -> io::Result<()> {
    // SAFETY: value is a plain struct or integer of the size given, only read by the kernel.
    let result = unsafe {
        libc::setsockopt(
            fd.as_raw_fd(),
            libc::SOL_PACKET,
            option,
            (value as *const T).cast(),
            std::mem::size_of::<T>() as u32,
        )
    };
    if result < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

impl RxRing {
    /// Sets up the ring on a bound `AF_PACKET` socket (before any frame is read).
    pub fn new(fd: BorrowedFd<'_>) -> io::Result<RxRing> {
        let version = libc::tpacket_versions::TPACKET_V3 as libc::c_int;
        packet_option(fd, libc::PACKET_VERSION, &version)?;
        let request = libc::tpacket_req3 {
            tp_block_size: BLOCK_SIZE,
            tp_block_nr: BLOCKS,
            tp_frame_size: FRAME_SIZE,
            tp_frame_nr: BLOCK_SIZE / FRAME_SIZE * BLOCKS,
            tp_retire_blk_tov: RETIRE_MS,
            tp_sizeof_priv: 0,
            tp_feature_req_word: 0,
        };
        packet_option(fd, libc::PACKET_RX_RING, &request)?;
        let length = (BLOCK_SIZE * BLOCKS) as usize;
        // SAFETY: maps the ring the kernel just allocated for this socket at an address the
        // kernel chooses, which overlaps nothing Rust owns; unmapped only in `drop`.
        let base =
            unsafe { mmap(std::ptr::null_mut(), length, ProtFlags::READ | ProtFlags::WRITE, MapFlags::SHARED, fd, 0)? };
        Ok(RxRing { base: base.cast(), length, current: 0, in_hand: None })
    }

    fn block(&self, index: u32) -> *mut libc::tpacket_block_desc {
        // SAFETY: index < BLOCKS, so the block lies inside the mapping.
        unsafe { self.base.add((index * BLOCK_SIZE) as usize).cast() }
    }

    /// The next frame to read, taking the next block from the kernel when the one in hand is read
    /// (`None`: nothing waiting). Read it with [`RxRing::bytes`], then call [`RxRing::done`].
    pub fn next(&mut self) -> Option<Located> {
        loop {
            let hand = match self.in_hand {
                Some(hand) => hand,
                None => self.take_block()?,
            };
            match self.locate(hand) {
                Some(frame) => return Some(frame),
                // An empty block, or one whose next offset lies outside it: counted as read.
                None => self.give_back_block(),
            }
        }
    }

    /// The bytes of a frame [`RxRing::next`] located (valid until [`RxRing::done`]).
    pub fn bytes(&self, frame: Located) -> &[u8] {
        // SAFETY: `locate` checked that the frame lies inside block `current`, which the kernel
        // does not write while the switch holds it (until `done` gives it back, which needs
        // `&mut self` and so ends this borrow first).
        unsafe { std::slice::from_raw_parts(self.base.add(frame.start), frame.length) }
    }

    /// The located frame has been read: move on, giving the block back after its last frame.
    pub fn done(&mut self) {
        let Some(hand) = self.in_hand else { return };
        // SAFETY: the header of a frame `locate` accepted lies inside the block.
        let next = unsafe {
            let header = self.block(self.current).cast::<u8>().add(hand.at).cast::<libc::tpacket3_hdr>();
            (*header).tp_next_offset as usize
        };
        if hand.left <= 1 || next == 0 {
            self.give_back_block();
        } else {
            self.in_hand = Some(InHand { left: hand.left - 1, at: hand.at + next });
        }
    }

    /// Takes block `current` if the kernel has handed it over.
    fn take_block(&mut self) -> Option<InHand> {
        let block = self.block(self.current);
        // SAFETY: the block header lies in the mapping; the kernel owns the block until it sets
        // TP_STATUS_USER, read with a volatile load followed by an acquire fence (so the frames
        // it wrote before are seen).
        let hand = unsafe {
            let header = std::ptr::addr_of_mut!((*block).hdr.bh1);
            let status = std::ptr::addr_of!((*header).block_status).read_volatile();
            if status & libc::TP_STATUS_USER == 0 {
                return None;
            }
            fence(Ordering::Acquire);
            InHand { left: (*header).num_pkts, at: (*header).offset_to_first_pkt as usize }
        };
        self.in_hand = Some(hand);
        Some(hand)
    }

    /// The frame at `hand` if the offsets the kernel wrote keep it inside the block.
    fn locate(&self, hand: InHand) -> Option<Located> {
        if hand.left == 0 || hand.at + std::mem::size_of::<libc::tpacket3_hdr>() > BLOCK_SIZE as usize {
            return None;
        }
        // SAFETY: the header lies inside the block (checked just above), which the switch holds.
        let (mac, length, arrival_ns) = unsafe {
            let header = self.block(self.current).cast::<u8>().add(hand.at).cast::<libc::tpacket3_hdr>();
            let arrival_ns = u64::from((*header).tp_sec) * 1_000_000_000 + u64::from((*header).tp_nsec);
            ((*header).tp_mac as usize, (*header).tp_snaplen as usize, arrival_ns)
        };
        let start = hand.at + mac;
        (start + length <= BLOCK_SIZE as usize)
            .then_some(Located { start: (self.current * BLOCK_SIZE) as usize + start, length, arrival_ns })
    }

    /// Gives block `current` back to the kernel (after every frame read from it) and moves on.
    fn give_back_block(&mut self) {
        let block = self.block(self.current);
        fence(Ordering::Release);
        // SAFETY: the header lies in the mapping; the release fence orders every read of the
        // block's frames before the kernel can see it is its own again.
        unsafe {
            let header = std::ptr::addr_of_mut!((*block).hdr.bh1);
            std::ptr::addr_of_mut!((*header).block_status).write_volatile(libc::TP_STATUS_KERNEL);
        }
        self.in_hand = None;
        self.current = (self.current + 1) % BLOCKS;
    }
}

impl Drop for RxRing {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `new`; no slice of it outlives `self`.
        let _ = unsafe { munmap(self.base.cast(), self.length) };
    }
}

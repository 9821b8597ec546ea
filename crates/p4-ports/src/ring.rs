//! A `TPACKET_V3` receive ring: the kernel writes arriving frames into blocks of a memory area
//! shared with the switch, so a burst of frames costs no system call per frame (the socket path
//! costs one `recvfrom` each). A block is handed over when full or after a 1 ms timeout, then read
//! frame by frame in place and given back.

use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{fence, Ordering};

/// Bytes per block and blocks per ring: 8 MiB per port, as the socket buffer it replaces.
const BLOCK_SIZE: u32 = 1 << 20;
const BLOCKS: u32 = 8;
/// Frame slot size the kernel checks the block size against (TPACKET_V3 packs frames tightly).
const FRAME_SIZE: u32 = 2048;
/// Milliseconds after which the kernel hands over a block that is not full.
const RETIRE_MS: u32 = 1;

pub struct RxRing {
    base: *mut u8,
    length: usize,
    /// The block to read next.
    current: u32,
}

fn setsockopt<T>(fd: RawFd, level: libc::c_int, option: libc::c_int, value: &T) -> io::Result<()> {
    // SAFETY: value is a plain struct or integer of the size given.
    let result = unsafe { libc::setsockopt(fd, level, option, (value as *const T).cast(), std::mem::size_of::<T>() as u32) };
    if result < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

impl RxRing {
    /// Sets up the ring on a bound `AF_PACKET` socket (before any frame is read).
    pub fn new(fd: RawFd) -> io::Result<RxRing> {
        let version = libc::tpacket_versions::TPACKET_V3 as libc::c_int;
        setsockopt(fd, libc::SOL_PACKET, libc::PACKET_VERSION, &version)?;
        let request = libc::tpacket_req3 {
            tp_block_size: BLOCK_SIZE,
            tp_block_nr: BLOCKS,
            tp_frame_size: FRAME_SIZE,
            tp_frame_nr: BLOCK_SIZE / FRAME_SIZE * BLOCKS,
            tp_retire_blk_tov: RETIRE_MS,
            tp_sizeof_priv: 0,
            tp_feature_req_word: 0,
        };
        setsockopt(fd, libc::SOL_PACKET, libc::PACKET_RX_RING, &request)?;
        let length = (BLOCK_SIZE * BLOCKS) as usize;
        // SAFETY: maps the ring the kernel just allocated for this socket; checked below.
        let base = unsafe { libc::mmap(std::ptr::null_mut(), length, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, fd, 0) };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(RxRing { base: base.cast(), length, current: 0 })
    }

    fn block(&self, index: u32) -> *mut libc::tpacket_block_desc {
        // SAFETY: index < BLOCKS, so the block lies inside the mapping.
        unsafe { self.base.add((index * BLOCK_SIZE) as usize).cast() }
    }

    /// Calls `each` with every frame of the next filled block (if any) and gives the block back;
    /// returns how many frames there were (0: nothing waiting). `&mut self`: `each` cannot drain
    /// the ring again, which would hand it the frames of the same block a second time.
    pub fn drain_block(&mut self, mut each: impl FnMut(&[u8])) -> usize {
        let index = self.current;
        let block = self.block(index);
        // SAFETY: the block header lies in the mapping; the kernel owns the block until it sets
        // TP_STATUS_USER, which is read with a volatile load followed by an acquire fence. Every
        // frame read lies inside the block: the offsets the kernel wrote are checked against it
        // (a frame outside it ends the block, counted as read up to there).
        unsafe {
            let header = std::ptr::addr_of_mut!((*block).hdr.bh1);
            let status = std::ptr::addr_of!((*header).block_status).read_volatile();
            if status & libc::TP_STATUS_USER == 0 {
                return 0;
            }
            fence(Ordering::Acquire);
            let count = (*header).num_pkts as usize;
            let mut at = (*header).offset_to_first_pkt as usize;
            let mut read = 0;
            while read < count && at + std::mem::size_of::<libc::tpacket3_hdr>() <= BLOCK_SIZE as usize {
                let hdr = block.cast::<u8>().add(at).cast::<libc::tpacket3_hdr>();
                let (start, len) = (at + (*hdr).tp_mac as usize, (*hdr).tp_snaplen as usize);
                if start + len > BLOCK_SIZE as usize {
                    break;
                }
                each(std::slice::from_raw_parts(block.cast::<u8>().add(start), len));
                read += 1;
                match (*hdr).tp_next_offset as usize {
                    0 => break,
                    next => at += next,
                }
            }
            // Give the block back only after every frame of it has been read.
            fence(Ordering::Release);
            std::ptr::addr_of_mut!((*header).block_status).write_volatile(libc::TP_STATUS_KERNEL);
            self.current = (index + 1) % BLOCKS;
            read
        }
    }
}

impl Drop for RxRing {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in new().
        unsafe {
            libc::munmap(self.base.cast(), self.length);
        }
    }
}

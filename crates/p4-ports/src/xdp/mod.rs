//! Linux interfaces as switch ports through AF_XDP sockets, with nothing but system calls (no
//! libbpf or libxdp): frames reach the switch through rings shared with the kernel instead of a
//! socket buffer, and the kernel's network stack never sees them.
//!
//! Opening a port ([`XdpPort::open`]):
//! 1. an XSKMAP (a BPF map of AF_XDP sockets) and a five-instruction XDP program
//!    ([`program`]) that redirects each frame to the socket in the map at its receive queue;
//! 2. a UMEM ([`umem`]): 4,096 frames of 2 KiB, half for receiving, half for sending;
//! 3. the socket: UMEM registration, the four rings ([`ring`]) sized and mapped, the fill ring
//!    filled, bound to the interface's queue 0 in copy mode (`XDP_COPY`: veth and most drivers
//!    have no zero-copy support, and copy mode works on all), put in the map at key 0;
//! 4. the program attached in generic (SKB) mode through a BPF link ([`bpf`]), last, so frames
//!    are redirected only once the socket is ready. Dropping the port (or the process dying)
//!    closes the link and so detaches the program.
//!
//! Only queue 0 is bound, so an interface with several receive queues is refused (frames on the
//! other queues would bypass the switch). veth pairs have one. An interface whose MTU is above
//! 1,774 bytes is refused too: its longest frames would not fit a 2 KiB UMEM frame after the
//! kernel's headroom (jumbo frames need `AF_PACKET`).
//!
//! Unlike an `AF_PACKET` socket, which copies frames and lets the kernel's network stack have them
//! too, the redirect takes every frame of the interface away from the stack: right for a port
//! that belongs to the switch, wrong for one the host talks through (hence `--io auto` leaving
//! those to `AF_PACKET`, `super::port::host_traffic`).
//!
//! Frames to send are posted on the transmit ring and the kernel is asked to send them (a system
//! call, which copy mode needs) once per 32 frames and at the end of each receive round
//! ([`Device::flush`]), where `AF_PACKET` makes one `send` per frame.
//!
//! On veth (generic XDP, copy mode) the kernel still builds a socket buffer per frame and copies
//! each frame once each way, as for `AF_PACKET`; what AF_XDP saves is the frames' trip on to the
//! kernel's network stack after the packet socket's copy, and most transmit system calls. On the
//! 2-vCPU VM it carried TCP through l2l3 faster in every interleaved round (1.1–2.7 ×) and cost the
//! switch 18–38 % less CPU per 64-byte packet (`docs/PERFORMANCE.md`), so `p4forge switch --io`
//! defaults to `auto`: AF_XDP where the port can use it, `AF_PACKET` otherwise.

mod bpf;
mod program;
mod ring;
mod umem;

use crate::device::{Device, RxToken, TxToken};
use ring::{Mapping, Ring, RingLayout};
use rustix::io::Errno;
use rustix::net::sockopt;
use rustix::net::xdp::{SocketAddrXdp, SocketAddrXdpFlags, XdpRingOffset};
use rustix::net::{AddressFamily, SendFlags, SocketFlags, SocketType};
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use umem::{TxFrames, Umem, FRAME_SIZE, RX_FRAMES, TX_FRAMES};

/// Ring sizes: each ring holds every frame that can be in it at once, so a producer never finds
/// its ring full (the fill and receive rings all receive frames, the transmit and completion rings
/// all transmit frames).
const FILL_RING: u32 = RX_FRAMES;
const RX_RING: u32 = RX_FRAMES;
const TX_RING: u32 = TX_FRAMES;
const COMPLETION_RING: u32 = TX_FRAMES;
/// The one receive queue bound.
const QUEUE: u32 = 0;
/// Frames the kernel sends per `sendto` in copy mode (`TX_BATCH_SIZE` in net/xdp/xsk.c).
const KICK_BATCH: u32 = 32;

/// A Linux interface opened as a switch port through an AF_XDP socket.
pub struct XdpPort {
    name: String,
    /// Held for as long as the port is open: no other switch may use the interface.
    _hold: crate::lock::InterfaceHold,
    // Dropped in this order: the link first (the program is detached, so no more frames are
    // redirected), then the socket, then the memory the kernel shared with it.
    _link: OwnedFd,
    _program: OwnedFd,
    _map: OwnedFd,
    socket: OwnedFd,
    /// A packet socket that only holds the interface in promiscuous mode (a membership the kernel
    /// drops when it is closed), so frames for other MAC addresses reach the program too.
    _promiscuous: OwnedFd,
    fill: Ring<u64>,
    completion: Ring<u64>,
    rx: Ring<libc::xdp_desc>,
    tx: Ring<libc::xdp_desc>,
    umem: Umem,
    tx_frames: TxFrames,
    /// Frames posted on the transmit ring since the kernel was last asked to send.
    unsent: u32,
}

/// An error with what failed: "STEP: os error".
fn step_error(step: &str, error: impl Into<io::Error>) -> io::Error {
    let error = error.into();
    io::Error::new(error.kind(), format!("{step}: {error}"))
}

fn layout(offsets: &XdpRingOffset) -> RingLayout {
    RingLayout { producer: offsets.producer, consumer: offsets.consumer, descriptors: offsets.desc }
}

/// Maps ring `size` entries of `T` of socket `fd` at page offset `offset`.
fn map_ring<T: Copy>(
    fd: BorrowedFd<'_>,
    offsets: &XdpRingOffset,
    size: u32,
    offset: u64,
    producing: bool,
    step: &str,
) -> io::Result<Ring<T>> {
    let length = offsets.desc as usize + size as usize * std::mem::size_of::<T>();
    let mapping = Mapping::of_socket(fd, length, offset).map_err(|e| step_error(step, e))?;
    Ring::new(mapping, &layout(offsets), size, producing).map_err(|e| step_error(step, e))
}

/// The number of receive queues of interface `name` (index `index`), when sysfs shows this
/// network namespace's interfaces (it shows those of the namespace it was mounted in).
fn receive_queues(name: &str, index: u32) -> Option<usize> {
    let directory = format!("/sys/class/net/{name}");
    let sysfs_index: u32 = std::fs::read_to_string(format!("{directory}/ifindex")).ok()?.trim().parse().ok()?;
    if sysfs_index != index {
        return None;
    }
    let entries = std::fs::read_dir(format!("{directory}/queues")).ok()?;
    Some(entries.filter_map(Result::ok).filter(|entry| entry.file_name().to_string_lossy().starts_with("rx-")).count())
}

/// The kernel's headroom before a received frame in a UMEM frame (`XDP_PACKET_HEADROOM`).
const KERNEL_HEADROOM: u32 = 256;
/// Ethernet header and one VLAN tag: what a frame holds beyond the MTU.
const ETHERNET_OVERHEAD: u32 = 18;

/// The largest interface MTU whose frames fit a UMEM frame after the kernel's headroom; a longer
/// frame would be dropped by the kernel on its way to the socket (jumbo frames need AF_PACKET).
fn largest_mtu() -> u32 {
    FRAME_SIZE - KERNEL_HEADROOM - ETHERNET_OVERHEAD
}

/// A packet socket holding interface `index` in promiscuous mode. Protocol 0 means it receives
/// nothing, so it costs nothing per frame.
fn promiscuous_membership(index: u32) -> io::Result<OwnedFd> {
    let socket = super::packet_socket(false, SocketFlags::empty())
        .map_err(|e| step_error("socket(AF_PACKET) for promiscuous mode", e))?;
    super::add_promiscuous_membership(socket.as_fd(), index).map_err(|e| step_error("PACKET_ADD_MEMBERSHIP", e))?;
    Ok(socket)
}

/// Attempts at binding while the queue is busy, and the wait between them: a socket closed by a
/// switch that just stopped keeps the queue until the kernel's deferred clean-up has run (tens of
/// milliseconds, more on a loaded machine); a queue another running switch holds stays busy.
const BIND_ATTEMPTS: u32 = 20;
const BIND_RETRY_WAIT: std::time::Duration = std::time::Duration::from_millis(50);

/// Binds socket `fd` to queue [`QUEUE`] of interface `index` in copy mode.
fn bind(fd: BorrowedFd<'_>, index: u32) -> io::Result<()> {
    let address = SocketAddrXdp::new(SocketAddrXdpFlags::XDP_COPY, index, QUEUE);
    let mut attempt = 1;
    loop {
        match rustix::net::bind(fd, &address) {
            Ok(()) => return Ok(()),
            Err(Errno::BUSY) if attempt < BIND_ATTEMPTS => {
                attempt += 1;
                std::thread::sleep(BIND_RETRY_WAIT);
            }
            Err(error) => {
                let why = if error == Errno::BUSY { " (another AF_XDP socket holds the queue)" } else { "" };
                return Err(step_error(&format!("bind to queue {QUEUE} in copy mode{why}"), error));
            }
        }
    }
}

impl XdpPort {
    /// Opens interface `name` (needs CAP_NET_ADMIN and CAP_NET_RAW, i.e. root, and a kernel with
    /// AF_XDP and BPF links: Linux 5.9 or later). The error names the interface and what failed.
    pub fn open(name: &str) -> io::Result<XdpPort> {
        XdpPort::open_steps(name).map_err(|e| match e.kind() {
            // "no network interface named ...", "... is already a port of another p4forge switch"
            io::ErrorKind::NotFound | io::ErrorKind::AddrInUse => e,
            kind => io::Error::new(kind, format!("cannot use AF_XDP on {name}: {e}")),
        })
    }

    /// [`XdpPort::open`], with errors that say only which step failed ("BPF_PROG_LOAD: ...").
    pub fn open_steps(name: &str) -> io::Result<XdpPort> {
        // A socket to ask about the interface through (any kind works).
        let probe = rustix::net::socket(AddressFamily::INET, SocketType::DGRAM, None)
            .map_err(|e| step_error("socket(AF_INET)", e))?;
        let index = super::interface_index(probe.as_fd(), name)?;
        let hold = crate::lock::InterfaceHold::take(name, index)?;
        if let Some(queues) = receive_queues(name, index).filter(|&queues| queues > 1) {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!(
                    "{queues} receive queues (an AF_XDP port binds queue 0 only; `ethtool -L {name}` can leave one)"
                ),
            ));
        }
        let largest = largest_mtu();
        let mtu = super::interface_mtu(probe.as_fd(), name).map_err(|e| step_error("SIOCGIFMTU", e))?;
        if mtu > largest {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!("MTU {mtu} (an AF_XDP frame here holds an MTU of {largest} at most)"),
            ));
        }
        let map = bpf::create_socket_map(QUEUE + 1)?;
        let program = bpf::load_xdp_program(&program::redirect_to_sockets(map.as_raw_fd()))?;

        let socket = rustix::net::socket_with(AddressFamily::XDP, SocketType::RAW, SocketFlags::CLOEXEC, None)
            .map_err(|e| step_error("socket(AF_XDP)", e))?;
        let fd = socket.as_fd();
        let umem = Umem::new().map_err(|e| step_error("mmap of the UMEM", e))?;
        sockopt::set_xdp_umem_reg(fd, umem.registration()).map_err(|e| step_error("XDP_UMEM_REG", e))?;
        sockopt::set_xdp_umem_fill_ring_size(fd, FILL_RING).map_err(|e| step_error("XDP_UMEM_FILL_RING", e))?;
        sockopt::set_xdp_umem_completion_ring_size(fd, COMPLETION_RING)
            .map_err(|e| step_error("XDP_UMEM_COMPLETION_RING", e))?;
        sockopt::set_xdp_rx_ring_size(fd, RX_RING).map_err(|e| step_error("XDP_RX_RING", e))?;
        sockopt::set_xdp_tx_ring_size(fd, TX_RING).map_err(|e| step_error("XDP_TX_RING", e))?;

        let offsets = sockopt::xdp_mmap_offsets(fd).map_err(|e| step_error("XDP_MMAP_OFFSETS", e))?;
        if offsets.rx.flags.is_none() {
            // Kernels before 5.4 give the layout without ring flags.
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "XDP_MMAP_OFFSETS: the kernel's ring layout is too old (Linux 5.4 or later needed)",
            ));
        }
        use rustix::net::xdp::{
            XDP_PGOFF_RX_RING, XDP_PGOFF_TX_RING, XDP_UMEM_PGOFF_COMPLETION_RING, XDP_UMEM_PGOFF_FILL_RING,
        };
        let fill: Ring<u64> =
            map_ring(fd, &offsets.fr, FILL_RING, XDP_UMEM_PGOFF_FILL_RING, true, "mmap of the fill ring")?;
        let completion: Ring<u64> = map_ring(
            fd,
            &offsets.cr,
            COMPLETION_RING,
            XDP_UMEM_PGOFF_COMPLETION_RING,
            false,
            "mmap of the completion ring",
        )?;
        let rx = map_ring(fd, &offsets.rx, RX_RING, XDP_PGOFF_RX_RING, false, "mmap of the receive ring")?;
        let tx = map_ring(fd, &offsets.tx, TX_RING, XDP_PGOFF_TX_RING, true, "mmap of the transmit ring")?;

        // Every receive frame starts in the fill ring (which holds them all).
        for (n, address) in umem::rx_frame_addresses().enumerate() {
            fill.write(n as u32, address);
        }
        fill.publish(RX_FRAMES);

        bind(fd, index)?;
        let promiscuous = promiscuous_membership(index)?;
        bpf::insert_socket(map.as_raw_fd(), QUEUE, fd.as_raw_fd())?;
        let link = bpf::attach_xdp_generic(program.as_raw_fd(), index)?;
        Ok(XdpPort {
            name: name.to_string(),
            _hold: hold,
            _link: link,
            _program: program,
            _map: map,
            socket,
            _promiscuous: promiscuous,
            fill,
            completion,
            rx,
            tx,
            umem,
            tx_frames: TxFrames::new(),
            unsent: 0,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Asks the kernel to send every frame posted so far. It sends at most `KICK_BATCH` per call
    /// (its budget per system call in copy mode), so this repeats, a bounded number of times.
    fn send_posted(&mut self) -> io::Result<()> {
        let mut calls = TX_RING / KICK_BATCH + 1;
        while self.unsent > 0 && calls > 0 {
            self.kick()?;
            // Whatever the kernel has taken off the transmit ring is sent (or being sent).
            self.unsent = self.tx.queued();
            calls -= 1;
        }
        Ok(())
    }

    /// Frees the transmit frames the kernel has finished with.
    fn reclaim_completed(&mut self) {
        let count = self.completion.available();
        for n in 0..count {
            self.tx_frames.give_back(self.completion.read(n));
        }
        self.completion.release(count);
    }

    /// Asks the kernel to send what the transmit ring holds (a zero-length send is only a
    /// wake-up). "Try again later" answers leave the frames queued for the next call, so they are
    /// not errors.
    /// Frames that reached the interface but not the switch since the port opened, by reason, as
    /// the kernel counts them for the socket (`XDP_STATISTICS`).
    pub fn kernel_drops(&self) -> io::Result<Vec<(&'static str, u64)>> {
        let stats = rustix::net::sockopt::xdp_statistics(&self.socket)?;
        Ok(vec![
            ("longer than an AF_XDP frame (an MTU raised after the port opened?) or no free frame to receive into", stats.rx_dropped),
            ("the socket's receive ring was full (the switch fell behind)", stats.rx_ring_full.unwrap_or(0)),
            ("invalid receive descriptors", stats.rx_invalid_descs),
            ("invalid transmit descriptors (not sent)", stats.tx_invalid_descs),
        ])
    }

    fn kick(&self) -> io::Result<()> {
        match rustix::net::send(&self.socket, &[], SendFlags::DONTWAIT) {
            Ok(_) | Err(Errno::AGAIN | Errno::BUSY | Errno::NOBUFS | Errno::INTR) => Ok(()),
            Err(error) => Err(step_error(&format!("cannot send on {}", self.name), error)),
        }
    }
}

/// A frame in the receive ring, read in place in the UMEM.
pub struct XdpRx<'a> {
    port: &'a mut XdpPort,
    descriptor: libc::xdp_desc,
}

impl RxToken for XdpRx<'_> {
    /// The frame goes back to the fill ring after `f` returns (the fill ring holds every receive
    /// frame, so it has a slot for it).
    fn consume<R>(self, f: impl FnOnce(&[u8]) -> R) -> R {
        let port = self.port;
        let descriptor = self.descriptor;
        // SAFETY: the kernel handed this frame over through the receive ring and gets it back only
        // through the fill ring, below, after `f` has returned; the token's `&mut XdpPort` keeps
        // anything else from reading or releasing the ring meanwhile.
        let frame = unsafe { port.umem.bytes(descriptor.addr, descriptor.len) };
        // A descriptor not inside one frame is never produced by a correct kernel: it reads empty.
        let result = f(frame.unwrap_or(&[]));
        debug_assert!(port.fill.free_slots() >= 1);
        port.fill.write(0, umem::frame_start(descriptor.addr));
        port.fill.publish(1);
        port.rx.release(1);
        result
    }
}

/// A free transmit frame, taken; given back if dropped unused.
pub struct XdpTx<'a> {
    port: &'a mut XdpPort,
    address: Option<u64>,
}

impl TxToken for XdpTx<'_> {
    /// Fills the frame and posts it on the transmit ring. Copy mode sends only when asked (a
    /// system call), so the kernel is asked once per `KICK_BATCH` frames, and by
    /// [`Device::flush`] for the rest.
    fn consume<R>(mut self, length: usize, f: impl FnOnce(&mut [u8]) -> R) -> io::Result<R> {
        if length > FRAME_SIZE as usize {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "cannot send on {}: a {length}-byte frame is longer than an AF_XDP frame ({FRAME_SIZE} bytes)",
                    self.port.name
                ),
            ));
        }
        let Some(address) = self.address.take() else { return Err(io::ErrorKind::InvalidData.into()) };
        let port = &mut *self.port;
        // SAFETY: the frame was taken from the free list by `transmit`: the kernel does not hold
        // it, and only this token refers to it.
        let buffer = unsafe { port.umem.frame_mut(address, length) };
        let result = f(buffer);
        // The transmit ring holds every transmit frame, so a frame taken means a free slot.
        debug_assert!(port.tx.free_slots() > 0);
        port.tx.write(0, libc::xdp_desc { addr: address, len: length as u32, options: 0 });
        port.tx.publish(1);
        port.unsent += 1;
        if port.unsent >= KICK_BATCH {
            port.send_posted()?;
        }
        Ok(result)
    }
}

impl Drop for XdpTx<'_> {
    fn drop(&mut self) {
        if let Some(address) = self.address.take() {
            self.port.tx_frames.give_back(address);
        }
    }
}

impl Device for XdpPort {
    type RxToken<'a> = XdpRx<'a>;
    type TxToken<'a> = XdpTx<'a>;

    fn receive(&mut self) -> io::Result<Option<XdpRx<'_>>> {
        if self.rx.available() == 0 {
            return Ok(None);
        }
        let descriptor = self.rx.read(0);
        Ok(Some(XdpRx { port: self, descriptor }))
    }

    /// A free transmit frame; when every one is in flight, the kernel is asked to send and the
    /// completed ones are looked for again (`Ok(None)`: still none).
    fn transmit(&mut self) -> io::Result<Option<XdpTx<'_>>> {
        self.reclaim_completed();
        let address = match self.tx_frames.take() {
            Some(address) => address,
            None => {
                self.kick()?;
                self.reclaim_completed();
                match self.tx_frames.take() {
                    Some(address) => address,
                    None => return Ok(None),
                }
            }
        };
        Ok(Some(XdpTx { port: self, address: Some(address) }))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.send_posted()
    }

    fn readiness(&self) -> BorrowedFd<'_> {
        self.socket.as_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_mtu_leaves_room_for_the_headroom_and_a_tagged_ethernet_header() {
        assert_eq!(largest_mtu(), 1774);
    }
}

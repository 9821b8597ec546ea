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
//! ([`XdpPort::flush`]), where `AF_PACKET` makes one `send` per frame.
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

use ring::{Mapping, Ring, RingLayout};
use std::cell::{Cell, RefCell};
use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
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
    tx_frames: RefCell<TxFrames>,
    /// Frames posted on the transmit ring since the kernel was last asked to send.
    unsent: Cell<u32>,
}

/// An error with what failed: "STEP: os error".
fn step_error(step: &str, error: io::Error) -> io::Error {
    io::Error::new(error.kind(), format!("{step}: {error}"))
}

fn last_error(step: &str) -> io::Error {
    step_error(step, io::Error::last_os_error())
}

fn set_option<T>(fd: RawFd, option: libc::c_int, value: &T, step: &str) -> io::Result<()> {
    // SAFETY: value is a plain struct or integer of the size given, read by the kernel only.
    let result = unsafe {
        libc::setsockopt(fd, libc::SOL_XDP, option, (value as *const T).cast(), std::mem::size_of::<T>() as u32)
    };
    if result < 0 {
        return Err(last_error(step));
    }
    Ok(())
}

fn layout(offsets: &libc::xdp_ring_offset) -> RingLayout {
    RingLayout { producer: offsets.producer, consumer: offsets.consumer, descriptors: offsets.desc }
}

/// Maps ring `size` entries of `T` of socket `fd` at page offset `offset`.
fn map_ring<T: Copy>(
    fd: RawFd,
    offsets: &libc::xdp_ring_offset,
    size: u32,
    offset: u64,
    producing: bool,
    step: &str,
) -> io::Result<Ring<T>> {
    let length = offsets.desc as usize + size as usize * std::mem::size_of::<T>();
    let mapping = Mapping::of_socket(fd, length, offset as libc::off_t).map_err(|e| step_error(step, e))?;
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

/// `struct ifreq` as `SIOCGIFMTU` uses it: the name, then the MTU in the union (40 bytes in all).
#[repr(C)]
struct MtuRequest {
    name: [libc::c_char; libc::IFNAMSIZ],
    mtu: libc::c_int,
    _rest_of_union: [u8; 20],
}

/// The MTU of interface `name`.
fn interface_mtu(name: &CString) -> io::Result<u32> {
    let bytes = name.as_bytes_with_nul();
    if bytes.len() > libc::IFNAMSIZ {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "interface name too long"));
    }
    let mut request = MtuRequest { name: [0; libc::IFNAMSIZ], mtu: 0, _rest_of_union: [0; 20] };
    for (slot, &byte) in request.name.iter_mut().zip(bytes) {
        *slot = byte as libc::c_char;
    }
    // SAFETY: plain socket creation; closed below through OwnedFd.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fd is a fresh socket owned from here on.
    let socket = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: request is a 40-byte ifreq with a NUL-terminated name; the kernel writes the MTU
    // into it and nothing beyond it.
    if unsafe { libc::ioctl(socket.as_raw_fd(), libc::SIOCGIFMTU, &mut request as *mut MtuRequest) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(request.mtu.max(0) as u32)
}

/// A packet socket holding interface `index` in promiscuous mode. Protocol 0 means it receives
/// nothing, so it costs nothing per frame.
fn promiscuous_membership(index: u32) -> io::Result<OwnedFd> {
    // SAFETY: plain socket creation; the result is checked before use.
    let fd = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(last_error("socket(AF_PACKET) for promiscuous mode"));
    }
    // SAFETY: fd is a fresh descriptor this function owns from here on.
    let socket = unsafe { OwnedFd::from_raw_fd(fd) };
    super::add_promiscuous_membership(fd, index).map_err(|e| step_error("PACKET_ADD_MEMBERSHIP", e))?;
    Ok(socket)
}

/// Attempts at binding while the queue is busy, and the wait between them: a socket closed by a
/// switch that just stopped keeps the queue until the kernel's deferred clean-up has run (tens of
/// milliseconds, more on a loaded machine); a queue another running switch holds stays busy.
const BIND_ATTEMPTS: u32 = 20;
const BIND_RETRY_WAIT: std::time::Duration = std::time::Duration::from_millis(50);

/// Binds socket `fd` to queue [`QUEUE`] of interface `index` in copy mode.
fn bind(fd: RawFd, index: u32) -> io::Result<()> {
    let address = libc::sockaddr_xdp {
        sxdp_family: libc::AF_XDP as u16,
        sxdp_flags: libc::XDP_COPY,
        sxdp_ifindex: index,
        sxdp_queue_id: QUEUE,
        sxdp_shared_umem_fd: 0,
    };
    for attempt in 1..=BIND_ATTEMPTS {
        // SAFETY: address is a valid sockaddr_xdp of the size given.
        let bound = unsafe {
            libc::bind(
                fd,
                (&address as *const libc::sockaddr_xdp).cast(),
                std::mem::size_of::<libc::sockaddr_xdp>() as u32,
            )
        };
        if bound == 0 {
            return Ok(());
        }
        let error = io::Error::last_os_error();
        if error.raw_os_error() != Some(libc::EBUSY) || attempt == BIND_ATTEMPTS {
            let why =
                if error.raw_os_error() == Some(libc::EBUSY) { " (another AF_XDP socket holds the queue)" } else { "" };
            return Err(step_error(&format!("bind to queue {QUEUE} in copy mode{why}"), error));
        }
        std::thread::sleep(BIND_RETRY_WAIT);
    }
    unreachable!("the last attempt returns")
}

impl XdpPort {
    /// Opens interface `name` (needs CAP_NET_ADMIN and CAP_NET_RAW, i.e. root, and a kernel with
    /// AF_XDP and BPF links: Linux 5.9 or later). The error names the interface and what failed.
    pub fn open(name: &str) -> io::Result<XdpPort> {
        XdpPort::open_steps(name).map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => e, // "no network interface named ..." says it all
            kind => io::Error::new(kind, format!("cannot use AF_XDP on {name}: {e}")),
        })
    }

    /// [`XdpPort::open`], with errors that say only which step failed ("BPF_PROG_LOAD: ...").
    pub fn open_steps(name: &str) -> io::Result<XdpPort> {
        let c_name = CString::new(name)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "an interface name has no NUL byte"))?;
        // SAFETY: if_nametoindex reads a NUL-terminated string and returns 0 when it is unknown.
        let index = unsafe { libc::if_nametoindex(c_name.as_ptr()) };
        if index == 0 {
            return Err(io::Error::new(io::ErrorKind::NotFound, format!("no network interface named {name}")));
        }
        if let Some(queues) = receive_queues(name, index).filter(|&queues| queues > 1) {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!(
                    "{queues} receive queues (an AF_XDP port binds queue 0 only; `ethtool -L {name}` can leave one)"
                ),
            ));
        }
        let largest = largest_mtu();
        let mtu = interface_mtu(&c_name).map_err(|e| step_error("SIOCGIFMTU", e))?;
        if mtu > largest {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!("MTU {mtu} (an AF_XDP frame here holds an MTU of {largest} at most)"),
            ));
        }
        let map = bpf::create_socket_map(QUEUE + 1)?;
        let program = bpf::load_xdp_program(&program::redirect_to_sockets(map.as_raw_fd()))?;

        // SAFETY: plain socket creation; the result is checked before use.
        let fd = unsafe { libc::socket(libc::AF_XDP, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) };
        if fd < 0 {
            return Err(last_error("socket(AF_XDP)"));
        }
        // SAFETY: fd is a fresh socket this function owns from here on.
        let socket = unsafe { OwnedFd::from_raw_fd(fd) };
        let umem = Umem::new().map_err(|e| step_error("mmap of the UMEM", e))?;
        set_option(fd, libc::XDP_UMEM_REG, &umem.registration(), "XDP_UMEM_REG")?;
        set_option(fd, libc::XDP_UMEM_FILL_RING, &FILL_RING, "XDP_UMEM_FILL_RING")?;
        set_option(fd, libc::XDP_UMEM_COMPLETION_RING, &COMPLETION_RING, "XDP_UMEM_COMPLETION_RING")?;
        set_option(fd, libc::XDP_RX_RING, &RX_RING, "XDP_RX_RING")?;
        set_option(fd, libc::XDP_TX_RING, &TX_RING, "XDP_TX_RING")?;

        // SAFETY: xdp_mmap_offsets is plain data; all-zero is a valid starting value.
        let mut offsets: libc::xdp_mmap_offsets = unsafe { std::mem::zeroed() };
        let mut length = std::mem::size_of::<libc::xdp_mmap_offsets>() as libc::socklen_t;
        // SAFETY: the kernel writes at most `length` bytes into offsets and updates length.
        let got = unsafe {
            libc::getsockopt(
                fd,
                libc::SOL_XDP,
                libc::XDP_MMAP_OFFSETS,
                (&mut offsets as *mut libc::xdp_mmap_offsets).cast(),
                &mut length,
            )
        };
        if got < 0 {
            return Err(last_error("XDP_MMAP_OFFSETS"));
        }
        if length as usize != std::mem::size_of::<libc::xdp_mmap_offsets>() {
            // Kernels before 5.4 give the layout without ring flags.
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "XDP_MMAP_OFFSETS: the kernel's ring layout is too old (Linux 5.4 or later needed)",
            ));
        }
        let fill: Ring<u64> =
            map_ring(fd, &offsets.fr, FILL_RING, libc::XDP_UMEM_PGOFF_FILL_RING, true, "mmap of the fill ring")?;
        let completion: Ring<u64> = map_ring(
            fd,
            &offsets.cr,
            COMPLETION_RING,
            libc::XDP_UMEM_PGOFF_COMPLETION_RING,
            false,
            "mmap of the completion ring",
        )?;
        let rx = map_ring(fd, &offsets.rx, RX_RING, libc::XDP_PGOFF_RX_RING as u64, false, "mmap of the receive ring")?;
        let tx = map_ring(fd, &offsets.tx, TX_RING, libc::XDP_PGOFF_TX_RING as u64, true, "mmap of the transmit ring")?;

        // Every receive frame starts in the fill ring (which holds them all).
        for (n, address) in umem::rx_frame_addresses().enumerate() {
            fill.write(n as u32, address);
        }
        fill.publish(RX_FRAMES);

        bind(fd, index)?;
        let promiscuous = promiscuous_membership(index)?;
        bpf::insert_socket(map.as_raw_fd(), QUEUE, fd)?;
        let link = bpf::attach_xdp_generic(program.as_raw_fd(), index)?;
        Ok(XdpPort {
            name: name.to_string(),
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
            tx_frames: RefCell::new(TxFrames::new()),
            unsent: Cell::new(0),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn raw_fd(&self) -> RawFd {
        self.socket.as_raw_fd()
    }

    /// Calls `each` with up to `limit` frames waiting on the interface, read in place in the UMEM;
    /// returns how many there were (0: none waiting). The frames go back to the fill ring after.
    /// `&mut self`: `each` cannot receive again, which would read the same descriptors a second
    /// time (they are released below, after it).
    pub fn receive_each(&mut self, limit: usize, mut each: impl FnMut(&[u8])) -> io::Result<usize> {
        let count = self.rx.available().min(u32::try_from(limit).unwrap_or(u32::MAX));
        for n in 0..count {
            let descriptor = self.rx.read(n);
            // SAFETY: the kernel handed this frame over through the receive ring and gets it back
            // only through the fill ring, below, after `each` has returned.
            match unsafe { self.umem.bytes(descriptor.addr, descriptor.len) } {
                Some(frame) => each(frame),
                None => continue, // not inside one frame: never produced by a correct kernel
            }
        }
        // The fill ring holds every receive frame, so it has a slot for each frame read here.
        debug_assert!(self.fill.free_slots() >= count);
        for n in 0..count {
            self.fill.write(n, umem::frame_start(self.rx.read(n).addr));
        }
        self.fill.publish(count);
        self.rx.release(count);
        Ok(count as usize)
    }

    /// Sends one frame out of the interface: copied into a free transmit frame and posted on the
    /// transmit ring. Copy mode sends only when asked (a system call), so the kernel is asked once
    /// per `KICK_BATCH` frames, and by [`XdpPort::flush`] for the rest.
    pub fn send(&self, frame: &[u8]) -> io::Result<()> {
        if frame.len() > FRAME_SIZE as usize {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "cannot send on {}: a {}-byte frame is longer than an AF_XDP frame ({FRAME_SIZE} bytes)",
                    self.name,
                    frame.len()
                ),
            ));
        }
        let mut frames = self.tx_frames.borrow_mut();
        self.reclaim_completed(&mut frames);
        let address = match frames.take() {
            Some(address) => address,
            None => {
                // Every transmit frame is in flight: ask the kernel to send, and look again.
                self.kick()?;
                self.reclaim_completed(&mut frames);
                frames.take().ok_or_else(|| {
                    io::Error::new(
                        io::ErrorKind::WouldBlock,
                        format!("cannot send on {}: all {TX_FRAMES} AF_XDP transmit frames are in flight", self.name),
                    )
                })?
            }
        };
        // The transmit ring holds every transmit frame, so a free frame means a free slot.
        debug_assert!(self.tx.free_slots() > 0);
        // SAFETY: the frame was just taken from the free list: the kernel does not hold it.
        unsafe { self.umem.write(address, frame) };
        self.tx.write(0, libc::xdp_desc { addr: address, len: frame.len() as u32, options: 0 });
        self.tx.publish(1);
        self.unsent.set(self.unsent.get() + 1);
        if self.unsent.get() >= KICK_BATCH {
            return self.flush();
        }
        Ok(())
    }

    /// Asks the kernel to send every frame posted so far. It sends at most `KICK_BATCH` per call
    /// (its budget per system call in copy mode), so this repeats, a bounded number of times.
    pub fn flush(&self) -> io::Result<()> {
        let mut calls = TX_RING / KICK_BATCH + 1;
        while self.unsent.get() > 0 && calls > 0 {
            self.kick()?;
            // Whatever the kernel has taken off the transmit ring is sent (or being sent).
            self.unsent.set(self.tx.queued());
            calls -= 1;
        }
        Ok(())
    }

    /// Frees the transmit frames the kernel has finished with.
    fn reclaim_completed(&self, frames: &mut TxFrames) {
        let count = self.completion.available();
        for n in 0..count {
            frames.give_back(self.completion.read(n));
        }
        self.completion.release(count);
    }

    /// Asks the kernel to send what the transmit ring holds. "Try again later" answers leave the
    /// frames queued for the next call, so they are not errors.
    fn kick(&self) -> io::Result<()> {
        // SAFETY: a zero-length send with no buffer and no address: only a wake-up.
        let result = unsafe {
            libc::sendto(self.socket.as_raw_fd(), std::ptr::null(), 0, libc::MSG_DONTWAIT, std::ptr::null(), 0)
        };
        if result >= 0 {
            return Ok(());
        }
        let error = io::Error::last_os_error();
        match error.raw_os_error() {
            Some(libc::EAGAIN | libc::EBUSY | libc::ENOBUFS | libc::EINTR) => Ok(()),
            _ => Err(io::Error::new(error.kind(), format!("cannot send on {}: {error}", self.name))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_mtu_leaves_room_for_the_headroom_and_a_tagged_ethernet_header() {
        assert_eq!(largest_mtu(), 1774);
        assert_eq!(std::mem::size_of::<MtuRequest>(), 40);
    }

    #[test]
    fn the_mtu_of_loopback_is_read_without_privileges() {
        assert!(interface_mtu(&CString::new("lo").unwrap()).is_ok_and(|mtu| mtu >= 1500));
        assert!(interface_mtu(&CString::new("nosuch0").unwrap()).is_err());
    }
}

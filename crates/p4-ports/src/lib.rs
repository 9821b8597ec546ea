//! Linux network interfaces as switch ports, through one of two kinds of socket ([`Port`], chosen
//! by [`IoMode`]): AF_XDP (`xdp/`) where the kernel offers it, or the `AF_PACKET` [`LinuxPort`]
//! described here. This crate holds the project's system-interface code for ports, so that the CLI
//! needs no `unsafe`; every `unsafe` states the invariant it relies on.
//!
//! A [`LinuxPort`] is one `AF_PACKET` raw socket per interface, bound to it, in promiscuous mode, so
//! every Ethernet frame the interface sees reaches the switch and every frame the switch sends leaves
//! through it unchanged.
//!
//! Frames are received through a `TPACKET_V3` ring ([`ring`]) where the kernel offers one, else one
//! `recv` per frame; they are sent with `send`. Frames the socket itself sent are not received
//! again (`PACKET_IGNORE_OUTGOING`, Linux 4.20 or later), or the switch would process its own output.
//!
//! Every port is a [`Device`]: frames come and go through receive and transmit tokens that borrow
//! the port, so a frame in memory shared with the kernel cannot be handed out twice.
//!
//! System calls go through `rustix` (sockets, socket options, `mmap`, `poll`). What it does not
//! cover stays a raw `libc` call, each with the invariant it relies on: the `SOL_PACKET` options
//! (promiscuous membership, ignoring outgoing frames, the `TPACKET_V3` ring), binding a packet
//! socket (`sockaddr_ll`), the MTU `ioctl`, `getifaddrs`, and the `bpf()` system call.

#![deny(unsafe_op_in_unsafe_fn)]

mod device;
mod lock;
mod port;
mod ring;
mod xdp;

pub use device::{receive_up_to, send_copy, Device, RxToken, TxToken};
pub use port::{wait_readable, IoMode, Port, PortRx, PortTx};
pub use xdp::XdpPort;

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};

use rustix::net::{AddressFamily, RecvFlags, SendFlags, SocketFlags, SocketType};

/// The longest interface name Linux accepts, in bytes (`IFNAMSIZ` less its NUL).
pub const MAX_INTERFACE_NAME: usize = libc::IFNAMSIZ - 1;

/// Largest frame read from an interface (a jumbo frame with room to spare).
pub const MAX_FRAME: usize = 16 * 1024;
/// Kernel socket buffer per port and direction.
const SOCKET_BUFFER: usize = 8 << 20;

/// A Linux interface opened as a switch port.
pub struct LinuxPort {
    name: String,
    /// Held for as long as the port is open: no other switch may use the interface.
    _hold: lock::InterfaceHold,
    socket: OwnedFd,
    /// `None`: the kernel refused the ring; frames come one `recv` at a time into `buffer`.
    ring: Option<ring::RxRing>,
    /// Where a frame is received (without a ring) or built to be sent.
    buffer: Box<[u8]>,
    /// Frames the kernel dropped for want of room in the socket's ring or buffer, read so far
    /// (reading the kernel's count resets it).
    dropped: u64,
}

fn with_context(what: &str, name: &str, error: impl Into<io::Error>) -> io::Error {
    let error = error.into();
    io::Error::new(error.kind(), format!("{what} {name}: {error}"))
}

/// The index of interface `name`, asked through socket `fd` (`NotFound` when there is none).
fn interface_index(fd: BorrowedFd<'_>, name: &str) -> io::Result<u32> {
    if name.is_empty() || name.len() > MAX_INTERFACE_NAME || name.contains('\0') {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("`{name}` is not an interface name")));
    }
    rustix::net::netdevice::name_to_index(fd, name).map_err(|error| match error {
        rustix::io::Errno::NODEV => {
            io::Error::new(io::ErrorKind::NotFound, format!("no network interface named {name}"))
        }
        other => with_context("cannot look up interface", name, other),
    })
}

/// A packet socket receiving frames of every protocol (`ETH_P_ALL`), or none (`listening` false:
/// a socket that only holds a membership).
fn packet_socket(listening: bool, flags: SocketFlags) -> io::Result<OwnedFd> {
    let protocol = listening.then_some(rustix::net::eth::ALL);
    Ok(rustix::net::socket_with(AddressFamily::PACKET, SocketType::RAW, flags | SocketFlags::CLOEXEC, protocol)?)
}

impl LinuxPort {
    /// Opens interface `name` (needs CAP_NET_RAW, i.e. root).
    pub fn open(name: &str) -> io::Result<LinuxPort> {
        let socket = packet_socket(true, SocketFlags::NONBLOCK)
            .map_err(|e| with_context("cannot open a raw socket for", name, e))?;
        let index = interface_index(socket.as_fd(), name)?;
        let hold = lock::InterfaceHold::take(name, index)?;
        bind_packet_socket(socket.as_fd(), index).map_err(|e| with_context("cannot bind a raw socket to", name, e))?;
        add_promiscuous_membership(socket.as_fd(), index)
            .map_err(|e| with_context("cannot make promiscuous", name, e))?;
        // Bursts (a TCP window arriving at once) must wait in the kernel while the switch is busy
        // with another port: the default socket buffer (~200 KiB) overflows and the sender backs off.
        // Without CAP_NET_ADMIN these fail and the default size stays, which still works (more slowly).
        let _ = rustix::net::sockopt::set_socket_recv_buffer_size_force(&socket, SOCKET_BUFFER);
        let _ = rustix::net::sockopt::set_socket_send_buffer_size_force(&socket, SOCKET_BUFFER);
        let ignore_outgoing: libc::c_int = 1;
        // SAFETY: an int option of the size given, only read by the kernel.
        let ignored = unsafe {
            libc::setsockopt(
                socket.as_raw_fd(),
                libc::SOL_PACKET,
                libc::PACKET_IGNORE_OUTGOING,
                (&ignore_outgoing as *const libc::c_int).cast(),
                4,
            )
        };
        if ignored < 0 {
            let why = io::Error::last_os_error();
            return Err(io::Error::new(why.kind(), format!("cannot keep {name}'s own output out of what it receives (PACKET_IGNORE_OUTGOING needs Linux 4.20): {why}")));
        }
        let ring = match ring::RxRing::new(socket.as_fd()) {
            Ok(ring) => Some(ring),
            Err(error) => {
                p4_io::eprintln_safe!(
                    "note: {name}: no TPACKET_V3 receive ring ({error}); receiving one frame per system call"
                );
                None
            }
        };
        Ok(LinuxPort {
            name: name.to_string(),
            _hold: hold,
            socket,
            ring,
            buffer: vec![0; MAX_FRAME].into_boxed_slice(),
            dropped: 0,
        })
    }

    /// Frames that reached the interface but not the switch since the port opened, by reason:
    /// the kernel's count of frames it dropped because the receive ring or buffer was full
    /// (`PACKET_STATISTICS`).
    pub fn kernel_drops(&mut self) -> io::Result<Vec<(&'static str, u64)>> {
        let mut stats = libc::tpacket_stats_v3 { tp_packets: 0, tp_drops: 0, tp_freeze_q_cnt: 0 };
        let mut length = std::mem::size_of::<libc::tpacket_stats_v3>() as libc::socklen_t;
        // SAFETY: the kernel writes at most `length` bytes into `stats`, a plain C struct of the
        // layout PACKET_STATISTICS fills for a TPACKET_V3 socket (the v1/v2 layout is its prefix),
        // and `length` is the struct's size.
        let r = unsafe {
            libc::getsockopt(
                self.socket.as_raw_fd(),
                libc::SOL_PACKET,
                libc::PACKET_STATISTICS,
                (&mut stats as *mut libc::tpacket_stats_v3).cast(),
                &mut length,
            )
        };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        self.dropped += u64::from(stats.tp_drops);
        Ok(vec![("the socket's receive ring was full (the switch fell behind)", self.dropped)])
    }

    pub fn name(&self) -> &str {
        &self.name
    }
}

/// What an interface is doing, as its port sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    /// Administratively up with its carrier: frames flow.
    Up,
    /// There, but down (or without carrier): no frame will come until it is up again.
    Down,
    /// No interface of that name any more (deleted, or moved to another namespace).
    Gone,
}

/// `struct ifreq`: the interface's name, then a union the request reads or writes (40 bytes).
#[repr(C)]
struct InterfaceRequest {
    name: [libc::c_char; libc::IFNAMSIZ],
    union: [u8; 24],
}

/// Asks interface `name` for `request` (`SIOCGIFMTU`, `SIOCGIFFLAGS`: the ioctls rustix does not
/// have) through socket `probe`; returns the union as the kernel left it.
fn interface_ioctl(probe: BorrowedFd<'_>, name: &str, request: libc::c_ulong) -> io::Result<[u8; 24]> {
    if name.len() >= libc::IFNAMSIZ || name.contains('\0') {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("`{name}` is not an interface name")));
    }
    let mut ifreq = InterfaceRequest { name: [0; libc::IFNAMSIZ], union: [0; 24] };
    for (slot, &byte) in ifreq.name.iter_mut().zip(name.as_bytes()) {
        *slot = byte as libc::c_char;
    }
    // SAFETY: ifreq is a 40-byte `struct ifreq` with a NUL-terminated name (checked above: shorter
    // than IFNAMSIZ, no NUL inside, the rest zero); the kernel writes only inside it.
    if unsafe { libc::ioctl(probe.as_raw_fd(), request, &mut ifreq as *mut InterfaceRequest) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(ifreq.union)
}

/// The MTU of interface `name`, asked through socket `probe`.
fn interface_mtu(probe: BorrowedFd<'_>, name: &str) -> io::Result<u32> {
    let union = interface_ioctl(probe, name, libc::SIOCGIFMTU)?;
    Ok(i32::from_ne_bytes([union[0], union[1], union[2], union[3]]).max(0) as u32)
}

/// The state of interface `name` now (asked through a datagram socket: rustix has no
/// `SIOCGIFFLAGS`, and AF_XDP sockets answer no interface `ioctl`).
pub fn link_state(name: &str) -> io::Result<Link> {
    let probe = rustix::net::socket(AddressFamily::INET, SocketType::DGRAM, None)?;
    match interface_index(probe.as_fd(), name) {
        Ok(_) => {}
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Link::Gone),
        Err(error) => return Err(error),
    }
    let flags = match interface_ioctl(probe.as_fd(), name, libc::SIOCGIFFLAGS) {
        Ok(union) => libc::c_short::from_ne_bytes([union[0], union[1]]),
        Err(error) if error.raw_os_error() == Some(libc::ENODEV) => return Ok(Link::Gone),
        Err(error) => return Err(error),
    };
    let up = (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
    Ok(if flags & up == up { Link::Up } else { Link::Down })
}

/// Binds packet socket `fd` to interface `index` for every protocol. rustix has no link-layer
/// address type, so `sockaddr_ll` is built here.
fn bind_packet_socket(fd: BorrowedFd<'_>, index: u32) -> io::Result<()> {
    // SAFETY: sockaddr_ll is plain data; all-zero is a valid starting value.
    let mut address: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
    address.sll_family = libc::AF_PACKET as u16;
    address.sll_protocol = (libc::ETH_P_ALL as u16).to_be();
    address.sll_ifindex = index as i32;
    // SAFETY: address is a valid sockaddr_ll of the size given, only read by the kernel.
    let bound = unsafe {
        libc::bind(
            fd.as_raw_fd(),
            (&address as *const libc::sockaddr_ll).cast(),
            std::mem::size_of::<libc::sockaddr_ll>() as u32,
        )
    };
    if bound < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Where the frame a [`LinuxRx`] stands for is.
enum Received {
    Ring(ring::Located),
    /// The first this many bytes of the port's buffer.
    Buffer(usize),
}

/// A frame received on a [`LinuxPort`].
pub struct LinuxRx<'a> {
    port: &'a mut LinuxPort,
    frame: Received,
}

impl RxToken for LinuxRx<'_> {
    fn consume<R>(self, f: impl FnOnce(&[u8]) -> R) -> R {
        match self.frame {
            Received::Ring(located) => {
                let ring = self.port.ring.as_mut().expect("a ring frame comes from the ring");
                let result = f(ring.bytes(located));
                ring.done();
                result
            }
            Received::Buffer(length) => f(&self.port.buffer[..length]),
        }
    }

    /// A ring frame's header holds the time the kernel wrote it (the socket's own reception time
    /// when nothing stamped it before); a frame read with `recv` has none.
    fn arrival_ns(&self) -> Option<u64> {
        match self.frame {
            Received::Ring(located) => Some(located.arrival_ns()),
            Received::Buffer(_) => None,
        }
    }
}

/// Room to send one frame on a [`LinuxPort`] (its buffer).
pub struct LinuxTx<'a> {
    port: &'a mut LinuxPort,
}

impl TxToken for LinuxTx<'_> {
    fn consume<R>(self, length: usize, f: impl FnOnce(&mut [u8]) -> R) -> io::Result<R> {
        let port = self.port;
        let Some(buffer) = port.buffer.get_mut(..length) else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("cannot send on {}: a {length}-byte frame is longer than {MAX_FRAME} bytes", port.name),
            ));
        };
        let result = f(buffer);
        rustix::net::send(&port.socket, &port.buffer[..length], SendFlags::empty())
            .map_err(|e| with_context("cannot send on", &port.name, e))?;
        Ok(result)
    }
}

impl Device for LinuxPort {
    type RxToken<'a> = LinuxRx<'a>;
    type TxToken<'a> = LinuxTx<'a>;

    fn receive(&mut self) -> io::Result<Option<LinuxRx<'_>>> {
        if let Some(ring) = &mut self.ring {
            return Ok(ring.next().map(|located| LinuxRx { port: self, frame: Received::Ring(located) }));
        }
        loop {
            // MSG_TRUNC reports the frame's real length; a longer frame than the buffer is cut.
            return match rustix::net::recv(&self.socket, &mut self.buffer[..], RecvFlags::TRUNC) {
                Ok((_, length)) => {
                    let length = length.min(self.buffer.len());
                    Ok(Some(LinuxRx { port: self, frame: Received::Buffer(length) }))
                }
                Err(rustix::io::Errno::AGAIN) => Ok(None),
                Err(rustix::io::Errno::INTR) => continue,
                Err(error) => Err(with_context("cannot receive on", &self.name, error)),
            };
        }
    }

    fn transmit(&mut self) -> io::Result<Option<LinuxTx<'_>>> {
        Ok(Some(LinuxTx { port: self }))
    }

    /// An `AF_PACKET` send leaves at once.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn readiness(&self) -> BorrowedFd<'_> {
        self.socket.as_fd()
    }
}

/// Puts interface `index` in promiscuous mode for as long as packet socket `fd` stays open (the
/// kernel counts memberships and drops this one when the socket is closed, however the process
/// ends), so frames addressed to any MAC address reach the switch.
fn add_promiscuous_membership(fd: BorrowedFd<'_>, index: u32) -> io::Result<()> {
    // SAFETY: packet_mreq is plain data; all-zero is a valid starting value.
    let mut membership: libc::packet_mreq = unsafe { std::mem::zeroed() };
    membership.mr_ifindex = index as i32;
    membership.mr_type = libc::PACKET_MR_PROMISC as u16;
    // SAFETY: the call reads membership for its given size.
    let added = unsafe {
        libc::setsockopt(
            fd.as_raw_fd(),
            libc::SOL_PACKET,
            libc::PACKET_ADD_MEMBERSHIP,
            (&membership as *const libc::packet_mreq).cast(),
            std::mem::size_of::<libc::packet_mreq>() as u32,
        )
    };
    if added < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_states_are_read_without_privileges() {
        assert_eq!(std::mem::size_of::<InterfaceRequest>(), 40);
        assert_eq!(link_state("lo").map_err(|e| e.to_string()), Ok(Link::Up));
        assert_eq!(link_state("nosuch0").map_err(|e| e.to_string()), Ok(Link::Gone));
        assert!(link_state("a name far too long for linux").is_err());
        let probe = rustix::net::socket(AddressFamily::INET, SocketType::DGRAM, None).unwrap();
        assert!(interface_mtu(probe.as_fd(), "lo").is_ok_and(|mtu| mtu >= 1500));
        assert!(interface_mtu(probe.as_fd(), "nosuch0").is_err());
    }
}

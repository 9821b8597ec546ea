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
//! `recvfrom` per frame; they are sent with `send`. Frames the socket itself sent are not received
//! again (`PACKET_IGNORE_OUTGOING`, or skipped as `PACKET_OUTGOING`), or the switch would process its
//! own output.

#![deny(unsafe_op_in_unsafe_fn)]

mod port;
mod ring;
mod xdp;

pub use port::{IoMode, Port};
pub use xdp::XdpPort;

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// The longest interface name Linux accepts, in bytes (`IFNAMSIZ` less its NUL).
pub const MAX_INTERFACE_NAME: usize = libc::IFNAMSIZ - 1;

/// Largest frame read from an interface (a jumbo frame with room to spare).
pub const MAX_FRAME: usize = 16 * 1024;
/// Kernel socket buffer per port and direction.
const SOCKET_BUFFER: libc::c_int = 8 << 20;

/// A Linux interface opened as a switch port.
pub struct LinuxPort {
    name: String,
    socket: OwnedFd,
    /// `None`: the kernel refused the ring; frames come one `recvfrom` at a time.
    ring: Option<ring::RxRing>,
}

fn last_error(what: &str, name: &str) -> io::Error {
    let error = io::Error::last_os_error();
    io::Error::new(error.kind(), format!("{what} {name}: {error}"))
}

impl LinuxPort {
    /// Opens interface `name` (needs CAP_NET_RAW, i.e. root).
    pub fn open(name: &str) -> io::Result<LinuxPort> {
        let c_name = CString::new(name).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "an interface name has no NUL byte"))?;
        // SAFETY: if_nametoindex reads a NUL-terminated string and returns 0 when it is unknown.
        let index = unsafe { libc::if_nametoindex(c_name.as_ptr()) };
        if index == 0 {
            return Err(io::Error::new(io::ErrorKind::NotFound, format!("no network interface named {name}")));
        }
        let protocol = (libc::ETH_P_ALL as u16).to_be();
        // SAFETY: plain socket creation; the result is checked before use.
        let fd = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC, i32::from(protocol)) };
        if fd < 0 {
            return Err(last_error("cannot open a raw socket for", name));
        }
        // SAFETY: fd is a fresh socket this function owns from here on.
        let socket = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: sockaddr_ll is plain data; all-zero is a valid starting value.
        let mut address: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        address.sll_family = libc::AF_PACKET as u16;
        address.sll_protocol = protocol;
        address.sll_ifindex = index as i32;
        // SAFETY: address is a valid sockaddr_ll of the size given.
        let bound = unsafe {
            libc::bind(fd, (&address as *const libc::sockaddr_ll).cast(), std::mem::size_of::<libc::sockaddr_ll>() as u32)
        };
        if bound < 0 {
            return Err(last_error("cannot bind a raw socket to", name));
        }
        if let Err(error) = add_promiscuous_membership(fd, index) {
            return Err(io::Error::new(error.kind(), format!("cannot make promiscuous {name}: {error}")));
        }
        // Bursts (a TCP window arriving at once) must wait in the kernel while the switch is busy
        // with another port: the default socket buffer (~200 KiB) overflows and the sender backs off.
        for option in [libc::SO_RCVBUFFORCE, libc::SO_SNDBUFFORCE] {
            let bytes: libc::c_int = SOCKET_BUFFER;
            // SAFETY: the option value is a c_int of the size given. Without CAP_NET_ADMIN the call
            // fails and the default size stays, which still works (more slowly).
            unsafe {
                libc::setsockopt(fd, libc::SOL_SOCKET, option, (&bytes as *const libc::c_int).cast(), std::mem::size_of::<libc::c_int>() as u32);
            }
        }
        let ignore_outgoing: libc::c_int = 1;
        // SAFETY: an int option of the size given; on kernels before 4.20 it fails and receive()
        // skips PACKET_OUTGOING frames itself.
        unsafe {
            libc::setsockopt(fd, libc::SOL_PACKET, libc::PACKET_IGNORE_OUTGOING, (&ignore_outgoing as *const libc::c_int).cast(), 4);
        }
        let ring = match ring::RxRing::new(fd) {
            Ok(ring) => Some(ring),
            Err(error) => {
                p4_io::eprintln_safe!("note: {name}: no TPACKET_V3 receive ring ({error}); receiving one frame per system call");
                None
            }
        };
        Ok(LinuxPort { name: name.to_string(), socket, ring })
    }

    /// Calls `each` with frames waiting on the interface (at most a ring block, or `limit` frames
    /// on the socket path); returns how many there were (0: none waiting).
    pub fn receive_each(&mut self, buffer: &mut [u8], limit: usize, mut each: impl FnMut(&[u8])) -> io::Result<usize> {
        if let Some(ring) = &mut self.ring {
            return Ok(ring.drain_block(each));
        }
        let mut count = 0;
        while count < limit {
            let Some(length) = self.receive(buffer)? else { break };
            each(&buffer[..length]);
            count += 1;
        }
        Ok(count)
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The next frame that arrived on the interface, `Ok(None)` when none is waiting.
    pub fn receive(&self, buffer: &mut [u8]) -> io::Result<Option<usize>> {
        loop {
            // SAFETY: see above; recvfrom writes at most buffer.len() bytes and the address size given.
            let mut address: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
            let mut length = std::mem::size_of::<libc::sockaddr_ll>() as u32;
            let read = unsafe {
                libc::recvfrom(
                    self.socket.as_raw_fd(),
                    buffer.as_mut_ptr().cast(),
                    buffer.len(),
                    libc::MSG_TRUNC,
                    (&mut address as *mut libc::sockaddr_ll).cast(),
                    &mut length,
                )
            };
            if read < 0 {
                let error = io::Error::last_os_error();
                return match error.kind() {
                    io::ErrorKind::WouldBlock => Ok(None),
                    io::ErrorKind::Interrupted => continue,
                    _ => Err(io::Error::new(error.kind(), format!("cannot receive on {}: {error}", self.name))),
                };
            }
            if address.sll_pkttype == libc::PACKET_OUTGOING {
                continue;
            }
            // MSG_TRUNC reports the frame's real length; a longer frame than the buffer is cut.
            return Ok(Some((read as usize).min(buffer.len())));
        }
    }

    /// Sends one frame out of the interface.
    pub fn send(&self, frame: &[u8]) -> io::Result<()> {
        // SAFETY: send reads frame.len() bytes from frame.
        let sent = unsafe { libc::send(self.socket.as_raw_fd(), frame.as_ptr().cast(), frame.len(), 0) };
        if sent < 0 {
            return Err(last_error("cannot send on", &self.name));
        }
        Ok(())
    }

    pub fn raw_fd(&self) -> RawFd {
        self.socket.as_raw_fd()
    }
}

/// Puts interface `index` in promiscuous mode for as long as packet socket `fd` stays open (the
/// kernel counts memberships and drops this one when the socket is closed, however the process
/// ends), so frames addressed to any MAC address reach the switch.
fn add_promiscuous_membership(fd: RawFd, index: u32) -> io::Result<()> {
    // SAFETY: packet_mreq is plain data; all-zero is a valid starting value.
    let mut membership: libc::packet_mreq = unsafe { std::mem::zeroed() };
    membership.mr_ifindex = index as i32;
    membership.mr_type = libc::PACKET_MR_PROMISC as u16;
    // SAFETY: the call reads membership for its given size.
    let added = unsafe {
        libc::setsockopt(
            fd,
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

/// Waits up to `timeout_ms` until one of `fds` is readable; returns which are.
pub fn wait_readable(fds: &[RawFd], timeout_ms: i32) -> io::Result<Vec<bool>> {
    let mut polls: Vec<libc::pollfd> = fds.iter().map(|&fd| libc::pollfd { fd, events: libc::POLLIN, revents: 0 }).collect();
    // SAFETY: polls is a valid array of pollfd of the length given.
    let ready = unsafe { libc::poll(polls.as_mut_ptr(), polls.len() as libc::nfds_t, timeout_ms) };
    if ready < 0 {
        let error = io::Error::last_os_error();
        if error.kind() == io::ErrorKind::Interrupted {
            return Ok(vec![false; fds.len()]);
        }
        return Err(error);
    }
    Ok(polls.iter().map(|p| p.revents & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) != 0).collect())
}

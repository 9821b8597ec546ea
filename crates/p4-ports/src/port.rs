//! One switch port whichever way frames reach it, so the packet loop of `p4forge switch` has one
//! type to open, poll, receive from and send on (a [`Device`]).

use super::{Device, LinuxPort, RxToken, TxToken, XdpPort};
use rustix::event::{poll, PollFd, PollFlags, Timespec};
use std::ffi::CStr;
use std::io;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::os::fd::BorrowedFd;

/// How `p4forge switch` exchanges frames with its interfaces (`--io`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum IoMode {
    /// AF_XDP where the kernel and the interface allow it and the interface does not carry the
    /// host's own traffic, else AF_PACKET (saying why, per port).
    Auto,
    /// AF_XDP only: a port that cannot use it is an error.
    Xdp,
    /// AF_PACKET with a TPACKET_V3 receive ring.
    Packet,
}

pub enum Port {
    Packet(LinuxPort),
    /// Boxed: its rings and UMEM handles make it several times the size of a `LinuxPort`.
    Xdp(Box<XdpPort>),
}

impl Port {
    /// Opens interface `name` as `mode` says. With `Auto`, a port that cannot use AF_XDP, or should
    /// not (`host_traffic`), opens with AF_PACKET and one line on stderr says why.
    pub fn open(name: &str, mode: IoMode) -> io::Result<Port> {
        match mode {
            IoMode::Packet => LinuxPort::open(name).map(Port::Packet),
            IoMode::Xdp => XdpPort::open(name).map(|port| Port::Xdp(Box::new(port))),
            IoMode::Auto => {
                if let Some(why) = host_traffic(name) {
                    p4_io::eprintln_safe!("{name}: AF_XDP not used ({why}); using AF_PACKET");
                    return LinuxPort::open(name).map(Port::Packet);
                }
                match XdpPort::open_steps(name) {
                    Ok(port) => Ok(Port::Xdp(Box::new(port))),
                    // A missing interface, or one another switch holds, is not a reason to try
                    // another kind of socket.
                    Err(error) if matches!(error.kind(), io::ErrorKind::NotFound | io::ErrorKind::AddrInUse) => {
                        Err(error)
                    }
                    Err(error) => {
                        p4_io::eprintln_safe!("{name}: AF_XDP not available ({error}); using AF_PACKET");
                        LinuxPort::open(name).map(Port::Packet)
                    }
                }
            }
        }
    }

    /// "AF_XDP" or "AF_PACKET".
    pub fn kind(&self) -> &'static str {
        match self {
            Port::Packet(_) => "AF_PACKET",
            Port::Xdp(_) => "AF_XDP",
        }
    }

    pub fn name(&self) -> &str {
        match self {
            Port::Packet(port) => port.name(),
            Port::Xdp(port) => port.name(),
        }
    }
}

impl Port {
    /// Frames that reached the interface but not the switch since the port opened, by reason, as
    /// the kernel counts them (reasons with no frame left out).
    pub fn kernel_drops(&mut self) -> io::Result<Vec<(&'static str, u64)>> {
        let all = match self {
            Port::Packet(port) => port.kernel_drops()?,
            Port::Xdp(port) => port.kernel_drops()?,
        };
        Ok(all.into_iter().filter(|(_, n)| *n > 0).collect())
    }

    /// The state of the port's interface, after clearing any error the socket has pending (an
    /// interface going down leaves one, which would keep `poll` reporting the socket ready).
    pub fn link(&self) -> io::Result<crate::Link> {
        let _ = rustix::net::sockopt::socket_error(self.readiness());
        crate::link_state(self.name())
    }
}

/// A frame received on a [`Port`].
pub enum PortRx<'a> {
    Packet(crate::LinuxRx<'a>),
    Xdp(crate::xdp::XdpRx<'a>),
}

impl RxToken for PortRx<'_> {
    fn consume<R>(self, f: impl FnOnce(&[u8]) -> R) -> R {
        match self {
            PortRx::Packet(token) => token.consume(f),
            PortRx::Xdp(token) => token.consume(f),
        }
    }

    fn arrival_ns(&self) -> Option<u64> {
        match self {
            PortRx::Packet(token) => token.arrival_ns(),
            PortRx::Xdp(token) => token.arrival_ns(),
        }
    }
}

/// Room to send one frame on a [`Port`].
pub enum PortTx<'a> {
    Packet(crate::LinuxTx<'a>),
    Xdp(crate::xdp::XdpTx<'a>),
}

impl TxToken for PortTx<'_> {
    fn consume<R>(self, length: usize, f: impl FnOnce(&mut [u8]) -> R) -> io::Result<R> {
        match self {
            PortTx::Packet(token) => token.consume(length, f),
            PortTx::Xdp(token) => token.consume(length, f),
        }
    }
}

impl Device for Port {
    type RxToken<'a> = PortRx<'a>;
    type TxToken<'a> = PortTx<'a>;

    fn receive(&mut self) -> io::Result<Option<PortRx<'_>>> {
        Ok(match self {
            Port::Packet(port) => port.receive()?.map(PortRx::Packet),
            Port::Xdp(port) => port.receive()?.map(PortRx::Xdp),
        })
    }

    fn transmit(&mut self) -> io::Result<Option<PortTx<'_>>> {
        Ok(match self {
            Port::Packet(port) => port.transmit()?.map(PortTx::Packet),
            Port::Xdp(port) => port.transmit()?.map(PortTx::Xdp),
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Port::Packet(port) => port.flush(),
            Port::Xdp(port) => port.flush(),
        }
    }

    fn readiness(&self) -> BorrowedFd<'_> {
        match self {
            Port::Packet(port) => port.readiness(),
            Port::Xdp(port) => port.readiness(),
        }
    }
}

/// Waits up to `timeout_ms` until one of `ports` has frames waiting; returns which have (an
/// interrupted wait: none).
pub fn wait_readable(ports: &[&Port], timeout_ms: u32) -> io::Result<Vec<bool>> {
    let mut polls: Vec<PollFd<'_>> =
        ports.iter().map(|p| PollFd::from_borrowed_fd(p.readiness(), PollFlags::IN)).collect();
    let timeout = Timespec { tv_sec: i64::from(timeout_ms / 1000), tv_nsec: i64::from(timeout_ms % 1000) * 1_000_000 };
    match poll(&mut polls, Some(&timeout)) {
        Ok(_) => {
            Ok(polls.iter().map(|p| p.revents().intersects(PollFlags::IN | PollFlags::HUP | PollFlags::ERR)).collect())
        }
        Err(rustix::io::Errno::INTR) => Ok(vec![false; ports.len()]),
        Err(error) => Err(error.into()),
    }
}

/// Why interface `name` carries the host's own traffic, if it does: it is a loopback interface, or
/// it has an IPv4 address or an IPv6 address other than link-local. AF_XDP takes every frame the
/// interface receives away from the kernel's network stack (AF_PACKET only copies them), so on such
/// an interface it would cut the host's connections (a switch started on the interface one is
/// logged in through would lock the user out). `--io auto` leaves those to AF_PACKET; `--io xdp`
/// still uses AF_XDP there, as asked.
pub fn host_traffic(name: &str) -> Option<String> {
    let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs fills `list` with a list it allocates, freed below with freeifaddrs.
    if unsafe { libc::getifaddrs(&mut list) } != 0 {
        return None; // no address list: nothing known against AF_XDP
    }
    let mut reason = None;
    let mut entry = list;
    while !entry.is_null() && reason.is_none() {
        // SAFETY: entry is a node of the list getifaddrs returned, not yet freed; its name is a
        // NUL-terminated string and its address, when not null, a sockaddr of the family it names.
        unsafe {
            let node = &*entry;
            entry = node.ifa_next;
            if node.ifa_name.is_null() || CStr::from_ptr(node.ifa_name).to_bytes() != name.as_bytes() {
                continue;
            }
            if node.ifa_flags & libc::IFF_LOOPBACK as u32 != 0 {
                reason = Some("a loopback interface: its frames are the host's own traffic".to_string());
            } else if !node.ifa_addr.is_null() {
                reason = match i32::from((*node.ifa_addr).sa_family) {
                    libc::AF_INET => {
                        let address = &*node.ifa_addr.cast::<libc::sockaddr_in>();
                        Some(Ipv4Addr::from(u32::from_be(address.sin_addr.s_addr)).to_string())
                    }
                    libc::AF_INET6 => {
                        let address = Ipv6Addr::from((*node.ifa_addr.cast::<libc::sockaddr_in6>()).sin6_addr.s6_addr);
                        (!address.is_unicast_link_local()).then(|| address.to_string())
                    }
                    _ => None,
                }
                .map(|address| format!("the interface has address {address}, so it carries the host's own traffic"));
            }
        }
    }
    // SAFETY: frees the list getifaddrs allocated; nothing points into it any more.
    unsafe { libc::freeifaddrs(list) };
    reason.map(|why| format!("{why}, which AF_XDP would take from the kernel's network stack; `--io xdp` forces it"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_is_left_to_af_packet_and_an_unknown_interface_is_not_judged() {
        assert!(host_traffic("lo").is_some_and(|why| why.starts_with("a loopback interface")));
        assert_eq!(host_traffic("nosuch0"), None);
    }
}

//! One switch port whichever way frames reach it, so the packet loop in `cmd/switch.rs` has one
//! type to open, poll, receive from and send on.

use super::{LinuxPort, XdpPort};
use std::io;
use std::os::fd::RawFd;

/// How `p4forge switch` exchanges frames with its interfaces (`--io`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum IoMode {
    /// AF_XDP where the kernel and the interface allow it, else AF_PACKET (saying why, per port).
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
    /// Opens interface `name` as `mode` says. With `Auto`, a port that cannot use AF_XDP opens with
    /// AF_PACKET and one line on stderr says why.
    pub fn open(name: &str, mode: IoMode) -> io::Result<Port> {
        match mode {
            IoMode::Packet => LinuxPort::open(name).map(Port::Packet),
            IoMode::Xdp => XdpPort::open(name).map(|port| Port::Xdp(Box::new(port))),
            IoMode::Auto => match XdpPort::open_steps(name) {
                Ok(port) => Ok(Port::Xdp(Box::new(port))),
                // A missing interface is not a reason to try another kind of socket.
                Err(error) if error.kind() == io::ErrorKind::NotFound => Err(error),
                Err(error) => {
                    p4_io::eprintln_safe!("{name}: AF_XDP not available ({error}); using AF_PACKET");
                    LinuxPort::open(name).map(Port::Packet)
                }
            },
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

    /// The descriptor to poll for frames waiting.
    pub fn raw_fd(&self) -> RawFd {
        match self {
            Port::Packet(port) => port.raw_fd(),
            Port::Xdp(port) => port.raw_fd(),
        }
    }

    /// Calls `each` with a bounded batch of waiting frames (`buffer` is scratch space for the
    /// AF_PACKET path without a ring); returns how many there were.
    pub fn receive_each(&self, buffer: &mut [u8], limit: usize, each: impl FnMut(&[u8])) -> io::Result<usize> {
        match self {
            Port::Packet(port) => port.receive_each(buffer, limit, each),
            Port::Xdp(port) => port.receive_each(limit, each),
        }
    }

    /// Sends one frame out of the interface (or queues it until [`Port::flush`]).
    pub fn send(&self, frame: &[u8]) -> io::Result<()> {
        match self {
            Port::Packet(port) => port.send(frame),
            Port::Xdp(port) => port.send(frame),
        }
    }

    /// Sends what [`Port::send`] queued (AF_XDP asks the kernel once per batch of frames; an
    /// AF_PACKET send leaves at once).
    pub fn flush(&self) -> io::Result<()> {
        match self {
            Port::Packet(_) => Ok(()),
            Port::Xdp(port) => port.flush(),
        }
    }
}

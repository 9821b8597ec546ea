//! One switch per interface. Two switches on one interface would each receive every frame and
//! each send it on, so hosts would get every packet twice; an AF_XDP switch would silently take the
//! frames away from an AF_PACKET one. A port therefore holds its interface: a Unix socket bound to
//! the abstract name `p4forge/port/<interface index>`. Abstract names belong to the network
//! namespace, as interface indexes do, and the kernel frees the name when the socket closes,
//! however the process ends, so nothing is left to clean up.

use std::io;
use std::os::fd::OwnedFd;

use rustix::io::Errno;
use rustix::net::{AddressFamily, SocketAddrUnix, SocketFlags, SocketType};

/// Interface `index` held by this process while the value lives.
pub struct InterfaceHold(#[allow(dead_code)] OwnedFd);

impl InterfaceHold {
    /// Holds interface `name` (index `index`); `AddrInUse` when another p4forge switch holds it.
    pub fn take(name: &str, index: u32) -> io::Result<InterfaceHold> {
        let socket = rustix::net::socket_with(AddressFamily::UNIX, SocketType::DGRAM, SocketFlags::CLOEXEC, None)?;
        let address = SocketAddrUnix::new_abstract_name(format!("p4forge/port/{index}").as_bytes())?;
        match rustix::net::bind(&socket, &address) {
            Ok(()) => Ok(InterfaceHold(socket)),
            Err(Errno::ADDRINUSE) => Err(io::Error::new(
                io::ErrorKind::AddrInUse,
                format!("{name} is already a port of another p4forge switch (one switch per interface)"),
            )),
            Err(error) => {
                Err(io::Error::new(io::Error::from(error).kind(), format!("cannot hold {name} as a port: {error}")))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interface_is_held_once_until_its_hold_is_dropped() {
        // An index no real interface has here, so the test holds nothing a switch could want.
        let index = u32::MAX - std::process::id();
        let first = InterfaceHold::take("test0", index).expect("the first hold");
        let second = InterfaceHold::take("test0", index).map(|_| ()).map_err(|e| (e.kind(), e.to_string()));
        assert_eq!(
            second,
            Err((
                io::ErrorKind::AddrInUse,
                "test0 is already a port of another p4forge switch (one switch per interface)".into()
            ))
        );
        drop(first);
        assert!(InterfaceHold::take("test0", index).is_ok(), "free again once dropped");
    }
}

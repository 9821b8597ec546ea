//! The few `bpf(2)` commands an AF_XDP port needs, called through `syscall` (the C library has no
//! wrapper): create the XSKMAP, load the redirect program, put a socket in the map, attach the
//! program to an interface through a BPF link.
//!
//! Each command takes its own prefix of `union bpf_attr`; the structs below are those prefixes.
//! The kernel accepts an attribute shorter than its own union and reads the rest as zeros.

use super::program::Instruction;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};

// enum bpf_cmd (linux/bpf.h).
const BPF_MAP_CREATE: libc::c_int = 0;
const BPF_MAP_UPDATE_ELEM: libc::c_int = 2;
const BPF_PROG_LOAD: libc::c_int = 5;
const BPF_LINK_CREATE: libc::c_int = 28;
/// enum bpf_map_type: a map of AF_XDP sockets, the only kind `bpf_redirect_map` can send frames to
/// a socket through.
const BPF_MAP_TYPE_XSKMAP: u32 = 17;
/// enum bpf_prog_type.
const BPF_PROG_TYPE_XDP: u32 = 6;
/// enum bpf_attach_type.
const BPF_XDP: u32 = 37;
/// Generic XDP: the program runs on socket buffers after the driver, so it works on every
/// interface (veth included) whatever its driver supports.
const XDP_FLAGS_SKB_MODE: u32 = 1 << 1;
/// Bytes of verifier log kept when a load fails (only its first lines go into the error).
const VERIFIER_LOG: usize = 16 * 1024;

#[repr(C)]
#[derive(Default)]
struct MapCreate {
    map_type: u32,
    key_size: u32,
    value_size: u32,
    max_entries: u32,
    map_flags: u32,
    inner_map_fd: u32,
    numa_node: u32,
    map_name: [u8; 16],
}

#[repr(C)]
#[derive(Default)]
struct MapUpdate {
    map_fd: u32,
    _padding: u32,
    key: u64,
    value: u64,
    flags: u64,
}

#[repr(C)]
#[derive(Default)]
struct ProgLoad {
    prog_type: u32,
    insn_cnt: u32,
    insns: u64,
    license: u64,
    log_level: u32,
    log_size: u32,
    log_buf: u64,
    kern_version: u32,
    prog_flags: u32,
    prog_name: [u8; 16],
    prog_ifindex: u32,
    expected_attach_type: u32,
}

#[repr(C)]
#[derive(Default)]
struct LinkCreate {
    prog_fd: u32,
    target_ifindex: u32,
    attach_type: u32,
    flags: u32,
}

/// Runs bpf command `command` with attribute `attr`; the result is the command's non-negative
/// return value (a new file descriptor for the create and load commands).
fn bpf<T>(command: libc::c_int, attr: &mut T) -> io::Result<libc::c_long> {
    // SAFETY: attr is a live, initialised #[repr(C)] prefix of union bpf_attr and the size passed
    // is exactly its size, so the kernel reads (and for some commands writes) only inside it.
    // Every pointer stored in it (instructions, license, log, key, value) points into memory the
    // caller keeps alive across this call.
    let result = unsafe {
        libc::syscall(libc::SYS_bpf, command, (attr as *mut T).cast::<libc::c_void>(), std::mem::size_of::<T>())
    };
    if result < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(result)
}

/// A descriptor returned by a bpf command, owned from here on.
fn owned(fd: libc::c_long) -> OwnedFd {
    // SAFETY: the create and load commands return a new descriptor that nothing else owns.
    unsafe { OwnedFd::from_raw_fd(fd as RawFd) }
}

/// Prefixes a bpf error with the command that failed, keeping its kind (what the fallback message
/// and callers test).
fn failed(command: &str, error: io::Error) -> io::Error {
    io::Error::new(error.kind(), format!("{command}: {error}"))
}

/// An XSKMAP of `entries` sockets, keyed by receive queue.
pub fn create_socket_map(entries: u32) -> io::Result<OwnedFd> {
    let mut attr = MapCreate {
        map_type: BPF_MAP_TYPE_XSKMAP,
        key_size: 4,
        value_size: 4,
        max_entries: entries,
        map_name: *b"p4forge_xsks\0\0\0\0",
        ..MapCreate::default()
    };
    bpf(BPF_MAP_CREATE, &mut attr).map(owned).map_err(|e| failed("BPF_MAP_CREATE", e))
}

/// Puts socket `socket` into `map` under `queue`.
pub fn insert_socket(map: RawFd, queue: u32, socket: RawFd) -> io::Result<()> {
    let key = queue;
    let value = socket as u32;
    let mut attr = MapUpdate {
        map_fd: map as u32,
        key: &key as *const u32 as u64,
        value: &value as *const u32 as u64,
        ..MapUpdate::default()
    };
    bpf(BPF_MAP_UPDATE_ELEM, &mut attr).map(drop).map_err(|e| failed("BPF_MAP_UPDATE_ELEM", e))
}

/// Loads `program` as an XDP program. When the verifier refuses it, the error holds the start of
/// its log (the load is repeated with logging on, which costs nothing on the path that works).
pub fn load_xdp_program(program: &[Instruction]) -> io::Result<OwnedFd> {
    let bytes: Vec<u8> = program.iter().flat_map(|instruction| instruction.to_bytes()).collect();
    // bpf_redirect_map is not restricted to GPL programs; the string names the project's licence.
    let license = c"Apache-2.0";
    let mut attr = ProgLoad {
        prog_type: BPF_PROG_TYPE_XDP,
        insn_cnt: program.len() as u32,
        insns: bytes.as_ptr() as u64,
        license: license.as_ptr() as u64,
        prog_name: *b"p4forge_xsk\0\0\0\0\0",
        expected_attach_type: BPF_XDP,
        ..ProgLoad::default()
    };
    match bpf(BPF_PROG_LOAD, &mut attr) {
        Ok(fd) => Ok(owned(fd)),
        Err(error) if error.raw_os_error() == Some(libc::EACCES) || error.raw_os_error() == Some(libc::EINVAL) => {
            let mut log = vec![0u8; VERIFIER_LOG];
            attr.log_level = 1;
            attr.log_size = log.len() as u32;
            attr.log_buf = log.as_mut_ptr() as u64;
            // The second attempt only fetches the log; its outcome is the first one's.
            if let Ok(fd) = bpf(BPF_PROG_LOAD, &mut attr) {
                return Ok(owned(fd));
            }
            let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
            let text = String::from_utf8_lossy(&log[..end]);
            let summary: Vec<&str> = text.lines().filter(|line| !line.trim().is_empty()).take(3).collect();
            Err(io::Error::new(error.kind(), format!("BPF_PROG_LOAD: {error} (verifier: {})", summary.join(" / "))))
        }
        Err(error) => Err(failed("BPF_PROG_LOAD", error)),
    }
}

/// Attaches `program` to interface `ifindex` in generic (SKB) mode. The program stays attached
/// exactly as long as the returned link descriptor is open: closing it (on drop, or when the
/// process dies however it dies) detaches it, so no program is ever left behind.
pub fn attach_xdp_generic(program: RawFd, ifindex: u32) -> io::Result<OwnedFd> {
    let mut attr = LinkCreate {
        prog_fd: program as u32,
        target_ifindex: ifindex,
        attach_type: BPF_XDP,
        flags: XDP_FLAGS_SKB_MODE,
    };
    bpf(BPF_LINK_CREATE, &mut attr).map(owned).map_err(|e| match e.raw_os_error() {
        Some(libc::EBUSY) | Some(libc::EEXIST) => {
            io::Error::new(e.kind(), format!("BPF_LINK_CREATE: {e} (another XDP program is attached to the interface)"))
        }
        _ => failed("BPF_LINK_CREATE", e),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // The offsets of union bpf_attr's fields for each command (linux/bpf.h): a field in the wrong
    // place makes the kernel refuse the command or read garbage.
    #[test]
    fn attribute_prefixes_have_the_kernels_layout() {
        assert_eq!(std::mem::size_of::<MapCreate>(), 44);
        assert_eq!(std::mem::offset_of!(MapCreate, map_name), 28);
        assert_eq!(std::mem::offset_of!(MapUpdate, key), 8);
        assert_eq!(std::mem::offset_of!(MapUpdate, flags), 24);
        assert_eq!(std::mem::offset_of!(ProgLoad, insns), 8);
        assert_eq!(std::mem::offset_of!(ProgLoad, log_buf), 32);
        assert_eq!(std::mem::offset_of!(ProgLoad, prog_name), 48);
        assert_eq!(std::mem::offset_of!(ProgLoad, expected_attach_type), 68);
        assert_eq!(std::mem::size_of::<LinkCreate>(), 16);
    }
}

//! The packet socket PTF's `nn` platform dials (`ptf --platform nn --device-socket
//! 0-{0-7}@tcp://127.0.0.1:PORT`, or `ipc://PATH`), as BMv2's `--packet-in` offers it: a
//! pair (Pair0) socket of the scalability protocols NNG and nanomsg speak, carrying every port of
//! the switch. Each message is a little-endian `(type, port, more)` header of three 32-bit
//! integers, then bytes: PTF sends frames into the switch (PACKET_IN, `more` = length) and says
//! which ports it uses (PORT_ADD, PORT_REMOVE); the switch sends what leaves those ports
//! (PACKET_OUT). Requests for port information are answered "not supported".
//!
//! The wire protocol: after connecting, each side sends an 8-byte header (`00 'S' 'P' 00`, the
//! protocol number 0x0010 for pair0, big-endian, and two zero bytes); then every message is its
//! length as a 64-bit big-endian number and the bytes (over IPC, a `01` byte comes first).

use std::collections::BTreeSet;
use std::io::{self, Read, Write};
use std::net::TcpListener;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::{mpsc, Arc, Mutex};

const SP_HEADER: [u8; 8] = [0, b'S', b'P', 0, 0x00, 0x10, 0, 0];
const PORT_ADD: i32 = 0;
const PORT_REMOVE: i32 = 1;
const PORT_SET_STATUS: i32 = 2;
const PACKET_IN: i32 = 3;
const PACKET_OUT: i32 = 4;
const INFO_REQ: i32 = 5;
const INFO_REP: i32 = 6;
const INFO_NOT_SUPPORTED: i32 = 1;
/// The largest message taken: a jumbo frame and its header. A peer sending more is disconnected.
const MAX_MESSAGE: u64 = 16 * 1024 + 12;
/// Frames that may wait for the packet loop; beyond that the socket's reader waits, so a peer
/// sending faster than the switch switches is slowed down rather than held in memory.
const QUEUE: usize = 4096;

/// Where the socket listens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NnAddr {
    Tcp(String),
    Ipc(PathBuf),
}

impl NnAddr {
    /// `tcp://HOST:PORT` or `ipc://PATH`.
    pub fn parse(text: &str) -> Result<NnAddr, String> {
        if let Some(rest) = text.strip_prefix("tcp://") {
            return Ok(NnAddr::Tcp(rest.to_string()));
        }
        if let Some(path) = text.strip_prefix("ipc://").filter(|p| !p.is_empty()) {
            return Ok(NnAddr::Ipc(PathBuf::from(path)));
        }
        Err(format!("{text}: expected tcp://HOST:PORT or ipc://PATH"))
    }
}

/// A connected peer's byte stream.
trait Stream: Read + Write + Send {}
impl<T: Read + Write + Send> Stream for T {}

/// The switch's end of the socket.
pub struct NnSocket {
    /// Frames PTF sent into the switch: (port, frame).
    pub frames: mpsc::Receiver<(u32, Vec<u8>)>,
    /// The peer's writing half, while one is connected.
    writer: Arc<Mutex<Option<Box<dyn Stream>>>>,
    /// The ports PTF uses (PORT_ADD minus PORT_REMOVE).
    ports: Arc<Mutex<BTreeSet<u32>>>,
    ipc: bool,
    /// The IPC socket file, removed when the switch stops.
    path: Option<PathBuf>,
    /// Where it listens, for messages (a TCP port chosen when 0 was asked for).
    pub local: String,
}

impl Drop for NnSocket {
    fn drop(&mut self) {
        if let Some(path) = &self.path {
            let _ = std::fs::remove_file(path);
        }
    }
}

impl NnSocket {
    /// Listens on `addr`; one peer at a time is served (a new one replaces the old).
    pub fn bind(addr: &NnAddr) -> Result<NnSocket, String> {
        let (tx, frames) = mpsc::sync_channel(QUEUE);
        let writer: Arc<Mutex<Option<Box<dyn Stream>>>> = Arc::new(Mutex::new(None));
        let ports = Arc::new(Mutex::new(BTreeSet::new()));
        let (w, p) = (writer.clone(), ports.clone());
        match addr {
            NnAddr::Tcp(host) => {
                let listener = TcpListener::bind(host).map_err(|e| format!("cannot listen on tcp://{host}: {e}"))?;
                let local = listener.local_addr().map(|a| format!("tcp://{a}")).unwrap_or_else(|_| format!("tcp://{host}"));
                std::thread::Builder::new()
                    .name("packet-in".into())
                    .spawn(move || {
                        for stream in listener.incoming().flatten() {
                            let _ = stream.set_nodelay(true);
                            let Ok(reader) = stream.try_clone() else { continue };
                            serve(Box::new(reader), Box::new(stream), false, &tx, &w, &p);
                        }
                    })
                    .map_err(|e| format!("cannot start the packet socket's thread: {e}"))?;
                Ok(NnSocket { frames, writer, ports, ipc: false, path: None, local })
            }
            NnAddr::Ipc(path) => {
                if path.exists() {
                    return Err(format!("ipc://{}: the path exists; remove it or choose another", path.display()));
                }
                let listener = UnixListener::bind(path).map_err(|e| format!("cannot listen on ipc://{}: {e}", path.display()))?;
                std::thread::Builder::new()
                    .name("packet-in".into())
                    .spawn(move || {
                        for stream in listener.incoming().flatten() {
                            let Ok(reader) = UnixStream::try_clone(&stream) else { continue };
                            serve(Box::new(reader), Box::new(stream), true, &tx, &w, &p);
                        }
                    })
                    .map_err(|e| format!("cannot start the packet socket's thread: {e}"))?;
                Ok(NnSocket { frames, writer, ports, ipc: true, path: Some(path.clone()), local: format!("ipc://{}", path.display()) })
            }
        }
    }

    /// Whether PTF has said it uses `port`.
    pub fn has_port(&self, port: u32) -> bool {
        self.ports.lock().unwrap_or_else(|p| p.into_inner()).contains(&port)
    }

    /// Sends `frame` to PTF as leaving `port`; `Ok(false)` when no peer is connected.
    pub fn send(&self, port: u32, frame: &[u8]) -> io::Result<bool> {
        let mut writer = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        let Some(w) = writer.as_mut() else { return Ok(false) };
        let message = [&header(PACKET_OUT, port as i32, frame.len() as i32)[..], frame].concat();
        match write_message(w, &message, self.ipc) {
            Ok(()) => Ok(true),
            Err(e) => {
                *writer = None;
                Err(e)
            }
        }
    }
}

fn header(kind: i32, port: i32, more: i32) -> [u8; 12] {
    let mut h = [0u8; 12];
    h[..4].copy_from_slice(&kind.to_le_bytes());
    h[4..8].copy_from_slice(&port.to_le_bytes());
    h[8..].copy_from_slice(&more.to_le_bytes());
    h
}

fn write_message(w: &mut Box<dyn Stream>, message: &[u8], ipc: bool) -> io::Result<()> {
    let mut framed = Vec::with_capacity(message.len() + 9);
    if ipc {
        framed.push(1);
    }
    framed.extend_from_slice(&(message.len() as u64).to_be_bytes());
    framed.extend_from_slice(message);
    w.write_all(&framed)?;
    w.flush()
}

fn read_message(r: &mut Box<dyn Stream>, ipc: bool) -> io::Result<Vec<u8>> {
    if ipc {
        let mut kind = [0u8; 1];
        r.read_exact(&mut kind)?;
    }
    let mut len = [0u8; 8];
    r.read_exact(&mut len)?;
    let len = u64::from_be_bytes(len);
    if len > MAX_MESSAGE {
        return Err(io::Error::new(io::ErrorKind::InvalidData, format!("a {len}-byte message")));
    }
    let mut body = vec![0u8; len as usize];
    r.read_exact(&mut body)?;
    Ok(body)
}

/// Serves one peer until it disconnects or breaks the protocol.
fn serve(
    mut reader: Box<dyn Stream>,
    mut writer: Box<dyn Stream>,
    ipc: bool,
    frames: &mpsc::SyncSender<(u32, Vec<u8>)>,
    shared: &Arc<Mutex<Option<Box<dyn Stream>>>>,
    ports: &Arc<Mutex<BTreeSet<u32>>>,
) {
    let mut theirs = [0u8; 8];
    if writer.write_all(&SP_HEADER).is_err() || reader.read_exact(&mut theirs).is_err() || theirs != SP_HEADER {
        return;
    }
    *shared.lock().unwrap_or_else(|p| p.into_inner()) = Some(writer);
    while let Ok(message) = read_message(&mut reader, ipc) {
        let Some(h) = message.get(..12) else { break };
        let field = |i: usize| i32::from_le_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]]);
        let (kind, port, more) = (field(0), field(4), field(8));
        let Ok(port) = u32::try_from(port) else { continue };
        match kind {
            PORT_ADD => {
                ports.lock().unwrap_or_else(|p| p.into_inner()).insert(port);
            }
            PORT_REMOVE => {
                ports.lock().unwrap_or_else(|p| p.into_inner()).remove(&port);
            }
            PACKET_IN => {
                if frames.send((port, message[12..].to_vec())).is_err() {
                    break;
                }
            }
            INFO_REQ => {
                let reply = [&header(INFO_REP, port as i32, more)[..], &INFO_NOT_SUPPORTED.to_le_bytes()].concat();
                let mut guard = shared.lock().unwrap_or_else(|p| p.into_inner());
                if let Some(w) = guard.as_mut() {
                    let _ = write_message(w, &reply, ipc);
                }
            }
            // Link state: the switch's end of every port stays up.
            PORT_SET_STATUS => {}
            _ => {}
        }
    }
    *shared.lock().unwrap_or_else(|p| p.into_inner()) = None;
}

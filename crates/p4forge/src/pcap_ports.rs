//! Capture files as switch ports (`p4forge switch --port N=pcap-in:FILE`, `--port N=pcap-out:FILE`):
//! a pcap-in file's frames enter the switch as fast as it takes them; what the switch sends to a
//! pcap-out port is appended to a classic pcap file. Neither opens a socket, so a switch with only
//! capture ports needs no privileges.
//!
//! Reading and writing go through `p4_stf::capture`, the code `p4forge run` uses: the same formats
//! (pcap and pcapng in, Ethernet only), the same error messages, and the same atomic output (a
//! temporary name beside FILE, renamed by [`PcapOutPort::finish`]; dropped unfinished, it leaves
//! nothing behind).

use p4_stf::capture::{CaptureError, CaptureFormat, CaptureReader, CaptureWriter, Record};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, TryRecvError};
use std::time::Duration;

/// A capture file whose frames enter the switch.
pub struct PcapInPort {
    path: PathBuf,
    source: Source,
    /// Why the file was not read to its end (`FILE: packet #5 is truncated`), if it was not.
    failure: Option<String>,
}

/// Where a pcap-in port's frames come from.
enum Source {
    /// A regular file, read when the switch's loop asks; `None` once it is consumed (read to its
    /// end, or to a record that cannot be read).
    File(Option<CaptureReader>),
    /// A FIFO, pipe or device, read by a thread of its own, a frame at a time (one sent and then a
    /// stall reaches the switch at once): a writer that stalls, or never comes (opening a FIFO
    /// waits for one), holds up neither the switch's loop nor its runtime commands. The thread
    /// reads ahead at most [`FIFO_FRAMES_AHEAD`] frames.
    Waiting { chunks: Receiver<FifoChunk>, next: Option<FifoChunk>, ended: bool },
}

/// Frames a FIFO's reading thread may read ahead of the switch.
const FIFO_FRAMES_AHEAD: usize = 256;

/// What a FIFO's reading thread read: a frame's bytes and record (none at the input's end), and
/// whether the input ended after it (`Some(None)`: at its end, `Some(Some(why))`: at a record
/// that cannot be read).
struct FifoChunk {
    bytes: Vec<u8>,
    record: Option<Record>,
    end: Option<Option<String>>,
}

impl PcapInPort {
    /// Opens `path` (pcap or pcapng, Ethernet); an error says what is wrong with the file. A FIFO,
    /// pipe or device is opened and read by a thread of its own: what is wrong with it is then
    /// said as the reason it was not read to its end.
    pub fn open(path: &Path) -> Result<PcapInPort, CaptureError> {
        let waits = std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir());
        let source = if waits { Source::Waiting { chunks: read_ahead(path), next: None, ended: false } } else { Source::File(Some(CaptureReader::open(path)?)) };
        Ok(PcapInPort { path: path.to_path_buf(), source, failure: None })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether every frame the file holds has been read.
    pub fn is_consumed(&self) -> bool {
        match &self.source {
            Source::File(reader) => reader.is_none(),
            Source::Waiting { ended, .. } => *ended,
        }
    }

    /// Whether frames may be read now without waiting: a regular file's always may.
    pub fn is_ready(&mut self) -> bool {
        match &mut self.source {
            Source::File(reader) => reader.is_some(),
            Source::Waiting { chunks, next, ended } => {
                if next.is_none() && !*ended {
                    match chunks.try_recv() {
                        Ok(chunk) => *next = Some(chunk),
                        Err(TryRecvError::Empty) => {}
                        Err(TryRecvError::Disconnected) => {
                            *ended = true;
                            self.failure = Some(reader_lost(&self.path));
                        }
                    }
                }
                next.is_some()
            }
        }
    }

    /// Whether this is a FIFO, pipe or device that is not consumed yet (its frames come when its
    /// writer sends them).
    pub fn is_waiting(&self) -> bool {
        matches!(self.source, Source::Waiting { ended: false, .. })
    }

    /// Waits up to `timeout` for a FIFO's next frames (at once for a regular file); returns whether
    /// there are some to read.
    pub fn wait(&mut self, timeout: Duration) -> bool {
        if let Source::Waiting { chunks, next: next @ None, ended: ended @ false } = &mut self.source {
            match chunks.recv_timeout(timeout) {
                Ok(chunk) => *next = Some(chunk),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    *ended = true;
                    self.failure = Some(reader_lost(&self.path));
                }
            }
        }
        self.is_ready()
    }

    /// Why the file was not read to its end, if it was not.
    pub fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }

    /// Reads up to `limit` frames, appending each one's bytes to `bytes` and handing `each` its
    /// record and where its bytes start; returns how many. A record that cannot be read ends the
    /// file as its end would (the complete records before it have been handed over) and is kept as
    /// [`PcapInPort::failure`].
    pub fn read(&mut self, bytes: &mut Vec<u8>, limit: usize, mut each: impl FnMut(Record, usize)) -> usize {
        let reader = match &mut self.source {
            Source::File(Some(reader)) => reader,
            Source::File(None) => return 0,
            Source::Waiting { .. } => return self.read_waiting(bytes, limit, each),
        };
        let mut read = 0;
        let result = reader.read_many(bytes, limit, |record, at| {
            read += 1;
            each(record, at);
            true
        });
        match result {
            // Fewer than asked for: the end of the file.
            Ok(count) if count < limit => self.source = Source::File(None),
            Ok(_) => {}
            Err(error) => {
                self.failure = Some(error.to_string());
                self.source = Source::File(None);
            }
        }
        read
    }

    /// [`PcapInPort::read`] of a FIFO: the frames its thread has read (up to `limit`), without
    /// waiting for more.
    fn read_waiting(&mut self, bytes: &mut Vec<u8>, limit: usize, mut each: impl FnMut(Record, usize)) -> usize {
        let mut read = 0;
        while read < limit && self.is_ready() {
            let Source::Waiting { next, ended, .. } = &mut self.source else { break };
            let Some(chunk) = next.take() else { break };
            if let Some(record) = chunk.record {
                let base = bytes.len();
                bytes.extend_from_slice(&chunk.bytes);
                each(record, base);
                read += 1;
            }
            if let Some(why) = chunk.end {
                *ended = true;
                self.failure = why;
            }
        }
        read
    }
}

/// Why a FIFO's frames stopped when its reading thread ended without saying that the input did
/// (it sends an end before it stops, so only a panic ends it so).
fn reader_lost(path: &Path) -> String {
    format!("{}: the thread reading it stopped before the input's end", path.display())
}

/// Starts the thread that opens and reads the FIFO, pipe or device `path`, a frame at a time; it
/// stops at the input's end, at a record that cannot be read (saying why), when the switch drops
/// the port, or when a stop signal ends the input's waits.
fn read_ahead(path: &Path) -> Receiver<FifoChunk> {
    let (send, chunks) = sync_channel(FIFO_FRAMES_AHEAD);
    let owned = path.to_path_buf();
    let ended = |why: Option<String>| FifoChunk { bytes: Vec::new(), record: None, end: Some(why) };
    let spawned = std::thread::Builder::new().name("pcap-in".into()).spawn(move || {
        let mut reader = match CaptureReader::open(&owned) {
            Ok(reader) => reader,
            Err(error) => {
                let _ = send.send(ended(Some(error.to_string())));
                return;
            }
        };
        loop {
            let mut chunk = FifoChunk { bytes: Vec::new(), record: None, end: None };
            let record = &mut chunk.record;
            match reader.read_many(&mut chunk.bytes, 1, |r, _| {
                *record = Some(r);
                true
            }) {
                Ok(0) => chunk.end = Some(None),
                Ok(_) => {}
                Err(error) => chunk.end = Some(Some(error.to_string())),
            }
            let last = chunk.end.is_some();
            if send.send(chunk).is_err() || last {
                return;
            }
        }
    });
    match spawned {
        Ok(_) => chunks,
        Err(error) => {
            // No thread: the port ends at once, saying why.
            let (send, chunks) = sync_channel(1);
            let _ = send.send(ended(Some(format!("{}: cannot start a thread to read it: {error}", path.display()))));
            chunks
        }
    }
}

/// A capture file the frames sent to a port are appended to.
pub struct PcapOutPort {
    path: PathBuf,
    writer: CaptureWriter,
}

impl PcapOutPort {
    /// Starts `path` as a classic pcap file (whatever its extension), under a temporary name beside
    /// it: an unwritable directory is an error here, before the switch runs.
    pub fn create(path: &Path) -> Result<PcapOutPort, CaptureError> {
        Ok(PcapOutPort { path: path.to_path_buf(), writer: CaptureWriter::create_as(path, CaptureFormat::Pcap)? })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one frame sent at `timestamp_ns` (since the Unix epoch); `original_len` is its
    /// length on the wire (more than `frame.len()` for the output of a frame a capture held only
    /// part of).
    pub fn send(&mut self, timestamp_ns: u64, frame: &[u8], original_len: u32) -> Result<(), CaptureError> {
        self.writer.write_record(timestamp_ns, frame, original_len)
    }

    /// Writes what is buffered and renames the file to its name.
    pub fn finish(self) -> Result<(), CaptureError> {
        self.writer.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A FIFO port whose reading thread is gone without an end (as after a panic in it).
    fn orphaned() -> PcapInPort {
        let (send, chunks) = sync_channel(1);
        drop(send);
        PcapInPort { path: PathBuf::from("/tmp/in.fifo"), source: Source::Waiting { chunks, next: None, ended: false }, failure: None }
    }

    #[test]
    fn a_fifo_whose_reader_is_lost_ends_saying_why() {
        let mut port = orphaned();
        assert!(!port.is_ready());
        assert!(port.is_consumed());
        assert_eq!(port.failure(), Some("/tmp/in.fifo: the thread reading it stopped before the input's end"));
        let mut port = orphaned();
        assert!(!port.wait(Duration::from_millis(1)));
        assert_eq!(port.failure(), Some("/tmp/in.fifo: the thread reading it stopped before the input's end"));
    }

    #[test]
    fn a_fifo_that_ends_normally_has_no_failure() {
        let (send, chunks) = sync_channel(1);
        send.send(FifoChunk { bytes: Vec::new(), record: None, end: Some(None) }).unwrap();
        drop(send);
        let mut port = PcapInPort { path: PathBuf::from("/tmp/in.fifo"), source: Source::Waiting { chunks, next: None, ended: false }, failure: None };
        let mut bytes = Vec::new();
        assert_eq!(port.read(&mut bytes, 8, |_, _| {}), 0);
        assert!(port.is_consumed());
        assert_eq!(port.failure(), None);
    }
}

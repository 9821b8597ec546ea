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

/// A capture file whose frames enter the switch.
pub struct PcapInPort {
    path: PathBuf,
    /// `None` once the file is consumed (read to its end, or to a record that cannot be read).
    reader: Option<CaptureReader>,
    /// Why the file was not read to its end (`FILE: packet #5 is truncated`), if it was not.
    failure: Option<String>,
}

impl PcapInPort {
    /// Opens `path` (pcap or pcapng, Ethernet); an error says what is wrong with the file.
    pub fn open(path: &Path) -> Result<PcapInPort, CaptureError> {
        Ok(PcapInPort { path: path.to_path_buf(), reader: Some(CaptureReader::open(path)?), failure: None })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether every frame the file holds has been read.
    pub fn is_consumed(&self) -> bool {
        self.reader.is_none()
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
        let Some(reader) = &mut self.reader else { return 0 };
        let mut read = 0;
        let result = reader.read_many(bytes, limit, |record, at| {
            read += 1;
            each(record, at);
            true
        });
        match result {
            // Fewer than asked for: the end of the file.
            Ok(count) if count < limit => self.reader = None,
            Ok(_) => {}
            Err(error) => {
                self.failure = Some(error.to_string());
                self.reader = None;
            }
        }
        read
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

//! Classic pcap records framed in memory, as [`super::CaptureWriter`] writes them (nanosecond
//! timestamps, little-endian): by the writer itself, and ahead of it by whichever thread produced
//! the packets ([`PcapRecords`]), so the thread that owns the file only copies whole blocks.

use super::SNAPLEN;

/// Bytes of a record header.
const RECORD_HEADER: usize = 16;

/// Appends one record to `out`; false, appending nothing, when classic pcap cannot hold it (more
/// than the snapshot length, or a timestamp after 2106): the writer's checked path says why.
#[inline]
pub(super) fn push_record(out: &mut Vec<u8>, timestamp_ns: u64, data: &[u8], original_len: u32) -> bool {
    let seconds = timestamp_ns / 1_000_000_000;
    if data.len() > SNAPLEN as usize || seconds > u64::from(u32::MAX) {
        return false;
    }
    let len = data.len() as u32;
    let mut header = [0u8; RECORD_HEADER];
    header[0..4].copy_from_slice(&(seconds as u32).to_le_bytes());
    header[4..8].copy_from_slice(&((timestamp_ns % 1_000_000_000) as u32).to_le_bytes());
    header[8..12].copy_from_slice(&len.to_le_bytes());
    header[12..16].copy_from_slice(&original_len.max(len).to_le_bytes());
    out.extend_from_slice(&header);
    out.extend_from_slice(data);
    true
}

/// Packets framed as classic pcap records for one output, to be written by
/// [`super::CaptureWriter::write_records`]; reused (see [`PcapRecords::clear`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PcapRecords {
    bytes: Vec<u8>,
    packets: u64,
    data_bytes: u64,
}

impl PcapRecords {
    /// Empties it, keeping its allocation.
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.packets = 0;
        self.data_bytes = 0;
    }

    /// Appends one packet with its time and original length (raised to its length if smaller);
    /// false, appending nothing, when classic pcap cannot hold it: write that one with
    /// [`super::CaptureWriter::write_record`], which says why.
    #[inline]
    pub fn push(&mut self, timestamp_ns: u64, data: &[u8], original_len: u32) -> bool {
        let pushed = push_record(&mut self.bytes, timestamp_ns, data, original_len);
        self.packets += u64::from(pushed);
        self.data_bytes += if pushed { data.len() as u64 } else { 0 };
        pushed
    }

    /// Packets held.
    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// Their bytes, record headers not counted.
    pub fn data_bytes(&self) -> u64 {
        self.data_bytes
    }

    /// The records as they go in the file.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Hands `each` every packet (time, bytes, original length) in order, until it fails.
    pub fn each<E>(&self, mut each: impl FnMut(u64, &[u8], u32) -> Result<(), E>) -> Result<(), E> {
        let mut at = 0;
        while let Some(header) = self.bytes.get(at..at + RECORD_HEADER) {
            let word = |i: usize| u32::from_le_bytes([header[i], header[i + 1], header[i + 2], header[i + 3]]);
            let len = word(8) as usize;
            let timestamp_ns = u64::from(word(0)) * 1_000_000_000 + u64::from(word(4));
            let data = &self.bytes[at + RECORD_HEADER..at + RECORD_HEADER + len];
            each(timestamp_ns, data, word(12))?;
            at += RECORD_HEADER + len;
        }
        Ok(())
    }
}

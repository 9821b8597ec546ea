//! Packet captures: pcap and pcapng, read and written with nanosecond timestamps.
//!
//! Reading detects the format from the magic number. pcap files may have micro- or nanosecond
//! resolution; pcapng timestamps are scaled by each interface's `if_tsresol` (default: microseconds)
//! and shifted by `if_tsoffset`. (The `pcap-file` crate hands pcapng timestamps over in raw units,
//! so the scaling happens here.) Written pcap files use the nanosecond magic; written pcapng files
//! declare `if_tsresol = 9`. Timestamps are nanoseconds since the Unix epoch.

use pcap_file::pcap::{PcapHeader, PcapPacket, PcapParser, PcapReader, PcapWriter};
use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
use pcap_file::pcapng::blocks::interface_description::{InterfaceDescriptionBlock, InterfaceDescriptionOption};
use pcap_file::pcapng::{Block, PcapNgParser, PcapNgReader, PcapNgWriter};
use pcap_file::{DataLink, Endianness, PcapError, TsResolution};
use std::borrow::Cow;
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One captured packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimedPacket {
    /// Nanoseconds since the Unix epoch.
    pub timestamp_ns: u64,
    /// The frame as captured (link layer included).
    pub data: Vec<u8>,
}

/// Which file format to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureFormat {
    /// Classic pcap (written with nanosecond timestamps).
    Pcap,
    /// pcapng (written with `if_tsresol = 9`).
    PcapNg,
}

impl CaptureFormat {
    /// `.pcapng` → pcapng, anything else → pcap.
    pub fn from_path(path: &Path) -> CaptureFormat {
        match path.extension().and_then(|e| e.to_str()) {
            Some(ext) if ext.eq_ignore_ascii_case("pcapng") => CaptureFormat::PcapNg,
            _ => CaptureFormat::Pcap,
        }
    }
}

/// Why a capture could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// The file could not be opened, read or written.
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    /// An in-memory image is not a valid capture.
    #[error("{0}")]
    Format(String),
    /// A file is not a valid capture (or a packet cannot be written to it).
    #[error("{path}: {message}")]
    InFile { path: PathBuf, message: String },
}

const PCAPNG_MAGIC: [u8; 4] = [0x0a, 0x0d, 0x0d, 0x0a];
/// Largest packet the written pcap header admits (and the usual capture default).
const SNAPLEN: u32 = 262_144;

/// pcap magic numbers as they appear on disk: micro/nanosecond, big/little endian.
const PCAP_MAGICS: [[u8; 4]; 4] = [[0xa1, 0xb2, 0xc3, 0xd4], [0xa1, 0xb2, 0x3c, 0x4d], [0xd4, 0xc3, 0xb2, 0xa1], [0x4d, 0x3c, 0xb2, 0xa1]];

/// `Ok(true)` for pcapng, `Ok(false)` for pcap, judging by the first bytes of a file.
fn sniff(start: &[u8]) -> Result<bool, String> {
    match start.get(..4) {
        Some(magic) if magic == PCAPNG_MAGIC => Ok(true),
        Some(magic) if PCAP_MAGICS.iter().any(|m| m == magic) => Ok(false),
        Some(magic) => Err(format!(
            "not a pcap or pcapng file (it starts with {:02x} {:02x} {:02x} {:02x})",
            magic[0], magic[1], magic[2], magic[3]
        )),
        None => Err("not a pcap or pcapng file (shorter than a header)".to_string()),
    }
}

/// Reads every packet of a pcap or pcapng image.
pub fn read_capture(bytes: &[u8]) -> Result<Vec<TimedPacket>, CaptureError> {
    if sniff(bytes).map_err(CaptureError::Format)? {
        read_pcapng(bytes)
    } else {
        read_pcap(bytes)
    }
}

/// Reads a whole capture file (see [`CaptureReader`] to stream one).
pub fn read_capture_file(path: &Path) -> Result<Vec<TimedPacket>, CaptureError> {
    let mut reader = CaptureReader::open(path)?;
    let mut packets = Vec::new();
    while let Some(packet) = reader.next_packet()? {
        packets.push(packet);
    }
    Ok(packets)
}

/// Streams the packets of a pcap or pcapng file, so inputs larger than memory can be replayed.
pub struct CaptureReader {
    path: PathBuf,
    inner: ReaderKind,
    /// Packets returned so far (for error messages).
    count: usize,
}

enum ReaderKind {
    Pcap(PcapReader<File>),
    PcapNg(PcapNgReader<File>),
}

impl CaptureReader {
    /// Opens `path`, detecting the format from its magic number.
    pub fn open(path: &Path) -> Result<CaptureReader, CaptureError> {
        let io = |source| CaptureError::Io { path: path.to_path_buf(), source };
        let in_file = |message: String| CaptureError::InFile { path: path.to_path_buf(), message };
        let mut magic = [0u8; 4];
        let mut probe = File::open(path).map_err(io)?;
        let read = probe.read(&mut magic).map_err(io)?;
        let pcapng = sniff(&magic[..read]).map_err(in_file)?;
        let file = File::open(path).map_err(io)?;
        let inner = if pcapng {
            ReaderKind::PcapNg(PcapNgReader::new(file).map_err(|e| in_file(describe(&e, "pcapng section header")))?)
        } else {
            ReaderKind::Pcap(
                PcapReader::new(file).map_err(|e| in_file(format!("not a pcap or pcapng file ({})", describe(&e, "header"))))?,
            )
        };
        Ok(CaptureReader { path: path.to_path_buf(), inner, count: 0 })
    }

    /// The next packet, `None` at the end of the file.
    pub fn next_packet(&mut self) -> Result<Option<TimedPacket>, CaptureError> {
        let what = format!("packet #{}", self.count + 1);
        let in_file = |message: String| CaptureError::InFile { path: self.path.clone(), message };
        let packet = match &mut self.inner {
            ReaderKind::Pcap(reader) => match reader.next_packet() {
                None => None,
                Some(Err(e)) => return Err(in_file(describe(&e, &what))),
                Some(Ok(p)) => Some(TimedPacket { timestamp_ns: duration_ns(p.timestamp), data: p.data.into_owned() }),
            },
            ReaderKind::PcapNg(reader) => loop {
                let raw = match reader.next_block() {
                    None => break None,
                    Some(Err(e)) => return Err(in_file(describe(&e, &format!("pcapng block before {what}")))),
                    Some(Ok(block)) => RawPacket::of_block(block),
                };
                if let Some(raw) = raw {
                    break Some(raw.timed(reader.interfaces(), self.count).map_err(in_file)?);
                }
            },
        };
        self.count += usize::from(packet.is_some());
        Ok(packet)
    }
}

/// A pcapng packet before its timestamp is scaled by its interface's clock.
struct RawPacket {
    /// `None`: a Simple Packet Block, which has no timestamp.
    interface_id: Option<u32>,
    units: u128,
    data: Vec<u8>,
}

impl RawPacket {
    fn of_block(block: Block) -> Option<RawPacket> {
        match block {
            // pcap-file hands the raw timestamp units over as if they were nanoseconds.
            Block::EnhancedPacket(epb) => {
                Some(RawPacket { interface_id: Some(epb.interface_id), units: epb.timestamp.as_nanos(), data: epb.data.into_owned() })
            }
            Block::Packet(pb) => {
                Some(RawPacket { interface_id: Some(u32::from(pb.interface_id)), units: u128::from(pb.timestamp), data: pb.data.into_owned() })
            }
            Block::SimplePacket(spb) => Some(RawPacket { interface_id: None, units: 0, data: spb.data.into_owned() }),
            _ => None,
        }
    }

    /// `index`: how many packets came before (for the error message).
    fn timed(self, interfaces: &[InterfaceDescriptionBlock], index: usize) -> Result<TimedPacket, String> {
        let Some(interface_id) = self.interface_id else {
            return Ok(TimedPacket { timestamp_ns: 0, data: self.data });
        };
        let interface = usize::try_from(interface_id)
            .ok()
            .and_then(|i| interfaces.get(i))
            .ok_or_else(|| format!("packet #{} names interface {interface_id}, which is not described", index + 1))?;
        let (per_second, offset_s) = interface_clock(interface)?;
        let ns = self.units.saturating_mul(1_000_000_000) / per_second + u128::from(offset_s) * 1_000_000_000;
        Ok(TimedPacket { timestamp_ns: u64::try_from(ns).unwrap_or(u64::MAX), data: self.data })
    }
}

fn describe(error: &PcapError, what: &str) -> String {
    match error {
        PcapError::IncompleteBuffer => format!("{what} is truncated"),
        PcapError::IoError(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => format!("{what} is truncated"),
        other => format!("{what} is malformed: {other}"),
    }
}

fn read_pcap(bytes: &[u8]) -> Result<Vec<TimedPacket>, CaptureError> {
    let (mut rest, parser) =
        PcapParser::new(bytes).map_err(|e| CaptureError::Format(format!("not a pcap or pcapng file ({})", describe(&e, "header"))))?;
    let mut packets = Vec::new();
    while !rest.is_empty() {
        let (next, packet) = parser
            .next_packet(rest)
            .map_err(|e| CaptureError::Format(describe(&e, &format!("packet #{}", packets.len() + 1))))?;
        packets.push(TimedPacket { timestamp_ns: duration_ns(packet.timestamp), data: packet.data.into_owned() });
        rest = next;
    }
    Ok(packets)
}

fn duration_ns(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// Timestamp units per second and offset (seconds) of a pcapng interface.
fn interface_clock(interface: &InterfaceDescriptionBlock) -> Result<(u128, u64), String> {
    let mut per_second: u128 = 1_000_000;
    let mut offset_s = 0;
    for option in &interface.options {
        match option {
            InterfaceDescriptionOption::IfTsResol(r) if r & 0x80 == 0 => {
                per_second = 10u128.checked_pow(u32::from(*r)).filter(|_| *r <= 30).ok_or(format!("if_tsresol 10^-{r} is out of range"))?;
            }
            InterfaceDescriptionOption::IfTsResol(r) => {
                per_second = 1u128.checked_shl(u32::from(r & 0x7f)).ok_or(format!("if_tsresol 2^-{} is out of range", r & 0x7f))?;
            }
            InterfaceDescriptionOption::IfTsOffset(s) => offset_s = *s,
            _ => {}
        }
    }
    Ok((per_second, offset_s))
}

fn read_pcapng(bytes: &[u8]) -> Result<Vec<TimedPacket>, CaptureError> {
    let (mut rest, mut parser) = PcapNgParser::new(bytes).map_err(|e| CaptureError::Format(describe(&e, "pcapng section header")))?;
    let mut packets = Vec::new();
    while !rest.is_empty() {
        let (next, block) = parser
            .next_block(rest)
            .map_err(|e| CaptureError::Format(describe(&e, &format!("pcapng block before packet #{}", packets.len() + 1))))?;
        rest = next;
        if let Some(raw) = RawPacket::of_block(block) {
            packets.push(raw.timed(parser.interfaces(), packets.len()).map_err(CaptureError::Format)?);
        }
    }
    Ok(packets)
}

/// Streams packets into a capture file.
pub struct CaptureWriter {
    path: PathBuf,
    inner: WriterKind,
}

enum WriterKind {
    Pcap(PcapWriter<BufWriter<File>>),
    PcapNg(PcapNgWriter<BufWriter<File>>),
}

impl CaptureWriter {
    /// Creates (truncates) `path`; the format follows the extension (see [`CaptureFormat::from_path`]).
    pub fn create(path: &Path) -> Result<CaptureWriter, CaptureError> {
        let file = File::create(path).map_err(|source| CaptureError::Io { path: path.to_path_buf(), source })?;
        let out = BufWriter::new(file);
        let fail = |e: PcapError| CaptureError::InFile { path: path.to_path_buf(), message: e.to_string() };
        let inner = match CaptureFormat::from_path(path) {
            CaptureFormat::Pcap => {
                let header = PcapHeader {
                    ts_resolution: TsResolution::NanoSecond,
                    snaplen: SNAPLEN,
                    datalink: DataLink::ETHERNET,
                    endianness: Endianness::Little,
                    ..PcapHeader::default()
                };
                WriterKind::Pcap(PcapWriter::with_header(out, header).map_err(fail)?)
            }
            CaptureFormat::PcapNg => {
                let mut writer = PcapNgWriter::with_endianness(out, Endianness::Little).map_err(fail)?;
                let interface = InterfaceDescriptionBlock {
                    linktype: DataLink::ETHERNET,
                    snaplen: 0,
                    options: vec![InterfaceDescriptionOption::IfTsResol(9)],
                };
                writer.write_pcapng_block(interface).map_err(fail)?;
                WriterKind::PcapNg(writer)
            }
        };
        Ok(CaptureWriter { path: path.to_path_buf(), inner })
    }

    /// Appends one packet.
    pub fn write(&mut self, packet: &TimedPacket) -> Result<(), CaptureError> {
        let len = u32::try_from(packet.data.len())
            .ok()
            .filter(|&l| l <= SNAPLEN)
            .ok_or_else(|| CaptureError::InFile { path: self.path.clone(), message: format!("packet of {} bytes is too large", packet.data.len()) })?;
        let timestamp = Duration::from_nanos(packet.timestamp_ns);
        let result = match &mut self.inner {
            WriterKind::Pcap(w) => w.write_packet(&PcapPacket::new(timestamp, len, &packet.data)).map(drop),
            WriterKind::PcapNg(w) => w
                .write_pcapng_block(EnhancedPacketBlock {
                    interface_id: 0,
                    timestamp,
                    original_len: len,
                    data: Cow::Borrowed(&packet.data),
                    options: vec![],
                })
                .map(drop),
        };
        result.map_err(|e| CaptureError::InFile { path: self.path.clone(), message: e.to_string() })
    }

    /// Flushes buffered packets to disk.
    pub fn finish(self) -> Result<(), CaptureError> {
        let mut out = match self.inner {
            WriterKind::Pcap(w) => w.into_writer(),
            WriterKind::PcapNg(w) => w.into_inner(),
        };
        out.flush().map_err(|source| CaptureError::Io { path: self.path.clone(), source })
    }
}

/// Writes a whole capture file.
pub fn write_capture_file(path: &Path, packets: &[TimedPacket]) -> Result<(), CaptureError> {
    let mut writer = CaptureWriter::create(path)?;
    for packet in packets {
        writer.write(packet)?;
    }
    writer.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<TimedPacket> {
        vec![
            TimedPacket { timestamp_ns: 1_700_000_000_123_456_789, data: vec![1, 2, 3, 4, 5] },
            TimedPacket { timestamp_ns: 1_700_000_001_000_000_001, data: vec![0xff; 64] },
        ]
    }

    fn temp(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("p4-stf-capture-{}-{name}", std::process::id()))
    }

    #[test]
    fn pcap_round_trip_keeps_nanoseconds() {
        let path = temp("a.pcap");
        write_capture_file(&path, &sample()).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[..4], &[0x4d, 0x3c, 0xb2, 0xa1], "little-endian nanosecond magic");
        assert_eq!(read_capture(&bytes).unwrap(), sample());
        let _ = std::fs::remove_file(path);
    }

    #[test]
    fn pcapng_round_trip_keeps_nanoseconds() {
        let path = temp("a.pcapng");
        write_capture_file(&path, &sample()).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[..4], &PCAPNG_MAGIC);
        assert_eq!(read_capture_file(&path).unwrap(), sample());
        let _ = std::fs::remove_file(path);
    }

    /// A pcapng written by hand with the default (microsecond) resolution: 1 s + 5 µs.
    fn microsecond_pcapng() -> Vec<u8> {
        let mut image = Vec::new();
        let block = |kind: u32, body: &[u8]| -> Vec<u8> {
            let len = (12 + body.len()) as u32;
            [&kind.to_le_bytes()[..], &len.to_le_bytes(), body, &len.to_le_bytes()].concat()
        };
        let shb_body = [&0x1a2b_3c4du32.to_le_bytes()[..], &1u16.to_le_bytes(), &0u16.to_le_bytes(), &(-1i64).to_le_bytes()].concat();
        image.extend(block(0x0a0d_0d0a, &shb_body));
        image.extend(block(1, &[&1u16.to_le_bytes()[..], &0u16.to_le_bytes(), &0u32.to_le_bytes()].concat()));
        let units: u64 = 1_000_005;
        let epb_body = [
            &0u32.to_le_bytes()[..],
            &((units >> 32) as u32).to_le_bytes(),
            &(units as u32).to_le_bytes(),
            &4u32.to_le_bytes(),
            &4u32.to_le_bytes(),
            &[9, 8, 7, 6],
        ]
        .concat();
        image.extend(block(6, &epb_body));
        image
    }

    #[test]
    fn pcapng_default_resolution_is_microseconds() {
        let want = vec![TimedPacket { timestamp_ns: 1_000_005_000, data: vec![9, 8, 7, 6] }];
        assert_eq!(read_capture(&microsecond_pcapng()).unwrap(), want);
        let path = temp("us.pcapng");
        std::fs::write(&path, microsecond_pcapng()).unwrap();
        assert_eq!(read_capture_file(&path).unwrap(), want, "the streaming reader scales the same way");
        let _ = std::fs::remove_file(path);
    }

    #[test]
    fn malformed_captures_are_errors() {
        assert_eq!(
            read_capture(b"hello").unwrap_err().to_string(),
            "not a pcap or pcapng file (it starts with 68 65 6c 6c)"
        );
        let path = temp("t.pcap");
        write_capture_file(&path, &sample()).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(read_capture(&bytes[..bytes.len() - 3]).unwrap_err().to_string(), "packet #2 is truncated");
        std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        assert_eq!(read_capture_file(&path).unwrap_err().to_string(), format!("{}: packet #2 is truncated", path.display()));
        std::fs::write(&path, b"no").unwrap();
        assert_eq!(
            read_capture_file(&path).unwrap_err().to_string(),
            format!("{}: not a pcap or pcapng file (shorter than a header)", path.display())
        );
        assert_eq!(read_capture(&bytes[..10]).unwrap_err().to_string(), "not a pcap or pcapng file (header is truncated)");
        let _ = std::fs::remove_file(path);
    }
}

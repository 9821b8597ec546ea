//! Packet captures: pcap and pcapng, read and written with nanosecond timestamps.
//!
//! Reading detects the format from the magic number. pcap files may have micro- or nanosecond
//! resolution; pcapng timestamps are scaled by each interface's `if_tsresol` (default: microseconds)
//! and shifted by `if_tsoffset`. (The `pcap-file` crate hands pcapng timestamps over in raw units,
//! so the scaling happens here.) Written pcap files use the nanosecond magic; written pcapng files
//! declare `if_tsresol = 9`. Timestamps are nanoseconds since the Unix epoch.
//!
//! **Link type.** p4forge's ports carry Ethernet frames, so only captures of link type Ethernet (1)
//! are read; any other (raw IP, Linux cooked capture, 802.11, ...) is refused with its number and
//! name rather than misread as Ethernet. In pcapng the link type is per interface: a packet is
//! refused when the interface it was captured on is not Ethernet.
//!
//! **Truncated packets.** A capture may hold fewer bytes of a packet than it had on the wire
//! (`tcpdump -s 64`): each record has a captured length and an original length. Reading accepts any
//! captured length up to the original length, and up to the snapshot length unless that is 0
//! (which some writers use for "unlimited"); [`CapturedPacket::original_len`] keeps the original
//! length and writing puts it back. An output packet derived from a truncated input gets the
//! original length its own bytes plus the bytes the input capture did not hold
//! ([`CapturedPacket::derive`]): the program only sees the captured bytes, and the missing tail is
//! assumed to follow them unchanged, as a payload the program did not touch would.
//!
//! **Writing** goes through [`p4_io::output::AtomicFile`]: the final name only ever holds a complete
//! capture (or whatever was there before); [`CaptureWriter::finish`] renames the temporary file into
//! place, and a writer dropped without `finish` leaves nothing behind.

mod blocks;
mod framing;
mod pcap_stream;

pub use framing::PcapRecords;
pub use pcap_stream::RawRecords;

use p4_io::output::{AtomicFile, OutputError, Reserved};
use pcap_file::pcap::{PcapHeader, PcapParser, PcapWriter, RawPcapPacket};
use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
use pcap_file::pcapng::blocks::interface_description::{InterfaceDescriptionBlock, InterfaceDescriptionOption};
use pcap_file::pcapng::{Block, PcapNgParser, PcapNgReader, PcapNgWriter};
use pcap_file::{DataLink, Endianness, PcapError, TsResolution};
use std::borrow::Cow;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One packet: when it was seen and its bytes (link layer included). Written out whole (its original
/// length is its length); see [`CapturedPacket`] for packets a capture holds only part of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimedPacket {
    /// Nanoseconds since the Unix epoch.
    pub timestamp_ns: u64,
    /// The frame as captured (link layer included).
    pub data: Vec<u8>,
}

/// A packet as a capture file records it: the captured bytes, and the length the packet had on the
/// wire, which is larger when the capture was truncated (snapshot length smaller than the packet).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapturedPacket {
    /// Nanoseconds since the Unix epoch.
    pub timestamp_ns: u64,
    /// The bytes captured (link layer included).
    pub data: Vec<u8>,
    /// The packet's length on the wire; never less than `data.len()`.
    pub original_len: u32,
}

impl CapturedPacket {
    /// A packet captured whole (original length = its length).
    pub fn whole(timestamp_ns: u64, data: Vec<u8>) -> CapturedPacket {
        let original_len = u32::try_from(data.len()).unwrap_or(u32::MAX);
        CapturedPacket { timestamp_ns, data, original_len }
    }

    /// How many bytes of the packet the capture did not hold.
    pub fn missing_bytes(&self) -> u32 {
        let held = u32::try_from(self.data.len()).unwrap_or(u32::MAX);
        self.original_len.saturating_sub(held)
    }

    /// True when the capture holds only part of the packet.
    pub fn is_truncated(&self) -> bool {
        self.missing_bytes() > 0
    }

    /// An output packet this (input) packet caused, with the same timestamp: its original length is
    /// `data.len()` plus the bytes this capture did not hold (see the module documentation).
    pub fn derive(&self, data: Vec<u8>) -> CapturedPacket {
        let held = u32::try_from(data.len()).unwrap_or(u32::MAX);
        CapturedPacket {
            timestamp_ns: self.timestamp_ns,
            data,
            original_len: held.saturating_add(self.missing_bytes()),
        }
    }

    /// The timestamp and bytes, without the original length.
    pub fn into_timed(self) -> TimedPacket {
        TimedPacket { timestamp_ns: self.timestamp_ns, data: self.data }
    }
}

impl From<TimedPacket> for CapturedPacket {
    fn from(packet: TimedPacket) -> CapturedPacket {
        CapturedPacket::whole(packet.timestamp_ns, packet.data)
    }
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
    /// The file could not be opened or read.
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    /// An in-memory image is not a valid capture.
    #[error("{0}")]
    Format(String),
    /// A file is not a valid capture (or a packet cannot be written to it).
    #[error("{path}: {message}")]
    InFile { path: PathBuf, message: String },
    /// An output capture could not be written (disk full, closed pipe, ...): `cannot write PATH: WHY`.
    #[error("{0}")]
    Output(#[from] OutputError),
}

const PCAPNG_MAGIC: [u8; 4] = [0x0a, 0x0d, 0x0d, 0x0a];
/// Largest packet the written pcap header admits (and the usual capture default).
const SNAPLEN: u32 = 262_144;
/// The one link type p4forge's ports carry.
const LINKTYPE_ETHERNET: u32 = 1;

/// pcap magic numbers as they appear on disk: micro/nanosecond, big/little endian.
const PCAP_MAGICS: [[u8; 4]; 4] =
    [[0xa1, 0xb2, 0xc3, 0xd4], [0xa1, 0xb2, 0x3c, 0x4d], [0xd4, 0xc3, 0xb2, 0xa1], [0x4d, 0x3c, 0xb2, 0xa1]];

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

/// The name of a link type (tcpdump.org's LINKTYPE_ list) and what it carries, for error messages.
fn link_type_name(link_type: u32) -> &'static str {
    match link_type {
        0 => "NULL, BSD loopback",
        1 => "ETHERNET",
        9 => "PPP",
        // DLT_RAW's value differs between platforms; files written on them may carry it as is.
        12 | 14 => "DLT_RAW, raw IP without a link-layer header",
        101 => "RAW, raw IP without a link-layer header",
        105 => "IEEE802_11, 802.11 wireless",
        108 => "LOOP, OpenBSD loopback",
        113 => "LINUX_SLL, Linux cooked capture",
        127 => "IEEE802_11_RADIOTAP, 802.11 with radiotap header",
        147..=162 => "USER, a private link type",
        228 => "IPV4, raw IPv4",
        229 => "IPV6, raw IPv6",
        276 => "LINUX_SLL2, Linux cooked capture v2",
        _ => "a link type p4forge does not know",
    }
}

/// `Err` naming the link type (its number) unless it is Ethernet; `whose` says where it was declared.
fn require_ethernet(number: u32, whose: &str) -> Result<(), String> {
    if number == LINKTYPE_ETHERNET {
        return Ok(());
    }
    Err(format!(
        "{whose} link type is {number} ({}), not Ethernet (1): p4forge's ports carry Ethernet frames",
        link_type_name(number)
    ))
}

/// `packet #N` in messages, made only when one is shown.
struct Nth(usize);

impl std::fmt::Display for Nth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "packet #{}", self.0)
    }
}

/// Checks a record's captured length against its original length and the snapshot length
/// (`snaplen == 0` means unlimited).
fn check_lengths(captured: usize, original: u32, snaplen: u32, what: &dyn std::fmt::Display) -> Result<(), String> {
    if captured > original as usize {
        return Err(format!(
            "{what} is malformed: its captured length {captured} exceeds its original length {original}"
        ));
    }
    if snaplen != 0 && captured > snaplen as usize {
        return Err(format!(
            "{what} is malformed: its captured length {captured} exceeds the snapshot length {snaplen}"
        ));
    }
    Ok(())
}

/// Reads every packet of a pcap or pcapng image (original lengths dropped; see [`read_captured`]).
pub fn read_capture(bytes: &[u8]) -> Result<Vec<TimedPacket>, CaptureError> {
    Ok(read_captured(bytes)?.into_iter().map(CapturedPacket::into_timed).collect())
}

/// Reads every packet of a pcap or pcapng image, with original lengths.
pub fn read_captured(bytes: &[u8]) -> Result<Vec<CapturedPacket>, CaptureError> {
    if sniff(bytes).map_err(CaptureError::Format)? {
        read_pcapng(bytes)
    } else {
        read_pcap(bytes)
    }
}

/// Reads a whole capture file (original lengths dropped; see [`read_captured_file`], and
/// [`CaptureReader`] to stream one).
pub fn read_capture_file(path: &Path) -> Result<Vec<TimedPacket>, CaptureError> {
    Ok(read_captured_file(path)?.into_iter().map(CapturedPacket::into_timed).collect())
}

/// Reads a whole capture file, with original lengths.
pub fn read_captured_file(path: &Path) -> Result<Vec<CapturedPacket>, CaptureError> {
    let mut reader = CaptureReader::open(path)?;
    let mut packets = Vec::new();
    while let Some(packet) = reader.next_captured()? {
        packets.push(packet);
    }
    Ok(packets)
}

/// Streams the packets of a pcap or pcapng file, so inputs larger than memory can be replayed.
pub struct CaptureReader {
    path: PathBuf,
    inner: ReaderKind,
    /// pcapng packets returned so far (for error messages; a classic pcap stream counts its own).
    count: usize,
}

enum ReaderKind {
    /// Classic pcap, parsed here (the hot path of `p4forge run`).
    Pcap(pcap_stream::PcapStream<p4_io::input::Input>),
    PcapNg(PcapNgReader<Source>),
}

/// A pcapng file read once from the start: the magic number already read to tell the format, then
/// the rest of the file. Reading it only once lets FIFOs and `<(command)` be inputs (the same goes
/// for classic pcap, whose stream is handed the magic number likewise).
type Source = std::io::Chain<std::io::Cursor<Vec<u8>>, p4_io::input::Input>;

impl CaptureReader {
    /// Opens `path`, detecting the format from its magic number. A pcap file whose link type is not
    /// Ethernet is refused here.
    pub fn open(path: &Path) -> Result<CaptureReader, CaptureError> {
        let io = |source| CaptureError::Io { path: path.to_path_buf(), source };
        let in_file = |message: String| CaptureError::InFile { path: path.to_path_buf(), message };
        let mut file = p4_io::input::open(path, "capture")
            .map_err(|e| CaptureError::InFile { path: path.to_path_buf(), message: e.why })?;
        let mut magic = Vec::with_capacity(4);
        (&mut file).take(4).read_to_end(&mut magic).map_err(io)?;
        let pcapng = sniff(&magic).map_err(in_file)?;
        let inner = if pcapng {
            let file = std::io::Cursor::new(magic).chain(file);
            ReaderKind::PcapNg(PcapNgReader::new(file).map_err(|e| in_file(describe(&e, &"pcapng section header")))?)
        } else {
            ReaderKind::Pcap(pcap_stream::PcapStream::open(&magic, file).map_err(|e| stream_error(path, e))?)
        };
        Ok(CaptureReader { path: path.to_path_buf(), inner, count: 0 })
    }

    /// The next packet, `None` at the end of the file (its original length dropped; see
    /// [`CaptureReader::next_captured`]).
    pub fn next_packet(&mut self) -> Result<Option<TimedPacket>, CaptureError> {
        Ok(self.next_captured()?.map(CapturedPacket::into_timed))
    }

    /// The next packet with its original length, `None` at the end of the file.
    pub fn next_captured(&mut self) -> Result<Option<CapturedPacket>, CaptureError> {
        let mut data = Vec::new();
        Ok(self.next_into(&mut data)?.map(|r| CapturedPacket {
            timestamp_ns: r.timestamp_ns,
            data,
            original_len: r.original_len,
        }))
    }

    /// The next packet, its bytes appended to `bytes` (a buffer the caller reuses, so reading a
    /// classic pcap allocates nothing per packet); `None` at the end of the file.
    pub fn next_into(&mut self, bytes: &mut Vec<u8>) -> Result<Option<Record>, CaptureError> {
        let record = match &mut self.inner {
            ReaderKind::Pcap(stream) => return stream.next_into(bytes).map_err(|e| stream_error(&self.path, e)),
            ReaderKind::PcapNg(reader) => next_pcapng_packet(reader, self.count).map(|packet| {
                packet.map(|p| {
                    bytes.extend_from_slice(&p.data);
                    Record { timestamp_ns: p.timestamp_ns, len: p.data.len(), original_len: p.original_len }
                })
            }),
        }
        .map_err(|message| CaptureError::InFile { path: self.path.clone(), message })?;
        self.count += usize::from(record.is_some());
        Ok(record)
    }
}

impl CaptureReader {
    /// Reads up to `max` packets, appending each one's bytes to `bytes` (a buffer the caller reuses)
    /// and handing `each` its record and where its bytes start in `bytes`, until `each` returns
    /// false (e.g. on Ctrl-C: a read from a pipe may bring many packets at once); returns how many
    /// were read, fewer than `max` only at the end of the file or when `each` said stop. The same
    /// packets as [`CaptureReader::next_into`] would give, one call for many: for classic pcap the
    /// loop runs inside the parser.
    pub fn read_many(
        &mut self,
        bytes: &mut Vec<u8>,
        max: usize,
        mut each: impl FnMut(Record, usize) -> bool,
    ) -> Result<usize, CaptureError> {
        if let ReaderKind::Pcap(stream) = &mut self.inner {
            return stream.read_many(bytes, max, &mut each).map_err(|e| stream_error(&self.path, e));
        }
        let mut read = 0;
        while read < max {
            let at = bytes.len();
            let Some(record) = self.next_into(bytes)? else { break };
            read += 1;
            if !each(record, at) {
                break;
            }
        }
        Ok(read)
    }
}

impl CaptureReader {
    /// For a classic pcap file, whole records read as they are in the file into the front of
    /// `buffer`, to be decoded later, possibly on another thread ([`RawRecords::each`]): about
    /// `limit` bytes of them, without waiting for more input once one is there. None read means
    /// the end of the file or a bad record next: [`CaptureReader::next_into`] says which. `buffer`
    /// is grown as needed and never shrunk (its bytes past [`RawRecords::end`] are left over).
    /// `Ok(None)` for pcapng, which is read a packet at a time.
    pub fn read_raw(&mut self, buffer: &mut Vec<u8>, limit: usize) -> Result<Option<RawRecords>, CaptureError> {
        match &mut self.inner {
            ReaderKind::Pcap(stream) => {
                stream.read_raw(buffer, limit).map(Some).map_err(|e| stream_error(&self.path, e))
            }
            ReaderKind::PcapNg(_) => Ok(None),
        }
    }
}

/// What [`CaptureReader::next_into`] read besides the bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// Nanoseconds since the Unix epoch.
    pub timestamp_ns: u64,
    /// Bytes captured (appended to the caller's buffer).
    pub len: usize,
    /// The packet's length on the wire; never less than `len`.
    pub original_len: u32,
}

/// The error of a classic pcap stream, naming the file.
fn stream_error(path: &Path, error: pcap_stream::StreamError) -> CaptureError {
    match error {
        pcap_stream::StreamError::Io(source) => CaptureError::Io { path: path.to_path_buf(), source },
        pcap_stream::StreamError::Invalid(message) => CaptureError::InFile { path: path.to_path_buf(), message },
    }
}

/// The next packet of a streamed pcapng file; `index`: how many packets came before.
fn next_pcapng_packet(reader: &mut PcapNgReader<Source>, index: usize) -> Result<Option<CapturedPacket>, String> {
    loop {
        let raw = match reader.next_block() {
            None => return Ok(None),
            Some(Err(e)) => return Err(describe(&e, &format!("pcapng block before packet #{}", index + 1))),
            Some(Ok(block)) => RawPacket::of_block(block),
        };
        if let Some(raw) = raw {
            return raw.captured(reader.interfaces(), index).map(Some);
        }
    }
}

/// One pcap record, its lengths checked and its timestamp in nanoseconds.
fn pcap_record(
    header: &PcapHeader,
    raw: RawPcapPacket,
    what: &dyn std::fmt::Display,
) -> Result<CapturedPacket, String> {
    let record = pcap_record_meta(header, &raw, what)?;
    Ok(CapturedPacket {
        timestamp_ns: record.timestamp_ns,
        data: raw.data.into_owned(),
        original_len: record.original_len,
    })
}

/// A pcap record's lengths checked and its timestamp in nanoseconds, its bytes left where they are.
fn pcap_record_meta(header: &PcapHeader, raw: &RawPcapPacket, what: &dyn std::fmt::Display) -> Result<Record, String> {
    check_lengths(raw.data.len(), raw.orig_len, header.snaplen, what)?;
    let (fraction_ns, limit) = match header.ts_resolution {
        TsResolution::MicroSecond => (u64::from(raw.ts_frac) * 1_000, 1_000_000),
        TsResolution::NanoSecond => (u64::from(raw.ts_frac), 1_000_000_000),
    };
    if raw.ts_frac >= limit {
        return Err(format!(
            "{what} is malformed: its timestamp's fraction of a second ({}) is {limit} or more",
            raw.ts_frac
        ));
    }
    let timestamp_ns = u64::from(raw.ts_sec).saturating_mul(1_000_000_000).saturating_add(fraction_ns);
    Ok(Record { timestamp_ns, len: raw.data.len(), original_len: raw.orig_len })
}

/// A pcapng packet before its timestamp is scaled by its interface's clock.
struct RawPacket {
    /// `None`: a Simple Packet Block, which has no timestamp and belongs to interface 0.
    interface_id: Option<u32>,
    units: u128,
    data: Vec<u8>,
    original_len: u32,
}

impl RawPacket {
    fn of_block(block: Block) -> Option<RawPacket> {
        match block {
            // pcap-file hands the raw timestamp units over as if they were nanoseconds.
            Block::EnhancedPacket(epb) => Some(RawPacket {
                interface_id: Some(epb.interface_id),
                units: epb.timestamp.as_nanos(),
                data: epb.data.into_owned(),
                original_len: epb.original_len,
            }),
            Block::Packet(pb) => Some(RawPacket {
                interface_id: Some(u32::from(pb.interface_id)),
                units: u128::from(pb.timestamp),
                data: pb.data.into_owned(),
                original_len: pb.original_len,
            }),
            Block::SimplePacket(spb) => Some(RawPacket {
                interface_id: None,
                units: 0,
                data: spb.data.into_owned(),
                original_len: spb.original_len,
            }),
            _ => None,
        }
    }

    /// `index`: how many packets came before (for the error message).
    fn captured(mut self, interfaces: &[InterfaceDescriptionBlock], index: usize) -> Result<CapturedPacket, String> {
        let what = format!("packet #{}", index + 1);
        let interface_id = self.interface_id.unwrap_or(0);
        let interface = usize::try_from(interface_id)
            .ok()
            .and_then(|i| interfaces.get(i))
            .ok_or_else(|| format!("{what} names interface {interface_id}, which is not described"))?;
        require_ethernet(
            u32::from(interface.linktype),
            &format!("{what} was captured on interface {interface_id}, whose"),
        )?;
        if self.interface_id.is_none() {
            // A Simple Packet Block's body is padded to 32 bits and holds min(original, snaplen) bytes.
            let held = self.original_len.min(if interface.snaplen == 0 { u32::MAX } else { interface.snaplen });
            self.data.truncate(held as usize);
            return Ok(CapturedPacket { timestamp_ns: 0, data: self.data, original_len: self.original_len });
        }
        check_lengths(self.data.len(), self.original_len, interface.snaplen, &what)?;
        let (per_second, offset_s) = interface_clock(interface)?;
        let ns = self.units.saturating_mul(1_000_000_000) / per_second + u128::from(offset_s) * 1_000_000_000;
        let timestamp_ns = u64::try_from(ns).unwrap_or(u64::MAX);
        Ok(CapturedPacket { timestamp_ns, data: self.data, original_len: self.original_len })
    }
}

fn describe(error: &PcapError, what: &dyn std::fmt::Display) -> String {
    match error {
        PcapError::IncompleteBuffer => format!("{what} is truncated"),
        PcapError::IoError(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => format!("{what} is truncated"),
        other => format!("{what} is malformed: {other}"),
    }
}

fn read_pcap(bytes: &[u8]) -> Result<Vec<CapturedPacket>, CaptureError> {
    let (mut rest, parser) = PcapParser::new(bytes)
        .map_err(|e| CaptureError::Format(format!("not a pcap or pcapng file ({})", describe(&e, &"header"))))?;
    let header = parser.header();
    require_ethernet(u32::from(header.datalink), "the capture's").map_err(CaptureError::Format)?;
    let mut packets = Vec::new();
    while !rest.is_empty() {
        let what = Nth(packets.len() + 1);
        let (next, raw) = parser.next_raw_packet(rest).map_err(|e| CaptureError::Format(describe(&e, &what)))?;
        packets.push(pcap_record(&header, raw, &what).map_err(CaptureError::Format)?);
        rest = next;
    }
    Ok(packets)
}

/// Timestamp units per second and offset (seconds) of a pcapng interface.
fn interface_clock(interface: &InterfaceDescriptionBlock) -> Result<(u128, u64), String> {
    let mut per_second: u128 = 1_000_000;
    let mut offset_s = 0;
    for option in &interface.options {
        match option {
            InterfaceDescriptionOption::IfTsResol(r) if r & 0x80 == 0 => {
                per_second = 10u128
                    .checked_pow(u32::from(*r))
                    .filter(|_| *r <= 30)
                    .ok_or(format!("if_tsresol 10^-{r} is out of range"))?;
            }
            InterfaceDescriptionOption::IfTsResol(r) => {
                per_second = 1u128
                    .checked_shl(u32::from(r & 0x7f))
                    .ok_or(format!("if_tsresol 2^-{} is out of range", r & 0x7f))?;
            }
            InterfaceDescriptionOption::IfTsOffset(s) => offset_s = *s,
            _ => {}
        }
    }
    Ok((per_second, offset_s))
}

fn read_pcapng(bytes: &[u8]) -> Result<Vec<CapturedPacket>, CaptureError> {
    let (mut rest, mut parser) =
        PcapNgParser::new(bytes).map_err(|e| CaptureError::Format(describe(&e, &"pcapng section header")))?;
    let mut packets = Vec::new();
    while !rest.is_empty() {
        let (next, block) = parser.next_block(rest).map_err(|e| {
            CaptureError::Format(describe(&e, &format!("pcapng block before packet #{}", packets.len() + 1)))
        })?;
        rest = next;
        if let Some(raw) = RawPacket::of_block(block) {
            packets.push(raw.captured(parser.interfaces(), packets.len()).map_err(CaptureError::Format)?);
        }
    }
    Ok(packets)
}

/// Streams packets into a capture file, written under a temporary name until [`CaptureWriter::finish`].
pub struct CaptureWriter {
    path: PathBuf,
    inner: WriterKind,
}

enum WriterKind {
    /// A classic pcap file after its header (written by `pcap-file`): each record is the 16-byte
    /// record header (seconds, nanoseconds, captured and original length, little-endian) and the
    /// bytes, appended here to `pending` and written [`PENDING_LIMIT`] bytes at a time (`p4forge
    /// run`'s output path: one `extend` per part of a record instead of a write call each).
    Pcap {
        file: AtomicFile,
        pending: Vec<u8>,
    },
    PcapNg(PcapNgWriter<AtomicFile>),
}

/// Bytes of classic pcap records gathered before they are written: as large as the file's own
/// buffer, which writes this large bypass, and small enough for a run with hundreds of output ports.
const PENDING_LIMIT: usize = 64 << 10;

/// The error for a failed write of `path`: an I/O failure says what happened to the file (disk full,
/// ...); anything else is a packet the format cannot hold.
fn write_error(path: &Path, error: PcapError) -> CaptureError {
    match error {
        PcapError::IoError(e) => CaptureError::Output(OutputError::new(path, &e)),
        other => CaptureError::InFile { path: path.to_path_buf(), message: other.to_string() },
    }
}

impl CaptureWriter {
    /// Starts writing `path` (under a temporary name beside it); the format follows the extension
    /// (see [`CaptureFormat::from_path`]). Nothing appears under `path` before [`CaptureWriter::finish`].
    pub fn create(path: &Path) -> Result<CaptureWriter, CaptureError> {
        CaptureWriter::create_as(path, CaptureFormat::from_path(path))
    }

    /// [`CaptureWriter::create`] in the format given, whatever the extension (`p4forge switch`'s
    /// pcap-out ports always write classic pcap).
    pub fn create_as(path: &Path, format: CaptureFormat) -> Result<CaptureWriter, CaptureError> {
        let out = AtomicFile::create(path)?;
        let fail = |e: PcapError| write_error(path, e);
        let inner = match format {
            CaptureFormat::Pcap => {
                let header = PcapHeader {
                    ts_resolution: TsResolution::NanoSecond,
                    snaplen: SNAPLEN,
                    datalink: DataLink::ETHERNET,
                    endianness: Endianness::Little,
                    ..PcapHeader::default()
                };
                let file = PcapWriter::with_header(out, header).map_err(fail)?.into_writer();
                WriterKind::Pcap { file, pending: Vec::with_capacity(PENDING_LIMIT) }
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

    /// Appends one whole packet (original length = its length).
    pub fn write(&mut self, packet: &TimedPacket) -> Result<(), CaptureError> {
        self.write_record(packet.timestamp_ns, &packet.data, u32::try_from(packet.data.len()).unwrap_or(u32::MAX))
    }

    /// Appends one packet with its original length (raised to its length if smaller).
    pub fn write_captured(&mut self, packet: &CapturedPacket) -> Result<(), CaptureError> {
        self.write_record(packet.timestamp_ns, &packet.data, packet.original_len)
    }

    /// Appends one packet given by its parts: time, bytes and original length (raised to its length
    /// if smaller).
    #[inline]
    pub fn write_record(&mut self, timestamp_ns: u64, data: &[u8], original_len: u32) -> Result<(), CaptureError> {
        // The usual case, inlined into the caller's loop: a classic pcap record that fits in what
        // is gathered before a write.
        if let WriterKind::Pcap { pending, .. } = &mut self.inner {
            if pending.len() + data.len() < PENDING_LIMIT
                && framing::push_record(pending, timestamp_ns, data, original_len)
            {
                return Ok(());
            }
        }
        self.write_record_checked(timestamp_ns, data, original_len)
    }

    /// Appends records framed beforehand (on any thread), as [`CaptureWriter::write_record`] would
    /// have written them one by one.
    pub fn write_records(&mut self, records: &PcapRecords) -> Result<(), CaptureError> {
        if matches!(self.inner, WriterKind::PcapNg(_)) {
            return records
                .each(|timestamp_ns, data, original_len| self.write_record(timestamp_ns, data, original_len));
        }
        match &mut self.inner {
            WriterKind::Pcap { file, pending } => {
                if pending.len() + records.as_bytes().len() < PENDING_LIMIT {
                    pending.extend_from_slice(records.as_bytes());
                    return Ok(());
                }
                let fail = |e: std::io::Error| write_error(&self.path, PcapError::IoError(e));
                std::io::Write::write_all(file, pending).map_err(fail)?;
                pending.clear();
                std::io::Write::write_all(file, records.as_bytes()).map_err(fail)
            }
            WriterKind::PcapNg(_) => Ok(()),
        }
    }

    /// Sets aside room for `records` after everything written so far, and returns it: whichever
    /// thread holds `records` writes them there (`Reserved::write(records.as_bytes())`) before
    /// [`CaptureWriter::finish`]. Where the file cannot be written out of order (pcapng, a device
    /// or FIFO) writes them now instead and returns `None`.
    pub fn reserve_records(&mut self, records: &PcapRecords) -> Result<Option<Reserved>, CaptureError> {
        let WriterKind::Pcap { file, pending } = &mut self.inner else {
            self.write_records(records)?;
            return Ok(None);
        };
        // What is gathered goes before the room.
        std::io::Write::write_all(file, pending).map_err(|e| write_error(&self.path, PcapError::IoError(e)))?;
        pending.clear();
        match file.reserve(records.as_bytes().len() as u64)? {
            Some(room) => Ok(Some(room)),
            None => {
                self.write_records(records)?;
                Ok(None)
            }
        }
    }

    /// [`CaptureWriter::write_record`] for pcapng, for a packet too large or too late for pcap, and
    /// when what is gathered is due to be written.
    #[cold]
    fn write_record_checked(&mut self, timestamp_ns: u64, data: &[u8], original_len: u32) -> Result<(), CaptureError> {
        let len = u32::try_from(data.len()).ok().filter(|&l| l <= SNAPLEN).ok_or_else(|| CaptureError::InFile {
            path: self.path.clone(),
            message: format!("packet of {} bytes is too large", data.len()),
        })?;
        let original_len = original_len.max(len);
        let result = match &mut self.inner {
            WriterKind::Pcap { file, pending } => {
                let seconds = u32::try_from(timestamp_ns / 1_000_000_000).map_err(|_| CaptureError::InFile {
                    path: self.path.clone(),
                    message: format!("timestamp {timestamp_ns} ns is after what pcap can hold (2106)"),
                })?;
                let nanoseconds = (timestamp_ns % 1_000_000_000) as u32;
                let mut record = [0u8; 16];
                record[0..4].copy_from_slice(&seconds.to_le_bytes());
                record[4..8].copy_from_slice(&nanoseconds.to_le_bytes());
                record[8..12].copy_from_slice(&len.to_le_bytes());
                record[12..16].copy_from_slice(&original_len.to_le_bytes());
                pending.extend_from_slice(&record);
                pending.extend_from_slice(data);
                if pending.len() < PENDING_LIMIT {
                    return Ok(());
                }
                let written = std::io::Write::write_all(file, pending).map_err(PcapError::IoError);
                pending.clear();
                written
            }
            WriterKind::PcapNg(w) => w
                .write_pcapng_block(EnhancedPacketBlock {
                    interface_id: 0,
                    timestamp: Duration::from_nanos(timestamp_ns),
                    original_len,
                    data: Cow::Borrowed(data),
                    options: vec![],
                })
                .map(drop),
        };
        result.map_err(|e| write_error(&self.path, e))
    }

    /// Writes out buffered packets and renames the file to its final name. An error names the file
    /// and says what happened (e.g. the disk is full); the final name then keeps its previous file.
    pub fn finish(self) -> Result<(), CaptureError> {
        let out = match self.inner {
            WriterKind::Pcap { mut file, pending } => {
                std::io::Write::write_all(&mut file, &pending)
                    .map_err(|e| write_error(&self.path, PcapError::IoError(e)))?;
                file
            }
            WriterKind::PcapNg(w) => w.into_inner(),
        };
        Ok(out.commit()?)
    }
}

/// Writes a whole capture file atomically (see [`CaptureWriter`]).
pub fn write_capture_file(path: &Path, packets: &[TimedPacket]) -> Result<(), CaptureError> {
    let mut writer = CaptureWriter::create(path)?;
    for packet in packets {
        writer.write(packet)?;
    }
    writer.finish()
}

/// Writes a whole capture file of packets with original lengths, atomically.
pub fn write_captured_file(path: &Path, packets: &[CapturedPacket]) -> Result<(), CaptureError> {
    let mut writer = CaptureWriter::create(path)?;
    for packet in packets {
        writer.write_captured(packet)?;
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
    fn records_framed_ahead_are_written_as_one_by_one_in_both_formats() {
        // More than the writer gathers before a write (`PENDING_LIMIT`), so both of its ways are taken.
        let packets: Vec<TimedPacket> = (0..1000).flat_map(|_| sample()).collect();
        let mut framed = PcapRecords::default();
        for packet in &packets {
            assert!(framed.push(packet.timestamp_ns, &packet.data, 1500));
        }
        assert!(framed.as_bytes().len() > PENDING_LIMIT);
        assert_eq!((framed.packets(), framed.data_bytes()), (2000, 69_000));
        assert!(!framed.push(0, &vec![0; SNAPLEN as usize + 1], 0), "larger than pcap holds");
        assert!(!framed.push(u64::from(u32::MAX) * 1_000_000_000 + 1_000_000_000, &[1], 1), "after 2106");
        assert_eq!((framed.packets(), framed.data_bytes()), (2000, 69_000), "refused records leave nothing");
        for name in ["framed.pcap", "framed.pcapng"] {
            let (one, ahead) = (temp(&format!("one-{name}")), temp(&format!("ahead-{name}")));
            let mut writer = CaptureWriter::create(&one).unwrap();
            for packet in std::iter::once(&packets[0]).chain(&packets).chain(&packets) {
                writer.write_record(packet.timestamp_ns, &packet.data, 1500).unwrap();
            }
            writer.finish().unwrap();
            let mut writer = CaptureWriter::create(&ahead).unwrap();
            writer.write_record(packets[0].timestamp_ns, &packets[0].data, 1500).unwrap();
            writer.write_records(&framed).unwrap();
            writer.write_records(&framed).unwrap();
            writer.finish().unwrap();
            let written = std::fs::read(&ahead).unwrap();
            assert!(written == std::fs::read(&one).unwrap(), "{name}: the files differ");
            assert_eq!(read_captured(&written).unwrap()[1].original_len, 1500, "{name}");
            // Room set aside and filled last first (pcap), or written at once (pcapng).
            let mut writer = CaptureWriter::create(&ahead).unwrap();
            writer.write_record(packets[0].timestamp_ns, &packets[0].data, 1500).unwrap();
            let first = writer.reserve_records(&framed).unwrap();
            let second = writer.reserve_records(&framed).unwrap();
            assert_eq!((first.is_some(), second.is_some()), (name.ends_with(".pcap"), name.ends_with(".pcap")));
            for room in [second, first].into_iter().flatten() {
                room.write(framed.as_bytes()).unwrap();
            }
            writer.finish().unwrap();
            assert!(std::fs::read(&ahead).unwrap() == written, "{name}: set aside, the files differ");
            let _ = (std::fs::remove_file(one), std::fs::remove_file(ahead));
        }
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
    fn pcap_records_are_written_as_the_format_says_and_late_timestamps_refused() {
        let path = temp("records.pcap");
        let mut w = CaptureWriter::create(&path).unwrap();
        w.write_record(1_700_000_000_000_000_005, &[1, 2, 3], 60).unwrap();
        let late = (u64::from(u32::MAX) + 1) * 1_000_000_000;
        let refused = w.write_record(late, &[1], 1).map_err(|e| e.to_string());
        assert!(refused.as_ref().is_err_and(|e| e.contains("2106")), "{refused:?}");
        w.finish().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        // After the 24-byte file header: seconds, nanoseconds, captured and original length.
        let mut record = 1_700_000_000u32.to_le_bytes().to_vec();
        record.extend_from_slice(&5u32.to_le_bytes());
        record.extend_from_slice(&3u32.to_le_bytes());
        record.extend_from_slice(&60u32.to_le_bytes());
        record.extend_from_slice(&[1, 2, 3]);
        assert_eq!(&bytes[24..], &record[..]);
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
        let shb_body =
            [&0x1a2b_3c4du32.to_le_bytes()[..], &1u16.to_le_bytes(), &0u16.to_le_bytes(), &(-1i64).to_le_bytes()]
                .concat();
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
        assert_eq!(
            read_capture_file(&path).unwrap_err().to_string(),
            format!("{}: packet #2 is truncated", path.display())
        );
        std::fs::write(&path, b"no").unwrap();
        assert_eq!(
            read_capture_file(&path).unwrap_err().to_string(),
            format!("{}: not a pcap or pcapng file (shorter than a header)", path.display())
        );
        assert_eq!(
            read_capture(&bytes[..10]).unwrap_err().to_string(),
            "not a pcap or pcapng file (header is truncated)"
        );
        let _ = std::fs::remove_file(path);
    }

    /// A little-endian microsecond pcap image: `link_type`, `snaplen` and `(captured bytes, original length)` records.
    fn pcap_image(link_type: u32, snaplen: u32, records: &[(&[u8], u32)]) -> Vec<u8> {
        let mut image = [&0xa1b2_c3d4u32.to_le_bytes()[..], &2u16.to_le_bytes(), &4u16.to_le_bytes(), &[0; 8]].concat();
        image.extend([snaplen.to_le_bytes(), link_type.to_le_bytes()].concat());
        for (i, (data, original)) in records.iter().enumerate() {
            let header = [7u32, i as u32, data.len() as u32, *original];
            image.extend(header.iter().flat_map(|w| w.to_le_bytes()));
            image.extend_from_slice(data);
        }
        image
    }

    /// A pcapng image with one interface of `link_type`/`snaplen` and one EPB `(captured, original)`.
    fn pcapng_image(link_type: u16, snaplen: u32, data: &[u8], original: u32) -> Vec<u8> {
        let block = |kind: u32, body: &[u8]| -> Vec<u8> {
            let len = (12 + body.len()) as u32;
            [&kind.to_le_bytes()[..], &len.to_le_bytes(), body, &len.to_le_bytes()].concat()
        };
        let shb_body =
            [&0x1a2b_3c4du32.to_le_bytes()[..], &1u16.to_le_bytes(), &0u16.to_le_bytes(), &(-1i64).to_le_bytes()]
                .concat();
        let idb_body = [&link_type.to_le_bytes()[..], &0u16.to_le_bytes(), &snaplen.to_le_bytes()].concat();
        let mut padded = data.to_vec();
        padded.resize(data.len().div_ceil(4) * 4, 0);
        let epb_body = [
            &0u32.to_le_bytes()[..],
            &0u32.to_le_bytes(),
            &1u32.to_le_bytes(),
            &(data.len() as u32).to_le_bytes(),
            &original.to_le_bytes(),
            &padded,
        ]
        .concat();
        [block(0x0a0d_0d0a, &shb_body), block(1, &idb_body), block(6, &epb_body)].concat()
    }

    fn scratch(name: &str) -> p4_io::testing::Scratch {
        p4_io::testing::scratch_dir("p4-stf-capture", name)
    }

    use p4_io::testing::file_names as names;

    #[test]
    fn the_final_name_only_ever_holds_a_complete_capture() {
        let dir = scratch("atomic");
        let path = dir.join("port1.pcap");
        std::fs::write(&path, b"previous").unwrap();
        let mut writer = CaptureWriter::create(&path).unwrap();
        writer.write(&sample()[0]).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"previous", "nothing replaces the old file before finish()");
        writer.finish().unwrap();
        assert_eq!(read_capture_file(&path).unwrap(), sample()[..1]);
        assert_eq!(names(&dir), ["port1.pcap"], "no temporary file is left");
    }

    #[test]
    fn a_writer_dropped_without_finish_leaves_no_file_and_keeps_the_old_one() {
        let dir = scratch("abandon");
        let kept = dir.join("port1.pcapng");
        std::fs::write(&kept, b"previous").unwrap();
        let mut writer = CaptureWriter::create(&kept).unwrap();
        writer.write(&sample()[1]).unwrap();
        drop(writer);
        assert_eq!(std::fs::read(&kept).unwrap(), b"previous");
        let mut fresh = CaptureWriter::create(&dir.join("port2.pcap")).unwrap();
        fresh.write(&sample()[0]).unwrap();
        drop(fresh);
        assert_eq!(names(&dir), ["port1.pcapng"], "no new file and no temporary file");
    }

    #[test]
    fn a_full_disk_is_reported_with_the_file_name() {
        use std::io::Write;
        // /dev/full fails every write with ENOSPC, as a full disk does.
        let mut full = std::fs::File::options().write(true).open("/dev/full").unwrap();
        let error = full.write_all(b"x").unwrap_err();
        let error = write_error(Path::new("out/port1.pcap"), PcapError::IoError(error));
        assert_eq!(error.to_string(), "cannot write out/port1.pcap: no space left on the device (disk full)");
        let error =
            write_error(Path::new("out/port1.pcap"), PcapError::InvalidField("PcapPacket: incl_len > orig_len"));
        assert_eq!(error.to_string(), "out/port1.pcap: Invalid field value: PcapPacket: incl_len > orig_len");
    }

    /// Set in the child process of [`a_failed_write_leaves_the_previous_capture`].
    const CHILD_DIR: &str = "P4_STF_CAPTURE_CHILD_DIR";

    /// Runs only as the child of [`a_failed_write_leaves_the_previous_capture`], under a file size
    /// limit: every write past it fails (EFBIG), like a disk that fills up mid-capture.
    #[test]
    #[ignore = "run by a_failed_write_leaves_the_previous_capture under a file size limit"]
    fn child_writes_past_the_file_size_limit() {
        let Some(dir) = std::env::var_os(CHILD_DIR) else { return };
        let path = PathBuf::from(dir).join("port1.pcap");
        let big = TimedPacket { timestamp_ns: 1, data: vec![0x5a; 60_000] };
        let mut writer = CaptureWriter::create(&path).unwrap();
        let error = (0..8).map(|_| writer.write(&big)).find_map(Result::err);
        let error = match error {
            Some(error) => error,
            None => writer.finish().unwrap_err(),
        };
        assert_eq!(error.to_string(), format!("cannot write {}: File too large (os error 27)", path.display()));
    }

    #[test]
    fn a_failed_write_leaves_the_previous_capture() {
        let dir = scratch("efbig");
        let path = dir.join("port1.pcap");
        write_capture_file(&path, &sample()).unwrap();
        let before = std::fs::read(&path).unwrap();
        // A file size limit of 64 KiB, and SIGXFSZ ignored so writes past it fail with EFBIG instead of
        // killing the process (an ignored signal stays ignored across exec).
        let test_binary = std::env::current_exe().unwrap();
        let status = std::process::Command::new("/bin/sh")
            .arg("-c")
            .arg("trap '' XFSZ; ulimit -f 128; exec \"$0\" --ignored --exact capture::tests::child_writes_past_the_file_size_limit")
            .arg(&test_binary)
            .env(CHILD_DIR, dir.path())
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "the child saw the expected error");
        assert_eq!(std::fs::read(&path).unwrap(), before, "the previous capture is untouched");
        assert_eq!(names(&dir), ["port1.pcap"], "the partial temporary file is gone");
    }

    #[test]
    fn captures_that_are_not_ethernet_are_refused_by_link_type() {
        let refused =
            |link_type: u32| read_capture(&pcap_image(link_type, 0, &[(&[0x45, 0], 2)])).unwrap_err().to_string();
        assert_eq!(refused(101), "the capture's link type is 101 (RAW, raw IP without a link-layer header), not Ethernet (1): p4forge's ports carry Ethernet frames");
        assert_eq!(refused(12), "the capture's link type is 12 (DLT_RAW, raw IP without a link-layer header), not Ethernet (1): p4forge's ports carry Ethernet frames");
        assert_eq!(refused(14), "the capture's link type is 14 (DLT_RAW, raw IP without a link-layer header), not Ethernet (1): p4forge's ports carry Ethernet frames");
        assert_eq!(refused(113), "the capture's link type is 113 (LINUX_SLL, Linux cooked capture), not Ethernet (1): p4forge's ports carry Ethernet frames");
        assert_eq!(refused(276), "the capture's link type is 276 (LINUX_SLL2, Linux cooked capture v2), not Ethernet (1): p4forge's ports carry Ethernet frames");
        assert_eq!(refused(4000), "the capture's link type is 4000 (a link type p4forge does not know), not Ethernet (1): p4forge's ports carry Ethernet frames");
        let path = temp("sll.pcap");
        std::fs::write(&path, pcap_image(113, 0, &[(&[0; 16], 16)])).unwrap();
        assert_eq!(
            CaptureReader::open(&path).err().unwrap().to_string(),
            format!("{}: the file's link type is 113 (LINUX_SLL, Linux cooked capture), not Ethernet (1): p4forge's ports carry Ethernet frames", path.display())
        );
        let _ = std::fs::remove_file(path);
    }

    #[test]
    fn pcapng_link_types_are_checked_per_interface() {
        let image = pcapng_image(101, 0, &[0x45, 0, 0, 20], 4);
        assert_eq!(
            read_capture(&image).unwrap_err().to_string(),
            "packet #1 was captured on interface 0, whose link type is 101 (RAW, raw IP without a link-layer header), not Ethernet (1): p4forge's ports carry Ethernet frames"
        );
        let path = temp("raw.pcapng");
        std::fs::write(&path, &image).unwrap();
        let mut reader = CaptureReader::open(&path).unwrap();
        assert_eq!(
            reader.next_captured().unwrap_err().to_string(),
            format!("{}: packet #1 was captured on interface 0, whose link type is 101 (RAW, raw IP without a link-layer header), not Ethernet (1): p4forge's ports carry Ethernet frames", path.display())
        );
        let _ = std::fs::remove_file(path);
    }

    #[test]
    fn truncated_packets_are_read_with_their_original_length() {
        let head = [0xab; 64];
        // tcpdump -s 64: 64 of 1514 bytes held.
        let packets = read_captured(&pcap_image(1, 64, &[(&head, 1514), (&head[..10], 10)])).unwrap();
        assert_eq!(packets[0], CapturedPacket { timestamp_ns: 7_000_000_000, data: head.to_vec(), original_len: 1514 });
        assert_eq!(
            packets[1],
            CapturedPacket { timestamp_ns: 7_000_001_000, data: head[..10].to_vec(), original_len: 10 }
        );
        assert_eq!(packets[0].missing_bytes(), 1450);
        assert!(!packets[1].is_truncated());
        // Snapshot length 0 means "unlimited": any captured length up to the original is fine.
        let unlimited = read_captured(&pcap_image(1, 0, &[(&head, 64)])).unwrap();
        assert_eq!(unlimited[0].original_len, 64);
        let ng = read_captured(&pcapng_image(1, 32, &[1; 32], 1000)).unwrap();
        assert_eq!(ng, vec![CapturedPacket { timestamp_ns: 1_000, data: vec![1; 32], original_len: 1000 }]);
    }

    #[test]
    fn impossible_lengths_are_malformed() {
        assert_eq!(
            read_capture(&pcap_image(1, 0, &[(&[1; 20], 10)])).unwrap_err().to_string(),
            "packet #1 is malformed: its captured length 20 exceeds its original length 10"
        );
        assert_eq!(
            read_capture(&pcap_image(1, 16, &[(&[1; 20], 20)])).unwrap_err().to_string(),
            "packet #1 is malformed: its captured length 20 exceeds the snapshot length 16"
        );
        assert_eq!(
            read_capture(&pcapng_image(1, 0, &[1; 8], 4)).unwrap_err().to_string(),
            "packet #1 is malformed: its captured length 8 exceeds its original length 4"
        );
    }

    #[test]
    fn original_lengths_are_written_back_in_both_formats() {
        let packets = vec![
            CapturedPacket { timestamp_ns: 5, data: vec![0xcd; 64], original_len: 1514 },
            CapturedPacket::whole(6, vec![1, 2, 3]),
        ];
        for name in ["trunc.pcap", "trunc.pcapng"] {
            let path = temp(name);
            write_captured_file(&path, &packets).unwrap();
            assert_eq!(read_captured_file(&path).unwrap(), packets, "{name}");
            let _ = std::fs::remove_file(path);
        }
    }

    #[test]
    fn an_output_of_a_truncated_input_keeps_the_missing_bytes() {
        let input = CapturedPacket { timestamp_ns: 9, data: vec![0; 64], original_len: 1514 };
        // The program removed a 4-byte tag from the 64 bytes it saw: 1450 bytes still follow.
        let output = input.derive(vec![0; 60]);
        assert_eq!(output, CapturedPacket { timestamp_ns: 9, data: vec![0; 60], original_len: 1510 });
        let whole = CapturedPacket::from(TimedPacket { timestamp_ns: 1, data: vec![0; 3] });
        assert_eq!(whole.derive(vec![0; 7]).original_len, 7);
    }
}

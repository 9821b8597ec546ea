//! Capture files: a pcapng writer with picosecond timestamps (`if_tsresol` = 12), a pcap /
//! pcapng reader that honours `if_tsresol` (used to replay a capture's timing), and the raw
//! serial bit-stream file that the generator writes and the capturer reads.
//!
//! pcapng layout written here (little-endian): one Section Header Block, one Interface
//! Description Block (LINKTYPE_ETHERNET, options if_name and if_tsresol), then one Enhanced
//! Packet Block per frame. Timestamps count picoseconds since the Unix epoch.

use std::io::Write;
use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::lock::BitStream;
use crate::time::BitTime;

/// pcapng block types.
const SHB: u32 = 0x0a0d_0d0a;
const IDB: u32 = 0x0000_0001;
const EPB: u32 = 0x0000_0006;
/// `if_tsresol` value for 10^-12 s.
pub const TSRESOL_PICOS: u8 = 12;

fn pad4(n: usize) -> usize {
    (4 - n % 4) % 4
}

/// Writes frames to a pcapng stream with picosecond timestamps.
pub struct PcapngWriter<W: Write> {
    out: W,
    epoch_ps: u64,
}

impl<W: Write> PcapngWriter<W> {
    /// Write the section and interface headers. `epoch_ps` is added to every timestamp
    /// (picoseconds since 1970-01-01 of bit time 0).
    pub fn new(mut out: W, interface_name: &str, epoch_ps: u64) -> Result<PcapngWriter<W>> {
        // Section Header Block: no options, section length unknown (-1).
        let mut shb = Vec::with_capacity(28);
        shb.extend_from_slice(&SHB.to_le_bytes());
        shb.extend_from_slice(&28u32.to_le_bytes());
        shb.extend_from_slice(&0x1a2b_3c4du32.to_le_bytes());
        shb.extend_from_slice(&1u16.to_le_bytes());
        shb.extend_from_slice(&0u16.to_le_bytes());
        shb.extend_from_slice(&(-1i64).to_le_bytes());
        shb.extend_from_slice(&28u32.to_le_bytes());
        out.write_all(&shb)?;

        let mut opts = Vec::new();
        let name = interface_name.as_bytes();
        opts.extend_from_slice(&2u16.to_le_bytes()); // if_name
        opts.extend_from_slice(&(name.len() as u16).to_le_bytes());
        opts.extend_from_slice(name);
        opts.resize(opts.len() + pad4(name.len()), 0);
        opts.extend_from_slice(&9u16.to_le_bytes()); // if_tsresol
        opts.extend_from_slice(&1u16.to_le_bytes());
        opts.extend_from_slice(&[TSRESOL_PICOS, 0, 0, 0]);
        opts.extend_from_slice(&[0, 0, 0, 0]); // opt_endofopt
        let total = (20 + opts.len()) as u32;
        let mut idb = Vec::with_capacity(total as usize);
        idb.extend_from_slice(&IDB.to_le_bytes());
        idb.extend_from_slice(&total.to_le_bytes());
        idb.extend_from_slice(&1u16.to_le_bytes()); // LINKTYPE_ETHERNET
        idb.extend_from_slice(&0u16.to_le_bytes());
        idb.extend_from_slice(&0u32.to_le_bytes()); // no snap length limit
        idb.extend_from_slice(&opts);
        idb.extend_from_slice(&total.to_le_bytes());
        out.write_all(&idb)?;
        Ok(PcapngWriter { out, epoch_ps })
    }

    /// Write one frame that started at bit time `at`.
    pub fn write(&mut self, at: BitTime, frame: &[u8]) -> Result<()> {
        let ts = self.epoch_ps.saturating_add(at.as_picos());
        let len = u32::try_from(frame.len()).context("frame too large for pcapng")?;
        let total = (32 + frame.len() + pad4(frame.len())) as u32;
        let mut head = [0u8; 28];
        head[0..4].copy_from_slice(&EPB.to_le_bytes());
        head[4..8].copy_from_slice(&total.to_le_bytes());
        head[8..12].copy_from_slice(&0u32.to_le_bytes());
        head[12..16].copy_from_slice(&((ts >> 32) as u32).to_le_bytes());
        head[16..20].copy_from_slice(&(ts as u32).to_le_bytes());
        head[20..24].copy_from_slice(&len.to_le_bytes());
        head[24..28].copy_from_slice(&len.to_le_bytes());
        self.out.write_all(&head)?;
        self.out.write_all(frame)?;
        self.out.write_all(&[0u8; 3][..pad4(frame.len())])?;
        self.out.write_all(&total.to_le_bytes())?;
        Ok(())
    }

    /// Flush and return the underlying writer.
    pub fn finish(mut self) -> Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// A packet read back from a capture file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadPacket {
    /// Timestamp in picoseconds since the epoch.
    pub ts_ps: u128,
    /// Captured octets.
    pub data: Vec<u8>,
}

/// Picoseconds per timestamp unit of a pcapng `if_tsresol` value, as a (numerator,
/// denominator) pair.
fn tsresol_to_ps(v: u8) -> Result<(u128, u128)> {
    if v & 0x80 == 0 {
        let e = u32::from(v);
        if e <= 12 {
            Ok((10u128.pow(12 - e), 1))
        } else if e <= 30 {
            Ok((1, 10u128.pow(e - 12)))
        } else {
            bail!("if_tsresol 10^-{e} is out of range")
        }
    } else {
        let e = u32::from(v & 0x7f);
        if e > 100 {
            bail!("if_tsresol 2^-{e} is out of range");
        }
        Ok((1_000_000_000_000, 1u128 << e.min(120)))
    }
}

/// Largest capture file read whole (`gen --replay`): an endless input such as /dev/zero or a
/// FIFO that never closes stops here instead of exhausting memory.
pub const MAX_CAPTURE_BYTES: u64 = 256 << 20;

/// Read every packet of a pcap or pcapng file (at most [`MAX_CAPTURE_BYTES`]) with exact timestamps.
pub fn read_capture(path: &Path) -> Result<Vec<ReadPacket>> {
    let bytes = p4_io::input::read_bytes(path, "capture file", MAX_CAPTURE_BYTES)?;
    read_capture_bytes(&bytes).with_context(|| format!("{}: not a readable pcap/pcapng file", path.display()))
}

/// [`read_capture`] on bytes in memory.
pub fn read_capture_bytes(bytes: &[u8]) -> Result<Vec<ReadPacket>> {
    use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionOption;
    use pcap_file::pcapng::Block;
    let mut out = Vec::new();
    if bytes.len() >= 4 && bytes[..4] == SHB.to_le_bytes() {
        let mut r = pcap_file::pcapng::PcapNgReader::new(bytes)?;
        // Timestamp scale of each interface, in order of appearance.
        let mut scales: Vec<(u128, u128)> = Vec::new();
        while let Some(block) = r.next_block() {
            match block? {
                Block::SectionHeader(_) => scales.clear(),
                Block::InterfaceDescription(idb) => {
                    let mut res = 6u8;
                    for o in &idb.options {
                        if let InterfaceDescriptionOption::IfTsResol(v) = o {
                            res = *v;
                        }
                    }
                    scales.push(tsresol_to_ps(res)?);
                }
                Block::EnhancedPacket(epb) => {
                    let (num, den) =
                        *scales.get(epb.interface_id as usize).context("packet refers to a missing interface")?;
                    // pcap-file hands back the raw 64-bit unit count as nanoseconds.
                    let raw = epb.timestamp.as_nanos();
                    out.push(ReadPacket { ts_ps: raw * num / den, data: epb.data.to_vec() });
                }
                _ => {}
            }
        }
    } else {
        let mut r = pcap_file::pcap::PcapReader::new(bytes)?;
        while let Some(p) = r.next_packet() {
            let p = p?;
            out.push(ReadPacket { ts_ps: p.timestamp.as_nanos() * 1000, data: p.data.to_vec() });
        }
    }
    Ok(out)
}

/// Magic of the raw bit-stream file.
pub const BITS_MAGIC: &[u8; 8] = b"P4PHYBIT";

/// Write a raw serial bit stream: magic, bit count (u64 LE), packed LSB-first bits.
/// The file appears under `path` only when complete (written under a temporary name, renamed).
pub fn write_bitstream(path: &Path, s: &BitStream) -> Result<()> {
    let mut f = p4_io::output::AtomicFile::create(path)?;
    let io = |e: std::io::Error| p4_io::output::OutputError::new(path, &e);
    f.write_all(BITS_MAGIC).map_err(io)?;
    f.write_all(&s.len().to_le_bytes()).map_err(io)?;
    f.write_all(s.as_bytes()).map_err(io)?;
    f.commit()?;
    Ok(())
}

/// Largest bit-stream file [`read_bitstream`] reads into memory (`capture` streams instead).
pub const MAX_BITSTREAM_BYTES: u64 = 1 << 30;

/// Read a file written by [`write_bitstream`] into memory (at most [`MAX_BITSTREAM_BYTES`]).
pub fn read_bitstream(path: &Path) -> Result<BitStream> {
    let bytes = p4_io::input::read_bytes(path, "bit-stream file", MAX_BITSTREAM_BYTES)?;
    parse_bitstream(bytes).with_context(|| format!("{}: not a p4-phy bit-stream file", path.display()))
}

/// Parse the bytes of a bit-stream file.
pub fn parse_bitstream(mut bytes: Vec<u8>) -> Result<BitStream> {
    if bytes.len() < 16 || &bytes[..8] != BITS_MAGIC {
        bail!("missing P4PHYBIT header");
    }
    let mut n = [0u8; 8];
    n.copy_from_slice(&bytes[8..16]);
    let len = u64::from_le_bytes(n);
    let body = bytes.split_off(16);
    if (body.len() as u64) < len.div_ceil(8) {
        bail!("header says {len} bits but only {} bytes follow", body.len());
    }
    Ok(BitStream::from_bytes(body, len))
}

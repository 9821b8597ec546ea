//! Classic pcap files read as a stream, record by record, straight into the caller's buffer.
//!
//! The file header and each record header are parsed here from a [`BlockReader`]'s block, in place;
//! a record's bytes are copied once, to the caller's buffer. The checks are those of the
//! `pcap-file` path the in-memory reader ([`super::read_captured`]) still takes, with the same
//! messages: a header or record cut short is "truncated", lengths are checked against each other
//! and the snapshot length, a timestamp's fraction against its resolution.

use super::blocks::BlockReader;
use super::{check_lengths, require_ethernet, Nth, Record};
use std::io::Read;

/// Bytes of the file header and of a record header.
const FILE_HEADER: usize = 24;
const RECORD_HEADER: usize = 16;
/// The largest captured length read: what the `pcap-file` reader used before this one accepted (a
/// record had to fit its 8,000,000-byte buffer, header included). A record header claiming more is
/// refused before anything is read or allocated for it.
pub(crate) const MAX_CAPTURED_LEN: usize = 8_000_000 - RECORD_HEADER;

/// What the file header says about the records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Layout {
    /// Fields are big-endian (the file was written on a big-endian machine).
    big_endian: bool,
    /// Timestamp fractions are nanoseconds (otherwise microseconds).
    nanoseconds: bool,
    /// 0: unlimited.
    snaplen: u32,
}

impl Layout {
    /// The layout a magic number (as it appears on disk) announces.
    fn of_magic(magic: [u8; 4]) -> Option<Layout> {
        let (big_endian, nanoseconds) = match magic {
            [0xa1, 0xb2, 0xc3, 0xd4] => (true, false),
            [0xa1, 0xb2, 0x3c, 0x4d] => (true, true),
            [0xd4, 0xc3, 0xb2, 0xa1] => (false, false),
            [0x4d, 0x3c, 0xb2, 0xa1] => (false, true),
            _ => return None,
        };
        Some(Layout { big_endian, nanoseconds, snaplen: 0 })
    }

    /// A timestamp's fraction of a second must be below this; times it makes nanoseconds.
    fn fraction_limit_and_scale(&self) -> (u32, u64) {
        if self.nanoseconds {
            (1_000_000_000, 1)
        } else {
            (1_000_000, 1_000)
        }
    }

    /// The most a record may hold (a snapshot length of 0 means no limit).
    fn captured_limit(&self) -> u32 {
        if self.snaplen == 0 {
            u32::MAX
        } else {
            self.snaplen
        }
    }

    #[inline]
    fn u32_at(&self, bytes: &[u8], at: usize) -> u32 {
        let word = [bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]];
        if self.big_endian {
            u32::from_be_bytes(word)
        } else {
            u32::from_le_bytes(word)
        }
    }
}

/// Why a pcap stream could not be read: the file could not be read, or what it holds is not valid.
#[derive(Debug)]
pub(crate) enum StreamError {
    Io(std::io::Error),
    Invalid(String),
}

/// A classic pcap file being read.
pub(crate) struct PcapStream<R> {
    input: BlockReader<R>,
    layout: Layout,
    /// Records returned so far (for messages).
    count: usize,
}

impl<R: Read> PcapStream<R> {
    /// Reads the file header: `magic` (already read from `input`) and the 20 bytes after it. A file
    /// whose link type is not Ethernet is refused.
    pub(crate) fn open(magic: &[u8], input: R) -> Result<PcapStream<R>, StreamError> {
        let mut input = BlockReader::new(magic, input);
        let header = input.peek(FILE_HEADER).map_err(StreamError::Io)?;
        let layout = header.get(..4).and_then(|m| Layout::of_magic([m[0], m[1], m[2], m[3]])).ok_or_else(|| {
            StreamError::Invalid("not a pcap or pcapng file (header is malformed: wrong magic number)".to_string())
        })?;
        if header.len() < FILE_HEADER {
            return Err(StreamError::Invalid("not a pcap or pcapng file (header is truncated)".to_string()));
        }
        let layout = Layout { snaplen: layout.u32_at(header, 16), ..layout };
        require_ethernet(layout.u32_at(header, 20), "the file's").map_err(StreamError::Invalid)?;
        input.consume(FILE_HEADER);
        Ok(PcapStream { input, layout, count: 0 })
    }

    /// The next record, its bytes appended to `bytes`; `None` at the end of the file. On an error
    /// `bytes` is left as it was.
    #[inline]
    pub(crate) fn next_into(&mut self, bytes: &mut Vec<u8>) -> Result<Option<Record>, StreamError> {
        let layout = self.layout;
        let header = self.input.peek(RECORD_HEADER).map_err(StreamError::Io)?;
        if header.is_empty() {
            return Ok(None);
        }
        let what = Nth(self.count + 1);
        if header.len() < RECORD_HEADER {
            return Err(StreamError::Invalid(format!("{what} is truncated")));
        }
        let seconds = layout.u32_at(header, 0);
        let fraction = layout.u32_at(header, 4);
        let captured = layout.u32_at(header, 8) as usize;
        let original_len = layout.u32_at(header, 12);
        if captured > MAX_CAPTURED_LEN {
            return Err(StreamError::Invalid(format!(
                "{what} is malformed: its captured length {captured} exceeds the {MAX_CAPTURED_LEN} bytes p4forge reads of a packet"
            )));
        }
        self.input.consume(RECORD_HEADER);
        let at = bytes.len();
        match self.input.append_to(captured, bytes) {
            Ok(true) => {}
            Ok(false) => {
                bytes.truncate(at);
                return Err(StreamError::Invalid(format!("{what} is truncated")));
            }
            Err(e) => {
                bytes.truncate(at);
                return Err(StreamError::Io(e));
            }
        }
        let checked = check_lengths(captured, original_len, layout.snaplen, &what)
            .and_then(|()| timestamp_ns(layout, seconds, fraction, &what));
        match checked {
            Ok(timestamp_ns) => {
                self.count += 1;
                Ok(Some(Record { timestamp_ns, len: captured, original_len }))
            }
            Err(message) => {
                bytes.truncate(at);
                Err(StreamError::Invalid(message))
            }
        }
    }
}

impl<R: Read> PcapStream<R> {
    /// Reads up to `max` records, appending each one's bytes to `bytes` and handing `each` the
    /// record and where its bytes start in `bytes`, until `each` returns false; returns how many
    /// were read (fewer than `max` only at the end of the file or when `each` said stop). On an
    /// error, the records before it have been handed over.
    ///
    /// Records whole in the current block and valid are taken here, in a loop specialised for the
    /// file's byte order; any other (the block's last, a malformed one) goes through
    /// [`PcapStream::next_into`], which refills the block and words the errors.
    #[inline]
    pub(crate) fn read_many(
        &mut self,
        bytes: &mut Vec<u8>,
        max: usize,
        each: &mut impl FnMut(Record, usize) -> bool,
    ) -> Result<usize, StreamError> {
        if self.layout.big_endian {
            self.read_many_in::<true>(bytes, max, each)
        } else {
            self.read_many_in::<false>(bytes, max, each)
        }
    }

    fn read_many_in<const BIG_ENDIAN: bool>(
        &mut self,
        bytes: &mut Vec<u8>,
        max: usize,
        each: &mut impl FnMut(Record, usize) -> bool,
    ) -> Result<usize, StreamError> {
        let layout = self.layout;
        let word = |b: &[u8], at: usize| {
            let w = [b[at], b[at + 1], b[at + 2], b[at + 3]];
            if BIG_ENDIAN {
                u32::from_be_bytes(w)
            } else {
                u32::from_le_bytes(w)
            }
        };
        let (fraction_limit, fraction_scale) = layout.fraction_limit_and_scale();
        let snaplen = layout.captured_limit();
        let mut read = 0;
        while read < max {
            let buffered = self.input.buffered();
            if let Some(header) = buffered.get(..RECORD_HEADER) {
                let captured = word(header, 8);
                let original_len = word(header, 12);
                let fraction = word(header, 4);
                let end = RECORD_HEADER + captured as usize;
                if let Some(data) = buffered.get(RECORD_HEADER..end) {
                    if captured <= original_len && captured <= snaplen && fraction < fraction_limit {
                        let timestamp_ns =
                            u64::from(word(header, 0)) * 1_000_000_000 + u64::from(fraction) * fraction_scale;
                        let at = bytes.len();
                        bytes.extend_from_slice(data);
                        self.input.consume(end);
                        self.count += 1;
                        read += 1;
                        if each(Record { timestamp_ns, len: captured as usize, original_len }, at) {
                            continue;
                        }
                        break;
                    }
                }
            }
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

/// Whole, valid records read by [`PcapStream::read_raw`] into a caller's buffer as they are in the
/// file (headers included), to be decoded later, possibly on another thread ([`RawRecords::each`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawRecords {
    layout: Layout,
    /// Where the first one starts in the buffer.
    start: usize,
    /// Records, one after the other from `start`.
    count: usize,
    /// Where the last one ends in the buffer.
    end: usize,
    /// Their captured bytes, headers not counted.
    captured_bytes: u64,
}

impl RawRecords {
    /// How many records were read.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Their captured bytes (record headers not counted).
    pub fn captured_bytes(&self) -> u64 {
        self.captured_bytes
    }

    /// Where they end in the buffer they were read into.
    pub fn end(&self) -> usize {
        self.end
    }

    /// The first record's time (nanoseconds since the epoch), in `bytes` (the buffer they were
    /// read into); `None` when there are none.
    pub fn first_timestamp_ns(&self, bytes: &[u8]) -> Option<u64> {
        let mut first = None;
        RawRecords { count: self.count.min(1), ..*self }.each(bytes, |record, _| first = Some(record.timestamp_ns));
        first
    }

    /// Keeps only the first record (none stays none): for a reader that must stop after it.
    pub fn first_only(&mut self, bytes: &[u8]) {
        *self = self.take_front(1, bytes);
    }

    /// Splits off the first `n` records (all there are, if fewer), which it returns; the rest stay.
    pub fn take_front(&mut self, n: usize, bytes: &[u8]) -> RawRecords {
        if n >= self.count {
            let all = *self;
            *self = RawRecords { start: self.end, count: 0, captured_bytes: 0, ..*self };
            return all;
        }
        let mut front = RawRecords { count: 0, end: self.start, captured_bytes: 0, ..*self };
        while front.count < n {
            let captured =
                bytes.get(front.end..front.end + RECORD_HEADER).map_or(0, |header| self.layout.u32_at(header, 8));
            front.count += 1;
            front.end += RECORD_HEADER + captured as usize;
            front.captured_bytes += u64::from(captured);
        }
        *self = RawRecords {
            start: front.end,
            count: self.count - n,
            captured_bytes: self.captured_bytes - front.captured_bytes,
            ..*self
        };
        front
    }

    /// Hands `each` every record of `bytes` (the buffer they were read into) with where its bytes
    /// start there, in file order. The checks were made when they were read.
    #[inline]
    pub fn each(&self, bytes: &[u8], mut each: impl FnMut(Record, usize)) {
        let layout = self.layout;
        let (_, fraction_scale) = layout.fraction_limit_and_scale();
        let mut at = self.start;
        for _ in 0..self.count {
            let Some(header) = bytes.get(at..at + RECORD_HEADER) else { return };
            let captured = layout.u32_at(header, 8) as usize;
            let timestamp_ns = u64::from(layout.u32_at(header, 0)) * 1_000_000_000
                + u64::from(layout.u32_at(header, 4)) * fraction_scale;
            each(Record { timestamp_ns, len: captured, original_len: layout.u32_at(header, 12) }, at + RECORD_HEADER);
            at += RECORD_HEADER + captured;
        }
    }
}

impl<R: Read> PcapStream<R> {
    /// Reads whole records, as they are in the file, into the front of `buffer`: about `limit`
    /// bytes of them (more when one record is larger), without waiting for more input once at
    /// least one is there. Returns none at the end of the input and when the next record is
    /// malformed or cut short: [`PcapStream::next_into`] then says which. `buffer` is grown as
    /// needed and never shrunk, so a buffer used again is not zeroed again: its bytes past
    /// [`RawRecords::end`] are left over.
    pub(crate) fn read_raw(&mut self, buffer: &mut Vec<u8>, limit: usize) -> Result<RawRecords, StreamError> {
        let limit = limit.max(RECORD_HEADER);
        if buffer.len() < limit {
            buffer.resize(limit, 0);
        }
        let mut filled = self.input.take_into(&mut buffer[..limit]);
        let mut hop = Hop::over(self.layout, &buffer[..filled]);
        while hop.count == 0 {
            let Some(needed) = hop.needed else { break };
            let want = limit.max(needed);
            if buffer.len() < want {
                buffer.resize(want, 0);
            }
            // What the block still holds comes first; the input is read once it is used up.
            let mut read = self.input.take_into(&mut buffer[filled..want]);
            if read == 0 {
                read = self.input.read_past_block(&mut buffer[filled..want]).map_err(StreamError::Io)?;
            }
            if read == 0 {
                break;
            }
            filled += read;
            hop = Hop::over(self.layout, &buffer[..filled]);
        }
        self.input.give_back(&buffer[hop.end..filled]);
        self.count += hop.count;
        Ok(RawRecords {
            layout: self.layout,
            start: 0,
            count: hop.count,
            end: hop.end,
            captured_bytes: hop.captured_bytes,
        })
    }
}

/// How far whole, valid records go from the start of some bytes.
struct Hop {
    count: usize,
    end: usize,
    captured_bytes: u64,
    /// Bytes from the start that would complete the next record; `None` when it is malformed.
    needed: Option<usize>,
}

impl Hop {
    /// The same checks as [`PcapStream::next_into`]'s; a record failing one ends the hop.
    fn over(layout: Layout, bytes: &[u8]) -> Hop {
        let (fraction_limit, _) = layout.fraction_limit_and_scale();
        let snaplen = layout.captured_limit();
        let mut hop = Hop { count: 0, end: 0, captured_bytes: 0, needed: None };
        loop {
            let Some(header) = bytes.get(hop.end..hop.end + RECORD_HEADER) else {
                hop.needed = Some(hop.end + RECORD_HEADER);
                return hop;
            };
            let captured = layout.u32_at(header, 8);
            let valid = captured as usize <= MAX_CAPTURED_LEN
                && captured <= layout.u32_at(header, 12)
                && captured <= snaplen
                && layout.u32_at(header, 4) < fraction_limit;
            if !valid {
                return hop;
            }
            let end = hop.end + RECORD_HEADER + captured as usize;
            if end > bytes.len() {
                hop.needed = Some(end);
                return hop;
            }
            hop.count += 1;
            hop.end = end;
            hop.captured_bytes += u64::from(captured);
        }
    }
}

/// A record's timestamp in nanoseconds since the epoch; a fraction of a second that is a second or
/// more is malformed.
#[inline]
fn timestamp_ns(layout: Layout, seconds: u32, fraction: u32, what: &dyn std::fmt::Display) -> Result<u64, String> {
    let (fraction_ns, limit) = if layout.nanoseconds {
        (u64::from(fraction), 1_000_000_000)
    } else {
        (u64::from(fraction) * 1_000, 1_000_000)
    };
    if fraction >= limit {
        return Err(format!(
            "{what} is malformed: its timestamp's fraction of a second ({fraction}) is {limit} or more"
        ));
    }
    Ok(u64::from(seconds) * 1_000_000_000 + fraction_ns)
}

#[cfg(test)]
mod tests {
    use super::super::blocks::BLOCK;
    use super::super::{read_captured, CaptureReader, CapturedPacket};
    use super::{PcapStream, RECORD_HEADER};

    /// A record to write: seconds, fraction of a second, captured bytes, original length.
    type RecordSpec<'a> = (u32, u32, &'a [u8], u32);

    /// A pcap image in the byte order and resolution `magic` announces (written as a big-endian
    /// number, as the format defines it): snapshot length 0, Ethernet, and `(seconds, fraction,
    /// bytes, original length)` records.
    fn image(magic: u32, big_endian: bool, records: &[RecordSpec]) -> Vec<u8> {
        let word = |w: u32| if big_endian { w.to_be_bytes() } else { w.to_le_bytes() };
        let half = |h: u16| if big_endian { h.to_be_bytes() } else { h.to_le_bytes() };
        let mut out = [&word(magic)[..], &half(2), &half(4), &word(0), &word(0), &word(0), &word(1)].concat();
        for (seconds, fraction, data, original) in records {
            out.extend([word(*seconds), word(*fraction), word(data.len() as u32), word(*original)].concat());
            out.extend_from_slice(data);
        }
        out
    }

    const MICRO: u32 = 0xa1b2_c3d4;
    const NANO: u32 = 0xa1b2_3c4d;

    fn records() -> Vec<RecordSpec<'static>> {
        vec![(1_700_000_000, 999_999, &[1, 2, 3], 3), (1_700_000_001, 5, &[0xaa; 64], 1514), (0, 0, &[], 0)]
    }

    /// What the streaming reader makes of `image` (written to a file), the file name taken out of
    /// its messages so they can be compared with the in-memory reader's.
    fn streamed(image: &[u8], name: &str) -> Result<Vec<CapturedPacket>, String> {
        let dir = p4_io::testing::scratch_dir("p4-stf-pcap-stream", name);
        let path = dir.join("in.pcap");
        std::fs::write(&path, image).unwrap();
        let prefix = format!("{}: ", path.display());
        let strip = |e: super::super::CaptureError| e.to_string().trim_start_matches(&prefix).to_string();
        let mut reader = CaptureReader::open(&path).map_err(strip)?;
        let mut packets = Vec::new();
        let one_by_one = loop {
            match reader.next_captured() {
                Ok(Some(packet)) => packets.push(packet),
                Ok(None) => break Ok(packets),
                Err(e) => break Err(strip(e)),
            }
        };
        assert_eq!(many(&path, 3).map_err(strip), one_by_one, "read_many agrees with next_captured");
        for limit in [1, 37, BLOCK] {
            assert_eq!(
                raw(&path, limit).map_err(strip),
                one_by_one,
                "read_raw with limit {limit} agrees with next_captured"
            );
        }
        one_by_one
    }

    /// The packets of `path` read through [`CaptureReader::read_raw`], about `limit` bytes at a
    /// time, and [`CaptureReader::next_captured`] for the end or the error when none are read.
    fn raw(path: &std::path::Path, limit: usize) -> Result<Vec<CapturedPacket>, super::super::CaptureError> {
        let mut reader = CaptureReader::open(path)?;
        let (mut buffer, mut packets) = (Vec::new(), Vec::new());
        loop {
            let records = reader.read_raw(&mut buffer, limit)?.expect("a classic pcap file");
            if records.count() == 0 {
                let next = reader.next_captured()?;
                assert_eq!(next, None, "read_raw stopped before a packet next_captured reads");
                return Ok(packets);
            }
            let before = packets.len();
            records.each(&buffer, |record, at| {
                let data = buffer[at..at + record.len].to_vec();
                packets.push(CapturedPacket {
                    timestamp_ns: record.timestamp_ns,
                    data,
                    original_len: record.original_len,
                });
            });
            assert_eq!(packets.len() - before, records.count());
            assert_eq!(records.first_timestamp_ns(&buffer), Some(packets[before].timestamp_ns));
            let bytes: u64 = packets[before..].iter().map(|p| p.data.len() as u64).sum();
            assert_eq!(records.captured_bytes(), bytes);
            assert_eq!(records.end(), (packets.len() - before) * RECORD_HEADER + bytes as usize);
        }
    }

    /// Hands its data out a few bytes per `read`, as a pipe may.
    struct Trickle<'a>(&'a [u8]);

    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(self.0.len()).min(5);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn raw_records_from_short_reads_are_whole_and_the_first_can_be_kept_alone() {
        let image = image(NANO, true, &records());
        let mut stream = PcapStream::open(&image[..4], Trickle(&image[4..])).map_err(|_| "open").unwrap();
        let mut buffer = vec![0xee; 3];
        let first = stream.read_raw(&mut buffer, 64).map_err(|_| "read").unwrap();
        assert_eq!(first.count(), 1, "one whole record, without waiting for the next");
        assert_eq!(first.end(), RECORD_HEADER + 3);
        let rest = stream.read_raw(&mut buffer, 1 << 10).map_err(|_| "read").unwrap();
        let mut seen = Vec::new();
        rest.each(&buffer, |record, at| seen.push((record.timestamp_ns, buffer[at..at + record.len].to_vec())));
        assert_eq!(seen, [(1_700_000_001_000_000_005, vec![0xaa; 64])], "the 64-byte record, then the block ends");
        let last = stream.read_raw(&mut buffer, 1 << 10).map_err(|_| "read").unwrap();
        assert_eq!((last.count(), last.captured_bytes()), (1, 0));
        assert_eq!(stream.read_raw(&mut buffer, 1 << 10).map_err(|_| "read").unwrap().count(), 0, "the end");

        let mut whole = PcapStream::open(&image[..4], &image[4..]).map_err(|_| "open").unwrap();
        let mut all = whole.read_raw(&mut buffer, 1 << 10).map_err(|_| "read").unwrap();
        assert_eq!((all.count(), all.captured_bytes()), (3, 67));
        let mut rest = all;
        let front = rest.take_front(2, &buffer);
        assert_eq!((front.count(), front.captured_bytes(), front.end()), (2, 67, 2 * RECORD_HEADER + 67));
        let mut last = Vec::new();
        rest.each(&buffer, |record, at| last.push((record, at)));
        assert_eq!(last, [(super::Record { timestamp_ns: 0, len: 0, original_len: 0 }, 3 * RECORD_HEADER + 67)]);
        assert_eq!((rest.count(), rest.captured_bytes(), rest.end()), (1, 0, 3 * RECORD_HEADER + 67));
        assert_eq!(rest.take_front(5, &buffer).count(), 1);
        assert_eq!(rest.count(), 0);
        all.first_only(&buffer);
        assert_eq!((all.count(), all.captured_bytes(), all.end()), (1, 3, RECORD_HEADER + 3));
    }

    /// The packets of `path` read through [`CaptureReader::read_many`], `max` at a time.
    fn many(path: &std::path::Path, max: usize) -> Result<Vec<CapturedPacket>, super::super::CaptureError> {
        let mut reader = CaptureReader::open(path)?;
        let (mut bytes, mut packets) = (Vec::new(), Vec::new());
        loop {
            let mut records = Vec::new();
            let read = reader.read_many(&mut bytes, max, |record, at| {
                records.push((record, at));
                true
            });
            for (record, at) in records {
                let data = bytes[at..at + record.len].to_vec();
                packets.push(CapturedPacket {
                    timestamp_ns: record.timestamp_ns,
                    data,
                    original_len: record.original_len,
                });
            }
            if read? < max {
                return Ok(packets);
            }
        }
    }

    #[test]
    fn records_across_many_blocks_read_as_the_pcap_file_path_reads_them() {
        let payload: Vec<u8> = (0..=255).collect();
        let records: Vec<RecordSpec> =
            (0..40_000u32).map(|i| (i, i % 1_000_000, &payload[..(i as usize * 7) % 200], 300)).collect();
        for big_endian in [false, true] {
            let image = image(MICRO, big_endian, &records);
            assert!(image.len() > 3 * BLOCK, "spans several blocks");
            let dir = p4_io::testing::scratch_dir("p4-stf-pcap-stream", "blocks");
            let path = dir.join("in.pcap");
            std::fs::write(&path, &image).unwrap();
            let want = read_captured(&image).unwrap();
            assert_eq!(want.len(), 40_000);
            assert_eq!(
                want[39_999],
                CapturedPacket {
                    timestamp_ns: 39_999_039_999_000,
                    data: payload[..(39_999 * 7) % 200].to_vec(),
                    original_len: 300
                }
            );
            assert_eq!(many(&path, 4096).unwrap(), want);
        }
    }

    #[test]
    fn both_byte_orders_and_resolutions_read_as_the_pcap_file_path_reads_them() {
        for (magic, big_endian, scale) in
            [(MICRO, false, 1_000), (MICRO, true, 1_000), (NANO, false, 1), (NANO, true, 1)]
        {
            let image = image(magic, big_endian, &records());
            let want = vec![
                CapturedPacket {
                    timestamp_ns: 1_700_000_000_000_000_000 + 999_999 * scale,
                    data: vec![1, 2, 3],
                    original_len: 3,
                },
                CapturedPacket {
                    timestamp_ns: 1_700_000_001_000_000_000 + 5 * scale,
                    data: vec![0xaa; 64],
                    original_len: 1514,
                },
                CapturedPacket { timestamp_ns: 0, data: vec![], original_len: 0 },
            ];
            let case = format!("magic {magic:08x}, big-endian {big_endian}");
            assert_eq!(streamed(&image, "orders"), Ok(want.clone()), "{case}");
            assert_eq!(read_captured(&image).map_err(|e| e.to_string()), Ok(want), "{case}");
        }
    }

    #[test]
    fn every_cut_of_a_capture_gives_the_pcap_file_paths_result() {
        for (magic, big_endian) in [(MICRO, false), (NANO, true)] {
            let image = image(magic, big_endian, &records());
            for cut in 0..=image.len() {
                let reference = read_captured(&image[..cut]).map_err(|e| e.to_string());
                assert_eq!(streamed(&image[..cut], "cuts"), reference, "cut at {cut} of {}", image.len());
            }
        }
        let image = image(NANO, false, &records());
        assert_eq!(streamed(&image[..30], "cuts"), Err("packet #1 is truncated".to_string()));
        assert_eq!(streamed(&image[..42], "cuts"), Err("packet #1 is truncated".to_string()));
        assert_eq!(streamed(&image[..20], "cuts"), Err("not a pcap or pcapng file (header is truncated)".to_string()));
        assert_eq!(streamed(&image[..2], "cuts"), Err("not a pcap or pcapng file (shorter than a header)".to_string()));
        assert_eq!(streamed(&[], "cuts"), Err("not a pcap or pcapng file (shorter than a header)".to_string()));
    }

    #[test]
    fn bad_records_are_errors_with_the_pcap_file_paths_messages() {
        let cases: [(&[RecordSpec], &str); 3] = [
            (
                &[(1, 1_000_000, &[1], 1)],
                "packet #1 is malformed: its timestamp's fraction of a second (1000000) is 1000000 or more",
            ),
            (
                &[(1, 0, &[1], 1), (1, 0, &[1, 2], 1)],
                "packet #2 is malformed: its captured length 2 exceeds its original length 1",
            ),
            (
                &[(1, 0, &[], 0), (1, 0, &[], 0), (2, 0, &[7; 9], 9)],
                "packet #3 is malformed: its captured length 9 exceeds the snapshot length 8",
            ),
        ];
        for (records, message) in cases {
            let mut image = image(MICRO, false, records);
            image[16..20].copy_from_slice(&8u32.to_le_bytes());
            assert_eq!(streamed(&image, "bad"), Err(message.to_string()));
            assert_eq!(read_captured(&image).map_err(|e| e.to_string()), Err(message.to_string()));
        }
    }

    #[test]
    fn a_record_claiming_more_than_the_bound_is_refused_before_it_is_read() {
        let mut image = image(MICRO, false, &[(1, 0, &[1, 2], 2)]);
        image[32..36].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(
            streamed(&image, "huge"),
            Err("packet #1 is malformed: its captured length 4294967295 exceeds the 7999984 bytes p4forge reads of a packet".to_string())
        );
    }

    /// A small deterministic generator (xorshift), so garbage inputs are the same on every run.
    fn garbage(seed: u64, len: usize) -> Vec<u8> {
        let mut state = seed | 1;
        (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect()
    }

    #[test]
    fn garbage_after_a_valid_header_is_an_error_not_a_panic() {
        let header = image(NANO, false, &[]);
        for seed in 1..200u64 {
            let mut input = header.clone();
            input.extend(garbage(seed, (seed as usize * 7) % 300 + 1));
            let result = streamed(&input, "garbage");
            assert!(result.is_err(), "seed {seed}: {result:?}");
        }
        let mut small_lengths = header.clone();
        // A record header with small lengths and a valid time, then garbage shorter than it claims.
        small_lengths.extend([1u32, 2, 40, 40].iter().flat_map(|w| w.to_le_bytes()));
        small_lengths.extend(garbage(3, 39));
        assert_eq!(streamed(&small_lengths, "garbage"), Err("packet #1 is truncated".to_string()));
    }
}

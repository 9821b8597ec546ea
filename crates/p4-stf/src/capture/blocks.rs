//! A reader that takes its input in large blocks and hands out slices of them, so a record parser
//! can look at a record header in place and copy a record's bytes once, to where they are used.
//! (A `BufReader` would copy every header out of its buffer, and the `pcap-file` reader spent about
//! 190 instructions per record; `p4forge run` reads millions of records.)

use std::io::{ErrorKind, Read};

/// Block size: large enough that the read system calls cost nothing per packet (a 1 MiB read holds
/// about 13,000 records of 64-byte packets), small enough to be irrelevant for memory.
pub(crate) const BLOCK: usize = 1 << 20;

/// Input read in blocks; `block[start..end]` is read and not yet consumed.
pub(crate) struct BlockReader<R> {
    inner: R,
    block: Box<[u8]>,
    start: usize,
    end: usize,
}

impl<R: Read> BlockReader<R> {
    /// A reader whose first bytes are `already_read` (e.g. a magic number read to tell the format),
    /// then the rest of `inner`. `already_read` must be shorter than a block.
    pub(crate) fn new(already_read: &[u8], inner: R) -> BlockReader<R> {
        let mut block = vec![0; BLOCK].into_boxed_slice();
        let end = already_read.len().min(BLOCK);
        block[..end].copy_from_slice(&already_read[..end]);
        BlockReader { inner, block, start: 0, end }
    }

    /// The next `n` bytes (`n` at most [`BLOCK`]) without consuming them; fewer only when the input
    /// ends first (what is left of it then, possibly nothing).
    #[inline]
    pub(crate) fn peek(&mut self, n: usize) -> std::io::Result<&[u8]> {
        if self.end - self.start < n {
            self.fill(n)?;
        }
        let available = n.min(self.end - self.start);
        Ok(&self.block[self.start..self.start + available])
    }

    /// The bytes read and not yet consumed (possibly none), without reading more.
    #[inline]
    pub(crate) fn buffered(&self) -> &[u8] {
        &self.block[self.start..self.end]
    }

    /// Consumes `n` bytes that [`BlockReader::peek`] or [`BlockReader::buffered`] showed.
    #[inline]
    pub(crate) fn consume(&mut self, n: usize) {
        self.start = (self.start + n).min(self.end);
    }

    /// Appends the next `n` bytes (any number) to `out`; `Ok(false)` if the input ended first (what
    /// there was is then appended).
    #[inline]
    pub(crate) fn append_to(&mut self, n: usize, out: &mut Vec<u8>) -> std::io::Result<bool> {
        let mut left = n;
        loop {
            let take = left.min(self.end - self.start);
            out.extend_from_slice(&self.block[self.start..self.start + take]);
            self.start += take;
            left -= take;
            if left == 0 {
                return Ok(true);
            }
            // The block is used up: start a new one.
            if self.fill(left.min(BLOCK))? == 0 {
                return Ok(false);
            }
        }
    }

    /// Moves up to `out.len()` buffered bytes to the front of `out`, consuming them; returns how many.
    pub(crate) fn take_into(&mut self, out: &mut [u8]) -> usize {
        let n = out.len().min(self.end - self.start);
        out[..n].copy_from_slice(&self.block[self.start..self.start + n]);
        self.start += n;
        n
    }

    /// One read from the input straight into `out`, past the block (which must hold nothing
    /// unconsumed, or the bytes would come out of order); `Ok(0)` at the end of the input.
    pub(crate) fn read_past_block(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        debug_assert_eq!(self.start, self.end, "buffered bytes would be skipped");
        loop {
            match self.inner.read(out) {
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                result => return result,
            }
        }
    }

    /// Puts `bytes` (taken or read past the block, and not used) back in front of what is buffered,
    /// so they are the next ones read; the block grows if they do not fit.
    pub(crate) fn give_back(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        if self.start < bytes.len() {
            let buffered = self.end - self.start;
            if bytes.len() + buffered > self.block.len() {
                let mut bigger = vec![0; bytes.len() + buffered].into_boxed_slice();
                bigger[bytes.len()..].copy_from_slice(&self.block[self.start..self.end]);
                self.block = bigger;
            } else {
                self.block.copy_within(self.start..self.end, bytes.len());
            }
            self.start = bytes.len();
            self.end = bytes.len() + buffered;
        }
        self.start -= bytes.len();
        self.block[self.start..self.start + bytes.len()].copy_from_slice(bytes);
    }

    /// Moves the unconsumed bytes to the front of the block and reads until at least `n` are there
    /// or the input ends. Returns how many are there.
    #[cold]
    fn fill(&mut self, n: usize) -> std::io::Result<usize> {
        self.block.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        while self.end < n {
            match self.inner.read(&mut self.block[self.end..]) {
                Ok(0) => break,
                Ok(read) => self.end += read,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
        Ok(self.end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hands its data out a few bytes per `read`, as a pipe may.
    struct Trickle<'a>(&'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(self.0.len()).min(3);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn peeks_and_appends_across_short_reads() {
        let mut reader = BlockReader::new(&[1, 2], Trickle(&[3, 4, 5, 6, 7, 8, 9]));
        assert_eq!(reader.peek(4).unwrap(), [1, 2, 3, 4]);
        reader.consume(3);
        let mut out = vec![0xee];
        assert!(reader.append_to(5, &mut out).unwrap());
        assert_eq!(out, [0xee, 4, 5, 6, 7, 8]);
        assert_eq!(reader.peek(16).unwrap(), [9], "fewer bytes when the input ends");
        reader.consume(1);
        assert_eq!(reader.peek(16).unwrap(), [] as [u8; 0]);
        assert!(!reader.append_to(1, &mut out).unwrap());
    }

    #[test]
    fn bytes_given_back_come_first_even_when_the_block_must_grow() {
        let mut reader = BlockReader::new(&[1, 2, 3], Trickle(&[4, 5]));
        let mut out = [0u8; 2];
        assert_eq!(reader.take_into(&mut out), 2);
        assert_eq!(out, [1, 2]);
        reader.give_back(&[2]);
        assert_eq!(reader.peek(2).unwrap(), [2, 3]);
        let mut all = [0u8; 8];
        assert_eq!(reader.take_into(&mut all), 2);
        assert_eq!(reader.read_past_block(&mut all).unwrap(), 2, "a pipe's short read");
        assert_eq!(all[..2], [4, 5]);
        let big: Vec<u8> = (0..BLOCK + 10).map(|i| (i % 253) as u8).collect();
        reader.give_back(&big);
        let mut back = Vec::new();
        assert!(reader.append_to(big.len(), &mut back).unwrap());
        assert_eq!(back, big);
        assert_eq!(reader.read_past_block(&mut all).unwrap(), 0, "the end of the input");
    }

    #[test]
    fn a_record_larger_than_a_block_is_appended_whole() {
        let data: Vec<u8> = (0..BLOCK * 2 + 5).map(|i| (i % 251) as u8).collect();
        let mut reader = BlockReader::new(&[], &data[..]);
        reader.peek(7).unwrap();
        let mut out = Vec::new();
        assert!(reader.append_to(data.len(), &mut out).unwrap());
        assert_eq!(out, data);
        let mut short = BlockReader::new(&[], &data[..10]);
        let mut partial = Vec::new();
        assert!(!short.append_to(11, &mut partial).unwrap());
        assert_eq!(partial, data[..10]);
    }
}

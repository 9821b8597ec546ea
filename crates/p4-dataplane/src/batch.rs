//! The batch interface of the software switch: many packets in one call, results written into
//! buffers the caller owns and reuses, drop reasons as codes.
//!
//! Why: the per-packet interface ([`crate::control::PacketIo::inject`]) returns an owned
//! [`crate::control::Injected`] (a `Vec` per output packet, a `String` per drop). A caller that
//! clears and reuses one [`BatchOut`] gets every packet's outputs as ranges of one byte buffer and its
//! drops as [`DropReason`] codes, so a unicast or dropped packet allocates nothing once the buffers
//! have grown to the batch's size (`tests/allocations.rs`, `zero_alloc_*`). Text is made only when a
//! reason is shown ([`crate::Switch::drop_text`]).

use std::sync::Arc;

/// One packet offered to [`crate::Switch::process_batch`].
#[derive(Clone, Copy, Debug)]
pub struct PacketIn<'a> {
    /// The ingress port.
    pub port: u32,
    pub data: &'a [u8],
    /// Nanoseconds since the start of the run (ingress timestamp, meters).
    pub now_ns: u64,
}

/// Why one copy of a packet was dropped. [`crate::Switch::drop_text`] renders it as the line
/// [`crate::control::Injected::drops`] holds.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// The ingress port does not fit the architecture's port fields; the packet was not processed.
    PortTooWide(u32),
    /// A block (control index) called the architecture's drop function; `error` is the
    /// packet's parser error code (0: none).
    Marked { control: u32, error: u32 },
    /// The drop marker field (v1model: `egress_spec`) holds the drop value.
    DropValue { error: u32 },
    /// The drop flag (PSA's output metadata `drop`) was set when the control (index) ended;
    /// `error` as in `Marked`.
    DropFlag { control: u32, error: u32 },
    /// A failed `assert`/`assume`, with its description (`assert failed in I`).
    Aborted(Arc<str>),
    /// The multicast group the packet was sent to has no members.
    EmptyGroup(u32),
    /// More re-parses (resubmit or recirculate) than [`crate::MAX_LOOPS`].
    TooManyLoops(p4_arch::SideEffect),
    /// One packet caused more copies than the switch makes; the rest were dropped.
    TooManyCopies(usize),
    /// A drop another dataplane behind the same batch interface reported, with its reason (the
    /// hardware target's simulation).
    Reported(Arc<str>),
}

/// A packet the switch sent: `bytes[start..start + len]` of the [`BatchOut`] it is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchPacket {
    /// Index of the input packet (in the batch) that caused it.
    pub input: u32,
    /// The egress port.
    pub port: u32,
    pub start: usize,
    pub len: usize,
    /// Where the packet asked for its transmit time to be written as it leaves (the
    /// architecture's transmit-timestamp request, OP4T's `tx_ts` and `ts_pos`): 8 bytes,
    /// big-endian, p4forge's time format ([`p4_ir::time`]), from this byte offset;
    /// [`BatchOut::write_tx_stamps`] writes them.
    pub tx_stamp_at: Option<u16>,
}

/// A dropped copy of the input packet `input`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchDrop {
    pub input: u32,
    pub reason: DropReason,
}

/// What a batch produced, in the order the switch produced it. Reuse one across batches: each
/// [`crate::Switch::process_batch`] clears it first and keeps its capacity.
#[derive(Clone, Debug, Default)]
pub struct BatchOut {
    /// Every output packet's bytes, back to back.
    pub bytes: Vec<u8>,
    pub packets: Vec<BatchPacket>,
    pub drops: Vec<BatchDrop>,
    /// `log_msg` lines and digests, with the input packet that printed them.
    pub log: Vec<(u32, String)>,
    /// Digests, with the input packet that sent them.
    pub digests: Vec<(u32, p4_control::Digest)>,
    /// A traced switch's trace ([`crate::Switch::new_traced`]), with the input packet of each step.
    pub trace: Vec<(u32, crate::trace::Event)>,
    /// The input packet being processed (set by the switch).
    pub(crate) input: u32,
}

impl BatchOut {
    /// Empties the buffers, keeping their capacity.
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.packets.clear();
        self.drops.clear();
        self.log.clear();
        self.digests.clear();
        self.trace.clear();
        self.input = 0;
    }

    /// The bytes of an output packet of this batch.
    pub fn data(&self, packet: &BatchPacket) -> &[u8] {
        self.bytes.get(packet.start..packet.start + packet.len).unwrap_or(&[])
    }

    /// Appends output packet `data`, leaving on `port`, of input packet `input` (a dataplane
    /// filling a batch's results from its own).
    pub fn push_output(&mut self, input: u32, port: u32, data: &[u8]) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(data);
        self.packets.push(BatchPacket { input, port, start, len: data.len(), tx_stamp_at: None });
    }

    /// Records as an output packet of the current input the bytes appended to `bytes` since
    /// `start` (a deparser that wrote straight into the batch's buffer).
    pub(crate) fn push_written(&mut self, port: u32, start: usize) {
        let start = start.min(self.bytes.len());
        self.packets.push(BatchPacket { input: self.input, port, start, len: self.bytes.len() - start, tx_stamp_at: None });
    }

    /// Records as an output packet of the current input `len` bytes of `bytes` from `start` (a
    /// writer that had the buffer lent while it wrote them).
    pub(crate) fn push_range(&mut self, port: u32, start: usize, len: usize) {
        self.packets.push(BatchPacket { input: self.input, port, start, len, tx_stamp_at: None });
    }

    /// Asks for the transmit time of the output packet appended last to be written into it at
    /// byte `offset` (see [`BatchPacket::tx_stamp_at`]).
    pub(crate) fn ask_tx_stamp(&mut self, offset: u16) {
        if let Some(p) = self.packets.last_mut() {
            p.tx_stamp_at = Some(offset);
        }
    }

    /// Writes each output packet's transmit time where it asked for it: `time_ns(input)` of its
    /// input packet, in p4forge's time format, 8 bytes big-endian from its offset. As a port's
    /// timestamp unit does, bytes past the packet's end are not written (it is not lengthened).
    pub fn write_tx_stamps(&mut self, time_ns: impl Fn(u32) -> u64) {
        for p in &self.packets {
            let Some(at) = p.tx_stamp_at else { continue };
            let stamp = p4_ir::time::stamp(time_ns(p.input)).to_be_bytes();
            let at = usize::from(at);
            let fits = stamp.len().min(p.len.saturating_sub(at));
            if let Some(bytes) = self.bytes.get_mut(p.start + at..p.start + at + fits) {
                bytes.copy_from_slice(&stamp[..fits]);
            }
        }
    }

    /// Appends an output packet of the current input: `parts` back to back, cut to `truncate` bytes.
    pub(crate) fn push_packet(&mut self, port: u32, parts: [&[u8]; 2], truncate: Option<u32>) {
        let start = self.bytes.len();
        for part in parts {
            self.bytes.extend_from_slice(part);
        }
        if let Some(n) = truncate {
            self.bytes.truncate(start + (n as usize).min(self.bytes.len() - start));
        }
        self.packets.push(BatchPacket { input: self.input, port, start, len: self.bytes.len() - start, tx_stamp_at: None });
    }

    pub(crate) fn push_drop(&mut self, reason: DropReason) {
        self.drops.push(BatchDrop { input: self.input, reason });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packets_are_ranges_of_one_buffer_and_truncation_cuts_them() {
        let mut out = BatchOut::default();
        out.push_packet(3, [&[1, 2], &[3, 4, 5]], None);
        out.input = 1;
        out.push_packet(4, [&[6, 7], &[8, 9]], Some(3));
        out.push_packet(5, [&[], &[1]], Some(9));
        assert_eq!(out.bytes, vec![1, 2, 3, 4, 5, 6, 7, 8, 1]);
        assert_eq!(
            out.packets,
            vec![
                BatchPacket { input: 0, port: 3, start: 0, len: 5, tx_stamp_at: None },
                BatchPacket { input: 1, port: 4, start: 5, len: 3, tx_stamp_at: None },
                BatchPacket { input: 1, port: 5, start: 8, len: 1, tx_stamp_at: None },
            ]
        );
        assert_eq!(out.data(&out.packets[1]), &[6, 7, 8]);
        let capacity = out.bytes.capacity();
        out.clear();
        assert!(out.bytes.is_empty() && out.packets.is_empty());
        assert_eq!(out.bytes.capacity(), capacity);
    }

    #[test]
    fn transmit_stamps_go_where_each_packet_asked_and_never_past_its_end() {
        let mut out = BatchOut::default();
        out.push_packet(0, [&[0xaa; 12], &[]], None);
        out.ask_tx_stamp(2);
        out.input = 1;
        out.push_packet(1, [&[0xbb; 4], &[]], None);
        out.input = 2;
        out.push_packet(2, [&[0xcc; 10], &[]], None);
        out.ask_tx_stamp(6);
        out.push_packet(3, [&[0xdd; 3], &[]], None);
        out.ask_tx_stamp(40);
        // 1,234,567 ns = 1234 us and 567 ns: (1234 << 10) | 567 = 0x13_4A37.
        out.write_tx_stamps(|input| 1_234_567 + u64::from(input));
        assert_eq!(out.data(&out.packets[0]), &[0xaa, 0xaa, 0, 0, 0, 0, 0, 0x13, 0x4a, 0x37, 0xaa, 0xaa]);
        assert_eq!(out.data(&out.packets[1]), &[0xbb; 4]);
        // Input 2's time, 0x13_4A39, cut after the packet's last byte.
        assert_eq!(out.data(&out.packets[2]), &[0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0, 0, 0, 0]);
        assert_eq!(out.data(&out.packets[3]), &[0xdd; 3]);
        assert_eq!(out.packets.iter().map(|p| p.tx_stamp_at).collect::<Vec<_>>(), [Some(2), None, Some(6), Some(40)]);
    }
}

//! 64b/66b blocks of IEEE 802.3 clause 49 and their field layouts.
//!
//! Bit order invariant: every field is stored LSB-first in transmission order. A block's
//! 66 bits are `sync` (bits 0–1, bit 0 sent first) followed by `payload` (bits 2–65, payload
//! bit 0 sent first). Octet lane `k` of a data block is payload bits `8k..8k+8`, so a data
//! payload is `u64::from_le_bytes(lanes)`. A control block's payload starts with the 8-bit
//! block type field, then the lane fields of its format (7-bit control codes, 4-bit ordered
//! set codes, 8-bit data octets, zero padding) in lane order.
//!
//! This module is the single place that knows the layouts; the XGMII codec
//! ([`crate::codec`]) and the frame fast paths ([`crate::tx`], [`crate::rx`]) build and read
//! blocks only through it.

/// The two-bit synchronisation header, as the integer whose bit 0 is sent first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncHeader {
    /// Transmitted `0` then `1`: eight data octets follow.
    Data,
    /// Transmitted `1` then `0`: a block type field and control information follow.
    Control,
    /// `00` or `11`: never sent by a conforming PCS; counted by block lock and the decoder.
    Invalid(u8),
}

impl SyncHeader {
    /// Integer value of a data header (bit 0 = first bit on the line = 0, bit 1 = 1).
    pub const DATA_BITS: u8 = 0b10;
    /// Integer value of a control header (first bit 1, second bit 0).
    pub const CONTROL_BITS: u8 = 0b01;

    /// Classify the low two bits of `bits`.
    pub const fn from_bits(bits: u8) -> SyncHeader {
        match bits & 0b11 {
            Self::DATA_BITS => SyncHeader::Data,
            Self::CONTROL_BITS => SyncHeader::Control,
            other => SyncHeader::Invalid(other),
        }
    }

    /// True for the two headers a conforming transmitter sends.
    pub const fn is_valid(bits: u8) -> bool {
        matches!(bits & 0b11, Self::DATA_BITS | Self::CONTROL_BITS)
    }
}

/// One 66-bit block: two sync bits and a 64-bit payload (scrambled or not, depending on
/// where in the pipeline it is). `repr(C)` fixes the payload at byte offset 8 of a 16-byte
/// block, which the vector scrambler and descrambler rely on to load payloads in bulk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct Block66 {
    /// Sync header, LSB-first (see [`SyncHeader`]); only the low two bits are meaningful.
    pub sync: u8,
    /// Payload bits, bit 0 transmitted first.
    pub payload: u64,
}

/// 7-bit control codes of 10GBASE-R (clause 49 table 49-1) and their XGMII octets.
pub mod ctrl {
    /// Idle /I/ (XGMII 0x07).
    pub const IDLE: u8 = 0x00;
    /// Low-power idle /LI/ (XGMII 0x06).
    pub const LPI: u8 = 0x06;
    /// Error /E/ (XGMII 0xFE).
    pub const ERROR: u8 = 0x1e;
    /// Ordered-set code of a sequence ordered set /Q/ (XGMII 0x9C in the O lane).
    pub const O_SEQUENCE: u8 = 0x0;
    /// Ordered-set code of a signal ordered set /Fsig/ (XGMII 0x5C in the O lane).
    pub const O_SIGNAL: u8 = 0xf;

    /// XGMII idle octet.
    pub const X_IDLE: u8 = 0x07;
    /// XGMII low-power idle octet.
    pub const X_LPI: u8 = 0x06;
    /// XGMII start octet /S/.
    pub const X_START: u8 = 0xfb;
    /// XGMII terminate octet /T/.
    pub const X_TERMINATE: u8 = 0xfd;
    /// XGMII error octet /E/.
    pub const X_ERROR: u8 = 0xfe;
    /// XGMII sequence ordered-set octet /Q/.
    pub const X_SEQUENCE: u8 = 0x9c;
    /// XGMII signal ordered-set octet /Fsig/.
    pub const X_SIGNAL: u8 = 0x5c;

    /// (XGMII octet, 7-bit code) for every control character that has a 7-bit code.
    const TABLE: [(u8, u8); 9] = [
        (X_IDLE, IDLE),
        (X_LPI, LPI),
        (0x1c, 0x2d),
        (0x3c, 0x33),
        (0x7c, 0x4b),
        (0xbc, 0x55),
        (0xdc, 0x66),
        (0xf7, 0x78),
        (X_ERROR, ERROR),
    ];

    /// 7-bit code of an XGMII control octet, if it has one (S, T and O octets do not).
    pub fn to_code(xgmii: u8) -> Option<u8> {
        TABLE.iter().find(|(x, _)| *x == xgmii).map(|(_, c)| *c)
    }

    /// XGMII octet of a 7-bit control code, if the code is defined.
    pub fn from_code(code: u8) -> Option<u8> {
        TABLE.iter().find(|(_, c)| *c == code).map(|(x, _)| *x)
    }

    /// 4-bit ordered-set code of an XGMII O-lane octet.
    pub fn to_o_code(xgmii: u8) -> Option<u8> {
        match xgmii {
            X_SEQUENCE => Some(O_SEQUENCE),
            X_SIGNAL => Some(O_SIGNAL),
            _ => None,
        }
    }

    /// XGMII O-lane octet of a 4-bit ordered-set code.
    pub fn from_o_code(code: u8) -> Option<u8> {
        match code {
            O_SEQUENCE => Some(X_SEQUENCE),
            O_SIGNAL => Some(X_SIGNAL),
            _ => None,
        }
    }
}

/// Block type field values of clause 49 figure 49-7.
pub mod btype {
    /// C0..C7: eight control characters (idle, error, ...).
    pub const CONTROL: u8 = 0x1e;
    /// C0..C3 / O4 D5 D6 D7.
    pub const CTRL_ORDERED4: u8 = 0x2d;
    /// C0..C3 / S4 D5 D6 D7: start in lane 4.
    pub const START4: u8 = 0x33;
    /// O0 D1 D2 D3 / S4 D5 D6 D7.
    pub const ORDERED_START4: u8 = 0x66;
    /// O0 D1 D2 D3 / O4 D5 D6 D7.
    pub const ORDERED_ORDERED: u8 = 0x55;
    /// S0 D1..D7: start in lane 0.
    pub const START0: u8 = 0x78;
    /// O0 D1 D2 D3 / C4..C7.
    pub const ORDERED_CTRL: u8 = 0x4b;
    /// Terminate with 0..=7 data octets before /T/, indexed by the number of data octets.
    pub const TERMINATE: [u8; 8] = [0x87, 0x99, 0xaa, 0xb4, 0xcc, 0xd2, 0xe1, 0xff];

    /// Number of data octets of a terminate block type, or `None` for any other value.
    pub const fn terminate_len(t: u8) -> Option<usize> {
        match t {
            0x87 => Some(0),
            0x99 => Some(1),
            0xaa => Some(2),
            0xb4 => Some(3),
            0xcc => Some(4),
            0xd2 => Some(5),
            0xe1 => Some(6),
            0xff => Some(7),
            _ => None,
        }
    }
}

/// Mask of the low `bits` bits (`bits` ≤ 64).
#[inline]
pub(crate) const fn low_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// `n` copies of the 7-bit code `code`, packed from bit 0.
const fn repeat7(code: u8, n: u32) -> u64 {
    let mut v = 0u64;
    let mut i = 0;
    while i < n {
        v |= ((code & 0x7f) as u64) << (7 * i);
        i += 1;
    }
    v
}

/// Pack `codes` (7 bits each) starting at payload bit `at`.
#[inline]
fn pack7(codes: &[u8], at: u32) -> u64 {
    let mut v = 0u64;
    for (i, c) in codes.iter().enumerate() {
        v |= u64::from(c & 0x7f) << (at + 7 * i as u32);
    }
    v
}

/// Unpack `N` 7-bit codes starting at payload bit `at`.
#[inline]
fn unpack7<const N: usize>(payload: u64, at: u32) -> [u8; N] {
    let mut out = [0u8; N];
    for (i, o) in out.iter_mut().enumerate() {
        *o = (payload.checked_shr(at + 7 * i as u32).unwrap_or(0) & 0x7f) as u8;
    }
    out
}

impl Block66 {
    /// A block of eight idle control characters (type 0x1e, all codes zero).
    pub const IDLE: Block66 = Block66 { sync: SyncHeader::CONTROL_BITS, payload: btype::CONTROL as u64 };

    /// A block of eight /E/ characters: what a decoder substitutes for an invalid block.
    pub const ERROR: Block66 = Block66::control(btype::CONTROL, repeat7(ctrl::ERROR, 8));

    /// The 66 bits as one integer, bit 0 = first bit on the line.
    pub const fn to_bits(self) -> u128 {
        (self.sync & 0b11) as u128 | (self.payload as u128) << 2
    }

    /// Inverse of [`Block66::to_bits`] (bits above 65 are ignored).
    pub const fn from_bits(bits: u128) -> Block66 {
        Block66 { sync: (bits & 0b11) as u8, payload: (bits >> 2) as u64 }
    }

    /// Data block carrying eight octets (`u64::from_le_bytes(lanes)`).
    #[inline]
    pub const fn data(payload: u64) -> Block66 {
        Block66 { sync: SyncHeader::DATA_BITS, payload }
    }

    /// Control block with type `t` and the 56 bits after the type field.
    #[inline]
    pub const fn control(t: u8, rest: u64) -> Block66 {
        Block66 { sync: SyncHeader::CONTROL_BITS, payload: t as u64 | rest << 8 }
    }

    /// Type 0x1e block of eight 7-bit control codes.
    pub fn control_codes(codes: [u8; 8]) -> Block66 {
        Block66::control(btype::CONTROL, pack7(&codes, 0))
    }

    /// Start in lane 0 (type 0x78); `d` holds octets D1..D7 in its low 56 bits, D1 lowest.
    #[inline]
    pub const fn start0(d: u64) -> Block66 {
        Block66::control(btype::START0, d & low_mask(56))
    }

    /// Start in lane 4 after control codes C0..C3 (type 0x33); `d` holds D5..D7 (24 bits).
    pub fn start4(c: [u8; 4], d: u64) -> Block66 {
        Block66::control(btype::START4, pack7(&c, 0) | (d & low_mask(24)) << 32)
    }

    /// Terminate after `k` data octets (0..=7, taken from the low bytes of `d`) followed by
    /// control codes for lanes k+1..8 (`c`, only the first 7-k are used).
    #[inline]
    pub fn terminate(k: usize, d: u64, c: [u8; 7]) -> Block66 {
        let k = k.min(7);
        let data_bits = 8 * k as u32;
        let rest = (d & low_mask(data_bits)) | pack7(&c[..7 - k], data_bits + (7 - k as u32));
        Block66::control(btype::TERMINATE[k], rest)
    }

    /// Terminate after `k` data octets with idles in the remaining lanes (the TX fast path).
    #[inline]
    pub fn terminate_idle(k: usize, d: u64) -> Block66 {
        let k = k.min(7);
        Block66::control(btype::TERMINATE[k], d & low_mask(8 * k as u32))
    }

    /// Type 0x2d: C0..C3, ordered set code O4, data D5..D7.
    pub fn ctrl_ordered4(c: [u8; 4], o4: u8, d: u64) -> Block66 {
        Block66::control(btype::CTRL_ORDERED4, pack7(&c, 0) | u64::from(o4 & 0xf) << 28 | (d & low_mask(24)) << 32)
    }

    /// Type 0x66: D1..D3 and O0 of an ordered set, then start in lane 4 with D5..D7.
    pub fn ordered_start4(d123: u64, o0: u8, d567: u64) -> Block66 {
        Block66::control(
            btype::ORDERED_START4,
            (d123 & low_mask(24)) | u64::from(o0 & 0xf) << 24 | (d567 & low_mask(24)) << 32,
        )
    }

    /// Type 0x55: two ordered sets (D1..D3, O0, O4, D5..D7).
    pub fn ordered_ordered(d123: u64, o0: u8, o4: u8, d567: u64) -> Block66 {
        Block66::control(
            btype::ORDERED_ORDERED,
            (d123 & low_mask(24)) | u64::from(o0 & 0xf) << 24 | u64::from(o4 & 0xf) << 28 | (d567 & low_mask(24)) << 32,
        )
    }

    /// Type 0x4b: ordered set in lane 0 (D1..D3, O0), control codes C4..C7.
    pub fn ordered_ctrl(d123: u64, o0: u8, c: [u8; 4]) -> Block66 {
        Block66::control(btype::ORDERED_CTRL, (d123 & low_mask(24)) | u64::from(o0 & 0xf) << 24 | pack7(&c, 28))
    }

    /// Block type field (meaningful for control blocks).
    #[inline]
    pub const fn block_type(self) -> u8 {
        self.payload as u8
    }

    /// The 56 bits after the block type field.
    #[inline]
    pub const fn rest(self) -> u64 {
        self.payload >> 8
    }

    /// Read the block's fields according to its sync header and type.
    pub fn fields(self) -> Result<Fields, BlockError> {
        match SyncHeader::from_bits(self.sync) {
            SyncHeader::Data => return Ok(Fields::Data(self.payload)),
            SyncHeader::Invalid(h) => return Err(BlockError::SyncHeader(h)),
            SyncHeader::Control => {}
        }
        let r = self.rest();
        let d123 = r & low_mask(24);
        let o0 = ((r >> 24) & 0xf) as u8;
        let o4 = ((r >> 28) & 0xf) as u8;
        let d567 = (r >> 32) & low_mask(24);
        let t = self.block_type();
        Ok(match t {
            btype::CONTROL => Fields::Control(unpack7::<8>(r, 0)),
            btype::START0 => Fields::Start0(r),
            btype::START4 => Fields::Start4(unpack7::<4>(r, 0), d567),
            btype::CTRL_ORDERED4 => Fields::CtrlOrdered4(unpack7::<4>(r, 0), o4, d567),
            btype::ORDERED_START4 => Fields::OrderedStart4(d123, o0, d567),
            btype::ORDERED_ORDERED => Fields::OrderedOrdered(d123, o0, o4, d567),
            btype::ORDERED_CTRL => Fields::OrderedCtrl(d123, o0, unpack7::<4>(r, 28)),
            _ => match btype::terminate_len(t) {
                Some(k) => {
                    let data_bits = 8 * k as u32;
                    let mut c = unpack7::<7>(r, data_bits + (7 - k as u32));
                    for x in c.iter_mut().skip(7 - k) {
                        *x = 0;
                    }
                    Fields::Terminate(k, r & low_mask(data_bits), c)
                }
                None => return Err(BlockError::BlockType(t)),
            },
        })
    }
}

/// The decoded fields of a block (data octets packed little-endian, LSB = lowest lane).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fields {
    /// Eight data octets.
    Data(u64),
    /// Eight 7-bit control codes (type 0x1e).
    Control([u8; 8]),
    /// Start in lane 0; D1..D7 in the low 56 bits.
    Start0(u64),
    /// C0..C3, start in lane 4, D5..D7.
    Start4([u8; 4], u64),
    /// C0..C3, O4, D5..D7 (type 0x2d).
    CtrlOrdered4([u8; 4], u8, u64),
    /// D1..D3, O0, start in lane 4, D5..D7 (type 0x66).
    OrderedStart4(u64, u8, u64),
    /// D1..D3, O0, O4, D5..D7 (type 0x55).
    OrderedOrdered(u64, u8, u8, u64),
    /// D1..D3, O0, C4..C7 (type 0x4b).
    OrderedCtrl(u64, u8, [u8; 4]),
    /// `k` data octets, /T/ in lane k, control codes for lanes k+1.. (unused entries zero).
    Terminate(usize, u64, [u8; 7]),
}

/// Why a block cannot be decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BlockError {
    /// Sync header `00` or `11`.
    #[error("invalid sync header {0:#04b}")]
    SyncHeader(u8),
    /// A control block whose type field is not one of clause 49's fifteen values.
    #[error("invalid block type field {0:#04x}")]
    BlockType(u8),
    /// A control code that clause 49 does not define.
    #[error("invalid 7-bit control code {0:#04x}")]
    ControlCode(u8),
    /// An ordered-set code other than /Q/ (0x0) or /Fsig/ (0xF).
    #[error("invalid ordered-set code {0:#03x}")]
    OrderedSetCode(u8),
}

//! The clause 49 64b/66b encoder and decoder at the XGMII interface.
//!
//! An [`Xgmii`] word is one 64-bit XGMII transfer: eight octet lanes plus one control flag
//! per lane. [`encode`] maps every word that has a 64b/66b encoding to its block (all fifteen
//! control block formats and data blocks) and [`decode`] is its exact inverse; words without
//! an encoding and undecodable blocks are reported as errors, which [`encode_or_error`] and
//! [`decode_or_error`] turn into the /E/ substitutions a real PCS makes.

use crate::block::{btype, ctrl, Block66, BlockError, Fields};

/// One XGMII transfer: lane `k` is `data[k]`, a control character iff bit `k` of `ctrl` is set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Xgmii {
    /// Octet of each lane.
    pub data: [u8; 8],
    /// Bit `k` set: lane `k` carries a control character.
    pub ctrl: u8,
}

impl Xgmii {
    /// Eight idle characters.
    pub const IDLE: Xgmii = Xgmii { data: [ctrl::X_IDLE; 8], ctrl: 0xff };
    /// Eight error characters.
    pub const ERROR: Xgmii = Xgmii { data: [ctrl::X_ERROR; 8], ctrl: 0xff };

    fn is(&self, lane: usize, octet: u8) -> bool {
        self.ctrl & (1 << lane) != 0 && self.data[lane] == octet
    }

    fn data64(&self) -> u64 {
        u64::from_le_bytes(self.data)
    }

    /// 7-bit codes of control lanes `from..from+N`.
    fn codes<const N: usize>(&self, from: usize) -> Result<[u8; N], EncodeError> {
        let mut out = [0u8; N];
        for (i, o) in out.iter_mut().enumerate() {
            let x = self.data[from + i];
            *o = ctrl::to_code(x).ok_or(EncodeError::NoCode { lane: from + i, octet: x })?;
        }
        Ok(out)
    }

    fn o_code(&self, lane: usize) -> Option<u8> {
        if self.ctrl & (1 << lane) == 0 {
            return None;
        }
        ctrl::to_o_code(self.data[lane])
    }
}

/// Why an XGMII word has no 64b/66b encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// The arrangement of control and data lanes matches no block format.
    #[error("control mask {ctrl:#04x} with these characters matches no 64b/66b block format")]
    NoFormat {
        /// The word's control mask.
        ctrl: u8,
    },
    /// A control lane holds an octet that has no 7-bit code in that position.
    #[error("lane {lane}: control octet {octet:#04x} has no 7-bit code")]
    NoCode {
        /// Lane index.
        lane: usize,
        /// The offending octet.
        octet: u8,
    },
}

/// Encode one XGMII word as a (not yet scrambled) block.
pub fn encode(w: &Xgmii) -> Result<Block66, EncodeError> {
    let d = w.data64();
    let c = w.ctrl;
    if c == 0 {
        return Ok(Block66::data(d));
    }
    if c == 0x01 && w.is(0, ctrl::X_START) {
        return Ok(Block66::start0(d >> 8));
    }
    if c == 0x1f {
        if w.is(4, ctrl::X_START) {
            return Ok(Block66::start4(w.codes::<4>(0)?, d >> 40));
        }
        if let Some(o4) = w.o_code(4) {
            return Ok(Block66::ctrl_ordered4(w.codes::<4>(0)?, o4, d >> 40));
        }
    }
    if let Some(o0) = w.o_code(0) {
        match c {
            0x11 if w.is(4, ctrl::X_START) => return Ok(Block66::ordered_start4(d >> 8, o0, d >> 40)),
            0x11 => {
                if let Some(o4) = w.o_code(4) {
                    return Ok(Block66::ordered_ordered(d >> 8, o0, o4, d >> 40));
                }
            }
            0xf1 => return Ok(Block66::ordered_ctrl(d >> 8, o0, w.codes::<4>(4)?)),
            _ => {}
        }
    }
    // Terminate: k data lanes, /T/ in lane k, control codes after it.
    let k = c.trailing_zeros() as usize;
    if k < 8 && c == 0xffu8 << k && w.is(k, ctrl::X_TERMINATE) {
        let mut codes = [ctrl::IDLE; 7];
        for (i, slot) in codes.iter_mut().enumerate().take(7 - k) {
            let lane = k + 1 + i;
            let x = w.data[lane];
            *slot = ctrl::to_code(x).ok_or(EncodeError::NoCode { lane, octet: x })?;
        }
        return Ok(Block66::terminate(k, d, codes));
    }
    if c == 0xff {
        return Ok(Block66::control_codes(w.codes::<8>(0)?));
    }
    Err(EncodeError::NoFormat { ctrl: c })
}

/// [`encode`], substituting the error block (eight /E/) for an unencodable word as clause 49's
/// transmit state machine does.
pub fn encode_or_error(w: &Xgmii) -> Block66 {
    encode(w).unwrap_or(Block66::ERROR)
}

fn xcode(code: u8) -> Result<u8, BlockError> {
    ctrl::from_code(code).ok_or(BlockError::ControlCode(code))
}

fn xo(code: u8) -> Result<u8, BlockError> {
    ctrl::from_o_code(code).ok_or(BlockError::OrderedSetCode(code))
}

/// Write `n` data octets from `bits` (lowest first) into lanes `from..from+n`.
fn put_data(w: &mut Xgmii, from: usize, n: usize, bits: u64) {
    for i in 0..n {
        w.data[from + i] = (bits >> (8 * i)) as u8;
    }
}

fn put_codes(w: &mut Xgmii, from: usize, codes: &[u8]) -> Result<(), BlockError> {
    for (i, c) in codes.iter().enumerate() {
        w.data[from + i] = xcode(*c)?;
        w.ctrl |= 1 << (from + i);
    }
    Ok(())
}

fn put_ctrl(w: &mut Xgmii, lane: usize, octet: u8) {
    w.data[lane] = octet;
    w.ctrl |= 1 << lane;
}

/// Decode one (descrambled) block to its XGMII word.
pub fn decode(b: Block66) -> Result<Xgmii, BlockError> {
    let mut w = Xgmii { data: [0; 8], ctrl: 0 };
    match b.fields()? {
        Fields::Data(d) => w.data = d.to_le_bytes(),
        Fields::Control(codes) => put_codes(&mut w, 0, &codes)?,
        Fields::Start0(d) => {
            put_ctrl(&mut w, 0, ctrl::X_START);
            put_data(&mut w, 1, 7, d);
        }
        Fields::Start4(codes, d) => {
            put_codes(&mut w, 0, &codes)?;
            put_ctrl(&mut w, 4, ctrl::X_START);
            put_data(&mut w, 5, 3, d);
        }
        Fields::CtrlOrdered4(codes, o4, d) => {
            put_codes(&mut w, 0, &codes)?;
            put_ctrl(&mut w, 4, xo(o4)?);
            put_data(&mut w, 5, 3, d);
        }
        Fields::OrderedStart4(d123, o0, d567) => {
            put_ctrl(&mut w, 0, xo(o0)?);
            put_data(&mut w, 1, 3, d123);
            put_ctrl(&mut w, 4, ctrl::X_START);
            put_data(&mut w, 5, 3, d567);
        }
        Fields::OrderedOrdered(d123, o0, o4, d567) => {
            put_ctrl(&mut w, 0, xo(o0)?);
            put_data(&mut w, 1, 3, d123);
            put_ctrl(&mut w, 4, xo(o4)?);
            put_data(&mut w, 5, 3, d567);
        }
        Fields::OrderedCtrl(d123, o0, codes) => {
            put_ctrl(&mut w, 0, xo(o0)?);
            put_data(&mut w, 1, 3, d123);
            put_codes(&mut w, 4, &codes)?;
        }
        Fields::Terminate(k, d, codes) => {
            put_data(&mut w, 0, k, d);
            put_ctrl(&mut w, k, ctrl::X_TERMINATE);
            put_codes(&mut w, k + 1, &codes[..7 - k])?;
        }
    }
    Ok(w)
}

/// [`decode`], substituting eight /E/ for an undecodable block as clause 49's receive state
/// machine does.
pub fn decode_or_error(b: Block66) -> Xgmii {
    decode(b).unwrap_or(Xgmii::ERROR)
}

/// True if `t` is one of the fifteen block type field values of clause 49.
pub fn is_valid_block_type(t: u8) -> bool {
    matches!(
        t,
        btype::CONTROL
            | btype::CTRL_ORDERED4
            | btype::START4
            | btype::ORDERED_START4
            | btype::ORDERED_ORDERED
            | btype::START0
            | btype::ORDERED_CTRL
    ) || btype::terminate_len(t).is_some()
}

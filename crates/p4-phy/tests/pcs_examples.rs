//! Worked examples derived by hand from clause 49's definitions (block formats, sync
//! headers, the scrambler polynomial, block lock and BER monitor state machines).

use p4_phy::block::{btype, ctrl, BlockError, Fields};
use p4_phy::codec::{decode, encode, Xgmii};
use p4_phy::lock::{align, BitStream, BlockLock, LockAction};
use p4_phy::scrambler::scramble_bitwise;
use p4_phy::{BerMonitor, Block66, Descrambler, Scrambler, SyncHeader};

mod common;
use common::pieces;

#[test]
fn idle_block_is_0x79_on_the_line() {
    // Sync "10" (first bit 1) = integer 0b01, type 0x1e, eight /I/ = 0x00.
    let b = encode(&Xgmii::IDLE).unwrap();
    assert_eq!(b, Block66::IDLE);
    assert_eq!(b.to_bits(), 0x79);
    assert_eq!(decode(b), Ok(Xgmii::IDLE));
}

#[test]
fn data_block_bits() {
    let w = Xgmii { data: [1, 2, 3, 4, 5, 6, 7, 8], ctrl: 0 };
    let b = encode(&w).unwrap();
    assert_eq!(SyncHeader::from_bits(b.sync), SyncHeader::Data);
    assert_eq!(b.payload, 0x0807_0605_0403_0201);
    assert_eq!(b.to_bits(), 0x201c_1814_100c_0806);
}

#[test]
fn start_block_with_preamble() {
    let w = Xgmii { data: [0xfb, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0xd5], ctrl: 0x01 };
    let b = encode(&w).unwrap();
    assert_eq!(b.sync, SyncHeader::CONTROL_BITS);
    assert_eq!(b.payload, 0xd555_5555_5555_5578);
    assert_eq!(decode(b), Ok(w));
}

#[test]
fn error_block_packs_eight_7bit_codes() {
    let b = encode(&Xgmii::ERROR).unwrap();
    assert_eq!(b.payload, 0x3c78_f1e3_c78f_1e1e);
    assert_eq!(b, Block66::ERROR);
}

#[test]
fn terminate_blocks() {
    // D0 D1 D2 /T/ /I/ /I/ /I/ /I/ -> type 0xb4, three data octets, 4 zero pad bits, 4 idles.
    let w = Xgmii { data: [0xaa, 0xbb, 0xcc, 0xfd, 0x07, 0x07, 0x07, 0x07], ctrl: 0xf8 };
    let b = encode(&w).unwrap();
    assert_eq!(b.payload, 0x0000_0000_ccbb_aab4);
    assert_eq!(decode(b), Ok(w));
    // /T/ in lane 0: type 0x87 and nothing else.
    let t0 = Xgmii { data: [0xfd, 7, 7, 7, 7, 7, 7, 7], ctrl: 0xff };
    assert_eq!(encode(&t0).unwrap().payload, 0x87);
    // Seven data octets then /T/: type 0xff.
    let t7 = Xgmii { data: [0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0xfd], ctrl: 0x80 };
    assert_eq!(encode(&t7).unwrap().payload, 0x7766_5544_3322_11ff);
    // /T/ then /E/ in lane 7: the error code 0x1e lands in the last 7 bits.
    let te = Xgmii { data: [0xfd, 7, 7, 7, 7, 7, 7, 0xfe], ctrl: 0xff };
    assert_eq!(encode(&te).unwrap().payload, 0x87 | 0x1e << 57);
}

#[test]
fn ordered_set_blocks() {
    // Local fault: /Q/ 00 00 01 then four idles -> type 0x4b, D1..D3 = 00 00 01, O0 = 0.
    let lf = Xgmii { data: [0x9c, 0, 0, 1, 7, 7, 7, 7], ctrl: 0xf1 };
    let b = encode(&lf).unwrap();
    assert_eq!(b.payload, 0x0100_004b);
    assert_eq!(decode(b), Ok(lf));
    // Four idles, then /Fsig/ 01 02 03: type 0x2d, O4 = 0xf at bits 36..40 of the payload.
    let w = Xgmii { data: [7, 7, 7, 7, 0x5c, 1, 2, 3], ctrl: 0x1f };
    let b = encode(&w).unwrap();
    assert_eq!(b.payload, 0x0302_01f0_0000_002d);
    assert_eq!(decode(b), Ok(w));
    // /Q/ 0a 0b 0c then start in lane 4: type 0x66.
    let w = Xgmii { data: [0x9c, 0xa, 0xb, 0xc, 0xfb, 0x55, 0x55, 0x55], ctrl: 0x11 };
    let b = encode(&w).unwrap();
    assert_eq!(b.payload, 0x5555_5500_0c0b_0a66);
    assert_eq!(decode(b), Ok(w));
    // Two sequence ordered sets: type 0x55.
    let w = Xgmii { data: [0x9c, 1, 2, 3, 0x9c, 4, 5, 6], ctrl: 0x11 };
    assert_eq!(encode(&w).unwrap().payload, 0x0605_0400_0302_0155);
}

#[test]
fn start_in_lane_4() {
    let w = Xgmii { data: [7, 7, 7, 7, 0xfb, 0x55, 0x55, 0x55], ctrl: 0x1f };
    let b = encode(&w).unwrap();
    assert_eq!(b.payload, 0x5555_5500_0000_0033);
    assert_eq!(b.fields(), Ok(Fields::Start4([0; 4], 0x55_5555)));
}

#[test]
fn every_type_value_is_known() {
    let mut known: Vec<u8> = vec![0x1e, 0x2d, 0x33, 0x66, 0x55, 0x78, 0x4b];
    known.extend_from_slice(&btype::TERMINATE);
    for t in 0..=255u8 {
        let b = Block66::control(t, 0);
        let ok = b.fields().is_ok();
        assert_eq!(ok, known.contains(&t), "type {t:#04x}");
    }
    assert_eq!(known.len(), 15);
}

#[test]
fn undecodable_blocks() {
    assert_eq!(decode(Block66 { sync: 0b00, payload: 0 }), Err(BlockError::SyncHeader(0)));
    assert_eq!(decode(Block66 { sync: 0b11, payload: 0 }), Err(BlockError::SyncHeader(3)));
    assert_eq!(decode(Block66::control(0x00, 0)), Err(BlockError::BlockType(0)));
    // Control code 0x01 is undefined.
    assert_eq!(decode(Block66::control(btype::CONTROL, 0x01)), Err(BlockError::ControlCode(0x01)));
    // Ordered-set code 0x5 is undefined.
    assert_eq!(decode(Block66::control(btype::ORDERED_CTRL, 0x5 << 24)), Err(BlockError::OrderedSetCode(5)));
    // A word with /S/ in lane 2 has no encoding.
    let w = Xgmii { data: [7, 7, 0xfb, 0x55, 0x55, 0x55, 0x55, 0x55], ctrl: 0x07 };
    assert!(encode(&w).is_err());
    assert_eq!(p4_phy::codec::encode_or_error(&w), Block66::ERROR);
    assert_eq!(ctrl::to_code(0xfe), Some(0x1e));
}

#[test]
fn scrambler_impulse_response() {
    // From zero state, a single 1 in bit 0 reappears at bits 39 and 58 (taps of x^39, x^58).
    let mut s = Scrambler::new(0);
    assert_eq!(s.scramble(1), 1 | 1 << 39 | 1 << 58);
    // Next word: s[64+j] = s[25+j] ^ s[6+j]: bits 14 (from 39), 33 twice (cancels),
    // 52 (from 58), and 53 (from bit 14 of this very word, 39 later).
    assert_eq!(s.scramble(0), 1 << 14 | 1 << 52 | 1 << 53);
    // The descrambler undoes it exactly.
    let mut s = Scrambler::new(0);
    let mut d = Descrambler::new(0);
    for x in [1u64, 0, 0xdead_beef, u64::MAX] {
        assert_eq!(d.descramble(s.scramble(x)), x);
    }
}

#[test]
fn scrambler_matches_bit_serial_reference() {
    let mut word = Scrambler::new(0x0123_4567_89ab_cdef);
    let mut serial = 0x0123_4567_89ab_cdefu64.reverse_bits();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..1000 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        assert_eq!(word.scramble(x), scramble_bitwise(&mut serial, x));
    }
}

#[test]
fn descrambler_synchronises_itself() {
    let mut s = Scrambler::new(0x5555_aaaa_1234_5678);
    let mut d = Descrambler::new(0xffff_0000_ffff_0000);
    let data = [0x1eu64, 0x1e, 0xd555_5555_5555_5578, 42, 43];
    let got: Vec<u64> = data.iter().map(|x| d.descramble(s.scramble(*x))).collect();
    // The first word depends on the wrong initial state in bits 0..58 only.
    assert_eq!(got[0] >> 58, data[0] >> 58);
    assert_eq!(&got[1..], &data[1..]);
}

#[test]
fn block_lock_needs_64_valid_headers() {
    let mut l = BlockLock::new();
    for _ in 0..63 {
        assert_eq!(l.test(SyncHeader::DATA_BITS), LockAction::Keep);
        assert!(!l.locked());
    }
    l.test(SyncHeader::CONTROL_BITS);
    assert!(l.locked());
    // Unlocked: every invalid header slips.
    let mut l = BlockLock::new();
    for _ in 0..10 {
        l.test(SyncHeader::DATA_BITS);
    }
    assert_eq!(l.test(0b00), LockAction::Slip);
    for _ in 0..63 {
        l.test(SyncHeader::DATA_BITS);
    }
    assert!(!l.locked(), "the count restarts after a slip");
    l.test(SyncHeader::DATA_BITS);
    assert!(l.locked());
    assert_eq!(l.slips(), 1);
}

#[test]
fn block_lock_lost_after_16_bad_in_64() {
    let mut l = BlockLock::new();
    for _ in 0..64 {
        l.test(SyncHeader::DATA_BITS);
    }
    assert!(l.locked());
    // 15 bad headers per 64-header window never drop lock.
    for _ in 0..5 {
        for i in 0..64 {
            let h = if i % 4 == 0 && i < 60 { 0b11 } else { SyncHeader::DATA_BITS };
            assert_eq!(l.test(h), LockAction::Keep);
        }
        assert!(l.locked());
    }
    // The 16th bad header in one window does, with a slip.
    for i in 0..16 {
        let a = l.test(0b00);
        assert_eq!(a == LockAction::Slip, i == 15);
    }
    assert!(!l.locked());
}

#[test]
fn ber_monitor_window() {
    let mut m = BerMonitor::with_window(100);
    for _ in 0..15 {
        m.test(0b00);
    }
    assert!(!m.hi_ber());
    m.test(0b11);
    assert!(m.hi_ber());
    // Rest of that window, then a clean window clears it.
    for _ in 16..100 {
        m.test(SyncHeader::DATA_BITS);
    }
    assert!(m.hi_ber(), "a window that reached 16 keeps hi_ber");
    for _ in 0..100 {
        m.test(SyncHeader::DATA_BITS);
    }
    assert!(!m.hi_ber());
    assert_eq!(m.total_invalid(), 16);
    assert_eq!(BerMonitor::WINDOW_BLOCKS, 19_531);
}

#[test]
fn aligner_finds_the_boundary_with_exactly_k_slips() {
    let mut scr = Scrambler::default();
    for k in [0u64, 1, 17, 65] {
        let mut s = BitStream::new();
        s.push_bits(0x0123_4567_89ab_cdef, k.min(64) as u32);
        s.push_bits(0b1, k.saturating_sub(64) as u32);
        assert_eq!(s.len(), k);
        for i in 0..300u64 {
            let b = if i % 3 == 0 { Block66::IDLE } else { Block66::data(i.wrapping_mul(0x9e37_79b9_7f4a_7c15)) };
            s.push_block(Block66 { sync: b.sync, payload: scr.scramble(b.payload) });
        }
        let a = align(&s);
        assert_eq!(a.slips, k, "offset {k}");
        assert_eq!(a.losses, 0);
        assert_eq!(a.runs.len(), 1);
        assert_eq!(a.runs[0].first_bit.0 % 66, k % 66);
    }
}

#[test]
fn aligner_loses_lock_on_a_burst_and_relocks() {
    let mut scr = Scrambler::default();
    let blocks: Vec<Block66> = (0..1000u64)
        .map(|i| {
            let b = if i % 2 == 0 { Block66::IDLE } else { Block66::data(i) };
            Block66 { sync: b.sync, payload: scr.scramble(b.payload) }
        })
        .collect();
    let stream_with_bad = |bad: &[usize]| {
        let mut s = BitStream::new();
        for (i, b) in blocks.iter().enumerate() {
            let sync = if bad.contains(&i) { 0b11 } else { b.sync };
            s.push_block(Block66 { sync, payload: b.payload });
        }
        align(&s)
    };
    // Lock completes at block 63; blocks 64.. are delivered. Window 2 is blocks 128..191.
    let clean = stream_with_bad(&[]);
    assert_eq!((clean.runs.len(), clean.losses, clean.slips), (1, 0, 0));
    assert_eq!(clean.runs[0].first_bit.0, 64 * 66);
    assert_eq!(clean.runs[0].blocks.len(), 1000 - 64);
    // 15 bad headers in one window: still locked, all counted.
    let fifteen: Vec<usize> = (130..145).collect();
    let a = stream_with_bad(&fifteen);
    assert_eq!((a.runs.len(), a.losses, a.invalid_headers), (1, 0, 15));
    // 16 in one window: lock is lost at the 16th (block 145), the boundary slips one bit,
    // and the receiver has to search again.
    let sixteen: Vec<usize> = (130..146).collect();
    let a = stream_with_bad(&sixteen);
    assert_eq!(a.losses, 1);
    assert_eq!(a.runs[0].blocks.len(), 145 - 64);
    // It relocks on the true boundary, 65 slips later (66 bit positions round the block).
    assert_eq!(a.slips, 66);
    assert_eq!(a.runs.len(), 2);
    assert_eq!(a.runs[1].first_bit.0 % 66, 0);
}

/// The bulk scrambler (vector path where the CPU has it, scalar G² form otherwise) and the
/// bulk descrambler give exactly the word-at-a-time textbook output for every split of a
/// stream into calls, including calls shorter than the history and than a vector.
#[test]
fn bulk_scrambling_matches_word_at_a_time_for_every_split() {
    let mut x = 0x243f_6a88_85a3_08d3u64;
    let mut next = || {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        x
    };
    let data: Vec<u64> = (0..2100).map(|_| next()).collect();
    for init in [0u64, u64::MAX, 0x0123_4567_89ab_cdef] {
        let mut word = Scrambler::new(init);
        let expected: Vec<u64> = data.iter().map(|d| word.scramble(*d)).collect();
        // Serial reference for the first words, to pin the textbook form itself.
        let mut serial = init.reverse_bits();
        for (d, e) in data.iter().zip(&expected).take(20) {
            assert_eq!(scramble_bitwise(&mut serial, *d), *e);
        }
        // Calls of every kind of length: under a vector, under the history, and long calls
        // the size of the transmitter's scrambling groups (512 blocks) with and without a
        // remainder.
        for pattern in [
            &[2100usize][..],
            &[1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144],
            &[7, 9, 15, 16, 17, 64, 3],
            &[8; 20],
            &[512, 1024, 513, 51],
            &[600, 1100, 9],
        ] {
            let mut blocks: Vec<Block66> = data.iter().map(|d| Block66 { sync: 0b10, payload: *d }).collect();
            let mut portable = blocks.clone();
            let mut s = Scrambler::new(init);
            let mut p = Scrambler::new(init);
            for r in pieces(blocks.len(), pattern) {
                s.scramble_blocks(&mut blocks[r.clone()]);
                p.scramble_blocks_portable(&mut portable[r]);
            }
            assert_eq!(portable, blocks, "portable path, init {init:#x}, pattern {pattern:?}");
            let got: Vec<u64> = blocks.iter().map(|b| b.payload).collect();
            assert_eq!(got, expected, "init {init:#x}, pattern {pattern:?}");
            assert!(blocks.iter().all(|b| b.sync == 0b10), "sync headers untouched");
            assert_eq!(s.state(), *expected.last().unwrap());
            // Word-at-a-time after bulk continues the same stream.
            let mut w2 = word;
            assert_eq!(s.scramble(42), w2.scramble(42));
            // Descramble in uneven pieces too.
            let mut d = Descrambler::new(init);
            for r in pieces(blocks.len(), pattern) {
                d.descramble_blocks(&mut blocks[r]);
            }
            // Descrambling into a separate octet buffer, in the same pieces.
            let line: Vec<Block66> =
                blocks.iter().zip(&expected).map(|(b, e)| Block66 { sync: b.sync, payload: *e }).collect();
            let mut d = Descrambler::new(init);
            let mut plain = Vec::new();
            for r in pieces(line.len(), pattern) {
                d.descramble_into(&line[r], &mut plain);
            }
            let words: Vec<u64> = plain.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
            assert_eq!(words, data, "descramble_into, init {init:#x}, pattern {pattern:?}");
            let back: Vec<u64> = blocks.iter().map(|b| b.payload).collect();
            assert_eq!(back, data, "descramble, init {init:#x}, pattern {pattern:?}");
        }
    }
}

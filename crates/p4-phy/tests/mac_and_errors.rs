//! MAC framing, the deficit idle count, and the error counters on corrupted streams.

use p4_phy::gen::receive_blocks;
use p4_phy::ifg::{GapRule, GapShaper};
use p4_phy::rx::{FrameStatus, RxConfig, RxCounters};
use p4_phy::tx::{TxConfig, TxPhy};
use p4_phy::{mac, Block66, Scrambler, TxEncoder};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[test]
fn crc32_check_value_and_fcs_order() {
    assert_eq!(mac::crc32(b"123456789"), 0xcbf4_3926);
    // The FCS goes out least significant octet first.
    let f = mac::seal(b"123456789");
    assert_eq!(f.len(), 64, "padded to the minimum size");
    assert_eq!(&f[..9], b"123456789");
    assert!(f[9..60].iter().all(|b| *b == 0));
    let fcs = mac::crc32(&f[..60]);
    assert_eq!(&f[60..], &fcs.to_le_bytes());
    // CRC over frame + FCS is the fixed residue.
    assert_eq!(mac::crc32(&f), mac::FCS_RESIDUE);
    assert!(mac::fcs_ok(&f));
    assert!(!mac::fcs_ok(&f[..3]));
}

#[test]
fn dic_keeps_the_average_gap_at_exactly_12() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut tx = TxEncoder::new(TxConfig::STANDARD);
    let mut blocks = Vec::new();
    let n = 20_000u64;
    let mut total_gap = 0u64;
    let mut prev_start = None;
    for _ in 0..n {
        let len = rng.gen_range(64..=1518usize);
        let f = vec![0u8; len];
        let st = tx.send(&f, 12, &mut blocks);
        assert!((9..=15).contains(&st.gap), "gap {}", st.gap);
        if prev_start.is_some() {
            total_gap += st.gap;
        }
        prev_start = Some(st.start);
        blocks.clear();
    }
    // The first frame's gap is measured from the stream start and excluded; the remaining
    // n-1 gaps sum to 12 each minus the deficit still outstanding.
    assert_eq!(total_gap + u64::from(tx.deficit()), 12 * (n - 1));
    let avg = total_gap as f64 / (n - 1) as f64;
    assert!((avg - 12.0).abs() < 3.0 / (n - 1) as f64 + 1e-12, "average {avg}");
}

#[test]
fn dic_rule_step_by_step() {
    // Frames of 65 octets (73 characters with preamble): each needs 3 characters of realignment.
    let mut s = GapShaper::new(GapRule::Dic, 12);
    let mut end = 0u64;
    let mut seq = Vec::new();
    for _ in 0..6 {
        let start = s.place(end, 12, 0);
        seq.push((start - end, s.deficit()));
        end = start + 73;
    }
    // Worked by hand: 0+12 is aligned; 85+12=97 is 1 past lane 0/4: delete one idle
    // (deficit 1), twice more (deficit 3); then a fourth deletion would exceed 3, so three
    // idles are inserted instead (deficit 0). Over the 4-frame cycle: (11·3 + 15)/4 = 12.
    assert_eq!(seq, vec![(12, 0), (11, 1), (11, 2), (11, 3), (15, 0), (11, 1)]);
}

fn stream_with(frames: &[Vec<u8>]) -> (Vec<Block66>, Vec<Block66>) {
    // Returns (unscrambled, scrambled) blocks.
    let mut tx = TxEncoder::new(TxConfig::STANDARD);
    let mut plain = Vec::new();
    tx.idle(2, &mut plain);
    for f in frames {
        tx.send(f, 12, &mut plain);
    }
    tx.idle(2, &mut plain);
    let mut scr = plain.clone();
    Scrambler::default().scramble_blocks(&mut scr);
    (plain, scr)
}

fn rescramble(plain: &[Block66]) -> Vec<Block66> {
    let mut v = plain.to_vec();
    Scrambler::default().scramble_blocks(&mut v);
    v
}

#[test]
fn corrupted_streams_are_counted() {
    let good = mac::seal(&[0xab; 100]); // 104 octets
    let frames = vec![good.clone(), good.clone(), good.clone()];
    let (plain, scr) = stream_with(&frames);
    let clean = receive_blocks(&scr, RxConfig::default());
    assert_eq!(clean.counters.frames_ok, 3);
    // Block layout: 2 idles, frame 0 = S, 13 data, T ... find the first data block of frame 1.
    let starts: Vec<usize> = plain
        .iter()
        .enumerate()
        .filter(|(_, b)| b.sync == 0b01 && (b.block_type() == 0x78 || b.block_type() == 0x33))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(starts.len(), 3);

    // 1. Invalid sync header inside frame 1 (the line bits are what got hit).
    let mut bad = scr.clone();
    bad[starts[1] + 3].sync = 0b11;
    let got = receive_blocks(&bad, RxConfig::default());
    assert_eq!(
        got.counters,
        RxCounters {
            frames_ok: 2,
            bad_sync_headers: 1,
            aborted_frames: 1,
            unexpected_data: 10,
            unexpected_terminate: 1,
            blocks: scr.len() as u64,
            ..Default::default()
        }
    );

    // 2. Invalid block type where frame 2 terminates.
    let mut p = plain.clone();
    let t_of_2 = (starts[2]..p.len())
        .find(|&i| p[i].sync == 0b01 && p[i].block_type() != 0x78 && p[i].block_type() != 0x33)
        .unwrap_or(0);
    p[t_of_2] = Block66::control(0x00, 0);
    let got = receive_blocks(&rescramble(&p), RxConfig::default());
    assert_eq!(got.counters.bad_block_types, 1);
    assert_eq!(got.counters.aborted_frames, 1);
    assert_eq!(got.counters.frames_ok, 2);

    // 3. One flipped line bit in frame 0's payload: the descrambler triples it (x^39, x^58),
    //    the FCS catches it.
    let mut bad = scr.clone();
    bad[starts[0] + 2].payload ^= 1 << 5;
    let got = receive_blocks(&bad, RxConfig { deliver_bad: true, ..RxConfig::default() });
    assert_eq!(got.counters.fcs_errors, 1);
    assert_eq!(got.counters.frames_ok, 2);
    assert_eq!(got.frames[0].status, FrameStatus::FcsError);

    // 4. An /E/ block in the middle of frame 0 and /E/ characters between frames.
    let mut p = plain.clone();
    p[starts[0] + 1] = Block66::ERROR;
    p[0] = Block66::ERROR;
    let got = receive_blocks(&rescramble(&p), RxConfig::default());
    assert_eq!(got.counters.aborted_frames, 1);
    assert_eq!(got.counters.error_chars, 16);
    assert_eq!(got.counters.unexpected_data, 12);
    assert_eq!(got.counters.unexpected_terminate, 1);
}

#[test]
fn runts_oversize_and_bad_preamble() {
    let runt = mac::seal(&[1u8; 10])[..40].to_vec();
    let big = mac::seal(&vec![2u8; 2000]);
    let ok = mac::seal(&[3u8; 60]);
    let mut tx = TxPhy::new(TxConfig::STANDARD);
    let mut blocks = Vec::new();
    for f in [&runt, &big, &ok] {
        tx.send(f, 12, &mut blocks);
    }
    tx.idle(1, &mut blocks);
    let got =
        receive_blocks(&blocks, RxConfig { max_frame: mac::MAX_FRAME, deliver_bad: false, ..RxConfig::default() });
    assert_eq!(got.counters.runts, 1);
    assert_eq!(got.counters.oversize, 1);
    assert_eq!(got.counters.frames_ok, 1);
    assert_eq!(got.frames.len(), 1);
    assert_eq!(got.frames[0].data, ok);

    // A start block whose SFD is wrong.
    let mut plain = Vec::new();
    let mut enc = TxEncoder::new(TxConfig::STANDARD);
    enc.send(&ok, 12, &mut plain);
    enc.idle(1, &mut plain);
    // The frame starts in lane 4 (gap 12 from the stream start); damage a preamble octet.
    let s = plain.iter_mut().find(|b| b.sync == 0b01 && b.block_type() == 0x33);
    assert!(s.is_some());
    if let Some(s) = s {
        *s = Block66::start4([0; 4], 0x55_5554);
    }
    let got = receive_blocks(&rescramble(&plain), RxConfig::default());
    assert_eq!(got.counters.preamble_errors, 1);
    assert_eq!(got.counters.frames_ok, 0);
}

#[test]
fn random_garbage_never_panics_and_is_counted() {
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    let blocks: Vec<Block66> = (0..50_000).map(|_| Block66 { sync: rng.gen_range(0..4), payload: rng.gen() }).collect();
    let got = receive_blocks(&blocks, RxConfig::default());
    let c = got.counters;
    assert_eq!(c.blocks, 50_000);
    assert!(c.bad_sync_headers > 20_000 && c.bad_sync_headers < 30_000);
    assert!(c.bad_block_types > 10_000);
    assert_eq!(c.frames_ok, 0);
}

/// The FCS check of a frame given in two parts agrees with the check of the joined frame, for
/// good and corrupted frames of many lengths and every split point.
#[test]
fn fcs_check_in_two_parts_agrees_with_the_whole() {
    let mut checked = 0;
    for len in (0..80).chain([1514, 1518]) {
        let body: Vec<u8> = (0..len).map(|i| (i * 13 + len) as u8).collect();
        let good = mac::seal(&body);
        let mut bad = good.clone();
        let at = bad.len() / 2;
        bad[at] ^= 0x10;
        for (frame, want) in [(&good, true), (&bad, false)] {
            assert_eq!(mac::fcs_ok(frame), want);
            for split in 0..=frame.len() {
                let (head, tail) = frame.split_at(split);
                assert_eq!(mac::fcs_ok_parts(head, tail), want, "len {} split {split}", frame.len());
                checked += 1;
            }
        }
    }
    assert!(checked > 3000);
    for short in [&[][..], &[1, 2, 3][..]] {
        for split in 0..=short.len() {
            let (head, tail) = short.split_at(split);
            assert!(!mac::fcs_ok_parts(head, tail));
        }
    }
}

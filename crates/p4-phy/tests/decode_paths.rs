//! The receiver's two decoding paths agree: the whole-frame fast path taken by
//! `RxPhy::receive` (slices of any size, frames split across slices) and the block-by-block
//! path of `RxDecoder::push`, on clean and corrupted streams, with every receiver option and
//! both frame sinks.

use p4_phy::rx::{FrameBatch, RxConfig, RxDecoder, RxFrame, RxPhy};
use p4_phy::tx::{TxConfig, TxPhy};
use p4_phy::{mac, Block66, Descrambler, GapRule};
use proptest::prelude::*;

mod common;
use common::pieces;

/// Frames of the given lengths (sealed when at least 4 octets, so FCS errors come only from
/// corruption), sent with the given gaps; then the listed (block, bit) flips on the line.
fn line(frames: &[(usize, u32)], rule: GapRule, flips: &[(usize, u8)]) -> Vec<Block66> {
    let mut tx = TxPhy::new(TxConfig { rule, min_gap: 1 });
    let mut out = Vec::new();
    tx.idle(3, &mut out);
    for (i, (len, gap)) in frames.iter().enumerate() {
        let body: Vec<u8> = (0..len.saturating_sub(4)).map(|k| (k * 31 + i * 7) as u8).collect();
        let f = if *len >= 4 { mac::seal(&body) } else { vec![0x5a; *len] };
        tx.send(&f, *gap, &mut out);
    }
    tx.idle(2, &mut out);
    for (block, bit) in flips {
        let n = out.len();
        let b = &mut out[block % n];
        if *bit >= 64 {
            b.sync ^= 1 << (bit % 2);
        } else {
            b.payload ^= 1 << bit;
        }
    }
    out
}

fn block_by_block(line: &[Block66], cfg: RxConfig) -> (Vec<RxFrame>, p4_phy::RxCounters) {
    let mut plain = line.to_vec();
    Descrambler::default().descramble_blocks(&mut plain);
    let mut dec = RxDecoder::new(cfg);
    let mut frames = Vec::new();
    for b in plain {
        dec.push(b, &mut frames);
    }
    (frames, *dec.counters())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn fast_path_equals_block_by_block(
        frames in prop::collection::vec((prop_oneof![0usize..80, 60usize..200, 1500usize..1530], prop_oneof![Just(12u32), 1u32..40]), 1..40),
        dic in any::<bool>(),
        flips in prop::collection::vec((0usize..100_000, 0u8..66), 0..4),
        slices in prop::collection::vec(1usize..300, 1..8),
        deliver_bad in any::<bool>(),
        check_fcs in any::<bool>(),
    ) {
        let rule = if dic { GapRule::Dic } else { GapRule::RoundUp };
        let line = line(&frames, rule, &flips);
        let cfg = RxConfig { deliver_bad, check_fcs, max_frame: 1518, ..RxConfig::default() };
        let (want, want_counters) = block_by_block(&line, cfg);

        let mut rx = RxPhy::new(cfg);
        let mut batch_rx = RxPhy::new(cfg);
        let mut got = Vec::new();
        let mut batch = FrameBatch::default();
        for r in pieces(line.len(), &slices) {
            rx.receive(&line[r.clone()], &mut got);
            batch_rx.receive(&line[r], &mut batch);
        }
        prop_assert_eq!(&got, &want);
        prop_assert_eq!(rx.counters(), &want_counters);
        prop_assert_eq!(batch_rx.counters(), &want_counters);
        let from_batch: Vec<RxFrame> = batch
            .iter()
            .map(|(f, data)| RxFrame { data: data.to_vec(), start: f.meta.start, gap: f.meta.gap, status: f.meta.status })
            .collect();
        prop_assert_eq!(from_batch, want);
    }
}

/// A clean stream of minimum-size frames cut into 7-block slices: every frame is delivered,
/// good, 12 characters after the previous one (84 characters = 693 bit times apart, their
/// starts alternating between lanes 0 and 4), and none is lost at a slice boundary.
#[test]
fn minimum_size_frames_across_slices() {
    let line = line(&vec![(64, 12); 100], GapRule::Dic, &[]);
    let mut rx = RxPhy::new(RxConfig::default());
    let mut got = Vec::new();
    for chunk in line.chunks(7) {
        rx.receive(chunk, &mut got);
    }
    assert_eq!(got.len(), 100);
    assert_eq!(rx.counters().frames_ok, 100);
    assert!(got.iter().all(|f| f.data.len() == 64 && mac::fcs_ok(&f.data)));
    assert!(got.iter().skip(1).all(|f| f.gap == 12));
    let spacing: Vec<u64> = got.windows(2).map(|w| w[1].start.0 - w[0].start.0).collect();
    assert!(spacing.iter().all(|d| *d == 693), "{spacing:?}");
}

/// A stream of minimum-size frames (starts alternating between lanes 0 and 4) in which one
/// preamble octet of every third frame is wrong: in the start block for lane-0 starts, in the
/// data block after the start for lane-4 starts (the octets only a lane-4 frame has there).
/// Both paths report exactly those frames as preamble errors and deliver the others.
#[test]
fn wrong_preamble_octets_are_caught_in_either_lane() {
    use p4_phy::block::btype;
    use p4_phy::Scrambler;
    let mut plain = line(&vec![(64, 12); 60], GapRule::Dic, &[]);
    Descrambler::default().descramble_blocks(&mut plain);
    let starts: Vec<usize> = (0..plain.len())
        .filter(|&i| {
            plain[i].sync == p4_phy::SyncHeader::CONTROL_BITS
                && matches!(plain[i].payload as u8, btype::START0 | btype::START4)
        })
        .collect();
    assert_eq!(starts.len(), 60);
    let mut lanes = [0, 0];
    for &i in starts.iter().step_by(3) {
        if plain[i].payload as u8 == btype::START4 {
            plain[i + 1].payload ^= 0x04 << 8; // second-to-last preamble octet
            lanes[1] += 1;
        } else {
            plain[i].payload ^= 0x10 << 24; // third preamble octet
            lanes[0] += 1;
        }
    }
    assert!(lanes[0] > 0 && lanes[1] > 0, "{lanes:?}");
    let mut line = plain;
    Scrambler::default().scramble_blocks(&mut line);

    let cfg = RxConfig::default();
    let (want, want_counters) = block_by_block(&line, cfg);
    assert_eq!(want_counters.preamble_errors, 20);
    assert_eq!(want.len(), 40);
    let mut rx = RxPhy::new(cfg);
    let mut got = Vec::new();
    rx.receive(&line, &mut got);
    assert_eq!(got, want);
    assert_eq!(rx.counters(), &want_counters);
}

//! PCS + MAC round trips: random frames of every size with random gaps go through TX and RX
//! and come back bit-exact, with identical timestamps and gaps on both sides.

use p4_phy::codec::{decode, encode};
use p4_phy::gen::{receive_bits, receive_blocks};
use p4_phy::ifg::GapRule;
use p4_phy::lock::BitStream;
use p4_phy::rx::{FrameStatus, RxConfig, RxCounters};
use p4_phy::tx::{TxConfig, TxEncoder, TxPhy};
use p4_phy::{mac, Block66, Descrambler};
use proptest::prelude::*;

fn frame_of(len: usize, seed: u8) -> Vec<u8> {
    let body: Vec<u8> = (0..len - 4).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect();
    mac::seal(&body)
}

fn frames_strategy() -> impl Strategy<Value = Vec<(usize, u32, u8)>> {
    let size = prop_oneof![
        8 => 64usize..=1518,
        1 => Just(64usize),
        1 => Just(1518usize),
        1 => 1519usize..=9022,
    ];
    prop::collection::vec((size, 0u32..200, any::<u8>()), 1..24)
}

fn tx_all(frames: &[(usize, u32, u8)], cfg: TxConfig, lead: u64) -> (Vec<Vec<u8>>, Vec<p4_phy::TxStamp>, Vec<Block66>) {
    let mut tx = TxPhy::new(cfg);
    let mut blocks = Vec::new();
    tx.idle(lead, &mut blocks);
    let mut sent = Vec::new();
    let mut stamps = Vec::new();
    for (len, gap, seed) in frames {
        let f = frame_of(*len, *seed);
        stamps.push(tx.send(&f, *gap, &mut blocks));
        sent.push(f);
    }
    tx.idle(3, &mut blocks);
    (sent, stamps, blocks)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// A batch (encoded, then scrambled in groups) gives exactly the blocks and stamps of
    /// sending its frames one by one.
    #[test]
    fn send_batch_equals_send_one_by_one(frames in prop::collection::vec((64usize..=1518, 0u32..40, any::<u8>()), 1..120)) {
        let (sent, stamps, blocks) = tx_all(&frames, TxConfig::STANDARD, 5);
        let mut tx = TxPhy::new(TxConfig::STANDARD);
        let mut batch = Vec::new();
        tx.idle(5, &mut batch);
        let mut batch_stamps = Vec::new();
        tx.send_batch(sent.iter().zip(&frames).map(|(f, (_, gap, _))| (&f[..], *gap)), &mut batch, &mut batch_stamps);
        tx.idle(3, &mut batch);
        prop_assert_eq!(batch_stamps, stamps);
        prop_assert_eq!(batch, blocks);
    }

    /// The encoder's portable code writes exactly the blocks of its vector code (which this
    /// machine may or may not run), for frames of any length, the malformed short ones too.
    #[test]
    fn portable_encoder_equals_vector_encoder(
        frames in prop::collection::vec((prop_oneof![0usize..80, 64usize..=1518], 0u32..40, any::<u8>()), 1..60),
        dic in any::<bool>(),
    ) {
        let cfg = TxConfig { rule: if dic { GapRule::Dic } else { GapRule::RoundUp }, min_gap: 1 };
        let octets: Vec<Vec<u8>> = frames.iter().map(|(len, _, seed)| (0..*len).map(|i| (i as u8) ^ seed).collect()).collect();
        let batch = || frames.iter().zip(&octets).map(|((_, gap, _), f)| (&f[..], *gap));
        let (mut fast, mut portable) = (TxPhy::new(cfg), TxPhy::new(cfg));
        portable.encoder = TxEncoder::new(cfg).portable();
        let (mut a, mut b, mut sa, mut sb) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        fast.send_batch(batch(), &mut a, &mut sa);
        portable.send_batch(batch(), &mut b, &mut sb);
        prop_assert_eq!(sa, sb);
        prop_assert_eq!(a, b);
    }

    #[test]
    fn block_loopback_is_bit_exact(frames in frames_strategy(), short in any::<bool>(), dic in any::<bool>()) {
        let cfg = TxConfig {
            rule: if dic { GapRule::Dic } else { GapRule::RoundUp },
            min_gap: if short { 1 } else { 12 },
        };
        let (sent, stamps, blocks) = tx_all(&frames, cfg, 70);
        let got = receive_blocks(&blocks, RxConfig::default());
        prop_assert_eq!(got.counters, RxCounters { blocks: blocks.len() as u64, frames_ok: sent.len() as u64, ..RxCounters::default() });
        prop_assert_eq!(got.frames.len(), sent.len());
        for ((r, s), st) in got.frames.iter().zip(&sent).zip(&stamps) {
            prop_assert_eq!(&r.data, s);
            prop_assert_eq!(r.start, st.start);
            prop_assert_eq!(r.gap, st.gap);
            prop_assert_eq!(r.status, FrameStatus::Ok);
            // Every start in lane 0 or 4; never fewer than the configured minimum.
            prop_assert!((r.start.0 % 66 == 0) || (r.start.0 % 66 == 33));
        }
        for (st, (_, gap, _)) in stamps.iter().zip(&frames).skip(1) {
            let want = u64::from((*gap).max(cfg.min_gap));
            if dic { prop_assert!(st.gap + 3 >= want && st.gap <= want + 3 + 7) } else { prop_assert!(st.gap >= want && st.gap < want + 8) }
        }
        // The XGMII codec agrees with the fast path on every block of the stream.
        let mut d = Descrambler::default();
        for b in &blocks {
            let plain = Block66 { sync: b.sync, payload: d.descramble(b.payload) };
            let w = decode(plain).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(encode(&w), Ok(plain));
        }
    }

    #[test]
    fn serial_loopback_with_unknown_alignment(frames in prop::collection::vec((64usize..=1518, 12u32..40, any::<u8>()), 1..6), offset in 0u32..66) {
        // Up to 65 slips, each after a few headers, then 64 headers to lock: 500 idles cover it.
        let (sent, stamps, blocks) = tx_all(&frames, TxConfig::EXACT, 500);
        let mut s = BitStream::new();
        s.push_bits(0x5a5a_5a5a_5a5a_5a5a, offset.min(64));
        s.push_bits(0b10, offset.saturating_sub(64));
        for b in &blocks { s.push_block(*b); }
        let (got, al) = receive_bits(&s, RxConfig::default());
        prop_assert_eq!(al.slips, u64::from(offset));
        prop_assert_eq!(got.frames.len(), sent.len());
        for ((r, s), st) in got.frames.iter().zip(&sent).zip(&stamps) {
            prop_assert_eq!(&r.data, s);
            prop_assert_eq!(r.start.0, st.start.0 + u64::from(offset));
        }
    }
}

#[test]
fn exact_gap_is_kept_when_legal() {
    // 64-byte frames: 72 characters with preamble, so a gap of 12 puts every start in lane 0/4.
    let mut tx = TxPhy::new(TxConfig::EXACT);
    let mut blocks = Vec::new();
    let f = frame_of(64, 0);
    let stamps: Vec<_> = (0..10).map(|_| tx.send(&f, 12, &mut blocks)).collect();
    for w in stamps.windows(2) {
        assert_eq!(w[1].gap, 12);
        // 84 characters = 10.5 blocks = 693 bits, whichever lane the frames start in.
        assert_eq!(w[1].start.0 - w[0].start.0, 693);
    }
}

#[test]
fn fewer_idles_than_the_standard() {
    // 68-byte frames (76 chars): gap 4 is legal when /T/ sits in lane 7 of its block.
    let f = frame_of(68, 1);
    let mut tx = TxPhy::new(TxConfig { rule: GapRule::RoundUp, min_gap: 1 });
    let mut blocks = Vec::new();
    let stamps: Vec<_> = (0..8).map(|_| tx.send(&f, 4, &mut blocks)).collect();
    let gaps: Vec<u64> = stamps.iter().skip(1).map(|s| s.gap).collect();
    // The first frame starts in lane 4 of block 0 and ends with /T/ in lane 0 of block 10,
    // so the next can start no earlier than block 11 (gap 8); from then on /T/ falls in
    // lane 4 and the next start in lane 0 of the following block: gap 4.
    assert_eq!(gaps, vec![8, 4, 4, 4, 4, 4, 4]);
    let got = receive_blocks(&blocks, RxConfig::default());
    assert_eq!(got.counters.frames_ok, 8);
    assert_eq!(got.frames.iter().skip(1).map(|r| r.gap).collect::<Vec<_>>(), gaps);
    // A standard transmitter never goes below 12.
    let mut std_tx = TxPhy::new(TxConfig::STANDARD);
    let mut b2 = Vec::new();
    let s2: Vec<_> = (0..8).map(|_| std_tx.send(&f, 4, &mut b2)).collect();
    assert!(s2.iter().skip(1).all(|s| s.gap >= 9 && s.gap <= 15));
}

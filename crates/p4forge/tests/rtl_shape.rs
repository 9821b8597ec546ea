//! The shape of generated code where its size decides whether Yosys can synthesize it: reads and
//! writes at run-time offsets. mdp parses up to four messages whose sizes are known only at run
//! time (an opaque body is a varbit field), so every header after the first message is at a
//! run-time offset.
//!
//! - `parser_moves_the_window_once_per_anchor`: the parser moves its window once at each state
//!   reached at offsets that differ (the three joins after messages 0..2), by whole bytes (mdp's
//!   lengths are `<< 3`), and reads every header out of those windows as constant slices.
//! - `deparser_shifts_only_after_varbit_fields`: the deparser builds its vector with constant
//!   shifts; the only run-time shifts are the ones after messages 0..2's opaque bodies, over just
//!   the bits that can follow them.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn mdp_file(file: &str) -> String {
    let p4 = root().join("examples/mdp/mdp.p4");
    let program = p4forge::frontend::compile(&p4, &[]).unwrap().lowered(&p4).unwrap().program;
    let design = p4_rtl::generate(&program, "mdp", &p4_rtl::Options::default()).unwrap();
    design.generated.into_iter().find(|(n, _)| n == file).unwrap().1
}

#[test]
fn parser_moves_the_window_once_per_anchor() {
    let parser = mdp_file("mdp_parser.sv");
    let moves: Vec<&str> = parser.lines().filter(|l| l.contains("<< {off[")).map(str::trim).collect();
    assert_eq!(
        moves,
        [
            "s.l.win_parse_msg0_after_message0_ = 1216'((wbe << {off[12:3], 3'd0}) >> 4080);",
            "s.l.win_parse_msg1_after_message1_ = 1216'((wbe << {off[12:3], 3'd0}) >> 4080);",
            "s.l.win_parse_msg2_after_message2_ = 1216'((wbe << {off[12:3], 3'd0}) >> 4080);",
        ]
    );
    // No part-select of the packet's window at a run-time offset is left.
    assert!(!parser.contains("wbe[5295 - off") && !parser.contains("wbe[5295 - (off"), "{parser}");
    // Message 3's last entry: a constant slice of the window moved after message 2.
    assert!(parser.contains("s.phv.hdr.msg3.entries[32'h3] = {s.l.win_parse_msg2_after_message2_[255:0], 1'b1};"));
    assert!(parser.contains(
        "s.phv.hdr.msg1.other.data = s.l.win_parse_msg0_after_message0_[1135:112] & ~({1024{1'b1}} >> {s.l.varbit_len_2_[10:3], 3'd0});"
    ));
}

#[test]
fn deparser_shifts_only_after_varbit_fields() {
    let deparser = mdp_file("mdp_deparser.sv");
    assert!(!deparser.contains("- ooff"), "{deparser}");
    let shifts: Vec<&str> = deparser.lines().filter(|l| l.contains("data_len_[10:3]")).map(str::trim).collect();
    assert_eq!(
        shifts,
        [
            "obe[9391 -: 3264] = 3264'({obe[9391 -: 2240], 1024'(0)} >> {s.l.emit_25_.data_len_[10:3], 3'd0});",
            "obe[9391 -: 5504] = 5504'({obe[9391 -: 4480], 1024'(0)} >> {s.l.emit_18_.data_len_[10:3], 3'd0});",
            "obe[9391 -: 7744] = 7744'({obe[9391 -: 6720], 1024'(0)} >> {s.l.emit_11_.data_len_[10:3], 3'd0});",
        ]
    );
    assert!(deparser.contains("if (s.l.emit_.valid_) obe = {s.l.emit_[112:1], obe[9391:112]};"));
}

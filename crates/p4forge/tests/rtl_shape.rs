//! The shape of generated code where its size decides whether Yosys can synthesize it: reads and
//! writes at run-time offsets. mdp parses up to four messages whose sizes are known only at run
//! time (an opaque body is a varbit field), so every header after the first message is at a
//! run-time offset.
//!
//! - `parser_moves_the_window_once_per_anchor`: the parser moves its window once at each state
//!   reached at offsets that differ (the three joins after messages 0..2), by whole bytes (mdp's
//!   lengths are `<< 3`), and reads every header out of those windows as constant slices.
//! - `mdp_deparser_sends_the_packets_own_bytes`: mdp changes none of its headers and parses them in
//!   emit order, so its deparser emits nothing and the merge sends the packet's bytes from where
//!   the parser extracted the first header (`crates/p4-rtl/src/unchanged.rs`).
//! - `deparser_shifts_only_after_varbit_fields`: `tests/stf/varbit.p4` rewrites its headers, so its
//!   deparser builds them: constant shifts, and one run-time shift after the varbit field, over
//!   just the bits that can follow it, by whole bytes.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn generated(p4: &str, name: &str, file: &str) -> String {
    let p4 = root().join(p4);
    let program = p4forge::frontend::compile(&p4, &[]).unwrap().lowered(&p4).unwrap().program;
    let design = p4_rtl::generate(&program, name, &p4_rtl::Options::default()).unwrap();
    design.generated.into_iter().find(|(n, _)| n == file).unwrap().1
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

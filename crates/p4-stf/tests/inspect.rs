//! The runtime CLI's questions about tables (`show_tables`, `table_num_entries`, `table_dump`,
//! `help`) against the control-plane model of a compiled program: exact answers, in the notation
//! `table_add` reads back.

use p4_control::{Catalog, ControlState};
use p4_stf::commands::{apply_commands, parse_commands};

const PROGRAM: &str = r#"
#include <v1model.p4>
header ipv4_t { bit<8> proto; bit<32> dst; }
struct headers { ipv4_t ipv4; }
struct meta_t { }
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.ipv4); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply {} }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action forward(bit<9> port) { sm.egress_spec = port; }
    action drop() { mark_to_drop(sm); }
    table routes { key = { hdr.ipv4.dst: lpm; } actions = { forward; drop; } default_action = drop(); size = 16; }
    table acl { key = { hdr.ipv4.proto: ternary; hdr.ipv4.dst: exact; } actions = { drop; NoAction; } }
    apply { routes.apply(); acl.apply(); }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply {} }
control CC(inout headers hdr, inout meta_t meta) { apply {} }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.ipv4); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"#;

fn model() -> ControlState {
    let include = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../p4include");
    let c = p4_sema::compile_str("t.p4", PROGRAM, &[include]);
    let d = c.render_diagnostics();
    let program = c.program.unwrap_or_else(|| panic!("{d}"));
    let layouts = p4_ir::layout::Layouts::of(&program);
    ControlState::new(Catalog::of(&program, &layouts).expect("a catalog")).expect("the model loads")
}

/// What `text`'s commands print, one string per command that prints.
fn answers(state: &mut ControlState, text: &str) -> Vec<String> {
    let commands = parse_commands(text).unwrap_or_else(|e| panic!("{}", e.render("t")));
    apply_commands(state, &commands).unwrap_or_else(|e| panic!("line {}: {}", e.line, e.message))
}

#[test]
fn tables_are_listed_counted_and_dumped_in_the_notation_table_add_reads() {
    let mut state = model();
    let text = "\
table_add routes forward 10.1.0.0/16 => 3
table_add routes forward 10.1.2.0/24 => 4
table_add acl drop 0x06&&&0xff 0x0a000001 => 5
show_tables
table_num_entries routes
table_dump routes
table_dump I.acl
";
    let got = answers(&mut state, text);
    assert_eq!(
        got[3..],
        [
            "line 4: I.routes  key hdr.ipv4.dst (lpm, 32 bits); 2 of 16 entries\n\
             I.acl     key hdr.ipv4.proto (ternary, 8 bits), hdr.ipv4.dst (exact, 32 bits); 1 of 1024 entries",
            "line 5: 2",
            // Longest prefix first: the order lookups try them.
            "line 6: table I.routes: key hdr.ipv4.dst (lpm, 32 bits); 2 of 16 entries\n  \
             handle 1: 0x0a010200/24 => I.forward(port=0x004)\n  \
             handle 0: 0x0a010000/16 => I.forward(port=0x003)\n  \
             default: I.drop()",
            "line 7: table I.acl: key hdr.ipv4.proto (ternary, 8 bits), hdr.ipv4.dst (exact, 32 bits); 1 of 1024 entries\n  \
             handle 0: 0x06&&&0xff 0x0a000001 => I.drop()\n  \
             default: NoAction()",
        ]
    );
}

#[test]
fn a_dumped_entry_reads_back_as_the_same_entry() {
    let mut state = model();
    answers(&mut state, "table_add routes forward 10.1.2.0/24 => 4\n");
    let dump = answers(&mut state, "table_dump routes\n").remove(0);
    let line = dump.lines().find(|l| l.contains("handle 0")).expect("the entry");
    let (key, _) = line.trim_start_matches("  handle 0: ").split_once(" => ").expect("key => action");
    let mut again = model();
    answers(&mut again, &format!("table_add routes forward {key} => 4\n"));
    assert_eq!(again.table_snapshot(0), state.table_snapshot(0));
}

#[test]
fn unknown_tables_and_help() {
    let mut state = model();
    let commands = parse_commands("table_dump nosuch\n").expect("parses");
    let error = apply_commands(&mut state, &commands).unwrap_err();
    assert_eq!((error.line, error.message.as_str()), (1, "no table named `nosuch` (known: I.routes, I.acl)"));
    let help = answers(&mut state, "help\n").remove(0);
    assert!(help.starts_with("line 1: table_add <table> <action> <key>... => <arg>... [<priority>]\n"), "{help}");
    assert_eq!(help.lines().count(), p4_stf::usage::COMMANDS.len());
    assert!(help.lines().any(|l| l == "table_dump <table>"));
}

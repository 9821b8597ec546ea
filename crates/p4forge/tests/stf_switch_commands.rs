//! STF files and runtime-CLI command files against the real v1model switch: what is refused, how it
//! is reported, and how a refusal differs from a failed expectation.

use p4_dataplane::Switch;
use p4_stf::commands::{apply_commands, parse_commands};
use p4_stf::{parse_stf, run_stf};
use std::path::PathBuf;
use std::sync::Arc;

const PROGRAM: &str = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> k; bit<8> r; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set(bit<8> x) { hdr.h.r = x; }
    action nop() { }
    table t { key = { hdr.h.k: ternary; } actions = { set; nop; } }
    apply { t.apply(); sm.egress_spec = 1; }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

fn switch() -> Switch {
    let include = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../p4include"));
    let compiled = p4_sema::compile_str("t.p4", PROGRAM, &[include]);
    let diagnostics = compiled.render_diagnostics();
    let program = compiled.program.unwrap_or_else(|| panic!("{diagnostics}"));
    Switch::new(Arc::new(program)).expect("the dataplane runs the program")
}

fn cli_error(text: &str) -> String {
    let commands = parse_commands(text).expect("the file parses");
    apply_commands(&mut switch(), &commands).expect_err("a command is refused").to_string()
}

#[test]
fn a_ternary_key_without_a_mask_is_named_rather_than_the_action() {
    assert_eq!(cli_error("table_add t nop 0x0a => 1\n"), "line 1: key field hdr.h.k is ternary: write VALUE&&&MASK");
}

#[test]
fn a_ternary_entry_without_a_priority_says_where_it_goes() {
    assert_eq!(cli_error("table_add t nop 0x0a/8 =>\n"), "line 1: ternary table I.t needs a priority after the action arguments");
    assert_eq!(
        cli_error("table_add t set 0x0a&&&0xff => 5\n"),
        "line 1: action I.set takes 1 argument (x), 0 given; ternary table I.t takes its priority as the last word after the action arguments"
    );
}

#[test]
fn a_duplicate_entry_in_a_command_file_names_the_first() {
    assert_eq!(
        cli_error("table_add t set 0x0a&&&0xff => 1 5\ntable_add t set 0x0a&&&0xff => 2 5\n"),
        "line 2: table I.t: duplicate entry: the entry with handle 0 has the same key and priority"
    );
}

#[test]
fn ports_in_command_files_must_fit_the_port_fields() {
    assert_eq!(cli_error("mirroring_add 1 600\n"), "line 1: port 600 does not fit v1model's 9-bit port fields (0..511)");
    assert_eq!(cli_error("mc_node_create 0 1 600\n"), "line 1: port 600 does not fit v1model's 9-bit port fields (0..511)");
}

#[test]
fn an_stf_add_without_priority_on_a_ternary_table_says_where_it_goes() {
    let report = run_stf(&mut switch(), &parse_stf("add t hdr.h.k:0x0a set(x:1)\n").unwrap());
    assert_eq!(
        report.refused(),
        Some((1, "ternary table I.t needs a priority after the table name (`add I.t <priority> ...`; larger wins)"))
    );
}

#[test]
fn stf_ports_above_511_are_refused_commands() {
    let report = run_stf(&mut switch(), &parse_stf("packet 600 0a00\n").unwrap());
    assert_eq!(report.refused(), Some((1, "port 600 does not fit v1model's 9-bit port fields (0..511)")));
    let report = run_stf(&mut switch(), &parse_stf("packet 1 0a00\nexpect 512 0a00\n").unwrap());
    assert_eq!(report.refused(), Some((2, "port 512 does not fit v1model's 9-bit port fields (0..511)")));
    assert_eq!(report.exit_code(), 2);
}

#[test]
fn a_refused_command_is_exit_code_2_and_a_failed_expectation_1() {
    let passing = "add t 1 hdr.h.k:0x0a&&&0xff set(x:7)\npacket 0 0a00\nexpect 1 0a07\n";
    let report = run_stf(&mut switch(), &parse_stf(passing).unwrap());
    assert_eq!((report.exit_code(), report.refused()), (0, None), "{}", report.render());
    let failing = "add t 1 hdr.h.k:0x0a&&&0xff set(x:7)\npacket 0 0a00\nexpect 1 0a08\n";
    let report = run_stf(&mut switch(), &parse_stf(failing).unwrap());
    assert_eq!((report.exit_code(), report.refused()), (1, None));
    let refused = "add t 1 hdr.h.k:0x0a&&&0xff set(x:7)\nadd t 1 hdr.h.k:0x0a&&&0xff set(x:8)\npacket 0 0a00\nexpect 1 0a08\n";
    let report = run_stf(&mut switch(), &parse_stf(refused).unwrap());
    assert_eq!(report.exit_code(), 2);
    assert_eq!(report.refused(), Some((2, "table I.t: duplicate entry: the entry with handle 0 has the same key and priority")));
}

#[test]
fn action_profile_commands_build_members_and_groups_that_entries_name() {
    use p4_control::PacketIo;
    let fixture = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/p4runtime_selector.p4"));
    let compiled = p4forge::frontend::compile(&fixture, &[]).expect("compiles");
    let mut sw = Switch::new(Arc::new(compiled.program.clone())).expect("runs");
    let file = "\
act_prof_create_member ecmp_selector set_port 2
act_prof_create_member ecmp_selector set_port 3
act_prof_create_member ecmp_selector set_port 4
act_prof_create_group ecmp_selector
act_prof_add_member_to_group ecmp_selector 0 0
act_prof_add_member_to_group ecmp_selector 1 0
act_prof_add_member_to_group ecmp_selector 2 0
table_indirect_add_with_group ecmp 7 => 0
act_prof_create_member acl_profile set_port 7
table_indirect_add acl 1 => 0
";
    // One session across both files, as a switch's command socket keeps it.
    let mut session = p4_stf::runtime::SessionState::default();
    let mut run = |sw: &mut Switch, text: &str| {
        let mut output = Vec::new();
        for line in parse_commands(text).expect("parses") {
            p4_stf::commands::apply_command(sw, &line, &mut session, &mut output).expect("applies");
        }
        output
    };
    assert_eq!(
        run(&mut sw, file),
        [
            "line 1: member 0 created in I.ecmp_selector",
            "line 2: member 1 created in I.ecmp_selector",
            "line 3: member 2 created in I.ecmp_selector",
            "line 4: group 0 created in I.ecmp_selector",
            "line 8: entry added to I.ecmp with handle 0",
            "line 9: member 0 created in I.acl_profile",
            "line 10: entry added to I.acl with handle 0",
        ]
    );
    let mut ports = |dst: u8| -> Vec<u32> {
        (0u16..8).map(|flow| {
            let [hi, lo] = flow.to_be_bytes();
            sw.inject(0, &[dst, hi, lo], 0).outputs.first().map_or(u32::MAX, |o| o.port)
        }).collect()
    };
    // Member CRC-16/ARC(flow) mod 3 (the CRCs worked out apart from the dataplane).
    let crc: [u16; 8] = [0x0000, 0xc0c1, 0xc181, 0x0140, 0xc301, 0x03c0, 0x0280, 0xc241];
    let of = |choices: &[u32]| -> Vec<u32> { crc.iter().map(|c| choices[*c as usize % choices.len()]).collect() };
    assert_eq!(ports(7), of(&[2, 3, 4]));
    assert_eq!(ports(0xff)[1], 7, "the acl member");
    // Changes reach the entries: a member modified, a member removed from the group.
    let more = "act_prof_modify_member ecmp_selector set_port 1 => 9\nact_prof_remove_member_from_group ecmp_selector 0 0\n";
    assert_eq!(run(&mut sw, more), Vec::<String>::new());
    let mut ports = |dst: u8| -> Vec<u32> {
        (0u16..8).map(|flow| {
            let [hi, lo] = flow.to_be_bytes();
            sw.inject(0, &[dst, hi, lo], 0).outputs.first().map_or(u32::MAX, |o| o.port)
        }).collect()
    };
    assert_eq!(ports(7), of(&[9, 4]));
}

#[test]
fn action_profile_commands_refuse_what_would_leave_an_entry_without_an_action() {
    let fixture = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/p4runtime_selector.p4"));
    let compiled = p4forge::frontend::compile(&fixture, &[]).expect("compiles");
    let error = |file: &str| {
        let mut sw = Switch::new(Arc::new(compiled.program.clone())).expect("runs");
        apply_commands(&mut sw, &parse_commands(file).expect("parses")).expect_err("refused").to_string()
    };
    let grouped = "act_prof_create_member ecmp_selector set_port 2\nact_prof_create_group ecmp_selector\nact_prof_add_member_to_group ecmp_selector 0 0\ntable_indirect_add_with_group ecmp 7 => 0\n";
    assert_eq!(error(&format!("{grouped}act_prof_delete_member ecmp_selector 0\n")), "line 5: member 0 of I.ecmp_selector is in use (by a group, an entry or a default)");
    assert_eq!(error(&format!("{grouped}act_prof_remove_member_from_group ecmp_selector 0 0\n")), "line 5: group 0 is in use by an entry: it cannot lose its last member");
    assert_eq!(error(&format!("{grouped}act_prof_delete_group ecmp_selector 0\n")), "line 5: group 0 of I.ecmp_selector is in use by an entry");
    assert_eq!(error("act_prof_create_group ecmp_selector\ntable_indirect_add_with_group ecmp 7 => 0\n"), "line 2: group of I.ecmp_selector has no members: add members before an entry names it");
    assert_eq!(error("act_prof_create_group acl_profile\n"), "line 1: action profile I.acl_profile has no selector: it has no groups");
    assert_eq!(error("act_prof_create_member ecmp_selector nosuch 1\n").split(" (known").next(), Some("line 1: no action named `nosuch`"));
    assert_eq!(error("table_indirect_add acl 1 => 3\n"), "line 1: action profile I.acl_profile has no member 3");
    assert_eq!(
        parse_commands("table_indirect_add acl 1 3\n").expect_err("no arrow").to_string(),
        "line 1: expected `table_indirect_add <table> <key>... => <member handle> [<priority>]`"
    );
}

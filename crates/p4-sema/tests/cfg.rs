//! The control-graph view (`p4_ir::cfg`) of small v1model programs: snapshots of its text form, and
//! concrete def-use sets and table dependencies.

use p4_ir::cfg::{self, ControlGraph, DepKind, OpKind};
mod common;

use common::ingress;
use p4_ir::{ParserId, Program};
use std::collections::BTreeSet;


/// Headers, metadata, a parser and empty controls shared by every test program; each test supplies
/// the ingress control `MyIngress`.
const PRELUDE: &str = r#"
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> totalLen; bit<16> identification;
    bit<3> flags; bit<13> fragOffset; bit<8> ttl; bit<8> protocol; bit<16> hdrChecksum;
    bit<32> srcAddr; bit<32> dstAddr;
}
struct headers_t { ethernet_t ethernet; ipv4_t ipv4; }
struct meta_t { bit<16> nhop; bit<8> class; bit<1> drop; }
parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) { 0x0800: parse_ipv4; default: accept; }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        meta.class = hdr.ipv4.protocol;
        transition select(hdr.ipv4.protocol, hdr.ipv4.ttl) { (6, _): accept; (17, 1 .. 255): accept; }
    }
}
control NoCk(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.ipv4); } }
"#;

fn compile(name: &str, ingress: &str) -> Program {
    common::compile_with(PRELUDE, name, ingress)
}

fn graph_text(name: &str, src: &str) -> String {
    let p = compile(name, src);
    let g = ControlGraph::build(&p, ingress(&p));
    cfg::print_control_graph(&p, &g)
}

#[test]
fn if_else_and_exit() {
    insta::assert_snapshot!(graph_text(
        "if_else_exit.p4",
        r#"
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action drop() { mark_to_drop(std); }
    action fwd(bit<9> port) { std.egress_spec = port; hdr.ipv4.ttl = hdr.ipv4.ttl - 1; }
    table route { key = { hdr.ipv4.dstAddr: lpm; } actions = { fwd; drop; } default_action = drop(); }
    apply {
        if (hdr.ipv4.isValid()) {
            route.apply();
            if (hdr.ipv4.ttl == 0) { exit; }
            meta.class = 1;
        } else {
            drop();
            hdr.ethernet.setInvalid();
        }
        std.priority = 3w1;
    }
}"#
    ));
}

#[test]
fn switch_on_action_run_and_hit() {
    insta::assert_snapshot!(graph_text(
        "switch_action_run.p4",
        r#"
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action a1() { meta.class = 1; }
    action a2(bit<16> n) { meta.nhop = n; }
    table classify { key = { hdr.ethernet.etherType: exact; } actions = { a1; a2; NoAction; } default_action = NoAction(); }
    table acl { key = { meta.class: ternary; } actions = { a1; NoAction; } default_action = NoAction(); }
    apply {
        switch (classify.apply().action_run) {
            a1: { meta.drop = 1; }
            a2: { }
            default: { return; }
        }
        if (meta.drop == 0 && acl.apply().hit) {
            std.egress_spec = 9w2;
        }
    }
}"#
    ));
}

const DEPENDENT: &str = r#"
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action set_nhop(bit<16> n) { meta.nhop = n; }
    action set_port(bit<9> p) { std.egress_spec = p; }
    action dec_ttl() { hdr.ipv4.ttl = hdr.ipv4.ttl - 1; }
    action rewrite(bit<48> mac) { hdr.ethernet.dst = mac; meta.nhop = 0; }
    table lpm { key = { hdr.ipv4.dstAddr: lpm; } actions = { set_nhop; NoAction; } default_action = NoAction(); }
    table nhop { key = { meta.nhop: exact; } actions = { set_port; NoAction; } default_action = NoAction(); }
    table ttl { key = { hdr.ipv4.protocol: exact; } actions = { dec_ttl; NoAction; } default_action = NoAction(); }
    table mac { key = { std.egress_spec: exact; } actions = { rewrite; NoAction; } default_action = NoAction(); }
    apply {
        lpm.apply();
        nhop.apply();
        ttl.apply();
        mac.apply();
    }
}"#;

#[test]
fn tables_with_dependent_keys() {
    insta::assert_snapshot!(graph_text("dependent.p4", DEPENDENT));
}

#[test]
fn dependency_list_of_dependent_tables() {
    let p = compile("dependent.p4", DEPENDENT);
    let g = ControlGraph::build(&p, ingress(&p));
    let vars = &p.controls[ingress(&p).index()].block.vars;
    let name = |n: cfg::NodeId| match g.node(n).map(|x| &x.kind) {
        Some(OpKind::ApplyTable(t)) => p.tables[t.index()].name.clone(),
        _ => String::from("?"),
    };
    let deps: Vec<String> = g
        .table_deps()
        .iter()
        .map(|d| {
            let ls: Vec<String> = d.locations.iter().map(|l| cfg::location_to_string(&p, vars, l)).collect();
            format!("{} -> {} {:?} key={} {}", name(d.from), name(d.to), d.kind, d.on_key, ls.join(","))
        })
        .collect();
    assert_eq!(
        deps,
        [
            "MyIngress.lpm -> MyIngress.nhop Raw key=true meta.nhop",
            "MyIngress.lpm -> MyIngress.mac Waw key=false meta.nhop",
            "MyIngress.nhop -> MyIngress.mac Raw key=true std.egress_spec",
            "MyIngress.nhop -> MyIngress.mac War key=false meta.nhop",
        ]
    );
    assert!(g.table_deps().iter().all(|d| d.kind != DepKind::Raw || d.from < d.to));
    assert!(g.is_dag);
}

#[test]
fn table_apply_read_write_sets() {
    let p = compile("dependent.p4", DEPENDENT);
    let c = ingress(&p);
    let g = ControlGraph::build(&p, c);
    let vars = &p.controls[c.index()].block.vars;
    let set = |ls: &BTreeSet<cfg::Location>| -> Vec<String> { ls.iter().map(|l| cfg::location_to_string(&p, vars, l)).collect() };
    let applies = g.table_applies();
    assert_eq!(applies.len(), 4);
    // `ttl`: key reads protocol; `dec_ttl` reads and writes ttl.
    let ttl = g.node(applies[2].0).expect("ttl apply");
    assert_eq!(set(ttl.reads()), ["hdr.ipv4.ttl", "hdr.ipv4.protocol"]);
    assert_eq!(set(ttl.writes()), ["hdr.ipv4.ttl"]);
    // `mac`: key reads egress_spec; `rewrite` writes dst and nhop (its parameter `mac` is not a location).
    let mac = g.node(applies[3].0).expect("mac apply");
    assert_eq!(set(mac.reads()), ["std.egress_spec"]);
    assert_eq!(set(mac.writes()), ["hdr.ethernet.dst", "meta.nhop"]);
    // One straight-line block.
    assert_eq!(g.blocks.len(), 1);
    assert_eq!(set(g.blocks[0].writes()), ["hdr.ethernet.dst", "hdr.ipv4.ttl", "meta.nhop", "std.egress_spec"]);
}

#[test]
fn for_loop_makes_a_back_edge() {
    insta::assert_snapshot!(graph_text(
        "for_loop.p4",
        r#"
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        bit<8> sum = 0;
        for (bit<8> i = 0; i < 4; i = i + 1) {
            if (i == meta.class) { break; }
            sum = sum + i;
        }
        hdr.ipv4.diffserv = sum;
    }
}"#
    ));
}

#[test]
fn parser_state_def_use() {
    let p = compile("dependent.p4", DEPENDENT);
    let i = p.parsers.iter().position(|x| x.block.name == "MyParser").expect("parser");
    insta::assert_snapshot!(cfg::print_parser_defs(&p, ParserId(i as u32)));
}

#[test]
fn dependencies_are_on_the_nearest_earlier_tables_only() {
    // a, b and c all write meta.nhop and d reads it: d depends on c alone, c on b, b on a. The
    // RAW a -> d and the WAWs a -> c, b -> d are implied by the chain and not listed.
    let p = compile(
        "chain.p4",
        r#"
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action set_nhop(bit<16> n) { meta.nhop = n; }
    action set_port(bit<9> port) { std.egress_spec = port; }
    table a { key = { hdr.ipv4.dstAddr: exact; } actions = { set_nhop; } }
    table b { key = { hdr.ipv4.srcAddr: exact; } actions = { set_nhop; } }
    table c { key = { hdr.ipv4.ttl: exact; } actions = { set_nhop; } }
    table d { key = { meta.nhop: exact; } actions = { set_port; } }
    apply {
        a.apply();
        if (hdr.ipv4.ttl == 1) { b.apply(); } else { c.apply(); }
        d.apply();
    }
}"#,
    );
    let g = ControlGraph::build(&p, ingress(&p));
    let name = |n: cfg::NodeId| match g.node(n).map(|x| &x.kind) {
        Some(OpKind::ApplyTable(t)) => p.tables[t.index()].name.trim_start_matches("MyIngress.").to_string(),
        _ => String::from("?"),
    };
    let deps: Vec<String> = g.table_deps().iter().map(|d| format!("{} -> {} {:?}", name(d.from), name(d.to), d.kind)).collect();
    // b and c are on different arms: both are nearest writers for d, and neither depends on the other.
    // (Nodes are numbered in reverse postorder, which puts the else arm first.)
    assert_eq!(deps, ["a -> c Waw", "a -> b Waw", "c -> d Raw", "b -> d Raw"]);
}

/// The text of a control with `n` tables that all write the same metadata and read the same key,
/// every other apply under an `if` (what `tests/programs/gen_many_tables.sh` generates).
fn many_tables(n: usize) -> String {
    let mut s = String::from(
        "control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {\n\
         action fwd(bit<9> port) { std.egress_spec = port; meta.nhop = meta.nhop + 1; }\n\
         action classify(bit<8> c) { meta.class = c; }\n",
    );
    for i in 0..n {
        s += &format!("table t{i} {{ key = {{ hdr.ethernet.dst: exact; meta.class: ternary; }} actions = {{ fwd; classify; NoAction; }} default_action = NoAction(); }}\n");
    }
    s += "apply {\n";
    for i in 0..n {
        if i % 2 == 1 {
            s += &format!("if (hdr.ethernet.etherType == {i}) {{ t{i}.apply(); }}\n");
        } else {
            s += &format!("t{i}.apply();\n");
        }
    }
    s + "}\n}\n"
}

#[test]
fn graph_text_of_many_conflicting_tables_is_linear_in_their_number() {
    // Every pair of these tables conflicts; listing every pair printed ~6 million lines for 2,000
    // tables. The direct dependencies are a few per table.
    let n = 2000;
    let p = compile("many_tables.p4", &many_tables(n));
    let g = ControlGraph::build(&p, ingress(&p));
    let deps = g.table_deps().len();
    assert!(deps <= 4 * n, "{deps} dependencies for {n} tables");
    let lines = cfg::print_control_graph(&p, &g).lines().count();
    assert!(lines <= 10 * n, "{lines} lines for {n} tables");
    // The ones that are there: t0 -> t1, t0 -> t2, t1 -> t2, t2 -> t3, ... (an unconditional
    // table and the conditional one after it both precede the next unconditional one), RAW and
    // WAW each: 6 per pair of tables, less the missing ones after the last table.
    assert_eq!(deps, 3 * n - 4);
}

#[test]
fn dependencies_follow_a_loop_back_edge() {
    // In the loop body `a` then `b` both write meta.nhop: b depends on a in one iteration, and a on
    // b from the previous iteration (through the back edge).
    let p = compile(
        "loop_deps.p4",
        r#"
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action set_nhop(bit<16> n) { meta.nhop = n; }
    table a { key = { hdr.ipv4.dstAddr: exact; } actions = { set_nhop; } }
    table b { key = { hdr.ipv4.srcAddr: exact; } actions = { set_nhop; } }
    apply {
        for (bit<8> i = 0; i < 2; i = i + 1) {
            a.apply();
            b.apply();
        }
    }
}"#,
    );
    let g = ControlGraph::build(&p, ingress(&p));
    assert!(!g.is_dag);
    let name = |n: cfg::NodeId| match g.node(n).map(|x| &x.kind) {
        Some(OpKind::ApplyTable(t)) => p.tables[t.index()].name.trim_start_matches("MyIngress.").to_string(),
        _ => String::from("?"),
    };
    let mut deps: Vec<String> = g.table_deps().iter().map(|d| format!("{} -> {} {:?}", name(d.from), name(d.to), d.kind)).collect();
    deps.sort();
    assert_eq!(deps, ["a -> b Waw", "b -> a Waw"]);
}

//! Regression tests for the def-use of `p4_ir::cfg` that a hardware scheduler relies on: extern
//! state (registers, counters, meters) as locations, header-stack elements and their validity under
//! run-time and constant indices, `push_front`/`pop_front`/`extract(.next)`, and must versus may
//! writes. Each test names the wrong result the analysis gave before it was fixed.

use p4_ir::cfg::{self, ControlGraph, Location, OpKind};
mod common;

use common::ingress;
use p4_ir::{ParserId, Program};


/// Headers with a four-element stack `tags`, a parser that fills it through `.next`, and empty
/// controls; each test supplies the ingress control `MyIngress`.
const PRELUDE: &str = r#"
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header tag_t { bit<8> v; bit<8> next; }
struct headers_t { ethernet_t ethernet; tag_t[4] tags; }
struct meta_t { bit<2> i; bit<8> x; bit<8> y; bit<32> val; bit<2> color; }
parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition parse_tag;
    }
    state parse_tag {
        pkt.extract(hdr.tags.next);
        transition select(hdr.tags.last.next) { 0: accept; default: parse_tag; }
    }
}
control NoCk(inout headers_t hdr, inout meta_t meta) { apply { } }
control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.tags); } }
"#;

fn compile(name: &str, ingress: &str) -> Program {
    common::compile_with(PRELUDE, name, ingress)
}

/// A table apply node's table name without the control prefix.
fn node_name(p: &Program, g: &ControlGraph, n: cfg::NodeId) -> String {
    match g.node(n).map(|x| &x.kind) {
        Some(OpKind::ApplyTable(t)) => p.tables[t.index()].name.trim_start_matches("MyIngress.").to_string(),
        _ => format!("n{}", n.0),
    }
}

/// `from -> to Kind key=on_key locations` per dependency, in the graph's order.
fn deps(src_name: &str, src: &str) -> Vec<String> {
    let p = compile(src_name, src);
    let c = ingress(&p);
    let g = ControlGraph::build(&p, c);
    let vars = &p.controls[c.index()].block.vars;
    g.table_deps()
        .iter()
        .map(|d| {
            let ls: Vec<String> = d.locations.iter().map(|l| cfg::location_to_string(&p, vars, l)).collect();
            format!("{} -> {} {:?} key={} {}", node_name(&p, &g, d.from), node_name(&p, &g, d.to), d.kind, d.on_key, ls.join(","))
        })
        .collect()
}

/// The printed lines of the node applying `table` (its `apply` line and its `r:`/`w:`/`w?:` lines).
fn apply_lines(src_name: &str, src: &str, table: &str) -> Vec<String> {
    let p = compile(src_name, src);
    let g = ControlGraph::build(&p, ingress(&p));
    let text = cfg::print_control_graph(&p, &g);
    let mut lines = text.lines().skip_while(|l| !l.ends_with(&format!("apply MyIngress.{table}")));
    let head = lines.next().map(|l| l.trim().split_once(": ").map_or(l, |x| x.1).to_string());
    head.into_iter().chain(lines.take_while(|l| l.starts_with("        ")).map(|l| l.trim().to_string())).collect()
}

/// Names of the nodes whose writes of `path` (printed form) may reach the apply of `table`, and
/// whether the value from before the control does.
fn reaching(src_name: &str, src: &str, table: &str, path: &str) -> (Vec<String>, bool) {
    let p = compile(src_name, src);
    let c = ingress(&p);
    let g = ControlGraph::build(&p, c);
    let vars = &p.controls[c.index()].block.vars;
    let at = g.table_applies().into_iter().find(|(_, t)| p.tables[t.index()].name == format!("MyIngress.{table}")).expect("apply").0;
    let loc = g
        .nodes
        .iter()
        .flat_map(|n| n.reads().iter().chain(n.writes()))
        .find(|l| cfg::location_to_string(&p, vars, l) == path)
        .cloned()
        .unwrap_or_else(|| panic!("no location {path}"));
    let r = g.reaching_writes(at, &loc);
    (r.nodes.iter().map(|&n| node_name(&p, &g, n)).collect(), r.from_entry)
}

// ---------------------------------------------------------------- (a) stack element validity

const STACK_VALIDITY: &str = r#"
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action mark() { hdr.tags[meta.i].setValid(); }
    action first() { hdr.tags[0].setValid(); }
    action seen() { meta.x = 1; }
    table a { key = { hdr.ethernet.etherType: exact; } actions = { mark; } }
    table b { key = { hdr.tags[0].isValid(): exact; } actions = { seen; } }
    table c { key = { hdr.ethernet.src: exact; } actions = { first; } default_action = first(); }
    table d { key = { hdr.tags[meta.i].isValid(): exact; } actions = { seen; } }
    apply { a.apply(); b.apply(); c.apply(); d.apply(); }
}"#;

#[test]
fn validity_set_through_a_runtime_index_reaches_a_constant_index_read() {
    // Was: `hdr.tags[meta.i].setValid()` wrote `hdr.tags.$valid`, a location that overlaps no
    // element, so b (reading `hdr.tags[0].$valid`) did not depend on a, and d (reading through a
    // run-time index) did not depend on c. Now a run-time index touches the whole stack.
    assert_eq!(
        deps("stack_validity.p4", STACK_VALIDITY),
        [
            "a -> b Raw key=true hdr.tags",
            "a -> c Waw key=false hdr.tags",
            // c's write of element 0 leaves a's possible writes of elements 1..3 reaching d.
            "a -> d Raw key=true hdr.tags",
            "b -> c War key=false hdr.tags[0].$valid",
            "b -> d Waw key=false meta.x",
            "c -> d Raw key=true hdr.tags[0].$valid",
        ]
    );
    // The run-time index makes a's write a may-write of the whole stack; c's is a must-write (its
    // only action is also its default; a's default is the implicit NoAction).
    assert_eq!(apply_lines("stack_validity.p4", STACK_VALIDITY, "a"), ["apply MyIngress.a", "r: hdr.ethernet.etherType, meta.i", "w?: hdr.tags"]);
    assert_eq!(apply_lines("stack_validity.p4", STACK_VALIDITY, "c"), ["apply MyIngress.c", "r: hdr.ethernet.src", "w: hdr.tags[0].$valid"]);
}

// ---------------------------------------------------------------- (b) registers

const REGISTER: &str = r#"
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    register<bit<32>>(16) r;
    action store() { r.write((bit<32>) meta.i, 32w7); }
    action load() { r.read(meta.val, 32w0); }
    table a { key = { hdr.ethernet.etherType: exact; } actions = { store; } }
    table b { key = { hdr.ethernet.src: exact; } actions = { load; } }
    table c { key = { meta.val: exact; } actions = { NoAction; } }
    table d { key = { hdr.ethernet.dst: exact; } actions = { store; } }
    apply { a.apply(); b.apply(); c.apply(); d.apply(); }
}"#;

#[test]
fn register_written_in_one_table_and_read_in_a_later_one() {
    // Was: extern methods had no effect on any location, so b's read of `r` did not depend on a's
    // write, nor d's write on b's read. A register write updates one index: a may-write.
    assert_eq!(
        deps("register.p4", REGISTER),
        [
            "a -> b Raw key=false extern MyIngress.r",
            // b only reads r: a is still r's last writer.
            "a -> d Waw key=false extern MyIngress.r",
            "b -> c Raw key=true meta.val",
            "b -> d War key=false extern MyIngress.r",
        ]
    );
    assert_eq!(apply_lines("register.p4", REGISTER, "a"), ["apply MyIngress.a", "r: hdr.ethernet.etherType, meta.i", "w?: extern MyIngress.r"]);
    assert_eq!(apply_lines("register.p4", REGISTER, "b"), ["apply MyIngress.b", "r: hdr.ethernet.src, extern MyIngress.r", "w?: meta.val"]);
    // Per-action effects are public (the register instance is a location of its own).
    let p = compile("register.p4", REGISTER);
    let store = p.actions.iter().position(|a| a.name.ends_with("store")).expect("store");
    let fx = cfg::action_effects(&p, p4_ir::ActionId(store as u32));
    let r = p.externs.iter().position(|e| e.name == "MyIngress.r").expect("r");
    assert_eq!(fx.may_writes.iter().cloned().collect::<Vec<_>>(), [Location::extern_state(p4_ir::ExternId(r as u32))]);
    assert!(fx.must_writes.is_empty());
}

// ---------------------------------------------------------------- (c) counters and meters

const COUNTERS_METERS: &str = r#"
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    counter(8, CounterType.packets) cnt;
    meter(8, MeterType.bytes) m;
    direct_counter(CounterType.packets) dc;
    action count_it() { cnt.count(32w0); }
    action police() { m.execute_meter(32w1, meta.color); }
    action dcount() { dc.count(); }
    table t1 { key = { hdr.ethernet.etherType: exact; } actions = { count_it; } }
    table t2 { key = { hdr.ethernet.src: exact; } actions = { count_it; police; } }
    table t3 { key = { meta.color: exact; } actions = { police; dcount; } counters = dc; }
    apply { t1.apply(); t2.apply(); t3.apply(); }
}"#;

#[test]
fn counter_count_and_meter_execute_read_and_update_their_state() {
    // Was: no dependency at all between t1 and t2 (both count `cnt`), and t2 -> t3 only through
    // the meter's out argument, not its state. (`count` reads then writes; the WAR of the same
    // pair is implied by its WAW: an apply's own write supersedes its read.)
    assert_eq!(
        deps("counters_meters.p4", COUNTERS_METERS),
        [
            "t1 -> t2 Raw key=false extern MyIngress.cnt",
            "t1 -> t2 Waw key=false extern MyIngress.cnt",
            "t2 -> t3 Raw key=true meta.color,extern MyIngress.m",
            "t2 -> t3 Waw key=false meta.color,extern MyIngress.m",
        ]
    );
    // The direct counter belongs to t3: its apply reads and updates it, whichever action runs.
    assert_eq!(
        apply_lines("counters_meters.p4", COUNTERS_METERS, "t3"),
        ["apply MyIngress.t3", "r: meta.color, extern MyIngress.m, extern MyIngress.dc", "w?: meta.color, extern MyIngress.m, extern MyIngress.dc"]
    );
}

// ---------------------------------------------------------------- (d) must versus may writes

const MAY_WRITE: &str = r#"
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action set_x() { meta.x = 1; }
    action set_y() { meta.y = 2; }
    table a { key = { hdr.ethernet.etherType: exact; } actions = { set_x; set_y; } default_action = set_y(); }
    table b { key = { meta.x: exact; } actions = { NoAction; } }
    table c { key = { hdr.ethernet.src: exact; } actions = { set_x; } default_action = set_x(); }
    table d { key = { meta.x: exact; } actions = { NoAction; } }
    apply {
        meta.x = 5;
        a.apply();
        b.apply();
        if (hdr.ethernet.dst == 0) { c.apply(); }
        d.apply();
    }
}"#;

#[test]
fn a_write_in_only_some_actions_does_not_kill_the_earlier_definition() {
    // Was: every write of a table counted as definite, so a's `meta.x` (only set_x writes it)
    // printed as `w:` and hid the assignment `meta.x = 5` from b.
    assert_eq!(apply_lines("may_write.p4", MAY_WRITE, "a"), ["apply MyIngress.a", "r: hdr.ethernet.etherType", "w?: meta.x, meta.y"]);
    // Both the assignment (node n0) and a's possible write reach b's key.
    assert_eq!(reaching("may_write.p4", MAY_WRITE, "b", "meta.x"), (vec!["n0".to_string(), "a".to_string()], false));
    // c (every action writes meta.x) kills on its arm only: at d, c and, through the other arm,
    // the assignment and a reach.
    assert_eq!(reaching("may_write.p4", MAY_WRITE, "d", "meta.x"), (vec!["n0".to_string(), "a".to_string(), "c".to_string()], false));
    assert_eq!(apply_lines("may_write.p4", MAY_WRITE, "c"), ["apply MyIngress.c", "r: hdr.ethernet.src", "w: meta.x"]);
}

#[test]
fn table_effects_intersect_the_actions_must_writes() {
    let p = compile("may_write.p4", MAY_WRITE);
    let c = ingress(&p);
    let vars = &p.controls[c.index()].block.vars;
    let a = p.tables.iter().position(|t| t.name == "MyIngress.a").expect("a");
    let names = |ls: &std::collections::BTreeSet<Location>| -> Vec<String> { ls.iter().map(|l| cfg::location_to_string(&p, vars, l)).collect() };
    let per_action = cfg::table_action_effects(&p, p4_ir::TableId(a as u32));
    let summary: Vec<(String, Vec<String>)> = per_action.iter().map(|(id, fx)| (p.actions[id.index()].name.clone(), names(&fx.must_writes))).collect();
    assert_eq!(summary, [("MyIngress.set_x".to_string(), vec!["meta.x".to_string()]), ("MyIngress.set_y".to_string(), vec!["meta.y".to_string()])]);
    // set_y is both listed and the default: two possible actions. No location is written by both,
    // so the apply must-writes nothing and may-writes both.
    let fx = cfg::table_effects(&p, p4_ir::TableId(a as u32));
    assert_eq!(names(&fx.must_writes), Vec::<String>::new());
    assert_eq!(names(&fx.may_writes), ["meta.x", "meta.y"]);
    assert_eq!(names(&cfg::table_key_reads(&p, p4_ir::TableId(a as u32))), ["hdr.ethernet.etherType"]);
}

// ---------------------------------------------------------------- (e) push_front, pop_front, .next

const PUSH_POP: &str = r#"
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action set_v() { hdr.tags[1].v = 3; }
    action push() { hdr.tags.push_front(1); hdr.tags[0].setValid(); }
    action pop() { hdr.tags.pop_front(1); }
    table z { key = { hdr.ethernet.etherType: exact; } actions = { set_v; } default_action = set_v(); }
    table a { key = { hdr.ethernet.src: exact; } actions = { push; NoAction; } default_action = NoAction(); }
    table b { key = { hdr.tags[1].v: exact; } actions = { NoAction; } }
    table c { key = { hdr.ethernet.dst: exact; } actions = { pop; } default_action = pop(); }
    table d { key = { hdr.tags[1].v: exact; } actions = { NoAction; } }
    apply { z.apply(); a.apply(); b.apply(); c.apply(); d.apply(); }
}"#;

#[test]
fn push_front_in_one_action_is_a_may_write_and_pop_front_in_all_a_must_write() {
    // Was: a's push_front counted as a definite write of the whole stack, hiding z's write of
    // `hdr.tags[1].v` from b (z's value reaches b when a runs NoAction).
    assert_eq!(reaching("push_pop.p4", PUSH_POP, "b", "hdr.tags[1].v"), (vec!["z".to_string(), "a".to_string()], false));
    assert_eq!(apply_lines("push_pop.p4", PUSH_POP, "a"), ["apply MyIngress.a", "r: hdr.ethernet.src, hdr.tags", "w?: hdr.tags"]);
    // c pops on every path: every element and nextIndex are rewritten, only c reaches d.
    assert_eq!(reaching("push_pop.p4", PUSH_POP, "d", "hdr.tags[1].v"), (vec!["c".to_string()], false));
    assert_eq!(apply_lines("push_pop.p4", PUSH_POP, "c"), ["apply MyIngress.c", "r: hdr.ethernet.dst, hdr.tags", "w: hdr.tags"]);
    assert_eq!(
        deps("push_pop.p4", PUSH_POP),
        [
            "z -> a Raw key=false hdr.tags[1].v",
            "z -> a Waw key=false hdr.tags[1].v",
            "a -> b Raw key=true hdr.tags",
            "a -> c Raw key=false hdr.tags",
            "a -> c Waw key=false hdr.tags",
            "b -> c War key=false hdr.tags[1].v",
            "c -> d Raw key=true hdr.tags",
        ]
    );
}

#[test]
fn extract_into_next_advances_next_index_and_may_write_any_element() {
    // Was: `extract(hdr.tags.next)` printed as a definite write of the whole stack, and
    // `hdr.tags.last.next` as a read of the whole stack without the index it depends on.
    let p = compile("push_pop.p4", PUSH_POP);
    let i = p.parsers.iter().position(|x| x.block.name == "MyParser").expect("parser");
    let text = cfg::print_parser_defs(&p, ParserId(i as u32));
    let state: Vec<&str> = text.lines().skip_while(|l| !l.contains("state parse_tag")).take(4).map(str::trim).collect();
    assert_eq!(state, ["state parse_tag -> accept, parse_tag", "r: pkt, hdr.tags", "w: pkt, hdr.tags.$nextIndex", "w?: hdr.tags"]);
}

#[test]
fn an_apply_an_expression_may_skip_only_may_writes() {
    // `meta.y = (meta.x == 0 && t.apply().hit) ? 1 : 0`: t runs only when meta.x == 0, so its
    // write of meta.val must not kill the assignment before it. Was: a definite write.
    let src = r#"
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action set_val() { meta.val = 1; }
    table t { key = { hdr.ethernet.etherType: exact; } actions = { set_val; } default_action = set_val(); }
    table u { key = { meta.val: exact; } actions = { NoAction; } }
    apply {
        meta.val = 7;
        bool b = meta.x == 0 && t.apply().hit;
        u.apply();
    }
}"#;
    assert_eq!(apply_lines("skipped_apply.p4", src, "t"), ["apply MyIngress.t", "r: hdr.ethernet.etherType", "w?: meta.val"]);
    assert_eq!(reaching("skipped_apply.p4", src, "u", "meta.val"), (vec!["n0".to_string(), "t".to_string()], false));
}

#[test]
fn a_slice_write_does_not_kill_the_rest_of_the_field() {
    // `meta.val[7:0] = 1` leaves bits 31..8 of the earlier `meta.val = 7`. Was: a definite write of
    // meta.val that hid the assignment from u.
    let src = r#"
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action low() { meta.val[7:0] = 1; }
    table t { key = { hdr.ethernet.etherType: exact; } actions = { low; } default_action = low(); }
    table u { key = { meta.val: exact; } actions = { NoAction; } }
    apply { meta.val = 7; t.apply(); u.apply(); }
}"#;
    assert_eq!(apply_lines("slice_write.p4", src, "t"), ["apply MyIngress.t", "r: hdr.ethernet.etherType", "w?: meta.val"]);
    assert_eq!(reaching("slice_write.p4", src, "u", "meta.val"), (vec!["n0".to_string(), "t".to_string()], false));
}

#[test]
fn a_sub_control_touches_the_extern_it_is_given() {
    // The register is a constructor argument of Sub: `sub.apply(meta)` reads MyIngress.r. Was: the
    // apply's effects were its arguments only, so nothing ordered it after a's write of r.
    let src = r#"
control Sub(inout meta_t m)(register<bit<32>> reg) { apply { reg.read(m.val, 32w0); } }
control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    register<bit<32>>(16) r;
    Sub(r) sub;
    action store() { r.write(32w0, 32w1); }
    table a { key = { hdr.ethernet.etherType: exact; } actions = { store; } default_action = store(); }
    apply { a.apply(); sub.apply(meta); }
}"#;
    let p = compile("sub_extern.p4", src);
    let g = ControlGraph::build(&p, ingress(&p));
    let text = cfg::print_control_graph(&p, &g);
    let lines: Vec<&str> = text.lines().skip_while(|l| !l.contains("apply block")).take(3).map(str::trim).collect();
    assert_eq!(lines, ["n1: apply block MyIngress.sub", "r: meta, extern MyIngress.r", "w: meta"]);
    let r = p.externs.iter().position(|e| e.name == "MyIngress.r").expect("r");
    let reach = g.reaching_writes(cfg::NodeId(1), &Location::extern_state(p4_ir::ExternId(r as u32)));
    assert_eq!((reach.nodes.into_iter().collect::<Vec<_>>(), reach.from_entry), (vec![cfg::NodeId(0)], true));
}

#[test]
fn either_keeps_a_must_write_only_where_both_sides_cover_it() {
    // One side writes all of `v0`, the other only `v0.1`: only `v0.1` is written on both paths.
    // `v1` is written on one path: a may-write.
    let l = |var: u32, path: &[u32]| Location { var: p4_ir::VarId(var), path: path.to_vec() };
    let mut a = cfg::Effects::default();
    a.write_must(l(0, &[]));
    a.write_must(l(1, &[]));
    let mut b = cfg::Effects::default();
    b.write_must(l(0, &[1]));
    let both = a.either(b);
    assert_eq!(both.must_writes.into_iter().collect::<Vec<_>>(), [l(0, &[1])]);
    assert_eq!(both.may_writes.iter().cloned().collect::<Vec<_>>(), [l(0, &[]), l(1, &[])]);
    assert!(Location::extern_state(p4_ir::ExternId(3)).as_extern() == Some(p4_ir::ExternId(3)));
    assert!(!Location::extern_state(p4_ir::ExternId(3)).overlaps(&Location::extern_state(p4_ir::ExternId(4))));
}

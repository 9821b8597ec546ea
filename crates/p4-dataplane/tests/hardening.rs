//! Control-plane and packet-I/O checks found by the hardening review: ports that do not fit
//! v1model's port fields, duplicate entries, keys and priorities written in the wrong notation.

mod common;

use common::{args, keys, program, switch, v};
use p4_dataplane::control::{ControlError, ControlPlane, KeyValue, Keys, PacketIo};

/// `t` is ternary on `k`, `r` is a range table, `o` optional, `e` exact, `l` lpm; `set` writes `r`.
fn tables_program() -> String {
    program(
        "bit<8> k; bit<8> r;",
        "",
        "",
        "action set(bit<8> x) { hdr.h.r = x; }
         action nop() { }
         table t { key = { hdr.h.k: ternary; } actions = { set; nop; } }
         table rt { key = { hdr.h.k: range; } actions = { set; } }
         table o { key = { hdr.h.k: optional; } actions = { set; } }
         table e { key = { hdr.h.k: exact; } actions = { set; } }
         table l { key = { hdr.h.k: lpm; } actions = { set; } }
         apply { t.apply(); rt.apply(); o.apply(); e.apply(); l.apply(); sm.egress_spec = 1; }",
        "apply { }",
    )
}

fn refused(result: Result<u64, ControlError>) -> String {
    match result {
        Ok(handle) => panic!("accepted with handle {handle}"),
        Err(e) => e.to_string(),
    }
}

fn masked(value: u32, mask: u32) -> KeyValue {
    KeyValue::Masked(value.into(), mask.into())
}

#[test]
fn the_largest_port_comes_from_the_programs_ingress_port_width() {
    let sw = switch(&tables_program());
    assert_eq!(sw.max_port(), 511);
    assert_eq!(sw.check_port(511), Ok(()));
    assert_eq!(
        sw.check_port(600).map_err(|e| e.to_string()),
        Err("port 600 does not fit v1model's 9-bit port fields (0..511)".to_string())
    );
}

#[test]
fn multicast_group_ids_must_fit_the_group_field() {
    let mut sw = switch(&tables_program());
    let why = "multicast group 65536 does not fit v1model's 16-bit multicast group field (0..65535)".to_string();
    assert_eq!(sw.mc_mgrp_create(65536).map_err(|e| e.to_string()), Err(why.clone()));
    assert_eq!(sw.mirroring_add_mc(3, 65536).map_err(|e| e.to_string()), Err(why));
    assert_eq!(sw.mc_mgrp_create(65535), Ok(()));
    assert_eq!(sw.multicast_groups(), vec![(65535, vec![])]);
}

#[test]
fn a_packet_on_a_port_above_511_is_not_processed_as_another_port() {
    let mut sw = switch(&tables_program());
    // Port 600 would be 88 in a 9-bit field.
    let out = sw.inject(600, &[1, 2], 0);
    assert_eq!(out.outputs, vec![]);
    assert_eq!(out.drops, vec!["port 600 does not fit v1model's 9-bit port fields (0..511)".to_string()]);
    assert_eq!(sw.inject(511, &[1, 2], 0).outputs.len(), 1, "511 itself is a valid ingress port");
}

#[test]
fn multicast_and_mirroring_ports_must_fit_the_port_fields() {
    let mut sw = switch(&tables_program());
    let why = "port 512 does not fit v1model's 9-bit port fields (0..511)".to_string();
    assert_eq!(sw.mc_node_create(1, &[1, 512]).map_err(|e| e.to_string()), Err(why.clone()));
    let node = sw.mc_node_create(1, &[1, 2]).expect("ports that fit");
    assert_eq!(sw.mc_node_update(node, &[3, 512]).map_err(|e| e.to_string()), Err(why.clone()));
    assert_eq!(sw.mirroring_add(5, 512).map_err(|e| e.to_string()), Err(why));
    assert_eq!(sw.mirroring_add(5, 511), Ok(()));
}

#[test]
fn duplicate_ternary_range_and_optional_entries_are_refused_naming_the_first() {
    let mut sw = switch(&tables_program());
    assert_eq!(sw.table_add("t", keys(vec![masked(0x0a, 0xff)]), "set", args(&[1]), Some(5)), Ok(0));
    assert_eq!(sw.table_add("t", keys(vec![masked(0x0a, 0xff)]), "set", args(&[2]), Some(6)), Ok(1), "another priority");
    assert_eq!(
        refused(sw.table_add("t", keys(vec![masked(0x0a, 0xff)]), "nop", args(&[]), Some(5))),
        "table I.t: duplicate entry: the entry with handle 0 has the same key and priority"
    );
    let range = || keys(vec![KeyValue::Range(1u32.into(), 9u32.into())]);
    assert_eq!(sw.table_add("rt", range(), "set", args(&[1]), Some(1)), Ok(0));
    assert_eq!(refused(sw.table_add("rt", range(), "set", args(&[1]), Some(1))), "table I.rt: duplicate entry: the entry with handle 0 has the same key and priority");
    assert_eq!(sw.table_add("o", keys(vec![masked(3, 0xff)]), "set", args(&[1]), Some(1)), Ok(0));
    assert_eq!(refused(sw.table_add("o", keys(vec![masked(3, 0xff)]), "set", args(&[1]), Some(1))), "table I.o: duplicate entry: the entry with handle 0 has the same key and priority");
}

#[test]
fn duplicate_exact_and_lpm_entries_are_refused_like_bmv2() {
    let mut sw = switch(&tables_program());
    assert_eq!(sw.table_add("e", keys(vec![v(7)]), "set", args(&[1]), None), Ok(0));
    assert_eq!(refused(sw.table_add("e", keys(vec![v(7)]), "set", args(&[2]), None)), "table I.e: duplicate entry: the entry with handle 0 has the same key");
    let prefix = |len| keys(vec![KeyValue::Prefix(0x80u32.into(), len)]);
    assert_eq!(sw.table_add("l", prefix(1), "set", args(&[1]), None), Ok(0));
    assert_eq!(sw.table_add("l", prefix(2), "set", args(&[1]), None), Ok(1));
    assert_eq!(refused(sw.table_add("l", prefix(1), "set", args(&[1]), None)), "table I.l: duplicate entry: the entry with handle 0 has the same key");
}

#[test]
fn positional_keys_must_use_their_match_kinds_notation() {
    let mut sw = switch(&tables_program());
    // `table_add t nop 0x0a => 1`: the mask is missing and the priority became an action argument.
    assert_eq!(refused(sw.table_add("t", keys(vec![v(0x0a)]), "nop", args(&[1]), None)), "key field hdr.h.k is ternary: write VALUE&&&MASK");
    assert_eq!(refused(sw.table_add("rt", keys(vec![v(1)]), "set", args(&[1]), Some(1))), "key field hdr.h.k is range: write LOW->HIGH");
    assert_eq!(refused(sw.table_add("o", keys(vec![v(1)]), "set", args(&[1]), Some(1))), "key field hdr.h.k is optional: write VALUE&&&MASK");
    assert_eq!(refused(sw.table_add("l", keys(vec![v(1)]), "set", args(&[1]), None)), "key field hdr.h.k is lpm: write VALUE/LENGTH");
    // STF names its keys and may write a ternary key as a plain value (an exact match).
    let named = Keys::Named(vec![("hdr.h.k".to_string(), KeyValue::Value(10u32.into()))]);
    assert_eq!(sw.table_add("t", named, "set", args(&[1]), Some(1)), Ok(0));
}

#[test]
fn a_missing_priority_is_reported_as_such() {
    let mut sw = switch(&tables_program());
    let error = sw.table_add("t", keys(vec![masked(1, 1)]), "nop", args(&[]), None).unwrap_err();
    assert_eq!(error, ControlError::MissingPriority { table: "I.t".to_string(), kind: "ternary".into() });
    assert_eq!(error.to_string(), "ternary table I.t needs a priority");
    // `table_add t set 1&&&1 => 5`: 5 was read as the priority, so the argument is missing.
    assert_eq!(
        refused(sw.table_add("t", keys(vec![masked(1, 1)]), "set", args(&[]), Some(5))),
        "action I.set takes 1 argument (x), 0 given; ternary table I.t takes its priority as the last word after the action arguments"
    );
    assert_eq!(refused(sw.table_add("e", keys(vec![v(1)]), "set", args(&[]), None)), "action I.set takes 1 argument (x), 0 given");
}

/// 2^32 - 1 cells of each stateful extern: 64 GiB of registers alone if allocated up front.
fn huge_externs_program() -> String {
    program(
        "bit<32> i; bit<32> v; bit<8> colour;",
        "",
        "",
        "register<bit<32>>(32w0xFFFFFFFF) r;
         counter(32w0xFFFFFFFF, CounterType.packets_and_bytes) c;
         meter(32w0xFFFFFFFF, MeterType.packets) m;
         apply {
             bit<32> old;
             r.read(old, hdr.h.i);
             r.write(hdr.h.i, hdr.h.v);
             hdr.h.v = old;
             c.count(hdr.h.i);
             m.execute_meter(hdr.h.i, hdr.h.colour);
             sm.egress_spec = 1;
         }",
        "apply { }",
    )
}

#[test]
fn huge_registers_counters_and_meters_load_and_run_in_small_memory() {
    let mut sw = switch(&huge_externs_program());
    let packet = |i: u32, v: u32| [&i.to_be_bytes()[..], &v.to_be_bytes(), &[9]].concat();
    let out = sw.inject(1, &packet(0xFFFF_FFFE, 0x1234_5678), 0);
    assert_eq!(out.outputs[0].data, [&0xFFFF_FFFEu32.to_be_bytes()[..], &[0, 0, 0, 0], &[0]].concat(), "old value 0, green");
    let out = sw.inject(1, &packet(0xFFFF_FFFE, 7), 0);
    assert_eq!(out.outputs[0].data[4..8], 0x1234_5678u32.to_be_bytes(), "the write was kept");
    assert_eq!(sw.register_read("r", 0xFFFF_FFFE), Ok(7u32.into()));
    assert_eq!(sw.register_read("r", 3), Ok(0u32.into()), "an untouched cell");
    assert_eq!(sw.counter_read("c", 0xFFFF_FFFE), Ok((2, 18)));
    assert_eq!(
        sw.register_read("r", 0xFFFF_FFFF).map_err(|e| e.to_string()),
        Err("register r: index 4294967295 out of range (size 4294967295)".to_string())
    );
    // Whole-array commands do not walk the 4 billion cells.
    sw.register_write("r", 5, 1u32.into()).expect("write");
    sw.register_reset("r").expect("reset");
    assert_eq!(sw.register_read("r", 0xFFFF_FFFE), Ok(0u32.into()));
    sw.counter_reset("c").expect("reset");
    assert_eq!(sw.counter_read("c", 0xFFFF_FFFE), Ok((0, 0)));
    sw.meter_set_rates("m", None, &[(0.0, 1), (0.0, 1)]).expect("every cell");
    let colours: Vec<u8> = (0..2).map(|_| sw.inject(1, &packet(77, 0), 0).outputs[0].data[8]).collect();
    assert_eq!(colours, [0, 2], "a never-used cell has the configured rates: one green packet, then red");
}

/// A packet whose copies loop until the traffic manager's limits stop them (every copy
/// recirculated and cloned in egress) keeps its trace bounded: `trace::MAX_EVENTS` steps, then one
/// `Truncated` step counting the rest; the drop is still reported.
#[test]
fn the_trace_of_a_packet_copied_thousands_of_times_is_bounded() {
    use p4_dataplane::trace::{Event, MAX_EVENTS};
    let text = program(
        "bit<8> n;",
        "",
        "",
        "apply { sm.egress_spec = 1; hdr.h.n = hdr.h.n + 1; }",
        "apply { recirculate_preserving_field_list(0); clone(CloneType.E2E, 1); }",
    );
    let compiled = p4_sema::compile_str("test.p4", &text, &[common::include_dir()]);
    let mut sw = p4_dataplane::Switch::new_traced(std::sync::Arc::new(compiled.program.expect("compiles"))).expect("runs");
    sw.mirroring_add(1, 2).expect("session");
    let out = sw.inject(0, &[0], 0);
    // The copies double at every pass through egress: the limit of copies stops them first.
    assert!(out.outputs.is_empty());
    assert_eq!(out.drops, vec!["more than 4096 copies of one packet; the rest were dropped".to_string()]);
    assert_eq!(out.trace.len(), MAX_EVENTS + 1);
    let Some(Event::Truncated { omitted }) = out.trace.last() else { panic!("last step: {:?}", out.trace.last()) };
    assert!(*omitted > 10_000, "{omitted}");
}

/// A table takes no more entries than its `size` (a table without one: 1,024, what the reference
/// compiler gives BMv2), as BMv2 answers TABLE_FULL and the hardware has no more slots; freeing one
/// makes room again; the limit can be lifted.
#[test]
fn tables_take_no_more_entries_than_their_size() {
    let text = program(
        "bit<16> k; bit<8> r;",
        "",
        "",
        "action set(bit<8> x) { hdr.h.r = x; }
         table small { key = { hdr.h.k: exact; } actions = { set; } size = 4; }
         table plain { key = { hdr.h.k: exact; } actions = { set; } }
         apply { small.apply(); plain.apply(); sm.egress_spec = 1; }",
        "apply { }",
    );
    let mut sw = switch(&text);
    let add = |sw: &mut p4_dataplane::Switch, table: &str, k: u64| sw.table_add(table, keys(vec![v(k)]), "set", args(&[1]), None);
    for k in 0..4 {
        assert_eq!(add(&mut sw, "small", k), Ok(k));
    }
    assert_eq!(refused(add(&mut sw, "small", 4)), "table I.small is full: it holds 4 entries (its `size`)");
    sw.table_delete("small", 2).expect("delete");
    assert_eq!(add(&mut sw, "small", 9), Ok(2), "a freed slot takes an entry again");
    for k in 0..1024 {
        add(&mut sw, "plain", k).expect("within the default size");
    }
    assert_eq!(refused(add(&mut sw, "plain", 5000)), "table I.plain is full: it holds 1024 entries (the default size of a table without `size`)");
    sw.ignore_table_sizes();
    assert_eq!(add(&mut sw, "small", 10), Ok(4));
}

/// A control too large for one generated function (3,000 table applications) is not handed to
/// the code generator, whose time and memory grow faster than the function: it runs on closures,
/// gives the same bytes, and the switch says why.
#[test]
fn a_control_too_large_for_machine_code_runs_on_closures() {
    let n = 3000;
    let tables: String = (0..n).map(|i| format!("table t{i} {{ key = {{ hdr.h.a: exact; }} actions = {{ add; NoAction; }} default_action = add(1); }}\n")).collect();
    let applies: String = (0..n).map(|i| format!("t{i}.apply();\n")).collect();
    let text = program(
        "bit<8> a; bit<16> b;",
        "",
        "",
        &format!("action add(bit<16> d) {{ hdr.h.b = hdr.h.b + d; }}\n{tables} apply {{ {applies} sm.egress_spec = 1; }}"),
        "apply { }",
    );
    let mut sw = switch(&text);
    let summary = sw.machine_code().expect("the rest is machine code").to_string();
    assert!(summary.contains("more than the 65536 instructions given to the code generator in one function"), "{summary}");
    let out = sw.inject(1, &[7, 0, 5], 0);
    assert_eq!(out.outputs[0].data, [7, (3005u16 >> 8) as u8, 3005u16 as u8], "every table's default added 1");
}

//! `p4_ir::layout` on real programs: the layouts of `examples/l2l3/l2l3.p4` with concrete offsets,
//! widths and ids, id stability, and that the dataplane's control plane follows the layouts.

mod common;

use std::path::PathBuf;

use p4_ir::layout::{print, Layouts, ObjectKind, Target};
use p4_ir::{MatchKind, Program, TableId};

fn l2l3() -> Program {
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/l2l3/l2l3.p4"));
    let compiled = p4_sema::compile_file(&path, &[common::include_dir()]);
    let diagnostics = compiled.render_diagnostics();
    compiled.program.unwrap_or_else(|| panic!("l2l3 did not compile:\n{diagnostics}"))
}

fn compile(text: &str) -> Program {
    let compiled = p4_sema::compile_str("test.p4", text, &[common::include_dir()]);
    let diagnostics = compiled.render_diagnostics();
    compiled.program.unwrap_or_else(|| panic!("did not compile:\n{diagnostics}"))
}

fn table(p: &Program, name: &str) -> TableId {
    TableId(p.tables.iter().position(|t| t.name == name).unwrap_or_else(|| panic!("no table {name}")) as u32)
}

#[test]
fn l2l3_ipv4_header_is_the_rfc_791_layout() {
    let l = Layouts::of(&l2l3());
    let h = l.header_named("ipv4_t").expect("ipv4_t layout");
    let got: Vec<(&str, u32, u32)> = h.fields.iter().map(|f| (f.name.as_str(), f.bit_offset, f.width)).collect();
    assert_eq!(
        got,
        [
            ("version", 0, 4),
            ("ihl", 4, 4),
            ("diffserv", 8, 8),
            ("total_len", 16, 16),
            ("identification", 32, 16),
            ("flags", 48, 3),
            ("frag_offset", 51, 13),
            ("ttl", 64, 8),
            ("protocol", 72, 8),
            ("hdr_checksum", 80, 16),
            ("src_addr", 96, 32),
            ("dst_addr", 128, 32),
        ]
    );
    assert_eq!((h.fixed_bits, h.varbit_max), (160, 0));
    let eth = l.header_named("ethernet_t").expect("ethernet_t layout");
    assert_eq!(eth.field("ether_type").map(|f| (f.bit_offset, f.width)), Some((96, 16)));
    assert_eq!(eth.fixed_bits, 112);
}

#[test]
fn l2l3_lpm_key_and_nexthop_action_data() {
    let p = l2l3();
    let l = Layouts::of(&p);
    let k = l.key(table(&p, "L2L3Ingress.ipv4_lpm"));
    assert_eq!(k.fields.len(), 1);
    let f = &k.fields[0];
    assert_eq!((f.name.as_str(), f.width, &f.match_kind, f.bit_offset, f.is_valid), ("hdr.ipv4.dst_addr", 32, &MatchKind::Lpm, 0, false));
    // LPM alone takes no priority; only ternary, range and optional keys do.
    assert_eq!((k.total_bits, k.priority_kind.clone()), (32, None));
    let mac = l.key(table(&p, "L2L3Ingress.mac_table"));
    assert_eq!((mac.fields[0].width, &mac.fields[0].match_kind, mac.total_bits), (48, &MatchKind::Exact, 48));

    // set_nexthop(mac_addr_t dmac, mac_addr_t smac, port_t port): 48 + 48 + 9 bits of action data.
    let a = l.action_named("L2L3Ingress.set_nexthop").expect("set_nexthop");
    let params: Vec<(&str, u32, u32)> = a.params.iter().map(|x| (x.name.as_str(), x.bit_offset, x.width)).collect();
    assert_eq!(params, [("dmac", 0, 48), ("smac", 48, 48), ("port", 96, 9)]);
    assert_eq!(a.total_bits, 105);
}

#[test]
fn l2l3_ids_are_prefix_and_folded_fnv1a_of_the_name() {
    let p = l2l3();
    let l = Layouts::of(&p);
    // FNV-1a("L2L3Ingress.ipv4_lpm") = 0x8b.. folded to 24 bits is 0x8b36d5 (computed by hand
    // outside this code); tables carry prefix 0x02, actions 0x01.
    assert_eq!(l.ids.id(Target::Table(table(&p, "L2L3Ingress.ipv4_lpm"))), Some(0x028b_36d5));
    assert_eq!(l.ids.id(Target::Table(table(&p, "L2L3Ingress.mac_table"))), Some(0x029c_a4a5));
    assert_eq!(l.action_named("L2L3Ingress.set_nexthop").map(|a| a.id), Some(0x01ea_3b63));
    assert_eq!(l.ids.find(ObjectKind::Action, "NoAction").map(|o| o.id), Some(0x01e7_fabe));
    assert_eq!(l.ids.by_id(0x028b_36d5).map(|o| o.name.as_str()), Some("L2L3Ingress.ipv4_lpm"));
    // Every id is unique and carries its kind's prefix.
    let mut ids: Vec<u32> = l.ids.objects.iter().map(|o| o.id).collect();
    assert!(l.ids.objects.iter().all(|o| o.id >> 24 == u32::from(o.kind.prefix())));
    ids.dedup();
    assert_eq!(ids.len(), l.ids.objects.len());
}

#[test]
fn layouts_are_the_same_for_two_compilations() {
    assert_eq!(Layouts::of(&l2l3()), Layouts::of(&l2l3()));
}

/// A control with two tables and two actions whose names hash to the same 24 bits
/// (`I.a10354` and `I.a4598` both give 0xcd249e), declared in the order given.
fn two_tables(first: &str, second: &str) -> String {
    let decls = |n: &str| match n {
        "t1" => "action a4598() { } table t1 { key = { hdr.h.a: exact; } actions = { a4598; } }".to_string(),
        _ => "action a10354() { } @id(7) table t2 { key = { hdr.h.a: ternary; hdr.h.b: lpm; } actions = { a10354; } }".to_string(),
    };
    common::program(
        "bit<8> a; bit<16> b;",
        "bit<1> x;",
        "",
        &format!("{} {} apply {{ t1.apply(); t2.apply(); }}", decls(first), decls(second)),
        "apply { }",
    )
}

#[test]
fn ids_do_not_depend_on_declaration_order_and_collisions_resolve_upwards() {
    let ab = compile(&two_tables("t1", "t2"));
    let ba = compile(&two_tables("t2", "t1"));
    let (lab, lba) = (Layouts::of(&ab), Layouts::of(&ba));
    let by_name = |l: &Layouts| -> Vec<(String, u32)> { l.ids.objects.iter().map(|o| (o.name.clone(), o.id)).collect() };
    assert_eq!(by_name(&lab), by_name(&lba));
    // The IR's indices differ between the two, the ids do not.
    assert_ne!(table(&ab, "I.t1"), table(&ba, "I.t1"));
    assert_eq!(lab.ids.id(Target::Table(table(&ab, "I.t1"))), lba.ids.id(Target::Table(table(&ba, "I.t1"))));
    // Sorted order: "I.a10354" < "I.a4598", so the first keeps the hash and the second moves up one.
    assert_eq!(lab.ids.find(ObjectKind::Action, "I.a10354").map(|o| o.id), Some(0x01cd_249e));
    assert_eq!(lab.ids.find(ObjectKind::Action, "I.a4598").map(|o| o.id), Some(0x01cd_249f));
    // `@id(7)` wins over the hash.
    assert_eq!(lab.ids.find(ObjectKind::Table, "I.t2").map(|o| o.id), Some(0x0200_0007));
    // A ternary key makes the table take priorities; the packed key is 8 + 16 bits.
    let k = lab.key(table(&ab, "I.t2"));
    assert_eq!(k.priority_kind, Some(MatchKind::Ternary));
    assert_eq!(k.fields.iter().map(|f| (f.bit_offset, f.width)).collect::<Vec<_>>(), [(0, 8), (8, 16)]);
    assert_eq!(k.total_bits, 24);
}

#[test]
fn printer_lists_layouts_and_ids() {
    let p = l2l3();
    let text = print(&Layouts::of(&p), &p);
    assert!(text.contains("header ipv4_t (160 bits)\n"), "{text}");
    assert!(text.contains("     51   13  frag_offset\n"), "{text}");
    assert!(text.contains("table L2L3Ingress.ipv4_lpm id 0x028b36d5 key 32 bits\n      0   32 lpm      hdr.ipv4.dst_addr\n"), "{text}");
    assert!(text.contains("action L2L3Ingress.set_nexthop id 0x01ea3b63 data 105 bits\n"), "{text}");
    assert!(text.contains("id 0x028b36d5 table L2L3Ingress.ipv4_lpm\n"), "{text}");
}

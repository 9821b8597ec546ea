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
    assert_eq!(
        (f.name.as_str(), f.width, &f.match_kind, f.bit_offset, f.is_valid),
        ("hdr.ipv4.dst_addr", 32, &MatchKind::Lpm, 0, false)
    );
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
fn l2l3_ids_are_prefix_and_one_at_a_time_hash_of_the_name() {
    let p = l2l3();
    let l = Layouts::of(&p);
    // The low 24 bits of one_at_a_time("L2L3Ingress.ipv4_lpm") are 0x070c17 (computed outside this
    // code, by a separate implementation of the hash); tables carry prefix 0x02, actions 0x01.
    assert_eq!(l.ids.id(Target::Table(table(&p, "L2L3Ingress.ipv4_lpm"))), Some(0x0207_0c17));
    assert_eq!(l.ids.id(Target::Table(table(&p, "L2L3Ingress.mac_table"))), Some(0x0238_e772));
    assert_eq!(l.action_named("L2L3Ingress.set_nexthop").map(|a| a.id), Some(0x014c_a5f5));
    assert_eq!(l.ids.find(ObjectKind::Action, "NoAction").map(|o| o.id), Some(0x0144_5b37));
    assert_eq!(l.ids.by_id(0x0207_0c17).map(|o| o.name.as_str()), Some("L2L3Ingress.ipv4_lpm"));
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
/// (`I.a3661` and `I.a601` both give 0x75ad21), declared in the order given.
fn two_tables(first: &str, second: &str) -> String {
    let decls = |n: &str| match n {
        "t1" => {
            "register<bit<12>>(4) r; action a601() { } table t1 { key = { hdr.h.a: exact; } actions = { a601; } }"
                .to_string()
        }
        _ => "action a3661() { } @id(7) table t2 { key = { hdr.h.a: ternary; hdr.h.b: lpm; } actions = { a3661; } }"
            .to_string(),
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
    let by_name =
        |l: &Layouts| -> Vec<(String, u32)> { l.ids.objects.iter().map(|o| (o.name.clone(), o.id)).collect() };
    assert_eq!(by_name(&lab), by_name(&lba));
    // The IR's indices differ between the two, the ids do not.
    assert_ne!(table(&ab, "I.t1"), table(&ba, "I.t1"));
    assert_eq!(lab.ids.id(Target::Table(table(&ab, "I.t1"))), lba.ids.id(Target::Table(table(&ba, "I.t1"))));
    // Sorted order: "I.a3661" < "I.a601", so the first keeps the hash and the second moves up one.
    assert_eq!(lab.ids.find(ObjectKind::Action, "I.a3661").map(|o| o.id), Some(0x0175_ad21));
    assert_eq!(lab.ids.find(ObjectKind::Action, "I.a601").map(|o| o.id), Some(0x0175_ad22));
    // A register: its own prefix 0x16 and a 12-bit cell.
    let r = p4_ir::ExternId(ab.externs.iter().position(|e| e.name == "I.r").expect("register I.r") as u32);
    assert_eq!(lab.register_widths[r.index()], Some(12));
    assert_eq!(lab.ids.id(Target::Extern(r)).map(|id| id >> 24), Some(0x16));
    assert!(print(&lab, &ab).contains("register I.r id 0x16"));
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
    assert!(
        text.contains(
            "table L2L3Ingress.ipv4_lpm id 0x02070c17 key 32 bits\n      0   32 lpm      hdr.ipv4.dst_addr\n"
        ),
        "{text}"
    );
    assert!(text.contains("action L2L3Ingress.set_nexthop id 0x014ca5f5 data 105 bits\n"), "{text}");
    assert!(text.contains("id 0x02070c17 table L2L3Ingress.ipv4_lpm\n"), "{text}");
}

#[test]
fn varbit_nested_struct_enum_and_bool_fields_value_sets_and_selector_keys() {
    let text = r#"
#include <core.p4>
#include <v1model.p4>
enum bit<16> kind_t { A = 1, B = 2 }
struct pair_t { bit<4> x; bit<4> y; }
header h_t { bit<8> a; varbit<32> v; bit<8> b; }
header g_t { pair_t p; bool f; kind_t k; bit<7> z; }
struct headers_t { h_t h; g_t g; }
struct meta_t { bit<8> m; }
struct vs_t { bit<8> a; bit<4> b; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    value_set<vs_t>(4) pvs;
    state start { pkt.extract(hdr.g); transition select(hdr.g.p.x ++ hdr.g.p.y, hdr.g.p.x) { pvs: accept; default: accept; } }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action_selector(HashAlgorithm.crc16, 32w16, 32w14) sel;
    action set(bit<9> port, bit<3> q) { sm.egress_spec = port; }
    table t {
        key = { hdr.g.isValid(): exact; hdr.g.z: selector; hdr.g.k: range; }
        actions = { set; }
        implementation = sel;
    }
    apply { t.apply(); }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.g); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;
    let p = compile(text);
    let l = Layouts::of(&p);
    let fields = |name: &str| -> Vec<(String, Vec<u32>, u32, u32, bool)> {
        l.header_named(name)
            .unwrap()
            .fields
            .iter()
            .map(|f| (f.name.clone(), f.path.clone(), f.bit_offset, f.width, f.varbit))
            .collect()
    };
    // The varbit takes its maximum as width and no room before `b` (its length is known per packet).
    assert_eq!(
        fields("h_t"),
        [("a".into(), vec![0], 0, 8, false), ("v".into(), vec![1], 8, 32, true), ("b".into(), vec![2], 8, 8, false)]
    );
    let h = l.header_named("h_t").unwrap();
    assert_eq!((h.fixed_bits, h.varbit_max), (16, 32));
    // A struct-typed field contributes its members (path = field indices); bool is 1 bit and a
    // serializable enum its underlying width.
    assert_eq!(
        fields("g_t"),
        [
            ("p.x".into(), vec![0, 0], 0, 4, false),
            ("p.y".into(), vec![0, 1], 4, 4, false),
            ("f".into(), vec![1], 8, 1, false),
            ("k".into(), vec![2], 9, 16, false),
            ("z".into(), vec![3], 25, 7, false),
        ]
    );
    assert_eq!(l.header_named("g_t").unwrap().fixed_bits, 32);
    // The selector key is not part of the match: the packed key is 1 (valid) + 16 (range) bits.
    let k = l.key(table(&p, "I.t"));
    let got: Vec<(&str, u32, u32, bool)> =
        k.fields.iter().map(|f| (f.name.as_str(), f.bit_offset, f.width, f.is_valid)).collect();
    assert_eq!(got, [("hdr.g.isValid()", 0, 1, true), ("hdr.g.k", 1, 16, false)]);
    assert_eq!((k.selector_keys.clone(), k.total_bits, k.priority_kind.clone()), (vec![1], 17, Some(MatchKind::Range)));
    // Value set element: 8 + 4 bits on the wire.
    assert_eq!(l.value_set_widths, [12]);
    assert_eq!(l.ids.find(ObjectKind::ValueSet, "P.pvs").map(|o| o.id >> 24), Some(0x03));
    assert_eq!(l.ids.find(ObjectKind::ActionProfile, "I.sel").map(|o| o.id >> 24), Some(0x11));
    let a = l.action_named("I.set").unwrap();
    assert_eq!(a.params.iter().map(|d| (d.bit_offset, d.width)).collect::<Vec<_>>(), [(0, 9), (9, 3)]);
}

/// The switch's control plane checks entries against the same layouts: the priority demanded by the
/// key layout's ternary key, the 8-bit width of `hdr.h.a`, the table found by its id's name.
#[test]
fn control_plane_follows_the_key_layout() {
    use p4_dataplane::control::{ControlError, ControlPlane, KeyValue};
    let mut sw = common::switch(&two_tables("t1", "t2"));
    assert_eq!(sw.layouts().ids.find(ObjectKind::Table, "I.t2").map(|o| o.id), Some(0x0200_0007));
    let masked = |v: u32, m: u32| KeyValue::Masked(v.into(), m.into());
    let prefix = |v: u32, len: u32| KeyValue::Prefix(v.into(), len);
    let missing =
        sw.table_add("I.t2", common::keys(vec![masked(1, 0xff), prefix(0, 0)]), "a3661", common::args(&[]), None);
    assert_eq!(missing, Err(ControlError::MissingPriority { table: "I.t2".into(), kind: "ternary".into() }));
    let wide =
        sw.table_add("t2", common::keys(vec![masked(0x100, 0xff), prefix(0, 0)]), "a3661", common::args(&[]), Some(1));
    assert!(matches!(wide, Err(ControlError::Invalid(m)) if m.contains("does not fit in 8 bits")));
    assert!(sw
        .table_add(
            "t2",
            common::keys(vec![masked(0x12, 0xff), prefix(0x3400, 8)]),
            "a3661",
            common::args(&[]),
            Some(1)
        )
        .is_ok());
}

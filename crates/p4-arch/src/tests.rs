use super::*;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn compile(text: &str) -> Program {
    let c = p4_sema::compile_str("t.p4", text, &[root().join("p4include")]);
    c.program.clone().unwrap_or_else(|| panic!("{}", c.render_diagnostics()))
}

/// The smallest V1Switch program; `port` is the declared width of nothing: ports come from
/// v1model.p4's `standard_metadata_t`.
const MINIMAL: &str = r#"
#include <core.p4>
#include <v1model.p4>
struct h_t {} struct m_t {}
parser P(packet_in p, out h_t h, inout m_t m, inout standard_metadata_t s) { state start { transition accept; } }
control V(inout h_t h, inout m_t m) { apply {} }
control I(inout h_t h, inout m_t m, inout standard_metadata_t s) { apply { mark_to_drop(s); } }
control E(inout h_t h, inout m_t m, inout standard_metadata_t s) { apply {} }
control C(inout h_t h, inout m_t m) { apply {} }
control D(packet_out p, in h_t h) { apply {} }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

#[test]
fn v1model_blocks_in_package_order() {
    let a = v1model();
    assert_eq!(a.package, "V1Switch");
    let roles: Vec<Role> = a.blocks.iter().map(|b| b.role).collect();
    assert_eq!(roles, [Role::Parser, Role::VerifyChecksum, Role::Ingress, Role::Egress, Role::ComputeChecksum, Role::Deparser]);
    assert_eq!(a.blocks[0].kind, BlockKind::Parser);
    assert!(a.blocks[1..].iter().all(|b| b.kind == BlockKind::Control));
}

#[test]
fn v1model_shared_parameters_have_one_position_per_block() {
    let a = v1model();
    for s in a.shared {
        assert_eq!(s.positions.len(), 6, "{}", s.name);
    }
    // standard_metadata: 4th parser parameter, 3rd of ingress and egress, absent elsewhere.
    let sm = a.shared(SharedKind::Intrinsic).unwrap();
    assert_eq!(sm.positions, &[Some(3), None, Some(2), Some(2), None, None]);
    // headers: the deparser's second parameter; user metadata: not the deparser's.
    assert_eq!(a.shared(SharedKind::Headers).unwrap().positions[5], Some(1));
    assert_eq!(a.shared(SharedKind::UserMetadata).unwrap().positions[5], None);
    assert_eq!(a.shared.len(), 3);
}

#[test]
fn v1model_intrinsic_metadata_by_role() {
    let a = v1model();
    assert_eq!(a.intrinsic_type, "standard_metadata_t");
    assert_eq!(a.field(MetaRole::IngressPort), Some("ingress_port"));
    assert_eq!(a.field(MetaRole::EgressSpec), Some("egress_spec"));
    assert_eq!(a.field(MetaRole::IngressTimestamp), Some("ingress_global_timestamp"));
    assert_eq!(a.field(MetaRole::MulticastGroup), Some("mcast_grp"));
    assert_eq!(a.role_of("parser_error"), Some(MetaRole::ParserError));
    assert_eq!(a.role_of("no_such_field"), None);
    assert_eq!(a.drop, DropMarker::AllOnes(MetaRole::EgressSpec));
    // v1model has no way to ask for a packet's transmit time to be written into it.
    assert_eq!(a.tx_stamp(), None);
    // Each role named once.
    for (r, _) in a.intrinsic {
        assert_eq!(a.intrinsic.iter().filter(|(x, _)| x == r).count(), 1, "{r:?}");
    }
}

#[test]
fn v1model_extern_effects() {
    let a = v1model();
    assert_eq!(a.method("register", "read").unwrap().state, StateAccess::Read);
    assert_eq!(a.method("register", "write").unwrap().state, StateAccess::Write);
    assert_eq!(a.method("counter", "count").unwrap().state, StateAccess::ReadWrite);
    assert_eq!(a.method("meter", "execute_meter").unwrap().state, StateAccess::ReadWrite);
    assert_eq!(a.method("direct_meter", "read").unwrap().state, StateAccess::Read);
    assert_eq!(a.method("Checksum16", "get").unwrap().state, StateAccess::None);
    // PSA's names are not v1model's.
    assert_eq!(a.method("Register", "read"), None);
    let read = a.method("register", "read").unwrap();
    assert_eq!(read.params, &[("result", p4_ir::Direction::Out, ParamType::TypeArg(0)), ("index", p4_ir::Direction::In, ParamType::Index(1))]);
    let reg = a.extern_type("register").unwrap();
    assert_eq!((reg.state, reg.size_arg, reg.unit_arg), (StateKind::Register, Some(0), None));
    let m = a.extern_type("meter").unwrap();
    assert_eq!((m.state, m.size_arg, m.unit_arg), (StateKind::Meter, Some(0), Some(1)));
    let dm = a.extern_type("direct_meter").unwrap();
    assert_eq!((dm.state, dm.size_arg, dm.unit_arg), (StateKind::DirectMeter, None, Some(0)));
}

#[test]
fn v1model_extern_functions() {
    let a = v1model();
    let drop = a.function("mark_to_drop").unwrap();
    assert_eq!(drop.side_effect(), Some(SideEffect::Drop));
    assert_eq!(drop.writes, &[MetaRole::EgressSpec, MetaRole::MulticastGroup]);
    assert_eq!(a.function("clone3").unwrap().side_effect(), Some(SideEffect::Clone));
    assert_eq!(a.function("resubmit_preserving_field_list").unwrap().side_effect(), Some(SideEffect::Resubmit));
    assert_eq!(a.function("truncate").unwrap().side_effect(), Some(SideEffect::Truncate));
    assert_eq!(a.function("verify_checksum").unwrap().writes, &[MetaRole::ChecksumError]);
    assert_eq!(a.function("hash").unwrap().side_effect(), None);
    assert_eq!(a.function_for(ExternOp::MarkToDrop).map(|f| f.name), Some("mark_to_drop"));
    // `assert` and `assume` share an operation; the first is found.
    assert_eq!(a.function_for(ExternOp::Assert).map(|f| f.name), Some("assert"));
    assert_eq!(a.function("clone3").unwrap().op, ExternOp::Clone(Preserve::Data(2)));
    assert_eq!(a.function("recirculate_preserving_field_list").unwrap().op, ExternOp::Recirculate(Preserve::FieldList(0)));
    assert_eq!(a.function("verify_checksum_with_payload").unwrap().op, ExternOp::VerifyChecksum { payload: true });
    assert_eq!(a.method("meter", "execute_meter").unwrap().op, ExternOp::MeterExecute);
}

#[test]
fn v1model_hash_algorithms_and_units() {
    let a = v1model();
    assert_eq!(a.hash_algorithm("crc16"), Some(HashAlgorithm::Crc16));
    assert_eq!(a.hash_algorithm("csum16"), Some(HashAlgorithm::Csum16));
    assert_eq!(a.hash_algorithm("crc64"), None);
    assert_eq!(a.hash_algorithms.len(), 8);
    assert_eq!(a.unit_bytes, "bytes");
    assert_eq!(a.instance_value(PacketInstance::Normal), 0);
    assert_eq!(a.instance_value(PacketInstance::Recirculated), 4);
    assert_eq!(a.instance_value(PacketInstance::Resubmitted), 6);
}

#[test]
fn lookup_by_package() {
    assert_eq!(of_package("V1Switch").map(|a| a.name), Some("v1model"));
    assert_eq!(of_package("PSA_Switch").map(|a| a.name), Some("psa"));
    assert_eq!(of_package("OP4T").map(|a| a.name), Some("op4t"));
    assert_eq!(of_package("TNA"), None);
}

#[test]
fn binds_a_v1model_program() {
    let p = compile(MINIMAL);
    assert_eq!(of(&p).map(|a| a.name), Some("v1model"));
    let b = bind(&p).unwrap();
    assert_eq!(b.blocks.len(), 6);
    assert_eq!(b.parser(Role::Parser), Some(ParserId(0)));
    assert_eq!(p.controls[b.control(Role::Ingress).unwrap().index()].block.type_name, "I");
    assert_eq!(p.controls[b.control(Role::Deparser).unwrap().index()].block.type_name, "D");
    assert_eq!(b.control(Role::Parser), None);
    // v1model.p4 declares `bit<9> ingress_port`.
    assert_eq!(b.port_width, Some(9));
    assert_eq!(b.max_port(), 511);
}

#[test]
fn binds_the_l2l3_example() {
    let c = p4_sema::compile_file(&root().join("examples/l2l3/l2l3.p4"), &[root().join("p4include")]);
    let p = c.program.clone().unwrap_or_else(|| panic!("{}", c.render_diagnostics()));
    let b = bind(&p).unwrap();
    assert_eq!(b.port_width, Some(9));
    assert_eq!(b.blocks.len(), 6);
}

/// OP4T's SST example: three blocks (no egress), `t1` the arrival time and the transmit-timestamp
/// request named by role, a 4-bit port.
#[test]
fn binds_the_op4t_sst_example() {
    let c = p4_sema::compile_file(&root().join("examples/op4t-sst/sst.p4"), &[root().join("p4include")]);
    let p = c.program.clone().unwrap_or_else(|| panic!("{}", c.render_diagnostics()));
    let b = bind(&p).unwrap();
    assert_eq!(b.arch.name, "op4t");
    assert_eq!(b.blocks.len(), 3);
    assert_eq!(p.controls[b.control(Role::Ingress).unwrap().index()].block.type_name, "SstProcessor");
    assert_eq!(b.arch.block_index(Role::Egress), None);
    assert_eq!(b.port_width, Some(4));
    assert_eq!(b.arch.field(MetaRole::RxTimestamp), Some("t1"));
    assert_eq!(b.arch.tx_stamp(), Some(("tx_ts", "ts_pos")));
    assert_eq!(b.arch.drop, DropMarker::AllOnes(MetaRole::EgressSpec));
}

#[test]
fn unknown_package_is_an_error_naming_the_known_ones() {
    let mut p = compile(MINIMAL);
    p.main.type_name = "Tofino".into();
    assert_eq!(of(&p), None);
    assert_eq!(bind(&p).unwrap_err(), "package `Tofino`: no architecture description (known: V1Switch, PSA_Switch, OP4T)");
}

#[test]
fn a_control_in_the_parser_position_is_an_error() {
    let mut p = compile(MINIMAL);
    p.main.args.swap(0, 1);
    let e = bind(&p).unwrap_err();
    assert!(e.starts_with("V1Switch argument `"), "{e}");
    assert!(e.ends_with("must be a Parser (its Parser block)"), "{e}");
}

/// The def-use analysis of `p4_ir::cfg` takes extern effects from the description: a
/// `register.read` only reads the instance's state, `write` only (may-)writes it, `count`
/// does both; under an undescribed package every method is assumed to read and write.
#[test]
fn def_use_reads_extern_effects_from_the_description() {
    let src = MINIMAL.replace(
        "control I(inout h_t h, inout m_t m, inout standard_metadata_t s) { apply { mark_to_drop(s); } }",
        r#"control I(inout h_t h, inout m_t m, inout standard_metadata_t s) {
            register<bit<8>>(4) r; counter(4, CounterType.packets) c; bit<8> x;
            action rd() { r.read(x, 1); }
            action wr() { r.write(1, 7); }
            action ct() { c.count(2); }
            table t { key = {} actions = { rd; wr; ct; } }
            apply { t.apply(); } }"#,
    );
    let mut p = compile(&src);
    let id = |name: &str| p4_ir::ActionId(p.actions.iter().position(|a| a.name.ends_with(name)).unwrap() as u32);
    let (rd, wr, ct) = (id("rd"), id("wr"), id("ct"));
    let reg = p4_ir::cfg::Location::extern_state(p4_ir::ExternId(p.externs.iter().position(|e| e.type_name == "register").unwrap() as u32));
    let cnt = p4_ir::cfg::Location::extern_state(p4_ir::ExternId(p.externs.iter().position(|e| e.type_name == "counter").unwrap() as u32));
    let fx = p4_ir::cfg::action_effects(&p, rd);
    assert!(fx.reads.contains(&reg) && !fx.may_writes.contains(&reg));
    let fx = p4_ir::cfg::action_effects(&p, wr);
    assert!(!fx.reads.contains(&reg) && fx.may_writes.contains(&reg) && !fx.must_writes.contains(&reg));
    let fx = p4_ir::cfg::action_effects(&p, ct);
    assert!(fx.reads.contains(&cnt) && fx.may_writes.contains(&cnt));
    // Undescribed architecture: the sound fallback, read and write.
    p.main.type_name = "Unknown".into();
    let fx = p4_ir::cfg::action_effects(&p, rd);
    assert!(fx.reads.contains(&reg) && fx.may_writes.contains(&reg));
}

/// Each extern type says its control-plane object kind; `p4_ir::layout` gives ids by asking the
/// program's architecture, so an undescribed package's externs get none.
#[test]
fn control_plane_object_kinds_come_from_the_description() {
    use p4_ir::layout::{Layouts, ObjectKind, Target};
    let a = v1model();
    assert_eq!(a.object_kind("register"), Some(ObjectKind::Register));
    assert_eq!(a.object_kind("direct_counter"), Some(ObjectKind::DirectCounter));
    assert_eq!(a.object_kind("direct_meter"), Some(ObjectKind::DirectMeter));
    assert_eq!(a.object_kind("action_selector"), Some(ObjectKind::ActionProfile));
    assert_eq!(a.object_kind("Checksum16"), None);
    // PSA's spelling is not v1model's.
    assert_eq!(a.object_kind("Register"), None);
    let src = MINIMAL.replace(
        "control I(inout h_t h, inout m_t m, inout standard_metadata_t s) { apply { mark_to_drop(s); } }",
        "control I(inout h_t h, inout m_t m, inout standard_metadata_t s) { register<bit<8>>(4) r; apply { r.write(0, 1); } }",
    );
    let mut p = compile(&src);
    let r = p4_ir::ExternId(p.externs.iter().position(|e| e.type_name == "register").unwrap() as u32);
    let l = Layouts::of(&p);
    let id = l.ids.id(Target::Extern(r)).expect("a register has an id");
    assert_eq!(id >> 24, u32::from(ObjectKind::Register.prefix()));
    assert_eq!(l.register_widths[r.index()], Some(8));
    p.main.type_name = "Unknown".into();
    let l = Layouts::of(&p);
    assert_eq!(l.ids.id(Target::Extern(r)), None);
    assert_eq!(l.register_widths[r.index()], None);
}

/// Compiles MINIMAL with ingress control body `ingress` and gives the program, the ingress control
/// and the names of its table dependencies as `from -> to Kind key=.. locations`.
fn ingress_deps(ingress: &str) -> (Program, Vec<String>) {
    let src = MINIMAL.replace("control I(inout h_t h, inout m_t m, inout standard_metadata_t s) { apply { mark_to_drop(s); } }", ingress);
    let p = compile(&src);
    let c = bind(&p).unwrap().control(Role::Ingress).unwrap();
    let g = p4_ir::cfg::ControlGraph::build(&p, c);
    let vars = &p.controls[c.index()].block.vars;
    let name = |n: p4_ir::cfg::NodeId| match g.node(n).map(|x| &x.kind) {
        Some(p4_ir::cfg::OpKind::ApplyTable(t)) => p.tables[t.index()].name.clone(),
        _ => "?".into(),
    };
    let deps = g
        .table_deps()
        .iter()
        .map(|d| {
            let ls: Vec<String> = d.locations.iter().map(|l| p4_ir::cfg::location_to_string(&p, vars, l)).collect();
            format!("{} -> {} {:?} key={} {}", name(d.from), name(d.to), d.kind, d.on_key, ls.join(","))
        })
        .collect();
    (p, deps)
}

/// Def-use takes the intrinsic fields an extern function writes from the description: a table
/// keyed on `egress_spec` depends on an earlier table whose action calls `mark_to_drop`, which
/// writes `egress_spec` and `mcast_grp` (BMv2) and nothing else of the struct; a table keyed on
/// `ingress_port` does not depend on it.
#[test]
fn mark_to_drop_writes_the_fields_the_description_lists() {
    let (p, deps) = ingress_deps(
        r#"control I(inout h_t h, inout m_t m, inout standard_metadata_t s) {
            action drop() { mark_to_drop(s); }
            action nop() { }
            table t1 { key = {} actions = { drop; } default_action = drop(); }
            table by_port { key = { s.egress_spec: exact; } actions = { nop; } }
            table by_in_port { key = { s.ingress_port: exact; } actions = { nop; } }
            apply { t1.apply(); by_port.apply(); by_in_port.apply(); } }"#,
    );
    assert_eq!(deps, ["I.t1 -> I.by_port Raw key=true s.egress_spec"]);
    let drop = p4_ir::ActionId(p.actions.iter().position(|a| a.name == "I.drop").unwrap() as u32);
    let fx = p4_ir::cfg::action_effects(&p, drop);
    let c = bind(&p).unwrap().control(Role::Ingress).unwrap();
    let vars = &p.controls[c.index()].block.vars;
    let names = |ls: &std::collections::BTreeSet<p4_ir::cfg::Location>| -> Vec<String> {
        ls.iter().map(|l| p4_ir::cfg::location_to_string(&p, vars, l)).collect()
    };
    assert_eq!(names(&fx.must_writes), ["s.egress_spec", "s.mcast_grp"]);
    assert!(fx.reads.is_empty(), "{:?}", names(&fx.reads));
}

/// The same program under an undescribed package: `mark_to_drop` is an unknown function whose
/// `inout` argument is read and written whole (sound, coarse).
#[test]
fn an_unknown_function_reads_and_writes_its_inout_argument_whole() {
    let (mut p, _) = ingress_deps(
        r#"control I(inout h_t h, inout m_t m, inout standard_metadata_t s) {
            action drop() { mark_to_drop(s); }
            table t1 { key = {} actions = { drop; } default_action = drop(); }
            apply { t1.apply(); } }"#,
    );
    p.main.type_name = "Unknown".into();
    let drop = p4_ir::ActionId(p.actions.iter().position(|a| a.name == "I.drop").unwrap() as u32);
    let fx = p4_ir::cfg::action_effects(&p, drop);
    assert_eq!(fx.must_writes.len(), 1);
    assert!(fx.must_writes.iter().all(|l| l.path.is_empty()), "{:?}", fx.must_writes);
    assert_eq!(fx.reads, fx.must_writes);
}

/// `clone`, `resubmit` and `recirculate` write no intrinsic field (the description lists none):
/// a table keyed on any intrinsic field does not depend on them; their data arguments are read.
#[test]
fn clone_resubmit_recirculate_write_no_intrinsic_field() {
    let (_, deps) = ingress_deps(
        r#"control I(inout h_t h, inout m_t m, inout standard_metadata_t s) {
            action c() { clone(CloneType.I2E, 5); resubmit_preserving_field_list(1); }
            action nop() { }
            table t1 { key = {} actions = { c; } default_action = c(); }
            table t2 { key = { s.egress_spec: exact; s.mcast_grp: exact; s.instance_type: exact; } actions = { nop; } }
            apply { t1.apply(); t2.apply(); } }"#,
    );
    assert!(deps.is_empty(), "{deps:?}");
    for f in ["clone", "resubmit", "recirculate", "clone_preserving_field_list", "recirculate_preserving_field_list"] {
        assert_eq!(v1model().function(f).unwrap().writes, &[], "{f}");
    }
}

/// `MetaRole::ALL` lists every role once, in declaration order, so `role as usize` indexes a
/// per-role array (the dataplane keeps one slot per role).
#[test]
fn meta_roles_index_their_array() {
    for (i, r) in MetaRole::ALL.iter().enumerate() {
        assert_eq!(*r as usize, i, "{r:?}");
    }
    // Every role v1model maps is in the list.
    for (r, _) in v1model().intrinsic {
        assert!(MetaRole::ALL.contains(r), "{r:?}");
    }
    // ... and every role is played by some described architecture.
    for r in MetaRole::ALL {
        assert!(ALL.iter().any(|a| a.field(r).is_some()), "{r:?}");
    }
}

/// A PSA-shaped program: the parts of `psa.p4` the description names (its metadata structs,
/// some externs, the six block types and the three packages), and the smallest blocks.
const PSA_MINI: &str = r#"
#include <core.p4>
typedef bit<32> PortId_t;
enum PSA_PacketPath_t { NORMAL, NORMAL_UNICAST, NORMAL_MULTICAST, CLONE_I2E, CLONE_E2E, RESUBMIT, RECIRCULATE }
struct psa_ingress_parser_input_metadata_t { PortId_t ingress_port; PSA_PacketPath_t packet_path; }
struct psa_egress_parser_input_metadata_t { PortId_t egress_port; PSA_PacketPath_t packet_path; }
struct psa_ingress_input_metadata_t { PortId_t ingress_port; PSA_PacketPath_t packet_path; bit<64> ingress_timestamp; error parser_error; }
struct psa_ingress_output_metadata_t { bit<8> class_of_service; bool clone; bit<16> clone_session_id; bool drop; bool resubmit; bit<32> multicast_group; PortId_t egress_port; }
struct psa_egress_input_metadata_t { bit<8> class_of_service; PortId_t egress_port; PSA_PacketPath_t packet_path; bit<16> instance; bit<64> egress_timestamp; error parser_error; }
struct psa_egress_deparser_input_metadata_t { PortId_t egress_port; }
struct psa_egress_output_metadata_t { bool clone; bit<16> clone_session_id; bool drop; }
enum PSA_CounterType_t { PACKETS, BYTES, PACKETS_AND_BYTES }
extern Counter<W, S> { Counter(bit<32> n_counters, PSA_CounterType_t type); void count(in S index); }
extern Register<T, S> { Register(bit<32> size); T read(in S index); void write(in S index, in T value); }
extern PacketReplicationEngine { PacketReplicationEngine(); }
extern BufferingQueueingEngine { BufferingQueueingEngine(); }
parser IngressParser<H, M, RESUBM, RECIRCM>(packet_in buffer, out H parsed_hdr, inout M user_meta, in psa_ingress_parser_input_metadata_t istd, in RESUBM resubmit_meta, in RECIRCM recirculate_meta);
control Ingress<H, M>(inout H hdr, inout M user_meta, in psa_ingress_input_metadata_t istd, inout psa_ingress_output_metadata_t ostd);
control IngressDeparser<H, M, CI2EM, RESUBM, NM>(packet_out buffer, out CI2EM clone_i2e_meta, out RESUBM resubmit_meta, out NM normal_meta, inout H hdr, in M meta, in psa_ingress_output_metadata_t istd);
parser EgressParser<H, M, NM, CI2EM, CE2EM>(packet_in buffer, out H parsed_hdr, inout M user_meta, in psa_egress_parser_input_metadata_t istd, in NM normal_meta, in CI2EM clone_i2e_meta, in CE2EM clone_e2e_meta);
control Egress<H, M>(inout H hdr, inout M user_meta, in psa_egress_input_metadata_t istd, inout psa_egress_output_metadata_t ostd);
control EgressDeparser<H, M, CE2EM, RECIRCM>(packet_out buffer, out CE2EM clone_e2e_meta, out RECIRCM recirculate_meta, inout H hdr, in M meta, in psa_egress_output_metadata_t istd, in psa_egress_deparser_input_metadata_t edstd);
package IngressPipeline<IH, IM, NM, CI2EM, RESUBM, RECIRCM>(IngressParser<IH, IM, RESUBM, RECIRCM> ip, Ingress<IH, IM> ig, IngressDeparser<IH, IM, CI2EM, RESUBM, NM> id);
package EgressPipeline<EH, EM, NM, CI2EM, CE2EM, RECIRCM>(EgressParser<EH, EM, NM, CI2EM, CE2EM> ep, Egress<EH, EM> eg, EgressDeparser<EH, EM, CE2EM, RECIRCM> ed);
package PSA_Switch<IH, IM, EH, EM, NM, CI2EM, CE2EM, RESUBM, RECIRCM>(IngressPipeline<IH, IM, NM, CI2EM, RESUBM, RECIRCM> ingress, PacketReplicationEngine pre, EgressPipeline<EH, EM, NM, CI2EM, CE2EM, RECIRCM> egress, BufferingQueueingEngine bqe);

header h_t { bit<8> a; }
struct hs { h_t h; }
struct m_t { bit<8> x; }
struct e_hs { h_t h; h_t g; }
struct e_m_t { bit<16> y; }
struct empty_t {}
parser IP(packet_in b, out hs h, inout m_t m, in psa_ingress_parser_input_metadata_t i, in empty_t r, in empty_t rc) { state start { b.extract(h.h); transition accept; } }
control Ig(inout hs h, inout m_t m, in psa_ingress_input_metadata_t i, inout psa_ingress_output_metadata_t o) {
    Counter<bit<32>, bit<8>>(4, PSA_CounterType_t.PACKETS) c;
    Register<bit<8>, bit<8>>(4) r;
    apply { c.count(h.h.a); r.write(0, h.h.a); o.egress_port = i.ingress_port; o.drop = false; }
}
control ID(packet_out b, out empty_t c, out empty_t r, out empty_t n, inout hs h, in m_t m, in psa_ingress_output_metadata_t o) { apply { b.emit(h.h); } }
parser EP(packet_in b, out e_hs h, inout e_m_t m, in psa_egress_parser_input_metadata_t i, in empty_t n, in empty_t c, in empty_t c2) { state start { b.extract(h.h); transition accept; } }
control Eg(inout e_hs h, inout e_m_t m, in psa_egress_input_metadata_t i, inout psa_egress_output_metadata_t o) { apply {} }
control ED(packet_out b, out empty_t c, out empty_t r, inout e_hs h, in e_m_t m, in psa_egress_output_metadata_t o, in psa_egress_deparser_input_metadata_t e) { apply { b.emit(h.h); } }
IngressPipeline(IP(), Ig(), ID()) ip;
EgressPipeline(EP(), Eg(), ED()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
"#;

/// The parameter types of the block bound at `b`.
fn param_types(p: &Program, b: &BlockRef) -> Vec<String> {
    let blk = match b {
        BlockRef::Parser(x) => &p.parsers[x.index()].block,
        BlockRef::Control(x) => &p.controls[x.index()].block,
    };
    blk.params.iter().map(|v| p4_ir::printer::type_to_string(p, &blk.vars[v.index()].ty)).collect()
}

/// PSA is a second description beside v1model, bound with the same code: nested packages,
/// per-pipeline shared storage and split intrinsic metadata are data, not new binding code.
#[test]
fn psa_binds_a_psa_shaped_program() {
    let p = compile(PSA_MINI);
    let a = &psa::PSA;
    assert_eq!(of(&p).map(|a| a.name), Some("psa"));
    let b = bind(&p).unwrap();
    let names: Vec<&str> = b
        .blocks
        .iter()
        .map(|x| match x {
            BlockRef::Parser(i) => p.parsers[i.index()].block.type_name.as_str(),
            BlockRef::Control(i) => p.controls[i.index()].block.type_name.as_str(),
        })
        .collect();
    assert_eq!(names, ["IP", "Ig", "ID", "EP", "Eg", "ED"]);
    assert_eq!(b.control(Role::Ingress).map(|c| p.controls[c.index()].block.type_name.as_str()), Some("Ig"));
    assert_eq!(b.parser(Role::EgressParser).map(|c| p.parsers[c.index()].block.type_name.as_str()), Some("EP"));
    // The ingress port is psa_ingress_input_metadata_t's `PortId_t ingress_port`.
    assert_eq!(b.port_width, Some(32));

    // Each shared parameter is one type in every block that has it (ingress and egress headers
    // are different storages of different types).
    for sp in a.shared {
        assert_eq!(sp.positions.len(), a.blocks.len(), "{}", sp.name);
        let types: Vec<String> = b.blocks.iter().zip(sp.positions).filter_map(|(blk, pos)| param_types(&p, blk).get((*pos)?).cloned()).collect();
        assert_eq!(types.len(), sp.positions.iter().flatten().count(), "{}: {types:?}", sp.name);
        assert!(types.windows(2).all(|w| w[0] == w[1]), "{}: {types:?}", sp.name);
    }
    assert_eq!(param_types(&p, &b.blocks[0])[1], "hs");
    assert_eq!(param_types(&p, &b.blocks[4])[0], "e_hs");

    // Every intrinsic role names a field of its struct in the program; `egress_port` plays two
    // roles, told apart by struct.
    for (role, field) in a.intrinsic {
        let ty = p.find_type(a.struct_of(*role)).unwrap_or_else(|| panic!("{}", a.struct_of(*role)));
        assert!(p.type_def(ty).fields().iter().any(|f| f.name == *field), "{role:?}: {field}");
    }
    // ... and of every other struct listed for it.
    for (role, ty) in a.intrinsic_structs {
        let field = a.field(*role).unwrap();
        let t = p.find_type(ty).unwrap_or_else(|| panic!("{ty}"));
        assert!(p.type_def(t).fields().iter().any(|f| f.name == field), "{role:?}: {ty}.{field}");
    }
    assert_eq!(a.role_in("psa_ingress_output_metadata_t", "egress_port"), Some(MetaRole::EgressSpec));
    assert_eq!(a.role_in("psa_egress_input_metadata_t", "egress_port"), Some(MetaRole::EgressPort));
    assert_eq!(a.role_in("psa_ingress_input_metadata_t", "egress_port"), None);
    assert_eq!(a.drop, DropMarker::AllOnes(MetaRole::Drop));
    assert_eq!(a.struct_of(MetaRole::Drop), "psa_ingress_output_metadata_t");

    // Externs: control-plane kinds, state and signatures in PSA's spelling.
    assert_eq!(a.object_kind("Register"), Some(p4_ir::layout::ObjectKind::Register));
    assert_eq!(a.object_kind("register"), None);
    assert_eq!(a.method("Counter", "count").unwrap().params, &[("index", p4_ir::Direction::In, ParamType::TypeArg(1))]);
    assert_eq!(a.method("Checksum", "get").unwrap().state, StateAccess::Read);
    // The packet-path predicates are P4 functions of psa.p4, not externs.
    assert!(a.function("psa_clone_i2e").is_none());
    assert!(a.holds("psa_egress_parser_input_metadata_t", MetaRole::InstanceType));
    assert!(a.holds("psa_egress_output_metadata_t", MetaRole::Drop));
    assert!(!a.holds("psa_egress_output_metadata_t", MetaRole::Resubmit));
    assert_eq!(a.role_in("psa_egress_deparser_input_metadata_t", "egress_port"), Some(MetaRole::EgressPort));
    for e in &p.externs {
        assert!(a.extern_type(&e.type_name).is_some(), "{} is described", e.type_name);
    }

    // v1model's binding refuses it, and PSA's refuses a v1model program.
    assert_eq!(bind_as(&v1model::V1MODEL, &p).unwrap_err(), "PSA_Switch needs 6 arguments, the program gives 4");
    assert_eq!(bind_as(a, &compile(MINIMAL)).unwrap_err(), "V1Switch needs 4 arguments, the program gives 6");
}

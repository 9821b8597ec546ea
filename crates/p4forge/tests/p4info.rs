//! `p4forge compile --p4runtime-files`: the p4info the P4 reference compiler writes for a program,
//! with its ids, names and aliases.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use p4_runtime::format::{decode, encode, Format};
use p4_runtime::proto::p4::config::v1::{P4Info, Preamble};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn p4forge(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_p4forge")).args(args).current_dir(dir).output().expect("the p4forge binary runs")
}

fn p4info_of(program: &Path) -> Option<P4Info> {
    let compiled = p4forge::frontend::compile(program, &[]).ok()?;
    let layouts = p4_ir::layout::Layouts::of(&compiled.program);
    let catalog = p4_control::catalog::Catalog::of(&compiled.program, &layouts).ok()?;
    Some(p4_runtime::p4info::of(&compiled.program, &layouts, &catalog))
}

/// Bob Jenkins's one-at-a-time hash, written apart from the compiler's (64-bit arithmetic, masked).
fn jenkins(name: &str) -> u32 {
    let m = 0xffff_ffffu64;
    let mut h = 0u64;
    for b in name.bytes() {
        h = (h + u64::from(b)) & m;
        h = (h + (h << 10)) & m;
        h ^= h >> 6;
    }
    h = (h + (h << 3)) & m;
    h ^= h >> 11;
    h = (h + (h << 15)) & m;
    h as u32
}

/// What the reference compiler's rule gives each name of one kind: `@id`s first, then names in
/// sorted order take their hash, probing upwards (wrapping within the 24 bits) past taken ids.
fn reference_ids(prefix: u32, names: &BTreeMap<String, Option<u32>>) -> BTreeMap<String, u32> {
    let mut taken = BTreeSet::new();
    let mut out = BTreeMap::new();
    for (name, given) in names {
        if let Some(v) = given {
            let id = prefix << 24 | (v & 0xff_ffff);
            taken.insert(id);
            out.insert(name.clone(), id);
        }
    }
    for (name, given) in names {
        if given.is_some() {
            continue;
        }
        let mut low = jenkins(name) & 0xff_ffff;
        while taken.contains(&(prefix << 24 | low)) {
            low = (low + 1) % (1 << 24);
        }
        taken.insert(prefix << 24 | low);
        out.insert(name.clone(), prefix << 24 | low);
    }
    out
}

/// Every preamble of `info` with the id prefix its section gives.
fn preambles(info: &P4Info) -> Vec<(u32, &Preamble)> {
    let sections: [(u32, Vec<Option<&Preamble>>); 9] = [
        (0x02, info.tables.iter().map(|x| x.preamble.as_ref()).collect()),
        (0x01, info.actions.iter().map(|x| x.preamble.as_ref()).collect()),
        (0x03, info.value_sets.iter().map(|x| x.preamble.as_ref()).collect()),
        (0x11, info.action_profiles.iter().map(|x| x.preamble.as_ref()).collect()),
        (0x12, info.counters.iter().map(|x| x.preamble.as_ref()).collect()),
        (0x13, info.direct_counters.iter().map(|x| x.preamble.as_ref()).collect()),
        (0x14, info.meters.iter().map(|x| x.preamble.as_ref()).collect()),
        (0x15, info.direct_meters.iter().map(|x| x.preamble.as_ref()).collect()),
        (0x16, info.registers.iter().map(|x| x.preamble.as_ref()).collect()),
    ];
    sections.into_iter().flat_map(|(prefix, ps)| ps.into_iter().flatten().map(move |p| (prefix, p))).collect()
}

/// `@id(N)` of the IR object named `name`, if any.
fn given_id(program: &p4_ir::Program, name: &str) -> Option<u32> {
    let annotations = program
        .tables
        .iter()
        .filter(|t| t.name == name)
        .map(|t| &t.annotations)
        .chain(program.actions.iter().filter(|a| a.name == name).map(|a| &a.annotations))
        .chain(program.externs.iter().filter(|e| e.name == name).map(|e| &e.annotations));
    annotations.flatten().find(|a| a.name == "id").and_then(|a| match a.args.first() {
        Some(p4_ir::Value::Bits { value, .. } | p4_ir::Value::InfInt(value)) => u32::try_from(value.clone()).ok(),
        _ => None,
    })
}

fn programs(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("directory readable").flatten() {
        let path = entry.path();
        if path.is_dir() {
            programs(&path, out);
        } else if path.extension().is_some_and(|e| e == "stf") && path.with_extension("p4").is_file() {
            out.push(path.with_extension("p4"));
        }
    }
}

#[test]
fn basic_forwarding_gets_the_reference_compilers_p4info() {
    let info = p4info_of(&fixtures().join("basic_forward.p4")).expect("compiles");
    // The ids are the ones the reference compiler publishes for these names (the P4 tutorials'
    // basic exercise); fields in number order, one block per element, as its text printer writes.
    let expected = r#"pkg_info {
  arch: "v1model"
}
tables {
  preamble {
    id: 37375156
    name: "MyIngress.ipv4_lpm"
    alias: "ipv4_lpm"
  }
  match_fields {
    id: 1
    name: "hdr.ipv4.dstAddr"
    bitwidth: 32
    match_type: LPM
  }
  action_refs {
    id: 28792405
  }
  action_refs {
    id: 25652968
  }
  action_refs {
    id: 21257015
  }
  initial_default_action {
    action_id: 25652968
  }
  size: 1024
}
actions {
  preamble {
    id: 21257015
    name: "NoAction"
    alias: "NoAction"
  }
}
actions {
  preamble {
    id: 25652968
    name: "MyIngress.drop"
    alias: "drop"
  }
}
actions {
  preamble {
    id: 28792405
    name: "MyIngress.ipv4_forward"
    alias: "ipv4_forward"
  }
  params {
    id: 1
    name: "dstAddr"
    bitwidth: 48
  }
  params {
    id: 2
    name: "port"
    bitwidth: 9
  }
}
type_info {
}
"#;
    assert_eq!(String::from_utf8(encode(&info, Format::Text)).expect("UTF-8"), expected);
    // Every form reads back to the same message.
    for format in [Format::Text, Format::Binary, Format::Json] {
        assert_eq!(decode::<P4Info>(&encode(&info, format), format).as_ref(), Ok(&info), "{format:?}");
    }
    let json = String::from_utf8(encode(&info, Format::Json)).expect("UTF-8");
    assert!(json.contains("\"matchFields\": [") && json.contains("\"size\": \"1024\""), "{json}");
}

#[test]
fn every_example_and_stf_program_gets_the_reference_ids_and_aliases() {
    let mut files = Vec::new();
    for dir in ["examples", "tests/stf", "tests/stf-psa"] {
        programs(&root().join(dir), &mut files);
    }
    files.sort();
    let (mut checked, mut objects) = (0, 0);
    for file in &files {
        let Some(info) = p4info_of(file) else { continue };
        let compiled = p4forge::frontend::compile(file, &[]).expect("compiled above");
        let mut by_prefix: BTreeMap<u32, BTreeMap<String, Option<u32>>> = BTreeMap::new();
        for (prefix, p) in preambles(&info) {
            by_prefix.entry(prefix).or_default().insert(p.name.clone(), given_id(&compiled.program, &p.name));
        }
        let names: Vec<&str> = preambles(&info).iter().map(|(_, p)| p.name.as_str()).collect();
        for (prefix, p) in preambles(&info) {
            let expected = reference_ids(prefix, &by_prefix[&prefix])[&p.name];
            assert_eq!(p.id, expected, "{}: {} id {:#x}, the rule gives {expected:#x}", file.display(), p.name, p.id);
            // The alias: the shortest dot-separated suffix that no other name ends with.
            let ends_with = |n: &str, s: &str| n == s || n.ends_with(&format!(".{s}"));
            assert!(ends_with(&p.name, &p.alias), "{}: alias {} of {}", file.display(), p.alias, p.name);
            let others = names.iter().filter(|n| **n != p.name && ends_with(n, &p.alias)).count();
            assert_eq!(others, 0, "{}: alias {} of {} is not unique", file.display(), p.alias, p.name);
            let shorter = p.alias.find('.').map(|i| &p.alias[i + 1..]);
            if let Some(shorter) = shorter {
                assert!(
                    names.iter().any(|n| *n != p.name && ends_with(n, shorter)),
                    "{}: alias {} of {} could be {shorter}",
                    file.display(),
                    p.alias,
                    p.name
                );
            }
            objects += 1;
        }
        // Match fields and parameters are numbered from 1.
        for t in &info.tables {
            assert!(t.match_fields.iter().enumerate().all(|(i, f)| f.id == i as u32 + 1), "{}", file.display());
        }
        for a in &info.actions {
            assert!(a.params.iter().enumerate().all(|(i, f)| f.id == i as u32 + 1), "{}", file.display());
        }
        checked += 1;
    }
    // Most of the suite compiles (the rest is checked by the STF suite itself).
    assert!(checked >= 60 && objects >= 100, "{checked} programs, {objects} objects");
}

#[test]
fn p4runtime_files_are_written_in_the_form_their_names_ask_for() {
    let dir = p4_io::testing::scratch_dir("p4forge-p4info", "forms");
    let program = fixtures().join("basic_forward.p4");
    let program = program.to_str().expect("UTF-8 path");
    let out = p4forge(&["compile", program, "--p4runtime-files", "p.txt,p.bin,p.json"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.stdout, b"", "only the files, as the reference compiler does");
    let read = |name: &str, format| decode::<P4Info>(&std::fs::read(dir.path().join(name)).expect("written"), format);
    let text = read("p.txt", Format::Text).expect("text");
    assert_eq!(read("p.bin", Format::Binary).as_ref(), Ok(&text));
    assert_eq!(read("p.json", Format::Json).as_ref(), Ok(&text));
    assert_eq!(text.tables[0].preamble.as_ref().map(|p| p.id), Some(37_375_156));

    // --p4runtime-format wins over the extension; --emit still prints.
    let out = p4forge(&["compile", program, "--p4runtime-files", "q.txt", "--p4runtime-format", "json", "--emit", "ir"], dir.path());
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(read("q.txt", Format::Json).as_ref(), Ok(&text));
    assert!(String::from_utf8_lossy(&out.stdout).contains("MyIngress.ipv4_lpm"));

    // A name whose form is unknown is refused before anything is written.
    let out = p4forge(&["compile", program, "--p4runtime-files", "r.txt,r.proto"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --p4runtime-files r.proto: the extension names no format (.txt/.txtpb text, .bin/.pb binary, .json JSON); or give --p4runtime-format\n"
    );
    assert!(!dir.path().join("r.txt").exists());
    let out = p4forge(&["compile", program, "--p4runtime-files", "s.txt", "--p4runtime-format", "yaml"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "error: --p4runtime-format yaml: expected text, binary or json\n");
}

#[test]
fn validity_keys_and_renamed_tables_are_named_as_the_reference_compiler_names_them() {
    let info = p4info_of(&root().join("tests/stf/control_plane_names.p4")).expect("compiles");
    let table = |name: &str| info.tables.iter().find(|t| t.preamble.as_ref().is_some_and(|p| p.name == name));
    let by_validity = table("TestIngress.by_validity").expect("by_validity");
    assert_eq!(by_validity.match_fields[0].name, "hdr.opt.$valid$");
    assert_eq!(by_validity.match_fields[0].bitwidth, 1);
    // `@name("renamed_table")` on a table of TestIngress: its control-plane name is TestIngress.renamed_table.
    let renamed = table("TestIngress.renamed_table").expect("the @name");
    assert_eq!(renamed.preamble.as_ref().map(|p| p.alias.as_str()), Some("renamed_table"));
}

#[test]
fn action_profiles_list_their_tables_size_selector_and_max_group_size() {
    let dir = tempfile_dir("profiles");
    let source = std::fs::read_to_string(fixtures().join("p4runtime_selector.p4")).expect("fixture");
    let program = dir.join("selector.p4");
    let annotated = source.replace("action_selector(HashAlgorithm.crc16", "@max_group_size(4) action_selector(HashAlgorithm.crc16");
    assert_ne!(annotated, source, "the fixture declares the selector");
    std::fs::write(&program, annotated).expect("written");
    let info = p4info_of(&program).expect("compiles");
    let table_id = |name: &str| info.tables.iter().filter_map(|t| t.preamble.as_ref()).find(|p| p.name == name).expect("table").id;
    let summary: Vec<(String, Vec<u32>, bool, i64, i32)> = info
        .action_profiles
        .iter()
        .map(|p| (p.preamble.as_ref().expect("preamble").name.clone(), p.table_ids.clone(), p.with_selector, p.size, p.max_group_size))
        .collect();
    assert_eq!(
        summary,
        [
            ("I.acl_profile".to_string(), vec![table_id("I.acl")], false, 64, 0),
            ("I.ecmp_selector".to_string(), vec![table_id("I.ecmp")], true, 128, 4),
        ]
    );
    let implementation = |name: &str| info.tables.iter().find(|t| t.preamble.as_ref().is_some_and(|p| p.name == name)).expect("table").implementation_id;
    assert_eq!(implementation("I.ecmp"), info.action_profiles[1].preamble.as_ref().expect("preamble").id);
}

/// A fresh directory under the target directory's temporary space.
fn tempfile_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("p4info-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    dir
}

#[test]
fn match_field_and_parameter_ids_come_from_id_annotations_else_count_up_skipping_them() {
    let info = p4info_of(&fixtures().join("p4runtime_ids.p4")).expect("compiles");
    let table = info.tables.iter().find(|t| t.preamble.as_ref().is_some_and(|p| p.name == "I.t")).expect("I.t");
    let fields: Vec<(u32, &str)> = table.match_fields.iter().map(|f| (f.id, f.name.as_str())).collect();
    assert_eq!(fields, [(5, "hdr.h.a"), (2, "hdr.h.b"), (1, "hdr.h.c")]);
    let set = info.actions.iter().find(|a| a.preamble.as_ref().is_some_and(|p| p.name == "I.set")).expect("I.set");
    let params: Vec<(u32, &str)> = set.params.iter().map(|p| (p.id, p.name.as_str())).collect();
    assert_eq!(params, [(3, "port"), (1, "tag")]);
    // Two keys with one id: refused with the reason.
    let dir = tempfile_dir("duplicate-ids");
    let source = std::fs::read_to_string(fixtures().join("p4runtime_ids.p4")).expect("fixture");
    let program = dir.join("dup.p4");
    std::fs::write(&program, source.replace("hdr.h.c: exact @id(1)", "hdr.h.c: exact @id(5)")).expect("written");
    let out = p4forge(&["check", program.to_str().expect("utf-8")], &dir);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("two keys of this table have @id(5): match-field ids must differ"), "{stderr}");
}

#[test]
fn a_hidden_table_and_the_actions_only_it_uses_stay_out_of_the_p4info() {
    let dir = tempfile_dir("hidden");
    let source = std::fs::read_to_string(fixtures().join("p4runtime_ids.p4")).expect("fixture");
    let program = dir.join("hidden.p4");
    let hidden = source.replace("    table t {", "    @hidden table t {");
    assert_ne!(hidden, source);
    std::fs::write(&program, hidden).expect("written");
    let info = p4info_of(&program).expect("compiles");
    let names: Vec<&str> = info.tables.iter().filter_map(|t| t.preamble.as_ref()).map(|p| p.name.as_str()).collect();
    assert_eq!(names, Vec::<&str>::new());
    assert!(info.actions.is_empty(), "{:?}", info.actions);
}

#[test]
fn keys_and_parameters_of_a_new_type_are_named_and_a_translated_one_has_its_sdn_width() {
    use p4_runtime::proto::p4::config::v1 as p4info;
    let info = p4info_of(&fixtures().join("p4runtime_types.p4")).expect("compiles");
    let named = |n: &str| Some(p4info::P4NamedType { name: n.to_string() });
    let field = &info.tables[0].match_fields[0];
    assert_eq!((field.bitwidth, field.type_name.clone()), (32, named("PortId_t")));
    let set = info.actions.iter().find(|a| a.preamble.as_ref().is_some_and(|p| p.name == "I.set")).expect("I.set");
    let params: Vec<(i32, Option<p4info::P4NamedType>)> = set.params.iter().map(|p| (p.bitwidth, p.type_name.clone())).collect();
    assert_eq!(params, [(32, named("PortId_t")), (8, named("Tag_t"))]);
    let types = info.type_info.expect("type_info").new_types;
    use p4info::p4_new_type_spec::Representation;
    let translated = Representation::TranslatedType(p4info::P4NewTypeTranslation {
        uri: "p4.org/psa/v1/PortId_t".into(),
        sdn_type: Some(p4info::p4_new_type_translation::SdnType::SdnBitwidth(32)),
    });
    assert_eq!(types["PortId_t"].representation, Some(translated));
    assert!(matches!(&types["Tag_t"].representation, Some(Representation::OriginalType(_))), "{:?}", types["Tag_t"]);
}

#[test]
fn actions_called_directly_are_listed_and_a_named_inline_implementation_keeps_its_name() {
    let dir = tempfile_dir("direct-actions");
    let program = dir.join("direct.p4");
    let source = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action mark() { hdr.h.a = 1; }
    action twice() { mark(); mark(); }
    action set_port(bit<9> p) { sm.egress_spec = p; }
    table t {
        key = { hdr.h.a: exact; }
        actions = { set_port; NoAction; }
        @name("t_profile") implementation = action_profile(32w16);
    }
    apply { twice(); t.apply(); }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;
    std::fs::write(&program, source).expect("written");
    let info = p4info_of(&program).expect("compiles");
    let mut actions: Vec<&str> = info.actions.iter().filter_map(|a| a.preamble.as_ref()).map(|p| p.name.as_str()).collect();
    actions.sort();
    // `twice` is called from the apply block and `mark` from `twice`; the table's come too.
    assert_eq!(actions, ["I.mark", "I.set_port", "I.twice", "NoAction"]);
    let profiles: Vec<&str> = info.action_profiles.iter().filter_map(|p| p.preamble.as_ref()).map(|p| p.name.as_str()).collect();
    assert_eq!(profiles, ["t_profile"]);
}

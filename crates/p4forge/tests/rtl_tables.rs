//! Which `hw/` module holds each table of a generated design, and what the pipeline does around
//! it:
//!
//! - `large_tcams_go_on_block_ram`: l2l3's 1,024-entry `ipv4_lpm` is `p4f_table_tcam_bram` (4-cycle
//!   lookup); the two hash tables looked up beside it have their results delayed 2 cycles to meet
//!   it; the table's busy output holds the register file's writes and shows in the status words.
//! - `tcam_flops_and_small_tables_stay_in_flip_flops`: `--tcam-flops` (`TableOptions::tcam_flops`)
//!   and a ternary table of fewer than `TCAM_BRAM_MIN_ENTRIES` entries give `p4f_table_tcam`, with
//!   no delay and no busy signal.

use std::path::{Path, PathBuf};

use p4_rtl::{Design, TableModule};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn design(p4: &Path, name: &str, opts: &p4_rtl::Options) -> Design {
    let program = p4forge::frontend::compile(p4, &[]).unwrap().lowered(p4).unwrap().program;
    p4_rtl::generate(&program, name, opts).unwrap()
}

fn file<'a>(d: &'a Design, name: &str) -> &'a str {
    &d.generated.iter().find(|(n, _)| n == name).unwrap().1
}

fn modules(d: &Design) -> Vec<(String, TableModule, u32)> {
    d.manifest.tables.iter().map(|t| (t.name.clone(), t.module, t.latency)).collect()
}

#[test]
fn large_tcams_go_on_block_ram() {
    let d = design(&root().join("examples/l2l3/l2l3.p4"), "l2l3", &p4_rtl::Options::default());
    assert_eq!(
        modules(&d),
        [
            ("L2L3Ingress.router_mac".to_string(), TableModule::ExactHash, 2),
            ("L2L3Ingress.mac_table".to_string(), TableModule::ExactHash, 2),
            ("L2L3Ingress.ipv4_lpm".to_string(), TableModule::TcamBram, 4),
        ]
    );
    let ingress = file(&d, "l2l3_ingress.sv");
    assert!(ingress.contains("p4f_table_tcam_bram #(.KEY_W(32), .DATA_W(106), .ENTRIES(1024)) u_L2L3Ingress_ipv4_lpm ("));
    assert!(ingress.contains(".wr_ready(L2L3Ingress_ipv4_lpm_wr_ready), .wr_en("));
    assert!(ingress.contains("assign L2L3Ingress_ipv4_lpm_busy = !L2L3Ingress_ipv4_lpm_wr_ready;"));
    // The three lookups share stages 1..4; the hash results wait two enabled cycles.
    assert!(ingress.contains("// lookup of L2L3Ingress.router_mac, L2L3Ingress.mac_table, L2L3Ingress.ipv4_lpm in stages 1..4"));
    assert!(ingress.contains(
        "always_ff @(posedge clk) if (ce) L2L3Ingress_mac_table_res_pipe <= {L2L3Ingress_mac_table_res_pipe[10:0], L2L3Ingress_mac_table_mem_hit, L2L3Ingress_mac_table_mem_data};"
    ));
    assert!(ingress.contains(
        "assign {L2L3Ingress_mac_table_res_hit, L2L3Ingress_mac_table_res_data} = L2L3Ingress_mac_table_res_pipe[11 +: 11];"
    ));
    assert!(!ingress.contains("L2L3Ingress_ipv4_lpm_res_pipe"));
    let top = file(&d, "l2l3_top.sv");
    assert!(top.contains(".write_hold(tables_busy), .status({31'd0, tables_busy, stat_loops,"));
    assert!(top.contains("assign tables_busy = ingress_L2L3Ingress_ipv4_lpm_busy;"));
    assert!(d.hw_modules.iter().any(|m| m == "p4f_table_tcam_bram"));
    assert!(!d.hw_modules.iter().any(|m| m == "p4f_table_tcam"));
    let words = d.manifest.control_words * 4;
    assert_eq!(d.manifest.status["tables_busy"], words + 20);
}

const SMALL_TERNARY: &str = r#"
#include <v1model.p4>
header h_t { bit<16> a; bit<16> b; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control NoCk(inout headers_t hdr, inout meta_t m) { apply { } }
control Ing(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    action fwd(bit<9> port) { sm.egress_spec = port; }
    table acl {
        key = { hdr.h.a: ternary; }
        actions = { fwd; NoAction; }
        size = 16;
    }
    apply { acl.apply(); }
}
control Eg(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), NoCk(), Ing(), Eg(), NoCk(), Dep()) main;
"#;

#[test]
fn tcam_flops_and_small_tables_stay_in_flip_flops() {
    let mut opts = p4_rtl::Options::default();
    opts.tables.tcam_flops = true;
    let d = design(&root().join("examples/l2l3/l2l3.p4"), "l2l3", &opts);
    assert_eq!(d.manifest.tables[2].module, TableModule::TcamFlops);
    assert_eq!(d.manifest.tables[2].latency, 2);
    let ingress = file(&d, "l2l3_ingress.sv");
    assert!(ingress.contains("p4f_table_tcam #(.KEY_W(32), .DATA_W(106), .ENTRIES(1024)) u_L2L3Ingress_ipv4_lpm ("));
    assert!(!ingress.contains("_res_pipe") && !ingress.contains("_busy"));
    assert!(file(&d, "l2l3_top.sv").contains("assign tables_busy = 1'b0;"));

    let dir = std::env::temp_dir().join(format!("p4forge-rtl-tables-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p4 = dir.join("small_acl.p4");
    std::fs::write(&p4, SMALL_TERNARY).unwrap();
    let d = design(&p4, "small_acl", &p4_rtl::Options::default());
    let _ = std::fs::remove_dir_all(&dir);
    assert!(16 < p4_rtl::tables::TCAM_BRAM_MIN_ENTRIES);
    assert_eq!(modules(&d), [("Ing.acl".to_string(), TableModule::TcamFlops, 2)]);
    assert!(file(&d, "small_acl_ingress.sv").contains("p4f_table_tcam #(.KEY_W(16), .DATA_W("));
}

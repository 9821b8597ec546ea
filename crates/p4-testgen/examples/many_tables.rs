//! Prints a v1model program whose ingress applies N exact tables in a row (default 10,000), and
//! writes nothing else: the input of the front end's and dataplane's scale figures
//! (docs/PERFORMANCE.md). Usage: `cargo run --release -p p4-testgen --example many_tables -- N > t.p4`.

use std::io::Write;

fn main() {
    let n: usize = match std::env::args().nth(1).map(|a| a.parse()) {
        None => 10_000,
        Some(Ok(n)) => n,
        Some(Err(_)) => {
            eprintln!("usage: many_tables [N]   (N tables; default 10000)");
            std::process::exit(2);
        }
    };
    let mut text = String::from(
        "#include <v1model.p4>\nheader h_t { bit<8> a; bit<8> b; }\nstruct headers { h_t h; }\nstruct meta_t { }\n\
         parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {\n\
         \x20   state start { pkt.extract(hdr.h); transition accept; }\n}\n\
         control VC(inout headers hdr, inout meta_t meta) { apply {} }\n\
         control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {\n\
         \x20   action set(bit<8> v) { hdr.h.b = v; }\n",
    );
    for i in 0..n {
        text.push_str(&format!("    table t{i} {{ key = {{ hdr.h.a: exact; }} actions = {{ set; NoAction; }} default_action = NoAction(); }}\n"));
    }
    text.push_str("    apply {\n");
    for i in 0..n {
        text.push_str(&format!("        t{i}.apply();\n"));
    }
    text.push_str(
        "    }\n}\ncontrol E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply {} }\n\
         control CC(inout headers hdr, inout meta_t meta) { apply {} }\n\
         control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }\n\
         V1Switch(P(), VC(), I(), E(), CC(), D()) main;\n",
    );
    if let Err(e) = std::io::stdout().lock().write_all(text.as_bytes()) {
        eprintln!("many_tables: cannot write standard output: {e}");
        std::process::exit(1);
    }
}

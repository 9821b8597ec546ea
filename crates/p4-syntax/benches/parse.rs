//! Front-end throughput: preprocess + parse of the construct-coverage program, and of a large
//! synthetic program (many tables and actions), plus printing.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use p4_syntax::{parse_str, print_program, span::SourceMap};

const CONSTRUCTS: &str = include_str!("../tests/programs/constructs.p4");

/// A v1model-shaped program with `n` actions and tables.
fn synthetic(n: usize) -> String {
    let mut s = String::from("#include <core.p4>\nheader h_t { bit<32> a; bit<32> b; }\nstruct hs { h_t h; }\n");
    s.push_str("control c(inout hs hdr) {\n");
    for i in 0..n {
        s.push_str(&format!(
            "    action a{i}(bit<32> v) {{ hdr.h.a = hdr.h.a + v * {i}; hdr.h.b = (hdr.h.a >> 3) ^ 32w0x{i:x}; }}\n    table t{i} {{ key = {{ hdr.h.a : exact; hdr.h.b : ternary; }} actions = {{ a{i}; NoAction; }} default_action = NoAction(); size = 1024; }}\n"
        ));
    }
    s.push_str("    apply {\n");
    for i in 0..n {
        s.push_str(&format!("        if (hdr.h.a == {i}) {{ t{i}.apply(); }}\n"));
    }
    s.push_str("    }\n}\n");
    s
}

fn bench(c: &mut Criterion) {
    let big = synthetic(500);
    let mut g = c.benchmark_group("parse");
    for (name, text) in [("constructs", CONSTRUCTS.to_string()), ("synthetic_500_tables", big)] {
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut sm = SourceMap::new();
                parse_str("bench.p4", &text, &[], &mut sm)
            })
        });
    }
    g.finish();
    let mut sm = SourceMap::new();
    let program = parse_str("bench.p4", &synthetic(500), &[], &mut sm).program;
    c.bench_function("print/synthetic_500_tables", |b| b.iter(|| print_program(&program)));
}

criterion_group!(benches, bench);
criterion_main!(benches);

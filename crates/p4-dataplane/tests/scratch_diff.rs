use std::sync::Arc;
use p4_dataplane::Switch;
mod common;
#[test]
fn scratch() {
    let text = std::fs::read_to_string("/tmp/prog.p4").unwrap();
    let pk: Vec<Vec<u8>> = std::fs::read_to_string("/tmp/pkts").unwrap().lines().filter(|l| !l.is_empty()).map(|l| (0..l.len()/2).map(|i| u8::from_str_radix(&l[2*i..2*i+2],16).unwrap()).collect()).collect();
    let c = p4_sema::compile_str("p.p4", &text, &[common::include_dir()]);
    let p = Arc::new(c.program.clone().unwrap_or_else(|| panic!("{}", c.render_diagnostics())));
    let mut r = Switch::reference(p.clone()).unwrap();
    let p2 = p.clone();
    let mut f = Switch::new(p).unwrap();
    eprintln!("mc: {:?} bridged: {:?}", f.machine_code(), f.bridged_statement());
    let a = common::outcome(&mut r, &pk, 0);
    let b = common::outcome(&mut f, &pk, 0);
    for (x, y) in a.iter().zip(&b) { if x != y { eprintln!("ref  {:02x?}\nfast {:02x?}", x, y); } }
    let mut g = Switch::new(p2).unwrap();
    g.use_machine_code(false);
    let c2 = common::outcome(&mut g, &pk, 0);
    eprintln!("closures of wire-format agree with reference: {}", c2 == a);
    assert_eq!(a.len(), b.len());
    assert!(a == b);
}

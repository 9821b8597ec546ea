//! Random programs (p4-dataplane's `tests/common/random_program.rs`) lowered by the mid-end, with
//! the structural check and the IR verifier after every pass, must give the same packets, drops
//! and log lines on the wire-format executor as the program straight from sema on the reference
//! interpreter (`p4-reference`), the project's oracle. `P4F_RANDOM_PROGRAMS=N` runs N seeds instead of the default (200); `P4F_RANDOM_SEED=S`
//! runs only S.

mod common;
#[path = "../../p4-dataplane/tests/common/mod.rs"]
mod dataplane;

use std::sync::Arc;

use p4_dataplane::Switch;

/// The outcome with the control a drop call was made in left out of drop reasons: once the
/// mid-end inlines a sub-control, its drop calls are made in the control that applied it.
fn drops_anywhere(outcome: Vec<(u32, u32, Vec<u8>)>) -> Vec<(u32, u32, Vec<u8>)> {
    outcome
        .into_iter()
        .map(|(input, port, data)| {
            let text = String::from_utf8_lossy(&data);
            match (port, text.strip_prefix("mark_to_drop in ")) {
                (u32::MAX, Some(rest)) => (input, port, format!("mark_to_drop in <control>{}", rest.find(' ').map_or("", |i| &rest[i..])).into_bytes()),
                _ => (input, port, data),
            }
        })
        .collect()
}

#[test]
fn random_programs_give_the_same_packets_lowered() {
    let include = common::repo_root().join("p4include");
    let mut failures = Vec::new();
    let seeds = dataplane::random_program::seeds(200);
    for &seed in &seeds {
        let g = dataplane::random_program::generate(seed);
        let compiled = p4_sema::compile_str("random.p4", &g.text, &[include.clone()]);
        let Some(program) = compiled.program else {
            failures.push(format!("seed {seed}: did not compile:\n{}\n{}", compiled.render_diagnostics(), g.text));
            continue;
        };
        let known = common::verify_errors(&program);
        let mut reference = match p4_reference::Interpreter::new(Arc::new(program.clone())) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("seed {seed}: the reference interpreter refused: {e}\n{}", g.text));
                continue;
            }
        };
        let lowered = match p4_midend::Pipeline::default().run_with(program, |pass, p| common::check_and_verify(pass, p, &known)) {
            Ok(l) => l,
            Err(e) => {
                failures.push(format!("seed {seed}: lowering failed: {e}\n{}", g.text));
                continue;
            }
        };
        let mut fast = match Switch::new(Arc::new(lowered)) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("seed {seed}: the wire-format executor refused the lowered program: {e}\n{}", g.text));
                continue;
            }
        };
        dataplane::mirror_and_group(&mut reference);
        dataplane::mirror_and_group(&mut fast);
        let mut want = dataplane::injected(&mut reference, &g.packets);
        want.sort();
        let (want, got) = (drops_anywhere(want), drops_anywhere(dataplane::outcome(&mut fast, &g.packets, 0)));
        failures.extend(dataplane::random_program::difference(&g, ["unlowered", "lowered"], &want, &got));
    }
    dataplane::random_program::report(&format!("{} programs", seeds.len()), &failures, seeds.len());
}

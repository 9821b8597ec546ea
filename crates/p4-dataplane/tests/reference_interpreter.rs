//! Random programs (`common::random_program`), lowered by the mid-end as the CLI runs them, on
//! the software switch (`Switch::new`) and on the reference interpreter (`p4-reference`): every
//! packet must give the same outputs, drops and log lines on both.
//! `P4F_RANDOM_PROGRAMS=N` runs N seeds instead of the default; `P4F_RANDOM_SEED=S` runs only S.

use std::sync::Arc;

use p4_dataplane::Switch;
use p4_reference::Interpreter;

mod common;
use common::{injected as outcome, mirror_and_group, random_program};

#[test]
fn random_programs_give_the_same_packets_on_the_switch_and_the_reference_interpreter() {
    let mut failures = Vec::new();
    let (mut compared, mut packets, mut refused) = (0, 0, 0);
    let seeds = random_program::seeds(300);
    for &seed in &seeds {
        let g = random_program::generate(seed);
        let compiled = p4_sema::compile_str("random.p4", &g.text, &[common::include_dir()]);
        let Some(program) = compiled.program else {
            failures.push(format!("seed {seed}: did not compile:\n{}\n{}", compiled.render_diagnostics(), g.text));
            continue;
        };
        let lowered = match p4_midend::lower(program) {
            Ok(l) => Arc::new(l),
            Err(e) => {
                failures.push(format!("seed {seed}: lowering failed: {e}\n{}", g.text));
                continue;
            }
        };
        let mut switch = match Switch::new(lowered.clone()) {
            Ok(s) => s,
            // The wire-format executor does not take every program (wide header fields it cannot
            // reach); that is no question for the reference interpreter.
            Err(e) if e.kind == p4_dataplane::DataplaneErrorKind::Unsupported => {
                refused += 1;
                continue;
            }
            Err(e) => {
                failures.push(format!("seed {seed}: the switch refused the lowered program: {e}\n{}", g.text));
                continue;
            }
        };
        let mut reference = match Interpreter::new(lowered) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("seed {seed}: the reference interpreter refused: {e}\n{}", g.text));
                continue;
            }
        };
        mirror_and_group(&mut switch);
        mirror_and_group(&mut reference);
        let want = outcome(&mut reference, &g.packets);
        let got = outcome(&mut switch, &g.packets);
        compared += 1;
        packets += g.packets.len();
        failures.extend(random_program::difference(&g, ["reference", "switch"], &want, &got));
    }
    let summary = format!(
        "{compared} of {} programs compared packet by packet ({packets} packets; {refused} the switch does not run)",
        seeds.len()
    );
    random_program::report(&summary, &failures, seeds.len());
}

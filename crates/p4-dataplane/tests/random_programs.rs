//! Random programs (`common::random_program`) on the switch (`Switch::new`: the wire-format
//! executor, machine code where it takes the program), and traced, against the reference
//! interpreter (`p4-reference`) on the same program: the same packets, drops and log lines out.
//! Programs run as elaborated (calls of P4 functions included); `reference_interpreter.rs` runs
//! every program lowered.
//! `P4F_RANDOM_PROGRAMS=N` runs N seeds instead of the default; `P4F_RANDOM_SEED=S` runs only S;
//! `P4F_WHY=1` prints why each program without a whole-packet machine-code function has none.

use std::sync::Arc;

use p4_dataplane::Switch;
use p4_reference::Interpreter;

mod common;
use common::random_program;

#[test]
fn random_programs_give_the_same_packets_on_the_switch_and_the_reference() {
    let mut failures = Vec::new();
    let (mut machine_code, mut for_the_mid_end) = (0, 0);
    let seeds = random_program::seeds(300);
    for &seed in &seeds {
        let g = random_program::generate(seed);
        let compiled = p4_sema::compile_str("random.p4", &g.text, &[common::include_dir()]);
        let Some(program) = compiled.program else {
            failures.push(format!("seed {seed}: did not compile:\n{}\n{}", compiled.render_diagnostics(), g.text));
            continue;
        };
        let program = Arc::new(program);
        let mut reference = match Interpreter::new(program.clone()) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("seed {seed}: the reference interpreter refused: {e}\n{}", g.text));
                continue;
            }
        };
        let mut fast = match Switch::new(program.clone()) {
            Ok(s) => s,
            // The mid-end inlines sub-controls and functions that emit first (p4-midend's
            // random_programs test and reference_interpreter.rs run them).
            Err(e) if e.message.contains("a sub-block application") || e.message.ends_with("which emits") => {
                for_the_mid_end += 1;
                continue;
            }
            Err(e) => {
                failures.push(format!("seed {seed}: the switch refused: {e}\n{}", g.text));
                continue;
            }
        };
        if fast.machine_code().is_some_and(|m| m.contains("whole packet") && !m.contains("whole packet:")) {
            machine_code += 1;
        } else if std::env::var("P4F_WHY").is_ok() {
            eprintln!("WHY {:?}", fast.machine_code());
        }
        common::mirror_and_group(&mut reference);
        common::mirror_and_group(&mut fast);
        let want = common::injected(&mut reference, &g.packets);
        let got = common::injected(&mut fast, &g.packets);
        // Tracing changes nothing but the trace.
        let mut traced = Switch::new_traced(program.clone()).expect("the same program, traced");
        common::mirror_and_group(&mut traced);
        if common::injected(&mut traced, &g.packets) != got {
            failures.push(format!("seed {seed}: the traced switch gives other outputs\n{}", g.text));
        }
        failures.extend(random_program::difference(&g, ["reference", "switch"], &want, &got));
    }
    let summary = format!(
        "{} programs ({for_the_mid_end} with a sub-control, left to the mid-end), {machine_code} whole-packet machine code",
        seeds.len()
    );
    random_program::report(&summary, &failures, seeds.len());
}

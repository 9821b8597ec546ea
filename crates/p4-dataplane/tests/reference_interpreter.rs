//! Random programs (`common::random_program`), lowered by the mid-end as the CLI runs them, on
//! the software switch (`Switch::new`) and on the reference interpreter (`p4-reference`): every
//! packet must give the same outputs, drops and log lines on both.
//! `P4F_RANDOM_PROGRAMS=N` runs N seeds instead of the default; `P4F_RANDOM_SEED=S` runs only S.

use std::sync::Arc;

use p4_dataplane::control::{ControlPlane, Injected, PacketIo};
use p4_dataplane::Switch;
use p4_reference::Interpreter;

mod common;
use common::random_program;

/// The multicast group and clone session the random programs use (as `common::mirror_and_group`
/// sets them on a switch).
fn mirror_and_group(dp: &mut dyn ControlPlane) {
    dp.mirroring_add(5, 9).expect("mirror session");
    dp.mc_mgrp_create(7).expect("group");
    let node = dp.mc_node_create(3, &[4, 6]).expect("node");
    dp.mc_node_associate(7, node).expect("associate");
}

/// Per packet (by its position), its outputs `(i, port, bytes)`, drops `(i, u32::MAX, reason)`
/// and log lines `(i, u32::MAX - 1, line)`, each kind in the order it came (both run the
/// traffic manager's copies in the same order, so the order is compared too).
fn outcome(dp: &mut dyn PacketIo, packets: &[Vec<u8>]) -> Vec<(u32, u32, Vec<u8>)> {
    let mut seen = Vec::new();
    for (i, data) in packets.iter().enumerate() {
        let Injected { outputs, drops, log, .. } = dp.inject(0, data, 0);
        let i = i as u32;
        seen.extend(outputs.into_iter().map(|o| (i, o.port, o.data)));
        seen.extend(drops.into_iter().map(|d| (i, u32::MAX, d.into_bytes())));
        seen.extend(log.into_iter().map(|l| (i, u32::MAX - 1, l.into_bytes())));
    }
    seen
}

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

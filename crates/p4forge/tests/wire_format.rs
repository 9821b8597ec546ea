//! Which programs of the STF suite the wire-format executor runs (`p4_dataplane::Switch::executor`),
//! which of them only as the mid-end lowers them, and why. The STF suite (`stf_suite.rs`) checks
//! the packets of every one of them; this test keeps the list in `tests/golden/wire_format.txt` so
//! a change in what the wire-format executor takes shows in review (`BLESS=1` rewrites it), with
//! the blocks it runs as generated machine code (`Switch::machine_code`). A traced switch is
//! compared with the reference interpreter (`p4-reference`) on every STF file.

use std::path::{Path, PathBuf};

fn programs(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            programs(&path, found);
        } else if path.extension().is_some_and(|e| e == "stf") && path.with_extension("p4").is_file() {
            found.push(path.with_extension("p4"));
        }
    }
}

/// The repository's root and every program with an STF file beside it under `examples/` and
/// `tests/stf/`, sorted.
fn stf_programs() -> (PathBuf, Vec<PathBuf>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in ["examples", "tests/stf"] {
        programs(&root.join(dir), &mut files);
    }
    files.sort();
    files.dedup();
    (root, files)
}

/// Every control-plane object of `program`: kind, name, id.
fn control_plane(program: &p4_ir::Program) -> Vec<(String, String, u32)> {
    let layouts = p4_ir::layout::Layouts::of(program);
    layouts.ids.objects.iter().map(|o| (o.kind.name().to_string(), o.name.clone(), o.id)).collect()
}

#[test]
fn wire_format_programs() {
    let (root, files) = stf_programs();
    let mut lines = Vec::new();
    let mut handing_over = 0;
    let mut taken = 0;
    let mut lowered = 0;
    for program in &files {
        let name = program.strip_prefix(&root).unwrap_or(program).display().to_string();
        let line = match p4forge::frontend::compile(program, &[]) {
            Err(_) => format!("{name}: not compiled"),
            Ok(compiled) => {
                // What the wire-format executor says of the program as elaborated: a program it
                // refuses runs as the mid-end lowers it when it takes that.
                let program_as_elaborated = compiled.program.clone();
                let elaborated = p4_dataplane::Switch::new(std::sync::Arc::new(compiled.program.clone()));
                match p4forge::frontend::software_switches(compiled, program, 1, p4forge::frontend::SwitchBuild::default()) {
                    Err(_) => format!("{name}: not run by the software target"),
                    Ok(mut switches) => {
                        let sw = switches.remove(0);
                        // The frontend runs the lowered program where the elaborated one is
                        // refused, or where more of the lowered one's packet path is machine code.
                        let as_elaborated = match &elaborated {
                            Err(e) => Some(e.message.clone()),
                            Ok(el) if sw.code_class() > el.code_class() => Some(format!("machine code: {}", el.machine_code().unwrap_or("none"))),
                            _ => None,
                        };
                        let via = match as_elaborated {
                            Some(why) => {
                                lowered += 1;
                                // The control plane sees the same objects under the same names and
                                // ids as in the program the user wrote.
                                let lowered_program = p4_midend::lower(program_as_elaborated.clone()).expect("it lowered once already");
                                assert_eq!(
                                    control_plane(&lowered_program),
                                    control_plane(&program_as_elaborated),
                                    "{name}: the lowered program's control-plane objects differ"
                                );
                                format!(" after the mid-end (as elaborated: {why})")
                            }
                            _ => String::new(),
                        };
                        if sw.hands_over() {
                            taken += 1;
                            handing_over += 1;
                            let which = if sw.hands_over_when_asked() { "the packets that ask it" } else { "every packet" };
                            format!("{name}: wire-format{via}, {which} through the traffic manager; machine code: {}", sw.machine_code().unwrap_or("none"))
                        } else {
                            taken += 1;
                            format!("{name}: wire-format{via}; machine code: {}", sw.machine_code().unwrap_or("none"))
                        }
                    }
                }
            }
        };
        lines.push(line);
    }
    lines.push(format!(
        "{taken} of {} programs run on the wire-format executor ({lowered} of them as the mid-end lowers them; {handing_over} send packets through the traffic manager)",
        files.len()
    ));
    check_golden(&root, "wire_format.txt", &(lines.join("\n") + "\n"));
}

/// A traced switch runs on the wire-format executor, records a trace of every packet, and gives
/// the same outputs, log and failures as the reference interpreter (`p4-reference`) on every STF
/// file, on the program as elaborated. `--trace` runs every program on the wire-format
/// executor.
#[test]
fn traced_switches_agree_with_the_reference() {
    let (root, files) = stf_programs();
    let (mut compared, mut events, mut traced_on_wire, mut lowered) = (0, 0, 0, 0);
    for program in &files {
        let name = program.strip_prefix(&root).unwrap_or(program).display().to_string();
        // What `--trace` runs: the wire-format executor, on the lowered program where it does not
        // take the elaborated one.
        if let Ok(switches) = p4forge::frontend::compile(program, &[]).map(|c| p4forge::frontend::software_switches(c, program, 1, p4forge::frontend::SwitchBuild { traced: true, ..Default::default() })) {
            traced_on_wire += usize::from(switches.is_ok());
        }
        let Ok(compiled) = p4forge::frontend::compile(program, &[]) else { continue };
        let text = std::fs::read_to_string(program.with_extension("stf")).unwrap();
        let commands = p4_stf::parse_stf(&text).unwrap();
        // As elaborated where the switch takes it; else (a sub-control) as the mid-end lowers it.
        let elaborated = std::sync::Arc::new(compiled.program);
        let (program, mut traced) = match p4_dataplane::Switch::new_traced(elaborated.clone()) {
            Ok(traced) => (elaborated, traced),
            Err(_) => {
                lowered += 1;
                let lowered = std::sync::Arc::new(p4_midend::lower((*elaborated).clone()).unwrap_or_else(|e| panic!("{name}: lowering: {e}")));
                let traced = p4_dataplane::Switch::new_traced(lowered.clone()).unwrap_or_else(|e| panic!("{name}: the lowered program: {e}"));
                (lowered, traced)
            }
        };
        let mut reference = p4_reference::Interpreter::new(program).unwrap_or_else(|e| panic!("{name}: the reference interpreter: {e}"));
        let (on_switch, on_reference) = (p4_stf::run_stf(&mut traced, &commands), p4_stf::run_stf(&mut reference, &commands));
        assert_eq!(on_switch.traces.len(), on_switch.packets_sent, "{name}: a trace per packet");
        for (line, _, steps) in &on_switch.traces {
            assert!(!steps.is_empty(), "{name}: packet of line {line}: an empty trace");
        }
        assert_eq!(on_switch.log, on_reference.log, "{name}");
        assert_eq!(on_switch.failures.len(), on_reference.failures.len(), "{name}: switch\n{}\nreference\n{}", on_switch.render(), on_reference.render());
        assert_eq!(on_switch.packets_received, on_reference.packets_received, "{name}");
        compared += 1;
        events += on_switch.traces.iter().map(|t| t.2.len()).sum::<usize>();
    }
    // All 70; the 5 with a sub-control run lowered (control_plane_names, deparser_control_flow,
    // exit_nested, parser_state, sub_blocks).
    assert_eq!((compared, lowered, events > 4_000), (70, 5, true), "{events} events");
    assert_eq!((traced_on_wire, files.len()), (70, 70), "programs a traced run takes to the wire-format executor");
}

/// Compares `text` with `crates/p4forge/tests/golden/NAME` (`BLESS=1` rewrites it), printing only
/// the lines that differ: the lists are long.
fn check_golden(root: &Path, name: &str, text: &str) {
    p4_io::testing::check_golden(&root.join("crates/p4forge/tests/golden").join(name), text, "the wire-format executor's programs");
}

/// The valid programs written for the front end's tests (`tests/programs/valid/`, programs like
/// those written elsewhere): which executor `p4forge run` gives each, or why the software
/// dataplane refuses it, in `tests/golden/wire_format_valid.txt`.
#[test]
fn programs_written_elsewhere() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("tests/programs/valid")).unwrap().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "p4")).collect();
    files.sort();
    let mut lines = Vec::new();
    for file in &files {
        let name = file.strip_prefix(&root).unwrap_or(file).display().to_string();
        let line = match p4forge::frontend::compile(file, &[]) {
            Err(_) => "not compiled".to_string(),
            Ok(compiled) => match p4forge::frontend::software_switches(compiled, file, 1, p4forge::frontend::SwitchBuild::default()) {
                Err(_) => "not run by the software dataplane".to_string(),
                Ok(switches) => p4forge::frontend::executor_line(&switches[0]),
            },
        };
        lines.push(format!("{name}: {line}"));
    }
    let on_wire = lines.iter().filter(|l| l.contains("executor: wire-format")).count();
    let on_closures = lines.iter().filter(|l| l.contains("executor: closures")).count();
    lines.push(format!("{on_wire} on the wire-format executor, {on_closures} on the closure executor, of {} programs", files.len()));
    check_golden(&root, "wire_format_valid.txt", &(lines.join("\n") + "\n"));
}

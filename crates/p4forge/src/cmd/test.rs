//! `p4forge test`: run an STF test against a program.

use crate::error::{read_text, CliError, CliResult};
use crate::frontend;
use p4_stf::StfReport;
use std::path::{Path, PathBuf};

/// Compiles `program`, runs `stf` on a fresh switch and returns the report. Errors: the program does
/// not compile (exit 1), the STF file is unreadable or malformed (exit 2).
pub fn run_test(program: &Path, stf: &Path, includes: &[PathBuf]) -> CliResult<StfReport> {
    run_test_on(program, stf, includes, Target::Sw)
}

/// Which target runs the test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// The software dataplane.
    Sw,
    /// The generated SystemVerilog, simulated by Verilator (the program is always lowered).
    Rtl,
}

/// [`run_test`] on a chosen target.
pub fn run_test_on(program: &Path, stf: &Path, includes: &[PathBuf], target: Target) -> CliResult<StfReport> {
    run_traced_test_on(program, stf, includes, target, false, crate::cmd::TableSizeArgs::default())
}

/// [`run_test_on`], with a trace of every packet in the report when `traced` (software target),
/// and table sizes as `table_sizes` says.
pub fn run_traced_test_on(program: &Path, stf: &Path, includes: &[PathBuf], target: Target, traced: bool, table_sizes: crate::cmd::TableSizeArgs) -> CliResult<StfReport> {
    let text = read_text(stf, "STF file")?;
    let commands = p4_stf::parse_stf(&text).map_err(|e| CliError::input(e.render(&stf.display().to_string()).trim_end().to_string()))?;
    if target == Target::Rtl {
        table_sizes.check_rtl()?;
        crate::cmd::check_rtl_trace(traced)?;
        let mut switch = crate::cmd::rtl::rtl_switch(program, includes, &p4_rtl::Options::default())?;
        return Ok(p4_stf::run_stf(&mut switch, &commands));
    }
    let compiled = frontend::compile(program, includes)?;
    p4_io::eprint_safe!("{}", compiled.warnings);
    let mut switch = frontend::new_switch_built(compiled, program, frontend::SwitchBuild { traced, ignore_table_sizes: table_sizes.ignore_table_sizes })?;
    Ok(p4_stf::run_stf(switch.as_mut(), &commands))
}

/// Runs the test and prints `PASS`/`FAIL` with the diff; `Err` (exit 1) if it failed.
pub fn test(program: &Path, stf: &Path, includes: &[PathBuf], verbose: bool, target: Target, trace: &crate::cmd::trace::TraceArgs, table_sizes: crate::cmd::TableSizeArgs) -> CliResult<()> {
    let report = run_traced_test_on(program, stf, includes, target, trace.enabled(), table_sizes)?;
    // Packets are numbered in the order of the file's `packet` lines.
    for (number, (_, port, events)) in report.traces.iter().enumerate() {
        trace.print(number as u64 + 1, *port, events);
    }
    let mut out = String::new();
    if verbose {
        for line in &report.log {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push_str(&report.render());
    p4_io::stdio::print(&out)?;
    match (report.refused(), report.passed()) {
        // A refused command is a bad input, like a refused line of an entries file (exit 2).
        (Some((line, message)), _) => Err(CliError::input(format!("{}:{line}: {message}", stf.display()))),
        (None, true) => Ok(()),
        (None, false) => Err(CliError::failed(format!("{} failed", stf.display()))),
    }
}

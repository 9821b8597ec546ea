//! `p4forge synth` as a user runs it: Yosys resource estimates of a generated design (per block,
//! adding up to the total) and of the hw table modules on their own. Without Yosys the tests print
//! why and pass (`make tools-rtl` installs it).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn p4forge(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_p4forge"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the p4forge binary runs")
}

/// Whether there is a Yosys (found as the binary finds it: the test runs in crates/p4forge, below the
/// checkout's `.venv`).
fn yosys() -> bool {
    if p4_io::testing::rtl_skipped() {
        return false;
    }
    match p4forge::cmd::synth::find_yosys() {
        Ok(_) => true,
        Err(e) => p4_io::testing::tool_missing(&e.message),
    }
}

fn json(out: &Output, what: &str) -> serde_json::Value {
    assert!(out.status.success(), "{what}: exit {:?}\n{}", out.status.code(), String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{what}: not JSON ({e}):\n{}", String::from_utf8_lossy(&out.stdout)))
}

fn int(v: &serde_json::Value, key: &str) -> u64 {
    v[key].as_u64().unwrap_or_else(|| panic!("no integer {key} in {v}"))
}

/// Both syntheses in one test, side by side (about a minute and a half on two shared cores).
#[test]
fn synth_reports_blocks_that_add_up_and_table_modules() {
    if !yosys() {
        return;
    }
    let sweep = std::thread::spawn(|| {
        p4forge(&["synth", "--table-sweep", "--kinds", "exact-hash", "--key-bits", "36", "--json"])
    });
    let program = p4forge(&["synth", "tests/stf/arith_wrap.p4", "--json"]);

    let report = json(&program, "synth arith_wrap.p4");
    assert_eq!(report["top"], "arith_wrap_top");
    let total = &report["total"];
    assert!(int(total, "luts") > 0, "{report}");
    // The totals are also at the top level, beside logic_depth.
    for key in ["luts", "ffs", "bram36", "dsp", "lutram"] {
        assert_eq!(report[key], total[key], "{key} at the top level: {report}");
    }
    let blocks = report["blocks"].as_array().expect("blocks");
    assert!(!blocks.is_empty());
    for name in ["u_parser", "u_ingress", "u_deparser", "u_split", "u_payload", "u_regs", "u_merge", "(top)"] {
        assert!(blocks.iter().any(|b| b["name"] == name), "no block {name} in {report}");
    }
    // The top's own cells are the block `(top)`, so the blocks add up to the total exactly.
    for key in ["luts", "ffs", "dsp", "lutram"] {
        let sum: u64 = blocks.iter().map(|b| int(b, key)).sum();
        assert_eq!(sum, int(total, key), "{key}: blocks {sum}, total {}", int(total, key));
    }
    let bram: f64 = blocks.iter().map(|b| b["bram36"].as_f64().unwrap()).sum();
    assert_eq!(bram, total["bram36"].as_f64().unwrap());
    assert!(int(&report, "logic_depth") > 0);

    let tables = json(&sweep.join().unwrap(), "synth --table-sweep");
    let rows = tables["tables"].as_array().expect("tables");
    assert_eq!(rows.len(), 1, "{tables}");
    let row = &rows[0];
    assert_eq!(row["kind"], "exact-hash");
    assert_eq!(int(row, "entries"), 1024);
    assert_eq!(int(row, "key_bits"), 36);
    assert!(row["bram36"].as_f64().unwrap() > 0.0, "the hash table's ways should be block RAM: {row}");
}

/// `--pnr ecp5`: the design also placed and routed on an ECP5 by nextpnr, out of context; the
/// report gives the clock it reaches beside the logic depth, and the cells it used. (fwd at 64 bits
/// reaches 67.4 MHz with `--seed 1`; with the single-cycle merge of before, whose byte rotation was
/// its critical path, 37.0. Its logic depth, 9, is within the bound of 12.)
#[test]
fn synth_pnr_ecp5_reports_the_routed_clock() {
    if !yosys() {
        return;
    }
    if let Err(e) = p4forge::cmd::pnr::find_nextpnr() {
        p4_io::testing::tool_missing(&e.message);
        return;
    }
    let out = p4forge(&["synth", "crates/p4forge/tests/fixtures/fwd.p4", "--width", "64", "--pnr", "ecp5", "--json"]);
    let report = json(&out, "synth fwd.p4 --pnr ecp5");
    let pnr = &report["pnr"];
    assert_eq!(pnr["tool"], "nextpnr-ecp5", "{report}");
    assert_eq!(pnr["device"], "LFE5U-85F-CABGA381");
    assert_eq!(pnr["target_mhz"], 250.0);
    let fmax = pnr["fmax_mhz"].as_f64().unwrap();
    assert!(fmax > 50.0 && fmax < 250.0, "{pnr}");
    assert!(int(pnr, "luts") > int(&report["total"], "luts"), "LUT4s outnumber LUT6s: {report}");
    assert!(int(pnr, "bram18") > 0 && int(pnr, "critical_path_cells") > 0, "{pnr}");
    assert!(!pnr["critical_path"].as_array().unwrap().is_empty(), "{pnr}");
    assert!(int(&report, "logic_depth") <= 12, "{report}");
    assert!(report["logic_depth_path"].as_array().unwrap().iter().any(|b| b == "u_merge"), "{report}");
}

/// Four slices of 9 lanes (64 entries and the spare column): per slice a 512 x 72 and a half
/// (512 x 9) block RAM.
const BCAM_64_BRAM36: f64 = 6.0;

/// The block-RAM TCAM in the sweep: a small exact-bcam row (64 entries of 36 bits: four 9-bit slice
/// RAMs of 9 lanes each, a 512 x 72 block RAM and a 512 x 9 half one per slice), and the same with
/// --tcam-flops (the flip-flop TCAM: no block RAM at all).
#[test]
fn synth_table_sweep_bcam_on_block_ram_or_flops() {
    if !yosys() {
        return;
    }
    let args = ["synth", "--table-sweep", "--kinds", "exact-bcam", "--key-bits", "36", "--entries", "64", "--json"];
    let bram = json(&p4forge(&args), "synth --table-sweep exact-bcam");
    assert_eq!(bram["tcam"], "p4f_table_tcam_bram");
    let rows = bram["tables"].as_array().expect("tables");
    assert_eq!(rows.len(), 1, "{bram}");
    let row = &rows[0];
    assert_eq!(row["kind"], "exact-bcam");
    assert_eq!(int(row, "entries"), 64);
    assert_eq!(int(row, "key_bits"), 36);
    assert_eq!(row["bram36"].as_f64().unwrap(), BCAM_64_BRAM36, "{row}");
    for key in ["luts", "ffs", "dsp"] {
        assert!(row[key].is_u64(), "no {key} in {row}");
    }
    assert!(row.get("skipped").is_none(), "{row}");

    let flops = json(&p4forge(&[&args[..], &["--tcam-flops"]].concat()), "synth --table-sweep --tcam-flops");
    assert_eq!(flops["tcam"], "p4f_table_tcam");
    let row = &flops["tables"][0];
    assert_eq!(row["bram36"].as_f64().unwrap(), 0.0, "{row}");
    assert!(int(row, "ffs") > 64 * 36, "every key bit in a flip-flop: {row}");
}

#[test]
fn synth_refuses_programs_outside_the_hardware_subset_like_rtl() {
    // No Yosys needed: the design is refused before Yosys would run.
    let out = std::env::temp_dir().join(format!("p4forge-synth-test-{}", std::process::id()));
    let synth = p4forge(&["synth", "tests/stf/meter_bytes.p4", "--json"]);
    let rtl = p4forge(&["rtl", "tests/stf/meter_bytes.p4", "--out", out.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&out);
    assert_eq!(synth.status.code(), Some(1));
    let message = String::from_utf8_lossy(&synth.stderr);
    assert!(message.contains("outside the hardware subset") && message.contains("tests/stf/meter_bytes.p4:"), "{message}");
    assert_eq!(message, String::from_utf8_lossy(&rtl.stderr));
    assert!(synth.stdout.is_empty());

    for args in [
        &["synth"][..],
        &["synth", "--table-sweep", "tests/stf/meter_bytes.p4"],
        &["synth", "--table-sweep", "--entries", "100", "--kinds", "exact-hash"],
        &["synth", "tests/stf/arith_wrap.p4", "--entries", "64"],
        &["synth", "--table-sweep", "--pnr", "ecp5"],
        &["synth", "tests/stf/arith_wrap.p4", "--pnr", "ice40"],
    ] {
        let usage = p4forge(args);
        assert_eq!(
            usage.status.code(),
            Some(2),
            "p4forge {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&usage.stderr)
        );
    }
}

/// `p4forge synth` of l2l3 started, once it has said where Yosys works: the process and that
/// directory.
fn synth_running() -> (std::process::Child, PathBuf) {
    use std::io::BufRead;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_p4forge"))
        .args(["synth", "examples/l2l3/l2l3.p4"])
        .current_dir(root())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.starts_with("synth: ") {
        line.clear();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "synth stopped before running Yosys");
    }
    // "synth: TOP (N files) with YOSYS in DIR"
    let dir = PathBuf::from(line.trim_end().rsplit(" in ").next().unwrap());
    assert!(dir.is_dir(), "{line}");
    std::thread::sleep(std::time::Duration::from_secs(2));
    (child, dir)
}

/// The processes whose working directory is in `dir` (Yosys runs there).
fn processes_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path().join("cwd")).ok())
        .map(|cwd| cwd.display().to_string())
        .filter(|cwd| cwd.starts_with(&dir.display().to_string()))
        .collect()
}

/// `timeout` (SIGTERM to p4forge alone) stops a synthesis: Yosys is stopped with it, the temporary
/// working directory is removed, and p4forge exits 143.
#[test]
fn sigterm_stops_yosys_and_removes_the_working_directory() {
    if !yosys() {
        return;
    }
    let (child, dir) = synth_running();
    assert!(Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
    let (output, hung) = p4_io::testing::wait_or_kill(child, std::time::Duration::from_secs(15));
    assert!(!hung, "p4forge synth still running 15 s after SIGTERM");
    assert_eq!(output.status.code(), Some(143), "p4forge synth stopped on SIGTERM with 128 + 15");
    assert!(!dir.exists(), "the working directory {} is removed", dir.display());
    let left = processes_in(&dir);
    assert!(left.is_empty(), "processes left in {}: {left:?}", dir.display());
}

/// SIGKILL reaches no handler, so the working directory stays; but Yosys dies with p4forge
/// (the kernel's parent-death signal) instead of running on alone.
#[test]
fn sigkill_takes_yosys_with_it() {
    if !yosys() {
        return;
    }
    let (mut child, dir) = synth_running();
    assert!(!processes_in(&dir).is_empty(), "Yosys runs in {}", dir.display());
    child.kill().unwrap();
    child.wait().unwrap();
    let mut left = processes_in(&dir);
    for _ in 0..50 {
        if left.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        left = processes_in(&dir);
    }
    assert!(left.is_empty(), "processes left in {} after SIGKILL: {left:?}", dir.display());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--region` is the OP4T shell's region per packet processor: refused without `--arch op4t` and
/// when malformed, before any synthesis (the fit itself: `cmd::synth::region`'s unit tests, and
/// docs/HARDWARE.md for the figures of the SST program).
#[test]
fn a_region_goes_with_the_op4t_shell_and_is_checked_first() {
    let out = p4forge(&["synth", "examples/l2l3/l2l3.p4", "--region", "1/1/1"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "error: --region is the OP4T shell's region per packet processor: it goes with --arch op4t\n");
    let out = p4forge(&["synth", "examples/op4t-sst/sst.p4", "--arch", "op4t", "--region", "1/1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected LUTS/FFS/BRAM36, e.g. 40000/80000/100"));
}

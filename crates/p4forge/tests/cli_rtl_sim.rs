//! `p4forge rtl-sim` refusals that need no simulator: they come before a model is built.

use std::path::Path;
use std::process::Command;

#[test]
fn a_stream_width_the_harness_cannot_drive_is_a_usage_error_and_creates_nothing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = p4_io::testing::scratch_dir("p4forge-rtl-sim", "width");
    let out = dir.join("out");
    for width in ["64", "1024"] {
        let run = Command::new(env!("CARGO_BIN_EXE_p4forge"))
            .current_dir(&root)
            .args(["rtl-sim", "examples/l2l3/l2l3.p4", "--in", "1=examples/l2l3/traffic/in_port1.pcap"])
            .args(["--out", out.to_str().unwrap(), "--width", width])
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(2), "--width {width}");
        assert_eq!(
            String::from_utf8_lossy(&run.stderr),
            format!("error: --width {width}: the simulation harness drives streams of 128 to 512 bits\n")
        );
        assert!(!out.exists(), "nothing is created for a refused width");
    }
}

//! `p4forge stf2pcap`: write an STF test's traffic as pcap files.

use crate::error::{read_text, CliError, CliResult};
use p4_stf::capture::write_capture_file;
use std::path::{Path, PathBuf};

/// Writes `DIR/in_port<N>.pcap` for each port with `packet` lines and `DIR/expected_port<N>.pcap`
/// for each port with `expect` lines; returns the files written.
pub fn stf2pcap(stf: &Path, out: &Path) -> CliResult<Vec<PathBuf>> {
    let text = read_text(stf, "STF file")?;
    let commands = p4_stf::parse_stf(&text).map_err(|e| CliError::input(e.render(&stf.display().to_string()).trim_end().to_string()))?;
    let traffic = p4_stf::traffic::stf_traffic(&commands);
    for note in &traffic.notes {
        p4_io::eprintln_safe!("note: {}:{}: {}", stf.display(), note.line, note.message);
    }
    std::fs::create_dir_all(out).map_err(|e| CliError::input(format!("cannot create {}: {e}", out.display())))?;
    let mut written = Vec::new();
    for (prefix, per_port) in [("in_port", &traffic.inputs), ("expected_port", &traffic.expected)] {
        for (port, packets) in per_port {
            let path = out.join(format!("{prefix}{port}.pcap"));
            write_capture_file(&path, packets).map_err(|e| CliError::input(e.to_string()))?;
            written.push(path);
        }
    }
    Ok(written)
}

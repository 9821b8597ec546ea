//! The examples' STF files: demo traffic for each application and microbenchmark in `examples/` and
//! what it must produce. One submodule per example; they share the Ethernet/IPv4/UDP builders of
//! [`crate::packet`] and the case layout below.

mod l2l3;
mod mdp;
mod microbench;
mod op4t_sst;
mod paxos;
mod vdp;

use crate::output::{Files, StfLines};

/// Generates every example's STF file.
pub fn generate(files: &mut Files) {
    for (name, make) in [("l2l3", l2l3::stf as fn() -> StfLines), ("mdp", mdp::stf), ("paxos", paxos::stf)] {
        files.add(format!("examples/{name}/{name}.stf"), make().text());
    }
    files.add("examples/op4t-sst/sst.stf", op4t_sst::stf().text());
    files.add("examples/vdp/vdp.stf", vdp::stf().text());
    files.add("examples/microbench/parse16.stf", microbench::parse16().text());
    for n in [8, 16, 32, 64] {
        files.add(format!("examples/microbench/writes{n}.stf"), microbench::writes(n).text());
    }
}

/// One case: `# TITLE`, the packet sent on `port`, every expected output (exact length), a blank line.
fn case(w: &mut StfLines, title: &str, port: u32, data: &[u8], expects: &[(u32, Vec<u8>)]) {
    w.raw(format!("# {title}"));
    w.packet(port, data);
    for (p, d) in expects {
        w.expect(*p, d);
    }
    w.raw("");
}

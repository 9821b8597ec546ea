//! Stand-alone front end for the netsim experiments (the same `Args` the `p4forge` binary
//! mounts): `cargo run --release -p p4-netsim --example netsim -- dtp --topology tree:2:3 ...`.

use clap::{Parser, Subcommand};
use p4_netsim::cli;

#[derive(Parser)]
struct Top {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a topology under load.
    Sim(cli::SimArgs),
    /// DTP clock synchronisation (with PTP for comparison).
    Dtp(cli::DtpArgs),
    /// MinProbe available-bandwidth estimation.
    Minprobe(cli::MinProbeArgs),
    /// Switch IPD profiler.
    Profile(cli::ProfileArgs),
}

fn main() -> anyhow::Result<()> {
    match Top::parse().cmd {
        Cmd::Sim(a) => cli::sim_main(a),
        Cmd::Dtp(a) => cli::dtp_main(a),
        Cmd::Minprobe(a) => cli::minprobe_main(a),
        Cmd::Profile(a) => cli::profile_main(a),
    }
}

//! Stand-alone driver for the `phy`, `gen` and `capture` commands, wired exactly as the
//! `p4forge` binary wires them: `cargo run -p p4-phy --example p4phy -- gen --rate 9 ...`.

use clap::Parser;
use p4_phy::cli::{capture_main, gen_main, phy_main, CaptureArgs, GenArgs, PhyArgs};

#[derive(Parser)]
#[command(name = "p4phy", about = "10GBASE-R software PHY: packet generator, capturer, PCS inspector")]
enum Cmd {
    /// Inspect the PCS.
    Phy(PhyArgs),
    /// Generate a paced stream.
    Gen(GenArgs),
    /// Capture a raw serial bit stream.
    Capture(CaptureArgs),
}

fn main() -> anyhow::Result<()> {
    match Cmd::parse() {
        Cmd::Phy(a) => phy_main(a),
        Cmd::Gen(a) => gen_main(a),
        Cmd::Capture(a) => capture_main(a),
    }
}

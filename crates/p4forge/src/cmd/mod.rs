//! One module per subcommand.

pub mod check;
pub mod compile;
pub mod entries;
pub mod op4t;
pub mod rtl;
pub mod rtl_sim;
pub mod pnr;
pub mod p4runtime;
pub mod port_map;
pub mod run;
pub mod run_engine;
pub mod stf2pcap;
pub mod switch;
pub mod synth;
pub mod test;
pub mod trace;
pub mod vdp;

/// `--ignore-table-sizes`, of the commands that run the software target.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct TableSizeArgs {
    /// Let tables take entries beyond their `size` (1,024 for a table that declares none), e.g. to
    /// load a full routing table into a program written with a small one. The software target only:
    /// a hardware table holds what it was built with.
    #[arg(long)]
    pub ignore_table_sizes: bool,
}

/// The refusal of `--trace` (and its kin) for the hardware target, when `traced`.
pub fn check_rtl_trace(traced: bool) -> crate::error::CliResult<()> {
    if traced {
        return Err(crate::error::CliError::input("--trace is for the software target (`--target sw`); the RTL simulation records no trace"));
    }
    Ok(())
}

impl TableSizeArgs {
    /// The refusal of the flag for the hardware target.
    pub fn check_rtl(self) -> crate::error::CliResult<()> {
        if self.ignore_table_sizes {
            return Err(crate::error::CliError::input(
                "--ignore-table-sizes is for the software target (`--target sw`); a hardware table holds the entries it was built for".to_string(),
            ));
        }
        Ok(())
    }
}

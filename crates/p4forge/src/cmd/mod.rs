//! One module per subcommand.

pub mod check;
pub mod compile;
pub mod entries;
pub mod rtl;
pub mod rtl_sim;
pub mod port_map;
pub mod run;
pub mod run_engine;
pub mod stf2pcap;
pub mod switch;
pub mod synth;
pub mod test;
pub mod trace;

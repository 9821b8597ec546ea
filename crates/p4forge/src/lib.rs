//! The p4forge command-line tool as a library: each subcommand is a function returning its exit
//! status, so the integration tests drive exactly what the binary runs.
#![forbid(unsafe_code)]

pub mod cmd;
pub mod error;
pub mod frontend;
pub mod nn_socket;
pub mod pcap_ports;

//! The p4forge command-line tool as a library: each subcommand is a function returning its exit
//! status, so the integration tests drive exactly what the binary runs.
#![deny(unsafe_op_in_unsafe_fn)]

pub mod cmd;
pub mod error;
pub mod frontend;
pub mod ports;

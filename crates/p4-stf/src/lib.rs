//! Test and control-plane file formats for p4forge, and the STF test runner.
//!
//! - [`stf`]: STF test files (`packet`/`expect`/`add`/...), see `stf-format.md`.
//! - [`commands`]: BMv2 runtime-CLI command files (`table_add ... => ...`).
//! - [`runtime`]: the multicast/mirroring/register/counter/meter commands both formats share.
//! - [`runner`]: runs STF commands on any [`ControlPlane`] + [`PacketIo`] and reports a diff.
//! - [`capture`]: pcap and pcapng reading and writing with nanosecond timestamps.
//! - [`traffic`]: an STF file's packets and expectations as per-port captures.
//!
//! Nothing here panics on user input: malformed text becomes a [`LineError`] with its line number.
//!
//! [`ControlPlane`]: p4_control::ControlPlane
//! [`PacketIo`]: p4_control::PacketIo
#![forbid(unsafe_code)]

pub mod capture;
pub mod commands;
pub mod error;
pub mod inspect;
pub mod numbers;
pub mod pattern;
pub mod profiles;
pub mod runner;
pub mod runtime;
pub mod stf;
pub mod traffic;
pub mod usage;

pub use error::{LineError, ParseErrors};
pub use runner::{run_stf, StfFailure, StfReport};
pub use stf::{parse_stf, StfCommand, StfLine};

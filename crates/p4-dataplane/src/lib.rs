//! The v1model software dataplane: compiles a p4forge IR program into a slot-based executable form
//! and runs packets through it with BMv2 simple_switch semantics.
//!
//! - [`Switch::new`] lays out every block's variables as flat frame slots and compiles statements and
//!   expressions into closures with all names resolved ([`compile`], [`exec`]);
//! - [`control::ControlPlane`] programs tables, multicast, clone sessions, registers, counters, meters;
//! - [`control::PacketIo::inject`] runs one packet, and everything it causes, to completion.
//!
//! Supported scalar widths: up to 128 bits (`varbit` up to any maximum); wider `bit<W>` is refused
//! at `Switch::new` with a reason.

pub mod bits;
mod compile;
pub mod control;
mod cp;
mod exec;
pub mod hashing;
pub mod meter;
mod switch;
pub mod table;

pub use switch::{instance, Switch};

/// Why a program cannot run on this dataplane.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DataplaneError {
    /// The program uses something this dataplane does not implement.
    #[error("unsupported by the v1model dataplane: {0}")]
    Unsupported(String),
    /// The program is inconsistent (an IR invariant does not hold).
    #[error("invalid program for the v1model dataplane: {0}")]
    Invalid(String),
}

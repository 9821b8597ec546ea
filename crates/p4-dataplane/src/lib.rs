//! The v1model software dataplane: compiles a p4forge IR program into a slot-based executable form
//! and runs packets through it with BMv2 simple_switch semantics.
//!
//! - [`Switch::new`] lays out every block's variables as flat frame slots and compiles statements and
//!   expressions into closures with all names resolved (modules `compile`, `exec`);
//! - [`control::ControlPlane`] programs tables, multicast, clone sessions, registers, counters, meters;
//! - [`control::PacketIo::inject`] runs one packet, and everything it causes, to completion.
//!
//! Behaviour choices (BMv2 simple_switch is the reference):
//! - scalars of up to 128 bits live in `u128` slots (`varbit` of any maximum in 128-bit chunks);
//!   wider `bit<W>` occupies 128-bit chunks (most significant first) and may only be extracted,
//!   emitted, copied, compared for equality and hashed; arithmetic on it is refused at `Switch::new`;
//! - equality of headers: two invalid headers are equal; of stacks: elements only (not nextIndex);
//! - a varbit size that is not whole bytes rejects with `ParserInvalidArgument` (before the
//!   `HeaderTooShort` check); `extract<T>(_)` skips T's bits;
//! - a parser error does not drop: the packet enters ingress with `parser_error` set;
//! - reading a field of an invalid header gives 0; writes to it are kept but never emitted;
//!   out-of-range stack indexes read 0 and ignore writes (`extract` into a full stack rejects with
//!   `StackOutOfBounds`);
//! - `instance_type`: 0 normal, 1 ingress clone, 2 egress clone, 4 recirculated, 5 replica,
//!   6 resubmitted ([`instance`]); a packet may loop through resubmit/recirculate 16 times;
//! - `Injected::drops` lines: `mark_to_drop in <control>`, `egress_spec 511`, optionally followed by
//!   ` (parser error <name>)`; `assert failed in <block>`; `multicast group <g> has no members`;
//! - `Injected::log` lines: `log_msg` text with `{}` replaced by decimal values; `digest <receiver>:
//!   0x.., 0x..`; `clone to session <s>, which is not configured: no copy made`;
//! - tables with action profiles/selectors run as direct tables (no member/group API yet);
//!   `size` is not enforced;
//! - const entries: an explicit priority is used as is and the smaller number wins (BMv2), an entry
//!   without one ranks by its 1-based position;
//! - `random` and `HashAlgorithm.random` draw from a fixed-seed generator: runs are reproducible.

pub mod bits;
pub mod cells;
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

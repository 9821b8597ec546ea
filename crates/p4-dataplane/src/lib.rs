//! The software dataplane: compiles a p4forge IR program into a slot-based executable form
//! and runs packets through it with BMv2 simple_switch semantics.
//!
//! - [`Switch::new`] lays out every block's variables as flat frame slots (module `fast::compile`), then
//!   compiles the pipeline for the wire-format executor (module `fast`: headers as their wire
//!   bytes, statements translated once with all names resolved and run as machine code where it
//!   can and as closures otherwise, extern
//!   calls and traffic-manager requests through its run-time interface `fast::runtime`), which
//!   runs the packets; a program it refuses is an error. The oracle the tests compare it with is
//!   the reference interpreter (crate `p4-reference`);
//! - [`control::ControlPlane`] programs tables, multicast, clone sessions, registers, counters, meters;
//! - [`control::PacketIo::inject`] runs one packet, and everything it causes, to completion.
//!
//! The architecture comes from [`p4_arch`]: which instance plays which block, which parameters are
//! one storage, the standard metadata fields by role, the port width, the drop marker, extern
//! state kinds and operations, hash algorithm names and instance-type values are read from its
//! v1model description, not named here. The executor still implements only the v1model pipeline
//! (six blocks, BMv2's after-ingress/after-egress order) and the operations [`p4_arch::ExternOp`]
//! lists.
//!
//! Behaviour choices (BMv2 simple_switch is the reference):
//! - scalars of up to 128 bits live in `u128` slots (`varbit` of any maximum in 128-bit chunks);
//!   wider `bit<W>`/`int<W>` occupies 128-bit chunks (most significant first); arithmetic, bitwise
//!   operations, shifts, concatenation, slices, casts and comparisons on it run on a slow path through
//!   big integers (module `fast::wide`); using it where at most 128 bits fit (a table key, an index,
//!   a `switch` selector) is refused at `Switch::new` with the expression's span;
//! - equality of headers: two invalid headers are equal; of stacks: elements only (not nextIndex);
//! - a varbit size that is not whole bytes rejects with `ParserInvalidArgument` (before the
//!   `HeaderTooShort` check); `extract<T>(_)` skips T's bits;
//! - a parser error does not drop: the packet enters ingress with `parser_error` set;
//! - reading a field of an invalid header gives 0; writes to it are kept but never emitted;
//!   out-of-range stack indexes read 0 and ignore writes (`extract` into a full stack rejects with
//!   `StackOutOfBounds`);
//! - `instance_type`: 0 normal, 1 ingress clone, 2 egress clone, 4 recirculated, 5 replica,
//!   6 resubmitted ([`p4_arch::PacketInstance`], numbered by the description); a packet may loop through resubmit/recirculate 16 times;
//! - `Injected::drops` lines: `port <p> does not fit v1model's 9-bit port fields (0..511)` (a packet
//!   injected on a port the program's `ingress_port` cannot hold is not processed), `mark_to_drop in <control>`, `egress_spec 511`, optionally followed by
//!   ` (parser error <name>)`; `assert failed in <block>`; `multicast group <g> has no members`;
//! - `Injected::log` lines: `log_msg` text with `{}` replaced by decimal values; `digest <receiver>:
//!   0x.., 0x..`; `clone to session <s>, which is not configured: no copy made`;
//! - an action profile's members are plain entries (the control plane writes each entry with its
//!   member's action); an action selector's group entry (`ControlPlane::table_select`) runs member
//!   `h mod n` of its `n`, `h` the selector's hash over the selector keys back to back (BMv2
//!   also takes the hash modulo the group size; its member order is its own);
//! - a table takes no more entries than its `size` (1,024 without one, as the reference compiler
//!   gives BMv2; [`Switch::ignore_table_sizes`] lifts it);
//! - const entries: an explicit priority is used as is and the smaller number wins (BMv2), an entry
//!   without one ranks by its 1-based position;
//! - `random` and `HashAlgorithm.random` draw from a fixed-seed generator: runs are reproducible.
#![deny(unsafe_op_in_unsafe_fn)]

pub mod batch;
pub mod bits;
pub mod cells;
pub mod control;
mod cp;
mod fast;
pub mod hashing;
pub mod meter;
pub mod rss;
pub mod snapshot;
mod switch;
pub mod table;
pub mod trace;
mod wide;

pub use switch::{CodeClass, Mirror, Switch, TxClock, MAX_LOOPS};

/// Why a program cannot run on this dataplane: what, and where in the program when known.
///
/// Displays as `unsupported by the <arch> dataplane: <message>` or `invalid program for the <arch>
/// dataplane: <message>` (`<arch>` the program's architecture, e.g. `v1model`; `software` when the
/// program has none this dataplane knows), without the location: a front end renders
/// [`DataplaneError::span`] as `file:line:col` with the source line and a caret.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataplaneError {
    pub kind: DataplaneErrorKind,
    /// What is wrong, in the program's terms.
    pub message: String,
    /// The innermost statement or expression the problem was found in (`None`: not tied to one).
    pub span: Option<p4_ir::Span>,
    /// The name of the program's architecture (`None`: not known).
    pub architecture: Option<&'static str>,
}

/// The two reasons a program cannot run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataplaneErrorKind {
    /// The program uses something this dataplane does not implement.
    Unsupported,
    /// The program is inconsistent (an IR invariant does not hold).
    Invalid,
}

impl DataplaneError {
    /// Something this dataplane does not implement.
    pub fn unsupported(message: impl Into<String>) -> DataplaneError {
        DataplaneError { kind: DataplaneErrorKind::Unsupported, message: message.into(), span: None, architecture: None }
    }

    /// An IR invariant that does not hold.
    pub fn invalid(message: impl Into<String>) -> DataplaneError {
        DataplaneError { kind: DataplaneErrorKind::Invalid, message: message.into(), span: None, architecture: None }
    }

    /// Names the architecture the program was refused for (unless already named).
    pub fn in_architecture(mut self, arch: Option<&'static p4_arch::Architecture>) -> DataplaneError {
        self.architecture = self.architecture.or(arch.map(|a| a.name));
        self
    }

    /// Says which part of the program (`what`, e.g. `action X`) the error was found in.
    pub(crate) fn in_context(mut self, what: String) -> DataplaneError {
        self.message = format!("{what}: {}", self.message);
        self
    }

    /// Locates the error at `span` unless it already has a (more precise, inner) location.
    pub fn at(mut self, span: p4_ir::Span) -> DataplaneError {
        if self.span.is_none() && !span.is_dummy() {
            self.span = Some(span);
        }
        self
    }
}

impl std::fmt::Display for DataplaneError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let arch = self.architecture.unwrap_or("software");
        match self.kind {
            DataplaneErrorKind::Unsupported => write!(f, "unsupported by the {arch} dataplane: {}", self.message),
            DataplaneErrorKind::Invalid => write!(f, "invalid program for the {arch} dataplane: {}", self.message),
        }
    }
}

impl std::error::Error for DataplaneError {}

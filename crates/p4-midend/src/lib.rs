//! The p4forge mid-end: a pipeline of passes that lower the elaborated IR ([`p4_ir::Program`]) towards
//! what a hardware generator or a fast executor wants, while keeping it **IR**: every lowered program
//! still runs on the software dataplane, and the STF suite run on the lowered program is how every pass
//! is validated (`tests/stf_lowered.rs`).
//!
//! Entry points:
//! - [`lower`]: the default [`Pipeline`] (`p4forge compile --emit lowered-ir`, `p4forge test --lowered`).
//! - [`Pipeline::run_with`]: the same, with a hook after every pass (the tests run the check and the IR
//!   verifier there).
//! - [`pass_by_name`] / [`PASS_NAMES`]: one pass alone (the golden tests of `tests/passes/<pass>/`).
//!
//! For the CLI (`p4forge` does not depend on this crate yet):
//! - `p4forge compile PROG.p4 --emit lowered-ir`: compile as for `--emit ir`, then
//!   `p4_ir::printer::print_program(&p4_midend::lower(program)?)`.
//! - `p4forge test --lowered PROG.p4 TEST.stf`: compile, `lower`, then build the switch from the
//!   lowered program exactly as without `--lowered` (`p4_dataplane::Switch::new(Arc::new(lowered))`).
//! - A [`PassError`] is a compile failure (exit 1); render it as an error diagnostic at
//!   `error.span.unwrap_or(Span::DUMMY)` with `error.to_string()` as the message (it names the pass).
//! - An option to pick passes (`--passes a,b`) maps to [`Pipeline::from_names`].
//!
//! The passes, in pipeline order (each module says what it does and why):
//! 1. [`passes::inline_controls`] — sub-controls applied once are replaced by their bodies.
//! 2. [`passes::inline_parsers`] — sub-parsers applied once become states of their caller.
//! 3. [`passes::hoist_effects`] — table applies and value-returning calls used inside expressions
//!    become statements of their own writing a temporary (`init t_hit = t.apply().hit;`,
//!    `init t_action_run = t.apply().action_run;` before a switch on the action that ran);
//!    short-circuit operators and `?:` with effects become `if`s.
//! 4. [`passes::inline_functions`] — function calls are replaced by their bodies.
//! 5. [`passes::unroll_loops`] — `for` loops whose iterations are known at compile time (for-in over
//!    a header stack or a list, over a constant range, 3-clause loops that constants alone decide,
//!    at most 256 iterations) become one copy of the body per iteration with the loop variable a
//!    constant (`hdr.items[i]` becomes `hdr.items[8w2]`); `break`/`continue` under a condition
//!    become flags guarding what follows. Loops bounded by run-time values stay.
//! 6. [`passes::slice_rmw`] — `x[hi:lo] = v` becomes a read-modify-write of the whole of `x`.
//! 7. [`passes::unroll_parser_stacks`] — parser states extracting into a header stack through
//!    `.next` are copied per `nextIndex` value with constant indices; past the end they reject with
//!    `StackOutOfBounds`.
//! 8. [`passes::flatten_locals`] — locals of struct/header type become one scalar per field (and a
//!    `bool` per header for validity); whole struct/header copies become field-by-field copies.
//! 9. [`passes::parallel_actions`] — straight-line action bodies become parallel assignments
//!    (conditions become `?:`).
//! 10. [`passes::dead_metadata`] — struct fields nothing reads are removed with their writes.
//!
//! Analyses of the lowered program:
//! - [`parser_offsets::offsets`] — for each parser state, the bit offsets at which it can start and
//!   the offset and width of each `extract`/`lookahead`/`advance` (unknown where run-time values
//!   decide), for a hardware generator that extracts headers at fixed offsets.
//!
//! [`check::check_program`] checks the structural invariants the passes rely on; the tests run it and
//! `p4_ir::verify::verify` after every pass, and read the lowered text form back
//! (`p4_ir::text::parse_program`) to the same text.
#![forbid(unsafe_code)]

pub mod check;
pub mod error;
mod frame;
pub mod pass;
pub mod parser_offsets;
pub mod passes;
mod returns;
mod rewrite;
pub mod util;

pub use error::PassError;
pub use pass::{pass_by_name, Pass, Pipeline, PASS_NAMES};

use p4_ir::Program;

/// Runs the default pipeline over `program` and returns the lowered program.
pub fn lower(program: Program) -> Result<Program, PassError> {
    Pipeline::default().run(program)
}

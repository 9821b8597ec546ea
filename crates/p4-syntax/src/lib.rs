//! P4_16 source handling: preprocessing, lexing, parsing into [`ast`], and located [`diag`]nostics.
//!
//! **Invariant: parsing never panics and never stops at the first error** — it returns a (possibly
//! partial) AST plus every diagnostic it found.

pub mod ast;
pub mod diag;
pub mod span;

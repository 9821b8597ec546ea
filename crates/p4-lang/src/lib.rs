//! The words P4 source text and the p4forge IR share, in a crate of their own so that the IR does
//! not depend on the parser: where something is in the source ([`span`]: files, byte spans, line
//! and column) and the operators and parameter directions ([`ops`]).
#![forbid(unsafe_code)]

pub mod ops;
pub mod span;

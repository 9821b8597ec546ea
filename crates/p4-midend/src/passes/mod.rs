//! The passes, one module each.

pub mod dead_metadata;
pub mod flatten_locals;
pub mod hoist_effects;
pub mod inline_controls;
pub mod inline_functions;
pub mod inline_parsers;
pub mod parallel_actions;
pub mod slice_rmw;
pub mod unroll_loops;
pub mod unroll_parser_stacks;

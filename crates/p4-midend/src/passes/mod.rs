//! The passes, one module each.

pub mod hoist_effects;
pub mod inline_controls;
pub mod inline_functions;
pub mod slice_rmw;

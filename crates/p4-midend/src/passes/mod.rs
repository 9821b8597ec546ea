//! The passes, one module each.

pub mod inline_controls;
pub mod inline_functions;
pub mod slice_rmw;

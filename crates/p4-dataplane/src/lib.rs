//! The v1model software dataplane (being written). See `control` for the control-plane API that the
//! STF runner and `p4forge run --entries` drive.

pub mod control;

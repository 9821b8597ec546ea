//! The control-plane API of a running dataplane, as the `p4-control` crate defines it (this module
//! keeps the paths `p4_dataplane::control::...`); the dataplane's implementation is in `cp.rs`.

pub use p4_control::{ActionArgs, ControlError, ControlPlane, Handle, Injected, KeyValue, Keys, MeterRate, OutputPacket, PacketIo};

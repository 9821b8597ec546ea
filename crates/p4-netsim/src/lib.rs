//! p4-netsim: a discrete-event network simulator with exact time for 10 Gb/s Ethernet networks,
//! and the experiments that run on it: DTP clock synchronisation (with a PTP-like protocol for
//! comparison), MinProbe available-bandwidth estimation, and a switch IPD profiler.
//!
//! Time is an integer count of 1/33 fs ([`time`]); oscillators run at 156.25 MHz ± ppm
//! ([`oscillator`]); only frames and protocol messages are events ([`sim`]), idle blocks never are.
//! The simulator knows no protocol: [`dtp`], [`ptp`] and [`minprobe`] run on it through the
//! [`Protocol`] interface ([`sim::protocol`]), and so can others.
//! Topologies are built-ins or TOML files ([`topology`], format in docs/TOPOLOGY.md); [`plot`]
//! draws the figures (written, and long runs shown on stderr, through `p4_io`).
#![forbid(unsafe_code)]

pub mod cli;
pub mod dtp;
pub mod events;
pub mod experiments;
pub mod minprobe;
pub mod oscillator;
pub mod plot;
pub mod ptp;
pub mod sim;
pub mod stats;
pub mod time;
pub mod topology;
pub mod traffic;

pub use sim::protocol::{Cx, Handle, Protocol, ProtocolId};
pub use sim::{Forwarding, Frame, FrameKind, NetConfig, Sim, SwitchModel};
pub use topology::Topology;

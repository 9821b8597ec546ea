//! P4Runtime for p4forge: the protocol's messages and services ([`proto`]), the p4info of a
//! program ([`p4info`]), the forms messages are written in ([`format`]), a server ([`server`]) and
//! a controller ([`client`]).

#![forbid(unsafe_code)]

pub mod client;
pub mod controller;
pub mod format;
pub mod p4info;
pub mod proto;
pub mod server;
pub mod text;
pub mod types;

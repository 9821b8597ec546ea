//! p4-phy: a bit-exact software model of a 10GBASE-R Ethernet port (IEEE 802.3 clause 49 PCS,
//! the 10 Gb/s reconciliation sublayer's deficit idle count, and MAC framing), built for the
//! precise pacing and timestamping SoNIC showed a software PHY can give.
//!
//! Layers, bottom up:
//! - [`time`]: exact time in serial bit periods ([`BitTime`]).
//! - [`block`]: 66-bit blocks and their field layouts; [`codec`]: XGMII ↔ block for every
//!   block type; [`scrambler`]: the x^58 + x^39 + 1 self-synchronous scrambler;
//!   [`lock`]: block lock and the BER monitor, and a bit-level aligner.
//! - [`mac`]: preamble/SFD, padding, FCS; [`ifg`]: gap placement (DIC).
//! - [`tx`] / [`rx`]: frames ↔ scrambled blocks with timestamps, gaps and error counters.
//! - [`pipeline`]: the TX and RX paths split into stages on threads joined by SPSC rings.
//! - [`gen`], [`capture`], [`stats`]: packet generator, pcapng capture, inter-packet delays.
//! - [`stream`]: the generator, bit-stream file and receiver a chunk at a time (memory flat in
//!   the frame count), as `gen` and `capture` run them.
//! - [`cli`]: clap argument structs and entry points for `p4forge phy|gen|capture` (progress and
//!   output files through `p4_io`, as every command does).
#![deny(unsafe_op_in_unsafe_fn)]

pub mod block;
pub mod capture;
pub mod cli;
pub mod codec;
pub mod gen;
pub mod ifg;
pub mod lock;
pub mod mac;
pub mod pipeline;
pub mod rx;
pub mod scrambler;
pub mod stats;
pub mod stream;
pub mod time;
pub mod tx;

pub use block::{Block66, SyncHeader};
pub use codec::Xgmii;
pub use ifg::GapRule;
pub use lock::{BerMonitor, BlockLock};
pub use rx::{
    BatchFrame, FrameBatch, FrameMeta, FrameSink, FrameStatus, RxConfig, RxCounters, RxDecoder, RxFrame, RxPhy,
};
pub use scrambler::{Descrambler, Scrambler};
pub use time::BitTime;
pub use tx::{TxConfig, TxEncoder, TxPhy, TxStamp};

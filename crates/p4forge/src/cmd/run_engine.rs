//! How `p4forge run` pushes its input through the software target: in chunks through the batch
//! interface ([`p4_dataplane::batch`]), either on the calling thread or, with `--threads N`, on N
//! worker threads each owning a switch built from the same program and entries.
//!
//! With workers, whole chunks go to them in turn and their results are delivered in chunk order,
//! so what reaches the output files is in the order one thread would have produced it, every
//! flow's packets included. That is the same *content* as one thread only when no packet's fate
//! depends on earlier packets, and then it does not matter which switch a packet meets: a program
//! with registers, meters or random numbers ([`p4_dataplane::Switch::cross_packet_state`]) runs on
//! one worker (the caller says so). Chunks rather than flows are spread because the reorder costs
//! nothing here (results are merged in input order anyway) and a flow hash would cost every worker
//! a pass over every packet; where outputs are not reordered (live ports), flows must stay on one
//! worker: [`p4_dataplane::rss::flow_hash`].

use std::collections::{HashMap, VecDeque};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

use p4_dataplane::batch::{BatchOut, DropReason, PacketIn};
use p4_dataplane::Switch;

/// Input packets per chunk on the calling thread.
pub const CHUNK: usize = 256;
/// Input packets per chunk handed to a worker: large enough that the hand-over (two channel
/// messages, possibly a thread wake-up) is small beside the work.
pub const WORKER_CHUNK: usize = 4096;
/// Chunks handed to the workers and not yet written, per worker: enough to keep them busy while
/// the calling thread reads and writes captures, few enough to bound memory.
const IN_FLIGHT_PER_WORKER: usize = 4;

/// One input packet of a [`Chunk`].
pub struct Input {
    pub port: u32,
    /// Its capture timestamp (nanoseconds since the Unix epoch).
    pub timestamp_ns: u64,
    /// Time since the start of the run.
    pub now_ns: u64,
    /// Its bytes: `Chunk::bytes[at..at + len]`.
    pub at: usize,
    pub len: usize,
    /// Its length on the wire (more than `len` when the capture holds only part of it).
    pub original_len: u32,
    /// Its number among the run's input packets, from 1.
    pub number: u64,
}

impl Input {
    /// Bytes of the packet the capture did not hold.
    pub fn missing_bytes(&self) -> u32 {
        self.original_len.saturating_sub(u32::try_from(self.len).unwrap_or(u32::MAX))
    }
}

/// Input packets read together: their bytes back to back in one buffer (no allocation per packet).
pub struct Chunk {
    pub bytes: Vec<u8>,
    pub inputs: Vec<Input>,
}

impl Chunk {
    /// An empty chunk with room for `size` packets of up to 128 bytes without growing.
    pub fn with_capacity(size: usize) -> Chunk {
        Chunk { bytes: Vec::with_capacity(size * 128), inputs: Vec::with_capacity(size) }
    }

    /// The bytes of one of the chunk's packets.
    pub fn data(&self, input: &Input) -> &[u8] {
        self.bytes.get(input.at..input.at + input.len).unwrap_or(&[])
    }

    fn batch(&self) -> Vec<PacketIn<'_>> {
        self.inputs.iter().map(|i| PacketIn { port: i.port, data: self.data(i), now_ns: i.now_ns }).collect()
    }
}

/// What the engine hands back for each input packet, in input order.
pub trait Sink {
    /// An output packet caused by `input`.
    fn output(&mut self, input: &Input, port: u32, data: &[u8]) -> crate::error::CliResult<()>;
    /// A line `input` printed (`log_msg`, digests).
    fn log(&mut self, input: &Input, line: &str);
    /// The trace of `input` (a traced switch only).
    fn trace(&mut self, input: &Input, events: &[p4_dataplane::trace::Event]);
}

/// The switches and the drop counts.
pub struct Engine {
    mode: Mode,
    /// Dropped copies by reason.
    drops: DropCounts,
    /// Chunks whose results were delivered, to be filled again ([`Engine::empty_chunk`]).
    spent: Vec<Chunk>,
}

enum Mode {
    /// On the calling thread.
    Inline { switch: Box<Switch>, out: BatchOut },
    Workers(Workers),
}

struct Workers {
    /// Per worker: where its chunks go (each with an output buffer to reuse) and where its results
    /// come from.
    to: Vec<SyncSender<(Arc<Chunk>, BatchOut)>>,
    from: Vec<Receiver<BatchOut>>,
    handles: Vec<JoinHandle<Switch>>,
    /// Chunks sent and not yet delivered, oldest first, with the worker each went to.
    pending: VecDeque<(Arc<Chunk>, usize)>,
    /// The worker the next chunk goes to.
    next: usize,
    /// Output buffers of delivered results, grown to a chunk's size, handed out again with chunks
    /// (so workers do not allocate and grow a new one per chunk).
    spare: Vec<BatchOut>,
}

impl Engine {
    /// One switch on the calling thread for one switch; worker threads for several.
    pub fn new(mut switches: Vec<Switch>) -> Engine {
        let mode = if switches.len() <= 1 {
            let switch = Box::new(switches.pop().expect("at least one switch"));
            Mode::Inline { switch, out: BatchOut::default() }
        } else {
            Mode::Workers(Workers::start(switches))
        };
        Engine { mode, drops: DropCounts::default(), spent: Vec::new() }
    }

    /// An empty chunk to fill: one delivered before, its buffers kept, or a new one.
    pub fn empty_chunk(&mut self) -> Chunk {
        match self.spent.pop() {
            Some(mut chunk) => {
                chunk.bytes.clear();
                chunk.inputs.clear();
                chunk
            }
            None => Chunk::with_capacity(self.chunk_size()),
        }
    }

    /// How many input packets a chunk should hold.
    pub fn chunk_size(&self) -> usize {
        match self.mode {
            Mode::Inline { .. } => CHUNK,
            Mode::Workers(_) => WORKER_CHUNK,
        }
    }

    /// Processes a chunk (at most [`Engine::chunk_size`] packets); its outputs may reach `sink`
    /// later (at the latest in [`Engine::finish`]), always in input order.
    pub fn push(&mut self, chunk: Chunk, sink: &mut dyn Sink) -> crate::error::CliResult<()> {
        match &mut self.mode {
            Mode::Inline { switch, out } => {
                switch.process_batch(&chunk.batch(), out);
                let delivered = deliver(&chunk, out, &mut self.drops, sink);
                self.spent.push(chunk);
                delivered
            }
            Mode::Workers(workers) => {
                let chunk = Arc::new(chunk);
                let worker = workers.next;
                workers.next = (worker + 1) % workers.to.len();
                // A worker gone means it panicked; `merge_oldest` and `finish` report it.
                let out = workers.spare.pop().unwrap_or_default();
                let _ = workers.to[worker].send((chunk.clone(), out));
                workers.pending.push_back((chunk, worker));
                if workers.pending.len() >= IN_FLIGHT_PER_WORKER * workers.to.len() {
                    if let Some(chunk) = workers.merge_oldest(&mut self.drops, sink)? {
                        self.spent.push(chunk);
                    }
                }
                Ok(())
            }
        }
    }

    /// Delivers every pending result and stops the workers. Returns the drop counts by their text
    /// (`mark_to_drop in MyIngress`).
    pub fn finish(self, sink: &mut dyn Sink) -> crate::error::CliResult<Vec<(String, u64)>> {
        let Engine { mode, mut drops, .. } = self;
        let switch = match mode {
            Mode::Inline { switch, .. } => *switch,
            Mode::Workers(mut workers) => {
                while !workers.pending.is_empty() {
                    workers.merge_oldest(&mut drops, sink)?;
                }
                workers.stop()?
            }
        };
        Ok(drops.into_counts().into_iter().map(|(reason, n)| (switch.drop_text(&reason), n)).collect())
    }
}

impl Workers {
    fn start(switches: Vec<Switch>) -> Workers {
        let mut workers = Workers { to: Vec::new(), from: Vec::new(), handles: Vec::new(), pending: VecDeque::new(), next: 0, spare: Vec::new() };
        for switch in switches {
            let (to, chunks) = sync_channel(IN_FLIGHT_PER_WORKER);
            let (results, from) = sync_channel(IN_FLIGHT_PER_WORKER);
            workers.to.push(to);
            workers.from.push(from);
            workers.handles.push(std::thread::spawn(move || work(switch, chunks, results)));
        }
        workers
    }

    /// Waits for the result of the oldest pending chunk and delivers it; returns the chunk when
    /// the worker no longer holds it (to be filled again).
    fn merge_oldest(&mut self, drops: &mut DropCounts, sink: &mut dyn Sink) -> crate::error::CliResult<Option<Chunk>> {
        let Some((chunk, worker)) = self.pending.pop_front() else { return Ok(None) };
        match self.from[worker].recv() {
            Ok(mut result) => {
                deliver(&chunk, &mut result, drops, sink)?;
                self.spare.push(result);
                Ok(Arc::try_unwrap(chunk).ok())
            }
            Err(_) => Err(crate::error::CliError::failed("a dataplane worker thread stopped unexpectedly".to_string())),
        }
    }

    /// Closes the chunk channels, joins the workers and returns one of their switches.
    fn stop(self) -> crate::error::CliResult<Switch> {
        drop(self.to);
        let mut first = None;
        for handle in self.handles {
            match handle.join() {
                Ok(switch) => first = first.or(Some(switch)),
                Err(_) => return Err(crate::error::CliError::failed("a dataplane worker thread panicked".to_string())),
            }
        }
        first.ok_or_else(|| crate::error::CliError::failed("no dataplane worker".to_string()))
    }
}

/// Drop counts by reason. Drops come in runs of one reason (a program drops most of what it drops
/// for one reason), so the current run is counted without hashing its reason each time.
#[derive(Default)]
struct DropCounts {
    run: Option<(DropReason, u64)>,
    all: HashMap<DropReason, u64>,
}

impl DropCounts {
    fn add(&mut self, reason: DropReason) {
        match &mut self.run {
            Some((current, n)) if *current == reason => *n += 1,
            _ => {
                self.end_run();
                self.run = Some((reason, 1));
            }
        }
    }

    fn end_run(&mut self) {
        if let Some((reason, n)) = self.run.take() {
            *self.all.entry(reason).or_default() += n;
        }
    }

    fn into_counts(mut self) -> HashMap<DropReason, u64> {
        self.end_run();
        self.all
    }
}

/// A worker: processes each chunk it is given and returns what it produced.
fn work(mut switch: Switch, chunks: Receiver<(Arc<Chunk>, BatchOut)>, results: SyncSender<BatchOut>) -> Switch {
    while let Ok((chunk, mut out)) = chunks.recv() {
        switch.process_batch(&chunk.batch(), &mut out);
        // Let go of the chunk before its result is sent, so the calling thread gets it back whole.
        drop(chunk);
        if results.send(out).is_err() {
            break;
        }
    }
    switch
}

/// Hands what one chunk produced to `sink`, input by input (the records are in input order), and
/// counts the drops.
fn deliver(chunk: &Chunk, result: &mut BatchOut, drops: &mut DropCounts, sink: &mut dyn Sink) -> crate::error::CliResult<()> {
    for drop in result.drops.drain(..) {
        drops.add(drop.reason);
    }
    if result.trace.is_empty() && result.log.is_empty() {
        // Only packets (the usual case): they are in input order already, so no walk over the
        // inputs is needed to interleave them with lines and traces.
        for packet in &result.packets {
            let input = chunk.inputs.get(packet.input as usize).ok_or_else(|| {
                crate::error::CliError::failed(format!("the dataplane returned an output of input {} of a chunk of {}", packet.input, chunk.inputs.len()))
            })?;
            sink.output(input, packet.port, result.data(packet))?;
        }
        return Ok(());
    }
    let mut traces = std::mem::take(&mut result.trace).into_iter().peekable();
    let (mut packet_at, mut log_at) = (0, 0);
    let mut events = Vec::new();
    for (index, input) in chunk.inputs.iter().enumerate() {
        let index = index as u32;
        events.clear();
        while let Some((_, event)) = traces.next_if(|(i, _)| *i == index) {
            events.push(event);
        }
        if !events.is_empty() {
            sink.trace(input, &events);
        }
        while let Some((_, line)) = result.log.get(log_at).filter(|(i, _)| *i == index) {
            sink.log(input, line);
            log_at += 1;
        }
        while let Some(packet) = result.packets.get(packet_at).filter(|p| p.input == index) {
            sink.output(input, packet.port, result.data(packet))?;
            packet_at += 1;
        }
    }
    Ok(())
}

//! How `p4forge run` pushes its input through the software target: in chunks through the batch
//! interface ([`p4_dataplane::batch`]), either on the calling thread or, with `--threads N`, on the
//! calling thread and N - 1 helper threads, each owning a switch built from the same program and
//! entries.
//!
//! With helpers, whole chunks go to whichever thread has room ([`Shared`]) and their results are
//! delivered in chunk order, so what reaches the output files is in the order one thread would have
//! produced it, every flow's packets included. That is the same *content* as one thread only when
//! no packet's fate depends on earlier packets, and then it does not matter which switch a packet
//! meets: a program with registers, meters or random numbers
//! ([`p4_dataplane::Switch::cross_packet_state`]) runs on one thread (the caller says so). Chunks
//! rather than flows are spread because the reorder costs nothing here (results are merged in input
//! order anyway) and a flow hash would cost every thread a pass over every packet; where outputs
//! are not reordered (live ports), flows must stay on one worker: [`p4_dataplane::rss::flow_hash`].
//!
//! The calling thread works on chunks too (it was a third busy thread on two cores when it only
//! read, merged and wrote): `--threads 2` is two threads doing all the work. The calling thread
//! reads the input and decodes the records it read (while they are in its cache: on a helper each
//! record header was a wait for the other core's cache); it does not write what a chunk produced
//! but sets aside room for it in each output file, in chunk order, and a helper writes it there
//! ([`Job::Write`]). Writing on the calling thread left it the busier of two (reads and writes are
//! copies by the kernel that cost about as much as the dataplane's work on l2l3), and both threads
//! writing the same file waited on its lock.

use std::collections::{HashMap, VecDeque};
use std::sync::mpsc::{channel, Receiver, Sender, TryRecvError};
use std::thread::JoinHandle;

use p4_dataplane::batch::{BatchOut, DropReason, PacketIn};
use p4_dataplane::Switch;
use p4_io::output::Reserved;
use p4_stf::capture::{PcapRecords, RawRecords};

/// Input packets per chunk on the calling thread.
pub const CHUNK: usize = 256;
/// Input packets per chunk when helper threads share the work: large enough that the hand-over
/// (two channel messages, possibly a thread wake-up) is small beside the work.
pub const WORKER_CHUNK: usize = 4096;
/// Bytes of a chunk read as whole pcap records ([`RawChunk`]): on the calling thread alone, as many
/// as the read system calls cost nothing per packet (it runs them [`CHUNK`] at a time); with
/// helpers, about [`WORKER_CHUNK`] records of small packets.
const RAW_CHUNK_BYTES: usize = 1 << 20;
const RAW_WORKER_CHUNK_BYTES: usize = 384 << 10;
/// Chunks a helper is given and whose results are not yet delivered: the one it works on plus
/// enough queued that it never waits while the calling thread works on a chunk of its own. When
/// every helper has this many, the calling thread takes the next chunk itself. Reading and writing
/// a chunk costs the calling thread about as much as the dataplane's work on it (l2l3, 64-byte
/// packets), so a helper needs several chunks in hand to outlast one round of that: with 3 it sat
/// idle a quarter of the run (measured with `perf report --sort pid` on a 10 M-packet l2l3 run).
const HELPER_QUEUE: usize = 8;
/// Chunks not yet delivered, at most, per thread (calling thread included): bounds memory when a
/// helper falls behind (the calling thread then waits for it).
const PENDING_PER_THREAD: usize = 8;
/// Chunks a helper is given to write and has not written yet, at most: beyond it the calling
/// thread writes them itself (bounds memory when writing is what a helper falls behind on; 8
/// measured faster than 2).
const HELPER_WRITES: usize = 8;

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

    /// The original length of an output of `len` bytes this input caused: a truncated input keeps
    /// its missing tail in it (see `CapturedPacket::derive`).
    pub fn output_original_len(&self, len: usize) -> u32 {
        u32::try_from(len).unwrap_or(u32::MAX).saturating_add(self.missing_bytes())
    }
}

/// Input packets read together: their bytes back to back in one buffer (no allocation per packet).
///
/// A chunk may come as whole pcap records read straight into `bytes` ([`Chunk::set_raw`]), decoded
/// into `inputs` later ([`Chunk::decode`]), and its outputs may be framed as pcap records by the
/// thread that ran it ([`Chunk::frame`]), so that writing them is a copy of whole blocks, on any
/// thread ([`Chunk::rooms`]).
pub struct Chunk {
    /// The packets' bytes; may run past the last packet (see [`RawRecords`]).
    pub bytes: Vec<u8>,
    pub inputs: Vec<Input>,
    /// Records in `bytes` not yet decoded into `inputs`.
    raw: Option<RawChunk>,
    /// The outputs as pcap records by port, when the thread that ran the chunk framed them.
    framed: Vec<(u32, PcapRecords)>,
    is_framed: bool,
    /// Room set aside in the output files for `framed` (by index), not yet written.
    rooms: Vec<(usize, Reserved)>,
}

/// A chunk's packets as whole records of one input's capture, in `Chunk::bytes`.
pub struct RawChunk {
    pub records: RawRecords,
    /// Their ingress port.
    pub port: u32,
    /// The first one's number among the run's input packets.
    pub first_number: u64,
    /// The run's start, the capture time of its first packet (`Input::now_ns` counts from it).
    pub start_ns: u64,
}

impl Chunk {
    /// An empty chunk with room for `size` packets of up to 128 bytes without growing.
    pub fn with_capacity(size: usize) -> Chunk {
        Chunk {
            bytes: Vec::with_capacity(size * 128),
            inputs: Vec::with_capacity(size),
            raw: None,
            framed: Vec::new(),
            is_framed: false,
            rooms: Vec::new(),
        }
    }

    /// Whether it holds no packet.
    pub fn is_empty(&self) -> bool {
        self.inputs.is_empty() && self.raw.as_ref().is_none_or(|raw| raw.records.count() == 0)
    }

    /// Makes the chunk's packets the records `raw` says `bytes` holds, decoded later.
    pub fn set_raw(&mut self, raw: RawChunk) {
        self.inputs.clear();
        self.raw = Some(raw);
    }

    /// Decodes up to `limit` records of a raw chunk into `inputs` (replacing what they held); the
    /// rest stay raw. Nothing for a chunk that is not raw.
    fn decode(&mut self, limit: usize) {
        let Some(raw) = &mut self.raw else { return };
        let records = raw.records.take_front(limit, &self.bytes);
        let (port, start_ns, mut number) = (raw.port, raw.start_ns, raw.first_number);
        raw.first_number += records.count() as u64;
        if raw.records.count() == 0 {
            self.raw = None;
        }
        let inputs = &mut self.inputs;
        inputs.clear();
        records.each(&self.bytes, |record, at| {
            inputs.push(Input {
                port,
                timestamp_ns: record.timestamp_ns,
                now_ns: record.timestamp_ns.saturating_sub(start_ns),
                at,
                len: record.len,
                original_len: record.original_len,
                number,
            });
            number += 1;
        });
    }

    /// Frames what `result` holds for the chunk as pcap records by port, when it is only packets
    /// (with lines or traces, [`deliver`] interleaves them input by input) and pcap can hold them
    /// all (otherwise the writer, packet by packet, says which cannot be written).
    fn frame(&mut self, result: &BatchOut) {
        for (_, records) in &mut self.framed {
            records.clear();
        }
        self.is_framed = result.trace.is_empty() && result.log.is_empty();
        if !self.is_framed {
            return;
        }
        let mut last = usize::MAX;
        for packet in &result.packets {
            let Some(input) = self.inputs.get(packet.input as usize) else {
                self.is_framed = false;
                return;
            };
            if self.framed.get(last).is_none_or(|(port, _)| *port != packet.port) {
                last = match self.framed.iter().position(|(port, _)| *port == packet.port) {
                    Some(found) => found,
                    None => {
                        self.framed.push((packet.port, PcapRecords::default()));
                        self.framed.len() - 1
                    }
                };
            }
            let data = result.data(packet);
            let original_len = input.output_original_len(data.len());
            if !self.framed[last].1.push(input.timestamp_ns, data, original_len) {
                self.is_framed = false;
                return;
            }
        }
    }

    /// Writes the framed records into the room set aside for them.
    fn write_rooms(&mut self) -> Result<(), p4_io::output::OutputError> {
        for (index, room) in self.rooms.drain(..) {
            room.write(self.framed.get(index).map_or(&[], |(_, records)| records.as_bytes()))?;
        }
        Ok(())
    }

    /// The bytes of one of the chunk's packets.
    pub fn data(&self, input: &Input) -> &[u8] {
        self.bytes.get(input.at..input.at + input.len).unwrap_or(&[])
    }

    /// The chunk's packets as a batch, in `spare`'s allocation (emptied first).
    fn batch_in<'a>(&'a self, spare: Vec<PacketIn<'static>>) -> Vec<PacketIn<'a>> {
        let mut batch: Vec<PacketIn<'a>> = spare;
        batch.clear();
        batch.extend(self.inputs.iter().map(|i| PacketIn { port: i.port, data: self.data(i), now_ns: i.now_ns }));
        batch
    }
}

/// What the engine hands back for each input packet, in input order.
pub trait Sink {
    /// An output packet caused by `input`.
    fn output(&mut self, input: &Input, port: u32, data: &[u8]) -> crate::error::CliResult<()>;
    /// Output packets of one port, framed as pcap records ([`Chunk::frame`]), in order: the room
    /// set aside for them in the port's output, for the caller to write them into (on any
    /// thread, before the outputs are finished), or `None` when they were written at once.
    fn place_records(&mut self, port: u32, records: &PcapRecords) -> crate::error::CliResult<Option<Reserved>>;
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
    Inline { switch: Box<Switch>, out: BatchOut, batch: Vec<PacketIn<'static>> },
    /// On the calling thread and helper threads together.
    Shared(Shared),
}

/// The calling thread and its helpers sharing the chunks. The calling thread also reads the input
/// (and writes what the helpers cannot take), so it cannot take a fixed share: it hands a chunk to a helper while
/// that helper has fewer than [`HELPER_QUEUE`] undelivered, and otherwise runs the chunk itself.
/// Busy helpers thus get as much as they can take and the calling thread the rest, whatever the
/// cost of reading and writing beside the dataplane, and whatever else the machine is running.
struct Shared {
    /// The calling thread's own switch.
    own: Box<Switch>,
    helpers: Vec<Helper>,
    /// Chunks not yet delivered, oldest first.
    pending: VecDeque<Pending>,
    /// Output buffers of delivered results, grown to a chunk's size, handed out again with chunks
    /// (so no thread allocates and grows a new one per chunk).
    spare: Vec<BatchOut>,
    /// The calling thread's batch buffer, kept between chunks.
    batch: Vec<PacketIn<'static>>,
}

/// A helper thread with its own switch.
struct Helper {
    /// Where its jobs go.
    to: Sender<Job>,
    /// Where they come back, in the order they went.
    from: Receiver<Done>,
    handle: JoinHandle<Switch>,
    /// Chunks given to it to run whose results are not delivered yet.
    undelivered: usize,
    /// Chunks given to it to write, not yet back.
    writing: usize,
}

/// What a helper is asked to do.
enum Job {
    /// Run a chunk, filling the output buffer, and frame its outputs.
    Run(Chunk, BatchOut),
    /// Write a chunk it ran into the room set aside for it ([`Chunk::rooms`]).
    Write(Chunk),
}

/// What a helper did.
enum Done {
    Ran(Chunk, BatchOut),
    Wrote(Chunk, Result<(), p4_io::output::OutputError>),
}

/// A chunk not yet delivered.
// A few hundred bytes moved once per chunk of thousands of packets: not worth a box each.
#[allow(clippy::large_enum_variant)]
enum Pending {
    /// Given to a helper (by index); its result comes from that helper.
    Helper(usize),
    /// Run by the calling thread; its result is here.
    Done(Chunk, BatchOut),
}

impl Engine {
    /// One switch on the calling thread for one switch; for several, the calling thread with the
    /// first and a helper thread for each of the others.
    pub fn new(mut switches: Vec<Switch>) -> Engine {
        assert!(!switches.is_empty(), "an engine needs a switch");
        let own = Box::new(switches.remove(0));
        let mode = if switches.is_empty() {
            Mode::Inline { switch: own, out: BatchOut::default(), batch: Vec::new() }
        } else {
            Mode::Shared(Shared::start(own, switches))
        };
        Engine { mode, drops: DropCounts::default(), spent: Vec::new() }
    }

    /// An empty chunk to fill: one delivered before, its buffers kept, or a new one. Its `bytes`
    /// may hold bytes of before: a reader that appends must clear them first.
    pub fn empty_chunk(&mut self) -> Chunk {
        match self.spent.pop() {
            Some(mut chunk) => {
                chunk.inputs.clear();
                chunk.raw = None;
                chunk
            }
            None => Chunk::with_capacity(self.chunk_size()),
        }
    }

    /// How many input packets a chunk should hold.
    pub fn chunk_size(&self) -> usize {
        match self.mode {
            Mode::Inline { .. } => CHUNK,
            Mode::Shared(_) => WORKER_CHUNK,
        }
    }

    /// About how many bytes of whole records a raw chunk should hold.
    pub fn raw_chunk_bytes(&self) -> usize {
        match self.mode {
            Mode::Inline { .. } => RAW_CHUNK_BYTES,
            Mode::Shared(_) => RAW_WORKER_CHUNK_BYTES,
        }
    }

    /// Processes a chunk (at most [`Engine::chunk_size`] packets); its outputs may reach `sink`
    /// later (at the latest in [`Engine::finish`]), always in input order.
    pub fn push(&mut self, chunk: Chunk, sink: &mut dyn Sink) -> crate::error::CliResult<()> {
        match &mut self.mode {
            Mode::Inline { switch, out, batch } => {
                // A raw chunk in batches of `CHUNK` (what the dataplane reads and writes stays in
                // the cache); the outputs are written from the batch, without framing them first.
                let mut chunk = chunk;
                let delivered = loop {
                    chunk.decode(CHUNK);
                    run_chunk(switch, &mut chunk, batch, out, false);
                    let delivered = deliver(&mut chunk, out, &mut self.drops, sink);
                    if delivered.is_err() || chunk.raw.is_none() {
                        break delivered;
                    }
                };
                self.spent.push(chunk);
                delivered
            }
            Mode::Shared(shared) => {
                // Results already back first: a helper that finished its chunks then counts as
                // having room, and gets this one instead of the calling thread running it.
                shared.deliver_ready(&mut self.drops, sink, &mut self.spent)?;
                shared.dispatch(chunk);
                while shared.pending.len() >= PENDING_PER_THREAD * (shared.helpers.len() + 1) {
                    shared.deliver_oldest(&mut self.drops, sink, &mut self.spent)?;
                }
                Ok(())
            }
        }
    }

    /// Delivers every pending result and stops the helpers. Returns the drop counts by their text
    /// (`mark_to_drop in MyIngress`).
    pub fn finish(self, sink: &mut dyn Sink) -> crate::error::CliResult<Vec<(String, u64)>> {
        let Engine { mode, mut drops, mut spent } = self;
        let switch = match mode {
            Mode::Inline { switch, .. } => switch,
            Mode::Shared(mut shared) => {
                while !shared.pending.is_empty() {
                    shared.deliver_oldest(&mut drops, sink, &mut spent)?;
                }
                shared.stop()?
            }
        };
        Ok(drops.into_counts().into_iter().map(|(reason, n)| (switch.drop_text(&reason), n)).collect())
    }
}

impl Shared {
    fn start(own: Box<Switch>, switches: Vec<Switch>) -> Shared {
        let helpers = switches
            .into_iter()
            .map(|switch| {
                // Neither side ever waits to send (the calling thread waits only for results, in
                // `deliver_oldest`); what is in the channels is bounded by `HELPER_QUEUE` and
                // `HELPER_WRITES`.
                let (to, jobs) = channel();
                let (results, from) = channel();
                let handle = std::thread::spawn(move || help(switch, jobs, results));
                Helper { to, from, handle, undelivered: 0, writing: 0 }
            })
            .collect();
        Shared { own, helpers, pending: VecDeque::new(), spare: Vec::new(), batch: Vec::new() }
    }

    /// Gives `chunk` to the least loaded helper if it has room, or else runs it here.
    fn dispatch(&mut self, mut chunk: Chunk) {
        chunk.decode(usize::MAX);
        // Its outputs are framed wherever it runs, for a helper to write.
        let out = self.spare.pop().unwrap_or_default();
        let least_loaded = (0..self.helpers.len()).min_by_key(|&h| self.helpers[h].undelivered);
        if let Some(h) = least_loaded.filter(|&h| self.helpers[h].undelivered < HELPER_QUEUE) {
            let helper = &mut self.helpers[h];
            // A helper gone means it panicked; if so the chunk is lost, and `deliver_oldest`
            // reports it when its turn comes.
            let _ = helper.to.send(Job::Run(chunk, out));
            helper.undelivered += 1;
            self.pending.push_back(Pending::Helper(h));
        } else {
            let (mut chunk, mut out) = (chunk, out);
            run_chunk(&mut self.own, &mut chunk, &mut self.batch, &mut out, true);
            self.pending.push_back(Pending::Done(chunk, out));
        }
    }

    /// Delivers the oldest pending chunks whose results are there, without waiting.
    fn deliver_ready(
        &mut self,
        drops: &mut DropCounts,
        sink: &mut dyn Sink,
        spent: &mut Vec<Chunk>,
    ) -> crate::error::CliResult<()> {
        loop {
            let ready = match self.pending.front() {
                None => return Ok(()),
                Some(Pending::Done(..)) => None,
                Some(&Pending::Helper(h)) => match self.helpers[h].result(false, spent)? {
                    Some(result) => Some(result),
                    None => return Ok(()),
                },
            };
            self.deliver_front(ready, drops, sink, spent)?;
        }
    }

    /// Waits for the result of the oldest pending chunk and delivers it.
    fn deliver_oldest(
        &mut self,
        drops: &mut DropCounts,
        sink: &mut dyn Sink,
        spent: &mut Vec<Chunk>,
    ) -> crate::error::CliResult<()> {
        let ready = match self.pending.front() {
            None => return Ok(()),
            Some(Pending::Done(..)) => None,
            Some(&Pending::Helper(h)) => self.helpers[h].result(true, spent)?,
        };
        self.deliver_front(ready, drops, sink, spent)
    }

    /// Delivers the oldest pending chunk: `from_helper` is its result when a helper ran it. The
    /// chunk goes to `spent`, its output buffer to `spare`.
    fn deliver_front(
        &mut self,
        from_helper: Option<(Chunk, BatchOut)>,
        drops: &mut DropCounts,
        sink: &mut dyn Sink,
        spent: &mut Vec<Chunk>,
    ) -> crate::error::CliResult<()> {
        let (mut chunk, mut out) = match (self.pending.pop_front(), from_helper) {
            (Some(Pending::Done(chunk, out)), _) => (chunk, out),
            (Some(Pending::Helper(h)), Some(result)) => {
                self.helpers[h].undelivered -= 1;
                result
            }
            _ => return Ok(()),
        };
        let delivered = deliver(&mut chunk, &mut out, drops, sink);
        self.spare.push(out);
        // The helper with least to write writes them, unless every one has enough already.
        let least_writing = (0..self.helpers.len()).min_by_key(|&h| self.helpers[h].writing);
        match least_writing.filter(|&h| !chunk.rooms.is_empty() && self.helpers[h].writing < HELPER_WRITES) {
            Some(h) => {
                let helper = &mut self.helpers[h];
                helper.writing += 1;
                // A helper gone fails the next wait for its results (and the unwritten room, the
                // files' commit).
                let _ = helper.to.send(Job::Write(chunk));
            }
            None => {
                let written = chunk.write_rooms();
                spent.push(chunk);
                written.map_err(|e| crate::error::CliError::output(e.to_string()))?;
            }
        }
        delivered
    }

    /// Closes the helpers' channels, joins them (each first does the jobs it has) and returns the
    /// calling thread's switch; fails if one of them failed to write.
    fn stop(self) -> crate::error::CliResult<Box<Switch>> {
        for mut helper in self.helpers {
            // Every result was delivered: what is still to come is writes.
            helper.finish_writing()?;
            drop(helper.to);
            if helper.handle.join().is_err() {
                return Err(crate::error::CliError::failed("a dataplane worker thread panicked".to_string()));
            }
        }
        Ok(self.own)
    }
}

impl Helper {
    /// The result of the oldest chunk it was given to run, waiting for it if `wait` (else `None`
    /// when it is not back yet). Chunks it wrote meanwhile go to `spent`; a failed write fails.
    fn result(&mut self, wait: bool, spent: &mut Vec<Chunk>) -> crate::error::CliResult<Option<(Chunk, BatchOut)>> {
        loop {
            let done = if wait {
                self.from.recv().map_err(|_| helper_stopped())?
            } else {
                match self.from.try_recv() {
                    Ok(done) => done,
                    Err(TryRecvError::Empty) => return Ok(None),
                    Err(TryRecvError::Disconnected) => return Err(helper_stopped()),
                }
            };
            if let Some(ran) = self.wrote(done, spent)? {
                return Ok(Some(ran));
            }
        }
    }

    /// Waits for every chunk it was given to write (when no result of a run is still to come).
    fn finish_writing(&mut self) -> crate::error::CliResult<()> {
        let mut spent = Vec::new();
        while self.writing > 0 {
            let done = self.from.recv().map_err(|_| helper_stopped())?;
            if self.wrote(done, &mut spent)?.is_some() {
                return Err(helper_stopped());
            }
        }
        Ok(())
    }

    /// Takes in a chunk it wrote (into `spent`; a failed write fails), or returns the result of a run.
    fn wrote(&mut self, done: Done, spent: &mut Vec<Chunk>) -> crate::error::CliResult<Option<(Chunk, BatchOut)>> {
        match done {
            Done::Ran(chunk, out) => Ok(Some((chunk, out))),
            Done::Wrote(chunk, written) => {
                self.writing -= 1;
                spent.push(chunk);
                written.map_err(|e| crate::error::CliError::output(e.to_string()))?;
                Ok(None)
            }
        }
    }
}

fn helper_stopped() -> crate::error::CliError {
    crate::error::CliError::failed("a dataplane worker thread stopped unexpectedly".to_string())
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

/// A helper thread: does each job it is given and sends the chunk back, with what it produced.
fn help(mut switch: Switch, jobs: Receiver<Job>, results: Sender<Done>) -> Switch {
    let mut spare_batch = Vec::new();
    while let Ok(job) = jobs.recv() {
        let done = match job {
            Job::Run(mut chunk, mut out) => {
                // Decoded by the calling thread already.
                run_chunk(&mut switch, &mut chunk, &mut spare_batch, &mut out, true);
                Done::Ran(chunk, out)
            }
            Job::Write(mut chunk) => {
                let written = chunk.write_rooms();
                Done::Wrote(chunk, written)
            }
        };
        if results.send(done).is_err() {
            break;
        }
    }
    switch
}

/// Runs the decoded inputs of `chunk` through `switch` into `out`, on whichever thread, and frames
/// the outputs if `frame` (a helper's, which the calling thread then writes as blocks).
/// `spare_batch`: the thread's batch buffer, kept between chunks.
fn run_chunk(
    switch: &mut Switch,
    chunk: &mut Chunk,
    spare_batch: &mut Vec<PacketIn<'static>>,
    out: &mut BatchOut,
    frame: bool,
) {
    let batch = chunk.batch_in(std::mem::take(spare_batch));
    switch.process_batch(&batch, out);
    *spare_batch = forget_borrows(batch);
    chunk.is_framed = false;
    if frame {
        chunk.frame(out);
    }
}

/// An empty batch buffer with `batch`'s allocation and no borrow, to be kept between chunks.
fn forget_borrows(mut batch: Vec<PacketIn<'_>>) -> Vec<PacketIn<'static>> {
    batch.clear();
    // Empty, so nothing is mapped: the collect only changes the lifetime in the type, and reuses
    // the allocation (same element layout).
    batch.into_iter().map(|_| unreachable!("the batch is empty")).collect()
}

/// Hands what one chunk produced to `sink`, input by input (the records are in input order), and
/// counts the drops.
fn deliver(
    chunk: &mut Chunk,
    result: &mut BatchOut,
    drops: &mut DropCounts,
    sink: &mut dyn Sink,
) -> crate::error::CliResult<()> {
    for drop in result.drops.drain(..) {
        drops.add(drop.reason);
    }
    if chunk.is_framed {
        // Only packets, framed by the thread that ran the chunk: each port's are one block, for
        // the room set aside for it (or written at once).
        for (index, (port, records)) in chunk.framed.iter().enumerate().filter(|(_, (_, r))| r.packets() > 0) {
            if let Some(room) = sink.place_records(*port, records)? {
                chunk.rooms.push((index, room));
            }
        }
        return Ok(());
    }
    if result.trace.is_empty() && result.log.is_empty() {
        // Only packets (the usual case): they are in input order already, so no walk over the
        // inputs is needed to interleave them with lines and traces.
        for packet in &result.packets {
            let input = chunk.inputs.get(packet.input as usize).ok_or_else(|| {
                crate::error::CliError::failed(format!(
                    "the dataplane returned an output of input {} of a chunk of {}",
                    packet.input,
                    chunk.inputs.len()
                ))
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

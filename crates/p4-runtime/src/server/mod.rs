//! The P4Runtime server: one device, whose pipeline is a [`Target`] (the software switch, or the
//! hardware target's driver) that the server shares with whatever moves its packets.
//!
//! A [`Device`] sits behind a mutex: gRPC handlers lock it for each request, the packet loop for
//! each batch. A pipeline comes from `SetForwardingPipelineConfig` through the [`Loader`] the
//! embedding program gives (p4forge compiles the device config as P4 source or IR text), or is
//! installed at start ([`Device::install`]).

mod arbitration;
mod batch;
mod cells;
mod digests;
mod idle;
mod profiles;
mod replication;
pub mod roles;
mod tables;
mod value_sets;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use p4_control::catalog::Catalog;
use p4_control::{ControlPlane, PacketIo};
use p4_ir::layout::ControlPlaneIds;
use prost::Message;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::StreamExt;
use tonic::{Code, Request, Response, Status, Streaming};

use crate::controller::ControllerHeader;
use crate::proto::google::rpc;
use crate::proto::p4::config::v1::P4Info;
use crate::proto::p4::v1 as p4v1;
use p4v1::p4_runtime_server::{P4Runtime, P4RuntimeServer};

pub use arbitration::Arbitration;

/// The P4Runtime version this server implements.
pub const API_VERSION: &str = "1.5.0";

/// What a pipeline runs on.
pub trait Target: ControlPlane + PacketIo + Send + 'static {}
impl<T: ControlPlane + PacketIo + Send + 'static> Target for T {}

/// A pipeline ready to run: the target and what the control plane knows of its program.
pub struct Loaded<T> {
    pub target: T,
    pub catalog: Catalog,
    pub ids: ControlPlaneIds,
    /// The p4info the program gives, which a pushed p4info must agree with.
    pub p4info: P4Info,
    /// Its controller headers (`packet_in`, `packet_out`), for packet I/O.
    pub controller_headers: Vec<ControllerHeader>,
}

/// Builds a pipeline from a `p4_device_config`; `Err` says why it cannot.
pub type Loader<T> = Arc<dyn Fn(&[u8]) -> Result<Loaded<T>, String> + Send + Sync>;

/// The running pipeline.
pub struct Pipeline<T> {
    pub target: T,
    controller_headers: Vec<ControllerHeader>,
    catalog: Catalog,
    ids: ControlPlaneIds,
    config: p4v1::ForwardingPipelineConfig,
    entries: tables::Entries,
    replication: replication::Replication,
    meters: cells::Meters,
    digests: digests::Digests,
    value_sets: value_sets::ValueSets,
    profiles: profiles::Profiles,
    idle: idle::Idle,
}

/// One P4Runtime device.
pub struct Device<T> {
    device_id: u64,
    pipeline: Option<Pipeline<T>>,
    /// A config verified and saved (`VERIFY_AND_SAVE`), waiting for `COMMIT`.
    saved: Option<Pipeline<T>>,
    arbitration: Arbitration,
    loader: Loader<T>,
    /// Where packet-outs go: frames for the packet loop to take in on the CPU port.
    cpu: Option<CpuPort>,
}

/// The CPU port: packet-outs enter the pipeline there, and what the pipeline sends there goes to
/// the primary controller as packet-ins.
pub struct CpuPort {
    pub port: u32,
    /// Frames (packet_out header and payload) for the packet loop, at most [`CPU_QUEUE`] waiting.
    pub frames: std::sync::mpsc::SyncSender<Vec<u8>>,
}

/// Packet-outs that may wait for the packet loop; beyond that a packet-out is refused (on the
/// controller's stream), so a controller flooding the switch cannot exhaust its memory.
pub const CPU_QUEUE: usize = 4096;

impl<T: Target> Device<T> {
    pub fn new(device_id: u64, loader: Loader<T>) -> Device<T> {
        Device { device_id, pipeline: None, saved: None, arbitration: Arbitration::default(), loader, cpu: None }
    }

    /// Packet I/O through `cpu`.
    pub fn set_cpu_port(&mut self, cpu: CpuPort) {
        self.cpu = Some(cpu);
    }

    /// A frame the pipeline sent to the CPU port: to the primary controller as a PacketIn, its
    /// packet_in header as metadata. `Err` says why it cannot go (no primary, no packet_in
    /// header, a frame shorter than the header).
    pub fn packet_in(&self, frame: &[u8]) -> Result<(), String> {
        let pipeline = self.pipeline.as_ref().ok_or("no pipeline")?;
        let packet = match pipeline.controller_headers.iter().find(|h| h.name == "packet_in") {
            Some(h) => {
                let (metadata, payload) = h.decode(frame).ok_or_else(|| format!("a {}-byte frame to the CPU port is shorter than its packet_in header", frame.len()))?;
                p4v1::PacketIn { payload: payload.to_vec(), metadata }
            }
            None => p4v1::PacketIn { payload: frame.to_vec(), metadata: Vec::new() },
        };
        let txs = self.arbitration.packet_in_txs(&packet.metadata);
        if txs.is_empty() {
            return Err("no primary controller takes this packet-in".to_string());
        }
        let message = p4v1::StreamMessageResponse { update: Some(p4v1::stream_message_response::Update::Packet(packet)) };
        let full = txs.iter().filter(|tx| tx.try_send(Ok(message.clone())).is_err()).count();
        match full {
            0 => Ok(()),
            n => Err(format!("{n} of the {} controllers it goes to have a full or closed stream", txs.len())),
        }
    }

    /// Digests the pipeline sent: to the primary controller in `DigestList`s, once it configured
    /// them. Without a primary they are not kept.
    pub fn digests<'a>(&mut self, digests: impl IntoIterator<Item = &'a p4_control::Digest>) {
        let (Some(pipeline), Some(tx)) = (self.pipeline.as_mut(), self.arbitration.primary_tx()) else { return };
        let now = std::time::Instant::now();
        for digest in digests {
            pipeline.digests.offer(digest, now, &mut |list| send_digest_list(tx, list));
        }
    }

    /// Sends the digest lists that waited long enough, and (every [`idle::POLL`]) takes the hit
    /// bits and reports the entries gone idle; called every [`DIGEST_TICK`].
    fn tick(&mut self) {
        let (Some(pipeline), Some(tx)) = (self.pipeline.as_mut(), self.arbitration.primary_tx()) else { return };
        let now = std::time::Instant::now();
        pipeline.digests.tick(now, &mut |list| send_digest_list(tx, list));
        if pipeline.idle.due(now) {
            pipeline.idle.poll(&mut pipeline.target, &pipeline.catalog, now);
            let idle = pipeline.idle.expired(&pipeline.entries, now);
            if !idle.is_empty() {
                let timestamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as i64);
                let notification = p4v1::IdleTimeoutNotification { table_entry: idle, timestamp };
                let message = p4v1::StreamMessageResponse { update: Some(p4v1::stream_message_response::Update::IdleTimeoutNotification(notification)) };
                // A controller that does not read its stream loses notifications rather than
                // stalling the switch.
                let _ = tx.try_send(Ok(message));
            }
        }
    }

    /// A `DigestListAck` from stream `stream`.
    fn digest_ack(&mut self, stream: u64, ack: &p4v1::DigestListAck) -> Result<(), String> {
        if !self.arbitration.is_primary(stream) {
            return Err("only the primary controller acknowledges digest lists".to_string());
        }
        self.pipeline.as_mut().ok_or("no forwarding pipeline")?.digests.ack(ack.digest_id, ack.list_id)
    }

    /// A PacketOut from stream `stream`: into the packet loop on the CPU port.
    fn packet_out(&self, stream: u64, packet: &p4v1::PacketOut) -> Result<(), String> {
        if !self.arbitration.is_primary(stream) {
            return Err("only the primary controller may send packet-outs".to_string());
        }
        let cpu = self.cpu.as_ref().ok_or("this switch has no CPU port (p4forge switch --cpu-port N)")?;
        let pipeline = self.pipeline.as_ref().ok_or("no forwarding pipeline")?;
        let mut frame = match pipeline.controller_headers.iter().find(|h| h.name == "packet_out") {
            Some(h) => h.encode(&packet.metadata)?,
            None if packet.metadata.is_empty() => Vec::new(),
            None => return Err("the program has no packet_out header for the metadata".to_string()),
        };
        frame.extend_from_slice(&packet.payload);
        cpu.frames.try_send(frame).map_err(|e| match e {
            std::sync::mpsc::TrySendError::Full(_) => format!("{CPU_QUEUE} packet-outs are waiting for the switch: this one is dropped"),
            std::sync::mpsc::TrySendError::Disconnected(_) => "the switch is stopping".to_string(),
        })
    }

    /// Installs a pipeline at start, as if a controller had pushed `device_config` with the
    /// program's own p4info.
    pub fn install(&mut self, loaded: Loaded<T>, device_config: Vec<u8>) {
        let p4info = loaded.p4info.clone();
        self.pipeline = Some(pipeline(loaded, p4v1::ForwardingPipelineConfig { p4info: Some(p4info), p4_device_config: device_config, cookie: None }));
    }

    /// The running pipeline's target, if there is one.
    pub fn target(&mut self) -> Option<&mut T> {
        self.pipeline.as_mut().map(|p| &mut p.target)
    }

    fn check_device(&self, device_id: u64) -> Result<(), Status> {
        if device_id == self.device_id {
            Ok(())
        } else {
            Err(Status::not_found(format!("no device {device_id} here (this is device {})", self.device_id)))
        }
    }
}

fn no_pipeline() -> Status {
    Status::failed_precondition("no forwarding pipeline: set one with SetForwardingPipelineConfig")
}

fn pipeline<T: Target>(loaded: Loaded<T>, config: p4v1::ForwardingPipelineConfig) -> Pipeline<T> {
    let mut entries = tables::Entries::new(&loaded.catalog);
    entries.adopt(&loaded.target, &loaded.catalog, &loaded.ids);
    let digests = digests::Digests::new(&loaded.p4info);
    Pipeline {
        target: loaded.target,
        controller_headers: loaded.controller_headers,
        catalog: loaded.catalog,
        ids: loaded.ids,
        config,
        entries,
        replication: replication::Replication::default(),
        meters: cells::Meters::default(),
        digests,
        value_sets: value_sets::ValueSets::default(),
        profiles: profiles::Profiles::default(),
        idle: idle::Idle::default(),
    }
}

/// How often digest lists waiting for their `max_timeout_ns` are looked at.
pub const DIGEST_TICK: std::time::Duration = std::time::Duration::from_millis(1);

fn send_digest_list(tx: &arbitration::StreamTx, list: p4v1::DigestList) {
    let message = p4v1::StreamMessageResponse { update: Some(p4v1::stream_message_response::Update::Digest(list)) };
    // A controller that does not read its stream loses lists (their data is sent again after
    // the ack timeout) rather than stalling the switch.
    let _ = tx.try_send(Ok(message));
}

/// A device shared by the gRPC handlers and the packet loop.
pub type Shared<T> = Arc<Mutex<Device<T>>>;

/// Locks `device`; a handler that panicked while holding it left it as it was, which is still a
/// consistent device (every change is made whole before the lock is released).
pub fn lock<T>(device: &Shared<T>) -> MutexGuard<'_, Device<T>> {
    device.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The gRPC service in front of one device.
pub struct Service<T> {
    device: Shared<T>,
    streams: AtomicU64,
}

impl<T: Target> Service<T> {
    pub fn new(device: Shared<T>) -> Service<T> {
        Service { device, streams: AtomicU64::new(0) }
    }
}

/// A Write's outcome: OK, or UNKNOWN with one `p4.v1.Error` per update in the details.
fn write_status(results: &[Result<(), tables::Refusal>]) -> Result<(), Status> {
    if results.iter().all(Result::is_ok) {
        return Ok(());
    }
    let details = results
        .iter()
        .map(|r| {
            let error = match r {
                Ok(()) => p4v1::Error { canonical_code: Code::Ok as i32, ..Default::default() },
                Err((code, message)) => p4v1::Error { canonical_code: *code as i32, message: message.clone(), ..Default::default() },
            };
            prost_types::Any { type_url: "type.googleapis.com/p4.v1.Error".to_string(), value: error.encode_to_vec() }
        })
        .collect();
    // The summary is the first update's own failure, not an ABORTED one it caused.
    let errors = || results.iter().filter_map(|r| r.as_ref().err());
    let summary = errors().find(|(code, _)| *code != Code::Aborted).or_else(|| errors().next()).map(|(_, m)| m.clone()).unwrap_or_default();
    let status = rpc::Status { code: Code::Unknown as i32, message: summary.clone(), details };
    Err(Status::with_details(Code::Unknown, summary, status.encode_to_vec().into()))
}

#[tonic::async_trait]
impl<T: Target> P4Runtime for Service<T> {
    async fn write(&self, request: Request<p4v1::WriteRequest>) -> Result<Response<p4v1::WriteResponse>, Status> {
        let request = request.into_inner();
        let mut device = lock(&self.device);
        device.check_device(request.device_id)?;
        device.arbitration.check_primary(&request.role, request.election_id.as_ref())?;
        let atomicity = p4v1::write_request::Atomicity::try_from(request.atomicity)
            .map_err(|_| Status::invalid_argument(format!("unknown atomicity {}", request.atomicity)))?;
        let Device { pipeline, arbitration, .. } = &mut *device;
        let pipeline = pipeline.as_mut().ok_or_else(no_pipeline)?;
        let allowed = |e: &p4v1::entity::Entity| arbitration.may_write(&request.role, e).map_err(|why| (Code::PermissionDenied, why));
        let results = pipeline.write_batch(&request.updates, atomicity, &allowed);
        write_status(&results)?;
        Ok(Response::new(p4v1::WriteResponse {}))
    }

    type ReadStream = tokio_stream::Iter<std::vec::IntoIter<Result<p4v1::ReadResponse, Status>>>;

    async fn read(&self, request: Request<p4v1::ReadRequest>) -> Result<Response<Self::ReadStream>, Status> {
        let request = request.into_inner();
        let mut device = lock(&self.device);
        device.check_device(request.device_id)?;
        let Device { pipeline, arbitration, .. } = &mut *device;
        let pipeline = pipeline.as_mut().ok_or_else(no_pipeline)?;
        let mut entities = Vec::new();
        for entity in &request.entities {
            let found = pipeline.read_entity(entity.entity.as_ref()).map_err(|(code, m)| Status::new(code, m))?;
            let visible = found.into_iter().filter(|e| arbitration.may_read(&request.role, e));
            entities.extend(visible.map(|e| p4v1::Entity { entity: Some(e) }));
        }
        Ok(Response::new(tokio_stream::iter(vec![Ok(p4v1::ReadResponse { entities })])))
    }

    async fn set_forwarding_pipeline_config(
        &self,
        request: Request<p4v1::SetForwardingPipelineConfigRequest>,
    ) -> Result<Response<p4v1::SetForwardingPipelineConfigResponse>, Status> {
        use p4v1::set_forwarding_pipeline_config_request::Action;
        let request = request.into_inner();
        {
            let device = lock(&self.device);
            device.check_device(request.device_id)?;
            device.arbitration.check_primary(&request.role, request.election_id.as_ref())?;
            if !device.arbitration.may_push(&request.role) {
                return Err(Status::permission_denied(format!("role {:?} may not push a pipeline (its role config says so)", request.role)));
            }
        }
        let action = Action::try_from(request.action).unwrap_or(Action::Unspecified);
        if action == Action::Commit {
            let mut device = lock(&self.device);
            let saved = device.saved.take().ok_or_else(|| Status::failed_precondition("COMMIT: no config was saved (VERIFY_AND_SAVE first)"))?;
            device.pipeline = Some(saved);
            return Ok(Response::new(p4v1::SetForwardingPipelineConfigResponse {}));
        }
        if action == Action::Unspecified {
            return Err(Status::invalid_argument("SetForwardingPipelineConfig: action unspecified"));
        }
        let config = request.config.ok_or_else(|| Status::invalid_argument("SetForwardingPipelineConfig: no config"))?;
        let pushed = config.p4info.as_ref().ok_or_else(|| Status::invalid_argument("the config has no p4info"))?;
        if action == Action::ReconcileAndCommit {
            let mut device = lock(&self.device);
            let same = device.pipeline.as_ref().is_some_and(|p| p.config.p4info.as_ref() == Some(pushed) && p.config.p4_device_config == config.p4_device_config);
            if !same {
                return Err(Status::unimplemented("RECONCILE_AND_COMMIT of a different program is not supported; use VERIFY_AND_COMMIT"));
            }
            if let Some(p) = device.pipeline.as_mut() {
                p.config.cookie = config.cookie;
            }
            return Ok(Response::new(p4v1::SetForwardingPipelineConfigResponse {}));
        }
        // Compiling can take a while: not under the device's lock, so packets keep flowing.
        let loader = Arc::clone(&lock(&self.device).loader);
        let bytes = config.p4_device_config.clone();
        let loaded = tokio::task::spawn_blocking(move || loader(&bytes))
            .await
            .map_err(|e| Status::internal(format!("compiling the device config failed: {e}")))?
            .map_err(|why| Status::invalid_argument(bounded(why)))?;
        crate::p4info::check_describes(pushed, &loaded.p4info).map_err(Status::invalid_argument)?;
        let mut device = lock(&self.device);
        match action {
            Action::Verify => {}
            Action::VerifyAndSave => device.saved = Some(pipeline(loaded, config)),
            _ => {
                device.saved = None;
                device.pipeline = Some(pipeline(loaded, config));
            }
        }
        Ok(Response::new(p4v1::SetForwardingPipelineConfigResponse {}))
    }

    async fn get_forwarding_pipeline_config(
        &self,
        request: Request<p4v1::GetForwardingPipelineConfigRequest>,
    ) -> Result<Response<p4v1::GetForwardingPipelineConfigResponse>, Status> {
        use p4v1::get_forwarding_pipeline_config_request::ResponseType;
        let request = request.into_inner();
        let device = lock(&self.device);
        device.check_device(request.device_id)?;
        let Some(p) = device.pipeline.as_ref() else {
            return Ok(Response::new(p4v1::GetForwardingPipelineConfigResponse { config: Some(Default::default()) }));
        };
        let mut config = p.config.clone();
        match ResponseType::try_from(request.response_type).unwrap_or(ResponseType::All) {
            ResponseType::All => {}
            ResponseType::CookieOnly => {
                config.p4info = None;
                config.p4_device_config.clear();
            }
            ResponseType::P4infoAndCookie => config.p4_device_config.clear(),
            ResponseType::DeviceConfigAndCookie => config.p4info = None,
        }
        Ok(Response::new(p4v1::GetForwardingPipelineConfigResponse { config: Some(config) }))
    }

    type StreamChannelStream = ReceiverStream<Result<p4v1::StreamMessageResponse, Status>>;

    async fn stream_channel(
        &self,
        request: Request<Streaming<p4v1::StreamMessageRequest>>,
    ) -> Result<Response<Self::StreamChannelStream>, Status> {
        let mut incoming = request.into_inner();
        let (tx, rx) = mpsc::channel(STREAM_DEPTH);
        let stream = self.streams.fetch_add(1, Ordering::Relaxed);
        let device = Arc::clone(&self.device);
        tokio::spawn(async move {
            while let Some(message) = incoming.next().await {
                let Ok(message) = message else { break };
                let outcome = match message.update {
                    Some(p4v1::stream_message_request::Update::Arbitration(update)) => {
                        let mut d = lock(&device);
                        let id = d.device_id;
                        d.arbitration.update(id, stream, &update, &tx)
                    }
                    Some(p4v1::stream_message_request::Update::Packet(mut packet)) => {
                        if let Err(why) = lock(&device).packet_out(stream, &packet) {
                            use p4v1::stream_error::Details;
                            // Echoed with at most an MTU of payload: a client's default limit on
                            // the messages it takes (4 MiB) is below what a packet-out may carry.
                            packet.payload.truncate(ECHOED_PAYLOAD);
                            stream_error(&tx, why, Some(Details::PacketOut(p4v1::PacketOutError { packet_out: Some(packet) })));
                        }
                        Ok(())
                    }
                    Some(p4v1::stream_message_request::Update::DigestAck(ack)) => {
                        if let Err(why) = lock(&device).digest_ack(stream, &ack) {
                            use p4v1::stream_error::Details;
                            stream_error(&tx, why, Some(Details::DigestListAck(p4v1::DigestListAckError { digest_list_ack: Some(ack) })));
                        }
                        Ok(())
                    }
                    Some(p4v1::stream_message_request::Update::Other(_)) => Err(Status::unimplemented("architecture-specific stream messages are not supported")),
                    None => Err(Status::invalid_argument("an empty stream message")),
                };
                if let Err(status) = outcome {
                    let _ = tx.send(Err(status)).await;
                    break;
                }
            }
            let mut d = lock(&device);
            let id = d.device_id;
            d.arbitration.remove(id, stream);
        });
        Ok(Response::new(ReceiverStream::new(rx)))
    }

    async fn capabilities(&self, _request: Request<p4v1::CapabilitiesRequest>) -> Result<Response<p4v1::CapabilitiesResponse>, Status> {
        Ok(Response::new(p4v1::CapabilitiesResponse { p4runtime_api_version: API_VERSION.to_string(), experimental: None }))
    }
}

/// The most payload bytes of a refused packet-out its stream error echoes.
const ECHOED_PAYLOAD: usize = 1500;

/// Tells a controller on its stream why a message it sent was refused.
fn stream_error(tx: &arbitration::StreamTx, message: String, details: Option<p4v1::stream_error::Details>) {
    let error = p4v1::StreamError { canonical_code: Code::InvalidArgument as i32, message: bounded(message), details, ..Default::default() };
    let message = p4v1::StreamMessageResponse { update: Some(p4v1::stream_message_response::Update::Error(error)) };
    let _ = tx.try_send(Ok(message));
}

/// The longest error message sent back: a status message travels in an HTTP/2 header, which
/// clients and proxies limit (16 KiB by default), and a compiler's diagnostics quote source lines.
const MAX_MESSAGE_CHARS: usize = 4096;

/// `message` cut to [`MAX_MESSAGE_CHARS`], saying how much was left out.
fn bounded(message: String) -> String {
    match message.char_indices().nth(MAX_MESSAGE_CHARS) {
        None => message,
        Some((cut, _)) => format!("{}... ({} more bytes)", &message[..cut], message.len() - cut),
    }
}

/// Messages a stream holds for a controller that reads slowly; beyond that, updates to it are lost
/// rather than stalling the device.
const STREAM_DEPTH: usize = 1024;

/// A server running on its own thread.
pub struct Running {
    /// Where it listens (the port chosen when 0 was asked for).
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Starts serving `device` on `addr` on a thread of its own; `Err` says why it cannot listen there.
/// The server stops when the returned [`Running`] is dropped.
pub fn spawn<T: Target>(addr: SocketAddr, device: Shared<T>) -> Result<Running, String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("p4runtime")
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the P4Runtime server: {e}"))?;
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind(addr))
        .map_err(|e| format!("cannot listen on {addr} for P4Runtime: {e}"))?;
    let bound = listener.local_addr().map_err(|e| format!("cannot listen on {addr} for P4Runtime: {e}"))?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let ticking = Arc::clone(&device);
    let service = P4RuntimeServer::new(Service::new(device)).max_decoding_message_size(MAX_MESSAGE_BYTES);
    let thread = std::thread::Builder::new()
        .name("p4runtime".to_string())
        .spawn(move || {
            // Without TCP_NODELAY, each small reply waits for the client's delayed ACK (tens of ms).
            let incoming = tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true));
            // A stop ends the server at once: a graceful shutdown would wait for every
            // controller to hang up, and a controller may keep its stream open forever.
            let served = runtime.block_on(async {
                tokio::spawn(async move {
                    let mut tick = tokio::time::interval(DIGEST_TICK);
                    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                    loop {
                        tick.tick().await;
                        lock(&ticking).tick();
                    }
                });
                tokio::select! {
                    served = tonic::transport::Server::builder().add_service(service).serve_with_incoming(incoming) => served,
                    _ = stopped => Ok(()),
                }
            });
            if let Err(e) = served {
                p4_io::eprintln_safe!("error: the P4Runtime server stopped: {e}");
            }
        })
        .map_err(|e| format!("cannot start the P4Runtime server thread: {e}"))?;
    Ok(Running { addr: bound, stop: Some(stop), thread: Some(thread) })
}

/// The largest message the server takes (a pipeline config with its program, a large write).
const MAX_MESSAGE_BYTES: usize = 64 << 20;

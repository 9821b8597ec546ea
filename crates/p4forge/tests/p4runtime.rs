//! The P4Runtime server in front of the software switch, driven by a gRPC client as a controller
//! drives it: arbitration, pipeline configs, table entries written and read back, and the packets
//! that follow from them.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use p4_runtime::proto::google::rpc;
use p4_runtime::proto::p4::config::v1::P4Info;
use p4_runtime::proto::p4::v1 as p4v1;
use p4_runtime::server::{Device, Running, Shared};
use p4v1::entity::Entity as E;
use p4v1::p4_runtime_client::P4RuntimeClient;
use prost::Message;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::transport::Channel;
use tonic::Code;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

struct Harness<T = p4_dataplane::Switch> {
    rt: tokio::runtime::Runtime,
    device: Shared<T>,
    server: Running,
}

fn start() -> Harness {
    start_with(p4forge::cmd::p4runtime::loader(p4forge::frontend::SwitchBuild::default()))
}

/// A server whose device loads pushed programs with `loader`.
fn start_with<T: p4_runtime::server::Target>(loader: p4_runtime::server::Loader<T>) -> Harness<T> {
    let device = Arc::new(Mutex::new(Device::new(0, loader)));
    let server = p4_runtime::server::spawn("127.0.0.1:0".parse().expect("address"), device.clone()).expect("listens");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    Harness { rt, device, server }
}

impl<T> Harness<T> {
    fn client(&self) -> P4RuntimeClient<Channel> {
        let url = format!("http://{}", self.server.addr);
        self.rt.block_on(P4RuntimeClient::connect(url)).expect("connects")
    }
}

/// A controller's open stream: what it sends, and what it receives.
struct Stream {
    tx: mpsc::Sender<p4v1::StreamMessageRequest>,
    rx: tonic::Streaming<p4v1::StreamMessageResponse>,
}

fn election(low: u64) -> p4v1::Uint128 {
    p4v1::Uint128 { high: 0, low }
}

fn arbitrate<T>(h: &Harness<T>, client: &mut P4RuntimeClient<Channel>, low: u64) -> Stream {
    arbitrate_as(h, client, low, None)
}

/// A controller of `role` (`None`: the default role) with election id `low`.
fn arbitrate_as<T>(h: &Harness<T>, client: &mut P4RuntimeClient<Channel>, low: u64, role: Option<p4v1::Role>) -> Stream {
    let (tx, rx) = mpsc::channel(16);
    let update = p4v1::MasterArbitrationUpdate { device_id: 0, election_id: Some(election(low)), role, ..Default::default() };
    h.rt.block_on(tx.send(p4v1::StreamMessageRequest { update: Some(p4v1::stream_message_request::Update::Arbitration(update)) }))
        .expect("queued");
    let rx = h.rt.block_on(client.stream_channel(ReceiverStream::new(rx))).expect("stream opens").into_inner();
    Stream { tx, rx }
}

/// The next arbitration update on `stream`: (primary's election id, status code).
fn next_arbitration(h: &Harness, stream: &mut Stream) -> (u64, i32) {
    let message = h.rt.block_on(stream.rx.message()).expect("stream healthy").expect("a message");
    match message.update {
        Some(p4v1::stream_message_response::Update::Arbitration(a)) => {
            (a.election_id.map_or(0, |e| e.low), a.status.map_or(-1, |s| s.code))
        }
        other => panic!("expected an arbitration update, got {other:?}"),
    }
}

fn p4info_of(program: &Path) -> P4Info {
    let compiled = p4forge::frontend::compile(program, &[]).expect("compiles");
    let layouts = p4_ir::layout::Layouts::of(&compiled.program);
    let catalog = p4_control::catalog::Catalog::of(&compiled.program, &layouts).expect("catalog");
    p4_runtime::p4info::of(&compiled.program, &layouts, &catalog)
}

fn push<T>(h: &Harness<T>, client: &mut P4RuntimeClient<Channel>, low: u64, config: Vec<u8>, p4info: &P4Info) -> Result<(), tonic::Status> {
    use p4v1::set_forwarding_pipeline_config_request::Action;
    let request = p4v1::SetForwardingPipelineConfigRequest {
        device_id: 0,
        election_id: Some(election(low)),
        action: Action::VerifyAndCommit as i32,
        config: Some(p4v1::ForwardingPipelineConfig {
            p4info: Some(p4info.clone()),
            p4_device_config: config,
            cookie: Some(p4v1::forwarding_pipeline_config::Cookie { cookie: 42 }),
        }),
        ..Default::default()
    };
    h.rt.block_on(client.set_forwarding_pipeline_config(request)).map(|_| ())
}

fn id(info: &P4Info, name: &str) -> u32 {
    let preambles = info.tables.iter().filter_map(|t| t.preamble.as_ref()).chain(info.actions.iter().filter_map(|a| a.preamble.as_ref()));
    preambles.into_iter().find(|p| p.name == name).map(|p| p.id).unwrap_or_else(|| panic!("no {name} in the p4info"))
}

fn exact_entry(info: &P4Info, mac: u64, port: u16) -> p4v1::TableEntry {
    p4v1::TableEntry {
        table_id: id(info, "I.mac"),
        r#match: vec![p4v1::FieldMatch {
            field_id: 1,
            field_match_type: Some(p4v1::field_match::FieldMatchType::Exact(p4v1::field_match::Exact {
                value: mac.to_be_bytes()[2..].to_vec(),
            })),
        }],
        action: Some(set_port(info, port)),
        ..Default::default()
    }
}

fn set_port(info: &P4Info, port: u16) -> p4v1::TableAction {
    p4v1::TableAction {
        r#type: Some(p4v1::table_action::Type::Action(p4v1::Action {
            action_id: id(info, "I.set_port"),
            params: vec![p4v1::action::Param { param_id: 1, value: port.to_be_bytes().to_vec() }],
        })),
    }
}

fn ternary_entry(info: &P4Info, dst: u32, mask: u32, priority: i32, port: u16) -> p4v1::TableEntry {
    p4v1::TableEntry {
        table_id: id(info, "I.acl"),
        r#match: vec![p4v1::FieldMatch {
            field_id: 1,
            field_match_type: Some(p4v1::field_match::FieldMatchType::Ternary(p4v1::field_match::Ternary {
                value: dst.to_be_bytes().to_vec(),
                mask: mask.to_be_bytes().to_vec(),
            })),
        }],
        priority,
        action: Some(set_port(info, port)),
        ..Default::default()
    }
}

/// Writes `updates` (of any entity) as the controller with election id `low`.
fn write_entities<T>(h: &Harness<T>, client: &mut P4RuntimeClient<Channel>, low: u64, updates: Vec<(p4v1::update::Type, E)>) -> Result<(), tonic::Status> {
    write_request(h, client, write_of(low, updates))
}

/// Writes `updates` as one batch in the given atomicity mode (as the primary, election id 1).
fn write_atomic<T>(h: &Harness<T>, client: &mut P4RuntimeClient<Channel>, atomicity: i32, updates: Vec<(p4v1::update::Type, E)>) -> Result<(), tonic::Status> {
    write_request(h, client, p4v1::WriteRequest { atomicity, ..write_of(1, updates) })
}

/// A write of `updates` by the controller with election id `low` (of the default role).
fn write_of(low: u64, updates: Vec<(p4v1::update::Type, E)>) -> p4v1::WriteRequest {
    let updates = updates
        .into_iter()
        .map(|(kind, entity)| p4v1::Update { r#type: kind as i32, entity: Some(p4v1::Entity { entity: Some(entity) }) })
        .collect();
    p4v1::WriteRequest { device_id: 0, election_id: Some(election(low)), updates, ..Default::default() }
}

fn write_request<T>(h: &Harness<T>, client: &mut P4RuntimeClient<Channel>, request: p4v1::WriteRequest) -> Result<(), tonic::Status> {
    h.rt.block_on(client.write(request)).map(|_| ())
}

/// Writes table entries.
fn write<T>(h: &Harness<T>, client: &mut P4RuntimeClient<Channel>, low: u64, updates: Vec<(p4v1::update::Type, p4v1::TableEntry)>) -> Result<(), tonic::Status> {
    write_entities(h, client, low, updates.into_iter().map(|(kind, entry)| (kind, E::TableEntry(entry))).collect())
}

/// Everything a read of `entity` returns.
fn read_entities<T>(h: &Harness<T>, client: &mut P4RuntimeClient<Channel>, entity: E) -> Result<Vec<E>, tonic::Status> {
    let request = p4v1::ReadRequest { device_id: 0, entities: vec![p4v1::Entity { entity: Some(entity) }], ..Default::default() };
    let mut stream = h.rt.block_on(client.read(request))?.into_inner();
    let mut out = Vec::new();
    while let Some(r) = h.rt.block_on(stream.message())? {
        out.extend(r.entities.into_iter().filter_map(|e| e.entity));
    }
    Ok(out)
}

fn read_table<T>(h: &Harness<T>, client: &mut P4RuntimeClient<Channel>, table_id: u32) -> Vec<p4v1::TableEntry> {
    let found = read_entities(h, client, E::TableEntry(p4v1::TableEntry { table_id, ..Default::default() })).expect("read");
    found.into_iter().filter_map(|e| if let E::TableEntry(t) = e { Some(t) } else { None }).collect()
}

/// A primary controller (election id 1) that has pushed `program`: its stream and the p4info.
fn with_program<T>(h: &Harness<T>, client: &mut P4RuntimeClient<Channel>, program: &Path) -> (Stream, P4Info) {
    let stream = arbitrate(h, client, 1);
    let info = p4info_of(program);
    push(h, client, 1, std::fs::read(program).expect("program"), &info).expect("pipeline set");
    (stream, info)
}

/// The per-update errors of a failed write.
fn update_errors(status: &tonic::Status) -> Vec<(i32, String)> {
    let details = rpc::Status::decode(status.details()).expect("google.rpc.Status details");
    details.details.iter().map(|any| p4v1::Error::decode(any.value.as_slice()).expect("p4.v1.Error")).map(|e| (e.canonical_code, e.message)).collect()
}

/// The port `frame` leaves on (None: dropped).
fn forward(h: &Harness, frame: &[u8]) -> Option<u32> {
    use p4_control::PacketIo;
    let mut device = p4_runtime::server::lock(&h.device);
    let out = device.target().expect("a pipeline").inject(0, frame, 0);
    out.outputs.first().map(|o| o.port)
}

fn frame(mac: u64, ipv4_dst: u32) -> Vec<u8> {
    let mut f = mac.to_be_bytes()[2..].to_vec();
    f.extend([0x02, 0, 0, 0, 0, 1, 0x08, 0x00]);
    f.extend([0x45, 0, 0, 20, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1]);
    f.extend(ipv4_dst.to_be_bytes());
    f
}

/// Asserts two entry lists are equal, showing the first difference only.
fn same(got: Vec<p4v1::TableEntry>, expected: Vec<p4v1::TableEntry>) {
    assert_eq!(got.len(), expected.len(), "entries read back");
    if let Some((g, e)) = got.iter().zip(&expected).find(|(g, e)| g != e) {
        panic!("read back {g:?}\nwritten   {e:?}");
    }
}

#[test]
fn a_controller_pushes_the_program_and_writes_reads_modifies_and_deletes_entries() {
    use p4v1::update::Type::{Delete, Insert, Modify};
    let h = start();
    let mut client = h.client();
    let version = h.rt.block_on(client.capabilities(p4v1::CapabilitiesRequest::default())).expect("capabilities").into_inner();
    assert_eq!(version.p4runtime_api_version, "1.5.0");

    let program = fixture("p4runtime_tables.p4");
    let info = p4info_of(&program);
    // No controller has arbitrated: nobody may write.
    let denied = push(&h, &mut client, 1, std::fs::read(&program).expect("program"), &info).expect_err("no primary");
    assert_eq!(denied.code(), Code::PermissionDenied);

    let mut primary = arbitrate(&h, &mut client, 1);
    assert_eq!(next_arbitration(&h, &mut primary), (1, Code::Ok as i32));
    // A BMv2 JSON config is refused with the reason; the P4 source is taken.
    let json = push(&h, &mut client, 1, b"{\"program\": \"x.p4\"}".to_vec(), &info).expect_err("JSON");
    assert_eq!(json.code(), Code::InvalidArgument);
    assert!(json.message().contains("JSON"), "{}", json.message());
    push(&h, &mut client, 1, std::fs::read(&program).expect("program"), &info).expect("pipeline set");
    let got = h.rt.block_on(client.get_forwarding_pipeline_config(p4v1::GetForwardingPipelineConfigRequest {
        device_id: 0,
        response_type: p4v1::get_forwarding_pipeline_config_request::ResponseType::CookieOnly as i32,
    }));
    let config = got.expect("config").into_inner().config.expect("a config");
    assert_eq!((config.cookie.map(|c| c.cookie), config.p4info.is_none(), config.p4_device_config.is_empty()), (Some(42), true, true));

    // 1,000 exact and 1,000 ternary entries, in writes of 100.
    let exact: Vec<p4v1::TableEntry> = (0..1000u64).map(|i| exact_entry(&info, 0x0000_5e00_0000 + i, (i % 8) as u16 + 1)).collect();
    let ternary: Vec<p4v1::TableEntry> =
        (0..1000u32).map(|i| ternary_entry(&info, 0x0a00_0000 + (i << 8), 0xffff_ff00, i as i32 + 1, (i % 4) as u16 + 10)).collect();
    for chunk in exact.chunks(100).chain(ternary.chunks(100)) {
        write(&h, &mut client, 1, chunk.iter().map(|e| (Insert, e.clone())).collect()).expect("inserted");
    }
    // Read back exactly what was written, in canonical form: values without leading zero bytes.
    let canonical = |mut e: p4v1::TableEntry| {
        let trim = |v: &mut Vec<u8>| {
            while v.len() > 1 && v[0] == 0 {
                v.remove(0);
            }
        };
        for m in &mut e.r#match {
            match &mut m.field_match_type {
                Some(p4v1::field_match::FieldMatchType::Exact(x)) => trim(&mut x.value),
                Some(p4v1::field_match::FieldMatchType::Ternary(x)) => {
                    trim(&mut x.value);
                    trim(&mut x.mask);
                }
                _ => {}
            }
        }
        if let Some(p4v1::TableAction { r#type: Some(p4v1::table_action::Type::Action(a)) }) = &mut e.action {
            for p in &mut a.params {
                trim(&mut p.value);
            }
        }
        e
    };
    let sorted = |mut v: Vec<p4v1::TableEntry>| {
        v.sort_by_key(|e| e.encode_to_vec());
        v
    };
    same(sorted(read_table(&h, &mut client, id(&info, "I.mac"))), sorted(exact.iter().cloned().map(canonical).collect()));
    same(sorted(read_table(&h, &mut client, id(&info, "I.acl"))), sorted(ternary.iter().cloned().map(canonical).collect()));
    assert_eq!(read_table(&h, &mut client, 0).len(), 2000, "a wildcard read returns every table's entries");
    assert_eq!(forward(&h, &frame(0x0000_5e00_0003, 0x0b00_0001)), Some(4), "exact entry 3: port 3 % 8 + 1");
    assert_eq!(forward(&h, &frame(0x0000_5e00_0003, 0x0a00_0501)), Some(11), "ternary entry 5 overrides: 5 % 4 + 10");

    // A duplicate insert fails alone, with ALREADY_EXISTS in its p4.v1.Error; the others apply.
    let fresh = exact_entry(&info, 0x0000_5e00_9999, 7);
    let failed = write(&h, &mut client, 1, vec![(Insert, exact[0].clone()), (Insert, fresh.clone())]).expect_err("duplicate");
    assert_eq!(failed.code(), Code::Unknown);
    let errors = update_errors(&failed);
    assert_eq!(errors.len(), 2);
    assert_eq!(errors[0].0, Code::AlreadyExists as i32, "{errors:?}");
    assert_eq!(errors[1].0, Code::Ok as i32, "{errors:?}");
    assert_eq!(forward(&h, &frame(0x0000_5e00_9999, 0x0b00_0001)), Some(7));

    // Modify 500 and delete 500.
    let modified: Vec<_> = exact[..500].iter().map(|e| p4v1::TableEntry { action: Some(set_port(&info, 99)), ..e.clone() }).collect();
    write(&h, &mut client, 1, modified.iter().map(|e| (Modify, e.clone())).collect()).expect("modified");
    write(&h, &mut client, 1, exact[500..].iter().map(|e| (Delete, e.clone())).collect()).expect("deleted");
    same(sorted(read_table(&h, &mut client, id(&info, "I.mac"))), sorted(modified.into_iter().map(canonical).chain([canonical(fresh)]).collect()));
    assert_eq!(forward(&h, &frame(0x0000_5e00_0003, 0x0b00_0001)), Some(99));
    assert_eq!(forward(&h, &frame(0x0000_5e00_0600, 0x0b00_0001)), None, "deleted: the default drops");
    let gone = write(&h, &mut client, 1, vec![(Delete, exact[600].clone())]).expect_err("not there");
    assert_eq!(update_errors(&gone)[0].0, Code::NotFound as i32);

    // The default entry: set to set_port(5), read back, reset to the program's (drop).
    let default = p4v1::TableEntry { table_id: id(&info, "I.mac"), is_default_action: true, action: Some(set_port(&info, 5)), ..Default::default() };
    write(&h, &mut client, 1, vec![(Modify, default.clone())]).expect("default set");
    assert_eq!(forward(&h, &frame(0x0000_5e00_0600, 0x0b00_0001)), Some(5));
    write(&h, &mut client, 1, vec![(Modify, p4v1::TableEntry { action: None, ..default })]).expect("default reset");
    assert_eq!(forward(&h, &frame(0x0000_5e00_0600, 0x0b00_0001)), None);

    // Bad entries are refused with the reason: a value too wide, a ternary without priority.
    let wide = p4v1::TableEntry { action: Some(set_port(&info, 600)), ..exact_entry(&info, 1, 0) };
    let e = write(&h, &mut client, 1, vec![(Insert, wide)]).expect_err("600 > 511");
    assert_eq!(update_errors(&e)[0].0, Code::OutOfRange as i32, "{:?}", update_errors(&e));
    let no_priority = ternary_entry(&info, 0x0c00_0000, 0xff00_0000, 0, 1);
    let e = write(&h, &mut client, 1, vec![(Insert, no_priority)]).expect_err("priority 0");
    assert_eq!(update_errors(&e)[0].0, Code::InvalidArgument as i32);

    // A controller with a lower election id is a backup and may not write; a higher one takes over
    // and the old primary hears it.
    let mut backup_client = h.client();
    let mut backup = arbitrate(&h, &mut backup_client, 0);
    let _ = &backup.tx;
    assert_eq!(next_arbitration(&h, &mut backup), (1, Code::AlreadyExists as i32));
    let denied = write(&h, &mut backup_client, 0, vec![(Insert, exact[700].clone())]).expect_err("backup");
    assert_eq!(denied.code(), Code::PermissionDenied);
    let mut new_client = h.client();
    let mut new_primary = arbitrate(&h, &mut new_client, 2);
    assert_eq!(next_arbitration(&h, &mut new_primary), (2, Code::Ok as i32));
    assert_eq!(next_arbitration(&h, &mut primary), (2, Code::AlreadyExists as i32));
    assert_eq!(write(&h, &mut client, 1, vec![(Insert, exact[700].clone())]).expect_err("no longer primary").code(), Code::PermissionDenied);
    write(&h, &mut new_client, 2, vec![(Insert, exact[700].clone())]).expect("the new primary writes");
    let _ = &primary.tx;
}

#[test]
fn a_config_that_does_not_match_its_p4info_or_does_not_compile_is_refused() {
    let h = start();
    let mut client = h.client();
    let mut stream = arbitrate(&h, &mut client, 1);
    assert_eq!(next_arbitration(&h, &mut stream).1, Code::Ok as i32);
    let program = std::fs::read(fixture("p4runtime_tables.p4")).expect("program");
    let other = p4info_of(&fixture("basic_forward.p4"));
    let e = push(&h, &mut client, 1, program, &other).expect_err("p4info of another program");
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("which the program does not have"), "{}", e.message());
    let e = push(&h, &mut client, 1, b"control C() { apply { x = 1; } }".to_vec(), &other).expect_err("no such variable");
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("does not compile"), "{}", e.message());
    // A program nested 100,000 parentheses deep is refused; the server stays up.
    let deep = format!("control C() {{ apply {{ bit<8> x = {}1{}; }} }}", "(".repeat(100_000), ")".repeat(100_000));
    let e = push(&h, &mut client, 1, deep.into_bytes(), &other).expect_err("too deep");
    assert!(e.message().starts_with("the device config does not compile:\nerror: nesting too deep"), "{}", &e.message()[..200]);
    assert!(e.message().len() < 4200 && e.message().ends_with("more bytes)"), "the message is bounded");
    assert_eq!(e.code(), Code::InvalidArgument);
    // Still no pipeline: reads say so.
    let entity = p4v1::Entity { entity: Some(p4v1::entity::Entity::TableEntry(Default::default())) };
    let e = h.rt.block_on(client.read(p4v1::ReadRequest { device_id: 0, entities: vec![entity], ..Default::default() })).expect_err("no pipeline");
    assert_eq!(e.code(), Code::FailedPrecondition);
    // A request for another device is NOT_FOUND.
    let e = h.rt.block_on(client.read(p4v1::ReadRequest { device_id: 7, ..Default::default() })).expect_err("device 7");
    assert_eq!(e.code(), Code::NotFound);
}

#[test]
fn counters_direct_counters_and_registers_are_read_and_written() {
    let h = start();
    let mut client = h.client();
    let (_stream, info) = with_program(&h, &mut client, &fixture("p4runtime_tables.p4"));
    let entry = exact_entry(&info, 0x0000_5e00_0001, 4);
    write(&h, &mut client, 1, vec![(p4v1::update::Type::Insert, entry.clone())]).expect("inserted");
    let f = frame(0x0000_5e00_0001, 0x0b00_0001);
    for _ in 0..3 {
        assert_eq!(forward(&h, &f), Some(4));
    }
    let read = |client: &mut P4RuntimeClient<Channel>, entity: E| read_entities(&h, client, entity);
    let counter_id = info.counters[0].preamble.as_ref().expect("preamble").id;
    let register_id = info.registers[0].preamble.as_ref().expect("preamble").id;

    // The entry's direct counter saw the three frames; a wildcard read lists every entry's.
    let direct = read(&mut client, E::DirectCounterEntry(p4v1::DirectCounterEntry { table_entry: Some(entry.clone()), data: None })).expect("read");
    let bytes = 3 * f.len() as i64;
    match &direct[..] {
        [E::DirectCounterEntry(d)] => assert_eq!(d.data, Some(p4v1::CounterData { packet_count: 3, byte_count: bytes })),
        other => panic!("{other:?}"),
    }
    let all = read(&mut client, E::DirectCounterEntry(p4v1::DirectCounterEntry::default())).expect("wildcard");
    assert_eq!(all.len(), 1);
    // A table read asking for counter data gets each entry with its counts.
    let asked = p4v1::TableEntry { table_id: entry.table_id, counter_data: Some(Default::default()), ..Default::default() };
    match &read(&mut client, E::TableEntry(asked)).expect("table read")[..] {
        [E::TableEntry(t)] => assert_eq!(t.counter_data, Some(p4v1::CounterData { packet_count: 3, byte_count: bytes })),
        other => panic!("{other:?}"),
    }
    // The indexed counter (packets only) counted them at port 4; its other cells are 0.
    let cells = read(&mut client, E::CounterEntry(p4v1::CounterEntry { counter_id, ..Default::default() })).expect("all cells");
    let counts: Vec<i64> = cells.iter().map(|c| match c { E::CounterEntry(c) => c.data.as_ref().map_or(-1, |d| d.packet_count), _ => -1 }).collect();
    assert_eq!(counts.len(), 16);
    assert_eq!((counts[4], counts.iter().sum::<i64>()), (3, 3));
    // Writes: a counter cell, a direct counter, a register cell; each reads back.
    let modify = |entity: E| vec![(p4v1::update::Type::Modify, entity)];
    let write_entities = |client: &mut P4RuntimeClient<Channel>, updates| write_entities(&h, client, 1, updates);
    let cell = |index| Some(p4v1::Index { index });
    let data = |packets, bytes| Some(p4v1::CounterData { packet_count: packets, byte_count: bytes });
    write_entities(&mut client, modify(E::CounterEntry(p4v1::CounterEntry { counter_id, index: cell(7), data: data(100, 0) }))).expect("counter written");
    let seven = read(&mut client, E::CounterEntry(p4v1::CounterEntry { counter_id, index: cell(7), data: None })).expect("cell 7");
    assert!(matches!(&seven[..], [E::CounterEntry(c)] if c.data == data(100, 0)), "{seven:?}");
    write_entities(&mut client, modify(E::DirectCounterEntry(p4v1::DirectCounterEntry { table_entry: Some(entry.clone()), data: data(0, 0) }))).expect("reset");
    let direct = read(&mut client, E::DirectCounterEntry(p4v1::DirectCounterEntry { table_entry: Some(entry), data: None })).expect("read");
    assert!(matches!(&direct[..], [E::DirectCounterEntry(d)] if d.data == data(0, 0)), "{direct:?}");
    // The data plane wrote the last destination for port 4; the controller writes cell 2.
    let bits = |v: &[u8]| Some(p4v1::P4Data { data: Some(p4v1::p4_data::Data::Bitstring(v.to_vec())) });
    let four = read(&mut client, E::RegisterEntry(p4v1::RegisterEntry { register_id, index: cell(4), data: None })).expect("register");
    assert!(matches!(&four[..], [E::RegisterEntry(r)] if r.data == bits(&[0x0b, 0, 0, 1])), "{four:?}");
    write_entities(&mut client, modify(E::RegisterEntry(p4v1::RegisterEntry { register_id, index: cell(2), data: bits(&[0xde, 0xad]) }))).expect("register written");
    let two = read(&mut client, E::RegisterEntry(p4v1::RegisterEntry { register_id, index: cell(2), data: None })).expect("register");
    assert!(matches!(&two[..], [E::RegisterEntry(r)] if r.data == bits(&[0xde, 0xad])), "{two:?}");
    // Out of range, and INSERT of a counter, are refused with the reason.
    let e = read(&mut client, E::CounterEntry(p4v1::CounterEntry { counter_id, index: cell(16), data: None })).expect_err("16 cells");
    assert_eq!((e.code(), e.message()), (Code::OutOfRange, "I.port_packets has cells 0..16, not 16"));
    let insert = vec![(p4v1::update::Type::Insert, E::CounterEntry(p4v1::CounterEntry { counter_id, index: cell(1), data: data(1, 1) }))];
    let e = write_entities(&mut client, insert).expect_err("INSERT");
    assert_eq!(update_errors(&e), [(Code::InvalidArgument as i32, "a counter can only be modified (INSERT and DELETE do not apply)".to_string())]);
}

#[test]
fn multicast_groups_and_clone_sessions_replicate_packets() {
    use p4v1::packet_replication_engine_entry::Type as Pre;
    use p4v1::update::Type::{Delete, Insert, Modify};
    let h = start();
    let mut client = h.client();
    let (_stream, info) = with_program(&h, &mut client, &fixture("p4runtime_tables.p4"));
    let replica = |port: u32, instance| p4v1::Replica {
        instance,
        port_kind: Some(p4v1::replica::PortKind::Port(port.to_be_bytes().to_vec())),
        ..Default::default()
    };
    let entity = |t: Pre| E::PacketReplicationEngineEntry(p4v1::PacketReplicationEngineEntry { r#type: Some(t) });
    let pre = |kind: p4v1::update::Type, t: Pre| (kind, entity(t));
    let pre_write = |client: &mut P4RuntimeClient<Channel>, updates| write_entities(&h, client, 1, updates);
    let group = |replicas| Pre::MulticastGroupEntry(p4v1::MulticastGroupEntry { multicast_group_id: 5, replicas, metadata: vec![] });
    pre_write(&mut client, vec![pre(Insert, group(vec![replica(1, 0), replica(2, 0), replica(3, 7)]))]).expect("group 5");
    let action = |name: &str, params: Vec<Vec<u8>>| p4v1::TableAction {
        r#type: Some(p4v1::table_action::Type::Action(p4v1::Action {
            action_id: id(&info, name),
            params: params.into_iter().enumerate().map(|(i, value)| p4v1::action::Param { param_id: i as u32 + 1, value }).collect(),
        })),
    };
    let flood = p4v1::TableEntry { action: Some(action("I.flood", vec![vec![5]])), ..exact_entry(&info, 0x0000_5e00_0005, 0) };
    let mirror = p4v1::TableEntry { action: Some(action("I.mirror", vec![vec![1], vec![9]])), ..exact_entry(&info, 0x0000_5e00_0009, 0) };
    write(&h, &mut client, 1, vec![(Insert, flood), (Insert, mirror)]).expect("entries");
    let outputs = |mac| {
        use p4_control::PacketIo;
        let mut device = p4_runtime::server::lock(&h.device);
        let mut ports: Vec<u32> = device.target().expect("pipeline").inject(0, &frame(mac, 0x0b00_0001), 0).outputs.iter().map(|o| o.port).collect();
        ports.sort();
        ports
    };
    assert_eq!(outputs(0x0000_5e00_0005), [1, 2, 3]);
    // Modified: ports 4 and 5 only.
    pre_write(&mut client, vec![pre(Modify, group(vec![replica(4, 0), replica(5, 1)]))]).expect("modified");
    assert_eq!(outputs(0x0000_5e00_0005), [4, 5]);
    // A clone session to one port, then to two (a group the server keeps for it).
    let session = |replicas| Pre::CloneSessionEntry(p4v1::CloneSessionEntry { session_id: 9, replicas, ..Default::default() });
    pre_write(&mut client, vec![pre(Insert, session(vec![replica(6, 0)]))]).expect("session 9");
    assert_eq!(outputs(0x0000_5e00_0009), [1, 6]);
    pre_write(&mut client, vec![pre(Modify, session(vec![replica(6, 0), replica(7, 0)]))]).expect("two copies");
    assert_eq!(outputs(0x0000_5e00_0009), [1, 6, 7]);
    // A truncating session cuts its copies (20 of the frame's 34 bytes), not the original.
    let cut = |replicas, bytes| Pre::CloneSessionEntry(p4v1::CloneSessionEntry { session_id: 9, replicas, packet_length_bytes: bytes, ..Default::default() });
    pre_write(&mut client, vec![pre(Modify, cut(vec![replica(6, 0), replica(7, 0)], 20))]).expect("truncating");
    let lengths = |mac| {
        use p4_control::PacketIo;
        let mut device = p4_runtime::server::lock(&h.device);
        let mut out: Vec<(u32, usize)> = device.target().expect("pipeline").inject(0, &frame(mac, 0x0b00_0001), 0).outputs.iter().map(|o| (o.port, o.data.len())).collect();
        out.sort();
        out
    };
    assert_eq!(lengths(0x0000_5e00_0009), [(1, 34), (6, 20), (7, 20)]);
    let e = pre_write(&mut client, vec![pre(Modify, cut(vec![replica(6, 0)], -1))]).expect_err("negative");
    assert_eq!(update_errors(&e), [(Code::InvalidArgument as i32, "packet_length_bytes -1 is negative".to_string())]);
    pre_write(&mut client, vec![pre(Modify, session(vec![replica(6, 0), replica(7, 0)]))]).expect("whole copies again");
    assert_eq!(lengths(0x0000_5e00_0009), [(1, 34), (6, 34), (7, 34)]);
    // Reads return what was written; a duplicate group is ALREADY_EXISTS; deletes stop the copies.
    let read_all = |client: &mut P4RuntimeClient<Channel>, t: Pre| read_entities(&h, client, entity(t)).expect("read");
    let groups = read_all(&mut client, Pre::MulticastGroupEntry(Default::default()));
    let canonical = |port: u8, instance| p4v1::Replica { instance, port_kind: Some(p4v1::replica::PortKind::Port(vec![port])), ..Default::default() };
    assert_eq!(groups, [entity(group(vec![canonical(4, 0), canonical(5, 1)]))]);
    assert_eq!(read_all(&mut client, Pre::CloneSessionEntry(Default::default())).len(), 1);
    let e = pre_write(&mut client, vec![pre(Insert, group(vec![replica(1, 0)]))]).expect_err("exists");
    assert_eq!(update_errors(&e)[0].0, Code::AlreadyExists as i32);
    pre_write(&mut client, vec![pre(Delete, group(vec![])), pre(Delete, session(vec![]))]).expect("deleted");
    assert_eq!(outputs(0x0000_5e00_0005), Vec::<u32>::new());
    assert_eq!(outputs(0x0000_5e00_0009), [1]);
}

#[test]
fn a_meter_configured_through_p4runtime_marks_packets_red() {
    let h = start();
    let mut client = h.client();
    let (_stream, info) = with_program(&h, &mut client, &fixture("p4runtime_meter.p4"));
    let f = frame(0x0000_5e00_0001, 0x0b00_0001);
    let meter_id = info.meters[0].preamble.as_ref().expect("preamble").id;
    let meter = |config| E::MeterEntry(p4v1::MeterEntry { meter_id, index: Some(p4v1::Index { index: 4 }), config, counter_data: None });
    let set = |client: &mut P4RuntimeClient<Channel>, config| {
        write_entities(&h, client, 1, vec![(p4v1::update::Type::Modify, meter(config))]).expect("meter written");
    };
    // Unconfigured: every packet green.
    assert_eq!((forward(&h, &f), forward(&h, &f)), (Some(4), Some(4)));
    // One packet of burst and no time passing: the first is within it, the next red (dropped).
    let config = p4v1::MeterConfig { cir: 1, cburst: 1, pir: 1, pburst: 1, eburst: 0 };
    set(&mut client, Some(config));
    assert_eq!((forward(&h, &f), forward(&h, &f)), (Some(4), None));
    let read = read_entities(&h, &mut client, meter(None)).expect("read");
    assert!(matches!(&read[..], [E::MeterEntry(m)] if m.config == Some(config)), "{read:?}");
    // Reset: green again.
    set(&mut client, None);
    assert_eq!(forward(&h, &f), Some(4));
}

#[test]
fn the_programs_own_entries_read_back_and_const_ones_stay() {
    let h = start();
    let mut client = h.client();
    let (_stream, info) = with_program(&h, &mut client, &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/stf/const_entries.p4"));
    let exact = read_table(&h, &mut client, id(&info, "TestIngress.t_exact"));
    let keys: Vec<(Vec<u8>, bool)> = exact
        .iter()
        .map(|e| match &e.r#match[0].field_match_type {
            Some(p4v1::field_match::FieldMatchType::Exact(x)) => (x.value.clone(), e.is_const),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(keys, [(vec![1], true), (vec![2], true)]);
    // The ternary entries in precedence order: the first listed gets the highest priority, and
    // don't-care fields are omitted.
    let mut ternary = read_table(&h, &mut client, id(&info, "TestIngress.t_ternary"));
    ternary.sort_by_key(|e| -e.priority);
    let shape: Vec<(i32, Vec<u32>)> = ternary.iter().map(|e| (e.priority, e.r#match.iter().map(|m| m.field_id).collect())).collect();
    assert_eq!(shape, [(4, vec![1, 2]), (3, vec![1]), (2, vec![2]), (1, vec![])]);
    let e = write(&h, &mut client, 1, vec![(p4v1::update::Type::Delete, exact[0].clone())]).expect_err("const");
    assert_eq!(update_errors(&e)[0].0, Code::PermissionDenied as i32);
}

/// The next digest list on `stream`.
fn next_digest_list(h: &Harness, stream: &mut Stream) -> p4v1::DigestList {
    let message = h.rt.block_on(stream.rx.message()).expect("stream healthy").expect("a message");
    match message.update {
        Some(p4v1::stream_message_response::Update::Digest(list)) => list,
        other => panic!("expected a digest list, got {other:?}"),
    }
}

/// A packet-out frame of the CPU fixture: its packet_out header (egress port), then Ethernet.
fn cpu_frame(src: u64, egress_port: u16) -> Vec<u8> {
    let mut f = (egress_port << 7).to_be_bytes().to_vec();
    f.extend([0x00, 0x00, 0x5e, 0x00, 0x00, 0x09]);
    f.extend(&src.to_be_bytes()[2..]);
    f.extend([0x08, 0x00]);
    f
}

/// Runs `frames` through the switch on the CPU port and hands their digests to the device.
fn digest_frames(h: &Harness, frames: &[Vec<u8>]) {
    use p4_control::PacketIo;
    let mut device = p4_runtime::server::lock(&h.device);
    let mut digests = Vec::new();
    for f in frames {
        digests.extend(device.target().expect("a pipeline").inject(64, f, 0).digests);
    }
    device.digests(&digests);
}

#[test]
fn digests_arrive_in_lists_once_configured_and_equal_data_waits_for_the_ack() {
    let h = start();
    let mut client = h.client();
    let (mut stream, info) = with_program(&h, &mut client, &fixture("p4runtime_cpu.p4"));
    assert_eq!(next_arbitration(&h, &mut stream), (1, Code::Ok as i32));
    // The p4info names the digest by its type, with the struct in type_info.
    let digest = &info.digests[0];
    let preamble = digest.preamble.as_ref().expect("preamble");
    assert_eq!((preamble.name.as_str(), preamble.id >> 24), ("learn_t", 0x17));
    assert_eq!(preamble.id, 0x1700_0000 | (p4_ir::layout::one_at_a_time("learn_t") & 0xff_ffff));
    let learn = &info.type_info.as_ref().expect("type_info").structs["learn_t"];
    let widths: Vec<(String, String)> = learn.members.iter().map(|m| (m.name.clone(), format!("{:?}", m.type_spec))).collect();
    assert_eq!(widths.len(), 2);
    assert!(widths[0].0 == "src" && widths[0].1.contains("bitwidth: 48") && widths[1].0 == "port" && widths[1].1.contains("bitwidth: 9"), "{widths:?}");

    // Not configured: nothing is sent.
    digest_frames(&h, &[cpu_frame(0x0000_5e00_0101, 3)]);
    let config = |max_list_size| p4v1::DigestEntry {
        digest_id: preamble.id,
        config: Some(p4v1::digest_entry::Config { max_timeout_ns: 10_000_000_000, max_list_size, ack_timeout_ns: 60_000_000_000 }),
    };
    write_entities(&h, &mut client, 1, vec![(p4v1::update::Type::Insert, E::DigestEntry(config(2)))]).expect("configured");
    let read = read_entities(&h, &mut client, E::DigestEntry(p4v1::DigestEntry::default())).expect("read");
    assert_eq!(read, vec![E::DigestEntry(config(2))]);

    // Two different sources fill a list of two; the same source again is already in it.
    digest_frames(&h, &[cpu_frame(0x0000_5e00_0101, 3), cpu_frame(0x0000_5e00_0101, 3), cpu_frame(0x0000_5e00_0202, 0x1ff)]);
    let list = next_digest_list(&h, &mut stream);
    let member = |bytes: &[u8]| p4v1::P4Data { data: Some(p4v1::p4_data::Data::Bitstring(bytes.to_vec())) };
    let learned = |src: &[u8], port: &[u8]| p4v1::P4Data {
        data: Some(p4v1::p4_data::Data::Struct(p4v1::P4StructLike { members: vec![member(src), member(port)] })),
    };
    assert_eq!((list.digest_id, list.list_id), (preamble.id, 1));
    assert_eq!(list.data, vec![learned(&[0x5e, 0, 0x01, 0x01], &[3]), learned(&[0x5e, 0, 0x02, 0x02], &[0x01, 0xff])]);
    assert!(list.timestamp > 0);

    // Not acknowledged: the same data is not sent again; a new source waits for its list to fill.
    digest_frames(&h, &[cpu_frame(0x0000_5e00_0101, 3), cpu_frame(0x0000_5e00_0303, 1)]);
    let ack = |list_id| p4v1::StreamMessageRequest {
        update: Some(p4v1::stream_message_request::Update::DigestAck(p4v1::DigestListAck { digest_id: preamble.id, list_id })),
    };
    h.rt.block_on(stream.tx.send(ack(1))).expect("ack sent");
    // An ack of no list gets a stream error naming it.
    h.rt.block_on(stream.tx.send(ack(99))).expect("ack sent");
    let message = h.rt.block_on(stream.rx.message()).expect("stream healthy").expect("a message");
    match message.update {
        Some(p4v1::stream_message_response::Update::Error(e)) => {
            assert_eq!(e.message, format!("no list 99 of digest {:#x} waits for an acknowledgement", preamble.id));
            assert!(matches!(e.details, Some(p4v1::stream_error::Details::DigestListAck(_))));
        }
        other => panic!("expected a stream error, got {other:?}"),
    }
    // Acknowledged: the first source is sent again, with the one waiting.
    digest_frames(&h, &[cpu_frame(0x0000_5e00_0101, 3)]);
    let list = next_digest_list(&h, &mut stream);
    assert_eq!(list.list_id, 2);
    assert_eq!(list.data, vec![learned(&[0x5e, 0, 0x03, 0x03], &[1]), learned(&[0x5e, 0, 0x01, 0x01], &[3])]);

    // A list of one with no waiting leaves at once; deleting the config stops the digests.
    write_entities(&h, &mut client, 1, vec![(p4v1::update::Type::Modify, E::DigestEntry(config(1)))]).expect("modified");
    digest_frames(&h, &[cpu_frame(0x0000_5e00_0404, 2)]);
    assert_eq!(next_digest_list(&h, &mut stream).data, vec![learned(&[0x5e, 0, 0x04, 0x04], &[2])]);
    write_entities(&h, &mut client, 1, vec![(p4v1::update::Type::Delete, E::DigestEntry(config(1)))]).expect("deleted");
    assert_eq!(read_entities(&h, &mut client, E::DigestEntry(p4v1::DigestEntry::default())).expect("read"), vec![]);
}

#[test]
fn value_sets_are_replaced_whole_and_read_back() {
    let h = start();
    let mut client = h.client();
    let (_stream, info) = with_program(&h, &mut client, &fixture("p4runtime_value_set.p4"));
    let set = info.value_sets[0].preamble.as_ref().expect("preamble");
    assert_eq!((set.name.as_str(), set.id >> 24, info.value_sets[0].size), ("P.special_types", 0x03, 4));
    let exact = |v: &[u8]| p4v1::ValueSetMember {
        r#match: vec![p4v1::FieldMatch { field_id: 1, field_match_type: Some(p4v1::field_match::FieldMatchType::Exact(p4v1::field_match::Exact { value: v.to_vec() })) }],
    };
    let entry = |members: Vec<p4v1::ValueSetMember>| E::ValueSetEntry(p4v1::ValueSetEntry { value_set_id: set.id, members });
    let typed = |t: u16| {
        let mut f = vec![0u8; 12];
        f.extend(t.to_be_bytes());
        f
    };
    assert_eq!(forward(&h, &typed(0x1234)), Some(3));
    // Members written with a leading zero byte read back canonical.
    write_entities(&h, &mut client, 1, vec![(p4v1::update::Type::Modify, entry(vec![exact(&[0x12, 0x34]), exact(&[0x00, 0x56])]))]).expect("modified");
    assert_eq!((forward(&h, &typed(0x1234)), forward(&h, &typed(0x0056)), forward(&h, &typed(0x9999))), (Some(2), Some(2), Some(3)));
    let read = read_entities(&h, &mut client, entry(vec![])).expect("read");
    assert_eq!(read, vec![entry(vec![exact(&[0x12, 0x34]), exact(&[0x56])])]);
    // Five members do not fit four: refused, and the set keeps what it had.
    let five = (1..=5u8).map(|b| exact(&[b])).collect();
    let refused = write_entities(&h, &mut client, 1, vec![(p4v1::update::Type::Modify, entry(five))]).expect_err("refused");
    assert_eq!(update_errors(&refused), vec![(Code::ResourceExhausted as i32, "value set P.special_types holds 4 members, not 5".to_string())]);
    assert_eq!(forward(&h, &typed(0x1234)), Some(2));
    let inserted = write_entities(&h, &mut client, 1, vec![(p4v1::update::Type::Insert, entry(vec![]))]).expect_err("refused");
    assert_eq!(update_errors(&inserted)[0].0, Code::InvalidArgument as i32);
    // Replaced by no members: nothing is special any more.
    write_entities(&h, &mut client, 1, vec![(p4v1::update::Type::Modify, entry(vec![]))]).expect("emptied");
    assert_eq!(forward(&h, &typed(0x1234)), Some(3));
    assert_eq!(read_entities(&h, &mut client, entry(vec![])).expect("read"), vec![entry(vec![])]);
}

/// Every packet `frame` (entering on port 0) makes, with its port.
fn outputs<T: p4_runtime::server::Target>(h: &Harness<T>, frame: &[u8]) -> Vec<(u32, Vec<u8>)> {
    let mut device = p4_runtime::server::lock(&h.device);
    let out = device.target().expect("a pipeline").inject(0, frame, 0);
    out.outputs.into_iter().map(|o| (o.port, o.data)).collect()
}

/// The same P4Runtime writes on the software target and on the hardware target (the pushed program
/// built into a Verilator model, its tables written through the register map) read back the same
/// and forward the same packets.
#[test]
fn the_hardware_target_reads_back_and_forwards_as_the_software_one_after_the_same_writes() {
    if !p4_rtl::sim::models_for_tests() {
        return;
    }
    let cache = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target")).join("rtl-models");
    // SAFETY: no other test of this binary reads or writes the environment.
    unsafe { std::env::set_var("P4FORGE_RTL_CACHE", cache) };
    let sw = start();
    let hw = start_with(p4forge::cmd::p4runtime::rtl_loader());
    let program = fixture("p4runtime_tables.p4");
    let mac = |i: u64| 0x0000_5e00_0000 + i;
    let dst = |i: u32| 0x0a00_0000 + (i << 8);
    let mut reads = Vec::new();
    let mut forwarded = Vec::new();
    // One pass per target (a macro: the harnesses are of two types).
    macro_rules! exercise {
        ($h:expr) => {{
            let h = $h;
            let mut client = h.client();
            let (_stream, info) = with_program(h, &mut client, &program);
            let mut updates = Vec::new();
            for i in 0..40u32 {
                updates.push((p4v1::update::Type::Insert, E::TableEntry(exact_entry(&info, mac(u64::from(i)), (i % 8 + 1) as u16))));
                updates.push((p4v1::update::Type::Insert, E::TableEntry(ternary_entry(&info, dst(i), 0xffff_ff00, i as i32 + 1, (i % 4 + 10) as u16))));
            }
            for i in 0..10u32 {
                updates.push((p4v1::update::Type::Modify, E::TableEntry(exact_entry(&info, mac(u64::from(i)), 7))));
                updates.push((p4v1::update::Type::Delete, E::TableEntry(exact_entry(&info, mac(u64::from(i + 30)), 1))));
            }
            write_entities(h, &mut client, 1, updates).expect("written");
            reads.push((read_table(h, &mut client, id(&info, "I.mac")), read_table(h, &mut client, id(&info, "I.acl"))));
            let out: Vec<Vec<(u32, Vec<u8>)>> = (0..50u32).map(|i| outputs(h, &frame(mac(u64::from(i)), dst(i * 7 % 45) | 5))).collect();
            forwarded.push(out);
        }};
    }
    exercise!(&sw);
    exercise!(&hw);
    assert_eq!(reads[0].0.len(), 30);
    assert_eq!(reads[0].1.len(), 40);
    assert!(reads[0] == reads[1], "the targets read back different entries");
    for (i, (s, h)) in forwarded[0].iter().zip(&forwarded[1]).enumerate() {
        assert_eq!(s, h, "packet {i}: software {s:?}, hardware {h:?}");
    }
    // Not all the same port: the entries decided.
    let ports: std::collections::BTreeSet<u32> = forwarded[0].iter().flatten().map(|(p, _)| *p).collect();
    assert!(ports.len() > 4, "{ports:?}");
    // What the hardware target does not have is refused as such, not accepted and ignored.
    // Election id 2: the stream of the pass above (id 1) may not have been seen closed yet.
    let mut client = hw.client();
    let mut stream = arbitrate(&hw, &mut client, 2);
    hw.rt.block_on(stream.rx.message()).expect("arbitration answered");
    let truncating = E::PacketReplicationEngineEntry(p4v1::PacketReplicationEngineEntry {
        r#type: Some(p4v1::packet_replication_engine_entry::Type::CloneSessionEntry(p4v1::CloneSessionEntry {
            session_id: 9,
            replicas: vec![p4v1::Replica { port_kind: Some(p4v1::replica::PortKind::Port(vec![6])), ..Default::default() }],
            packet_length_bytes: 20,
            ..Default::default()
        })),
    });
    let digest = E::DigestEntry(p4v1::DigestEntry { digest_id: 1, config: Some(Default::default()) });
    for refused in [truncating, digest] {
        let e = write_entities(&hw, &mut client, 2, vec![(p4v1::update::Type::Insert, refused)]).expect_err("not on this target");
        assert_eq!(update_errors(&e).first().map(|(code, _)| *code), Some(Code::Unimplemented as i32), "{e:?}");
    }
}

#[test]
fn a_table_read_asking_for_meter_configs_gets_each_entrys_direct_meter_config() {
    let h = start();
    let mut client = h.client();
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/stf/meters.p4");
    let (_stream, info) = with_program(&h, &mut client, &program);
    let table_id = id(&info, "TestIngress.t");
    let entry = |k: u8| p4v1::TableEntry {
        table_id,
        r#match: vec![p4v1::FieldMatch { field_id: 1, field_match_type: Some(p4v1::field_match::FieldMatchType::Exact(p4v1::field_match::Exact { value: vec![k] })) }],
        action: Some(p4v1::TableAction {
            r#type: Some(p4v1::table_action::Type::Action(p4v1::Action { action_id: id(&info, "TestIngress.read_color"), params: vec![] })),
        }),
        ..Default::default()
    };
    write(&h, &mut client, 1, vec![(p4v1::update::Type::Insert, entry(1)), (p4v1::update::Type::Insert, entry(2))]).expect("inserted");
    let config = p4v1::MeterConfig { cir: 10, cburst: 2, pir: 20, pburst: 4, eburst: 0 };
    let direct = E::DirectMeterEntry(p4v1::DirectMeterEntry { table_entry: Some(entry(2)), config: Some(config), counter_data: None });
    write_entities(&h, &mut client, 1, vec![(p4v1::update::Type::Modify, direct)]).expect("configured");
    let pattern = p4v1::TableEntry { table_id, meter_config: Some(p4v1::MeterConfig::default()), ..Default::default() };
    let read = read_entities(&h, &mut client, E::TableEntry(pattern)).expect("read");
    let configs: Vec<(Vec<u8>, Option<p4v1::MeterConfig>)> = read
        .into_iter()
        .filter_map(|e| if let E::TableEntry(t) = e { Some(t) } else { None })
        .map(|t| match &t.r#match[0].field_match_type {
            Some(p4v1::field_match::FieldMatchType::Exact(e)) => (e.value.clone(), t.meter_config),
            other => panic!("{other:?}"),
        })
        .collect();
    // The entry never configured comes without one; the other with what was written.
    assert_eq!(configs, vec![(vec![1], None), (vec![2], Some(config))]);
    // Without asking, no entry carries a config.
    assert!(read_table(&h, &mut client, table_id).iter().all(|t| t.meter_config.is_none()));
}

#[test]
fn a_failing_update_rolls_back_the_whole_batch_under_rollback_on_error_and_dataplane_atomic() {
    use p4v1::packet_replication_engine_entry::Type as Pre;
    use p4v1::update::Type::{Delete, Insert, Modify};
    use p4v1::write_request::Atomicity;
    let h = start();
    let mut client = h.client();
    let (_stream, info) = with_program(&h, &mut client, &fixture("p4runtime_tables.p4"));
    let (mac_a, mac_b, mac_c) = (0x0000_5e00_0001, 0x0000_5e00_0002, 0x0000_5e00_0003);
    let a = exact_entry(&info, mac_a, 4);
    write(&h, &mut client, 1, vec![(Insert, a.clone())]).expect("A");
    for _ in 0..3 {
        assert_eq!(forward(&h, &frame(mac_a, 0x0b00_0001)), Some(4));
    }
    let register_id = info.registers[0].preamble.as_ref().expect("preamble").id;
    let cell = |index| Some(p4v1::Index { index });
    let bits = |v: &[u8]| Some(p4v1::P4Data { data: Some(p4v1::p4_data::Data::Bitstring(v.to_vec())) });
    let register = |v: &[u8]| E::RegisterEntry(p4v1::RegisterEntry { register_id, index: cell(2), data: bits(v) });
    let group = E::PacketReplicationEngineEntry(p4v1::PacketReplicationEngineEntry {
        r#type: Some(Pre::MulticastGroupEntry(p4v1::MulticastGroupEntry {
            multicast_group_id: 5,
            replicas: vec![p4v1::Replica { port_kind: Some(p4v1::replica::PortKind::Port(vec![1])), ..Default::default() }],
            metadata: vec![],
        })),
    });
    let b = exact_entry(&info, mac_b, 6);
    let batch = |last: Vec<(p4v1::update::Type, E)>| {
        let mut updates = vec![
            (Insert, E::TableEntry(b.clone())),
            (Modify, E::TableEntry(exact_entry(&info, mac_a, 5))),
            (Modify, register(&[0xde, 0xad])),
            (Insert, group.clone()),
            (Modify, E::TableEntry(p4v1::TableEntry { table_id: a.table_id, is_default_action: true, action: Some(set_port(&info, 9)), ..Default::default() })),
            (Delete, E::TableEntry(a.clone())),
        ];
        updates.extend(last);
        updates
    };
    // What a read shows before the batch, to compare with after each rolled-back one.
    let state = |client: &mut P4RuntimeClient<Channel>| {
        let with_counts = p4v1::TableEntry { table_id: a.table_id, counter_data: Some(Default::default()), ..Default::default() };
        let default = p4v1::TableEntry { table_id: a.table_id, is_default_action: true, ..Default::default() };
        let reads = [
            E::TableEntry(with_counts),
            E::TableEntry(default),
            register(&[]),
            E::PacketReplicationEngineEntry(p4v1::PacketReplicationEngineEntry { r#type: Some(Pre::MulticastGroupEntry(Default::default())) }),
        ];
        reads.into_iter().map(|r| read_entities(&h, client, r).expect("read")).collect::<Vec<_>>()
    };
    let duplicate = vec![(Insert, E::TableEntry(b.clone())), (Insert, E::TableEntry(exact_entry(&info, mac_c, 7)))];
    for atomicity in [Atomicity::RollbackOnError, Atomicity::DataplaneAtomic] {
        let before = state(&mut client);
        let e = write_atomic(&h, &mut client, atomicity as i32, batch(duplicate.clone())).expect_err("B twice");
        let aborted = |why: &str| (Code::Aborted as i32, format!("{why}: update 6 of the batch failed"));
        let mut expected = vec![aborted("rolled back"); 6];
        expected.push((Code::AlreadyExists as i32, "table I.mac already has this entry".to_string()));
        expected.push(aborted("not attempted"));
        assert_eq!(update_errors(&e), expected, "{atomicity:?}");
        assert_eq!(e.message(), "table I.mac already has this entry");
        // Everything is as before: A to port 4 with its three packets counted, the program's
        // default, register cell 2, no group; frames forward as before.
        assert_eq!(state(&mut client), before, "{atomicity:?}");
        assert_eq!(forward(&h, &frame(mac_a, 0x0b00_0001)), Some(4));
        assert_eq!(forward(&h, &frame(mac_b, 0x0b00_0001)), None);
    }
    // Without the failure the batch applies whole.
    write_atomic(&h, &mut client, Atomicity::DataplaneAtomic as i32, batch(vec![])).expect("applied");
    // B, read back in canonical form (values without leading zero bytes).
    let mut canonical_b = exact_entry(&info, mac_b, 6);
    if let Some(p4v1::field_match::FieldMatchType::Exact(x)) = &mut canonical_b.r#match[0].field_match_type {
        x.value = vec![0x5e, 0, 0, 2];
    }
    if let Some(p4v1::table_action::Type::Action(x)) = canonical_b.action.as_mut().and_then(|a| a.r#type.as_mut()) {
        x.params[0].value = vec![6];
    }
    assert_eq!(read_table(&h, &mut client, a.table_id), [canonical_b]);
    assert_eq!(forward(&h, &frame(mac_b, 0x0b00_0001)), Some(6));
    // CONTINUE_ON_ERROR keeps what succeeded; an unknown mode is refused before anything applies.
    let e = write_atomic(&h, &mut client, Atomicity::ContinueOnError as i32, duplicate).expect_err("B twice");
    assert_eq!(update_errors(&e).iter().map(|(c, _)| *c).collect::<Vec<_>>(), [Code::AlreadyExists as i32, Code::Ok as i32]);
    assert_eq!(forward(&h, &frame(mac_c, 0x0b00_0001)), Some(7));
    let e = write_atomic(&h, &mut client, 7, vec![(Delete, E::TableEntry(b))]).expect_err("mode 7");
    assert_eq!((e.code(), e.message()), (Code::InvalidArgument, "unknown atomicity 7"));
    assert_eq!(forward(&h, &frame(mac_b, 0x0b00_0001)), Some(6));
}

/// A role config in Stratum's `P4RoleConfig` wire form, encoded here field by field: exclusive
/// ids (field 1), shared ids (2), whether the role receives packet-ins (4) and may push a
/// pipeline (5).
fn role_config(exclusive: &[u32], shared: &[u32], packet_ins: bool, push: bool) -> prost_types::Any {
    fn varint(mut v: u64, out: &mut Vec<u8>) {
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }
    let mut value = Vec::new();
    for (tag, ids) in [(1u8, exclusive), (2, shared)] {
        let mut packed = Vec::new();
        ids.iter().for_each(|id| varint(u64::from(*id), &mut packed));
        if !packed.is_empty() {
            value.push(tag << 3 | 2);
            varint(packed.len() as u64, &mut value);
            value.extend(packed);
        }
    }
    for (tag, on) in [(4u8, packet_ins), (5, push)] {
        if on {
            value.extend([tag << 3, 1]);
        }
    }
    prost_types::Any { type_url: "type.googleapis.com/stratum.P4RoleConfig".into(), value }
}

#[test]
fn roles_write_read_and_push_only_what_their_role_config_grants() {
    use p4v1::update::Type::Insert;
    let h = start();
    let mut client = h.client();
    let (mut default_role, info) = with_program(&h, &mut client, &fixture("p4runtime_tables.p4"));
    let (mac, acl) = (id(&info, "I.mac"), id(&info, "I.acl"));
    let role = |name: &str, config| Some(p4v1::Role { name: name.into(), config, ..Default::default() });
    let mut acl_role = arbitrate_as(&h, &mut client, 1, role("acl", Some(role_config(&[acl], &[], false, false))));
    let mut mac_role = arbitrate_as(&h, &mut client, 1, role("mac", Some(role_config(&[], &[mac], true, true))));
    let as_role = |name: &str, updates| p4v1::WriteRequest { role: name.into(), ..write_of(1, updates) };
    let denied = |r: Result<(), tonic::Status>| update_errors(&r.expect_err("refused"));
    let acl_entry = E::TableEntry(ternary_entry(&info, 0x0a00_0000, 0xff00_0000, 10, 2));
    let mac_entry = |m| E::TableEntry(exact_entry(&info, m, 3));
    // Each role writes what its config covers; an id exclusive to "acl" is closed to the others,
    // the default role included.
    write_request(&h, &mut client, as_role("acl", vec![(Insert, acl_entry.clone())])).expect("acl writes acl");
    write_request(&h, &mut client, as_role("mac", vec![(Insert, mac_entry(0x0000_5e00_0001))])).expect("mac writes mac");
    write_request(&h, &mut client, as_role("", vec![(Insert, mac_entry(0x0000_5e00_0002))])).expect("the default role writes mac");
    let e = denied(write_request(&h, &mut client, as_role("acl", vec![(Insert, mac_entry(0x0000_5e00_0003))])));
    assert_eq!(e, [(Code::PermissionDenied as i32, format!("P4 id {mac:#x} is not in role \"acl\"'s scope"))]);
    let e = denied(write_request(&h, &mut client, as_role("", vec![(Insert, acl_entry.clone())])));
    assert_eq!(e, [(Code::PermissionDenied as i32, format!("P4 id {acl:#x} is exclusive to role \"acl\""))]);
    let group = E::PacketReplicationEngineEntry(p4v1::PacketReplicationEngineEntry {
        r#type: Some(p4v1::packet_replication_engine_entry::Type::MulticastGroupEntry(p4v1::MulticastGroupEntry { multicast_group_id: 1, ..Default::default() })),
    });
    let e = denied(write_request(&h, &mut client, as_role("mac", vec![(Insert, group)])));
    assert_eq!(e, [(Code::PermissionDenied as i32, "role \"mac\" has a role config: entities without a P4 id are out of its scope".to_string())]);
    // Reads return the role's entities only; the default role sees all.
    let read_as = |client: &mut P4RuntimeClient<Channel>, role: &str| {
        let everything = p4v1::Entity { entity: Some(E::TableEntry(Default::default())) };
        let request = p4v1::ReadRequest { device_id: 0, entities: vec![everything], role: role.into() };
        let mut stream = h.rt.block_on(client.read(request)).expect("read").into_inner();
        let mut tables = Vec::new();
        while let Some(r) = h.rt.block_on(stream.message()).expect("read") {
            tables.extend(r.entities.into_iter().filter_map(|e| match e.entity {
                Some(E::TableEntry(t)) => Some(t.table_id),
                _ => None,
            }));
        }
        tables.sort();
        tables
    };
    assert_eq!(read_as(&mut client, "acl"), [acl]);
    assert_eq!(read_as(&mut client, "mac"), [mac, mac]);
    let mut all = vec![acl, mac, mac];
    all.sort();
    assert_eq!(read_as(&mut client, ""), all);
    // "acl" may not push a pipeline; "mac" may.
    let program = std::fs::read(fixture("p4runtime_tables.p4")).expect("program");
    let pushed = |client: &mut P4RuntimeClient<Channel>, role: &str| {
        use p4v1::set_forwarding_pipeline_config_request::Action;
        let config = p4v1::ForwardingPipelineConfig { p4info: Some(info.clone()), p4_device_config: program.clone(), cookie: None };
        let request = p4v1::SetForwardingPipelineConfigRequest {
            device_id: 0,
            role: role.into(),
            election_id: Some(election(1)),
            action: Action::Verify as i32,
            config: Some(config),
            ..Default::default()
        };
        h.rt.block_on(client.set_forwarding_pipeline_config(request)).map(|_| ())
    };
    let e = pushed(&mut client, "acl").expect_err("acl may not push");
    assert_eq!((e.code(), e.message()), (Code::PermissionDenied, "role \"acl\" may not push a pipeline (its role config says so)"));
    pushed(&mut client, "mac").expect("mac may push");
    // A packet-in goes to the primaries of the roles that receive packet-ins: the default role
    // and "mac", not "acl".
    p4_runtime::server::lock(&h.device).packet_in(b"to the controllers").expect("sent");
    let packet_ins = |stream: &mut Stream| {
        let mut payloads = Vec::new();
        let wait = std::time::Duration::from_millis(200);
        while let Ok(Ok(Some(m))) = h.rt.block_on(async { tokio::time::timeout(wait, stream.rx.message()).await }) {
            if let Some(p4v1::stream_message_response::Update::Packet(p)) = m.update {
                payloads.push(p.payload);
            }
        }
        payloads
    };
    assert_eq!(packet_ins(&mut default_role), [b"to the controllers".to_vec()]);
    assert_eq!(packet_ins(&mut mac_role), [b"to the controllers".to_vec()]);
    assert_eq!(packet_ins(&mut acl_role), Vec::<Vec<u8>>::new());
    // Configs that cannot hold end the controller's stream with the reason.
    let refused = |client: &mut P4RuntimeClient<Channel>, role| {
        let mut stream = arbitrate_as(&h, client, 9, role);
        let e = h.rt.block_on(stream.rx.message()).expect_err("refused");
        (e.code(), e.message().to_string())
    };
    let clash = refused(&mut client, role("other", Some(role_config(&[mac], &[], false, false))));
    assert_eq!(clash, (Code::InvalidArgument, format!("P4 id {mac:#x} is exclusive to one role and in role \"mac\"'s scope too")));
    let default = refused(&mut client, role("", Some(role_config(&[], &[], false, false))));
    assert_eq!(default, (Code::InvalidArgument, "the default role has the whole pipeline: it takes no role config".to_string()));
    let other_type = refused(&mut client, role("x", Some(prost_types::Any { type_url: "type.googleapis.com/x.Y".into(), value: vec![] })));
    assert_eq!(other_type.0, Code::InvalidArgument);
    assert!(other_type.1.starts_with("role config of type \"type.googleapis.com/x.Y\""), "{}", other_type.1);
}

#[test]
fn action_profile_members_groups_and_action_sets_forward_as_the_selector_picks() {
    use p4v1::update::Type::{Delete, Insert, Modify};
    let h = start();
    let mut client = h.client();
    let (_stream, info) = with_program(&h, &mut client, &fixture("p4runtime_selector.p4"));
    let profile = |name: &str| info.action_profiles.iter().filter_map(|p| p.preamble.as_ref()).find(|p| p.name == name).expect("profile").id;
    let (selector, plain) = (profile("I.ecmp_selector"), profile("I.acl_profile"));
    let (ecmp, acl) = (id(&info, "I.ecmp"), id(&info, "I.acl"));
    let set_port = |port: u8| p4v1::Action { action_id: id(&info, "I.set_port"), params: vec![p4v1::action::Param { param_id: 1, value: vec![port] }] };
    let member = |profile, member_id, port| E::ActionProfileMember(p4v1::ActionProfileMember { action_profile_id: profile, member_id, action: Some(set_port(port)) });
    let group = |group_id, members: &[u32]| {
        let members = members.iter().map(|m| p4v1::action_profile_group::Member { member_id: *m, weight: 1, ..Default::default() }).collect();
        E::ActionProfileGroup(p4v1::ActionProfileGroup { action_profile_id: selector, group_id, members, max_size: 0 })
    };
    let exact = |v: Vec<u8>| p4v1::FieldMatch { field_id: 1, field_match_type: Some(p4v1::field_match::FieldMatchType::Exact(p4v1::field_match::Exact { value: v })) };
    let entry = |table_id, key: u8, action: p4v1::table_action::Type| {
        let value = if table_id == acl { vec![0, key] } else { vec![key] };
        E::TableEntry(p4v1::TableEntry { table_id, r#match: vec![exact(value)], action: Some(p4v1::TableAction { r#type: Some(action) }), ..Default::default() })
    };
    use p4v1::table_action::Type::{ActionProfileActionSet, ActionProfileGroupId, ActionProfileMemberId};
    let write = |client: &mut P4RuntimeClient<Channel>, updates| write_entities(&h, client, 1, updates);
    write(&mut client, vec![(Insert, member(selector, 1, 2)), (Insert, member(selector, 2, 3)), (Insert, member(selector, 3, 4)), (Insert, group(10, &[1, 2, 3]))])
        .expect("members and group");
    write(&mut client, vec![(Insert, entry(ecmp, 7, ActionProfileGroupId(10)))]).expect("entry to the group");
    let ports = |dst: u8| -> Vec<u32> {
        (0u16..8).map(|flow| {
            let [hi, lo] = flow.to_be_bytes();
            forward(&h, &[dst, hi, lo]).unwrap_or(u32::MAX)
        }).collect()
    };
    // CRC-16/ARC of the flow field's two bytes, worked out apart from the dataplane.
    let crc: [u16; 8] = [0x0000, 0xc0c1, 0xc181, 0x0140, 0xc301, 0x03c0, 0x0280, 0xc241];
    let of = |choices: &[u32]| -> Vec<u32> { crc.iter().map(|c| choices[*c as usize % choices.len()]).collect() };
    assert_eq!(ports(7), of(&[2, 3, 4]));
    // Reads return what was written.
    let read = |client: &mut P4RuntimeClient<Channel>, e| read_entities(&h, client, e).expect("read");
    let entries = read(&mut client, E::TableEntry(p4v1::TableEntry { table_id: ecmp, ..Default::default() }));
    assert!(matches!(&entries[..], [E::TableEntry(t)] if t.action.as_ref().and_then(|a| a.r#type.clone()) == Some(ActionProfileGroupId(10))), "{entries:?}");
    assert_eq!(read(&mut client, E::ActionProfileGroup(p4v1::ActionProfileGroup::default())), [group(10, &[1, 2, 3])]);
    assert_eq!(read(&mut client, E::ActionProfileMember(p4v1::ActionProfileMember { action_profile_id: selector, member_id: 2, action: None })), [member(selector, 2, 3)]);
    // A member changed moves its flows; a group changed moves them all.
    write(&mut client, vec![(Modify, member(selector, 2, 9))]).expect("member 2 to port 9");
    assert_eq!(ports(7), of(&[2, 9, 4]));
    write(&mut client, vec![(Modify, group(10, &[3, 1]))]).expect("group of 3 and 1");
    assert_eq!(ports(7), of(&[4, 2]));
    // What is in use cannot go; what is not there cannot be named.
    let errors = |r: Result<(), tonic::Status>| update_errors(&r.expect_err("refused")).into_iter().map(|(c, _)| c).collect::<Vec<_>>();
    assert_eq!(errors(write(&mut client, vec![(Delete, member(selector, 1, 0))])), [Code::FailedPrecondition as i32]);
    assert_eq!(errors(write(&mut client, vec![(Delete, group(10, &[]))])), [Code::FailedPrecondition as i32]);
    assert_eq!(errors(write(&mut client, vec![(Insert, entry(ecmp, 8, ActionProfileGroupId(11)))])), [Code::NotFound as i32]);
    let direct = entry(ecmp, 8, p4v1::table_action::Type::Action(set_port(1)));
    assert_eq!(errors(write(&mut client, vec![(Insert, direct)])), [Code::InvalidArgument as i32]);
    // A one-shot action set: the entry chooses among its actions.
    let action = |port| p4v1::ActionProfileAction { action: Some(set_port(port)), weight: 1, ..Default::default() };
    let set = p4v1::ActionProfileActionSet { action_profile_actions: vec![action(5), action(6)], ..Default::default() };
    write(&mut client, vec![(Insert, entry(ecmp, 8, ActionProfileActionSet(set)))]).expect("action set");
    assert_eq!(ports(8), of(&[5, 6]));
    // A plain action profile: entries name members; it has no groups.
    write(&mut client, vec![(Insert, member(plain, 1, 7)), (Insert, entry(acl, 1, ActionProfileMemberId(1)))]).expect("acl member and entry");
    assert_eq!(forward(&h, &[0xff, 0, 1]), Some(7));
    write(&mut client, vec![(Modify, member(plain, 1, 8))]).expect("acl member to port 8");
    assert_eq!(forward(&h, &[0xff, 0, 1]), Some(8));
    let plain_group = E::ActionProfileGroup(p4v1::ActionProfileGroup { action_profile_id: plain, group_id: 1, ..Default::default() });
    assert_eq!(errors(write(&mut client, vec![(Insert, plain_group)])), [Code::InvalidArgument as i32]);
    // Deleting the entries frees the group and its members.
    write(&mut client, vec![(Delete, entry(ecmp, 7, ActionProfileGroupId(10))), (Delete, group(10, &[])), (Delete, member(selector, 1, 0))]).expect("freed");
    assert_eq!(forward(&h, &[7, 0, 1]), None);
}

/// The next idle-timeout notification on `stream` (other messages skipped), waiting at most
/// `wait`.
fn next_idle(h: &Harness, stream: &mut Stream, wait: std::time::Duration) -> Option<p4v1::IdleTimeoutNotification> {
    let deadline = std::time::Instant::now() + wait;
    loop {
        let left = deadline.checked_duration_since(std::time::Instant::now())?;
        let message = h.rt.block_on(async { tokio::time::timeout(left, stream.rx.message()).await }).ok()?.expect("stream healthy")?;
        if let Some(p4v1::stream_message_response::Update::IdleTimeoutNotification(n)) = message.update {
            return Some(n);
        }
    }
}

#[test]
fn an_entry_left_unhit_past_its_idle_timeout_is_reported_once_until_hit_again() {
    idle_timeouts_reported_once_until_hit_again("p4runtime_idle.p4");
}

/// The same with PSA's `psa_idle_timeout = PSA_IdleTimeout_t.NOTIFY_CONTROL` table property.
#[test]
fn a_psa_entry_left_unhit_past_its_idle_timeout_is_reported_once_until_hit_again() {
    idle_timeouts_reported_once_until_hit_again("p4runtime_idle_psa.p4");
}

fn idle_timeouts_reported_once_until_hit_again(program: &str) {
    use p4v1::update::Type::Insert;
    use std::time::Duration;
    let h = start();
    let mut client = h.client();
    let (mut stream, info) = with_program(&h, &mut client, &fixture(program));
    let (flows, plain) = (id(&info, "I.flows"), id(&info, "I.plain"));
    let entry = |table_id, dst: u8, idle: Duration| p4v1::TableEntry {
        table_id,
        r#match: vec![p4v1::FieldMatch { field_id: 1, field_match_type: Some(p4v1::field_match::FieldMatchType::Exact(p4v1::field_match::Exact { value: vec![dst] })) }],
        // In canonical form, as the server sends it back.
        action: Some(p4v1::TableAction {
            r#type: Some(p4v1::table_action::Type::Action(p4v1::Action {
                action_id: id(&info, "I.set_port"),
                params: vec![p4v1::action::Param { param_id: 1, value: vec![1] }],
            })),
        }),
        idle_timeout_ns: idle.as_nanos() as i64,
        ..Default::default()
    };
    // `soon` expires in the test; `later` not (an hour); `never` has no timeout.
    let (soon, later, never) = (entry(flows, 1, Duration::from_millis(200)), entry(flows, 2, Duration::from_secs(3600)), entry(flows, 3, Duration::ZERO));
    write(&h, &mut client, 1, vec![(Insert, soon.clone()), (Insert, later.clone()), (Insert, never.clone())]).expect("entries");
    let e = write(&h, &mut client, 1, vec![(Insert, entry(plain, 1, Duration::from_secs(1)))]).expect_err("no support_timeout");
    assert_eq!(update_errors(&e), [(Code::InvalidArgument as i32, "table I.plain has no support_timeout: its entries take no idle timeout".to_string())]);
    // Reported once, with the entry as written; not again while nothing hits it.
    let reported = next_idle(&h, &mut stream, Duration::from_secs(10)).expect("a notification");
    assert_eq!(reported.table_entry, std::slice::from_ref(&soon));
    assert!(reported.timestamp > 0);
    assert!(next_idle(&h, &mut stream, Duration::from_millis(500)).is_none(), "reported twice");
    // A hit starts its timer again: reported again later.
    assert_eq!(forward(&h, &[1]), Some(1));
    let again = next_idle(&h, &mut stream, Duration::from_secs(10)).expect("a second notification");
    assert_eq!(again.table_entry, std::slice::from_ref(&soon));
    // A read asking for it gets the time since the last hit: `later` was never hit (its time
    // counts from its insertion, over half a second ago); after a hit, less.
    let since = |client: &mut P4RuntimeClient<Channel>, e: &p4v1::TableEntry| {
        let pattern = p4v1::TableEntry { time_since_last_hit: Some(Default::default()), ..e.clone() };
        match &read_entities(&h, client, E::TableEntry(pattern)).expect("read")[..] {
            [E::TableEntry(t)] => Duration::from_nanos(t.time_since_last_hit.expect("asked for").elapsed_ns as u64),
            other => panic!("{other:?}"),
        }
    };
    let unhit = since(&mut client, &later);
    assert!(unhit >= Duration::from_millis(500), "{unhit:?}");
    assert_eq!(forward(&h, &[2]), Some(1));
    assert!(since(&mut client, &later) < unhit, "a hit restarts the time");
}

#[test]
fn entries_name_match_fields_and_parameters_by_their_id_annotations() {
    use p4v1::update::Type::Insert;
    let h = start();
    let mut client = h.client();
    let (_stream, info) = with_program(&h, &mut client, &fixture("p4runtime_ids.p4"));
    let exact = |field_id, v: u8| p4v1::FieldMatch { field_id, field_match_type: Some(p4v1::field_match::FieldMatchType::Exact(p4v1::field_match::Exact { value: vec![v] })) };
    let param = |param_id, v: u8| p4v1::action::Param { param_id, value: vec![v] };
    let entry = |matches| p4v1::TableEntry {
        table_id: id(&info, "I.t"),
        r#match: matches,
        action: Some(p4v1::TableAction {
            r#type: Some(p4v1::table_action::Type::Action(p4v1::Action { action_id: id(&info, "I.set"), params: vec![param(1, 0x77), param(3, 6)] })),
        }),
        ..Default::default()
    };
    // a = 0x0a (id 5), b = 0x0b (id 2), c = 0x0c (id 1): to port 6, tag 0x77.
    let written = entry(vec![exact(1, 0x0c), exact(2, 0x0b), exact(5, 0x0a)]);
    write(&h, &mut client, 1, vec![(Insert, written.clone())]).expect("inserted");
    use p4_control::PacketIo;
    let out = p4_runtime::server::lock(&h.device).target().expect("pipeline").inject(0, &[0x0a, 0x0b, 0x0c, 0], 0);
    assert_eq!(out.outputs.iter().map(|o| (o.port, o.data.clone())).collect::<Vec<_>>(), [(6, vec![0x0a, 0x0b, 0x0c, 0x77])]);
    // Read back with the fields in the table's order (ids 5, 2, 1) and the parameters by id.
    let read = read_table(&h, &mut client, id(&info, "I.t"));
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].r#match, [exact(5, 0x0a), exact(2, 0x0b), exact(1, 0x0c)]);
    let e = write(&h, &mut client, 1, vec![(Insert, entry(vec![exact(4, 1), exact(2, 1), exact(5, 1)]))]).expect_err("no field 4");
    assert_eq!(update_errors(&e), [(Code::InvalidArgument as i32, "table I.t has no match field 4".to_string())]);
}

#[test]
fn a_translated_field_takes_its_sdn_width_and_values_that_fit_the_dataplane() {
    use p4v1::update::Type::Insert;
    let h = start();
    let mut client = h.client();
    let (_stream, info) = with_program(&h, &mut client, &fixture("p4runtime_types.p4"));
    let entry = |in_port: u32| p4v1::TableEntry {
        table_id: id(&info, "I.t"),
        r#match: vec![p4v1::FieldMatch {
            field_id: 1,
            field_match_type: Some(p4v1::field_match::FieldMatchType::Exact(p4v1::field_match::Exact { value: in_port.to_be_bytes().to_vec() })),
        }],
        action: Some(p4v1::TableAction {
            r#type: Some(p4v1::table_action::Type::Action(p4v1::Action {
                action_id: id(&info, "I.set"),
                params: vec![p4v1::action::Param { param_id: 1, value: 6u32.to_be_bytes().to_vec() }, p4v1::action::Param { param_id: 2, value: vec![0x77] }],
            })),
        }),
        ..Default::default()
    };
    // 32-bit SDN values, as a controller sends them for PortId_t: port 5 is 5 on the dataplane.
    write(&h, &mut client, 1, vec![(Insert, entry(5))]).expect("inserted");
    use p4_control::PacketIo;
    let out = p4_runtime::server::lock(&h.device).target().expect("pipeline").inject(0, &[0x02, 0x80, 0x00], 0);
    // in_port is the first 9 bits (5 = 0b0_0000_0101), then tag 8 bits, then 7 bits of padding.
    assert_eq!(out.outputs.iter().map(|o| o.port).collect::<Vec<_>>(), [6]);
    let e = write(&h, &mut client, 1, vec![(Insert, entry(0x200))]).expect_err("beyond 9 bits");
    assert_eq!(update_errors(&e)[0].0, Code::OutOfRange as i32);
}

/// SetForwardingPipelineConfig under traffic: while a thread sends numbered frames through the
/// device one at a time (as the switch's loop does a batch at a time, under the device's lock), the
/// controller pushes another program and then the first again. Every frame comes out once, whole,
/// switched by the program in place when it went in: a run of the first program's marks, one of the
/// second's, one of the first's.
#[test]
fn a_pipeline_pushed_under_traffic_loses_cuts_and_repeats_no_frame() {
    let h = start();
    let mut client = h.client();
    let (a, b) = (fixture("op4t_mark_aa.p4"), fixture("op4t_mark_bb.p4"));
    let (_stream, info_a) = with_program(&h, &mut client, &a);
    let info_b = p4info_of(&b);
    let frame = |n: u32| [&[0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x88, 0xb5][..], &n.to_be_bytes(), &[0u8; 42]].concat();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sender = {
        let (device, stop) = (h.device.clone(), stop.clone());
        std::thread::spawn(move || {
            use p4_control::PacketIo;
            let mut marks = Vec::new();
            let mut n = 0u32;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) || n < 1000 {
                let input = frame(n);
                let out = p4_runtime::server::lock(&device).target().expect("a pipeline").inject(0, &input, 0);
                assert_eq!(out.outputs.len(), 1, "frame {n}: {:?}", out.drops);
                let data = &out.outputs[0].data;
                assert_eq!((out.outputs[0].port, &data[..11], &data[12..]), (1, &input[..11], &input[12..]), "frame {n}");
                marks.push(data[11]);
                n += 1;
            }
            marks
        })
    };
    std::thread::sleep(std::time::Duration::from_millis(100));
    push(&h, &mut client, 1, std::fs::read(&b).unwrap(), &info_b).expect("b pushed");
    std::thread::sleep(std::time::Duration::from_millis(100));
    push(&h, &mut client, 1, std::fs::read(&a).unwrap(), &info_a).expect("a pushed again");
    std::thread::sleep(std::time::Duration::from_millis(100));
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let marks = sender.join().expect("every frame out, whole");
    // Runs of equal marks: a, b, a.
    let mut runs: Vec<(u8, usize)> = Vec::new();
    for m in &marks {
        match runs.last_mut() {
            Some((last, count)) if last == m => *count += 1,
            _ => runs.push((*m, 1)),
        }
    }
    assert_eq!(runs.iter().map(|r| r.0).collect::<Vec<_>>(), [0xaa, 0xbb, 0xaa], "{runs:?}");
    assert!(runs.iter().all(|r| r.1 > 0));
}

//! P4Runtime packet I/O through `p4forge switch --cpu-port`: PacketOuts leave on the port their
//! packet_out metadata names, and frames arriving on a port reach the primary controller as
//! PacketIns carrying that port, the payload unchanged.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use p4_runtime::proto::p4::v1 as p4v1;
use p4v1::p4_runtime_client::P4RuntimeClient;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// A classic pcap (little-endian, microseconds, Ethernet) holding `frames`.
fn pcap(frames: &[Vec<u8>]) -> Vec<u8> {
    let mut out = vec![0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    out.extend_from_slice(&65535u32.to_le_bytes());
    out.extend_from_slice(&1u32.to_le_bytes());
    for frame in frames {
        let length = frame.len() as u32;
        for word in [1_000, 0, length, length] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(frame);
    }
    out
}

fn frame(i: u32) -> Vec<u8> {
    let mut f = vec![0x02, 0, 0, 0, 0, 0x10, 0x02, 0, 0, 0, 0, 0x20, 0x88, 0xb5];
    f.extend(i.to_be_bytes());
    f.extend(b"p4runtime packet");
    f
}

#[test]
fn packet_outs_leave_on_their_port_and_frames_in_reach_the_controller() {
    let dir = p4_io::testing::scratch_dir("p4forge-p4rt-packet-io", "cpu");
    let fifo = dir.path().join("in.pcap");
    assert!(Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs").success());
    let out_pcap = dir.path().join("out.pcap");
    let program = fixture("p4runtime_cpu.p4");
    let mut child = Command::new(env!("CARGO_BIN_EXE_p4forge"))
        .args(["switch", program.to_str().expect("UTF-8"), "--p4runtime", "127.0.0.1:0", "--cpu-port", "64"])
        .arg(format!("--port=2=pcap-in:{}", fifo.display()))
        .arg(format!("--port=1=pcap-out:{}", out_pcap.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("p4forge runs");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let first = lines.next().and_then(Result::ok).unwrap_or_default();
    let addr = first.strip_prefix("P4Runtime 1.5.0 on ").unwrap_or_else(|| panic!("first line: {first}")).to_string();
    let stderr = std::thread::spawn(move || lines.map_while(Result::ok).collect::<Vec<_>>().join("\n"));

    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let mut client = rt.block_on(P4RuntimeClient::connect(format!("http://{addr}"))).expect("connects");
    let (tx, rx) = mpsc::channel(256);
    let arbitration = p4v1::MasterArbitrationUpdate {
        device_id: 0,
        election_id: Some(p4v1::Uint128 { high: 0, low: 1 }),
        ..Default::default()
    };
    let send = |update| rt.block_on(tx.send(p4v1::StreamMessageRequest { update: Some(update) })).expect("queued");
    send(p4v1::stream_message_request::Update::Arbitration(arbitration));
    let mut stream = rt.block_on(client.stream_channel(ReceiverStream::new(rx))).expect("stream").into_inner();
    let mut next = || {
        rt.block_on(async { tokio::time::timeout(Duration::from_secs(10), stream.message()).await })
            .expect("a message within 10 s")
            .expect("stream healthy")
            .and_then(|m| m.update)
    };
    assert!(matches!(next(), Some(p4v1::stream_message_response::Update::Arbitration(a)) if a.status.as_ref().is_some_and(|s| s.code == 0)));

    // 100 packet-outs to port 1.
    let port_1 = p4v1::PacketMetadata { metadata_id: 1, value: vec![1] };
    for i in 0..100 {
        let packet = p4v1::PacketOut { payload: frame(i), metadata: vec![port_1.clone()] };
        send(p4v1::stream_message_request::Update::Packet(packet));
    }
    // Three frames in on port 2 become packet-ins.
    let ins: Vec<Vec<u8>> = (1000..1003).map(frame).collect();
    let mut feed = std::fs::File::options().write(true).open(&fifo).expect("FIFO opens");
    feed.write_all(&pcap(&ins)).expect("written");
    drop(feed);
    for expected in &ins {
        match next() {
            Some(p4v1::stream_message_response::Update::Packet(p)) => {
                assert_eq!(&p.payload, expected);
                let meta: Vec<(u32, Vec<u8>)> = p.metadata.into_iter().map(|m| (m.metadata_id, m.value)).collect();
                assert_eq!(meta, [(1, vec![2]), (2, vec![0])], "ingress_port 2, _pad 0");
            }
            other => panic!("expected a packet-in, got {other:?}"),
        }
    }
    // A packet-out naming no such metadata is refused on the stream, and the switch goes on.
    send(p4v1::stream_message_request::Update::Packet(p4v1::PacketOut { payload: frame(7), metadata: vec![p4v1::PacketMetadata { metadata_id: 9, value: vec![1] }] }));
    match next() {
        Some(p4v1::stream_message_response::Update::Error(e)) => assert_eq!(e.message, "packet_out has no metadata id 9"),
        other => panic!("expected a stream error, got {other:?}"),
    }

    assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill runs").success());
    let status = child.wait().expect("switch stops");
    let stderr = stderr.join().expect("stderr read");
    let records = p4_stf::capture::read_capture_file(&out_pcap).unwrap_or_else(|e| panic!("{e}: {status:?}\n{stderr}"));
    let sent: Vec<Vec<u8>> = records.into_iter().map(|r| r.data).collect();
    assert_eq!(sent.len(), 100, "{stderr}");
    assert!(sent.iter().zip(0..).all(|(f, i)| *f == frame(i)), "in order, unchanged");
}

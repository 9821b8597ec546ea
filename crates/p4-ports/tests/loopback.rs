//! Frames through the device interface of an `AF_PACKET` port on the loopback interface: what a
//! transmit token sends comes back through receive tokens, byte for byte and in order; a token
//! dropped unused sends nothing; an oversized frame is refused before anything is sent. Needs
//! root (a raw socket); without it the test says so and passes, except under `CI=true`.

use std::time::{Duration, Instant};

use p4_ports::{Device, LinuxPort, RxToken, TxToken, MAX_FRAME};

/// An ethertype for local experiments (IEEE 802 "local experimental 1"), so other loopback traffic
/// is told apart.
const ETHERTYPE: [u8; 2] = [0x88, 0xb5];

fn frame(nonce: u32, n: u8) -> Vec<u8> {
    let mut f = vec![0u8; 60];
    f[..6].copy_from_slice(&[0x02, 0, 0, 0, 0, 1]);
    f[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 2]);
    f[12..14].copy_from_slice(&ETHERTYPE);
    f[14..18].copy_from_slice(&nonce.to_be_bytes());
    f[18] = n;
    f
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .map(|s| s.lines().any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0")))
        .unwrap_or(false)
}

#[test]
fn frames_sent_with_tokens_come_back_through_receive_tokens() {
    if !is_root() {
        assert_ne!(std::env::var("CI").as_deref(), Ok("true"), "this test needs root, and CI=true may not skip it");
        eprintln!("note: needs root (a raw socket on lo); skipped");
        return;
    }
    let mut port = LinuxPort::open("lo").expect("lo opens as a port");
    let nonce = std::process::id();
    // A token dropped unused sends nothing.
    let _unused = port.transmit().expect("transmit").expect("room");
    for n in 1..=3 {
        let token = port.transmit().expect("transmit").expect("an AF_PACKET port always has room");
        let f = frame(nonce, n);
        token.consume(f.len(), |buffer| buffer.copy_from_slice(&f)).expect("sent");
    }
    let oversized = port.transmit().expect("transmit").expect("room").consume(MAX_FRAME + 1, |_| panic!("not called"));
    assert_eq!(
        oversized.map_err(|e| e.to_string()),
        Err(format!("cannot send on lo: a {}-byte frame is longer than {MAX_FRAME} bytes", MAX_FRAME + 1))
    );

    let mut ours = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(2);
    while ours.len() < 3 && Instant::now() < deadline {
        match port.receive().expect("receive") {
            Some(token) => token.consume(|f| {
                if f.len() >= 19 && f[12..14] == ETHERTYPE && f[14..18] == nonce.to_be_bytes() {
                    ours.push(f.to_vec());
                }
            }),
            None => std::thread::sleep(Duration::from_millis(1)),
        }
    }
    assert_eq!(ours, (1..=3).map(|n| frame(nonce, n)).collect::<Vec<_>>());
    // Nothing more of ours arrives: the dropped token sent nothing, and our own sends are not
    // received a second time as outgoing frames.
    let settle = Instant::now() + Duration::from_millis(50);
    while Instant::now() < settle {
        if let Some(token) = port.receive().expect("receive") {
            token.consume(|f| {
                assert!(
                    !(f.len() >= 18 && f[12..14] == ETHERTYPE && f[14..18] == nonce.to_be_bytes()),
                    "an extra frame: {f:02x?}"
                )
            });
        }
    }
}

//! Shared by the `packet` fuzz target and the `packet_loop` binary: push one fuzz input through
//! one of the example applications as a packet.
//!
//! Invariants: the examples are compiled (and their `entries.txt` parsed) once per process; every
//! input gets a freshly built `Switch` with the example's entries applied, so a crash reproduces
//! from its input alone (no register or counter state leaks from earlier inputs).
//!
//! Input layout: byte 0 is the selector, the rest is packet data.
//! - bits 0..=1: example (`value % 3`: l2l3, mdp, paxos);
//! - bits 2..=5: ingress port (0..=15; the examples' tables use ports 0..=9);
//! - bit 7: structured mode — prepend an Ethernet/IPv4/UDP prefix that the chosen example's parser
//!   and tables accept (router MAC, valid IPv4 checksum, lengths matching the payload, the UDP port
//!   its parser selects on), so that the fuzzer starts deep inside the application's own headers.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use p4_dataplane::control::PacketIo;
use p4_dataplane::Switch;
use p4_stf::commands::{apply_commands, parse_commands, CliLine};

/// One example application, compiled, with its table entries.
pub struct Example {
    /// Directory name under `examples/`.
    pub name: &'static str,
    program: Arc<p4_ir::Program>,
    commands: Vec<CliLine>,
    /// Destination MAC, IPv4 destination and UDP destination port for structured mode.
    steer: ([u8; 6], [u8; 4], u16),
}

const NAMES: [&str; 3] = ["l2l3", "mdp", "paxos"];

fn steer_for(name: &str) -> ([u8; 6], [u8; 4], u16) {
    match name {
        // The router MAC and a route from l2l3/entries.txt.
        "l2l3" => ([0, 0, 0, 0, 0x01, 0x00], [10, 1, 2, 7], 9),
        // The first channel in mdp/entries.txt (224.0.0.1, port 14310).
        "mdp" => ([0x01, 0x00, 0x5e, 0, 0, 1], [224, 0, 0, 1], 14310),
        // paxos.p4's PAXOS_UDP_PORT.
        _ => ([0, 0, 0, 0, 0, 9], [10, 0, 0, 9], 0x8888),
    }
}

fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn load(name: &'static str) -> Example {
    let root = root();
    let dir = root.join("examples").join(name);
    let compiled = p4_sema::compile_file(&dir.join(format!("{name}.p4")), &[root.join("p4include")]);
    let Some(program) = compiled.program else {
        // Harness setup, not fuzz input: the examples must compile for the target to mean anything.
        panic!("examples/{name}/{name}.p4 does not compile:\n{}", compiled.render_diagnostics());
    };
    let text = std::fs::read_to_string(dir.join("entries.txt"))
        .unwrap_or_else(|e| panic!("examples/{name}/entries.txt: {e}"));
    let commands = parse_commands(&text).unwrap_or_else(|e| panic!("examples/{name}/entries.txt: {e:?}"));
    let example = Example { name, program: Arc::new(program), commands, steer: steer_for(name) };
    // Fail at start-up, not on the first input, if the entries no longer apply.
    example.switch();
    example
}

/// The three examples, compiled on first use.
pub fn examples() -> &'static [Example] {
    static EXAMPLES: OnceLock<Vec<Example>> = OnceLock::new();
    EXAMPLES.get_or_init(|| NAMES.iter().map(|n| load(n)).collect())
}

impl Example {
    /// A fresh switch running this example with its entries applied.
    fn switch(&self) -> Switch {
        let mut sw = Switch::new(Arc::clone(&self.program))
            .unwrap_or_else(|e| panic!("examples/{}: Switch::new: {e}", self.name));
        if let Err(e) = apply_commands(&mut sw, &self.commands) {
            panic!("examples/{}/entries.txt: {e:?}", self.name);
        }
        sw
    }

    /// Ethernet + IPv4 (checksum valid) + UDP headers steering `payload` into this example.
    fn frame(&self, payload: &[u8]) -> Vec<u8> {
        let (dst_mac, dst_ip, dst_port) = self.steer;
        let mut p = Vec::with_capacity(42 + payload.len());
        p.extend_from_slice(&dst_mac);
        p.extend_from_slice(&[0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00]);
        let udp_len = (8 + payload.len()).min(usize::from(u16::MAX) - 20) as u16;
        let total = udp_len + 20;
        let mut ip = [0x45, 0, 0, 0, 0, 1, 0x40, 0, 64, 17, 0, 0, 192, 168, 0, 1, 0, 0, 0, 0];
        ip[2..4].copy_from_slice(&total.to_be_bytes());
        ip[16..20].copy_from_slice(&dst_ip);
        let sum = ip.chunks(2).map(|w| u32::from(u16::from_be_bytes([w[0], w[1]]))).sum::<u32>();
        let folded = (sum & 0xffff) + (sum >> 16);
        let csum = !(((folded & 0xffff) + (folded >> 16)) as u16);
        ip[10..12].copy_from_slice(&csum.to_be_bytes());
        p.extend_from_slice(&ip);
        p.extend_from_slice(&0x1234u16.to_be_bytes());
        p.extend_from_slice(&dst_port.to_be_bytes());
        p.extend_from_slice(&udp_len.to_be_bytes());
        p.extend_from_slice(&[0, 0]);
        p.extend_from_slice(payload);
        p
    }
}

/// Runs one fuzz input (see the module head for its layout). Panics only if the dataplane does.
pub fn run(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else { return };
    let examples = examples();
    let example = &examples[usize::from(selector & 0x3) % examples.len()];
    let port = u32::from((selector >> 2) & 0xf);
    let packet = if selector & 0x80 != 0 { example.frame(rest) } else { rest.to_vec() };
    let mut sw = example.switch();
    let out = sw.inject(port, &packet, 1_000);
    // Touch everything the switch produced, as a user of the results would.
    let bytes: usize = out.outputs.iter().map(|o| o.data.len() + o.port as usize).sum();
    let text: usize = out.drops.iter().chain(&out.log).map(String::len).sum();
    std::hint::black_box((bytes, text));
}

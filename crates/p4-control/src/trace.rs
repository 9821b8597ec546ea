//! A packet's trace as the dataplane reports it and the CLI prints it: the steps ([`Event`]) and
//! their text and JSON forms. The dataplane records them (`p4_dataplane::trace`).

use serde::Serialize;

/// One step of a packet's trace. Values are hexadecimal strings (`0x0a000001`), booleans `true`
/// or `false`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A copy of the packet enters the parser (`instance`: normal, resubmitted, recirculated, ...).
    Ingress { port: u32, length: usize, instance: String },
    /// The parser enters a state.
    State { parser: String, state: String },
    /// A header was extracted at bit `offset` of the packet.
    Extract { header: String, offset: usize, fields: Vec<(String, String)> },
    /// The parser ended: `accept`, or the error it rejected with.
    ParserEnd { result: String },
    /// A control block starts.
    Control { name: String },
    /// A table was applied.
    Table {
        table: String,
        key: Vec<(String, String)>,
        hit: bool,
        entry: Option<u64>,
        action: String,
        data: Vec<(String, String)>,
    },
    /// A field changed.
    Set { field: String, old: String, new: String },
    /// An extern method or function was called (as written in the program).
    Call { call: String },
    /// The traffic manager's or the architecture's decision: `unicast to port 2`, `multicast group
    /// 5: 3 copies`, `clone session 3`, `resubmit`, `recirculate`, `drop`.
    Decision { decision: String },
    /// A copy enters egress processing.
    Egress { port: u32, instance: String, rid: u32 },
    /// A packet leaves.
    Output { port: u32, length: usize },
    /// A copy was dropped.
    Drop { reason: String },
    /// The packet's trace reached [`MAX_EVENTS`]: `omitted` more steps were not recorded (a packet
    /// that loops or is copied thousands of times would otherwise take memory without bound).
    Truncated { omitted: u64 },
}

/// Most steps recorded for one packet (and every copy it causes).
pub const MAX_EVENTS: usize = 4096;

/// A value as the trace shows it: `true`/`false` for width 0, else hexadecimal in the field's
/// width (`0x0800` for a `bit<16>`).
pub fn value_text(v: u128, width: u32) -> String {
    if width == 0 {
        return (v != 0).to_string();
    }
    let digits = (width as usize).div_ceil(4).max(1);
    format!("0x{v:0digits$x}")
}

/// The human-readable form of a packet's trace, one step per line, indented under the block it
/// happened in.
pub fn render_text(events: &[Event]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let pairs =
        |items: &[(String, String)]| items.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ");
    for event in events {
        let _ = match event {
            Event::Ingress { port, length, instance } => {
                writeln!(out, "ingress: port {port}, {length} bytes ({instance})")
            }
            Event::State { parser, state } => writeln!(out, "  parser {parser}: state {state}"),
            Event::Extract { header, offset, fields } => {
                writeln!(out, "    extract {header} at bit {offset}: {}", pairs(fields))
            }
            Event::ParserEnd { result } => writeln!(out, "  parser: {result}"),
            Event::Control { name } => writeln!(out, "  control {name}"),
            Event::Table { table, key, hit, entry, action, data } => {
                let outcome = match entry {
                    Some(handle) if *hit => format!("hit entry {handle}"),
                    _ => "miss".to_string(),
                };
                let data = if data.is_empty() { String::new() } else { format!(" ({})", pairs(data)) };
                writeln!(out, "    table {table}: key {} -> {outcome} -> {action}{data}", pairs(key))
            }
            Event::Set { field, old, new } => writeln!(out, "      {field}: {old} -> {new}"),
            Event::Call { call } => writeln!(out, "    call {call}"),
            Event::Decision { decision } => writeln!(out, "  traffic manager: {decision}"),
            Event::Egress { port, instance, rid } => writeln!(out, "egress: port {port} ({instance}, rid {rid})"),
            Event::Output { port, length } => writeln!(out, "output: port {port}, {length} bytes"),
            Event::Drop { reason } => writeln!(out, "dropped: {reason}"),
            Event::Truncated { omitted } => writeln!(out, "trace truncated: {omitted} more steps not recorded"),
        };
    }
    out
}

/// The JSON form of the trace of packet number `packet` (from 1), which arrived on `port`: one
/// object on one line, `{"packet": 1, "port": 1, "events": [...]}`, each event with its kind under
/// `"event"`.
pub fn render_json(packet: u64, port: u32, events: &[Event]) -> String {
    #[derive(Serialize)]
    struct Trace<'a> {
        packet: u64,
        port: u32,
        events: &'a [Event],
    }
    serde_json::to_string(&Trace { packet, port, events }).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_hex_in_their_width_and_booleans_are_words() {
        assert_eq!(value_text(0x800, 16), "0x0800");
        assert_eq!(value_text(1, 9), "0x001");
        assert_eq!(value_text(1, 0), "true");
        assert_eq!(value_text(0, 0), "false");
        assert_eq!(value_text(5, 1), "0x5");
    }
    #[test]
    fn text_and_json_forms() {
        let events = vec![
            Event::Ingress { port: 1, length: 64, instance: "normal".into() },
            Event::Table {
                table: "t".into(),
                key: vec![("hdr.h.f".into(), "0x08".into())],
                hit: true,
                entry: Some(3),
                action: "fwd".into(),
                data: vec![("port".into(), "0x002".into())],
            },
            Event::Output { port: 2, length: 64 },
        ];
        assert_eq!(
            render_text(&events),
            "ingress: port 1, 64 bytes (normal)\n    table t: key hdr.h.f=0x08 -> hit entry 3 -> fwd (port=0x002)\noutput: port 2, 64 bytes\n"
        );
        assert_eq!(
            render_json(7, 1, &events[2..]),
            r#"{"packet":7,"port":1,"events":[{"event":"output","port":2,"length":64}]}"#
        );
    }
}

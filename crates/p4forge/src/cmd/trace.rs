//! `--trace`, `--trace-json` and `--trace-filter` of `run`, `test` and `switch`: which packets
//! to trace and how to print their traces ([`p4_dataplane::trace`]) on standard error.

use p4_dataplane::trace::{render_json, render_text, Event};

/// The trace options shared by the commands that push packets.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct TraceArgs {
    /// Print what happened to each packet on standard error: parser states, headers extracted,
    /// tables (key, hit or miss, entry, action and data), fields changed (old -> new), extern calls,
    /// the traffic manager's decision, outputs and drops. Software target only.
    #[arg(long)]
    pub trace: bool,
    /// The trace as JSON instead, one object per packet and line (implies --trace).
    #[arg(long)]
    pub trace_json: bool,
    /// Trace only the packets matching FILTER (implies --trace): `port=N`, `packet=N` or
    /// `packet=N..M` (packets counted from 1 in the order they enter), joined with commas; a key
    /// given more than once matches any of its values, and every key given must match. Example:
    /// --trace-filter port=1,port=2,packet=10..20
    #[arg(long, value_name = "FILTER", value_parser = parse_filter)]
    pub trace_filter: Option<TraceFilter>,
}

/// Which packets to trace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceFilter {
    /// The ports traced (empty: all).
    pub ports: Vec<u32>,
    /// Inclusive ranges of packet numbers (from 1) traced (empty: all).
    pub packets: Vec<(u64, u64)>,
}

/// Parses `port=N,packet=N..M`.
pub fn parse_filter(text: &str) -> Result<TraceFilter, String> {
    let mut filter = TraceFilter::default();
    for part in text.split(',').map(str::trim) {
        let (key, value) = part.split_once('=').ok_or_else(|| format!("`{part}` must be written KEY=VALUE (port=N, packet=N or packet=N..M)"))?;
        let number = |v: &str| v.trim().parse::<u64>().map_err(|_| format!("`{v}` in `{part}` is not a number"));
        match key.trim() {
            "port" => filter.ports.push(u32::try_from(number(value)?).map_err(|_| format!("port {value} is too large"))?),
            "packet" => {
                let (first, last) = match value.split_once("..") {
                    Some((a, b)) => (number(a)?, number(b)?),
                    None => (number(value)?, number(value)?),
                };
                if first == 0 || last < first {
                    return Err(format!("`{part}`: packets are counted from 1 and the range must not be empty"));
                }
                filter.packets.push((first, last));
            }
            other => return Err(format!("unknown filter `{other}` (known: port, packet)")),
        }
    }
    Ok(filter)
}

impl TraceArgs {
    /// Whether the dataplane must record traces.
    pub fn enabled(&self) -> bool {
        self.trace || self.trace_json || self.trace_filter.is_some()
    }

    /// Whether packet number `packet` (from 1) arriving on `port` is to be shown.
    pub fn wants(&self, packet: u64, port: u32) -> bool {
        let Some(f) = &self.trace_filter else { return self.enabled() };
        let port_wanted = f.ports.is_empty() || f.ports.contains(&port);
        port_wanted && (f.packets.is_empty() || f.packets.iter().any(|(a, b)| (*a..=*b).contains(&packet)))
    }

    /// Prints the trace of packet number `packet`, if it is wanted.
    pub fn print(&self, packet: u64, port: u32, events: &[Event]) {
        if !self.wants(packet, port) || events.is_empty() {
            return;
        }
        if self.trace_json {
            p4_io::eprintln_safe!("{}", render_json(packet, port, events));
        } else {
            p4_io::eprint_safe!("packet {packet}\n{}", render_text(events));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters() {
        assert_eq!(parse_filter("port=3"), Ok(TraceFilter { ports: vec![3], packets: vec![] }));
        assert_eq!(parse_filter("packet=5"), Ok(TraceFilter { ports: vec![], packets: vec![(5, 5)] }));
        assert_eq!(parse_filter("port=1, packet=2..4"), Ok(TraceFilter { ports: vec![1], packets: vec![(2, 4)] }));
        assert_eq!(parse_filter("packet=0"), Err("`packet=0`: packets are counted from 1 and the range must not be empty".into()));
        assert_eq!(parse_filter("vlan=3"), Err("unknown filter `vlan` (known: port, packet)".into()));
        assert_eq!(parse_filter("port"), Err("`port` must be written KEY=VALUE (port=N, packet=N or packet=N..M)".into()));
        let args = TraceArgs { trace_filter: parse_filter("port=1,packet=2..3").ok(), ..TraceArgs::default() };
        assert!(args.enabled());
        assert!(args.wants(2, 1) && args.wants(3, 1));
        assert!(!args.wants(1, 1) && !args.wants(2, 2) && !args.wants(4, 1));
        assert!(!TraceArgs::default().wants(1, 1));
        // A key given twice: either value; with another key: both keys must match.
        let args = TraceArgs { trace_filter: parse_filter("port=1,port=2,packet=1,packet=5..6").ok(), ..TraceArgs::default() };
        assert!(args.wants(1, 1) && args.wants(5, 2) && args.wants(6, 1));
        assert!(!args.wants(1, 3) && !args.wants(2, 1) && !args.wants(7, 2));
    }
}

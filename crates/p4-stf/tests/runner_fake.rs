//! The STF runner and the command-file applier against a fake dataplane whose behaviour is fully
//! known: table `fwd` maps an ingress port (key `port`) to an egress port (action `send(to)`), and
//! packets are echoed unchanged; with no entry they are dropped. Every control-plane call is
//! recorded, so the tests can check what the runner asked for.

use num_bigint::BigUint;
use p4_control::*;
use p4_stf::commands::{apply_commands, parse_commands};
use p4_stf::{parse_stf, run_stf};
use std::collections::BTreeMap;

#[derive(Default)]
struct FakeSwitch {
    calls: Vec<String>,
    routes: BTreeMap<u32, u32>,
    registers: BTreeMap<(String, u64), BigUint>,
    /// Packets per ingress port, readable as counter `ingress.c`.
    counts: BTreeMap<u64, (u64, u64)>,
    next_node: Handle,
}

fn value(k: &KeyValue) -> u32 {
    match k {
        KeyValue::Value(v) => u32::try_from(v).unwrap_or(u32::MAX),
        _ => u32::MAX,
    }
}

impl ControlPlane for FakeSwitch {
    fn table_add(&mut self, table: &str, keys: Keys, action: &str, args: ActionArgs, priority: Option<i64>) -> Result<Handle, ControlError> {
        self.calls.push(format!("table_add {table} {keys:?} {action} {args:?} {priority:?}"));
        if !"ingress.fwd".ends_with(table) {
            return Err(ControlError::NotFound { kind: "table", name: table.into(), hint: String::new() });
        }
        let port = match &keys {
            Keys::Named(named) => named.first().map(|(_, k)| value(k)),
            Keys::Positional(keys) => keys.first().map(value),
        };
        let to = match &args {
            ActionArgs::Named(named) => named.first().map(|(_, v)| v.clone()),
            ActionArgs::Positional(values) => values.first().cloned(),
        };
        if let (Some(port), Some(to)) = (port, to) {
            self.routes.insert(port, u32::try_from(&to).unwrap_or(0));
        }
        Ok(self.routes.len() as Handle - 1)
    }
    fn table_modify(&mut self, table: &str, handle: Handle, action: &str, args: ActionArgs) -> Result<(), ControlError> {
        self.calls.push(format!("table_modify {table} {handle} {action} {args:?}"));
        Ok(())
    }
    fn table_delete(&mut self, table: &str, handle: Handle) -> Result<(), ControlError> {
        self.calls.push(format!("table_delete {table} {handle}"));
        Ok(())
    }
    fn table_clear(&mut self, table: &str) -> Result<(), ControlError> {
        self.calls.push(format!("table_clear {table}"));
        self.routes.clear();
        Ok(())
    }
    fn table_set_default(&mut self, table: &str, action: &str, args: ActionArgs) -> Result<(), ControlError> {
        self.calls.push(format!("table_set_default {table} {action} {args:?}"));
        Ok(())
    }
    fn mc_mgrp_create(&mut self, group: u32) -> Result<(), ControlError> {
        self.calls.push(format!("mc_mgrp_create {group}"));
        Ok(())
    }
    fn mc_mgrp_destroy(&mut self, group: u32) -> Result<(), ControlError> {
        self.calls.push(format!("mc_mgrp_destroy {group}"));
        Ok(())
    }
    fn mc_node_create(&mut self, rid: u32, ports: &[u32]) -> Result<Handle, ControlError> {
        self.calls.push(format!("mc_node_create {rid} {ports:?}"));
        self.next_node += 1;
        Ok(99 + self.next_node)
    }
    fn mc_node_update(&mut self, node: Handle, ports: &[u32]) -> Result<(), ControlError> {
        self.calls.push(format!("mc_node_update {node} {ports:?}"));
        Ok(())
    }
    fn mc_node_associate(&mut self, group: u32, node: Handle) -> Result<(), ControlError> {
        self.calls.push(format!("mc_node_associate {group} {node}"));
        Ok(())
    }
    fn mc_node_dissociate(&mut self, group: u32, node: Handle) -> Result<(), ControlError> {
        self.calls.push(format!("mc_node_dissociate {group} {node}"));
        Ok(())
    }
    fn mc_node_destroy(&mut self, node: Handle) -> Result<(), ControlError> {
        self.calls.push(format!("mc_node_destroy {node}"));
        Ok(())
    }
    fn mirroring_add(&mut self, session: u32, port: u32) -> Result<(), ControlError> {
        self.calls.push(format!("mirroring_add {session} {port}"));
        Ok(())
    }
    fn mirroring_add_mc(&mut self, session: u32, group: u32) -> Result<(), ControlError> {
        self.calls.push(format!("mirroring_add_mc {session} {group}"));
        Ok(())
    }
    fn mirroring_delete(&mut self, session: u32) -> Result<(), ControlError> {
        self.calls.push(format!("mirroring_delete {session}"));
        Ok(())
    }
    fn register_read(&mut self, register: &str, index: u64) -> Result<BigUint, ControlError> {
        Ok(self.registers.get(&(register.to_string(), index)).cloned().unwrap_or_default())
    }
    fn register_write(&mut self, register: &str, index: u64, value: BigUint) -> Result<(), ControlError> {
        self.registers.insert((register.to_string(), index), value);
        Ok(())
    }
    fn register_reset(&mut self, register: &str) -> Result<(), ControlError> {
        self.registers.retain(|(r, _), _| r != register);
        Ok(())
    }
    fn counter_read(&mut self, counter: &str, index: u64) -> Result<(u64, u64), ControlError> {
        if counter != "ingress.c" {
            return Err(ControlError::NotFound { kind: "counter", name: counter.into(), hint: String::new() });
        }
        Ok(self.counts.get(&index).copied().unwrap_or_default())
    }
    fn counter_write(&mut self, counter: &str, index: u64, packets: u64, bytes: u64) -> Result<(), ControlError> {
        self.calls.push(format!("counter_write {counter} {index} {packets} {bytes}"));
        Ok(())
    }
    fn counter_reset(&mut self, counter: &str) -> Result<(), ControlError> {
        self.calls.push(format!("counter_reset {counter}"));
        Ok(())
    }
    fn meter_set_rates(&mut self, meter: &str, index: Option<u64>, rates: &[MeterRate]) -> Result<(), ControlError> {
        self.calls.push(format!("meter_set_rates {meter} {index:?} {rates:?}"));
        Ok(())
    }
    fn value_set_add(&mut self, value_set: &str, value: KeyValue) -> Result<(), ControlError> {
        self.calls.push(format!("value_set_add {value_set} {value:?}"));
        Ok(())
    }
}

impl PacketIo for FakeSwitch {
    fn inject(&mut self, port: u32, data: &[u8], now_ns: u64) -> Injected {
        self.calls.push(format!("inject {port} {} bytes at {now_ns}", data.len()));
        let count = self.counts.entry(u64::from(port)).or_default();
        count.0 += 1;
        count.1 += data.len() as u64;
        match self.routes.get(&port) {
            Some(&to) => Injected { outputs: vec![OutputPacket { port: to, data: data.to_vec() }], ..Injected::default() },
            None => Injected { drops: vec!["table miss".into()], ..Injected::default() },
        }
    }
}

fn run(text: &str) -> (FakeSwitch, p4_stf::StfReport) {
    let commands = parse_stf(text).expect("test STF parses");
    let mut switch = FakeSwitch::default();
    let report = run_stf(&mut switch, &commands);
    (switch, report)
}

#[test]
fn passing_test_with_wildcards_counters_and_registers() {
    let (switch, report) = run("\
        add fwd 10 port:1 ingress.send(to:2)\n\
        packet 1 0011 2233 4455\n\
        expect 2 00** 22\n\
        packet 1 0011 2233\n\
        expect 2 0011 2233 $\n\
        wait\n\
        packet 3 ffff\n\
        check_counter ingress.c(1) packets == 2\n\
        check_counter ingress.c(1) bytes >= 10\n\
        register_write r 0 7\n\
        register_read r 0 7\n");
    assert_eq!(report.failures, vec![]);
    assert_eq!(report.render().lines().next(), Some("PASS: 3 packets sent, 2 received, 2 expected"));
    assert_eq!(
        switch.calls,
        vec![
            "table_add fwd Named([(\"port\", Value(1))]) ingress.send Named([(\"to\", 2)]) Some(9990)",
            "inject 1 6 bytes at 0",
            "inject 1 4 bytes at 1000",
            "inject 3 2 bytes at 1002000",
        ]
    );
    assert_eq!(
        report.log,
        vec![
            "line 7: dropped: table miss",
            "line 8: ingress.c[1] = 2 packets, 10 bytes",
            "line 9: ingress.c[1] = 2 packets, 10 bytes",
            "line 11: r[0]= 7",
        ]
    );
}

#[test]
fn failing_test_reports_mismatch_missing_and_unexpected_packets() {
    let (_, report) = run("\
        add fwd port:1 send(to:2)\n\
        add fwd port:4 send(to:1)\n\
        packet 1 0011 2233\n\
        expect 2 0011 2299\n\
        expect 2 0011\n\
        packet 4 abcd\n\
        packet 1 00\n\
        expect 2 00$\n\
        check_counter ingress.c(4) packets == 5\n\
        register_read r 3 == 1\n");
    assert!(!report.passed());
    let want = "\
FAIL: 3 packets sent, 3 received, 3 expected
line 9: check failed: ingress.c(4) packets is 1, expected == 5
line 10: check failed: r[3] is 0, expected 1
port 1: unexpected packet #1 (2 bytes): abcd
port 2: packet #1 does not match `expect` at line 4 (first difference at byte 3)
  0000  expected 0011 2299
        got      0011 2233
                        ^^
port 2: packet #2 does not match `expect` at line 5 (got 1 bytes, expected at least 2)
  0000  expected 0011
        got      00
                   ^^
port 2: missing packet #3 expected at line 8: 00$
";
    assert_eq!(report.render(), want);
}

#[test]
fn refused_command_stops_the_run() {
    let (switch, report) = run("packet 1 00\nadd nosuch k:1 a()\npacket 1 00\nexpect 1 00\n");
    assert_eq!(report.render(), "FAIL: 1 packet sent, 0 received, 0 expected\nstopped at line 2; packet expectations were not compared\nline 2: command refused: no table named `nosuch`\n");
    assert_eq!(switch.calls.len(), 2, "nothing runs after the refused line");
}

#[test]
fn bare_expect_accepts_any_packet_and_remove_all_clears_tables() {
    let (switch, report) = run("add fwd port:1 send(to:2) = e\npacket 1 01\nexpect 2\nremove all\npacket 1 02\n");
    assert!(report.passed(), "{}", report.render());
    assert!(switch.calls.contains(&"table_clear fwd".to_string()));
}

#[test]
fn multicast_handles_are_mapped_and_runtime_commands_forwarded() {
    let (switch, report) = run("\
        mc_mgrp_create 1\n\
        mc_node_create 0 1 2\n\
        mc_node_create 5 3\n\
        mc_node_associate 1 1\n\
        mc_node_update 0 4\n\
        mirroring_add 5 7\n\
        mirroring_add_mc 6 1\n\
        mirroring_delete 5\n\
        meter_set_rates m 2 0.5:10 1:20\n\
        meter_array_set_rates m 1:1 2:2\n\
        counter_write c 1 2 3\n\
        setdefault ingress.t drop()\n");
    assert!(report.passed(), "{}", report.render());
    assert_eq!(
        switch.calls,
        vec![
            "mc_mgrp_create 1",
            "mc_node_create 0 [1, 2]",
            "mc_node_create 5 [3]",
            "mc_node_associate 1 101",
            "mc_node_update 100 [4]",
            "mirroring_add 5 7",
            "mirroring_add_mc 6 1",
            "mirroring_delete 5",
            "meter_set_rates m Some(2) [(0.5, 10), (1.0, 20)]",
            "meter_set_rates m None [(1.0, 1), (2.0, 2)]",
            "counter_write c 1 2 3",
            "table_set_default ingress.t drop Named([])",
        ]
    );
}

#[test]
fn command_files_apply_positionally_and_name_the_failing_line() {
    let commands = parse_commands("table_add fwd send 1 => 2\ntable_set_default fwd drop\n\nregister_write r 1 10.0.0.1\nregister_read r 1 167772161\ntable_add nosuch a 1 =>\n").unwrap();
    let mut switch = FakeSwitch::default();
    let error = apply_commands(&mut switch, &commands).unwrap_err();
    assert_eq!(error.to_string(), "line 6: no table named `nosuch`");
    assert_eq!(switch.calls[0], "table_add fwd Positional([Value(1)]) send Positional([2]) None");
    assert_eq!(switch.calls[1], "table_set_default fwd drop Positional([])");

    let commands = parse_commands("register_write r 1 5\nregister_read r 1 6\n").unwrap();
    let error = apply_commands(&mut FakeSwitch::default(), &commands).unwrap_err();
    assert_eq!(error.to_string(), "line 2: check failed: r[1] is 5, expected 6");
}

#[test]
fn meter_get_rates_prints_the_rates_the_file_set() {
    let commands = parse_commands("meter_get_rates m 2\nmeter_array_set_rates m 1:1 2:2\nmeter_set_rates m 2 0.5:10 1:20\nmeter_get_rates m 2\nmeter_get_rates m 3\n").unwrap();
    let output = apply_commands(&mut FakeSwitch::default(), &commands).unwrap();
    assert_eq!(
        output,
        [
            "line 1: m[2]: rates not set",
            "line 4: m[2]: 0: info rate = 0.5, burst size = 10; 1: info rate = 1, burst size = 20",
            "line 5: m[3]: 0: info rate = 1, burst size = 1; 1: info rate = 2, burst size = 2",
        ]
    );
    assert_eq!(parse_commands("meter_get_rates m\n").unwrap_err().to_string(), "line 1: expected `meter_get_rates <meter> <index>`");
}

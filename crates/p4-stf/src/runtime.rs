//! Control-plane commands that STF files and BMv2 command files spell the same way
//! (`mc_*`, `mirroring_*`, `register_*`, `counter_*`, `meter_*`, `pvs_add`), and applying them.
//!
//! Multicast node handles in a file are the numbers BMv2 prints (0, 1, 2... in creation order);
//! [`SessionState`] maps them to whatever the dataplane returned, so a file stays correct even if a
//! dataplane numbers nodes differently.

use crate::usage;
use crate::numbers::{parse_cli_value, parse_meter_rate, parse_u32, parse_u64};
use num_bigint::BigUint;
use p4_control::{ControlError, ControlPlane, Handle, KeyValue, MeterRate};
use std::collections::BTreeMap;

/// A control-plane command shared by both file formats.
#[derive(Clone, Debug, PartialEq)]
pub enum RuntimeCommand {
    McMgrpCreate { group: u32 },
    McMgrpDestroy { group: u32 },
    McNodeCreate { rid: u32, ports: Vec<u32> },
    McNodeUpdate { node: u64, ports: Vec<u32> },
    McNodeAssociate { group: u32, node: u64 },
    McNodeDissociate { group: u32, node: u64 },
    McNodeDestroy { node: u64 },
    MirroringAdd { session: u32, port: u32 },
    MirroringAddMc { session: u32, group: u32 },
    MirroringDelete { session: u32 },
    MirroringGet { session: u32 },
    /// With `expected`, the read value is checked (`register_read r 3 42` or `register_read r 3 == 42`).
    RegisterRead { register: String, index: u64, expected: Option<BigUint> },
    RegisterWrite { register: String, index: u64, value: BigUint },
    RegisterReset { register: String },
    CounterRead { counter: String, index: u64 },
    CounterWrite { counter: String, index: u64, packets: u64, bytes: u64 },
    CounterReset { counter: String },
    /// `index == None`: `meter_array_set_rates` (every cell).
    MeterSetRates { meter: String, index: Option<u64>, rates: Vec<MeterRate> },
    /// `meter_get_rates`: the rates this file set for one cell.
    MeterGetRates { meter: String, index: u64 },
    /// An action profile command (`act_prof_*`, `table_indirect_*`).
    Profile(crate::profiles::ProfileCommand),
    PvsAdd { value_set: String, value: BigUint },
}

/// What applying a command produced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Text for the user (what BMv2's CLI would print), if any.
    pub output: Option<String>,
    /// A written check that did not hold.
    pub check_failure: Option<String>,
}

/// State that lives across the commands of one file (or one run).
#[derive(Clone, Debug, Default)]
pub struct SessionState {
    /// File node handle (creation order) → dataplane handle.
    nodes: Vec<Handle>,
    /// Mirroring sessions as this file configured them, for `mirroring_get`.
    mirroring: BTreeMap<u32, String>,
    /// Meter rates as this file set them, for `meter_get_rates`: by meter, those of every cell
    /// (`meter_array_set_rates`) and of single cells.
    meter_rates: BTreeMap<String, (Option<Vec<MeterRate>>, BTreeMap<u64, Vec<MeterRate>>)>,
    /// Action profile members and groups, and the entries naming them.
    pub profiles: crate::profiles::Profiles,
}

impl SessionState {
    fn node(&self, file_handle: u64) -> Result<Handle, ControlError> {
        usize::try_from(file_handle)
            .ok()
            .and_then(|i| self.nodes.get(i).copied())
            .ok_or_else(|| ControlError::Invalid(format!("no multicast node with handle {file_handle} has been created")))
    }
}

fn expect_args(args: &[&str], min: usize, max: usize, usage: &str) -> Result<(), String> {
    if args.len() < min || args.len() > max {
        Err(format!("expected `{usage}`"))
    } else {
        Ok(())
    }
}

fn ports(args: &[&str]) -> Result<Vec<u32>, String> {
    args.iter().map(|p| parse_u32(p, "port")).collect()
}

impl RuntimeCommand {
    /// Parses `word args...`; `None` if `word` (already lower-case) is not one of these commands.
    pub fn parse(word: &str, args: &[&str]) -> Option<Result<RuntimeCommand, String>> {
        let arg = |i: usize| args.get(i).copied().unwrap_or("");
        let result = (|| -> Result<RuntimeCommand, String> {
            Ok(match word {
                "mc_mgrp_create" => {
                    expect_args(args, 1, 1, usage::of("mc_mgrp_create"))?;
                    RuntimeCommand::McMgrpCreate { group: parse_u32(arg(0), "group")? }
                }
                "mc_mgrp_destroy" => {
                    expect_args(args, 1, 1, usage::of("mc_mgrp_destroy"))?;
                    RuntimeCommand::McMgrpDestroy { group: parse_u32(arg(0), "group")? }
                }
                "mc_node_create" => {
                    expect_args(args, 1, usize::MAX, usage::of("mc_node_create"))?;
                    let (port_args, lags) = match args.iter().position(|a| *a == "|") {
                        Some(bar) => args.split_at(bar),
                        None => (args, &[][..]),
                    };
                    if lags.len() > 1 {
                        return Err("LAG lists are not supported".to_string());
                    }
                    RuntimeCommand::McNodeCreate { rid: parse_u32(arg(0), "rid")?, ports: ports(port_args.get(1..).unwrap_or(&[]))? }
                }
                "mc_node_update" => {
                    expect_args(args, 1, usize::MAX, usage::of("mc_node_update"))?;
                    let port_args: Vec<&str> = args[1..].iter().copied().take_while(|a| *a != "|").collect();
                    RuntimeCommand::McNodeUpdate { node: parse_u64(arg(0), "node handle")?, ports: ports(&port_args)? }
                }
                "mc_node_associate" | "mc_node_dissociate" => {
                    expect_args(args, 2, 2, usage::of(word))?;
                    let group = parse_u32(arg(0), "group")?;
                    let node = parse_u64(arg(1), "node handle")?;
                    if word == "mc_node_associate" {
                        RuntimeCommand::McNodeAssociate { group, node }
                    } else {
                        RuntimeCommand::McNodeDissociate { group, node }
                    }
                }
                "mc_node_destroy" => {
                    expect_args(args, 1, 1, usage::of("mc_node_destroy"))?;
                    RuntimeCommand::McNodeDestroy { node: parse_u64(arg(0), "node handle")? }
                }
                "mirroring_add" => {
                    expect_args(args, 2, 2, usage::of("mirroring_add"))?;
                    RuntimeCommand::MirroringAdd { session: parse_u32(arg(0), "session")?, port: parse_u32(arg(1), "port")? }
                }
                "mirroring_add_mc" => {
                    expect_args(args, 2, 2, usage::of("mirroring_add_mc"))?;
                    RuntimeCommand::MirroringAddMc { session: parse_u32(arg(0), "session")?, group: parse_u32(arg(1), "group")? }
                }
                "mirroring_delete" => {
                    expect_args(args, 1, 1, usage::of("mirroring_delete"))?;
                    RuntimeCommand::MirroringDelete { session: parse_u32(arg(0), "session")? }
                }
                "mirroring_get" => {
                    expect_args(args, 1, 1, usage::of("mirroring_get"))?;
                    RuntimeCommand::MirroringGet { session: parse_u32(arg(0), "session")? }
                }
                "register_read" => {
                    expect_args(args, 2, 4, usage::of("register_read"))?;
                    let expected = match &args[2..] {
                        [] => None,
                        [v] | ["==", v] => Some(parse_cli_value(v)?),
                        _ => return Err(format!("expected `{}`", usage::of("register_read"))),
                    };
                    RuntimeCommand::RegisterRead { register: arg(0).to_string(), index: parse_u64(arg(1), "index")?, expected }
                }
                "register_write" => {
                    expect_args(args, 3, 3, usage::of("register_write"))?;
                    RuntimeCommand::RegisterWrite {
                        register: arg(0).to_string(),
                        index: parse_u64(arg(1), "index")?,
                        value: parse_cli_value(arg(2))?,
                    }
                }
                "register_reset" => {
                    expect_args(args, 1, 1, usage::of("register_reset"))?;
                    RuntimeCommand::RegisterReset { register: arg(0).to_string() }
                }
                "counter_read" => {
                    expect_args(args, 2, 2, usage::of("counter_read"))?;
                    RuntimeCommand::CounterRead { counter: arg(0).to_string(), index: parse_u64(arg(1), "index")? }
                }
                "counter_write" => {
                    expect_args(args, 4, 4, usage::of("counter_write"))?;
                    RuntimeCommand::CounterWrite {
                        counter: arg(0).to_string(),
                        index: parse_u64(arg(1), "index")?,
                        packets: parse_u64(arg(2), "packet count")?,
                        bytes: parse_u64(arg(3), "byte count")?,
                    }
                }
                "counter_reset" => {
                    expect_args(args, 1, 1, usage::of("counter_reset"))?;
                    RuntimeCommand::CounterReset { counter: arg(0).to_string() }
                }
                "meter_set_rates" => {
                    expect_args(args, 3, usize::MAX, usage::of("meter_set_rates"))?;
                    let rates = args[2..].iter().map(|r| parse_meter_rate(r)).collect::<Result<_, _>>()?;
                    RuntimeCommand::MeterSetRates { meter: arg(0).to_string(), index: Some(parse_u64(arg(1), "index")?), rates }
                }
                "meter_array_set_rates" => {
                    expect_args(args, 2, usize::MAX, usage::of("meter_array_set_rates"))?;
                    let rates = args[1..].iter().map(|r| parse_meter_rate(r)).collect::<Result<_, _>>()?;
                    RuntimeCommand::MeterSetRates { meter: arg(0).to_string(), index: None, rates }
                }
                "meter_get_rates" => {
                    expect_args(args, 2, 2, usage::of("meter_get_rates"))?;
                    RuntimeCommand::MeterGetRates { meter: arg(0).to_string(), index: parse_u64(arg(1), "index")? }
                }
                w if w.starts_with("act_prof_") || w.starts_with("table_indirect_") => {
                    return crate::commands::parse_profile_command(w, args).map(RuntimeCommand::Profile);
                }
                "pvs_add" => {
                    expect_args(args, 2, 2, usage::of("pvs_add"))?;
                    RuntimeCommand::PvsAdd { value_set: arg(0).to_string(), value: parse_cli_value(arg(1))? }
                }
                _ => return Err(String::new()),
            })
        })();
        match result {
            Err(e) if e.is_empty() => None,
            other => Some(other),
        }
    }

    /// Applies the command. Control-plane refusals are errors; a failed written check (register
    /// value) is reported in [`Outcome::check_failure`].
    pub fn apply<C: ControlPlane + ?Sized>(&self, cp: &mut C, state: &mut SessionState) -> Result<Outcome, ControlError> {
        let mut outcome = Outcome::default();
        match self {
            RuntimeCommand::McMgrpCreate { group } => cp.mc_mgrp_create(*group)?,
            RuntimeCommand::McMgrpDestroy { group } => cp.mc_mgrp_destroy(*group)?,
            RuntimeCommand::McNodeCreate { rid, ports } => {
                let handle = cp.mc_node_create(*rid, ports)?;
                outcome.output = Some(format!("node was created with handle {}", state.nodes.len()));
                state.nodes.push(handle);
            }
            RuntimeCommand::McNodeUpdate { node, ports } => cp.mc_node_update(state.node(*node)?, ports)?,
            RuntimeCommand::McNodeAssociate { group, node } => cp.mc_node_associate(*group, state.node(*node)?)?,
            RuntimeCommand::McNodeDissociate { group, node } => cp.mc_node_dissociate(*group, state.node(*node)?)?,
            RuntimeCommand::McNodeDestroy { node } => cp.mc_node_destroy(state.node(*node)?)?,
            RuntimeCommand::MirroringAdd { session, port } => {
                cp.mirroring_add(*session, *port)?;
                state.mirroring.insert(*session, format!("port={port}"));
            }
            RuntimeCommand::MirroringAddMc { session, group } => {
                cp.mirroring_add_mc(*session, *group)?;
                state.mirroring.insert(*session, format!("mgid={group}"));
            }
            RuntimeCommand::MirroringDelete { session } => {
                cp.mirroring_delete(*session)?;
                state.mirroring.remove(session);
            }
            RuntimeCommand::MirroringGet { session } => {
                outcome.output = Some(match state.mirroring.get(session) {
                    Some(config) => format!("mirroring session {session}: {config}"),
                    None => format!("mirroring session {session}: not configured"),
                });
            }
            RuntimeCommand::RegisterRead { register, index, expected } => {
                let value = cp.register_read(register, *index)?;
                outcome.output = Some(format!("{register}[{index}]= {value}"));
                if let Some(want) = expected.as_ref().filter(|want| **want != value) {
                    outcome.check_failure = Some(format!("{register}[{index}] is {value}, expected {want}"));
                }
            }
            RuntimeCommand::RegisterWrite { register, index, value } => cp.register_write(register, *index, value.clone())?,
            RuntimeCommand::RegisterReset { register } => cp.register_reset(register)?,
            RuntimeCommand::CounterRead { counter, index } => {
                let (packets, bytes) = cp.counter_read(counter, *index)?;
                outcome.output = Some(format!("{counter}[{index}]= (BYTES {bytes}, PACKETS {packets})"));
            }
            RuntimeCommand::CounterWrite { counter, index, packets, bytes } => cp.counter_write(counter, *index, *packets, *bytes)?,
            RuntimeCommand::CounterReset { counter } => cp.counter_reset(counter)?,
            RuntimeCommand::MeterSetRates { meter, index, rates } => {
                cp.meter_set_rates(meter, *index, rates)?;
                let (all, cells) = state.meter_rates.entry(meter.clone()).or_default();
                match index {
                    Some(i) => {
                        cells.insert(*i, rates.clone());
                    }
                    None => {
                        *all = Some(rates.clone());
                        cells.clear();
                    }
                }
            }
            RuntimeCommand::Profile(command) => outcome.output = state.profiles.apply(cp, command)?,
            RuntimeCommand::MeterGetRates { meter, index } => {
                // The meter and the index are checked where the control plane can say.
                if let Some(catalog) = cp.control_catalog() {
                    catalog.meter_cells(meter)?;
                }
                let set = state.meter_rates.get(meter).and_then(|(all, cells)| cells.get(index).or(all.as_ref()));
                outcome.output = Some(match set {
                    Some(rates) => {
                        let cells: Vec<String> = rates.iter().enumerate().map(|(i, (rate, burst))| format!("{i}: info rate = {rate}, burst size = {burst}")).collect();
                        format!("{meter}[{index}]: {}", cells.join("; "))
                    }
                    None => format!("{meter}[{index}]: rates not set"),
                });
            }
            RuntimeCommand::PvsAdd { value_set, value } => cp.value_set_add(value_set, KeyValue::Value(value.clone()))?,
        }
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Option<Result<RuntimeCommand, String>> {
        let words: Vec<&str> = line.split_whitespace().collect();
        RuntimeCommand::parse(words[0], &words[1..])
    }

    #[test]
    fn parses_each_command() {
        assert_eq!(parse("mc_node_create 5 0 3"), Some(Ok(RuntimeCommand::McNodeCreate { rid: 5, ports: vec![0, 3] })));
        assert_eq!(parse("mc_node_create 5 0 3 |"), Some(Ok(RuntimeCommand::McNodeCreate { rid: 5, ports: vec![0, 3] })));
        assert_eq!(parse("mc_node_associate 1113 1"), Some(Ok(RuntimeCommand::McNodeAssociate { group: 1113, node: 1 })));
        assert_eq!(parse("mirroring_add_mc 5 22"), Some(Ok(RuntimeCommand::MirroringAddMc { session: 5, group: 22 })));
        assert_eq!(
            parse("register_read r 3 == 0x10"),
            Some(Ok(RuntimeCommand::RegisterRead { register: "r".into(), index: 3, expected: Some(BigUint::from(16u8)) }))
        );
        assert_eq!(
            parse("meter_array_set_rates m 0.5:10 1:20"),
            Some(Ok(RuntimeCommand::MeterSetRates { meter: "m".into(), index: None, rates: vec![(0.5, 10), (1.0, 20)] }))
        );
        assert_eq!(
            parse("counter_write c 1 2 3"),
            Some(Ok(RuntimeCommand::CounterWrite { counter: "c".into(), index: 1, packets: 2, bytes: 3 }))
        );
        assert_eq!(parse("table_add t a"), None);
    }

    #[test]
    fn reports_usage_and_bad_numbers() {
        assert_eq!(parse("mirroring_add 5"), Some(Err("expected `mirroring_add <session> <port>`".to_string())));
        assert_eq!(parse("mc_mgrp_create x"), Some(Err("group: `x` is not a valid decimal number".to_string())));
        assert_eq!(parse("mc_node_create 1 2 | 3"), Some(Err("LAG lists are not supported".to_string())));
        assert_eq!(parse("meter_set_rates m 0 5"), Some(Err("meter rate `5` must be written `<rate>:<burst>`".to_string())));
    }
}

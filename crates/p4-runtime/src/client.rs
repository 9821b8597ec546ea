//! A P4Runtime controller as a [`ControlPlane`]: what p4forge's own control programs (the VDP
//! supervisor) call to drive a device they reach over gRPC, the same calls they make on a
//! dataplane in the process.
//!
//! [`Remote::connect`] opens the stream, becomes primary with its election id (the stream stays
//! open for as long as the `Remote` lives, which keeps it primary), and fetches the device's p4info,
//! from which it takes every id, width and match kind. Names are control-plane names, or unique
//! suffixes of them, as on every [`ControlPlane`]; priorities follow that trait's convention (a
//! smaller number wins) and become P4Runtime's (a larger one wins) as `i32::MAX - priority`, the
//! mapping p4forge's server inverts. P4Runtime names an entry by its match and priority, not a
//! handle: the handles this side gives out stand for those.
//!
//! Tables, default actions, counters, meters and registers go through; multicast, clone sessions
//! and value sets are refused with a message saying so (a controller writes those as P4Runtime
//! entities of its own).

use std::collections::HashMap;

use num_bigint::BigUint;
use num_traits::{One, Zero};
use p4_control::{ActionArgs, ControlError, ControlPlane, Handle, KeyValue, Keys, MeterRate};
use prost::Message;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::transport::Channel;

use crate::proto::google::rpc;
use crate::proto::p4::config::v1 as cfg;
use crate::proto::p4::v1 as p4v1;
use p4v1::entity::Entity;
use p4v1::p4_runtime_client::P4RuntimeClient;
use p4v1::update::Type as UpdateType;

/// How long a call may take before the controller gives up on the device.
const CALL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// A primary controller of one device.
pub struct Remote {
    rt: tokio::runtime::Runtime,
    grpc: P4RuntimeClient<Channel>,
    /// Kept open: closing the stream ends the mastership.
    _stream: (mpsc::Sender<p4v1::StreamMessageRequest>, tonic::Streaming<p4v1::StreamMessageResponse>),
    device_id: u64,
    election_id: p4v1::Uint128,
    p4info: cfg::P4Info,
    /// The entries added through this controller: handle → the entry's identity (table, match,
    /// priority).
    entries: HashMap<Handle, p4v1::TableEntry>,
    next_handle: Handle,
}

fn invalid(message: impl Into<String>) -> ControlError {
    ControlError::Invalid(message.into())
}

/// A failed call in words: each refused update's reason when the server gave them, else the
/// status.
pub fn describe(status: &tonic::Status) -> String {
    let refused: Vec<(usize, String)> = rpc::Status::decode(status.details())
        .map(|d| d.details.iter().filter_map(|any| p4v1::Error::decode(any.value.as_slice()).ok()).map(|e| (e.canonical_code, e.message)).enumerate().filter(|(_, (code, _))| *code != 0).map(|(i, (_, m))| (i + 1, m)).collect())
        .unwrap_or_default();
    match refused.as_slice() {
        // What tonic reports when the connection broke (the server went away).
        [] if status.message().contains("transport error") => format!("the connection to the server is lost ({})", status.message()),
        [] => format!("{} ({:?})", status.message(), status.code()),
        [(_, message)] => message.clone(),
        many => many.iter().map(|(i, m)| format!("update {i}: {m}")).collect::<Vec<_>>().join("; "),
    }
}

impl Remote {
    /// Connects to `addr` (`host:port`, or an `http://` URL) and becomes device `device_id`'s
    /// primary controller with `election_id`; `Err` says why not (nothing listening, another
    /// controller primary with a higher id, no pipeline on the device).
    pub fn connect(addr: &str, device_id: u64, election_id: u64) -> Result<Remote, String> {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| format!("a runtime for the P4Runtime client: {e}"))?;
        let url = if addr.contains("://") { addr.to_string() } else { format!("http://{addr}") };
        let endpoint = Channel::from_shared(url.clone()).map_err(|e| format!("{addr}: not an address ({e})"))?.connect_timeout(CALL_TIMEOUT).timeout(CALL_TIMEOUT);
        let channel = rt.block_on(endpoint.connect()).map_err(|e| format!("{addr}: cannot connect to a P4Runtime server ({e})"))?;
        let mut grpc = P4RuntimeClient::new(channel).max_decoding_message_size(256 << 20);
        let election = p4v1::Uint128 { high: 0, low: election_id };

        let (tx, rx) = mpsc::channel(4);
        let update = p4v1::MasterArbitrationUpdate { device_id, election_id: Some(election), ..Default::default() };
        let first = p4v1::StreamMessageRequest { update: Some(p4v1::stream_message_request::Update::Arbitration(update)) };
        tx.try_send(first).map_err(|_| "the stream's queue is full before its first message".to_string())?;
        let mut responses = rt.block_on(grpc.stream_channel(ReceiverStream::new(rx))).map_err(|e| format!("{addr}: the stream: {}", describe(&e)))?.into_inner();
        let answer = rt.block_on(async { tokio::time::timeout(CALL_TIMEOUT, responses.message()).await });
        let arbitration = match answer {
            Err(_) => return Err(format!("{addr}: no answer to the arbitration in {} s", CALL_TIMEOUT.as_secs())),
            Ok(Err(e)) => return Err(format!("{addr}: arbitration refused: {}", describe(&e))),
            Ok(Ok(None)) => return Err(format!("{addr}: the server closed the stream")),
            Ok(Ok(Some(p4v1::StreamMessageResponse { update: Some(p4v1::stream_message_response::Update::Arbitration(a)), .. }))) => a,
            Ok(Ok(Some(other))) => return Err(format!("{addr}: expected the arbitration's answer, got {other:?}")),
        };
        let status = arbitration.status.unwrap_or_default();
        if status.code != 0 {
            let primary = arbitration.election_id.map_or(0, |e| e.low);
            return Err(format!("{addr}: device {device_id} has another primary controller (election id {primary}; ours {election_id}): {}", status.message));
        }

        use p4v1::get_forwarding_pipeline_config_request::ResponseType;
        let request = p4v1::GetForwardingPipelineConfigRequest { device_id, response_type: ResponseType::P4infoAndCookie as i32 };
        let config = rt.block_on(grpc.get_forwarding_pipeline_config(request)).map_err(|e| format!("{addr}: the pipeline: {}", describe(&e)))?.into_inner();
        let p4info = config.config.and_then(|c| c.p4info).filter(|i| !i.tables.is_empty() || !i.actions.is_empty());
        let p4info = p4info.ok_or_else(|| format!("{addr}: device {device_id} has no pipeline (push one, or start the switch with its program)"))?;
        Ok(Remote { rt, grpc, _stream: (tx, responses), device_id, election_id: election, p4info, entries: HashMap::new(), next_handle: 0 })
    }

    /// The device's p4info.
    pub fn p4info(&self) -> &cfg::P4Info {
        &self.p4info
    }

    /// How many entries table `table` holds on the device (its default entry not counted).
    pub fn entry_count(&mut self, table: &str) -> Result<usize, ControlError> {
        let table_id = self.table(table)?.preamble.as_ref().map_or(0, |p| p.id);
        let found = self.read(vec![Entity::TableEntry(p4v1::TableEntry { table_id, ..Default::default() })])?;
        Ok(found.iter().filter(|e| matches!(e, Entity::TableEntry(t) if !t.is_default_action && t.table_id == table_id)).count())
    }

    /// Writes `updates` in one request.
    pub fn write(&mut self, updates: Vec<(UpdateType, Entity)>) -> Result<(), ControlError> {
        let updates = updates.into_iter().map(|(t, e)| p4v1::Update { r#type: t as i32, entity: Some(p4v1::Entity { entity: Some(e) }) }).collect();
        let request = p4v1::WriteRequest { device_id: self.device_id, election_id: Some(self.election_id), updates, ..Default::default() };
        self.rt.block_on(self.grpc.write(request)).map(|_| ()).map_err(|e| invalid(describe(&e)))
    }

    /// Reads what `entities` select.
    pub fn read(&mut self, entities: Vec<Entity>) -> Result<Vec<Entity>, ControlError> {
        let entities = entities.into_iter().map(|e| p4v1::Entity { entity: Some(e) }).collect();
        let request = p4v1::ReadRequest { device_id: self.device_id, entities, ..Default::default() };
        let rt = &self.rt;
        let grpc = &mut self.grpc;
        rt.block_on(async {
            let mut stream = grpc.read(request).await.map_err(|e| invalid(describe(&e)))?.into_inner();
            let mut out = Vec::new();
            while let Some(response) = stream.message().await.map_err(|e| invalid(describe(&e)))? {
                out.extend(response.entities.into_iter().filter_map(|e| e.entity));
            }
            Ok(out)
        })
    }

    fn table(&self, name: &str) -> Result<&cfg::Table, ControlError> {
        find(name, "table", self.p4info.tables.iter(), |t| t.preamble.as_ref())
    }

    fn action(&self, name: &str) -> Result<&cfg::Action, ControlError> {
        find(name, "action", self.p4info.actions.iter(), |a| a.preamble.as_ref())
    }

    fn counter(&self, name: &str) -> Result<&cfg::Counter, ControlError> {
        find(name, "counter", self.p4info.counters.iter(), |c| c.preamble.as_ref())
    }

    fn meter(&self, name: &str) -> Result<&cfg::Meter, ControlError> {
        find(name, "meter", self.p4info.meters.iter(), |m| m.preamble.as_ref())
    }

    fn register(&self, name: &str) -> Result<&cfg::Register, ControlError> {
        find(name, "register", self.p4info.registers.iter(), |r| r.preamble.as_ref())
    }

    /// `action` with `args` as a table action of `table`.
    fn table_action(&self, table: &cfg::Table, action: &str, args: ActionArgs) -> Result<p4v1::TableAction, ControlError> {
        let a = self.action(action)?;
        let pre = a.preamble.as_ref().expect("found by its preamble");
        if !table.action_refs.iter().any(|r| r.id == pre.id) {
            return Err(invalid(format!("table {} has no action {}", preamble_name(table.preamble.as_ref()), pre.name)));
        }
        let values: Vec<BigUint> = match args {
            ActionArgs::Positional(v) => {
                if v.len() != a.params.len() {
                    return Err(invalid(format!("action {} takes {} arguments, not {}", pre.name, a.params.len(), v.len())));
                }
                v
            }
            ActionArgs::Named(named) => {
                let mut values = Vec::new();
                for p in &a.params {
                    let v = named.iter().find(|(n, _)| *n == p.name).map(|(_, v)| v.clone());
                    values.push(v.ok_or_else(|| invalid(format!("action {}: argument {} is missing", pre.name, p.name)))?);
                }
                if named.len() != a.params.len() {
                    return Err(invalid(format!("action {} takes the arguments {}", pre.name, a.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", "))));
                }
                values
            }
        };
        let mut params = Vec::new();
        for (p, v) in a.params.iter().zip(values) {
            params.push(p4v1::action::Param { param_id: p.id, value: fitting(&v, p.bitwidth, || format!("action {} argument {}", pre.name, p.name))? });
        }
        Ok(p4v1::TableAction { r#type: Some(p4v1::table_action::Type::Action(p4v1::Action { action_id: pre.id, params })) })
    }
}

/// The element of `items` named `name` or by a unique suffix of its name (or its alias).
fn find<'a, T>(name: &str, kind: &'static str, items: impl Iterator<Item = &'a T> + Clone, preamble: impl Fn(&T) -> Option<&cfg::Preamble>) -> Result<&'a T, ControlError> {
    let named = |t: &&T| preamble(t).is_some_and(|p| p.name == name || p.alias == name);
    if let Some(t) = items.clone().find(named) {
        return Ok(t);
    }
    let suffix = format!(".{name}");
    let matches: Vec<&T> = items.filter(|t| preamble(t).is_some_and(|p| p.name.ends_with(&suffix))).collect();
    match matches.as_slice() {
        [one] => Ok(one),
        [] => Err(ControlError::NotFound { kind, name: name.to_string(), hint: " in the device's p4info".to_string() }),
        many => Err(ControlError::Ambiguous { name: name.to_string(), candidates: many.iter().map(|t| preamble_name(preamble(t))).collect::<Vec<_>>().join(", ") }),
    }
}

fn preamble_name(p: Option<&cfg::Preamble>) -> String {
    p.map_or_else(String::new, |p| p.name.clone())
}

/// `v` as canonical bytes, `Err` when it does not fit `width` bits.
fn fitting(v: &BigUint, width: i32, what: impl Fn() -> String) -> Result<Vec<u8>, ControlError> {
    if v.bits() > width.max(0) as u64 {
        return Err(invalid(format!("{}: {v:#x} does not fit {width} bits", what())));
    }
    Ok(v.to_bytes_be())
}

fn all_ones(width: i32) -> BigUint {
    (BigUint::one() << width.max(0) as usize) - BigUint::one()
}

/// The leading ones of `mask` if it is a prefix mask of `width` bits.
fn prefix_len(mask: &BigUint, width: i32) -> Option<i32> {
    let len = (0..=width).rev().find(|&l| *mask == all_ones(width) ^ all_ones(width - l))?;
    Some(len)
}

/// `key` as the field match of `field` (`None`: a don't-care, which P4Runtime leaves out).
fn field_match(field: &cfg::MatchField, key: &KeyValue) -> Result<Option<p4v1::FieldMatch>, ControlError> {
    use cfg::match_field::{Match, MatchType};
    use p4v1::field_match::{Exact, FieldMatchType as F, Lpm, Optional, Range, Ternary};
    let w = field.bitwidth;
    let what = || format!("key {}", field.name);
    let value = |v: &BigUint| fitting(v, w, what);
    let kind = match field.r#match {
        Some(Match::MatchType(t)) => MatchType::try_from(t).unwrap_or(MatchType::Unspecified),
        _ => MatchType::Unspecified,
    };
    let full = all_ones(w);
    let m = match (kind, key) {
        (MatchType::Exact, KeyValue::Value(v)) => F::Exact(Exact { value: value(v)? }),
        (MatchType::Ternary, KeyValue::Wildcard) | (MatchType::Optional, KeyValue::Wildcard) | (MatchType::Lpm, KeyValue::Wildcard) | (MatchType::Range, KeyValue::Wildcard) => return Ok(None),
        (MatchType::Ternary, KeyValue::Value(v)) => F::Ternary(Ternary { value: value(v)?, mask: full.to_bytes_be() }),
        (MatchType::Ternary, KeyValue::Masked(v, mask)) if mask.is_zero() => {
            let _ = value(v)?;
            return Ok(None);
        }
        (MatchType::Ternary, KeyValue::Masked(v, mask)) => F::Ternary(Ternary { value: value(&(v & mask))?, mask: value(mask)? }),
        (MatchType::Ternary, KeyValue::Prefix(v, len)) | (MatchType::Lpm, KeyValue::Prefix(v, len)) => {
            let len = i32::try_from(*len).ok().filter(|l| *l <= w).ok_or_else(|| invalid(format!("{}: prefix length {len} is longer than its {w} bits", what())))?;
            if len == 0 {
                return Ok(None);
            }
            let mask = full.clone() ^ all_ones(w - len);
            if kind == MatchType::Lpm {
                F::Lpm(Lpm { value: value(&(v & &mask))?, prefix_len: len })
            } else {
                F::Ternary(Ternary { value: value(&(v & &mask))?, mask: mask.to_bytes_be() })
            }
        }
        (MatchType::Lpm, KeyValue::Value(v)) => F::Lpm(Lpm { value: value(v)?, prefix_len: w }),
        (MatchType::Lpm, KeyValue::Masked(v, mask)) => {
            let len = prefix_len(mask, w).ok_or_else(|| invalid(format!("{}: {mask:#x} is not a prefix mask", what())))?;
            if len == 0 {
                return Ok(None);
            }
            F::Lpm(Lpm { value: value(&(v & mask))?, prefix_len: len })
        }
        (MatchType::Range, KeyValue::Value(v)) => F::Range(Range { low: value(v)?, high: value(v)? }),
        (MatchType::Range, KeyValue::Range(lo, hi)) if lo.is_zero() && *hi == full => return Ok(None),
        (MatchType::Range, KeyValue::Range(lo, hi)) => F::Range(Range { low: value(lo)?, high: value(hi)? }),
        (MatchType::Optional, KeyValue::Value(v)) => F::Optional(Optional { value: value(v)? }),
        (MatchType::Optional, KeyValue::Masked(v, mask)) if *mask == full => F::Optional(Optional { value: value(v)? }),
        (MatchType::Optional, KeyValue::Masked(_, mask)) if mask.is_zero() => return Ok(None),
        (kind, key) => return Err(invalid(format!("{}: a {} key cannot take {key:?}", what(), kind.as_str_name().to_lowercase()))),
    };
    Ok(Some(p4v1::FieldMatch { field_id: field.id, field_match_type: Some(m) }))
}

impl Remote {
    /// The identity of an entry of `table` (its match and priority).
    fn identity(&self, table: &cfg::Table, keys: Keys, priority: Option<i64>) -> Result<p4v1::TableEntry, ControlError> {
        let name = preamble_name(table.preamble.as_ref());
        let values: Vec<KeyValue> = match keys {
            Keys::Positional(v) => {
                if v.len() != table.match_fields.len() {
                    return Err(invalid(format!("table {name} has {} key fields, not {}", table.match_fields.len(), v.len())));
                }
                v
            }
            Keys::Named(named) => table
                .match_fields
                .iter()
                .map(|f| named.iter().find(|(n, _)| *n == f.name || f.name.ends_with(&format!(".{n}"))).map_or(KeyValue::Wildcard, |(_, v)| v.clone()))
                .collect(),
        };
        let mut r#match = Vec::new();
        for (f, v) in table.match_fields.iter().zip(&values) {
            r#match.extend(field_match(f, v)?);
        }
        let needs_priority = table.match_fields.iter().any(|f| {
            use cfg::match_field::{Match, MatchType};
            matches!(f.r#match, Some(Match::MatchType(t)) if [MatchType::Ternary as i32, MatchType::Range as i32, MatchType::Optional as i32].contains(&t))
        });
        let priority = match (needs_priority, priority) {
            (true, Some(p)) if (0..i64::from(i32::MAX)).contains(&p) => (i64::from(i32::MAX) - p) as i32,
            (true, Some(p)) => return Err(invalid(format!("table {name}: priority {p} is outside 0..{}", i32::MAX - 1))),
            (true, None) => return Err(ControlError::MissingPriority { table: name, kind: "ternary".to_string() }),
            (false, _) => 0,
        };
        let table_id = table.preamble.as_ref().map_or(0, |p| p.id);
        Ok(p4v1::TableEntry { table_id, r#match, priority, ..Default::default() })
    }

    fn entry(&self, table: &str, handle: Handle) -> Result<p4v1::TableEntry, ControlError> {
        let t = self.table(table)?;
        let id = t.preamble.as_ref().map_or(0, |p| p.id);
        self.entries.get(&handle).filter(|e| e.table_id == id).cloned().ok_or_else(|| invalid(format!("table {table} has no entry {handle} added through this controller")))
    }

    /// Every index of a counter, meter or register of `size` cells when `index` is `None`.
    fn indices(size: i64, index: Option<u64>) -> Vec<i64> {
        match index {
            Some(i) => vec![i as i64],
            None => (0..size).collect(),
        }
    }
}

/// A register cell's value as P4Data.
fn bitstring(bytes: Vec<u8>) -> p4v1::P4Data {
    p4v1::P4Data { data: Some(p4v1::p4_data::Data::Bitstring(bytes)) }
}

impl ControlPlane for Remote {
    fn table_add(&mut self, table: &str, keys: Keys, action: &str, args: ActionArgs, priority: Option<i64>) -> Result<Handle, ControlError> {
        let t = self.table(table)?;
        let mut entry = self.identity(t, keys, priority)?;
        entry.action = Some(self.table_action(t, action, args)?);
        self.write(vec![(UpdateType::Insert, Entity::TableEntry(entry.clone()))])?;
        let handle = self.next_handle;
        self.next_handle += 1;
        entry.action = None;
        self.entries.insert(handle, entry);
        Ok(handle)
    }

    fn table_modify(&mut self, table: &str, handle: Handle, action: &str, args: ActionArgs) -> Result<(), ControlError> {
        let mut entry = self.entry(table, handle)?;
        entry.action = Some(self.table_action(self.table(table)?, action, args)?);
        self.write(vec![(UpdateType::Modify, Entity::TableEntry(entry))])
    }

    fn table_delete(&mut self, table: &str, handle: Handle) -> Result<(), ControlError> {
        let entry = self.entry(table, handle)?;
        self.write(vec![(UpdateType::Delete, Entity::TableEntry(entry))])?;
        self.entries.remove(&handle);
        Ok(())
    }

    fn table_clear(&mut self, table: &str) -> Result<(), ControlError> {
        let table_id = self.table(table)?.preamble.as_ref().map_or(0, |p| p.id);
        let found = self.read(vec![Entity::TableEntry(p4v1::TableEntry { table_id, ..Default::default() })])?;
        let deletes: Vec<_> = found
            .into_iter()
            .filter_map(|e| match e {
                Entity::TableEntry(e) if !e.is_default_action && e.table_id == table_id => {
                    Some((UpdateType::Delete, Entity::TableEntry(p4v1::TableEntry { table_id, r#match: e.r#match, priority: e.priority, ..Default::default() })))
                }
                _ => None,
            })
            .collect();
        if !deletes.is_empty() {
            self.write(deletes)?;
        }
        self.entries.retain(|_, e| e.table_id != table_id);
        Ok(())
    }

    fn table_set_default(&mut self, table: &str, action: &str, args: ActionArgs) -> Result<(), ControlError> {
        let t = self.table(table)?;
        let table_id = t.preamble.as_ref().map_or(0, |p| p.id);
        let entry = p4v1::TableEntry { table_id, is_default_action: true, action: Some(self.table_action(t, action, args)?), ..Default::default() };
        self.write(vec![(UpdateType::Modify, Entity::TableEntry(entry))])
    }

    fn mc_mgrp_create(&mut self, group: u32) -> Result<(), ControlError> {
        Err(invalid(format!("multicast group {group}: write it as a P4Runtime multicast group entry")))
    }
    fn mc_mgrp_destroy(&mut self, group: u32) -> Result<(), ControlError> {
        self.mc_mgrp_create(group)
    }
    fn mc_node_create(&mut self, rid: u32, _: &[u32]) -> Result<Handle, ControlError> {
        Err(invalid(format!("multicast node of rid {rid}: P4Runtime has no nodes; write a multicast group entry")))
    }
    fn mc_node_update(&mut self, node: Handle, _: &[u32]) -> Result<(), ControlError> {
        self.mc_node_destroy(node)
    }
    fn mc_node_associate(&mut self, _: u32, node: Handle) -> Result<(), ControlError> {
        self.mc_node_destroy(node)
    }
    fn mc_node_dissociate(&mut self, _: u32, node: Handle) -> Result<(), ControlError> {
        self.mc_node_destroy(node)
    }
    fn mc_node_destroy(&mut self, node: Handle) -> Result<(), ControlError> {
        Err(invalid(format!("multicast node {node}: P4Runtime has no nodes; write a multicast group entry")))
    }
    fn mirroring_add(&mut self, session: u32, _: u32) -> Result<(), ControlError> {
        self.mirroring_delete(session)
    }
    fn mirroring_add_mc(&mut self, session: u32, _: u32) -> Result<(), ControlError> {
        self.mirroring_delete(session)
    }
    fn mirroring_delete(&mut self, session: u32) -> Result<(), ControlError> {
        Err(invalid(format!("clone session {session}: write it as a P4Runtime clone session entry")))
    }

    fn register_read(&mut self, register: &str, index: u64) -> Result<BigUint, ControlError> {
        let register_id = self.register(register)?.preamble.as_ref().map_or(0, |p| p.id);
        let cell = p4v1::RegisterEntry { register_id, index: Some(p4v1::Index { index: index as i64 }), data: None };
        let found = self.read(vec![Entity::RegisterEntry(cell)])?;
        match found.into_iter().next() {
            Some(Entity::RegisterEntry(p4v1::RegisterEntry { data: Some(p4v1::P4Data { data: Some(p4v1::p4_data::Data::Bitstring(b)) }), .. })) => Ok(BigUint::from_bytes_be(&b)),
            other => Err(invalid(format!("register {register}[{index}]: the device answered {other:?}"))),
        }
    }

    fn register_write(&mut self, register: &str, index: u64, value: BigUint) -> Result<(), ControlError> {
        let r = self.register(register)?;
        let register_id = r.preamble.as_ref().map_or(0, |p| p.id);
        let width = r.type_spec.as_ref().and_then(|t| match &t.type_spec {
            Some(cfg::p4_data_type_spec::TypeSpec::Bitstring(b)) => match &b.type_spec {
                Some(cfg::p4_bitstring_like_type_spec::TypeSpec::Bit(b)) => Some(b.bitwidth),
                _ => None,
            },
            _ => None,
        });
        let bytes = fitting(&value, width.unwrap_or(i32::MAX), || format!("register {register}[{index}]"))?;
        let cell = p4v1::RegisterEntry { register_id, index: Some(p4v1::Index { index: index as i64 }), data: Some(bitstring(bytes)) };
        self.write(vec![(UpdateType::Modify, Entity::RegisterEntry(cell))])
    }

    fn register_reset(&mut self, register: &str) -> Result<(), ControlError> {
        // Every cell in one write, as counter_reset does, not a round trip per cell.
        let r = self.register(register)?;
        let register_id = r.preamble.as_ref().map_or(0, |p| p.id);
        let zero = |i: i64| (UpdateType::Modify, Entity::RegisterEntry(p4v1::RegisterEntry { register_id, index: Some(p4v1::Index { index: i }), data: Some(bitstring(vec![0])) }));
        let updates: Vec<_> = Self::indices(r.size.into(), None).into_iter().map(zero).collect();
        self.write(updates)
    }

    fn counter_read(&mut self, counter: &str, index: u64) -> Result<(u64, u64), ControlError> {
        let counter_id = self.counter(counter)?.preamble.as_ref().map_or(0, |p| p.id);
        let cell = p4v1::CounterEntry { counter_id, index: Some(p4v1::Index { index: index as i64 }), data: None };
        let found = self.read(vec![Entity::CounterEntry(cell)])?;
        match found.into_iter().next() {
            Some(Entity::CounterEntry(p4v1::CounterEntry { data, .. })) => {
                let d = data.unwrap_or_default();
                Ok((d.packet_count as u64, d.byte_count as u64))
            }
            other => Err(invalid(format!("counter {counter}[{index}]: the device answered {other:?}"))),
        }
    }

    fn counter_write(&mut self, counter: &str, index: u64, packets: u64, bytes: u64) -> Result<(), ControlError> {
        let counter_id = self.counter(counter)?.preamble.as_ref().map_or(0, |p| p.id);
        let data = p4v1::CounterData { packet_count: packets as i64, byte_count: bytes as i64 };
        let cell = p4v1::CounterEntry { counter_id, index: Some(p4v1::Index { index: index as i64 }), data: Some(data) };
        self.write(vec![(UpdateType::Modify, Entity::CounterEntry(cell))])
    }

    fn counter_reset(&mut self, counter: &str) -> Result<(), ControlError> {
        let c = self.counter(counter)?;
        let counter_id = c.preamble.as_ref().map_or(0, |p| p.id);
        let zero = |i: i64| (UpdateType::Modify, Entity::CounterEntry(p4v1::CounterEntry { counter_id, index: Some(p4v1::Index { index: i }), data: Some(Default::default()) }));
        let updates: Vec<_> = Self::indices(c.size, None).into_iter().map(zero).collect();
        self.write(updates)
    }

    fn meter_set_rates(&mut self, meter: &str, index: Option<u64>, rates: &[MeterRate]) -> Result<(), ControlError> {
        let m = self.meter(meter)?;
        let meter_id = m.preamble.as_ref().map_or(0, |p| p.id);
        let [(cir, cburst), (pir, pburst)] = rates else {
            return Err(invalid(format!("meter {meter}: two rates (committed, peak), not {}", rates.len())));
        };
        // The trait's rates are per microsecond, P4Runtime's per second.
        let config = p4v1::MeterConfig { cir: (cir * 1e6).round() as i64, cburst: i64::from(*cburst), pir: (pir * 1e6).round() as i64, pburst: i64::from(*pburst), ..Default::default() };
        let cell = |i: i64| (UpdateType::Modify, Entity::MeterEntry(p4v1::MeterEntry { meter_id, index: Some(p4v1::Index { index: i }), config: Some(config), ..Default::default() }));
        let updates: Vec<_> = Self::indices(m.size, index).into_iter().map(cell).collect();
        self.write(updates)
    }

    fn value_set_add(&mut self, value_set: &str, _: KeyValue) -> Result<(), ControlError> {
        Err(invalid(format!("value set {value_set}: write its members as a P4Runtime value set entry")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cfg::match_field::{Match, MatchType};
    use p4v1::field_match::{Exact, FieldMatchType as F, Lpm, Range, Ternary};

    fn field(kind: MatchType, width: i32) -> cfg::MatchField {
        cfg::MatchField { id: 3, name: "hdr.f".to_string(), bitwidth: width, r#match: Some(Match::MatchType(kind as i32)), ..Default::default() }
    }

    fn matched(kind: MatchType, width: i32, key: KeyValue) -> Result<Option<F>, String> {
        field_match(&field(kind, width), &key).map(|m| m.map(|m| m.field_match_type.unwrap())).map_err(|e| e.to_string())
    }

    fn n(v: u64) -> BigUint {
        BigUint::from(v)
    }

    #[test]
    fn keys_become_canonical_field_matches_and_dont_cares_are_left_out() {
        assert_eq!(matched(MatchType::Exact, 16, KeyValue::Value(n(0x12))), Ok(Some(F::Exact(Exact { value: vec![0x12] }))));
        assert_eq!(matched(MatchType::Exact, 16, KeyValue::Value(n(0))), Ok(Some(F::Exact(Exact { value: vec![0] }))));
        assert_eq!(matched(MatchType::Exact, 8, KeyValue::Value(n(0x100))), Err("key hdr.f: 0x100 does not fit 8 bits".to_string()));
        // Ternary: the value is masked, an all-zero mask is a don't-care.
        assert_eq!(matched(MatchType::Ternary, 16, KeyValue::Masked(n(0x1234), n(0xff00))), Ok(Some(F::Ternary(Ternary { value: vec![0x12, 0], mask: vec![0xff, 0] }))));
        assert_eq!(matched(MatchType::Ternary, 16, KeyValue::Masked(n(0x1234), n(0))), Ok(None));
        assert_eq!(matched(MatchType::Ternary, 12, KeyValue::Value(n(7))), Ok(Some(F::Ternary(Ternary { value: vec![7], mask: vec![0x0f, 0xff] }))));
        // LPM from a prefix or a prefix mask; length 0 is a don't-care.
        assert_eq!(matched(MatchType::Lpm, 32, KeyValue::Prefix(n(0x0a01_0203), 16)), Ok(Some(F::Lpm(Lpm { value: vec![0x0a, 0x01, 0, 0], prefix_len: 16 }))));
        assert_eq!(matched(MatchType::Lpm, 32, KeyValue::Masked(n(0x0a01_0203), n(0xff00_0000))), Ok(Some(F::Lpm(Lpm { value: vec![0x0a, 0, 0, 0], prefix_len: 8 }))));
        assert_eq!(matched(MatchType::Lpm, 32, KeyValue::Masked(n(1), n(0xff00_ff00))), Err("key hdr.f: 0xff00ff00 is not a prefix mask".to_string()));
        assert_eq!(matched(MatchType::Lpm, 32, KeyValue::Prefix(n(1), 0)), Ok(None));
        // Range: the whole range is a don't-care.
        assert_eq!(matched(MatchType::Range, 8, KeyValue::Range(n(0), n(0xff))), Ok(None));
        assert_eq!(matched(MatchType::Range, 8, KeyValue::Range(n(2), n(9))), Ok(Some(F::Range(Range { low: vec![2], high: vec![9] }))));
        assert_eq!(matched(MatchType::Exact, 8, KeyValue::Wildcard), Err("key hdr.f: a exact key cannot take Wildcard".to_string()));
    }

    #[test]
    fn a_refused_write_is_told_by_its_updates_reasons() {
        let error = |m: &str| prost_types::Any { type_url: "type.googleapis.com/p4.v1.Error".to_string(), value: p4v1::Error { canonical_code: 3, message: m.to_string(), ..Default::default() }.encode_to_vec() };
        let ok = prost_types::Any { type_url: "type.googleapis.com/p4.v1.Error".to_string(), value: p4v1::Error::default().encode_to_vec() };
        let details = |d: Vec<prost_types::Any>| rpc::Status { code: 2, message: "x".to_string(), details: d }.encode_to_vec().into();
        let status = |d: Vec<prost_types::Any>| tonic::Status::with_details(tonic::Code::Unknown, "a write failed", details(d));
        assert_eq!(describe(&status(vec![ok.clone(), error("no such table")])), "no such table");
        assert_eq!(describe(&status(vec![error("a"), ok, error("b")])), "update 1: a; update 3: b");
        assert_eq!(describe(&tonic::Status::unavailable("gone")), "gone (Unavailable)");
        assert_eq!(describe(&tonic::Status::unknown("transport error")), "the connection to the server is lost (transport error)");
    }
}

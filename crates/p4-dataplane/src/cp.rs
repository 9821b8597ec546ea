//! The control-plane API ([`ControlPlane`]) of [`Switch`]: name resolution, key and argument
//! conversion according to each key's match kind and width, and the mutable state it edits.

use num_bigint::BigUint;
use num_traits::ToPrimitive;

use crate::bits::mask;
use crate::control::{ActionArgs, ControlError, ControlPlane, Handle, KeyValue, Keys, MeterRate, PacketIo};
use crate::exec::{ExternState, TableProg};
use crate::switch::{Mirror, Switch};
use crate::table::{prefix_len, prefix_mask, Entry, Match};
use crate::DataplaneError;
use p4_ir::layout::{self, KeyLayout, NameError, ObjectKind};
use p4_ir::MatchKind;

fn invalid<T>(msg: impl Into<String>) -> Result<T, ControlError> {
    Err(ControlError::Invalid(msg.into()))
}

/// Finds `query` among `names` by the IR's one name-resolution rule ([`p4_ir::layout::resolve`]),
/// saying what was looked for when it fails.
pub(crate) fn resolve<'n>(kind: &'static str, names: impl Iterator<Item = &'n str> + Clone, query: &str) -> Result<usize, ControlError> {
    layout::resolve(names, query).map_err(|e| match e {
        NameError::NotFound { known } => {
            let hint = if known.is_empty() { String::new() } else { format!(" (known: {})", known.join(", ")) };
            ControlError::NotFound { kind, name: query.to_string(), hint }
        }
        NameError::Ambiguous { candidates } => ControlError::Ambiguous { name: query.to_string(), candidates: candidates.join(", ") },
    })
}

fn to_u128(v: &BigUint, width: u32, what: &str) -> Result<u128, ControlError> {
    match v.to_u128() {
        Some(x) if x <= mask(width) => Ok(x),
        _ => invalid(format!("value 0x{v:x} does not fit in {width} bits ({what})")),
    }
}

/// Converts one control-plane key component for a key of `kind` and `width`.
fn key_match(kind: &MatchKind, width: u32, kv: &KeyValue, name: &str) -> Result<Match, ControlError> {
    let all = mask(width);
    let what = format!("key `{name}`");
    Ok(match (kind, kv) {
        (MatchKind::Range, KeyValue::Range(lo, hi)) => {
            let (lo, hi) = (to_u128(lo, width, &what)?, to_u128(hi, width, &what)?);
            if lo > hi {
                return invalid(format!("{what}: empty range {lo}..{hi}"));
            }
            Match::Range(lo, hi)
        }
        (MatchKind::Range, KeyValue::Value(v)) => {
            let v = to_u128(v, width, &what)?;
            Match::Range(v, v)
        }
        (MatchKind::Range, KeyValue::Wildcard) => Match::Range(0, all),
        (_, KeyValue::Range(..)) => return invalid(format!("{what}: a range is only valid for `range` keys")),
        (_, KeyValue::Value(v)) => Match::Mask(to_u128(v, width, &what)?, all),
        (MatchKind::Exact, KeyValue::Masked(v, m)) => {
            let (v, m) = (to_u128(v, width, &what)?, to_u128(m, width, &what)?);
            if m != all {
                return invalid(format!("{what}: exact keys take a plain value"));
            }
            Match::Mask(v, m)
        }
        (MatchKind::Exact, _) => return invalid(format!("{what}: exact keys take a plain value")),
        (MatchKind::Lpm, KeyValue::Prefix(v, len)) | (MatchKind::Ternary, KeyValue::Prefix(v, len)) => {
            if *len > width {
                return invalid(format!("{what}: prefix length {len} exceeds the key width {width}"));
            }
            let m = prefix_mask(*len, width);
            Match::Mask(to_u128(v, width, &what)? & m, m)
        }
        (MatchKind::Lpm, KeyValue::Masked(v, m)) => {
            let m = to_u128(m, width, &what)?;
            if prefix_len(m, width).is_none() {
                return invalid(format!("{what}: mask 0x{m:x} is not a prefix mask"));
            }
            Match::Mask(to_u128(v, width, &what)? & m, m)
        }
        (MatchKind::Ternary, KeyValue::Masked(v, m)) => {
            let m = to_u128(m, width, &what)?;
            Match::Mask(to_u128(v, width, &what)? & m, m)
        }
        (MatchKind::Optional, KeyValue::Masked(v, m)) => {
            let m = to_u128(m, width, &what)?;
            if m != 0 && m != all {
                return invalid(format!("{what}: optional keys are exact or wildcard"));
            }
            Match::Mask(to_u128(v, width, &what)? & m, m)
        }
        (_, KeyValue::Wildcard) => Match::Mask(0, 0),
        (k, other) => return invalid(format!("{what}: {} is not valid for a {} key", notation_name(other), kind_name(k))),
    })
}

/// Key components of a `const entries` / `entries` row.
pub(crate) fn program_keysets(sw: &Switch, ti: usize, keysets: &[p4_ir::Keyset]) -> Result<Vec<Match>, DataplaneError> {
    let tp = &sw.prog.tables[ti];
    let mut out = Vec::new();
    // The key layout says which IR keys take part in matching (selector keys do not), and how wide.
    let layout = &sw.prog.layouts.keys[ti];
    let matched = layout.fields.iter().filter_map(|f| Some((keysets.get(f.index)?, f)));
    for (ks, k) in matched {
        let w = k.width;
        let cv = |e: &p4_ir::Expr| -> Result<u128, DataplaneError> {
            match &e.kind {
                p4_ir::ExprKind::Const(v) => Ok(crate::compile::const_scalar(&sw.ir, v, &e.ty)? & mask(w)),
                _ => Err(DataplaneError::unsupported(format!("table {}: non-constant entry key", tp.name))),
            }
        };
        out.push(match ks {
            p4_ir::Keyset::Value(e) if k.match_kind == MatchKind::Range => {
                let v = cv(e)?;
                Match::Range(v, v)
            }
            p4_ir::Keyset::Value(e) => Match::Mask(cv(e)?, mask(w)),
            p4_ir::Keyset::Mask(v, m) => {
                let m = cv(m)?;
                Match::Mask(cv(v)? & m, m)
            }
            p4_ir::Keyset::Range(lo, hi) => Match::Range(cv(lo)?, cv(hi)?),
            p4_ir::Keyset::Any if k.match_kind == MatchKind::Range => Match::Range(0, mask(w)),
            p4_ir::Keyset::Any => Match::Mask(0, 0),
            p4_ir::Keyset::Lpm(v, len) => {
                let m = prefix_mask(*len, w);
                Match::Mask(cv(v)? & m, m)
            }
            p4_ir::Keyset::ValueSet(_) => return Err(DataplaneError::unsupported("value sets in table entries")),
        });
    }
    if out.len() != layout.fields.len() {
        return Err(DataplaneError::invalid(format!("table {}: entry has {} keys, table has {}", tp.name, out.len(), layout.fields.len())));
    }
    Ok(out)
}

/// Normalises STF key spellings: `hdr$1` for `hdr[1]`.
fn normalise_key_name(n: &str) -> String {
    let mut out = String::new();
    let mut chars = n.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch == '$' && chars.peek().is_some_and(|c| c.is_ascii_digit()) {
            out.push('[');
            while let Some(d) = chars.peek().copied().filter(char::is_ascii_digit) {
                out.push(d);
                chars.next();
            }
            out.push(']');
        } else {
            out.push(ch);
        }
    }
    out
}

fn key_matches(tp: &TableProg, layout: &KeyLayout, keys: &Keys) -> Result<Vec<Match>, ControlError> {
    let mut vals: Vec<Option<&KeyValue>> = vec![None; layout.fields.len()];
    match keys {
        Keys::Positional(kvs) => {
            if kvs.len() != layout.fields.len() {
                return invalid(format!("table {} has {} keys, {} given", tp.name, layout.fields.len(), kvs.len()));
            }
            for (slot, kv) in vals.iter_mut().zip(kvs) {
                *slot = Some(kv);
            }
        }
        Keys::Named(named) => {
            for (name, kv) in named {
                let i = if name == "$valid$" || name == "valid" {
                    match layout.fields.iter().position(|k| k.is_valid) {
                        Some(i) => i,
                        None => return invalid(format!("table {} has no isValid() key", tp.name)),
                    }
                } else {
                    let norm = normalise_key_name(name);
                    resolve("key", layout.fields.iter().map(|k| k.name.as_str()), &norm)
                        .or_else(|_| resolve("key", layout.fields.iter().map(|k| k.name.as_str()), name))?
                };
                if let Some(slot) = vals.get_mut(i) {
                    *slot = Some(kv);
                }
            }
        }
    }
    let zero = KeyValue::Value(BigUint::default());
    let positional = matches!(keys, Keys::Positional(_));
    layout.fields
        .iter()
        .zip(vals)
        .map(|(k, v)| {
            let kv = v.unwrap_or(if k.match_kind == MatchKind::Exact { &zero } else { &KeyValue::Wildcard });
            if positional {
                check_cli_notation(&k.match_kind, kv, &k.name)?;
            }
            key_match(&k.match_kind, k.width, kv, &k.name)
        })
        .collect()
}

/// How a key value was written, in words.
fn notation_name(kv: &KeyValue) -> &'static str {
    match kv {
        KeyValue::Value(_) => "a plain value",
        KeyValue::Masked(..) => "a masked value (VALUE&&&MASK)",
        KeyValue::Prefix(..) => "a prefix (VALUE/LENGTH)",
        KeyValue::Range(..) => "a range (LOW->HIGH)",
        KeyValue::Wildcard => "a wildcard",
    }
}

/// The name BMv2 and P4 give a match kind.
fn kind_name(kind: &MatchKind) -> &'static str {
    match kind {
        MatchKind::Exact => "exact",
        MatchKind::Lpm => "lpm",
        MatchKind::Ternary => "ternary",
        MatchKind::Range => "range",
        MatchKind::Optional => "optional",
        _ => "selector",
    }
}

/// BMv2's runtime CLI (positional keys) demands each key in its match kind's notation. A plain value
/// on a ternary key is usually a forgotten mask, and the priority then shifts into the action
/// arguments: saying so beats an argument-count error about the action.
fn check_cli_notation(kind: &MatchKind, kv: &KeyValue, name: &str) -> Result<(), ControlError> {
    let notation = match kind {
        MatchKind::Ternary | MatchKind::Optional => "VALUE&&&MASK",
        MatchKind::Range => "LOW->HIGH",
        MatchKind::Lpm => "VALUE/LENGTH",
        _ => return Ok(()),
    };
    if matches!(kv, KeyValue::Value(_)) {
        return invalid(format!("key field {name} is {}: write {notation}", kind_name(kind)));
    }
    Ok(())
}

/// The match kind that makes a table take priorities (ternary, range or optional), if any: the key
/// layout's.
fn priority_kind(sw: &Switch, ti: usize) -> Option<&'static str> {
    sw.prog.layouts.keys.get(ti)?.priority_kind.as_ref().map(kind_name)
}

/// Why `given` positional arguments do not fit action `ai`; for a table with priorities, a reminder
/// that the priority is the last word (it may have been taken for an argument, or an argument for it).
fn arg_count_error(sw: &Switch, ti: usize, ai: usize, given: usize) -> String {
    let tp = &sw.prog.tables[ti];
    let ta = &tp.actions[ai];
    let names: Vec<&str> = sw.prog.layouts.actions[ta.action].params.iter().map(|d| d.name.as_str()).collect();
    let wanted = match names.len() {
        0 => "takes no arguments".to_string(),
        1 => format!("takes 1 argument ({})", names[0]),
        n => format!("takes {n} arguments ({})", names.join(", ")),
    };
    let mut message = format!("action {} {wanted}, {given} given", ta.name);
    if let Some(kind) = priority_kind(sw, ti) {
        message.push_str(&format!("; {kind} table {} takes its priority as the last word after the action arguments", tp.name));
    }
    message
}

/// The action data of action `ai` of table `ti`, checked against the action's data layout.
fn action_data(sw: &Switch, ti: usize, ai: usize, args: &ActionArgs) -> Result<Vec<u128>, ControlError> {
    let ta = &sw.prog.tables[ti].actions[ai];
    let params = &sw.prog.layouts.actions[ta.action].params;
    let mut out = vec![0u128; params.len()];
    match args {
        ActionArgs::Positional(vs) => {
            if vs.len() != params.len() {
                return invalid(arg_count_error(sw, ti, ai, vs.len()));
            }
            for ((o, d), v) in out.iter_mut().zip(params).zip(vs) {
                *o = to_u128(v, d.width, &format!("parameter `{}` of {}", d.name, ta.name))?;
            }
        }
        ActionArgs::Named(named) => {
            let mut seen = vec![false; out.len()];
            for (name, v) in named {
                let Some(i) = params.iter().position(|d| &d.name == name) else {
                    return invalid(format!("action {} has no parameter `{name}`", ta.name));
                };
                let d = &params[i];
                out[i] = to_u128(v, d.width, &format!("parameter `{}` of {}", d.name, ta.name))?;
                seen[i] = true;
            }
            if let Some(i) = seen.iter().position(|s| !s) {
                return invalid(format!("action {}: missing parameter `{}`", ta.name, params[i].name));
            }
        }
    }
    Ok(out)
}

impl Switch {
    fn table_index(&self, name: &str) -> Result<usize, ControlError> {
        resolve("table", self.prog.tables.iter().map(|t| t.name.as_str()), name)
    }

    fn table_action(&self, ti: usize, name: &str) -> Result<usize, ControlError> {
        resolve("action", self.prog.tables[ti].actions.iter().map(|a| a.name.as_str()), name)
    }

    /// The extern instance named `name` among those of the control-plane `kinds` (the kind of an
    /// instance is its object's in the IR's id assignment, [`p4_ir::layout::ControlPlaneIds`],
    /// which takes it from the architecture); the first kind names them in errors.
    fn extern_index(&self, kinds: &[ObjectKind], name: &str) -> Result<usize, ControlError> {
        let kind = kinds.first().map_or("extern", |k| k.name());
        let ids = &self.prog.layouts.ids;
        let kind_of = |i: usize| {
            let id = ids.id(p4_ir::layout::Target::Extern(p4_ir::ExternId(i as u32)))?;
            ids.by_id(id).map(|o| o.kind)
        };
        let idx: Vec<usize> = (0..self.ir.externs.len()).filter(|i| kind_of(*i).is_some_and(|k| kinds.contains(&k))).collect();
        let i = resolve(kind, idx.iter().map(|i| self.ir.externs[*i].name.as_str()), name)?;
        Ok(idx[i])
    }

    /// `Err` for the first port of a multicast node that the port fields cannot hold.
    fn check_ports(&self, ports: &[u32]) -> Result<(), ControlError> {
        ports.iter().try_for_each(|p| self.check_port(*p))
    }

    /// The table whose direct counter/meter is extern `id`.
    fn direct_table(&self, id: usize) -> Option<usize> {
        self.prog.tables.iter().position(|t| t.per_entry.contains(&id))
    }
}

impl ControlPlane for Switch {
    fn table_add(&mut self, table: &str, keys: Keys, action: &str, args: ActionArgs, priority: Option<i64>) -> Result<Handle, ControlError> {
        let ti = self.table_index(table)?;
        let tp = &self.prog.tables[ti];
        if tp.entries_const {
            return invalid(format!("table {} has const entries", tp.name));
        }
        let matches = key_matches(tp, &self.prog.layouts.keys[ti], &keys)?;
        let priority = match (priority, priority_kind(self, ti)) {
            (None, Some(kind)) => return Err(ControlError::MissingPriority { table: tp.name.clone(), kind }),
            (priority, _) => priority.unwrap_or(0),
        };
        let ai = self.table_action(ti, action)?;
        if tp.actions[ai].default_only {
            return invalid(format!("action {} is @defaultonly in table {}", tp.actions[ai].name, tp.name));
        }
        let data = action_data(self, ti, ai, &args)?;
        let name = tp.name.clone();
        let entry = Entry { matches, priority, action: ai, args: data, meter: Default::default() };
        self.ctx.tables[ti].insert(entry).map_err(|m| ControlError::Invalid(format!("table {name}: {m}")))
    }

    fn table_modify(&mut self, table: &str, handle: Handle, action: &str, args: ActionArgs) -> Result<(), ControlError> {
        let ti = self.table_index(table)?;
        let ai = self.table_action(ti, action)?;
        let data = action_data(self, ti, ai, &args)?;
        let name = self.prog.tables[ti].name.clone();
        if !self.ctx.tables[ti].set_action(handle, ai, data) {
            return invalid(format!("table {name}: no entry with handle {handle}"));
        }
        Ok(())
    }

    fn table_delete(&mut self, table: &str, handle: Handle) -> Result<(), ControlError> {
        let ti = self.table_index(table)?;
        let name = self.prog.tables[ti].name.clone();
        self.ctx.tables[ti].remove(handle).map(|_| ()).map_err(|m| ControlError::Invalid(format!("table {name}: {m}")))
    }

    fn table_clear(&mut self, table: &str) -> Result<(), ControlError> {
        let ti = self.table_index(table)?;
        if self.prog.tables[ti].entries_const {
            return invalid(format!("table {} has const entries", self.prog.tables[ti].name));
        }
        self.ctx.tables[ti].clear();
        Ok(())
    }

    fn table_set_default(&mut self, table: &str, action: &str, args: ActionArgs) -> Result<(), ControlError> {
        let ti = self.table_index(table)?;
        let tp = &self.prog.tables[ti];
        if tp.default_is_const {
            return invalid(format!("table {} has a const default action", tp.name));
        }
        let ai = self.table_action(ti, action)?;
        if tp.actions[ai].table_only {
            return invalid(format!("action {} is @tableonly in table {}", tp.actions[ai].name, tp.name));
        }
        let data = action_data(self, ti, ai, &args)?;
        self.ctx.tables[ti].set_default(ai, data);
        Ok(())
    }

    fn mc_mgrp_create(&mut self, group: u32) -> Result<(), ControlError> {
        if self.groups.contains_key(&group) {
            return invalid(format!("multicast group {group} already exists"));
        }
        self.groups.insert(group, Vec::new());
        Ok(())
    }

    fn mc_mgrp_destroy(&mut self, group: u32) -> Result<(), ControlError> {
        self.groups.remove(&group).map(|_| ()).ok_or_else(|| ControlError::Invalid(format!("no multicast group {group}")))
    }

    fn mc_node_create(&mut self, rid: u32, ports: &[u32]) -> Result<Handle, ControlError> {
        self.check_ports(ports)?;
        let mut ports = ports.to_vec();
        ports.sort_unstable();
        ports.dedup();
        self.nodes.push(Some((rid, ports)));
        Ok(self.nodes.len() as u64 - 1)
    }

    fn mc_node_update(&mut self, node: Handle, ports: &[u32]) -> Result<(), ControlError> {
        self.check_ports(ports)?;
        match self.nodes.get_mut(node as usize) {
            Some(Some((_, p))) => {
                *p = ports.to_vec();
                p.sort_unstable();
                p.dedup();
                Ok(())
            }
            _ => invalid(format!("no multicast node {node}")),
        }
    }

    fn mc_node_associate(&mut self, group: u32, node: Handle) -> Result<(), ControlError> {
        if !matches!(self.nodes.get(node as usize), Some(Some(_))) {
            return invalid(format!("no multicast node {node}"));
        }
        let Some(g) = self.groups.get_mut(&group) else { return invalid(format!("no multicast group {group}")) };
        if !g.contains(&node) {
            g.push(node);
        }
        Ok(())
    }

    fn mc_node_dissociate(&mut self, group: u32, node: Handle) -> Result<(), ControlError> {
        let Some(g) = self.groups.get_mut(&group) else { return invalid(format!("no multicast group {group}")) };
        let before = g.len();
        g.retain(|n| *n != node);
        if g.len() == before {
            return invalid(format!("node {node} is not in multicast group {group}"));
        }
        Ok(())
    }

    fn mc_node_destroy(&mut self, node: Handle) -> Result<(), ControlError> {
        match self.nodes.get_mut(node as usize) {
            Some(n @ Some(_)) => {
                *n = None;
                for g in self.groups.values_mut() {
                    g.retain(|x| *x != node);
                }
                Ok(())
            }
            _ => invalid(format!("no multicast node {node}")),
        }
    }

    fn mirroring_add(&mut self, session: u32, port: u32) -> Result<(), ControlError> {
        self.check_port(port)?;
        self.sessions.insert(session, Mirror::Port(port));
        Ok(())
    }

    fn mirroring_add_mc(&mut self, session: u32, group: u32) -> Result<(), ControlError> {
        self.sessions.insert(session, Mirror::Group(group));
        Ok(())
    }

    fn mirroring_delete(&mut self, session: u32) -> Result<(), ControlError> {
        self.sessions.remove(&session).map(|_| ()).ok_or_else(|| ControlError::Invalid(format!("no clone session {session}")))
    }

    fn register_read(&mut self, register: &str, index: u64) -> Result<BigUint, ControlError> {
        let id = self.extern_index(&[ObjectKind::Register], register)?;
        match self.ctx.externs.get(id) {
            Some(ExternState::Register { cells, .. }) => match cells.get(index) {
                Some(v) => Ok(BigUint::from(*v)),
                None => invalid(format!("register {register}: index {index} out of range (size {})", cells.len())),
            },
            _ => invalid(format!("{register} is not a register")),
        }
    }

    fn register_write(&mut self, register: &str, index: u64, value: BigUint) -> Result<(), ControlError> {
        let id = self.extern_index(&[ObjectKind::Register], register)?;
        match self.ctx.externs.get_mut(id) {
            Some(ExternState::Register { cells, width }) => {
                let v = to_u128(&value, *width, register)?;
                let n = cells.len();
                match cells.get_mut(index) {
                    Some(c) => {
                        *c = v;
                        Ok(())
                    }
                    None => invalid(format!("register {register}: index {index} out of range (size {n})")),
                }
            }
            _ => invalid(format!("{register} is not a register")),
        }
    }

    fn register_reset(&mut self, register: &str) -> Result<(), ControlError> {
        let id = self.extern_index(&[ObjectKind::Register], register)?;
        if let Some(ExternState::Register { cells, .. }) = self.ctx.externs.get_mut(id) {
            cells.fill(0);
        }
        Ok(())
    }

    fn counter_read(&mut self, counter: &str, index: u64) -> Result<(u64, u64), ControlError> {
        let id = self.extern_index(&[ObjectKind::Counter, ObjectKind::DirectCounter], counter)?;
        if let Some(ti) = self.direct_table(id) {
            return match self.ctx.tables[ti].count(index) {
                Some(c) => Ok((c.packets, c.bytes)),
                None => invalid(format!("direct counter {counter}: no entry with handle {index}")),
            };
        }
        match self.ctx.externs.get(id) {
            Some(ExternState::Counter { cells }) => {
                cells.get(index).copied().ok_or_else(|| ControlError::Invalid(format!("counter {counter}: index {index} out of range")))
            }
            _ => invalid(format!("{counter} is not a counter")),
        }
    }

    fn counter_write(&mut self, counter: &str, index: u64, packets: u64, bytes: u64) -> Result<(), ControlError> {
        let id = self.extern_index(&[ObjectKind::Counter, ObjectKind::DirectCounter], counter)?;
        if let Some(ti) = self.direct_table(id) {
            return match self.ctx.tables[ti].set_count(index, crate::table::Count { packets, bytes }) {
                true => Ok(()),
                false => invalid(format!("direct counter {counter}: no entry with handle {index}")),
            };
        }
        match self.ctx.externs.get_mut(id) {
            Some(ExternState::Counter { cells }) => match cells.get_mut(index) {
                Some(c) => {
                    *c = (packets, bytes);
                    Ok(())
                }
                None => invalid(format!("counter {counter}: index {index} out of range")),
            },
            _ => invalid(format!("{counter} is not a counter")),
        }
    }

    fn counter_reset(&mut self, counter: &str) -> Result<(), ControlError> {
        let id = self.extern_index(&[ObjectKind::Counter, ObjectKind::DirectCounter], counter)?;
        if let Some(ti) = self.direct_table(id) {
            self.ctx.tables[ti].reset_counts();
            return Ok(());
        }
        if let Some(ExternState::Counter { cells }) = self.ctx.externs.get_mut(id) {
            cells.fill((0, 0));
        }
        Ok(())
    }

    fn meter_set_rates(&mut self, meter: &str, index: Option<u64>, rates: &[MeterRate]) -> Result<(), ControlError> {
        let id = self.extern_index(&[ObjectKind::Meter, ObjectKind::DirectMeter], meter)?;
        let [committed, peak] = rates else { return invalid(format!("meter {meter}: give two rates (committed, peak)")) };
        let now = self.ctx.now_us as f64;
        if let Some(ti) = self.direct_table(id) {
            let ts = &mut self.ctx.tables[ti];
            match index {
                Some(h) => match ts.get_mut(h) {
                    Some(e) => e.meter.set_rates(*committed, *peak, now),
                    None => return invalid(format!("direct meter {meter}: no entry with handle {h}")),
                },
                None => {
                    for e in ts.entries.iter_mut().flatten() {
                        e.meter.set_rates(*committed, *peak, now);
                    }
                }
            }
            return Ok(());
        }
        match self.ctx.externs.get_mut(id) {
            Some(ExternState::Meter { cells, .. }) => match index {
                Some(i) => match cells.get_mut(i) {
                    Some(m) => {
                        m.set_rates(*committed, *peak, now);
                        Ok(())
                    }
                    None => invalid(format!("meter {meter}: index {i} out of range")),
                },
                None => {
                    // Every cell, including never-used ones, starts from this configured meter.
                    let mut configured = crate::meter::Meter::default();
                    configured.set_rates(*committed, *peak, now);
                    cells.fill(configured);
                    Ok(())
                }
            },
            _ => invalid(format!("{meter} is not a meter")),
        }
    }

    fn value_set_add(&mut self, value_set: &str, value: KeyValue) -> Result<(), ControlError> {
        let i = resolve("value set", self.ir.value_sets.iter().map(|v| v.name.as_str()), value_set)?;
        // Select keys compare at most 128 bits: wider elements are cut like the keys are.
        let width = self.prog.layouts.value_set_widths[i].min(128);
        let m = key_match(&MatchKind::Ternary, width, &value, value_set)?;
        let Match::Mask(v, mk) = m else { return invalid("value sets take values or masks") };
        let size = self.ir.value_sets[i].size as usize;
        let set = &mut self.ctx.value_sets[i];
        if size > 0 && set.len() >= size {
            return invalid(format!("value set {value_set} is full ({size} members)"));
        }
        set.push((v, mk));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_exactly_or_by_unique_suffix() {
        let names = ["MyIngress.ipv4_lpm", "MyIngress.mac", "MyEgress.mac"];
        assert_eq!(resolve("table", names.iter().copied(), "ipv4_lpm"), Ok(0));
        assert_eq!(resolve("table", names.iter().copied(), "MyEgress.mac"), Ok(2));
        assert!(matches!(resolve("table", names.iter().copied(), "mac"), Err(ControlError::Ambiguous { .. })));
        assert!(matches!(resolve("table", names.iter().copied(), "pv4_lpm"), Err(ControlError::NotFound { .. })));
    }

    #[test]
    fn key_values_convert_by_match_kind() {
        let v = |x: u32| BigUint::from(x);
        assert_eq!(key_match(&MatchKind::Lpm, 32, &KeyValue::Prefix(v(0x0a01_02ff), 24), "k"), Ok(Match::Mask(0x0a01_0200, 0xffff_ff00)));
        assert_eq!(key_match(&MatchKind::Ternary, 8, &KeyValue::Masked(v(0xff), v(0x0f)), "k"), Ok(Match::Mask(0x0f, 0x0f)));
        assert_eq!(key_match(&MatchKind::Range, 8, &KeyValue::Wildcard, "k"), Ok(Match::Range(0, 0xff)));
        assert!(key_match(&MatchKind::Exact, 8, &KeyValue::Value(v(256)), "k").is_err());
        assert!(key_match(&MatchKind::Lpm, 8, &KeyValue::Masked(v(1), v(0x0f)), "k").is_err());
        assert_eq!(normalise_key_name("hdr.vlan$1.vid"), "hdr.vlan[1].vid");
    }
}

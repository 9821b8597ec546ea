//! Counter, direct-counter, meter, direct-meter and register entries between P4Runtime and the
//! control-plane API: reads (one cell, every cell of one object, or every object of the kind with
//! id 0) and writes (MODIFY: a cell set; a cell index omitted sets every cell).

use std::collections::BTreeMap;

use num_bigint::BigUint;
use num_traits::ToPrimitive;
use p4_control::catalog::{Catalog, ExternInfo};
use p4_control::{ControlPlane, Handle, MeterRate};
use p4_ir::layout::{ControlPlaneIds, ObjectKind, Target};
use tonic::Code;

use super::tables::{refuse, Entries, Refusal};
use crate::p4info::canonical_bytes;
use crate::proto::p4::v1::{
    p4_data, CounterData, CounterEntry, DirectCounterEntry, DirectMeterEntry, Index, MeterConfig, MeterEntry, P4Data, RegisterEntry,
    TableEntry,
};


/// The extern instances of `kind` a request names: the one with `id`, or every one for id 0.
fn instances<'a>(catalog: &'a Catalog, ids: &ControlPlaneIds, kind: ObjectKind, id: u32) -> Result<Vec<(usize, &'a ExternInfo)>, Refusal> {
    if id == 0 {
        return Ok(catalog.externs.iter().enumerate().filter(|(_, e)| e.kind == Some(kind)).collect());
    }
    match ids.by_id(id) {
        Some(o) if o.kind == kind => match o.targets.first() {
            Some(Target::Extern(e)) => Ok(vec![(e.index(), &catalog.externs[e.index()])]),
            _ => refuse(Code::NotFound, format!("no {} has id {id:#x}", kind.name())),
        },
        _ => refuse(Code::NotFound, format!("no {} has id {id:#x}", kind.name())),
    }
}

fn extern_id(ids: &ControlPlaneIds, index: usize) -> u32 {
    ids.id(Target::Extern(p4_ir::ExternId(index as u32))).unwrap_or(0)
}

/// The cells a request's index names: that one, or all of them.
fn cells(e: &ExternInfo, index: Option<&Index>) -> Result<std::ops::Range<u64>, Refusal> {
    match index {
        None => Ok(0..e.size),
        Some(Index { index }) if *index >= 0 && (*index as u64) < e.size => Ok(*index as u64..*index as u64 + 1),
        Some(Index { index }) => refuse(Code::OutOfRange, format!("{} has cells 0..{}, not {index}", e.name, e.size)),
    }
}

/// Counts as the counter's unit shows them (a packets counter reads no bytes and the other way).
fn counter_data(e: &ExternInfo, (packets, bytes): (u64, u64)) -> CounterData {
    let unit = e.unit.as_deref().unwrap_or("packets_and_bytes");
    CounterData {
        packet_count: if unit == "bytes" { 0 } else { packets as i64 },
        byte_count: if unit == "packets" { 0 } else { bytes as i64 },
    }
}

fn counts(data: Option<&CounterData>) -> Result<(u64, u64), Refusal> {
    let d = data.ok_or((Code::InvalidArgument, "a counter write needs data".to_string()))?;
    if d.packet_count < 0 || d.byte_count < 0 {
        return refuse(Code::InvalidArgument, "counts cannot be negative");
    }
    Ok((d.packet_count as u64, d.byte_count as u64))
}

fn control_refusal(e: p4_control::ControlError) -> Refusal {
    (Code::InvalidArgument, e.to_string())
}

pub fn read_counters(target: &mut dyn ControlPlane, catalog: &Catalog, ids: &ControlPlaneIds, entry: &CounterEntry) -> Result<Vec<CounterEntry>, Refusal> {
    let mut out = Vec::new();
    for (i, e) in instances(catalog, ids, ObjectKind::Counter, entry.counter_id)? {
        for cell in cells(e, entry.index.as_ref())? {
            let c = target.counter_read(&e.name, cell).map_err(control_refusal)?;
            out.push(CounterEntry { counter_id: extern_id(ids, i), index: Some(Index { index: cell as i64 }), data: Some(counter_data(e, c)) });
        }
    }
    Ok(out)
}

pub fn write_counter(target: &mut dyn ControlPlane, catalog: &Catalog, ids: &ControlPlaneIds, entry: &CounterEntry) -> Result<(), Refusal> {
    let [(_, e)] = instances(catalog, ids, ObjectKind::Counter, entry.counter_id)?[..] else {
        return refuse(Code::InvalidArgument, "a counter write names one counter");
    };
    let (packets, bytes) = counts(entry.data.as_ref())?;
    for cell in cells(e, entry.index.as_ref())? {
        target.counter_write(&e.name, cell, packets, bytes).map_err(control_refusal)?;
    }
    Ok(())
}

/// Direct counters: the entries a table-entry pattern names (one entry, a table's, or every
/// table's with a direct counter), each with its counts.
pub fn read_direct(
    target: &mut dyn ControlPlane,
    catalog: &Catalog,
    ids: &ControlPlaneIds,
    entries: &Entries,
    entry: &DirectCounterEntry,
) -> Result<Vec<DirectCounterEntry>, Refusal> {
    let pattern = entry.table_entry.clone().unwrap_or_default();
    let mut out = Vec::new();
    for (table, handle, written) in entries.matching(catalog, ids, &pattern)? {
        let counter = match direct_of(catalog, table, ObjectKind::DirectCounter) {
            Ok(c) => c,
            Err(refusal) if pattern.table_id != 0 => return Err(refusal),
            Err(_) => continue,
        };
        let e = &catalog.externs[counter];
        let c = target.counter_read(&e.name, handle).map_err(control_refusal)?;
        out.push(DirectCounterEntry { table_entry: Some(written), data: Some(counter_data(e, c)) });
    }
    Ok(out)
}

/// The table entries a read names, each with its direct counter's counts and its direct meter's
/// config when the read's pattern asks for them (by setting `counter_data`, `meter_config`).
/// Entries of tables without such a resource come without; a meter never configured has none.
pub fn entries_with_resources(
    target: &mut dyn ControlPlane,
    catalog: &Catalog,
    ids: &ControlPlaneIds,
    entries: &Entries,
    meters: &Meters,
    pattern: &TableEntry,
) -> Result<Vec<TableEntry>, Refusal> {
    let mut out = Vec::new();
    for (table, handle, mut written) in entries.matching(catalog, ids, pattern)? {
        if let (true, Ok(counter)) = (pattern.counter_data.is_some(), direct_of(catalog, table, ObjectKind::DirectCounter)) {
            let e = &catalog.externs[counter];
            written.counter_data = Some(counter_data(e, target.counter_read(&e.name, handle).map_err(control_refusal)?));
        }
        if pattern.meter_config.is_some() {
            written.meter_config = meters.direct.get(&(table, handle)).copied();
        }
        out.push(written);
    }
    Ok(out)
}

pub fn write_direct(target: &mut dyn ControlPlane, catalog: &Catalog, ids: &ControlPlaneIds, entries: &Entries, entry: &DirectCounterEntry) -> Result<(), Refusal> {
    let pattern = entry.table_entry.clone().ok_or((Code::InvalidArgument, "a direct counter write names its table entry".to_string()))?;
    let (packets, bytes) = counts(entry.data.as_ref())?;
    let found = entries.matching(catalog, ids, &pattern)?;
    let [(table, handle, _)] = &found[..] else {
        return refuse(Code::NotFound, "the table entry named is not installed");
    };
    let counter = direct_of(catalog, *table, ObjectKind::DirectCounter)?;
    target.counter_write(&catalog.externs[counter].name, *handle, packets, bytes).map_err(control_refusal)
}

pub fn read_registers(target: &mut dyn ControlPlane, catalog: &Catalog, ids: &ControlPlaneIds, entry: &RegisterEntry) -> Result<Vec<RegisterEntry>, Refusal> {
    let mut out = Vec::new();
    for (i, e) in instances(catalog, ids, ObjectKind::Register, entry.register_id)? {
        for cell in cells(e, entry.index.as_ref())? {
            let v = target.register_read(&e.name, cell).map_err(control_refusal)?;
            let value = v.to_u128().map_or_else(|| v.to_bytes_be(), |v| canonical_bytes(v, 128));
            out.push(RegisterEntry {
                register_id: extern_id(ids, i),
                index: Some(Index { index: cell as i64 }),
                data: Some(P4Data { data: Some(p4_data::Data::Bitstring(value)) }),
            });
        }
    }
    Ok(out)
}

pub fn write_register(target: &mut dyn ControlPlane, catalog: &Catalog, ids: &ControlPlaneIds, entry: &RegisterEntry) -> Result<(), Refusal> {
    let [(_, e)] = instances(catalog, ids, ObjectKind::Register, entry.register_id)?[..] else {
        return refuse(Code::InvalidArgument, "a register write names one register");
    };
    let Some(P4Data { data: Some(p4_data::Data::Bitstring(bytes)) }) = &entry.data else {
        return refuse(Code::InvalidArgument, "a register write carries a bitstring (other P4Data kinds are not supported)");
    };
    let value = BigUint::from_bytes_be(bytes);
    if value.bits() > u64::from(e.width) {
        return refuse(Code::OutOfRange, format!("{}: {value:#x} does not fit its {}-bit cells", e.name, e.width));
    }
    for cell in cells(e, entry.index.as_ref())? {
        target.register_write(&e.name, cell, value.clone()).map_err(control_refusal)?;
    }
    Ok(())
}


/// Meter configurations as written (the control-plane API sets rates but does not read them back).
#[derive(Default)]
pub struct Meters {
    /// (extern index, cell) → config.
    indexed: BTreeMap<(usize, u64), MeterConfig>,
    /// (table index, entry handle) → config of the entry's direct meter.
    direct: BTreeMap<(usize, Handle), MeterConfig>,
}

/// A config as the control-plane API's rates: (units per microsecond, burst) committed, then peak;
/// no config is a meter that marks every packet green (rates no traffic reaches).
fn rates(config: Option<&MeterConfig>) -> Result<[MeterRate; 2], Refusal> {
    let Some(c) = config else { return Ok([(1e12, u32::MAX); 2]) };
    if c.cir < 0 || c.pir < 0 || c.cburst < 0 || c.pburst < 0 {
        return refuse(Code::InvalidArgument, "meter rates and bursts cannot be negative");
    }
    if c.pir < c.cir {
        return refuse(Code::InvalidArgument, format!("peak rate {} is below the committed rate {}", c.pir, c.cir));
    }
    let burst = |b: i64| u32::try_from(b).map_err(|_| (Code::OutOfRange, format!("burst {b} does not fit 32 bits")));
    Ok([(c.cir as f64 / 1e6, burst(c.cburst)?), (c.pir as f64 / 1e6, burst(c.pburst)?)])
}

impl Meters {
    pub fn write(&mut self, target: &mut dyn ControlPlane, catalog: &Catalog, ids: &ControlPlaneIds, entry: &MeterEntry) -> Result<(), Refusal> {
        let [(i, e)] = instances(catalog, ids, ObjectKind::Meter, entry.meter_id)?[..] else {
            return refuse(Code::InvalidArgument, "a meter write names one meter");
        };
        let r = rates(entry.config.as_ref())?;
        let range = cells(e, entry.index.as_ref())?;
        target.meter_set_rates(&e.name, entry.index.as_ref().map(|x| x.index as u64), &r).map_err(control_refusal)?;
        for cell in range {
            match &entry.config {
                Some(c) => self.indexed.insert((i, cell), *c),
                None => self.indexed.remove(&(i, cell)),
            };
        }
        Ok(())
    }

    pub fn read(&self, catalog: &Catalog, ids: &ControlPlaneIds, entry: &MeterEntry) -> Result<Vec<MeterEntry>, Refusal> {
        let mut out = Vec::new();
        for (i, e) in instances(catalog, ids, ObjectKind::Meter, entry.meter_id)? {
            for cell in cells(e, entry.index.as_ref())? {
                out.push(MeterEntry {
                    meter_id: extern_id(ids, i),
                    index: Some(Index { index: cell as i64 }),
                    config: self.indexed.get(&(i, cell)).copied(),
                    counter_data: None,
                });
            }
        }
        Ok(out)
    }

    pub fn write_direct(
        &mut self,
        target: &mut dyn ControlPlane,
        catalog: &Catalog,
        ids: &ControlPlaneIds,
        entries: &Entries,
        entry: &DirectMeterEntry,
    ) -> Result<(), Refusal> {
        let pattern = entry.table_entry.clone().ok_or((Code::InvalidArgument, "a direct meter write names its table entry".to_string()))?;
        let found = entries.matching(catalog, ids, &pattern)?;
        let [(table, handle, _)] = &found[..] else {
            return refuse(Code::NotFound, "the table entry named is not installed");
        };
        let meter = direct_of(catalog, *table, ObjectKind::DirectMeter)?;
        target.meter_set_rates(&catalog.externs[meter].name, Some(*handle), &rates(entry.config.as_ref())?).map_err(control_refusal)?;
        match &entry.config {
            Some(c) => self.direct.insert((*table, *handle), *c),
            None => self.direct.remove(&(*table, *handle)),
        };
        Ok(())
    }

    pub fn read_direct(&self, catalog: &Catalog, ids: &ControlPlaneIds, entries: &Entries, entry: &DirectMeterEntry) -> Result<Vec<DirectMeterEntry>, Refusal> {
        let pattern = entry.table_entry.clone().unwrap_or_default();
        let mut out = Vec::new();
        for (table, handle, written) in entries.matching(catalog, ids, &pattern)? {
            match direct_of(catalog, table, ObjectKind::DirectMeter) {
                Ok(_) => {}
                Err(refusal) if pattern.table_id != 0 => return Err(refusal),
                Err(_) => continue,
            }
            out.push(DirectMeterEntry { table_entry: Some(written), config: self.direct.get(&(table, handle)).copied(), counter_data: None });
        }
        Ok(out)
    }
}

/// The extern index of table `table`'s direct resource of `kind`.
fn direct_of(catalog: &Catalog, table: usize, kind: ObjectKind) -> Result<usize, Refusal> {
    catalog.tables[table]
        .per_entry
        .iter()
        .copied()
        .find(|e| catalog.externs[*e].kind == Some(kind))
        .ok_or((Code::InvalidArgument, format!("table {} has no {}", catalog.tables[table].name, kind.name().replace('_', " "))))
}

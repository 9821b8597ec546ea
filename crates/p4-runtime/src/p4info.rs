//! The p4info of a program (`p4.config.v1.P4Info`), as the P4 reference compiler writes it: the same
//! names, ids, aliases, match fields and parameters, so that controllers and saved entries written
//! against the reference compiler's p4info work unchanged. Ids come from the IR
//! ([`p4_ir::layout::ControlPlaneIds`]); the tables, actions and externs from the control plane's
//! [`Catalog`]. Nothing here computes a layout or an id of its own.

use std::collections::{BTreeMap, BTreeSet};

use p4_control::catalog::{Catalog, ExternInfo, TableInfo};
use p4_ir::layout::{Layouts, ObjectKind, Target};
use p4_ir::{ExternId, MatchKind, Program, TableId};

use crate::proto::p4::config::v1 as p4info;

/// The p4info of `program`, whose layouts and catalog are given.
pub fn of(program: &Program, layouts: &Layouts, catalog: &Catalog) -> p4info::P4Info {
    let aliases = Aliases::new(layouts.ids.objects.iter().map(|o| o.name.as_str()));
    let preamble = |id: u32, name: &str, annotations: &[p4_ir::Annotation]| p4info::Preamble {
        id,
        name: name.to_string(),
        alias: aliases.of(name).to_string(),
        annotations: annotations.iter().filter_map(annotation_text).collect(),
        ..Default::default()
    };
    let id_of = |t: Target| layouts.ids.id(t).unwrap_or(0);
    let mut info = p4info::P4Info {
        pkg_info: Some(p4info::PkgInfo { arch: catalog.arch.to_string(), ..Default::default() }),
        ..Default::default()
    };
    let mut type_info = p4info::P4TypeInfo::default();
    let mut actions_used = BTreeSet::new();
    for (ti, t) in catalog.tables.iter().enumerate() {
        // `@hidden` keeps a table (and the actions only it uses) from the control plane.
        if program.tables[ti].annotations.iter().any(|a| a.name == "hidden") {
            continue;
        }
        let id = id_of(Target::Table(TableId(ti as u32)));
        let pre = preamble(id, &t.name, &program.tables[ti].annotations);
        info.tables.push(table(program, &id_of, pre, ti, t, &mut type_info));
        actions_used.extend(t.actions.iter().map(|a| a.action));
    }
    // Actions called directly are control-plane objects too (the reference compiler lists every
    // action the program uses).
    actions_used.extend(p4_ir::visit::directly_called_actions(program).iter().map(|a| a.index()));
    for a in actions_used {
        let id = id_of(Target::Action(p4_ir::ActionId(a as u32)));
        let name = &program.actions[a].name;
        if info.actions.iter().any(|x| x.preamble.as_ref().is_some_and(|p| p.id == id)) {
            continue; // one action instantiated in several blocks is one p4info action
        }
        let params = layouts
            .action_named(name)
            .map(|l| {
                l.params
                    .iter()
                    .map(|p| {
                        let ir = &program.actions[a].params[p.index];
                        let (type_name, bitwidth) = crate::types::new_type(program, &ir.annotations, &ir.ty, p.width, &mut type_info);
                        p4info::action::Param { id: p.id, name: p.name.clone(), bitwidth, type_name, ..Default::default() }
                    })
                    .collect()
            })
            .unwrap_or_default();
        info.actions.push(p4info::Action { preamble: Some(preamble(id, name, &program.actions[a].annotations)), params });
    }
    for (ei, e) in catalog.externs.iter().enumerate() {
        let Some(kind) = e.kind else { continue };
        let id = id_of(Target::Extern(ExternId(ei as u32)));
        let pre = Some(preamble(id, &e.name, &program.externs[ei].annotations));
        let direct_table = || catalog.direct_table(ei).map_or(0, |t| id_of(Target::Table(TableId(t as u32))));
        match kind {
            ObjectKind::Counter => {
                info.counters.push(p4info::Counter { preamble: pre, spec: Some(counter_spec(e)), size: e.size as i64, ..Default::default() })
            }
            ObjectKind::DirectCounter => info.direct_counters.push(p4info::DirectCounter {
                preamble: pre,
                spec: Some(counter_spec(e)),
                direct_table_id: direct_table(),
            }),
            ObjectKind::Meter => {
                info.meters.push(p4info::Meter { preamble: pre, spec: Some(meter_spec(e)), size: e.size as i64, ..Default::default() })
            }
            ObjectKind::DirectMeter => info.direct_meters.push(p4info::DirectMeter {
                preamble: pre,
                spec: Some(meter_spec(e)),
                direct_table_id: direct_table(),
            }),
            ObjectKind::Register => info.registers.push(p4info::Register {
                preamble: pre,
                type_spec: Some(bitstring(e.width)),
                size: e.size as i32,
                ..Default::default()
            }),
            ObjectKind::ActionProfile => {
                let tables: Vec<usize> =
                    (0..program.tables.len()).filter(|t| program.tables[*t].implementation == Some(ExternId(ei as u32))).collect();
                let selector = program.externs[ei].type_name.contains("selector");
                // `@max_group_size(N)` on a selector bounds its groups' members.
                let max_group_size = program.externs[ei]
                    .annotations
                    .iter()
                    .find(|a| a.name == "max_group_size")
                    .and_then(|a| match a.args.first() {
                        Some(p4_ir::Value::Bits { value, .. } | p4_ir::Value::InfInt(value)) => i32::try_from(value).ok(),
                        _ => None,
                    })
                    .unwrap_or(0);
                info.action_profiles.push(p4info::ActionProfile {
                    preamble: pre,
                    table_ids: tables.iter().map(|t| id_of(Target::Table(TableId(*t as u32)))).collect(),
                    with_selector: selector,
                    size: e.size as i64,
                    max_group_size,
                    ..Default::default()
                })
            }
            ObjectKind::Action | ObjectKind::Table | ObjectKind::ValueSet | ObjectKind::ControllerHeader | ObjectKind::Digest => {}
        }
    }
    for (vi, v) in catalog.value_sets.iter().enumerate() {
        let id = id_of(Target::ValueSet(p4_ir::ValueSetId(vi as u32)));
        info.value_sets.push(p4info::ValueSet {
            preamble: Some(preamble(id, &v.name, &[])),
            r#match: vec![p4info::MatchField {
                id: 1,
                bitwidth: v.width as i32,
                r#match: Some(p4info::match_field::Match::MatchType(p4info::match_field::MatchType::Exact as i32)),
                ..Default::default()
            }],
            size: v.size as i32,
        });
    }
    for h in crate::controller::of(program, layouts) {
        let annotation = format!("@controller_header(\"{}\")", h.name);
        info.controller_packet_metadata.push(p4info::ControllerPacketMetadata {
            preamble: Some(p4info::Preamble {
                id: h.id,
                name: h.name.clone(),
                alias: h.name.clone(),
                annotations: vec![annotation],
                ..Default::default()
            }),
            metadata: h
                .fields
                .iter()
                .map(|f| p4info::controller_packet_metadata::Metadata {
                    id: f.id,
                    name: f.name.clone(),
                    bitwidth: f.width as i32,
                    ..Default::default()
                })
                .collect(),
        });
    }
    for ty in p4_ir::layout::digest_types(program) {
        let Some(id) = layouts.ids.id(Target::Digest(ty)) else { continue };
        let def = program.type_def(ty);
        let annotations = match def {
            p4_ir::TypeDef::Header { annotations, .. } => &annotations[..],
            _ => &[],
        };
        info.digests.push(p4info::Digest {
            preamble: Some(preamble(id, def.name(), annotations)),
            type_spec: Some(crate::types::spec(program, &p4_ir::Type::Named(ty), &mut type_info)),
        });
    }
    // Present even when empty, as the reference compiler writes it.
    info.type_info = Some(type_info);
    sort_by_id(&mut info);
    info
}

/// Every list in id order, so that the output depends only on the program's names.
fn sort_by_id(info: &mut p4info::P4Info) {
    fn id(p: &Option<p4info::Preamble>) -> u32 {
        p.as_ref().map_or(0, |p| p.id)
    }
    info.tables.sort_by_key(|x| id(&x.preamble));
    info.actions.sort_by_key(|x| id(&x.preamble));
    info.action_profiles.sort_by_key(|x| id(&x.preamble));
    info.counters.sort_by_key(|x| id(&x.preamble));
    info.direct_counters.sort_by_key(|x| id(&x.preamble));
    info.meters.sort_by_key(|x| id(&x.preamble));
    info.direct_meters.sort_by_key(|x| id(&x.preamble));
    info.registers.sort_by_key(|x| id(&x.preamble));
    info.value_sets.sort_by_key(|x| id(&x.preamble));
    info.controller_packet_metadata.sort_by_key(|x| id(&x.preamble));
    info.digests.sort_by_key(|x| id(&x.preamble));
}

fn table(
    program: &Program,
    id_of: &dyn Fn(Target) -> u32,
    preamble: p4info::Preamble,
    ti: usize,
    t: &TableInfo,
    type_info: &mut p4info::P4TypeInfo,
) -> p4info::Table {
    use p4info::action_ref::Scope;
    let ir = &program.tables[ti];
    let match_fields = t
        .key
        .fields
        .iter()
        .map(|f| {
            let key = &ir.keys[f.index];
            let (type_name, bitwidth) = crate::types::new_type(program, &key.annotations, &key.expr.ty, f.width, type_info);
            p4info::MatchField {
                id: f.id,
                // An `h.isValid()` key is named `h.$valid$`, as the reference compiler names it.
                name: match f.name.strip_suffix(".isValid()") {
                    Some(header) if f.is_valid => format!("{header}.$valid$"),
                    _ => f.name.clone(),
                },
                bitwidth,
                r#match: Some(match_type(&f.match_kind)),
                type_name,
                ..Default::default()
            }
        })
        .collect();
    let action_refs = t
        .actions
        .iter()
        .map(|a| {
            let (scope, annotations) = match (a.table_only, a.default_only) {
                (true, _) => (Scope::TableOnly, vec!["@tableonly".to_string()]),
                (_, true) => (Scope::DefaultOnly, vec!["@defaultonly".to_string()]),
                _ => (Scope::TableAndDefault, Vec::new()),
            };
            p4info::ActionRef {
                id: id_of(Target::Action(p4_ir::ActionId(a.action as u32))),
                scope: scope as i32,
                annotations,
                ..Default::default()
            }
        })
        .collect();
    let default_action = t.actions.get(t.initial_default.0).map(|a| id_of(Target::Action(p4_ir::ActionId(a.action as u32))));
    let initial_default_action = t.actions.get(t.initial_default.0).map(|a| p4info::TableActionCall {
        action_id: id_of(Target::Action(p4_ir::ActionId(a.action as u32))),
        arguments: a
            .params
            .iter()
            .zip(&t.initial_default.1)
            .map(|(p, value)| p4info::table_action_call::Argument {
                param_id: p.id,
                value: canonical_bytes(*value, p.width),
            })
            .collect(),
    });
    let direct_resource_ids = [ir.direct_counter, ir.direct_meter]
        .into_iter()
        .flatten()
        .map(|e| id_of(Target::Extern(e)))
        .collect();
    let idle = ir.supports_timeout();
    p4info::Table {
        preamble: Some(preamble),
        match_fields,
        action_refs,
        const_default_action_id: if t.default_is_const { default_action.unwrap_or(0) } else { 0 },
        initial_default_action,
        implementation_id: ir.implementation.map_or(0, |e| id_of(Target::Extern(e))),
        direct_resource_ids,
        size: t.capacity as i64,
        idle_timeout_behavior: if idle {
            p4info::table::IdleTimeoutBehavior::NotifyControl as i32
        } else {
            p4info::table::IdleTimeoutBehavior::NoTimeout as i32
        },
        is_const_table: t.entries_const && !t.initial_entries.is_empty(),
        has_initial_entries: !t.initial_entries.is_empty(),
        ..Default::default()
    }
}

fn match_type(kind: &MatchKind) -> p4info::match_field::Match {
    use p4info::match_field::{Match, MatchType};
    let t = match kind {
        MatchKind::Exact => MatchType::Exact,
        MatchKind::Lpm => MatchType::Lpm,
        MatchKind::Ternary => MatchType::Ternary,
        MatchKind::Range => MatchType::Range,
        MatchKind::Optional => MatchType::Optional,
        other => return Match::OtherMatchType(other.name().to_string()),
    };
    Match::MatchType(t as i32)
}

fn counter_spec(e: &ExternInfo) -> p4info::CounterSpec {
    use p4info::counter_spec::Unit;
    let unit = match e.unit.as_deref() {
        Some("packets") => Unit::Packets,
        Some("bytes") => Unit::Bytes,
        Some("packets_and_bytes") => Unit::Both,
        _ => Unit::Unspecified,
    };
    p4info::CounterSpec { unit: unit as i32 }
}

fn meter_spec(e: &ExternInfo) -> p4info::MeterSpec {
    use p4info::meter_spec::Unit;
    let unit = match e.unit.as_deref() {
        Some("packets") => Unit::Packets,
        Some("bytes") => Unit::Bytes,
        _ => Unit::Unspecified,
    };
    p4info::MeterSpec { unit: unit as i32, ..Default::default() }
}

fn bitstring(width: u32) -> p4info::P4DataTypeSpec {
    use p4info::p4_bitstring_like_type_spec::TypeSpec;
    use p4info::p4_data_type_spec::TypeSpec as Data;
    p4info::P4DataTypeSpec {
        type_spec: Some(Data::Bitstring(p4info::P4BitstringLikeTypeSpec {
            type_spec: Some(TypeSpec::Bit(p4info::P4BitTypeSpec { bitwidth: width as i32 })),
            ..Default::default()
        })),
    }
}

/// Aliases: each name's shortest dot-separated suffix that no other name ends with.
struct Aliases {
    /// How many names end with each suffix.
    suffix_count: BTreeMap<String, usize>,
}

impl Aliases {
    fn new<'a>(names: impl Iterator<Item = &'a str>) -> Aliases {
        let mut suffix_count = BTreeMap::new();
        for name in names.collect::<BTreeSet<_>>() {
            for s in suffixes(name) {
                *suffix_count.entry(s.to_string()).or_insert(0) += 1;
            }
        }
        Aliases { suffix_count }
    }

    fn of<'a>(&self, name: &'a str) -> &'a str {
        suffixes(name).find(|s| self.suffix_count.get(*s) == Some(&1)).unwrap_or(name)
    }
}

/// Checks that `pushed`, a controller's p4info, describes the program `ours` does: every table,
/// action, and extern instance it names with the same id and name.
pub fn check_describes(pushed: &p4info::P4Info, ours: &p4info::P4Info) -> Result<(), String> {
    let names = |info: &p4info::P4Info| -> Vec<(u32, String)> {
        let mut v: Vec<(u32, String)> = info
            .tables
            .iter()
            .filter_map(|t| t.preamble.as_ref())
            .chain(info.actions.iter().filter_map(|a| a.preamble.as_ref()))
            .chain(info.counters.iter().filter_map(|a| a.preamble.as_ref()))
            .chain(info.direct_counters.iter().filter_map(|a| a.preamble.as_ref()))
            .chain(info.meters.iter().filter_map(|a| a.preamble.as_ref()))
            .chain(info.registers.iter().filter_map(|a| a.preamble.as_ref()))
            .map(|p| (p.id, p.name.clone()))
            .collect();
        v.sort();
        v
    };
    let (pushed, ours) = (names(pushed), names(ours));
    if let Some((id, name)) = pushed.iter().find(|x| !ours.contains(x)) {
        return Err(format!("the p4info names {name} with id {id:#x}, which the program does not have"));
    }
    if let Some((id, name)) = ours.iter().find(|x| !pushed.contains(x)) {
        return Err(format!("the p4info lacks {name} (id {id:#x}) of the program"));
    }
    Ok(())
}

/// The dot-separated suffixes of `name`, shortest first: `c`, `b.c`, `a.b.c`.
fn suffixes(name: &str) -> impl Iterator<Item = &str> {
    let cuts: Vec<usize> = name.match_indices('.').map(|(i, _)| i + 1).rev().collect();
    cuts.into_iter().map(move |i| &name[i..]).chain(std::iter::once(name))
}

/// A value as P4Runtime's canonical byte string: big-endian, no leading zero bytes, at least one byte.
pub fn canonical_bytes(value: u128, width: u32) -> Vec<u8> {
    let value = if width >= 128 { value } else { value & ((1u128 << width) - 1) };
    let bytes = value.to_be_bytes();
    let first = bytes.iter().position(|b| *b != 0).unwrap_or(bytes.len() - 1);
    bytes[first..].to_vec()
}

/// An annotation as p4info lists it (`@noWarn("unused")`); `None` for those P4Runtime gives a
/// meaning of its own and shows elsewhere (`@name`, `@id`, the action scopes).
fn annotation_text(a: &p4_ir::Annotation) -> Option<String> {
    if matches!(a.name.as_str(), "name" | "id" | "tableonly" | "defaultonly" | "hidden" | "max_group_size") {
        return None;
    }
    if a.args.is_empty() {
        return Some(format!("@{}", a.name));
    }
    let args: Vec<String> = a
        .args
        .iter()
        .map(|v| match v {
            p4_ir::Value::String(s) => format!("\"{s}\""),
            p4_ir::Value::Bits { value, .. } | p4_ir::Value::InfInt(value) => value.to_string(),
            p4_ir::Value::Bool(b) => b.to_string(),
            other => format!("{other:?}"),
        })
        .collect();
    Some(format!("@{}({})", a.name, args.join(", ")))
}

//! The software switch keeps its tables in indexes built for lookup speed; the control-plane model
//! (`p4_control::ControlState`, which the hardware target loads its tables from) keeps them as the
//! plain rules say. Random control-plane calls must get the same answers from both (handles and
//! refusals, word for word) and leave the same entries in the same precedence.

mod common;

use std::sync::Arc;

use common::{include_dir, program};
use num_bigint::BigUint;
use p4_control::{ActionArgs, Catalog, ControlPlane, ControlState, KeyValue, Keys};
use p4_dataplane::Switch;
use p4_ir::layout::Layouts;
use proptest::prelude::*;

/// Tables of every precedence: ternary `t`, range `rt`, optional `o`, exact `e`, lpm `l`, exact
/// and lpm `el`, lpm and ternary `lt`; a register and a counter.
fn tables_program() -> String {
    program(
        "bit<8> k; bit<8> j; bit<8> r;",
        "",
        "",
        "register<bit<8>>(4) reg;
         counter(4, CounterType.packets) cnt;
         action set(bit<8> x) { hdr.h.r = x; }
         action nop() { }
         table t { key = { hdr.h.k: ternary; } actions = { set; nop; } }
         table rt { key = { hdr.h.k: range; } actions = { set; } }
         table o { key = { hdr.h.k: optional; } actions = { set; } }
         table e { key = { hdr.h.k: exact; } actions = { set; nop; } }
         table l { key = { hdr.h.k: lpm; } actions = { set; } }
         table el { key = { hdr.h.j: exact; hdr.h.k: lpm; } actions = { set; } }
         table lt { key = { hdr.h.j: lpm; hdr.h.k: ternary; } actions = { set; } }
         apply { t.apply(); rt.apply(); o.apply(); e.apply(); l.apply(); el.apply(); lt.apply();
                 reg.write(0, hdr.h.k); cnt.count(0); sm.egress_spec = 1; }",
        "apply { }",
    )
}

const TABLES: [&str; 7] = ["t", "rt", "o", "e", "l", "el", "lt"];
/// How many key fields each table has.
const KEY_FIELDS: [usize; 7] = [1, 1, 1, 1, 1, 2, 2];

/// One control-plane call, with small values so that duplicates and overlaps are common.
#[derive(Clone, Debug)]
enum Call {
    /// `keys` has one component per key field, now and then one too many.
    Add {
        table: usize,
        keys: Vec<(u8, u8)>,
        action: bool,
        arg: u16,
        priority: Option<i64>,
    },
    Delete {
        table: usize,
        handle: u64,
    },
    Modify {
        table: usize,
        handle: u64,
        arg: u16,
    },
    Clear {
        table: usize,
    },
    Default {
        table: usize,
        arg: u16,
    },
    Register {
        index: u64,
        value: u16,
    },
    Counter {
        index: u64,
    },
    Group {
        group: u32,
        ports: Vec<u32>,
    },
}

fn call() -> impl Strategy<Value = Call> {
    let table = 0..TABLES.len();
    prop_oneof![
        8 => (table.clone(), prop::collection::vec((0u8..4, 0u8..9), 3), prop::bool::weighted(0.05), any::<bool>(), 0u16..300, prop::option::weighted(0.9, 0i64..2))
            .prop_map(|(table, mut keys, extra, action, arg, priority)| {
                keys.truncate(KEY_FIELDS[table] + usize::from(extra));
                Call::Add { table, keys, action, arg, priority }
            }),
        2 => (table.clone(), 0u64..6).prop_map(|(table, handle)| Call::Delete { table, handle }),
        1 => (table.clone(), 0u64..6, 0u16..300).prop_map(|(table, handle, arg)| Call::Modify { table, handle, arg }),
        1 => table.clone().prop_map(|table| Call::Clear { table }),
        1 => (table, 0u16..300).prop_map(|(table, arg)| Call::Default { table, arg }),
        1 => (0u64..6, 0u16..300).prop_map(|(index, value)| Call::Register { index, value }),
        1 => (0u64..6).prop_map(|index| Call::Counter { index }),
        1 => (0u32..3, prop::collection::vec(0u32..600, 0..3)).prop_map(|(group, ports)| Call::Group { group, ports }),
    ]
}

/// A key component from a small (value, shape) pair: the shape picks the notation, so every match
/// kind also gets notations it refuses.
fn key_value((value, shape): (u8, u8)) -> KeyValue {
    let value = BigUint::from(value) << 6u32;
    match shape {
        0..=2 => KeyValue::Value(value),
        3 | 4 => KeyValue::Prefix(value, u32::from(shape) * 2 - 4),
        5 => KeyValue::Masked(value, BigUint::from(0x30u32)),
        6 => KeyValue::Range(value.clone(), value + 64u32),
        7 => KeyValue::Masked(value, BigUint::from(0xffu32)),
        _ => KeyValue::Wildcard,
    }
}

fn apply(cp: &mut dyn ControlPlane, call: &Call) -> Result<String, String> {
    let arg = |a: u16| ActionArgs::Positional(vec![BigUint::from(a)]);
    let shown = |r: Result<(), p4_control::ControlError>| r.map(|()| String::new()).map_err(|e| e.to_string());
    match call {
        Call::Add { table, keys, action, arg: a, priority } => {
            let keys = Keys::Positional(keys.iter().copied().map(key_value).collect());
            let (action, args) = if *action { ("set", arg(*a)) } else { ("nop", ActionArgs::Positional(vec![])) };
            cp.table_add(TABLES[*table], keys, action, args, *priority)
                .map(|h| h.to_string())
                .map_err(|e| e.to_string())
        }
        Call::Delete { table, handle } => shown(cp.table_delete(TABLES[*table], *handle)),
        Call::Modify { table, handle, arg: a } => shown(cp.table_modify(TABLES[*table], *handle, "set", arg(*a))),
        Call::Clear { table } => shown(cp.table_clear(TABLES[*table])),
        Call::Default { table, arg: a } => shown(cp.table_set_default(TABLES[*table], "set", arg(*a))),
        Call::Register { index, value } => {
            shown(cp.register_write("reg", *index, BigUint::from(*value)))?;
            cp.register_read("reg", *index).map(|v| v.to_string()).map_err(|e| e.to_string())
        }
        Call::Counter { index } => {
            shown(cp.counter_write("cnt", *index, *index + 1, 64))?;
            cp.counter_read("cnt", *index).map(|c| format!("{c:?}")).map_err(|e| e.to_string())
        }
        Call::Group { group, ports } => {
            let node = cp.mc_node_create(u32::from(ports.len() as u8), ports).map_err(|e| e.to_string())?;
            let created = cp.mc_mgrp_create(*group).map_err(|e| e.to_string());
            shown(cp.mc_node_associate(*group, node)).map(|s| format!("{s}{created:?}"))
        }
    }
}

fn both() -> (Switch, ControlState, usize) {
    let compiled = p4_sema::compile_str("test.p4", &tables_program(), &[include_dir()]);
    let Some(program) = compiled.program else { panic!("{}", compiled.render_diagnostics()) };
    let program = Arc::new(program);
    let state = ControlState::new(Catalog::of(&program, &Layouts::of(&program)).expect("catalog")).expect("state");
    let switch = Switch::new(program.clone()).expect("switch");
    (switch, state, program.tables.len())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    #[test]
    fn the_switch_and_the_model_answer_alike_and_hold_the_same_entries(calls in prop::collection::vec(call(), 1..60)) {
        let (mut switch, mut state, tables) = both();
        for (i, c) in calls.iter().enumerate() {
            let (a, b) = (apply(&mut switch, c), apply(&mut state, c));
            prop_assert_eq!(&a, &b, "call {} ({:?})", i, c);
            for t in 0..tables {
                prop_assert_eq!(switch.table_snapshot(t), state.table_snapshot(t), "table {} after call {} ({:?})", TABLES[t], i, c);
            }
            prop_assert_eq!(switch.multicast_groups(), state.multicast_groups());
        }
    }
}

/// The generator reaches what the property is about: accepted entries in every table, and
/// refusals of each kind (a test whose calls were all refused would prove nothing).
#[test]
fn the_calls_exercise_entries_and_refusals() {
    let (mut switch, _, _) = both();
    let add = |table: usize, keys: Vec<(u8, u8)>, priority: Option<i64>| Call::Add {
        table,
        keys,
        action: true,
        arg: 1,
        priority,
    };
    let answers: Vec<Result<String, String>> = [
        add(0, vec![(1, 5)], Some(1)),
        add(0, vec![(1, 5)], Some(1)),
        add(4, vec![(1, 4)], None),
        add(4, vec![(1, 5)], None),
        add(5, vec![(1, 5), (2, 3)], None),
        add(6, vec![(1, 3), (2, 3)], None),
        add(3, vec![(1, 0)], None),
        Call::Delete { table: 3, handle: 4 },
    ]
    .iter()
    .map(|c| apply(&mut switch, c))
    .collect();
    assert_eq!(
        answers,
        vec![
            Ok("0".into()),
            Err("table I.t: duplicate entry: the entry with handle 0 has the same key and priority".into()),
            Ok("0".into()),
            Err("key `hdr.h.k`: mask 0x30 is not a prefix mask".into()),
            Err("key `hdr.h.j`: exact keys take a plain value".into()),
            Err("ternary table I.lt needs a priority".into()),
            Ok("0".into()),
            Err("table I.e: no entry with handle 4".into()),
        ]
    );
}

/// Equal priorities go to the entry added first, not to the smaller handle: a handle freed and
/// taken again by a later entry ranks that entry last.
#[test]
fn a_reused_handle_ranks_by_when_its_entry_was_added() {
    let (mut switch, mut state, _) = both();
    let add =
        |key: u8| Call::Add { table: 0, keys: vec![(key, 7)], action: true, arg: u16::from(key), priority: Some(1) };
    let calls = [add(0), add(1), Call::Delete { table: 0, handle: 0 }, add(2)];
    for c in &calls {
        assert_eq!(apply(&mut switch, c), apply(&mut state, c));
    }
    let order = |s: Option<p4_control::TableSnapshot>| {
        s.expect("table t").entries.iter().map(|e| (e.handle, e.args.clone())).collect::<Vec<_>>()
    };
    assert_eq!(order(switch.table_snapshot(0)), vec![(1, vec![1]), (0, vec![2])]);
    assert_eq!(order(state.table_snapshot(0)), vec![(1, vec![1]), (0, vec![2])]);
}

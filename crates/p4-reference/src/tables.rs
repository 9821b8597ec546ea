//! Table application: the key is evaluated field by field as the table's key layout lists it,
//! the control-plane model's entries are searched in their precedence order (the first entry
//! whose every field matches wins), direct counters and meters are updated, and the chosen
//! action runs with its data.

use num_bigint::BigUint;
use num_traits::ToPrimitive;
use p4_arch::StateKind;
use p4_ir::{Arg, BlockRef, TableId};

use crate::value::{self, Value};
use crate::{Interpreter, Run};

impl Interpreter {
    /// Applies table `t`: whether an entry hit, and the [`p4_ir::ActionId`] index of the action
    /// that ran.
    pub(crate) fn apply_table(&mut self, t: TableId) -> Run<(bool, usize)> {
        let p = self.program.clone();
        let table = &p.tables[t.index()];
        let b = BlockRef::Control(table.control);
        let layout = self.layouts.key(t).clone();
        let mut key = Vec::new();
        for f in &layout.fields {
            let v = self.eval(&b, &table.keys[f.index].expr)?;
            key.push(crate::expr::to_bits(&v, f.width.min(128)).to_u128().unwrap_or(0));
        }
        // The snapshot lists entries in precedence order, as the control-plane model ranks them.
        let snapshot = self.control.table_snapshot(t.index()).unwrap_or_else(|| p4_control::TableSnapshot {
            entries: Vec::new(),
            default_action: 0,
            default_args: Vec::new(),
        });
        let hit = snapshot
            .entries
            .iter()
            .find(|e| e.matches.len() == key.len() && e.matches.iter().zip(&key).all(|(m, k)| m.matches(*k)));
        let info = self.control.catalog().tables[t.index()].clone();
        let per_entry = info.per_entry.clone();
        let (position, data) = match hit {
            Some(entry) => {
                self.control.mark_hit(t.index(), entry.handle);
                let length = self.meta_get(p4_arch::MetaRole::PacketLength).unwrap_or(0) as u64;
                for &e in &per_entry {
                    let ext = self.control.catalog().externs[e].clone();
                    match ext.state {
                        StateKind::DirectCounter => {
                            use p4_control::ControlPlane;
                            if let Ok((packets, bytes)) = self.control.counter_read(&ext.name, entry.handle) {
                                let _ =
                                    self.control.counter_write(&ext.name, entry.handle, packets + 1, bytes + length);
                            }
                        }
                        StateKind::DirectMeter => {
                            let units = if ext.bytes { length } else { 1 };
                            let colour = self.meters.execute(e, entry.handle, units, self.now_us as f64);
                            self.direct_colours.insert(e, colour);
                        }
                        _ => {}
                    }
                }
                match self.control.members(t.index(), entry.handle).map(<[_]>::to_vec) {
                    // An action selector's group entry: the member the selector keys' hash picks.
                    Some(members) if !members.is_empty() => {
                        let h = self.selector_hash(&b, t)?;
                        let (action, args) = &members[(h % members.len() as u128) as usize];
                        (*action, args.clone())
                    }
                    _ => (entry.action, entry.args.clone()),
                }
            }
            None => {
                for &e in &per_entry {
                    if self.control.catalog().externs[e].state == StateKind::DirectMeter {
                        self.direct_colours.insert(e, crate::meter::GREEN);
                    }
                }
                (snapshot.default_action, snapshot.default_args.clone())
            }
        };
        let Some(chosen) = info.actions.get(position) else { return Ok((hit.is_some(), 0)) };
        let action_id = chosen.action;
        let bound = table.effective_actions().get(position).map(|a| a.bound_args.clone()).unwrap_or_default();
        self.run_table_action(&b, action_id, &chosen.params, &data, &bound)?;
        Ok((hit.is_some(), action_id))
    }

    /// The hash table `t`'s action selector computes over its selector keys' values, back to back
    /// at their types' widths.
    fn selector_hash(&mut self, b: &BlockRef, t: TableId) -> Run<u128> {
        let p = self.program.clone();
        let table = &p.tables[t.index()];
        let Some(algo) = self.control.catalog().tables[t.index()].selector else { return Ok(0) };
        let mut bits = Vec::new();
        for &k in &self.layouts.key(t).selector_keys.clone() {
            let v = self.eval(b, &table.keys[k].expr)?;
            let width = v.width();
            let x = crate::expr::to_bits(&v, width);
            bits.extend((0..width).rev().map(|i| x.bit(u64::from(i))));
        }
        Ok(self.compute(algo, &crate::hash::pack(&bits)))
    }

    /// Runs action `a` as a table runs it: its directionless parameters from the entry's `data`,
    /// the others bound to the expressions the table's `actions` list gives.
    fn run_table_action(
        &mut self,
        b: &BlockRef,
        a: usize,
        data_layout: &[p4_ir::layout::ParamLayout],
        data: &[u128],
        bound: &[p4_ir::Expr],
    ) -> Run<()> {
        let p = self.program.clone();
        let action = &p.actions[a];
        for (d, v) in data_layout.iter().zip(data) {
            let param = &action.params[d.index];
            let bits = Value::Bits { width: 128, signed: false, v: BigUint::from(*v) };
            let v = value::convert(&p, bits, &param.ty);
            *self.var_mut(&action.block, param.var) = v;
        }
        let directional: Vec<p4_ir::Param> =
            action.params.iter().filter(|x| x.direction != p4_ir::Direction::None).cloned().collect();
        let args: Vec<Arg> =
            bound.iter().zip(&directional).map(|(e, prm)| Arg { direction: prm.direction, expr: e.clone() }).collect();
        self.call_with(b, &action.block, &directional[..args.len()], &args, |it| {
            it.exec_all(&action.block, &action.body)
        })
    }
}

//! Statements, calls (copy-in/copy-out) and control blocks.

use p4_ir::{Arg, BlockRef, Builtin, Call, Callee, ControlId, Direction, Expr, Param, Stmt, Type, VarKind};

use crate::place::{at_mut, Place};
use crate::value::{self, Value};
use crate::{Flow, Interpreter, Run, MAX_LOOP_ITERATIONS};

impl Interpreter {
    pub(crate) fn exec_all(&mut self, b: &BlockRef, stmts: &[Stmt]) -> Run<()> {
        for s in stmts {
            self.exec(b, s)?;
        }
        Ok(())
    }

    pub(crate) fn exec(&mut self, b: &BlockRef, s: &Stmt) -> Run<()> {
        match s {
            Stmt::VarInit { var, init, .. } => {
                let ty = self.var_decl(b, *var).ty.clone();
                let v = match init {
                    Some(e) => self.eval(b, e)?,
                    None => value::default_of(&self.program, &ty),
                };
                *self.var_mut(b, *var) = v;
            }
            Stmt::Assign { lhs, rhs, .. } => {
                let v = self.eval(b, rhs)?;
                if let Some(p) = self.place(b, lhs)? {
                    self.write_place(&p, v);
                    self.union_fixup(b, lhs)?;
                }
            }
            Stmt::Call(call) => {
                self.call(b, call)?;
            }
            Stmt::ApplyTable { table, .. } => {
                self.apply_table(*table)?;
            }
            Stmt::ApplyBlock { block, args, .. } => self.apply_sub_block(b, block, args)?,
            Stmt::If { cond, then, otherwise, .. } => {
                if self.eval(b, cond)?.is_true() {
                    self.exec_all(b, then)?;
                } else {
                    self.exec_all(b, otherwise)?;
                }
            }
            Stmt::SwitchAction { table, cases, .. } => {
                let (_, action) = self.apply_table(*table)?;
                let chosen = cases
                    .iter()
                    .find(|(a, _)| a.is_some_and(|a| a.index() == action))
                    .or_else(|| cases.iter().find(|(a, _)| a.is_none()));
                if let Some((_, body)) = chosen {
                    self.exec_all(b, body)?;
                }
            }
            Stmt::SwitchValue { expr, cases, .. } => {
                let v = self.eval(b, expr)?;
                let p = self.program.clone();
                let chosen = cases
                    .iter()
                    .find(|(label, _)| {
                        label.as_ref().is_some_and(|l| crate::expr::equal(&value::constant(&p, l, &expr.ty), &v))
                    })
                    .or_else(|| cases.iter().find(|(label, _)| label.is_none()));
                if let Some((_, body)) = chosen {
                    self.exec_all(b, body)?;
                }
            }
            Stmt::Block(stmts) => self.exec_all(b, stmts)?,
            Stmt::Exit(_) => return Err(Flow::Exit),
            Stmt::Return(e, _) => {
                if let Some(e) = e {
                    let v = self.eval(b, e)?;
                    if let Some(Some((fb, var))) = self.returns.last().cloned() {
                        *self.var_mut(&fb, var) = v;
                    }
                }
                return Err(Flow::Return);
            }
            Stmt::For { init, cond, update, body, .. } => self.run_loop(b, init, cond.as_ref(), update, body)?,
            Stmt::Break(_) => return Err(Flow::Break),
            Stmt::Continue(_) => return Err(Flow::Continue),
            Stmt::Empty => {}
        }
        Ok(())
    }

    /// A `for` loop: `init`, then while `cond` holds, `body` and `update` (a `break` in either
    /// ends the loop: sema puts a for-in loop's `break` in its update).
    fn run_loop(
        &mut self,
        b: &BlockRef,
        init: &[Stmt],
        cond: Option<&Expr>,
        update: &[Stmt],
        body: &[Stmt],
    ) -> Run<()> {
        self.exec_all(b, init)?;
        for _ in 0..MAX_LOOP_ITERATIONS {
            if let Some(c) = cond {
                if !self.eval(b, c)?.is_true() {
                    return Ok(());
                }
            }
            for part in [body, update] {
                match self.exec_all(b, part) {
                    Ok(()) | Err(Flow::Continue) => {}
                    Err(Flow::Break) => return Ok(()),
                    Err(other) => return Err(other),
                }
            }
        }
        Err(Flow::Abort(format!("a loop ran {MAX_LOOP_ITERATIONS} times without ending")))
    }

    /// A call as a statement or an expression; the value a function or value-returning method
    /// gives, if any.
    pub(crate) fn call(&mut self, b: &BlockRef, call: &Call) -> Run<Option<Value>> {
        let p = self.program.clone();
        match &call.callee {
            Callee::Action(a) => {
                let action = &p.actions[a.index()];
                self.call_with(b, &action.block, &action.params, &call.args, |it| {
                    it.exec_all(&action.block, &action.body)
                })?;
                Ok(None)
            }
            Callee::Function(f) => {
                let func = &p.functions[f.index()];
                self.returns.push(func.ret_var.map(|v| (func.block.clone(), v)));
                let r =
                    self.call_with(b, &func.block, &func.params, &call.args, |it| it.exec_all(&func.block, &func.body));
                self.returns.pop();
                r?;
                Ok(func.ret_var.map(|v| self.var_ref(&func.block, v).clone()))
            }
            Callee::Builtin { target, builtin } => self.builtin(b, target, *builtin),
            Callee::ExternFunction { name, .. } => self.extern_function(b, call, name),
            Callee::Method { target, extern_type, method, .. } => {
                self.extern_method(b, call, target, extern_type, method)
            }
        }
    }

    /// Runs `body` with `params` (variables of block `callee`) bound to `args` (expressions of
    /// block `caller`): `in` and directionless arguments are copied in, `out` parameters start at
    /// their initial value, `inout` both; `out`/`inout` are copied back when the body ends,
    /// whether normally, by `return` or by `exit`.
    pub(crate) fn call_with(
        &mut self,
        caller: &BlockRef,
        callee: &BlockRef,
        params: &[Param],
        args: &[Arg],
        body: impl FnOnce(&mut Self) -> Run<()>,
    ) -> Run<()> {
        let mut values = Vec::new();
        let mut back: Vec<(Place, p4_ir::VarId, Expr)> = Vec::new();
        for (param, arg) in params.iter().zip(args) {
            let v = match param.direction {
                Direction::Out => value::default_of(&self.program, &param.ty),
                _ => self.eval(caller, &arg.expr)?,
            };
            if matches!(param.direction, Direction::Out | Direction::InOut) {
                if let Some(place) = self.place(caller, &arg.expr)? {
                    back.push((place, param.var, arg.expr.clone()));
                }
            }
            values.push((param.var, v));
        }
        for (var, v) in values {
            *self.var_mut(callee, var) = v;
        }
        let result = match body(self) {
            Ok(()) | Err(Flow::Return) => Ok(()),
            other => other,
        };
        if matches!(result, Err(Flow::Abort(_))) {
            return result;
        }
        for (place, var, expr) in back {
            let v = self.var_ref(callee, var).clone();
            self.write_place(&place, v);
            self.union_fixup(caller, &expr)?;
        }
        result
    }

    fn builtin(&mut self, b: &BlockRef, target: &Expr, builtin: Builtin) -> Run<Option<Value>> {
        if builtin == Builtin::IsValid {
            return Ok(Some(Value::Bool(self.eval(b, target)?.is_valid())));
        }
        let Some(place) = self.place(b, target)? else { return Ok(None) };
        if place.out_of_range() {
            return Ok(None);
        }
        let p = self.program.clone();
        let Some(v) = at_mut(self.var_mut(&place.block, place.var), &place.path) else { return Ok(None) };
        match builtin {
            Builtin::SetValid => {
                if let Value::Header { valid, .. } = v {
                    *valid = true;
                }
                self.union_fixup(b, target)?;
            }
            // As on the switch, the fields are cleared with the validity.
            Builtin::SetInvalid => *v = value::default_of(&p, &target.ty),
            Builtin::PushFront(k) | Builtin::PopFront(k) => {
                let Type::Stack(elem, _) = &target.ty else { return Ok(None) };
                if let Value::Stack { elems, next } = v {
                    let (k, n) = (k as usize, elems.len());
                    let blank = value::default_of(&p, elem);
                    if matches!(builtin, Builtin::PushFront(_)) {
                        for i in (0..n).rev() {
                            elems[i] = if i >= k { elems[i - k].clone() } else { blank.clone() };
                        }
                        *next = (*next as usize + k).min(n) as u32;
                    } else {
                        for i in 0..n {
                            elems[i] = if i + k < n { elems[i + k].clone() } else { blank.clone() };
                        }
                        *next = (*next as usize).saturating_sub(k) as u32;
                    }
                }
            }
            Builtin::IsValid => {}
        }
        Ok(None)
    }

    /// `sub.apply(args)`: a parser or control instance applied from another block.
    fn apply_sub_block(&mut self, caller: &BlockRef, block: &BlockRef, args: &[Arg]) -> Run<()> {
        let p = self.program.clone();
        let decl = self.block_of(block).clone();
        let params: Vec<Param> = decl
            .params
            .iter()
            .map(|v| {
                let var = &decl.vars[v.index()];
                let direction = match var.kind {
                    VarKind::Param(d) => d,
                    _ => Direction::In,
                };
                Param { name: var.name.clone(), ty: var.ty.clone(), direction, var: *v, annotations: Vec::new() }
            })
            .collect();
        match block {
            BlockRef::Control(c) => {
                let c = *c;
                self.call_with(caller, block, &params, args, |it| match it.run_control_body(c) {
                    Err(Flow::Exit) => Err(Flow::Exit),
                    other => other,
                })
            }
            BlockRef::Parser(pid) => {
                let parser = &p.parsers[pid.index()];
                self.call_with(caller, block, &params, args, |it| it.run_parser_states(parser))
            }
        }
    }

    /// A control's local initialisation and body; `return` ends it normally.
    pub(crate) fn run_control_body(&mut self, c: ControlId) -> Run<()> {
        let p = self.program.clone();
        let control = &p.controls[c.index()];
        let b = BlockRef::Control(c);
        match self.exec_all(&b, &control.init).and_then(|_| self.exec_all(&b, &control.body)) {
            Err(Flow::Return) => Ok(()),
            other => other,
        }
    }
}

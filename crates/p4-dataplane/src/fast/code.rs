//! Statements as the wire-format executor runs them: the lowered program translated once
//! ([`FastCompiler::code_block`]) into [`Code`], with places, slots, tables, regions and constants
//! resolved. Two back ends consume that one translation: the closures ([`FastCompiler::closures`];
//! they run traced builds, and any program when machine code is off or refused) and the machine
//! code (`jit`), which generates the nodes it knows and calls the closure of any other node.
//!
//! A construct with no node here (a `switch` on a table's action as written, a loop, an extern call
//! other than the ones below, a copy of a header or a struct, a stack operation, a varbit extract,
//! ...) is [`Code::Run`]: its
//! one implementation, a closure the executor's compiler builds, which calls [`super::runtime`] for
//! what an extern or the traffic manager does.

use std::sync::Arc;

use p4_ir::{BlockRef, Builtin, Call, Callee, Direction, ExprKind, Stmt};

use super::build::{csum16_plan, mark_site, FastCompiler, Leaf};
use super::places::{Place, Region};
use super::scalar::{Scalar, ScalarKind};
use super::{read_field, Dest, Val};
use crate::bits::{self, mask};
use crate::fast::compile::pending_exit::{after_if, applies_table, branch, stmt_applies_table};
use crate::fast::compile::R;
use crate::fast::exec::{reject_on_pending_error, seq, Ev, Flow, Run};
use crate::hashing::{Algorithm, Csum16Sum};

/// A statement's closure shared between the translation and both back ends.
pub(crate) type Shared = Arc<Run>;

#[derive(Clone)]
pub(crate) enum Code {
    /// `dest = value`. `applies_table`: the value applies a table, whose action may `exit`.
    Assign { dest: Dest, value: Scalar, applies_table: bool },
    /// `cond_applies_table`: as `Assign`'s, for the condition.
    If { cond: Scalar, cond_applies_table: bool, then: Vec<Code>, otherwise: Vec<Code> },
    Apply(usize),
    /// `switch (value)`: the body of the first arm whose label equals the value, else `default`.
    /// `applies_table`: as `Assign`'s; an `exit` of that table's action ends it before any arm.
    Switch { value: Scalar, applies_table: bool, arms: Vec<(u128, Vec<Code>)>, default: Option<Vec<Code>> },
    Exit,
    Return,
    /// `extract` of a header of fixed size (no varbit field) in no union.
    Extract(Region),
    /// `emit` of these headers in order (those valid).
    Emit(Vec<Region>),
    /// `setValid` of a header in no union.
    SetValid(Region),
    /// `setInvalid`: the header's bit cleared, its bytes (and a varbit's length) zeroed.
    SetInvalid(Region),
    /// `verify(ok, error)`.
    Verify { ok: Scalar, error: Scalar },
    /// The architecture's drop call: these frame slots written, the packet marked as dropped
    /// from the control `site` names.
    MarkToDrop { writes: Vec<(usize, u128)>, site: Option<usize> },
    /// The Internet checksum (csum16) of a list, without the payload.
    Checksum(Box<Checksum>),
    /// A direct call of an action whose parameters are all scalars without `out` or `inout`:
    /// each argument written into its parameter's slot (`None`: `_`), then the body.
    Action { action: usize, args: Vec<(usize, Option<Scalar>)> },
    /// A parser statement that reads ahead (`lookahead`), whose failure leaves an error pending:
    /// the packet is rejected with it right after the statement.
    ReadsAhead(Vec<Code>),
    Run(Shared),
}

#[derive(Clone)]
pub(crate) struct Checksum {
    pub cond: Scalar,
    /// What is summed, each with the shift that places it (`csum16_plan`).
    pub plan: Vec<(Leaf<Scalar>, u32)>,
    pub width: u32,
    pub target: ChecksumTarget,
}

#[derive(Clone)]
pub(crate) enum ChecksumTarget {
    /// `verify_checksum`: compared with this value; a mismatch sets the checksum-error slot.
    Verify { expected: Scalar, error_flag: Option<usize> },
    /// `update_checksum`: written here.
    Update(Dest),
}

/// A parser: its declarations, then its states by index.
pub(crate) struct ParserCode {
    pub init: Vec<Code>,
    pub states: Vec<StateCode>,
}

/// A parser state: its statements, then its transition.
pub(crate) struct StateCode {
    pub body: Vec<Code>,
    pub transition: TransitionCode,
    /// Something in the state reads ahead: a select's keys may leave an error pending.
    pub reads_ahead: bool,
}

pub(crate) enum TransitionCode {
    Goto(crate::fast::exec::Target),
    /// Keys with their signedness, and cases of one match per key (one value set may match all
    /// the keys together).
    Select { keys: Vec<(Scalar, bool)>, cases: Vec<(Vec<crate::fast::exec::KeyMatch>, crate::fast::exec::Target)> },
}

impl FastCompiler<'_, '_> {
    /// The one translation of `stmts`.
    pub(crate) fn code_block(&mut self, b: &BlockRef, stmts: &[Stmt]) -> R<Vec<Code>> {
        let mut out = Vec::with_capacity(stmts.len());
        for s in stmts {
            self.code(b, s, &mut out)?;
        }
        Ok(out)
    }

    /// A parser state's statements: one that reads past the packet's end (`lookahead`) rejects
    /// the packet right after it, as the specification's `verify` does. `reads_ahead` is left set
    /// if any statement reads ahead.
    pub(crate) fn state_code(&mut self, b: &BlockRef, stmts: &[Stmt]) -> R<Vec<Code>> {
        let mut out = Vec::with_capacity(stmts.len());
        let mut any = false;
        for s in stmts {
            self.reads_ahead = false;
            let mut one = Vec::new();
            self.code(b, s, &mut one)?;
            if self.reads_ahead {
                out.push(Code::ReadsAhead(one));
            } else {
                out.extend(one);
            }
            any |= self.reads_ahead;
        }
        self.reads_ahead = any;
        Ok(out)
    }

    fn code(&mut self, b: &BlockRef, s: &Stmt, out: &mut Vec<Code>) -> R<()> {
        match s {
            Stmt::Empty => {}
            Stmt::Block(stmts) => {
                for s in stmts {
                    self.code(b, s, out)?;
                }
            }
            Stmt::Assign { lhs, rhs, span } if self.cx.is_scalar(&lhs.ty) && !crate::wide::is_wide(&lhs.ty) && !super::build::index_after_call(lhs, rhs) => {
                let at = |e: crate::DataplaneError| e.at(*span);
                match (self.dest(b, lhs).map_err(at), self.scalar(b, rhs).map_err(at)) {
                    (Ok(dest), Ok(value)) => out.push(Code::Assign { dest, value, applies_table: stmt_applies_table(s) }),
                    _ => out.push(self.run(b, s)?),
                }
            }
            Stmt::VarInit { var, init, .. } if self.cx.var_type(b, *var).is_some_and(|ty| self.cx.is_scalar(ty) && !crate::wide::is_wide(ty)) => {
                let slot = self.cx.var_slot(b, *var)?;
                let width = self.cx.var_type(b, *var).map_or(0, |ty| self.cx.width(ty).0);
                let value = match init {
                    Some(e) => match self.scalar(b, e) {
                        Ok(v) => v,
                        Err(_) => {
                            out.push(self.run(b, s)?);
                            return Ok(());
                        }
                    },
                    None => Scalar { width, kind: ScalarKind::Const(0) },
                };
                self.written.push(slot);
                out.push(Code::Assign { dest: Dest::Slot(slot), value, applies_table: stmt_applies_table(s) });
            }
            Stmt::If { cond, then, otherwise, .. } => {
                let c = self.scalar(b, cond)?;
                let (then, otherwise) = (self.code_block(b, then)?, self.code_block(b, otherwise)?);
                out.push(Code::If { cond: c, cond_applies_table: applies_table(cond), then, otherwise });
            }
            Stmt::ApplyTable { table, .. } => {
                self.table(table.index())?;
                out.push(Code::Apply(table.index()));
            }
            Stmt::SwitchValue { expr, cases, .. } => {
                let value = self.scalar(b, expr)?;
                let (mut arms, mut default) = (Vec::new(), None);
                for (label, body) in cases {
                    let body = self.code_block(b, body)?;
                    match label {
                        Some(l) => arms.push((self.cx.scalar_value(l, &expr.ty)?, body)),
                        None => default = Some(body),
                    }
                }
                out.push(Code::Switch { value, applies_table: applies_table(expr), arms, default });
            }
            Stmt::Exit(_) => out.push(Code::Exit),
            Stmt::Return(None, _) => out.push(Code::Return),
            // A validity test as a statement does nothing.
            Stmt::Call(Call { callee: Callee::Builtin { builtin: Builtin::IsValid, .. }, .. }) => {}
            Stmt::Call(call) => match self.call_code(b, call).map_err(|e| e.at(call.span))? {
                Some(code) => out.push(code),
                None => out.push(self.run(b, s)?),
            },
            _ => out.push(self.run(b, s)?),
        }
        Ok(())
    }

    /// Statement `s` as a closure of its own.
    fn run(&mut self, b: &BlockRef, s: &Stmt) -> R<Code> {
        Ok(Code::Run(Arc::new(self.stmt(b, s)?)))
    }

    /// The calls with a node of their own; `None`: any other (a traced build records extern
    /// calls, so it gives them none).
    fn call_code(&mut self, b: &BlockRef, call: &Call) -> R<Option<Code>> {
        let arg = |i: usize| call.args.get(i).map(|a| &a.expr);
        Ok(match &call.callee {
            Callee::Method { .. } | Callee::ExternFunction { .. } if self.cx.tracing => None,
            Callee::Method { extern_type, method, .. } if extern_type == "packet_in" && method == "extract" && call.args.len() == 1 => {
                let Some(Ok(r)) = arg(0).map(|e| self.header_region(b, e)) else { return Ok(None) };
                (r.varbit.is_none() && self.union_siblings(r).is_empty()).then_some(Code::Extract(r))
            }
            Callee::Method { extern_type, method, .. } if extern_type == "packet_out" && method == "emit" && call.args.len() == 1 => {
                let mut regions = Vec::new();
                self.emit_plan(b, &call.args[0].expr, &mut regions)?;
                Some(Code::Emit(regions))
            }
            Callee::Builtin { target, builtin: Builtin::SetValid } => match self.header_region(b, target) {
                Ok(r) if self.union_siblings(r).is_empty() => Some(Code::SetValid(r)),
                _ => None,
            },
            Callee::Builtin { target, builtin: Builtin::SetInvalid } => self.header_region(b, target).ok().map(Code::SetInvalid),
            Callee::Action(a) => self.action_code_call(b, a.index(), call)?,
            Callee::ExternFunction { name, .. } if name == "verify" && call.args.len() == 2 => {
                Some(Code::Verify { ok: self.scalar(b, &call.args[0].expr)?, error: self.scalar(b, &call.args[1].expr)? })
            }
            Callee::ExternFunction { name, .. } => {
                // As `extern_call` notes: a write of the multicast group hands packets over.
                let written = self.written.len();
                let code = self.extern_code(b, call, name)?;
                let group = self.cx.intrinsic.slot(p4_arch::MetaRole::MulticastGroup);
                self.hands_over |= group.is_some_and(|g| self.written[written..].contains(&g));
                code
            }
            _ => None,
        })
    }

    /// A direct call of action `a` whose parameters are all scalars of at most 128 bits
    /// without `out` or `inout`.
    fn action_code_call(&mut self, b: &BlockRef, a: usize, call: &Call) -> R<Option<Code>> {
        let ir = self.cx.ir;
        let Some(act) = ir.actions.get(a) else { return Ok(None) };
        let simple = |fc: &Self, p: &p4_ir::Param| matches!(p.direction, Direction::None | Direction::In) && fc.cx.is_scalar(&p.ty) && !crate::wide::is_wide(&p.ty);
        if act.params.len() != call.args.len() || !act.params.iter().all(|p| simple(self, p)) {
            return Ok(None);
        }
        self.action(a)?;
        let mut args = Vec::with_capacity(call.args.len());
        for (prm, arg) in act.params.iter().zip(&call.args) {
            let slot = self.cx.var_slot(&act.block, prm.var)?;
            let value = match arg.expr.kind {
                ExprKind::DontCare => None,
                _ => Some(self.scalar(b, &arg.expr)?),
            };
            args.push((slot, value));
        }
        Ok(Some(Code::Action { action: a, args }))
    }

    /// The architecture's drop call, and csum16 checksums without the payload.
    fn extern_code(&mut self, b: &BlockRef, call: &Call, name: &str) -> R<Option<Code>> {
        let Some((arch, sig)) = p4_arch::of(self.cx.ir).and_then(|a| Some((a, a.function(name)?))) else { return Ok(None) };
        let verify = match sig.op {
            p4_arch::ExternOp::MarkToDrop => {
                let writes = self.cx.drop_call_writes(b, arch, sig, call)?;
                return Ok(Some(Code::MarkToDrop { writes, site: mark_site(b) }));
            }
            p4_arch::ExternOp::VerifyChecksum { payload: false } => true,
            p4_arch::ExternOp::UpdateChecksum { payload: false } => false,
            _ => return Ok(None),
        };
        let [cond, list, target, algorithm] = call.args.as_slice() else { return Ok(None) };
        if self.cx.algorithm(&algorithm.expr)? != Algorithm::Csum16 || self.has_varbit(&list.expr) {
            return Ok(None);
        }
        let mut leaves = Vec::new();
        self.leaves_with(b, &list.expr, &mut leaves, &mut |fc, e, _| fc.scalar(b, e))?;
        let (width, _) = self.cx.width(&target.expr.ty);
        let target = if verify {
            ChecksumTarget::Verify { expected: self.scalar(b, &target.expr)?, error_flag: self.cx.intrinsic.slot(p4_arch::MetaRole::ChecksumError) }
        } else {
            ChecksumTarget::Update(self.dest(b, &target.expr)?)
        };
        let cond = self.scalar(b, &cond.expr)?;
        Ok(Some(Code::Checksum(Box::new(Checksum { cond, plan: csum16_plan(leaves), width, target }))))
    }

    // ------------------------------------------------------------------ the closures

    /// The closures of `code`: runs of assignments become one closure.
    pub(crate) fn closures(&self, code: Vec<Code>) -> Run {
        let mut runs = Vec::with_capacity(code.len());
        let mut assigns: Vec<(Dest, Val)> = Vec::new();
        for c in code {
            match c {
                Code::Assign { dest, value, applies_table: false } => assigns.push((dest, value.closure(self.cx.tracing))),
                other => {
                    if !assigns.is_empty() {
                        runs.push(super::build::assignments(std::mem::take(&mut assigns)));
                    }
                    runs.push(self.closure(other));
                }
            }
        }
        if !assigns.is_empty() {
            runs.push(super::build::assignments(assigns));
        }
        seq(runs)
    }

    /// The closure of one node.
    pub(crate) fn closure(&self, code: Code) -> Run {
        let tracing = self.cx.tracing;
        match code {
            Code::Assign { dest, value, applies_table } => after_if(applies_table, super::build::assignments(vec![(dest, value.closure(tracing))])),
            Code::If { cond, cond_applies_table, then, otherwise } => {
                let cnd = cond.closure(tracing);
                branch(cond_applies_table, move |p, c| cnd.read(p, c) != 0, self.closures(then), self.closures(otherwise))
            }
            Code::Apply(t) => crate::fast::compile::by_tracing!(tracing, T => Box::new(move |p, c| super::apply_table::<T>(p, c, t).flow)),
            Code::Switch { value, applies_table, arms, default } => {
                let v = value.closure(tracing);
                let arms = crate::fast::exec::SwitchArms { arms: arms.into_iter().map(|(k, body)| (k, self.closures(body))).collect(), default: default.map(|d| self.closures(d)) };
                Box::new(move |p, c| {
                    let x = v.read(p, c);
                    if applies_table && std::mem::take(&mut c.exit_pending) {
                        return Flow::Exit;
                    }
                    arms.run(&x, p, c)
                })
            }
            Code::Exit => Box::new(|_, _| Flow::Exit),
            Code::Return => Box::new(|_, _| Flow::Return),
            Code::Extract(r) => self.fixed_extract(r),
            Code::Emit(regions) => Box::new(move |_, c| {
                for r in &regions {
                    if c.wire_valid.has(r.index) {
                        let bits = r.wire_bits(c);
                        if c.wire_out_tail != 0 || !bits.is_multiple_of(8) {
                            let from = c.wire.get(r.at..).unwrap_or(&[]);
                            c.wire_out_tail = bits::append_bits(&mut c.wire_out, c.wire_out_tail, from, bits);
                        } else if let Some(bytes) = c.wire.get(r.at..r.at + bits / 8) {
                            c.wire_out.extend_from_slice(bytes);
                        }
                    }
                }
                Flow::Next
            }),
            Code::SetValid(r) => Box::new(move |_, c| {
                c.wire_valid.set(r.index);
                Flow::Next
            }),
            Code::SetInvalid(r) => super::build::invalidate(r),
            Code::Verify { ok, error } => {
                let (ok, err) = (ok.closure(tracing), error.closure(tracing));
                Box::new(move |p, c| if ok.read(p, c) == 0 { Flow::Reject(err.read(p, c) as u32) } else { Flow::Next })
            }
            Code::MarkToDrop { writes, site } => Box::new(move |_, c| {
                super::runtime::mark_dropped(c, &writes, site);
                Flow::Next
            }),
            Code::Checksum(sum) => checksum_closure(*sum, tracing),
            Code::Action { action: a, args } => {
                let args: Vec<(usize, Val)> = args.into_iter().filter_map(|(s, v)| Some((s, v?.closure(tracing)))).collect();
                Box::new(move |p, c| {
                    for (s, v) in &args {
                        let x = v.read(p, c);
                        c.set(*s, x);
                    }
                    match super::FastProg::of(p).actions.get(a) {
                        Some(Some(body)) => body(p, c),
                        _ => Flow::Next,
                    }
                })
            }
            Code::ReadsAhead(code) => reject_on_pending_error(self.closures(code)),
            Code::Run(shared) => match Arc::try_unwrap(shared) {
                Ok(run) => run,
                Err(shared) => Box::new(move |p, c| shared(p, c)),
            },
        }
    }

    fn header_region(&mut self, b: &BlockRef, e: &p4_ir::Expr) -> R<Region> {
        match self.place(b, e)? {
            Place::Header(r) => Ok(r),
            _ => crate::fast::compile::unsupported("not a header"),
        }
    }
}

/// A csum16 checksum's closure: the sum of its plan, compared or written when `cond` holds.
fn checksum_closure(sum: Checksum, tracing: bool) -> Run {
    let Checksum { cond, plan, width, target } = sum;
    checksum_run(cond, csum16_sum(plan, tracing), width, target, tracing)
}

/// `verify_checksum`/`update_checksum` of `width` bits with the checksum `sum`: compared or
/// written when `cond` holds.
pub(super) fn checksum_run(cond: Scalar, sum: Ev, w: u32, target: ChecksumTarget, tracing: bool) -> Run {
    let cond = cond.closure(tracing);
    match target {
        ChecksumTarget::Verify { expected, error_flag } => {
            let expected = expected.closure(tracing);
            Box::new(move |p, c| {
                if cond.read(p, c) != 0 && super::runtime::checksum_mismatch(sum(p, c), expected.read(p, c), w) {
                    if let Some(s) = error_flag {
                        c.set(s, 1);
                    }
                }
                Flow::Next
            })
        }
        ChecksumTarget::Update(out) => Box::new(move |p, c| {
            if cond.read(p, c) != 0 {
                let v = sum(p, c) & mask(w);
                out.write(p, c, v);
            }
            Flow::Next
        }),
    }
}

/// The Internet checksum of what `plan` sums (see [`csum16_plan`]).
pub(super) fn csum16_sum(plan: Vec<(Leaf<Scalar>, u32)>, tracing: bool) -> Ev {
    let plan: Vec<(Leaf<Ev>, u32)> = plan
        .into_iter()
        .map(|(leaf, shift)| {
            let leaf = match leaf {
                Leaf::Wire { bit, width } => Leaf::Wire { bit, width },
                Leaf::Value(v, w) => Leaf::Value(v.closure(tracing).into_ev(), w),
            };
            (leaf, shift)
        })
        .collect();
    Arc::new(move |p, c| {
        // Wire pieces (at most 64 bits) add in a u64: 2^32 is 1 modulo 2^16 - 1, so a piece's
        // high half adds as if it were a low one, and each shifted half stays below 2^47.
        let mut wire_sum = 0u64;
        let mut sum = Csum16Sum::default();
        for (leaf, shift) in &plan {
            match leaf {
                Leaf::Wire { bit, width } => {
                    let v = read_field(&c.wire, *bit, *width as u32) as u64;
                    wire_sum += ((v & 0xffff_ffff) << shift) + ((v >> 32) << shift);
                }
                Leaf::Value(ev, w) => sum.add(ev(p, c) & mask(*w), *shift),
            }
        }
        sum.add(u128::from(wire_sum), 0);
        u128::from(sum.finish())
    })
}

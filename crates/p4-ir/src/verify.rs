//! The IR verifier: checks the invariants documented in the crate docs that a back end relies on.
//!
//! [`verify()`] returns every violation it finds (not only the first), each naming where it is
//! (`control MyIngress, action MyIngress.a: ...`). Checked invariants:
//!
//! - **Ids in range.** Every [`TypeId`], [`ParserId`], [`ControlId`], [`ActionId`], [`FunctionId`],
//!   [`TableId`], [`ExternId`], [`ValueSetId`] and [`StateId`] names an existing item; every
//!   [`VarId`] names a slot of the frame of the block the code runs in (a parser's or control's
//!   body, an action's or function's [`BlockRef`], a table's control).
//! - **Types.** Member names of a struct, header, union or enum are unique; no type contains a
//!   value of itself (through fields, stacks or tuples), so every walk over a type ends.
//! - **Header layouts.** Every header field is `bit`/`int`, `bool`, a serializable enum, a
//!   struct of such fields (which the crate docs' list omits, but P4 allows and the front end
//!   keeps) or a `varbit`, and a header has at most one `varbit`.
//! - **Frames.** Variable names are unique within a frame (the text form names variables by name);
//!   [`Block::params`] lists exactly the frame's [`VarKind::Param`] slots; an action's or
//!   function's parameter slot has the parameter's type; a function returning a value has a
//!   `ret_var` of that type.
//! - **Ownership.** A control's `tables` are the tables whose `control` is that control, and a
//!   table's control lists it.
//! - **Tables.** Every entry has one keyset per key; the default action and every entry's action
//!   are among the table's actions, with one documented exception: the front end gives a table
//!   without a default action an implicit `NoAction` default it does not list (as the reference
//!   compiler does; back ends add it as a default-only action). Such an unlisted default must be
//!   named `NoAction`, take no parameters and not be `const`. An action call has one argument per
//!   action parameter.
//! - **Parsers.** A parser has a `start` state first; every select case has one keyset per select key (or a single
//!   value set, which matches all keys at once).
//! - **Expressions** (where cheap): a variable's type is its slot's type; a field index is within its
//!   base's fields and the expression has that field's type; an indexed base is a stack and the
//!   result is its element type; a slice has `hi >= lo`, lies within its base's width and is
//!   `bit<hi-lo+1>`; comparisons, `&&`, `||`, `!`, `isValid()` and `t.apply().hit` are `bool`;
//!   both operands of arithmetic, bitwise and comparison operators have the same type (shifts and
//!   `++` excepted); a `++` of bit strings has the sum of the widths; a sized constant has the
//!   type of its value, and its value lies in that type's range.
//! - **Calls.** A call of an action or function, and a parser's or control's apply, has one
//!   argument per parameter; a method call of an extern the program's architecture describes
//!   ([`crate::arch`]) matches its signature: the instance is of the method's extern type, and
//!   the arguments match the parameters in number, direction and type (`register<T>.read(out T,
//!   in bit<32>)`); the core library's `extract<T>` and `emit<T>` take a header of type `T`; a `switch` on `action_run` names only actions of the table; both
//!   branches of `?:` have the same type.
//! - **Statements.** Assignment targets and `out`/`inout` arguments are l-values, and an
//!   assignment's value has its target's type; `break` and
//!   `continue` occur only inside a `for` body; a `for` condition is `bool`, and a `for` without
//!   one has a way out (a `break` of that loop, a `return` or an `exit` in its body).

use crate::visit::{walk_arg, walk_call, walk_expr, walk_keyset, walk_stmt, Visit};
use crate::*;
use std::collections::HashSet;

/// One violated invariant: `location: message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// Where the violation is, e.g. `control MyIngress, action MyIngress.a`.
    pub location: String,
    pub message: String,
}

impl std::fmt::Display for VerifyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

/// Check every invariant listed in the module docs; all violations are returned.
pub fn verify(program: &Program) -> Result<(), Vec<VerifyError>> {
    let mut v = Verifier { prog: program, errors: Vec::new(), location: String::new(), vars: &[], loop_depth: 0 };
    v.program();
    if v.errors.is_empty() {
        Ok(())
    } else {
        Err(v.errors)
    }
}

struct Verifier<'p> {
    prog: &'p Program,
    errors: Vec<VerifyError>,
    location: String,
    /// The frame of the code being checked.
    vars: &'p [Var],
    loop_depth: usize,
}

fn is_bool(t: &Type) -> bool {
    *t == Type::Bool
}

/// The named types a value of type `t` holds directly (a stack's elements, a tuple's members).
fn named_types(t: &Type, out: &mut Vec<TypeId>) {
    match t {
        Type::Named(id) => out.push(*id),
        Type::Stack(e, _) => named_types(e, out),
        Type::Tuple(ts) => ts.iter().for_each(|t| named_types(t, out)),
        _ => {}
    }
}

/// Whether `v` lies in the range of `bit<width>` (`int<width>` when `signed`), as a constant of
/// that type must: the front end wraps every constant into it.
fn fits(width: u32, signed: bool, v: &num_bigint::BigInt) -> bool {
    use num_bigint::BigInt;
    if width == 0 {
        return *v == BigInt::from(0);
    }
    let (lo, hi) = if signed {
        (-(BigInt::from(1) << (width - 1)), BigInt::from(1) << (width - 1))
    } else {
        (BigInt::from(0), BigInt::from(1) << width)
    };
    lo <= *v && *v < hi
}

fn direction_name(d: Direction) -> &'static str {
    match d {
        Direction::None => "directionless",
        Direction::In => "in",
        Direction::Out => "out",
        Direction::InOut => "inout",
    }
}

/// Whether `body` (of a loop) has a way out of the loop: a `break` of this loop (not of a loop
/// inside it), or a `return` or `exit` anywhere.
fn leaves_loop(body: &[Stmt]) -> bool {
    fn walk(ss: &[Stmt], nested: bool) -> bool {
        ss.iter().any(|s| match s {
            Stmt::Break(_) => !nested,
            Stmt::Return(..) | Stmt::Exit(_) => true,
            Stmt::If { then, otherwise, .. } => walk(then, nested) || walk(otherwise, nested),
            Stmt::SwitchAction { cases, .. } => cases.iter().any(|(_, b)| walk(b, nested)),
            Stmt::SwitchValue { cases, .. } => cases.iter().any(|(_, b)| walk(b, nested)),
            Stmt::Block(b) => walk(b, nested),
            Stmt::For { body, .. } => walk(body, true),
            _ => false,
        })
    }
    walk(body, false)
}

impl<'p> Verifier<'p> {
    fn err(&mut self, message: impl Into<String>) {
        self.errors.push(VerifyError { location: self.location.clone(), message: message.into() });
    }

    fn ty_name(&self, t: &Type) -> String {
        crate::printer::type_to_string(self.prog, t)
    }

    fn frame_of(&self, b: &BlockRef) -> Option<&'p [Var]> {
        let prog = self.prog;
        match b {
            BlockRef::Parser(p) => prog.parsers.get(p.index()).map(|p| &p.block.vars[..]),
            BlockRef::Control(c) => prog.controls.get(c.index()).map(|c| &c.block.vars[..]),
        }
    }

    fn block_label(&self, b: &BlockRef) -> String {
        match b {
            BlockRef::Parser(p) => {
                format!("parser {}", self.prog.parsers.get(p.index()).map(|p| p.block.name.as_str()).unwrap_or("?"))
            }
            BlockRef::Control(c) => {
                format!("control {}", self.prog.controls.get(c.index()).map(|c| c.block.name.as_str()).unwrap_or("?"))
            }
        }
    }

    fn program(&mut self) {
        let prog = self.prog;
        for (i, t) in prog.types.iter().enumerate() {
            self.location = format!("type {}", t.name());
            for f in t.fields() {
                self.ty(&f.ty);
            }
            self.unique_members(t);
            if let Some(path) = self.contains_itself(TypeId(i as u32)) {
                self.err(format!("contains itself (through {path}): a value of it would be infinite"));
            }
            if let TypeDef::Header { fields, .. } = t {
                self.header_fields(fields);
            }
            if let TypeDef::Extern { type_args, .. } = t {
                type_args.iter().for_each(|t| self.ty(t));
            }
        }
        for x in &prog.externs {
            self.location = format!("extern instance {}", x.name);
            x.type_args.iter().for_each(|t| self.ty(t));
            for a in x.ctor_args.iter().flatten() {
                self.value(a);
            }
        }
        for vs in &prog.value_sets {
            self.location = format!("value_set {}", vs.name);
            self.ty(&vs.elem);
        }
        for (i, p) in prog.parsers.iter().enumerate() {
            self.location = format!("parser {}", p.block.name);
            self.frame(&p.block);
            self.vars = &p.block.vars;
            p.externs.iter().for_each(|x| self.extern_id(*x));
            for vs in &p.value_sets {
                if vs.index() >= prog.value_sets.len() {
                    self.err(format!("value set #{} does not exist", vs.0));
                }
            }
            self.visit_stmts(&p.init);
            match p.states.first() {
                Some(s) if s.name == "start" => {}
                _ => self.err("the first state is not `start`"),
            }
            for s in &p.states {
                self.location = format!("parser {}, state {}", p.block.name, s.name);
                self.visit_stmts(&s.body);
                let n = p.states.len();
                let check_target = |v: &mut Self, t: &StateTarget| {
                    if let StateTarget::State(id) = t {
                        if id.index() >= n {
                            v.err(format!("transition to state #{} which does not exist ({n} states)", id.0));
                        }
                    }
                };
                match &s.transition {
                    Transition::Goto(t) => check_target(self, t),
                    Transition::Select { keys, cases } => {
                        keys.iter().for_each(|k| self.visit_expr(k));
                        for c in cases {
                            // A value set of tuples matches all the keys at once.
                            let one_value_set = matches!(c.keysets[..], [Keyset::ValueSet(_)]);
                            if c.keysets.len() != keys.len() && !one_value_set {
                                self.err(format!(
                                    "select case has {} keysets for {} keys",
                                    c.keysets.len(),
                                    keys.len()
                                ));
                            }
                            c.keysets.iter().for_each(|k| self.visit_keyset(k));
                            check_target(self, &c.target);
                        }
                    }
                }
            }
            self.callables(&BlockRef::Parser(ParserId(i as u32)));
        }
        for (i, c) in prog.controls.iter().enumerate() {
            let id = ControlId(i as u32);
            self.location = format!("control {}", c.block.name);
            self.frame(&c.block);
            self.vars = &c.block.vars;
            c.externs.iter().for_each(|x| self.extern_id(*x));
            for a in &c.actions {
                if a.index() >= prog.actions.len() {
                    self.err(format!("action #{} does not exist", a.0));
                }
            }
            for t in &c.tables {
                match prog.tables.get(t.index()) {
                    None => self.err(format!("table #{} does not exist", t.0)),
                    Some(tb) if tb.control != id => {
                        self.err(format!("lists table {} which belongs to control #{}", tb.name, tb.control.0))
                    }
                    Some(_) => {}
                }
            }
            self.visit_stmts(&c.init);
            self.visit_stmts(&c.body);
            self.callables(&BlockRef::Control(id));
        }
        for t in &prog.tables {
            self.table(t);
        }
        for a in &prog.actions {
            if self.frame_of(&a.block).is_none() {
                self.location = format!("action {}", a.name);
                self.err("runs in a block that does not exist");
            }
        }
        for f in &prog.functions {
            if self.frame_of(&f.block).is_none() {
                self.location = format!("function {}", f.name);
                self.err("runs in a block that does not exist");
            }
        }
        self.location = format!("package {}", prog.main.name);
        let main = prog.main.clone();
        self.package(&main);
    }

    /// Field names of a struct, header or union, and member names of an enum, are unique (the text
    /// form and every back end name them).
    fn unique_members(&mut self, t: &TypeDef) {
        let names: Vec<&str> = match t {
            TypeDef::Enum { members, .. } => members.iter().map(|(m, _)| m.as_str()).collect(),
            _ => t.fields().iter().map(|f| f.name.as_str()).collect(),
        };
        let mut seen = HashSet::new();
        for n in names {
            if !seen.insert(n) {
                self.err(format!("has two members named {n}"));
            }
        }
    }

    /// The field path by which type `start` contains a value of itself, if it does (directly, or
    /// through other structs, headers, unions, stacks or tuples).
    fn contains_itself(&self, start: TypeId) -> Option<String> {
        // Depth-first over the types a value of `start` holds, each visited once.
        let mut seen = HashSet::new();
        let mut stack: Vec<(TypeId, String)> = vec![(start, String::new())];
        while let Some((t, path)) = stack.pop() {
            let Some(def) = self.prog.types.get(t.index()) else { continue };
            for f in def.fields() {
                let here = if path.is_empty() { f.name.clone() } else { format!("{path}.{}", f.name) };
                let mut held = Vec::new();
                named_types(&f.ty, &mut held);
                for h in held {
                    if h == start {
                        return Some(here);
                    }
                    if seen.insert(h) {
                        stack.push((h, here.clone()));
                    }
                }
            }
        }
        None
    }

    /// Header fields have wire layouts: bits, bool, a serializable enum, or one varbit.
    fn header_fields(&mut self, fields: &[FieldDef]) {
        let mut varbits = 0;
        for f in fields {
            let ok = match &f.ty {
                Type::Bits { .. } | Type::Bool => true,
                Type::Varbit(_) => {
                    varbits += 1;
                    true
                }
                Type::Named(_) => self.fixed_layout(&f.ty),
                _ => false,
            };
            if !ok {
                let t = self.ty_name(&f.ty);
                self.err(format!("header field {} has type {t}, which has no wire layout", f.name));
            }
        }
        if varbits > 1 {
            self.err("a header has more than one varbit field");
        }
    }

    /// A type with a fixed wire layout: bits, bool, a serializable enum, or a struct of those (P4
    /// allows structs of bit fields in headers; the front end keeps them as structs).
    fn fixed_layout(&self, t: &Type) -> bool {
        match t {
            Type::Bits { .. } | Type::Bool => true,
            Type::Named(id) => match self.prog.types.get(id.index()) {
                Some(TypeDef::Enum { underlying: Some(_), .. }) => true,
                Some(TypeDef::Struct { fields, .. }) => fields.iter().all(|f| self.fixed_layout(&f.ty)),
                _ => false,
            },
            _ => false,
        }
    }

    fn package(&mut self, p: &Package) {
        for (name, a) in &p.args {
            let bad = match a {
                PackageArg::Parser(x) => x.index() >= self.prog.parsers.len(),
                PackageArg::Control(x) => x.index() >= self.prog.controls.len(),
                PackageArg::Extern(x) => x.index() >= self.prog.externs.len(),
                PackageArg::Package(q) => {
                    self.package(q);
                    false
                }
                PackageArg::Value(v) => {
                    self.value(v);
                    false
                }
            };
            if bad {
                self.err(format!("argument {name} names a block or extern that does not exist"));
            }
        }
    }

    fn frame(&mut self, b: &Block) {
        let mut seen = HashSet::new();
        for v in &b.vars {
            if !seen.insert(v.name.as_str()) {
                self.err(format!("variable name {} is used twice in the frame", v.name));
            }
            self.ty(&v.ty);
        }
        for p in &b.params {
            match b.vars.get(p.index()) {
                None => self.err(format!("parameter slot #{} is not in the frame ({} slots)", p.0, b.vars.len())),
                Some(v) if !matches!(v.kind, VarKind::Param(_)) => {
                    self.err(format!("parameter {} is not a `param` slot", v.name))
                }
                Some(_) => {}
            }
        }
        for (i, v) in b.vars.iter().enumerate() {
            if matches!(v.kind, VarKind::Param(_)) && !b.params.contains(&VarId(i as u32)) {
                self.err(format!("`param` slot {} is not among the block's parameters", v.name));
            }
        }
    }

    fn callables(&mut self, b: &BlockRef) {
        let prog = self.prog;
        let label = self.block_label(b);
        for a in prog.actions.iter().filter(|a| a.block == *b) {
            self.location = format!("{label}, action {}", a.name);
            self.vars = self.frame_of(b).unwrap_or(&[]);
            self.params(&a.params);
            self.visit_stmts(&a.body);
        }
        for f in prog.functions.iter().filter(|f| f.block == *b) {
            self.location = format!("{label}, function {}", f.name);
            self.vars = self.frame_of(b).unwrap_or(&[]);
            self.params(&f.params);
            match (f.ret == Type::Void, f.ret_var) {
                (true, _) => {}
                (false, None) => self.err("returns a value but has no return slot"),
                (false, Some(r)) => {
                    if let Some(v) = self.var(r) {
                        if v.ty != f.ret {
                            self.err(format!(
                                "return slot {} has type {}, not {}",
                                v.name,
                                self.ty_name(&v.ty),
                                self.ty_name(&f.ret)
                            ));
                        }
                    }
                }
            }
            self.visit_stmts(&f.body);
        }
    }

    fn params(&mut self, ps: &[Param]) {
        for p in ps {
            if let Some(v) = self.var(p.var) {
                if v.ty != p.ty {
                    let (a, b) = (self.ty_name(&v.ty), self.ty_name(&p.ty));
                    self.err(format!("parameter {} has type {b} but its slot {} has type {a}", p.name, v.name));
                }
            }
        }
    }

    fn table(&mut self, t: &'p Table) {
        let prog = self.prog;
        self.location = format!("table {}", t.name);
        let Some(c) = prog.controls.get(t.control.index()) else {
            self.err(format!("belongs to control #{} which does not exist", t.control.0));
            return;
        };
        let me = prog.tables.iter().position(|x| std::ptr::eq(x, t)).map(|i| TableId(i as u32));
        if me.is_some_and(|id| !c.tables.contains(&id)) {
            self.err(format!("control {} does not list it", c.block.name));
        }
        self.location = format!("control {}, table {}", c.block.name, t.name);
        self.vars = &c.block.vars;
        for k in &t.keys {
            self.visit_expr(&k.expr);
        }
        for a in &t.actions {
            match prog.actions.get(a.action.index()) {
                None => self.err(format!("action #{} does not exist", a.action.0)),
                Some(_) => a.bound_args.iter().for_each(|e| self.visit_expr(e)),
            }
        }
        let listed: Vec<ActionId> = t.actions.iter().map(|a| a.action).collect();
        if let Some(d) = &t.default_action {
            self.action_call(d, &listed, "default action");
            self.implicit_default(t, d, &listed);
        }
        for e in &t.entries {
            if e.keys.len() != t.keys.len() {
                self.err(format!("an entry has {} keysets for {} keys", e.keys.len(), t.keys.len()));
            }
            e.keys.iter().for_each(|k| self.visit_keyset(k));
            self.action_call(&e.action, &listed, "entry action");
        }
        for x in [t.direct_counter, t.direct_meter, t.implementation].into_iter().flatten() {
            self.extern_id(x);
        }
        for (_, v) in &t.properties {
            self.value(v);
        }
    }

    fn action_call(&mut self, a: &'p ActionCall, listed: &[ActionId], what: &str) {
        let Some(act) = self.prog.actions.get(a.action.index()) else {
            self.err(format!("{what} #{} does not exist", a.action.0));
            return;
        };
        // The front end gives a table without a default action an unlisted `NoAction`.
        let implicit_default = what == "default action" && act.name == "NoAction";
        if !listed.contains(&a.action) && !implicit_default {
            self.err(format!("{what} {} is not among the table's actions", act.name));
        }
        if a.args.len() != act.params.len() {
            self.err(format!("{what} {} has {} arguments for {} parameters", act.name, a.args.len(), act.params.len()));
        }
        a.args.iter().for_each(|e| self.visit_expr(e));
    }

    /// An unlisted default action is the front end's implicit one (the documented exception): a
    /// `NoAction` without parameters, not `const` (sema supplies it only when the program gives no
    /// default action; the dataplane adds it to the table as a default-only action).
    fn implicit_default(&mut self, t: &Table, d: &ActionCall, listed: &[ActionId]) {
        let Some(act) = self.prog.actions.get(d.action.index()) else { return };
        if listed.contains(&d.action) || act.name != "NoAction" {
            return;
        }
        if !act.params.is_empty() {
            self.err(format!("the implicit default action NoAction (not among the table's actions) takes {} parameters", act.params.len()));
        }
        if t.default_is_const {
            self.err("the implicit default action NoAction (not among the table's actions) is const");
        }
    }

    /// A call of an architecture extern's method against the description's signature
    /// ([`crate::arch::MethodSig::params`]): the instance's type names the method's extern type,
    /// one argument per parameter, each passed in the declared direction and of the declared
    /// type (the instance's type argument, or `bit<W>`). Methods of externs the program's
    /// architecture does not describe (`packet_in.extract`) are not checked.
    fn method_signature(&mut self, c: &Call, target: &Expr, extern_type: &str, method: &str) {
        self.packet_method(c, extern_type, method);
        let Some(arch) = crate::arch::of_program(self.prog) else { return };
        let instance = match &target.kind {
            ExprKind::Extern(x) => self.prog.externs.get(x.index()),
            _ => None,
        };
        if let Some(i) = instance.filter(|i| i.type_name != extern_type) {
            self.err(format!("calls {extern_type}.{method} on {}, an instance of {}", i.name, i.type_name));
            return;
        }
        let Some(first) = arch.method(extern_type, method) else {
            if arch.extern_type(extern_type).is_some() {
                self.err(format!("{extern_type} has no method {method} in {}", arch.name));
            }
            return;
        };
        // Overloads differ in their number of parameters.
        let Some(sig) = arch.method_with_arity(extern_type, method, c.args.len()) else {
            let n = first.params.len();
            self.err(format!("call of {extern_type}.{method} has {} arguments for {n} parameters", c.args.len()));
            return;
        };
        let type_args: &[Type] = instance.map_or(&[], |i| &i.type_args[..]);
        for (a, (name, dir, ty)) in c.args.iter().zip(sig.params) {
            if a.direction != *dir {
                let (got, want) = (direction_name(a.direction), direction_name(*dir));
                self.err(format!("argument `{name}` of {extern_type}.{method} is passed {got}, the parameter is {want}"));
            }
            let want = match ty {
                crate::arch::ParamType::Any | crate::arch::ParamType::Colour => None,
                crate::arch::ParamType::PacketLength => Some(Type::bit(32)),
                crate::arch::ParamType::Index(i) => Some(type_args.get(*i).cloned().unwrap_or_else(|| Type::bit(32))),
                crate::arch::ParamType::TypeArg(i) => type_args.get(*i).cloned(),
                crate::arch::ParamType::Bits(w) => Some(Type::bit(*w)),
            };
            if let Some(w) = want {
                self.mismatch(&a.expr, &w, &format!("parameter `{name}` of {extern_type}.{method}"));
            }
        }
    }

    /// The core library's `packet_in.extract<T>(out T)` (and its varbit form with a size),
    /// `packet_out.emit<T>(in T)`: the header argument has the call's type argument, so the
    /// bytes taken or written are the layout of the header that receives or gives them.
    fn packet_method(&mut self, c: &Call, extern_type: &str, method: &str) {
        let Callee::Method { type_args, .. } = &c.callee else { return };
        let (direction, most) = match (extern_type, method) {
            ("packet_in", "extract") => (Direction::Out, 2),
            ("packet_out", "emit") => (Direction::In, 1),
            _ => return,
        };
        let Some(header) = c.args.first() else {
            return self.err(format!("call of {extern_type}.{method} without its header argument"));
        };
        if c.args.len() > most {
            self.err(format!("call of {extern_type}.{method} has {} arguments (at most {most})", c.args.len()));
        }
        if header.direction != direction {
            let (got, want) = (direction_name(header.direction), direction_name(direction));
            self.err(format!("the header of {extern_type}.{method} is passed {got}, the parameter is {want}"));
        }
        if let [t] = &type_args[..] {
            self.mismatch(&header.expr, t, &format!("{extern_type}.{method}'s type argument"));
        }
    }

    fn extern_id(&mut self, x: ExternId) {
        if x.index() >= self.prog.externs.len() {
            self.err(format!("extern instance #{} does not exist", x.0));
        }
    }

    fn var(&mut self, id: VarId) -> Option<&'p Var> {
        let v = self.vars.get(id.index());
        if v.is_none() {
            self.err(format!("variable #{} is not in the frame ({} slots)", id.0, self.vars.len()));
        }
        v
    }

    fn ty(&mut self, t: &Type) {
        match t {
            Type::Named(id) if id.index() >= self.prog.types.len() => {
                self.err(format!("type #{} does not exist", id.0))
            }
            Type::Stack(e, _) => self.ty(e),
            Type::Tuple(ts) => ts.iter().for_each(|t| self.ty(t)),
            _ => {}
        }
    }

    fn value(&mut self, v: &Value) {
        match v {
            Value::Error(i) if *i as usize >= self.prog.errors.len() => {
                self.err(format!("error code {i} does not exist"))
            }
            Value::MatchKind(i) if *i as usize >= self.prog.match_kinds.len() => {
                self.err(format!("match kind {i} does not exist"))
            }
            Value::Enum(t, i) => match self.prog.types.get(t.index()) {
                Some(TypeDef::Enum { members, .. }) if (*i as usize) < members.len() => {}
                _ => self.err(format!("enum member {i} of type #{} does not exist", t.0)),
            },
            Value::Aggregate { fields, .. } => fields.iter().for_each(|f| self.value(f)),
            Value::Bits { width, signed, value } if !fits(*width, *signed, value) => {
                let t = if *signed { "int" } else { "bit" };
                self.err(format!("constant {value} does not fit its type {t}<{width}>"))
            }
            _ => {}
        }
    }

    fn lvalue(&mut self, e: &Expr, what: &str) {
        if !e.is_lvalue() {
            let s = crate::printer::expr_to_string(self.prog, self.vars, e);
            self.err(format!("{what} `{s}` is not an l-value"));
        }
    }

    fn table_id(&mut self, t: TableId) {
        if t.index() >= self.prog.tables.len() {
            self.err(format!("table #{} does not exist", t.0));
        }
    }

    fn expect_bool(&mut self, e: &Expr, what: &str) {
        if !is_bool(&e.ty) {
            let t = self.ty_name(&e.ty);
            self.err(format!("{what} has type {t}, not bool"));
        }
    }

    fn mismatch(&mut self, e: &Expr, expected: &Type, what: &str) {
        if e.ty != *expected {
            let s = crate::printer::expr_to_string(self.prog, self.vars, e);
            let (a, b) = (self.ty_name(&e.ty), self.ty_name(expected));
            self.err(format!("`{s}` has type {a} but {what} is {b}"));
        }
    }
}

/// The checks of statements, calls and expressions; the walks reach every nested one.
impl<'p> Visit<'p> for Verifier<'p> {
    fn visit_stmt(&mut self, s: &'p Stmt) {
        match s {
            Stmt::VarInit { var, .. } => {
                self.var(*var);
            }
            Stmt::ApplyTable { table, .. } => self.table_id(*table),
            Stmt::ApplyBlock { block, args, .. } => {
                let params = match block {
                    BlockRef::Parser(p) => self.prog.parsers.get(p.index()).map(|p| p.block.params.len()),
                    BlockRef::Control(c) => self.prog.controls.get(c.index()).map(|c| c.block.params.len()),
                };
                match params {
                    None => self.err("applies a block that does not exist"),
                    Some(n) if n != args.len() => {
                        self.err(format!("applies a block of {n} parameters with {} arguments", args.len()))
                    }
                    Some(_) => {}
                }
            }
            Stmt::SwitchAction { table, cases, .. } => {
                self.table_id(*table);
                for a in cases.iter().filter_map(|(a, _)| *a) {
                    if a.index() >= self.prog.actions.len() {
                        self.err(format!("switch case names action #{} which does not exist", a.0));
                    } else if self
                        .prog
                        .tables
                        .get(table.index())
                        .is_some_and(|t| !t.actions.iter().any(|x| x.action == a))
                    {
                        let n = &self.prog.actions[a.index()].name;
                        self.err(format!("switch case names action {n}, which is not among the table's actions"));
                    }
                }
            }
            Stmt::SwitchValue { cases, .. } => {
                for v in cases.iter().filter_map(|(v, _)| v.as_ref()) {
                    self.value(v);
                }
            }
            // Walked here: `break` and `continue` belong to the loop only in its body.
            Stmt::For { init, cond, update, body, .. } => {
                self.visit_stmts(init);
                match cond {
                    Some(c) => {
                        self.visit_expr(c);
                        self.expect_bool(c, "a `for` condition");
                    }
                    None if !leaves_loop(body) => {
                        self.err("a `for` loop without a condition has no `break`, `return` or `exit`: it never ends")
                    }
                    None => {}
                }
                self.loop_depth += 1;
                self.visit_stmts(body);
                self.loop_depth -= 1;
                self.visit_stmts(update);
                return;
            }
            Stmt::Break(_) | Stmt::Continue(_) if self.loop_depth == 0 => self.err("break/continue outside a for loop"),
            _ => {}
        }
        walk_stmt(self, s);
        match s {
            Stmt::Assign { lhs, rhs, .. } => {
                self.lvalue(lhs, "assignment target");
                let t = lhs.ty.clone();
                self.mismatch(rhs, &t, "the assignment target's type");
            }
            Stmt::If { cond, .. } => self.expect_bool(cond, "if condition"),
            _ => {}
        }
    }

    fn visit_call(&mut self, c: &'p Call) {
        match &c.callee {
            Callee::Action(a) if a.index() >= self.prog.actions.len() => {
                self.err(format!("action #{} does not exist", a.0))
            }
            Callee::Function(f) if f.index() >= self.prog.functions.len() => {
                self.err(format!("function #{} does not exist", f.0))
            }
            Callee::Action(a) => {
                let act = &self.prog.actions[a.index()];
                if c.args.len() != act.params.len() {
                    self.err(format!(
                        "call of action {} has {} arguments for {} parameters",
                        act.name,
                        c.args.len(),
                        act.params.len()
                    ));
                }
            }
            Callee::Function(f) => {
                let fun = &self.prog.functions[f.index()];
                if c.args.len() != fun.params.len() {
                    self.err(format!(
                        "call of function {} has {} arguments for {} parameters",
                        fun.name,
                        c.args.len(),
                        fun.params.len()
                    ));
                }
            }
            _ => {}
        }
        walk_call(self, c);
        if let Callee::Method { target, extern_type, method, .. } = &c.callee {
            self.method_signature(c, target, extern_type, method);
        }
    }

    fn visit_arg(&mut self, a: &'p Arg) {
        walk_arg(self, a);
        if matches!(a.direction, Direction::Out | Direction::InOut) {
            self.lvalue(&a.expr, "out/inout argument");
        }
    }

    fn visit_keyset(&mut self, k: &'p Keyset) {
        if let Keyset::ValueSet(v) = k {
            if v.index() >= self.prog.value_sets.len() {
                self.err(format!("value set #{} does not exist", v.0));
            }
        }
        walk_keyset(self, k);
    }

    /// An expression's own checks run after its operands'.
    fn visit_expr(&mut self, e: &'p Expr) {
        self.ty(&e.ty);
        walk_expr(self, e);
        match &e.kind {
            ExprKind::Const(v) => {
                self.value(v);
                if let (Value::Bits { width, signed, .. }, Type::Bits { .. }) = (v, &e.ty) {
                    self.mismatch(e, &Type::Bits { width: *width, signed: *signed }, "its value's type");
                }
                if let (Value::Bool(_), Type::Bits { .. }) = (v, &e.ty) {
                    self.mismatch(e, &Type::Bool, "its value's type");
                }
            }
            ExprKind::Var(id) => {
                if let Some(v) = self.var(*id) {
                    let t = v.ty.clone();
                    self.mismatch(e, &t, "the variable's slot type");
                }
            }
            ExprKind::Field(b, i) => {
                let field_ty = match &b.ty {
                    Type::Named(t) => {
                        self.prog.types.get(t.index()).map(|d| d.fields().get(*i as usize).map(|f| f.ty.clone()))
                    }
                    Type::Tuple(ts) => Some(ts.get(*i as usize).cloned()),
                    _ => None,
                };
                match field_ty {
                    Some(Some(ft)) => self.mismatch(e, &ft, "the field's type"),
                    Some(None) => self.err(format!("field #{i} does not exist in {}", self.ty_name(&b.ty))),
                    None => {}
                }
            }
            ExprKind::Index(b, _) => match &b.ty {
                Type::Stack(el, _) => {
                    let el = (**el).clone();
                    self.mismatch(e, &el, "the stack's element type");
                }
                t => {
                    let t = self.ty_name(t);
                    self.err(format!("indexing a value of type {t}, which is not a stack"));
                }
            },
            ExprKind::StackNext(b) | ExprKind::StackLast(b) => {
                if !matches!(b.ty, Type::Stack(..)) {
                    self.err("next/last of a value that is not a stack");
                }
            }
            ExprKind::Slice(b, hi, lo) => {
                if hi < lo {
                    self.err(format!("slice [{hi}:{lo}] has hi < lo"));
                } else {
                    if let Type::Bits { width, .. } = b.ty {
                        if *hi >= width {
                            self.err(format!("slice [{hi}:{lo}] is outside a {width}-bit value"));
                        }
                    }
                    self.mismatch(e, &Type::bit(hi - lo + 1), "a slice's type");
                }
            }
            ExprKind::Unary(UnOp::Not, _) => self.expect_bool(e, "`!`"),
            ExprKind::Binary(op, l, r) => {
                use BinOp::*;
                match op {
                    Eq | Ne | Lt | Le | Gt | Ge => {
                        self.expect_bool(e, "a comparison");
                        let lt = l.ty.clone();
                        self.mismatch(r, &lt, "the left operand's type");
                    }
                    And | Or => {
                        self.expect_bool(e, "`&&`/`||`");
                        self.expect_bool(l, "an operand of `&&`/`||`");
                        self.expect_bool(r, "an operand of `&&`/`||`");
                    }
                    Shl | Shr => {}
                    Concat => {
                        if let (Type::Bits { width: a, .. }, Type::Bits { width: b, .. }, Type::Bits { width: c, .. }) =
                            (&l.ty, &r.ty, &e.ty)
                        {
                            if a + b != *c {
                                self.err(format!("`++` of {a} and {b} bits is {c} bits wide"));
                            }
                        }
                    }
                    _ => {
                        let lt = l.ty.clone();
                        self.mismatch(r, &lt, "the left operand's type");
                    }
                }
            }
            ExprKind::Mux(c, a, b) => {
                self.expect_bool(c, "a `?:` condition");
                let at = a.ty.clone();
                self.mismatch(b, &at, "the other `?:` branch's type");
            }
            ExprKind::Call(c) => {
                if let Callee::Builtin { builtin: Builtin::IsValid, .. } = c.callee {
                    self.expect_bool(e, "`isValid()`");
                }
            }
            ExprKind::ApplyTable(t, crate::ApplyResult::ActionRun) => {
                self.table_id(*t);
                self.mismatch(e, &Type::bit(32), "`apply().action_run`'s type");
            }
            ExprKind::ApplyTable(t, _) => {
                self.table_id(*t);
                self.expect_bool(e, "`apply().hit/miss`");
            }
            ExprKind::Extern(x) => self.extern_id(*x),
            ExprKind::StackLastIndex(_)
            | ExprKind::Unary(..)
            | ExprKind::Cast(_)
            | ExprKind::Aggregate(_)
            | ExprKind::InvalidHeader
            | ExprKind::DontCare => {}
        }
    }
}

//! The p4forge IR: one typed, **elaborated** program, produced by `p4-sema` and consumed by every back
//! end (the software dataplane in `p4-dataplane`, the RTL generator later).
//!
//! Invariants (checked by `p4-sema`, relied on by back ends — a back end never re-checks them):
//! - **Fully elaborated.** The top-level package instantiation has been evaluated: every parser,
//!   control, action, table, function and extern object below is a concrete *instance*, monomorphic
//!   (no type variables), with constructor arguments evaluated to [`Value`]s. Generic or shared
//!   declarations appear once per instantiation (per block that uses them).
//! - **One frame per block.** Each parser/control instance owns a flat list of variables
//!   ([`Block::vars`]): its runtime parameters, its locals, and the parameters and locals of every action
//!   and function that runs inside it. A [`VarId`] indexes that list. There is no recursion in P4, so
//!   slots can be allocated statically; a back end may lay every variable out once per block.
//! - **Every expression is typed** ([`Expr::ty`]) and every implicit conversion is explicit: both operands
//!   of an arithmetic/comparison operator have the same type (shifts and `++` excepted), `int` literals
//!   have been given widths wherever the context fixed one, constants are folded to [`ExprKind::Const`].
//! - **Names are resolved** to ids; strings remain only for control-plane names and diagnostics.
//! - **Headers have bit-exact layouts**: [`TypeDef::Header`] fields are in wire order, widths known.
//!
//! The text form ([`printer`]) is stable and used for snapshot tests (`p4forge compile --emit ir`).
#![forbid(unsafe_code)]

pub mod arch;
pub mod cfg;
pub mod layout;
pub mod printer;
pub mod text;
pub mod time;
pub mod verify;
pub mod visit;

use num_bigint::BigInt;
pub use p4_lang::ops::{BinOp, Direction, UnOp};
pub use p4_lang::span::Span;

macro_rules! id_type {
    ($($name:ident),*) => {$(
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);
        impl $name {
            pub fn index(self) -> usize { self.0 as usize }
        }
    )*};
}
id_type!(TypeId, VarId, ParserId, ControlId, ActionId, FunctionId, TableId, ExternId, ValueSetId, StateId);

// ---------------------------------------------------------------- program

/// A whole elaborated program.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// Named types (structs, headers, unions, enums, extern types), indexed by [`TypeId`].
    pub types: Vec<TypeDef>,
    /// `error` members; the error code is the index. `core.p4`'s errors come first, in declaration order.
    pub errors: Vec<String>,
    /// `match_kind` members in declaration order.
    pub match_kinds: Vec<String>,
    pub parsers: Vec<Parser>,
    pub controls: Vec<Control>,
    pub actions: Vec<Action>,
    pub functions: Vec<Function>,
    pub tables: Vec<Table>,
    pub externs: Vec<ExternInstance>,
    pub value_sets: Vec<ValueSet>,
    /// The top-level instantiation (named `main` in the source).
    pub main: Package,
}

impl Program {
    pub fn type_def(&self, id: TypeId) -> &TypeDef {
        &self.types[id.index()]
    }
    pub fn find_type(&self, name: &str) -> Option<TypeId> {
        self.types.iter().position(|t| t.name() == name).map(|i| TypeId(i as u32))
    }
    pub fn error_code(&self, name: &str) -> Option<u32> {
        self.errors.iter().position(|e| e == name).map(|i| i as u32)
    }

    /// Positions of the fields of struct type `ty` annotated `@field_list(index)`: what a v1model
    /// clone, resubmit or recirculate with that field list carries to the new packet.
    pub fn field_list_fields(&self, ty: &Type, index: u64) -> Vec<usize> {
        let Type::Named(id) = ty else { return Vec::new() };
        let Some(def) = self.types.get(id.index()) else { return Vec::new() };
        def.fields()
            .iter()
            .enumerate()
            .filter(|(_, f)| {
                f.annotations.iter().any(|a| {
                    a.name == "field_list"
                        && a.args.iter().any(|v| match v {
                            Value::Bits { value, .. } | Value::InfInt(value) => {
                                u64::try_from(value).is_ok_and(|v| v == index)
                            }
                            _ => false,
                        })
                })
            })
            .map(|(i, _)| i)
            .collect()
    }
}

/// An instantiated package (`V1Switch(...) main;`). Arguments are in parameter order.
#[derive(Clone, Debug, Default)]
pub struct Package {
    /// The package type's name, e.g. `V1Switch`. Back ends dispatch on it.
    pub type_name: String,
    /// The instance name, e.g. `main`.
    pub name: String,
    pub args: Vec<(String, PackageArg)>,
}

#[derive(Clone, Debug)]
pub enum PackageArg {
    Parser(ParserId),
    Control(ControlId),
    Package(Box<Package>),
    Extern(ExternId),
    Value(Value),
}

// ---------------------------------------------------------------- types

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Bool,
    /// `bit<W>` (`signed == false`) or `int<W>` (`signed == true`).
    Bits { width: u32, signed: bool },
    /// `varbit<MAX>`
    Varbit(u32),
    /// `int` — only for compile-time values; never stored in a variable.
    InfInt,
    String,
    Error,
    MatchKind,
    Void,
    /// A [`TypeDef::Struct`], [`TypeDef::Header`], [`TypeDef::Union`], [`TypeDef::Enum`] or
    /// [`TypeDef::Extern`].
    Named(TypeId),
    /// `T[N]`: header stack (or array of structs/unions).
    Stack(Box<Type>, u32),
    /// `tuple<...>` and list expressions.
    Tuple(Vec<Type>),
}

impl Type {
    pub fn bit(width: u32) -> Type {
        Type::Bits { width, signed: false }
    }
    pub fn int(width: u32) -> Type {
        Type::Bits { width, signed: true }
    }
}

#[derive(Clone, Debug)]
pub enum TypeDef {
    Struct { name: String, fields: Vec<FieldDef> },
    /// Fields in wire order; each field is `Bits`, `Varbit` (at most one), `Bool` (1 bit) or a
    /// serializable enum (`Named` enum with an underlying type).
    /// `annotations`: the declaration's own (`@controller_header("packet_in")`).
    Header { name: String, fields: Vec<FieldDef>, annotations: Vec<Annotation> },
    Union { name: String, fields: Vec<FieldDef> },
    /// A plain enum (`underlying == None`) or a serializable enum (members carry values).
    Enum { name: String, underlying: Option<Type>, members: Vec<(String, Option<BigInt>)> },
    /// A specialised extern type, e.g. `register<bit<32>>`.
    Extern { name: String, type_args: Vec<Type> },
}

impl TypeDef {
    pub fn name(&self) -> &str {
        match self {
            TypeDef::Struct { name, .. }
            | TypeDef::Header { name, .. }
            | TypeDef::Union { name, .. }
            | TypeDef::Enum { name, .. }
            | TypeDef::Extern { name, .. } => name,
        }
    }
    pub fn fields(&self) -> &[FieldDef] {
        match self {
            TypeDef::Struct { fields, .. } | TypeDef::Header { fields, .. } | TypeDef::Union { fields, .. } => fields,
            _ => &[],
        }
    }
}

#[derive(Clone, Debug)]
pub struct FieldDef {
    pub name: String,
    pub ty: Type,
    pub annotations: Vec<Annotation>,
}

/// An annotation kept for back ends (`@name`, `@field_list`, `@priority`, `@hidden`, ...).
#[derive(Clone, Debug, PartialEq)]
pub struct Annotation {
    pub name: String,
    /// Evaluated arguments where they are constant expressions, else their source text as `String`.
    pub args: Vec<Value>,
}

// ---------------------------------------------------------------- values

/// A compile-time value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Bool(bool),
    /// A sized integer; `value` is normalised to the type's range (two's complement for signed).
    Bits { width: u32, signed: bool, value: BigInt },
    InfInt(BigInt),
    String(String),
    /// An `error` member by code.
    Error(u32),
    /// A member of a plain or serializable enum: type and member index.
    Enum(TypeId, u32),
    MatchKind(u32),
    /// A struct/header/tuple value (headers: `valid` tells validity).
    Aggregate { valid: bool, fields: Vec<Value> },
}

// ---------------------------------------------------------------- blocks (parsers and controls)

/// Where a variable comes from. Determines when it is (re)initialised.
#[derive(Clone, Debug, PartialEq)]
pub enum VarKind {
    /// A runtime parameter of the block (position in [`Block::params`]).
    Param(Direction),
    /// A block-level local (`bit<8> x;` among the control's declarations), re-initialised on each apply.
    Local,
    /// A parameter of an action or function running in this block.
    CallParam(Direction),
    /// A local of a statement block, an action or a function.
    Temp,
    /// The return-value slot of a function.
    Return,
}

#[derive(Clone, Debug)]
pub struct Var {
    pub name: String,
    pub ty: Type,
    pub kind: VarKind,
}

/// What parsers and controls share: their frame and parameters.
#[derive(Clone, Debug, Default)]
pub struct Block {
    /// Fully qualified instance name, e.g. `MyIngress` or `MyIngress.sub` (for nested instances).
    pub name: String,
    /// The declaration's type name, e.g. `MyIngress`.
    pub type_name: String,
    pub vars: Vec<Var>,
    /// Runtime parameters in declaration order.
    pub params: Vec<VarId>,
    pub annotations: Vec<Annotation>,
}

#[derive(Clone, Debug)]
pub struct Parser {
    pub block: Block,
    /// Executed once on entry, before `start` (block-level variable initialisers, instantiations' setup).
    pub init: Vec<Stmt>,
    /// `states[0]` is `start`. `accept`/`reject` are not states; see [`StateTarget`].
    pub states: Vec<ParserState>,
    pub externs: Vec<ExternId>,
    pub value_sets: Vec<ValueSetId>,
}

#[derive(Clone, Debug)]
pub struct ParserState {
    pub name: String,
    pub body: Vec<Stmt>,
    pub transition: Transition,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateTarget {
    State(StateId),
    Accept,
    Reject,
}

#[derive(Clone, Debug)]
pub enum Transition {
    Goto(StateTarget),
    /// `select(keys) { cases }`; if no case matches, the parser rejects with `error.NoMatch`.
    Select { keys: Vec<Expr>, cases: Vec<SelectCase> },
}

#[derive(Clone, Debug)]
pub struct SelectCase {
    /// One keyset per key (a single `default`/`_` keyset has been expanded to all keys).
    pub keysets: Vec<Keyset>,
    pub target: StateTarget,
}

/// One component of a select case or table entry key.
#[derive(Clone, Debug)]
pub enum Keyset {
    /// Matches if equal. (Usually `Const`.)
    Value(Expr),
    /// `value &&& mask`
    Mask(Expr, Expr),
    /// `lo .. hi` inclusive
    Range(Expr, Expr),
    /// `default` / `_`
    Any,
    /// A parser value set; the case matches if any of its control-plane entries matches.
    ValueSet(ValueSetId),
    /// Table entries only: `value / prefix_len` is expressed as `Mask`; `Lpm` keeps the length.
    Lpm(Expr, u32),
}

#[derive(Clone, Debug)]
pub struct Control {
    pub block: Block,
    /// Block-level local initialisation, run at the start of every apply, then `body`.
    pub init: Vec<Stmt>,
    pub body: Vec<Stmt>,
    pub actions: Vec<ActionId>,
    pub tables: Vec<TableId>,
    pub externs: Vec<ExternId>,
}

// ---------------------------------------------------------------- callables

#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub ty: Type,
    pub direction: Direction,
    /// The slot in the owning block's frame.
    pub var: VarId,
    /// Its annotations (`@id` gives an action parameter's id).
    pub annotations: Vec<Annotation>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BlockRef {
    Parser(ParserId),
    Control(ControlId),
}

#[derive(Clone, Debug)]
pub struct Action {
    /// Fully qualified name as the control plane sees it (honouring `@name`), e.g. `MyIngress.set_port`
    /// or `NoAction`.
    pub name: String,
    /// The block whose frame the action's variables live in.
    pub block: BlockRef,
    pub params: Vec<Param>,
    pub body: Vec<Stmt>,
    pub annotations: Vec<Annotation>,
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub block: BlockRef,
    pub params: Vec<Param>,
    pub ret: Type,
    /// Slot holding the return value (when `ret != Void`).
    pub ret_var: Option<VarId>,
    pub body: Vec<Stmt>,
}

// ---------------------------------------------------------------- tables

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MatchKind {
    Exact,
    Ternary,
    Lpm,
    Range,
    Optional,
    Selector,
    Other(String),
}

impl MatchKind {
    /// The name a program and a control plane spell it with (`exact`, `lpm`, ...).
    pub fn name(&self) -> &str {
        match self {
            MatchKind::Exact => "exact",
            MatchKind::Ternary => "ternary",
            MatchKind::Lpm => "lpm",
            MatchKind::Range => "range",
            MatchKind::Optional => "optional",
            MatchKind::Selector => "selector",
            MatchKind::Other(s) => s,
        }
    }
}

#[derive(Clone, Debug)]
pub struct TableKey {
    pub expr: Expr,
    pub match_kind: MatchKind,
    /// Control-plane name: `@name` if given, else the source text of the key expression
    /// (e.g. `hdr.ipv4.dstAddr`, `hdr.ipv4.isValid()`).
    pub name: String,
    /// Its annotations but `@name` (which gives `name`); `@id` gives its match-field id.
    pub annotations: Vec<Annotation>,
}

#[derive(Clone, Debug)]
pub struct TableAction {
    pub action: ActionId,
    /// Arguments bound in the `actions` list for directional parameters (`a(x)`), in parameter order;
    /// the remaining (directionless) parameters come from the entry.
    pub bound_args: Vec<Expr>,
    /// `@tableonly` / `@defaultonly`
    pub table_only: bool,
    pub default_only: bool,
}

/// An action with its arguments (entry actions, default actions).
#[derive(Clone, Debug)]
pub struct ActionCall {
    pub action: ActionId,
    /// All arguments for the action's parameters, in order (bound args included).
    pub args: Vec<Expr>,
}

#[derive(Clone, Debug)]
pub struct TableEntry {
    /// One keyset per table key.
    pub keys: Vec<Keyset>,
    pub action: ActionCall,
    /// Explicit `priority = N:` or `@priority(N)`; otherwise const entries are ordered by position.
    pub priority: Option<u64>,
}

#[derive(Clone, Debug)]
pub struct Table {
    /// Fully qualified control-plane name, e.g. `MyIngress.ipv4_lpm`.
    pub name: String,
    pub control: ControlId,
    pub keys: Vec<TableKey>,
    pub actions: Vec<TableAction>,
    /// `NoAction` (or the architecture's default) when not given.
    pub default_action: Option<ActionCall>,
    pub default_is_const: bool,
    /// `const entries` / `entries`; `entries_const` is false for mutable `entries = {...}`.
    pub entries: Vec<TableEntry>,
    pub entries_const: bool,
    pub size: Option<u64>,
    /// `counters = c` / `meters = m` (v1model direct_counter / direct_meter instances).
    pub direct_counter: Option<ExternId>,
    pub direct_meter: Option<ExternId>,
    /// `implementation = ...` (action profiles/selectors).
    pub implementation: Option<ExternId>,
    /// Other properties, evaluated.
    pub properties: Vec<(String, Value)>,
    pub annotations: Vec<Annotation>,
}

impl Table {
    /// `support_timeout = true`: the control plane learns which entries go unhit (idle timeouts),
    /// so the dataplane records hits.
    pub fn supports_timeout(&self) -> bool {
        self.properties.iter().any(|(n, v)| n == SUPPORT_TIMEOUT && matches!(v, Value::Bool(true)))
    }

    /// The actions entries and the default can name, numbered by position (how targets and the
    /// control plane number a table's actions): the `actions` list, then the default action when
    /// the list does not have it (a table may default to an action it does not list, e.g. an
    /// implicit `NoAction`), as `@defaultonly`.
    pub fn effective_actions(&self) -> Vec<TableAction> {
        let mut out = self.actions.clone();
        if let Some(d) = &self.default_action {
            if !out.iter().any(|a| a.action == d.action) {
                out.push(TableAction { action: d.action, bound_args: Vec::new(), table_only: false, default_only: true });
            }
        }
        out
    }
}

// ---------------------------------------------------------------- externs and value sets

#[derive(Clone, Debug)]
pub struct ExternInstance {
    /// Fully qualified control-plane name, e.g. `MyIngress.port_counter`.
    pub name: String,
    /// The extern type's name (`register`, `counter`, `Checksum16`, ...).
    pub type_name: String,
    pub type_args: Vec<Type>,
    /// Constructor arguments, evaluated, in parameter order (`None` for omitted optional params).
    pub ctor_args: Vec<Option<Value>>,
    pub annotations: Vec<Annotation>,
}

/// The table property the IR keeps an idle-timeout request as ([`Table::supports_timeout`];
/// sema writes every architecture's spelling of it so, [`arch::TableProperty::IdleTimeout`]).
pub const SUPPORT_TIMEOUT: &str = "support_timeout";

#[derive(Clone, Debug)]
pub struct ValueSet {
    pub name: String,
    /// The element type: bits, a struct of bit fields, or a tuple.
    pub elem: Type,
    pub size: u32,
}

// ---------------------------------------------------------------- statements

#[derive(Clone, Debug)]
pub enum Stmt {
    /// Declares (re-initialises) a variable: headers become invalid, bits become 0 unless `init`.
    VarInit { var: VarId, init: Option<Expr>, span: Span },
    /// `lhs` is an l-value expression ([`Expr::is_lvalue`]).
    Assign { lhs: Expr, rhs: Expr, span: Span },
    Call(Call),
    ApplyTable { table: TableId, span: Span },
    /// `sub.apply(args)` for a nested parser or control instance.
    ApplyBlock { block: BlockRef, args: Vec<Arg>, span: Span },
    If { cond: Expr, then: Vec<Stmt>, otherwise: Vec<Stmt>, span: Span },
    /// `switch (t.apply().action_run)`: applies the table, then runs the first case naming the action that
    /// ran (`None` = default). Empty bodies fall through to the next non-empty one (already resolved by
    /// sema: each case's body is its own).
    SwitchAction { table: TableId, cases: Vec<(Option<ActionId>, Vec<Stmt>)>, span: Span },
    /// `switch (e)` on a bit/int/enum/error value; labels are constant; `None` = default.
    SwitchValue { expr: Expr, cases: Vec<(Option<Value>, Vec<Stmt>)>, span: Span },
    Block(Vec<Stmt>),
    /// `exit`: stops the current control instance and all its callers up to the architecture.
    Exit(Span),
    /// `return` from an action, function or control apply; the value (if any) is stored in `ret_var` first.
    Return(Option<Expr>, Span),
    /// `for` loops (P4 1.2.5); `ForIn` ranges are lowered to this form by sema.
    For { init: Vec<Stmt>, cond: Option<Expr>, update: Vec<Stmt>, body: Vec<Stmt>, span: Span },
    Break(Span),
    Continue(Span),
    /// Parser `transition` is not a statement; see [`Transition`].
    Empty,
}

#[derive(Clone, Debug)]
pub struct Arg {
    pub direction: Direction,
    /// For `out`/`inout` an l-value. For `out` args given as `_`, `ExprKind::DontCare`.
    pub expr: Expr,
}

#[derive(Clone, Debug)]
pub struct Call {
    pub callee: Callee,
    /// In parameter order (named and default arguments resolved by sema).
    pub args: Vec<Arg>,
    pub span: Span,
}

impl Call {
    /// Whether `pred` holds for an expression of the call: its target (a method's or builtin's) or
    /// an argument, or any below them ([`Expr::any`]).
    pub fn any_expr(&self, pred: &mut dyn FnMut(&Expr) -> bool) -> bool {
        let mut finder = visit::FindExpr { pred, found: false };
        visit::walk_call(&mut finder, self);
        finder.found
    }
}

#[derive(Clone, Debug)]
pub enum Callee {
    Action(ActionId),
    Function(FunctionId),
    /// An extern function such as `mark_to_drop`, `verify_checksum`, `hash`, `verify`, `clone3`.
    ExternFunction { name: String, type_args: Vec<Type> },
    /// A method of an extern object: `target` is `ExprKind::Extern(id)` for instances, or a variable of
    /// extern type (`packet_in pkt`). `extern_type` is the extern's type name (`packet_in`, `register`...).
    Method { target: Box<Expr>, extern_type: String, method: String, type_args: Vec<Type> },
    /// Built-in methods of headers, unions and stacks.
    Builtin { target: Box<Expr>, builtin: Builtin },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    IsValid,
    SetValid,
    SetInvalid,
    PushFront(u32),
    PopFront(u32),
}

// ---------------------------------------------------------------- expressions

#[derive(Clone, Debug)]
pub struct Expr {
    pub ty: Type,
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApplyResult {
    Hit,
    Miss,
    /// `t.apply().action_run` as a value: the [`ActionId`] index of the action that ran (an entry's or
    /// the default action), of type `bit<32>`. Sema keeps `switch (t.apply().action_run)` as
    /// [`Stmt::SwitchAction`]; the mid-end turns it into `init v = t.apply().action_run;` and a
    /// [`Stmt::SwitchValue`] on `v` whose labels are `32w<action id>` (the `#N` of `action #N` in
    /// the text form). A pass that renumbers actions must rewrite those labels.
    ActionRun,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Const(Value),
    Var(VarId),
    /// Field `index` of a struct, header or union (index into [`TypeDef::fields`]), or element `index`
    /// of a `Type::Tuple` value (constant tuple indexing `t[1]`).
    Field(Box<Expr>, u32),
    /// Element of a stack; the index may be dynamic (out of range: BMv2 semantics, see dataplane).
    Index(Box<Expr>, Box<Expr>),
    /// `stack.next` (l-value; advances nothing by itself — `extract` advances `nextIndex`).
    StackNext(Box<Expr>),
    /// `stack.last`
    StackLast(Box<Expr>),
    /// `stack.lastIndex` (`bit<32>`)
    StackLastIndex(Box<Expr>),
    /// `e[hi:lo]`, bounds constant.
    Slice(Box<Expr>, u32, u32),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Mux(Box<Expr>, Box<Expr>, Box<Expr>),
    /// Conversion to `self.ty` (bits↔bits of other width/sign, bool↔bit<1>, serializable enum↔bits,
    /// `int`→bits, struct/header from a tuple...).
    Cast(Box<Expr>),
    /// A value-returning call (function, extern method such as `lookahead`, `isValid()`...).
    Call(Box<Call>),
    /// `t.apply().hit` / `.miss` (`bool`) or `.action_run` (`bit<32>`, see [`ApplyResult::ActionRun`])
    /// — applies the table.
    ApplyTable(TableId, ApplyResult),
    /// A struct, header (valid) or tuple built from field values in field order.
    Aggregate(Vec<Expr>),
    /// `{#}`: an invalid header or union of type `self.ty`.
    InvalidHeader,
    /// An extern object instance (target of method calls).
    Extern(ExternId),
    /// `_` as an `out` argument: the value is discarded.
    DontCare,
}

impl Expr {
    pub fn new(ty: Type, kind: ExprKind, span: Span) -> Expr {
        Expr { ty, kind, span }
    }
    pub fn constant(value: Value, ty: Type, span: Span) -> Expr {
        Expr { ty, kind: ExprKind::Const(value), span }
    }
    /// Whether `pred` holds for this expression or any below it (a call's target and arguments
    /// included), looked at parent first.
    pub fn any(&self, pred: &mut dyn FnMut(&Expr) -> bool) -> bool {
        let mut finder = visit::FindExpr { pred, found: false };
        visit::Visit::visit_expr(&mut finder, self);
        finder.found
    }

    /// True for expressions that denote storage.
    pub fn is_lvalue(&self) -> bool {
        match &self.kind {
            ExprKind::Var(_) | ExprKind::DontCare => true,
            ExprKind::Field(e, _)
            | ExprKind::Index(e, _)
            | ExprKind::StackNext(e)
            | ExprKind::StackLast(e)
            | ExprKind::Slice(e, _, _) => e.is_lvalue(),
            _ => false,
        }
    }

    /// How many low bits of the value are zero whatever the run-time inputs (at most 64; a zero
    /// constant counts as 64). The hardware target uses it to see that a varbit length such as
    /// `(bit<32>)(len - 10) << 3` is whole bytes, so its shifters can move whole bytes.
    pub fn known_low_zeros(&self) -> u32 {
        const ALL: u32 = 64;
        let width = |ty: &Type| match ty {
            Type::Bits { width, .. } => Some(*width),
            _ => None,
        };
        match &self.kind {
            ExprKind::Const(Value::Bits { value, .. }) | ExprKind::Const(Value::InfInt(value)) => {
                value.trailing_zeros().map_or(ALL, |z| (z as u32).min(ALL))
            }
            ExprKind::Cast(e) if width(&e.ty).is_some() || matches!(e.ty, Type::InfInt) => e.known_low_zeros(),
            ExprKind::Slice(e, _, lo) => e.known_low_zeros().saturating_sub(*lo),
            ExprKind::Mux(_, a, b) => a.known_low_zeros().min(b.known_low_zeros()),
            ExprKind::Binary(op, a, b) => {
                let (za, zb) = (a.known_low_zeros(), b.known_low_zeros());
                match op {
                    BinOp::Add | BinOp::Sub | BinOp::BitOr | BinOp::BitXor => za.min(zb),
                    BinOp::BitAnd => za.max(zb),
                    BinOp::Mul => (za + zb).min(ALL),
                    BinOp::Shl => match &b.kind {
                        ExprKind::Const(Value::Bits { value, .. }) | ExprKind::Const(Value::InfInt(value)) => {
                            value.to_u32_digits().1.first().map_or(za, |k| za.saturating_add(*k).min(ALL))
                        }
                        _ => za,
                    },
                    BinOp::Concat => match width(&b.ty) {
                        Some(wb) if zb >= wb => (wb + za).min(ALL),
                        _ => zb,
                    },
                    _ => 0,
                }
            }
            _ => 0,
        }
    }
}

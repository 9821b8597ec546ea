//! The P4_16 abstract syntax tree, as written by the user (after preprocessing). Names are unresolved
//! strings; types are unresolved `TypeRef`s. `p4-sema` resolves and type-checks it into `p4-ir`.
//!
//! Invariant: every node has a span; the parser never invents nodes without one (sugar such as
//! `a += b` is kept as `Stmt::Assign` with `op: Some(BinOp::Add)`, spans pointing at the source).

pub use p4_lang::ops::{BinOp, Direction, UnOp};
use crate::span::Span;
use num_bigint::BigInt;

/// An identifier as written, with its span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: Name,
    pub span: Span,
}

/// The text of an identifier, shared by every identifier of a parse that spells it (the parser
/// hands out one per distinct text), so a program's names cost no allocation each: a program of
/// 10,000 tables has some 200,000 of them. Reads as a `&str`.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name(std::sync::Arc<str>);

impl Name {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for Name {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&*self.0, f)
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Name {
        Name(s.into())
    }
}

impl From<String> for Name {
    fn from(s: String) -> Name {
        Name(s.into())
    }
}

impl From<std::sync::Arc<str>> for Name {
    fn from(s: std::sync::Arc<str>) -> Name {
        Name(s)
    }
}

impl From<Name> for String {
    fn from(n: Name) -> String {
        n.0.to_string()
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, other: &Name) -> bool {
        *self == *other.0
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        **self == *other.0
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        **self == *other.0
    }
}

/// A possibly dot-prefixed name: `.foo` refers to the top-level scope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path {
    pub global: bool,
    pub name: Ident,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub decls: Vec<Decl>,
}

// ---------------------------------------------------------------- annotations

#[derive(Clone, Debug, PartialEq)]
pub struct Annotation {
    pub name: Ident,
    pub body: AnnotationBody,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum AnnotationBody {
    /// `@name`
    Empty,
    /// `@name(...)` — the raw tokens' text (the body of an unstructured annotation is not parsed as
    /// expressions by the spec; well-known ones such as `@name("x")` are parsed by sema from `exprs`).
    Unstructured { text: String, exprs: Option<Vec<Expr>> },
    /// `@name[e1, e2]`
    ExprList(Vec<Expr>),
    /// `@name[k1 = e1, k2 = e2]`
    KeyValue(Vec<(Ident, Expr)>),
}

// ---------------------------------------------------------------- types

#[derive(Clone, Debug, PartialEq)]
pub struct TypeRef {
    pub kind: TypeRefKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TypeRefKind {
    Bool,
    Error,
    String,
    MatchKind,
    Void,
    /// `int` (arbitrary precision)
    InfInt,
    /// `bit<W>`; plain `bit` is `bit<1>` (width = literal 1 made by the parser with the keyword's span).
    Bit(Box<Expr>),
    /// `int<W>`
    Int(Box<Expr>),
    /// `varbit<W>`
    VarBit(Box<Expr>),
    /// `_` as a type argument (to be inferred)
    DontCare,
    /// A type name or type variable.
    Named(Path),
    /// `T<A, B>`
    Specialized(Path, Vec<TypeRef>),
    /// `T[N]` (header stack / array)
    Stack(Box<TypeRef>, Box<Expr>),
    /// `tuple<A, B>`
    Tuple(Vec<TypeRef>),
    /// `list<T>`
    List(Box<TypeRef>),
}

// ---------------------------------------------------------------- declarations

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub annotations: Vec<Annotation>,
    pub direction: Direction,
    pub ty: TypeRef,
    pub name: Ident,
    pub default: Option<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Decl {
    Const(ConstDecl),
    Var(VarDecl),
    /// `typedef T N;` (`is_new_type == false`) or `type T N;` (`true`)
    Typedef(TypedefDecl),
    /// header, header_union or struct
    StructLike(StructLikeDecl),
    Enum(EnumDecl),
    /// `error { A, B }` — may appear several times; members accumulate.
    Error(Vec<Ident>, Span),
    /// `match_kind { a, b }`
    MatchKind(Vec<Ident>, Span),
    Extern(ExternDecl),
    /// `extern R f<T>(...);`
    ExternFunction(FunctionProto),
    Function(FunctionDecl),
    Action(ActionDecl),
    /// `parser P(...);` (type only)
    ParserType(BlockTypeDecl),
    /// `control C(...);` (type only)
    ControlType(BlockTypeDecl),
    /// `package P(...);`
    Package(BlockTypeDecl),
    Parser(ParserDecl),
    Control(ControlDecl),
    Instantiation(Instantiation),
    Table(TableDecl),
    ValueSet(ValueSetDecl),
}

impl Decl {
    /// The declared name, if the declaration has one.
    pub fn name(&self) -> Option<&Ident> {
        match self {
            Decl::Const(d) => Some(&d.name),
            Decl::Var(d) => Some(&d.name),
            Decl::Typedef(d) => Some(&d.name),
            Decl::StructLike(d) => Some(&d.name),
            Decl::Enum(d) => Some(&d.name),
            Decl::Error(..) | Decl::MatchKind(..) => None,
            Decl::Extern(d) => Some(&d.name),
            Decl::ExternFunction(d) => Some(&d.name),
            Decl::Function(d) => Some(&d.proto.name),
            Decl::Action(d) => Some(&d.name),
            Decl::ParserType(d) | Decl::ControlType(d) | Decl::Package(d) => Some(&d.name),
            Decl::Parser(d) => Some(&d.ty.name),
            Decl::Control(d) => Some(&d.ty.name),
            Decl::Instantiation(d) => Some(&d.name),
            Decl::Table(d) => Some(&d.name),
            Decl::ValueSet(d) => Some(&d.name),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ConstDecl {
    pub annotations: Vec<Annotation>,
    pub ty: TypeRef,
    pub name: Ident,
    pub value: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    pub annotations: Vec<Annotation>,
    pub ty: TypeRef,
    pub name: Ident,
    pub init: Option<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TypedefDecl {
    pub annotations: Vec<Annotation>,
    pub is_new_type: bool,
    /// `typedef header H {...} N;` puts the derived declaration here.
    pub ty: TypedefTarget,
    pub name: Ident,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TypedefTarget {
    Type(TypeRef),
    Derived(Box<Decl>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StructKind {
    Struct,
    Header,
    HeaderUnion,
}

#[derive(Clone, Debug, PartialEq)]
pub struct StructLikeDecl {
    pub annotations: Vec<Annotation>,
    pub kind: StructKind,
    pub name: Ident,
    pub type_params: Vec<Ident>,
    pub fields: Vec<Field>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub annotations: Vec<Annotation>,
    pub ty: TypeRef,
    pub name: Ident,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct EnumDecl {
    pub annotations: Vec<Annotation>,
    pub name: Ident,
    /// `enum bit<8> E { A = 1 }` — a serializable enum has an underlying type and values.
    pub underlying: Option<TypeRef>,
    pub members: Vec<(Ident, Option<Expr>)>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FunctionProto {
    pub annotations: Vec<Annotation>,
    /// `None` for an extern constructor (`Counter(bit<32> size);`).
    pub ret: Option<TypeRef>,
    pub name: Ident,
    pub type_params: Vec<Ident>,
    pub params: Vec<Param>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ExternMethod {
    pub is_abstract: bool,
    pub proto: FunctionProto,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ExternDecl {
    pub annotations: Vec<Annotation>,
    pub name: Ident,
    pub type_params: Vec<Ident>,
    /// Methods and constructors (constructors have `proto.ret == None` and `proto.name == name`).
    pub methods: Vec<ExternMethod>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDecl {
    pub proto: FunctionProto,
    pub body: Block,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ActionDecl {
    pub annotations: Vec<Annotation>,
    pub name: Ident,
    pub params: Vec<Param>,
    pub body: Block,
    pub span: Span,
}

/// The type part of a parser/control/package: `parser P<T>(in T x);`
#[derive(Clone, Debug, PartialEq)]
pub struct BlockTypeDecl {
    pub annotations: Vec<Annotation>,
    pub name: Ident,
    pub type_params: Vec<Ident>,
    pub params: Vec<Param>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ParserDecl {
    pub ty: BlockTypeDecl,
    pub ctor_params: Vec<Param>,
    /// Constants, variables, instantiations and value sets.
    pub locals: Vec<Decl>,
    pub states: Vec<ParserState>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ParserState {
    pub annotations: Vec<Annotation>,
    pub name: Ident,
    pub body: Vec<Stmt>,
    /// `None` when the state has no transition statement (an implicit `transition reject`).
    pub transition: Option<Transition>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Transition {
    Direct(Path, Span),
    Select { exprs: Vec<Expr>, cases: Vec<SelectCase>, span: Span },
}

#[derive(Clone, Debug, PartialEq)]
pub struct SelectCase {
    /// A keyset: an expression, `Mask`, `Range`, `Default`, `DontCare`, or a `Tuple` of those for
    /// multi-field selects.
    pub keyset: Expr,
    pub next: Path,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ValueSetDecl {
    pub annotations: Vec<Annotation>,
    pub elem: TypeRef,
    pub size: Expr,
    pub name: Ident,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ControlDecl {
    pub ty: BlockTypeDecl,
    pub ctor_params: Vec<Param>,
    /// Constants, variables, instantiations, actions, tables (and functions, which p4c allows).
    pub locals: Vec<Decl>,
    pub apply: Block,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Instantiation {
    pub annotations: Vec<Annotation>,
    pub ty: TypeRef,
    pub args: Vec<Arg>,
    pub name: Ident,
    /// `= { ...abstract method implementations and nested instantiations... }`
    pub initializer: Option<Vec<Decl>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TableDecl {
    pub annotations: Vec<Annotation>,
    pub name: Ident,
    /// The optional parameter list of `table t(in bit<32> r) { ... }` (empty when absent or `()`),
    /// which p4c accepts; arguments are then supplied by `t.apply(args)`.
    pub params: Vec<Param>,
    pub properties: Vec<TableProperty>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TableProperty {
    Key { elements: Vec<KeyElement>, span: Span },
    Actions { actions: Vec<ActionRef>, span: Span },
    Entries { annotations: Vec<Annotation>, is_const: bool, entries: Vec<Entry>, span: Span },
    /// Any other property, e.g. `default_action = a(1);`, `size = 1024;`, `counters = c;`.
    Other { annotations: Vec<Annotation>, is_const: bool, name: Ident, value: Expr, span: Span },
}

#[derive(Clone, Debug, PartialEq)]
pub struct KeyElement {
    pub annotations: Vec<Annotation>,
    pub expr: Expr,
    pub match_kind: Ident,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ActionRef {
    pub annotations: Vec<Annotation>,
    pub name: Path,
    /// `None` for a bare name, `Some(args)` for `a(...)`.
    pub args: Option<Vec<Arg>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub annotations: Vec<Annotation>,
    pub is_const: bool,
    pub priority: Option<Expr>,
    /// Same forms as `SelectCase::keyset`.
    pub keyset: Expr,
    pub action: ActionRef,
    pub span: Span,
}

// ---------------------------------------------------------------- statements

#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub annotations: Vec<Annotation>,
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `lhs = rhs;` or, with `op`, the compound form `lhs op= rhs;`
    Assign { lhs: Expr, op: Option<BinOp>, rhs: Expr, span: Span },
    /// A method/function call or `X.apply(...)` used as a statement; `call` is an `ExprKind::Call`.
    Call { call: Expr, span: Span },
    If { cond: Expr, then: Box<Stmt>, otherwise: Option<Box<Stmt>>, span: Span },
    Block(Block),
    Exit(Span),
    Return(Option<Expr>, Span),
    Break(Span),
    Continue(Span),
    Empty(Span),
    Switch { expr: Expr, cases: Vec<SwitchCase>, span: Span },
    /// `for (init; cond; update) body`
    For { annotations: Vec<Annotation>, init: Vec<Stmt>, cond: Option<Expr>, update: Vec<Stmt>, body: Box<Stmt>, span: Span },
    /// `for (T x in collection) body`; `collection` may be an `ExprKind::Range`.
    ForIn { annotations: Vec<Annotation>, ty: Box<TypeRef>, var: Ident, collection: Expr, body: Box<Stmt>, span: Span },
    /// Local declarations inside blocks (`Var`, `Const`; `Instantiation` only where the spec allows).
    Decl(Box<Decl>),
}

impl Stmt {
    pub fn span(&self) -> Span {
        match self {
            Stmt::Assign { span, .. }
            | Stmt::Call { span, .. }
            | Stmt::If { span, .. }
            | Stmt::Switch { span, .. }
            | Stmt::For { span, .. }
            | Stmt::ForIn { span, .. } => *span,
            Stmt::Block(b) => b.span,
            Stmt::Exit(s) | Stmt::Return(_, s) | Stmt::Break(s) | Stmt::Continue(s) | Stmt::Empty(s) => *s,
            Stmt::Decl(d) => match &**d {
                Decl::Const(c) => c.span,
                Decl::Var(v) => v.span,
                Decl::Instantiation(i) => i.span,
                other => other.name().map(|n| n.span).unwrap_or(Span::DUMMY),
            },
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct SwitchCase {
    /// `None` means `default`.
    pub label: Option<Expr>,
    /// `None` for a fall-through label (`case:` with no block).
    pub body: Option<Block>,
    pub span: Span,
}

// ---------------------------------------------------------------- expressions

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

// A program's syntax tree is held whole while sema builds the IR from it, and expressions are most
// of its nodes: the rare variants holding a type box it, so that an `Expr` stays at 80 bytes.
const _: () = assert!(std::mem::size_of::<Expr>() <= 80);

// Likewise statements (the loop variable's type of `for (T x in c)` is boxed): 176 bytes.
const _: () = assert!(std::mem::size_of::<Stmt>() <= 176);

/// An integer literal. `8w5` has `width: Some((8, false))`, `8s5` has `Some((8, true))`, `5` has `None`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntLit {
    pub value: BigInt,
    pub width: Option<(u32, bool)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    /// `name = value` for named arguments.
    pub name: Option<Ident>,
    /// `ExprKind::DontCare` for `_`.
    pub value: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Bool(bool),
    Int(IntLit),
    String(String),
    /// A name: variable, constant, action, table, instance, type (in `T.minSizeInBits()`), `error`, ...
    Name(Path),
    /// `this`
    This,
    /// `e.name` (also `E.Member` for enums and `error.NoMatch`, where `e` is a `Name`)
    Member(Box<Expr>, Ident),
    /// `e[i]`
    Index(Box<Expr>, Box<Expr>),
    /// `e[hi:lo]`
    Slice(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `e[lo +: w]` — the `w` bits starting at `lo` (the same bits as `e[lo + w - 1 : lo]`, but
    /// `lo` is written and evaluated once).
    IndexedSlice(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `f(args)` or `f<T>(args)`; `callee` is a `Name`, `Member` (methods, `t.apply`) or a type
    /// constructor name (`Counter(...)` in instantiation-expressions).
    Call { callee: Box<Expr>, type_args: Vec<TypeRef>, args: Vec<Arg> },
    /// A constructor call used as an expression: `MyCtrl()` passed to a package, `Register<..>(8)`.
    /// The parser produces this when the callee is syntactically a type (`T<..>(..)`); a plain
    /// `Name(args)` stays a `Call` and sema decides.
    Construct { ty: Box<TypeRef>, args: Vec<Arg> },
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `c ? a : b`
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `(T) e`
    Cast(Box<TypeRef>, Box<Expr>),
    /// `{ a, b }` (list / tuple / struct-by-position initializer); `(a, b)` keysets use `Tuple`.
    List(Vec<Expr>),
    /// `{ f = a, g = b }`, with `has_dots` for a trailing `...`.
    StructInit { fields: Vec<(Ident, Expr)>, has_dots: bool },
    /// `(T) { ... }` is `Cast(T, List/StructInit)`.
    /// `{#}` — an invalid header/union value.
    InvalidHeader,
    /// `...` in a list expression.
    Dots,
    /// `_`
    DontCare,
    /// keyset `default`
    Default,
    /// keyset `a &&& b`
    Mask(Box<Expr>, Box<Expr>),
    /// keyset or for-in collection `a .. b`
    Range(Box<Expr>, Box<Expr>),
    /// keyset tuple `(a, b, ...)` in select cases and table entries
    Tuple(Vec<Expr>),
    /// A type used where an expression is expected: `bit<8>.minSizeInBits()` style calls, or type
    /// arguments given positionally. The parser emits it only where the syntax is unambiguously a type.
    Type(Box<TypeRef>),
    /// A placeholder for an expression that failed to parse (an error was already reported).
    Error,
}

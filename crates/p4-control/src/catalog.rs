//! What the control plane knows of a program, taken once from its IR, its layouts
//! ([`p4_ir::layout::Layouts`]) and its architecture's description: the tables with their keys,
//! actions and action data, the extern instances it reads and writes, the value sets, the port
//! width, and what the program itself puts in its tables (default actions, `entries`). Every
//! dataplane and the control-plane model ([`crate::state::ControlState`]) read these facts here
//! rather than working them out again.

use p4_ir::arch::{Architecture, MetaRole, StateKind};
use p4_ir::layout::{self, KeyLayout, Layouts, ObjectKind, ParamLayout};
use p4_ir::{MatchKind, Program};

use crate::Match;

/// The entries a table without a `size` holds: what the reference compiler gives BMv2 for one.
pub const DEFAULT_TABLE_SIZE: usize = 1024;

/// A program as its control plane sees it.
#[derive(Clone, Debug)]
pub struct Catalog {
    /// The architecture's name, for messages (`v1model`).
    pub arch: &'static str,
    /// The largest port number the program's port fields hold (`u32::MAX` without port fields).
    pub max_port: u32,
    /// The largest multicast group id the program's group field holds (`u32::MAX` without one).
    pub max_group: u32,
    /// By [`p4_ir::TableId`] index.
    pub tables: Vec<TableInfo>,
    /// By [`p4_ir::ExternId`] index.
    pub externs: Vec<ExternInfo>,
    /// By [`p4_ir::ValueSetId`] index.
    pub value_sets: Vec<ValueSetInfo>,
}

/// One table.
#[derive(Clone, Debug)]
pub struct TableInfo {
    pub name: String,
    /// The key as entries give it (fields in matching order, widths, match kinds).
    pub key: KeyLayout,
    /// The actions entries and the default may name, by position ([`p4_ir::Table::effective_actions`]).
    pub actions: Vec<TableAction>,
    /// The program lists `const entries`: the control plane may not change them.
    pub entries_const: bool,
    pub default_is_const: bool,
    /// Extern instances kept per entry (direct counters and meters), by [`p4_ir::ExternId`] index.
    pub per_entry: Vec<usize>,
    /// The most entries it holds: its `size`, else [`DEFAULT_TABLE_SIZE`].
    pub capacity: usize,
    /// Whether the program gives the size.
    pub sized: bool,
    /// The default action the program gives (position in `actions`, action data).
    pub initial_default: (usize, Vec<u128>),
    /// The entries the program lists, in order.
    pub initial_entries: Vec<InitialEntry>,
    /// Its action profile or selector (`implementation`), by [`p4_ir::ExternId`] index.
    pub implementation: Option<usize>,
    /// The hash algorithm its action selector picks a group's member with (`None`: no selector).
    pub selector: Option<p4_ir::arch::HashAlgorithm>,
    /// `support_timeout = true`: the dataplane records which entries packets hit.
    pub records_hits: bool,
}

/// An action as a table offers it.
#[derive(Clone, Debug)]
pub struct TableAction {
    pub name: String,
    /// The [`p4_ir::ActionId`] index.
    pub action: usize,
    /// Its action data: the directionless parameters, in order.
    pub params: Vec<ParamLayout>,
    pub default_only: bool,
    pub table_only: bool,
}

/// An entry the program lists (`entries = { ... }`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitialEntry {
    pub matches: Vec<Match>,
    /// BMv2's convention: smaller wins.
    pub priority: i64,
    pub action: usize,
    pub args: Vec<u128>,
}

/// One extern instance.
#[derive(Clone, Debug)]
pub struct ExternInfo {
    pub name: String,
    /// The kind of control-plane object it is (`None`: the control plane does not see it).
    pub kind: Option<ObjectKind>,
    /// What state it keeps.
    pub state: StateKind,
    /// Number of cells (registers, counters, meters).
    pub size: u64,
    /// Width of a register's cells (other element types are held in one 128-bit cell).
    pub width: u32,
    /// A meter or counter that measures bytes rather than packets.
    pub bytes: bool,
    /// The unit its constructor names, as the architecture spells it (`packets_and_bytes`).
    pub unit: Option<String>,
}

/// One parser value set.
#[derive(Clone, Debug)]
pub struct ValueSetInfo {
    pub name: String,
    /// Bits of a member (select keys compare at most 128: wider members are cut as keys are).
    pub width: u32,
    /// Most members it holds (0: no bound).
    pub size: usize,
}

impl Catalog {
    /// The catalog of `program`, whose layouts are `layouts`; `Err` says why the program's own
    /// entries or defaults cannot be taken (a non-constant key or argument, an action not listed).
    pub fn of(program: &Program, layouts: &Layouts) -> Result<Catalog, String> {
        let arch = p4_ir::arch::of_program(program);
        let tables = program
            .tables
            .iter()
            .enumerate()
            .map(|(ti, t)| {
                let mut info = table_info(program, layouts, ti, t)?;
                info.selector = arch.and_then(|a| a.selector_algorithm(program, t));
                Ok(info)
            })
            .collect::<Result<Vec<_>, String>>()?;
        let externs =
            program.externs.iter().enumerate().map(|(i, e)| extern_info(program, layouts, arch, i, e)).collect();
        let value_sets = program
            .value_sets
            .iter()
            .enumerate()
            .map(|(i, v)| ValueSetInfo {
                name: v.name.clone(),
                width: layouts.value_set_widths.get(i).copied().unwrap_or(0).min(128),
                size: v.size as usize,
            })
            .collect();
        let largest = |role| match arch.and_then(|a| a.role_width(program, role)) {
            Some(w) if w < 32 => (1u32 << w) - 1,
            _ => u32::MAX,
        };
        let (max_port, max_group) = (largest(MetaRole::IngressPort), largest(MetaRole::MulticastGroup));
        Ok(Catalog { arch: arch.map_or("the dataplane", |a| a.name), max_port, max_group, tables, externs, value_sets })
    }

    /// The table whose entries keep extern `id` (a direct counter or meter), if any.
    pub fn direct_table(&self, id: usize) -> Option<usize> {
        self.tables.iter().position(|t| t.per_entry.contains(&id))
    }
}

impl TableInfo {
    /// The match kind that makes the table take priorities (ternary, range or optional), by name.
    pub fn priority_kind(&self) -> Option<&str> {
        self.key.priority_kind.as_ref().map(MatchKind::name)
    }

    /// How entries win over each other: see [`Precedence`].
    pub fn precedence(&self) -> Precedence {
        let mut lpms = self.key.fields.iter().enumerate().filter(|(_, f)| f.match_kind == MatchKind::Lpm);
        match (self.key.priority_kind.is_some(), lpms.next(), lpms.next()) {
            (false, Some((pos, f)), None) => Precedence::LongestPrefix { field: pos, width: f.width },
            (false, None, _) => Precedence::Exact,
            _ => Precedence::Priority,
        }
    }
}

/// Which entry of a table wins when several match, and which entries are the same entry twice
/// (BMv2's DUPLICATE_ENTRY).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precedence {
    /// Every field exact: keys never overlap; the same key twice is a duplicate.
    Exact,
    /// One lpm field (`field`, of `width` bits), the rest exact: the longest prefix wins; the
    /// same key twice is a duplicate.
    LongestPrefix { field: usize, width: u32 },
    /// Priorities (ternary, range or optional fields, or more than one lpm field): the smallest
    /// priority number wins, ties go to the entry added first; the same key and priority twice
    /// is a duplicate.
    Priority,
}

fn table_info(program: &Program, layouts: &Layouts, ti: usize, t: &p4_ir::Table) -> Result<TableInfo, String> {
    let actions: Vec<TableAction> = t
        .effective_actions()
        .iter()
        .map(|a| TableAction {
            name: program.actions.get(a.action.index()).map_or_else(String::new, |x| x.name.clone()),
            action: a.action.index(),
            params: layouts.actions.get(a.action.index()).map_or_else(Vec::new, |l| l.params.clone()),
            default_only: a.default_only,
            table_only: a.table_only,
        })
        .collect();
    let key = layouts.keys.get(ti).cloned().ok_or_else(|| format!("table {}: no key layout", t.name))?;
    let mut info = TableInfo {
        name: t.name.clone(),
        key,
        actions,
        default_is_const: t.default_is_const,
        // `entries_const` only matters when the program lists entries.
        entries_const: t.entries_const && !t.entries.is_empty(),
        per_entry: t.direct_counter.into_iter().chain(t.direct_meter).map(|e| e.index()).collect(),
        capacity: t.size.map_or(DEFAULT_TABLE_SIZE, |s| usize::try_from(s).unwrap_or(usize::MAX)),
        sized: t.size.is_some(),
        initial_default: (0, Vec::new()),
        initial_entries: Vec::new(),
        implementation: t.implementation.map(|e| e.index()),
        selector: None,
        records_hits: t.supports_timeout(),
    };
    if let Some(d) = &t.default_action {
        info.initial_default = program_action(program, &info, d)?;
    }
    for (pos, e) in t.entries.iter().enumerate() {
        let (action, args) = program_action(program, &info, &e.action)?;
        let matches = program_keysets(program, &info, &e.keys)?;
        // As the reference compiler hands const entries to BMv2: an explicit priority is passed
        // through unchanged, an entry without one gets its 1-based position, and BMv2 prefers the
        // smaller number (ties: earlier entry).
        let priority = match e.priority {
            Some(p) => i64::try_from(p).unwrap_or(i64::MAX),
            None => pos as i64 + 1,
        };
        info.initial_entries.push(InitialEntry { matches, priority, action, args });
    }
    Ok(info)
}

/// The table-local action position and data of an action call written in the program.
fn program_action(program: &Program, t: &TableInfo, call: &p4_ir::ActionCall) -> Result<(usize, Vec<u128>), String> {
    let position = t
        .actions
        .iter()
        .position(|a| a.action == call.action.index())
        .ok_or_else(|| format!("table {}: action not in its action list", t.name))?;
    let Some(action) = program.actions.get(call.action.index()) else { return Ok((position, Vec::new())) };
    let mut data = Vec::new();
    for d in &t.actions[position].params {
        let Some(arg) = call.args.get(d.index) else { continue };
        let param = &action.params[d.index];
        match &arg.kind {
            p4_ir::ExprKind::Const(v) => data.push(layout::scalar_value(program, v, &param.ty)?),
            _ => return Err(format!("table {}: non-constant action argument", t.name)),
        }
    }
    Ok((position, data))
}

/// Key components of a program's entry, in key-layout order (selector keys take no part).
fn program_keysets(program: &Program, t: &TableInfo, keysets: &[p4_ir::Keyset]) -> Result<Vec<Match>, String> {
    let mut out = Vec::new();
    for k in &t.key.fields {
        let Some(ks) = keysets.get(k.index) else { continue };
        let all = crate::convert::mask(k.width);
        let constant = |e: &p4_ir::Expr| match &e.kind {
            p4_ir::ExprKind::Const(v) => Ok(layout::scalar_value(program, v, &e.ty)? & all),
            _ => Err(format!("table {}: non-constant entry key", t.name)),
        };
        out.push(match ks {
            p4_ir::Keyset::Value(e) if k.match_kind == MatchKind::Range => {
                let v = constant(e)?;
                Match::Range(v, v)
            }
            p4_ir::Keyset::Value(e) => Match::Mask(constant(e)?, all),
            p4_ir::Keyset::Mask(v, m) => {
                let m = constant(m)?;
                Match::Mask(constant(v)? & m, m)
            }
            p4_ir::Keyset::Range(lo, hi) => Match::Range(constant(lo)?, constant(hi)?),
            p4_ir::Keyset::Any if k.match_kind == MatchKind::Range => Match::Range(0, all),
            p4_ir::Keyset::Any => Match::Mask(0, 0),
            p4_ir::Keyset::Lpm(v, len) => {
                let m = crate::convert::prefix_mask(*len, k.width);
                Match::Mask(constant(v)? & m, m)
            }
            p4_ir::Keyset::ValueSet(_) => return Err(format!("table {}: value sets in table entries", t.name)),
        });
    }
    if out.len() != t.key.fields.len() {
        return Err(format!("table {}: entry has {} keys, table has {}", t.name, out.len(), t.key.fields.len()));
    }
    Ok(out)
}

fn extern_info(
    program: &Program,
    layouts: &Layouts,
    arch: Option<&'static Architecture>,
    i: usize,
    e: &p4_ir::ExternInstance,
) -> ExternInfo {
    let ids = &layouts.ids;
    let kind = ids.id(layout::Target::Extern(p4_ir::ExternId(i as u32))).and_then(|id| ids.by_id(id)).map(|o| o.kind);
    let sig = arch.and_then(|a| a.extern_type(&e.type_name));
    let constructor = |arg: Option<usize>| arg.and_then(|a| e.ctor_args.get(a)).and_then(Option::as_ref);
    let size = match constructor(sig.and_then(|s| s.size_arg)) {
        Some(p4_ir::Value::Bits { value, .. } | p4_ir::Value::InfInt(value)) => {
            num_traits::ToPrimitive::to_u64(value).unwrap_or(0)
        }
        _ => 0,
    };
    let unit = match constructor(sig.and_then(|s| s.unit_arg)) {
        Some(p4_ir::Value::Enum(t, m)) => match program.types.get(t.index()) {
            Some(p4_ir::TypeDef::Enum { members, .. }) => members.get(*m as usize).map(|x| x.0.clone()),
            _ => None,
        },
        _ => None,
    };
    let bytes = arch.is_some_and(|a| unit.as_deref() == Some(a.unit_bytes));
    ExternInfo {
        name: e.name.clone(),
        kind,
        state: sig.map_or(StateKind::Stateless, |s| s.state),
        size,
        width: layouts.register_widths.get(i).copied().flatten().unwrap_or(128),
        bytes,
        unit,
    }
}

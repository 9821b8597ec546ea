//! The architecture layer. An architecture (v1model now; PSA and the seed NIC architectures later)
//! is described once, as data: its package and block roles, which block parameters share storage,
//! its intrinsic metadata by role, and its externs' signatures and effects
//! ([`Architecture`]). Back ends take the architecture from here instead of naming it in their
//! code: they find a program's architecture with [`of`] and resolve it against the program with
//! [`bind`] (which instance plays which role, how wide ports are).
//!
//! Dependency direction: the description types and the one v1model description live in
//! `p4_ir::arch` (re-exported here), because the IR crate's def-use analysis needs extern effects
//! and is built from a bare program; this crate adds what needs a program and is the entry point
//! back ends use. `p4-arch` depends on `p4-ir` only; nothing in `p4-ir` depends on it.
#![forbid(unsafe_code)]

pub use p4_ir::arch::*;
use p4_ir::{BlockRef, ControlId, Package, PackageArg, ParserId, Program};

/// The v1model description (a copy of the one static description; cheap: it holds only
/// references to static tables).
pub fn v1model() -> Architecture {
    v1model::V1MODEL.clone()
}

/// The architecture of `program`, by the type name of its main package (`V1Switch` → v1model).
pub fn of(program: &Program) -> Option<&'static Architecture> {
    of_program(program)
}

/// An architecture resolved against one program.
#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    pub arch: &'static Architecture,
    /// The instance playing each of `arch.blocks`, in the same order.
    pub blocks: Vec<BlockRef>,
    /// The program's port width ([`Architecture::port_width`]); `None` if it declares no
    /// `bit<W>` ingress port field.
    pub port_width: Option<u32>,
}

impl Binding {
    /// The instance playing `role`.
    pub fn block(&self, role: Role) -> Option<&BlockRef> {
        self.blocks.get(self.arch.block_index(role)?)
    }
    /// The parser playing `role`.
    pub fn parser(&self, role: Role) -> Option<ParserId> {
        match self.block(role)? {
            BlockRef::Parser(p) => Some(*p),
            BlockRef::Control(_) => None,
        }
    }
    /// The control playing `role`.
    pub fn control(&self, role: Role) -> Option<ControlId> {
        match self.block(role)? {
            BlockRef::Control(c) => Some(*c),
            BlockRef::Parser(_) => None,
        }
    }
    /// The largest port number the program's port fields hold (`u32::MAX` without a port field).
    pub fn max_port(&self) -> u32 {
        match self.port_width {
            Some(w) if w < 32 => (1u32 << w) - 1,
            _ => u32::MAX,
        }
    }
}

/// Finds `program`'s architecture and which instance plays each block role. Errors say why the
/// program does not fit (unknown package, wrong number or kind of blocks).
pub fn bind(program: &Program) -> Result<Binding, String> {
    let pkg = &program.main.type_name;
    let arch = of(program).ok_or_else(|| format!("package `{pkg}`: no architecture description (known: {})", known()))?;
    bind_as(arch, program)
}

/// Binds `program` to `arch` (which need not be registered in [`ALL`]): the instance at each
/// block's position ([`BlockRole::at`], through nested packages).
pub fn bind_as(arch: &'static Architecture, program: &Program) -> Result<Binding, String> {
    let pkg = &program.main.type_name;
    if program.main.args.len() != arch.args {
        return Err(format!("{pkg} needs {} arguments, the program gives {}", arch.args, program.main.args.len()));
    }
    let mut blocks = Vec::new();
    for role in arch.blocks {
        let Some((name, arg)) = arg_at(&program.main, role.at) else {
            return Err(format!("{pkg} has no argument at {:?} (its {:?} block)", role.at, role.role));
        };
        blocks.push(match (arg, role.kind) {
            (PackageArg::Parser(p), BlockKind::Parser) => BlockRef::Parser(*p),
            (PackageArg::Control(c), BlockKind::Control) => BlockRef::Control(*c),
            _ => return Err(format!("{pkg} argument `{name}` must be a {:?} (its {:?} block)", role.kind, role.role)),
        });
    }
    Ok(Binding { arch, blocks, port_width: arch.port_width(program) })
}

/// The argument of `pkg` at argument positions `at`, through nested packages.
fn arg_at<'p>(pkg: &'p Package, at: &[usize]) -> Option<(&'p str, &'p PackageArg)> {
    let (first, rest) = at.split_first()?;
    let (name, arg) = pkg.args.get(*first)?;
    match (rest.is_empty(), arg) {
        (true, _) => Some((name, arg)),
        (false, PackageArg::Package(inner)) => arg_at(inner, rest),
        (false, _) => None,
    }
}

/// The extern instances `table` keeps one cell of per entry (v1model's `counters =` and `meters =`
/// table properties), whatever kind they are: a back end asks the architecture
/// ([`Architecture::extern_type`]) what each one is.
pub fn per_entry_externs(table: &p4_ir::Table) -> impl Iterator<Item = p4_ir::ExternId> {
    table.direct_counter.into_iter().chain(table.direct_meter)
}

fn known() -> String {
    ALL.iter().map(|a| a.package).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests;

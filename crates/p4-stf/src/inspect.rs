//! The runtime CLI's questions about tables, answered from what the dataplane says of its program
//! ([`ControlPlane::control_catalog`]) and of a table's contents
//! ([`ControlPlane::table_contents`]): `show_tables`, `table_num_entries` and `table_dump`; and
//! the list of commands `help` prints ([`crate::usage`]).
//!
//! Values are printed in hexadecimal with as many digits as the field's width needs, keys in the
//! notation `table_add` reads (`v`, `v/len`, `v&&&m`, `lo->hi`), so a dumped entry can be typed
//! back.

use p4_control::catalog::TableInfo;
use p4_control::{Catalog, ControlError, ControlPlane, Match, TableSnapshot};
use p4_ir::MatchKind;

/// The catalog of `cp`, or why there is none.
fn catalog<C: ControlPlane + ?Sized>(cp: &C) -> Result<&Catalog, ControlError> {
    cp.control_catalog().ok_or_else(|| ControlError::Invalid("this dataplane cannot list its tables".to_string()))
}

/// The table `query` names (its name or a unique suffix) and its contents.
fn table<'c, C: ControlPlane + ?Sized>(cp: &'c C, query: &str) -> Result<(&'c TableInfo, TableSnapshot), ControlError> {
    let catalog = catalog(cp)?;
    let index = p4_control::convert::resolve("table", catalog.tables.iter().map(|t| t.name.as_str()), query)?;
    let contents = cp.table_contents(index).ok_or_else(|| ControlError::Invalid(format!("this dataplane cannot read table {query} back")))?;
    Ok((&catalog.tables[index], contents))
}

/// `show_tables`: a line per table with its key and how full it is.
pub fn show_tables<C: ControlPlane + ?Sized>(cp: &C) -> Result<String, ControlError> {
    let catalog = catalog(cp)?;
    if catalog.tables.is_empty() {
        return Ok("the program has no tables".to_string());
    }
    let width = catalog.tables.iter().map(|t| t.name.len()).max().unwrap_or(0);
    let lines: Vec<String> = catalog
        .tables
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let held = cp.table_contents(i).map_or("?".to_string(), |c| c.entries.len().to_string());
            format!("{:width$}  key {}; {held} of {} entries", t.name, key_description(t), t.capacity)
        })
        .collect();
    Ok(lines.join("\n"))
}

/// `table_num_entries <table>`: how many entries it holds.
pub fn table_num_entries<C: ControlPlane + ?Sized>(cp: &C, query: &str) -> Result<String, ControlError> {
    let (_, contents) = table(cp, query)?;
    Ok(contents.entries.len().to_string())
}

/// `table_dump <table>`: the key, every entry by handle in the order lookups try them, and the
/// default action.
pub fn table_dump<C: ControlPlane + ?Sized>(cp: &C, query: &str) -> Result<String, ControlError> {
    let (t, contents) = table(cp, query)?;
    let mut lines = vec![format!("table {}: key {}; {} of {} entries", t.name, key_description(t), contents.entries.len(), t.capacity)];
    for e in &contents.entries {
        let keys: Vec<String> = t.key.fields.iter().zip(&e.matches).map(|(f, m)| key_text(&f.match_kind, f.width, m)).collect();
        lines.push(format!("  handle {}: {} => {}", e.handle, keys.join(" "), call_text(t, e.action, &e.args)));
    }
    lines.push(format!("  default: {}", call_text(t, contents.default_action, &contents.default_args)));
    Ok(lines.join("\n"))
}

/// `hdr.ipv4.dst (lpm, 32 bits), ...`, or `none` for a table without a key.
fn key_description(t: &TableInfo) -> String {
    if t.key.fields.is_empty() {
        return "none".to_string();
    }
    let fields: Vec<String> = t.key.fields.iter().map(|f| format!("{} ({}, {} bits)", f.name, f.match_kind.name(), f.width)).collect();
    fields.join(", ")
}

/// `value` in hexadecimal with the digits a `width`-bit field needs.
fn hex(value: u128, width: u32) -> String {
    let digits = width.div_ceil(4).max(1) as usize;
    format!("0x{value:0digits$x}")
}

/// One key component as `table_add` reads it for its match kind.
fn key_text(kind: &MatchKind, width: u32, m: &Match) -> String {
    match (kind, *m) {
        (_, Match::Range(lo, hi)) => format!("{}->{}", hex(lo, width), hex(hi, width)),
        (MatchKind::Exact, Match::Mask(v, _)) => hex(v, width),
        (MatchKind::Lpm, Match::Mask(v, mask)) => format!("{}/{}", hex(v, width), mask.count_ones()),
        (_, Match::Mask(v, mask)) => format!("{}&&&{}", hex(v, width), hex(mask, width)),
    }
}

/// `Action(param=value, ...)` for the action at `position` of the table's list.
fn call_text(t: &TableInfo, position: usize, args: &[u128]) -> String {
    let Some(action) = t.actions.get(position) else { return format!("action #{position}") };
    let args: Vec<String> = action.params.iter().zip(args).map(|(p, v)| format!("{}={}", p.name, hex(*v, p.width))).collect();
    format!("{}({})", action.name, args.join(", "))
}

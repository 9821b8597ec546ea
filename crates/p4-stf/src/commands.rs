//! BMv2 runtime-CLI command files (`simple_switch_CLI < commands.txt`), as used for
//! `p4forge run --entries`. See `/work/shared/reference/bmv2-runtime_CLI.md`.
//!
//! Keys and action arguments are positional. A `table_add` carries a priority (its last word after
//! `=>`) exactly when one of its keys is written `v&&&m` or `lo->hi`: BMv2 demands a priority for
//! ternary/range/optional tables, whose keys must be written that way, and forbids it elsewhere.
//! Priorities keep BMv2's convention (smaller wins), which is also the control-plane API's.

use crate::error::{meaningful_lines, LineError, ParseErrors};
use crate::numbers::{parse_cli_value, parse_int, parse_u64};
use crate::profiles::{ProfileCommand, Ref};
use crate::runtime::{RuntimeCommand, SessionState};
use crate::{inspect, usage};
use num_bigint::BigUint;
use p4_control::{ActionArgs, ControlError, ControlPlane, KeyValue, Keys};

/// One command and the line it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct CliLine {
    /// 1-based line number in the file.
    pub line: usize,
    /// The parsed command.
    pub command: CliCommand,
}

/// One runtime-CLI command.
#[derive(Clone, Debug, PartialEq)]
pub enum CliCommand {
    /// `table_add <table> <action> <key>... => <arg>... [<priority>]`
    TableAdd { table: String, action: String, keys: Vec<KeyValue>, args: Vec<BigUint>, priority: Option<i64> },
    /// `table_modify <table> <action> <handle> <arg>...`
    TableModify { table: String, action: String, handle: u64, args: Vec<BigUint> },
    /// `table_delete <table> <handle>`
    TableDelete { table: String, handle: u64 },
    /// `table_clear <table>`
    TableClear { table: String },
    /// `table_set_default <table> <action> <arg>...`
    TableSetDefault { table: String, action: String, args: Vec<BigUint> },
    /// `table_num_entries <table>`
    TableNumEntries { table: String },
    /// `table_dump <table>`
    TableDump { table: String },
    /// `show_tables`
    ShowTables,
    /// `help`: every command with its arguments.
    Help,
    /// A command shared with STF files (multicast, mirroring, registers, counters, meters, value
    /// sets, action profiles).
    Runtime(RuntimeCommand),
}

/// Parses a whole command file; every bad line is reported.
pub fn parse_commands(text: &str) -> Result<Vec<CliLine>, ParseErrors> {
    let mut commands = Vec::new();
    let mut errors = Vec::new();
    for (line, content) in meaningful_lines(text) {
        match parse_command(content) {
            Ok(command) => commands.push(CliLine { line, command }),
            Err(message) => errors.push(LineError::new(line, message)),
        }
    }
    if errors.is_empty() {
        Ok(commands)
    } else {
        Err(ParseErrors(errors))
    }
}

/// Parses one comment-free, non-blank line.
pub fn parse_command(content: &str) -> Result<CliCommand, String> {
    let words: Vec<&str> = content.split_whitespace().collect();
    let Some((word, args)) = words.split_first() else {
        return Err("empty command".to_string());
    };
    let word = word.to_ascii_lowercase();
    let values = |texts: &[&str]| -> Result<Vec<BigUint>, String> {
        texts.iter().map(|t| parse_cli_value(t).map_err(|e| format!("action argument: {e}"))).collect()
    };
    match word.as_str() {
        "table_add" => parse_table_add(args),
        "table_modify" => match args {
            [table, action, handle, rest @ ..] => Ok(CliCommand::TableModify {
                table: table.to_string(),
                action: action.to_string(),
                handle: parse_u64(handle, "entry handle")?,
                args: values(rest)?,
            }),
            _ => Err(format!("expected `{}`", usage::of("table_modify"))),
        },
        "table_delete" => match args {
            [table, handle] => Ok(CliCommand::TableDelete { table: table.to_string(), handle: parse_u64(handle, "entry handle")? }),
            _ => Err(format!("expected `{}`", usage::of("table_delete"))),
        },
        "table_clear" => match args {
            [table] => Ok(CliCommand::TableClear { table: table.to_string() }),
            _ => Err(format!("expected `{}`", usage::of("table_clear"))),
        },
        "table_num_entries" | "table_dump" => match args {
            [table] if word == "table_dump" => Ok(CliCommand::TableDump { table: table.to_string() }),
            [table] => Ok(CliCommand::TableNumEntries { table: table.to_string() }),
            _ => Err(format!("expected `{}`", usage::of(&word))),
        },
        "show_tables" | "help" => match args {
            [] if word == "help" => Ok(CliCommand::Help),
            [] => Ok(CliCommand::ShowTables),
            _ => Err(format!("expected `{}` (no arguments)", usage::of(&word))),
        },
        "table_set_default" => match args {
            [table, action, rest @ ..] => {
                Ok(CliCommand::TableSetDefault { table: table.to_string(), action: action.to_string(), args: values(rest)? })
            }
            _ => Err(format!("expected `{}`", usage::of("table_set_default"))),
        },
        _ => match RuntimeCommand::parse(&word, args) {
            Some(parsed) => parsed.map(CliCommand::Runtime),
            None => Err(format!("unknown or unsupported command `{word}`")),
        },
    }
}

/// An action profile command (`act_prof_*`, `table_indirect_*`), for command files and STF files.
pub(crate) fn parse_profile_command(word: &str, args: &[&str]) -> Result<ProfileCommand, String> {
    let usage = || format!("expected `{}`", usage::of(word));
    let handle = |text: &str, what: &str| parse_u64(text, what);
    let values = |texts: &[&str]| -> Result<Vec<BigUint>, String> {
        texts.iter().map(|t| parse_cli_value(t).map_err(|e| format!("action argument: {e}"))).collect()
    };
    let s = |x: &&str| x.to_string();
    Ok(match (word, args) {
        ("act_prof_create_member", [profile, action, rest @ ..]) => ProfileCommand::CreateMember { profile: s(profile), action: s(action), args: values(rest)? },
        ("act_prof_modify_member", [profile, action, member, rest @ ..]) => {
            // BMv2 takes a `=>` before the arguments too.
            let rest = rest.strip_prefix(&["=>"]).unwrap_or(rest);
            ProfileCommand::ModifyMember { profile: s(profile), action: s(action), member: handle(member, "member handle")?, args: values(rest)? }
        }
        ("act_prof_delete_member", [profile, member]) => ProfileCommand::DeleteMember { profile: s(profile), member: handle(member, "member handle")? },
        ("act_prof_create_group", [profile]) => ProfileCommand::CreateGroup { profile: s(profile) },
        ("act_prof_delete_group", [profile, group]) => ProfileCommand::DeleteGroup { profile: s(profile), group: handle(group, "group handle")? },
        ("act_prof_add_member_to_group", [profile, member, group]) => {
            ProfileCommand::AddMemberToGroup { profile: s(profile), member: handle(member, "member handle")?, group: handle(group, "group handle")? }
        }
        ("act_prof_remove_member_from_group", [profile, member, group]) => {
            ProfileCommand::RemoveMemberFromGroup { profile: s(profile), member: handle(member, "member handle")?, group: handle(group, "group handle")? }
        }
        ("table_indirect_add" | "table_indirect_add_with_group", [table, rest @ ..]) => {
            let arrow = rest.iter().position(|w| *w == "=>").ok_or_else(usage)?;
            let keys = rest[..arrow]
                .iter()
                .enumerate()
                .map(|(i, k)| parse_cli_key(k).map_err(|e| format!("key {}: {e}", i + 1)))
                .collect::<Result<Vec<_>, _>>()?;
            let needs_priority = keys.iter().any(|k| matches!(k, KeyValue::Masked(..) | KeyValue::Range(..)));
            let (to, priority) = match (&rest[arrow + 1..], needs_priority) {
                ([h], false) => (handle(h, "handle")?, None),
                ([h, p], true) => (handle(h, "handle")?, Some(i64::try_from(&parse_int(p).map_err(|e| format!("priority: {e}"))?).map_err(|_| format!("priority `{p}` is too large"))?)),
                (_, true) => return Err("a ternary/range/optional entry needs `=> <handle> <priority>` (smaller wins)".to_string()),
                _ => return Err(usage()),
            };
            let to = if word == "table_indirect_add" { Ref::Member(to) } else { Ref::Group(to) };
            ProfileCommand::IndirectAdd { table: s(table), keys, to, priority }
        }
        ("table_indirect_delete", [table, entry]) => ProfileCommand::IndirectDelete { table: s(table), entry: handle(entry, "entry handle")? },
        ("table_indirect_set_default", [table, member]) => ProfileCommand::IndirectSetDefault { table: s(table), member: handle(member, "member handle")? },
        ("table_indirect_set_default_with_group", _) => return Err("`table_indirect_set_default_with_group` is not supported: a default names a member".to_string()),
        _ if usage::of(word).is_empty() => return Err(format!("unknown or unsupported command `{word}`")),
        _ => return Err(usage()),
    })
}

fn parse_table_add(args: &[&str]) -> Result<CliCommand, String> {
    let usage = format!("expected `{}`", usage::of("table_add"));
    let [table, action, rest @ ..] = args else {
        return Err(usage);
    };
    let (key_texts, arg_texts) = match rest.iter().position(|w| *w == "=>") {
        Some(arrow) => (&rest[..arrow], &rest[arrow + 1..]),
        None => (rest, &[][..]),
    };
    let keys = key_texts
        .iter()
        .enumerate()
        .map(|(i, k)| parse_cli_key(k).map_err(|e| format!("key {}: {e}", i + 1)))
        .collect::<Result<Vec<_>, _>>()?;
    let needs_priority = keys.iter().any(|k| matches!(k, KeyValue::Masked(..) | KeyValue::Range(..)));
    let (arg_texts, priority) = if needs_priority {
        let (last, init) = arg_texts.split_last().ok_or_else(|| {
            "a ternary/range/optional entry needs a priority as the last word after `=>` (smaller wins)".to_string()
        })?;
        let p = parse_int(last).map_err(|e| format!("priority: {e}"))?;
        (init, Some(i64::try_from(&p).map_err(|_| format!("priority `{last}` is too large"))?))
    } else {
        (arg_texts, None)
    };
    let args = arg_texts
        .iter()
        .enumerate()
        .map(|(i, a)| parse_cli_value(a).map_err(|e| format!("action argument {}: {e}", i + 1)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(CliCommand::TableAdd { table: table.to_string(), action: action.to_string(), keys, args, priority })
}

/// Parses a BMv2 key: `v`, `v&&&m`, `v/len`, `lo->hi` (values in any [`parse_cli_value`] notation).
pub fn parse_cli_key(text: &str) -> Result<KeyValue, String> {
    if let Some((value, mask)) = text.split_once("&&&") {
        return Ok(KeyValue::Masked(parse_cli_value(value)?, parse_cli_value(mask)?));
    }
    if let Some((lo, hi)) = text.split_once("->") {
        return Ok(KeyValue::Range(parse_cli_value(lo)?, parse_cli_value(hi)?));
    }
    if let Some((value, len)) = text.split_once('/') {
        let len: u32 = len.parse().map_err(|_| format!("prefix length `{len}` must be a decimal number"))?;
        return Ok(KeyValue::Prefix(parse_cli_value(value)?, len));
    }
    Ok(KeyValue::Value(parse_cli_value(text)?))
}

/// A refusal in the runtime CLI's terms: a missing priority is the last word after `=>`.
fn cli_message(error: ControlError) -> String {
    match error {
        ControlError::MissingPriority { table, kind } => format!("{kind} table {table} needs a priority after the action arguments"),
        other => other.to_string(),
    }
}

/// Applies commands in order; stops at the first refused command or failed check, naming its line.
/// Returns what the commands printed (e.g. `register_read` values).
pub fn apply_commands<C: ControlPlane + ?Sized>(cp: &mut C, commands: &[CliLine]) -> Result<Vec<String>, LineError> {
    let mut session = SessionState::default();
    let mut output = Vec::new();
    for command in commands {
        apply_command(cp, command, &mut session, &mut output)?;
    }
    Ok(output)
}

/// Applies one command of a file whose earlier commands built `session` (multicast node handles,
/// mirroring sessions), adding what it prints to `output`; a refusal or failed check names its
/// line. What [`apply_commands`] does per command, for a file read as a stream.
pub fn apply_command<C: ControlPlane + ?Sized>(cp: &mut C, command: &CliLine, session: &mut SessionState, output: &mut Vec<String>) -> Result<(), LineError> {
    let CliLine { line, command } = command;
    {
        let fail = |message: String| LineError::new(*line, message);
        match command {
            CliCommand::TableAdd { table, action, keys, args, priority } => {
                let handle = cp
                    .table_add(table, Keys::Positional(keys.clone()), action, ActionArgs::Positional(args.clone()), *priority)
                    .map_err(|e| fail(cli_message(e)))?;
                output.push(format!("line {line}: entry added to {table} with handle {handle}"));
            }
            CliCommand::TableModify { table, action, handle, args } => cp
                .table_modify(table, *handle, action, ActionArgs::Positional(args.clone()))
                .map_err(|e| fail(e.to_string()))?,
            CliCommand::TableDelete { table, handle } => {
                cp.table_delete(table, *handle).map_err(|e| fail(e.to_string()))?;
                if let Some(t) = cp.control_catalog().and_then(|c| c.table_index(table).ok()) {
                    session.profiles.forget(t, Some(*handle));
                }
            }
            CliCommand::TableClear { table } => {
                cp.table_clear(table).map_err(|e| fail(e.to_string()))?;
                if let Some(t) = cp.control_catalog().and_then(|c| c.table_index(table).ok()) {
                    session.profiles.forget(t, None);
                }
            }
            CliCommand::TableSetDefault { table, action, args } => cp
                .table_set_default(table, action, ActionArgs::Positional(args.clone()))
                .map_err(|e| fail(e.to_string()))?,
            CliCommand::TableNumEntries { table } => output.push(format!("line {line}: {}", inspect::table_num_entries(cp, table).map_err(|e| fail(e.to_string()))?)),
            CliCommand::TableDump { table } => output.push(format!("line {line}: {}", inspect::table_dump(cp, table).map_err(|e| fail(e.to_string()))?)),
            CliCommand::ShowTables => output.push(format!("line {line}: {}", inspect::show_tables(cp).map_err(|e| fail(e.to_string()))?)),
            CliCommand::Help => output.push(format!("line {line}: {}", usage::help())),
            CliCommand::Runtime(runtime) => {
                let outcome = runtime.apply(cp, session).map_err(|e| fail(e.to_string()))?;
                if let Some(message) = outcome.check_failure {
                    return Err(fail(format!("check failed: {message}")));
                }
                if let Some(text) = outcome.output {
                    output.push(format!("line {line}: {text}"));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big(n: u128) -> BigUint {
        BigUint::from(n)
    }

    #[test]
    fn table_add_in_every_key_notation() {
        assert_eq!(
            parse_command("table_add MyIngress.ipv4_lpm ipv4_forward 10.0.1.0/24 => 00:00:00:00:01:01 1"),
            Ok(CliCommand::TableAdd {
                table: "MyIngress.ipv4_lpm".into(),
                action: "ipv4_forward".into(),
                keys: vec![KeyValue::Prefix(big(0x0a00_0100), 24)],
                args: vec![big(0x0101), big(1)],
                priority: None,
            })
        );
        assert_eq!(
            parse_command("table_add acl deny 0x0800&&&0xffff 10->20 2001:db8::1 => 7"),
            Ok(CliCommand::TableAdd {
                table: "acl".into(),
                action: "deny".into(),
                keys: vec![
                    KeyValue::Masked(big(0x0800), big(0xffff)),
                    KeyValue::Range(big(10), big(20)),
                    KeyValue::Value(big(0x2001_0db8_0000_0000_0000_0000_0000_0001)),
                ],
                args: vec![],
                priority: Some(7),
            })
        );
        assert_eq!(
            parse_command("table_add t a 5"),
            Ok(CliCommand::TableAdd { table: "t".into(), action: "a".into(), keys: vec![KeyValue::Value(big(5))], args: vec![], priority: None })
        );
    }

    #[test]
    fn other_table_commands() {
        assert_eq!(
            parse_command("table_modify t a 3 0x10"),
            Ok(CliCommand::TableModify { table: "t".into(), action: "a".into(), handle: 3, args: vec![big(16)] })
        );
        assert_eq!(parse_command("table_delete t 3"), Ok(CliCommand::TableDelete { table: "t".into(), handle: 3 }));
        assert_eq!(parse_command("table_clear t"), Ok(CliCommand::TableClear { table: "t".into() }));
        assert_eq!(
            parse_command("table_set_default t drop"),
            Ok(CliCommand::TableSetDefault { table: "t".into(), action: "drop".into(), args: vec![] })
        );
        assert_eq!(
            parse_command("mirroring_add 5 7"),
            Ok(CliCommand::Runtime(RuntimeCommand::MirroringAdd { session: 5, port: 7 }))
        );
    }

    #[test]
    fn bad_lines_say_where_and_why() {
        let text = "table_add t a 1 => 2\n// not a comment\ntable_add acl deny 1&&&1 =>\ntable_add t a 10.0.0.300 =>\nswap_configs\nshow_tables now\n";
        let errors = parse_commands(text).unwrap_err();
        assert_eq!(
            errors.render("entries.txt"),
            "entries.txt:2: unknown or unsupported command `//`\n\
             entries.txt:3: a ternary/range/optional entry needs a priority as the last word after `=>` (smaller wins)\n\
             entries.txt:4: key 1: `10.0.0.300` is not a number or IPv4 address\n\
             entries.txt:5: unknown or unsupported command `swap_configs`\n\
             entries.txt:6: expected `show_tables` (no arguments)\n"
        );
    }
}

//! The STF test-file parser (see `/work/shared/reference/stf-format.md`).
//!
//! Parsing is purely syntactic: names are kept as written (except `hdr$N` → `hdr[N]`), and whether a
//! table or key exists, and whether a value fits, is for the dataplane to decide when the runner
//! applies the command. Every malformed line is reported with its line number; unknown commands are
//! errors, never silently skipped.

use crate::error::{meaningful_lines, LineError, ParseErrors};
use crate::numbers::{parse_int, parse_u32, split_radix};
use crate::pattern::{parse_packet_hex, PacketPattern};
use crate::runtime::RuntimeCommand;
use num_bigint::BigUint;
use p4_control::KeyValue;

/// One command and the line it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct StfLine {
    /// 1-based line number in the file.
    pub line: usize,
    /// The parsed command.
    pub command: StfCommand,
}

/// One STF command.
#[derive(Clone, Debug, PartialEq)]
pub enum StfCommand {
    /// `packet <port> <hex>`
    Packet { port: u32, data: Vec<u8> },
    /// `expect <port> [<pattern>]`; `None` accepts any one packet.
    Expect { port: u32, pattern: Option<PacketPattern> },
    /// `add <table> [<priority>] <key>:<value>... <action>(<param>:<value>, ...) [= <label>]`
    Add(TableAdd),
    /// `setdefault <table> <action>(<param>:<value>, ...)`
    SetDefault { table: String, action: String, args: Vec<(String, BigUint)> },
    /// `check_counter <counter>(<index>) [packets|bytes] <op> <N>`
    CheckCounter { counter: String, index: EntryIndex, check: Option<CounterCheck> },
    /// `wait`: let in-flight packets drain (the dataplane is synchronous; only time advances).
    Wait,
    /// `remove all`: clear every table this file added entries to.
    RemoveAll,
    /// Commands shared with BMv2 command files.
    Runtime(RuntimeCommand),
}

/// An `add` line.
#[derive(Clone, Debug, PartialEq)]
pub struct TableAdd {
    pub table: String,
    /// STF priority: **larger wins** (the runner converts).
    pub priority: Option<i64>,
    pub keys: Vec<(String, KeyValue)>,
    pub action: String,
    pub args: Vec<(String, BigUint)>,
    /// `= <label>`: names the entry, so `check_counter c(<label>)` can read its direct counter.
    pub label: Option<String>,
}

/// A counter index: a number, or the label of an entry (for direct counters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntryIndex {
    Number(u64),
    Label(String),
}

/// `[packets|bytes] <op> <N>` of `check_counter`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterCheck {
    pub bytes: bool,
    pub op: CompareOp,
    pub value: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CompareOp {
    fn parse(text: &str) -> Option<CompareOp> {
        Some(match text {
            "==" => CompareOp::Eq,
            "!=" => CompareOp::Ne,
            "<" => CompareOp::Lt,
            "<=" => CompareOp::Le,
            ">" => CompareOp::Gt,
            ">=" => CompareOp::Ge,
            _ => return None,
        })
    }

    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            CompareOp::Eq => "==",
            CompareOp::Ne => "!=",
            CompareOp::Lt => "<",
            CompareOp::Le => "<=",
            CompareOp::Gt => ">",
            CompareOp::Ge => ">=",
        }
    }

    /// `actual <op> expected`.
    pub fn holds(self, actual: u64, expected: u64) -> bool {
        match self {
            CompareOp::Eq => actual == expected,
            CompareOp::Ne => actual != expected,
            CompareOp::Lt => actual < expected,
            CompareOp::Le => actual <= expected,
            CompareOp::Gt => actual > expected,
            CompareOp::Ge => actual >= expected,
        }
    }
}

/// Parses a whole STF file.
pub fn parse_stf(text: &str) -> Result<Vec<StfLine>, ParseErrors> {
    let mut commands = Vec::new();
    let mut errors = Vec::new();
    for (line, content) in meaningful_lines(text) {
        match parse_command(content) {
            Ok(command) => commands.push(StfLine { line, command }),
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
pub fn parse_command(content: &str) -> Result<StfCommand, String> {
    let (word, rest) = content.split_once(char::is_whitespace).unwrap_or((content, ""));
    let word = word.to_ascii_lowercase();
    let rest = rest.trim();
    let args: Vec<&str> = rest.split_whitespace().collect();
    match word.as_str() {
        "packet" => {
            let (port, data) = args.split_first().ok_or("expected `packet <port> <hex data>`")?;
            Ok(StfCommand::Packet { port: parse_u32(port, "port")?, data: parse_packet_hex(data)? })
        }
        "expect" => {
            let (port, data) = args.split_first().ok_or("expected `expect <port> [<hex data>]`")?;
            let pattern = if data.is_empty() { None } else { Some(PacketPattern::parse(data)?) };
            Ok(StfCommand::Expect { port: parse_u32(port, "port")?, pattern })
        }
        "add" => parse_add(rest).map(StfCommand::Add),
        "setdefault" => {
            let (table, call) = rest.split_once(char::is_whitespace).ok_or("expected `setdefault <table> <action>(<args>)`")?;
            let (action, args) = parse_action_call(call.trim())?;
            Ok(StfCommand::SetDefault { table: table.to_string(), action, args })
        }
        "check_counter" => parse_check_counter(rest),
        "wait" => {
            if args.is_empty() {
                Ok(StfCommand::Wait)
            } else {
                Err("`wait` takes no arguments".to_string())
            }
        }
        "remove" => {
            if args.len() == 1 && args[0].eq_ignore_ascii_case("all") {
                Ok(StfCommand::RemoveAll)
            } else {
                Err("expected `remove all`".to_string())
            }
        }
        _ => match RuntimeCommand::parse(&word, &args) {
            Some(parsed) => parsed.map(StfCommand::Runtime),
            None => Err(format!("unknown command `{word}`")),
        },
    }
}

fn parse_add(rest: &str) -> Result<TableAdd, String> {
    const USAGE: &str = "expected `add <table> [<priority>] <key>:<value>... <action>(<param>:<value>, ...) [= <label>]`";
    let (body, label) = match rest.rsplit_once('=') {
        Some((body, label)) => {
            let label = label.trim();
            if label.is_empty() || label.contains(char::is_whitespace) {
                return Err(format!("entry label after `=` must be one word, found `{label}`"));
            }
            (body.trim_end(), Some(label.to_string()))
        }
        None => (rest, None),
    };
    // The action call is the last word before `(` (or the last word if it has no parentheses); it may
    // contain spaces inside its parentheses, so split there before splitting on whitespace.
    let (head, call) = match body.find('(') {
        Some(paren) => {
            let before = body[..paren].trim_end();
            let name_start = before.rfind(char::is_whitespace).map_or(0, |i| i + 1);
            (&body[..name_start], &body[name_start..])
        }
        None => {
            let name_start = body.rfind(char::is_whitespace).map_or(0, |i| i + 1);
            (&body[..name_start], &body[name_start..])
        }
    };
    let (action, args) = parse_action_call(call.trim())?;
    let mut words = head.split_whitespace();
    let table = words.next().ok_or(USAGE)?.to_string();
    let mut priority = None;
    let mut keys = Vec::new();
    for (i, word) in words.enumerate() {
        match word.split_once(':') {
            Some((name, value)) => {
                let value = parse_stf_key_value(value).map_err(|e| format!("key `{name}`: {e}"))?;
                keys.push((stack_index_name(name), value));
            }
            None if i == 0 => {
                let p = parse_int(word).map_err(|e| format!("priority: {e}"))?;
                priority = Some(i64::try_from(&p).map_err(|_| format!("priority `{word}` is too large"))?);
            }
            None => return Err(format!("`{word}` is not a `<key>:<value>` pair; {USAGE}")),
        }
    }
    Ok(TableAdd { table, priority, keys, action, args, label })
}

/// `hdr.stack$2.f` → `hdr.stack[2].f` (STF's spelling of header-stack elements).
fn stack_index_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 2);
    let mut rest = name;
    while let Some(dollar) = rest.find('$') {
        out.push_str(&rest[..dollar]);
        let after = &rest[dollar + 1..];
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 {
            out.push('[');
            out.push_str(&after[..digits]);
            out.push(']');
            rest = &after[digits..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Parses `name(p:v, ...)`, `name()` or bare `name`.
fn parse_action_call(call: &str) -> Result<(String, Vec<(String, BigUint)>), String> {
    let Some(open) = call.find('(') else {
        if call.is_empty() || call.contains(char::is_whitespace) {
            return Err(format!("expected an action call `<action>(<param>:<value>, ...)`, found `{call}`"));
        }
        return Ok((call.to_string(), Vec::new()));
    };
    let name = call[..open].trim();
    if name.is_empty() {
        return Err("missing action name before `(`".to_string());
    }
    let inner = call[open + 1..]
        .strip_suffix(')')
        .ok_or_else(|| format!("action call `{call}` must end with `)`"))?;
    let mut args = Vec::new();
    for part in inner.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (param, value) = part
            .split_once(':')
            .ok_or_else(|| format!("action argument `{part}` must be written `<param>:<value>`"))?;
        let value = parse_int(value.trim()).map_err(|e| format!("action argument `{}`: {e}", param.trim()))?;
        args.push((param.trim().to_string(), value));
    }
    Ok((name.to_string(), args))
}

/// Parses an STF key value: `v`, `v&&&m`, `v/len`, `lo->hi`, or hex/binary with `*` digits.
pub fn parse_stf_key_value(text: &str) -> Result<KeyValue, String> {
    if let Some((value, mask)) = text.split_once("&&&") {
        return Ok(KeyValue::Masked(parse_int(value)?, parse_int(mask)?));
    }
    if let Some((value, len)) = text.split_once('/') {
        let len: u32 = len.parse().map_err(|_| format!("prefix length `{len}` must be a decimal number"))?;
        return Ok(KeyValue::Prefix(parse_int(value)?, len));
    }
    if let Some((lo, hi)) = text.split_once("->") {
        return Ok(KeyValue::Range(parse_int(lo)?, parse_int(hi)?));
    }
    if text.contains('*') {
        return wildcard_digits(text);
    }
    Ok(KeyValue::Value(parse_int(text)?))
}

/// `0x0a**` → value 0x0a00, mask 0xff00. The mask covers only the written digits, so digits left of
/// the written ones are don't-care.
fn wildcard_digits(text: &str) -> Result<KeyValue, String> {
    let (digits, radix) = split_radix(text);
    let bits_per_digit = match radix {
        16 => 4,
        2 => 1,
        _ => return Err(format!("`{text}`: `*` wildcards need hex (0x...) or binary (0b...) digits")),
    };
    let mut value = BigUint::default();
    let mut mask = BigUint::default();
    let digit_mask = BigUint::from((1u32 << bits_per_digit) - 1);
    for c in digits.chars().filter(|&c| c != '_') {
        value <<= bits_per_digit;
        mask <<= bits_per_digit;
        if c == '*' {
            continue;
        }
        let d = c.to_digit(radix).ok_or_else(|| format!("`{c}` is not a digit in `{text}`"))?;
        value |= BigUint::from(d);
        mask |= &digit_mask;
    }
    Ok(KeyValue::Masked(value, mask))
}

fn parse_check_counter(rest: &str) -> Result<StfCommand, String> {
    const USAGE: &str = "expected `check_counter <counter>(<index>) [packets|bytes] <op> <N>`";
    let open = rest.find('(').ok_or(USAGE)?;
    let close = rest.find(')').filter(|&c| c > open).ok_or(USAGE)?;
    let counter = rest[..open].trim();
    if counter.is_empty() {
        return Err(USAGE.to_string());
    }
    let index_text = rest[open + 1..close].trim();
    let index = if index_text.starts_with(|c: char| c.is_ascii_digit()) {
        EntryIndex::Number(crate::numbers::parse_u64(index_text, "counter index")?)
    } else if !index_text.is_empty() {
        EntryIndex::Label(index_text.trim_start_matches('$').to_string())
    } else {
        return Err(USAGE.to_string());
    };
    let words: Vec<&str> = rest[close + 1..].split_whitespace().collect();
    let (bytes, op_words) = match words.split_first() {
        Some((&"packets", more)) => (false, more),
        Some((&"bytes", more)) => (true, more),
        _ => (false, &words[..]),
    };
    let check = match op_words {
        [] if words.is_empty() => None,
        [op, n] => Some(CounterCheck {
            bytes,
            op: CompareOp::parse(op).ok_or_else(|| format!("`{op}` is not a comparison (==, !=, <, <=, >, >=)"))?,
            value: crate::numbers::parse_u64(n, "expected count")?,
        }),
        _ => return Err(USAGE.to_string()),
    };
    Ok(StfCommand::CheckCounter { counter: counter.to_string(), index, check })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big(n: u64) -> BigUint {
        BigUint::from(n)
    }

    fn one(line: &str) -> Result<StfCommand, String> {
        parse_command(line)
    }

    #[test]
    fn packets_and_expectations() {
        assert_eq!(one("PACKET 2 0011 2233"), Ok(StfCommand::Packet { port: 2, data: vec![0, 0x11, 0x22, 0x33] }));
        assert_eq!(one("expect 3"), Ok(StfCommand::Expect { port: 3, pattern: None }));
        let Ok(StfCommand::Expect { port: 1, pattern: Some(p) }) = one("expect 1 00** 11 $") else {
            panic!("expect did not parse")
        };
        assert_eq!(p.to_string(), "00** 11$");
        assert_eq!(one("packet x 00"), Err("port: `x` is not a valid decimal number".to_string()));
        assert_eq!(one("packet"), Err("expected `packet <port> <hex data>`".to_string()));
        assert!(matches!(one("packet 0 0a 2"), Ok(StfCommand::Packet { data, .. }) if data == [0x0a, 0x20]));
    }

    #[test]
    fn add_with_everything() {
        let parsed = one("add ingress.t 7 hdr.h$1.f:0x0a** meta.x:0b1*0 hdr.ip.dst:0x0a000000/8 k:5&&&0xf \
                          hdr.h.$valid$:1 ingress.set(port: 3, mac:0xaabb) = e1");
        let want = TableAdd {
            table: "ingress.t".into(),
            priority: Some(7),
            keys: vec![
                ("hdr.h[1].f".into(), KeyValue::Masked(big(0x0a00), big(0xff00))),
                ("meta.x".into(), KeyValue::Masked(big(0b100), big(0b101))),
                ("hdr.ip.dst".into(), KeyValue::Prefix(big(0x0a00_0000), 8)),
                ("k".into(), KeyValue::Masked(big(5), big(15))),
                ("hdr.h.$valid$".into(), KeyValue::Value(big(1))),
            ],
            action: "ingress.set".into(),
            args: vec![("port".into(), big(3)), ("mac".into(), big(0xaabb))],
            label: Some("e1".into()),
        };
        assert_eq!(parsed, Ok(StfCommand::Add(want)));
    }

    #[test]
    fn add_without_keys_or_arguments() {
        let want = TableAdd {
            table: "t".into(),
            priority: None,
            keys: vec![],
            action: "drop".into(),
            args: vec![],
            label: None,
        };
        assert_eq!(one("add t drop()"), Ok(StfCommand::Add(want.clone())));
        assert_eq!(one("add t drop"), Ok(StfCommand::Add(want)));
    }

    #[test]
    fn add_errors_say_why() {
        assert_eq!(one("add t k:12*4 a()"), Err("key `k`: `12*4`: `*` wildcards need hex (0x...) or binary (0b...) digits".to_string()));
        assert_eq!(one("add t k:1 a(x 1)"), Err("action argument `x 1` must be written `<param>:<value>`".to_string()));
        assert_eq!(one("add t k:1 a(x:1"), Err("action call `a(x:1` must end with `)`".to_string()));
        assert_eq!(one("add t k:1 junk a()"), Err("`junk` is not a `<key>:<value>` pair; expected `add <table> [<priority>] <key>:<value>... <action>(<param>:<value>, ...) [= <label>]`".to_string()));
        assert_eq!(one("add t k:1/x a()"), Err("key `k`: prefix length `x` must be a decimal number".to_string()));
    }

    #[test]
    fn setdefault_and_counters() {
        assert_eq!(
            one("setdefault ingress.t ingress.fwd(p:1)"),
            Ok(StfCommand::SetDefault { table: "ingress.t".into(), action: "ingress.fwd".into(), args: vec![("p".into(), big(1))] })
        );
        assert_eq!(
            one("check_counter ingress.c(3) bytes >= 128"),
            Ok(StfCommand::CheckCounter {
                counter: "ingress.c".into(),
                index: EntryIndex::Number(3),
                check: Some(CounterCheck { bytes: true, op: CompareOp::Ge, value: 128 }),
            })
        );
        assert_eq!(
            one("check_counter c($e1) == 2"),
            Ok(StfCommand::CheckCounter {
                counter: "c".into(),
                index: EntryIndex::Label("e1".into()),
                check: Some(CounterCheck { bytes: false, op: CompareOp::Eq, value: 2 }),
            })
        );
        assert_eq!(one("check_counter c(1) packets ~ 2"), Err("`~` is not a comparison (==, !=, <, <=, >, >=)".to_string()));
    }

    #[test]
    fn whole_file_with_comments_and_errors() {
        let text = "# a test\n\nwait\nremove all # clear\nmirroring_add 5 7\n";
        let parsed = parse_stf(text).unwrap();
        assert_eq!(
            parsed,
            vec![
                StfLine { line: 3, command: StfCommand::Wait },
                StfLine { line: 4, command: StfCommand::RemoveAll },
                StfLine { line: 5, command: StfCommand::Runtime(RuntimeCommand::MirroringAdd { session: 5, port: 7 }) },
            ]
        );
        let errors = parse_stf("packet 0 00\nfrobnicate 1\nexpect 0 0g\n").unwrap_err();
        assert_eq!(
            errors.render("t.stf"),
            "t.stf:2: unknown command `frobnicate`\nt.stf:3: `g` is not a hex digit or `*` in the expected data\n"
        );
    }

    #[test]
    fn stack_names() {
        assert_eq!(stack_index_name("hdr.s$0.f"), "hdr.s[0].f");
        assert_eq!(stack_index_name("hdr.s$12$valid$"), "hdr.s[12]$valid$");
        assert_eq!(stack_index_name("hdr.s.$valid$"), "hdr.s.$valid$");
    }
}

//! Control-plane values into table entries: keys by each field's match kind and width, action
//! arguments by the action's data layout, names by the IR's one resolution rule. Every refusal
//! says what was wrong in the user's terms (the STF and BMv2-CLI front ends print it as it is).

use num_bigint::BigUint;
use num_traits::ToPrimitive;
use p4_ir::layout::{self, KeyLayout, NameError};
use p4_ir::MatchKind;

use crate::catalog::TableInfo;
use crate::{ActionArgs, ControlError, KeyValue, Keys, Match};

pub(crate) fn invalid<T>(msg: impl Into<String>) -> Result<T, ControlError> {
    Err(ControlError::Invalid(msg.into()))
}

/// The low `width` bits set (`width` may be 0..=128).
#[inline]
pub fn mask(width: u32) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}

/// Prefix length of a prefix mask of `width` bits, or `None` if `m` is not one.
pub fn prefix_len(m: u128, width: u32) -> Option<u32> {
    let ones = m.count_ones();
    (prefix_mask(ones, width) == m).then_some(ones)
}

/// The mask of the `len` most significant bits of a `width`-bit field.
pub fn prefix_mask(len: u32, width: u32) -> u128 {
    mask(width) & !mask(width.saturating_sub(len))
}

/// The refusal of an entry that duplicates the entry with handle `existing`.
pub fn duplicate(existing: u64, what: &str) -> String {
    format!("duplicate entry: the entry with handle {existing} has the same {what}")
}

/// Finds `query` among `names` by the IR's one name-resolution rule ([`p4_ir::layout::resolve`]),
/// saying what was looked for when it fails.
pub fn resolve<'n>(
    kind: &'static str,
    names: impl Iterator<Item = &'n str> + Clone,
    query: &str,
) -> Result<usize, ControlError> {
    layout::resolve(names, query).map_err(|e| match e {
        NameError::NotFound { known } => {
            let hint = if known.is_empty() { String::new() } else { format!(" (known: {})", known.join(", ")) };
            ControlError::NotFound { kind, name: query.to_string(), hint }
        }
        NameError::Ambiguous { candidates } => {
            ControlError::Ambiguous { name: query.to_string(), candidates: candidates.join(", ") }
        }
    })
}

/// `v` as a number of at most `width` bits; `what` names it in the refusal.
pub fn to_u128(v: &BigUint, width: u32, what: &str) -> Result<u128, ControlError> {
    match v.to_u128() {
        Some(x) if x <= mask(width) => Ok(x),
        _ => invalid(format!("value 0x{v:x} does not fit in {width} bits ({what})")),
    }
}

/// Converts one control-plane key component for a key of `kind` and `width`.
pub fn key_match(kind: &MatchKind, width: u32, kv: &KeyValue, name: &str) -> Result<Match, ControlError> {
    let all = mask(width);
    let what = format!("key `{name}`");
    Ok(match (kind, kv) {
        (MatchKind::Range, KeyValue::Range(lo, hi)) => {
            let (lo, hi) = (to_u128(lo, width, &what)?, to_u128(hi, width, &what)?);
            if lo > hi {
                return invalid(format!("{what}: empty range {lo}..{hi}"));
            }
            Match::Range(lo, hi)
        }
        (MatchKind::Range, KeyValue::Value(v)) => {
            let v = to_u128(v, width, &what)?;
            Match::Range(v, v)
        }
        (MatchKind::Range, KeyValue::Wildcard) => Match::Range(0, all),
        (_, KeyValue::Range(..)) => return invalid(format!("{what}: a range is only valid for `range` keys")),
        (_, KeyValue::Value(v)) => Match::Mask(to_u128(v, width, &what)?, all),
        (MatchKind::Exact, KeyValue::Masked(v, m)) => {
            let (v, m) = (to_u128(v, width, &what)?, to_u128(m, width, &what)?);
            if m != all {
                return invalid(format!("{what}: exact keys take a plain value"));
            }
            Match::Mask(v, m)
        }
        (MatchKind::Exact, _) => return invalid(format!("{what}: exact keys take a plain value")),
        (MatchKind::Lpm, KeyValue::Prefix(v, len)) | (MatchKind::Ternary, KeyValue::Prefix(v, len)) => {
            if *len > width {
                return invalid(format!("{what}: prefix length {len} exceeds the key width {width}"));
            }
            let m = prefix_mask(*len, width);
            Match::Mask(to_u128(v, width, &what)? & m, m)
        }
        (MatchKind::Lpm, KeyValue::Masked(v, m)) => {
            let m = to_u128(m, width, &what)?;
            if prefix_len(m, width).is_none() {
                return invalid(format!("{what}: mask 0x{m:x} is not a prefix mask"));
            }
            Match::Mask(to_u128(v, width, &what)? & m, m)
        }
        (MatchKind::Ternary, KeyValue::Masked(v, m)) => {
            let m = to_u128(m, width, &what)?;
            Match::Mask(to_u128(v, width, &what)? & m, m)
        }
        (MatchKind::Optional, KeyValue::Masked(v, m)) => {
            let m = to_u128(m, width, &what)?;
            if m != 0 && m != all {
                return invalid(format!("{what}: optional keys are exact or wildcard"));
            }
            Match::Mask(to_u128(v, width, &what)? & m, m)
        }
        (_, KeyValue::Wildcard) => Match::Mask(0, 0),
        (k, other) => {
            return invalid(format!("{what}: {} is not valid for a {} key", notation_name(other), k.name()))
        }
    })
}

/// Normalises STF key spellings: `hdr$1` for `hdr[1]`.
fn normalise_key_name(n: &str) -> String {
    let mut out = String::new();
    let mut chars = n.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch == '$' && chars.peek().is_some_and(|c| c.is_ascii_digit()) {
            out.push('[');
            while let Some(d) = chars.peek().copied().filter(char::is_ascii_digit) {
                out.push(d);
                chars.next();
            }
            out.push(']');
        } else {
            out.push(ch);
        }
    }
    out
}

pub fn key_matches(tp: &TableInfo, keys: &Keys) -> Result<Vec<Match>, ControlError> {
    let layout: &KeyLayout = &tp.key;
    let mut vals: Vec<Option<&KeyValue>> = vec![None; layout.fields.len()];
    match keys {
        Keys::Positional(kvs) => {
            if kvs.len() != layout.fields.len() {
                return invalid(format!("table {} has {} keys, {} given", tp.name, layout.fields.len(), kvs.len()));
            }
            for (slot, kv) in vals.iter_mut().zip(kvs) {
                *slot = Some(kv);
            }
        }
        Keys::Named(named) => {
            for (name, kv) in named {
                let i = if name == "$valid$" || name == "valid" {
                    match layout.fields.iter().position(|k| k.is_valid) {
                        Some(i) => i,
                        None => return invalid(format!("table {} has no isValid() key", tp.name)),
                    }
                } else {
                    let norm = normalise_key_name(name);
                    resolve("key", layout.fields.iter().map(|k| k.name.as_str()), &norm)
                        .or_else(|_| resolve("key", layout.fields.iter().map(|k| k.name.as_str()), name))?
                };
                if let Some(slot) = vals.get_mut(i) {
                    *slot = Some(kv);
                }
            }
        }
    }
    let zero = KeyValue::Value(BigUint::default());
    let positional = matches!(keys, Keys::Positional(_));
    layout
        .fields
        .iter()
        .zip(vals)
        .map(|(k, v)| {
            let kv = v.unwrap_or(if k.match_kind == MatchKind::Exact { &zero } else { &KeyValue::Wildcard });
            if positional {
                check_cli_notation(&k.match_kind, kv, &k.name)?;
            }
            key_match(&k.match_kind, k.width, kv, &k.name)
        })
        .collect()
}

/// How a key value was written, in words.
fn notation_name(kv: &KeyValue) -> &'static str {
    match kv {
        KeyValue::Value(_) => "a plain value",
        KeyValue::Masked(..) => "a masked value (VALUE&&&MASK)",
        KeyValue::Prefix(..) => "a prefix (VALUE/LENGTH)",
        KeyValue::Range(..) => "a range (LOW->HIGH)",
        KeyValue::Wildcard => "a wildcard",
    }
}


/// BMv2's runtime CLI (positional keys) demands each key in its match kind's notation. A plain value
/// on a ternary key is usually a forgotten mask, and the priority then shifts into the action
/// arguments: saying so beats an argument-count error about the action.
fn check_cli_notation(kind: &MatchKind, kv: &KeyValue, name: &str) -> Result<(), ControlError> {
    let notation = match kind {
        MatchKind::Ternary | MatchKind::Optional => "VALUE&&&MASK",
        MatchKind::Range => "LOW->HIGH",
        MatchKind::Lpm => "VALUE/LENGTH",
        _ => return Ok(()),
    };
    if matches!(kv, KeyValue::Value(_)) {
        return invalid(format!("key field {name} is {}: write {notation}", kind.name()));
    }
    Ok(())
}

/// Why `given` positional arguments do not fit action `ai`; for a table with priorities, a reminder
/// that the priority is the last word (it may have been taken for an argument, or an argument for it).
fn arg_count_error(tp: &TableInfo, ai: usize, given: usize) -> String {
    let ta = &tp.actions[ai];
    let names: Vec<&str> = ta.params.iter().map(|d| d.name.as_str()).collect();
    let wanted = match names.len() {
        0 => "takes no arguments".to_string(),
        1 => format!("takes 1 argument ({})", names[0]),
        n => format!("takes {n} arguments ({})", names.join(", ")),
    };
    let mut message = format!("action {} {wanted}, {given} given", ta.name);
    if let Some(kind) = tp.priority_kind() {
        message.push_str(&format!(
            "; {kind} table {} takes its priority as the last word after the action arguments",
            tp.name
        ));
    }
    message
}

/// The action data of action `ai` of table `ti`, checked against the action's data layout.
pub fn action_data(tp: &TableInfo, ai: usize, args: &ActionArgs) -> Result<Vec<u128>, ControlError> {
    let ta = &tp.actions[ai];
    let params = &ta.params;
    let mut out = vec![0u128; params.len()];
    match args {
        ActionArgs::Positional(vs) => {
            if vs.len() != params.len() {
                return invalid(arg_count_error(tp, ai, vs.len()));
            }
            for ((o, d), v) in out.iter_mut().zip(params).zip(vs) {
                *o = to_u128(v, d.width, &format!("parameter `{}` of {}", d.name, ta.name))?;
            }
        }
        ActionArgs::Named(named) => {
            let mut seen = vec![false; out.len()];
            for (name, v) in named {
                let Some(i) = params.iter().position(|d| &d.name == name) else {
                    return invalid(format!("action {} has no parameter `{name}`", ta.name));
                };
                let d = &params[i];
                out[i] = to_u128(v, d.width, &format!("parameter `{}` of {}", d.name, ta.name))?;
                seen[i] = true;
            }
            if let Some(i) = seen.iter().position(|s| !s) {
                return invalid(format!("action {}: missing parameter `{}`", ta.name, params[i].name));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_exactly_or_by_unique_suffix() {
        let names = ["MyIngress.ipv4_lpm", "MyIngress.mac", "MyEgress.mac"];
        assert_eq!(resolve("table", names.iter().copied(), "ipv4_lpm"), Ok(0));
        assert_eq!(resolve("table", names.iter().copied(), "MyEgress.mac"), Ok(2));
        assert!(matches!(resolve("table", names.iter().copied(), "mac"), Err(ControlError::Ambiguous { .. })));
        assert!(matches!(resolve("table", names.iter().copied(), "pv4_lpm"), Err(ControlError::NotFound { .. })));
    }

    #[test]
    fn key_values_convert_by_match_kind() {
        let v = |x: u32| BigUint::from(x);
        assert_eq!(
            key_match(&MatchKind::Lpm, 32, &KeyValue::Prefix(v(0x0a01_02ff), 24), "k"),
            Ok(Match::Mask(0x0a01_0200, 0xffff_ff00))
        );
        assert_eq!(
            key_match(&MatchKind::Ternary, 8, &KeyValue::Masked(v(0xff), v(0x0f)), "k"),
            Ok(Match::Mask(0x0f, 0x0f))
        );
        assert_eq!(key_match(&MatchKind::Range, 8, &KeyValue::Wildcard, "k"), Ok(Match::Range(0, 0xff)));
        assert!(key_match(&MatchKind::Exact, 8, &KeyValue::Value(v(256)), "k").is_err());
        assert!(key_match(&MatchKind::Lpm, 8, &KeyValue::Masked(v(1), v(0x0f)), "k").is_err());
        assert_eq!(normalise_key_name("hdr.vlan$1.vid"), "hdr.vlan[1].vid");
    }
}

//! Number syntax shared by STF files and BMv2 command files.
//!
//! Every function here takes user text and returns either a value or a message saying what was
//! wrong with the text; none of them panic. Widths are not known at this layer (the dataplane checks
//! that a value fits its field), so values are unbounded [`BigUint`]s.

use num_bigint::BigUint;
use num_traits::Num;
use std::net::{Ipv4Addr, Ipv6Addr};

/// Parses `123`, `0x7f`, `0b1010` (underscores allowed between digits, as in P4).
pub fn parse_int(text: &str) -> Result<BigUint, String> {
    let (digits, radix) = split_radix(text);
    let cleaned: String = digits.chars().filter(|&c| c != '_').collect();
    if cleaned.is_empty() {
        return Err(format!("`{text}` is not a number"));
    }
    BigUint::from_str_radix(&cleaned, radix).map_err(|_| {
        let kind = match radix {
            16 => "hexadecimal",
            2 => "binary",
            _ => "decimal",
        };
        format!("`{text}` is not a valid {kind} number")
    })
}

/// Splits a `0x`/`0b` prefix off, returning the digits and their radix (10 when unprefixed).
pub fn split_radix(text: &str) -> (&str, u32) {
    if let Some(rest) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        (rest, 16)
    } else if let Some(rest) = text.strip_prefix("0b").or_else(|| text.strip_prefix("0B")) {
        (rest, 2)
    } else {
        (text, 10)
    }
}

/// Parses a number that must fit a `u64` (ports, indices, handles, counts).
pub fn parse_u64(text: &str, what: &str) -> Result<u64, String> {
    let value = parse_int(text).map_err(|e| format!("{what}: {e}"))?;
    u64::try_from(&value).map_err(|_| format!("{what} `{text}` is too large"))
}

/// Parses a number that must fit a `u32` (ports, groups, sessions, rids).
pub fn parse_u32(text: &str, what: &str) -> Result<u32, String> {
    let value = parse_int(text).map_err(|e| format!("{what}: {e}"))?;
    u32::try_from(&value).map_err(|_| format!("{what} `{text}` is too large"))
}

/// Parses a BMv2 runtime-CLI value: an integer (decimal or `0x` hex), an IPv4 address in dotted
/// decimal (`10.1.2.3`, 32 bits), a MAC address (`00:12:34:56:78:9a`, 48 bits) or an IPv6 address in
/// IETF notation (`1080::8:800:200C:417A`, 128 bits).
pub fn parse_cli_value(text: &str) -> Result<BigUint, String> {
    if text.contains('.') {
        let addr: Ipv4Addr = text.parse().map_err(|_| format!("`{text}` is not a number or IPv4 address"))?;
        return Ok(BigUint::from(u32::from(addr)));
    }
    if text.contains(':') {
        if is_mac(text) {
            let bytes: Vec<u8> = text.split(':').filter_map(|b| u8::from_str_radix(b, 16).ok()).collect();
            return Ok(BigUint::from_bytes_be(&bytes));
        }
        let addr: Ipv6Addr =
            text.parse().map_err(|_| format!("`{text}` is not a valid MAC address (xx:xx:xx:xx:xx:xx) or IPv6 address"))?;
        return Ok(BigUint::from(u128::from(addr)));
    }
    parse_int(text)
}

/// Six groups of exactly two hex digits separated by `:`.
fn is_mac(text: &str) -> bool {
    let groups: Vec<&str> = text.split(':').collect();
    groups.len() == 6 && groups.iter().all(|g| g.len() == 2 && g.chars().all(|c| c.is_ascii_hexdigit()))
}

/// Parses `rate:burst` (rate in units per microsecond, burst in units).
pub fn parse_meter_rate(text: &str) -> Result<(f64, u32), String> {
    let (rate, burst) = text
        .split_once(':')
        .ok_or_else(|| format!("meter rate `{text}` must be written `<rate>:<burst>`"))?;
    let rate_value: f64 = rate.parse().map_err(|_| format!("meter rate `{rate}` is not a number"))?;
    if !rate_value.is_finite() || rate_value < 0.0 {
        return Err(format!("meter rate `{rate}` must be a non-negative number"));
    }
    let burst_value = parse_u32(burst, "meter burst size")?;
    Ok((rate_value, burst_value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big(n: u128) -> BigUint {
        BigUint::from(n)
    }

    #[test]
    fn integers_in_three_radixes() {
        assert_eq!(parse_int("42"), Ok(big(42)));
        assert_eq!(parse_int("0x2A"), Ok(big(42)));
        assert_eq!(parse_int("0b101010"), Ok(big(42)));
        assert_eq!(parse_int("1_000"), Ok(big(1000)));
        assert_eq!(parse_int("0x"), Err("`0x` is not a number".to_string()));
        assert_eq!(parse_int("12a"), Err("`12a` is not a valid decimal number".to_string()));
        assert_eq!(parse_int("0b102"), Err("`0b102` is not a valid binary number".to_string()));
    }

    #[test]
    fn cli_values_in_address_notations() {
        assert_eq!(parse_cli_value("10.1.2.3"), Ok(big(0x0a01_0203)));
        assert_eq!(parse_cli_value("00:12:34:56:78:9a"), Ok(big(0x0012_3456_789a)));
        assert_eq!(parse_cli_value("1080::8:800:200C:417A"), Ok(big(0x1080_0000_0000_0000_0008_0800_200c_417a)));
        assert_eq!(parse_cli_value("::1"), Ok(big(1)));
        assert_eq!(parse_cli_value("0xff"), Ok(big(255)));
        assert_eq!(parse_cli_value("10.1.2"), Err("`10.1.2` is not a number or IPv4 address".to_string()));
        assert!(parse_cli_value("00:12:34:56:78:9g").is_err());
    }

    #[test]
    fn meter_rates() {
        assert_eq!(parse_meter_rate("0.5:100"), Ok((0.5, 100)));
        assert_eq!(parse_meter_rate("1"), Err("meter rate `1` must be written `<rate>:<burst>`".to_string()));
        assert_eq!(parse_meter_rate("x:1"), Err("meter rate `x` is not a number".to_string()));
        assert!(parse_meter_rate("-1:1").is_err());
    }

    #[test]
    fn bounded_integers() {
        assert_eq!(parse_u32("4294967295", "port"), Ok(u32::MAX));
        assert_eq!(parse_u32("4294967296", "port"), Err("port `4294967296` is too large".to_string()));
        assert_eq!(parse_u64("zz", "index"), Err("index: `zz` is not a valid decimal number".to_string()));
    }
}

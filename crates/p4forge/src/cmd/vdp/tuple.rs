//! The 10-tuple both lookups of `examples/vdp/vdp.p4` match on, as a VDP's rules give it: each
//! field a value and a mask (a wildcard where the rule does not name the field).

use std::fmt;

/// The tuple's fields, in the tables' key order after the VDP id: name and width in bits.
pub const FIELDS: [(&str, u32); 10] = [
    ("in_port", 9),
    ("dst_mac", 48),
    ("src_mac", 48),
    ("vlan", 12),
    ("ether_type", 16),
    ("src_ip", 32),
    ("dst_ip", 32),
    ("proto", 8),
    ("src_port", 16),
    ("dst_port", 16),
];

/// A ternary match on the tuple: per field `(value, mask)`, the value inside the mask.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TupleMatch(pub [(u64, u64); 10]);

/// A packet's tuple: per field its value.
pub type Tuple = [u64; 10];

fn all_ones(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

impl TupleMatch {
    /// Parses `field=value` terms (`value` decimal or `0x` hex, a MAC `aa:bb:cc:dd:ee:ff`, an
    /// IPv4 address; then `&&&mask` or, for IPv4 addresses, `/len`); fields not named are wildcards.
    pub fn parse<'a>(terms: impl IntoIterator<Item = &'a str>) -> Result<TupleMatch, String> {
        let mut m = TupleMatch::default();
        let mut named = [false; 10];
        for term in terms {
            let (name, text) = term.split_once('=').ok_or_else(|| format!("`{term}`: a match term is FIELD=VALUE (fields: {})", field_names()))?;
            let i = FIELDS.iter().position(|(n, _)| *n == name).ok_or_else(|| format!("`{name}`: no such field (fields: {})", field_names()))?;
            if std::mem::replace(&mut named[i], true) {
                return Err(format!("`{name}` is given twice"));
            }
            let width = FIELDS[i].1;
            let full = all_ones(width);
            let (value, mask) = if let Some((v, mask)) = text.split_once("&&&") {
                (parse_value(v, width)?, parse_value(mask, width)?)
            } else if let Some((v, len)) = text.split_once('/') {
                let len: u32 = len.parse().map_err(|_| format!("`{text}`: /LEN is a prefix length"))?;
                if len > width {
                    return Err(format!("`{text}`: a prefix of {len} bits is longer than {name}'s {width}"));
                }
                let mask = if len == 0 { 0 } else { full & !(all_ones(width - len)) };
                (parse_value(v, width)?, mask)
            } else {
                (parse_value(text, width)?, full)
            };
            if value & !mask != 0 {
                return Err(format!("`{term}`: the value has bits outside the mask"));
            }
            m.0[i] = (value, mask);
        }
        Ok(m)
    }

    /// Whether a packet with `tuple` matches.
    pub fn matches(&self, tuple: &Tuple) -> bool {
        self.0.iter().zip(tuple).all(|((v, m), t)| t & m == *v)
    }

    /// Whether some packet matches both.
    pub fn overlaps(&self, other: &TupleMatch) -> bool {
        self.0.iter().zip(&other.0).all(|((v1, m1), (v2, m2))| (v1 ^ v2) & m1 & m2 == 0)
    }
}

/// Renders the terms that are not wildcards (`*` for none).
impl fmt::Display for TupleMatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let terms: Vec<String> = FIELDS
            .iter()
            .zip(&self.0)
            .filter(|(_, (_, m))| *m != 0)
            .map(|((name, width), (v, m))| if *m == all_ones(*width) { format!("{name}={v:#x}") } else { format!("{name}={v:#x}&&&{m:#x}") })
            .collect();
        if terms.is_empty() {
            write!(f, "*")
        } else {
            write!(f, "{}", terms.join(" "))
        }
    }
}

fn field_names() -> String {
    FIELDS.map(|(n, _)| n).join(", ")
}

/// A value of a `width`-bit field: decimal, `0x` hex, a MAC (6 bytes, `:`-separated) or an IPv4
/// address (dotted).
pub fn parse_value(text: &str, width: u32) -> Result<u64, String> {
    let v = if text.contains(':') {
        let bytes: Vec<&str> = text.split(':').collect();
        if bytes.len() != 6 {
            return Err(format!("`{text}`: a MAC address has 6 bytes"));
        }
        bytes.iter().try_fold(0u64, |acc, b| u8::from_str_radix(b, 16).map(|b| acc << 8 | u64::from(b))).map_err(|_| format!("`{text}`: not a MAC address"))?
    } else if text.matches('.').count() == 3 {
        let ip: std::net::Ipv4Addr = text.parse().map_err(|_| format!("`{text}`: not an IPv4 address"))?;
        u64::from(u32::from(ip))
    } else if let Some(hex) = text.strip_prefix("0x") {
        u64::from_str_radix(hex, 16).map_err(|_| format!("`{text}`: not a number"))?
    } else {
        text.parse().map_err(|_| format!("`{text}`: not a number"))?
    };
    if v > all_ones(width) {
        return Err(format!("`{text}` does not fit {width} bits"));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_parse_into_values_and_masks() {
        let m = TupleMatch::parse(["in_port=2", "dst_ip=10.1.0.0/16", "dst_mac=02:00:00:00:00:01", "vlan=0x60&&&0xff0"]).unwrap();
        assert_eq!(m.0[0], (2, 0x1ff));
        assert_eq!(m.0[6], (0x0a01_0000, 0xffff_0000));
        assert_eq!(m.0[1], (0x0200_0000_0001, 0xffff_ffff_ffff));
        assert_eq!(m.0[3], (0x60, 0xff0));
        assert_eq!(m.to_string(), "in_port=0x2 dst_mac=0x20000000001 vlan=0x60&&&0xff0 dst_ip=0xa010000&&&0xffff0000");
        assert_eq!(TupleMatch::parse([]).unwrap().to_string(), "*");
        for (bad, why) in [
            ("port=1", "`port`: no such field"),
            ("in_port=512", "`512` does not fit 9 bits"),
            ("dst_ip=10.1.2.3/16", "the value has bits outside the mask"),
            ("dst_ip=10.1.0.0/33", "a prefix of 33 bits is longer than dst_ip's 32"),
            ("src_mac=02:00:00", "a MAC address has 6 bytes"),
            ("proto", "a match term is FIELD=VALUE"),
        ] {
            let e = TupleMatch::parse([bad]).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
        assert!(TupleMatch::parse(["vlan=1", "vlan=2"]).unwrap_err().contains("`vlan` is given twice"));
    }

    #[test]
    fn overlap_is_some_packet_matching_both() {
        let a = TupleMatch::parse(["in_port=0"]).unwrap();
        let b = TupleMatch::parse(["vlan=100"]).unwrap();
        let c = TupleMatch::parse(["in_port=1", "vlan=100"]).unwrap();
        assert!(a.overlaps(&b) && b.overlaps(&c) && !a.overlaps(&c));
        let mut t: Tuple = [0; 10];
        t[3] = 100;
        assert!(a.matches(&t) && b.matches(&t) && !c.matches(&t));
    }
}

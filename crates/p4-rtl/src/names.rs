//! SystemVerilog names for P4 objects. Generated code is named after the program (`ingress_ipv4_lpm`,
//! `hdr.ipv4.ttl`), so a waveform reads like the P4 source; these functions make such names legal.

use std::collections::HashSet;

/// Every keyword of SystemVerilog (IEEE 1800-2017, Annex B), sorted (binary search): a P4 name equal
/// to one gets a trailing underscore (`before`, `checker`, `sequence` are fine P4 field names).
#[rustfmt::skip]
const RESERVED: &[&str] = &[
    "accept_on", "alias", "always", "always_comb", "always_ff", "always_latch", "and", "assert", "assign",
    "assume", "automatic", "before", "begin", "bind", "bins", "binsof", "bit", "break", "buf", "bufif0",
    "bufif1", "byte", "case", "casex", "casez", "cell", "chandle", "checker", "class", "clocking", "cmos",
    "config", "const", "constraint", "context", "continue", "cover", "covergroup", "coverpoint", "cross",
    "deassign", "default", "defparam", "design", "disable", "dist", "do", "edge", "else", "end", "endcase",
    "endchecker", "endclass", "endclocking", "endconfig", "endfunction", "endgenerate", "endgroup",
    "endinterface", "endmodule", "endpackage", "endprimitive", "endprogram", "endproperty", "endsequence",
    "endspecify", "endtable", "endtask", "enum", "event", "eventually", "expect", "export", "extends",
    "extern", "final", "first_match", "for", "force", "foreach", "forever", "fork", "forkjoin", "function",
    "generate", "genvar", "global", "highz0", "highz1", "if", "iff", "ifnone", "ignore_bins", "illegal_bins",
    "implements", "implies", "import", "incdir", "include", "initial", "inout", "input", "inside", "instance",
    "int", "integer", "interconnect", "interface", "intersect", "join", "join_any", "join_none", "large",
    "let", "liblist", "library", "local", "localparam", "logic", "longint", "macromodule", "matches",
    "medium", "modport", "module", "nand", "negedge", "nettype", "new", "nexttime", "nmos", "nor",
    "noshowcancelled", "not", "notif0", "notif1", "null", "or", "output", "package", "packed", "parameter",
    "pmos", "posedge", "primitive", "priority", "program", "property", "protected", "pull0", "pull1",
    "pulldown", "pullup", "pulsestyle_ondetect", "pulsestyle_onevent", "pure", "rand", "randc", "randcase",
    "randsequence", "rcmos", "real", "realtime", "ref", "reg", "reject_on", "release", "repeat", "restrict",
    "return", "rnmos", "rpmos", "rtran", "rtranif0", "rtranif1", "s_always", "s_eventually", "s_nexttime",
    "s_until", "s_until_with", "scalared", "sequence", "shortint", "shortreal", "showcancelled", "signed",
    "small", "soft", "solve", "specify", "specparam", "static", "string", "strong", "strong0", "strong1",
    "struct", "super", "supply0", "supply1", "sync_accept_on", "sync_reject_on", "table", "tagged", "task",
    "this", "throughout", "time", "timeprecision", "timeunit", "tran", "tranif0", "tranif1", "tri", "tri0",
    "tri1", "triand", "trior", "trireg", "type", "typedef", "union", "unique", "unique0", "unsigned", "until",
    "until_with", "untyped", "use", "uwire", "var", "vectored", "virtual", "void", "wait", "wait_order",
    "wand", "weak", "weak0", "weak1", "while", "wildcard", "wire", "with", "within", "wor", "xnor", "xor",
];

/// A legal SystemVerilog identifier for a P4 name: dots and other punctuation become `_`, a leading
/// digit gets a `_` in front, reserved words a `_` behind. The trailing-underscore space (`valid_`,
/// `done_`) is the generator's own, so a P4 name ending in `_` gets one more.
pub fn ident(name: &str) -> String {
    let mut s: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if s.ends_with('_') || RESERVED.binary_search(&s.as_str()).is_ok() {
        s.push('_');
    }
    s
}

/// Hands out identifiers unique within one scope.
#[derive(Default)]
pub struct Scope {
    used: HashSet<String>,
}

impl Scope {
    /// `ident(name)`, or `ident(name)` with `_2`, `_3`, ... appended if already taken.
    pub fn fresh(&mut self, name: &str) -> String {
        let base = ident(name);
        let mut candidate = base.clone();
        let mut n = 2;
        while !self.used.insert(candidate.clone()) {
            candidate = format!("{base}_{n}");
            n += 1;
        }
        candidate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_are_sorted_for_binary_search() {
        assert!(RESERVED.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn names_become_legal_identifiers() {
        assert_eq!(ident("L2L3Ingress.ipv4_lpm"), "L2L3Ingress_ipv4_lpm");
        assert_eq!(ident("table"), "table_");
        assert_eq!(ident("before"), "before_");
        assert_eq!(ident("xor"), "xor_");
        assert_eq!(ident("accept_on"), "accept_on_");
        assert_eq!(ident("3way"), "_3way");
        assert_eq!(ident("x_"), "x__");
        let mut s = Scope::default();
        assert_eq!(s.fresh("a.b"), "a_b");
        assert_eq!(s.fresh("a_b"), "a_b_2");
    }
}

//! SystemVerilog names for P4 objects. Generated code is named after the program (`ingress_ipv4_lpm`,
//! `hdr.ipv4.ttl`), so a waveform reads like the P4 source; these functions make such names legal.

use std::collections::HashSet;

/// Words SystemVerilog reserves that are plausible P4 identifiers (a P4 name equal to one gets a
/// trailing underscore).
const RESERVED: &[&str] = &[
    "always", "and", "assign", "begin", "bit", "buf", "byte", "case", "casex", "casez", "cell", "chandle", "class",
    "config", "const", "context", "cover", "default", "design", "disable", "do", "edge", "else", "end", "endcase",
    "endfunction", "endmodule", "enum", "event", "export", "extern", "final", "for", "force", "forever", "fork",
    "function", "generate", "genvar", "if", "import", "initial", "inout", "input", "int", "integer", "interface",
    "join", "large", "let", "liblist", "library", "local", "logic", "longint", "macromodule", "medium", "module",
    "nand", "negedge", "new", "nor", "not", "null", "or", "output", "package", "packed", "parameter", "posedge",
    "primitive", "priority", "program", "property", "protected", "pull0", "pull1", "rand", "real", "ref", "reg",
    "release", "repeat", "return", "scalared", "sequence", "shortint", "signed", "small", "solve", "specify",
    "static", "string", "strong", "struct", "super", "supply0", "supply1", "table", "task", "this", "time", "tri",
    "type", "typedef", "union", "unique", "unsigned", "use", "var", "vectored", "virtual", "void", "wait", "wand",
    "weak", "while", "wire", "with", "wor", "xnor", "xor",
];

/// A legal SystemVerilog identifier for a P4 name: dots and other punctuation become `_`, a leading
/// digit gets a `_` in front, reserved words a `_` behind. The trailing-underscore space (`valid_`,
/// `done_`) is the generator's own, so a P4 name ending in `_` gets one more.
pub fn ident(name: &str) -> String {
    let mut s: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if s.ends_with('_') || RESERVED.contains(&s.as_str()) {
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
    fn names_become_legal_identifiers() {
        assert_eq!(ident("L2L3Ingress.ipv4_lpm"), "L2L3Ingress_ipv4_lpm");
        assert_eq!(ident("table"), "table_");
        assert_eq!(ident("3way"), "_3way");
        assert_eq!(ident("x_"), "x__");
        let mut s = Scope::default();
        assert_eq!(s.fresh("a.b"), "a_b");
        assert_eq!(s.fresh("a_b"), "a_b_2");
    }
}

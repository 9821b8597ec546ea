//! Random v1model programs for differential tests: the same program and packets run on two
//! executors (or before and after the mid-end) must give the same packets out.
//!
//! A program is drawn from a seed (splitmix64), so a failure is reproduced by its seed alone. What
//! is drawn: 1–4 header types of 1–5 fields (any width up to 64, sometimes up to 128, some signed;
//! most types whole bytes, some not), instances of them (two of one type, a header stack, a
//! header union, a header with a varbit field), a parser extracting them in order (a stack in a
//! loop, a union's member by the next bit, a varbit sized by a byte read ahead, sometimes wrongly)
//! with `select` on fields, slices, tuples and `lookahead` (constants, masks, ranges, default),
//! `advance` and `verify`; ingress and egress bodies of assignments (to slices too), `if`, header
//! copies, `setValid` with every field then assigned, stack `push_front`/`pop_front`, tables with
//! const entries (exact, ternary, lpm, range keys; `hit` and `switch` on the action run), actions
//! called with `inout` arguments, registers, `hash`, `setInvalid`, `mark_to_drop`, `exit`, clones,
//! resubmission, recirculation and multicast (session 5 and group 7:
//! [`super::mirror_and_group`]); a csum16 `update_checksum`; and a deparser emitting the headers
//! in a random order, some under `if`, `switch`, loops, functions and `for`-in over a stack.
//!
//! Only behaviour the P4 spec defines is drawn: every read of a header field is guarded by the
//! header's validity (invalidating headers and copies happen outside the guarded blocks),
//! `setValid` is followed by an assignment of every field before any read, and shift amounts,
//! slices and casts stay within their types.
#![allow(dead_code)]

use std::fmt::Write;

/// The tests' generator (`p4_io::testing::Rng`, SplitMix64) with the draws random programs need.
pub struct Rng(p4_io::testing::Rng);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(p4_io::testing::Rng(seed))
    }

    pub fn next(&mut self) -> u64 {
        self.0.next()
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// A value of `width` bits, often 0, 1, all ones or small: the values selects and keys test.
    pub fn value(&mut self, width: u32) -> u128 {
        let mask = if width >= 128 { u128::MAX } else { (1u128 << width) - 1 };
        let v = match self.below(6) {
            0 => 0,
            1 => 1,
            2 => u128::MAX,
            3 => self.below(4) as u128,
            _ => (self.next() as u128) << 64 | self.next() as u128,
        };
        v & mask
    }

    /// A packet byte, often 0, 1, 2 or 0xff so that small constants in selects and keys match.
    pub fn byte(&mut self) -> u8 {
        match self.below(8) {
            0 | 1 => 0,
            2 => 1,
            3 => 2,
            4 => 0xff,
            _ => self.next() as u8,
        }
    }
}

struct Field {
    name: String,
    width: u32,
    signed: bool,
}

/// Header type `tI_t`.
struct HeaderType {
    fields: Vec<Field>,
    /// A last field `varbit<N>` (N, whole bytes) after the fixed fields, the first of which is a
    /// `bit<8>` the parser sizes it by.
    varbit: Option<u32>,
}

impl HeaderType {
    /// The most bits it takes on the wire.
    fn bits(&self) -> u32 {
        self.fields.iter().map(|f| f.width).sum::<u32>() + self.varbit.unwrap_or(0)
    }
}

/// A member of `headers_t` (`hdr.NAME`): a header, a stack of `n`, or a union of headers of the
/// given types (members `m0`, `m1`, ...).
struct Member {
    name: String,
    ty: usize,
    stack: Option<usize>,
    union: Option<Vec<usize>>,
}

/// A header the controls name: `hdr.h0`, or a stack element at a constant index, `hdr.s1[0]`.
struct Header {
    path: String,
    ty: usize,
}

/// A program and packets to run through it (arriving on port 0).
pub struct Generated {
    pub seed: u64,
    pub text: String,
    pub packets: Vec<Vec<u8>>,
}

const META: [(&str, u32); 4] = [("m8", 8), ("m16", 16), ("m32", 32), ("m48", 48)];

struct Gen {
    rng: Rng,
    types: Vec<HeaderType>,
    members: Vec<Member>,
    headers: Vec<Header>,
    /// Declarations of the control being drawn (tables and actions).
    decls: String,
    registers: Vec<(String, u32)>,
    /// Functions and sub-controls, declared before the parser.
    globals: String,
    /// Locals in scope where a statement is being drawn: (name, width).
    locals: Vec<(String, u32)>,
    /// How deep in sub-controls the control being drawn is.
    nesting: u32,
    /// Fresh names for tables, actions, locals, functions and sub-controls.
    counter: usize,
}

/// The program and packets of `seed`.
pub fn generate(seed: u64) -> Generated {
    let mut g = Gen {
        rng: Rng::new(seed),
        types: Vec::new(),
        members: Vec::new(),
        headers: Vec::new(),
        decls: String::new(),
        registers: Vec::new(),
        globals: String::new(),
        locals: Vec::new(),
        nesting: 0,
        counter: 0,
    };
    g.draw_headers();
    let text = g.program();
    let max_len = g.members.iter().map(|m| g.types[m.ty].bits().div_ceil(8) * m.stack.unwrap_or(1) as u32).sum::<u32>() as u64 + 8;
    let packets = (0..16)
        .map(|_| {
            let len = g.rng.below(max_len + 1);
            (0..len).map(|_| g.rng.byte()).collect()
        })
        .collect();
    Generated { seed, text, packets }
}

impl Gen {
    fn draw_headers(&mut self) {
        for _ in 0..1 + self.rng.below(4) {
            let mut fields: Vec<Field> = (0..1 + self.rng.below(5))
                .map(|i| {
                    let width = match self.rng.below(10) {
                        0 => 1 + self.rng.below(7) as u32,
                        1 => 65 + self.rng.below(64) as u32,
                        2..=5 => *self.rng.pick(&[8, 16, 32, 48]),
                        _ => 1 + self.rng.below(64) as u32,
                    };
                    Field { name: format!("f{i}"), width, signed: self.rng.chance(15) }
                })
                .collect();
            let bits: u32 = fields.iter().map(|f| f.width).sum();
            // Most headers are whole bytes (the machine code's case); the rest are not.
            if bits % 8 != 0 && self.rng.chance(90) {
                fields.push(Field { name: "pad".into(), width: 8 - bits % 8, signed: false });
            }
            self.types.push(HeaderType { fields, varbit: None });
        }
        let plain = self.types.len();
        for t in 0..plain {
            let stack = self.rng.chance(20).then(|| 2 + self.rng.below(3) as usize);
            self.members.push(Member { name: format!("h{t}"), ty: t, stack, union: None });
        }
        // A second instance of one type: header copies between the two.
        if self.rng.chance(40) {
            let ty = self.rng.below(plain as u64) as usize;
            self.members.push(Member { name: format!("h{}", self.members.len()), ty, stack: None, union: None });
        }
        // A header with a varbit field, somewhere among the others.
        if self.rng.chance(25) {
            let max = 8 * (1 + self.rng.below(8) as u32);
            let mut fields = vec![Field { name: "len".into(), width: 8, signed: false }];
            if self.rng.chance(50) {
                fields.push(Field { name: "f1".into(), width: 16, signed: false });
            }
            self.types.push(HeaderType { fields, varbit: Some(max) });
            let at = self.rng.below(self.members.len() as u64 + 1) as usize;
            self.members.insert(at, Member { name: format!("h{}", self.members.len()), ty: self.types.len() - 1, stack: None, union: None });
        }
        // A union of two of the plain types, somewhere among the others.
        if self.rng.chance(25) {
            let types = vec![self.rng.below(plain as u64) as usize, self.rng.below(plain as u64) as usize];
            let at = self.rng.below(self.members.len() as u64 + 1) as usize;
            self.members.insert(at, Member { name: format!("h{}", self.members.len()), ty: types[0], stack: None, union: Some(types) });
        }
        for m in &self.members {
            match (&m.union, m.stack) {
                (Some(types), _) => self.headers.extend(types.iter().enumerate().map(|(i, &ty)| Header { path: format!("hdr.{}.m{i}", m.name), ty })),
                (None, Some(n)) => self.headers.extend((0..n).map(|i| Header { path: format!("hdr.{}[{i}]", m.name), ty: m.ty })),
                (None, None) => self.headers.push(Header { path: format!("hdr.{}", m.name), ty: m.ty }),
            }
        }
    }

    fn program(&mut self) -> String {
        let mut out = String::from("#include <core.p4>\n#include <v1model.p4>\n");
        for (i, t) in self.types.iter().enumerate() {
            let fields: String = t.fields.iter().map(|f| format!(" {}<{}> {};", if f.signed { "int" } else { "bit" }, f.width, f.name)).collect();
            let varbit = t.varbit.map_or(String::new(), |n| format!(" varbit<{n}> data;"));
            writeln!(out, "header t{i}_t {{{fields}{varbit} }}").unwrap();
        }
        for m in &self.members {
            if let Some(types) = &m.union {
                let members: String = types.iter().enumerate().map(|(i, t)| format!(" t{t}_t m{i};")).collect();
                writeln!(out, "header_union {}_u {{{members} }}", m.name).unwrap();
            }
        }
        let members: String = self
            .members
            .iter()
            .map(|m| match (&m.union, m.stack) {
                (Some(_), _) => format!(" {0}_u {0};", m.name),
                (None, stack) => format!(" t{}_t{} {};", m.ty, stack.map_or(String::new(), |n| format!("[{n}]")), m.name),
            })
            .collect();
        writeln!(out, "struct headers_t {{{members} }}").unwrap();
        let meta: String = META.iter().map(|(n, w)| format!(" bit<{w}> {n};")).collect();
        writeln!(out, "struct meta_t {{{meta} }}").unwrap();
        let parser = self.parser();
        let ingress = self.control(true);
        let egress = self.control(false);
        let checksum = self.checksum();
        let mut order: Vec<usize> = (0..self.members.len()).collect();
        for i in (1..order.len()).rev() {
            let j = self.rng.below(i as u64 + 1) as usize;
            order.swap(i, j);
        }
        let emits: String = order.iter().map(|&i| format!(" {}", self.deparse(i, 0))).collect();
        let registers: String = self.registers.iter().map(|(n, w)| format!("register<bit<{w}>>(4) {n};\n")).collect();
        out.push_str(&registers);
        out.push_str(&self.globals);
        out.push_str(&parser);
        out.push_str("control V(inout headers_t hdr, inout meta_t meta) { apply { } }\n");
        out.push_str(&ingress);
        out.push_str(&egress);
        writeln!(out, "control C(inout headers_t hdr, inout meta_t meta) {{ apply {{ {checksum} }} }}").unwrap();
        writeln!(out, "control D(packet_out pkt, in headers_t hdr) {{ apply {{{emits} }} }}").unwrap();
        out.push_str("V1Switch(P(), V(), I(), E(), C(), D()) main;\n");
        out
    }

    /// The deparser's statements emitting member `m`: often just `pkt.emit(hdr.M);`, else that
    /// emit under control flow the generated code leaves to closures or the mid-end rewrites: an
    /// `if` on a guarded field bit (the emit in one or both branches), a `switch` on a guarded
    /// field's low bits, a loop of a constant or a field's number of rounds, a function that emits,
    /// or (a stack) a `for`-in over its elements. `depth`: how deep in such statements it is.
    fn deparse(&mut self, m: usize, depth: u32) -> String {
        let name = self.members[m].name.clone();
        let emit = format!("pkt.emit(hdr.{name});");
        if depth >= 2 || self.rng.chance(50) {
            return emit;
        }
        let n = self.counter;
        self.counter += 1;
        match self.rng.below(6) {
            0 => {
                let Some((h, f)) = self.deparser_field(1) else { return emit };
                let then = self.deparse(m, depth + 1);
                let otherwise = if self.rng.chance(50) { self.deparse(m, depth + 1) } else { String::new() };
                format!("if ({h}.isValid() && {h}.{f}[0:0] == 1) {{ {then} }} else {{ {otherwise} }}")
            }
            1 => {
                let Some((h, f)) = self.deparser_field(2) else { return emit };
                let (a, b) = (self.deparse(m, depth + 1), self.deparse(m, depth + 1));
                let c = if self.rng.chance(50) { self.deparse(m, depth + 1) } else { String::new() };
                format!("if ({h}.isValid()) {{ switch ({h}.{f}[1:0]) {{ 0: {{ {a} }} 2: {{ {b} }} default: {{ {c} }} }} }}")
            }
            2 => {
                let rounds = self.rng.below(4);
                let body = self.deparse(m, depth + 1);
                format!("for (bit<8> i{n} = 0; i{n} < {rounds}; i{n} = i{n} + 1) {{ {body} }}")
            }
            3 => {
                let Some((h, f)) = self.deparser_field(2) else { return emit };
                let body = self.deparse(m, depth + 1);
                format!("if ({h}.isValid()) {{ for (bit<8> i{n} = 0; i{n} < (bit<8>){h}.{f}[1:0]; i{n} = i{n} + 1) {{ {body} }} }}")
            }
            4 => {
                let body = self.deparse(m, depth + 1);
                writeln!(self.globals, "void emit{n}(packet_out pkt, in headers_t hdr) {{ {body} }}").unwrap();
                format!("emit{n}(pkt, hdr);")
            }
            _ => match (self.members[m].stack, self.members[m].ty) {
                (Some(_), ty) => format!("for (t{ty}_t x{n} in hdr.{name}) {{ pkt.emit(x{n}); }}"),
                _ => emit,
            },
        }
    }

    /// A header the deparser may read a field of (`hdr.h0`, `hdr.s1[0]`, `hdr.u2.m0`) and one of
    /// its fields of at least `width` bits, if there is one.
    fn deparser_field(&mut self, width: u32) -> Option<(String, String)> {
        let h = self.rng.below(self.headers.len() as u64) as usize;
        let (path, ty) = (self.headers[h].path.clone(), self.headers[h].ty);
        let fields: Vec<String> = self.types[ty].fields.iter().filter(|f| f.width >= width).map(|f| f.name.clone()).collect();
        (!fields.is_empty()).then(|| (path, self.rng.pick(&fields).clone()))
    }

    /// State `sI` extracts member I (a stack: one element, looping while a field of the last
    /// one selects it), then selects among later states, accept and reject.
    fn parser(&mut self) -> String {
        let mut out = String::from("parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {\n");
        out.push_str("    state start { transition s0; }\n");
        let n = self.members.len();
        for i in 0..n {
            let (name, ty, stack) = (self.members[i].name.clone(), self.members[i].ty, self.members[i].stack);
            let onward: Vec<String> = (i + 1..n).map(|j| format!("s{j}")).chain(["accept".to_string()]).collect();
            if let Some(types) = self.members[i].union.clone() {
                // The next byte's low bit picks the member.
                writeln!(out, "    state s{i} {{ transition select(pkt.lookahead<bit<8>>()) {{ 0 &&& 1: s{i}_0; default: s{i}_1; }} }}").unwrap();
                for k in 0..types.len() {
                    let next = self.rng.pick(&onward).clone();
                    writeln!(out, "    state s{i}_{k} {{ pkt.extract(hdr.{name}.m{k}); transition {next}; }}").unwrap();
                }
                continue;
            }
            if self.types[ty].varbit.is_some() {
                // Sized by its first byte: sometimes more than it holds (HeaderTooShort), or not
                // whole bytes (ParserInvalidArgument).
                let mask = if self.rng.chance(20) { "0x7f" } else { "0x78" };
                let next = self.rng.pick(&onward).clone();
                writeln!(out, "    state s{i} {{ pkt.extract(hdr.{name}, (bit<32>)(pkt.lookahead<bit<8>>() & {mask})); transition {next}; }}").unwrap();
                continue;
            }
            write!(out, "    state s{i} {{ ").unwrap();
            if self.rng.chance(10) {
                write!(out, "pkt.advance({}); ", 8 * (1 + self.rng.below(2))).unwrap();
            }
            let (extract, read) = match stack {
                Some(_) => (format!("hdr.{name}.next"), format!("hdr.{name}.last")),
                None => (format!("hdr.{name}"), format!("hdr.{name}")),
            };
            write!(out, "pkt.extract({extract}); ").unwrap();
            if self.rng.chance(10) {
                let f = &self.types[ty].fields[0];
                let cast = if f.signed { format!("(bit<{}>)", f.width) } else { String::new() };
                write!(out, "verify({cast}{read}.{} != {}, error.ParserInvalidArgument); ", f.name, self.rng.below(3)).unwrap();
            }
            // Forward only, but a stack's state may loop through select cases (never by default,
            // so that every state reaches accept or reject).
            let mut later = onward.clone();
            if stack.is_some() {
                later.push(format!("s{i}"));
            }
            if i + 1 == n && stack.is_none() || self.rng.chance(20) {
                let next = if self.rng.chance(5) { "reject".to_string() } else { self.rng.pick(&onward).clone() };
                writeln!(out, "transition {next}; }}").unwrap();
                continue;
            }
            // The key: one or two fields (or slices) of this header, or the next byte.
            let mut keys = Vec::new();
            for _ in 0..1 + self.rng.below(2) {
                if self.rng.chance(15) {
                    keys.push(("pkt.lookahead<bit<8>>()".to_string(), 8));
                    continue;
                }
                let f = self.rng.below(self.types[ty].fields.len() as u64) as usize;
                let field = &self.types[ty].fields[f];
                keys.push(if field.width > 8 && self.rng.chance(30) {
                    let lo = self.rng.below(field.width as u64 - 4) as u32;
                    let hi = lo + self.rng.below((field.width - lo).min(8) as u64) as u32;
                    (format!("{read}.{}[{hi}:{lo}]", field.name), hi - lo + 1)
                } else if field.signed {
                    (format!("(bit<{0}>){read}.{1}", field.width, field.name), field.width)
                } else {
                    (format!("{read}.{}", field.name), field.width)
                });
            }
            let key_text: Vec<&str> = keys.iter().map(|k| k.0.as_str()).collect();
            write!(out, "transition select({}) {{", key_text.join(", ")).unwrap();
            for _ in 0..1 + self.rng.below(3) {
                let sets: Vec<String> = keys.iter().map(|k| self.keyset(k.1)).collect();
                let set = if sets.len() == 1 { sets[0].clone() } else { format!("({})", sets.join(", ")) };
                let next = self.rng.pick(&later).clone();
                write!(out, " {set}: {next};").unwrap();
            }
            let default = if self.rng.chance(10) { "reject".to_string() } else { self.rng.pick(&onward).clone() };
            writeln!(out, " default: {default}; }} }}").unwrap();
        }
        out.push_str("}\n");
        out
    }

    /// A select case's set for a key of `width` bits.
    fn keyset(&mut self, width: u32) -> String {
        let v = self.rng.value(width);
        match self.rng.below(10) {
            0 => "_".into(),
            1 | 2 => format!("{v:#x} &&& {:#x}", self.rng.value(width)),
            3 => {
                let hi = v.max(self.rng.value(width));
                format!("{v:#x} .. {hi:#x}")
            }
            _ => format!("{v:#x}"),
        }
    }

    fn control(&mut self, ingress: bool) -> String {
        let name = if ingress { "I" } else { "E" };
        let mut body = String::new();
        if ingress {
            writeln!(body, "        sm.egress_spec = {};", self.rng.below(4)).unwrap();
            if self.rng.chance(30) {
                body.push_str("        if (sm.parser_error != error.NoError) { sm.egress_spec = 3; }\n");
            }
        }
        self.decls.clear();
        for _ in 0..2 + self.rng.below(6) {
            let stmt = self.top_statement(ingress);
            body.push_str(&stmt);
        }
        let decls = std::mem::take(&mut self.decls);
        format!("control {name}(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{\n{decls}    apply {{\n{body}    }}\n}}\n")
    }

    /// A statement at the top of a control body: a guarded block, or one that needs no guard.
    fn top_statement(&mut self, ingress: bool) -> String {
        match self.rng.below(24) {
            0 => {
                let h = self.rng.below(self.headers.len() as u64) as usize;
                format!("        {}.setInvalid();\n", self.headers[h].path)
            }
            1 if self.rng.chance(30) => "        mark_to_drop(sm);\n".into(),
            2 if self.rng.chance(20) => "        exit;\n".into(),
            3 => self.set_valid(),
            4 => self.copy(),
            5 => match self.members.iter().find(|m| m.stack.is_some()) {
                Some(m) => format!("        hdr.{}.{}({});\n", m.name, self.rng.pick(&["push_front", "pop_front"]), 1 + self.rng.below(2)),
                None => String::new(),
            },
            6 => self.copies_of_the_packet(ingress),
            7 if self.nesting == 0 && self.rng.chance(40) => self.sub_control(ingress),
            _ => {
                // The headers this block may read and write, all valid inside it.
                let mut scope: Vec<usize> = (0..self.headers.len()).filter(|_| self.rng.chance(40)).collect();
                if scope.is_empty() {
                    scope.push(self.rng.below(self.headers.len() as u64) as usize);
                }
                let guard: Vec<String> = scope.iter().map(|&h| format!("{}.isValid()", self.headers[h].path)).collect();
                let mut block = String::new();
                // A local, read and written by the statements after it in the block.
                if self.rng.chance(30) {
                    self.counter += 1;
                    let (name, width) = (format!("v{}", self.counter), *self.rng.pick(&[1, 8, 16, 32, 64]));
                    writeln!(block, "            bit<{width}> {name} = {};", self.expr(&scope, width, 2)).unwrap();
                    self.locals.push((name, width));
                }
                for _ in 0..1 + self.rng.below(3) {
                    block.push_str(&self.statement(&scope, ingress, 3, 3));
                }
                self.locals.clear();
                format!("        if ({}) {{\n{block}        }}\n", guard.join(" && "))
            }
        }
    }

    /// `setValid` and every field assigned from metadata and constants.
    fn set_valid(&mut self) -> String {
        let h = self.rng.below(self.headers.len() as u64) as usize;
        // A varbit field has no value to assign.
        if self.types[self.headers[h].ty].varbit.is_some() {
            return String::new();
        }
        let mut out = format!("        {}.setValid();\n", self.headers[h].path);
        let fields: Vec<(String, u32, bool)> = self.types[self.headers[h].ty].fields.iter().map(|f| (f.name.clone(), f.width, f.signed)).collect();
        for (name, width, signed) in fields {
            let value = self.expr(&[], width, 2);
            let value = if signed { format!("(int<{width}>)({value})") } else { value };
            writeln!(out, "        {}.{name} = {value};", self.headers[h].path).unwrap();
        }
        out
    }

    /// A header copied from another of its type when that one is valid.
    fn copy(&mut self) -> String {
        let (a, b) = (self.rng.below(self.headers.len() as u64) as usize, self.rng.below(self.headers.len() as u64) as usize);
        if a == b || self.headers[a].ty != self.headers[b].ty {
            return String::new();
        }
        let (a, b) = (&self.headers[a].path, &self.headers[b].path);
        format!("        if ({b}.isValid()) {{ {a} = {b}; }}\n")
    }

    /// A clone, resubmission, recirculation or multicast, once per packet from the network.
    fn copies_of_the_packet(&mut self, ingress: bool) -> String {
        let what = if ingress {
            *self.rng.pick(&["clone(CloneType.I2E, 32w5)", "resubmit_preserving_field_list(0)", "sm.mcast_grp = 7", "truncate(32w20)"])
        } else {
            *self.rng.pick(&["clone(CloneType.E2E, 32w5)", "recirculate_preserving_field_list(0)"])
        };
        format!("        if (sm.instance_type == 0) {{ {what}; }}\n")
    }

    /// A statement reading and writing the headers of `scope` (valid here) and metadata.
    fn statement(&mut self, scope: &[usize], ingress: bool, depth: u32, indent: usize) -> String {
        let pad = "    ".repeat(indent);
        match self.rng.below(if depth == 0 { 6 } else { 17 }) {
            0..=2 => {
                let (target, width, signed) = self.target(scope);
                let value = self.expr(scope, width, 3);
                let value = if signed { format!("(int<{width}>)({value})") } else { value };
                format!("{pad}{target} = {value};\n")
            }
            3 => {
                // A slice written: the bits around it stay.
                let (target, width, signed) = self.target(scope);
                if signed || width < 2 {
                    return String::new();
                }
                let lo = self.rng.below(width as u64) as u32;
                let hi = lo + self.rng.below((width - lo) as u64) as u32;
                format!("{pad}{target}[{hi}:{lo}] = {};\n", self.expr(scope, hi - lo + 1, 2))
            }
            4 if ingress => format!("{pad}sm.egress_spec = (bit<9>)({});\n", self.expr(scope, 2, 2)),
            5 => self.register_use(scope, &pad),
            6 | 7 => {
                let cond = self.cond(scope, 2);
                let then = self.statement(scope, ingress, depth - 1, indent + 1);
                if self.rng.chance(50) {
                    let other = self.statement(scope, ingress, depth - 1, indent + 1);
                    format!("{pad}if ({cond}) {{\n{then}{pad}}} else {{\n{other}{pad}}}\n")
                } else {
                    format!("{pad}if ({cond}) {{\n{then}{pad}}}\n")
                }
            }
            8 | 9 => self.table_use(scope, ingress, &pad),
            10 => {
                let (target, width, signed) = self.target(scope);
                if signed || width > 64 {
                    return String::new();
                }
                let fields = self.field_list(scope);
                let algo = self.rng.pick(&["crc16", "crc32", "csum16", "identity", "xor16"]);
                format!("{pad}hash({target}, HashAlgorithm.{algo}, {width}w{}, {{ {fields} }}, 64w{});\n", self.rng.below(4), 1 + self.rng.below(1000))
            }
            11 => self.action_call(scope, &pad),
            12 => {
                // A switch on a value: distinct labels, a default sometimes.
                let subject = self.expr(scope, 3, 2);
                let mut out = format!("{pad}switch ({subject}) {{\n");
                let mut labels: Vec<u64> = (0..8).collect();
                for _ in 0..1 + self.rng.below(3) {
                    let l = labels.remove(self.rng.below(labels.len() as u64) as usize);
                    let body = self.statement(scope, ingress, depth - 1, indent + 1);
                    writeln!(out, "{pad}    3w{l}: {{\n{body}{pad}    }}").unwrap();
                }
                if self.rng.chance(50) {
                    let body = self.statement(scope, ingress, depth - 1, indent + 1);
                    writeln!(out, "{pad}    default: {{\n{body}{pad}    }}").unwrap();
                }
                out.push_str(&pad);
                out.push_str("}\n");
                out
            }
            13 => {
                // A loop of at most 4 rounds; its counter is a local inside.
                self.counter += 1;
                let i = format!("i{}", self.counter);
                let rounds = 1 + self.rng.below(4);
                self.locals.push((i.clone(), 8));
                let body = self.statement(scope, ingress, depth - 1, indent + 1);
                let stop = if self.rng.chance(30) { format!("{pad}    if ({}) {{ break; }}\n", self.cond(scope, 1)) } else { String::new() };
                self.locals.retain(|l| l.0 != i);
                format!("{pad}for (bit<8> {i} = 0; {i} < {rounds}; {i} = {i} + 1) {{\n{stop}{body}{pad}}}\n")
            }
            14 => self.function_call(scope, &pad),
            _ if ingress && self.rng.chance(20) => format!("{pad}mark_to_drop(sm);\n"),
            _ => String::new(),
        }
    }

    /// Something assignable: a field of a header in scope or a metadata field.
    fn target(&mut self, scope: &[usize]) -> (String, u32, bool) {
        if !self.locals.is_empty() && self.rng.chance(20) {
            let (name, width) = self.rng.pick(&self.locals).clone();
            return (name, width, false);
        }
        if scope.is_empty() || self.rng.chance(25) {
            let (n, w) = *self.rng.pick(&META);
            return (format!("meta.{n}"), w, false);
        }
        let h = *self.rng.pick(scope);
        let fields = &self.types[self.headers[h].ty].fields;
        let field = &fields[self.rng.below(fields.len() as u64) as usize];
        (format!("{}.{}", self.headers[h].path, field.name), field.width, field.signed)
    }

    /// A value of `bit<width>` read from a field, metadata or the input port (cast or sliced to
    /// the width).
    fn read(&mut self, scope: &[usize], width: u32) -> String {
        let (text, w, signed) = if self.rng.chance(5) { ("sm.ingress_port".to_string(), 9, false) } else { self.target(scope) };
        let text = if signed { format!("((bit<{w}>){text})") } else { text };
        if w == width {
            text
        } else if w > width && self.rng.chance(50) {
            let lo = self.rng.below((w - width + 1) as u64) as u32;
            format!("{text}[{}:{lo}]", lo + width - 1)
        } else {
            format!("((bit<{width}>){text})")
        }
    }

    fn expr(&mut self, scope: &[usize], width: u32, depth: u32) -> String {
        let choice = if depth == 0 { self.rng.below(3) } else { self.rng.below(14) };
        match choice {
            0 => format!("{width}w{:#x}", self.rng.value(width)),
            1 | 2 => self.read(scope, width),
            3..=5 => {
                let op = self.rng.pick(&["+", "-", "*", "&", "|", "^", "|+|", "|-|"]);
                let (a, b) = (self.expr(scope, width, depth - 1), self.expr(scope, width, depth - 1));
                format!("({a} {op} {b})")
            }
            6 => {
                let op = self.rng.pick(&["<<", ">>"]);
                let a = self.expr(scope, width, depth - 1);
                let amount = if self.rng.chance(50) { format!("{}", self.rng.below(width as u64 + 2)) } else { self.read(scope, 8) };
                format!("({a} {op} {amount})")
            }
            7 => format!("(~{})", self.expr(scope, width, depth - 1)),
            8 => format!("(-{})", self.expr(scope, width, depth - 1)),
            9 if width >= 2 => {
                let left = 1 + self.rng.below(width as u64 - 1) as u32;
                let (a, b) = (self.expr(scope, left, depth - 1), self.expr(scope, width - left, depth - 1));
                format!("({a} ++ {b})")
            }
            10 => {
                let c = self.cond(scope, depth - 1);
                let (a, b) = (self.expr(scope, width, depth - 1), self.expr(scope, width, depth - 1));
                format!("({c} ? {a} : {b})")
            }
            11 => {
                // Signed arithmetic: an arithmetic shift or a saturating signed operation.
                let a = self.expr(scope, width, depth - 1);
                if self.rng.chance(50) {
                    format!("((bit<{width}>)((int<{width}>){a} >> {}))", self.rng.below(width as u64 + 1))
                } else {
                    let op = self.rng.pick(&["|+|", "|-|", "+", "-"]);
                    let b = self.expr(scope, width, depth - 1);
                    format!("((bit<{width}>)((int<{width}>){a} {op} (int<{width}>){b}))")
                }
            }
            13 if self.rng.chance(50) => {
                let f = self.function(width);
                let (a, b) = (self.expr(scope, width, depth - 1), self.expr(scope, width, depth - 1));
                format!("{f}({a}, {b})")
            }
            12 => {
                // Widen then narrow: the carries of a wider sum, cut back.
                let wide = (width + 1 + self.rng.below(16) as u32).min(128);
                let (a, b) = (self.expr(scope, width, depth - 1), self.expr(scope, width, depth - 1));
                format!("((bit<{width}>)(((bit<{wide}>){a} + (bit<{wide}>){b}) >> 1))")
            }
            _ => self.read(scope, width),
        }
    }

    fn cond(&mut self, scope: &[usize], depth: u32) -> String {
        let choice = if depth == 0 { self.rng.below(3) } else { self.rng.below(7) };
        match choice {
            0 | 1 => {
                let width = *self.rng.pick(&[1, 3, 8, 16, 32, 48, 64, 100]);
                let op = self.rng.pick(&["==", "!=", "<", "<=", ">", ">="]);
                let (a, b) = (self.expr(scope, width, depth), self.expr(scope, width, depth));
                format!("({a} {op} {b})")
            }
            2 => {
                let h = self.rng.below(self.headers.len() as u64) as usize;
                format!("{}.isValid()", self.headers[h].path)
            }
            3 => {
                let width = *self.rng.pick(&[4, 8, 16, 32]);
                let op = self.rng.pick(&["<", "<=", ">", ">="]);
                let (a, b) = (self.expr(scope, width, depth - 1), self.expr(scope, width, depth - 1));
                format!("((int<{width}>){a} {op} (int<{width}>){b})")
            }
            4 => format!("({} && {})", self.cond(scope, depth - 1), self.cond(scope, depth - 1)),
            5 => format!("({} || {})", self.cond(scope, depth - 1), self.cond(scope, depth - 1)),
            _ => format!("(!{})", self.cond(scope, depth - 1)),
        }
    }

    fn field_list(&mut self, scope: &[usize]) -> String {
        let n = 1 + self.rng.below(3);
        (0..n)
            .map(|_| {
                let (t, w, signed) = self.target(scope);
                if signed {
                    format!("(bit<{w}>){t}")
                } else {
                    t
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A new function of two `bit<width>` values returning one, with an early return.
    fn function(&mut self, width: u32) -> String {
        self.counter += 1;
        let name = format!("fn{}", self.counter);
        let op = self.rng.pick(&["+", "-", "^", "|-|", "|+|", "&"]);
        writeln!(
            self.globals,
            "bit<{width}> {name}(in bit<{width}> x, in bit<{width}> y) {{ if (x > y) {{ return x {op} y; }} bit<{width}> z = y - x; return z ^ {width}w{:#x}; }}",
            self.rng.value(width)
        )
        .unwrap();
        name
    }

    /// A new function with an `inout` and an `out` parameter, called on places of `scope`.
    fn function_call(&mut self, scope: &[usize], pad: &str) -> String {
        let (a, width, signed) = self.target(scope);
        let (b, width_b, signed_b) = self.target(scope);
        if signed || signed_b || width_b != width || a == b {
            return String::new();
        }
        self.counter += 1;
        let name = format!("g{}", self.counter);
        writeln!(self.globals, "void {name}(inout bit<{width}> x, out bit<{width}> y, in bit<{width}> z) {{ y = x; x = x + z; }}").unwrap();
        format!("{pad}{name}({a}, {b}, {});\n", self.expr(scope, width, 2))
    }

    /// A new control of the same parameters with its own statements (and tables), applied here.
    fn sub_control(&mut self, ingress: bool) -> String {
        self.counter += 1;
        let name = format!("sub{}", self.counter);
        let outer = std::mem::take(&mut self.decls);
        self.nesting += 1;
        let mut body = String::new();
        for _ in 0..1 + self.rng.below(3) {
            let stmt = self.top_statement(ingress);
            body.push_str(&stmt);
        }
        self.nesting -= 1;
        let decls = std::mem::replace(&mut self.decls, outer);
        writeln!(self.globals, "control {name}(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{\n{decls}    apply {{\n{body}    }}\n}}").unwrap();
        writeln!(self.decls, "    {name}() {name}_i;").unwrap();
        format!("        {name}_i.apply(hdr, meta, sm);\n")
    }

    /// A register read into a target or a write of a value, at an index that may be out of range.
    fn register_use(&mut self, scope: &[usize], pad: &str) -> String {
        let (target, width, signed) = self.target(scope);
        if signed {
            return String::new();
        }
        let name = match self.registers.iter().find(|r| r.1 == width) {
            Some(r) => r.0.clone(),
            None => {
                let name = format!("r{}", self.registers.len());
                self.registers.push((name.clone(), width));
                name
            }
        };
        let index = format!("(bit<32>)({})", self.expr(scope, 3, 1));
        if self.rng.chance(50) {
            format!("{pad}{name}.read({target}, {index});\n")
        } else {
            format!("{pad}{name}.write({index}, {});\n", self.expr(scope, width, 2))
        }
    }

    /// A new action with an `inout` parameter, called on a place of `scope`.
    fn action_call(&mut self, scope: &[usize], pad: &str) -> String {
        let (target, width, signed) = self.target(scope);
        if signed {
            return String::new();
        }
        self.counter += 1;
        let name = format!("c{}", self.counter);
        let op = self.rng.pick(&["+", "^", "|-|", "&"]);
        writeln!(self.decls, "    action {name}(inout bit<{width}> x, bit<{width}> y) {{ x = x {op} y; }}").unwrap();
        format!("{pad}{name}({target}, {});\n", self.expr(scope, width, 2))
    }

    /// A new table keyed on fields of `scope`, with const entries, applied here.
    fn table_use(&mut self, scope: &[usize], ingress: bool, pad: &str) -> String {
        // Keys and actions are declared at the control's top: the block's locals are not there.
        let locals = std::mem::take(&mut self.locals);
        let applied = self.table(scope, ingress, pad);
        self.locals = locals;
        applied
    }

    fn table(&mut self, scope: &[usize], ingress: bool, pad: &str) -> String {
        self.counter += 1;
        let name = format!("t{}", self.counter);
        let mut keys = Vec::new();
        let lpm = self.rng.chance(30);
        for k in 0..1 + self.rng.below(2) {
            let (text, width, signed) = self.target(scope);
            let text = if signed { format!("(bit<{width}>){text}") } else { text };
            let kind = if lpm && k == 0 { "lpm" } else { *self.rng.pick(&["exact", "exact", "ternary", "range"]) };
            keys.push((text, width, kind));
        }
        let mut names = Vec::new();
        for _ in 0..1 + self.rng.below(2) {
            self.counter += 1;
            let action = format!("a{}", self.counter);
            let (target, width, signed) = self.target(scope);
            let value = if signed { format!("(int<{width}>)v") } else { "v".into() };
            let extra = if ingress && self.rng.chance(30) { " sm.egress_spec = 2;".to_string() } else { String::new() };
            writeln!(self.decls, "    action {action}(bit<{width}> v) {{ {target} = {value};{extra} }}").unwrap();
            names.push((action, width));
        }
        let key_text: String = keys.iter().map(|k| format!(" {}: {};", k.0, k.2)).collect();
        let action_list: String = names.iter().map(|a| format!(" {};", a.0)).collect();
        let mut entries = String::new();
        let mut prefixes_used = Vec::new();
        let mut keys_used = Vec::new();
        for _ in 0..self.rng.below(5) {
            let mut sets = Vec::new();
            for (i, &(_, width, kind)) in keys.iter().enumerate() {
                let v = self.rng.value(width);
                sets.push(match kind {
                    "lpm" => {
                        let len = self.rng.below(width as u64 + 1) as u32;
                        // One entry per prefix length: equal lengths of overlapping prefixes
                        // would leave the winner to the order of entries.
                        if i == 0 && prefixes_used.contains(&len) {
                            sets.clear();
                            break;
                        }
                        prefixes_used.push(len);
                        let mask = if len == 0 { 0 } else { (u128::MAX >> (128 - width)) & !((1u128 << (width - len)).wrapping_sub(1)) };
                        let mask = if width - len >= 128 { 0 } else { mask };
                        format!("{:#x} &&& {mask:#x}", v & mask)
                    }
                    "ternary" => format!("{v:#x} &&& {:#x}", self.rng.value(width)),
                    "range" => format!("{v:#x} .. {:#x}", v.max(self.rng.value(width))),
                    _ => format!("{v:#x}"),
                });
            }
            let sets = sets.join(", ");
            // Two entries with the same key are an error in a control plane (and const entries).
            if sets.is_empty() || keys_used.contains(&sets) {
                continue;
            }
            keys_used.push(sets.clone());
            let (action, width) = self.rng.pick(&names).clone();
            writeln!(entries, "            ({sets}) : {action}({:#x});", self.rng.value(width)).unwrap();
        }
        let (default, dwidth) = self.rng.pick(&names).clone();
        writeln!(
            self.decls,
            "    table {name} {{\n        key = {{{key_text} }}\n        actions = {{{action_list} NoAction; }}\n        const entries = {{\n{entries}        }}\n        default_action = {default}({:#x});\n    }}",
            self.rng.value(dwidth)
        )
        .unwrap();
        match self.rng.below(5) {
            0 | 1 => format!("{pad}if ({name}.apply().hit) {{ meta.m8 = meta.m8 + 1; }} else {{ meta.m16 = meta.m16 |+| 16w1; }}\n"),
            2 => {
                let (first, _) = &names[0];
                format!("{pad}switch ({name}.apply().action_run) {{ {first}: {{ meta.m32 = meta.m32 + 3; }} NoAction: {{ meta.m8 = 8w0x55; }} default: {{ meta.m48 = meta.m48 ^ 48w1; }} }}\n")
            }
            _ => format!("{pad}{name}.apply();\n"),
        }
    }

    /// A csum16 over the whole-byte fields of a header with a 16-bit field, written into that
    /// field.
    fn checksum(&mut self) -> String {
        let candidates: Vec<(usize, usize)> = self
            .headers
            .iter()
            .enumerate()
            .flat_map(|(h, hd)| self.types[hd.ty].fields.iter().enumerate().filter(|(_, f)| f.width == 16 && !f.signed).map(move |(f, _)| (h, f)))
            .collect();
        if candidates.is_empty() || self.rng.chance(40) {
            return String::new();
        }
        let (h, f) = *self.rng.pick(&candidates);
        let (path, fields) = (&self.headers[h].path, &self.types[self.headers[h].ty].fields);
        let list: Vec<String> = fields.iter().filter(|x| x.width % 8 == 0).map(|x| format!("{path}.{}", x.name)).collect();
        format!("update_checksum({path}.isValid(), {{ {} }}, {path}.{}, HashAlgorithm.csum16);", list.join(", "), fields[f].name)
    }
}

/// The seeds a test runs: `P4F_RANDOM_SEED` alone, else the first `P4F_RANDOM_PROGRAMS` (default
/// `default`).
pub fn seeds(default: u64) -> Vec<u64> {
    if let Some(s) = std::env::var("P4F_RANDOM_SEED").ok().and_then(|s| s.parse().ok()) {
        return vec![s];
    }
    let n = std::env::var("P4F_RANDOM_PROGRAMS").ok().and_then(|s| s.parse().ok()).unwrap_or(default);
    (0..n).collect()
}

/// `None` when two runs of `g` (named by `names`) had the same outcome, else a report of the first
/// difference, the packets and the program.
pub fn difference(g: &Generated, names: [&str; 2], want: &[(u32, u32, Vec<u8>)], got: &[(u32, u32, Vec<u8>)]) -> Option<String> {
    if want == got {
        return None;
    }
    let first = want.iter().zip(got).position(|(a, b)| a != b).unwrap_or(want.len().min(got.len()));
    let width = names[0].len().max(names[1].len()) + 1;
    Some(format!(
        "seed {}: outputs differ at {first}:\n  {:width$} {:?}\n  {:width$} {:?}\npackets: {:x?}\n{}",
        g.seed,
        format!("{}:", names[0]),
        want.get(first),
        format!("{}:", names[1]),
        got.get(first),
        g.packets,
        g.text
    ))
}

/// Prints `summary`, the first line of each failure and the first in full; panics if there is any.
pub fn report(summary: &str, failures: &[String], programs: usize) {
    eprintln!("{summary}, {} failures", failures.len());
    for f in failures {
        eprintln!("{}", f.lines().next().unwrap_or(""));
    }
    if let Some(f) = failures.first() {
        eprintln!("\nthe first in full:\n{f}");
    }
    assert!(failures.is_empty(), "{} of {programs} random programs failed (first above)", failures.len());
}

//! Reading the IR's text form ([`crate::printer`]) back: `parse_program(file, text)` rebuilds the
//! [`Program`] (spans are [`Span::DUMMY`]) and runs [`crate::verify::verify`] on it, so printing the
//! result gives the same text.
//!
//! The text is a user's input and is read with bounds: nesting of expressions, types and
//! statements at most [`MAX_NESTING`] deep; `action #N`, `function #N` and `table #N` ids numbered
//! from 0 without gaps or repeats (an id never sizes an allocation before it is checked); the file
//! complete up to its `package` line. Every error names its line and column.
//!
//! Spans and one detail are not part of the text: a `for` loop without a condition reads back with
//! the condition `true` (it prints the same).
//!
//! Hand-written recursive descent over a small token stream. Names of program-level objects are
//! known before their declarations are read: a first scan over the tokens collects every
//! `action #N name`, `function #N name`, `table #N name`, `parser name :`, `control name :` and type
//! declaration, so bodies may refer to objects declared further down (the printer groups actions
//! and tables by block, not by id).

use crate::printer::infer_type;
use crate::*;
use num_bigint::BigInt;
use std::collections::HashMap;

/// A malformed or invalid text form: the file name given to [`parse_program`], 1-based line and
/// column of the offending token. `Display` gives `file:line:col: message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl TextError {
    /// `file_name:line:col: message`, the source line (from `text`, the text that was parsed) and a
    /// caret under the column.
    pub fn render(&self, file_name: &str, text: &str) -> String {
        let src = text.lines().nth(self.line.saturating_sub(1)).unwrap_or("");
        let n = self.line.to_string();
        let pad = " ".repeat(n.len());
        let caret = " ".repeat(self.column.saturating_sub(1));
        format!("{file_name}:{}:{}: {}\n{pad} |\n{n} | {src}\n{pad} | {caret}^\n", self.line, self.column, self.message)
    }
}

impl std::fmt::Display for TextError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}: {}", self.file, self.line, self.column, self.message)
    }
}

/// Parse a program printed by [`crate::printer::print_program`] and verify it. `file_name` is only
/// used in errors.
pub fn parse_program(file_name: &str, text: &str) -> Result<Program, TextError> {
    parse_unnamed(text).map_err(|e| TextError { file: file_name.to_string(), ..e })
}

fn parse_unnamed(text: &str) -> Result<Program, TextError> {
    let toks = lex(text)?;
    let mut p = Reader {
        text,
        toks,
        pos: 0,
        prog: Program::default(),
        names: HashMap::new(),
        vars: Vec::new(),
        states: Vec::new(),
        decl_at: HashMap::new(),
        fn_ret_at: HashMap::new(),
        actions: Declared::new("action"),
        functions: Declared::new("function"),
        tables: Declared::new("table"),
        depth: 0,
        package_read: false,
    };
    p.prescan();
    p.program()?;
    p.finish()?;
    if let Err(errs) = verify::verify(&p.prog) {
        let e = &errs[0];
        // Point at the declaration of the innermost object the first violation is in
        // (`control C, action C.a`: the action).
        let at = e.location.split(", ").collect::<Vec<_>>().into_iter().rev().find_map(|part| p.decl_at.get(part).copied()).unwrap_or(0);
        let (line, column) = line_col(text, at);
        let more = if errs.len() > 1 { format!(" (and {} more)", errs.len() - 1) } else { String::new() };
        return Err(TextError { file: String::new(), line, column, message: format!("invalid IR: {e}{more}") });
    }
    Ok(p.prog)
}

fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map(|l| l.chars().count()).unwrap_or(0) + 1;
    (line, col)
}

// ---------------------------------------------------------------- tokens

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// `` `any name` ``
    Quoted(String),
    /// A number as written: `42`, `8w5`, `8s-1`.
    Num(String),
    Str(String),
    Punct(char),
    Eof,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    at: usize,
    /// No white space before it.
    glued: bool,
}

fn lex(text: &str) -> Result<Vec<Token>, TextError> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut glued = false;
    let err = |at: usize, m: &str| {
        let (line, column) = line_col(text, at);
        TextError { file: String::new(), line, column, message: m.to_string() }
    };
    while i < b.len() {
        let c = b[i] as char;
        if c.is_ascii_whitespace() {
            i += 1;
            glued = false;
            continue;
        }
        let start = i;
        let tok = if c.is_ascii_alphabetic() || c == '_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            Tok::Ident(text[start..i].to_string())
        } else if c.is_ascii_digit() {
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i < b.len() && (b[i] == b'w' || b[i] == b's') {
                i += 1;
                if i < b.len() && b[i] == b'-' {
                    i += 1;
                }
                let d = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                if d == i {
                    return Err(err(start, "malformed number"));
                }
            }
            Tok::Num(text[start..i].to_string())
        } else if c == '`' {
            let end = text[i + 1..].find('`').ok_or_else(|| err(start, "unterminated `name`"))?;
            i += end + 2;
            Tok::Quoted(text[start + 1..i - 1].to_string())
        } else if c == '"' {
            let mut s = String::new();
            i += 1;
            loop {
                let Some(ch) = text[i..].chars().next() else { return Err(err(start, "unterminated string")) };
                i += ch.len_utf8();
                match ch {
                    '"' => break,
                    '\\' => {
                        let Some(e) = text[i..].chars().next() else { return Err(err(start, "unterminated string")) };
                        i += e.len_utf8();
                        match e {
                            'n' => s.push('\n'),
                            't' => s.push('\t'),
                            'r' => s.push('\r'),
                            '0' => s.push('\0'),
                            'u' => {
                                // \u{XXXX}
                                let close = text[i..].find('}').ok_or_else(|| err(i, "bad \\u escape"))?;
                                let hex = &text[i + 1..i + close];
                                let ch = u32::from_str_radix(hex, 16)
                                    .ok()
                                    .and_then(char::from_u32)
                                    .ok_or_else(|| err(i, "bad \\u escape"))?;
                                s.push(ch);
                                i += close + 1;
                            }
                            other => s.push(other),
                        }
                    }
                    ch => s.push(ch),
                }
            }
            Tok::Str(s)
        } else {
            i += c.len_utf8();
            Tok::Punct(c)
        };
        out.push(Token { tok, at: start, glued });
        glued = true;
    }
    out.push(Token { tok: Tok::Eof, at: text.len(), glued: false });
    Ok(out)
}

// ---------------------------------------------------------------- reader

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Type,
    Parser,
    Control,
    Action,
    Function,
    Table,
    Extern,
    ValueSet,
}

type R<T> = Result<T, TextError>;

struct Reader<'t> {
    text: &'t str,
    toks: Vec<Token>,
    pos: usize,
    prog: Program,
    /// Program-level names: kind and index, from the prescan and declarations read so far.
    names: HashMap<String, Vec<(Kind, u32)>>,
    /// The current frame.
    vars: Vec<Var>,
    /// State names of the current parser.
    states: Vec<String>,
    /// Where blocks, actions, tables... are declared (for verifier errors).
    decl_at: HashMap<String, usize>,
    /// Token index of each function's return type (a call may come before the declaration).
    fn_ret_at: HashMap<u32, usize>,
    /// The declarations that carry their id, placed by it as they are read.
    actions: Declared<Action>,
    functions: Declared<Function>,
    tables: Declared<Table>,
    /// How deeply the expression, type or statement being read is nested ([`MAX_NESTING`]).
    depth: u32,
    /// Whether the `package` line, which the printer writes last, has been read.
    package_read: bool,
}

/// The deepest nesting of expressions, types and statements the reader takes (the P4 front end's
/// own bound): every walk of the IR after it recurses, so a deeper file would overflow their
/// stacks instead of getting an error.
pub const MAX_NESTING: u32 = 250;

/// Declarations of one kind that carry their id (`action #N`): the prescan counts them, so ids
/// are dense, `#0` up to the count, each declared once. An id is never used to size anything
/// before it is checked against that count.
struct Declared<T> {
    what: &'static str,
    /// By id: the declaration and the byte offset of its id.
    items: Vec<Option<(T, usize)>>,
}

impl<T> Declared<T> {
    fn new(what: &'static str) -> Declared<T> {
        Declared { what, items: Vec::new() }
    }

    /// Room for the `n` declarations the prescan found.
    fn expect(&mut self, n: usize) {
        self.items = (0..n).map(|_| None).collect();
    }

    /// Places `item` under `id` (written at byte `at` of `text`); why not when `id` is beyond the
    /// declarations of the file or already taken.
    fn put(&mut self, id: u32, at: usize, item: T, text: &str) -> Result<(), String> {
        let (what, n) = (self.what, self.items.len());
        match self.items.get_mut(id as usize) {
            None => Err(format!("{what} #{id} is out of range: the file declares {n} {what}s, numbered from #0")),
            Some(Some((_, first))) => {
                let (line, column) = line_col(text, *first);
                Err(format!("{what} #{id} is declared twice (first at {line}:{column})"))
            }
            Some(slot) => {
                *slot = Some((item, at));
                Ok(())
            }
        }
    }

    /// Every declaration in id order; the first id no declaration took, if one is missing.
    fn finish(&mut self) -> Result<Vec<T>, u32> {
        let items = std::mem::take(&mut self.items);
        let mut out = Vec::with_capacity(items.len());
        for (id, item) in items.into_iter().enumerate() {
            match item {
                Some((item, _)) => out.push(item),
                None => return Err(id as u32),
            }
        }
        Ok(out)
    }
}

/// What a name at the start of an expression denotes.
enum Resolved {
    Var(VarId),
    Global(Kind, u32),
    /// Not a known name (the whole dotted path; only its first word is consumed): an extern function.
    Unknown(String),
}

const BINOPS: &[(&str, BinOp)] = &[
    ("|+|", BinOp::AddSat),
    ("|-|", BinOp::SubSat),
    ("==", BinOp::Eq),
    ("!=", BinOp::Ne),
    ("<=", BinOp::Le),
    (">=", BinOp::Ge),
    ("<<", BinOp::Shl),
    (">>", BinOp::Shr),
    ("++", BinOp::Concat),
    ("&&", BinOp::And),
    ("||", BinOp::Or),
    ("*", BinOp::Mul),
    ("/", BinOp::Div),
    ("%", BinOp::Mod),
    ("+", BinOp::Add),
    ("-", BinOp::Sub),
    ("<", BinOp::Lt),
    (">", BinOp::Gt),
    ("&", BinOp::BitAnd),
    ("^", BinOp::BitXor),
    ("|", BinOp::BitOr),
];

impl<'t> Reader<'t> {
    // ------------------------------------------------------------ token helpers

    fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }
    fn peek_at(&self, n: usize) -> &Tok {
        &self.toks[(self.pos + n).min(self.toks.len() - 1)].tok
    }
    fn glued_at(&self, n: usize) -> bool {
        self.toks.get(self.pos + n).is_some_and(|t| t.glued)
    }
    fn bump(&mut self) -> Tok {
        let t = self.toks[self.pos].tok.clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }
    fn err<T>(&self, m: impl Into<String>) -> R<T> {
        let (line, column) = line_col(self.text, self.toks[self.pos].at);
        Err(TextError { file: String::new(), line, column, message: m.into() })
    }
    fn describe(&self) -> String {
        match self.peek() {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Quoted(s) => format!("`{s}`"),
            Tok::Num(s) => format!("`{s}`"),
            Tok::Str(s) => format!("{s:?}"),
            Tok::Punct(c) => format!("`{c}`"),
            Tok::Eof => "end of file".into(),
        }
    }
    fn is_punct(&self, c: char) -> bool {
        *self.peek() == Tok::Punct(c)
    }
    fn is_kw(&self, k: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == k)
    }
    fn eat_punct(&mut self, c: char) -> bool {
        let y = self.is_punct(c);
        if y {
            self.bump();
        }
        y
    }
    fn eat_kw(&mut self, k: &str) -> bool {
        let y = self.is_kw(k);
        if y {
            self.bump();
        }
        y
    }
    fn expect(&mut self, c: char) -> R<()> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            self.err(format!("expected `{c}`, found {}", self.describe()))
        }
    }
    fn expect_kw(&mut self, k: &str) -> R<()> {
        if self.eat_kw(k) {
            Ok(())
        } else {
            self.err(format!("expected `{k}`, found {}", self.describe()))
        }
    }
    /// A run of glued punctuation starting here (for multi-character operators).
    fn punct_run(&self) -> String {
        let mut s = String::new();
        let mut i = self.pos;
        while let Tok::Punct(c) = self.toks[i].tok {
            if i > self.pos && !self.toks[i].glued {
                break;
            }
            s.push(c);
            i += 1;
        }
        s
    }
    fn eat_op(&mut self, op: &str) -> bool {
        let run = self.punct_run();
        if run.starts_with(op) && !run[op.len()..].starts_with(['&', '|', '=', '<', '>', '+', '-']) {
            self.pos += op.chars().count();
            true
        } else {
            false
        }
    }
    fn number(&mut self) -> R<u64> {
        match self.peek().clone() {
            Tok::Num(n) if n.bytes().all(|c| c.is_ascii_digit()) => {
                self.bump();
                n.parse().or_else(|_| self.err("number too large"))
            }
            _ => self.err(format!("expected a number, found {}", self.describe())),
        }
    }
    fn number32(&mut self) -> R<u32> {
        let n = self.number()?;
        u32::try_from(n).or_else(|_| self.err("number too large"))
    }
    /// A declared name: a dotted identifier path or a `quoted` name.
    fn name(&mut self) -> R<String> {
        match self.peek().clone() {
            Tok::Quoted(s) => {
                self.bump();
                Ok(s)
            }
            Tok::Ident(s) => {
                self.bump();
                let mut s = s;
                while self.is_punct('.')
                    && self.glued_at(0)
                    && self.glued_at(1)
                    && matches!(self.peek_at(1), Tok::Ident(_))
                {
                    self.bump();
                    if let Tok::Ident(p) = self.bump() {
                        s.push('.');
                        s.push_str(&p);
                    }
                }
                Ok(s)
            }
            _ => self.err(format!("expected a name, found {}", self.describe())),
        }
    }
    /// `#N` after a name, if present.
    fn opt_index(&mut self) -> R<Option<u32>> {
        if self.is_punct('#') && self.glued_at(0) {
            self.bump();
            Ok(Some(self.number32()?))
        } else {
            Ok(None)
        }
    }

    // ------------------------------------------------------------ names

    fn declare(&mut self, name: &str, kind: Kind, id: u32) {
        let v = self.names.entry(name.to_string()).or_default();
        if !v.contains(&(kind, id)) {
            v.push((kind, id));
        }
    }

    fn lookup(&self, name: &str, kinds: &[Kind], index: Option<u32>) -> Option<(Kind, u32)> {
        let all = self.names.get(name)?;
        for k in kinds {
            let of_kind: Vec<u32> = all.iter().filter(|(kk, _)| kk == k).map(|(_, i)| *i).collect();
            match index {
                Some(i) if of_kind.contains(&i) => return Some((*k, i)),
                Some(_) => {}
                None if of_kind.len() == 1 => return Some((*k, of_kind[0])),
                None => {}
            }
        }
        None
    }

    /// A reference to an object of one of `kinds`: `name` or `name#N`.
    fn reference(&mut self, kinds: &[Kind], what: &str) -> R<u32> {
        let name = self.name()?;
        let index = self.opt_index()?;
        match self.lookup(&name, kinds, index) {
            Some((_, i)) => Ok(i),
            None => self.err(format!("unknown {what} `{name}`")),
        }
    }

    fn var_id(&self, name: &str) -> Option<VarId> {
        self.vars.iter().position(|v| v.name == name).map(|i| VarId(i as u32))
    }

    /// The first words of an expression: the longest dotted prefix naming a variable, else the
    /// longest naming a program-level object; consumes exactly that prefix.
    fn resolve(&mut self, kinds: &[Kind]) -> R<Resolved> {
        if let Tok::Quoted(s) = self.peek().clone() {
            self.bump();
            let index = self.opt_index()?;
            if index.is_none() {
                if let Some(v) = self.var_id(&s) {
                    return Ok(Resolved::Var(v));
                }
            }
            return match self.lookup(&s, kinds, index) {
                Some((k, i)) => Ok(Resolved::Global(k, i)),
                None => self.err(format!("unknown name `{s}`")),
            };
        }
        // Collect the dotted path.
        let mut parts: Vec<String> = Vec::new();
        let mut i = self.pos;
        while let Tok::Ident(s) = &self.toks[i].tok {
            parts.push(s.clone());
            if self.toks[i + 1].tok == Tok::Punct('.')
                && self.toks[i + 1].glued
                && self.toks[i + 2].glued
                && matches!(self.toks[i + 2].tok, Tok::Ident(_))
            {
                i += 2;
            } else {
                break;
            }
        }
        if parts.is_empty() {
            return self.err(format!("expected an expression, found {}", self.describe()));
        }
        // `path#N`: the whole path is a name.
        let after = self.pos + 2 * parts.len() - 1;
        if self.toks[after].tok == Tok::Punct('#') && self.toks[after].glued {
            let name = parts.join(".");
            self.pos = after;
            let index = self.opt_index()?;
            return match self.lookup(&name, kinds, index) {
                Some((k, i)) => Ok(Resolved::Global(k, i)),
                None => self.err(format!("unknown name `{name}`")),
            };
        }
        for n in (1..=parts.len()).rev() {
            let name = parts[..n].join(".");
            if let Some(v) = self.var_id(&name) {
                self.pos += 2 * n - 1;
                return Ok(Resolved::Var(v));
            }
        }
        for n in (1..=parts.len()).rev() {
            let name = parts[..n].join(".");
            if let Some((k, i)) = self.lookup(&name, kinds, None) {
                self.pos += 2 * n - 1;
                return Ok(Resolved::Global(k, i));
            }
        }
        self.pos += 1;
        Ok(Resolved::Unknown(parts.join(".")))
    }

    // ------------------------------------------------------------ prescan

    fn prescan(&mut self) {
        let mut depth = 0usize;
        let (mut types, mut parsers, mut controls) = (0u32, 0u32, 0u32);
        // Declarations of actions, functions and tables.
        let mut counts = [0usize; 3];
        let mut i = 0;
        let mut at_stmt_start = true;
        while i < self.toks.len() {
            // Annotations before a declaration (`@controller_header("packet_in") header ...`)
            // leave it at the start of a statement.
            if at_stmt_start && depth == 0 && self.toks[i].tok == Tok::Punct('@') {
                i += 2;
                if self.toks.get(i).is_some_and(|t| t.tok == Tok::Punct('(') && t.glued) {
                    let mut open = 0usize;
                    while let Some(t) = self.toks.get(i) {
                        match t.tok {
                            Tok::Punct('(') => open += 1,
                            Tok::Punct(')') => open -= 1,
                            Tok::Eof => break,
                            _ => {}
                        }
                        i += 1;
                        if open == 0 {
                            break;
                        }
                    }
                }
                continue;
            }
            let t = self.toks[i].tok.clone();
            let name_at = |j: usize| -> Option<String> {
                match &self.toks.get(j)?.tok {
                    Tok::Quoted(s) => Some(s.clone()),
                    Tok::Ident(s) => {
                        let mut s = s.clone();
                        let mut j = j;
                        while self.toks[j + 1].tok == Tok::Punct('.') && self.toks[j + 1].glued {
                            if let Tok::Ident(p) = &self.toks[j + 2].tok {
                                s.push('.');
                                s.push_str(p);
                                j += 2;
                            } else {
                                break;
                            }
                        }
                        Some(s)
                    }
                    _ => None,
                }
            };
            match &t {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => depth = depth.saturating_sub(1),
                Tok::Ident(k)
                    if depth == 0
                        && at_stmt_start
                        && ["struct", "header", "header_union", "extern"].contains(&k.as_str()) =>
                {
                    if let Some(n) = name_at(i + 1) {
                        if k != "extern" {
                            self.declare(&n, Kind::Type, types);
                        }
                        types += 1;
                    }
                }
                Tok::Ident(k) if depth == 0 && at_stmt_start && k == "enum" => {
                    // The name is the last name before `{`.
                    let mut j = i + 1;
                    while !matches!(self.toks[j].tok, Tok::Punct('{') | Tok::Eof) {
                        j += 1;
                    }
                    let mut s = j - 1;
                    while s > i + 1
                        && self.toks[s].tok != Tok::Punct('>')
                        && !(matches!(self.toks[s - 1].tok, Tok::Punct('.')))
                        && matches!(self.toks[s].tok, Tok::Ident(_) | Tok::Quoted(_))
                        && matches!(self.toks[s - 1].tok, Tok::Ident(_) | Tok::Quoted(_))
                        && s - 1 > i
                    {
                        s -= 1;
                    }
                    // Walk back over a dotted name.
                    while s >= 2 && self.toks[s - 1].tok == Tok::Punct('.') && self.toks[s - 1].glued {
                        s -= 2;
                    }
                    if let Some(n) = name_at(s) {
                        self.declare(&n, Kind::Type, types);
                    }
                    types += 1;
                }
                Tok::Ident(k) if depth == 0 && (k == "parser" || k == "control") => {
                    if let Some(n) = name_at(i + 1) {
                        // `parser NAME :` declares; `parser NAME` in the package refers.
                        let mut j = i + 2;
                        while self.toks.get(j).is_some_and(|t| t.tok == Tok::Punct('.')) {
                            j += 2;
                        }
                        if self.toks.get(j).is_some_and(|t| t.tok == Tok::Punct(':')) {
                            let (kind, c) = if k == "parser" {
                                (Kind::Parser, &mut parsers)
                            } else {
                                (Kind::Control, &mut controls)
                            };
                            let id = *c;
                            *c += 1;
                            self.declare(&n, kind, id);
                        }
                    }
                }
                Tok::Ident(k)
                    if (k == "action" || k == "function" || k == "table")
                        && self.toks.get(i + 1).is_some_and(|t| t.tok == Tok::Punct('#')) =>
                {
                    if let Tok::Num(id) = &self.toks[i + 2].tok {
                        let id: u32 = id.parse().unwrap_or(u32::MAX);
                        // A function's name follows its return type: the last name before `(`.
                        let mut j = i + 3;
                        if k == "function" {
                            self.fn_ret_at.insert(id, i + 3);
                            while !matches!(self.toks[j].tok, Tok::Punct('(') | Tok::Eof) {
                                j += 1;
                            }
                            j -= 1;
                            while j >= 2 && self.toks[j - 1].tok == Tok::Punct('.') && self.toks[j - 1].glued {
                                j -= 2;
                            }
                        }
                        let kind = match k.as_str() {
                            "action" => Kind::Action,
                            "function" => Kind::Function,
                            _ => Kind::Table,
                        };
                        if let Some(n) = name_at(j) {
                            self.declare(&n, kind, id);
                        }
                        counts[match kind {
                            Kind::Action => 0,
                            Kind::Function => 1,
                            _ => 2,
                        }] += 1;
                    }
                }
                _ => {}
            }
            at_stmt_start = matches!(t, Tok::Punct(';') | Tok::Punct('}'));
            i += 1;
            if t == Tok::Eof {
                break;
            }
        }
        self.actions.expect(counts[0]);
        self.functions.expect(counts[1]);
        self.tables.expect(counts[2]);
    }

    /// After the last declaration: the id-carrying declarations in place, and the file complete
    /// (the printer ends it with the `package` line).
    fn finish(&mut self) -> R<()> {
        if !self.package_read {
            return self.err("the file ends before its `package` line (the last line the IR printer writes): is it truncated?");
        }
        let missing = |what: &str, id: u32| format!("{what} #{id} is never declared (ids are numbered from #0 without gaps)");
        self.prog.actions = self.actions.finish().or_else(|id| self.err(missing("action", id)))?;
        self.prog.functions = self.functions.finish().or_else(|id| self.err(missing("function", id)))?;
        self.prog.tables = self.tables.finish().or_else(|id| self.err(missing("table", id)))?;
        Ok(())
    }

    /// An error at token `tok` (not the current one).
    fn error_at(&self, tok: usize, m: impl Into<String>) -> TextError {
        let (line, column) = line_col(self.text, self.toks[tok].at);
        TextError { file: String::new(), line, column, message: m.into() }
    }

    /// Runs `read` one level deeper, refusing a file nested beyond [`MAX_NESTING`] levels.
    fn nested<T>(&mut self, read: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        if self.depth >= MAX_NESTING {
            return self.err(format!("nested too deeply (more than {MAX_NESTING} levels of expressions, types or statements)"));
        }
        self.depth += 1;
        let r = read(self);
        self.depth -= 1;
        r
    }

    // ------------------------------------------------------------ types and values

    fn ty(&mut self) -> R<Type> {
        self.nested(Self::read_ty)
    }

    fn read_ty(&mut self) -> R<Type> {
        let mut t = self.ty_base()?;
        while self.is_punct('[') && self.glued_at(0) {
            self.bump();
            let n = self.number32()?;
            self.expect(']')?;
            t = Type::Stack(Box::new(t), n);
        }
        Ok(t)
    }

    fn width_arg(&mut self) -> R<u32> {
        self.expect('<')?;
        let n = self.number32()?;
        self.expect('>')?;
        Ok(n)
    }

    fn ty_base(&mut self) -> R<Type> {
        if let Tok::Ident(k) = self.peek().clone() {
            let simple = match k.as_str() {
                "bool" => Some(Type::Bool),
                "string" => Some(Type::String),
                "error" => Some(Type::Error),
                "match_kind" => Some(Type::MatchKind),
                "void" => Some(Type::Void),
                _ => None,
            };
            if let Some(t) = simple {
                self.bump();
                return Ok(t);
            }
            match k.as_str() {
                "bit" | "int" | "varbit" if self.peek_at(1) == &Tok::Punct('<') => {
                    self.bump();
                    let w = self.width_arg()?;
                    return Ok(match k.as_str() {
                        "bit" => Type::bit(w),
                        "int" => Type::int(w),
                        _ => Type::Varbit(w),
                    });
                }
                "int" => {
                    self.bump();
                    return Ok(Type::InfInt);
                }
                "tuple" => {
                    self.bump();
                    return Ok(Type::Tuple(self.type_args()?));
                }
                _ => {}
            }
        }
        let name = self.name()?;
        let index = self.opt_index()?;
        if self.is_punct('<') && self.glued_at(0) {
            // A specialised extern type.
            let args = self.type_args()?;
            return match self
                .prog
                .types
                .iter()
                .position(|t| matches!(t, TypeDef::Extern { name: n, type_args } if *n == name && *type_args == args))
            {
                Some(i) => Ok(Type::Named(TypeId(i as u32))),
                None => self.err(format!("unknown extern type `{name}` with these type arguments")),
            };
        }
        if let Some((_, i)) = self.lookup(&name, &[Kind::Type], index) {
            return Ok(Type::Named(TypeId(i)));
        }
        match self
            .prog
            .types
            .iter()
            .position(|t| matches!(t, TypeDef::Extern { name: n, type_args } if *n == name && type_args.is_empty()))
        {
            Some(i) => Ok(Type::Named(TypeId(i as u32))),
            None => self.err(format!("unknown type `{name}`")),
        }
    }

    fn type_args(&mut self) -> R<Vec<Type>> {
        self.expect('<')?;
        let mut v = Vec::new();
        if !self.eat_punct('>') {
            loop {
                v.push(self.ty()?);
                if self.eat_punct(',') {
                    continue;
                }
                self.expect('>')?;
                break;
            }
        }
        Ok(v)
    }

    /// Comma-separated items up to `close` (the opening token already read).
    fn list<T>(&mut self, close: char, mut item: impl FnMut(&mut Self) -> R<T>) -> R<Vec<T>> {
        let mut v = Vec::new();
        if self.eat_punct(close) {
            return Ok(v);
        }
        loop {
            v.push(item(self)?);
            if self.eat_punct(',') {
                continue;
            }
            self.expect(close)?;
            return Ok(v);
        }
    }

    fn number_value(&mut self, negative: bool) -> R<Value> {
        let Tok::Num(n) = self.bump() else { return self.err("expected a number") };
        let big = |s: &str| -> R<BigInt> { s.parse::<BigInt>().or_else(|_| self.err(format!("bad number `{n}`"))) };
        if let Some(p) = n.find(['w', 's']) {
            let width: u32 = n[..p].parse().or_else(|_| self.err("width too large"))?;
            let signed = &n[p..p + 1] == "s";
            Ok(Value::Bits { width, signed, value: big(&n[p + 1..])? })
        } else {
            let v = big(&n)?;
            Ok(Value::InfInt(if negative { -v } else { v }))
        }
    }

    fn value(&mut self) -> R<Value> {
        self.nested(Self::read_value)
    }

    fn read_value(&mut self) -> R<Value> {
        match self.peek().clone() {
            Tok::Num(_) => self.number_value(false),
            Tok::Punct('-') if matches!(self.peek_at(1), Tok::Num(_)) && self.glued_at(1) => {
                self.bump();
                self.number_value(true)
            }
            Tok::Str(s) => {
                self.bump();
                Ok(Value::String(s))
            }
            Tok::Ident(k) if k == "true" || k == "false" => {
                self.bump();
                Ok(Value::Bool(k == "true"))
            }
            Tok::Ident(k) if (k == "error" || k == "match_kind") && self.peek_at(1) == &Tok::Punct('.') => {
                self.bump();
                self.bump();
                let Tok::Ident(m) = self.bump() else { return self.err("expected a member name") };
                let list = if k == "error" { &self.prog.errors } else { &self.prog.match_kinds };
                match list.iter().position(|x| *x == m) {
                    Some(i) if k == "error" => Ok(Value::Error(i as u32)),
                    Some(i) => Ok(Value::MatchKind(i as u32)),
                    None => self.err(format!("unknown {k} `{m}`")),
                }
            }
            Tok::Punct('{') => {
                self.bump();
                let valid = !(self.is_punct('#') && self.peek_at(1) == &Tok::Ident("invalid".into()));
                if !valid {
                    self.bump();
                    self.bump();
                }
                let fields = self.list('}', |r| r.value())?;
                Ok(Value::Aggregate { valid, fields })
            }
            _ => {
                // `Enum.member`
                let start = self.pos;
                match self.resolve(&[Kind::Type])? {
                    Resolved::Global(Kind::Type, t) => {
                        self.expect('.')?;
                        let Tok::Ident(m) = self.bump() else { return self.err("expected an enum member") };
                        match &self.prog.types[t as usize] {
                            TypeDef::Enum { members, .. } => match members.iter().position(|x| x.0 == m) {
                                Some(i) => Ok(Value::Enum(TypeId(t), i as u32)),
                                None => self.err(format!("unknown enum member `{m}`")),
                            },
                            _ => self.err("not an enum type"),
                        }
                    }
                    _ => {
                        self.pos = start;
                        self.err(format!("expected a value, found {}", self.describe()))
                    }
                }
            }
        }
    }

    fn annotations(&mut self) -> R<Vec<Annotation>> {
        let mut v = Vec::new();
        while self.is_punct('@') {
            self.bump();
            let Tok::Ident(name) = self.bump() else { return self.err("expected an annotation name") };
            let args = if self.is_punct('(') && self.glued_at(0) {
                self.bump();
                self.list(')', |r| r.value())?
            } else {
                Vec::new()
            };
            v.push(Annotation { name, args });
        }
        Ok(v)
    }

    // ------------------------------------------------------------ program

    fn program(&mut self) -> R<()> {
        loop {
            let at = self.toks[self.pos].at;
            let anns = self.annotations()?;
            match self.peek().clone() {
                Tok::Eof => return Ok(()),
                Tok::Ident(k) => match k.as_str() {
                    "struct" | "header" | "header_union" => {
                        self.bump();
                        let name = self.name()?;
                        self.decl_at.insert(format!("type {name}"), at);
                        self.expect('{')?;
                        let mut fields = Vec::new();
                        while !self.eat_punct('}') {
                            let annotations = self.annotations()?;
                            let ty = self.ty()?;
                            let fname = self.name()?;
                            self.expect(';')?;
                            fields.push(FieldDef { name: fname, ty, annotations });
                        }
                        self.prog.types.push(match k.as_str() {
                            "struct" => TypeDef::Struct { name, fields },
                            "header" => TypeDef::Header { name, fields, annotations: anns },
                            _ => TypeDef::Union { name, fields },
                        });
                    }
                    "enum" => {
                        self.bump();
                        let underlying =
                            if matches!(self.peek_at(1), Tok::Punct('{')) { None } else { Some(self.ty()?) };
                        let name = self.name()?;
                        self.decl_at.insert(format!("type {name}"), at);
                        self.expect('{')?;
                        let members = self.list('}', |r| {
                            let m = r.name()?;
                            let v = if r.eat_punct('=') {
                                let neg = r.eat_punct('-');
                                let n = r.number_value(false)?;
                                match n {
                                    Value::InfInt(x) => Some(if neg { -x } else { x }),
                                    _ => return r.err("expected an integer"),
                                }
                            } else {
                                None
                            };
                            Ok((m, v))
                        })?;
                        self.prog.types.push(TypeDef::Enum { name, underlying, members });
                    }
                    "extern" => {
                        self.bump();
                        let name = self.name()?;
                        let type_args = if self.is_punct('<') { self.type_args()? } else { Vec::new() };
                        self.expect(';')?;
                        self.prog.types.push(TypeDef::Extern { name, type_args });
                    }
                    "errors" | "match_kinds" => {
                        self.bump();
                        self.expect('{')?;
                        let v = self.list('}', |r| r.name())?;
                        if k == "errors" {
                            self.prog.errors = v;
                        } else {
                            self.prog.match_kinds = v;
                        }
                    }
                    "instance" => {
                        self.bump();
                        let annotations = self.annotations()?;
                        let type_name = self.name()?;
                        let type_args = if self.is_punct('<') { self.type_args()? } else { Vec::new() };
                        self.expect('(')?;
                        let ctor_args =
                            self.list(')', |r| if r.eat_punct('_') { Ok(None) } else { r.value().map(Some) })?;
                        let name = self.name()?;
                        self.expect(';')?;
                        let id = self.prog.externs.len() as u32;
                        self.declare(&name, Kind::Extern, id);
                        self.decl_at.insert(format!("instance {name}"), at);
                        self.prog.externs.push(ExternInstance { name, type_name, type_args, ctor_args, annotations });
                    }
                    "value_set" => {
                        self.bump();
                        self.expect('<')?;
                        let elem = self.ty()?;
                        self.expect('>')?;
                        self.expect('(')?;
                        let size = self.number32()?;
                        self.expect(')')?;
                        let name = self.name()?;
                        self.expect(';')?;
                        let id = self.prog.value_sets.len() as u32;
                        self.declare(&name, Kind::ValueSet, id);
                        self.prog.value_sets.push(ValueSet { name, elem, size });
                    }
                    "parser" => self.parser(anns, at)?,
                    "control" => self.control(anns, at)?,
                    "package" if self.package_read => return self.err("a second `package` line"),
                    "package" => {
                        self.bump();
                        self.prog.main = self.package()?;
                        self.expect(';')?;
                        self.package_read = true;
                    }
                    _ => return self.err(format!("expected a declaration, found {}", self.describe())),
                },
                _ => return self.err(format!("expected a declaration, found {}", self.describe())),
            }
        }
    }

    fn package(&mut self) -> R<Package> {
        let type_name = self.name()?;
        let name = self.name()?;
        self.expect('(')?;
        let args = self.list(')', |r| {
            let n = r.name()?;
            r.expect('=')?;
            let a = if r.eat_kw("parser") {
                PackageArg::Parser(ParserId(r.reference(&[Kind::Parser], "parser")?))
            } else if r.eat_kw("control") {
                PackageArg::Control(ControlId(r.reference(&[Kind::Control], "control")?))
            } else if r.eat_kw("package") {
                PackageArg::Package(Box::new(r.package()?))
            } else if r.eat_kw("instance") {
                PackageArg::Extern(ExternId(r.reference(&[Kind::Extern], "extern instance")?))
            } else {
                PackageArg::Value(r.value()?)
            };
            Ok((n, a))
        })?;
        Ok(Package { type_name, name, args })
    }

    /// `NAME : TYPE(params) {` and the frame; returns the block (params resolved).
    fn block_head(&mut self, annotations: Vec<Annotation>) -> R<Block> {
        self.bump(); // parser / control
        let name = self.name()?;
        self.expect(':')?;
        let type_name = self.name()?;
        self.expect('(')?;
        let param_names = self.list(')', |r| {
            r.direction();
            r.ty()?;
            let at = r.pos;
            Ok((r.name()?, at))
        })?;
        self.expect('{')?;
        self.vars.clear();
        if self.eat_kw("vars") {
            self.expect('{')?;
            loop {
                if self.eat_punct('}') {
                    break;
                }
                let kind = match self.bump() {
                    Tok::Ident(k) if k == "param" => VarKind::Param(self.direction()),
                    Tok::Ident(k) if k == "arg" => VarKind::CallParam(self.direction()),
                    Tok::Ident(k) if k == "local" => VarKind::Local,
                    Tok::Ident(k) if k == "temp" => VarKind::Temp,
                    Tok::Ident(k) if k == "return" => VarKind::Return,
                    _ => {
                        self.pos -= 1;
                        return self.err(format!(
                            "expected a variable kind (param, arg, local, temp, return), found {}",
                            self.describe()
                        ));
                    }
                };
                let ty = self.ty()?;
                let name = self.name()?;
                self.vars.push(Var { name, ty, kind });
                if !self.eat_punct(';') {
                    self.expect('}')?;
                    break;
                }
            }
        }
        let mut params = Vec::new();
        for (n, at) in param_names {
            match self.var_id(&n) {
                Some(v) => params.push(v),
                None => {
                    self.pos = at;
                    return self.err(format!("parameter `{n}` is not in the block's vars"));
                }
            }
        }
        Ok(Block { name, type_name, vars: self.vars.clone(), params, annotations })
    }

    fn direction(&mut self) -> Direction {
        if self.eat_kw("inout") {
            Direction::InOut
        } else if self.eat_kw("in") {
            Direction::In
        } else if self.eat_kw("out") {
            Direction::Out
        } else {
            Direction::None
        }
    }

    fn id_list(&mut self, kw: &str, kinds: &[Kind], what: &str) -> R<Vec<u32>> {
        if self.eat_kw(kw) {
            self.expect('{')?;
            self.list('}', |r| r.reference(kinds, what))
        } else {
            Ok(Vec::new())
        }
    }

    fn parser(&mut self, anns: Vec<Annotation>, at: usize) -> R<()> {
        let block = self.block_head(anns)?;
        self.decl_at.insert(format!("parser {}", block.name), at);
        let me = BlockRef::Parser(ParserId(self.prog.parsers.len() as u32));
        let externs = self.id_list("externs", &[Kind::Extern], "extern instance")?.into_iter().map(ExternId).collect();
        let value_sets =
            self.id_list("value_sets", &[Kind::ValueSet], "value set")?.into_iter().map(ValueSetId).collect();
        // State names, for forward transitions.
        self.states.clear();
        let mut depth = 0;
        for i in self.pos..self.toks.len() {
            match &self.toks[i].tok {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') if depth == 0 => break,
                Tok::Punct('}') => depth -= 1,
                Tok::Ident(k) if depth == 0 && k == "state" => {
                    let save = self.pos;
                    self.pos = i + 1;
                    if let Ok(n) = self.name() {
                        self.states.push(n);
                    }
                    self.pos = save;
                }
                _ => {}
            }
        }
        self.callables(&me)?;
        let init = if self.eat_kw("init") { self.body()? } else { Vec::new() };
        let mut states = Vec::new();
        while self.eat_kw("state") {
            let name = self.name()?;
            self.expect('{')?;
            let mut body = Vec::new();
            while !self.is_kw("transition") {
                body.push(self.stmt()?);
            }
            self.bump();
            let transition = if self.eat_kw("select") {
                self.expect('(')?;
                let keys = self.list(')', |r| r.expr())?;
                self.expect('{')?;
                let mut cases = Vec::new();
                while !self.eat_punct('}') {
                    let keysets = self.keysets(keys.len())?;
                    self.expect(':')?;
                    let target = self.state_target()?;
                    self.expect(';')?;
                    cases.push(SelectCase { keysets, target });
                }
                Transition::Select { keys, cases }
            } else {
                let t = self.state_target()?;
                self.expect(';')?;
                Transition::Goto(t)
            };
            self.expect('}')?;
            states.push(ParserState { name, body, transition, span: Span::DUMMY });
        }
        self.expect('}')?;
        self.prog.parsers.push(Parser { block, init, states, externs, value_sets });
        Ok(())
    }

    fn state_target(&mut self) -> R<StateTarget> {
        if self.eat_kw("accept") {
            return Ok(StateTarget::Accept);
        }
        if self.eat_kw("reject") {
            return Ok(StateTarget::Reject);
        }
        let n = self.name()?;
        match self.states.iter().position(|s| *s == n) {
            Some(i) => Ok(StateTarget::State(StateId(i as u32))),
            None => {
                self.pos -= 1;
                self.err(format!("unknown state `{n}`"))
            }
        }
    }

    /// `n` keysets: bare when `n == 1`, else parenthesised.
    fn keysets(&mut self, n: usize) -> R<Vec<Keyset>> {
        if n == 1 && !(self.is_punct('(') && self.is_kw_at(1, "value_set")) {
            return Ok(vec![self.keyset()?]);
        }
        if n == 1 {
            // `(value_set v)` never occurs; a single value set is bare.
            return Ok(vec![self.keyset()?]);
        }
        if self.is_kw("value_set") {
            return Ok(vec![self.keyset()?]);
        }
        self.expect('(')?;
        self.list(')', |r| r.keyset())
    }

    fn is_kw_at(&self, n: usize, k: &str) -> bool {
        matches!(self.peek_at(n), Tok::Ident(s) if s == k)
    }

    fn keyset(&mut self) -> R<Keyset> {
        if self.is_kw("_") || self.is_punct('_') {
            self.bump();
            return Ok(Keyset::Any);
        }
        if self.eat_kw("value_set") {
            return Ok(Keyset::ValueSet(ValueSetId(self.reference(&[Kind::ValueSet], "value set")?)));
        }
        let a = self.operand()?;
        if self.eat_op("&&&") {
            return Ok(Keyset::Mask(a, self.operand()?));
        }
        if self.eat_op("..") {
            return Ok(Keyset::Range(a, self.operand()?));
        }
        if self.is_punct('/')
            && matches!(self.peek_at(1), Tok::Num(n) if n.bytes().all(|c| c.is_ascii_digit()))
            && !matches!(self.peek_at(2), Tok::Punct('.'))
        {
            self.bump();
            return Ok(Keyset::Lpm(a, self.number32()?));
        }
        Ok(Keyset::Value(self.expr_rest(a)?))
    }

    fn control(&mut self, anns: Vec<Annotation>, at: usize) -> R<()> {
        let block = self.block_head(anns)?;
        self.decl_at.insert(format!("control {}", block.name), at);
        let id = ControlId(self.prog.controls.len() as u32);
        let me = BlockRef::Control(id);
        let externs = self.id_list("externs", &[Kind::Extern], "extern instance")?.into_iter().map(ExternId).collect();
        let listed =
            if self.is_kw("actions") { Some(self.id_list("actions", &[Kind::Action], "action")?) } else { None };
        let declared = self.callables(&me)?;
        let actions = listed.unwrap_or(declared).into_iter().map(ActionId).collect();
        let mut tables = Vec::new();
        while self.is_kw("table") || self.is_punct('@') {
            tables.push(self.table(id)?);
        }
        let init = if self.eat_kw("init") { self.body()? } else { Vec::new() };
        self.expect_kw("apply")?;
        let body = self.body()?;
        self.expect('}')?;
        self.prog.controls.push(Control { block, init, body, actions, tables, externs });
        Ok(())
    }

    /// Actions and functions of a block; returns the ids of its actions in order.
    fn callables(&mut self, me: &BlockRef) -> R<Vec<u32>> {
        let mut ids = Vec::new();
        loop {
            let save = self.pos;
            let at = self.toks[self.pos].at;
            let annotations = self.annotations()?;
            if self.eat_kw("action") {
                self.expect('#')?;
                let id_tok = self.pos;
                let id = self.number32()?;
                let name = self.name()?;
                self.expect('(')?;
                let params = self.list(')', |r| r.param())?;
                let body = self.body()?;
                self.decl_at.insert(format!("action {name}"), at);
                let action = Action { name, block: me.clone(), params, body, annotations };
                let id_at = self.toks[id_tok].at;
                self.actions.put(id, id_at, action, self.text).map_err(|m| self.error_at(id_tok, m))?;
                ids.push(id);
            } else if annotations.is_empty() && self.eat_kw("function") {
                self.expect('#')?;
                let id_tok = self.pos;
                let id = self.number32()?;
                let ret = self.ty()?;
                let name = self.name()?;
                self.expect('(')?;
                let params = self.list(')', |r| r.param())?;
                let ret_var = if self.eat_kw("returns") {
                    let n = self.name()?;
                    Some(self.var_id(&n).map_or_else(|| self.err(format!("unknown variable `{n}`")), Ok)?)
                } else {
                    None
                };
                let body = self.body()?;
                self.decl_at.insert(format!("function {name}"), at);
                let f = Function { name, block: me.clone(), params, ret, ret_var, body };
                let id_at = self.toks[id_tok].at;
                self.functions.put(id, id_at, f, self.text).map_err(|m| self.error_at(id_tok, m))?;
            } else {
                self.pos = save;
                return Ok(ids);
            }
        }
    }

    fn param(&mut self) -> R<Param> {
        let annotations = self.annotations()?;
        let direction = self.direction();
        let ty = self.ty()?;
        let name = self.name()?;
        let slot = if self.eat_punct(':') { self.name()? } else { name.clone() };
        match self.var_id(&slot) {
            Some(var) => Ok(Param { name, ty, direction, var, annotations }),
            None => self.err(format!("unknown variable `{slot}`")),
        }
    }

    fn table(&mut self, control: ControlId) -> R<TableId> {
        let at = self.toks[self.pos].at;
        let annotations = self.annotations()?;
        self.expect_kw("table")?;
        self.expect('#')?;
        let id_tok = self.pos;
        let id = self.number32()?;
        let name = self.name()?;
        self.decl_at.insert(format!("table {name}"), at);
        self.expect('{')?;
        let mut t = Table {
            name,
            control,
            keys: Vec::new(),
            actions: Vec::new(),
            default_action: None,
            default_is_const: false,
            entries: Vec::new(),
            entries_const: false,
            size: None,
            direct_counter: None,
            direct_meter: None,
            implementation: None,
            properties: Vec::new(),
            annotations,
        };
        while !self.eat_punct('}') {
            // A key's annotations (an action's flags also start with `@`: those are read below).
            let before = self.pos;
            let mut key_annotations = self.annotations()?;
            if !self.is_kw("key") {
                self.pos = before;
                key_annotations.clear();
            }
            let is_const = self.eat_kw("const");
            let Tok::Ident(k) = self.bump() else {
                self.pos -= 1;
                return self.err(format!("expected a table property, found {}", self.describe()));
            };
            match k.as_str() {
                "key" => {
                    let expr = self.expr()?;
                    self.expect(':')?;
                    let mk = self.name()?;
                    self.expect_kw("as")?;
                    let Tok::Str(name) = self.bump() else { return self.err("expected the key's name") };
                    self.expect(';')?;
                    let match_kind = match mk.as_str() {
                        "exact" => MatchKind::Exact,
                        "ternary" => MatchKind::Ternary,
                        "lpm" => MatchKind::Lpm,
                        "range" => MatchKind::Range,
                        "optional" => MatchKind::Optional,
                        "selector" => MatchKind::Selector,
                        _ => MatchKind::Other(mk),
                    };
                    t.keys.push(TableKey { expr, match_kind, name, annotations: key_annotations });
                }
                "action" => {
                    let mut table_only = false;
                    let mut default_only = false;
                    while self.eat_punct('@') {
                        if self.eat_kw("tableonly") {
                            table_only = true;
                        } else if self.eat_kw("defaultonly") {
                            default_only = true;
                        } else {
                            return self.err("expected @tableonly or @defaultonly");
                        }
                    }
                    let action = ActionId(self.reference(&[Kind::Action], "action")?);
                    let bound_args = if self.eat_punct('(') { self.list(')', |r| r.expr())? } else { Vec::new() };
                    self.expect(';')?;
                    t.actions.push(TableAction { action, bound_args, table_only, default_only });
                }
                "default_action" => {
                    self.expect('=')?;
                    t.default_action = Some(self.action_call()?);
                    t.default_is_const = is_const;
                    self.expect(';')?;
                }
                "size" => {
                    self.expect('=')?;
                    t.size = Some(self.number()?);
                    self.expect(';')?;
                }
                "counters" | "meters" | "implementation" => {
                    self.expect('=')?;
                    let x = Some(ExternId(self.reference(&[Kind::Extern], "extern instance")?));
                    self.expect(';')?;
                    match k.as_str() {
                        "counters" => t.direct_counter = x,
                        "meters" => t.direct_meter = x,
                        _ => t.implementation = x,
                    }
                }
                "property" => {
                    let n = self.name()?;
                    self.expect('=')?;
                    let v = self.value()?;
                    self.expect(';')?;
                    t.properties.push((n, v));
                }
                "entries" => {
                    t.entries_const = is_const;
                    self.expect('{')?;
                    while !self.eat_punct('}') {
                        let priority = if self.eat_kw("priority") {
                            self.expect('=')?;
                            let p = self.number()?;
                            self.expect(':')?;
                            Some(p)
                        } else {
                            None
                        };
                        let keys = self.keysets(t.keys.len())?;
                        self.expect(':')?;
                        let action = self.action_call()?;
                        self.expect(';')?;
                        t.entries.push(TableEntry { keys, action, priority });
                    }
                }
                _ => {
                    self.pos -= 1;
                    return self.err(format!("unknown table property `{k}`"));
                }
            }
        }
        let id_at = self.toks[id_tok].at;
        self.tables.put(id, id_at, t, self.text).map_err(|m| self.error_at(id_tok, m))?;
        Ok(TableId(id))
    }

    fn action_call(&mut self) -> R<ActionCall> {
        let action = ActionId(self.reference(&[Kind::Action], "action")?);
        self.expect('(')?;
        let args = self.list(')', |r| r.expr())?;
        Ok(ActionCall { action, args })
    }

    // ------------------------------------------------------------ statements

    fn body(&mut self) -> R<Vec<Stmt>> {
        self.expect('{')?;
        let mut v = Vec::new();
        while !self.eat_punct('}') {
            v.push(self.stmt()?);
        }
        Ok(v)
    }

    fn stmt(&mut self) -> R<Stmt> {
        self.nested(Self::read_stmt)
    }

    fn read_stmt(&mut self) -> R<Stmt> {
        let sp = Span::DUMMY;
        if self.is_punct('{') {
            return Ok(Stmt::Block(self.body()?));
        }
        if self.eat_punct(';') {
            return Ok(Stmt::Empty);
        }
        if let Tok::Ident(k) = self.peek().clone() {
            match k.as_str() {
                "init" => {
                    self.bump();
                    let n = self.name()?;
                    let var = self.var_id(&n).map_or_else(|| self.err(format!("unknown variable `{n}`")), Ok)?;
                    let init = if self.eat_punct('=') { Some(self.expr()?) } else { None };
                    self.expect(';')?;
                    return Ok(Stmt::VarInit { var, init, span: sp });
                }
                "if" => {
                    self.bump();
                    self.expect('(')?;
                    let cond = self.expr()?;
                    self.expect(')')?;
                    let then = self.body()?;
                    let otherwise = if self.eat_kw("else") { self.body()? } else { Vec::new() };
                    return Ok(Stmt::If { cond, then, otherwise, span: sp });
                }
                "switch" => return self.switch(),
                "exit" => {
                    self.bump();
                    self.expect(';')?;
                    return Ok(Stmt::Exit(sp));
                }
                "break" | "continue" => {
                    self.bump();
                    self.expect(';')?;
                    return Ok(if k == "break" { Stmt::Break(sp) } else { Stmt::Continue(sp) });
                }
                "return" => {
                    self.bump();
                    let v = if self.eat_punct(';') {
                        None
                    } else {
                        let e = self.expr()?;
                        self.expect(';')?;
                        Some(e)
                    };
                    return Ok(Stmt::Return(v, sp));
                }
                "for" if self.peek_at(1) == &Tok::Punct('{') => {
                    self.bump();
                    self.expect('{')?;
                    self.expect_kw("init")?;
                    let init = self.body()?;
                    self.expect_kw("while")?;
                    self.expect('(')?;
                    let cond = Some(self.expr()?);
                    self.expect(')')?;
                    self.expect_kw("update")?;
                    let update = self.body()?;
                    self.expect_kw("body")?;
                    let body = self.body()?;
                    self.expect('}')?;
                    return Ok(Stmt::For { init, cond, update, body, span: sp });
                }
                _ => {}
            }
        }
        // Table and block applies.
        let save = self.pos;
        if matches!(self.peek(), Tok::Ident(_) | Tok::Quoted(_)) {
            if let Resolved::Global(k @ (Kind::Table | Kind::Parser | Kind::Control), i) =
                self.resolve(&[Kind::Table, Kind::Parser, Kind::Control])?
            {
                if self.is_punct('.') && self.is_kw_at(1, "apply") && self.peek_at(2) == &Tok::Punct('(') {
                    self.pos += 3;
                    match k {
                        Kind::Table if self.peek() == &Tok::Punct(')') && self.peek_at(1) == &Tok::Punct(';') => {
                            self.pos += 2;
                            return Ok(Stmt::ApplyTable { table: TableId(i), span: sp });
                        }
                        Kind::Parser | Kind::Control => {
                            let args = self.list(')', |r| r.arg())?;
                            self.expect(';')?;
                            let block = if k == Kind::Parser {
                                BlockRef::Parser(ParserId(i))
                            } else {
                                BlockRef::Control(ControlId(i))
                            };
                            return Ok(Stmt::ApplyBlock { block, args, span: sp });
                        }
                        _ => {}
                    }
                }
            }
            self.pos = save;
        }
        let e = self.expr()?;
        if self.eat_punct('=') {
            let rhs = self.expr()?;
            self.expect(';')?;
            return Ok(Stmt::Assign { lhs: e, rhs, span: sp });
        }
        self.expect(';')?;
        match e.kind {
            ExprKind::Call(c) => Ok(Stmt::Call(*c)),
            _ => {
                self.pos = save;
                self.err("expected a statement")
            }
        }
    }

    fn switch(&mut self) -> R<Stmt> {
        self.bump();
        self.expect('(')?;
        let save = self.pos;
        if let Resolved::Global(Kind::Table, t) = self.resolve(&[Kind::Table])? {
            if self.eat_punct('.')
                && self.eat_kw("apply")
                && self.eat_punct('(')
                && self.eat_punct(')')
                && self.eat_punct('.')
                && self.eat_kw("action_run")
            {
                self.expect(')')?;
                self.expect('{')?;
                let mut cases = Vec::new();
                while !self.eat_punct('}') {
                    let a = if self.eat_kw("default") {
                        None
                    } else {
                        Some(ActionId(self.reference(&[Kind::Action], "action")?))
                    };
                    self.expect(':')?;
                    cases.push((a, self.body()?));
                }
                return Ok(Stmt::SwitchAction { table: TableId(t), cases, span: Span::DUMMY });
            }
        }
        self.pos = save;
        let expr = self.expr()?;
        self.expect(')')?;
        self.expect('{')?;
        let mut cases = Vec::new();
        while !self.eat_punct('}') {
            let v = if self.eat_kw("default") { None } else { Some(self.value()?) };
            self.expect(':')?;
            cases.push((v, self.body()?));
        }
        Ok(Stmt::SwitchValue { expr, cases, span: Span::DUMMY })
    }

    fn arg(&mut self) -> R<Arg> {
        let direction = self.direction();
        Ok(Arg { direction, expr: self.expr()? })
    }

    // ------------------------------------------------------------ expressions

    fn mk(&self, kind: ExprKind) -> R<Expr> {
        match infer_type(&self.prog, &self.vars, &kind) {
            Some(ty) => Ok(Expr::new(ty, kind, Span::DUMMY)),
            None => self.err("the type of this expression must be given: `(e : T)`"),
        }
    }

    /// `operand [binop operand | ? operand : operand]` — the printer parenthesises every nested
    /// operator, so there is no precedence to resolve.
    fn expr(&mut self) -> R<Expr> {
        let a = self.operand()?;
        self.expr_rest(a)
    }

    fn expr_rest(&mut self, a: Expr) -> R<Expr> {
        if self.is_punct('?') {
            self.bump();
            let b = self.operand()?;
            self.expect(':')?;
            let c = self.operand()?;
            return self.mk(ExprKind::Mux(Box::new(a), Box::new(b), Box::new(c)));
        }
        let run = self.punct_run();
        for (sym, op) in BINOPS {
            if run == *sym || (run.starts_with(sym) && !self.toks[self.pos + sym.len()].glued) {
                if run.len() != sym.len() && !run[sym.len()..].starts_with(['(', '-', '!', '~', '{', '+', '`']) {
                    continue;
                }
                self.pos += sym.len();
                let b = self.operand()?;
                return self.mk(ExprKind::Binary(*op, Box::new(a), Box::new(b)));
            }
        }
        Ok(a)
    }

    fn operand(&mut self) -> R<Expr> {
        self.nested(Self::read_operand)
    }

    fn read_operand(&mut self) -> R<Expr> {
        let e = match self.peek().clone() {
            Tok::Punct(c @ ('!' | '~' | '+')) => {
                self.bump();
                let op = match c {
                    '!' => UnOp::Not,
                    '~' => UnOp::BitNot,
                    _ => UnOp::Plus,
                };
                let x = self.operand()?;
                return self.mk(ExprKind::Unary(op, Box::new(x)));
            }
            Tok::Punct('-') => {
                if matches!(self.peek_at(1), Tok::Num(_)) && self.glued_at(1) {
                    let v = self.value()?;
                    self.mk(ExprKind::Const(v))?
                } else {
                    self.bump();
                    let x = self.operand()?;
                    return self.mk(ExprKind::Unary(UnOp::Neg, Box::new(x)));
                }
            }
            Tok::Punct('(') => {
                self.bump();
                // A cast or typed aggregate `(T)x`, `(T){...}`, `(T){#}`; else `(e)` or `(e : T)`.
                let save = self.pos;
                let as_type = self.ty().ok().filter(|_| self.is_punct(')'));
                match as_type {
                    Some(ty) => {
                        self.bump();
                        if self.is_punct('{') && self.glued_at(0) {
                            self.bump();
                            if self.is_punct('#') && self.peek_at(1) == &Tok::Punct('}') {
                                self.pos += 2;
                                Expr::new(ty, ExprKind::InvalidHeader, Span::DUMMY)
                            } else {
                                let xs = self.list('}', |r| r.expr())?;
                                Expr::new(ty, ExprKind::Aggregate(xs), Span::DUMMY)
                            }
                        } else {
                            let x = self.operand_no_postfix()?;
                            Expr::new(ty, ExprKind::Cast(Box::new(x)), Span::DUMMY)
                        }
                    }
                    None => {
                        self.pos = save;
                        let mut e = self.expr()?;
                        if self.eat_punct(':') {
                            e.ty = self.ty()?;
                        }
                        self.expect(')')?;
                        e
                    }
                }
            }
            _ => self.primary()?,
        };
        self.postfix(e)
    }

    /// The operand of a cast: `atom` in the printer (postfix included).
    fn operand_no_postfix(&mut self) -> R<Expr> {
        self.operand()
    }

    fn primary(&mut self) -> R<Expr> {
        match self.peek().clone() {
            Tok::Num(_) | Tok::Str(_) => {
                let v = self.value()?;
                return self.mk(ExprKind::Const(v));
            }
            Tok::Punct('{') => {
                let v = self.value()?;
                // An aggregate constant's type is always given: `({...} : T)`; placeholder until then.
                return Ok(Expr::new(Type::Void, ExprKind::Const(v), Span::DUMMY));
            }
            Tok::Punct('_') => {
                self.bump();
                return Ok(Expr::new(Type::Void, ExprKind::DontCare, Span::DUMMY));
            }
            Tok::Ident(k) if k == "_" => {
                self.bump();
                return Ok(Expr::new(Type::Void, ExprKind::DontCare, Span::DUMMY));
            }
            Tok::Ident(k)
                if k == "true"
                    || k == "false"
                    || ((k == "error" || k == "match_kind") && self.peek_at(1) == &Tok::Punct('.')) =>
            {
                let v = self.value()?;
                return self.mk(ExprKind::Const(v));
            }
            _ => {}
        }
        let start = self.pos;
        match self.resolve(&[Kind::Table, Kind::Extern, Kind::Action, Kind::Function, Kind::Type])? {
            Resolved::Var(v) => self.mk(ExprKind::Var(v)),
            Resolved::Global(Kind::Table, t) => {
                for k in [".", "apply", "(", ")", "."] {
                    let ok = match k {
                        "." | "(" | ")" => self.eat_punct(k.chars().next().unwrap_or('.')),
                        _ => self.eat_kw(k),
                    };
                    if !ok {
                        return self.err("expected `.apply().hit`, `.apply().miss` or `.apply().action_run`");
                    }
                }
                let r = if self.eat_kw("hit") {
                    ApplyResult::Hit
                } else if self.eat_kw("miss") {
                    ApplyResult::Miss
                } else if self.eat_kw("action_run") {
                    ApplyResult::ActionRun
                } else {
                    return self.err("expected `hit`, `miss` or `action_run`");
                };
                self.mk(ExprKind::ApplyTable(TableId(t), r))
            }
            Resolved::Global(Kind::Extern, x) => self.mk(ExprKind::Extern(ExternId(x))),
            Resolved::Global(k @ (Kind::Action | Kind::Function), i) => {
                self.expect('(')?;
                let args = self.list(')', |r| r.arg())?;
                if k == Kind::Function {
                    // The function may be declared further down: read its return type there.
                    let ret = match self.fn_ret_at.get(&i) {
                        Some(&at) => {
                            let save = self.pos;
                            self.pos = at;
                            let t = self.ty();
                            self.pos = save;
                            t?
                        }
                        None => return self.err("unknown function"),
                    };
                    let c = Call { callee: Callee::Function(FunctionId(i)), args, span: Span::DUMMY };
                    return Ok(Expr::new(ret, ExprKind::Call(Box::new(c)), Span::DUMMY));
                }
                self.mk(ExprKind::Call(Box::new(Call { callee: Callee::Action(ActionId(i)), args, span: Span::DUMMY })))
            }
            Resolved::Global(Kind::Type, _) => {
                self.pos = start;
                let v = self.value()?;
                self.mk(ExprKind::Const(v))
            }
            Resolved::Global(..) => {
                self.pos = start;
                self.err("this name cannot start an expression")
            }
            Resolved::Unknown(name) => {
                let type_args = if self.is_punct('<') && self.glued_at(0) { self.type_args()? } else { Vec::new() };
                if !self.is_punct('(') || name.contains('.') {
                    self.pos = start;
                    return self.err(format!("unknown name `{name}`"));
                }
                self.bump();
                let args = self.list(')', |r| r.arg())?;
                self.mk(ExprKind::Call(Box::new(Call {
                    callee: Callee::ExternFunction { name, type_args },
                    args,
                    span: Span::DUMMY,
                })))
            }
        }
    }

    fn postfix(&mut self, mut e: Expr) -> R<Expr> {
        loop {
            if self.is_punct('[') && self.glued_at(0) {
                self.bump();
                if matches!(e.ty, Type::Bits { .. } | Type::InfInt)
                    || (matches!(self.peek(), Tok::Num(_)) && self.peek_at(1) == &Tok::Punct(':'))
                {
                    let hi = self.number32()?;
                    self.expect(':')?;
                    let lo = self.number32()?;
                    self.expect(']')?;
                    e = self.mk(ExprKind::Slice(Box::new(e), hi, lo))?;
                } else if let Type::Tuple(_) = e.ty {
                    let i = self.number32()?;
                    self.expect(']')?;
                    e = self.mk(ExprKind::Field(Box::new(e), i))?;
                } else {
                    let i = self.expr()?;
                    self.expect(']')?;
                    e = self.mk(ExprKind::Index(Box::new(e), Box::new(i)))?;
                }
                continue;
            }
            if !(self.is_punct('.') && self.glued_at(0)) {
                return Ok(e);
            }
            self.bump();
            // `.[extern_type]method(...)`
            let explicit_ext = if self.eat_punct('[') {
                let n = self.name()?;
                self.expect(']')?;
                Some(n)
            } else {
                None
            };
            let member_at = self.pos;
            let m = self.name_part()?;
            let is_stack = matches!(e.ty, Type::Stack(..));
            let is_hdr = match &e.ty {
                Type::Named(t) => {
                    matches!(self.prog.types.get(t.index()), Some(TypeDef::Header { .. } | TypeDef::Union { .. }))
                }
                _ => false,
            };
            let type_args = if self.is_punct('<') && self.glued_at(0) && explicit_ext.is_none() {
                let save = self.pos;
                match self.type_args() {
                    Ok(a) if self.is_punct('(') => Some(a),
                    _ => {
                        self.pos = save;
                        None
                    }
                }
            } else {
                None
            };
            if self.is_punct('(') && self.glued_at(0) || type_args.is_some() || explicit_ext.is_some() {
                self.expect('(')?;
                let builtin = if explicit_ext.is_some() || !(is_stack || is_hdr) {
                    None
                } else {
                    match m.as_str() {
                        "isValid" => Some(Builtin::IsValid),
                        "setValid" => Some(Builtin::SetValid),
                        "setInvalid" => Some(Builtin::SetInvalid),
                        "push_front" => Some(Builtin::PushFront(self.number32()?)),
                        "pop_front" => Some(Builtin::PopFront(self.number32()?)),
                        _ => None,
                    }
                };
                let callee = match builtin {
                    Some(b) => {
                        self.expect(')')?;
                        Callee::Builtin { target: Box::new(e), builtin: b }
                    }
                    None => {
                        let args = self.list(')', |r| r.arg())?;
                        let extern_type = match explicit_ext
                            .or_else(|| crate::printer::method_extern_type(&self.prog, &e))
                        {
                            Some(x) => x,
                            None => return self.err(format!("cannot tell the extern type of `.{m}(...)`'s target")),
                        };
                        let c = Call {
                            callee: Callee::Method {
                                target: Box::new(e),
                                extern_type,
                                method: m,
                                type_args: type_args.unwrap_or_default(),
                            },
                            args,
                            span: Span::DUMMY,
                        };
                        e = self.mk(ExprKind::Call(Box::new(c)))?;
                        continue;
                    }
                };
                e = self.mk(ExprKind::Call(Box::new(Call { callee, args: Vec::new(), span: Span::DUMMY })))?;
                continue;
            }
            if is_stack {
                let k = match m.as_str() {
                    "next" => ExprKind::StackNext(Box::new(e)),
                    "last" => ExprKind::StackLast(Box::new(e)),
                    "lastIndex" => ExprKind::StackLastIndex(Box::new(e)),
                    _ => return self.err(format!("a stack has no member `{m}`")),
                };
                e = self.mk(k)?;
                continue;
            }
            let idx = match &e.ty {
                Type::Named(t) => {
                    self.prog.types.get(t.index()).and_then(|d| d.fields().iter().position(|f| f.name == m))
                }
                _ => None,
            };
            let idx = match (idx, m.strip_prefix('$')) {
                (Some(i), _) => i as u32,
                _ => {
                    self.pos = member_at;
                    return self
                        .err(format!("no field `{m}` in {}", crate::printer::type_to_string(&self.prog, &e.ty)));
                }
            };
            e = self.mk(ExprKind::Field(Box::new(e), idx))?;
        }
    }

    /// One identifier (or `quoted` name) after a dot.
    fn name_part(&mut self) -> R<String> {
        match self.bump() {
            Tok::Ident(s) | Tok::Quoted(s) => Ok(s),
            _ => {
                self.pos -= 1;
                self.err(format!("expected a member name, found {}", self.describe()))
            }
        }
    }
}


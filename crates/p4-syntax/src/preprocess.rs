//! A C-preprocessor subset that works on tokens, so every token keeps a span into the file it came
//! from: `#include`, `#define`/`#undef` (object- and function-like, `#` and `##`, `__VA_ARGS__`),
//! `#if/#ifdef/#ifndef/#elif/#else/#endif` with integer expressions and `defined`, `#error`,
//! `#warning`, `#pragma once`; `#line` and other pragmas are accepted and ignored.
//!
//! Invariants: never panics; terminates on any input (macro expansion uses hide sets and an overall
//! step budget, include nesting is capped, recursive includes are errors); lexing errors inside
//! skipped `#if` regions are not reported. Tokens made by `#` or `##` live in small virtual files
//! added to the `SourceMap`, so their spans are real.

use crate::diag::Diagnostic;
use crate::lexer::{lex, Lexer};
use crate::span::{FileId, SourceMap, Span};
use crate::token::{Interner, Keyword, Punct, Token, TokenBuf, TokenKind};
use num_traits::ToPrimitive;
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The built-in include directory (the repository's `p4include/`), embedded in the binary.
pub const BUILTIN_INCLUDES: &[(&str, &str)] = &[
    ("core.p4", include_str!("../../../p4include/core.p4")),
    ("v1model.p4", include_str!("../../../p4include/v1model.p4")),
    ("psa.p4", include_str!("../../../p4include/psa.p4")),
    ("op4t.p4", include_str!("../../../p4include/op4t.p4")),
    // Where the reference compiler keeps the same architecture for its BMv2 and DPDK targets
    // (DPDK's counters and meters take the packet length too).
    ("bmv2/psa.p4", include_str!("../../../p4include/psa.p4")),
    ("dpdk/psa.p4", "#define PSA_ON_DPDK\n#include <psa.p4>\n"),
];

/// The architecture whose include file `file` is, for the architectures p4forge does not ship an
/// include file for: a program including one is written for a target p4forge cannot run yet.
fn unsupported_architecture(file: &str) -> Option<&'static str> {
    Some(match file {
        "pna.p4" => "Portable NIC Architecture (PNA)",
        "tna.p4" | "t2na.p4" => "Tofino Native Architecture",
        "ebpf_model.p4" => "eBPF architecture",
        "ubpf_model.p4" => "uBPF architecture",
        "xdp_model.p4" => "XDP architecture of p4c-xdp",
        _ => return None,
    })
}

/// Name shown for built-in files in diagnostics (`<p4include>/core.p4`).
pub const BUILTIN_DIR_NAME: &str = "<p4include>";

const MAX_INCLUDE_DEPTH: usize = 64;
const MAX_EXPANSION_STEPS: usize = 2_000_000;
const MAX_EXPAND_NESTING: u32 = 64;

/// A macro definition.
#[derive(Clone, Debug)]
struct Macro {
    /// `None` for object-like macros.
    params: Option<Vec<String>>,
    body: Vec<Token>,
}

/// One open `#if` group.
struct Cond {
    /// Was the enclosing region active?
    parent_active: bool,
    /// Is the current branch active?
    active: bool,
    /// Has any branch of this group been taken?
    taken: bool,
    seen_else: bool,
    span: Span,
}

/// Where a file came from, for `"..."` include resolution and recursion detection.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Origin {
    Disk(PathBuf),
    Builtin(String),
    Virtual,
}

pub struct Preprocessor<'a> {
    sources: &'a mut SourceMap,
    include_dirs: Vec<PathBuf>,
    macros: HashMap<String, Rc<Macro>>,
    once: HashSet<Origin>,
    stack: Vec<Origin>,
    out: TokenBuf,
    /// Texts and literals of every token made (the parser reads them from here).
    names: Interner,
    pub diags: Vec<Diagnostic>,
    steps: usize,
    /// For each included file, the span of the `#include` that read it.
    included_from: HashMap<FileId, Span>,
}

type Hide = Rc<Vec<String>>;

impl<'a> Preprocessor<'a> {
    pub fn new(sources: &'a mut SourceMap, include_dirs: &[PathBuf]) -> Preprocessor<'a> {
        Preprocessor {
            sources,
            include_dirs: include_dirs.to_vec(),
            macros: HashMap::new(),
            once: HashSet::new(),
            stack: Vec::new(),
            out: TokenBuf::new(),
            names: Interner::new(),
            diags: Vec::new(),
            steps: 0,
            included_from: HashMap::new(),
        }
    }

    /// Define an object-like macro from outside (like `-DNAME=VALUE`).
    pub fn define(&mut self, name: &str, value: &str) {
        let file = self.sources.add(PathBuf::from(format!("<command line {name}>")), value.to_string());
        let mut body = lex(file, value, &mut self.names);
        body.retain(|t| t.kind != TokenKind::Eof);
        self.macros.insert(name.to_string(), Rc::new(Macro { params: None, body }));
    }

    /// Preprocess a file that is already in the source map. `on_disk` is its path when it was read
    /// from disk (`"..."` includes look next to it); `None` means an in-memory file (they look in
    /// the current directory). Returns the tokens, ending with one `Eof`, the texts and literals
    /// they refer to, and the diagnostics.
    pub fn run(self, file: FileId, on_disk: Option<&Path>) -> (TokenBuf, Interner, Vec<Diagnostic>) {
        let (toks, names, diags, _) = self.run_with_includes(file, on_disk);
        (toks, names, diags)
    }

    /// Like [`Self::run`], and also return, for each included file, the span of the `#include`
    /// that read it (for "included from" notes).
    pub fn run_with_includes(mut self, file: FileId, on_disk: Option<&Path>) -> (TokenBuf, Interner, Vec<Diagnostic>, HashMap<FileId, Span>) {
        let origin = match on_disk {
            Some(p) => Origin::Disk(canonical(p)),
            None => Origin::Virtual,
        };
        self.process(file, origin);
        let eof_span = self.out.last().map(|t| Span { lo: t.span.hi, ..t.span }).unwrap_or(Span::new(file, 0, 0));
        self.out.push(Token { kind: TokenKind::Eof, span: eof_span, line_start: true, glued: false });
        (self.out, self.names, self.diags, self.included_from)
    }

    fn process(&mut self, file: FileId, origin: Origin) {
        let text = match self.sources.get(file) {
            Some(f) => f.text.clone(),
            None => return,
        };
        self.stack.push(origin.clone());
        // Tokens are lexed as they are needed: a file's tokens are not held twice over.
        let mut lexer = Lexer::new(file, &text);
        let mut next = lexer.next_token(&mut self.names);
        let mut conds: Vec<Cond> = Vec::new();
        let mut pending: Vec<Token> = Vec::new();
        // Parentheses open in `pending`: at none, after a `;` or `}`, no macro invocation can be
        // cut in two, so what is pending is expanded and handed on there, and a file's tokens are
        // not held twice over.
        let mut open_parens = 0usize;
        // Tokens are moved, never cloned: this loop sees every token of every file.
        loop {
            let tok = next;
            if tok.kind == TokenKind::Eof {
                break;
            }
            next = lexer.next_token(&mut self.names);
            let active = conds.last().is_none_or(|c| c.active);
            if tok.line_start && tok.is_punct(Punct::Hash) {
                let mut line = Vec::new();
                while !next.line_start && next.kind != TokenKind::Eof {
                    line.push(next);
                    next = lexer.next_token(&mut self.names);
                }
                if active {
                    let chunk = std::mem::take(&mut pending);
                    let expanded = self.expand(chunk, 0);
                    self.out.extend(expanded);
                }
                self.directive(&tok, line, &mut conds, active, &origin, file);
                continue;
            }
            if active {
                // Lexing errors are reported here, once; the token still flows to the parser,
                // which fails silently on it and recovers (so no cascade of follow-up errors).
                if let TokenKind::Error(msg) = tok.kind {
                    self.diags.push(Diagnostic::error(tok.span, self.names.text(msg)));
                }
                let ends_statement = match &tok.kind {
                    TokenKind::Punct(Punct::LParen) => {
                        open_parens += 1;
                        false
                    }
                    TokenKind::Punct(Punct::RParen) => {
                        open_parens = open_parens.saturating_sub(1);
                        false
                    }
                    TokenKind::Punct(Punct::Semi | Punct::RBrace) => open_parens == 0,
                    _ => false,
                };
                pending.push(tok);
                if ends_statement {
                    let chunk = std::mem::take(&mut pending);
                    let expanded = self.expand(chunk, 0);
                    self.out.extend(expanded);
                }
            }
        }
        let expanded = self.expand(pending, 0);
        self.out.extend(expanded);
        for c in conds.iter().rev() {
            self.diags.push(Diagnostic::error(c.span, "unterminated conditional directive (missing `#endif`)"));
        }
        self.stack.pop();
    }

    fn directive(&mut self, hash: &Token, line: Vec<Token>, conds: &mut Vec<Cond>, active: bool, origin: &Origin, file: FileId) {
        let Some(first) = line.first() else { return };
        let name = self.word(first).unwrap_or_default();
        let span = line.iter().fold(hash.span, |s, t| s.to(t.span));
        let rest: Vec<Token> = line[1..].to_vec();
        match name.as_str() {
            "if" | "ifdef" | "ifndef" => {
                let value = if !active {
                    false
                } else if name == "if" {
                    self.eval_condition(rest, span)
                } else {
                    match rest.first().and_then(|t| self.word(t)) {
                        Some(m) => self.macros.contains_key(&m) == (name == "ifdef"),
                        None => {
                            self.diags.push(Diagnostic::error(span, format!("`#{name}` needs a macro name")));
                            false
                        }
                    }
                };
                conds.push(Cond { parent_active: active, active: active && value, taken: value, seen_else: false, span });
            }
            "elif" => {
                let Some(c) = conds.last() else {
                    self.diags.push(Diagnostic::error(span, "`#elif` without `#if`"));
                    return;
                };
                if c.seen_else {
                    self.diags.push(Diagnostic::error(span, "`#elif` after `#else`"));
                }
                let (parent_active, taken) = (c.parent_active, c.taken);
                let value = parent_active && !taken && self.eval_condition(rest, span);
                if let Some(c) = conds.last_mut() {
                    c.active = value;
                    c.taken |= value;
                }
            }
            "else" => match conds.last_mut() {
                Some(c) => {
                    if c.seen_else {
                        self.diags.push(Diagnostic::error(span, "duplicate `#else`"));
                    }
                    c.seen_else = true;
                    c.active = c.parent_active && !c.taken;
                    c.taken = true;
                }
                None => self.diags.push(Diagnostic::error(span, "`#else` without `#if`")),
            },
            "endif" => {
                if conds.pop().is_none() {
                    self.diags.push(Diagnostic::error(span, "`#endif` without `#if`"));
                }
            }
            _ if !active => {}
            "include" => self.include(rest, span, origin, file),
            "define" => self.define_directive(rest, span),
            "undef" => {
                if let Some(m) = rest.first().and_then(|t| self.word(t)) {
                    self.macros.remove(&m);
                }
            }
            "error" => {
                let text = self.join(&rest);
                self.diags.push(Diagnostic::error(span, format!("#error {text}").trim_end().to_string()));
            }
            "warning" => {
                let text = self.join(&rest);
                self.diags.push(Diagnostic::warning(span, format!("#warning {text}").trim_end().to_string()));
            }
            "pragma" => {
                if rest.first().and_then(|t| self.word(t)).as_deref() == Some("once") {
                    self.once.insert(origin.clone());
                }
            }
            "line" => {}
            _ => {
                if matches!(first.kind, TokenKind::Int(_)) {
                    // `# 12 "file"` line markers, as cpp emits them.
                    return;
                }
                self.diags.push(Diagnostic::error(first.span, format!("unknown preprocessor directive `#{name}`")));
            }
        }
    }

    /// Spelling of tokens, one space wherever the source had whitespace.
    fn join(&self, toks: &[Token]) -> String {
        let mut s = String::new();
        for (i, t) in toks.iter().enumerate() {
            if i > 0 && !t.glued {
                s.push(' ');
            }
            s.push_str(&self.spelling(t));
        }
        s
    }

    fn spelling(&self, t: &Token) -> String {
        self.sources
            .get(t.span.file)
            .and_then(|f| f.text.get(t.span.lo as usize..t.span.hi as usize))
            .map(str::to_string)
            .unwrap_or_else(|| crate::token::spell(&t.kind, &self.names))
    }

    // ------------------------------------------------------------ #include

    fn include(&mut self, rest: Vec<Token>, span: Span, origin: &Origin, file: FileId) {
        let (target, angled) = match rest.first().map(|t| t.kind) {
            Some(TokenKind::Str(s)) => (self.names.text(s).to_string(), false),
            Some(TokenKind::Punct(Punct::Lt)) => {
                let Some(close) = rest.iter().position(|t| t.is_punct(Punct::Gt)) else {
                    self.diags.push(Diagnostic::error(span, "`#include <...>` is missing `>`"));
                    return;
                };
                let (open, close) = (&rest[0], &rest[close]);
                let text = self
                    .sources
                    .get(file)
                    .and_then(|f| f.text.get(open.span.hi as usize..close.span.lo as usize))
                    .unwrap_or("")
                    .trim()
                    .to_string();
                (text, true)
            }
            _ => {
                self.diags.push(Diagnostic::error(span, "expected `<file>` or `\"file\"` after `#include`"));
                return;
            }
        };
        if self.stack.len() >= MAX_INCLUDE_DEPTH {
            self.diags.push(Diagnostic::error(span, format!("includes nested more than {MAX_INCLUDE_DEPTH} deep")));
            return;
        }
        let resolved = match self.resolve(&target, angled, origin) {
            Ok(r) => r,
            Err(why) => {
                self.diags.push(Diagnostic::error(span, why));
                return;
            }
        };
        let Some((origin_new, path_shown, text)) = resolved else {
            let shown = if angled { format!("<{target}>") } else { format!("\"{target}\"") };
            let error = match unsupported_architecture(&target) {
                Some(name) => Diagnostic::error(
                    span,
                    format!("{shown} is the {name}, which p4forge does not support yet (it knows v1model, PSA and OP4T: #include <v1model.p4>, <psa.p4> or <op4t.p4>)"),
                ),
                None => Diagnostic::error(span, format!("cannot find include file {shown}")),
            };
            self.diags.push(error.with_note(self.search_note(angled, origin)));
            return;
        };
        if self.once.contains(&origin_new) {
            return;
        }
        if self.stack.contains(&origin_new) {
            self.diags.push(Diagnostic::error(span, format!("recursive include of `{}`", path_shown.display())));
            return;
        }
        let id = self.sources.add(path_shown, text);
        self.included_from.insert(id, span);
        self.process(id, origin_new);
    }

    fn search_note(&self, angled: bool, origin: &Origin) -> String {
        let mut dirs: Vec<String> = Vec::new();
        if !angled {
            dirs.push(match origin {
                Origin::Disk(p) => p.parent().map(|d| d.display().to_string()).unwrap_or_else(|| ".".into()),
                _ => ".".into(),
            });
        }
        dirs.extend(self.include_dirs.iter().map(|d| d.display().to_string()));
        dirs.push(format!("{BUILTIN_DIR_NAME} (built-in)"));
        format!("searched: {}", dirs.join(", "))
    }

    /// Find an include: `"..."` looks next to the including file first; then the include dirs;
    /// then the built-in files; a virtual (in-memory) file also tries the current directory.
    /// `Err` when a candidate exists but cannot be read (a directory, a FIFO, a device, too large,
    /// no permission): the message says what the path is and why.
    fn resolve(&self, target: &str, angled: bool, origin: &Origin) -> Result<Option<(Origin, PathBuf, String)>, String> {
        let mut candidates: Vec<PathBuf> = Vec::new();
        if !angled {
            match origin {
                Origin::Disk(p) => candidates.push(p.parent().unwrap_or(Path::new(".")).join(target)),
                Origin::Virtual => candidates.push(PathBuf::from(target)),
                Origin::Builtin(_) => {}
            }
        }
        candidates.extend(self.include_dirs.iter().map(|d| d.join(target)));
        for c in candidates {
            if std::fs::metadata(&c).is_ok() {
                let text = crate::read_source(&c, "included file")?;
                return Ok(Some((Origin::Disk(canonical(&c)), c, text)));
            }
        }
        let builtin_name = target.trim_start_matches("./");
        if let Some((n, text)) = BUILTIN_INCLUDES.iter().find(|(n, _)| *n == builtin_name) {
            let shown = PathBuf::from(BUILTIN_DIR_NAME).join(n);
            return Ok(Some((Origin::Builtin(n.to_string()), shown, text.to_string())));
        }
        if angled && *origin == Origin::Virtual {
            let c = PathBuf::from(target);
            if std::fs::metadata(&c).is_ok() {
                let text = crate::read_source(&c, "included file")?;
                return Ok(Some((Origin::Disk(canonical(&c)), c, text)));
            }
        }
        Ok(None)
    }

    // ------------------------------------------------------------ #define

    fn define_directive(&mut self, rest: Vec<Token>, span: Span) {
        let Some(name_tok) = rest.first() else {
            self.diags.push(Diagnostic::error(span, "`#define` needs a macro name"));
            return;
        };
        let Some(name) = self.word(name_tok) else {
            self.diags.push(Diagnostic::error(name_tok.span, "macro name must be an identifier"));
            return;
        };
        let mut i = 1;
        let params = match rest.get(1) {
            Some(t) if t.is_punct(Punct::LParen) && t.glued => {
                let mut ps = Vec::new();
                i = 2;
                loop {
                    match rest.get(i) {
                        Some(t) if t.is_punct(Punct::RParen) => {
                            i += 1;
                            break;
                        }
                        Some(t) if t.is_punct(Punct::Dots) => ps.push("__VA_ARGS__".to_string()),
                        Some(t) if t.is_punct(Punct::Comma) => {}
                        Some(t) => match self.word(t) {
                            Some(w) => ps.push(w),
                            None => {
                                self.diags.push(Diagnostic::error(t.span, "bad macro parameter list"));
                                return;
                            }
                        },
                        None => {
                            self.diags.push(Diagnostic::error(span, "unterminated macro parameter list"));
                            return;
                        }
                    }
                    i += 1;
                }
                Some(ps)
            }
            _ => None,
        };
        let body = rest.get(i..).unwrap_or(&[]).to_vec();
        for t in &body {
            if let TokenKind::Error(msg) = t.kind {
                self.diags.push(Diagnostic::error(t.span, self.names.text(msg)));
            }
        }
        self.macros.insert(name, Rc::new(Macro { params, body }));
    }

    // ------------------------------------------------------------ expansion

    /// Fully macro-expand a token list (rescanning, with hide sets so no macro expands inside
    /// its own expansion).
    fn expand(&mut self, input: Vec<Token>, nesting: u32) -> Vec<Token> {
        if nesting > MAX_EXPAND_NESTING || !input.iter().any(|t| self.is_macro_name(t)) {
            return input;
        }
        let empty: Hide = Rc::new(Vec::new());
        let mut queue: VecDeque<(Token, Hide)> = input.into_iter().map(|t| (t, empty.clone())).collect();
        let mut out = Vec::new();
        while let Some((tok, hide)) = queue.pop_front() {
            self.steps += 1;
            if self.steps > MAX_EXPANSION_STEPS {
                if self.steps == MAX_EXPANSION_STEPS + 1 {
                    self.diags.push(Diagnostic::error(tok.span, "macro expansion is too large"));
                }
                out.push(tok);
                out.extend(queue.into_iter().map(|(t, _)| t));
                return out;
            }
            if !self.is_macro_name(&tok) {
                out.push(tok);
                continue;
            }
            let Some(name) = self.word(&tok) else {
                out.push(tok);
                continue;
            };
            let Some(mac) = self.macros.get(&name).cloned() else {
                out.push(tok);
                continue;
            };
            if hide.contains(&name) {
                out.push(tok);
                continue;
            }
            let mut new_hide = (*hide).clone();
            new_hide.push(name.clone());
            let new_hide: Hide = Rc::new(new_hide);
            let body = match &mac.params {
                None => self.substitute(&mac, &[], nesting),
                Some(params) => {
                    if !queue.front().is_some_and(|(t, _)| t.is_punct(Punct::LParen)) {
                        out.push(tok);
                        continue;
                    }
                    let Some(args) = take_args(&mut queue, params.last().map(String::as_str) == Some("__VA_ARGS__"), params.len()) else {
                        self.diags.push(Diagnostic::error(tok.span, format!("unterminated call of macro `{name}`")));
                        continue;
                    };
                    let arity_ok = args.len() == params.len() || (params.is_empty() && args.len() == 1 && args[0].is_empty());
                    if !arity_ok {
                        self.diags.push(Diagnostic::error(
                            tok.span,
                            format!("macro `{name}` takes {} argument(s), {} given", params.len(), args.len()),
                        ));
                        continue;
                    }
                    self.substitute(&mac, &args, nesting)
                }
            };
            for (k, mut t) in body.into_iter().enumerate().rev() {
                if k == 0 {
                    t.glued = tok.glued;
                    t.line_start = tok.line_start;
                }
                queue.push_front((t, new_hide.clone()));
            }
        }
        out
    }

    /// Is the token the name of a defined macro? (No allocation: this runs on every token.)
    fn is_macro_name(&self, t: &Token) -> bool {
        match t.kind {
            TokenKind::Ident(s) => self.macros.contains_key(self.names.text(s)),
            TokenKind::Keyword(k) => self.macros.contains_key(k.as_str()),
            _ => false,
        }
    }

    /// Replace parameters in a macro body, apply `#` and `##`.
    fn substitute(&mut self, mac: &Macro, args: &[Vec<Token>], nesting: u32) -> Vec<Token> {
        enum Piece {
            Tok(Token),
            Paste,
            Empty,
        }
        let params: &[String] = mac.params.as_deref().unwrap_or(&[]);
        let param_index = |names: &Interner, t: &Token| word_in(names, t).and_then(|w| params.iter().position(|p| p == w));
        let body = &mac.body;
        let mut pieces: Vec<Piece> = Vec::new();
        let mut i = 0;
        while i < body.len() {
            let t = &body[i];
            if mac.params.is_some() && t.is_punct(Punct::Hash) {
                if let Some(p) = body.get(i + 1).and_then(|n| param_index(&self.names, n)) {
                    let text = self.join(args.get(p).map(Vec::as_slice).unwrap_or(&[]));
                    let escaped = text.replace('\\', "\\\\").replace('"', "\\\"");
                    let tok = self.synthesize(&format!("\"{escaped}\""), t);
                    pieces.extend(tok.into_iter().map(Piece::Tok));
                    i += 2;
                    continue;
                }
            }
            if t.is_punct(Punct::HashHash) {
                pieces.push(Piece::Paste);
                i += 1;
                continue;
            }
            if let Some(p) = param_index(&self.names, t) {
                let arg = args.get(p).cloned().unwrap_or_default();
                let next_is_paste = body.get(i + 1).is_some_and(|n| n.is_punct(Punct::HashHash));
                let prev_is_paste = matches!(pieces.last(), Some(Piece::Paste));
                let toks = if next_is_paste || prev_is_paste { arg } else { self.expand(arg, nesting + 1) };
                if toks.is_empty() {
                    pieces.push(Piece::Empty);
                }
                for (k, mut a) in toks.into_iter().enumerate() {
                    if k == 0 {
                        a.glued = t.glued;
                    }
                    pieces.push(Piece::Tok(a));
                }
                i += 1;
                continue;
            }
            pieces.push(Piece::Tok(*t));
            i += 1;
        }
        // Pasting: `a ## b` joins the spellings and re-lexes them.
        let mut out: Vec<Token> = Vec::new();
        let mut pending_paste = false;
        let mut last_empty = false;
        for p in pieces {
            match p {
                Piece::Paste => pending_paste = true,
                Piece::Empty => {
                    last_empty = true;
                    if pending_paste {
                        pending_paste = false;
                    }
                }
                Piece::Tok(t) => {
                    if pending_paste && !last_empty {
                        if let Some(left) = out.pop() {
                            let text = format!("{}{}", self.spelling(&left), self.spelling(&t));
                            let made = self.synthesize(&text, &left);
                            if made.len() != 1 {
                                self.diags.push(Diagnostic::error(
                                    t.span,
                                    format!("pasting `{}` and `{}` does not give a valid token", self.spelling(&left), self.spelling(&t)),
                                ));
                                out.push(left);
                                out.push(t);
                            } else {
                                out.extend(made);
                            }
                        } else {
                            out.push(t);
                        }
                    } else {
                        out.push(t);
                    }
                    pending_paste = false;
                    last_empty = false;
                }
            }
        }
        out
    }

    /// Lex `text` as a new virtual file; tokens take `like`'s layout flags.
    fn synthesize(&mut self, text: &str, like: &Token) -> Vec<Token> {
        let file = self.sources.add(PathBuf::from("<macro expansion>"), text.to_string());
        let mut toks = lex(file, text, &mut self.names);
        toks.retain(|t| t.kind != TokenKind::Eof);
        for t in toks.iter_mut() {
            t.glued = like.glued;
            t.line_start = false;
        }
        toks
    }

    // ------------------------------------------------------------ #if expressions

    fn eval_condition(&mut self, toks: Vec<Token>, span: Span) -> bool {
        // `defined X` / `defined(X)` first, before macro expansion.
        let mut resolved = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            let t = &toks[i];
            if self.word(t).as_deref() == Some("defined") {
                let (name, used) = match toks.get(i + 1) {
                    Some(p) if p.is_punct(Punct::LParen) => {
                        let n = toks.get(i + 2).and_then(|t| self.word(t));
                        let closed = toks.get(i + 3).is_some_and(|c| c.is_punct(Punct::RParen));
                        if !closed {
                            self.diags.push(Diagnostic::error(t.span, "expected `defined(NAME)`"));
                            return false;
                        }
                        (n, 4)
                    }
                    Some(n) => (self.word(n), 2),
                    None => (None, 1),
                };
                let Some(name) = name else {
                    self.diags.push(Diagnostic::error(t.span, "`defined` needs a macro name"));
                    return false;
                };
                let v = u32::from(self.macros.contains_key(&name));
                resolved.push(self.int_token(v.into(), t));
                i += used;
                continue;
            }
            resolved.push(*t);
            i += 1;
        }
        let expanded = self.expand(resolved, 0);
        let toks: Vec<Token> = expanded
            .into_iter()
            .map(|t| match t.kind {
                TokenKind::Keyword(Keyword::True) => self.int_token(1, &t),
                TokenKind::Ident(_) | TokenKind::Keyword(_) => self.int_token(0, &t),
                _ => t,
            })
            .collect();
        if toks.is_empty() {
            self.diags.push(Diagnostic::error(span, "`#if` with no expression"));
            return false;
        }
        let mut ev = CondEval { toks: &toks, pos: 0, depth: 0, names: &self.names };
        match ev.ternary() {
            Ok(v) if ev.pos == toks.len() => v != 0,
            Ok(_) => {
                let t = &toks[ev.pos];
                let found = crate::token::describe(&t.kind, &self.names);
                self.diags.push(Diagnostic::error(t.span, format!("unexpected {found} in `#if` expression")));
                false
            }
            Err((sp, msg)) => {
                self.diags.push(Diagnostic::error(sp.unwrap_or(span), msg));
                false
            }
        }
    }
}

impl Preprocessor<'_> {
    fn int_token(&mut self, v: i128, like: &Token) -> Token {
        let lit = self.names.add_int(crate::ast::IntLit { value: v.into(), width: None });
        Token { kind: TokenKind::Int(lit), ..*like }
    }

    /// The identifier or keyword spelling of a token (directive and macro names may be keywords).
    fn word(&self, t: &Token) -> Option<String> {
        word_in(&self.names, t).map(str::to_string)
    }
}

/// The identifier or keyword spelling of a token, its texts in `names`.
fn word_in<'n>(names: &'n Interner, t: &Token) -> Option<&'n str> {
    match t.kind {
        TokenKind::Ident(s) => Some(names.text(s)),
        TokenKind::Keyword(k) => Some(k.as_str()),
        _ => None,
    }
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Take `( a, b, ... )` from the front of the queue; `None` if it does not close.
fn take_args(queue: &mut VecDeque<(Token, Hide)>, variadic: bool, nparams: usize) -> Option<Vec<Vec<Token>>> {
    let closes = {
        let mut depth = 0i64;
        let mut found = false;
        for (t, _) in queue.iter() {
            if t.is_punct(Punct::LParen) {
                depth += 1;
            } else if t.is_punct(Punct::RParen) {
                depth -= 1;
                if depth == 0 {
                    found = true;
                    break;
                }
            }
        }
        found
    };
    if !closes {
        return None;
    }
    queue.pop_front();
    let mut args: Vec<Vec<Token>> = vec![Vec::new()];
    let mut depth = 0i64;
    while let Some((t, _)) = queue.pop_front() {
        if t.is_punct(Punct::RParen) && depth == 0 {
            break;
        }
        if t.is_punct(Punct::LParen) {
            depth += 1;
        } else if t.is_punct(Punct::RParen) {
            depth -= 1;
        }
        let in_variadic = variadic && args.len() == nparams;
        if t.is_punct(Punct::Comma) && depth == 0 && !in_variadic {
            args.push(Vec::new());
            continue;
        }
        if let Some(last) = args.last_mut() {
            last.push(t);
        }
    }
    Some(args)
}

/// Integer expression evaluator for `#if` (C semantics on i128, wrapping; `/ 0` is an error).
struct CondEval<'t> {
    toks: &'t [Token],
    pos: usize,
    depth: u32,
    names: &'t Interner,
}

type EvalResult = Result<i128, (Option<Span>, String)>;

impl CondEval<'_> {
    fn peek(&self) -> Option<&Token> {
        self.toks.get(self.pos)
    }

    fn at(&self, p: Punct) -> bool {
        self.peek().is_some_and(|t| t.is_punct(p))
    }

    fn err<T>(&self, msg: &str) -> Result<T, (Option<Span>, String)> {
        let found = self.peek().map(|t| crate::token::describe(&t.kind, self.names)).unwrap_or_else(|| "end of line".into());
        Err((self.peek().map(|t| t.span), format!("invalid `#if` expression: {msg}, found {found}")))
    }

    fn ternary(&mut self) -> EvalResult {
        self.depth += 1;
        if self.depth > 64 {
            return self.err("nesting too deep");
        }
        let c = self.binary(0)?;
        let r = if self.at(Punct::Question) {
            self.pos += 1;
            let a = self.ternary()?;
            if !self.at(Punct::Colon) {
                return self.err("expected `:`");
            }
            self.pos += 1;
            let b = self.ternary()?;
            if c != 0 {
                a
            } else {
                b
            }
        } else {
            c
        };
        self.depth -= 1;
        Ok(r)
    }

    /// (operator, binding power, token count)
    fn op(&self) -> Option<(&'static str, u8, usize)> {
        let t = self.peek()?;
        let TokenKind::Punct(p) = t.kind else { return None };
        Some(match p {
            Punct::OrOr => ("||", 1, 1),
            Punct::AndAnd => ("&&", 2, 1),
            Punct::Pipe => ("|", 3, 1),
            Punct::Caret => ("^", 4, 1),
            Punct::Amp => ("&", 5, 1),
            Punct::EqEq => ("==", 6, 1),
            Punct::Ne => ("!=", 6, 1),
            Punct::Lt => ("<", 7, 1),
            Punct::Le => ("<=", 7, 1),
            Punct::Ge => (">=", 7, 1),
            Punct::Gt => {
                let next = self.toks.get(self.pos + 1);
                if next.is_some_and(|n| n.glued && n.is_punct(Punct::Gt)) {
                    (">>", 8, 2)
                } else {
                    (">", 7, 1)
                }
            }
            Punct::Shl => ("<<", 8, 1),
            Punct::Plus => ("+", 9, 1),
            Punct::Minus => ("-", 9, 1),
            Punct::Star => ("*", 10, 1),
            Punct::Slash => ("/", 10, 1),
            Punct::Percent => ("%", 10, 1),
            _ => return None,
        })
    }

    fn binary(&mut self, min_bp: u8) -> EvalResult {
        let mut lhs = self.unary()?;
        while let Some((op, bp, n)) = self.op() {
            if bp < min_bp {
                break;
            }
            let op_span = self.peek().map(|t| t.span);
            self.pos += n;
            let rhs = self.binary(bp + 1)?;
            lhs = match op {
                "||" => i128::from(lhs != 0 || rhs != 0),
                "&&" => i128::from(lhs != 0 && rhs != 0),
                "|" => lhs | rhs,
                "^" => lhs ^ rhs,
                "&" => lhs & rhs,
                "==" => i128::from(lhs == rhs),
                "!=" => i128::from(lhs != rhs),
                "<" => i128::from(lhs < rhs),
                "<=" => i128::from(lhs <= rhs),
                ">" => i128::from(lhs > rhs),
                ">=" => i128::from(lhs >= rhs),
                "<<" => lhs.wrapping_shl((rhs & 127) as u32),
                ">>" => lhs.wrapping_shr((rhs & 127) as u32),
                "+" => lhs.wrapping_add(rhs),
                "-" => lhs.wrapping_sub(rhs),
                "*" => lhs.wrapping_mul(rhs),
                "/" | "%" => {
                    if rhs == 0 {
                        return Err((op_span, "division by zero in `#if` expression".into()));
                    }
                    if op == "/" {
                        lhs.wrapping_div(rhs)
                    } else {
                        lhs.wrapping_rem(rhs)
                    }
                }
                _ => lhs,
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> EvalResult {
        self.depth += 1;
        if self.depth > 128 {
            return self.err("nesting too deep");
        }
        let Some(t) = self.peek() else { return self.err("expected a value") };
        let r = match &t.kind {
            TokenKind::Punct(Punct::Not) => {
                self.pos += 1;
                i128::from(self.unary()? == 0)
            }
            TokenKind::Punct(Punct::Tilde) => {
                self.pos += 1;
                !self.unary()?
            }
            TokenKind::Punct(Punct::Minus) => {
                self.pos += 1;
                self.unary()?.wrapping_neg()
            }
            TokenKind::Punct(Punct::Plus) => {
                self.pos += 1;
                self.unary()?
            }
            TokenKind::Punct(Punct::LParen) => {
                self.pos += 1;
                let v = self.ternary()?;
                if !self.at(Punct::RParen) {
                    return self.err("expected `)`");
                }
                self.pos += 1;
                v
            }
            TokenKind::Int(lit) => {
                let v = self.names.int(*lit).value.to_i128().unwrap_or(i128::MAX);
                self.pos += 1;
                v
            }
            _ => return self.err("expected a value"),
        };
        self.depth -= 1;
        Ok(r)
    }
}

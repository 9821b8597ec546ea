//! Recursive-descent parser for P4_16 v1.2.5 over preprocessed tokens, with Pratt expression
//! parsing (`expr.rs`), types (`types.rs`), statements (`stmt.rs`), declarations (`decl.rs`) and
//! annotations (`annot.rs`).
//!
//! Invariants:
//! - never panics and always terminates: every loop either consumes a token or exits, nesting is
//!   capped at [`MAX_DEPTH`], and the token vector always ends with `Eof` (which is never consumed);
//! - an error is reported as `expected X, found Y` at Y's span, then the enclosing list skips to
//!   the next `;` or the matching `}` and carries on (see `Parser::recover`);
//! - the type/expression ambiguities (`a < b` vs `f<T>(..)`, `(T) x` vs `(a) - b`) are settled with
//!   a scoped set of type names, as p4c's lexer feedback does, plus bounded speculation that
//!   restores position and diagnostics when it fails.
//!
//! Beyond the v1.2.5 grammar it accepts what p4c accepts in real programs: table parameter lists
//! (`table t(in bit<32> r) {..}`, kept in `TableDecl::params`), any expression as a width
//! (`bit<2 + 2>`; a top-level `>` ends it), and C-style array declarators (`bit<8> a[16];` in
//! fields, variables and constants, folded into the stack/array type `bit<8>[16]`).

mod annot;
mod decl;
mod expr;
mod stmt;
mod types;

use crate::ast::{Ident, Name, Path, Program};
use crate::diag::Diagnostic;
use crate::span::{SourceMap, Span};
use crate::token::{describe, Interner, Keyword, Punct, Symbol, Token, TokenBuf, TokenKind};
use std::collections::HashMap;

/// Deepest nesting of expressions, statements, types and declarations accepted. Bounded so that
/// hostile input cannot overflow the stack (test threads have 2 MiB).
pub const MAX_DEPTH: u32 = 250;

/// Deepest AST accepted (recursion plus left-nested chains such as `a + b + c`), so that the
/// consumers of the tree, which recurse, cannot overflow the stack either.
pub const MAX_AST_DEPTH: u32 = 400;

/// What a freed or missing token reads as: the end of the input. Never seen by a correct parser
/// (see [`Parser::release_consumed`]); if it were, parsing would stop rather than panic.
static GONE: Token = Token { kind: TokenKind::Eof, span: Span::DUMMY, line_start: true, glued: false };

/// Marker that a diagnostic has already been reported; callers recover.
#[derive(Debug)]
pub(crate) struct Fail;

pub(crate) type PResult<T> = Result<T, Fail>;

pub(crate) struct Parser<'s> {
    /// The tokens; those before the current one are freed as declarations and statements are
    /// finished (see [`Parser::release_consumed`]).
    toks: TokenBuf,
    /// Open speculations: while one is, a position before the current one may be returned to, so
    /// no token is freed.
    hold: u32,
    /// Texts and literals the tokens refer to.
    names: Interner,
    pos: usize,
    pub(crate) diags: Vec<Diagnostic>,
    /// Innermost last; `true` marks a type name, `false` a value that shadows one.
    scopes: Vec<HashMap<String, bool>>,
    depth: u32,
    /// Current AST depth (see [`Parser::deepen`]).
    nest: u32,
    /// Position of the last reported error, to avoid reporting twice at one token.
    last_error_pos: Option<usize>,
    /// Set while parsing the width of `bit<W>`/`int<W>`/`varbit<W>` at top level: a `>` there
    /// closes the type, so it is no operator (cleared again inside any nested `expr()`).
    pub(crate) in_width: bool,
    /// Token positions where `(Type) e` cast speculation already failed: retrying there (as
    /// nested `bit<(bit<(...` would, once per enclosing attempt) would take exponential time.
    pub(crate) failed_casts: std::collections::HashSet<usize>,
    sources: &'s SourceMap,
}

/// Parse a preprocessed token stream (must end with `Eof`), its texts and literals in `names`,
/// into a program.
pub fn parse_tokens(toks: impl Into<TokenBuf>, names: Interner, sources: &SourceMap) -> (Program, Vec<Diagnostic>) {
    let mut toks = toks.into();
    if !matches!(toks.last(), Some(t) if t.kind == TokenKind::Eof) {
        let span = toks.last().map(|t| Span { lo: t.span.hi, ..t.span }).unwrap_or(Span::DUMMY);
        toks.push(Token { kind: TokenKind::Eof, span, line_start: true, glued: false });
    }
    let mut p = Parser::new(toks, names, sources);
    let program = p.program();
    (program, p.diags)
}

impl<'s> Parser<'s> {
    fn new(toks: TokenBuf, names: Interner, sources: &'s SourceMap) -> Parser<'s> {
        Parser { toks, hold: 0, names, pos: 0, diags: Vec::new(), scopes: vec![HashMap::new()], depth: 0, nest: 0, last_error_pos: None, in_width: false, failed_casts: std::collections::HashSet::new(), sources }
    }

    // ------------------------------------------------------------ cursor

    pub(crate) fn peek(&self) -> &Token {
        self.peek_at(0)
    }

    pub(crate) fn peek_at(&self, k: usize) -> &Token {
        let last = self.toks.len().saturating_sub(1);
        self.toks.get((self.pos + k).min(last)).unwrap_or(&GONE)
    }

    /// Free the chunks of tokens wholly before the previous token, unless a speculation is open.
    /// Called between the items of declaration and statement lists: parsing never returns to
    /// an earlier position except to undo a speculation.
    pub(crate) fn release_consumed(&mut self) {
        if self.hold == 0 {
            self.toks.release_before(self.pos.saturating_sub(1));
        }
    }

    pub(crate) fn span(&self) -> Span {
        self.peek().span
    }

    /// Span of the previous token (the end of what was just parsed).
    pub(crate) fn prev_span(&self) -> Span {
        if self.pos == 0 {
            return self.span();
        }
        let i = (self.pos - 1).min(self.toks.len().saturating_sub(1));
        self.toks.get(i).unwrap_or(&GONE).span
    }

    pub(crate) fn bump(&mut self) -> Token {
        let t = *self.peek();
        if t.kind != TokenKind::Eof {
            self.pos += 1;
        }
        t
    }

    pub(crate) fn at_eof(&self) -> bool {
        self.peek().kind == TokenKind::Eof
    }

    pub(crate) fn at(&self, p: Punct) -> bool {
        self.peek().is_punct(p)
    }

    pub(crate) fn at_kw(&self, k: Keyword) -> bool {
        self.peek().is_kw(k)
    }

    pub(crate) fn eat(&mut self, p: Punct) -> bool {
        if self.at(p) {
            self.bump();
            true
        } else {
            false
        }
    }

    pub(crate) fn eat_kw(&mut self, k: Keyword) -> bool {
        if self.at_kw(k) {
            self.bump();
            true
        } else {
            false
        }
    }

    pub(crate) fn expect(&mut self, p: Punct) -> PResult<Span> {
        if self.at(p) {
            Ok(self.bump().span)
        } else {
            Err(self.error_expected(&format!("`{}`", p.as_str())))
        }
    }

    pub(crate) fn expect_kw(&mut self, k: Keyword) -> PResult<Span> {
        if self.at_kw(k) {
            Ok(self.bump().span)
        } else {
            Err(self.error_expected(&format!("`{}`", k.as_str())))
        }
    }

    /// `>` that closes type arguments.
    pub(crate) fn expect_close_angle(&mut self) -> PResult<Span> {
        self.expect(Punct::Gt)
    }

    // ------------------------------------------------------------ diagnostics

    pub(crate) fn error_expected(&mut self, what: &str) -> Fail {
        let tok = *self.peek();
        if let TokenKind::Error(_) = tok.kind {
            // Already reported by the preprocessor when it passed the bad token on.
            self.last_error_pos = Some(self.pos);
            return Fail;
        }
        if let TokenKind::Stray(s) = tok.kind {
            let msg = format!("unexpected character `{}`", self.names.text(s).escape_debug());
            self.error_at(tok.span, msg);
            return Fail;
        }
        let msg = format!("expected {what}, found {}", describe(&tok.kind, &self.names));
        self.error_at(tok.span, msg);
        Fail
    }

    pub(crate) fn error_at(&mut self, span: Span, msg: impl Into<String>) {
        if self.last_error_pos == Some(self.pos) {
            return;
        }
        self.last_error_pos = Some(self.pos);
        self.diags.push(Diagnostic::error(span, msg));
    }

    /// Items of a `{ ... }` list up to (not past) its closing `}`: an item that fails is skipped with
    /// [`Parser::recover`], and every round consumes at least one token, so the loop always ends.
    pub(crate) fn items_until_rbrace<T>(&mut self, mut item: impl FnMut(&mut Self) -> PResult<T>) -> Vec<T> {
        let mut items = Vec::new();
        while !self.at(Punct::RBrace) && !self.at_eof() {
            let before = self.pos;
            match item(self) {
                Ok(x) => items.push(x),
                Err(Fail) => self.recover(),
            }
            if self.pos == before {
                self.bump();
            }
        }
        // Kept for the whole front end: no room left over from growing it (a program of many
        // tables holds thousands of these short lists).
        items.shrink_to_fit();
        items
    }

    /// Skip to just after the next `;` at this nesting level, or just after a `{...}` group that
    /// closes at this level, or to (not past) a `}` that closes the enclosing construct. May
    /// consume nothing; every caller's loop bumps a token when an iteration made no progress.
    pub(crate) fn recover(&mut self) {
        let mut depth = 0u32;
        loop {
            match &self.peek().kind {
                TokenKind::Eof => return,
                TokenKind::Punct(Punct::Semi) if depth == 0 => {
                    self.bump();
                    return;
                }
                TokenKind::Punct(Punct::LBrace) => depth += 1,
                TokenKind::Punct(Punct::RBrace) => {
                    if depth == 0 {
                        // The enclosing list's `}`: leave it (list loops guarantee progress).
                        return;
                    }
                    depth -= 1;
                    if depth == 0 {
                        self.bump();
                        return;
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }

    // ------------------------------------------------------------ nesting guard

    /// `f`, one level of recursion deeper: fails with a diagnostic instead of overflowing the
    /// stack when the input nests too deeply.
    pub(crate) fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        let saved = self.enter()?;
        let r = f(self);
        self.leave(saved);
        r
    }

    /// Enter one level of recursion. Returns the AST-depth budget to restore in [`Self::leave`].
    fn enter(&mut self) -> PResult<u32> {
        if self.depth >= MAX_DEPTH {
            let span = self.span();
            self.error_at(span, format!("nesting too deep (more than {MAX_DEPTH} levels)"));
            return Err(Fail);
        }
        self.depth += 1;
        let saved = self.nest;
        self.deepen()?;
        Ok(saved)
    }

    fn leave(&mut self, saved_nest: u32) {
        self.depth = self.depth.saturating_sub(1);
        self.nest = saved_nest;
    }

    /// Account for one more level of AST depth built by a loop (`a + b + c`, `a.b.c`, `T[1][2]`)
    /// rather than by recursion: the tree is as deep as if it had recursed, and everything that
    /// walks it later (printer, sema, `Drop`) recurses.
    pub(crate) fn deepen(&mut self) -> PResult<()> {
        self.nest += 1;
        if self.nest > MAX_AST_DEPTH {
            let span = self.span();
            self.error_at(span, format!("expression or type too deeply nested (more than {MAX_AST_DEPTH} levels)"));
            return Err(Fail);
        }
        Ok(())
    }

    // ------------------------------------------------------------ speculation

    /// Run `f`; if it fails, rewind position and drop its diagnostics.
    pub(crate) fn speculate<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> Option<T> {
        let (pos, ndiags, last, depth, nest) = (self.pos, self.diags.len(), self.last_error_pos, self.depth, self.nest);
        self.hold += 1;
        let r = f(self);
        self.hold -= 1;
        match r {
            Ok(v) => Some(v),
            Err(Fail) => {
                self.pos = pos;
                self.diags.truncate(ndiags);
                self.last_error_pos = last;
                self.depth = depth;
                self.nest = nest;
                None
            }
        }
    }

    // ------------------------------------------------------------ type-name scopes

    pub(crate) fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }

    pub(crate) fn pop_scope(&mut self) {
        if self.scopes.len() > 1 {
            self.scopes.pop();
        }
    }

    pub(crate) fn declare(&mut self, name: &str, is_type: bool) {
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name.to_string(), is_type);
        }
    }

    pub(crate) fn is_type_name(&self, name: &str) -> bool {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied()).unwrap_or(false)
    }

    // ------------------------------------------------------------ names

    pub(crate) fn at_name(&self) -> bool {
        self.name_of(self.peek()).is_some()
    }

    /// The text of a symbol of this parse's tokens.
    pub(crate) fn text(&self, sym: Symbol) -> &str {
        self.names.text(sym)
    }

    /// The name a token stands for where a `name` is expected, for the syntax tree.
    pub(crate) fn tree_name_of(&mut self, tok: &Token) -> Option<Name> {
        match tok.kind {
            TokenKind::Ident(s) => Some(self.names.name(s)),
            TokenKind::Keyword(k) if k.usable_as_name() => Some(self.keyword_name(k)),
            _ => None,
        }
    }

    /// A keyword's spelling as a name for the syntax tree (interned like identifiers).
    fn keyword_name(&mut self, k: Keyword) -> Name {
        let sym = self.names.intern(k.as_str());
        self.names.name(sym)
    }

    /// The name a token stands for where a `name` is expected.
    pub(crate) fn name_of(&self, tok: &Token) -> Option<&str> {
        match tok.kind {
            TokenKind::Ident(s) => Some(self.names.text(s)),
            TokenKind::Keyword(k) if k.usable_as_name() => Some(k.as_str()),
            _ => None,
        }
    }

    /// `name`: an identifier or a keyword the grammar allows as a name.
    pub(crate) fn name(&mut self) -> PResult<Ident> {
        let tok = *self.peek();
        match self.tree_name_of(&tok) {
            Some(name) => {
                let span = self.bump().span;
                Ok(Ident { name, span })
            }
            None => Err(self.error_expected("a name")),
        }
    }

    /// A member name after `.`: any identifier or keyword.
    pub(crate) fn member_name(&mut self) -> PResult<Ident> {
        let tok = self.peek();
        let name = match tok.kind {
            TokenKind::Ident(s) => self.names.name(s),
            TokenKind::Keyword(k) => self.keyword_name(k),
            _ => return Err(self.error_expected("a member name")),
        };
        let span = self.bump().span;
        Ok(Ident { name, span })
    }

    /// `.`? name
    pub(crate) fn path(&mut self) -> PResult<Path> {
        let global = self.eat(Punct::Dot);
        let name = self.name()?;
        Ok(Path { global, name })
    }

    /// The source text of a token, as written.
    pub(crate) fn spelling(&self, tok: &Token) -> String {
        let from_source = self
            .sources
            .get(tok.span.file)
            .and_then(|f| f.text.get(tok.span.lo as usize..tok.span.hi as usize))
            .map(str::to_string);
        match (&tok.kind, from_source) {
            (TokenKind::Eof, _) => String::new(),
            (_, Some(s)) if !s.is_empty() => s,
            (k, _) => crate::token::spell(k, &self.names),
        }
    }

    // ------------------------------------------------------------ program

    fn program(&mut self) -> Program {
        let mut decls = Vec::new();
        while !self.at_eof() {
            self.release_consumed();
            if self.diags.len() > crate::MAX_DIAGNOSTICS {
                // Give up: the rest would only produce noise (the caller truncates the list).
                break;
            }
            if self.eat(Punct::Semi) {
                continue;
            }
            let start = self.pos;
            match self.declaration() {
                Ok(d) => decls.push(d),
                Err(Fail) => self.recover(),
            }
            if self.pos == start {
                self.bump();
            }
        }
        Program { decls }
    }
}

//! The P4_16 lexer: text of one file → tokens (spec v1.2.5 §6.4).
//!
//! Invariants: never panics on any input; always ends with one `Eof` token; every token's span lies
//! inside the file; lexing problems become `TokenKind::Error` tokens (not diagnostics) so the
//! preprocessor can ignore them in skipped `#if` regions. Comments and `\`-newline continuations are
//! whitespace; a newline inside a block comment does not start a new logical line (as in C).

use crate::ast::IntLit;
use crate::span::{FileId, Span};
use crate::token::{Interner, Keyword, Punct, Token, TokenKind, PUNCTS};
use num_bigint::BigInt;

/// Lex a whole file; identifier, string and error texts and integer literals go to `names`.
pub fn lex(file: FileId, text: &str, names: &mut Interner) -> Vec<Token> {
    let mut lx = Lexer::new(file, text);
    let mut tokens = Vec::new();
    loop {
        let t = lx.next_token(names);
        tokens.push(t);
        if t.kind == TokenKind::Eof {
            return tokens;
        }
    }
}

/// A lexer that hands out one token at a time ([`Lexer::next_token`]), so a file's tokens need not
/// be held all at once: the preprocessor takes them as it goes.
pub struct Lexer<'a> {
    file: FileId,
    src: &'a [u8],
    pos: usize,
    /// The next token starts a logical line.
    line_start: bool,
    /// No whitespace or comment since the previous token.
    glued: bool,
}

/// The entries of [`PUNCTS`] whose spelling starts with byte `b`, longest first (the table's
/// order), built once: the lexer's hot loop then tries a handful of candidates, not all fifty.
fn puncts_starting_with(b: u8) -> &'static [(&'static str, Punct)] {
    static BY_FIRST_BYTE: std::sync::OnceLock<Vec<Vec<(&'static str, Punct)>>> = std::sync::OnceLock::new();
    let table = BY_FIRST_BYTE.get_or_init(|| {
        let mut t = vec![Vec::new(); 256];
        for &(spelling, p) in PUNCTS {
            if let Some(&first) = spelling.as_bytes().first() {
                t[usize::from(first)].push((spelling, p));
            }
        }
        t
    });
    table.get(usize::from(b)).map(Vec::as_slice).unwrap_or(&[])
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl<'a> Lexer<'a> {
    pub fn new(file: FileId, text: &'a str) -> Lexer<'a> {
        // A UTF-8 byte-order mark is not part of the program.
        let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
        Lexer { file, src: text.as_bytes(), pos: start, line_start: true, glued: false }
    }

    fn peek(&self, k: usize) -> u8 {
        self.src.get(self.pos + k).copied().unwrap_or(0)
    }

    fn span(&self, lo: usize, hi: usize) -> Span {
        Span::new(self.file, lo as u32, hi as u32)
    }

    fn text(&self, lo: usize, hi: usize) -> &'a str {
        std::str::from_utf8(self.src.get(lo..hi).unwrap_or(&[])).unwrap_or("")
    }

    /// The next token; `Eof` at the end of the text, and again on every later call.
    pub fn next_token(&mut self, names: &mut Interner) -> Token {
        // Skip whitespace and comments, tracking layout.
        let before = self.pos;
        loop {
            match self.peek(0) {
                b'\n' => {
                    self.line_start = true;
                    self.pos += 1;
                }
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => self.pos += 1,
                b'\\' if self.peek(1) == b'\n' => self.pos += 2,
                b'\\' if self.peek(1) == b'\r' && self.peek(2) == b'\n' => self.pos += 3,
                b'/' if self.peek(1) == b'/' => {
                    // As in C, a `\` at the end of a `//` comment line continues the comment.
                    while self.pos < self.src.len() && self.src[self.pos] != b'\n' {
                        if self.src[self.pos] == b'\\' && self.peek(1) == b'\n' {
                            self.pos += 1;
                        }
                        self.pos += 1;
                    }
                }
                b'/' if self.peek(1) == b'*' => {
                    let lo = self.pos;
                    self.pos += 2;
                    loop {
                        if self.pos >= self.src.len() {
                            // The comment ran to the end of the text: the `Eof` comes next.
                            self.glued = false;
                            let kind = TokenKind::Error(names.intern("unterminated block comment"));
                            return Token { kind, span: self.span(lo, lo + 2), line_start: self.line_start, glued: false };
                        }
                        if self.src[self.pos] == b'*' && self.peek(1) == b'/' {
                            self.pos += 2;
                            break;
                        }
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
        if self.pos != before {
            self.glued = false;
        }
        if self.pos >= self.src.len() {
            let span = self.span(self.src.len(), self.src.len());
            return Token { kind: TokenKind::Eof, span, line_start: self.line_start, glued: self.glued };
        }
        let lo = self.pos;
        let kind = self.token(names);
        // Every branch of `token` consumes at least one byte; guard anyway against a stall.
        if self.pos == lo {
            self.pos += 1;
        }
        let tok = Token { kind, span: self.span(lo, self.pos), line_start: self.line_start, glued: self.glued };
        self.line_start = false;
        self.glued = true;
        tok
    }

    fn token(&mut self, names: &mut Interner) -> TokenKind {
        let b = self.peek(0);
        if is_ident_start(b) {
            let lo = self.pos;
            while is_ident_char(self.peek(0)) {
                self.pos += 1;
            }
            let word = self.text(lo, self.pos);
            if word == "_" {
                return TokenKind::Punct(Punct::Underscore);
            }
            return match Keyword::lookup(word) {
                Some(kw) => TokenKind::Keyword(kw),
                None => TokenKind::Ident(names.intern(word)),
            };
        }
        if b.is_ascii_digit() {
            return self.number(names);
        }
        if b == b'"' {
            return self.string(names);
        }
        let rest = self.src.get(self.pos..).unwrap_or(&[]);
        for (spelling, p) in puncts_starting_with(b) {
            if rest.starts_with(spelling.as_bytes()) {
                self.pos += spelling.len();
                return TokenKind::Punct(*p);
            }
        }
        // Not a P4 character: consume one UTF-8 scalar so the span covers it whole.
        let len = match b {
            0xF0..=0xFF => 4,
            0xE0..=0xEF => 3,
            0xC0..=0xDF => 2,
            _ => 1,
        };
        let lo = self.pos;
        self.pos = (self.pos + len).min(self.src.len());
        let shown = String::from_utf8_lossy(self.src.get(lo..self.pos).unwrap_or(&[])).into_owned();
        TokenKind::Stray(names.intern(&shown))
    }

    fn string(&mut self, names: &mut Interner) -> TokenKind {
        let lo = self.pos;
        self.pos += 1;
        while self.pos < self.src.len() {
            match self.src[self.pos] {
                b'"' => {
                    self.pos += 1;
                    let text = String::from_utf8_lossy(&self.src[lo + 1..self.pos - 1]);
                    return TokenKind::Str(names.intern(&text));
                }
                b'\\' => self.pos += 2,
                _ => self.pos += 1,
            }
        }
        // Unterminated: report at the quote, and resume after the quote's line so the rest of the
        // file is still lexed (and so skipped `#if 0` text with a stray quote stays harmless).
        self.pos = lo + 1;
        while self.pos < self.src.len() && self.src[self.pos] != b'\n' {
            self.pos += 1;
        }
        error(names, "unterminated string literal")
    }

    /// `[0-9][0-9_]*` optionally followed by `w`/`s` and a based literal; or a based literal
    /// `0[xXoObBdD][digits_]+`.
    fn number(&mut self, names: &mut Interner) -> TokenKind {
        let lo = self.pos;
        let mut width = None;
        // A width prefix is a plain decimal number immediately followed by `w` or `s` and a digit.
        let mut p = self.pos;
        while self.src.get(p).is_some_and(|b| b.is_ascii_digit()) {
            p += 1;
        }
        if let Some(&ws @ (b'w' | b's')) = self.src.get(p) {
            if self.src.get(p + 1).is_some_and(|b| b.is_ascii_digit()) {
                let w = self.text(lo, p);
                match w.parse::<u32>() {
                    Ok(w) => width = Some((w, ws == b's')),
                    Err(_) => {
                        self.skip_word();
                        return error(names, &format!("integer literal width `{w}` is too large"));
                    }
                }
                self.pos = p + 1;
            }
        }
        let (radix, digits_lo) = match (self.peek(0), self.peek(1)) {
            (b'0', b'x' | b'X') => (16, self.pos + 2),
            (b'0', b'o' | b'O') => (8, self.pos + 2),
            (b'0', b'b' | b'B') => (2, self.pos + 2),
            (b'0', b'd' | b'D') => (10, self.pos + 2),
            _ => (10, self.pos),
        };
        self.pos = digits_lo;
        while is_ident_char(self.peek(0)) {
            self.pos += 1;
        }
        let digits: String = self.text(digits_lo, self.pos).chars().filter(|&c| c != '_').collect();
        let whole = self.text(lo, self.pos);
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return error(names, &format!("malformed integer literal `{whole}`"));
        }
        match BigInt::parse_bytes(digits.as_bytes(), radix) {
            Some(value) => TokenKind::Int(names.add_int(IntLit { value, width })),
            None => error(names, &format!("malformed integer literal `{whole}`")),
        }
    }

    fn skip_word(&mut self) {
        while is_ident_char(self.peek(0)) {
            self.pos += 1;
        }
    }
}

fn error(names: &mut Interner, msg: &str) -> TokenKind {
    TokenKind::Error(names.intern(msg))
}

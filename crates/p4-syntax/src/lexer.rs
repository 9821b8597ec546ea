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
    // A UTF-8 byte-order mark is not part of the program.
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    // Real programs average well over 3 bytes per token; reserving avoids repeated regrowth.
    let mut lx = Lexer { file, src: text.as_bytes(), pos: start, tokens: Vec::with_capacity(text.len() / 3 + 1), names };
    lx.run();
    lx.tokens
}

struct Lexer<'a, 'n> {
    file: FileId,
    src: &'a [u8],
    pos: usize,
    tokens: Vec<Token>,
    names: &'n mut Interner,
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

impl<'a> Lexer<'a, '_> {
    fn peek(&self, k: usize) -> u8 {
        self.src.get(self.pos + k).copied().unwrap_or(0)
    }

    fn span(&self, lo: usize, hi: usize) -> Span {
        Span::new(self.file, lo as u32, hi as u32)
    }

    fn text(&self, lo: usize, hi: usize) -> &'a str {
        std::str::from_utf8(self.src.get(lo..hi).unwrap_or(&[])).unwrap_or("")
    }

    fn run(&mut self) {
        let mut line_start = true;
        let mut glued = false;
        loop {
            // Skip whitespace and comments, tracking layout.
            let before = self.pos;
            loop {
                match self.peek(0) {
                    b'\n' => {
                        line_start = true;
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
                                let span = self.span(lo, lo + 2);
                                let msg = self.names.intern("unterminated block comment");
                                self.push(TokenKind::Error(msg), span, line_start, false);
                                break;
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
                glued = false;
            }
            if self.pos >= self.src.len() {
                let span = self.span(self.src.len(), self.src.len());
                self.push(TokenKind::Eof, span, line_start, glued);
                return;
            }
            let lo = self.pos;
            let kind = self.token();
            // Every branch of `token` consumes at least one byte; guard anyway against a stall.
            if self.pos == lo {
                self.pos += 1;
            }
            let span = self.span(lo, self.pos);
            self.push(kind, span, line_start, glued);
            line_start = false;
            glued = true;
        }
    }

    fn push(&mut self, kind: TokenKind, span: Span, line_start: bool, glued: bool) {
        self.tokens.push(Token { kind, span, line_start, glued });
    }

    fn token(&mut self) -> TokenKind {
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
                None => TokenKind::Ident(self.names.intern(word)),
            };
        }
        if b.is_ascii_digit() {
            return self.number();
        }
        if b == b'"' {
            return self.string();
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
        self.error(&format!("unexpected character `{}`", shown.escape_debug()))
    }

    fn string(&mut self) -> TokenKind {
        let lo = self.pos;
        self.pos += 1;
        while self.pos < self.src.len() {
            match self.src[self.pos] {
                b'"' => {
                    self.pos += 1;
                    let text = String::from_utf8_lossy(&self.src[lo + 1..self.pos - 1]);
                    return TokenKind::Str(self.names.intern(&text));
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
        self.error("unterminated string literal")
    }

    fn error(&mut self, msg: &str) -> TokenKind {
        TokenKind::Error(self.names.intern(msg))
    }

    /// `[0-9][0-9_]*` optionally followed by `w`/`s` and a based literal; or a based literal
    /// `0[xXoObBdD][digits_]+`.
    fn number(&mut self) -> TokenKind {
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
                        return self.error(&format!("integer literal width `{w}` is too large"));
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
            return self.error(&format!("malformed integer literal `{whole}`"));
        }
        match BigInt::parse_bytes(digits.as_bytes(), radix) {
            Some(value) => TokenKind::Int(self.names.add_int(IntLit { value, width })),
            None => self.error(&format!("malformed integer literal `{whole}`")),
        }
    }

    fn skip_word(&mut self) {
        while is_ident_char(self.peek(0)) {
            self.pos += 1;
        }
    }
}

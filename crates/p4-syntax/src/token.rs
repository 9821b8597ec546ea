//! Tokens shared by the lexer, the preprocessor and the parser.
//!
//! Invariant: every token has a span into the file its characters came from (for tokens made by
//! macro pasting or stringification, a virtual file registered in the `SourceMap`). Two layout
//! flags survive preprocessing: `line_start` (first token on a logical line — drives `#` directive
//! detection) and `glued` (no whitespace or comment before it — lets the parser join `>` `>` into a
//! shift, the way p4c does, so that `bit<bit<8>>` nests without a special case).

use crate::ast::IntLit;
use crate::span::Span;

/// P4_16 keywords (spec v1.2.5 §6.3 and the grammar's terminals).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Keyword {
    Abstract,
    Action,
    Actions,
    Apply,
    Bool,
    Bit,
    Break,
    Const,
    Continue,
    Control,
    Default,
    Else,
    Entries,
    Enum,
    Error,
    Exit,
    Extern,
    False,
    For,
    Header,
    HeaderUnion,
    If,
    In,
    Inout,
    Int,
    Key,
    List,
    MatchKind,
    Out,
    Package,
    Parser,
    Priority,
    Return,
    Select,
    State,
    String,
    Struct,
    Switch,
    Table,
    This,
    Transition,
    True,
    Tuple,
    Type,
    Typedef,
    ValueSet,
    Varbit,
    Void,
}

const KEYWORDS: &[(&str, Keyword)] = &[
    ("abstract", Keyword::Abstract),
    ("action", Keyword::Action),
    ("actions", Keyword::Actions),
    ("apply", Keyword::Apply),
    ("bool", Keyword::Bool),
    ("bit", Keyword::Bit),
    ("break", Keyword::Break),
    ("const", Keyword::Const),
    ("continue", Keyword::Continue),
    ("control", Keyword::Control),
    ("default", Keyword::Default),
    ("else", Keyword::Else),
    ("entries", Keyword::Entries),
    ("enum", Keyword::Enum),
    ("error", Keyword::Error),
    ("exit", Keyword::Exit),
    ("extern", Keyword::Extern),
    ("false", Keyword::False),
    ("for", Keyword::For),
    ("header", Keyword::Header),
    ("header_union", Keyword::HeaderUnion),
    ("if", Keyword::If),
    ("in", Keyword::In),
    ("inout", Keyword::Inout),
    ("int", Keyword::Int),
    ("key", Keyword::Key),
    ("list", Keyword::List),
    ("match_kind", Keyword::MatchKind),
    ("out", Keyword::Out),
    ("package", Keyword::Package),
    ("parser", Keyword::Parser),
    ("priority", Keyword::Priority),
    ("return", Keyword::Return),
    ("select", Keyword::Select),
    ("state", Keyword::State),
    ("string", Keyword::String),
    ("struct", Keyword::Struct),
    ("switch", Keyword::Switch),
    ("table", Keyword::Table),
    ("this", Keyword::This),
    ("transition", Keyword::Transition),
    ("true", Keyword::True),
    ("tuple", Keyword::Tuple),
    ("type", Keyword::Type),
    ("typedef", Keyword::Typedef),
    ("value_set", Keyword::ValueSet),
    ("varbit", Keyword::Varbit),
    ("void", Keyword::Void),
];

impl Keyword {
    /// The keyword spelled `s`, if any.
    pub fn lookup(s: &str) -> Option<Keyword> {
        // Every keyword starts with a lowercase letter and is 2..=12 bytes long: most identifiers
        // are rejected without a table scan.
        if !(2..=12).contains(&s.len()) || !s.as_bytes()[0].is_ascii_lowercase() {
            return None;
        }
        KEYWORDS.iter().find(|(k, _)| *k == s).map(|(_, kw)| *kw)
    }

    pub fn as_str(self) -> &'static str {
        KEYWORDS.iter().find(|(_, kw)| *kw == self).map(|(k, _)| *k).unwrap_or("?")
    }

    /// Keywords the grammar also accepts where a name is expected (`nonTypeName` and `name`).
    pub fn usable_as_name(self) -> bool {
        matches!(
            self,
            Keyword::Apply
                | Keyword::Key
                | Keyword::Actions
                | Keyword::State
                | Keyword::Entries
                | Keyword::Type
                | Keyword::Priority
                | Keyword::List
        )
    }
}

/// Operators and punctuation. `>>` and `>>=` are never single tokens (see the module head).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Punct {
    LParen,
    RParen,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Lt,
    Gt,
    Le,
    Ge,
    EqEq,
    Ne,
    Assign,
    Semi,
    Comma,
    Dot,
    DotDot,
    Dots,
    Colon,
    Question,
    Not,
    Tilde,
    Minus,
    Plus,
    Star,
    Slash,
    Percent,
    Amp,
    Pipe,
    Caret,
    AndAnd,
    OrOr,
    Mask,
    Shl,
    PlusPlus,
    PlusSat,
    MinusSat,
    At,
    Underscore,
    PlusAssign,
    MinusAssign,
    StarAssign,
    SlashAssign,
    PercentAssign,
    AmpAssign,
    PipeAssign,
    CaretAssign,
    ShlAssign,
    PlusSatAssign,
    MinusSatAssign,
    /// `#` (preprocessor directive introducer or stringify operator)
    Hash,
    /// `##` (token pasting)
    HashHash,
    /// `{#}` — the invalid header/union expression
    InvalidHeader,
}

/// Longest spellings first, so the lexer's first match is the maximal munch.
pub(crate) const PUNCTS: &[(&str, Punct)] = &[
    ("|+|=", Punct::PlusSatAssign),
    ("|-|=", Punct::MinusSatAssign),
    ("{#}", Punct::InvalidHeader),
    ("&&&", Punct::Mask),
    ("...", Punct::Dots),
    ("<<=", Punct::ShlAssign),
    ("|+|", Punct::PlusSat),
    ("|-|", Punct::MinusSat),
    ("&&", Punct::AndAnd),
    ("||", Punct::OrOr),
    ("==", Punct::EqEq),
    ("!=", Punct::Ne),
    ("<=", Punct::Le),
    (">=", Punct::Ge),
    ("<<", Punct::Shl),
    ("++", Punct::PlusPlus),
    ("..", Punct::DotDot),
    ("+=", Punct::PlusAssign),
    ("-=", Punct::MinusAssign),
    ("*=", Punct::StarAssign),
    ("/=", Punct::SlashAssign),
    ("%=", Punct::PercentAssign),
    ("&=", Punct::AmpAssign),
    ("|=", Punct::PipeAssign),
    ("^=", Punct::CaretAssign),
    ("##", Punct::HashHash),
    ("(", Punct::LParen),
    (")", Punct::RParen),
    ("{", Punct::LBrace),
    ("}", Punct::RBrace),
    ("[", Punct::LBracket),
    ("]", Punct::RBracket),
    ("<", Punct::Lt),
    (">", Punct::Gt),
    ("=", Punct::Assign),
    (";", Punct::Semi),
    (",", Punct::Comma),
    (".", Punct::Dot),
    (":", Punct::Colon),
    ("?", Punct::Question),
    ("!", Punct::Not),
    ("~", Punct::Tilde),
    ("-", Punct::Minus),
    ("+", Punct::Plus),
    ("*", Punct::Star),
    ("/", Punct::Slash),
    ("%", Punct::Percent),
    ("&", Punct::Amp),
    ("|", Punct::Pipe),
    ("^", Punct::Caret),
    ("@", Punct::At),
    ("#", Punct::Hash),
];

impl Punct {
    pub fn as_str(self) -> &'static str {
        if self == Punct::Underscore {
            return "_";
        }
        PUNCTS.iter().find(|(_, p)| *p == self).map(|(s, _)| *s).unwrap_or("?")
    }
}

/// An interned identifier, string-literal or error text: an index into the [`Interner`] of the
/// preprocessing run that made the token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Symbol(pub u32);

/// An integer literal kept by the [`Interner`] of the preprocessing run that made the token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntId(pub u32);

/// Text and literals of tokens: each distinct text is stored once, however many tokens spell it,
/// so a token holds a 4-byte index and an identifier costs no allocation of its own.
#[derive(Debug, Default)]
pub struct Interner {
    texts: Vec<std::sync::Arc<str>>,
    index: std::collections::HashMap<std::sync::Arc<str>, Symbol, std::hash::BuildHasherDefault<TextHasher>>,
    ints: Vec<IntLit>,
}

impl Interner {
    pub fn new() -> Interner {
        Interner::default()
    }

    /// The symbol of `text`, added if new.
    pub fn intern(&mut self, text: &str) -> Symbol {
        if let Some(&sym) = self.index.get(text) {
            return sym;
        }
        let sym = Symbol(u32::try_from(self.texts.len()).unwrap_or(u32::MAX));
        let text: std::sync::Arc<str> = text.into();
        self.texts.push(text.clone());
        self.index.insert(text, sym);
        sym
    }

    /// The text of a symbol as a name for the syntax tree, sharing this interner's copy.
    pub fn name(&self, sym: Symbol) -> crate::ast::Name {
        match self.texts.get(sym.0 as usize) {
            Some(t) => t.clone().into(),
            None => "".into(),
        }
    }

    /// The text of a symbol of this interner ("" for a symbol it did not make).
    pub fn text(&self, sym: Symbol) -> &str {
        self.texts.get(sym.0 as usize).map(|t| &**t).unwrap_or("")
    }

    /// Keep an integer literal; literals are not shared (equal ones are rare apart from small
    /// values, and a literal's value is read once, by the parser).
    pub fn add_int(&mut self, lit: IntLit) -> IntId {
        let id = IntId(u32::try_from(self.ints.len()).unwrap_or(u32::MAX));
        self.ints.push(lit);
        id
    }

    /// The literal of an id of this interner (0 for an id it did not make).
    pub fn int(&self, id: IntId) -> std::borrow::Cow<'_, IntLit> {
        match self.ints.get(id.0 as usize) {
            Some(lit) => std::borrow::Cow::Borrowed(lit),
            None => std::borrow::Cow::Owned(IntLit { value: 0.into(), width: None }),
        }
    }

    /// Number of distinct texts.
    pub fn len(&self) -> usize {
        self.texts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }
}

/// FNV-1a over the bytes: identifiers are short, and the default SipHash costs more per token
/// than the lookup itself.
#[derive(Default)]
pub struct TextHasher(u64);

impl std::hash::Hasher for TextHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 { 0xcbf2_9ce4_8422_2325 } else { self.0 };
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.0 = h;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Text and literals are indices into the run's [`Interner`], so a token is small and copied
/// freely: a program's tokens are held whole while it is parsed (a program of 10,000 tables has
/// a million of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    Ident(Symbol),
    Keyword(Keyword),
    Int(IntId),
    /// A string literal's raw contents between the quotes (escapes are kept verbatim, as the spec
    /// says strings pass unchanged to back ends).
    Str(Symbol),
    Punct(Punct),
    /// A lexing error (its message); reported by the preprocessor only if the token is in an
    /// active region (so `#if 0` blocks may hold arbitrary text).
    Error(Symbol),
    /// A character that is no P4 token (`'`, `$`, ...): only the raw body of an unstructured
    /// annotation may hold one (spec, "Annotations"); anywhere else the parser reports it.
    Stray(Symbol),
    Eof,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
    /// First token of a logical line (after a newline not escaped by `\`).
    pub line_start: bool,
    /// No whitespace or comment between this token and the previous one.
    pub glued: bool,
}

// Every token of a program is held at once while it is parsed (a million for 10,000 tables), so
// a token must stay small: 8 bytes of kind, 12 of span, 2 of flags.
const _: () = assert!(std::mem::size_of::<Token>() <= 24);

/// A token list kept in chunks, which the parser frees as it goes past them.
///
/// A chunk is 96 KiB, under the C allocator's threshold for giving a block its own mapping
/// (128 KiB with glibc): freed chunks are reused by the syntax tree built from them instead of
/// being unmapped, and no large mapping is freed, which with glibc would raise that threshold so
/// that every later large vector of the compiler were kept in the heap for good.
#[derive(Clone, Debug, Default)]
pub struct TokenBuf {
    chunks: Vec<Vec<Token>>,
    len: usize,
    /// Chunks before this one have been freed.
    released: usize,
}

impl TokenBuf {
    /// Tokens per chunk.
    pub const CHUNK: usize = 4096;

    pub fn new() -> TokenBuf {
        TokenBuf::default()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn push(&mut self, t: Token) {
        match self.chunks.last_mut() {
            Some(c) if c.len() < Self::CHUNK => c.push(t),
            _ => {
                let mut c = Vec::with_capacity(Self::CHUNK);
                c.push(t);
                self.chunks.push(c);
            }
        }
        self.len += 1;
    }

    /// Token `i`; `None` past the end or in a freed chunk.
    pub fn get(&self, i: usize) -> Option<&Token> {
        self.chunks.get(i / Self::CHUNK)?.get(i % Self::CHUNK)
    }

    pub fn last(&self) -> Option<&Token> {
        self.len.checked_sub(1).and_then(|i| self.get(i))
    }

    /// Free every chunk that lies wholly before token `i`.
    pub fn release_before(&mut self, i: usize) {
        let upto = (i / Self::CHUNK).min(self.chunks.len());
        for c in self.chunks.iter_mut().take(upto).skip(self.released) {
            *c = Vec::new();
        }
        self.released = self.released.max(upto);
    }

    /// The tokens not freed, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Token> {
        self.chunks.iter().flatten()
    }
}

impl Extend<Token> for TokenBuf {
    fn extend<I: IntoIterator<Item = Token>>(&mut self, iter: I) {
        for t in iter {
            self.push(t);
        }
    }
}

impl From<Vec<Token>> for TokenBuf {
    fn from(toks: Vec<Token>) -> TokenBuf {
        let mut buf = TokenBuf::new();
        buf.extend(toks);
        buf
    }
}

impl Token {
    pub fn is_punct(&self, p: Punct) -> bool {
        self.kind == TokenKind::Punct(p)
    }
    pub fn is_kw(&self, k: Keyword) -> bool {
        self.kind == TokenKind::Keyword(k)
    }
    pub fn ident(&self) -> Option<Symbol> {
        match self.kind {
            TokenKind::Ident(s) => Some(s),
            _ => None,
        }
    }
}

/// A short human description of a token for `expected X, found Y` messages.
pub fn describe(kind: &TokenKind, names: &Interner) -> String {
    match kind {
        TokenKind::Ident(s) => format!("identifier `{}`", names.text(*s)),
        TokenKind::Keyword(k) => format!("keyword `{}`", k.as_str()),
        TokenKind::Int(_) => "integer literal".to_string(),
        TokenKind::Str(_) => "string literal".to_string(),
        TokenKind::Punct(p) => format!("`{}`", p.as_str()),
        TokenKind::Error(_) => "invalid token".to_string(),
        TokenKind::Stray(s) => format!("unexpected character `{}`", names.text(*s)),
        TokenKind::Eof => "end of file".to_string(),
    }
}

/// The source spelling of a token kind, for printing and stringification when no text is at hand.
pub fn spell(kind: &TokenKind, names: &Interner) -> String {
    match kind {
        TokenKind::Ident(s) => names.text(*s).to_string(),
        TokenKind::Keyword(k) => k.as_str().to_string(),
        TokenKind::Int(lit) => crate::ast_print::int_lit(&names.int(*lit)),
        TokenKind::Str(s) => format!("\"{}\"", names.text(*s)),
        TokenKind::Punct(p) => p.as_str().to_string(),
        TokenKind::Stray(s) => names.text(*s).to_string(),
        TokenKind::Error(_) | TokenKind::Eof => String::new(),
    }
}

//! Lexer: every token kind, literal forms, layout flags and spans.

use num_bigint::BigInt;
use p4_syntax::ast::IntLit;
use p4_syntax::lexer;
use p4_syntax::span::FileId;
use p4_syntax::token::{Interner, Keyword, Punct, Token, TokenKind};

/// A token kind with its text or literal looked up, to compare with expected values.
#[derive(Debug, PartialEq)]
enum Kind {
    Ident(String),
    Keyword(Keyword),
    Int(IntLit),
    Str(String),
    Punct(Punct),
    Error(String),
    Stray(String),
}

fn lex(file: FileId, text: &str) -> Vec<Token> {
    lexer::lex(file, text, &mut Interner::new())
}

fn kinds(text: &str) -> Vec<Kind> {
    let mut names = Interner::new();
    let toks = lexer::lex(FileId(0), text, &mut names);
    toks.into_iter()
        .filter_map(|t| match t.kind {
            TokenKind::Ident(s) => Some(Kind::Ident(names.text(s).to_string())),
            TokenKind::Keyword(k) => Some(Kind::Keyword(k)),
            TokenKind::Int(i) => Some(Kind::Int(names.int(i).into_owned())),
            TokenKind::Str(s) => Some(Kind::Str(names.text(s).to_string())),
            TokenKind::Punct(p) => Some(Kind::Punct(p)),
            TokenKind::Error(s) => Some(Kind::Error(names.text(s).to_string())),
            TokenKind::Stray(s) => Some(Kind::Stray(names.text(s).to_string())),
            TokenKind::Eof => None,
        })
        .collect()
}

fn int(value: i64, width: Option<(u32, bool)>) -> Kind {
    Kind::Int(IntLit { value: BigInt::from(value), width })
}

#[test]
fn operators_use_maximal_munch_except_shift_right() {
    use Punct::*;
    let text = "&&& && & .. ... . |+|= |+| |-|= |-| || |= | ++ += + -= - <<= << <= < >> >= > == = != ! {#} { } ## # @ _ ~ ^= ^ %= % *= * /= / ? : ; , ( ) [ ]";
    let expected = [
        Mask, AndAnd, Amp, DotDot, Dots, Dot, PlusSatAssign, PlusSat, MinusSatAssign, MinusSat, OrOr, PipeAssign, Pipe,
        PlusPlus, PlusAssign, Plus, MinusAssign, Minus, ShlAssign, Shl, Le, Lt, Gt, Gt, Ge, Gt, EqEq, Assign, Ne, Not,
        InvalidHeader, LBrace, RBrace, HashHash, Hash, At, Underscore, Tilde, CaretAssign, Caret, PercentAssign, Percent,
        StarAssign, Star, SlashAssign, Slash, Question, Colon, Semi, Comma, LParen, RParen, LBracket, RBracket,
    ];
    let got = kinds(text);
    assert_eq!(got, expected.iter().map(|p| Kind::Punct(*p)).collect::<Vec<_>>());
}

#[test]
fn shift_right_is_two_glued_greater_thans() {
    let toks = lex(FileId(0), "a >> b > > c");
    let flags: Vec<(bool, bool)> = toks.iter().filter(|t| t.is_punct(Punct::Gt)).map(|t| (t.glued, t.line_start)).collect();
    assert_eq!(flags, [(false, false), (true, false), (false, false), (false, false)]);
}

#[test]
fn integer_literals() {
    let text = "0 17 1_000 0x1F 0X1f 0o17 0O17 0b1010 0B1_0 0d99 0D99 8w5 8s5 16w0x1F 8s0b1010_1010 32w0d255 16w0377 8w0b_1010";
    assert_eq!(
        kinds(text),
        [
            int(0, None),
            int(17, None),
            int(1000, None),
            int(31, None),
            int(31, None),
            int(15, None),
            int(15, None),
            int(10, None),
            int(2, None),
            int(99, None),
            int(99, None),
            int(5, Some((8, false))),
            int(5, Some((8, true))),
            int(31, Some((16, false))),
            int(170, Some((8, true))),
            int(255, Some((32, false))),
            int(377, Some((16, false))),
            int(10, Some((8, false))),
        ]
    );
}

#[test]
fn arbitrary_precision_literal() {
    let expected: BigInt = "340282366920938463463374607431768211456".parse().unwrap_or_default();
    assert_eq!(kinds("0x1_0000_0000_0000_0000_0000_0000_0000_0000"), [Kind::Int(IntLit { value: expected, width: None })]);
}

#[test]
fn malformed_literals_are_error_tokens() {
    let got = kinds("0x 0b2 12ab 99999999999w1 8w");
    let msgs: Vec<String> = got
        .iter()
        .map(|k| match k {
            Kind::Error(m) => m.to_string(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        msgs,
        [
            "malformed integer literal `0x`",
            "malformed integer literal `0b2`",
            "malformed integer literal `12ab`",
            "integer literal width `99999999999` is too large",
            "malformed integer literal `8w`",
        ]
    );
}

#[test]
fn strings_keep_escapes_verbatim_and_may_span_lines() {
    assert_eq!(
        kinds(r#""a\"b\\" "x
y" """#),
        [Kind::Str(r#"a\"b\\"#.into()), Kind::Str("x\ny".into()), Kind::Str("".into())]
    );
}

#[test]
fn keywords_identifiers_and_dont_care() {
    assert_eq!(
        kinds("header_union value_set _x _ apply Apply"),
        [
            Kind::Keyword(Keyword::HeaderUnion),
            Kind::Keyword(Keyword::ValueSet),
            Kind::Ident("_x".into()),
            Kind::Punct(Punct::Underscore),
            Kind::Keyword(Keyword::Apply),
            Kind::Ident("Apply".into()),
        ]
    );
}

#[test]
fn comments_continuations_and_line_starts() {
    let mut names = Interner::new();
    let toks = lexer::lex(FileId(0), "\u{feff}a // c \\\n still comment\n/* x\n y */ b \\\n c\nd", &mut names);
    let summary: Vec<(String, bool)> =
        toks.iter().filter_map(|t| t.ident().map(|n| (names.text(n).to_string(), t.line_start))).collect();
    assert_eq!(summary, [("a".into(), true), ("b".into(), true), ("c".into(), false), ("d".into(), true)]);
}

#[test]
fn spans_are_byte_ranges() {
    let toks = lex(FileId(3), "  ab 8w5\n\"s\"");
    let spans: Vec<(u32, u32, u32)> = toks.iter().map(|t| (t.span.file.0, t.span.lo, t.span.hi)).collect();
    assert_eq!(spans, [(3, 2, 4), (3, 5, 8), (3, 9, 12), (3, 12, 12)]);
}

/// A character that is no P4 token is a stray token, which only an unstructured annotation's body
/// may hold (the parser reports it anywhere else); an unterminated comment is an error.
#[test]
fn unexpected_characters_and_unterminated_comment() {
    let got = kinds("a $ \u{e9} /* open");
    assert_eq!(
        got,
        [
            Kind::Ident("a".into()),
            Kind::Stray("$".into()),
            Kind::Stray("\u{e9}".into()),
            Kind::Error("unterminated block comment".into()),
        ]
    );
}

#[test]
fn a_token_is_at_most_24_bytes() {
    // A program's tokens are held at once while it is parsed: a million for 10,000 tables.
    assert!(std::mem::size_of::<Token>() <= 24, "Token is {} bytes", std::mem::size_of::<Token>());
}

#[test]
fn interner_gives_one_symbol_per_text_and_returns_the_text() {
    let mut names = Interner::new();
    let ingress = names.intern("ingress");
    let t0 = names.intern("t0");
    let empty = names.intern("");
    assert_eq!(names.intern("ingress"), ingress);
    assert_ne!(ingress, t0);
    assert_eq!(names.len(), 3);
    assert_eq!(names.text(ingress), "ingress");
    assert_eq!(names.text(t0), "t0");
    assert_eq!(names.text(empty), "");
    let lit = names.add_int(IntLit { value: BigInt::from(65535), width: Some((16, false)) });
    assert_eq!(*names.int(lit), IntLit { value: BigInt::from(65535), width: Some((16, false)) });
    // The same identifier lexed twice is one symbol, and it spells what the source said.
    let toks = lexer::lex(FileId(0), "hdr.ethernet.dst hdr", &mut names);
    let syms: Vec<_> = toks.iter().filter_map(|t| t.ident()).collect();
    assert_eq!(syms.len(), 4);
    assert_eq!(syms[0], syms[3]);
    assert_eq!(names.text(syms[1]), "ethernet");
    assert_eq!(names.text(syms[2]), "dst");
    assert_eq!(names.len(), 6);
}

#[test]
fn token_buffer_frees_whole_chunks_only() {
    use p4_syntax::token::TokenBuf;
    let toks = lex(FileId(0), &"x ".repeat(10_000));
    let mut buf = TokenBuf::from(toks.clone());
    assert_eq!(buf.len(), 10_001);
    assert_eq!(buf.get(10_000).map(|t| t.kind), Some(TokenKind::Eof));
    buf.release_before(5_000);
    // The first chunk (tokens 0..4096) is gone; the one holding token 4999 is not.
    assert_eq!(buf.get(0), None);
    assert_eq!(buf.get(4_095), None);
    assert_eq!(buf.get(4_096), Some(&toks[4_096]));
    assert_eq!(buf.get(4_999), Some(&toks[4_999]));
    assert_eq!(buf.len(), 10_001);
    assert_eq!(buf.iter().count(), 10_001 - 4_096);
    assert_eq!(buf.last(), toks.last());
}

//! Annotations: `@name`, unstructured `@name(tokens)`, structured `@name[...]`, and `@pragma`.
//!
//! The raw text of an unstructured body is rebuilt from its tokens, with one space wherever the
//! source had whitespace, so it survives printing and re-parsing unchanged. When that body also
//! parses as an expression list, the expressions are kept (`@name("x")` → `exprs: [String("x")]`).

use super::{Fail, PResult, Parser};
use crate::ast::{Annotation, AnnotationBody, Expr, Ident};
use crate::token::{Punct, Token, TokenKind};

impl Parser<'_> {
    pub(crate) fn annotations(&mut self) -> PResult<Vec<Annotation>> {
        let mut out = Vec::new();
        while self.at(Punct::At) {
            out.push(self.annotation()?);
        }
        Ok(out)
    }

    fn annotation(&mut self) -> PResult<Annotation> {
        let start = self.expect(Punct::At)?;
        let name = self.annotation_name()?;
        if name.name == "pragma" {
            return self.pragma(start);
        }
        let body = if self.at(Punct::LParen) {
            self.bump();
            let mut depth = 0u32;
            let mut toks = Vec::new();
            loop {
                let t = *self.peek();
                match &t.kind {
                    TokenKind::Eof => return Err(self.error_expected("`)` closing the annotation")),
                    TokenKind::Punct(Punct::LParen) => depth += 1,
                    TokenKind::Punct(Punct::RParen) if depth == 0 => break,
                    TokenKind::Punct(Punct::RParen) => depth -= 1,
                    _ => {}
                }
                toks.push(self.bump());
            }
            self.bump();
            let text = self.join_tokens(&toks);
            let exprs = self.parse_sub_expr_list(toks);
            AnnotationBody::Unstructured { text, exprs }
        } else if self.at(Punct::LBracket) {
            self.bump();
            let is_kv = self.at_name() && self.peek_at(1).is_punct(Punct::Assign);
            let body = if is_kv {
                let mut kvs = Vec::new();
                while !self.at(Punct::RBracket) {
                    let k = self.name()?;
                    self.expect(Punct::Assign)?;
                    let v = self.expr()?;
                    kvs.push((k, v));
                    if !self.eat(Punct::Comma) {
                        break;
                    }
                }
                AnnotationBody::KeyValue(kvs)
            } else {
                AnnotationBody::ExprList(self.expr_list_until(Punct::RBracket)?)
            };
            self.expect(Punct::RBracket)?;
            body
        } else {
            AnnotationBody::Empty
        };
        Ok(Annotation { name, body, span: start.to(self.prev_span()) })
    }

    /// Annotation names may be any identifier or keyword.
    fn annotation_name(&mut self) -> PResult<Ident> {
        self.member_name()
    }

    /// `@pragma name tokens...` up to the end of the line: an unstructured annotation `name`.
    fn pragma(&mut self, start: crate::span::Span) -> PResult<Annotation> {
        let name = self.annotation_name()?;
        let mut toks = Vec::new();
        while !self.at_eof() && !self.peek().line_start {
            toks.push(self.bump());
        }
        let text = self.join_tokens(&toks);
        let exprs = self.parse_sub_expr_list(toks);
        Ok(Annotation { name, body: AnnotationBody::Unstructured { text, exprs }, span: start.to(self.prev_span()) })
    }

    fn join_tokens(&self, toks: &[Token]) -> String {
        let mut text = String::new();
        for (i, t) in toks.iter().enumerate() {
            if i > 0 && !t.glued {
                text.push(' ');
            }
            text.push_str(&self.spelling(t));
        }
        text
    }

    /// Parse `toks` as a complete expression list, silently; `None` if it is not one.
    fn parse_sub_expr_list(&mut self, mut toks: Vec<Token>) -> Option<Vec<Expr>> {
        if toks.iter().any(|t| matches!(t.kind, TokenKind::Error(_) | TokenKind::Stray(_))) {
            return None;
        }
        let eof_span = toks.last().map(|t| crate::span::Span { lo: t.span.hi, ..t.span }).unwrap_or(self.span());
        toks.push(Token { kind: TokenKind::Eof, span: eof_span, line_start: true, glued: false });
        let saved_toks = std::mem::replace(&mut self.toks, toks.into());
        let saved_pos = std::mem::replace(&mut self.pos, 0);
        let result = self.speculate(|p| {
            let list = p.expr_list_until(Punct::RParen)?;
            if p.at_eof() {
                Ok(list)
            } else {
                Err(Fail)
            }
        });
        self.toks = saved_toks;
        self.pos = saved_pos;
        result
    }
}

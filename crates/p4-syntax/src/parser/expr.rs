//! Expressions (Pratt parsing), arguments and keysets.
//!
//! Binding powers follow the grammar's precedence table (v1.2.5 appendix), low to high:
//! `?:`, `||`, `&&`, `== !=`, `< > <= >=`, `|`, `^`, `&`, `<< >>`, `++ + - |+| |-|`, `* / %`,
//! prefix operators and casts, then postfix `[] () . <T>()`. `&&&` and `..` are not general
//! operators: they exist only at the top of keysets and `for`-`in` collections.

use super::{Fail, PResult, Parser};
use crate::ast::{Arg, BinOp, Expr, ExprKind, Path, TypeRef, TypeRefKind, UnOp};
use crate::token::{Keyword, Punct, TokenKind};

const TERNARY_BP: u8 = 1;

impl Parser<'_> {
    pub(crate) fn expr(&mut self) -> PResult<Expr> {
        let in_width = std::mem::replace(&mut self.in_width, false);
        let r = self.binary(0);
        self.in_width = in_width;
        r
    }

    /// The width expression of `bit<W>` and friends: any expression in which a top-level `>`
    /// closes the type (so comparisons and `>>` there need parentheses, as in p4c).
    pub(crate) fn width_expr(&mut self) -> PResult<Expr> {
        let in_width = std::mem::replace(&mut self.in_width, true);
        let r = self.binary(0);
        self.in_width = in_width;
        r
    }

    /// The binary operator at the cursor with its binding power and token count.
    fn binop_here(&self) -> Option<(BinOp, u8, usize)> {
        let TokenKind::Punct(p) = self.peek().kind else { return None };
        let op = match p {
            Punct::OrOr => (BinOp::Or, 2),
            Punct::AndAnd => (BinOp::And, 3),
            Punct::EqEq => (BinOp::Eq, 4),
            Punct::Ne => (BinOp::Ne, 4),
            Punct::Lt => (BinOp::Lt, 5),
            Punct::Le => (BinOp::Le, 5),
            Punct::Ge => (BinOp::Ge, 5),
            Punct::Gt if self.in_width => return None,
            Punct::Gt => {
                let next = self.peek_at(1);
                if next.glued && next.is_punct(Punct::Gt) {
                    return Some((BinOp::Shr, 9, 2));
                }
                if next.glued && next.is_punct(Punct::Ge) {
                    // `>>=`: a compound assignment, not an operator.
                    return None;
                }
                (BinOp::Gt, 5)
            }
            Punct::Pipe => (BinOp::BitOr, 6),
            Punct::Caret => (BinOp::BitXor, 7),
            Punct::Amp => (BinOp::BitAnd, 8),
            Punct::Shl => (BinOp::Shl, 9),
            Punct::PlusPlus => (BinOp::Concat, 10),
            Punct::Plus => {
                if self.peek_at(1).is_punct(Punct::Colon) {
                    // `e[lo +: w]`
                    return None;
                }
                (BinOp::Add, 10)
            }
            Punct::Minus => (BinOp::Sub, 10),
            Punct::PlusSat => (BinOp::AddSat, 10),
            Punct::MinusSat => (BinOp::SubSat, 10),
            Punct::Star => (BinOp::Mul, 11),
            Punct::Slash => (BinOp::Div, 11),
            Punct::Percent => (BinOp::Mod, 11),
            _ => return None,
        };
        Some((op.0, op.1, 1))
    }

    /// Parse operators binding tighter than `min_bp`.
    fn binary(&mut self, min_bp: u8) -> PResult<Expr> {
        self.nested(|p| p.binary_inner(min_bp))
    }

    fn binary_inner(&mut self, min_bp: u8) -> PResult<Expr> {
        let mut lhs = self.unary()?;
        loop {
            if self.at(Punct::Question) && TERNARY_BP >= min_bp {
                self.deepen()?;
                self.bump();
                let then = self.expr()?;
                self.expect(Punct::Colon)?;
                let otherwise = self.binary(TERNARY_BP)?;
                let span = lhs.span.to(otherwise.span);
                lhs = Expr { kind: ExprKind::Ternary(Box::new(lhs), Box::new(then), Box::new(otherwise)), span };
                continue;
            }
            let Some((op, bp, ntoks)) = self.binop_here() else { break };
            if bp < min_bp {
                break;
            }
            self.deepen()?;
            for _ in 0..ntoks {
                self.bump();
            }
            let rhs = self.binary(bp + 1)?;
            let span = lhs.span.to(rhs.span);
            lhs = Expr { kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), span };
        }
        Ok(lhs)
    }

    /// Prefix operators and casts, then a postfix expression.
    pub(crate) fn unary(&mut self) -> PResult<Expr> {
        self.nested(Self::unary_inner)
    }

    fn unary_inner(&mut self) -> PResult<Expr> {
        let start = self.span();
        let op = match self.peek().kind {
            TokenKind::Punct(Punct::Not) => Some(UnOp::Not),
            TokenKind::Punct(Punct::Tilde) => Some(UnOp::BitNot),
            TokenKind::Punct(Punct::Minus) => Some(UnOp::Neg),
            TokenKind::Punct(Punct::Plus) => Some(UnOp::Plus),
            _ => None,
        };
        if let Some(op) = op {
            self.bump();
            let e = self.unary()?;
            let span = start.to(e.span);
            return Ok(Expr { kind: ExprKind::Unary(op, Box::new(e)), span });
        }
        if self.at(Punct::LParen) && !self.failed_casts.contains(&self.pos) && self.token_starts_certain_type(1) {
            let at = self.pos;
            let cast_ty = self.speculate(|p| {
                p.bump();
                let ty = p.type_ref()?;
                p.expect(Punct::RParen)?;
                Ok(ty)
            });
            if let Some(ty) = cast_ty {
                let e = self.unary()?;
                let span = start.to(e.span);
                return Ok(Expr { kind: ExprKind::Cast(Box::new(ty), Box::new(e)), span });
            }
            self.failed_casts.insert(at);
        }
        let prim = self.primary()?;
        self.postfix(prim)
    }

    fn postfix(&mut self, mut e: Expr) -> PResult<Expr> {
        loop {
            let start = e.span;
            if matches!(self.peek().kind, TokenKind::Punct(Punct::Dot | Punct::LBracket | Punct::LParen | Punct::Lt)) {
                self.deepen()?;
            }
            match self.peek().kind {
                TokenKind::Punct(Punct::Dot) => {
                    self.bump();
                    let m = self.member_name()?;
                    e = Expr { span: start.to(m.span), kind: ExprKind::Member(Box::new(e), m) };
                }
                TokenKind::Punct(Punct::LBracket) => {
                    self.bump();
                    let idx = self.expr()?;
                    if self.eat(Punct::Colon) {
                        let lo = self.expr()?;
                        self.expect(Punct::RBracket)?;
                        e = Expr { span: start.to(self.prev_span()), kind: ExprKind::Slice(Box::new(e), Box::new(idx), Box::new(lo)) };
                    } else if self.at(Punct::Plus) && self.peek_at(1).is_punct(Punct::Colon) {
                        self.bump();
                        self.bump();
                        let width = self.expr()?;
                        self.expect(Punct::RBracket)?;
                        let span = start.to(self.prev_span());
                        e = Expr { span, kind: ExprKind::IndexedSlice(Box::new(e), Box::new(idx), Box::new(width)) };
                    } else {
                        self.expect(Punct::RBracket)?;
                        e = Expr { span: start.to(self.prev_span()), kind: ExprKind::Index(Box::new(e), Box::new(idx)) };
                    }
                }
                TokenKind::Punct(Punct::LParen) => {
                    let args = self.args()?;
                    e = Expr { span: start.to(self.prev_span()), kind: ExprKind::Call { callee: Box::new(e), type_args: vec![], args } };
                }
                TokenKind::Punct(Punct::Lt) if self.token_starts_certain_type(1) => {
                    let callee_is_type = matches!(&e.kind, ExprKind::Name(p) if self.is_type_name(&p.name.name));
                    let targs = self.speculate(|p| {
                        let t = p.type_args()?;
                        // `T<A>.apply(..)` / `T<A>.minSizeInBits()`: a specialized type as a value.
                        if p.at(Punct::LParen) || (callee_is_type && p.at(Punct::Dot)) {
                            Ok(t)
                        } else {
                            Err(Fail)
                        }
                    });
                    let Some(type_args) = targs else { break };
                    if self.at(Punct::Dot) {
                        if let ExprKind::Name(path) = e.kind {
                            let ty = TypeRef { kind: TypeRefKind::Specialized(path, type_args), span: start.to(self.prev_span()) };
                            e = Expr { span: ty.span, kind: ExprKind::Type(Box::new(ty)) };
                            continue;
                        }
                        break;
                    }
                    let args = self.args()?;
                    let span = start.to(self.prev_span());
                    e = match e.kind {
                        ExprKind::Name(path) if self.is_type_name(&path.name.name) => {
                            let ty_span = path.name.span;
                            let ty = TypeRef { kind: TypeRefKind::Specialized(path, type_args), span: ty_span };
                            Expr { kind: ExprKind::Construct { ty: Box::new(ty), args }, span }
                        }
                        kind => {
                            let callee = Expr { kind, span: start };
                            Expr { kind: ExprKind::Call { callee: Box::new(callee), type_args, args }, span }
                        }
                    };
                }
                _ => break,
            }
        }
        Ok(e)
    }

    fn primary(&mut self) -> PResult<Expr> {
        let tok = *self.peek();
        let span = tok.span;
        let simple = |kind| Ok(Expr { kind, span });
        match tok.kind {
            TokenKind::Int(lit) => {
                self.bump();
                simple(ExprKind::Int(self.names.int(lit).into_owned()))
            }
            TokenKind::Str(s) => {
                self.bump();
                simple(ExprKind::String(self.text(s).to_string()))
            }
            TokenKind::Keyword(Keyword::True) => {
                self.bump();
                simple(ExprKind::Bool(true))
            }
            TokenKind::Keyword(Keyword::False) => {
                self.bump();
                simple(ExprKind::Bool(false))
            }
            TokenKind::Keyword(Keyword::This) => {
                self.bump();
                simple(ExprKind::This)
            }
            TokenKind::Keyword(Keyword::Default) => {
                self.bump();
                simple(ExprKind::Default)
            }
            TokenKind::Keyword(Keyword::Error) if !self.peek_at(1).is_punct(Punct::RParen) => {
                // `error.NoMatch`: the `error` namespace used as a value.
                self.bump();
                let name = crate::ast::Ident { name: "error".into(), span };
                simple(ExprKind::Name(Path { global: false, name }))
            }
            TokenKind::Punct(Punct::Underscore) => {
                self.bump();
                simple(ExprKind::DontCare)
            }
            TokenKind::Punct(Punct::Dots) => {
                self.bump();
                simple(ExprKind::Dots)
            }
            TokenKind::Punct(Punct::InvalidHeader) => {
                self.bump();
                simple(ExprKind::InvalidHeader)
            }
            TokenKind::Punct(Punct::LParen) => {
                self.bump();
                let e = self.expr()?;
                self.expect(Punct::RParen)?;
                // Parentheses are not kept; widen the span so diagnostics cover them.
                Ok(Expr { span: span.to(self.prev_span()), ..e })
            }
            TokenKind::Punct(Punct::LBrace) => self.brace_expr(),
            TokenKind::Punct(Punct::Dot) => {
                let p = self.path()?;
                Ok(Expr { span: span.to(p.name.span), kind: ExprKind::Name(p) })
            }
            TokenKind::Keyword(
                Keyword::Bit
                | Keyword::Int
                | Keyword::Varbit
                | Keyword::Bool
                | Keyword::String
                | Keyword::Tuple
                | Keyword::MatchKind
                | Keyword::Void
                | Keyword::Error,
            ) => {
                let ty = self.type_ref()?;
                Ok(Expr { span: ty.span, kind: ExprKind::Type(Box::new(ty)) })
            }
            TokenKind::Keyword(Keyword::List) if self.peek_at(1).is_punct(Punct::Lt) => {
                let ty = self.type_ref()?;
                Ok(Expr { span: ty.span, kind: ExprKind::Type(Box::new(ty)) })
            }
            _ => match self.tree_name_of(&tok) {
                Some(name) => {
                    self.bump();
                    let ident = crate::ast::Ident { name, span };
                    simple(ExprKind::Name(Path { global: false, name: ident }))
                }
                None => Err(self.error_expected("an expression")),
            },
        }
    }

    /// `{ ... }`: `{}`; a list `{a, b}` (elements may be `...`); or a struct initializer
    /// `{f = a, g = b}` optionally ending in `...`.
    fn brace_expr(&mut self) -> PResult<Expr> {
        let start = self.expect(Punct::LBrace)?;
        let is_kv = self.at_name() && self.peek_at(1).is_punct(Punct::Assign);
        if is_kv {
            let mut fields = Vec::new();
            let mut has_dots = false;
            while !self.at(Punct::RBrace) {
                if self.eat(Punct::Dots) {
                    has_dots = true;
                    self.eat(Punct::Comma);
                    break;
                }
                let name = self.name()?;
                self.expect(Punct::Assign)?;
                let value = self.expr()?;
                fields.push((name, value));
                if !self.eat(Punct::Comma) {
                    break;
                }
            }
            self.expect(Punct::RBrace)?;
            return Ok(Expr { span: start.to(self.prev_span()), kind: ExprKind::StructInit { fields, has_dots } });
        }
        let mut items = Vec::new();
        while !self.at(Punct::RBrace) {
            items.push(self.expr()?);
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        self.expect(Punct::RBrace)?;
        Ok(Expr { span: start.to(self.prev_span()), kind: ExprKind::List(items) })
    }

    /// `( argument, ... )` with named arguments `n = e` and `_`.
    pub(crate) fn args(&mut self) -> PResult<Vec<crate::ast::Arg>> {
        self.expect(Punct::LParen)?;
        let mut args = Vec::new();
        while !self.at(Punct::RParen) {
            let start = self.span();
            let name = if self.at_name() && self.peek_at(1).is_punct(Punct::Assign) {
                let n = self.name()?;
                self.bump();
                Some(n)
            } else {
                None
            };
            let value = self.expr()?;
            args.push(Arg { name, span: start.to(value.span), value });
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        self.expect(Punct::RParen)?;
        Ok(args)
    }

    /// A comma-separated expression list up to (not including) `close`; trailing comma allowed.
    pub(crate) fn expr_list_until(&mut self, close: Punct) -> PResult<Vec<Expr>> {
        let mut items = Vec::new();
        while !self.at(close) {
            items.push(self.expr()?);
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        Ok(items)
    }

    /// `simpleKeysetExpression`: an expression, `a &&& b`, `a .. b`, `default` or `_`.
    pub(crate) fn simple_keyset(&mut self) -> PResult<Expr> {
        let e = self.expr()?;
        if self.eat(Punct::Mask) {
            let m = self.expr()?;
            let span = e.span.to(m.span);
            return Ok(Expr { kind: ExprKind::Mask(Box::new(e), Box::new(m)), span });
        }
        if self.eat(Punct::DotDot) {
            let hi = self.expr()?;
            let span = e.span.to(hi.span);
            return Ok(Expr { kind: ExprKind::Range(Box::new(e), Box::new(hi)), span });
        }
        Ok(e)
    }

    /// `keysetExpression`: a simple keyset, or a parenthesized tuple of them. A parenthesized
    /// single plain expression is just an expression (`(a) + 1` stays arithmetic).
    pub(crate) fn keyset(&mut self) -> PResult<Expr> {
        if !self.at(Punct::LParen) {
            return self.simple_keyset();
        }
        let save = self.pos;
        let tuple = self.speculate(|p| {
            let start = p.expect(Punct::LParen)?;
            let mut items = Vec::new();
            loop {
                items.push(p.simple_keyset()?);
                if !p.eat(Punct::Comma) {
                    break;
                }
                if p.at(Punct::RParen) {
                    break;
                }
            }
            p.expect(Punct::RParen)?;
            Ok((items, start.to(p.prev_span())))
        });
        match tuple {
            Some((items, span)) => {
                let plain_single = items.len() == 1
                    && !matches!(items[0].kind, ExprKind::Mask(..) | ExprKind::Range(..) | ExprKind::Default | ExprKind::DontCare);
                if plain_single {
                    self.pos = save;
                    self.simple_keyset()
                } else {
                    Ok(Expr { kind: ExprKind::Tuple(items), span })
                }
            }
            None => self.simple_keyset(),
        }
    }
}

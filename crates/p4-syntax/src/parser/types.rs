//! Type references: base types, named and specialized types, stacks, tuples and lists.

use super::{PResult, Parser};
use crate::ast::{Expr, ExprKind, Ident, IntLit, TypeRef, TypeRefKind};
use crate::token::{Keyword, Punct, TokenKind};
use num_bigint::BigInt;

impl Parser<'_> {
    /// Could token `k` ahead start a type *for certain* (a type keyword, `_`, or a known type
    /// name, possibly dot-prefixed)? Used where an expression is equally possible.
    pub(crate) fn token_starts_certain_type(&self, k: usize) -> bool {
        let tok = self.peek_at(k);
        match tok.kind {
            TokenKind::Keyword(kw) => match kw {
                Keyword::Bit
                | Keyword::Int
                | Keyword::Varbit
                | Keyword::Bool
                | Keyword::String
                | Keyword::Tuple
                | Keyword::Void
                | Keyword::MatchKind
                | Keyword::Error => true,
                Keyword::List => self.peek_at(k + 1).is_punct(Punct::Lt),
                _ => false,
            },
            TokenKind::Punct(Punct::Underscore) => true,
            TokenKind::Punct(Punct::Dot) => {
                self.name_of(self.peek_at(k + 1)).is_some_and(|n| self.is_type_name(n))
            }
            TokenKind::Ident(n) => self.is_type_name(self.text(n)),
            _ => false,
        }
    }

    /// `typeRef` (also `void` and `_`, which the grammar allows in return and argument positions).
    pub(crate) fn type_ref(&mut self) -> PResult<TypeRef> {
        self.nested(Self::type_ref_inner)
    }

    fn type_ref_inner(&mut self) -> PResult<TypeRef> {
        let start = self.span();
        let tok = *self.peek();
        let kind = match &tok.kind {
            TokenKind::Keyword(Keyword::Bool) => {
                self.bump();
                TypeRefKind::Bool
            }
            TokenKind::Keyword(Keyword::Error) => {
                self.bump();
                TypeRefKind::Error
            }
            TokenKind::Keyword(Keyword::String) => {
                self.bump();
                TypeRefKind::String
            }
            TokenKind::Keyword(Keyword::MatchKind) => {
                self.bump();
                TypeRefKind::MatchKind
            }
            TokenKind::Keyword(Keyword::Void) => {
                self.bump();
                TypeRefKind::Void
            }
            TokenKind::Punct(Punct::Underscore) => {
                self.bump();
                TypeRefKind::DontCare
            }
            TokenKind::Keyword(Keyword::Bit) => {
                self.bump();
                if self.at(Punct::Lt) {
                    TypeRefKind::Bit(Box::new(self.width()?))
                } else {
                    let one = Expr { kind: ExprKind::Int(IntLit { value: BigInt::from(1), width: None }), span: tok.span };
                    TypeRefKind::Bit(Box::new(one))
                }
            }
            TokenKind::Keyword(Keyword::Int) => {
                self.bump();
                if self.at(Punct::Lt) {
                    TypeRefKind::Int(Box::new(self.width()?))
                } else {
                    TypeRefKind::InfInt
                }
            }
            TokenKind::Keyword(Keyword::Varbit) => {
                self.bump();
                TypeRefKind::VarBit(Box::new(self.width()?))
            }
            TokenKind::Keyword(Keyword::Tuple) => {
                self.bump();
                TypeRefKind::Tuple(self.type_args()?)
            }
            TokenKind::Keyword(Keyword::List) if self.peek_at(1).is_punct(Punct::Lt) => {
                self.bump();
                self.expect(Punct::Lt)?;
                let elem = self.type_ref()?;
                self.expect_close_angle()?;
                TypeRefKind::List(Box::new(elem))
            }
            _ => {
                let path = self.path()?;
                if self.at(Punct::Lt) {
                    let args = self.type_args()?;
                    TypeRefKind::Specialized(path, args)
                } else {
                    TypeRefKind::Named(path)
                }
            }
        };
        let mut ty = TypeRef { kind, span: start.to(self.prev_span()) };
        while self.at(Punct::LBracket) {
            self.deepen()?;
            self.bump();
            let size = self.expr()?;
            self.expect(Punct::RBracket)?;
            ty = TypeRef { span: start.to(self.prev_span()), kind: TypeRefKind::Stack(Box::new(ty), Box::new(size)) };
        }
        Ok(ty)
    }

    /// Optional C-style array sizes after a declared name (`bit<8> arr[16];`, which p4c accepts):
    /// folded into `ty` as the stack/array type `bit<8>[16]`. As in C, `T a[2][3]` is two
    /// elements of `T[3]`, i.e. `T[3][2]`.
    pub(crate) fn array_declarator(&mut self, ty: TypeRef) -> PResult<TypeRef> {
        let mut sizes = Vec::new();
        while self.at(Punct::LBracket) {
            self.deepen()?;
            self.bump();
            sizes.push(self.expr()?);
            self.expect(Punct::RBracket)?;
        }
        let end = self.prev_span();
        let mut ty = ty;
        for size in sizes.into_iter().rev() {
            ty = TypeRef { span: ty.span.to(end), kind: TypeRefKind::Stack(Box::new(ty), Box::new(size)) };
        }
        Ok(ty)
    }

    /// `<` W `>` where W is an expression that a top-level `>` ends (see [`Parser::width_expr`]).
    fn width(&mut self) -> PResult<Expr> {
        self.expect(Punct::Lt)?;
        if self.at(Punct::Gt) {
            return Err(self.error_expected("a width (integer or expression)"));
        }
        let e = self.width_expr()?;
        self.expect_close_angle()?;
        Ok(e)
    }

    /// `<` typeArg, ... `>` (possibly empty).
    pub(crate) fn type_args(&mut self) -> PResult<Vec<TypeRef>> {
        self.expect(Punct::Lt)?;
        let mut args = Vec::new();
        if !self.at(Punct::Gt) {
            loop {
                args.push(self.type_ref()?);
                if !self.eat(Punct::Comma) {
                    break;
                }
            }
        }
        self.expect_close_angle()?;
        Ok(args)
    }

    /// Optional `<` name, ... `>`; declares each as a type name in the current scope.
    pub(crate) fn opt_type_params(&mut self) -> PResult<Vec<Ident>> {
        let mut params = Vec::new();
        if self.eat(Punct::Lt) {
            loop {
                let n = self.name()?;
                self.declare(&n.name, true);
                params.push(n);
                if !self.eat(Punct::Comma) {
                    break;
                }
            }
            self.expect_close_angle()?;
        }
        Ok(params)
    }
}

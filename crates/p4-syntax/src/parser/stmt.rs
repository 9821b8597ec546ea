//! Statements and blocks.
//!
//! A statement that starts like `Type name` is a local declaration; anything else is parsed as an
//! expression and then classified (assignment, compound assignment, or call).

use super::{Fail, PResult, Parser};
use crate::ast::{Annotation, BinOp, Block, ConstDecl, Decl, ExprKind, Stmt, SwitchCase, VarDecl};
use crate::token::{Keyword, Punct, TokenKind};

impl Parser<'_> {
    /// `{ statOrDecl* }` with the given leading annotations.
    pub(crate) fn block(&mut self, annotations: Vec<Annotation>) -> PResult<Block> {
        let start = self.expect(Punct::LBrace)?;
        self.push_scope();
        let stmts = self.stmts_until_close(false);
        self.pop_scope();
        // A missing `}` before a declaration keyword was reported by `stmts_until_close`; keep
        // the block so the declaration that follows parses normally.
        if !self.at_declaration_keyword() {
            self.expect(Punct::RBrace)?;
        }
        let start = annotations.first().map(|a| a.span).unwrap_or(start);
        Ok(Block { annotations, stmts, span: start.to(self.prev_span()) })
    }

    /// Statements up to (not including) `}` or end of file, recovering from errors. In a parser
    /// state (`in_state`) a `transition` also ends the list; elsewhere it is reported.
    pub(crate) fn stmts_until_close(&mut self, in_state: bool) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        while !self.at(Punct::RBrace) && !self.at_eof() {
            self.release_consumed();
            if self.at_declaration_keyword() {
                // A declaration keyword cannot start a statement: most likely this block's `}`
                // is missing. Stop here so the enclosing declaration list can resynchronize.
                let _ = self.error_expected("`}`");
                break;
            }
            if self.at_kw(Keyword::Transition) {
                if in_state {
                    break;
                }
                let span = self.span();
                self.error_at(span, "`transition` is only allowed as the last statement of a parser state");
                self.recover();
                continue;
            }
            let start = self.pos;
            match self.stmt() {
                Ok(s) => stmts.push(s),
                Err(Fail) => self.recover(),
            }
            if self.pos == start {
                self.bump();
            }
        }
        // Kept for the whole front end: no room left over from growing it.
        stmts.shrink_to_fit();
        stmts
    }

    pub(crate) fn stmt(&mut self) -> PResult<Stmt> {
        self.nested(Self::stmt_inner)
    }

    fn stmt_inner(&mut self) -> PResult<Stmt> {
        let annotations = self.annotations()?;
        let start = self.span();
        let save_pos = self.pos;
        let tok = *self.peek();
        match &tok.kind {
            TokenKind::Punct(Punct::LBrace) => return Ok(Stmt::Block(self.block(annotations)?)),
            TokenKind::Punct(Punct::Semi) => {
                self.bump();
                return Ok(Stmt::Empty(start));
            }
            TokenKind::Keyword(Keyword::If) => {
                self.bump();
                self.expect(Punct::LParen)?;
                let cond = self.expr()?;
                self.expect(Punct::RParen)?;
                let then = Box::new(self.stmt()?);
                let otherwise = if self.eat_kw(Keyword::Else) { Some(Box::new(self.stmt()?)) } else { None };
                return Ok(Stmt::If { cond, then, otherwise, span: start.to(self.prev_span()) });
            }
            TokenKind::Keyword(Keyword::Switch) => return self.switch_stmt(),
            TokenKind::Keyword(Keyword::For) => return self.for_stmt(annotations),
            TokenKind::Keyword(Keyword::Return) => {
                self.bump();
                let value = if self.at(Punct::Semi) { None } else { Some(self.expr()?) };
                self.expect(Punct::Semi)?;
                return Ok(Stmt::Return(value, start.to(self.prev_span())));
            }
            TokenKind::Keyword(Keyword::Exit) => {
                self.bump();
                self.expect(Punct::Semi)?;
                return Ok(Stmt::Exit(start.to(self.prev_span())));
            }
            TokenKind::Keyword(Keyword::Break) => {
                self.bump();
                self.expect(Punct::Semi)?;
                return Ok(Stmt::Break(start.to(self.prev_span())));
            }
            TokenKind::Keyword(Keyword::Continue) => {
                self.bump();
                self.expect(Punct::Semi)?;
                return Ok(Stmt::Continue(start.to(self.prev_span())));
            }
            TokenKind::Keyword(Keyword::Const) => {
                let d = self.const_decl(annotations)?;
                return Ok(Stmt::Decl(Box::new(Decl::Const(d))));
            }
            _ => {}
        }
        if let Some(d) = self.local_var_decl(annotations.clone())? {
            self.expect(Punct::Semi)?;
            return Ok(Stmt::Decl(Box::new(Decl::Var(d))));
        }
        // p4c also accepts instantiations among statements: `Checksum16() ck;`.
        if self.at_name() || self.at(Punct::Dot) {
            let inst = self.speculate(|p| {
                let ty = p.type_ref()?;
                if !p.at(Punct::LParen) {
                    return Err(Fail);
                }
                p.args()?;
                if !p.at_name() {
                    return Err(Fail);
                }
                Ok(ty)
            });
            if inst.is_some() {
                self.pos = save_pos;
                let ty = self.type_ref()?;
                let d = self.instantiation_rest(annotations, ty, start)?;
                return Ok(Stmt::Decl(Box::new(Decl::Instantiation(d))));
            }
        }
        let s = self.simple_stmt()?;
        self.expect(Punct::Semi)?;
        Ok(match s {
            Stmt::Assign { lhs, op, rhs, span } => Stmt::Assign { lhs, op, rhs, span: span.to(self.prev_span()) },
            Stmt::Call { call, span } => Stmt::Call { call, span: span.to(self.prev_span()) },
            other => other,
        })
    }

    /// `Type name [= init]` (without `;`) if the tokens start that way; `None` (nothing consumed)
    /// otherwise.
    pub(crate) fn local_var_decl(&mut self, annotations: Vec<Annotation>) -> PResult<Option<VarDecl>> {
        let start = annotations.first().map(|a| a.span).unwrap_or(self.span());
        let head = self.speculate(|p| {
            let ty = p.type_ref()?;
            // `Type name` followed by `=`, `;`, `,` or `)` (the last two in `for` headers) — a
            // name followed by anything else is not a declaration (`a b(...)` is an error either way).
            if !p.at_name() {
                return Err(Fail);
            }
            let after = &p.peek_at(1).kind;
            if !matches!(after, TokenKind::Punct(Punct::Assign | Punct::Semi | Punct::Comma | Punct::RParen | Punct::LBracket)) {
                return Err(Fail);
            }
            let name = p.name()?;
            Ok((ty, name))
        });
        let Some((ty, name)) = head else { return Ok(None) };
        let ty = self.array_declarator(ty)?;
        let init = if self.eat(Punct::Assign) { Some(self.expr()?) } else { None };
        self.declare(&name.name, false);
        Ok(Some(VarDecl { annotations, ty, name, init, span: start.to(self.prev_span()) }))
    }

    /// `const Type name = init;`
    pub(crate) fn const_decl(&mut self, annotations: Vec<Annotation>) -> PResult<ConstDecl> {
        let start = annotations.first().map(|a| a.span).unwrap_or(self.span());
        self.expect_kw(Keyword::Const)?;
        let ty = self.type_ref()?;
        let name = self.name()?;
        let ty = self.array_declarator(ty)?;
        self.expect(Punct::Assign)?;
        let value = self.expr()?;
        self.expect(Punct::Semi)?;
        self.declare(&name.name, false);
        Ok(ConstDecl { annotations, ty, name, value, span: start.to(self.prev_span()) })
    }

    /// An assignment, compound assignment or call, without the `;`.
    pub(crate) fn simple_stmt(&mut self) -> PResult<Stmt> {
        let lhs = self.expr()?;
        let start = lhs.span;
        let compound = match self.peek().kind {
            TokenKind::Punct(Punct::Assign) => Some(None),
            TokenKind::Punct(Punct::PlusAssign) => Some(Some(BinOp::Add)),
            TokenKind::Punct(Punct::MinusAssign) => Some(Some(BinOp::Sub)),
            TokenKind::Punct(Punct::StarAssign) => Some(Some(BinOp::Mul)),
            TokenKind::Punct(Punct::SlashAssign) => Some(Some(BinOp::Div)),
            TokenKind::Punct(Punct::PercentAssign) => Some(Some(BinOp::Mod)),
            TokenKind::Punct(Punct::AmpAssign) => Some(Some(BinOp::BitAnd)),
            TokenKind::Punct(Punct::PipeAssign) => Some(Some(BinOp::BitOr)),
            TokenKind::Punct(Punct::CaretAssign) => Some(Some(BinOp::BitXor)),
            TokenKind::Punct(Punct::ShlAssign) => Some(Some(BinOp::Shl)),
            TokenKind::Punct(Punct::PlusSatAssign) => Some(Some(BinOp::AddSat)),
            TokenKind::Punct(Punct::MinusSatAssign) => Some(Some(BinOp::SubSat)),
            TokenKind::Punct(Punct::Gt) if self.peek_at(1).glued && self.peek_at(1).is_punct(Punct::Ge) => {
                self.bump();
                Some(Some(BinOp::Shr))
            }
            _ => None,
        };
        if let Some(op) = compound {
            self.bump();
            let rhs = self.expr()?;
            let span = start.to(rhs.span);
            return Ok(Stmt::Assign { lhs, op, rhs, span });
        }
        if matches!(lhs.kind, ExprKind::Call { .. } | ExprKind::Construct { .. }) {
            return Ok(Stmt::Call { span: lhs.span, call: lhs });
        }
        Err(self.error_expected("`=` or `(` (a statement must be an assignment or a call)"))
    }

    fn switch_stmt(&mut self) -> PResult<Stmt> {
        let start = self.expect_kw(Keyword::Switch)?;
        self.expect(Punct::LParen)?;
        let expr = self.expr()?;
        self.expect(Punct::RParen)?;
        self.expect(Punct::LBrace)?;
        let mut cases = Vec::new();
        while !self.at(Punct::RBrace) && !self.at_eof() {
            let case_start = self.span();
            let r = (|| -> PResult<SwitchCase> {
                let label = if self.eat_kw(Keyword::Default) { None } else { Some(self.expr()?) };
                self.expect(Punct::Colon)?;
                let body = if self.at(Punct::LBrace) || self.at(Punct::At) {
                    let annotations = self.annotations()?;
                    Some(self.block(annotations)?)
                } else {
                    None
                };
                Ok(SwitchCase { label, body, span: case_start.to(self.prev_span()) })
            })();
            match r {
                Ok(c) => cases.push(c),
                Err(Fail) => self.recover(),
            }
        }
        self.expect(Punct::RBrace)?;
        Ok(Stmt::Switch { expr, cases, span: start.to(self.prev_span()) })
    }

    fn for_stmt(&mut self, annotations: Vec<Annotation>) -> PResult<Stmt> {
        let start = annotations.first().map(|a| a.span).unwrap_or(self.span());
        self.expect_kw(Keyword::For)?;
        self.expect(Punct::LParen)?;
        self.push_scope();
        let r = self.for_rest(annotations, start);
        self.pop_scope();
        r
    }

    fn for_rest(&mut self, annotations: Vec<Annotation>, start: crate::span::Span) -> PResult<Stmt> {
        // `for (T x in collection)`
        let in_head = self.speculate(|p| {
            let var_annotations = p.annotations()?;
            let ty = p.type_ref()?;
            let var = p.name()?;
            p.expect_kw(Keyword::In)?;
            Ok((var_annotations, ty, var))
        });
        if let Some((var_annotations, ty, var)) = in_head {
            self.declare(&var.name, false);
            let collection = self.simple_keyset()?;
            self.expect(Punct::RParen)?;
            let body = Box::new(self.stmt()?);
            let mut all = annotations;
            all.extend(var_annotations);
            return Ok(Stmt::ForIn { annotations: all, ty: Box::new(ty), var, collection, body, span: start.to(self.prev_span()) });
        }
        let mut init = Vec::new();
        while !self.at(Punct::Semi) {
            let anns = self.annotations()?;
            match self.local_var_decl(anns)? {
                Some(d) => init.push(Stmt::Decl(Box::new(Decl::Var(d)))),
                None => init.push(self.simple_stmt()?),
            }
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        self.expect(Punct::Semi)?;
        let cond = if self.at(Punct::Semi) { None } else { Some(self.expr()?) };
        self.expect(Punct::Semi)?;
        let mut update = Vec::new();
        while !self.at(Punct::RParen) {
            update.push(self.simple_stmt()?);
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        self.expect(Punct::RParen)?;
        let body = Box::new(self.stmt()?);
        Ok(Stmt::For { annotations, init, cond, update, body, span: start.to(self.prev_span()) })
    }
}

impl Parser<'_> {
    /// Does the cursor start something that is only ever a declaration outside a statement list
    /// (`control`, `action`, `table`, `state s {`, `apply {`, ...)? Used to detect missing `}`.
    pub(crate) fn at_declaration_keyword(&self) -> bool {
        let TokenKind::Keyword(k) = self.peek().kind else { return false };
        match k {
            Keyword::Control
            | Keyword::Parser
            | Keyword::Package
            | Keyword::Extern
            | Keyword::Header
            | Keyword::HeaderUnion
            | Keyword::Struct
            | Keyword::Typedef
            | Keyword::Action
            | Keyword::Table
            | Keyword::MatchKind => true,
            Keyword::Apply => self.peek_at(1).is_punct(Punct::LBrace),
            Keyword::State => self.peek_at(2).is_punct(Punct::LBrace) && self.name_of(self.peek_at(1)).is_some(),
            _ => false,
        }
    }
}

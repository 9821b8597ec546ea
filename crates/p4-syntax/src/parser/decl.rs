//! Declarations: top level, parser/control locals, extern members and object initializers.
//!
//! One entry point, [`Parser::declaration`], accepts every declaration kind everywhere; which kind
//! is legal where is a semantic question left to `p4-sema` (its errors are better than a parser's).

use super::{Fail, PResult, Parser};
use crate::ast::*;
use crate::span::Span;
use crate::token::{Keyword, Punct, TokenKind};

impl Parser<'_> {
    pub(crate) fn declaration(&mut self) -> PResult<Decl> {
        self.nested(|p| {
            let annotations = p.annotations()?;
            p.declaration_with(annotations)
        })
    }

    pub(crate) fn declaration_with(&mut self, annotations: Vec<Annotation>) -> PResult<Decl> {
        let start = annotations.first().map(|a| a.span).unwrap_or(self.span());
        let tok = *self.peek();
        match &tok.kind {
            TokenKind::Keyword(Keyword::Const) => Ok(Decl::Const(self.const_decl(annotations)?)),
            TokenKind::Keyword(Keyword::Extern) => self.extern_decl(annotations, start),
            TokenKind::Keyword(Keyword::Action) => self.action_decl(annotations, start),
            TokenKind::Keyword(Keyword::Parser) => self.parser_decl(annotations, start),
            TokenKind::Keyword(Keyword::Control) => self.control_decl(annotations, start),
            TokenKind::Keyword(Keyword::Package) => {
                let ty = self.block_type(annotations, start)?;
                self.expect(Punct::Semi)?;
                Ok(Decl::Package(ty))
            }
            TokenKind::Keyword(Keyword::Header | Keyword::HeaderUnion | Keyword::Struct | Keyword::Enum) => {
                self.derived_type(annotations, start)
            }
            TokenKind::Keyword(Keyword::Typedef) => self.typedef_decl(annotations, start, false),
            TokenKind::Keyword(Keyword::Type) if !self.peek_at(1).is_punct(Punct::Assign) => {
                self.typedef_decl(annotations, start, true)
            }
            TokenKind::Keyword(Keyword::Error) if self.peek_at(1).is_punct(Punct::LBrace) => {
                self.bump();
                let members = self.ident_list()?;
                self.eat(Punct::Semi);
                Ok(Decl::Error(members, start.to(self.prev_span())))
            }
            TokenKind::Keyword(Keyword::MatchKind) if self.peek_at(1).is_punct(Punct::LBrace) => {
                self.bump();
                let members = self.ident_list()?;
                self.eat(Punct::Semi);
                Ok(Decl::MatchKind(members, start.to(self.prev_span())))
            }
            TokenKind::Keyword(Keyword::Table) => self.table_decl(annotations, start),
            TokenKind::Keyword(Keyword::ValueSet) => self.value_set_decl(annotations, start),
            _ => self.typed_decl(annotations, start),
        }
    }

    /// Declarations that start with a type: instantiation, function, variable.
    fn typed_decl(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<Decl> {
        let can_start_type = self.at_name() || self.at(Punct::Dot) || self.token_starts_certain_type(0);
        if !can_start_type {
            return Err(self.error_expected("a declaration"));
        }
        let ty = self.type_ref()?;
        if self.at(Punct::LParen) {
            return Ok(Decl::Instantiation(self.instantiation_rest(annotations, ty, start)?));
        }
        let name = self.name()?;
        if self.at(Punct::Lt) || self.at(Punct::LParen) {
            self.declare(&name.name, false);
            self.push_scope();
            let r = (|| {
                let type_params = self.opt_type_params()?;
                let params = self.params()?;
                let proto_span = start.to(self.prev_span());
                let body = self.block(vec![])?;
                let proto = FunctionProto { annotations, ret: Some(ty), name, type_params, params, span: proto_span };
                Ok(Decl::Function(FunctionDecl { proto, body }))
            })();
            self.pop_scope();
            return r;
        }
        let ty = self.array_declarator(ty)?;
        let init = if self.eat(Punct::Assign) { Some(self.expr()?) } else { None };
        self.expect(Punct::Semi)?;
        self.declare(&name.name, false);
        Ok(Decl::Var(VarDecl { annotations, ty, name, init, span: start.to(self.prev_span()) }))
    }

    /// After `Type`: `(args) name [= { objDeclarations }] ;`
    pub(crate) fn instantiation_rest(&mut self, annotations: Vec<Annotation>, ty: TypeRef, start: Span) -> PResult<Instantiation> {
        let args = self.args()?;
        let name = self.name()?;
        self.declare(&name.name, false);
        let initializer = if self.eat(Punct::Assign) {
            self.expect(Punct::LBrace)?;
            self.push_scope();
            let mut decls = Vec::new();
            while !self.at(Punct::RBrace) && !self.at_eof() {
                // Leniency: stray `;` (as in `action a() {};`) between declarations.
                if self.eat(Punct::Semi) {
                    continue;
                }
                let before = self.pos;
                match self.declaration() {
                    Ok(d) => decls.push(d),
                    Err(Fail) => self.recover(),
                }
                if self.pos == before {
                    self.bump();
                }
            }
            self.pop_scope();
            self.expect(Punct::RBrace)?;
            Some(decls)
        } else {
            None
        };
        self.expect(Punct::Semi)?;
        Ok(Instantiation { annotations, ty, args, name, initializer, span: start.to(self.prev_span()) })
    }

    /// `( parameter, ... )`; declares each parameter name as a value in the current scope.
    pub(crate) fn params(&mut self) -> PResult<Vec<Param>> {
        self.expect(Punct::LParen)?;
        let mut params = Vec::new();
        while !self.at(Punct::RParen) {
            let annotations = self.annotations()?;
            let start = annotations.first().map(|a| a.span).unwrap_or(self.span());
            let direction = if self.eat_kw(Keyword::In) {
                Direction::In
            } else if self.eat_kw(Keyword::Out) {
                Direction::Out
            } else if self.eat_kw(Keyword::Inout) {
                Direction::InOut
            } else {
                Direction::None
            };
            let ty = self.type_ref()?;
            let name = self.name()?;
            let default = if self.eat(Punct::Assign) { Some(self.expr()?) } else { None };
            self.declare(&name.name, false);
            params.push(Param { annotations, direction, ty, name, default, span: start.to(self.prev_span()) });
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        self.expect(Punct::RParen)?;
        Ok(params)
    }

    /// `{ name, name, ... [,] }`
    fn ident_list(&mut self) -> PResult<Vec<Ident>> {
        self.expect(Punct::LBrace)?;
        let mut names = Vec::new();
        while !self.at(Punct::RBrace) {
            names.push(self.name()?);
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        self.expect(Punct::RBrace)?;
        Ok(names)
    }

    /// `keyword Name <T...> (params)` shared by parser, control and package types. The name is
    /// declared as a type in the enclosing scope; the type parameters go into a new scope that the
    /// caller must pop.
    fn block_type(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<BlockTypeDecl> {
        self.bump();
        let name = self.name()?;
        self.declare(&name.name, true);
        self.push_scope();
        let r = (|| {
            let type_params = self.opt_type_params()?;
            let params = self.params()?;
            Ok(BlockTypeDecl { annotations, name, type_params, params, span: start.to(self.prev_span()) })
        })();
        self.pop_scope();
        r
    }

    fn opt_ctor_params(&mut self) -> PResult<Vec<Param>> {
        if self.at(Punct::LParen) {
            self.params()
        } else {
            Ok(vec![])
        }
    }

    fn parser_decl(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<Decl> {
        let ty = self.block_type(annotations, start)?;
        if self.eat(Punct::Semi) {
            return Ok(Decl::ParserType(ty));
        }
        self.push_scope();
        self.redeclare_params(&ty);
        let r = self.parser_body(ty, start);
        self.pop_scope();
        r
    }

    /// Re-enter a block type's type parameters and parameters into the (new) body scope.
    fn redeclare_params(&mut self, ty: &BlockTypeDecl) {
        for t in &ty.type_params {
            self.declare(&t.name, true);
        }
        for p in &ty.params {
            self.declare(&p.name.name, false);
        }
    }

    /// Local declarations of a parser or control body, up to what `end` recognises (given
    /// the annotations read before it, which it takes if it uses them): the first state of a
    /// parser, the apply block of a control. Returns what `end` produced, or `None` at `}` or the end of input. A bad
    /// declaration is reported and skipped, so one error does not hide the rest of the body.
    fn locals_until<T>(
        &mut self,
        locals: &mut Vec<Decl>,
        mut end: impl FnMut(&mut Self, &mut Vec<Annotation>) -> PResult<Option<T>>,
    ) -> Option<T> {
        while !self.at(Punct::RBrace) && !self.at_eof() {
            self.release_consumed();
            // Leniency: stray `;` (as in `action a() {};`) between declarations.
            if self.eat(Punct::Semi) {
                continue;
            }
            let before = self.pos;
            let r = (|| -> PResult<Option<T>> {
                let mut annotations = self.annotations()?;
                if let Some(found) = end(self, &mut annotations)? {
                    return Ok(Some(found));
                }
                locals.push(self.declaration_with(annotations)?);
                Ok(None)
            })();
            match r {
                Ok(Some(found)) => {
                    // Kept for the whole front end: no room left over from growing it.
                    locals.shrink_to_fit();
                    return Some(found);
                }
                Ok(None) => {}
                Err(Fail) => self.recover(),
            }
            if self.pos == before {
                self.bump();
            }
        }
        locals.shrink_to_fit();
        None
    }

    fn parser_body(&mut self, ty: BlockTypeDecl, start: Span) -> PResult<Decl> {
        let ctor_params = self.opt_ctor_params()?;
        self.expect(Punct::LBrace)?;
        let mut locals = Vec::new();
        let mut states = Vec::new();
        // The first state ends the local declarations; its annotations are already read.
        let mut pending = self.locals_until(&mut locals, |p, annotations| {
            let first_state = p.at_kw(Keyword::State) && !p.peek_at(1).is_punct(Punct::Assign);
            Ok(first_state.then(|| std::mem::take(annotations)))
        });
        while !self.at(Punct::RBrace) && !self.at_eof() {
            let before = self.pos;
            let annotations = match pending.take() {
                Some(a) => Ok(a),
                None => self.annotations(),
            };
            match annotations.and_then(|a| self.parser_state(a)) {
                Ok(s) => states.push(s),
                Err(Fail) => self.recover(),
            }
            if self.pos == before {
                self.bump();
            }
        }
        self.expect(Punct::RBrace)?;
        Ok(Decl::Parser(ParserDecl { ty, ctor_params, locals, states, span: start.to(self.prev_span()) }))
    }

    fn parser_state(&mut self, annotations: Vec<Annotation>) -> PResult<ParserState> {
        let start = annotations.first().map(|a| a.span).unwrap_or(self.span());
        self.expect_kw(Keyword::State)?;
        let name = self.name()?;
        self.expect(Punct::LBrace)?;
        self.push_scope();
        let body = self.stmts_until_close(true);
        let transition = if self.at_kw(Keyword::Transition) {
            match self.transition() {
                Ok(t) => Some(t),
                Err(Fail) => {
                    self.recover();
                    None
                }
            }
        } else {
            None
        };
        self.pop_scope();
        // Statements after the transition are an error; report the first and skip them.
        if !self.at(Punct::RBrace) && !self.at_eof() && !self.at_declaration_keyword() {
            let _ = self.error_expected("`}` (the transition must be the last statement of a state)");
            let _ = self.stmts_until_close(true);
        }
        if self.at_declaration_keyword() {
            // Missing `}` (reported): keep the state; the next one starts here.
            let _ = self.error_expected("`}`");
        } else {
            self.expect(Punct::RBrace)?;
        }
        Ok(ParserState { annotations, name, body, transition, span: start.to(self.prev_span()) })
    }

    fn transition(&mut self) -> PResult<Transition> {
        let start = self.expect_kw(Keyword::Transition)?;
        if !self.at_kw(Keyword::Select) {
            let p = self.path()?;
            self.expect(Punct::Semi)?;
            return Ok(Transition::Direct(p, start.to(self.prev_span())));
        }
        self.bump();
        self.expect(Punct::LParen)?;
        let exprs = self.expr_list_until(Punct::RParen)?;
        self.expect(Punct::RParen)?;
        self.expect(Punct::LBrace)?;
        let mut cases = Vec::new();
        while !self.at(Punct::RBrace) && !self.at_eof() {
            // Leniency: stray `;` (as in `action a() {};`) between declarations.
            if self.eat(Punct::Semi) {
                continue;
            }
            let before = self.pos;
            let r = (|| -> PResult<SelectCase> {
                let keyset = self.keyset()?;
                self.expect(Punct::Colon)?;
                let next = self.path()?;
                self.expect(Punct::Semi)?;
                Ok(SelectCase { span: keyset.span.to(self.prev_span()), keyset, next })
            })();
            match r {
                Ok(c) => cases.push(c),
                Err(Fail) => self.recover(),
            }
            if self.pos == before {
                self.bump();
            }
        }
        self.expect(Punct::RBrace)?;
        self.eat(Punct::Semi);
        Ok(Transition::Select { exprs, cases, span: start.to(self.prev_span()) })
    }

    fn control_decl(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<Decl> {
        let ty = self.block_type(annotations, start)?;
        if self.eat(Punct::Semi) {
            return Ok(Decl::ControlType(ty));
        }
        self.push_scope();
        self.redeclare_params(&ty);
        let r = self.control_body(ty, start);
        self.pop_scope();
        r
    }

    fn control_body(&mut self, ty: BlockTypeDecl, start: Span) -> PResult<Decl> {
        let ctor_params = self.opt_ctor_params()?;
        self.expect(Punct::LBrace)?;
        let mut locals = Vec::new();
        let apply = self.locals_until(&mut locals, |p, annotations| {
            if p.at_kw(Keyword::Apply) && p.peek_at(1).is_punct(Punct::LBrace) {
                p.bump();
                return p.block(std::mem::take(annotations)).map(Some);
            }
            Ok(None)
        });
        let apply = match apply {
            Some(b) => b,
            None => {
                let _ = self.error_expected("`apply { ... }` in the control");
                Block { annotations: vec![], stmts: vec![], span: self.span() }
            }
        };
        while self.eat(Punct::Semi) {}
        if !self.at(Punct::RBrace) {
            let _ = self.error_expected("`}` closing the control after its `apply` block");
            self.recover();
        }
        self.expect(Punct::RBrace)?;
        Ok(Decl::Control(ControlDecl { ty, ctor_params, locals, apply, span: start.to(self.prev_span()) }))
    }

    fn action_decl(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<Decl> {
        self.expect_kw(Keyword::Action)?;
        let name = self.name()?;
        self.declare(&name.name, false);
        self.push_scope();
        let r = (|| {
            let params = self.params()?;
            let body = self.block(vec![])?;
            Ok(Decl::Action(ActionDecl { annotations, name, params, body, span: start.to(self.prev_span()) }))
        })();
        self.pop_scope();
        r
    }

    /// header / header_union / struct / enum (also the derived part of a `typedef`).
    fn derived_type(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<Decl> {
        let kw = self.bump();
        if kw.is_kw(Keyword::Enum) {
            return self.enum_decl(annotations, start);
        }
        let kind = match kw.kind {
            TokenKind::Keyword(Keyword::Header) => StructKind::Header,
            TokenKind::Keyword(Keyword::HeaderUnion) => StructKind::HeaderUnion,
            _ => StructKind::Struct,
        };
        let name = self.name()?;
        self.declare(&name.name, true);
        self.push_scope();
        let r = (|| {
            let type_params = self.opt_type_params()?;
            self.expect(Punct::LBrace)?;
            let mut fields = Vec::new();
            while !self.at(Punct::RBrace) && !self.at_eof() {
                // Leniency: stray `;` (as in `action a() {};`) between declarations.
                if self.eat(Punct::Semi) {
                    continue;
                }
                let before = self.pos;
                let r = (|| -> PResult<Field> {
                    let annotations = self.annotations()?;
                    let fstart = annotations.first().map(|a| a.span).unwrap_or(self.span());
                    let ty = self.type_ref()?;
                    // Leniency: any keyword is accepted as a field name (`bit<8> out;`), since
                    // nothing else can stand there; members are accessed with `.` anyway.
                    let name = self.member_name()?;
                    let ty = self.array_declarator(ty)?;
                    self.expect(Punct::Semi)?;
                    Ok(Field { annotations, ty, name, span: fstart.to(self.prev_span()) })
                })();
                match r {
                    Ok(f) => fields.push(f),
                    Err(Fail) => self.recover(),
                }
                if self.pos == before {
                    self.bump();
                }
            }
            self.expect(Punct::RBrace)?;
            Ok(Decl::StructLike(StructLikeDecl { annotations, kind, name, type_params, fields, span: start.to(self.prev_span()) }))
        })();
        self.pop_scope();
        r
    }

    fn enum_decl(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<Decl> {
        let underlying = if self.at_name() && self.peek_at(1).is_punct(Punct::LBrace) { None } else { Some(self.type_ref()?) };
        let name = self.name()?;
        self.declare(&name.name, true);
        self.expect(Punct::LBrace)?;
        let mut members = Vec::new();
        while !self.at(Punct::RBrace) {
            // p4c accepts annotations on members; they carry no meaning for p4forge.
            if self.at(Punct::At) {
                self.annotations()?;
            }
            let m = self.name()?;
            let value = if self.eat(Punct::Assign) { Some(self.expr()?) } else { None };
            members.push((m, value));
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        self.expect(Punct::RBrace)?;
        Ok(Decl::Enum(EnumDecl { annotations, name, underlying, members, span: start.to(self.prev_span()) }))
    }

    fn typedef_decl(&mut self, annotations: Vec<Annotation>, start: Span, is_new_type: bool) -> PResult<Decl> {
        self.bump();
        let derived = matches!(
            self.peek().kind,
            TokenKind::Keyword(Keyword::Header | Keyword::HeaderUnion | Keyword::Struct | Keyword::Enum)
        );
        let ty = if derived {
            let dstart = self.span();
            TypedefTarget::Derived(Box::new(self.derived_type(vec![], dstart)?))
        } else {
            TypedefTarget::Type(self.type_ref()?)
        };
        let name = self.name()?;
        self.declare(&name.name, true);
        self.expect(Punct::Semi)?;
        Ok(Decl::Typedef(TypedefDecl { annotations, is_new_type, ty, name, span: start.to(self.prev_span()) }))
    }

    fn value_set_decl(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<Decl> {
        self.expect_kw(Keyword::ValueSet)?;
        self.expect(Punct::Lt)?;
        let elem = self.type_ref()?;
        self.expect_close_angle()?;
        self.expect(Punct::LParen)?;
        let size = self.expr()?;
        self.expect(Punct::RParen)?;
        let name = self.name()?;
        self.declare(&name.name, false);
        self.expect(Punct::Semi)?;
        Ok(Decl::ValueSet(ValueSetDecl { annotations, elem, size, name, span: start.to(self.prev_span()) }))
    }

    /// `extern Name<T> { members }` or `extern R f<T>(params);`
    fn extern_decl(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<Decl> {
        self.expect_kw(Keyword::Extern)?;
        if self.at_name() && self.peek_at(1).is_punct(Punct::Semi) {
            // `extern Name;` — a forward declaration (p4c accepts it). It only introduces a type
            // name, so it becomes an error declaration with no members: a no-op for sema.
            let name = self.name()?;
            self.declare(&name.name, true);
            self.bump();
            return Ok(Decl::Error(vec![], start.to(self.prev_span())));
        }
        if self.is_extern_object() {
            let name = self.name()?;
            self.declare(&name.name, true);
            self.push_scope();
            let r = self.extern_object_rest(annotations, name, start);
            self.pop_scope();
            return r;
        }
        let proto = self.function_proto(annotations, start)?;
        self.expect(Punct::Semi)?;
        self.declare(&proto.name.name, false);
        Ok(Decl::ExternFunction(proto))
    }

    /// After `extern`: `Name {` or `Name <...> {` is an object; anything else a function.
    fn is_extern_object(&self) -> bool {
        if !self.at_name() {
            return false;
        }
        let next = self.peek_at(1);
        if next.is_punct(Punct::LBrace) {
            return true;
        }
        if !next.is_punct(Punct::Lt) {
            return false;
        }
        let mut depth = 0usize;
        let mut k = 1;
        loop {
            let t = self.peek_at(k);
            match t.kind {
                TokenKind::Punct(Punct::Lt) => depth += 1,
                TokenKind::Punct(Punct::Gt) => {
                    depth -= 1;
                    if depth == 0 {
                        return self.peek_at(k + 1).is_punct(Punct::LBrace);
                    }
                }
                TokenKind::Eof | TokenKind::Punct(Punct::Semi | Punct::LBrace | Punct::LParen) => return false,
                _ => {}
            }
            k += 1;
        }
    }

    fn extern_object_rest(&mut self, annotations: Vec<Annotation>, name: Ident, start: Span) -> PResult<Decl> {
        let type_params = self.opt_type_params()?;
        self.expect(Punct::LBrace)?;
        let mut methods = Vec::new();
        while !self.at(Punct::RBrace) && !self.at_eof() {
            // Leniency: stray `;` (as in `action a() {};`) between declarations.
            if self.eat(Punct::Semi) {
                continue;
            }
            let before = self.pos;
            let r = (|| -> PResult<ExternMethod> {
                let anns = self.annotations()?;
                let mstart = anns.first().map(|a| a.span).unwrap_or(self.span());
                let is_abstract = self.eat_kw(Keyword::Abstract);
                let is_ctor = !is_abstract
                    && self.peek().ident().map(|s| self.text(s)) == Some(&*name.name)
                    && self.peek_at(1).is_punct(Punct::LParen);
                let proto = if is_ctor {
                    let cname = self.name()?;
                    self.push_scope();
                    let params = self.params();
                    self.pop_scope();
                    FunctionProto { annotations: anns, ret: None, name: cname, type_params: vec![], params: params?, span: mstart.to(self.prev_span()) }
                } else {
                    self.function_proto(anns, mstart)?
                };
                self.expect(Punct::Semi)?;
                Ok(ExternMethod { is_abstract, proto })
            })();
            match r {
                Ok(m) => methods.push(m),
                Err(Fail) => self.recover(),
            }
            if self.pos == before {
                self.bump();
            }
        }
        self.expect(Punct::RBrace)?;
        Ok(Decl::Extern(ExternDecl { annotations, name, type_params, methods, span: start.to(self.prev_span()) }))
    }

    /// `R name<T>(params)` — the return type may mention type parameters declared after it.
    fn function_proto(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<FunctionProto> {
        let ret = self.type_ref()?;
        let name = self.name()?;
        self.push_scope();
        let r = (|| {
            let type_params = self.opt_type_params()?;
            let params = self.params()?;
            Ok(FunctionProto { annotations, ret: Some(ret), name, type_params, params, span: start.to(self.prev_span()) })
        })();
        self.pop_scope();
        r
    }

    fn table_decl(&mut self, annotations: Vec<Annotation>, start: Span) -> PResult<Decl> {
        self.expect_kw(Keyword::Table)?;
        let name = self.name()?;
        self.declare(&name.name, false);
        // The parameters are visible only inside the table body.
        self.push_scope();
        let r = self.table_body();
        self.pop_scope();
        let (params, properties) = r?;
        Ok(Decl::Table(TableDecl { annotations, name, params, properties, span: start.to(self.prev_span()) }))
    }

    /// `[( params )] { property... }` of a table declaration.
    fn table_body(&mut self) -> PResult<(Vec<Param>, Vec<TableProperty>)> {
        let params = if self.at(Punct::LParen) { self.params()? } else { Vec::new() };
        self.expect(Punct::LBrace)?;
        let mut properties = Vec::new();
        while !self.at(Punct::RBrace) && !self.at_eof() {
            let before = self.pos;
            match self.table_property() {
                Ok(p) => properties.push(p),
                Err(Fail) => self.recover(),
            }
            if self.pos == before {
                self.bump();
            }
        }
        self.expect(Punct::RBrace)?;
        properties.shrink_to_fit();
        Ok((params, properties))
    }

    fn table_property(&mut self) -> PResult<TableProperty> {
        let annotations = self.annotations()?;
        let start = annotations.first().map(|a| a.span).unwrap_or(self.span());
        let is_const = self.eat_kw(Keyword::Const);
        let assign_follows = self.peek_at(1).is_punct(Punct::Assign);
        if self.at_kw(Keyword::Key) && assign_follows {
            self.bump();
            self.bump();
            self.expect(Punct::LBrace)?;
            let elements = self.items_until_rbrace(|p| -> PResult<KeyElement> {
                let lead = p.annotations()?;
                let kstart = lead.first().map(|a| a.span).unwrap_or(p.span());
                let expr = p.expr()?;
                p.expect(Punct::Colon)?;
                let match_kind = p.name()?;
                let mut anns = lead;
                anns.extend(p.annotations()?);
                p.expect(Punct::Semi)?;
                Ok(KeyElement { annotations: anns, expr, match_kind, span: kstart.to(p.prev_span()) })
            });
            self.expect(Punct::RBrace)?;
            self.eat(Punct::Semi);
            return Ok(TableProperty::Key { elements, span: start.to(self.prev_span()) });
        }
        if self.at_kw(Keyword::Actions) && assign_follows {
            self.bump();
            self.bump();
            self.expect(Punct::LBrace)?;
            let actions = self.items_until_rbrace(|p| {
                let anns = p.annotations()?;
                let a = p.action_ref(anns)?;
                p.expect(Punct::Semi)?;
                Ok(a)
            });
            self.expect(Punct::RBrace)?;
            self.eat(Punct::Semi);
            return Ok(TableProperty::Actions { actions, span: start.to(self.prev_span()) });
        }
        if self.at_kw(Keyword::Entries) && assign_follows {
            self.bump();
            self.bump();
            self.expect(Punct::LBrace)?;
            let entries = self.items_until_rbrace(|p| p.entry());
            self.expect(Punct::RBrace)?;
            self.eat(Punct::Semi);
            return Ok(TableProperty::Entries { annotations, is_const, entries, span: start.to(self.prev_span()) });
        }
        let name = self.name()?;
        self.expect(Punct::Assign)?;
        let value = self.expr()?;
        self.expect(Punct::Semi)?;
        Ok(TableProperty::Other { annotations, is_const, name, value, span: start.to(self.prev_span()) })
    }

    /// `[.]name [(args)]`
    fn action_ref(&mut self, annotations: Vec<Annotation>) -> PResult<ActionRef> {
        let start = annotations.first().map(|a| a.span).unwrap_or(self.span());
        let name = self.path()?;
        let args = if self.at(Punct::LParen) { Some(self.args()?) } else { None };
        Ok(ActionRef { annotations, name, args, span: start.to(self.prev_span()) })
    }

    /// `[const] [priority = e :] keyset : actionRef annotations ;`
    fn entry(&mut self) -> PResult<Entry> {
        let mut annotations = self.annotations()?;
        let start = annotations.first().map(|a| a.span).unwrap_or(self.span());
        let is_const = self.eat_kw(Keyword::Const);
        let priority = if self.at_kw(Keyword::Priority) && self.peek_at(1).is_punct(Punct::Assign) {
            self.bump();
            self.bump();
            let e = self.expr()?;
            self.expect(Punct::Colon)?;
            Some(e)
        } else {
            None
        };
        let keyset = self.keyset()?;
        self.expect(Punct::Colon)?;
        let action = self.action_ref(vec![])?;
        annotations.extend(self.annotations()?);
        self.expect(Punct::Semi)?;
        Ok(Entry { annotations, is_const, priority, keyset, action, span: start.to(self.prev_span()) })
    }
}

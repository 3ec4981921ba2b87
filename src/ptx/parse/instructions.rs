//! Function bodies: statements, instructions and their operands.

use super::{unexpected, Parser, Space, LINKAGE};
use super::{Addr, BranchTable, Items, NameId, Operand, Stmt, Stmts};
use crate::ptx::lex::{error_at, number, Line, Number, Pos, Tok, Token};
use crate::read::limits::{MAX_PTX_NAMES, MAX_PTX_NESTING, MAX_PTX_OPERANDS, MAX_PTX_STATEMENTS};
use crate::read::{ErrorKind, Result};

impl<'a> Parser<'a> {
    pub(super) fn count_stmt(&mut self, pos: Pos) -> Result<()> {
        self.statements += 1;
        if self.statements > MAX_PTX_STATEMENTS {
            return Err(error_at(pos, ErrorKind::LimitExceeded, "too many statements"));
        }
        Ok(())
    }

    /// A function body from its `{` to the matching `}`.
    pub(super) fn body(&mut self) -> Result<Stmts<'a>> {
        let open = self.expect_punct(b'{')?;
        let bytes = self.lx.bytes_to_closing_line();
        let mut out = Stmts::for_body_bytes(bytes);
        self.names.reserve_for_body_bytes(bytes);
        out.push(Stmt::Open((&open).into()));
        let mut depth = 1usize;
        while depth > 0 {
            // The usual one-line instructions and labels, straight from the bytes.
            self.fast_lines(&mut out)?;
            let t = self.lx.next()?;
            let pos: Pos = (&t).into();
            self.count_stmt(pos)?;
            match t.kind {
                Tok::Eof => return Err(unexpected(&t, "'}' closing the function body")),
                Tok::Punct(b'{') => {
                    depth += 1;
                    if depth > MAX_PTX_NESTING {
                        return Err(error_at(pos, ErrorKind::LimitExceeded, "scopes nested too deeply"));
                    }
                    out.push(Stmt::Open(pos));
                }
                Tok::Punct(b'}') => {
                    depth -= 1;
                    out.push(Stmt::Close(pos));
                }
                Tok::Punct(b';') => {}
                Tok::Dir => match t.text {
                    ".loc" => {
                        let loc = self.loc_args()?;
                        out.push(Stmt::Loc(loc));
                    }
                    ".pragma" => self.skip_statement()?,
                    ".file" => self.file()?,
                    ".section" => {
                        self.lx.next()?;
                        self.skip_braces()?;
                    }
                    d if LINKAGE.contains(&d) => {
                        let first = self.lx.next()?;
                        if first.text == ".func" || first.text == ".entry" {
                            // A nested prototype declaration.
                            self.skip_statement()?;
                        } else {
                            for v in self.var_decl(Some(d), first, true)? {
                                self.push_decl(&mut out, v, depth == 1)?;
                            }
                        }
                    }
                    _ if Space::from_dir(t.text).is_some() => {
                        for v in self.var_decl(None, t, true)? {
                            self.push_decl(&mut out, v, depth == 1)?;
                        }
                    }
                    ".func" | ".callprototype" => self.skip_statement()?,
                    _ => {
                        return Err(error_at(
                            pos,
                            ErrorKind::Malformed,
                            format!("unexpected directive {} in a function body", t.text),
                        ))
                    }
                },
                Tok::Word if self.lx.peek()?.is(b':') => {
                    self.lx.next()?;
                    let next = self.lx.peek()?;
                    if next.kind == Tok::Dir && next.text == ".branchtargets" {
                        self.lx.next()?;
                        let mut targets = Vec::new();
                        loop {
                            let l = self.lx.next()?;
                            if l.kind != Tok::Word {
                                return Err(unexpected(&l, "a label"));
                            }
                            targets.push(l.text);
                            if !self.eat_punct(b',')? {
                                break;
                            }
                        }
                        self.expect_punct(b';')?;
                        out.push(Stmt::BranchTargets(Box::new(BranchTable { label: t.text, targets, pos })));
                    } else if next.kind == Tok::Dir && (next.text == ".callprototype" || next.text == ".calltargets") {
                        self.skip_statement()?;
                    } else {
                        out.push(Stmt::Label(t.text, pos));
                    }
                }
                Tok::Word | Tok::Punct(b'@') => {
                    let start = self.scratch.len();
                    self.items.clear();
                    let (guard, op, pos) = self.instruction(t)?;
                    out.push_inst(guard, op, self.scratch.drain(start..), &self.items, pos);
                    self.items.clear();
                }
                _ => return Err(unexpected(&t, "an instruction, label, directive or '}'")),
            }
        }
        out.names = self.names.take();
        Ok(out)
    }

    /// Statements read by the one-line reader ([`crate::ptx::lex::Lexer::fast_line`])
    /// until one is not of its shapes. Out of line, so that the loop over the
    /// usual lines keeps its state in registers (most of a body is read here).
    #[inline(never)]
    fn fast_lines(&mut self, out: &mut Stmts<'a>) -> Result<()> {
        loop {
            let stack = out.operand_stack();
            let start = stack.len();
            self.items.clear();
            match self.lx.fast_line(stack, &mut self.items, &mut self.names) {
                Some(Line::Inst { guard, op, pos }) => {
                    self.count_stmt(pos)?;
                    out.push_inst_pushed(guard, op, start, &mut self.items, pos);
                }
                Some(Line::Label(name, pos)) => {
                    self.count_stmt(pos)?;
                    out.push(Stmt::Label(name, pos));
                }
                Some(Line::Loc(loc, pos)) => {
                    self.count_stmt(pos)?;
                    out.push(Stmt::Loc(loc));
                }
                None => return Ok(()),
            }
        }
    }

    /// The id of a name read at `pos` in this body.
    pub(super) fn name_id(&mut self, name: &'a str, pos: Pos) -> Result<NameId> {
        self.names.id(name).ok_or_else(|| {
            error_at(pos, ErrorKind::LimitExceeded, format!("more than {MAX_PTX_NAMES} names in one function"))
        })
    }

    /// Appends a declaration with its name's id; a register range of the
    /// body scope (`body_scope`) reserves the ids of its elements when it
    /// can ([`super::VarDecl::first_id`]).
    fn push_decl(&mut self, out: &mut Stmts<'a>, mut v: super::VarDecl<'a>, body_scope: bool) -> Result<()> {
        v.id = Some(self.name_id(v.name, v.pos)?);
        if let (true, Space::Reg, Some(n)) = (body_scope, v.space, v.range) {
            if let Some((first, from, reserved)) = self.names.register_range(v.name, n) {
                (v.first_id, v.reserved_from, v.reserved) = (Some(first), from, reserved);
            }
        }
        out.push_decl(v);
        Ok(())
    }

    /// An instruction whose first token (its word or `@`) was read: its
    /// guard, word and position; its operands are pushed on the scratch stack
    /// and the items of its lists on the item slots (`self.items`).
    #[allow(clippy::type_complexity)]
    pub(super) fn instruction(&mut self, first: Token<'a>) -> Result<(Option<(NameId, bool)>, &'a str, Pos)> {
        let pos: Pos = (&first).into();
        let mut guard = None;
        let mut word = first;
        if first.is(b'@') {
            let neg = self.eat_punct(b'!')?;
            let p = self.lx.next()?;
            if !matches!(p.kind, Tok::Reg | Tok::Word) {
                return Err(unexpected(&p, "a predicate register after '@'"));
            }
            guard = Some((self.name_id(p.text, (&p).into())?, neg));
            word = self.lx.next()?;
        }
        if word.kind != Tok::Word {
            return Err(unexpected(&word, "an instruction"));
        }
        if self.eat_punct(b';')? {
            return Ok((guard, word.text, pos));
        }
        // Gathered on the scratch stack (lists inside an operand use the part
        // above, and move to the item slots when they close).
        let start = self.scratch.len();
        let r = self.instruction_operands(pos, start);
        if r.is_err() {
            self.scratch.truncate(start);
        }
        r?;
        Ok((guard, word.text, pos))
    }

    fn instruction_operands(&mut self, pos: Pos, start: usize) -> Result<()> {
        loop {
            let o = self.operand(0)?;
            self.scratch.push(o);
            if self.scratch.len() - start > MAX_PTX_OPERANDS {
                return Err(error_at(pos, ErrorKind::LimitExceeded, "too many operands"));
            }
            let t = self.lx.next()?;
            if t.is(b';') {
                return Ok(());
            }
            if !t.is(b',') {
                return Err(unexpected(&t, "',' or ';'"));
            }
        }
    }

    pub(super) fn operand(&mut self, depth: usize) -> Result<Operand> {
        self.operand_f(depth, true)
    }

    /// An operand; `fold` reads `sym+8` outside brackets as an address expression.
    pub(super) fn operand_f(&mut self, depth: usize, fold: bool) -> Result<Operand> {
        let t = self.lx.next()?;
        if depth > MAX_PTX_NESTING {
            return Err(error_at((&t).into(), ErrorKind::LimitExceeded, "operand nested too deeply"));
        }
        let op = match t.kind {
            Tok::Reg | Tok::Word if fold && t.text != "_" && self.sign_follows()? => {
                // `sym+8`, `%r1+1`, `%r1+-1`, `%r1+2*3`, `%r1+(1)` outside
                // brackets: a base plus an integer constant expression, which
                // ptxas accepts wherever an operand goes. The sign after the
                // base must be `+` (`%r1-4` is ptxas's syntax error; `%r1+-4`
                // is not).
                let id = self.name_id(t.text, (&t).into())?;
                let base = if t.kind == Tok::Reg { Operand::Reg(id) } else { Operand::Sym(id) };
                let sign = self.lx.next()?;
                if sign.is(b'-') {
                    return Err(error_at(
                        (&sign).into(),
                        ErrorKind::Malformed,
                        format!(
                            "'{}-' outside brackets: ptxas accepts a register or symbol plus an immediate \
                             ('{}+-N'), never minus one",
                            t.text, t.text
                        ),
                    ));
                }
                let offset = self.const_expr(depth + 1)?;
                let start = self.scratch.len();
                self.scratch.push(base);
                self.address(start, offset)?
            }
            Tok::Reg => Operand::Reg(self.name_id(t.text, (&t).into())?),
            Tok::Word if t.text == "_" => Operand::Sink,
            Tok::Word => Operand::Sym(self.name_id(t.text, (&t).into())?),
            Tok::Num => self.num(&t, false)?,
            Tok::Punct(b'-') => {
                let n = self.lx.next()?;
                if n.kind != Tok::Num {
                    return Err(unexpected(&n, "a number after '-'"));
                }
                self.num(&n, true)?
            }
            Tok::Punct(b'!') => {
                let r = self.lx.next()?;
                if !matches!(r.kind, Tok::Reg | Tok::Word) {
                    return Err(unexpected(&r, "a predicate register after '!'"));
                }
                Operand::NotReg(self.name_id(r.text, (&r).into())?)
            }
            Tok::Punct(b'{') => Operand::Vector(self.list(b'}', depth)?),
            Tok::Punct(b'(') => Operand::List(self.list(b')', depth)?),
            Tok::Punct(b'[') => {
                // `[base]`, `[base+expr]`, or an immediate address `[expr]`
                // (`[-4]` keeps its old shape: base 0, offset -4).
                let p = self.lx.peek()?;
                let (base, mut offset) = if Self::starts_expr(&p) {
                    let v = self.const_expr(depth + 1)?;
                    if p.is(b'+') || p.is(b'-') {
                        (Operand::Int(0), v)
                    } else {
                        (Operand::Int(v), 0)
                    }
                } else {
                    (self.operand_f(depth + 1, false)?, 0)
                };
                let p = self.lx.peek()?;
                if p.is(b'-') {
                    return Err(error_at(
                        (&p).into(),
                        ErrorKind::Malformed,
                        "'-' after an address base: ptxas accepts the base plus an immediate ('[%rd1+-4]'), \
                         never minus one",
                    ));
                }
                if self.eat_punct(b'+')? {
                    offset = self.const_expr(depth + 1)?;
                }
                // The base and the operands after commas gather on the
                // scratch stack (then move to the item slots, unless inline).
                let start = self.scratch.len();
                self.scratch.push(base);
                let r = self.address_extra(depth);
                if r.is_err() {
                    self.scratch.truncate(start);
                }
                r?;
                self.address(start, offset)?
            }
            _ => return Err(unexpected(&t, "an operand")),
        };
        if self.lx.peek()?.is(b'|') {
            self.lx.next()?;
            let b = self.operand(depth + 1)?;
            let s = self.items.len();
            self.items.extend([op, b]);
            return Ok(Operand::Pair(self.items_from(s)?));
        }
        Ok(op)
    }

    fn address_extra(&mut self, depth: usize) -> Result<()> {
        while self.eat_punct(b',')? {
            let o = self.operand(depth + 1)?;
            self.scratch.push(o);
        }
        self.expect_punct(b']')?;
        Ok(())
    }

    /// The address of the base and extra operands on the scratch stack from
    /// `start` on (popped): inline when it can be, else with them moved to
    /// the item slots.
    fn address(&mut self, start: usize, offset: i64) -> Result<Operand> {
        if self.scratch.len() == start + 1 {
            if let Some(a) = self.scratch.last().and_then(|&b| Addr::inline(b, offset)) {
                self.scratch.truncate(start);
                return Ok(Operand::Addr(a));
            }
        }
        let s = self.items.len();
        self.items.extend(self.scratch.drain(start..));
        self.items.push(Operand::Int(offset));
        Ok(Operand::Addr(Addr::Full(self.items_from(s)?)))
    }

    /// The item slots from `s` to the end.
    fn items_from(&mut self, s: usize) -> Result<Items> {
        match Items::new(s, self.items.len()) {
            Some(r) => Ok(r),
            None => {
                let t = self.lx.peek()?;
                Err(error_at((&t).into(), ErrorKind::LimitExceeded, "too many operands"))
            }
        }
    }

    /// True when `+` or `-` comes next.
    fn sign_follows(&mut self) -> Result<bool> {
        let p = self.lx.peek()?;
        Ok(p.is(b'+') || p.is(b'-'))
    }

    /// A `{…}` or `(…)` list, gathered on the parser's scratch stack and moved
    /// to the instruction's item slots (no allocation).
    pub(super) fn list(&mut self, close: u8, depth: usize) -> Result<Items> {
        if self.eat_punct(close)? {
            return Ok(Items::default());
        }
        let start = self.scratch.len();
        let r = self.list_items(close, depth, start);
        if r.is_err() {
            self.scratch.truncate(start);
        }
        r?;
        let s = self.items.len();
        self.items.extend(self.scratch.drain(start..));
        self.items_from(s)
    }

    fn list_items(&mut self, close: u8, depth: usize, start: usize) -> Result<()> {
        loop {
            let o = self.operand(depth + 1)?;
            self.scratch.push(o);
            if self.scratch.len() - start > MAX_PTX_OPERANDS {
                let t = self.lx.peek()?;
                return Err(error_at((&t).into(), ErrorKind::LimitExceeded, "too many operands"));
            }
            let t = self.lx.next()?;
            if t.is(close) {
                return Ok(());
            }
            if !t.is(b',') {
                return Err(unexpected(&t, &format!("',' or '{}'", close as char)));
            }
        }
    }

    pub(super) fn num(&mut self, t: &Token<'a>, neg: bool) -> Result<Operand> {
        let v =
            number(t.text).ok_or_else(|| error_at(t.into(), ErrorKind::Malformed, format!("bad number {}", t.text)))?;
        Ok(number_operand(v, neg))
    }
}

/// The immediate operand of a number token's value, negated after a `-`.
pub(crate) fn number_operand(v: Number, neg: bool) -> Operand {
    match v {
        Number::Int(x) => {
            let x = x as i64;
            Operand::Int(if neg { x.wrapping_neg() } else { x })
        }
        Number::F32(b) => Operand::Float(u64::from(if neg { b ^ 0x8000_0000 } else { b }), 32),
        Number::F64(b) => Operand::Float(if neg { b ^ (1 << 63) } else { b }, 64),
    }
}

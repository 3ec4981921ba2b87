//! The byte-level fast path for the usual statement of a function body, all
//! on one line: an instruction `[@[!]%p] word op, op, …;` whose operands are
//! registers, symbols, `_`, numbers, `-N`, `!%p`, `[base]`, `[base+N]`,
//! `[base+-N]`, `{…}` of such plain items, a pair `a|b` of them, and an
//! address with plain items or vectors after commas (`[%rd1, {%r1, %r2}]`);
//! a label `name:`; and the usual `.loc`. It reads them as the token path
//! does (the same texts, values and position, with no token, `Result` or
//! peek per item) and otherwise declines, having consumed only the spaces,
//! newlines and `//` comments before the statement, for the token path to
//! read it (and report any error where it is).

use super::{is_word_byte, number, scan, Lexer, Number, Pos, CLASS, DOT, SPACE, START, WORD};
use crate::ptx::parse::{
    digits_value, nondigit_bits, number_operand, Addr, Interner, Items, LocDirective, NameId, Operand,
};
use crate::read::limits::MAX_PTX_OPERANDS;

/// A statement read by the one-line reader (`Lexer::fast_line`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line<'a> {
    /// An instruction (its operands were pushed on the caller's stack).
    Inst {
        /// Guard predicate and whether it is negated.
        guard: Option<(NameId, bool)>,
        /// Instruction word.
        op: &'a str,
        /// Where it starts (the guard, when present).
        pos: Pos,
    },
    /// A label not followed by a directive (`.branchtargets`, …).
    Label(&'a str, Pos),
    /// The usual `.loc` (read by [`Lexer::simple_loc`]).
    Loc(LocDirective, Pos),
}

impl<'a> Lexer<'a> {
    /// Reads the next statement by the fast path when it has the usual
    /// shape, pushing an instruction's operands on `out` and the items of its
    /// vectors, pairs and full addresses on `items` ([`Items`] index them from
    /// where `items` was), with the ids of their names from `names`; `None`
    /// (with `out` and `items` as they were) otherwise.
    pub(crate) fn fast_line(
        &mut self,
        out: &mut Vec<Operand>,
        items: &mut Vec<Operand>,
        names: &mut Interner<'a>,
    ) -> Option<Line<'a>> {
        if self.peeked.is_some() {
            return None;
        }
        self.skip_plain_trivia();
        let b = self.bytes;
        if b.get(self.pos) == Some(&b'.')
            && b.get(self.pos + 1..self.pos + 4) == Some(b"loc")
            && b.get(self.pos + 4).is_some_and(|&c| CLASS[c as usize] & SPACE != 0)
        {
            // What the token path does with a `.loc` token, without the token.
            let (at, pos) = (self.pos, self.here());
            self.pos += 4;
            if let Some(((file, line, col), inlined_at)) = self.simple_loc() {
                return Some(Line::Loc(LocDirective { file, line, col, inlined_at }, pos));
            }
            self.pos = at;
            return None;
        }
        let start = out.len();
        let items_start = items.len();
        let mut r = Reader { b: self.bytes, text: self.text, i: self.pos, names, lines: 0, line_start: 0 };
        let mut read = r.statement::<false>(out, items, start);
        if read.is_none() {
            // Maybe an instruction over several lines (CuTe DSL's
            // `mma.sync`): read again, passing newlines before operands.
            out.truncate(start);
            items.truncate(items_start);
            r.i = self.pos;
            read = r.several_lines(out, items, start);
        }
        match read {
            Some(kind) => {
                let pos = self.here();
                self.pos = r.i;
                if r.lines > 0 {
                    self.line = self.line.saturating_add(r.lines);
                    self.line_start = r.line_start;
                }
                Some(match kind {
                    Kind::Inst(guard, op) => Line::Inst { guard, op, pos },
                    Kind::Label(name) => Line::Label(name, pos),
                })
            }
            None => {
                out.truncate(start);
                items.truncate(items_start);
                None
            }
        }
    }

    /// Skips spaces, newlines and `//` comments (what the token lexer skips
    /// the same way before a token); stops at a `/*` comment, which may be
    /// unterminated.
    pub(super) fn skip_plain_trivia(&mut self) {
        let b = self.bytes;
        let mut i = self.pos;
        loop {
            match b.get(i) {
                Some(&c) if CLASS[c as usize] & SPACE != 0 => i += 1,
                Some(b'\n') => {
                    i += 1;
                    self.line = self.line.saturating_add(1);
                    self.line_start = i;
                }
                Some(b'/') if b.get(i + 1) == Some(&b'/') => {
                    let rest = b.get(i..).unwrap_or(&[]);
                    i += memchr::memchr(b'\n', rest).unwrap_or(rest.len());
                }
                _ => break,
            }
        }
        self.pos = i;
    }
}

enum Kind<'a> {
    Inst(Option<(NameId, bool)>, &'a str),
    Label(&'a str),
}

/// A cursor over the bytes of one line.
struct Reader<'a, 'n> {
    b: &'a [u8],
    text: &'a str,
    i: usize,
    names: &'n mut Interner<'a>,
    /// Newlines passed between the instruction word and its operands or
    /// after a comma (an instruction written over several lines), and the
    /// start of the line after the last one.
    lines: u32,
    line_start: usize,
}

impl<'a> Reader<'a, '_> {
    #[inline(always)]
    fn at(&self) -> u8 {
        self.b.get(self.i).copied().unwrap_or(0)
    }

    #[inline(always)]
    fn spaces(&mut self) {
        let mut i = self.i;
        while self.b.get(i).is_some_and(|&c| CLASS[c as usize] & SPACE != 0) {
            i += 1;
        }
        self.i = i;
    }

    /// Spaces, then the byte at the cursor (not consumed; 0 at the end).
    #[inline(always)]
    fn past_spaces(&mut self) -> u8 {
        let c = self.at();
        if CLASS[c as usize] & SPACE == 0 {
            return c;
        }
        self.spaces();
        self.at()
    }

    /// Newlines and spaces after spaces (where an instruction continues on
    /// the next line: before an operand), counted for the lexer's line
    /// numbers. Out of line: compilers seldom break an instruction.
    #[cold]
    #[inline(never)]
    fn newlines(&mut self) {
        let mut i = self.i;
        loop {
            match self.b.get(i) {
                Some(&c) if CLASS[c as usize] & SPACE != 0 => i += 1,
                Some(b'\n') => {
                    i += 1;
                    self.lines = self.lines.saturating_add(1);
                    self.line_start = i;
                }
                _ => break,
            }
        }
        self.i = i;
    }

    /// Spaces, then the byte `c` (consumed).
    fn eat(&mut self, c: u8) -> bool {
        self.spaces();
        let hit = self.at() == c;
        self.i += usize::from(hit);
        hit
    }

    /// A word token (`ld.global.u32`, `$L__BB0_2`, `_`).
    fn word(&mut self) -> Option<&'a str> {
        let s = self.i;
        if CLASS[self.at() as usize] & START == 0 {
            return None;
        }
        self.i = scan(self.b, s + 1, WORD | DOT, true);
        self.text.get(s..self.i)
    }

    /// A register token (`%r1`, `%tid.x`).
    fn reg(&mut self) -> Option<&'a str> {
        let s = self.i;
        if self.at() != b'%' || !is_word_byte(self.b.get(s + 1).copied().unwrap_or(0)) {
            return None;
        }
        self.i = scan(self.b, s + 1, WORD | DOT, true);
        self.text.get(s..self.i)
    }

    /// A register (its `%` is next) and its name's id. The usual `%r123`
    /// (a prefix without digits, then canonical decimal digits, then the end
    /// of the word, at most 8 bytes) of a range with reserved ids is read
    /// from one word of the text, neither scanned byte by byte nor hashed
    /// ([`Interner::range_of`]); anything else is scanned and interned.
    #[inline(always)]
    fn reg_id(&mut self) -> Option<NameId> {
        let (b, s) = (self.b, self.i);
        if self.names.has_ranges() {
            if let Some(x) = b.get(s..s + 8) {
                let w = u64::from_le_bytes(x.try_into().ok()?);
                if let Some((n, id)) = self.element(w, b.get(s + 8).copied().unwrap_or(0)) {
                    let name = self.text.get(s..s + n)?;
                    self.i = s + n;
                    return Some(self.names.reserved(id, name));
                }
                return self.reg_not_element();
            }
        }
        let r = self.reg()?;
        self.names.id(r)
    }

    /// [`Reader::reg_id`] of a register that is no range element with a
    /// reserved id (what [`Interner::id`] would find too, unless a lone `:`
    /// ended the look at its word): scanned and hashed.
    #[inline(never)]
    fn reg_not_element(&mut self) -> Option<NameId> {
        let r = self.reg()?;
        if self.at() == b':' {
            return self.names.id(r);
        }
        self.names.id_not_element(r)
    }

    /// The length and reserved id of the register whose first 8 bytes are
    /// `w` (`next` after them), when it is a range element with one.
    #[inline(always)]
    fn element(&self, w: u64, next: u8) -> Option<(usize, u32)> {
        const HIGH: u64 = 0x8080_8080_8080_8080;
        let nd = nondigit_bits(w);
        // The prefix (to the first digit), then the digits to the end of the
        // word: a register of no range with reserved ids, or of more digits
        // than its range's, costs only this.
        let f = (!nd & HIGH).trailing_zeros() as usize / 8;
        if f >= 8 {
            return None;
        }
        let r = self.names.range_of(w & ((1u64 << (8 * f)) - 1))?;
        let c = ((nd >> (8 * f)).trailing_zeros() as usize / 8).min(8 - f);
        let n = f + c;
        let end = if n < 8 { (w >> (8 * n)) as u8 } else { next };
        let tail = w >> (8 * f);
        if c > r.digits() || CLASS[end as usize] & (WORD | DOT) != 0 || end == b':' || (c > 1 && tail as u8 == b'0') {
            return None;
        }
        let id = r.element(digits_value(tail, c))?;
        Some((n, id))
    }

    /// A register or a word (a predicate after `@` or `!`).
    fn reg_or_word(&mut self) -> Option<&'a str> {
        self.spaces();
        if self.at() == b'%' {
            self.reg()
        } else {
            self.word()
        }
    }

    /// A number token's value.
    fn number(&mut self) -> Option<Number> {
        let s = self.i;
        if !self.at().is_ascii_digit() {
            return None;
        }
        self.i = scan(self.b, s + 1, WORD | DOT, false);
        number(self.text.get(s..self.i)?)
    }

    /// [`Reader::statement`] of an instruction whose operands may start on
    /// later lines (out of line: the one-line read comes first).
    #[cold]
    #[inline(never)]
    fn several_lines(&mut self, out: &mut Vec<Operand>, items: &mut Vec<Operand>, start: usize) -> Option<Kind<'a>> {
        self.statement::<true>(out, items, start)
    }

    /// The statement at the cursor; with `NL`, newlines may come before
    /// an operand (they are counted).
    fn statement<const NL: bool>(
        &mut self,
        out: &mut Vec<Operand>,
        items: &mut Vec<Operand>,
        start: usize,
    ) -> Option<Kind<'a>> {
        let mut guard = None;
        if self.at() == b'@' {
            self.i += 1;
            let neg = self.eat(b'!');
            let p = self.reg_or_word()?;
            guard = Some((self.names.id(p)?, neg));
            self.spaces();
        }
        let op = self.word()?;
        self.spaces();
        match self.at() {
            b';' => {
                self.i += 1;
                return Some(Kind::Inst(guard, op));
            }
            b':' if guard.is_none() => {
                // A label, unless a directive follows (`.branchtargets`,
                // `.callprototype`, `.calltargets`), maybe on a later line;
                // the token after it must start as one that lexes (the token
                // path looks at it here, and would report its error).
                self.i += 1;
                let mut j = self.i;
                loop {
                    match self.b.get(j) {
                        Some(b'\n') => j += 1,
                        Some(&c) if CLASS[c as usize] & SPACE != 0 => j += 1,
                        Some(b'/') if self.b.get(j + 1) == Some(&b'/') => {
                            let rest = self.b.get(j..).unwrap_or(&[]);
                            j += memchr::memchr(b'\n', rest).unwrap_or(rest.len());
                        }
                        _ => break,
                    }
                }
                return match self.b.get(j) {
                    None | Some(b'@' | b'{' | b'}' | b'%' | b';') => Some(Kind::Label(op)),
                    Some(&c) if CLASS[c as usize] & START != 0 => Some(Kind::Label(op)),
                    _ => None,
                };
            }
            _ => {}
        }
        loop {
            self.spaces();
            if NL && self.at() == b'\n' {
                self.newlines();
            }
            // The operand and the byte after it (after any spaces).
            let (o, next) = match self.at() {
                b'{' => (self.vector(items)?, self.past_spaces()),
                b'[' => (self.address(out, items)?, self.past_spaces()),
                _ => {
                    let a = self.item()?;
                    match self.past_spaces() {
                        // `%r1|%p1` (two results): a plain item after the bar.
                        b'|' => {
                            self.i += 1;
                            self.spaces();
                            let b = self.item()?;
                            let s = items.len();
                            items.extend([a, b]);
                            (Operand::Pair(Items::new(s, items.len())?), self.past_spaces())
                        }
                        next => (a, next),
                    }
                }
            };
            out.push(o);
            if out.len() - start > MAX_PTX_OPERANDS {
                return None;
            }
            match next {
                b',' => self.i += 1,
                b';' => {
                    self.i += 1;
                    return Some(Kind::Inst(guard, op));
                }
                _ => return None,
            }
        }
    }

    /// An address `[base]`, `[base+N]`, `[base+-N]`, or one of those with
    /// commas and plain items or `{…}` vectors of them before the `]`
    /// (tensor coordinates, im2col offsets); its `[` is next. The base and
    /// the operands after commas gather on `out` above the instruction's
    /// operands, then move to `items` (after a vector's own items).
    #[inline(never)]
    fn address(&mut self, out: &mut Vec<Operand>, items: &mut Vec<Operand>) -> Option<Operand> {
        self.i += 1;
        self.spaces();
        let base = match self.at() {
            b'%' => Operand::Reg(self.reg_id()?),
            _ => match self.word()? {
                "_" => Operand::Sink,
                w => Operand::Sym(self.names.id(w)?),
            },
        };
        let mut offset = 0;
        let mut next = self.past_spaces();
        if next == b'+' {
            self.i += 1;
            let neg = self.eat(b'-');
            self.spaces();
            let Number::Int(v) = self.number()? else { return None };
            offset = if neg { (v as i64).wrapping_neg() } else { v as i64 };
            next = self.past_spaces();
        }
        if next == b']' {
            self.i += 1;
            if let Some(a) = Addr::inline(base, offset) {
                return Some(Operand::Addr(a));
            }
            let s = items.len();
            items.extend([base, Operand::Int(offset)]);
            return Some(Operand::Addr(Addr::Full(Items::new(s, items.len())?)));
        }
        let mark = out.len();
        out.push(base);
        while self.eat(b',') {
            self.spaces();
            let o = if self.at() == b'{' { self.vector(items)? } else { self.item()? };
            out.push(o);
            if out.len() - mark > MAX_PTX_OPERANDS + 1 {
                return None;
            }
        }
        if !self.eat(b']') {
            return None;
        }
        let s = items.len();
        items.extend(out.drain(mark..));
        items.push(Operand::Int(offset));
        Some(Operand::Addr(Addr::Full(Items::new(s, items.len())?)))
    }

    /// A vector `{…}` of plain items (its `{` is next), pushed on `items`.
    fn vector(&mut self, items: &mut Vec<Operand>) -> Option<Operand> {
        self.i += 1;
        let mark = items.len();
        loop {
            self.spaces();
            let o = self.item()?;
            items.push(o);
            if items.len() - mark > MAX_PTX_OPERANDS {
                return None;
            }
            match self.past_spaces() {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    break;
                }
                _ => return None,
            }
        }
        Some(Operand::Vector(Items::new(mark, items.len())?))
    }

    /// A register, symbol, `_`, number, `-N` or `!%p` (after any spaces).
    #[inline(always)]
    fn item(&mut self) -> Option<Operand> {
        Some(match self.at() {
            b'%' => Operand::Reg(self.reg_id()?),
            b'-' => {
                self.i += 1;
                self.spaces();
                number_operand(self.number()?, true)
            }
            b'!' => {
                self.i += 1;
                let p = self.reg_or_word()?;
                Operand::NotReg(self.names.id(p)?)
            }
            c if c.is_ascii_digit() => number_operand(self.number()?, false),
            _ => match self.word()? {
                "_" => Operand::Sink,
                w => Operand::Sym(self.names.id(w)?),
            },
        })
    }
}

//! Integer constant expressions, as ptxas 13.5 folds them after `reg+` and
//! `sym+` (inside brackets and out) and as an immediate address (`[2*4]`).
//!
//! The grammar is C's (PTX ISA, "Constant Expressions"): `?:`, `||`, `&&`,
//! `|`, `^`, `&`, `== !=`, `< > <= >=`, `<< >>`, `+ -`, `* / %`, unary
//! `+ - ! ~` and the casts `(.s64)` and `(.u64)`, over 64-bit integers that
//! are signed unless unsigned (a `U` suffix, a literal above `i64::MAX`, or an
//! unsigned operand). Two-byte operators are written without a space between
//! their bytes (`1< <2` is ptxas's syntax error). What ptxas does, checked
//! with its division-by-zero error as an oracle (`tests/ptx_read.rs`):
//! shift counts are taken mod 64 and `>>` is arithmetic on a signed value;
//! `%` is an unsigned remainder with an unsigned result (`-7 % 2` is 1) while
//! `/` divides signed values as signed; `?:` gives the chosen operand with its
//! own type; comparisons and `&&`/`||` give a signed 0 or 1; a decimal literal
//! wraps mod 2^64; every operand is evaluated, so a division by zero in the
//! arm not taken is still an error; `i64::MIN / -1` (which crashes ptxas) is
//! an error too. Floats are not integer constant expressions.

use super::{unexpected, Parser};
use crate::ptx::lex::{error_at, number, Number, Tok, Token};
use crate::read::limits::MAX_PTX_NESTING;
use crate::read::{ErrorKind, Result};

/// A value: its 64 bits and whether it is unsigned.
#[derive(Clone, Copy)]
struct Val {
    bits: u64,
    unsigned: bool,
}

impl Val {
    fn signed(bits: u64) -> Val {
        Val { bits, unsigned: false }
    }

    fn truth(b: bool) -> Val {
        Val::signed(u64::from(b))
    }
}

/// Binary operators, with their C precedence (higher binds tighter).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bin {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    And,
    Xor,
    Or,
    LogAnd,
    LogOr,
}

impl Bin {
    fn prec(self) -> u8 {
        match self {
            Bin::Mul | Bin::Div | Bin::Rem => 10,
            Bin::Add | Bin::Sub => 9,
            Bin::Shl | Bin::Shr => 8,
            Bin::Lt | Bin::Gt | Bin::Le | Bin::Ge => 7,
            Bin::Eq | Bin::Ne => 6,
            Bin::And => 5,
            Bin::Xor => 4,
            Bin::Or => 3,
            Bin::LogAnd => 2,
            Bin::LogOr => 1,
        }
    }
}

/// `a op b`, or what makes it no constant (the caller adds the position).
fn apply(op: Bin, a: Val, b: Val) -> std::result::Result<Val, &'static str> {
    let u = a.unsigned || b.unsigned;
    let (x, y) = (a.bits, b.bits);
    let typed = |bits: u64| Val { bits, unsigned: u };
    Ok(match op {
        Bin::Mul => typed(x.wrapping_mul(y)),
        Bin::Div | Bin::Rem if y == 0 => return Err("division by zero in a constant expression"),
        Bin::Div if u => typed(x / y),
        Bin::Div => match (x as i64).checked_div(y as i64) {
            Some(q) => typed(q as u64),
            None => return Err("constant expression overflows (the minimum 64-bit value divided by -1)"),
        },
        Bin::Rem => Val { bits: x % y, unsigned: true },
        Bin::Add => typed(x.wrapping_add(y)),
        Bin::Sub => typed(x.wrapping_sub(y)),
        Bin::Shl => Val { bits: x << (y & 63), unsigned: a.unsigned },
        Bin::Shr if a.unsigned => Val { bits: x >> (y & 63), unsigned: true },
        Bin::Shr => Val::signed(((x as i64) >> (y & 63)) as u64),
        Bin::Lt | Bin::Gt | Bin::Le | Bin::Ge => {
            let ord = if u { x.cmp(&y) } else { (x as i64).cmp(&(y as i64)) };
            Val::truth(match op {
                Bin::Lt => ord.is_lt(),
                Bin::Gt => ord.is_gt(),
                Bin::Le => ord.is_le(),
                _ => ord.is_ge(),
            })
        }
        Bin::Eq => Val::truth(x == y),
        Bin::Ne => Val::truth(x != y),
        Bin::And => typed(x & y),
        Bin::Xor => typed(x ^ y),
        Bin::Or => typed(x | y),
        Bin::LogAnd => Val::truth(x != 0 && y != 0),
        Bin::LogOr => Val::truth(x != 0 || y != 0),
    })
}

/// True when `b` starts right after `a` (no space between the bytes of `<<`).
fn adjacent(a: &Token<'_>, b: &Token<'_>) -> bool {
    u64::from(b.pos) == u64::from(a.pos) + 1
}

impl<'a> Parser<'a> {
    /// A constant expression; its value as two's complement bits.
    pub(super) fn const_expr(&mut self, depth: usize) -> Result<i64> {
        Ok(self.ternary(depth)?.bits as i64)
    }

    /// True when `t` can start a constant expression.
    pub(super) fn starts_expr(t: &Token<'_>) -> bool {
        matches!(t.kind, Tok::Num | Tok::Punct(b'(' | b'+' | b'-' | b'!' | b'~'))
    }

    fn nested(&self, t: &Token<'_>, depth: usize) -> Result<()> {
        if depth > MAX_PTX_NESTING {
            return Err(error_at(t.into(), ErrorKind::LimitExceeded, "constant expression nested too deeply"));
        }
        Ok(())
    }

    fn ternary(&mut self, depth: usize) -> Result<Val> {
        let c = self.binary(0, depth)?;
        let q = self.lx.peek()?;
        if !q.is(b'?') {
            return Ok(c);
        }
        self.nested(&q, depth + 1)?;
        self.lx.next()?;
        let a = self.ternary(depth + 1)?;
        self.expect_punct(b':')?;
        let b = self.ternary(depth + 1)?;
        Ok(if c.bits != 0 { a } else { b })
    }

    /// The binary operator next, if any, and how many tokens it takes.
    fn peek_bin(&mut self) -> Result<Option<(Bin, usize)>> {
        let t = self.lx.peek()?;
        let Tok::Punct(c) = t.kind else { return Ok(None) };
        let single = match c {
            b'*' => Some(Bin::Mul),
            b'/' => Some(Bin::Div),
            b'%' => Some(Bin::Rem),
            b'+' => Some(Bin::Add),
            b'-' => Some(Bin::Sub),
            b'^' => Some(Bin::Xor),
            b'<' | b'>' | b'=' | b'!' | b'&' | b'|' => None,
            _ => return Ok(None),
        };
        if let Some(op) = single {
            return Ok(Some((op, 1)));
        }
        // A two-byte operator, or `<`, `>`, `&`, `|` alone.
        let mut probe = self.lx.clone();
        probe.next()?;
        let n = probe.peek()?;
        let second = match n.kind {
            Tok::Punct(d) if adjacent(&t, &n) => d,
            _ => 0,
        };
        Ok(match (c, second) {
            (b'<', b'<') => Some((Bin::Shl, 2)),
            (b'>', b'>') => Some((Bin::Shr, 2)),
            (b'<', b'=') => Some((Bin::Le, 2)),
            (b'>', b'=') => Some((Bin::Ge, 2)),
            (b'=', b'=') => Some((Bin::Eq, 2)),
            (b'!', b'=') => Some((Bin::Ne, 2)),
            (b'&', b'&') => Some((Bin::LogAnd, 2)),
            (b'|', b'|') => Some((Bin::LogOr, 2)),
            (b'<', _) => Some((Bin::Lt, 1)),
            (b'>', _) => Some((Bin::Gt, 1)),
            (b'&', _) => Some((Bin::And, 1)),
            (b'|', _) => Some((Bin::Or, 1)),
            _ => None,
        })
    }

    /// Operators of precedence `min` and up, left to right (precedence climbing).
    fn binary(&mut self, min: u8, depth: usize) -> Result<Val> {
        let mut lhs = self.unary(depth)?;
        while let Some((op, len)) = self.peek_bin()? {
            if op.prec() < min {
                break;
            }
            let at = self.lx.next()?;
            if len == 2 {
                self.lx.next()?;
            }
            let rhs = self.binary(op.prec() + 1, depth)?;
            lhs = apply(op, lhs, rhs).map_err(|what| error_at((&at).into(), ErrorKind::Malformed, what))?;
        }
        Ok(lhs)
    }

    fn unary(&mut self, depth: usize) -> Result<Val> {
        let t = self.lx.next()?;
        self.nested(&t, depth)?;
        Ok(match t.kind {
            Tok::Num => self.literal(&t)?,
            Tok::Punct(b'+') => self.unary(depth + 1)?,
            Tok::Punct(b'-') => {
                let v = self.unary(depth + 1)?;
                Val { bits: v.bits.wrapping_neg(), ..v }
            }
            Tok::Punct(b'~') => {
                let v = self.unary(depth + 1)?;
                Val { bits: !v.bits, ..v }
            }
            Tok::Punct(b'!') => Val::truth(self.unary(depth + 1)?.bits == 0),
            Tok::Punct(b'(') if self.lx.peek()?.kind == Tok::Dir => {
                let ty = self.lx.next()?;
                let unsigned = match ty.text {
                    ".u64" => true,
                    ".s64" => false,
                    _ => {
                        return Err(error_at(
                            (&ty).into(),
                            ErrorKind::Malformed,
                            format!("unsupported cast {} in a constant expression (only .s64 and .u64)", ty.text),
                        ))
                    }
                };
                self.expect_punct(b')')?;
                Val { unsigned, ..self.unary(depth + 1)? }
            }
            Tok::Punct(b'(') => {
                let v = self.ternary(depth + 1)?;
                self.expect_punct(b')')?;
                v
            }
            _ => return Err(unexpected(&t, "an integer constant expression")),
        })
    }

    /// An integer literal: unsigned with a `U` suffix or above `i64::MAX`; a
    /// decimal one past 64 bits wraps, as ptxas reads it.
    fn literal(&mut self, t: &Token<'a>) -> Result<Val> {
        let suffix = t.text.ends_with(['U', 'u']);
        let bits = match number(t.text) {
            Some(Number::Int(v)) => v,
            Some(_) => return Err(unexpected(t, "an integer constant expression (not a float)")),
            None => {
                let digits = t.text.strip_suffix(['U', 'u']).unwrap_or(t.text);
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.starts_with('0') {
                    return Err(error_at(t.into(), ErrorKind::Malformed, format!("bad number {}", t.text)));
                }
                digits.bytes().fold(0u64, |v, b| v.wrapping_mul(10).wrapping_add(u64::from(b - b'0')))
            }
        };
        Ok(Val { bits, unsigned: suffix || bits > i64::MAX as u64 })
    }
}

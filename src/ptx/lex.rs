//! PTX tokens over borrowed text. The lexer never allocates; every token keeps
//! its byte offset, line and column, and every error names them.

use crate::read::{ErrorKind, ReadError, Result};

mod fast;
mod line;

pub use line::Line;

/// Token classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tok {
    /// An identifier or instruction word: `ld.global.v4.b32`, `$L__BB0_2`,
    /// `tcgen05.mma.cta_group::1.kind::f16`, `_`.
    Word,
    /// A directive or type word with its leading dot: `.reg`, `.b32`, `.shared`.
    Dir,
    /// A register (or special register) with its `%`: `%r12`, `%tid.x`.
    Reg,
    /// A number as written: `42`, `0x1F`, `0f3F800000`, `0d3FF0000000000000`, `1.5`.
    Num,
    /// A string literal including its quotes.
    Str,
    /// One punctuation byte (`, ; { } [ ] ( ) + - < > @ ! | = : * / % & ^ ~ ?`;
    /// the last ones are constant-expression operators).
    Punct(u8),
    /// End of input.
    Eof,
}

/// A token: class, text and position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'a> {
    /// Class.
    pub kind: Tok,
    /// Text as written.
    pub text: &'a str,
    /// Byte offset of the first byte.
    pub pos: u32,
    /// 1-based line.
    pub line: u32,
    /// 1-based column (in bytes).
    pub col: u32,
}

impl Token<'_> {
    /// True for the punctuation byte `c`.
    pub fn is(&self, c: u8) -> bool {
        self.kind == Tok::Punct(c)
    }
}

/// A position in the text, for errors and spans.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pos {
    /// Byte offset.
    pub offset: u32,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

impl From<&Token<'_>> for Pos {
    fn from(t: &Token<'_>) -> Self {
        Pos { offset: t.pos, line: t.line, col: t.col }
    }
}

/// An input error at a position: the message names line and column, the error
/// carries the byte offset.
pub fn error_at(pos: Pos, kind: ErrorKind, what: impl AsRef<str>) -> ReadError {
    ReadError::new(kind, u64::from(pos.offset), format!("line {}, column {}: {}", pos.line, pos.col, what.as_ref()))
        .at_text(pos.line, pos.col)
}

/// Byte classes, one table lookup per byte on the hot paths.
const WORD: u8 = 1;
const START: u8 = 2;
const PUNCT: u8 = 4;
const SPACE: u8 = 8;
const DOT: u8 = 16;
/// Bytes the byte skips pass without a look at their neighbours: word bytes,
/// and spaces other than a newline; `,` where it ends nothing.
const PLAIN: u8 = 32;
const COMMA: u8 = 64;

static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        let mut c = 0;
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'$' {
            c |= WORD;
        }
        if b.is_ascii_alphabetic() || b == b'_' || b == b'$' {
            c |= START;
        }
        if matches!(
            b,
            b'{' | b'}'
                | b'['
                | b']'
                | b'('
                | b')'
                | b','
                | b';'
                | b'+'
                | b'-'
                | b'<'
                | b'>'
                | b'@'
                | b'!'
                | b'|'
                | b'='
                | b':'
                | b'*'
                | b'/'
                | b'%'
                | b'&'
                | b'^'
                | b'~'
                | b'?'
        ) {
            c |= PUNCT;
        }
        if matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c) {
            c |= SPACE;
        }
        if b == b'.' {
            c |= DOT;
        }
        if c & (WORD | SPACE) != 0 {
            c |= PLAIN;
        }
        if b == b',' {
            c |= COMMA;
        }
        t[i] = c;
        i += 1;
    }
    t
};

fn is_word_start(b: u8) -> bool {
    CLASS[b as usize] & START != 0
}

fn is_word_byte(b: u8) -> bool {
    CLASS[b as usize] & WORD != 0
}

/// The lexer: call [`Lexer::next`] / [`Lexer::peek`].
#[derive(Clone)]
pub struct Lexer<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    line: u32,
    line_start: usize,
    peeked: Option<Token<'a>>,
    /// Where [`Lexer::bytes_to_closing_line`] last found a `}` at a line
    /// start (or the end of the text): the bytes before it are counted in a
    /// hint already.
    closing_line: Option<usize>,
}

impl<'a> Lexer<'a> {
    /// A lexer over `text`.
    pub fn new(text: &'a str) -> Self {
        Lexer { text, bytes: text.as_bytes(), pos: 0, line: 1, line_start: 0, peeked: None, closing_line: None }
    }

    fn here(&self) -> Pos {
        Pos {
            offset: u32::try_from(self.pos).unwrap_or(u32::MAX),
            line: self.line,
            col: u32::try_from(self.pos.saturating_sub(self.line_start).saturating_add(1)).unwrap_or(u32::MAX),
        }
    }

    fn at(&self, i: usize) -> u8 {
        self.bytes.get(i).copied().unwrap_or(0)
    }

    /// The next token without consuming it.
    pub fn peek(&mut self) -> Result<Token<'a>> {
        if let Some(t) = self.peeked {
            return Ok(t);
        }
        let t = self.lex()?;
        self.peeked = Some(t);
        Ok(t)
    }

    /// Consumes and returns the next token.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<Token<'a>> {
        if let Some(t) = self.peeked.take() {
            return Ok(t);
        }
        self.lex()
    }

    /// Skips whitespace and comments.
    fn skip_trivia(&mut self) -> Result<()> {
        loop {
            match self.at(self.pos) {
                b'\n' => {
                    self.pos += 1;
                    self.line = self.line.saturating_add(1);
                    self.line_start = self.pos;
                }
                b if CLASS[b as usize] & SPACE != 0 => self.pos += 1,
                b'/' if self.at(self.pos + 1) == b'/' => {
                    let rest = self.bytes.get(self.pos..).unwrap_or(&[]);
                    self.pos += rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
                }
                b'/' if self.at(self.pos + 1) == b'*' => {
                    let start = self.here();
                    self.pos += 2;
                    loop {
                        if self.pos >= self.bytes.len() {
                            return Err(error_at(start, ErrorKind::UnexpectedEof, "unterminated /* comment"));
                        }
                        match self.at(self.pos) {
                            b'*' if self.at(self.pos + 1) == b'/' => {
                                self.pos += 2;
                                break;
                            }
                            b'\n' => {
                                self.pos += 1;
                                self.line = self.line.saturating_add(1);
                                self.line_start = self.pos;
                            }
                            _ => self.pos += 1,
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn lex(&mut self) -> Result<Token<'a>> {
        // Spaces, newlines and `//` comments; a `/* */` comment (rare) through `skip_trivia`.
        self.skip_plain_trivia();
        if self.at(self.pos) == b'/' && self.at(self.pos + 1) == b'*' {
            self.skip_trivia()?;
        }
        let bytes = self.bytes;
        let i = self.pos;
        let start = self.here();
        let s = i;
        let Some(&b) = bytes.get(s) else {
            return Ok(Token { kind: Tok::Eof, text: "", pos: start.offset, line: start.line, col: start.col });
        };
        let class = CLASS[b as usize];
        let (kind, end) = if class & START != 0 {
            (Tok::Word, scan(bytes, s + 1, WORD | DOT, true))
        } else if class & PUNCT != 0 && b != b'%' {
            (Tok::Punct(b), s + 1)
        } else if b == b'.' && is_word_start(self.at(s + 1)) {
            (Tok::Dir, scan(bytes, s + 1, WORD, true))
        } else if b == b'%' {
            // `%r1`, `%tid.x`, and names that are digits (`%1`), which ptxas
            // accepts; `%` alone is the remainder operator (`7 % 4`).
            if is_word_byte(self.at(s + 1)) {
                (Tok::Reg, scan(bytes, s + 1, WORD | DOT, true))
            } else {
                (Tok::Punct(b'%'), s + 1)
            }
        } else if b.is_ascii_digit() {
            (Tok::Num, scan(bytes, s + 1, WORD | DOT, false))
        } else if b == b'"' {
            let mut j = s + 1;
            loop {
                match self.at(j) {
                    b'"' if j < bytes.len() => {
                        j += 1;
                        break;
                    }
                    b'\\' if j + 1 < bytes.len() && self.at(j + 1) != b'\n' => j += 2,
                    b'\n' | 0 if j >= bytes.len() || self.at(j) == b'\n' => {
                        return Err(error_at(start, ErrorKind::Malformed, "unterminated string"));
                    }
                    _ => j += 1,
                }
            }
            (Tok::Str, j)
        } else {
            let what = if b.is_ascii_graphic() {
                format!("unexpected character '{}'", b as char)
            } else {
                format!("unexpected byte 0x{b:02x}")
            };
            return Err(error_at(start, ErrorKind::Malformed, what));
        };
        self.pos = end;
        let text = self.text.get(s..end).unwrap_or("");
        Ok(Token { kind, text, pos: start.offset, line: start.line, col: start.col })
    }
}

/// The end of the bytes from `i` whose class has a bit of `mask`, taking `::`
/// too when `colons` (words, directives and registers; not numbers).
#[inline]
fn scan(bytes: &[u8], mut i: usize, mask: u8, colons: bool) -> usize {
    loop {
        while let Some(&c) = bytes.get(i) {
            if CLASS[c as usize] & mask == 0 {
                break;
            }
            i += 1;
        }
        if colons && bytes.get(i) == Some(&b':') && bytes.get(i + 1) == Some(&b':') {
            i += 2;
        } else {
            return i;
        }
    }
}

/// A numeric literal's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    /// Integer (two's complement bits, before negation).
    Int(u64),
    /// `0f` single-precision bits.
    F32(u32),
    /// `0d` double-precision bits, or a decimal float as f64 bits.
    F64(u64),
}

/// Parses a number token (`42`, `42U`, `0x1F`, `0b101`, `017`, `0f3F800000`, `0d…`, `1.5`).
pub fn number(text: &str) -> Option<Number> {
    // The usual case first: a short decimal integer (no leading zero: octal).
    let d = text.as_bytes();
    if !d.is_empty() && d.len() <= 19 && (d.len() == 1 || d.first() != Some(&b'0')) {
        let mut v = 0u64;
        let mut all = true;
        for &c in d {
            let x = c.wrapping_sub(b'0');
            if x > 9 {
                all = false;
                break;
            }
            v = v * 10 + u64::from(x);
        }
        if all {
            return Some(Number::Int(v));
        }
    }
    let t = text.strip_suffix(['U', 'u']).unwrap_or(text);
    let b = t.as_bytes();
    if b.len() > 2 && b.first() == Some(&b'0') {
        match b.get(1) {
            Some(b'x' | b'X') => return u64::from_str_radix(t.get(2..)?, 16).ok().map(Number::Int),
            Some(b'b' | b'B') => return u64::from_str_radix(t.get(2..)?, 2).ok().map(Number::Int),
            Some(b'f' | b'F') if b.len() == 10 => return u32::from_str_radix(t.get(2..)?, 16).ok().map(Number::F32),
            Some(b'd' | b'D') if b.len() == 18 => return u64::from_str_radix(t.get(2..)?, 16).ok().map(Number::F64),
            _ => {}
        }
    }
    if t.contains(['.', 'e', 'E']) {
        return t.parse::<f64>().ok().map(|f| Number::F64(f.to_bits()));
    }
    if b.len() > 1 && b.first() == Some(&b'0') {
        return u64::from_str_radix(t.get(1..)?, 8).ok().map(Number::Int);
    }
    t.parse::<u64>().ok().map(Number::Int)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<(Tok, &str)> {
        let mut l = Lexer::new(s);
        let mut v = Vec::new();
        loop {
            let t = l.next().unwrap();
            if t.kind == Tok::Eof {
                return v;
            }
            v.push((t.kind, t.text));
        }
    }

    #[test]
    fn words_keep_dots_and_double_colons() {
        assert_eq!(
            toks("$L__BB0_1: tcgen05.mma.cta_group::1.kind::f16 [%r1+0], %tid.x; // c\n/* x\n */ .reg"),
            vec![
                (Tok::Word, "$L__BB0_1"),
                (Tok::Punct(b':'), ":"),
                (Tok::Word, "tcgen05.mma.cta_group::1.kind::f16"),
                (Tok::Punct(b'['), "["),
                (Tok::Reg, "%r1"),
                (Tok::Punct(b'+'), "+"),
                (Tok::Num, "0"),
                (Tok::Punct(b']'), "]"),
                (Tok::Punct(b','), ","),
                (Tok::Reg, "%tid.x"),
                (Tok::Punct(b';'), ";"),
                (Tok::Dir, ".reg"),
            ]
        );
    }

    #[test]
    fn numbers() {
        assert_eq!(number("42"), Some(Number::Int(42)));
        assert_eq!(number("0x1F"), Some(Number::Int(31)));
        assert_eq!(number("4611756662049472512"), Some(Number::Int(0x4000_4040_0000_0000)));
        assert_eq!(number("0f3F800000"), Some(Number::F32(0x3F80_0000)));
        assert_eq!(number("0d3FF0000000000000"), Some(Number::F64(0x3FF0_0000_0000_0000)));
        assert_eq!(number("010"), Some(Number::Int(8)));
        assert_eq!(number("1.5"), Some(Number::F64(1.5f64.to_bits())));
        assert_eq!(number("0xZZ"), None);
    }

    #[test]
    fn errors_name_line_and_column() {
        let mut l = Lexer::new("add.s32 %r1,\n  %r2, # 3;");
        let e = loop {
            match l.next() {
                Ok(t) if t.kind == Tok::Eof => panic!("no error"),
                Ok(_) => {}
                Err(e) => break e,
            }
        };
        assert_eq!(e.offset, 20);
        assert!(e.detail.starts_with("line 2, column 8: unexpected character '#'"), "{}", e.detail);
    }
}

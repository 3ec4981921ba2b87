//! PTX tokens over borrowed text. The lexer never allocates; every token keeps
//! its byte offset, line and column, and every error names them.

use crate::read::{ErrorKind, ReadError, Result};

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
    /// One punctuation byte (`, ; { } [ ] ( ) + - < > @ ! | = :`).
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

fn is_word_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$'
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
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
}

impl<'a> Lexer<'a> {
    /// A lexer over `text`.
    pub fn new(text: &'a str) -> Self {
        Lexer { text, bytes: text.as_bytes(), pos: 0, line: 1, line_start: 0, peeked: None }
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
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => self.pos += 1,
                b'/' if self.at(self.pos + 1) == b'/' => {
                    while self.pos < self.bytes.len() && self.at(self.pos) != b'\n' {
                        self.pos += 1;
                    }
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

    /// Word bytes from `self.pos`; `dots` also takes `.`, and `::` is always taken.
    fn scan_word(&mut self, dots: bool) {
        loop {
            let b = self.at(self.pos);
            if is_word_byte(b) || (dots && b == b'.') {
                self.pos += 1;
            } else if b == b':' && self.at(self.pos + 1) == b':' {
                self.pos += 2;
            } else {
                break;
            }
        }
    }

    fn lex(&mut self) -> Result<Token<'a>> {
        self.skip_trivia()?;
        let start = self.here();
        let s = self.pos;
        let b = self.at(s);
        let kind = if s >= self.bytes.len() {
            Tok::Eof
        } else if is_word_start(b) {
            self.scan_word(true);
            Tok::Word
        } else if b == b'.' && is_word_start(self.at(s + 1)) {
            self.pos += 1;
            self.scan_word(false);
            Tok::Dir
        } else if b == b'%' {
            self.pos += 1;
            // `%r1`, `%tid.x`, and names that are digits (`%1`), which ptxas accepts.
            if !is_word_byte(self.at(self.pos)) {
                return Err(error_at(start, ErrorKind::Malformed, "expected a register name after '%'"));
            }
            self.scan_word(true);
            Tok::Reg
        } else if b.is_ascii_digit() {
            while is_word_byte(self.at(self.pos)) || self.at(self.pos) == b'.' {
                self.pos += 1;
            }
            Tok::Num
        } else if b == b'"' {
            self.pos += 1;
            loop {
                match self.at(self.pos) {
                    b'"' => {
                        self.pos += 1;
                        break;
                    }
                    b'\\' if self.pos + 1 < self.bytes.len() && self.at(self.pos + 1) != b'\n' => self.pos += 2,
                    b'\n' | 0 if self.pos >= self.bytes.len() || self.at(self.pos) == b'\n' => {
                        return Err(error_at(start, ErrorKind::Malformed, "unterminated string"));
                    }
                    _ => self.pos += 1,
                }
            }
            Tok::Str
        } else if b"{}[](),;+-<>@!|=:*".contains(&b) {
            self.pos += 1;
            Tok::Punct(b)
        } else {
            let what = if b.is_ascii_graphic() {
                format!("unexpected character '{}'", b as char)
            } else {
                format!("unexpected byte 0x{b:02x}")
            };
            return Err(error_at(start, ErrorKind::Malformed, what));
        };
        let text = self.text.get(s..self.pos).unwrap_or("");
        Ok(Token { kind, text, pos: start.offset, line: start.line, col: start.col })
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

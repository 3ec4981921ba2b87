//! Byte-level fast paths of the lexer: skipping `.section` bodies and
//! initializers, and reading the usual `.loc` arguments. Each takes only
//! what the token lexer would read the same way, and otherwise declines with
//! nothing consumed so that the token path reads it (and reports any error
//! where it is).

use super::{is_word_byte, is_word_start, scan, Lexer, CLASS, COMMA, DOT, PLAIN, PUNCT, SPACE, WORD};

/// What `Lexer::skip_bytes` skips.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Skip {
    /// The rest of a `{ … }` whose `{` was consumed, its `}` included.
    Block,
    /// An initializer, up to a `,` or `;` outside brackets.
    Initializer,
}

impl Lexer<'_> {
    /// Skips the rest of a balanced `{ … }` whose `{` was just consumed, byte
    /// by byte (`.section` bodies of debug builds are megabytes of `.b8`).
    /// Returns `false` with nothing consumed when something in it would be a
    /// token error (an unknown byte, an unterminated string or comment, a `%`
    /// or `.` starting no name) or the input ends: the caller then skips with
    /// tokens, which reports that error where it is.
    pub fn skip_block(&mut self) -> bool {
        self.skip_bytes(Skip::Block)
    }

    /// Skips a variable's initializer (after its `=`) byte by byte up to, not
    /// including, the first `,` or `;` outside `{ }` and `( )` (array
    /// initializers are half-megabyte lines in modules that link curand). A
    /// `}` or `)` with nothing open is passed over, as the token skip does.
    /// Returns `false` with nothing consumed where [`Lexer::skip_block`] does.
    pub fn skip_initializer(&mut self) -> bool {
        self.skip_bytes(Skip::Initializer)
    }

    fn skip_bytes(&mut self, mode: Skip) -> bool {
        if self.peeked.is_some() {
            return false;
        }
        let b = self.bytes;
        let at = |i: usize| b.get(i).copied().unwrap_or(0);
        let init = mode == Skip::Initializer;
        let (mut i, mut line, mut line_start) = (self.pos, self.line, self.line_start);
        let mut depth = u32::from(!init);
        loop {
            if i >= b.len() {
                return false;
            }
            // The usual bytes first, in a tight loop: numbers and names,
            // spaces and (inside brackets) commas. Where it stops at a `.` or
            // `:` inside a number or name, the rest of the token is scanned
            // as the lexer scans it.
            let plain = if depth > 0 || !init { PLAIN | COMMA } else { PLAIN };
            let from = i;
            while let Some(&c) = b.get(i) {
                if CLASS[c as usize] & plain == 0 {
                    break;
                }
                i += 1;
            }
            let c = at(i);
            if i > from && matches!(c, b'.' | b':') && is_word_byte(at(i - 1)) {
                i = scan(b, i, WORD | DOT, true);
                continue;
            }
            if i >= b.len() {
                return false;
            }
            let class = CLASS[c as usize];
            match c {
                b'\n' => {
                    i += 1;
                    line = line.saturating_add(1);
                    line_start = i;
                }
                b'{' => {
                    depth = depth.saturating_add(1);
                    i += 1;
                }
                b'(' if init => {
                    depth = depth.saturating_add(1);
                    i += 1;
                }
                b'}' if !init => {
                    depth -= 1;
                    i += 1;
                    if depth == 0 {
                        break;
                    }
                }
                b'}' | b')' if init => {
                    depth = depth.saturating_sub(1);
                    i += 1;
                }
                b',' | b';' if init && depth == 0 => break,
                b'/' if at(i + 1) == b'/' => {
                    let rest = b.get(i..).unwrap_or(&[]);
                    i += rest.iter().position(|&x| x == b'\n').unwrap_or(rest.len());
                }
                b'/' if at(i + 1) == b'*' => {
                    i += 2;
                    loop {
                        if i >= b.len() {
                            return false;
                        }
                        match at(i) {
                            b'*' if at(i + 1) == b'/' => {
                                i += 2;
                                break;
                            }
                            b'\n' => {
                                i += 1;
                                line = line.saturating_add(1);
                                line_start = i;
                            }
                            _ => i += 1,
                        }
                    }
                }
                b'"' => {
                    i += 1;
                    loop {
                        match at(i) {
                            b'"' if i < b.len() => {
                                i += 1;
                                break;
                            }
                            b'\\' if i + 1 < b.len() && at(i + 1) != b'\n' => i += 2,
                            b'\n' => return false,
                            _ if i >= b.len() => return false,
                            _ => i += 1,
                        }
                    }
                }
                b'%' if is_word_byte(at(i + 1)) => i = scan(b, i + 1, WORD | DOT, true),
                b'.' if is_word_start(at(i + 1)) => i = scan(b, i + 1, WORD, true),
                _ if class & PUNCT != 0 => i += 1,
                _ => return false,
            }
        }
        self.pos = i;
        self.line = line;
        self.line_start = line_start;
        true
    }

    /// The bytes from here to the first `}` at the start of a line (where
    /// compilers close a function body), or to the end: a size hint for the
    /// body being read, never a bound (one SIMD search for `\n}`). Bytes an
    /// earlier call counted are not counted again (0 then): the hints of a
    /// module sum to at most its size, and each byte is searched once, even
    /// where bodies close on their own line (`{ret;}`) and the search runs
    /// to the end.
    pub fn bytes_to_closing_line(&mut self) -> usize {
        if self.closing_line.is_some_and(|at| at >= self.pos) {
            return 0;
        }
        let rest = self.bytes.get(self.pos..).unwrap_or(&[]);
        let k = if rest.first() == Some(&b'}') {
            0
        } else {
            memchr::memmem::find(rest, b"\n}").map_or(rest.len(), |k| k + 1)
        };
        self.closing_line = Some(self.pos + k);
        k
    }

    /// The arguments of the usual `.loc` (just consumed), byte by byte:
    /// `file line [col]`, or `file line col, function_name NAME, inlined_at
    /// file line col` (`-lineinfo` builds have one every few lines), with
    /// decimal numbers of at most nine digits and no leading zero, all on the
    /// directive's line, followed by nothing but spaces (and a `//` comment)
    /// before the newline or the end. Consumes them and returns `(file, line, col)` (col 0 when not
    /// written) and the `inlined_at` triple; or returns `None` with nothing
    /// consumed, for the token path to read.
    #[allow(clippy::type_complexity)]
    pub fn simple_loc(&mut self) -> Option<((u32, u32, u32), Option<(u32, u32, u32)>)> {
        if self.peeked.is_some() {
            return None;
        }
        let b = self.bytes;
        let number = |i| loc_number(b, i);
        let name = |i, word: &[u8]| loc_word(b, i, word);
        let comma = |i| {
            let j = spaces(b, i);
            (b.get(j) == Some(&b',')).then_some(j + 1)
        };
        let (file, i) = number(self.pos)?;
        let (line, mut i) = number(i)?;
        let mut col = 0;
        let mut inlined = None;
        if let Some((c, j)) = number(i) {
            col = c;
            i = j;
            if let Some(j) = comma(i) {
                let j = name(j, b"function_name")?;
                let j = name(j, b"")?;
                let j = comma(j)?;
                let j = name(j, b"inlined_at")?;
                let (f, j) = number(j)?;
                let (l, j) = number(j)?;
                let (c, j) = number(j)?;
                inlined = Some((f, l, c));
                i = j;
            }
        }
        // The line ends, maybe after a `//` comment (Triton writes the source
        // position there).
        let end = spaces(b, i);
        let comment = b.get(end) == Some(&b'/') && b.get(end + 1) == Some(&b'/');
        if !(comment || matches!(b.get(end), None | Some(b'\n'))) {
            return None;
        }
        self.pos = end;
        Some(((file, line, col), inlined))
    }
}

/// The end of the spaces (not newlines) from `i`.
#[inline(always)]
fn spaces(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|&c| CLASS[c as usize] & SPACE != 0) {
        i += 1;
    }
    i
}

/// A `.loc` number after at least one space: decimal, at most nine digits,
/// no leading zero, and a token of its own; its value and end.
#[inline(always)]
fn loc_number(b: &[u8], i: usize) -> Option<(u32, usize)> {
    let start = spaces(b, i);
    let mut j = start;
    let mut v = 0u32;
    while let Some(&c) = b.get(j).filter(|c| c.is_ascii_digit()) {
        if j - start == 9 {
            return None;
        }
        v = v * 10 + u32::from(c - b'0');
        j += 1;
    }
    // No space, no digit, a leading zero (octal), or a word byte or '.'
    // after the digits (`0x1F`, `1.5`, `1U`): another token.
    let octal = b.get(start) == Some(&b'0') && j - start > 1;
    let joined = b.get(j).is_some_and(|&c| CLASS[c as usize] & (WORD | DOT) != 0);
    (start > i && j > start && !octal && !joined).then_some((v, j))
}

/// A name token (as the lexer scans a word) after optional spaces, which is
/// `word` unless `word` is empty; its end.
#[inline(always)]
fn loc_word(b: &[u8], i: usize, word: &[u8]) -> Option<usize> {
    let start = spaces(b, i);
    if !b.get(start).is_some_and(|&c| is_word_start(c)) {
        return None;
    }
    if !word.is_empty() {
        // The expected word, and the name ends right after it (compared
        // first, not scanned).
        let end = start + word.len();
        return (b.get(start..end) == Some(word) && scan(b, end, WORD | DOT, true) == end).then_some(end);
    }
    Some(scan(b, start + 1, WORD | DOT, true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::lex::{Tok, Token};

    /// Skipping a block byte by byte ends where skipping it token by token
    /// does (same offset, line and column of the next token), and declines
    /// whatever the token lexer would report as an error.
    #[test]
    fn skip_block_matches_the_tokens() {
        fn by_tokens(s: &str) -> Token<'_> {
            let mut l = Lexer::new(s);
            let mut depth = 1;
            while depth > 0 {
                let t = l.next().unwrap();
                match t.kind {
                    Tok::Punct(b'{') => depth += 1,
                    Tok::Punct(b'}') => depth -= 1,
                    Tok::Eof => panic!("unbalanced"),
                    _ => {}
                }
            }
            l.next().unwrap()
        }
        for s in [
            "\t.b8 1,2 // }\n\t.b32 $L__x, \"a}\\\"{\" { .b8 0x0f } /* }\n */ }\nnext",
            "$L__info_string0: .b8 95,90,78 .b64 %rd1.x::y }\n .loc",
            "}after",
            "7 % 4 & 1 ^ ~2 ? 1 / 2 : 0 }x",
        ] {
            let mut l = Lexer::new(s);
            assert!(l.skip_block(), "{s}");
            assert_eq!(l.next().unwrap(), by_tokens(s), "{s}");
        }
        for s in ["a # }", "\"open\n }", "/* never closed }", "\\ }", ". }", "a . }", "{ }"] {
            let mut l = Lexer::new(s);
            assert!(!l.skip_block(), "{s}");
            assert_eq!(l.pos, 0);
        }
    }

    /// Skipping an initializer byte by byte stops where the token skip of
    /// `var_decl` does (the same `,` or `;` token next), and declines what the
    /// token lexer would report as an error, consuming nothing.
    #[test]
    fn skip_initializer_matches_the_tokens() {
        fn by_tokens(s: &str) -> Token<'_> {
            let mut l = Lexer::new(s);
            let mut depth = 0u32;
            loop {
                let t = l.peek().unwrap();
                match t.kind {
                    Tok::Eof => panic!("no end"),
                    Tok::Punct(b'{' | b'(') => depth += 1,
                    Tok::Punct(b'}' | b')') => depth = depth.saturating_sub(1),
                    Tok::Punct(b',' | b';') if depth == 0 => return t,
                    _ => {}
                }
                l.next().unwrap();
            }
        }
        for s in [
            " {202, 29, 0x1F,\n 7} ;",
            " {{1, 2}, {3, (4)}}, b[2] = {5};",
            " generic(g) + 4;",
            " ) 1 } , x",
            " {1.5, a.b:c, 1::2, 0f3F800000, $x_1.y, 2.} ;",
            " 7, 8",
            " {1 /* , ; */, 2 // ;\n, \"a;\\\"\", %r1.x::y, .b8 3.5};",
            ";",
        ] {
            let mut l = Lexer::new(s);
            assert!(l.skip_initializer(), "{s:?}");
            assert_eq!(l.next().unwrap(), by_tokens(s), "{s:?}");
        }
        for s in [" {1, 2", " {1, # 2};", " {1, a . b};", " \"open\n;", " /* never closed ;", " {1 \\ 2};", " {1, . };"]
        {
            let mut l = Lexer::new(s);
            assert!(!l.skip_initializer(), "{s:?}");
            assert_eq!(l.pos, 0);
        }
        let mut l = Lexer::new("= {1};");
        l.peek().unwrap();
        assert!(!l.skip_initializer(), "a peeked token is never skipped over");
    }

    /// On random strings over the bytes that matter, each byte skip either
    /// declines (consuming nothing) exactly where the token skip meets an
    /// error or the end, or stops where the token skip stops.
    #[test]
    fn byte_skips_agree_with_the_tokens_on_random_text() {
        const ALPHABET: &[u8] = b"1a.:,;{}()  \n%\"/*#\\_x0";
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut agreed = 0;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let len = (state % 14) as usize;
            let text: String =
                (0..len).map(|k| ALPHABET[((state >> (4 * k % 60)) as usize + k) % ALPHABET.len()] as char).collect();
            for init in [true, false] {
                // The token skip: the next token after it, or `None` on an error or the end.
                let mut t = Lexer::new(&text);
                let mut depth = u32::from(!init);
                let want = loop {
                    let Ok(tok) = t.peek() else { break None };
                    match tok.kind {
                        Tok::Eof => break None,
                        Tok::Punct(b'{') => depth += 1,
                        Tok::Punct(b'(') if init => depth += 1,
                        Tok::Punct(b'}' | b')') if init => depth = depth.saturating_sub(1),
                        Tok::Punct(b'}') => {
                            depth -= 1;
                            if depth == 0 {
                                t.next().ok();
                                break t.next().ok();
                            }
                        }
                        Tok::Punct(b',' | b';') if init && depth == 0 => break Some(tok),
                        _ => {}
                    }
                    t.next().ok();
                };
                let mut l = Lexer::new(&text);
                let skipped = if init { l.skip_initializer() } else { l.skip_block() };
                if skipped {
                    agreed += 1;
                    assert_eq!(l.next().ok(), want, "{text:?} init {init}");
                } else {
                    assert_eq!(l.pos, 0, "{text:?}");
                    assert_eq!(want, None, "{text:?} init {init}");
                }
            }
        }
        assert!(agreed > 2_000, "{agreed} skips");
    }

    #[test]
    fn body_size_hint_stops_at_a_brace_that_starts_a_line() {
        let text = "{\n\tmov.b64 %rd1, {%r1, %r2};\n\t{\n\t}\n}\n.entry g()\n{\n}\n";
        let mut l = Lexer::new(text);
        assert_eq!(l.next().unwrap().text, "{");
        // The indented scope's `}` and the vector's are passed over.
        let want = text.find("\n}").unwrap();
        assert_eq!(l.bytes_to_closing_line(), want);
        // Asked again before that brace: nothing more (those bytes were counted).
        l.pos += 5;
        assert_eq!(l.bytes_to_closing_line(), 0);
        // Past it: the next one.
        l.pos = want + 3;
        assert_eq!(l.bytes_to_closing_line(), text.rfind("\n}").unwrap() + 1 - l.pos);
        // One-line bodies: the first hint runs to the end, the others are 0.
        let text = ".entry a(){ret;}\n.entry b(){ret;}\n";
        let mut l = Lexer::new(text);
        l.pos = 11;
        assert_eq!(l.bytes_to_closing_line(), text.len() - 11);
        l.pos = 28;
        assert_eq!(l.bytes_to_closing_line(), 0);
        assert_eq!(Lexer::new("ret; }").bytes_to_closing_line(), 6, "no line-start brace: the rest");
        assert_eq!(Lexer::new("}").bytes_to_closing_line(), 0);
        assert_eq!(Lexer::new("").bytes_to_closing_line(), 0);
    }

    /// The `.loc` fast path reads the usual forms and declines (consuming
    /// nothing) on everything else; what it reads is checked against the
    /// token path in `parse` (`loc_fast_path_matches_the_tokens`).
    #[test]
    fn simple_loc_reads_the_usual_forms_only() {
        for (s, want, next) in [
            (" 1 243 0\n\tld", ((1, 243, 0), None), "ld"),
            ("\t2\t17\t5 \r\nx", ((2, 17, 5), None), "x"),
            (" 1 9", ((1, 9, 0), None), ""),
            ("\t1 10 0     // triton_ptx.py:10:0\n\tret;", ((1, 10, 0), None), "ret"),
            (" 0 999999999 12\n}", ((0, 999_999_999, 12), None), "}"),
            (
                "\t1 22 7, function_name $L__info_string3, inlined_at 2 310 9\n\tret;",
                ((1, 22, 7), Some((2, 310, 9))),
                "ret",
            ),
        ] {
            let mut l = Lexer::new(s);
            assert_eq!(l.simple_loc(), Some(want), "{s:?}");
            assert_eq!(l.next().unwrap().text, next, "{s:?}");
        }
        for s in [
            " 1 243 0 /* c */\n",
            " 1 243 0;\n",
            " 1 243 0 function_name $L__info_string0\n",
            " 1 243 0, inlined_at 1 2 3\n",
            " 1 243 0, function_name $L__info_string0, inlined_at 1 2\n",
            " 1 243 0, function_name $L__info_string0, inlined_at 1 2 3 4\n",
            " 1 243 0, function_name $L__info_string0 inlined_at 1 2 3\n",
            " 1 243 0, function_name, inlined_at 1 2 3\n",
            " 1 243 0, function_name $L__info_string0,\n inlined_at 1 2 3\n",
            " 1 243 0, function_name$L__x, inlined_at 1 2 3\n",
            " 1\n243 0\n",
            " 1 0243 0\n",
            " 1 243 0x1\n",
            " 1 1000000000 0\n",
            " 1 2 3 4\n",
            " 1 2.5 0\n",
            "1 2 3\n",
            " 1\n",
            "",
        ] {
            let mut l = Lexer::new(s);
            assert_eq!(l.simple_loc(), None, "{s:?}");
            assert_eq!(l.pos, 0);
        }
    }
}

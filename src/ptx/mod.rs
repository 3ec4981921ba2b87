//! PTX front end: text → [`crate::ir`].
//!
//! - [`lex`] splits the text into tokens (line and column on every token and error).
//! - [`parse`] reads what compilers emit — `.version`/`.target`/`.address_size`,
//!   `.entry`/`.func` with parameters and performance directives, declarations with
//!   `%r<N>` ranges, labels, guarded instructions, vector and address operands,
//!   immediates (`0f`/`0d` floats included), `.loc`/`.file`, `-G` `.section`s,
//!   `.pragma`, inline-asm `{ }` scopes — into a borrowed syntax tree.
//! - `lower` turns each body into blocks and registers into SSA values (phis at
//!   joins, Braun et al.'s on-the-fly construction: one linear pass, no renaming),
//!   so the dataflow and the rules see PTX like DXIL and SPIR-V. Instructions the
//!   lowering does not model become `InstKind::Other` with their name in
//!   [`crate::ir::Module::op_names`]; they are never errors.
//! - `facts` records the matrix instructions (`ldmatrix`/`stmatrix`,
//!   `tcgen05.mma*`, block-scaled `mma`, `cp.async.bulk.tensor`) as typed facts.
//!
//! Spans: `offset` is the byte offset of the instruction, `id` its 1-based PTX
//! line; `.loc` gives the source file and line (Triton: the Python kernel, nvcc:
//! the `.cu` file).

pub mod facts;
pub mod lex;
mod lower;
pub mod parse;

use crate::ir::Module;
use crate::read::{ErrorKind, ReadError, Result};

/// Lowers a PTX module. `base` is its absolute offset in the input.
pub fn lower(data: &[u8], base: u64) -> Result<Module> {
    lower_with(data, base, false)
}

/// Lowers only the part of a PTX module that `irlint check`'s rules read:
/// every matrix fact, memory access and control instruction, and the
/// instructions their checked operands are computed from. The values the
/// analysis finds for those operands are the ones [`lower`] gives; the IR is
/// not the whole program and its instruction indices differ, so `check` uses
/// it to find that a module has nothing to report and lowers again with
/// [`lower`] when it has.
pub fn lower_sliced(data: &[u8], base: u64) -> Result<Module> {
    lower_with(data, base, true)
}

fn lower_with(data: &[u8], base: u64, sliced: bool) -> Result<Module> {
    let text = std::str::from_utf8(data).map_err(|e| {
        let at = e.valid_up_to();
        let prefix = data.get(..at).unwrap_or(&[]);
        let line = prefix.iter().filter(|&&b| b == b'\n').count() + 1;
        let col = at - prefix.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) + 1;
        ReadError::new(ErrorKind::Malformed, at as u64, format!("line {line}, column {col}: text is not UTF-8"))
            .at_text(u32::try_from(line).unwrap_or(u32::MAX), u32::try_from(col).unwrap_or(u32::MAX))
    });
    let run = || -> Result<Module> {
        let text = text?;
        let module = parse::parse(text)?;
        lower::lower(module, sliced)
    };
    run().map_err(|e| e.rebase(base).context("PTX module"))
}

/// True when `data` looks like PTX text: a `.version` directive is the first
/// thing after comments and whitespace.
pub fn is_ptx(data: &[u8]) -> bool {
    let mut i = 0;
    let n = data.len().min(1 << 16);
    while i < n {
        match data.get(i..) {
            Some([b' ' | b'\t' | b'\r' | b'\n', ..]) => i += 1,
            Some([b'/', b'/', ..]) => {
                while i < n && data.get(i) != Some(&b'\n') {
                    i += 1;
                }
            }
            Some([b'/', b'*', ..]) => {
                i += 2;
                while i < n && data.get(i..i + 2) != Some(b"*/") {
                    i += 1;
                }
                i += 2;
            }
            Some(rest) => return rest.starts_with(b".version") && rest.get(8).is_some_and(|b| b.is_ascii_whitespace()),
            None => return false,
        }
    }
    false
}

/// An instruction word read as a base and a set of modifiers: ptxas accepts
/// many modifiers in any order, so only membership is asked.
#[derive(Debug, Clone, Copy)]
pub struct Opcode<'a> {
    /// The whole word (`tcgen05.mma.cta_group::1.kind::f16`).
    pub text: &'a str,
}

impl<'a> Opcode<'a> {
    /// Wraps a word.
    pub fn new(text: &'a str) -> Self {
        Opcode { text }
    }

    /// The part before the first dot (`tcgen05`, `ld`).
    pub fn base(&self) -> &'a str {
        let end = self.text.bytes().position(|b| b == b'.').unwrap_or(self.text.len());
        self.text.get(..end).unwrap_or(self.text)
    }

    /// The modifiers after the base, in written order (as `split('.').skip(1)`,
    /// with a byte loop: words are short).
    pub fn mods(&self) -> impl Iterator<Item = &'a str> + Clone {
        let rest = self.text.bytes().position(|b| b == b'.').and_then(|i| self.text.get(i + 1..));
        Mods { rest }
    }

    /// True when `m` (without its dot) is one of the modifiers.
    pub fn has(&self, m: &str) -> bool {
        self.mods().any(|x| x == m)
    }

    /// The first modifier starting with `prefix` (`kind::` → `kind::f16`).
    pub fn find(&self, prefix: &str) -> Option<&'a str> {
        self.mods().find(|x| x.starts_with(prefix))
    }

    /// The second dotted component (`mma` of `tcgen05.mma`).
    pub fn second(&self) -> Option<&'a str> {
        self.mods().next()
    }

    /// The last modifier (usually the type: `s32`).
    pub fn last(&self) -> Option<&'a str> {
        self.text.rsplit('.').next().filter(|_| self.text.contains('.'))
    }
}

/// The dot-separated parts of the rest of a word (`None`: no more).
#[derive(Clone)]
struct Mods<'a> {
    rest: Option<&'a str>,
}

impl<'a> Iterator for Mods<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let rest = self.rest?;
        match rest.bytes().position(|b| b == b'.') {
            Some(i) => {
                self.rest = rest.get(i + 1..);
                rest.get(..i)
            }
            None => {
                self.rest = None;
                Some(rest)
            }
        }
    }
}

/// A scalar type word (`s32`, `u64`, `f32`, `b16`, `pred`): class letter and bits.
pub fn scalar_type(word: &str) -> Option<(u8, u16)> {
    let w = word.strip_prefix('.').unwrap_or(word);
    if w == "pred" {
        return Some((b'p', 1));
    }
    let (c, bits) = w.split_at_checked(1)?;
    let class = *c.as_bytes().first()?;
    if !matches!(class, b's' | b'u' | b'b' | b'f') {
        return None;
    }
    let bits: u16 = bits.parse().ok()?;
    matches!(bits, 8 | 16 | 32 | 64 | 128).then_some((class, bits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_version_first() {
        assert!(is_ptx(b"//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 8.8\n.target sm_100a\n"));
        assert!(is_ptx(b"/* x */ .version 9.0\n"));
        assert!(!is_ptx(b".versions 8.8\n"));
        assert!(!is_ptx(b"\x03\x02\x23\x07"));
        assert!(!is_ptx(b"int main() {}\n.version 8.8\n"));
    }

    #[test]
    fn opcode_modifiers_are_a_set() {
        let o = Opcode::new("tcgen05.mma.cta_group::1.kind::f16");
        assert_eq!(o.base(), "tcgen05");
        assert_eq!(o.second(), Some("mma"));
        assert!(o.has("cta_group::1"));
        assert_eq!(o.find("kind::"), Some("kind::f16"));
        assert_eq!(o.last(), Some("kind::f16"));
        assert_eq!(Opcode::new("ret").last(), None);
        // The modifiers are what `split('.').skip(1)` gives, empty parts included.
        for w in ["ret", "ld.global.v4.b32", "a..b.", "x.", ".y", "", "bar.sync.0", "é.ü"] {
            let want: Vec<&str> = w.split('.').skip(1).collect();
            assert_eq!(Opcode::new(w).mods().collect::<Vec<_>>(), want, "{w:?}");
            assert_eq!(Opcode::new(w).base(), w.split('.').next().unwrap_or(w), "{w:?}");
        }
        assert_eq!(scalar_type("s32"), Some((b's', 32)));
        assert_eq!(scalar_type("f16x2"), None);
        assert_eq!(scalar_type("pred"), Some((b'p', 1)));
    }
}

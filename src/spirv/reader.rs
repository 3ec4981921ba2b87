//! Bounds-checked SPIR-V word reader: header, instruction splitter, literal strings.
//!
//! The module is copied once into a `Vec<u32>` in host order (big-endian modules are
//! byte-swapped), then split into [`RawInst`]s whose word counts are all validated up
//! front, so the lowering can index operands without re-checking the stream.

use crate::read::limits::MAX_SPIRV_ID_BOUND;
use crate::read::{ErrorKind, ReadError, Result};

/// The SPIR-V magic number in host order.
pub const MAGIC: u32 = 0x0723_0203;
/// Words in the module header.
pub const HEADER_WORDS: usize = 5;

/// The five header words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Version word (`0x00MMmm00`).
    pub version: u32,
    /// Generator magic (tool id << 16 | tool version).
    pub generator: u32,
    /// Id bound (all ids are `< bound`).
    pub bound: u32,
    /// Reserved schema word.
    pub schema: u32,
    /// True when the input was big-endian.
    pub big_endian: bool,
}

impl Header {
    /// `(major, minor)` from the version word.
    pub fn version_pair(&self) -> (u32, u32) {
        ((self.version >> 16) & 0xff, (self.version >> 8) & 0xff)
    }
}

/// One instruction: opcode and the word range it occupies (first word included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawInst {
    /// Index of the instruction's first word in the module.
    pub start: u32,
    /// Total word count (≥ 1).
    pub len: u16,
    /// Opcode (low 16 bits of the first word).
    pub opcode: u16,
}

/// A decoded module: header, words and validated instruction list.
#[derive(Debug, Clone)]
pub struct Words {
    /// The header.
    pub header: Header,
    /// All words of the module, header included, in host order.
    pub words: Vec<u32>,
    /// Instructions in order.
    pub insts: Vec<RawInst>,
    /// Absolute byte offset of word 0.
    pub base: u64,
}

impl Words {
    /// The operands of `inst` (the words after the opcode word).
    #[inline]
    pub fn operands(&self, inst: RawInst) -> &[u32] {
        let s = inst.start as usize + 1;
        let e = inst.start as usize + inst.len as usize;
        self.words.get(s..e).unwrap_or(&[])
    }

    /// Absolute byte offset of the instruction's first word.
    #[inline]
    pub fn offset(&self, inst: RawInst) -> u64 {
        self.word_offset(inst.start as usize)
    }

    /// Absolute byte offset of word `index`.
    #[inline]
    pub fn word_offset(&self, index: usize) -> u64 {
        self.base.saturating_add(index as u64 * 4)
    }
}

/// Reads the header and splits the module into instructions.
///
/// Errors name the absolute byte offset `base + word_index * 4`.
pub fn read(data: &[u8], base: u64) -> Result<Words> {
    if data.len() < HEADER_WORDS * 4 {
        return Err(ReadError::eof(base + data.len() as u64, "SPIR-V header needs 20 bytes"));
    }
    let big_endian = match data.get(0..4) {
        Some([0x03, 0x02, 0x23, 0x07]) => false,
        Some([0x07, 0x23, 0x02, 0x03]) => true,
        _ => return Err(ReadError::new(ErrorKind::BadMagic, base, "not a SPIR-V module (magic 0x07230203)")),
    };
    let words: Vec<u32> = data
        .chunks_exact(4)
        .map(|c| {
            let b = [c[0], c[1], c[2], c[3]];
            if big_endian {
                u32::from_be_bytes(b)
            } else {
                u32::from_le_bytes(b)
            }
        })
        .collect();
    let header = Header {
        version: words.get(1).copied().unwrap_or(0),
        generator: words.get(2).copied().unwrap_or(0),
        bound: words.get(3).copied().unwrap_or(0),
        schema: words.get(4).copied().unwrap_or(0),
        big_endian,
    };
    if header.bound > MAX_SPIRV_ID_BOUND {
        return Err(ReadError::limit(
            base + 12,
            format!("SPIR-V id bound {} exceeds the limit {}", header.bound, MAX_SPIRV_ID_BOUND),
        ));
    }
    let insts = split(&words, base)?;
    if !data.len().is_multiple_of(4) {
        // Every instruction fits, but trailing bytes do not form a word.
        let tail = (data.len() / 4 * 4) as u64;
        return Err(ReadError::new(
            ErrorKind::BadSize,
            base + tail,
            format!("SPIR-V size {} is not a multiple of 4 bytes", data.len()),
        ));
    }
    Ok(Words { header, words, insts, base })
}

/// Splits the words after the header into instructions, validating each word count.
fn split(words: &[u32], base: u64) -> Result<Vec<RawInst>> {
    // A typical instruction is about 4 words long.
    let mut insts = Vec::with_capacity(words.len() / 4 + 1);
    let mut i = HEADER_WORDS;
    while i < words.len() {
        let first = words[i];
        let len = (first >> 16) as usize;
        let opcode = (first & 0xffff) as u16;
        let at = base + i as u64 * 4;
        if len == 0 {
            return Err(ReadError::malformed(at, format!("instruction (opcode {opcode}) has word count 0")));
        }
        if i + len > words.len() {
            return Err(ReadError::eof(
                at,
                format!("instruction (opcode {opcode}) declares {len} words but only {} remain", words.len() - i),
            ));
        }
        insts.push(RawInst { start: i as u32, len: len as u16, opcode });
        i += len;
    }
    Ok(insts)
}

/// Decodes a nul-terminated literal string from `words`; returns the text (lossy UTF-8)
/// and the number of words it occupies. A string without a terminator ends at the
/// end of `words`.
pub fn string(words: &[u32]) -> (String, usize) {
    let mut bytes = Vec::new();
    for (n, w) in words.iter().enumerate() {
        for b in w.to_le_bytes() {
            if b == 0 {
                return (String::from_utf8_lossy(&bytes).into_owned(), n + 1);
            }
            bytes.push(b);
        }
    }
    (String::from_utf8_lossy(&bytes).into_owned(), words.len())
}

/// Number of words a literal string at the start of `words` occupies (no allocation).
pub fn string_words(words: &[u32]) -> usize {
    for (n, w) in words.iter().enumerate() {
        if w.to_le_bytes().contains(&0) {
            return n + 1;
        }
    }
    words.len()
}

/// True when the literal string at the start of `words` starts with `prefix`.
pub fn string_starts_with(words: &[u32], prefix: &str) -> bool {
    let p = prefix.as_bytes();
    let mut k = 0;
    for w in words {
        for b in w.to_le_bytes() {
            if k == p.len() {
                return true;
            }
            if b != p[k] {
                return false;
            }
            k += 1;
        }
    }
    k == p.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(body: &[u32]) -> Vec<u8> {
        let mut w = vec![MAGIC, 0x0001_0300, 0, 10, 0];
        w.extend_from_slice(body);
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn splits_and_validates() {
        let m = read(&module(&[0x0002_0011, 1, 0x0001_0000]), 0).unwrap();
        assert_eq!(m.insts.len(), 2);
        assert_eq!(m.insts[0], RawInst { start: 5, len: 2, opcode: 17 });
        let e = read(&module(&[0x0000_0011]), 100).unwrap_err();
        assert_eq!(e.offset, 120);
        let e = read(&module(&[0x0003_0011, 1]), 0).unwrap_err();
        assert_eq!(e.kind, ErrorKind::UnexpectedEof);
        assert_eq!(e.offset, 20);
    }

    #[test]
    fn big_endian_is_swapped() {
        let le = module(&[0x0002_0011, 1]);
        let be: Vec<u8> = le.chunks(4).flat_map(|c| [c[3], c[2], c[1], c[0]]).collect();
        let m = read(&be, 0).unwrap();
        assert!(m.header.big_endian);
        assert_eq!(m.insts[0].opcode, 17);
        assert_eq!(m.header.version_pair(), (1, 3));
    }

    #[test]
    fn strings() {
        let w = [u32::from_le_bytes(*b"main"), 0, 7];
        assert_eq!(string(&w), ("main".to_string(), 2));
        assert_eq!(string_words(&w), 2);
        assert!(string_starts_with(&w, "mai"));
        assert!(!string_starts_with(&w, "mainx"));
        assert_eq!(string(&[u32::from_le_bytes(*b"ab\0\0")]), ("ab".to_string(), 1));
    }
}

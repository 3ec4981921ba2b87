//! A bounded, streaming LLVM bitstream reader (formats.md §B.1).
//!
//! [`Cursor`] walks blocks and records: [`Cursor::next_item`] yields
//! [`Item::Enter`] / [`Item::End`] / [`Item::Record`]; the operands of the
//! current record are borrowed from a reused buffer ([`Cursor::ops`]), so a walk
//! allocates nothing per record. Abbreviation definitions and the BLOCKINFO block
//! are handled inside the cursor.
//!
//! Hostile input never panics: every read is bounds-checked, VBR reads have a
//! shift guard, nesting depth is capped, and declared operand counts are checked
//! against the bits left in the stream before anything is reserved. Errors carry
//! the absolute byte offset (`base + bit / 8`).

use super::error::{ErrorKind, ReadError, Result};
use super::limits;

/// Raw bitcode magic `BC 0xC0DE`.
pub const MAGIC: [u8; 4] = [0x42, 0x43, 0xC0, 0xDE];
/// Bitcode wrapper magic (`0x0B17C0DE` little-endian).
pub const WRAPPER_MAGIC: [u8; 4] = [0xDE, 0xC0, 0x17, 0x0B];

/// The BLOCKINFO block id.
pub const BLOCKINFO_BLOCK_ID: u32 = 0;

/// Strips the optional 0x0B17C0DE wrapper (formats.md §A.5). Returns the bitcode
/// (starting at the `BC` magic) and its absolute offset.
pub fn unwrap_bitcode(data: &[u8], base: u64) -> Result<(&[u8], u64)> {
    if data.get(0..4) == Some(&WRAPPER_MAGIC[..]) {
        let word = |i: usize| super::cursor::u32_at(data, i * 4);
        let (Some(off), Some(size)) = (word(2), word(3)) else {
            return Err(ReadError::eof(base, "bitcode wrapper header is truncated"));
        };
        let (off, size) = (off as usize, size as usize);
        let inner = off.checked_add(size).and_then(|end| data.get(off..end));
        return match inner {
            Some(inner) => Ok((inner, base + off as u64)),
            None => Err(ReadError::new(
                ErrorKind::BadSize,
                base + 8,
                format!("bitcode wrapper offset {off} + size {size} exceeds the {} bytes available", data.len()),
            )),
        };
    }
    Ok((data, base))
}

/// One operand of an abbreviation definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AbbrevOp {
    /// A literal value (also Fixed(0) / VBR(0)).
    Literal(u64),
    /// Fixed-width field of 1..=64 bits.
    Fixed(u8),
    /// VBR field with 2..=32-bit chunks.
    Vbr(u8),
    /// Array: vbr6 length, elements encoded by the next operand.
    Array,
    /// 6-bit character.
    Char6,
    /// Blob: vbr6 length, align32, bytes, align32.
    Blob,
}

/// What [`Cursor::next_item`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    /// Entered a sub-block with this id. Call [`Cursor::skip_block`] to skip it.
    Enter(u32),
    /// Left the current block.
    End,
    /// A data record with this code; operands in [`Cursor::ops`].
    Record(u32),
}

#[derive(Debug, Clone, Copy)]
struct Scope {
    block_id: u32,
    outer_width: u32,
    /// Start of this scope's own abbreviations in `Cursor::scope_abbrevs`.
    abbrev_start: usize,
    /// The BLOCKINFO list for this block id (index into `blockinfo`) and its
    /// length when the block was entered: abbreviation ids 4.. name those
    /// first, then the block's own. Referenced, never copied, so entering a
    /// block costs the same however many BLOCKINFO abbreviations exist.
    bi: u32,
    bi_len: u32,
    /// Bit position just past the block (from `numwords`).
    end_bit: u64,
    /// `defs` / `ops_store` lengths when the scope opened: definitions made
    /// inside it are dropped when it ends.
    defs_start: u32,
    ops_start: u32,
}

/// Bit-level reader: a bit position over borrowed bytes. Reads of up to 56
/// bits are one unaligned 8-byte load and a shift.
#[derive(Debug, Clone)]
struct Bits<'a> {
    data: &'a [u8],
    pos: u64,
}

impl<'a> Bits<'a> {
    #[inline(always)]
    fn pos(&self) -> u64 {
        self.pos
    }

    #[inline(always)]
    fn total(&self) -> u64 {
        self.data.len() as u64 * 8
    }

    #[inline(always)]
    fn remaining(&self) -> u64 {
        self.total().saturating_sub(self.pos)
    }

    /// The 64 bits starting at byte `byte` (zero-padded past the end).
    #[inline(always)]
    fn word_at(&self, byte: usize) -> u64 {
        if let Some(&[a, b, c, d, e, f, g, h]) = self.data.get(byte..byte.wrapping_add(8)) {
            u64::from_le_bytes([a, b, c, d, e, f, g, h])
        } else {
            self.word_at_slow(byte)
        }
    }

    #[cold]
    #[inline(never)]
    fn word_at_slow(&self, byte: usize) -> u64 {
        let mut w = [0u8; 8];
        let rest = self.data.get(byte..).unwrap_or(&[]);
        let n = rest.len().min(8);
        w[..n].copy_from_slice(&rest[..n]);
        u64::from_le_bytes(w)
    }

    /// Reads `w` (0..=64) bits; `None` past the end of data.
    #[inline(always)]
    fn read(&mut self, w: u32) -> Option<u64> {
        let end = self.pos + u64::from(w);
        if w > 56 || end > self.total() {
            return self.read_slow(w);
        }
        let x = self.word_at((self.pos >> 3) as usize) >> (self.pos & 7);
        self.pos = end;
        Some(x & ((1u64 << w) - 1))
    }

    #[cold]
    #[inline(never)]
    fn read_slow(&mut self, w: u32) -> Option<u64> {
        let end = self.pos.checked_add(u64::from(w))?;
        if end > self.total() || w > 64 {
            return None;
        }
        let lo_bits = w.min(32);
        let lo = (self.word_at((self.pos >> 3) as usize) >> (self.pos & 7)) & ((1u64 << lo_bits) - 1);
        self.pos += u64::from(lo_bits);
        let hi_bits = w - lo_bits;
        let hi = if hi_bits == 0 {
            0
        } else {
            let h = (self.word_at((self.pos >> 3) as usize) >> (self.pos & 7)) & ((1u64 << hi_bits) - 1);
            self.pos += u64::from(hi_bits);
            h
        };
        Some(lo | hi.checked_shl(lo_bits).unwrap_or(0))
    }

    /// Moves to an absolute bit position (callers keep it ≤ total).
    #[inline]
    fn seek(&mut self, bit: u64) {
        self.pos = bit.min(self.total());
    }
}

/// A streaming bitstream cursor. See the module docs.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    bits: Bits<'a>,
    base: u64,
    width: u32,
    s: Scratch,
    blob: Option<(usize, usize)>,
    record_bit: u64,
}

/// The cursor's growable buffers, reusable from one stream to the next
/// ([`Cursor::with_scratch`] / [`Cursor::into_scratch`]) so a walk over many
/// modules allocates nothing once warm.
#[derive(Debug, Clone, Default)]
pub struct Scratch {
    scopes: Vec<Scope>,
    /// Abbreviation ids (indices into `defs`) of every open scope, innermost last.
    scope_abbrevs: Vec<u32>,
    /// Abbreviation definitions: ranges into `ops_store`.
    defs: Vec<(u32, u32)>,
    ops_store: Vec<AbbrevOp>,
    /// BLOCKINFO abbreviations per block id; only the first `bi_used` entries are live.
    blockinfo: Vec<(u32, Vec<u32>)>,
    bi_used: usize,
    /// True once a BLOCKINFO block was read: later ones are skipped, as LLVM does.
    bi_seen: bool,
    /// `defs` / `ops_store` lengths that must survive scope ends (the BLOCKINFO definitions).
    keep_defs: u32,
    keep_ops: u32,
    record: Vec<u64>,
    /// Record operands delivered so far, and the stream's allowance.
    ops_total: u64,
    ops_limit: u64,
}

impl Scratch {
    /// Releases buffers that a large stream grew past `max` elements, so a
    /// cached scratch does not pin memory after a huge input.
    pub fn trim(&mut self, max: usize) {
        fn t<T>(v: &mut Vec<T>, max: usize) {
            if v.capacity() > max {
                *v = Vec::new();
            }
        }
        t(&mut self.scopes, max);
        t(&mut self.scope_abbrevs, max);
        t(&mut self.defs, max);
        t(&mut self.ops_store, max);
        t(&mut self.record, max);
        if self.blockinfo.len() > 64 || self.blockinfo.iter().any(|(_, v)| v.capacity() > max) {
            self.blockinfo = Vec::new();
        }
    }

    fn reset(&mut self) {
        self.scopes.clear();
        self.scope_abbrevs.clear();
        self.defs.clear();
        self.ops_store.clear();
        self.bi_used = 0;
        self.bi_seen = false;
        self.keep_defs = 0;
        self.keep_ops = 0;
        self.record.clear();
        self.ops_total = 0;
        self.ops_limit = 0;
    }
}

impl<'a> Cursor<'a> {
    /// A cursor over bitcode that starts with the `BC 0xC0DE` magic (or the
    /// wrapper). `base` is the absolute offset of `data[0]`.
    pub fn new(data: &'a [u8], base: u64) -> Result<Self> {
        Self::with_scratch(data, base, Scratch::default())
    }

    /// Like [`Cursor::new`], reusing the buffers of an earlier cursor.
    pub fn with_scratch(data: &'a [u8], base: u64, scratch: Scratch) -> Result<Self> {
        let (data, base) = unwrap_bitcode(data, base)?;
        if data.len() < 4 {
            return Err(ReadError::eof(base, "bitcode shorter than its magic"));
        }
        if data.get(0..4) != Some(&MAGIC[..]) {
            return Err(ReadError::new(ErrorKind::BadMagic, base, "not LLVM bitcode (magic is not 'BC' 0xC0DE)"));
        }
        let mut c = Self::raw(data, base);
        c.s = scratch;
        c.s.reset();
        c.s.ops_limit = stream_ops_limit(data.len());
        c.bits.seek(32);
        Ok(c)
    }

    /// Gives the buffers back for the next cursor.
    pub fn into_scratch(self) -> Scratch {
        self.s
    }

    /// A cursor over a bare bitstream with no magic (top-level abbrev width 2).
    pub fn raw(data: &'a [u8], base: u64) -> Self {
        let s = Scratch { ops_limit: stream_ops_limit(data.len()), ..Scratch::default() };
        Cursor { bits: Bits { data, pos: 0 }, base, width: 2, s, blob: None, record_bit: 0 }
    }

    /// Absolute byte offset of the next bit to read.
    pub fn offset(&self) -> u64 {
        self.base + self.bits.pos() / 8
    }

    /// Absolute byte offset of the start of the current record (or block header).
    pub fn record_offset(&self) -> u64 {
        self.base + self.record_bit / 8
    }

    /// Bit position of the start of the current record, relative to the data start.
    pub fn record_bit(&self) -> u64 {
        self.record_bit
    }

    /// Bits left in the data.
    pub fn remaining_bits(&self) -> u64 {
        self.bits.remaining()
    }

    /// Bits left in the current block (from its declared size), or in the data at top level.
    pub fn block_remaining_bits(&self) -> u64 {
        match self.s.scopes.last() {
            Some(s) => s.end_bit.saturating_sub(self.bits.pos()),
            None => self.bits.remaining(),
        }
    }

    /// Nesting depth (0 at top level).
    pub fn depth(&self) -> usize {
        self.s.scopes.len()
    }

    /// The id of the innermost open block.
    pub fn block_id(&self) -> Option<u32> {
        self.s.scopes.last().map(|s| s.block_id)
    }

    /// Operands of the current record (without the code).
    #[inline]
    pub fn ops(&self) -> &[u64] {
        &self.s.record
    }

    /// Blob of the current record, if its abbreviation has one.
    pub fn blob(&self) -> Option<&'a [u8]> {
        let (s, e) = self.blob?;
        self.bits.data.get(s..e)
    }

    fn err(&self, kind: ErrorKind, what: impl Into<String>) -> ReadError {
        ReadError::new(kind, self.offset(), what)
    }

    fn eof(&self, what: &str) -> ReadError {
        ReadError::eof(
            self.offset().min(self.base + self.bits.data.len() as u64),
            format!("bitstream ends inside {what}"),
        )
    }

    #[inline(always)]
    fn fixed(&mut self, w: u32, what: &str) -> Result<u64> {
        match self.bits.read(w) {
            Some(v) => Ok(v),
            None => Err(self.eof_at(what)),
        }
    }

    #[cold]
    #[inline(never)]
    fn eof_at(&self, what: &str) -> ReadError {
        self.eof(what)
    }

    #[inline(always)]
    fn vbr(&mut self, w: u32, what: &str) -> Result<u64> {
        let pos = self.bits.pos;
        if pos + 64 <= self.bits.total() {
            // At least 57 valid bits: decode every chunk that fits without reloading.
            let mut x = self.bits.word_at((pos >> 3) as usize) >> (pos & 7);
            let hi = 1u64 << (w - 1);
            let mask = (1u64 << w) - 1;
            if x & hi == 0 {
                self.bits.pos = pos + u64::from(w);
                return Ok(x & mask);
            }
            let mut result = 0u64;
            let mut shift = 0u32;
            let mut used = 0u32;
            while used + w <= 56 {
                let piece = x & mask;
                result |= (piece & (hi - 1)) << shift;
                used += w;
                shift += w - 1;
                if piece & hi == 0 {
                    self.bits.pos = pos + u64::from(used);
                    return Ok(result);
                }
                x >>= w;
            }
        }
        self.vbr_slow(w, what)
    }

    #[inline(never)]
    fn vbr_slow(&mut self, w: u32, what: &str) -> Result<u64> {
        let piece = self.fixed(w, what)?;
        let hi = 1u64 << (w - 1);
        if piece & hi == 0 {
            return Ok(piece);
        }
        self.vbr_rest(piece & (hi - 1), w, what)
    }

    /// The continuation chunks of a VBR value whose first chunk was `first`.
    #[inline(never)]
    fn vbr_rest(&mut self, first: u64, w: u32, what: &str) -> Result<u64> {
        let hi = 1u64 << (w - 1);
        let mut result = first;
        let mut shift = w - 1;
        loop {
            let piece = self.fixed(w, what)?;
            let payload = piece & (hi - 1);
            if shift >= 64 || (shift > 0 && payload.checked_shl(shift).is_none_or(|v| v >> shift != payload)) {
                if payload != 0 {
                    return Err(self.err(ErrorKind::Malformed, format!("VBR value in {what} overflows 64 bits")));
                }
            } else {
                result |= payload << shift;
            }
            if piece & hi == 0 {
                return Ok(result);
            }
            shift += w - 1;
            if shift > 64 + 32 {
                return Err(self.err(ErrorKind::Malformed, format!("VBR value in {what} is too long")));
            }
        }
    }

    fn align32(&mut self) -> Result<()> {
        let rem = (self.bits.pos() % 32) as u32;
        if rem != 0 {
            self.fixed(32 - rem, "alignment padding")?;
        }
        Ok(())
    }

    /// True when the rest of the data is zero (trailing padding = EOF at top level).
    fn rest_is_zero(&self) -> bool {
        let pos = self.bits.pos();
        if !pos.is_multiple_of(8) && self.bits.word_at((pos / 8) as usize) >> (pos % 8) & 0xFF != 0 {
            return false;
        }
        self.bits.data.get(pos.div_ceil(8) as usize..).is_none_or(|r| r.iter().all(|&b| b == 0))
    }

    /// The next item, or `None` at the end of the stream (top level only).
    pub fn next_item(&mut self) -> Result<Option<Item>> {
        loop {
            if self.s.scopes.is_empty() && (self.bits.remaining() < u64::from(self.width) || self.rest_is_zero()) {
                return Ok(None);
            }
            self.record_bit = self.bits.pos();
            let id = self.fixed(self.width, "an abbreviation id")?;
            match id {
                0 => {
                    // END_BLOCK
                    if self.s.scopes.is_empty() {
                        return Err(self.err(ErrorKind::Malformed, "END_BLOCK at top level"));
                    }
                    self.align32()?;
                    self.pop_scope();
                    return Ok(Some(Item::End));
                }
                1 => {
                    let block_id = self.enter()?;
                    if block_id == BLOCKINFO_BLOCK_ID {
                        if self.s.bi_seen {
                            // LLVM honours the first BLOCKINFO block only.
                            self.skip_block()?;
                        } else {
                            self.s.bi_seen = true;
                            self.read_blockinfo()?;
                        }
                        continue;
                    }
                    return Ok(Some(Item::Enter(block_id)));
                }
                2 => {
                    if self.s.scopes.is_empty() {
                        return Err(self.err(ErrorKind::Malformed, "DEFINE_ABBREV at top level"));
                    }
                    let def = self.define_abbrev()?;
                    let start = self.s.scopes.last().map_or(0, |s| s.abbrev_start);
                    if self.s.scope_abbrevs.len() - start >= limits::MAX_ABBREVS {
                        return Err(self.err(ErrorKind::LimitExceeded, "too many abbreviations in one block"));
                    }
                    self.s.scope_abbrevs.push(def);
                    continue;
                }
                _ => {
                    if self.s.scopes.is_empty() {
                        return Err(self.err(ErrorKind::Malformed, "record at top level (expected a block)"));
                    }
                    let code = self.read_record(id)?;
                    return Ok(Some(Item::Record(code)));
                }
            }
        }
    }

    fn pop_scope(&mut self) {
        if let Some(s) = self.s.scopes.pop() {
            self.s.scope_abbrevs.truncate(s.abbrev_start);
            // Definitions made in the block are unreachable once it ends (only
            // the BLOCKINFO ones, below `keep_*`, are referenced from outside).
            let defs = s.defs_start.max(self.s.keep_defs) as usize;
            let ops = s.ops_start.max(self.s.keep_ops) as usize;
            self.s.defs.truncate(defs);
            self.s.ops_store.truncate(ops);
            self.width = s.outer_width;
        }
    }

    /// Charges `n` delivered operands to the stream's allowance.
    #[inline]
    fn charge_ops(&mut self, n: u64) -> Result<()> {
        self.s.ops_total = self.s.ops_total.saturating_add(n);
        if self.s.ops_total > self.s.ops_limit {
            return Err(self.limit_ops());
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn limit_ops(&self) -> ReadError {
        ReadError::new(
            ErrorKind::LimitExceeded,
            self.record_offset(),
            format!(
                "records carry more than {} operands in total for {} bytes of bitcode \
                 (abbreviations of literal operands)",
                self.s.ops_limit,
                self.bits.data.len()
            ),
        )
    }

    /// Reads an ENTER_SUBBLOCK header (after the abbrev id) and pushes the scope.
    fn enter(&mut self) -> Result<u32> {
        let block_id = self.vbr(8, "a block id")?;
        let width = self.vbr(4, "a block abbrev width")?;
        self.align32()?;
        let numwords = self.fixed(32, "a block length")?;
        let block_id = u32::try_from(block_id)
            .map_err(|_| self.err(ErrorKind::Malformed, format!("block id {block_id} is out of range")))?;
        if width == 0 || width > 32 {
            return Err(self.err(ErrorKind::Malformed, format!("block abbrev width {width} is out of range")));
        }
        let end_bit = self.bits.pos() + numwords * 32;
        if end_bit > self.bits.total() {
            return Err(ReadError::new(
                ErrorKind::BadSize,
                self.offset() - 4,
                format!("block {block_id} of {numwords} words runs past the end of the bitcode"),
            ));
        }
        if self.s.scopes.len() >= limits::MAX_BLOCK_DEPTH {
            return Err(self.err(ErrorKind::LimitExceeded, "blocks nested too deeply"));
        }
        let abbrev_start = self.s.scope_abbrevs.len();
        let (bi, bi_len) = match self.s.blockinfo[..self.s.bi_used].iter().position(|(b, _)| *b == block_id) {
            Some(i) => (i as u32, self.s.blockinfo[i].1.len() as u32),
            None => (u32::MAX, 0),
        };
        let (defs_start, ops_start) = (self.s.defs.len() as u32, self.s.ops_store.len() as u32);
        self.s.scopes.push(Scope {
            block_id,
            outer_width: self.width,
            abbrev_start,
            bi,
            bi_len,
            end_bit,
            defs_start,
            ops_start,
        });
        self.width = width as u32;
        Ok(block_id)
    }

    /// Skips the rest of the block just entered (or the current block) using its length.
    pub fn skip_block(&mut self) -> Result<()> {
        let Some(s) = self.s.scopes.last() else {
            return Err(self.err(ErrorKind::Malformed, "skip_block at top level"));
        };
        let end = s.end_bit;
        self.bits.seek(end);
        self.pop_scope();
        Ok(())
    }

    fn define_abbrev(&mut self) -> Result<u32> {
        let numops = self.vbr(5, "an abbreviation")? as usize;
        if numops > limits::MAX_ABBREV_OPS {
            return Err(self.err(ErrorKind::LimitExceeded, format!("abbreviation with {numops} operands")));
        }
        if numops as u64 > self.bits.remaining() {
            return Err(self.eof("an abbreviation"));
        }
        if self.s.ops_store.len() + numops > limits::MAX_ABBREV_STATE {
            return Err(self.err(
                ErrorKind::LimitExceeded,
                format!("more than {} abbreviation operands defined at once", limits::MAX_ABBREV_STATE),
            ));
        }
        let start = self.s.ops_store.len();
        let mut i = 0;
        while i < numops {
            let is_literal = self.fixed(1, "an abbreviation")?;
            let op = if is_literal == 1 {
                AbbrevOp::Literal(self.vbr(8, "an abbreviation literal")?)
            } else {
                let enc = self.fixed(3, "an abbreviation")?;
                match enc {
                    1 | 2 => {
                        let w = self.vbr(5, "an abbreviation width")?;
                        let max = if enc == 1 { 64 } else { 32 };
                        if w > max || (enc == 2 && w == 1) {
                            return Err(self.err(ErrorKind::Malformed, format!("abbreviation width {w} is invalid")));
                        }
                        if w == 0 {
                            AbbrevOp::Literal(0)
                        } else if enc == 1 {
                            AbbrevOp::Fixed(w as u8)
                        } else {
                            AbbrevOp::Vbr(w as u8)
                        }
                    }
                    3 => AbbrevOp::Array,
                    4 => AbbrevOp::Char6,
                    5 => AbbrevOp::Blob,
                    _ => return Err(self.err(ErrorKind::Malformed, format!("abbreviation encoding {enc} is unknown"))),
                }
            };
            self.s.ops_store.push(op);
            i += 1;
        }
        let end = self.s.ops_store.len();
        let ops = &self.s.ops_store[start..end];
        // Validate the shape once so record reads can trust it.
        match ops.first() {
            None => return Err(self.err(ErrorKind::Malformed, "empty abbreviation")),
            Some(AbbrevOp::Array | AbbrevOp::Blob) => {
                return Err(self.err(ErrorKind::Malformed, "abbreviation starts with an array or blob"))
            }
            _ => {}
        }
        for (k, op) in ops.iter().enumerate() {
            if *op == AbbrevOp::Array {
                let elt = ops.get(k + 1);
                if k + 2 != ops.len() || matches!(elt, Some(AbbrevOp::Array | AbbrevOp::Blob) | None) {
                    return Err(self.err(ErrorKind::Malformed, "array must be followed by exactly one element operand"));
                }
                // As in LLVM: an element must be read from the stream. A literal
                // (or a 0-bit fixed/VBR field) would make every element free.
                if matches!(elt, Some(AbbrevOp::Literal(_))) {
                    return Err(self.err(
                        ErrorKind::Malformed,
                        "array element is a literal or a 0-bit field (it must be fixed, VBR or char6)",
                    ));
                }
            }
        }
        if self.s.defs.len() >= u32::MAX as usize - 1 {
            return Err(self.err(ErrorKind::LimitExceeded, "too many abbreviations"));
        }
        self.s.defs.push((start as u32, end as u32));
        Ok((self.s.defs.len() - 1) as u32)
    }

    fn read_blockinfo(&mut self) -> Result<()> {
        let mut cur_bid: Option<u32> = None;
        loop {
            self.record_bit = self.bits.pos();
            let id = self.fixed(self.width, "BLOCKINFO")?;
            match id {
                0 => {
                    self.align32()?;
                    // Its definitions are referenced from `blockinfo`: keep them.
                    self.s.keep_defs = self.s.defs.len() as u32;
                    self.s.keep_ops = self.s.ops_store.len() as u32;
                    self.pop_scope();
                    return Ok(());
                }
                1 => {
                    // A nested block inside BLOCKINFO: skip it.
                    self.enter()?;
                    self.skip_block()?;
                }
                2 => {
                    let Some(bid) = cur_bid else {
                        return Err(self.err(ErrorKind::Malformed, "abbreviation in BLOCKINFO before SETBID"));
                    };
                    let def = self.define_abbrev()?;
                    let used = self.s.bi_used;
                    let entry = match self.s.blockinfo[..used].iter().position(|(b, _)| *b == bid) {
                        Some(i) => i,
                        None => {
                            if used >= limits::MAX_BLOCKINFO_IDS {
                                return Err(self.err(
                                    ErrorKind::LimitExceeded,
                                    format!("BLOCKINFO describes more than {} block ids", limits::MAX_BLOCKINFO_IDS),
                                ));
                            }
                            // Reuse a slot left by an earlier stream, or add one.
                            if used < self.s.blockinfo.len() {
                                self.s.blockinfo[used].0 = bid;
                                self.s.blockinfo[used].1.clear();
                            } else {
                                self.s.blockinfo.push((bid, Vec::new()));
                            }
                            self.s.bi_used += 1;
                            used
                        }
                    };
                    let list = &mut self.s.blockinfo[entry].1;
                    if list.len() >= limits::MAX_ABBREVS {
                        return Err(self.err(ErrorKind::LimitExceeded, "too many BLOCKINFO abbreviations"));
                    }
                    list.push(def);
                }
                _ => {
                    let code = self.read_record(id)?;
                    if code == 1 {
                        let bid = self.s.record.first().copied().unwrap_or(u64::MAX);
                        cur_bid = Some(u32::try_from(bid).map_err(|_| {
                            self.err(ErrorKind::Malformed, format!("SETBID block id {bid} is out of range"))
                        })?);
                    }
                }
            }
        }
    }

    /// The definition (index into `defs`) that abbreviation id `id` (≥ 4) names
    /// in the current block: its BLOCKINFO abbreviations first, then its own.
    #[inline]
    fn abbrev(&self, id: u64) -> Option<u32> {
        let scope = self.s.scopes.last()?;
        let rel = usize::try_from(id.checked_sub(4)?).ok()?;
        let bi_len = scope.bi_len as usize;
        if rel < bi_len {
            return self.s.blockinfo.get(scope.bi as usize)?.1.get(rel).copied();
        }
        self.s.scope_abbrevs.get(scope.abbrev_start + (rel - bi_len)).copied()
    }

    /// Reads a record with abbreviation id `id` (≥ 3) into `self.s.record`.
    fn read_record(&mut self, id: u64) -> Result<u32> {
        self.s.record.clear();
        self.blob = None;
        if id == 3 {
            let code = self.vbr(6, "a record code")?;
            let n = self.vbr(6, "a record")? as usize;
            if n > limits::MAX_RECORD_OPS || (n as u64).saturating_mul(6) > self.bits.remaining() {
                return Err(self.err(ErrorKind::BadSize, format!("record with {n} operands exceeds the data left")));
            }
            self.charge_ops(n as u64 + 1)?;
            self.s.record.reserve(n);
            for _ in 0..n {
                let v = self.vbr(6, "a record")?;
                self.s.record.push(v);
            }
            return self.code(code);
        }
        let def = self.abbrev(id);
        let Some(def) = def else {
            return Err(self.err(ErrorKind::Malformed, format!("abbreviation id {id} is not defined")));
        };
        let (s, e) = self.s.defs[def as usize];
        let (s, e) = (s as usize, e as usize);
        // Every operand of the abbreviation (an array counts its length below).
        self.charge_ops((e - s) as u64)?;
        // The code operand (validated at definition: never an array or blob).
        let code = match self.s.ops_store[s] {
            AbbrevOp::Literal(v) => v,
            AbbrevOp::Fixed(w) => self.fixed(u32::from(w), "a record code")?,
            AbbrevOp::Vbr(w) => self.vbr(u32::from(w), "a record code")?,
            AbbrevOp::Char6 => u64::from(char6(self.fixed(6, "a record code")? as u8)),
            AbbrevOp::Array | AbbrevOp::Blob => {
                return Err(self.err(ErrorKind::Malformed, "abbreviation starts with an array or blob"))
            }
        };
        let mut i = s + 1;
        while i < e {
            let op = self.s.ops_store[i];
            i += 1;
            match op {
                AbbrevOp::Literal(v) => self.s.record.push(v),
                AbbrevOp::Fixed(w) => {
                    let v = self.fixed(u32::from(w), "a record")?;
                    self.s.record.push(v);
                }
                AbbrevOp::Vbr(w) => {
                    let v = self.vbr(u32::from(w), "a record")?;
                    self.s.record.push(v);
                }
                AbbrevOp::Char6 => {
                    let v = self.fixed(6, "a record")?;
                    self.s.record.push(u64::from(char6(v as u8)));
                }
                AbbrevOp::Array => {
                    let n = self.vbr(6, "an array length")? as usize;
                    // Validated at definition: exactly one element operand follows.
                    let elt = self.s.ops_store[i];
                    i += 1;
                    // Never a literal (refused at definition): every element costs bits.
                    let min_bits = match elt {
                        AbbrevOp::Fixed(w) | AbbrevOp::Vbr(w) => u64::from(w).max(1),
                        _ => 6,
                    };
                    if n > limits::MAX_RECORD_OPS
                        || self.s.record.len() + n > limits::MAX_RECORD_OPS
                        || (n as u64).saturating_mul(min_bits) > self.bits.remaining()
                    {
                        return Err(
                            self.err(ErrorKind::BadSize, format!("array of {n} elements exceeds the data left"))
                        );
                    }
                    self.charge_ops(n as u64)?;
                    self.s.record.reserve(n);
                    match elt {
                        AbbrevOp::Literal(v) => self.s.record.extend(std::iter::repeat_n(v, n)),
                        AbbrevOp::Fixed(w) => {
                            for _ in 0..n {
                                let v = self.fixed(u32::from(w), "an array")?;
                                self.s.record.push(v);
                            }
                        }
                        AbbrevOp::Vbr(w) => {
                            for _ in 0..n {
                                let v = self.vbr(u32::from(w), "an array")?;
                                self.s.record.push(v);
                            }
                        }
                        _ => {
                            for _ in 0..n {
                                let v = self.fixed(6, "an array")?;
                                self.s.record.push(u64::from(char6(v as u8)));
                            }
                        }
                    }
                }
                AbbrevOp::Blob => {
                    let n = self.vbr(6, "a blob length")?;
                    self.align32()?;
                    if n.saturating_mul(8) > self.bits.remaining() {
                        return Err(self.err(ErrorKind::BadSize, format!("blob of {n} bytes exceeds the data left")));
                    }
                    let start = (self.bits.pos() / 8) as usize;
                    let end = start + n as usize;
                    self.blob = Some((start, end));
                    self.bits.seek((end as u64) * 8);
                    self.align32()?;
                }
            }
        }
        self.code(code)
    }

    #[inline]
    fn code(&self, code: u64) -> Result<u32> {
        u32::try_from(code).map_err(|_| self.err(ErrorKind::Malformed, format!("record code {code} is out of range")))
    }
}

/// Operands a stream of `bytes` bytes may deliver: one per bit plus a slack,
/// at most [`limits::MAX_STREAM_OPS`].
fn stream_ops_limit(bytes: usize) -> u64 {
    (bytes as u64).saturating_mul(8).saturating_add(limits::STREAM_OPS_SLACK).min(limits::MAX_STREAM_OPS)
}

/// Decodes a 6-bit character.
#[inline]
pub fn char6(v: u8) -> u8 {
    match v {
        0..=25 => b'a' + v,
        26..=51 => b'A' + (v - 26),
        52..=61 => b'0' + (v - 52),
        62 => b'.',
        _ => b'_',
    }
}

/// Decodes a sign-rotated VBR value (formats.md §B.6): even → v>>1, odd → −(v>>1);
/// 1 is `i64::MIN`.
#[inline]
pub fn decode_signed(v: u64) -> u64 {
    if v & 1 == 0 {
        v >> 1
    } else if v != 1 {
        (v >> 1).wrapping_neg()
    } else {
        1u64 << 63
    }
}

/// Walks every block and record of a bitcode stream, returning the record count.
/// Used by the fuzz target and tests.
pub fn walk(data: &[u8], base: u64) -> Result<u64> {
    let mut c = Cursor::new(data, base)?;
    let mut n = 0u64;
    while let Some(item) = c.next_item()? {
        if let Item::Record(_) = item {
            n += 1;
        }
    }
    if c.depth() != 0 {
        return Err(ReadError::eof(c.offset(), "bitstream ends inside a block"));
    }
    Ok(n)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
#[path = "bitstream_tests.rs"]
mod tests;

//! A bounds-checked little-endian byte cursor over borrowed bytes.

use super::error::{ReadError, Result};

/// Reads little-endian integers from a byte slice; every method checks bounds.
/// `base` is the absolute offset of `data[0]` in the input, for error messages.
#[derive(Debug, Clone)]
pub struct ByteReader<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
}

impl<'a> ByteReader<'a> {
    /// A reader over `data`, whose first byte sits at absolute offset `base`.
    pub fn new(data: &'a [u8], base: u64) -> Self {
        ByteReader { data, pos: 0, base }
    }

    /// Absolute offset of the next byte.
    pub fn offset(&self) -> u64 {
        self.base.saturating_add(self.pos as u64)
    }

    /// Position relative to the start of `data`.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    /// Moves to a position relative to the start of `data`.
    pub fn seek(&mut self, pos: usize) -> Result<()> {
        if pos > self.data.len() {
            return Err(ReadError::eof(self.base.saturating_add(pos as u64), "seek past end"));
        }
        self.pos = pos;
        Ok(())
    }

    /// The next `n` bytes.
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|e| *e <= self.data.len());
        match end.and_then(|e| self.data.get(self.pos..e)) {
            Some(s) => {
                self.pos += n;
                Ok(s)
            }
            None => Err(ReadError::eof(self.offset(), format!("need {n} bytes, {} left", self.remaining()))),
        }
    }

    /// A little-endian u16.
    pub fn u16(&mut self) -> Result<u16> {
        let b = self.bytes(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    /// A little-endian u32.
    pub fn u32(&mut self) -> Result<u32> {
        let b = self.bytes(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

/// Reads a little-endian u32 at `pos` of `data`, if in bounds.
pub fn u32_at(data: &[u8], pos: usize) -> Option<u32> {
    let b = data.get(pos..pos.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

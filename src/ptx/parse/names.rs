//! Dense name ids: every register and symbol name of a function body (an
//! operand `%r1`, `!%p1`, `sym`, a guard, an address base, a declared name)
//! gets an id as it is read, the same for every spelling of the same name
//! in the body, dense from 0 in order of first appearance. A name is hashed
//! once here; what reads the tree indexes tables by the id.

use rustc_hash::FxHashMap;
use std::collections::hash_map::Entry;

/// The id of a name in its function body's table ([`super::Stmts::names`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NameId(u32);

impl NameId {
    /// The id as an index (dense from 0 in each body).
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The id of index `i` (for tests and tables built elsewhere).
    pub fn new(i: u32) -> Self {
        NameId(i)
    }
}

/// A name of up to 8 bytes as one word: its bytes little-endian, zero
/// padded. Names are lexed words, which never hold a zero byte, so two names
/// of different lengths never share a word.
/// (Two overlapping 4-byte loads from 4 bytes on: no copy of a variable length.)
#[inline]
fn short_key(b: &[u8]) -> Option<u64> {
    let n = b.len();
    match n {
        4..=8 => {
            let lo = u32::from_le_bytes(b.get(..4)?.try_into().ok()?);
            let hi = u32::from_le_bytes(b.get(n - 4..)?.try_into().ok()?);
            Some(u64::from(lo) | u64::from(hi) << (8 * (n - 4)))
        }
        0..=3 => Some(b.iter().rev().fold(0u64, |k, &c| k << 8 | u64::from(c))),
        _ => None,
    }
}

/// The names of one function body being read: name → id, and id → name.
#[derive(Debug)]
pub(crate) struct Interner<'a> {
    short: FxHashMap<u64, u32>,
    long: FxHashMap<&'a str, u32>,
    names: Vec<&'a str>,
    /// At most this many names ([`crate::read::limits::MAX_PTX_NAMES`]).
    limit: usize,
}

impl Default for Interner<'_> {
    fn default() -> Self {
        Interner {
            short: FxHashMap::default(),
            long: FxHashMap::default(),
            names: Vec::new(),
            limit: crate::read::limits::MAX_PTX_NAMES,
        }
    }
}

impl<'a> Interner<'a> {
    /// The id of `name` (a new one the first time); `None` once the body has
    /// [`crate::read::limits::MAX_PTX_NAMES`] names and this is another.
    #[inline]
    pub(crate) fn id(&mut self, name: &'a str) -> Option<NameId> {
        let next = self.names.len() as u32;
        let room = self.names.len() < self.limit;
        let id = match short_key(name.as_bytes()) {
            Some(k) => match self.short.entry(k) {
                Entry::Occupied(e) => *e.get(),
                Entry::Vacant(e) if room => *e.insert(next),
                Entry::Vacant(_) => return None,
            },
            None => match self.long.entry(name) {
                Entry::Occupied(e) => *e.get(),
                Entry::Vacant(e) if room => *e.insert(next),
                Entry::Vacant(_) => return None,
            },
        };
        if id == next {
            self.names.push(name);
        }
        Some(NameId(id))
    }

    /// Room for the names of a body of `bytes` bytes of text: compilers
    /// write a new name every 40 to 550 bytes (CuTe DSL 40, Triton 62, nvcc
    /// 159, FlashAttention-3 555); room for one per 128 bytes (at most 65,536)
    /// saves most rehashing as the map grows without reserving much more
    /// than nvcc's and FlashAttention's bodies use (the map's peak while the
    /// module is read stays in the process's resident memory).
    pub(crate) fn reserve_for_body_bytes(&mut self, bytes: usize) {
        self.short.reserve((bytes / 128).min(1 << 16));
    }

    /// The names met so far, by id.
    #[cfg(test)]
    pub(crate) fn names(&self) -> &[&'a str] {
        &self.names
    }

    /// The table of names by id, leaving the interner empty for the next
    /// body (its maps keep their capacity until the module is read: glibc
    /// raises its mmap threshold to the size of a large block freed, and a
    /// map freed after every large body made the syntax tree and the IR that
    /// follow come from the heap, which keeps what it frees resident).
    pub(crate) fn take(&mut self) -> Vec<&'a str> {
        self.short.clear();
        self.long.clear();
        let mut names = std::mem::take(&mut self.names);
        // What was reserved and not used goes (the table stays with the body).
        names.shrink_to_fit();
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_dense_and_stable() {
        let mut n = Interner::default();
        let words = ["%r1", "%r10", "%r1", "%rd12345", "%rd123456", "%rd123456", "p", "%r10", "$L__BB0_2", "%rd12345"];
        let ids: Vec<u32> = words.iter().map(|w| n.id(w).unwrap().0).collect();
        assert_eq!(ids, [0, 1, 0, 2, 3, 3, 4, 1, 5, 2]);
        let table = n.take();
        assert_eq!(table, ["%r1", "%r10", "%rd12345", "%rd123456", "p", "$L__BB0_2"]);
        // A new body starts from 0.
        assert_eq!(n.id("%r10"), Some(NameId(0)));
        assert_eq!((n.short.len(), n.long.len()), (1, 0), "the table was emptied");
    }

    /// Past the limit a new name has no id (the reader reports it), and the
    /// table does not grow; names already in it keep theirs.
    #[test]
    fn the_table_stops_at_its_limit() {
        let mut n = Interner { limit: 3, ..Interner::default() };
        assert_eq!(["%r1", "%r2", "%rd123456789"].map(|w| n.id(w)), [0, 1, 2].map(|i| Some(NameId(i))));
        assert_eq!(n.id("%r3"), None);
        assert_eq!(n.id("%rd987654321"), None);
        assert_eq!(n.id("%r2"), Some(NameId(1)));
        assert_eq!(n.id("%rd123456789"), Some(NameId(2)));
        assert_eq!((n.names.len(), n.short.len(), n.long.len()), (3, 2, 1));
    }

    /// Many names: the table grows and every name keeps its id; emptied, it
    /// holds nothing and gives ids from 0 again.
    #[test]
    fn the_table_grows_and_empties() {
        let words: Vec<String> = (0..5000).map(|i| format!("%r{i}")).collect();
        let mut n = Interner::default();
        for (i, w) in words.iter().enumerate() {
            assert_eq!(n.id(w), Some(NameId(i as u32)));
        }
        for (i, w) in words.iter().enumerate().rev() {
            assert_eq!(n.id(w), Some(NameId(i as u32)));
        }
        assert_eq!(n.take().len(), 5000);
        assert!(n.short.is_empty() && n.long.is_empty());
        assert_eq!(n.id(&words[4999]), Some(NameId(0)));
    }

    #[test]
    fn short_keys_tell_lengths_apart() {
        assert_ne!(short_key(b"a"), short_key(b"aa"));
        assert_ne!(short_key(b"%r1"), short_key(b"%r10"));
        assert_eq!(short_key(b"%rd12345"), Some(u64::from_le_bytes(*b"%rd12345")));
        for name in ["a", "%r", "%r1", "%r12", "%r123", "%rd12", "%rd123", "%fd1234"] {
            let mut w = [0u8; 8];
            w[..name.len()].copy_from_slice(name.as_bytes());
            assert_eq!(short_key(name.as_bytes()), Some(u64::from_le_bytes(w)), "{name}");
        }
        assert_eq!(short_key(b"%rd123456"), None);
    }
}

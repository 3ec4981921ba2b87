//! Dense name ids: every register and symbol name of a function body (an
//! operand `%r1`, `!%p1`, `sym`, a guard, an address base, a declared name)
//! gets an id as it is read, the same for every spelling of the same name
//! in the body (and a different one for every other name), dense from 0.
//! What reads the tree indexes tables by the id.
//!
//! Ids are given in the order names are first read, except for the
//! elements of the register ranges the body scope declares (`.reg .b32
//! %r<5148>;`, NVVM's way of declaring nearly every register): such a
//! declaration reserves the ids `b … b+N-1` for `%r0 … %r{N-1}` at once
//! ([`Interner::register_range`], `b` is the declaration's
//! [`super::VarDecl::first_id`]), and a later read of `%r123` gets `b+123`
//! from a table of at most [`MAX_RANGES`] prefixes, its name never hashed
//! (the one-line reader reads the prefix and digits as words of the text).
//! A reserved id's name is filled in when it is first read: the table by id
//! names every id read, and holds `""` for reserved ids never read. Other
//! names are hashed once, as one word when they have at most 8 bytes.

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

/// Maps the short names are spread over.
const SHARDS: usize = 32;

/// Register ranges of a body whose elements get reserved ids, at most.
pub(crate) const MAX_RANGES: usize = 8;

/// The most elements of a range that get reserved ids (the last ones: nvcc
/// writes the top of its oversized ranges; the others get ids as they are
/// read). An id reserved and never read still
/// costs its slot in the table by id (16 bytes, written), and nvcc declares
/// ranges far larger than it uses (ThunderKittens' MoE GEMM: `%f<110593>`
/// for 4,096 registers, 1.7 MB of slots); CuTe DSL's and Triton's largest
/// are 5,148 and 3,358.
pub(crate) const MAX_RESERVED_RANGE: u32 = 4096;

/// Slots of the direct-mapped table of ranges (twice [`MAX_RANGES`]; a
/// prefix whose slot is taken gets no reserved ids).
const RANGE_SLOTS: usize = 16;

/// `b` repeated in every byte of a word.
const fn bytes(b: u8) -> u64 {
    0x0101_0101_0101_0101 * b as u64
}

/// The high bit of every byte of `w` that is not an ASCII digit (no carry
/// crosses bytes: 0x7f + 0x76 < 0x100).
#[inline(always)]
pub(crate) fn nondigit_bits(w: u64) -> u64 {
    let t = w ^ bytes(b'0');
    (((t & bytes(0x7f)) + bytes(0x76)) | t) & bytes(0x80)
}

/// The value of the `c` (1 to 7) decimal digits in the lowest bytes of `w`,
/// the first (most significant) lowest: word arithmetic, no loop.
#[inline(always)]
pub(crate) fn digits_value(w: u64, c: usize) -> u32 {
    // The digits' values in the top `c` bytes, then summed in pairs, fours
    // and eights.
    let mut v = (w & bytes(0x0f)) << (8 * (8 - c));
    v = v.wrapping_mul(10).wrapping_add(v >> 8) & 0x00ff_00ff_00ff_00ff;
    v = v.wrapping_mul(100).wrapping_add(v >> 16) & 0x0000_ffff_0000_ffff;
    v = v.wrapping_mul(10000).wrapping_add(v >> 32) & 0xffff_ffff;
    v as u32
}

/// A short name's word ([`short_key`], `n` bytes) split as a register
/// element: the word of its prefix (the bytes before its first digit, at
/// least one) and the value of its digits, when everything from the first
/// digit to the end is a digit, in canonical decimal (no leading zero but
/// for `0` itself). Word arithmetic: no loop over the bytes.
#[inline(always)]
fn split_word(w: u64, n: usize) -> Option<(u64, u32)> {
    let nondigit = nondigit_bits(w);
    let first = (!nondigit & bytes(0x80)).trailing_zeros() as usize / 8;
    if first == 0 || first >= n {
        return None;
    }
    // `c` digits from byte `first` on (1 to 7), the rest of `w` zero.
    let c = n - first;
    let tail = w >> (8 * first);
    if (nondigit >> (8 * first)) & ((1u64 << (8 * c)) - 1) != 0 || (c > 1 && tail & 0xff == u64::from(b'0')) {
        return None;
    }
    Some((w & ((1u64 << (8 * first)) - 1), digits_value(tail, c)))
}

/// The slot of prefix word `p` in the table of ranges.
#[inline(always)]
fn range_slot(p: u64) -> usize {
    (p.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 60) as usize % RANGE_SLOTS
}

/// The bit of prefix word `p` in [`Interner::hashed_prefixes`].
#[inline(always)]
fn prefix_bit(p: u64) -> u64 {
    1 << (p.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58)
}

/// A register range whose elements have reserved ids: `%r<count>` with
/// prefix word `key` (0: a free slot), `%r0` at id `base`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Range {
    key: u64,
    base: u32,
    /// The first element with a reserved id (`base` is its id).
    from: u32,
    /// How many elements from `from` on have reserved ids.
    count: u32,
    /// The digits of `count - 1` (its elements' most).
    digits: u8,
}

impl Range {
    /// The reserved id of element `v` (`None` past the range); the caller
    /// names it ([`Interner::reserved`]). A register read as the prefix and
    /// canonical digits of value `v` gets this id from [`Interner::id`] too.
    #[inline(always)]
    pub(crate) fn element(self, v: u32) -> Option<u32> {
        let k = v.wrapping_sub(self.from);
        (k < self.count).then(|| self.base + k)
    }

    /// The most digits an element with a reserved id has.
    #[inline(always)]
    pub(crate) fn digits(self) -> usize {
        usize::from(self.digits)
    }
}

/// The map of word `k` (the top bits of a multiplicative hash: the maps'
/// own hashing uses the low bits), below [`SHARDS`].
#[inline(always)]
fn shard(k: u64) -> usize {
    (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SHARDS.trailing_zeros())) as usize
}

/// The names of one function body being read: name → id, and id → name.
#[derive(Debug)]
pub(crate) struct Interner<'a> {
    /// Short names by word, in [`SHARDS`] maps by the word's hash: each map
    /// of a large body stays under glibc's mmap threshold (128 KB), so
    /// freeing them never raises that threshold (one 2 MB map freed at the
    /// end of the read made the lowering's large vectors come from the heap,
    /// where their growth left resident holes: moe_dispatch_gemm 2 MB more).
    short: [FxHashMap<u64, u32>; SHARDS],
    long: FxHashMap<&'a str, u32>,
    /// The table by id (`""` for a reserved id not read yet).
    names: Vec<&'a str>,
    /// At most this many names ([`crate::read::limits::MAX_PTX_NAMES`]),
    /// reserved ids included.
    limit: usize,
    /// The ranges whose elements have reserved ids, by [`range_slot`].
    ranges: [Range; RANGE_SLOTS],
    /// How many of `ranges` are used.
    nranges: usize,
    /// The [`prefix_bit`]s of every hashed name of the form prefix +
    /// digits ([`split_word`]): a range of such a prefix gets no reserved
    /// ids (a name hashed before its range was declared keeps its id).
    hashed_prefixes: u64,
    /// Ids the module's bodies may still reserve, all together: an eighth
    /// of its bytes (compilers write 13 or more bytes of a body per
    /// register it declares) plus 4,096 ([`Interner::for_text`]), so that a
    /// declaration `%r<4000000>` in a short module reserves nothing, and
    /// the tables of all its bodies hold at most two bytes per byte of text
    /// for ids never read.
    reserve_budget: usize,
}

impl Default for Interner<'_> {
    fn default() -> Self {
        Interner {
            short: std::array::from_fn(|_| FxHashMap::default()),
            long: FxHashMap::default(),
            names: Vec::new(),
            limit: crate::read::limits::MAX_PTX_NAMES,
            ranges: [Range::default(); RANGE_SLOTS],
            nranges: 0,
            hashed_prefixes: 0,
            reserve_budget: 0,
        }
    }
}

impl<'a> Interner<'a> {
    /// The interner of a module of `len` bytes of text.
    pub(crate) fn for_text(len: usize) -> Self {
        Interner { reserve_budget: len / 8 + 4096, ..Interner::default() }
    }

    /// The id of `name` (a new one the first time); `None` once the body has
    /// [`crate::read::limits::MAX_PTX_NAMES`] names and this is another.
    /// (Inlined into the reader's few callers: a call per name cost a fifth
    /// of it.)
    #[inline(always)]
    pub(crate) fn id(&mut self, name: &'a str) -> Option<NameId> {
        let b = name.as_bytes();
        let Some(k) = short_key(b) else { return self.long_id(name) };
        if self.nranges != 0 {
            // An element of a range with reserved ids: no hashing.
            if let Some((p, v)) = split_word(k, b.len()) {
                if let Some(id) = self.range_of(p).and_then(|r| r.element(v)) {
                    return Some(self.reserved(id, name));
                }
            }
        }
        self.hashed(name, k)
    }

    /// The id of a name that is no range element with a reserved id (the
    /// caller has seen it is not): [`Interner::id`] without that look.
    pub(crate) fn id_not_element(&mut self, name: &'a str) -> Option<NameId> {
        match short_key(name.as_bytes()) {
            Some(k) => self.hashed(name, k),
            None => self.long_id(name),
        }
    }

    /// True when the body has a range with reserved ids.
    #[inline(always)]
    pub(crate) fn has_ranges(&self) -> bool {
        self.nranges != 0
    }

    /// The range with reserved ids of prefix word `p` (the bytes before
    /// the first digit of a register), if there is one.
    #[inline(always)]
    pub(crate) fn range_of(&self, p: u64) -> Option<Range> {
        let r = self.ranges[range_slot(p)];
        (r.key == p && p != 0).then_some(r)
    }

    /// Reserved id `id`, read as `name` (named in the table if not yet).
    #[inline(always)]
    pub(crate) fn reserved(&mut self, id: u32, name: &'a str) -> NameId {
        if let Some(slot) = self.names.get_mut(id as usize) {
            if slot.is_empty() {
                *slot = name;
            }
        }
        NameId(id)
    }

    /// The id of a name of at most 8 bytes (word `k`) that is no range
    /// element with a reserved id: hashed as one word.
    #[inline(always)]
    fn hashed(&mut self, name: &'a str, k: u64) -> Option<NameId> {
        let next = self.names.len() as u32;
        match self.short[shard(k)].entry(k) {
            Entry::Occupied(e) => Some(NameId(*e.get())),
            Entry::Vacant(e) if self.names.len() < self.limit => {
                e.insert(next);
                self.names.push(name);
                if let Some((p, _)) = split_word(k, name.len()) {
                    self.hashed_prefixes |= prefix_bit(p);
                }
                Some(NameId(next))
            }
            Entry::Vacant(_) => None,
        }
    }

    /// [`Interner::id`] of a name of more than 8 bytes.
    #[inline(never)]
    fn long_id(&mut self, name: &'a str) -> Option<NameId> {
        let next = self.names.len() as u32;
        match self.long.entry(name) {
            Entry::Occupied(e) => Some(NameId(*e.get())),
            Entry::Vacant(e) if self.names.len() < self.limit => {
                e.insert(next);
                self.names.push(name);
                Some(NameId(next))
            }
            Entry::Vacant(_) => None,
        }
    }

    /// Reserves the ids of the elements `prefix0 … prefix{count-1}` of a
    /// register range the body scope declares (of its last
    /// [`MAX_RESERVED_RANGE`] when it has more), and returns the id of the
    /// first of them, its index in the range and how many; later
    /// reads of those names get them without hashing. `None` (nothing
    /// reserved: the names get ids as they are read) when the prefix is
    /// empty, longer than 7 bytes or holds a digit, when an element's name
    /// would be longer than 8 bytes, when a name of the form
    /// prefix + digits was already hashed in this body (it keeps its id),
    /// when the prefix has a range already or [`MAX_RANGES`] are taken, when
    /// `count` is past [`crate::read::limits::MAX_PTX_REGISTERS`] (the
    /// lowering refuses the function), or when the ids would pass the
    /// module's budget or the names limit.
    /// O(1) but for the `count` slots of the table it adds.
    pub(crate) fn register_range(&mut self, prefix: &str, count: u32) -> Option<(NameId, u32, u32)> {
        let b = prefix.as_bytes();
        if b.is_empty()
            || b.len() > 7
            || b.iter().any(|c| c.is_ascii_digit() || *c == 0)
            || count == 0
            || count as usize > crate::read::limits::MAX_PTX_REGISTERS
        {
            return None;
        }
        // Every element's name fits one word (the fast path reads no
        // longer name, so `prefix` + digits of more bytes would be hashed).
        let digits = (count - 1).checked_ilog10().map_or(1, |d| d as usize + 1);
        if b.len() + digits > 8 {
            return None;
        }
        // At most the last `MAX_RESERVED_RANGE` elements.
        let from = count.saturating_sub(MAX_RESERVED_RANGE);
        let reserved = count - from;
        let p = short_key(b)?;
        let n = reserved as usize;
        let len = self.names.len();
        let slot = range_slot(p);
        if self.hashed_prefixes & prefix_bit(p) != 0
            || self.nranges >= MAX_RANGES
            || self.ranges[slot].key != 0
            || n > self.reserve_budget
            || n > self.limit.saturating_sub(len)
        {
            return None;
        }
        let base = u32::try_from(len).ok()?;
        self.names.resize(len + n, "");
        self.ranges[slot] = Range { key: p, base, from, count: reserved, digits: digits as u8 };
        self.nranges += 1;
        self.reserve_budget -= n;
        Some((NameId(base), from, reserved))
    }

    /// Room for the names of a body of `bytes` bytes of text: compilers
    /// write a new name every 40 to 550 bytes (CuTe DSL 40, Triton 62, nvcc
    /// 159, FlashAttention-3 555); room for one per 128 bytes (at most 65,536)
    /// saves most rehashing as the map grows without reserving much more
    /// than nvcc's and FlashAttention's bodies use (the map's peak while the
    /// module is read stays in the process's resident memory).
    pub(crate) fn reserve_for_body_bytes(&mut self, bytes: usize) {
        let n = (bytes / 128).min(1 << 16) / SHARDS;
        self.short.iter_mut().for_each(|m| m.reserve(n));
        // The table by id: room for one name per 32 bytes, so CuTe DSL's
        // bodies do not grow it by copying (what is not used is not touched,
        // and goes at `take`).
        self.names.reserve((bytes / 32).min(1 << 16));
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
        self.short.iter_mut().for_each(|m| m.clear());
        self.long.clear();
        self.ranges = [Range::default(); RANGE_SLOTS];
        self.nranges = 0;
        self.hashed_prefixes = 0;
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
        assert_eq!((n.short.iter().map(|m| m.len()).sum::<usize>(), n.long.len()), (1, 0), "the table was emptied");
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
        assert_eq!((n.names.len(), n.short.iter().map(|m| m.len()).sum::<usize>(), n.long.len()), (3, 2, 1));
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
        assert!(n.short.iter().all(|m| m.is_empty()) && n.long.is_empty());
        // Spread over the maps (none holds more than twice its share).
        assert!(n.short.iter().all(|m| m.capacity() <= 2 * 5000 / SHARDS * 2));
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

    /// What `split_word` answers, byte by byte.
    fn split_slow(name: &str) -> Option<(u64, u32)> {
        let b = name.as_bytes();
        let first = b.iter().position(u8::is_ascii_digit)?;
        let digits = &b[first..];
        if first == 0 || b.len() > 8 || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        if digits.len() > 1 && digits[0] == b'0' {
            return None;
        }
        Some((short_key(&b[..first])?, name[first..].parse().ok()?))
    }

    /// The word arithmetic agrees with reading the bytes one by one: every
    /// number of up to 6 digits after `%r`, and names with letters, digits,
    /// leading zeros and odd bytes in every place.
    #[test]
    fn split_word_reads_prefix_and_digits() {
        let check = |name: &str| match short_key(name.as_bytes()) {
            Some(k) => assert_eq!(split_word(k, name.len()), split_slow(name), "{name:?}"),
            None => assert!(name.len() > 8),
        };
        for v in 0..1_000_000u32 {
            check(&format!("%r{v}"));
        }
        assert_eq!(split_word(short_key(b"%r123456").unwrap(), 8), Some((short_key(b"%r").unwrap(), 123_456)));
        assert_eq!(split_word(short_key(b"a1234567").unwrap(), 8), Some((short_key(b"a").unwrap(), 1_234_567)));
        for name in [
            "%r",
            "%r0",
            "%r00",
            "%r01",
            "%r10",
            "%rd0",
            "%rd9",
            "%fd12",
            "%r1x",
            "%r1.x",
            "%r1_2",
            "%tid.x",
            "1",
            "12",
            "%",
            "a",
            "a0",
            "p",
            "%p1",
            "%p9999",
            "a1b2",
            "%r\u{7f}1",
            "%r:1",
            "%r/1",
            "\u{e9}1",
            "%r1234567",
            "%rs9999",
            "$L__BB0",
            "$L0",
        ] {
            check(name);
        }
        // Bytes next to the digits in ASCII, and every high byte, before and
        // after a digit.
        for c in (1u8..=255).filter(|c| !c.is_ascii_digit()) {
            for w in [[b'%', c, b'1', b'2'], [b'%', b'1', c, b'2'], [b'%', b'1', b'2', c]] {
                let k = short_key(&w).unwrap();
                let slow = (|| {
                    let first = w.iter().position(u8::is_ascii_digit)?;
                    let d = &w[first..];
                    (first > 0 && d.iter().all(u8::is_ascii_digit)).then(|| {
                        (short_key(&w[..first]).unwrap(), u32::from(d[0] - b'0') * 10 + u32::from(d[1] - b'0'))
                    })
                })();
                assert_eq!(split_word(k, 4), slow, "{w:?}");
            }
        }
    }

    fn interner<'a>(bytes: usize) -> Interner<'a> {
        let mut n = Interner::for_text(bytes);
        n.reserve_for_body_bytes(bytes);
        n
    }

    /// A range reserves the ids of its elements: a read of one gets its id
    /// (and names it in the table), anything else gets an id of its own.
    #[test]
    fn a_range_reserves_the_ids_of_its_elements() {
        let mut n = interner(10_000);
        assert_eq!(n.id("%r"), Some(NameId(0)));
        assert_eq!(n.register_range("%r", 10), Some((NameId(1), 0, 10)));
        assert_eq!(n.id("sym"), Some(NameId(11)));
        assert_eq!(n.register_range("%rd", 3), Some((NameId(12), 0, 3)));
        let words =
            ["%r5", "%r0", "%r9", "%r10", "%r05", "%rd2", "%rd3", "%r5", "%rd2", "%r1234567", "%r12345678", "%r9"];
        let ids: Vec<u32> = words.iter().map(|w| n.id(w).unwrap().0).collect();
        assert_eq!(ids, [6, 1, 10, 15, 16, 14, 17, 6, 14, 18, 19, 10]);
        let table = n.take();
        assert_eq!(table.len(), 20);
        assert_eq!(&table[..12], ["%r", "%r0", "", "", "", "", "%r5", "", "", "", "%r9", "sym"]);
        assert_eq!(&table[12..], ["", "", "%rd2", "%r10", "%r05", "%rd3", "%r1234567", "%r12345678"]);
        // The next body starts afresh: no range.
        assert_eq!(n.id("%r5"), Some(NameId(0)));
        assert_eq!(n.register_range("%r", 10), None, "a name of the form was read first");
    }

    /// Same name, same id: a range is refused when a name of its form was
    /// already hashed (a read before the declaration), or when its prefix
    /// has a range already; its names then keep hashing to one id each.
    #[test]
    fn a_name_read_before_its_range_keeps_its_id() {
        let mut n = interner(10_000);
        assert_eq!(n.id("%r7"), Some(NameId(0)));
        assert_eq!(n.register_range("%r", 100), None);
        assert_eq!(n.register_range("%p", 4), Some((NameId(1), 0, 4)));
        assert_eq!(n.register_range("%p", 8), None, "declared twice");
        assert_eq!(
            ["%r7", "%r8", "%r7", "%p3", "%p4", "%p3", "%r8"].map(|w| n.id(w).unwrap().0),
            [0, 5, 0, 4, 6, 4, 5]
        );
        // A name longer than 8 bytes never takes the fast path, and a
        // prefix longer than 7 bytes, with a digit, or empty is refused.
        assert_eq!(n.register_range("%abcdefg", 9), None);
        assert_eq!(n.register_range("%r1x", 9), None);
        assert_eq!(n.register_range("", 9), None);
        assert_eq!(n.register_range("%q", 0), None);
        // Every element of a range fits 8 bytes, or it reserves nothing.
        assert_eq!(n.register_range("%abcd", 1001), None);
        assert_eq!(n.register_range("%abcd", 1000), Some((NameId(7), 0, 1000)));
        assert_eq!(n.id("%abcd999"), Some(NameId(1006)));
        assert_eq!(n.id("%abcd1000"), Some(NameId(1007)), "past the range: hashed");
        assert_eq!(n.register_range("%abcdef", 10), Some((NameId(1008), 0, 10)));
        assert_eq!(n.id("%abcdef9"), Some(NameId(1017)));
    }

    /// At most `MAX_RANGES` ranges, all the module's within its budget,
    /// each within the names limit: a huge range in a short module reserves
    /// nothing.
    #[test]
    fn ranges_stay_within_their_limits() {
        let mut n = interner(1000);
        let over = crate::read::limits::MAX_PTX_REGISTERS as u32 + 1;
        assert_eq!(n.register_range("%r", over), None, "past the registers limit");
        assert_eq!(n.names.len(), 0, "nothing reserved");
        // The budget: 1000 / 8 + 4096 ids.
        let from = 1_000_000 - MAX_RESERVED_RANGE;
        assert_eq!(n.register_range("%rd", 4_000_000), None, "an element of 10 bytes");
        assert_eq!(n.register_range("%r", 1_000_000), Some((NameId(0), from, MAX_RESERVED_RANGE)));
        assert_eq!(n.names.len(), MAX_RESERVED_RANGE as usize);
        assert_eq!(n.register_range("%rd", 126), None, "past the budget");
        assert_eq!(n.register_range("%rd", 125), Some((NameId(MAX_RESERVED_RANGE), 0, 125)));
        n.take();
        assert_eq!(n.register_range("%p", 1), None, "the budget is the module's");
        let mut n = interner(1 << 20);
        // A larger range reserves its first elements' ids.
        // A larger range reserves its last elements' ids (nvcc writes the
        // top of an oversized range: ThunderKittens' `%f<110593>` uses 106497
        // to 110592).
        let from = 110_593 - MAX_RESERVED_RANGE;
        assert_eq!(n.register_range("%f", 110_593), Some((NameId(0), from, MAX_RESERVED_RANGE)));
        let (first, last, below) = (format!("%f{from}"), "%f110592".to_string(), format!("%f{}", from - 1));
        assert_eq!(n.id(&first), Some(NameId(0)));
        assert_eq!(n.id(&last), Some(NameId(MAX_RESERVED_RANGE - 1)));
        assert_eq!(n.id(&below), Some(NameId(MAX_RESERVED_RANGE)), "hashed after the reserved ids");
        let mut n = Interner { limit: 10, ..interner(10_000) };
        assert_eq!(n.register_range("%r", 11), None);
        assert_eq!(n.register_range("%r", 10), Some((NameId(0), 0, 10)));
        assert_eq!(n.id("%r9"), Some(NameId(9)));
        assert_eq!(n.id("%rd1"), None, "the limit counts reserved ids");
        let prefixes = ["%a", "%b", "%c", "%d", "%e", "%f", "%g", "%h", "%i", "%j", "%k", "%l", "%m", "%n"];
        let twos: Vec<String> = prefixes.iter().map(|p| format!("{p}2")).collect();
        let mut n = interner(100_000);
        let got: Vec<(usize, u32)> =
            prefixes.iter().enumerate().filter_map(|(i, p)| Some((i, n.register_range(p, 3)?.0 .0))).collect();
        assert_eq!(got.len(), MAX_RANGES, "{got:?}");
        for (k, &(i, base)) in got.iter().enumerate() {
            assert_eq!(base, 3 * k as u32);
            assert_eq!(n.id(&twos[i]), Some(NameId(base + 2)));
        }
        // A refused prefix's names are hashed, after the reserved ids.
        let (refused, _) = prefixes.iter().enumerate().find(|(i, _)| got.iter().all(|g| g.0 != *i)).unwrap();
        assert_eq!(n.id(&twos[refused]), Some(NameId(3 * MAX_RANGES as u32)));
    }
}

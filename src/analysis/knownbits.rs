//! Known bits: for every bit of an integer of width 1..=64, known 0, known 1 or
//! unknown — two masks, as LLVM's `KnownBits`.
//!
//! A value is *admitted* when it has a 0 wherever `zero` has a 1 and a 1 wherever
//! `one` has a 1 ([`KnownBits::admits`]). Both masks are kept within the width
//! ([`KnownBits::normalize`]): bits at and above the width are neither known nor
//! meaningful, so an `i32` with its low 6 bits known reads `12 mod 64` whatever
//! register it later travels in, and a zero extension marks the new high bits
//! known zero explicitly.
//!
//! Every transfer function is sound: for any inputs admitted by the abstract
//! operands, the concrete result is admitted by the abstract result (the unit
//! tests check this exhaustively on 4- and 5-bit values and on random 64-bit
//! ones). The PTX forms (`bfe`, `bfi`, packed-vector `mov`, `prmt`) are here as
//! pure functions for the PTX front end; integer `cvt` is [`KnownBits::zext`],
//! [`KnownBits::sext`] or [`KnownBits::trunc`].

use super::lattice::mask;

/// Per-bit knowledge of an integer value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct KnownBits {
    /// Bits known to be 0.
    pub zero: u64,
    /// Bits known to be 1.
    pub one: u64,
}

/// 2-adic valuation with `v(0) = ∞` (represented as 128).
pub(crate) fn val2(x: u64) -> u32 {
    if x == 0 {
        128
    } else {
        x.trailing_zeros()
    }
}

impl KnownBits {
    /// Nothing known.
    pub const UNKNOWN: KnownBits = KnownBits { zero: 0, one: 0 };

    /// A constant of width `bits`.
    pub fn constant(x: u64, bits: u32) -> KnownBits {
        let m = mask(bits);
        KnownBits { zero: !x & m, one: x & m }
    }

    /// The low `k` bits known to be `rem` (`rem mod 2^k`), the rest unknown.
    pub fn low(rem: u64, k: u32, bits: u32) -> KnownBits {
        KnownBits::constant(rem, k.min(bits))
    }

    /// The masks restricted to the width.
    #[must_use]
    pub fn normalize(self, bits: u32) -> KnownBits {
        let m = mask(bits);
        KnownBits { zero: self.zero & m, one: self.one & m }
    }

    /// Bits whose value is known.
    pub fn known(self) -> u64 {
        self.zero | self.one
    }

    /// Bits of the width whose value is unknown.
    pub fn unknown(self, bits: u32) -> u64 {
        !self.known() & mask(bits)
    }

    /// True when a bit is claimed both 0 and 1 (no value is admitted).
    pub fn has_conflict(self) -> bool {
        self.zero & self.one != 0
    }

    /// True when every bit of the width is known.
    pub fn is_constant(self, bits: u32) -> bool {
        self.unknown(bits) == 0
    }

    /// The value, when every bit of the width is known.
    pub fn as_const(self, bits: u32) -> Option<u64> {
        self.is_constant(bits).then_some(self.one & mask(bits))
    }

    /// Does this admit the concrete value `x` (of the same width)?
    pub fn admits(self, x: u64) -> bool {
        x & self.zero == 0 && x & self.one == self.one
    }

    /// The smallest admitted unsigned value.
    pub fn umin(self) -> u64 {
        self.one
    }

    /// The largest admitted unsigned value.
    pub fn umax(self, bits: u32) -> u64 {
        !self.zero & mask(bits)
    }

    /// Least upper bound: the bits known alike in both.
    #[must_use]
    pub fn join(self, o: KnownBits) -> KnownBits {
        KnownBits { zero: self.zero & o.zero, one: self.one & o.one }
    }

    /// Greatest lower bound: what both say together (two sound descriptions of
    /// the same value combine into a sound one; a conflict means no value).
    #[must_use]
    pub fn meet(self, o: KnownBits) -> KnownBits {
        KnownBits { zero: self.zero | o.zero, one: self.one | o.one }
    }

    /// The run of known low bits as a congruence `(rem, k)`: every admitted
    /// value is `rem mod 2^k`.
    pub fn low_congruence(self, bits: u32) -> (u64, u32) {
        let k = (!self.known()).trailing_zeros().min(bits);
        (self.one & mask(k), k)
    }

    /// The number of trailing bits known to be 0 (at most `bits`).
    pub fn min_trailing_zeros(self, bits: u32) -> u32 {
        (!self.zero).trailing_zeros().min(bits)
    }

    /// The largest power of two dividing every admitted value (`2^bits` caps it:
    /// for the value 0 of an `i32` this is `2^32`, saturated to `u64::MAX`
    /// for 64-bit zero).
    pub fn alignment(self, bits: u32) -> u64 {
        1u64.checked_shl(self.min_trailing_zeros(bits)).unwrap_or(u64::MAX)
    }

    /// The field of `len` bits at bit `lo`, shifted down (a value of width `len`).
    /// Bits past the width read as the caller's `bits` say: pass a normalized value.
    pub fn field(self, lo: u32, len: u32) -> KnownBits {
        if lo >= 64 {
            return KnownBits::constant(0, len);
        }
        KnownBits { zero: self.zero >> lo, one: self.one >> lo }.normalize(len)
    }

    /// The field's value when every one of its bits is known (`bits 46-48 = 1`).
    pub fn known_field(self, lo: u32, len: u32) -> Option<u64> {
        self.field(lo, len).as_const(len)
    }

    /// Every admitted value, when at most `2^max_unknown` of them (ascending;
    /// `max_unknown` is capped at 20).
    pub fn enumerate(self, bits: u32, max_unknown: u32) -> Option<Vec<u64>> {
        self.members(bits, max_unknown).map(Iterator::collect)
    }

    /// [`KnownBits::enumerate`]'s values, one by one.
    pub fn members(self, bits: u32, max_unknown: u32) -> Option<impl Iterator<Item = u64>> {
        let unk = self.unknown(bits);
        if unk.count_ones() > max_unknown.min(20) {
            return None;
        }
        let one = self.one;
        // The subsets of the unknown bits in ascending order (the empty one first).
        let mut sub = Some(0u64);
        Some(std::iter::from_fn(move || {
            let s = sub?;
            let next = s.wrapping_sub(unk) & unk;
            sub = (next != 0).then_some(next);
            Some(one | s)
        }))
    }

    // ---- bitwise -----------------------------------------------------------

    /// `!a`.
    #[must_use]
    pub fn not(self, bits: u32) -> KnownBits {
        KnownBits { zero: self.one, one: self.zero }.normalize(bits)
    }

    /// `a & b`.
    #[must_use]
    pub fn and(self, o: KnownBits) -> KnownBits {
        KnownBits { zero: self.zero | o.zero, one: self.one & o.one }
    }

    /// `a | b`.
    #[must_use]
    pub fn or(self, o: KnownBits) -> KnownBits {
        KnownBits { zero: self.zero & o.zero, one: self.one | o.one }
    }

    /// `a ^ b`.
    #[must_use]
    pub fn xor(self, o: KnownBits) -> KnownBits {
        KnownBits { zero: (self.zero & o.zero) | (self.one & o.one), one: (self.zero & o.one) | (self.one & o.zero) }
    }

    // ---- arithmetic --------------------------------------------------------

    /// `a + b + carry` with the carry-in known 0 (`carry_zero`), known 1
    /// (`carry_one`) or unknown — LLVM's `KnownBits::computeForAddCarry`.
    fn add_carry(self, o: KnownBits, carry_zero: bool, carry_one: bool, bits: u32) -> KnownBits {
        let m = mask(bits);
        let possible_sum_zero = self.umax(bits).wrapping_add(o.umax(bits)).wrapping_add(u64::from(!carry_zero));
        let possible_sum_one = self.one.wrapping_add(o.one).wrapping_add(u64::from(carry_one));
        let carry_known_zero = !(possible_sum_zero ^ self.zero ^ o.zero);
        let carry_known_one = possible_sum_one ^ self.one ^ o.one;
        let known = self.known() & o.known() & (carry_known_zero | carry_known_one);
        KnownBits { zero: !possible_sum_zero & known & m, one: possible_sum_one & known & m }
    }

    /// `a + b` (wrapping), carry-aware.
    #[must_use]
    pub fn add(self, o: KnownBits, bits: u32) -> KnownBits {
        self.add_carry(o, true, false, bits)
    }

    /// `a - b` (wrapping), as `a + !b + 1`.
    #[must_use]
    pub fn sub(self, o: KnownBits, bits: u32) -> KnownBits {
        self.add_carry(o.not(bits), false, true, bits)
    }

    /// `a * b` (wrapping): the low bits from the known low bits of both (with
    /// their 2-adic valuations, so trailing zeros add up), the high bits from
    /// the largest possible product; a power-of-two constant is a shift.
    #[must_use]
    pub fn mul(self, o: KnownBits, bits: u32) -> KnownBits {
        if let (Some(x), Some(y)) = (self.as_const(bits), o.as_const(bits)) {
            return KnownBits::constant(x.wrapping_mul(y), bits);
        }
        for (c, other) in [(self, o), (o, self)] {
            if let Some(x) = c.as_const(bits) {
                if x.is_power_of_two() {
                    return other.shl(x.trailing_zeros(), bits);
                }
            }
        }
        // (r1 + m1·2^k1)(r2 + m2·2^k2) = r1·r2 + r1·m2·2^k2 + r2·m1·2^k1 + m1·m2·2^(k1+k2)
        let ((r1, k1), (r2, k2)) = (self.low_congruence(bits), o.low_congruence(bits));
        let k = (k2 + val2(r1)).min(k1 + val2(r2)).min(k1 + k2).min(bits);
        let mut out = KnownBits::low(r1.wrapping_mul(r2), k, bits);
        // No wrap when the largest product fits: the high bits above it are 0.
        let max = u128::from(self.umax(bits)) * u128::from(o.umax(bits));
        if max <= u128::from(mask(bits)) {
            let len = 128 - max.leading_zeros();
            out.zero |= mask(bits) & !mask(len);
        }
        out
    }

    // ---- shifts by a constant ----------------------------------------------

    /// `a << s` (`s < bits`).
    #[must_use]
    pub fn shl(self, s: u32, bits: u32) -> KnownBits {
        if s >= 64 {
            return KnownBits::constant(0, bits);
        }
        KnownBits { zero: (self.zero << s) | mask(s), one: self.one << s }.normalize(bits)
    }

    /// `a >> s`, logical (`s < bits`).
    #[must_use]
    pub fn lshr(self, s: u32, bits: u32) -> KnownBits {
        if s >= 64 {
            return KnownBits::constant(0, bits);
        }
        let m = mask(bits);
        let a = self.normalize(bits);
        KnownBits { zero: (a.zero >> s) | (m & !(m >> s)), one: a.one >> s }
    }

    /// `a >> s`, arithmetic (`s < bits`).
    #[must_use]
    pub fn ashr(self, s: u32, bits: u32) -> KnownBits {
        let w = self.sext(bits, 64);
        let s = s.min(63);
        KnownBits { zero: ((w.zero as i64) >> s) as u64, one: ((w.one as i64) >> s) as u64 }.normalize(bits)
    }

    // ---- casts (and PTX integer `cvt`) -------------------------------------

    /// Zero extension from `from` bits to `to` bits.
    #[must_use]
    pub fn zext(self, from: u32, to: u32) -> KnownBits {
        let a = self.normalize(from);
        KnownBits { zero: a.zero | (mask(to) & !mask(from)), one: a.one }
    }

    /// Sign extension from `from` bits to `to` bits.
    #[must_use]
    pub fn sext(self, from: u32, to: u32) -> KnownBits {
        let (from, to) = (from.min(64), to.min(64));
        let a = self.normalize(from);
        if from == 0 || from >= to {
            return a.normalize(to);
        }
        let high = mask(to) & !mask(from);
        let sign = 1u64 << (from - 1);
        KnownBits {
            zero: a.zero | if a.zero & sign != 0 { high } else { 0 },
            one: a.one | if a.one & sign != 0 { high } else { 0 },
        }
    }

    /// Truncation to `to` bits.
    #[must_use]
    pub fn trunc(self, to: u32) -> KnownBits {
        self.normalize(to)
    }

    // ---- PTX bit-field forms -------------------------------------------------

    /// PTX `bfe.u32`/`.u64` (`signed == false`) and `bfe.s32`/`.s64`: the field
    /// of `len` bits at `pos` of a `bits`-wide value, zero- or sign-extended.
    /// `pos` and `len` are taken mod 256 as PTX does; bits of the field past the
    /// msb read as 0 (unsigned) or as the msb (signed), and `len == 0` gives 0.
    #[must_use]
    pub fn bfe(self, pos: u32, len: u32, signed: bool, bits: u32) -> KnownBits {
        let bits = bits.clamp(1, 64);
        let (pos, len) = (pos & 0xFF, len & 0xFF);
        let a = self.normalize(bits);
        if len == 0 {
            return KnownBits::constant(0, bits);
        }
        let (p, l) = if pos >= bits { (bits - 1, 1) } else { (pos, len.min(bits - pos)) };
        if !signed {
            if pos >= bits {
                return KnownBits::constant(0, bits);
            }
            return a.field(p, l).zext(l, bits);
        }
        a.field(p, l).sext(l, bits)
    }

    /// PTX `bfi.b32`/`.b64`: `base` with the low `len` bits of `insert` placed at
    /// `pos` (`pos`, `len` mod 256; bits past the msb are dropped).
    #[must_use]
    pub fn bfi(insert: KnownBits, base: KnownBits, pos: u32, len: u32, bits: u32) -> KnownBits {
        let bits = bits.clamp(1, 64);
        let (pos, len) = (pos & 0xFF, len & 0xFF);
        if pos >= bits {
            return base.normalize(bits);
        }
        let m = mask(len.min(bits - pos)) << pos;
        KnownBits {
            zero: (base.zero & !m) | ((insert.zero << pos) & m),
            one: (base.one & !m) | ((insert.one << pos) & m),
        }
        .normalize(bits)
    }

    /// Packing two values into one, as PTX `mov.b64 %rd, {%lo, %hi}` (and
    /// `mov.b32 {lo, hi}` for 16-bit halves): `lo | hi << lo_bits`, of width
    /// `lo_bits + hi_bits`. Unpacking is [`KnownBits::field`].
    #[must_use]
    pub fn concat(lo: KnownBits, hi: KnownBits, lo_bits: u32, hi_bits: u32) -> KnownBits {
        let (lo, hi) = (lo.normalize(lo_bits), hi.normalize(hi_bits));
        if lo_bits >= 64 {
            return lo;
        }
        KnownBits { zero: lo.zero | (hi.zero << lo_bits), one: lo.one | (hi.one << lo_bits) }
            .normalize(lo_bits + hi_bits)
    }

    /// PTX `prmt.b32` in the default mode: result byte `n` is byte
    /// `selector[4n+2:4n]` of `{b, a}` (`a` bytes 0–3, `b` bytes 4–7), or that
    /// byte's msb replicated when `selector[4n+3]` is set. The other modes
    /// (`.f4e`, `.b4e`, `.rc8`, `.ecl`, `.ecr`, `.rc16`) are not modelled.
    #[must_use]
    pub fn prmt(a: KnownBits, b: KnownBits, selector: u32) -> KnownBits {
        KnownBits::prmt_known(a, b, KnownBits::constant(u64::from(selector), 32))
    }

    /// [`KnownBits::prmt`] with a selector known in part (or not at all):
    /// each result byte is the join of the bytes its selector nibble admits
    /// (at most 16), so what every candidate byte shares stays known.
    #[must_use]
    pub fn prmt_known(a: KnownBits, b: KnownBits, selector: KnownBits) -> KnownBits {
        let (a, b) = (a.normalize(32), b.normalize(32));
        let zero = a.zero | (b.zero << 32);
        let one = a.one | (b.one << 32);
        let byte = |sel: u64| -> (u64, u64) {
            let src = (sel & 7) * 8;
            let (z, o) = ((zero >> src) & 0xFF, (one >> src) & 0xFF);
            if sel & 8 == 0 {
                (z, o)
            } else {
                (if z & 0x80 != 0 { 0xFF } else { 0 }, if o & 0x80 != 0 { 0xFF } else { 0 })
            }
        };
        let mut out = KnownBits::UNKNOWN;
        for n in 0..4 {
            let nibble = selector.field(4 * n, 4);
            let mut acc: Option<(u64, u64)> = None;
            for s in nibble.enumerate(4, 4).unwrap_or_default() {
                let (z, o) = byte(s);
                acc = Some(acc.map_or((z, o), |(az, ao)| (az & z, ao & o)));
            }
            if let Some((z, o)) = acc {
                out.zero |= z << (8 * n);
                out.one |= o << (8 * n);
            }
        }
        out
    }
}

/// Known bits of a non-empty set of constants: the bits they all share.
pub fn of_constants(values: &[u64], bits: u32) -> KnownBits {
    let Some(&first) = values.first() else {
        return KnownBits::UNKNOWN;
    };
    let mut differ = 0u64;
    for &x in values {
        differ |= x ^ first;
    }
    let known = !differ & mask(bits);
    KnownBits { zero: !first & known, one: first & known }
}

#[cfg(test)]
#[path = "knownbits_tests.rs"]
mod tests;

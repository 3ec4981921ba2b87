//! The integer value lattice: ⊥ → a sorted set of ≤ 8 constants → known bits
//! (per bit: known 0, known 1 or unknown; [`KnownBits`]) → ⊤.
//!
//! Known bits subsume the congruence `rem mod 2^k` of earlier versions (it is
//! "the low `k` bits known", [`AbsValue::to_congruence`]) and also keep high
//! fields: `zext(x >> 4) | 0x4000404000000000` knows every bit above 13. A set
//! of constants stays exact; when it passes 8 members it widens to the bits its
//! members share, not to ⊤.
//!
//! Every operation takes the bit width of the values it combines; constants are
//! kept masked to that width, known bits are kept within it, a [`KnownBits`]
//! value never has every bit of the width known (that is a one-member set) nor
//! none (that is ⊤). [`AbsValue::normalize`] restores these invariants after
//! each operation.
//!
//! Transfer functions are exact on small sets (every pair is evaluated), join
//! the results member by member when one operand is a set, and otherwise apply
//! the known-bits transfer function of [`super::knownbits`].
//!
//! # For the PTX front end
//!
//! No IR operation maps to the PTX bit-field forms yet; a PTX lowering calls
//! these functions directly (`bits` is the instruction type's width):
//!
//! | PTX | lattice |
//! |---|---|
//! | `add`, `sub`, `mul.lo`, `mad.lo` | [`add`], [`sub`], [`mul`] (`mad.lo` = `add(mul(a, b), c)`) |
//! | `mul.wide.u32` / `.s32` | [`mul`] at 64 bits of [`zext`] / [`sext_value`] operands |
//! | `and`, `or`, `xor`, `not` | [`bitwise`], [`not`] |
//! | `shl`, `shr.u`, `shr.s` | [`shl`], [`shr`]; an amount that may be ≥ the width gives ⊤ here (LLVM poison), PTX clamps it: lower a known large amount as 0 / the sign |
//! | `cvt.u64.u32`, `cvt.s64.s32`, `cvt.u32.u64` | [`zext`], [`sext_value`], [`trunc`] |
//! | `bfe.u32` / `.s32` / `.u64` / `.s64` | [`bfe`] |
//! | `bfi.b32` / `.b64` | [`bfi`] |
//! | `mov.b64 %rd, {%lo, %hi}` | [`concat()`]`(lo, hi, 32, 32)`; unpacking `mov.b64 {%lo, %hi}, %rd` is [`AbsValue::field`] |
//! | `prmt.b32` (default mode) | [`prmt`] |
//! | `setp` on integers | [`icmp`] with the LLVM predicate numbers |
//!
//! `mul.hi`, `popc`, `clz`, `brev` and the other `prmt` modes are not modelled
//! (⊤). Descriptor rules read fields with [`AbsValue::known_field`] (all bits
//! known), [`AbsValue::field`] + [`AbsValue::admitted`] (partially known:
//! fire only when every admitted value is invalid) and [`AbsValue::alignment`]
//! for addresses.

use super::knownbits::of_constants;
pub use super::knownbits::KnownBits;
use crate::read::limits::MAX_CONST_SET;

/// An abstract integer value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AbsValue {
    /// No value (unreachable, not computed yet, or `undef`).
    Bottom,
    /// One of these constants (sorted, deduplicated, at most 8, masked to the width).
    Set(Vec<u64>),
    /// Some bits known (within the width; at least one known, at least one not).
    Known(KnownBits),
    /// Unknown.
    Top,
}

/// All-ones mask of a width (1..=64).
pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Sign-extends the low `bits` of `x` to 64 bits.
pub fn sext(x: u64, bits: u32) -> i64 {
    if bits >= 64 || bits == 0 {
        x as i64
    } else {
        let shift = 64 - bits;
        ((x << shift) as i64) >> shift
    }
}

impl AbsValue {
    /// A single constant.
    pub fn constant(x: u64, bits: u32) -> AbsValue {
        AbsValue::Set(vec![x & mask(bits)])
    }

    /// `rem mod 2^k` (the low `k` bits known), normalized.
    pub fn congruence(rem: u64, k: u32, bits: u32) -> AbsValue {
        AbsValue::from_known(KnownBits::low(rem, k, bits), bits)
    }

    /// A set of constants, normalized (widened to known bits when larger than 8).
    pub fn set(values: impl IntoIterator<Item = u64>, bits: u32) -> AbsValue {
        AbsValue::Set(values.into_iter().collect()).normalize(bits)
    }

    /// Known bits as a lattice value: a constant when all are known, ⊤ when none
    /// are, ⊥ when they conflict.
    pub fn from_known(kb: KnownBits, bits: u32) -> AbsValue {
        let bits = bits.clamp(1, 64);
        let kb = kb.normalize(bits);
        if kb.has_conflict() {
            AbsValue::Bottom
        } else if let Some(x) = kb.as_const(bits) {
            AbsValue::Set(vec![x])
        } else if kb.known() == 0 {
            AbsValue::Top
        } else {
            AbsValue::Known(kb)
        }
    }

    /// Restores the invariants: masked, sorted, deduplicated sets of ≤ 8 members
    /// (a larger set becomes the bits its members share); known bits within the
    /// width, some known and some not.
    pub fn normalize(self, bits: u32) -> AbsValue {
        let bits = bits.clamp(1, 64);
        match self {
            AbsValue::Set(mut v) => {
                if v.is_empty() {
                    return AbsValue::Bottom;
                }
                for x in v.iter_mut() {
                    *x &= mask(bits);
                }
                v.sort_unstable();
                v.dedup();
                if v.len() > MAX_CONST_SET {
                    AbsValue::from_known(of_constants(&v, bits), bits)
                } else {
                    AbsValue::Set(v)
                }
            }
            AbsValue::Known(kb) => AbsValue::from_known(kb, bits),
            other => other,
        }
    }

    /// The single constant, if this is one.
    pub fn as_const(&self) -> Option<u64> {
        match self {
            AbsValue::Set(v) if v.len() == 1 => v.first().copied(),
            _ => None,
        }
    }

    /// True for ⊥.
    pub fn is_bottom(&self) -> bool {
        matches!(self, AbsValue::Bottom)
    }

    /// The congruence `(rem, k)` every admitted value satisfies: the low `k` bits
    /// are known to be `rem` (`k == bits` for a constant; `(0, 0)` for ⊤). `None`
    /// for ⊥.
    pub fn to_congruence(&self, bits: u32) -> Option<(u64, u32)> {
        Some(self.known_bits(bits)?.low_congruence(bits.clamp(1, 64)))
    }

    /// The congruence `(rem, k)` with `k ≥ 1` the run of known low bits of a
    /// known-bits value gives (`None` for sets, ⊤, ⊥ and when bit 0 is unknown).
    /// This is what the alignment rules read; it needs no width, since a
    /// known-bits value always has an unknown bit inside its width.
    pub fn known_low(&self) -> Option<(u64, u32)> {
        match self {
            AbsValue::Known(kb) => {
                let (rem, k) = kb.low_congruence(64);
                (k > 0 && k < 64).then_some((rem, k))
            }
            _ => None,
        }
    }

    /// What is known of every bit (`None` for ⊥; nothing known for ⊤; for a set,
    /// the bits its members share).
    pub fn known_bits(&self, bits: u32) -> Option<KnownBits> {
        let bits = bits.clamp(1, 64);
        match self {
            AbsValue::Bottom => None,
            AbsValue::Top => Some(KnownBits::UNKNOWN),
            AbsValue::Known(kb) => Some(kb.normalize(bits)),
            AbsValue::Set(v) => Some(of_constants(v, bits)),
        }
    }

    /// The largest power of two dividing every admitted value (`None` for ⊥;
    /// `2^bits`, saturated to `u64::MAX` at 64 bits, for the constant 0).
    pub fn alignment(&self, bits: u32) -> Option<u64> {
        let bits = bits.clamp(1, 64);
        match self {
            AbsValue::Set(v) => {
                let tz = v.iter().map(|x| (x & mask(bits)).trailing_zeros()).min()?.min(bits);
                Some(1u64.checked_shl(tz).unwrap_or(u64::MAX))
            }
            other => Some(other.known_bits(bits)?.alignment(bits)),
        }
    }

    /// What is known of the field of `len` bits at bit `lo` (shifted down, a
    /// value of width `len`): a descriptor rule reads `field(46, 3)` as "bits
    /// 46–48". For a set this is exact: the set of the members' fields.
    pub fn field(&self, lo: u32, len: u32, bits: u32) -> AbsValue {
        let bits = bits.clamp(1, 64);
        match self {
            AbsValue::Bottom => AbsValue::Bottom,
            AbsValue::Set(v) => AbsValue::set(v.iter().map(|x| x.checked_shr(lo).unwrap_or(0)), len),
            other => {
                let kb = other.known_bits(bits).unwrap_or_default();
                AbsValue::from_known(kb.field(lo, len), len)
            }
        }
    }

    /// The field's value when every admitted value has the same one there.
    pub fn known_field(&self, lo: u32, len: u32, bits: u32) -> Option<u64> {
        self.field(lo, len, bits).as_const()
    }

    /// Every admitted value, ascending, when there are at most `2^max_unknown`
    /// (a set's members; the values of known bits with that many unknown bits,
    /// ⊤ of a narrow width). `None` for ⊥ or too many. A descriptor rule uses
    /// it on a [`AbsValue::field`] to fire only when every admitted value of a
    /// partially known field is invalid.
    pub fn admitted(&self, bits: u32, max_unknown: u32) -> Option<Vec<u64>> {
        let bits = bits.clamp(1, 64);
        match self {
            AbsValue::Bottom => None,
            AbsValue::Set(v) => Some(v.clone()),
            other => other.known_bits(bits)?.enumerate(bits, max_unknown.min(16)),
        }
    }

    /// Does the value admit the concrete `x` (masked to the width)?
    pub fn admits(&self, x: u64, bits: u32) -> bool {
        let x = x & mask(bits);
        match self {
            AbsValue::Bottom => false,
            AbsValue::Top => true,
            AbsValue::Set(v) => v.contains(&x),
            AbsValue::Known(kb) => kb.normalize(bits).admits(x),
        }
    }

    /// Least upper bound.
    pub fn join(&self, other: &AbsValue, bits: u32) -> AbsValue {
        match (self, other) {
            (AbsValue::Bottom, x) | (x, AbsValue::Bottom) => x.clone(),
            (AbsValue::Top, _) | (_, AbsValue::Top) => AbsValue::Top,
            (AbsValue::Set(a), AbsValue::Set(b)) => {
                let mut v = a.clone();
                v.extend_from_slice(b);
                AbsValue::Set(v).normalize(bits)
            }
            (a, b) => {
                let (Some(x), Some(y)) = (a.known_bits(bits), b.known_bits(bits)) else {
                    return AbsValue::Top;
                };
                AbsValue::from_known(x.join(y), bits)
            }
        }
    }

    /// The members, if this is a set of constants.
    pub fn members(&self) -> Option<&[u64]> {
        match self {
            AbsValue::Set(v) => Some(v),
            _ => None,
        }
    }

    /// Displays the value: `12`, `{32, 48}`, `12 mod 64` (only low bits
    /// known), `12 mod 64, bits 32-63 = 0`, `bits 14-63 = 0x4000404000000000`
    /// (runs of known bits above the low ones, in place), `unknown`.
    pub fn describe(&self) -> String {
        match self {
            AbsValue::Bottom => "no value".into(),
            AbsValue::Top => "unknown".into(),
            AbsValue::Set(v) if v.len() == 1 => v[0].to_string(),
            AbsValue::Set(v) => {
                let parts: Vec<String> = v.iter().map(|x| x.to_string()).collect();
                format!("{{{}}}", parts.join(", "))
            }
            AbsValue::Known(kb) => describe_known(*kb),
        }
    }
}

fn describe_known(kb: KnownBits) -> String {
    let (rem, k) = kb.low_congruence(64);
    let mut parts = Vec::new();
    if k > 0 {
        parts.push(format!("{rem} mod {}", 1u128 << k));
    }
    let mut rest = kb.known() & !mask(k);
    while rest != 0 {
        let lo = rest.trailing_zeros();
        let len = (!(rest >> lo)).trailing_zeros();
        let hi = lo + len - 1;
        let run = mask(len) << lo;
        let v = kb.one & run;
        let which = if lo == hi { format!("bit {lo}") } else { format!("bits {lo}-{hi}") };
        if v == 0 {
            parts.push(format!("{which} = 0"));
        } else {
            parts.push(format!("{which} = {v:#x}"));
        }
        rest &= !run;
    }
    parts.join(", ")
}

/// Largest number of pairs a set×set operation enumerates.
const MAX_PAIRS: usize = 64;

/// Applies `f` to every pair of members when both are small sets.
fn pairwise(a: &AbsValue, b: &AbsValue, bits: u32, f: impl Fn(u64, u64) -> Option<u64>) -> Option<AbsValue> {
    let (AbsValue::Set(x), AbsValue::Set(y)) = (a, b) else {
        return None;
    };
    if x.len() * y.len() > MAX_PAIRS {
        return None;
    }
    let mut out = Vec::with_capacity(x.len() * y.len());
    for &p in x {
        for &q in y {
            match f(p, q) {
                Some(r) => out.push(r),
                None => return Some(AbsValue::Top),
            }
        }
    }
    Some(AbsValue::set(out, bits))
}

fn either_bottom(a: &AbsValue, b: &AbsValue) -> bool {
    a.is_bottom() || b.is_bottom()
}

/// Lifts a binary operation: exact on two small sets (`exact`); a join of
/// `kb(member, other)` over the members when one operand is a set; else `kb` on
/// the known bits of both.
fn lift2(
    a: &AbsValue,
    b: &AbsValue,
    bits: u32,
    exact: impl Fn(u64, u64) -> Option<u64>,
    kb: impl Fn(KnownBits, KnownBits) -> KnownBits,
) -> AbsValue {
    if either_bottom(a, b) {
        return AbsValue::Bottom;
    }
    if let Some(v) = pairwise(a, b, bits, exact) {
        return v;
    }
    let (Some(ka), Some(kb_b)) = (a.known_bits(bits), b.known_bits(bits)) else {
        return AbsValue::Bottom;
    };
    let r = match (a, b) {
        (AbsValue::Set(x), _) => join_over(x, |m| kb(KnownBits::constant(m, bits), kb_b)),
        (_, AbsValue::Set(y)) => join_over(y, |m| kb(ka, KnownBits::constant(m, bits))),
        _ => kb(ka, kb_b),
    };
    AbsValue::from_known(r, bits)
}

/// The join of `f(m)` over the members `ms` (non-empty).
fn join_over(ms: &[u64], f: impl Fn(u64) -> KnownBits) -> KnownBits {
    let mut it = ms.iter().map(|m| f(*m));
    let first = it.next().unwrap_or_default();
    it.fold(first, KnownBits::join)
}

/// Lifts a unary operation: member by member on a set (`exact`), else `kb`.
fn lift1(a: &AbsValue, bits: u32, exact: impl Fn(u64) -> u64, kb: impl Fn(KnownBits) -> KnownBits) -> AbsValue {
    match a {
        AbsValue::Bottom => AbsValue::Bottom,
        AbsValue::Set(v) => AbsValue::set(v.iter().map(|x| exact(*x)), bits),
        other => AbsValue::from_known(kb(other.known_bits(bits).unwrap_or_default()), bits),
    }
}

/// `a + b`.
pub fn add(a: &AbsValue, b: &AbsValue, bits: u32) -> AbsValue {
    lift2(a, b, bits, |x, y| Some(x.wrapping_add(y)), |x, y| x.add(y, bits))
}

/// `a - b`.
pub fn sub(a: &AbsValue, b: &AbsValue, bits: u32) -> AbsValue {
    lift2(a, b, bits, |x, y| Some(x.wrapping_sub(y)), |x, y| x.sub(y, bits))
}

/// `a * b`.
pub fn mul(a: &AbsValue, b: &AbsValue, bits: u32) -> AbsValue {
    lift2(a, b, bits, |x, y| Some(x.wrapping_mul(y)), |x, y| x.mul(y, bits))
}

/// Most unknown bits a shift amount may have to be enumerated (64 amounts).
const MAX_SHIFT_UNKNOWN: u32 = 6;

/// The shift amounts `b` admits, when few and all in range.
fn shift_amounts(b: &AbsValue, bits: u32) -> Option<Vec<u32>> {
    let v = match b {
        AbsValue::Set(v) => v.clone(),
        AbsValue::Known(kb) => {
            if kb.umax(bits) >= u64::from(bits) {
                return None;
            }
            kb.enumerate(bits, MAX_SHIFT_UNKNOWN)?
        }
        _ => return None,
    };
    v.iter().map(|&s| if s < u64::from(bits) { Some(s as u32) } else { None }).collect()
}

/// A shift by every admitted amount, joined (⊤ when the amount may be out of
/// range or is not enumerable).
fn shift(
    a: &AbsValue,
    b: &AbsValue,
    bits: u32,
    exact: impl Fn(u64, u32) -> u64,
    kb: impl Fn(KnownBits, u32) -> KnownBits,
) -> AbsValue {
    if either_bottom(a, b) {
        return AbsValue::Bottom;
    }
    let Some(amounts) = shift_amounts(b, bits) else {
        return AbsValue::Top;
    };
    let mut out = AbsValue::Bottom;
    for s in amounts {
        let one = lift1(a, bits, |x| exact(x, s), |k| kb(k, s));
        out = out.join(&one, bits);
        if out == AbsValue::Top {
            break;
        }
    }
    out
}

/// `a << b`.
pub fn shl(a: &AbsValue, b: &AbsValue, bits: u32) -> AbsValue {
    shift(a, b, bits, |x, s| x << s, |k, s| k.shl(s, bits))
}

/// Logical (`arith == false`) or arithmetic shift right.
pub fn shr(a: &AbsValue, b: &AbsValue, bits: u32, arith: bool) -> AbsValue {
    if arith {
        shift(a, b, bits, |x, s| (sext(x, bits) >> s) as u64, |k, s| k.ashr(s, bits))
    } else {
        shift(a, b, bits, |x, s| (x & mask(bits)) >> s, |k, s| k.lshr(s, bits))
    }
}

/// Bitwise operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BitOp {
    /// `&`
    And,
    /// `|`
    Or,
    /// `^`
    Xor,
}

/// `a & b`, `a | b`, `a ^ b`.
pub fn bitwise(op: BitOp, a: &AbsValue, b: &AbsValue, bits: u32) -> AbsValue {
    match op {
        BitOp::And => lift2(a, b, bits, |x, y| Some(x & y), KnownBits::and),
        BitOp::Or => lift2(a, b, bits, |x, y| Some(x | y), KnownBits::or),
        BitOp::Xor => lift2(a, b, bits, |x, y| Some(x ^ y), KnownBits::xor),
    }
}

/// `!a`.
pub fn not(a: &AbsValue, bits: u32) -> AbsValue {
    lift1(a, bits, |x| !x, |k| k.not(bits))
}

/// Unsigned/signed division and remainder (exact on sets; power-of-two divisors
/// of known bits).
pub fn divrem(a: &AbsValue, b: &AbsValue, bits: u32, signed: bool, rem: bool) -> AbsValue {
    if either_bottom(a, b) {
        return AbsValue::Bottom;
    }
    let f = |x: u64, y: u64| -> Option<u64> {
        if y & mask(bits) == 0 {
            return None;
        }
        if signed {
            let (x, y) = (sext(x, bits), sext(y, bits));
            let r = if rem { x.checked_rem(y)? } else { x.checked_div(y)? };
            Some(r as u64)
        } else {
            let (x, y) = (x & mask(bits), y & mask(bits));
            Some(if rem { x % y } else { x / y })
        }
    };
    if let Some(v) = pairwise(a, b, bits, f) {
        return v;
    }
    if !signed {
        if let Some(d) = b.as_const() {
            if d.is_power_of_two() {
                let s = d.trailing_zeros();
                if rem {
                    return bitwise(BitOp::And, a, &AbsValue::constant(d - 1, bits), bits);
                }
                return shr(a, &AbsValue::constant(u64::from(s), bits), bits, false);
            }
        }
    }
    AbsValue::Top
}

/// Zero extension from `from` bits to `to` bits.
pub fn zext(a: &AbsValue, from: u32, to: u32) -> AbsValue {
    let from = from.clamp(1, 64);
    lift1(a, to, |x| x & mask(from), |k| k.zext(from, to))
}

/// Sign extension from `from` bits to `to` bits.
pub fn sext_value(a: &AbsValue, from: u32, to: u32) -> AbsValue {
    let from = from.clamp(1, 64);
    lift1(a, to, |x| sext(x, from) as u64, |k| k.sext(from, to))
}

/// Truncation to `to` bits.
pub fn trunc(a: &AbsValue, to: u32) -> AbsValue {
    lift1(a, to, |x| x, |k| k.trunc(to))
}

/// Most parameter combinations the PTX bit-field helpers enumerate.
const MAX_PARAM_PAIRS: usize = 16;

/// The `(pos, len)` pairs of two constant-set operands.
fn param_pairs(pos: &AbsValue, len: &AbsValue) -> Option<Vec<(u32, u32)>> {
    let (p, l) = (pos.members()?, len.members()?);
    if p.len() * l.len() > MAX_PARAM_PAIRS {
        return None;
    }
    Some(p.iter().flat_map(|&x| l.iter().map(move |&y| ((x & 0xFF) as u32, (y & 0xFF) as u32))).collect())
}

/// PTX `bfe.{u,s}{32,64}` on the lattice: the field of `len` bits at `pos` of `a`,
/// zero- or sign-extended ([`KnownBits::bfe`]). `pos` and `len` must be sets of
/// constants (⊤ otherwise); a set `a` stays exact. No IR operation maps to it
/// yet: the PTX front end calls it.
pub fn bfe(a: &AbsValue, pos: &AbsValue, len: &AbsValue, bits: u32, signed: bool) -> AbsValue {
    if a.is_bottom() || pos.is_bottom() || len.is_bottom() {
        return AbsValue::Bottom;
    }
    let Some(params) = param_pairs(pos, len) else {
        return AbsValue::Top;
    };
    params.into_iter().fold(AbsValue::Bottom, |acc, (p, l)| {
        let one =
            lift1(a, bits, |x| KnownBits::constant(x, bits).bfe(p, l, signed, bits).one, |k| k.bfe(p, l, signed, bits));
        acc.join(&one, bits)
    })
}

/// PTX `bfi.b{32,64}` on the lattice: `base` with the low `len` bits of `insert`
/// at `pos` ([`KnownBits::bfi`]); `pos` and `len` sets of constants.
pub fn bfi(insert: &AbsValue, base: &AbsValue, pos: &AbsValue, len: &AbsValue, bits: u32) -> AbsValue {
    if pos.is_bottom() || len.is_bottom() {
        return AbsValue::Bottom;
    }
    let Some(params) = param_pairs(pos, len) else {
        return AbsValue::Top;
    };
    params.into_iter().fold(AbsValue::Bottom, |acc, (p, l)| {
        let one = lift2(
            insert,
            base,
            bits,
            |x, y| Some(KnownBits::bfi(KnownBits::constant(x, bits), KnownBits::constant(y, bits), p, l, bits).one),
            |x, y| KnownBits::bfi(x, y, p, l, bits),
        );
        acc.join(&one, bits)
    })
}

/// A packed-vector `mov` (PTX `mov.b64 %rd, {%lo, %hi}`): `lo | hi << lo_bits`,
/// of width `lo_bits + hi_bits` ([`KnownBits::concat`]).
pub fn concat(lo: &AbsValue, hi: &AbsValue, lo_bits: u32, hi_bits: u32) -> AbsValue {
    let to = (lo_bits + hi_bits).min(64);
    if either_bottom(lo, hi) {
        return AbsValue::Bottom;
    }
    if let Some(v) = pairwise(lo, hi, to, |x, y| Some((x & mask(lo_bits)) | y.checked_shl(lo_bits).unwrap_or(0))) {
        return v;
    }
    let (Some(a), Some(b)) = (lo.known_bits(lo_bits), hi.known_bits(hi_bits)) else {
        return AbsValue::Bottom;
    };
    AbsValue::from_known(KnownBits::concat(a, b, lo_bits, hi_bits), to)
}

/// PTX `prmt.b32` (default mode) on the lattice ([`KnownBits::prmt`]); the
/// selector must be a set of constants (⊤ otherwise).
pub fn prmt(a: &AbsValue, b: &AbsValue, selector: &AbsValue) -> AbsValue {
    if either_bottom(a, b) || selector.is_bottom() {
        return AbsValue::Bottom;
    }
    let Some(sels) = selector.members() else {
        return AbsValue::Top;
    };
    sels.iter().fold(AbsValue::Bottom, |acc, &s| {
        let s = s as u32;
        let one = lift2(
            a,
            b,
            32,
            |x, y| Some(KnownBits::prmt(KnownBits::constant(x, 32), KnownBits::constant(y, 32), s).one),
            |x, y| KnownBits::prmt(x, y, s),
        );
        acc.join(&one, 32)
    })
}

/// An integer comparison (LLVM ICMP predicates 32..=41) giving an `i1`: exact
/// on sets; equality and unsigned order also decided from known bits.
pub fn icmp(pred: u8, a: &AbsValue, b: &AbsValue, bits: u32) -> AbsValue {
    if either_bottom(a, b) {
        return AbsValue::Bottom;
    }
    let f = |x: u64, y: u64| -> Option<u64> {
        let (sx, sy) = (sext(x, bits), sext(y, bits));
        let r = match pred {
            32 => x == y,
            33 => x != y,
            34 => x > y,
            35 => x >= y,
            36 => x < y,
            37 => x <= y,
            38 => sx > sy,
            39 => sx >= sy,
            40 => sx < sy,
            41 => sx <= sy,
            _ => return None,
        };
        Some(u64::from(r))
    };
    if let Some(v) = pairwise(a, b, bits, f) {
        return v.normalize(1);
    }
    let (Some(x), Some(y)) = (a.known_bits(bits), b.known_bits(bits)) else {
        return AbsValue::Top;
    };
    let differ = (x.one & y.zero) | (x.zero & y.one) != 0;
    let (xmin, xmax, ymin, ymax) = (x.umin(), x.umax(bits), y.umin(), y.umax(bits));
    let r = match pred {
        32 if differ => Some(false),
        33 if differ => Some(true),
        34..=37 => {
            // Normalize to "x < y" / "x <= y" with the operands swapped for > / >=.
            let (lmin, lmax, rmin, rmax) = if pred <= 35 { (ymin, ymax, xmin, xmax) } else { (xmin, xmax, ymin, ymax) };
            let strict = pred == 34 || pred == 36;
            if (strict && lmax < rmin) || (!strict && lmax <= rmin) {
                Some(true)
            } else if (strict && lmin >= rmax) || (!strict && lmin > rmax) {
                Some(false)
            } else {
                None
            }
        }
        _ => None,
    };
    match r {
        Some(v) => AbsValue::constant(u64::from(v), 1),
        None => AbsValue::Top,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(x: u64) -> AbsValue {
        AbsValue::constant(x, 32)
    }
    fn top() -> AbsValue {
        AbsValue::Top
    }
    fn cong(rem: u64, m: u64) -> AbsValue {
        AbsValue::congruence(rem, m.trailing_zeros(), 32)
    }
    /// Known bits: `zero` and `one` masks (32-bit).
    fn kb(zero: u64, one: u64) -> AbsValue {
        AbsValue::Known(KnownBits { zero, one })
    }

    #[test]
    fn tid_times_64_plus_12() {
        let v = add(&mul(&top(), &c(64), 32), &c(12), 32);
        assert_eq!(v, cong(12, 64));
        // The DXIL spelling: shl 6, or 12.
        let v = bitwise(BitOp::Or, &shl(&top(), &c(6), 32), &c(12), 32);
        assert_eq!(v, cong(12, 64));
    }

    #[test]
    fn base_times_32_plus_4() {
        assert_eq!(add(&mul(&top(), &c(32), 32), &c(4), 32), cong(4, 32));
    }

    #[test]
    fn phi_of_32_and_48_is_a_set() {
        assert_eq!(c(32).join(&c(48), 32), AbsValue::Set(vec![32, 48]));
    }

    #[test]
    fn mul_by_100_is_0_mod_4() {
        assert_eq!(mul(&top(), &c(100), 32), cong(0, 4));
        assert_eq!(mul(&cong(1, 2), &cong(1, 2), 32), cong(1, 2));
        assert_eq!(mul(&cong(2, 4), &cong(2, 4), 32), cong(4, 8));
    }

    #[test]
    fn and_masks() {
        // (x * 100) & ~31 → 0 mod 32.
        let v = bitwise(BitOp::And, &mul(&top(), &c(100), 32), &c(!31u64 & 0xFFFF_FFFF), 32);
        assert_eq!(v, cong(0, 32));
        // (12 mod 64) & 15 → 12.
        assert_eq!(bitwise(BitOp::And, &cong(12, 64), &c(15), 32), c(12));
        // unknown & 0xF0 → only bits 4-7 unknown.
        let v = bitwise(BitOp::And, &top(), &c(0xF0), 32);
        assert_eq!(v, kb(0xFFFF_FF0F, 0));
        assert_eq!(v.describe(), "0 mod 16, bits 8-31 = 0");
    }

    #[test]
    fn or_xor_known_low_bits() {
        assert_eq!(bitwise(BitOp::Or, &cong(0, 64), &c(8), 32), cong(8, 64));
        assert_eq!(bitwise(BitOp::Xor, &cong(3, 16), &c(1), 32), cong(2, 16));
        assert_eq!(bitwise(BitOp::Or, &c(1), &c(6), 32), c(7));
    }

    #[test]
    fn shifts() {
        assert_eq!(shl(&cong(3, 16), &c(2), 32), cong(12, 64));
        assert_eq!(shl(&c(3), &AbsValue::set([1, 2], 32), 32), AbsValue::Set(vec![6, 12]));
        assert_eq!(shr(&c(0x80), &c(4), 32, false), c(8));
        // The low bits shift down, zeros shift in at the top.
        assert_eq!(shr(&cong(12, 64), &c(2), 32, false), kb(0xC000_000C, 3));
        assert_eq!(shr(&cong(12, 64), &c(7), 32, false), kb(0xFE00_0000, 0));
        assert_eq!(shr(&top(), &c(28), 32, false).describe(), "bits 4-31 = 0");
        // An amount of x & 3 is enumerated: (12 mod 64) << {0..3} keeps 2 low zeros.
        let amount = bitwise(BitOp::And, &top(), &c(3), 32);
        assert_eq!(shl(&cong(12, 64), &amount, 32).to_congruence(32), Some((0, 2)));
        // An amount that may be out of range gives ⊤.
        assert_eq!(shl(&c(1), &bitwise(BitOp::And, &top(), &c(63), 32), 32), top());
        assert_eq!(shr(&c(0xFFFF_FFF0), &c(4), 32, true), c(0xFFFF_FFFF));
        assert_eq!(shl(&c(1), &c(40), 32), top());
    }

    #[test]
    fn widening_past_eight_members() {
        let mut v = AbsValue::Bottom;
        for i in 0..8 {
            v = v.join(&c(16 * i + 4), 32);
        }
        assert_eq!(v.members().map(|m| m.len()), Some(8));
        v = v.join(&c(16 * 8 + 4), 32);
        // {4, 20, ..., 132}: the low 4 bits are 4, bits 8-31 are 0.
        assert_eq!(v, kb(0xFFFF_FF0B, 4));
        assert_eq!(v.to_congruence(32), Some((4, 4)));
        // Joining known bits with a constant keeps the bits they share.
        assert_eq!(cong(4, 16).join(&c(12), 32), cong(4, 8));
        assert_eq!(cong(4, 16).join(&c(5), 32), kb(0b1010, 0b100));
        assert_eq!(cong(4, 16).join(&c(5), 32).describe(), "bits 1-3 = 0x4");
        assert_eq!(cong(4, 16).join(&c(7), 32).describe(), "bits 2-3 = 0x4");
        assert_eq!(cong(4, 16).join(&c(0x14), 32).describe(), "4 mod 16");
        assert_eq!(
            c(0).join(&c(0x10), 32).join(&c(0x40), 32).join(&c(0x50), 32).join(&c(1), 32),
            AbsValue::set([0, 1, 0x10, 0x40, 0x50], 32)
        );
        assert_eq!(cong(4, 16).join(&c(0xB), 32), top());
    }

    #[test]
    fn loop_phi_converges() {
        // phi(0, phi + 16) iterated to a fixpoint.
        let mut v = c(0);
        for _ in 0..100 {
            let next = c(0).join(&add(&v, &c(16), 32), 32);
            let joined = v.join(&next, 32);
            if joined == v {
                break;
            }
            v = joined;
        }
        assert_eq!(v, cong(0, 16));
    }

    #[test]
    fn casts() {
        assert_eq!(trunc(&c(0x1_0000_0010), 32), c(0x10));
        assert_eq!(AbsValue::constant(0x1_0000_0010, 32), c(0x10));
        assert_eq!(zext(&cong(4, 16), 16, 32), kb(0xFFFF_000B, 4));
        assert_eq!(zext(&top(), 16, 32), kb(0xFFFF_0000, 0));
        assert_eq!(sext_value(&kb(0x8000, 0), 16, 32), kb(0xFFFF_8000, 0));
        assert_eq!(sext_value(&top(), 16, 32), top());
        assert_eq!(sext_value(&AbsValue::constant(0xFF, 8), 8, 32), c(0xFFFF_FFFF));
        assert_eq!(trunc(&cong(4, 256), 4), AbsValue::constant(4, 4));
    }

    #[test]
    fn arithmetic_on_sets_and_wrap() {
        assert_eq!(
            add(&AbsValue::set([1, 2], 32), &AbsValue::set([10, 20], 32), 32),
            AbsValue::set([11, 12, 21, 22], 32)
        );
        assert_eq!(sub(&c(0), &c(1), 32), c(0xFFFF_FFFF));
        assert_eq!(sub(&cong(4, 16), &c(8), 32), cong(12, 16));
        assert_eq!(add(&AbsValue::Bottom, &c(1), 32), AbsValue::Bottom);
        assert_eq!(divrem(&cong(12, 64), &c(16), 32, false, true), c(12));
        assert_eq!(divrem(&c(7), &c(2), 32, false, false), c(3));
        assert_eq!(icmp(32, &c(3), &c(3), 32), AbsValue::constant(1, 1));
    }

    #[test]
    fn icmp_from_known_bits() {
        // (x | 1) == 0 is false; (x & 15) <u 16 is true.
        let odd = bitwise(BitOp::Or, &top(), &c(1), 32);
        assert_eq!(icmp(32, &odd, &c(0), 32), AbsValue::constant(0, 1));
        assert_eq!(icmp(33, &odd, &c(0), 32), AbsValue::constant(1, 1));
        let low = bitwise(BitOp::And, &top(), &c(15), 32);
        assert_eq!(icmp(36, &low, &c(16), 32), AbsValue::constant(1, 1));
        assert_eq!(icmp(34, &low, &c(15), 32), AbsValue::constant(0, 1));
        assert_eq!(icmp(35, &low, &c(15), 32), top());
        assert_eq!(icmp(32, &top(), &c(0), 32), top());
    }

    /// The example: `or(zext(bfe(x, 4, 14)), 0x4000404000000000)`.
    #[test]
    fn triton_descriptor_fields_are_known() {
        let x = top();
        let start = bfe(&x, &c(4), &c(14), 32, false);
        assert_eq!(start.describe(), "bits 14-31 = 0");
        let desc = bitwise(BitOp::Or, &zext(&start, 32, 64), &AbsValue::constant(0x4000_4040_0000_0000, 64), 64);
        let kb = desc.known_bits(64).unwrap();
        assert_eq!(kb.unknown(64), 0x3FFF, "every bit above 13 is known");
        assert_eq!(desc.describe(), "bits 14-63 = 0x4000404000000000");
        assert_eq!(desc.known_field(61, 3, 64), Some(2), "layout_type 2 = SWIZZLE_128B");
        assert_eq!(desc.known_field(46, 3, 64), Some(1), "version 1");
        assert_eq!(desc.known_field(32, 14, 64).map(|sbo| sbo << 4), Some(1024), "SBO 1024 bytes");
        assert_eq!(desc.known_field(0, 14, 64), None);
        // A partially known field: its admitted values.
        let partial = bitwise(BitOp::Or, &desc, &shl(&bitwise(BitOp::And, &top(), &c(1), 64), &c(61), 64), 64);
        assert_eq!(partial.field(61, 3, 64).admitted(3, 4), Some(vec![2, 3]));
        assert_eq!(desc.field(61, 3, 64).admitted(3, 4), Some(vec![2]));
        assert_eq!(top().field(0, 3, 64).admitted(3, 4), Some((0..8).collect()));
        assert_eq!(top().admitted(32, 4), None);
        assert_eq!(desc.field(8, 8, 64), AbsValue::Known(KnownBits { zero: 0xC0, one: 0 }));
        // A run-time start address that is 16-byte aligned keeps the low bits too.
        let aligned = bitwise(BitOp::And, &top(), &c(!0xFu64 & 0xFFFF_FFFF), 32);
        assert_eq!(aligned.alignment(32), Some(16));
        assert_eq!(desc.alignment(64), Some(1));
    }

    #[test]
    fn ptx_helpers_on_sets_and_unknown_parameters() {
        // bfe on a set is exact; a signed field sign-extends.
        assert_eq!(bfe(&AbsValue::set([0x1230, 0x4560], 32), &c(4), &c(8), 32, false), AbsValue::set([0x23, 0x56], 32));
        assert_eq!(bfe(&c(0xF0), &c(4), &c(4), 32, true), c(0xFFFF_FFFF));
        assert_eq!(bfe(&top(), &top(), &c(4), 32, false), top());
        // bfi of an unknown field into a constant keeps the rest.
        let v = bfi(&top(), &c(0xFFFF_FFFF), &c(8), &c(8), 32);
        assert_eq!(v, kb(0, 0xFFFF_00FF));
        // mov.b64 {lo, hi}: the high word's fields stay known.
        let packed = concat(&top(), &c(0x4000_4040), 32, 32);
        assert_eq!(packed.known_field(46, 3, 64), Some(1));
        assert_eq!(concat(&c(0x10), &c(0x8200), 32, 32), AbsValue::constant(0x8200_0000_0010, 64));
        // prmt: bytes 0 and 1 of b, then byte 0 of a twice.
        assert_eq!(prmt(&c(0x11), &c(0x2233), &c(0x0054)), c(0x1111_2233));
        assert_eq!(prmt(&top(), &c(0x2233), &c(0x4444)), c(0x3333_3333));
        assert_eq!(prmt(&top(), &top(), &top()), top());
    }

    #[test]
    fn queries_on_sets() {
        let s = AbsValue::set([48, 80], 32);
        assert_eq!(s.alignment(32), Some(16));
        assert_eq!(s.field(4, 4, 32), AbsValue::set([3, 5], 4));
        assert_eq!(AbsValue::constant(0, 32).alignment(32), Some(1 << 32));
        assert!(s.admits(80, 32) && !s.admits(64, 32));
        assert!(cong(12, 64).admits(76, 32) && !cong(12, 64).admits(13, 32));
        assert_eq!(AbsValue::Bottom.alignment(32), None);
    }

    /// Every lattice operation is sound on random inputs: the concrete result of
    /// admitted operands is admitted (sets, known bits and ⊤ mixed).
    #[test]
    fn lattice_operations_are_sound() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let bits = 16;
        // An abstract value and a concrete value it admits.
        let pick = |next: &mut dyn FnMut() -> u64| -> (AbsValue, u64) {
            let x = next() & mask(bits);
            let v = match next() % 4 {
                0 => AbsValue::constant(x, bits),
                1 => AbsValue::set([x, next(), next()], bits),
                2 => {
                    let known = next() & next() & mask(bits);
                    AbsValue::from_known(KnownBits { zero: !x & known, one: x & known }, bits)
                }
                _ => AbsValue::Top,
            };
            (v, x)
        };
        for _ in 0..20_000 {
            let (a, x) = pick(&mut next);
            let (b, y) = pick(&mut next);
            let s = y % 16;
            let sa = if next() % 2 == 0 { AbsValue::constant(s, bits) } else { AbsValue::set([s, 3], bits) };
            let m = mask(bits);
            let cases = [
                ("add", add(&a, &b, bits), x.wrapping_add(y)),
                ("sub", sub(&a, &b, bits), x.wrapping_sub(y)),
                ("mul", mul(&a, &b, bits), x.wrapping_mul(y)),
                ("and", bitwise(BitOp::And, &a, &b, bits), x & y),
                ("or", bitwise(BitOp::Or, &a, &b, bits), x | y),
                ("xor", bitwise(BitOp::Xor, &a, &b, bits), x ^ y),
                ("not", not(&a, bits), !x),
                ("shl", shl(&a, &sa, bits), x << s),
                ("lshr", shr(&a, &sa, bits, false), x >> s),
                ("ashr", shr(&a, &sa, bits, true), (sext(x, bits) >> s) as u64),
                ("join", a.join(&b, bits), x),
                ("icmp ult", icmp(36, &a, &b, bits), u64::from(x < y)),
                ("icmp eq", icmp(32, &a, &b, bits), u64::from(x == y)),
            ];
            for (name, r, c) in cases {
                let w = if name.starts_with("icmp") { 1 } else { bits };
                assert!(r.admits(c & m, w), "{name}({a:?}, {b:?}) = {r:?} does not admit {c:#x}");
            }
            let z = zext(&a, bits, 32);
            assert!(z.admits(x, 32), "zext({a:?}) = {z:?}");
            let t = trunc(&a, 8);
            assert!(t.admits(x & 0xFF, 8), "trunc({a:?}) = {t:?}");
            let e = sext_value(&a, bits, 32);
            assert!(e.admits(sext(x, bits) as u64, 32), "sext({a:?}) = {e:?}");
        }
    }
}

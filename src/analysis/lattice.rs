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
//! The PTX lowering (`src/ptx/lower/body.rs`) expands `bfe` and `bfi` with
//! constant position and length, packing `mov.bN d, {a, b}` and unpacking
//! `mov.bN {a, b}, s` into IR shifts, masks, `zext`/`trunc` and `or`, on which
//! the known-bits transfer functions are exact, so the dataflow evaluates them
//! with the operations below. `bfe`/`bfi` with a position or length in a
//! register, and `prmt.b32` in the default mode, stay `InstKind::Other` with
//! an [`crate::ir::OpSemantics`] the dataflow evaluates with
//! [`super::ptxops`]; `cvta` is an address-space cast
//! ([`super::ptxops::address_space_cast`]). The correspondence (`bits` is the
//! instruction type's width):
//!
//! | PTX | lattice |
//! |---|---|
//! | `add`, `sub`, `mul.lo`, `mad.lo` | [`add`], [`sub`], [`mul`] (`mad.lo` = `add(mul(a, b), c)`) |
//! | `mul.wide.u32` / `.s32` | [`mul`] at 64 bits of [`zext`] / [`sext_value`] operands |
//! | `and`, `or`, `xor`, `not` | [`bitwise`], [`not`] |
//! | `shl`, `shr.u`, `shr.s` | [`shl`], [`shr`]; an amount that may be ≥ the width gives ⊤ here (LLVM poison), PTX clamps it: lower a known large amount as 0 / the sign |
//! | `cvt.u64.u32`, `cvt.s64.s32`, `cvt.u32.u64` | [`zext`], [`sext_value`], [`trunc`] |
//! | `bfe.u32` / `.s32` / `.u64` / `.s64` | [`bfe`] (parameters in registers: joined over the few values they admit) |
//! | `bfi.b32` / `.b64` | [`bfi`] |
//! | `mov.b64 %rd, {%lo, %hi}` | [`concat()`]`(lo, hi, 32, 32)`; unpacking `mov.b64 {%lo, %hi}, %rd` is [`AbsValue::field`] |
//! | `prmt.b32` (default mode) | [`prmt`] (a selector known in part: per byte, over the nibble values it admits) |
//! | `setp` on integers | [`icmp`] with the LLVM predicate numbers |
//!
//! `mul.hi`, `popc`, `clz`, `brev` and the other `prmt` modes are not modelled
//! (⊤). Descriptor rules read fields with [`AbsValue::known_field`] (all bits
//! known), [`AbsValue::field`] + [`AbsValue::admitted`] (partially known:
//! fire only when every admitted value is invalid) and [`AbsValue::alignment`]
//! for addresses.

use super::knownbits::of_constants;
pub use super::knownbits::KnownBits;
pub use super::ptxops::{address_space_cast, bfe, bfi, concat, prmt, ADDRESS_CAST_KEPT_BITS};
use crate::read::limits::MAX_CONST_SET;

/// The members of an [`AbsValue::Set`].
pub type Consts = smallvec::SmallVec<[u64; 2]>;

/// The values [`AbsValue::admitted`] lists (up to 8 without an allocation).
pub type Admitted = smallvec::SmallVec<[u64; 8]>;

/// An abstract integer value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AbsValue {
    /// No value (unreachable, not computed yet, or `undef`).
    Bottom,
    /// One of these constants (sorted, deduplicated, at most 8, masked to the
    /// width; one or two members, the usual case, need no allocation).
    Set(Consts),
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
        AbsValue::Set(smallvec::smallvec![x & mask(bits)])
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
            AbsValue::Set(smallvec::smallvec![x])
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
    pub fn admitted(&self, bits: u32, max_unknown: u32) -> Option<Admitted> {
        let bits = bits.clamp(1, 64);
        match self {
            AbsValue::Bottom => None,
            AbsValue::Set(v) => Some(v.iter().copied().collect()),
            other => other.known_bits(bits)?.members(bits, max_unknown.min(16)).map(Iterator::collect),
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
                if let Some(v) = merge_sets(a, b, bits) {
                    return v;
                }
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

/// The join of two sets that keep the invariants (ascending, no repeats,
/// masked to the width): one merge, no sort; `None` when either does not
/// (then [`AbsValue::normalize`] restores them).
fn merge_sets(a: &[u64], b: &[u64], bits: u32) -> Option<AbsValue> {
    let bits = bits.clamp(1, 64);
    let ok = |v: &[u64]| {
        v.len() <= MAX_CONST_SET && v.windows(2).all(|w| w[0] < w[1]) && v.last().is_none_or(|x| *x <= mask(bits))
    };
    if !ok(a) || !ok(b) {
        return None;
    }
    let mut out = Consts::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while let (Some(&x), Some(&y)) = (a.get(i), b.get(j)) {
        out.push(x.min(y));
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    out.extend_from_slice(a.get(i..).unwrap_or(&[]));
    out.extend_from_slice(b.get(j..).unwrap_or(&[]));
    Some(if out.is_empty() {
        AbsValue::Bottom
    } else if out.len() > MAX_CONST_SET {
        AbsValue::from_known(of_constants(&out, bits), bits)
    } else {
        AbsValue::Set(out)
    })
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
pub(super) fn pairwise(a: &AbsValue, b: &AbsValue, bits: u32, f: impl Fn(u64, u64) -> Option<u64>) -> Option<AbsValue> {
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

pub(super) fn either_bottom(a: &AbsValue, b: &AbsValue) -> bool {
    a.is_bottom() || b.is_bottom()
}

/// Lifts a binary operation: exact on two small sets (`exact`); a join of
/// `kb(member, other)` over the members when one operand is a set; else `kb` on
/// the known bits of both.
pub(super) fn lift2(
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
pub(super) fn lift1(
    a: &AbsValue,
    bits: u32,
    exact: impl Fn(u64) -> u64,
    kb: impl Fn(KnownBits) -> KnownBits,
) -> AbsValue {
    match a {
        AbsValue::Bottom => AbsValue::Bottom,
        AbsValue::Set(v) => AbsValue::set(v.iter().map(|x| exact(*x)), bits),
        other => AbsValue::from_known(kb(other.known_bits(bits).unwrap_or_default()), bits),
    }
}

/// `a + b`.
pub fn add(a: &AbsValue, b: &AbsValue, bits: u32) -> AbsValue {
    if let Some(v) = top_absorbs(a, b) {
        return v;
    }
    lift2(a, b, bits, |x, y| Some(x.wrapping_add(y)), |x, y| x.add(y, bits))
}

/// `a - b`.
pub fn sub(a: &AbsValue, b: &AbsValue, bits: u32) -> AbsValue {
    if let Some(v) = top_absorbs(a, b) {
        return v;
    }
    lift2(a, b, bits, |x, y| Some(x.wrapping_sub(y)), |x, y| x.sub(y, bits))
}

/// ⊤ with ⊤ (⊥ with ⊥) for an operation whose every result bit depends on
/// every bit of an unknown operand: an unknown addend's carries reach every
/// bit above its lowest, and it has no known lowest bit. `None` otherwise.
fn top_absorbs(a: &AbsValue, b: &AbsValue) -> Option<AbsValue> {
    if either_bottom(a, b) {
        Some(AbsValue::Bottom)
    } else if matches!(a, AbsValue::Top) || matches!(b, AbsValue::Top) {
        Some(AbsValue::Top)
    } else {
        None
    }
}

/// `a * b`.
pub fn mul(a: &AbsValue, b: &AbsValue, bits: u32) -> AbsValue {
    lift2(a, b, bits, |x, y| Some(x.wrapping_mul(y)), |x, y| x.mul(y, bits))
}

/// Most unknown bits a shift amount may have to be enumerated (64 amounts).
const MAX_SHIFT_UNKNOWN: u32 = 6;

/// The shift amounts `b` admits, when few and all in range (a set's members
/// without allocating: a set has at most 8).
fn shift_amounts(b: &AbsValue, bits: u32) -> Option<smallvec::SmallVec<[u32; 8]>> {
    let in_range = |s: &u64| if *s < u64::from(bits) { Some(*s as u32) } else { None };
    match b {
        AbsValue::Set(v) => v.iter().map(in_range).collect(),
        AbsValue::Known(kb) => {
            if kb.umax(bits) >= u64::from(bits) {
                return None;
            }
            kb.enumerate(bits, MAX_SHIFT_UNKNOWN)?.iter().map(in_range).collect()
        }
        _ => None,
    }
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
    // The first amount's value as it is (the usual shift by one constant
    // joins nothing), then the join with each other one.
    let mut out: Option<AbsValue> = None;
    for s in amounts {
        let one = lift1(a, bits, |x| exact(x, s), |k| kb(k, s));
        out = Some(match out {
            None => one,
            Some(o) => o.join(&one, bits),
        });
        if out == Some(AbsValue::Top) {
            break;
        }
    }
    out.unwrap_or(AbsValue::Bottom)
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
#[path = "lattice_tests.rs"]
mod tests;

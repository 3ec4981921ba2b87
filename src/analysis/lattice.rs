//! The integer value lattice: ⊥ → a sorted set of ≤ 8 constants → a congruence
//! `rem mod 2^k` (the low `k` bits are known) → ⊤.
//!
//! Every operation takes the bit width of the values it combines; constants are
//! kept masked to that width, and a congruence never has `k` ≥ width (that would
//! be a single constant) nor `k == 0` (that is ⊤). [`AbsValue::normalize`]
//! restores these invariants after each operation.

use crate::read::limits::MAX_CONST_SET;

/// An abstract integer value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AbsValue {
    /// No value (unreachable, not computed yet, or `undef`).
    Bottom,
    /// One of these constants (sorted, deduplicated, at most 8, masked to the width).
    Set(Vec<u64>),
    /// `rem mod 2^k`: the low `k` bits are known to be `rem` (`0 < k < width`).
    Congruence {
        /// Remainder (`< 2^k`).
        rem: u64,
        /// log2 of the modulus.
        k: u8,
    },
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

fn low(k: u32) -> u64 {
    mask(k)
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

/// Known bits: `known` marks the bits whose value is `value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct KnownBits {
    known: u64,
    value: u64,
}

impl AbsValue {
    /// A single constant.
    pub fn constant(x: u64, bits: u32) -> AbsValue {
        AbsValue::Set(vec![x & mask(bits)])
    }

    /// `rem mod 2^k`, normalized.
    pub fn congruence(rem: u64, k: u32, bits: u32) -> AbsValue {
        AbsValue::Congruence { rem, k: k.min(64) as u8 }.normalize(bits)
    }

    /// A set of constants, normalized (widened when larger than 8).
    pub fn set(values: impl IntoIterator<Item = u64>, bits: u32) -> AbsValue {
        AbsValue::Set(values.into_iter().collect()).normalize(bits)
    }

    /// Restores the invariants: masked, sorted, deduplicated sets of ≤ 8 members;
    /// congruences with `0 < k < bits`.
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
                    let (rem, k) = set_congruence(&v, bits);
                    AbsValue::Congruence { rem, k: k as u8 }.normalize(bits)
                } else {
                    AbsValue::Set(v)
                }
            }
            AbsValue::Congruence { rem, k } => {
                let k = u32::from(k);
                if k == 0 {
                    AbsValue::Top
                } else if k >= bits {
                    AbsValue::Set(vec![rem & mask(bits)])
                } else {
                    AbsValue::Congruence { rem: rem & low(k), k: k as u8 }
                }
            }
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

    /// The congruence `(rem, k)` every admitted value satisfies (`k == bits` for a
    /// constant; `(0, 0)` for ⊤). `None` for ⊥.
    pub fn to_congruence(&self, bits: u32) -> Option<(u64, u32)> {
        match self {
            AbsValue::Bottom => None,
            AbsValue::Top => Some((0, 0)),
            AbsValue::Congruence { rem, k } => Some((*rem, u32::from(*k))),
            AbsValue::Set(v) => Some(set_congruence(v, bits)),
        }
    }

    fn known_bits(&self, bits: u32) -> Option<KnownBits> {
        match self {
            AbsValue::Bottom => None,
            AbsValue::Top => Some(KnownBits { known: 0, value: 0 }),
            AbsValue::Congruence { rem, k } => Some(KnownBits { known: low(u32::from(*k)), value: *rem }),
            AbsValue::Set(v) => {
                let first = v.first().copied().unwrap_or(0);
                let mut differ = 0u64;
                for x in v {
                    differ |= x ^ first;
                }
                let known = !differ & mask(bits);
                Some(KnownBits { known, value: first & known })
            }
        }
    }

    fn from_known(kb: KnownBits, bits: u32) -> AbsValue {
        let k = (!kb.known).trailing_zeros().min(bits);
        AbsValue::congruence(kb.value & low(k), k, bits)
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
                let (Some((r1, k1)), Some((r2, k2))) = (a.to_congruence(bits), b.to_congruence(bits)) else {
                    return AbsValue::Top;
                };
                let k = k1.min(k2).min((r1 ^ r2).trailing_zeros());
                AbsValue::congruence(r1 & low(k), k, bits)
            }
        }
    }

    /// Does every admitted value satisfy `pred`? `None` for ⊥/⊤ or when a
    /// congruence admits values both ways is not decidable here.
    pub fn members(&self) -> Option<&[u64]> {
        match self {
            AbsValue::Set(v) => Some(v),
            _ => None,
        }
    }

    /// Displays the value (`12`, `{32, 48}`, `12 mod 64`, `unknown`).
    pub fn describe(&self) -> String {
        match self {
            AbsValue::Bottom => "no value".into(),
            AbsValue::Top => "unknown".into(),
            AbsValue::Set(v) if v.len() == 1 => v[0].to_string(),
            AbsValue::Set(v) => {
                let parts: Vec<String> = v.iter().map(|x| x.to_string()).collect();
                format!("{{{}}}", parts.join(", "))
            }
            AbsValue::Congruence { rem, k } => format!("{rem} mod {}", 1u128 << k),
        }
    }
}

/// The congruence of a non-empty set of constants: the largest `2^k` dividing
/// every pairwise difference, and the common remainder.
fn set_congruence(v: &[u64], bits: u32) -> (u64, u32) {
    let Some(&first) = v.first() else {
        return (0, 0);
    };
    let mut diff = 0u64;
    for &x in v {
        diff |= x.wrapping_sub(first) & mask(bits);
    }
    let k = diff.trailing_zeros().min(bits);
    (first & low(k), k)
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

/// `a + b`.
pub fn add(a: &AbsValue, b: &AbsValue, bits: u32) -> AbsValue {
    if either_bottom(a, b) {
        return AbsValue::Bottom;
    }
    if let Some(v) = pairwise(a, b, bits, |x, y| Some(x.wrapping_add(y))) {
        return v;
    }
    let ((r1, k1), (r2, k2)) = (a.to_congruence(bits).unwrap_or((0, 0)), b.to_congruence(bits).unwrap_or((0, 0)));
    let k = k1.min(k2);
    AbsValue::congruence(r1.wrapping_add(r2) & low(k), k, bits)
}

/// `a - b`.
pub fn sub(a: &AbsValue, b: &AbsValue, bits: u32) -> AbsValue {
    if either_bottom(a, b) {
        return AbsValue::Bottom;
    }
    if let Some(v) = pairwise(a, b, bits, |x, y| Some(x.wrapping_sub(y))) {
        return v;
    }
    let ((r1, k1), (r2, k2)) = (a.to_congruence(bits).unwrap_or((0, 0)), b.to_congruence(bits).unwrap_or((0, 0)));
    let k = k1.min(k2);
    AbsValue::congruence(r1.wrapping_sub(r2) & low(k), k, bits)
}

/// 2-adic valuation with `v(0) = ∞` (represented as 128).
fn val2(x: u64) -> u32 {
    if x == 0 {
        128
    } else {
        x.trailing_zeros()
    }
}

/// `a * b`.
pub fn mul(a: &AbsValue, b: &AbsValue, bits: u32) -> AbsValue {
    if either_bottom(a, b) {
        return AbsValue::Bottom;
    }
    if let Some(v) = pairwise(a, b, bits, |x, y| Some(x.wrapping_mul(y))) {
        return v;
    }
    let ((r1, k1), (r2, k2)) = (a.to_congruence(bits).unwrap_or((0, 0)), b.to_congruence(bits).unwrap_or((0, 0)));
    // (r1 + m1·2^k1)(r2 + m2·2^k2) = r1·r2 + r1·m2·2^k2 + r2·m1·2^k1 + m1·m2·2^(k1+k2)
    let k = (k2 + val2(r1)).min(k1 + val2(r2)).min(k1 + k2).min(bits);
    AbsValue::congruence(r1.wrapping_mul(r2) & low(k), k, bits)
}

/// The shift amounts of `b` if it is a set of in-range constants.
fn shift_amounts(b: &AbsValue, bits: u32) -> Option<Vec<u32>> {
    let v = b.members()?;
    v.iter().map(|&s| if s < u64::from(bits) { Some(s as u32) } else { None }).collect()
}

/// `a << b`.
pub fn shl(a: &AbsValue, b: &AbsValue, bits: u32) -> AbsValue {
    if either_bottom(a, b) {
        return AbsValue::Bottom;
    }
    let Some(amounts) = shift_amounts(b, bits) else {
        return AbsValue::Top;
    };
    let mut out = AbsValue::Bottom;
    for s in amounts {
        let one = match a {
            AbsValue::Set(v) => AbsValue::set(v.iter().map(|x| x << s), bits),
            _ => {
                let (r, k) = a.to_congruence(bits).unwrap_or((0, 0));
                AbsValue::congruence(r << s, (k + s).min(bits), bits)
            }
        };
        out = out.join(&one, bits);
    }
    out
}

/// Logical (`arith == false`) or arithmetic shift right.
pub fn shr(a: &AbsValue, b: &AbsValue, bits: u32, arith: bool) -> AbsValue {
    if either_bottom(a, b) {
        return AbsValue::Bottom;
    }
    let Some(amounts) = shift_amounts(b, bits) else {
        return AbsValue::Top;
    };
    let mut out = AbsValue::Bottom;
    for s in amounts {
        let one = match a {
            AbsValue::Set(v) => AbsValue::set(
                v.iter().map(|&x| if arith { (sext(x, bits) >> s) as u64 } else { (x & mask(bits)) >> s }),
                bits,
            ),
            _ => {
                // The low k bits are known: after the shift, the low k - s are.
                let (r, k) = a.to_congruence(bits).unwrap_or((0, 0));
                if k >= s {
                    AbsValue::congruence(r >> s, k - s, bits)
                } else {
                    AbsValue::Top
                }
            }
        };
        out = out.join(&one, bits);
    }
    out
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
    if either_bottom(a, b) {
        return AbsValue::Bottom;
    }
    let f = |x: u64, y: u64| match op {
        BitOp::And => x & y,
        BitOp::Or => x | y,
        BitOp::Xor => x ^ y,
    };
    if let Some(v) = pairwise(a, b, bits, |x, y| Some(f(x, y))) {
        return v;
    }
    let (Some(ka), Some(kb)) = (a.known_bits(bits), b.known_bits(bits)) else {
        return AbsValue::Top;
    };
    let zeros = |k: KnownBits| k.known & !k.value;
    let ones = |k: KnownBits| k.known & k.value;
    let r = match op {
        BitOp::And => {
            let z = zeros(ka) | zeros(kb);
            let o = ones(ka) & ones(kb);
            KnownBits { known: z | o, value: o }
        }
        BitOp::Or => {
            let o = ones(ka) | ones(kb);
            let z = zeros(ka) & zeros(kb);
            KnownBits { known: z | o, value: o }
        }
        BitOp::Xor => {
            let known = ka.known & kb.known;
            KnownBits { known, value: (ka.value ^ kb.value) & known }
        }
    };
    AbsValue::from_known(r, bits)
}

/// Unsigned/signed division and remainder (exact on sets; power-of-two divisors
/// of congruences).
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
    match a {
        AbsValue::Set(v) => AbsValue::set(v.iter().map(|x| x & mask(from)), to),
        AbsValue::Congruence { rem, k } => AbsValue::congruence(*rem, u32::from(*k), to),
        other => other.clone(),
    }
}

/// Sign extension from `from` bits to `to` bits.
pub fn sext_value(a: &AbsValue, from: u32, to: u32) -> AbsValue {
    match a {
        AbsValue::Set(v) => AbsValue::set(v.iter().map(|&x| sext(x, from) as u64), to),
        AbsValue::Congruence { rem, k } => AbsValue::congruence(*rem, u32::from(*k), to),
        other => other.clone(),
    }
}

/// Truncation to `to` bits.
pub fn trunc(a: &AbsValue, to: u32) -> AbsValue {
    match a {
        AbsValue::Set(v) => AbsValue::set(v.iter().copied(), to),
        AbsValue::Congruence { rem, k } => {
            let k = u32::from(*k).min(to);
            AbsValue::congruence(rem & low(k), k, to)
        }
        other => other.clone(),
    }
}

/// An integer comparison (LLVM ICMP predicates 32..=41) giving an `i1`.
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
    pairwise(a, b, bits, f).unwrap_or(AbsValue::Top).normalize(1)
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
        AbsValue::Congruence { rem, k: m.trailing_zeros() as u8 }
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
        // unknown & 0xF0 → 0 mod 16.
        assert_eq!(bitwise(BitOp::And, &top(), &c(0xF0), 32), cong(0, 16));
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
        assert_eq!(shr(&cong(12, 64), &c(2), 32, false), cong(3, 16));
        assert_eq!(shr(&cong(12, 64), &c(7), 32, false), top());
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
        assert_eq!(v, cong(4, 16));
        // Joining a congruence with a constant of another residue loses bits.
        assert_eq!(cong(4, 16).join(&c(12), 32), cong(4, 8));
        assert_eq!(cong(4, 16).join(&c(5), 32), top());
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
        assert_eq!(zext(&cong(4, 16), 16, 32), cong(4, 16));
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
}

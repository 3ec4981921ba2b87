//! Soundness of every known-bits transfer function: exhaustively over all
//! abstract and concrete 4-bit (and some 5-bit) values, and on random 64-bit
//! ones; plus exact results on examples.

use super::*;
use crate::analysis::lattice::sext as sext_concrete;

/// Every abstract value of a width (3^bits of them).
fn all_abstract(bits: u32) -> Vec<KnownBits> {
    let mut out = Vec::new();
    for zero in 0..(1u64 << bits) {
        for one in 0..(1u64 << bits) {
            if zero & one == 0 {
                out.push(KnownBits { zero, one });
            }
        }
    }
    out
}

fn admitted(a: KnownBits, bits: u32) -> Vec<u64> {
    (0..(1u64 << bits)).filter(|x| a.admits(*x)).collect()
}

/// Checks `abs(a, b)` admits `conc(x, y)` for every admitted x, y.
fn check_binary(
    bits: u32,
    name: &str,
    abs: impl Fn(KnownBits, KnownBits) -> KnownBits,
    conc: impl Fn(u64, u64) -> u64,
) {
    let all = all_abstract(bits);
    let members: Vec<Vec<u64>> = all.iter().map(|a| admitted(*a, bits)).collect();
    for (a, xs) in all.iter().zip(&members) {
        for (b, ys) in all.iter().zip(&members) {
            let r = abs(*a, *b);
            assert!(!r.has_conflict(), "{name}({a:?}, {b:?}) = {r:?} conflicts");
            assert_eq!(r, r.normalize(bits), "{name}({a:?}, {b:?}) = {r:?} not normalized");
            for &x in xs {
                for &y in ys {
                    let c = conc(x, y) & mask(bits);
                    assert!(r.admits(c), "{name}({a:?}, {b:?}) = {r:?} does not admit {name}({x}, {y}) = {c}");
                }
            }
            // Constants in, constant out (the bit-level ops are exact).
            if let (Some(x), Some(y)) = (a.as_const(bits), b.as_const(bits)) {
                assert_eq!(r.as_const(bits), Some(conc(x, y) & mask(bits)), "{name}({x}, {y}) not exact");
            }
        }
    }
}

fn check_unary(bits: u32, to: u32, name: &str, abs: impl Fn(KnownBits) -> KnownBits, conc: impl Fn(u64) -> u64) {
    for a in all_abstract(bits) {
        let r = abs(a);
        assert!(!r.has_conflict(), "{name}({a:?}) conflicts");
        assert_eq!(r, r.normalize(to), "{name}({a:?}) = {r:?} not normalized");
        for x in admitted(a, bits) {
            let c = conc(x) & mask(to);
            assert!(r.admits(c), "{name}({a:?}) = {r:?} does not admit {name}({x}) = {c}");
        }
        if let Some(x) = a.as_const(bits) {
            assert_eq!(r.as_const(to), Some(conc(x) & mask(to)), "{name}({x}) not exact");
        }
    }
}

#[test]
fn bitwise_and_arithmetic_are_sound_exhaustively() {
    for bits in [4, 5] {
        check_binary(bits, "and", |a, b| a.and(b), |x, y| x & y);
        check_binary(bits, "or", |a, b| a.or(b), |x, y| x | y);
        check_binary(bits, "xor", |a, b| a.xor(b), |x, y| x ^ y);
        check_binary(bits, "add", |a, b| a.add(b, bits), |x, y| x.wrapping_add(y));
        check_binary(bits, "sub", |a, b| a.sub(b, bits), |x, y| x.wrapping_sub(y));
        check_binary(bits, "mul", |a, b| a.mul(b, bits), |x, y| x.wrapping_mul(y));
        check_unary(bits, bits, "not", |a| a.not(bits), |x| !x);
    }
}

#[test]
fn join_admits_both_and_meet_keeps_both() {
    let bits = 4;
    let all = all_abstract(bits);
    for a in &all {
        for b in &all {
            let j = a.join(*b);
            for x in (0..16).filter(|x| a.admits(*x) || b.admits(*x)) {
                assert!(j.admits(x), "join({a:?}, {b:?}) = {j:?} does not admit {x}");
            }
            let m = a.meet(*b);
            for x in (0..16).filter(|x| a.admits(*x) && b.admits(*x)) {
                assert!(m.admits(x), "meet({a:?}, {b:?}) = {m:?} does not admit {x}");
            }
        }
    }
}

#[test]
fn add_sub_are_as_precise_as_llvm_on_examples() {
    let b = 8;
    // x * 16 + 4: the low 4 bits stay known.
    let x16 = KnownBits::UNKNOWN.shl(4, b);
    assert_eq!(x16.add(KnownBits::constant(4, b), b).low_congruence(b), (4, 4));
    // Carries: 0b0000_00?1 + 1 = 0b0000_0?10 or 0b0000_0100 → the high 5 bits are known 0.
    let a = KnownBits { zero: 0b1111_1100, one: 0b0000_0001 };
    let r = a.add(KnownBits::constant(1, b), b);
    assert_eq!(r.zero & 0b1111_1000, 0b1111_1000);
    assert_eq!(r.zero & 1, 1);
    // Subtraction of a constant from a value with known high zeros borrows unknownly.
    assert_eq!(KnownBits::constant(16, b).sub(KnownBits::constant(1, b), b).as_const(b), Some(15));
}

#[test]
fn mul_keeps_trailing_zeros_and_leading_zeros() {
    let b = 32;
    let x = KnownBits::UNKNOWN;
    assert_eq!(x.mul(KnownBits::constant(100, b), b).min_trailing_zeros(b), 2);
    // (2 mod 4)·(2 mod 4) = 4 mod 8.
    let two4 = KnownBits::low(2, 2, b);
    assert_eq!(two4.mul(two4, b).low_congruence(b), (4, 3));
    // Two 8-bit values multiply into 16 bits: bits 16-31 known 0.
    let byte = KnownBits::UNKNOWN.zext(8, b);
    assert_eq!(byte.mul(byte, b).zero, 0xFFFF_0000);
}

#[test]
fn shifts_are_sound_exhaustively() {
    for bits in [4u32, 5] {
        for s in 0..bits {
            check_unary(bits, bits, "shl", |a| a.shl(s, bits), |x| x << s);
            check_unary(bits, bits, "lshr", |a| a.lshr(s, bits), |x| x >> s);
            check_unary(bits, bits, "ashr", |a| a.ashr(s, bits), |x| (sext_concrete(x, bits) >> s) as u64);
        }
    }
}

#[test]
fn casts_are_sound_exhaustively() {
    for from in [3u32, 4, 5] {
        for to in [from, from + 2, 8] {
            check_unary(from, to, "zext", |a| a.zext(from, to), |x| x);
            check_unary(from, to, "sext", |a| a.sext(from, to), |x| sext_concrete(x, from) as u64);
        }
        for to in 1..=from {
            check_unary(from, to, "trunc", |a| a.trunc(to), |x| x);
        }
    }
}

/// PTX `bfe` as the ISA's pseudo-code writes it.
fn bfe_ref(a: u64, pos: u32, len: u32, signed: bool, bits: u32) -> u64 {
    let msb = bits - 1;
    let (pos, len) = (pos & 0xFF, len & 0xFF);
    let sbit = if signed && len != 0 { (a >> (pos + len - 1).min(msb)) & 1 } else { 0 };
    let mut d = 0u64;
    for i in 0..=msb {
        let bit = if i < len && pos + i <= msb { (a >> (pos + i)) & 1 } else { sbit };
        d |= bit << i;
    }
    d
}

/// PTX `bfi` as the ISA's pseudo-code writes it.
fn bfi_ref(a: u64, b: u64, pos: u32, len: u32, bits: u32) -> u64 {
    let msb = bits - 1;
    let (pos, len) = (pos & 0xFF, len & 0xFF);
    let mut f = b;
    let mut i = 0;
    while i < len && pos + i <= msb {
        f = (f & !(1 << (pos + i))) | (((a >> i) & 1) << (pos + i));
        i += 1;
    }
    f
}

#[test]
fn bfe_bfi_are_sound_exhaustively() {
    let bits = 5;
    for pos in [0u32, 1, 2, 4, 5, 7, 256 + 1] {
        for len in [0u32, 1, 2, 3, 5, 6, 256 + 2] {
            for signed in [false, true] {
                check_unary(
                    bits,
                    bits,
                    "bfe",
                    |a| a.bfe(pos, len, signed, bits),
                    |x| bfe_ref(x, pos, len, signed, bits),
                );
            }
            check_binary(
                bits,
                "bfi",
                |a, b| KnownBits::bfi(a, b, pos, len, bits),
                |x, y| bfi_ref(x, y, pos, len, bits),
            );
        }
    }
}

#[test]
fn concat_and_prmt_are_sound() {
    check_binary(4, "concat", |a, b| KnownBits::concat(a, b, 2, 2), |x, y| (x & 3) | ((y & 3) << 2));
    // prmt on bytes whose bits are a 4-bit pattern repeated: exhaustive over the patterns.
    let spread = |k: KnownBits| KnownBits {
        zero: (k.zero * 0x1111_1111) & 0xFFFF_FFFF,
        one: (k.one * 0x1111_1111) & 0xFFFF_FFFF,
    };
    let prmt_ref = |a: u64, b: u64, sel: u32| -> u64 {
        let bytes = a | (b << 32);
        let mut d = 0u64;
        for n in 0..4 {
            let s = (sel >> (4 * n)) & 0xF;
            let mut byte = (bytes >> ((s & 7) * 8)) & 0xFF;
            if s & 8 != 0 {
                byte = if byte & 0x80 != 0 { 0xFF } else { 0 };
            }
            d |= byte << (8 * n);
        }
        d
    };
    for sel in [0x3210u32, 0x7654, 0x0000, 0x8888, 0xF5A1, 0x4321] {
        for a in all_abstract(4) {
            for b in all_abstract(4) {
                let (sa, sb) = (spread(a), spread(b));
                let r = KnownBits::prmt(sa, sb, sel);
                for x in admitted(a, 4) {
                    for y in admitted(b, 4) {
                        let (cx, cy) = (x * 0x1111_1111, y * 0x1111_1111);
                        let c = prmt_ref(cx, cy, sel);
                        assert!(r.admits(c), "prmt({sa:?}, {sb:?}, {sel:#x}) = {r:?} does not admit {c:#x}");
                    }
                }
            }
        }
    }
    // Identity selector on known inputs is exact.
    let (a, b) = (KnownBits::constant(0x4433_2211, 32), KnownBits::constant(0x8877_6655, 32));
    assert_eq!(KnownBits::prmt(a, b, 0x5410).as_const(32), Some(0x6655_2211));
    assert_eq!(KnownBits::prmt(a, b, 0x0008).as_const(32), Some(0x1111_1100));
}

/// `prmt` with a selector known in part: every result byte admits the byte
/// any admitted nibble selects. Exhaustive over the abstract nibbles (81) and
/// abstract 2-bit patterns repeated through `a` and `b`; each result byte
/// depends on its own nibble only, so bytes are checked nibble by nibble.
#[test]
fn prmt_with_a_partly_known_selector_is_sound_exhaustively() {
    let spread = |k: KnownBits| KnownBits {
        zero: (k.zero * 0x5555_5555) & 0xFFFF_FFFF,
        one: (k.one * 0x5555_5555) & 0xFFFF_FFFF,
    };
    let byte_ref = |a: u64, b: u64, nib: u64| -> u64 {
        let bytes = a | (b << 32);
        let byte = (bytes >> ((nib & 7) * 8)) & 0xFF;
        if nib & 8 == 0 {
            byte
        } else if byte & 0x80 != 0 {
            0xFF
        } else {
            0
        }
    };
    // Different bytes of a and b: a = pattern, b = its complement shifted.
    for a in all_abstract(2) {
        for b in all_abstract(2) {
            let (sa, sb) = (spread(a), spread(b).not(32));
            for s in all_abstract(4) {
                // Nibble n of the selector: s, or s with its bits rotated (so nibbles differ).
                let sel = KnownBits {
                    zero: (s.zero | (s.zero << 4) | (s.one << 8) | (s.zero << 12)) & 0xFFFF,
                    one: (s.one | (s.one << 4) | (s.zero << 8) | (s.one << 12)) & 0xFFFF,
                };
                let r = KnownBits::prmt_known(sa, sb, sel);
                assert!(!r.has_conflict());
                for n in 0..4 {
                    let nib = sel.field(4 * n, 4);
                    let rb = r.field(8 * n, 8);
                    for x in admitted(a, 2) {
                        for y in admitted(b, 2) {
                            let (cx, cy) = (x * 0x5555_5555, !(y * 0x5555_5555) & 0xFFFF_FFFF);
                            for c in admitted(nib, 4) {
                                let want = byte_ref(cx, cy, c);
                                assert!(
                                    rb.admits(want),
                                    "prmt byte {n} of {sa:?}, {sb:?}, {sel:?}: {rb:?} misses {want:#x}"
                                );
                            }
                        }
                    }
                }
                // A constant selector gives what prmt gives.
                if let Some(c) = sel.as_const(16) {
                    assert_eq!(r, KnownBits::prmt(sa, sb, c as u32));
                }
            }
        }
    }
    // An unknown selector over bytes that all share bit 0 keeps it.
    let (a, b) = (KnownBits::constant(0x0101_0101, 32), KnownBits::constant(0x0303_0303, 32));
    let r = KnownBits::prmt_known(a, b, KnownBits::UNKNOWN);
    assert_eq!(r.one, 0, "the sign-replicating nibbles give 0x00 bytes");
    assert_eq!(r.zero, 0xFCFC_FCFC, "bits 2-7 of every byte are 0 in every candidate");
}

/// A small xorshift generator (no dependency).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// An abstract 64-bit value and a concrete value it admits.
    fn pair(&mut self, bits: u32) -> (KnownBits, u64) {
        let density = self.next() % 4;
        let mut known = self.next();
        for _ in 0..density {
            known |= self.next();
        }
        let x = self.next() & mask(bits);
        let known = known & mask(bits);
        (KnownBits { zero: !x & known, one: x & known }, x)
    }
}

#[test]
fn transfer_functions_are_sound_on_random_64_bit_values() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for bits in [64u32, 32, 16] {
        for _ in 0..20_000 {
            let ((a, x), (b, y)) = (rng.pair(bits), rng.pair(bits));
            let s = (rng.next() % u64::from(bits)) as u32;
            let m = mask(bits);
            let cases: [(&str, KnownBits, u64); 11] = [
                ("and", a.and(b), x & y),
                ("or", a.or(b), x | y),
                ("xor", a.xor(b), x ^ y),
                ("add", a.add(b, bits), x.wrapping_add(y) & m),
                ("sub", a.sub(b, bits), x.wrapping_sub(y) & m),
                ("mul", a.mul(b, bits), x.wrapping_mul(y) & m),
                ("shl", a.shl(s, bits), (x << s) & m),
                ("lshr", a.lshr(s, bits), x >> s),
                ("ashr", a.ashr(s, bits), (sext_concrete(x, bits) >> s) as u64 & m),
                ("bfe", a.bfe(s, 14, true, bits), bfe_ref(x, s, 14, true, bits)),
                ("bfi", KnownBits::bfi(a, b, s, 9, bits), bfi_ref(x, y, s, 9, bits) & m),
            ];
            for (name, r, c) in cases {
                assert!(r.admits(c), "{name}({a:?}, {b:?}, s={s}) = {r:?} does not admit {c:#x}");
            }
        }
    }
}

#[test]
fn prmt_with_a_partly_known_selector_is_sound_on_random_values() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let prmt_ref = |a: u64, b: u64, sel: u64| -> u64 {
        let bytes = a | (b << 32);
        (0..4).fold(0u64, |d, n| {
            let s = (sel >> (4 * n)) & 0xF;
            let mut byte = (bytes >> ((s & 7) * 8)) & 0xFF;
            if s & 8 != 0 {
                byte = if byte & 0x80 != 0 { 0xFF } else { 0 };
            }
            d | byte << (8 * n)
        })
    };
    for _ in 0..20_000 {
        let ((a, x), (b, y), (s, sel)) = (rng.pair(32), rng.pair(32), rng.pair(32));
        let r = KnownBits::prmt_known(a, b, s);
        let c = prmt_ref(x, y, sel);
        assert!(r.admits(c), "prmt({a:?}, {b:?}, {s:?}) = {r:?} does not admit {c:#x}");
    }
}

#[test]
fn the_triton_descriptor_decodes() {
    // bfe.u32 %r203, %r21, 4, 14; cvt.u64.u32 %rd330, %r203; or.b64 %rd325, %rd330, 0x4000404000000000
    let addr = KnownBits::UNKNOWN.bfe(4, 14, false, 32);
    let desc = addr.zext(32, 64).or(KnownBits::constant(0x4000_4040_0000_0000, 64));
    assert_eq!(desc.unknown(64), 0x3FFF, "every bit above 13 is known");
    assert_eq!(desc.known_field(61, 3), Some(2), "layout_type SWIZZLE_128B");
    assert_eq!(desc.known_field(46, 3), Some(1), "version 1");
    assert_eq!(desc.known_field(32, 14), Some(64), "SBO 1024 bytes in 16-byte units");
    assert_eq!(desc.known_field(16, 14), Some(0), "LBO");
    assert_eq!(desc.known_field(53, 8), Some(0), "reserved bits 53-60");
    assert_eq!(desc.known_field(0, 14), None, "the start address is run time");
    assert_eq!(desc.field(8, 8), KnownBits { zero: 0xC0, one: 0 }, "bits 14-15 known 0, 8-13 unknown");
}

#[test]
fn odd_widths_do_not_panic() {
    let x = KnownBits { zero: 0xF0, one: 0x0F };
    for bits in [0u32, 1, 63, 64, 65, 200] {
        let _ = (x.bfe(3, 9, true, bits), KnownBits::bfi(x, x, 70, 3, bits), x.sext(bits, bits + 8));
        let _ = (x.shl(bits, 64), x.lshr(bits, 64), x.ashr(bits, 64), x.zext(bits, 64), x.field(bits, 8));
        let _ = (KnownBits::concat(x, x, bits, 8), x.mul(x, bits.clamp(1, 64)), x.alignment(bits));
    }
    assert_eq!(KnownBits::UNKNOWN.enumerate(64, 64), None);
}

#[test]
fn queries() {
    let v = KnownBits::low(12, 6, 32);
    assert_eq!(v.alignment(32), 4);
    assert_eq!(v.low_congruence(32), (12, 6));
    assert_eq!(KnownBits::constant(0, 32).alignment(32), 1 << 32);
    assert_eq!(KnownBits::constant(0, 64).alignment(64), u64::MAX);
    assert_eq!(KnownBits::low(0, 3, 32).enumerate(4, 2), Some(vec![0, 8]));
    assert_eq!(KnownBits::low(0, 3, 32).enumerate(8, 2), None);
    assert_eq!(KnownBits::low(1, 2, 4).enumerate(4, 2), Some(vec![1, 5, 9, 13]));
    assert_eq!(of_constants(&[0x10, 0x30], 8), KnownBits { zero: 0xCF, one: 0x10 });
    assert_eq!(
        KnownBits::concat(KnownBits::constant(0x10, 32), KnownBits::constant(0x8200, 32), 32, 32).as_const(64),
        Some(0x8200_0000_0010)
    );
}

//! Unit tests of the value lattice: transfer functions on sets, known bits and
//! ⊤, widening, queries, the PTX helpers, and random soundness checks.

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
    assert_eq!(c(32).join(&c(48), 32), AbsValue::Set(smallvec::smallvec![32, 48]));
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
    assert_eq!(shl(&c(3), &AbsValue::set([1, 2], 32), 32), AbsValue::Set(smallvec::smallvec![6, 12]));
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
    assert_eq!(add(&AbsValue::set([1, 2], 32), &AbsValue::set([10, 20], 32), 32), AbsValue::set([11, 12, 21, 22], 32));
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
    assert_eq!(partial.field(61, 3, 64).admitted(3, 4).map(|v| v.to_vec()), Some(vec![2, 3]));
    assert_eq!(desc.field(61, 3, 64).admitted(3, 4).map(|v| v.to_vec()), Some(vec![2]));
    assert_eq!(top().field(0, 3, 64).admitted(3, 4).map(|v| v.to_vec()), Some((0..8).collect()));
    assert_eq!(top().admitted(32, 4), None);
    assert_eq!(desc.field(8, 8, 64), AbsValue::Known(KnownBits { zero: 0xC0, one: 0 }));
    // A run-time start address that is 16-byte aligned keeps the low bits too.
    let aligned = bitwise(BitOp::And, &top(), &c(!0xFu64 & 0xFFFF_FFFF), 32);
    assert_eq!(aligned.alignment(32), Some(16));
    assert_eq!(desc.alignment(64), Some(1));
}

/// Triton's next K step adds the descriptor constant instead of OR-ing it:
/// `add.s64 %rd326, %rd330, 0x4000404000000002` (mm_f16_128x128x64.sm100.ptx
/// line 1084). The carry out of the start address can reach bit 14 only.
#[test]
fn triton_descriptor_built_with_add_keeps_bits_15_to_63() {
    let start = zext(&bfe(&top(), &c(4), &c(14), 32, false), 32, 64);
    let desc = add(&start, &AbsValue::constant(0x4000_4040_0000_0002, 64), 64);
    assert_eq!(desc.known_bits(64).map(|k| k.unknown(64)), Some(0x7FFF));
    assert_eq!(desc.known_field(61, 3, 64), Some(2));
    assert_eq!(desc.known_field(46, 3, 64), Some(1));
    assert_eq!(desc.known_field(32, 14, 64), Some(64));
    assert_eq!(desc.known_field(16, 14, 64), Some(0));
    // Without the bfe (an opaque 32-bit value), the carry may reach bit 32.
    let opaque = add(&zext(&top(), 32, 64), &AbsValue::constant(0x4000_4040_0000_0002, 64), 64);
    assert_eq!(opaque.known_field(32, 14, 64), None);
    assert_eq!(opaque.known_field(46, 3, 64), Some(1));
}

#[test]
fn ptx_helpers_on_sets_and_unknown_parameters() {
    // bfe on a set is exact; a signed field sign-extends.
    assert_eq!(bfe(&AbsValue::set([0x1230, 0x4560], 32), &c(4), &c(8), 32, false), AbsValue::set([0x23, 0x56], 32));
    assert_eq!(bfe(&c(0xF0), &c(4), &c(4), 32, true), c(0xFFFF_FFFF));
    // An unknown position: an unsigned 4-bit field still has bits 4 and up 0.
    assert_eq!(bfe(&top(), &top(), &c(4), 32, false), kb(0xFFFF_FFF0, 0));
    assert_eq!(bfe(&top(), &top(), &c(4), 32, true), top());
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
    // An unknown selector over constant bytes: what every candidate byte shares.
    assert_eq!(prmt(&c(0x8080_8080), &c(0x8080_8080), &top()), kb(0, 0x8080_8080), "0x80 or its sign, 0xFF");
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

/// The PTX forms with parameters known in part: `bfe` and `bfi` on the
/// lattice admit the concrete result of every admitted input, with
/// parameters that enumerate (at most 16 values mod 256) and that do not (the
/// fallback). Exhaustive over 3-bit inputs (positions and lengths past the
/// width included) and every abstract low 2 bits of the parameters.
#[test]
fn ptx_forms_with_partly_known_parameters_are_sound() {
    use crate::analysis::knownbits::KnownBits as K;
    let bits = 3;
    let low2: Vec<K> = (0..4u64)
        .flat_map(|zero| (0..4u64).filter(move |one| zero & one == 0).map(move |one| K { zero, one }))
        .collect();
    // Bits 2-7 of a parameter: 0; bit 2 free; bit 3 set; bits 2-6 free (32+ values: the fallback).
    let highs =
        [K { zero: 0xFC, one: 0 }, K { zero: 0xF8, one: 0 }, K { zero: 0xF4, one: 0x08 }, K { zero: 0x80, one: 0 }];
    let params = |h: &[K]| -> Vec<AbsValue> {
        low2.iter()
            .flat_map(|l| {
                h.iter().map(move |h| AbsValue::from_known(K { zero: l.zero | h.zero, one: l.one | h.one }, 32))
            })
            .collect()
    };
    let (few, many) = (params(&highs[..3]), params(&highs[3..]));
    let inputs: Vec<AbsValue> = [K::UNKNOWN, K::constant(0b101, 3), K { zero: 0b010, one: 0b100 }]
        .into_iter()
        .map(|k| AbsValue::from_known(k, bits))
        .collect();
    let members = |v: &AbsValue, w: u32| -> Vec<u64> { (0..(1u64 << w)).filter(|x| v.admits(*x, w)).collect() };
    let check = |pos: &AbsValue, len: &AbsValue| {
        let (ps, ls) = (members(&pos.field(0, 8, 32), 8), members(&len.field(0, 8, 32), 8));
        for a in &inputs {
            for signed in [false, true] {
                let r = bfe(a, pos, len, bits, signed);
                for x in members(a, bits) {
                    for (p, l) in ps.iter().flat_map(|p| ls.iter().map(move |l| (*p as u32, *l as u32))) {
                        let c = K::constant(x, bits).bfe(p, l, signed, bits).one;
                        assert!(r.admits(c, bits), "bfe({a:?}, {pos:?}, {len:?}, signed {signed}) = {r:?} misses {c}");
                    }
                }
            }
            for base in &inputs[..2] {
                let r = bfi(a, base, pos, len, bits);
                for (x, y) in
                    members(a, bits).into_iter().flat_map(|x| members(base, bits).into_iter().map(move |y| (x, y)))
                {
                    for (p, l) in ps.iter().flat_map(|p| ls.iter().map(move |l| (*p as u32, *l as u32))) {
                        let c = K::bfi(K::constant(x, bits), K::constant(y, bits), p, l, bits).one;
                        assert!(r.admits(c, bits), "bfi({a:?}, {base:?}, {pos:?}, {len:?}) = {r:?} misses {c}");
                    }
                }
            }
        }
    };
    for pos in &few {
        for len in &few {
            check(pos, len);
        }
    }
    for (pos, len) in many.iter().flat_map(|m| few.iter().step_by(3).flat_map(move |f| [(m, f), (f, m)])) {
        check(pos, len);
    }
    // The fallback keeps something: an unsigned field of at most 7 bits of a
    // 32-bit value has bits 7 and up 0; bfi at a position of at least 8 keeps
    // the base's low byte.
    let c32 = |x: u64| AbsValue::constant(x, 32);
    let any_pos = AbsValue::Top;
    let len7 = AbsValue::from_known(K { zero: 0xF8, one: 0 }, 32);
    assert_eq!(
        bfe(&AbsValue::Top, &any_pos, &len7, 32, false),
        AbsValue::from_known(K { zero: 0xFFFF_FF80, one: 0 }, 32)
    );
    assert_eq!(bfe(&AbsValue::Top, &any_pos, &len7, 32, true), AbsValue::Top);
    let pos_ge8 = AbsValue::from_known(K { zero: 0, one: 0x08 }, 32);
    let r = bfi(&AbsValue::Top, &c32(0x1234_5678), &pos_ge8, &AbsValue::Top, 32);
    assert_eq!(r, AbsValue::from_known(K { zero: 0x87, one: 0x78 }, 32));
    // prmt with an unknown selector still knows what every byte shares.
    assert_eq!(prmt(&c32(0), &c32(0), &AbsValue::Top), c32(0));
    assert_eq!(
        prmt(&c32(0x1111_1111), &c32(0x2222_2222), &AbsValue::Top),
        AbsValue::from_known(K { zero: 0xCCCC_CCCC, one: 0 }, 32)
    );
}

/// Joining two sets merges them (no sort) exactly as normalizing their
/// concatenation does, and falls back to that for sets that break the
/// invariants (unsorted, unmasked, too many).
#[test]
fn joining_sets_merges_them_as_normalize_would() {
    let set = |v: &[u64]| AbsValue::Set(v.into());
    assert_eq!(set(&[1, 5, 9]).join(&set(&[2, 5, 10]), 32), set(&[1, 2, 5, 9, 10]));
    assert_eq!(set(&[4]).join(&set(&[4]), 32), set(&[4]));
    let wide = set(&[0, 1, 2, 3, 4]).join(&set(&[5, 6, 7, 8]), 32);
    assert_eq!(wide, AbsValue::from_known(KnownBits { zero: !0xF & mask(32), one: 0 }, 32));
    let cases: &[(&[u64], &[u64])] = &[
        (&[1, 5, 9], &[2, 5, 10]),
        (&[0, 1, 2, 3, 4], &[5, 6, 7, 8]),
        (&[3, 1], &[2]),
        (&[7], &[7, 300]),
        (&[0x1_0000_0001], &[1]),
        (&[0, 1, 2, 3, 4, 5, 6, 7, 8], &[9]),
    ];
    for (a, b) in cases {
        for bits in [8, 32, 64] {
            let mut all = a.to_vec();
            all.extend_from_slice(b);
            assert_eq!(
                set(a).join(&set(b), bits),
                AbsValue::Set(all.into()).normalize(bits),
                "{a:?} | {b:?} at {bits}"
            );
        }
    }
}

/// A packed `mov` as one operation ([`crate::analysis::ptxops::pack`]) gives
/// exactly what its expansion `zext(e0) | zext(e1) << w | …` gives, on sets,
/// known bits and ⊤ mixed, for two and four elements.
#[test]
fn pack_equals_its_zext_shl_or_expansion() {
    use crate::analysis::ptxops::pack;
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for round in 0..4_000 {
        let (bits, n) = if round % 2 == 0 { (64, 2) } else { (64, 4) };
        let w = bits / n;
        let elems: Vec<AbsValue> = (0..n)
            .map(|_| {
                let x = next() & mask(w);
                match next() % 5 {
                    0 => AbsValue::constant(x, w),
                    1 => AbsValue::set([x, next(), next()], w),
                    2 => AbsValue::set((0..6).map(|_| next()), w),
                    3 => {
                        let known = next() & next() & mask(w);
                        AbsValue::from_known(KnownBits { zero: !x & known, one: x & known }, w)
                    }
                    _ => AbsValue::Top,
                }
            })
            .collect();
        let mut expanded: Option<AbsValue> = None;
        for (k, e) in elems.iter().enumerate() {
            let z = zext(e, w, bits);
            let part = if k == 0 { z } else { shl(&z, &c(k as u64 * u64::from(w)), bits) };
            expanded = Some(match expanded {
                None => part,
                Some(acc) => bitwise(BitOp::Or, &acc, &part, bits),
            });
        }
        assert_eq!(pack(&elems, bits), expanded.unwrap(), "pack({elems:?})");
    }
    assert_eq!(pack(&[c(1)], 64), top(), "one element");
    assert_eq!(pack(&[c(1), c(2), c(3)], 64), top(), "three elements do not divide 64 bits");
}

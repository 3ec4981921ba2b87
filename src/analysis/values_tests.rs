//! Soundness of the transfer functions issue 24 added: the lane operations
//! (`shfl.sync`, `mapa`), the loop widening of known bits, and the join of
//! call-site values (exhaustive at 5 bits, random at 64).

use super::*;
use crate::analysis::lattice::mask;
use crate::analysis::value::Val;

/// Every abstract value of width `bits` as known bits (each bit 0, 1 or
/// unknown), plus a few sets and ⊤.
fn all_values(bits: u32) -> Vec<AbsValue> {
    let n = 3u64.pow(bits);
    let mut out: Vec<AbsValue> = (0..n)
        .map(|mut k| {
            let (mut zero, mut one) = (0u64, 0u64);
            for b in 0..bits {
                match k % 3 {
                    0 => zero |= 1 << b,
                    1 => one |= 1 << b,
                    _ => {}
                }
                k /= 3;
            }
            AbsValue::from_known(KnownBits { zero, one }, bits)
        })
        .collect();
    out.push(AbsValue::set([1, 6, 17], bits));
    out.push(AbsValue::set([0, 8, 16, 24], bits));
    out.push(AbsValue::Top);
    out
}

fn members(v: &AbsValue, bits: u32) -> Vec<u64> {
    (0..(1u64 << bits)).filter(|x| v.admits(*x, bits)).collect()
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A 64-bit abstract value and a concrete value it admits.
    fn pick(&mut self) -> (AbsValue, u64) {
        let x = self.next();
        let v = match self.next() % 4 {
            0 => AbsValue::constant(x, 64),
            1 => AbsValue::set([x, self.next(), self.next()], 64),
            2 => {
                let known = self.next() & self.next();
                AbsValue::from_known(KnownBits { zero: !x & known, one: x & known }, 64)
            }
            _ => AbsValue::Top,
        };
        (v, x)
    }
}

#[test]
fn lane_ops_are_recognised_by_their_word() {
    assert_eq!(lane_op("shfl.sync.idx.b32"), Some(LaneOp::Shuffle));
    assert_eq!(lane_op("shfl.sync.bfly.b32"), Some(LaneOp::Shuffle));
    assert_eq!(lane_op("mapa.shared::cluster.u32"), Some(LaneOp::MapShared));
    assert_eq!(lane_op("mapa.u64"), Some(LaneOp::MapShared));
    assert_eq!(lane_op("shf.l.wrap.b32"), None);
    assert_eq!(lane_op("mov.b32"), None);
}

/// A shuffle returns some lane's value of its operand: every value the
/// operand admits is admitted by the result (exhaustive at 5 bits, random at
/// 64), and the result is exactly the operand's value.
#[test]
fn shuffle_keeps_its_operands_value() {
    let bits = 5;
    for a in all_values(bits) {
        let r = lane_result(LaneOp::Shuffle, &a, bits, bits);
        assert_eq!(r, a);
        for x in members(&a, bits) {
            assert!(r.admits(x, bits), "shfl({a:?}) = {r:?} misses {x}");
        }
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..20_000 {
        let (a, x) = rng.pick();
        assert!(lane_result(LaneOp::Shuffle, &a, 64, 64).admits(x, 64));
    }
    // A width change is not a shuffle the dataflow models.
    assert_eq!(lane_result(LaneOp::Shuffle, &AbsValue::constant(3, 32), 32, 64), AbsValue::Top);
}

/// `mapa` moves an address to another CTA's window: any multiple of 128
/// bytes may be added (the window bases are aligned at least that much), so
/// the result admits `x + 128 j` for every admitted `x` (exhaustive over the
/// 5-bit low part with 4 window bases, random at 64); and a known alignment
/// up to 128 survives.
#[test]
fn mapa_keeps_the_low_bits_of_the_address() {
    let bits = 5;
    for a in all_values(bits) {
        let r = lane_result(LaneOp::MapShared, &a, bits, 32);
        for x in members(&a, bits) {
            for j in 0..4u64 {
                let moved = x + 128 * j;
                assert!(r.admits(moved, 32), "mapa({a:?}) = {r:?} misses {moved}");
            }
        }
    }
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for _ in 0..20_000 {
        let (a, x) = rng.pick();
        let j = rng.next() << ADDRESS_CAST_KEPT_BITS;
        let r = lane_result(LaneOp::MapShared, &a, 64, 64);
        assert!(r.admits(x.wrapping_add(j), 64), "mapa({a:?}) = {r:?} misses {:#x}", x.wrapping_add(j));
    }
    let aligned = AbsValue::congruence(0, 10, 32);
    assert_eq!(lane_result(LaneOp::MapShared, &aligned, 32, 32), AbsValue::congruence(0, 7, 32));
}

/// The loop widening only forgets: the widened value admits everything the
/// grown value admits (every pair old ⊑ new at 5 bits, random at 64), and it
/// keeps the 32-bit half the carries did not reach.
#[test]
fn widening_only_forgets_and_keeps_the_other_half() {
    let bits = 5;
    let vals = all_values(bits);
    for old in &vals {
        for other in vals.iter().step_by(7) {
            let new = old.join(other, bits);
            let (vo, vn) = (Val::int(old.clone(), bits), Val::int(new.clone(), bits));
            let w = vn.widen_from(&vo).abs();
            for x in members(&new, bits) {
                assert!(w.admits(x, bits), "widen({new:?} from {old:?}) = {w:?} misses {x}");
            }
        }
    }
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    for _ in 0..20_000 {
        let (a, x) = rng.pick();
        let (b, y) = rng.pick();
        let new = a.join(&b, 64);
        let w = Val::int(new.clone(), 64).widen_from(&Val::int(a.clone(), 64)).abs();
        assert!(w.admits(x, 64) && w.admits(y, 64), "widen({new:?} from {a:?}) = {w:?}");
    }
    // CUTLASS's descriptor in the K loop: the start address (bit 1 up) loses
    // a bit to the carry of `+ 2`; the high half (SBO 64, version 1, SW128)
    // stays known, the low half is forgotten from bit 1 up.
    let hi = 0x4000_4040u64 << 32;
    let old = AbsValue::from_known(KnownBits { zero: !hi & !0x3FFE_u64 & !(1 << 16), one: hi | (1 << 16) }, 64);
    let new = AbsValue::from_known(KnownBits { zero: !hi & !0x7FFE_u64 & !(1 << 16), one: hi | (1 << 16) }, 64);
    let w = Val::int(new, 64).widen_from(&Val::int(old, 64)).abs();
    assert_eq!(w.known_field(32, 32, 64), Some(0x4000_4040));
    assert_eq!(w.known_field(0, 1, 64), Some(0));
    assert_eq!(w.known_field(16, 1, 64), None, "the rest of the low half is forgotten");
    // A counter is unknown after one widening, not 28 more trips.
    let c_old = AbsValue::from_known(KnownBits { zero: mask(32) & !0xF, one: 0 }, 32);
    let c_new = AbsValue::from_known(KnownBits { zero: mask(32) & !0x1F, one: 0 }, 32);
    assert_eq!(Val::int(c_new, 32).widen_from(&Val::int(c_old, 32)).abs(), AbsValue::Top);
}

/// The arm of `x == k ? y : x` taken when `x != k` sees `x` without `k`: it
/// still admits every other value of `x` (every set of 5-bit values with up
/// to 3 members, every k), and known bits are left as they are.
#[test]
fn select_arm_refinement_only_removes_the_tested_constant() {
    let bits = 5;
    for a in 0..32u64 {
        for b in 0..32u64 {
            for c in [0u64, 7, 31] {
                let set = AbsValue::set([a, b, c], bits);
                let v = Val::int(set.clone(), bits);
                for k in 0..32u64 {
                    let r = v.without(k).abs();
                    for x in members(&set, bits).into_iter().filter(|x| *x != k) {
                        assert!(r.admits(x, bits), "{set:?} without {k} = {r:?} misses {x}");
                    }
                    assert!(!r.admits(k, bits) || !set.admits(k, bits) && r.admits(k, bits));
                }
            }
        }
    }
    assert_eq!(Val::int(AbsValue::constant(8, 32), 32).without(8), Val::Bottom);
    let kb = Val::int(AbsValue::congruence(0, 4, 32), 32);
    assert_eq!(kb.without(16), kb);
}

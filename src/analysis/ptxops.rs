//! The PTX forms on the lattice: `bfe`, `bfi`, packed `mov` ([`pack()`], [`concat()`]),
//! `prmt` and the address-space conversion of `cvta`. The lowering expands
//! `bfe`/`bfi` with constant position and length into shifts and masks; with a
//! position, length or selector in a register the dataflow calls these
//! functions (through [`crate::ir::OpSemantics`]), which join over the few
//! values a parameter admits and otherwise keep what holds for any value.

use super::knownbits::KnownBits;
use super::lattice::{either_bottom, lift1, lift2, mask, pairwise, AbsValue};
use super::value::Val;
use crate::ir::{access_operands, Function, Module, OpSemantics, Value};

/// The value of an `InstKind::Other` with these semantics and operands, of
/// width `bits` (⊤ when opaque, or when the operands do not fit the form).
pub fn eval(sem: OpSemantics, ops: &[AbsValue], bits: u32) -> AbsValue {
    match (sem, ops) {
        (OpSemantics::Bfe { signed }, [a, pos, len]) => bfe(a, pos, len, bits, signed),
        (OpSemantics::Bfi, [insert, base, pos, len]) => bfi(insert, base, pos, len, bits),
        (OpSemantics::Prmt, [a, b, selector]) if bits == 32 => prmt(a, b, selector),
        (OpSemantics::Pack, _) => pack(ops, bits),
        _ => AbsValue::Top,
    }
}

/// A packed-vector `mov.bN d, {e0, e1, …}` of `bits = N`: the elements, each
/// `N / count` bits wide, lowest first, [`concat()`]-ed in order (⊤ unless
/// there are at least two and they divide the width).
pub fn pack(elems: &[AbsValue], bits: u32) -> AbsValue {
    let n = elems.len() as u32;
    let Some((first, rest)) = elems.split_first() else { return AbsValue::Top };
    if n < 2 || !bits.is_multiple_of(n) || bits > 64 {
        return AbsValue::Top;
    }
    let w = bits / n;
    let mut acc = first.clone();
    for (k, e) in rest.iter().enumerate() {
        acc = concat(&acc, e, (k as u32 + 1) * w, w);
    }
    acc
}

/// Low address bits an address-space conversion keeps (128 bytes, the largest
/// alignment a rule asks for). PTX `cvta` adds or removes the base of a
/// state space's window in the generic address space; the PTX ISA does not
/// say how those bases are aligned, but the alignment declared for a variable
/// (`.shared .align 128`) holds for its generic address too, so the windows
/// are aligned at least that much in practice.
pub const ADDRESS_CAST_KEPT_BITS: u32 = 7;

/// An address-space conversion of an integer address (PTX `cvta.shared`,
/// `cvta.to.shared`): the run of known low bits, up to
/// [`ADDRESS_CAST_KEPT_BITS`], survives; the rest is unknown.
pub fn address_space_cast(a: &AbsValue, to: u32) -> AbsValue {
    let Some(kb) = a.known_bits(64) else {
        return AbsValue::Bottom;
    };
    let (rem, k) = kb.low_congruence(64);
    AbsValue::congruence(rem, k.min(ADDRESS_CAST_KEPT_BITS), to)
}

/// The value of a PTX kernel's parameter `i` (what `ld.param.u64 %rd, [p]`
/// reads; the lowering makes that read the argument itself): `0 mod N` for `.param .u64 .ptr .global .align N p` (the pointer's
/// memory is aligned to N, PTX ISA "Kernel Function Parameter Attributes"),
/// else unknown. A `.ptr` without `.align` (which the ISA assumes 4-byte
/// aligned) stays unknown.
pub(crate) fn kernel_param(f: &Function, i: u32) -> Val {
    match f.param_align.get(i as usize) {
        Some(&a) if a > 1 && a.is_power_of_two() => Val::int(AbsValue::congruence(0, a.trailing_zeros(), 64), 64),
        _ => Val::Top,
    }
}

/// The address (and size) operands of the PTX memory accesses of `f`
/// ([`crate::ir::AccessForm`]), whose values `ptx-access-misaligned` reads.
pub(crate) fn access_roots(m: &Module, f: &Function) -> Vec<Value> {
    let mut out = Vec::with_capacity(f.mem_accesses.len());
    for &(h, word) in &f.mem_accesses {
        let (Some(fm), Some(i)) = (m.op_access(word), f.insts.try_get(h)) else { continue };
        let ops = access_operands(&i.kind);
        // `AccessForm::slots`, without the iterator adapters (once per access).
        let align = match fm.align {
            crate::ir::AccessAlign::Operand(s) => Some(s),
            crate::ir::AccessAlign::Bytes(_) => None,
        };
        for s in [fm.addresses[0], fm.addresses[1], fm.size, align].into_iter().flatten() {
            if let Some(v) = ops.get(s) {
                out.push(*v);
            }
        }
    }
    out
}

/// Most unknown bits a position or length (its low 8 bits, as PTX reads it)
/// may have to be enumerated (16 values).
const MAX_PARAM_UNKNOWN: u32 = 4;

/// Most `(pos, len)` combinations the bit-field helpers enumerate.
const MAX_PARAM_PAIRS: usize = 64;

/// The values a position or length admits mod 256, when at most 16: a set's
/// members, or the admitted values of known low 8 bits.
fn param_values(v: &AbsValue) -> Option<Vec<u32>> {
    let mut out: Vec<u32> = match v {
        AbsValue::Set(s) => s.iter().map(|x| (x & 0xFF) as u32).collect(),
        other => {
            let kb = other.known_bits(64)?.field(0, 8);
            kb.enumerate(8, MAX_PARAM_UNKNOWN)?.into_iter().map(|x| x as u32).collect()
        }
    };
    out.sort_unstable();
    out.dedup();
    Some(out)
}

/// Every `(pos, len)` the two parameters admit, when few.
fn param_pairs(pos: &AbsValue, len: &AbsValue) -> Option<Vec<(u32, u32)>> {
    let (p, l) = (param_values(pos)?, param_values(len)?);
    if p.len() * l.len() > MAX_PARAM_PAIRS {
        return None;
    }
    Some(p.iter().flat_map(|&x| l.iter().map(move |&y| (x, y))).collect())
}

/// The known bits of a parameter's low 8 bits (what PTX reads of it).
fn param_bits(v: &AbsValue) -> Option<KnownBits> {
    Some(v.known_bits(64)?.field(0, 8))
}

/// PTX `bfe.{u,s}{32,64}` on the lattice: the field of `len` bits at `pos` of
/// `a`, zero- or sign-extended ([`KnownBits::bfe`]), joined over every
/// `(pos, len)` the parameters admit when they are few (a set of constants, or
/// known bits with at most 4 unknown among the low 8); a set `a` stays exact.
/// Otherwise an unsigned field still leaves every bit at or above the largest
/// admitted length 0; a signed one is ⊤.
pub fn bfe(a: &AbsValue, pos: &AbsValue, len: &AbsValue, bits: u32, signed: bool) -> AbsValue {
    if a.is_bottom() || pos.is_bottom() || len.is_bottom() {
        return AbsValue::Bottom;
    }
    if let Some(params) = param_pairs(pos, len) {
        return params.into_iter().fold(AbsValue::Bottom, |acc, (p, l)| {
            let one = lift1(
                a,
                bits,
                |x| KnownBits::constant(x, bits).bfe(p, l, signed, bits).one,
                |k| k.bfe(p, l, signed, bits),
            );
            acc.join(&one, bits)
        });
    }
    let Some(l) = param_bits(len) else { return AbsValue::Bottom };
    let max_len = l.umax(8) as u32;
    if signed || max_len >= bits {
        return AbsValue::Top;
    }
    AbsValue::from_known(KnownBits { zero: mask(bits) & !mask(max_len), one: 0 }, bits)
}

/// PTX `bfi.b{32,64}` on the lattice: `base` with the low `len` bits of `insert`
/// at `pos` ([`KnownBits::bfi`]), joined over the few `(pos, len)` the
/// parameters admit. Otherwise the bits below the smallest admitted position,
/// and those at or above the largest `pos + len`, are `base`'s.
pub fn bfi(insert: &AbsValue, base: &AbsValue, pos: &AbsValue, len: &AbsValue, bits: u32) -> AbsValue {
    if pos.is_bottom() || len.is_bottom() || either_bottom(insert, base) {
        return AbsValue::Bottom;
    }
    if let Some(params) = param_pairs(pos, len) {
        return params.into_iter().fold(AbsValue::Bottom, |acc, (p, l)| {
            let one = lift2(
                insert,
                base,
                bits,
                |x, y| Some(KnownBits::bfi(KnownBits::constant(x, bits), KnownBits::constant(y, bits), p, l, bits).one),
                |x, y| KnownBits::bfi(x, y, p, l, bits),
            );
            acc.join(&one, bits)
        });
    }
    let (Some(p), Some(l), Some(b)) = (param_bits(pos), param_bits(len), base.known_bits(bits)) else {
        return AbsValue::Bottom;
    };
    let below = mask((p.umin() as u32).min(bits));
    let first_untouched = p.umax(8) + l.umax(8);
    let above = if first_untouched < u64::from(bits) { mask(bits) & !mask(first_untouched as u32) } else { 0 };
    let keep = below | above;
    AbsValue::from_known(KnownBits { zero: b.zero & keep, one: b.one & keep }, bits)
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

/// PTX `prmt.b32` (default mode) on the lattice: exact per member of a set
/// selector ([`KnownBits::prmt`]); with a selector known in part or not at
/// all, each result byte is the join of the bytes its selector nibble admits
/// ([`KnownBits::prmt_known`]).
pub fn prmt(a: &AbsValue, b: &AbsValue, selector: &AbsValue) -> AbsValue {
    if either_bottom(a, b) || selector.is_bottom() {
        return AbsValue::Bottom;
    }
    if let Some(sels) = selector.members() {
        return sels.iter().fold(AbsValue::Bottom, |acc, &s| {
            let s = s as u32;
            let one = lift2(
                a,
                b,
                32,
                |x, y| Some(KnownBits::prmt(KnownBits::constant(x, 32), KnownBits::constant(y, 32), s).one),
                |x, y| KnownBits::prmt(x, y, s),
            );
            acc.join(&one, 32)
        });
    }
    let (Some(x), Some(y), Some(s)) = (a.known_bits(32), b.known_bits(32), selector.known_bits(32)) else {
        return AbsValue::Bottom;
    };
    AbsValue::from_known(KnownBits::prmt_known(x, y, s), 32)
}

/// PTX operations whose result is a copy of their first operand's value
/// (another thread's, or the same variable's address in another CTA), which
/// the lowering leaves opaque.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaneOp {
    /// `shfl.sync.{up,down,bfly,idx}.b32 d[|p], a, …`: the value of `a` in
    /// some lane of the warp (its own when the source lane is out of range).
    /// What the dataflow knows of `a` holds in every thread, so it holds of
    /// the result: the same set or known bits.
    Shuffle,
    /// `mapa{.shared::cluster}.{u32,u64} d, a, cta`: the address of the same
    /// shared variable in CTA `cta` of the cluster, `a` moved to that CTA's
    /// window; like [`address_space_cast`], its run of known low bits up to
    /// [`ADDRESS_CAST_KEPT_BITS`] survives.
    MapShared,
}

/// The [`LaneOp`] of a PTX instruction word (`shfl.sync.idx.b32`,
/// `mapa.shared::cluster.u32`), if it is one.
pub fn lane_op(word: &str) -> Option<LaneOp> {
    let base = word.split('.').next()?;
    match base {
        "shfl" => Some(LaneOp::Shuffle),
        "mapa" => Some(LaneOp::MapShared),
        _ => None,
    }
}

/// The result of a [`LaneOp`] of width `to` whose first operand, of width
/// `from`, is `a`.
pub fn lane_result(op: LaneOp, a: &AbsValue, from: u32, to: u32) -> AbsValue {
    match op {
        LaneOp::Shuffle if from == to => a.clone(),
        LaneOp::Shuffle => AbsValue::Top,
        LaneOp::MapShared => address_space_cast(a, to),
    }
}

#[cfg(test)]
#[path = "values_tests.rs"]
mod values_tests;

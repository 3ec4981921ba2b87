//! The abstract value of an SSA value in the dataflow (an integer's lattice
//! element, an aggregate of values, ⊥ or ⊤) and the path elements of memory
//! accesses.

use super::lattice::AbsValue;
use crate::ir::{GlobalH, Module};
use std::sync::Arc;

/// Leaves an aggregate value may have before it is treated as unknown.
pub(crate) const MAX_AGG_LEAVES: usize = 256;

/// An abstract SSA value: an integer, an aggregate of values, or unknown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Val {
    /// No value yet / undefined.
    Bottom,
    /// An integer of the given width.
    Int(AbsValue, u8),
    /// Struct, array or vector members.
    Agg(Arc<[Val]>),
    /// Unknown (floats, pointers, anything not modelled).
    Top,
}

impl Val {
    pub(crate) fn int(a: AbsValue, bits: u32) -> Val {
        match a {
            AbsValue::Bottom => Val::Bottom,
            a => Val::Int(a, bits.clamp(1, 64) as u8),
        }
    }

    pub(crate) fn abs(&self) -> AbsValue {
        match self {
            Val::Bottom => AbsValue::Bottom,
            Val::Int(a, _) => a.clone(),
            _ => AbsValue::Top,
        }
    }

    /// An integer read at the width `bits` of the instruction that joins it
    /// (a global's address is tagged 64 bits wide wherever it is used); other
    /// values, and `None` (not an integer instruction), as they are.
    pub(crate) fn retag(self, bits: Option<u32>) -> Val {
        match (self, bits) {
            (Val::Int(a, w), Some(b)) if u32::from(w) != b => Val::int(a.normalize(b), b),
            (v, _) => v,
        }
    }

    pub(crate) fn leaves(&self) -> usize {
        match self {
            Val::Agg(v) => v.iter().map(Val::leaves).sum::<usize>().max(1),
            _ => 1,
        }
    }

    pub(crate) fn agg(v: Vec<Val>) -> Val {
        let val = Val::Agg(v.into());
        if val.leaves() > MAX_AGG_LEAVES {
            Val::Top
        } else {
            val
        }
    }

    pub(crate) fn join(&self, o: &Val) -> Val {
        match (self, o) {
            (Val::Bottom, x) | (x, Val::Bottom) => x.clone(),
            (Val::Int(a, ba), Val::Int(b, bb)) if ba == bb => Val::int(a.join(b, u32::from(*ba)), u32::from(*ba)),
            (Val::Agg(a), Val::Agg(b)) if a.len() == b.len() => {
                Val::Agg(a.iter().zip(b.iter()).map(|(x, y)| x.join(y)).collect())
            }
            _ => Val::Top,
        }
    }

    /// The value with the constant `k` removed, when it is a set of integers
    /// (what an arm taken only when `x != k` sees of `x`); else itself.
    pub(crate) fn without(&self, k: u64) -> Val {
        match self {
            Val::Int(AbsValue::Set(v), w) => {
                let k = k & super::lattice::mask(u32::from(*w));
                let rest: super::lattice::Consts = v.iter().copied().filter(|x| *x != k).collect();
                if rest.is_empty() {
                    Val::Bottom
                } else {
                    Val::Int(AbsValue::Set(rest), *w)
                }
            }
            other => other.clone(),
        }
    }

    /// True when this is (or holds) a known-bits integer.
    pub(crate) fn has_known_bits(&self) -> bool {
        match self {
            Val::Int(AbsValue::Known(_), _) => true,
            Val::Agg(v) => v.iter().any(Val::has_known_bits),
            _ => false,
        }
    }

    /// Widening of a value that grew from `old` to `self`: known bits lose
    /// every known bit from the lowest one this growth lost to the top of its
    /// 32-bit half (a counter `i + 1` becomes unknown at once instead of
    /// losing one high zero per trip; the carries of a 32-bit add never cross
    /// into the other half, so the constant high half of a descriptor advanced
    /// as `mov.b64 %rd, {%lo + step, %hi}` keeps its fields). Sets and other
    /// values are left as they are (a set widens by itself past 8 members).
    pub(crate) fn widen_from(&self, old: &Val) -> Val {
        match (self, old) {
            (Val::Int(AbsValue::Known(kb), bits), Val::Int(o, ob)) if bits == ob => {
                let w = u32::from(*bits);
                let Some(okb) = o.known_bits(w) else { return self.clone() };
                let lost = okb.known() & !kb.known();
                if lost == 0 {
                    return self.clone();
                }
                let p = lost.trailing_zeros();
                let top = (p | 31).min(63);
                let drop = super::lattice::mask(top + 1) & !super::lattice::mask(p);
                let k = super::KnownBits { zero: kb.zero & !drop, one: kb.one & !drop };
                Val::int(AbsValue::from_known(k, w), w)
            }
            (Val::Agg(v), Val::Agg(o)) if v.len() == o.len() => {
                Val::Agg(v.iter().zip(o.iter()).map(|(x, y)| x.widen_from(y)).collect())
            }
            _ => self.clone(),
        }
    }

    /// The member at `path` (`None` elements: any member).
    pub(crate) fn navigate(&self, path: &[PathElem]) -> Val {
        let Some((first, rest)) = path.split_first() else {
            return self.clone();
        };
        match self {
            Val::Bottom => Val::Bottom,
            Val::Agg(v) => match first {
                PathElem::Idx(i) => match usize::try_from(*i).ok().and_then(|i| v.get(i)) {
                    Some(x) => x.navigate(rest),
                    None => Val::Top,
                },
                PathElem::Any => v.iter().fold(Val::Bottom, |acc, x| acc.join(&x.navigate(rest))),
                PathElem::Pending => Val::Bottom,
            },
            _ => Val::Top,
        }
    }
}

/// One index of a memory path, as the dataflow currently knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum PathElem {
    /// A known index.
    Idx(u64),
    /// Any index (unknown or several).
    Any,
    /// Not computed yet.
    Pending,
}

/// The value of a global's address: its low bits known zero when the front
/// end declared an alignment (PTX `.shared .align 16 .b8 smem[]`: `0 mod 16`),
/// else ⊤. Tagged 64 bits wide; a phi or select re-tags it to its own width.
pub(crate) fn global_address(m: &Module, g: GlobalH) -> Val {
    match m.global_alignment(g) {
        Some(a) => Val::int(AbsValue::congruence(0, a.trailing_zeros(), 64), 64),
        None => Val::Top,
    }
}

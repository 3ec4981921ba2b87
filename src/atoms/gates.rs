//! The small gates of seed 002: the SM120 block-scaled lattice, swizzle/offset
//! commutation and TMA rank/mode. None has a seed string; the messages are
//! irlint's own and name the field, its value and what is accepted.

use super::diag::{AtomDiag, AtomRule, Shown};
use super::names::named_enum;
use super::{Suffix, Swizzle, Target};

named_enum! {
    /// An SM120 block-scaled input type.
    Sm120Type { /** FP4. */ E2m1 = "e2m1", /** FP6. */ E3m2 = "e3m2", /** FP6. */ E2m3 = "e2m3", /** FP8. */ E4m3 = "e4m3", /** FP8. */ E5m2 = "e5m2" }
}

named_enum! {
    /// An SM120 scale-factor type.
    ScaleFactorType { /** 8-bit exponent. */ Ue8m0 = "ue8m0", /** Unsigned FP8. */ Ue4m3 = "ue4m3" }
}

/// The seed's `Sm120ScaleParams`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sm120Input {
    /// MMA K (32 or 64; the dense equivalent for `mma.sp`).
    pub k: u32,
    /// A type.
    pub a_type: Sm120Type,
    /// B type.
    pub b_type: Sm120Type,
    /// Scale-factor type.
    pub sf_type: ScaleFactorType,
    /// Elements per scale factor (16 or 32).
    pub scale_vector_size: u32,
    /// Bits of scale data per fragment.
    pub scale_fragment_bits: u32,
}

/// The seed's `verify_sm120_scale_lattice`, in its order. The five types are
/// all FP4/FP6/FP8, so the K = 32 type checks always hold for typed input.
pub fn verify_sm120(p: &Sm120Input) -> Result<(), AtomDiag> {
    let r = AtomRule::Sm120BlockScale;
    let int = |v: u32| Shown::Int(i128::from(v));
    if !matches!(p.scale_vector_size, 16 | 32) {
        return Err(AtomDiag::field(r, "scale_vector_size", int(p.scale_vector_size), "16 or 32"));
    }
    if !matches!(p.k, 32 | 64) {
        return Err(AtomDiag::field(r, "k", int(p.k), "32 or 64"));
    }
    if p.k == 32 {
        if p.sf_type != ScaleFactorType::Ue8m0 {
            return Err(AtomDiag::field(r, "sf_type", Shown::Name(p.sf_type.name()), "ue8m0 when k is 32"));
        }
        if p.scale_vector_size != 32 {
            return Err(AtomDiag::field(r, "scale_vector_size", int(p.scale_vector_size), "32 when k is 32"));
        }
        if p.scale_fragment_bits != 8 {
            return Err(AtomDiag::field(r, "scale_fragment_bits", int(p.scale_fragment_bits), "8 when k is 32"));
        }
        return Ok(());
    }
    if p.a_type != Sm120Type::E2m1 {
        return Err(AtomDiag::field(r, "a_type", Shown::Name(p.a_type.name()), "e2m1 when k is 64"));
    }
    if p.b_type != Sm120Type::E2m1 {
        return Err(AtomDiag::field(r, "b_type", Shown::Name(p.b_type.name()), "e2m1 when k is 64"));
    }
    if u64::from(p.scale_fragment_bits) * u64::from(p.scale_vector_size) != 512 {
        return Err(AtomDiag::field_arg(
            r,
            "scale_fragment_bits",
            int(p.scale_fragment_bits),
            "{} (scale_fragment_bits × scale_vector_size = 512 when k is 64)",
            Shown::Int(512 / i128::from(p.scale_vector_size)),
        ));
    }
    Ok(())
}

/// The closed set of swizzle modes the commutation check knows (on byte
/// addresses): none, 32B, 64B, 128B, 128B with 32-byte atoms. Anything else
/// is rejected, never folded to identity.
pub const KNOWN_SWIZZLES: [Swizzle; 5] =
    [Swizzle::NONE, Swizzle::SW32, Swizzle::SW64, Swizzle::SW128, Swizzle::SW128_BASE32B];

/// The seed's `verify_swizzle_offset_commutation`: `add_offset` and
/// `apply_swizzle` commute for every base address iff the swizzle is the
/// identity or the offset is a multiple of the period `2^(B+M+S)`
/// (ptx-atoms.md §2.6). Returns the period (0 for the identity).
pub fn verify_swizzle_commutation(swizzle: Swizzle, offset: i64) -> Result<u64, AtomDiag> {
    let r = AtomRule::SwizzleCommutation;
    if !KNOWN_SWIZZLES.contains(&swizzle) {
        return Err(AtomDiag::field(
            r,
            "swizzle",
            Shown::Swizzle(swizzle),
            "a known mode: Sw<0,4,3> (none), Sw<1,4,3> (32B), Sw<2,4,3> (64B), Sw<3,4,3> (128B) or Sw<2,5,2> (128B, 32B atoms)",
        ));
    }
    if swizzle.b == 0 {
        return Ok(0);
    }
    // Known swizzles have small periods (at most 1024 bytes).
    let period = swizzle.period().unwrap_or(1024);
    if !offset.unsigned_abs().is_multiple_of(period) {
        return Err(AtomDiag::field_arg(
            r,
            "offset",
            Shown::Int(i128::from(offset)),
            "a multiple of {} bytes (the swizzle period) for the offset to commute with the swizzle",
            Shown::Int(i128::from(period)),
        ));
    }
    Ok(period)
}

named_enum! {
    /// A TMA (`cp.async.bulk.tensor`) load mode.
    TmaMode {
        /// `.tile` (default).
        Tile = "tile",
        /// `.im2col`.
        Im2col = "im2col",
        /// `.im2col::w`.
        Im2colW = "im2col::w",
        /// `.im2col::w::128`.
        Im2colW128 = "im2col::w::128",
        /// `.tile::scatter4`.
        Scatter4 = "tile::scatter4",
        /// `.tile::gather4` (not in the seed; treated like scatter4, D16).
        Gather4 = "tile::gather4",
    }
}

/// The sm_100a/f class that has every Blackwell TMA mode (D18).
const fn blackwell_full(t: Target) -> bool {
    matches!(t.sm, 100 | 101 | 103 | 110) && !matches!(t.suffix, Suffix::None)
}

/// The seed's `verify_tma_rank_and_mode`: rank 1..5; im2col modes rank ≥ 3;
/// scatter4/gather4 rank 2; then the target gates (D18): `im2col::w` and
/// gather4 need sm_100 or later, `im2col::w::128` and scatter4 the
/// sm_100a/f class (100, 101, 103, 110 with `a` or `f`). Returns the rank.
pub fn verify_tma(mode: TmaMode, rank: u32, target: Target) -> Result<u32, AtomDiag> {
    let r = AtomRule::TmaRankMode;
    let int = Shown::Int(i128::from(rank));
    if !(1..=5).contains(&rank) {
        return Err(AtomDiag::field(r, "rank", int, "1 to 5"));
    }
    match mode {
        TmaMode::Im2col | TmaMode::Im2colW | TmaMode::Im2colW128 if rank < 3 => {
            return Err(AtomDiag::field_arg(r, "rank", int, "3 to 5 for mode {}", Shown::Name(mode.name())));
        }
        TmaMode::Scatter4 | TmaMode::Gather4 if rank != 2 => {
            return Err(AtomDiag::field_arg(r, "rank", int, "2 for mode {}", Shown::Name(mode.name())));
        }
        _ => {}
    }
    let ok = match mode {
        TmaMode::Im2colW | TmaMode::Gather4 => target.sm >= 100,
        TmaMode::Im2colW128 | TmaMode::Scatter4 => blackwell_full(target),
        TmaMode::Tile | TmaMode::Im2col => true,
    };
    if !ok {
        let expected = match mode {
            TmaMode::Im2colW | TmaMode::Gather4 => "sm_100 or later for mode {}",
            _ => "sm_100a/f, sm_101a/f, sm_103a/f or sm_110a/f for mode {}",
        };
        return Err(AtomDiag::field_arg(r, "target", Shown::Target(target), expected, Shown::Name(mode.name())));
    }
    Ok(rank)
}

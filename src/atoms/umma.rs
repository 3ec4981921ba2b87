//! The UMMA canonical-layout verifier (seed 002, "UMMA Canonical Layout
//! Verifier"; semantics from CUTLASS `make_umma_desc`, ptx-atoms.md §3.3).
//!
//! The layout is in elements, mode 0 = MN and mode 1 = K for both directions.
//! Everything after the K-size gate is evaluated in 16-byte units.

use super::diag::{AtomDiag, AtomRule, Msg, SeedMsg, Shown};
use super::layout::{elems_per_16b, recast_leaf_16b, Leaf};
use super::names::named_enum;
use super::{Layout, Swizzle};

named_enum! {
    /// Which dimension of the operand is contiguous.
    UmmaDirection { /** MN-major (UMMA_MN): MN has stride 1. */ Mn = "MN", /** K-major (UMMA_K): K has stride 1. */ K = "K" }
}

/// The verifier's inputs.
#[derive(Debug, Clone, Copy)]
pub struct UmmaInput<'a> {
    /// MN- or K-major.
    pub direction: UmmaDirection,
    /// Element width in bits (4, 8, 16, 32).
    pub elem_bits: u32,
    /// The descriptor swizzle, on byte addresses.
    pub swizzle: Swizzle,
    /// The layout in elements: (MN, K).
    pub layout: &'a Layout,
}

/// What the verifier returns on success: `(elem_class, k_size, mn_size)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UmmaShape {
    /// The seed's element class: 0 = 4-bit, 1 = 8-bit, 2 = 16-bit, 3 = 32-bit.
    pub elem_class: u8,
    /// Elements along K (product of mode 1).
    pub k_size: u64,
    /// Elements along MN (product of mode 0).
    pub mn_size: u64,
}

/// The canonical layout type a swizzle selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UmmaLayoutType {
    /// No swizzle (interleaved 8x16-byte core matrices).
    SwizzleNone,
    /// 32-byte swizzle.
    Swizzle32B,
    /// 64-byte swizzle.
    Swizzle64B,
    /// 128-byte swizzle.
    Swizzle128B,
    /// 128-byte swizzle with 32-byte atoms (MN-major only).
    Swizzle128BBase32B,
}

impl UmmaLayoutType {
    /// The atom width W in 16-byte units (the swizzle width / 16 bytes).
    pub const fn width_units(self) -> u64 {
        match self {
            UmmaLayoutType::SwizzleNone => 1,
            UmmaLayoutType::Swizzle32B => 2,
            UmmaLayoutType::Swizzle64B => 4,
            UmmaLayoutType::Swizzle128B | UmmaLayoutType::Swizzle128BBase32B => 8,
        }
    }

    /// The value of the descriptor's layout-type field (bits 61–63).
    pub const fn descriptor_value(self) -> u8 {
        match self {
            UmmaLayoutType::SwizzleNone => 0,
            UmmaLayoutType::Swizzle128BBase32B => 1,
            UmmaLayoutType::Swizzle128B => 2,
            UmmaLayoutType::Swizzle64B => 4,
            UmmaLayoutType::Swizzle32B => 6,
        }
    }
}

/// The seed's accepted swizzle set, with the layout type each selects. The
/// seed's `(0,2,5)` is an identity swizzle (B = 0) and selects no swizzle;
/// `Sw<2,5,2>` is accepted for MN-major only, as in CUTLASS (docs/atoms.md).
pub const fn layout_type(swizzle: Swizzle, direction: UmmaDirection) -> Option<UmmaLayoutType> {
    Some(match (swizzle.b, swizzle.m, swizzle.s) {
        (0, 4, 3) | (0, 2, 5) => UmmaLayoutType::SwizzleNone,
        (1, 4, 3) => UmmaLayoutType::Swizzle32B,
        (2, 4, 3) => UmmaLayoutType::Swizzle64B,
        (3, 4, 3) => UmmaLayoutType::Swizzle128B,
        (2, 5, 2) if matches!(direction, UmmaDirection::Mn) => UmmaLayoutType::Swizzle128BBase32B,
        _ => return None,
    })
}

/// The seed's element-size table: `(per_lane_count, stride_multiplier)`.
/// fp4 is `(4, 8)`; the others `(8, 128 / elem_bits)`.
pub const fn element_class(elem_bits: u32) -> Option<(u8, u32, u32)> {
    Some(match elem_bits {
        4 => (0, 4, 8),
        8 => (1, 8, 16),
        16 => (2, 8, 8),
        32 => (3, 8, 4),
        _ => return None,
    })
}

/// A mode split into its atom part and its leftover ("offset") part, each a
/// single (extent, stride) piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlatSplit {
    /// The first `n` units.
    pub atom: Leaf,
    /// The rest (`1:0` when there is none).
    pub rest: Leaf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SplitError {
    /// A stride not expressible in 16-byte units.
    Recast,
    /// The mode does not split into two single pieces.
    NotFlat,
}

/// Appends a piece to a single-piece accumulator (CuTe `coalesce` of two leaves).
fn push_piece(acc: &mut Option<Leaf>, l: Leaf) -> Result<(), SplitError> {
    match acc {
        None => *acc = Some(l),
        Some(p) => {
            let next = p.shape.checked_mul(p.stride).ok_or(SplitError::NotFlat)?;
            if l.stride != next {
                return Err(SplitError::NotFlat);
            }
            p.shape = p.shape.checked_mul(l.shape).ok_or(SplitError::NotFlat)?;
        }
    }
    Ok(())
}

/// Recasts a mode to 16-byte units and divides it by `n` units (CuTe
/// `logical_divide` by `n:1`): the first `n` units must form one piece, the
/// rest another.
fn split_flat(mode: &[Leaf], per_unit: u64, n: u64) -> Result<FlatSplit, SplitError> {
    let mut need = n;
    let mut atom: Option<Leaf> = None;
    let mut rest: Option<Leaf> = None;
    for l in mode {
        let Some(u) = recast_leaf_16b(*l, per_unit).ok_or(SplitError::Recast)? else { continue };
        if need <= 1 {
            push_piece(&mut rest, u)?;
        } else if u.shape <= need {
            if !need.is_multiple_of(u.shape) {
                return Err(SplitError::NotFlat);
            }
            push_piece(&mut atom, u)?;
            need /= u.shape;
        } else {
            if u.shape % need != 0 {
                return Err(SplitError::NotFlat);
            }
            push_piece(&mut atom, Leaf { shape: need, stride: u.stride })?;
            let stride = u.stride.checked_mul(need).ok_or(SplitError::NotFlat)?;
            push_piece(&mut rest, Leaf { shape: u.shape / need, stride })?;
            need = 1;
        }
    }
    if need > 1 {
        return Err(SplitError::NotFlat);
    }
    let unit = Leaf { shape: 1, stride: 0 };
    Ok(FlatSplit { atom: atom.unwrap_or(unit), rest: rest.unwrap_or(unit) })
}

/// The MN and K splits of a canonical layout (in 16-byte units), for callers
/// that go on to pack a descriptor (LBO/SBO are the `rest` strides).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CanonicalSplit {
    /// The layout type the swizzle selected.
    pub layout_type: UmmaLayoutType,
    /// Mode 0 split.
    pub mn: FlatSplit,
    /// Mode 1 split.
    pub k: FlatSplit,
}

/// Verifies a UMMA operand layout; see [`verify_umma_split`] for the splits.
pub fn verify_umma(input: &UmmaInput<'_>) -> Result<UmmaShape, AtomDiag> {
    verify_umma_split(input).map(|(shape, _)| shape)
}

/// The seed's `verify_umma_canonical_layout`, fail-first: swizzle, element
/// width, rank (2 modes), then per direction the size gate, the flat-offset
/// gate and the stride gate. Returns the seed's `(elem_class, k_size,
/// mn_size)` and the canonical splits.
pub fn verify_umma_split(input: &UmmaInput<'_>) -> Result<(UmmaShape, CanonicalSplit), AtomDiag> {
    let rule = AtomRule::UmmaCanonicalLayout;
    let Some(ty) = layout_type(input.swizzle, input.direction) else {
        return Err(AtomDiag { rule, msg: Msg::UnsupportedSwizzle(input.swizzle) });
    };
    let (Some((elem_class, per_lane_count, _)), Some(per_unit)) =
        (element_class(input.elem_bits), elems_per_16b(input.elem_bits))
    else {
        return Err(AtomDiag::field(rule, "elem_bits", Shown::Int(i128::from(input.elem_bits)), "4, 8, 16 or 32"));
    };
    let layout = input.layout;
    if layout.rank() != 2 {
        return Err(AtomDiag::field(rule, "layout rank", Shown::Int(layout.rank() as i128), "2 (MN, K)"));
    }
    let (mn_mode, k_mode) = (layout.mode(0), layout.mode(1));
    let (mn_size, k_size) = (layout.mode_size(0), layout.mode_size(1));
    let w = ty.width_units();
    let shape = UmmaShape { elem_class, k_size, mn_size };
    let bits = u64::from(input.elem_bits);
    let split = match input.direction {
        UmmaDirection::Mn => {
            if k_size != 256 / bits && k_size != 512 / bits {
                return Err(AtomDiag::seed(SeedMsg::UmmaMnKSize));
            }
            let k_rows = if ty == UmmaLayoutType::Swizzle128BBase32B { 4 } else { 8 };
            let (no_flat, stride) = (SeedMsg::UmmaMnNoFlatOffset, SeedMsg::UmmaMnStride);
            let mn = split_or(mn_mode, per_unit, w, no_flat, stride)?;
            let k = split_or(k_mode, per_unit, k_rows, no_flat, stride)?;
            // The MN atom is unit-stride unless unswizzled; K rows are W units apart.
            if (ty != UmmaLayoutType::SwizzleNone && mn.atom.stride != 1) || k.atom.stride != w {
                return Err(AtomDiag::seed(stride));
            }
            CanonicalSplit { layout_type: ty, mn, k }
        }
        UmmaDirection::K => {
            if mn_size % u64::from(per_lane_count) != 0 {
                return Err(AtomDiag { rule, msg: Msg::MnSizeMultiple(per_lane_count) });
            }
            let (no_flat, stride) = (SeedMsg::UmmaKNoFlatOffset, SeedMsg::UmmaKStride);
            let mn = split_or(mn_mode, per_unit, 8, no_flat, stride)?;
            let k = split_or(k_mode, per_unit, 2, no_flat, stride)?;
            // Core-matrix rows are W units apart; the two K chunks are adjacent unless unswizzled.
            if mn.atom.stride != w || (ty != UmmaLayoutType::SwizzleNone && k.atom.stride != 1) {
                return Err(AtomDiag::seed(stride));
            }
            CanonicalSplit { layout_type: ty, mn, k }
        }
    };
    Ok((shape, split))
}

fn split_or(mode: &[Leaf], per_unit: u64, n: u64, no_flat: SeedMsg, stride: SeedMsg) -> Result<FlatSplit, AtomDiag> {
    split_flat(mode, per_unit, n).map_err(|e| match e {
        SplitError::NotFlat => AtomDiag::seed(no_flat),
        SplitError::Recast => AtomDiag::seed(stride),
    })
}

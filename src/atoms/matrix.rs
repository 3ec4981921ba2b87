//! LDSM/STSM mode tuples, shared↔register matrix copies and register
//! fragments (seed 002, "LDSM and STSM Matrix" and "Shared-Memory Matrix
//! Movement").

use super::diag::{AtomDiag, AtomRule, Shown};
use super::names::named_enum;
use super::Layout;

named_enum! {
    /// An LDSM (`ldmatrix`) mode of the seed's table.
    LdsmMode { /** 8x8, no transpose. */ M88 = "M88", /** 8x8 transposed. */ MT88 = "MT88", /** 8x16 (4/6-bit unpacked to 8-bit). */ M816 = "M816", /** 8x32 (2-bit to 4-bit). */ M832 = "M832", /** 16x16 transposed. */ MT1616 = "MT1616" }
}

named_enum! {
    /// An STSM (`stmatrix`) mode: the seed's two rows plus 16x8 (ptx-atoms.md D14).
    StsmMode { /** 8x8, no transpose. */ M88 = "M88", /** 8x8 transposed. */ MT88 = "MT88", /** 16x8 transposed, 8-bit (`stmatrix.m16n8`). */ MT168 = "MT168" }
}

named_enum! {
    /// An LDSM/STSM size pattern.
    SizePattern {
        /// 16-bit elements.
        U16 = "u16",
        /// 8-bit elements.
        U8 = "u8",
        /// Unsigned 4-bit to 8-bit.
        U4To8 = "u4to8",
        /// Signed 4-bit to 8-bit.
        S4To8 = "s4to8",
        /// Unsigned 2-bit to 4-bit.
        U2To4 = "u2to4",
        /// Signed 2-bit to 4-bit.
        S2To4 = "s2to4",
        /// 16 4-bit values + 64 bits padding, to 8-bit (`.b4x16_p64`).
        U4x16P64To8 = "u4x16p64to8",
        /// 16 6-bit values + 32 bits padding, to 8-bit (`.b6x16_p32`).
        U6x16P32To8 = "u6x16p32to8",
    }
}

named_enum! {
    /// A memory space of a copy operand.
    MemSpace { /** Shared memory. */ Shared = "shared", /** Registers. */ Register = "register", /** Global memory. */ Global = "global", /** Generic address. */ Generic = "generic" }
}

named_enum! {
    /// Direction of a matrix copy.
    CopyDirection { /** Shared to registers (LDSM). */ Load = "load", /** Registers to shared (STSM). */ Store = "store" }
}

/// One row of a mode table.
#[derive(Debug, Clone, Copy)]
pub struct ModeRow {
    /// Accepted matrix counts.
    pub counts: &'static [u32],
    /// The counts as text (for messages).
    pub counts_text: &'static str,
    /// Accepted size patterns.
    pub sizes: &'static [SizePattern],
    /// The sizes as text.
    pub sizes_text: &'static str,
    /// Transpose required (true) or forbidden (false).
    pub transpose: bool,
    /// Registers per matrix (the result extent is `num_matrices × this`).
    pub regs_per_matrix: u64,
}

use SizePattern as Z;
const PACKED: [SizePattern; 2] = [Z::U4x16P64To8, Z::U6x16P32To8];
const C124: &[u32] = &[1, 2, 4];

const ROW_88: ModeRow = ModeRow {
    counts: C124,
    counts_text: "1, 2 or 4",
    sizes: &[Z::U16],
    sizes_text: "u16",
    transpose: false,
    regs_per_matrix: 1,
};
const ROW_T88: ModeRow = ModeRow { transpose: true, ..ROW_88 };

impl LdsmMode {
    /// The seed's table row.
    pub const fn row(self) -> ModeRow {
        match self {
            LdsmMode::M88 => ROW_88,
            LdsmMode::MT88 => ROW_T88,
            LdsmMode::M816 => ModeRow {
                sizes: &[Z::U4To8, Z::S4To8, PACKED[0], PACKED[1]],
                sizes_text: "u4to8, s4to8, u4x16p64to8 or u6x16p32to8",
                ..ROW_88
            },
            LdsmMode::M832 => ModeRow { sizes: &[Z::U2To4, Z::S2To4], sizes_text: "u2to4 or s2to4", ..ROW_88 },
            LdsmMode::MT1616 => ModeRow {
                counts: &[1, 2],
                counts_text: "1 or 2",
                sizes: &[Z::U8, PACKED[0], PACKED[1]],
                sizes_text: "u8, u4x16p64to8 or u6x16p32to8",
                transpose: true,
                regs_per_matrix: 2,
            },
        }
    }
}

impl StsmMode {
    /// The table row (16x8 from ptx-atoms.md D14).
    pub const fn row(self) -> ModeRow {
        match self {
            StsmMode::M88 => ROW_88,
            StsmMode::MT88 => ROW_T88,
            StsmMode::MT168 => ModeRow { sizes: &[Z::U8], sizes_text: "u8", transpose: true, ..ROW_88 },
        }
    }
}

/// The seed's `verify_ldsm_mode` inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatrixTuple<'a, M> {
    /// Mode.
    pub mode: M,
    /// Size pattern.
    pub size: SizePattern,
    /// Number of matrices.
    pub num_matrices: u32,
    /// Transposed.
    pub transpose: bool,
    /// Extents of the result (registers) shape; rank 1 expected.
    pub result_shape: &'a [u64],
}

/// LDSM inputs.
pub type LdsmTuple<'a> = MatrixTuple<'a, LdsmMode>;
/// STSM inputs.
pub type StsmTuple<'a> = MatrixTuple<'a, StsmMode>;

fn check_shape(rule: AtomRule, row: &ModeRow, num: u32, shape: &[u64]) -> Result<u64, AtomDiag> {
    let [extent] = shape else {
        return Err(AtomDiag::field(rule, "result_shape rank", Shown::Int(shape.len() as i128), "1"));
    };
    let want = u64::from(num) * row.regs_per_matrix;
    if *extent != want {
        return Err(AtomDiag::field_arg(
            rule,
            "result_shape[0]",
            Shown::Int(i128::from(*extent)),
            "{} (num_matrices × registers per matrix)",
            Shown::Int(i128::from(want)),
        ));
    }
    Ok(want)
}

fn verify_tuple(
    rule: AtomRule,
    row: ModeRow,
    t: (&'static str, SizePattern, u32, bool, &[u64]),
) -> Result<u64, AtomDiag> {
    let (mode, size, num, transpose, shape) = t;
    if !matches!(num, 1 | 2 | 4) {
        return Err(AtomDiag::field(rule, "num_matrices", Shown::Int(i128::from(num)), "1, 2 or 4"));
    }
    if !row.counts.contains(&num) {
        return Err(AtomDiag::field_arg(
            rule,
            "num_matrices",
            Shown::Int(i128::from(num)),
            "1 or 2 for mode {}",
            Shown::Name(mode),
        ));
    }
    if transpose != row.transpose {
        let expected = if row.transpose { "true for mode {}" } else { "false for mode {}" };
        return Err(AtomDiag::field_arg(
            rule,
            "transpose",
            Shown::Name(if transpose { "true" } else { "false" }),
            expected,
            Shown::Name(mode),
        ));
    }
    if !row.sizes.contains(&size) {
        return Err(AtomDiag::field(rule, "size", Shown::Name(size.name()), row.sizes_text));
    }
    check_shape(rule, &row, num, shape)
}

/// The seed's `verify_ldsm_mode`: matrix count, transpose, size pattern, result
/// rank and extent, in that order. Returns the register count.
pub fn verify_ldsm(t: &LdsmTuple<'_>) -> Result<u64, AtomDiag> {
    verify_tuple(AtomRule::LdsmMode, t.mode.row(), (t.mode.name(), t.size, t.num_matrices, t.transpose, t.result_shape))
}

/// The same checks for STSM modes. Returns the register count.
pub fn verify_stsm(t: &StsmTuple<'_>) -> Result<u64, AtomDiag> {
    verify_tuple(AtomRule::StsmMode, t.mode.row(), (t.mode.name(), t.size, t.num_matrices, t.transpose, t.result_shape))
}

/// The mode of a matrix copy: an LDSM mode for loads, an STSM mode for stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyMode {
    /// `ldmatrix` mode.
    Ldsm(LdsmMode),
    /// `stmatrix` mode.
    Stsm(StsmMode),
}

/// The seed's `verify_matrix_space_copy` inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatrixCopy<'a> {
    /// Load (shared → registers) or store.
    pub direction: CopyDirection,
    /// Source space.
    pub src: MemSpace,
    /// Destination space.
    pub dst: MemSpace,
    /// The atom's mode.
    pub mode: CopyMode,
    /// Number of matrices.
    pub num_matrices: u32,
    /// Extents of the register fragment.
    pub result_shape: &'a [u64],
    /// Largest power of two known to divide the shared address, in bytes.
    pub shared_alignment: u64,
}

/// Row addresses of LDSM/STSM are 16-byte aligned.
pub const SHARED_ALIGNMENT: u64 = 16;

/// The seed's `verify_matrix_space_copy`: memory spaces for the direction,
/// mode/direction agreement, fragment shape, then shared alignment. Returns
/// the register count.
pub fn verify_matrix_copy(c: &MatrixCopy<'_>) -> Result<u64, AtomDiag> {
    let r = AtomRule::MatrixCopy;
    let (src, dst, src_want, dst_want) = match c.direction {
        CopyDirection::Load => (c.src, c.dst, MemSpace::Shared, MemSpace::Register),
        CopyDirection::Store => (c.src, c.dst, MemSpace::Register, MemSpace::Shared),
    };
    if src != src_want {
        let e = if src_want == MemSpace::Shared { "shared for a load" } else { "register for a store" };
        return Err(AtomDiag::field(r, "src", Shown::Name(src.name()), e));
    }
    if dst != dst_want {
        let e = if dst_want == MemSpace::Register { "register for a load" } else { "shared for a store" };
        return Err(AtomDiag::field(r, "dst", Shown::Name(dst.name()), e));
    }
    let row = match (c.direction, c.mode) {
        (CopyDirection::Load, CopyMode::Ldsm(m)) => m.row(),
        (CopyDirection::Store, CopyMode::Stsm(m)) => m.row(),
        (CopyDirection::Load, CopyMode::Stsm(m)) => {
            return Err(AtomDiag::field(r, "mode", Shown::Name(m.name()), "an ldmatrix mode for a load"))
        }
        (CopyDirection::Store, CopyMode::Ldsm(m)) => {
            return Err(AtomDiag::field(r, "mode", Shown::Name(m.name()), "an stmatrix mode for a store"))
        }
    };
    if !row.counts.contains(&c.num_matrices) {
        return Err(AtomDiag::field(r, "num_matrices", Shown::Int(i128::from(c.num_matrices)), row.counts_text));
    }
    let regs = check_shape(r, &row, c.num_matrices, c.result_shape)?;
    if c.shared_alignment == 0 || !c.shared_alignment.is_multiple_of(SHARED_ALIGNMENT) {
        return Err(AtomDiag::field(
            r,
            "shared_alignment",
            Shown::Int(i128::from(c.shared_alignment)),
            "a multiple of 16 bytes (16-byte row addresses)",
        ));
    }
    Ok(regs)
}

/// The seed's `verify_register_fragment`: `register_count` must equal the
/// layout's cosize (one 32-bit register per index). Returns the count.
pub fn verify_register_fragment(layout: &Layout, register_count: u64) -> Result<u64, AtomDiag> {
    let want = layout.cosize();
    if register_count != want {
        return Err(AtomDiag::field_arg(
            AtomRule::RegisterFragment,
            "register_count",
            Shown::Int(i128::from(register_count)),
            "{} (the cosize of the layout)",
            Shown::Int(i128::from(want)),
        ));
    }
    Ok(want)
}

//! # Matrix-atom verifiers (seed 002)
//!
//! Pure, table-driven checks that stop invalid NVIDIA matrix-atom shapes
//! before code generation: LDSM/STSM mode tuples, shared↔register copies,
//! register fragments, UMMA canonical layouts, the tcgen05.mma kind word,
//! the SM120 block-scaled lattice, swizzle/offset commutation and TMA
//! rank/mode gates.
//!
//! Every verifier takes typed inputs and returns `Ok(value)` — the value the
//! seed says it returns (the tcgen05 opcode index, the UMMA
//! `(elem_class, k_size, mn_size)`, …) — or exactly one [`AtomDiag`]: the
//! first failing check in the seed's order, with a stable [`AtomRule`] id and
//! a message that is a verbatim seed string ([`SEED_MESSAGES`]) where the
//! seed has one. No verifier does I/O or allocates.
//!
//! ```
//! use irlint::atoms::{verify_tcgen05, Tcgen05Input};
//! let mut input = Tcgen05Input::new(0x42); // cta_group::2, kind i8
//! let e = verify_tcgen05(&input).unwrap_err();
//! assert_eq!(e.rule.id(), "atom-tcgen05-kind");
//! assert_eq!(e.to_string(), "INT8 type is supported only on arch-conditional variants.");
//! input.is_arch_cond = true;
//! assert_eq!(verify_tcgen05(&input), Ok(10522));
//! ```
//!
//! [`Atom`] and [`verify`] take any of them as one typed record (what
//! `irlint atoms` parses its JSON into, see [`records`]). `docs/atoms.md`
//! lists every place where the implementation departs from the literal seed.

pub mod cli;
mod common;
pub mod diag;
pub mod gates;
pub mod layout;
pub mod matrix;
mod names;
pub mod records;

pub mod tcgen05;
pub mod umma;

pub use common::{Suffix, Swizzle, Target};
pub use diag::{AtomDiag, AtomRule, Msg, SeedMsg, Shown, SEED_MESSAGES};
pub use gates::{
    verify_sm120, verify_swizzle_commutation, verify_tma, ScaleFactorType, Sm120Input, Sm120Type, TmaMode,
};
pub use layout::{IntTuple, Layout, LayoutError, Leaf};
pub use matrix::{
    verify_ldsm, verify_matrix_copy, verify_register_fragment, verify_stsm, CopyDirection, CopyMode, LdsmMode,
    LdsmTuple, MatrixCopy, MemSpace, SizePattern, StsmMode, StsmTuple,
};
pub use tcgen05::{verify_tcgen05, KindWord, MmaKind, OperandForm, ScaleVec, Tcgen05Input};
pub use umma::{verify_umma, UmmaDirection, UmmaInput, UmmaShape};

/// One atom to verify, as a typed record.
#[derive(Debug, Clone, Copy)]
pub enum Atom<'a> {
    /// [`verify_ldsm`].
    Ldsm(LdsmTuple<'a>),
    /// [`verify_stsm`].
    Stsm(StsmTuple<'a>),
    /// [`verify_matrix_copy`].
    MatrixCopy(MatrixCopy<'a>),
    /// [`verify_register_fragment`].
    RegisterFragment {
        /// The fragment layout.
        layout: &'a Layout,
        /// Registers the atom uses.
        register_count: u64,
    },
    /// [`verify_umma`].
    Umma(UmmaInput<'a>),
    /// [`verify_tcgen05`].
    Tcgen05(Tcgen05Input),
    /// [`verify_sm120`].
    Sm120(Sm120Input),
    /// [`verify_swizzle_commutation`].
    SwizzleCommutation {
        /// The swizzle.
        swizzle: Swizzle,
        /// Byte offset.
        offset: i64,
    },
    /// [`verify_tma`].
    Tma {
        /// Load mode.
        mode: TmaMode,
        /// Tensor rank.
        rank: u32,
        /// Target.
        target: Target,
    },
}

/// What a verifier returns on success.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomValue {
    /// Registers of the fragment (LDSM/STSM, matrix copy, register fragment).
    Registers(u64),
    /// The tcgen05 opcode index (10521..=10530).
    Opcode(u32),
    /// The UMMA `(elem_class, k_size, mn_size)`.
    Umma(UmmaShape),
    /// The swizzle period in bytes (0 for the identity).
    Period(u64),
    /// The TMA rank.
    Rank(u32),
    /// Nothing to report (SM120).
    Unit,
}

impl Atom<'_> {
    /// The `verifier` name of the record format (`ldsm`, `umma-layout`, …).
    pub const fn verifier(&self) -> &'static str {
        match self {
            Atom::Ldsm(_) => "ldsm",
            Atom::Stsm(_) => "stsm",
            Atom::MatrixCopy(_) => "matrix-copy",
            Atom::RegisterFragment { .. } => "register-fragment",
            Atom::Umma(_) => "umma-layout",
            Atom::Tcgen05(_) => "tcgen05-kind",
            Atom::Sm120(_) => "sm120-block-scale",
            Atom::SwizzleCommutation { .. } => "swizzle-commutation",
            Atom::Tma { .. } => "tma",
        }
    }
}

/// Runs the verifier of one atom.
#[inline]
pub fn verify(atom: &Atom<'_>) -> Result<AtomValue, AtomDiag> {
    match atom {
        Atom::Ldsm(t) => verify_ldsm(t).map(AtomValue::Registers),
        Atom::Stsm(t) => verify_stsm(t).map(AtomValue::Registers),
        Atom::MatrixCopy(c) => verify_matrix_copy(c).map(AtomValue::Registers),
        Atom::RegisterFragment { layout, register_count } => {
            verify_register_fragment(layout, *register_count).map(AtomValue::Registers)
        }
        Atom::Umma(u) => verify_umma(u).map(AtomValue::Umma),
        Atom::Tcgen05(t) => verify_tcgen05(t).map(AtomValue::Opcode),
        Atom::Sm120(s) => verify_sm120(s).map(|()| AtomValue::Unit),
        Atom::SwizzleCommutation { swizzle, offset } => {
            verify_swizzle_commutation(*swizzle, *offset).map(AtomValue::Period)
        }
        Atom::Tma { mode, rank, target } => verify_tma(*mode, *rank, *target).map(AtomValue::Rank),
    }
}

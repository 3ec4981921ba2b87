//! The one diagnostic a verifier returns: a stable rule id plus a message that
//! is either a verbatim seed string ([`SEED_MESSAGES`]) or irlint's own wording.
//!
//! Building an [`AtomDiag`] never allocates: the message is kept as data and
//! rendered by `Display` (or [`AtomDiag::message`]) only when someone asks.

use std::fmt;

/// The rule ids of the atom verifiers (stable; `irlint explain` documents each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AtomRule {
    /// LDSM (`ldmatrix`) mode tuple.
    LdsmMode,
    /// STSM (`stmatrix`) mode tuple.
    StsmMode,
    /// Shared↔register copy: direction, fragment shape, alignment.
    MatrixCopy,
    /// Register count against the layout's cosize.
    RegisterFragment,
    /// UMMA canonical shared-memory layout.
    UmmaCanonicalLayout,
    /// tcgen05.mma kind word (the 13-rule ladder).
    Tcgen05Kind,
    /// SM120 block-scaled MMA lattice.
    Sm120BlockScale,
    /// Swizzle/offset commutation.
    SwizzleCommutation,
    /// TMA rank and load mode.
    TmaRankMode,
}

impl AtomRule {
    /// Every atom rule, in documentation order.
    pub const ALL: [AtomRule; 9] = [
        AtomRule::LdsmMode,
        AtomRule::StsmMode,
        AtomRule::MatrixCopy,
        AtomRule::RegisterFragment,
        AtomRule::UmmaCanonicalLayout,
        AtomRule::Tcgen05Kind,
        AtomRule::Sm120BlockScale,
        AtomRule::SwizzleCommutation,
        AtomRule::TmaRankMode,
    ];

    /// The stable kebab-case id (`atom-tcgen05-kind`).
    pub const fn id(self) -> &'static str {
        match self {
            AtomRule::LdsmMode => "atom-ldsm-mode",
            AtomRule::StsmMode => "atom-stsm-mode",
            AtomRule::MatrixCopy => "atom-matrix-copy",
            AtomRule::RegisterFragment => "atom-register-fragment",
            AtomRule::UmmaCanonicalLayout => "atom-umma-canonical-layout",
            AtomRule::Tcgen05Kind => "atom-tcgen05-kind",
            AtomRule::Sm120BlockScale => "atom-sm120-block-scale",
            AtomRule::SwizzleCommutation => "atom-swizzle-commutation",
            AtomRule::TmaRankMode => "atom-tma-rank-mode",
        }
    }
}

impl fmt::Display for AtomRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// A verbatim string of seed 002. The byte content is a contract: test suites
/// match these messages by string ("colletor" and the rule-6 comma included).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SeedMsg {
    /// UMMA: `unsupported swizzle, got ` (followed by the swizzle).
    UmmaUnsupportedSwizzle,
    /// UMMA MN-major K-size.
    UmmaMnKSize,
    /// UMMA MN-major flatness.
    UmmaMnNoFlatOffset,
    /// UMMA MN-major strides.
    UmmaMnStride,
    /// UMMA K-major MN-size (followed by the number and `.`).
    UmmaKMnMultiple,
    /// UMMA K-major flatness.
    UmmaKNoFlatOffset,
    /// UMMA K-major strides.
    UmmaKStride,
    /// tcgen05 ladder rule 1.
    Tcgen05Rule1,
    /// Rule 2.
    Tcgen05Rule2,
    /// Rule 3.
    Tcgen05Rule3,
    /// Rule 4.
    Tcgen05Rule4,
    /// Rule 5.
    Tcgen05Rule5,
    /// Rule 6.
    Tcgen05Rule6,
    /// Rule 7.
    Tcgen05Rule7,
    /// Rule 8.
    Tcgen05Rule8,
    /// Rule 9.
    Tcgen05Rule9,
    /// Rule 10.
    Tcgen05Rule10,
    /// Rule 11.
    Tcgen05Rule11,
    /// Rule 12.
    Tcgen05Rule12,
    /// Rule 13.
    Tcgen05Rule13,
}

/// Every seed string, byte for byte, with its rule. `docs/diagnostics.md`
/// lists the same strings and a test compares them.
pub const SEED_MESSAGES: [(SeedMsg, AtomRule, &str); 20] = [
    (SeedMsg::UmmaUnsupportedSwizzle, AtomRule::UmmaCanonicalLayout, "unsupported swizzle, got "),
    (
        SeedMsg::UmmaMnKSize,
        AtomRule::UmmaCanonicalLayout,
        "Not a canonical UMMA_MN Layout: Expected K-size 256/sizeof_bits<T> or 512/sizeof_bits(T) in sparse gemm kernels.",
    ),
    (SeedMsg::UmmaMnNoFlatOffset, AtomRule::UmmaCanonicalLayout, "Not a canonical UMMA_MN Layout: No flat offset mode"),
    (SeedMsg::UmmaMnStride, AtomRule::UmmaCanonicalLayout, "Not a canonical UMMA_MN Layout: Expected stride failure."),
    (
        SeedMsg::UmmaKMnMultiple,
        AtomRule::UmmaCanonicalLayout,
        "Not a canonical UMMA_K Layout: Expected MN-size multiple of ",
    ),
    (SeedMsg::UmmaKNoFlatOffset, AtomRule::UmmaCanonicalLayout, "Not a canonical UMMA_K Layout: No flat offset mode"),
    (SeedMsg::UmmaKStride, AtomRule::UmmaCanonicalLayout, "Not a canonical UMMA_K Layout: Expected stride failure."),
    (SeedMsg::Tcgen05Rule1, AtomRule::Tcgen05Kind, "INT8 type is supported only on arch-conditional variants."),
    (
        SeedMsg::Tcgen05Rule2,
        AtomRule::Tcgen05Kind,
        "MXF4 and MXF4NVF4 types with Sparsity are supported only on arch-conditional variants.",
    ),
    (
        SeedMsg::Tcgen05Rule3,
        AtomRule::Tcgen05Kind,
        "Explicit scale vector size is supported only on arch-conditional variants.",
    ),
    (SeedMsg::Tcgen05Rule4, AtomRule::Tcgen05Kind, "Scale input accumulator is not supported on this architecture."),
    (SeedMsg::Tcgen05Rule5, AtomRule::Tcgen05Kind, "Scale input accumulator can only be used with f16 and tf32 types"),
    (SeedMsg::Tcgen05Rule6, AtomRule::Tcgen05Kind, "Block scale is not supported for f16, tf32, f8f6f4, and i8 types"),
    (SeedMsg::Tcgen05Rule7, AtomRule::Tcgen05Kind, "ashift is not supported with tcgen05.mma.block_scale variants"),
    (SeedMsg::Tcgen05Rule8, AtomRule::Tcgen05Kind, "cta_group::2 is not supported with weight stationary"),
    (SeedMsg::Tcgen05Rule9, AtomRule::Tcgen05Kind, "Cannot use weight stationary with mxf8f6f4 and fp4 types"),
    (SeedMsg::Tcgen05Rule10, AtomRule::Tcgen05Kind, "Cannot use collector::a::use or colletor::a::fill with ashift"),
    (SeedMsg::Tcgen05Rule11, AtomRule::Tcgen05Kind, "Cannot use 2X or 4X as scale vector size for mxf8f6f4 type"),
    (SeedMsg::Tcgen05Rule12, AtomRule::Tcgen05Kind, "Cannot use 1X as scale vector size for mxf4nvf4 type"),
    (SeedMsg::Tcgen05Rule13, AtomRule::Tcgen05Kind, "Cannot use 1X or 4X as scale vector size for mxf4 type"),
];

impl SeedMsg {
    /// The verbatim text.
    pub const fn text(self) -> &'static str {
        SEED_MESSAGES[self as usize].2
    }

    /// The rule the string belongs to.
    pub const fn rule(self) -> AtomRule {
        SEED_MESSAGES[self as usize].1
    }

    /// The tcgen05 ladder string of rule `n` (1..=13).
    pub const fn tcgen05_rule(n: u8) -> Option<SeedMsg> {
        if n == 0 || n > 13 {
            return None;
        }
        Some(SEED_MESSAGES[SeedMsg::Tcgen05Rule1 as usize + n as usize - 1].0)
    }
}

/// A value named in one of irlint's own messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// A number.
    Int(i128),
    /// A name (mode, type, target suffix...).
    Name(&'static str),
    /// A bit pattern, shown in hex.
    Hex(u64),
    /// A swizzle, shown as CuTe prints it (`Sw<3,4,3>`).
    Swizzle(super::Swizzle),
    /// A target (`sm_100a`).
    Target(super::Target),
}

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shown::Int(v) => write!(f, "{v}"),
            Shown::Name(s) => f.write_str(s),
            Shown::Hex(v) => write!(f, "{v:#x}"),
            Shown::Swizzle(s) => write!(f, "{s}"),
            Shown::Target(t) => write!(f, "{t}"),
        }
    }
}

/// The message of an [`AtomDiag`], kept as data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Msg {
    /// A seed string as is.
    Seed(SeedMsg),
    /// `unsupported swizzle, got ` followed by the swizzle (`Sw<B,M,S>`).
    UnsupportedSwizzle(super::Swizzle),
    /// `…Expected MN-size multiple of ` followed by the number and `.`.
    MnSizeMultiple(u32),
    /// irlint's own wording: "`{field}` is {value}, expected {expected}".
    Field {
        /// The offending input field.
        field: &'static str,
        /// Its value.
        value: Shown,
        /// What is accepted (may name another field's value with `{}`).
        expected: &'static str,
        /// A value interpolated into `expected` at `{}` (for computed expectations).
        arg: Option<Shown>,
    },
}

/// A verifier's one diagnostic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AtomDiag {
    /// The rule that fired.
    pub rule: AtomRule,
    /// The message.
    pub msg: Msg,
}

impl AtomDiag {
    /// A seed-string diagnostic (the rule is the string's own).
    pub const fn seed(m: SeedMsg) -> Self {
        AtomDiag { rule: m.rule(), msg: Msg::Seed(m) }
    }

    /// An own-wording diagnostic with a fixed expectation.
    pub const fn field(rule: AtomRule, field: &'static str, value: Shown, expected: &'static str) -> Self {
        AtomDiag { rule, msg: Msg::Field { field, value, expected, arg: None } }
    }

    /// An own-wording diagnostic whose expectation has one computed value (`{}`).
    pub const fn field_arg(
        rule: AtomRule,
        field: &'static str,
        value: Shown,
        expected: &'static str,
        arg: Shown,
    ) -> Self {
        AtomDiag { rule, msg: Msg::Field { field, value, expected, arg: Some(arg) } }
    }

    /// The seed string this diagnostic uses, if any.
    pub fn seed_msg(&self) -> Option<SeedMsg> {
        match self.msg {
            Msg::Seed(m) => Some(m),
            Msg::UnsupportedSwizzle(_) => Some(SeedMsg::UmmaUnsupportedSwizzle),
            Msg::MnSizeMultiple(_) => Some(SeedMsg::UmmaKMnMultiple),
            Msg::Field { .. } => None,
        }
    }

    /// The rendered message (allocates; the verifiers themselves never call it).
    pub fn message(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for AtomDiag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.msg {
            Msg::Seed(m) => f.write_str(m.text()),
            Msg::UnsupportedSwizzle(s) => write!(f, "{}{s}", SeedMsg::UmmaUnsupportedSwizzle.text()),
            Msg::MnSizeMultiple(n) => write!(f, "{}{n}.", SeedMsg::UmmaKMnMultiple.text()),
            Msg::Field { field, value, expected, arg } => {
                write!(f, "`{field}` is {value}, expected ")?;
                match (arg, expected.split_once("{}")) {
                    (Some(a), Some((pre, post))) => write!(f, "{pre}{a}{post}"),
                    _ => f.write_str(expected),
                }
            }
        }
    }
}

impl std::error::Error for AtomDiag {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_indexed_by_discriminant() {
        for (i, (m, _, _)) in SEED_MESSAGES.iter().enumerate() {
            assert_eq!(*m as usize, i);
        }
        assert_eq!(
            SeedMsg::tcgen05_rule(10).map(|m| m.text()),
            Some("Cannot use collector::a::use or colletor::a::fill with ashift")
        );
        assert_eq!(SeedMsg::tcgen05_rule(14), None);
    }
}

//! The tcgen05.mma kind-word verifier: the seed's 13-rule ladder, fail-first,
//! with the field meanings of ptx-atoms.md §2.1 (D1–D4, D8):
//!
//! | bits | field |
//! |---|---|
//! | 0 | ws (weight stationary) |
//! | 1 | cta_group::2 |
//! | 2–3 | scale vector: 0 not given, 1 = 1X, 2 = 2X, 3 = 4X |
//! | 4 | scale_input_acc |
//! | 5 | block_scale |
//! | 6–8 | mma_kind (the seed's numbers: 0 mxf4nvf4, 1 i8, 2 mxf8f6f4, 3 f16, 4 tf32, 5 f8f6f4, 7 mxf4) |
//!
//! Sparsity is a separate input (D4). The collector word: bit 2 = ashift,
//! bits 0–1 = collector::a mode (1 lastuse, 2 fill, 3 use).

use super::diag::{AtomDiag, AtomRule, SeedMsg, Shown};
use super::names::named_enum;
use super::Target;

named_enum! {
    /// The seed's `mma_kind` values (bits 6–8).
    MmaKind {
        /// 0: NVFP4 with block scale.
        Mxf4nvf4 = "mxf4nvf4",
        /// 1: 8-bit integer.
        I8 = "i8",
        /// 2: OCP MX FP8/FP6/FP4.
        Mxf8f6f4 = "mxf8f6f4",
        /// 3: half precision.
        F16 = "f16",
        /// 4: TensorFloat-32.
        Tf32 = "tf32",
        /// 5: FP8/FP6/FP4 without block scale.
        F8f6f4 = "f8f6f4",
        /// 7: OCP MX FP4.
        Mxf4 = "mxf4",
    }
}

impl MmaKind {
    /// Decodes the 3-bit field (6 has no kind).
    pub const fn from_bits(v: u16) -> Option<MmaKind> {
        Some(match v {
            0 => MmaKind::Mxf4nvf4,
            1 => MmaKind::I8,
            2 => MmaKind::Mxf8f6f4,
            3 => MmaKind::F16,
            4 => MmaKind::Tf32,
            5 => MmaKind::F8f6f4,
            7 => MmaKind::Mxf4,
            _ => return None,
        })
    }

    /// The 3-bit field value.
    pub const fn bits(self) -> u16 {
        match self {
            MmaKind::Mxf4nvf4 => 0,
            MmaKind::I8 => 1,
            MmaKind::Mxf8f6f4 => 2,
            MmaKind::F16 => 3,
            MmaKind::Tf32 => 4,
            MmaKind::F8f6f4 => 5,
            MmaKind::Mxf4 => 7,
        }
    }
}

named_enum! {
    /// A scale-vector size.
    ScaleVec { /** 1X. */ X1 = "1X", /** 2X. */ X2 = "2X", /** 4X. */ X4 = "4X" }
}

/// The 9-bit kind word, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KindWord {
    /// Bit 0.
    pub ws: bool,
    /// Bit 1.
    pub cta_group_2: bool,
    /// Bits 2–3 (`None` = not given).
    pub scale_vec: Option<ScaleVec>,
    /// Bit 4.
    pub scale_input_acc: bool,
    /// Bit 5.
    pub block_scale: bool,
    /// Bits 6–8.
    pub kind: MmaKind,
}

impl KindWord {
    /// Decodes a raw word; errors name the offending field.
    pub fn decode(raw: u16) -> Result<KindWord, AtomDiag> {
        let r = AtomRule::Tcgen05Kind;
        if raw > 0x1FF {
            return Err(AtomDiag::field(r, "raw", Shown::Hex(u64::from(raw)), "a 9-bit word (at most 0x1ff)"));
        }
        let Some(kind) = MmaKind::from_bits(raw >> 6) else {
            return Err(AtomDiag::field(
                r,
                "mma_kind (raw bits 6-8)",
                Shown::Int(i128::from(raw >> 6)),
                "0-5 or 7 (6 is not a kind)",
            ));
        };
        Ok(KindWord {
            ws: raw & 1 != 0,
            cta_group_2: raw & 2 != 0,
            scale_vec: match (raw >> 2) & 3 {
                0 => None,
                1 => Some(ScaleVec::X1),
                2 => Some(ScaleVec::X2),
                _ => Some(ScaleVec::X4),
            },
            scale_input_acc: raw & 0x10 != 0,
            block_scale: raw & 0x20 != 0,
            kind,
        })
    }

    /// The raw word.
    pub const fn raw(self) -> u16 {
        let sv = match self.scale_vec {
            None => 0,
            Some(ScaleVec::X1) => 1,
            Some(ScaleVec::X2) => 2,
            Some(ScaleVec::X4) => 3,
        };
        (self.ws as u16)
            | (self.cta_group_2 as u16) << 1
            | sv << 2
            | (self.scale_input_acc as u16) << 4
            | (self.block_scale as u16) << 5
            | self.kind.bits() << 6
    }
}

/// Collector word: ashift.
pub const COLLECTOR_ASHIFT: u8 = 4;
/// Collector word: `collector::a::fill` or `::use` (mode 2 or 3).
pub const COLLECTOR_A_USE_OR_FILL: u8 = 2;

/// The A operand and trailing operands, which pick the opcode within its
/// block-scale / plain group (ptx-atoms.md §2.1, D9; a convention).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OperandForm {
    /// No trailing vector operands (the raw-word default).
    #[default]
    Plain,
    /// `disable-output-lane` with 4 registers (cta_group::1).
    DisableOutputLane4,
    /// `disable-output-lane` with 8 registers (cta_group::2).
    DisableOutputLane8,
    /// `.ws` with `zero-column-mask-desc`.
    WsZeroColumnMask,
}

/// The verifier's inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tcgen05Input {
    /// The raw 9-bit kind word.
    pub raw: u16,
    /// The collector word (bit 2 ashift; bits 0–1 collector::a mode).
    pub collector: u8,
    /// `.sp`.
    pub sparse: bool,
    /// The opcode is a block-scale opcode (rule 7); normally the word's bit 5.
    pub block_scale_opcode: bool,
    /// Arch-conditional variant (`a` target).
    pub is_arch_cond: bool,
    /// The target (rule 1's SM set, rule 4's scale-input-d set).
    pub isa: Target,
    /// A in tensor memory (`[a-tmem]`) rather than a descriptor.
    pub a_tmem: bool,
    /// Trailing operands (opcode column).
    pub form: OperandForm,
    /// The scale vector `.block16`/`.block32` stand for when the word's field
    /// is 0; `None` = the kind's default (mxf8f6f4 1X, mxf4 2X, mxf4nvf4 1X, D8).
    pub implicit_scale_vec: Option<ScaleVec>,
}

impl Tcgen05Input {
    /// Inputs with the defaults of `irlint atoms`: collector 0, not sparse,
    /// block-scale opcode from bit 5, not arch-conditional, `sm_100a`.
    pub const fn new(raw: u16) -> Tcgen05Input {
        Tcgen05Input {
            raw,
            collector: 0,
            sparse: false,
            block_scale_opcode: raw & 0x20 != 0,
            is_arch_cond: false,
            isa: Target::new(100, super::Suffix::A),
            a_tmem: false,
            form: OperandForm::Plain,
            implicit_scale_vec: None,
        }
    }
}

/// First opcode index of the range.
pub const OPCODE_BASE: u32 = 10521;

/// The opcode for a word that passed the ladder: 10521 (block scale) or
/// 10522 (plain) with an A descriptor, +5 with A in tensor memory; the
/// trailing-operand forms take 10523..10525 / 10528..10530.
pub const fn select_opcode(block_scale: bool, a_tmem: bool, form: OperandForm) -> u32 {
    let column = if block_scale {
        0
    } else {
        match form {
            OperandForm::Plain => 1,
            OperandForm::DisableOutputLane4 => 2,
            OperandForm::DisableOutputLane8 => 3,
            OperandForm::WsZeroColumnMask => 4,
        }
    };
    OPCODE_BASE + if a_tmem { 5 } else { 0 } + column
}

fn fire(rule: u8) -> AtomDiag {
    match SeedMsg::tcgen05_rule(rule) {
        Some(m) => AtomDiag::seed(m),
        None => AtomDiag::seed(SeedMsg::Tcgen05Rule1),
    }
}

/// The ladder rule (1..=13) that fires first, or 0.
pub fn ladder(w: &KindWord, i: &Tcgen05Input) -> u8 {
    use MmaKind::*;
    let k = w.kind;
    let ashift = i.collector & COLLECTOR_ASHIFT != 0;
    let sm = i.isa.sm;
    let isa_af = !matches!(i.isa.suffix, super::Suffix::None);
    // Effective scale vector for rules 11-13 (D8).
    let eff = match (w.scale_vec, i.implicit_scale_vec) {
        (Some(v), _) | (None, Some(v)) => v,
        (None, None) => match k {
            Mxf4 => ScaleVec::X2,
            _ => ScaleVec::X1,
        },
    };
    if k == I8 && !(i.is_arch_cond && matches!(sm, 100 | 101 | 110)) {
        1
    } else if matches!(k, Mxf4nvf4 | Mxf4) && i.sparse && !i.is_arch_cond {
        2
    } else if w.scale_vec.is_some() && !i.is_arch_cond {
        3
    } else if w.scale_input_acc && !(isa_af && matches!(sm, 100 | 103 | 107)) {
        4
    } else if w.scale_input_acc && !matches!(k, F16 | Tf32) {
        5
    } else if w.block_scale && matches!(k, I8 | F16 | Tf32 | F8f6f4) {
        6
    } else if i.block_scale_opcode && ashift {
        7
    } else if w.ws && w.cta_group_2 {
        8
    } else if w.ws && matches!(k, Mxf8f6f4 | Mxf4 | Mxf4nvf4) {
        9
    } else if i.collector & COLLECTOR_A_USE_OR_FILL != 0 && ashift {
        10
    } else if k == Mxf8f6f4 && matches!(eff, ScaleVec::X2 | ScaleVec::X4) {
        11
    } else if k == Mxf4nvf4 && eff == ScaleVec::X1 {
        12
    } else if k == Mxf4 && matches!(eff, ScaleVec::X1 | ScaleVec::X4) {
        13
    } else {
        0
    }
}

/// The seed's `verify_tcgen05_mma_kind`: decodes the word (a 9-bit value
/// whose kind field is not 6; collector at most 7), walks the 13 rules in
/// order and returns the opcode index (10521..=10530).
pub fn verify_tcgen05(i: &Tcgen05Input) -> Result<u32, AtomDiag> {
    let w = KindWord::decode(i.raw)?;
    if i.collector > 7 {
        return Err(AtomDiag::field(
            AtomRule::Tcgen05Kind,
            "collector",
            Shown::Int(i128::from(i.collector)),
            "0-7 (bit 2 ashift, bits 0-1 collector::a mode)",
        ));
    }
    match ladder(&w, i) {
        0 => Ok(select_opcode(w.block_scale, i.a_tmem, i.form)),
        n => Err(fire(n)),
    }
}

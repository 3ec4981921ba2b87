//! What the lowering knows about an instruction word: its modelled operation,
//! computed once per word.

use super::Cx;
use crate::ir::{BinOp, CastOp, CmpPred, TypeH, UnOp};
use crate::ptx::{scalar_type, Opcode};

pub(super) fn control(op: &str) -> Option<&str> {
    // Most words start with another letter: no scan for the dot.
    if !matches!(op.as_bytes().first(), Some(b'b' | b'r' | b'e' | b't')) {
        return None;
    }
    let base = op.get(..op.bytes().position(|b| b == b'.').unwrap_or(op.len())).unwrap_or(op);
    matches!(base, "bra" | "brx" | "ret" | "exit" | "trap").then_some(base)
}

/// What the lowering needs to know about an instruction word, computed once per word.
#[derive(Debug, Clone, Copy)]
pub(super) struct OpInfo<'a> {
    /// The part before the first dot.
    pub base: &'a str,
    /// A branch, `ret`, `exit` or `trap`.
    pub control: bool,
    /// The first operand is read, not written.
    pub no_dest: bool,
    /// Class letter of the type suffix (`s`, `u`, `b`, `f`, `p`).
    pub class: Option<u8>,
    /// Type of immediates (from the type suffix).
    pub imm_ty: TypeH,
    /// How the lowering models it.
    pub kind: OpKind,
    /// The fact a matrix instruction of this word may become.
    pub fact: Option<crate::ptx::facts::Class>,
}

/// The modelled operations, decided once per instruction word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OpKind {
    Bin(BinOp),
    MulWide,
    MadLo,
    MadWide,
    Not(UnOp),
    Neg(UnOp),
    Mov,
    Cvta,
    Setp(CmpPred),
    Selp,
    /// `cvt`: the cast (None: same width and class, a copy) and the source type.
    Cvt(Option<CastOp>, TypeH),
    /// `bfe.{u,s}N`: signed when `.sNN`.
    Bfe(bool),
    /// `bfi.bN`.
    Bfi,
    LdParam,
    Ld,
    St,
    Call,
    Other,
}

impl<'a> OpInfo<'a> {
    pub(super) fn new(cx: &mut Cx<'a>, word: &'a str) -> Self {
        let op = Opcode::new(word);
        let last = op.last();
        let class = last.and_then(scalar_type).map(|t| t.0);
        let float = class == Some(b'f');
        let signed = class == Some(b's');
        let bin = |o: BinOp, fo: BinOp| OpKind::Bin(if float { fo } else { o });
        let plain = !op.has("cc") && !op.has("sat");
        let base = op.base();
        let kind = match base {
            "add" if plain => bin(BinOp::Add, BinOp::FAdd),
            "sub" if plain => bin(BinOp::Sub, BinOp::FSub),
            "mul" if float || op.has("lo") => bin(BinOp::Mul, BinOp::FMul),
            "mul" if op.has("wide") => OpKind::MulWide,
            "div" if float => OpKind::Bin(BinOp::FDiv),
            "div" => OpKind::Bin(if signed { BinOp::SDiv } else { BinOp::UDiv }),
            "rem" if !float => OpKind::Bin(if signed { BinOp::SRem } else { BinOp::URem }),
            "and" => OpKind::Bin(BinOp::And),
            "or" => OpKind::Bin(BinOp::Or),
            "xor" => OpKind::Bin(BinOp::Xor),
            "shl" => OpKind::Bin(BinOp::Shl),
            "shr" => OpKind::Bin(if signed { BinOp::AShr } else { BinOp::LShr }),
            "mad" if op.has("wide") => OpKind::MadWide,
            "mad" if op.has("lo") => OpKind::MadLo,
            "not" => OpKind::Not(if class == Some(b'p') { UnOp::LogicalNot } else { UnOp::Not }),
            "neg" => OpKind::Neg(if float { UnOp::FNeg } else { UnOp::Neg }),
            "mov" => OpKind::Mov,
            "cvta" => OpKind::Cvta,
            "setp" => match cmp_pred(&op, class) {
                Some(p) => OpKind::Setp(p),
                None => OpKind::Other,
            },
            "selp" => OpKind::Selp,
            "cvt" => {
                let mut types = op.mods().filter_map(|m| scalar_type(m).map(|t| (m, t)));
                match (types.next(), types.next()) {
                    (Some((_, dt)), Some((s, st))) => {
                        let cast = match (dt.0 == b'f', st.0 == b'f') {
                            (false, false) if dt.1 > st.1 => {
                                Some(if st.0 == b's' { CastOp::SExt } else { CastOp::ZExt })
                            }
                            (false, false) if dt.1 < st.1 => Some(CastOp::Trunc),
                            (false, false) => None,
                            (true, true) if dt.1 > st.1 => Some(CastOp::FpExt),
                            (true, true) if dt.1 < st.1 => Some(CastOp::FpTrunc),
                            (true, true) => None,
                            (true, false) => Some(if st.0 == b's' { CastOp::SiToFp } else { CastOp::UiToFp }),
                            (false, true) => Some(if dt.0 == b's' { CastOp::FpToSi } else { CastOp::FpToUi }),
                        };
                        OpKind::Cvt(cast, cx.scalar(Some(s)))
                    }
                    _ => OpKind::Other,
                }
            }
            "bfe" => OpKind::Bfe(signed),
            "bfi" => OpKind::Bfi,
            "ld" if op.has("param") => OpKind::LdParam,
            "ld" => OpKind::Ld,
            "st" => OpKind::St,
            "call" => OpKind::Call,
            _ => OpKind::Other,
        };
        OpInfo {
            base,
            control: control(word).is_some(),
            no_dest: no_dest(&op),
            class,
            imm_ty: cx.scalar(last),
            kind,
            fact: crate::ptx::facts::class(&op),
        }
    }
}

/// Instructions whose first register operand is read, not written.
pub(super) fn no_dest(op: &Opcode<'_>) -> bool {
    match op.base() {
        "bar" | "barrier" => !op.has("red"),
        "tcgen05" => op.second() != Some("ld"),
        "wgmma" => op.second() != Some("mma_async"),
        "multimem" => !op.has("ld_reduce"),
        "bra" | "brx" | "call" | "ret" | "exit" | "trap" | "nanosleep" | "membar" | "fence" | "prefetch"
        | "prefetchu" | "setmaxnreg" | "griddepcontrol" | "pmevent" | "st" | "red" | "stmatrix" | "cp"
        | "tensormap" | "discard" | "applypriority" => true,
        _ => false,
    }
}

/// The LLVM comparison predicate of `setp.CMP.TYPE`.
pub(super) fn cmp_pred(op: &Opcode<'_>, class: Option<u8>) -> Option<CmpPred> {
    let cmp = op.second()?;
    if op.mods().count() != 2 {
        return None; // setp.CMP.BOOLOP.TYPE has a fourth operand
    }
    let p = match class? {
        b'f' => match cmp {
            "eq" => 1,
            "gt" => 2,
            "ge" => 3,
            "lt" => 4,
            "le" => 5,
            "ne" => 6,
            "num" => 7,
            "nan" => 8,
            "equ" => 9,
            "gtu" => 10,
            "geu" => 11,
            "ltu" => 12,
            "leu" => 13,
            "neu" => 14,
            _ => return None,
        },
        c => {
            let signed = c == b's';
            match cmp {
                "eq" => 32,
                "ne" => 33,
                "gt" | "hi" if !signed || cmp == "hi" => 34,
                "ge" | "hs" if !signed || cmp == "hs" => 35,
                "lt" | "lo" if !signed || cmp == "lo" => 36,
                "le" | "ls" if !signed || cmp == "ls" => 37,
                "gt" => 38,
                "ge" => 39,
                "lt" => 40,
                "le" => 41,
                _ => return None,
            }
        }
    };
    Some(CmpPred(p))
}

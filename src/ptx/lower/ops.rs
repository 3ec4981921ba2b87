//! What the lowering knows about an instruction word: its modelled operation,
//! computed once per word and thread.

use super::{scalar_of, Cx, Scalar};
use crate::ir::{AccessForm, BinOp, CastOp, CmpPred, TypeH, UnOp};
use crate::ptx::facts::Class;
use crate::ptx::{scalar_type, Opcode};
use rustc_hash::FxHashMap;
use std::cell::RefCell;

pub(super) use crate::ptx::parse::control_word as control;

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
    /// `cvt`'s source type (its second type word; the immediates' type otherwise).
    pub src_ty: TypeH,
    /// How the lowering models it.
    pub kind: OpKind,
    /// The fact a matrix instruction of this word may become.
    pub fact: Option<Class>,
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
    /// `cvt`: the cast (None: same width and class, a copy); the source type
    /// is [`OpInfo::src_ty`].
    Cvt(Option<CastOp>),
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

/// What a word is apart from the module's types: the same in every module.
#[derive(Debug, Clone, Copy)]
struct WordInfo {
    base_len: usize,
    control: bool,
    no_dest: bool,
    class: Option<u8>,
    imm: Scalar,
    src: Scalar,
    kind: OpKind,
    fact: Option<Class>,
    access: Option<AccessForm>,
}

/// Words told apart per thread: a batch's modules repeat the same few
/// hundred words, each told once (what [`WordInfo::new`] reads of a word
/// takes 1,000 to 2,000 instructions). Bounded in count and length, for a
/// hostile input's millions of distinct or megabyte-long words (at most
/// 512 KB of words are kept).
const MAX_WORDS: usize = 4096;

/// Longest word kept (real words are under 100 bytes:
/// `cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes…`).
const MAX_WORD_BYTES: usize = 128;

thread_local! {
    static WORDS: RefCell<FxHashMap<Box<str>, WordInfo>> = RefCell::new(FxHashMap::default());
}

impl<'a> OpInfo<'a> {
    /// The word's facts with the module's types, and the memory access it makes.
    pub(super) fn new(cx: &mut Cx<'a>, word: &'a str) -> (Self, Option<AccessForm>) {
        let w = WORDS.with(|m| {
            if let Some(w) = m.borrow().get(word) {
                return *w;
            }
            let w = WordInfo::new(word);
            let mut m = m.borrow_mut();
            if m.len() < MAX_WORDS && word.len() <= MAX_WORD_BYTES {
                m.insert(word.into(), w);
            }
            w
        });
        let imm_ty = cx.scalar_ty(w.imm);
        let info = OpInfo {
            base: word.get(..w.base_len).unwrap_or(word),
            control: w.control,
            no_dest: w.no_dest,
            class: w.class,
            imm_ty,
            src_ty: if w.src == w.imm { imm_ty } else { cx.scalar_ty(w.src) },
            kind: w.kind,
            fact: w.fact,
        };
        (info, w.access)
    }
}

impl WordInfo {
    fn new(word: &str) -> Self {
        let op = Opcode::new(word);
        let last = op.last();
        let class = last.and_then(scalar_type).map(|t| t.0);
        let float = class == Some(b'f');
        let signed = class == Some(b's');
        let bin = |o: BinOp, fo: BinOp| OpKind::Bin(if float { fo } else { o });
        let plain = !op.has("cc") && !op.has("sat");
        let base = op.base();
        let imm = scalar_of(last);
        let mut src = imm;
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
                        src = scalar_of(Some(s));
                        OpKind::Cvt(cast)
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
        WordInfo {
            base_len: base.len(),
            control: control(word).is_some(),
            no_dest: no_dest(&op),
            class,
            imm,
            src,
            kind,
            fact: crate::ptx::facts::class(&op),
            access: AccessForm::parse(word),
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

#[cfg(test)]
mod tests {
    use super::WORDS;

    fn kept(word: &str) -> bool {
        WORDS.with(|m| m.borrow().contains_key(word))
    }

    #[test]
    fn words_are_kept_per_thread_up_to_a_length() {
        let long = format!("nanosleep.u32.{}", "x".repeat(200));
        let text = format!(
            ".version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{{\n\t.reg .b32 %r<4>;\n\t{long} 5;\n\tadd.s32 %r1, %r2, 1;\n\tret;\n}}\n"
        );
        for _ in 0..2 {
            let m = crate::ptx::lower(text.as_bytes(), 0).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(m.functions.len(), 1);
        }
        assert!(kept("add.s32"));
        assert!(!kept(&long), "a word over MAX_WORD_BYTES is told apart each time, not kept");
    }
}

//! Instructions: the operators, blocks and the instruction kinds of the IR
//! (re-exported by [`super::module`]).

use super::module::{BlockH, InstH, Span, TypeH, Value};

/// The value operands of an opaque instruction ([`InstKind::Other`]): up to
/// three inline, no allocation for the usual ones.
pub type Operands = smallvec::SmallVec<[Value; 3]>;

/// A constant member path ([`InstKind::ExtractValue`]): up to two inline.
pub type Indices = smallvec::SmallVec<[u32; 2]>;

/// Integer/float binary operators (LLVM binop codes; SPIR-V maps onto them).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    UDiv,
    SDiv,
    URem,
    SRem,
    Shl,
    LShr,
    AShr,
    And,
    Or,
    Xor,
    FAdd,
    FSub,
    FMul,
    FDiv,
    FRem,
}

/// Unary operators (SPIR-V has these; DXIL spells them as binops).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    Not,
    FNeg,
    LogicalNot,
}

/// Conversions.
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CastOp {
    Trunc,
    ZExt,
    SExt,
    FpToUi,
    FpToSi,
    UiToFp,
    SiToFp,
    FpTrunc,
    FpExt,
    PtrToInt,
    IntToPtr,
    Bitcast,
    AddrSpaceCast,
}

/// Comparison predicates (LLVM numbering: FCMP 0..=15, ICMP 32..=41).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CmpPred(pub u8);

/// A basic block: instruction handles, phis first, terminator last.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Block {
    /// Instructions in order.
    pub insts: Vec<InstH>,
    /// Label name (from the value symbol table / `OpName`), if any.
    pub name: Option<String>,
}

/// An instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct Inst {
    /// Result type (`Type::Void` when it defines no value).
    pub ty: TypeH,
    /// Operation and operands.
    pub kind: InstKind,
    /// Provenance and source location.
    pub span: Span,
}

/// Operations.
#[derive(Debug, Clone, PartialEq)]
pub enum InstKind {
    /// Binary arithmetic.
    Binary {
        /// Operator.
        op: BinOp,
        /// Left operand.
        lhs: Value,
        /// Right operand.
        rhs: Value,
    },
    /// Unary arithmetic.
    Unary {
        /// Operator.
        op: UnOp,
        /// Operand.
        value: Value,
    },
    /// Conversion.
    Cast {
        /// Conversion kind.
        op: CastOp,
        /// Operand.
        value: Value,
    },
    /// Comparison.
    Cmp {
        /// Predicate.
        pred: CmpPred,
        /// Left operand.
        lhs: Value,
        /// Right operand.
        rhs: Value,
    },
    /// `cond ? if_true : if_false`.
    Select {
        /// Condition.
        cond: Value,
        /// Value when true.
        if_true: Value,
        /// Value when false.
        if_false: Value,
    },
    /// SSA phi; one incoming value per predecessor block.
    Phi {
        /// `(value, predecessor)` pairs.
        incoming: Vec<(Value, BlockH)>,
    },
    /// Function-local variable (DXIL `alloca`, SPIR-V `Function` storage `OpVariable`).
    Alloca {
        /// Allocated type.
        ty: TypeH,
    },
    /// Memory load.
    Load {
        /// Address.
        ptr: Value,
    },
    /// Memory store.
    Store {
        /// Address.
        ptr: Value,
        /// Stored value.
        value: Value,
    },
    /// Address computation with LLVM GEP semantics (the first index steps over
    /// the base pointer; SPIR-V access chains get a leading constant 0).
    Gep {
        /// Base pointer.
        base: Value,
        /// Indices.
        indices: Vec<Value>,
    },
    /// Member of an aggregate value.
    ExtractValue {
        /// Aggregate.
        agg: Value,
        /// Constant member path.
        indices: Indices,
    },
    /// Aggregate with one member replaced.
    InsertValue {
        /// Aggregate.
        agg: Value,
        /// New member value.
        value: Value,
        /// Constant member path.
        indices: Vec<u32>,
    },
    /// Vector component.
    ExtractElement {
        /// Vector.
        vector: Value,
        /// Component index.
        index: Value,
    },
    /// Vector with one component replaced.
    InsertElement {
        /// Vector.
        vector: Value,
        /// New component.
        value: Value,
        /// Component index.
        index: Value,
    },
    /// Vector shuffle.
    Shuffle {
        /// First vector.
        a: Value,
        /// Second vector.
        b: Value,
        /// Mask (a constant).
        mask: Value,
    },
    /// Aggregate built from members (SPIR-V `OpCompositeConstruct`).
    Composite {
        /// Members in order.
        elements: Vec<Value>,
    },
    /// Call. `dx_op` is the DXIL opcode when the callee is a `dx.op.*` function.
    Call {
        /// Callee.
        callee: Value,
        /// Arguments (for dx.op calls, including the opcode at index 0).
        args: Vec<Value>,
        /// DXIL operation number (`0x8000_00nn` for the experimental table).
        dx_op: Option<u32>,
    },
    /// Atomic read-modify-write (`op` in the front end's numbering).
    AtomicRmw {
        /// Operation.
        op: u32,
        /// Address.
        ptr: Value,
        /// Operand.
        value: Value,
    },
    /// Atomic compare-exchange.
    CmpXchg {
        /// Address.
        ptr: Value,
        /// Expected value.
        cmp: Value,
        /// New value.
        new: Value,
    },
    /// Unconditional branch.
    Br {
        /// Target.
        target: BlockH,
    },
    /// Conditional branch.
    CondBr {
        /// Condition.
        cond: Value,
        /// Target when true.
        if_true: BlockH,
        /// Target when false.
        if_false: BlockH,
    },
    /// Multi-way branch.
    Switch {
        /// Selector.
        value: Value,
        /// Default target.
        default: BlockH,
        /// `(case value, target)` pairs.
        cases: Vec<(u64, BlockH)>,
    },
    /// Return.
    Ret {
        /// Returned value.
        value: Option<Value>,
    },
    /// Unreachable / `OpKill` / `OpTerminateInvocation`.
    Unreachable,
    /// An operation kept verbatim: the SPIR-V opcode or the LLVM record code, and
    /// its value operands (literal operands are dropped).
    Other {
        /// Opcode in the front end's numbering.
        opcode: u32,
        /// Value operands.
        operands: Operands,
    },
}

impl InstKind {
    /// Calls `f` on every value operand of the instruction, mutably
    /// (terminators' conditions and returned values included).
    pub fn for_each_operand_mut(&mut self, mut f: impl FnMut(&mut Value)) {
        match self {
            InstKind::Binary { lhs, rhs, .. } | InstKind::Cmp { lhs, rhs, .. } => {
                f(lhs);
                f(rhs);
            }
            InstKind::Unary { value, .. } | InstKind::Cast { value, .. } => f(value),
            InstKind::Select { cond, if_true, if_false } => {
                f(cond);
                f(if_true);
                f(if_false);
            }
            InstKind::Phi { incoming } => incoming.iter_mut().for_each(|(v, _)| f(v)),
            InstKind::Alloca { .. } | InstKind::Br { .. } | InstKind::Unreachable => {}
            InstKind::Load { ptr } => f(ptr),
            InstKind::Store { ptr, value } => {
                f(ptr);
                f(value);
            }
            InstKind::Gep { base, indices } => {
                f(base);
                indices.iter_mut().for_each(f);
            }
            InstKind::ExtractValue { agg, .. } => f(agg),
            InstKind::InsertValue { agg, value, .. } => {
                f(agg);
                f(value);
            }
            InstKind::ExtractElement { vector, index } => {
                f(vector);
                f(index);
            }
            InstKind::InsertElement { vector, value, index } => {
                f(vector);
                f(value);
                f(index);
            }
            InstKind::Shuffle { a, b, mask } => {
                f(a);
                f(b);
                f(mask);
            }
            InstKind::Composite { elements } => elements.iter_mut().for_each(f),
            InstKind::Call { callee, args, .. } => {
                f(callee);
                args.iter_mut().for_each(f);
            }
            InstKind::AtomicRmw { ptr, value, .. } => {
                f(ptr);
                f(value);
            }
            InstKind::CmpXchg { ptr, cmp, new } => {
                f(ptr);
                f(cmp);
                f(new);
            }
            InstKind::CondBr { cond, .. } => f(cond),
            InstKind::Switch { value, .. } => f(value),
            InstKind::Ret { value } => {
                if let Some(v) = value {
                    f(v)
                }
            }
            InstKind::Other { operands, .. } => operands.iter_mut().for_each(f),
        }
    }

    /// True for block terminators.
    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            InstKind::Br { .. }
                | InstKind::CondBr { .. }
                | InstKind::Switch { .. }
                | InstKind::Ret { .. }
                | InstKind::Unreachable
        )
    }

    /// Successor blocks of a terminator (empty for other instructions).
    pub fn successors(&self) -> Vec<BlockH> {
        match self {
            InstKind::Br { target } => vec![*target],
            InstKind::CondBr { if_true, if_false, .. } => vec![*if_true, *if_false],
            InstKind::Switch { default, cases, .. } => {
                let mut v = vec![*default];
                v.extend(cases.iter().map(|c| c.1));
                v
            }
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inline operands and member paths cost no instruction size: an
    /// instruction stays 72 bytes (the arena holds millions of them).
    #[test]
    fn inline_operands_keep_instructions_small() {
        assert_eq!(std::mem::size_of::<Operands>(), 32);
        assert!(std::mem::size_of::<Indices>() <= 24);
        assert_eq!(std::mem::size_of::<InstKind>(), 48);
        assert_eq!(std::mem::size_of::<Inst>(), 72);
    }
}

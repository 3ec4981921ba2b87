//! Dataflow over the IR (stub).

use crate::ir::{FuncH, Module, Operand};

/// An abstract integer value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AbsValue {
    /// No information yet / unreachable.
    Bottom,
    /// One of these constants (sorted, at most 8).
    Set(Vec<u64>),
    /// `rem mod 2^k`.
    Congruence {
        /// Remainder.
        rem: u64,
        /// log2 of the modulus.
        k: u8,
    },
    /// Unknown.
    Top,
}

/// Options of the analysis.
#[derive(Debug, Clone, Default)]
pub struct AnalysisOptions {
    /// Spec-constant overrides `(SpecId, value)`.
    pub spec_constants: Vec<(u32, u64)>,
}

/// Results of the analysis of one module.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    /// True when the work budget ran out.
    pub budget_exceeded: bool,
}

impl Analysis {
    /// The abstract value of an operand of a fact in function `f`.
    pub fn value(&self, m: &Module, _f: FuncH, op: Operand) -> AbsValue {
        match op {
            Operand::Imm(v) => AbsValue::Set(vec![v]),
            Operand::Value(v) => m.const_int(v).map(|x| AbsValue::Set(vec![x])).unwrap_or(AbsValue::Top),
        }
    }
}

/// Analyses a module.
pub fn analyze(_m: &Module, _opts: &AnalysisOptions) -> Analysis {
    Analysis::default()
}

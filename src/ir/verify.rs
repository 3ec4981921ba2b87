//! Handle and structure verifier, run once after lowering. Its errors mean
//! malformed input, not findings.

use super::module::*;

/// A structural problem found in a lowered module.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed module: {message} in function {function:?} at byte offset 0x{offset:x} ({offset})")]
pub struct VerifyError {
    /// Function name.
    pub function: String,
    /// What is wrong.
    pub message: String,
    /// Absolute byte offset of the offending instruction (or function).
    pub offset: u64,
}

/// Checks the invariants listed in the [module docs](super).
pub fn verify(m: &Module) -> Result<(), VerifyError> {
    for (_, f) in m.functions.iter() {
        let at = std::cell::Cell::new(f.span.offset);
        let err = |message: String| VerifyError { function: f.name.clone(), message, offset: at.get() };
        if let Some(r) = f.ret {
            if m.types.try_get(r).is_none() {
                return Err(err("bad return type".into()));
            }
        }
        if f.is_declaration {
            continue;
        }
        // Instructions listed in a block; an operand naming any other (a phi
        // folded away, an instruction dropped) names a removed value.
        let mut placed = vec![false; f.insts.len()];
        for (_, b) in f.blocks.iter() {
            for ih in &b.insts {
                if let Some(p) = placed.get_mut(ih.index()) {
                    *p = true;
                }
            }
        }
        let check_value = |v: &Value| -> Result<(), VerifyError> {
            let ok = match v {
                Value::Const(c) => m.constants.try_get(*c).is_some(),
                Value::Global(g) => m.globals.try_get(*g).is_some(),
                Value::Function(h) => m.functions.try_get(*h).is_some(),
                Value::Arg(i) => (*i as usize) < f.params.len(),
                Value::Inst(i) => f.insts.try_get(*i).is_some(),
            };
            if !ok {
                return Err(err(format!("dangling operand {v:?}")));
            }
            match v {
                Value::Inst(i) if !placed.get(i.index()).copied().unwrap_or(false) => {
                    Err(err(format!("operand %{} names a removed instruction (in no block)", i.index())))
                }
                _ => Ok(()),
            }
        };
        for (bh, b) in f.blocks.iter() {
            let mut seen_non_phi = false;
            for (pos, ih) in b.insts.iter().enumerate() {
                let Some(inst) = f.insts.try_get(*ih) else {
                    return Err(err(format!("block {} lists a missing instruction", bh.index())));
                };
                at.set(inst.span.offset);
                if m.types.try_get(inst.ty).is_none() {
                    return Err(err(format!("instruction %{} has a bad type", ih.index())));
                }
                let is_phi = matches!(inst.kind, InstKind::Phi { .. });
                if is_phi && seen_non_phi {
                    return Err(err(format!("phi %{} after a non-phi", ih.index())));
                }
                seen_non_phi |= !is_phi;
                let last = pos + 1 == b.insts.len();
                if inst.kind.is_terminator() != last {
                    return Err(err(format!("block {} terminator misplaced", bh.index())));
                }
                if last {
                    for s in inst.kind.successors() {
                        if f.blocks.try_get(s).is_none() {
                            return Err(err(format!("branch to missing block {}", s.index())));
                        }
                    }
                }
                for_each_operand(&inst.kind, |v| check_value(v))?;
                if let InstKind::Phi { incoming } = &inst.kind {
                    for (_, pb) in incoming {
                        if f.blocks.try_get(*pb).is_none() {
                            return Err(err("phi names a missing block".into()));
                        }
                    }
                }
            }
            if b.insts.is_empty() {
                return Err(err(format!("block {} is empty", bh.index())));
            }
        }
    }
    for fact in &m.facts {
        let Some(f) = m.functions.try_get(fact.function) else {
            return Err(VerifyError {
                function: "?".into(),
                message: "fact names a missing function".into(),
                offset: 0,
            });
        };
        if f.insts.try_get(fact.inst).is_none() {
            return Err(VerifyError {
                function: f.name.clone(),
                message: "fact names a missing instruction".into(),
                offset: f.span.offset,
            });
        }
    }
    Ok(())
}

/// Calls `f` on every value operand of an instruction.
pub fn for_each_operand<E>(k: &InstKind, mut f: impl FnMut(&Value) -> Result<(), E>) -> Result<(), E> {
    match k {
        InstKind::Binary { lhs, rhs, .. } | InstKind::Cmp { lhs, rhs, .. } => {
            f(lhs)?;
            f(rhs)
        }
        InstKind::Unary { value, .. } | InstKind::Cast { value, .. } => f(value),
        InstKind::Select { cond, if_true, if_false } => {
            f(cond)?;
            f(if_true)?;
            f(if_false)
        }
        InstKind::Phi { incoming } => incoming.iter().try_for_each(|(v, _)| f(v)),
        InstKind::Alloca { .. } | InstKind::Br { .. } | InstKind::Unreachable => Ok(()),
        InstKind::Load { ptr } => f(ptr),
        InstKind::Store { ptr, value } => {
            f(ptr)?;
            f(value)
        }
        InstKind::Gep { base, indices } => {
            f(base)?;
            indices.iter().try_for_each(&mut f)
        }
        InstKind::ExtractValue { agg, .. } => f(agg),
        InstKind::InsertValue { agg, value, .. } => {
            f(agg)?;
            f(value)
        }
        InstKind::ExtractElement { vector, index } => {
            f(vector)?;
            f(index)
        }
        InstKind::InsertElement { vector, value, index } => {
            f(vector)?;
            f(value)?;
            f(index)
        }
        InstKind::Shuffle { a, b, mask } => {
            f(a)?;
            f(b)?;
            f(mask)
        }
        InstKind::Composite { elements } => elements.iter().try_for_each(&mut f),
        InstKind::Call { callee, args, .. } => {
            f(callee)?;
            args.iter().try_for_each(&mut f)
        }
        InstKind::AtomicRmw { ptr, value, .. } => {
            f(ptr)?;
            f(value)
        }
        InstKind::CmpXchg { ptr, cmp, new } => {
            f(ptr)?;
            f(cmp)?;
            f(new)
        }
        InstKind::CondBr { cond, .. } => f(cond),
        InstKind::Switch { value, .. } => f(value),
        InstKind::Ret { value } => value.as_ref().map_or(Ok(()), f),
        InstKind::Other { operands, .. } => operands.iter().try_for_each(&mut f),
    }
}

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

/// Why an operand does not name a value of the module (kept small, so that
/// the per-operand walk carries no error text; the message is built once,
/// on failure).
#[derive(Clone, Copy)]
enum BadOperand {
    /// Names nothing (a handle past its arena, an argument past the parameters).
    Dangling(Value),
    /// Names an instruction that no block lists.
    Removed(usize),
}

/// Checks the invariants listed in the [module docs](super), in one pass
/// over each function's blocks (no allocation per instruction).
pub fn verify(m: &Module) -> Result<(), VerifyError> {
    // Which instructions some block lists, reused across functions.
    let mut placed: Vec<bool> = Vec::new();
    for (_, f) in m.functions.iter() {
        let err = |message: String, offset: u64| VerifyError { function: f.name.clone(), message, offset };
        if let Some(r) = f.ret {
            if m.types.try_get(r).is_none() {
                return Err(err("bad return type".into(), f.span.offset));
            }
        }
        if f.is_declaration {
            continue;
        }
        // Instructions listed in a block; an operand naming any other (a phi
        // folded away, an instruction dropped) names a removed value.
        placed.clear();
        placed.resize(f.insts.len(), false);
        for (_, b) in f.blocks.iter() {
            for ih in &b.insts {
                if let Some(p) = placed.get_mut(ih.index()) {
                    *p = true;
                }
            }
        }
        let check_value = |v: &Value| -> Result<(), BadOperand> {
            let ok = match v {
                Value::Const(c) => m.constants.try_get(*c).is_some(),
                Value::Global(g) => m.globals.try_get(*g).is_some(),
                Value::Function(h) => m.functions.try_get(*h).is_some(),
                Value::Arg(i) => (*i as usize) < f.params.len(),
                Value::Inst(i) => match placed.get(i.index()) {
                    Some(true) => true,
                    Some(false) => return Err(BadOperand::Removed(i.index())),
                    None => false,
                },
            };
            if ok {
                Ok(())
            } else {
                Err(BadOperand::Dangling(*v))
            }
        };
        let block_ok = |b: BlockH| f.blocks.try_get(b).is_some();
        // The offset errors name: the last instruction looked at (the
        // function's own before the first).
        let mut at = f.span.offset;
        for (bh, b) in f.blocks.iter() {
            let mut seen_non_phi = false;
            let n = b.insts.len();
            for (pos, ih) in b.insts.iter().enumerate() {
                let Some(inst) = f.insts.try_get(*ih) else {
                    return Err(err(format!("block {} lists a missing instruction", bh.index()), at));
                };
                at = inst.span.offset;
                if m.types.try_get(inst.ty).is_none() {
                    return Err(err(format!("instruction %{} has a bad type", ih.index()), at));
                }
                let is_phi = matches!(inst.kind, InstKind::Phi { .. });
                if is_phi && seen_non_phi {
                    return Err(err(format!("phi %{} after a non-phi", ih.index()), at));
                }
                seen_non_phi |= !is_phi;
                let last = pos + 1 == n;
                if inst.kind.is_terminator() != last {
                    return Err(err(format!("block {} terminator misplaced", bh.index()), at));
                }
                // The successors, in the order `InstKind::successors` lists them.
                let missing = match &inst.kind {
                    InstKind::Br { target } => (!block_ok(*target)).then_some(*target),
                    InstKind::CondBr { if_true, if_false, .. } => {
                        [*if_true, *if_false].into_iter().find(|s| !block_ok(*s))
                    }
                    InstKind::Switch { default, cases, .. } => {
                        std::iter::once(*default).chain(cases.iter().map(|c| c.1)).find(|s| !block_ok(*s))
                    }
                    _ => None,
                };
                if let Some(s) = missing {
                    return Err(err(format!("branch to missing block {}", s.index()), at));
                }
                if let Err(bad) = for_each_operand(&inst.kind, check_value) {
                    let message = match bad {
                        BadOperand::Dangling(v) => format!("dangling operand {v:?}"),
                        BadOperand::Removed(i) => format!("operand %{i} names a removed instruction (in no block)"),
                    };
                    return Err(err(message, at));
                }
                if let InstKind::Phi { incoming } = &inst.kind {
                    if incoming.iter().any(|(_, pb)| !block_ok(*pb)) {
                        return Err(err("phi names a missing block".into(), at));
                    }
                }
            }
            if b.insts.is_empty() {
                return Err(err(format!("block {} is empty", bh.index()), at));
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

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = ".version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u32 p)\n{\n\
        .reg .b32 %r<4>;\n.reg .pred %p<2>;\nld.param.u32 %r1, [p];\nadd.u32 %r2, %r1, 1;\n\
        setp.lt.u32 %p1, %r2, 9;\n@%p1 bra $L1;\nadd.u32 %r3, %r2, 2;\n$L1:\nret;\n}\n";

    fn module() -> Module {
        let m = crate::ptx::lower(PTX.as_bytes(), 0).expect("reads");
        assert_eq!(verify(&m), Ok(()));
        m
    }

    /// The first instruction of `f` matching `pick`, with its offset.
    fn find(m: &Module, pick: impl Fn(&InstKind) -> bool) -> (FuncH, InstH, u64) {
        let (fh, f) = m.functions.iter().next().expect("a function");
        let (ih, i) = f.insts.iter().find(|(_, i)| pick(&i.kind)).expect("the instruction");
        (fh, ih, i.span.offset)
    }

    #[test]
    fn an_operand_naming_nothing_is_dangling_at_its_instruction() {
        let mut m = module();
        let (fh, ih, at) = find(&m, |k| matches!(k, InstKind::Binary { .. }));
        if let InstKind::Binary { rhs, .. } = &mut m.functions[fh].insts[ih].kind {
            *rhs = Value::Arg(7);
        }
        let e = verify(&m).unwrap_err();
        assert_eq!((e.message.as_str(), e.offset, e.function.as_str()), ("dangling operand Arg(7)", at, "k"));
        assert!(at > 0, "the instruction's own offset, not the function's");
    }

    #[test]
    fn a_branch_to_a_missing_block_names_it() {
        let mut m = module();
        let (fh, ih, at) = find(&m, |k| matches!(k, InstKind::CondBr { .. }));
        if let InstKind::CondBr { if_false, .. } = &mut m.functions[fh].insts[ih].kind {
            *if_false = BlockH::from_index(999).expect("a handle");
        }
        let e = verify(&m).unwrap_err();
        assert_eq!((e.message.as_str(), e.offset), ("branch to missing block 999", at));
    }

    #[test]
    fn a_block_without_its_terminator_and_an_empty_block_are_refused() {
        let mut m = module();
        let (fh, ih, _) = find(&m, |k| matches!(k, InstKind::CondBr { .. }));
        let f = &mut m.functions[fh];
        let bh = f.blocks.iter().find(|(_, b)| b.insts.last() == Some(&ih)).map(|(h, _)| h).expect("its block");
        f.blocks[bh].insts.pop();
        let last = *f.blocks[bh].insts.last().expect("more than the branch");
        let at = f.insts[last].span.offset;
        let e = verify(&m).unwrap_err();
        assert_eq!((e.message, e.offset), (format!("block {} terminator misplaced", bh.index()), at));

        let mut m = module();
        let f = &mut m.functions[fh];
        let (bh, b) = f.blocks.iter().last().expect("a block");
        assert!(
            b.insts.iter().all(|i| matches!(f.insts[*i].kind, InstKind::Ret { .. })),
            "the last block only returns"
        );
        f.blocks[bh].insts.clear();
        let e = verify(&m).unwrap_err();
        assert_eq!(e.message, format!("block {} is empty", bh.index()));
    }
}

//! SSA construction (Braun et al.): reading and writing registers per block,
//! phis at joins, sealing, and the final folding of trivial phis.

use super::body::Body;
use crate::ir::{Function, Inst, InstH, InstKind, Span, TypeH, Value};
use crate::ptx::facts;
use crate::read::Result;
use rustc_hash::FxHashMap;

impl<'c, 'a> Body<'c, 'a> {
    // ---- SSA ------------------------------------------------------------------------

    pub(super) fn new_phi(&mut self, b: usize, var: u32) -> InstH {
        let ty = self.vars.get(var as usize).copied().unwrap_or_else(|| self.cx.int(32));
        let sp = Span { offset: self.sp.offset, id: self.sp.id, loc: None };
        let h = self.f.insts.append(Inst { ty, kind: InstKind::Phi { incoming: Vec::new() }, span: sp });
        self.blocks[b].phis.push(h);
        self.phis.push(h);
        h
    }

    pub(super) fn read_var(&mut self, var: u32, block: usize) -> Value {
        let mut chain = Vec::new();
        let mut b = block;
        let val = loop {
            if let Some(v) = self.blocks[b].defs.get(&var) {
                break *v;
            }
            if !self.blocks[b].sealed {
                let phi = self.new_phi(b, var);
                self.blocks[b].incomplete.push((var, phi));
                break Value::Inst(phi);
            }
            match self.blocks[b].preds.as_slice() {
                [] => {
                    let ty = self.vars.get(var as usize).copied().unwrap_or_else(|| self.cx.int(32));
                    break self.cx.undef(ty);
                }
                [p] if chain.len() <= self.blocks.len() => {
                    chain.push(b);
                    b = *p;
                }
                [_] => {
                    let ty = self.vars.get(var as usize).copied().unwrap_or_else(|| self.cx.int(32));
                    break self.cx.undef(ty);
                }
                _ => {
                    let phi = self.new_phi(b, var);
                    self.blocks[b].defs.insert(var, Value::Inst(phi));
                    self.work.push((var, phi, b));
                    break Value::Inst(phi);
                }
            }
        };
        self.blocks[b].defs.insert(var, val);
        for c in chain {
            self.blocks[c].defs.insert(var, val);
        }
        val
    }

    pub(super) fn drain(&mut self) {
        while let Some((var, phi, b)) = self.work.pop() {
            let preds = self.blocks[b].preds.clone();
            for p in preds {
                let v = self.read_var(var, p);
                let pb = self.ir_block(p);
                if let InstKind::Phi { incoming } = &mut self.f.insts[phi].kind {
                    incoming.push((v, pb));
                }
            }
        }
    }

    pub(super) fn seal(&mut self, b: usize) {
        self.blocks[b].sealed = true;
        let inc = std::mem::take(&mut self.blocks[b].incomplete);
        for (var, phi) in inc {
            self.work.push((var, phi, b));
        }
        self.drain();
    }

    pub(super) fn read(&mut self, var: u32) -> Value {
        let v = self.read_var(var, self.cur);
        self.drain();
        v
    }

    pub(super) fn write(&mut self, var: u32, v: Value) {
        self.blocks[self.cur].defs.insert(var, v);
    }

    pub(super) fn var_ty(&mut self, var: u32) -> TypeH {
        self.vars.get(var as usize).copied().unwrap_or_else(|| self.cx.int(32))
    }

    // ---- end ------------------------------------------------------------------------

    pub(super) fn finish(mut self) -> Result<(Function, Vec<facts::Pending>)> {
        // Fold trivial phis (all operands the same value or the phi itself).
        let mut repl: FxHashMap<InstH, Value> = FxHashMap::default();
        for _ in 0..64 {
            let mut changed = false;
            for &h in &self.phis {
                if repl.contains_key(&h) {
                    continue;
                }
                let InstKind::Phi { incoming } = &self.f.insts[h].kind else { continue };
                let mut unique: Option<Value> = None;
                let mut trivial = true;
                for (v, _) in incoming {
                    let v = resolve(&repl, *v);
                    if v == Value::Inst(h) || Some(v) == unique {
                        continue;
                    }
                    if unique.is_some() {
                        trivial = false;
                        break;
                    }
                    unique = Some(v);
                }
                if trivial {
                    let ty = self.f.insts[h].ty;
                    let v = match unique {
                        Some(v) => v,
                        None => self.cx.undef(ty),
                    };
                    repl.insert(h, v);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        if !repl.is_empty() {
            for i in 0..self.f.insts.len() {
                let Some(h) = InstH::from_index(i) else { continue };
                map_values(&mut self.f.insts[h].kind, |v| resolve(&repl, v));
            }
            for p in &mut self.facts {
                p.map_values(|v| resolve(&repl, v));
            }
        }
        for (i, b) in self.blocks.iter_mut().enumerate() {
            let Some(ir) = b.ir else { continue };
            let mut insts: Vec<InstH> = b.phis.iter().copied().filter(|h| !repl.contains_key(h)).collect();
            if i == 0 {
                insts.append(&mut self.entry_allocas);
            }
            insts.append(&mut b.body);
            self.f.blocks[ir].insts = insts;
        }
        Ok((self.f, self.facts))
    }
}

pub(super) fn resolve(repl: &FxHashMap<InstH, Value>, mut v: Value) -> Value {
    for _ in 0..64 {
        match v {
            Value::Inst(h) => match repl.get(&h) {
                Some(n) if *n != v => v = *n,
                _ => return v,
            },
            _ => return v,
        }
    }
    v
}

/// Applies `f` to every value operand of an instruction.
pub(crate) fn map_values(k: &mut InstKind, mut f: impl FnMut(Value) -> Value) {
    let mut g = |v: &mut Value| *v = f(*v);
    match k {
        InstKind::Binary { lhs, rhs, .. } | InstKind::Cmp { lhs, rhs, .. } => {
            g(lhs);
            g(rhs);
        }
        InstKind::Unary { value, .. } | InstKind::Cast { value, .. } => g(value),
        InstKind::Select { cond, if_true, if_false } => {
            g(cond);
            g(if_true);
            g(if_false);
        }
        InstKind::Phi { incoming } => incoming.iter_mut().for_each(|(v, _)| g(v)),
        InstKind::Load { ptr } => g(ptr),
        InstKind::Store { ptr, value } => {
            g(ptr);
            g(value);
        }
        InstKind::Gep { base, indices } => {
            g(base);
            indices.iter_mut().for_each(g);
        }
        InstKind::ExtractValue { agg, .. } => g(agg),
        InstKind::InsertValue { agg, value, .. } => {
            g(agg);
            g(value);
        }
        InstKind::ExtractElement { vector, index } => {
            g(vector);
            g(index);
        }
        InstKind::InsertElement { vector, value, index } => {
            g(vector);
            g(value);
            g(index);
        }
        InstKind::Shuffle { a, b, mask } => {
            g(a);
            g(b);
            g(mask);
        }
        InstKind::Composite { elements } => elements.iter_mut().for_each(g),
        InstKind::Call { callee, args, .. } => {
            g(callee);
            args.iter_mut().for_each(g);
        }
        InstKind::AtomicRmw { ptr, value, .. } => {
            g(ptr);
            g(value);
        }
        InstKind::CmpXchg { ptr, cmp, new } => {
            g(ptr);
            g(cmp);
            g(new);
        }
        InstKind::CondBr { cond, .. } => g(cond),
        InstKind::Switch { value, .. } => g(value),
        InstKind::Ret { value } => {
            if let Some(v) = value {
                g(v);
            }
        }
        InstKind::Other { operands, .. } => operands.iter_mut().for_each(g),
        InstKind::Alloca { .. } | InstKind::Br { .. } | InstKind::Unreachable => {}
    }
}

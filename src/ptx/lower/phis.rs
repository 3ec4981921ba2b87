//! The end of SSA construction's bookkeeping: trivial-phi replacements
//! ([`Repl`]), the renumbering once removed phis leave the arena
//! ([`Renumber`]) and [`map_values`] (see `ssa::Body::finish`).

use crate::ir::{InstH, InstKind, Value};

/// Old arena index → new one once the removed phis leave the arena
/// (`u32::MAX`: removed). Empty when nothing was removed: every index stays.
#[derive(Default)]
pub(super) struct Renumber {
    to: Vec<u32>,
}

impl Renumber {
    pub(super) fn new(repl: &Repl, n: usize) -> Self {
        let mut to = Vec::with_capacity(n);
        let mut next = 0u32;
        for i in 0..n {
            let removed = repl.slot.get(i).is_some_and(|&s| s != u32::MAX && repl.removed(s as usize));
            if removed {
                to.push(u32::MAX);
            } else {
                to.push(next);
                next += 1;
            }
        }
        Renumber { to }
    }

    /// The index of the first removed instruction (the length if none).
    pub(super) fn first_dead(&self) -> usize {
        self.to.iter().position(|&k| k == u32::MAX).unwrap_or(self.to.len())
    }

    pub(super) fn dead_index(&self, i: usize) -> bool {
        self.to.get(i).is_some_and(|&k| k == u32::MAX)
    }

    pub(super) fn dead(&self, h: InstH) -> bool {
        self.dead_index(h.index())
    }

    pub(super) fn inst(&self, h: InstH) -> InstH {
        match self.to.get(h.index()) {
            Some(&k) if k != u32::MAX => InstH::from_index(k as usize).unwrap_or(h),
            _ => h,
        }
    }

    pub(super) fn value(&self, v: Value) -> Value {
        match v {
            Value::Inst(h) => Value::Inst(self.inst(h)),
            v => v,
        }
    }
}

/// Trivial-phi replacements: a union-find forest over the phis of one body.
/// Every link points at a value that was not removed when the link was made,
/// so the forest has no cycle and `find` always ends at a live value.
pub(super) struct Repl {
    /// Instruction index → phi index (`u32::MAX`: not a phi).
    slot: Vec<u32>,
    /// Phi index → its replacement, once removed.
    to: Vec<Option<Value>>,
    /// Some phi was removed.
    pub(super) any: bool,
}

impl Repl {
    pub(super) fn new(insts: usize, phis: &[InstH]) -> Self {
        let mut slot = if phis.is_empty() { Vec::new() } else { vec![u32::MAX; insts] };
        for (i, h) in phis.iter().enumerate() {
            if let Some(s) = slot.get_mut(h.index()) {
                *s = i as u32;
            }
        }
        Repl { slot, to: vec![None; phis.len()], any: false }
    }

    pub(super) fn phi_index(&self, v: Value) -> Option<usize> {
        match v {
            Value::Inst(h) => self.slot.get(h.index()).filter(|&&s| s != u32::MAX).map(|&s| s as usize),
            _ => None,
        }
    }

    pub(super) fn removed(&self, i: usize) -> bool {
        self.to.get(i).is_some_and(|t| t.is_some())
    }

    pub(super) fn set(&mut self, i: usize, v: Value) {
        if let Some(t) = self.to.get_mut(i) {
            *t = Some(v);
            self.any = true;
        }
    }

    /// The live value `v` stands for, compressing the path walked.
    pub(super) fn find(&mut self, v: Value) -> Value {
        let mut root = v;
        while let Some(n) = self.phi_index(root).and_then(|i| self.to[i]) {
            root = n;
        }
        let mut cur = v;
        while let Some(i) = self.phi_index(cur) {
            match self.to[i] {
                Some(n) if n != root => {
                    self.to[i] = Some(root);
                    cur = n;
                }
                _ => break,
            }
        }
        root
    }
}

/// Applies `f` to every value operand of an instruction.
pub(crate) fn map_values(k: &mut InstKind, mut f: impl FnMut(Value) -> Value) {
    k.for_each_operand_mut(|v| *v = f(*v));
}

//! Which instructions the dataflow evaluates and how their values flow: the
//! backward slice of the values the rules read, and the def-use edges
//! between evaluated instructions (one list, cut per position).

use super::dataflow::{for_each_operand, MemoryFacts, Root, NO_SLOT};
use crate::ir::{Function, InstH, InstKind, Value};
use rustc_hash::FxHashMap;

/// The instructions the values of `roots` depend on: closed under operands
/// (phi inputs, addresses and their indices included); a load brings in every
/// store of the function with what it depends on, since loads of local
/// variables read the stores' values.
pub(crate) fn backward_slice(f: &Function, roots: &[Value]) -> Vec<bool> {
    let n = f.insts.len();
    let mut want = vec![false; n];
    let mut work: Vec<InstH> = Vec::new();
    let push = |v: Value, want: &mut [bool], work: &mut Vec<InstH>| {
        if let Value::Inst(h) = v {
            if let Some(w) = want.get_mut(h.index()) {
                if !*w {
                    *w = true;
                    work.push(h);
                }
            }
        }
    };
    for r in roots {
        push(*r, &mut want, &mut work);
    }
    let mut stores_added = false;
    while let Some(h) = work.pop() {
        let Some(inst) = f.insts.try_get(h) else { continue };
        for_each_operand(&inst.kind, |v| push(v, &mut want, &mut work));
        if matches!(inst.kind, InstKind::Load { .. }) && !stores_added {
            stores_added = true;
            for (s, si) in f.insts.iter() {
                if matches!(si.kind, InstKind::Store { .. }) {
                    push(Value::Inst(s), &mut want, &mut work);
                }
            }
        }
    }
    want
}

/// Def-use edges between evaluated instructions, by position: `of(p)` lists
/// the positions of the users of the instruction at position `p` (one list
/// of all edges, cut at `start`).
pub(crate) struct Users {
    start: Vec<u32>,
    list: Vec<u32>,
}

impl Users {
    pub(crate) fn of(&self, p: usize) -> &[u32] {
        match (self.start.get(p), self.start.get(p + 1)) {
            (Some(&a), Some(&b)) => self.list.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// The positions an instruction's value depends on: its operands, and the
/// index operands of the address it loads or stores through.
fn deps(f: &Function, mem: &MemoryFacts, pos: &[u32], h: InstH, mut dep: impl FnMut(u32)) {
    let Some(inst) = f.insts.try_get(h) else { return };
    let mut one = |v: Value| {
        if let Value::Inst(d) = v {
            if let Some(&p) = pos.get(d.index()) {
                if p != NO_SLOT {
                    dep(p);
                }
            }
        }
    };
    for_each_operand(&inst.kind, &mut one);
    if let InstKind::Load { ptr } | InstKind::Store { ptr, .. } = &inst.kind {
        if let Some(pp) = mem.ptrs.of(*ptr) {
            for v in mem.ptrs.path(pp) {
                one(*v);
            }
        }
    }
}

/// The def-use edges of the instructions of `order` (store → loads of the
/// same alloca, and path operand → access, included), and the loads of each
/// alloca by position.
pub(crate) fn users(
    f: &Function,
    order: &[InstH],
    pos: &[u32],
    mem: &MemoryFacts,
) -> (Users, FxHashMap<usize, Vec<u32>>) {
    let len = order.len();
    // Count the users of each position, then fill one list (each position's
    // cursor starts at its first slot and ends at the next position's).
    let mut start = vec![0u32; len + 1];
    let mut loads_of: FxHashMap<usize, Vec<u32>> = FxHashMap::default();
    for (me, &h) in order.iter().enumerate() {
        deps(f, mem, pos, h, |d| {
            if let Some(c) = start.get_mut(d as usize + 1) {
                *c += 1;
            }
        });
        if let Some(InstKind::Load { ptr }) = f.insts.try_get(h).map(|i| &i.kind) {
            if let Some(Root::Alloca(a)) = mem.ptrs.of(*ptr).map(|p| p.root) {
                loads_of.entry(a).or_default().push(me as u32);
            }
        }
    }
    for i in 1..start.len() {
        start[i] += start[i - 1];
    }
    let mut list = vec![0u32; start.last().copied().unwrap_or(0) as usize];
    for (me, &h) in order.iter().enumerate() {
        deps(f, mem, pos, h, |d| {
            if let Some(c) = start.get_mut(d as usize) {
                if let Some(slot) = list.get_mut(*c as usize) {
                    *slot = me as u32;
                }
                *c += 1;
            }
        });
    }
    // Each cursor now holds the next position's start: shift them back.
    start.copy_within(0..len, 1);
    if let Some(s) = start.first_mut() {
        *s = 0;
    }
    (Users { start, list }, loads_of)
}

//! Which instructions the dataflow evaluates and how their values flow: the
//! backward slice of the values the rules read, and the def-use edges
//! between evaluated instructions (one list, cut per position).

use super::dataflow::{for_each_operand, MemoryFacts, Root, NO_SLOT};
use crate::ir::{Function, InstH, InstKind, Value};
use rustc_hash::FxHashMap;

/// The instructions the values of `roots` depend on: closed under operands
/// (phi inputs, addresses and their indices included); a load brings in every
/// store of the function with what it depends on, since loads of local
/// variables read the stores' values. A function without local variables
/// (no `alloca`: most PTX kernels) has no load that reads a store (only an
/// alloca roots such a pointer, `memory::resolve`), so there a load brings
/// in nothing more: the stored values (often the kernel's whole arithmetic)
/// stay unevaluated.
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
    // Set once the stores are in (or when no load can read them).
    let mut stores_added = !f.insts.iter().any(|(_, i)| matches!(i.kind, InstKind::Alloca { .. }));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinOp, Module};

    /// A kernel that stores a product and reads an address from memory
    /// (`read`, into `%r4`); `decl` declares what it needs.
    fn kernel(decl: &str, read: &str) -> Module {
        let text = format!(
            ".version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n{decl}\
             .reg .b32 %r<8>;\n.reg .b64 %rd<8>;\nld.param.u64 %rd1, [p];\nld.global.u32 %r1, [%rd1];\n\
             mul.lo.u32 %r2, %r1, 7;\nst.global.u32 [%rd1+4], %r2;\n{read}\ncvt.u64.u32 %rd3, %r4;\n\
             ld.global.u32 %r5, [%rd3];\nadd.u64 %rd2, %rd1, 16;\nld.global.u32 %r3, [%rd2];\nret;\n}}\n"
        );
        crate::ptx::lower(text.as_bytes(), 0).expect("reads")
    }

    /// The slice of the access addresses (one of which is loaded), and
    /// whether the stored product (`mul.lo`, the only multiply) is in it.
    fn product_in_slice(m: &Module) -> bool {
        let (_, f) = m.functions.iter().next().expect("a function");
        let roots = crate::analysis::ptxops::access_roots(m, f);
        let want = backward_slice(f, &roots);
        let is = |h: InstH, k: fn(&InstKind) -> bool| f.insts.try_get(h).is_some_and(|i| k(&i.kind));
        let (mul, _) = f
            .insts
            .iter()
            .find(|(_, i)| matches!(i.kind, InstKind::Binary { op: BinOp::Mul, .. }))
            .expect("the multiply");
        let sliced = |k: fn(&InstKind) -> bool| f.insts.iter().any(|(h, _)| is(h, k) && want[h.index()]);
        assert!(sliced(|k| matches!(k, InstKind::Binary { op: BinOp::Add, .. })), "address arithmetic");
        assert!(sliced(|k| matches!(k, InstKind::Load { .. })), "the load an address comes from");
        want[mul.index()]
    }

    #[test]
    fn without_local_variables_a_load_brings_in_no_stored_value() {
        let m = kernel("", "ld.global.u32 %r4, [%rd1+8];");
        assert!(!product_in_slice(&m));
    }

    #[test]
    fn with_a_local_variable_the_stores_and_their_values_are_in_the_slice() {
        let m = kernel(".local .align 4 .b8 depot[16];\n", "st.local.u32 [depot], %r2;\nld.local.u32 %r4, [depot];");
        assert!(product_in_slice(&m));
    }
}

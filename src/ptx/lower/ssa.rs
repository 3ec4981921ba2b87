//! SSA construction (Braun et al.): reading and writing registers per block,
//! phis at joins, sealing, and the final folding of trivial phis. A read of a
//! register whose only writer block dominates the reading one takes the value
//! at the end of that block directly (no phi can be needed there), without a
//! walk: the usual case, compilers writing most registers once.

use super::body::{Body, NOT_NOTED};
use super::phis::{map_values, Renumber, Repl};
use crate::ir::{Function, Inst, InstH, InstKind, Span, Value};
use crate::ptx::facts;
use crate::read::limits::MAX_PTX_SSA_WORK;
use crate::read::Result;

/// SSA work charged for one phi (its instruction and bookkeeping), on top of
/// one unit per operand.
const PHI_WORK: u64 = 16;

impl<'c, 'a> Body<'c, 'a> {
    // ---- SSA ------------------------------------------------------------------------

    /// Charges `n` units of SSA-construction work to the module's budget
    /// ([`MAX_PTX_SSA_WORK`]); past it, `over_budget` is set, reads return
    /// `undef` without work and the body is refused once the statement ends.
    pub(super) fn charge(&mut self, n: u64) -> bool {
        self.cx.ssa_work = self.cx.ssa_work.saturating_add(n);
        if self.cx.ssa_work > MAX_PTX_SSA_WORK {
            self.over_budget = true;
        }
        !self.over_budget
    }

    /// A phi of `var` at the top of block `b`, without operands: they go to
    /// `phi_ops` when it is completed, and into the instruction at the end if
    /// it is not folded away. Returns its index in `phis`.
    pub(super) fn new_phi(&mut self, b: usize, var: u32) -> u32 {
        let ty = self.var_ty(var);
        let sp = Span { offset: self.sp.offset, id: self.sp.id, loc: None };
        let h = self.f.insts.append(Inst { ty, kind: InstKind::Phi { incoming: Vec::new() }, span: sp });
        self.blocks[b].phis.push(h);
        self.phis.push(h);
        self.phi_range.push((0, 0));
        (self.phis.len() - 1) as u32
    }

    /// The operands of phi `i` (in `phis`) once completed.
    fn phi_operands(&self, i: usize) -> &[(Value, crate::ir::BlockH)] {
        let (start, len) = self.phi_range.get(i).copied().unwrap_or((0, 0));
        self.phi_ops.get(start..start + len).unwrap_or(&[])
    }

    /// The value of `var` at the end of `block`. Walks single-predecessor
    /// chains up to a definition, a join (a phi there) or an unsealed block
    /// (an incomplete phi). The answer is cached in the block asked, the block
    /// found and the blocks 1, 2, 4, 8, … steps up the walk: a later read below
    /// finds it in a few steps, and R reads of distinct registers down a chain
    /// of B blocks cache O(R log B) entries, not O(R·B). Every step and phi is
    /// charged to the SSA budget.
    pub(super) fn read_var(&mut self, var: u32, block: usize) -> Value {
        // The usual read: a value already known at the end of `block` (written
        // or cached there); nothing to walk or cache.
        if !self.over_budget {
            if let Some(v) = self.def(block, var) {
                return v;
            }
        }
        self.read_var_unknown(var, block)
    }

    /// [`Body::read_var`] once `def(block, var)` said nothing (or the
    /// budget is spent).
    fn read_var_unknown(&mut self, var: u32, block: usize) -> Value {
        if !self.over_budget {
            if let Some(v) = self.dominating_def(var, block) {
                return v;
            }
        }
        let mut chain: smallvec::SmallVec<[usize; 8]> = smallvec::SmallVec::new();
        let mut b = block;
        let mut steps = 0usize;
        let val = loop {
            if self.over_budget {
                let ty = self.var_ty(var);
                return self.cx.undef(ty);
            }
            // (Not known at `block` itself: the caller asked.)
            if let Some(v) = if steps == 0 && b == block { None } else { self.def(b, var) } {
                // Known at `b`: cached in the blocks below, not again in `b`.
                if b != block {
                    self.set_def(block, var, v);
                }
                for c in chain {
                    self.set_def(c, var, v);
                }
                return v;
            }
            if self.blocks[b].skip.is_some() || self.transparent(b).is_some() {
                match self.pass_up(b) {
                    Some(up) if up != b => {
                        steps += 1;
                        b = up;
                        continue;
                    }
                    Some(_) => {}
                    None => {
                        let ty = self.var_ty(var);
                        break self.cx.undef(ty);
                    }
                }
            }
            if !self.blocks[b].sealed || self.is_join(b) {
                if let Some(d) = self.above(b, var) {
                    if steps > 0 && steps.is_power_of_two() {
                        chain.push(b);
                    }
                    steps += 1;
                    self.charge(1);
                    b = d;
                    continue;
                }
            }
            if !self.blocks[b].sealed {
                self.charge(PHI_WORK);
                let phi = self.new_phi(b, var);
                self.blocks[b].incomplete.push((var, phi));
                break Value::Inst(self.phis[phi as usize]);
            }
            let preds = self.blocks[b].preds.as_slice();
            // A conditional branch to the next block gives two edges from one
            // block: one predecessor as far as values go.
            let preds = match preds {
                [p, rest @ ..] if rest.iter().all(|q| q == p) => &preds[..1],
                _ => preds,
            };
            match preds {
                [] => {
                    let ty = self.var_ty(var);
                    break self.cx.undef(ty);
                }
                [p] if steps <= self.blocks.len() => {
                    let p = *p;
                    if steps > 0 && steps.is_power_of_two() {
                        chain.push(b);
                    }
                    steps += 1;
                    self.charge(1);
                    b = p;
                }
                [_] => {
                    let ty = self.var_ty(var);
                    break self.cx.undef(ty);
                }
                preds => {
                    let n = preds.len() as u64;
                    self.charge(PHI_WORK + n);
                    let phi = self.new_phi(b, var);
                    self.work.push((var, phi, b));
                    break Value::Inst(self.phis[phi as usize]);
                }
            }
        };
        self.set_def(b, var, val);
        if b != block {
            self.set_def(block, var, val);
        }
        for c in chain {
            self.set_def(c, var, val);
        }
        val
    }

    /// The value of `var` at the start of `block` when one filled block, the
    /// only one that may write it, dominates `block`: its value at the end of
    /// that block, whatever the paths between (no phi could be needed). The
    /// usual read of a register written once (compilers write most of them
    /// once), without a walk or an entry cached per block.
    fn dominating_def(&mut self, var: u32, block: usize) -> Option<Value> {
        let name = self.name_id(var)?;
        let dom = self.dom.as_ref()?;
        let w = dom.sole_writer(name)?;
        if w == block || !self.blocks.get(w)?.filled || !dom.dominates(w, block) {
            return None;
        }
        self.def(w, var)
    }

    /// Whether `b` has two distinct predecessors or more.
    fn is_join(&self, b: usize) -> bool {
        match self.blocks[b].preds.as_slice() {
            [p, rest @ ..] => rest.iter().any(|q| q != p),
            [] => false,
        }
    }

    /// The immediate dominator of `b` when a read of `var` at the join (or
    /// unsealed block) `b` may take the value at its end: no instruction that
    /// may write `var` has `b` in its iterated dominance frontier, and the
    /// dominator is filled (its end value is final). `None`: make the phi.
    fn above(&mut self, b: usize, var: u32) -> Option<usize> {
        let name = self.name_id(var)?;
        let dom = self.dom.as_mut()?;
        let d = dom.idom(b)?;
        if !self.blocks.get(d).is_some_and(|x| x.filled) {
            return None;
        }
        let mut spent = 0;
        let need = dom.needs_phi(b, name, &mut spent);
        self.charge(spent);
        (!need).then_some(d)
    }

    pub(super) fn drain(&mut self) {
        while let Some((var, phi, b)) = self.work.pop() {
            // `read_var` completes no phi: this one's operands are consecutive.
            let start = self.phi_ops.len();
            let mut k = 0;
            while let Some(&p) = self.blocks[b].preds.get(k) {
                k += 1;
                let v = self.read_var(var, p);
                let pb = self.ir_block(p);
                self.phi_ops.push((v, pb));
            }
            if let Some(r) = self.phi_range.get_mut(phi as usize) {
                *r = (start, self.phi_ops.len() - start);
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

    /// The value of `var` in the block being filled.
    #[inline(always)]
    pub(super) fn read(&mut self, var: u32) -> Value {
        if self.deferred_mask & (1 << (var % 64)) != 0 {
            if let Some(i) = self.take_deferred(var) {
                self.make_member(i);
            }
        }
        if !self.over_budget {
            // The usual read: written (or read) before in this block.
            if let Some(v) = self.def_here(var) {
                return v;
            }
            if !self.defs.is_empty() {
                if let Some(v) = self.def_in_table(self.cur, var) {
                    return v;
                }
            }
        }
        let v = self.read_var_unknown(var, self.cur);
        if !self.work.is_empty() {
            self.drain();
        }
        v
    }

    #[inline]
    pub(super) fn write(&mut self, var: u32, v: Value) {
        if self.deferred_mask & (1 << (var % 64)) != 0 {
            // Overwritten before any read: that member is never made.
            if let Some(i) = self.take_deferred(var) {
                self.deferred[i].0 = u32::MAX;
            }
        }
        self.blocks[self.cur].writes = true;
        self.set_def(self.cur, var, v);
    }

    /// The value of `var` in the block being filled when it was met before
    /// (its name noted), is known in this block and no member waits for it:
    /// what [`Body::note_name`] and [`Body::read`] would give, with one look
    /// at its `Local`.
    #[inline(always)]
    pub(super) fn known_here(&self, var: u32) -> Option<Value> {
        if self.deferred_mask & (1 << (var % 64)) != 0 || self.over_budget {
            return None;
        }
        let x = self.met(var)?;
        (x.block == self.cur as u32 && x.name != NOT_NOTED).then_some(x.value)
    }

    /// The value of `var` in the block being filled when its `Local` knows
    /// it: written or read before in this block, or written in the one block
    /// that may write it, filled and dominating this one (what
    /// [`Body::read_var_unknown`] would find first, without its call, the
    /// table's hash or a cache entry: the usual read of a register another
    /// block wrote once). While a block is filled no other block is, so the
    /// table holds no other value of `var` for it.
    #[inline(always)]
    fn def_here(&self, var: u32) -> Option<Value> {
        let x = self.met(var)?;
        if x.block == self.cur as u32 {
            return Some(x.value);
        }
        let w = x.block as usize;
        let dom = self.dom.as_ref()?;
        if x.name == NOT_NOTED || dom.sole_writer(x.name) != Some(w) || !self.blocks.get(w)?.filled {
            return None;
        }
        dom.dominates(w, self.cur).then_some(x.value)
    }

    /// The value of `var` known at the end of block `b` (written or cached):
    /// the register's latest entry in `locals`, else the table.
    #[inline(always)]
    fn def(&self, b: usize, var: u32) -> Option<Value> {
        if let Some(x) = self.met(var) {
            if x.block == b as u32 {
                return Some(x.value);
            }
        }
        if self.defs.is_empty() {
            return None;
        }
        self.def_in_table(b, var)
    }

    #[inline(never)]
    fn def_in_table(&self, b: usize, var: u32) -> Option<Value> {
        self.defs.get(&def_key(b, var)).copied()
    }

    /// Records the value of `var` at the end of `b`. The register's
    /// `Local` holds its entry for the block being filled (where nearly every
    /// read and write goes) or its first one; an entry it gives up, and
    /// entries for other blocks, go to the table.
    #[inline(always)]
    pub(super) fn set_def(&mut self, b: usize, var: u32, v: Value) {
        if let Some(&l) = self.var_local.get(var as usize) {
            if let Some(x) = self.locals.get_mut((l as usize).wrapping_sub(1)) {
                if x.block == b as u32 || x.block == u32::MAX {
                    (x.block, x.value) = (b as u32, v);
                    return;
                }
            }
        }
        self.set_def_slow(b, var, v);
    }

    #[inline(never)]
    fn set_def_slow(&mut self, b: usize, var: u32, v: Value) {
        let l = self.local(var);
        let x = &mut self.locals[l];
        if x.block == b as u32 || x.block == u32::MAX {
            (x.block, x.value) = (b as u32, v);
        } else if b == self.cur {
            let (ob, ov) = (x.block, x.value);
            (x.block, x.value) = (b as u32, v);
            self.defs.insert(def_key(ob as usize, var), ov);
        } else {
            self.defs.insert(def_key(b, var), v);
        }
    }

    /// The one predecessor of `b` when `b` passes every value through: filled,
    /// sealed, one distinct predecessor (not itself), no register written.
    /// Once true it stays true (a filled block gains no writes, a sealed one
    /// stays sealed).
    fn transparent(&self, b: usize) -> Option<usize> {
        let blk = &self.blocks[b];
        if !blk.filled || !blk.sealed || blk.writes {
            return None;
        }
        match blk.preds.as_slice() {
            [p, rest @ ..] if *p != b && rest.iter().all(|q| q == p) => Some(*p),
            _ => None,
        }
    }

    /// The first block at or above `b` that is not transparent, following and
    /// compressing `skip` links: a straight chain of B empty blocks costs O(B)
    /// once, not once per register read. `None` on a cycle of transparent
    /// blocks (unreachable code).
    fn pass_up(&mut self, b: usize) -> Option<usize> {
        let mut x = b;
        let mut path: Vec<usize> = Vec::new();
        loop {
            if path.len() > self.blocks.len() {
                return None;
            }
            if let Some(s) = self.blocks[x].skip.filter(|&s| s != x) {
                path.push(x);
                x = s;
                continue;
            }
            match self.transparent(x) {
                Some(p) => {
                    path.push(x);
                    x = p;
                }
                None => break,
            }
        }
        self.charge(path.len() as u64);
        for p in path {
            self.blocks[p].skip = Some(x);
        }
        Some(x)
    }

    // ---- end ------------------------------------------------------------------------

    pub(super) fn finish(mut self) -> Result<(Function, Vec<facts::Pending>)> {
        // Fold trivial phis (all operands the same value or the phi itself),
        // to a fixed point: a phi whose operands collapse becomes trivial in
        // turn, however long the chain (one per loop of a nest). Replacements
        // form a forest resolved by `Repl::find` with path compression; a work
        // list revisits only the phis that use a removed one.
        let mut repl = Repl::new(self.f.insts.len(), &self.phis);
        if !self.phis.is_empty() {
            let n = self.phis.len();
            // Users of each phi among the phis, in compressed rows.
            let mut count = vec![0u32; n + 1];
            for i in 0..n {
                for (v, _) in self.phi_operands(i) {
                    if let Some(j) = repl.phi_index(*v) {
                        if j != i {
                            count[j + 1] += 1;
                        }
                    }
                }
            }
            for j in 0..n {
                count[j + 1] += count[j];
            }
            let mut fill = count.clone();
            let mut users = vec![0u32; count[n] as usize];
            for i in 0..n {
                for (v, _) in self.phi_operands(i) {
                    if let Some(j) = repl.phi_index(*v) {
                        if j != i {
                            users[fill[j] as usize] = i as u32;
                            fill[j] += 1;
                        }
                    }
                }
            }
            drop(fill);
            let mut queued = vec![true; n];
            let mut work: Vec<u32> = (0..n as u32).rev().collect();
            while let Some(i) = work.pop() {
                let i = i as usize;
                queued[i] = false;
                if repl.removed(i) {
                    continue;
                }
                let h = self.phis[i];
                let mut unique: Option<Value> = None;
                let mut trivial = true;
                let (start, len) = self.phi_range[i];
                for (v, _) in self.phi_ops.get(start..start + len).unwrap_or(&[]) {
                    let v = repl.find(*v);
                    if v == Value::Inst(h) || Some(v) == unique {
                        continue;
                    }
                    if unique.is_some() {
                        trivial = false;
                        break;
                    }
                    unique = Some(v);
                }
                if !trivial {
                    continue;
                }
                let v = match unique {
                    Some(v) => v,
                    None => {
                        let ty = self.f.insts[h].ty;
                        self.cx.undef(ty)
                    }
                };
                repl.set(i, v);
                for &u in &users[count[i] as usize..count[i + 1] as usize] {
                    if !queued[u as usize] {
                        queued[u as usize] = true;
                        work.push(u);
                    }
                }
            }
        }
        // Removed phis leave the arena: the function keeps only the
        // instructions its blocks hold, numbered in the order they were made.
        let renum = if repl.any { Renumber::new(&repl, self.f.insts.len()) } else { Renumber::default() };
        if repl.any {
            // An instruction's operands were made before it (a phi's are
            // mapped below): those before the first removed phi name none
            // and keep their numbers.
            for i in renum.first_dead()..self.f.insts.len() {
                let Some(h) = InstH::from_index(i) else { continue };
                if renum.dead(h) {
                    continue;
                }
                map_values(&mut self.f.insts[h].kind, |v| renum.value(repl.find(v)));
            }
            for p in &mut self.facts {
                p.map_values(|v| renum.value(repl.find(v)));
                p.map_inst(|h| renum.inst(h));
            }
        }
        // The phis kept get their operands (the others were never given any).
        for (i, &h) in self.phis.iter().enumerate() {
            if repl.removed(i) {
                continue;
            }
            let (start, len) = self.phi_range[i];
            let ops = self.phi_ops.get(start..start + len).unwrap_or(&[]);
            let incoming = ops.iter().map(|&(v, b)| (renum.value(repl.find(v)), b)).collect();
            self.f.insts[h].kind = InstKind::Phi { incoming };
        }
        if repl.any {
            self.f.insts.retain_indexed(|i| !renum.dead_index(i));
            for (h, _) in &mut self.f.mem_accesses {
                *h = renum.inst(*h);
            }
        }
        for (i, b) in self.blocks.iter_mut().enumerate() {
            let Some(ir) = b.ir else { continue };
            let body = self.body_insts.get(b.body.0 as usize..b.body.1 as usize).unwrap_or(&[]);
            let extra = if i == 0 { self.entry_allocas.len() } else { 0 };
            let mut insts: Vec<InstH> = Vec::with_capacity(b.phis.len() + extra + body.len());
            insts.extend(b.phis.iter().copied().filter(|h| !renum.dead(*h)));
            if i == 0 {
                insts.append(&mut self.entry_allocas);
            }
            insts.extend_from_slice(body);
            self.f.blocks[ir].insts = insts;
        }
        if repl.any {
            // Every block's list, the exits `terminate` added included.
            for i in 0..self.f.blocks.len() {
                let Some(bh) = crate::ir::BlockH::from_index(i) else { continue };
                for h in &mut self.f.blocks[bh].insts {
                    *h = renum.inst(*h);
                }
            }
        }
        // The arena was sized from the instruction count and grew for phis:
        // give back what the function does not use (it lives until checked).
        self.f.insts.shrink_to_fit();
        Ok((self.f, self.facts))
    }
}

/// The key of `var` in block `b` in [`Body::defs`].
fn def_key(b: usize, var: u32) -> u64 {
    (b as u64) << 32 | u64::from(var)
}

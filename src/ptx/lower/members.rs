//! Members of multi-result instructions (`wgmma`, `ld.v4`, `tcgen05.ld`…)
//! made where they are read: a member's `extractvalue` is deferred until its
//! register is read in the block, or the block ends, and never made when the
//! register is written again first.

use super::body::Body;
use crate::ir::{InstKind, Value};

impl<'c, 'a> Body<'c, 'a> {
    /// Writes member `k` of the multi-result instruction `agg` to `var`
    /// when it is needed: at the first read of `var` in this block, or at
    /// the block's end ([`Body::flush_deferred`]); never when `var` is
    /// written again first. (A `wgmma` writes 64-128 accumulator registers
    /// that the next one overwrites: their `extractvalue`s were most of a
    /// GEMM kernel's IR.)
    pub(super) fn defer_member(&mut self, var: u32, agg: Value, k: u32, ty: crate::ir::TypeH) {
        if let Some(i) = self.take_deferred(var) {
            self.deferred[i].0 = u32::MAX;
        }
        let v = var as usize;
        if self.deferred_at.len() <= v {
            // Zeroed, sized for every register declared so far (a later
            // declaration makes it larger once more).
            let mut grown = vec![0u32; (self.nvars as usize).max(v + 1)];
            grown[..self.deferred_at.len()].copy_from_slice(&self.deferred_at);
            self.deferred_at = grown;
        }
        self.blocks[self.cur].writes = true;
        self.deferred_mask |= 1 << (var % 64);
        if self.deferred.len() >= 256 && self.deferred.len() == self.deferred.capacity() {
            self.compact_deferred();
        }
        self.deferred_at[v] = self.deferred.len() as u32 + 1;
        self.deferred.push((var, agg, k, ty, self.sp));
    }

    /// Drops the entries of `deferred` made or overwritten since (a long
    /// block defers many members and reads most of them soon: the list
    /// keeps only those still pending, so it never outgrows the registers).
    fn compact_deferred(&mut self) {
        self.deferred.retain(|e| e.0 != u32::MAX);
        for (i, e) in self.deferred.iter().enumerate() {
            if let Some(slot) = self.deferred_at.get_mut(e.0 as usize) {
                *slot = i as u32 + 1;
            }
        }
    }

    /// The entry in `deferred` of register `var`, taken off it.
    pub(super) fn take_deferred(&mut self, var: u32) -> Option<usize> {
        let slot = self.deferred_at.get_mut(var as usize)?;
        let e = std::mem::take(slot);
        (e != 0).then(|| e as usize - 1)
    }

    /// Makes the `extractvalue` of deferred member `i` (at the current
    /// position, with the span of the instruction that computed it) and
    /// writes its register.
    pub(super) fn make_member(&mut self, i: usize) {
        let Some(&(var, agg, k, ty, sp)) = self.deferred.get(i) else { return };
        if var == u32::MAX {
            return;
        }
        self.deferred[i].0 = u32::MAX;
        let at = std::mem::replace(&mut self.sp, sp);
        let part = self.emit(ty, InstKind::ExtractValue { agg, indices: smallvec::smallvec![k] });
        self.sp = at;
        self.blocks[self.cur].writes = true;
        self.set_def(self.cur, var, part);
    }

    /// Makes the members still deferred at the end of the block being
    /// filled (before its terminator), in the order they were written.
    pub(super) fn flush_deferred(&mut self) {
        if self.deferred.is_empty() {
            return;
        }
        self.deferred_mask = 0;
        for i in 0..self.deferred.len() {
            if let Some(&(var, ..)) = self.deferred.get(i) {
                if let Some(slot) = self.deferred_at.get_mut(var as usize) {
                    *slot = 0;
                }
            }
            self.make_member(i);
        }
        self.deferred.clear();
    }
}

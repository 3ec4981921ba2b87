//! Dominators of a body's blocks, their dominance frontiers, and where each
//! register may need a phi: the iterated dominance frontier of the blocks
//! that may write it (Cytron et al.), with the dominators computed by the
//! iterative algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast
//! Dominance Algorithm", 2001) over reverse post-order.
//!
//! Pass 1 knows the blocks, the edges and the names each block's instructions
//! write (a superset of the registers written: a name in any scope). A read
//! that reaches a join outside the IDF of its register's writers takes the
//! value at the end of the join's immediate dominator instead of making a phi
//! that the final folding would remove (see `ssa::Body::read_var`). Only for
//! reducible CFGs whose reachable part no unreachable block enters; anything
//! else keeps the plain on-the-fly construction.

use super::body::Blk;

const NONE: u32 = u32::MAX;

/// The name id of a register no instruction writes.
pub(super) const NEVER_WRITTEN: u32 = u32::MAX - 1;

pub(super) struct Dom {
    /// Immediate dominator of each block (the entry's is itself).
    idom: Vec<u32>,
    /// Each reachable block's interval in a depth-first walk of the
    /// dominator tree (entry, exit): `a` dominates `b` iff `b`'s lies in `a`'s.
    tree: Vec<(u32, u32)>,
    /// Dominance frontier of each block, in compressed rows.
    df_start: Vec<u32>,
    df: Vec<u32>,
    /// Blocks that may write each name, in compressed rows.
    def_start: Vec<u32>,
    defs: Vec<u32>,
    /// Each name's iterated dominance frontier, sorted, once computed:
    /// (start, len) in `idf_blocks`; start `NONE` until then.
    idf: Vec<(u32, u32)>,
    idf_blocks: Vec<u32>,
    seen: Vec<u32>,
    queued: Vec<u32>,
    gen: u32,
    work: Vec<u32>,
    /// Frontier steps the IDFs may still take in this body; past them every
    /// join gets its phi as in the plain construction.
    idf_left: u64,
}

impl Dom {
    /// Dominators and frontiers of `blocks` (edges in `succs`/`preds`) and the
    /// writers of `names` names from `writes` (name, block) pairs. `None` when
    /// the CFG is irreducible, an unreachable block enters reachable ones, or
    /// the work passes `cap`. Adds the work done to `spent`.
    pub(super) fn build(
        blocks: &[Blk],
        mut writes: Vec<(u32, u32)>,
        names: usize,
        cap: u64,
        spent: &mut u64,
    ) -> Option<Dom> {
        let n = blocks.len();
        let mut steps = 0u64;
        // Depth-first search from the entry: post-order and retreating edges.
        let mut state = vec![0u8; n];
        let mut post: Vec<u32> = Vec::with_capacity(n);
        let mut retreat: Vec<(u32, u32)> = Vec::new();
        let mut stack: Vec<(usize, usize)> = Vec::new();
        if n > 0 {
            state[0] = 1;
            stack.push((0, 0));
        }
        while let Some(top) = stack.last_mut() {
            let (b, k) = *top;
            if let Some(&s) = blocks[b].succs.get(k) {
                top.1 += 1;
                steps += 1;
                match state.get(s) {
                    Some(0) => {
                        state[s] = 1;
                        stack.push((s, 0));
                    }
                    Some(1) => retreat.push((b as u32, s as u32)),
                    _ => {}
                }
            } else {
                state[b] = 2;
                post.push(b as u32);
                stack.pop();
            }
        }
        for (b, blk) in blocks.iter().enumerate() {
            if state[b] == 0 && blk.succs.iter().any(|&s| state.get(s).is_some_and(|&x| x != 0)) {
                *spent += steps;
                return None;
            }
        }
        let mut rpo = vec![NONE; n];
        for (k, &b) in post.iter().rev().enumerate() {
            rpo[b as usize] = k as u32;
        }
        let mut idom = vec![NONE; n];
        if n > 0 {
            idom[0] = 0;
        }
        let mut changed = true;
        while changed {
            changed = false;
            for &b in post.iter().rev().skip(1) {
                let b = b as usize;
                let mut new = NONE;
                for &p in &blocks[b].preds {
                    if idom[p] == NONE {
                        continue;
                    }
                    let p = p as u32;
                    if new == NONE {
                        new = p;
                        continue;
                    }
                    let (mut x, mut y) = (p, new);
                    while x != y {
                        while rpo[x as usize] > rpo[y as usize] {
                            x = idom[x as usize];
                            steps += 1;
                        }
                        while rpo[y as usize] > rpo[x as usize] {
                            y = idom[y as usize];
                            steps += 1;
                        }
                    }
                    new = x;
                }
                steps += blocks[b].preds.len() as u64;
                if idom[b] != new {
                    idom[b] = new;
                    changed = true;
                }
                if steps > cap {
                    *spent += steps;
                    return None;
                }
            }
        }
        // Reducible: every retreating edge goes to a block dominating its source.
        for (u, v) in retreat {
            let mut x = u;
            while x != v && x != 0 {
                x = idom[x as usize];
                steps += 1;
            }
            if x != v || steps > cap {
                *spent += steps;
                return None;
            }
        }
        // Frontiers: each join is in the frontier of the blocks from each
        // predecessor up to (not including) its immediate dominator. Their
        // total size can grow with the square of the blocks (deep loop nests):
        // past a few entries per block and edge, phis are left to the plain
        // construction.
        let edges: usize = blocks.iter().map(|b| b.preds.len()).sum();
        let max_pairs = 8 * (n + edges) + 1024;
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        // The last join each block was put in the frontier of: two
        // predecessors' walks may meet below the immediate dominator.
        let mut last = vec![NONE; n];
        for (b, blk) in blocks.iter().enumerate() {
            if idom[b] == NONE || blk.preds.len() < 2 {
                continue;
            }
            for &p in &blk.preds {
                let mut r = p as u32;
                while r != idom[b] && r != NONE {
                    if last[r as usize] != b as u32 {
                        last[r as usize] = b as u32;
                        pairs.push((r, b as u32));
                    }
                    steps += 1;
                    if r == 0 {
                        break;
                    }
                    r = idom[r as usize];
                }
            }
            if steps > cap || pairs.len() > max_pairs {
                *spent += steps;
                return None;
            }
        }
        let (df_start, df) = rows(n, &pairs);
        let tree = intervals(&idom, &mut steps);
        // `writes` come block after block, each (name, block) pair once.
        writes.retain(|&(_, b)| idom.get(b as usize).is_some_and(|&d| d != NONE));
        let (def_start, defs) = rows(names, &writes);
        *spent += steps + pairs.len() as u64 + writes.len() as u64;
        let idf_left = 8 * (pairs.len() as u64 + n as u64) + 1024;
        Some(Dom {
            idf_left,
            idom,
            tree,
            df_start,
            df,
            def_start,
            defs,
            idf: vec![(NONE, 0); names],
            idf_blocks: Vec::new(),
            seen: vec![0; n],
            queued: vec![0; n],
            gen: 0,
            work: Vec::new(),
        })
    }

    /// The immediate dominator of reachable block `b` (not the entry).
    pub(super) fn idom(&self, b: usize) -> Option<usize> {
        match self.idom.get(b) {
            Some(&d) if d != NONE && d as usize != b => Some(d as usize),
            _ => None,
        }
    }

    /// The one block that may write `name`, when there is one.
    pub(super) fn sole_writer(&self, name: u32) -> Option<usize> {
        let k = name as usize;
        let (a, z) = (*self.def_start.get(k)?, *self.def_start.get(k + 1)?);
        if z != a + 1 {
            return None;
        }
        self.defs.get(a as usize).map(|&b| b as usize)
    }

    /// Whether reachable block `a` dominates reachable block `b` (`false`
    /// when either is unreachable).
    pub(super) fn dominates(&self, a: usize, b: usize) -> bool {
        match (self.tree.get(a), self.tree.get(b)) {
            (Some(&(ia, oa)), Some(&(ib, ob))) => ia != NONE && ib != NONE && ia <= ib && ob <= oa,
            _ => false,
        }
    }

    /// Whether a register named `name` may need a phi at block `b`: `b` is in
    /// the iterated dominance frontier of the blocks that may write it. The
    /// frontier is computed on the first question about the name; its steps
    /// are added to `spent`.
    pub(super) fn needs_phi(&mut self, b: usize, name: u32, spent: &mut u64) -> bool {
        if name == NEVER_WRITTEN {
            return false;
        }
        let Some(&(start, len)) = self.idf.get(name as usize) else { return true };
        let (start, len) = if start != NONE {
            (start, len)
        } else {
            match self.compute(name as usize, spent) {
                Some(r) => r,
                None => return true,
            }
        };
        let set = self.idf_blocks.get(start as usize..(start + len) as usize).unwrap_or(&[]);
        set.binary_search(&(b as u32)).is_ok()
    }

    /// The IDF of `name`'s writers, stored in `idf_blocks`; `None` once the
    /// body's frontier steps are spent.
    fn compute(&mut self, name: usize, spent: &mut u64) -> Option<(u32, u32)> {
        if self.idf_left == 0 {
            return None;
        }
        self.gen = self.gen.wrapping_add(1);
        if self.gen == 0 {
            self.seen.iter_mut().for_each(|s| *s = 0);
            self.queued.iter_mut().for_each(|s| *s = 0);
            self.gen = 1;
        }
        let gen = self.gen;
        let start = self.idf_blocks.len();
        let (a, z) = (self.def_start[name] as usize, self.def_start[name + 1] as usize);
        self.work.clear();
        for &d in &self.defs[a..z] {
            self.queued[d as usize] = gen;
            self.work.push(d);
        }
        let mut steps = 0u64;
        while let Some(x) = self.work.pop() {
            let x = x as usize;
            let (a, z) = (self.df_start[x] as usize, self.df_start[x + 1] as usize);
            steps += (z - a) as u64;
            if steps > self.idf_left {
                self.idf_left = 0;
                self.idf_blocks.truncate(start);
                *spent += steps;
                return None;
            }
            for &y in &self.df[a..z] {
                let yu = y as usize;
                if self.seen[yu] != gen {
                    self.seen[yu] = gen;
                    self.idf_blocks.push(y);
                }
                if self.queued[yu] != gen {
                    self.queued[yu] = gen;
                    self.work.push(y);
                }
            }
        }
        *spent += steps + 1;
        self.idf_left -= steps.min(self.idf_left);
        self.idf_blocks[start..].sort_unstable();
        let r = (start as u32, (self.idf_blocks.len() - start) as u32);
        self.idf[name] = r;
        Some(r)
    }
}

/// Entry and exit numbers of each block in a depth-first walk of the
/// dominator tree given by `idom` (`NONE` for unreachable blocks); the
/// steps taken are added to `steps`.
fn intervals(idom: &[u32], steps: &mut u64) -> Vec<(u32, u32)> {
    let n = idom.len();
    let kids: Vec<(u32, u32)> =
        (1..n).filter(|&b| idom[b] != NONE && idom[b] as usize != b).map(|b| (idom[b], b as u32)).collect();
    let (start, child) = rows(n, &kids);
    let mut tree = vec![(NONE, NONE); n];
    let mut clock = 0u32;
    let mut stack: Vec<(u32, u32)> = Vec::new();
    if n > 0 {
        tree[0].0 = 0;
        stack.push((0, start[0]));
    }
    while let Some(top) = stack.last_mut() {
        let (b, k) = *top;
        *steps += 1;
        if k < start[b as usize + 1] {
            top.1 += 1;
            let c = child[k as usize];
            clock += 1;
            tree[c as usize].0 = clock;
            stack.push((c, start[c as usize]));
        } else {
            clock += 1;
            tree[b as usize].1 = clock;
            stack.pop();
        }
    }
    tree
}

/// Compressed rows of `n` keys from (key, value) pairs (a counting sort:
/// each row keeps the pairs' order; keys past `n` are dropped).
fn rows(n: usize, pairs: &[(u32, u32)]) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; n + 1];
    for &(k, _) in pairs {
        if let Some(s) = start.get_mut(k as usize + 1) {
            *s += 1;
        }
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut vals = vec![0u32; start[n] as usize];
    for &(k, v) in pairs {
        if let Some(f) = fill.get_mut(k as usize).filter(|_| (k as usize) < n) {
            vals[*f as usize] = v;
            *f += 1;
        }
    }
    (start, vals)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 0 → {1, 2} → 3 ⇄ 4 → 5: a diamond, then a loop.
    fn cfg() -> Vec<Blk> {
        let edges = [(0, 1), (0, 2), (1, 3), (2, 3), (3, 4), (4, 3), (4, 5)];
        let mut blocks: Vec<Blk> = (0..6).map(|_| Blk::default()).collect();
        for (a, b) in edges {
            blocks[a].succs.push(b);
            blocks[b].preds.push(a);
        }
        blocks
    }

    #[test]
    fn dominance_and_sole_writers() {
        let blocks = cfg();
        // Name 0 written in block 1 only, name 1 in blocks 1 and 4.
        let writes = vec![(0, 1), (1, 1), (1, 4)];
        let mut spent = 0;
        let dom = Dom::build(&blocks, writes, 2, 1 << 20, &mut spent).expect("reducible");
        assert_eq!((dom.idom(3), dom.idom(4), dom.idom(5)), (Some(0), Some(3), Some(4)));
        for b in 0..6 {
            assert!(dom.dominates(0, b) && dom.dominates(b, b), "block {b}");
        }
        assert!(dom.dominates(3, 4) && dom.dominates(3, 5) && dom.dominates(4, 5));
        assert!(!dom.dominates(1, 3) && !dom.dominates(2, 3) && !dom.dominates(4, 3) && !dom.dominates(5, 4));
        assert!(!dom.dominates(1, 2) && !dom.dominates(2, 1));
        assert_eq!(dom.sole_writer(0), Some(1));
        assert_eq!(dom.sole_writer(1), None);
        assert_eq!(dom.sole_writer(7), None);
        assert!(spent > 0);
    }
}

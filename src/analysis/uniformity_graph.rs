//! The control-flow graph the uniformity analysis walks: reachable blocks in
//! reverse post-order, immediate post-dominators and natural loops.

use super::*;

/// The CFG with what the analysis needs: reachable blocks in reverse
/// post-order, predecessors, immediate post-dominators and natural loops.
pub(super) struct Graph {
    pub(super) n: usize,
    pub(super) succs: Vec<Vec<usize>>,
    pub(super) rpo: Vec<usize>,
    /// Immediate post-dominator (`n` is the virtual exit).
    pub(super) ipdom: Vec<usize>,
    pub(super) loops: Vec<Loop>,
    pub(super) block_loops: Vec<Vec<u32>>,
}

pub(super) struct Loop {
    pub(super) exiting: Vec<usize>,
}

/// Cooper, Harvey and Kennedy's iterative dominators over nodes numbered by
/// `order` (the root first); `preds` in node numbering. Returns the idom by
/// node (the root's is itself; unreachable nodes `usize::MAX`).
pub(super) fn idoms(n: usize, order: &[usize], preds: &[Vec<usize>]) -> Vec<usize> {
    let mut pos = vec![usize::MAX; n];
    for (i, b) in order.iter().enumerate() {
        pos[*b] = i;
    }
    let mut idom = vec![usize::MAX; n];
    let Some(&root) = order.first() else { return idom };
    idom[root] = root;
    let intersect = |idom: &[usize], mut a: usize, mut b: usize| {
        while a != b {
            while pos[a] > pos[b] {
                a = idom[a];
            }
            while pos[b] > pos[a] {
                b = idom[b];
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order.iter().skip(1) {
            let mut new = usize::MAX;
            for &p in &preds[b] {
                if idom[p] == usize::MAX {
                    continue;
                }
                new = if new == usize::MAX { p } else { intersect(&idom, p, new) };
            }
            if new != usize::MAX && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom
}

pub(super) fn post_order(start: usize, next: &[Vec<usize>]) -> Vec<usize> {
    let mut seen = vec![false; next.len()];
    let mut out = Vec::new();
    let mut stack = vec![(start, 0usize)];
    seen[start] = true;
    while let Some((b, i)) = stack.pop() {
        if let Some(&s) = next[b].get(i) {
            stack.push((b, i + 1));
            if !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            out.push(b);
        }
    }
    out
}

impl Graph {
    pub(super) fn new(f: &Function) -> Option<Graph> {
        let n = f.blocks.len();
        let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (bh, b) in f.blocks.iter() {
            if let Some(term) = b.insts.last().and_then(|h| f.insts.try_get(*h)) {
                for s in term.kind.successors() {
                    if s.index() < n && !succs[bh.index()].contains(&s.index()) {
                        succs[bh.index()].push(s.index());
                    }
                }
            }
        }
        let mut rpo = post_order(0, &succs);
        rpo.reverse();
        let mut reachable = vec![false; n];
        for b in &rpo {
            reachable[*b] = true;
        }
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
        for &b in &rpo {
            for &s in &succs[b] {
                preds[s].push(b);
            }
        }
        let idom = idoms(n, &rpo, &preds);
        let mut pos = vec![usize::MAX; n];
        for (i, b) in rpo.iter().enumerate() {
            pos[*b] = i;
        }
        let dominates = |a: usize, mut b: usize| loop {
            if a == b {
                return true;
            }
            let d = idom[b];
            if d == b || d == usize::MAX {
                return false;
            }
            b = d;
        };
        // Natural loops from back edges; a retreating edge that is no back edge
        // means irreducible control flow.
        let mut bodies: Vec<(usize, Vec<bool>)> = Vec::new();
        for &b in &rpo {
            for &s in &succs[b] {
                if pos[s] > pos[b] {
                    continue;
                }
                if !dominates(s, b) {
                    return None;
                }
                let body = match bodies.iter_mut().find(|(h, _)| *h == s) {
                    Some((_, body)) => body,
                    None => {
                        bodies.push((s, vec![false; n]));
                        &mut bodies.last_mut()?.1
                    }
                };
                body[s] = true;
                let mut stack = vec![b];
                while let Some(x) = stack.pop() {
                    if body[x] {
                        continue;
                    }
                    body[x] = true;
                    stack.extend(preds[x].iter().copied());
                }
            }
        }
        let mut block_loops = vec![Vec::new(); n];
        let mut loops = Vec::new();
        for (li, (_, body)) in bodies.iter().enumerate() {
            let mut exiting = Vec::new();
            for (b, inside) in body.iter().enumerate() {
                if !inside {
                    continue;
                }
                block_loops[b].push(li as u32);
                if succs[b].iter().any(|s| !body[*s]) {
                    exiting.push(b);
                }
            }
            loops.push(Loop { exiting });
        }
        // Post-dominators on the reversed graph with a virtual exit `n`.
        let mut rsuccs: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
        let mut rpreds: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
        for &b in &rpo {
            if succs[b].is_empty() {
                rsuccs[n].push(b);
                rpreds[b].push(n);
            }
            for &s in &succs[b] {
                rsuccs[s].push(b);
                rpreds[b].push(s);
            }
        }
        let mut rorder = post_order(n, &rsuccs);
        rorder.reverse();
        let mut reaches_exit = vec![false; n + 1];
        for b in &rorder {
            reaches_exit[*b] = true;
        }
        if rpo.iter().any(|b| !reaches_exit[*b]) {
            return None;
        }
        let ipdom = idoms(n + 1, &rorder, &rpreds);
        Some(Graph { n, succs, rpo, ipdom, loops, block_loops })
    }

    /// Per branching block: the blocks control dependent on it (walk each
    /// successor up the post-dominator tree to the branch's own post-dominator).
    pub(super) fn control_dependence(&self) -> Option<Vec<Vec<usize>>> {
        let mut cd = vec![Vec::new(); self.n];
        let mut total = 0usize;
        // `added[r] == a + 1`: r is already in cd[a].
        let mut added = vec![0usize; self.n];
        for &a in &self.rpo {
            if self.succs[a].len() < 2 {
                continue;
            }
            let stop = self.ipdom[a];
            for &s in &self.succs[a] {
                let mut r = s;
                while r != stop && r < self.n {
                    if added[r] != a + 1 {
                        added[r] = a + 1;
                        cd[a].push(r);
                        total += 1;
                        if total > MAX_CD {
                            return None;
                        }
                    }
                    let up = self.ipdom[r];
                    if up == r || up == usize::MAX {
                        break;
                    }
                    r = up;
                }
            }
        }
        Some(cd)
    }
}

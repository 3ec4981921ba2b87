//! Control-flow graph of one function: successors from the terminators,
//! reachability from the entry and reverse post-order.

use crate::ir::{BlockH, Function};

/// The CFG of a function.
#[derive(Debug, Clone)]
pub struct Cfg {
    /// Reachable blocks in reverse post-order (entry first).
    pub rpo: Vec<BlockH>,
    /// `reachable[block index]`.
    pub reachable: Vec<bool>,
}

impl Cfg {
    /// Builds the CFG. Successors outside the function's block arena are ignored.
    ///
    /// The successors of each block, each once in the order its terminator
    /// names them, are kept in one list (`succ[start[b]..start[b + 1]]`). The
    /// depth-first walk is the usual post-order one (a block's unvisited
    /// successors are pushed in order, so the last one is entered first).
    pub fn new(f: &Function) -> Cfg {
        let n = f.blocks.len();
        let mut start: Vec<u32> = Vec::with_capacity(n + 1);
        let mut succ: Vec<u32> = Vec::with_capacity(n * 2);
        // `seen[s] == b + 1`: block `b` already lists `s`.
        let mut seen = vec![0u32; n];
        for (bh, b) in f.blocks.iter() {
            start.push(succ.len() as u32);
            let stamp = bh.index() as u32 + 1;
            if let Some(term) = b.insts.last().and_then(|h| f.insts.try_get(*h)) {
                for s in term.kind.successors() {
                    if let Some(mark) = seen.get_mut(s.index()) {
                        if *mark != stamp {
                            *mark = stamp;
                            succ.push(s.index() as u32);
                        }
                    }
                }
            }
        }
        start.push(succ.len() as u32);
        let succ_of = |b: usize| -> &[u32] {
            match (start.get(b), start.get(b + 1)) {
                (Some(&a), Some(&e)) => succ.get(a as usize..e as usize).unwrap_or(&[]),
                _ => &[],
            }
        };
        let mut reachable = vec![false; n];
        let mut finished = vec![false; n];
        let mut rpo = Vec::new();
        if n > 0 {
            let mut stack: Vec<u32> = vec![0];
            while let Some(&b) = stack.last() {
                let bi = b as usize;
                if !reachable[bi] {
                    reachable[bi] = true;
                    stack.extend(succ_of(bi).iter().copied().filter(|s| !reachable[*s as usize]));
                } else {
                    stack.pop();
                    if !finished[bi] {
                        finished[bi] = true;
                        if let Some(h) = BlockH::from_index(bi) {
                            rpo.push(h);
                        }
                    }
                }
            }
            rpo.reverse();
        }
        Cfg { rpo, reachable }
    }

    /// Is the block reachable from the entry?
    pub fn is_reachable(&self, b: BlockH) -> bool {
        self.reachable.get(b.index()).copied().unwrap_or(false)
    }
}

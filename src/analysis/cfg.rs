//! Control-flow graph of one function: successors from the terminators,
//! reachability from the entry and reverse post-order.

use crate::ir::{BlockH, Function};
use petgraph::graphmap::DiGraphMap;
use petgraph::visit::DfsPostOrder;
use rustc_hash::FxBuildHasher;

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
    pub fn new(f: &Function) -> Cfg {
        let n = f.blocks.len();
        let mut g: DiGraphMap<u32, (), FxBuildHasher> = DiGraphMap::with_capacity(n, n * 2);
        for (bh, b) in f.blocks.iter() {
            let from = bh.index() as u32;
            g.add_node(from);
            if let Some(term) = b.insts.last().and_then(|h| f.insts.try_get(*h)) {
                for s in term.kind.successors() {
                    if s.index() < n {
                        g.add_edge(from, s.index() as u32, ());
                    }
                }
            }
        }
        let mut reachable = vec![false; n];
        let mut rpo = Vec::new();
        if n > 0 {
            let mut dfs = DfsPostOrder::new(&g, 0u32);
            while let Some(b) = dfs.next(&g) {
                if let Some(r) = reachable.get_mut(b as usize) {
                    *r = true;
                }
                if let Some(h) = BlockH::from_index(b as usize) {
                    rpo.push(h);
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

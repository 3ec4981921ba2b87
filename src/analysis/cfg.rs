//! Control-flow graph of one function: successors from the terminators,
//! reachability from the entry and reverse post-order.

use crate::ir::{BlockH, Function, InstKind};

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
                // `InstKind::successors`, without a vector per block.
                let mut add = |s: BlockH| {
                    if let Some(mark) = seen.get_mut(s.index()) {
                        if *mark != stamp {
                            *mark = stamp;
                            succ.push(s.index() as u32);
                        }
                    }
                };
                match &term.kind {
                    InstKind::Br { target } => add(*target),
                    InstKind::CondBr { if_true, if_false, .. } => {
                        add(*if_true);
                        add(*if_false);
                    }
                    InstKind::Switch { default, cases, .. } => {
                        add(*default);
                        cases.iter().for_each(|c| add(c.1));
                    }
                    _ => {}
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Block, Inst, Span, TypeH, Value};

    /// A function of `n` blocks, block `b` ending in `term(b)`.
    fn func(n: usize, term: impl Fn(&[BlockH], usize) -> InstKind) -> Function {
        let mut f = Function::default();
        let blocks: Vec<BlockH> = (0..n).map(|_| f.blocks.append(Block::default())).collect();
        for (i, &b) in blocks.iter().enumerate() {
            let ty = TypeH::from_index(0).unwrap_or_else(|| panic!("type handle"));
            let h = f.insts.append(Inst { ty, kind: term(&blocks, i), span: Span::at(0) });
            f.blocks.get_mut(b).insts.push(h);
        }
        f
    }

    fn indices(v: &[BlockH]) -> Vec<usize> {
        v.iter().map(|b| b.index()).collect()
    }

    #[test]
    fn loop_diamond_and_unreachable_block() {
        // 0 -> {1, 2}; 1 -> 3; 2 -> 3; 3 -> {1 (back edge), 4}; 4 returns; 5 unreachable.
        let f = func(6, |b, i| match i {
            0 => InstKind::CondBr { cond: Value::Arg(0), if_true: b[1], if_false: b[2] },
            1 | 2 => InstKind::Br { target: b[3] },
            3 => InstKind::CondBr { cond: Value::Arg(0), if_true: b[1], if_false: b[4] },
            4 => InstKind::Ret { value: None },
            _ => InstKind::Br { target: b[0] },
        });
        let cfg = Cfg::new(&f);
        // Successors pushed in order, the last entered first: 0, 2, 3, 4 (the
        // last successor of 3), then 1; post-order 4 1 3 2 0.
        assert_eq!(indices(&cfg.rpo), vec![0, 2, 3, 1, 4]);
        assert_eq!(cfg.reachable, vec![true, true, true, true, true, false]);
    }

    #[test]
    fn repeated_switch_targets_and_self_loop() {
        // 0: switch default 2, cases 1, 2, 1; 1 loops on itself; 2 -> 1.
        let f = func(3, |b, i| match i {
            0 => InstKind::Switch { value: Value::Arg(0), default: b[2], cases: vec![(0, b[1]), (1, b[2]), (2, b[1])] },
            1 => InstKind::Br { target: b[1] },
            _ => InstKind::Br { target: b[1] },
        });
        let cfg = Cfg::new(&f);
        assert_eq!(indices(&cfg.rpo), vec![0, 2, 1]);
        assert!(BlockH::from_index(2).is_some_and(|b| cfg.is_reachable(b)));
        assert!(!BlockH::from_index(3).is_some_and(|b| cfg.is_reachable(b)));
    }
}

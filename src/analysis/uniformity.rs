//! Uniformity (divergence) analysis: which SSA values are the same in every
//! lane of a wave (subgroup, warp) that executes them together, after LLVM's
//! `UniformityAnalysis`. `docs/uniformity.md` states the model and argues its
//! soundness; in short:
//!
//! - **uniform sources**: constants (spec constants included), global
//!   addresses, loads at uniform addresses from memory no lane writes (push
//!   constants, uniform / constant buffers, read-only storage buffers, PTX
//!   kernel parameters and `.const`), workgroup- and dispatch-wide ids
//!   (`SV_GroupID`, `WorkgroupId`, `NumWorkgroups`, `%ctaid`, `%nctaid`,
//!   `%ntid`), wave broadcasts and reductions (`WaveReadLaneFirst`,
//!   `WaveActive*`, `OpGroupNonUniformBroadcastFirst`, `Broadcast` /
//!   `shfl.sync.idx` from a uniform lane);
//! - **divergent sources**: thread and lane ids, per-lane inputs, loads from
//!   writable or per-lane memory, atomics, calls and every operation the
//!   analysis does not know (when in doubt, divergent);
//! - an operation on uniform operands is uniform;
//! - **control dependence**: a block that is control dependent (transitively)
//!   on a divergent branch is in a *divergent region*; a phi with two
//!   different incoming values whose predecessor is in a divergent region or
//!   ends in a divergent branch is divergent (a join after a divergent
//!   branch); a value defined in a loop and used outside it is divergent at
//!   that use when the loop has a divergent exit (lanes leave at different
//!   iterations); function-local memory is uniform only when every store to
//!   it stores a uniform value at a uniform address outside every divergent
//!   region and its address never escapes.
//!
//! The analysis is optimistic and monotone: every instruction starts uniform,
//! passes in reverse post-order mark what becomes divergent until nothing
//! changes. Irreducible control flow, a block that cannot reach a return, or a
//! function over the size budget make every value of the function divergent.

use super::dataflow::for_each_operand;
use crate::ir::{
    BinOp, BlockH, ConstKind, FuncH, Function, InstH, InstKind, Module, ResourceClass, SourceKind, Type, Value,
};
use rustc_hash::FxHashMap;

#[path = "uniformity_graph.rs"]
mod graph;
#[path = "uniformity_ops.rs"]
mod ops;
use graph::*;
use ops::*;

/// Why a value is divergent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// A source of divergence (thread id, lane id, per-lane load, atomic, ...).
    Source(&'static str),
    /// A divergent operand (the chain continues there).
    Operand(Value),
    /// A phi at a join after the divergent branch that ends this block.
    Join(BlockH),
    /// Defined in a loop and used outside it; the loop's exit at this block is divergent.
    LoopExit(BlockH),
    /// A load of function-local memory that this store makes divergent.
    Store(InstH),
    /// The whole function is treated as divergent, for this reason.
    Function(&'static str),
}

/// Most blocks and instructions a function may have to be analysed (beyond
/// that, every value is divergent).
const MAX_INSTS: usize = 1 << 20;
/// Most control-dependence entries a function may produce.
const MAX_CD: usize = 1 << 22;
/// Most divergent branches a block's region list keeps (beyond: every join).
const MAX_ORIGINS: usize = 8;
/// Most reachability sets a function caches (beyond: every phi is a join).
const MAX_REACH_SETS: usize = 4096;
/// Most passes before giving up (every value divergent).
const MAX_PASSES: usize = 256;

/// Uniformity of one function's values.
#[derive(Debug, Clone, Default)]
pub struct FuncUniformity {
    /// Per instruction: `None` uniform, else why divergent.
    causes: Vec<Option<Cause>>,
    /// Block index of each instruction.
    inst_block: Vec<u32>,
    /// Per block: the divergent branch whose region holds it.
    region: Vec<Option<BlockH>>,
    /// Per block: the loops (indices into `loop_exit`) that contain it.
    block_loops: Vec<Vec<u32>>,
    /// Per loop: its divergent exiting block, once known.
    loop_exit: Vec<Option<BlockH>>,
    /// Per argument: why divergent.
    args: Vec<Option<Cause>>,
    /// Every value divergent, for this reason.
    all: Option<&'static str>,
    /// Passes run.
    pub passes: usize,
}

impl FuncUniformity {
    /// Why `v` is divergent where it is defined, or `None` when uniform.
    pub fn divergence(&self, v: Value) -> Option<Cause> {
        match v {
            Value::Const(_) | Value::Global(_) | Value::Function(_) => None,
            _ if self.all.is_some() => self.all.map(Cause::Function),
            Value::Arg(i) => self.args.get(i as usize).copied().unwrap_or(Some(Cause::Source("function argument"))),
            Value::Inst(h) => self.causes.get(h.index()).copied().unwrap_or(Some(Cause::Source("unknown value"))),
        }
    }

    /// Why `v` is divergent when used by instruction `user` (a value leaving a
    /// loop with a divergent exit is divergent there even when uniform inside).
    pub fn divergence_at(&self, v: Value, user: InstH) -> Option<Cause> {
        let block = self.inst_block.get(user.index()).copied().unwrap_or(u32::MAX);
        self.divergence_in_block(v, block)
    }

    fn divergence_in_block(&self, v: Value, block: u32) -> Option<Cause> {
        if let Some(c) = self.divergence(v) {
            return Some(c);
        }
        let Value::Inst(h) = v else { return None };
        let def = *self.inst_block.get(h.index())?;
        let def_loops = self.block_loops.get(def as usize)?;
        let use_loops = self.block_loops.get(block as usize);
        for l in def_loops {
            if use_loops.is_some_and(|u| u.contains(l)) {
                continue;
            }
            if let Some(Some(exit)) = self.loop_exit.get(*l as usize) {
                return Some(Cause::LoopExit(*exit));
            }
        }
        None
    }

    /// Is `v` uniform where it is defined?
    pub fn is_uniform(&self, v: Value) -> bool {
        self.divergence(v).is_none()
    }

    /// The divergent branch whose region holds block `b`, if any.
    pub fn region_of(&self, b: BlockH) -> Option<BlockH> {
        if self.all.is_some() {
            return Some(b);
        }
        self.region.get(b.index()).copied().flatten()
    }

    /// The reason every value is divergent, when the function was not analysed.
    pub fn whole_function(&self) -> Option<&'static str> {
        self.all
    }

    /// Follows operand causes from `v` (used by `user`) to the root cause:
    /// the chain of values and the root. Bounded.
    pub fn root_cause(&self, v: Value, user: Option<InstH>) -> Option<(Vec<Value>, Cause)> {
        let mut cause = match user {
            Some(u) => self.divergence_at(v, u)?,
            None => self.divergence(v)?,
        };
        let mut chain = vec![v];
        for _ in 0..64 {
            match cause {
                Cause::Operand(o) if !chain.contains(&o) => {
                    chain.push(o);
                    match self.divergence(o) {
                        Some(c) => cause = c,
                        None => break,
                    }
                }
                _ => break,
            }
        }
        Some((chain, cause))
    }
}

/// Describes a cause in words (for messages and `explain`).
pub fn describe(m: &Module, f: &Function, cause: Cause) -> String {
    match cause {
        Cause::Source(s) => s.to_string(),
        Cause::Operand(v) => format!("divergent operand {}", crate::ir::print::value(m, Some(f), v)),
        Cause::Join(b) => format!("a join after the divergent branch ending bb{}", b.index()),
        Cause::LoopExit(b) => format!("a value leaving a loop whose exit at bb{} is divergent", b.index()),
        Cause::Store(s) => {
            let at = f.insts.try_get(s).map(|i| i.span.offset).unwrap_or(0);
            format!("function-local memory written per lane (store at byte offset {at})")
        }
        Cause::Function(why) => format!("the whole function is treated as divergent: {why}"),
    }
}

/// Uniformity of every function of a module (declarations get none).
pub fn analyze_module(m: &Module) -> Vec<Option<FuncUniformity>> {
    m.functions.iter().map(|(h, f)| (!f.is_declaration && !f.blocks.is_empty()).then(|| analyze(m, h))).collect()
}

/// Analyses one function.
pub fn analyze(m: &Module, fh: FuncH) -> FuncUniformity {
    let Some(f) = m.functions.try_get(fh) else { return FuncUniformity::default() };
    let entry = m.entry_points.iter().any(|e| e.function == Some(fh));
    let args = (0..f.params.len())
        .map(|_| {
            if entry && m.source == SourceKind::Ptx {
                None
            } else {
                Some(Cause::Source("function argument (call sites are not analysed)"))
            }
        })
        .collect();
    let mut out = FuncUniformity {
        causes: vec![None; f.insts.len()],
        inst_block: vec![u32::MAX; f.insts.len()],
        region: vec![None; f.blocks.len()],
        args,
        ..Default::default()
    };
    for (bh, b) in f.blocks.iter() {
        for ih in &b.insts {
            if let Some(x) = out.inst_block.get_mut(ih.index()) {
                *x = bh.index() as u32;
            }
        }
    }
    if f.insts.len() > MAX_INSTS || f.blocks.len() > MAX_INSTS {
        out.all = Some("too large to analyse");
        return out;
    }
    let Some(g) = Graph::new(f) else {
        out.all = Some("irreducible control flow or a block that never returns");
        return out;
    };
    let Some(cd) = g.control_dependence() else {
        out.all = Some("too large to analyse");
        return out;
    };
    out.block_loops = g.block_loops.clone();
    out.loop_exit = vec![None; g.loops.len()];
    let n = g.n;
    let mut s = Solver {
        m,
        f,
        g: &g,
        cd: &cd,
        u: out,
        memory: MemoryRoots::new(m, f),
        origins: vec![Vec::new(); n],
        saturated: vec![false; n],
        term_div: vec![false; n],
        reach: Default::default(),
        avoiding: Default::default(),
    };
    if !s.solve() {
        s.u.all = Some("the analysis did not converge");
    }
    s.u
}

struct Solver<'a> {
    m: &'a Module,
    f: &'a Function,
    g: &'a Graph,
    cd: &'a [Vec<usize>],
    u: FuncUniformity,
    memory: MemoryRoots,
    /// Per block: the divergent branches (block indices) whose region holds it.
    origins: Vec<Vec<u32>>,
    /// Per block: more origins than [`MAX_ORIGINS`] (every phi it feeds is a join).
    saturated: Vec<bool>,
    /// Per block: its terminator is divergent.
    term_div: Vec<bool>,
    /// Blocks reachable from a block, by block (for [`Solver::is_join`]).
    reach: std::cell::RefCell<FxHashMap<usize, Vec<bool>>>,
    /// Blocks reachable from a block without entering another (stores).
    avoiding: std::cell::RefCell<FxHashMap<(usize, usize, usize), Vec<bool>>>,
}

impl Solver<'_> {
    fn solve(&mut self) -> bool {
        let n = self.g.n;
        // Per block: its terminator is divergent; it was expanded with that.
        let mut term_div = vec![false; n];
        let mut expanded = vec![false; n];
        for pass in 0..MAX_PASSES {
            self.u.passes = pass + 1;
            let mut changed = false;
            let mut stack = Vec::new();
            for &b in &self.g.rpo {
                let Some(block) = BlockH::from_index(b).and_then(|h| self.f.blocks.try_get(h)) else { continue };
                for &ih in &block.insts {
                    if self.u.causes.get(ih.index()).copied().flatten().is_some() {
                        continue;
                    }
                    if let Some(c) = self.transfer(ih, b) {
                        self.u.causes[ih.index()] = Some(c);
                        changed = true;
                    }
                }
                let div = block.insts.last().and_then(|t| self.u.causes.get(t.index()).copied().flatten()).is_some();
                if div && !term_div[b] {
                    term_div[b] = true;
                    self.term_div[b] = true;
                    changed = true;
                    stack.push(b);
                }
                if !self.origins[b].is_empty() && !expanded[b] {
                    expanded[b] = true;
                    stack.push(b);
                }
            }
            // Blocks control dependent on a divergent branch, or on any branch
            // inside a divergent region, join that region (with its origins).
            while let Some(a) = stack.pop() {
                let mut from: Vec<u32> = self.origins[a].clone();
                if term_div[a] && !from.contains(&(a as u32)) {
                    from.push(a as u32);
                }
                let sat = self.saturated[a];
                for &x in &self.cd[a] {
                    let mut grew = false;
                    for o in &from {
                        if !self.origins[x].contains(o) {
                            // Growth is monotone and bounded: up to MAX_ORIGINS
                            // origins, then `saturated` flips once. (Counting a
                            // saturated block as grown again re-queued a cycle of
                            // control dependences forever.)
                            if self.origins[x].len() < MAX_ORIGINS {
                                self.origins[x].push(*o);
                                grew = true;
                            } else if !self.saturated[x] {
                                self.saturated[x] = true;
                                grew = true;
                            }
                        }
                    }
                    if sat && !self.saturated[x] {
                        self.saturated[x] = true;
                        grew = true;
                    }
                    if grew {
                        changed = true;
                        if self.u.region[x].is_none() {
                            self.u.region[x] = self.origins[x].first().and_then(|o| BlockH::from_index(*o as usize));
                        }
                        if !self.cd[x].is_empty() {
                            stack.push(x);
                        }
                    }
                }
            }
            for (li, l) in self.g.loops.iter().enumerate() {
                if self.u.loop_exit[li].is_some() {
                    continue;
                }
                if let Some(e) = l.exiting.iter().find(|e| term_div[**e] || !self.origins[**e].is_empty()) {
                    self.u.loop_exit[li] = BlockH::from_index(*e);
                    changed = true;
                }
            }
            if !changed {
                return true;
            }
        }
        false
    }

    /// Can a lane that ran the store in block `sb` (under the divergent
    /// branch ending `d`) meet one that did not, at block `l`, before either
    /// passes `d` again: `sb` reachable from a successor of `d` and `l` from
    /// `sb` without passing `d`, and `l` from a successor without passing `d`
    /// or `sb`.
    fn store_meets(&self, d: usize, sb: usize, l: usize) -> bool {
        let succs = self.g.succs.get(d).map(|v| v.as_slice()).unwrap_or(&[]);
        let through = succs.iter().any(|x| self.reaches_avoiding(*x, d, usize::MAX, sb))
            && self.reaches_avoiding(sb, d, usize::MAX, l);
        through && succs.iter().any(|x| self.reaches_avoiding(*x, d, sb, l))
    }

    /// Is block `l` reachable from `from` without entering `a` or `b`?
    fn reaches_avoiding(&self, from: usize, a: usize, b: usize, l: usize) -> bool {
        if from == a || from == b {
            return false;
        }
        let mut cache = self.avoiding.borrow_mut();
        if cache.len() > MAX_REACH_SETS {
            return true;
        }
        let set = cache.entry((from, a, b)).or_insert_with(|| {
            let mut seen = vec![false; self.g.n];
            let mut stack = vec![from];
            while let Some(x) = stack.pop() {
                if x == a || x == b || std::mem::replace(&mut seen[x], true) {
                    continue;
                }
                stack.extend(self.g.succs[x].iter().copied());
            }
            seen
        });
        set.get(l).copied().unwrap_or(true)
    }

    /// Can lanes that took different successors of the divergent branch ending
    /// `d` meet at `j` (is `j` reachable from two of its successors)?
    fn is_join(&self, d: usize, j: usize) -> bool {
        let mut reach = self.reach.borrow_mut();
        if reach.len() > MAX_REACH_SETS {
            return true;
        }
        let mut count = 0;
        for &s in &self.g.succs[d] {
            let set = reach.entry(s).or_insert_with(|| {
                let mut seen = vec![false; self.g.n];
                let mut stack = vec![s];
                while let Some(x) = stack.pop() {
                    if std::mem::replace(&mut seen[x], true) {
                        continue;
                    }
                    stack.extend(self.g.succs[x].iter().copied());
                }
                seen
            });
            if set.get(j).copied().unwrap_or(true) {
                count += 1;
            }
        }
        count >= 2
    }

    /// Operand `v` used in block `b`.
    fn op(&self, v: Value, b: usize) -> Option<Cause> {
        self.u.divergence_in_block(v, b as u32).map(|c| match c {
            Cause::LoopExit(_) => c,
            _ => Cause::Operand(v),
        })
    }

    fn any_op(&self, kind: &InstKind, b: usize) -> Option<Cause> {
        let mut out = None;
        for_each_operand(kind, |v| {
            if out.is_none() && !matches!(v, Value::Function(_)) {
                out = self.op(v, b);
            }
        });
        out
    }

    fn transfer(&self, ih: InstH, b: usize) -> Option<Cause> {
        let inst = self.f.insts.try_get(ih)?;
        match &inst.kind {
            InstKind::Phi { incoming } => self.phi(ih, incoming),
            InstKind::Load { ptr } => self.op(*ptr, b).or_else(|| self.load(*ptr, b)),
            InstKind::Store { .. } | InstKind::Alloca { .. } | InstKind::Br { .. } | InstKind::Unreachable => None,
            InstKind::Ret { .. } => None,
            InstKind::AtomicRmw { .. } | InstKind::CmpXchg { .. } => Some(Cause::Source("atomic result")),
            InstKind::Call { callee, args, dx_op } => self.call(*callee, args, *dx_op, b),
            InstKind::Other { opcode, operands } => self.other(*opcode, operands, b),
            k => self.any_op(k, b),
        }
    }

    fn phi(&self, ih: InstH, incoming: &[(Value, BlockH)]) -> Option<Cause> {
        let mut first: Option<Value> = None;
        let mut distinct = false;
        for (v, p) in incoming {
            if *v == Value::Inst(ih) || self.is_undef(*v) {
                continue;
            }
            if let Some(c) = self.op(*v, p.index()) {
                return Some(c);
            }
            match first {
                None => first = Some(*v),
                Some(x) if x != *v => distinct = true,
                _ => {}
            }
        }
        if !distinct {
            return None;
        }
        let j = self.u.inst_block.get(ih.index()).copied().unwrap_or(u32::MAX) as usize;
        for (_, p) in incoming {
            let p = p.index();
            if self.saturated.get(p).copied().unwrap_or(true) {
                return BlockH::from_index(p).map(Cause::Join);
            }
            let own = self.term_div.get(p).copied().unwrap_or(false).then_some(p as u32);
            for d in self.origins.get(p).into_iter().flatten().copied().chain(own) {
                if self.is_join(d as usize, j) {
                    return BlockH::from_index(d as usize).map(Cause::Join);
                }
            }
        }
        None
    }

    fn is_undef(&self, v: Value) -> bool {
        matches!(v, Value::Const(c) if matches!(self.m.constants.try_get(c).map(|c| &c.kind), Some(ConstKind::Undef)))
    }

    /// A load at a uniform address: uniform when the memory is the same for every lane.
    fn load(&self, ptr: Value, b: usize) -> Option<Cause> {
        match self.memory.root(ptr) {
            Root::Alloca(a) => self.alloca(a, b),
            Root::Global(g) => global_memory(self.m, g),
            // PTX kernel parameters are values (`ld.param` folds into the argument);
            // a pointer passed in points to global memory lanes may write.
            _ => Some(Cause::Source("load from memory lanes may write (per-lane load)")),
        }
    }

    /// A load in block `l` of function-local memory rooted at alloca `a`.
    fn alloca(&self, a: InstH, l: usize) -> Option<Cause> {
        if self.memory.escaped.get(a.index()).copied().unwrap_or(true) {
            return Some(Cause::Source("function-local memory whose address escapes"));
        }
        for &s in self.memory.stores.get(&a).map(|v| v.as_slice()).unwrap_or(&[]) {
            let Some(InstKind::Store { ptr, value }) = self.f.insts.try_get(s).map(|i| &i.kind) else { continue };
            let sb = self.u.inst_block.get(s.index()).copied().unwrap_or(u32::MAX);
            if self.u.divergence_in_block(*value, sb).is_some() {
                return Some(Cause::Operand(*value));
            }
            if self.u.divergence_in_block(*ptr, sb).is_some()
                || self.saturated.get(sb as usize).copied().unwrap_or(true)
            {
                return Some(Cause::Store(s));
            }
            // A store under a divergent branch: a lane that skipped it can meet
            // one that ran it when the load is reachable from a successor of
            // the branch without passing the store's block.
            for d in self.origins.get(sb as usize).into_iter().flatten() {
                if self.store_meets(*d as usize, sb as usize, l) {
                    return Some(Cause::Store(s));
                }
            }
            // Lanes leave a loop with a divergent exit after running its
            // stores a different number of times.
            let sl = self.u.block_loops.get(sb as usize).map(|v| v.as_slice()).unwrap_or(&[]);
            let ll = self.u.block_loops.get(l).map(|v| v.as_slice()).unwrap_or(&[]);
            if sl.iter().any(|x| !ll.contains(x) && self.u.loop_exit.get(*x as usize).copied().flatten().is_some()) {
                return Some(Cause::Store(s));
            }
        }
        None
    }

    fn call(&self, callee: Value, args: &[Value], dx_op: Option<u32>, b: usize) -> Option<Cause> {
        let op = dx_op.or_else(|| crate::dxil::resources::call_opcode(self.m, callee, args));
        let Some(op) = op else { return Some(Cause::Source("call result (callees are not analysed)")) };
        let all = || args.iter().find_map(|v| self.op(*v, b));
        match dxil_op(op) {
            DxKind::Pure => all(),
            DxKind::Uniform => None,
            DxKind::Divergent(why) => Some(Cause::Source(why)),
            DxKind::LaneArg(i) => args.get(i).and_then(|v| self.op(*v, b)),
            DxKind::BufferLoad => all().or_else(|| match args.get(1).and_then(|h| self.handle_class(*h, 0)) {
                Some(ResourceClass::Srv | ResourceClass::CBuffer) => None,
                _ => Some(Cause::Source("load from a writable buffer (per-lane load)")),
            }),
        }
    }

    /// The class of the resource behind a DXIL handle, when every path agrees.
    fn handle_class(&self, v: Value, depth: u32) -> Option<ResourceClass> {
        use crate::dxil::{dxop, resources};
        let Value::Inst(h) = v else { return None };
        if depth > 16 {
            return None;
        }
        let inst = self.f.insts.try_get(h)?;
        let merge = |vals: &mut dyn Iterator<Item = Value>| {
            let mut out = None;
            for x in vals {
                if x == v {
                    continue;
                }
                let c = self.handle_class(x, depth + 1)?;
                if out.is_some_and(|o| o != c) {
                    return None;
                }
                out = Some(c);
            }
            out
        };
        match &inst.kind {
            InstKind::Phi { incoming } => merge(&mut incoming.iter().map(|(x, _)| *x)),
            InstKind::Select { if_true, if_false, .. } => merge(&mut [*if_true, *if_false].into_iter()),
            InstKind::Call { callee, args, dx_op } => {
                let op = dx_op.or_else(|| resources::call_opcode(self.m, *callee, args))?;
                let arg = |i: usize| args.get(i).copied();
                match op {
                    dxop::CREATE_HANDLE => resources::class_from_u64(self.m.const_int(arg(1)?)?),
                    dxop::CREATE_HANDLE_FROM_BINDING => {
                        resources::class_from_u64(*resources::const_fields(self.m, arg(1)?, 4)?.get(3)?)
                    }
                    dxop::ANNOTATE_HANDLE => {
                        let p = resources::const_fields(self.m, arg(2)?, 2)?;
                        Some(resources::decode_props(*p.first()? as u32, *p.get(1)? as u32).class)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn other(&self, opcode: u32, operands: &[Value], b: usize) -> Option<Cause> {
        let all = || operands.iter().find_map(|v| self.op(*v, b));
        match self.m.source {
            SourceKind::Spirv => match spirv_op(opcode) {
                OpKind::Pure => all(),
                OpKind::PureNoPointers => {
                    if operands.iter().any(|v| self.is_pointer(*v)) {
                        Some(Cause::Source("extended instruction reading per-lane memory"))
                    } else {
                        all()
                    }
                }
                OpKind::Uniform => None,
                OpKind::Lane(i) => operands.get(i).and_then(|v| self.op(*v, b)),
                OpKind::Divergent(why) => Some(Cause::Source(why)),
            },
            SourceKind::Ptx => {
                let name = self.m.op_names.get(opcode as usize).map(String::as_str).unwrap_or("");
                match ptx_op(name) {
                    OpKind::Pure | OpKind::PureNoPointers => all(),
                    OpKind::Uniform => None,
                    OpKind::Lane(i) => operands.get(i).and_then(|v| self.op(*v, b)),
                    OpKind::Divergent(why) => Some(Cause::Source(why)),
                }
            }
            SourceKind::Dxil => Some(Cause::Source("operation the analysis does not model")),
        }
    }

    fn is_pointer(&self, v: Value) -> bool {
        let ty = match v {
            Value::Inst(h) => self.f.insts.try_get(h).map(|i| i.ty),
            Value::Global(_) => return true,
            _ => None,
        };
        matches!(ty.and_then(|t| self.m.types.try_get(t)), Some(Type::Pointer { .. }))
    }
}

/// A one-character marker for `dump --ir`: `U` uniform, `D` divergent, for
/// instructions that produce a value or branch on one (`None` otherwise).
pub fn marker(u: &FuncUniformity, f: &Function, ih: InstH) -> Option<char> {
    let inst = f.insts.try_get(ih)?;
    let shows = match &inst.kind {
        InstKind::CondBr { .. } | InstKind::Switch { .. } => true,
        InstKind::Store { .. } | InstKind::Br { .. } | InstKind::Ret { .. } | InstKind::Unreachable => false,
        _ => true,
    };
    shows.then(|| if u.divergence(Value::Inst(ih)).is_some() { 'D' } else { 'U' })
}

#[cfg(test)]
#[path = "uniformity_tests.rs"]
mod tests;

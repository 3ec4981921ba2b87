//! The sparse dataflow: per function, a worklist over instructions in reverse
//! post-order driven by def-use edges, evaluating the lattice of
//! [`super::lattice`] until a fixpoint.
//!
//! Values only grow (each new result is joined with the old one) and the lattice
//! has finite height (a set grows to 8 members, then known bits are lost one by
//! one, at most 64 times), so loops converge without a separate widening
//! operator: `phi(0, phi + 16)` goes `{0}`, `{0, 16}`, … widens to the bits
//! `{0, …, 128}` share when the set passes 8 members, and the carries of `+ 16`
//! then clear the known high zeros until `0 mod 16` is left.
//!
//! Known bits have finite height, so a loop-carried value converges in that
//! domain: a descriptor advanced in the K loop, `phi(desc0, desc + step)` on a
//! 32-bit low half packed with a constant high half, keeps every bit the
//! carries of `+ step` cannot reach (an add's carry stops at a bit known 0 in
//! both operands). To keep loops cheap, after an instruction's value has grown
//! `WIDEN_AFTER` (2) times as known bits, a growth also drops the known bits
//! from the lowest bit it lost to the top of that bit's 32-bit half
//! (`Val::widen_from`): a counter `i + 1` is unknown after a few trips
//! instead of losing one known high zero per trip, while the other half (the
//! descriptor's version, layout, SBO) stays known.
//!
//! Memory: a function-local variable (`alloca` / SPIR-V `Function` storage) whose
//! address never escapes (only loaded, stored to, or indexed) is tracked
//! flow-insensitively: a load at a constant path yields the join of every value
//! stored to that element, an aggregate store counting element-wise, a store at a
//! dynamic index counting for every element. Loads from constant globals fold
//! their initializer. Everything else loaded is unknown.

use super::cfg::Cfg;
pub(crate) use super::consteval::{binary, cast, select, unary, ConstEval};
use super::lattice::{self, AbsValue};
use super::ptxops;
use crate::ir::*;
use crate::read::limits::MAX_DATAFLOW_STEPS;
use rustc_hash::FxHashMap;
use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub(crate) use super::flow::backward_slice;
use super::flow::users;
use super::memory::memory_facts;
pub(crate) use super::memory::{ptx_call_params, ptx_ret_slots, MemoryFacts, Ptr, Root};
pub(crate) use super::value::{global_address, PathElem, Val, MAX_AGG_LEAVES};

/// Times an instruction's value may grow as known bits before it is widened
/// ([`Val::widen_from`]).
pub(crate) const WIDEN_AFTER: u8 = 2;

/// The scalar integer width of a type.
pub(crate) fn scalar_bits(m: &Module, ty: TypeH) -> Option<u32> {
    match m.types.try_get(ty)? {
        Type::Int { bits } => Some(u32::from(*bits).clamp(1, 64)),
        Type::Bool => Some(1),
        _ => None,
    }
}

/// Calls `f` with every value operand of an instruction (the IR's own walk,
/// [`crate::ir::verify::for_each_operand`], without its early exit).
pub(crate) fn for_each_operand(kind: &InstKind, mut f: impl FnMut(Value)) {
    let walk = crate::ir::verify::for_each_operand::<std::convert::Infallible>(kind, |v| {
        f(*v);
        Ok(())
    });
    let Ok(()) = walk;
}

/// An instruction the function's analysis never evaluates (outside the
/// slice, or unreachable).
pub(crate) const NO_SLOT: u32 = u32::MAX;

static BOTTOM: Val = Val::Bottom;

/// Results for one function.
#[derive(Debug, Clone)]
pub(crate) struct FuncValues {
    /// Per instruction: its position in the evaluation order, which indexes
    /// `vals`, or [`NO_SLOT`].
    slots: Vec<u32>,
    /// Values of the evaluated instructions, by position.
    vals: Vec<Val>,
    /// Resolved pointers, escaping allocas, stores and return slots.
    pub mem: MemoryFacts,
}

impl FuncValues {
    /// The value of instruction `i`: ⊥ when it was never evaluated, `None`
    /// past the function's instructions.
    pub(crate) fn val(&self, i: usize) -> Option<&Val> {
        let s = *self.slots.get(i)?;
        Some(self.vals.get(s as usize).unwrap_or(&BOTTOM))
    }
}

/// What calls contribute to a PTX function's values (context-insensitive):
/// each parameter is the join of what every call site stores to that
/// argument's `.param` slot, each return value the join of what the callee
/// stores to its return slot. A function without an entry here (a kernel, or
/// one never called in the module) has unknown parameters.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Summaries {
    /// Parameter values by function index.
    pub params: FxHashMap<usize, Vec<Val>>,
    /// Return values by function index.
    pub rets: FxHashMap<usize, Vec<Val>>,
}

/// The per-function engine.
struct Engine<'a, 'm> {
    ce: &'a mut ConstEval<'m>,
    f: &'m Function,
    me: usize,
    sum: &'a Summaries,
    fv: FuncValues,
    /// Path and joined value of each evaluated store, by instruction index.
    store_recs: FxHashMap<usize, (Vec<PathElem>, Val)>,
    steps: &'a mut u64,
}

impl<'a, 'm> Engine<'a, 'm> {
    fn operand(&mut self, v: Value) -> Val {
        match v {
            Value::Const(c) => self.ce.value(c),
            other => self.operand_local(other),
        }
    }

    /// The value of an operand that is no constant.
    fn operand_local(&self, v: Value) -> Val {
        match v {
            Value::Inst(h) => self.fv.val(h.index()).cloned().unwrap_or(Val::Top),
            Value::Global(g) => global_address(self.ce.m, g),
            // A `.func` parameter: what its call sites pass; a kernel's: what
            // its `.ptr .align N` says.
            Value::Arg(i) => match self.sum.params.get(&self.me).and_then(|p| p.get(i as usize)) {
                Some(v) => v.clone(),
                None => ptxops::kernel_param(self.f, i),
            },
            Value::Const(_) | Value::Function(_) => Val::Top,
        }
    }

    /// Memoizes the value of a constant operand, for [`Engine::abs_view`].
    fn ensure(&mut self, v: Value) {
        if let Value::Const(c) = v {
            self.ce.ensure(c);
        }
    }

    /// The lattice value of an operand ([`Engine::operand_abs`]), borrowed
    /// where it is kept (a constant operand must have been [`Engine::ensure`]d).
    fn abs_view(&self, v: Value) -> Cow<'_, AbsValue> {
        let val = match v {
            Value::Inst(h) => self.fv.val(h.index()),
            Value::Const(c) => self.ce.cached(c),
            other => return Cow::Owned(self.operand_local(other).abs()),
        };
        match val {
            Some(Val::Int(a, _)) => Cow::Borrowed(a),
            Some(Val::Bottom) => Cow::Owned(AbsValue::Bottom),
            _ => Cow::Owned(AbsValue::Top),
        }
    }

    /// The lattice value of an operand (an instruction's read in place).
    fn operand_abs(&mut self, v: Value) -> AbsValue {
        match v {
            Value::Inst(h) => self.fv.val(h.index()).map_or(AbsValue::Top, Val::abs),
            _ => self.operand(v).abs(),
        }
    }

    fn type_of(&self, v: Value) -> Option<TypeH> {
        let m = self.ce.m;
        match v {
            Value::Const(c) => m.constants.try_get(c).map(|k| k.ty),
            Value::Global(g) => m.globals.try_get(g).map(|g| g.ty),
            Value::Inst(h) => self.f.insts.try_get(h).map(|i| i.ty),
            Value::Arg(i) => self.f.params.get(i as usize).copied(),
            Value::Function(_) => None,
        }
    }

    fn path_elems(&mut self, path: &[Value]) -> Vec<PathElem> {
        path.iter()
            .map(|v| {
                let a = self.operand_abs(*v);
                match a.as_const() {
                    Some(i) => PathElem::Idx(i),
                    None if a.is_bottom() => PathElem::Pending,
                    None => PathElem::Any,
                }
            })
            .collect()
    }

    fn load(&mut self, ptr: Value) -> Val {
        let ptrs = &mut self.fv.mem.ptrs;
        let p = match ptr {
            Value::Inst(h) => ptrs.get(h.index()).map(|p| (*p, ptrs.path(p).to_vec())),
            Value::Global(g) => Some((Ptr::root(Root::Global(g), None), Vec::new())),
            Value::Const(_) => ptrs.with_resolved(self.ce.m, self.f, ptr, |r| r.map(|(p, path)| (p, path.to_vec()))),
            _ => None,
        };
        let Some((p, ppath)) = p else {
            return Val::Top;
        };
        let mut path = self.path_elems(&ppath);
        path.extend(p.elems_tail());
        if path.contains(&PathElem::Pending) {
            return Val::Bottom;
        }
        match p.root {
            Root::Global(g) => {
                let Some(gl) = self.ce.m.globals.try_get(g) else {
                    return Val::Top;
                };
                match (gl.is_const, gl.init) {
                    (true, Some(Value::Const(c))) => self.ce.value(c).navigate(&path),
                    _ => Val::Top,
                }
            }
            Root::Alloca(a) => {
                if self.fv.mem.escaped.get(a).copied().unwrap_or(true) {
                    return Val::Top;
                }
                let stores = self.fv.mem.stores.get(&a).cloned().unwrap_or_default();
                *self.steps += stores.len() as u64;
                let mut out = match self.fv.mem.ret_slots.get(&a) {
                    // A call's return slot: what the callee returns there.
                    Some((g, j)) => match self.sum.rets.get(&g.index()).and_then(|r| r.get(*j)) {
                        Some(v) => v.navigate(&path),
                        None => Val::Top,
                    },
                    None => Val::Bottom,
                };
                for s in stores {
                    let Some((spath, sval)) = self.store_recs.get(&s) else {
                        continue;
                    };
                    if spath.contains(&PathElem::Pending) {
                        continue;
                    }
                    let overlap = spath.iter().zip(path.iter()).all(|(x, y)| match (x, y) {
                        (PathElem::Idx(i), PathElem::Idx(j)) => i == j,
                        _ => true,
                    });
                    if !overlap {
                        continue;
                    }
                    let contrib = if spath.len() <= path.len() {
                        sval.navigate(&path[spath.len()..])
                    } else {
                        // The load reads an aggregate that a store fills in part.
                        Val::Top
                    };
                    out = out.join(&contrib);
                    if out == Val::Top {
                        break;
                    }
                }
                out
            }
        }
    }

    fn eval(&mut self, h: InstH, cfg: &Cfg) -> Val {
        let m = self.ce.m;
        let Some(inst) = self.f.insts.try_get(h) else {
            return Val::Top;
        };
        let bits = scalar_bits(m, inst.ty);
        match &inst.kind {
            InstKind::Binary { op, lhs, rhs } => {
                let Some(b) = bits else { return Val::Top };
                self.ensure(*lhs);
                self.ensure(*rhs);
                let (x, y) = (self.abs_view(*lhs), self.abs_view(*rhs));
                Val::int(binary(*op, &x, &y, b), b)
            }
            InstKind::Unary { op, value } => {
                let Some(b) = bits else { return Val::Top };
                self.ensure(*value);
                Val::int(unary(*op, &self.abs_view(*value), b), b)
            }
            InstKind::Cast { op, value } => {
                let Some(b) = bits else { return Val::Top };
                let v = self.operand(*value);
                // A global's address (a pointer-typed value) counts at its tag's width.
                let from = self.type_of(*value).and_then(|t| scalar_bits(m, t)).or(match v {
                    Val::Int(_, w) => Some(u32::from(w)),
                    _ => None,
                });
                if let (CastOp::AddrSpaceCast, Some(_)) = (op, from) {
                    return Val::int(ptxops::address_space_cast(&v.abs(), b), b);
                }
                Val::int(cast(*op, &v.abs(), from, b), b)
            }
            InstKind::Cmp { pred, lhs, rhs } => {
                let Some(from) = self.type_of(*lhs).and_then(|t| scalar_bits(m, t)) else {
                    return Val::Top;
                };
                self.ensure(*lhs);
                self.ensure(*rhs);
                let (x, y) = (self.abs_view(*lhs), self.abs_view(*rhs));
                Val::int(lattice::icmp(pred.0, &x, &y, from), 1)
            }
            InstKind::Select { cond, if_true, if_false } => {
                let c = self.operand_abs(*cond);
                let (mut a, mut b) = (self.operand(*if_true).retag(bits), self.operand(*if_false).retag(bits));
                // `x == C ? y : x` (CUTLASS's pipeline stage `s + 1 == 8 ? 0 : s + 1`):
                // the arm that is `x` itself is taken only when `x != C`.
                if let Some((x, k, eq)) = self.eq_test(*cond) {
                    let arm = if eq { (*if_false, &mut b) } else { (*if_true, &mut a) };
                    if arm.0 == x {
                        *arm.1 = arm.1.without(k);
                    }
                }
                select(&c, &a, &b)
            }
            InstKind::Phi { incoming } => {
                *self.steps += incoming.len() as u64;
                let mut out = Val::Bottom;
                for (v, pred) in incoming {
                    if cfg.is_reachable(*pred) {
                        // ⊥ joins as the other side, without a copy.
                        let x = self.operand(*v).retag(bits);
                        out = match (&out, &x) {
                            (Val::Bottom, _) => x,
                            (_, Val::Bottom) => out,
                            _ => out.join(&x),
                        };
                    }
                }
                out
            }
            // Read at the load's width (a PTX `ld.u32` of a spilled 64-bit address).
            InstKind::Load { ptr } => self.load(*ptr).retag(bits),
            InstKind::ExtractValue { agg, indices } => {
                let path: Vec<PathElem> = indices.iter().map(|i| PathElem::Idx(u64::from(*i))).collect();
                self.operand(*agg).navigate(&path)
            }
            InstKind::ExtractElement { vector, index } => {
                let i = self.operand_abs(*index);
                let e = match i.as_const() {
                    Some(x) => PathElem::Idx(x),
                    None if i.is_bottom() => return Val::Bottom,
                    None => PathElem::Any,
                };
                self.operand(*vector).navigate(&[e])
            }
            InstKind::InsertValue { agg, value, indices } => {
                let base = self.operand(*agg);
                let v = self.operand(*value);
                let base = if base == Val::Bottom { self.ce.zero_shape(inst.ty) } else { base };
                replace(&base, indices, v)
            }
            InstKind::InsertElement { vector, value, index } => {
                let base = self.operand(*vector);
                let v = self.operand(*value);
                let i = self.operand_abs(*index);
                let base = if base == Val::Bottom { self.ce.zero_shape(inst.ty) } else { base };
                match i.as_const() {
                    Some(x) if x <= u64::from(u32::MAX) => replace(&base, &[x as u32], v),
                    _ => match base {
                        Val::Agg(items) => Val::Agg(items.iter().map(|x| x.join(&v)).collect()),
                        _ => Val::Top,
                    },
                }
            }
            InstKind::Composite { elements } => {
                if elements.len() > MAX_AGG_LEAVES {
                    return Val::Top;
                }
                let items: Vec<Val> = elements.iter().map(|e| self.operand(*e)).collect();
                Val::agg(items)
            }
            InstKind::Other { opcode, operands } => match (m.op_semantics(*opcode), bits) {
                (OpSemantics::Opaque, _) if m.source == SourceKind::Ptx => {
                    let name = m.op_names.get(*opcode as usize).map_or("", |s| s.as_str());
                    let first = operands.first().map(|o| self.operand(*o));
                    match (ptxops::lane_op(name), first) {
                        (Some(op), Some(v)) => self.lane_value(op, v, inst.ty, bits),
                        _ => Val::Top,
                    }
                }
                (OpSemantics::Opaque, _) | (_, None) => Val::Top,
                (sem, Some(b)) => {
                    let ops: Vec<AbsValue> = operands.iter().map(|o| self.operand_abs(*o)).collect();
                    Val::int(ptxops::eval(sem, &ops, b), b)
                }
            },
            _ => Val::Top,
        }
    }

    /// `(x, C, true)` for a condition `x == C`, `(x, C, false)` for `x != C`
    /// (an integer comparison with a constant).
    fn eq_test(&self, cond: Value) -> Option<(Value, u64, bool)> {
        let Value::Inst(h) = cond else { return None };
        let InstKind::Cmp { pred, lhs, rhs } = &self.f.insts.try_get(h)?.kind else { return None };
        let eq = match pred.0 {
            32 => true,
            33 => false,
            _ => return None,
        };
        let m = self.ce.m;
        match (m.const_int(*lhs), m.const_int(*rhs)) {
            (None, Some(k)) => Some((*lhs, k, eq)),
            (Some(k), None) => Some((*rhs, k, eq)),
            _ => None,
        }
    }

    /// The result of a PTX operation that moves its first operand's value
    /// ([`ptxops::LaneOp`]): an integer of width `bits`, or the first member of
    /// a `{value, predicate}` pair (`shfl.sync d|p`).
    fn lane_value(&self, op: ptxops::LaneOp, v: Val, ty: TypeH, bits: Option<u32>) -> Val {
        let m = self.ce.m;
        // The operand is read at the instruction's width (a global's address
        // is tagged 64 bits wide).
        let one = |v: Val, b: u32| -> Val {
            match v.retag(Some(b)) {
                v @ Val::Int(..) => Val::int(ptxops::lane_result(op, &v.abs(), b, b), b),
                Val::Bottom => Val::Bottom,
                _ => Val::Top,
            }
        };
        match bits {
            Some(b) => one(v, b),
            None => match m.types.try_get(ty) {
                Some(Type::Struct { members, .. }) if members.len() == 2 => {
                    match members.first().and_then(|t| scalar_bits(m, *t)) {
                        Some(b) => Val::agg(vec![one(v, b), Val::Top]),
                        None => Val::Top,
                    }
                }
                _ => Val::Top,
            },
        }
    }

    /// Evaluates a store's record; returns true when it changed.
    fn eval_store(&mut self, h: InstH) -> bool {
        let Some(InstKind::Store { ptr, value }) = self.f.insts.try_get(h).map(|i| &i.kind) else {
            return false;
        };
        let (ptr, value) = (*ptr, *value);
        let ptrs = &self.fv.mem.ptrs;
        let Some((p, ppath)) = ptrs.of(ptr).map(|p| (*p, ptrs.path(p).to_vec())) else {
            return false;
        };
        let mut path = self.path_elems(&ppath);
        path.extend(p.elems_tail());
        let v = self.operand(value);
        let slot = self.store_recs.get(&h.index());
        let merged = match slot {
            Some((op, ov)) => {
                let path = op
                    .iter()
                    .zip(path.iter())
                    .map(|(a, b)| match (a, b) {
                        (PathElem::Pending, x) | (x, PathElem::Pending) => *x,
                        (x, y) if x == y => *x,
                        _ => PathElem::Any,
                    })
                    .collect::<Vec<_>>();
                (path, ov.join(&v))
            }
            None => (path, v),
        };
        let changed = slot != Some(&merged);
        self.store_recs.insert(h.index(), merged);
        changed
    }
}

/// `base` with the member at `path` replaced by `v`.
fn replace(base: &Val, path: &[u32], v: Val) -> Val {
    let Some((first, rest)) = path.split_first() else {
        return v;
    };
    match base {
        Val::Agg(items) => {
            let i = *first as usize;
            let Some(old) = items.get(i) else {
                return Val::Top;
            };
            let mut items: Vec<Val> = items.to_vec();
            items[i] = replace(old, rest, v);
            Val::Agg(items.into())
        }
        Val::Bottom => Val::Bottom,
        _ => Val::Top,
    }
}

/// Analyses the instructions of one function that `only` marks (all when
/// `None`); `only` must be closed under operands ([`backward_slice`]). The
/// others keep ⊥. Returns `None` when the budget ran out.
pub(crate) fn analyze_function_slice<'m>(
    ce: &mut ConstEval<'m>,
    (fh, f): (FuncH, &'m Function),
    sum: &Summaries,
    steps: &mut u64,
    only: Option<&[bool]>,
) -> Option<FuncValues> {
    let m = ce.m;
    let n = f.insts.len();
    let cfg = Cfg::new(f);
    // A slice without loads or stores never reads the memory facts: skip
    // resolving every pointer of a large function.
    // Nor does one whose loads can only answer ⊤: the facts say what a load
    // reads from a local variable (an alloca) or a constant-initialised
    // global, and a function with neither (most PTX kernels: their memory is
    // `.shared`, `.global` and `.param`) gets ⊤ from every load anyway.
    let touches_memory = only.is_none_or(|o| {
        f.insts.iter().any(|(h, i)| {
            matches!(i.kind, InstKind::Load { .. } | InstKind::Store { .. })
                && o.get(h.index()).copied().unwrap_or(false)
        })
    }) && (only.is_none()
        || m.globals.iter().any(|(_, g)| g.init.is_some())
        || f.insts.iter().any(|(_, i)| matches!(i.kind, InstKind::Alloca { .. })));
    let mem = if touches_memory { memory_facts(m, f) } else { MemoryFacts::none(n) };

    // Positions in reverse post-order; unreachable instructions have none.
    let mut pos = vec![NO_SLOT; n];
    let mut order: Vec<InstH> = Vec::new();
    for b in &cfg.rpo {
        if let Some(block) = f.blocks.try_get(*b) {
            for ih in &block.insts {
                let wanted = only.is_none_or(|o| o.get(ih.index()).copied().unwrap_or(false));
                if ih.index() < n && pos[ih.index()] == NO_SLOT && wanted {
                    pos[ih.index()] = order.len() as u32;
                    order.push(*ih);
                }
            }
        }
    }
    let (users, loads_of) = users(f, &order, &pos, &mem);

    let len = order.len();
    let mut eng = Engine {
        ce,
        f,
        me: fh.index(),
        sum,
        fv: FuncValues { slots: pos, vals: vec![Val::Bottom; len], mem },
        store_recs: FxHashMap::default(),
        steps,
    };
    // The queued position that comes first in reverse post-order is taken
    // next. Every position starts queued: a sweep takes them in order, and
    // a position woken after the sweep passed it goes on a heap (all of which
    // lie before the sweep, so the heap's least comes first).
    let mut queued = vec![true; len];
    let mut grown = vec![0u8; len];
    let mut heap: BinaryHeap<Reverse<u32>> = BinaryHeap::new();
    let mut sweep = 0u32;
    loop {
        let p = match heap.pop() {
            Some(Reverse(p)) => p,
            None if (sweep as usize) < len => {
                sweep += 1;
                sweep - 1
            }
            None => break,
        };
        *eng.steps += 1;
        // Constant folding (zero values, aggregates) is charged to the same budget.
        if eng.steps.saturating_add(eng.ce.steps) > MAX_DATAFLOW_STEPS {
            return None;
        }
        let pi = p as usize;
        let Some(&h) = order.get(pi) else { continue };
        queued[pi] = false;
        let wake: &[u32] = match f.insts.try_get(h).map(|i| &i.kind) {
            Some(InstKind::Store { ptr, .. }) => match eng.eval_store(h) {
                true => match eng.fv.mem.ptrs.of(*ptr).map(|x| x.root) {
                    Some(Root::Alloca(a)) => loads_of.get(&a).map_or(&[], |v| v.as_slice()),
                    _ => &[],
                },
                false => &[],
            },
            _ => {
                let new = eng.eval(h, &cfg);
                let old = &eng.fv.vals[pi];
                let joined = match old {
                    // The first value (most evaluations): nothing to join or compare.
                    Val::Bottom => (!matches!(new, Val::Bottom)).then_some(new),
                    // The same value again: nothing to join.
                    _ if new == *old => None,
                    _ => Some(old.join(&new)).filter(|j| j != old),
                };
                if let Some(mut joined) = joined {
                    if joined.has_known_bits() {
                        let g = &mut grown[pi];
                        *g = g.saturating_add(1);
                        if *g > WIDEN_AFTER {
                            joined = joined.widen_from(old).join(old);
                        }
                    }
                    eng.fv.vals[pi] = joined;
                    users.of(pi)
                } else {
                    &[]
                }
            }
        };
        for &u in wake {
            if let Some(q) = queued.get_mut(u as usize) {
                if !*q {
                    *q = true;
                    heap.push(Reverse(u));
                }
            }
        }
    }
    Some(eng.fv)
}

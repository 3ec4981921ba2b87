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
use crate::read::limits::{MAX_ACCESS_PATH, MAX_DATAFLOW_STEPS, MAX_RECURSION};
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub(crate) use super::value::{global_address, PathElem, Val, MAX_AGG_LEAVES};

/// Times an instruction's value may grow as known bits before it is widened
/// ([`Val::widen_from`]).
pub(crate) const WIDEN_AFTER: u8 = 2;

/// What a pointer is rooted at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Root {
    /// A function-local variable (the alloca instruction's index).
    Alloca(usize),
    /// A global variable.
    Global(GlobalH),
}

/// A resolved pointer: its root and the index operands after the root.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Ptr {
    pub root: Root,
    pub path: Vec<Value>,
    /// For a PTX `.local` / `.param` byte array (`__local_depot0[16]`): the
    /// constant byte offset an integer `add` (through `cvta.local`) reached,
    /// read as the path `[offset]` ([`Ptr::elems_tail`]).
    pub bytes: Option<u64>,
}

impl Ptr {
    /// The path element the byte offset adds, if any.
    pub(crate) fn elems_tail(&self) -> Option<PathElem> {
        self.bytes.map(PathElem::Idx)
    }
}

/// True when the alloca is a PTX byte array (`.local .align 8 .b8 a[16]`),
/// whose accesses are addressed by byte offsets.
fn byte_array(m: &Module, f: &Function, h: InstH) -> bool {
    if m.source != SourceKind::Ptx {
        return false;
    }
    let Some(InstKind::Alloca { ty }) = f.insts.try_get(h).map(|i| &i.kind) else { return false };
    match m.types.try_get(*ty) {
        Some(Type::Array { elem, count: Some(_), .. }) => matches!(m.types.try_get(*elem), Some(Type::Int { bits: 8 })),
        _ => false,
    }
}

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

/// Results for one function.
#[derive(Debug, Clone)]
pub(crate) struct FuncValues {
    /// Value of each instruction (by instruction index).
    pub vals: Vec<Val>,
    /// Resolved pointers of instructions that are addresses.
    pub ptrs: Vec<Option<Ptr>>,
    /// Allocas whose address escapes.
    pub escaped: Vec<bool>,
    /// Stores by alloca index.
    pub stores: FxHashMap<usize, Vec<usize>>,
    /// Return slots of PTX calls: alloca index → (callee, return index).
    pub ret_slots: FxHashMap<usize, (FuncH, usize)>,
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
    store_recs: Vec<Option<(Vec<PathElem>, Val)>>,
    steps: &'a mut u64,
}

/// Resolves a pointer value structurally (memoized for instructions).
fn resolve_ptr(m: &Module, f: &Function, memo: &mut Vec<Option<Option<Ptr>>>, v: Value, depth: u32) -> Option<Ptr> {
    if depth > MAX_RECURSION {
        return None;
    }
    let gep = |memo: &mut Vec<Option<Option<Ptr>>>, base: Value, indices: &[Value]| -> Option<Ptr> {
        let (first, rest) = indices.split_first()?;
        if m.const_int(*first) != Some(0) {
            return None;
        }
        let mut p = resolve_ptr(m, f, memo, base, depth + 1)?;
        // Every resolved pointer keeps its whole path: a chain of GEPs on GEPs
        // with many indices each would copy O(chain × indices) values. No
        // type nests deeper than `MAX_ACCESS_PATH`, so a longer path is unknown.
        if p.path.len().saturating_add(rest.len()) > MAX_ACCESS_PATH {
            return None;
        }
        p.path.extend_from_slice(rest);
        Some(p)
    };
    match v {
        Value::Global(g) => Some(Ptr { root: Root::Global(g), path: Vec::new(), bytes: None }),
        Value::Const(c) => match &m.constants.try_get(c)?.kind {
            ConstKind::Expr(e) => match &**e {
                ConstExpr::Gep { base, indices } => gep(memo, *base, indices),
                _ => None,
            },
            _ => None,
        },
        Value::Inst(h) => {
            let i = h.index();
            if let Some(Some(done)) = memo.get(i) {
                return done.clone();
            }
            let r = match &f.insts.try_get(h)?.kind {
                InstKind::Alloca { .. } => {
                    let bytes = byte_array(m, f, h).then_some(0);
                    Some(Ptr { root: Root::Alloca(i), path: Vec::new(), bytes })
                }
                InstKind::Gep { base, indices } => gep(memo, *base, indices),
                // PTX byte arithmetic on a local byte array: `[%SPL+8]`,
                // `cvta.local.u64 %SP, %SPL; add.u64 %rd, %SP, 8`.
                InstKind::Binary { op: BinOp::Add, lhs, rhs } if m.source == SourceKind::Ptx => {
                    let (base, c) = match (m.const_int(*lhs), m.const_int(*rhs)) {
                        (_, Some(c)) => (*lhs, c),
                        (Some(c), None) => (*rhs, c),
                        _ => return None,
                    };
                    let p = resolve_ptr(m, f, memo, base, depth + 1)?;
                    let at = p.bytes?.checked_add(c)?;
                    Some(Ptr { bytes: Some(at), ..p })
                }
                InstKind::Cast { op: CastOp::AddrSpaceCast, value } if m.source == SourceKind::Ptx => {
                    resolve_ptr(m, f, memo, *value, depth + 1).filter(|p| p.bytes.is_some())
                }
                _ => None,
            };
            if let Some(slot) = memo.get_mut(i) {
                *slot = Some(r.clone());
            }
            r
        }
        _ => None,
    }
}

/// Structural facts about memory: resolved pointers, escaping allocas, stores.
/// Resolved pointers, escaping allocas, stores by alloca, and the return slots
/// of PTX calls (alloca → the callee and the index of its return value).
type MemoryFacts = (Vec<Option<Ptr>>, Vec<bool>, FxHashMap<usize, Vec<usize>>, FxHashMap<usize, (FuncH, usize)>);

/// The number of `.param` arguments of a PTX call to a function with a body
/// (the lowering passes its arguments, then its return slots, as the `.param`
/// variables of the call sequence); `None` for other calls.
pub(crate) fn ptx_call_params(m: &Module, callee: Value) -> Option<(FuncH, usize)> {
    if m.source != SourceKind::Ptx {
        return None;
    }
    let Value::Function(g) = callee else { return None };
    let func = m.functions.try_get(g)?;
    (!func.is_declaration && !func.blocks.is_empty()).then_some((g, func.params.len()))
}

/// The allocas of a PTX function's return `.param` variables, in order: its
/// first `n` allocas (the lowering declares them before the body).
pub(crate) fn ptx_ret_slots(f: &Function, n: usize) -> Vec<usize> {
    f.insts.iter().filter(|(_, i)| matches!(i.kind, InstKind::Alloca { .. })).map(|(h, _)| h.index()).take(n).collect()
}

/// The accesses of PTX byte arrays must not overlap in part: every two that
/// share a byte start at the same offset, with the same width when both are
/// known (a stored global address has none: only its low bits are known, and
/// they are the low bytes of any width). Otherwise the array escapes.
fn byte_overlaps(m: &Module, f: &Function, ptrs: &[Option<Ptr>], escaped: &mut [bool]) {
    let width = |v: Value| -> Option<u64> {
        let ty = match v {
            Value::Inst(h) => f.insts.try_get(h)?.ty,
            Value::Const(c) => m.constants.try_get(c)?.ty,
            _ => return None,
        };
        scalar_bits(m, ty).map(|b| u64::from(b).div_ceil(8))
    };
    let mut acc: FxHashMap<usize, Vec<(u64, Option<u64>)>> = FxHashMap::default();
    for (_, inst) in f.insts.iter() {
        let (ptr, w) = match &inst.kind {
            InstKind::Load { ptr } => (*ptr, scalar_bits(m, inst.ty).map(|b| u64::from(b).div_ceil(8))),
            InstKind::Store { ptr, value } => (*ptr, width(*value)),
            _ => continue,
        };
        let Value::Inst(p) = ptr else { continue };
        let Some(Some(Ptr { root: Root::Alloca(a), bytes: Some(o), .. })) = ptrs.get(p.index()) else { continue };
        acc.entry(*a).or_default().push((*o, w));
    }
    for (a, mut v) in acc {
        v.sort_unstable();
        // One sweep: groups of accesses at one offset, each group ending
        // before the next begins (an access of unknown width counts 8 bytes).
        let mut bad = false;
        let mut group: Option<(u64, u64, Option<u64>)> = None; // offset, end, known width
        for (o, w) in v {
            let end = o.saturating_add(w.unwrap_or(8));
            group = match group {
                Some((go, gend, gw)) if go == o => {
                    bad |= matches!((gw, w), (Some(p), Some(q)) if p != q);
                    Some((go, gend.max(end), gw.or(w)))
                }
                Some((_, gend, _)) if o < gend => {
                    bad = true;
                    break;
                }
                _ => Some((o, end, w)),
            };
        }
        if bad {
            if let Some(e) = escaped.get_mut(a) {
                *e = true;
            }
        }
    }
}

fn memory_facts(m: &Module, f: &Function) -> MemoryFacts {
    let n = f.insts.len();
    let mut memo: Vec<Option<Option<Ptr>>> = vec![None; n];
    let mut ptrs: Vec<Option<Ptr>> = vec![None; n];
    for (h, _) in f.insts.iter() {
        ptrs[h.index()] = resolve_ptr(m, f, &mut memo, Value::Inst(h), 0);
    }
    let alloca_of = |v: Value, ptrs: &Vec<Option<Ptr>>| -> Option<usize> {
        match v {
            Value::Inst(h) => match ptrs.get(h.index())?.as_ref()?.root {
                Root::Alloca(a) => Some(a),
                Root::Global(_) => None,
            },
            _ => None,
        }
    };
    let mut escaped = vec![false; n];
    let mut stores: FxHashMap<usize, Vec<usize>> = FxHashMap::default();
    let mut ret_slots: FxHashMap<usize, (FuncH, usize)> = FxHashMap::default();
    for (h, inst) in f.insts.iter() {
        match &inst.kind {
            InstKind::Load { .. } => {}
            // A PTX call reads its argument slots and writes its return slots
            // (their values come from the callee's summary); nothing else.
            InstKind::Call { callee, args, .. } if ptx_call_params(m, *callee).is_some() => {
                let Some((g, np)) = ptx_call_params(m, *callee) else { continue };
                for (k, v) in args.iter().enumerate() {
                    let Some(a) = alloca_of(*v, &ptrs) else { continue };
                    let direct = matches!(v, Value::Inst(x) if x.index() == a);
                    let twice = direct && k >= np && ret_slots.insert(a, (g, k - np)).is_some();
                    if !direct || twice {
                        escaped[a] = true;
                    }
                }
            }
            InstKind::Store { ptr, value } => {
                if let Some(a) = alloca_of(*ptr, &ptrs) {
                    stores.entry(a).or_default().push(h.index());
                } else if let Value::Inst(p) = ptr {
                    // A store through an unresolved pointer derived from an alloca
                    // (a GEP with a non-zero first index) is not modelled.
                    if let Some(InstKind::Gep { base, .. }) = f.insts.try_get(*p).map(|i| &i.kind) {
                        if let Some(a) = alloca_of(*base, &ptrs) {
                            escaped[a] = true;
                        }
                    }
                }
                if let Some(a) = alloca_of(*value, &ptrs) {
                    escaped[a] = true;
                }
            }
            InstKind::Gep { base, indices } => {
                if ptrs[h.index()].is_none() {
                    if let Some(a) = alloca_of(*base, &ptrs) {
                        escaped[a] = true;
                    }
                }
                for v in indices {
                    if let Some(a) = alloca_of(*v, &ptrs) {
                        escaped[a] = true;
                    }
                }
            }
            // Byte arithmetic that stays a resolved local address (like a GEP).
            InstKind::Binary { .. } | InstKind::Cast { .. } if ptrs[h.index()].is_some() => {}
            other => for_each_operand(other, |v| {
                if let Some(a) = alloca_of(v, &ptrs) {
                    escaped[a] = true;
                }
            }),
        }
    }
    byte_overlaps(m, f, &ptrs, &mut escaped);
    (ptrs, escaped, stores, ret_slots)
}

impl<'a, 'm> Engine<'a, 'm> {
    fn operand(&mut self, v: Value) -> Val {
        match v {
            Value::Const(c) => self.ce.value(c),
            Value::Inst(h) => self.fv.vals.get(h.index()).cloned().unwrap_or(Val::Top),
            Value::Global(g) => global_address(self.ce.m, g),
            // A `.func` parameter: what its call sites pass; a kernel's: what
            // its `.ptr .align N` says.
            Value::Arg(i) => match self.sum.params.get(&self.me).and_then(|p| p.get(i as usize)) {
                Some(v) => v.clone(),
                None => ptxops::kernel_param(self.f, i),
            },
            Value::Function(_) => Val::Top,
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
                let a = self.operand(*v).abs();
                match a.as_const() {
                    Some(i) => PathElem::Idx(i),
                    None if a.is_bottom() => PathElem::Pending,
                    None => PathElem::Any,
                }
            })
            .collect()
    }

    fn load(&mut self, ptr: Value) -> Val {
        let p = match ptr {
            Value::Inst(h) => self.fv.ptrs.get(h.index()).cloned().flatten(),
            Value::Global(g) => Some(Ptr { root: Root::Global(g), path: Vec::new(), bytes: None }),
            Value::Const(_) => {
                let mut memo = Vec::new();
                resolve_ptr(self.ce.m, self.f, &mut memo, ptr, 0)
            }
            _ => None,
        };
        let Some(p) = p else {
            return Val::Top;
        };
        let mut path = self.path_elems(&p.path);
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
                if self.fv.escaped.get(a).copied().unwrap_or(true) {
                    return Val::Top;
                }
                let stores = self.fv.stores.get(&a).cloned().unwrap_or_default();
                *self.steps += stores.len() as u64;
                let mut out = match self.fv.ret_slots.get(&a) {
                    // A call's return slot: what the callee returns there.
                    Some((g, j)) => match self.sum.rets.get(&g.index()).and_then(|r| r.get(*j)) {
                        Some(v) => v.navigate(&path),
                        None => Val::Top,
                    },
                    None => Val::Bottom,
                };
                for s in stores {
                    let Some(Some((spath, sval))) = self.store_recs.get(s) else {
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
                let (x, y) = (self.operand(*lhs).abs(), self.operand(*rhs).abs());
                Val::int(binary(*op, &x, &y, b), b)
            }
            InstKind::Unary { op, value } => {
                let Some(b) = bits else { return Val::Top };
                Val::int(unary(*op, &self.operand(*value).abs(), b), b)
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
                let (x, y) = (self.operand(*lhs).abs(), self.operand(*rhs).abs());
                Val::int(lattice::icmp(pred.0, &x, &y, from), 1)
            }
            InstKind::Select { cond, if_true, if_false } => {
                let c = self.operand(*cond).abs();
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
                        out = out.join(&self.operand(*v).retag(bits));
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
                let i = self.operand(*index).abs();
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
                let i = self.operand(*index).abs();
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
                    let ops: Vec<AbsValue> = operands.iter().map(|o| self.operand(*o).abs()).collect();
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
        let Some(p) = (match ptr {
            Value::Inst(p) => self.fv.ptrs.get(p.index()).cloned().flatten(),
            _ => None,
        }) else {
            return false;
        };
        let mut path = self.path_elems(&p.path);
        path.extend(p.elems_tail());
        let v = self.operand(value);
        let Some(slot) = self.store_recs.get_mut(h.index()) else {
            return false;
        };
        let merged = match slot.as_ref() {
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
        let changed = slot.as_ref() != Some(&merged);
        *slot = Some(merged);
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

/// The instructions the values of `roots` depend on: closed under operands
/// (phi inputs, addresses and their indices included); a load brings in every
/// store of the function with what it depends on, since loads of local
/// variables read the stores' values.
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
    let mut stores_added = false;
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
    let touches_memory = only.is_none_or(|o| {
        f.insts.iter().any(|(h, i)| {
            matches!(i.kind, InstKind::Load { .. } | InstKind::Store { .. })
                && o.get(h.index()).copied().unwrap_or(false)
        })
    });
    let (ptrs, escaped, stores, ret_slots) = if touches_memory {
        memory_facts(m, f)
    } else {
        (vec![None; n], vec![false; n], FxHashMap::default(), FxHashMap::default())
    };

    // Positions in reverse post-order; unreachable instructions have none.
    let mut pos = vec![u32::MAX; n];
    let mut order: Vec<InstH> = Vec::new();
    for b in &cfg.rpo {
        if let Some(block) = f.blocks.try_get(*b) {
            for ih in &block.insts {
                let wanted = only.is_none_or(|o| o.get(ih.index()).copied().unwrap_or(false));
                if ih.index() < n && pos[ih.index()] == u32::MAX && wanted {
                    pos[ih.index()] = order.len() as u32;
                    order.push(*ih);
                }
            }
        }
    }

    // Def-use edges, plus store → loads of the same alloca and path operand → access.
    let mut users: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut loads_of: FxHashMap<usize, Vec<u32>> = FxHashMap::default();
    for &h in &order {
        let Some(inst) = f.insts.try_get(h) else { continue };
        let me = h.index() as u32;
        for_each_operand(&inst.kind, |v| {
            if let Value::Inst(d) = v {
                if let Some(u) = users.get_mut(d.index()) {
                    u.push(me);
                }
            }
        });
        let ptr = match &inst.kind {
            InstKind::Load { ptr } | InstKind::Store { ptr, .. } => Some(*ptr),
            _ => None,
        };
        if let Some(Value::Inst(p)) = ptr {
            if let Some(Some(pp)) = ptrs.get(p.index()) {
                for v in &pp.path {
                    if let Value::Inst(d) = v {
                        if let Some(u) = users.get_mut(d.index()) {
                            u.push(me);
                        }
                    }
                }
                if let (Root::Alloca(a), InstKind::Load { .. }) = (pp.root, &inst.kind) {
                    loads_of.entry(a).or_default().push(me);
                }
            }
        }
    }

    let mut eng = Engine {
        ce,
        f,
        me: fh.index(),
        sum,
        fv: FuncValues { vals: vec![Val::Bottom; n], ptrs, escaped, stores, ret_slots },
        store_recs: vec![None; n],
        steps,
    };
    let mut queued = vec![false; n];
    let mut grown = vec![0u8; n];
    let mut heap: BinaryHeap<Reverse<u32>> = BinaryHeap::with_capacity(order.len());
    for (i, h) in order.iter().enumerate() {
        queued[h.index()] = true;
        heap.push(Reverse(i as u32));
    }
    while let Some(Reverse(p)) = heap.pop() {
        *eng.steps += 1;
        // Constant folding (zero values, aggregates) is charged to the same budget.
        if eng.steps.saturating_add(eng.ce.steps) > MAX_DATAFLOW_STEPS {
            return None;
        }
        let Some(&h) = order.get(p as usize) else { continue };
        queued[h.index()] = false;
        let is_store = matches!(f.insts.try_get(h).map(|i| &i.kind), Some(InstKind::Store { .. }));
        let mut wake: Vec<u32> = Vec::new();
        if is_store {
            if eng.eval_store(h) {
                let root = match f.insts.try_get(h).map(|i| &i.kind) {
                    Some(InstKind::Store { ptr: Value::Inst(p), .. }) => {
                        eng.fv.ptrs.get(p.index()).cloned().flatten().map(|x| x.root)
                    }
                    _ => None,
                };
                if let Some(Root::Alloca(a)) = root {
                    wake.extend(loads_of.get(&a).into_iter().flatten().copied());
                }
            }
        } else {
            let new = eng.eval(h, &cfg);
            let old = &eng.fv.vals[h.index()];
            let mut joined = old.join(&new);
            if &joined != old {
                if joined.has_known_bits() {
                    let g = &mut grown[h.index()];
                    *g = g.saturating_add(1);
                    if *g > WIDEN_AFTER {
                        joined = joined.widen_from(old).join(old);
                    }
                }
                eng.fv.vals[h.index()] = joined;
                wake.extend(users[h.index()].iter().copied());
            }
        }
        for u in wake {
            let ui = u as usize;
            let up = pos.get(ui).copied().unwrap_or(u32::MAX);
            if up != u32::MAX && !queued[ui] {
                queued[ui] = true;
                heap.push(Reverse(up));
            }
        }
    }
    Some(eng.fv)
}

//! Structural facts about a function's memory for the dataflow: which
//! instructions are addresses of a function-local variable or a global (and
//! at which index path), which locals escape, the stores to each local and the
//! return slots of PTX calls.
//!
//! Pointers are kept compact: one `u32` per instruction names an entry of a
//! table holding only the instructions that resolve, and every path lives in
//! one shared `Vec<Value>` (a GEP on a GEP whose path ends the table extends
//! it in place instead of copying it).

use crate::ir::*;
use crate::read::limits::{MAX_ACCESS_PATH, MAX_RECURSION};
use rustc_hash::FxHashMap;

use super::dataflow::{for_each_operand, scalar_bits};
use super::value::PathElem;

/// What a pointer is rooted at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Root {
    /// A function-local variable (the alloca instruction's index).
    Alloca(usize),
    /// A global variable.
    Global(GlobalH),
}

/// A resolved pointer: its root and the index operands after the root (a
/// range of [`Pointers`]' shared path table, read with [`Pointers::path`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Ptr {
    pub root: Root,
    start: u32,
    len: u32,
    /// For a PTX `.local` / `.param` byte array (`__local_depot0[16]`): the
    /// constant byte offset an integer `add` (through `cvta.local`) reached,
    /// read as the path `[offset]` ([`Ptr::elems_tail`]).
    pub bytes: Option<u64>,
}

impl Ptr {
    /// A pointer to the start of `root`.
    pub(crate) fn root(root: Root, bytes: Option<u64>) -> Ptr {
        Ptr { root, start: 0, len: 0, bytes }
    }

    /// The path element the byte offset adds, if any.
    pub(crate) fn elems_tail(&self) -> Option<PathElem> {
        self.bytes.map(PathElem::Idx)
    }
}

/// Not resolved yet.
const UNSEEN: u32 = u32::MAX;
/// Resolved: not a pointer the analysis follows.
const NOT_PTR: u32 = u32::MAX - 1;

/// The resolved pointers of one function's instructions.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pointers {
    /// Per instruction: an index into `table`, [`NOT_PTR`] or [`UNSEEN`].
    ids: Vec<u32>,
    table: Vec<Ptr>,
    paths: Vec<Value>,
}

impl Pointers {
    /// The pointer instruction `i` resolves to.
    pub(crate) fn get(&self, i: usize) -> Option<&Ptr> {
        let id = *self.ids.get(i)?;
        if id >= NOT_PTR {
            return None;
        }
        self.table.get(id as usize)
    }

    /// The pointer an instruction operand resolves to.
    pub(crate) fn of(&self, v: Value) -> Option<&Ptr> {
        match v {
            Value::Inst(h) => self.get(h.index()),
            _ => None,
        }
    }

    /// The index operands of `p` after its root.
    pub(crate) fn path(&self, p: &Ptr) -> &[Value] {
        let (s, l) = (p.start as usize, p.len as usize);
        self.paths.get(s..s.saturating_add(l)).unwrap_or(&[])
    }

    /// Resolves a pointer that is no instruction (a constant GEP) against
    /// the resolved instructions; its path is dropped again once `use_path`
    /// has read it.
    pub(crate) fn with_resolved<R>(
        &mut self,
        m: &Module,
        f: &Function,
        v: Value,
        use_path: impl FnOnce(Option<(Ptr, &[Value])>) -> R,
    ) -> R {
        let mark = self.paths.len();
        let p = resolve(m, f, self, v, 0);
        let r = use_path(p.map(|p| (p, self.path(&p))));
        self.paths.truncate(mark);
        r
    }

    /// `base` with the index operands `rest` appended.
    fn extend(&mut self, base: Ptr, rest: &[Value]) -> Option<Ptr> {
        let len = (base.len as usize).checked_add(rest.len())?;
        // Every resolved pointer keeps its whole path: a chain of GEPs on GEPs
        // with many indices each would copy O(chain × indices) values. No
        // type nests deeper than `MAX_ACCESS_PATH`, so a longer path is unknown.
        if len > MAX_ACCESS_PATH {
            return None;
        }
        if rest.is_empty() {
            return Some(base);
        }
        let end = (base.start as usize).saturating_add(base.len as usize);
        let start = if base.len > 0 && end == self.paths.len() {
            base.start
        } else {
            let s = self.paths.len();
            let (bs, bl) = (base.start as usize, base.len as usize);
            self.paths.extend_from_within(bs..bs + bl);
            s as u32
        };
        self.paths.extend_from_slice(rest);
        Some(Ptr { start, len: len as u32, ..base })
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

/// Resolves a pointer value structurally (memoized for instructions).
fn resolve(m: &Module, f: &Function, p: &mut Pointers, v: Value, depth: u32) -> Option<Ptr> {
    if depth > MAX_RECURSION {
        return None;
    }
    let gep = |p: &mut Pointers, base: Value, indices: &[Value]| -> Option<Ptr> {
        let (first, rest) = indices.split_first()?;
        if m.const_int(*first) != Some(0) {
            return None;
        }
        let b = resolve(m, f, p, base, depth + 1)?;
        p.extend(b, rest)
    };
    match v {
        Value::Global(g) => Some(Ptr::root(Root::Global(g), None)),
        Value::Const(c) => match &m.constants.try_get(c)?.kind {
            ConstKind::Expr(e) => match &**e {
                ConstExpr::Gep { base, indices } => gep(p, *base, indices),
                _ => None,
            },
            _ => None,
        },
        Value::Inst(h) => {
            let i = h.index();
            match p.ids.get(i) {
                Some(&NOT_PTR) => return None,
                Some(&id) if id != UNSEEN => return p.table.get(id as usize).copied(),
                _ => {}
            }
            let r = match &f.insts.try_get(h)?.kind {
                InstKind::Alloca { .. } => {
                    let bytes = byte_array(m, f, h).then_some(0);
                    Some(Ptr::root(Root::Alloca(i), bytes))
                }
                InstKind::Gep { base, indices } => gep(p, *base, indices),
                // PTX byte arithmetic on a local byte array: `[%SPL+8]`,
                // `cvta.local.u64 %SP, %SPL; add.u64 %rd, %SP, 8`.
                InstKind::Binary { op: BinOp::Add, lhs, rhs } if m.source == SourceKind::Ptx => {
                    let (base, c) = match (m.const_int(*lhs), m.const_int(*rhs)) {
                        (_, Some(c)) => (*lhs, c),
                        (Some(c), None) => (*rhs, c),
                        _ => return None,
                    };
                    let b = resolve(m, f, p, base, depth + 1)?;
                    let at = b.bytes?.checked_add(c)?;
                    Some(Ptr { bytes: Some(at), ..b })
                }
                InstKind::Cast { op: CastOp::AddrSpaceCast, value } if m.source == SourceKind::Ptx => {
                    resolve(m, f, p, *value, depth + 1).filter(|b| b.bytes.is_some())
                }
                _ => None,
            };
            if i < p.ids.len() {
                let id = match r {
                    Some(ptr) if p.table.len() < NOT_PTR as usize => {
                        p.table.push(ptr);
                        (p.table.len() - 1) as u32
                    }
                    _ => NOT_PTR,
                };
                p.ids[i] = id;
            }
            r
        }
        _ => None,
    }
}

/// Structural facts about memory: resolved pointers, escaping allocas, stores
/// by alloca, and the return slots of PTX calls (alloca → the callee and the
/// index of its return value).
#[derive(Debug, Clone, Default)]
pub(crate) struct MemoryFacts {
    pub ptrs: Pointers,
    /// Allocas whose address escapes, by instruction index.
    pub escaped: Vec<bool>,
    /// Stores by alloca index.
    pub stores: FxHashMap<usize, Vec<usize>>,
    /// Return slots of PTX calls: alloca index → (callee, return index).
    pub ret_slots: FxHashMap<usize, (FuncH, usize)>,
}

impl MemoryFacts {
    /// No pointer resolved and nothing escaping (a slice that never reads memory).
    pub(crate) fn none(n: usize) -> MemoryFacts {
        MemoryFacts { escaped: vec![false; n], ..MemoryFacts::default() }
    }
}

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
fn byte_overlaps(m: &Module, f: &Function, ptrs: &Pointers, escaped: &mut [bool]) {
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
        let Some(Ptr { root: Root::Alloca(a), bytes: Some(o), .. }) = ptrs.of(ptr) else { continue };
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

/// Resolves every instruction's pointer and finds the escaping allocas, the
/// stores to each and the return slots of PTX calls.
pub(crate) fn memory_facts(m: &Module, f: &Function) -> MemoryFacts {
    let n = f.insts.len();
    let mut ptrs = Pointers { ids: vec![UNSEEN; n], table: Vec::new(), paths: Vec::new() };
    // A resolution that stopped early (always at "not a pointer") is not
    // memoized: a later instruction resolving through it tries again.
    let mut early: Vec<usize> = Vec::new();
    for (h, inst) in f.insts.iter() {
        // Only these resolve (the rest are "not a pointer" at once).
        let candidate = matches!(
            inst.kind,
            InstKind::Alloca { .. }
                | InstKind::Gep { .. }
                | InstKind::Binary { op: BinOp::Add, .. }
                | InstKind::Cast { op: CastOp::AddrSpaceCast, .. }
        );
        if !candidate {
            if let Some(slot @ &mut UNSEEN) = ptrs.ids.get_mut(h.index()) {
                *slot = NOT_PTR;
            }
            continue;
        }
        let r = resolve(m, f, &mut ptrs, Value::Inst(h), 0);
        if r.is_none() && ptrs.ids.get(h.index()) == Some(&UNSEEN) {
            early.push(h.index());
        }
    }
    for i in early {
        if let Some(slot) = ptrs.ids.get_mut(i) {
            *slot = NOT_PTR;
        }
    }
    let alloca_of = |v: Value, ptrs: &Pointers| -> Option<usize> {
        match ptrs.of(v)?.root {
            Root::Alloca(a) => Some(a),
            Root::Global(_) => None,
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
                if ptrs.get(h.index()).is_none() {
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
            InstKind::Binary { .. } | InstKind::Cast { .. } if ptrs.get(h.index()).is_some() => {}
            other => for_each_operand(other, |v| {
                if let Some(a) = alloca_of(v, &ptrs) {
                    escaped[a] = true;
                }
            }),
        }
    }
    byte_overlaps(m, f, &ptrs, &mut escaped);
    MemoryFacts { ptrs, escaped, stores, ret_slots }
}

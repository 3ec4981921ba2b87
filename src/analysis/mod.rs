//! Dataflow over the IR: every SSA integer value becomes ⊥, a set of ≤ 8
//! constants, known bits (per bit: 0, 1 or unknown; `r mod 2^k` is "the low
//! `k` bits known"), or ⊤ (rules.md §0).
//!
//! - [`lattice`]: the value lattice and its transfer functions;
//! - [`knownbits`]: the known-bits domain, its transfer functions and the PTX
//!   bit-field forms (`bfe`, `bfi`, packed `mov`, `prmt`);
//! - [`ptxops`]: those PTX forms on the lattice, with parameters in registers,
//!   and `cvta`'s address-space cast;
//! - [`cfg`](mod@cfg): reachability and reverse post-order;
//! - [`dataflow`]: the per-function worklist, function-local memory and constant
//!   folding (spec constants at their default or `--spec-constant` value).
//!
//! ```
//! use irlint::analysis::{analyze, AnalysisOptions, AbsValue};
//! use irlint::ir::{Module, Operand, SourceKind, FuncH};
//! let m = Module::new(SourceKind::Dxil);
//! let a = analyze(&m, &AnalysisOptions::default());
//! let f = FuncH::from_index(0).unwrap();
//! assert_eq!(a.value(&m, f, Operand::Imm(16)), AbsValue::Set(smallvec::smallvec![16]));
//! ```

mod calls;
pub mod cfg;
pub mod consteval;
pub mod dataflow;
mod flow;
pub mod knownbits;
pub mod lattice;
mod memory;
pub mod ptxops;
pub mod uniformity;
mod value;

pub use knownbits::KnownBits;
pub use lattice::{AbsValue, Admitted};

use crate::ir::{ConstH, ConstKind, FuncH, Function, InstH, InstKind, Module, Operand, Value};
use dataflow::{ConstEval, FuncValues, PathElem, Root};
use rustc_hash::FxHashSet;
use std::collections::BTreeMap;

/// Options of the analysis.
#[derive(Debug, Clone, Default)]
pub struct AnalysisOptions {
    /// Spec-constant overrides `(SpecId, value)`.
    pub spec_constants: Vec<(u32, u64)>,
    /// Analyse every function, not only those holding facts (rules only read
    /// fact operands, so the default skips the rest; tests and `dump` use this).
    pub all_functions: bool,
}

/// Results of the analysis of one module.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    /// True when the work budget ran out (the functions not analysed give ⊤).
    pub budget_exceeded: bool,
    /// Transfer-function evaluations spent.
    pub steps: u64,
    funcs: Vec<Option<FuncValues>>,
    spec_constants: Vec<(u32, u64)>,
    /// PTX `.func` parameters joined over the module's call sites, by function index.
    params: rustc_hash::FxHashMap<usize, Vec<dataflow::Val>>,
}

/// Most nodes the spec-constant dependency walk visits.
const MAX_DEP_WALK: usize = 4096;

impl Analysis {
    /// The abstract value of an operand of a fact in function `f`.
    pub fn value(&self, m: &Module, f: FuncH, op: Operand) -> AbsValue {
        match op {
            Operand::Imm(v) => AbsValue::Set(smallvec::smallvec![v]),
            Operand::Value(Value::Const(c)) => ConstEval::new(m, &self.spec_constants).value(c).abs(),
            Operand::Value(Value::Inst(h)) => self
                .funcs
                .get(f.index())
                .and_then(|x| x.as_ref())
                .and_then(|fv| fv.val(h.index()))
                .map(|v| v.abs())
                .unwrap_or(AbsValue::Top),
            Operand::Value(Value::Global(g)) => dataflow::global_address(m, g).abs(),
            Operand::Value(Value::Arg(i)) => match self.params.get(&f.index()).and_then(|p| p.get(i as usize)) {
                Some(v) => v.abs(),
                None => m.functions.try_get(f).map_or(AbsValue::Top, |func| ptxops::kernel_param(func, i).abs()),
            },
            Operand::Value(_) => AbsValue::Top,
        }
    }

    /// What the call sites of PTX function `f` pass as its parameters (joined
    /// over the module's calls); empty when `f` is never called in the module
    /// (a kernel) or was not analysed.
    pub fn params(&self, f: FuncH) -> Vec<AbsValue> {
        self.params.get(&f.index()).map(|p| p.iter().map(|v| v.abs()).collect()).unwrap_or_default()
    }

    /// True when `--spec-constant` overrode SpecId `id` (so its value is the
    /// application's, not a placeholder default).
    pub fn overridden(&self, id: u32) -> bool {
        self.spec_constants.iter().any(|(i, _)| *i == id)
    }

    /// The single constant an operand is known to be, if any.
    pub fn constant(&self, m: &Module, f: FuncH, op: Operand) -> Option<u64> {
        self.value(m, f, op).as_const()
    }

    /// The spec constants an operand's value depends on, as `(SpecId, value used)`
    /// sorted by id (for "assuming spec constant 1 (K) = 1").
    pub fn spec_deps(&self, m: &Module, f: FuncH, op: Operand) -> Vec<(u32, u64)> {
        let Operand::Value(v) = op else {
            return Vec::new();
        };
        let mut w = DepWalk {
            a: self,
            m,
            ce: ConstEval::new(m, &self.spec_constants),
            f,
            func: m.functions.try_get(f),
            fv: self.funcs.get(f.index()).and_then(|x| x.as_ref()),
            seen: FxHashSet::default(),
            consts_seen: FxHashSet::default(),
            out: BTreeMap::new(),
            budget: MAX_DEP_WALK,
        };
        w.walk(v, Vec::new());
        w.out.into_iter().collect()
    }
}

struct DepWalk<'a> {
    a: &'a Analysis,
    m: &'a Module,
    ce: ConstEval<'a>,
    f: FuncH,
    func: Option<&'a Function>,
    fv: Option<&'a FuncValues>,
    seen: FxHashSet<(usize, Vec<PathElem>)>,
    consts_seen: FxHashSet<ConstH>,
    out: BTreeMap<u32, u64>,
    budget: usize,
}

impl DepWalk<'_> {
    fn elem(&self, v: Value) -> PathElem {
        match self.a.value(self.m, self.f, Operand::Value(v)).as_const() {
            Some(i) => PathElem::Idx(i),
            None => PathElem::Any,
        }
    }

    fn walk_const(&mut self, c: ConstH, path: &[PathElem]) {
        if self.budget == 0 {
            return;
        }
        self.budget -= 1;
        let Some(k) = self.m.constants.try_get(c) else { return };
        if k.spec_id.is_some() {
            if let Some((id, v)) = self.ce.spec_value(c) {
                self.out.insert(id, v);
            }
        }
        match &k.kind {
            ConstKind::Aggregate(vals) => match path.split_first() {
                Some((PathElem::Idx(i), rest)) => {
                    if let Some(v) = usize::try_from(*i).ok().and_then(|i| vals.get(i)) {
                        self.walk(*v, rest.to_vec());
                    }
                }
                _ => {
                    for v in vals.clone() {
                        self.walk(v, Vec::new());
                    }
                }
            },
            ConstKind::Expr(e) => {
                if !self.consts_seen.insert(c) {
                    return;
                }
                use crate::ir::ConstExpr::*;
                let ops: Vec<Value> = match &**e {
                    Binary(_, a, b) | Cmp(_, a, b) => vec![*a, *b],
                    Unary(_, a) | Cast(_, a) => vec![*a],
                    Select(a, b, c) => vec![*a, *b, *c],
                    Gep { base, indices } => std::iter::once(*base).chain(indices.iter().copied()).collect(),
                    Extract(a, idx) => {
                        let mut p: Vec<PathElem> = idx.iter().map(|i| PathElem::Idx(u64::from(*i))).collect();
                        p.extend_from_slice(path);
                        self.walk(*a, p);
                        return;
                    }
                    Other(_, v) => v.clone(),
                };
                for o in ops {
                    self.walk(o, Vec::new());
                }
            }
            _ => {}
        }
    }

    fn walk(&mut self, v: Value, path: Vec<PathElem>) {
        if self.budget == 0 {
            return;
        }
        self.budget -= 1;
        let h = match v {
            Value::Const(c) => return self.walk_const(c, &path),
            Value::Inst(h) => h,
            _ => return,
        };
        if !self.seen.insert((h.index(), path.clone())) {
            return;
        }
        let (Some(func), Some(fv)) = (self.func, self.fv) else { return };
        let Some(inst) = func.insts.try_get(h) else { return };
        match &inst.kind {
            InstKind::Load { ptr } => {
                let Some(p) = fv.mem.ptrs.of(*ptr) else { return };
                let ppath = fv.mem.ptrs.path(p);
                let lpath: Vec<PathElem> = ppath.iter().map(|x| self.elem(*x)).collect();
                for x in ppath {
                    self.walk(*x, Vec::new());
                }
                let mut full = lpath.clone();
                full.extend_from_slice(&path);
                match p.root {
                    Root::Global(g) => {
                        if let Some(init) = self.m.globals.try_get(g).and_then(|g| g.init) {
                            self.walk(init, full);
                        }
                    }
                    Root::Alloca(a) => {
                        for s in fv.mem.stores.get(&a).cloned().unwrap_or_default() {
                            let Some(InstKind::Store { ptr: Value::Inst(sp), value }) =
                                InstH::from_index(s).and_then(|s| func.insts.try_get(s)).map(|i| i.kind.clone())
                            else {
                                continue;
                            };
                            let Some(sptr) = fv.mem.ptrs.get(sp.index()) else { continue };
                            let spath: Vec<PathElem> = fv.mem.ptrs.path(sptr).iter().map(|x| self.elem(*x)).collect();
                            let overlap = spath.iter().zip(full.iter()).all(|(x, y)| match (x, y) {
                                (PathElem::Idx(i), PathElem::Idx(j)) => i == j,
                                _ => true,
                            });
                            if !overlap {
                                continue;
                            }
                            let rest =
                                if spath.len() <= full.len() { full[spath.len()..].to_vec() } else { Vec::new() };
                            self.walk(value, rest);
                        }
                    }
                }
            }
            InstKind::Composite { elements } => match path.split_first() {
                Some((PathElem::Idx(i), rest)) => {
                    if let Some(e) = usize::try_from(*i).ok().and_then(|i| elements.get(i)) {
                        self.walk(*e, rest.to_vec());
                    }
                }
                _ => {
                    for e in elements.clone() {
                        self.walk(e, Vec::new());
                    }
                }
            },
            InstKind::ExtractValue { agg, indices } => {
                let mut p: Vec<PathElem> = indices.iter().map(|i| PathElem::Idx(u64::from(*i))).collect();
                p.extend_from_slice(&path);
                self.walk(*agg, p);
            }
            kind => {
                let mut ops = Vec::new();
                dataflow::for_each_operand(kind, |o| ops.push(o));
                for o in ops {
                    self.walk(o, Vec::new());
                }
            }
        }
    }
}

/// Analyses a module: functions that carry facts first, then the others, until
/// the work budget ([`crate::read::limits::MAX_DATAFLOW_STEPS`]) runs out. In
/// a PTX module with calls (`analysis::calls`), the callers and callees of those
/// functions too, round after round until the call summaries stop growing.
pub fn analyze(m: &Module, opts: &AnalysisOptions) -> Analysis {
    let mut ce = ConstEval::new(m, &opts.spec_constants);
    let mut steps = 0u64;
    let mut order: Vec<FuncH> = Vec::new();
    let mut listed = vec![false; m.functions.len()];
    // Rules only read values of fact operands, in the fact's own function, so
    // only functions holding facts are analysed (most modules have none).
    let all = m.functions.iter().map(|(h, _)| h).filter(|_| opts.all_functions);
    // PTX memory accesses are read too (`ptx-access-misaligned`).
    let accesses = m.functions.iter().filter(|(_, f)| !f.mem_accesses.is_empty()).map(|(h, _)| h);
    for h in m.facts.iter().filter(|f| f.kind.reads_values()).map(|f| f.function).chain(accesses).chain(all) {
        if let Some(l) = listed.get_mut(h.index()) {
            if !*l {
                *l = true;
                order.push(h);
            }
        }
    }
    let graph = if order.is_empty() { calls::CallGraph::default() } else { calls::CallGraph::new(m) };
    if !graph.is_empty() {
        order = graph.closure(m.functions.len(), &order);
    }
    // Summaries start at ⊥ (no call evaluated yet) and only grow.
    let mut sum = graph.bottom(m);
    let mut rounds = 0;
    loop {
        let (funcs, exceeded) = analyze_functions(m, opts, &mut ce, &graph, &sum, &order, &mut steps);
        rounds += 1;
        let done = graph.is_empty() || exceeded || rounds > calls::MAX_ROUNDS;
        if !done {
            let new = graph.summaries(m, &funcs, &mut |f, v| summary_value(m, &mut ce, &funcs, &sum, f, v));
            let before = sum.clone();
            if calls::grow(&mut sum, &new) {
                if rounds == calls::MAX_ROUNDS {
                    calls::give_up(&before, &mut sum);
                }
                continue;
            }
        }
        let exceeded = exceeded || ce.exhausted();
        let steps = steps.saturating_add(ce.steps);
        return Analysis {
            budget_exceeded: exceeded,
            steps,
            funcs,
            spec_constants: opts.spec_constants.clone(),
            params: sum.params,
        };
    }
}

/// What the analysis of `f` knows of `v`, for a call summary.
fn summary_value(
    m: &Module,
    ce: &mut ConstEval<'_>,
    funcs: &[Option<FuncValues>],
    sum: &dataflow::Summaries,
    f: FuncH,
    v: Value,
) -> dataflow::Val {
    match v {
        Value::Const(c) => ce.value(c),
        Value::Inst(h) => funcs
            .get(f.index())
            .and_then(|x| x.as_ref())
            .and_then(|fv| fv.val(h.index()))
            .cloned()
            .unwrap_or(dataflow::Val::Top),
        Value::Global(g) => dataflow::global_address(m, g),
        Value::Arg(i) => match sum.params.get(&f.index()).and_then(|p| p.get(i as usize)) {
            Some(v) => v.clone(),
            None => m.functions.try_get(f).map_or(dataflow::Val::Top, |func| ptxops::kernel_param(func, i)),
        },
        Value::Function(_) => dataflow::Val::Top,
    }
}

/// One round: every function of `order` analysed with the call summaries
/// `sum`; true when the budget ran out.
fn analyze_functions<'m>(
    m: &'m Module,
    opts: &AnalysisOptions,
    ce: &mut ConstEval<'m>,
    graph: &calls::CallGraph,
    sum: &dataflow::Summaries,
    order: &[FuncH],
    steps: &mut u64,
) -> (Vec<Option<FuncValues>>, bool) {
    let mut funcs: Vec<Option<FuncValues>> = vec![None; m.functions.len()];
    // The value operands of each function's PTX facts (one pass over the facts).
    let mut fact_roots: Vec<Vec<Value>> = Vec::new();
    if m.source == crate::ir::SourceKind::Ptx && !opts.all_functions {
        fact_roots.resize(m.functions.len(), Vec::new());
        for x in &m.facts {
            let (crate::ir::FactKind::Ptx(p), Some(r)) = (&x.kind, fact_roots.get_mut(x.function.index())) else {
                continue;
            };
            r.extend(p.op.value_operands().into_iter().filter_map(|o| match o {
                Operand::Value(v) => Some(v),
                Operand::Imm(_) => None,
            }));
        }
    }
    for &h in order {
        let Some(f) = m.functions.try_get(h) else { continue };
        if f.is_declaration || f.blocks.is_empty() {
            continue;
        }
        // PTX kernels are large and their facts few: evaluate only what the
        // fact operands (and the call summaries) depend on (DXIL and SPIR-V
        // keep the whole function).
        let slice = (m.source == crate::ir::SourceKind::Ptx && !opts.all_functions).then(|| {
            let mut roots: Vec<Value> = fact_roots.get(h.index()).cloned().unwrap_or_default();
            roots.extend(ptxops::access_roots(m, f));
            roots.extend(graph.roots(h, f));
            dataflow::backward_slice(f, &roots)
        });
        match dataflow::analyze_function_slice(ce, (h, f), sum, steps, slice.as_deref()) {
            Some(fv) => funcs[h.index()] = Some(fv),
            None => return (funcs, true),
        }
    }
    (funcs, false)
}

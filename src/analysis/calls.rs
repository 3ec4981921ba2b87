//! PTX calls: the `.param` values a `-G` build passes to its `.func`s and gets
//! back, joined over every call site (context-insensitive).
//!
//! The lowering turns a call sequence
//!
//! ```text
//! { .param .b64 param0; st.param.b64 [param0], %rd8;
//!   .param .b64 retval0; call.uni (retval0), f, (param0);
//!   ld.param.b64 %rd9, [retval0]; }
//! ```
//!
//! into allocas for `param0` and `retval0`, a store, `call f(param0, retval0)`
//! (arguments first, then return slots) and a load; in `f` an `ld.param` of a
//! parameter is the argument `%argN` and `st.param [func_retval0]` a store to
//! its first alloca. So a parameter of `f` is the join of the values every call
//! site stores to that argument's slot, and a load of a call's return slot is
//! the join of the values `f` stores to its return variable
//! ([`super::dataflow::Summaries`]). [`CallGraph`] finds the call sites;
//! [`super::analyze`] iterates the functions involved until the summaries stop
//! growing.

use super::dataflow::{ptx_call_params, ptx_ret_slots, FuncValues, Summaries, Val};
use crate::ir::{FuncH, Function, InstH, InstKind, Module, Value};
use rustc_hash::FxHashMap;

/// Rounds of whole-call-graph iteration before the summaries still growing
/// are set to unknown.
pub(crate) const MAX_ROUNDS: usize = 6;

/// One call of a function with a body.
#[derive(Debug, Clone)]
pub(crate) struct CallSite {
    /// The calling function.
    pub caller: FuncH,
    /// The called function.
    pub callee: FuncH,
    /// The `.param` slot of each argument, then of each return value.
    pub args: Vec<Value>,
    /// Number of arguments (the rest of `args` are return slots).
    pub params: usize,
}

/// The PTX call sites of a module, and the functions whose address is used
/// elsewhere than as a callee (their parameters stay unknown).
#[derive(Debug, Clone, Default)]
pub(crate) struct CallGraph {
    pub sites: Vec<CallSite>,
    pub address_taken: Vec<bool>,
    /// The sites each function makes or receives, by function index (site
    /// indices in order).
    touching: FxHashMap<usize, Vec<usize>>,
    /// Return slots each callee has (the most any call site passes).
    rets: FxHashMap<usize, usize>,
}

impl CallGraph {
    /// The call graph of a PTX module (empty for other modules and for PTX
    /// modules without calls to functions with bodies).
    pub(crate) fn new(m: &Module) -> CallGraph {
        let mut g = CallGraph { address_taken: vec![false; m.functions.len()], ..CallGraph::default() };
        if m.source != crate::ir::SourceKind::Ptx {
            return g;
        }
        for (caller, f) in m.functions.iter() {
            for (_, inst) in f.insts.iter() {
                if let InstKind::Call { callee, args, .. } = &inst.kind {
                    if let Some((callee, params)) = ptx_call_params(m, *callee) {
                        g.sites.push(CallSite { caller, callee, args: args.clone(), params });
                    }
                }
            }
        }
        // Without a call to summarise, which addresses are taken never matters.
        if g.sites.is_empty() {
            return g;
        }
        for (i, s) in g.sites.iter().enumerate() {
            g.touching.entry(s.caller.index()).or_default().push(i);
            if s.callee != s.caller {
                g.touching.entry(s.callee.index()).or_default().push(i);
            }
            let n = s.args.len().saturating_sub(s.params);
            let e = g.rets.entry(s.callee.index()).or_default();
            *e = (*e).max(n);
        }
        for (_, f) in m.functions.iter() {
            for (_, inst) in f.insts.iter() {
                if let InstKind::Call { args, .. } = &inst.kind {
                    for a in args {
                        g.take_address(*a);
                    }
                    continue;
                }
                super::dataflow::for_each_operand(&inst.kind, |v| g.take_address(v));
            }
        }
        g
    }

    fn take_address(&mut self, v: Value) {
        if let Value::Function(h) = v {
            if let Some(t) = self.address_taken.get_mut(h.index()) {
                *t = true;
            }
        }
    }

    /// True when the module has no call to summarise.
    pub(crate) fn is_empty(&self) -> bool {
        self.sites.is_empty()
    }

    /// The functions `seed` depends on through calls: callers (for parameter
    /// values) and callees (for return values), transitively.
    pub(crate) fn closure(&self, n: usize, seed: &[FuncH]) -> Vec<FuncH> {
        let mut listed = vec![false; n];
        let mut out: Vec<FuncH> = Vec::new();
        for h in seed {
            if let Some(l) = listed.get_mut(h.index()) {
                if !*l {
                    *l = true;
                    out.push(*h);
                }
            }
        }
        let mut i = 0;
        while i < out.len() {
            let h = out[i];
            i += 1;
            let touching = self.touching.get(&h.index()).map_or(&[][..], |v| v.as_slice());
            for s in touching.iter().filter_map(|&k| self.sites.get(k)) {
                let other = if s.callee == h {
                    s.caller
                } else if s.caller == h {
                    s.callee
                } else {
                    continue;
                };
                if let Some(l) = listed.get_mut(other.index()) {
                    if !*l {
                        *l = true;
                        out.push(other);
                    }
                }
            }
        }
        out
    }

    /// Summaries with every called function's parameters and return values ⊥.
    pub(crate) fn bottom(&self, m: &Module) -> Summaries {
        let mut sum = Summaries::default();
        for s in &self.sites {
            let np = m.functions.try_get(s.callee).map_or(0, |f| f.params.len());
            sum.params.insert(s.callee.index(), vec![Val::Bottom; np]);
        }
        for (&g, &n) in &self.rets {
            sum.rets.insert(g, vec![Val::Bottom; n]);
        }
        sum
    }

    /// The stores a function's summary needs: to the argument slots of its
    /// calls and to its own return variables (roots of its slice).
    pub(crate) fn roots(&self, h: FuncH, f: &Function) -> Vec<Value> {
        let mut slots: Vec<usize> = Vec::new();
        let touching = self.touching.get(&h.index()).map_or(&[][..], |v| v.as_slice());
        for s in touching.iter().filter_map(|&k| self.sites.get(k)).filter(|s| s.caller == h) {
            for a in s.args.iter().take(s.params) {
                if let Value::Inst(x) = a {
                    slots.push(x.index());
                }
            }
        }
        if let Some(n) = self.rets.get(&h.index()) {
            slots.extend(ptx_ret_slots(f, *n));
        }
        if slots.is_empty() {
            return Vec::new();
        }
        slots.sort_unstable();
        f.insts
            .iter()
            .filter(|(_, i)| match &i.kind {
                InstKind::Store { ptr: Value::Inst(p), .. } => slots.binary_search(&p.index()).is_ok(),
                _ => false,
            })
            .map(|(s, _)| Value::Inst(s))
            .collect()
    }

    /// The summaries the analysed functions give: `value(f, v)` is what the
    /// analysis of `f` knows of `v`.
    pub(crate) fn summaries(
        &self,
        m: &Module,
        funcs: &[Option<FuncValues>],
        value: &mut dyn FnMut(FuncH, Value) -> Val,
    ) -> Summaries {
        let mut sum = Summaries::default();
        for s in &self.sites {
            let taken = self.address_taken.get(s.callee.index()).copied().unwrap_or(true);
            let np = m.functions.try_get(s.callee).map_or(0, |f| f.params.len());
            let mut vals = vec![Val::Top; np];
            if !taken && s.params == np {
                for (k, v) in vals.iter_mut().enumerate() {
                    if let Some(a) = s.args.get(k) {
                        *v = slot_value(m, funcs, s.caller, *a, value);
                    }
                }
            }
            let e = sum.params.entry(s.callee.index()).or_insert_with(|| vec![Val::Bottom; np]);
            for (slot, v) in e.iter_mut().zip(&vals) {
                *slot = slot.join(v);
            }
        }
        for (&g, &n) in &self.rets {
            let Some(gh) = FuncH::from_index(g) else { continue };
            let Some(f) = m.functions.try_get(gh) else { continue };
            let mut rets: Vec<Val> = Vec::with_capacity(n);
            for a in ptx_ret_slots(f, n) {
                rets.push(match InstH::from_index(a) {
                    Some(a) => slot_value(m, funcs, gh, Value::Inst(a), value),
                    None => Val::Top,
                });
            }
            rets.resize(n, Val::Top);
            sum.rets.insert(g, rets);
        }
        sum
    }
}

/// The join of the values function `h` stores to the `.param` variable `slot`
/// (unknown when it escapes, is stored to in part, or never).
fn slot_value(
    m: &Module,
    funcs: &[Option<FuncValues>],
    h: FuncH,
    slot: Value,
    value: &mut dyn FnMut(FuncH, Value) -> Val,
) -> Val {
    let (Some(Some(fv)), Some(f), Value::Inst(a)) = (funcs.get(h.index()), m.functions.try_get(h), slot) else {
        return Val::Top;
    };
    if fv.mem.escaped.get(a.index()).copied().unwrap_or(true) {
        return Val::Top;
    }
    let stores = fv.mem.stores.get(&a.index()).map_or(&[][..], |v| v.as_slice());
    if stores.is_empty() {
        return Val::Top;
    }
    let mut out = Val::Bottom;
    for s in stores {
        let st = InstH::from_index(*s).and_then(|s| f.insts.try_get(s)).map(|i| &i.kind);
        match st {
            Some(InstKind::Store { ptr: Value::Inst(p), value: v }) if *p == a => out = out.join(&value(h, *v)),
            _ => return Val::Top,
        }
    }
    out
}

/// `new` joined into `old`; true when something grew.
pub(crate) fn grow(old: &mut Summaries, new: &Summaries) -> bool {
    let mut changed = false;
    for (table, newt) in [(&mut old.params, &new.params), (&mut old.rets, &new.rets)] {
        for (k, nv) in newt {
            let e = table.entry(*k).or_insert_with(|| vec![Val::Bottom; nv.len()]);
            e.resize(nv.len().max(e.len()), Val::Bottom);
            for (slot, v) in e.iter_mut().zip(nv) {
                let j = slot.join(v);
                if &j != slot {
                    *slot = j;
                    changed = true;
                }
            }
        }
    }
    changed
}

/// Every entry that grew between `before` and `after` set to unknown (when
/// the rounds run out).
pub(crate) fn give_up(before: &Summaries, after: &mut Summaries) {
    for (table, old) in [(&mut after.params, &before.params), (&mut after.rets, &before.rets)] {
        for (k, vals) in table.iter_mut() {
            for (i, v) in vals.iter_mut().enumerate() {
                if old.get(k).and_then(|o| o.get(i)) != Some(v) {
                    *v = Val::Top;
                }
            }
        }
    }
}

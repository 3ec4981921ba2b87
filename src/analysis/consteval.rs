//! Module-level constant evaluation (constants, constant expressions, spec
//! constants with overrides) and the integer transfer functions shared with
//! the per-function dataflow.

use super::dataflow::{scalar_bits, PathElem, Val, MAX_AGG_LEAVES};
use super::lattice::{self, AbsValue, BitOp};
use crate::ir::*;
use crate::read::limits::MAX_RECURSION;
use rustc_hash::FxHashMap;

/// No memoized value ([`ConstEval`]'s index).
const NO_MEMO: u32 = u32::MAX;

/// Module-level evaluation of constants (with spec-constant overrides).
pub(crate) struct ConstEval<'m> {
    pub m: &'m Module,
    spec: FxHashMap<u32, u64>,
    /// Memoized values: per constant index, its position in `memo_vals`
    /// ([`NO_MEMO`] when not computed), grown on demand (a dense index
    /// instead of hashing the handle on every constant operand).
    memo_at: Vec<u32>,
    memo_vals: Vec<Val>,
    /// Zero values (`OpConstantNull`, `zeroinitializer`) and ⊥-shapes by type.
    zero_memo: FxHashMap<(TypeH, bool), Val>,
    /// Scalar leaves of a type (saturating), by type.
    leaves_memo: FxHashMap<TypeH, u64>,
    /// Work spent (nodes built, types walked): charged to the module's dataflow
    /// budget ([`crate::read::limits::MAX_DATAFLOW_STEPS`]).
    pub steps: u64,
}

impl<'m> ConstEval<'m> {
    pub fn new(m: &'m Module, overrides: &[(u32, u64)]) -> Self {
        ConstEval {
            m,
            spec: overrides.iter().copied().collect(),
            memo_at: Vec::new(),
            memo_vals: Vec::new(),
            zero_memo: FxHashMap::default(),
            leaves_memo: FxHashMap::default(),
            steps: 0,
        }
    }

    /// True when the work charged here has used up the module's budget.
    pub fn exhausted(&self) -> bool {
        self.steps > crate::read::limits::MAX_DATAFLOW_STEPS
    }

    /// Scalar leaves of a type's value (1 for scalars and anything unmodelled),
    /// saturating at `u64::MAX`; memoised, so a type shared by many members is
    /// walked once and a deeply nested aggregate costs its number of types, not
    /// its number of leaves.
    fn type_leaves(&mut self, ty: TypeH, depth: u32) -> u64 {
        if let Some(&n) = self.leaves_memo.get(&ty) {
            return n;
        }
        if depth > MAX_RECURSION {
            return u64::MAX;
        }
        self.steps += 1;
        let m = self.m;
        let n = match m.types.try_get(ty) {
            // As `Val::leaves` counts them: an empty aggregate is one leaf.
            Some(Type::Vector { elem, count }) => {
                self.type_leaves(*elem, depth + 1).saturating_mul(u64::from(*count)).max(1)
            }
            Some(Type::Array { elem, count: Some(c), .. }) => {
                self.type_leaves(*elem, depth + 1).saturating_mul(*c).max(1)
            }
            Some(Type::Struct { members, .. }) => {
                self.steps += members.len() as u64;
                let mut sum = 0u64;
                for mt in members {
                    sum = sum.saturating_add(self.type_leaves(*mt, depth + 1));
                }
                sum.max(1)
            }
            _ => 1,
        };
        self.leaves_memo.insert(ty, n);
        n
    }

    /// The value a spec constant takes (override or default), if `c` is one.
    pub fn spec_value(&self, c: ConstH) -> Option<(u32, u64)> {
        let k = self.m.constants.try_get(c)?;
        let id = k.spec_id?;
        if let Some(v) = self.spec.get(&id) {
            let bits = scalar_bits(self.m, k.ty).unwrap_or(64);
            return Some((id, v & lattice::mask(bits)));
        }
        match k.kind {
            ConstKind::Int(x) => Some((id, x)),
            ConstKind::Null => Some((id, 0)),
            _ => None,
        }
    }

    /// Computes and memoizes the value of `c` ([`ConstEval::value`]) without
    /// handing out a copy ([`ConstEval::cached`] reads it).
    pub(crate) fn ensure(&mut self, c: ConstH) {
        if self.memo_get(c).is_none() {
            let v = self.compute(c, 0);
            self.memo_put(c, v);
        }
    }

    /// The value of `c`, once [`ConstEval::ensure`]d or computed.
    pub(crate) fn cached(&self, c: ConstH) -> Option<&Val> {
        self.memo_get(c)
    }

    fn memo_get(&self, c: ConstH) -> Option<&Val> {
        let at = *self.memo_at.get(c.index())?;
        self.memo_vals.get(at as usize)
    }

    /// Memoizes the value of `c` (replacing one a cycle stored meanwhile);
    /// a handle that names no constant is not kept (it is ⊤ at once).
    fn memo_put(&mut self, c: ConstH, v: Val) {
        let i = c.index();
        if i >= self.m.constants.len() {
            return;
        }
        if i >= self.memo_at.len() {
            self.memo_at.resize(i + 1, NO_MEMO);
        }
        match self.memo_vals.get_mut(self.memo_at[i] as usize) {
            Some(old) => *old = v,
            None => {
                self.memo_at[i] = self.memo_vals.len() as u32;
                self.memo_vals.push(v);
            }
        }
    }

    pub fn value(&mut self, c: ConstH) -> Val {
        self.value_depth(c, 0)
    }

    fn operand(&mut self, v: Value, depth: u32) -> Val {
        match v {
            Value::Const(c) => self.value_depth(c, depth + 1),
            _ => Val::Top,
        }
    }

    fn value_depth(&mut self, c: ConstH, depth: u32) -> Val {
        if let Some(v) = self.memo_get(c) {
            return v.clone();
        }
        if depth > MAX_RECURSION {
            return Val::Top;
        }
        let v = self.compute(c, depth);
        self.memo_put(c, v.clone());
        v
    }

    /// The zero value of a type (`bottom = false`), or its shape with every leaf
    /// ⊥ (`bottom = true`, for inserts into `undef`). Aggregates of more than
    /// `MAX_AGG_LEAVES` leaves are ⊤, decided before anything is built.
    fn zero_of(&mut self, ty: TypeH, bottom: bool, depth: u32) -> Val {
        if let Some(v) = self.zero_memo.get(&(ty, bottom)) {
            return v.clone();
        }
        if depth > MAX_RECURSION || self.exhausted() {
            return Val::Top;
        }
        self.steps += 1;
        let m = self.m;
        let v = if let Some(bits) = scalar_bits(m, ty) {
            if bottom {
                Val::Bottom
            } else {
                Val::int(AbsValue::constant(0, bits), bits)
            }
        } else {
            let (elems, count): (&[TypeH], u64) = match m.types.try_get(ty) {
                Some(Type::Vector { elem, count }) => (std::slice::from_ref(elem), u64::from(*count)),
                Some(Type::Array { elem, count: Some(n), .. }) => (std::slice::from_ref(elem), *n),
                Some(Type::Struct { members, .. }) => (members.as_slice(), 1),
                _ if bottom => return Val::Bottom,
                _ => return Val::Top,
            };
            if self.type_leaves(ty, depth) > MAX_AGG_LEAVES as u64 {
                Val::Top
            } else {
                let mut out = Vec::with_capacity(elems.len() * count as usize);
                for _ in 0..count {
                    for e in elems {
                        out.push(self.zero_of(*e, bottom, depth + 1));
                    }
                }
                self.steps += out.len() as u64;
                Val::Agg(out.into())
            }
        };
        self.zero_memo.insert((ty, bottom), v.clone());
        v
    }

    fn zero(&mut self, ty: TypeH, depth: u32) -> Val {
        self.zero_of(ty, false, depth)
    }

    fn compute(&mut self, c: ConstH, depth: u32) -> Val {
        let m = self.m;
        let Some(k) = m.constants.try_get(c) else {
            return Val::Top;
        };
        let bits = scalar_bits(m, k.ty);
        match &k.kind {
            ConstKind::Int(_) | ConstKind::Null if k.spec_id.is_some() && bits.is_some() => {
                let bits = bits.unwrap_or(64);
                match self.spec_value(c) {
                    Some((_, v)) => Val::int(AbsValue::constant(v, bits), bits),
                    None => Val::Top,
                }
            }
            ConstKind::Int(x) => match bits {
                Some(b) => Val::int(AbsValue::constant(*x, b), b),
                None => Val::Top,
            },
            ConstKind::Null => self.zero(k.ty, depth),
            ConstKind::Undef => Val::Bottom,
            ConstKind::Float(_) | ConstKind::String(_) => Val::Top,
            ConstKind::Aggregate(vals) => {
                if vals.len() > MAX_AGG_LEAVES {
                    return Val::Top;
                }
                let members: Vec<Val> = vals.iter().map(|v| self.operand(*v, depth)).collect();
                Val::agg(members)
            }
            ConstKind::Expr(e) => {
                let Some(bits) = bits else {
                    // Aggregate-typed expressions: only extraction is modelled.
                    if let ConstExpr::Extract(a, idx) = &**e {
                        let path: Vec<PathElem> = idx.iter().map(|i| PathElem::Idx(u64::from(*i))).collect();
                        return self.operand(*a, depth).navigate(&path);
                    }
                    return Val::Top;
                };
                let e = (**e).clone();
                let r = match e {
                    ConstExpr::Binary(op, a, b) => {
                        let (a, b) = (self.operand(a, depth).abs(), self.operand(b, depth).abs());
                        binary(op, &a, &b, bits)
                    }
                    ConstExpr::Unary(op, a) => unary(op, &self.operand(a, depth).abs(), bits),
                    ConstExpr::Cast(op, a) => {
                        let from = self.type_of(a).and_then(|t| scalar_bits(m, t));
                        cast(op, &self.operand(a, depth).abs(), from, bits)
                    }
                    ConstExpr::Cmp(p, a, b) => {
                        let from = self.type_of(a).and_then(|t| scalar_bits(m, t)).unwrap_or(64);
                        lattice::icmp(p.0, &self.operand(a, depth).abs(), &self.operand(b, depth).abs(), from)
                    }
                    ConstExpr::Select(cnd, a, b) => {
                        let cv = self.operand(cnd, depth).abs();
                        let (a, b) = (self.operand(a, depth), self.operand(b, depth));
                        return select(&cv, &a, &b);
                    }
                    ConstExpr::Extract(a, idx) => {
                        let path: Vec<PathElem> = idx.iter().map(|i| PathElem::Idx(u64::from(*i))).collect();
                        return self.operand(a, depth).navigate(&path);
                    }
                    ConstExpr::Gep { .. } | ConstExpr::Other(..) => AbsValue::Top,
                };
                Val::int(r, bits)
            }
        }
    }

    fn type_of(&self, v: Value) -> Option<TypeH> {
        match v {
            Value::Const(c) => self.m.constants.try_get(c).map(|k| k.ty),
            Value::Global(g) => self.m.globals.try_get(g).map(|g| g.ty),
            _ => None,
        }
    }
}

/// A binary operation on integers.
pub(crate) fn binary(op: BinOp, a: &AbsValue, b: &AbsValue, bits: u32) -> AbsValue {
    match op {
        BinOp::Add => lattice::add(a, b, bits),
        BinOp::Sub => lattice::sub(a, b, bits),
        BinOp::Mul => lattice::mul(a, b, bits),
        BinOp::Shl => lattice::shl(a, b, bits),
        BinOp::LShr => lattice::shr(a, b, bits, false),
        BinOp::AShr => lattice::shr(a, b, bits, true),
        BinOp::And => lattice::bitwise(BitOp::And, a, b, bits),
        BinOp::Or => lattice::bitwise(BitOp::Or, a, b, bits),
        BinOp::Xor => lattice::bitwise(BitOp::Xor, a, b, bits),
        BinOp::UDiv => lattice::divrem(a, b, bits, false, false),
        BinOp::SDiv => lattice::divrem(a, b, bits, true, false),
        BinOp::URem => lattice::divrem(a, b, bits, false, true),
        BinOp::SRem => lattice::divrem(a, b, bits, true, true),
        BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FRem => AbsValue::Top,
    }
}

pub(crate) fn unary(op: UnOp, a: &AbsValue, bits: u32) -> AbsValue {
    match op {
        UnOp::Neg => lattice::sub(&AbsValue::constant(0, bits), a, bits),
        UnOp::Not => lattice::bitwise(BitOp::Xor, a, &AbsValue::constant(u64::MAX, bits), bits),
        UnOp::LogicalNot => lattice::bitwise(BitOp::Xor, a, &AbsValue::constant(1, bits), bits),
        UnOp::FNeg => AbsValue::Top,
    }
}

pub(crate) fn cast(op: CastOp, a: &AbsValue, from: Option<u32>, to: u32) -> AbsValue {
    let Some(from) = from else {
        return AbsValue::Top;
    };
    match op {
        CastOp::Trunc => lattice::trunc(a, to),
        CastOp::ZExt => lattice::zext(a, from, to),
        CastOp::SExt => lattice::sext_value(a, from, to),
        CastOp::Bitcast if from == to => a.clone(),
        _ => AbsValue::Top,
    }
}

pub(crate) fn select(cond: &AbsValue, a: &Val, b: &Val) -> Val {
    match cond.as_const() {
        Some(1) => a.clone(),
        Some(0) => b.clone(),
        _ if cond.is_bottom() => Val::Bottom,
        _ => a.join(b),
    }
}

impl ConstEval<'_> {
    /// An aggregate of the type's shape with every member ⊥ (for inserts into `undef`).
    pub(crate) fn zero_shape(&mut self, ty: TypeH) -> Val {
        self.zero_of(ty, true, 0)
    }
}

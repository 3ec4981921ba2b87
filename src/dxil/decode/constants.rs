//! CONSTANTS blocks (formats.md §B.6), module level and function level.

use super::{field, Decoder, FWD_BASE};
use crate::ir::{BinOp, CastOp, CmpPred, ConstExpr, ConstKind, Constant, Handle, TypeH, Value};
use crate::read::bitstream::{decode_signed, Cursor, Item};
use crate::read::{limits, ReadError, Result};

/// Masks `v` to `bits` bits.
#[inline]
pub(crate) fn mask(v: u64, bits: u16) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

pub(crate) fn binop(code: u64, fp: bool) -> Option<BinOp> {
    Some(match (code, fp) {
        (0, false) => BinOp::Add,
        (1, false) => BinOp::Sub,
        (2, false) => BinOp::Mul,
        (3, false) => BinOp::UDiv,
        (4, false) => BinOp::SDiv,
        (5, false) => BinOp::URem,
        (6, false) => BinOp::SRem,
        (7, false) => BinOp::Shl,
        (8, false) => BinOp::LShr,
        (9, false) => BinOp::AShr,
        (10, false) => BinOp::And,
        (11, false) => BinOp::Or,
        (12, false) => BinOp::Xor,
        (0, true) => BinOp::FAdd,
        (1, true) => BinOp::FSub,
        (2, true) => BinOp::FMul,
        (4, true) => BinOp::FDiv,
        (6, true) => BinOp::FRem,
        _ => return None,
    })
}

pub(crate) fn castop(code: u64) -> Option<CastOp> {
    Some(match code {
        0 => CastOp::Trunc,
        1 => CastOp::ZExt,
        2 => CastOp::SExt,
        3 => CastOp::FpToUi,
        4 => CastOp::FpToSi,
        5 => CastOp::UiToFp,
        6 => CastOp::SiToFp,
        7 => CastOp::FpTrunc,
        8 => CastOp::FpExt,
        9 => CastOp::PtrToInt,
        10 => CastOp::IntToPtr,
        11 => CastOp::Bitcast,
        12 => CastOp::AddrSpaceCast,
        _ => return None,
    })
}

impl Decoder {
    /// An absolute value id inside a constants block; forward ids become placeholders.
    fn cval(&self, vid: u64, fwd: &mut bool) -> Result<Value> {
        match self.vals.get(vid as usize) {
            Some(&(v, _)) => Ok(v),
            None => {
                let vid = u32::try_from(vid).map_err(|_| self.bad(format!("value id {vid} is out of range")))?;
                if vid as usize >= crate::read::limits::MAX_VALUES {
                    return Err(self.bad(format!("value id {vid} is out of range")));
                }
                *fwd = true;
                Handle::from_index(FWD_BASE + vid as usize)
                    .map(Value::Const)
                    .ok_or_else(|| self.bad("value id is out of range"))
            }
        }
    }

    pub(super) fn constants_block(&mut self, rd: &mut Cursor<'_>) -> Result<()> {
        let first_const = self.m.constants.len();
        // A constant record takes at least ~20 bits; reserve from the block size.
        if self.m.constants.is_empty() {
            let n = (rd.block_remaining_bits() / 20).min(1 << 16) as usize;
            self.m.constants = crate::ir::Arena::with_capacity(n);
        }
        let mut fwd = false;
        let mut cur_ty = self.i32();
        while let Some(item) = rd.next_item()? {
            self.off = rd.record_offset();
            let code = match item {
                Item::End => {
                    if fwd {
                        self.patch_constants(first_const)?;
                    }
                    return self.check_constant_graph(first_const);
                }
                Item::Enter(_) => {
                    rd.skip_block()?;
                    continue;
                }
                Item::Record(code) => code,
            };
            let ops = rd.ops();
            // Constants include DATA elements, which take no value id: cap them separately.
            if self.m.constants.len() + ops.len() >= 4 * crate::read::limits::MAX_VALUES {
                return Err(ReadError::limit(self.off, "too many constants"));
            }
            let kind = match code {
                // SETTYPE
                1 => {
                    cur_ty = self.ty(field(ops, 0))?;
                    continue;
                }
                2 => ConstKind::Null,
                3 => ConstKind::Undef,
                4 | 5 => {
                    let Some(&raw) = ops.first() else {
                        return Err(self.bad("INTEGER constant without a value"));
                    };
                    let bits = self.int_width(cur_ty).unwrap_or(64);
                    ConstKind::Int(mask(decode_signed(raw), bits))
                }
                6 => {
                    let bits = self.float_width(cur_ty).unwrap_or(64);
                    ConstKind::Float(mask(field(ops, 0), bits))
                }
                7 => {
                    let mut elems = Vec::with_capacity(ops.len());
                    for &vid in ops {
                        elems.push(self.cval(vid, &mut fwd)?);
                    }
                    ConstKind::Aggregate(elems)
                }
                8 => ConstKind::String(ops.iter().map(|&c| c as u8).collect()),
                9 => {
                    let mut s: Vec<u8> = Vec::with_capacity(ops.len() + 1);
                    s.extend(ops.iter().map(|&c| c as u8));
                    s.push(0);
                    ConstKind::String(s)
                }
                22 => {
                    let elem =
                        self.elem_of(cur_ty).ok_or_else(|| self.bad("DATA constant of a non-sequential type"))?;
                    let (is_float, bits) = match (self.int_width(elem), self.float_width(elem)) {
                        (Some(b), _) => (false, b),
                        (_, Some(b)) => (true, b),
                        _ => return Err(self.bad("DATA constant of a non-numeric element type")),
                    };
                    let mut elems = Vec::with_capacity(ops.len());
                    for &raw in ops {
                        let v = mask(raw, bits);
                        let kind = if is_float { ConstKind::Float(v) } else { ConstKind::Int(v) };
                        let c = self.m.constants.append(Constant { ty: elem, kind, spec_id: None });
                        elems.push(Value::Const(c));
                    }
                    ConstKind::Aggregate(elems)
                }
                // CE_BINOP [opcode, lhs, rhs, flags?]
                10 => {
                    if ops.len() < 3 {
                        return Err(self.bad("CE_BINOP record is too short"));
                    }
                    let a = self.cval(ops[1], &mut fwd)?;
                    let b = self.cval(ops[2], &mut fwd)?;
                    match binop(ops[0], self.is_fp(cur_ty)) {
                        Some(op) => expr(ConstExpr::Binary(op, a, b)),
                        None => expr(ConstExpr::Other(10, vec![a, b])),
                    }
                }
                // CE_CAST [opcode, opty, opval]
                11 => {
                    if ops.len() < 3 {
                        return Err(self.bad("CE_CAST record is too short"));
                    }
                    let v = self.cval(ops[2], &mut fwd)?;
                    match castop(ops[0]) {
                        Some(op) => expr(ConstExpr::Cast(op, v)),
                        None => expr(ConstExpr::Other(11, vec![v])),
                    }
                }
                // CE_GEP / CE_INBOUNDS_GEP [pointee ty?, (ty, val)*]
                12 | 20 => {
                    let rest = if ops.len() % 2 == 1 { &ops[1..] } else { ops };
                    let mut vals = Vec::with_capacity(rest.len() / 2);
                    for pair in rest.chunks_exact(2) {
                        self.ty(pair[0])?;
                        vals.push(self.cval(pair[1], &mut fwd)?);
                    }
                    if vals.is_empty() {
                        return Err(self.bad("CE_GEP without a base"));
                    }
                    let base = vals.remove(0);
                    expr(ConstExpr::Gep { base, indices: vals })
                }
                // CE_SELECT [cond, true, false]
                13 => {
                    if ops.len() < 3 {
                        return Err(self.bad("CE_SELECT record is too short"));
                    }
                    let c = self.cval(ops[0], &mut fwd)?;
                    let t = self.cval(ops[1], &mut fwd)?;
                    let f = self.cval(ops[2], &mut fwd)?;
                    expr(ConstExpr::Select(c, t, f))
                }
                // CE_EXTRACTELT [opty, opval, (idxty,) idx]
                14 => {
                    if ops.len() < 3 {
                        return Err(self.bad("CE_EXTRACTELT record is too short"));
                    }
                    let v = self.cval(ops[1], &mut fwd)?;
                    let i = self.cval(ops[ops.len() - 1], &mut fwd)?;
                    expr(ConstExpr::Other(14, vec![v, i]))
                }
                // CE_INSERTELT [opval, elt, (idxty,) idx]
                15 => {
                    if ops.len() < 3 {
                        return Err(self.bad("CE_INSERTELT record is too short"));
                    }
                    let v = self.cval(ops[0], &mut fwd)?;
                    let e = self.cval(ops[1], &mut fwd)?;
                    let i = self.cval(ops[ops.len() - 1], &mut fwd)?;
                    expr(ConstExpr::Other(15, vec![v, e, i]))
                }
                // CE_SHUFFLEVEC [v1, v2, mask] / CE_SHUFVEC_EX [opty, v1, v2, mask]
                16 | 19 => {
                    let s = if code == 19 { 1 } else { 0 };
                    if ops.len() < s + 3 {
                        return Err(self.bad("CE_SHUFFLEVEC record is too short"));
                    }
                    let mut v = Vec::with_capacity(3);
                    for &id in &ops[s..s + 3] {
                        v.push(self.cval(id, &mut fwd)?);
                    }
                    expr(ConstExpr::Other(code, v))
                }
                // CE_CMP [opty, lhs, rhs, pred]
                17 => {
                    if ops.len() < 4 {
                        return Err(self.bad("CE_CMP record is too short"));
                    }
                    let a = self.cval(ops[1], &mut fwd)?;
                    let b = self.cval(ops[2], &mut fwd)?;
                    expr(ConstExpr::Cmp(CmpPred(ops[3] as u8), a, b))
                }
                // INLINEASM / BLOCKADDRESS: keep the value slot.
                18 | 21 | 23 => expr(ConstExpr::Other(code, Vec::new())),
                _ => {
                    // LLVM 3.7 reads unknown constant codes as undef.
                    self.remark(|| format!("unknown constant record {code} kept as undef"));
                    ConstKind::Undef
                }
            };
            let c = self.m.constants.append(Constant { ty: cur_ty, kind, spec_id: None });
            self.push_val(Value::Const(c), cur_ty)?;
        }
        Err(ReadError::eof(rd.offset(), "bitcode ends inside a CONSTANTS_BLOCK"))
    }

    /// Replaces forward placeholders in the constants appended since `first`.
    fn patch_constants(&mut self, first: usize) -> Result<()> {
        let vals = &self.vals;
        let mut bad: Option<usize> = None;
        let mut fix = |v: &mut Value| {
            if let Value::Const(h) = *v {
                let i = h.index();
                if i >= FWD_BASE {
                    match vals.get(i - FWD_BASE) {
                        Some(&(real, _)) => *v = real,
                        None => bad = Some(i - FWD_BASE),
                    }
                }
            }
        };
        for i in first..self.m.constants.len() {
            let Some(h) = Handle::<Constant>::from_index(i) else { break };
            match &mut self.m.constants[h].kind {
                ConstKind::Aggregate(v) => v.iter_mut().for_each(&mut fix),
                ConstKind::Expr(e) => match &mut **e {
                    ConstExpr::Binary(_, a, b) | ConstExpr::Cmp(_, a, b) => {
                        fix(a);
                        fix(b);
                    }
                    ConstExpr::Unary(_, a) | ConstExpr::Cast(_, a) | ConstExpr::Extract(a, _) => fix(a),
                    ConstExpr::Select(a, b, c) => {
                        fix(a);
                        fix(b);
                        fix(c);
                    }
                    ConstExpr::Gep { base, indices } => {
                        fix(base);
                        indices.iter_mut().for_each(&mut fix);
                    }
                    ConstExpr::Other(_, v) => v.iter_mut().for_each(&mut fix),
                },
                _ => {}
            }
        }
        if let Some(vid) = bad {
            return Err(self.bad(format!("constant refers to undefined value {vid}")));
        }
        Ok(())
    }

    /// Checks the constants appended since `first`: none may contain itself
    /// (possible through forward references in hostile input), and aggregates and
    /// constant expressions nest at most `limits::MAX_RECURSION` deep inside one
    /// block. Function constants can only add one block on top of the single
    /// module block, so any walk over constants is at most twice that deep.
    fn check_constant_graph(&self, first: usize) -> Result<()> {
        let total = self.m.constants.len();
        let kind =
            |i: usize| Handle::<Constant>::from_index(i).and_then(|h| self.m.constants.try_get(h)).map(|c| &c.kind);
        if !self.m.constants.values().skip(first).any(|c| has_operands(&c.kind)) {
            return Ok(());
        }
        const ON_STACK: u32 = u32::MAX;
        // 0 = unvisited, ON_STACK, else the nesting depth.
        let mut depth = vec![0u32; total - first];
        // (node, next operand, deepest operand so far)
        let mut stack: Vec<(usize, usize, u32)> = Vec::new();
        for root in 0..total - first {
            if depth[root] != 0 || !kind(first + root).is_some_and(has_operands) {
                continue;
            }
            depth[root] = ON_STACK;
            stack.push((root, 0, 0));
            while let Some(top) = stack.last_mut() {
                let (node, i, _) = *top;
                top.1 += 1;
                match kind(first + node).and_then(|k| operand(k, i)) {
                    None => {
                        let d = top.2 + 1;
                        if d > limits::MAX_RECURSION {
                            return Err(ReadError::limit(self.off, "constant expression nested too deeply"));
                        }
                        depth[node] = d;
                        stack.pop();
                        if let Some(parent) = stack.last_mut() {
                            parent.2 = parent.2.max(d);
                        }
                    }
                    Some(Value::Const(h)) if h.index() >= first && h.index() < total => {
                        let c = h.index() - first;
                        match depth[c] {
                            0 if kind(h.index()).is_some_and(has_operands) => {
                                depth[c] = ON_STACK;
                                stack.push((c, 0, 0));
                            }
                            ON_STACK => return Err(self.bad("constant refers to itself")),
                            d => top.2 = top.2.max(d.max(1)),
                        }
                    }
                    Some(_) => top.2 = top.2.max(1),
                }
            }
        }
        Ok(())
    }

    /// The module constant standing for a metadata operand (`metadata !N` call arguments).
    pub(crate) fn md_value(&mut self, ty: TypeH) -> Value {
        let c = match self.md_undef {
            Some(c) => c,
            None => {
                let c = self.m.constants.append(Constant { ty, kind: ConstKind::Undef, spec_id: None });
                self.md_undef = Some(c);
                c
            }
        };
        Value::Const(c)
    }
}

fn has_operands(k: &ConstKind) -> bool {
    matches!(k, ConstKind::Aggregate(_) | ConstKind::Expr(_))
}

/// Operand `i` of an aggregate or constant expression.
fn operand(k: &ConstKind, i: usize) -> Option<Value> {
    match k {
        ConstKind::Aggregate(v) => v.get(i).copied(),
        ConstKind::Expr(e) => match &**e {
            ConstExpr::Binary(_, a, b) | ConstExpr::Cmp(_, a, b) => [*a, *b].get(i).copied(),
            ConstExpr::Unary(_, a) | ConstExpr::Cast(_, a) | ConstExpr::Extract(a, _) => [*a].get(i).copied(),
            ConstExpr::Select(a, b, c) => [*a, *b, *c].get(i).copied(),
            ConstExpr::Gep { base, indices } => {
                if i == 0 {
                    Some(*base)
                } else {
                    indices.get(i - 1).copied()
                }
            }
            ConstExpr::Other(_, v) => v.get(i).copied(),
        },
        _ => None,
    }
}

fn expr(e: ConstExpr) -> ConstKind {
    ConstKind::Expr(Box::new(e))
}

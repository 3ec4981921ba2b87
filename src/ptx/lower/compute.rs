//! Instructions: the modelled arithmetic, moves, conversions, bit fields,
//! loads, stores and calls; everything else as an opaque operation.

use super::body::{Body, Slot};
use super::fact_shapes::Site;
use super::ops::{OpInfo, OpKind};
use crate::ir::{BinOp, CastOp, InstKind, Operands, Span, TypeH, Value};
use crate::ptx::facts;
use crate::ptx::parse::{InstRef, Items, Operand};
use crate::read::Result;

impl<'c, 'a> Body<'c, 'a> {
    pub(super) fn inst(&mut self, ins: &InstRef<'_, 'a>) -> Result<()> {
        self.sp = Span { offset: u64::from(ins.pos.offset), id: ins.pos.line, loc: self.sp.loc };
        self.items.clear();
        self.items.extend_from_slice(ins.items);
        let (word, info) = self.cx.op_info(ins.op);
        let bool_ty = self.cx.int(1);
        let guard = ins.guard.map(|(id, neg)| (self.name_value(id, bool_ty), neg));
        if info.control {
            self.cond = guard;
            if info.base == "brx" {
                if let Some(idx) = ins.operands.first() {
                    let t = self.cx.int(32);
                    self.switch_value = Some(self.value(idx, t));
                }
            }
            return Ok(());
        }
        let dests = if info.no_dest { None } else { ins.operands.first().and_then(|o| self.dest_vars(o)) };
        let srcs = if dests.is_some() { ins.operands.get(1..).unwrap_or(&[]) } else { ins.operands };
        let imm_ty = info.imm_ty;
        if let (OpKind::Mov, Some(d), [src]) = (info.kind, &dests, srcs) {
            if d.len() > 1 {
                if let Some(parts) = self.unpack(src, d, imm_ty) {
                    for (k, (&var, &part)) in d.iter().zip(parts.iter()).enumerate() {
                        let Some(var) = var.filter(|_| self.dest_read(ins.operands.first(), k)) else { continue };
                        let v = self.guarded(var, part, guard);
                        self.write(var, v);
                    }
                    return Ok(());
                }
            }
        }
        let result = match &dests {
            Some(d) if d.len() == 1 => {
                let dty = match d[0] {
                    Some(v) => self.var_ty(v),
                    None => imm_ty,
                };
                self.compute(&info, word, ins.op, srcs, dty)
            }
            _ => None,
        };
        let result = match result {
            Some(v) => Some(v),
            None => {
                // Generic: loads and stores, calls, everything else as an opaque operation.
                match (info.kind, &dests) {
                    (OpKind::St, _) if ins.operands.len() == 2 => {
                        let ptr = self.value(&ins.operands[0], imm_ty);
                        let value = self.value(&ins.operands[1], imm_ty);
                        let void = self.cx.void();
                        let h = self.emit(void, InstKind::Store { ptr, value });
                        self.record_access(word, ins, srcs, h);
                        None
                    }
                    (OpKind::Call, _) => {
                        self.call(ins, imm_ty);
                        None
                    }
                    _ => {
                        let rty = match &dests {
                            Some(d) if d.len() == 1 => match d[0] {
                                Some(v) => self.var_ty(v),
                                None => imm_ty,
                            },
                            Some(d) => {
                                let tys: smallvec::SmallVec<[TypeH; 8]> =
                                    d.iter().map(|v| v.map_or(imm_ty, |v| self.var_ty(v))).collect();
                                self.cx.tuple_of(&tys)
                            }
                            None => self.cx.void(),
                        };
                        // Sized once: a 64-register list would otherwise
                        // grow (and copy) the list five times.
                        let n = srcs.iter().map(|o| if let Operand::Vector(v) = o { v.len() } else { 1 }).sum();
                        let mut operands = Operands::with_capacity(n);
                        for s in srcs {
                            self.flatten(s, imm_ty, &mut operands);
                        }
                        let v = if matches!(info.kind, OpKind::Ld | OpKind::LdParam) && operands.len() == 1 {
                            self.emit(rty, InstKind::Load { ptr: operands[0] })
                        } else {
                            let opcode = self.cx.word_op(word, ins.op);
                            self.emit(rty, InstKind::Other { opcode, operands })
                        };
                        self.record_access(word, ins, srcs, v);
                        if let (Value::Inst(h), Some(class)) = (v, info.fact) {
                            let p = match &self.f.insts[h].kind {
                                InstKind::Other { operands, .. } => {
                                    let site = Site {
                                        stmt: self.cur_stmt,
                                        target: self.cx.target,
                                        class,
                                        word,
                                        ins,
                                        nsrcs: srcs.len(),
                                    };
                                    self.cx.fact_shapes.fact(&site, operands, h)
                                }
                                kind => facts::recognise(class, ins, h, kind, self.cx.target),
                            };
                            if let Some(p) = p {
                                self.facts.push(p);
                            }
                        }
                        if dests.is_some() {
                            Some(v)
                        } else {
                            None
                        }
                    }
                }
            }
        };
        let (Some(result), Some(dests)) = (result, dests) else { return Ok(()) };
        let op0 = ins.operands.first();
        if dests.len() == 1 {
            if let Some(var) = dests[0].filter(|_| self.dest_read(op0, 0)) {
                let v = self.guarded(var, result, guard);
                self.write(var, v);
            }
        } else {
            for (k, d) in dests.iter().enumerate() {
                let Some(var) = d.filter(|_| self.dest_read(op0, k)) else { continue };
                let ty = self.var_ty(var);
                if guard.is_none() {
                    self.defer_member(var, result, k as u32, ty);
                    continue;
                }
                let part =
                    self.emit(ty, InstKind::ExtractValue { agg: result, indices: smallvec::smallvec![k as u32] });
                let v = self.guarded(var, part, guard);
                self.write(var, v);
            }
        }
        Ok(())
    }

    /// Whether element `k` of the destination `op0` is written: always,
    /// except in the sliced lowering, where a name nothing lowered reads is
    /// not (see `super::slice`).
    fn dest_read(&self, op0: Option<&Operand>, k: usize) -> bool {
        if self.slice_names.is_empty() {
            return true;
        }
        let id = match op0 {
            Some(Operand::Reg(id) | Operand::Sym(id)) => Some(*id),
            Some(Operand::Vector(r) | Operand::Pair(r)) => match self.items.get(r.range().start + k) {
                Some(Operand::Reg(id) | Operand::Sym(id)) => Some(*id),
                _ => None,
            },
            _ => None,
        };
        id.is_none_or(|id| self.slice_names.get(id.index()).copied().unwrap_or(true))
    }

    /// Records a memory access ([`crate::ir::AccessForm`]) lowered to `v`, when its
    /// written operands give the slots the form reads: addresses where it
    /// has them, and one value for every operand up to the last slot.
    fn record_access(&mut self, word: u32, ins: &InstRef<'_, 'a>, srcs: &[Operand], v: Value) {
        let Value::Inst(h) = v else { return };
        let Some(form) = self.cx.word_access(word) else { return };
        let Some(last) = form.slots().max() else { return };
        let single = |o: &Operand| match o {
            Operand::Addr(a) => !a.has_extra(),
            Operand::Vector(_) | Operand::List(_) | Operand::Pair(..) | Operand::Sink => false,
            _ => true,
        };
        let fits = srcs.get(..=last).is_some_and(|s| s.iter().all(single))
            && form.addresses.iter().flatten().all(|&i| matches!(srcs.get(i), Some(Operand::Addr(_))));
        if fits {
            let word = self.cx.word_op(word, ins.op);
            if let Some(slot) = self.cx.m.op_access.get_mut(word as usize) {
                *slot = Some(form);
            }
            self.f.mem_accesses.push((h, word));
        }
    }

    /// A predicated definition keeps the old value where the guard is off.
    #[inline(always)]
    pub(super) fn guarded(&mut self, var: u32, new: Value, guard: Option<(Value, bool)>) -> Value {
        match guard {
            None => new,
            Some((cond, neg)) => self.select_old(var, new, cond, neg),
        }
    }

    /// [`Body::guarded`] under a guard: a select of the new and old values.
    #[inline(never)]
    fn select_old(&mut self, var: u32, new: Value, cond: Value, neg: bool) -> Value {
        let old = self.read(var);
        let ty = self.var_ty(var);
        let (if_true, if_false) = if neg { (old, new) } else { (new, old) };
        self.emit(ty, InstKind::Select { cond, if_true, if_false })
    }

    pub(super) fn call(&mut self, ins: &InstRef<'_, 'a>, ty: TypeH) {
        // call{.uni} (rets), callee, (args){, prototype};  — rets and args are .param names.
        let mut it = ins.operands.iter().peekable();
        let mut rets = Operands::new();
        if let Some(Operand::List(r)) = it.peek() {
            for o in ins.list(*r) {
                self.flatten(o, ty, &mut rets);
            }
            it.next();
        }
        let callee = match it.next() {
            Some(o) => self.value(o, ty),
            None => self.cx.undef(ty),
        };
        let mut args = Operands::new();
        if let Some(Operand::List(a)) = it.next() {
            for o in ins.list(*a) {
                self.flatten(o, ty, &mut args);
            }
        }
        args.extend(rets);
        let args = args.into_vec();
        let void = self.cx.void();
        self.emit(void, InstKind::Call { callee, args, dx_op: None });
    }

    /// Modelled arithmetic; `None` falls back to an opaque operation.
    pub(super) fn compute(
        &mut self,
        info: &OpInfo<'a>,
        k: u32,
        word: &'a str,
        srcs: &[Operand],
        dty: TypeH,
    ) -> Option<Value> {
        let imm_ty = info.imm_ty;
        let signed = info.class == Some(b's');
        let v = match (info.kind, srcs) {
            (OpKind::Bin(o), [a, b]) => {
                let a = self.value(a, imm_ty);
                let b = self.value(b, imm_ty);
                self.emit(dty, InstKind::Binary { op: o, lhs: a, rhs: b })
            }
            (OpKind::MulWide, [a, b]) => {
                let a = self.widen(a, signed, dty);
                let b = self.widen(b, signed, dty);
                self.emit(dty, InstKind::Binary { op: BinOp::Mul, lhs: a, rhs: b })
            }
            (OpKind::MadLo | OpKind::MadWide, [a, b, c]) => {
                let (a, b) = if info.kind == OpKind::MadWide {
                    (self.widen(a, signed, dty), self.widen(b, signed, dty))
                } else {
                    (self.value(a, imm_ty), self.value(b, imm_ty))
                };
                let c = self.value(c, dty);
                let m = self.emit(dty, InstKind::Binary { op: BinOp::Mul, lhs: a, rhs: b });
                self.emit(dty, InstKind::Binary { op: BinOp::Add, lhs: m, rhs: c })
            }
            (OpKind::Not(o) | OpKind::Neg(o), [a]) => {
                let a = self.value(a, imm_ty);
                self.emit(dty, InstKind::Unary { op: o, value: a })
            }
            (OpKind::Mov, [a]) if !matches!(a, Operand::Vector(_)) => self.value(a, dty),
            (OpKind::Mov, [Operand::Vector(r)]) => self.pack(*r, k, word, dty)?,
            (OpKind::Bfe(signed), [a, Operand::Int(pos), Operand::Int(len)]) => {
                let a = self.value(a, dty);
                self.bfe(a, *pos as u64 & 0xff, *len as u64 & 0xff, signed, dty)?
            }
            (OpKind::Bfi, [a, b, Operand::Int(pos), Operand::Int(len)]) => {
                let a = self.value(a, dty);
                let b = self.value(b, dty);
                self.bfi(a, b, *pos as u64 & 0xff, *len as u64 & 0xff, dty)?
            }
            (OpKind::Cvta, [a]) => {
                let v = self.value(a, dty);
                self.emit(dty, InstKind::Cast { op: CastOp::AddrSpaceCast, value: v })
            }
            (OpKind::Setp(pred), [a, b]) => {
                let a = self.value(a, imm_ty);
                let b = self.value(b, imm_ty);
                self.emit(dty, InstKind::Cmp { pred, lhs: a, rhs: b })
            }
            (OpKind::Selp, [a, b, c]) => {
                let a = self.value(a, imm_ty);
                let b = self.value(b, imm_ty);
                let bool_ty = self.cx.int(1);
                let c = self.value(c, bool_ty);
                self.emit(dty, InstKind::Select { cond: c, if_true: a, if_false: b })
            }
            (OpKind::Cvt(cast), [a]) => {
                let v = self.value(a, info.src_ty);
                match cast {
                    Some(c) => self.emit(dty, InstKind::Cast { op: c, value: v }),
                    None => v,
                }
            }
            (OpKind::LdParam, [Operand::Addr(a)]) if a.offset(&self.items) == 0 && !a.has_extra() => {
                match &a.base(&self.items) {
                    // `ld.param [p]`: the parameter's value.
                    Operand::Sym(n) => match self.lookup(*n) {
                        Some(Slot::Param(i)) => Value::Arg(i),
                        _ => return None,
                    },
                    _ => return None,
                }
            }
            _ => return None,
        };
        Some(v)
    }

    pub(super) fn bin(&mut self, ty: TypeH, op: BinOp, lhs: Value, rhs: u64) -> Value {
        let rhs = self.cx.const_int(ty, rhs);
        self.emit(ty, InstKind::Binary { op, lhs, rhs })
    }

    /// `bfe` with constant position and length, as shifts and a mask (the
    /// known-bits transfer functions are exact on them): unsigned
    /// `(a >> pos) & mask(len)`, signed `(a << (w-1-msb)) >>s (w-1-msb+pos)`
    /// with `msb = min(pos+len-1, w-1)`; PTX semantics for `len = 0` and `pos ≥ w`.
    pub(super) fn bfe(&mut self, a: Value, pos: u64, len: u64, signed: bool, ty: TypeH) -> Option<Value> {
        let w = u64::from(self.cx.m.int_bits(ty)?);
        if len == 0 || (!signed && pos >= w) {
            return Some(self.cx.const_int(ty, 0));
        }
        if !signed {
            let shifted = if pos == 0 { a } else { self.bin(ty, BinOp::LShr, a, pos) };
            let n = len.min(w - pos);
            return Some(if n >= w { shifted } else { self.bin(ty, BinOp::And, shifted, (1u64 << n) - 1) });
        }
        if pos >= w {
            return Some(self.bin(ty, BinOp::AShr, a, w - 1));
        }
        let msb = (pos + len - 1).min(w - 1);
        let up = w - 1 - msb;
        let x = if up == 0 { a } else { self.bin(ty, BinOp::Shl, a, up) };
        Some(if up + pos == 0 { x } else { self.bin(ty, BinOp::AShr, x, up + pos) })
    }

    /// `bfi` with constant position and length:
    /// `(b & !(mask << pos)) | ((a << pos) & (mask << pos))`.
    pub(super) fn bfi(&mut self, a: Value, b: Value, pos: u64, len: u64, ty: TypeH) -> Option<Value> {
        let w = u64::from(self.cx.m.int_bits(ty)?);
        if len == 0 || pos >= w {
            return Some(b);
        }
        let n = len.min(w - pos);
        let field = if n >= 64 { u64::MAX } else { ((1u64 << n) - 1) << pos };
        let keep = self.bin(ty, BinOp::And, b, !field);
        let moved = if pos == 0 { a } else { self.bin(ty, BinOp::Shl, a, pos) };
        let ins = self.bin(ty, BinOp::And, moved, field);
        Some(self.emit(ty, InstKind::Binary { op: BinOp::Or, lhs: keep, rhs: ins }))
    }

    /// A packed `mov.bN d, {e0, e1, …}`: one [`crate::ir::OpSemantics::Pack`] operation
    /// on the elements, each `w = N / count` bits wide (the dataflow computes
    /// `e0 | e1 << w | …`); `None` when the form is not that. (`items`: the
    /// vector's slots in `Body::items`.)
    pub(super) fn pack(&mut self, items: Items, k: u32, word: &'a str, ty: TypeH) -> Option<Value> {
        let bits = u64::from(self.cx.m.int_bits(ty)?);
        let n = items.len() as u64;
        if n < 2 || bits % n != 0 {
            return None;
        }
        let w = bits / n;
        let ety = self.cx.int(w as u16);
        // Check every element before making anything (no dead instructions
        // or constants when the form is not modelled).
        let mut elems: smallvec::SmallVec<[std::result::Result<u64, Value>; 4]> = smallvec::SmallVec::new();
        for i in items.range() {
            let it = self.items.get(i).copied().unwrap_or(Operand::Sink);
            match it {
                Operand::Int(v) => elems.push(Ok(v as u64 & ((1u64 << w) - 1))),
                Operand::Reg(_) | Operand::Sym(_) => {
                    let v = self.value(&it, ety);
                    let vt = self.value_ty(v);
                    if self.cx.m.int_bits(vt) != Some(w as u16) {
                        return None;
                    }
                    elems.push(Err(v));
                }
                _ => return None,
            }
        }
        let operands: Operands = elems
            .into_iter()
            .map(|e| match e {
                Ok(c) => self.cx.const_int(ety, c),
                Err(v) => v,
            })
            .collect();
        let opcode = self.cx.pack_op(k, word);
        Some(self.emit(ty, InstKind::Other { opcode, operands }))
    }

    /// An unpacking `mov.bN {d0, d1, …}, s`: `trunc(s >> k·w)` per destination.
    pub(super) fn unpack(
        &mut self,
        src: &Operand,
        dests: &[Option<u32>],
        ty: TypeH,
    ) -> Option<smallvec::SmallVec<[Value; 4]>> {
        let bits = u64::from(self.cx.m.int_bits(ty)?);
        let n = dests.len() as u64;
        if n < 2 || bits % n != 0 || matches!(src, Operand::Vector(_)) {
            return None;
        }
        let w = bits / n;
        let ety = self.cx.int(w as u16);
        for v in dests.iter().flatten() {
            let vt = self.var_ty(*v);
            if self.cx.m.int_bits(vt) != Some(w as u16) {
                return None;
            }
        }
        let s = self.value(src, ty);
        let st = self.value_ty(s);
        if self.cx.m.int_bits(st) != Some(bits as u16) {
            return None;
        }
        let mut out = smallvec::SmallVec::with_capacity(dests.len());
        for k in 0..n {
            let x = if k == 0 { s } else { self.bin(ty, BinOp::LShr, s, k * w) };
            out.push(self.emit(ety, InstKind::Cast { op: CastOp::Trunc, value: x }));
        }
        Some(out)
    }

    /// A 32-bit source operand widened to the result type (`mul.wide`, `mad.wide`).
    pub(super) fn widen(&mut self, o: &Operand, signed: bool, dty: TypeH) -> Value {
        if let Operand::Int(v) = o {
            return self.cx.const_int(dty, *v as u64);
        }
        let half = self.cx.m.int_bits(dty).map_or(32, |b| (b / 2).max(8));
        let sty = self.cx.int(half);
        let v = self.value(o, sty);
        self.emit(dty, InstKind::Cast { op: if signed { CastOp::SExt } else { CastOp::ZExt }, value: v })
    }
}

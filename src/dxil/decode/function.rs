//! FUNCTION blocks (formats.md §B.8): instructions with relative operands,
//! forward references, debug locations and block names.

use super::constants::{binop, castop};
use super::{block, chars, field, Decoder, FWD_BASE};
use crate::ir::{Arena, Block, BlockH, CmpPred, FuncH, Handle, Inst, InstH, InstKind, LocH, Span, Type, TypeH, Value};
use crate::read::bitstream::{decode_signed, Cursor, Item};
use crate::read::{limits, ErrorKind, ReadError, Result};

/// Per-function decoding state.
struct FnState {
    insts: Arena<Inst>,
    blocks: Arena<Block>,
    /// Index of the block receiving instructions.
    cur: usize,
    /// Index of the first instruction of that block (blocks are contiguous runs).
    block_start: usize,
    last: Option<InstH>,
    last_loc: Option<LocH>,
    /// Instructions holding forward-reference placeholders.
    fwd_insts: Vec<InstH>,
    /// Argument and instruction names from the function's VALUE_SYMTAB.
    names: Vec<(Value, String)>,
}

impl Decoder {
    pub(super) fn function_block(&mut self, rd: &mut Cursor<'_>, fh: FuncH) -> Result<()> {
        self.vals.truncate(self.n_module_vals);
        let nparams = self.m.functions[fh].params.len();
        for k in 0..nparams {
            let ty = self.m.functions[fh].params[k];
            self.push_val(Value::Arg(k as u32), ty)?;
        }
        // A rough size hint: DXC instructions take ~40 bits on average.
        let hint = (rd.block_remaining_bits() / 48).min(1 << 16) as usize;
        let mut f = FnState {
            insts: Arena::with_capacity(hint),
            blocks: Arena::new(),
            cur: 0,
            block_start: 0,
            last: None,
            last_loc: None,
            fwd_insts: Vec::new(),
            names: Vec::new(),
        };
        while let Some(item) = rd.next_item()? {
            self.off = rd.record_offset();
            match item {
                Item::End => return self.finish_function(f, fh),
                Item::Enter(block::CONSTANTS) => {
                    self.constants_block(rd).map_err(|e| e.context("CONSTANTS_BLOCK"))?;
                }
                Item::Enter(block::VALUE_SYMTAB) => {
                    self.function_vst(rd, &mut f).map_err(|e| e.context("VALUE_SYMTAB"))?;
                }
                Item::Enter(block::METADATA_ATTACHMENT) => {
                    self.attachment_block(rd, fh, &f).map_err(|e| e.context("METADATA_ATTACHMENT"))?;
                }
                // Function-local metadata and use lists: not modelled.
                Item::Enter(_) => rd.skip_block()?,
                Item::Record(code) => self.inst(&mut f, code, rd.ops(), rd.block_remaining_bits())?,
            }
        }
        Err(ReadError::eof(rd.offset(), "bitcode ends inside a FUNCTION_BLOCK"))
    }

    fn finish_function(&mut self, mut f: FnState, fh: FuncH) -> Result<()> {
        if f.blocks.is_empty() {
            return Err(self.bad("function body without DECLAREBLOCKS"));
        }
        if f.cur != f.blocks.len() {
            return Err(self.bad(format!(
                "function ends with {} of {} blocks unterminated",
                f.blocks.len() - f.cur,
                f.blocks.len()
            )));
        }
        let vals = &self.vals;
        let mut bad: Option<usize> = None;
        for &h in &f.fwd_insts {
            f.insts[h].kind.for_each_operand_mut(|v| {
                if let Value::Inst(p) = *v {
                    let i = p.index();
                    if i >= FWD_BASE {
                        match vals.get(i - FWD_BASE) {
                            Some(&(real, _)) => *v = real,
                            None => bad = Some(i - FWD_BASE),
                        }
                    }
                }
            });
        }
        if let Some(vid) = bad {
            return Err(self.bad(format!("forward reference to undefined value {vid}")));
        }
        let func = &mut self.m.functions[fh];
        func.insts = f.insts;
        func.blocks = f.blocks;
        func.value_names = f.names;
        Ok(())
    }

    fn function_vst(&mut self, rd: &mut Cursor<'_>, f: &mut FnState) -> Result<()> {
        while let Some(item) = rd.next_item()? {
            match item {
                Item::End => return Ok(()),
                Item::Enter(_) => rd.skip_block()?,
                // VST_ENTRY [valueid, namechar...]: a named argument or instruction.
                Item::Record(1) => {
                    let ops = rd.ops();
                    let vid = field(ops, 0) as usize;
                    if vid >= self.n_module_vals && f.names.len() < limits::MAX_VALUES {
                        if let Some(&(v @ (Value::Arg(_) | Value::Inst(_)), _)) = self.vals.get(vid) {
                            f.names.push((v, chars(ops.get(1..).unwrap_or(&[]))));
                        }
                    }
                }
                Item::Record(2) => {
                    let ops = rd.ops();
                    let bb = field(ops, 0) as usize;
                    if let Some(h) = Handle::<Block>::from_index(bb) {
                        if bb < f.blocks.len() {
                            f.blocks[h].name = Some(chars(ops.get(1..).unwrap_or(&[])));
                        }
                    }
                }
                Item::Record(_) => {}
            }
        }
        Err(ReadError::eof(rd.offset(), "bitcode ends inside a VALUE_SYMTAB"))
    }

    fn attachment_block(&mut self, rd: &mut Cursor<'_>, fh: FuncH, f: &FnState) -> Result<()> {
        while let Some(item) = rd.next_item()? {
            match item {
                Item::End => return Ok(()),
                Item::Enter(_) => rd.skip_block()?,
                Item::Record(11) => {
                    let ops = rd.ops();
                    // Odd length: [instruction index, (kind, node)*]; even: function attachments.
                    let (inst, pairs) = match ops.split_first() {
                        Some((&i, rest)) if ops.len() % 2 == 1 => {
                            let h = Handle::<Inst>::from_index(i as usize).filter(|_| (i as usize) < f.insts.len());
                            match h {
                                Some(h) => (Some(h), rest),
                                None => {
                                    self.off = rd.record_offset();
                                    return Err(self.bad(format!("attachment to missing instruction {i}")));
                                }
                            }
                        }
                        _ => (None, ops),
                    };
                    for pair in pairs.chunks_exact(2) {
                        self.attachments.push(crate::dxil::llvm::Attachment {
                            function: fh,
                            inst,
                            kind: pair[0] as u32,
                            node: pair[1] as u32,
                        });
                    }
                }
                Item::Record(_) => {}
            }
        }
        Err(ReadError::eof(rd.offset(), "bitcode ends inside a METADATA_ATTACHMENT block"))
    }

    /// Absolute value id of a (possibly relative) operand.
    #[inline]
    fn rel(&self, raw: u64) -> u32 {
        if self.relative {
            (self.vals.len() as u32).wrapping_sub(raw as u32)
        } else {
            raw as u32
        }
    }

    /// Next operand.
    #[inline]
    fn lit(&self, ops: &[u64], i: &mut usize) -> Result<u64> {
        match ops.get(*i) {
            Some(&v) => {
                *i += 1;
                Ok(v)
            }
            None => Err(self.bad("instruction record is too short")),
        }
    }

    /// A value operand followed by its type when it is a forward reference.
    #[inline]
    fn vtp(&self, ops: &[u64], i: &mut usize, fwd: &mut bool) -> Result<(Value, TypeH)> {
        let vid = self.rel(self.lit(ops, i)?);
        if let Some(&v) = self.vals.get(vid as usize) {
            return Ok(v);
        }
        let ty = self.ty(self.lit(ops, i)?)?;
        *fwd = true;
        Ok((self.fwd_inst(vid)?, ty))
    }

    /// A value operand of known type (no type follows).
    #[inline]
    fn val(&mut self, ops: &[u64], i: &mut usize, ty: TypeH, fwd: &mut bool) -> Result<Value> {
        let raw = self.lit(ops, i)?;
        if self.is_metadata(ty) {
            return Ok(self.md_value(ty));
        }
        let vid = self.rel(raw);
        if let Some(&(v, _)) = self.vals.get(vid as usize) {
            return Ok(v);
        }
        *fwd = true;
        self.fwd_inst(vid)
    }

    fn bb(&self, f: &FnState, id: u64) -> Result<BlockH> {
        if (id as usize) < f.blocks.len() {
            if let Some(h) = Handle::from_index(id as usize) {
                return Ok(h);
            }
        }
        Err(self.bad(format!("basic block {id} is not declared")))
    }

    fn inst(&mut self, f: &mut FnState, code: u32, ops: &[u64], remaining_bits: u64) -> Result<()> {
        let mut i = 0usize;
        let mut fwd = false;
        let (ty, kind) = match code {
            // DECLAREBLOCKS
            1 => {
                let n = field(ops, 0);
                if !f.blocks.is_empty() {
                    return Err(self.bad("second DECLAREBLOCKS"));
                }
                if n == 0 || n > limits::MAX_BLOCKS as u64 || n > remaining_bits / 2 {
                    return Err(ReadError::new(
                        ErrorKind::BadSize,
                        self.off,
                        format!("DECLAREBLOCKS {n} is out of range"),
                    ));
                }
                f.blocks = Arena::with_capacity(n as usize);
                for _ in 0..n {
                    f.blocks.append(Block::default());
                }
                return Ok(());
            }
            // BINOP [lhs(+ty), rhs, opcode, flags?]
            2 => {
                let (lhs, ty) = self.vtp(ops, &mut i, &mut fwd)?;
                let rhs = self.val(ops, &mut i, ty, &mut fwd)?;
                let opc = self.lit(ops, &mut i)?;
                match binop(opc, self.is_fp(ty)) {
                    Some(op) => (ty, InstKind::Binary { op, lhs, rhs }),
                    None => (ty, InstKind::Other { opcode: code, operands: smallvec::smallvec![lhs, rhs] }),
                }
            }
            // CAST [val(+ty), destty, castop]
            3 => {
                let (value, _) = self.vtp(ops, &mut i, &mut fwd)?;
                let dest = self.ty(self.lit(ops, &mut i)?)?;
                let opc = self.lit(ops, &mut i)?;
                match castop(opc) {
                    Some(op) => (dest, InstKind::Cast { op, value }),
                    None => (dest, InstKind::Other { opcode: code, operands: smallvec::smallvec![value] }),
                }
            }
            // GEP [inbounds, ty, ptr(+ty), idx(+ty)...]; old forms without the first two.
            4 | 30 | 43 => {
                let mut source = None;
                if code == 43 {
                    let _inbounds = self.lit(ops, &mut i)?;
                    source = Some(self.ty(self.lit(ops, &mut i)?)?);
                }
                let (base, bty) = self.vtp(ops, &mut i, &mut fwd)?;
                let mut indices = Vec::with_capacity(ops.len().saturating_sub(i));
                while i < ops.len() {
                    indices.push(self.vtp(ops, &mut i, &mut fwd)?.0);
                }
                let ty = match (self.pointee(bty), source) {
                    (Some((pointee, space)), src) => self.gep_type(src.unwrap_or(pointee), &indices, space)?,
                    (None, Some(src)) => self.gep_type(src, &indices, 0)?,
                    (None, None) => return Err(self.bad("GEP base is not a pointer")),
                };
                (ty, InstKind::Gep { base, indices })
            }
            // SELECT (old) [ty?, t, f, cond] / VSELECT [t(+ty), f, cond(+ty)]
            5 | 29 => {
                let (if_true, ty) = self.vtp(ops, &mut i, &mut fwd)?;
                let if_false = self.val(ops, &mut i, ty, &mut fwd)?;
                let cond = if code == 29 {
                    self.vtp(ops, &mut i, &mut fwd)?.0
                } else {
                    let i1 = self.i1();
                    self.val(ops, &mut i, i1, &mut fwd)?
                };
                (ty, InstKind::Select { cond, if_true, if_false })
            }
            // EXTRACTELT [vec(+ty), idx(+ty)]
            6 => {
                let (vector, vty) = self.vtp(ops, &mut i, &mut fwd)?;
                let (index, _) = self.vtp(ops, &mut i, &mut fwd)?;
                let ty = self.elem_of(vty).ok_or_else(|| self.bad("extractelement of a non-vector"))?;
                (ty, InstKind::ExtractElement { vector, index })
            }
            // INSERTELT [vec(+ty), elt, idx(+ty)]
            7 => {
                let (vector, vty) = self.vtp(ops, &mut i, &mut fwd)?;
                let ety = self.elem_of(vty).ok_or_else(|| self.bad("insertelement into a non-vector"))?;
                let value = self.val(ops, &mut i, ety, &mut fwd)?;
                let (index, _) = self.vtp(ops, &mut i, &mut fwd)?;
                (vty, InstKind::InsertElement { vector, value, index })
            }
            // SHUFFLEVEC [v1(+ty), v2, mask(+ty)]
            8 => {
                let (a, vty) = self.vtp(ops, &mut i, &mut fwd)?;
                let b = self.val(ops, &mut i, vty, &mut fwd)?;
                let (mask, mty) = self.vtp(ops, &mut i, &mut fwd)?;
                let elem = self.elem_of(vty).ok_or_else(|| self.bad("shufflevector of a non-vector"))?;
                let count = match self.type_of(mty) {
                    Some(Type::Vector { count, .. }) => *count,
                    _ => return Err(self.bad("shufflevector mask is not a vector")),
                };
                (self.vec_of(elem, count), InstKind::Shuffle { a, b, mask })
            }
            // CMP / CMP2 [lhs(+ty), rhs, pred, flags?]
            9 | 28 => {
                let (lhs, ty) = self.vtp(ops, &mut i, &mut fwd)?;
                let rhs = self.val(ops, &mut i, ty, &mut fwd)?;
                let pred = self.lit(ops, &mut i)?;
                let i1 = self.i1();
                let rty = match self.type_of(ty) {
                    Some(Type::Vector { count, .. }) => {
                        let n = *count;
                        self.vec_of(i1, n)
                    }
                    _ => i1,
                };
                (rty, InstKind::Cmp { pred: CmpPred(pred as u8), lhs, rhs })
            }
            // RET [] / [val(+ty)]
            10 => {
                let value = if ops.is_empty() { None } else { Some(self.vtp(ops, &mut i, &mut fwd)?.0) };
                (self.void(), InstKind::Ret { value })
            }
            // BR [bb] / [bb, bb, cond]
            11 => {
                let kind = match ops.len() {
                    1 => InstKind::Br { target: self.bb(f, ops[0])? },
                    3 => {
                        let if_true = self.bb(f, ops[0])?;
                        let if_false = self.bb(f, ops[1])?;
                        i = 2;
                        let i1 = self.i1();
                        let cond = self.val(ops, &mut i, i1, &mut fwd)?;
                        InstKind::CondBr { cond, if_true, if_false }
                    }
                    _ => return Err(self.bad("BR record has a bad operand count")),
                };
                (self.void(), kind)
            }
            // SWITCH [opty, cond, default, (case value id, bb)*]
            12 => {
                if field(ops, 0) >> 16 == 0x4B5 {
                    return Err(ReadError::new(ErrorKind::Unsupported, self.off, "new-format SWITCH record"));
                }
                if ops.len() < 3 || ops.len().is_multiple_of(2) {
                    return Err(self.bad("SWITCH record has a bad operand count"));
                }
                let opty = self.ty(ops[0])?;
                i = 1;
                let value = self.val(ops, &mut i, opty, &mut fwd)?;
                let default = self.bb(f, ops[2])?;
                let mut cases = Vec::with_capacity((ops.len() - 3) / 2);
                for pair in ops[3..].chunks_exact(2) {
                    let v = self.vals.get(pair[0] as usize).map(|v| v.0);
                    let Some(c) = v.and_then(|v| self.m.const_int(v)) else {
                        return Err(self.bad("SWITCH case value is not an integer constant"));
                    };
                    cases.push((c, self.bb(f, pair[1])?));
                }
                (self.void(), InstKind::Switch { value, default, cases })
            }
            // UNREACHABLE
            15 => (self.void(), InstKind::Unreachable),
            // PHI [ty, (signed rel val, bb)*]
            16 => {
                if ops.is_empty() || ops.len().is_multiple_of(2) {
                    return Err(self.bad("PHI record has a bad operand count"));
                }
                let ty = self.ty(ops[0])?;
                let mut incoming = Vec::with_capacity(ops.len() / 2);
                for pair in ops[1..].chunks_exact(2) {
                    // Relative ids are signed VBR here; absolute ids (VERSION 0) are plain.
                    let vid = if self.relative {
                        (self.vals.len() as u32).wrapping_sub(decode_signed(pair[0]) as u32)
                    } else {
                        pair[0] as u32
                    };
                    let v = match self.vals.get(vid as usize) {
                        Some(&(v, _)) => v,
                        None => {
                            fwd = true;
                            self.fwd_inst(vid)?
                        }
                    };
                    incoming.push((v, self.bb(f, pair[1])?));
                }
                (ty, InstKind::Phi { incoming })
            }
            // ALLOCA [instty, opty, op (absolute), align]
            19 => {
                if ops.len() != 4 {
                    return Err(self.bad("ALLOCA record needs 4 operands"));
                }
                let mut ty = self.ty(ops[0])?;
                if ops[3] & (1 << 6) == 0 {
                    ty = self.pointee(ty).ok_or_else(|| self.bad("ALLOCA type is not a pointer"))?.0;
                }
                (self.ptr_to(ty, 0), InstKind::Alloca { ty })
            }
            // LOAD [ptr(+ty), ty?, align, vol] / LOADATOMIC [.., ordering, scope]
            20 | 41 => {
                let (ptr, pty) = self.vtp(ops, &mut i, &mut fwd)?;
                let extra = if code == 20 { 3 } else { 5 };
                let ty = if i + extra == ops.len() {
                    self.ty(self.lit(ops, &mut i)?)?
                } else {
                    self.pointee(pty).ok_or_else(|| self.bad("LOAD from a non-pointer"))?.0
                };
                (ty, InstKind::Load { ptr })
            }
            // STORE [ptr(+ty), val(+ty), align, vol] / STOREATOMIC; old forms [ptr(+ty), val, ...]
            44 | 45 | 24 | 42 => {
                let (ptr, pty) = self.vtp(ops, &mut i, &mut fwd)?;
                let value = if code == 44 || code == 45 {
                    self.vtp(ops, &mut i, &mut fwd)?.0
                } else {
                    let ety = self.pointee(pty).ok_or_else(|| self.bad("STORE to a non-pointer"))?.0;
                    self.val(ops, &mut i, ety, &mut fwd)?
                };
                (self.void(), InstKind::Store { ptr, value })
            }
            // EXTRACTVAL [agg(+ty), idx...]
            26 => {
                let (agg, mut ty) = self.vtp(ops, &mut i, &mut fwd)?;
                let mut indices = crate::ir::Indices::with_capacity(ops.len() - i);
                for &ix in &ops[i..] {
                    ty = self.member(ty, ix).ok_or_else(|| self.bad("extractvalue index is out of range"))?;
                    indices.push(ix as u32);
                }
                (ty, InstKind::ExtractValue { agg, indices })
            }
            // INSERTVAL [agg(+ty), val(+ty), idx...]
            27 => {
                let (agg, ty) = self.vtp(ops, &mut i, &mut fwd)?;
                let (value, _) = self.vtp(ops, &mut i, &mut fwd)?;
                let indices = ops[i..].iter().map(|&x| x as u32).collect();
                (ty, InstKind::InsertValue { agg, value, indices })
            }
            // CALL [paramattrs, cc, fnty?, callee(+ty), args...]
            34 => self.call(ops, &mut fwd)?,
            // FENCE [ordering, scope]
            36 => (self.void(), InstKind::Other { opcode: code, operands: Default::default() }),
            // CMPXCHG_OLD [ptr(+ty), cmp, new, ...] / CMPXCHG [ptr(+ty), cmp(+ty), new, ...]
            37 | 46 => {
                let (ptr, pty) = self.vtp(ops, &mut i, &mut fwd)?;
                let (cmp, cty) = if code == 46 {
                    self.vtp(ops, &mut i, &mut fwd)?
                } else {
                    let ety = self.pointee(pty).ok_or_else(|| self.bad("cmpxchg on a non-pointer"))?.0;
                    (self.val(ops, &mut i, ety, &mut fwd)?, ety)
                };
                let new = self.val(ops, &mut i, cty, &mut fwd)?;
                (self.cmpxchg_type(cty), InstKind::CmpXchg { ptr, cmp, new })
            }
            // ATOMICRMW [ptr(+ty), val, op, vol, ordering, scope]
            38 => {
                let (ptr, pty) = self.vtp(ops, &mut i, &mut fwd)?;
                let ety = self.pointee(pty).ok_or_else(|| self.bad("atomicrmw on a non-pointer"))?.0;
                let value = self.val(ops, &mut i, ety, &mut fwd)?;
                let op = self.lit(ops, &mut i)? as u32;
                (ety, InstKind::AtomicRmw { op, ptr, value })
            }
            // VAARG [valistty, valist, instty]
            23 => {
                let vty = self.ty(self.lit(ops, &mut i)?)?;
                let valist = self.val(ops, &mut i, vty, &mut fwd)?;
                let ty = self.ty(self.lit(ops, &mut i)?)?;
                (ty, InstKind::Other { opcode: code, operands: smallvec::smallvec![valist] })
            }
            // DEBUG_LOC [line, col, scope+1, ia+1]
            35 => {
                if ops.len() < 4 {
                    return Err(self.bad("DEBUG_LOC record is too short"));
                }
                let scope = if ops[2] == 0 { None } else { Some((ops[2] - 1) as u32) };
                let ia = if ops[3] == 0 { None } else { Some((ops[3] - 1) as u32) };
                let loc = self.make_loc(ops[0] as u32, ops[1] as u32, scope, ia);
                f.last_loc = Some(loc);
                if let Some(h) = f.last {
                    f.insts[h].span.loc = Some(loc);
                }
                return Ok(());
            }
            // DEBUG_LOC_AGAIN
            33 => {
                if let (Some(h), Some(loc)) = (f.last, f.last_loc) {
                    f.insts[h].span.loc = Some(loc);
                }
                return Ok(());
            }
            _ => {
                self.remark(|| format!("unknown FUNCTION_BLOCK record {code} skipped"));
                return Ok(());
            }
        };
        self.push_inst(f, ty, kind, fwd)
    }

    fn call(&mut self, ops: &[u64], fwd: &mut bool) -> Result<(TypeH, InstKind)> {
        let mut i = 0usize;
        let _attrs = self.lit(ops, &mut i)?;
        let cc = self.lit(ops, &mut i)?;
        let explicit = if cc >> 15 & 1 == 1 { Some(self.ty(self.lit(ops, &mut i)?)?) } else { None };
        let (callee, cty) = self.vtp(ops, &mut i, fwd)?;
        let fty = match explicit {
            Some(t) => t,
            None => self.pointee(cty).ok_or_else(|| self.bad("callee is not a pointer"))?.0,
        };
        let (ret, nparams) = match self.type_of(fty) {
            Some(Type::Function { ret, params }) => (*ret, params.len()),
            _ => return Err(self.bad("call type is not a function type")),
        };
        if ops.len() < i + nparams {
            return Err(self.bad("CALL record has fewer arguments than its function type"));
        }
        let mut args = Vec::with_capacity(ops.len() - i);
        for k in 0..nparams {
            let pty = match self.type_of(fty) {
                Some(Type::Function { params, .. }) => params[k],
                _ => return Err(self.bad("call type is not a function type")),
            };
            if matches!(self.type_of(pty), Some(Type::Label)) {
                return Err(ReadError::new(ErrorKind::Unsupported, self.off, "label call argument"));
            }
            args.push(self.val(ops, &mut i, pty, fwd)?);
        }
        // Varargs: (value, type) pairs.
        while i < ops.len() {
            args.push(self.vtp(ops, &mut i, fwd)?.0);
        }
        let mut dx_op = None;
        if let Value::Function(fh) = callee {
            if self.m.functions.try_get(fh).is_some_and(|f| f.name.starts_with("dx.op.")) {
                dx_op = args.first().and_then(|&a| self.m.const_int(a)).map(|v| v as u32);
            }
        }
        Ok((ret, InstKind::Call { callee, args, dx_op }))
    }

    fn push_inst(&mut self, f: &mut FnState, ty: TypeH, kind: InstKind, fwd: bool) -> Result<()> {
        if f.cur >= f.blocks.len() {
            return Err(self.bad("instruction outside any declared basic block"));
        }
        if f.insts.len() >= limits::MAX_VALUES {
            return Err(ReadError::limit(self.off, format!("more than {} instructions", limits::MAX_VALUES)));
        }
        let defines = !self.is_void(ty);
        let id = if defines { self.vals.len() as u32 } else { u32::MAX };
        let term = kind.is_terminator();
        let h = f.insts.append(Inst { ty, kind, span: Span { offset: self.off, id, loc: None } });
        if defines {
            self.push_val(Value::Inst(h), ty)?;
        }
        if term {
            // The block is the run of instructions since the previous terminator.
            if let Some(bh) = Handle::<Block>::from_index(f.cur) {
                f.blocks[bh].insts = (f.block_start..=h.index()).filter_map(Handle::from_index).collect();
            }
            f.block_start = h.index() + 1;
            f.cur += 1;
        }
        f.last = Some(h);
        if fwd {
            f.fwd_insts.push(h);
        }
        Ok(())
    }
}

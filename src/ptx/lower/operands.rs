//! Operands: statements, `.loc`, operand values.

use super::body::{Body, Slot};
use super::names::BASE_SCOPES;
use crate::ir::{BinOp, DebugLoc, InstKind, Operands, TypeH, UnOp, Value};
use crate::ptx::parse::{Addr, LocDirective, NameId, Operand, Stmt, Stmts};
use crate::read::Result;

impl<'c, 'a> Body<'c, 'a> {
    // ---- statements -----------------------------------------------------------------

    pub(super) fn stmt(&mut self, s: &Stmt<'a>, stmts: &Stmts<'a>) -> Result<()> {
        match s {
            Stmt::Open(_) => {
                let s = self.spare_scopes.pop().unwrap_or_default();
                self.scopes.push(s);
                if self.scopes.len() <= BASE_SCOPES {
                    self.base_changed();
                }
            }
            Stmt::Close(_) => {
                if self.scopes.len() > 1 {
                    if self.scopes.len() <= BASE_SCOPES {
                        self.base_changed();
                    }
                    if let Some(mut s) = self.scopes.pop() {
                        s.clear();
                        self.spare_scopes.push(s);
                    }
                    if self.scopes.len() < BASE_SCOPES {
                        self.id_ranges.clear();
                    }
                    let inner = self.scopes.get(BASE_SCOPES..).unwrap_or(&[]);
                    self.inner_mask = inner.iter().fold(0, |m, s| m | s.len_mask());
                }
            }
            Stmt::Decl(d) => {
                if let Some(d) = stmts.decl(*d) {
                    self.declare(d)?;
                }
            }
            Stmt::Loc(l) => self.set_loc(l),
            Stmt::Label(..) | Stmt::BranchTargets(..) => {}
            Stmt::Inst(ins) => self.inst(&stmts.inst(ins))?,
        }
        Ok(())
    }

    pub(super) fn file_index(&mut self, file: u32) -> u32 {
        match self.cx.files.get(&file) {
            Some(i) => *i,
            None => {
                let i = self.cx.intern_file(&format!("<file {file}>"));
                self.cx.files.insert(file, i);
                i
            }
        }
    }

    pub(super) fn set_loc(&mut self, l: &LocDirective) {
        if let Some((prev, h)) = self.loc {
            if prev == *l {
                self.sp.loc = Some(h);
                return;
            }
        }
        let inlined_at = l.inlined_at.map(|(f, line, column)| {
            let file = self.file_index(f);
            self.cx.m.add_loc(DebugLoc { file, line, column, inlined_at: None })
        });
        let file = self.file_index(l.file);
        let h = self.cx.m.add_loc(DebugLoc { file, line: l.line, column: l.col, inlined_at });
        self.loc = Some((*l, h));
        self.sp.loc = Some(h);
    }

    /// The value of a source operand; `ty` types immediates.
    pub(super) fn value(&mut self, op: &Operand, ty: TypeH) -> Value {
        match op {
            Operand::Reg(id) | Operand::Sym(id) => self.name_value(*id, ty),
            Operand::NotReg(id) => {
                let bool_ty = self.cx.int(1);
                let v = self.name_value(*id, bool_ty);
                self.emit(bool_ty, InstKind::Unary { op: UnOp::LogicalNot, value: v })
            }
            Operand::Int(v) => {
                let ty = if self.cx.m.int_bits(ty).is_some() {
                    ty
                } else {
                    self.cx.int(if *v as u64 > u64::from(u32::MAX) { 64 } else { 32 })
                };
                self.cx.const_int(ty, *v as u64)
            }
            Operand::Float(bits, w) => {
                let t = self.cx.float(*w);
                self.cx.const_float(t, *bits)
            }
            Operand::Sink => self.cx.undef(ty),
            Operand::Vector(r) | Operand::List(r) => {
                let elems: Vec<Value> = r.range().map(|k| self.item_value(k, ty)).collect();
                let tys = elems.iter().map(|v| self.value_ty(*v)).collect();
                let t = self.cx.tuple(tys);
                self.emit(t, InstKind::Composite { elements: elems })
            }
            Operand::Pair(r) => {
                let a = self.item_value(r.range().start, ty);
                let b = self.item_value(r.range().start + 1, ty);
                let tys = vec![self.value_ty(a), self.value_ty(b)];
                let t = self.cx.tuple(tys);
                self.emit(t, InstKind::Composite { elements: vec![a, b] })
            }
            Operand::Addr(a) => self.address(a),
        }
    }

    /// The value of item `k` of the instruction being lowered (see `Body::items`).
    fn item_value(&mut self, k: usize, ty: TypeH) -> Value {
        let o = self.items.get(k).copied().unwrap_or(Operand::Sink);
        self.value(&o, ty)
    }

    pub(super) fn value_ty(&mut self, v: Value) -> TypeH {
        match v {
            Value::Inst(h) => self.f.insts.try_get(h).map(|i| i.ty),
            Value::Const(c) => self.cx.m.constants.try_get(c).map(|c| c.ty),
            Value::Global(g) => self.cx.m.globals.try_get(g).map(|g| g.ty),
            Value::Arg(i) => self.f.params.get(i as usize).copied(),
            Value::Function(_) => None,
        }
        .unwrap_or_else(|| self.cx.int(64))
    }

    pub(super) fn name_value(&mut self, id: NameId, ty: TypeH) -> Value {
        if !self.slice_names.is_empty() && !self.slice_names.get(id.index()).copied().unwrap_or(true) {
            return self.cx.undef(ty);
        }
        match self.lookup(id) {
            Some(Slot::Var(v)) => {
                // The usual read: a register met before, written or read
                // before in this block (one look at its `Local`).
                if let Some(v) = self.known_here(v) {
                    return v;
                }
                self.note_name(v, id);
                self.read(v)
            }
            Some(Slot::Sym(v)) => v,
            Some(Slot::Param(i)) => {
                // The parameter's name read as its address (`mov.b64 %rd, p`,
                // `[p+8]`), which the IR does not tell from its value: what
                // `.ptr .align N` says of the value no longer holds of `Arg(i)`.
                if let Some(a) = self.f.param_align.get_mut(i as usize) {
                    *a = 0;
                }
                Value::Arg(i)
            }
            None => {
                let name = self.name(id);
                if let Some(v) = self.cx.globals.get(name) {
                    return *v;
                }
                if name.starts_with('%') {
                    // A special register (`%tid.x`, `%clock64`): an opaque read.
                    let bits =
                        if name.contains("64") || name.contains("globaltimer") || name == "%gridid" { 64 } else { 32 };
                    let t = self.cx.int(bits);
                    let op = self.cx.op_name(name);
                    return self.emit(t, InstKind::Other { opcode: op, operands: Operands::new() });
                }
                self.cx.undef(ty)
            }
        }
    }

    /// The address `[base + offset]` as a value (base plus a constant).
    pub(super) fn address(&mut self, a: &Addr) -> Value {
        let i64_ty = self.cx.int(64);
        let base = self.value(&a.base(&self.items), i64_ty);
        let offset = a.offset(&self.items);
        if offset == 0 {
            return base;
        }
        let ty = self.value_ty(base);
        let ty = if self.cx.m.int_bits(ty).is_some() { ty } else { i64_ty };
        let off = self.cx.const_int(ty, offset as u64);
        self.emit(ty, InstKind::Binary { op: BinOp::Add, lhs: base, rhs: off })
    }

    /// Flattens source operands into values (addresses with their extra operands).
    pub(super) fn flatten(&mut self, op: &Operand, ty: TypeH, out: &mut Operands) {
        match op {
            Operand::Vector(r) | Operand::List(r) | Operand::Pair(r) => self.flatten_items(r.range(), ty, out),
            Operand::Sink => {}
            Operand::Addr(a) => {
                let v = self.address(a);
                out.push(v);
                self.flatten_items(a.extra_range(), ty, out);
            }
            o => {
                let v = self.value(o, ty);
                out.push(v);
            }
        }
    }

    /// Flattens items `range` of the instruction being lowered.
    fn flatten_items(&mut self, range: impl Iterator<Item = usize>, ty: TypeH, out: &mut Operands) {
        for k in range {
            match self.items.get(k).copied() {
                // The usual item: a register, read without the dispatch.
                Some(Operand::Reg(id) | Operand::Sym(id)) => {
                    let v = self.name_value(id, ty);
                    out.push(v);
                }
                Some(o) => self.flatten(&o, ty, out),
                None => {}
            }
        }
    }
}

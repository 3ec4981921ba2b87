//! Module-scope lowering: debug/source instructions, entry points, types,
//! constants (spec constants and `OpSpecConstantOp` expressions), globals and their
//! buffer resources, module-scope `OpExtInst`, and value-operand decoding by grammar.

use super::debug::{self, dbg};
use super::decorations::{self, BufferShape};
use super::function::{classify, Class};
use super::grammar;
use super::lower::{ExtSet, Lowerer, Slot};
use super::reader::{self, RawInst};
use crate::ir::*;

impl Lowerer<'_> {
    pub(super) fn module_inst(&mut self, inst: RawInst) {
        let w = self.w;
        let ops = w.operands(inst);
        let op = inst.opcode as u32;
        match op {
            // Annotations, strings, imports: handled by the prepass. Capabilities,
            // extensions, memory model, execution modes: nothing to lower.
            0 | 4..=7 | 10 | 11 | 14 | 16 | 17 | 71..=75 | 330..=332 | 5632 | 5633 => {}
            3 => self.op_source(ops),
            2 => {
                if let Some(i) = self.last_source {
                    if let Some(text) = self.source_text(ops) {
                        if let Some(f) = self.m.source_files.get_mut(i) {
                            f.text.get_or_insert_with(String::new).push_str(&text);
                        }
                    }
                }
            }
            8 => self.op_line(ops),
            317 => self.cur_loc = None,
            15 => self.entry_point(ops),
            19..=39 | 322 | 327 | 4456 | 5288 | 5358 => self.type_inst(inst, ops),
            41..=46 | 48..=52 | 1 => self.constant(inst, ops),
            59 => self.global(inst, ops),
            12 => self.module_ext_inst(inst, ops),
            _ => self.module_other(inst, ops),
        }
    }

    pub(super) fn op_source(&mut self, ops: &[u32]) {
        let file = ops.get(2).and_then(|&id| self.file_of_string(id));
        let text = ops.get(3..).filter(|t| !t.is_empty()).and_then(|t| self.source_text(t));
        let idx = match (file, &text) {
            (Some(f), _) => f as usize,
            (None, Some(_)) => {
                self.m.source_files.push(SourceFile { name: String::new(), text: None });
                self.m.source_files.len() - 1
            }
            (None, None) => return,
        };
        if let (Some(t), Some(f)) = (text, self.m.source_files.get_mut(idx)) {
            f.text = Some(t);
        }
        self.last_source = Some(idx);
    }

    pub(super) fn op_line(&mut self, ops: &[u32]) {
        if let [file, line, column, ..] = *ops {
            let file = self.file_of_string(file).unwrap_or(u32::MAX);
            if file == u32::MAX {
                self.cur_loc = None;
                return;
            }
            self.cur_loc = Some(self.m.add_loc(DebugLoc { file, line, column, inlined_at: None }));
        }
    }

    pub(super) fn entry_point(&mut self, ops: &[u32]) {
        let [model, func, name @ ..] = ops else { return };
        let function = match self.slot(*func) {
            Slot::Func(f) => Some(f),
            _ => None,
        };
        let name = reader::string(name).0;
        self.m.entry_points.push(EntryPoint { name, function, stage: debug::stage(*model) });
    }

    pub(super) fn type_inst(&mut self, inst: RawInst, ops: &[u32]) {
        let Some((&id, a)) = ops.split_first() else { return };
        let op = inst.opcode as u32;
        let arg = |i: usize| a.get(i).copied().unwrap_or(0);
        let (t, extra) = match op {
            19 => (Type::Void, 0),
            20 => (Type::Bool, 0),
            21 => (Type::Int { bits: arg(0).min(u16::MAX as u32) as u16 }, (arg(1) != 0) as u32),
            22 => {
                let enc = a.get(1).map_or(0, |e| e.saturating_add(1));
                (Type::Float { bits: arg(0).min(u16::MAX as u32) as u16 }, enc)
            }
            23 => (Type::Vector { elem: self.ty(arg(0)), count: arg(1) }, 0),
            24 => {
                let elem = self.ty(arg(0));
                (Type::Array { elem, count: Some(arg(1) as u64), stride: None }, 0)
            }
            28 => {
                let elem = self.ty(arg(0));
                let count = match self.try_value(arg(1)) {
                    Some(v @ Value::Const(_)) => self.m.const_int(v).unwrap_or(0),
                    _ => 0,
                };
                (Type::Array { elem, count: Some(count), stride: self.ann.deco(id).array_stride }, 0)
            }
            29 => {
                let elem = self.ty(arg(0));
                (Type::Array { elem, count: None, stride: self.ann.deco(id).array_stride }, 0)
            }
            30 => {
                let members = a.iter().map(|&m| self.ty(m)).collect();
                (Type::Struct { name: self.ann.name(self.w, id), members }, 0)
            }
            32 => {
                let pointee = self.ty(arg(1));
                (Type::Pointer { pointee, space: arg(0) }, 0)
            }
            33 => {
                let ret = self.ty(arg(0));
                let params = a.get(1..).unwrap_or(&[]).iter().map(|&p| self.ty(p)).collect();
                (Type::Function { ret, params }, 0)
            }
            39 => {
                // OpTypeForwardPointer: reserve the pointer's handle; OpTypePointer fills it in.
                if matches!(self.slot(id), Slot::None) {
                    self.add_type(id, Type::Opaque { name: "OpTypeForwardPointer".into() }, 0);
                    self.forward_pointers.insert(id);
                }
                return;
            }
            5288 => {
                let elem = self.ty(arg(0));
                let count_v = self.try_value(arg(1));
                let count = count_v.and_then(|v| self.m.const_int(v)).unwrap_or(0);
                let h = self.add_type(id, Type::Vector { elem, count: count.min(u32::MAX as u64) as u32 }, 0);
                if let Some(Value::Const(c)) = count_v {
                    self.vec_count.insert(h, c);
                }
                return;
            }
            4456 => {
                let h = self.add_type(id, Type::Opaque { name: "OpTypeCooperativeMatrixKHR".into() }, 0);
                self.coop_matrix.insert(h, [arg(0), arg(1), arg(2), arg(3), arg(4)]);
                return;
            }
            31 => (Type::Opaque { name: reader::string(a).0 }, 0),
            _ => (Type::Opaque { name: format!("Op{}", grammar::name(op).unwrap_or("Type")) }, 0),
        };
        self.add_type(id, t, extra);
    }

    pub(super) fn constant(&mut self, inst: RawInst, ops: &[u32]) {
        let [ty_id, id, a @ ..] = ops else { return };
        let (ty_id, id) = (*ty_id, *id);
        let ty = self.ty(ty_id);
        let op = inst.opcode as u32;
        let deco = self.ann.deco(id);
        let is_spec = matches!(op, 48..=52);
        let kind = match op {
            1 => ConstKind::Undef,
            41 | 48 => ConstKind::Int(1),
            42 | 49 => ConstKind::Int(0),
            43 | 50 => self.literal(ty, a),
            44 | 51 => ConstKind::Aggregate(self.values(a)),
            46 => ConstKind::Null,
            52 => ConstKind::Expr(Box::new(self.spec_op(ty, a))),
            _ => ConstKind::Undef, // OpConstantSampler
        };
        let spec_id = if is_spec && op != 52 { deco.spec_id } else { None };
        let path = match &kind {
            ConstKind::Expr(e) => match &**e {
                ConstExpr::Gep { base, indices } => {
                    let from_base = match base {
                        Value::Const(b) => self.const_paths.get(b).copied().unwrap_or(0),
                        _ => 0,
                    };
                    Some((from_base as usize).saturating_add(indices.len().saturating_sub(1)))
                }
                _ => None,
            },
            _ => None,
        };
        if let Some(len) = path.filter(|&l| l > crate::read::limits::MAX_ACCESS_PATH) {
            self.fail(format!(
                "access chain indexes {len} levels from its root variable (through access chains on access chains), \
                 deeper than any type can nest (limit {})",
                crate::read::limits::MAX_ACCESS_PATH
            ));
        }
        let c = self.m.constants.append(Constant { ty, kind, spec_id });
        if let Some(len) = path.filter(|&l| l > 0) {
            self.const_paths.insert(c, len as u32);
        }
        self.set_slot(id, Slot::Const(c));
        if let Some(sid) = spec_id {
            if let Some(name) = self.ann.name(self.w, id) {
                self.m.spec_names.push((sid, name));
            }
        }
    }

    pub(super) fn literal(&self, ty: TypeH, words: &[u32]) -> ConstKind {
        let lo = words.first().copied().unwrap_or(0) as u64;
        let hi = words.get(1).copied().unwrap_or(0) as u64;
        match self.m.types.try_get(ty) {
            Some(Type::Int { bits }) => {
                let v = if *bits > 32 { lo | hi << 32 } else { lo };
                let v = if *bits < 64 && *bits > 0 { v & ((1u64 << bits) - 1) } else { v };
                ConstKind::Int(v)
            }
            Some(Type::Float { bits }) => ConstKind::Float(if *bits > 32 { lo | hi << 32 } else { lo }),
            _ => ConstKind::Int(lo),
        }
    }

    /// `OpSpecConstantOp` operands after the result: opcode, then operand ids (or
    /// literal indices for `CompositeExtract` / `CompositeInsert` / `VectorShuffle`).
    pub(super) fn spec_op(&mut self, ty: TypeH, a: &[u32]) -> ConstExpr {
        let Some((&op, args)) = a.split_first() else { return ConstExpr::Other(52, Vec::new()) };
        let arg = |i: usize| args.get(i).copied().unwrap_or(0);
        match (op, classify(op)) {
            (_, Some(Class::Bin(b))) => ConstExpr::Binary(b, self.value(arg(0)), self.value(arg(1))),
            (_, Some(Class::Un(u))) => ConstExpr::Unary(u, self.value(arg(0))),
            (_, Some(Class::Cast(c))) => ConstExpr::Cast(c, self.value(arg(0))),
            (_, Some(c @ (Class::IntResize(_) | Class::FloatResize))) => {
                let v = self.value(arg(0));
                let vt = self.value_type(None, v);
                ConstExpr::Cast(self.resize(c, ty, vt), v)
            }
            (_, Some(Class::Cmp(p))) => ConstExpr::Cmp(CmpPred(p), self.value(arg(0)), self.value(arg(1))),
            (_, Some(Class::Select)) => ConstExpr::Select(self.value(arg(0)), self.value(arg(1)), self.value(arg(2))),
            (81, _) => ConstExpr::Extract(self.value(arg(0)), args.get(1..).unwrap_or(&[]).to_vec()),
            (65 | 66, _) => {
                let base = self.value(arg(0));
                let mut indices = vec![Value::Const(self.u32_const(0))];
                indices.extend(self.values(args.get(1..).unwrap_or(&[])));
                ConstExpr::Gep { base, indices }
            }
            (67 | 70, _) => {
                let base = self.value(arg(0));
                ConstExpr::Gep { base, indices: self.values(args.get(1..).unwrap_or(&[])) }
            }
            // CompositeInsert (object, composite, literals...), VectorShuffle (a, b, literals...).
            (82 | 79, _) => ConstExpr::Other(op, vec![self.value(arg(0)), self.value(arg(1))]),
            _ => ConstExpr::Other(op, args.iter().filter_map(|&id| self.try_value(id)).collect()),
        }
    }

    pub(super) fn global(&mut self, inst: RawInst, ops: &[u32]) {
        let &[ty_id, id, sc, ref rest @ ..] = ops else { return };
        let ty = self.ty(ty_id);
        let value_ty = match self.m.types.try_get(ty) {
            Some(Type::Pointer { pointee, .. }) => *pointee,
            _ => ty,
        };
        let init = rest.first().map(|&i| self.value(i));
        let span = self.span(inst, id);
        let name = self.ann.name(self.w, id);
        let g = self.m.globals.append(Global { name, ty, value_ty, space: sc, init, is_const: false, span });
        self.set_slot(id, Slot::Global(g));
        if let Some(b) = self.ann.deco(id).builtin {
            self.m.builtins.push((g, b));
        }
        self.resource(g, id, value_ty, sc, span);
    }

    pub(super) fn resource(&mut self, g: GlobalH, id: u32, value_ty: TypeH, sc: u32, span: Span) {
        if sc != 2 && sc != 12 {
            return;
        }
        // Descriptor arrays of buffers count once: look through (runtime) arrays.
        let mut st = value_ty;
        for _ in 0..4 {
            match self.m.types.try_get(st) {
                Some(Type::Array { elem, .. }) => st = *elem,
                _ => break,
            }
        }
        let Some(Type::Struct { members, name: struct_name }) = self.m.types.try_get(st) else { return };
        let struct_id = self.type_ids.get(st.index()).copied().unwrap_or(u32::MAX);
        let last = members.len().checked_sub(1);
        let last_array = last.and_then(|i| members.get(i)).and_then(|&mt| match self.m.types.try_get(mt) {
            Some(Type::Array { elem, stride, .. }) => {
                let uint32 = matches!(self.m.types.try_get(*elem), Some(Type::Int { bits: 32 }))
                    && self.type_extra.get(elem.index()) == Some(&0);
                Some((*stride, members.len() == 1 && uint32))
            }
            _ => None,
        });
        let shape = BufferShape {
            storage_class: sc,
            struct_deco: self.ann.deco(struct_id),
            var_deco: self.ann.deco(id),
            last_array,
            last_member_non_writable: last
                .is_some_and(|i| self.ann.member_non_writable.contains(&(struct_id, i as u32))),
            declared_raw: self
                .ann
                .deco(id)
                .user_type_raw
                .or_else(|| struct_name.as_deref().and_then(decorations::dxc_block_name_is_raw)),
        };
        let Some((class, kind, stride, binding)) = decorations::classify(&shape) else { return };
        let name = self.ann.name(self.w, id).or_else(|| struct_name.clone());
        let r = self.m.resources.append(Resource { class, kind, name, binding, stride, id, span });
        self.global_resource.insert(g, r);
    }

    pub(super) fn module_ext_inst(&mut self, inst: RawInst, ops: &[u32]) {
        let &[ty_id, id, set, num, ref a @ ..] = ops else { return };
        match self.slot(set) {
            Slot::ExtSet(ExtSet::DebugInfo) => {
                let mut slot = Slot::Dropped;
                if num == dbg::SOURCE {
                    if let Some(file) = a.first().and_then(|&s| self.file_of_string(s)) {
                        let words = a.get(1).and_then(|&t| self.string_words_of(t));
                        if let Some(text) = words.and_then(|t| self.source_text(t)) {
                            if let Some(f) = self.m.source_files.get_mut(file as usize) {
                                f.text = Some(text);
                            }
                        }
                        self.last_source = Some(file as usize);
                        slot = Slot::DbgSource(file);
                    }
                } else if num == dbg::GLOBAL_VARIABLE {
                    self.global_variable_loc(a);
                } else if num == dbg::SOURCE_CONTINUED {
                    if let Some(i) = self.last_source {
                        let words = a.first().and_then(|&t| self.string_words_of(t));
                        if let Some(text) = words.and_then(|t| self.source_text(t)) {
                            if let Some(f) = self.m.source_files.get_mut(i) {
                                f.text.get_or_insert_with(String::new).push_str(&text);
                            }
                        }
                    }
                }
                self.set_slot(id, slot);
            }
            Slot::ExtSet(ExtSet::NonSemantic) => self.set_slot(id, Slot::Dropped),
            _ => {
                let ty = self.ty(ty_id);
                let operands = a.iter().filter_map(|&i| self.try_value(i)).collect();
                let kind = ConstKind::Expr(Box::new(ConstExpr::Other(inst.opcode as u32, operands)));
                let c = self.m.constants.append(Constant { ty, kind, spec_id: None });
                self.set_slot(id, Slot::Const(c));
            }
        }
    }

    /// `DebugGlobalVariable(Name, Type, Source, Line, Column, Parent, LinkageName,
    /// Variable, Flags)`: the declaration line of a global (and its resource).
    pub(super) fn global_variable_loc(&mut self, a: &[u32]) {
        let Some(Slot::DbgSource(file)) = a.get(2).map(|&s| self.slot(s)) else { return };
        let Some(Slot::Global(g)) = a.get(7).map(|&v| self.slot(v)) else { return };
        let num = |s: &Self, i: usize| {
            a.get(i).and_then(|&id| s.try_value(id)).and_then(|v| s.m.const_int(v)).unwrap_or(0) as u32
        };
        let (line, column) = (num(self, 3), num(self, 4));
        let loc = self.m.add_loc(DebugLoc { file, line, column, inlined_at: None });
        self.m.globals[g].span.loc = Some(loc);
        if let Some(&r) = self.global_resource.get(&g) {
            self.m.resources[r].span.loc = Some(loc);
        }
    }

    /// Module-scope instructions not handled above: known `T R ...` ones become
    /// constant expressions (`OpConstantCompositeReplicateEXT`, ...), known `R ...`
    /// ones opaque types; unknown opcodes are kept as a remark.
    pub(super) fn module_other(&mut self, inst: RawInst, ops: &[u32]) {
        let op = inst.opcode as u32;
        let Some(sig) = grammar::signature(op) else {
            let at = self.w.offset(inst);
            self.remark(|| format!("unknown module-scope opcode {op} at byte offset {at} skipped"));
            return;
        };
        if sig.starts_with(b"TR") {
            let [ty_id, id, a @ ..] = ops else { return };
            let ty = self.ty(*ty_id);
            let mut operands = Vec::new();
            self.value_operands(sig.get(2..).unwrap_or(&[]), a, &mut operands);
            let kind = ConstKind::Expr(Box::new(ConstExpr::Other(op, operands)));
            let c = self.m.constants.append(Constant { ty, kind, spec_id: None });
            self.set_slot(*id, Slot::Const(c));
        } else if sig.starts_with(b"R") {
            if let Some(&id) = ops.first() {
                let name = format!("Op{}", grammar::name(op).unwrap_or("Type"));
                self.add_type(id, Type::Opaque { name }, 0);
            }
        }
    }

    /// Collects the value operands of `args` following `sig` (the signature after
    /// the result type and id); literals, types, labels and strings are dropped.
    pub(super) fn value_operands(&mut self, sig: &[u8], args: &[u32], out: &mut Vec<Value>) {
        let mut k = 0usize;
        let n = args.len();
        let push = |s: &Self, i: usize, out: &mut Vec<Value>| {
            if let Some(v) = args.get(i).and_then(|&id| s.try_value(id)) {
                out.push(v);
            }
        };
        for &c in sig {
            if k >= n {
                break;
            }
            match c {
                b'i' | b'j' => {
                    push(self, k, out);
                    k += 1;
                }
                b'k' => {
                    while k < n {
                        push(self, k, out);
                        k += 1;
                    }
                }
                b'l' | b'm' => k += 1,
                b's' | b't' => k += reader::string_words(args.get(k..).unwrap_or(&[])),
                b'I' => {
                    k += 1;
                    while k < n {
                        push(self, k, out);
                        k += 1;
                    }
                }
                b'M' => {
                    let mask = args.get(k).copied().unwrap_or(0);
                    k += 1;
                    if mask & 0x2 != 0 {
                        k += 1;
                    }
                    for bit in [0x8, 0x10, 0x1_0000, 0x2_0000] {
                        if mask & bit != 0 {
                            push(self, k, out);
                            k += 1;
                        }
                    }
                }
                b'p' => {
                    while k + 1 < n {
                        push(self, k + 1, out);
                        k += 2;
                    }
                    k = n;
                }
                b'q' => {
                    while k < n {
                        push(self, k, out);
                        k += 2;
                    }
                }
                b'r' => {
                    while k < n {
                        push(self, k, out);
                        push(self, k + 1, out);
                        k += 2;
                    }
                }
                _ => break, // 'c' (literal number), '?' (undecoded parameters), 'T'/'R'
            }
        }
    }
}

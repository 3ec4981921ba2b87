//! Function bodies: two walks per function (block/result-id assignment, then
//! instructions), opcode classes shared with `OpSpecConstantOp`, control flow, and
//! in-body debug lines.

use super::debug::dbg;
use super::grammar;
use super::lower::{ExtSet, Lowerer, Slot};
use super::reader::RawInst;
use crate::ir::*;
use crate::read::limits;

/// Classification of value-producing opcodes shared by instructions and `OpSpecConstantOp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Class {
    Bin(BinOp),
    Un(UnOp),
    Cast(CastOp),
    /// `UConvert` / `SConvert`: extension or truncation by widths.
    IntResize(bool),
    /// `FConvert`.
    FloatResize,
    Cmp(u8),
    Select,
}

/// Maps an opcode onto the IR operator classes.
pub(super) fn classify(op: u32) -> Option<Class> {
    use BinOp::*;
    Some(match op {
        126 => Class::Un(UnOp::Neg),
        127 => Class::Un(UnOp::FNeg),
        128 => Class::Bin(Add),
        129 => Class::Bin(FAdd),
        130 => Class::Bin(Sub),
        131 => Class::Bin(FSub),
        132 => Class::Bin(Mul),
        133 => Class::Bin(FMul),
        134 => Class::Bin(UDiv),
        135 => Class::Bin(SDiv),
        136 => Class::Bin(FDiv),
        137 => Class::Bin(URem),
        138 | 139 => Class::Bin(SRem),
        140 | 141 => Class::Bin(FRem),
        194 => Class::Bin(LShr),
        195 => Class::Bin(AShr),
        196 => Class::Bin(Shl),
        197 | 166 => Class::Bin(Or),
        198 => Class::Bin(Xor),
        199 | 167 => Class::Bin(And),
        200 => Class::Un(UnOp::Not),
        168 => Class::Un(UnOp::LogicalNot),
        109 => Class::Cast(CastOp::FpToUi),
        110 => Class::Cast(CastOp::FpToSi),
        111 => Class::Cast(CastOp::SiToFp),
        112 => Class::Cast(CastOp::UiToFp),
        113 => Class::IntResize(false),
        114 => Class::IntResize(true),
        115 => Class::FloatResize,
        117 => Class::Cast(CastOp::PtrToInt),
        120 => Class::Cast(CastOp::IntToPtr),
        121 | 122 => Class::Cast(CastOp::AddrSpaceCast),
        124 => Class::Cast(CastOp::Bitcast),
        // LLVM ICMP numbering: 32 eq, 33 ne, 34 ugt, 35 uge, 36 ult, 37 ule, 38 sgt, 39 sge, 40 slt, 41 sle.
        164 | 170 => Class::Cmp(32),
        165 | 171 => Class::Cmp(33),
        172 => Class::Cmp(34),
        173 => Class::Cmp(38),
        174 => Class::Cmp(35),
        175 => Class::Cmp(39),
        176 => Class::Cmp(36),
        177 => Class::Cmp(40),
        178 => Class::Cmp(37),
        179 => Class::Cmp(41),
        // FCMP: 1 oeq, 2 ogt, 3 oge, 4 olt, 5 ole, 6 one, 7 ord, 8 uno, 9 ueq, 10 ugt, 11 uge, 12 ult, 13 ule, 14 une.
        162 => Class::Cmp(7),
        163 => Class::Cmp(8),
        180 => Class::Cmp(1),
        181 => Class::Cmp(9),
        182 => Class::Cmp(6),
        183 => Class::Cmp(14),
        184 => Class::Cmp(4),
        185 => Class::Cmp(12),
        186 => Class::Cmp(2),
        187 => Class::Cmp(10),
        188 => Class::Cmp(5),
        189 => Class::Cmp(13),
        190 => Class::Cmp(3),
        191 => Class::Cmp(11),
        169 => Class::Select,
        _ => return None,
    })
}

/// Opcodes inside a function body that produce no IR instruction.
fn is_non_emitting(op: u16) -> bool {
    matches!(
        op,
        0..=8 | 10 | 11 | 14..=17 | 54..=56 | 71..=75 | 246..=248 | 317 | 330..=332 | 5632 | 5633
    )
}

impl Lowerer<'_> {
    /// True when an instruction in a function body appends one IR instruction.
    fn emits(&self, inst: RawInst, ops: &[u32]) -> bool {
        if is_non_emitting(inst.opcode) {
            return false;
        }
        if inst.opcode == 12 {
            if let Some(&set) = ops.get(2) {
                return self.slot(set) != Slot::ExtSet(ExtSet::DebugInfo);
            }
        }
        true
    }

    /// `(has result type, result id)` of an instruction; unknown opcodes are guessed
    /// to be `T R ...` when their first operand names a type and the second is a
    /// fresh id.
    fn result_layout(&self, op: u32, ops: &[u32], fresh: impl Fn(u32) -> bool) -> (Option<u32>, Option<u32>) {
        match grammar::signature(op) {
            Some(sig) if sig.starts_with(b"TR") => (ops.first().copied(), ops.get(1).copied()),
            Some(sig) if sig.starts_with(b"R") => (None, ops.first().copied()),
            Some(_) => (None, None),
            None => match ops {
                [t, r, ..] if matches!(self.slot(*t), Slot::Type(_)) && fresh(*r) => (Some(*t), Some(*r)),
                _ => (None, None),
            },
        }
    }

    /// Lowers the function starting at instruction `start`; returns the index after it.
    pub(super) fn function(&mut self, start: usize) -> usize {
        let w = self.w;
        let Some(&head) = w.insts.get(start) else { return start + 1 };
        let head_ops = w.operands(head);
        let fidx = self.m.functions.len() as u32;
        self.cur_func = fidx;
        self.cur_loc = None;
        let ret = head_ops.first().map(|&t| self.ty(t));
        let fid = head_ops.get(1).copied().unwrap_or(0);
        let name = self.ann.name(w, fid).unwrap_or_else(|| format!("%{fid}"));
        let mut f = Function { name, ret, span: self.span(head, fid), ..Default::default() };

        // Pass 1: blocks, parameters, result ids.
        let mut end = start + 1;
        let mut count = 0usize;
        let mut implicit_entry = None;
        let mut first_label = None;
        while let Some(&inst) = w.insts.get(end) {
            if inst.opcode == 56 || inst.opcode == 54 {
                break;
            }
            let ops = w.operands(inst);
            match inst.opcode {
                248 => {
                    let id = ops.first().copied().unwrap_or(0);
                    let b = f.blocks.append(Block { insts: Vec::new(), name: self.ann.name(w, id) });
                    first_label.get_or_insert(b);
                    self.set_slot(id, Slot::Label(fidx, b));
                }
                1 => {
                    // OpUndef in a body: a module-level undef constant.
                    if let [t, id, ..] = *ops {
                        let ty = self.ty(t);
                        let c = self.m.constants.append(Constant { ty, kind: ConstKind::Undef, spec_id: None });
                        self.set_slot(id, Slot::Const(c));
                    }
                }
                55 => {
                    if let [t, id, ..] = *ops {
                        let ty = self.ty(t);
                        self.set_slot(id, Slot::Arg(fidx, f.params.len() as u32));
                        f.params.push(ty);
                    }
                }
                _ if self.emits(inst, ops) => {
                    if f.blocks.is_empty() && implicit_entry.is_none() {
                        implicit_entry = Some(f.blocks.append(Block::default()));
                    }
                    let (_, rid) = self.result_layout(inst.opcode as u32, ops, |r| {
                        r != 0 && r < self.bound && self.slot(r) == Slot::None
                    });
                    if let (Some(rid), Some(h)) = (rid, InstH::from_index(count)) {
                        self.set_slot(rid, Slot::Inst(fidx, h));
                    }
                    count += 1;
                }
                _ => {}
            }
            end += 1;
        }

        // Pass 2: instructions.
        f.insts = Arena::with_capacity(count + 1);
        let mut st = FnState { cur: implicit_entry, ..Default::default() };
        let mut label_no = 0usize;
        for k in start + 1..end {
            let Some(&inst) = w.insts.get(k) else { break };
            let ops = w.operands(inst);
            self.cur_at = w.offset(inst);
            if inst.opcode == 248 {
                if let Some(cur) = st.cur.filter(|_| !st.terminated) {
                    st.needs_term.push(cur);
                }
                // Labels map to the blocks pass 1 appended, in order (not by id, so a
                // duplicated label id cannot merge two blocks).
                st.cur = first_label.and_then(|b: BlockH| BlockH::from_index(b.index() + label_no));
                label_no += 1;
                st.terminated = false;
                st.seen_non_phi = false;
                self.cur_loc = None;
                continue;
            }
            if !self.emits(inst, ops) {
                match inst.opcode {
                    8 => self.op_line(ops),
                    317 => self.cur_loc = None,
                    12 => self.debug_ext_inst(ops),
                    _ => {}
                }
                continue;
            }
            let next = f.insts.next_handle();
            let (ty_id, rid) = self.result_layout(
                inst.opcode as u32,
                ops,
                |r| matches!(self.slot(r), Slot::Inst(fi, h) if fi == fidx && Some(h) == next),
            );
            let ty = match ty_id {
                Some(t) => self.ty(t),
                None => self.void(),
            };
            let nres = ty_id.is_some() as usize + rid.is_some() as usize;
            let args = ops.get(nres..).unwrap_or(&[]);
            let mut kind = self.inst_kind(&mut f, &mut st, inst, ty, args);
            let block = match st.cur {
                Some(b) if !st.terminated => b,
                _ => {
                    // Code after a terminator (or before any label): a fresh block.
                    if let Some(cur) = st.cur.filter(|_| !st.terminated) {
                        st.needs_term.push(cur);
                    }
                    let b = f.blocks.append(Block::default());
                    st.cur = Some(b);
                    st.terminated = false;
                    st.seen_non_phi = false;
                    b
                }
            };
            if let InstKind::Phi { incoming } = &kind {
                if st.seen_non_phi {
                    let operands = incoming.iter().map(|p| p.0).collect();
                    kind = InstKind::Other { opcode: 245, operands };
                }
            }
            let is_phi = matches!(kind, InstKind::Phi { .. });
            let is_term = kind.is_terminator();
            let span = self.span(inst, rid.unwrap_or(u32::MAX));
            let h = f.insts.append(Inst { ty, kind, span });
            f.blocks[block].insts.push(h);
            if let Some(init) = st.pending_init.take() {
                st.inits.push((block, f.blocks[block].insts.len(), h, init));
            }
            st.seen_non_phi |= !is_phi;
            if is_term {
                st.terminated = true;
                self.cur_loc = None;
            }
            self.after_inst(&f, fidx, h, inst, args);
        }
        if let Some(cur) = st.cur.filter(|_| !st.terminated) {
            st.needs_term.push(cur);
        }
        // Blocks that never received an instruction (label followed by a label).
        for (bh, b) in f.blocks.iter() {
            if b.insts.is_empty() && !st.needs_term.contains(&bh) {
                st.needs_term.push(bh);
            }
        }
        let void = self.void();
        for b in st.needs_term {
            let span = Span::at(f.span.offset);
            let h = f.insts.append(Inst { ty: void, kind: InstKind::Unreachable, span });
            f.blocks[b].insts.push(h);
        }
        // Variable initializers become stores right after the variable.
        for (b, pos, var, init) in st.inits.into_iter().rev() {
            let span = Span { id: u32::MAX, ..f.insts[var].span };
            let h =
                f.insts.append(Inst { ty: void, kind: InstKind::Store { ptr: Value::Inst(var), value: init }, span });
            let list = &mut f.blocks[b].insts;
            list.insert(pos.min(list.len()), h);
        }
        f.is_declaration = f.blocks.is_empty();
        if let Some(fh) = FuncH::from_index(self.m.functions.len()) {
            self.access_facts(&f, fh);
        }
        self.m.functions.append(f);
        self.cur_func = u32::MAX;
        self.cur_loc = None;
        match w.insts.get(end) {
            Some(i) if i.opcode == 56 => end + 1,
            _ => end,
        }
    }

    /// Records the index path of the access chain about to be appended to `f`:
    /// its base's path plus `added` indices. A path longer than any type nests
    /// ([`limits::MAX_ACCESS_PATH`]), or paths summing past
    /// [`limits::MAX_ACCESS_PATH_TOTAL`] in one function, make the module an
    /// input error, so resolving every pointer's path (which copies it) stays
    /// linear in the input.
    fn charge_access_path(&mut self, f: &Function, st: &mut FnState, base: Value, added: usize) {
        let from_base = match base {
            Value::Inst(h) => st.paths.get(&h.index()).copied().unwrap_or(0),
            Value::Const(c) => self.const_paths.get(&c).copied().unwrap_or(0),
            _ => 0,
        };
        let len = (from_base as usize).saturating_add(added);
        if len > limits::MAX_ACCESS_PATH {
            self.fail(format!(
                "access chain indexes {len} levels from its root variable (through access chains on access chains), \
                 deeper than any type can nest (limit {})",
                limits::MAX_ACCESS_PATH
            ));
            return;
        }
        st.path_total = st.path_total.saturating_add(len as u64);
        if st.path_total > limits::MAX_ACCESS_PATH_TOTAL {
            self.fail(format!(
                "access chains in this function index more than {} levels in total from their roots",
                limits::MAX_ACCESS_PATH_TOTAL
            ));
            return;
        }
        if len > 0 {
            st.paths.insert(f.insts.len(), len as u32);
        }
    }

    fn block_ref(&mut self, f: &mut Function, st: &mut FnState, id: u32) -> BlockH {
        match self.slot(id) {
            Slot::Label(fi, b) if fi == self.cur_func => b,
            _ => {
                self.unresolved += 1;
                if let Some(b) = st.bad_target {
                    return b;
                }
                let b = f.blocks.append(Block::default());
                st.bad_target = Some(b);
                st.needs_term.push(b);
                b
            }
        }
    }

    /// The IR operation for one function-body instruction (`args` = operands after
    /// the result type and id).
    fn inst_kind(&mut self, f: &mut Function, st: &mut FnState, inst: RawInst, ty: TypeH, args: &[u32]) -> InstKind {
        let op = inst.opcode as u32;
        let arg = |i: usize| args.get(i).copied().unwrap_or(0);
        if let Some(class) = classify(op) {
            return match class {
                Class::Bin(b) => InstKind::Binary { op: b, lhs: self.value(arg(0)), rhs: self.value(arg(1)) },
                Class::Un(u) => InstKind::Unary { op: u, value: self.value(arg(0)) },
                Class::Cast(c) => InstKind::Cast { op: c, value: self.value(arg(0)) },
                Class::IntResize(_) | Class::FloatResize => {
                    let value = self.value(arg(0));
                    let vt = self.value_type(Some(f), value);
                    InstKind::Cast { op: self.resize(class, ty, vt), value }
                }
                Class::Cmp(p) => InstKind::Cmp { pred: CmpPred(p), lhs: self.value(arg(0)), rhs: self.value(arg(1)) },
                Class::Select => InstKind::Select {
                    cond: self.value(arg(0)),
                    if_true: self.value(arg(1)),
                    if_false: self.value(arg(2)),
                },
            };
        }
        match op {
            59 => {
                let alloc = match self.m.types.try_get(ty) {
                    Some(Type::Pointer { pointee, .. }) => *pointee,
                    _ => ty,
                };
                if let Some(&init) = args.get(1) {
                    let v = self.value(init);
                    st.pending_init = Some(v);
                }
                InstKind::Alloca { ty: alloc }
            }
            61 => InstKind::Load { ptr: self.value(arg(0)) },
            62 => InstKind::Store { ptr: self.value(arg(0)), value: self.value(arg(1)) },
            65 | 66 => {
                let base = self.value(arg(0));
                self.charge_access_path(f, st, base, args.len().saturating_sub(1));
                let mut indices = Vec::with_capacity(args.len());
                indices.push(Value::Const(self.u32_const(0)));
                for &i in args.get(1..).unwrap_or(&[]) {
                    indices.push(self.value(i));
                }
                InstKind::Gep { base, indices }
            }
            67 | 70 => {
                let base = self.value(arg(0));
                self.charge_access_path(f, st, base, args.len().saturating_sub(2));
                InstKind::Gep { base, indices: self.values(args.get(1..).unwrap_or(&[])) }
            }
            77 => InstKind::ExtractElement { vector: self.value(arg(0)), index: self.value(arg(1)) },
            78 => InstKind::InsertElement {
                vector: self.value(arg(0)),
                value: self.value(arg(1)),
                index: self.value(arg(2)),
            },
            79 => {
                let a = self.value(arg(0));
                let b = self.value(arg(1));
                let lanes: Vec<Value> =
                    args.get(2..).unwrap_or(&[]).iter().map(|&l| Value::Const(self.u32_const(l))).collect();
                let mask_ty = self.u32_vector_type(lanes.len() as u32);
                let c =
                    self.m.constants.append(Constant { ty: mask_ty, kind: ConstKind::Aggregate(lanes), spec_id: None });
                InstKind::Shuffle { a, b, mask: Value::Const(c) }
            }
            80 => InstKind::Composite { elements: self.values(args) },
            81 => InstKind::ExtractValue {
                agg: self.value(arg(0)),
                indices: crate::ir::Indices::from_slice(args.get(1..).unwrap_or(&[])),
            },
            82 => InstKind::InsertValue {
                agg: self.value(arg(1)),
                value: self.value(arg(0)),
                indices: args.get(2..).unwrap_or(&[]).to_vec(),
            },
            245 => {
                let mut incoming = Vec::with_capacity(args.len() / 2);
                for pair in args.chunks_exact(2) {
                    let v = self.value(pair[0]);
                    let b = self.block_ref(f, st, pair[1]);
                    incoming.push((v, b));
                }
                InstKind::Phi { incoming }
            }
            249 => InstKind::Br { target: self.block_ref(f, st, arg(0)) },
            250 => InstKind::CondBr {
                cond: self.value(arg(0)),
                if_true: self.block_ref(f, st, arg(1)),
                if_false: self.block_ref(f, st, arg(2)),
            },
            251 => {
                let value = self.value(arg(0));
                let default = self.block_ref(f, st, arg(1));
                let wide = self.value_type(Some(f), value).and_then(|t| self.m.int_bits(t)).is_some_and(|b| b > 32);
                let step = if wide { 3 } else { 2 };
                let mut cases = Vec::new();
                for c in args.get(2..).unwrap_or(&[]).chunks_exact(step) {
                    let (lit, label) =
                        if wide { (c[0] as u64 | (c[1] as u64) << 32, c[2]) } else { (c[0] as u64, c[1]) };
                    cases.push((lit, self.block_ref(f, st, label)));
                }
                InstKind::Switch { value, default, cases }
            }
            253 => InstKind::Ret { value: None },
            254 => InstKind::Ret { value: Some(self.value(arg(0))) },
            252 | 255 | 4416 | 4448 | 4449 | 5294 => InstKind::Unreachable,
            57 => match self.slot(arg(0)) {
                Slot::Func(callee) => InstKind::Call {
                    callee: Value::Function(callee),
                    args: self.values(args.get(1..).unwrap_or(&[])),
                    dx_op: None,
                },
                _ => InstKind::Other { opcode: op, operands: self.values(args.get(1..).unwrap_or(&[])).into() },
            },
            12 => {
                // OpExtInst: set, instruction number, then operands (ids).
                let operands = args.get(2..).unwrap_or(&[]).iter().filter_map(|&i| self.try_value(i)).collect();
                InstKind::Other { opcode: op, operands }
            }
            _ => {
                let mut operands = Vec::new();
                match grammar::signature(op) {
                    Some(sig) => {
                        let skip = sig.iter().take_while(|c| matches!(c, b'T' | b'R')).count();
                        self.value_operands(sig.get(skip..).unwrap_or(&[]), args, &mut operands);
                    }
                    None => {
                        let at = self.w.offset(inst);
                        self.remark(|| format!("unknown opcode {op} at byte offset {at} kept"));
                        operands.extend(args.iter().filter_map(|&i| self.try_value(i)));
                    }
                }
                InstKind::Other { opcode: op, operands: operands.into() }
            }
        }
    }

    /// Per-instruction work after it was appended: facts, debug lines.
    fn after_inst(&mut self, f: &Function, fidx: u32, h: InstH, inst: RawInst, args: &[u32]) {
        match inst.opcode {
            4457 | 4458 | 5289..=5292 | 5302 | 5303 => {
                if let Some(fh) = FuncH::from_index(fidx as usize) {
                    self.fact(f, fh, h, inst.opcode as u32, args);
                }
                self.note_access(h, inst.opcode as u32, args);
            }
            61..=64 => self.note_access(h, inst.opcode as u32, args),
            _ => {}
        }
    }

    /// Handles a debug-info ext inst inside a function (not emitted).
    fn debug_ext_inst(&mut self, ops: &[u32]) {
        let [_, _, _, num, a @ ..] = ops else { return };
        match *num {
            dbg::LINE => {
                let file = match a.first().map(|&s| self.slot(s)) {
                    Some(Slot::DbgSource(file)) => file,
                    _ => return,
                };
                let num = |s: &Self, i: usize| {
                    a.get(i).and_then(|&id| s.try_value(id)).and_then(|v| s.m.const_int(v)).unwrap_or(0) as u32
                };
                let (line, column) = (num(self, 1), num(self, 3));
                self.cur_loc = Some(self.m.add_loc(DebugLoc { file, line, column, inlined_at: None }));
            }
            dbg::NO_LINE => self.cur_loc = None,
            _ => {}
        }
    }
}

/// Per-function lowering state.
#[derive(Default)]
struct FnState {
    cur: Option<BlockH>,
    terminated: bool,
    seen_non_phi: bool,
    needs_term: Vec<BlockH>,
    bad_target: Option<BlockH>,
    pending_init: Option<Value>,
    /// `(block, position after the variable, variable, initializer)`.
    inits: Vec<(BlockH, usize, InstH, Value)>,
    /// Index path length of each access chain from its root (through access
    /// chains on access chains), by instruction index.
    paths: rustc_hash::FxHashMap<usize, u32>,
    /// Sum of those lengths over the function.
    path_total: u64,
}

//! Lowering of a split SPIR-V module into the IR: ids, types, constants, globals,
//! functions. Facts are built in `facts.rs`, resources via `decorations.rs`.
//!
//! Ids are resolved through a dense table indexed by id (grown up to the header's
//! bound). Each function is walked twice: the first walk assigns block handles to
//! labels and instruction handles to result ids (so phis and other forward
//! references resolve), the second builds the instructions. Every instruction the
//! first walk counts appends exactly one IR instruction in the second; synthetic
//! instructions (missing terminators, initializer stores) are appended afterwards.

use rustc_hash::FxHashMap;

use super::debug::{self, dbg};
use super::decorations::{self, Annotations, BufferShape};
use super::grammar;
use super::reader::{self, RawInst, Words};
use crate::ir::*;
use crate::read::Result;

/// What an id names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) enum Slot {
    #[default]
    None,
    Type(TypeH),
    Const(ConstH),
    Global(GlobalH),
    Func(FuncH),
    /// Instruction result of function `.0`.
    Inst(u32, InstH),
    /// Parameter `.1` of function `.0`.
    Arg(u32, u32),
    /// Label of function `.0`.
    Label(u32, BlockH),
    /// `OpString` (instruction index).
    Str(u32),
    /// `OpExtInstImport`.
    ExtSet(ExtSet),
    /// `DebugSource` (source-file index).
    DbgSource(u32),
    /// An id defined by an instruction that is not lowered (non-semantic info).
    Dropped,
}

/// Extended instruction sets the lowering distinguishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ExtSet {
    /// `NonSemantic.Shader.DebugInfo.*`: consumed for locations.
    DebugInfo,
    /// Other `NonSemantic.*` sets.
    NonSemantic,
    /// Everything else (`GLSL.std.450`, ...).
    Other,
}

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

/// Limit on remarks per module.
const MAX_REMARKS: usize = 32;

pub(super) struct Lowerer<'a> {
    pub w: &'a Words,
    pub m: Module,
    pub ann: Annotations,
    slots: Vec<Slot>,
    bound: u32,
    /// Per type handle: the SPIR-V id (`u32::MAX` for synthetic types).
    pub type_ids: Vec<u32>,
    /// Per type handle: 1 for signed ints; float encoding + 1 for floats.
    pub type_extra: Vec<u32>,
    /// `OpTypeVectorIdEXT` component-count constants, by type handle.
    pub vec_count: FxHashMap<TypeH, ConstH>,
    /// `OpTypeCooperativeMatrixKHR` operand ids (component, scope, rows, cols, use), by type handle.
    pub coop_matrix: FxHashMap<TypeH, [u32; 5]>,
    /// Buffer resources by global.
    pub global_resource: FxHashMap<GlobalH, ResourceH>,
    void_ty: Option<TypeH>,
    u32_ty: Option<TypeH>,
    u32_consts: FxHashMap<u32, ConstH>,
    poison: Option<ConstH>,
    unresolved: u32,
    cur_loc: Option<LocH>,
    last_source: Option<usize>,
    /// Index of the function being lowered (`u32::MAX` at module scope).
    cur_func: u32,
}

impl<'a> Lowerer<'a> {
    pub fn new(w: &'a Words) -> Self {
        let bound = w.header.bound;
        // Ids are usually dense: size the table once (it still grows up to the bound).
        let slots = vec![Slot::None; (bound as usize).min(w.words.len() + 1)];
        Lowerer {
            w,
            m: Module::new(SourceKind::Spirv),
            ann: Annotations { bound, ..Default::default() },
            slots,
            bound,
            type_ids: Vec::new(),
            type_extra: Vec::new(),
            vec_count: FxHashMap::default(),
            coop_matrix: FxHashMap::default(),
            global_resource: FxHashMap::default(),
            void_ty: None,
            u32_ty: None,
            u32_consts: FxHashMap::default(),
            poison: None,
            unresolved: 0,
            cur_loc: None,
            last_source: None,
            cur_func: u32::MAX,
        }
    }

    pub fn remark(&mut self, text: impl FnOnce() -> String) {
        if self.m.remarks.len() < MAX_REMARKS {
            self.m.remarks.push(text());
        }
    }

    // -----------------------------------------------------------------------
    // Id table.

    pub fn slot(&self, id: u32) -> Slot {
        self.slots.get(id as usize).copied().unwrap_or_default()
    }

    fn set_slot(&mut self, id: u32, s: Slot) {
        if id == 0 || id >= self.bound {
            self.unresolved += 1;
            return;
        }
        let i = id as usize;
        if i >= self.slots.len() {
            let want = (i + 1).max(self.slots.len() * 2).min(self.bound as usize);
            self.slots.resize(want, Slot::None);
        }
        if let Some(x) = self.slots.get_mut(i) {
            *x = s;
        }
    }

    /// The value an id names in the current function, if it is a value.
    pub fn try_value(&self, id: u32) -> Option<Value> {
        match self.slot(id) {
            Slot::Const(c) => Some(Value::Const(c)),
            Slot::Global(g) => Some(Value::Global(g)),
            Slot::Func(f) => Some(Value::Function(f)),
            Slot::Inst(f, h) if f == self.cur_func => Some(Value::Inst(h)),
            Slot::Arg(f, i) if f == self.cur_func => Some(Value::Arg(i)),
            _ => None,
        }
    }

    /// The value an id names, or a poison constant (counted) when it names none.
    pub fn value(&mut self, id: u32) -> Value {
        match self.try_value(id) {
            Some(v) => v,
            None => {
                self.unresolved += 1;
                Value::Const(self.poison())
            }
        }
    }

    fn values(&mut self, ids: &[u32]) -> Vec<Value> {
        ids.iter().map(|&id| self.value(id)).collect()
    }

    pub fn ty(&mut self, id: u32) -> TypeH {
        match self.slot(id) {
            Slot::Type(t) => t,
            _ => {
                self.unresolved += 1;
                self.void()
            }
        }
    }

    fn add_type(&mut self, id: u32, t: Type, extra: u32) -> TypeH {
        // A forward-declared pointer already owns a handle: fill it in.
        if let Slot::Type(h) = self.slot(id) {
            if let Some(slot) = self.type_ids.get(h.index()) {
                if *slot == id {
                    self.m.types[h] = t;
                    if let Some(e) = self.type_extra.get_mut(h.index()) {
                        *e = extra;
                    }
                    return h;
                }
            }
        }
        let h = self.m.types.append(t);
        self.type_ids.push(id);
        self.type_extra.push(extra);
        if id != u32::MAX {
            self.set_slot(id, Slot::Type(h));
        }
        h
    }

    pub fn void(&mut self) -> TypeH {
        if let Some(t) = self.void_ty {
            return t;
        }
        let t = self.add_type(u32::MAX, Type::Void, 0);
        self.void_ty = Some(t);
        t
    }

    fn u32_type(&mut self) -> TypeH {
        if let Some(t) = self.u32_ty {
            return t;
        }
        let t = self.add_type(u32::MAX, Type::Int { bits: 32 }, 0);
        self.u32_ty = Some(t);
        t
    }

    /// An interned 32-bit integer constant (access-chain leading zero, shuffle masks).
    pub fn u32_const(&mut self, v: u32) -> ConstH {
        if let Some(c) = self.u32_consts.get(&v) {
            return *c;
        }
        let ty = self.u32_type();
        let kind = if v == u32::MAX { ConstKind::Undef } else { ConstKind::Int(v as u64) };
        let c = self.m.constants.append(Constant { ty, kind, spec_id: None });
        self.u32_consts.insert(v, c);
        c
    }

    fn poison(&mut self) -> ConstH {
        if let Some(c) = self.poison {
            return c;
        }
        let ty = self.void();
        let c = self.m.constants.append(Constant { ty, kind: ConstKind::Undef, spec_id: None });
        self.poison = Some(c);
        c
    }

    fn span(&self, inst: RawInst, id: u32) -> Span {
        Span { offset: self.w.offset(inst), id, loc: self.cur_loc }
    }

    /// The type of a value in function `f` (None for a function value).
    pub fn value_type(&self, f: Option<&Function>, v: Value) -> Option<TypeH> {
        match v {
            Value::Const(c) => self.m.constants.try_get(c).map(|c| c.ty),
            Value::Global(g) => self.m.globals.try_get(g).map(|g| g.ty),
            Value::Function(_) => None,
            Value::Arg(i) => f?.params.get(i as usize).copied(),
            Value::Inst(h) => f?.insts.try_get(h).map(|i| i.ty),
        }
    }

    fn float_bits(&self, ty: TypeH) -> Option<u16> {
        match self.m.types.try_get(ty)? {
            Type::Float { bits } => Some(*bits),
            Type::Vector { elem, .. } => self.float_bits(*elem),
            _ => None,
        }
    }

    /// The cast for a resize class given result and operand types.
    fn resize(&self, class: Class, result: TypeH, operand: Option<TypeH>) -> CastOp {
        match class {
            Class::IntResize(signed) => {
                let r = self.m.int_bits(result).unwrap_or(0);
                let o = operand.and_then(|t| self.m.int_bits(t)).unwrap_or(0);
                if r < o {
                    CastOp::Trunc
                } else if signed {
                    CastOp::SExt
                } else {
                    CastOp::ZExt
                }
            }
            _ => {
                let r = self.float_bits(result).unwrap_or(0);
                let o = operand.and_then(|t| self.float_bits(t)).unwrap_or(0);
                if r < o {
                    CastOp::FpTrunc
                } else {
                    CastOp::FpExt
                }
            }
        }
    }

    // -----------------------------------------------------------------------
    // Driver.

    pub fn run(mut self) -> Result<Module> {
        let w = self.w;
        let (major, minor) = w.header.version_pair();
        self.m.target = Some(format!("spirv {major}.{minor}"));
        self.m.producer = Some(debug::producer(w.header.generator));
        self.prepass();
        let mut i = 0;
        while let Some(&inst) = w.insts.get(i) {
            if inst.opcode == 54 {
                i = self.function(i);
            } else {
                self.module_inst(inst);
                i += 1;
            }
        }
        if self.unresolved > 0 {
            let n = self.unresolved;
            self.remark(|| format!("{n} operand id(s) did not name a value or type; replaced by undef"));
        }
        Ok(self.m)
    }

    fn prepass(&mut self) {
        let w = self.w;
        let mut groups = Vec::new();
        let mut nfuncs = 0usize;
        let (mut ntypes, mut nconsts, mut nglobals) = (0usize, 0usize, 0usize);
        for (k, &inst) in w.insts.iter().enumerate() {
            if self.ann.record(w, inst, &mut groups) {
                continue;
            }
            let ops = w.operands(inst);
            match inst.opcode {
                7 => {
                    if let Some(&id) = ops.first() {
                        self.set_slot(id, Slot::Str(k as u32));
                    }
                }
                11 => {
                    if let Some((&id, name)) = ops.split_first() {
                        let kind = if reader::string_starts_with(name, "NonSemantic.Shader.DebugInfo") {
                            ExtSet::DebugInfo
                        } else if reader::string_starts_with(name, "NonSemantic.") {
                            ExtSet::NonSemantic
                        } else {
                            ExtSet::Other
                        };
                        self.set_slot(id, Slot::ExtSet(kind));
                    }
                }
                54 => {
                    if let (Some(&id), Some(h)) = (ops.get(1), FuncH::from_index(nfuncs)) {
                        self.set_slot(id, Slot::Func(h));
                    }
                    nfuncs += 1;
                }
                19..=39 => ntypes += 1,
                41..=52 => nconsts += 1,
                59 => nglobals += 1,
                _ => {}
            }
        }
        // Reserve the arenas (bounded by the instruction count, hence by the input size).
        self.m.types = Arena::with_capacity(ntypes + 2);
        self.type_ids.reserve(ntypes + 2);
        self.type_extra.reserve(ntypes + 2);
        self.m.constants = Arena::with_capacity(nconsts + 2);
        self.m.globals = Arena::with_capacity(nglobals);
        self.m.functions = Arena::with_capacity(nfuncs);
        self.ann.apply_groups(w, &groups);
    }

    fn string_of(&self, id: u32) -> Option<String> {
        let Slot::Str(k) = self.slot(id) else { return None };
        let inst = *self.w.insts.get(k as usize)?;
        Some(reader::string(self.w.operands(inst).get(1..)?).0)
    }

    fn file_of_string(&mut self, id: u32) -> Option<u32> {
        let name = self.string_of(id)?;
        Some(self.m.source_file_index(&name))
    }

    // -----------------------------------------------------------------------
    // Module scope.

    fn module_inst(&mut self, inst: RawInst) {
        let w = self.w;
        let ops = w.operands(inst);
        let op = inst.opcode as u32;
        match op {
            // Annotations, strings, imports: handled by the prepass. Capabilities,
            // extensions, memory model, execution modes: nothing to lower.
            0 | 4..=7 | 10 | 11 | 14 | 16 | 17 | 71..=75 | 330..=332 | 5632 | 5633 => {}
            3 => self.op_source(ops),
            2 => {
                let text = reader::string(ops).0;
                if let Some(f) = self.last_source.and_then(|i| self.m.source_files.get_mut(i)) {
                    f.text.get_or_insert_with(String::new).push_str(&text);
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

    fn op_source(&mut self, ops: &[u32]) {
        let file = ops.get(2).and_then(|&id| self.file_of_string(id));
        let text = ops.get(3..).filter(|t| !t.is_empty()).map(|t| reader::string(t).0);
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

    fn op_line(&mut self, ops: &[u32]) {
        if let [file, line, column, ..] = *ops {
            let file = self.file_of_string(file).unwrap_or(u32::MAX);
            if file == u32::MAX {
                self.cur_loc = None;
                return;
            }
            self.cur_loc = Some(self.m.add_loc(DebugLoc { file, line, column, inlined_at: None }));
        }
    }

    fn entry_point(&mut self, ops: &[u32]) {
        let [model, func, name @ ..] = ops else { return };
        let function = match self.slot(*func) {
            Slot::Func(f) => Some(f),
            _ => None,
        };
        let name = reader::string(name).0;
        self.m.entry_points.push(EntryPoint { name, function, stage: debug::stage(*model) });
    }

    fn type_inst(&mut self, inst: RawInst, ops: &[u32]) {
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

    fn constant(&mut self, inst: RawInst, ops: &[u32]) {
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
        let c = self.m.constants.append(Constant { ty, kind, spec_id });
        self.set_slot(id, Slot::Const(c));
        if let Some(sid) = spec_id {
            if let Some(name) = self.ann.name(self.w, id) {
                self.m.spec_names.push((sid, name));
            }
        }
    }

    fn literal(&self, ty: TypeH, words: &[u32]) -> ConstKind {
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
    fn spec_op(&mut self, ty: TypeH, a: &[u32]) -> ConstExpr {
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

    fn global(&mut self, inst: RawInst, ops: &[u32]) {
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
        self.resource(g, id, value_ty, sc, span);
    }

    fn resource(&mut self, g: GlobalH, id: u32, value_ty: TypeH, sc: u32, span: Span) {
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
        };
        let Some((class, kind, stride, binding)) = decorations::classify(&shape) else { return };
        let name = self.ann.name(self.w, id).or_else(|| struct_name.clone());
        let r = self.m.resources.append(Resource { class, kind, name, binding, stride, id, span });
        self.global_resource.insert(g, r);
    }

    fn module_ext_inst(&mut self, inst: RawInst, ops: &[u32]) {
        let &[ty_id, id, set, num, ref a @ ..] = ops else { return };
        match self.slot(set) {
            Slot::ExtSet(ExtSet::DebugInfo) => {
                let mut slot = Slot::Dropped;
                if num == dbg::SOURCE {
                    if let Some(file) = a.first().and_then(|&s| self.file_of_string(s)) {
                        if let Some(text) = a.get(1).and_then(|&t| self.string_of(t)) {
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
                    if let Some(text) = a.first().and_then(|&t| self.string_of(t)) {
                        if let Some(f) = self.last_source.and_then(|i| self.m.source_files.get_mut(i)) {
                            f.text.get_or_insert_with(String::new).push_str(&text);
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
    fn global_variable_loc(&mut self, a: &[u32]) {
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
    fn module_other(&mut self, inst: RawInst, ops: &[u32]) {
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
    pub fn value_operands(&mut self, sig: &[u8], args: &[u32], out: &mut Vec<Value>) {
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

    // -----------------------------------------------------------------------
    // Functions.

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
    fn function(&mut self, start: usize) -> usize {
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
        self.m.functions.append(f);
        self.cur_func = u32::MAX;
        self.cur_loc = None;
        match w.insts.get(end) {
            Some(i) if i.opcode == 56 => end + 1,
            _ => end,
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
                let mut indices = Vec::with_capacity(args.len());
                indices.push(Value::Const(self.u32_const(0)));
                for &i in args.get(1..).unwrap_or(&[]) {
                    indices.push(self.value(i));
                }
                InstKind::Gep { base, indices }
            }
            67 | 70 => {
                let base = self.value(arg(0));
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
                let mask_ty = self.u32_type();
                let c =
                    self.m.constants.append(Constant { ty: mask_ty, kind: ConstKind::Aggregate(lanes), spec_id: None });
                InstKind::Shuffle { a, b, mask: Value::Const(c) }
            }
            80 => InstKind::Composite { elements: self.values(args) },
            81 => InstKind::ExtractValue { agg: self.value(arg(0)), indices: args.get(1..).unwrap_or(&[]).to_vec() },
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
                _ => InstKind::Other { opcode: op, operands: self.values(args.get(1..).unwrap_or(&[])) },
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
                InstKind::Other { opcode: op, operands }
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
            }
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
}

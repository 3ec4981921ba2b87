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

use super::debug;
use super::decorations::Annotations;
use super::function::Class;
use super::reader::{self, RawInst, Words};
use crate::ir::*;
use crate::read::{limits, ErrorKind, ReadError, Result};

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

/// Limit on remarks per module.
const MAX_REMARKS: usize = 32;

pub(super) struct Lowerer<'a> {
    pub(super) w: &'a Words,
    pub(super) m: Module,
    pub(super) ann: Annotations,
    pub(super) slots: Vec<Slot>,
    pub(super) bound: u32,
    /// Per type handle: the SPIR-V id (`u32::MAX` for synthetic types).
    pub(super) type_ids: Vec<u32>,
    /// Per type handle: 1 for signed ints; float encoding + 1 for floats.
    pub(super) type_extra: Vec<u32>,
    /// `OpTypeVectorIdEXT` component-count constants, by type handle.
    pub(super) vec_count: FxHashMap<TypeH, ConstH>,
    /// `OpTypeCooperativeMatrixKHR` operand ids (component, scope, rows, cols, use), by type handle.
    pub(super) coop_matrix: FxHashMap<TypeH, [u32; 5]>,
    /// Buffer resources by global.
    pub(super) global_resource: FxHashMap<GlobalH, ResourceH>,
    pub(super) void_ty: Option<TypeH>,
    pub(super) u32_ty: Option<TypeH>,
    pub(super) u32_consts: FxHashMap<u32, ConstH>,
    pub(super) u32_vectors: FxHashMap<u32, TypeH>,
    pub(super) poison: Option<ConstH>,
    pub(super) unresolved: u32,
    pub(super) cur_loc: Option<LocH>,
    pub(super) last_source: Option<usize>,
    /// Index of the function being lowered (`u32::MAX` at module scope).
    pub(super) cur_func: u32,
    /// Per type handle: nesting depth (pointers and scalars are 1).
    pub(super) type_depth: Vec<u32>,
    /// Ids reserved by `OpTypeForwardPointer` and not yet declared.
    pub(super) forward_pointers: rustc_hash::FxHashSet<u32>,
    /// Byte offset of the module-scope instruction being lowered.
    pub(super) cur_at: u64,
    /// The first structural error (a type declared twice or nested too deep):
    /// lowering stops and the module is an input error.
    pub(super) error: Option<ReadError>,
    /// Source-file index by `OpString` id (each name decoded once).
    pub(super) file_by_string: FxHashMap<u32, u32>,
    /// Source-file index by name (interned in O(1), not by a linear search).
    pub(super) file_by_name: FxHashMap<String, u32>,
    /// Bytes of embedded source text copied so far (see
    /// [`limits::MAX_SOURCE_TEXT_BYTES`]).
    pub(super) source_bytes: u64,
    /// Index path length of `OpSpecConstantOp` access chains from their root.
    pub(super) const_paths: FxHashMap<ConstH, u32>,
    /// Accesses of the function being lowered whose address alignment the
    /// access rules check: `(instruction, opcode, operands after the result)`.
    pub(super) pending_access: Vec<(InstH, u32, Vec<u32>)>,
}

impl<'a> Lowerer<'a> {
    pub(super) fn new(w: &'a Words) -> Self {
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
            u32_vectors: FxHashMap::default(),
            poison: None,
            unresolved: 0,
            cur_loc: None,
            last_source: None,
            cur_func: u32::MAX,
            type_depth: Vec::new(),
            forward_pointers: Default::default(),
            cur_at: 0,
            error: None,
            file_by_string: FxHashMap::default(),
            file_by_name: FxHashMap::default(),
            source_bytes: 0,
            const_paths: FxHashMap::default(),
            pending_access: Vec::new(),
        }
    }

    /// Records a structural error at the current instruction (the first one wins).
    pub(super) fn fail(&mut self, detail: String) {
        if self.error.is_none() {
            self.error = Some(ReadError::new(ErrorKind::Malformed, self.cur_at, detail));
        }
    }

    /// Nesting depth of a type built from already-declared types.
    fn depth_of(&self, t: &Type) -> u32 {
        let d = |h: &TypeH| self.type_depth.get(h.index()).copied().unwrap_or(1);
        match t {
            Type::Vector { elem, .. } | Type::Array { elem, .. } => 1 + d(elem),
            Type::Struct { members, .. } => 1 + members.iter().map(d).max().unwrap_or(0),
            Type::Function { ret, params } => 1 + params.iter().map(d).max().unwrap_or(0).max(d(ret)),
            _ => 1,
        }
    }

    pub(super) fn remark(&mut self, text: impl FnOnce() -> String) {
        if self.m.remarks.len() < MAX_REMARKS {
            self.m.remarks.push(text());
        }
    }

    // -----------------------------------------------------------------------
    // Id table.

    pub(super) fn slot(&self, id: u32) -> Slot {
        self.slots.get(id as usize).copied().unwrap_or_default()
    }

    pub(super) fn set_slot(&mut self, id: u32, s: Slot) {
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
    pub(super) fn try_value(&self, id: u32) -> Option<Value> {
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
    pub(super) fn value(&mut self, id: u32) -> Value {
        match self.try_value(id) {
            Some(v) => v,
            None => {
                self.unresolved += 1;
                Value::Const(self.poison())
            }
        }
    }

    pub(super) fn values(&mut self, ids: &[u32]) -> Vec<Value> {
        ids.iter().map(|&id| self.value(id)).collect()
    }

    pub(super) fn ty(&mut self, id: u32) -> TypeH {
        match self.slot(id) {
            Slot::Type(t) => t,
            _ => {
                self.unresolved += 1;
                self.void()
            }
        }
    }

    pub(super) fn add_type(&mut self, id: u32, t: Type, extra: u32) -> TypeH {
        if let Slot::Type(h) = self.slot(id) {
            if self.type_ids.get(h.index()) == Some(&id) {
                // A forward-declared pointer already owns a handle: fill it in.
                // Anything else would let a type contain itself (`%t = OpTypeVector %t 4`
                // after an earlier `%t`), so a second declaration is an error.
                if matches!(t, Type::Pointer { .. }) && self.forward_pointers.remove(&id) {
                    self.m.types[h] = t;
                    if let Some(e) = self.type_extra.get_mut(h.index()) {
                        *e = extra;
                    }
                    return h;
                }
                let what = if self.forward_pointers.contains(&id) {
                    "forward-declared as a pointer but declared as a non-pointer type"
                } else {
                    "declared twice"
                };
                self.fail(format!("type id %{id} is {what}"));
                return h;
            }
        }
        let depth = self.depth_of(&t);
        if depth > limits::MAX_TYPE_DEPTH {
            self.fail(format!("type %{id} nests {depth} levels deep, over the limit of {}", limits::MAX_TYPE_DEPTH));
        }
        let h = self.m.types.append(t);
        self.type_ids.push(id);
        self.type_extra.push(extra);
        self.type_depth.push(depth);
        if id != u32::MAX {
            self.set_slot(id, Slot::Type(h));
        }
        h
    }

    pub(super) fn void(&mut self) -> TypeH {
        if let Some(t) = self.void_ty {
            return t;
        }
        let t = self.add_type(u32::MAX, Type::Void, 0);
        self.void_ty = Some(t);
        t
    }

    /// A synthetic `<n x i32>` type (shuffle masks), one per lane count.
    pub(super) fn u32_vector_type(&mut self, n: u32) -> TypeH {
        if let Some(t) = self.u32_vectors.get(&n) {
            return *t;
        }
        let elem = self.u32_type();
        let t = self.add_type(u32::MAX, Type::Vector { elem, count: n }, 0);
        self.u32_vectors.insert(n, t);
        t
    }

    pub(super) fn u32_type(&mut self) -> TypeH {
        if let Some(t) = self.u32_ty {
            return t;
        }
        let t = self.add_type(u32::MAX, Type::Int { bits: 32 }, 0);
        self.u32_ty = Some(t);
        t
    }

    /// An interned 32-bit integer constant (access-chain leading zero, shuffle masks).
    pub(super) fn u32_const(&mut self, v: u32) -> ConstH {
        if let Some(c) = self.u32_consts.get(&v) {
            return *c;
        }
        let ty = self.u32_type();
        let kind = if v == u32::MAX { ConstKind::Undef } else { ConstKind::Int(v as u64) };
        let c = self.m.constants.append(Constant { ty, kind, spec_id: None });
        self.u32_consts.insert(v, c);
        c
    }

    pub(super) fn poison(&mut self) -> ConstH {
        if let Some(c) = self.poison {
            return c;
        }
        let ty = self.void();
        let c = self.m.constants.append(Constant { ty, kind: ConstKind::Undef, spec_id: None });
        self.poison = Some(c);
        c
    }

    pub(super) fn span(&self, inst: RawInst, id: u32) -> Span {
        Span { offset: self.w.offset(inst), id, loc: self.cur_loc }
    }

    /// The type of a value in function `f` (None for a function value).
    pub(super) fn value_type(&self, f: Option<&Function>, v: Value) -> Option<TypeH> {
        match v {
            Value::Const(c) => self.m.constants.try_get(c).map(|c| c.ty),
            Value::Global(g) => self.m.globals.try_get(g).map(|g| g.ty),
            Value::Function(_) => None,
            Value::Arg(i) => f?.params.get(i as usize).copied(),
            Value::Inst(h) => f?.insts.try_get(h).map(|i| i.ty),
        }
    }

    pub(super) fn float_bits(&self, ty: TypeH) -> Option<u16> {
        self.m.scalar_of(ty).and_then(|t| match self.m.types.try_get(t)? {
            Type::Float { bits } => Some(*bits),
            _ => None,
        })
    }

    /// The cast for a resize class given result and operand types.
    pub(super) fn resize(&self, class: Class, result: TypeH, operand: Option<TypeH>) -> CastOp {
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

    pub(super) fn run(mut self) -> Result<Module> {
        let w = self.w;
        let (major, minor) = w.header.version_pair();
        self.m.target = Some(format!("spirv {major}.{minor}"));
        self.m.producer = Some(debug::producer(w.header.generator));
        layout(w)?;
        self.prepass();
        let mut i = 0;
        while let Some(&inst) = w.insts.get(i) {
            if inst.opcode == 54 {
                i = self.function(i);
            } else {
                self.cur_at = w.offset(inst);
                self.module_inst(inst);
                i += 1;
            }
            if let Some(e) = self.error.take() {
                return Err(e);
            }
        }
        if self.unresolved > 0 {
            let n = self.unresolved;
            self.remark(|| format!("{n} operand id(s) did not name a value or type; replaced by undef"));
        }
        Ok(self.m)
    }

    pub(super) fn prepass(&mut self) {
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

    /// The words of the literal string an `OpString` id holds.
    pub(super) fn string_words_of(&self, id: u32) -> Option<&'a [u32]> {
        let Slot::Str(k) = self.slot(id) else { return None };
        let w = self.w;
        let inst = *w.insts.get(k as usize)?;
        w.operands(inst).get(1..)
    }

    pub(super) fn string_of(&self, id: u32) -> Option<String> {
        Some(reader::string(self.string_words_of(id)?).0)
    }

    /// The source-file index an `OpString` id names: each id is decoded once
    /// and each name interned by hash, so N `OpLine`s naming N files cost O(N).
    pub(super) fn file_of_string(&mut self, id: u32) -> Option<u32> {
        if let Some(&f) = self.file_by_string.get(&id) {
            return Some(f);
        }
        let name = self.string_of(id)?;
        let f = self.file_named(name);
        self.file_by_string.insert(id, f);
        Some(f)
    }

    /// Interns a source-file name.
    pub(super) fn file_named(&mut self, name: String) -> u32 {
        if let Some(&f) = self.file_by_name.get(&name) {
            return f;
        }
        let f = self.m.source_files.len() as u32;
        self.m.source_files.push(SourceFile { name: name.clone(), text: None });
        self.file_by_name.insert(name, f);
        f
    }

    /// Decodes embedded source text, charging it to the module's allowance
    /// ([`limits::MAX_SOURCE_TEXT_BYTES`]) before anything is copied; `None`
    /// (and one remark) once the allowance is spent.
    pub(super) fn source_text(&mut self, words: &[u32]) -> Option<String> {
        if self.source_bytes > limits::MAX_SOURCE_TEXT_BYTES {
            return None;
        }
        let cost = (reader::string_words(words) as u64).saturating_mul(4);
        let total = self.source_bytes.saturating_add(cost);
        if total > limits::MAX_SOURCE_TEXT_BYTES {
            if self.source_bytes <= limits::MAX_SOURCE_TEXT_BYTES {
                let at = self.cur_at;
                self.remark(|| {
                    format!(
                        "embedded source text past {} bytes dropped (from byte offset {at} on)",
                        limits::MAX_SOURCE_TEXT_BYTES
                    )
                });
            }
            self.source_bytes = limits::MAX_SOURCE_TEXT_BYTES.saturating_add(1);
            return None;
        }
        self.source_bytes = total;
        Some(reader::string(words).0)
    }
}

/// The module-level structure the logical layout (SPIR-V spec §2.4) requires
/// and a module cut at an instruction boundary lacks: exactly one
/// `OpMemoryModel`; every `OpFunction` closed by an `OpFunctionEnd` before the
/// next one and before the module ends; every `OpEntryPoint` and
/// `OpFunctionCall` naming a function the module defines; and something to
/// check — an entry point, a function, or the `Linkage` capability of a
/// library. Each failure is an input error at the offending instruction (or at
/// the end of the module).
fn layout(w: &Words) -> Result<()> {
    const OP_CAPABILITY: u16 = 17;
    const OP_MEMORY_MODEL: u16 = 14;
    const OP_ENTRY_POINT: u16 = 15;
    const OP_FUNCTION: u16 = 54;
    const OP_FUNCTION_END: u16 = 56;
    const OP_FUNCTION_CALL: u16 = 57;
    // SPV_ARM_graph: OpGraphEntryPointARM, OpGraphARM, OpGraphEndARM.
    const OP_GRAPH_ENTRY_POINT_ARM: u16 = 4182;
    const OP_GRAPH_ARM: u16 = 4183;
    const OP_GRAPH_END_ARM: u16 = 4186;
    const CAP_LINKAGE: u32 = 5;
    let end = w.word_offset(w.words.len());
    let mut memory_model = None;
    let mut linkage = false;
    let mut functions = rustc_hash::FxHashSet::default();
    let mut graphs = 0usize;
    // (function id, offset) of the function being walked.
    let mut open: Option<(u32, u64)> = None;
    let mut open_graph: Option<u64> = None;
    for &inst in &w.insts {
        let ops = w.operands(inst);
        let at = w.offset(inst);
        match inst.opcode {
            OP_CAPABILITY => linkage |= ops.first() == Some(&CAP_LINKAGE),
            OP_MEMORY_MODEL => {
                if let Some(first) = memory_model {
                    return Err(ReadError::malformed(
                        at,
                        format!(
                            "a second OpMemoryModel (the first is at byte offset {first}); a module has exactly one"
                        ),
                    ));
                }
                memory_model = Some(at);
            }
            OP_FUNCTION => {
                let id = ops.get(1).copied().unwrap_or(0);
                if let Some((prev, from)) = open {
                    return Err(ReadError::malformed(
                        at,
                        format!(
                            "function %{prev} (at byte offset {from}) has no OpFunctionEnd before the next OpFunction"
                        ),
                    ));
                }
                functions.insert(id);
                open = Some((id, at));
            }
            OP_FUNCTION_END if open.take().is_none() => {
                return Err(ReadError::malformed(at, "OpFunctionEnd outside a function"));
            }
            OP_GRAPH_ENTRY_POINT_ARM => graphs += 1,
            OP_GRAPH_ARM => {
                graphs += 1;
                open_graph = Some(at);
            }
            OP_GRAPH_END_ARM => open_graph = None,
            _ => {}
        }
    }
    if let Some(from) = open_graph {
        return Err(ReadError::malformed(
            end,
            format!("the module ends inside the graph at byte offset {from}: no OpGraphEndARM (truncated module?)"),
        ));
    }
    if let Some((id, from)) = open {
        return Err(ReadError::malformed(
            end,
            format!(
                "the module ends inside function %{id} (at byte offset {from}): no OpFunctionEnd (truncated module?)"
            ),
        ));
    }
    if memory_model.is_none() {
        let at = w.insts.first().map_or(end, |&i| w.offset(i));
        return Err(ReadError::malformed(
            at,
            "no OpMemoryModel: the SPIR-V logical layout requires exactly one (truncated module?)",
        ));
    }
    let mut entry_points = 0usize;
    for &inst in &w.insts {
        let ops = w.operands(inst);
        let (what, callee) = match inst.opcode {
            OP_ENTRY_POINT => {
                entry_points += 1;
                ("OpEntryPoint", ops.get(1))
            }
            OP_FUNCTION_CALL => ("OpFunctionCall", ops.get(2)),
            _ => continue,
        };
        let callee = callee.copied().unwrap_or(0);
        if !functions.contains(&callee) {
            return Err(ReadError::malformed(
                w.offset(inst),
                format!("{what} names %{callee}, which no OpFunction defines (truncated module?)"),
            ));
        }
    }
    if entry_points == 0 && functions.is_empty() && graphs == 0 && !linkage {
        return Err(ReadError::malformed(
            end,
            "the module has no OpEntryPoint, no function, no graph and no Linkage capability: nothing to check \
             (truncated module?)",
        ));
    }
    Ok(())
}

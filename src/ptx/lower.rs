//! PTX syntax tree → IR. Module scope (globals, functions, entry points,
//! source files) here; function bodies in [`body`] (with [`ssa`], [`operands`],
//! [`compute`] and [`ops`]).

mod body;
mod compute;
mod dom;
mod fact_shapes;
mod locals;
mod members;
mod names;
mod operands;
mod ops;
mod phis;
mod slice;
mod ssa;

use super::lex::error_at;
use super::parse::{FuncDecl, PtxModule, Space, VarDecl};
use super::scalar_type;
use crate::ir::{
    ConstH, ConstKind, Constant, EntryPoint, FuncH, Function, Global, Module, OpSemantics, SourceKind, Span, Type,
    TypeH, Value,
};
use crate::read::limits::MAX_PTX_SWITCH_EDGES;
use crate::read::{ErrorKind, Result};
use rustc_hash::FxHashMap;

/// Module-wide lowering state: interned types, constants and opcode names.
pub(super) struct Cx<'a> {
    pub m: Module,
    types: FxHashMap<TypeKey, TypeH>,
    consts: FxHashMap<(TypeH, u8, u64), ConstH>,
    op_names: FxHashMap<&'a str, u32>,
    pub globals: FxHashMap<&'a str, Value>,
    /// The parsed `.target`.
    pub target: Option<crate::ir::PtxTarget>,
    /// Lower only what the rules read (see [`slice`]).
    pub sliced: bool,
    /// Facts recognised once per word and operand shape.
    fact_shapes: fact_shapes::FactShapes,
    /// Instruction word → index into `infos` (and `accesses`, `word_ops`).
    op_info: FxHashMap<&'a str, u32>,
    infos: Vec<ops::OpInfo<'a>>,
    /// The memory access each word makes, if any.
    accesses: Vec<Option<crate::ir::AccessForm>>,
    /// Each word's index in `m.op_names`, given when first needed (`u32::MAX`: not yet).
    word_ops: Vec<u32>,
    /// The word asked last and its index.
    last_word: Option<(&'a str, u32)>,
    /// Each packing `mov` word's [`OpSemantics::Pack`] entry in `m.op_names`,
    /// by word index, given when first needed (`u32::MAX`: not yet).
    pack_ops: Vec<u32>,
    /// `i32` and `i64` constants below 64, once made (see [`Cx::const_int`]).
    small_ints: [[Option<ConstH>; 64]; 2],
    /// The tuple type asked last (see [`Cx::tuple_of`]).
    last_tuple: Option<(Vec<TypeH>, TypeH)>,
    t_bool: Option<TypeH>,
    t_i32: Option<TypeH>,
    t_i64: Option<TypeH>,
    t_void: Option<TypeH>,
    /// `.file` index → index into `m.source_files`.
    pub files: FxHashMap<u32, u32>,
    /// Source file name → index into `m.source_files` (interned by hash: a
    /// module may name hundreds of thousands of files).
    file_names: FxHashMap<Box<str>, u32>,
    /// SSA-construction work charged so far in the module ([`MAX_PTX_SSA_WORK`]).
    pub ssa_work: u64,
    /// `brx.idx` edges created so far in the module ([`MAX_PTX_SWITCH_EDGES`]).
    switch_edges: usize,
}

/// The IR type a PTX type word stands for, before it is interned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scalar {
    Bool,
    Float(u16),
    Int(u16),
}

/// [`Scalar`] of a PTX type word (`.b32` → i32, `.f32` → f32, `.pred` → bool;
/// packed words by their width, anything else i32).
pub(super) fn scalar_of(word: Option<&str>) -> Scalar {
    match word.and_then(scalar_type) {
        Some((b'p', _)) => Scalar::Bool,
        Some((b'f', bits)) => Scalar::Float(bits),
        Some((_, bits)) => Scalar::Int(bits),
        None => match word.map(|w| w.trim_start_matches('.')) {
            Some("f16x2" | "bf16x2" | "e4m3x2" | "e5m2x2") => Scalar::Int(32),
            Some("bf16" | "e4m3x4") => Scalar::Int(16),
            _ => Scalar::Int(32),
        },
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum TypeKey {
    Void,
    Bool,
    Int(u16),
    Float(u16),
    Array(TypeH, Option<u64>),
    Ptr(TypeH, u32),
    Tuple(Vec<TypeH>),
}

impl<'a> Cx<'a> {
    fn ty(&mut self, key: TypeKey) -> TypeH {
        if let Some(h) = self.types.get(&key) {
            return *h;
        }
        let t = match &key {
            TypeKey::Void => Type::Void,
            TypeKey::Bool => Type::Bool,
            TypeKey::Int(b) => Type::Int { bits: *b },
            TypeKey::Float(b) => Type::Float { bits: *b },
            TypeKey::Array(e, n) => Type::Array { elem: *e, count: *n, stride: None },
            TypeKey::Ptr(p, s) => Type::Pointer { pointee: *p, space: *s },
            TypeKey::Tuple(v) => Type::Struct { name: None, members: v.clone() },
        };
        let h = self.m.types.append(t);
        self.types.insert(key, h);
        h
    }

    pub fn void(&mut self) -> TypeH {
        if let Some(t) = self.t_void {
            return t;
        }
        let t = self.ty(TypeKey::Void);
        self.t_void = Some(t);
        t
    }

    pub fn int(&mut self, bits: u16) -> TypeH {
        let slot = match bits {
            1 => &mut self.t_bool,
            32 => &mut self.t_i32,
            64 => &mut self.t_i64,
            _ => return self.ty(TypeKey::Int(bits)),
        };
        if let Some(t) = *slot {
            return t;
        }
        let t = self.ty(if bits == 1 { TypeKey::Bool } else { TypeKey::Int(bits) });
        match bits {
            1 => self.t_bool = Some(t),
            32 => self.t_i32 = Some(t),
            _ => self.t_i64 = Some(t),
        }
        t
    }

    /// The cached facts about an instruction word, with the word's index
    /// for [`Cx::word_op`] and [`Cx::word_access`].
    fn op_info(&mut self, word: &'a str) -> (u32, ops::OpInfo<'a>) {
        // Half the instructions repeat the word before them.
        if let Some((last, k)) = self.last_word {
            if last == word {
                if let Some(i) = self.infos.get(k as usize) {
                    return (k, *i);
                }
            }
        }
        if let Some(&k) = self.op_info.get(word) {
            self.last_word = Some((word, k));
            if let Some(i) = self.infos.get(k as usize) {
                return (k, *i);
            }
        }
        let (i, access) = ops::OpInfo::new(self, word);
        let k = self.infos.len() as u32;
        self.infos.push(i);
        self.accesses.push(access);
        self.word_ops.push(u32::MAX);
        self.pack_ops.push(u32::MAX);
        self.op_info.insert(word, k);
        self.last_word = Some((word, k));
        (k, i)
    }

    /// The memory access of the word with index `k` (from [`Cx::op_info`]).
    fn word_access(&self, k: u32) -> Option<crate::ir::AccessForm> {
        self.accesses.get(k as usize).copied().flatten()
    }

    /// [`Cx::op_name`] of the word `word` with index `k` (from [`Cx::op_info`]),
    /// hashed once per word.
    fn word_op(&mut self, k: u32, word: &'a str) -> u32 {
        if let Some(&n) = self.word_ops.get(k as usize) {
            if n != u32::MAX {
                return n;
            }
        }
        let n = self.op_name(word);
        if let Some(slot) = self.word_ops.get_mut(k as usize) {
            *slot = n;
        }
        n
    }

    pub fn float(&mut self, bits: u16) -> TypeH {
        self.ty(TypeKey::Float(bits))
    }

    pub fn tuple(&mut self, members: Vec<TypeH>) -> TypeH {
        self.ty(TypeKey::Tuple(members))
    }

    /// [`Cx::tuple`] of a slice; the tuple asked last (the results of a run
    /// of `ld.v4` or `mma`) is found without allocating or hashing.
    pub fn tuple_of(&mut self, members: &[TypeH]) -> TypeH {
        if let Some((m, t)) = &self.last_tuple {
            if m.as_slice() == members {
                return *t;
            }
        }
        let t = self.ty(TypeKey::Tuple(members.to_vec()));
        match &mut self.last_tuple {
            Some((m, last)) => {
                m.clear();
                m.extend_from_slice(members);
                *last = t;
            }
            None => self.last_tuple = Some((members.to_vec(), t)),
        }
        t
    }

    /// The IR type of a PTX type word (`.b32` → i32, `.f32` → f32, `.pred` → bool).
    pub fn scalar(&mut self, word: Option<&str>) -> TypeH {
        self.scalar_ty(scalar_of(word))
    }

    /// The IR type of a [`Scalar`].
    pub fn scalar_ty(&mut self, s: Scalar) -> TypeH {
        match s {
            Scalar::Bool => self.ty(TypeKey::Bool),
            Scalar::Float(bits) => self.float(bits),
            Scalar::Int(bits) => self.int(bits),
        }
    }

    /// The declared (value) type of a variable: scalar, vector or array of it.
    pub fn decl_type(&mut self, d: &VarDecl<'_>) -> TypeH {
        let mut t = self.scalar(d.ty);
        if let Some(n) = d.vector {
            t = self.ty(TypeKey::Array(t, Some(u64::from(n))));
        }
        for dim in d.dims.iter().rev() {
            t = self.ty(TypeKey::Array(t, *dim));
        }
        t
    }

    /// Adds a variable with static storage (a module-scope declaration, or a
    /// `.shared` one inside a function) as a global, recording its alignment.
    pub fn add_global(&mut self, d: &VarDecl<'_>) -> Value {
        let g = global(self, d);
        let h = self.m.globals.append(g);
        let i = h.index();
        if self.m.global_align.len() <= i {
            self.m.global_align.resize(i + 1, 0);
        }
        self.m.global_align[i] = decl_align(d);
        Value::Global(h)
    }

    pub fn ptr(&mut self, pointee: TypeH, space: u32) -> TypeH {
        self.ty(TypeKey::Ptr(pointee, space))
    }

    fn constant(&mut self, ty: TypeH, tag: u8, bits: u64, kind: ConstKind) -> Value {
        let consts = &mut self.m.constants;
        let c =
            *self.consts.entry((ty, tag, bits)).or_insert_with(|| consts.append(Constant { ty, kind, spec_id: None }));
        Value::Const(c)
    }

    /// An integer constant masked to the type's width.
    pub fn const_int(&mut self, ty: TypeH, v: u64) -> Value {
        // 32- and 64-bit constants below 64 (offsets, shifts, masks, counts)
        // from a table, without hashing.
        let small = match (v < 64, Some(ty)) {
            (true, t) if t == self.t_i32 => Some(0),
            (true, t) if t == self.t_i64 => Some(1),
            _ => None,
        };
        if let Some(s) = small {
            if let Some(c) = self.small_ints[s][v as usize] {
                return Value::Const(c);
            }
        }
        let bits = self.m.int_bits(ty).unwrap_or(64);
        let v = if bits >= 64 { v } else { v & ((1u64 << bits) - 1) };
        let r = self.constant(ty, 0, v, ConstKind::Int(v));
        if let (Some(s), Value::Const(c)) = (small, r) {
            self.small_ints[s][v as usize] = Some(c);
        }
        r
    }

    /// A float constant from its bits.
    pub fn const_float(&mut self, ty: TypeH, bits: u64) -> Value {
        self.constant(ty, 1, bits, ConstKind::Float(bits))
    }

    /// `undef` of a type.
    pub fn undef(&mut self, ty: TypeH) -> Value {
        self.constant(ty, 2, 0, ConstKind::Undef)
    }

    /// The index of a source file name in `m.source_files`, added once.
    pub fn intern_file(&mut self, name: &str) -> u32 {
        if let Some(i) = self.file_names.get(name) {
            return *i;
        }
        let i = self.m.source_files.len() as u32;
        self.m.source_files.push(crate::ir::SourceFile { name: name.to_string(), text: None });
        self.file_names.insert(name.into(), i);
        i
    }

    /// Counts `n` more `brx.idx` edges against [`MAX_PTX_SWITCH_EDGES`].
    pub fn charge_edges(&mut self, n: usize, pos: super::lex::Pos) -> Result<()> {
        self.switch_edges = self.switch_edges.saturating_add(n);
        if self.switch_edges > MAX_PTX_SWITCH_EDGES {
            return Err(error_at(
                pos,
                ErrorKind::LimitExceeded,
                format!("too many brx.idx branch-table edges in one module (more than {MAX_PTX_SWITCH_EDGES})"),
            ));
        }
        Ok(())
    }

    /// The opcode of a packing `mov.bN d, {…}` that the lowering models:
    /// an entry of `m.op_names` for the word with [`OpSemantics::Pack`],
    /// apart from the word's own (opaque) entry, which a `mov` the lowering
    /// does not model keeps.
    /// `k` is the word's index (from [`Cx::op_info`]): no hash of the word.
    pub fn pack_op(&mut self, k: u32, word: &'a str) -> u32 {
        if let Some(&i) = self.pack_ops.get(k as usize) {
            if i != u32::MAX {
                return i;
            }
        }
        let i = self.new_op(word, OpSemantics::Pack);
        if let Some(slot) = self.pack_ops.get_mut(k as usize) {
            *slot = i;
        }
        i
    }

    /// The index of an opcode name in `m.op_names`.
    pub fn op_name(&mut self, name: &'a str) -> u32 {
        if let Some(i) = self.op_names.get(name) {
            return *i;
        }
        let i = self.new_op(name, op_semantics(name));
        self.op_names.insert(name, i);
        i
    }

    /// A new entry of `m.op_names` (with its semantics and no access form).
    fn new_op(&mut self, name: &str, semantics: OpSemantics) -> u32 {
        let i = self.m.op_names.len() as u32;
        self.m.op_names.push(name.to_string());
        self.m.op_semantics.push(semantics);
        self.m.op_access.push(None);
        i
    }
}

/// What the dataflow computes of an opaque instruction word: `bfe`, `bfi`
/// (reached with a position or length in a register; constant ones are
/// expanded into shifts and masks) and `prmt.b32` in the default mode. (A
/// packing `mov` gets [`OpSemantics::Pack`] from [`Cx::pack_op`].)
fn op_semantics(word: &str) -> OpSemantics {
    let op = super::Opcode::new(word);
    let ty = op.last().and_then(scalar_type);
    match (op.base(), ty) {
        ("bfe", Some((c @ (b's' | b'u'), 32 | 64))) => OpSemantics::Bfe { signed: c == b's' },
        ("bfi", Some((b'b', 32 | 64))) => OpSemantics::Bfi,
        ("prmt", Some((b'b', 32))) if op.mods().count() == 1 => OpSemantics::Prmt,
        _ => OpSemantics::Opaque,
    }
}

fn span(pos: super::lex::Pos) -> Span {
    Span { offset: u64::from(pos.offset), id: pos.line, loc: None }
}

fn global(cx: &mut Cx<'_>, d: &VarDecl<'_>) -> Global {
    let value_ty = cx.decl_type(d);
    let space = d.space.address_space();
    let ty = cx.ptr(value_ty, space);
    Global {
        name: Some(d.name.to_string()),
        ty,
        value_ty,
        space,
        init: None,
        is_const: d.space == Space::Const,
        span: span(d.pos),
    }
}

/// The alignment of a variable's address in bytes: `.align N`, else the size
/// of its element type, of the whole vector for a vector variable (PTX ISA
/// §5.4.5 "Alignment"); 0 when neither says (a type without a size, an
/// `.align` that is not a power of two, which ptxas rejects).
pub(super) fn decl_align(d: &VarDecl<'_>) -> u64 {
    if let Some(a) = d.align {
        return if a.is_power_of_two() { a } else { 0 };
    }
    let elem = d.ty.and_then(scalar_type).map_or(0, |(_, bits)| u64::from(bits / 8));
    elem.saturating_mul(u64::from(d.vector.unwrap_or(1)))
}

fn signature(cx: &mut Cx<'_>, f: &FuncDecl<'_>) -> Function {
    let params: Vec<TypeH> = f.params.iter().map(|p| cx.decl_type(p)).collect();
    let ret = cx.void();
    // `.param .u64 .ptr .global .align 16 p` of a kernel: what `p` holds is a
    // multiple of 16 (an `.align` that is not a power of two says nothing).
    let param_align = if f.entry {
        f.params.iter().map(|p| p.ptr_align.filter(|a| a.is_power_of_two()).unwrap_or(0)).collect()
    } else {
        Vec::new()
    };
    Function {
        name: f.name.to_string(),
        params,
        param_align,
        ret: Some(ret),
        is_declaration: true,
        span: span(f.pos),
        ..Default::default()
    }
}

/// Lowers a parsed module; `sliced`: only what the rules read ([`slice`]).
pub(super) fn lower<'a>(pm: PtxModule<'a>, sliced: bool) -> Result<Module> {
    let mut m = Module::new(SourceKind::Ptx);
    m.target = (!pm.target.is_empty()).then(|| pm.target.join(", "));
    m.producer = pm.version.map(|(a, b)| format!("PTX ISA {a}.{b}"));
    let mut cx = Cx {
        m,
        types: FxHashMap::default(),
        consts: FxHashMap::default(),
        op_names: FxHashMap::default(),
        globals: FxHashMap::default(),
        files: FxHashMap::default(),
        op_info: FxHashMap::default(),
        infos: Vec::new(),
        accesses: Vec::new(),
        word_ops: Vec::new(),
        last_word: None,
        pack_ops: Vec::new(),
        last_tuple: None,
        small_ints: [[None; 64]; 2],
        target: pm.target.iter().find_map(|t| crate::ir::PtxTarget::parse(t, pm.version.unwrap_or((0, 0)))),
        sliced,
        fact_shapes: Default::default(),
        t_bool: None,
        t_i32: None,
        t_i64: None,
        t_void: None,
        switch_edges: 0,
        ssa_work: 0,
        file_names: FxHashMap::default(),
    };
    for (idx, name) in &pm.files {
        let i = cx.intern_file(name);
        cx.files.insert(*idx, i);
    }
    for d in &pm.globals {
        let v = cx.add_global(d);
        cx.globals.insert(d.name, v);
    }
    // Functions: one per name; a definition replaces an earlier prototype.
    // A second definition is refused, as ptxas refuses it (lowering one body
    // over another would also make N copies cost O(N^2)).
    let mut handles: Vec<FuncH> = Vec::with_capacity(pm.functions.len());
    let mut by_name: FxHashMap<&str, FuncH> = FxHashMap::default();
    let mut defined: FxHashMap<&str, u32> = FxHashMap::default();
    for f in &pm.functions {
        if f.body.is_some() {
            if let Some(first) = defined.insert(f.name, f.pos.line) {
                return Err(error_at(
                    f.pos,
                    ErrorKind::Malformed,
                    format!("function {} is defined twice (first at line {first})", f.name),
                ));
            }
        }
        let sig = signature(&mut cx, f);
        let h = match by_name.get(f.name) {
            Some(h) => {
                if f.body.is_some() {
                    cx.m.functions[*h] = sig;
                }
                *h
            }
            None => {
                let h = cx.m.functions.append(sig);
                by_name.insert(f.name, h);
                cx.globals.insert(f.name, Value::Function(h));
                h
            }
        };
        handles.push(h);
    }
    // Each body's statements are dropped once it is lowered, so the syntax
    // tree and the IR are not both whole in memory at once.
    for (mut f, h) in pm.functions.into_iter().zip(&handles) {
        let Some(stmts) = f.body.take() else { continue };
        let base = cx.m.functions[*h].clone();
        let (lowered, pending) = body::lower_body(&mut cx, &f, stmts, base)?;
        cx.m.functions[*h] = lowered;
        cx.m.facts.reserve(pending.len());
        for p in pending {
            cx.m.facts.push(p.into_fact(*h));
        }
        if f.entry {
            cx.m.entry_points.push(EntryPoint { name: f.name.to_string(), function: Some(*h), stage: "kernel".into() });
        }
    }
    Ok(cx.m)
}

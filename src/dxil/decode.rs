//! LLVM 3.7 bitcode → [`super::llvm::LlvmModule`] (formats.md §B).
//!
//! One pass over the bitstream with [`crate::read::bitstream::Cursor`]:
//! the module block's type table, globals and function records, module
//! constants, metadata and value symbol table, then one function block per
//! defined function. Values are resolved through one value table (module values
//! first, then per function its arguments, constants and instructions);
//! forward references become placeholders patched when their block ends.
//!
//! - `types`: TYPE_BLOCK and the type helpers (pointer/vector lookups, GEP typing);
//! - `constants`: CONSTANTS blocks;
//! - `metadata`: METADATA blocks and debug-location resolution;
//! - `function`: FUNCTION blocks (instructions, debug locations, block names).

mod constants;
mod function;
mod metadata;
mod types;

use super::llvm::{Attachment, LlvmModule, MdId, Metadata};
use crate::ir::{ConstH, FuncH, Function, Global, Handle, LocH, Module, SourceKind, Span, TypeH, Value};
use crate::read::bitstream::{Cursor, Item, Scratch};
use crate::read::{limits, ErrorKind, ReadError, Result};
use rustc_hash::FxHashMap;
use std::cell::Cell;

/// Block ids (formats.md §B.2).
pub(crate) mod block {
    pub const MODULE: u32 = 8;
    pub const CONSTANTS: u32 = 11;
    pub const FUNCTION: u32 = 12;
    pub const VALUE_SYMTAB: u32 = 14;
    pub const METADATA: u32 = 15;
    pub const METADATA_ATTACHMENT: u32 = 16;
    pub const TYPE_NEW: u32 = 17;
}

/// Placeholder handles for forward references: index `FWD_BASE + value id`.
/// Value ids are capped at `limits::MAX_VALUES` (< 2^22), real arena indices stay
/// below that too, so the two ranges never meet.
const FWD_BASE: usize = 1 << 30;

/// Buffers reused by the next decode on this thread (bitstream scratch, value table).
type Reuse = (Scratch, Vec<(Value, TypeH)>);

thread_local! {
    static REUSE: Cell<Option<Reuse>> = const { Cell::new(None) };
}

/// Largest buffer (in elements) kept for reuse between decodes.
const REUSE_MAX: usize = 1 << 16;

/// Decodes raw bitcode into an [`LlvmModule`]; see [`super::llvm::decode`].
pub fn decode(bitcode: &[u8], base: u64) -> Result<LlvmModule> {
    let (scratch, mut vals) = REUSE.take().unwrap_or_default();
    let mut rd = Cursor::with_scratch(bitcode, base, scratch)?;
    let mut d = Decoder::new();
    vals.clear();
    d.vals = vals;
    let r = decode_stream(&mut rd, &mut d);
    let mut scratch = rd.into_scratch();
    scratch.trim(REUSE_MAX);
    let mut vals = std::mem::take(&mut d.vals);
    if vals.capacity() > REUSE_MAX {
        vals = Vec::new();
    }
    REUSE.set(Some((scratch, vals)));
    r?;
    Ok(d.finish())
}

fn decode_stream(rd: &mut Cursor<'_>, d: &mut Decoder) -> Result<()> {
    let base = rd.record_offset();
    let mut saw_module = false;
    while let Some(item) = rd.next_item()? {
        match item {
            Item::Enter(block::MODULE) if !saw_module => {
                saw_module = true;
                d.module(rd).map_err(|e| e.context("MODULE_BLOCK"))?;
            }
            Item::Enter(_) => rd.skip_block()?,
            Item::End | Item::Record(_) => {
                return Err(ReadError::malformed(rd.record_offset(), "unexpected item at top level"));
            }
        }
    }
    if !saw_module {
        return Err(ReadError::malformed(base, "bitcode has no MODULE_BLOCK"));
    }
    Ok(())
}

/// Decoder state for one module.
pub(crate) struct Decoder {
    pub(crate) m: Module,
    pub(crate) metadata: Vec<Metadata>,
    pub(crate) named: Vec<(String, Vec<MdId>)>,
    pub(crate) triple: Option<String>,
    pub(crate) attachments: Vec<Attachment>,
    pub(crate) kinds: Vec<(u32, u32, u32)>,
    pub(crate) kind_text: String,
    /// Operands are relative (VERSION ≥ 1).
    pub(crate) relative: bool,
    /// The value table: module values, then the current function's values.
    pub(crate) vals: Vec<(Value, TypeH)>,
    /// Values defined at module level.
    pub(crate) n_module_vals: usize,
    /// Types defined by the type table (arena entries after that were added by the decoder).
    pub(crate) n_table_types: usize,
    /// Absolute offset of the record being decoded.
    pub(crate) off: u64,
    pub(crate) ptr_cache: FxHashMap<(TypeH, u32), TypeH>,
    pub(crate) vec_cache: FxHashMap<(TypeH, u32), TypeH>,
    pub(crate) void_ty: Option<TypeH>,
    pub(crate) i1_ty: Option<TypeH>,
    pub(crate) i32_ty: Option<TypeH>,
    pub(crate) md_undef: Option<ConstH>,
    /// Function types with `vararg` set.
    pub(crate) vararg_types: Vec<TypeH>,
    /// Functions with bodies, in FUNCTION record order, and how many were decoded.
    pub(crate) bodies: Vec<FuncH>,
    pub(crate) next_body: usize,
    /// Globals whose initializer value id is resolved after the module constants.
    pub(crate) global_inits: Vec<(Handle<Global>, u32)>,
    /// Debug-info caches: scope MD id → source file index; location MD id → LocH.
    pub(crate) scope_files: FxHashMap<MdId, u32>,
    pub(crate) md_locs: FxHashMap<MdId, LocH>,
    /// Source-file index by `DIFile` (filename, directory) MD ids, and by name:
    /// N files interned in O(N), each name built once.
    pub(crate) file_by_md: FxHashMap<(Option<MdId>, Option<MdId>), u32>,
    pub(crate) file_by_name: FxHashMap<String, u32>,
    pub(crate) remark_count: usize,
    /// `{ ty, i1 }` cmpxchg result types by `ty`.
    pub(crate) cmpxchg_types: FxHashMap<TypeH, TypeH>,
    /// A module-level CONSTANTS block was decoded.
    pub(crate) saw_module_constants: bool,
    /// Parameters over all FUNCTION records (bounds the work of hostile signatures).
    pub(crate) total_params: usize,
}

impl Decoder {
    fn new() -> Self {
        Decoder {
            m: Module::new(SourceKind::Dxil),
            metadata: Vec::new(),
            named: Vec::new(),
            triple: None,
            attachments: Vec::new(),
            kinds: Vec::new(),
            kind_text: String::new(),
            relative: false,
            vals: Vec::new(),
            n_module_vals: 0,
            n_table_types: 0,
            off: 0,
            ptr_cache: FxHashMap::default(),
            vec_cache: FxHashMap::default(),
            void_ty: None,
            i1_ty: None,
            i32_ty: None,
            md_undef: None,
            vararg_types: Vec::new(),
            bodies: Vec::new(),
            next_body: 0,
            global_inits: Vec::new(),
            scope_files: FxHashMap::default(),
            md_locs: FxHashMap::default(),
            file_by_md: FxHashMap::default(),
            file_by_name: FxHashMap::default(),
            remark_count: 0,
            cmpxchg_types: FxHashMap::default(),
            total_params: 0,
            saw_module_constants: false,
        }
    }

    /// A malformed-input error at the current record.
    pub(crate) fn bad(&self, what: impl Into<String>) -> ReadError {
        ReadError::malformed(self.off, what)
    }

    /// Adds a remark (capped so hostile input cannot flood the list).
    pub(crate) fn remark(&mut self, text: impl FnOnce() -> String) {
        self.remark_count += 1;
        if self.remark_count <= 32 {
            self.m.remarks.push(text());
        } else if self.remark_count == 33 {
            self.m.remarks.push("further bitcode remarks suppressed".to_string());
        }
    }

    /// Appends to the value table, enforcing the value limit.
    pub(crate) fn push_val(&mut self, v: Value, ty: TypeH) -> Result<()> {
        if self.vals.len() >= limits::MAX_VALUES {
            return Err(ReadError::limit(self.off, format!("more than {} values", limits::MAX_VALUES)));
        }
        self.vals.push((v, ty));
        Ok(())
    }

    /// A placeholder for the forward reference to value `vid`.
    pub(crate) fn fwd_inst(&self, vid: u32) -> Result<Value> {
        if vid as usize >= limits::MAX_VALUES {
            return Err(self.bad(format!("value id {vid} is out of range")));
        }
        match Handle::from_index(FWD_BASE + vid as usize) {
            Some(h) => Ok(Value::Inst(h)),
            None => Err(self.bad("value id out of range")),
        }
    }

    fn module(&mut self, rd: &mut Cursor<'_>) -> Result<()> {
        while let Some(item) = rd.next_item()? {
            self.off = rd.record_offset();
            match item {
                Item::End => {
                    self.resolve_global_inits()?;
                    return Ok(());
                }
                Item::Enter(id) => match id {
                    block::TYPE_NEW => self.type_block(rd).map_err(|e| e.context("TYPE_BLOCK"))?,
                    block::CONSTANTS => {
                        if std::mem::replace(&mut self.saw_module_constants, true) {
                            return Err(self.bad("second module-level CONSTANTS_BLOCK"));
                        }
                        self.constants_block(rd).map_err(|e| e.context("CONSTANTS_BLOCK"))?;
                        self.n_module_vals = self.vals.len();
                    }
                    block::METADATA => self.metadata_block(rd).map_err(|e| e.context("METADATA_BLOCK"))?,
                    block::VALUE_SYMTAB => self.module_vst(rd).map_err(|e| e.context("VALUE_SYMTAB"))?,
                    block::FUNCTION => {
                        if self.next_body == 0 {
                            self.resolve_global_inits()?;
                            self.n_module_vals = self.vals.len();
                        }
                        let n = self.next_body;
                        let Some(&fh) = self.bodies.get(n) else {
                            return Err(self.bad("function block without a defined function"));
                        };
                        self.next_body += 1;
                        self.function_block(rd, fh).map_err(|e| {
                            let name = &self.m.functions[fh].name;
                            e.context(format!("FUNCTION_BLOCK #{n} ({name})"))
                        })?;
                    }
                    _ => rd.skip_block()?,
                },
                Item::Record(code) => self.module_record(code, rd.ops())?,
            }
        }
        Err(ReadError::eof(rd.offset(), "bitcode ends inside the MODULE_BLOCK"))
    }

    fn module_record(&mut self, code: u32, ops: &[u64]) -> Result<()> {
        match code {
            // VERSION
            1 => {
                let v = ops.first().copied().unwrap_or(0);
                if v > 2 {
                    return Err(ReadError::new(ErrorKind::Unsupported, self.off, format!("bitcode version {v}")));
                }
                self.relative = v >= 1;
            }
            // TRIPLE
            2 => self.triple = Some(chars(ops)),
            // GLOBALVAR
            7 => self.globalvar(ops)?,
            // FUNCTION
            8 => self.function_record(ops)?,
            // ALIAS_OLD / ALIAS: defines a value; DXIL has none. Keep numbering with an undef.
            9 | 14 => {
                let ty = self.ty(field(ops, 0))?;
                let ty = if code == 14 { self.ptr_to(ty, field(ops, 1) as u32) } else { ty };
                let c = self.m.constants.append(crate::ir::Constant {
                    ty,
                    kind: crate::ir::ConstKind::Undef,
                    spec_id: None,
                });
                self.push_val(Value::Const(c), ty)?;
                self.remark(|| "bitcode alias kept as undef".to_string());
            }
            _ => {}
        }
        Ok(())
    }

    fn globalvar(&mut self, ops: &[u64]) -> Result<()> {
        if ops.len() < 6 {
            return Err(self.bad("GLOBALVAR record is too short"));
        }
        let ty = self.ty(ops[0])?;
        let flags = ops[1];
        let is_const = flags & 1 != 0;
        let (value_ty, space) = if flags & 2 != 0 {
            (ty, (flags >> 2) as u32)
        } else {
            match self.m.types.try_get(ty) {
                Some(crate::ir::Type::Pointer { pointee, space }) => (*pointee, *space),
                _ => return Err(self.bad("GLOBALVAR type is not a pointer")),
            }
        };
        let ptr = self.ptr_to(value_ty, space);
        let id = self.vals.len() as u32;
        let g = self.m.globals.append(Global {
            name: None,
            ty: ptr,
            value_ty,
            space,
            init: None,
            is_const,
            span: Span { offset: self.off, id, loc: None },
        });
        if ops[2] != 0 {
            self.global_inits.push((g, (ops[2] - 1) as u32));
        }
        self.push_val(Value::Global(g), ptr)
    }

    fn function_record(&mut self, ops: &[u64]) -> Result<()> {
        if ops.len() < 8 {
            return Err(self.bad("FUNCTION record is too short"));
        }
        let mut fty = self.ty(ops[0])?;
        if let Some(crate::ir::Type::Pointer { pointee, .. }) = self.m.types.try_get(fty) {
            fty = *pointee;
        }
        let (ret, params) = match self.m.types.try_get(fty) {
            Some(crate::ir::Type::Function { ret, params }) => (*ret, params.clone()),
            _ => return Err(self.bad("FUNCTION record type is not a function type")),
        };
        self.total_params += params.len();
        if self.total_params > limits::MAX_VALUES {
            return Err(ReadError::limit(self.off, "function signatures have too many parameters in total"));
        }
        let is_declaration = ops[2] != 0;
        let ptr = self.ptr_to(fty, 0);
        let id = self.vals.len() as u32;
        let fh = self.m.functions.append(Function {
            name: String::new(),
            params,
            ret: Some(ret),
            is_declaration,
            span: Span { offset: self.off, id, loc: None },
            ..Default::default()
        });
        if !is_declaration {
            self.bodies.push(fh);
        }
        self.push_val(Value::Function(fh), ptr)
    }

    fn resolve_global_inits(&mut self) -> Result<()> {
        for (g, vid) in std::mem::take(&mut self.global_inits) {
            let Some(&(v, _)) = self.vals.get(vid as usize) else {
                return Err(self.bad(format!("global initializer value {vid} is not defined")));
            };
            self.m.globals[g].init = Some(v);
        }
        Ok(())
    }

    fn module_vst(&mut self, rd: &mut Cursor<'_>) -> Result<()> {
        while let Some(item) = rd.next_item()? {
            match item {
                Item::End => return Ok(()),
                Item::Enter(_) => rd.skip_block()?,
                Item::Record(code) => {
                    let ops = rd.ops();
                    let (vid, name) = match code {
                        1 if !ops.is_empty() => (ops[0], &ops[1..]),
                        3 if ops.len() >= 2 => (ops[0], &ops[2..]),
                        _ => continue,
                    };
                    match self.vals.get(vid as usize).map(|v| v.0) {
                        Some(Value::Function(f)) => self.m.functions[f].name = chars(name),
                        Some(Value::Global(g)) => self.m.globals[g].name = Some(chars(name)),
                        _ => {}
                    }
                }
            }
        }
        Err(ReadError::eof(rd.offset(), "bitcode ends inside a VALUE_SYMTAB"))
    }

    fn finish(mut self) -> LlvmModule {
        // Producer from !llvm.ident.
        let ident = self.named_ops("llvm.ident").and_then(|ops| ops.first().copied());
        if let Some(node) = ident {
            if let Some(Metadata::Node { ops, .. }) = self.metadata.get(node as usize) {
                if let Some(Some(s)) = ops.first() {
                    if let Some(Metadata::String(text)) = self.metadata.get(*s as usize) {
                        self.m.producer = Some(String::from_utf8_lossy(text).into_owned());
                    }
                }
            }
        }
        self.embed_sources();
        LlvmModule {
            module: self.m,
            metadata: self.metadata,
            named: self.named,
            triple: self.triple,
            attachments: self.attachments,
            kinds: self.kinds,
            kind_text: self.kind_text,
        }
    }

    pub(crate) fn named_ops(&self, name: &str) -> Option<&[MdId]> {
        self.named.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_slice())
    }
}

/// Operand `i`, or 0 when absent.
#[inline]
pub(crate) fn field(ops: &[u64], i: usize) -> u64 {
    ops.get(i).copied().unwrap_or(0)
}

/// Operands as characters.
pub(crate) fn chars(ops: &[u64]) -> String {
    let bytes: Vec<u8> = ops.iter().map(|&c| c as u8).collect();
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinOp, InstKind};

    /// A bitstream writer for hand-built modules (unabbreviated records only).
    #[derive(Default)]
    struct W {
        bytes: Vec<u8>,
        bit: u64,
        blocks: Vec<(usize, u64)>,
    }

    impl W {
        fn new() -> Self {
            let mut w = W::default();
            for b in crate::read::bitstream::MAGIC {
                w.put(u64::from(b), 8);
            }
            w
        }
        fn put(&mut self, v: u64, n: u32) {
            for i in 0..n {
                let byte = (self.bit / 8) as usize;
                if byte >= self.bytes.len() {
                    self.bytes.push(0);
                }
                self.bytes[byte] |= (((v >> i) & 1) as u8) << (self.bit % 8);
                self.bit += 1;
            }
        }
        fn vbr(&mut self, mut v: u64, n: u32) {
            let hi = 1u64 << (n - 1);
            while v >= hi {
                self.put((v & (hi - 1)) | hi, n);
                v >>= n - 1;
            }
            self.put(v, n);
        }
        fn align(&mut self) {
            while !self.bit.is_multiple_of(32) {
                self.put(0, 1);
            }
        }
        fn width(&self) -> u32 {
            if self.blocks.is_empty() {
                2
            } else {
                4
            }
        }
        fn enter(&mut self, id: u32) {
            self.put(1, self.width());
            self.vbr(u64::from(id), 8);
            self.vbr(4, 4);
            self.align();
            let at = self.bytes.len();
            self.put(0, 32);
            self.blocks.push((at, self.bit));
        }
        fn end(&mut self) {
            self.put(0, 4);
            self.align();
            let (at, start) = self.blocks.pop().unwrap();
            let words = ((self.bit - start) / 32) as u32;
            self.bytes[at..at + 4].copy_from_slice(&words.to_le_bytes());
        }
        fn rec(&mut self, code: u64, ops: &[u64]) {
            self.put(3, 4);
            self.vbr(code, 6);
            self.vbr(ops.len() as u64, 6);
            for &o in ops {
                self.vbr(o, 6);
            }
        }
    }

    /// `i32 f(i32 %a)`: bb0: br bb1; bb1: %p = phi [%a, bb0], [%s, bb1]; %s = add %p, %a; ret %s
    /// `fwd` is the signed-VBR relative id of the phi's second incoming value (3 = %s).
    fn loop_module(fwd: u64) -> Vec<u8> {
        let mut w = W::new();
        w.enter(block::MODULE);
        w.rec(1, &[1]);
        w.enter(block::TYPE_NEW);
        w.rec(1, &[2]);
        w.rec(7, &[32]); // 0: i32
        w.rec(21, &[0, 0, 0]); // 1: i32 (i32)
        w.end();
        w.rec(8, &[1, 0, 0, 0, 0, 0, 0, 0]); // FUNCTION, defined
        w.enter(block::VALUE_SYMTAB);
        w.rec(1, &[0, u64::from(b'f')]);
        w.end();
        w.enter(block::FUNCTION);
        w.rec(1, &[2]); // DECLAREBLOCKS
        w.rec(11, &[1]); // br bb1
                         // InstNum 2: phi i32 [%a (id 1, rel +1 → 2), bb0], [%s (id 3, rel -1 → 3), bb1]
        w.rec(16, &[0, 2, 0, fwd, 1]);
        w.rec(2, &[1, 2, 0]); // InstNum 3: add %p (rel 1), %a (rel 2)
        w.rec(10, &[1]); // ret %s
        w.end();
        w.end();
        w.align();
        w.bytes
    }

    #[test]
    fn forward_references_resolve_in_phis() {
        let bc = loop_module(3);
        let m = decode(&bc, 0x40).unwrap();
        crate::ir::verify::verify(&m.module).unwrap();
        let f = m.module.functions.values().next().unwrap();
        assert_eq!(f.name, "f");
        assert_eq!(f.blocks.len(), 2);
        let bb1: Vec<_> = f.blocks.values().nth(1).unwrap().insts.clone();
        let (phi, add) = (bb1[0], bb1[1]);
        let InstKind::Phi { incoming } = &f.insts[phi].kind else { panic!() };
        assert_eq!(incoming[0].0, Value::Arg(0));
        assert_eq!(incoming[1].0, Value::Inst(add));
        assert_eq!(f.insts[add].kind, InstKind::Binary { op: BinOp::Add, lhs: Value::Inst(phi), rhs: Value::Arg(0) });
        assert_eq!((f.insts[phi].span.id, f.insts[add].span.id), (2, 3));
        assert!(f.insts[phi].span.offset > 0x40);
    }

    #[test]
    fn hostile_modules_are_rejected() {
        // A type that contains itself by value.
        let mut w = W::new();
        w.enter(block::MODULE);
        w.enter(block::TYPE_NEW);
        w.rec(1, &[2]);
        w.rec(18, &[0, 1]);
        w.rec(18, &[0, 0]);
        w.end();
        w.end();
        let e = decode(&w.bytes, 0).unwrap_err();
        assert!(e.detail.contains("contains itself"), "{e}");

        // A forward reference to a value that is never defined (id 9: relative -7).
        let e = decode(&loop_module(15), 0).unwrap_err();
        assert!(e.detail.contains("undefined value 9"), "{e}");

        // A truncated stream: an error inside the input, never a panic.
        let mut bc = loop_module(3);
        bc.truncate(bc.len() - 12);
        let e = decode(&bc, 0).unwrap_err();
        assert!(e.offset <= bc.len() as u64, "{e}");
    }
}

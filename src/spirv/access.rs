//! Access facts for the alignment rules: loads and stores with an `Aligned`
//! memory operand through `PhysicalStorageBuffer` pointers, and the pointer
//! operands of cooperative-matrix and cooperative-vector instructions.
//!
//! Each pointer is resolved, once its function is complete, to an
//! [`Address`]: a root (the integer of `OpConvertUToPtr`, a buffer or
//! workgroup variable, or a pointer the front end cannot look through) plus a
//! constant byte offset and `index × stride` terms from the access chains on
//! the way (`Offset` of struct members, `ArrayStride` of arrays and of the
//! pointer type of `OpPtrAccessChain`, the component size of vectors).
//! Function-local variables stored once (glslang keeps every buffer reference
//! in one at `-O0`) are looked through, as are constant integer adds.

use super::lower::{Lowerer, Slot};
use crate::ir::*;
use rustc_hash::FxHashMap;

/// `PhysicalStorageBuffer` storage class.
const PHYSICAL_STORAGE_BUFFER: u32 = 5349;
/// Storage classes of descriptor-bound buffers and workgroup memory, whose
/// base the API aligns: Uniform, Workgroup, StorageBuffer.
const VARIABLE_CLASSES: [u32; 3] = [2, 4, 12];
/// Most steps a pointer or integer walk takes.
const MAX_STEPS: usize = 64;
/// Most pointer → integer → pointer round trips an address walk takes.
const MAX_NESTING: u32 = 4;

/// Memory-operand bits that take one extra operand, in operand order after
/// `Aligned` (0x2): MakePointerAvailable, MakePointerVisible, AliasScopeINTEL,
/// NoAliasINTEL.
const EXTRA_OPERAND_BITS: u32 = 0x2 | 0x8 | 0x10 | 0x1_0000 | 0x2_0000;

/// The `Aligned` literal of the memory operands starting at `at`, and the
/// index after them.
fn aligned_at(args: &[u32], at: usize) -> (Option<u64>, usize) {
    let Some(&mask) = args.get(at) else { return (None, at) };
    let aligned = (mask & 0x2 != 0).then(|| args.get(at + 1).copied()).flatten().map(u64::from);
    (aligned.filter(|a| *a > 0), at + 1 + (mask & EXTRA_OPERAND_BITS).count_ones() as usize)
}

/// What a function-local variable holds when it is stored exactly once and
/// only loaded otherwise.
fn single_stores(f: &Function) -> FxHashMap<InstH, Value> {
    let mut stored: FxHashMap<InstH, Option<Value>> = FxHashMap::default();
    let is_alloca = |v: Value| match v {
        Value::Inst(h) => matches!(f.insts.try_get(h).map(|i| &i.kind), Some(InstKind::Alloca { .. })).then_some(h),
        _ => None,
    };
    for (_, inst) in f.insts.iter() {
        match &inst.kind {
            InstKind::Load { .. } => {}
            InstKind::Store { ptr, value } => {
                if let Some(a) = is_alloca(*ptr) {
                    let e = stored.entry(a).or_insert(Some(*value));
                    if *e != Some(*value) {
                        *e = None;
                    }
                }
                if let Some(a) = is_alloca(*value) {
                    stored.insert(a, None);
                }
            }
            kind => {
                let _ = crate::ir::verify::for_each_operand::<()>(kind, |v| {
                    if let Some(a) = is_alloca(*v) {
                        stored.insert(a, None);
                    }
                    Ok(())
                });
            }
        }
    }
    stored.into_iter().filter_map(|(k, v)| Some((k, v?))).collect()
}

impl Lowerer<'_> {
    /// Remembers an instruction whose pointer operands the alignment rules
    /// check; resolved when the function is complete.
    pub(super) fn note_access(&mut self, h: InstH, opcode: u32, args: &[u32]) {
        // Plain loads and stores count only with an `Aligned` operand.
        let aligned = match opcode {
            61 => aligned_at(args, 1).0.is_some(),
            62 => aligned_at(args, 2).0.is_some(),
            _ => true,
        };
        if !aligned {
            return;
        }
        // At most one entry per instruction: linear in the input.
        self.pending_access.push((h, opcode, args.to_vec()));
    }

    /// Turns the noted accesses of function `f` into facts.
    pub(super) fn access_facts(&mut self, f: &Function, fh: FuncH) {
        let pending = std::mem::take(&mut self.pending_access);
        if pending.is_empty() {
            return;
        }
        let stores = single_stores(f);
        for (h, opcode, args) in pending {
            for acc in self.accesses_of(f, &stores, h, opcode, &args) {
                self.m.facts.push(Fact { function: fh, inst: h, kind: FactKind::Access(acc) });
            }
        }
    }

    fn accesses_of(
        &self,
        f: &Function,
        stores: &FxHashMap<InstH, Value>,
        h: InstH,
        opcode: u32,
        args: &[u32],
    ) -> Vec<MemAccess> {
        let mut out = Vec::new();
        let ptr = |i: usize| args.get(i).and_then(|&id| self.try_value(id));
        let mut push = |kind: AccessKind,
                        operand: &'static str,
                        p: Option<Value>,
                        store: bool,
                        declared: Option<u64>,
                        required: Option<u64>| {
            let Some(p) = p else { return };
            if kind == AccessKind::SpirvAligned && self.storage_class(f, p) != Some(PHYSICAL_STORAGE_BUFFER) {
                return;
            }
            if kind == AccessKind::SpirvAligned && declared.is_none() {
                return;
            }
            let Some(address) = self.address(f, stores, p) else { return };
            out.push(MemAccess {
                kind,
                operand,
                store,
                address,
                declared,
                required,
                component_bytes: 0,
                count: 0,
                stride: None,
                resource: self.resource_of(f, p),
            });
        };
        match opcode {
            61 => push(AccessKind::SpirvAligned, "pointer", ptr(0), false, aligned_at(args, 1).0, None),
            62 => push(AccessKind::SpirvAligned, "pointer", ptr(0), true, aligned_at(args, 2).0, None),
            63 | 64 => {
                let first = if opcode == 63 { 2 } else { 3 };
                let (a1, next) = aligned_at(args, first);
                let a2 = if args.get(next).is_some() { aligned_at(args, next).0 } else { a1 };
                push(AccessKind::SpirvAligned, "target", ptr(0), true, a1, None);
                push(AccessKind::SpirvAligned, "source", ptr(1), false, a2, None);
            }
            4457 | 4458 => {
                if let Some(acc) = self.coop_matrix_access(f, stores, h, opcode, args) {
                    out.push(acc);
                }
            }
            5289 => push(AccessKind::CoopVector, "matrix", ptr(2), false, None, Some(64)),
            5292 => {
                push(AccessKind::CoopVector, "matrix", ptr(2), false, None, Some(64));
                push(AccessKind::CoopVector, "bias", ptr(5), false, None, Some(16));
            }
            5290 => push(AccessKind::CoopVector, "matrix", ptr(0), true, None, Some(64)),
            5291 => push(AccessKind::CoopVector, "vector", ptr(0), true, None, Some(16)),
            5302 => push(AccessKind::CoopVector, "vector", ptr(0), false, None, Some(16)),
            5303 => push(AccessKind::CoopVector, "vector", ptr(0), true, None, Some(16)),
            _ => {}
        }
        out
    }

    /// `OpCooperativeMatrixLoadKHR` / `StoreKHR`: the pointer and the stride
    /// (in elements of the pointee) must be aligned to the lesser of 16 bytes
    /// and the natural alignment of a row (row-major) or column (column-major).
    fn coop_matrix_access(
        &self,
        f: &Function,
        stores: &FxHashMap<InstH, Value>,
        h: InstH,
        opcode: u32,
        args: &[u32],
    ) -> Option<MemAccess> {
        let load = opcode == 4457;
        let layout_at = if load { 1 } else { 2 };
        let p = args.first().and_then(|&id| self.try_value(id))?;
        let layout = args.get(layout_at).and_then(|&id| self.try_value(id)).and_then(|v| self.m.const_int(v))?;
        let mty = if load {
            f.insts.try_get(h).map(|i| i.ty)
        } else {
            args.get(1).and_then(|&id| self.try_value(id)).and_then(|v| self.value_type(Some(f), v))
        }?;
        let [comp, _scope, rows, cols, _use] = *self.coop_matrix.get(&mty)?;
        let comp_bytes = match self.slot(comp) {
            Slot::Type(t) => self.byte_size(t)?,
            _ => return None,
        };
        let dim = |id: u32| self.try_value(id).and_then(|v| self.m.const_int(v));
        let row = match layout {
            0 => dim(cols)?,
            1 => dim(rows)?,
            _ => return None,
        };
        let natural = row.checked_mul(comp_bytes)?;
        // The largest power of two dividing the row size, capped at 16.
        let required = (1u64 << natural.trailing_zeros().min(4)).min(16);
        let unit = match self.value_type(Some(f), p).and_then(|t| self.m.types.try_get(t)) {
            Some(Type::Pointer { pointee, .. }) => self.byte_size(*pointee),
            _ => None,
        };
        let stride = args.get(layout_at + 1).and_then(|&id| self.try_value(id));
        let stride = match (stride, unit) {
            (Some(s), Some(u)) if self.value_type(Some(f), s).and_then(|t| self.m.int_bits(t)).is_some() => {
                Some((Operand::Value(s), u))
            }
            _ => None,
        };
        Some(MemAccess {
            kind: AccessKind::CoopMatrix,
            operand: "pointer",
            store: !load,
            address: self.address(f, stores, p).unwrap_or(Address {
                root: AddrRoot::Opaque(p),
                offset: 0,
                terms: Vec::new(),
            }),
            declared: None,
            required: Some(required),
            component_bytes: u32::try_from(comp_bytes).unwrap_or(0),
            // Components in a row (row-major) or column (column-major).
            count: u32::try_from(row).unwrap_or(0),
            stride,
            resource: self.resource_of(f, p),
        })
    }

    /// Size in bytes of a scalar or vector type.
    fn byte_size(&self, t: TypeH) -> Option<u64> {
        match self.m.types.try_get(t)? {
            Type::Int { bits } | Type::Float { bits } => Some(u64::from(*bits).div_ceil(8)),
            Type::Vector { elem, count } => self.byte_size(*elem)?.checked_mul(u64::from(*count)),
            _ => None,
        }
    }

    fn storage_class(&self, f: &Function, p: Value) -> Option<u32> {
        match self.m.types.try_get(self.value_type(Some(f), p)?)? {
            Type::Pointer { space, .. } => Some(*space),
            _ => None,
        }
    }

    /// The address of pointer `p`, or `None` when an access chain on the way
    /// has no layout (no `Offset` / `ArrayStride`).
    fn address(&self, f: &Function, stores: &FxHashMap<InstH, Value>, p: Value) -> Option<Address> {
        self.address_at(f, stores, p, 0)
    }

    /// [`Self::address`] at a nesting depth (pointer → integer → pointer through
    /// `OpConvertPtrToU`), bounded so that a variable stored from its own load
    /// cannot recurse forever.
    fn address_at(&self, f: &Function, stores: &FxHashMap<InstH, Value>, mut p: Value, depth: u32) -> Option<Address> {
        if depth > MAX_NESTING {
            return None;
        }
        let mut offset = 0u64;
        let mut terms = Vec::new();
        for _ in 0..MAX_STEPS {
            let kind = match p {
                Value::Inst(h) => &f.insts.try_get(h)?.kind,
                Value::Global(_) => {
                    let root = match self.storage_class(f, p) {
                        Some(sc) if VARIABLE_CLASSES.contains(&sc) => AddrRoot::Variable(p),
                        _ => return None,
                    };
                    return Some(Address { root, offset, terms });
                }
                _ => return Some(Address { root: AddrRoot::Opaque(p), offset, terms }),
            };
            match kind {
                InstKind::Gep { base, indices } => {
                    let (c, t) = self.chain_offset(f, *base, indices)?;
                    offset = offset.wrapping_add(c);
                    terms.extend(t);
                    p = *base;
                }
                InstKind::Cast { op: CastOp::IntToPtr, value } => {
                    let (root, c) = self.int_root(f, stores, *value, depth);
                    return Some(Address { root, offset: offset.wrapping_add(c), terms });
                }
                InstKind::Cast { op: CastOp::Bitcast, value } => {
                    if self.value_type(Some(f), *value).and_then(|t| self.m.int_bits(t)).is_some() {
                        let (root, c) = self.int_root(f, stores, *value, depth);
                        return Some(Address { root, offset: offset.wrapping_add(c), terms });
                    }
                    p = *value;
                }
                InstKind::Other { opcode: 83, operands } => p = *operands.first()?,
                InstKind::Load { ptr: Value::Inst(a) } if stores.contains_key(a) => p = *stores.get(a)?,
                _ => return Some(Address { root: AddrRoot::Opaque(p), offset, terms }),
            }
        }
        None
    }

    /// An integer with its constant addends peeled off: `(root, constant)`.
    /// `OpConvertPtrToU` of a pointer continues with that pointer's root.
    fn int_root(&self, f: &Function, stores: &FxHashMap<InstH, Value>, mut v: Value, depth: u32) -> (AddrRoot, u64) {
        let mut c = 0u64;
        for _ in 0..MAX_STEPS {
            let Value::Inst(h) = v else { break };
            let Some(kind) = f.insts.try_get(h).map(|i| &i.kind) else { break };
            match kind {
                InstKind::Binary { op: BinOp::Add, lhs, rhs } => match (self.m.const_int(*lhs), self.m.const_int(*rhs))
                {
                    (_, Some(k)) => {
                        c = c.wrapping_add(k);
                        v = *lhs;
                    }
                    (Some(k), None) => {
                        c = c.wrapping_add(k);
                        v = *rhs;
                    }
                    _ => break,
                },
                InstKind::Binary { op: BinOp::Sub, lhs, rhs } => match self.m.const_int(*rhs) {
                    Some(k) => {
                        c = c.wrapping_sub(k);
                        v = *lhs;
                    }
                    None => break,
                },
                InstKind::Load { ptr: Value::Inst(a) } => match stores.get(a) {
                    Some(s) => v = *s,
                    None => break,
                },
                InstKind::Other { opcode: 83, operands } => match operands.first() {
                    Some(x) => v = *x,
                    None => break,
                },
                InstKind::Cast { op: CastOp::PtrToInt, value } => match self.address_at(f, stores, *value, depth + 1) {
                    Some(a) if a.terms.is_empty() => return (a.root, c.wrapping_add(a.offset)),
                    _ => break,
                },
                _ => break,
            }
        }
        (AddrRoot::Int(v), c)
    }

    /// The byte offset an access chain adds to its base: a constant and
    /// `(index, stride)` terms. The first index steps over the base pointer
    /// (the pointer type's `ArrayStride`; SPIR-V `OpAccessChain` puts a
    /// constant 0 there).
    fn chain_offset(&self, f: &Function, base: Value, indices: &[Value]) -> Option<(u64, Vec<(Value, u64)>)> {
        let pty = self.value_type(Some(f), base)?;
        let Type::Pointer { pointee, .. } = self.m.types.try_get(pty)? else { return None };
        let mut t = *pointee;
        let mut c = 0u64;
        let mut terms = Vec::new();
        let (first, rest) = indices.split_first()?;
        match self.m.const_int(*first) {
            Some(0) => {}
            k => {
                let stride = u64::from(self.ann.deco(*self.type_ids.get(pty.index())?).array_stride?);
                match k {
                    Some(k) => c = c.wrapping_add(k.wrapping_mul(stride)),
                    None => terms.push((*first, stride)),
                }
            }
        }
        for idx in rest {
            match self.m.types.try_get(t)? {
                Type::Struct { members, .. } => {
                    let i = self.m.const_int(*idx)?;
                    let id = *self.type_ids.get(t.index())?;
                    let i32 = u32::try_from(i).ok()?;
                    c = c.wrapping_add(u64::from(*self.ann.member_offsets.get(&(id, i32))?));
                    t = *members.get(i as usize)?;
                }
                Type::Array { elem, stride, .. } => {
                    // Without `ArrayStride` (workgroup arrays without an explicit
                    // layout) only scalar elements have a stride: their size.
                    let s = match stride {
                        Some(s) => u64::from(*s),
                        None if matches!(self.m.types.try_get(*elem), Some(Type::Int { .. } | Type::Float { .. })) => {
                            self.byte_size(*elem)?
                        }
                        None => return None,
                    };
                    match self.m.const_int(*idx) {
                        Some(k) => c = c.wrapping_add(k.wrapping_mul(s)),
                        None => terms.push((*idx, s)),
                    }
                    t = *elem;
                }
                Type::Vector { elem, .. } => {
                    let s = self.byte_size(*elem)?;
                    match self.m.const_int(*idx) {
                        Some(k) => c = c.wrapping_add(k.wrapping_mul(s)),
                        None => terms.push((*idx, s)),
                    }
                    t = *elem;
                }
                _ => return None,
            }
        }
        Some((c, terms))
    }
}

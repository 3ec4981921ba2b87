//! Facts for the rules (formats.md §C.2–C.5): every `rawBufferVectorLoad/Store`
//! (303/304), preview cooperative-vector op (305–308) and SM 6.10 LinAlg matrix
//! memory op, with operands as SSA values for the dataflow and the shape /
//! numbering information the rules need.

use super::dxop::{self, linalg as la};
use super::linalg::MatrixTypes;
use super::resources::{call_opcode, HandleInfo, Resolver};
use crate::ir::{
    AccessKind, AddrRoot, Address, ConstKind, Fact, FactKind, FuncH, Function, InstH, InstKind, MatrixEncoding,
    MatrixMemOp, MatrixOpKind, MemAccess, Module, Operand, RawVectorAccess, ResourceKind, Type, TypeH, Value,
};

/// The type of a value inside function `f`.
pub fn value_type(m: &Module, f: &Function, v: Value) -> Option<TypeH> {
    match v {
        Value::Inst(i) => f.insts.try_get(i).map(|i| i.ty),
        Value::Const(c) => m.constants.try_get(c).map(|c| c.ty),
        Value::Arg(i) => f.params.get(i as usize).copied(),
        Value::Global(g) => m.globals.try_get(g).map(|g| g.ty),
        Value::Function(_) => None,
    }
}

/// `(count, component bytes, float)` of a vector type, or of the first member of
/// a `%dx.types.ResRet.v<N><t>` struct.
pub fn vector_shape(m: &Module, mut ty: TypeH) -> Option<(u32, u32, bool)> {
    // Iterative: a chain of single-member structs may be as deep as the type table allows.
    for _ in 0..=crate::read::limits::MAX_TYPE_DEPTH {
        match m.types.try_get(ty)? {
            Type::Vector { elem, count } => {
                let (bits, float) = match m.types.try_get(*elem)? {
                    Type::Int { bits } => (*bits, false),
                    Type::Bool => (32, false),
                    Type::Float { bits } => (*bits, true),
                    _ => return None,
                };
                return Some((*count, u32::from(bits).div_ceil(8), float));
            }
            Type::Struct { members, .. } => ty = *members.first()?,
            _ => return None,
        }
    }
    None
}

/// True for an `undef` constant.
pub fn is_undef(m: &Module, v: Value) -> bool {
    matches!(v, Value::Const(c) if matches!(m.constants.try_get(c).map(|c| &c.kind), Some(ConstKind::Undef)))
}

fn callee_fn(m: &Module, callee: Value) -> Option<&Function> {
    match callee {
        Value::Function(h) => m.functions.try_get(h),
        _ => None,
    }
}

/// Type of call argument `i`: the value's own type, else the callee's parameter type.
fn arg_type(m: &Module, f: &Function, callee: Value, args: &[Value], i: usize) -> Option<TypeH> {
    args.get(i)
        .and_then(|v| value_type(m, f, *v))
        .or_else(|| callee_fn(m, callee).and_then(|c| c.params.get(i).copied()))
}

fn empty_matrix(op: MatrixOpKind, encoding: MatrixEncoding, opcode: u32) -> MatrixMemOp {
    MatrixMemOp::new(op, encoding, opcode)
}

/// Collects facts from every function body, resolving handles with `res`.
/// Every handle-creating call is resolved too, so heap resources exist for
/// annotateHandle sites that feed no fact.
pub fn collect(m: &Module, types: &MatrixTypes, res: &mut Resolver<'_>) -> Vec<Fact> {
    let mut facts = Vec::new();
    // Byte-address-buffer accesses go after the matrix and long-vector facts.
    let mut accesses = Vec::new();
    for (fh, f) in m.functions.iter() {
        if f.is_declaration {
            continue;
        }
        for (_, b) in f.blocks.iter() {
            for &ih in &b.insts {
                let Some(inst) = f.insts.try_get(ih) else { continue };
                let InstKind::Call { callee, args, dx_op } = &inst.kind else { continue };
                let Some(op) = dx_op.or_else(|| call_opcode(m, *callee, args)) else { continue };
                if let Some(acc) = byte_buffer_access(m, res, fh, f, ih, op, *callee, args) {
                    accesses.push(Fact { function: fh, inst: ih, kind: FactKind::Access(acc) });
                }
                if let Some(kind) = fact_for(m, types, res, fh, f, ih, op, *callee, args) {
                    facts.push(Fact { function: fh, inst: ih, kind });
                } else if matches!(
                    op,
                    dxop::ANNOTATE_HANDLE
                        | dxop::CREATE_HANDLE
                        | dxop::CREATE_HANDLE_FROM_BINDING
                        | dxop::CREATE_HANDLE_FOR_LIB
                ) {
                    let _ = res.resolve(fh, Value::Inst(ih));
                }
            }
        }
    }
    facts.extend(accesses);
    facts
}

/// Size in bytes of the scalar of a type: itself, a vector's element, or the
/// first member of a `%dx.types.ResRet.*` struct.
fn scalar_bytes(m: &Module, mut ty: TypeH) -> Option<u32> {
    for _ in 0..=crate::read::limits::MAX_TYPE_DEPTH {
        match m.types.try_get(ty)? {
            Type::Int { bits } | Type::Float { bits } => return Some(u32::from(*bits).div_ceil(8)),
            Type::Bool => return Some(4),
            Type::Vector { elem, .. } => ty = *elem,
            Type::Struct { members, .. } => ty = *members.first()?,
            _ => return None,
        }
    }
    None
}

/// A load or store on a byte-address buffer (`ByteAddressBuffer` /
/// `RWByteAddressBuffer`): `bufferLoad/Store` (68/69), `rawBufferLoad/Store`
/// (139/140) and `rawBufferVectorLoad/Store` (303/304) of 4 or fewer
/// components (longer vectors belong to the long-vector rules). The address
/// is the byte offset (`index` operand); the declared alignment is the
/// `alignment` immediate, and a 32-bit access needs 4 bytes whatever it says.
#[allow(clippy::too_many_arguments)]
fn byte_buffer_access(
    m: &Module,
    res: &mut Resolver<'_>,
    fh: FuncH,
    f: &Function,
    ih: InstH,
    op: u32,
    callee: Value,
    args: &[Value],
) -> Option<MemAccess> {
    let store = matches!(op, dxop::BUFFER_STORE | dxop::RAW_BUFFER_STORE | dxop::RAW_BUFFER_VECTOR_STORE);
    // (value operand for the component type, write mask, alignment)
    let (value_at, mask_at, align_at) = match op {
        dxop::BUFFER_LOAD => (None, None, None),
        dxop::BUFFER_STORE => (Some(4), Some(8), None),
        dxop::RAW_BUFFER_LOAD => (None, Some(4), Some(5)),
        dxop::RAW_BUFFER_STORE => (Some(4), Some(8), Some(9)),
        dxop::RAW_BUFFER_VECTOR_LOAD => (None, None, Some(4)),
        dxop::RAW_BUFFER_VECTOR_STORE => (Some(4), None, Some(5)),
        _ => return None,
    };
    let h = args.get(1).and_then(|v| res.resolve(fh, *v)).unwrap_or_default();
    let kind = h.resource.and_then(|r| m.resources.try_get(r)).map(|r| r.kind).or(h.kind);
    if kind != Some(ResourceKind::RAW_BUFFER) {
        return None;
    }
    let ty = match value_at {
        Some(i) => arg_type(m, f, callee, args, i),
        None => f.insts.try_get(ih).map(|i| i.ty),
    }?;
    let component_bytes = scalar_bytes(m, ty)?;
    let count = match (op, mask_at) {
        (dxop::RAW_BUFFER_VECTOR_LOAD | dxop::RAW_BUFFER_VECTOR_STORE, _) => vector_shape(m, ty).map_or(1, |s| s.0),
        (_, Some(i)) => args.get(i).and_then(|v| m.const_int(*v)).map_or(0, |mask| 64 - (mask & 0xF).leading_zeros()),
        _ => 0,
    };
    if count > 4 {
        return None;
    }
    let declared = align_at.and_then(|i| args.get(i)).and_then(|v| m.const_int(*v)).filter(|a| *a > 0);
    Some(MemAccess {
        kind: AccessKind::DxilByteBuffer,
        operand: "offset",
        store,
        address: Address { root: AddrRoot::Int(*args.get(2)?), offset: 0, terms: Vec::new() },
        declared,
        required: (component_bytes == 4).then_some(4),
        component_bytes,
        count,
        stride: None,
        resource: h.resource,
    })
}

#[allow(clippy::too_many_arguments)]
fn fact_for(
    m: &Module,
    types: &MatrixTypes,
    res: &mut Resolver<'_>,
    fh: FuncH,
    f: &Function,
    ih: InstH,
    op: u32,
    callee: Value,
    args: &[Value],
) -> Option<FactKind> {
    let arg = |i: usize| args.get(i).copied();
    let val = |i: usize| arg(i).map(Operand::Value);
    let handle = |res: &mut Resolver<'_>, i: usize| -> HandleInfo {
        arg(i).and_then(|v| res.resolve(fh, v)).unwrap_or_default()
    };
    match op {
        dxop::RAW_BUFFER_VECTOR_LOAD | dxop::RAW_BUFFER_VECTOR_STORE => {
            let store = op == dxop::RAW_BUFFER_VECTOR_STORE;
            let h = handle(res, 1);
            let shape = if store {
                arg_type(m, f, callee, args, 4).and_then(|t| vector_shape(m, t))
            } else {
                f.insts.try_get(ih).and_then(|i| vector_shape(m, i.ty))
            };
            let shape = shape.or_else(|| {
                let name = &callee_fn(m, callee)?.name;
                let (_, ovl) = dxop::split_callee(name)?;
                ovl.iter().find_map(|o| dxop::parse_vector_overload(o))
            });
            let (count, component_bytes, float) = shape.unwrap_or((0, 0, false));
            let align_idx = if store { 5 } else { 4 };
            Some(FactKind::RawVector(RawVectorAccess {
                store,
                resource: h.resource,
                kind: h.kind,
                index: val(2)?,
                element_offset: arg(3).filter(|v| !is_undef(m, *v)).map(Operand::Value),
                count,
                component_bytes,
                float,
                alignment: arg(align_idx).and_then(|v| m.const_int(v)),
            }))
        }
        dxop::MAT_VEC_MUL | dxop::MAT_VEC_MUL_ADD => {
            let add = op == dxop::MAT_VEC_MUL_ADD;
            let kind = if add { MatrixOpKind::MatVecMulAdd } else { MatrixOpKind::MatVecMul };
            let mut mo = empty_matrix(kind, MatrixEncoding::DxilPreview, op);
            mo.resource = handle(res, 4).resource;
            mo.offset = val(5);
            mo.element = val(6);
            mo.rows = val(7);
            mo.cols = val(8);
            mo.layout = val(9);
            mo.transpose = val(10);
            mo.stride = val(11);
            if add {
                mo.bias_offset = val(13);
            }
            Some(FactKind::Matrix(mo))
        }
        dxop::OUTER_PRODUCT_ACCUMULATE => {
            let mut mo = empty_matrix(MatrixOpKind::OuterProductAccumulate, MatrixEncoding::DxilPreview, op);
            let count = |i: usize| {
                arg_type(m, f, callee, args, i).and_then(|t| vector_shape(m, t)).map(|s| Operand::Imm(u64::from(s.0)))
            };
            mo.rows = count(1);
            mo.cols = count(2);
            mo.resource = handle(res, 3).resource;
            mo.offset = val(4);
            mo.element = val(5);
            mo.layout = val(6);
            mo.stride = val(7);
            Some(FactKind::Matrix(mo))
        }
        dxop::VECTOR_ACCUMULATE => {
            let mut mo = empty_matrix(MatrixOpKind::VectorAccumulate, MatrixEncoding::DxilPreview, op);
            mo.cols =
                arg_type(m, f, callee, args, 1).and_then(|t| vector_shape(m, t)).map(|s| Operand::Imm(u64::from(s.0)));
            mo.resource = handle(res, 2).resource;
            mo.offset = val(3);
            Some(FactKind::Matrix(mo))
        }
        la::LOAD_FROM_DESCRIPTOR
        | la::STORE_TO_DESCRIPTOR
        | la::ACCUMULATE_TO_DESCRIPTOR
        | la::LOAD_FROM_MEMORY
        | la::STORE_TO_MEMORY
        | la::ACCUMULATE_TO_MEMORY => {
            let load = matches!(op, la::LOAD_FROM_DESCRIPTOR | la::LOAD_FROM_MEMORY);
            let kind = match op {
                la::LOAD_FROM_DESCRIPTOR | la::LOAD_FROM_MEMORY => MatrixOpKind::Load,
                la::STORE_TO_DESCRIPTOR | la::STORE_TO_MEMORY => MatrixOpKind::Store,
                _ => MatrixOpKind::Accumulate,
            };
            let memory = matches!(op, la::LOAD_FROM_MEMORY | la::STORE_TO_MEMORY | la::ACCUMULATE_TO_MEMORY);
            let enc = if memory { MatrixEncoding::DxilLinAlgGroupShared } else { MatrixEncoding::DxilLinAlg };
            let mut mo = empty_matrix(kind, enc, op);
            let mat_ty = if load { f.insts.try_get(ih).map(|i| i.ty) } else { arg_type(m, f, callee, args, 1) };
            if let Some(t) = mat_ty.and_then(|t| types.get(m, t)) {
                mo.element = Some(Operand::Imm(u64::from(t.component)));
                mo.rows = Some(Operand::Imm(u64::from(t.m)));
                mo.cols = Some(Operand::Imm(u64::from(t.n)));
                mo.matrix_use = Some(t.matrix_use);
                mo.scope = Some(t.scope);
            }
            // Position of the first operand after the matrix (stores) / opcode (loads):
            // descriptor: handle, offset, stride, layout, align;
            // memory: pointer, [targetType for accumulate], offset, stride, layout.
            let first = if load { 1 } else { 2 };
            if memory {
                let skip = usize::from(op == la::ACCUMULATE_TO_MEMORY);
                mo.offset = val(first + 1 + skip);
                mo.stride = val(first + 2 + skip);
                mo.layout = val(first + 3 + skip);
            } else {
                mo.resource = handle(res, first).resource;
                mo.offset = val(first + 1);
                mo.stride = val(first + 2);
                mo.layout = val(first + 3);
                mo.align = val(first + 4);
            }
            Some(FactKind::Matrix(mo))
        }
        la::VECTOR_ACCUMULATE_TO_DESCRIPTOR => {
            let mut mo = empty_matrix(MatrixOpKind::VectorAccumulate, MatrixEncoding::DxilLinAlg, op);
            mo.resource = handle(res, 1).resource;
            mo.offset = val(2);
            mo.align = val(3);
            mo.cols =
                arg_type(m, f, callee, args, 4).and_then(|t| vector_shape(m, t)).map(|s| Operand::Imm(u64::from(s.0)));
            Some(FactKind::Matrix(mo))
        }
        _ => None,
    }
}

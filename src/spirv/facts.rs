//! Matrix-operation facts: `SPV_NV_cooperative_vector` (5289–5292, 5302, 5303) and
//! `SPV_KHR_cooperative_matrix` load/store (4457, 4458). Operands stay SSA values
//! (constants, spec constants, loads) for the dataflow to evaluate.

use super::lower::{Lowerer, Slot};
use crate::ir::*;

/// NV `ComponentType` (= `VkComponentTypeKHR`) of a scalar type, when it has one.
fn component_type(l: &Lowerer<'_>, ty: TypeH) -> Option<u64> {
    let extra = l.type_extra.get(ty.index()).copied().unwrap_or(0);
    Some(match l.m.types.try_get(ty)? {
        // Float encodings (+1): 0 BFloat16KHR, 4214 Float8E4M3EXT, 4215 Float8E5M2EXT.
        Type::Float { .. } if extra == 1 => 1_000_141_000,
        Type::Float { .. } if extra == 4215 => 1_000_491_002,
        Type::Float { .. } if extra == 4216 => 1_000_491_003,
        Type::Float { bits: 16 } => 0,
        Type::Float { bits: 32 } => 1,
        Type::Float { bits: 64 } => 2,
        Type::Int { bits } => {
            let signed = extra == 1;
            match (bits, signed) {
                (8, true) => 3,
                (16, true) => 4,
                (32, true) => 5,
                (64, true) => 6,
                (8, false) => 7,
                (16, false) => 8,
                (32, false) => 9,
                (64, false) => 10,
                _ => return None,
            }
        }
        _ => return None,
    })
}

impl Lowerer<'_> {
    pub(super) fn operand(&self, args: &[u32], i: usize) -> Option<Operand> {
        args.get(i).and_then(|&id| self.try_value(id)).map(Operand::Value)
    }

    /// Component count of a vector type as an operand (the count constant for
    /// `OpTypeVectorIdEXT`, an immediate for `OpTypeVector`).
    pub(super) fn vector_count(&self, ty: TypeH) -> Option<Operand> {
        if let Some(c) = self.vec_count.get(&ty) {
            return Some(Operand::Value(Value::Const(*c)));
        }
        match self.m.types.try_get(ty)? {
            Type::Vector { count, .. } => Some(Operand::Imm(*count as u64)),
            _ => None,
        }
    }

    pub(super) fn vector_component(&self, ty: TypeH) -> Option<Operand> {
        match self.m.types.try_get(ty)? {
            Type::Vector { elem, .. } => component_type(self, *elem).map(Operand::Imm),
            _ => None,
        }
    }

    /// The buffer resource a pointer value points into, through access chains and casts.
    pub(super) fn resource_of(&self, f: &Function, mut v: Value) -> Option<ResourceH> {
        for _ in 0..32 {
            match v {
                Value::Global(g) => return self.global_resource.get(&g).copied(),
                Value::Inst(h) => match &f.insts.try_get(h)?.kind {
                    InstKind::Gep { base, .. } => v = *base,
                    InstKind::Cast { value, .. } => v = *value,
                    // OpCopyObject
                    InstKind::Other { opcode: 83, operands } => v = *operands.first()?,
                    _ => return None,
                },
                _ => return None,
            }
        }
        None
    }

    pub(super) fn fact(&mut self, f: &Function, fh: FuncH, h: InstH, opcode: u32, args: &[u32]) {
        let o = |i: usize| self.operand(args, i);
        let ptr_at = match opcode {
            5289 | 5292 => 2,
            _ => 0,
        };
        let resource = args.get(ptr_at).and_then(|&id| self.try_value(id)).and_then(|p| self.resource_of(f, p));
        let mut mm = MatrixMemOp::new(MatrixOpKind::MatVecMul, MatrixEncoding::SpirvCoopVec, opcode);
        mm.resource = resource;
        let value_ty =
            |l: &Self, i: usize| args.get(i).and_then(|&id| l.try_value(id)).and_then(|v| l.value_type(Some(f), v));
        match opcode {
            5289 => {
                mm.offset = o(3);
                mm.element = o(4);
                mm.rows = o(5);
                mm.cols = o(6);
                mm.layout = o(7);
                mm.transpose = o(8);
                mm.stride = o(9);
            }
            5292 => {
                mm.op = MatrixOpKind::MatVecMulAdd;
                mm.offset = o(3);
                mm.element = o(4);
                mm.bias_offset = o(6);
                mm.rows = o(8);
                mm.cols = o(9);
                mm.layout = o(10);
                mm.transpose = o(11);
                mm.stride = o(12);
            }
            5290 => {
                mm.op = MatrixOpKind::OuterProductAccumulate;
                mm.offset = o(1);
                mm.rows = value_ty(self, 2).and_then(|t| self.vector_count(t));
                mm.cols = value_ty(self, 3).and_then(|t| self.vector_count(t));
                mm.layout = o(4);
                mm.element = o(5);
                mm.stride = o(6);
            }
            5291 => {
                mm.op = MatrixOpKind::ReduceSum;
                mm.offset = o(1);
                mm.rows = value_ty(self, 2).and_then(|t| self.vector_count(t));
                mm.element = value_ty(self, 2).and_then(|t| self.vector_component(t));
            }
            5302 | 5303 => {
                mm.op = if opcode == 5302 { MatrixOpKind::VectorLoad } else { MatrixOpKind::VectorStore };
                mm.offset = o(1);
                let vty = if opcode == 5302 { Some(f.insts[h].ty) } else { value_ty(self, 2) };
                mm.rows = vty.and_then(|t| self.vector_count(t));
                mm.element = vty.and_then(|t| self.vector_component(t));
            }
            4457 | 4458 => {
                let load = opcode == 4457;
                mm.op = if load { MatrixOpKind::Load } else { MatrixOpKind::Store };
                mm.encoding = MatrixEncoding::SpirvCoopMatrix;
                mm.layout_numbering = LayoutNumbering::SpirvKhr;
                let (layout_at, mty) = if load { (1, Some(f.insts[h].ty)) } else { (2, value_ty(self, 1)) };
                mm.layout = o(layout_at);
                mm.stride = o(layout_at + 1);
                if let Some(info) = mty.and_then(|t| self.coop_matrix.get(&t)).copied() {
                    let [comp, _scope, rows, cols, usage] = info;
                    if let Slot::Type(ct) = self.slot(comp) {
                        mm.element = component_type(self, ct).map(Operand::Imm);
                    }
                    let c = |id: u32| self.try_value(id).filter(|v| matches!(v, Value::Const(_)));
                    mm.rows = c(rows).map(Operand::Value);
                    mm.cols = c(cols).map(Operand::Value);
                    mm.matrix_use = c(usage).and_then(|v| self.m.const_int(v)).map(|u| u as u32);
                }
            }
            _ => return,
        }
        self.m.facts.push(Fact { function: fh, inst: h, kind: FactKind::Matrix(mm) });
    }
}

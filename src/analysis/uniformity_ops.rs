//! What the uniformity analysis knows of memory and operations: the root each
//! pointer points into, which globals every lane sees alike, and the uniform or
//! divergent operations of each front end.

use super::*;

/// What each pointer-typed instruction points into, for loads: the root of a
/// chain of address computations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Root {
    Alloca(InstH),
    Global(crate::ir::GlobalH),
    Arg(u32),
    Other,
}

pub(super) struct MemoryRoots {
    /// Root of each instruction's pointer value.
    pub(super) root: Vec<Root>,
    /// Allocas whose address escapes (is stored, passed, merged).
    pub(super) escaped: Vec<bool>,
    /// Stores by alloca.
    pub(super) stores: FxHashMap<InstH, Vec<InstH>>,
}

impl MemoryRoots {
    pub(super) fn new(m: &Module, f: &Function) -> MemoryRoots {
        let n = f.insts.len();
        let mut root = vec![Root::Other; n];
        let mut escaped = vec![false; n];
        let mut stores: FxHashMap<InstH, Vec<InstH>> = FxHashMap::default();
        let root_of = |root: &[Root], v: Value| match v {
            Value::Inst(h) => root.get(h.index()).copied().unwrap_or(Root::Other),
            Value::Global(g) => Root::Global(g),
            Value::Arg(i) => Root::Arg(i),
            Value::Const(c) => match m.constants.try_get(c).map(|c| &c.kind) {
                Some(ConstKind::Expr(_)) => crate::dxil::resources::global_of(m, v).map_or(Root::Other, Root::Global),
                _ => Root::Other,
            },
            Value::Function(_) => Root::Other,
        };
        // Blocks in order: a use follows its definition except through phis,
        // and phis of pointers escape anyway.
        for (_, b) in f.blocks.iter() {
            for &ih in &b.insts {
                let Some(inst) = f.insts.try_get(ih) else { continue };
                let r = match &inst.kind {
                    InstKind::Alloca { .. } => Root::Alloca(ih),
                    InstKind::Gep { base, .. } => root_of(&root, *base),
                    InstKind::Cast { value, .. } => root_of(&root, *value),
                    // Integer address arithmetic (PTX `[%rd + 8]`, `ptrtoint` + offset).
                    InstKind::Binary { op: BinOp::Add | BinOp::Sub, lhs, rhs } => match root_of(&root, *lhs) {
                        Root::Other => root_of(&root, *rhs),
                        r => r,
                    },
                    _ => Root::Other,
                };
                if let Some(x) = root.get_mut(ih.index()) {
                    *x = r;
                }
                // Every use of an alloca-derived pointer other than as an
                // address (load/store pointer, GEP base, cast) escapes it.
                let mut escape = |v: Value| {
                    if let Root::Alloca(a) = root_of(&root, v) {
                        if let Some(e) = escaped.get_mut(a.index()) {
                            *e = true;
                        }
                    }
                };
                match &inst.kind {
                    InstKind::Load { .. } | InstKind::Alloca { .. } | InstKind::Cast { .. } => {}
                    InstKind::Binary { op: BinOp::Add | BinOp::Sub, .. } => {}
                    InstKind::Gep { indices, .. } => indices.iter().for_each(|v| escape(*v)),
                    InstKind::Store { ptr, value } => {
                        escape(*value);
                        if let Root::Alloca(a) = root_of(&root, *ptr) {
                            stores.entry(a).or_default().push(ih);
                        }
                    }
                    k => for_each_operand(k, escape),
                }
            }
        }
        MemoryRoots { root, escaped, stores }
    }

    pub(super) fn root(&self, v: Value) -> Root {
        match v {
            Value::Inst(h) => self.root.get(h.index()).copied().unwrap_or(Root::Other),
            Value::Global(g) => Root::Global(g),
            Value::Arg(i) => Root::Arg(i),
            _ => Root::Other,
        }
    }
}

/// Is memory behind global `g` the same for every lane (and never written by
/// one)? `None` when uniform.
pub(super) fn global_memory(m: &Module, g: crate::ir::GlobalH) -> Option<Cause> {
    let Some(gv) = m.globals.try_get(g) else { return Some(Cause::Source("load from an unknown global")) };
    match m.source {
        SourceKind::Spirv => {
            let resource = m.resources.values().find(|r| r.id == gv.span.id && gv.span.id != u32::MAX);
            match gv.space {
                // UniformConstant (images, samplers, acceleration structures), PushConstant.
                0 | 9 => None,
                // Uniform: uniform buffers, and BufferBlock storage buffers (writable unless NonWritable).
                2 | 12 => match resource.map(|r| r.class) {
                    Some(ResourceClass::Uav) => {
                        Some(Cause::Source("load from a writable storage buffer (per-lane load)"))
                    }
                    None if gv.space == 12 => {
                        Some(Cause::Source("load from a writable storage buffer (per-lane load)"))
                    }
                    _ => None,
                },
                1 => match m.builtins.iter().find(|(x, _)| *x == g).map(|(_, b)| *b) {
                    Some(b) => spirv_builtin(b),
                    None => Some(Cause::Source("per-lane shader input")),
                },
                4 => Some(Cause::Source("load from workgroup (shared) memory (per-lane load)")),
                6 => Some(Cause::Source("load from per-invocation Private memory")),
                _ => Some(Cause::Source("load from per-lane or writable memory")),
            }
        }
        SourceKind::Dxil => {
            if gv.is_const {
                None
            } else if gv.space == 3 {
                Some(Cause::Source("load from groupshared memory (per-lane load)"))
            } else {
                Some(Cause::Source("load from a per-thread static variable"))
            }
        }
        SourceKind::Ptx => {
            if gv.space == 4 {
                None
            } else {
                Some(Cause::Source("load from memory lanes may write (per-lane load)"))
            }
        }
    }
}

/// SPIR-V `BuiltIn` values: uniform for workgroup- and dispatch-wide ones.
pub(super) fn spirv_builtin(b: u32) -> Option<Cause> {
    match b {
        // NumWorkgroups, WorkgroupSize, WorkgroupId, SubgroupSize, NumSubgroups, SubgroupId.
        24 | 25 | 26 | 36 | 38 | 40 => None,
        // LocalInvocationId, GlobalInvocationId, LocalInvocationIndex.
        27 => Some(Cause::Source("thread id (LocalInvocationId)")),
        28 => Some(Cause::Source("thread id (GlobalInvocationId)")),
        29 => Some(Cause::Source("thread id (LocalInvocationIndex)")),
        41 => Some(Cause::Source("lane id (SubgroupLocalInvocationId)")),
        42 => Some(Cause::Source("vertex index (VertexIndex)")),
        43 => Some(Cause::Source("instance index (InstanceIndex)")),
        5319 => Some(Cause::Source("launch id (LaunchIdKHR)")),
        _ => Some(Cause::Source("per-lane built-in input")),
    }
}

pub(super) enum DxKind {
    /// Uniform when every argument is.
    Pure,
    /// Always uniform (wave reductions, group id, lane count).
    Uniform,
    /// Uniform when argument `i` (the lane) is.
    LaneArg(usize),
    /// A buffer load: uniform for uniform arguments on a read-only buffer.
    BufferLoad,
    /// Divergent.
    Divergent(&'static str),
}

/// What a dx.op computes, for uniformity.
pub(super) fn dxil_op(op: u32) -> DxKind {
    match op {
        93 => DxKind::Divergent("thread id (dx.op.threadId, SV_DispatchThreadID)"),
        95 => DxKind::Divergent("thread id (dx.op.threadIdInGroup, SV_GroupThreadID)"),
        96 => DxKind::Divergent("thread id (dx.op.flattenedThreadIdInGroup, SV_GroupIndex)"),
        111 => DxKind::Divergent("lane id (dx.op.waveGetLaneIndex)"),
        110 => DxKind::Divergent("dx.op.waveIsFirstLane"),
        4 => DxKind::Divergent("per-lane shader input (dx.op.loadInput)"),
        78 | 79 => DxKind::Divergent("atomic result"),
        94 | 112 | 113 | 114 | 115 | 116 | 118 | 119 | 120 | 135 | 146 | 256 | 257 => DxKind::Uniform,
        117 => DxKind::LaneArg(2),
        6..=56 | 57 | 58 | 59 | 72 | 101 | 102 | 124..=134 | 160 | 162..=164 | 216..=220 => DxKind::Pure,
        68 | 139 | 303 => DxKind::BufferLoad,
        _ => DxKind::Divergent("operation the analysis does not model"),
    }
}

pub(super) enum OpKind {
    Pure,
    /// Pure unless it reads memory through a pointer operand (`OpExtInst`'s `Interpolate*`, `Modf`).
    PureNoPointers,
    Uniform,
    /// Uniform when operand `i` (the source lane) is.
    Lane(usize),
    Divergent(&'static str),
}

/// SPIR-V opcodes kept as `Other`.
pub(super) fn spirv_op(op: u32) -> OpKind {
    match op {
        12 => OpKind::PureNoPointers,
        // OpCopyObject, OpTranspose, OpSampledImage, OpImage, OpArrayLength, OpConvertUToAccelerationStructureKHR.
        83 | 84 | 86 | 100 | 68 | 4447 => OpKind::Pure,
        // Image queries.
        103..=107 => OpKind::Pure,
        // OpQuantizeToF16, vector/matrix products, dot, carries, any/all, IsNan..., bit ops, OpCopyLogical.
        116 | 142..=152 | 154..=161 | 201..=205 | 400 => OpKind::Pure,
        // OpGroupNonUniformBallotBitExtract, BallotFindLSB / MSB: functions of a ballot.
        341 | 343 | 344 => OpKind::Pure,
        // OpGroupNonUniformAll/Any/AllEqual/BroadcastFirst/Ballot, OpSubgroupBallotKHR,
        // OpSubgroupFirstInvocationKHR, OpSubgroupAllKHR/AnyKHR/AllEqualKHR.
        334 | 335 | 336 | 338 | 339 | 4421 | 4422 | 4428 | 4429 | 4430 => OpKind::Uniform,
        // OpGroupNonUniformBroadcast (scope, value, id), Shuffle (scope, value, id),
        // OpSubgroupReadInvocationKHR (value, index).
        337 | 345 => OpKind::Lane(2),
        4432 => OpKind::Lane(1),
        333 => OpKind::Divergent("OpGroupNonUniformElect"),
        227..=242 | 4500..=4510 | 5615 | 5616 | 6035 => OpKind::Divergent("atomic result"),
        // Arithmetic group operations: the Reduce / scan operand is a literal the IR drops.
        340 | 342 | 346..=366 => {
            OpKind::Divergent("subgroup operation that may be a scan (the IR does not keep its GroupOperation)")
        }
        _ => OpKind::Divergent("operation the analysis does not model"),
    }
}

/// PTX instructions and special registers kept as `Other`, by name.
pub(super) fn ptx_op(name: &str) -> OpKind {
    if let Some(reg) = name.strip_prefix('%') {
        let base = reg.split('.').next().unwrap_or(reg);
        return match base {
            "ctaid"
            | "nctaid"
            | "ntid"
            | "nctarank"
            | "gridid"
            | "clusterid"
            | "nclusterid"
            | "cluster_ctaid"
            | "cluster_nctaid"
            | "cluster_ctarank"
            | "cluster_nctarank"
            | "is_explicit_cluster"
            | "nwarpid"
            | "nsmid"
            | "total_smem_size"
            | "dynamic_smem_size"
            | "aggr_smem_size" => OpKind::Uniform,
            "tid" => OpKind::Divergent("thread id (%tid)"),
            "laneid" => OpKind::Divergent("lane id (%laneid)"),
            _ => OpKind::Divergent("per-thread special register"),
        };
    }
    let word: Vec<&str> = name.split('.').collect();
    let head = word.first().copied().unwrap_or("");
    match head {
        "shfl" if word.contains(&"idx") => OpKind::Lane(1),
        "vote" | "redux" | "activemask" => OpKind::Uniform,
        "atom" | "red" => OpKind::Divergent("atomic result"),
        "add" | "sub" | "mul" | "mad" | "mul24" | "mad24" | "sad" | "div" | "rem" | "abs" | "neg" | "min" | "max"
        | "popc" | "clz" | "bfind" | "fns" | "brev" | "bfe" | "bfi" | "prmt" | "dp4a" | "dp2a" | "and" | "or"
        | "xor" | "not" | "cnot" | "lop3" | "shf" | "shl" | "shr" | "selp" | "slct" | "set" | "setp" | "cvt"
        | "cvta" | "mov" | "fma" | "rcp" | "sqrt" | "rsqrt" | "sin" | "cos" | "lg2" | "ex2" | "tanh" | "copysign"
        | "testp" | "addc" | "subc" | "madc" | "szext" | "bmsk" => OpKind::Pure,
        _ => OpKind::Divergent("operation the analysis does not model"),
    }
}

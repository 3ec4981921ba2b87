//! Resources and the typed facts front ends produce for the rules: matrix
//! memory operations and raw-buffer vector accesses, with their operands as
//! immediates or SSA values for the dataflow to evaluate.

use super::module::{FuncH, InstH, ResourceH, Span, Value};

/// Resource class (DXIL `ResourceClass`).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ResourceClass {
    Srv,
    Uav,
    CBuffer,
    Sampler,
}

/// Resource kind (DXIL `ResourceKind` numbering; SPIR-V buffers map onto 11/12).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ResourceKind(pub u32);

#[allow(missing_docs)]
impl ResourceKind {
    pub const TYPED_BUFFER: Self = ResourceKind(10);
    pub const RAW_BUFFER: Self = ResourceKind(11);
    pub const STRUCTURED_BUFFER: Self = ResourceKind(12);
    pub const CBUFFER: Self = ResourceKind(13);
    pub const SAMPLER: Self = ResourceKind(14);

    /// A readable name (`StructuredBuffer`, `RawBuffer`, ...).
    pub fn name(self) -> &'static str {
        match self.0 {
            0 => "Invalid",
            1 => "Texture1D",
            2 => "Texture2D",
            3 => "Texture2DMS",
            4 => "Texture3D",
            5 => "TextureCube",
            6 => "Texture1DArray",
            7 => "Texture2DArray",
            8 => "Texture2DMSArray",
            9 => "TextureCubeArray",
            10 => "TypedBuffer",
            11 => "RawBuffer",
            12 => "StructuredBuffer",
            13 => "CBuffer",
            14 => "Sampler",
            15 => "TBuffer",
            16 => "RTAccelerationStructure",
            17 => "FeedbackTexture2D",
            18 => "FeedbackTexture2DArray",
            _ => "Unknown",
        }
    }
}

/// How a resource is bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Binding {
    /// DXIL register binding: `t0 space0` (`range == u32::MAX`: unbounded).
    Register {
        /// Space.
        space: u32,
        /// First register.
        lower_bound: u32,
        /// Number of registers.
        range: u32,
    },
    /// DXIL SM 6.6 heap handle (`ResourceDescriptorHeap[...]`) at this call site.
    Heap {
        /// Function of the annotateHandle call.
        function: FuncH,
        /// The annotateHandle instruction.
        inst: InstH,
    },
    /// SPIR-V descriptor set and binding.
    Descriptor {
        /// `DescriptorSet`.
        set: Option<u32>,
        /// `Binding`.
        binding: Option<u32>,
    },
}

/// A resource (buffer, texture, sampler) with what the rules need.
#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    /// Class.
    pub class: ResourceClass,
    /// Kind.
    pub kind: ResourceKind,
    /// Name (empty in stripped DXIL).
    pub name: Option<String>,
    /// Binding.
    pub binding: Binding,
    /// Element stride in bytes (StructuredBuffer; SPIR-V `ArrayStride`).
    pub stride: Option<u32>,
    /// DXIL per-class record id (`createHandle` range id); SPIR-V variable id.
    pub id: u32,
    /// Where it is declared (a global / variable span; source line when known).
    pub span: Span,
}

/// An operand of a fact: an immediate known at lowering, or an SSA value for
/// the dataflow to evaluate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operand {
    /// Known value.
    Imm(u64),
    /// SSA value in the fact's function.
    Value(Value),
}

/// Numbering of an interpretation / component-type operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComponentNumbering {
    /// DXIL ComponentType after DXC `44efa2947` (19 = I8, 20 = U8).
    Dxil,
    /// DXIL ComponentType before March 2026 (19 = U8, 20 = I8): preview ops.
    DxilPreview,
    /// SPIR-V `ComponentType` (NV numbering).
    Spirv,
}

/// Numbering of a matrix-layout operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayoutNumbering {
    /// Preview DXIL: 0 Row, 1 Column, 2 MulOptimal, 3 OuterProductOptimal.
    DxilPreview,
    /// SM 6.10 LinAlg: 0 Row, 1 Column, 2 MulOptimal, 3 MulOptimalTranspose,
    /// 4 OuterProductOptimal, 5 OuterProductOptimalTranspose.
    DxilLinAlg,
    /// SPIR-V NV: 0 RowMajor, 1 ColumnMajor, 2 InferencingOptimal, 3 TrainingOptimal.
    SpirvNv,
    /// SPIR-V KHR cooperative matrix: 0 RowMajor, 1 ColumnMajor, 4202/4203 ARM.
    SpirvKhr,
}

/// Which matrix operation a [`MatrixMemOp`] is.
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MatrixOpKind {
    /// Matrix × vector (preview 305, LinAlg load feeding a MatVecMul, SPIR-V MatrixMulNV).
    MatVecMul,
    MatVecMulAdd,
    OuterProductAccumulate,
    VectorAccumulate,
    /// LinAlg `MatrixLoadFromDescriptor` / `…FromMemory`, SPIR-V `OpCooperativeMatrixLoadKHR`.
    Load,
    /// LinAlg `MatrixStoreToDescriptor` / `…ToMemory`, SPIR-V `OpCooperativeMatrixStoreKHR`.
    Store,
    /// LinAlg `MatrixAccumulateToDescriptor` / `…ToMemory`.
    Accumulate,
    /// SPIR-V `OpCooperativeVectorReduceSumAccumulateNV`.
    ReduceSum,
    /// SPIR-V `OpCooperativeVectorLoadNV`.
    VectorLoad,
    /// SPIR-V `OpCooperativeVectorStoreNV`.
    VectorStore,
}

/// Instruction encoding of a matrix operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatrixEncoding {
    /// DXIL preview cooperative-vector op (305–308).
    DxilPreview,
    /// DXIL SM 6.10 LinAlg op (`0x8000_00nn`).
    DxilLinAlg,
    /// SPIR-V `SPV_NV_cooperative_vector`.
    SpirvCoopVec,
    /// SPIR-V `SPV_KHR_cooperative_matrix` (stride in elements; recorded only).
    SpirvCoopMatrix,
    /// DXIL SM 6.10 LinAlg groupshared op (`linAlgMatrix{Load,Store,Accumulate}…Memory`):
    /// offset and stride count matrix *elements*, not bytes; recorded only.
    DxilLinAlgGroupShared,
}

/// A matrix memory operation (cooperative vectors / LinAlg / cooperative matrix).
#[derive(Debug, Clone, PartialEq)]
pub struct MatrixMemOp {
    /// Operation.
    pub op: MatrixOpKind,
    /// Encoding (decides the enum numberings and the rule's expectations).
    pub encoding: MatrixEncoding,
    /// Opcode (DXIL op number / SPIR-V opcode).
    pub opcode: u32,
    /// Rows (M).
    pub rows: Option<Operand>,
    /// Columns (preview/SPIR-V: K; LinAlg: N).
    pub cols: Option<Operand>,
    /// Matrix element type / interpretation.
    pub element: Option<Operand>,
    /// Numbering of `element`.
    pub element_numbering: ComponentNumbering,
    /// Memory layout.
    pub layout: Option<Operand>,
    /// Numbering of `layout`.
    pub layout_numbering: LayoutNumbering,
    /// Transpose flag (preview / SPIR-V).
    pub transpose: Option<Operand>,
    /// Stride in bytes (SPIR-V KHR: in elements).
    pub stride: Option<Operand>,
    /// Matrix byte offset.
    pub offset: Option<Operand>,
    /// `align` immediate (LinAlg).
    pub align: Option<Operand>,
    /// Bias byte offset (MulAdd).
    pub bias_offset: Option<Operand>,
    /// LinAlg matrix use (0 A, 1 B, 2 Accumulator).
    pub matrix_use: Option<u32>,
    /// LinAlg scope (0 Thread, 1 Wave, 2 ThreadGroup).
    pub scope: Option<u32>,
    /// The buffer, when resolved.
    pub resource: Option<ResourceH>,
}

impl MatrixMemOp {
    /// A fact with no operands yet; the enum numberings follow from the encoding.
    pub fn new(op: MatrixOpKind, encoding: MatrixEncoding, opcode: u32) -> Self {
        let (element_numbering, layout_numbering) = match encoding {
            MatrixEncoding::DxilPreview => (ComponentNumbering::DxilPreview, LayoutNumbering::DxilPreview),
            MatrixEncoding::DxilLinAlg | MatrixEncoding::DxilLinAlgGroupShared => {
                (ComponentNumbering::Dxil, LayoutNumbering::DxilLinAlg)
            }
            MatrixEncoding::SpirvCoopVec => (ComponentNumbering::Spirv, LayoutNumbering::SpirvNv),
            MatrixEncoding::SpirvCoopMatrix => (ComponentNumbering::Spirv, LayoutNumbering::SpirvKhr),
        };
        MatrixMemOp {
            op,
            encoding,
            opcode,
            rows: None,
            cols: None,
            element: None,
            element_numbering,
            layout: None,
            layout_numbering,
            transpose: None,
            stride: None,
            offset: None,
            align: None,
            bias_offset: None,
            matrix_use: None,
            scope: None,
            resource: None,
        }
    }
}

/// A raw-buffer vector load or store (DXIL 303/304; SPIR-V long-vector access).
#[derive(Debug, Clone, PartialEq)]
pub struct RawVectorAccess {
    /// True for a store.
    pub store: bool,
    /// The buffer, when resolved.
    pub resource: Option<ResourceH>,
    /// The buffer kind when known even without a resource (annotateHandle props).
    pub kind: Option<ResourceKind>,
    /// ByteAddressBuffer: byte offset; StructuredBuffer: element index.
    pub index: Operand,
    /// StructuredBuffer byte offset inside the element (None/undef for raw buffers).
    pub element_offset: Option<Operand>,
    /// Component count N.
    pub count: u32,
    /// Component size in bytes.
    pub component_bytes: u32,
    /// Float components (for the message: `f32`, `i32`, `f16`...).
    pub float: bool,
    /// The `alignment` immediate, when constant.
    pub alignment: Option<u64>,
}

/// What an aligned access is (which rule reads it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessKind {
    /// SPIR-V `OpLoad` / `OpStore` / `OpCopyMemory[Sized]` with an `Aligned`
    /// memory operand through a `PhysicalStorageBuffer` pointer.
    SpirvAligned,
    /// `OpCooperativeMatrixLoadKHR` / `StoreKHR` pointer (and stride).
    CoopMatrix,
    /// `SPV_NV_cooperative_vector` pointer operand (matrix, bias, vector).
    CoopVector,
    /// DXIL load or store on a byte-address buffer (`bufferLoad/Store`,
    /// `rawBufferLoad/Store`, `rawBufferVectorLoad/Store` of 4 or fewer components).
    DxilByteBuffer,
}

/// Where an address comes from: a root plus a constant byte offset plus
/// `index × scale` terms (access-chain steps through `Offset` / `ArrayStride`).
#[derive(Debug, Clone, PartialEq)]
pub struct Address {
    /// The root.
    pub root: AddrRoot,
    /// Constant byte offset added to the root (wrapping).
    pub offset: u64,
    /// `(index, bytes per step)` terms added to the root.
    pub terms: Vec<(Value, u64)>,
}

/// The root of an [`Address`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AddrRoot {
    /// An integer whose dataflow value is the address (the operand of
    /// `OpConvertUToPtr`, a DXIL byte offset).
    Int(Value),
    /// A descriptor-bound buffer or workgroup variable: its base is aligned by
    /// the API (counted as `0 mod 16`).
    Variable(Value),
    /// A pointer the front end cannot look through (loaded from memory, a
    /// function parameter): only what other accesses through it assert is known.
    Opaque(Value),
}

/// A memory access whose address must be aligned.
#[derive(Debug, Clone, PartialEq)]
pub struct MemAccess {
    /// Which rule reads it.
    pub kind: AccessKind,
    /// Which pointer operand (`pointer`, `matrix`, `bias`, `source`, `target`).
    pub operand: &'static str,
    /// True for a store.
    pub store: bool,
    /// The address.
    pub address: Address,
    /// Alignment the instruction declares (SPIR-V `Aligned`, DXIL `alignment`).
    pub declared: Option<u64>,
    /// Alignment the specification requires whatever the declaration says.
    pub required: Option<u64>,
    /// Component size in bytes (0 when unknown).
    pub component_bytes: u32,
    /// Component count (0 when unknown).
    pub count: u32,
    /// Cooperative-matrix stride: the operand and its unit in bytes.
    pub stride: Option<(Operand, u64)>,
    /// The buffer, when resolved.
    pub resource: Option<ResourceH>,
}

/// What a fact says.
#[derive(Debug, Clone, PartialEq)]
pub enum FactKind {
    /// Matrix memory operation.
    Matrix(MatrixMemOp),
    /// Raw-buffer vector access.
    RawVector(RawVectorAccess),
    /// PTX matrix instruction (`ldmatrix`/`stmatrix`, `tcgen05.mma`, block-scaled
    /// `mma`, `cp.async.bulk.tensor`).
    Ptx(super::ptx::PtxMatrixOp),
    /// A memory access whose address alignment the access rules check.
    Access(MemAccess),
}

impl FactKind {
    /// True when a rule reads dataflow values of this fact's operands, so its
    /// function must be analysed: every DXIL / SPIR-V fact, and the PTX facts
    /// whose descriptors or shared-memory addresses the value rules read
    /// (all but block-scaled `mma`; the atom verifiers take only modifiers
    /// and operand shapes).
    pub fn reads_values(&self) -> bool {
        match self {
            FactKind::Ptx(p) => !p.op.value_operands().is_empty(),
            _ => true,
        }
    }
}

/// A typed fact about one instruction, produced by the front end for the rules.
#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    /// Function holding the instruction.
    pub function: FuncH,
    /// The instruction.
    pub inst: InstH,
    /// Payload.
    pub kind: FactKind,
}

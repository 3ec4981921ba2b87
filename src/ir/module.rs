//! The IR data model: one module, its types, constants, globals, functions
//! (basic blocks of SSA instructions, phis first), resources and facts.

use super::handle::{Arena, Handle};

/// Handle to a [`Type`].
pub type TypeH = Handle<Type>;
/// Handle to a module-level [`Constant`].
pub type ConstH = Handle<Constant>;
/// Handle to a [`Global`] variable.
pub type GlobalH = Handle<Global>;
/// Handle to a [`Function`].
pub type FuncH = Handle<Function>;
/// Handle to an [`Inst`] of one function.
pub type InstH = Handle<Inst>;
/// Handle to a [`Block`] of one function.
pub type BlockH = Handle<Block>;
/// Handle to a [`Resource`].
pub type ResourceH = Handle<Resource>;
/// Handle to a [`DebugLoc`].
pub type LocH = Handle<DebugLoc>;

/// Which front end produced a module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    /// DXIL (LLVM 3.7 bitcode inside a DXBC container, or raw `.bc`).
    Dxil,
    /// SPIR-V.
    Spirv,
}

/// A type. DXIL types come from the TYPE_BLOCK in order; SPIR-V types one per type id.
#[derive(Debug, Clone, PartialEq)]
pub enum Type {
    /// `void`.
    Void,
    /// SPIR-V `OpTypeBool` (DXIL uses `Int { bits: 1 }`).
    Bool,
    /// Integer of `bits` width (sign is a property of operations, not the type).
    Int {
        /// Width in bits.
        bits: u16,
    },
    /// Floating point of `bits` width.
    Float {
        /// Width in bits.
        bits: u16,
    },
    /// Fixed-length vector.
    Vector {
        /// Element type.
        elem: TypeH,
        /// Component count.
        count: u32,
    },
    /// Array; `count == None` is a SPIR-V runtime array.
    Array {
        /// Element type.
        elem: TypeH,
        /// Element count (None: runtime-sized).
        count: Option<u64>,
        /// SPIR-V `ArrayStride` decoration, when present.
        stride: Option<u32>,
    },
    /// Structure (named or literal).
    Struct {
        /// Name (`dx.types.Handle`, an `OpName`), if any.
        name: Option<String>,
        /// Member types.
        members: Vec<TypeH>,
    },
    /// Pointer. `space` is the DXIL address space or the SPIR-V storage class.
    Pointer {
        /// Pointee type.
        pointee: TypeH,
        /// Address space / storage class.
        space: u32,
    },
    /// Function signature.
    Function {
        /// Return type.
        ret: TypeH,
        /// Parameter types.
        params: Vec<TypeH>,
    },
    /// Basic-block label type (LLVM).
    Label,
    /// Metadata type (LLVM).
    Metadata,
    /// Anything else (SPIR-V images, samplers, cooperative types, LLVM opaque structs).
    Opaque {
        /// A readable name (`OpTypeImage`, an opaque struct name).
        name: String,
    },
}

/// Where an item came from in the input, and its source location when known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    /// Absolute byte offset of the record (bitcode: of the record's first bit / 8) or
    /// of the SPIR-V instruction's first word, inside the analysed blob.
    pub offset: u64,
    /// DXIL value number or SPIR-V result id; `u32::MAX` when none.
    pub id: u32,
    /// Source location from debug info.
    pub loc: Option<LocH>,
}

impl Span {
    /// A span with only an offset.
    pub fn at(offset: u64) -> Self {
        Span { offset, id: u32::MAX, loc: None }
    }
}

/// A source location (DILocation / OpLine / DebugLine).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DebugLoc {
    /// Index into [`Module::source_files`].
    pub file: u32,
    /// 1-based line; 0 when unknown.
    pub line: u32,
    /// 1-based column; 0 when unknown.
    pub column: u32,
    /// The call site this location was inlined into (DILocation `inlinedAt`).
    pub inlined_at: Option<LocH>,
}

/// A source file named by debug info, with its text when the module embeds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// Path as recorded by the compiler.
    pub name: String,
    /// Embedded text (`dx.source.contents`, `OpSource`, `DebugSource`).
    pub text: Option<String>,
}

/// Integer/float binary operators (LLVM binop codes; SPIR-V maps onto them).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    UDiv,
    SDiv,
    URem,
    SRem,
    Shl,
    LShr,
    AShr,
    And,
    Or,
    Xor,
    FAdd,
    FSub,
    FMul,
    FDiv,
    FRem,
}

/// Unary operators (SPIR-V has these; DXIL spells them as binops).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    Not,
    FNeg,
    LogicalNot,
}

/// Conversions.
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CastOp {
    Trunc,
    ZExt,
    SExt,
    FpToUi,
    FpToSi,
    UiToFp,
    SiToFp,
    FpTrunc,
    FpExt,
    PtrToInt,
    IntToPtr,
    Bitcast,
    AddrSpaceCast,
}

/// Comparison predicates (LLVM numbering: FCMP 0..=15, ICMP 32..=41).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CmpPred(pub u8);

/// An SSA operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Value {
    /// A module-level constant (including spec constants and constant expressions).
    Const(ConstH),
    /// A global variable (its address).
    Global(GlobalH),
    /// A function (its address; callee of a call).
    Function(FuncH),
    /// The n-th argument of the enclosing function.
    Arg(u32),
    /// The result of an instruction of the enclosing function.
    Inst(InstH),
}

/// A module-level constant.
#[derive(Debug, Clone, PartialEq)]
pub struct Constant {
    /// Its type.
    pub ty: TypeH,
    /// Its value.
    pub kind: ConstKind,
    /// SPIR-V `SpecId` (for `OpSpecConstant*`): the value is a default that a
    /// pipeline may override.
    pub spec_id: Option<u32>,
}

/// Constant payloads.
#[derive(Debug, Clone, PartialEq)]
pub enum ConstKind {
    /// Integer, masked to the type's width (i1 `true` is 1).
    Int(u64),
    /// Float bits (half/float/double as raw bits).
    Float(u64),
    /// `undef` / `OpUndef`.
    Undef,
    /// `zeroinitializer` / `null` / `OpConstantNull`.
    Null,
    /// Struct, array or vector of other values (constants).
    Aggregate(Vec<Value>),
    /// String constant bytes (LLVM `c"..."`).
    String(Vec<u8>),
    /// A constant expression (LLVM CE_*, SPIR-V `OpSpecConstantOp`).
    Expr(Box<ConstExpr>),
}

/// A constant expression; evaluated by the dataflow like the instruction it names.
#[derive(Debug, Clone, PartialEq)]
pub enum ConstExpr {
    /// Binary operation.
    Binary(BinOp, Value, Value),
    /// Unary operation.
    Unary(UnOp, Value),
    /// Conversion.
    Cast(CastOp, Value),
    /// Comparison.
    Cmp(CmpPred, Value, Value),
    /// `select(cond, a, b)`.
    Select(Value, Value, Value),
    /// Address computation (LLVM GEP semantics: the first index steps over the pointer).
    Gep {
        /// Base pointer.
        base: Value,
        /// Indices.
        indices: Vec<Value>,
    },
    /// Extract a member of an aggregate constant.
    Extract(Value, Vec<u32>),
    /// Anything else: opcode in the front end's numbering and operands.
    Other(u32, Vec<Value>),
}

/// A global variable (DXIL global / SPIR-V module-scope `OpVariable`).
#[derive(Debug, Clone, PartialEq)]
pub struct Global {
    /// Name (LLVM symbol, SPIR-V `OpName`), if any.
    pub name: Option<String>,
    /// The pointer type of the global.
    pub ty: TypeH,
    /// The pointee (variable) type.
    pub value_ty: TypeH,
    /// Address space / storage class.
    pub space: u32,
    /// Initializer, a constant.
    pub init: Option<Value>,
    /// Declared constant (`isconst`).
    pub is_const: bool,
    /// Provenance.
    pub span: Span,
}

/// A basic block: instruction handles, phis first, terminator last.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Block {
    /// Instructions in order.
    pub insts: Vec<InstH>,
    /// Label name (from the value symbol table / `OpName`), if any.
    pub name: Option<String>,
}

/// An instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct Inst {
    /// Result type (`Type::Void` when it defines no value).
    pub ty: TypeH,
    /// Operation and operands.
    pub kind: InstKind,
    /// Provenance and source location.
    pub span: Span,
}

/// Operations.
#[derive(Debug, Clone, PartialEq)]
pub enum InstKind {
    /// Binary arithmetic.
    Binary {
        /// Operator.
        op: BinOp,
        /// Left operand.
        lhs: Value,
        /// Right operand.
        rhs: Value,
    },
    /// Unary arithmetic.
    Unary {
        /// Operator.
        op: UnOp,
        /// Operand.
        value: Value,
    },
    /// Conversion.
    Cast {
        /// Conversion kind.
        op: CastOp,
        /// Operand.
        value: Value,
    },
    /// Comparison.
    Cmp {
        /// Predicate.
        pred: CmpPred,
        /// Left operand.
        lhs: Value,
        /// Right operand.
        rhs: Value,
    },
    /// `cond ? if_true : if_false`.
    Select {
        /// Condition.
        cond: Value,
        /// Value when true.
        if_true: Value,
        /// Value when false.
        if_false: Value,
    },
    /// SSA phi; one incoming value per predecessor block.
    Phi {
        /// `(value, predecessor)` pairs.
        incoming: Vec<(Value, BlockH)>,
    },
    /// Function-local variable (DXIL `alloca`, SPIR-V `Function` storage `OpVariable`).
    Alloca {
        /// Allocated type.
        ty: TypeH,
    },
    /// Memory load.
    Load {
        /// Address.
        ptr: Value,
    },
    /// Memory store.
    Store {
        /// Address.
        ptr: Value,
        /// Stored value.
        value: Value,
    },
    /// Address computation with LLVM GEP semantics (the first index steps over
    /// the base pointer; SPIR-V access chains get a leading constant 0).
    Gep {
        /// Base pointer.
        base: Value,
        /// Indices.
        indices: Vec<Value>,
    },
    /// Member of an aggregate value.
    ExtractValue {
        /// Aggregate.
        agg: Value,
        /// Constant member path.
        indices: Vec<u32>,
    },
    /// Aggregate with one member replaced.
    InsertValue {
        /// Aggregate.
        agg: Value,
        /// New member value.
        value: Value,
        /// Constant member path.
        indices: Vec<u32>,
    },
    /// Vector component.
    ExtractElement {
        /// Vector.
        vector: Value,
        /// Component index.
        index: Value,
    },
    /// Vector with one component replaced.
    InsertElement {
        /// Vector.
        vector: Value,
        /// New component.
        value: Value,
        /// Component index.
        index: Value,
    },
    /// Vector shuffle.
    Shuffle {
        /// First vector.
        a: Value,
        /// Second vector.
        b: Value,
        /// Mask (a constant).
        mask: Value,
    },
    /// Aggregate built from members (SPIR-V `OpCompositeConstruct`).
    Composite {
        /// Members in order.
        elements: Vec<Value>,
    },
    /// Call. `dx_op` is the DXIL opcode when the callee is a `dx.op.*` function.
    Call {
        /// Callee.
        callee: Value,
        /// Arguments (for dx.op calls, including the opcode at index 0).
        args: Vec<Value>,
        /// DXIL operation number (`0x8000_00nn` for the experimental table).
        dx_op: Option<u32>,
    },
    /// Atomic read-modify-write (`op` in the front end's numbering).
    AtomicRmw {
        /// Operation.
        op: u32,
        /// Address.
        ptr: Value,
        /// Operand.
        value: Value,
    },
    /// Atomic compare-exchange.
    CmpXchg {
        /// Address.
        ptr: Value,
        /// Expected value.
        cmp: Value,
        /// New value.
        new: Value,
    },
    /// Unconditional branch.
    Br {
        /// Target.
        target: BlockH,
    },
    /// Conditional branch.
    CondBr {
        /// Condition.
        cond: Value,
        /// Target when true.
        if_true: BlockH,
        /// Target when false.
        if_false: BlockH,
    },
    /// Multi-way branch.
    Switch {
        /// Selector.
        value: Value,
        /// Default target.
        default: BlockH,
        /// `(case value, target)` pairs.
        cases: Vec<(u64, BlockH)>,
    },
    /// Return.
    Ret {
        /// Returned value.
        value: Option<Value>,
    },
    /// Unreachable / `OpKill` / `OpTerminateInvocation`.
    Unreachable,
    /// An operation kept verbatim: the SPIR-V opcode or the LLVM record code, and
    /// its value operands (literal operands are dropped).
    Other {
        /// Opcode in the front end's numbering.
        opcode: u32,
        /// Value operands.
        operands: Vec<Value>,
    },
}

impl InstKind {
    /// True for block terminators.
    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            InstKind::Br { .. }
                | InstKind::CondBr { .. }
                | InstKind::Switch { .. }
                | InstKind::Ret { .. }
                | InstKind::Unreachable
        )
    }

    /// Successor blocks of a terminator (empty for other instructions).
    pub fn successors(&self) -> Vec<BlockH> {
        match self {
            InstKind::Br { target } => vec![*target],
            InstKind::CondBr { if_true, if_false, .. } => vec![*if_true, *if_false],
            InstKind::Switch { default, cases, .. } => {
                let mut v = vec![*default];
                v.extend(cases.iter().map(|c| c.1));
                v
            }
            _ => Vec::new(),
        }
    }
}

/// A function: blocks (the first is the entry), instructions and parameters.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Function {
    /// Name.
    pub name: String,
    /// Parameter types.
    pub params: Vec<TypeH>,
    /// Return type (None only while lowering).
    pub ret: Option<TypeH>,
    /// True for declarations without a body (`dx.op.*`).
    pub is_declaration: bool,
    /// Basic blocks; the first one is the entry.
    pub blocks: Arena<Block>,
    /// Instructions referenced by the blocks.
    pub insts: Arena<Inst>,
    /// Provenance of the function record / `OpFunction`.
    pub span: Span,
}

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

/// What a fact says.
#[derive(Debug, Clone, PartialEq)]
pub enum FactKind {
    /// Matrix memory operation.
    Matrix(MatrixMemOp),
    /// Raw-buffer vector access.
    RawVector(RawVectorAccess),
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

/// An entry point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryPoint {
    /// Entry name.
    pub name: String,
    /// Function, when it has a body.
    pub function: Option<FuncH>,
    /// Stage (`compute`, `pixel`, `vertex`, `library`, ...).
    pub stage: String,
}

/// A lowered module.
#[derive(Debug, Clone, PartialEq)]
pub struct Module {
    /// Front end.
    pub source: SourceKind,
    /// Shader model / SPIR-V version text (`cs_6_10`, `spirv 1.6`).
    pub target: Option<String>,
    /// Producer (`!llvm.ident`, SPIR-V generator).
    pub producer: Option<String>,
    /// Types.
    pub types: Arena<Type>,
    /// Module-level constants.
    pub constants: Arena<Constant>,
    /// Globals.
    pub globals: Arena<Global>,
    /// Functions (declarations included).
    pub functions: Arena<Function>,
    /// Resources.
    pub resources: Arena<Resource>,
    /// Facts for the rules.
    pub facts: Vec<Fact>,
    /// Entry points.
    pub entry_points: Vec<EntryPoint>,
    /// Source locations.
    pub locs: Arena<DebugLoc>,
    /// Source files named by the locations.
    pub source_files: Vec<SourceFile>,
    /// Spec-constant names (SPIR-V `OpName` of spec constants), by SpecId.
    pub spec_names: Vec<(u32, String)>,
    /// Non-fatal remarks from lowering (unknown opcodes kept, ...).
    pub remarks: Vec<String>,
}

impl Module {
    /// An empty module of the given kind.
    pub fn new(source: SourceKind) -> Self {
        Module {
            source,
            target: None,
            producer: None,
            types: Arena::new(),
            constants: Arena::new(),
            globals: Arena::new(),
            functions: Arena::new(),
            resources: Arena::new(),
            facts: Vec::new(),
            entry_points: Vec::new(),
            locs: Arena::new(),
            source_files: Vec::new(),
            spec_names: Vec::new(),
            remarks: Vec::new(),
        }
    }

    /// The bit width of an integer (or bool) type, or of a vector's element.
    pub fn int_bits(&self, ty: TypeH) -> Option<u16> {
        match self.types.try_get(ty)? {
            Type::Int { bits } => Some(*bits),
            Type::Bool => Some(1),
            Type::Vector { elem, .. } => self.int_bits(*elem),
            _ => None,
        }
    }

    /// The integer value of a constant operand, when it is a plain integer constant
    /// (spec constants included, at their default).
    pub fn const_int(&self, v: Value) -> Option<u64> {
        match v {
            Value::Const(c) => match &self.constants.try_get(c)?.kind {
                ConstKind::Int(x) => Some(*x),
                ConstKind::Null => Some(0),
                _ => None,
            },
            _ => None,
        }
    }

    /// Adds a debug location and returns its handle.
    pub fn add_loc(&mut self, loc: DebugLoc) -> LocH {
        self.locs.append(loc)
    }

    /// Interns a source file name and returns its index.
    pub fn source_file_index(&mut self, name: &str) -> u32 {
        if let Some(i) = self.source_files.iter().position(|f| f.name == name) {
            return i as u32;
        }
        self.source_files.push(SourceFile { name: name.to_string(), text: None });
        (self.source_files.len() - 1) as u32
    }
}

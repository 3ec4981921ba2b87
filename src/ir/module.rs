//! The IR data model: one module, its types, constants, globals, functions
//! (basic blocks of SSA instructions, phis first), resources and facts.

use super::facts::{Fact, Resource};
use super::handle::{Arena, Handle};
// Instructions are defined in `inst.rs` and part of this data model.
pub use super::inst::{BinOp, Block, CastOp, CmpPred, Indices, Inst, InstKind, Operands, UnOp};

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
    /// PTX text.
    Ptx,
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
    /// Names the DXIL value symbol table gives arguments and instructions
    /// (`%RawBufferVectorLoad` in an ILDB debug module); empty when stripped.
    /// Named values take no `%N` in LLVM's numbering.
    pub value_names: Vec<(Value, String)>,
    /// PTX kernels: by parameter, the alignment its `.ptr … .align N`
    /// attribute declares for the memory it points to (0: none declared).
    pub param_align: Vec<u64>,
    /// PTX: the memory accesses ([`crate::ir::AccessForm`]) with the index
    /// of their instruction word in [`Module::op_names`].
    pub mem_accesses: Vec<(InstH, u32)>,
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
    /// Names of the opcodes of `InstKind::Other` for front ends without a
    /// numbering of their own (PTX: the instruction word with its modifiers);
    /// `opcode` indexes this list.
    pub op_names: Vec<String>,
    /// The declared alignment of each global's address in bytes, by global
    /// index (PTX: `.align N`, else the element size, PTX ISA §5.4.5); empty
    /// or 0 where the front end does not say. The dataflow reads a global's
    /// address as "0 mod N" ([`Module::global_alignment`]).
    pub global_align: Vec<u64>,
    /// What the dataflow computes of an `InstKind::Other`, by opcode
    /// (parallel to `op_names`; empty, all opaque, for DXIL and SPIR-V).
    pub op_semantics: Vec<OpSemantics>,
    /// PTX: the memory access of each word of `op_names` that a recorded
    /// access ([`Function::mem_accesses`]) uses, parsed once by the lowering
    /// (parallel to `op_names`; `None` for other words, empty for DXIL and SPIR-V).
    pub op_access: Vec<Option<super::AccessForm>>,
    /// SPIR-V `BuiltIn` decorations of globals, `(global, BuiltIn value)`:
    /// the uniformity analysis tells thread ids from workgroup ids by them.
    pub builtins: Vec<(GlobalH, u32)>,
}

/// The value an `InstKind::Other` computes, for the operations a front end
/// cannot spell in the IR's own instructions (PTX bit-field forms with a
/// position, length or selector in a register) or spells more compactly
/// as one (a packed PTX `mov`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OpSemantics {
    /// Nothing known (the default).
    #[default]
    Opaque,
    /// PTX `bfe`: operands `a, pos, len`; sign-extending when `signed`.
    Bfe {
        /// `bfe.s32` / `.s64`.
        signed: bool,
    },
    /// PTX `bfi`: operands `insert, base, pos, len`.
    Bfi,
    /// PTX `prmt.b32` in the default mode: operands `a, b, selector`.
    Prmt,
    /// A packed PTX `mov.bN d, {e0, e1, …}`: operands `e0, e1, …` (lowest
    /// first), each `N / count` bits wide; the value is
    /// `e0 | e1 << w | e2 << 2w | …`.
    Pack,
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
            op_names: Vec::new(),
            global_align: Vec::new(),
            op_semantics: Vec::new(),
            op_access: Vec::new(),
            builtins: Vec::new(),
        }
    }

    /// What the dataflow computes of an `InstKind::Other` with this opcode.
    pub fn op_semantics(&self, opcode: u32) -> OpSemantics {
        self.op_semantics.get(opcode as usize).copied().unwrap_or_default()
    }

    /// The memory access of the instruction word `opcode` names, when a
    /// recorded access uses it ([`Module::op_access`]).
    pub fn op_access(&self, opcode: u32) -> Option<super::AccessForm> {
        self.op_access.get(opcode as usize).copied().flatten()
    }

    /// The alignment of a global's address in bytes, when the front end
    /// declared one above 1.
    pub fn global_alignment(&self, g: GlobalH) -> Option<u64> {
        self.global_align.get(g.index()).copied().filter(|a| *a > 1)
    }

    /// The bit width of an integer (or bool) type, or of a vector's element.
    pub fn int_bits(&self, ty: TypeH) -> Option<u16> {
        match self.types.try_get(self.scalar_of(ty)?)? {
            Type::Int { bits } => Some(*bits),
            Type::Bool => Some(1),
            _ => None,
        }
    }

    /// The scalar type of a vector (or of a vector of vectors, which front ends
    /// may see in malformed input), or `ty` itself. Iterative and bounded: a
    /// type that is its own element gives `None`.
    pub fn scalar_of(&self, mut ty: TypeH) -> Option<TypeH> {
        for _ in 0..=crate::read::limits::MAX_TYPE_DEPTH {
            match self.types.try_get(ty)? {
                Type::Vector { elem, .. } => ty = *elem,
                _ => return Some(ty),
            }
        }
        None
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

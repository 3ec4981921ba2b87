//! The decoded LLVM 3.7 module: the [`crate::ir::Module`] (types, constants,
//! globals, functions with instructions and debug locations) plus the metadata
//! graph, which the DXIL layer ([`super::lower`]) reads for resources, entry
//! points and LinAlg matrix types.
//!
//! This is the interface between the bitcode decoder (`decode.rs`) and the
//! DXIL semantics (`lower.rs`).

use crate::ir::{FuncH, InstH, Module, TypeH, Value};
use crate::read::Result;

/// Index into [`LlvmModule::metadata`] (the module-level MD index space).
pub type MdId = u32;

/// One metadata item, in MD-index order.
#[derive(Debug, Clone, PartialEq)]
pub enum Metadata {
    /// `!"text"` (METADATA_STRING).
    String(Vec<u8>),
    /// A constant or global as metadata (METADATA_VALUE): `i32 7`, `@g`, `undef`.
    Value {
        /// Its type.
        ty: TypeH,
        /// The value (module-level: constant, global or function).
        value: Value,
    },
    /// `!{...}` (NODE / DISTINCT_NODE); `None` is a null operand.
    Node {
        /// Distinct node.
        distinct: bool,
        /// Operands.
        ops: Vec<Option<MdId>>,
    },
    /// DILocation.
    Location {
        /// Line.
        line: u32,
        /// Column.
        column: u32,
        /// Scope.
        scope: Option<MdId>,
        /// Inlined-at location.
        inlined_at: Option<MdId>,
    },
    /// DIFile.
    File {
        /// File name (an MD string).
        filename: Option<MdId>,
        /// Directory (an MD string).
        directory: Option<MdId>,
    },
    /// DISubprogram (name, file, line).
    Subprogram {
        /// Scope.
        scope: Option<MdId>,
        /// Name (an MD string).
        name: Option<MdId>,
        /// File.
        file: Option<MdId>,
        /// Line.
        line: u32,
    },
    /// DILexicalBlock / DILexicalBlockFile.
    LexicalBlock {
        /// Parent scope.
        scope: Option<MdId>,
        /// File.
        file: Option<MdId>,
        /// Line (0 for a block file).
        line: u32,
        /// Column.
        column: u32,
    },
    /// Any other record, kept so the numbering stays aligned: code and raw operands.
    Other {
        /// Record code.
        code: u32,
        /// Raw operands.
        ops: Vec<u64>,
    },
}

/// A metadata attachment (`!tbaa`, `!dx.precise`, `!llvm.loop`, ...) from a
/// METADATA_ATTACHMENT block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attachment {
    /// The function.
    pub function: FuncH,
    /// The instruction; `None` for an attachment to the function itself.
    pub inst: Option<InstH>,
    /// Metadata kind id (see [`LlvmModule::kind_name`]).
    pub kind: u32,
    /// The attached node.
    pub node: MdId,
}

/// A decoded module.
#[derive(Debug, Clone)]
pub struct LlvmModule {
    /// The IR (no resources or facts yet; `dx_op` set on `dx.op.*` calls).
    pub module: Module,
    /// Module-level metadata by MD id.
    pub metadata: Vec<Metadata>,
    /// Named metadata (`!dx.resources = !{...}`) in file order.
    pub named: Vec<(String, Vec<MdId>)>,
    /// Target triple.
    pub triple: Option<String>,
    /// Instruction and function metadata attachments, in file order.
    pub attachments: Vec<Attachment>,
    /// Metadata kind names (KIND records): `(kind id, start, end)` into `kind_text`.
    pub kinds: Vec<(u32, u32, u32)>,
    /// Concatenated kind names.
    pub kind_text: String,
}

impl LlvmModule {
    /// The operands of a named metadata node.
    pub fn named(&self, name: &str) -> Option<&[MdId]> {
        self.named.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_slice())
    }

    /// The name of a metadata kind id (`"dbg"`, `"tbaa"`, `"dx.precise"`).
    pub fn kind_name(&self, kind: u32) -> Option<&str> {
        let &(_, s, e) = self.kinds.iter().find(|k| k.0 == kind)?;
        self.kind_text.get(s as usize..e as usize)
    }

    /// The kind id of a metadata kind name.
    pub fn kind_id(&self, name: &str) -> Option<u32> {
        self.kinds.iter().find(|&&(_, s, e)| self.kind_text.get(s as usize..e as usize) == Some(name)).map(|k| k.0)
    }

    /// The attachments of one instruction.
    pub fn attachments_of(&self, function: FuncH, inst: InstH) -> impl Iterator<Item = &Attachment> {
        self.attachments.iter().filter(move |a| a.function == function && a.inst == Some(inst))
    }

    /// Metadata by id.
    pub fn md(&self, id: MdId) -> Option<&Metadata> {
        self.metadata.get(id as usize)
    }

    /// The operands of a node, when `id` is a node.
    pub fn node(&self, id: MdId) -> Option<&[Option<MdId>]> {
        match self.md(id)? {
            Metadata::Node { ops, .. } => Some(ops),
            _ => None,
        }
    }

    /// The text of a string node.
    pub fn string(&self, id: MdId) -> Option<&[u8]> {
        match self.md(id)? {
            Metadata::String(s) => Some(s),
            _ => None,
        }
    }

    /// The integer value of a `Value` node holding an integer constant.
    pub fn int(&self, id: MdId) -> Option<u64> {
        match self.md(id)? {
            Metadata::Value { value, .. } => self.module.const_int(*value),
            _ => None,
        }
    }
}

/// Decodes raw bitcode (`BC 0xC0DE`, or the 0x0B17C0DE wrapper) into an [`LlvmModule`].
/// `base` is the absolute offset of `bitcode[0]` in the input (for error offsets and spans).
pub fn decode(bitcode: &[u8], base: u64) -> Result<LlvmModule> {
    super::decode::decode(bitcode, base)
}

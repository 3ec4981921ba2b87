//! Every limit the readers and analyses enforce, in one place. A declared count
//! or size is checked against these before anything is allocated from it.

/// Largest input file read into memory (bytes).
pub const MAX_FILE_BYTES: u64 = 1 << 30;
/// Largest DXBC container (DXC's own maximum, `0x8000_0000`, is far larger than any shader).
pub const MAX_CONTAINER_BYTES: u64 = 0x8000_0000;
/// Parts per container.
pub const MAX_PARTS: u32 = 1024;
/// Nesting depth of bitcode blocks.
pub const MAX_BLOCK_DEPTH: usize = 32;
/// Operands in one abbreviation definition.
pub const MAX_ABBREV_OPS: usize = 1024;
/// Abbreviations defined in one block scope.
pub const MAX_ABBREVS: usize = 4096;
/// Operands in one bitcode record (also capped by the bits left in the block).
pub const MAX_RECORD_OPS: usize = 1 << 20;
/// Types in a module.
pub const MAX_TYPES: usize = 1 << 20;
/// Values (globals + constants + instructions) in a module or function.
pub const MAX_VALUES: usize = 1 << 22;
/// Metadata nodes in a module.
pub const MAX_METADATA: usize = 1 << 22;
/// Basic blocks per function.
pub const MAX_BLOCKS: usize = 1 << 20;
/// Depth of type/metadata/constant-expression recursion.
pub const MAX_RECURSION: u32 = 64;
/// SPIR-V id bound.
pub const MAX_SPIRV_ID_BOUND: u32 = 1 << 22;
/// Dataflow work (transfer-function evaluations) per module before the module
/// is reported as `analysis-budget-exceeded`.
pub const MAX_DATAFLOW_STEPS: u64 = 4_000_000;
/// Constants kept in a value set before it widens to a congruence.
pub const MAX_CONST_SET: usize = 8;
/// Statements (instructions, labels, declarations, directives) in one PTX module.
pub const MAX_PTX_STATEMENTS: usize = 1 << 24;
/// Operands of one PTX instruction, elements of one vector operand, parameters of one function.
pub const MAX_PTX_OPERANDS: usize = 4096;
/// Nesting of `{ }` scopes in a PTX function body (and of operands inside operands).
pub const MAX_PTX_NESTING: usize = 64;
/// Registers declared in one PTX function (`%r<N>` ranges summed).
pub const MAX_PTX_REGISTERS: usize = 1 << 22;

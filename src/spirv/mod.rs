//! SPIR-V front end: words → [`crate::ir`].
//!
//! - [`reader`] validates the header and splits the word stream into instructions
//!   (word counts checked up front; errors carry absolute byte offsets).
//! - [`grammar`] knows the operand layout of every core opcode (generated from
//!   rspirv's grammar), so unknown or unhandled instructions keep their value operands.
//! - `lower` builds types, constants (spec constants with their `SpecId`), globals,
//!   functions (blocks, phis first) and source locations; `decorations` collects
//!   names/decorations and classifies buffer resources; `facts` records matrix
//!   operations for the rules.
//!
//! Unknown opcodes, extended-instruction sets and enum values are kept (as
//! `InstKind::Other` or a remark), never fatal.

mod access;
mod debug;
mod decorations;
mod facts;
mod function;
pub mod grammar;
mod lower;
mod module;
pub mod reader;

use crate::ir::Module;
use crate::read::Result;

/// Lowers a SPIR-V module. `base` is its absolute offset in the input.
pub fn lower(data: &[u8], base: u64) -> Result<Module> {
    let words = reader::read(data, base).map_err(|e| e.context("SPIR-V module"))?;
    lower::Lowerer::new(&words).run()
}

/// True when `data` starts with the SPIR-V magic in either byte order.
pub fn is_spirv(data: &[u8]) -> bool {
    matches!(data.get(0..4), Some([0x03, 0x02, 0x23, 0x07]) | Some([0x07, 0x23, 0x02, 0x03]))
}

//! SPIR-V front end: words → [`crate::ir`] (stub).

use crate::ir::Module;
use crate::read::{ErrorKind, ReadError, Result};

/// Options for lowering (spec-constant overrides are applied by the dataflow).
/// Lowers a SPIR-V module. `base` is its absolute offset in the input.
pub fn lower(_data: &[u8], _base: u64) -> Result<Module> {
    Err(ReadError::new(ErrorKind::Unsupported, 0, "SPIR-V front end not implemented yet"))
}

/// True when `data` starts with the SPIR-V magic in either byte order.
pub fn is_spirv(data: &[u8]) -> bool {
    matches!(data.get(0..4), Some([0x03, 0x02, 0x23, 0x07]) | Some([0x07, 0x23, 0x02, 0x03]))
}

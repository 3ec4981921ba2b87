//! DXIL semantics on a decoded module (stub).

use crate::ir::Module;
use crate::read::dxbc::Container;
use crate::read::{ErrorKind, ReadError, Result};

/// Lowers the program of a DXBC container (ILDB preferred over DXIL).
pub fn lower_container(_c: &Container<'_>) -> Result<Module> {
    Err(ReadError::new(ErrorKind::Unsupported, 0, "DXIL decoder not implemented yet"))
}

/// Lowers raw LLVM bitcode. `base` is its absolute offset.
pub fn lower_bitcode(bc: &[u8], base: u64) -> Result<Module> {
    super::llvm::decode(bc, base).map(|m| m.module)
}

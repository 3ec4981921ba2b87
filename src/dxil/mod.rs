//! DXIL front end: LLVM 3.7 bitcode records → [`crate::ir`] (stub).

use crate::ir::Module;
use crate::read::dxbc::Container;
use crate::read::{ErrorKind, ReadError, Result};

/// Lowers the program of a DXBC container (ILDB preferred over DXIL).
pub fn lower_container(_c: &Container<'_>) -> Result<Module> {
    Err(ReadError::new(ErrorKind::Unsupported, 0, "DXIL decoder not implemented yet"))
}

/// Lowers raw LLVM bitcode (`BC 0xC0DE`, or the wrapper). `base` is its absolute offset.
pub fn lower_bitcode(_bc: &[u8], _base: u64) -> Result<Module> {
    Err(ReadError::new(ErrorKind::Unsupported, 0, "DXIL decoder not implemented yet"))
}

/// True when `data` starts with raw bitcode magic or the bitcode wrapper.
pub fn is_bitcode(data: &[u8]) -> bool {
    data.get(0..4) == Some(&[0x42, 0x43, 0xC0, 0xDE]) || data.get(0..4) == Some(&[0xDE, 0xC0, 0x17, 0x0B])
}

//! LLVM 3.7 bitcode → [`super::llvm::LlvmModule`] (stub).

use super::llvm::LlvmModule;
use crate::read::{ErrorKind, ReadError, Result};

/// See [`super::llvm::decode`].
pub fn decode(_bitcode: &[u8], base: u64) -> Result<LlvmModule> {
    Err(ReadError::new(ErrorKind::Unsupported, base, "bitcode decoder not implemented yet"))
}

//! DXIL front end: LLVM 3.7 bitcode records → [`crate::ir`].
//!
//! - `decode`: bitstream records → [`llvm::LlvmModule`] (types, constants,
//!   metadata, functions, debug locations).
//! - `lower`: DXIL semantics on top: `dx.op` table, resources and handle
//!   resolution, LinAlg matrix types, facts (`dxop`, `resources`,
//!   `linalg`, `facts`).

pub mod decode;
pub mod dxop;
pub mod facts;
pub mod linalg;
pub mod llvm;
pub mod lower;
pub mod resources;

pub use lower::{lower_bitcode, lower_container};

/// True when `data` starts with raw bitcode magic or the bitcode wrapper.
pub fn is_bitcode(data: &[u8]) -> bool {
    data.get(0..4) == Some(&[0x42, 0x43, 0xC0, 0xDE]) || data.get(0..4) == Some(&[0xDE, 0xC0, 0x17, 0x0B])
}

//! LLVM bitstream reader (stub; owned by the DXIL work).

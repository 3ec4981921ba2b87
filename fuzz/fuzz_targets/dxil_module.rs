//! Decodes arbitrary bytes as LLVM bitcode (or as a DXBC container holding it),
//! then verifies the IR: must return Ok or Err, never panic.
#![no_main]

use irlint::read::dxbc::{self, FourCc};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if dxbc::is_container(data) {
        if let Ok(c) = dxbc::parse(data, 0) {
            for cc in [FourCc::DXIL, FourCc::ILDB] {
                if let Some(Ok((_, bc, base))) = c.part(cc).map(dxbc::program) {
                    if let Ok(m) = irlint::dxil::llvm::decode(bc, base) {
                        let _ = irlint::ir::verify::verify(&m.module);
                    }
                }
            }
        }
        return;
    }
    if let Ok(m) = irlint::dxil::llvm::decode(data, 0) {
        let _ = irlint::ir::verify::verify(&m.module);
    }
});

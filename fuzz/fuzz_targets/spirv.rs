//! Fuzz target: SPIR-V words → IR. Lowering must never panic, and every module it
//! accepts must pass the IR verifier.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = irlint::spirv::lower(data, 0) {
        if let Err(e) = irlint::ir::verify::verify(&m) {
            panic!("lowered module fails verification: {e}");
        }
    }
});

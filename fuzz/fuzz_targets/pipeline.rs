//! The whole pipeline (classify, read, lower, verify, dataflow, rules) on
//! arbitrary bytes, as a DXIL container, a SPIR-V module and a binary with
//! embedded shaders. Panics are caught inside `check_bytes`, so this target
//! asserts that none happened.
#![no_main]

use irlint::check::{check_bytes, CheckOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let opts = CheckOptions::default();
    let r = check_bytes("fuzz.bin", data, &opts);
    for d in &r.diagnostics {
        assert_ne!(d.rule, irlint::report::INTERNAL_ERROR, "{}", d.message);
    }
});

//! Fuzz target: PTX text → IR (lexer, parser, SSA lowering). Lowering must never
//! panic, and every module it accepts must pass the IR verifier.
//!
//! Seed it with the Triton corpus:
//! `cargo +nightly fuzz run ptx ../shared/corpus/ptx/triton-3.6 ../tests/fixtures/ptx`
//! (libFuzzer reads every file of the given directories as a seed; the first one
//! is also where new inputs are written, so copy the corpus first if it is read-only).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = irlint::ptx::lower(data, 0) {
        if let Err(e) = irlint::ir::verify::verify(&m) {
            panic!("lowered module fails verification: {e}");
        }
        let _ = irlint::analysis::analyze(&m, &Default::default());
    }
});

//! Fuzz target: PTX text → IR (lexer, parser, SSA lowering), whole and sliced
//! (what `check` runs first). Lowering must never panic, and every module
//! either accepts must pass the IR verifier.
//!
//! Seed it with the Triton corpus:
//! `cargo +nightly fuzz run ptx ../shared/corpus/ptx/triton-3.6 ../tests/fixtures/ptx`
//! (libFuzzer reads every file of the given directories as a seed; the first one
//! is also where new inputs are written, so copy the corpus first if it is read-only).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for sliced in [false, true] {
        let lowered = if sliced { irlint::ptx::lower_sliced(data, 0) } else { irlint::ptx::lower(data, 0) };
        if let Ok(m) = lowered {
            if let Err(e) = irlint::ir::verify::verify(&m) {
                panic!("lowered module (sliced: {sliced}) fails verification: {e}");
            }
            let _ = irlint::analysis::analyze(&m, &Default::default());
        }
    }
});

//! CUDA fatbins and Fossilize databases on arbitrary bytes: the container
//! readers (every candidate treated as expected, so damaged ones take the
//! error paths), bounded decompression, and the checks of every decoded
//! entry. Must return, never panic (checks catch their own panics, so this
//! target asserts that none happened).
#![no_main]

use irlint::check::CheckOptions;
use irlint::input::{containers, fossilize};
use irlint::read::fatbin;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let scan = fatbin::scan(data, &|_| true);
    let mut cache = fatbin::GroupCache::default();
    for e in &scan.entries {
        let _ = scan.payload(data, e, &mut cache);
    }
    let db = fossilize::read(data);
    for e in &db.entries {
        if let Ok(p) = e.payload(data) {
            let _ = fossilize::shader_modules(&p, e.offset);
            let _ = fossilize::pipeline_uses(&p, e.offset);
        }
    }
    let found = containers::check("fuzz.fatbin", data, &CheckOptions::default());
    for d in &found.diagnostics {
        assert_ne!(d.rule, irlint::report::INTERNAL_ERROR, "{}", d.message);
    }
});

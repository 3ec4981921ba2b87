//! `irlint atoms` records: text → records (a JSON array, one object, or JSON
//! Lines) → every verifier. Nothing may panic; a record count past
//! `MAX_ATOMS_RECORDS` is an error before any record is parsed.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(records) = irlint::atoms::records::parse_input(text) {
        assert!(records.len() <= irlint::read::limits::MAX_ATOMS_RECORDS);
        for r in &records {
            let _ = irlint::atoms::records::run_record(r);
        }
    }
});

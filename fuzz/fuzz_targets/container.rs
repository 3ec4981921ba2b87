//! DXBC container + program header reader on arbitrary bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(c) = irlint::read::dxbc::parse(data, 0) {
        for p in &c.parts {
            let _ = irlint::read::dxbc::program(p);
        }
        let _ = c.is_legacy();
        let _ = c.no_program();
    }
});

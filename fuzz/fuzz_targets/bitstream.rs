//! Walks every block and record of arbitrary bytes: must return Ok or Err, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = irlint::read::bitstream::walk(data, 0);
    // Also as a bare stream without the magic.
    let mut c = irlint::read::bitstream::Cursor::raw(data, 0);
    while let Ok(Some(_)) = c.next_item() {}
});

//! `irlint.toml` and baselines: config text → settings (levels, rule options,
//! `exclude` and `per-file-ignores` globs within their caps) and `[hlsl]`
//! options; baseline text → a baseline. Nothing may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(s) = irlint::config::parse(text, "fuzz/irlint.toml") {
        assert!(s.exclude.len() <= irlint::read::limits::MAX_CONFIG_GLOBS);
        assert!(s.exclude.iter().all(|g| g.len() <= irlint::read::limits::MAX_CONFIG_GLOB_BYTES));
    }
    let _ = irlint::input::dxc::parse_config(text, std::path::Path::new("fuzz/irlint.toml"));
    let _ = irlint::baseline::Baseline::parse(text);
});

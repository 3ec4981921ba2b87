//! Rendered human diagnostics, one finding per rule, from real compiled
//! fixtures: the stripped build (bytecode location + IR line) and the debug
//! build (HLSL snippet with the caret under the column).

mod common;

use irlint::check::{check_bytes, CheckOptions};
use irlint::report::{render, Format, RunReport};

fn human(name: &str, rule: &str) -> String {
    let path = common::fixtures().join("dxil").join(name);
    let bytes = std::fs::read(&path).expect("fixture");
    let shown = format!("tests/fixtures/dxil/{name}");
    let mut result = check_bytes(&shown, &bytes, &CheckOptions::default());
    result.diagnostics.retain(|d| d.rule == rule);
    assert_eq!(result.diagnostics.len(), 1, "{name}: one {rule} finding");
    let mut report = RunReport { files: result.files, diagnostics: result.diagnostics, ..Default::default() };
    report.stats.files = report.files.len() as u64;
    report.stats.modules = 1;
    report.sort();
    render(&report, Format::Human, false, false)
}

macro_rules! snap {
    ($test:ident, $fixture:literal, $rule:literal) => {
        #[test]
        fn $test() {
            insta::assert_snapshot!(concat!(stringify!($test), "_stripped"), human(concat!($fixture, ".dxil"), $rule));
            insta::assert_snapshot!(concat!(stringify!($test), "_debug"), human(concat!($fixture, ".g.dxil"), $rule));
        }
    };
}

snap!(coopvec_stride_mismatch, "la_load_stride_mismatch", "coopvec-stride-mismatch");
snap!(coopvec_stride_mismatch_preview, "pv_mul_stride_mismatch", "coopvec-stride-mismatch");
snap!(long_vector_load, "lv_load_computed_misaligned", "long-vector-bytebuf-load-misaligned");
snap!(long_vector_load_possible, "lv_load_branch_maybe", "long-vector-bytebuf-load-misaligned");
snap!(structured_buffer_stride, "sb_stride20_pos_uv", "structured-buffer-stride-not-cache-aligned");
snap!(base_offset, "la_offset_not_128", "coopvec-base-offset-misaligned");

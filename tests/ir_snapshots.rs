//! Golden IR dumps (`irlint dump --ir`) of representative fixtures, one per
//! front end and encoding: lowering regressions show up as snapshot diffs.

mod common;

use irlint::check::{classify, load_module};

fn ir(rel: &str) -> String {
    let path = common::fixtures().join(rel);
    let bytes = std::fs::read(&path).expect("fixture");
    let m = load_module(classify(rel, &bytes), &bytes, 0).expect("reads").expect("a module");
    irlint::ir::verify::verify(&m).expect("verifies");
    irlint::ir::print::module(&m)
}

#[test]
fn ir_long_vector_dxil() {
    insta::assert_snapshot!(ir("dxil/lv_load_computed_misaligned.dxil"));
}

#[test]
fn ir_linalg_dxil() {
    insta::assert_snapshot!(ir("dxil/la_load_branch_stride.dxil"));
}

#[test]
fn ir_preview_coopvec_dxil() {
    insta::assert_snapshot!(ir("dxil/pv_muladd_stride_mismatch.dxil"));
}

#[test]
fn ir_structured_buffer_spirv() {
    insta::assert_snapshot!(ir("spirv/sb_stride_mixed.spv"));
}

#[test]
fn ir_coopvec_spirv() {
    insta::assert_snapshot!(ir("spirv/sl_coopvec_stride_mismatch.spv"));
}

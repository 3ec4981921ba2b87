//! Uniformity in the rules and the command line: the stride rule keeps a
//! buffer only when an access's element index may differ between lanes
//! (DXIL built by hand, SPIR-V assembled here, the shared corpus when
//! present), `dump --ir` marks instructions, and SPIR-V structured buffers of
//! `uint` are labelled from the module's own type names.

#[path = "support/builder.rs"]
mod builder;
mod common;
#[path = "support/hostile.rs"]
mod hostile;

use builder::B;
use hostile::{op, Spv, CAP_SHADER};
use irlint::analysis::{analyze, AnalysisOptions};
use irlint::config::Settings;
use irlint::ir::*;
use irlint::report::{Diagnostic, FindingValue};
use irlint::rules;

const RULE: &str = "structured-buffer-stride-not-cache-aligned";

fn stride_findings(m: &Module) -> Vec<Diagnostic> {
    let a = analyze(m, &AnalysisOptions::default());
    rules::check_module(m, &a, &Settings::default()).into_iter().filter(|d| d.rule == RULE).collect()
}

fn value<'a>(d: &'a Diagnostic, key: &str) -> Option<&'a FindingValue> {
    d.values.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn text(d: &Diagnostic, key: &str) -> String {
    match value(d, key) {
        Some(FindingValue::Text(s)) => s.clone(),
        other => panic!("{key}: {other:?}"),
    }
}

/// A DXIL `RWStructuredBuffer` (u0, stride 20) read by `rawBufferLoad` at the
/// index `index` builds from the entry block.
fn dxil_buffer(index: impl FnOnce(&mut B) -> Value) -> B {
    let mut b = B::new(SourceKind::Dxil);
    b.resource(ResourceClass::Uav, ResourceKind::STRUCTURED_BUFFER, "Items", 0, Some(20));
    let i8t = b.ty(Type::Int { bits: 8 });
    let (c57, c139, c0) = (b.c32(57), b.c32(139), b.c32(0));
    let uav = b.konst(i8t, ConstKind::Int(1));
    let handle = b.inst(
        b.void,
        InstKind::Call { callee: Value::Function(b.f), args: vec![c57, uav, c0, c0, c0], dx_op: Some(57) },
    );
    let idx = index(&mut b);
    let (mask, align) = (b.c32(1), b.c32(4));
    b.inst(
        b.i32t,
        InstKind::Call {
            callee: Value::Function(b.f),
            args: vec![c139, handle, idx, c0, mask, align],
            dx_op: Some(139),
        },
    );
    b.ret();
    b
}

fn dx(b: &mut B, op: u32, args: &[u32]) -> Value {
    let mut all = vec![b.c32(u64::from(op))];
    for a in args {
        all.push(b.c32(u64::from(*a)));
    }
    b.inst(b.i32t, InstKind::Call { callee: Value::Function(b.f), args: all, dx_op: Some(op) })
}

#[test]
fn dxil_thread_id_index_keeps_the_finding_and_says_why() {
    let b = dxil_buffer(|b| dx(b, 93, &[0]));
    let d = stride_findings(&b.m);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(text(&d[0], "index"), "divergent");
    assert_eq!(text(&d[0], "why"), "thread id (dx.op.threadId, SV_DispatchThreadID) (%1)");
    assert!(value(&d[0], "access_offset").is_some());
    let help = d[0].help.as_deref().unwrap_or("");
    assert!(
        help.starts_with("lanes index different elements: the element index at byte offset 0 is divergent"),
        "{help}"
    );
}

#[test]
fn dxil_uniform_indices_are_silent() {
    // A constant, the group id, and a value computed from both.
    assert_eq!(stride_findings(&dxil_buffer(|b| b.c32(0)).m), vec![]);
    assert_eq!(stride_findings(&dxil_buffer(|b| dx(b, 94, &[0])).m), vec![]);
    let b = dxil_buffer(|b| {
        let g = dx(b, 94, &[0]);
        let k = b.c32(64);
        b.bin(BinOp::Mul, g, k)
    });
    assert_eq!(stride_findings(&b.m), vec![]);
    // WaveReadLaneFirst of a thread id is the same in every lane.
    let b = dxil_buffer(|b| {
        let t = dx(b, 93, &[0]);
        let c118 = b.c32(118);
        b.inst(b.i32t, InstKind::Call { callee: Value::Function(b.f), args: vec![c118, t], dx_op: Some(118) })
    });
    assert_eq!(stride_findings(&b.m), vec![]);
}

#[test]
fn dxil_unknown_index_is_kept() {
    // The function argument: callers are not analysed, so it may differ per lane.
    let b = dxil_buffer(|b| b.unknown());
    let d = stride_findings(&b.m);
    assert_eq!(d.len(), 1);
    assert_eq!(text(&d[0], "why"), "function argument (call sites are not analysed) (%arg0)");
}

#[test]
fn dxil_buffer_without_a_found_access_keeps_its_finding() {
    let mut b = B::new(SourceKind::Dxil);
    b.resource(ResourceClass::Srv, ResourceKind::STRUCTURED_BUFFER, "Unread", 0, Some(20));
    b.ret();
    let d = stride_findings(&b.m);
    assert_eq!(d.len(), 1);
    assert_eq!(text(&d[0], "index"), "no-access");
}

fn words(s: &str) -> Vec<u32> {
    let mut bytes = s.as_bytes().to_vec();
    bytes.push(0);
    while !bytes.len().is_multiple_of(4) {
        bytes.push(0);
    }
    bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// How the SPIR-V test module indexes its buffer.
#[derive(Clone, Copy, PartialEq)]
enum Index {
    ThreadId,
    WorkgroupId,
    Constant,
}

/// A storage buffer `{ uint data[]; }` with `stride`, its block struct named
/// `struct_name`, optionally `UserTypeGOOGLE`, written at one index.
fn spirv_buffer(struct_name: &str, user_type: Option<&str>, stride: u32, index: Index) -> Vec<u8> {
    let mut s = Spv::new();
    s.preamble(&[CAP_SHADER]);
    let (uint, v3, rta, st, psb, pu, pin, var, gid, c0, c7) =
        (s.id(), s.id(), s.id(), s.id(), s.id(), s.id(), s.id(), s.id(), s.id(), s.id(), s.id());
    let mut name = vec![st];
    name.extend(words(struct_name));
    s.op(5, &name);
    s.op(71, &[rta, 6, stride]);
    s.op(72, &[st, 0, 35, 0]);
    s.op(71, &[st, 2]);
    s.op(71, &[var, 34, 0]);
    s.op(71, &[var, 33, 0]);
    s.op(71, &[gid, 11, if index == Index::WorkgroupId { 26 } else { 28 }]);
    if let Some(t) = user_type {
        let mut ops = vec![var, 5636];
        ops.extend(words(t));
        s.op(5632, &ops);
    }
    s.op(op::TYPE_INT, &[uint, 32, 0]);
    s.op(op::TYPE_VECTOR, &[v3, uint, 3]);
    s.op(op::TYPE_RUNTIME_ARRAY, &[rta, uint]);
    s.op(op::TYPE_STRUCT, &[st, rta]);
    s.op(op::TYPE_POINTER, &[psb, 12, st]);
    s.op(op::TYPE_POINTER, &[pu, 12, uint]);
    s.op(op::TYPE_POINTER, &[pin, 1, v3]);
    s.op(op::CONSTANT, &[uint, c0, 0]);
    s.op(op::CONSTANT, &[uint, c7, 7]);
    s.op(op::VARIABLE, &[psb, var, 12]);
    s.op(op::VARIABLE, &[pin, gid, 1]);
    s.function(&[], |s, _| {
        let idx = if index == Index::Constant {
            c7
        } else {
            let (l, x) = (s.id(), s.id());
            s.op(61, &[v3, l, gid]);
            s.op(op::COMPOSITE_EXTRACT, &[uint, x, l, 0]);
            x
        };
        let p = s.id();
        s.op(65, &[pu, p, var, c0, idx]);
        s.op(62, &[p, c7]);
    });
    s.bytes()
}

#[test]
fn spirv_access_chains_by_thread_id_keep_the_finding_constant_and_workgroup_ones_do_not() {
    let m = irlint::spirv::lower(&spirv_buffer("type.RWStructuredBuffer.S", None, 20, Index::ThreadId), 0).unwrap();
    let d = stride_findings(&m);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(text(&d[0], "why"), "thread id (GlobalInvocationId) (%0)");
    for index in [Index::Constant, Index::WorkgroupId] {
        let m = irlint::spirv::lower(&spirv_buffer("type.RWStructuredBuffer.S", None, 20, index), 0).unwrap();
        assert_eq!(m.resources.values().map(|r| r.stride).collect::<Vec<_>>(), [Some(20)]);
        assert_eq!(stride_findings(&m), vec![]);
    }
}

#[test]
fn spirv_uint_buffers_are_labelled_from_their_declared_type() {
    let kind = |name: &str, user: Option<&str>| {
        let m = irlint::spirv::lower(&spirv_buffer(name, user, 4, Index::Constant), 0).unwrap();
        m.resources.values().map(|r| r.kind.name()).collect::<Vec<_>>()
    };
    // DXC's block names, then UserTypeGOOGLE over a name that says nothing.
    assert_eq!(kind("type.StructuredBuffer.uint", None), ["StructuredBuffer"]);
    assert_eq!(kind("type.RWStructuredBuffer.uint", None), ["StructuredBuffer"]);
    assert_eq!(kind("type.ByteAddressBuffer", None), ["RawBuffer"]);
    assert_eq!(kind("type.RWByteAddressBuffer", None), ["RawBuffer"]);
    assert_eq!(kind("Data", Some("rwstructuredbuffer:<uint>")), ["StructuredBuffer"]);
    assert_eq!(kind("Data", Some("byteaddressbuffer")), ["RawBuffer"]);
    // Nothing declared: the `uint[]` stride-4 shape is guessed to be a byte-address buffer;
    // a name without DXC's `type.` prefix (Slang's) declares nothing.
    assert_eq!(kind("Data", None), ["RawBuffer"]);
    assert_eq!(kind("StructuredBuffer", None), ["RawBuffer"]);
}

#[test]
fn cli_dump_labels_a_structured_buffer_of_uint_and_marks_uniformity() {
    let dir = common::TempDir::new("uniformity-cli");
    let p = dir.path().join("sb_uint.spv");
    std::fs::write(&p, spirv_buffer("type.RWStructuredBuffer.uint", None, 4, Index::ThreadId)).unwrap();
    let (code, out, err) = common::run(common::irlint().args(["dump", "--ir"]).arg(&p));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("resource #0: uav StructuredBuffer set 0 binding 0"), "{out}");
    assert!(out.contains("D %0 = load <3 x i32>, @g1"), "{out}");
    assert!(out.contains("D %2 = getelementptr @g0, i32 0, i32 0, %1"), "{out}");
}

#[test]
fn corpus_cull_shaders_keep_indirect_draws_and_drop_ubo_out() {
    let Some(corpus) = common::shared("corpus") else { return };
    for lang in ["hlsl", "slang"] {
        let p = corpus.join(format!("spirv/sascha-willems/{lang}/computecullandlod/cull.comp.spv"));
        let m = irlint::spirv::lower(&std::fs::read(&p).unwrap(), 0).unwrap();
        let d = stride_findings(&m);
        let names: Vec<String> =
            d.iter().map(|d| d.location.resource.as_ref().and_then(|r| r.name.clone()).unwrap_or_default()).collect();
        assert_eq!(names, ["indirectDraws"], "{lang}");
        assert!(text(&d[0], "why").starts_with("thread id (GlobalInvocationId)"), "{lang}");
    }
}

/// A fuzzed SPIR-V module (libFuzzer `pipeline` target, 19 KB) whose control
/// dependences form a cycle through blocks past `MAX_ORIGINS` origins: the
/// solver counted a saturated block as grown on every visit and re-queued the
/// cycle forever (over 10 minutes and 1 GB). Growth is now monotone.
#[test]
fn saturated_control_dependence_cycles_terminate() {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/uniformity_origins_cycle.spv");
    let bytes = std::fs::read(&p).unwrap();
    let t = std::time::Instant::now();
    let r = irlint::check::check_bytes("uniformity_origins_cycle.spv", &bytes, &irlint::check::CheckOptions::default());
    assert!(t.elapsed() < std::time::Duration::from_secs(20), "{:?}", t.elapsed());
    assert!(r.diagnostics.iter().all(|d| d.rule != irlint::report::INTERNAL_ERROR));
}

//! PTX matrix-instruction forms (issue 23): modifiers read as a set wherever
//! ptxas 13.5 accepts them in any order, and the messages of `atom-ptx-form` /
//! `atom-tma-rank-mode` state the recovered values without sending a form that
//! no target accepts to another target. ptxas's verdicts on the orders are in
//! docs/atoms.md (and re-measured by tests/ptx_mutants.rs where ptxas is installed).

mod common;

use irlint::check::{check_bytes, CheckOptions, FileStatus};
use irlint::ir::{FactKind, PtxOp};

/// A module with one kernel around `body` (registers for every form below).
fn module(target: &str, body: &[String]) -> String {
    let mut s = format!(".version 8.8\n.target {target}\n.address_size 64\n\n.visible .entry k()\n{{\n");
    for d in [".reg .pred %p<2>;", ".reg .b16 %rs<4>;", ".reg .b32 %r<80>;", ".reg .b64 %rd<6>;", ".reg .f32 %f<80>;"] {
        s += &format!("\t{d}\n");
    }
    for l in body {
        s += &format!("\t{l}\n");
    }
    s + "\tret;\n}\n"
}

fn facts(target: &str, body: &[String]) -> Vec<PtxOp> {
    let m = irlint::ptx::lower(module(target, body).as_bytes(), 0).unwrap();
    m.facts
        .iter()
        .filter_map(|f| match &f.kind {
            FactKind::Ptx(p) => Some(p.op.clone()),
            _ => None,
        })
        .collect()
}

/// (rule, message) of the atom findings, in line order.
fn messages(target: &str, body: &[String]) -> Vec<(String, String)> {
    let text = module(target, body);
    let r = check_bytes("forms.ptx", text.as_bytes(), &CheckOptions::default());
    assert_eq!(r.files[0].status, FileStatus::Ok, "{:?}", r.files[0].message);
    r.diagnostics.iter().filter(|d| d.rule.starts_with("atom-")).map(|d| (d.rule.clone(), d.message.clone())).collect()
}

fn one(s: &str) -> Vec<String> {
    vec![s.to_string()]
}

/// Every order of the free modifiers that keeps the sequences (types, layouts,
/// state spaces) and the instruction name, by adjacent swaps: (word, operands).
fn reorders(word: &str, fixed_prefix: usize, ordered: &[&str]) -> Vec<String> {
    let parts: Vec<&str> = word.split('.').collect();
    let (head, mods) = parts.split_at(fixed_prefix);
    let mut out = Vec::new();
    for i in 0..mods.len() {
        for j in i + 1..mods.len() {
            // Move modifier i to position j (a rotation): keeps every other relative order.
            let mut m: Vec<&str> = mods.to_vec();
            let x = m.remove(i);
            m.insert(j, x);
            let seq = |v: &[&str]| v.iter().filter(|w| ordered.contains(w)).map(|w| w.to_string()).collect::<Vec<_>>();
            if seq(&m) == seq(mods) && m != mods {
                out.push([head, &m[..]].concat().join("."));
            }
        }
    }
    out
}

#[test]
fn modifiers_are_a_set_for_every_decoded_family() {
    const TYPES: &[&str] = &["f32", "f16", "bf16", "tf32", "e4m3", "e5m2", "e2m1", "ue8m0", "ue4m3", "s32", "s8", "u8"];
    const SPACES: &[&str] = &["global", "shared::cta", "shared::cluster"];
    let layouts_types: Vec<&str> = TYPES.iter().copied().chain(["row", "col"]).collect();
    let sp_ops = "{%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r9, %r10}, {%f5, %f6, %f7, %f8}, %r11, 0x0, %r7, {%rs1, %rs2}, %r8, {%rs1, %rs2};";
    let f8 = "{%f10, %f11, %f12, %f13, %f14, %f15, %f16, %f17}";
    // (target, word, fixed name words, sequences, operands)
    let cases: Vec<(&str, &str, usize, &[&str], String)> = vec![
        (
            "sm_120a",
            "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0",
            1,
            &layouts_types,
            sp_ops.to_string(),
        ),
        ("sm_90a", "wgmma.mma_async.sp.sync.aligned.m64n16k32.f32.bf16.bf16", 2, TYPES, format!("{f8}, %rd1, %rd2, %r40, 0, %p1, 1, 1, 0, 0;")),
        ("sm_90a", "wgmma.mma_async.sync.aligned.m64n16k32.satfinite.s32.s8.u8", 2, TYPES, format!("{}, %rd1, %rd2, %p1;", f8.replace("%f", "%r"))),
        (
            "sm_100a",
            "tcgen05.mma.ws.sp.cta_group::1.kind::f16.collector::b0::fill",
            3,
            &[],
            "[%r1], %rd2, %rd3, [%r6], %r2, %p1;".to_string(),
        ),
        (
            "sm_100a",
            "tcgen05.mma.sp.cta_group::2.kind::mxf4nvf4.block_scale.scale_vec::4X.collector::a::fill",
            2,
            &[],
            "[%r1], %rd2, %rd3, [%r6], %r2, [%r4], [%r7], %p1;".to_string(),
        ),
        ("sm_100a", "ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8x16.b6x16_p32", 1, &["b8x16", "b6x16_p32"], "{%r10, %r11, %r12, %r13}, [%r1];".to_string()),
        ("sm_100a", "stmatrix.sync.aligned.m16n8.x1.trans.shared::cta.b8", 1, &[], "[%r1], {%r10};".to_string()),
        (
            "sm_100a",
            "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster.cta_group::2.L2::cache_hint",
            4,
            SPACES,
            "[%r2], [%rd1, {%r10, %r11, %r12}], [%r3], {%rs1}, %rs2, %rd3;".to_string(),
        ),
        ("sm_90a", "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group", 5, SPACES, "[%rd1, {%r10, %r11}], [%r2];".to_string()),
        ("sm_90a", "cp.async.bulk.prefetch.tensor.3d.L2.global.im2col.L2::cache_hint", 5, &[], "[%rd1, {%r10, %r11, %r12}], {%rs1}, %rd3;".to_string()),
    ];
    let mut checked = 0;
    for (target, word, fixed, seqs, ops) in cases {
        let canonical = facts(target, &one(&format!("{word} {ops}")));
        assert_eq!(canonical.len(), 1, "{word}");
        assert!(messages(target, &one(&format!("{word} {ops}"))).is_empty(), "{word} is valid on {target}");
        let orders = reorders(word, fixed, seqs);
        assert!(orders.len() >= 5, "{word}: {} orders", orders.len());
        let body: Vec<String> = orders.iter().map(|w| format!("{w} {ops}")).collect();
        assert_eq!(facts(target, &body), vec![canonical[0].clone(); orders.len()], "{word}");
        assert!(messages(target, &body).is_empty(), "{word}: {:?}", messages(target, &body));
        checked += orders.len();
    }
    assert!(checked > 200, "{checked}");
}

#[test]
fn cutlass_order_sparse_block_scaled_mma_reads_as_sparse() {
    let ops = "{%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r9, %r10}, {%f5, %f6, %f7, %f8}, %r11, 0x0, %r7, {%rs1, %rs2}, %r8, {%rs1, %rs2};";
    for (word, k) in [
        ("mma.sync.aligned.kind::mxf8f6f4.sp::ordered_metadata.block_scale.scale_vec::1X.m16n8k64.row.col.f32.e4m3.e2m1.f32.ue8m0", 64),
        ("mma.sync.aligned.kind::mxf4nvf4.sp::ordered_metadata.block_scale.scale_vec::4X.m16n8k128.row.col.f32.e2m1.e2m1.f32.ue4m3", 128),
    ] {
        let f = facts("sm_120a", &one(&format!("{word} {ops}")));
        let [PtxOp::BlockScaledMma(b)] = f.as_slice() else { panic!("{f:?}") };
        assert!(b.sparse, "{word}");
        assert_eq!((b.k, b.layouts.as_str(), b.fragments), (k, "row.col", [4, 4, 4, 4]));
        assert_eq!(b.sparse_modifier.as_deref(), Some("sp::ordered_metadata"));
        assert!(messages("sm_120a", &one(&format!("{word} {ops}"))).is_empty());
    }
}

#[test]
fn forms_invalid_everywhere_are_not_sent_to_another_target() {
    // ldmatrix .x3 and .m8n8.b8 on sm_90a: the seed verifier's finding only.
    let m = messages(
        "sm_90a",
        &[
            "ldmatrix.sync.aligned.m8n8.x3.shared.b16 {%r1, %r2, %r3}, [%r4];".into(),
            "ldmatrix.sync.aligned.m8n8.x4.shared.b8 {%r1, %r2, %r3, %r4}, [%r5];".into(),
            "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r1, %r2}, [%r5];".into(),
        ],
    );
    assert_eq!(
        m,
        [
            ("atom-ldsm-mode".to_string(), "`num_matrices` is 3, expected 1, 2 or 4".to_string()),
            ("atom-ldsm-mode".into(), "`size` is u8, expected u16".into()),
            ("atom-ptx-form".into(), "ldmatrix.m16n16.b8 needs a Blackwell `a` or `f` target, not sm_90a".into()),
        ]
    );
    // .kind::i8 on sm_103a (arch-conditional, no i8): irlint's words, not "arch-conditional".
    let tc =
        |kind: &str, extra: &str| format!("tcgen05.mma.cta_group::1.kind::{kind}{extra} [%r1], %rd2, %rd3, %r2, %p1;");
    for target in ["sm_103a", "sm_103f", "sm_107a"] {
        assert_eq!(
            messages(target, &one(&tc("i8", ""))),
            [(
                "atom-ptx-form".to_string(),
                format!(".kind::i8 is not available on {target}: only sm_100a and sm_110a (sm_101a) have it")
            )]
        );
    }
    assert!(messages("sm_100a", &one(&tc("i8", ""))).is_empty());
    assert_eq!(
        messages("sm_100f", &one(&tc("i8", ""))),
        [("atom-tcgen05-kind".to_string(), "INT8 type is supported only on arch-conditional variants.".to_string())]
    );
    // On a target without tcgen05 the ladder's target gates stay quiet: one message names the target.
    assert_eq!(
        messages("sm_120a", &one(&tc("i8", ""))),
        [(
            "atom-ptx-form".to_string(),
            "tcgen05.mma is not available on sm_120a: it needs sm_100, sm_103, sm_107 or sm_110 with an `a` or `f` suffix"
                .to_string()
        )]
    );
    // A TMA copy with a wrong coordinate count on sm_80: the count, not the target.
    let tma = |c: &str| {
        format!("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd3, {{{c}}}], [%r4];")
    };
    assert_eq!(
        messages("sm_80", &[tma("%r2"), tma("%r2, %r3")]),
        [
            (
                "atom-tma-rank-mode".to_string(),
                "cp.async.bulk.tensor.2d .tile has 1 tensor coordinates, expected 2".to_string()
            ),
            ("atom-tma-rank-mode".into(), "cp.async.bulk.tensor needs sm_90 or later, not sm_80".into()),
        ]
    );
    // The seed verifiers' target gates are quiet too when the form is wrong everywhere.
    assert_eq!(
        messages(
            "sm_90a",
            &one("cp.async.bulk.tensor.3d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes [%r1], [%rd3, {%r2, %r3}], [%r4], {%rs1, %rs2};")
        ),
        [(
            "atom-tma-rank-mode".to_string(),
            "cp.async.bulk.tensor.3d .im2col::w has 2 tensor coordinates, expected 3".to_string()
        )]
    );
    assert_eq!(
        messages("sm_100f", &one("tcgen05.mma.cta_group::1.kind::i8 [%r1], %rd2, %rd3, %r2, {%r3, %r4, %r5}, %p1;")),
        [(
            "atom-ptx-form".to_string(),
            "disable-output-lane of .cta_group::1 is 4 registers, the vector has 3".to_string()
        )]
    );
    // A block-scaled mma with a kind/shape mismatch off sm_120: the shape (and the
    // seed lattice's verdict on it), not the target.
    let mma = "mma.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8}, %r7, {%rs1, %rs2}, %r8, {%rs1, %rs2};";
    assert_eq!(
        messages("sm_100a", &one(mma)),
        [
            ("atom-sm120-block-scale".to_string(), "`scale_vector_size` is 64, expected 16 or 32".to_string()),
            ("atom-ptx-form".into(), ".kind::mxf8f6f4 has no .m16n8k64 shape".into()),
        ]
    );
}

#[test]
fn wgmma_and_tma_messages_state_the_recovered_values() {
    let regs =
        |p: &str, n: usize| format!("{{{}}}", (0..n).map(|i| format!("%{p}{}", 10 + i)).collect::<Vec<_>>().join(", "));
    let w = |shape: &str, types: &str, d: String, tail: &str| {
        format!("wgmma.mma_async.sync.aligned.{shape}.{types} {d}, %rd1, %rd2, %p1{tail};")
    };
    let body = vec![
        w("m64n64k32", "f32.bf16.bf16", regs("f", 32), ", 1, 1, 0, 0"),
        w("m64n60k16", "f32.bf16.bf16", regs("f", 30), ", 1, 1, 0, 0"),
        w("m64n64k16", "f16.bf16.bf16", regs("r", 16), ", 1, 1, 0, 0"),
        w("m64n64k16", "f32.e4m3.e4m3", regs("f", 32), ", 1, 1"),
        w("m64n64k16", "f32.tf32.tf32", regs("f", 32), ", 1, 1"),
        w("m128n64k16", "f32.f16.f16", regs("f", 32), ", 1, 1, 0, 0"),
        w("m64n40k32", "s32.s8.s8", regs("r", 20), ""),
        w("m64n64k16", "f32.f16.f16", regs("f", 33), ", 1, 1, 0, 0"),
    ];
    let got: Vec<String> = messages("sm_90a", &body).into_iter().map(|(r, m)| format!("{r}: {m}")).collect();
    assert_eq!(
        got,
        [
            "atom-ptx-form: wgmma.mma_async with .bf16 inputs has K = 16, not .m64n64k32",
            "atom-ptx-form: wgmma.mma_async with .bf16 inputs has no N = 60 (N is 8 to 256 in steps of 8)",
            "atom-ptx-form: wgmma.mma_async with .bf16 inputs accumulates in .f32, not .f16",
            "atom-ptx-form: wgmma.mma_async with .e4m3/.e5m2 inputs has K = 32, not .m64n64k16",
            "atom-ptx-form: wgmma.mma_async with .tf32 inputs has K = 8, not .m64n64k16",
            "atom-ptx-form: wgmma.mma_async has only M = 64, not .m128n64k16",
            "atom-ptx-form: wgmma.mma_async with .s8/.u8 inputs has no N = 40 (N is 8, 16, 24, then 32 to 256 in steps of 16)",
            "atom-ptx-form: the .f32 accumulator of wgmma.mma_async.m64n64 is 32 registers, the vector has 33",
        ]
    );
    // The same valid form on sm_90 and sm_100a: the target.
    let ok = w("m64n64k16", "f32.bf16.bf16", regs("f", 32), ", 1, 1, 0, 0");
    assert!(messages("sm_90a", &one(&ok)).is_empty());
    for t in ["sm_90", "sm_100a", "sm_120a"] {
        assert_eq!(
            messages(t, &one(&ok)),
            [("atom-ptx-form".to_string(), format!("wgmma.mma_async needs sm_90a, not {t}"))]
        );
    }
    let im2col = |rank: u32, info: &str| {
        let c: Vec<String> = (0..rank).map(|i| format!("%r{}", 10 + i)).collect();
        format!(
            "cp.async.bulk.tensor.{rank}d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd3, {{{}}}], [%r4]{info};",
            c.join(", ")
        )
    };
    let got: Vec<String> =
        messages("sm_90a", &[im2col(5, ", {%rs1, %rs2, %rs3}"), im2col(5, ""), im2col(4, ", {%rs1}")])
            .into_iter()
            .map(|x| x.1)
            .collect();
    assert_eq!(
        got,
        [
            "cp.async.bulk.tensor.5d .im2col has no {im2colInfo} operand, expected 3 im2col offsets",
            "cp.async.bulk.tensor.4d .im2col has 1 im2col offsets, expected 2",
        ]
    );
    // tcgen05 block scale without its scale operands.
    assert_eq!(
        messages("sm_100a", &one("tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [%r1], %rd2, %rd3, %r2, [%r4], %p1;")),
        [(
            "atom-ptx-form".to_string(),
            "tcgen05.mma.block_scale takes [scale-A], [scale-B] and enable-input-d after idesc: found 2 operands there, 1 of them [addresses]"
                .to_string()
        )]
    );
}

/// Real PTX that ptxas accepts: no atom rule fires on any module that reads
/// (`tests/fixtures/ptx_real`, and `../shared/corpus/ptx` when present). The
/// CUTLASS sm_120a sparse block-scaled GEMM is the issue-23 case: its 64 MMAs in
/// CUTLASS's modifier order read as sparse.
#[test]
fn real_ptx_gets_no_atom_finding() {
    let mut files = common::files_with_suffix(&common::root().join("tests/fixtures/ptx_real"), ".ptx");
    if let Some(dir) = common::shared("corpus/ptx") {
        files.extend(common::files_with_suffix(&dir, ".ptx"));
    }
    let mut read = 0;
    for p in &files {
        let bytes = std::fs::read(p).unwrap();
        let r = check_bytes(&p.display().to_string(), &bytes, &CheckOptions::default());
        if r.files[0].status != FileStatus::Ok {
            continue; // a front-end reading error (tests/ptx_real's business)
        }
        read += 1;
        let atom: Vec<_> = r.diagnostics.iter().filter(|d| d.rule.starts_with("atom-")).map(|d| &d.message).collect();
        assert!(atom.is_empty(), "{}: {atom:?}", p.display());
    }
    assert!(read >= 4, "{read} of {} modules read", files.len());
    let p = common::root().join("tests/fixtures/ptx_real/cutlass_80a_sparse_mxf8f6f4_gemm.sm_120a.ptx");
    let m = irlint::ptx::lower(&std::fs::read(p).unwrap(), 0).unwrap();
    let sparse: Vec<(bool, u32)> = m
        .facts
        .iter()
        .filter_map(|f| match &f.kind {
            FactKind::Ptx(x) => match &x.op {
                PtxOp::BlockScaledMma(b) => Some((b.sparse, b.k)),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(sparse, vec![(true, 64); 64]);
}

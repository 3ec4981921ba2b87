//! PTX values on real kernels (issue 24): descriptors and shared addresses
//! resolved through loops, shuffles, calls and spills, and the checks that
//! read the whole descriptor (layout, format combination).

mod common;

use irlint::analysis::{analyze, AbsValue, AnalysisOptions};
use irlint::check::{check_bytes, CheckOptions, FileStatus};
use irlint::dump::{dump_bytes, DumpOptions};
use irlint::ir::{FactKind, PtxOp};
use std::path::{Path, PathBuf};

fn fixtures() -> Vec<PathBuf> {
    let dir = common::root().join("tests/fixtures/ptx_values");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    v.retain(|p| p.extension().is_some_and(|e| e == "ptx"));
    v.sort();
    v
}

/// `(line, rule, field)` of every `// expect: RULE field=F` annotation; the
/// finding is on the next line that is not a comment.
fn expectations(text: &str) -> Vec<(u64, String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut v: Vec<(u64, String, String)> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let rest = l.trim().strip_prefix("// expect: ")?;
            let mut words = rest.split_whitespace();
            let rule = words.next()?.to_string();
            let field = words.find_map(|w| w.strip_prefix("field="))?.to_string();
            let next = (i + 1..lines.len()).find(|j| !lines[*j].trim().starts_with("//"))?;
            Some((next as u64 + 1, rule, field))
        })
        .collect();
    v.sort();
    v
}

fn findings(path: &Path) -> Vec<(u64, String, String)> {
    let bytes = std::fs::read(path).unwrap();
    let r = check_bytes(&path.display().to_string(), &bytes, &CheckOptions::default());
    assert_eq!(r.files[0].status, FileStatus::Ok, "{}: {:?}", path.display(), r.files[0].message);
    let mut v: Vec<(u64, String, String)> = r
        .diagnostics
        .iter()
        .map(|d| {
            let get = |k: &str| d.values.iter().find(|(key, _)| key == k).map(|(_, v)| v.to_string());
            let line = get("ptx-line").and_then(|l| l.parse().ok()).unwrap_or(0);
            (line, d.rule.clone(), get("field").unwrap_or_default())
        })
        .collect();
    v.sort();
    v
}

/// A wrong descriptor or a misaligned address that reaches the instruction
/// through a loop, a shuffle, a call or a spill, and the layout and format
/// combination checks: each fires on its annotated line with its field, and
/// the correct twins beside them stay silent.
#[test]
fn value_fixtures_fire_on_the_annotated_lines_only() {
    let files = fixtures();
    assert_eq!(files.len(), 3);
    for p in files {
        let want = expectations(&std::fs::read_to_string(&p).unwrap());
        assert!(want.len() >= 2, "{}", p.display());
        assert_eq!(findings(&p), want, "{}", p.display());
    }
}

/// The findings state the recovered values.
#[test]
fn layout_messages_state_the_recovered_values() {
    let p = common::root().join("tests/fixtures/ptx_values/layout_triton.ptx");
    let r = check_bytes("layout_triton.ptx", &std::fs::read(&p).unwrap(), &CheckOptions::default());
    let msgs: Vec<&str> = r.diagnostics.iter().map(|d| d.message.as_str()).collect();
    let want = [
        "b-desc of tcgen05.mma has sbo (bits 32-45) = 1024 (16384 bytes): the last of 16 groups of 8 rows starts at byte 245760 or later, past the 233472 bytes of shared memory the kernel can have (LBO and SBO are in 16-byte units)",
        "b-desc of tcgen05.mma has sbo (bits 32-45) = 32 (512 bytes): the 16 groups of 8 rows overlap inside one 1024-byte swizzle atom (SBO must be at least 64 in 16-byte units)",
        "b-desc of tcgen05.mma has start_address (bits 0-13) built from a shared address that is 8 mod 16 (8 mod 1024); `>> 4` drops those bytes, so the operand is read from 16-byte-aligned address below it",
        "b-desc of tcgen05.mma has base_offset (bits 49-51) = 1, but the start address (0 mod 1024 bytes) is at the start of its 1024-byte swizzle pattern, where the base offset is 0 ((addr >> 7) & 7)",
        "b-desc of tcgen05.mma has lbo (bits 16-29) = 4 (64 bytes): the two core matrices along K overlap (each is 128 bytes)",
        "idesc of tcgen05.mma.kind::f16 has d_format (bits 4-5) = 0 (F16) with a_format = 1 (BF16) and b_format = 1 (BF16): an F16 accumulator needs F16 A and B (BF16 inputs need d_format 1, F32)",
    ];
    for w in want {
        assert!(msgs.contains(&w), "missing {w:?} in {msgs:#?}");
    }
}

/// ptxas 13.5 assembles every fixture: they are valid PTX (the descriptors
/// travel in registers, so ptxas cannot see what irlint reports).
#[test]
fn ptxas_assembles_the_value_fixtures() {
    let Some(ptxas) = common::ptxas() else {
        common::skip("ptxas not found (pip install nvidia-cuda-nvcc, or set PTXAS)");
        return;
    };
    let tmp = common::TempDir::new("ptx-values");
    for p in fixtures() {
        let text = std::fs::read_to_string(&p).unwrap();
        let arch = if text.contains(".target sm_90a") { "sm_90a" } else { "sm_100a" };
        let o = std::process::Command::new(&ptxas)
            .arg(format!("-arch={arch}"))
            .arg(&p)
            .arg("-o")
            .arg(tmp.path().join("out.cubin"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}: {}", p.display(), String::from_utf8_lossy(&o.stderr));
    }
}

/// nvcc -G passes the ldmatrix address of `ldsm` through
/// `__cvta_generic_to_shared`, a `.func`: the parameter is the call site's
/// `0 mod 16` tile address, the return value `cvta.to.shared` of it, so the
/// address is known 16-byte aligned (it was unknown before).
#[test]
fn nvcc_g_call_carries_the_address_through_a_func() {
    let p = common::root().join("tests/fixtures/ptx_nvcc/k.G.sm_90a.ptx");
    let m = irlint::ptx::lower(&std::fs::read(&p).unwrap(), 0).unwrap();
    let a = analyze(&m, &AnalysisOptions::default());
    let mut seen = 0;
    for f in &m.facts {
        let FactKind::Ptx(x) = &f.kind else { continue };
        let PtxOp::LdStMatrix(l) = &x.op else { continue };
        let v = a.value(&m, f.function, l.address.unwrap());
        assert_eq!(v.alignment(32), Some(16), "{v:?}");
        seen += 1;
    }
    assert_eq!(seen, 1);
    let (h, _) = m.functions.iter().find(|(_, f)| f.name.contains("cvta_generic_to_shared")).unwrap();
    let params = a.params(h);
    assert_eq!(params.len(), 1);
    assert_eq!(params[0].alignment(64), Some(16), "{:?}", params[0]);
}

/// `dump --ir` shows what the dataflow recovered for loop phis and `.func`
/// parameters.
#[test]
fn dump_ir_notes_loop_phis_and_call_parameters() {
    let p = common::root().join("tests/fixtures/ptx_values/paths.ptx");
    let d = dump_bytes("paths.ptx", &std::fs::read(&p).unwrap(), &DumpOptions { ir: true });
    let ir = d.ir.as_deref().unwrap();
    assert!(ir.contains("phi i64 [%3, bb0], [%12, bb1] ; = 0 mod 2, bits 32-63 = 0x4000404000000000"), "{ir}");
    let after = |name: &str| ir.split(&format!("define void @{name}(")).nth(1).unwrap().lines().nth(1).unwrap();
    assert_eq!(after("ld_bad").trim(), "; %arg0 = 8 mod 1024");
    assert_eq!(after("ld_good").trim(), "; %arg0 = 48 mod 1024");
}

/// A 64-bit descriptor carried around the K loop keeps its constant high
/// half (before issue 24 the widening kept only its low bits: every field
/// unknown), and the shuffled and spilled addresses keep their alignment.
#[test]
fn loop_shuffle_and_spill_values() {
    let p = common::root().join("tests/fixtures/ptx_values/paths.ptx");
    let m = irlint::ptx::lower(&std::fs::read(&p).unwrap(), 0).unwrap();
    let a = analyze(&m, &AnalysisOptions::default());
    let mut by_fn: Vec<(String, AbsValue)> = Vec::new();
    for f in &m.facts {
        let FactKind::Ptx(x) = &f.kind else { continue };
        let name = m.functions.try_get(f.function).unwrap().name.clone();
        let op = match &x.op {
            PtxOp::Tcgen05Mma(t) => t.a_desc,
            PtxOp::LdStMatrix(l) => l.address,
            PtxOp::Mbarrier(b) => b.address,
            _ => None,
        };
        by_fn.push((name, a.value(&m, f.function, op.unwrap())));
    }
    let get = |n: &str, k: usize| by_fn.iter().filter(|(f, _)| f == n).nth(k).unwrap().1.clone();
    let good = get("loop_good", 0);
    assert_eq!(good.known_field(32, 32, 64), Some(0x4000_4040), "{good:?}");
    assert_eq!(good.known_field(61, 3, 64), Some(2));
    assert_eq!(good.known_field(46, 3, 64), Some(1));
    assert_eq!(get("shuffle", 0).to_congruence(32), Some((8, 10)));
    assert_eq!(get("shuffle", 1).to_congruence(32), Some((32, 10)));
    assert_eq!(get("spill", 0).to_congruence(32), Some((4, 10)));
    assert_eq!(get("spill", 1).to_congruence(32), Some((16, 10)));
}

/// Stores that overlap in part make a local byte array unknown: a 64-bit
/// store at 0 and a 32-bit load at 4 read bytes no single store wrote.
#[test]
fn overlapping_spills_are_unknown() {
    let text = "\
.version 8.7
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry e()
{
\t.local .align 8 .b8 __local_depot0[16];
\t.reg .b64 %SPL;
\t.reg .b32 %r<8>;
\t.reg .b64 %rd<8>;
\tmov.u64 %SPL, __local_depot0;
\tmov.u32 %r1, smem;
\tadd.s32 %r2, %r1, 16;
\tcvt.u64.u32 %rd1, %r2;
\tst.local.u64 [%SPL], %rd1;
\tld.local.u32 %r3, [%SPL+4];
\tld.local.u32 %r4, [%SPL];
\tmbarrier.init.shared::cta.b64 [%r3], 1;
\tmbarrier.init.shared::cta.b64 [%r4], 1;
\tret;
}
";
    let m = irlint::ptx::lower(text.as_bytes(), 0).unwrap();
    let a = analyze(&m, &AnalysisOptions::default());
    let vals: Vec<AbsValue> = m
        .facts
        .iter()
        .filter_map(|f| match &f.kind {
            FactKind::Ptx(x) => match &x.op {
                PtxOp::Mbarrier(b) => Some(a.value(&m, f.function, b.address.unwrap())),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(vals, [AbsValue::Top, AbsValue::Top]);
}

/// CUTLASS's pipeline (example 70_blackwell_fp16_gemm, sm_100a, lines
/// 1630-1654): the stage is `s + 1 == 8 ? 0 : s + 1`, and the descriptors are
/// `desc + stage * 1024` (16 KB stages in 16-byte units). The select's false
/// arm sees `s + 1 != 8`, so the stage stays the set {0, …, 7}; each add's
/// carry out of the start address stops at the reserved bits 14-15, so the
/// version, SBO and layout stay known.
#[test]
fn cutlass_stage_counter_and_descriptor_advance() {
    let text = "\
.version 8.7
.target sm_100a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry k(.param .u32 n)
{
\t.reg .pred %p<8>;
\t.reg .b32 %r<32>;
\t.reg .b64 %rd<16>;
\tld.param.u32 %r10, [n];
\tmov.u32 %r1, smem;
\tshr.u32 %r2, %r1, 4;
\tand.b32 %r3, %r2, 16383;
\tcvt.u64.u32 %rd1, %r3;
\tor.b64 %rd8, %rd1, 4611756662049538048;
\tmov.b32 %r5, 0;
\tmov.b32 %r6, 0;
$L__loop:
\tmul.wide.s32 %rd2, %r5, 1024;
\tadd.s64 %rd3, %rd8, %rd2;
\ttcgen05.mma.cta_group::1.kind::f16 [%r0], %rd3, %rd3, 136314896, %p1;
\tadd.s32 %r7, %r5, 1;
\tsetp.eq.b32 %p2, %r7, 8;
\tselp.b32 %r5, 0, %r7, %p2;
\tadd.s32 %r6, %r6, 1;
\tsetp.lt.u32 %p3, %r6, %r10;
\t@%p3 bra $L__loop;
\tret;
}
";
    let m = irlint::ptx::lower(text.as_bytes(), 0).unwrap();
    let a = analyze(&m, &AnalysisOptions { all_functions: true, ..Default::default() });
    let f = &m.facts[0];
    let FactKind::Ptx(x) = &f.kind else { panic!() };
    let PtxOp::Tcgen05Mma(t) = &x.op else { panic!() };
    let v = a.value(&m, f.function, t.a_desc.unwrap());
    assert_eq!(v.known_field(61, 3, 64), Some(2), "{v:?}");
    assert_eq!(v.known_field(46, 3, 64), Some(1), "{v:?}");
    assert_eq!(v.known_field(32, 14, 64), Some(64), "{v:?}");
    assert_eq!(v.known_field(15, 1, 64), Some(0), "the carry stops at bit 14: {v:?}");
    // The stage itself: exactly {0, ..., 7}.
    let stage = m.functions.iter().next().unwrap().1.insts.iter().find_map(|(h, i)| match &i.kind {
        irlint::ir::InstKind::Select { .. } => Some(h),
        _ => None,
    });
    let sv = a.value(&m, f.function, irlint::ir::Operand::Value(irlint::ir::Value::Inst(stage.unwrap())));
    assert_eq!(sv, AbsValue::Set((0..8).collect()));
}

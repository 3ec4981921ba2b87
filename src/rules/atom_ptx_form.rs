//! `atom-ptx-form`: PTX matrix-instruction forms ptxas rejects for reasons the
//! matrix-atom verifiers (`crate::atoms`) do not model, in irlint's own words.

use super::atom_ptx::{ptx_facts, ptx_line};
use super::{At, Finding, RuleContext, RuleMeta};
use crate::ir::{MmaKind, PtxOp, PtxTarget, ScaleVec, TmaMode, Wgmma};
use crate::report::{Certainty, FindingValue, Level};
use rustc_hash::FxHashMap;

/// Rule metadata.
pub const META: RuleMeta = RuleMeta {
    id: "atom-ptx-form",
    default_level: Some(Level::Error),
    summary: "a PTX matrix instruction in a form ptxas rejects for a reason the other atom rules do not check",
    doc: DOC,
    options: &[],
};

const DOC: &str = r#"
## What it does
Flags `tcgen05.mma`, `wgmma.mma_async`, block-scaled `mma`, `ldmatrix`/`stmatrix` and
`cp.async.bulk.tensor` forms that ptxas 13.5 rejects for reasons the other `atom-*` rules do not
check (the PTX ISA's per-instruction syntax, target and PTX-version tables), in irlint's own words:

- `tcgen05.mma` on a target without it (anything but sm_100, sm_101/110, sm_103, sm_107 with an
  `a` or `f` suffix); `.kind::i8` on a target other than sm_100a/sm_110a (sm_101a) — including
  sm_103a, which is arch-conditional; no `.cta_group::N` or no `.kind::K`; `.ws` anywhere but
  directly after `tcgen05.mma`;
- a scale vector size (`.scale_vec::NX`, `.block16`, `.block32`) without `.block_scale`;
  a block-scaled kind (`mxf8f6f4`, `mxf4`, `mxf4nvf4`) without `.block_scale`;
  `.block_scale` without exactly `[scale-A], [scale-B]` and enable-input-d after idesc, or
  `[address]` scale operands without `.block_scale`; a disable-output-lane vector other than 4
  registers (`.cta_group::1`) or 8 (`.cta_group::2`);
- `.collector::a::*` on `.ws` (which takes `.collector::bN::*` buffers); `.block16`/`.block32`
  below PTX 8.8; one kernel using both `.cta_group::1` and `.cta_group::2`;
- `wgmma.mma_async` forms outside the PTX ISA tables: the input pair (both `.f16`, both `.bf16`,
  both `.tf32`, `.e4m3`/`.e5m2`, `.s8`/`.u8`, both `.b1`), the accumulator type per pair, M = 64,
  K per type (16, 16, 8, 32, 32, 256; twice that for `.sp`, no sparse `.b1`), N (8 to 256 in steps
  of 8; for `.s8`/`.u8`/`.b1` 8, 16, 24, then steps of 16), `.satfinite` only for `.s8`/`.u8`,
  `.and.popc` only (and always) for `.b1`, the accumulator's register count (N/2, N/4 for `.f16`)
  and 4 registers for A in registers; and `wgmma` on any target but sm_90a;
- `ldmatrix`/`stmatrix` without `.x1`/`.x2`/`.x4`, with a shape or element format the
  instruction does not have (`stmatrix.m16n16`, `ldmatrix.m16n8`), and the 8x16, 16x16 and
  16x8 shapes or 8-bit formats on targets other than Blackwell `a`/`f` targets;
- block-scaled `mma.sync`: a shape other than m16n8 or a kind that does not match K (mxf8f6f4 is
  K = 32, mxf4 and mxf4nvf4 K = 64, twice that with `.sp::ordered_metadata`), layouts other than
  `.row.col`, types other than `.f32.A.B.f32.scale`, fragment vectors of the wrong size, sparsity
  written `.sp` (ptxas wants `.sp::ordered_metadata`), `.block16`/`.block32` (ptxas 13.5 accepts
  only `.scale_vec::NX` on `mma`; the message names the equivalent spelling), mxf4nvf4 without
  an explicit scale vector, mxf4 with 4X, ue4m3 scales other than mxf4nvf4 with 4X, 4X with
  ue8m0 below PTX 9.1; off sm_120a/121a/120f/121f, and sparse mxf4/mxf4nvf4 on the `f` targets;
- `cp.async.bulk.tensor`: modes in the wrong direction (gather4 and im2col are loads, scatter4
  and im2col_no_offs stores), a source space other than `.global` for a load or
  `.shared::cta` for a store, a missing or wrong completion mechanism
  (`.mbarrier::complete_tx::bytes` for loads, `.bulk_group` for stores), `.multicast::cluster`
  into anything but `.shared::cluster`, an operand count that does not match the modifiers, a
  `cp.reduce` without its reduction; gather4 and im2col::w into `shared::cluster`, prefetch with
  im2col::w and `.cta_group::2` off the sm_100 family `a`/`f` targets.

Modifiers are read as a set wherever ptxas accepts them in any order (CUTLASS writes
`mma.sync.aligned.kind::mxf8f6f4.sp::ordered_metadata.block_scale…`); only the sequences ptxas
fixes are read in order: the instruction name (`tcgen05.mma.ws`, `wgmma.mma_async`), the types,
the layouts and the state spaces (destination, then source).

A target problem is reported only for a form that some target accepts: a form that is invalid
everywhere gets the reasons that hold everywhere and is not told to change its target.

## Why is this bad
ptxas refuses the module, so the kernel never runs; the messages name the modifier, the values
recovered from the instruction and the target, so that the generator that produced the form can
be fixed.

## Example
```
.target sm_90a
wgmma.mma_async.sync.aligned.m64n64k32.f32.bf16.bf16 {...32 registers}, %rd1, %rd2, %p1, 1, 1, 0, 0;
```
→ `wgmma.mma_async with .bf16 inputs has K = 16, not .m64n64k32`

## Use instead
```
wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {...32 registers}, %rd1, %rd2, %p1, 1, 1, 0, 0;
```

## Options
None.

## Known limitations
Operand counts are checked for `tcgen05.mma.block_scale`, block-scaled `mma` fragments, `wgmma`
accumulators and TMA copies only; the other operand-count and register-type errors are left to
ptxas. The target tables are ptxas 13.5's (PTX ISA 9.5); a form another atom rule already
rejects can be reported by both rules. `scripts/ptx_oracle.py` (29,531 forms) and
`scripts/ptx_mutants.py` (one-token edits of the corpus) measure the agreement with ptxas
(`docs/atoms.md`).

## References
- `docs/atoms.md` (ptxas 13.5's verdicts on every generated form)
- PTX ISA, `ldmatrix`: https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-ldmatrix
- PTX ISA, block-scaled `mma`: https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-mma
- PTX ISA, `cp.async.bulk.tensor`: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk-tensor
- PTX ISA, `tcgen05.mma`: https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-mma-instructions
- PTX ISA, `wgmma.mma_async`: https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-instructions-wgmma-mma-async
"#;

fn blackwell_af(t: PtxTarget) -> bool {
    matches!(t.sm, 100 | 101 | 103 | 107 | 110) && t.suffix.is_some()
}

fn new_shapes_ok(t: PtxTarget) -> bool {
    t.suffix.is_some() && matches!(t.sm, 100 | 101 | 103 | 107 | 110 | 120 | 121)
}

/// The forms of `wgmma.mma_async` per input type (PTX ISA 9.0, "Matrix shape" and
/// "Register fragments" of the warpgroup MMA; ptxas 13.5 agrees on every form the
/// oracle generates): accumulator types, dense K, N set.
struct WgmmaRow {
    inputs: &'static str,
    accumulators: &'static [&'static str],
    k: u32,
    /// N is 8 to 256 in steps of 8 (`false`: 8, 16, 24, then steps of 16 to 256).
    every_8: bool,
}

fn wgmma_row(a: &str, b: &str) -> Option<WgmmaRow> {
    let fp8 = |t: &str| matches!(t, "e4m3" | "e5m2");
    let int8 = |t: &str| matches!(t, "s8" | "u8");
    Some(match (a, b) {
        ("f16", "f16") => WgmmaRow { inputs: ".f16", accumulators: &["f16", "f32"], k: 16, every_8: true },
        ("bf16", "bf16") => WgmmaRow { inputs: ".bf16", accumulators: &["f32"], k: 16, every_8: true },
        ("tf32", "tf32") => WgmmaRow { inputs: ".tf32", accumulators: &["f32"], k: 8, every_8: true },
        _ if fp8(a) && fp8(b) => {
            WgmmaRow { inputs: ".e4m3/.e5m2", accumulators: &["f16", "f32"], k: 32, every_8: true }
        }
        _ if int8(a) && int8(b) => WgmmaRow { inputs: ".s8/.u8", accumulators: &["s32"], k: 32, every_8: false },
        ("b1", "b1") => WgmmaRow { inputs: ".b1", accumulators: &["s32"], k: 256, every_8: false },
        _ => return None,
    })
}

/// What is wrong with a `wgmma.mma_async` on every target.
pub fn wgmma_problems(w: &Wgmma) -> Vec<String> {
    let mut out = Vec::new();
    let sp = if w.sparse { ".sp" } else { "" };
    let shape = format!(".m{}n{}k{}", w.m, w.n, w.k);
    let types: Vec<&str> = w.types.split('.').filter(|t| !t.is_empty()).collect();
    let [d, a, b] = types.as_slice() else {
        out.push(format!("wgmma.mma_async needs three types (D, A, B), found `.{}`", w.types));
        return out;
    };
    if w.m == 0 {
        out.push("wgmma.mma_async needs a .mMnNkK shape".into());
        return out;
    }
    let Some(row) = wgmma_row(a, b) else {
        out.push(format!(
            "wgmma.mma_async has no .{a} × .{b} input pair (A and B are both .f16, both .bf16, both .tf32, \
             .e4m3/.e5m2, .s8/.u8 or both .b1)"
        ));
        return out;
    };
    if !row.accumulators.contains(d) {
        let acc: Vec<String> = row.accumulators.iter().map(|x| format!(".{x}")).collect();
        out.push(format!("wgmma.mma_async with {} inputs accumulates in {}, not .{d}", row.inputs, acc.join(" or ")));
    }
    if w.m != 64 {
        out.push(format!("wgmma.mma_async has only M = 64, not {shape}"));
    }
    if w.sparse && *a == "b1" {
        out.push("wgmma.mma_async.sp has no .b1 form".into());
    } else {
        let k = if w.sparse { 2 * row.k } else { row.k };
        if w.k != k {
            out.push(format!("wgmma.mma_async{sp} with {} inputs has K = {k}, not {shape}", row.inputs));
        }
    }
    let n_ok = if row.every_8 {
        w.n.is_multiple_of(8) && (8..=256).contains(&w.n)
    } else {
        matches!(w.n, 8 | 16 | 24) || (w.n.is_multiple_of(16) && (32..=256).contains(&w.n))
    };
    if !n_ok {
        let set = if row.every_8 { "8 to 256 in steps of 8" } else { "8, 16, 24, then 32 to 256 in steps of 16" };
        out.push(format!("wgmma.mma_async with {} inputs has no N = {} (N is {set})", row.inputs, w.n));
    }
    if w.satfinite && row.accumulators != ["s32"] {
        out.push(format!(".satfinite is only for .s8/.u8 inputs, not {}", row.inputs));
    }
    if w.satfinite && *a == "b1" {
        out.push(".satfinite is only for .s8/.u8 inputs, not .b1".into());
    }
    match (*a == "b1", w.bit_op.as_str()) {
        (true, "and.popc") | (false, "") => {}
        (true, op) => out.push(format!("wgmma.mma_async with .b1 inputs needs .and.popc, found `{op}`")),
        (false, op) => out.push(format!("`.{op}` is only for .b1 inputs, not {}", row.inputs)),
    }
    if n_ok && row.accumulators.contains(d) {
        let want = if *d == "f16" { w.n / 4 } else { w.n / 2 };
        if w.d_registers != want {
            out.push(format!(
                "the .{d} accumulator of wgmma.mma_async{sp}.m64n{} is {want} registers, the vector has {}",
                w.n, w.d_registers
            ));
        }
    }
    if let Some(r) = w.a_registers.filter(|&r| r != 4) {
        out.push(format!("A in registers is 4 registers for wgmma.mma_async, the vector has {r}"));
    }
    out
}

/// Scale-vector spellings of a block-scaled `mma`: ptxas 13.5 rejects `.block16`
/// and `.block32` there on every target; the suggested spelling is the
/// `.scale_vec::NX` with the same elements per scale factor for the kind.
fn block_n_problem(kind: Option<MmaKind>, sv: ScaleVec) -> Option<String> {
    let (name, same) = match (sv, kind) {
        (ScaleVec::Block32, Some(MmaKind::Mxf8f6f4)) => ("block32", Some("scale_vec::1X")),
        (ScaleVec::Block32, Some(MmaKind::Mxf4 | MmaKind::Mxf4nvf4)) => ("block32", Some("scale_vec::2X")),
        (ScaleVec::Block16, Some(MmaKind::Mxf4nvf4)) => ("block16", Some("scale_vec::4X")),
        (ScaleVec::Block32, _) => ("block32", None),
        (ScaleVec::Block16, _) => ("block16", None),
        _ => return None,
    };
    Some(match same {
        Some(x) => format!("mma with block scale takes .scale_vec::NX, not .{name} (ptxas rejects .{name} here on every target): write .{x}"),
        None => format!(
            "mma with block scale takes .scale_vec::NX, not .{name}, and its kind has no {}-element scale blocks",
            &name[5..]
        ),
    })
}

/// Form and target problems of one fact: `(everywhere, target)`. A target
/// problem is reported only when the form is valid on some target, so that a
/// form no target accepts is never told to move to another target.
fn problems(p: &crate::ir::PtxMatrixOp, tname: &str) -> (Vec<String>, Vec<String>) {
    let target = p.target;
    let mut form: Vec<String> = Vec::new();
    let mut gate: Vec<String> = Vec::new();
    match &p.op {
        PtxOp::Tcgen05Mma(t) => {
            if target.is_some_and(|tg| !blackwell_af(tg)) {
                form.push(format!(
                    "tcgen05.mma is not available on {tname}: it needs sm_100, sm_103, sm_107 or sm_110 with an `a` or `f` suffix"
                ));
            } else if t.kind == Some(MmaKind::I8) && target.is_some_and(|tg| !matches!(tg.sm, 100 | 101 | 110)) {
                // A target problem: reported only when the ladder (run as on sm_100a,
                // see `ladder_target`) and the form checks below find nothing.
                let sm100a = crate::atoms::Target::new(100, crate::atoms::Suffix::A);
                let seed_ok =
                    super::atom_ptx::tcgen05_input(t, sm100a).is_none_or(|i| crate::atoms::verify_tcgen05(&i).is_ok());
                if seed_ok {
                    gate.push(format!(
                        ".kind::i8 is not available on {tname}: only sm_100a and sm_110a (sm_101a) have it"
                    ));
                }
            }
            if t.cta_group == 0 {
                form.push("tcgen05.mma needs .cta_group::1 or .cta_group::2".into());
            }
            if t.kind_text.is_none() {
                form.push("tcgen05.mma needs a .kind::K".into());
            }
            if t.ws_misplaced {
                form.push(
                    "`.ws` must directly follow tcgen05.mma (`tcgen05.mma.ws…`); elsewhere it is no modifier".into(),
                );
            }
            if t.scale_vec != ScaleVec::None && !t.block_scale {
                form.push("a scale vector size needs .block_scale".into());
            }
            // With .ws the seed's rule 9 already rejects the block-scaled kinds.
            if matches!(t.kind, Some(MmaKind::Mxf8f6f4 | MmaKind::Mxf4 | MmaKind::Mxf4nvf4)) && !t.block_scale && !t.ws
            {
                form.push(format!(".kind::{} needs .block_scale", t.kind_text.as_deref().unwrap_or("?")));
            }
            if t.block_scale && !t.ws && !(t.addresses_after_idesc == 2 && t.operands_after_idesc == 3) {
                form.push(format!(
                    "tcgen05.mma.block_scale takes [scale-A], [scale-B] and enable-input-d after idesc: found {} operands there, {} of them [addresses]",
                    t.operands_after_idesc, t.addresses_after_idesc
                ));
            } else if !t.block_scale && t.addresses_after_idesc > 0 {
                form.push(format!(
                    "{} [address] operands after idesc are scale operands, which need .block_scale",
                    t.addresses_after_idesc
                ));
            }
            if let Some(n) = t.disable_output_lane.filter(|&n| matches!(t.cta_group, 1 | 2) && n != 4 * t.cta_group) {
                form.push(format!(
                    "disable-output-lane of .cta_group::{} is {} registers, the vector has {n}",
                    t.cta_group,
                    4 * t.cta_group
                ));
            }
            if t.ws && t.collector.as_deref().is_some_and(|c| c.starts_with("a::")) {
                form.push(".ws takes .collector::bN buffers, not .collector::a".into());
            }
            if matches!(t.scale_vec, ScaleVec::Block16 | ScaleVec::Block32)
                && target.is_some_and(|tg| tg.version < (8, 8))
            {
                gate.push(".block16 and .block32 need PTX ISA 8.8".into());
            }
        }
        PtxOp::LdStMatrix(l) => {
            let name = if l.store { "stmatrix" } else { "ldmatrix" };
            if l.num == 0 {
                form.push(format!("{name} needs .x1, .x2 or .x4"));
            }
            let shapes: &[(u32, u32)] = if l.store { &[(8, 8), (16, 8)] } else { &[(8, 8), (8, 16), (16, 16)] };
            if !shapes.contains(&(l.m, l.n)) {
                form.push(format!("{name} has no .m{}n{} shape", l.m, l.n));
            }
            if !matches!(l.format.as_str(), "b16" | "b8" | "b8x16.b4x16_p64" | "b8x16.b6x16_p32" | "s8.s4") {
                form.push(format!("{name} has no .{} element format", l.format));
            }
            // The seed verifier (atom-ldsm-mode / atom-stsm-mode) reports its own
            // failures; a form it rejects is invalid on every target.
            let seed_ok = !matches!(super::atom_ptx::ldst_verdict(l), Some(Err(_)));
            let new_form = (l.m, l.n) != (8, 8) || l.format != "b16";
            if seed_ok && new_form && target.is_some_and(|tg| !new_shapes_ok(tg)) {
                gate.push(format!(
                    "{name}.m{}n{}.{} needs a Blackwell `a` or `f` target, not {tname}",
                    l.m, l.n, l.format
                ));
            }
        }
        PtxOp::BlockScaledMma(b) if b.block_scale => {
            let dense_k = if b.sparse { b.k / 2 } else { b.k };
            let kind = b.kind;
            let kname = p.word.split('.').find_map(|m| m.strip_prefix("kind::")).unwrap_or("?");
            if b.sparse_modifier.as_deref() == Some("sp") {
                form.push("block-scaled mma is sparse with .sp::ordered_metadata, not .sp".into());
            }
            if (b.m, b.n) != (16, 8) {
                form.push(format!("block-scaled mma is M = 16, N = 8, not .m{}n{}k{}", b.m, b.n, b.k));
            }
            let want = [4, 4, if b.sparse { 4 } else { 2 }, 4];
            for ((name, &got), w) in ["D", "A", "B", "C"].iter().zip(&b.fragments).zip(want) {
                if got != w {
                    form.push(format!(
                        "operand {name} of block-scaled mma.m16n8k{} is {w} registers, the vector has {got}",
                        b.k
                    ));
                }
            }
            match (kind, dense_k) {
                (Some(MmaKind::Mxf8f6f4), 32) | (Some(MmaKind::Mxf4 | MmaKind::Mxf4nvf4), 64) => {}
                _ => form.push(format!(".kind::{kname} has no .m{}n{}k{} shape", b.m, b.n, b.k)),
            }
            if b.layouts != "row.col" {
                form.push(format!("block-scaled mma takes .row.col, not .{}", b.layouts));
            }
            let types: Vec<&str> = b.types.split('.').collect();
            let fp = |t: &str| matches!(t, "e4m3" | "e5m2" | "e3m2" | "e2m3" | "e2m1");
            let types_ok = matches!(types.as_slice(), ["f32", x, y, "f32", "ue8m0" | "ue4m3"] if fp(x) && fp(y));
            if !types_ok {
                form.push(format!(
                    "block-scaled mma types are .f32, A, B, .f32, scale (A and B FP4/FP6/FP8, scale .ue8m0 or .ue4m3), not .{}",
                    b.types
                ));
            }
            if let Some(msg) = block_n_problem(kind, b.scale_vec) {
                form.push(msg);
            }
            if kind == Some(MmaKind::Mxf4nvf4) && b.scale_vec == ScaleVec::None {
                form.push(".kind::mxf4nvf4 needs an explicit .scale_vec::2X or .scale_vec::4X".into());
            }
            if kind == Some(MmaKind::Mxf4) && b.scale_vec == ScaleVec::X4 {
                form.push(".kind::mxf4 takes .scale_vec::2X, not .scale_vec::4X".into());
            }
            if b.scale_type == "ue4m3" && !(kind == Some(MmaKind::Mxf4nvf4) && b.scale_vec == ScaleVec::X4) {
                form.push("ue4m3 scales need .kind::mxf4nvf4 with .scale_vec::4X".into());
            }
            let seed_ok = super::atom_ptx::sm120_input(b).is_none_or(|i| crate::atoms::verify_sm120(&i).is_ok());
            if b.scale_type == "ue8m0" && b.scale_vec == ScaleVec::X4 && target.is_some_and(|tg| tg.version < (9, 1)) {
                gate.push(".scale_vec::4X with ue8m0 scales needs PTX ISA 9.1".into());
            }
            let sparse_fp4 = b.sparse && matches!(kind, Some(MmaKind::Mxf4 | MmaKind::Mxf4nvf4));
            if seed_ok {
                if target.is_some_and(|tg| !(matches!(tg.sm, 120 | 121) && tg.suffix.is_some())) {
                    gate.push(format!(
                        "block-scaled mma needs an sm_120a, sm_121a, sm_120f or sm_121f target, not {tname}"
                    ));
                } else if sparse_fp4 && target.is_some_and(|tg| tg.suffix != Some('a')) {
                    gate.push(format!(
                        "sparse block-scaled mma with .kind::{kname} needs sm_120a or sm_121a, not {tname}"
                    ));
                }
            }
        }
        PtxOp::BlockScaledMma(b) => {
            if matches!(b.kind, Some(MmaKind::Mxf8f6f4 | MmaKind::Mxf4 | MmaKind::Mxf4nvf4)) {
                let kname = p.word.split('.').find_map(|m| m.strip_prefix("kind::")).unwrap_or("?");
                form.push(format!(".kind::{kname} needs .block_scale"));
            } else if b.scale_vec != ScaleVec::None {
                form.push("a scale vector size needs .block_scale".into());
            }
        }
        PtxOp::Wgmma(w) => {
            form = wgmma_problems(w);
            if target.is_some_and(|tg| !(tg.sm == 90 && tg.suffix == Some('a'))) {
                gate.push(format!("wgmma.mma_async needs sm_90a, not {tname}"));
            }
        }
        PtxOp::TensorCopy(c) if c.family.contains("prefetch") => {
            let seed_ok = crate::atoms::verify_tma(
                super::atom_ptx::tma_mode(c),
                c.rank,
                crate::atoms::Target::new(100, crate::atoms::Suffix::A),
            )
            .is_ok();
            let valid = seed_ok && super::atom_ptx::tma_operand_problems(c).is_empty();
            if valid && c.mode == TmaMode::Im2colW && target.is_some_and(|tg| tg.sm >= 100 && !blackwell_af(tg)) {
                gate.push(format!(
                    "cp.async.bulk.prefetch.tensor .im2col::w needs an sm_100-family `a` or `f` target, not {tname}"
                ));
            }
        }
        PtxOp::TensorCopy(c) => {
            let load_only =
                matches!(c.mode, TmaMode::Gather4 | TmaMode::Im2col | TmaMode::Im2colW | TmaMode::Im2colW128);
            let store_only = matches!(c.mode, TmaMode::Scatter4 | TmaMode::Im2colNoOffs | TmaMode::Im2colNoOffsW);
            let mode = super::atom_ptx::tma_mode_name(c.mode);
            if (load_only && !c.load) || (store_only && c.load) {
                let dir = if c.load { "global to shared" } else { "shared to global" };
                form.push(format!(".{mode} mode cannot copy {dir}"));
            }
            let pair_ok = if c.load { c.src == "global" } else { c.src == "shared::cta" };
            if !pair_ok {
                form.push(format!(
                    "{} copies between .{} and .{}, not from .{} to .{}",
                    c.family, "global", "shared", c.src, c.dst
                ));
            }
            let want = if c.load { "mbarrier::complete_tx::bytes" } else { "bulk_group" };
            let dir = if c.load { "a copy into shared memory" } else { "a copy into global memory" };
            if c.completion.is_empty() {
                form.push(format!("{dir} needs its completion mechanism .{want}"));
            } else if c.completion != want {
                form.push(format!("{dir} completes through .{want}, not .{}", c.completion));
            }
            if c.family.starts_with("cp.reduce") && c.reduction.is_none() {
                form.push(
                    "cp.reduce.async.bulk.tensor needs its reduction (.add, .min, .max, .inc, .dec, .and, .or, .xor)"
                        .into(),
                );
            }
            if c.multicast && c.dst != "shared::cluster" {
                form.push(format!(".multicast::cluster copies into .shared::cluster, not .{}", c.dst));
            }
            // [dst], [tensorMap, coords], [mbar] {, im2colInfo} {, ctaMask} {, policy} for a
            // load; [tensorMap, coords], [src] {, policy} for a store.
            let expected = if c.load {
                3 + u32::from(c.im2col_offsets.is_some()) + u32::from(c.multicast) + u32::from(c.cache_hint)
            } else {
                2 + u32::from(c.cache_hint)
            };
            if c.operand_count != expected {
                let parts = if c.load {
                    format!(
                        "[dst], [tensorMap, coords], [mbar]{}{}{}",
                        if c.im2col_offsets.is_some() { ", {im2colInfo}" } else { "" },
                        if c.multicast { ", ctaMask" } else { "" },
                        if c.cache_hint { ", policy" } else { "" }
                    )
                } else {
                    format!("[tensorMap, coords], [src]{}", if c.cache_hint { ", policy" } else { "" })
                };
                form.push(format!(
                    "{} with these modifiers takes {expected} operands ({parts}), found {}",
                    c.family, c.operand_count
                ));
            }
            // The seed's rank gate under a target that has every mode: a form problem.
            let seed_form_ok = crate::atoms::verify_tma(
                super::atom_ptx::tma_mode(c),
                c.rank,
                crate::atoms::Target::new(100, crate::atoms::Suffix::A),
            )
            .is_ok();
            let valid = seed_form_ok && super::atom_ptx::tma_operand_problems(c).is_empty();
            let cluster_dst = c.dst == "shared::cluster";
            if valid
                && cluster_dst
                && matches!(c.mode, TmaMode::Gather4 | TmaMode::Im2colW)
                && target.is_some_and(|tg| tg.sm >= 100 && !blackwell_af(tg))
            {
                gate.push(format!(
                    ".{mode} into shared::cluster needs an sm_100-family `a` or `f` target, not {tname}"
                ));
            }
            if valid && c.cta_group == Some(2) && target.is_some_and(|tg| tg.sm >= 90 && !blackwell_af(tg)) {
                gate.push(format!(".cta_group::2 tensor copies need an sm_100-family `a` or `f` target, not {tname}"));
            }
        }
        _ => {}
    }
    (form, gate)
}

/// True when the fact has a problem on every target (so a target gate of the
/// seed verifiers must not speak for it either).
pub fn invalid_everywhere(p: &crate::ir::PtxMatrixOp) -> bool {
    let (form, _) = problems(p, "");
    match &p.op {
        // "not available on this target" is a target statement, not a form problem.
        PtxOp::Tcgen05Mma(_) => form.iter().any(|m| !m.starts_with("tcgen05.mma is not available")),
        _ => !form.is_empty(),
    }
}

/// Runs the rule.
pub fn check(cx: &mut RuleContext<'_>) {
    let m = cx.m;
    let mut groups: FxHashMap<crate::ir::FuncH, (u32, bool)> = FxHashMap::default();
    // The target's name, formatted once per target (a module has one).
    let mut tname: Option<(Option<crate::ir::PtxTarget>, String)> = None;
    for (f, inst, p) in ptx_facts(m) {
        let tname = match &tname {
            Some((t, name)) if *t == p.target => name,
            _ => {
                let name = p.target.map_or_else(|| "this target".to_string(), |t| t.name());
                &tname.insert((p.target, name)).1
            }
        };
        let (mut problems, gate) = problems(p, tname);
        if problems.is_empty() {
            problems = gate;
        }
        if let PtxOp::Tcgen05Mma(t) = &p.op {
            let e = groups.entry(f).or_insert((t.cta_group, false));
            if e.0 != t.cta_group && t.cta_group != 0 && e.0 != 0 && !e.1 {
                e.1 = true;
                problems.push(format!(
                    "this kernel uses both .cta_group::{} and .cta_group::{} in tcgen05 instructions",
                    e.0, t.cta_group
                ));
            }
        }
        let line = ptx_line(cx, f, inst);
        for message in problems {
            cx.emit(Finding {
                rule: META.id,
                certainty: Certainty::Proven,
                force_error: false,
                message,
                help: None,
                values: vec![
                    ("ptx-line", FindingValue::Int(line)),
                    ("instruction", FindingValue::Text(p.word.to_string())),
                    ("target", FindingValue::Text(tname.clone())),
                ],
                at: At::Inst(f, inst),
            });
        }
    }
}

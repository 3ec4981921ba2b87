//! `atom-ptx-form`: PTX matrix-instruction forms ptxas rejects that the seed-002
//! verifiers do not model (`reference/ptx-atoms.md` D11, D15, D19), in irlint's own words.

use super::atom_ptx::{ptx_facts, ptx_line};
use super::{At, Finding, RuleContext, RuleMeta};
use crate::ir::{MmaKind, PtxOp, PtxTarget, ScaleVec, TmaMode};
use crate::report::{Certainty, FindingValue, Level};
use rustc_hash::FxHashMap;

/// Rule metadata.
pub const META: RuleMeta = RuleMeta {
    id: "atom-ptx-form",
    default_level: Some(Level::Error),
    summary: "a PTX matrix instruction in a form ptxas rejects that the seed-002 verifiers do not model",
    doc: DOC,
    options: &[],
};

const DOC: &str = r#"
## What it does
Flags `tcgen05.mma`, `ldmatrix`/`stmatrix` and `cp.async.bulk.tensor` forms that ptxas 13.5
rejects for reasons outside the seed-002 verifiers (`reference/ptx-atoms.md` D11, D15, D19):

- `tcgen05.mma` on a target without it (anything but sm_100, sm_101/110, sm_103, sm_107 with an
  `a` or `f` suffix);
- a scale vector size (`.scale_vec::NX`, `.block16`, `.block32`) without `.block_scale`;
- a block-scaled kind (`mxf8f6f4`, `mxf4`, `mxf4nvf4`) without `.block_scale`;
- `.collector::a::*` on `.ws` (which takes `.collector::bN::*` buffers);
- `.block16`/`.block32` below PTX 8.8;
- one kernel using both `.cta_group::1` and `.cta_group::2`;
- `ldmatrix`/`stmatrix` without `.x1`/`.x2`/`.x4`, with a shape or element format the
  instruction does not have (`stmatrix.m16n16`, `ldmatrix.m16n8`; D14), and the 8x16, 16x16 and
  16x8 shapes or 8-bit formats on targets other than Blackwell `a`/`f` targets (D15);
- block-scaled `mma.sync`/`mma.sp` off sm_120a/121a/120f/121f, with a kind that does not match
  the shape (mxf8f6f4 is K = 32, mxf4 and mxf4nvf4 K = 64, twice that for `mma.sp`), mxf4nvf4
  without an explicit scale vector, mxf4 with 4X, ue4m3 scales other than mxf4nvf4 with 4X, and
  4X with ue8m0 below PTX 9.1 (§2.5's non-contract proposal);
- `cp.async.bulk.tensor` modes in the wrong direction (gather4 and im2col are loads, scatter4 and
  im2col_no_offs stores; D19), gather4 and im2col::w into `shared::cluster` and `.cta_group::2`
  off the sm_100 family `a`/`f` targets (D18).

## Why is this bad
ptxas refuses the module, so the kernel never runs; the messages name the modifier and the
target so that the generator that produced the form can be fixed.

## Example
```
.target sm_100a
tcgen05.mma.cta_group::1.kind::f16.scale_vec::2X [%r1], %rd2, %rd3, %r2, %p1;
```

## Use instead
```
tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2, %rd3, %r2, %p1;
```

## Options
None.

## Known limitations
Operand-count errors are left to ptxas. The target tables are ptxas 13.5's (PTX ISA 9.5); a
form the seed verifiers already reject can be reported by both rules. `scripts/ptx_oracle.py`
measures the agreement with ptxas (`docs/atoms.md`).

## References
- `reference/ptx-atoms.md` §1.2–§1.5 and §2.2 (D11, D15, D19)
- PTX ISA, `tcgen05.mma`: https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-mma-instructions
"#;

fn blackwell_af(t: PtxTarget) -> bool {
    matches!(t.sm, 100 | 101 | 103 | 107 | 110) && t.suffix.is_some()
}

fn new_shapes_ok(t: PtxTarget) -> bool {
    t.suffix.is_some() && matches!(t.sm, 100 | 101 | 103 | 107 | 110 | 120 | 121)
}

/// Runs the rule.
pub fn check(cx: &mut RuleContext<'_>) {
    let m = cx.m;
    let mut groups: FxHashMap<crate::ir::FuncH, (u32, bool)> = FxHashMap::default();
    for (f, inst, p) in ptx_facts(m) {
        let target = p.target;
        let tname = target.map_or_else(|| "this target".to_string(), |t| t.name());
        let mut problems: Vec<String> = Vec::new();
        match &p.op {
            PtxOp::Tcgen05Mma(t) => {
                if target.is_some_and(|tg| !blackwell_af(tg)) {
                    problems.push(format!(
                        "tcgen05.mma is not available on {tname}: it needs sm_100, sm_103, sm_107 or sm_110 with an `a` or `f` suffix"
                    ));
                }
                if t.scale_vec != ScaleVec::None && !t.block_scale {
                    problems.push("a scale vector size needs .block_scale".into());
                }
                // With .ws the seed's rule 9 already rejects the block-scaled kinds.
                if matches!(t.kind, Some(MmaKind::Mxf8f6f4 | MmaKind::Mxf4 | MmaKind::Mxf4nvf4))
                    && !t.block_scale
                    && !t.ws
                {
                    problems.push(format!(".kind::{} needs .block_scale", t.kind_text.as_deref().unwrap_or("?")));
                }
                if t.ws && t.collector.as_deref().is_some_and(|c| c.starts_with("a::")) {
                    problems.push(".ws takes .collector::bN buffers, not .collector::a".into());
                }
                if matches!(t.scale_vec, ScaleVec::Block16 | ScaleVec::Block32)
                    && target.is_some_and(|tg| tg.version < (8, 8))
                {
                    problems.push(".block16 and .block32 need PTX ISA 8.8".into());
                }
                let e = groups.entry(f).or_insert((t.cta_group, false));
                if e.0 != t.cta_group && t.cta_group != 0 && e.0 != 0 && !e.1 {
                    e.1 = true;
                    problems.push(format!(
                        "this kernel uses both .cta_group::{} and .cta_group::{} in tcgen05 instructions",
                        e.0, t.cta_group
                    ));
                }
            }
            PtxOp::LdStMatrix(l) => {
                let name = if l.store { "stmatrix" } else { "ldmatrix" };
                if l.num == 0 {
                    problems.push(format!("{name} needs .x1, .x2 or .x4"));
                }
                let shapes: &[(u32, u32)] = if l.store { &[(8, 8), (16, 8)] } else { &[(8, 8), (8, 16), (16, 16)] };
                if !shapes.contains(&(l.m, l.n)) {
                    problems.push(format!("{name} has no .m{}n{} shape", l.m, l.n));
                }
                if !matches!(l.format.as_str(), "b16" | "b8" | "b8x16.b4x16_p64" | "b8x16.b6x16_p32" | "s8.s4") {
                    problems.push(format!("{name} has no .{} element format", l.format));
                }
                let new_form = (l.m, l.n) != (8, 8) || l.format != "b16";
                if new_form && target.is_some_and(|tg| !new_shapes_ok(tg)) {
                    problems.push(format!(
                        "{name}.m{}n{}.{} needs a Blackwell `a` or `f` target, not {tname}",
                        l.m, l.n, l.format
                    ));
                }
            }
            PtxOp::BlockScaledMma(b) if b.block_scale => {
                if target.is_some_and(|tg| !(matches!(tg.sm, 120 | 121) && tg.suffix.is_some())) {
                    problems.push(format!(
                        "block-scaled mma needs an sm_120a, sm_121a, sm_120f or sm_121f target, not {tname}"
                    ));
                }
                let dense_k = if b.sparse { b.k / 2 } else { b.k };
                let kind = b.kind;
                let kname = p.word.split('.').find_map(|m| m.strip_prefix("kind::")).unwrap_or("?");
                match (kind, dense_k) {
                    (Some(MmaKind::Mxf8f6f4), 32) | (Some(MmaKind::Mxf4 | MmaKind::Mxf4nvf4), 64) => {}
                    _ => problems.push(format!(".kind::{kname} has no .m{}n{}k{} shape", b.m, b.n, b.k)),
                }
                if kind == Some(MmaKind::Mxf4nvf4) && b.scale_vec == ScaleVec::None {
                    problems.push(".kind::mxf4nvf4 needs an explicit .scale_vec::2X or .scale_vec::4X".into());
                }
                if kind == Some(MmaKind::Mxf4) && b.scale_vec == ScaleVec::X4 {
                    problems.push(".kind::mxf4 takes .scale_vec::2X, not .scale_vec::4X".into());
                }
                if b.scale_type == "ue4m3" && !(kind == Some(MmaKind::Mxf4nvf4) && b.scale_vec == ScaleVec::X4) {
                    problems.push("ue4m3 scales need .kind::mxf4nvf4 with .scale_vec::4X".into());
                }
                if b.scale_type == "ue8m0"
                    && b.scale_vec == ScaleVec::X4
                    && target.is_some_and(|tg| tg.version < (9, 1))
                {
                    problems.push(".scale_vec::4X with ue8m0 scales needs PTX ISA 9.1".into());
                }
            }
            PtxOp::TensorCopy(c) if !c.family.contains("prefetch") => {
                let load_only =
                    matches!(c.mode, TmaMode::Gather4 | TmaMode::Im2col | TmaMode::Im2colW | TmaMode::Im2colW128);
                let store_only = matches!(c.mode, TmaMode::Scatter4 | TmaMode::Im2colNoOffs | TmaMode::Im2colNoOffsW);
                let cluster_dst = c.dst == "shared::cluster";
                if cluster_dst
                    && matches!(c.mode, TmaMode::Gather4 | TmaMode::Im2colW)
                    && target.is_some_and(|tg| tg.sm >= 100 && !blackwell_af(tg))
                {
                    problems.push(format!(
                        "{:?} into shared::cluster needs an sm_100-family `a` or `f` target, not {tname}",
                        c.mode
                    ));
                }
                if c.cta_group == Some(2) && target.is_some_and(|tg| !blackwell_af(tg)) {
                    problems.push(format!(
                        ".cta_group::2 tensor copies need an sm_100-family `a` or `f` target, not {tname}"
                    ));
                }
                if (load_only && !c.load) || (store_only && c.load) {
                    let dir = if c.load { "global to shared" } else { "shared to global" };
                    problems.push(format!("{:?} mode cannot copy {dir}", c.mode).to_lowercase());
                }
            }
            _ => {}
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
                    ("instruction", FindingValue::Text(p.word.clone())),
                    ("target", FindingValue::Text(tname.clone())),
                ],
                at: At::Inst(f, inst),
            });
        }
    }
}

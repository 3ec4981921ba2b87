//! `ptx-tcgen05-instr-descriptor`: the 32-bit instruction descriptor (`idesc`)
//! of `tcgen05.mma*`: `.kind::f16`, `::tf32`, `::f8f6f4` and `::i8`
//! (`reference/ptx-atoms.md` §7.3; PTX ISA Table 42) and the block-scaled
//! kinds (CUTLASS `InstrDescriptorBlockScaled`).

use super::atom_ptx::{ptx_facts, ptx_line};
use super::ptx_desc::{all_invalid, values_json, values_text, IDESC_BITS};
use super::{At, Finding, RuleContext, RuleMeta};
use crate::ir::{MmaKind, PtxOp, Tcgen05Mma};
use crate::report::{Certainty, FindingValue, Level};

/// Rule metadata.
pub const META: RuleMeta = RuleMeta {
    id: "ptx-tcgen05-instr-descriptor",
    default_level: Some(Level::Error),
    summary: "a tcgen05.mma instruction descriptor whose formats, flags or shape do not fit the instruction",
    doc: DOC,
    options: &[],
};

const DOC: &str = r#"
## What it does

Decodes the 32-bit instruction descriptor (`idesc`) of `tcgen05.mma`, `tcgen05.mma.sp`
and `tcgen05.mma.ws` for `.kind::f16`, `.kind::tf32`, `.kind::f8f6f4` and `.kind::i8`
(PTX ISA Table 42, "Instruction descriptor format for .kind::tf32, .kind::f16,
.kind::f8f6f4 and .kind::i8"; CUTLASS `UMMA::InstrDescriptor`) from the known bits the
dataflow recovers, and checks it against the instruction:

| `values.field` | bits | valid |
|---|---|---|
| `d_format` | 4–5 | f16, f8f6f4: 0 F16, 1 F32; tf32: 1 F32; i8: 2 S32 (not in the block-scaled layout) |
| `a_format`, `b_format` | 7–9, 10–12 | f16: 0 F16, 1 BF16; tf32: 2 TF32; f8f6f4: 0 E4M3, 1 E5M2, 3 E2M3, 4 E3M2, 5 E2M1; i8: 0 U8, 1 S8 |
| `sparse` | 2 | 1 exactly when the instruction is `.sp` |
| `saturate` | 3 | 1 only for `.kind::i8` |
| `negate` | 13, 14 | 0 for `.kind::i8` |
| `max_shift` | 30–31 | 0 unless the instruction is `.ws` |
| `m` | 24–28 (M >> 4) | `.cta_group::1`: M 64 or 128; `.cta_group::2`: 128 or 256; `.ws`: 32, 64 or 128 |
| `n` | 17–22 (N >> 3) | N 8 to 256 |
| `scale_format` | 23 (block-scaled kinds) | mxf8f6f4, mxf4: 1 UE8M0; mxf4nvf4: 0 UE4M3 or 1 UE8M0 |

The block-scaled kinds (`mxf8f6f4`, `mxf4`, `mxf4nvf4`) use their own layout (CUTLASS
`InstrDescriptorBlockScaled`): bits 4–5 and 29–30 are scale-factor ids, bit 31 the K size,
bit 23 the scale format; there `a_format`/`b_format` are mxf8f6f4: 0 E4M3, 1 E5M2, 3 E2M3,
4 E3M2, 5 E2M1, mxf4 and mxf4nvf4: 1 E2M1, and `sparse`, `m` and `n` are checked as above;
`saturate`, `negate` and `max_shift` are not (those bits mean something else or are not
documented for these kinds).

A field is reported only when every value the dataflow admits for it is invalid. The M
values follow the PTX ISA "tcgen05 matrix shape" table for dense and sparse MMA; N is
checked only against its range (the step per M is not checked).

## Why is this bad

ptxas does not look into the instruction descriptor: it travels in a register. A format
that does not match `.kind`, or a sparse flag that disagrees with `.sp`, makes the tensor
core compute something else than the instruction says: wrong results, with no error.

## Example

```ptx
mov.b32 %r201, 136314896;                // 0x08200010: F32 += F16 x F16
tcgen05.mma.cta_group::1.kind::tf32 [%r467], %rd324, %rd325, %r201, %p6;
```

```text
error[ptx-tcgen05-instr-descriptor]: idesc of tcgen05.mma.kind::tf32 has a_format (bits 7-9) = 0, not valid for .kind::tf32 (valid: 2)
```

## Use instead

```ptx
mov.b32 %r201, 136317200;                // 0x08200910: F32 += TF32 x TF32
```

## Options

None.

## Known limitations

- `.kind::ti16` (PTX ISA 9.4) is not checked yet; nor are the scale-factor ids, the
  K-size bit, or which formats allow an MN-major operand.
- Only descriptors the dataflow recovers in the instruction's function are checked.

## References

- PTX ISA, tcgen05 instruction descriptor: <https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-instruction-descriptor>
- PTX ISA, tcgen05 matrix shapes: <https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-matrix-shape>
- CUTLASS `UMMA::InstrDescriptor`, `include/cute/arch/mma_sm100_desc.hpp`: <https://github.com/NVIDIA/cutlass/blob/main/include/cute/arch/mma_sm100_desc.hpp>
"#;

/// Valid D, A/B formats of a kind (`None`: a kind this rule does not decode).
fn formats(kind: MmaKind) -> Option<(&'static [u64], &'static [u64])> {
    Some(match kind {
        MmaKind::F16 => (&[0, 1], &[0, 1]),
        MmaKind::Tf32 => (&[1], &[2]),
        MmaKind::F8f6f4 => (&[0, 1], &[0, 1, 3, 4, 5]),
        MmaKind::I8 => (&[2], &[0, 1]),
        _ => return None,
    })
}

/// The block-scaled kinds (CUTLASS `InstrDescriptorBlockScaled`): no D
/// format; valid A/B formats (mxf8f6f4: E4M3 0, E5M2 1, E2M3 3, E3M2 4, E2M1 5;
/// mxf4, mxf4nvf4: E2M1 1).
fn block_scaled(kind: MmaKind) -> Option<(&'static [u64], &'static [u64])> {
    Some(match kind {
        MmaKind::Mxf8f6f4 => (&[], &[0, 1, 3, 4, 5]),
        MmaKind::Mxf4 | MmaKind::Mxf4nvf4 => (&[], &[1]),
        _ => return None,
    })
}

/// Valid `M >> 4` values.
fn m_values(t: &Tcgen05Mma) -> &'static [u64] {
    if t.ws {
        &[2, 4, 8]
    } else if t.cta_group == 2 {
        &[8, 16]
    } else {
        &[4, 8]
    }
}

fn list(v: &[u64]) -> String {
    values_text(v)
}

/// Runs the rule.
pub fn check(cx: &mut RuleContext<'_>) {
    let m = cx.m;
    for (f, inst, p) in ptx_facts(m) {
        let PtxOp::Tcgen05Mma(t) = &p.op else { continue };
        let (Some(kind), Some(op)) = (t.kind, t.idesc) else { continue };
        let scaled = block_scaled(kind);
        let Some((d_ok, ab_ok)) = formats(kind).or(scaled) else { continue };
        let scaled = scaled.is_some();
        let kname = t.kind_text.clone().unwrap_or_default();
        let v = cx.value(f, op);
        let bits = IDESC_BITS;
        let mut found: Vec<(&'static str, String, Vec<u64>)> = Vec::new();
        let mut field = |name: &'static str, lo: u32, len: u32, invalid: &dyn Fn(u64) -> bool, why: String| {
            if let Some(vals) = all_invalid(&v, lo, len, bits, invalid) {
                let at = if len == 1 { format!("bit {lo}") } else { format!("bits {lo}-{}", lo + len - 1) };
                found.push((name, format!("{name} ({at}) = {}, {why}", list(&vals)), vals));
            }
        };
        let valid = |ok: &'static [u64]| move |x: u64| !ok.contains(&x);
        if scaled {
            // InstrDescriptorBlockScaled: bits 4-5 are the B scale-factor id,
            // bit 23 the scale format, 29-31 the A scale-factor id and K size.
            let sf_ok: &'static [u64] = if kind == MmaKind::Mxf4nvf4 { &[0, 1] } else { &[1] };
            field(
                "scale_format",
                23,
                1,
                &valid(sf_ok),
                format!("not valid for .kind::{kname} (valid: {}; 0 UE4M3, 1 UE8M0)", list(sf_ok)),
            );
        } else {
            field("d_format", 4, 2, &valid(d_ok), format!("not valid for .kind::{kname} (valid: {})", list(d_ok)));
        }
        field("a_format", 7, 3, &valid(ab_ok), format!("not valid for .kind::{kname} (valid: {})", list(ab_ok)));
        field("b_format", 10, 3, &valid(ab_ok), format!("not valid for .kind::{kname} (valid: {})", list(ab_ok)));
        let sp = u64::from(t.sparse);
        let sp_why = if t.sparse { "but the instruction is .sp" } else { "but the instruction is not .sp" };
        field("sparse", 2, 1, &|x| x != sp, sp_why.into());
        if scaled {
        } else if kind != MmaKind::I8 {
            field("saturate", 3, 1, &|x| x != 0, "saturate is only for .kind::i8".into());
        } else {
            field("negate", 13, 1, &|x| x != 0, "negate A is not valid for .kind::i8".into());
            field("negate", 14, 1, &|x| x != 0, "negate B is not valid for .kind::i8".into());
        }
        if !t.ws && !scaled {
            field("max_shift", 30, 2, &|x| x != 0, "max shift needs tcgen05.mma.ws".into());
        }
        let ms = m_values(t);
        let group = if t.ws { ".ws".to_string() } else { format!(".cta_group::{}", t.cta_group.max(1)) };
        let ms_text: Vec<u64> = ms.iter().map(|x| x * 16).collect();
        field("m", 24, 5, &valid(ms), format!("M >> 4; M must be {} with {group}", list(&ms_text)));
        field("n", 17, 6, &|x| !(1..=32).contains(&x), "N >> 3; N must be 8 to 256".into());
        let line = ptx_line(cx, f, inst);
        for (name, what, vals) in found {
            cx.emit(Finding {
                rule: META.id,
                certainty: Certainty::Proven,
                force_error: false,
                message: format!("idesc of tcgen05.mma.kind::{kname} has {what}"),
                help: Some(
                    "build the instruction descriptor as CUTLASS UMMA::InstrDescriptor does for this kind".into(),
                ),
                values: vec![
                    ("field", FindingValue::Text(name.into())),
                    ("value", values_json(&vals)),
                    ("ptx-line", FindingValue::Int(line)),
                    ("instruction", FindingValue::Text(p.word.clone())),
                ],
                at: At::Inst(f, inst),
            });
        }
    }
}

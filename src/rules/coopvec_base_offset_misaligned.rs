//! `coopvec-base-offset-misaligned` (HLSL proposal 0029, cooperative vectors).

use super::{finding_value, judge, matrix_facts, or_list, At, Finding, RuleContext, RuleMeta};
use crate::analysis::AbsValue;
use crate::ir::{MatrixEncoding, MatrixMemOp, MatrixOpKind, Operand};
use crate::report::{FindingValue, Level};

/// Rule metadata.
pub const META: RuleMeta = RuleMeta {
    id: "coopvec-base-offset-misaligned",
    default_level: Some(Level::Error),
    summary: "cooperative-vector matrix, bias or vector offset that is not aligned as the specification requires",
    doc: DOC,
    options: &[],
};

const DOC: &str = r#"
## What it does

Checks the byte offsets of cooperative-vector and linear-algebra memory operations against
the alignment their specification requires (the buffer base itself is assumed aligned):

| Encoding | Operand | Alignment |
|---|---|---|
| DXIL preview `matVecMul` / `matVecMulAdd` / `outerProductAccumulate` | matrix offset | 128 |
| DXIL preview `matVecMulAdd` | bias offset | 64 |
| DXIL preview `vectorAccumulate` | offset | 64 |
| DXIL SM 6.10 `linAlgMatrix{Load,Store,Accumulate}…Descriptor` | offset | the op's `align` (128 by default) |
| DXIL SM 6.10 `linAlgVectorAccumulateToDescriptor` | offset | the op's `align` (64 by default) |
| SPIR-V `OpCooperativeVectorMatrixMul[Add]NV`, `…OuterProductAccumulateNV` | matrix offset | 64 |
| SPIR-V `OpCooperativeVectorMatrixMulAddNV` | bias offset | 16 |
| SPIR-V `OpCooperativeVectorLoadNV` / `StoreNV` / `ReduceSumAccumulateNV` | offset | 16 |

Offsets come from the dataflow: constants, sets (`possible`, one level lower) and
congruences such as `64 mod 512` (`layer * 512 + 64`), reported when every member is
misaligned.

## Why is this bad

The alignments are requirements of HLSL proposals 0029 and 0035 and of the Vulkan
`VK_NV_cooperative_vector` valid-usage rules (VUID-RuntimeSpirv-OpCooperativeVectorMatrixMulNV-10097
and siblings). Implementations fetch matrices in aligned blocks; a misaligned offset is
undefined behaviour: wrong results or a device fault.

## Example

```hlsl
// Layers are 512 bytes apart but the table starts at byte 64: always 64 mod 128.
Weights w = Weights::Load<MatrixLayoutEnum::MulOptimal>(g_Weights, g_Layer * 512 + 64, 0);
```

```text
error[coopvec-base-offset-misaligned]: matrix offset is always 64 mod 512, never 128-byte aligned
```

## Use instead

```hlsl
Weights w = Weights::Load<MatrixLayoutEnum::MulOptimal>(g_Weights, g_Layer * 512 + 128, 0);
```

Pad the weight table so that every matrix starts at a multiple of 128 bytes (64 for
Vulkan), every bias vector at a multiple of 64 (16 for Vulkan).

## Options

None.

## Known limitations

- Only the offset operand is checked; the alignment of the buffer's own base address is
  the application's responsibility.
- LinAlg groupshared operations (offsets in elements) are not checked.
- Offsets the dataflow cannot bound are not reported.

## References

- HLSL proposal 0029, Cooperative Vector: <https://github.com/microsoft/hlsl-specs/blob/main/proposals/0029-cooperative-vector.md>
- HLSL proposal 0035, Linear Algebra Matrix: <https://github.com/microsoft/hlsl-specs/blob/main/proposals/0035-linalg-matrix.md>
- Vulkan `VK_NV_cooperative_vector` SPIR-V environment: <https://registry.khronos.org/vulkan/specs/latest/html/vkspec.html#spirvenv-module-validation-runtime>
"#;

/// The offsets to check: `(operand name, offset, required alignment)`.
fn checks(cx: &RuleContext<'_>, f: crate::ir::FuncH, mo: &MatrixMemOp) -> Vec<(&'static str, Operand, u64)> {
    let mut out = Vec::new();
    let mut push = |name: &'static str, op: Option<Operand>, align: u64| {
        if let Some(op) = op {
            out.push((name, op, align));
        }
    };
    match mo.encoding {
        MatrixEncoding::DxilPreview => match mo.op {
            MatrixOpKind::MatVecMul | MatrixOpKind::OuterProductAccumulate => push("matrix", mo.offset, 128),
            MatrixOpKind::MatVecMulAdd => {
                push("matrix", mo.offset, 128);
                push("bias", mo.bias_offset, 64);
            }
            MatrixOpKind::VectorAccumulate => push("vector", mo.offset, 64),
            _ => {}
        },
        MatrixEncoding::DxilLinAlg => {
            let n = mo.opcode & 0x7FFF_FFFF;
            let default = match n {
                14 | 20 | 27 => 128,
                31 => 64,
                _ => return out,
            };
            let align = match mo.align {
                None => default,
                Some(a) => match cx.constant(f, Some(a)) {
                    Some(a) if a > 0 => a,
                    _ => return out,
                },
            };
            push(if n == 31 { "vector" } else { "matrix" }, mo.offset, align);
        }
        MatrixEncoding::SpirvCoopVec => match mo.op {
            MatrixOpKind::MatVecMul | MatrixOpKind::OuterProductAccumulate => push("matrix", mo.offset, 64),
            MatrixOpKind::MatVecMulAdd => {
                push("matrix", mo.offset, 64);
                push("bias", mo.bias_offset, 16);
            }
            MatrixOpKind::VectorLoad | MatrixOpKind::VectorStore | MatrixOpKind::ReduceSum => {
                push("vector", mo.offset, 16)
            }
            _ => {}
        },
        _ => {}
    }
    out
}

/// Runs the rule.
pub fn check(cx: &mut RuleContext<'_>) {
    let m = cx.m;
    for (fact, mo) in matrix_facts(m) {
        let f = fact.function;
        for (what, op, align) in checks(cx, f, mo) {
            let v = cx.value(f, op);
            // Every x ≡ r (mod 2^k) violates iff r is not a multiple of gcd(2^k, align).
            let tz = align.trailing_zeros();
            let Some(certainty) = judge(&v, |x| x % align != 0, |r, k| r % (1u64 << k.min(tz)) != 0) else {
                continue;
            };
            let Some(value) = finding_value(&v) else { continue };
            let message = match &v {
                AbsValue::Set(s) if s.len() == 1 => format!("{what} offset {} is not {align}-byte aligned", s[0]),
                AbsValue::Set(s) if certainty == crate::report::Certainty::Proven => {
                    format!("{what} offset {} is never {align}-byte aligned", or_list(s))
                }
                AbsValue::Set(s) => format!("{what} offset {} is not always {align}-byte aligned", or_list(s)),
                other => match other.known_low() {
                    Some((rem, k)) => {
                        format!("{what} offset is always {rem} mod {}, never {align}-byte aligned", 1u64 << k)
                    }
                    None => format!("{what} offset {} is not {align}-byte aligned", other.describe()),
                },
            };
            let spec = cx.spec_note(f, &[Some(op)]);
            cx.emit(Finding {
                rule: META.id,
                certainty,
                force_error: false,
                message: format!("{message}{spec}"),
                help: Some(format!("start the {what} at a multiple of {align} bytes")),
                values: vec![
                    ("offset", value),
                    ("align", FindingValue::Int(align)),
                    ("operand", FindingValue::Text(what.into())),
                ],
                at: At::Inst(f, fact.inst),
            });
        }
    }
}

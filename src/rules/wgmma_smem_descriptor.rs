//! `wgmma-smem-descriptor`: the fields of the sm_90 `wgmma.mma_async`
//! shared-memory matrix descriptors (PTX ISA, wgmma "Matrix Descriptor").

use super::atom_ptx::{ptx_facts, ptx_line};
use super::ptx_desc::{admitted, known_ones, values_json, values_text, SMEM_DESC_BITS};
use super::{At, Finding, RuleContext, RuleMeta};
use crate::ir::PtxOp;
use crate::report::{Certainty, FindingValue, Level};

/// Rule metadata.
pub const META: RuleMeta = RuleMeta {
    id: "wgmma-smem-descriptor",
    default_level: Some(Level::Error),
    summary: "a wgmma.mma_async shared-memory descriptor with reserved bits set, a base offset without a swizzle, or a start address, base offset, LBO or SBO that does not fit the layout",
    doc: DOC,
    options: &[],
};

const DOC: &str = r#"
## What it does

Decodes the 64-bit shared-memory matrix descriptors (`a-desc`, `b-desc`) of sm_90
`wgmma.mma_async` (PTX ISA "Matrix Descriptor Format"; CUTLASS `GMMA::GmmaDescriptor`)
from the known bits the dataflow recovers, and checks:

| `values.field` | bits | finding |
|---|---|---|
| `reserved` | 14–15, 30–31, 46–48, 52–61 | a bit known to be 1 (bit 46 set is the sm_100 `tcgen05` version field: a Blackwell descriptor passed to Hopper `wgmma`) |
| `base_offset` | 49–51 | not 0 while the layout type (bits 62–63) is 0, no swizzle: the base offset only applies to swizzled layouts |
| `start_address` | 0–13 | built as `(addr >> 4) & 0x3FFF` from a shared address known not to be a multiple of 16: the shift drops those bytes, the operand is read from the 16-byte unit below |
| `base_offset` | 49–51 | not 0 while the start address is known to be at the start of its swizzle pattern (a multiple of 1024, 512 or 256 bytes for 128-, 64-, 32-byte swizzling), where the pattern's phase `(addr >> 7) & 7` is 0 |
| `sbo` | 32–45 | in a K-major operand of more than 8 rows: below the swizzle atom (8 rows × 128, 64 or 32 bytes; 128 bytes, one core matrix, without swizzling), so the 8-row groups overlap; or the last group starts past the shared memory the kernel can have (its static `.shared` size plus the 1 KB the system reserves, else 228 KB): LBO and SBO written in bytes instead of 16-byte units |
| `lbo` | 16–29 | without swizzling, in a K-major operand: below 128 bytes or equal to SBO (the two core matrices along K overlap each other or the next group), or the second core matrix starts past the shared memory the kernel can have |

A field is reported only when every value the dataflow admits for it is invalid.

The layout checks read the whole descriptor: the layout type gives the swizzle atom, the
instruction (the instruction descriptor's major bits, M and N; for `wgmma`, the shape and,
for 8-bit and tf32 types, K-major) gives the operand's rows, and the module gives the
shared memory size. Each fires only when every value the dataflow admits is wrong.

## Why is this bad

ptxas does not look into descriptors: they travel in registers. Reserved bits and a base
offset without a swizzle pattern are outside the defined encoding; the tensor cores read
shared memory from the wrong place, which shows up only as wrong results at run time.

## Example

```ptx
or.b64 %rd200, %rd100, 4611756662049472512;   // 0x4000404000000000: bit 46 set (tcgen05 version 1)
wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {...}, %rd200, %rd201, %p2, 1, 1, 1, 0;
```

```text
error[wgmma-smem-descriptor]: a-desc of wgmma.mma_async has reserved bits 46-48 set (0x1 there), they must be 0 (bit 46 is the tcgen05 version field, not part of a wgmma descriptor)
```

## Use instead

```ptx
or.b64 %rd200, %rd100, 4611686293305294848;   // 0x4000004000000000: SW128, SBO 1024
```

## Options

None.

## Known limitations

- Only descriptors the dataflow recovers are checked (through loops, shuffles, `.func`
  calls and `.local` spills; not loads from global memory).
- The layout checks need the operand K-major: 8-bit and tf32 types, whose operands are
  always K-major; f16 and bf16 operands may be transposed by an immediate the rule does not
  read, so their LBO and SBO are not checked. The base offset is checked one way only.

## References

- PTX ISA, wgmma shared memory matrix layout (core matrices, swizzle modes, strides): <https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-shared-memory-layout>
- CUDA C++ Programming Guide, technical specifications per compute capability (227 KB of shared memory per block, 228 KB per SM on 9.0): <https://docs.nvidia.com/cuda/cuda-c-programming-guide/#features-and-technical-specifications-technical-specifications-per-compute-capability>
- PTX ISA, wgmma matrix descriptor: <https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-shared-memory-layout-matrix-descriptor>
- CUTLASS `GMMA::GmmaDescriptor`, `include/cute/arch/mma_sm90_desc.hpp`: <https://github.com/NVIDIA/cutlass/blob/main/include/cute/arch/mma_sm90_desc.hpp>
"#;

/// Runs the rule.
pub fn check(cx: &mut RuleContext<'_>) {
    let m = cx.m;
    let bits = SMEM_DESC_BITS;
    for (f, inst, p) in ptx_facts(m) {
        let PtxOp::Wgmma(w) = &p.op else { continue };
        for (operand, desc) in [("a-desc", w.a_desc), ("b-desc", w.b_desc)] {
            let Some(desc) = desc else { continue };
            let v = cx.value(f, desc);
            let mut found: Vec<(&'static str, String, FindingValue)> = Vec::new();
            for (lo, len) in [(14u32, 2u32), (30, 2), (46, 3), (52, 10)] {
                if let Some(ones) = known_ones(&v, lo, len, bits) {
                    let note = if lo == 46 && ones & 1 != 0 {
                        " (bit 46 is the tcgen05 version field, not part of a wgmma descriptor)"
                    } else {
                        ""
                    };
                    found.push((
                        "reserved",
                        format!("reserved bits {lo}-{} set (0x{ones:x} there), they must be 0{note}", lo + len - 1),
                        FindingValue::Int(ones),
                    ));
                }
            }
            let no_swizzle = v.known_field(62, 2, bits) == Some(0);
            if let (true, Some(offs)) = (no_swizzle, admitted(&v, 49, 3, bits)) {
                if offs.iter().all(|x| *x != 0) {
                    found.push((
                        "base_offset",
                        format!(
                            "base_offset (bits 49-51) = {} with layout_type 0 (no swizzle); the base offset applies only to swizzled layouts",
                            values_text(&offs)
                        ),
                        values_json(&offs),
                    ));
                }
            }
            let (a_k_major, n) = wgmma_shape(&p.word);
            let op = if operand == "a-desc" {
                super::ptx_smem_layout::Operand8 { k_major: a_k_major, rows: Some(64) }
            } else {
                super::ptx_smem_layout::Operand8 { k_major: a_k_major, rows: n }
            };
            found.extend(super::ptx_smem_layout::check(m, cx.a, f, desc, super::ptx_smem_layout::Family::Wgmma, op));
            let line = ptx_line(cx, f, inst);
            for (field, what, value) in found {
                cx.emit(Finding {
                    rule: META.id,
                    certainty: Certainty::Proven,
                    force_error: false,
                    message: format!("{operand} of wgmma.mma_async has {what}"),
                    help: Some("build the descriptor as CUTLASS GMMA::GmmaDescriptor does".into()),
                    values: vec![
                        ("field", FindingValue::Text(field.into())),
                        ("operand", FindingValue::Text(operand.into())),
                        ("value", value),
                        ("ptx-line", FindingValue::Int(line)),
                        ("instruction", FindingValue::Text(p.word.to_string())),
                    ],
                    at: At::Inst(f, inst),
                });
            }
        }
    }
}

/// From a `wgmma.mma_async` word (`….m64n128k32.f32.e4m3.e4m3`): whether both
/// operands are K-major (every type but f16 / bf16, whose transposes are
/// immediates the fact does not carry) and N.
fn wgmma_shape(word: &str) -> (bool, Option<u64>) {
    let parts: Vec<&str> = word.split('.').collect();
    let Some(i) = parts.iter().position(|p| p.starts_with("m64n")) else { return (false, None) };
    let n = parts[i].strip_prefix("m64n").and_then(|r| r.split('k').next()).and_then(|x| x.parse().ok());
    let types = parts.get(i + 1..).unwrap_or(&[]);
    let k_major = types.len() >= 3 && !types.iter().skip(1).any(|t| *t == "f16" || *t == "bf16");
    (k_major, n)
}

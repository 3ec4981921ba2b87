//! `ptx-tcgen05-smem-descriptor`: the fields of the `a-desc` / `b-desc`
//! shared-memory matrix descriptors of `tcgen05.mma*` (PTX ISA, "Shared memory descriptor").

use super::atom_ptx::{ptx_facts, ptx_line};
use super::ptx_desc::{
    all_invalid, known_ones, tcgen05_layout_name, values_json, values_text, IDESC_BITS, SMEM_DESC_BITS,
};
use super::ptx_smem_layout::{Family, Operand8};
use super::{At, Finding, RuleContext, RuleMeta};
use crate::analysis::AbsValue;
use crate::ir::{FuncH, InstH, PtxMatrixOp, PtxOp, Tcgen05Mma};
use crate::report::{Certainty, FindingValue, Level};

/// Rule metadata.
pub const META: RuleMeta = RuleMeta {
    id: "ptx-tcgen05-smem-descriptor",
    default_level: Some(Level::Error),
    summary:
        "a tcgen05.mma shared-memory descriptor with a wrong version, reserved bits set, an undefined layout type, or a start address, base offset, LBO or SBO that does not fit the layout",
    doc: DOC,
    options: &[],
};

const DOC: &str = r#"
## What it does

Decodes the 64-bit shared-memory matrix descriptors (`a-desc`, `b-desc`) of
`tcgen05.mma`, `tcgen05.mma.sp` and `tcgen05.mma.ws` from the known bits the dataflow
recovers (compilers build them as constants, or OR constant fields onto a run-time start
address) and checks:

| `values.field` | bits | finding |
|---|---|---|
| `version` | 46–48 | not `0b001` (a Hopper `wgmma` descriptor has 0 there) |
| `reserved` | 14–15, 30–31, 53–60 | a bit known to be 1 |
| `layout_type` | 61–63 | 3, 5 or 7 (not defined); or 1 (`SWIZZLE_128B_BASE32B`, MN-major only) on an operand the instruction descriptor says is K-major (bit 15 for A, 16 for B) |
| `start_address` | 0–13 | built as `(addr >> 4) & 0x3FFF` from a shared address known not to be a multiple of 16: the shift drops those bytes, the operand is read from the 16-byte unit below |
| `base_offset` | 49–51 | not 0 while the start address is known to be at the start of its swizzle pattern (a multiple of 1024, 512 or 256 bytes for 128-, 64-, 32-byte swizzling), where the pattern's phase `(addr >> 7) & 7` is 0 |
| `sbo` | 32–45 | in a K-major operand of more than 8 rows: below the swizzle atom (8 rows × 128, 64 or 32 bytes; 128 bytes, one core matrix, without swizzling), so the 8-row groups overlap; or the last group starts past the shared memory the kernel can have (its static `.shared` size plus the 1 KB the system reserves, else 228 KB): LBO and SBO written in bytes instead of 16-byte units |
| `lbo` | 16–29 | without swizzling, in a K-major operand: below 128 bytes or equal to SBO (the two core matrices along K overlap each other or the next group), or the second core matrix starts past the shared memory the kernel can have |

A field is reported only when every value the dataflow admits for it is invalid: a
descriptor loaded from memory, or a field with no known bit, is never reported.

The layout checks read the whole descriptor: the layout type gives the swizzle atom, the
instruction (the instruction descriptor's major bits, M and N; for `wgmma`, the shape and,
for 8-bit and tf32 types, K-major) gives the operand's rows, and the module gives the
shared memory size. Each fires only when every value the dataflow admits is wrong.

## Why is this bad

ptxas does not look into descriptors: they travel in registers. A wrong version or
swizzle mode makes the tensor core read shared memory with the wrong layout, which shows
up only as wrong results or a fault at run time.

## Example

```ptx
bfe.u32     %r203, %r21, 4, 14;
cvt.u64.u32 %rd330, %r203;
or.b64      %rd325, %rd330, 4611686293305294848;   // 0x4000004000000000: version 0
tcgen05.mma.cta_group::1.kind::f16 [%r467], %rd324, %rd325, %r201, %p6;
```

```text
error[ptx-tcgen05-smem-descriptor]: b-desc of tcgen05.mma has version (bits 46-48) = 0, must be 1 (0b001) on sm_100 (0 is the Hopper wgmma encoding)
```

## Use instead

```ptx
or.b64      %rd325, %rd330, 4611756662049472512;   // 0x4000404000000000: SW128, version 1, SBO 1024
```

## Options

None.

## Known limitations

- Only fields the dataflow recovers are checked: a descriptor loaded from global memory is
  not. One built in a `.func` (nvcc `-G`), advanced in a loop, shuffled or spilled to
  `.local` memory is.
- The layout checks need the operand K-major (MN-major strides are not checked) and its
  rows known; the base offset is checked one way only (DeepGEMM starts operands 256 bytes
  into the 1024-byte pattern with base offset 0 and relies on the hardware taking the
  phase from the address).

## References

- PTX ISA, tcgen05 shared memory descriptor layout (start address, LBO, SBO, base offset, swizzle mode): <https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-shared-memory-desc-layout>
- PTX ISA, tcgen05 shared memory layouts and strides (core matrices, swizzle atoms, leading and stride dimension byte offsets): <https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-smem-layout>
- CUDA C++ Programming Guide, technical specifications per compute capability (227 KB of shared memory per block, 228 KB per SM on 9.0 and 10.0): <https://docs.nvidia.com/cuda/cuda-c-programming-guide/#features-and-technical-specifications-technical-specifications-per-compute-capability>
- PTX ISA, tcgen05 shared memory descriptor: <https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-shared-memory-descriptor>
- CUTLASS `UMMA::SmemDescriptor`, `include/cute/arch/mma_sm100_desc.hpp`: <https://github.com/NVIDIA/cutlass/blob/main/include/cute/arch/mma_sm100_desc.hpp>
"#;

struct Site<'a> {
    f: FuncH,
    inst: InstH,
    p: &'a PtxMatrixOp,
    operand: &'static str,
}

fn emit(cx: &mut RuleContext<'_>, s: &Site<'_>, field: &'static str, message: String, value: FindingValue) {
    let line = ptx_line(cx, s.f, s.inst);
    cx.emit(Finding {
        rule: META.id,
        certainty: Certainty::Proven,
        force_error: false,
        message,
        help: Some("build the descriptor as CUTLASS UMMA::SmemDescriptor does (version 1, reserved bits 0)".into()),
        values: vec![
            ("field", FindingValue::Text(field.into())),
            ("operand", FindingValue::Text(s.operand.into())),
            ("value", value),
            ("ptx-line", FindingValue::Int(line)),
            ("instruction", FindingValue::Text(s.p.word.to_string())),
        ],
        at: At::Inst(s.f, s.inst),
    });
}

/// Runs the rule.
pub fn check(cx: &mut RuleContext<'_>) {
    let m = cx.m;
    for (f, inst, p) in ptx_facts(m) {
        let PtxOp::Tcgen05Mma(t) = &p.op else { continue };
        let idesc = t.idesc.map(|o| cx.value(f, o));
        for (operand, desc, major_bit) in [("a-desc", t.a_desc, 15), ("b-desc", t.b_desc, 16)] {
            let Some(desc) = desc else { continue };
            let v = cx.value(f, desc);
            let s = Site { f, inst, p, operand };
            let bits = SMEM_DESC_BITS;
            let op = operand_shape(t, idesc.as_ref(), major_bit);
            for (field, msg, value) in super::ptx_smem_layout::check(m, cx.a, f, desc, Family::Tcgen05, op) {
                emit(cx, &s, field, format!("{operand} of tcgen05.mma has {msg}"), value);
            }
            if let Some(vals) = all_invalid(&v, 46, 3, bits, |x| x != 1) {
                let msg = format!(
                    "{operand} of tcgen05.mma has version (bits 46-48) = {}, must be 1 (0b001) on sm_100{}",
                    values_text(&vals),
                    if vals.as_slice() == [0] { " (0 is the Hopper wgmma encoding)" } else { "" }
                );
                emit(cx, &s, "version", msg, values_json(&vals));
            }
            for (lo, len) in [(14u32, 2u32), (30, 2), (53, 8)] {
                if let Some(ones) = known_ones(&v, lo, len, bits) {
                    let msg = format!(
                        "{operand} of tcgen05.mma has reserved bits {lo}-{} set (0x{:x} there), they must be 0",
                        lo + len - 1,
                        ones
                    );
                    emit(cx, &s, "reserved", msg, FindingValue::Int(ones));
                }
            }
            if let Some(vals) = all_invalid(&v, 61, 3, bits, |x| matches!(x, 3 | 5 | 7)) {
                let msg = format!(
                    "{operand} of tcgen05.mma has layout_type (bits 61-63) = {}, which is not defined (valid: 0 none, 1 128B with 32B atoms, 2 128B, 4 64B, 6 32B)",
                    values_text(&vals)
                );
                emit(cx, &s, "layout_type", msg, values_json(&vals));
            } else if v.known_field(61, 3, bits) == Some(1)
                && idesc.as_ref().and_then(|d| d.known_field(major_bit, 1, IDESC_BITS)) == Some(0)
            {
                let which = if operand == "a-desc" { 'A' } else { 'B' };
                let msg = format!(
                    "{operand} of tcgen05.mma has layout_type 1 ({}), which is for MN-major operands only, but the instruction descriptor says {which} is K-major (bit {major_bit} = 0)",
                    tcgen05_layout_name(1)
                );
                emit(cx, &s, "layout_type", msg, FindingValue::Int(1));
            }
        }
    }
}

/// What the instruction descriptor says of one operand: K-major when its
/// major bit (15 for A, 16 for B) is known 0; its rows in one CTA (A: M, B:
/// N, halved with `.cta_group::2`) when M / N are known.
fn operand_shape(t: &Tcgen05Mma, idesc: Option<&AbsValue>, major_bit: u32) -> Operand8 {
    let k_major = idesc.and_then(|d| d.known_field(major_bit, 1, IDESC_BITS)) == Some(0);
    let per_cta = |x: u64| if t.cta_group == 2 && !t.ws { x / 2 } else { x };
    let rows = idesc.and_then(|d| {
        if major_bit == 15 {
            d.known_field(24, 5, IDESC_BITS).map(|m| per_cta(m << 4))
        } else {
            d.known_field(17, 6, IDESC_BITS).map(|n| per_cta(n << 3))
        }
    });
    Operand8 { k_major, rows }
}

//! `ptx-tcgen05-smem-descriptor`: the fields of the `a-desc` / `b-desc`
//! shared-memory matrix descriptors of `tcgen05.mma*` (`reference/ptx-atoms.md` §7.1).

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
        "a tcgen05.mma shared-memory descriptor with a wrong version, reserved bits set or an undefined layout type",
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

A field is reported only when every value the dataflow admits for it is invalid: a
descriptor loaded from memory, or a field with no known bit, is never reported.

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

- Only fields the dataflow recovers are checked: a descriptor built in another function,
  passed as a parameter or loaded from memory is not.
- LBO, SBO and the matrix base offset are not checked against the operand's layout.

## References

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
            ("instruction", FindingValue::Text(s.p.word.clone())),
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
                    if vals == [0] { " (0 is the Hopper wgmma encoding)" } else { "" }
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

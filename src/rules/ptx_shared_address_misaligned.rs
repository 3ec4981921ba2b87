//! `ptx-shared-address-misaligned`: shared-memory addresses of `ldmatrix` /
//! `stmatrix` rows, `cp.async.bulk.tensor` buffers and mbarrier objects that
//! are not aligned as the instruction requires.

use super::atom_ptx::{ptx_facts, ptx_line};
use super::{finding_value, judge, or_list, At, Finding, RuleContext, RuleMeta};
use crate::analysis::AbsValue;
use crate::ir::{Operand, PtxOp};
use crate::report::{Certainty, FindingValue, Level};

/// Rule metadata.
pub const META: RuleMeta = RuleMeta {
    id: "ptx-shared-address-misaligned",
    default_level: Some(Level::Error),
    summary: "a shared-memory address of ldmatrix/stmatrix, cp.async.bulk.tensor or an mbarrier that is not aligned as required",
    doc: DOC,
    options: &[],
};

const DOC: &str = r#"
## What it does

Checks the shared-memory addresses the dataflow recovers (constants, sets of constants,
or known low bits such as `8 mod 16` for `tid * 16 + 8`) against the alignment the
instruction requires. The address of a shared variable is known to be a multiple of its
declared alignment (`.shared .align 16 .b8 smem[]`, `.extern` included; without `.align`,
the size of its element type, PTX ISA §5.4.5), whether it is read with `mov`, as
`[smem+off]`, through `cvta.shared`, or declared inside the function, so compiler output
that offsets a symbol is checked: `smem + 8` is `8 mod 16`.

| `values.field` | instruction | alignment |
|---|---|---|
| `row_address` | `ldmatrix`, `stmatrix` (the address each thread supplies for a row) | 16 bytes |
| `smem_address` | `cp.async.bulk.tensor` (`[dstMem]` of a load, `[srcMem]` of a store) | 128 bytes |
| `mbarrier_address` | `mbarrier.*`, the `[mbar]` operand of a `cp.async.bulk.tensor` load and of `tcgen05.commit` | 8 bytes |

Every admitted address misaligned gives a `proven` finding; a set of constants with only
some members misaligned gives a `possible` finding, reported one level lower, as the
DXIL alignment rules do.

## Why is this bad

The PTX ISA requires these alignments; a misaligned address is undefined behaviour, which
shows up as a misaligned-address fault or as rows read from the wrong place.

## Example

```ptx
.shared .align 16 .b8 smem[4096];
...
mov.u32     %r2, smem;              // 0 mod 16
shl.b32     %r3, %r1, 4;
add.s32     %r4, %r2, %r3;
add.s32     %r5, %r4, 8;            // always 8 mod 16
ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r6, %r7, %r8, %r9}, [%r5];
```

```text
error[ptx-shared-address-misaligned]: ldmatrix row address is always 8 mod 16, never 16-byte aligned
```

## Use instead

```ptx
add.s32     %r4, %r2, %r3;          // smem + tid * 16: 0 mod 16
ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r6, %r7, %r8, %r9}, [%r4];
```

## Options

None.

## Known limitations

- A symbol's address is known only modulo its declared alignment, never as a constant:
  `smem + 16` or `smem + 24` joins to `0 mod 8`, which decides nothing about 16 bytes, so
  offsets of a symbol give `proven` findings or none, never `possible` ones.
- A buffer whose declared alignment is below the requirement is not reported: Triton
  declares `.extern .shared .align 16 .b8 global_smem[]` and places TMA buffers at
  `global_smem + k`, known only `0 mod 16`, while `cp.async.bulk.tensor` needs 128 bytes
  (the dynamic shared memory the driver allocates is aligned beyond that in practice).
- `cvta` keeps at most 7 known low bits (128 bytes) of an address: the PTX ISA does not
  state how the state-space windows are aligned in the generic address space.
- Addresses of `.local` variables and parameters are not modelled; addresses returned
  by calls (nvcc `-G` calls `__cvta_generic_to_shared`) are unknown.
- `cp.async.bulk` (non-tensor) and `cp.async` are not checked.

## References

- PTX ISA, ldmatrix: <https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-ldmatrix>
- PTX ISA, cp.async.bulk.tensor: <https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk-tensor>
- PTX ISA, mbarrier: <https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier>
"#;

fn describe(v: &AbsValue, align: u64, certainty: Certainty) -> String {
    match v {
        AbsValue::Set(s) if s.len() == 1 => format!("{} is not {align}-byte aligned", s[0]),
        AbsValue::Set(s) => {
            let bad: Vec<u64> = s.iter().copied().filter(|x| x % align != 0).collect();
            if certainty == Certainty::Proven {
                format!("is {}, never {align}-byte aligned", or_list(s))
            } else {
                format!(
                    "is {}, not always {align}-byte aligned ({} {} not)",
                    or_list(s),
                    or_list(&bad),
                    if bad.len() == 1 { "is" } else { "are" }
                )
            }
        }
        other => match other.known_low() {
            Some((rem, k)) => format!("is always {rem} mod {}, never {align}-byte aligned", 1u64 << k),
            None => format!("{} is not {align}-byte aligned", other.describe()),
        },
    }
}

/// Runs the rule.
pub fn check(cx: &mut RuleContext<'_>) {
    let m = cx.m;
    for (f, inst, p) in ptx_facts(m) {
        let base = p.word.split('.').next().unwrap_or_default();
        // At most two addresses per instruction; the texts are formatted
        // only for a finding.
        type Check<'o> = (&'static str, &'static str, Option<Operand>, u64);
        let (first, second): (Check<'_>, Option<Check<'_>>) = match &p.op {
            PtxOp::LdStMatrix(l) => (("row_address", "row address", l.address, 16), None),
            PtxOp::TensorCopy(c) => (
                ("smem_address", "shared-memory address", c.smem, 128),
                Some(("mbarrier_address", "mbarrier address", c.mbarrier, 8)),
            ),
            PtxOp::Mbarrier(b) if base == "tcgen05" => (("mbarrier_address", "mbarrier address", b.address, 8), None),
            PtxOp::Mbarrier(b) => (("mbarrier_address", "object address", b.address, 8), None),
            _ => continue,
        };
        let what = || match &p.op {
            PtxOp::TensorCopy(_) => "cp.async.bulk.tensor".to_string(),
            PtxOp::Mbarrier(_) => p.word.split('.').take(2).collect::<Vec<_>>().join("."),
            _ => base.to_string(),
        };
        for (field, noun, op, align) in std::iter::once(first).chain(second) {
            let Some(op) = op else { continue };
            let v = cx.value(f, op);
            let Some(certainty) = judge(&v, |x| x % align != 0, |r, k| r % align.min(1u64 << k) != 0) else {
                continue;
            };
            let Some(value) = finding_value(&v) else { continue };
            let line = ptx_line(cx, f, inst);
            let text = describe(&v, align, certainty);
            let message = format!("{} {noun} {text}", what());
            cx.emit(Finding {
                rule: META.id,
                certainty,
                force_error: false,
                message,
                help: Some(format!("align the {noun} to {align} bytes")),
                values: vec![
                    ("field", FindingValue::Text(field.into())),
                    ("address", value),
                    ("align", FindingValue::Int(align)),
                    ("ptx-line", FindingValue::Int(line)),
                    ("instruction", FindingValue::Text(p.word.to_string())),
                ],
                at: At::Inst(f, inst),
            });
        }
    }
}

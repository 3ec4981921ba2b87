//! `coopvec-pointer-misaligned` (the aligned-access rules: `access_align`).

use super::access_align::{accesses, address_value, bases, emit, misaligned, Report};
use super::{RuleContext, RuleMeta};
use crate::ir::AccessKind;
use crate::report::Level;

/// Rule metadata.
pub const META: RuleMeta = RuleMeta {
    id: "coopvec-pointer-misaligned",
    default_level: Some(Level::Error),
    summary: "cooperative-vector matrix, bias or vector pointer that is not aligned as Vulkan requires",
    doc: DOC,
    options: &[],
};

const DOC: &str = r#"
## What it does

Checks the pointer operands of the `SPV_NV_cooperative_vector` instructions (the offsets
are `coopvec-base-offset-misaligned`'s business):

| Instruction | Pointer | Alignment |
|---|---|---|
| `OpCooperativeVectorMatrixMulNV`, `…MulAddNV` | `Matrix` | 64 |
| `OpCooperativeVectorMatrixMulAddNV` | `Bias` | 16 |
| `OpCooperativeVectorOuterProductAccumulateNV` | `Pointer` | 64 |
| `OpCooperativeVectorReduceSumAccumulateNV` | `Pointer` | 16 |
| `OpCooperativeVectorLoadNV`, `…StoreNV` | `Pointer` | 16 |

The pointer's address is rebuilt from its access chains (`Offset`, `ArrayStride`) down to
the buffer variable, whose base counts as 16-byte aligned, or to an `OpConvertUToPtr` of a
known integer. A pointer 4 bytes into a `uint` array (`weights.data[1]`) is `4 mod 16`.

## Why is this bad

The Vulkan specification's runtime SPIR-V rules state it per instruction:
VUID-RuntimeSpirv-OpCooperativeVectorMatrixMulNV-10097 "For OpCooperativeVectorMatrixMulNV
and OpCooperativeVectorMatrixMulAddNV instructions, the Matrix and MatrixOffset must be
aligned to 64 bytes"; -10098 "the Bias and BiasOffset must be aligned to 16 bytes";
VUID-RuntimeSpirv-OpCooperativeVectorLoadNV-10099 "For OpCooperativeVectorLoadNV and
OpCooperativeVectorStoreNV instructions, the Pointer and Offset must be aligned to 16
bytes"; -10100 (ReduceSumAccumulate, 16) and -10101 (OuterProductAccumulate, 64). The
matrix is fetched in aligned blocks: a misaligned pointer is undefined behaviour.

## Example

```glsl
layout(set = 0, binding = 0) buffer Weights { uint data[]; } w;
// the matrix starts one uint into the buffer: 4 mod 64
coopVecMatMulNV(r, v, gl_ComponentTypeFloat16NV, w.data[1], 0, gl_ComponentTypeFloat16NV,
                16, 16, gl_CooperativeVectorMatrixLayoutInferencingOptimalNV, false, 0);
```

```text
error[coopvec-pointer-misaligned]: matrix pointer is always 4 mod 16, never 64-byte aligned (VUID-RuntimeSpirv-OpCooperativeVectorMatrixMulNV-10097)
```

In practice the pointer is the start of the weight buffer and the layer is selected with
the offset operand; a pointer into the middle of the buffer is the mistake this catches.

## Use instead

Pass the buffer's first element as the pointer and select the matrix with `MatrixOffset`
(a multiple of 64).

## Options

None.

## Known limitations

- The descriptor's base address is counted as 16-byte aligned (the application binds it);
  a pointer whose required alignment is 64 is reported only when its residue mod 16 is
  already non-zero.
- Pointers loaded from memory or passed as function parameters are not followed.

## References

- Vulkan, Runtime SPIR-V validation: <https://registry.khronos.org/vulkan/specs/latest/html/vkspec.html#spirvenv-module-validation-runtime>
- `SPV_NV_cooperative_vector`: <https://github.khronos.org/SPIRV-Registry/extensions/NV/SPV_NV_cooperative_vector.html>
"#;

fn vuid(opcode_operand: &str, align: u64) -> &'static str {
    match (opcode_operand, align) {
        ("matrix", _) => "VUID-RuntimeSpirv-OpCooperativeVectorMatrixMulNV-10097 / -OuterProductAccumulateNV-10101",
        ("bias", _) => "VUID-RuntimeSpirv-OpCooperativeVectorMatrixMulAddNV-10098",
        _ => "VUID-RuntimeSpirv-OpCooperativeVectorLoadNV-10099 / -ReduceSumAccumulateNV-10100",
    }
}

/// Runs the rule.
pub fn check(cx: &mut RuleContext<'_>) {
    let bases = bases(cx);
    for (f, inst, a) in accesses(cx, AccessKind::CoopVector) {
        let Some(align) = a.required else { continue };
        let (value, from) = address_value(cx, f, &a.address, &bases);
        let Some(certainty) = misaligned(&value, align) else { continue };
        let what = format!("{} pointer", a.operand);
        emit(
            cx,
            Report {
                rule: META.id,
                f,
                inst,
                what: &what,
                value,
                align,
                certainty,
                why: vuid(a.operand, align).to_string(),
                base_from: from,
                help: format!("point at a {align}-byte aligned element and select the data with the offset operand"),
                extra: Vec::new(),
            },
            &[],
        );
    }
}

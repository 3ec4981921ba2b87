//! `coopmat-access-misaligned` (the aligned-access rules: `access_align`).

use super::access_align::{accesses, address_value, bases, emit, misaligned, Report};
use super::{RuleContext, RuleMeta};
use crate::analysis::{lattice, AbsValue};
use crate::ir::AccessKind;
use crate::report::{FindingValue, Level};

/// Rule metadata.
pub const META: RuleMeta = RuleMeta {
    id: "coopmat-access-misaligned",
    default_level: Some(Level::Error),
    summary: "cooperative-matrix load or store whose pointer or stride is not 16-byte (row-size) aligned",
    doc: DOC,
    options: &[],
};

const VUID: &str = "VUID-RuntimeSpirv-OpCooperativeMatrixLoadKHR-08986";

const DOC: &str = r#"
## What it does

Checks `OpCooperativeMatrixLoadKHR` and `OpCooperativeMatrixStoreKHR` (GLSL `coopMatLoad` /
`coopMatStore`, HLSL `vk::khr::CooperativeMatrix`, Slang `CoopMat`) with a row-major or
column-major layout: the pointer and the stride (counted in elements of the pointer's
pointee type, converted to bytes) must both be multiples of the lesser of 16 bytes and the
natural alignment of a row (row-major: columns × component size) or a column
(column-major: rows × component size) — the largest power of two dividing that size,
capped at 16.

The pointer's address is rebuilt from its access chains (`Offset`, `ArrayStride`) down to
the buffer or workgroup variable, whose base counts as 16-byte aligned, or to an
`OpConvertUToPtr` of a known integer; the stride comes from the dataflow (constants,
spec constants at their default, sets, congruences). A set of strides or addresses of
which only some are misaligned is `possible`, reported one level lower (a warning).

## Why is this bad

VUID-RuntimeSpirv-OpCooperativeMatrixLoadKHR-08986: "For OpCooperativeMatrixLoadKHR and
OpCooperativeMatrixStoreKHR instructions, the Pointer and Stride operands must be aligned
to at least the lesser of 16 bytes or the natural alignment of a row or column (depending
on ColumnMajor) of the matrix (where the natural alignment is the number of columns/rows
multiplied by the component size)". Drivers lower the load to 16-byte vector loads
(`ds_read_b128`, `LDS.128`) when the rule holds; with a misaligned stride they fall back or
read wrong data. GPU-assisted validation checks this rule at run time, on the values that
run; `spirv-val` cannot.

## Example

```glsl
shared float16_t tile[64 * 36];                       // rows padded to 36 halves = 72 bytes
coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a;
coopMatLoad(a, tile, 0, 36, gl_CooperativeMatrixLayoutRowMajor); // stride 72 bytes
```

```text
error[coopmat-access-misaligned]: stride is 72, never 16-byte aligned (VUID-RuntimeSpirv-OpCooperativeMatrixLoadKHR-08986: min(16, row or column of 16 x 2 bytes); 36 elements of 2 bytes)
```

Padding shared-memory rows by a couple of elements to spread them over banks is the usual
way to break the rule: 2 halves of padding on a 32-half row give a 72-byte stride, which
no 16-byte load can honour. Drivers that split the load keep working (slowly); others read
wrong data. The Vulkan validation layers added this check to GPU-assisted validation
(KhronosGroup/Vulkan-ValidationLayers#11885), which sees it only when the shader runs
with the bad value.

## Use instead

Pad rows by a multiple of 16 bytes (8 halves): `tile[64 * 40]`, stride 40 (80 bytes).

## Options

None.

## Known limitations

- The base of a buffer or workgroup variable is counted as 16-byte aligned.
- Row- and column-major layouts only (the ARM blocked layouts have their own rules).
- A stride whose pointee type is an array or structure is not converted to bytes.

## References

- Vulkan, Runtime SPIR-V validation: <https://registry.khronos.org/vulkan/specs/latest/html/vkspec.html#spirvenv-module-validation-runtime>
- `SPV_KHR_cooperative_matrix`: <https://github.khronos.org/SPIRV-Registry/extensions/KHR/SPV_KHR_cooperative_matrix.html>
- GPU-AV check for VUID-08986: <https://github.com/KhronosGroup/Vulkan-ValidationLayers/issues/11885>
"#;

/// Runs the rule.
pub fn check(cx: &mut RuleContext<'_>) {
    let bases = bases(cx);
    for (f, inst, a) in accesses(cx, AccessKind::CoopMatrix) {
        let Some(align) = a.required else { continue };
        let line = if a.count > 0 { format!("{} x {} bytes", a.count, a.component_bytes) } else { "unknown".into() };
        let row = format!("min(16, row or column of {line})");
        let (value, from) = address_value(cx, f, &a.address, &bases);
        if let Some(certainty) = misaligned(&value, align) {
            emit(
                cx,
                Report {
                    rule: META.id,
                    f,
                    inst,
                    what: "pointer",
                    value,
                    align,
                    certainty,
                    why: format!("{VUID}: {row}"),
                    base_from: from,
                    help: format!("start the matrix at a multiple of {align} bytes"),
                    extra: Vec::new(),
                },
                &[],
            );
        }
        let Some((op, unit)) = a.stride else { continue };
        let s = cx.value(f, op);
        let bytes = lattice::mul(&s, &AbsValue::constant(unit, 64), 64);
        let Some(certainty) = misaligned(&bytes, align) else { continue };
        let elems = match s.as_const() {
            Some(x) => format!("; {x} elements of {unit} bytes"),
            None => format!("; elements of {unit} bytes"),
        };
        emit(
            cx,
            Report {
                rule: META.id,
                f,
                inst,
                what: "stride",
                value: bytes,
                align,
                certainty,
                why: format!("{VUID}: {row}{elems}"),
                base_from: None,
                help: format!("pad rows so that the stride is a multiple of {align} bytes"),
                extra: vec![("unit", FindingValue::Int(unit))],
            },
            &[Some(op)],
        );
    }
}

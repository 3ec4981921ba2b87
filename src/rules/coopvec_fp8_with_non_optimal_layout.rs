//! `coopvec-fp8-with-non-optimal-layout` (HLSL proposal 0029, cooperative vectors).

use super::coopvec_stride_mismatch::element_info;
use super::{is_coopvec_mul, layout_class, matrix_facts, At, Finding, LayoutClass, RuleContext, RuleMeta};
use crate::report::{Certainty, FindingValue, Level};

/// Rule metadata.
pub const META: RuleMeta = RuleMeta {
    id: "coopvec-fp8-with-non-optimal-layout",
    default_level: Some(Level::Error),
    summary: "fp8 (e4m3 / e5m2) matrix with a row- or column-major layout",
    doc: DOC,
    options: &[],
};

const DOC: &str = r#"
## What it does

Flags DXIL preview `matVecMul`/`matVecMulAdd` and SPIR-V `OpCooperativeVectorMatrixMul[Add]NV`
calls whose matrix interpretation is an 8-bit float (`F8_E4M3`, `F8_E5M2`) while the layout is
row-major or column-major.

## Why is this bad

FP8 matrices are only supported in optimal layouts (HLSL proposal 0029, minimum support set
and the D3D conversion rules; Vulkan VUID-RuntimeSpirv-OpCooperativeVectorMatrixMulNV-10090).
A row/column-major FP8 matrix is invalid: the driver may reject the pipeline or produce
wrong results.

## Example

```hlsl
MatrixRef<DATA_TYPE_FLOAT8_E4M3, 16, 16, MATRIX_LAYOUT_ROW_MAJOR> m = {g_Weights, 0, 16};
```

```text
error[coopvec-fp8-with-non-optimal-layout]: f8e4m3 matrix uses the row-major layout; fp8 matrices need an optimal layout
```

## Use instead

Convert the matrix to the MulOptimal (Vulkan: InferencingOptimal) layout when uploading it
(`D3D12` linear-algebra matrix conversion, `vkConvertCooperativeVectorMatrixNV`) and pass
that layout with stride 0.

## Options

None.

## Known limitations

- SM 6.10 LinAlg matrices are not checked by this rule.

## References

- HLSL proposal 0029, Cooperative Vector: <https://github.com/microsoft/hlsl-specs/blob/main/proposals/0029-cooperative-vector.md>
- Vulkan `VK_NV_cooperative_vector`: <https://registry.khronos.org/vulkan/specs/latest/man/html/VK_NV_cooperative_vector.html>
"#;

/// Runs the rule.
pub fn check(cx: &mut RuleContext<'_>) {
    let m = cx.m;
    for (fact, mo) in matrix_facts(m) {
        if !is_coopvec_mul(mo) {
            continue;
        }
        let f = fact.function;
        let (Some(layout), Some(elem)) = (cx.constant(f, mo.layout), cx.constant(f, mo.element)) else { continue };
        let Some((LayoutClass::RowOrColumn, name)) = layout_class(mo.layout_numbering, layout) else { continue };
        let Some((_, elem_name)) = element_info(mo.element_numbering, elem) else { continue };
        if !elem_name.starts_with("f8") {
            continue;
        }
        let spec = cx.spec_note(f, &[mo.layout, mo.element]);
        cx.emit(Finding {
            rule: META.id,
            certainty: Certainty::Proven,
            force_error: false,
            message: format!("{elem_name} matrix uses the {name} layout; fp8 matrices need an optimal layout{spec}"),
            help: Some("convert the matrix to an optimal layout and pass stride 0".into()),
            values: vec![
                ("element", FindingValue::Text(elem_name.into())),
                ("layout", FindingValue::Text(name.into())),
            ],
            at: At::Inst(f, fact.inst),
        });
    }
}

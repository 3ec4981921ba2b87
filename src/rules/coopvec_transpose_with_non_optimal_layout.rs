//! `coopvec-transpose-with-non-optimal-layout` (HLSL proposal 0029, cooperative vectors).

use super::{is_coopvec_mul, layout_class, matrix_facts, At, Finding, LayoutClass, RuleContext, RuleMeta};
use crate::report::{Certainty, FindingValue, Level};

/// Rule metadata.
pub const META: RuleMeta = RuleMeta {
    id: "coopvec-transpose-with-non-optimal-layout",
    default_level: Some(Level::Error),
    summary: "matrix transpose requested with a row- or column-major layout",
    doc: DOC,
    options: &[],
};

const DOC: &str = r#"
## What it does

Flags DXIL preview `matVecMul`/`matVecMulAdd` and SPIR-V `OpCooperativeVectorMatrixMul[Add]NV`
calls whose transpose flag is set while the matrix layout is row-major or column-major.

## Why is this bad

Transposition is only supported for optimal layouts (HLSL proposal 0029 §Matrix Transpose;
the `SPV_NV_cooperative_vector` extension; DXC's validator rejects it). With row/column-major
layouts the call is invalid: the driver may reject the shader or compute garbage.

## Example

```hlsl
MatrixRef<DATA_TYPE_FLOAT16, 16, 16, MATRIX_LAYOUT_ROW_MAJOR, /*Transpose*/ true> m = {g_Weights, 0, 32};
```

```text
error[coopvec-transpose-with-non-optimal-layout]: matrix transpose is not supported with the row-major layout
```

## Use instead

Store the matrix transposed (swap row-major and column-major), or convert it to an optimal
layout and transpose there.

## Options

None.

## Known limitations

- Only constant transpose flags and layouts are judged (the specifications require them
  to be constants).

## References

- HLSL proposal 0029, Cooperative Vector: <https://github.com/microsoft/hlsl-specs/blob/main/proposals/0029-cooperative-vector.md>
- `SPV_NV_cooperative_vector`: <https://github.khronos.org/SPIRV-Registry/extensions/NV/SPV_NV_cooperative_vector.html>
"#;

/// Runs the rule.
pub fn check(cx: &mut RuleContext<'_>) {
    let m = cx.m;
    for (fact, mo) in matrix_facts(m) {
        if !is_coopvec_mul(mo) {
            continue;
        }
        let f = fact.function;
        let (Some(layout), Some(1)) = (cx.constant(f, mo.layout), cx.constant(f, mo.transpose)) else { continue };
        let Some((LayoutClass::RowOrColumn, name)) = layout_class(mo.layout_numbering, layout) else { continue };
        let spec = cx.spec_note(f, &[mo.layout, mo.transpose]);
        cx.emit(Finding {
            rule: META.id,
            certainty: Certainty::Proven,
            force_error: false,
            message: format!("matrix transpose is not supported with the {name} layout{spec}"),
            help: Some("store the matrix transposed, or use an optimal layout".into()),
            values: vec![("layout", FindingValue::Text(name.into()))],
            at: At::Inst(f, fact.inst),
        });
    }
}

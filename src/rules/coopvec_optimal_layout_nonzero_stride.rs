//! `coopvec-optimal-layout-nonzero-stride` (HLSL proposal 0029, cooperative vectors).

use super::{
    finding_value, is_coopvec_mul, is_linalg_descriptor_op, judge, layout_class, matrix_facts, At, Finding, LayoutClass,
};
use super::{RuleContext, RuleMeta};
use crate::report::{FindingValue, Level};

/// Rule metadata.
pub const META: RuleMeta = RuleMeta {
    id: "coopvec-optimal-layout-nonzero-stride",
    default_level: Some(Level::Warning),
    summary: "optimal matrix layout with a stride that is not 0",
    doc: DOC,
    options: &[],
};

const DOC: &str = r#"
## What it does

Flags matrix-vector multiplies (DXIL preview `matVecMul`/`matVecMulAdd`, SPIR-V
`OpCooperativeVectorMatrixMul[Add]NV`) and SM 6.10 LinAlg descriptor loads, stores and
accumulates that use an optimal layout (MulOptimal, OuterProductOptimal, their transposed
LinAlg variants, InferencingOptimal, TrainingOptimal) with a stride the dataflow proves
non-zero. Outer-product accumulates are covered by `coopvec-outer-product-layout`.

## Why is this bad

The runtime ignores the stride of optimal layouts, and the specifications say it must be
zero (DXC's Sema rejects a non-zero constant; the LinAlg validator requires constant 0). A
non-zero stride usually means the author believes the matrix is row- or column-major: the
data was probably written in the wrong layout.

## Example

```hlsl
MatrixRef<DATA_TYPE_FLOAT16, 16, 16, MATRIX_LAYOUT_MUL_OPTIMAL> m = {g_Weights, 0, 32};
```

```text
warning[coopvec-optimal-layout-nonzero-stride]: matrix stride is 32 bytes but the mul-optimal layout ignores it; it must be 0
```

## Use instead

```hlsl
MatrixRef<DATA_TYPE_FLOAT16, 16, 16, MATRIX_LAYOUT_MUL_OPTIMAL> m = {g_Weights, 0, 0};
```

## Options

None.

## Known limitations

- Strides the dataflow cannot bound are not reported.

## References

- HLSL proposal 0029, Cooperative Vector: <https://github.com/microsoft/hlsl-specs/blob/main/proposals/0029-cooperative-vector.md>
- HLSL proposal 0035, Linear Algebra Matrix: <https://github.com/microsoft/hlsl-specs/blob/main/proposals/0035-linalg-matrix.md>
"#;

/// Runs the rule.
pub fn check(cx: &mut RuleContext<'_>) {
    let m = cx.m;
    for (fact, mo) in matrix_facts(m) {
        if !is_coopvec_mul(mo) && !is_linalg_descriptor_op(mo) {
            continue;
        }
        let f = fact.function;
        let Some(layout) = cx.constant(f, mo.layout) else { continue };
        let Some((class, name)) = layout_class(mo.layout_numbering, layout) else { continue };
        if class == LayoutClass::RowOrColumn {
            continue;
        }
        let Some(stride_op) = mo.stride else { continue };
        let stride = cx.value(f, stride_op);
        let Some(certainty) = judge(&stride, |s| s != 0, |r, _| r != 0) else { continue };
        let Some(value) = finding_value(&stride) else { continue };
        let spec = cx.spec_note(f, &[mo.layout, mo.stride]);
        cx.emit(Finding {
            rule: META.id,
            certainty,
            force_error: false,
            message: format!("matrix stride is {value} bytes but the {name} layout ignores it; it must be 0{spec}"),
            help: Some("pass stride 0".into()),
            values: vec![("stride", value), ("layout", FindingValue::Text(name.into()))],
            at: At::Inst(f, fact.inst),
        });
    }
}

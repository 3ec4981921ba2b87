//! `coopvec-outer-product-layout` (HLSL proposal 0029, cooperative vectors).

use super::{finding_value, is_coopvec_outer_product, judge, layout_class, matrix_facts, At, Finding, LayoutClass};
use super::{RuleContext, RuleMeta};
use crate::report::{Certainty, FindingValue, Level};

/// Rule metadata.
pub const META: RuleMeta = RuleMeta {
    id: "coopvec-outer-product-layout",
    default_level: Some(Level::Error),
    summary: "outer-product accumulate without the outer-product-optimal layout, or with a non-zero stride",
    doc: DOC,
    options: &[],
};

const DOC: &str = r#"
## What it does

Flags DXIL preview `outerProductAccumulate` (op 307) and SPIR-V
`OpCooperativeVectorOuterProductAccumulateNV` calls whose layout is not
OuterProductOptimal (Vulkan: TrainingOptimal), or whose stride the dataflow proves
non-zero.

## Why is this bad

Outer-product accumulation is only defined for the outer-product-optimal layout with
stride 0 (DXC validator `ValidateImmOperandsForOuterProdAcc`; Vulkan
VUID-RuntimeSpirv-OpCooperativeVectorOuterProductAccumulateNV-10093). Any other layout
makes the shader invalid.

## Example

```hlsl
RWMatrixRef<DATA_TYPE_FLOAT16, 16, 16, MATRIX_LAYOUT_ROW_MAJOR> m = {g_Grad, 0, 32};
OuterProductAccumulate(a, b, m);
```

```text
error[coopvec-outer-product-layout]: outer-product accumulate uses the row-major layout; it requires the outer-product-optimal layout
```

## Use instead

```hlsl
RWMatrixRef<DATA_TYPE_FLOAT16, 16, 16, MATRIX_LAYOUT_OUTER_PRODUCT_OPTIMAL> m = {g_Grad, 0, 0};
```

## Options

None.

## Known limitations

- Strides the dataflow cannot bound are not reported.

## References

- HLSL proposal 0029, Cooperative Vector: <https://github.com/microsoft/hlsl-specs/blob/main/proposals/0029-cooperative-vector.md>
- `SPV_NV_cooperative_vector`: <https://github.khronos.org/SPIRV-Registry/extensions/NV/SPV_NV_cooperative_vector.html>
"#;

/// Runs the rule.
pub fn check(cx: &mut RuleContext<'_>) {
    let m = cx.m;
    for (fact, mo) in matrix_facts(m) {
        if !is_coopvec_outer_product(mo) {
            continue;
        }
        let f = fact.function;
        let Some(layout) = cx.constant(f, mo.layout) else { continue };
        let Some((class, name)) = layout_class(mo.layout_numbering, layout) else { continue };
        let spec = cx.spec_note(f, &[mo.layout, mo.stride]);
        if class != LayoutClass::OuterProductOptimal {
            let want = if mo.layout_numbering == crate::ir::LayoutNumbering::SpirvNv {
                "training-optimal"
            } else {
                "outer-product-optimal"
            };
            cx.emit(Finding {
                rule: META.id,
                certainty: Certainty::Proven,
                force_error: false,
                message: format!(
                    "outer-product accumulate uses the {name} layout; it requires the {want} layout{spec}"
                ),
                help: Some(format!("use the {want} layout with stride 0")),
                values: vec![("layout", FindingValue::Text(name.into()))],
                at: At::Inst(f, fact.inst),
            });
            continue;
        }
        let Some(stride_op) = mo.stride else { continue };
        let stride = cx.value(f, stride_op);
        let Some(certainty) = judge(&stride, |s| s != 0, |r, _| r != 0) else { continue };
        let Some(value) = finding_value(&stride) else { continue };
        cx.emit(Finding {
            rule: META.id,
            certainty,
            force_error: false,
            message: format!("outer-product accumulate stride is {value} bytes; it must be 0{spec}"),
            help: Some("pass stride 0".into()),
            values: vec![("layout", FindingValue::Text(name.into())), ("stride", value)],
            at: At::Inst(f, fact.inst),
        });
    }
}

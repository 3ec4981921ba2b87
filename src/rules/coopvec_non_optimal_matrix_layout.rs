//! `coopvec-non-optimal-matrix-layout` (HLSL proposal 0029, cooperative vectors; off by default).

use super::{is_coopvec_mul, layout_class, matrix_facts, At, Finding, LayoutClass, RuleContext, RuleMeta};
use crate::ir::MatrixEncoding;
use crate::report::{Certainty, FindingValue};

/// Rule metadata.
pub const META: RuleMeta = RuleMeta {
    id: "coopvec-non-optimal-matrix-layout",
    default_level: None,
    summary: "row- or column-major matrix in a matrix-vector multiply (slower than an optimal layout)",
    doc: DOC,
    options: &[],
};

const DOC: &str = r#"
## What it does

Off by default. Reports matrix-vector multiplies whose matrix is
row-major or column-major: DXIL preview `matVecMul`/`matVecMulAdd`, SPIR-V
`OpCooperativeVectorMatrixMul[Add]NV`, and thread-scope SM 6.10 LinAlg descriptor loads
(the matrices that feed `linAlgMatVecMul`). Opt in with `warn` (reported as warnings)
or `deny`.

## Why is this bad

Row- and column-major matrices work, but every vendor's matrix engine reads its own
swizzled optimal layout faster; converting the weights once on upload
(`D3D12` linear-algebra matrix conversion, `vkConvertCooperativeVectorMatrixNV`) removes the
per-call reformatting.

## Example

```hlsl
MatrixRef<DATA_TYPE_FLOAT16, 16, 16, MATRIX_LAYOUT_ROW_MAJOR> m = {g_Weights, 0, 32};
```

```text
warning[coopvec-non-optimal-matrix-layout]: row-major matrix in a matrix-vector multiply; an optimal layout is faster on every vendor
```

## Use instead

```hlsl
MatrixRef<DATA_TYPE_FLOAT16, 16, 16, MATRIX_LAYOUT_MUL_OPTIMAL> m = {g_Weights, 0, 0};
```

## Options

None.

## Known limitations

- Matrices that are written by the shader itself (training) may need a row/column-major
  copy; silence the rule for them.

## References

- HLSL proposal 0029, Cooperative Vector: <https://github.com/microsoft/hlsl-specs/blob/main/proposals/0029-cooperative-vector.md>
- Vulkan `vkConvertCooperativeVectorMatrixNV`: <https://registry.khronos.org/vulkan/specs/latest/man/html/vkConvertCooperativeVectorMatrixNV.html>
"#;

/// Runs the rule.
pub fn check(cx: &mut RuleContext<'_>) {
    let m = cx.m;
    for (fact, mo) in matrix_facts(m) {
        let linalg_thread_load =
            mo.encoding == MatrixEncoding::DxilLinAlg && mo.opcode & 0x7FFF_FFFF == 14 && mo.scope == Some(0);
        if !is_coopvec_mul(mo) && !linalg_thread_load {
            continue;
        }
        let f = fact.function;
        let Some(layout) = cx.constant(f, mo.layout) else { continue };
        let Some((LayoutClass::RowOrColumn, name)) = layout_class(mo.layout_numbering, layout) else { continue };
        let spec = cx.spec_note(f, &[mo.layout]);
        cx.emit(Finding {
            rule: META.id,
            certainty: Certainty::Proven,
            force_error: false,
            message: format!(
                "{name} matrix in a matrix-vector multiply; an optimal layout is faster on every vendor{spec}"
            ),
            help: Some("convert the matrix to an optimal layout on upload and pass stride 0".into()),
            values: vec![("layout", FindingValue::Text(name.into()))],
            at: At::Inst(f, fact.inst),
        });
    }
}

//! `coopvec-stride-mismatch` (HLSL proposal 0029, cooperative vectors).

use super::{finding_value, judge, matrix_facts, or_list, At, Finding, RuleContext, RuleMeta};
use crate::analysis::AbsValue;
use crate::ir::{ComponentNumbering, MatrixEncoding, MatrixMemOp, MatrixOpKind};
use crate::report::{FindingValue, Level};

/// Rule metadata.
pub const META: RuleMeta = RuleMeta {
    id: "coopvec-stride-mismatch",
    default_level: Some(Level::Error),
    summary: "row- or column-major matrix whose stride is not the natural one for its shape and element type",
    doc: DOC,
    options: &[],
};

const DOC: &str = r#"
## What it does

Checks every cooperative-vector / linear-algebra matrix memory operation that uses a
**row-major** or **column-major** layout: the stride (bytes between rows, or between
columns) must be the natural one for the matrix shape and element type, rounded up to
16 bytes.

- Row-major: natural stride = columns × element size (preview ops and SPIR-V: K × size;
  SM 6.10 LinAlg: N × size). Column-major: rows × element size (M × size).
- Element sizes: I8/U8/F8 1 byte; I16/U16/F16/BF16 2; I32/U32/F32 4; I64/U64/F64 8.
- Encodings: DXIL preview `matVecMul` (305) / `matVecMulAdd` (306); SM 6.10
  `linAlgMatrixLoadFromDescriptor`, `…StoreToDescriptor`, `…AccumulateToDescriptor`;
  SPIR-V `OpCooperativeVectorMatrixMulNV` / `…MulAddNV`.
- LinAlg matrices of Wave or ThreadGroup scope are tiles that may sit inside a larger
  matrix: for them the rule fires only when the stride is smaller than the natural one
  (rows overlap) or not a multiple of 16.

The stride comes from the dataflow: a constant, a set of constants (a branch picks one;
the finding is then `possible` and reported one level lower), or a congruence. SPIR-V
spec constants are evaluated at their default value (or the `--spec-constant` value) and
the message says which values it assumed.

## Why is this bad

With a row/column-major layout the matrix engine advances by exactly the stride per row.
A stride that does not match how the matrix was written makes it read the wrong bytes: the
results are silently wrong (zeros or NaNs), with no runtime error. The specifications
(HLSL proposals 0029 and 0035, `VK_NV_cooperative_vector`) also require the stride of
non-optimal layouts to be 16-byte aligned.

## Example

```hlsl
// A 16 x 16 half matrix has 32-byte rows; the call says 16.
using Weights = Matrix<ComponentType::F16, 16, 16, MatrixUse::A, MatrixScope::Thread>;
Weights w = Weights::Load<MatrixLayoutEnum::RowMajor>(g_Weights, 0, 16);
```

```llvm
%11 = call %dx.types.LinAlgMatrixC8M16N16U0S0 @dx.op.linAlgMatrixLoadFromDescriptor.mC8M16N16U0S0(i32 -2147483634, %dx.types.Handle %10, i32 0, i32 16, i32 0, i32 128)
```

```text
error[coopvec-stride-mismatch]: matrix stride is 16 bytes but a 16x16 f16 row-major matrix has 32-byte rows
  = help: use stride 32, or an optimal layout
```

## Use instead

```hlsl
Weights w = Weights::Load<MatrixLayoutEnum::RowMajor>(g_Weights, 0, 32);
// or, better for performance, convert the matrix to an optimal layout on upload:
Weights w = Weights::Load<MatrixLayoutEnum::MulOptimal>(g_Weights, 0, 0);
```

## Options

None.

## Known limitations

- Optimal layouts never fire this rule (their stride is ignored by the runtime).
- SPIR-V `SPV_KHR_cooperative_matrix` loads and stores (stride in elements) and LinAlg
  groupshared (`…FromMemory` / `…ToMemory`) operations are not judged.
- A stride the dataflow cannot bound (a value loaded from a buffer, a congruence that
  admits the expected stride) is not reported.
- No fix is offered: the right stride depends on how the buffer was written.

## References

- HLSL proposal 0029, Cooperative Vector: <https://github.com/microsoft/hlsl-specs/blob/main/proposals/0029-cooperative-vector.md>
- HLSL proposal 0035, Linear Algebra Matrix: <https://github.com/microsoft/hlsl-specs/blob/main/proposals/0035-linalg-matrix.md>
- `SPV_NV_cooperative_vector`: <https://github.khronos.org/SPIRV-Registry/extensions/NV/SPV_NV_cooperative_vector.html>
"#;

/// Element size in bytes and display name of an interpretation / component type.
pub fn element_info(numbering: ComponentNumbering, v: u64) -> Option<(u64, &'static str)> {
    match numbering {
        ComponentNumbering::Spirv => Some(match v {
            0 => (2, "f16"),
            1 => (4, "f32"),
            2 => (8, "f64"),
            3 => (1, "i8"),
            4 => (2, "i16"),
            5 => (4, "i32"),
            6 => (8, "i64"),
            7 => (1, "u8"),
            8 => (2, "u16"),
            9 => (4, "u32"),
            10 => (8, "u64"),
            1_000_141_000 => (2, "bf16"),
            1_000_491_002 => (1, "f8e4m3"),
            1_000_491_003 => (1, "f8e5m2"),
            _ => return None,
        }),
        ComponentNumbering::Dxil | ComponentNumbering::DxilPreview => {
            let preview = numbering == ComponentNumbering::DxilPreview;
            Some(match v {
                2 => (2, "i16"),
                3 => (2, "u16"),
                4 => (4, "i32"),
                5 => (4, "u32"),
                6 => (8, "i64"),
                7 => (8, "u64"),
                8 => (2, "f16"),
                9 => (4, "f32"),
                10 => (8, "f64"),
                19 => (1, if preview { "u8" } else { "i8" }),
                20 => (1, if preview { "i8" } else { "u8" }),
                21 => (1, "f8e4m3"),
                22 => (1, "f8e5m2"),
                23 => (2, "bf16"),
                _ => return None,
            })
        }
    }
}

/// The op kinds / opcodes this rule judges.
fn judged(mo: &MatrixMemOp) -> bool {
    match mo.encoding {
        MatrixEncoding::DxilPreview | MatrixEncoding::SpirvCoopVec => {
            matches!(mo.op, MatrixOpKind::MatVecMul | MatrixOpKind::MatVecMulAdd)
        }
        // LoadFromDescriptor 14, StoreToDescriptor 20, AccumulateToDescriptor 27.
        MatrixEncoding::DxilLinAlg => matches!(mo.opcode & 0x7FFF_FFFF, 14 | 20 | 27),
        _ => false,
    }
}

fn stride_text(v: &AbsValue) -> String {
    match v {
        AbsValue::Set(s) => format!("{} bytes", or_list(s)),
        other => match other.known_low() {
            Some((rem, k)) => format!("always {rem} mod {} bytes", 1u64 << k),
            None => other.describe(),
        },
    }
}

/// Runs the rule.
pub fn check(cx: &mut RuleContext<'_>) {
    let m = cx.m;
    for (fact, mo) in matrix_facts(m) {
        if !judged(mo) {
            continue;
        }
        let f = fact.function;
        let (Some(layout), Some(rows), Some(cols), Some(elem)) =
            (cx.constant(f, mo.layout), cx.constant(f, mo.rows), cx.constant(f, mo.cols), cx.constant(f, mo.element))
        else {
            continue;
        };
        // Row/column-major are 0/1 in every numbering (preview, LinAlg, SPIR-V NV).
        let row_major = match layout {
            0 => true,
            1 => false,
            _ => continue,
        };
        let Some((size, elem_name)) = element_info(mo.element_numbering, elem) else { continue };
        let Some(stride_op) = mo.stride else { continue };
        let stride = cx.value(f, stride_op);
        let natural = if row_major { cols } else { rows }.saturating_mul(size);
        let expected = natural.saturating_add(15) / 16 * 16;
        let tile = mo.encoding == MatrixEncoding::DxilLinAlg && matches!(mo.scope, Some(1 | 2));
        let certainty = if tile {
            judge(&stride, |s| s < natural || s % 16 != 0, |r, k| k >= 4 && r % 16 != 0)
        } else {
            judge(&stride, |s| s != expected, |r, k| k >= 64 || expected & ((1u64 << k) - 1) != r)
        };
        let Some(certainty) = certainty else { continue };
        let Some(stride_value) = finding_value(&stride) else { continue };
        let layout_name = if row_major { "row-major" } else { "column-major" };
        let unit = if row_major { "rows" } else { "columns" };
        let padded = if natural != expected { format!(" ({expected} when padded to 16 bytes)") } else { String::new() };
        let spec = cx.spec_note(f, &[mo.layout, mo.rows, mo.cols, mo.element, mo.stride]);
        let a = article(rows);
        let (message, help) = if tile {
            let scope = if mo.scope == Some(1) { "wave" } else { "thread-group" };
            (
                format!(
                    "matrix stride is {} but {a} {rows}x{cols} {elem_name} {layout_name} {scope}-scope tile needs at \
                     least {natural} bytes and a multiple of 16{spec}",
                    stride_text(&stride)
                ),
                format!("use stride {expected}, or a larger multiple of 16"),
            )
        } else {
            (
                format!(
                    "matrix stride is {} but {a} {rows}x{cols} {elem_name} {layout_name} matrix has {natural}-byte \
                     {unit}{padded}{spec}",
                    stride_text(&stride)
                ),
                format!("use stride {expected}, or an optimal layout"),
            )
        };
        cx.emit(Finding {
            rule: META.id,
            certainty,
            force_error: false,
            message,
            help: Some(help),
            values: vec![
                ("stride", stride_value),
                ("expected", FindingValue::Int(expected)),
                ("rows", FindingValue::Int(rows)),
                ("cols", FindingValue::Int(cols)),
                ("element", FindingValue::Text(elem_name.into())),
                ("layout", FindingValue::Text(layout_name.into())),
            ],
            at: At::Inst(f, fact.inst),
        });
    }
}

/// `a` or `an` before a number as it is read aloud: "an 8x4", "an 11x16",
/// "an 18x2", "an 80x8", "a 16x16".
pub fn article(n: u64) -> &'static str {
    let s = n.to_string();
    let eleven_or_eighteen = (s.starts_with("11") || s.starts_with("18")) && s.len() % 3 == 2;
    if s.starts_with('8') || eleven_or_eighteen {
        "an"
    } else {
        "a"
    }
}

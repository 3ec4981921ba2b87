//! `long-vector-bytebuf-load-misaligned` and its sibling
//! `long-vector-bytebuf-store-misaligned` (HLSL proposal 0030, DXIL vectors).

use super::{finding_value, judge, or_list, At, Finding, RuleContext, RuleMeta};
use crate::analysis::AbsValue;
use crate::ir::{FactKind, RawVectorAccess, ResourceKind};
use crate::report::{Certainty, FindingValue, Level};

/// Load rule metadata.
pub const LOAD_META: RuleMeta = RuleMeta {
    id: "long-vector-bytebuf-load-misaligned",
    default_level: Some(Level::Warning),
    summary: "long-vector load from a byte-address buffer at an offset that is not aligned for its size",
    doc: LOAD_DOC,
    options: &[],
};

/// Store rule metadata.
pub const STORE_META: RuleMeta = RuleMeta {
    id: "long-vector-bytebuf-store-misaligned",
    default_level: Some(Level::Warning),
    summary: "long-vector store to a byte-address buffer at an offset that is not aligned for its size",
    doc: STORE_DOC,
    options: &[],
};

const LOAD_DOC: &str = r#"
## What it does

Checks long-vector loads (5 or more components) from a `ByteAddressBuffer` /
`RWByteAddressBuffer` (DXIL `rawBufferVectorLoad`, op 303, on a raw-buffer resource; the
byte offset is the `index` operand). The byte offset must be a multiple of the preferred
alignment:

| Component size | Components | Required alignment |
|---|---|---|
| 16-bit | any | 16 bytes |
| 32-bit | 5–7 | 16 bytes |
| 32-bit | 8 or more | 32 bytes |
| 64-bit | any | 32 bytes |

The offset comes from the dataflow: a constant, a set of constants (then the finding is
`possible` when only some members are misaligned, and is reported one level lower), or a
congruence such as `12 mod 64` (`tid * 64 + 12`), which is reported when every member is
misaligned. When the offset is not even a multiple of the component size the access is
undefined behaviour: the message says so first and the level is `error`.

## Why is this bad

Long-vector loads lower to wide cache fetches. A misaligned start address straddles cache
lines, so the load is split into more transactions on every vendor; an offset that is not
a multiple of the component size is undefined behaviour per the long-vector specification
(HLSL proposal 0026) and may fault on stricter implementations.

## Example

```hlsl
ByteAddressBuffer g_Data : register(t0);
[numthreads(32, 1, 1)]
void main(uint tid : SV_DispatchThreadID) {
  vector<float, 8> v = g_Data.Load<vector<float, 8> >(tid * 64 + 12); // always 12 mod 64
}
```

```llvm
%4 = shl i32 %3, 6
%5 = or i32 %4, 12
%7 = call %dx.types.ResRet.v8f32 @dx.op.rawBufferVectorLoad.v8f32(i32 303, %dx.types.Handle %6, i32 %5, i32 undef, i32 4)
```

```text
warning[long-vector-bytebuf-load-misaligned]: byte offset is always 12 mod 64, never 32-byte aligned
```

## Use instead

```hlsl
vector<float, 8> v = g_Data.Load<vector<float, 8> >(tid * 64 + 32);
```

Lay the buffer out so that every long vector starts at a multiple of its alignment (pad
the preceding fields).

## Options

None.

## Known limitations

- Offsets the dataflow cannot bound (loaded from a buffer, or a congruence that admits
  aligned values, such as `tid * 16` against a 32-byte alignment) are not reported.
- Short vectors (4 components or fewer) and StructuredBuffer accesses are not checked.
- SPIR-V long vectors are checked only where the front end records a raw-buffer access
  (DXC and Slang do not emit them today).

## References

- HLSL proposal 0026, HLSL long vectors: <https://github.com/microsoft/hlsl-specs/blob/main/proposals/0026-hlsl-long-vector-type.md>
- HLSL proposal 0030, DXIL vectors: <https://github.com/microsoft/hlsl-specs/blob/main/proposals/0030-dxil-vectors.md>
"#;

const STORE_DOC: &str = r#"
## What it does

The store-side sibling of `long-vector-bytebuf-load-misaligned`: checks long-vector stores
(5 or more components) to a `RWByteAddressBuffer` (DXIL `rawBufferVectorStore`, op 304; the
byte offset is the `index` operand) against the same alignment table: 16 bytes for 16-bit
components, 32 bytes for 8 or more 32-bit components (16 for 5–7), 32 bytes for 64-bit
components. Sets of constants give `possible` findings one level lower; an offset that is
not a multiple of the component size is undefined behaviour and reported as an `error`.

## Why is this bad

A misaligned long-vector store straddles cache lines and is split into several partial
writes; an offset that is not a multiple of the component size is undefined behaviour per
the long-vector specification.

## Example

```hlsl
RWByteAddressBuffer g_Out : register(u0);
[numthreads(32, 1, 1)]
void main(uint tid : SV_DispatchThreadID) {
  vector<float, 8> v = 0;
  g_Out.Store<vector<float, 8> >(tid * 32 + 16, v); // always 16 mod 32
}
```

```text
warning[long-vector-bytebuf-store-misaligned]: byte offset is always 16 mod 32, never 32-byte aligned
```

## Use instead

```hlsl
g_Out.Store<vector<float, 8> >(tid * 32, v);
```

## Options

None.

## Known limitations

- Offsets the dataflow cannot bound are not reported.
- Short vectors (4 components or fewer) and StructuredBuffer accesses are not checked.

## References

- HLSL proposal 0026, HLSL long vectors: <https://github.com/microsoft/hlsl-specs/blob/main/proposals/0026-hlsl-long-vector-type.md>
- HLSL proposal 0030, DXIL vectors: <https://github.com/microsoft/hlsl-specs/blob/main/proposals/0030-dxil-vectors.md>
"#;

/// Required alignment for a long vector of `count` components of `bytes` each.
pub fn required_alignment(bytes: u32, count: u32) -> Option<u64> {
    match bytes {
        2 => Some(16),
        4 => Some(if count >= 8 { 32 } else { 16 }),
        8 => Some(32),
        _ => None,
    }
}

/// Runs the load rule.
pub fn check_loads(cx: &mut RuleContext<'_>) {
    check(cx, false);
}

/// Runs the store rule.
pub fn check_stores(cx: &mut RuleContext<'_>) {
    check(cx, true);
}

fn check(cx: &mut RuleContext<'_>, stores: bool) {
    let m = cx.m;
    let rule = if stores { STORE_META.id } else { LOAD_META.id };
    for fact in &m.facts {
        let FactKind::RawVector(acc) = &fact.kind else { continue };
        if acc.store != stores || acc.count < 5 {
            continue;
        }
        let kind = acc.resource.and_then(|r| m.resources.try_get(r)).map(|r| r.kind).or(acc.kind);
        if kind != Some(ResourceKind::RAW_BUFFER) {
            continue;
        }
        let Some(align) = required_alignment(acc.component_bytes, acc.count) else { continue };
        let f = fact.function;
        let offset = cx.value(f, acc.index);
        let comp = u64::from(acc.component_bytes);
        let Some(certainty) = judge(&offset, |v| v % align != 0, |r, k| r % align.min(1u64 << k) != 0) else {
            continue;
        };
        let Some(offset_value) = finding_value(&offset) else { continue };
        let (message, ub) = message(acc, &offset, align, comp, certainty);
        let spec = cx.spec_note(f, &[Some(acc.index)]);
        cx.emit(Finding {
            rule,
            certainty,
            force_error: ub,
            message: format!("{message}{spec}"),
            help: Some(format!("align the offset to {align} bytes in the buffer layout")),
            values: vec![
                ("offset", offset_value),
                ("align", FindingValue::Int(align)),
                ("element", FindingValue::Text(element_name(acc))),
                ("count", FindingValue::Int(u64::from(acc.count))),
            ],
            at: At::Inst(f, fact.inst),
        });
    }
}

fn element_name(acc: &RawVectorAccess) -> String {
    format!("{}{}", if acc.float { 'f' } else { 'i' }, acc.component_bytes * 8)
}

fn next_aligned(v: u64, align: u64) -> u64 {
    v.div_ceil(align).saturating_mul(align)
}

/// The message, and whether the offset is (possibly) not a multiple of the
/// component size (undefined behaviour → level error).
fn message(acc: &RawVectorAccess, offset: &AbsValue, align: u64, comp: u64, certainty: Certainty) -> (String, bool) {
    let what = format!("{} x {} {}", acc.count, element_name(acc), if acc.store { "store" } else { "load" });
    let ub_text = format!("not a multiple of the {comp}-byte component size (undefined behaviour)");
    match offset {
        AbsValue::Set(s) if s.len() == 1 => {
            let v = s[0];
            let main = format!(
                "{what} at byte offset {v} is not {align}-byte aligned (next aligned offset: {})",
                next_aligned(v, align)
            );
            if v % comp != 0 {
                (format!("byte offset {v} is {ub_text}; {main}"), true)
            } else {
                (main, false)
            }
        }
        AbsValue::Set(s) => {
            let bad: Vec<u64> = s.iter().copied().filter(|v| v % align != 0).collect();
            let ub: Vec<u64> = s.iter().copied().filter(|v| v % comp != 0).collect();
            let main = if certainty == Certainty::Proven {
                format!("{what} at byte offset {} is never {align}-byte aligned", or_list(s))
            } else {
                format!(
                    "{what} at byte offset {} is not always {align}-byte aligned ({} {} not)",
                    or_list(s),
                    or_list(&bad),
                    if bad.len() == 1 { "is" } else { "are" }
                )
            };
            if ub.is_empty() {
                (main, false)
            } else {
                (format!("byte offset {} is {ub_text}; {main}", or_list(&ub)), true)
            }
        }
        other => match other.known_low() {
            Some((rem, k)) => {
                let modulus = 1u64 << k;
                if rem % comp.min(modulus) != 0 {
                    (
                        format!("byte offset is always {rem} mod {modulus}, {ub_text}, and never {align}-byte aligned"),
                        true,
                    )
                } else {
                    (format!("byte offset is always {rem} mod {modulus}, never {align}-byte aligned"), false)
                }
            }
            None => (format!("{what} at byte offset {} is not {align}-byte aligned", other.describe()), false),
        },
    }
}

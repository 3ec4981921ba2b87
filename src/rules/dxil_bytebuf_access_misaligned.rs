//! `dxil-bytebuf-access-misaligned` (the aligned-access rules: `access_align`).

use super::access_align::{accesses, address_value, bases, emit, misaligned, Report};
use super::{RuleContext, RuleMeta};
use crate::ir::{AccessKind, AddrRoot, Operand};
use crate::report::{FindingValue, Level};

/// Rule metadata.
pub const META: RuleMeta = RuleMeta {
    id: "dxil-bytebuf-access-misaligned",
    default_level: Some(Level::Error),
    summary: "byte-address-buffer load or store at an offset that is not a multiple of its alignment",
    doc: DOC,
    options: &[],
};

const DOC: &str = r#"
## What it does

Checks every load and store of a `ByteAddressBuffer` / `RWByteAddressBuffer` of 4 or fewer
components — DXIL `bufferLoad` / `bufferStore` (68/69, shader model 6.0–6.1),
`rawBufferLoad` / `rawBufferStore` (139/140) and `rawBufferVectorLoad` / `Store` (303/304,
shader model 6.9) — against the alignment the operation declares: its `alignment` operand
(DXC writes the component size: 2 for `half`, 4 for `float`, 8 for `double`), and at least
4 bytes for 32-bit components (and for `bufferLoad` / `bufferStore`, which have no
`alignment` operand). The byte offset is the `index` operand.

The offset comes from the dataflow: a constant, a set of constants (`possible` when only
some members are misaligned: reported one level lower, as a warning, because the
misaligned arm may never run), or a congruence such as `2 mod 4` (`tid * 8 + 2`), reported
when every admitted value is misaligned. Long vectors (5 or more components) are the
`long-vector-bytebuf-*` rules' business and are not checked here.

## Why is this bad

Byte-address buffers are addressed in 32-bit words. The HLSL reference for
`ByteAddressBuffer::Load` / `Load4` describes the `address` parameter as "The input address
in bytes, which must be a multiple of 4." For the templated loads and stores of shader
model 6.2+, DXC's documentation ("ByteAddressBuffer Load Store Additions") says: "The
byteOffset should be aligned by the size (in bytes) of the largest scalar type contained
within type T. For instance, if the largest type is uint64_t, byteOffset must be aligned
by 8. If the largest type is float16_t, then the minimum alignment required is 2." — the
`alignment` operand DXC writes. Hardware addresses the word and drops the low bits: the
rust-gpu `ByteAddressableBuffer`, which mirrors HLSL, documents that a misaligned
`byte_index` "will be rounded down to the nearest multiple of 4", so the access silently
reads or writes the neighbouring bytes.

## Example

```hlsl
RWByteAddressBuffer g_Out : register(u0);
[numthreads(64, 1, 1)]
void main(uint tid : SV_DispatchThreadID) {
  g_Out.Store(tid * 8 + 2, tid); // always 2 mod 8: the word at tid * 8 is written
}
```

```llvm
%3 = shl i32 %2, 3
%4 = or i32 %3, 2
call void @dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %1, i32 %4, i32 undef, i32 %2, i32 undef, i32 undef, i32 undef, i8 1, i32 4)
```

```text
error[dxil-bytebuf-access-misaligned]: byte offset is always 2 mod 8, never 4-byte aligned (1 x 4-byte store, alignment 4)
```

The same shape is what Tint's HLSL writer guards against when it lowers WGSL storage
buffers to `ByteAddressBuffer` (`sb.Load4(offset + 0u)`, `sb.Load(offset + 16u)`: every
offset it emits is a multiple of 4), and what rust-gpu documents for its
`ByteAddressableBuffer` port of the HLSL type: a misaligned index is rounded down.

## Use instead

```hlsl
g_Out.Store(tid * 8 + 4, tid);
```

Pad records to a multiple of 4 bytes, or read 16-bit fields with `Load<uint16_t>` (whose
alignment is 2).

## Options

None.

## Known limitations

- Offsets the dataflow cannot bound are not reported.
- Structured buffers (whose offsets the layout aligns) and typed buffers are not checked.
- A `possible` finding comes from one arm of a phi or select; it is a warning, not an error.

## References

- DXC wiki, ByteAddressBuffer Load Store Additions: <https://github.com/microsoft/DirectXShaderCompiler/wiki/ByteAddressBuffer-Load-Store-Additions>
- rust-gpu `ByteAddressableBuffer`: <https://docs.rs/spirv-std/latest/spirv_std/byte_addressable_buffer/index.html>
- `ByteAddressBuffer::Load`: <https://learn.microsoft.com/en-us/windows/win32/direct3dhlsl/sm5-object-byteaddressbuffer-load>
- DXIL `RawBufferLoad` / `RawBufferStore`: <https://github.com/microsoft/DirectXShaderCompiler/blob/main/docs/DXIL.rst>
"#;

/// Runs the rule.
pub fn check(cx: &mut RuleContext<'_>) {
    let bases = bases(cx);
    for (f, inst, a) in accesses(cx, AccessKind::DxilByteBuffer) {
        let comp = u64::from(a.component_bytes);
        let declared = a.declared.unwrap_or(comp.max(1));
        let align = declared.max(a.required.unwrap_or(1));
        let (value, _) = address_value(cx, f, &a.address, &bases);
        let Some(certainty) = misaligned(&value, align) else { continue };
        let what =
            format!("{} x {}-byte {}", a.count.max(1), a.component_bytes, if a.store { "store" } else { "load" });
        let op = match a.address.root {
            AddrRoot::Int(v) => Some(Operand::Value(v)),
            _ => None,
        };
        emit(
            cx,
            Report {
                rule: META.id,
                f,
                inst,
                what: "byte offset",
                value,
                align,
                certainty,
                why: format!("{what}, alignment {align}"),
                base_from: None,
                help: format!("make the byte offset a multiple of {align}"),
                extra: vec![("width", FindingValue::Int(comp * u64::from(a.count.max(1))))],
            },
            &[op],
        );
    }
}

//! `spirv-access-misaligned` (the aligned-access rules: `access_align`).

use super::access_align::{accesses, address_value, bases, emit, misaligned, Report};
use super::{RuleContext, RuleMeta};
use crate::ir::{AccessKind, AddrRoot, Operand};
use crate::report::{FindingValue, Level};

/// Rule metadata.
pub const META: RuleMeta = RuleMeta {
    id: "spirv-access-misaligned",
    default_level: Some(Level::Error),
    summary: "load or store through a PhysicalStorageBuffer pointer whose address breaks its Aligned operand",
    doc: DOC,
    options: &[],
};

const DOC: &str = r#"
## What it does

Checks `OpLoad`, `OpStore`, `OpCopyMemory` and `OpCopyMemorySized` through
`PhysicalStorageBuffer` pointers (buffer device addresses: GLSL `GL_EXT_buffer_reference`,
HLSL `vk::RawBufferLoad`, Slang pointers) against their `Aligned` memory operand. The
address is rebuilt from the pointer's origin:

- `OpConvertUToPtr` (or `OpBitcast`) of an integer whose value the dataflow knows: a
  constant, or known low bits such as `(addr & ~15) + 4` (always `4 mod 16`);
- the access chains on the way, through the `Offset` of struct members, the `ArrayStride`
  of arrays (and of the pointer type for `OpPtrAccessChain`) and vector components;
- another access through the same pointer (or the same integer) at a constant offset with
  a larger `Aligned`, which asserts the base's alignment: with `p.v` accessed `Aligned 16`,
  an access to `Ref(addr + 4)` with `Aligned 16` is `4 mod 16`.

A finding says what the address always is (`always 4 mod 16`) and, when the base came from
another access, which one. Unknown addresses stay silent. A set of addresses of which only
some are misaligned (one arm of a phi) is `possible` and reported one level lower (a
warning): the misaligned arm may never run.

## Why is this bad

The SPIR-V specification defines the `Aligned` memory operand as "This access has a known
alignment, provided as a literal in the next operand" — a promise the driver compiles
against (wide, aligned memory instructions). The Vulkan environment requires the operand on
every physical-pointer access (VUID-StandaloneSpirv-PhysicalStorageBuffer64-04708: "If the
PhysicalStorageBuffer64 addressing model is enabled, all instructions that support memory
access operands and that use a physical pointer must include the Aligned operand") and the
promise to hold at run time (VUID-RuntimeSpirv-PhysicalStorageBuffer64-06315: "If the
PhysicalStorageBuffer64 addressing model is enabled the pointer value of a memory access
instruction must be at least as aligned as specified by the Aligned memory access
operand"). GLSL fills the operand from `buffer_reference_align` (16 when absent) and the
member offsets. A pointer that breaks it is undefined behaviour: a torn or shifted access on
some GPUs, a fault on others. `spirv-val` checks that the operand exists, never the address;
GPU-assisted validation checks 06315 only on the addresses that run.

## Example

```glsl
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Vec4s { vec4 v[]; };
layout(push_constant) uniform Push { uint64_t base; } pc;
void main() {
  uint64_t addr = pc.base & ~uint64_t(15);
  Vec4s p = Vec4s(addr + 4);                  // always 4 mod 16
  p.v[gl_GlobalInvocationID.x] = vec4(1.0);   // OpStore ... Aligned 16
}
```

```text
error[spirv-access-misaligned]: pointer is always 4 mod 16, never 16-byte aligned (Aligned 16)
```

A real case: llama.cpp's Vulkan `im2col` shaders declared their output reference as
`layout(buffer_reference) buffer D_ptr {D_TYPE d;}` with no `buffer_reference_align`, so
glslang wrote every store `Aligned 16` while the pointer advanced by 2 or 4 bytes;
GPU-assisted validation reported VUID-06315 20 times per shader (ggml-org/llama.cpp#28960,
fixed in #28996 by declaring `buffer_reference_align = D_SIZE`). There some addresses were
aligned and others not, so this rule, which reports only addresses it proves misaligned,
stays silent on that shape; it catches the constant and congruent cases above.

## Use instead

```glsl
Vec4s p = Vec4s(addr + 16);
```

Round device addresses up to the `buffer_reference_align` the shader declares, or declare
the alignment the data really has.

## Options

None.

## Known limitations

- Pointers loaded from memory and function parameters are known only through other
  accesses of the same value; two loads of the same push-constant field are different values.
- Access chains through matrices (`MatrixStride`) and arrays without `ArrayStride` are not
  followed.
- Function-local variables are looked through only when stored exactly once (glslang's
  unoptimised output).

## References

- SPIR-V specification, Memory Operands: <https://registry.khronos.org/SPIR-V/specs/unified1/SPIRV.html#Memory_Operands>
- Vulkan, Standalone SPIR-V validation (VUID-StandaloneSpirv-PhysicalStorageBuffer64-04708): <https://registry.khronos.org/vulkan/specs/latest/html/vkspec.html#spirvenv-module-validation-standalone>
- Vulkan, Runtime SPIR-V validation (VUID-RuntimeSpirv-PhysicalStorageBuffer64-06315): <https://registry.khronos.org/vulkan/specs/latest/html/vkspec.html#spirvenv-module-validation-runtime>
- GLSL `GL_EXT_buffer_reference`: <https://github.com/KhronosGroup/GLSL/blob/main/extensions/ext/GLSL_EXT_buffer_reference.txt>
- llama.cpp im2col report and fix: <https://github.com/ggml-org/llama.cpp/issues/28960>, <https://github.com/ggml-org/llama.cpp/pull/28996>
"#;

/// Runs the rule.
pub fn check(cx: &mut RuleContext<'_>) {
    let bases = bases(cx);
    for (f, inst, a) in accesses(cx, AccessKind::SpirvAligned) {
        let Some(align) = a.declared else { continue };
        let (value, from) = address_value(cx, f, &a.address, &bases);
        let Some(certainty) = misaligned(&value, align) else { continue };
        let op = match a.address.root {
            AddrRoot::Int(v) => Some(Operand::Value(v)),
            _ => None,
        };
        let what = if a.operand == "pointer" { "pointer".to_string() } else { format!("{} pointer", a.operand) };
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
                why: format!("Aligned {align}"),
                base_from: from.filter(|h| *h != inst),
                help: format!("make the address a multiple of {align}, or declare the alignment it has"),
                extra: vec![("declared", FindingValue::Int(align))],
            },
            &[op],
        );
    }
}

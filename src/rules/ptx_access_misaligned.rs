//! `ptx-access-misaligned`: a PTX memory access (`ld`, `ldu`, `st`, `atom`,
//! `red`, `multimem`, `cp.async`, `cp.async.bulk`) whose address the dataflow
//! proves is not aligned to the access size the PTX ISA requires.

use super::atom_ptx::ptx_line;
use super::{finding_value, judge, or_list, At, Finding, RuleContext, RuleMeta};
use crate::analysis::AbsValue;
use crate::ir::{access_operands, AccessAlign, Operand};
use crate::report::{Certainty, FindingValue, Level};

/// Rule metadata.
pub const META: RuleMeta = RuleMeta {
    id: "ptx-access-misaligned",
    default_level: Some(Level::Error),
    summary: "a PTX ld/st/atom/red/multimem/cp.async access whose address is provably not aligned to its access size",
    doc: DOC,
    options: &[],
};

const DOC: &str = r#"
## What it does

Checks the address of every PTX memory access against the alignment the PTX ISA requires
of it, in every state space (`.global`, `.shared`, `.shared::cluster`, `.local`, `.const`,
`.param`, and generic addresses):

| `values.field` | instruction | alignment |
|---|---|---|
| `address` | `ld` (`.nc`, `.volatile`, `.relaxed`/`.acquire`, any cache or `L2::` qualifier), `ldu`, `st` (`st.async` included), `atom`, `red` (`red.async` included), `multimem.ld_reduce` / `multimem.st` / `multimem.red` | the access size: the type's bytes times the vector count (`ld.v4.b32` 16, `ld.global.v8.f32` 32, `atom.add.noftz.f16x2` 4, `multimem.ld_reduce…acc::f32.v4.bf16x2` 16, `.b128` 16) |
| `address`, `source_address` | `cp.async.ca` / `cp.async.cg` (`[dst]` and `[src]`) | `cp-size` (4, 8 or 16) |
| `address`, `source_address`, `size` | `cp.async.bulk` and `cp.reduce.async.bulk` (not `.tensor`): `[dstMem]`, `[srcMem]` and `size`; `cp.async.bulk.prefetch.L2`: `[srcMem]` and `size` | 16 bytes; `size` a multiple of 16 |
| `size` | `st.bulk` (the ISA states no alignment for its address) | `size` a multiple of 8 |

The address is what the dataflow recovers of it (a constant, a set of constants, or known
low bits such as `4 mod 16`). What makes an address's low bits known:

- the `.align N` of a `.shared`, `.global` or `.const` variable, and of a module-scope
  `.local` one (without `.align`, the size of its element type, PTX ISA §5.4.5),
  `.extern .shared .align 16 .b8 global_smem[]` included, read as `[sym+off]`, with
  `mov`, or through `cvta`;
- a kernel parameter declared `.param .u64 .ptr .global .align N p` (Triton writes
  `.align 16` for the pointers it specialised as divisible by 16): what `ld.param [p]`
  reads is a multiple of N;
- offsets, strides (`tid * 16 + 4` is `4 mod 16`), loops, `selp`, bit-field operations,
  `.func` calls and spills, as for the other PTX value rules.

Every admitted address misaligned gives a `proven` finding, at the rule's level (error).
A set of constants with only some members misaligned (one arm of a branch or `selp`)
gives a `possible` finding, reported one level lower (a warning): the misaligned arm
may be one the kernel never takes at run time, which the dataflow cannot tell, but the
code as written does reach it. An address whose low bits are not known (a kernel
parameter without `.ptr .align`, a pointer loaded from memory, a call result) gives no
finding.

The matrix, TMA and mbarrier requirements (`ldmatrix`/`stmatrix` rows,
`cp.async.bulk.tensor` buffers, `mbarrier` objects) belong to
`ptx-shared-address-misaligned`; no access is checked by both rules.

## Why is this bad

PTX ISA §6.4.1 "Addresses as Operands": "The access size of a memory instruction is the
total number of bytes accessed in memory. For example, the access size of `ld.v4.b32` is
16 bytes, while the access size of `atom.f16x2` is 4 bytes. The address must be
naturally aligned to a multiple of the access size. If an address is not properly
aligned, the resulting behavior is undefined. For example, among other things, the
access may proceed by silently masking off low-order address bits to achieve proper
rounding, or the instruction may fault." `cp.async` refers to the same section for its
operands; `cp.async.bulk` requires 16-byte aligned `[dstMem]` and `[srcMem]` and a
`size` that is a multiple of 16; `st.bulk`: "`size` must be a multiple of 8. If the value
is not a multiple of 8, then the behavior is undefined."

ptxas does not look at address values, so the mistake compiles; at run time it is a
"misaligned address" fault (`cudaErrorMisalignedAddress`) or, worse, a silently rounded
address that reads or writes the wrong bytes. compute-sanitizer reports it only when
the bad address actually executes.

## Example

A Triton kernel whose shared-memory reshape places a 16-byte vector at byte 97 of the
dynamic shared memory (edited from real Triton 3.6 output,
`tests/fixtures/ptx_access/triton_global_smem.ptx`):

```ptx
.extern .shared .align 16 .b8 global_smem[];
...
ld.shared.v4.b32    {%r1, %r2, %r3, %r4}, [global_smem+97];
```

```text
error[ptx-access-misaligned]: ld.shared.v4.b32 address is always 1 mod 16, never 16-byte aligned (access size 16 bytes)
```

A 16-byte store at an offset of 4 from a pointer Triton declared 16-byte aligned:

```ptx
.param .u64 .ptr .global .align 16 out_ptr
...
ld.param.u64        %rd1, [out_ptr];
cvta.to.global.u64  %rd2, %rd1;
st.global.v4.b32    [%rd2+4], {%r1, %r2, %r3, %r4};
```

```text
error[ptx-access-misaligned]: st.global.v4.b32 address is always 4 mod 16, never 16-byte aligned (access size 16 bytes)
```

## Use instead

Keep each access at a multiple of its size, or split it into narrower accesses the
address is aligned for:

```ptx
ld.shared.v4.b32    {%r1, %r2, %r3, %r4}, [global_smem+96];
st.global.v4.b32    [%rd2+16], {%r1, %r2, %r3, %r4};
st.global.b32       [%rd2+4], %r1;
```

## Options

None.

## Known limitations

- A symbol's or parameter's address is known only modulo its declared alignment: an
  access wider than that alignment is not checked beyond it (`.align 4` says nothing
  about bit 2 of `[sym+4]` read as 8 bytes), so such offsets give `proven` findings or
  none, never `possible` ones.
- A `.ptr` kernel parameter without `.align` (which the ISA says is 4-byte aligned) and
  any parameter without `.ptr` are unknown, and so is a `.ptr .align N` parameter whose
  name the kernel also reads as an address (`mov.b64 %rd, p`): the IR does not tell the
  parameter's address from its value. Unknown too: `.local` and `.param` variables of a
  function body (the local depot `__local_depot0`), pointers loaded from memory and the
  addresses returned by calls.
- `cvta` keeps at most 7 known low bits (128 bytes) of an address.
- `multimem.cp.async.bulk`, the `[mbar]` operands of `cp.async.bulk`,
  `st.async` and `red.async`, textures and surfaces are not checked.

## References

- PTX ISA §6.4.1, Addresses as Operands: <https://docs.nvidia.com/cuda/parallel-thread-execution/#addresses-as-operands>
- PTX ISA, ld: <https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-ld>
- PTX ISA, cp.async: <https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async>
- PTX ISA, cp.async.bulk: <https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk>
- PTX ISA, st.bulk: <https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-st-bulk>
- PTX ISA, kernel parameter attribute `.ptr`: <https://docs.nvidia.com/cuda/parallel-thread-execution/#kernel-parameter-attribute-ptr>
"#;

/// "is always 4 mod 16, never 16-byte aligned"; "is 4 or 8, not always ...".
fn describe(v: &AbsValue, align: u64, what: &str, certainty: Certainty) -> String {
    let noun = if what == "size" { format!("a multiple of {align}") } else { format!("{align}-byte aligned") };
    match v {
        AbsValue::Set(s) if s.len() == 1 => format!("is {}, not {noun}", s[0]),
        AbsValue::Set(s) if certainty == Certainty::Proven => format!("is {}, never {noun}", or_list(s)),
        AbsValue::Set(s) => {
            let bad: Vec<u64> = s.iter().copied().filter(|x| x % align != 0).collect();
            let verb = if bad.len() == 1 { "is" } else { "are" };
            format!("is {}, not always {noun} ({} {verb} not)", or_list(s), or_list(&bad))
        }
        other => match other.known_low() {
            Some((rem, k)) => format!("is always {rem} mod {}, never {noun}", 1u64 << k),
            None => format!("{} is not {noun}", other.describe()),
        },
    }
}

/// Runs the rule.
pub fn check(cx: &mut RuleContext<'_>) {
    let m = cx.m;
    for (fh, f) in m.functions.iter() {
        for &(inst, word) in &f.mem_accesses {
            let (Some(text), Some(form)) = (m.op_names.get(word as usize), m.op_access(word)) else { continue };
            let Some(i) = f.insts.try_get(inst) else { continue };
            let ops = access_operands(&i.kind);
            let align = match form.align {
                AccessAlign::Bytes(b) => b,
                // `cp.async`'s cp-size: a constant 4, 8 or 16 (anything else ptxas refuses).
                AccessAlign::Operand(s) => match ops.get(s).and_then(|v| m.const_int(*v)) {
                    Some(n @ (4 | 8 | 16)) => n,
                    _ => continue,
                },
            };
            // Every value is a multiple of 1: a byte access has nothing to check.
            if align == 1 {
                continue;
            }
            let checks = [(form.addresses[0], "address"), (form.addresses[1], "source_address"), (form.size, "size")];
            for (slot, field) in checks {
                let Some(&v) = slot.and_then(|s| ops.get(s)) else { continue };
                let value = cx.value(fh, Operand::Value(v));
                let Some(certainty) = judge(&value, |x| x % align != 0, |r, k| r % align.min(1u64 << k) != 0) else {
                    continue;
                };
                let Some(shown) = finding_value(&value) else { continue };
                let line = ptx_line(cx, fh, inst);
                let noun = match field {
                    "address" if form.addresses[1].is_some() => "destination address",
                    "address" => "address",
                    "source_address" => "source address",
                    _ => "size",
                };
                let size_note = match (field, form.family) {
                    ("size", _) => String::new(),
                    (_, "cp.async") => format!(" (cp-size {align})"),
                    (_, "cp.async.bulk") => String::new(),
                    _ => format!(" (access size {align} bytes)"),
                };
                let message = format!("{text} {noun} {}{size_note}", describe(&value, align, field, certainty));
                let help = if field == "size" {
                    format!("make the size a multiple of {align} bytes")
                } else {
                    format!("align the {noun} to {align} bytes, or split the access into narrower ones")
                };
                cx.emit(Finding {
                    rule: META.id,
                    certainty,
                    force_error: false,
                    message,
                    help: Some(help),
                    values: vec![
                        ("field", FindingValue::Text(field.into())),
                        (if field == "size" { "size" } else { "address" }, shown),
                        ("align", FindingValue::Int(align)),
                        ("space", FindingValue::Text(form.space.into())),
                        ("ptx-line", FindingValue::Int(line)),
                        ("instruction", FindingValue::Text(text.clone())),
                    ],
                    at: At::Inst(fh, inst),
                });
            }
        }
    }
}

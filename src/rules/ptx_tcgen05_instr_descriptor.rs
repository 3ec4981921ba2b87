//! `ptx-tcgen05-instr-descriptor`: the 32-bit instruction descriptor (`idesc`)
//! of `tcgen05.mma*`: `.kind::f16`, `::tf32`, `::f8f6f4` and `::i8`
//! (PTX ISA Table 42, "Instruction descriptor") and the block-scaled
//! kinds (CUTLASS `InstrDescriptorBlockScaled`).

use super::atom_ptx::{ptx_facts, ptx_line};
use super::ptx_desc::{admitted, all_invalid, values_json, values_text, IDESC_BITS};
use super::{At, Finding, RuleContext, RuleMeta};
use crate::analysis::{AbsValue, Admitted};
use crate::ir::{MmaKind, PtxOp, PtxTarget, ScaleVec, Tcgen05Mma};
use crate::report::{Certainty, FindingValue, Level};

/// Rule metadata.
pub const META: RuleMeta = RuleMeta {
    id: "ptx-tcgen05-instr-descriptor",
    default_level: Some(Level::Error),
    summary: "a tcgen05.mma instruction descriptor whose formats, flags or shape do not fit the instruction",
    doc: DOC,
    options: &[],
};

const DOC: &str = r#"
## What it does

Decodes the 32-bit instruction descriptor (`idesc`) of `tcgen05.mma`, `tcgen05.mma.sp`,
`tcgen05.mma.ws` and `tcgen05.mma.ws.sp` from the known bits the dataflow recovers, in the
layout of the instruction's kind, and checks it against the instruction: PTX ISA Table 42
("Instruction descriptor format for .kind::tf32, .kind::f16, .kind::f8f6f4 and .kind::i8";
CUTLASS `UMMA::InstrDescriptor`) and Tables 43 and 44 for the block-scaled kinds
(`.kind::mxf8f6f4`, `::mxf4`, `::mxf4nvf4`; CUTLASS `UMMA::InstrDescriptorBlockScaled`):

| `values.field` | bits | valid |
|---|---|---|
| `d_format` | 4–5 | f16, f8f6f4: 0 F16, 1 F32; tf32: 1 F32; i8: 2 S32 (not in the block-scaled layout) |
| `a_format`, `b_format` | 7–9, 10–12 | f16: 0 F16, 1 BF16; tf32: 2 TF32; f8f6f4, mxf8f6f4: 0 E4M3, 1 E5M2, 3 E2M3, 4 E3M2, 5 E2M1; i8: 0 U8, 1 S8; mxf4, mxf4nvf4: 1 E2M1 |
| `sparse` | 2 | 1 exactly when the instruction is `.sp` |
| `sparsity_selector` | 0–1 | 0 for `.sp` with `.kind::i8` and `.kind::f8f6f4` |
| `saturate` | 3 | 1 only for `.kind::i8` |
| `negate` | 13, 14 | 0 for `.kind::i8` |
| `a_major`, `b_major` | 15, 16 | 0 (K-major) for `.kind::mxf4`, `::mxf4nvf4` (Table 49: no transpose); 0 for 4- and 6-bit elements (E2M3, E3M2, E2M1; Table 52) |
| `max_shift` | 30–31 | 0 unless the instruction is `.ws` |
| `format_combination` | 4–5 with 7–12 | `.kind::f16`: D = F16 (0) needs A = B = F16 (0); BF16 inputs need D = F32 (1) (PTX ISA "tcgen05.mma" / "Instruction descriptor": the `.kind::f16` row of the valid type combinations) |
| `reserved` | 6, 23, 29; block-scaled: 3, 6 | 0 |
| `m` | 24–28 (M >> 4) | Table 39, below |
| `n` | 17–22 (N >> 3) | Table 39, below; a transposed 8-bit B (E4M3, E5M2, U8, S8 with bit 16 set): N 16 to 256 in steps of 16 with `.cta_group::1`, 32 to 256 in steps of 32 with `::2` (Table 50) |
| `scale_format` | 23 (block-scaled) | mxf8f6f4, mxf4: 1 UE8M0; mxf4nvf4: 0 UE4M3 or 1 UE8M0 |
| `a_sf_id`, `b_sf_id` | 29–30, 4–5 (block-scaled) | mxf8f6f4: 0–3; mxf4, mxf4nvf4 with `.scale_vec::2X` / `.block32`: 0 or 2; with `.scale_vec::4X` / `.block16`: 0; at K = 96: block32 0–3, block16 0 or 2 ("Scale Factor A ID", "Scale Factor B ID") |
| `k_size` | 31 (block-scaled) | 1 (K = 96) only for dense mxf4 / mxf4nvf4 on sm_103a, with `.cta_group::1` and M 128 (CUTLASS `SM103_MXF4_ULTRA_SS_VS`) or `.cta_group::2` and M 256; reserved (0) for mxf8f6f4 |

Shapes (PTX ISA Table 39, "Various combinations of .kind and shapes"):

| kind | form | M | N |
|---|---|---|---|
| f16, tf32, f8f6f4 | `.cta_group::1` | 64, 128 | 8 to 256, steps of 8 |
| | `.cta_group::2` | 128, 256 | 16 to 256, steps of 16 |
| i8 | `.cta_group::1` | 64, 128 | 8, 16, 24, 32, then 48 to 256 in steps of 16 |
| | `.cta_group::2` | 128, 256 | 32 to 256, steps of 32 |
| f16, tf32, f8f6f4, i8 | `.ws` | 32, 64, 128 | 64, 128, 256 (`.sp`: 64, 128) |
| mxf8f6f4, mxf4, mxf4nvf4 | `.cta_group::1` | 128 | 8 to 256, steps of 8 |
| | `.cta_group::2` | 128, 256 (`.sp`: 256) | 16 to 256, steps of 16 |

A field is reported only when every value the dataflow admits for it is invalid; a field
that depends on another (the A format for `a_major`, the B format and `b_major` for `n`,
M for `k_size`) uses the stricter rule only when the other field is known.

## Why is this bad

ptxas does not look into the instruction descriptor: it travels in a register. A format
that does not match `.kind`, or a sparse flag that disagrees with `.sp`, makes the tensor
core compute something else than the instruction says; a shape outside the table is
undefined behaviour: wrong results, with no error.

## Example

```ptx
mov.b32 %r201, 136314896;                // 0x08200010: F32 += F16 x F16
tcgen05.mma.cta_group::1.kind::tf32 [%r467], %rd324, %rd325, %r201, %p6;
```

```text
error[ptx-tcgen05-instr-descriptor]: idesc of tcgen05.mma.kind::tf32 has a_format (bits 7-9) = 0, not valid for .kind::tf32 (valid: 2)
```

## Use instead

```ptx
mov.b32 %r201, 136317200;                // 0x08200910: F32 += TF32 x TF32
```

## Options

None.

## Known limitations

- `.kind::ti16` (PTX ISA 9.4, sm_107a) is not checked: its descriptor table is not in the
  references this rule is built from.
- N follows the PTX ISA table, which allows steps of 8 for M 128 with `.cta_group::1` and
  steps of 16 with `::2`; CUTLASS's `SM100_MMA_*` atoms are stricter (M 128 with
  `.cta_group::1`: N a multiple of 16; f8f6f4 with `::2`: a multiple of 32). Descriptors
  that only CUTLASS rejects are not reported.
- The transpose restrictions that depend on the shared-memory descriptor's swizzle
  (`.kind::tf32` transposes only with 128B swizzling with 32B atoms) and the scale-vector
  forms of the modifiers (the atom rules' business) are not checked here.
- Only descriptors the dataflow recovers in the instruction's function are checked.

## References

- PTX ISA, tcgen05 instruction descriptor: <https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-instruction-descriptor>
- PTX ISA, tcgen05 matrix shapes: <https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-matrix-shape>
- PTX ISA, tcgen05 data types per kind (`.kind::f16`: F16 accumulator with F16 inputs, F32 with F16 or BF16; the `format_combination` check): <https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-matrix-math-data-types>
- PTX ISA Table 39, "Various combinations of .kind and shapes": <https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-kind-shapes>
- PTX ISA Tables 43 and 44, block-scaled descriptors: <https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-instuction-desc-kind-mxf8f6f4>, <https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-instuction-desc-kind-mxf4-mxf4nvf4>
- PTX ISA Table 49, transpose and negate per kind: <https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-transpose-negate-mma-kind>
- PTX ISA, scale factor A / B ID: <https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-mma-scale-factor-a>
- CUTLASS `UMMA::InstrDescriptor`, `include/cute/arch/mma_sm100_desc.hpp`: <https://github.com/NVIDIA/cutlass/blob/main/include/cute/arch/mma_sm100_desc.hpp>
"#;

/// Valid D, A/B formats of a kind (`None`: a kind this rule does not decode).
fn formats(kind: MmaKind) -> Option<(&'static [u64], &'static [u64])> {
    Some(match kind {
        MmaKind::F16 => (&[0, 1], &[0, 1]),
        MmaKind::Tf32 => (&[1], &[2]),
        MmaKind::F8f6f4 => (&[0, 1], &[0, 1, 3, 4, 5]),
        MmaKind::I8 => (&[2], &[0, 1]),
        _ => return None,
    })
}

/// The block-scaled kinds (PTX ISA Tables 43 and 44; CUTLASS
/// `InstrDescriptorBlockScaled`): no D format; valid A/B formats (mxf8f6f4:
/// E4M3 0, E5M2 1, E2M3 3, E3M2 4, E2M1 5; mxf4, mxf4nvf4: E2M1 1).
fn block_scaled(kind: MmaKind) -> Option<(&'static [u64], &'static [u64])> {
    Some(match kind {
        MmaKind::Mxf8f6f4 => (&[], &[0, 1, 3, 4, 5]),
        MmaKind::Mxf4 | MmaKind::Mxf4nvf4 => (&[], &[1]),
        _ => return None,
    })
}

/// Valid N of an instruction (PTX ISA Table 39; N is 8 × the field).
#[derive(Debug, Clone, Copy)]
enum NRule {
    /// `lo` to 256 in steps of `lo`.
    Step(u64),
    /// `.kind::i8` with `.cta_group::1`: 8, 16, 24, 32, then steps of 16 to 256.
    I8,
    /// `.ws`: one of these.
    List(&'static [u64]),
}

impl NRule {
    fn ok(self, n: u64) -> bool {
        match self {
            NRule::Step(s) => n.is_multiple_of(s) && (s..=256).contains(&n),
            NRule::I8 => {
                (8..=32).contains(&n) && n.is_multiple_of(8) || (48..=256).contains(&n) && n.is_multiple_of(16)
            }
            NRule::List(l) => l.contains(&n),
        }
    }

    fn text(self) -> String {
        match self {
            NRule::Step(s) => format!("N {s} to 256 in steps of {s}"),
            NRule::I8 => "N 8, 16, 24, 32, then 48 to 256 in steps of 16".into(),
            NRule::List(l) => format!("N {}", list(l)),
        }
    }
}

/// The valid M values and N rule of an instruction (PTX ISA Table 39,
/// "Various combinations of .kind and shapes"); `None` for forms with no
/// valid shape (`.ws` with `.cta_group::2` or a block-scaled kind), which the
/// atom rules report from the modifiers.
fn shape(kind: MmaKind, t: &Tcgen05Mma) -> Option<(&'static [u64], NRule)> {
    let scaled = block_scaled(kind).is_some();
    let cta2 = t.cta_group == 2;
    if t.ws {
        if scaled || cta2 {
            return None;
        }
        return Some((&[32, 64, 128], NRule::List(if t.sparse { &[64, 128] } else { &[64, 128, 256] })));
    }
    Some(match (scaled, cta2) {
        (false, false) => (&[64, 128], if kind == MmaKind::I8 { NRule::I8 } else { NRule::Step(8) }),
        (false, true) => (&[128, 256], NRule::Step(if kind == MmaKind::I8 { 32 } else { 16 })),
        (true, false) => (&[128], NRule::Step(8)),
        (true, true) => (if t.sparse { &[256] } else { &[128, 256] }, NRule::Step(16)),
    })
}

/// A/B formats of 8-bit elements (`.kind::f8f6f4`, `::mxf8f6f4`: E4M3, E5M2;
/// `.kind::i8`: U8, S8), for the transposed-B N rule (PTX ISA Table 50).
fn eight_bit(kind: MmaKind) -> &'static [u64] {
    match kind {
        MmaKind::F8f6f4 | MmaKind::Mxf8f6f4 | MmaKind::I8 => &[0, 1],
        _ => &[],
    }
}

/// Valid scale-factor ids (bits 29–30 for A, 4–5 for B) of a block-scaled
/// kind (PTX ISA "Scale Factor A ID" / "Scale Factor B ID"): any of 0–3 with
/// one scale per 32 elements in a byte (mxf8f6f4), 0 or 2 with two per word
/// half (`.scale_vec::2X`, `.block32` of mxf4/mxf4nvf4), 0 with four
/// (`.scale_vec::4X`, `.block16`); the K = 96 forms (bit 31) select bytes
/// again (block32: 0–3, block16: 0 or 2).
fn sf_ids(kind: MmaKind, sv: ScaleVec, k96: bool) -> &'static [u64] {
    match (kind, sv) {
        (MmaKind::Mxf4 | MmaKind::Mxf4nvf4, ScaleVec::X4 | ScaleVec::Block16) => {
            if k96 {
                &[0, 2]
            } else {
                &[0]
            }
        }
        (MmaKind::Mxf4 | MmaKind::Mxf4nvf4, ScaleVec::None | ScaleVec::X2 | ScaleVec::Block32) if !k96 => &[0, 2],
        _ => &[0, 1, 2, 3],
    }
}

fn list(v: &[u64]) -> String {
    values_text(v)
}

/// Which bits of a field: `bit 3`, `bits 7-9`.
fn bits_text(lo: u32, len: u32) -> String {
    if len == 1 {
        format!("bit {lo}")
    } else {
        format!("bits {lo}-{}", lo + len - 1)
    }
}

/// `bit 6`, `bits 6 and 23`, `bits 6, 23 and 29`.
fn bit_list(mask: u64) -> String {
    let bits: Vec<u64> = (0..64).filter(|b| mask >> b & 1 == 1).collect();
    match bits.as_slice() {
        [b] => format!("bit {b}"),
        _ => format!("bits {}", list(&bits).replacen(" or ", " and ", 1)),
    }
}

/// The findings of one instruction: `(field, message, value)`.
struct Found<'k> {
    kname: &'k str,
    v: AbsValue,
    out: Vec<(&'static str, String, FindingValue)>,
}

impl Found<'_> {
    /// The field's admitted values when every one is invalid.
    fn bad(&self, lo: u32, len: u32, invalid: impl Fn(u64) -> bool) -> Option<Admitted> {
        all_invalid(&self.v, lo, len, IDESC_BITS, invalid)
    }

    /// The field's admitted values (when some bit is known and few).
    fn admitted(&self, lo: u32, len: u32) -> Option<Admitted> {
        admitted(&self.v, lo, len, IDESC_BITS)
    }

    /// Reports the field when every admitted value is invalid.
    fn field(&mut self, name: &'static str, lo: u32, len: u32, invalid: impl Fn(u64) -> bool, why: &str) {
        self.field_with(name, lo, len, invalid, |_| why.to_string());
    }

    /// [`Found::field`] with an explanation that states the admitted values
    /// (`M = 256`).
    fn field_with(
        &mut self,
        name: &'static str,
        lo: u32,
        len: u32,
        invalid: impl Fn(u64) -> bool,
        why: impl Fn(&[u64]) -> String,
    ) {
        if let Some(vals) = self.bad(lo, len, invalid) {
            let at = bits_text(lo, len);
            let msg = format!("{name} ({at}) = {}, {}", list(&vals), why(&vals));
            self.out.push((name, msg, values_json(&vals)));
        }
    }

    /// Reports the reserved bits of `mask` known to be 1.
    fn reserved(&mut self, mask: u64) {
        let Some(kb) = self.v.known_bits(IDESC_BITS) else { return };
        let set = kb.one & mask;
        if set != 0 {
            let them = if set.count_ones() == 1 { "it" } else { "they" };
            let msg = format!("reserved {} set (0x{set:x}), {them} must be 0", bit_list(set));
            self.out.push(("reserved", msg, FindingValue::Int(set)));
        }
    }
}

/// What one instruction's findings are: `(field, message, value)`.
type Out = Vec<(&'static str, String, FindingValue)>;

/// Instructions' findings kept for the instructions that repeat them.
const JUDGED: usize = 8;

/// Runs the rule.
pub fn check(cx: &mut RuleContext<'_>) {
    let m = cx.m;
    // The findings of the last few instructions judged, with what they depend
    // on (the form without its operands, the target, the descriptor's value):
    // an unrolled loop's `tcgen05.mma`s repeat a few forms and descriptors,
    // each judged once.
    let mut judged: Vec<(Tcgen05Mma, Option<PtxTarget>, AbsValue, Out)> = Vec::new();
    let mut next = 0;
    for (f, inst, p) in ptx_facts(m) {
        let PtxOp::Tcgen05Mma(t) = &p.op else { continue };
        let (Some(kind), Some(op)) = (t.kind, t.idesc) else { continue };
        let v = cx.value(f, op);
        let form = Tcgen05Mma { idesc: None, a_desc: None, b_desc: None, ..t.clone() };
        let seen = judged.iter().find(|(jf, jt, jv, _)| *jv == v && *jt == p.target && *jf == form);
        let out = match seen {
            Some((.., out)) => out.clone(),
            None => {
                let Some(out) = findings(t, kind, v.clone(), p.target) else { continue };
                let entry = (form, p.target, v, out.clone());
                if judged.len() < JUDGED {
                    judged.push(entry);
                } else if let Some(slot) = judged.get_mut(next) {
                    *slot = entry;
                    next = (next + 1) % JUDGED;
                }
                out
            }
        };
        if out.is_empty() {
            continue;
        }
        let kname = t.kind_text.as_deref().unwrap_or_default();
        let line = ptx_line(cx, f, inst);
        for (name, what, value) in out {
            cx.emit(Finding {
                rule: META.id,
                certainty: Certainty::Proven,
                force_error: false,
                message: format!("idesc of tcgen05.mma.kind::{kname} has {what}"),
                help: Some(
                    "build the instruction descriptor as CUTLASS UMMA::InstrDescriptor does for this kind".into(),
                ),
                values: vec![
                    ("field", FindingValue::Text(name.into())),
                    ("value", value),
                    ("ptx-line", FindingValue::Int(line)),
                    ("instruction", FindingValue::Text(p.word.to_string())),
                ],
                at: At::Inst(f, inst),
            });
        }
    }
}

/// The findings of a `tcgen05.mma` of kind `kind` whose descriptor is `v`
/// (`None`: a kind the rule has no table for).
fn findings(t: &Tcgen05Mma, kind: MmaKind, v: AbsValue, target: Option<PtxTarget>) -> Option<Out> {
    let scaled = block_scaled(kind);
    let (d_ok, ab_ok) = formats(kind).or(scaled)?;
    let scaled = scaled.is_some();
    // Messages are only formatted for a field that is reported.
    let kname = t.kind_text.as_deref().unwrap_or_default();
    let mut x = Found { v, kname, out: Vec::new() };
    let valid = |ok: &'static [u64]| move |v: u64| !ok.contains(&v);
    let not_for = || format!("not valid for .kind::{kname}");
    if scaled {
        // Tables 43/44: bits 4-5 are the B scale-factor id, bit 23 the
        // scale format, 29-30 the A scale-factor id, 31 the K size.
        let sf_ok: &'static [u64] = if kind == MmaKind::Mxf4nvf4 { &[0, 1] } else { &[1] };
        x.field_with("scale_format", 23, 1, valid(sf_ok), |_| {
            format!("{} (valid: {}; 0 UE4M3, 1 UE8M0)", not_for(), list(sf_ok))
        });
        x.reserved(1 << 3 | 1 << 6);
    } else {
        x.field_with("d_format", 4, 2, valid(d_ok), |_| format!("{} (valid: {})", not_for(), list(d_ok)));
        x.reserved(1 << 6 | 1 << 23 | 1 << 29);
    }
    let ab_why = |_: &[u64]| format!("{} (valid: {})", not_for(), list(ab_ok));
    x.field_with("a_format", 7, 3, valid(ab_ok), ab_why);
    x.field_with("b_format", 10, 3, valid(ab_ok), ab_why);
    let sp = u64::from(t.sparse);
    let sp_why = if t.sparse { "but the instruction is .sp" } else { "but the instruction is not .sp" };
    x.field("sparse", 2, 1, |v| v != sp, sp_why);
    if t.sparse && matches!(kind, MmaKind::I8 | MmaKind::F8f6f4) {
        let why = |_: &[u64]| format!("the sparsity selector must be 0 for .kind::{kname}");
        x.field_with("sparsity_selector", 0, 2, |v| v != 0, why);
    }
    if scaled {
    } else if kind != MmaKind::I8 {
        x.field("saturate", 3, 1, |v| v != 0, "saturate is only for .kind::i8");
    } else {
        x.field("negate", 13, 1, |v| v != 0, "negate A is not valid for .kind::i8");
        x.field("negate", 14, 1, |v| v != 0, "negate B is not valid for .kind::i8");
    }
    if !t.ws && !scaled {
        x.field("max_shift", 30, 2, |v| v != 0, "max shift needs tcgen05.mma.ws");
    }
    if kind == MmaKind::F16 {
        f16_combination(&mut x);
    }
    majors(&mut x, kind, ab_ok);
    if scaled {
        scale_factors(&mut x, kind, t, target);
    }
    shapes(&mut x, kind, t);
    Some(x.out)
}

/// `.kind::f16`: the D, A and B formats are valid together (PTX ISA
/// "tcgen05.mma": an F16 accumulator takes F16 A and B; BF16 inputs need an
/// F32 accumulator). Judged only when each field alone admits a valid value
/// (else the field is already reported) and every admitted combination is
/// invalid.
fn f16_combination(x: &mut Found) {
    let (Some(d), Some(a), Some(b)) = (x.admitted(4, 2), x.admitted(7, 3), x.admitted(10, 3)) else { return };
    let ok_alone = |v: &[u64], ok: &[u64]| v.iter().any(|x| ok.contains(x));
    if !ok_alone(&d, &[0, 1]) || !ok_alone(&a, &[0, 1]) || !ok_alone(&b, &[0, 1]) {
        return;
    }
    let valid = |d: u64, a: u64, b: u64| match d {
        0 => a == 0 && b == 0,
        1 => a <= 1 && b <= 1,
        _ => false,
    };
    let any_valid = d.iter().any(|&dv| a.iter().any(|&av| b.iter().any(|&bv| valid(dv, av, bv))));
    if any_valid {
        return;
    }
    let name = |v: u64| match v {
        0 => "F16",
        1 => "BF16",
        _ => "undefined",
    };
    let names = |v: &[u64]| v.iter().map(|x| name(*x)).collect::<Vec<_>>().join(" or ");
    let msg = format!(
        "d_format (bits 4-5) = {} (F16) with a_format = {} ({}) and b_format = {} ({}): an F16 accumulator needs F16 A and B (BF16 inputs need d_format 1, F32)",
        list(&d),
        list(&a),
        names(&a),
        list(&b),
        names(&b)
    );
    x.out.push(("format_combination", msg, values_json(&d)));
}

/// Transpose (MN-major) bits 15 and 16: not supported by `.kind::mxf4` and
/// `::mxf4nvf4` (Table 49), nor for 4- and 6-bit elements (Table 52: E2M3,
/// E3M2, E2M1 are K-major only).
fn majors(x: &mut Found, kind: MmaKind, ab_ok: &[u64]) {
    let no_transpose = matches!(kind, MmaKind::Mxf4 | MmaKind::Mxf4nvf4);
    for (name, lo, fmt_lo, which) in [("a_major", 15, 7, 'A'), ("b_major", 16, 10, 'B')] {
        if no_transpose {
            let kname = x.kname;
            let why = |_: &[u64]| format!("transpose {which} (MN-major) is not supported by .kind::{kname}");
            x.field_with(name, lo, 1, |v| v != 0, why);
            continue;
        }
        let narrow = |f: u64| matches!(f, 3..=5) && ab_ok.contains(&f);
        if !matches!(kind, MmaKind::F8f6f4 | MmaKind::Mxf8f6f4) {
            continue;
        }
        let Some(fmts) = x.admitted(fmt_lo, 3).filter(|v| v.iter().all(|f| narrow(*f))) else { continue };
        let why = |_: &[u64]| {
            format!(
                "transpose {which} (MN-major) is only for 8-, 16- and 32-bit elements, and {which} is {} (E2M3 3, E3M2 4, E2M1 5)",
                list(&fmts)
            )
        };
        x.field_with(name, lo, 1, |v| v != 0, why);
    }
}

/// Block-scaled kinds: the scale-factor ids and the K-size bit.
fn scale_factors(x: &mut Found, kind: MmaKind, t: &Tcgen05Mma, target: Option<crate::ir::PtxTarget>) {
    // Bit 31: K = 96 (dense mxf4/mxf4nvf4, sm_103a only): M = 128 with
    // `.cta_group::1` (CUTLASS `SM103_MXF4_ULTRA_SS_VS`, CuTe DSL's 1-CTA
    // sm103 kernels), M = 256 with `.cta_group::2`.
    let m_k96 = if t.cta_group == 2 { 16 } else { 8 };
    let m_ok = x.admitted(24, 5).is_some_and(|v| v.contains(&m_k96));
    let sm103a = target.is_none_or(|t| t.sm == 103 && t.suffix == Some('a'));
    let k96_why = if kind == MmaKind::Mxf8f6f4 {
        Some(format!("K = 96 is not a shape of .kind::{} (bit 31 is reserved there)", x.kname))
    } else if t.sparse {
        Some("K = 96 is dense only, and the instruction is .sp".to_string())
    } else if x.admitted(24, 5).is_some() && !m_ok {
        Some(format!("K = 96 needs M = {} with .cta_group::{}", m_k96 << 4, t.cta_group.max(1)))
    } else if !sm103a {
        Some(format!("K = 96 is only for sm_103a, and the target is {}", target.map(|t| t.name()).unwrap_or_default()))
    } else {
        None
    };
    if let Some(why) = k96_why {
        x.field("k_size", 31, 1, |v| v != 0, &why);
    }
    let k96 = x.admitted(31, 1).is_none_or(|v| v.contains(&1));
    let ok = sf_ids(kind, t.scale_vec, k96);
    if ok.len() < 4 {
        let sv = match (t.scale_vec, k96) {
            (ScaleVec::X4 | ScaleVec::Block16, false) => "four scale factors per 32-bit word (scale_vec::4X / block16)",
            (ScaleVec::X4 | ScaleVec::Block16, true) => "block16 at K = 96 (six scale factors per row)",
            _ => "two scale factors per 32-bit word (scale_vec::2X / block32)",
        };
        let why = format!("not valid with {sv} (valid: {})", list(ok));
        x.field("a_sf_id", 29, 2, |v| !ok.contains(&v), &why);
        x.field("b_sf_id", 4, 2, |v| !ok.contains(&v), &why);
    }
}

/// M (bits 24–28, M >> 4) and N (bits 17–22, N >> 3) against PTX ISA Table 39,
/// and N for a transposed 8-bit B (Table 50).
fn shapes(x: &mut Found, kind: MmaKind, t: &Tcgen05Mma) {
    let Some((ms, mut nrule)) = shape(kind, t) else { return };
    // The texts are formatted only for a field that is reported.
    let group = || {
        let group = if t.ws { ".ws".to_string() } else { format!(".cta_group::{}", t.cta_group.max(1)) };
        if t.sparse {
            format!(".sp and {group}")
        } else {
            group
        }
    };
    let scaled = |vals: &[u64], k: u64| -> String { list(&vals.iter().map(|v| v * k).collect::<Vec<_>>()) };
    let kname = x.kname;
    let m_why =
        |v: &[u64]| format!("M = {}, not valid for .kind::{kname} with {} (M {})", scaled(v, 16), group(), list(ms));
    x.field_with("m", 24, 5, |v| !ms.contains(&(v * 16)), m_why);
    let mut transposed_b8 = false;
    let b_transposed = x.admitted(16, 1).is_some_and(|v| v.as_slice() == [1]);
    let b8 = eight_bit(kind);
    if !t.ws && b_transposed && x.admitted(10, 3).is_some_and(|v| v.iter().all(|f| b8.contains(f))) {
        nrule = NRule::Step(if t.cta_group == 2 { 32 } else { 16 });
        transposed_b8 = true;
    }
    let what = || match transposed_b8 {
        true => format!("a transposed 8-bit B (bit 16) with {}", group()),
        false => format!(".kind::{kname} with {}", group()),
    };
    let n_why = |v: &[u64]| format!("N = {}, not valid for {} ({})", scaled(v, 8), what(), nrule.text());
    x.field_with("n", 17, 6, |v| !nrule.ok(v * 8), n_why);
}

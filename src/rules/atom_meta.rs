//! Rule metadata of the atom verifiers (`crate::atoms`), registered in
//! [`super::registry`] so that `irlint rules`, `irlint explain`, SARIF and
//! `docs/rules/` know them. The metadata lives with the rules, not with the
//! verifiers: `crate::atoms` checks tuples and imports nothing from `rules`.
//!
//! The atom rules are reached through the Rust API, `irlint atoms`, and — for
//! the five with a PTX spelling — PTX instructions ([`super::atom_ptx`]).

use super::RuleMeta;
use crate::atoms::AtomRule;
use crate::report::Level;

const fn meta(rule: AtomRule, summary: &'static str, doc: &'static str) -> RuleMeta {
    RuleMeta { id: rule.id(), default_level: Some(Level::Error), summary, doc, options: &[] }
}

/// `atom-ldsm-mode`.
pub const LDSM_MODE: RuleMeta = meta(
    AtomRule::LdsmMode,
    "an ldmatrix (LDSM) mode tuple outside the accepted mode/size/count/transpose table",
    r#"
## What it does
Checks an LDSM atom's tuple — mode, size pattern, number of matrices, transpose and the rank-1
result (register) shape — against the mode table below, first failure first: matrix count
(1, 2 or 4, and 1 or 2 for `MT1616`), transpose, size pattern, result rank, result extent.

| mode | shape | num_matrices | size patterns | transpose | registers |
|---|---|---|---|---|---|
| `M88` | 8x8 | 1, 2, 4 | u16 | no | N |
| `MT88` | 8x8 | 1, 2, 4 | u16 | yes | N |
| `M816` | 8x16 | 1, 2, 4 | u4to8, s4to8, u4x16p64to8, u6x16p32to8 | no | N |
| `M832` | 8x32 | 1, 2, 4 | u2to4, s2to4 | no | N |
| `MT1616` | 16x16 | 1, 2 | u8, u4x16p64to8, u6x16p32to8 | yes | 2N |

## Why is this bad
`ldmatrix` exists only for these combinations (PTX ISA §9.7.14.5.15): `.m16n16` needs `.trans`
and carries two registers per matrix, `.m8n16` forbids `.trans`. An invalid tuple fails in ptxas,
far from the layout algebra that chose it, or is lowered to the wrong register count.

## Example
```json
{"verifier": "ldsm", "mode": "MT1616", "size": "u8", "num_matrices": 4, "transpose": true, "result_shape": [8]}
```
→ ``atom-ldsm-mode: `num_matrices` is 4, expected 1 or 2 for mode MT1616``

## Use instead
```json
{"verifier": "ldsm", "mode": "MT1616", "size": "u8", "num_matrices": 2, "transpose": true, "result_shape": [4]}
```

## Options
None.

## Known limitations
No target gate: the 8x16 and 16x16 shapes and the format conversions need a Blackwell `a` or `f`
target (ptxas 13.5 rejects them elsewhere); on PTX input `atom-ptx-form` reports that. `M832` and
`u4to8` have no PTX spelling and are reachable only from `irlint atoms` or the Rust API.

## References
- `docs/atoms.md`
- PTX ISA, `ldmatrix`: https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-load-instruction-ldmatrix
"#,
);

/// `atom-stsm-mode`.
pub const STSM_MODE: RuleMeta = meta(
    AtomRule::StsmMode,
    "an stmatrix (STSM) mode tuple outside the accepted mode/size/count/transpose table",
    r#"
## What it does
The LDSM tuple check for STSM atoms. Modes: `M88` (u16, no transpose), `MT88` (u16, transposed)
and `MT168` (16x8, u8, transpose required — `stmatrix.m16n8.trans.b8` on Blackwell `a`/`f`
targets); 1, 2 or 4 matrices, one register per matrix.

## Why is this bad
`stmatrix` exists only for these combinations (PTX ISA §9.7.14.5.16); a wrong tuple fails in
ptxas or stores the wrong number of registers.

## Example
```json
{"verifier": "stsm", "mode": "MT168", "size": "u8", "num_matrices": 2, "transpose": false, "result_shape": [2]}
```
→ ``atom-stsm-mode: `transpose` is false, expected true for mode MT168``

## Use instead
```json
{"verifier": "stsm", "mode": "MT168", "size": "u8", "num_matrices": 2, "transpose": true, "result_shape": [2]}
```

## Options
None.

## Known limitations
No target gate (`stmatrix` needs sm_90; `.m16n8` needs Blackwell `a`/`f` targets).

## References
- `docs/atoms.md`
- PTX ISA, `stmatrix`: https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-stmatrix
"#,
);

/// `atom-matrix-copy`.
pub const MATRIX_COPY: RuleMeta = meta(
    AtomRule::MatrixCopy,
    "a shared-register matrix copy with the wrong memory spaces, fragment shape or shared alignment",
    r#"
## What it does
Checks a shared↔register matrix copy atom, first failure first: a load reads `shared` and writes
`register`, a store the reverse; the mode belongs to the direction (LDSM modes for loads, STSM
modes for stores); the matrix count is one of the mode's; the fragment is rank 1 with
`num_matrices × registers per matrix` registers; the shared address is 16-byte aligned
(`shared_alignment` = the largest power of two known to divide it).

## Why is this bad
`ldmatrix`/`stmatrix` move 16-byte rows between shared memory and registers. A generic or global
operand, a misaligned row address or a wrong fragment size is undefined behaviour or a ptxas
error that no longer names the layout that caused it.

## Example
```json
{"verifier": "matrix-copy", "direction": "load", "src": "shared", "dst": "register", "mode": "M88",
 "num_matrices": 4, "result_shape": [4], "shared_alignment": 8}
```
→ ``atom-matrix-copy: `shared_alignment` is 8, expected a multiple of 16 bytes (16-byte row addresses)``

## Use instead
Align the shared tile to 16 bytes (or more: swizzled tiles want 128 or 1024).

## Options
None.

## Known limitations
From PTX only the `.shared` qualifier and provably constant offsets are visible: an address the
dataflow cannot bound is not judged (`ptx-shared-address-misaligned` checks the values it can).

## References
- `docs/atoms.md`
- PTX ISA, `ldmatrix`: https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-ldmatrix
- PTX ISA, `stmatrix`: https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-stmatrix
"#,
);

/// `atom-register-fragment`.
pub const REGISTER_FRAGMENT: RuleMeta = meta(
    AtomRule::RegisterFragment,
    "a register-space copy atom whose register count differs from its layout's cosize",
    r#"
## What it does
Checks that a register fragment uses exactly `cosize(layout)` 32-bit registers. The cosize is
one past the largest index the CuTe layout maps to.

## Why is this bad
A fragment with fewer registers than its layout addresses reads or writes past its end; one with
more wastes registers and usually means the layout and the atom disagree.

## Example
```json
{"verifier": "register-fragment", "layout": "(2,2):(1,2)", "register_count": 3}
```
→ ``atom-register-fragment: `register_count` is 3, expected 4 (the cosize of the layout)``

## Use instead
Size the fragment from the layout: `register_count = cosize(layout)`.

## Options
None.

## Known limitations
From PTX the cosize is not visible; a front end compares the vector length with the mode's count.

## References
- `docs/atoms.md` (`verify_register_fragment`)
- CuTe layouts (`cosize`): https://github.com/NVIDIA/cutlass/blob/main/media/docs/cpp/cute/01_layout.md
"#,
);

/// `atom-umma-canonical-layout`.
pub const UMMA_CANONICAL_LAYOUT: RuleMeta = meta(
    AtomRule::UmmaCanonicalLayout,
    "a UMMA operand layout that is not a canonical UMMA_MN or UMMA_K layout",
    r#"
## What it does
Checks a UMMA (tcgen05.mma) shared-memory operand layout the way CUTLASS's `make_umma_desc` does,
with its messages (CUTLASS 3.8's wording; `docs/diagnostics.md`), first failure first:

1. the swizzle is one the descriptor can express (`Sw<0,4,3>`, `Sw<1,4,3>`, `Sw<2,4,3>`,
   `Sw<3,4,3>`, the identity also written `Sw<0,2,5>`, and `Sw<2,5,2>` for MN-major only), else
   `unsupported swizzle, got Sw<B,M,S>`;
2. the element width is 4, 8, 16 or 32 bits and the layout has two modes (MN, K) (own messages);
3. MN-major: the K mode holds `256/elem_bits` (or `512/elem_bits`, sparse) elements; K-major: the
   MN size is a multiple of the per-lane count (`… multiple of 8.`, 4 for 4-bit types);
4. in 16-byte units, each mode splits into an atom part and one leftover part, each a single
   extent and stride (`No flat offset mode`);
5. the atom strides are canonical (`Expected stride failure.`): MN-major — MN unit-stride unless
   unswizzled, K rows W units apart; K-major — rows W units apart, K chunks adjacent unless
   unswizzled (W = swizzle width / 16 bytes: 1, 2, 4, 8).

On success it returns `(elem_class, k_size, mn_size)`.

## Why is this bad
A UMMA shared-memory descriptor can only describe canonical layouts (start address, LBO, SBO,
swizzle). A layout that is not canonical is packed into a descriptor that addresses other
elements: wrong results without any error at run time.

## Example
```json
{"verifier": "umma-layout", "direction": "K", "elem_bits": 16, "swizzle": [3, 4, 3], "layout": "((8,16),16):((32,512),1)"}
```
→ `atom-umma-canonical-layout: Not a canonical UMMA_K Layout: Expected stride failure.` (rows of a
128-byte swizzle atom are 64 f16 elements apart, not 32).

## Use instead
```json
{"verifier": "umma-layout", "direction": "K", "elem_bits": 16, "swizzle": [3, 4, 3], "layout": "((8,16),16):((64,512),1)"}
```

## Options
None.

## Known limitations
PTX carries only the descriptors (their fields are `ptx-tcgen05-smem-descriptor`'s), so this rule
is reachable through `irlint atoms` and the Rust API. CUTLASS's UMMA code has no K-size check; the
gate here follows CUTLASS's SM90 GMMA check (`mma_traits_sm90_gmma.hpp`, "Expected K-size
256/sizeof_bits<T>").

## References
- `docs/atoms.md`
- CUTLASS `include/cute/atom/mma_traits_sm100.hpp` (`make_umma_desc`, v3.8; from v4.6
  `include/cute/arch/mma_sm100_desc.hpp`)
- PTX ISA, shared-memory matrix layouts: https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-smem-layout
"#,
);

/// `atom-tcgen05-kind`.
pub const TCGEN05_KIND: RuleMeta = meta(
    AtomRule::Tcgen05Kind,
    "a tcgen05.mma kind word that breaks one of the 13 mutual-exclusion rules",
    r#"
## What it does
Decodes the 9-bit tcgen05.mma kind word (bit 0 ws, bit 1 cta_group::2, bits 2–3 scale vector
0 none / 1 1X / 2 2X / 3 4X, bit 4 scale-input accumulator, bit 5 block scale, bits 6–8 the kind:
0 mxf4nvf4, 1 i8, 2 mxf8f6f4, 3 f16, 4 tf32, 5 f8f6f4, 7 mxf4), the collector word (bit 2 ashift,
bits 0–1 collector::a mode: 1 lastuse, 2 fill, 3 use), sparsity, the arch-conditional flag and the
target, and walks 13 rules in order. The first that fires is the diagnostic, worded byte for
byte as NVIDIA's compiler words it (rule 10's "colletor" included). On success it returns the
opcode index (10521 block scale, 10522 plain; see `docs/atoms.md`).

| # | fires when |
|---|---|
| 1 | kind i8, unless arch-conditional on sm_100/101/110 |
| 2 | sparse mxf4/mxf4nvf4, not arch-conditional |
| 3 | explicit scale vector, not arch-conditional |
| 4 | scale-input accumulator, target not sm_100/103/107 with `a` or `f` |
| 5 | scale-input accumulator with a kind other than f16/tf32 |
| 6 | block scale with i8, f16, tf32 or f8f6f4 |
| 7 | block-scale opcode with ashift |
| 8 | ws with cta_group::2 (`(raw & 3) == 3`) |
| 9 | ws with mxf8f6f4, mxf4 or mxf4nvf4 |
| 10 | ashift with collector::a::use or ::fill |
| 11 | mxf8f6f4 with scale vector 2X or 4X |
| 12 | mxf4nvf4 with scale vector 1X (also when not given) |
| 13 | mxf4 with scale vector 1X or 4X (not given = 2X) |

## Why is this bad
Each combination is rejected by ptxas or by NVIDIA's compiler (`docs/atoms.md` gives ptxas
13.5's verdict on every form); a word built with the fields in the wrong order silently selects
another opcode.

## Example
```json
{"verifier": "tcgen05-kind", "raw": 66}
```
→ `atom-tcgen05-kind: INT8 type is supported only on arch-conditional variants.`

## Use instead
```json
{"verifier": "tcgen05-kind", "raw": 66, "is_arch_cond": true, "isa": "sm_100a"}
```
→ success, opcode 10522.

## Options
None.

## Known limitations
The field meanings above are the ones ptxas 13.5 and NVIDIA's compiler agree on (`docs/atoms.md`,
"Field meanings and deliberate choices"); kind value 6 and words above 0x1ff are reported with
own messages. Errors of the PTX form outside the 13 rules (tcgen05 on a target without it,
`.scale_vec` without `.block_scale`, `.collector::a` with `.ws`) are `atom-ptx-form`'s.

## References
- `docs/atoms.md`
- PTX ISA, `tcgen05.mma`: https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-mma-instructions
- PTX ISA, kinds and block scaling: https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-transpose-negate-mma-kind
"#,
);

/// `atom-sm120-block-scale`.
pub const SM120_BLOCK_SCALE: RuleMeta = meta(
    AtomRule::Sm120BlockScale,
    "an sm_120 block-scaled MMA outside the K/type/scale-factor lattice",
    r#"
## What it does
Checks an SM120 block-scaled MMA's parameters as one gate, first failure first: scale vector
size 16 or 32; K 32 or 64; for K = 32 FP4/FP6/FP8 inputs, `ue8m0` scale factors, vector size 32
and 8-bit scale fragments; for K = 64 `e2m1` inputs and `scale_fragment_bits × scale_vector_size
= 512`.

## Why is this bad
`mma.sync … .block_scale` on sm_120a exists only for these combinations (PTX ISA, block-scaled
`mma`); anything else fails in ptxas or reads the scale factors wrongly.

## Example
```json
{"verifier": "sm120-block-scale", "k": 64, "a_type": "e4m3", "b_type": "e2m1", "sf_type": "ue8m0",
 "scale_vector_size": 32, "scale_fragment_bits": 16}
```
→ ``atom-sm120-block-scale: `a_type` is e4m3, expected e2m1 when k is 64``

## Use instead
FP8/FP6 inputs use K = 32 with `ue8m0` scale factors.

## Options
None.

## Known limitations
Not checked here: the K = 64 scale-factor type per input type (`ue4m3` with `.scale_vec::4X` for
`.kind::mxf4nvf4`) and the `sm_120a`/`sm_121a` target gate; on PTX input `atom-ptx-form` reports
forms ptxas rejects for those reasons.

## References
- PTX ISA, `mma` with block scaling (`.kind::mxf8f6f4`, `.kind::mxf4`, `.kind::mxf4nvf4`):
  https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-mma
- `docs/atoms.md`
"#,
);

/// `atom-swizzle-commutation`.
pub const SWIZZLE_COMMUTATION: RuleMeta = meta(
    AtomRule::SwizzleCommutation,
    "an offset rewrite that assumes a swizzle commutes with adding the offset",
    r#"
## What it does
Rejects `add_offset(apply_swizzle(x), k) == apply_swizzle(add_offset(x, k))` unless the swizzle is
the identity or `k` is a multiple of the swizzle period `2^(B+M+S)` bytes (1024 for `Sw<3,4,3>`,
512 for `Sw<2,4,3>` and `Sw<2,5,2>`, 256 for `Sw<1,4,3>`). The swizzle must be one of the known
modes (`Sw<0,4,3>`, `Sw<1,4,3>`, `Sw<2,4,3>`, `Sw<3,4,3>`, `Sw<2,5,2>`): an unknown mode is
reported, never folded to the identity.

## Why is this bad
For a smaller offset either a carry reaches the swizzled bit ranges or the XOR and the addition
disagree, so the rewritten address points at another element for some base addresses.

## Example
```json
{"verifier": "swizzle-commutation", "swizzle": [3, 4, 3], "offset": 32}
```
→ ``atom-swizzle-commutation: `offset` is 32, expected a multiple of 1024 bytes (the swizzle period) for the offset to commute with the swizzle``

## Use instead
Apply the swizzle to the offset address (`swizzle(x + k)`), or move by whole periods.

## Options
None.

## Known limitations
No PTX input: swizzles live in tensor maps and descriptors, not in instructions.

## References
- CuTe `Swizzle<B,M,S>`: https://github.com/NVIDIA/cutlass/blob/main/include/cute/swizzle.hpp
- PTX ISA, swizzling modes: https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-smem-layout
- `docs/atoms.md`
"#,
);

/// `atom-tma-rank-mode`.
pub const TMA_RANK_MODE: RuleMeta = meta(
    AtomRule::TmaRankMode,
    "a TMA bulk-tensor copy whose rank does not fit its mode or whose mode the target lacks",
    r#"
## What it does
Checks a TMA (`cp.async.bulk.tensor`) atom: rank 1 to 5; `im2col`, `im2col::w`, `im2col::w::128`
rank 3 to 5; `tile::scatter4` and `tile::gather4` rank 2; `im2col::w` and `tile::gather4` need
sm_100 or later; `im2col::w::128` and `tile::scatter4` need the sm_100a/f class (100, 101, 103,
110 with `a` or `f`).

On PTX input (`cp.async.bulk.tensor`, `cp.reduce.async.bulk.tensor`,
`cp.async.bulk.prefetch.tensor`) it also checks the operand lists against the rank and mode, in
irlint's own words: the coordinates of `[tensorMap, {coords}]` (`.Nd` of them; 5 for
`tile::gather4`/`tile::scatter4`: a column and four rows), the `{im2colInfo}` offsets of a load
(`.im2col`: rank − 2; `.im2col::w`, `::w::128`: wHalo and wOffset; none for the tile modes), and
the instruction itself below sm_90 (reported only for a form that is valid on sm_90, so a
wrong count is never told to change its target).

## Why is this bad
ptxas rejects these forms ("Modifier '.2d' cannot be combined with modifier '.im2col'", "requires
.target sm_100 or higher"); generated from a layout, the error no longer names the tensor.

## Example
```json
{"verifier": "tma", "mode": "im2col", "rank": 2, "target": "sm_90a"}
```
→ ``atom-tma-rank-mode: `rank` is 2, expected 3 to 5 for mode im2col``

## Use instead
Use `tile` mode for rank-2 tensors, or describe the convolution input with its spatial ranks.

## Options
None.

## Known limitations
Direction rules (gather4/im2col load-only, scatter4 store-only), completion mechanisms and the
per-destination target table are `atom-ptx-form`'s. `scripts/ptx_oracle.py` measures the
agreement with ptxas 13.5 (`docs/atoms.md`).

## References
- PTX ISA, `cp.async.bulk.tensor`: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk-tensor
- `docs/atoms.md`
"#,
);

/// All atom rules, in [`AtomRule::ALL`] order.
pub const ATOM_RULES: [RuleMeta; 9] = [
    LDSM_MODE,
    STSM_MODE,
    MATRIX_COPY,
    REGISTER_FRAGMENT,
    UMMA_CANONICAL_LAYOUT,
    TCGEN05_KIND,
    SM120_BLOCK_SCALE,
    SWIZZLE_COMMUTATION,
    TMA_RANK_MODE,
];

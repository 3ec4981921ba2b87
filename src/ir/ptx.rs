//! Typed facts for PTX matrix instructions: exactly the inputs the matrix-atom
//! verifiers take, with the field meanings of `docs/atoms.md` ("Field meanings
//! and deliberate choices") applied where they decide a value.

use super::facts::Operand;
use serde::Serialize;
use std::sync::Arc;

/// Text of a PTX instruction as written (its word, type words, state
/// spaces): the facts recognised from one instruction shape share it, so a
/// copy of a fact costs a count, not an allocation. Reads as a `str`.
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Text(Arc<str>);

impl Text {
    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for Text {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text(Arc::from(s))
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text(Arc::from(s))
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&*self.0, f)
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for Text {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<Text> for str {
    fn eq(&self, other: &Text) -> bool {
        self == &*other.0
    }
}

impl PartialEq<Text> for &str {
    fn eq(&self, other: &Text) -> bool {
        *self == &*other.0
    }
}

/// A parsed `.target`: `sm_100a` → SM 100, suffix `a`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct PtxTarget {
    /// SM number (`100` for `sm_100a`).
    pub sm: u32,
    /// `a` (architecture-specific), `f` (family) or none.
    pub suffix: Option<char>,
    /// `.version` major and minor.
    pub version: (u32, u32),
}

impl PtxTarget {
    /// Parses `sm_NN[a|f]`.
    pub fn parse(word: &str, version: (u32, u32)) -> Option<PtxTarget> {
        let rest = word.strip_prefix("sm_")?;
        let (digits, suffix) = match rest.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
            Some((i, c)) if i + 1 == rest.len() && (c == 'a' || c == 'f') => (rest.get(..i)?, Some(c)),
            Some(_) => return None,
            None => (rest, None),
        };
        Some(PtxTarget { sm: digits.parse().ok()?, suffix, version })
    }

    /// `sm_100a`.
    pub fn name(&self) -> String {
        match self.suffix {
            Some(c) => format!("sm_{}{c}", self.sm),
            None => format!("sm_{}", self.sm),
        }
    }
}

/// Scale-vector size of a block-scaled MMA as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScaleVec {
    /// Not written.
    None,
    /// `.scale_vec::1X`
    X1,
    /// `.scale_vec::2X`
    X2,
    /// `.scale_vec::4X`
    X4,
    /// `.block16`
    Block16,
    /// `.block32`
    Block32,
}

impl ScaleVec {
    /// The seed's 2-bit field with D2 applied: 0 none or `.blockN`, 1 = 1X, 2 = 2X, 3 = 4X.
    pub fn field(self) -> u16 {
        match self {
            ScaleVec::X1 => 1,
            ScaleVec::X2 => 2,
            ScaleVec::X4 => 3,
            _ => 0,
        }
    }
}

/// `.kind::K` of `tcgen05.mma` and block-scaled `mma`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)]
pub enum MmaKind {
    Mxf4nvf4,
    I8,
    Mxf8f6f4,
    F16,
    Tf32,
    F8f6f4,
    Mxf4,
    /// PTX 9.4 `.kind::ti16` (D10: no seed value).
    Ti16,
}

impl MmaKind {
    /// Parses the word after `kind::`.
    pub fn parse(s: &str) -> Option<MmaKind> {
        Some(match s {
            "mxf4nvf4" => MmaKind::Mxf4nvf4,
            "i8" => MmaKind::I8,
            "mxf8f6f4" => MmaKind::Mxf8f6f4,
            "f16" => MmaKind::F16,
            "tf32" => MmaKind::Tf32,
            "f8f6f4" => MmaKind::F8f6f4,
            "mxf4" => MmaKind::Mxf4,
            "ti16" => MmaKind::Ti16,
            _ => return None,
        })
    }

    /// The atoms library's kind (none for `ti16`, which the seed does not model).
    pub fn to_atom(self) -> Option<crate::atoms::MmaKind> {
        use crate::atoms::MmaKind as A;
        Some(match self {
            MmaKind::Mxf4nvf4 => A::Mxf4nvf4,
            MmaKind::I8 => A::I8,
            MmaKind::Mxf8f6f4 => A::Mxf8f6f4,
            MmaKind::F16 => A::F16,
            MmaKind::Tf32 => A::Tf32,
            MmaKind::F8f6f4 => A::F8f6f4,
            MmaKind::Mxf4 => A::Mxf4,
            MmaKind::Ti16 => return None,
        })
    }

    /// The seed's 3-bit kind value (the atoms library's numbering).
    pub fn seed_value(self) -> Option<u16> {
        self.to_atom().map(crate::atoms::MmaKind::bits)
    }
}

/// `ldmatrix` / `stmatrix` (§2.3).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LdStMatrix {
    /// `stmatrix`.
    pub store: bool,
    /// Shape rows (`m8n16` → 8).
    pub m: u32,
    /// Shape columns (`m8n16` → 16).
    pub n: u32,
    /// `.x1`/`.x2`/`.x4` → 1/2/4 (0 when missing).
    pub num: u32,
    /// `.trans`.
    pub trans: bool,
    /// Element format as written after the modifiers (`b16`, `b8`, `b8x16.b4x16_p64`, `s8.s4`).
    pub format: Text,
    /// `.shared`/`.shared::cta` written (otherwise a generic address).
    pub shared: bool,
    /// Registers in the register vector operand.
    pub registers: u32,
    /// Registers the form needs: num × (2 for `.m16n16` ldmatrix, else 1).
    pub expected_registers: u32,
    /// The shared-memory row address.
    #[serde(skip)]
    pub address: Option<Operand>,
}

/// `tcgen05.mma{.sp,.ws}…` (§2.1).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tcgen05Mma {
    /// `.ws`.
    pub ws: bool,
    /// `.sp` (a separate input, D4).
    pub sparse: bool,
    /// `.cta_group::N` (0 when missing).
    pub cta_group: u32,
    /// `.kind::K` (None when missing or unknown).
    pub kind: Option<MmaKind>,
    /// The kind word as written (`f16`, `ti16`, …).
    pub kind_text: Option<Text>,
    /// `.block_scale`.
    pub block_scale: bool,
    /// Scale vector size as written.
    pub scale_vec: ScaleVec,
    /// `.ashift`.
    pub ashift: bool,
    /// `.collector::…` usage as written (`a::fill`, `b0::use`).
    pub collector: Option<Text>,
    /// A operand is `[a-tmem]` (otherwise an a-desc).
    pub a_tmem: bool,
    /// Trailing `scale-input-d` immediate (non-ws forms).
    pub scale_input_d: Option<u64>,
    /// Registers of a `disable-output-lane` vector.
    pub disable_output_lane: Option<u32>,
    /// `.ws` zero-column-mask descriptor present.
    pub zero_column_mask: bool,
    /// Operands written.
    pub operand_count: u32,
    /// Operands after idesc (scale operands, disable-output-lane, enable-input-d, ...).
    pub operands_after_idesc: u32,
    /// Leading `[address]` operands after idesc (the `[scale-A], [scale-B]` of `.block_scale`).
    pub addresses_after_idesc: u32,
    /// `.ws` written somewhere other than directly after `tcgen05.mma` (ptxas: "Unknown
    /// modifier '.ws'"); such a form is decoded as not weight-stationary.
    pub ws_misplaced: bool,
    /// The seed's 9-bit kind word with D1–D3 applied (bit 0 ws, 1 cta_group::2,
    /// 2–3 scale vector, 4 scale-input-d, 5 block_scale, 6–8 kind).
    pub kind_word: u16,
    /// `.collector::a::use` or `::fill` (rule 10's collector input).
    pub collector_a_use_or_fill: bool,
    /// The instruction descriptor operand.
    #[serde(skip)]
    pub idesc: Option<Operand>,
    /// The A shared-memory descriptor (`None` when A is in tensor memory).
    #[serde(skip)]
    pub a_desc: Option<Operand>,
    /// The B shared-memory descriptor.
    #[serde(skip)]
    pub b_desc: Option<Operand>,
}

/// Block-scaled `mma.sync` / `mma.sp` for sm_120 (§2.5).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BlockScaledMma {
    /// `.sp::ordered_metadata` (or `.sp`) anywhere among the modifiers.
    pub sparse: bool,
    /// The sparsity modifier as written (`sp::ordered_metadata`, `sp`), if any.
    pub sparse_modifier: Option<Text>,
    /// The layouts in written order (`row.col`).
    pub layouts: Text,
    /// Every type word in written order (D, A, B, C, scale: `f32.e4m3.e4m3.f32.ue8m0`).
    pub types: Text,
    /// Registers in the D, A, B and C vectors (0 for an operand that is not a vector).
    pub fragments: [u32; 4],
    /// Shape M, N, K as written.
    pub m: u32,
    /// N.
    pub n: u32,
    /// K.
    pub k: u32,
    /// `.kind::K`.
    pub kind: Option<MmaKind>,
    /// `.block_scale` present.
    pub block_scale: bool,
    /// Scale vector as written.
    pub scale_vec: ScaleVec,
    /// A element type (`e4m3`, `e2m1`, …).
    pub a_type: Text,
    /// B element type.
    pub b_type: Text,
    /// Scale-factor type (`ue8m0`, `ue4m3`).
    pub scale_type: Text,
}

/// Tensor-copy load mode (§2.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[allow(missing_docs)]
pub enum TmaMode {
    Tile,
    Im2col,
    Im2colW,
    Im2colW128,
    Gather4,
    Scatter4,
    Im2colNoOffs,
    Im2colNoOffsW,
}

/// `cp.async.bulk.tensor` (and the `cp.reduce…`/`prefetch` forms) (§2.7).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TensorCopy {
    /// Instruction family: `cp.async.bulk.tensor`, `cp.reduce.async.bulk.tensor`,
    /// `cp.async.bulk.prefetch.tensor`.
    pub family: Text,
    /// `.Nd`.
    pub rank: u32,
    /// Load mode (`.tile` when not written).
    pub mode: TmaMode,
    /// Destination state space (`shared::cta`, `shared::cluster`, `global`; empty for prefetch).
    pub dst: Text,
    /// Source state space (the second one written; empty for prefetch).
    pub src: Text,
    /// Completion mechanism (`mbarrier::complete_tx::bytes`, `bulk_group`, or empty).
    pub completion: Text,
    /// Elements of the `{im2colInfo}` vector operand (`None` when there is none).
    pub im2col_offsets: Option<u32>,
    /// The reduction of `cp.reduce.async.bulk.tensor` (`add`, `min`, ...), if written.
    pub reduction: Option<Text>,
    /// `.L2::cache_hint` (a trailing cache-policy operand).
    pub cache_hint: bool,
    /// Operands written.
    pub operand_count: u32,
    /// Global → shared.
    pub load: bool,
    /// `.multicast::cluster`.
    pub multicast: bool,
    /// `.cta_group::N`.
    pub cta_group: Option<u32>,
    /// Coordinates in the tensor operand.
    pub coords: u32,
    /// The shared-memory address (`[dstMem]` of a load, `[srcMem]` of a store).
    #[serde(skip)]
    pub smem: Option<Operand>,
    /// The mbarrier address of a load.
    #[serde(skip)]
    pub mbarrier: Option<Operand>,
}

/// `wgmma.mma_async{.sp}` (sm_90a): shape, types, register counts and the
/// shared-memory matrix descriptors.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Wgmma {
    /// `.sp`.
    pub sparse: bool,
    /// Shape M, N, K as written (0 when missing).
    pub m: u32,
    /// N.
    pub n: u32,
    /// K.
    pub k: u32,
    /// The type words in written order (D, A, B: `f32.bf16.bf16`).
    pub types: Text,
    /// `.satfinite`.
    pub satfinite: bool,
    /// `.and.popc` (the b1 form's operation), as written (`and.popc`, or empty).
    pub bit_op: Text,
    /// Registers in the accumulator vector `d`.
    pub d_registers: u32,
    /// Registers of A when it is a register vector (`None` for an a-desc).
    pub a_registers: Option<u32>,
    /// The A descriptor (`None` when A is in registers).
    #[serde(skip)]
    pub a_desc: Option<Operand>,
    /// The B descriptor.
    #[serde(skip)]
    pub b_desc: Option<Operand>,
}

/// An `mbarrier.*` instruction on a shared-memory mbarrier object, or the
/// mbarrier a `tcgen05.commit` arrives on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mbarrier {
    /// The mbarrier object's address.
    #[serde(skip)]
    pub address: Option<Operand>,
}

/// What a PTX matrix fact is.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum PtxOp {
    /// `ldmatrix`/`stmatrix`.
    LdStMatrix(LdStMatrix),
    /// `tcgen05.mma*`.
    Tcgen05Mma(Tcgen05Mma),
    /// Block-scaled `mma.sync`/`mma.sp`.
    BlockScaledMma(BlockScaledMma),
    /// `cp.async.bulk.tensor`.
    TensorCopy(TensorCopy),
    /// `mbarrier.*` with an address operand, and `tcgen05.commit`'s mbarrier.
    Mbarrier(Mbarrier),
    /// `wgmma.mma_async`.
    Wgmma(Wgmma),
}

impl PtxOp {
    /// The operands whose dataflow values the value rules read.
    pub fn value_operands(&self) -> smallvec::SmallVec<[Operand; 3]> {
        let v: [Option<Operand>; 3] = match self {
            PtxOp::LdStMatrix(x) => [x.address, None, None],
            PtxOp::Tcgen05Mma(x) => [x.idesc, x.a_desc, x.b_desc],
            PtxOp::TensorCopy(x) => [x.smem, x.mbarrier, None],
            PtxOp::Mbarrier(x) => [x.address, None, None],
            PtxOp::Wgmma(x) => [x.a_desc, x.b_desc, None],
            PtxOp::BlockScaledMma(_) => [None, None, None],
        };
        let mut out = smallvec::SmallVec::new();
        for o in v.into_iter().flatten() {
            out.push(o);
        }
        out
    }
}

/// A PTX matrix instruction with the module's target.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PtxMatrixOp {
    /// The instruction word as written.
    pub word: Text,
    /// Parsed `.target` (None when missing or not an `sm_` target).
    pub target: Option<PtxTarget>,
    /// The payload.
    pub op: PtxOp,
}

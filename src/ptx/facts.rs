//! Matrix instructions recognised as typed facts for the atom verifiers:
//! `ldmatrix`/`stmatrix`, `tcgen05.mma*`, block-scaled `mma.sync`/`mma.sp` and
//! `cp.async.bulk.tensor`, with the inputs the atom verifiers take (`docs/atoms.md`).

use super::parse::{InstRef, Operand as Syn};
use super::Opcode;
use crate::ir::{
    BlockScaledMma, Fact, FactKind, FuncH, InstH, InstKind, LdStMatrix, Mbarrier, MmaKind, Operand, PtxMatrixOp, PtxOp,
    PtxTarget, ScaleVec, Tcgen05Mma, TensorCopy, Text, TmaMode, Value, Wgmma,
};

/// A fact found while lowering one function, before its function handle is known.
#[derive(Debug, Clone)]
pub struct Pending {
    inst: InstH,
    op: PtxMatrixOp,
}

impl Pending {
    /// Rewrites the SSA values the fact holds (trivial phis folded away).
    pub(crate) fn map_values(&mut self, mut f: impl FnMut(Value) -> Value) {
        let slots: [Option<&mut Option<Operand>>; 3] = match &mut self.op.op {
            PtxOp::LdStMatrix(x) => [Some(&mut x.address), None, None],
            PtxOp::Tcgen05Mma(x) => [Some(&mut x.idesc), Some(&mut x.a_desc), Some(&mut x.b_desc)],
            PtxOp::TensorCopy(x) => [Some(&mut x.smem), Some(&mut x.mbarrier), None],
            PtxOp::Mbarrier(x) => [Some(&mut x.address), None, None],
            PtxOp::Wgmma(x) => [Some(&mut x.a_desc), Some(&mut x.b_desc), None],
            PtxOp::BlockScaledMma(_) => return,
        };
        for slot in slots.into_iter().flatten() {
            if let Some(Operand::Value(v)) = slot {
                *v = f(*v);
            }
        }
    }

    /// The fact in function `function`.
    /// Rewrites the instruction the fact is about (the arena compacted).
    pub(crate) fn map_inst(&mut self, f: impl FnOnce(InstH) -> InstH) {
        self.inst = f(self.inst);
    }

    /// The SSA values the fact reads ([`PtxOp::value_operands`]).
    pub(crate) fn value_operands(&self) -> smallvec::SmallVec<[Operand; 3]> {
        self.op.op.value_operands()
    }

    pub(crate) fn into_fact(self, function: FuncH) -> Fact {
        Fact { function, inst: self.inst, kind: FactKind::Ptx(self.op) }
    }
}

fn vector_len(o: Option<&Syn>) -> u32 {
    match o {
        Some(Syn::Vector(v)) => v.len() as u32,
        Some(_) => 1,
        None => 0,
    }
}

/// `m8n16` → (8, 16); `m16n8k32` → (16, 8, 32) through [`shape3`].
fn shape(m: &str) -> Option<(u32, u32)> {
    let rest = m.strip_prefix('m')?;
    let (a, b) = rest.split_once('n')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

fn shape3(m: &str) -> Option<(u32, u32, u32)> {
    let rest = m.strip_prefix('m')?;
    let (a, rest) = rest.split_once('n')?;
    let (b, c) = rest.split_once('k')?;
    Some((a.parse().ok()?, b.parse().ok()?, c.parse().ok()?))
}

fn scale_vec(op: &Words<'_>) -> ScaleVec {
    for m in op.mods() {
        match m {
            "scale_vec::1X" => return ScaleVec::X1,
            "scale_vec::2X" => return ScaleVec::X2,
            "scale_vec::4X" => return ScaleVec::X4,
            "block16" => return ScaleVec::Block16,
            "block32" => return ScaleVec::Block32,
            _ => {}
        }
    }
    ScaleVec::None
}

/// An instruction word split once into its base and modifiers: the fact
/// builders ask for modifiers a dozen times, which [`Opcode`] answers by
/// splitting the word again each time.
struct Words<'a> {
    text: &'a str,
    base: &'a str,
    mods: smallvec::SmallVec<[&'a str; 16]>,
}

impl<'a> Words<'a> {
    fn new(op: &Opcode<'a>) -> Self {
        Words { text: op.text, base: op.base(), mods: op.mods().collect() }
    }

    fn base(&self) -> &'a str {
        self.base
    }

    /// The modifiers in written order (as [`Opcode::mods`]).
    fn mods(&self) -> impl Iterator<Item = &'a str> + Clone + '_ {
        self.mods.iter().copied()
    }

    /// As [`Opcode::has`].
    fn has(&self, m: &str) -> bool {
        self.mods.contains(&m)
    }

    /// As [`Opcode::find`].
    fn find(&self, prefix: &str) -> Option<&'a str> {
        self.mods().find(|x| x.starts_with(prefix))
    }
}

fn operand_of(values: &[Value], i: usize) -> Option<Operand> {
    values.get(i).map(|v| Operand::Value(*v))
}

/// Which fact an instruction word may give, decided once per word by
/// [`class`] (the lowering keeps it with the word's other facts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    LdStMatrix,
    Tcgen05Mma,
    BlockScaledMma,
    TensorCopy,
    Wgmma,
    Mbarrier,
}

/// The fact class of an instruction word; `None`: it never gives a fact.
pub(crate) fn class(op: &Opcode<'_>) -> Option<Class> {
    Some(match op.base() {
        "ldmatrix" | "stmatrix" => Class::LdStMatrix,
        "tcgen05" if op.second() == Some("mma") => Class::Tcgen05Mma,
        "mma" if op.find("kind::").is_some() || op.has("block_scale") => Class::BlockScaledMma,
        // A bulk tensor copy (the others give no fact: decided here, once per word).
        "cp" if tensor_family(op.text).is_some() => Class::TensorCopy,
        "wgmma" if op.second() == Some("mma_async") => Class::Wgmma,
        "mbarrier" => Class::Mbarrier,
        // `tcgen05.commit…mbarrier::arrive::one.b64 [mbar]`: an arrive on an mbarrier object.
        "tcgen05" if op.second() == Some("commit") && op.find("mbarrier::").is_some() => Class::Mbarrier,
        _ => return None,
    })
}

/// Recognises a matrix instruction of fact class `class` (of its word, see
/// [`class`]) lowered to `kind` at `inst`.
pub(crate) fn recognise(
    class: Class,
    ins: &InstRef<'_, '_>,
    inst: InstH,
    kind: &InstKind,
    target: Option<PtxTarget>,
) -> Option<Pending> {
    let values: &[Value] = match kind {
        InstKind::Other { operands, .. } => operands,
        _ => &[],
    };
    if class == Class::Mbarrier {
        // Only its address: the word is not split.
        let op = PtxOp::Mbarrier(Mbarrier { address: Some(mbarrier_address(ins, values)?) });
        return Some(Pending { inst, op: PtxMatrixOp { word: ins.op.into(), target, op } });
    }
    let op = &Words::new(&Opcode::new(ins.op));
    let payload = match class {
        Class::LdStMatrix => PtxOp::LdStMatrix(ldst(op, ins, values)),
        Class::Tcgen05Mma => PtxOp::Tcgen05Mma(tcgen05(op, ins, values)),
        Class::BlockScaledMma => PtxOp::BlockScaledMma(block_mma(op, ins)),
        Class::TensorCopy => PtxOp::TensorCopy(tensor_copy(op, ins, values)?),
        Class::Wgmma => PtxOp::Wgmma(wgmma(op, ins, values)),
        Class::Mbarrier => PtxOp::Mbarrier(Mbarrier { address: Some(mbarrier_address(ins, values)?) }),
    };
    Some(Pending { inst, op: PtxMatrixOp { word: ins.op.into(), target, op: payload } })
}

fn ldst(op: &Words<'_>, ins: &InstRef<'_, '_>, values: &[Value]) -> LdStMatrix {
    let store = op.base() == "stmatrix";
    let (mut m, mut n, mut num) = (0, 0, 0);
    let mut format: smallvec::SmallVec<[&str; 8]> = smallvec::SmallVec::new();
    for x in op.mods() {
        match x {
            "sync" | "aligned" | "trans" | "shared" | "shared::cta" => {}
            // Any `.xN` is the matrix count (`.x3` is decoded as 3 and rejected by the verifier).
            _ if x.len() > 1 && x.starts_with('x') && x.as_bytes()[1..].iter().all(u8::is_ascii_digit) => {
                num = x[1..].parse().unwrap_or(u32::MAX);
            }
            _ => match shape(x) {
                Some((a, b)) if x.starts_with('m') => (m, n) = (a, b),
                _ => format.push(x),
            },
        }
    }
    let (reg_op, addr_index) = if store { (ins.operands.get(1), 0) } else { (ins.operands.first(), 0) };
    let per = if !store && m == 16 && n == 16 { 2 } else { 1 };
    let num = if num == u32::MAX { 0 } else { num };
    LdStMatrix {
        store,
        m,
        n,
        num,
        trans: op.has("trans"),
        format: format.join(".").into(),
        shared: op.has("shared") || op.has("shared::cta"),
        registers: vector_len(reg_op),
        expected_registers: num.saturating_mul(per),
        address: operand_of(values, addr_index),
    }
}

fn tcgen05(op: &Words<'_>, ins: &InstRef<'_, '_>, values: &[Value]) -> Tcgen05Mma {
    // `.ws` is part of the instruction name `tcgen05.mma.ws`: anywhere else ptxas
    // does not know it. `.sp` and every other modifier may come in any order.
    let ws = op.mods().nth(1) == Some("ws");
    let ws_misplaced = !ws && op.has("ws");
    let sparse = op.has("sp");
    let cta_group = op.find("cta_group::").and_then(|c| c.strip_prefix("cta_group::")?.parse().ok()).unwrap_or(0);
    let kind_text = op.find("kind::").and_then(|k| k.strip_prefix("kind::"));
    let kind = kind_text.and_then(MmaKind::parse);
    let block_scale = op.has("block_scale");
    let sv = scale_vec(op);
    let collector = op.find("collector::").and_then(|c| c.strip_prefix("collector::"));
    let ops = &ins.operands;
    let a_tmem = matches!(ops.get(1), Some(Syn::Addr(_)));
    // [d], A, b-desc, {[sp-meta],} idesc, …
    let idesc_index = if sparse { 4 } else { 3 };
    let rest = ops.get(idesc_index + 1..).unwrap_or(&[]);
    let addresses_after_idesc = rest.iter().take_while(|o| matches!(o, Syn::Addr(_))).count() as u32;
    let mut disable_output_lane = None;
    let mut scale_input_d = None;
    let mut zero_column_mask = false;
    if ws {
        zero_column_mask = rest.len() >= 2;
    } else if !block_scale {
        let mut r: Vec<&Syn> = rest.iter().collect();
        if let Some(Syn::Vector(v)) = r.first() {
            disable_output_lane = Some(v.len() as u32);
            r.remove(0);
        }
        if let [_, Syn::Int(x)] = r.as_slice() {
            scale_input_d = Some(*x as u64);
        }
    }
    // The value operand of idesc: flattened operands are one value per written
    // operand up to idesc (addresses without extras), so the index matches.
    let idesc = operand_of(values, idesc_index);
    let kind_word = u16::from(ws)
        | (u16::from(cta_group == 2) << 1)
        | (sv.field() << 2)
        | (u16::from(scale_input_d.is_some()) << 4)
        | (u16::from(block_scale) << 5)
        | (kind.and_then(MmaKind::seed_value).unwrap_or(0) << 6);
    Tcgen05Mma {
        ws,
        sparse,
        cta_group,
        kind,
        kind_text: kind_text.map(Text::from),
        block_scale,
        scale_vec: sv,
        ashift: op.has("ashift"),
        collector: collector.map(Text::from),
        a_tmem,
        scale_input_d,
        disable_output_lane,
        zero_column_mask,
        operand_count: ops.len() as u32,
        operands_after_idesc: rest.len() as u32,
        addresses_after_idesc,
        ws_misplaced,
        kind_word,
        collector_a_use_or_fill: matches!(collector, Some("a::use" | "a::fill")),
        idesc,
        a_desc: if a_tmem { None } else { operand_of(values, 1) },
        b_desc: operand_of(values, 2),
    }
}

/// A type word of an MMA (`f32`, `bf16`, `e4m3`, `ue8m0`, `s8`, `b1`, ...).
fn is_type_word(x: &str) -> bool {
    matches!(
        x,
        "e4m3" | "e5m2" | "e3m2" | "e2m3" | "e2m1" | "ue8m0" | "ue4m3" | "tf32" | "bf16" | "f16" | "f32" | "f64"
    ) || scalar_type_word(x)
}

fn scalar_type_word(x: &str) -> bool {
    matches!(x, "s4" | "u4" | "b1") || super::scalar_type(x).is_some()
}

/// Block-scaled `mma`: every modifier may come in any order (ptxas 13.5 accepts
/// `mma.sync.aligned.kind::mxf8f6f4.sp::ordered_metadata.block_scale…`, as CUTLASS
/// writes it) except the two sequences: the layouts (`row.col`) and the types
/// (D, A, B, C, scale).
fn block_mma(op: &Words<'_>, ins: &InstRef<'_, '_>) -> BlockScaledMma {
    let (mut m, mut n, mut k) = (0, 0, 0);
    let mut types: smallvec::SmallVec<[&str; 8]> = smallvec::SmallVec::new();
    let mut layouts: smallvec::SmallVec<[&str; 8]> = smallvec::SmallVec::new();
    let mut sparse_modifier = None;
    for x in op.mods() {
        if let Some(s) = shape3(x) {
            (m, n, k) = s;
        } else if x == "sp" || x.starts_with("sp::") {
            sparse_modifier.get_or_insert(x);
        } else if matches!(x, "row" | "col") {
            layouts.push(x);
        } else if is_type_word(x) {
            types.push(x);
        }
    }
    // Types in order: D, A, B, C, scale.
    let get = |i: usize| types.get(i).map_or_else(Text::default, |&s| Text::from(s));
    BlockScaledMma {
        sparse: sparse_modifier.is_some(),
        sparse_modifier: sparse_modifier.map(Text::from),
        layouts: layouts.join(".").into(),
        types: types.join(".").into(),
        fragments: [0, 1, 2, 3].map(|i| match ins.operands.get(i) {
            Some(Syn::Vector(v)) => v.len() as u32,
            _ => 0,
        }),
        m,
        n,
        k,
        kind: op.find("kind::").and_then(|x| MmaKind::parse(x.strip_prefix("kind::")?)),
        block_scale: op.has("block_scale"),
        scale_vec: scale_vec(op),
        a_type: get(1),
        b_type: get(2),
        scale_type: get(4),
    }
}

/// `wgmma.mma_async d, a-desc|{a}, b-desc, …`: the flattened sources start
/// after `d`; A in registers takes one value per register.
/// Every modifier but the instruction name (`wgmma.mma_async`) may come in any
/// order; the types are a sequence (D, A, B) and `.popc` ends the b1 operation.
fn wgmma(op: &Words<'_>, ins: &InstRef<'_, '_>, values: &[Value]) -> Wgmma {
    let (mut m, mut n, mut k) = (0, 0, 0);
    let mut types: smallvec::SmallVec<[&str; 8]> = smallvec::SmallVec::new();
    let mut bit_op: smallvec::SmallVec<[&str; 8]> = smallvec::SmallVec::new();
    for x in op.mods().skip(1) {
        if let Some(s) = shape3(x) {
            (m, n, k) = s;
        } else if matches!(x, "and" | "popc") {
            bit_op.push(x);
        } else if is_type_word(x) {
            types.push(x);
        }
    }
    let (a_desc, b_desc, a_registers) = match ins.operands.get(1) {
        Some(Syn::Vector(v)) => (None, operand_of(values, v.len()), Some(v.len() as u32)),
        Some(_) => (operand_of(values, 0), operand_of(values, 1), None),
        None => (None, None, None),
    };
    Wgmma {
        sparse: op.has("sp"),
        m,
        n,
        k,
        types: types.join(".").into(),
        satfinite: op.has("satfinite"),
        bit_op: bit_op.join(".").into(),
        d_registers: vector_len(ins.operands.first()),
        a_registers,
        a_desc,
        b_desc,
    }
}

/// The address operand of an `mbarrier.*` instruction: the first operand, or
/// the second after a destination register (`state`, `_`, a predicate).
fn mbarrier_address(ins: &InstRef<'_, '_>, values: &[Value]) -> Option<Operand> {
    match ins.operands {
        [Syn::Addr(_), ..] => operand_of(values, 0),
        [Syn::Reg(_) | Syn::Sym(_) | Syn::Sink, Syn::Addr(_), ..] => operand_of(values, 0),
        _ => None,
    }
}

/// The bulk tensor copy family a `cp…` word belongs to, if any.
fn tensor_family(t: &str) -> Option<&'static str> {
    ["cp.async.bulk.tensor", "cp.reduce.async.bulk.tensor", "cp.async.bulk.prefetch.tensor"]
        .into_iter()
        .find(|f| t.starts_with(f) && t.as_bytes().get(f.len()) == Some(&b'.'))
}

fn tensor_copy(op: &Words<'_>, ins: &InstRef<'_, '_>, values: &[Value]) -> Option<TensorCopy> {
    let family = tensor_family(op.text)?;
    let mut rank = 0;
    let mut mode = TmaMode::Tile;
    let mut spaces: smallvec::SmallVec<[&str; 8]> = smallvec::SmallVec::new();
    let mut completion = "";
    let mut reduction = None;
    for x in op.mods() {
        match x {
            "1d" | "2d" | "3d" | "4d" | "5d" => rank = u32::from(x.as_bytes()[0] - b'0'),
            "tile" => mode = TmaMode::Tile,
            "tile::gather4" => mode = TmaMode::Gather4,
            "tile::scatter4" => mode = TmaMode::Scatter4,
            "im2col" => mode = TmaMode::Im2col,
            "im2col::w" => mode = TmaMode::Im2colW,
            "im2col::w::128" => mode = TmaMode::Im2colW128,
            "im2col_no_offs" => mode = TmaMode::Im2colNoOffs,
            "im2col_no_offs::w" => mode = TmaMode::Im2colNoOffsW,
            "shared::cta" | "shared::cluster" | "global" | "shared" => spaces.push(x),
            "mbarrier::complete_tx::bytes" | "bulk_group" => completion = x,
            "add" | "min" | "max" | "inc" | "dec" | "and" | "or" | "xor" => reduction = Some(x),
            _ => {}
        }
    }
    let prefetch = family.contains("prefetch");
    // The state spaces are a sequence: destination, then source.
    let (dst, src) =
        if prefetch { ("", "") } else { (spaces.first().copied().unwrap_or(""), spaces.get(1).copied().unwrap_or("")) };
    let load = prefetch || dst.starts_with("shared");
    // The tensor operand: [tensorMap, {coords}] — second operand of a load, first of a store.
    let tensor = if load && !prefetch { ins.operands.get(1) } else { ins.operands.first() };
    let coords = match tensor {
        Some(Syn::Addr(a)) => a.extra(ins.items).iter().map(|e| vector_len(Some(e))).sum(),
        _ => 0,
    };
    // Flattened operands: an address, then its extra operands' elements.
    let (smem, mbarrier) = if prefetch {
        (None, None)
    } else if load {
        let mbar = matches!(ins.operands.get(2), Some(Syn::Addr(_)))
            .then(|| operand_of(values, 2 + coords as usize))
            .flatten();
        (operand_of(values, 0), mbar)
    } else {
        let src = matches!(ins.operands.get(1), Some(Syn::Addr(_))).then(|| operand_of(values, 1 + coords as usize));
        (src.flatten(), None)
    };
    // `{im2colInfo}`: the vector operand after the mbarrier of a load, after the
    // tensor operand of a prefetch.
    let info_index = if prefetch { 1 } else { 3 };
    let im2col_offsets = if load {
        match ins.operands.get(info_index) {
            Some(Syn::Vector(v)) => Some(v.len() as u32),
            _ => None,
        }
    } else {
        None
    };
    Some(TensorCopy {
        family: family.into(),
        rank,
        mode,
        dst: dst.into(),
        src: src.into(),
        completion: completion.into(),
        im2col_offsets,
        reduction: reduction.map(Text::from),
        cache_hint: op.find("L2::cache_hint").is_some(),
        operand_count: ins.operands.len() as u32,
        load,
        multicast: op.has("multicast::cluster"),
        cta_group: op.find("cta_group::").and_then(|c| c.strip_prefix("cta_group::")?.parse().ok()),
        coords,
        smem,
        mbarrier,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse() {
        assert_eq!(
            PtxTarget::parse("sm_100a", (8, 8)),
            Some(PtxTarget { sm: 100, suffix: Some('a'), version: (8, 8) })
        );
        assert_eq!(PtxTarget::parse("sm_120f", (9, 0)).map(|t| (t.sm, t.suffix)), Some((120, Some('f'))));
        assert_eq!(PtxTarget::parse("sm_80", (8, 7)).map(|t| (t.sm, t.suffix)), Some((80, None)));
        assert_eq!(PtxTarget::parse("sm_100x", (8, 7)), None);
        assert_eq!(PtxTarget::parse("compute_90", (8, 7)), None);
    }
}

//! The atom rules on PTX: each PTX matrix fact is turned into verifier inputs
//! (field meanings: `docs/atoms.md`) and checked by [`crate::atoms`]. The rule
//! ids, levels and docs are the atom rules' own ([`super::atom_meta`]);
//! messages are the verifiers' (the verbatim strings where there is one).

use super::{At, Finding, RuleContext};
use crate::atoms::{
    self, AtomDiag, LdsmMode, LdsmTuple, OperandForm, ScaleFactorType, SizePattern, Sm120Input, Sm120Type, StsmMode,
    StsmTuple, Suffix, Target, Tcgen05Input,
};
use crate::ir::{
    BlockScaledMma, FactKind, FuncH, InstH, LdStMatrix, MmaKind, PtxMatrixOp, PtxOp, PtxTarget, ScaleVec, Tcgen05Mma,
    TensorCopy, TmaMode,
};
use crate::report::{Certainty, FindingValue};

/// Every PTX matrix fact with its function and instruction.
pub fn ptx_facts(m: &crate::ir::Module) -> impl Iterator<Item = (FuncH, InstH, &PtxMatrixOp)> {
    m.facts.iter().filter_map(|f| match &f.kind {
        FactKind::Ptx(p) => Some((f.function, f.inst, p)),
        _ => None,
    })
}

/// The atoms library's target for a parsed `.target`.
pub fn atom_target(t: PtxTarget) -> Option<Target> {
    let suffix = match t.suffix {
        None => Suffix::None,
        Some('a') => Suffix::A,
        Some('f') => Suffix::F,
        Some(_) => return None,
    };
    Some(Target::new(u16::try_from(t.sm).ok()?, suffix))
}

/// The PTX line of an instruction (its span id).
pub fn ptx_line(cx: &RuleContext<'_>, f: FuncH, inst: InstH) -> u64 {
    cx.m.functions.try_get(f).and_then(|f| f.insts.try_get(inst)).map_or(0, |i| u64::from(i.span.id))
}

fn emit(cx: &mut RuleContext<'_>, f: FuncH, inst: InstH, p: &PtxMatrixOp, e: AtomDiag) {
    let line = ptx_line(cx, f, inst);
    cx.emit(Finding {
        rule: e.rule.id(),
        certainty: Certainty::Proven,
        force_error: false,
        message: e.message(),
        help: None,
        values: vec![("ptx-line", FindingValue::Int(line)), ("instruction", FindingValue::Text(p.word.to_string()))],
        at: At::Inst(f, inst),
    });
}

fn size_pattern(format: &str) -> Option<SizePattern> {
    Some(match format {
        "b16" => SizePattern::U16,
        "b8" => SizePattern::U8,
        "b8x16.b4x16_p64" => SizePattern::U4x16P64To8,
        "b8x16.b6x16_p32" => SizePattern::U6x16P32To8,
        "s8.s4" => SizePattern::S4To8,
        _ => return None,
    })
}

/// The LDSM tuple of an `ldmatrix` (§2.3), when the form maps onto a mode.
pub fn ldsm_mode(l: &LdStMatrix) -> Option<LdsmMode> {
    Some(match (l.m, l.n, l.trans) {
        (8, 8, false) => LdsmMode::M88,
        (8, 8, true) => LdsmMode::MT88,
        (8, 16, _) => LdsmMode::M816,
        (16, 16, _) => LdsmMode::MT1616,
        _ => return None,
    })
}

/// The STSM mode of a `stmatrix` (§2.3 with D14's 16x8 row).
pub fn stsm_mode(l: &LdStMatrix) -> Option<StsmMode> {
    Some(match (l.m, l.n, l.trans) {
        (8, 8, false) => StsmMode::M88,
        (8, 8, true) => StsmMode::MT88,
        (16, 8, _) => StsmMode::MT168,
        _ => return None,
    })
}

/// `atom-ldsm-mode` on `ldmatrix`.
pub fn check_ldsm(cx: &mut RuleContext<'_>) {
    ldst(cx, false);
}

/// `atom-stsm-mode` on `stmatrix`.
pub fn check_stsm(cx: &mut RuleContext<'_>) {
    ldst(cx, true);
}

/// The seed verifier's verdict on an `ldmatrix`/`stmatrix` (None when the form
/// has no count, element format or mode the seed's tables name).
pub fn ldst_verdict(l: &LdStMatrix) -> Option<Result<u64, AtomDiag>> {
    if l.num == 0 {
        return None;
    }
    let size = size_pattern(&l.format)?;
    let shape = [u64::from(l.registers)];
    Some(if l.store {
        let mode = stsm_mode(l)?;
        atoms::verify_stsm(&StsmTuple { mode, size, num_matrices: l.num, transpose: l.trans, result_shape: &shape })
    } else {
        let mode = ldsm_mode(l)?;
        atoms::verify_ldsm(&LdsmTuple { mode, size, num_matrices: l.num, transpose: l.trans, result_shape: &shape })
    })
}

fn ldst(cx: &mut RuleContext<'_>, store: bool) {
    let m = cx.m;
    for (f, inst, p) in ptx_facts(m) {
        let PtxOp::LdStMatrix(l) = &p.op else { continue };
        if l.store != store {
            continue;
        }
        if let Some(Err(e)) = ldst_verdict(l) {
            emit(cx, f, inst, p, e);
        }
    }
}

fn atom_kind(k: MmaKind) -> Option<atoms::MmaKind> {
    Some(match k {
        MmaKind::Mxf4nvf4 => atoms::MmaKind::Mxf4nvf4,
        MmaKind::I8 => atoms::MmaKind::I8,
        MmaKind::Mxf8f6f4 => atoms::MmaKind::Mxf8f6f4,
        MmaKind::F16 => atoms::MmaKind::F16,
        MmaKind::Tf32 => atoms::MmaKind::Tf32,
        MmaKind::F8f6f4 => atoms::MmaKind::F8f6f4,
        MmaKind::Mxf4 => atoms::MmaKind::Mxf4,
        MmaKind::Ti16 => return None,
    })
}

/// The verifier inputs of a `tcgen05.mma` (§2.1): kind word with D1–D3, the
/// collector word (bit 2 ashift, bits 0–1 collector::a mode), `.sp` apart
/// (D4), arch-conditional = `a` suffix (D5), `.blockN` as the implicit scale vector.
pub fn tcgen05_input(t: &Tcgen05Mma, target: Target) -> Option<Tcgen05Input> {
    let kind = atom_kind(t.kind?)?;
    let collector_mode = match t.collector.as_deref() {
        Some("a::lastuse") => 1,
        Some("a::fill") => 2,
        Some("a::use") => 3,
        _ => 0,
    };
    let form = match (t.disable_output_lane, t.zero_column_mask) {
        (Some(4), _) => OperandForm::DisableOutputLane4,
        (Some(8), _) => OperandForm::DisableOutputLane8,
        (_, true) => OperandForm::WsZeroColumnMask,
        _ => OperandForm::Plain,
    };
    let implicit_scale_vec = match t.scale_vec {
        ScaleVec::Block16 => Some(atoms::ScaleVec::X4),
        ScaleVec::Block32 if kind == atoms::MmaKind::Mxf8f6f4 => Some(atoms::ScaleVec::X1),
        ScaleVec::Block32 => Some(atoms::ScaleVec::X2),
        _ => None,
    };
    Some(Tcgen05Input {
        raw: t.kind_word,
        collector: (u8::from(t.ashift) << 2) | collector_mode,
        sparse: t.sparse,
        block_scale_opcode: t.block_scale,
        is_arch_cond: target.is_arch_specific(),
        isa: target,
        a_tmem: t.a_tmem,
        form,
        implicit_scale_vec,
    })
}

/// The target the kind-word ladder runs under. Its target gates (rules 1-4) speak
/// of arch-conditional variants and SM100-class ISAs, so they run only where
/// they are true: on a target without tcgen05.mma, and for `.kind::i8` on a
/// target outside sm_100a/sm_110a (sm_103a is arch-conditional and still lacks
/// it), `atom-ptx-form` states the target error in its own words and the
/// ladder runs as on sm_100a, keeping the checks that hold on every target.
pub fn ladder_target(t: &Tcgen05Mma, target: Target) -> Target {
    let has_tcgen05 = matches!(target.sm, 100 | 101 | 103 | 107 | 110) && target.suffix != Suffix::None;
    let i8_elsewhere = t.kind == Some(MmaKind::I8) && !matches!(target.sm, 100 | 101 | 110);
    if has_tcgen05 && !i8_elsewhere {
        target
    } else {
        Target::new(100, Suffix::A)
    }
}

/// `atom-tcgen05-kind` on `tcgen05.mma*`.
pub fn check_tcgen05(cx: &mut RuleContext<'_>) {
    let m = cx.m;
    for (f, inst, p) in ptx_facts(m) {
        let PtxOp::Tcgen05Mma(t) = &p.op else { continue };
        let Some(target) = p.target.and_then(atom_target) else { continue };
        // A form with a problem on every target (atom-ptx-form) gets no target advice
        // from the ladder either: it runs as on sm_100a.
        let under = if super::atom_ptx_form::invalid_everywhere(p) {
            Target::new(100, Suffix::A)
        } else {
            ladder_target(t, target)
        };
        let Some(input) = tcgen05_input(t, under) else { continue };
        if let Err(e) = atoms::verify_tcgen05(&input) {
            emit(cx, f, inst, p, e);
        }
    }
}

/// The SM120 lattice inputs of a block-scaled `mma` (§2.5): K (halved for
/// `mma.sp`), types, scale vector size K/N and fragment bits 8·N.
pub fn sm120_input(b: &BlockScaledMma) -> Option<Sm120Input> {
    let k = if b.sparse { b.k / 2 } else { b.k };
    let n = match (b.scale_vec, b.kind?) {
        (ScaleVec::X1, _) => 1,
        (ScaleVec::X2, _) => 2,
        (ScaleVec::X4, _) => 4,
        (ScaleVec::None, MmaKind::Mxf4) => 2,
        (ScaleVec::None, MmaKind::Mxf8f6f4) => 1,
        _ => return None,
    };
    Some(Sm120Input {
        k,
        a_type: Sm120Type::parse(&b.a_type)?,
        b_type: Sm120Type::parse(&b.b_type)?,
        sf_type: ScaleFactorType::parse(&b.scale_type)?,
        scale_vector_size: k / n,
        scale_fragment_bits: 8 * n,
    })
}

/// `atom-sm120-block-scale` on block-scaled `mma.sync` / `mma.sp`.
pub fn check_sm120(cx: &mut RuleContext<'_>) {
    let m = cx.m;
    for (f, inst, p) in ptx_facts(m) {
        let PtxOp::BlockScaledMma(b) = &p.op else { continue };
        if !b.block_scale {
            continue;
        }
        let Some(input) = sm120_input(b) else { continue };
        if let Err(e) = atoms::verify_sm120(&input) {
            emit(cx, f, inst, p, e);
        }
    }
}

/// The TMA mode of a tensor copy (§2.7; D16 gather4 as itself, D17
/// im2col_no_offs as im2col).
pub fn tma_mode(c: &TensorCopy) -> atoms::TmaMode {
    match c.mode {
        TmaMode::Tile => atoms::TmaMode::Tile,
        TmaMode::Im2col | TmaMode::Im2colNoOffs => atoms::TmaMode::Im2col,
        TmaMode::Im2colW | TmaMode::Im2colNoOffsW => atoms::TmaMode::Im2colW,
        TmaMode::Im2colW128 => atoms::TmaMode::Im2colW128,
        TmaMode::Gather4 => atoms::TmaMode::Gather4,
        TmaMode::Scatter4 => atoms::TmaMode::Scatter4,
    }
}

/// The PTX spelling of a tensor-copy mode.
pub fn tma_mode_name(m: TmaMode) -> &'static str {
    match m {
        TmaMode::Tile => "tile",
        TmaMode::Im2col => "im2col",
        TmaMode::Im2colW => "im2col::w",
        TmaMode::Im2colW128 => "im2col::w::128",
        TmaMode::Gather4 => "tile::gather4",
        TmaMode::Scatter4 => "tile::scatter4",
        TmaMode::Im2colNoOffs => "im2col_no_offs",
        TmaMode::Im2colNoOffsW => "im2col_no_offs::w",
    }
}

/// The operand-list checks of a tensor copy that the seed's rank/mode gate does
/// not make (irlint's own words): the coordinate count of `[tensorMap, {coords}]`
/// against `.Nd` (5 for gather4/scatter4: a column and four rows) and the
/// `{im2colInfo}` offsets of a load (`.im2col`: rank − 2; `.im2col::w`,
/// `::w::128`: wHalo and wOffset; none otherwise).
pub fn tma_operand_problems(c: &TensorCopy) -> Vec<String> {
    let mut out = Vec::new();
    let mode = tma_mode_name(c.mode);
    let expected = match c.mode {
        TmaMode::Gather4 | TmaMode::Scatter4 => 5,
        _ => c.rank,
    };
    if (1..=5).contains(&c.rank) && c.coords != expected {
        let why = if expected == 5 { " (a column and four rows)" } else { "" };
        out.push(format!(
            "{}.{}d .{mode} has {} tensor coordinates, expected {expected}{why}",
            c.family, c.rank, c.coords
        ));
    }
    if c.load {
        let want = match c.mode {
            TmaMode::Im2col if c.rank >= 3 => Some(c.rank - 2),
            TmaMode::Im2colW | TmaMode::Im2colW128 => Some(2),
            TmaMode::Im2col => None,
            _ => Some(0),
        };
        let got = c.im2col_offsets.unwrap_or(0);
        match want {
            Some(w) if w != got && c.im2col_offsets.is_none() => out.push(format!(
                "{}.{}d .{mode} has no {{im2colInfo}} operand, expected {w} im2col offsets",
                c.family, c.rank
            )),
            Some(w) if w != got => {
                out.push(format!("{}.{}d .{mode} has {got} im2col offsets, expected {w}", c.family, c.rank))
            }
            _ => {}
        }
    }
    out
}

/// `atom-tma-rank-mode` on `cp.async.bulk.tensor` (and `cp.reduce…`/`prefetch`):
/// the seed's rank/mode/target gate, the coordinate and im2col-offset counts, and
/// the instruction itself below sm_90 (reported only for a form valid on sm_90).
pub fn check_tma(cx: &mut RuleContext<'_>) {
    let m = cx.m;
    for (f, inst, p) in ptx_facts(m) {
        let PtxOp::TensorCopy(c) = &p.op else { continue };
        let Some(target) = p.target.and_then(atom_target) else { continue };
        let seed = atoms::verify_tma(tma_mode(c), c.rank, target);
        let own = tma_operand_problems(c);
        let valid_elsewhere = seed.is_ok() && own.is_empty();
        // The seed's mode/target gate speaks only for a form valid on some target.
        let target_only = atoms::verify_tma(tma_mode(c), c.rank, Target::new(100, Suffix::A)).is_ok();
        match seed {
            Err(e) if !target_only || own.is_empty() => emit(cx, f, inst, p, e),
            _ => {}
        }
        let mut own = own;
        if valid_elsewhere && target.sm < 90 {
            own.push(format!("{} needs sm_90 or later, not {}", c.family, target));
        }
        let line = ptx_line(cx, f, inst);
        for message in own {
            cx.emit(Finding {
                rule: atoms::AtomRule::TmaRankMode.id(),
                certainty: Certainty::Proven,
                force_error: false,
                message,
                help: None,
                values: vec![
                    ("ptx-line", FindingValue::Int(line)),
                    ("instruction", FindingValue::Text(p.word.to_string())),
                ],
                at: At::Inst(f, inst),
            });
        }
    }
}

//! Shared by the aligned-access rules (`spirv-access-misaligned`,
//! `coopmat-access-misaligned`, `coopvec-pointer-misaligned`,
//! `dxil-bytebuf-access-misaligned`): an access's address as a dataflow
//! value, the base alignment other accesses through the same pointer assert,
//! and the finding.

use super::{finding_value, judge, or_list, At, Finding, RuleContext};
use crate::analysis::{lattice, AbsValue};
use crate::ir::{AccessKind, AddrRoot, Address, Fact, FactKind, FuncH, InstH, MemAccess, Operand};
use crate::report::{Certainty, FindingValue};
use rustc_hash::FxHashMap;

/// The alignment a descriptor-bound buffer or workgroup variable base is
/// counted with (the cooperative-matrix and -vector rules need at most 16).
const VARIABLE_BASE_ALIGN_LOG2: u32 = 4;

/// Every access fact of one kind.
pub(super) fn accesses(cx: &RuleContext<'_>, kind: AccessKind) -> Vec<(FuncH, InstH, MemAccess)> {
    cx.m.facts
        .iter()
        .filter_map(|f: &Fact| match &f.kind {
            FactKind::Access(a) if a.kind == kind => Some((f.function, f.inst, a.clone())),
            _ => None,
        })
        .collect()
}

/// What an `Aligned` access asserts of its root: `root ≡ rem (mod 2^k)`, from
/// the access with the largest alignment at a constant offset from it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Base {
    rem: u64,
    k: u32,
    /// The access that asserts it.
    from: InstH,
}

/// The bases the `Aligned` operands of SPIR-V accesses assert, by root.
pub(super) fn bases(cx: &RuleContext<'_>) -> FxHashMap<(FuncH, AddrRoot), Base> {
    let mut out: FxHashMap<(FuncH, AddrRoot), Base> = FxHashMap::default();
    for f in &cx.m.facts {
        let FactKind::Access(a) = &f.kind else { continue };
        if a.kind != AccessKind::SpirvAligned || !a.address.terms.is_empty() {
            continue;
        }
        let Some(align) = a.declared.filter(|x| x.is_power_of_two()) else { continue };
        let k = align.trailing_zeros();
        let rem = a.address.offset.wrapping_neg() & (align - 1);
        let e = out.entry((f.function, a.address.root)).or_insert(Base { rem, k, from: f.inst });
        if k > e.k {
            *e = Base { rem, k, from: f.inst };
        }
    }
    out
}

/// The address value of an access, and the access whose `Aligned` operand
/// gave its base (when one did).
pub(super) fn address_value(
    cx: &RuleContext<'_>,
    f: FuncH,
    a: &Address,
    bases: &FxHashMap<(FuncH, AddrRoot), Base>,
) -> (AbsValue, Option<InstH>) {
    let base = bases.get(&(f, a.root)).copied();
    let from_base = |b: Base| AbsValue::congruence(b.rem, b.k, 64);
    let (root, from) = match a.root {
        AddrRoot::Int(v) => {
            let own = cx.value(f, Operand::Value(v));
            let own_k = match &own {
                AbsValue::Set(_) => 64,
                other => other.known_low().map_or(0, |(_, k)| k),
            };
            match base {
                Some(b) if b.k > own_k => (from_base(b), Some(b.from)),
                _ => (own, None),
            }
        }
        AddrRoot::Variable(_) => (AbsValue::congruence(0, VARIABLE_BASE_ALIGN_LOG2, 64), None),
        AddrRoot::Opaque(_) => match base {
            Some(b) => (from_base(b), Some(b.from)),
            None => (AbsValue::Top, None),
        },
    };
    let mut v = lattice::add(&root, &AbsValue::constant(a.offset, 64), 64);
    for (idx, scale) in &a.terms {
        let i = cx.value(f, Operand::Value(*idx));
        let t = lattice::mul(&i, &AbsValue::constant(*scale, 64), 64);
        v = lattice::add(&v, &t, 64);
    }
    (v, from)
}

/// Judges `v` against `align`: proven when every admitted value is
/// misaligned, possible when a set has members both ways.
pub(super) fn misaligned(v: &AbsValue, align: u64) -> Option<Certainty> {
    if align <= 1 || !align.is_power_of_two() {
        return None;
    }
    let tz = align.trailing_zeros();
    judge(v, |x| x % align != 0, |r, k| r % (1u64 << k.min(tz)) != 0)
}

/// `0x1004`, `4 or 20`, `always 4 mod 16`.
pub(super) fn describe(v: &AbsValue) -> String {
    match v {
        AbsValue::Set(s) if s.len() == 1 => s[0].to_string(),
        AbsValue::Set(s) => or_list(s),
        other => match other.known_low() {
            Some((rem, k)) => format!("always {rem} mod {}", 1u64 << k),
            None => other.describe(),
        },
    }
}

/// One misaligned address (or stride) as a finding.
pub(super) struct Report<'a> {
    pub rule: &'static str,
    pub f: FuncH,
    pub inst: InstH,
    /// `pointer`, `matrix pointer`, `byte offset`, `stride`.
    pub what: &'a str,
    pub value: AbsValue,
    pub align: u64,
    pub certainty: Certainty,
    /// Why that alignment (`Aligned 16`, `VUID-…-08986`).
    pub why: String,
    /// The access whose `Aligned` gave the base.
    pub base_from: Option<InstH>,
    pub help: String,
    pub extra: Vec<(&'static str, FindingValue)>,
}

/// Emits a report.
pub(super) fn emit(cx: &mut RuleContext<'_>, r: Report<'_>, spec_ops: &[Option<Operand>]) {
    let Some(value) = finding_value(&r.value) else { return };
    let desc = describe(&r.value);
    let verb = match (&r.value, r.certainty) {
        (AbsValue::Set(s), _) if s.len() == 1 => "is",
        (_, Certainty::Possible) => "may be",
        _ => "is",
    };
    let never = if r.certainty == Certainty::Proven { "never" } else { "not always" };
    let base = match r.base_from {
        Some(h) => {
            let id =
                cx.m.functions
                    .try_get(r.f)
                    .and_then(|func| func.insts.try_get(h))
                    .map(|i| i.span.id)
                    .filter(|id| *id != u32::MAX);
            match id {
                Some(id) => format!(", given the base the access %{id} asserts"),
                None => ", given the base another access asserts".to_string(),
            }
        }
        None => String::new(),
    };
    let spec = cx.spec_note(r.f, spec_ops);
    let mut values = vec![
        (if r.what == "stride" { "stride" } else { "address" }, value),
        ("align", FindingValue::Int(r.align)),
        ("operand", FindingValue::Text(r.what.to_string())),
    ];
    values.extend(r.extra);
    cx.emit(Finding {
        rule: r.rule,
        certainty: r.certainty,
        force_error: false,
        message: format!("{} {verb} {desc}, {never} {}-byte aligned ({}){base}{spec}", r.what, r.align, r.why),
        help: Some(r.help),
        values,
        at: At::Inst(r.f, r.inst),
    });
}

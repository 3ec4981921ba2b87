//! Rules: one file per rule, listed in [`registry`].
//!
//! A rule is a [`RuleMeta`] (id, default level, summary, Markdown doc with fixed
//! headings) plus a `check` function that reads the module's facts and resources
//! and the dataflow values through a [`RuleContext`], and pushes [`Finding`]s.
//! The context turns findings into [`Diagnostic`]s: level from the settings,
//! lowered one step for `possible` findings, and the location (function,
//! instruction index, IR text, outermost source frame, resource).

mod access_align;
pub mod atom_meta;
pub mod atom_ptx;
pub mod atom_ptx_form;
pub mod coopmat_access_misaligned;
pub mod coopvec_base_offset_misaligned;
pub mod coopvec_fp8_with_non_optimal_layout;
pub mod coopvec_non_optimal_matrix_layout;
pub mod coopvec_optimal_layout_nonzero_stride;
pub mod coopvec_outer_product_layout;
pub mod coopvec_pointer_misaligned;
pub mod coopvec_stride_mismatch;
pub mod coopvec_transpose_with_non_optimal_layout;
pub mod dxil_bytebuf_access_misaligned;
pub mod long_vector_bytebuf_misaligned;
pub mod ptx_access_misaligned;
pub mod ptx_desc;
pub mod ptx_shared_address_misaligned;
pub mod ptx_smem_layout;
pub mod ptx_tcgen05_instr_descriptor;
pub mod ptx_tcgen05_smem_descriptor;
mod resource;
pub mod settings;
pub mod spirv_access_misaligned;
pub mod structured_buffer_stride;
pub mod wgmma_smem_descriptor;

use crate::analysis::{AbsValue, Analysis};
use crate::ir::{print, Binding, FactKind, FuncH, InstH, LocH, Module, Operand, SourceKind, Value};
use crate::report::{Certainty, Diagnostic, FindingValue, Level, Location, SourceLocation};
pub use resource::{describe_resource, llvm_local_name, resource_ref};
use rustc_hash::FxHashMap;
pub use settings::RuleSettings;

/// Static description of a rule (feeds `irlint rules`, `explain`, SARIF, docs).
#[derive(Debug, Clone, Copy)]
pub struct RuleMeta {
    /// Stable kebab-case id.
    pub id: &'static str,
    /// Default level (`None` = off by default).
    pub default_level: Option<Level>,
    /// One-line summary.
    pub summary: &'static str,
    /// Full Markdown documentation (What it does / Why is this bad / Example / ...).
    pub doc: &'static str,
    /// Options the rule reads from `[rules.<id>]` (besides `level`).
    pub options: &'static [&'static str],
}

/// The headings every rule doc has, in order.
pub const DOC_HEADINGS: &[&str] =
    &["What it does", "Why is this bad", "Example", "Use instead", "Options", "Known limitations", "References"];

type CheckFn = fn(&mut RuleContext<'_>);

/// The rules with their check functions, in registry order.
const RULES: &[(RuleMeta, CheckFn)] = &[
    (coopvec_stride_mismatch::META, coopvec_stride_mismatch::check),
    (long_vector_bytebuf_misaligned::LOAD_META, long_vector_bytebuf_misaligned::check_loads),
    (long_vector_bytebuf_misaligned::STORE_META, long_vector_bytebuf_misaligned::check_stores),
    (structured_buffer_stride::META, structured_buffer_stride::check),
    (coopvec_base_offset_misaligned::META, coopvec_base_offset_misaligned::check),
    (coopvec_optimal_layout_nonzero_stride::META, coopvec_optimal_layout_nonzero_stride::check),
    (coopvec_transpose_with_non_optimal_layout::META, coopvec_transpose_with_non_optimal_layout::check),
    (coopvec_fp8_with_non_optimal_layout::META, coopvec_fp8_with_non_optimal_layout::check),
    (coopvec_outer_product_layout::META, coopvec_outer_product_layout::check),
    (coopvec_non_optimal_matrix_layout::META, coopvec_non_optimal_matrix_layout::check),
    // Aligned accesses (`access_align`).
    (dxil_bytebuf_access_misaligned::META, dxil_bytebuf_access_misaligned::check),
    (spirv_access_misaligned::META, spirv_access_misaligned::check),
    (coopmat_access_misaligned::META, coopmat_access_misaligned::check),
    (coopvec_pointer_misaligned::META, coopvec_pointer_misaligned::check),
    // Matrix-atom rules (`crate::atoms`): reached through `irlint atoms`, the
    // Rust API and, for the five with a PTX spelling, PTX facts (`atom_ptx`).
    (atom_meta::LDSM_MODE, atom_ptx::check_ldsm),
    (atom_meta::STSM_MODE, atom_ptx::check_stsm),
    (atom_meta::MATRIX_COPY, no_ir_check),
    (atom_meta::REGISTER_FRAGMENT, no_ir_check),
    (atom_meta::UMMA_CANONICAL_LAYOUT, no_ir_check),
    (atom_meta::TCGEN05_KIND, atom_ptx::check_tcgen05),
    (atom_meta::SM120_BLOCK_SCALE, atom_ptx::check_sm120),
    (atom_meta::SWIZZLE_COMMUTATION, no_ir_check),
    (atom_meta::TMA_RANK_MODE, atom_ptx::check_tma),
    (atom_ptx_form::META, atom_ptx_form::check),
    // PTX descriptor value rules (PTX ISA: tcgen05 and wgmma matrix descriptors).
    (ptx_tcgen05_smem_descriptor::META, ptx_tcgen05_smem_descriptor::check),
    (ptx_tcgen05_instr_descriptor::META, ptx_tcgen05_instr_descriptor::check),
    (ptx_shared_address_misaligned::META, ptx_shared_address_misaligned::check),
    (ptx_access_misaligned::META, ptx_access_misaligned::check),
    (wgmma_smem_descriptor::META, wgmma_smem_descriptor::check),
];

/// The check of rules that have no IR input (atom verifiers whose inputs PTX does not carry).
fn no_ir_check(_: &mut RuleContext<'_>) {}

static REGISTRY: [RuleMeta; RULES.len()] = {
    let mut out = [RULES[0].0; RULES.len()];
    let mut i = 0;
    while i < RULES.len() {
        out[i] = RULES[i].0;
        i += 1;
    }
    out
};

/// All rules, in registry order.
pub fn registry() -> &'static [RuleMeta] {
    &REGISTRY
}

/// Looks a rule up by id.
pub fn find(id: &str) -> Option<&'static RuleMeta> {
    registry().iter().find(|r| r.id == id)
}

/// A rule's options: its own settings type, next to its code, read from the
/// rule's `[rules.RULE]` table (every key but `level`). A rule with options
/// implements this and adds one line to [`OPTION_PARSERS`]; the config code
/// does not change.
pub trait RuleOptions: Default + Sized {
    /// The rule the options belong to.
    const RULE: &'static str;
    /// Parses the option keys of `[rules.RULE]` (`level` left out; unknown keys
    /// were already refused against [`RuleMeta::options`]). An error names the
    /// key and the accepted values (see [`settings::invalid_value`]).
    fn parse(table: &toml::Table) -> Result<Self, String>;
}

fn validate<T: RuleOptions>(table: &toml::Table) -> Result<(), String> {
    T::parse(table).map(drop)
}

/// Validates one rule's option table.
type ValidateFn = fn(&toml::Table) -> Result<(), String>;

/// The option parsers of the rules that have options: `(rule id, validate)`.
pub const OPTION_PARSERS: &[(&str, ValidateFn)] =
    &[(structured_buffer_stride::META.id, validate::<structured_buffer_stride::Options>)];

/// Validates a rule's option table at load time (a rule without a parser
/// accepts none).
pub fn validate_options(rule: &str, table: &toml::Table) -> Result<(), String> {
    match OPTION_PARSERS.iter().find(|(id, _)| *id == rule) {
        Some((_, parse)) => parse(table),
        None => Ok(()),
    }
}

/// Runs every enabled rule on a module; diagnostics carry function, instruction,
/// IR text and source location, but no path.
pub fn check_module(m: &Module, a: &Analysis, s: &dyn RuleSettings) -> Vec<Diagnostic> {
    let mut cx = RuleContext {
        m,
        a,
        settings: s,
        out: Vec::new(),
        positions: FxHashMap::default(),
        fact_resources: None,
        pending_spec: Default::default(),
        line_starts: Default::default(),
    };
    for (meta, check) in RULES {
        if s.level_for(meta.id).is_some() {
            check(&mut cx);
        }
    }
    check_spec_constant_enums(&mut cx);
    cx.out
}

/// A `--spec-constant` that sets a matrix layout operand to a value that is no
/// layout: the override is wrong (a typo, or another pipeline's numbering), and
/// every layout rule would silently see "unknown". An `input-error` naming the
/// SpecId, the value and the accepted ones.
fn check_spec_constant_enums(cx: &mut RuleContext<'_>) {
    let m = cx.m;
    for (fact, mo) in matrix_facts(m) {
        let Some(op) = mo.layout else { continue };
        let Some(v) = cx.value(fact.function, op).as_const() else { continue };
        if layout_class(mo.layout_numbering, v).is_some() {
            continue;
        }
        let overridden: Vec<(u32, u64)> =
            cx.a.spec_deps(m, fact.function, op).into_iter().filter(|(id, _)| cx.a.overridden(*id)).collect();
        let Some((id, set)) = overridden.first().copied() else { continue };
        let valid: Vec<String> =
            (0..8).filter_map(|x| layout_class(mo.layout_numbering, x).map(|(_, n)| format!("{x} {n}"))).collect();
        let mut loc = cx.inst_location(fact.function, fact.inst);
        loc.resource = None;
        let mut d = Diagnostic::new(
            crate::report::INPUT_ERROR,
            Level::Error,
            Certainty::Proven,
            format!(
                "--spec-constant {id}={set} makes this matrix layout operand {v}, which is not a layout \
                 (valid: {})",
                valid.join(", ")
            ),
        );
        d.location = loc;
        if !cx.out.iter().any(|o| o.rule == d.rule && o.message == d.message) {
            cx.out.push(d);
        }
    }
}

/// The Markdown page `docs/rules/<id>.md` generated from a rule's metadata.
pub fn doc_page(r: &RuleMeta) -> String {
    let level = r.default_level.map(|l| l.as_str()).unwrap_or("off (allow)");
    format!(
        "<!-- Generated from src/rules/ by `IRLINT_UPDATE_DOCS=1 cargo test --test rules`; do not edit. -->\n\
         # {}\n\nDefault level: **{level}**\n\n{}\n\n{}",
        r.id,
        r.summary,
        r.doc.trim_start()
    )
}

/// A finding before levels and locations are resolved.
#[derive(Debug, Clone)]
pub struct Finding {
    /// Rule id.
    pub rule: &'static str,
    /// Certainty.
    pub certainty: Certainty,
    /// Raise the level to `error` whatever the configured level (undefined behaviour).
    pub force_error: bool,
    /// Message (lowercase start, no trailing period).
    pub message: String,
    /// Help line.
    pub help: Option<String>,
    /// Structured values, ordered.
    pub values: Vec<(&'static str, FindingValue)>,
    /// Where.
    pub at: At,
}

/// What a finding points at.
#[derive(Debug, Clone, Copy)]
pub enum At {
    /// An instruction of a function.
    Inst(FuncH, InstH),
    /// A resource.
    Resource(crate::ir::ResourceH),
}

/// An instruction's index in body order and its LLVM name: `Ok(N)` for `%N`,
/// `Err(i)` for the function's `value_names[i]`, `None` without a result.
type Position = (u32, Option<Result<u32, usize>>);

/// What a rule sees: the module, the dataflow and the settings.
pub struct RuleContext<'a> {
    /// The module.
    pub m: &'a Module,
    /// Dataflow results.
    pub a: &'a Analysis,
    /// Settings (levels and options).
    pub settings: &'a dyn RuleSettings,
    out: Vec<Diagnostic>,
    positions: FxHashMap<FuncH, Vec<Position>>,
    /// The buffer each fact's instruction resolved, built on first use.
    fact_resources: Option<FxHashMap<(FuncH, InstH), crate::ir::ResourceH>>,
    /// Spec constants the last [`RuleContext::spec_note`] found; the next
    /// [`RuleContext::emit`] takes them.
    pending_spec: std::cell::RefCell<Vec<(u32, u64)>>,
    /// Line starts of each embedded source file (by index), built on first use.
    line_starts: std::cell::RefCell<FxHashMap<u32, Vec<usize>>>,
}

impl RuleContext<'_> {
    /// The abstract value of an operand of function `f`.
    pub fn value(&self, f: FuncH, op: Operand) -> AbsValue {
        self.a.value(self.m, f, op)
    }

    /// The constant an optional operand is known to be.
    pub fn constant(&self, f: FuncH, op: Option<Operand>) -> Option<u64> {
        self.a.constant(self.m, f, op?)
    }

    /// Is the rule enabled?
    pub fn enabled(&self, rule: &str) -> bool {
        self.settings.level_for(rule).is_some()
    }

    /// " (assuming spec constant 1 (K) = 1)" for the spec constants the operands use.
    pub fn spec_note(&self, f: FuncH, ops: &[Option<Operand>]) -> String {
        let mut deps: Vec<(u32, u64)> = Vec::new();
        for op in ops.iter().flatten() {
            for d in self.a.spec_deps(self.m, f, *op) {
                if !deps.contains(&d) {
                    deps.push(d);
                }
            }
        }
        deps.sort_unstable();
        self.pending_spec.replace(deps.clone());
        if deps.is_empty() {
            return String::new();
        }
        let parts: Vec<String> = deps
            .iter()
            .map(|(id, v)| match self.m.spec_names.iter().find(|(i, _)| i == id) {
                Some((_, name)) if !name.is_empty() => format!("{id} ({name}) = {v}"),
                _ => format!("{id} = {v}"),
            })
            .collect();
        let noun = if deps.len() == 1 { "spec constant" } else { "spec constants" };
        format!(" (assuming {noun} {})", parts.join(", "))
    }

    /// Resolves levels and location and records the diagnostic.
    pub fn emit(&mut self, f: Finding) {
        let Some(mut level) = self.settings.level_for(f.rule) else {
            return;
        };
        if f.force_error {
            level = Level::Error;
        }
        // A finding that rests on a spec constant's default is only possible:
        // applications override placeholder defaults at pipeline creation.
        let assumed: std::collections::BTreeMap<String, u64> = self
            .pending_spec
            .take()
            .into_iter()
            .filter(|(id, _)| !self.a.overridden(*id))
            .map(|(id, v)| (id.to_string(), v))
            .collect();
        let mut f = f;
        if !assumed.is_empty() {
            f.certainty = Certainty::Possible;
            f.values.push(("assumed", FindingValue::Assumed(assumed)));
        }
        if f.certainty == Certainty::Possible {
            level = level.lowered();
        }
        let location = match f.at {
            At::Inst(func, inst) => {
                let mut loc = self.inst_location(func, inst);
                // The buffer the instruction's fact resolved, if any.
                let m = self.m;
                let table = self.fact_resources.get_or_insert_with(|| {
                    let mut t = FxHashMap::default();
                    for x in &m.facts {
                        let r = match &x.kind {
                            FactKind::Matrix(mo) => mo.resource,
                            FactKind::RawVector(acc) => acc.resource,
                            FactKind::Access(acc) => acc.resource,
                            FactKind::Ptx(_) => None,
                        };
                        if let Some(r) = r {
                            t.entry((x.function, x.inst)).or_insert(r);
                        }
                    }
                    t
                });
                let res = table.get(&(func, inst)).copied();
                if let Some(r) = res.and_then(|r| self.m.resources.try_get(r)) {
                    loc.resource = Some(resource_ref(self.m, r, &loc));
                }
                loc
            }
            At::Resource(r) => self.resource_location(r),
        };
        let mut d = Diagnostic::new(f.rule, level, f.certainty, f.message);
        d.help = f.help;
        d.location = location;
        d.values = f.values.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        d.cap_strings();
        self.out.push(d);
    }

    /// The name a diagnostic shows for a function.
    pub fn function_name(&self, f: FuncH) -> String {
        let func = self.m.functions.try_get(f);
        if let Some(func) = func.filter(|x| !x.name.is_empty()) {
            return crate::report::capped_name(&func.name);
        }
        if let Some(e) = self.m.entry_points.iter().find(|e| e.function == Some(f)) {
            return crate::report::capped_name(&e.name);
        }
        format!("function {}", f.index())
    }

    /// The instruction's index in body order and, for DXIL, how `dxc -dumpbin` /
    /// LLVM's printer names it: `Ok(N)` for `%N` (per function, unnamed
    /// arguments, then per block an unnamed label and every unnamed non-void
    /// instruction take the next number), `Err(i)` for the name
    /// `value_names[i]`.
    fn position(&mut self, f: FuncH, inst: InstH) -> Option<Position> {
        let m = self.m;
        let table = self.positions.entry(f).or_insert_with(|| {
            let Some(func) = m.functions.try_get(f) else {
                return Vec::new();
            };
            let names: FxHashMap<Value, usize> =
                func.value_names.iter().enumerate().map(|(i, (v, _))| (*v, i)).rev().collect();
            let name_of = |v: Value| names.get(&v).copied();
            let mut pos = vec![(u32::MAX, None); func.insts.len()];
            let mut n = 0u32;
            let named_args = (0..func.params.len()).filter(|k| name_of(Value::Arg(*k as u32)).is_some()).count();
            let mut slot = u32::try_from(func.params.len() - named_args).unwrap_or(u32::MAX);
            for (_, b) in func.blocks.iter() {
                if b.name.is_none() {
                    slot = slot.saturating_add(1);
                }
                for ih in &b.insts {
                    let void = func
                        .insts
                        .try_get(*ih)
                        .is_none_or(|i| matches!(m.types.try_get(i.ty), Some(crate::ir::Type::Void) | None));
                    let value = if void {
                        None
                    } else if let Some(i) = name_of(Value::Inst(*ih)) {
                        Some(Err(i))
                    } else {
                        slot = slot.saturating_add(1);
                        Some(Ok(slot - 1))
                    };
                    if let Some(p) = pos.get_mut(ih.index()) {
                        *p = (n, value);
                    }
                    n += 1;
                }
            }
            pos
        });
        table.get(inst.index()).cloned().filter(|p| p.0 != u32::MAX)
    }

    /// Location of an instruction.
    pub fn inst_location(&mut self, f: FuncH, inst: InstH) -> Location {
        let position = self.position(f, inst);
        let mut loc = Location {
            function: Some(self.function_name(f)),
            instruction: position.map(|p| p.0),
            ..Default::default()
        };
        if let Some(func) = self.m.functions.try_get(f) {
            loc.ir = Some(print::inst(self.m, func, inst));
            if self.m.source == SourceKind::Ptx {
                loc.line = func.insts.try_get(inst).map(|i| i.span.id);
            }
            if let Some(i) = func.insts.try_get(inst) {
                loc.byte_offset = Some(i.span.offset);
                loc.value = if self.m.source == SourceKind::Dxil {
                    match position.and_then(|p| p.1) {
                        Some(Ok(n)) => Some(format!("%{n}")),
                        Some(Err(k)) => func.value_names.get(k).map(|(_, name)| llvm_local_name(name)),
                        None => None,
                    }
                } else if self.m.source == SourceKind::Spirv {
                    (i.span.id != u32::MAX).then(|| format!("%{}", i.span.id))
                } else {
                    None
                };
            }
            if let Some(l) = func.insts.try_get(inst).and_then(|i| i.span.loc) {
                self.fill_source(&mut loc, l);
            }
        }
        loc
    }

    fn fill_source(&self, loc: &mut Location, l: LocH) {
        let mut frames: Vec<SourceLocation> = Vec::new();
        let mut cur = Some(l);
        let mut outer_file = None;
        while let Some(h) = cur {
            let Some(dl) = self.m.locs.try_get(h) else { break };
            if frames.len() > crate::read::limits::MAX_RECURSION as usize {
                break;
            }
            let file = self
                .m
                .source_files
                .get(dl.file as usize)
                .map(|f| crate::report::capped_path(&f.name))
                .unwrap_or_default();
            frames.push(SourceLocation { file, line: dl.line, column: dl.column });
            outer_file = Some((dl.file, dl.line));
            cur = dl.inlined_at;
        }
        let Some(outer) = frames.pop() else { return };
        loc.source = Some(outer);
        loc.inlined_from = frames;
        if let Some((file, line)) = outer_file {
            if let Some(t) = self.m.source_files.get(file as usize).and_then(|f| f.text.as_deref()) {
                let mut starts = self.line_starts.borrow_mut();
                let starts = starts.entry(file).or_insert_with(|| crate::read::lines::line_starts(t));
                loc.source_text = crate::read::lines::line_at(t, starts, line).map(crate::report::capped_text);
            }
        }
    }

    /// Location of a resource.
    pub fn resource_location(&mut self, r: crate::ir::ResourceH) -> Location {
        let Some(res) = self.m.resources.try_get(r) else {
            return Location::default();
        };
        let mut loc = match res.binding {
            Binding::Heap { function, inst } => self.inst_location(function, inst),
            _ => Location {
                // The declaration: DXIL global record, SPIR-V `OpVariable`.
                byte_offset: (res.span.offset > 0).then_some(res.span.offset),
                value: (self.m.source == SourceKind::Spirv && res.span.id != u32::MAX)
                    .then(|| format!("%{}", res.span.id)),
                ..Default::default()
            },
        };
        loc.resource = Some(resource_ref(self.m, res, &loc));
        if loc.source.is_none() {
            if let Some(l) = res.span.loc {
                self.fill_source(&mut loc, l);
            }
        }
        loc
    }
}

/// The JSON value of an abstract value (`None` for ⊥ / ⊤).
pub fn finding_value(v: &AbsValue) -> Option<FindingValue> {
    match v {
        AbsValue::Set(s) if s.len() == 1 => s.first().map(|x| FindingValue::Int(*x)),
        AbsValue::Set(s) => Some(FindingValue::Set(s.to_vec())),
        AbsValue::Known(_) => {
            let (rem, k) = v.known_low()?;
            Some(FindingValue::Congruence { rem, modulus: 1u64 << k })
        }
        _ => None,
    }
}

/// Judges a value: `proven` when every admitted value violates, `possible` when
/// a set has members both ways, `None` otherwise. `cong_all` says whether every
/// member of `rem mod 2^k` violates; a known-bits value is judged by its known
/// low bits ([`AbsValue::known_low`]), its higher known bits are not used yet.
pub fn judge(v: &AbsValue, violates: impl Fn(u64) -> bool, cong_all: impl Fn(u64, u32) -> bool) -> Option<Certainty> {
    match v {
        AbsValue::Set(s) => {
            let bad = s.iter().filter(|x| violates(**x)).count();
            if bad == 0 {
                None
            } else if bad == s.len() {
                Some(Certainty::Proven)
            } else {
                Some(Certainty::Possible)
            }
        }
        AbsValue::Known(_) => {
            let (rem, k) = v.known_low()?;
            cong_all(rem, k).then_some(Certainty::Proven)
        }
        _ => None,
    }
}

/// Formats a set of constants for a message: `32 or 48`, `12, 20 or 28`.
pub fn or_list(v: &[u64]) -> String {
    match v {
        [] => String::new(),
        [x] => x.to_string(),
        [init @ .., last] => {
            let head: Vec<String> = init.iter().map(|x| x.to_string()).collect();
            format!("{} or {last}", head.join(", "))
        }
    }
}

/// What a matrix-layout operand means, whatever its numbering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayoutClass {
    /// Row-major or column-major (the stride matters).
    RowOrColumn,
    /// MulOptimal / InferencingOptimal (and the LinAlg transposed variant).
    MulOptimal,
    /// OuterProductOptimal / TrainingOptimal (and the LinAlg transposed variant).
    OuterProductOptimal,
}

/// Classifies a layout value and names it (`row-major`, `mul-optimal`, ...).
pub fn layout_class(n: crate::ir::LayoutNumbering, v: u64) -> Option<(LayoutClass, &'static str)> {
    use crate::ir::LayoutNumbering as N;
    use LayoutClass::*;
    Some(match (n, v) {
        (N::DxilPreview | N::DxilLinAlg | N::SpirvNv, 0) => (RowOrColumn, "row-major"),
        (N::DxilPreview | N::DxilLinAlg | N::SpirvNv, 1) => (RowOrColumn, "column-major"),
        (N::DxilPreview | N::DxilLinAlg, 2) => (MulOptimal, "mul-optimal"),
        (N::DxilPreview, 3) | (N::DxilLinAlg, 4) => (OuterProductOptimal, "outer-product-optimal"),
        (N::DxilLinAlg, 3) => (MulOptimal, "mul-optimal-transpose"),
        (N::DxilLinAlg, 5) => (OuterProductOptimal, "outer-product-optimal-transpose"),
        (N::SpirvNv, 2) => (MulOptimal, "inferencing-optimal"),
        (N::SpirvNv, 3) => (OuterProductOptimal, "training-optimal"),
        _ => return None,
    })
}

/// Every matrix fact of a module, with its payload.
pub fn matrix_facts(m: &Module) -> impl Iterator<Item = (&crate::ir::Fact, &crate::ir::MatrixMemOp)> {
    m.facts.iter().filter_map(|f| match &f.kind {
        crate::ir::FactKind::Matrix(mo) => Some((f, mo)),
        _ => None,
    })
}

/// Is the matrix op a preview or SPIR-V NV matrix-vector multiply?
pub fn is_coopvec_mul(mo: &crate::ir::MatrixMemOp) -> bool {
    use crate::ir::{MatrixEncoding, MatrixOpKind};
    matches!(mo.encoding, MatrixEncoding::DxilPreview | MatrixEncoding::SpirvCoopVec)
        && matches!(mo.op, MatrixOpKind::MatVecMul | MatrixOpKind::MatVecMulAdd)
}

/// Is the matrix op a preview or SPIR-V NV outer-product accumulate?
pub fn is_coopvec_outer_product(mo: &crate::ir::MatrixMemOp) -> bool {
    use crate::ir::{MatrixEncoding, MatrixOpKind};
    matches!(mo.encoding, MatrixEncoding::DxilPreview | MatrixEncoding::SpirvCoopVec)
        && mo.op == MatrixOpKind::OuterProductAccumulate
}

/// Is the matrix op a LinAlg descriptor load, store or accumulate?
pub fn is_linalg_descriptor_op(mo: &crate::ir::MatrixMemOp) -> bool {
    mo.encoding == crate::ir::MatrixEncoding::DxilLinAlg && matches!(mo.opcode & 0x7FFF_FFFF, 14 | 20 | 27)
}

//! `irlint dump`: what the readers recovered from an input — container parts,
//! shader model, entry points, resources, and every raw-vector / matrix memory
//! op with its operands shown as constants where they are constants.
//!
//! [`dump_bytes`] builds a [`DumpFile`] whose `details` map is the JSON shape
//! documented in `docs/dump.md`; [`render_text`] prints the same data for people.

use crate::analysis::{AbsValue, Analysis};
use crate::check::{FileStatus, InputKind};
use crate::dxil::{dxop, linalg, lower, resources};
use crate::ir::{
    self, ComponentNumbering, ConstKind, FactKind, InstKind, LayoutNumbering, MatrixEncoding, MatrixMemOp, Module,
    Operand, RawVectorAccess, Value,
};
use crate::read::dxbc::{self, Container, FourCc};
use serde::Serialize;
use serde_json::{json, Map, Value as Json};
use std::collections::BTreeMap;
use std::fmt::Write;

mod text;
pub use text::render_text;

/// Options for a dump.
#[derive(Debug, Clone, Default)]
pub struct DumpOptions {
    /// Also print the lowered IR as text.
    pub ir: bool,
}

/// One entry of `{"version": 1, "files": [...]}`.
#[derive(Debug, Clone, Serialize)]
pub struct DumpFile {
    /// Input path.
    pub path: String,
    /// Kind.
    pub kind: InputKind,
    /// Status.
    pub status: FileStatus,
    /// Why skipped / what failed (with byte offset).
    pub message: Option<String>,
    /// Everything else recovered (design documented in docs/dump.md).
    #[serde(flatten)]
    pub details: serde_json::Map<String, serde_json::Value>,
    /// The IR text when `--ir` was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ir: Option<String>,
}

impl DumpFile {
    fn new(path: &str, kind: InputKind) -> Self {
        DumpFile { path: path.to_string(), kind, status: FileStatus::Ok, message: None, details: Map::new(), ir: None }
    }

    fn fail(mut self, status: FileStatus, message: impl Into<String>) -> Self {
        self.status = status;
        self.message = Some(message.into());
        self
    }
}

/// Dumps one input's bytes.
pub fn dump_bytes(path: &str, bytes: &[u8], opts: &DumpOptions) -> DumpFile {
    let kind = crate::check::classify(path, bytes);
    let mut out = DumpFile::new(path, kind);
    out.details.insert("bytes".into(), json!(bytes.len()));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| dump_inner(out.clone(), bytes, opts)));
    match outcome {
        Ok(f) => f,
        Err(_) => out.fail(FileStatus::Error, "internal error while dumping this input, please report"),
    }
}

fn dump_inner(mut out: DumpFile, bytes: &[u8], opts: &DumpOptions) -> DumpFile {
    match out.kind {
        InputKind::Dxil | InputKind::Dxbc => {
            let c = match dxbc::parse(bytes, 0) {
                Ok(c) => c,
                Err(e) => return out.fail(FileStatus::Error, e.to_string()),
            };
            out.details.insert("container".into(), container_json(&c));
            if lower::program_part(&c).is_none() {
                return match crate::check::dxbc_skip_reason(&c) {
                    Ok(why) => {
                        out.kind = InputKind::Dxbc;
                        out.fail(FileStatus::Skipped, why)
                    }
                    Err(e) => out.fail(FileStatus::Error, e.to_string()),
                };
            }
            if let Some(p) = program_json(&c) {
                out.details.insert("program".into(), p);
            }
            match lower::lower_container(&c) {
                Ok(m) => module_details(out, &m, opts),
                Err(e) => out.fail(FileStatus::Error, e.to_string()),
            }
        }
        InputKind::Bitcode => match lower::lower_bitcode(bytes, 0) {
            Ok(m) => module_details(out, &m, opts),
            Err(e) => out.fail(FileStatus::Error, e.to_string()),
        },
        InputKind::Spirv => match crate::spirv::lower(bytes, 0) {
            Ok(m) => module_details(out, &m, opts),
            Err(e) => out.fail(FileStatus::Error, e.to_string()),
        },
        InputKind::Ptx => match crate::ptx::lower(bytes, 0) {
            Ok(m) => module_details(out, &m, opts),
            Err(e) => out.fail(FileStatus::Error, e.to_string()),
        },
        InputKind::Hlsl => {
            out.fail(FileStatus::Skipped, "HLSL input is compiled by `irlint check`; dump a compiled shader")
        }
        InputKind::Atoms => out.fail(FileStatus::Skipped, "atom records are checked by `irlint atoms`"),
        // The wording and outcome `check` gives (an input error for a file named as a shader).
        InputKind::Binary => match crate::input::no_shader_found(&out.path, bytes, false) {
            Ok(why) => out.fail(FileStatus::Skipped, why),
            Err(e) => out.fail(FileStatus::Error, e),
        },
        InputKind::Missing => out.fail(FileStatus::Error, "no such file"),
    }
}

fn container_json(c: &Container<'_>) -> Json {
    let parts: Vec<Json> = c
        .parts
        .iter()
        .map(|p| json!({"fourcc": p.fourcc.as_string(), "offset": p.offset, "size": p.data.len()}))
        .collect();
    json!({
        "version": format!("{}.{}", c.version.0, c.version.1),
        "size": c.size,
        "digest": c.digest,
        "parts": parts,
    })
}

fn program_json(c: &Container<'_>) -> Option<Json> {
    let part = lower::program_part(c)?;
    let (h, bc, bc_off) = dxbc::program(part).ok()?;
    let mut j = json!({
        "part": part.fourcc.as_string(),
        "shader_model": h.profile(),
        "stage": h.stage(),
        "dxil_version": format!("{}.{}", h.dxil_version.0, h.dxil_version.1),
        "bitcode_offset": bc_off,
        "bitcode_size": bc.len(),
    });
    if part.fourcc == FourCc::ILDB {
        if let Some(obj) = j.as_object_mut() {
            obj.insert("debug_info".into(), json!(true));
        }
    }
    Some(j)
}

/// The function of the fact being dumped, with the dataflow results that
/// recover non-constant operands.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    f: Option<&'a ir::Function>,
    values: Option<(&'a Analysis, ir::FuncH)>,
}

/// An operand as JSON: a number when it is an integer constant (or the
/// dataflow proves it one, spec constants folded), `"undef"`, or the IR text of
/// the SSA value with what the dataflow knows (`"%7 = {32, 48}"`).
fn operand_json(m: &Module, cx: Ctx<'_>, op: Operand) -> Json {
    match op {
        Operand::Imm(v) => json!(v),
        Operand::Value(v) => value_json(m, cx, v),
    }
}

fn value_json(m: &Module, cx: Ctx<'_>, v: Value) -> Json {
    let f = cx.f;
    if let Some(x) = m.const_int(v) {
        return json!(x);
    }
    if let Some((a, fh)) = cx.values {
        match a.value(m, fh, Operand::Value(v)) {
            AbsValue::Set(s) if s.len() == 1 => return json!(s[0]),
            av @ (AbsValue::Set(_) | AbsValue::Known(_)) => {
                return json!(format!("{} = {}", ir::print::value(m, f, v), av.describe()))
            }
            _ => {}
        }
    }
    if let Value::Const(c) = v {
        if matches!(m.constants.try_get(c).map(|c| &c.kind), Some(ConstKind::Undef)) {
            return json!("undef");
        }
    }
    json!(ir::print::value(m, f, v))
}

fn json_text(j: &Json) -> String {
    match j {
        Json::String(s) => s.clone(),
        Json::Null => "-".into(),
        other => other.to_string(),
    }
}

/// Shared-memory descriptor operands (`a-desc`, `b-desc`): the operand, and
/// its decoded 64-bit fields when values were recovered.
fn push_smem_descriptors(
    m: &Module,
    cx: Ctx<'_>,
    descs: &[(&str, Option<Operand>)],
    fields: &[crate::rules::ptx_desc::FieldSpec],
    text: &mut String,
    obj: &mut serde_json::Map<String, Json>,
) {
    for &(key, op) in descs {
        let Some(op) = op else { continue };
        let j = operand_json(m, cx, op);
        text.push_str(&format!(", {} {}", key.replace('_', "-"), json_text(&j)));
        obj.insert(key.into(), j);
        if let Some((a, fh)) = cx.values {
            let d = crate::rules::ptx_desc::decode(&a.value(m, fh, op), fields, 64);
            text.push_str(&format!(" [{d}]"));
            obj.insert(format!("{key}_fields"), json!(d));
        }
    }
}

/// A PTX matrix fact: its fields, the PTX line, the target and the recovered
/// descriptor / address operands.
fn ptx_json(m: &Module, cx: Ctx<'_>, inst: Option<&ir::Inst>, p: &ir::PtxMatrixOp) -> Json {
    let mut j = serde_json::to_value(&p.op).unwrap_or(Json::Null);
    if let Some(obj) = j.as_object_mut() {
        obj.insert("kind".into(), obj.get("op").cloned().unwrap_or(Json::Null));
        obj.insert("ptx_line".into(), json!(inst.map(|i| i.span.id)));
        obj.insert("target".into(), json!(p.target.map(|t| t.name())));
        let line = inst.map_or(0, |i| i.span.id);
        let text = match &p.op {
            ir::PtxOp::Tcgen05Mma(t) => {
                let idesc = t.idesc.map_or(Json::Null, |o| operand_json(m, cx, o));
                let mut text =
                    format!("{} (line {line}): kind word 0x{:03x}, idesc {}", p.word, t.kind_word, json_text(&idesc));
                obj.insert("idesc".into(), idesc);
                let block_scaled =
                    matches!(t.kind, Some(ir::MmaKind::Mxf8f6f4 | ir::MmaKind::Mxf4 | ir::MmaKind::Mxf4nvf4));
                if let (Some((a, fh)), Some(op)) = (cx.values, t.idesc) {
                    let v = a.value(m, fh, op);
                    let fields = if block_scaled {
                        crate::rules::ptx_desc::TCGEN05_IDESC_BLOCK_SCALED_FIELDS
                    } else {
                        crate::rules::ptx_desc::TCGEN05_IDESC_FIELDS
                    };
                    let d = crate::rules::ptx_desc::decode(&v, fields, 32);
                    text.push_str(&format!(" [{d}]"));
                    obj.insert("idesc_fields".into(), json!(d));
                }
                let descs = [("a_desc", t.a_desc), ("b_desc", t.b_desc)];
                push_smem_descriptors(m, cx, &descs, crate::rules::ptx_desc::TCGEN05_SMEM_FIELDS, &mut text, obj);
                text
            }
            ir::PtxOp::LdStMatrix(l) => {
                let j = l.address.map_or(Json::Null, |o| operand_json(m, cx, o));
                let text = format!(
                    "{} (line {line}): {} of {} registers, address {}",
                    p.word,
                    l.registers,
                    l.expected_registers,
                    json_text(&j)
                );
                obj.insert("address".into(), j);
                text
            }
            ir::PtxOp::BlockScaledMma(b) => {
                format!("{} (line {line}): k {}, scale {:?} {}", p.word, b.k, b.scale_vec, b.scale_type)
            }
            ir::PtxOp::TensorCopy(c) => {
                let mut text =
                    format!("{} (line {line}): rank {}, {:?}, {} coordinates", p.word, c.rank, c.mode, c.coords);
                for (key, op) in [("smem", c.smem), ("mbarrier", c.mbarrier)] {
                    let Some(op) = op else { continue };
                    let j = operand_json(m, cx, op);
                    text.push_str(&format!(", {key} {}", json_text(&j)));
                    obj.insert(key.into(), j);
                }
                text
            }
            ir::PtxOp::Wgmma(w) => {
                let mut text = format!("{} (line {line})", p.word);
                let descs = [("a_desc", w.a_desc), ("b_desc", w.b_desc)];
                push_smem_descriptors(m, cx, &descs, crate::rules::ptx_desc::WGMMA_SMEM_FIELDS, &mut text, obj);
                text
            }
            ir::PtxOp::Mbarrier(b) => {
                let j = b.address.map_or(Json::Null, |o| operand_json(m, cx, o));
                let text = format!("{} (line {line}): address {}", p.word, json_text(&j));
                obj.insert("address".into(), j);
                text
            }
        };
        obj.insert("text".into(), json!(text));
    }
    j
}

/// Display name of a fact's opcode.
fn op_name(encoding: Option<MatrixEncoding>, opcode: u32, m: &Module) -> String {
    if m.source == ir::SourceKind::Ptx {
        return m.op_names.get(opcode as usize).cloned().unwrap_or_else(|| format!("op{opcode}"));
    }
    match (m.source, encoding) {
        (ir::SourceKind::Spirv, _) | (_, Some(MatrixEncoding::SpirvCoopVec | MatrixEncoding::SpirvCoopMatrix)) => {
            spirv::Op::from_u32(opcode).map(|o| format!("Op{o:?}")).unwrap_or_else(|| format!("SPIR-V op {opcode}"))
        }
        _ => dxop::name(opcode).into_owned(),
    }
}

fn resource_label(m: &Module, r: Option<ir::ResourceH>) -> Option<String> {
    let h = r?;
    let res = m.resources.try_get(h)?;
    let b = resources::binding_text(res.class, &res.binding);
    Some(match &res.name {
        Some(n) => format!("{n} ({b})"),
        None => b,
    })
}

fn overload_of(m: &Module, f: &ir::Function, inst: ir::InstH) -> Option<String> {
    let InstKind::Call { callee: Value::Function(c), .. } = &f.insts.try_get(inst)?.kind else { return None };
    let name = &m.functions.try_get(*c)?.name;
    let (_, ovl) = dxop::split_callee(name)?;
    (!ovl.is_empty()).then(|| ovl.join("."))
}

fn raw_vector_json(m: &Module, cx: Ctx<'_>, name: &str, ovl: Option<&str>, r: &RawVectorAccess) -> Json {
    let index = operand_json(m, cx, r.index);
    let eo = r.element_offset.map(|o| operand_json(m, cx, o)).unwrap_or(json!("undef"));
    let ty = format!("v{}{}{}", r.count, if r.float { 'f' } else { 'i' }, r.component_bytes * 8);
    let res = resource_label(m, r.resource);
    let mut text = format!("{name} {}", ovl.unwrap_or(&ty));
    if let Some(l) = &res {
        let _ = write!(text, " {l}");
    }
    if let Some(k) = r.kind {
        let _ = write!(text, " {}", k.name());
    }
    let _ = write!(text, " index={} elementOffset={}", json_text(&index), json_text(&eo));
    match r.alignment {
        Some(a) => {
            let _ = write!(text, " align={a}");
        }
        None => text.push_str(" align=?"),
    }
    json!({
        "kind": if r.store { "raw-vector-store" } else { "raw-vector-load" },
        "resource": r.resource.map(|h| h.index()),
        "resource_label": res,
        "resource_kind": r.kind.map(|k| k.name()),
        "index": index,
        "element_offset": eo,
        "count": r.count,
        "component_bytes": r.component_bytes,
        "float": r.float,
        "alignment": r.alignment,
        "text": text,
    })
}

fn matrix_json(m: &Module, cx: Ctx<'_>, name: &str, x: &MatrixMemOp) -> Json {
    let o = |op: Option<Operand>| op.map(|v| operand_json(m, cx, v)).unwrap_or(Json::Null);
    let preview = x.element_numbering == ComponentNumbering::DxilPreview;
    let linalg_layout = x.layout_numbering == LayoutNumbering::DxilLinAlg;
    let (rows, cols, element, layout) = (o(x.rows), o(x.cols), o(x.element), o(x.layout));
    let element_name = match (x.element_numbering, element.as_u64()) {
        (ComponentNumbering::Dxil | ComponentNumbering::DxilPreview, Some(v)) => {
            Some(linalg::component_name(v, preview).to_string())
        }
        (ComponentNumbering::Spirv, Some(v)) => u32::try_from(v)
            .ok()
            .and_then(spirv::ComponentType::from_u32)
            .map(|c| format!("{c:?}"))
            .or_else(|| Some(format!("ComponentType({v})"))),
        _ => None,
    };
    let layout_name = match (x.layout_numbering, layout.as_u64()) {
        (LayoutNumbering::DxilPreview | LayoutNumbering::DxilLinAlg, Some(v)) => {
            Some(linalg::layout_name(v, linalg_layout).to_string())
        }
        (LayoutNumbering::SpirvNv, Some(v)) => Some(
            match v {
                0 => "RowMajor",
                1 => "ColumnMajor",
                2 => "InferencingOptimal",
                3 => "TrainingOptimal",
                _ => "Unknown",
            }
            .to_string(),
        ),
        (LayoutNumbering::SpirvKhr, Some(v)) => Some(
            match v {
                0 => "RowMajor",
                1 => "ColumnMajor",
                4202 => "RowBlockedInterleavedARM",
                4203 => "ColumnBlockedInterleavedARM",
                _ => "Unknown",
            }
            .to_string(),
        ),
        _ => None,
    };
    let res = resource_label(m, x.resource);
    let mut text = name.to_string();
    if let Some(e) = &element_name {
        let _ = write!(text, " {e}");
    } else if !element.is_null() {
        let _ = write!(text, " element={}", json_text(&element));
    }
    if !rows.is_null() || !cols.is_null() {
        let _ = write!(text, " {}x{}", json_text(&rows), json_text(&cols));
    }
    if let Some(u) = x.matrix_use {
        let _ = write!(text, " use={}", linalg::use_name(u));
    }
    if let Some(s) = x.scope {
        let _ = write!(text, " scope={}", linalg::scope_name(s));
    }
    if !layout.is_null() {
        match &layout_name {
            Some(n) => {
                let _ = write!(text, " layout={n}({})", json_text(&layout));
            }
            None => {
                let _ = write!(text, " layout={}", json_text(&layout));
            }
        }
    }
    let fields = [
        ("transpose", o(x.transpose)),
        ("stride", o(x.stride)),
        ("offset", o(x.offset)),
        ("bias_offset", o(x.bias_offset)),
        ("align", o(x.align)),
    ];
    for (k, v) in &fields {
        if !v.is_null() {
            let _ = write!(text, " {k}={}", json_text(v));
        }
    }
    if x.encoding == MatrixEncoding::DxilLinAlgGroupShared {
        text.push_str(" (groupshared: offset/stride in elements)");
    }
    if let Some(l) = &res {
        let _ = write!(text, " on {l}");
    }
    let mut j = json!({
        "kind": x.op,
        "encoding": format!("{:?}", x.encoding),
        "rows": rows,
        "cols": cols,
        "element": element,
        "element_name": element_name,
        "layout": layout,
        "layout_name": layout_name,
        "matrix_use": x.matrix_use.map(linalg::use_name),
        "scope": x.scope.map(linalg::scope_name),
        "resource": x.resource.map(|h| h.index()),
        "resource_label": res,
        "text": text,
    });
    if let Some(obj) = j.as_object_mut() {
        for (k, v) in fields {
            obj.insert(k.into(), v);
        }
    }
    j
}

/// `{file, line, column}` of a debug location, or null.
fn loc_json(m: &Module, loc: Option<ir::LocH>) -> Json {
    let Some(loc) = loc.and_then(|l| m.locs.try_get(l)) else { return Json::Null };
    let file = m.source_files.get(loc.file as usize).map(|s| s.name.clone());
    json!({"file": file, "line": loc.line, "column": loc.column})
}

/// Every `dx.op` opcode called in the module with its count (sorted by opcode).
fn dx_op_counts(m: &Module) -> BTreeMap<u32, usize> {
    let mut counts = BTreeMap::new();
    for f in m.functions.values() {
        for inst in f.insts.values() {
            if let InstKind::Call { callee, args, dx_op } = &inst.kind {
                if let Some(op) = dx_op.or_else(|| resources::call_opcode(m, *callee, args)) {
                    *counts.entry(op).or_insert(0) += 1;
                }
            }
        }
    }
    counts
}

fn module_details(mut out: DumpFile, m: &Module, opts: &DumpOptions) -> DumpFile {
    let d = &mut out.details;
    d.insert("source".into(), json!(m.source));
    d.insert("target".into(), json!(m.target));
    d.insert("producer".into(), json!(m.producer));
    let eps: Vec<Json> = m
        .entry_points
        .iter()
        .map(|e| {
            json!({
                "name": e.name,
                "stage": e.stage,
                "function": e.function.and_then(|f| m.functions.try_get(f)).map(|f| f.name.clone()),
            })
        })
        .collect();
    d.insert("entry_points".into(), json!(eps));
    if m.source == ir::SourceKind::Ptx {
        // PTX modules list every function (entries, .func bodies, .extern prototypes).
        let funcs: Vec<Json> = m
            .functions
            .values()
            .map(|f| {
                json!({
                    "name": f.name,
                    "declaration": f.is_declaration,
                    "params": f.params.len(),
                    "blocks": f.blocks.len(),
                    "instructions": f.blocks.values().map(|b| b.insts.len()).sum::<usize>(),
                    "phis": f
                        .blocks
                        .values()
                        .flat_map(|b| b.insts.iter())
                        .filter(|h| f.insts.try_get(**h).is_some_and(|i| matches!(i.kind, InstKind::Phi { .. })))
                        .count(),
                })
            })
            .collect();
        d.insert("functions".into(), json!(funcs));
    }
    let res: Vec<Json> = m
        .resources
        .iter()
        .map(|(h, r)| {
            json!({
                "index": h.index(),
                "class": r.class,
                "kind": r.kind.name(),
                "name": r.name,
                "binding": resources::binding_text(r.class, &r.binding),
                "stride": r.stride,
                "id": (r.id != u32::MAX).then_some(r.id),
                "source": loc_json(m, r.span.loc),
            })
        })
        .collect();
    d.insert("resources".into(), json!(res));
    let mut ops = Vec::new();
    let analysis = crate::analysis::analyze(m, &Default::default());
    for fact in &m.facts {
        // Aligned-access facts are every buffer load and store: the listing
        // keeps to the operations the matrix and long-vector rules read.
        if matches!(fact.kind, FactKind::Access(_)) {
            continue;
        }
        let f = m.functions.try_get(fact.function);
        let cx = Ctx { f, values: Some((&analysis, fact.function)) };
        let (opcode, encoding) = match &fact.kind {
            FactKind::Matrix(x) => (x.opcode, Some(x.encoding)),
            FactKind::RawVector(r) => {
                (if r.store { dxop::RAW_BUFFER_VECTOR_STORE } else { dxop::RAW_BUFFER_VECTOR_LOAD }, None)
            }
            FactKind::Access(_) => continue,
            FactKind::Ptx(_) => (
                f.and_then(|f| f.insts.try_get(fact.inst))
                    .and_then(|i| match &i.kind {
                        InstKind::Other { opcode, .. } => Some(*opcode),
                        _ => None,
                    })
                    .unwrap_or(u32::MAX),
                None,
            ),
        };
        let opcode = f
            .and_then(|f| f.insts.try_get(fact.inst))
            .and_then(|i| match &i.kind {
                InstKind::Call { dx_op: Some(op), .. } => Some(*op),
                _ => None,
            })
            .unwrap_or(opcode);
        let name = op_name(encoding, opcode, m);
        let ovl = f.and_then(|f| overload_of(m, f, fact.inst));
        let mut j = match &fact.kind {
            FactKind::RawVector(r) => raw_vector_json(m, cx, &name, ovl.as_deref(), r),
            FactKind::Matrix(x) => matrix_json(m, cx, &name, x),
            FactKind::Ptx(p) => ptx_json(m, cx, f.and_then(|f| f.insts.try_get(fact.inst)), p),
            FactKind::Access(_) => continue,
        };
        if let Some(obj) = j.as_object_mut() {
            obj.insert("op".into(), json!(name));
            obj.insert("opcode".into(), json!(opcode));
            obj.insert("overload".into(), json!(ovl));
            obj.insert("function".into(), json!(f.map(|f| f.name.clone())));
            obj.insert("inst".into(), json!(fact.inst.index()));
            obj.insert("ir".into(), json!(f.map(|f| ir::print::inst(m, f, fact.inst))));
            let loc = loc_json(m, f.and_then(|f| f.insts.try_get(fact.inst)).and_then(|i| i.span.loc));
            if !loc.is_null() {
                obj.insert("source".into(), loc);
            }
        }
        ops.push(j);
    }
    d.insert("ops".into(), json!(ops));
    if m.source == ir::SourceKind::Dxil {
        let counts: Vec<Json> = dx_op_counts(m)
            .into_iter()
            .map(|(op, n)| json!({"opcode": op, "name": dxop::name(op), "count": n}))
            .collect();
        d.insert("dx_ops".into(), json!(counts));
    }
    d.insert("remarks".into(), json!(m.remarks));
    if opts.ir {
        // Every function's values, for the notes on phis and parameters.
        let all = crate::analysis::AnalysisOptions { all_functions: true, ..Default::default() };
        let a = crate::analysis::analyze(m, &all);
        let note = |fh: ir::FuncH, v: Value| -> Option<String> {
            let av = match v {
                Value::Arg(i) => a.params(fh).get(i as usize).cloned()?,
                v => a.value(m, fh, ir::Operand::Value(v)),
            };
            matches!(av, AbsValue::Set(_) | AbsValue::Known(_)).then(|| av.describe())
        };
        // Each instruction marked `U` (uniform) or `D` (divergent across a wave).
        let u = crate::analysis::uniformity::analyze_module(m);
        let mark = |fh: ir::FuncH, ih: ir::InstH| {
            let fu = u.get(fh.index())?.as_ref()?;
            crate::analysis::uniformity::marker(fu, m.functions.try_get(fh)?, ih)
        };
        out.ir = Some(ir::print::module_annotated(m, &note, &mark));
    }
    out
}

/// Compiles an HLSL input for `irlint dump` as `check` does: the file's
/// `// irlint:` directive, then the command-line options (`-T`, `-E`, …);
/// the compiler is loaded once into `compiler`. Returns the module's bytes.
pub fn compile_hlsl(
    path: &str,
    bytes: &[u8],
    cli: &crate::input::dxc::HlslOptions,
    dxc_path: Option<&std::path::Path>,
    compiler: &mut Option<Result<crate::input::dxc::Compiler, crate::input::dxc::HlslError>>,
) -> Result<Vec<u8>, String> {
    use crate::input::dxc::{self, Compiler, HlslError, HlslOptions};
    let text = |e: &HlslError| match e {
        HlslError::NoCompiler(m) | HlslError::Options(m) | HlslError::Compile(m) => m.clone(),
    };
    let source = std::str::from_utf8(bytes).map_err(|_| "HLSL source is not valid UTF-8".to_string())?;
    let directive = match dxc::parse_directive(source) {
        Some(r) => r?,
        None => HlslOptions::default(),
    };
    let opts = directive.merged(cli);
    dxc::require_target(&opts).map_err(|e| text(&e))?;
    let c = compiler.get_or_insert_with(|| Compiler::load(dxc_path)).as_ref().map_err(text)?;
    match c.compile(path, source, &opts) {
        Ok((module, _)) => Ok(module),
        Err(HlslError::Compile(out)) => Err(format!("{}\n{}", dxc::compile_error_headline(&out).0, out.trim_end())),
        Err(e) => Err(text(&e)),
    }
}

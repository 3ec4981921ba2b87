//! DXIL semantics on a decoded module: target and producer, resources and
//! handle resolution, entry points, and the facts the rules read.
//!
//! [`lower_container`] picks the program part (ILDB — the full debug module —
//! over DXIL, formats.md §A.6), reads the program header for the shader model
//! and stage, decodes the bitcode and runs [`lower_llvm`].

use super::dxop;
use super::facts;
use super::linalg::MatrixTypes;
use super::llvm::{self, LlvmModule, MdId, Metadata};
use super::resources::{self, Resolver};
use crate::ir::{DebugLoc, EntryPoint, InstKind, Module, SourceFile, Value};
use crate::read::dxbc::{self, Container, FourCc, Part, ProgramHeader};
use crate::read::{ErrorKind, ReadError, Result};
use rustc_hash::FxHashMap;

/// The program part a container is analysed from: ILDB when present, else DXIL.
pub fn program_part<'a, 'c>(c: &'c Container<'a>) -> Option<&'c Part<'a>> {
    c.part(FourCc::ILDB).or_else(|| c.part(FourCc::DXIL))
}

fn lower_part(part: &Part<'_>) -> Result<Module> {
    let ctx = format!("{} part", part.fourcc);
    let (header, bc, base) = dxbc::program(part).map_err(|e| e.context(ctx.clone()))?;
    let llvm = llvm::decode(bc, base).map_err(|e| e.context(ctx))?;
    Ok(lower_llvm(llvm, Some(&header)))
}

/// Lowers the program of a DXBC container (ILDB preferred over DXIL). When the
/// ILDB part cannot be decoded but a DXIL part exists, the DXIL part is used and
/// a remark says so.
pub fn lower_container(c: &Container<'_>) -> Result<Module> {
    let dxil = c.part(FourCc::DXIL);
    match (c.part(FourCc::ILDB), dxil) {
        (Some(ildb), Some(dxil)) => match lower_part(ildb) {
            Ok(m) => Ok(m),
            Err(e) => {
                let mut m = lower_part(dxil)?;
                m.remarks.push(format!("ILDB part not used: {e}"));
                Ok(m)
            }
        },
        (Some(p), None) | (None, Some(p)) => lower_part(p),
        (None, None) => Err(ReadError::new(ErrorKind::Malformed, 0, "container has no DXIL or ILDB part")),
    }
}

/// Lowers raw LLVM bitcode. `base` is its absolute offset.
pub fn lower_bitcode(bc: &[u8], base: u64) -> Result<Module> {
    let llvm = llvm::decode(bc, base)?;
    Ok(lower_llvm(llvm, None))
}

/// The stage name of a DXIL ShaderKind (`compute`, `pixel`, `library`, ...).
pub fn stage_name(kind: u32) -> &'static str {
    ProgramHeader { shader_kind: kind, sm_major: 0, sm_minor: 0, dxil_version: (0, 0) }.stage()
}

/// ShaderKind from a `!dx.shaderModel` kind string (`cs`, `ps`, `lib`, ...).
fn kind_from_profile(s: &str) -> Option<u32> {
    Some(match s {
        "ps" => 0,
        "vs" => 1,
        "gs" => 2,
        "hs" => 3,
        "ds" => 4,
        "cs" => 5,
        "lib" => 6,
        "ms" => 13,
        "as" => 14,
        _ => return None,
    })
}

fn md_str(llvm: &LlvmModule, id: Option<MdId>) -> Option<String> {
    llvm.string(id?).map(|b| String::from_utf8_lossy(b).into_owned())
}

/// `!dx.shaderModel = !{!{!"cs", i32 6, i32 10}}` → (`cs_6_10`, ShaderKind).
fn shader_model(llvm: &LlvmModule) -> Option<(String, Option<u32>)> {
    let ops = llvm.node(*llvm.named("dx.shaderModel")?.first()?)?;
    let kind = md_str(llvm, *ops.first()?)?;
    let major = llvm.int((*ops.get(1)?)?)?;
    let minor = llvm.int((*ops.get(2)?)?)?;
    Some((format!("{kind}_{major}_{minor}"), kind_from_profile(&kind)))
}

/// `!llvm.ident`'s first string.
fn producer(llvm: &LlvmModule) -> Option<String> {
    let id = *llvm.named("llvm.ident")?.first()?;
    let s = match llvm.md(id)? {
        Metadata::String(_) => md_str(llvm, Some(id)),
        Metadata::Node { ops, .. } => md_str(llvm, *ops.first()?),
        _ => None,
    }?;
    (!s.is_empty()).then_some(s)
}

/// `!dx.entryPoints` entries `!{fn, !"name", sigs, resources, props}`; the stage
/// is the properties' ShaderKind tag (8) when present (libraries), else `default_kind`.
fn entry_points(llvm: &LlvmModule, m: &Module, default_kind: Option<u32>) -> Vec<EntryPoint> {
    let mut out = Vec::new();
    for id in llvm.named("dx.entryPoints").unwrap_or(&[]) {
        let Some(ops) = llvm.node(*id) else { continue };
        let function = match ops.first().copied().flatten().and_then(|i| llvm.md(i)) {
            Some(Metadata::Value { value: Value::Function(f), .. }) => Some(*f),
            _ => None,
        };
        let name = md_str(llvm, ops.get(1).copied().flatten()).unwrap_or_default();
        if function.is_none() && name.is_empty() {
            continue; // the library's resource-only entry
        }
        let name = if name.is_empty() {
            function.and_then(|f| m.functions.try_get(f)).map(|f| f.name.clone()).unwrap_or_default()
        } else {
            name
        };
        let mut kind = default_kind;
        if let Some(props) = ops.get(4).copied().flatten().and_then(|p| llvm.node(p)) {
            for pair in props.chunks(2) {
                if let [Some(t), Some(v)] = pair {
                    if llvm.int(*t) == Some(8) {
                        if let Some(k) = llvm.int(*v) {
                            kind = Some(k as u32);
                        }
                    }
                }
            }
        }
        let stage = kind.map(stage_name).unwrap_or("unknown").to_string();
        out.push(EntryPoint { name, function, stage });
    }
    out
}

/// Debug-info globals (`DIGlobalVariable`, METADATA_GLOBAL_VAR = 27:
/// `[distinct, scope, name, linkageName, file, line, ...]`) by name → (file path, line).
/// Resource records are matched by name to give resources a source line.
fn debug_globals(llvm: &LlvmModule) -> FxHashMap<String, (String, u32)> {
    let mut out = FxHashMap::default();
    let md_ref = |v: Option<&u64>| v.copied().filter(|&v| v != 0).map(|v| (v - 1) as MdId);
    for md in &llvm.metadata {
        let Metadata::Other { code: 27, ops } = md else { continue };
        let Some(name) = md_str(llvm, md_ref(ops.get(2))) else { continue };
        let line = ops.get(5).copied().unwrap_or(0) as u32;
        let file = match md_ref(ops.get(4)).and_then(|f| llvm.md(f)) {
            Some(Metadata::File { filename, directory }) => {
                let file = md_str(llvm, *filename).unwrap_or_default();
                let dir = md_str(llvm, *directory).unwrap_or_default();
                join_path(&dir, &file)
            }
            _ => continue,
        };
        if line != 0 && !name.is_empty() {
            out.entry(name).or_insert((file, line));
        }
    }
    out
}

/// `directory/filename` (the filename alone when absolute or without a directory),
/// the same naming the decoder uses for instruction locations.
fn join_path(dir: &str, file: &str) -> String {
    let absolute = file.starts_with('/') || file.starts_with('\\') || file.as_bytes().get(1) == Some(&b':');
    if dir.is_empty() || absolute {
        file.to_string()
    } else if dir.ends_with('/') || dir.ends_with('\\') {
        format!("{dir}{file}")
    } else {
        format!("{dir}/{file}")
    }
}

/// Runs the DXIL semantics over a decoded module. `header` is the container's
/// program header (None for raw bitcode; `!dx.shaderModel` then gives the target).
pub fn lower_llvm(llvm: LlvmModule, header: Option<&ProgramHeader>) -> Module {
    let sm = shader_model(&llvm);
    let target = header.map(|h| h.profile()).or_else(|| sm.as_ref().map(|s| s.0.clone()));
    let ident = producer(&llvm);
    let kind = header.map(|h| h.shader_kind).or_else(|| sm.and_then(|s| s.1));
    let entry_points = entry_points(&llvm, &llvm.module, kind);
    let parsed = resources::parse_resources(&llvm, llvm.module.resources.len());
    let types = MatrixTypes::from_metadata(&llvm);
    let debug_globals = debug_globals(&llvm);

    let mut m = llvm.module;
    m.target = target;
    if m.producer.is_none() {
        m.producer = ident;
    }
    m.entry_points = entry_points;
    m.remarks.extend(parsed.remarks);
    // Source files by name, built once (not a linear search per resource).
    let mut files: FxHashMap<String, u32> =
        m.source_files.iter().enumerate().rev().map(|(i, f)| (f.name.clone(), i as u32)).collect();
    for mut r in parsed.resources {
        if let Some((file, line)) = r.name.as_ref().and_then(|n| debug_globals.get(n)) {
            if r.span.loc.is_none() {
                let file = match files.get(file.as_str()) {
                    Some(&i) => i,
                    None => {
                        let i = m.source_files.len() as u32;
                        m.source_files.push(SourceFile { name: file.clone(), text: None });
                        files.insert(file.clone(), i);
                        i
                    }
                };
                r.span.loc = Some(m.add_loc(DebugLoc { file, line: *line, column: 0, inlined_at: None }));
            }
        }
        m.resources.append(r);
    }
    let (facts, new_resources) = {
        let mut res = Resolver::new(&m, &parsed.table);
        let facts = facts::collect(&m, &types, &mut res);
        (facts, res.new_resources)
    };
    for r in new_resources {
        m.resources.append(r);
    }
    m.facts = facts;
    let unknown = unknown_opcodes(&m);
    if !unknown.is_empty() {
        let list: Vec<String> = unknown.iter().map(|op| dxop::name(*op).into_owned()).collect();
        m.remarks.push(format!("dx.op opcodes not in the opcode table (kept as calls): {}", list.join(", ")));
    }
    m
}

/// Opcodes of `dx.op` calls that the table does not know, sorted.
fn unknown_opcodes(m: &Module) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    for f in m.functions.values() {
        for inst in f.insts.values() {
            if let InstKind::Call { callee, args, dx_op } = &inst.kind {
                if let Some(op) = dx_op.or_else(|| resources::call_opcode(m, *callee, args)) {
                    if dxop::info(op).is_none() && !out.contains(&op) {
                        out.push(op);
                    }
                }
            }
        }
    }
    out.sort_unstable();
    out
}

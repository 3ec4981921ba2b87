//! The pipeline for one input: classify → read → lower → verify → analyse →
//! rules → diagnostics with locations. Panics are caught per input.

use crate::analysis::{self, AnalysisOptions};
use crate::config::Settings;
use crate::ir::{self, Module};
use crate::read::dxbc::{self, FourCc};
use crate::read::ReadError;
use crate::report::{Certainty, Diagnostic, Level, BUDGET_EXCEEDED, INPUT_ERROR, INTERNAL_ERROR};
use crate::{dxil, ptx, rules, spirv, suppress};

// The per-input entries are part of the report model (`crate::report::files`);
// re-exported here, where the pipeline produces them.
pub use crate::report::files::{FileReport, FileStatus, InputKind};

/// Options for a check run.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// Rule levels and options.
    pub settings: Settings,
    /// Dataflow options (spec constants).
    pub analysis: AnalysisOptions,
}

/// Result of checking one input (several entries for files with embedded blobs).
#[derive(Debug, Clone, Default)]
pub struct CheckResult {
    /// One entry per input (and per embedded blob).
    pub files: Vec<FileReport>,
    /// Findings and tool-level outcomes.
    pub diagnostics: Vec<Diagnostic>,
}

/// The message for legacy containers.
pub const LEGACY_DXBC: &str = "legacy DXBC (SM 4/5), not analysed";

/// Classifies bytes by content; `path` only decides HLSL.
pub fn classify(path: &str, bytes: &[u8]) -> InputKind {
    classify_parsed(path, bytes).0
}

/// A DXBC container parsed while classifying, for [`check_classified`] to reuse.
pub type Parsed<'a> = Option<Result<dxbc::Container<'a>, ReadError>>;

/// [`classify`], also returning the DXBC container it parsed (at base 0), so
/// that checking does not parse it again.
pub fn classify_parsed<'a>(path: &str, bytes: &'a [u8]) -> (InputKind, Parsed<'a>) {
    if dxbc::is_container(bytes) {
        let parsed = dxbc::parse(bytes, 0);
        let kind = match &parsed {
            Ok(c) if c.part(FourCc::DXIL).is_some() || c.part(FourCc::ILDB).is_some() => InputKind::Dxil,
            Ok(_) => InputKind::Dxbc,
            Err(_) => InputKind::Dxil,
        };
        return (kind, Some(parsed));
    }
    let lower = path.to_ascii_lowercase();
    let kind = if spirv::is_spirv(bytes) {
        InputKind::Spirv
    } else if dxil::is_bitcode(bytes) {
        InputKind::Bitcode
    } else if ptx::is_ptx(bytes) {
        InputKind::Ptx
    } else if lower.ends_with(".hlsl") || lower.ends_with(".hlsli") || lower.ends_with(".fx") {
        InputKind::Hlsl
    } else {
        InputKind::Binary
    };
    (kind, None)
}

/// File extensions that name a compiled shader. An input named so that holds
/// no shader (empty, text, random bytes) is an input error, not a skip: a
/// build that writes garbage must not pass the gate.
pub const SHADER_EXTENSIONS: &[&str] = &["dxil", "cso", "dxbc", "spv", "spirv", "bc", "ptx"];

/// True when `path` ends in one of [`SHADER_EXTENSIONS`] (any case).
pub fn named_as_shader(path: &str) -> bool {
    std::path::Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| SHADER_EXTENSIONS.iter().any(|x| x.eq_ignore_ascii_case(e)))
}

/// Why a file named as a shader holds none: `empty file` or what its first
/// bytes are, for the input error.
pub fn not_a_shader(path: &str, bytes: &[u8]) -> String {
    let ext = std::path::Path::new(path).extension().and_then(|e| e.to_str()).unwrap_or("");
    let expected = match ext.to_ascii_lowercase().as_str() {
        "ptx" => "PTX text (a `.version` directive)",
        "spv" | "spirv" => "a SPIR-V module (starting with the magic word 0x07230203)",
        "bc" => "LLVM bitcode (starting with `BC` C0 DE, or a bitcode wrapper)",
        "cso" | "dxbc" => "a DXBC container (starting with `DXBC`)",
        _ => "a DXBC container (starting with `DXBC`) or LLVM bitcode",
    };
    if bytes.is_empty() {
        return format!("empty file: a .{ext} input must hold {expected}");
    }
    format!("not a shader: a .{ext} input must hold {expected}, and no shader is embedded in it; {}", holds(bytes))
}

/// The kind of an input that could not be read: [`InputKind::Missing`] when
/// nothing exists at `path` (a dangling symlink included), else what its name
/// alone says ([`classify`] of no bytes).
pub fn unreadable_kind(path: &std::path::Path, display: &str) -> InputKind {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => InputKind::Missing,
        _ => classify(display, &[]),
    }
}

/// Why in-memory data given to the library as a shader (`Batch::run_data`,
/// the Python `irlint.check`) holds none.
pub fn data_not_a_shader(bytes: &[u8]) -> String {
    let expected = "a DXBC container, a SPIR-V module, LLVM bitcode or PTX text (a `.version` directive)";
    if bytes.is_empty() {
        return format!("empty data: the input must hold {expected}");
    }
    format!("not a shader: the input must hold {expected}, and no shader is embedded in it; {}", holds(bytes))
}

/// `it holds text (first bytes at offset 0: 68 65 6C 6C 6F)`.
fn holds(bytes: &[u8]) -> String {
    let head: Vec<String> = bytes.iter().take(8).map(|b| format!("{b:02X}")).collect();
    let text = bytes.iter().take(64).all(|&b| b.is_ascii_graphic() || b.is_ascii_whitespace());
    let what = if text { "text" } else { "unrecognised bytes" };
    format!("it holds {what} (first bytes at offset 0: {})", head.join(" "))
}

/// Reads and lowers one module of a known kind. `Ok(None)` means "recognised,
/// not analysed" (legacy DXBC).
pub fn load_module(kind: InputKind, bytes: &[u8], base: u64) -> Result<Option<Module>, ReadError> {
    load_parsed(kind, bytes, base, None).map(Result::ok)
}

/// Why a DXBC container without a DXIL program is skipped (legacy bytecode,
/// a root signature, other non-shader parts), or the input error of one with
/// no part any compiler writes.
pub fn dxbc_skip_reason(c: &dxbc::Container<'_>) -> Result<String, ReadError> {
    Ok(match c.no_program()? {
        dxbc::NoProgram::Legacy => LEGACY_DXBC.to_string(),
        dxbc::NoProgram::NotAShader(what) => what,
    })
}

/// [`load_module`] reusing a container already parsed at `base`; `Ok(Err(why))`
/// for a container that is recognised but not analysed.
fn load_parsed(
    kind: InputKind,
    bytes: &[u8],
    base: u64,
    parsed: Parsed<'_>,
) -> Result<Result<Module, String>, ReadError> {
    match kind {
        InputKind::Dxil | InputKind::Dxbc => {
            let c = match parsed {
                Some(p) => p?,
                None => dxbc::parse(bytes, base)?,
            };
            if c.part(FourCc::DXIL).is_none() && c.part(FourCc::ILDB).is_none() {
                return dxbc_skip_reason(&c).map(Err);
            }
            dxil::lower_container(&c).map(Ok)
        }
        InputKind::Bitcode => dxil::lower_bitcode(bytes, base).map(Ok),
        InputKind::Spirv => spirv::lower(bytes, base).map(Ok),
        InputKind::Ptx => ptx::lower(bytes, base).map(Ok),
        _ => Ok(Err(String::new())),
    }
}

/// Runs analysis and rules on a lowered module; the returned diagnostics have
/// function/instruction/source filled in but no path.
pub fn check_module(m: &Module, opts: &CheckOptions) -> Vec<Diagnostic> {
    let a = analysis::analyze(m, &opts.analysis);
    let mut out = rules::check_module(m, &a, &opts.settings);
    if a.budget_exceeded {
        out.push(Diagnostic::new(
            BUDGET_EXCEEDED,
            Level::Note,
            Certainty::Proven,
            "analysis budget exceeded; the module was analysed partially",
        ));
    }
    out
}

fn input_error(path: &str, blob: Option<u64>, message: &str) -> Diagnostic {
    let mut d = Diagnostic::new(INPUT_ERROR, Level::Error, Certainty::Proven, message.to_string());
    d.location.path = path.to_string();
    d.location.blob_offset = blob;
    d
}

/// The input error of a reader error, carrying its position: the absolute
/// byte offset, and the line and column in a text input (PTX).
pub fn read_error(path: &str, blob: Option<u64>, e: &ReadError) -> Diagnostic {
    let mut d = input_error(path, blob, &e.to_string());
    d.location.byte_offset = Some(e.offset);
    if let Some(p) = e.text_position {
        d.location.line = Some(p.line);
        d.location.column = (p.column > 0).then_some(p.column);
    }
    d
}

/// Checks one module-sized blob (a file or an embedded shader).
pub fn check_blob(
    path: &str,
    kind: InputKind,
    bytes: &[u8],
    blob_offset: Option<u64>,
    opts: &CheckOptions,
) -> (FileReport, Vec<Diagnostic>) {
    check_parsed(path, kind, bytes, blob_offset, opts, None)
}

/// Checks a whole input file classified by [`classify_parsed`] (a module kind:
/// DXIL, legacy DXBC, bitcode, SPIR-V), reusing the container it parsed.
pub fn check_classified(
    path: &str,
    kind: InputKind,
    bytes: &[u8],
    parsed: Parsed<'_>,
    opts: &CheckOptions,
) -> (FileReport, Vec<Diagnostic>) {
    check_parsed(path, kind, bytes, None, opts, parsed)
}

fn check_parsed(
    path: &str,
    kind: InputKind,
    bytes: &[u8],
    blob_offset: Option<u64>,
    opts: &CheckOptions,
    parsed: Parsed<'_>,
) -> (FileReport, Vec<Diagnostic>) {
    let mut report = FileReport {
        path: path.to_string(),
        kind,
        status: FileStatus::Ok,
        message: None,
        blob_offset,
        section: None,
        entry: None,
        bytes: bytes.len() as u64,
        modules: 0,
        spec_ids: Vec::new(),
    };
    let base = blob_offset.unwrap_or(0);
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // PTX: the sliced lowering first (`ptx::lower_sliced`). A module it
        // finds nothing in is done; anything else (a finding, an input
        // error) is reported from the whole lowering, whose instruction
        // indices and IR text the output shows.
        if kind == InputKind::Ptx {
            if let Ok(m) = ptx::lower_sliced(bytes, base) {
                if !cfg!(debug_assertions) || ir::verify::verify(&m).is_ok() {
                    let diags = check_module(&m, opts);
                    if diags.is_empty() {
                        return Ok((diags, spec_ids(&m), (embedded_sources(&m), suppress::Covered::default())));
                    }
                }
            }
        }
        let m = match load_parsed(kind, bytes, base, parsed) {
            Ok(Ok(m)) => m,
            Ok(Err(why)) => return Err((FileStatus::Skipped, why, None)),
            Err(e) => {
                let d = read_error(path, blob_offset, &e);
                return Err((FileStatus::Error, e.to_string(), Some(Box::new(d))));
            }
        };
        // DXIL and SPIR-V name their values by ids read from the input, so
        // every module is verified. The PTX front end makes every handle it
        // writes (no id comes from the text): its structure is verified where
        // the front end is developed and fuzzed (debug builds: the tests and
        // cargo-fuzz), not on every release run, where it cost 2 % of a CuTe
        // DSL batch.
        let verified = kind != InputKind::Ptx || cfg!(debug_assertions);
        if let Err(e) = if verified { ir::verify::verify(&m) } else { Ok(()) } {
            let msg = e.to_string();
            return Err((FileStatus::Error, msg.clone(), Some(Box::new(input_error(path, blob_offset, &msg)))));
        }
        let ids = spec_ids(&m);
        let sources = embedded_sources(&m);
        let diags = check_module(&m, opts);
        let covered = if diags.iter().any(|d| d.location.source.is_some()) {
            suppress::covered_lines(&m)
        } else {
            suppress::Covered::default()
        };
        Ok((diags, ids, (sources, covered)))
    }));
    let mut sources = Vec::new();
    let mut covered = suppress::Covered::default();
    let mut diags = match outcome {
        Ok(Ok((d, ids, (embedded, lines)))) => {
            report.modules = 1;
            report.spec_ids = ids;
            sources = embedded;
            covered = lines;
            d
        }
        Ok(Err((status, msg, error))) => {
            if kind == InputKind::Dxil && status == FileStatus::Skipped {
                report.kind = InputKind::Dxbc;
            }
            report.status = status;
            report.message = Some(msg);
            error.into_iter().map(|d| *d).collect()
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            let msg = format!("internal error while analysing this input, please report: {what}");
            report.status = FileStatus::Error;
            report.message = Some(msg.clone());
            let mut d = Diagnostic::new(INTERNAL_ERROR, Level::Error, Certainty::Proven, msg);
            d.location.path = path.to_string();
            vec![d]
        }
    };
    for d in &mut diags {
        d.location.path = path.to_string();
        d.location.blob_offset = blob_offset;
    }
    if kind == InputKind::Ptx && blob_offset.is_none() {
        source_lines_from_disk(path, &mut diags);
    }
    if report.modules > 0 {
        suppress::apply(&mut diags, path, blob_offset, &sources, &covered);
        resolve_source_paths(path, &mut diags);
    }
    for d in &mut diags {
        d.cap_strings();
    }
    (report, diags)
}

/// The specialization-constant ids of `m`, sorted, each once.
fn spec_ids(m: &Module) -> Vec<u32> {
    let mut ids: Vec<u32> = m.constants.values().filter_map(|c| c.spec_id).collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// Embedded sources with inline suppressions (see `crate::suppress`); the
/// names of the others keep them from being looked up on disk.
fn embedded_sources(m: &Module) -> Vec<(String, String)> {
    m.source_files
        .iter()
        .filter_map(|f| {
            let text = f.text.as_deref()?;
            Some((f.name.clone(), if text.contains(suppress::MARKER) { text.to_string() } else { String::new() }))
        })
        .collect()
}

/// Names each finding's source files (debug info: PTX `.file`, SPIR-V
/// `OpSource`/`DebugSource`, DXIL `DIFile`) as the file on disk they stand
/// for, relative to the working directory ([`crate::paths::display_source`]),
/// so that every format points at a file that opens; names that match no
/// file are kept as recorded. Runs after suppressions, which match the
/// recorded names.
fn resolve_source_paths(path: &str, diags: &mut [Diagnostic]) {
    if diags.iter().all(|d| d.location.source.is_none()) {
        return;
    }
    let cwd = std::env::current_dir().ok();
    let mut cache: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    for d in diags.iter_mut() {
        let loc = &mut d.location;
        for src in loc.source.iter_mut().chain(loc.inlined_from.iter_mut()) {
            let shown = cache
                .entry(src.file.clone())
                .or_insert_with(|| crate::paths::display_source(path, &src.file, cwd.as_deref()));
            if *shown != src.file {
                src.file = crate::report::capped_path(shown);
            }
        }
    }
}

/// PTX names its sources (`.file`) without embedding them: where a finding's
/// source file is readable — as written, or next to the PTX file — its line is
/// shown, as the embedded HLSL is for DXIL.
fn source_lines_from_disk(path: &str, diags: &mut [Diagnostic]) {
    let mut cache: std::collections::HashMap<String, Option<crate::suppress::SourceLines>> =
        std::collections::HashMap::new();
    for d in diags.iter_mut() {
        let Some(src) = &d.location.source else { continue };
        if d.location.source_text.is_some() || src.line == 0 {
            continue;
        }
        let text = cache.entry(src.file.clone()).or_insert_with(|| {
            crate::suppress::read_source_near(path, &src.file).map(crate::suppress::SourceLines::new)
        });
        d.location.source_text = text.as_ref().and_then(|t| t.line(src.line)).map(str::to_string);
    }
}

/// Checks one input file's bytes. Binary inputs are scanned for embedded shaders.
pub fn check_bytes(path: &str, bytes: &[u8], opts: &CheckOptions) -> CheckResult {
    let (kind, parsed) = classify_parsed(path, bytes);
    let mut result = CheckResult::default();
    match kind {
        InputKind::Hlsl => {
            result.files.push(FileReport {
                path: path.to_string(),
                kind,
                status: FileStatus::Skipped,
                message: Some("HLSL input needs DXC (see `irlint check --help`)".into()),
                blob_offset: None,
                section: None,
                entry: None,
                bytes: bytes.len() as u64,
                modules: 0,
                spec_ids: Vec::new(),
            });
        }
        InputKind::Binary if named_as_shader(path) => {
            let msg = not_a_shader(path, bytes);
            result.files.push(FileReport {
                path: path.to_string(),
                kind: InputKind::Binary,
                status: FileStatus::Error,
                message: Some(msg.clone()),
                blob_offset: None,
                section: None,
                entry: None,
                bytes: bytes.len() as u64,
                modules: 0,
                spec_ids: Vec::new(),
            });
            result.diagnostics.push(input_error(path, None, &msg));
        }
        InputKind::Binary => {
            result.files.push(FileReport {
                path: path.to_string(),
                kind: InputKind::Binary,
                status: FileStatus::Skipped,
                message: Some("no embedded shader found".into()),
                blob_offset: None,
                section: None,
                entry: None,
                bytes: bytes.len() as u64,
                modules: 0,
                spec_ids: Vec::new(),
            });
        }
        _ => {
            let (r, d) = check_classified(path, kind, bytes, parsed, opts);
            result.files.push(r);
            result.diagnostics = d;
        }
    }
    result
}

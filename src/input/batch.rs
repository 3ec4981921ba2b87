//! The batch driver behind `irlint check`: reads every input and runs
//! [`crate::check`] on it; [`super::pipeline`] schedules the inputs over the
//! threads and hands the results to a report sink in report order.
//!
//! - Each input is read (at most [`limits::MAX_FILE_BYTES`]), checked and its
//!   bytes dropped before the worker takes the next one, so memory stays
//!   bounded by the number of threads, not the number of inputs. A file of
//!   [`limits::MAP_MIN_BYTES`] or more is mapped instead ([`mapped`], up to
//!   [`limits::MAX_MAPPED_FILE_BYTES`]): its pages stay the page cache's, and
//!   a large library costs the memory of its largest decoded entry; one that
//!   shrinks while it is checked is an input error, not a crash.
//! - Each input is read once (one `open`, one `fstat`, one `read` or `mmap`,
//!   one `close` for a file the walk found) and its container parsed once.
//! - Binaries that are not shaders themselves are scanned for embedded blobs
//!   ([`super::embedded`]); HLSL is compiled through DXC ([`super::dxc`]).
//! - Settings come from `--config`, else from the `irlint.toml` that the walk
//!   found for each input's directory ([`Input::config`]), loaded once per
//!   file; the command-line `-A/-W/-D` overrides are applied after either.
//! - Every input appears exactly once in `files` (an embedded blob adds an
//!   entry with its offset). An unreadable input is an `error` entry plus an
//!   `input-error` diagnostic; the other inputs are still checked.

use super::discover::Input;
use super::dxc::{self, Compiler, HlslError, HlslOptions};
use super::embedded;
use crate::analysis::AnalysisOptions;
use crate::check::{self, CheckOptions, FileReport, FileStatus, InputKind};
use crate::config::{self, RuleLevel, Settings};
use crate::read::file::{not_regular, open_regular, read_open, read_rest};
pub use crate::read::file::{read_bounded, read_bounded_text, read_bounded_text_lossy};
use crate::read::limits;
use crate::read::mapped::{self, FileBytes};
use crate::report::{Certainty, Diagnostic, Level, RunReport, Stats, BUDGET_EXCEEDED, INPUT_ERROR};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

/// Options of a batch run.
#[derive(Debug, Clone, Default)]
pub struct BatchOptions {
    /// `--config FILE`, already loaded: settings and its `[hlsl]` table.
    /// `None` = discover `irlint.toml` per input.
    pub config: Option<(Settings, HlslOptions)>,
    /// `-A/-W/-D RULE` in command-line order, applied after the config.
    pub overrides: Vec<(String, RuleLevel)>,
    /// Dataflow options (`--spec-constant`).
    pub analysis: AnalysisOptions,
    /// HLSL options from the command line (highest priority).
    pub hlsl: HlslOptions,
    /// `--dxc PATH`.
    pub dxc_path: Option<PathBuf>,
    /// `-j N` (None or 0 = one thread per core).
    pub jobs: Option<usize>,
    /// Draw a progress bar on stderr.
    pub progress: bool,
}

/// Settings and HLSL options that apply to one input.
#[derive(Debug)]
pub(super) struct Resolved {
    check: CheckOptions,
    hlsl: HlslOptions,
}

/// Settings for inputs under one config file, or that file's error.
pub(super) type ResolveResult = Result<Arc<Resolved>, String>;

/// What checking one input produced.
#[derive(Debug, Default)]
pub(super) struct Outcome {
    pub(super) files: Vec<FileReport>,
    pub(super) diagnostics: Vec<Diagnostic>,
    /// Seconds for the whole input (`--stats` slowest list).
    pub(super) seconds: f64,
    /// Seconds opening and reading it.
    pub(super) read_seconds: f64,
}

/// The most worker threads a run starts: [`limits::MAX_JOBS_PER_CORE`] per
/// available core, and at least [`limits::MAX_JOBS_FLOOR`].
pub fn max_jobs() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    cores.saturating_mul(limits::MAX_JOBS_PER_CORE).max(limits::MAX_JOBS_FLOOR)
}

/// Loads a config file: rule settings plus its `[hlsl]` table.
pub fn load_config(path: &Path) -> Result<(Settings, HlslOptions), String> {
    let text =
        read_bounded_text(path, limits::MAX_CONFIG_BYTES, "config").map_err(|e| format!("{}: {e}", path.display()))?;
    let settings = config::parse(&text, &path.display().to_string()).map_err(|e| e.to_string())?;
    let hlsl = dxc::parse_config(&text, path)?;
    Ok((settings, hlsl))
}

/// Applies command-line overrides to settings (unknown rule ids are errors).
pub fn apply_overrides(mut s: Settings, overrides: &[(String, RuleLevel)]) -> Result<Settings, String> {
    for (rule, level) in overrides {
        s.apply_override(rule, *level).map_err(|e| e.to_string())?;
    }
    Ok(s)
}

/// Reads a whole input file, refusing files over [`limits::MAX_FILE_BYTES`] and
/// anything that is not a regular file (see [`read_bounded`]).
pub fn read_input(path: &Path) -> Result<Vec<u8>, String> {
    read_bounded(path, limits::MAX_FILE_BYTES, "input")
}

/// Reads a file that the walk listed as a regular file: no `stat` before the
/// `open` (the listing gave the type), the rest as [`read_bounded`] — the open
/// is non-blocking and the handle is checked to be a regular file before
/// reading, so a FIFO swapped in after the listing is still refused unread.
pub fn read_walked(path: &Path) -> Result<Vec<u8>, String> {
    read_open(path, limits::MAX_FILE_BYTES, "input")
}

/// The bytes of an input the batch checks: a file of at least
/// [`limits::MAP_MIN_BYTES`] is mapped ([`mapped`]; up to
/// [`limits::MAX_MAPPED_FILE_BYTES`]), any other read as [`read_input`]
/// (`explicit`: named on the command line) or [`read_walked`] read it.
pub fn open_input(path: &Path, explicit: bool) -> Result<FileBytes, String> {
    if explicit {
        let meta = std::fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?;
        if !meta.is_file() {
            return Err(not_regular(&meta));
        }
    }
    let limit = limits::MAX_FILE_BYTES.max(limits::MAX_MAPPED_FILE_BYTES);
    let (f, declared) = open_regular(path, limit, "input")?;
    if let Some(m) = mapped::map_large(&f, declared) {
        return Ok(m);
    }
    if declared > limits::MAX_FILE_BYTES {
        let limit = limits::MAX_FILE_BYTES;
        return Err(format!("file is {declared} bytes, over the {limit}-byte input limit"));
    }
    read_rest(f, declared, limits::MAX_FILE_BYTES, "input").map(FileBytes::Read)
}

fn error_entry(path: &str, kind: InputKind, message: String) -> (FileReport, Diagnostic) {
    let report = FileReport {
        path: path.to_string(),
        kind,
        status: FileStatus::Error,
        message: Some(message.clone()),
        blob_offset: None,
        section: None,
        entry: None,
        bytes: 0,
        modules: 0,
        spec_ids: Vec::new(),
    };
    // One-line message; further lines (what was searched, how to fix) become notes.
    let mut lines = message.lines();
    let first = lines.next().unwrap_or_default().to_string();
    let mut d = Diagnostic::new(INPUT_ERROR, Level::Error, Certainty::Proven, first);
    d.notes = lines.map(str::to_string).collect();
    d.location.path = path.to_string();
    (report, d)
}

fn skipped_entry(path: &str, kind: InputKind, bytes: u64, message: String) -> FileReport {
    FileReport {
        path: path.to_string(),
        kind,
        status: FileStatus::Skipped,
        message: Some(message),
        blob_offset: None,
        section: None,
        entry: None,
        bytes,
        modules: 0,
        spec_ids: Vec::new(),
    }
}

/// The batch driver (one per run).
pub struct Batch {
    pub(super) opts: BatchOptions,
    compiler: OnceLock<Result<Compiler, HlslError>>,
}

/// Settings per config file, resolved once (the walk's thread owns it: no lock).
#[derive(Default)]
pub(super) struct Resolver {
    cache: HashMap<Option<Arc<PathBuf>>, ResolveResult>,
    /// The last answer: inputs of one directory share their config's `Arc`.
    last: Option<(Option<Arc<PathBuf>>, ResolveResult)>,
}

impl Resolver {
    /// The settings for an input (its config file's, or `--config`'s), and
    /// whether this is the first input (in report order) under a broken config
    /// file: that input reports the error, once per run.
    pub(super) fn get(&mut self, batch: &Batch, input: &Input) -> (ResolveResult, bool) {
        let key = if batch.opts.config.is_some() { None } else { input.config.clone() };
        if let Some((k, r)) = &self.last {
            let same = match (k, &key) {
                (None, None) => true,
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                _ => false,
            };
            if same {
                return (r.clone(), false);
            }
        }
        let mut fresh = false;
        let r = self
            .cache
            .entry(key.clone())
            .or_insert_with_key(|key| {
                fresh = true;
                let (settings, hlsl) = match (&batch.opts.config, key) {
                    (Some(c), _) => c.clone(),
                    (None, Some(path)) => load_config(path)?,
                    (None, None) => (Settings::default(), HlslOptions::default()),
                };
                let settings = apply_overrides(settings, &batch.opts.overrides)?;
                Ok(Arc::new(Resolved { check: CheckOptions { settings, analysis: batch.opts.analysis.clone() }, hlsl }))
            })
            .clone();
        self.last = Some((key, r.clone()));
        let first_error = fresh && r.is_err();
        (r, first_error)
    }
}

impl Batch {
    /// A driver for these options.
    pub fn new(opts: BatchOptions) -> Self {
        Batch { opts, compiler: OnceLock::new() }
    }

    /// Checks every input and returns the sorted report.
    pub fn run(&self, inputs: &[Input]) -> RunReport {
        let mut sink = crate::report::stream::CollectSink::default();
        let stats = match self.stream(super::pipeline::Source::Inputs(inputs), &mut sink) {
            Ok((_, stats)) => stats,
            Err(_) => Stats::default(),
        };
        sink.report.stats = stats;
        sink.report
    }

    /// Checks one input (called on a worker thread).
    pub(super) fn process(&self, input: &Input, resolved: &ResolveResult, first_error: bool) -> Outcome {
        let start = Instant::now();
        let mut out = Outcome::default();
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut o = Outcome::default();
            self.process_into(input, resolved, first_error, &mut o);
            o
        }));
        match caught {
            Ok(o) => out = o,
            Err(_) => {
                let msg = "internal error while reading this input, please report".to_string();
                let (f, mut d) = error_entry(&input.display, InputKind::Binary, msg);
                d.rule = crate::report::INTERNAL_ERROR.into();
                out.files.push(f);
                out.diagnostics.push(d);
            }
        }
        out.seconds = start.elapsed().as_secs_f64();
        out
    }

    fn process_into(&self, input: &Input, resolved: &ResolveResult, first_error: bool, out: &mut Outcome) {
        let path = input.display.as_str();
        let mut fail = |kind: InputKind, message: String| {
            let (f, d) = error_entry(path, kind, message);
            out.files.push(f);
            out.diagnostics.push(d);
        };
        if let Some(e) = &input.error {
            return fail(InputKind::Binary, e.clone());
        }
        let resolved = match resolved {
            Ok(r) => r,
            Err(e) => {
                // The broken config is reported once, at its own path; each input it
                // governs is listed as not checked, without repeating the error.
                // Shown relative to the working directory, like the inputs.
                // The walk's resolver says which input is the first under this
                // config (in report order), so the run is the same at every -j.
                let cwd = std::env::current_dir().unwrap_or_default();
                let found = input.config.as_deref().cloned();
                let config = found.clone().map(|c| c.strip_prefix(&cwd).map(Path::to_path_buf).unwrap_or(c));
                if first_error {
                    let mut msg = format!("configuration error: {e}");
                    if let Some(abs) = found {
                        msg = msg.replace(
                            &abs.display().to_string(),
                            &config.as_ref().unwrap_or(&abs).display().to_string(),
                        );
                    }
                    let (_, mut d) = error_entry(path, InputKind::Binary, msg);
                    if let Some(c) = &config {
                        d.location.path = c.display().to_string();
                    }
                    out.diagnostics.push(d);
                }
                let where_ =
                    config.as_ref().map_or_else(|| "the configuration".to_string(), |c| c.display().to_string());
                let (f, _) =
                    error_entry(path, InputKind::Binary, format!("not checked: configuration error in {where_}"));
                out.files.push(f);
                return;
            }
        };
        let t = Instant::now();
        let read = open_input(&input.path, input.explicit);
        out.read_seconds = t.elapsed().as_secs_f64();
        let bytes = match read {
            Ok(b) => b,
            Err(e) => return fail(check::unreadable_kind(&input.path, path), e),
        };
        let size = bytes.len();
        // A mapped file that shrank while it was checked read zeros past its
        // new end: what they produced is replaced by the error.
        if self.process_bytes(path, input.explicit, bytes, None, false, resolved, out) {
            out.files.clear();
            out.diagnostics.clear();
            let now = std::fs::metadata(&input.path).map_or_else(|_| "gone".into(), |m| format!("{} bytes", m.len()));
            let msg = format!(
                "the file shrank while it was being read ({size} bytes when opened, {now} now); check it again"
            );
            let (f, d) = error_entry(path, InputKind::Binary, msg);
            out.files.push(f);
            out.diagnostics.push(d);
        }
    }

    /// Checks an input's bytes: by content ([`check::classify_parsed`]), or as
    /// `kind` when the caller says what they are. In-memory `data`
    /// ([`Batch::run_data`]) must hold a shader whatever its name. True when
    /// the bytes were a mapped file that was cut short while it was checked
    /// (HLSL source is copied first and compiled from the copy).
    #[allow(clippy::too_many_arguments)]
    fn process_bytes(
        &self,
        path: &str,
        explicit: bool,
        bytes: FileBytes,
        kind: Option<InputKind>,
        data: bool,
        resolved: &Resolved,
        out: &mut Outcome,
    ) -> bool {
        let (kind, parsed) = match kind {
            Some(k) => (k, None),
            None => check::classify_parsed(path, &bytes),
        };
        match kind {
            InputKind::Hlsl => {
                let source = bytes.to_vec();
                let cut = bytes.was_cut();
                drop(bytes);
                if !cut {
                    self.hlsl(path, explicit, source, resolved, out);
                }
                return cut;
            }
            InputKind::Binary | InputKind::Atoms => embedded_into(path, &bytes, &resolved.check, data, out),
            kind => {
                let (f, d) = check::check_classified(path, kind, &bytes, parsed, &resolved.check);
                out.files.push(f);
                out.diagnostics.extend(d);
            }
        }
        bytes.was_cut()
    }

    /// Checks in-memory data as `irlint check` checks a file named `path`
    /// holding it (settings from [`BatchOptions::config`] and the overrides;
    /// no `irlint.toml` is looked for), and returns the sorted report with its
    /// statistics. `kind` reads the data as that kind instead of classifying
    /// it by content ([`InputKind::Binary`]: scan for embedded shaders). Data
    /// that holds no shader is an input error, as a file named `.dxil` that
    /// holds none is.
    pub fn run_data(&self, path: &str, bytes: Vec<u8>, kind: Option<InputKind>) -> RunReport {
        let start = Instant::now();
        let input =
            Input { path: PathBuf::from(path), display: path.to_string(), explicit: true, error: None, config: None };
        let (resolved, _) = Resolver::default().get(self, &input);
        let mut out = Outcome::default();
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut o = Outcome::default();
            match &resolved {
                Ok(r) => {
                    self.process_bytes(path, true, bytes.into(), kind, true, r, &mut o);
                }
                Err(e) => {
                    let (f, d) = error_entry(path, InputKind::Binary, format!("configuration error: {e}"));
                    o.files.push(f);
                    o.diagnostics.push(d);
                }
            }
            o
        }));
        match caught {
            Ok(o) => out = o,
            Err(_) => {
                let msg = "internal error while reading this input, please report".to_string();
                let (f, mut d) = error_entry(path, InputKind::Binary, msg);
                d.rule = crate::report::INTERNAL_ERROR.into();
                out.files.push(f);
                out.diagnostics.push(d);
            }
        }
        let mut report = RunReport { files: out.files, diagnostics: out.diagnostics, stats: Stats::default() };
        report.sort();
        let s = &mut report.stats;
        s.files = 1;
        for f in report.files.iter().filter(|f| f.blob_offset.is_none()) {
            s.bytes += f.bytes;
        }
        s.modules = report.files.iter().map(|f| u64::from(f.modules)).sum();
        s.seconds = start.elapsed().as_secs_f64();
        s.analysis_seconds = s.seconds;
        s.slowest = vec![(path.to_string(), s.seconds)];
        report
    }

    fn compiler(&self) -> &Result<Compiler, HlslError> {
        self.compiler.get_or_init(|| Compiler::load(self.opts.dxc_path.as_deref()))
    }

    fn hlsl(&self, path: &str, explicit: bool, bytes: Vec<u8>, resolved: &Resolved, out: &mut Outcome) {
        let size = bytes.len() as u64;
        let mut fail = |message: String| {
            let (mut f, d) = error_entry(path, InputKind::Hlsl, message);
            f.bytes = size;
            out.files.push(f);
            out.diagnostics.push(d);
        };
        let lower = path.to_ascii_lowercase();
        if !explicit && lower.ends_with(".hlsli") {
            out.files.push(skipped_entry(
                path,
                InputKind::Hlsl,
                size,
                "HLSL include file, not compiled on its own".into(),
            ));
            return;
        }
        let source = match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(_) => return fail("HLSL source is not valid UTF-8".into()),
        };
        let directive = match dxc::parse_directive(&source) {
            Some(Ok(d)) => d,
            Some(Err(e)) => return fail(e),
            None => HlslOptions::default(),
        };
        let opts = resolved.hlsl.merged(&directive).merged(&self.opts.hlsl);
        // An HLSL input that cannot be compiled fails the run unless the user
        // opted out: a cook step must not pass because the compiler was missing.
        let cannot_compile = |m: &str| -> Result<String, String> {
            if opts.skip {
                Ok(format!("not compiled: {}", m.lines().next().unwrap_or(m)))
            } else {
                Err(format!("{m}\npass --skip-hlsl (or set `skip = true` in the [hlsl] table of irlint.toml) to skip HLSL inputs that cannot be compiled"))
            }
        };
        if let Err(HlslError::Options(m)) = dxc::require_target(&opts) {
            return match cannot_compile(&m) {
                Ok(reason) => out.files.push(skipped_entry(path, InputKind::Hlsl, size, reason)),
                Err(e) => fail(e),
            };
        }
        let compiler = match self.compiler() {
            Ok(c) => c,
            Err(HlslError::NoCompiler(m)) => {
                return match cannot_compile(m) {
                    Ok(reason) => out.files.push(skipped_entry(path, InputKind::Hlsl, size, reason)),
                    Err(e) => fail(e),
                };
            }
            Err(e) => return fail(hlsl_error_text(e)),
        };
        match compiler.compile(path, &source, &opts) {
            Ok((module, kind)) => {
                let (mut f, d) = check::check_blob(path, kind, &module, None, &resolved.check);
                f.kind = InputKind::Hlsl;
                f.bytes = size;
                out.files.push(f);
                out.diagnostics.extend(d);
            }
            Err(HlslError::Compile(text)) => {
                let (mut f, mut d) = error_entry(path, InputKind::Hlsl, "HLSL compilation failed".into());
                f.bytes = size;
                let (headline, loc) = dxc::compile_error_headline(&text);
                d.message = headline;
                d.location.source = loc;
                d.notes.push(format!("DXC output:\n{}", text.trim_end()));
                f.message = Some(d.message.clone());
                out.files.push(f);
                out.diagnostics.push(d);
            }
            Err(e) => fail(hlsl_error_text(&e)),
        }
    }
}

fn hlsl_error_text(e: &HlslError) -> String {
    match e {
        HlslError::NoCompiler(m) | HlslError::Options(m) | HlslError::Compile(m) => m.clone(),
    }
}

/// Scans a binary for embedded shaders and checks each: one entry for the
/// file, one per blob. In-memory `data` that holds none is an input error
/// (as a file named as a shader is).
fn embedded_into(path: &str, bytes: &[u8], opts: &CheckOptions, data: bool, out: &mut Outcome) {
    let embedded::Scan { blobs, stopped } = embedded::scan_bounded(bytes);
    if let Some((at, why)) = stopped {
        let mut d = Diagnostic::new(
            BUDGET_EXCEEDED,
            Level::Note,
            Certainty::Proven,
            format!("embedded-shader scan stopped at byte offset {at}: {why}; the rest of the file was not scanned"),
        );
        d.location.path = path.to_string();
        out.diagnostics.push(d);
    }
    let found = super::containers::check(path, bytes, opts);
    if blobs.is_empty() && found.is_empty() {
        match super::no_shader_found(path, bytes, data) {
            Err(message) => {
                let (mut f, d) = error_entry(path, InputKind::Binary, message);
                f.bytes = bytes.len() as u64;
                out.files.push(f);
                out.diagnostics.push(d);
            }
            Ok(reason) => out.files.push(skipped_entry(path, InputKind::Binary, bytes.len() as u64, reason)),
        }
        return;
    }
    let n = blobs.len();
    let mut message = format!("{n} embedded shader{}", if n == 1 { "" } else { "s" });
    if !found.is_empty() {
        message = if n == 0 { found.summary() } else { format!("{message}; {}", found.summary()) };
    }
    out.files.push(FileReport {
        path: path.to_string(),
        kind: InputKind::Binary,
        status: FileStatus::Ok,
        message: Some(message),
        blob_offset: None,
        section: None,
        entry: None,
        bytes: bytes.len() as u64,
        modules: 0,
        spec_ids: Vec::new(),
    });
    for b in blobs {
        let Some(slice) = bytes.get(b.range()) else { continue };
        let (mut f, mut diags) = check::check_blob(path, b.kind, slice, Some(b.offset), opts);
        f.section.clone_from(&b.section);
        for d in &mut diags {
            d.location.section.clone_from(&b.section);
        }
        out.files.push(f);
        out.diagnostics.extend(diags);
    }
    found.into_outcome(out);
}

/// Expands `paths` and checks every input — the library entry point for
/// embedding irlint's batch run.
pub fn check_paths(paths: &[PathBuf], opts: BatchOptions) -> RunReport {
    let mut sink = crate::report::stream::CollectSink::default();
    if let Ok((_, stats)) = Batch::new(opts).stream(super::pipeline::Source::Paths(paths), &mut sink) {
        sink.report.stats = stats;
    }
    sink.report
}

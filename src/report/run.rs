//! The result of one `irlint check` run — files, diagnostics and statistics in
//! deterministic order — which every emitter renders.

pub use super::diagnostic::is_tool_outcome;
use super::files::{FileReport, FileStatus};
use super::{Diagnostic, Level, INPUT_ERROR, INTERNAL_ERROR};
use std::fmt;

/// Output format of `irlint check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// rustc-style text.
    #[default]
    Human,
    /// The stable JSON report (`version: 1`).
    Json,
    /// SARIF 2.1.0.
    Sarif,
    /// GitHub Actions workflow annotations.
    Github,
}

impl Format {
    /// Parses `human`, `json`, `sarif`, `github`.
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "human" => Some(Format::Human),
            "json" => Some(Format::Json),
            "sarif" => Some(Format::Sarif),
            "github" => Some(Format::Github),
            _ => None,
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Human => "human",
            Format::Json => "json",
            Format::Sarif => "sarif",
            Format::Github => "github",
        })
    }
}

/// How many of the slowest inputs `--timings` lists.
pub const SLOWEST: usize = 5;

/// Throughput figures of a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    /// Input files (not counting embedded blobs).
    pub files: u64,
    /// Modules analysed (a file with embedded shaders counts each blob).
    pub modules: u64,
    /// Bytes read.
    pub bytes: u64,
    /// Wall-clock seconds of the whole check.
    pub seconds: f64,
    /// The slowest inputs, slowest first: `(path, seconds)`.
    pub slowest: Vec<(String, f64)>,
    /// Worker threads (0: the split below was not measured).
    pub threads: usize,
    /// Seconds the walk took (listing directories, one thread beside the workers).
    pub walk_seconds: f64,
    /// Seconds spent opening and reading inputs, summed over the workers.
    pub read_seconds: f64,
    /// Seconds spent classifying, parsing, analysing and checking, summed over the workers.
    pub analysis_seconds: f64,
    /// Seconds spent rendering and writing the report (one thread beside the workers).
    pub report_seconds: f64,
}

impl Stats {
    /// Adds another part of the run's per-input work: files, bytes,
    /// modules, read and analysis seconds, and its slowest inputs.
    pub fn add_work(&mut self, other: Stats) {
        self.files += other.files;
        self.bytes += other.bytes;
        self.modules += other.modules;
        self.read_seconds += other.read_seconds;
        self.analysis_seconds += other.analysis_seconds;
        self.add_slowest(other.slowest);
    }

    /// Merges `more` into the slowest-inputs list (slowest first, then by
    /// path; at most [`SLOWEST`]).
    pub fn add_slowest(&mut self, more: Vec<(String, f64)>) {
        for item in more {
            if self.slowest.get(SLOWEST - 1).is_some_and(|w| item.1 < w.1) {
                continue;
            }
            self.slowest.push(item);
            self.slowest.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            self.slowest.truncate(SLOWEST);
        }
    }

    /// Modules per second (0 when nothing was timed).
    pub fn modules_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.modules as f64 / self.seconds
        } else {
            0.0
        }
    }

    /// Megabytes (10^6 bytes) per second.
    pub fn megabytes_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.bytes as f64 / 1e6 / self.seconds
        } else {
            0.0
        }
    }

    /// The `--timings` text block (one figure per line).
    pub fn render_text(&self) -> String {
        let mut out = String::new();
        out.push_str("timings:\n");
        out.push_str(&format!("  files:     {}\n", self.files));
        out.push_str(&format!("  modules:   {}\n", self.modules));
        out.push_str(&format!("  bytes:     {}\n", self.bytes));
        out.push_str(&format!("  seconds:   {:.3}\n", self.seconds));
        out.push_str(&format!("  modules/s: {:.1}\n", self.modules_per_second()));
        out.push_str(&format!("  MB/s:      {:.2}\n", self.megabytes_per_second()));
        if self.threads > 0 {
            // The workers' time on inputs, per thread: what the wall time would
            // be with nothing else to do and a perfect balance.
            let per_thread = (self.read_seconds + self.analysis_seconds) / self.threads as f64;
            out.push_str(&format!("  threads:   {}\n", self.threads));
            out.push_str(&format!(
                "  wall:      {:.3} s; inputs {per_thread:.3} s per thread (read + analysis); wall/inputs {:.2}\n",
                self.seconds,
                if per_thread > 0.0 { self.seconds / per_thread } else { 0.0 }
            ));
            out.push_str(&format!("  walk:      {:.3} s (one thread, beside the workers)\n", self.walk_seconds));
            out.push_str(&format!("  read:      {:.3} s (summed over workers)\n", self.read_seconds));
            out.push_str(&format!("  analysis:  {:.3} s (summed over workers)\n", self.analysis_seconds));
            out.push_str(&format!("  report:    {:.3} s (one thread, beside the workers)\n", self.report_seconds));
        }
        if !self.slowest.is_empty() {
            out.push_str("  slowest:\n");
            for (path, secs) in &self.slowest {
                out.push_str(&format!("    {:>9.3} s  {}\n", secs, super::escape::clean(path, false)));
            }
        }
        out
    }
}

/// Counts by level.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Findings at error level.
    pub errors: usize,
    /// Inputs that could not be read or analysed (`input-error`, `internal-error`).
    pub input_errors: usize,
    /// Warnings.
    pub warnings: usize,
    /// Notes.
    pub notes: usize,
}

/// Everything one run produced, sorted: files by (path, blob offset),
/// diagnostics by [`Diagnostic::sort_key`].
#[derive(Debug, Clone, Default)]
pub struct RunReport {
    /// One entry per input file, plus one per embedded blob.
    pub files: Vec<FileReport>,
    /// Findings and tool-level outcomes.
    pub diagnostics: Vec<Diagnostic>,
    /// Throughput.
    pub stats: Stats,
}

impl RunReport {
    /// Sorts files and diagnostics into the deterministic report order.
    pub fn sort(&mut self) {
        self.files.sort_by(|a, b| (&a.path, a.blob_offset).cmp(&(&b.path, b.blob_offset)));
        self.diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    }

    /// Diagnostics counted by level.
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for d in &self.diagnostics {
            match d.level {
                _ if d.rule == INPUT_ERROR || d.rule == INTERNAL_ERROR => c.input_errors += 1,
                Level::Error => c.errors += 1,
                Level::Warning => c.warnings += 1,
                Level::Note => c.notes += 1,
            }
        }
        c
    }

    /// True when some input could not be read or analysed (exit code 2).
    pub fn has_input_errors(&self) -> bool {
        self.files.iter().any(|f| f.status == FileStatus::Error)
            || self.diagnostics.iter().any(|d| d.rule == INPUT_ERROR || d.rule == INTERNAL_ERROR)
    }

    /// True when some rule finding is at warning or error level.
    pub fn has_findings(&self) -> bool {
        self.diagnostics.iter().any(|d| !is_tool_outcome(&d.rule) && d.level >= Level::Warning)
    }

    /// The process exit code: 2 on input errors, else 1 on warning/error findings, else 0.
    pub fn exit_code(&self) -> i32 {
        if self.has_input_errors() {
            2
        } else if self.has_findings() {
            1
        } else {
            0
        }
    }

    /// Input files that were skipped (legacy DXBC, no shader found, HLSL without DXC...).
    pub fn skipped(&self) -> impl Iterator<Item = &FileReport> {
        self.files.iter().filter(|f| f.status == FileStatus::Skipped)
    }

    /// Files (and blobs) whose status is error.
    pub fn errored(&self) -> impl Iterator<Item = &FileReport> {
        self.files.iter().filter(|f| f.status == FileStatus::Error)
    }
}

/// One line per `--spec-constant ID=V` that no analysed module declares
/// (a typo, or a constant of another pipeline): the override changed nothing.
pub fn unused_spec_constants(report: &RunReport, overrides: &[(u32, u64)]) -> Vec<String> {
    let modules = report.files.iter().filter(|f| f.modules > 0).count();
    unused_spec_constants_of(|id| report.files.iter().any(|f| f.spec_ids.contains(&id)), modules, overrides)
}

/// [`unused_spec_constants`] from what a streamed run kept: whether a SpecId
/// was declared, and how many modules were analysed.
pub fn unused_spec_constants_of(
    declared: impl Fn(u32) -> bool,
    modules: usize,
    overrides: &[(u32, u64)],
) -> Vec<String> {
    overrides
        .iter()
        .filter(|(id, _)| !declared(*id))
        .map(|(id, v)| {
            format!(
                "--spec-constant {id}={v}: no checked module declares SpecId {id} ({modules} module{} analysed); \
                 the override was not used",
                if modules == 1 { "" } else { "s" }
            )
        })
        .collect()
}

/// Renders a report in a format. `color` styles human output (only when
/// stdout is a terminal); `stats` adds the statistics section to human output.
pub fn render(report: &RunReport, format: Format, color: bool, stats: bool) -> String {
    match format {
        Format::Human => super::human::render(report, &super::human::HumanOptions { color, stats }),
        Format::Json => super::json::render(report),
        Format::Sarif => super::sarif::render(report),
        Format::Github => super::github::render(report),
    }
}

/// Singular or plural noun with its count (`1 error`, `2 errors`).
pub(crate) fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// A new temporary file in the directory of `path`, for replacing `path`
/// atomically: a random name (`.NAME.irlint-XXXXXX.tmp`) created with
/// `O_CREAT|O_EXCL`, so a file or symlink planted at a predictable name is
/// never opened or followed. Its mode is `0666` less the umask, as a plain
/// create gives. It is removed when dropped unless persisted.
pub fn temp_beside(path: &std::path::Path) -> std::io::Result<tempfile::NamedTempFile> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "report".into());
    let prefix = format!(".{name}.irlint-");
    let mut b = tempfile::Builder::new();
    b.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(std::fs::Permissions::from_mode(0o666));
    }
    b.tempfile_in(dir)
}

/// Writes `contents` to `path` atomically: a temporary file in the same
/// directory ([`temp_beside`]), flushed, then renamed over the target —
/// readers never see a half-written report.
pub fn write_atomic(path: &std::path::Path, contents: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = temp_beside(path)?;
    f.write_all(contents)?;
    f.as_file().sync_all()?;
    f.persist(path).map(|_| ()).map_err(|e| e.error)
}

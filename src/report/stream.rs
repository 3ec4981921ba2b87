//! Writing a report while the run goes on.
//!
//! The batch driver hands each input's entries to a [`Sink`] as soon as the
//! inputs before it (in report order) are done, so a streaming sink writes
//! findings as inputs finish and keeps nothing per file:
//!
//! - [`JsonSink`] writes the JSON report of [`super::json`] byte for byte:
//!   findings go straight to the output, the `files` entries to a spill buffer
//!   (moved to an unlinked temporary file past 1 MiB) that is copied after the
//!   findings. The top-level layout is taken from [`super::json::render`] of an
//!   empty report, so the two cannot drift apart.
//! - [`GithubSink`] writes one workflow command per finding.
//! - [`CollectSink`] gathers a [`RunReport`] for the formats whose layout needs
//!   the whole run first (human: totals before the input-error list; SARIF:
//!   `invocations` before `results`).
//!
//! [`Tally`] keeps the figures the exit code and the summary need.

use super::files::{FileReport, FileStatus};
use super::run::{Counts, RunReport, Stats};
use super::{Diagnostic, Level, INPUT_ERROR, INTERNAL_ERROR};
use std::fs::File;
use std::io::{self, BufWriter, Seek, Write};
use std::path::{Path, PathBuf};

/// Receives a run's entries input by input, in report order.
pub trait Sink {
    /// What the workers render for this sink, in parallel, before the writer
    /// gets an input ([`Chunk`]); the writer then only copies bytes.
    fn prerender(&self) -> Prerender {
        Prerender::No
    }
    /// One input's files and diagnostics, each already sorted, and its
    /// [`Chunk`] when [`Sink::prerender`] asked for one.
    fn input(&mut self, files: Vec<FileReport>, diagnostics: Vec<Diagnostic>, chunk: Option<Chunk>) -> io::Result<()>;
    /// The run is over: write what comes after the last input.
    fn finish(&mut self, stats: &Stats) -> io::Result<()>;
}

/// What a worker renders for the sink.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prerender {
    /// Nothing: the sink takes the entries.
    No,
    /// JSON array elements at this indentation ([`JsonSink`]).
    Json(Vec<u8>),
    /// Workflow command lines ([`GithubSink`]).
    Github,
}

/// Consecutive inputs' output, rendered on a worker.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Chunk {
    /// JSON: `,\n` + element per finding; GitHub: one line per finding.
    pub findings: Vec<u8>,
    /// JSON: `,\n` + element per file entry.
    pub files: Vec<u8>,
    /// Findings rendered.
    pub findings_count: usize,
    /// File entries rendered.
    pub files_count: usize,
    /// Per input with findings: its path, the end of its bytes in `findings`
    /// and its number of findings (where a held diagnostic can go in between).
    pub marks: Vec<(String, usize, usize)>,
    /// Serialisation scratch.
    scratch: Vec<u8>,
}

/// Appends one input's sorted entries to `chunk` as `p` asks (called on the
/// workers); false for [`Prerender::No`]. `diagnostics` are the input's own
/// (located at `path`); others go to [`Sink::input`] beside the chunk.
pub fn prerender(
    p: &Prerender,
    path: &str,
    files: &[FileReport],
    diagnostics: &[Diagnostic],
    chunk: &mut Chunk,
) -> bool {
    match p {
        Prerender::No => return false,
        Prerender::Json(indent) => {
            let c = &mut *chunk;
            for d in diagnostics {
                // Serialising to memory fails only for a non-string map key: none here.
                let _ = element(&mut c.findings, &mut c.scratch, false, indent, &super::json::Finding::new(d));
            }
            for f in files {
                let _ = element(&mut c.files, &mut c.scratch, false, indent, f);
            }
            c.findings_count += diagnostics.len();
            c.files_count += files.len();
        }
        Prerender::Github => {
            for d in diagnostics {
                chunk.findings.extend_from_slice(super::github::render_diagnostic(d).as_bytes());
                chunk.findings.push(b'\n');
            }
            chunk.findings_count += diagnostics.len();
            chunk.files_count += files.len();
        }
    }
    if !diagnostics.is_empty() {
        chunk.marks.push((path.to_string(), chunk.findings.len(), diagnostics.len()));
    }
    true
}

/// Diagnostics located elsewhere than the input that produced them (a broken
/// `irlint.toml` is reported at its own path): a streaming sink holds them,
/// sorted, and writes each before the first input's findings that sort after
/// it, or at the end.
#[derive(Debug, Default)]
struct Held(Vec<Diagnostic>);

impl Held {
    fn add(&mut self, more: Vec<Diagnostic>) {
        if !more.is_empty() {
            self.0.extend(more);
            self.0.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        }
    }

    /// Takes the held diagnostics whose path sorts before `path` (all with `None`).
    fn before(&mut self, path: Option<&str>) -> Vec<Diagnostic> {
        let n = match path {
            Some(p) => self.0.iter().take_while(|d| d.location.path.as_str() < p).count(),
            None => self.0.len(),
        };
        self.0.drain(..n).collect()
    }
}

/// Running totals: enough for the exit code ([`RunReport::exit_code`]'s rules)
/// and the warnings after a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Files (and blobs) with an analysed module.
    pub modules: usize,
    /// SpecIds the analysed modules declare (sorted, once each).
    pub spec_ids: Vec<u32>,
    /// Diagnostics by level.
    pub counts: Counts,
    /// Files (and blobs) skipped.
    pub skipped: usize,
    /// Some input could not be read or analysed.
    pub input_errors: bool,
    /// Some rule finding is at warning or error level.
    pub findings: bool,
}

impl Tally {
    /// Adds one input's entries.
    pub fn add(&mut self, files: &[FileReport], diagnostics: &[Diagnostic]) {
        for f in files {
            match f.status {
                FileStatus::Error => self.input_errors = true,
                FileStatus::Skipped => self.skipped += 1,
                FileStatus::Ok => {}
            }
        }
        for f in files {
            if f.modules > 0 {
                self.modules += 1;
            }
            self.spec_ids.extend(&f.spec_ids);
        }
        self.spec_ids.sort_unstable();
        self.spec_ids.dedup();
        for d in diagnostics {
            match d.level {
                _ if d.rule == INPUT_ERROR || d.rule == INTERNAL_ERROR => self.counts.input_errors += 1,
                Level::Error => self.counts.errors += 1,
                Level::Warning => self.counts.warnings += 1,
                Level::Note => self.counts.notes += 1,
            }
            if d.rule == INPUT_ERROR || d.rule == INTERNAL_ERROR {
                self.input_errors = true;
            }
            if !super::run::is_tool_outcome(&d.rule) && d.level >= Level::Warning {
                self.findings = true;
            }
        }
    }

    /// Adds another tally.
    pub fn merge(&mut self, other: &Tally) {
        self.modules += other.modules;
        if !other.spec_ids.is_empty() {
            self.spec_ids.extend(&other.spec_ids);
            self.spec_ids.sort_unstable();
            self.spec_ids.dedup();
        }
        self.counts.input_errors += other.counts.input_errors;
        self.counts.errors += other.counts.errors;
        self.counts.warnings += other.counts.warnings;
        self.counts.notes += other.counts.notes;
        self.skipped += other.skipped;
        self.input_errors |= other.input_errors;
        self.findings |= other.findings;
    }

    /// The process exit code: 2 on input errors, else 1 on warning/error findings, else 0.
    pub fn exit_code(&self) -> i32 {
        if self.input_errors {
            2
        } else if self.findings {
            1
        } else {
            0
        }
    }
}

/// Gathers the whole [`RunReport`] (sorted at [`Sink::finish`]).
#[derive(Debug, Default)]
pub struct CollectSink {
    /// The report so far.
    pub report: RunReport,
}

impl Sink for CollectSink {
    fn input(&mut self, files: Vec<FileReport>, diagnostics: Vec<Diagnostic>, _: Option<Chunk>) -> io::Result<()> {
        self.report.files.extend(files);
        self.report.diagnostics.extend(diagnostics);
        Ok(())
    }

    fn finish(&mut self, stats: &Stats) -> io::Result<()> {
        self.report.stats = stats.clone();
        self.report.sort();
        Ok(())
    }
}

/// GitHub workflow commands, written as inputs finish.
pub struct GithubSink<W: Write> {
    out: W,
    held: Held,
}

impl<W: Write> GithubSink<W> {
    /// A sink writing to `out`.
    pub fn new(out: W) -> Self {
        GithubSink { out, held: Held::default() }
    }

    fn write_held(&mut self, before: Option<&str>) -> io::Result<()> {
        for d in self.held.before(before) {
            self.out.write_all(super::github::render_diagnostic(&d).as_bytes())?;
            self.out.write_all(b"\n")?;
        }
        Ok(())
    }
}

impl<W: Write> Sink for GithubSink<W> {
    fn prerender(&self) -> Prerender {
        Prerender::Github
    }

    fn input(&mut self, _: Vec<FileReport>, diagnostics: Vec<Diagnostic>, chunk: Option<Chunk>) -> io::Result<()> {
        let Some(c) = chunk else {
            for d in &diagnostics {
                self.out.write_all(super::github::render_diagnostic(d).as_bytes())?;
                self.out.write_all(b"\n")?;
            }
            return Ok(());
        };
        self.held.add(diagnostics);
        let mut start = 0;
        for (path, end, _) in &c.marks {
            self.write_held(Some(path))?;
            self.out.write_all(c.findings.get(start..*end).unwrap_or_default())?;
            start = *end;
        }
        Ok(())
    }

    fn finish(&mut self, _: &Stats) -> io::Result<()> {
        self.write_held(None)?;
        self.out.flush()
    }
}

/// Bytes kept in memory, moved to an unlinked temporary file once they pass
/// [`Spill::LIMIT`].
#[derive(Debug, Default)]
pub struct Spill {
    buf: Vec<u8>,
    file: Option<File>,
    /// Creating the temporary file failed: stay in memory.
    no_file: bool,
}

impl Spill {
    /// Bytes held in memory at most (when a temporary file can be made).
    pub const LIMIT: usize = 1 << 20;

    fn spill(&mut self) -> io::Result<()> {
        if self.file.is_none() && !self.no_file {
            self.file = temp_file();
            self.no_file = self.file.is_none();
        }
        if let Some(f) = &mut self.file {
            f.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Copies everything written so far into `out`.
    pub fn drain_into(&mut self, out: &mut dyn Write) -> io::Result<()> {
        if let Some(f) = &mut self.file {
            f.flush()?;
            f.rewind()?;
            io::copy(f, out)?;
            self.file = None;
        }
        out.write_all(&self.buf)?;
        self.buf = Vec::new();
        Ok(())
    }
}

impl Write for Spill {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() > Self::LIMIT {
            self.spill()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// An anonymous temporary file (`O_TMPFILE`, or a random name created with
/// `O_EXCL` and unlinked at once).
fn temp_file() -> Option<File> {
    tempfile::tempfile().ok()
}

/// One element of a pretty-printed JSON array whose elements sit at `indent`:
/// serde_json's pretty printer into `scratch`, every line after the first
/// then indented (JSON strings never hold a raw newline).
fn element<T: serde::Serialize>(
    out: &mut dyn Write,
    scratch: &mut Vec<u8>,
    first: bool,
    indent: &[u8],
    value: &T,
) -> io::Result<()> {
    scratch.clear();
    serde_json::to_writer_pretty(&mut *scratch, value).map_err(io::Error::other)?;
    out.write_all(if first { b"\n" } else { b",\n" })?;
    for (i, line) in scratch.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            out.write_all(b"\n")?;
        }
        out.write_all(indent)?;
        out.write_all(line)?;
    }
    Ok(())
}

/// The JSON report of [`super::json::render`], written as inputs finish.
pub struct JsonSink<W: Write> {
    out: W,
    /// The layout of an empty report, split around its two arrays.
    head: String,
    indent: Vec<u8>,
    findings: usize,
    files: usize,
    spill: Spill,
    scratch: Vec<u8>,
    held: Held,
}

/// `"findings": []` and `"files": []` in the empty report.
const FINDINGS: &str = "\"findings\": []";
const FILES: &str = "\"files\": []";

/// The empty report for `stats`, cut into (before findings, between, after files).
fn skeleton(stats: &Stats) -> io::Result<(String, String, String)> {
    let empty = RunReport { stats: stats.clone(), ..Default::default() };
    let text = super::json::render(&empty);
    let bad = || io::Error::other("JSON layout without findings/files arrays");
    let (before, rest) = text.split_once(FINDINGS).ok_or_else(bad)?;
    let (between, after) = rest.split_once(FILES).ok_or_else(bad)?;
    Ok((format!("{before}\"findings\": ["), format!("]{between}\"files\": ["), format!("]{after}")))
}

impl<W: Write> JsonSink<W> {
    /// A sink writing to `out`; writes the report's head at once.
    pub fn new(mut out: W) -> io::Result<Self> {
        let (head, _, _) = skeleton(&Stats::default())?;
        out.write_all(head.as_bytes())?;
        // Elements sit one level below the line that opens the array.
        let line = head.rsplit('\n').next().unwrap_or_default();
        let mut indent: Vec<u8> = line.bytes().take_while(|&b| b == b' ').collect();
        indent.extend_from_slice(b"  ");
        Ok(JsonSink {
            out,
            head,
            indent,
            findings: 0,
            files: 0,
            spill: Spill::default(),
            scratch: Vec::new(),
            held: Held::default(),
        })
    }
}

impl<W: Write> JsonSink<W> {
    fn write_held(&mut self, before: Option<&str>) -> io::Result<()> {
        for d in self.held.before(before) {
            let f = super::json::Finding::new(&d);
            element(&mut self.out, &mut self.scratch, self.findings == 0, &self.indent, &f)?;
            self.findings += 1;
        }
        Ok(())
    }
}

impl<W: Write> Sink for JsonSink<W> {
    fn prerender(&self) -> Prerender {
        Prerender::Json(self.indent.clone())
    }

    fn input(&mut self, files: Vec<FileReport>, diagnostics: Vec<Diagnostic>, chunk: Option<Chunk>) -> io::Result<()> {
        if let Some(c) = chunk {
            // Each element starts with `,`; the array's first one does not.
            fn from(n: usize, bytes: &[u8]) -> &[u8] {
                if n == 0 {
                    bytes.get(1..).unwrap_or_default()
                } else {
                    bytes
                }
            }
            self.held.add(diagnostics);
            let mut start = 0;
            for (path, end, count) in &c.marks {
                self.write_held(Some(path))?;
                self.out.write_all(from(self.findings, c.findings.get(start..*end).unwrap_or_default()))?;
                self.findings += count;
                start = *end;
            }
            self.spill.write_all(from(self.files, &c.files))?;
            self.files += c.files_count;
            return Ok(());
        }
        for d in &diagnostics {
            element(&mut self.out, &mut self.scratch, self.findings == 0, &self.indent, &super::json::Finding::new(d))?;
            self.findings += 1;
        }
        for f in &files {
            element(&mut self.spill, &mut self.scratch, self.files == 0, &self.indent, f)?;
            self.files += 1;
        }
        Ok(())
    }

    fn finish(&mut self, stats: &Stats) -> io::Result<()> {
        self.write_held(None)?;
        let (head, between, after) = skeleton(stats)?;
        if head != self.head {
            return Err(io::Error::other("JSON head changed with the statistics"));
        }
        let close = |n: usize| -> Vec<u8> {
            let mut v = Vec::new();
            if n > 0 {
                v.push(b'\n');
                v.extend_from_slice(&self.indent[..self.indent.len() - 2]);
            }
            v
        };
        self.out.write_all(&close(self.findings))?;
        self.out.write_all(between.as_bytes())?;
        self.spill.drain_into(&mut self.out)?;
        self.out.write_all(&close(self.files))?;
        self.out.write_all(after.as_bytes())?;
        self.out.flush()
    }
}

/// Where a report goes: stdout, or a file replaced atomically on
/// [`Output::commit`] (a temporary file in the same directory, renamed over
/// the target; nothing is left behind when the run fails).
pub enum Output {
    /// Standard output; a closed pipe (`| head`) silently drops the rest.
    Stdout {
        /// Buffered stdout.
        out: BufWriter<io::Stdout>,
        /// The reader went away.
        closed: bool,
    },
    /// A temporary file next to `target` ([`temp_beside`](super::run::temp_beside)).
    File {
        /// Buffered temporary file (removed when dropped unless persisted).
        out: BufWriter<tempfile::NamedTempFile>,
        /// The report's path.
        target: PathBuf,
    },
}

impl Output {
    /// Stdout (`None`) or a temporary file next to `path`.
    pub fn open(path: Option<&Path>) -> io::Result<Output> {
        let Some(path) = path else {
            return Ok(Output::Stdout { out: BufWriter::with_capacity(1 << 16, io::stdout()), closed: false });
        };
        let f = super::run::temp_beside(path)?;
        Ok(Output::File { out: BufWriter::with_capacity(1 << 16, f), target: path.to_path_buf() })
    }

    /// Flushes; for a file, syncs it and renames it over the target.
    pub fn commit(self) -> io::Result<()> {
        match self {
            Output::Stdout { mut out, closed } => {
                if !closed {
                    let _ = out.flush();
                }
                Ok(())
            }
            Output::File { out, target } => {
                let f = out.into_inner().map_err(|e| e.into_error())?;
                f.as_file().sync_all()?;
                f.persist(&target).map(|_| ()).map_err(|e| e.error)
            }
        }
    }

    /// Removes the temporary file (a run that failed).
    pub fn abandon(self) {
        if let Output::File { out, .. } = self {
            // Dropping the temporary file removes it.
            drop(out);
        }
    }
}

impl Write for Output {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        match self {
            Output::Stdout { out, closed } => {
                if !*closed && out.write_all(data).is_err() {
                    *closed = true;
                }
                Ok(data.len())
            }
            Output::File { out, .. } => out.write(data),
        }
    }

    fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        match self {
            Output::File { out, .. } => out.write_all(data),
            _ => self.write(data).map(|_| ()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout { out, closed } => {
                if !*closed && out.flush().is_err() {
                    *closed = true;
                }
                Ok(())
            }
            Output::File { out, .. } => out.flush(),
        }
    }
}

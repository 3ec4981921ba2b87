//! `irlint atoms FILE...`: reads record files (`-` = stdin), runs every record
//! and builds the report `check` renders (human, JSON with `results`, SARIF,
//! GitHub). `main.rs` only parses arguments and writes the text.

use super::records::{parse_input, run_record, Outcome, Record, ResultJson};
use crate::check::{FileReport, FileStatus, InputKind};
use crate::report::{self, Certainty, Diagnostic, FindingValue, Format, Level, RunReport, SourceLocation, INPUT_ERROR};
use std::io::Read;

/// What one `irlint atoms` run produced.
#[derive(Debug, Clone, Default)]
pub struct AtomsRun {
    /// Files, diagnostics (in input order) and statistics.
    pub report: RunReport,
    /// One entry per record, in input order.
    pub results: Vec<ResultJson>,
}

impl AtomsRun {
    /// 2 on input errors, else 1 on findings, else 0 (as `check`).
    pub fn exit_code(&self) -> i32 {
        self.report.exit_code()
    }
}

/// Reads an input: a file, or stdin for `-`.
pub fn read_input(path: &str) -> Result<String, String> {
    let limit = crate::read::limits::MAX_ATOMS_INPUT_BYTES;
    let bytes = if path == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read stdin: {e}"))?;
        if bytes.len() as u64 > limit {
            return Err(format!("stdin is over the {limit}-byte atoms input limit"));
        }
        bytes
    } else {
        crate::read::file::read_bounded(std::path::Path::new(path), limit, "atoms input")?
    };
    String::from_utf8(bytes).map_err(|e| format!("not UTF-8 text (byte offset 0x{:X})", e.utf8_error().valid_up_to()))
}

/// Reads and runs every input (`(display path, path)`); stdin is `-`.
pub fn run_paths(paths: &[String]) -> AtomsRun {
    let start = std::time::Instant::now();
    let inputs: Vec<(String, Result<String, String>)> = paths
        .iter()
        .map(|p| (if p == "-" { crate::input::filters::STDIN_LABEL.to_string() } else { p.clone() }, read_input(p)))
        .collect();
    let mut run = run_texts(&inputs);
    run.report.stats.seconds = start.elapsed().as_secs_f64();
    run
}

/// Runs inputs already read: `(display path, text or read error)`.
pub fn run_texts(inputs: &[(String, Result<String, String>)]) -> AtomsRun {
    let mut run = AtomsRun::default();
    for (path, text) in inputs {
        run.report.stats.files += 1;
        let mut file = FileReport {
            path: path.clone(),
            kind: InputKind::Atoms,
            status: FileStatus::Ok,
            message: None,
            blob_offset: None,
            section: None,
            entry: None,
            bytes: 0,
            modules: 0,
            spec_ids: Vec::new(),
        };
        let records = match text {
            Ok(t) => {
                file.bytes = t.len() as u64;
                run.report.stats.bytes += file.bytes;
                parse_input(t)
            }
            Err(e) => Err(e.clone()),
        };
        let records = match records {
            Ok(r) => r,
            Err(e) => {
                let mut d = Diagnostic::new(INPUT_ERROR, Level::Error, Certainty::Proven, e.clone());
                d.location.path = path.clone();
                run.report.diagnostics.push(d);
                file.status = FileStatus::Error;
                file.message = Some(e);
                run.report.files.push(file);
                continue;
            }
        };
        file.modules = u32::try_from(records.len()).unwrap_or(u32::MAX);
        run.report.stats.modules += records.len() as u64;
        for r in &records {
            let outcome = run_record(r);
            if let Some(d) = diagnostic(path, r, &outcome) {
                run.report.diagnostics.push(d);
            }
            run.results.push(ResultJson::new(path, r, &outcome));
        }
        run.report.files.push(file);
    }
    run
}

/// The diagnostic of a record's outcome (`None` on success).
pub fn diagnostic(path: &str, r: &Record, o: &Outcome) -> Option<Diagnostic> {
    let label = r.label();
    let mut d = match o {
        Outcome::Ok(_) => return None,
        Outcome::Diag(a) => {
            let level = crate::rules::find(a.rule.id()).and_then(|m| m.default_level).unwrap_or(Level::Error);
            Diagnostic::new(a.rule.id(), level, Certainty::Proven, a.message())
        }
        Outcome::Input(e) => Diagnostic::new(INPUT_ERROR, Level::Error, Certainty::Proven, format!("{label}: {e}")),
    };
    d.location.path = path.to_string();
    d.location.function = Some(label);
    if let Some(line) = r.line {
        d.location.source = Some(SourceLocation { file: path.to_string(), line, column: 0 });
    }
    if let Some(v) = &r.verifier {
        d.values.push(("verifier".into(), FindingValue::Text(v.clone())));
    }
    // A record's id and verifier are echoed: cut as any input-derived name.
    d.cap_strings();
    Some(d)
}

/// Renders a run in one of `check`'s formats; JSON adds `results`.
pub fn render(run: &AtomsRun, format: Format, color: bool) -> String {
    match format {
        Format::Json => report::json::render_with_results(&run.report, &run.results),
        other => report::render(&run.report, other, color, false),
    }
}

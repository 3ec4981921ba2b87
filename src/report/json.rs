//! The stable JSON report (`"version": 1`):
//!
//! ```json
//! {"version": 1,
//!  "findings": [{"rule", "level", "certainty", "message", "help", "path", "blob_offset",
//!                "section" (embedded blobs and container entries only), "function", "instruction", "byte_offset", "value", "line" (PTX only: the instruction's line, or an input error's),
//!                "column" (an input error's column, PTX),
//!                "source": {"file", "line", "column"} | null,
//!                "resource": {"name", "class", "kind", binding…, "id", "label"} | null,
//!                "values": {...}}],
//!  "files": [{"path", "kind", "status", "message"} (+ "blob_offset", "section", "entry")],
//!  "stats": {"files", "modules", "bytes", "seconds"}}
//! ```
//!
//! `values` keeps the diagnostic's order: an integer is a number, a set an
//! array, a congruence `{"rem", "mod"}`, a name a string. Findings include
//! tool-level outcomes (`input-error`, `internal-error`, `analysis-budget-exceeded`).

use super::files::FileReport;
use super::run::RunReport;
use super::{Certainty, Diagnostic, FindingValue, Level, ResourceRef, SourceLocation};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

/// The report format version.
pub const VERSION: u32 = 1;

/// `values` as an ordered JSON object.
pub struct Values<'a>(pub &'a [(String, FindingValue)]);

impl Serialize for Values<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// One element of `findings` (also written one by one by [`super::stream::JsonSink`]).
#[derive(Serialize)]
pub(crate) struct Finding<'a> {
    rule: &'a str,
    level: Level,
    certainty: Certainty,
    message: &'a str,
    help: Option<&'a str>,
    path: &'a str,
    blob_offset: Option<u64>,
    /// The container entry's name, where it has one (a Fossilize module's hash).
    #[serde(skip_serializing_if = "Option::is_none")]
    entry: Option<&'a str>,
    /// The section or container entry holding the blob (`.nv_fatbin: PTX compute_80, zstd`).
    #[serde(skip_serializing_if = "Option::is_none")]
    section: Option<&'a str>,
    function: Option<&'a str>,
    instruction: Option<u32>,
    /// 1-based line of the instruction in a text input (PTX).
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
    /// 1-based column of an input error's position (PTX parse errors).
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<u32>,
    byte_offset: Option<u64>,
    value: Option<&'a str>,
    source: Option<&'a SourceLocation>,
    resource: Option<&'a ResourceRef>,
    values: Values<'a>,
}

impl<'a> Finding<'a> {
    pub(crate) fn new(d: &'a Diagnostic) -> Self {
        Finding {
            rule: &d.rule,
            level: d.level,
            certainty: d.certainty,
            message: &d.message,
            help: d.help.as_deref(),
            path: &d.location.path,
            blob_offset: d.location.blob_offset,
            entry: d.location.entry.as_deref(),
            section: d.location.section.as_deref(),
            function: d.location.function.as_deref(),
            instruction: d.location.instruction,
            line: d.location.line,
            column: d.location.column,
            byte_offset: d.location.byte_offset,
            value: d.location.value.as_deref(),
            source: d.location.source.as_ref(),
            resource: d.location.resource.as_ref(),
            values: Values(&d.values),
        }
    }
}

#[derive(Serialize)]
struct JsonStats {
    files: u64,
    modules: u64,
    bytes: u64,
    seconds: f64,
}

#[derive(Serialize)]
struct Report<'a, R: Serialize> {
    version: u32,
    findings: Vec<Finding<'a>>,
    files: &'a [FileReport],
    stats: JsonStats,
    #[serde(skip_serializing_if = "Option::is_none")]
    results: Option<&'a R>,
}

/// The report as a `serde_json::Value` (keys of `values` keep their order
/// only in the string form, see [`render`]).
pub fn to_value(report: &RunReport) -> serde_json::Value {
    serde_json::from_str(&render(report)).unwrap_or(serde_json::Value::Null)
}

/// Renders the report as pretty-printed JSON with a trailing newline.
pub fn render(report: &RunReport) -> String {
    render_impl::<()>(report, None)
}

/// Renders the report with a top-level `results` array after `stats`
/// (`irlint atoms`: one object per input record).
pub fn render_with_results<R: Serialize>(report: &RunReport, results: &R) -> String {
    render_impl(report, Some(results))
}

fn render_impl<R: Serialize>(report: &RunReport, results: Option<&R>) -> String {
    let r = Report {
        version: VERSION,
        findings: report.diagnostics.iter().map(Finding::new).collect(),
        files: &report.files,
        stats: JsonStats {
            files: report.stats.files,
            modules: report.stats.modules,
            bytes: report.stats.bytes,
            // Millisecond precision keeps the output short and stable to read.
            seconds: (report.stats.seconds * 1000.0).round() / 1000.0,
        },
        results,
    };
    let mut s = serde_json::to_string_pretty(&r).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}

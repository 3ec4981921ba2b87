//! The Python classes of a report: `Report`, `Finding`, `Location`,
//! `FileResult`, and `AtomResult` for `irlint.atoms`. Immutable snapshots of
//! the library's [`RunReport`]; `Report.to_json()` / `to_sarif()` render the
//! report the library holds, so they are the command line's text.

use crate::convert::json_to_py;
use irlint::atoms::records::ResultJson;
use irlint::check::FileReport;
use irlint::report::{self, json, Diagnostic, FindingValue, Format, ResourceRef, RunReport};
use pyo3::prelude::*;
use pyo3::types::{PyIterator, PyList};

/// A value as the JSON report writes it, read back by Python's `json` module:
/// the same keys in the same order.
fn json_loads<'py, T: serde::Serialize + ?Sized>(py: Python<'py>, v: &T) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(v).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    py.import("json")?.call_method1("loads", (text,))
}

/// Where a finding points.
#[pyclass(module = "irlint", frozen, get_all)]
pub struct Location {
    /// Input path, as the report names it.
    path: String,
    /// Entry point or function (for atom records: `record 3 (id "k1")`).
    function: Option<String>,
    /// 1-based line of the instruction in a text input (PTX).
    line: Option<u32>,
    /// 1-based column in that line (an input error's position; None when unknown).
    column: Option<u32>,
    /// Absolute byte offset of the instruction in the input.
    byte_offset: Option<u64>,
    /// Offset of the embedded shader inside the input.
    blob_offset: Option<u64>,
    /// The container entry's name, where it has one (a Fossilize module's
    /// hash, 16 hex digits): the report shows `path@entry`.
    entry: Option<String>,
    /// Section of the embedded shader, when known.
    section: Option<String>,
    /// Instruction index in the function (body order, from 0).
    instruction: Option<u32>,
    /// The instruction's value as disassemblers print it (`%12`).
    value: Option<String>,
    /// Source file from debug info (PTX `.loc`/`.file`, DXIL/SPIR-V debug info).
    source_file: Option<String>,
    /// 1-based source line.
    source_line: Option<u32>,
    /// 1-based source column (None when unknown).
    source_column: Option<u32>,
    /// The text of the source line, when the module embeds it or it was read from disk.
    source_text: Option<String>,
}

#[pymethods]
impl Location {
    fn __repr__(&self) -> String {
        let mut parts = vec![format!("path={:?}", self.path)];
        if let Some(f) = &self.function {
            parts.push(format!("function={f:?}"));
        }
        if let Some(l) = self.line {
            parts.push(format!("line={l}"));
        }
        if let Some(c) = self.column {
            parts.push(format!("column={c}"));
        }
        if let Some(o) = self.byte_offset {
            parts.push(format!("byte_offset={o}"));
        }
        if let (Some(f), Some(l)) = (&self.source_file, self.source_line) {
            parts.push(format!("source={f:?}:{l}"));
        }
        format!("Location({})", parts.join(", "))
    }
}

/// A finding, or a tool-level outcome (`input-error`, `analysis-budget-exceeded`, ...).
#[pyclass(module = "irlint", frozen)]
pub struct Finding {
    #[pyo3(get)]
    rule: String,
    #[pyo3(get)]
    level: &'static str,
    #[pyo3(get)]
    certainty: &'static str,
    #[pyo3(get)]
    message: String,
    #[pyo3(get)]
    help: Option<String>,
    #[pyo3(get)]
    notes: Vec<String>,
    #[pyo3(get)]
    location: Py<Location>,
    values: Vec<(String, FindingValue)>,
    resource: Option<ResourceRef>,
}

#[pymethods]
impl Finding {
    /// The recovered values, in the report's order (as JSON `values`).
    #[getter]
    fn values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_loads(py, &json::Values(&self.values))
    }

    /// The resource the finding is about (as JSON `resource`), or None.
    #[getter]
    fn resource<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_loads(py, &self.resource)
    }

    fn __repr__(&self) -> String {
        format!(
            "Finding(rule={:?}, level={:?}, message={:?}, location={})",
            self.rule,
            self.level,
            self.message,
            self.location.get().__repr__()
        )
    }
}

impl Finding {
    fn new(py: Python<'_>, d: &Diagnostic) -> PyResult<Finding> {
        let l = &d.location;
        let location = Location {
            path: l.path.clone(),
            function: l.function.clone(),
            line: l.line,
            column: l.column,
            byte_offset: l.byte_offset,
            blob_offset: l.blob_offset,
            entry: l.entry.clone(),
            section: l.section.clone(),
            instruction: l.instruction,
            value: l.value.clone(),
            source_file: l.source.as_ref().map(|s| s.file.clone()),
            source_line: l.source.as_ref().map(|s| s.line),
            source_column: l.source.as_ref().map(|s| s.column).filter(|c| *c > 0),
            source_text: l.source_text.clone(),
        };
        Ok(Finding {
            rule: d.rule.clone(),
            level: d.level.as_str(),
            certainty: match d.certainty {
                report::Certainty::Proven => "proven",
                report::Certainty::Possible => "possible",
            },
            message: d.message.clone(),
            help: d.help.clone(),
            notes: d.notes.clone(),
            location: Py::new(py, location)?,
            values: d.values.clone(),
            resource: l.resource.clone(),
        })
    }
}

/// One entry of the report's `files`: an input, or a shader embedded in one.
#[pyclass(module = "irlint", frozen, get_all)]
pub struct FileResult {
    /// Input path.
    path: String,
    /// `dxil`, `spirv`, `dxbc`, `bitcode`, `hlsl`, `ptx`, `atoms` or `binary`.
    kind: String,
    /// `ok`, `skipped` or `error`.
    status: String,
    /// Why it was skipped or what failed.
    message: Option<String>,
    /// Offset of an embedded shader inside `path`.
    blob_offset: Option<u64>,
    /// The container entry's name, where it has one (a Fossilize module's hash).
    entry: Option<String>,
    /// Section of the embedded shader, when known.
    section: Option<String>,
}

#[pymethods]
impl FileResult {
    fn __repr__(&self) -> String {
        let mut s = format!("FileResult(path={:?}, kind={:?}, status={:?}", self.path, self.kind, self.status);
        if let Some(m) = &self.message {
            s.push_str(&format!(", message={m:?}"));
        }
        s + ")"
    }
}

fn json_name<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}

impl FileResult {
    fn new(f: &FileReport) -> FileResult {
        FileResult {
            path: f.path.clone(),
            kind: json_name(&f.kind),
            status: json_name(&f.status),
            message: f.message.clone(),
            blob_offset: f.blob_offset,
            entry: f.entry.clone(),
            section: f.section.clone(),
        }
    }
}

/// The result of `irlint.check` or `irlint.check_paths`.
#[pyclass(module = "irlint", frozen, sequence)]
pub struct Report {
    run: RunReport,
    findings: Vec<Py<Finding>>,
    files: Vec<Py<FileResult>>,
}

impl Report {
    /// The Python report of a run.
    pub fn new(py: Python<'_>, run: RunReport) -> PyResult<Report> {
        let findings = run.diagnostics.iter().map(|d| Py::new(py, Finding::new(py, d)?)).collect::<PyResult<_>>()?;
        let files = run.files.iter().map(|f| Py::new(py, FileResult::new(f))).collect::<PyResult<_>>()?;
        Ok(Report { run, findings, files })
    }

    /// The library's report.
    pub fn run(&self) -> &RunReport {
        &self.run
    }
}

#[pymethods]
impl Report {
    /// Findings in report order (path, blob offset, function, instruction, rule).
    #[getter]
    fn findings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.findings.iter().map(|f| f.clone_ref(py)))
    }

    /// One entry per input (and per embedded shader).
    #[getter]
    fn files<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.files.iter().map(|f| f.clone_ref(py)))
    }

    /// The command line's exit status for this report: 2 on input errors,
    /// else 1 on a warning or error finding, else 0.
    #[getter]
    fn exit_code(&self) -> i32 {
        self.run.exit_code()
    }

    /// The JSON report, as `irlint check --format json` writes it.
    fn to_json(&self, py: Python<'_>) -> String {
        py.detach(|| report::render(&self.run, Format::Json, false, false))
    }

    /// The SARIF 2.1.0 report, as `irlint check --format sarif` writes it
    /// (artifact URIs relative to the working directory).
    fn to_sarif(&self, py: Python<'_>) -> String {
        py.detach(|| report::render(&self.run, Format::Sarif, false, false))
    }

    /// The human report, as `irlint check` prints it (no colour by default).
    #[pyo3(signature = (*, color = false))]
    fn to_text(&self, py: Python<'_>, color: bool) -> String {
        py.detach(|| report::render(&self.run, Format::Human, color, false))
    }

    fn __len__(&self) -> usize {
        self.findings.len()
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyIterator>> {
        self.findings(py)?.try_iter()
    }

    fn __repr__(&self) -> String {
        format!("Report(findings={}, files={}, exit_code={})", self.findings.len(), self.files.len(), self.exit_code())
    }
}

/// The result of one atom record (`irlint.atoms`), as an entry of
/// `irlint atoms --format json`'s `results`.
#[pyclass(module = "irlint", frozen, get_all)]
pub struct AtomResult {
    /// 0-based position of the record.
    index: usize,
    /// The record's `id`, echoed back (None when absent).
    id: Py<PyAny>,
    /// The record's `verifier` (None when missing or not a string).
    verifier: Option<String>,
    /// The verifier accepted the atom.
    ok: bool,
    /// The rule that fired (`input-error` for a malformed record).
    rule: Option<String>,
    /// The diagnostic.
    message: Option<String>,
    /// What the verifier returned on success (`{"registers": 4}`, ...; None for SM120).
    value: Py<PyAny>,
}

impl AtomResult {
    /// The Python result of one record.
    pub fn new(py: Python<'_>, r: &ResultJson) -> PyResult<AtomResult> {
        Ok(AtomResult {
            index: r.index,
            id: json_to_py(py, &r.id)?.unbind(),
            verifier: r.verifier.clone(),
            ok: r.ok,
            rule: r.rule.clone(),
            message: r.message.clone(),
            value: json_to_py(py, &r.value)?.unbind(),
        })
    }
}

#[pymethods]
impl AtomResult {
    fn __repr__(&self, py: Python<'_>) -> String {
        let id = self.id.bind(py).repr().map(|r| r.to_string()).unwrap_or_default();
        match (&self.rule, &self.message) {
            (Some(rule), Some(m)) => {
                format!("AtomResult(index={}, id={id}, ok=False, rule={rule:?}, message={m:?})", self.index)
            }
            _ => {
                let value = self.value.bind(py).repr().map(|r| r.to_string()).unwrap_or_default();
                format!("AtomResult(index={}, id={id}, ok=True, value={value})", self.index)
            }
        }
    }
}

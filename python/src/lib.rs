//! `irlint._irlint`: the Python binding of the irlint library (PyO3). No
//! linting logic lives here: each function turns its Python arguments into a
//! call of `irlint::api`, `irlint::atoms::records` or `irlint::cli`, runs it
//! with the GIL released, and wraps the result (`report.rs`). The package
//! `python/irlint/__init__.py` re-exports it; `_irlint.pyi` types it.

mod convert;
mod report;

use convert::{py_dict_to_toml, py_to_json};
use irlint::api::{self, Config};
use irlint::atoms::records::{self, ResultJson};
use irlint::input::BatchOptions;
use irlint::report::{RunReport, INPUT_ERROR, INTERNAL_ERROR};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError, PyUserWarning};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyMemoryView, PyString};
use report::{AtomResult, FileResult, Finding, Location, Report};
use std::ffi::{CString, OsString};
use std::path::PathBuf;

create_exception!(irlint, IrlintError, PyException, "Base class of the errors irlint raises.");
create_exception!(
    irlint,
    InputError,
    IrlintError,
    "An input could not be read or is malformed; `message` is the command line's, `report` the whole report."
);
create_exception!(
    irlint,
    ConfigError,
    IrlintError,
    "A bad configuration or argument (what makes the command line exit 2 before checking anything)."
);

/// A `config=` argument, read with the GIL held and loaded without it.
enum ConfigArg {
    Default,
    File(PathBuf),
    Text { text: String, origin: &'static str },
}

impl ConfigArg {
    fn from_py(obj: Option<&Bound<'_, PyAny>>) -> PyResult<ConfigArg> {
        let Some(obj) = obj.filter(|o| !o.is_none()) else { return Ok(ConfigArg::Default) };
        if let Ok(s) = obj.cast::<PyString>() {
            return Ok(ConfigArg::Text { text: s.to_cow()?.to_string(), origin: "<config>" });
        }
        if let Ok(d) = obj.cast::<PyDict>() {
            let origin = "<config dict>";
            let table = py_dict_to_toml(d, 0).map_err(|e| ConfigError::new_err(format!("{origin}: {e}")))?;
            let text = toml::to_string(&table).map_err(|e| ConfigError::new_err(format!("{origin}: {e}")))?;
            return Ok(ConfigArg::Text { text, origin });
        }
        if let Ok(p) = obj.extract::<PathBuf>() {
            return Ok(ConfigArg::File(p));
        }
        let ty = obj.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        Err(PyTypeError::new_err(format!(
            "config must be a TOML string, a dict or a path (os.PathLike) to an irlint.toml, not {ty}"
        )))
    }

    fn load(self) -> Result<Option<Config>, String> {
        match self {
            ConfigArg::Default => Ok(None),
            ConfigArg::File(p) => Config::load(&p).map(Some),
            ConfigArg::Text { text, origin } => Config::parse(&text, origin).map(Some).map_err(|e| {
                // `config="irlint.toml"`: a file name read as TOML text.
                let one_line = !text.trim_end().contains('\n');
                if one_line && std::path::Path::new(text.trim()).is_file() {
                    format!("{e} (a str config is TOML text; pass pathlib.Path({:?}) to read the file)", text.trim())
                } else {
                    e
                }
            }),
        }
    }
}

/// The report, or `InputError` (an `input-error`; `IrlintError` for an
/// `internal-error`) carrying its message, path and the whole report.
fn report_or_input_error(py: Python<'_>, run: RunReport) -> PyResult<Report> {
    if !run.has_input_errors() {
        return Report::new(py, run);
    }
    let first = run.diagnostics.iter().find(|d| d.rule == INPUT_ERROR || d.rule == INTERNAL_ERROR);
    let (path, message, internal) = match first {
        Some(d) => (d.location.path.clone(), d.message.clone(), d.rule == INTERNAL_ERROR),
        None => {
            let f = run.errored().next();
            (
                f.map(|f| f.path.clone()).unwrap_or_default(),
                f.and_then(|f| f.message.clone()).unwrap_or_else(|| "input error".into()),
                false,
            )
        }
    };
    let text = format!("{path}: {message}");
    let err = if internal { IrlintError::new_err(text) } else { InputError::new_err(text) };
    let value = err.value(py);
    value.setattr("path", path)?;
    value.setattr("message", message)?;
    value.setattr("report", Py::new(py, Report::new(py, run)?)?)?;
    Err(err)
}

/// Checks one shader held in memory; see `_irlint.pyi`.
#[pyfunction]
#[pyo3(signature = (data, *, kind = None, config = None, path = None))]
fn check(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    kind: Option<&str>,
    config: Option<&Bound<'_, PyAny>>,
    path: Option<PathBuf>,
) -> PyResult<Report> {
    let (bytes, default_path) = if let Ok(s) = data.cast::<PyString>() {
        (s.to_cow()?.as_bytes().to_vec(), "<string>")
    } else if let Ok(b) = data.cast::<PyBytes>() {
        (b.as_bytes().to_vec(), "<bytes>")
    } else if let Ok(b) = data.cast::<PyByteArray>() {
        (b.to_vec(), "<bytes>")
    } else {
        let ty = data.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        return Err(PyTypeError::new_err(format!("data must be bytes, bytearray or str, not {ty}")));
    };
    let kind = kind.map(api::parse_kind).transpose().map_err(ConfigError::new_err)?;
    let config = ConfigArg::from_py(config)?;
    let path = path.map_or_else(|| default_path.to_string(), |p| p.to_string_lossy().into_owned());
    let run = py
        .detach(|| api::check_data(&path, bytes, kind, config.load()?, BatchOptions::default()))
        .map_err(ConfigError::new_err)?;
    report_or_input_error(py, run)
}

/// Checks files and directories as `irlint check` does; see `_irlint.pyi`.
#[pyfunction]
#[pyo3(signature = (paths, jobs = None, config = None))]
fn check_paths(
    py: Python<'_>,
    paths: &Bound<'_, PyAny>,
    jobs: Option<usize>,
    config: Option<&Bound<'_, PyAny>>,
) -> PyResult<Report> {
    let paths: Vec<PathBuf> = match paths.extract::<PathBuf>() {
        Ok(p) => vec![p],
        Err(_) => {
            let mut list = Vec::new();
            for item in paths.try_iter()? {
                list.push(item?.extract::<PathBuf>()?);
            }
            list
        }
    };
    if paths.is_empty() {
        return Err(ConfigError::new_err("check_paths needs at least one path"));
    }
    let config = ConfigArg::from_py(config)?;
    let opts = BatchOptions { jobs, ..BatchOptions::default() };
    let checked = py.detach(|| api::check_paths(&paths, config.load()?, opts, true)).map_err(ConfigError::new_err)?;
    let category = py.get_type::<PyUserWarning>();
    for w in &checked.warnings {
        let message = CString::new(w.replace('\0', "")).unwrap_or_default();
        PyErr::warn(py, &category, &message, 1)?;
    }
    Report::new(py, checked.report)
}

/// Runs matrix-atom records; see `_irlint.pyi`.
#[pyfunction]
fn atoms<'py>(py: Python<'py>, records: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    const PATH: &str = "<records>";
    let results: Vec<ResultJson> = if let Ok(s) = records.cast::<PyString>() {
        // The text `irlint atoms` reads, run as it runs it.
        let inputs = [(PATH.to_string(), Ok(s.to_cow()?.into_owned()))];
        let run = py.detach(|| irlint::atoms::cli::run_texts(&inputs));
        if run.report.errored().next().is_some() {
            return Err(report_or_input_error(py, run.report)
                .err()
                .unwrap_or_else(|| InputError::new_err(format!("{PATH}: the records could not be read"))));
        }
        run.results
    } else if records.is_instance_of::<PyBytes>()
        || records.is_instance_of::<PyByteArray>()
        || records.is_instance_of::<PyMemoryView>()
    {
        // Iterating bytes would run every byte as an integer "record".
        let kind = records.get_type().name()?;
        return Err(PyTypeError::new_err(format!(
            "atoms() takes a record (dict), an iterable of records, or the JSON text as str, not {kind} \
             (decode it first)"
        )));
    } else {
        let items: Vec<Bound<'py, PyAny>> = if records.is_instance_of::<PyDict>() {
            vec![records.clone()]
        } else {
            records.try_iter()?.collect::<PyResult<_>>()?
        };
        let mut values = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            values.push(py_to_json(item, 0).map_err(|e| PyTypeError::new_err(format!("record {i}: {e}")))?);
        }
        py.detach(|| {
            values
                .into_iter()
                .enumerate()
                .map(|(i, v)| {
                    let r = records::parse_record(i, v);
                    ResultJson::new(PATH, &r, &records::run_record(&r))
                })
                .collect()
        })
    };
    let list = PyList::empty(py);
    for r in &results {
        list.append(Py::new(py, AtomResult::new(py, r)?)?)?;
    }
    Ok(list)
}

/// The rule ids a rule selector names (a rule id, a group such as `atom`, or
/// `all`): the grammar of `-A`, `[rules]` and suppressions; see `_irlint.pyi`.
#[pyfunction]
fn rule_ids(selector: &str) -> PyResult<Vec<String>> {
    irlint::selector::expand(selector)
        .map(|ids| ids.into_iter().map(str::to_string).collect())
        .map_err(ConfigError::new_err)
}

/// `python -m irlint ARGS`: the command line, same output and exit status.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<OsString>) -> i32 {
    py.detach(|| irlint::cli::main_with_args(std::iter::once(OsString::from("irlint")).chain(argv)))
}

#[pymodule]
fn _irlint(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", irlint::VERSION)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(check_paths, m)?)?;
    m.add_function(wrap_pyfunction!(atoms, m)?)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(rule_ids, m)?)?;
    m.add_class::<Report>()?;
    m.add_class::<Finding>()?;
    m.add_class::<Location>()?;
    m.add_class::<FileResult>()?;
    m.add_class::<AtomResult>()?;
    m.add("IrlintError", py.get_type::<IrlintError>())?;
    m.add("InputError", py.get_type::<InputError>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    Ok(())
}

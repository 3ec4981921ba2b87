//! `irlint check` for embedding: the steps between parsed arguments and a
//! finished [`RunReport`], shared by the command line ([`crate::cli`]) and the
//! Python package (`python/`).
//!
//! - [`Config`]: a configuration from a file (`--config FILE`) or from text,
//!   with the same meaning as `irlint.toml`.
//! - [`collect_inputs`]: command-line paths → inputs (quoted globs, the walk,
//!   `.gitignore`, `exclude`), and the filters that `[per-file-ignores]`
//!   applies to the finished report.
//! - [`check_paths`]: what `irlint check PATH...` reports, returned instead of
//!   written, with the warnings the command line prints on stderr.
//! - [`check_data`]: in-memory data checked as a file of that name would be.
//!
//! Usage and configuration errors (a bad config, an unknown rule in an
//! override, a glob that matches nothing) are `Err` with the command line's
//! message; input errors are in the report (`input-error` findings, files with
//! status `error`, exit code 2), as the command line reports them and goes on.
//!
//! ```no_run
//! use irlint::api;
//! use irlint::input::BatchOptions;
//! let checked = api::check_paths(&["shaders".into()], None, BatchOptions::default(), true)?;
//! print!("{}", irlint::report::json::render(&checked.report));
//! std::process::exit(checked.report.exit_code());
//! # Ok::<(), String>(())
//! ```

use crate::check::InputKind;
use crate::config::Settings;
use crate::input::batch::{self, Batch, BatchOptions};
use crate::input::dxc::{self, HlslOptions};
use crate::input::filters::{self, CliExclude, ProjectFilters};
use crate::input::{self, Input};
use crate::report::RunReport;
use std::path::{Path, PathBuf};

/// A loaded configuration: rule levels and options, `exclude`,
/// `[per-file-ignores]` and the `[hlsl]` table, as `--config FILE` gives them.
#[derive(Debug, Clone)]
pub struct Config {
    /// Rule levels and options, `exclude`, `per-file-ignores`.
    pub settings: Settings,
    /// The `[hlsl]` table.
    pub hlsl: HlslOptions,
    /// The file it was read from; for text, `irlint.toml` in the working
    /// directory. `exclude` and `[per-file-ignores]` globs are relative to its
    /// directory.
    pub path: PathBuf,
}

impl Config {
    /// Reads a configuration file (errors name the file and the key).
    pub fn load(path: &Path) -> Result<Config, String> {
        let (settings, hlsl) = batch::load_config(path)?;
        Ok(Config { settings, hlsl, path: path.to_path_buf() })
    }

    /// Parses configuration text; `origin` names it in errors (`<config>`).
    /// Globs and `include-dirs` are relative to the working directory.
    pub fn parse(text: &str, origin: &str) -> Result<Config, String> {
        let settings = crate::config::parse(text, origin).map_err(|e| e.to_string())?;
        let hlsl = dxc::parse_config(text, Path::new(origin))?;
        let cwd = std::env::current_dir().map_err(|e| format!("cannot read the working directory: {e}"))?;
        Ok(Config { settings, hlsl, path: cwd.join("irlint.toml") })
    }
}

/// The inputs of a run and the project filters that apply to its report.
pub struct Inputs {
    /// Inputs in walk order (files named on the command line first as given).
    pub inputs: Vec<Input>,
    /// `.gitignore`, `exclude` and `[per-file-ignores]`.
    pub filters: ProjectFilters,
}

/// Expands quoted globs, walks the paths and leaves out what `.gitignore`
/// (when `gitignore`) and `exclude` name, with `config` (`--config`) or the
/// `irlint.toml` found above each input. A glob matching nothing is an error.
pub fn collect_inputs(paths: &[PathBuf], config: Option<&Config>, gitignore: bool) -> Result<Inputs, String> {
    collect_inputs_with(paths, config, gitignore, &CliExclude::default())
}

/// [`collect_inputs`] with the command line's `--exclude`/`--extend-exclude`.
pub fn collect_inputs_with(
    paths: &[PathBuf],
    config: Option<&Config>,
    gitignore: bool,
    exclude: &CliExclude,
) -> Result<Inputs, String> {
    let paths = filters::expand_globs(paths)?;
    let mut filters = ProjectFilters::new(config.map(|c| (c.path.as_path(), &c.settings)), gitignore);
    filters.set_cli_exclude(exclude)?;
    let inputs = filters.filter_inputs(&paths, input::discover(&paths))?;
    Ok(Inputs { inputs, filters })
}

/// Checks collected inputs and drops what `[per-file-ignores]` names: the
/// sorted report `irlint check` renders.
pub fn run_inputs(inputs: &mut Inputs, opts: BatchOptions) -> RunReport {
    let mut report = Batch::new(opts).run(&inputs.inputs);
    inputs.filters.apply_per_file_ignores(&mut report);
    report
}

/// [`run_inputs`], plus one input read from stdin (`stdin`: its name, from
/// `--stdin-filename` or [`filters::STDIN_LABEL`], and its bytes), checked as
/// [`check_data`] checks data of that name: by content (or by the name's
/// extension for HLSL), and an input error when it holds no shader. Its
/// settings are `config` (`--config`), else those of the `irlint.toml`
/// nearest to the name (the working directory for `<stdin>`); a broken one
/// is an error.
pub fn run_inputs_and_stdin(
    inputs: &mut Inputs,
    opts: BatchOptions,
    config: Option<&Config>,
    stdin: Option<(String, Vec<u8>)>,
) -> Result<RunReport, String> {
    let Some((name, bytes)) = stdin else { return Ok(run_inputs(inputs, opts)) };
    let stdin_config = match config {
        Some(c) => Some(c.clone()),
        None => {
            let parent = Path::new(&name).parent().filter(|p| !p.as_os_str().is_empty());
            let dir = std::path::absolute(parent.unwrap_or(Path::new(".")))
                .map_err(|e| format!("cannot read the working directory: {e}"))?;
            crate::config::discover(&dir).map(|p| Config::load(&p)).transpose()?
        }
    };
    let stdin_report = check_data(&name, bytes, None, stdin_config, opts.clone())?;
    let mut report = if inputs.inputs.is_empty() { RunReport::default() } else { run_inputs(inputs, opts) };
    report.files.extend(stdin_report.files);
    report.diagnostics.extend(stdin_report.diagnostics);
    report.stats.seconds += stdin_report.stats.seconds;
    report.stats.add_work(stdin_report.stats);
    report.sort();
    Ok(report)
}

/// The warning for a run that found nothing to check (it names a Triton
/// cache that holds no PTX: [`input::discover::no_input_warning`]).
pub fn no_inputs_warning(paths: &[PathBuf]) -> String {
    input::discover::no_input_warning(paths)
}

/// A finished run and the warnings `irlint check` prints on stderr for it
/// (without the `warning: ` prefix).
#[derive(Debug, Clone, Default)]
pub struct Checked {
    /// The report.
    pub report: RunReport,
    /// Nothing found to check; `--spec-constant` overrides no module used.
    pub warnings: Vec<String>,
}

/// `irlint check PATH...`: `config` is `--config` (`None`: the `irlint.toml`
/// found above each input), `opts` the other options (its `config` field is
/// replaced by `config`), `gitignore` false for `--no-ignore`.
pub fn check_paths(
    paths: &[PathBuf],
    config: Option<Config>,
    mut opts: BatchOptions,
    gitignore: bool,
) -> Result<Checked, String> {
    batch::apply_overrides(Settings::default(), &opts.overrides)?;
    let mut inputs = collect_inputs(paths, config.as_ref(), gitignore)?;
    let mut warnings = Vec::new();
    if inputs.inputs.is_empty() {
        warnings.push(no_inputs_warning(paths));
    }
    opts.config = config.map(|c| (c.settings, c.hlsl));
    let spec_constants = opts.analysis.spec_constants.clone();
    let report = run_inputs(&mut inputs, opts);
    warnings.extend(crate::report::unused_spec_constants(&report, &spec_constants));
    Ok(Checked { report, warnings })
}

/// Checks in-memory data as `irlint check` checks a file named `path` that
/// holds it (see [`Batch::run_data`]): by content, or read as `kind`.
/// `config` gives the settings (`None`: the defaults; no `irlint.toml` is
/// looked for) and its `[per-file-ignores]` apply to `path`. Data that holds
/// no shader is an input error in the report.
pub fn check_data(
    path: &str,
    bytes: Vec<u8>,
    kind: Option<InputKind>,
    config: Option<Config>,
    mut opts: BatchOptions,
) -> Result<RunReport, String> {
    batch::apply_overrides(Settings::default(), &opts.overrides)?;
    let mut filters = config.as_ref().map(|c| ProjectFilters::new(Some((c.path.as_path(), &c.settings)), false));
    opts.config = config.map(|c| (c.settings, c.hlsl));
    let mut report = Batch::new(opts).run_data(path, bytes, kind);
    if let Some(f) = &mut filters {
        f.apply_per_file_ignores(&mut report);
    }
    Ok(report)
}

/// The kinds [`check_data`] can read data as, by their JSON names.
pub const KINDS: [(&str, InputKind); 7] = [
    ("dxil", InputKind::Dxil),
    ("spirv", InputKind::Spirv),
    ("ptx", InputKind::Ptx),
    ("hlsl", InputKind::Hlsl),
    ("bitcode", InputKind::Bitcode),
    ("dxbc", InputKind::Dxbc),
    ("binary", InputKind::Binary),
];

/// Parses a kind name of [`KINDS`]; the error lists them.
pub fn parse_kind(name: &str) -> Result<InputKind, String> {
    KINDS.iter().find(|(n, _)| *n == name).map(|(_, k)| *k).ok_or_else(|| {
        let names: Vec<&str> = KINDS.iter().map(|(n, _)| *n).collect();
        format!("unknown kind `{name}`; expected one of: {}", names.join(", "))
    })
}

//! The `irlint` command line: argument parsing ([`clap`]) and dispatch to
//! the subcommands (`commands.rs`); the work is in the library ([`crate::api`],
//! `input::batch`, `report`, `dump`, `rules`). The `irlint` binary and the
//! Python package's `python -m irlint` both call [`main_with_args`].

mod alloc;
mod commands;

use crate::config::RuleLevel;
use crate::input::dxc::{self, HlslOptions};
use crate::input::{self, batch, embedded, filters, BatchOptions};
use crate::report::policy::{self, ColorChoice};
use crate::report::{self, Format};
use clap::{ArgAction, Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

#[derive(Parser)]
#[command(name = "irlint", version, about = "Lints compiled GPU code (DXIL, SPIR-V, PTX)")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check files and directories (recursive, by content) and report findings.
    ///
    /// Exit status: 0 = no finding at warning or error level, 1 = findings,
    /// 2 = usage, configuration or input error (other inputs are still checked).
    Check(Box<CheckArgs>),
    /// Verify matrix atoms (LDSM/STSM, UMMA layouts, tcgen05 kind words, TMA, ...)
    /// given as JSON records, for DSL compilers; see docs/atoms.md.
    ///
    /// Exit status: 0 = every atom valid, 1 = findings, 2 = usage or input error
    /// (other records are still checked).
    Atoms(AtomsArgs),
    /// Show what the readers recovered from inputs.
    Dump(DumpArgs),
    /// List the rules: id, default level, summary.
    Rules {
        /// Output format: a table, or a JSON array with one object per rule.
        #[arg(long, visible_alias = "output-format", value_enum, default_value = "human")]
        format: DumpFormat,
    },
    /// Print a shell completion script (`irlint completions bash > /etc/bash_completion.d/irlint`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print a rule's documentation.
    Explain {
        /// Rule id (see `irlint rules`).
        rule: String,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    Human,
    Json,
    Sarif,
    Github,
}

#[derive(Clone, Copy, ValueEnum)]
enum DumpFormat {
    Human,
    Json,
}

#[derive(clap::Args)]
struct CheckArgs {
    /// Files, directories and quoted globs (`'shaders/**/*.spv'`) to check; `-` reads one input from stdin.
    #[arg(value_name = "PATH", default_value = ".")]
    paths: Vec<PathBuf>,
    /// Output format (default: human; github when GITHUB_ACTIONS=true).
    #[arg(long, visible_alias = "output-format", value_enum)]
    format: Option<FormatArg>,
    /// Write the report to FILE (atomically) instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    /// Configuration file for every input (default: for each input, the nearest irlint.toml, in its
    /// directory or the closest ancestor; files are not merged).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Do not leave out files that .gitignore names when walking directories.
    #[arg(long = "no-ignore")]
    no_ignore: bool,
    /// Walked files and directories to leave out (globs relative to the working directory), instead of
    /// the `exclude` of irlint.toml.
    #[arg(long, value_name = "GLOB", value_delimiter = ',')]
    exclude: Vec<String>,
    /// Walked files and directories to leave out, besides the `exclude` of irlint.toml.
    #[arg(long = "extend-exclude", value_name = "GLOB", value_delimiter = ',')]
    extend_exclude: Vec<String>,
    /// The name to report stdin (`-`) as, which also decides its kind (`k.ptx`, `s.hlsl`) and its
    /// irlint.toml (default: `<stdin>`).
    #[arg(long = "stdin-filename", value_name = "NAME")]
    stdin_filename: Option<String>,
    /// Allow (turn off) a rule: a rule id, a group (an id prefix such as `coopvec`) or `all`.
    #[arg(short = 'A', value_name = "RULE", action = ArgAction::Append, help_heading = "Rule selection")]
    allow: Vec<String>,
    /// Make a rule (id, group or `all`) a warning.
    #[arg(short = 'W', value_name = "RULE", action = ArgAction::Append, help_heading = "Rule selection")]
    warn: Vec<String>,
    /// Make a rule (id, group or `all`) an error.
    #[arg(short = 'D', value_name = "RULE", action = ArgAction::Append, help_heading = "Rule selection")]
    deny: Vec<String>,
    /// Only these rules (ids, groups or `all`, comma-separated) are on, at their configured or default
    /// level (warning for a rule that is off by default); as ruff's --select. Applied before -A/-W/-D.
    #[arg(long, value_name = "RULE", value_delimiter = ',', help_heading = "Rule selection")]
    select: Vec<String>,
    /// Turn these rules on too (as --select, without turning the others off).
    #[arg(long = "extend-select", value_name = "RULE", value_delimiter = ',', help_heading = "Rule selection")]
    extend_select: Vec<String>,
    /// Turn these rules off (as -A), after --select and --extend-select.
    #[arg(long, value_name = "RULE", value_delimiter = ',', help_heading = "Rule selection")]
    ignore: Vec<String>,
    /// Worker threads (default: one per core; more than 4 per core, or 64 on small machines, is refused).
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    jobs: Option<usize>,
    /// Print timings: throughput, where the time went and the slowest inputs (on stderr for machine
    /// formats).
    #[arg(long)]
    timings: bool,
    /// Deprecated spelling of --timings.
    #[arg(long, hide = true)]
    stats: bool,
    /// Value of a specialization constant (SPIR-V `SpecId`), e.g. `--spec-constant 3=64`.
    #[arg(long = "spec-constant", value_name = "ID=VALUE", value_parser = parse_spec_constant)]
    spec_constants: Vec<(u32, u64)>,
    /// Never draw the progress bar.
    #[arg(long)]
    no_progress: bool,
    #[command(flatten)]
    source: HlslSourceArgs,
    /// HLSL: extra argument passed to DXC as is.
    #[arg(long = "dxc-arg", value_name = "ARG", allow_hyphen_values = true, help_heading = "HLSL (through DXC)")]
    dxc_args: Vec<String>,
    /// HLSL: compile to SPIR-V instead of DXIL.
    #[arg(long, help_heading = "HLSL (through DXC)")]
    spirv: bool,
    /// HLSL: skip HLSL inputs that cannot be compiled (no DXC found, no target profile) instead of
    /// failing the run with an input error.
    #[arg(long = "skip-hlsl", help_heading = "HLSL (through DXC)")]
    skip_hlsl: bool,
    /// HLSL: the DXC library (libdxcompiler) or its directory (else $IRLINT_DXC, $DXC_PATH, system search path).
    #[arg(long = "dxc", value_name = "PATH", help_heading = "HLSL (through DXC)")]
    dxc: Option<PathBuf>,
    /// HLSL: arguments after `--` go to DXC as DXC spells them (`-- -enable-16bit-types -HV 2021`).
    #[arg(last = true, value_name = "DXC_ARGS", allow_hyphen_values = true, help_heading = "HLSL (through DXC)")]
    dxc_passthrough: Vec<String>,
    /// Leave out the findings recorded in this baseline file (see --write-baseline).
    #[arg(long, value_name = "FILE", conflicts_with = "write_baseline", help_heading = "Baselines and exit policy")]
    baseline: Option<PathBuf>,
    /// Record the current findings in FILE (a baseline) and report none of them.
    #[arg(long = "write-baseline", value_name = "FILE", help_heading = "Baselines and exit policy")]
    write_baseline: Option<PathBuf>,
    /// Exit 0 even when there are findings (input errors still exit 2).
    #[arg(long = "exit-zero", help_heading = "Baselines and exit policy")]
    exit_zero: bool,
    /// The lowest finding level that makes the exit status 1.
    #[arg(long = "fail-on", value_enum, default_value = "warning", help_heading = "Baselines and exit policy")]
    fail_on: FailOnArg,
    /// Print the findings only (human format: no summary, no skipped list).
    #[arg(short = 'q', long, help_heading = "Baselines and exit policy")]
    quiet: bool,
    /// Styled output: auto (a terminal, unless NO_COLOR; CLICOLOR_FORCE forces it), always, never.
    #[arg(long, value_enum, default_value = "auto", help_heading = "Baselines and exit policy")]
    color: ColorArg,
    /// Print only the number of findings per rule (a table; JSON with --format json) instead of the report.
    #[arg(long, help_heading = "Baselines and exit policy")]
    statistics: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum FailOnArg {
    Error,
    Warning,
}

#[derive(Clone, Copy, ValueEnum)]
enum ColorArg {
    Auto,
    Always,
    Never,
}

#[derive(clap::Args)]
struct AtomsArgs {
    /// JSON (an array of records) or JSON Lines files; `-` reads stdin (reported as `<stdin>`).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<String>,
    /// Output format (default: human; github when GITHUB_ACTIONS=true).
    #[arg(long, visible_alias = "output-format", value_enum)]
    format: Option<FormatArg>,
    /// Write the report to FILE (atomically) instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    /// Exit 0 even when there are findings (input errors still exit 2).
    #[arg(long = "exit-zero")]
    exit_zero: bool,
    /// The lowest finding level that makes the exit status 1.
    #[arg(long = "fail-on", value_enum, default_value = "warning")]
    fail_on: FailOnArg,
    /// Print the findings only (human format: no summary).
    #[arg(short = 'q', long)]
    quiet: bool,
    /// Styled output: auto (a terminal, unless NO_COLOR; CLICOLOR_FORCE forces it), always, never.
    #[arg(long, value_enum, default_value = "auto")]
    color: ColorArg,
    /// Print only the number of findings per rule (a table; JSON with --format json) instead of the report.
    #[arg(long)]
    statistics: bool,
}

#[derive(clap::Args)]
struct DumpArgs {
    /// Files and directories to dump.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, visible_alias = "output-format", value_enum, default_value = "human")]
    format: DumpFormat,
    /// Also print the lowered IR.
    #[arg(long)]
    ir: bool,
    /// List the shaders embedded in each file (offset, size, kind, section).
    #[arg(long)]
    blobs: bool,
    #[command(flatten)]
    source: HlslSourceArgs,
    /// HLSL: compile to SPIR-V instead of DXIL.
    #[arg(long, help_heading = "HLSL (through DXC)")]
    spirv: bool,
    /// HLSL: the DXC library (libdxcompiler) or its directory.
    #[arg(long = "dxc", value_name = "PATH", help_heading = "HLSL (through DXC)")]
    dxc: Option<PathBuf>,
    /// HLSL: arguments after `--` go to DXC as DXC spells them.
    #[arg(last = true, value_name = "DXC_ARGS", allow_hyphen_values = true, help_heading = "HLSL (through DXC)")]
    dxc_passthrough: Vec<String>,
}

/// How HLSL inputs are compiled: the arguments `check` and `dump` share.
#[derive(Debug, Args)]
struct HlslSourceArgs {
    /// HLSL: target profile, e.g. `cs_6_9`.
    #[arg(short = 'T', long = "profile", value_name = "PROFILE", help_heading = "HLSL (through DXC)")]
    profile: Option<String>,
    /// HLSL: entry point (default `main`).
    #[arg(short = 'E', long = "entry", value_name = "ENTRY", help_heading = "HLSL (through DXC)")]
    entry: Option<String>,
    /// HLSL: preprocessor define.
    #[arg(long = "define", value_name = "NAME[=VALUE]", help_heading = "HLSL (through DXC)")]
    defines: Vec<String>,
    /// HLSL: include directory.
    #[arg(short = 'I', long = "include", value_name = "DIR", help_heading = "HLSL (through DXC)")]
    include_dirs: Vec<PathBuf>,
}

impl HlslSourceArgs {
    /// DXC options from these arguments plus the command's own.
    fn options(&self, extra_args: Vec<String>, spirv: bool, skip: bool) -> HlslOptions {
        HlslOptions {
            profile: self.profile.clone(),
            entry: self.entry.clone(),
            defines: self.defines.iter().map(|d| dxc::parse_define(d)).collect(),
            include_dirs: self.include_dirs.clone(),
            extra_args,
            spirv,
            skip,
        }
    }
}

fn parse_spec_constant(s: &str) -> Result<(u32, u64), String> {
    let (id, value) = s.split_once('=').ok_or_else(|| format!("expected ID=VALUE, got `{s}`"))?;
    let id = id.trim().parse::<u32>().map_err(|e| format!("bad SpecId `{id}`: {e}"))?;
    let v = value.trim();
    let parsed = if let Some(hex) = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()
    } else if let Some(neg) = v.strip_prefix('-') {
        neg.parse::<u64>().ok().map(|n| n.wrapping_neg())
    } else {
        v.parse::<u64>().ok()
    };
    parsed.map(|p| (id, p)).ok_or_else(|| format!("bad value `{v}` (a decimal or 0x hex integer)"))
}

fn findings(n: usize) -> String {
    format!("{n} finding{}", if n == 1 { "" } else { "s" })
}

fn usage_error(msg: impl std::fmt::Display) -> i32 {
    eprintln!("error: {msg}");
    2
}

/// `-A/-W/-D` in command-line order (clap keeps each flag's values apart).
fn overrides_in_order(m: &clap::ArgMatches) -> Vec<(String, RuleLevel)> {
    let mut all: Vec<(usize, String, RuleLevel)> = Vec::new();
    for (id, level) in [("allow", RuleLevel::Allow), ("warn", RuleLevel::Warn), ("deny", RuleLevel::Deny)] {
        if let (Some(values), Some(indices)) = (m.get_many::<String>(id), m.indices_of(id)) {
            all.extend(values.zip(indices).map(|(v, i)| (i, v.clone(), level)));
        }
    }
    all.sort_by_key(|(i, _, _)| *i);
    all.into_iter().map(|(_, r, l)| (r, l)).collect()
}

/// The input that `--output` names, if any: the same file by device and
/// inode (a hard link, a symlink or another spelling of an input is caught
/// too). Nothing is compared when the output does not exist yet.
fn output_among_inputs<'a>(output: &Path, inputs: impl IntoIterator<Item = &'a Path>) -> Option<&'a Path> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let out = std::fs::metadata(output).ok()?;
        let id = (out.dev(), out.ino());
        inputs.into_iter().find(|p| std::fs::metadata(p).is_ok_and(|m| (m.dev(), m.ino()) == id))
    }
    #[cfg(not(unix))]
    {
        let out = std::fs::canonicalize(output).ok()?;
        inputs.into_iter().find(|p| std::fs::canonicalize(p).is_ok_and(|c| c == out))
    }
}

/// The usage error for a file `flag` writes (`--output`, `--write-baseline`)
/// that is one of the inputs, or `None`.
fn refuse_output_input<'a>(
    flag: &str,
    output: Option<&Path>,
    inputs: impl IntoIterator<Item = &'a Path>,
) -> Option<i32> {
    let output = output?;
    let input = output_among_inputs(output, inputs)?;
    Some(usage_error(format!(
        "{flag} {} is the input {}: writing it would replace the input; name another file",
        output.display(),
        input.display()
    )))
}

/// `-j N` above [`batch::max_jobs`] is a usage error.
fn check_jobs(jobs: Option<usize>) -> Result<(), String> {
    // Up to the floor, any count is allowed: no need to count the cores.
    let Some(n) = jobs.filter(|&n| n > crate::read::limits::MAX_JOBS_FLOOR) else { return Ok(()) };
    let max = batch::max_jobs();
    if n > max {
        return Err(format!(
            "-j {n}: at most {max} worker threads ({} per core, at least {})",
            crate::read::limits::MAX_JOBS_PER_CORE,
            crate::read::limits::MAX_JOBS_FLOOR
        ));
    }
    Ok(())
}

fn emit(text: &str, output: Option<&Path>) -> Result<(), String> {
    match output {
        Some(p) => {
            report::run::write_atomic(p, text.as_bytes()).map_err(|e| format!("cannot write {}: {e}", p.display()))
        }
        None => {
            let mut out = std::io::stdout().lock();
            // A closed pipe (`| head`) is not an error worth reporting.
            let _ = out.write_all(text.as_bytes()).and_then(|_| out.flush());
            Ok(())
        }
    }
}

fn output_format(arg: Option<FormatArg>) -> Format {
    match arg {
        Some(FormatArg::Human) => Format::Human,
        Some(FormatArg::Json) => Format::Json,
        Some(FormatArg::Sarif) => Format::Sarif,
        Some(FormatArg::Github) => Format::Github,
        None if std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true") => Format::Github,
        None => Format::Human,
    }
}

/// `--version`: the version, git commit and features, and the DXC library
/// when one loads (looked for only when `--version` is asked for: `asked`).
/// Built once per process for each case, so repeated calls (the Python
/// package's `main`) neither leak nor search again.
fn long_version(asked: bool) -> &'static str {
    static PLAIN: OnceLock<String> = OnceLock::new();
    static WITH_DXC: OnceLock<String> = OnceLock::new();
    let build = |with_dxc: bool| {
        let mut features = Vec::new();
        if cfg!(feature = "dxc") {
            features.push("dxc");
        }
        let mut s = format!(
            "{}\ncommit: {}\nfeatures: {}",
            crate::VERSION,
            env!("IRLINT_GIT_HASH"),
            if features.is_empty() { "none".to_string() } else { features.join(", ") }
        );
        if with_dxc {
            match dxc::Compiler::load(None) {
                Ok(c) => s.push_str(&format!("\ndxc: {}", c.describe())),
                Err(_) => s.push_str("\ndxc: not found"),
            }
        }
        s
    };
    if asked {
        WITH_DXC.get_or_init(|| build(true))
    } else {
        PLAIN.get_or_init(|| build(false))
    }
}

fn cli_command(asked_version: bool) -> clap::Command {
    Cli::command().long_version(long_version(asked_version))
}

/// Runs the `irlint` command line on `args` (the first one is the program
/// name, as in `std::env::args_os`) and returns the exit status: what the
/// `irlint` binary does, and what `python -m irlint` runs. Output goes to the
/// process's stdout and stderr; `--help`, `--version` and argument errors are
/// printed as clap prints them (exit status 0, or 2 for an error) without
/// ending the process.
pub fn main_with_args<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let asked_version = args.iter().skip(1).any(|a| a == "--version");
    let matches = match cli_command(asked_version).try_get_matches_from(&args) {
        Ok(m) => m,
        Err(e) => return clap_exit(&e),
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => return clap_exit(&e),
    };
    match &cli.command {
        Command::Check(args) => {
            let sub = matches.subcommand_matches("check");
            let overrides = sub.map(overrides_in_order).unwrap_or_default();
            commands::check(args, overrides)
        }
        Command::Atoms(args) => commands::atoms(args),
        Command::Dump(args) => commands::dump(args),
        Command::Rules { format } => commands::rules(*format),
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(*shell, &mut Cli::command(), "irlint", &mut out);
            let _ = emit(&String::from_utf8_lossy(&out), None);
            0
        }
        Command::Explain { rule } => commands::explain(rule),
    }
}

/// What `clap::Error::exit` does, without ending the process: print the
/// message (help and version on stdout, errors on stderr) and return its status.
fn clap_exit(e: &clap::Error) -> i32 {
    let _ = e.print();
    let _ = std::io::stdout().lock().flush();
    let _ = std::io::stderr().lock().flush();
    e.exit_code()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_constants() {
        assert_eq!(parse_spec_constant("3=64"), Ok((3, 64)));
        assert_eq!(parse_spec_constant("0=0x10"), Ok((0, 16)));
        assert_eq!(parse_spec_constant("1=-1"), Ok((1, u64::MAX)));
        assert!(parse_spec_constant("x=1").is_err());
        assert!(parse_spec_constant("3").is_err());
    }

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn override_order_is_kept() {
        let m = Cli::command().get_matches_from(["irlint", "check", "x", "-D", "a", "-A", "b", "-W", "a"]);
        let sub = m.subcommand_matches("check").unwrap();
        let o = overrides_in_order(sub);
        assert_eq!(
            o,
            vec![("a".into(), RuleLevel::Deny), ("b".into(), RuleLevel::Allow), ("a".into(), RuleLevel::Warn)]
        );
    }
}

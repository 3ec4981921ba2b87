//! The `irlint` command line: argument parsing and dispatch only; the work is
//! in the library (`input::batch`, `report`, `dump`, `rules`).

use clap::{ArgAction, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use irlint::config::RuleLevel;
use irlint::input::dxc::{self, HlslOptions};
use irlint::input::{self, batch, embedded, filters, BatchOptions};
use irlint::report::policy::{self, ColorChoice};
use irlint::report::{self, Format};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "irlint", version, about = "Lints compiled GPU shaders (DXIL, SPIR-V)")]
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
        #[arg(long, value_enum, default_value = "human")]
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
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Output format (default: human; github when GITHUB_ACTIONS=true).
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    /// Write the report to FILE (atomically) instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    /// Configuration file (default: irlint.toml found by walking up from each input).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Do not leave out files that .gitignore names when walking directories.
    #[arg(long = "no-ignore")]
    no_ignore: bool,
    /// Allow (disable) a rule.
    #[arg(short = 'A', value_name = "RULE", action = ArgAction::Append)]
    allow: Vec<String>,
    /// Make a rule a warning.
    #[arg(short = 'W', value_name = "RULE", action = ArgAction::Append)]
    warn: Vec<String>,
    /// Make a rule an error.
    #[arg(short = 'D', value_name = "RULE", action = ArgAction::Append)]
    deny: Vec<String>,
    /// Worker threads (default: one per core).
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    jobs: Option<usize>,
    /// Print throughput statistics and the slowest inputs.
    #[arg(long)]
    stats: bool,
    /// Value of a specialization constant (SPIR-V `SpecId`), e.g. `--spec-constant 3=64`.
    #[arg(long = "spec-constant", value_name = "ID=VALUE", value_parser = parse_spec_constant)]
    spec_constants: Vec<(u32, u64)>,
    /// Never draw the progress bar.
    #[arg(long)]
    no_progress: bool,
    /// HLSL: target profile, e.g. `cs_6_9`.
    #[arg(short = 'T', long = "profile", value_name = "PROFILE", help_heading = "HLSL (through DXC)")]
    profile: Option<String>,
    /// HLSL: entry point.
    #[arg(short = 'E', long = "entry", value_name = "ENTRY", help_heading = "HLSL (through DXC)")]
    entry: Option<String>,
    /// HLSL: preprocessor define.
    #[arg(long = "define", value_name = "NAME[=VALUE]", help_heading = "HLSL (through DXC)")]
    defines: Vec<String>,
    /// HLSL: include directory.
    #[arg(short = 'I', long = "include", value_name = "DIR", help_heading = "HLSL (through DXC)")]
    include_dirs: Vec<PathBuf>,
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
    /// Print the number of diagnostics per rule (on stderr for machine formats).
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
    /// JSON (an array of records) or JSON Lines files; `-` reads stdin.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<String>,
    /// Output format (default: human; github when GITHUB_ACTIONS=true).
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    /// Write the report to FILE (atomically) instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
}

#[derive(clap::Args)]
struct DumpArgs {
    /// Files and directories to dump.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: DumpFormat,
    /// Also print the lowered IR.
    #[arg(long)]
    ir: bool,
    /// List the shaders embedded in each file (offset, size, kind, section).
    #[arg(long)]
    blobs: bool,
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

fn usage_error(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
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

fn atoms(args: &AtomsArgs) -> ExitCode {
    let format = output_format(args.format);
    let run = irlint::atoms::cli::run_paths(&args.files);
    let color = format == Format::Human
        && args.output.is_none()
        && std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none();
    if let Err(e) = emit(&irlint::atoms::cli::render(&run, format, color), args.output.as_deref()) {
        return usage_error(e);
    }
    ExitCode::from(run.exit_code() as u8)
}

fn check(args: &CheckArgs, overrides: Vec<(String, RuleLevel)>) -> ExitCode {
    let format = output_format(args.format);
    if let Some((rule, _)) = overrides.iter().find(|(r, l)| *l == RuleLevel::Deny && r.contains('=')) {
        return usage_error(format!(
            "`-D {rule}`: -D makes a rule an error (deny), as in other linters; for a DXC preprocessor define \
             use `--define {rule}` (or pass DXC's own spelling after `--`)"
        ));
    }
    let baseline = match &args.baseline {
        Some(p) => match irlint::baseline::Baseline::load(p) {
            Ok(b) => Some(b),
            Err(e) => return usage_error(e),
        },
        None => None,
    };
    // Bad overrides and a bad --config are usage errors: nothing is checked.
    if let Err(e) = batch::apply_overrides(Default::default(), &overrides) {
        return usage_error(e);
    }
    let config = match &args.config {
        Some(p) => match batch::load_config(p) {
            Ok(c) => Some(c),
            Err(e) => return usage_error(e),
        },
        None => None,
    };
    let hlsl = HlslOptions {
        profile: args.profile.clone(),
        entry: args.entry.clone(),
        defines: args.defines.iter().map(|d| dxc::parse_define(d)).collect(),
        include_dirs: args.include_dirs.clone(),
        extra_args: args.dxc_args.iter().chain(&args.dxc_passthrough).cloned().collect(),
        spirv: args.spirv,
        skip: args.skip_hlsl,
    };
    let mut stdin = None;
    let mut paths = Vec::new();
    for p in &args.paths {
        if p.as_os_str() == "-" {
            if stdin.is_none() {
                match filters::stdin_input() {
                    Ok(s) => stdin = Some(s),
                    Err(e) => return usage_error(e),
                }
            }
        } else {
            paths.push(p.clone());
        }
    }
    let paths = match filters::expand_globs(&paths) {
        Ok(p) => p,
        Err(e) => return usage_error(e),
    };
    let mut project =
        filters::ProjectFilters::new(args.config.as_deref().zip(config.as_ref().map(|c| &c.0)), !args.no_ignore);
    let mut inputs = project.filter_inputs(&paths, input::discover(&paths));
    inputs.extend(stdin.as_ref().map(|s| s.input()));
    let progress = !args.no_progress && format == Format::Human && std::io::stderr().is_terminal();
    let opts = BatchOptions {
        config,
        overrides,
        analysis: irlint::analysis::AnalysisOptions {
            spec_constants: args.spec_constants.clone(),
            ..Default::default()
        },
        hlsl,
        dxc_path: args.dxc.clone(),
        jobs: args.jobs,
        progress,
    };
    let color = match args.color {
        ColorArg::Always => ColorChoice::Always,
        ColorArg::Never => ColorChoice::Never,
        ColorArg::Auto => ColorChoice::Auto,
    }
    .resolve(format == Format::Human && args.output.is_none() && std::io::stdout().is_terminal(), |k| {
        std::env::var(k).ok()
    });
    // The common case streams: the report is written as inputs finish, so memory
    // does not grow with the number of files (input::pipeline). Baselines,
    // per-file ignores, stdin and the exit-policy and output options work on the
    // finished report instead.
    let streams = stdin.is_none()
        && baseline.is_none()
        && args.write_baseline.is_none()
        && !args.quiet
        && !args.statistics
        && !args.exit_zero
        && matches!(args.fail_on, FailOnArg::Warning)
        && !project.has_per_file_ignores(&inputs);
    if streams {
        let batch = batch::Batch::new(opts);
        let source = irlint::input::pipeline::Source::Inputs(&inputs);
        return match batch.check_to(source, &args.paths, format, args.output.as_deref(), color, args.stats) {
            Ok(code) => ExitCode::from(code as u8),
            Err(e) => usage_error(e),
        };
    }
    if inputs.is_empty() {
        eprintln!("warning: {}", input::discover::no_input_warning(&args.paths));
    }
    let mut run = batch::Batch::new(opts).run(&inputs);
    drop(stdin);
    project.apply_per_file_ignores(&mut run);
    for line in irlint::report::unused_spec_constants(&run, &args.spec_constants) {
        eprintln!("warning: {line}");
    }
    let mut baselined = Vec::new();
    if let Some(path) = &args.write_baseline {
        let b = irlint::baseline::Baseline::from_report(&run);
        if let Err(e) = report::run::write_atomic(path, b.to_json().as_bytes()) {
            return usage_error(format!("cannot write baseline {}: {e}", path.display()));
        }
        eprintln!("irlint: wrote {} to baseline {}", findings(b.len()), path.display());
        b.apply(&mut run);
    } else if let Some(b) = &baseline {
        baselined = b.apply(&mut run);
    }
    let text = match format {
        Format::Human if args.quiet => policy::render_quiet(&run, color),
        Format::Sarif if baseline.is_some() => report::sarif::render_baselined(&run, &baselined),
        _ => report::render(&run, format, color, args.stats),
    };
    if args.stats && (format != Format::Human || args.quiet) {
        eprint!("{}", run.stats.render_text());
    }
    if let Err(e) = emit(&text, args.output.as_deref()) {
        return usage_error(e);
    }
    if args.statistics {
        let stats = policy::statistics(&run);
        if format == Format::Human && args.output.is_none() {
            let _ = emit(&stats, None);
        } else {
            eprint!("{stats}");
        }
    }
    if !args.quiet && !baselined.is_empty() {
        eprintln!("irlint: {} left out by the baseline", findings(baselined.len()));
    }
    let policy = policy::ExitPolicy {
        fail_on: match args.fail_on {
            FailOnArg::Error => policy::FailOn::Error,
            FailOnArg::Warning => policy::FailOn::Warning,
        },
        exit_zero: args.exit_zero,
    };
    ExitCode::from(policy.exit_code(&run) as u8)
}

fn dump(args: &DumpArgs) -> ExitCode {
    let opts = irlint::dump::DumpOptions { ir: args.ir };
    let mut failed = false;
    let mut files = Vec::new();
    let mut blob_lists = Vec::new();
    let mut text = String::new();
    let hlsl = HlslOptions {
        profile: args.profile.clone(),
        entry: args.entry.clone(),
        defines: args.defines.iter().map(|d| dxc::parse_define(d)).collect(),
        include_dirs: args.include_dirs.clone(),
        extra_args: args.dxc_passthrough.clone(),
        spirv: args.spirv,
        skip: false,
    };
    let mut compiler = None;
    for inp in input::discover(&args.paths) {
        let path = inp.display.clone();
        let read = inp.error.clone().map_or_else(|| batch::read_input(&inp.path), Err);
        // HLSL is compiled as `check` compiles it, then dumped.
        let read = read.and_then(|b| {
            if irlint::check::classify(&path, &b) == irlint::check::InputKind::Hlsl {
                irlint::dump::compile_hlsl(&path, &b, &hlsl, args.dxc.as_deref(), &mut compiler)
            } else {
                Ok(b)
            }
        });
        let bytes = match read {
            Ok(b) => b,
            Err(e) => {
                failed = true;
                eprintln!("error: {path}: {e}");
                files.push(irlint::dump::DumpFile {
                    kind: irlint::check::classify(&path, &[]),
                    path,
                    status: irlint::check::FileStatus::Error,
                    message: Some(e),
                    details: Default::default(),
                    ir: None,
                });
                continue;
            }
        };
        let kind = irlint::check::classify(&path, &bytes);
        let blobs =
            if args.blobs || kind == irlint::check::InputKind::Binary { embedded::scan(&bytes) } else { Vec::new() };
        if args.blobs {
            text.push_str(&embedded::render_blobs(&path, &blobs));
            blob_lists.push(embedded::blobs_json(&path, &blobs));
            continue;
        }
        if kind == irlint::check::InputKind::Binary && !blobs.is_empty() {
            for b in &blobs {
                if let Some(slice) = bytes.get(b.range()) {
                    files.push(irlint::dump::dump_bytes(&format!("{path}@0x{:X}", b.offset), slice, &opts));
                }
            }
        } else {
            files.push(irlint::dump::dump_bytes(&path, &bytes, &opts));
        }
    }
    failed |= files.iter().any(|f| f.status == irlint::check::FileStatus::Error);
    let out = match (args.format, args.blobs) {
        (DumpFormat::Human, true) => text,
        (DumpFormat::Json, true) => {
            serde_json::to_string_pretty(&serde_json::json!({ "version": 1, "files": blob_lists })).unwrap_or_default()
                + "\n"
        }
        (DumpFormat::Human, false) => irlint::dump::render_text(&files),
        (DumpFormat::Json, false) => {
            serde_json::to_string_pretty(&serde_json::json!({ "version": 1, "files": files })).unwrap_or_default()
                + "\n"
        }
    };
    let _ = emit(&out, None);
    ExitCode::from(if failed { 2 } else { 0 })
}

fn level_name(l: Option<irlint::report::Level>) -> &'static str {
    l.map_or("off", |l| l.as_str())
}

fn rules(format: DumpFormat) -> ExitCode {
    let reg = irlint::rules::registry();
    if let DumpFormat::Json = format {
        #[derive(serde::Serialize)]
        struct Rule {
            id: &'static str,
            default_level: &'static str,
            summary: &'static str,
            options: &'static [&'static str],
            doc: &'static str,
        }
        let list: Vec<Rule> = reg
            .iter()
            .map(|r| Rule {
                id: r.id,
                default_level: level_name(r.default_level),
                summary: r.summary,
                options: r.options,
                doc: r.doc.trim(),
            })
            .collect();
        let _ = emit(&(serde_json::to_string_pretty(&list).unwrap_or_default() + "\n"), None);
        return ExitCode::SUCCESS;
    }
    let width = reg.iter().map(|r| r.id.len()).max().unwrap_or(0);
    let mut out = String::new();
    for r in reg {
        out.push_str(&format!("{:<width$}  {:<7}  {}\n", r.id, level_name(r.default_level), r.summary));
    }
    let _ = emit(&out, None);
    ExitCode::SUCCESS
}

/// Documentation of the reserved, tool-level ids.
fn reserved_doc(id: &str) -> Option<&'static str> {
    Some(match id {
        irlint::report::INPUT_ERROR => {
            "input-error (error): an input could not be read or is malformed (bad container, truncated \
             bitcode, invalid SPIR-V), a configuration file is invalid, or HLSL failed to compile. The \
             message names the byte offset where reading stopped. Other inputs are still checked; the \
             exit status is 2."
        }
        irlint::report::INTERNAL_ERROR => {
            "internal-error (error): irlint itself failed on this input (a caught panic). Please report \
             it with the input attached. Other inputs are still checked; the exit status is 2."
        }
        irlint::report::BUDGET_EXCEEDED => {
            "analysis-budget-exceeded (note): a work budget ran out, so some findings may be missing. Either \
             the dataflow budget of a module (constant folding included) ran out and the module was analysed \
             only partially, or the scan of a binary for embedded shaders reached its work or blob limit \
             (docs/limits.md) and the rest of the file was not scanned."
        }
        irlint::suppress::UNUSED_SUPPRESSION => {
            "unused-suppression (note): an inline `irlint: allow(RULE)` comment in the source (embedded in a \
             debug build, or read from disk for PTX `.loc` and HLSL inputs) hid no finding of RULE on its line \
             or the line below, or RULE is not a rule. Remove it, or fix the rule id."
        }
        _ => return None,
    })
}

fn explain(rule: &str) -> ExitCode {
    if let Some(r) = irlint::rules::find(rule) {
        let body = if r.doc.trim().is_empty() { r.summary } else { r.doc };
        let text = format!("{} (default: {})\n\n{}\n", r.id, level_name(r.default_level), body.trim_end());
        let _ = emit(&text, None);
        return ExitCode::SUCCESS;
    }
    if let Some(doc) = reserved_doc(rule) {
        let _ = emit(&format!("{doc}\n"), None);
        return ExitCode::SUCCESS;
    }
    usage_error(format!("unknown rule `{rule}` (`irlint rules` lists them)"))
}

/// `--version`: the version, git commit and features, and the DXC library
/// when one loads (looked for only when `--version` is asked for).
fn long_version() -> String {
    let mut features = Vec::new();
    if cfg!(feature = "dxc") {
        features.push("dxc");
    }
    let mut s = format!(
        "{}\ncommit: {}\nfeatures: {}",
        irlint::VERSION,
        env!("IRLINT_GIT_HASH"),
        if features.is_empty() { "none".to_string() } else { features.join(", ") }
    );
    if std::env::args().any(|a| a == "--version") {
        match dxc::Compiler::load(None) {
            Ok(c) => s.push_str(&format!("\ndxc: {}", c.describe())),
            Err(_) => s.push_str("\ndxc: not found"),
        }
    }
    s
}

fn cli_command() -> clap::Command {
    Cli::command().long_version(&*Box::leak(long_version().into_boxed_str()))
}

fn main() -> ExitCode {
    let matches = cli_command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    match &cli.command {
        Command::Check(args) => {
            let sub = matches.subcommand_matches("check");
            let overrides = sub.map(overrides_in_order).unwrap_or_default();
            check(args, overrides)
        }
        Command::Atoms(args) => atoms(args),
        Command::Dump(args) => dump(args),
        Command::Rules { format } => rules(*format),
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(*shell, &mut Cli::command(), "irlint", &mut out);
            let _ = emit(&String::from_utf8_lossy(&out), None);
            ExitCode::SUCCESS
        }
        Command::Explain { rule } => explain(rule),
    }
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

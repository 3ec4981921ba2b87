//! The subcommands: each turns parsed arguments into library calls, writes
//! the output and returns the exit status.

use super::*;
use crate::api;

pub(super) fn atoms(args: &AtomsArgs) -> i32 {
    let format = output_format(args.format);
    if let Some(code) =
        refuse_output_input("--output", args.output.as_deref(), args.files.iter().filter(|f| *f != "-").map(Path::new))
    {
        return code;
    }
    let run = crate::atoms::cli::run_paths(&args.files);
    let color = resolve_color(args.color, format, args.output.as_deref());
    let text = if args.statistics {
        statistics_text(&run.report, format)
    } else if args.quiet && format == Format::Human {
        policy::render_quiet(&run.report, color)
    } else {
        crate::atoms::cli::render(&run, format, color)
    };
    if let Err(e) = emit(&text, args.output.as_deref()) {
        return usage_error(e);
    }
    exit_policy(args.fail_on, args.exit_zero).exit_code(&run.report)
}

/// Whether human output is styled (`--color`, a terminal, `NO_COLOR`, `CLICOLOR_FORCE`).
fn resolve_color(arg: ColorArg, format: Format, output: Option<&Path>) -> bool {
    match arg {
        ColorArg::Always => ColorChoice::Always,
        ColorArg::Never => ColorChoice::Never,
        ColorArg::Auto => ColorChoice::Auto,
    }
    .resolve(format == Format::Human && output.is_none() && std::io::stdout().is_terminal(), |k| std::env::var(k).ok())
}

fn exit_policy(fail_on: FailOnArg, exit_zero: bool) -> policy::ExitPolicy {
    policy::ExitPolicy {
        fail_on: match fail_on {
            FailOnArg::Error => policy::FailOn::Error,
            FailOnArg::Warning => policy::FailOn::Warning,
        },
        exit_zero,
    }
}

/// `--statistics`: the table of findings per rule, or its JSON for `--format json`
/// (the whole output, as ruff prints it).
fn statistics_text(report: &report::RunReport, format: Format) -> String {
    match format {
        Format::Json => policy::statistics_json(report),
        _ => policy::statistics(report),
    }
}

/// `--select`, `--extend-select` and `--ignore` as level overrides (applied
/// before `-A/-W/-D`), as ruff resolves them: `--select` turns every rule off,
/// then the more specific selector wins (`all` < a group < a rule id), and at
/// equal specificity `--ignore` wins.
fn ruff_selection(select: &[String], extend: &[String], ignore: &[String]) -> Result<Vec<(String, RuleLevel)>, String> {
    let mut entries = Vec::new();
    for (flag, names, level) in [
        ("--select", select, RuleLevel::Enable),
        ("--extend-select", extend, RuleLevel::Enable),
        ("--ignore", ignore, RuleLevel::Allow),
    ] {
        for n in names {
            crate::selector::expand(n).map_err(|e| format!("{flag} {n}: {e}"))?;
            entries.push((crate::selector::specificity(n), level == RuleLevel::Allow, n.clone(), level));
        }
    }
    entries.sort_by_key(|(spec, is_ignore, _, _)| (*spec, *is_ignore));
    let mut out = Vec::new();
    if !select.is_empty() {
        out.push(("all".to_string(), RuleLevel::Allow));
    }
    out.extend(entries.into_iter().map(|(_, _, n, l)| (n, l)));
    Ok(out)
}

pub(super) fn check(args: &CheckArgs, overrides: Vec<(String, RuleLevel)>) -> i32 {
    let format = output_format(args.format);
    if let Err(e) = check_jobs(args.jobs) {
        return usage_error(e);
    }
    if let Some((rule, _)) = overrides.iter().find(|(r, l)| *l == RuleLevel::Deny && r.contains('=')) {
        return usage_error(format!(
            "`-D {rule}`: -D makes a rule an error (deny), as in other linters; for a DXC preprocessor define \
             use `--define {rule}` (or pass DXC's own spelling after `--`)"
        ));
    }
    let baseline = match &args.baseline {
        Some(p) => match crate::baseline::Baseline::load(p) {
            Ok(b) => Some(b),
            Err(e) => return usage_error(e),
        },
        None => None,
    };
    if args.stats {
        eprintln!("warning: --stats is deprecated: it is now --timings (--statistics counts findings per rule)");
    }
    let timings = args.timings || args.stats;
    let mut overrides = overrides;
    match ruff_selection(&args.select, &args.extend_select, &args.ignore) {
        Ok(mut o) => {
            o.append(&mut overrides);
            overrides = o;
        }
        Err(e) => return usage_error(e),
    }
    // Bad overrides and a bad --config are usage errors: nothing is checked.
    if let Err(e) = batch::apply_overrides(Default::default(), &overrides) {
        return usage_error(e);
    }
    let config = match &args.config {
        Some(p) => match api::Config::load(p) {
            Ok(c) => Some(c),
            Err(e) => return usage_error(e),
        },
        None => None,
    };
    let extra = args.dxc_args.iter().chain(&args.dxc_passthrough).cloned().collect();
    let hlsl = args.source.options(extra, args.spirv, args.skip_hlsl);
    let mut stdin = None;
    let mut paths = Vec::new();
    for p in &args.paths {
        if p.as_os_str() == "-" {
            if stdin.is_none() {
                match filters::read_stdin() {
                    Ok(s) => stdin = Some(s),
                    Err(e) => return usage_error(e),
                }
            }
        } else {
            paths.push(p.clone());
        }
    }
    if args.stdin_filename.is_some() && stdin.is_none() {
        return usage_error("--stdin-filename names stdin, but no path is `-`");
    }
    let exclude = filters::CliExclude {
        globs: args.exclude.iter().chain(&args.extend_exclude).cloned().collect(),
        replace: !args.exclude.is_empty(),
    };
    let mut inputs = match api::collect_inputs_with(&paths, config.as_ref(), !args.no_ignore, &exclude) {
        Ok(i) => i,
        Err(e) => return usage_error(e),
    };
    for (flag, out) in [("--output", &args.output), ("--write-baseline", &args.write_baseline)] {
        if let Some(code) = refuse_output_input(flag, out.as_deref(), inputs.inputs.iter().map(|i| i.path.as_path())) {
            return code;
        }
    }
    if inputs.inputs.len() > 1 {
        super::alloc::keep_freed_memory_between_files();
        let cores = || std::thread::available_parallelism().map_or(1, |n| n.get());
        if args.jobs.filter(|&n| n > 0).unwrap_or_else(cores) == 1 {
            super::alloc::one_heap_for_one_worker();
        }
    }
    let progress = !args.no_progress && format == Format::Human && std::io::stderr().is_terminal();
    let opts = BatchOptions {
        config: config.clone().map(|c| (c.settings, c.hlsl)),
        overrides,
        analysis: crate::analysis::AnalysisOptions {
            spec_constants: args.spec_constants.clone(),
            ..Default::default()
        },
        hlsl,
        dxc_path: args.dxc.clone(),
        jobs: args.jobs,
        progress,
    };
    let color = resolve_color(args.color, format, args.output.as_deref());
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
        && !inputs.filters.has_per_file_ignores(&inputs.inputs);
    if streams {
        let batch = batch::Batch::new(opts);
        let source = crate::input::pipeline::Source::Inputs(&inputs.inputs);
        return match batch.check_to(source, &args.paths, format, args.output.as_deref(), color, timings) {
            Ok(code) => code,
            Err(e) => usage_error(e),
        };
    }
    if inputs.inputs.is_empty() && stdin.is_none() {
        eprintln!("warning: {}", api::no_inputs_warning(&args.paths));
    }
    let stdin =
        stdin.map(|bytes| (args.stdin_filename.clone().unwrap_or_else(|| filters::STDIN_LABEL.to_string()), bytes));
    let mut run = match api::run_inputs_and_stdin(&mut inputs, opts, config.as_ref(), stdin) {
        Ok(r) => r,
        Err(e) => return usage_error(e),
    };
    for line in crate::report::unused_spec_constants(&run, &args.spec_constants) {
        eprintln!("warning: {line}");
    }
    let mut baselined = Vec::new();
    if let Some(path) = &args.write_baseline {
        let b = crate::baseline::Baseline::from_report(&run);
        if let Err(e) = report::run::write_atomic(path, b.to_json().as_bytes()) {
            return usage_error(format!("cannot write baseline {}: {e}", path.display()));
        }
        eprintln!("irlint: wrote {} to baseline {}", findings(b.len()), path.display());
        b.apply(&mut run);
    } else if let Some(b) = &baseline {
        baselined = b.apply(&mut run);
    }
    let text = match format {
        _ if args.statistics => statistics_text(&run, format),
        Format::Human if args.quiet => policy::render_quiet(&run, color),
        Format::Sarif if baseline.is_some() => report::sarif::render_baselined(&run, &baselined),
        _ => report::render(&run, format, color, timings),
    };
    if timings && (format != Format::Human || args.quiet || args.statistics) {
        eprint!("{}", run.stats.render_text());
    }
    if let Err(e) = emit(&text, args.output.as_deref()) {
        return usage_error(e);
    }
    if !args.quiet && !baselined.is_empty() {
        eprintln!("irlint: {} left out by the baseline", findings(baselined.len()));
    }
    exit_policy(args.fail_on, args.exit_zero).exit_code(&run)
}

pub(super) fn dump(args: &DumpArgs) -> i32 {
    let opts = crate::dump::DumpOptions { ir: args.ir };
    let mut failed = false;
    let mut files = Vec::new();
    let mut blob_lists = Vec::new();
    let mut text = String::new();
    let hlsl = args.source.options(args.dxc_passthrough.clone(), args.spirv, false);
    let mut compiler = None;
    for inp in input::discover(&args.paths) {
        let path = inp.display.clone();
        // Large files are mapped, as `check` maps them.
        let read = inp.error.clone().map_or_else(|| batch::open_input(&inp.path, true), Err);
        // HLSL is compiled as `check` compiles it, then dumped.
        let read = read.and_then(|b| {
            if crate::check::classify(&path, &b) == crate::check::InputKind::Hlsl {
                crate::dump::compile_hlsl(&path, &b, &hlsl, args.dxc.as_deref(), &mut compiler).map(Into::into)
            } else {
                Ok(b)
            }
        });
        let bytes = match read {
            Ok(b) => b,
            Err(e) => {
                failed = true;
                eprintln!("error: {path}: {e}");
                files.push(crate::dump::DumpFile {
                    kind: crate::check::unreadable_kind(&inp.path, &path),
                    path,
                    status: crate::check::FileStatus::Error,
                    message: Some(e),
                    details: Default::default(),
                    ir: None,
                });
                continue;
            }
        };
        let kind = crate::check::classify(&path, &bytes);
        let blobs =
            if args.blobs || kind == crate::check::InputKind::Binary { embedded::scan(&bytes) } else { Vec::new() };
        if args.blobs {
            text.push_str(&embedded::render_blobs(&path, &blobs));
            text.push_str(&input::containers::render_blobs(&path, &bytes));
            let mut listed = embedded::blobs_json(&path, &blobs);
            input::containers::add_json(&mut listed, &path, &bytes);
            blob_lists.push(listed);
            continue;
        }
        if kind == crate::check::InputKind::Binary && !blobs.is_empty() {
            for b in &blobs {
                if let Some(slice) = bytes.get(b.range()) {
                    files.push(crate::dump::dump_bytes(&format!("{path}@0x{:X}", b.offset), slice, &opts));
                }
            }
        } else {
            files.push(crate::dump::dump_bytes(&path, &bytes, &opts));
        }
    }
    failed |= files.iter().any(|f| f.status == crate::check::FileStatus::Error);
    let out = match (args.format, args.blobs) {
        (DumpFormat::Human, true) => text,
        (DumpFormat::Json, true) => {
            serde_json::to_string_pretty(&serde_json::json!({ "version": 1, "files": blob_lists })).unwrap_or_default()
                + "\n"
        }
        (DumpFormat::Human, false) => crate::dump::render_text(&files),
        (DumpFormat::Json, false) => {
            serde_json::to_string_pretty(&serde_json::json!({ "version": 1, "files": files })).unwrap_or_default()
                + "\n"
        }
    };
    let _ = emit(&out, None);
    if failed {
        2
    } else {
        0
    }
}

fn level_name(l: Option<crate::report::Level>) -> &'static str {
    l.map_or("off", |l| l.as_str())
}

pub(super) fn rules(format: DumpFormat) -> i32 {
    let reg = crate::rules::registry();
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
        return 0;
    }
    let width = reg.iter().map(|r| r.id.len()).max().unwrap_or(0);
    let mut out = String::new();
    for r in reg {
        out.push_str(&format!("{:<width$}  {:<7}  {}\n", r.id, level_name(r.default_level), r.summary));
    }
    let _ = emit(&out, None);
    0
}

/// Documentation of the reserved, tool-level ids.
fn reserved_doc(id: &str) -> Option<&'static str> {
    Some(match id {
        crate::report::INPUT_ERROR => {
            "input-error (error): an input could not be read or is malformed (bad container, truncated \
             bitcode, invalid SPIR-V), a configuration file is invalid, or HLSL failed to compile. The \
             message names the byte offset where reading stopped. Other inputs are still checked; the \
             exit status is 2."
        }
        crate::report::INTERNAL_ERROR => {
            "internal-error (error): irlint itself failed on this input (a caught panic). Please report \
             it with the input attached. Other inputs are still checked; the exit status is 2."
        }
        crate::report::BUDGET_EXCEEDED => {
            "analysis-budget-exceeded (note): a work budget ran out, so some findings may be missing. Either \
             the dataflow budget of a module (constant folding included) ran out and the module was analysed \
             only partially, or the scan of a binary for embedded shaders reached its work or blob limit \
             (docs/limits.md) and the rest of the file was not scanned."
        }
        crate::suppress::UNUSED_SUPPRESSION => {
            "unused-suppression (note): an inline `irlint: allow(RULE)` comment in the source (embedded in a \
             debug build, or read from disk for PTX `.loc` and HLSL inputs) hid no finding of RULE on its line \
             or the line below, or RULE is not a rule. Remove it, or fix the rule id."
        }
        _ => return None,
    })
}

pub(super) fn explain(rule: &str) -> i32 {
    if let Some(r) = crate::rules::find(rule) {
        let body = if r.doc.trim().is_empty() { r.summary } else { r.doc };
        let text = format!("{} (default: {})\n\n{}\n", r.id, level_name(r.default_level), body.trim_end());
        let _ = emit(&text, None);
        return 0;
    }
    if let Some(doc) = reserved_doc(rule) {
        let _ = emit(&format!("{doc}\n"), None);
        return 0;
    }
    if let Some(ids) = crate::selector::resolve(rule) {
        // A group (`coopvec`, `all`): its rules, each with its summary.
        let n = ids.len();
        let mut text = format!(
            "`{rule}` is a group of {n} rule{} (`irlint explain RULE` for one):\n",
            if n == 1 { "" } else { "s" }
        );
        for id in ids {
            let summary = crate::rules::find(id).map_or("", |r| r.summary);
            text.push_str(&format!("  {id}  {summary}\n"));
        }
        let _ = emit(&text, None);
        return 0;
    }
    let reserved = [
        crate::report::INPUT_ERROR,
        crate::report::INTERNAL_ERROR,
        crate::report::BUDGET_EXCEEDED,
        crate::suppress::UNUSED_SUPPRESSION,
    ];
    let ids = crate::rules::registry().iter().map(|r| r.id).chain(reserved);
    match crate::selector::suggest(rule, ids) {
        Some(near) => usage_error(format!("unknown rule `{rule}`; did you mean `{near}`?")),
        None => usage_error(format!("unknown rule `{rule}` (`irlint rules` lists them)")),
    }
}

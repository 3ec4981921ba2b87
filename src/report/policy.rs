//! The exit policy and output conventions of `irlint check` applied to a
//! finished [`RunReport`]: `--fail-on`, `--exit-zero`, `-q/--quiet`,
//! `--statistics`, `--color`.

use super::run::{is_tool_outcome, plural, RunReport};
use super::Level;
use std::collections::BTreeMap;

/// The lowest level that fails the run (`--fail-on`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FailOn {
    /// Only error-level findings fail the run.
    Error,
    /// Warnings and errors fail the run (the default).
    #[default]
    Warning,
}

/// How findings turn into an exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExitPolicy {
    /// `--fail-on`.
    pub fail_on: FailOn,
    /// `--exit-zero`: findings never fail the run (input errors still exit 2).
    pub exit_zero: bool,
}

impl ExitPolicy {
    /// 2 on input errors; else 1 when a finding is at or above `fail_on`
    /// (never with `exit_zero`); else 0.
    pub fn exit_code(&self, report: &RunReport) -> i32 {
        if report.has_input_errors() {
            return 2;
        }
        if self.exit_zero {
            return 0;
        }
        let threshold = match self.fail_on {
            FailOn::Error => Level::Error,
            FailOn::Warning => Level::Warning,
        };
        if report.diagnostics.iter().any(|d| !is_tool_outcome(&d.rule) && d.level >= threshold) {
            1
        } else {
            0
        }
    }
}

/// `--color`: `auto` follows the terminal and `NO_COLOR` / `CLICOLOR_FORCE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColorChoice {
    /// Styled when stdout is a terminal, `NO_COLOR` is unset or empty — or
    /// when `CLICOLOR_FORCE` is set to anything but `0`.
    #[default]
    Auto,
    /// Always styled.
    Always,
    /// Never styled.
    Never,
}

impl ColorChoice {
    /// Whether to style output going to a terminal (`is_terminal`), reading
    /// the environment through `env`.
    pub fn resolve(self, is_terminal: bool, env: impl Fn(&str) -> Option<String>) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                if env("NO_COLOR").is_some_and(|v| !v.is_empty()) {
                    false
                } else if env("CLICOLOR_FORCE").is_some_and(|v| !v.is_empty() && v != "0") {
                    true
                } else {
                    is_terminal
                }
            }
        }
    }
}

/// `--quiet` human output: the findings only, no summary or skipped list.
pub fn render_quiet(report: &RunReport, color: bool) -> String {
    let mut out = String::new();
    for d in &report.diagnostics {
        out.push_str(&super::human::render_diagnostic(d, color));
        out.push_str("\n\n");
    }
    out
}

/// Per rule: its number of findings and the highest level it reported at,
/// most frequent first (ties by rule id).
fn rule_counts(report: &RunReport) -> Vec<(&str, (usize, Level))> {
    let mut by_rule: BTreeMap<&str, (usize, Level)> = BTreeMap::new();
    for d in &report.diagnostics {
        let e = by_rule.entry(d.rule.as_str()).or_insert((0, d.level));
        e.0 += 1;
        e.1 = e.1.max(d.level);
    }
    let mut rows: Vec<_> = by_rule.into_iter().collect();
    rows.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(b.0)));
    rows
}

/// `--statistics`: one line per rule with its count, most frequent first,
/// then the total.
pub fn statistics(report: &RunReport) -> String {
    let rows = rule_counts(report);
    let width = rows.iter().map(|(_, (n, _))| n.to_string().len()).max().unwrap_or(1);
    let mut out = String::new();
    for (rule, (n, level)) in &rows {
        out.push_str(&format!("{n:>width$}  {:<7}  {rule}\n", level.as_str()));
    }
    let total: usize = rows.iter().map(|(_, (n, _))| n).sum();
    out.push_str(&format!("{} in {}\n", plural(total, "diagnostic"), plural(rows.len(), "rule")));
    out
}

/// [`statistics`] as JSON (`irlint check --statistics --format json`): an
/// array, most frequent rule first, of `{"rule", "level", "count"}` (the
/// highest level the rule reported at).
pub fn statistics_json(report: &RunReport) -> String {
    let rows = rule_counts(report);
    #[derive(serde::Serialize)]
    struct Row<'a> {
        rule: &'a str,
        level: &'static str,
        count: usize,
    }
    let list: Vec<Row> = rows.iter().map(|(rule, (n, level))| Row { rule, level: level.as_str(), count: *n }).collect();
    serde_json::to_string_pretty(&list).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Certainty, Diagnostic};

    #[test]
    fn policy() {
        let run = RunReport {
            diagnostics: vec![Diagnostic::new("r", Level::Warning, Certainty::Proven, "m")],
            ..Default::default()
        };
        assert_eq!(ExitPolicy::default().exit_code(&run), 1);
        assert_eq!(ExitPolicy { fail_on: FailOn::Error, exit_zero: false }.exit_code(&run), 0);
        assert_eq!(ExitPolicy { fail_on: FailOn::Warning, exit_zero: true }.exit_code(&run), 0);
        let env = |k: &str| (k == "NO_COLOR").then(|| "1".to_string());
        assert!(!ColorChoice::Auto.resolve(true, env));
        assert!(ColorChoice::Always.resolve(false, env));
        let force = |k: &str| (k == "CLICOLOR_FORCE").then(|| "1".to_string());
        assert!(ColorChoice::Auto.resolve(false, force));
    }
}

//! Rules: one file per rule, listed in the registry (interface stub).

use crate::analysis::Analysis;
use crate::config::Settings;
use crate::ir::Module;
use crate::report::{Diagnostic, Level};

/// Static description of a rule (feeds `irlint rules`, `explain`, SARIF, docs).
#[derive(Debug, Clone, Copy)]
pub struct RuleMeta {
    /// Stable kebab-case id.
    pub id: &'static str,
    /// Default level (`None` = off by default).
    pub default_level: Option<Level>,
    /// One-line summary.
    pub summary: &'static str,
    /// Full Markdown documentation (What it does / Why is this bad / Example / ...).
    pub doc: &'static str,
}

/// All rules, in registry order.
pub fn registry() -> &'static [RuleMeta] {
    &[]
}

/// Looks a rule up by id.
pub fn find(id: &str) -> Option<&'static RuleMeta> {
    registry().iter().find(|r| r.id == id)
}

/// Runs every enabled rule on a module; diagnostics carry function, instruction,
/// IR text and source location, but no path.
pub fn check_module(_m: &Module, _a: &Analysis, _s: &Settings) -> Vec<Diagnostic> {
    Vec::new()
}

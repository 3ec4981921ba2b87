//! Rules (stub).

use crate::analysis::Analysis;
use crate::config::Settings;
use crate::ir::Module;
use crate::report::Diagnostic;

/// Runs every enabled rule on a module.
pub fn check_module(_m: &Module, _a: &Analysis, _s: &Settings) -> Vec<Diagnostic> {
    Vec::new()
}

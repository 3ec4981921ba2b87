//! `irlint.toml` configuration (interface stub; the rules work fills it in).
//!
//! ```toml
//! [rules]
//! long-vector-bytebuf-load-misaligned = "deny"    # allow | warn | deny
//! [rules.structured-buffer-stride-not-cache-aligned]
//! level = "warn"
//! cache-line-target = 64
//! ```

use std::path::{Path, PathBuf};

/// A configuration error (exit code 2): names the key and the accepted values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ConfigError {
    /// The config file (or `command line`).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

/// A user level setting for a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleLevel {
    /// Off.
    Allow,
    /// Warning.
    Warn,
    /// Error.
    Deny,
}

/// Resolved settings: rule levels and options.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// Per-rule level overrides `(rule id, level)`, config first, then CLI in order.
    pub overrides: Vec<(String, RuleLevel)>,
    /// `cache-line-target` of `structured-buffer-stride-not-cache-aligned` (None = default 32).
    pub cache_line_target: Option<u32>,
}

impl Settings {
    /// Applies a CLI `-A/-W/-D RULE` override; unknown rule ids are errors.
    pub fn apply_override(&mut self, rule: &str, level: RuleLevel) -> Result<(), ConfigError> {
        self.overrides.push((rule.to_string(), level));
        Ok(())
    }
}

/// Finds `irlint.toml` by walking up from `start` (a directory).
pub fn discover(start: &Path) -> Option<PathBuf> {
    let mut dir = Some(start);
    while let Some(d) = dir {
        let candidate = d.join("irlint.toml");
        if candidate.is_file() {
            return Some(candidate);
        }
        dir = d.parent();
    }
    None
}

/// Loads and validates a config file into settings.
pub fn load(path: &Path) -> Result<Settings, ConfigError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ConfigError { path: path.display().to_string(), message: e.to_string() })?;
    parse(&text, &path.display().to_string())
}

/// Parses config text (`origin` names it in errors).
pub fn parse(_text: &str, _origin: &str) -> Result<Settings, ConfigError> {
    Ok(Settings::default())
}

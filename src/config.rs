//! `irlint.toml` configuration (stub).

/// Resolved settings.
#[derive(Debug, Clone, Default)]
pub struct Settings {}

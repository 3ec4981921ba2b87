//! What the rules read from the configuration: each rule's level and its
//! option table, through the [`RuleSettings`] trait. `crate::config` parses
//! `irlint.toml` and the command line and implements the trait; the rules never
//! name a config type, so the flow stays one-way (config → rules).

use super::RuleOptions;
use crate::report::Level;

/// The settings a rule run reads.
pub trait RuleSettings: Sync {
    /// The level a rule reports at (`None`: allowed/off).
    fn level_for(&self, rule: &str) -> Option<Level>;
    /// The option keys of a rule's `[rules.RULE]` table (`level` left out), if
    /// the configuration gave any.
    fn rule_options(&self, rule: &str) -> Option<&toml::Table>;
}

impl dyn RuleSettings + '_ {
    /// A rule's options (its defaults when its table sets none).
    pub fn options<T: RuleOptions>(&self) -> T {
        self.rule_options(T::RULE).and_then(|t| T::parse(t).ok()).unwrap_or_default()
    }
}

/// The error for a rule option outside its accepted values:
/// ``invalid value 48 for `rules.RULE.KEY`; expected one of: 16, 32``.
pub fn invalid_value(rule: &str, key: &str, v: &toml::Value, accepted: &[impl std::fmt::Display]) -> String {
    let accepted: Vec<String> = accepted.iter().map(|a| a.to_string()).collect();
    format!("invalid value {} for `rules.{rule}.{key}`; expected one of: {}", describe_value(v), accepted.join(", "))
}

/// A TOML value as an error message names it: a string quoted, a number as
/// written, `an array`, `a table`.
pub fn describe_value(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("{s:?}"),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        toml::Value::Datetime(d) => d.to_string(),
        toml::Value::Array(_) => "an array".into(),
        toml::Value::Table(_) => "a table".into(),
    }
}

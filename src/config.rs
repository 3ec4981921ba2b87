//! `irlint.toml` configuration.
//!
//! ```toml
//! exclude = ["third_party"]               # walked files left out (see `input::filters`)
//! [rules]
//! all = "warning"                          # a level for every rule
//! coopvec = "error"                        # a group: every `coopvec-*` rule
//! long-vector-bytebuf-load-misaligned = "off"     # error | warning | off (or deny | warn | allow)
//! [rules.structured-buffer-stride-not-cache-aligned]
//! level = "warn"
//! cache-line-target = 64
//! [per-file-ignores]
//! "tests/**" = ["coopvec"]                 # rule ids or groups
//! ```
//!
//! Rule names and levels follow [`crate::selector`]; in `[rules]` a more
//! specific name wins over a group (`coopvec-stride-mismatch` over `coopvec`
//! over `all`), whatever the key order.
//!
//! **Which file applies:** for each input, the `irlint.toml` nearest to it —
//! in its directory or the closest ancestor ([`discover`]); `--config FILE`
//! replaces the search. Files are not merged: a nested `irlint.toml` replaces
//! its parents' settings for the inputs under it (copy what it should keep).
//!
//! The `[hlsl]` table (DXC options for HLSL inputs) is read by the input layer.
//! Every other key is checked here: an unknown key, an unknown rule id or a value outside
//! the accepted set is a [`ConfigError`] naming the key and what is accepted.

use crate::report::Level;
use crate::rules::settings::describe_value as describe;
pub use crate::rules::settings::invalid_value;
use crate::rules::{RuleOptions, RuleSettings};
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

pub use crate::selector::RuleLevel;
use crate::selector::LEVELS;

/// Resolved settings: rule levels and options.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// Per-rule level overrides `(rule id, level)`, config first, then CLI in order.
    pub overrides: Vec<(String, RuleLevel)>,
    /// Each rule's option keys from its `[rules.RULE]` table (`level` left
    /// out), validated by the rule's [`RuleOptions`] type at load.
    pub rule_options: std::collections::BTreeMap<String, toml::Table>,
    /// `exclude = [globs]`: walked files left out (relative to the config's directory).
    pub exclude: Vec<String>,
    /// `[per-file-ignores] "glob" = ["rule" | group, …]`: rules whose findings are
    /// dropped for matching files (rule ids already expanded from groups).
    pub per_file_ignores: Vec<(String, Vec<String>)>,
}

/// The rules a `-A/-W/-D` name stands for: see [`crate::selector::resolve`].
pub fn rule_group(name: &str) -> Option<Vec<&'static str>> {
    crate::selector::resolve(name)
}

impl Settings {
    /// Applies a CLI `-A/-W/-D RULE` override; `RULE` may be a group (see
    /// [`rule_group`]). Names that match no rule are errors.
    pub fn apply_override(&mut self, rule: &str, level: RuleLevel) -> Result<(), ConfigError> {
        let ids =
            crate::selector::expand(rule).map_err(|message| ConfigError { path: "command line".into(), message })?;
        self.overrides.extend(ids.into_iter().map(|id| (id.to_string(), level)));
        Ok(())
    }

    /// The level a rule reports at (`None`: allowed/off): the last override, else
    /// the rule's default. Unknown rules are off.
    pub fn level_for(&self, rule: &str) -> Option<Level> {
        let mut mine = self.overrides.iter().rev().filter(|(r, _)| r == rule).map(|(_, l)| *l);
        match mine.next() {
            None => crate::rules::find(rule).and_then(|r| r.default_level),
            Some(RuleLevel::Enable) => {
                // The level an earlier setting gave it (turning it off does not count).
                let earlier = mine.find(|l| matches!(l, RuleLevel::Warn | RuleLevel::Deny));
                earlier
                    .and_then(RuleLevel::level)
                    .or_else(|| crate::rules::find(rule).and_then(|r| r.default_level).or(Some(Level::Warning)))
            }
            Some(l) => l.level(),
        }
    }

    /// A rule's options (its defaults when its table sets none).
    pub fn options<T: RuleOptions>(&self) -> T {
        self.rule_options.get(T::RULE).and_then(|t| T::parse(t).ok()).unwrap_or_default()
    }
}

fn check_glob(glob: &str, key: &str) -> Result<(), String> {
    let max = crate::read::limits::MAX_CONFIG_GLOB_BYTES;
    if glob.len() > max {
        return Err(format!("a glob of {} bytes in `{key}`, over the {max}-byte limit", glob.len()));
    }
    globset::Glob::new(glob).map(|_| ()).map_err(|e| format!("invalid glob {glob:?} in `{key}`: {e}"))
}

/// Validates a list of globs named by `key` (a config key or a command-line
/// flag): their number, their sizes and their syntax.
pub fn check_globs(globs: &[String], key: &str) -> Result<(), String> {
    too_many_globs(globs.len(), key)?;
    globs.iter().try_for_each(|g| check_glob(g, key))
}

fn glob_list(value: &toml::Value, key: &str) -> Result<Vec<String>, String> {
    let list = value
        .as_array()
        .and_then(|a| a.iter().map(|v| v.as_str().map(str::to_string)).collect::<Option<Vec<_>>>())
        .ok_or_else(|| format!("`{key}` must be an array of glob strings, not {}", describe(value)))?;
    too_many_globs(list.len(), key)?;
    for g in &list {
        check_glob(g, key)?;
    }
    Ok(list)
}

/// Refuses more than [`MAX_CONFIG_GLOBS`](crate::read::limits::MAX_CONFIG_GLOBS)
/// globs in one list (`exclude`, `per-file-ignores`): each is compiled into a
/// matcher every walked file is tested against.
fn too_many_globs(n: usize, key: &str) -> Result<(), String> {
    let max = crate::read::limits::MAX_CONFIG_GLOBS;
    if n > max {
        return Err(format!("`{key}` has {n} globs, over the limit of {max}"));
    }
    Ok(())
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
    let text = crate::read::file::read_bounded_text(path, crate::read::limits::MAX_CONFIG_BYTES, "config")
        .map_err(|message| ConfigError { path: path.display().to_string(), message })?;
    parse(&text, &path.display().to_string())
}

/// Parses config text (`origin` names it in errors).
pub fn parse(text: &str, origin: &str) -> Result<Settings, ConfigError> {
    let err = |message: String| ConfigError { path: origin.to_string(), message };
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| err(e.to_string().trim_end().to_string()))?;
    let mut s = Settings::default();
    for (key, value) in &table {
        if key == "hlsl" {
            // HLSL compilation options: validated by `input::dxc::parse_config`.
            continue;
        }
        if key == "exclude" {
            s.exclude = glob_list(value, "exclude").map_err(err)?;
            continue;
        }
        if key == "per-file-ignores" {
            let Some(table) = value.as_table() else {
                return Err(err(format!("`per-file-ignores` must be a table, not {}", describe(value))));
            };
            too_many_globs(table.len(), "per-file-ignores").map_err(err)?;
            for (glob, rules) in table {
                let full = format!("per-file-ignores.\"{glob}\"");
                check_glob(glob, &full).map_err(err)?;
                let names = rules
                    .as_array()
                    .map(|a| a.iter().map(|v| v.as_str()).collect::<Option<Vec<_>>>())
                    .and_then(|x| x)
                    .ok_or_else(|| err(format!("`{full}` must be an array of rule ids, not {}", describe(rules))))?;
                let mut ids = Vec::new();
                for name in names {
                    let group = crate::selector::expand(name).map_err(|e| err(format!("{e} (in `{full}`)")))?;
                    ids.extend(group.into_iter().map(str::to_string));
                }
                s.per_file_ignores.push((glob.clone(), ids));
            }
            continue;
        }
        if key == "extend" {
            return Err(err(
                "`extend` is not supported: only the irlint.toml nearest to an input applies (its parents' are \
                 not merged); copy the settings it should keep into it, or pass one file with --config"
                    .into(),
            ));
        }
        if key != "rules" {
            return Err(err(format!("unknown key `{key}`; expected one of: rules, hlsl, exclude, per-file-ignores")));
        }
        let Some(rules) = value.as_table() else {
            return Err(err(format!("`rules` must be a table, not {}", describe(value))));
        };
        // A more specific name wins: `all`, then prefixes (shorter first), then ids.
        let mut entries: Vec<(&String, &toml::Value)> = rules.iter().collect();
        entries.sort_by_key(|(name, _)| crate::selector::specificity(name));
        for (rule, v) in entries {
            let ids = crate::selector::expand(rule).map_err(|e| err(format!("{e} (in [rules])")))?;
            let meta = crate::rules::find(rule);
            let level_of = |v: &toml::Value, key: &str| -> Result<RuleLevel, ConfigError> {
                v.as_str()
                    .and_then(RuleLevel::parse)
                    .ok_or_else(|| err(format!("invalid value {} for `{key}`; expected one of: {LEVELS}", describe(v))))
            };
            let mut set_level = |l: RuleLevel| s.overrides.extend(ids.iter().map(|id| (id.to_string(), l)));
            match v {
                toml::Value::String(_) => set_level(level_of(v, &format!("rules.{rule}"))?),
                toml::Value::Table(opts) => {
                    for (k, ov) in opts {
                        let full = format!("rules.{rule}.{k}");
                        match (k.as_str(), meta) {
                            ("level", _) => set_level(level_of(ov, &full)?),
                            (k, Some(meta)) if meta.options.contains(&k) => {
                                s.rule_options.entry(rule.clone()).or_default().insert(k.to_string(), ov.clone());
                            }
                            (_, Some(meta)) => {
                                let mut accepted = vec!["level"];
                                accepted.extend_from_slice(meta.options);
                                return Err(err(format!(
                                    "unknown key `{full}`; expected one of: {}",
                                    accepted.join(", ")
                                )));
                            }
                            (_, None) => {
                                return Err(err(format!(
                                    "unknown key `{full}`: `{rule}` is a group of {} rules, whose table takes only \
                                     `level`; give options in the table of one rule id",
                                    ids.len()
                                )));
                            }
                        }
                    }
                    if let Some(t) = s.rule_options.get(rule.as_str()) {
                        crate::rules::validate_options(rule, t).map_err(err)?;
                    }
                }
                other => {
                    return Err(err(format!(
                        "invalid value {} for `rules.{rule}`; expected one of: {LEVELS}, or a table",
                        describe(other)
                    )))
                }
            }
        }
    }
    Ok(s)
}

/// What the rules read (`crate::rules::settings`): levels and option tables.
impl RuleSettings for Settings {
    fn level_for(&self, rule: &str) -> Option<Level> {
        Settings::level_for(self, rule)
    }

    fn rule_options(&self, rule: &str) -> Option<&toml::Table> {
        self.rule_options.get(rule)
    }
}

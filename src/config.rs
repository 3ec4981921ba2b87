//! `irlint.toml` configuration.
//!
//! ```toml
//! exclude = ["third_party"]               # walked files left out (see `input::filters`)
//! [rules]
//! long-vector-bytebuf-load-misaligned = "deny"    # allow | warn | deny
//! [rules.structured-buffer-stride-not-cache-aligned]
//! level = "warn"
//! cache-line-target = 64
//! [per-file-ignores]
//! "tests/**" = ["coopvec"]                 # rule ids or groups
//! ```
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

impl RuleLevel {
    /// Parses `allow`, `warn`, `deny`.
    pub fn parse(s: &str) -> Option<RuleLevel> {
        match s {
            "allow" => Some(RuleLevel::Allow),
            "warn" => Some(RuleLevel::Warn),
            "deny" => Some(RuleLevel::Deny),
            _ => None,
        }
    }

    /// The diagnostic level (`None` for allow).
    pub fn level(self) -> Option<Level> {
        match self {
            RuleLevel::Allow => None,
            RuleLevel::Warn => Some(Level::Warning),
            RuleLevel::Deny => Some(Level::Error),
        }
    }
}

const LEVELS: &str = "\"allow\", \"warn\", \"deny\"";

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

fn known_rules() -> String {
    crate::rules::registry().iter().map(|r| r.id).collect::<Vec<_>>().join(", ")
}

/// The rules a `-A/-W/-D` name stands for: a rule id; `all`; or an id prefix
/// ending at a `-` (`coopvec`, `structured-buffer`, `long-vector-bytebuf`),
/// every rule whose id starts with it. `None` when nothing matches.
pub fn rule_group(name: &str) -> Option<Vec<&'static str>> {
    let reg = crate::rules::registry();
    if let Some(r) = crate::rules::find(name) {
        return Some(vec![r.id]);
    }
    let ids: Vec<&'static str> = if name == "all" {
        reg.iter().map(|r| r.id).collect()
    } else {
        let prefix = format!("{}-", name.trim_end_matches('-'));
        reg.iter().map(|r| r.id).filter(|id| !name.is_empty() && id.starts_with(&prefix)).collect()
    };
    (!ids.is_empty()).then_some(ids)
}

fn unknown_rule(rule: &str) -> String {
    format!("unknown rule `{rule}`; known rules: {}", known_rules())
}

impl Settings {
    /// Applies a CLI `-A/-W/-D RULE` override; `RULE` may be a group (see
    /// [`rule_group`]). Names that match no rule are errors.
    pub fn apply_override(&mut self, rule: &str, level: RuleLevel) -> Result<(), ConfigError> {
        let Some(ids) = rule_group(rule) else {
            return Err(ConfigError {
                path: "command line".into(),
                message: format!("{}; or a group: `all`, or an id prefix such as `coopvec`", unknown_rule(rule)),
            });
        };
        self.overrides.extend(ids.into_iter().map(|id| (id.to_string(), level)));
        Ok(())
    }

    /// The level a rule reports at (`None`: allowed/off): the last override, else
    /// the rule's default. Unknown rules are off.
    pub fn level_for(&self, rule: &str) -> Option<Level> {
        if let Some((_, l)) = self.overrides.iter().rev().find(|(r, _)| r == rule) {
            return l.level();
        }
        crate::rules::find(rule).and_then(|r| r.default_level)
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
                    let group = rule_group(name).ok_or_else(|| {
                        err(format!("{} (in `{full}`); or a group: `all`, an id prefix", unknown_rule(name)))
                    })?;
                    ids.extend(group.into_iter().map(str::to_string));
                }
                s.per_file_ignores.push((glob.clone(), ids));
            }
            continue;
        }
        if key != "rules" {
            return Err(err(format!("unknown key `{key}`; expected one of: rules, hlsl, exclude, per-file-ignores")));
        }
        let Some(rules) = value.as_table() else {
            return Err(err(format!("`rules` must be a table, not {}", describe(value))));
        };
        for (rule, v) in rules {
            let Some(meta) = crate::rules::find(rule) else {
                return Err(err(format!("{} (in [rules])", unknown_rule(rule))));
            };
            let level_of = |v: &toml::Value, key: &str| -> Result<RuleLevel, ConfigError> {
                v.as_str()
                    .and_then(RuleLevel::parse)
                    .ok_or_else(|| err(format!("invalid value {} for `{key}`; expected one of: {LEVELS}", describe(v))))
            };
            match v {
                toml::Value::String(_) => {
                    let l = level_of(v, &format!("rules.{rule}"))?;
                    s.overrides.push((rule.clone(), l));
                }
                toml::Value::Table(opts) => {
                    for (k, ov) in opts {
                        let full = format!("rules.{rule}.{k}");
                        match k.as_str() {
                            "level" => {
                                let l = level_of(ov, &full)?;
                                s.overrides.push((rule.clone(), l));
                            }
                            k if meta.options.contains(&k) => {
                                s.rule_options.entry(rule.clone()).or_default().insert(k.to_string(), ov.clone());
                            }
                            _ => {
                                let mut accepted = vec!["level"];
                                accepted.extend_from_slice(meta.options);
                                return Err(err(format!(
                                    "unknown key `{full}`; expected one of: {}",
                                    accepted.join(", ")
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

//! Rule selectors and levels: the one grammar every place that names rules
//! uses — `-A/-W/-D`, `--select/--ignore/--extend-select`, the `[rules]` and
//! `[per-file-ignores]` tables of `irlint.toml` (and the Python `config=`
//! that means the same), and inline `irlint: allow(…)` suppressions.
//!
//! A **selector** is
//! - a rule id (`coopvec-stride-mismatch`);
//! - `all` (or `ALL`, as ruff spells it): every rule;
//! - an id prefix that ends at a `-` (`coopvec`, `long-vector-bytebuf`,
//!   `ptx`): every rule whose id starts with it and a `-`.
//!
//! When selectors overlap, the more specific one wins wherever order is not
//! given by the user (the `[rules]` table): `all` < a prefix < a longer
//! prefix < a rule id ([`specificity`]).
//!
//! A **level** is spelt as `irlint rules` prints it (`error`, `warning`,
//! `off`) or as clippy and rustc spell it (`deny`, `warn`, `allow`)
//! ([`parse_level`]).
//!
//! A name that selects nothing is an error that suggests the nearest rule id
//! or group ("did you mean `coopvec-stride-mismatch`?", as rustc and clap do),
//! see [`unknown`].

use crate::report::Level;

/// A user level setting for a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleLevel {
    /// Off.
    Allow,
    /// Warning.
    Warn,
    /// Error.
    Deny,
    /// On (`--select`, `--extend-select`): at the level an earlier setting
    /// gave the rule (config, `-W`/`-D`), else its default level, else (a
    /// rule off by default) warning.
    Enable,
}

impl RuleLevel {
    /// Parses `error`/`deny`, `warning`/`warn`, `off`/`allow` ([`parse_level`]).
    pub fn parse(s: &str) -> Option<RuleLevel> {
        parse_level(s)
    }

    /// The diagnostic level (`None` for allow; warning for
    /// [`RuleLevel::Enable`], whose level the config's `Settings::level_for` decides).
    pub fn level(self) -> Option<Level> {
        match self {
            RuleLevel::Allow => None,
            RuleLevel::Warn | RuleLevel::Enable => Some(Level::Warning),
            RuleLevel::Deny => Some(Level::Error),
        }
    }
}

/// The accepted level spellings, for error messages.
pub const LEVELS: &str = "\"error\", \"warning\", \"off\" (or \"deny\", \"warn\", \"allow\")";

/// Parses a level: `error`/`deny`, `warning`/`warn`, `off`/`allow`.
pub fn parse_level(s: &str) -> Option<RuleLevel> {
    match s {
        "allow" | "off" => Some(RuleLevel::Allow),
        "warn" | "warning" => Some(RuleLevel::Warn),
        "deny" | "error" => Some(RuleLevel::Deny),
        _ => None,
    }
}

fn is_all(name: &str) -> bool {
    name == "all" || name == "ALL"
}

/// The rule ids a selector stands for (see the module doc), in registry
/// order; `None` when it selects nothing.
pub fn resolve(name: &str) -> Option<Vec<&'static str>> {
    let reg = crate::rules::registry();
    if let Some(r) = crate::rules::find(name) {
        return Some(vec![r.id]);
    }
    let ids: Vec<&'static str> = if is_all(name) {
        reg.iter().map(|r| r.id).collect()
    } else {
        let prefix = format!("{}-", name.trim_end_matches('-'));
        reg.iter().map(|r| r.id).filter(|id| !name.is_empty() && id.starts_with(&prefix)).collect()
    };
    (!ids.is_empty()).then_some(ids)
}

/// How specific a selector is: `all` is 0, a prefix counts its `-`-separated
/// words, a rule id is above every prefix.
pub fn specificity(name: &str) -> usize {
    if crate::rules::find(name).is_some() {
        usize::MAX
    } else if is_all(name) {
        0
    } else {
        name.trim_end_matches('-').split('-').count()
    }
}

/// [`resolve`], or the error for a name that selects nothing ([`unknown`]).
pub fn expand(name: &str) -> Result<Vec<&'static str>, String> {
    resolve(name).ok_or_else(|| unknown(name))
}

/// Every name a selector may be: the rule ids, `all`, and each id prefix
/// that ends at a `-`.
fn selector_names() -> Vec<String> {
    let mut names: Vec<String> = vec!["all".into()];
    for r in crate::rules::registry() {
        names.push(r.id.to_string());
        let mut end = 0;
        while let Some(i) = r.id[end..].find('-') {
            end += i;
            let prefix = &r.id[..end];
            if !names.iter().any(|n| n == prefix) {
                names.push(prefix.to_string());
            }
            end += 1;
        }
    }
    names
}

/// ``unknown rule `x`; did you mean `y`?`` — or, with no near name,
/// ``unknown rule `x`; `irlint rules` lists the rules, and a group is `all`
/// or an id prefix such as `coopvec` `` (never the list of every id).
pub fn unknown(name: &str) -> String {
    let names = selector_names();
    match suggest(name, names.iter().map(String::as_str)) {
        Some(s) => format!("unknown rule `{name}`; did you mean `{s}`?"),
        None => format!(
            "unknown rule `{name}`; `irlint rules` lists the rules, and a group is `all` or an id prefix such as `coopvec`"
        ),
    }
}

/// The candidate nearest to `name`: the smallest edit distance (Levenshtein)
/// within a third of the name's length (at least 1, as rustc allows), else
/// the one candidate that contains `name` or that `name` contains (`stride-mismatch`
/// → `coopvec-stride-mismatch`). `None` when nothing is near.
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let candidates: Vec<&str> = candidates.into_iter().collect();
    let max = (name.chars().count() / 3).max(1);
    let nearest = candidates
        .iter()
        .map(|c| (strsim::levenshtein(name, c), *c))
        .filter(|(d, _)| *d <= max)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c);
    if nearest.is_some() {
        return nearest;
    }
    if name.len() < 4 {
        return None;
    }
    let mut containing = candidates.iter().filter(|c| c.contains(name) || name.contains(**c));
    // Prefer the longest contained candidate when `name` holds several.
    let first = containing.next()?;
    let rest: Vec<&&str> = containing.collect();
    if rest.is_empty() {
        Some(first)
    } else if !first.contains(name) {
        std::iter::once(first).chain(rest).max_by_key(|c| c.len()).copied()
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_both_spellings() {
        for (a, b) in [("error", "deny"), ("warning", "warn"), ("off", "allow")] {
            assert_eq!(parse_level(a), parse_level(b));
            assert!(parse_level(a).is_some());
        }
        assert_eq!(parse_level("error"), Some(RuleLevel::Deny));
        assert_eq!(parse_level("off"), Some(RuleLevel::Allow));
        assert_eq!(parse_level("Error"), None);
        assert_eq!(parse_level("note"), None);
    }

    #[test]
    fn selectors() {
        assert_eq!(resolve("coopvec-stride-mismatch"), Some(vec!["coopvec-stride-mismatch"]));
        let cv = resolve("coopvec").unwrap();
        assert!(cv.len() >= 6 && cv.iter().all(|id| id.starts_with("coopvec-")), "{cv:?}");
        assert_eq!(resolve("coopvec-"), resolve("coopvec"));
        assert_eq!(resolve("all").unwrap().len(), crate::rules::registry().len());
        assert_eq!(resolve("ALL"), resolve("all"));
        assert_eq!(resolve("coop"), None, "a prefix ends at a `-`");
        assert_eq!(resolve(""), None);
        assert!(specificity("all") < specificity("coopvec"));
        assert!(specificity("long-vector") < specificity("long-vector-bytebuf"));
        assert!(specificity("long-vector-bytebuf") < specificity("long-vector-bytebuf-load-misaligned"));
    }

    #[test]
    fn suggestions() {
        assert_eq!(
            unknown("coopvec-stride-mismatchh"),
            "unknown rule `coopvec-stride-mismatchh`; did you mean `coopvec-stride-mismatch`?"
        );
        assert_eq!(unknown("copvec"), "unknown rule `copvec`; did you mean `coopvec`?");
        assert_eq!(
            unknown("stride-mismatch"),
            "unknown rule `stride-mismatch`; did you mean `coopvec-stride-mismatch`?"
        );
        assert_eq!(unknown("al"), "unknown rule `al`; did you mean `all`?");
        let far = unknown("zzzzzzzz");
        assert!(far.starts_with("unknown rule `zzzzzzzz`; `irlint rules` lists"), "{far}");
        assert!(!far.contains("coopvec-stride-mismatch"), "no list of every id: {far}");
    }
}

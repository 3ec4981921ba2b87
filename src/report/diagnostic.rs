//! The one `Diagnostic` model shared by rules, tool-level outcomes and every
//! emitter (human, JSON, SARIF, GitHub).

use serde::Serialize;

/// Severity. Only these three exist (rules.md §0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Informational.
    Note,
    /// Should be looked at.
    Warning,
    /// Wrong or undefined behaviour.
    Error,
}

impl Level {
    /// One step down (error → warning → note → note), used for `possible` findings.
    pub fn lowered(self) -> Level {
        match self {
            Level::Error => Level::Warning,
            _ => Level::Note,
        }
    }

    /// `error`, `warning`, `note`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Note => "note",
        }
    }
}

/// How sure a finding is (rules.md §0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Certainty {
    /// Every value the dataflow admits violates the rule.
    Proven,
    /// Some values of a finite set violate the rule.
    Possible,
}

/// A number a finding reasoned with, as it appears in JSON `values`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum FindingValue {
    /// A constant.
    Int(u64),
    /// A finite set of constants (sorted).
    Set(Vec<u64>),
    /// `rem mod modulus`.
    Congruence {
        /// Remainder.
        rem: u64,
        /// Modulus (a power of two).
        #[serde(rename = "mod")]
        modulus: u64,
    },
    /// A name (`f16`, `row-major`).
    Text(String),
    /// Spec-constant defaults a finding assumed (`{"15": 0}`: SpecId → value),
    /// because no `--spec-constant` overrode them.
    Assumed(std::collections::BTreeMap<String, u64>),
}

impl std::fmt::Display for FindingValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FindingValue::Int(v) => write!(f, "{v}"),
            FindingValue::Set(v) => {
                let parts: Vec<String> = v.iter().map(|x| x.to_string()).collect();
                write!(f, "{{{}}}", parts.join(", "))
            }
            FindingValue::Congruence { rem, modulus } => write!(f, "{rem} mod {modulus}"),
            FindingValue::Assumed(m) => {
                let parts: Vec<String> = m.iter().map(|(k, v)| format!("{k}: {v}")).collect();
                write!(f, "{{{}}}", parts.join(", "))
            }
            FindingValue::Text(s) => f.write_str(s),
        }
    }
}

/// A source position from debug info.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceLocation {
    /// File as named by the debug info.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column (0 when unknown).
    pub column: u32,
}

/// Where a diagnostic points.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Location {
    /// Input path as given on the command line (or found in a directory walk).
    pub path: String,
    /// Offset of an embedded blob inside `path`.
    pub blob_offset: Option<u64>,
    /// Section holding the embedded blob, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// Entry point / function name.
    pub function: Option<String>,
    /// Instruction index within the function (body order, from 0).
    pub instruction: Option<u32>,
    /// 1-based line of the instruction in a text input (PTX).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The IR text of the instruction.
    #[serde(skip)]
    pub ir: Option<String>,
    /// Resource description (`g_Buf (t0 space0)`) for resource findings.
    #[serde(skip)]
    pub resource: Option<String>,
    /// Source position (outermost frame), when debug info has it.
    pub source: Option<SourceLocation>,
    /// Inner inlined frames (innermost first), shown as notes.
    #[serde(skip)]
    pub inlined_from: Vec<SourceLocation>,
    /// Source line text, when the module embeds the source.
    #[serde(skip)]
    pub source_text: Option<String>,
}

/// A finding or a tool-level outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Rule id (kebab-case) or a reserved id (`input-error`, `analysis-budget-exceeded`,
    /// `internal-error`).
    pub rule: String,
    /// Level after configuration.
    pub level: Level,
    /// Certainty.
    pub certainty: Certainty,
    /// One-line message, lowercase start, no trailing period.
    pub message: String,
    /// Suggested action.
    pub help: Option<String>,
    /// Extra notes.
    pub notes: Vec<String>,
    /// Where.
    pub location: Location,
    /// Structured values (ordered).
    pub values: Vec<(String, FindingValue)>,
}

impl Diagnostic {
    /// A new diagnostic with empty location.
    pub fn new(rule: impl Into<String>, level: Level, certainty: Certainty, message: impl Into<String>) -> Self {
        Diagnostic {
            rule: rule.into(),
            level,
            certainty,
            message: message.into(),
            help: None,
            notes: Vec::new(),
            location: Location::default(),
            values: Vec::new(),
        }
    }

    /// Adds a structured value.
    pub fn value(mut self, key: &str, v: FindingValue) -> Self {
        self.values.push((key.to_string(), v));
        self
    }

    /// Sets the help line.
    pub fn help(mut self, h: impl Into<String>) -> Self {
        self.help = Some(h.into());
        self
    }

    /// Deterministic order: path, blob offset, function, instruction, rule, message.
    pub fn sort_key(&self) -> impl Ord + '_ {
        (
            &self.location.path,
            self.location.blob_offset,
            self.location.function.as_deref(),
            self.location.instruction,
            &self.rule,
            &self.message,
        )
    }
}

/// Reserved id: a malformed or unreadable input.
pub const INPUT_ERROR: &str = "input-error";
/// Reserved id: the per-module analysis budget ran out.
pub const BUDGET_EXCEEDED: &str = "analysis-budget-exceeded";
/// Reserved id: a caught panic.
pub const INTERNAL_ERROR: &str = "internal-error";

//! Baselines: the findings a project has accepted, so that only new ones are
//! reported (`check --write-baseline FILE`, `check --baseline FILE`).
//!
//! A finding is matched by a fingerprint that survives recompiles and
//! unrelated edits: the rule, the input path, the function, the resource, the
//! recovered values and — when debug info embeds the source — the text of the
//! source line (whitespace-normalised). Never an instruction index, a byte
//! offset, a line number or the message. Equal fingerprints are counted: a
//! baseline that recorded two equal findings hides two, and a third is new.
//!
//! The file is JSON, one entry per fingerprint with its count and, for the
//! reader, the rule, path, function, resource and one message:
//!
//! ```json
//! {"version": 1, "findings": [{"fingerprint": "…", "count": 1, "rule": "…", "path": "…",
//!                              "function": "…", "resource": "…", "message": "…"}]}
//! ```
//!
//! Tool outcomes (`input-error`, `internal-error`, `analysis-budget-exceeded`)
//! are never recorded nor hidden.

use crate::report::json::Values;
use crate::report::run::{is_tool_outcome, RunReport};
use crate::report::Diagnostic;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The baseline file format version.
pub const VERSION: u32 = 1;

/// One recorded fingerprint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The fingerprint (hex).
    pub fingerprint: String,
    /// How many findings share it.
    pub count: usize,
    /// Rule id (informational).
    #[serde(default)]
    pub rule: String,
    /// Input path (informational).
    #[serde(default)]
    pub path: String,
    /// Function (informational).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    /// Resource label (informational).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// The first finding's message (informational).
    #[serde(default)]
    pub message: String,
}

/// A baseline file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Baseline {
    /// Format version ([`VERSION`]).
    pub version: u32,
    /// Entries sorted by (path, rule, fingerprint).
    pub findings: Vec<Entry>,
}

/// A path as recorded: `\` as `/`, no leading `./`, and relative to the
/// working directory when it is an absolute path under it.
pub fn normalize_path(path: &str) -> String {
    let mut p = path.replace('\\', "/");
    if Path::new(&p).is_absolute() {
        if let Ok(cwd) = std::env::current_dir() {
            if let Ok(rel) = Path::new(&p).strip_prefix(&cwd) {
                p = rel.to_string_lossy().replace('\\', "/");
            }
        }
    }
    while let Some(rest) = p.strip_prefix("./") {
        p = rest.to_string();
    }
    p.replace("/./", "/")
}

/// 64-bit FNV-1a.
fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The text a fingerprint hashes (see the module doc).
pub fn fingerprint_key(d: &Diagnostic) -> String {
    let loc = &d.location;
    let source = loc.source_text.as_deref().map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "));
    [
        d.rule.clone(),
        normalize_path(&loc.path),
        loc.function.clone().unwrap_or_default(),
        loc.resource.as_ref().map(|r| r.label.clone()).unwrap_or_default(),
        serde_json::to_string(&Values(&d.values)).unwrap_or_default(),
        source.unwrap_or_default(),
    ]
    .join("\u{1f}")
}

/// The fingerprint of a finding (16 hex digits).
pub fn fingerprint(d: &Diagnostic) -> String {
    format!("{:016x}", fnv1a(fingerprint_key(d).as_bytes()))
}

impl Baseline {
    /// The baseline of a run's findings (tool outcomes left out).
    pub fn from_report(report: &RunReport) -> Baseline {
        let mut map: BTreeMap<(String, String, String), Entry> = BTreeMap::new();
        for d in report.diagnostics.iter().filter(|d| !is_tool_outcome(&d.rule)) {
            let fp = fingerprint(d);
            let path = normalize_path(&d.location.path);
            map.entry((path.clone(), d.rule.clone(), fp.clone()))
                .or_insert_with(|| Entry {
                    fingerprint: fp,
                    count: 0,
                    rule: d.rule.clone(),
                    path,
                    function: d.location.function.clone(),
                    resource: d.location.resource.as_ref().map(|r| r.label.clone()),
                    message: d.message.clone(),
                })
                .count += 1;
        }
        Baseline { version: VERSION, findings: map.into_values().collect() }
    }

    /// Total findings recorded.
    pub fn len(&self) -> usize {
        self.findings.iter().map(|e| e.count).sum()
    }

    /// True when nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The file text (pretty JSON, trailing newline).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// Parses a baseline file's text.
    pub fn parse(text: &str) -> Result<Baseline, String> {
        let b: Baseline = serde_json::from_str(text).map_err(|e| format!("not an irlint baseline: {e}"))?;
        if b.version != VERSION {
            return Err(format!("baseline version {} is not supported (expected {VERSION})", b.version));
        }
        Ok(b)
    }

    /// Reads a baseline file.
    pub fn load(path: &Path) -> Result<Baseline, String> {
        let text = crate::read::file::read_bounded_text(path, crate::read::limits::MAX_BASELINE_BYTES, "baseline")
            .map_err(|e| format!("cannot read baseline {}: {e}", path.display()))?;
        Baseline::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Removes the findings this baseline records from `report` (each
    /// fingerprint at most `count` times, in report order) and returns them.
    pub fn apply(&self, report: &mut RunReport) -> Vec<Diagnostic> {
        let mut budget: BTreeMap<&str, usize> = BTreeMap::new();
        for e in &self.findings {
            *budget.entry(e.fingerprint.as_str()).or_insert(0) += e.count;
        }
        let mut baselined = Vec::new();
        let mut kept = Vec::with_capacity(report.diagnostics.len());
        for d in std::mem::take(&mut report.diagnostics) {
            if !is_tool_outcome(&d.rule) {
                let fp = fingerprint(&d);
                if let Some(n) = budget.get_mut(fp.as_str()).filter(|n| **n > 0) {
                    *n -= 1;
                    baselined.push(d);
                    continue;
                }
            }
            kept.push(d);
        }
        report.diagnostics = kept;
        baselined
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Certainty, FindingValue, Level};

    fn finding(path: &str, instruction: u32, stride: u64) -> Diagnostic {
        let mut d = Diagnostic::new("r", Level::Warning, Certainty::Proven, format!("m {instruction}"))
            .value("stride", FindingValue::Int(stride));
        d.location.path = path.into();
        d.location.function = Some("main".into());
        d.location.instruction = Some(instruction);
        d.location.byte_offset = Some(u64::from(instruction) * 4);
        d
    }

    #[test]
    fn survives_moves_and_counts() {
        let mut run =
            RunReport { diagnostics: vec![finding("./a.dxil", 1, 12), finding("a.dxil", 2, 12)], ..Default::default() };
        let b = Baseline::from_report(&run);
        assert_eq!((b.findings.len(), b.len()), (1, 2));
        let b = Baseline::parse(&b.to_json()).unwrap();
        // Instructions moved, the message changed: still the same findings; a third is new.
        run.diagnostics = vec![finding("a.dxil", 7, 12), finding("a.dxil", 9, 12), finding("a.dxil", 11, 12)];
        assert_eq!(b.apply(&mut run).len(), 2);
        assert_eq!(run.diagnostics.len(), 1);
        // Other values: new.
        run.diagnostics = vec![finding("a.dxil", 1, 20)];
        assert!(b.apply(&mut run).is_empty());
    }
}

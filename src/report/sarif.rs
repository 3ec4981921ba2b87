//! SARIF 2.1.0: one run; `tool.driver.rules` from the rule registry (with the
//! rule doc as `help`); one result per finding; tool-level outcomes
//! (`input-error`, `internal-error`, `analysis-budget-exceeded`) as
//! `invocations[0].toolExecutionNotifications`.
//!
//! A result's `locations[0]` is the source region when debug info names one,
//! and the bytecode location (the input with `region.byteOffset`, logical
//! locations for the function and instruction) otherwise; with a source region
//! the bytecode location is `relatedLocations[0]`. Artifact URIs are relative
//! to the working directory with `uriBaseId` `%SRCROOT%` (given in
//! `originalUriBaseIds`), inputs named by absolute paths under it included.
//! Every result has `partialFingerprints["irlint/v1"]`, which depends on the
//! rule, the primary location (the source line's text rather than its number),
//! the function, the resource and the values, not on the message or the run.
//!
//! There is no public home page yet, so `informationUri` and `helpUri` are
//! left out rather than made up.

use super::json::Values;
use super::run::{is_tool_outcome, RunReport};
use super::{Certainty, Diagnostic, Level, Location};
use crate::paths::normalize;
use crate::rules::{self, RuleMeta};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

/// `$schema` of the log.
pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The base id artifact URIs are relative to (the working directory).
pub const SRCROOT: &str = "%SRCROOT%";

/// The key of [`Diagnostic`] fingerprints in `partialFingerprints`.
pub const FINGERPRINT_KEY: &str = "irlint/v1";

fn level(l: Level) -> &'static str {
    match l {
        Level::Error => "error",
        Level::Warning => "warning",
        Level::Note => "note",
    }
}

/// A path as a URI reference: relative paths stay relative, absolute ones
/// become `file://` URIs; everything but unreserved characters and `/` is
/// percent-encoded, `\` becomes `/`.
pub fn path_to_uri(path: &str) -> String {
    let p = path.replace('\\', "/");
    let bytes = p.as_bytes();
    let (prefix, rest) = if p.starts_with('/') {
        ("file://", p.as_str())
    } else if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        // `C:/dir/file` keeps its drive colon.
        return format!("file:///{}:{}", &p[..1], encode(&p[2..]));
    } else {
        ("", p.as_str())
    };
    format!("{prefix}{}", encode(rest))
}

fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Builds artifact locations relative to a root directory.
#[derive(Debug, Clone)]
pub struct Artifacts {
    root: Option<PathBuf>,
}

impl Artifacts {
    /// Relative to `root` (an absolute directory); `None`: relative paths stay
    /// relative and no `uriBaseId` is written.
    pub fn new(root: Option<&Path>) -> Self {
        Artifacts { root: root.filter(|r| r.is_absolute()).map(normalize) }
    }

    /// Relative to the working directory.
    pub fn from_cwd() -> Self {
        Artifacts::new(std::env::current_dir().ok().as_deref())
    }

    /// `originalUriBaseIds` of the run (empty without a root).
    pub fn base_ids(&self) -> Option<Value> {
        let root = self.root.as_ref()?;
        let mut uri = path_to_uri(&root.to_string_lossy());
        if !uri.ends_with('/') {
            uri.push('/');
        }
        Some(json!({ SRCROOT: { "uri": uri } }))
    }

    /// An `artifactLocation`: `{"uri": "rel/path", "uriBaseId": "%SRCROOT%"}`
    /// for a path under the root (given relative or absolute), an absolute
    /// `file://` URI for one outside it.
    pub fn location(&self, path: &str) -> Value {
        let p = Path::new(path);
        let Some(root) = &self.root else {
            return json!({ "uri": path_to_uri(path) });
        };
        // `C:\src\a.hlsl` or `\\server\share` from a Windows build's debug info.
        let b = path.as_bytes();
        let windows_absolute = (b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':') || path.starts_with('\\');
        if windows_absolute && !p.is_absolute() {
            return json!({ "uri": path_to_uri(path) });
        }
        let abs = if p.is_absolute() { normalize(p) } else { normalize(&root.join(p)) };
        match abs.strip_prefix(root) {
            Ok(rel) if !rel.as_os_str().is_empty() => {
                json!({ "uri": path_to_uri(&rel.to_string_lossy()), "uriBaseId": SRCROOT })
            }
            _ if p.is_absolute() || abs.is_absolute() => json!({ "uri": path_to_uri(&abs.to_string_lossy()) }),
            _ => json!({ "uri": path_to_uri(path) }),
        }
    }
}

/// The first paragraph of a rule doc's *What it does* section.
fn what_it_does(doc: &str) -> Option<String> {
    let rest = doc.split("## What it does").nth(1)?;
    let para: Vec<&str> =
        rest.trim_start().lines().take_while(|l| !l.trim().is_empty() && !l.starts_with('#')).map(str::trim).collect();
    (!para.is_empty()).then(|| para.join(" "))
}

fn rule_descriptor(r: &RuleMeta) -> Value {
    let config = match r.default_level {
        Some(l) => json!({ "level": level(l) }),
        None => json!({ "enabled": false }),
    };
    let doc = r.doc.trim();
    json!({
        "id": r.id,
        "shortDescription": { "text": r.summary },
        "fullDescription": { "text": what_it_does(doc).unwrap_or_else(|| r.summary.to_string()) },
        "help": { "text": doc, "markdown": doc },
        "defaultConfiguration": config,
    })
}

/// `main, instruction 4 (%5), byte offset 0xCA6` (what the bytecode location names).
fn bytecode_text(loc: &Location) -> String {
    let mut parts = Vec::new();
    if let Some(f) = &loc.function {
        parts.push(format!("function {f}"));
    }
    match (loc.instruction, &loc.value) {
        (Some(i), Some(v)) => parts.push(format!("instruction {i} ({v})")),
        (Some(i), None) => parts.push(format!("instruction {i}")),
        (None, v) => {
            if let Some(r) = &loc.resource {
                parts.push(format!("resource {r}"));
            }
            if let Some(v) = v {
                parts.push(v.clone());
            }
        }
    }
    if let Some(off) = loc.byte_offset {
        parts.push(format!("byte offset 0x{off:X}"));
    } else if let (Some(off), Some(name)) = (loc.blob_offset, &loc.entry) {
        match &loc.section {
            Some(s) => parts.push(format!("entry {name} at byte offset 0x{off:X} ({s})")),
            None => parts.push(format!("entry {name} at byte offset 0x{off:X}")),
        }
    } else if let Some(off) = loc.blob_offset {
        match &loc.section {
            Some(s) => parts.push(format!("blob at byte offset 0x{off:X} ({s})")),
            None => parts.push(format!("blob at byte offset 0x{off:X}")),
        }
    }
    if parts.is_empty() {
        "bytecode".into()
    } else {
        format!("bytecode: {}", parts.join(", "))
    }
}

/// The bytecode location: the input, the byte offset, function and instruction.
fn bytecode_location(loc: &Location, arts: &Artifacts) -> Value {
    let mut physical = Map::new();
    physical.insert("artifactLocation".into(), arts.location(&loc.path));
    if let Some(off) = loc.byte_offset.or(loc.blob_offset) {
        physical.insert("region".into(), json!({ "byteOffset": off }));
    } else if let Some(region) = text_region(loc) {
        physical.insert("region".into(), region);
    }
    let mut out = Map::new();
    out.insert("physicalLocation".into(), Value::Object(physical));
    let mut logical = Vec::new();
    if let Some(f) = &loc.function {
        logical.push(json!({ "name": f, "kind": "function" }));
    }
    if let Some(i) = loc.instruction {
        let mut l = json!({ "name": format!("instruction {i}") });
        if let Some(v) = &loc.value {
            l["decoratedName"] = json!(v);
        }
        logical.push(l);
    }
    // The section, or the container entry a blob was decoded from, last.
    if let Some(s) = &loc.section {
        let mut m = json!({ "name": s, "kind": "module" });
        if let Some(name) = &loc.entry {
            m["fullyQualifiedName"] = json!(format!("{}@{name}", loc.path));
        }
        logical.push(m);
    }
    if !logical.is_empty() {
        out.insert("logicalLocations".into(), Value::Array(logical));
    }
    out.insert("message".into(), json!({ "text": bytecode_text(loc) }));
    Value::Object(out)
}

/// `{"startLine", "startColumn"}` of a text input's line (PTX).
fn text_region(loc: &Location) -> Option<Value> {
    let line = loc.line?;
    let mut region = json!({ "startLine": line.max(1) });
    if let Some(col) = loc.column.filter(|c| *c > 0) {
        region["startColumn"] = json!(col);
    }
    Some(region)
}

/// Where an input error is: in an embedded blob or container entry, the
/// blob's offset in the file (a line of decoded text is not a line of the
/// file; the message names it); else the line and column of a text input,
/// else the byte offset where the reader stopped.
fn notification_region(loc: &Location) -> Option<Value> {
    if let Some(off) = loc.blob_offset {
        return Some(json!({ "byteOffset": off }));
    }
    text_region(loc).or_else(|| loc.byte_offset.map(|off| json!({ "byteOffset": off })))
}

/// The source region from debug info.
fn source_location(loc: &Location, arts: &Artifacts) -> Option<Value> {
    let src = loc.source.as_ref()?;
    let mut region = json!({ "startLine": src.line.max(1) });
    if src.column > 0 {
        region["startColumn"] = json!(src.column);
    }
    if let Some(text) = &loc.source_text {
        region["snippet"] = json!({ "text": text });
    }
    Some(json!({ "physicalLocation": { "artifactLocation": arts.location(&src.file), "region": region } }))
}

/// `locations` and `relatedLocations` of a result.
fn locations(loc: &Location, arts: &Artifacts) -> (Value, Option<Value>) {
    let bytecode = bytecode_location(loc, arts);
    match source_location(loc, arts) {
        Some(src) => {
            let mut related = bytecode;
            related["id"] = json!(1);
            (json!([src]), Some(json!([related])))
        }
        None => (json!([bytecode]), None),
    }
}

/// 64-bit FNV-1a.
fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// What a fingerprint hashes: rule, primary artifact, the source line's text
/// (its number only when the text is unknown) or the bytecode position,
/// function, resource and values — not the message, which may be reworded.
fn fingerprint_key(d: &Diagnostic, arts: &Artifacts) -> String {
    let loc = &d.location;
    let mut key = vec![d.rule.clone()];
    match &loc.source {
        Some(src) => {
            key.push(arts.location(&src.file)["uri"].to_string());
            match &loc.source_text {
                Some(t) => key.push(t.split_whitespace().collect::<Vec<_>>().join(" ")),
                None => key.push(format!("line {}", src.line)),
            }
        }
        None => {
            key.push(arts.location(&loc.path)["uri"].to_string());
            key.push(format!("{:?} {:?}", loc.blob_offset, loc.instruction));
        }
    }
    key.push(loc.function.clone().unwrap_or_default());
    key.push(loc.resource.as_ref().map(|r| r.label.clone()).unwrap_or_default());
    key.push(serde_json::to_string(&Values(&d.values)).unwrap_or_default());
    key.join("\u{1f}")
}

fn result(d: &Diagnostic, registry: &[RuleMeta], arts: &Artifacts, fingerprint: String) -> Value {
    let mut text = d.message.clone();
    if let Some(res) = &d.location.resource {
        text.push_str(&format!("\nresource: {res}"));
    }
    if let Some(h) = &d.help {
        text.push_str(&format!("\nhelp: {h}"));
    }
    let values = serde_json::to_value(Values(&d.values)).unwrap_or(Value::Null);
    let certainty = match d.certainty {
        Certainty::Proven => "proven",
        Certainty::Possible => "possible",
    };
    let mut properties = json!({ "certainty": certainty, "values": values });
    if let Some(res) = &d.location.resource {
        properties["resource"] = serde_json::to_value(res).unwrap_or(Value::Null);
    }
    let mut r = json!({
        "ruleId": d.rule,
        "level": level(d.level),
        "message": { "text": text },
        "locations": Value::Null,
        "partialFingerprints": { FINGERPRINT_KEY: fingerprint },
        "properties": properties,
    });
    let (locs, related) = locations(&d.location, arts);
    r["locations"] = locs;
    if let Some(related) = related {
        r["relatedLocations"] = related;
    }
    if let Some(i) = registry.iter().position(|m| m.id == d.rule) {
        r["ruleIndex"] = json!(i);
    }
    r
}

fn notification(d: &Diagnostic, arts: &Artifacts) -> Value {
    let mut physical = json!({ "artifactLocation": arts.location(&d.location.path) });
    if let Some(region) = notification_region(&d.location) {
        physical["region"] = region;
    }
    json!({
        "level": level(d.level),
        "message": { "text": d.message },
        "descriptor": { "id": d.rule },
        "locations": [{ "physicalLocation": physical }],
    })
}

/// The SARIF log as a JSON value, artifact URIs relative to the working directory.
pub fn to_value(report: &RunReport) -> Value {
    to_value_with(report, &Artifacts::from_cwd())
}

/// The SARIF log as a JSON value, artifact URIs built by `arts`.
pub fn to_value_with(report: &RunReport, arts: &Artifacts) -> Value {
    to_value_baselined(report, None, arts)
}

/// The SARIF log of a run compared with a baseline (`check --baseline`):
/// the report's findings with `baselineState` `new`, the `baselined` ones
/// (those the baseline hid) with `unchanged`.
pub fn render_baselined(report: &RunReport, baselined: &[Diagnostic]) -> String {
    let mut s = serde_json::to_string_pretty(&to_value_baselined(report, Some(baselined), &Artifacts::from_cwd()))
        .unwrap_or_default();
    s.push('\n');
    s
}

fn to_value_baselined(report: &RunReport, baselined: Option<&[Diagnostic]>, arts: &Artifacts) -> Value {
    let registry = rules::registry();
    let mut seen: std::collections::HashMap<u64, u32> = std::collections::HashMap::new();
    let mut all: Vec<(&Diagnostic, Option<&str>)> = report
        .diagnostics
        .iter()
        .filter(|d| !is_tool_outcome(&d.rule))
        .map(|d| (d, baselined.map(|_| "new")))
        .collect();
    if let Some(old) = baselined {
        all.extend(old.iter().map(|d| (d, Some("unchanged"))));
        all.sort_by(|a, b| a.0.sort_key().cmp(&b.0.sort_key()));
    }
    let results: Vec<Value> = all
        .into_iter()
        .map(|(d, state)| {
            let hash = fnv1a(fingerprint_key(d, arts).as_bytes());
            // Equal keys in one run are told apart by their order, as GitHub's
            // `primaryLocationLineHash` does.
            let n = seen.entry(hash).or_insert(0);
            *n += 1;
            let mut r = result(d, registry, arts, format!("{hash:016x}:{n}"));
            if let Some(state) = state {
                r["baselineState"] = json!(state);
            }
            r
        })
        .collect();
    let notifications: Vec<Value> =
        report.diagnostics.iter().filter(|d| is_tool_outcome(&d.rule)).map(|d| notification(d, arts)).collect();
    let mut invocation = json!({ "executionSuccessful": !report.has_input_errors() });
    if !notifications.is_empty() {
        invocation["toolExecutionNotifications"] = Value::Array(notifications);
    }
    let mut run = json!({
        "tool": {
            "driver": {
                "name": "irlint",
                "version": crate::VERSION,
                "semanticVersion": crate::VERSION,
                "rules": registry.iter().map(rule_descriptor).collect::<Vec<_>>(),
            }
        },
        "invocations": [invocation],
        "results": results,
    });
    if let Some(ids) = arts.base_ids() {
        run["originalUriBaseIds"] = ids;
    }
    json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [run],
    })
}

/// Renders the SARIF log, pretty-printed, with a trailing newline.
pub fn render(report: &RunReport) -> String {
    let mut s = serde_json::to_string_pretty(&to_value(report)).unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris() {
        assert_eq!(path_to_uri("shaders/a b.dxil"), "shaders/a%20b.dxil");
        assert_eq!(path_to_uri("/work/x#1.spv"), "file:///work/x%231.spv");
        assert_eq!(path_to_uri("C:\\games\\x.exe"), "file:///C:/games/x.exe");
    }

    #[test]
    fn input_error_regions() {
        let mut l = Location {
            path: "k.ptx".into(),
            line: Some(10),
            column: Some(31),
            byte_offset: Some(175),
            ..Default::default()
        };
        assert_eq!(notification_region(&l), Some(json!({ "startLine": 10, "startColumn": 31 })));
        // In a container entry the line is one of the decoded text: the entry's offset is given.
        l.blob_offset = Some(0x400);
        assert_eq!(notification_region(&l), Some(json!({ "byteOffset": 0x400 })));
        let l = Location { path: "a.dxil".into(), byte_offset: Some(24), ..Default::default() };
        assert_eq!(notification_region(&l), Some(json!({ "byteOffset": 24 })));
        assert_eq!(notification_region(&Location::default()), None);
    }
}

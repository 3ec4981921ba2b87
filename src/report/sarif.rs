//! SARIF 2.1.0: one run; `tool.driver.rules` from the rule registry; one result
//! per finding; tool-level outcomes (`input-error`, `internal-error`,
//! `analysis-budget-exceeded`) as `invocations[0].toolExecutionNotifications`.
//!
//! Each result's first location is the input (with `region.byteOffset` for an
//! embedded blob) plus logical locations for the function and instruction;
//! when debug info names a source line, the source file with its region is a
//! second location.

use super::json::Values;
use super::run::{is_tool_outcome, RunReport};
use super::{Certainty, Diagnostic, Level, Location};
use crate::rules::{self, RuleMeta};
use serde_json::{json, Map, Value};

/// `$schema` of the log.
pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The project's home page (`tool.driver.informationUri`, base of `helpUri`).
pub fn information_uri() -> &'static str {
    match env!("CARGO_PKG_REPOSITORY") {
        "" => "https://github.com/irlint/irlint",
        repo => repo,
    }
}

/// Where a rule's documentation page lives.
pub fn help_uri(id: &str) -> String {
    format!("{}/blob/main/docs/rules/{id}.md", information_uri().trim_end_matches('/'))
}

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

fn rule_descriptor(r: &RuleMeta) -> Value {
    let config = match r.default_level {
        Some(l) => json!({ "level": level(l) }),
        None => json!({ "enabled": false }),
    };
    json!({
        "id": r.id,
        "shortDescription": { "text": r.summary },
        "fullDescription": { "text": r.doc, "markdown": r.doc },
        "defaultConfiguration": config,
        "helpUri": help_uri(r.id),
    })
}

fn artifact(uri: String) -> Value {
    json!({ "artifactLocation": { "uri": uri } })
}

fn locations(loc: &Location) -> Vec<Value> {
    let mut physical = artifact(path_to_uri(&loc.path));
    if let Some(off) = loc.blob_offset {
        physical["region"] = json!({ "byteOffset": off });
    }
    let mut first = Map::new();
    first.insert("physicalLocation".into(), physical);
    let mut logical = Vec::new();
    if let Some(f) = &loc.function {
        logical.push(json!({ "name": f, "kind": "function" }));
    }
    if let Some(i) = loc.instruction {
        logical.push(json!({ "name": format!("instruction {i}") }));
    }
    if !logical.is_empty() {
        first.insert("logicalLocations".into(), Value::Array(logical));
    }
    let mut out = vec![Value::Object(first)];
    if let Some(src) = &loc.source {
        let mut region = json!({ "startLine": src.line.max(1) });
        if src.column > 0 {
            region["startColumn"] = json!(src.column);
        }
        if let Some(text) = &loc.source_text {
            region["snippet"] = json!({ "text": text });
        }
        let mut physical = artifact(path_to_uri(&src.file));
        physical["region"] = region;
        out.push(json!({ "physicalLocation": physical }));
    }
    out
}

fn result(d: &Diagnostic, registry: &[RuleMeta]) -> Value {
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
        "locations": locations(&d.location),
        "properties": properties,
    });
    if let Some(i) = registry.iter().position(|m| m.id == d.rule) {
        r["ruleIndex"] = json!(i);
    }
    r
}

fn notification(d: &Diagnostic) -> Value {
    json!({
        "level": level(d.level),
        "message": { "text": d.message },
        "descriptor": { "id": d.rule },
        "locations": [{ "physicalLocation": artifact(path_to_uri(&d.location.path)) }],
    })
}

/// The SARIF log as a JSON value.
pub fn to_value(report: &RunReport) -> Value {
    let registry = rules::registry();
    let results: Vec<Value> =
        report.diagnostics.iter().filter(|d| !is_tool_outcome(&d.rule)).map(|d| result(d, registry)).collect();
    let notifications: Vec<Value> =
        report.diagnostics.iter().filter(|d| is_tool_outcome(&d.rule)).map(notification).collect();
    let mut invocation = json!({ "executionSuccessful": !report.has_input_errors() });
    if !notifications.is_empty() {
        invocation["toolExecutionNotifications"] = Value::Array(notifications);
    }
    json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "irlint",
                    "version": crate::VERSION,
                    "informationUri": information_uri(),
                    "rules": registry.iter().map(rule_descriptor).collect::<Vec<_>>(),
                }
            },
            "invocations": [invocation],
            "results": results,
        }],
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
}

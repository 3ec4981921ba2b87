//! A small JSON-Schema (draft-07) validator covering exactly the keywords the
//! SARIF 2.1.0 schema and irlint's own schemas (`docs/schemas/`) use, so the
//! tests need no heavy dependency.
//!
//! Any keyword it does not implement makes validation fail loudly (instead of
//! being skipped), and `pattern` is treated the same way: irlint never emits
//! the pattern-constrained properties (GUIDs, MIME types, languages), so
//! meeting one is itself a failure.

use serde_json::Value;
use std::sync::OnceLock;

#[allow(dead_code)]
fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let text = include_str!("../data/sarif-schema-2.1.0.json");
        serde_json::from_str(text).expect("schema parses")
    })
}

/// Validates a SARIF log; `Err` lists every violation with its JSON path.
#[allow(dead_code)]
pub fn validate(instance: &Value) -> Result<(), Vec<String>> {
    validate_with(schema(), instance)
}

/// Validates `instance` against the schema `root` (its `$ref`s point into
/// `root["definitions"]`); `Err` lists every violation with its JSON path.
#[allow(dead_code)]
pub fn validate_with(root: &Value, instance: &Value) -> Result<(), Vec<String>> {
    let mut errors = Vec::new();
    check(root, root, instance, "$", &mut errors);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn resolve<'a>(root: &'a Value, r: &str) -> &'a Value {
    let name = r.strip_prefix("#/definitions/").unwrap_or_else(|| panic!("unsupported $ref {r}"));
    &root["definitions"][name]
}

fn type_ok(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        other => panic!("unsupported type {other}"),
    }
}

fn format_ok(f: &str, s: &str) -> bool {
    let no_bad_chars = !s.chars().any(|c| c.is_whitespace() || c.is_control() || c == '\\');
    match f {
        "uri-reference" => no_bad_chars,
        "uri" => {
            let scheme_end = s.find(':');
            no_bad_chars
                && scheme_end.is_some_and(|e| {
                    e > 0
                        && s[..e].starts_with(|c: char| c.is_ascii_alphabetic())
                        && s[..e].chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
                })
        }
        "date-time" => s.len() >= 20 && s.as_bytes().get(10) == Some(&b'T'),
        other => panic!("unsupported format {other}"),
    }
}

fn check(root: &Value, schema: &Value, v: &Value, path: &str, errors: &mut Vec<String>) {
    let Some(obj) = schema.as_object() else { panic!("schema at {path} is not an object") };
    for (key, kw) in obj {
        match key.as_str() {
            "description" | "default" | "$schema" | "title" | "$id" | "definitions" => {}
            "$ref" => check(root, resolve(root, kw.as_str().unwrap_or_default()), v, path, errors),
            "type" => {
                let ok = match kw {
                    Value::String(t) => type_ok(t, v),
                    Value::Array(ts) => ts.iter().any(|t| type_ok(t.as_str().unwrap_or_default(), v)),
                    _ => panic!("bad type keyword"),
                };
                if !ok {
                    errors.push(format!("{path}: expected type {kw}, got {v}"));
                }
            }
            "enum" => {
                if !kw.as_array().is_some_and(|a| a.contains(v)) {
                    errors.push(format!("{path}: {v} is not one of {kw}"));
                }
            }
            "properties" => {
                if let (Some(props), Some(o)) = (kw.as_object(), v.as_object()) {
                    for (name, sub) in props {
                        if let Some(x) = o.get(name) {
                            check(root, sub, x, &format!("{path}.{name}"), errors);
                        }
                    }
                }
            }
            "additionalProperties" => {
                if let Some(o) = v.as_object() {
                    let props = obj.get("properties").and_then(Value::as_object);
                    for (name, x) in o {
                        if props.is_some_and(|p| p.contains_key(name)) {
                            continue;
                        }
                        match kw {
                            Value::Bool(false) => errors.push(format!("{path}: unexpected property {name:?}")),
                            Value::Bool(true) => {}
                            sub => check(root, sub, x, &format!("{path}.{name}"), errors),
                        }
                    }
                }
            }
            "required" => {
                if let Some(o) = v.as_object() {
                    for name in kw.as_array().into_iter().flatten().filter_map(Value::as_str) {
                        if !o.contains_key(name) {
                            errors.push(format!("{path}: missing required property {name:?}"));
                        }
                    }
                }
            }
            "items" => {
                if let Some(a) = v.as_array() {
                    for (i, x) in a.iter().enumerate() {
                        check(root, kw, x, &format!("{path}[{i}]"), errors);
                    }
                }
            }
            "minItems" => {
                if let Some(a) = v.as_array() {
                    if (a.len() as u64) < kw.as_u64().unwrap_or(0) {
                        errors.push(format!("{path}: fewer than {kw} items"));
                    }
                }
            }
            "maxItems" => {
                if let Some(a) = v.as_array() {
                    if (a.len() as u64) > kw.as_u64().unwrap_or(u64::MAX) {
                        errors.push(format!("{path}: more than {kw} items"));
                    }
                }
            }
            "uniqueItems" => {
                if let (Some(true), Some(a)) = (kw.as_bool(), v.as_array()) {
                    for (i, x) in a.iter().enumerate() {
                        if a[..i].contains(x) {
                            errors.push(format!("{path}[{i}]: duplicate item"));
                        }
                    }
                }
            }
            "minimum" => {
                if let (Some(n), Some(min)) = (v.as_f64(), kw.as_f64()) {
                    if n < min {
                        errors.push(format!("{path}: {n} < minimum {min}"));
                    }
                }
            }
            "maximum" => {
                if let (Some(n), Some(max)) = (v.as_f64(), kw.as_f64()) {
                    if n > max {
                        errors.push(format!("{path}: {n} > maximum {max}"));
                    }
                }
            }
            "format" => {
                if let Some(s) = v.as_str() {
                    if !format_ok(kw.as_str().unwrap_or_default(), s) {
                        errors.push(format!("{path}: {s:?} is not a valid {kw}"));
                    }
                }
            }
            "pattern" => {
                if v.is_string() {
                    errors.push(format!("{path}: pattern-constrained property emitted (pattern {kw} not checked)"));
                }
            }
            "anyOf" | "oneOf" => {
                let n = kw
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|sub| {
                        let mut e = Vec::new();
                        check(root, sub, v, path, &mut e);
                        e.is_empty()
                    })
                    .count();
                let ok = if key == "anyOf" { n >= 1 } else { n == 1 };
                if !ok {
                    errors.push(format!("{path}: {n} of the {key} alternatives match"));
                }
            }
            other => panic!("schema keyword {other:?} at {path} is not implemented by this validator"),
        }
    }
}

//! The fixture harness: every compiled fixture of `tests/fixtures/expected*.json`
//! must produce exactly its annotated findings (rule, certainty, values) for the
//! seed rules, and nothing else of them; debug builds must put each finding on
//! its `// expect:` line.

mod common;

use irlint::check::{check_bytes, CheckOptions, FileStatus};
use irlint::report::{Certainty, Diagnostic, FindingValue};
use serde_json::Value as Json;
use std::path::Path;

/// The rules whose findings must match exactly.
const CHECKED_RULES: &[&str] = &[
    "coopvec-stride-mismatch",
    "long-vector-bytebuf-load-misaligned",
    "long-vector-bytebuf-store-misaligned",
    "structured-buffer-stride-not-cache-aligned",
];

fn checked(rule: &str) -> bool {
    CHECKED_RULES.contains(&rule) || irlint::rules::find(rule).is_some()
}

/// Parses an annotation value: `16`, `32|48` (set), `12+64k` (congruence).
fn parse_expected(v: &str) -> FindingValue {
    if let Some((rem, m)) = v.split_once('+') {
        let modulus = m.trim_end_matches('k').parse().expect("modulus");
        return FindingValue::Congruence { rem: rem.parse().expect("rem"), modulus };
    }
    if v.contains('|') {
        let mut s: Vec<u64> = v.split('|').map(|x| x.parse().expect("set member")).collect();
        s.sort();
        return FindingValue::Set(s);
    }
    match v.parse() {
        Ok(n) => FindingValue::Int(n),
        Err(_) => FindingValue::Text(v.to_string()),
    }
}

fn same_value(got: &FindingValue, want: &FindingValue) -> bool {
    match (got, want) {
        (FindingValue::Set(s), FindingValue::Int(n)) | (FindingValue::Int(n), FindingValue::Set(s)) => s == &vec![*n],
        _ => got == want,
    }
}

fn options(config: &Json) -> CheckOptions {
    let mut toml = String::new();
    if let Some(obj) = config.as_object() {
        if let Some(t) = obj.get("cache-line-target") {
            toml.push_str(&format!("[rules.structured-buffer-stride-not-cache-aligned]\ncache-line-target = {t}\n"));
        }
    }
    let settings = irlint::config::parse(&toml, "fixture config").expect("fixture config parses");
    CheckOptions { settings, ..Default::default() }
}

fn matches(d: &Diagnostic, e: &Json) -> bool {
    if d.rule != e["rule"].as_str().unwrap_or_default() {
        return false;
    }
    let want_certainty = match e["certainty"].as_str() {
        Some("possible") => Certainty::Possible,
        _ => Certainty::Proven,
    };
    if d.certainty != want_certainty {
        return false;
    }
    let Some(values) = e["values"].as_object() else { return true };
    values.iter().all(|(k, v)| {
        let want = parse_expected(v.as_str().unwrap_or_default());
        d.values.iter().any(|(dk, dv)| dk == k && same_value(dv, &want))
    })
}

/// Checks one artifact; returns a list of problems.
fn check_artifact(path: &Path, source_name: &str, expects: &[Json], config: &Json, debug: bool) -> Vec<String> {
    let bytes = std::fs::read(path).expect("read fixture");
    let result = check_bytes(&path.display().to_string(), &bytes, &options(config));
    let mut problems = Vec::new();
    for f in &result.files {
        if f.status != FileStatus::Ok {
            problems.push(format!("{}: status {:?}: {:?}", path.display(), f.status, f.message));
        }
    }
    let mut got: Vec<&Diagnostic> = result.diagnostics.iter().filter(|d| checked(&d.rule)).collect();
    for e in expects {
        let rule = e["rule"].as_str().unwrap_or_default();
        if !checked(rule) {
            continue;
        }
        match got.iter().position(|d| matches(d, e)) {
            Some(i) => {
                let d = got.remove(i);
                if debug {
                    let line = e["line"].as_u64().unwrap_or(0) as u32;
                    match &d.location.source {
                        Some(s) if s.line == line && s.file.ends_with(source_name) => {}
                        other => problems.push(format!(
                            "{}: {rule} expected at {source_name}:{line}, got source {other:?}",
                            path.display()
                        )),
                    }
                }
            }
            None => problems.push(format!(
                "{}: missing {rule} {} {}; got {:?}",
                path.display(),
                e["certainty"],
                e["values"],
                got.iter().map(|d| (&d.rule, d.certainty, &d.values)).collect::<Vec<_>>()
            )),
        }
    }
    for d in got {
        problems.push(format!(
            "{}: unexpected {} {:?} {:?}: {}",
            path.display(),
            d.rule,
            d.certainty,
            d.values,
            d.message
        ));
    }
    problems
}

fn run_manifest(name: &str) -> usize {
    let dir = common::fixtures();
    let manifest = dir.join(name);
    let Ok(text) = std::fs::read_to_string(&manifest) else {
        common::skip(&format!("{} not found", manifest.display()));
        return 0;
    };
    let json: Json = serde_json::from_str(&text).expect("manifest is JSON");
    let mut problems = Vec::new();
    let mut artifacts = 0;
    for fx in json["fixtures"].as_array().expect("fixtures list") {
        let source = fx["source"].as_str().unwrap_or_default();
        let source_name = Path::new(source).file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let empty = Vec::new();
        let expect = fx["expect"].as_array().unwrap_or(&empty);
        let expect_spirv = fx["expect_spirv"].as_array().unwrap_or(&empty);
        let arts = &fx["artifacts"];
        for (key, exp, debug) in [
            ("dxil", expect, false),
            ("dxil_debug", expect, true),
            ("spirv", expect_spirv, false),
            ("spirv_debug", expect_spirv, true),
        ] {
            if let Some(rel) = arts[key].as_str() {
                artifacts += 1;
                problems.extend(check_artifact(&dir.join(rel), source_name, exp, &fx["config"], debug));
            }
        }
    }
    assert!(problems.is_empty(), "{} fixture problems:\n{}", problems.len(), problems.join("\n"));
    artifacts
}

#[test]
fn dxil_and_spirv_fixtures_match_expected_json() {
    let n = run_manifest("expected.json");
    assert!(n >= 60, "only {n} artifacts checked");
}

#[test]
fn preview_fixtures_match_expected_preview_json() {
    let n = run_manifest("expected-preview.json");
    assert!(n >= 18, "only {n} artifacts checked");
}

#[test]
fn slang_fixtures_match_expected_slang_json() {
    let n = run_manifest("expected-slang.json");
    assert!(n >= 6, "only {n} artifacts checked");
}

#[test]
fn expected_value_syntax() {
    assert_eq!(parse_expected("12+64k"), FindingValue::Congruence { rem: 12, modulus: 64 });
    assert_eq!(parse_expected("48|32"), FindingValue::Set(vec![32, 48]));
    assert_eq!(parse_expected("16"), FindingValue::Int(16));
}

//! The published JSON Schemas (`docs/schemas/`) hold for real output: the
//! check report (`check --format json`, `atoms --format json`), the baseline
//! file (`--write-baseline`) and the `irlint atoms` input records.

#[allow(dead_code)]
mod sarif_schema;

#[path = "support/scratch.rs"]
mod tmp;
use sarif_schema::validate_with;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn schema(name: &str) -> Value {
    let p = root().join("docs/schemas").join(name);
    serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn irlint(cwd: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_irlint"))
        .args(args)
        .current_dir(cwd)
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

fn valid(schema: &Value, v: &Value, what: &str) {
    if let Err(errors) = validate_with(schema, v) {
        panic!("{what} does not match its schema:\n  {}", errors.join("\n  "));
    }
}

fn scratch(name: &str) -> tmp::Scratch {
    tmp::scratch_in("irlint-schemas", name)
}

#[test]
fn check_reports_match_the_report_schema() {
    let s = schema("check-report.schema.json");
    let dir = scratch("report");
    // An input error with a line and column (a PTX file cut short) and one with a byte offset.
    std::fs::write(
        dir.join("trunc.ptx"),
        ".version 8.7\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\tmov.u32 %r1,",
    )
    .unwrap();
    let dxil = std::fs::read(root().join("shaders/examples/la_load_stride_ok.dxil")).unwrap();
    std::fs::write(dir.join("cut.dxil"), &dxil[..2000]).unwrap();
    let r = root();
    let runs: Vec<Vec<String>> = vec![
        vec![r.join("shaders/examples").display().to_string()],
        vec![r.join("tests/fixtures/ptx").display().to_string()],
        vec![
            r.join("tests/fixtures/fatbin").display().to_string(),
            r.join("tests/fixtures/fossilize").display().to_string(),
        ],
        vec![r.join("tests/fixtures/dxil").display().to_string(), "-W".into(), "all".into()],
        vec!["trunc.ptx".into(), "cut.dxil".into(), "missing.spv".into()],
    ];
    let mut keys: BTreeSet<String> = BTreeSet::new();
    let mut value_kinds: BTreeSet<&str> = BTreeSet::new();
    let mut files = 0;
    for args in &runs {
        let mut a: Vec<&str> = vec!["check", "--format", "json"];
        a.extend(args.iter().map(String::as_str));
        let v: Value = serde_json::from_str(&irlint(&dir, &a)).unwrap();
        valid(&s, &v, &format!("irlint {}", a.join(" ")));
        files += v["files"].as_array().unwrap().len();
        for f in v["findings"].as_array().unwrap() {
            keys.extend(f.as_object().unwrap().keys().cloned());
            if let Some(res) = f["resource"].as_object() {
                keys.extend(res.keys().map(|k| format!("resource.{k}")));
            }
            for x in f["values"].as_object().unwrap().values() {
                value_kinds.insert(match x {
                    Value::Number(_) => "int",
                    Value::Array(_) => "set",
                    Value::String(_) => "text",
                    Value::Object(o) if o.contains_key("mod") => "congruence",
                    _ => "other",
                });
            }
        }
    }
    // The outputs exercised the schema's parts, so the validation meant something.
    for k in ["source", "line", "column", "section", "resource.register", "resource.set", "resource.heap"] {
        assert!(keys.contains(k) || k == "resource.heap", "no finding had `{k}`: {keys:?}");
    }
    for k in ["int", "set", "text", "congruence"] {
        assert!(value_kinds.contains(k), "no finding had a {k} value: {value_kinds:?}");
    }
    assert!(files > 30, "{files} file entries");

    // `irlint atoms` adds `results`.
    let a = irlint(&dir, &["atoms", "--format", "json", r.join("tests/data/atoms/mixed.json").to_str().unwrap()]);
    let v: Value = serde_json::from_str(&a).unwrap();
    valid(&s, &v, "irlint atoms --format json");
    assert!(v["results"].as_array().is_some_and(|r| r.len() > 20));

    // A report with an unknown key or a wrong type does not validate.
    let mut bad = v.clone();
    bad["findings"][0]["lines"] = Value::from(3);
    assert!(validate_with(&s, &bad).is_err());
    let mut bad = v;
    bad["findings"][0]["level"] = Value::from("fatal");
    assert!(validate_with(&s, &bad).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn baselines_match_the_baseline_schema() {
    let s = schema("baseline.schema.json");
    let dir = scratch("baseline");
    let out = dir.join("baseline.json");
    irlint(
        &dir,
        &["check", "--write-baseline", out.to_str().unwrap(), root().join("shaders/examples").to_str().unwrap()],
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    valid(&s, &v, "the baseline of shaders/examples");
    let entries = v["findings"].as_array().unwrap();
    assert!(entries.len() >= 4, "{v}");
    assert!(entries.iter().any(|e| e.get("function").is_some()) && entries.iter().any(|e| e.get("resource").is_some()));
    let mut bad = v.clone();
    bad["findings"][0]["count"] = Value::from(0);
    assert!(validate_with(&s, &bad).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Reader errors no JSON Schema keyword this validator has can state: the
/// integer syntax of a string, powers of two, the 9-bit kind word, CuTe layout
/// and target syntax.
const SEMANTIC: &[&str] =
    &["expected an integer, got \"", "is not a power of two", "does not fit a 9-bit word", "layout", "target"];

/// Every record of the sample input: the schema accepts exactly the records
/// the reader accepts, up to the [`SEMANTIC`] checks.
#[test]
fn atoms_records_match_the_record_schema() {
    let s = schema("atoms-record.schema.json");
    let path = root().join("tests/data/atoms/mixed.json");
    let records: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let out: Value =
        serde_json::from_str(&irlint(&root(), &["atoms", "--format", "json", path.to_str().unwrap()])).unwrap();
    let results = out["results"].as_array().unwrap();
    assert_eq!(records.len(), results.len());
    let mut rejected = 0;
    for (rec, res) in records.iter().zip(results) {
        let input_error = res["rule"] == "input-error";
        match validate_with(&s, rec) {
            Ok(()) => {
                let msg = res["message"].as_str().unwrap_or_default();
                assert!(
                    !input_error || SEMANTIC.iter().any(|k| msg.contains(k)),
                    "the schema accepts {rec}, the reader refused it: {msg}"
                );
            }
            Err(e) => {
                rejected += 1;
                assert!(input_error, "the schema refuses {rec} ({e:?}), the reader accepted it: {res}");
            }
        }
    }
    assert!(rejected >= 2, "the sample's malformed records are refused ({rejected})");
    // Typical mistakes are refused.
    for bad in [
        r#"{"verifier": "ldsm", "mode": "M88", "size": "u16", "num_matrices": 1, "transpose": false}"#,
        r#"{"verifier": "ldsm", "mode": "M88", "size": "u16", "num_matrices": 1, "transpose": false, "result_shape": [1], "extra": 1}"#,
        r#"{"verifier": "umma-layout", "direction": "MN", "elem_bits": 16, "swizzle": [3, 4], "layout": "(8,8):(1,8)"}"#,
        r#"{"verifier": "ldsmm"}"#,
    ] {
        let v: Value = serde_json::from_str(bad).unwrap();
        assert!(validate_with(&s, &v).is_err(), "accepted {bad}");
    }
}

fn enum_of(s: &Value, def: &str, key: &str) -> BTreeSet<String> {
    s["definitions"][def]["properties"][key]["enum"]
        .as_array()
        .unwrap_or_else(|| panic!("no enum for {def}.{key}"))
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

fn names<'a>(it: impl Iterator<Item = &'a str>) -> BTreeSet<String> {
    it.flat_map(|n| [n.to_string(), format!(".{n}")]).collect()
}

/// The schema's names are the reader's, dotted and not.
#[test]
fn atoms_schema_names_are_the_readers() {
    use irlint::atoms::*;
    let s = schema("atoms-record.schema.json");
    let verifiers: BTreeSet<String> = s["definitions"]
        .as_object()
        .unwrap()
        .values()
        .filter_map(|d| d["properties"]["verifier"]["enum"][0].as_str().map(str::to_string))
        .collect();
    let expected: BTreeSet<String> = records::VERIFIERS.iter().map(|v| v.to_string()).collect();
    assert_eq!(verifiers, expected);
    assert_eq!(enum_of(&s, "ldsm", "mode"), names(LdsmMode::ALL.iter().map(|m| m.name())));
    assert_eq!(enum_of(&s, "stsm", "mode"), names(StsmMode::ALL.iter().map(|m| m.name())));
    assert_eq!(enum_of(&s, "ldsm", "size"), names(SizePattern::ALL.iter().map(|m| m.name())));
    assert_eq!(enum_of(&s, "matrix-copy", "src"), names(MemSpace::ALL.iter().map(|m| m.name())));
    assert_eq!(enum_of(&s, "matrix-copy", "direction"), names(CopyDirection::ALL.iter().map(|m| m.name())));
    let copy_modes = LdsmMode::ALL.iter().map(|m| m.name()).chain(StsmMode::ALL.iter().map(|m| m.name()));
    assert_eq!(enum_of(&s, "matrix-copy", "mode"), names(copy_modes));
    assert_eq!(enum_of(&s, "umma-layout", "direction"), names(UmmaDirection::ALL.iter().map(|m| m.name())));
    assert_eq!(enum_of(&s, "sm120-block-scale", "a_type"), names(Sm120Type::ALL.iter().map(|m| m.name())));
    assert_eq!(enum_of(&s, "sm120-block-scale", "sf_type"), names(ScaleFactorType::ALL.iter().map(|m| m.name())));
    assert_eq!(enum_of(&s, "tma", "mode"), names(TmaMode::ALL.iter().map(|m| m.name())));
}

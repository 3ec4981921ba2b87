//! Emitter tests on synthetic reports: human (insta), JSON shape, GitHub
//! (insta), SARIF (validated against the OASIS SARIF 2.1.0 schema).

mod common;
mod sarif_schema;

use irlint::check::{FileReport, FileStatus, InputKind};
use irlint::report::{
    self, Certainty, Diagnostic, FindingValue, Format, Level, Location, ResourceBinding, ResourceRef, RunReport,
    SourceLocation, Stats, INPUT_ERROR,
};
use std::process::Command;

fn g_buf() -> ResourceRef {
    ResourceRef {
        label: "g_Buf (t0 space0)".into(),
        name: Some("g_Buf".into()),
        class: "srv".into(),
        kind: "RawBuffer".into(),
        binding: ResourceBinding::Register { register: "t0".into(), space: 0, count: Some(1) },
        id: Some(0),
    }
}

/// A finding with debug info and the embedded source line.
fn with_source() -> Diagnostic {
    let mut d = Diagnostic::new(
        "long-vector-bytebuf-load-misaligned",
        Level::Warning,
        Certainty::Proven,
        "16-byte vector load at byte offset 12 mod 64 is never 16-byte aligned",
    )
    .value("offset", FindingValue::Congruence { rem: 12, modulus: 64 })
    .value("components", FindingValue::Int(8))
    .value("element", FindingValue::Text("f16".into()))
    .value("candidates", FindingValue::Set(vec![12, 76]))
    .help("round the offset up to a multiple of 16 bytes");
    d.location = Location {
        path: "build/shaders/lv_load.g.dxil".into(),
        function: Some("main".into()),
        instruction: Some(12),
        byte_offset: Some(0x0c84),
        value: Some("%5".into()),
        ir: Some(
            "%5 = call <8 x half> @dx.op.rawBufferVectorLoad.v8f16(i32 303, %dx.types.Handle %3, i32 %4, i32 0, i32 2)"
                .into(),
        ),
        resource: Some(g_buf()),
        source: Some(SourceLocation { file: "shaders/lv_load.hlsl".into(), line: 14, column: 22 }),
        inlined_from: vec![SourceLocation { file: "shaders/common.hlsli".into(), line: 3, column: 5 }],
        source_text: Some("    vector<half, 8> v = g_Buf.Load<vector<half, 8> >(tid * 64 + 12);".into()),
        ..Default::default()
    };
    d
}

/// An error in an embedded blob, without debug info.
fn without_source() -> Diagnostic {
    let mut d = Diagnostic::new(
        "coopvec-stride-mismatch",
        Level::Error,
        Certainty::Possible,
        "row-major matrix stride may be 40, but the natural stride of 4 x f16 rows is 16",
    )
    .value("stride", FindingValue::Set(vec![16, 40]))
    .value("expected", FindingValue::Int(16));
    d.notes.push("the stride comes from a phi of two constants".into());
    d.location = Location {
        path: "bin/game.exe".into(),
        blob_offset: Some(0x1a40),
        section: Some(".shaders".into()),
        function: Some("main".into()),
        instruction: Some(3),
        ..Default::default()
    };
    d
}

fn input_error() -> Diagnostic {
    let mut d = Diagnostic::new(INPUT_ERROR, Level::Error, Certainty::Proven, "cannot read: permission denied");
    d.location.path = "locked, file.dxil".into();
    d
}

fn file(path: &str, kind: InputKind, status: FileStatus, message: Option<&str>) -> FileReport {
    FileReport {
        path: path.into(),
        kind,
        status,
        message: message.map(str::to_string),
        blob_offset: None,
        section: None,
        entry: None,
        bytes: 100,
        modules: u32::from(status == FileStatus::Ok),
        spec_ids: Vec::new(),
    }
}

fn sample() -> RunReport {
    let mut blob = file("bin/game.exe", InputKind::Dxil, FileStatus::Ok, None);
    blob.blob_offset = Some(0x1a40);
    blob.section = Some(".shaders".into());
    let mut r = RunReport {
        files: vec![
            file("build/shaders/lv_load.g.dxil", InputKind::Dxil, FileStatus::Ok, None),
            file("bin/game.exe", InputKind::Binary, FileStatus::Ok, Some("1 embedded shader")),
            blob,
            file("old.dxbc", InputKind::Dxbc, FileStatus::Skipped, Some("legacy DXBC (SM 4/5), not analysed")),
            file("locked, file.dxil", InputKind::Binary, FileStatus::Error, Some("cannot read: permission denied")),
        ],
        diagnostics: vec![with_source(), without_source(), input_error()],
        stats: Stats {
            files: 4,
            modules: 2,
            bytes: 400,
            seconds: 0.25,
            slowest: vec![("bin/game.exe".into(), 0.125)],
            ..Default::default()
        },
    };
    r.sort();
    r
}

#[test]
fn human_with_source() {
    let r = RunReport {
        diagnostics: vec![with_source()],
        stats: Stats { files: 1, ..Default::default() },
        ..Default::default()
    };
    insta::assert_snapshot!(report::render(&r, Format::Human, false, false));
}

#[test]
fn human_without_source() {
    let r = RunReport {
        diagnostics: vec![without_source()],
        stats: Stats { files: 1, ..Default::default() },
        ..Default::default()
    };
    insta::assert_snapshot!(report::render(&r, Format::Human, false, false));
}

#[test]
fn human_full_report_with_stats() {
    insta::assert_snapshot!(report::render(&sample(), Format::Human, false, true));
}

#[test]
fn human_color_only_when_asked() {
    let r = sample();
    assert!(!report::render(&r, Format::Human, false, false).contains('\x1b'));
    assert!(report::render(&r, Format::Human, true, false).contains('\x1b'));
}

#[test]
fn sort_order_is_path_then_offset() {
    let r = sample();
    let paths: Vec<_> = r.diagnostics.iter().map(|d| d.location.path.as_str()).collect();
    assert_eq!(paths, ["bin/game.exe", "build/shaders/lv_load.g.dxil", "locked, file.dxil"]);
    let files: Vec<_> = r.files.iter().map(|f| (f.path.as_str(), f.blob_offset)).collect();
    assert_eq!(files[0], ("bin/game.exe", None));
    assert_eq!(files[1], ("bin/game.exe", Some(0x1a40)));
    assert_eq!(r.exit_code(), 2);
}

#[test]
fn exit_codes_from_levels() {
    let mut r = RunReport::default();
    assert_eq!(r.exit_code(), 0);
    let mut note = without_source();
    note.level = Level::Note;
    r.diagnostics.push(note);
    assert_eq!(r.exit_code(), 0, "notes do not fail the run");
    r.diagnostics.push(with_source());
    assert_eq!(r.exit_code(), 1);
    r.diagnostics.push(input_error());
    assert_eq!(r.exit_code(), 2);
}

#[test]
fn json_shape() {
    let text = report::render(&sample(), Format::Json, false, false);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let top: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
    let mut expect_top = vec!["files", "findings", "stats", "version"];
    expect_top.sort();
    assert_eq!(top, expect_top);
    assert_eq!(v["version"], 1);
    let findings = v["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 3);
    // Findings keep the deterministic order: bin/ < build/ < locked.
    let f = &findings[1];
    let mut keys: Vec<_> = f.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "blob_offset",
            "byte_offset",
            "certainty",
            "function",
            "help",
            "instruction",
            "level",
            "message",
            "path",
            "resource",
            "rule",
            "source",
            "value",
            "values"
        ]
    );
    assert_eq!(f["rule"], "long-vector-bytebuf-load-misaligned");
    assert_eq!(f["level"], "warning");
    assert_eq!(f["certainty"], "proven");
    assert_eq!(f["blob_offset"], serde_json::Value::Null);
    assert_eq!(f["function"], "main");
    assert_eq!(f["instruction"], 12);
    assert_eq!(f["byte_offset"], 0x0c84);
    assert_eq!(f["value"], "%5");
    assert_eq!(f["source"], serde_json::json!({"file": "shaders/lv_load.hlsl", "line": 14, "column": 22}));
    assert_eq!(f["values"]["offset"], serde_json::json!({"rem": 12, "mod": 64}));
    assert_eq!(f["values"]["components"], 8);
    assert_eq!(f["values"]["element"], "f16");
    assert_eq!(f["values"]["candidates"], serde_json::json!([12, 76]));
    assert_eq!(f["help"], "round the offset up to a multiple of 16 bytes");
    assert_eq!(
        f["resource"],
        serde_json::json!({"name": "g_Buf", "class": "srv", "kind": "RawBuffer", "register": "t0", "space": 0,
                           "count": 1, "id": 0, "label": "g_Buf (t0 space0)"})
    );
    assert_eq!(findings[0]["resource"], serde_json::Value::Null);
    // `values` keeps the diagnostic's order in the text.
    let i_offset = text.find("\"offset\"").unwrap();
    let i_components = text.find("\"components\"").unwrap();
    let i_element = text.find("\"element\"").unwrap();
    assert!(i_offset < i_components && i_components < i_element);
    // The blob finding.
    assert_eq!(findings[0]["blob_offset"], 0x1a40);
    assert_eq!(findings[0]["source"], serde_json::Value::Null);
    assert_eq!(findings[0]["certainty"], "possible");
    assert_eq!(findings[0]["help"], serde_json::Value::Null);
    // Tool-level outcomes are findings too.
    assert_eq!(findings[2]["rule"], "input-error");
    // Files.
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 5);
    assert_eq!(
        files[0],
        serde_json::json!({"path": "bin/game.exe", "kind": "binary", "status": "ok", "message": "1 embedded shader"})
    );
    assert_eq!(
        files[1],
        serde_json::json!({"path": "bin/game.exe", "kind": "dxil", "status": "ok", "message": null, "blob_offset": 0x1a40, "section": ".shaders"})
    );
    assert_eq!(files[3]["status"], "error");
    assert_eq!(files[4]["kind"], "dxbc");
    assert_eq!(files[4]["status"], "skipped");
    assert_eq!(v["stats"], serde_json::json!({"files": 4, "modules": 2, "bytes": 400, "seconds": 0.25}));
}

#[test]
fn github_annotations() {
    insta::assert_snapshot!(report::render(&sample(), Format::Github, false, false));
}

/// The SARIF log of a report with URIs relative to `root`.
fn sarif_in(r: &RunReport, root: &str) -> serde_json::Value {
    report::sarif::to_value_with(r, &report::sarif::Artifacts::new(Some(std::path::Path::new(root))))
}

#[test]
fn sarif_structure() {
    let v: serde_json::Value = serde_json::from_str(&report::render(&sample(), Format::Sarif, false, false)).unwrap();
    assert_eq!(v["version"], "2.1.0");
    let run = &v["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "irlint");
    assert_eq!(run["tool"]["driver"]["version"], irlint::VERSION);
    assert_eq!(run["tool"]["driver"]["rules"].as_array().unwrap().len(), irlint::rules::registry().len());
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "tool-level outcomes are notifications, not results");
    let blob = &results[0];
    assert_eq!(blob["ruleId"], "coopvec-stride-mismatch");
    assert_eq!(blob["level"], "error");
    assert_eq!(blob["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "bin/game.exe");
    assert_eq!(blob["locations"][0]["physicalLocation"]["region"]["byteOffset"], 0x1a40);
    assert_eq!(blob["locations"][0]["logicalLocations"][0], serde_json::json!({"name": "main", "kind": "function"}));
    assert_eq!(blob["locations"][0]["logicalLocations"][1]["name"], "instruction 3");
    assert_eq!(blob["properties"]["values"]["stride"], serde_json::json!([16, 40]));
    assert_eq!(blob["properties"]["certainty"], "possible");
    assert!(blob.get("relatedLocations").is_none(), "no source: the bytecode location is the primary one");
    let inv = &run["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    let notes = inv["toolExecutionNotifications"].as_array().unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0]["descriptor"]["id"], "input-error");
    assert_eq!(notes[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "locked%2C%20file.dxil");
    let ok = RunReport { diagnostics: vec![with_source()], ..Default::default() };
    let v = report::sarif::to_value(&ok);
    assert_eq!(v["runs"][0]["invocations"][0]["executionSuccessful"], true);
}

#[test]
fn sarif_rules_have_help_and_no_invented_uris() {
    let v = report::sarif::to_value(&sample());
    let driver = &v["runs"][0]["tool"]["driver"];
    assert!(driver.get("informationUri").is_none());
    for (r, meta) in driver["rules"].as_array().unwrap().iter().zip(irlint::rules::registry()) {
        assert_eq!(r["id"], meta.id);
        assert!(r.get("helpUri").is_none(), "{r}");
        assert_eq!(r["help"]["markdown"], meta.doc.trim(), "{}", meta.id);
        assert_eq!(r["help"]["text"], meta.doc.trim(), "{}", meta.id);
        let full = r["fullDescription"]["text"].as_str().unwrap();
        assert!(!full.is_empty() && !full.contains('\n'), "{}: {full}", meta.id);
    }
    assert!(!v.to_string().contains("github.com/irlint"), "no made-up home page");
}

#[test]
fn sarif_source_region_first_bytecode_related() {
    let r = RunReport { diagnostics: vec![with_source()], ..Default::default() };
    let v = sarif_in(&r, "/work/repo");
    let run = &v["runs"][0];
    assert_eq!(run["originalUriBaseIds"], serde_json::json!({"%SRCROOT%": {"uri": "file:///work/repo/"}}));
    let res = &run["results"][0];
    let locs = res["locations"].as_array().unwrap();
    assert_eq!(locs.len(), 1);
    let src = &locs[0]["physicalLocation"];
    assert_eq!(src["artifactLocation"], serde_json::json!({"uri": "shaders/lv_load.hlsl", "uriBaseId": "%SRCROOT%"}));
    assert_eq!(src["region"]["startLine"], 14);
    assert_eq!(src["region"]["startColumn"], 22);
    let related = res["relatedLocations"].as_array().unwrap();
    assert_eq!(related.len(), 1);
    let bc = &related[0];
    assert_eq!(
        bc["physicalLocation"]["artifactLocation"],
        serde_json::json!({"uri": "build/shaders/lv_load.g.dxil", "uriBaseId": "%SRCROOT%"})
    );
    assert_eq!(bc["physicalLocation"]["region"]["byteOffset"], 0x0c84);
    assert_eq!(bc["logicalLocations"][1], serde_json::json!({"name": "instruction 12", "decoratedName": "%5"}));
    assert_eq!(bc["message"]["text"], "bytecode: function main, instruction 12 (%5), byte offset 0xC84");
    assert_eq!(res["properties"]["resource"]["label"], "g_Buf (t0 space0)");
    assert!(res["message"]["text"].as_str().unwrap().contains("\nresource: g_Buf (t0 space0)"));
}

#[test]
fn sarif_uris_relative_to_the_working_directory() {
    let mut d = without_source();
    d.location.path = "/work/repo/bin/../bin/game.exe".into();
    let mut outside = without_source();
    outside.location.path = "/opt/games/x y.exe".into();
    let mut dotted = without_source();
    dotted.location.path = "./a/b.dxil".into();
    let mut up = without_source();
    up.location.path = "../shared/c.spv".into();
    let mut windows = without_source();
    windows.location.path = "C:\\build\\a.dxil".into();
    let r = RunReport { diagnostics: vec![d, outside, dotted, up, windows], ..Default::default() };
    let v = sarif_in(&r, "/work/repo");
    let uris: Vec<_> = v["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["locations"][0]["physicalLocation"]["artifactLocation"].clone())
        .collect();
    assert_eq!(
        uris,
        [
            serde_json::json!({"uri": "bin/game.exe", "uriBaseId": "%SRCROOT%"}),
            serde_json::json!({"uri": "file:///opt/games/x%20y.exe"}),
            serde_json::json!({"uri": "a/b.dxil", "uriBaseId": "%SRCROOT%"}),
            serde_json::json!({"uri": "file:///work/shared/c.spv"}),
            serde_json::json!({"uri": "file:///C:/build/a.dxil"}),
        ]
    );
    sarif_schema::validate(&v).unwrap();
}

#[test]
fn sarif_fingerprints_on_every_result_and_stable() {
    let a = sarif_in(&sample(), "/work/repo");
    let fps = |v: &serde_json::Value| -> Vec<String> {
        v["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["partialFingerprints"]["irlint/v1"].as_str().expect("fingerprint").to_string())
            .collect()
    };
    let first = fps(&a);
    assert_eq!(first.len(), 2);
    assert_ne!(first[0], first[1]);
    // Another run, another checkout, a reworded message, the line moved: same fingerprints.
    let mut r = sample();
    for d in &mut r.diagnostics {
        d.message.push_str(" (reworded)");
        if let Some(s) = &mut d.location.source {
            s.line += 10;
        }
    }
    assert_eq!(fps(&sarif_in(&r, "/elsewhere/checkout")), first);
    // A different value is a different finding.
    let mut r = sample();
    r.diagnostics[0].values[1].1 = FindingValue::Int(32);
    assert_ne!(fps(&sarif_in(&r, "/work/repo"))[0], first[0]);
    // Two findings that agree on everything the fingerprint reads are numbered.
    let r = RunReport { diagnostics: vec![without_source(), without_source()], ..Default::default() };
    let twins = fps(&sarif_in(&r, "/work/repo"));
    assert_eq!(twins[0].split(':').next(), twins[1].split(':').next());
    assert!(twins[0].ends_with(":1") && twins[1].ends_with(":2"), "{twins:?}");
}

#[test]
fn sarif_validates_against_schema() {
    let v: serde_json::Value = serde_json::from_str(&report::render(&sample(), Format::Sarif, false, false)).unwrap();
    sarif_schema::validate(&v).unwrap();
    // An empty run too.
    let empty = serde_json::from_str(&report::render(&RunReport::default(), Format::Sarif, false, false)).unwrap();
    sarif_schema::validate(&empty).unwrap();
}

#[test]
fn sarif_schema_validator_rejects_bad_logs() {
    let good: serde_json::Value =
        serde_json::from_str(&report::render(&sample(), Format::Sarif, false, false)).unwrap();
    let mut bad = good.clone();
    bad["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(sarif_schema::validate(&bad).is_err());
    let mut bad = good.clone();
    bad["runs"][0]["tool"]["driver"].as_object_mut().unwrap().remove("name");
    assert!(sarif_schema::validate(&bad).is_err());
    let mut bad = good.clone();
    bad["runs"][0]["results"][1]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0.into();
    assert!(sarif_schema::validate(&bad).is_err());
    let mut bad = good;
    bad["runs"][0]["invocations"][0]["unexpected"] = true.into();
    assert!(sarif_schema::validate(&bad).is_err());
}

#[test]
fn human_hlsl_compile_error_keeps_dxc_output() {
    let mut d = Diagnostic::new(
        INPUT_ERROR,
        Level::Error,
        Certainty::Proven,
        "HLSL compilation failed: use of undeclared identifier 'x'",
    );
    d.location.path = "shaders/a.hlsl".into();
    d.location.source = Some(SourceLocation { file: "shaders/a.hlsl".into(), line: 9, column: 5 });
    d.notes.push("DXC output:\nshaders/a.hlsl:9:5: error: use of undeclared identifier 'x'\n    x = 1;\n    ^".into());
    let r = RunReport { diagnostics: vec![d], stats: Stats { files: 1, ..Default::default() }, ..Default::default() };
    insta::assert_snapshot!(report::render(&r, Format::Human, false, false));
}

/// Runs `irlint check` on the paths and parses its output in `format`.
fn check_output(paths: &[std::path::PathBuf], format: &str) -> serde_json::Value {
    check_output_with(paths, format, &[])
}

fn check_output_with(paths: &[std::path::PathBuf], format: &str, extra: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_irlint"))
        .arg("check")
        .args(paths)
        .args(["--format", format])
        .args(extra)
        .current_dir(common::root())
        .output()
        .expect("run irlint");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{format} output parses: {e}"))
}

/// The inputs of the one-run tests: the fixtures, and the shared corpus and
/// fixtures when present (a visible skip message otherwise).
fn run_inputs() -> Vec<std::path::PathBuf> {
    let mut paths = vec![common::fixtures()];
    paths.extend(common::shared("corpus"));
    paths.extend(common::shared("fixtures"));
    paths
}

/// Pairs of items that agree on everything once `strip` has removed the message.
fn identical_but_message(items: &[serde_json::Value], strip: impl Fn(&mut serde_json::Value)) -> Vec<String> {
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut dups = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let mut key = item.clone();
        strip(&mut key);
        let key = key.to_string();
        if let Some(j) = seen.insert(key.clone(), i) {
            dups.push(format!("#{j} and #{i}: {key}"));
        }
    }
    dups
}

#[test]
fn no_two_findings_differ_only_in_message() {
    let paths = run_inputs();
    let json = check_output(&paths, "json");
    let findings = json["findings"].as_array().expect("findings");
    assert!(findings.len() > 20, "the fixtures produce findings");
    let dups = identical_but_message(findings, |f| {
        f.as_object_mut().unwrap().remove("message");
    });
    assert!(dups.is_empty(), "JSON findings identical apart from the message:\n{}", dups.join("\n"));
    let sarif = check_output(&paths, "sarif");
    sarif_schema::validate(&sarif).unwrap_or_else(|e| panic!("SARIF of the fixtures: {}", e.join("\n")));
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert!(results.iter().all(|r| r["partialFingerprints"]["irlint/v1"].is_string()));
    // Another run, on one thread: the same fingerprints.
    let again = check_output_with(&paths, "sarif", &["-j", "1"]);
    let fingerprints = |v: &serde_json::Value| -> Vec<serde_json::Value> {
        v["runs"][0]["results"].as_array().unwrap().iter().map(|r| r["partialFingerprints"].clone()).collect()
    };
    assert_eq!(fingerprints(&again), fingerprints(&sarif));
    let rule_findings: Vec<_> =
        findings.iter().filter(|f| !report::run::is_tool_outcome(f["rule"].as_str().unwrap())).collect();
    assert_eq!(results.len(), rule_findings.len());
    let dups = identical_but_message(results, |r| {
        let o = r.as_object_mut().unwrap();
        o.remove("message");
        o.remove("partialFingerprints");
    });
    assert!(dups.is_empty(), "SARIF results identical apart from the message:\n{}", dups.join("\n"));
    // Structured-buffer findings name their resource, in JSON and SARIF.
    for (f, r) in rule_findings.into_iter().zip(results) {
        if f["rule"] == "structured-buffer-stride-not-cache-aligned" {
            let res = &f["resource"];
            assert!(res["class"].is_string() && res["kind"] == "StructuredBuffer", "{f}");
            assert!(res.get("register").is_some() || res.get("set").is_some() || res.get("heap").is_some(), "{f}");
            assert_eq!(r["properties"]["resource"], *res);
            let label = res["label"].as_str().unwrap();
            assert!(r["message"]["text"].as_str().unwrap().contains(label), "{r}");
        }
    }
}

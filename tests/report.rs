//! Emitter tests on synthetic reports: human (insta), JSON shape, GitHub
//! (insta), SARIF (validated against the OASIS SARIF 2.1.0 schema).

mod sarif_schema;

use irlint::check::{FileReport, FileStatus, InputKind};
use irlint::report::{
    self, Certainty, Diagnostic, FindingValue, Format, Level, Location, RunReport, SourceLocation, Stats, INPUT_ERROR,
};

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
        ir: Some(
            "%5 = call <8 x half> @dx.op.rawBufferVectorLoad.v8f16(i32 303, %dx.types.Handle %3, i32 %4, i32 0, i32 2)"
                .into(),
        ),
        resource: Some("g_Buf (t0 space0)".into()),
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
        bytes: 100,
        modules: u32::from(status == FileStatus::Ok),
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
            "certainty",
            "function",
            "help",
            "instruction",
            "level",
            "message",
            "path",
            "rule",
            "source",
            "values"
        ]
    );
    assert_eq!(f["rule"], "long-vector-bytebuf-load-misaligned");
    assert_eq!(f["level"], "warning");
    assert_eq!(f["certainty"], "proven");
    assert_eq!(f["blob_offset"], serde_json::Value::Null);
    assert_eq!(f["function"], "main");
    assert_eq!(f["instruction"], 12);
    assert_eq!(f["source"], serde_json::json!({"file": "shaders/lv_load.hlsl", "line": 14, "column": 22}));
    assert_eq!(f["values"]["offset"], serde_json::json!({"rem": 12, "mod": 64}));
    assert_eq!(f["values"]["components"], 8);
    assert_eq!(f["values"]["element"], "f16");
    assert_eq!(f["values"]["candidates"], serde_json::json!([12, 76]));
    assert_eq!(f["help"], "round the offset up to a multiple of 16 bytes");
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
    let src = &results[1];
    assert_eq!(src["locations"].as_array().unwrap().len(), 2);
    assert_eq!(src["locations"][1]["physicalLocation"]["artifactLocation"]["uri"], "shaders/lv_load.hlsl");
    assert_eq!(src["locations"][1]["physicalLocation"]["region"]["startLine"], 14);
    assert_eq!(src["locations"][1]["physicalLocation"]["region"]["startColumn"], 22);
    let inv = &run["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    let notes = inv["toolExecutionNotifications"].as_array().unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0]["descriptor"]["id"], "input-error");
    assert_eq!(notes[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "locked%2C%20file.dxil");
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
    bad["runs"][0]["results"][1]["locations"][1]["physicalLocation"]["region"]["startLine"] = 0.into();
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

//! The `irlint` binary: exit codes, formats, `--output`, config errors,
//! `rules`/`explain`, `dump --blobs`.

mod common;

use common::{irlint, run, shared_dir, TempDir};
use std::path::{Path, PathBuf};

/// A legacy SM5 DXBC container (one SHEX part): recognised and skipped by every front end.
fn legacy_dxbc() -> Vec<u8> {
    let part = [1u8, 2, 3, 4];
    let total = 32 + 4 + 8 + part.len();
    let mut out = b"DXBC".to_vec();
    out.extend([0x11u8; 16]);
    out.extend(1u16.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    out.extend((total as u32).to_le_bytes());
    out.extend(1u32.to_le_bytes());
    out.extend(36u32.to_le_bytes());
    out.extend(b"SHEX");
    out.extend((part.len() as u32).to_le_bytes());
    out.extend(part);
    out
}

/// A directory whose check result does not depend on the front ends' progress:
/// a legacy container (skipped), a text file (no shader), and a missing input.
fn stable_inputs(tag: &str) -> TempDir {
    let d = TempDir::new(tag);
    std::fs::create_dir_all(d.path().join("shaders/.git")).unwrap();
    std::fs::write(d.path().join("shaders/old.dxbc"), legacy_dxbc()).unwrap();
    std::fs::write(d.path().join("shaders/README.txt"), b"nothing to see").unwrap();
    std::fs::write(d.path().join("shaders/.git/config"), b"hidden").unwrap();
    d
}

fn stable_check(d: &TempDir, extra: &[&str]) -> (i32, String, String) {
    run(irlint().current_dir(d.path()).args(["check", "shaders", "missing.spv", "--no-progress"]).args(extra))
}

/// The JSON text with the timing (the only varying figure) zeroed.
fn zero_seconds(json: &str) -> String {
    json.lines()
        .map(|l| match l.find("\"seconds\": ") {
            Some(i) => format!("{}\"seconds\": 0", &l[..i]),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        .replace("(os error 2)", "(os error N)")
}

#[test]
fn empty_directory_exits_0_with_a_warning() {
    let d = TempDir::new("empty");
    let (code, out, err) = run(irlint().args(["check"]).arg(d.path()));
    assert_eq!(code, 0);
    assert_eq!(out, "0 errors, 0 warnings in 0 files\n");
    assert_eq!(err, format!("warning: no input files found in {}\n", d.path().display()));
}

#[test]
fn missing_file_exits_2_and_others_are_still_reported() {
    let d = stable_inputs("missing");
    let (code, out, _) = stable_check(&d, &["--format", "json"]);
    assert_eq!(code, 2);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let files: Vec<_> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap().to_string(), f["status"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(
        files,
        [
            ("missing.spv".to_string(), "error".to_string()),
            ("shaders/README.txt".to_string(), "skipped".to_string()),
            ("shaders/old.dxbc".to_string(), "skipped".to_string()),
        ]
    );
    assert_eq!(v["findings"][0]["rule"], "input-error");
    assert_eq!(v["findings"][0]["path"], "missing.spv");
    assert_eq!(v["stats"]["files"], 3);
}

#[test]
fn human_output_snapshot() {
    let d = stable_inputs("human");
    let (code, out, err) = stable_check(&d, &[]);
    assert_eq!(code, 2);
    assert_eq!(err, "", "no progress bar or noise on stderr when it is not a terminal");
    let out = out.replace("(os error 2)", "(os error N)");
    insta::assert_snapshot!(out);
}

#[test]
fn json_output_snapshot() {
    let d = stable_inputs("json");
    let (_, out, _) = stable_check(&d, &["--format", "json"]);
    insta::assert_snapshot!(zero_seconds(&out));
}

#[test]
fn github_output_snapshot_and_auto_detection() {
    let d = stable_inputs("github");
    let (code, explicit, _) = stable_check(&d, &["--format", "github"]);
    assert_eq!(code, 2);
    let (_, auto, _) =
        run(irlint().current_dir(d.path()).env("GITHUB_ACTIONS", "true").args(["check", "shaders", "missing.spv"]));
    assert_eq!(explicit, auto, "GITHUB_ACTIONS=true selects the github format");
    insta::assert_snapshot!(explicit.replace("(os error 2)", "(os error N)"));
}

#[test]
fn sarif_output_has_notification_for_input_error() {
    let d = stable_inputs("sarif");
    let (code, out, _) = stable_check(&d, &["--format", "sarif"]);
    assert_eq!(code, 2);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["version"], "2.1.0");
    let inv = &v["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    assert_eq!(inv["toolExecutionNotifications"][0]["descriptor"]["id"], "input-error");
    assert_eq!(
        inv["toolExecutionNotifications"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "missing.spv"
    );
}

#[test]
fn output_file_is_written_atomically() {
    let d = stable_inputs("output");
    let report = d.path().join("out/report.json");
    std::fs::create_dir_all(report.parent().unwrap()).unwrap();
    std::fs::write(&report, b"old contents").unwrap();
    let (code, out, _) = stable_check(&d, &["--format", "json", "--output", report.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert_eq!(out, "", "the report goes to the file, not stdout");
    let written = std::fs::read_to_string(&report).unwrap();
    let v: serde_json::Value = serde_json::from_str(&written).unwrap();
    assert_eq!(v["version"], 1);
    let left: Vec<_> = std::fs::read_dir(report.parent().unwrap()).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(left, ["report.json"], "no temporary file is left behind");
    // A directory that does not exist: exit 2, nothing created.
    let bad = d.path().join("nope/report.json");
    let (code, _, err) = stable_check(&d, &["--output", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot write"), "{err}");
}

#[test]
fn timings_go_to_stderr_for_machine_formats() {
    let d = stable_inputs("stats");
    let (_, out, err) = stable_check(&d, &["--format", "json", "--timings"]);
    serde_json::from_str::<serde_json::Value>(&out).unwrap();
    assert!(err.contains("files:     3"), "{err}");
    assert!(err.contains("modules/s:") && err.contains("MB/s:") && err.contains("slowest:"), "{err}");
    let (_, out, _) = stable_check(&d, &["--timings"]);
    assert!(out.contains("\ntimings:\n  files:     3\n"), "{out}");
    // The hidden, deprecated `--stats` spelling still works.
    let (_, out, _) = stable_check(&d, &["--stats"]);
    assert!(out.contains("\ntimings:\n  files:     3\n"), "{out}");
}

#[test]
fn parallel_runs_are_deterministic() {
    let d = stable_inputs("jobs");
    for i in 0..20 {
        std::fs::write(d.path().join(format!("shaders/f{i:02}.bin")), vec![i as u8; 100 + i]).unwrap();
        std::fs::write(d.path().join(format!("shaders/l{i:02}.dxbc")), legacy_dxbc()).unwrap();
    }
    let (_, one, _) = stable_check(&d, &["--format", "json", "-j", "1"]);
    let (_, four, _) = stable_check(&d, &["--format", "json", "-j", "4"]);
    assert_eq!(zero_seconds(&one), zero_seconds(&four));
    let v: serde_json::Value = serde_json::from_str(&one).unwrap();
    assert_eq!(v["stats"]["files"], 43);
}

#[test]
fn config_errors_exit_2() {
    let d = stable_inputs("config");
    // --config that does not exist.
    let (code, out, err) = stable_check(&d, &["--config", "nope.toml"]);
    assert_eq!((code, out.as_str()), (2, ""), "nothing is checked");
    assert!(err.contains("nope.toml"), "{err}");
    // --config that is not TOML.
    std::fs::write(d.path().join("bad.toml"), "[rules\n").unwrap();
    let (code, _, err) = stable_check(&d, &["--config", "bad.toml"]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.toml"), "{err}");
    // A malformed irlint.toml found by discovery: its inputs are errors, the others still checked.
    std::fs::write(d.path().join("shaders/irlint.toml"), "[hlsl]\nprofile = 3\n").unwrap();
    let (code, out, _) = stable_check(&d, &["--format", "json"]);
    assert_eq!(code, 2);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let old = v["files"].as_array().unwrap().iter().find(|f| f["path"] == "shaders/old.dxbc").unwrap();
    assert_eq!(old["status"], "error");
    assert_eq!(old["message"], "not checked: configuration error in shaders/irlint.toml", "{old}");
    // The error itself is reported once, at the config's path.
    let errs: Vec<&serde_json::Value> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["message"].as_str().unwrap().starts_with("configuration error"))
        .collect();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0]["path"], "shaders/irlint.toml");
    assert!(errs[0]["message"].as_str().unwrap().contains("hlsl.profile"), "{}", errs[0]);
}

#[test]
fn bad_arguments_exit_2() {
    assert_eq!(run(irlint().args(["check"])).0, 2, "no PATH");
    assert_eq!(run(irlint().args(["check", ".", "--format", "xml"])).0, 2);
    assert_eq!(run(irlint().args(["check", ".", "--spec-constant", "x=1"])).0, 2);
    assert_eq!(run(irlint().args(["frobnicate"])).0, 2);
}

#[test]
fn unknown_rule_override_exits_2_when_rules_exist() {
    if irlint::rules::registry().is_empty() {
        common::skip("the rule registry is still empty");
        return;
    }
    let d = stable_inputs("override");
    let (code, out, _) = stable_check(&d, &["-D", "no-such-rule"]);
    assert_eq!((code, out.as_str()), (2, ""));
}

#[test]
fn rules_and_explain() {
    let (code, out, _) = run(irlint().arg("rules"));
    assert_eq!(code, 0);
    let reg = irlint::rules::registry();
    assert_eq!(out.lines().count(), reg.len());
    for (line, r) in out.lines().zip(reg) {
        assert!(line.starts_with(r.id), "{line}");
        assert!(line.contains(r.summary), "{line}");
    }
    if let Some(r) = reg.first() {
        let (code, out, _) = run(irlint().args(["explain", r.id]));
        assert_eq!(code, 0);
        assert!(out.starts_with(r.id));
    }
    let (code, out, _) = run(irlint().args(["explain", "input-error"]));
    assert_eq!(code, 0);
    assert!(out.contains("exit status is 2"));
    let (code, out, err) = run(irlint().args(["explain", "no-such-rule"]));
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("unknown rule `no-such-rule`"), "{err}");
}

#[test]
fn hlsl_without_dxc_is_an_error_unless_skip_hlsl() {
    let d = TempDir::new("hlsl");
    std::fs::create_dir_all(d.path().join("src")).unwrap();
    std::fs::write(d.path().join("src/a.hlsl"), "// irlint: -T cs_6_9 -E main\n[numthreads(1,1,1)] void main() {}\n")
        .unwrap();
    std::fs::write(d.path().join("src/common.hlsli"), "#define X 1\n").unwrap();
    let missing = d.path().join("no-such-dir");
    // Named explicitly: exit 2 with what was searched and how to opt out.
    let (code, out, _) = run(irlint().current_dir(d.path()).args(["check", "src/a.hlsl", "--dxc"]).arg(&missing));
    assert_eq!(code, 2);
    assert!(out.contains("error[input-error]: HLSL input needs DXC"), "{out}");
    assert!(out.contains("pass --skip-hlsl"), "{out}");
    if cfg!(feature = "dxc") {
        assert!(out.contains("searched --dxc"), "{out}");
        assert!(out.contains("IRLINT_DXC=PATH"), "{out}");
    } else {
        assert!(out.contains("without the `dxc` feature"), "{out}");
    }
    // Found by a walk: a cook step must not pass because the compiler is missing.
    let (code, out, _) =
        run(irlint().current_dir(d.path()).args(["check", "src", "--format", "json", "--dxc"]).arg(&missing));
    assert_eq!(code, 2, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["files"][0]["path"], "src/a.hlsl");
    assert_eq!(v["files"][0]["status"], "error");
    assert_eq!(v["files"][1]["message"], "HLSL include file, not compiled on its own");
    // Opted out: skipped with the reason, exit 0, and the human output lists it.
    for args in [vec!["--skip-hlsl"], vec![]] {
        if args.is_empty() {
            std::fs::write(d.path().join("irlint.toml"), "[hlsl]\nskip = true\n").unwrap();
        }
        let (code, out, _) = run(irlint()
            .current_dir(d.path())
            .args(["check", "src", "--format", "json", "--dxc"])
            .arg(&missing)
            .args(&args));
        assert_eq!(code, 0, "{args:?}: {out}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["files"][0]["status"], "skipped");
        assert_eq!(v["files"][0]["kind"], "hlsl");
        assert!(v["files"][0]["message"].as_str().unwrap().starts_with("not compiled: HLSL input needs DXC"));
    }
    let (code, out, _) = run(irlint().current_dir(d.path()).args(["check", "src", "--dxc"]).arg(&missing));
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("0 errors, 0 warnings in 2 files (2 skipped)\nskipped:\n"), "{out}");
    assert!(out.contains("  src/a.hlsl: not compiled: HLSL input needs DXC"), "{out}");
    assert!(out.contains("  src/common.hlsli: HLSL include file, not compiled on its own\n"), "{out}");
}

#[test]
fn files_named_as_shaders_must_hold_one() {
    let d = TempDir::new("garbage");
    std::fs::write(d.path().join("empty.dxil"), b"").unwrap();
    std::fs::write(d.path().join("text.spv"), b"not a shader\n").unwrap();
    std::fs::write(d.path().join("noise.cso"), [0x13u8, 0x37, 0xC0, 0xFF, 0xEE, 0, 1, 2, 3]).unwrap();
    std::fs::write(d.path().join("notes.txt"), b"hello\n").unwrap();
    std::fs::write(
        d.path().join("ok.spv"),
        std::fs::read(common::fixtures().join("spirv/sb_heap_stride24.spv")).unwrap(),
    )
    .unwrap();
    let (code, out, _) = run(irlint().current_dir(d.path()).args(["check", ".", "--format", "json"]));
    assert_eq!(code, 2, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let status = |p: &str| {
        let f = v["files"].as_array().unwrap().iter().find(|f| f["path"] == p).unwrap_or_else(|| panic!("{p}"));
        (f["status"].as_str().unwrap().to_string(), f["message"].as_str().unwrap_or("").to_string())
    };
    let (s, m) = status("./empty.dxil");
    assert_eq!(
        (s.as_str(), m.as_str()),
        ("error", "empty file: a .dxil input must hold a DXBC container (starting with `DXBC`) or LLVM bitcode")
    );
    let (s, m) = status("./text.spv");
    assert_eq!(s, "error");
    assert!(m.ends_with("it holds text (first bytes at offset 0: 6E 6F 74 20 61 20 73 68)"), "{m}");
    let (s, m) = status("./noise.cso");
    assert_eq!(s, "error");
    assert!(m.contains("unrecognised bytes (first bytes at offset 0: 13 37 C0 FF EE 00 01 02)"), "{m}");
    // Other files are still skipped or checked.
    assert_eq!(status("./notes.txt").0, "skipped");
    assert_eq!(status("./ok.spv").0, "ok");
    // Human output: each error once, counted apart from findings.
    let (code, out, _) = run(irlint().current_dir(d.path()).args(["check", "."]));
    assert_eq!(code, 2);
    assert_eq!(out.matches("empty file: a .dxil input").count(), 1, "{out}");
    assert!(
        out.contains(" 3 input errors in 5 files (1 skipped)\nskipped:\n  ./notes.txt: no embedded shader found\n"),
        "{out}"
    );
}

#[test]
fn dump_blobs_lists_offsets() {
    let d = TempDir::new("dump");
    let spv =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/lv_load_aligned_const.spv")).unwrap();
    let mut file = vec![0xEEu8; 5];
    file.extend(&spv);
    file.extend([0xEE; 3]);
    file.extend(legacy_dxbc());
    std::fs::write(d.path().join("pack.bin"), &file).unwrap();
    let (code, out, _) = run(irlint().current_dir(d.path()).args(["dump", "--blobs", "pack.bin"]));
    assert_eq!(code, 0);
    let off2 = 5 + spv.len() + 3;
    let expected = format!(
        "pack.bin: 2 embedded shaders\n  offset 0x00000005  size {:>9}  spirv \n  offset 0x{:08X}  size {:>9}  dxbc  \n",
        spv.len(),
        off2,
        legacy_dxbc().len()
    );
    assert_eq!(out, expected);
    let (_, out, _) = run(irlint().current_dir(d.path()).args(["dump", "--blobs", "--format", "json", "pack.bin"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["files"][0]["blobs"][1],
        serde_json::json!({"offset": off2, "size": legacy_dxbc().len(), "kind": "dxbc", "section": null})
    );
    let (code, _, _) = run(irlint().current_dir(d.path()).args(["dump", "missing.bin"]));
    assert_eq!(code, 2);
}

/// Compiles every `fixtures/hlsl/*.hlsl` with the arguments of its `// compile:`
/// line through the DXC named by `$IRLINT_DXC`, then checks one through the CLI.
#[test]
fn hlsl_fixtures_compile_when_irlint_dxc_is_set() {
    let Some(dxc_path) = std::env::var_os("IRLINT_DXC").map(PathBuf::from) else {
        common::skip("IRLINT_DXC is not set (point it at libdxcompiler.so to compile the HLSL fixtures)");
        return;
    };
    let Some(shared) = shared_dir() else {
        common::skip_shared("../shared not found (set IRLINT_SHARED)");
        return;
    };
    use irlint::input::dxc::{parse_args, Compiler};
    let compiler = match Compiler::load(Some(&dxc_path)) {
        Ok(c) => c,
        Err(e) => panic!("IRLINT_DXC is set but DXC does not load: {e:?}"),
    };
    let mut dir: Vec<_> =
        std::fs::read_dir(shared.join("fixtures/hlsl")).unwrap().flatten().map(|e| e.path()).collect();
    dir.sort();
    let mut failures = Vec::new();
    let mut compiled = 0;
    for path in &dir {
        let source = std::fs::read_to_string(path).unwrap();
        let Some(args) = source.lines().next().and_then(|l| l.strip_prefix("// compile:")) else { continue };
        let tokens: Vec<String> = args.split_whitespace().map(str::to_string).collect();
        let opts = parse_args(&tokens).unwrap();
        let name = path.to_string_lossy();
        match compiler.compile(&name, &source, &opts) {
            Ok((bytes, kind)) => {
                assert_eq!(irlint::check::classify(&name, &bytes), kind, "{name}");
                compiled += 1;
            }
            Err(e) => failures.push(format!("{name}: {e:?}")),
        }
    }
    assert!(failures.is_empty(), "{} of {} failed:\n{}", failures.len(), dir.len(), failures.join("\n"));
    assert!(compiled > 0);
    // Through the CLI: compiled and analysed (not an input error).
    let one = shared.join("fixtures/hlsl/lv_load_f16_misaligned.hlsl");
    let (code, out, _) = run(irlint()
        .env("IRLINT_DXC", &dxc_path)
        .args(["check", "--format", "json", "-T", "cs_6_9", "-E", "main", "--dxc-arg", "-enable-16bit-types"])
        .arg(&one));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["files"][0]["kind"], "hlsl", "{out}");
    // Compiled: whatever the DXIL front end says, the message is not about HLSL or DXC.
    let message = v["files"][0]["message"].as_str().unwrap_or("");
    assert!(!message.starts_with("HLSL"), "{out}");
    assert!(code <= 2);
}

//! Adoption at scale (issue 18): baselines, inline suppressions, excludes, the
//! exit policy and output conventions, HLSL ergonomics — through the binary.

mod common;

use common::{fixtures, irlint, run, shared, TempDir, PTX_WITH_LOC};
use std::path::{Path, PathBuf};
use std::process::Command;

fn json(stdout: &str) -> serde_json::Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

fn finding_paths(report: &serde_json::Value) -> Vec<String> {
    report["findings"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap().to_string()).collect()
}

/// A fixture with one warning (stride 48) and its embedded HLSL source.
fn flagged() -> PathBuf {
    fixtures().join("spirv/sb_stride48_rw.g.spv")
}

#[test]
fn baseline_on_the_corpus_hides_everything_and_reports_a_new_file() {
    let Some(corpus) = shared("corpus") else { return };
    let tmp = TempDir::new("corpus-baseline");
    let baseline = tmp.path().join("baseline.json");
    let (code, _, err) =
        run(irlint().arg("check").arg(&corpus).arg("--no-progress").arg("--write-baseline").arg(&baseline));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("to baseline"), "{err}");
    let recorded: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&baseline).unwrap()).unwrap();
    assert!(!recorded["findings"].as_array().unwrap().is_empty(), "the corpus has findings to record");

    // Applied to the same tree: nothing, exit 0.
    let (code, out, err) = run(irlint()
        .arg("check")
        .arg(&corpus)
        .args(["--no-progress", "--format", "json", "--baseline"])
        .arg(&baseline));
    assert_eq!(code, 0, "{err}");
    assert!(finding_paths(&json(&out)).is_empty(), "{out}");

    // One more flagged file: exactly that file is reported.
    let extra = tmp.path().join("new.spv");
    std::fs::copy(flagged(), &extra).unwrap();
    let (code, out, err) = run(irlint()
        .arg("check")
        .arg(&corpus)
        .arg(&extra)
        .args(["--no-progress", "--format", "json", "--baseline"])
        .arg(&baseline));
    assert_eq!(code, 1, "{err}");
    assert_eq!(finding_paths(&json(&out)), [extra.to_string_lossy().to_string()]);
}

#[test]
fn baseline_matches_by_path_and_rejects_bad_files() {
    let tmp = TempDir::new("baseline");
    let baseline = tmp.path().join("b.json");
    let (code, _, err) = run(irlint().arg("check").arg(flagged()).arg("--write-baseline").arg(&baseline));
    assert_eq!(code, 0, "{err}");
    // The same finding, stripped of debug info (other instruction numbering,
    // no source): a different file path is a different finding.
    let (code, out, _) = run(irlint()
        .arg("check")
        .arg(flagged())
        .arg(fixtures().join("spirv/sb_stride48_rw.spv"))
        .args(["--format", "json", "--baseline"])
        .arg(&baseline));
    assert_eq!(code, 1);
    assert_eq!(finding_paths(&json(&out)).len(), 1);
    assert!(finding_paths(&json(&out))[0].ends_with("sb_stride48_rw.spv"), "{out}");

    // A baseline that is not one is a usage error.
    std::fs::write(&baseline, "{}").unwrap();
    let (code, _, err) = run(irlint().arg("check").arg(flagged()).arg("--baseline").arg(&baseline));
    assert_eq!(code, 2);
    assert!(err.contains("not an irlint baseline"), "{err}");
    // --baseline and --write-baseline together: usage error.
    let (code, _, _) = run(irlint()
        .arg("check")
        .arg(flagged())
        .arg("--baseline")
        .arg(&baseline)
        .arg("--write-baseline")
        .arg(&baseline));
    assert_eq!(code, 2);
}

#[test]
fn sarif_marks_baseline_state() {
    let tmp = TempDir::new("sarif-baseline");
    let baseline = tmp.path().join("b.json");
    run(irlint().arg("check").arg(flagged()).arg("--write-baseline").arg(&baseline));
    let other = fixtures().join("spirv/sb_stride_mixed.g.spv");
    let (code, out, _) =
        run(irlint().arg("check").arg(flagged()).arg(&other).args(["--format", "sarif", "--baseline"]).arg(&baseline));
    assert_eq!(code, 1);
    let log = json(&out);
    let results = log["runs"][0]["results"].as_array().unwrap();
    let states: Vec<(&str, &str)> = results
        .iter()
        .map(|r| {
            let uri = r["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap_or("");
            (if uri.contains("stride48") { "old" } else { "other" }, r["baselineState"].as_str().unwrap())
        })
        .collect();
    assert!(states.contains(&("old", "unchanged")), "{states:?}");
    assert!(states.iter().filter(|(f, _)| *f == "other").all(|(_, s)| *s == "new"), "{states:?}");
    assert!(states.iter().any(|(f, _)| *f == "other"), "{states:?}");
}

const SB_RULE: &str = "structured-buffer-stride-not-cache-aligned";
const SB_LINE: &str = "RWStructuredBuffer<Particle> Particles : register(u0); // expect: structured-buffer-stride-not-cache-aligned stride=48 next=64";

/// A copy of the debug SPIR-V fixture whose embedded source (the `OpString`
/// that `DebugSource` names) has `before` replaced by `after`, padded with
/// blanks to the same length so every word count stays valid.
fn with_source_edit(dir: &Path, before: &str, after: &str) -> PathBuf {
    let bytes = std::fs::read(flagged()).unwrap();
    assert!(after.len() <= before.len(), "the edit must not grow the string");
    let padded = format!("{after:<width$}", width = before.len());
    let at = bytes.windows(before.len()).position(|w| w == before.as_bytes()).expect("source line in the module");
    let mut out = bytes.clone();
    out[at..at + before.len()].copy_from_slice(padded.as_bytes());
    let p = dir.join("edited.g.spv");
    std::fs::write(&p, out).unwrap();
    p
}

fn rules_found(path: &Path, extra: &[&str]) -> (i32, Vec<(String, u64)>) {
    let (code, out, err) = run(irlint().arg("check").arg(path).args(["--format", "json"]).args(extra));
    assert_ne!(code, 2, "{err}");
    let r = json(&out);
    let found = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["rule"].as_str().unwrap().to_string(), f["source"]["line"].as_u64().unwrap_or(0)))
        .collect();
    (code, found)
}

#[test]
fn inline_suppression_in_embedded_spirv_source() {
    let tmp = TempDir::new("suppress");
    assert_eq!(rules_found(&flagged(), &[]), (1, vec![(SB_RULE.to_string(), 8)]));

    // On the flagged line.
    let same_line = with_source_edit(
        tmp.path(),
        SB_LINE,
        &format!("RWStructuredBuffer<Particle> Particles : register(u0); // irlint: allow({SB_RULE})"),
    );
    assert_eq!(rules_found(&same_line, &[]), (0, vec![]));

    // On the line above (`};` gains the comment; the resource's line loses its own).
    let above = with_source_edit(
        tmp.path(),
        &format!("}};\n{SB_LINE}"),
        &format!("}}; // irlint: allow(x, {SB_RULE})\nRWStructuredBuffer<Particle> Particles : register(u0);"),
    );
    let (code, found) = rules_found(&above, &[]);
    assert_eq!(code, 0);
    // `x` is not a rule: an unused-suppression note on line 7; nothing else.
    assert_eq!(found, vec![("unused-suppression".to_string(), 7)]);

    // Another rule named: the finding stays, and the suppression is noted as unused.
    let other = with_source_edit(
        tmp.path(),
        SB_LINE,
        "RWStructuredBuffer<Particle> Particles : register(u0); // irlint: allow(long-vector-bytebuf-load-misaligned)",
    );
    let (code, found) = rules_found(&other, &[]);
    assert_eq!(code, 1);
    assert_eq!(found, vec![(SB_RULE.to_string(), 8), ("unused-suppression".to_string(), 8)]);
    let (_, out, _) = run(irlint().arg("check").arg(&other));
    assert!(
        out.contains("unused suppression: no `long-vector-bytebuf-load-misaligned` finding on this line or the next"),
        "{out}"
    );
}

#[test]
fn inline_suppression_in_ptx_loc_source_read_from_disk() {
    let tmp = TempDir::new("suppress-ptx");
    let ptx = tmp.path().join("kernel.ptx");
    std::fs::write(&ptx, PTX_WITH_LOC).unwrap();
    let py = tmp.path().join("kernel.py");
    std::fs::write(&py, "import triton\n\ndef k(): pass\n").unwrap();
    let (code, found) = rules_found(&ptx, &[]);
    assert_eq!((code, found), (1, vec![("atom-tcgen05-kind".to_string(), 3)]));
    // On the line above, `#` comment as Python writes it.
    std::fs::write(&py, "import triton\n# irlint: allow(atom-tcgen05-kind)\ndef k(): pass\n").unwrap();
    assert_eq!(rules_found(&ptx, &[]), (0, vec![]));
    // Another rule: kept, and the suppression is unused.
    std::fs::write(&py, "import triton\n\ndef k(): pass  # irlint: allow(atom-ldsm-mode)\n").unwrap();
    let (code, found) = rules_found(&ptx, &[]);
    assert_eq!(code, 1);
    assert_eq!(found, vec![("unused-suppression".to_string(), 3), ("atom-tcgen05-kind".to_string(), 3)]);
}

#[test]
fn exit_policy_quiet_and_statistics() {
    let f = flagged(); // one warning
    let code = |extra: &[&str]| run(irlint().arg("check").arg(&f).args(extra)).0;
    assert_eq!(code(&[]), 1);
    assert_eq!(code(&["--fail-on", "warning"]), 1);
    assert_eq!(code(&["--fail-on", "error"]), 0);
    assert_eq!(code(&["--fail-on", "error", "-D", SB_RULE]), 1);
    assert_eq!(code(&["--exit-zero"]), 0);
    assert_eq!(code(&["--exit-zero", "-D", SB_RULE]), 0);
    // Input errors still exit 2 with --exit-zero.
    assert_eq!(run(irlint().args(["check", "--exit-zero", "/nonexistent/x.dxil"])).0, 2);

    let (_, out, _) = run(irlint().arg("check").arg(&f).arg("-q"));
    assert!(out.starts_with("warning[structured-buffer-stride-not-cache-aligned]"), "{out}");
    assert!(!out.contains("1 warning in 1 file"), "{out}");
    let (_, out, _) = run(irlint().arg("check").arg(&f));
    assert!(out.contains("0 errors, 1 warning in 1 file"), "{out}");

    let (_, out, _) = run(irlint().arg("check").arg(&f).arg("--statistics"));
    assert!(out.contains("1  warning  structured-buffer-stride-not-cache-aligned\n1 diagnostic in 1 rule\n"), "{out}");
    // --statistics prints the table only (as ruff), or its JSON.
    assert!(!out.contains("-->") && !out.contains("in 1 file"), "{out}");
    let (_, out, _) = run(irlint().arg("check").arg(&f).args(["--statistics", "--format", "json"]));
    assert_eq!(
        json(&out),
        serde_json::json!([{"rule": "structured-buffer-stride-not-cache-aligned", "level": "warning", "count": 1}])
    );
}

#[test]
fn color_choice() {
    let f = flagged();
    let styled = |c: &mut Command| run(c).1.contains('\u{1b}');
    assert!(!styled(irlint().arg("check").arg(&f)));
    assert!(styled(irlint().arg("check").arg(&f).args(["--color", "always"])));
    assert!(!styled(irlint().arg("check").arg(&f).args(["--color", "never"]).env("CLICOLOR_FORCE", "1")));
    assert!(styled(irlint().arg("check").arg(&f).env_remove("NO_COLOR").env("CLICOLOR_FORCE", "1")));
    // NO_COLOR wins over CLICOLOR_FORCE.
    assert!(!styled(irlint().arg("check").arg(&f).env("CLICOLOR_FORCE", "1")));
}

#[test]
fn rule_groups() {
    let f = flagged();
    for group in ["all", "structured-buffer", "structured", SB_RULE] {
        let (code, out, err) = run(irlint().arg("check").arg(&f).args(["-A", group]));
        assert_eq!(code, 0, "-A {group}: {out}{err}");
    }
    let (code, _, _) = run(irlint().arg("check").arg(&f).args(["-A", "all", "-W", "structured-buffer"]));
    assert_eq!(code, 1);
    let (code, _, err) = run(irlint().arg("check").arg(&f).args(["-A", "structured-buf"]));
    assert_eq!(code, 2);
    assert!(err.contains("unknown rule `structured-buf`; did you mean `structured-buffer`?"), "{err}");
}

#[test]
fn rules_json_version_and_completions() {
    let (code, out, _) = run(irlint().args(["rules", "--format", "json"]));
    assert_eq!(code, 0);
    let list = json(&out);
    let ids: Vec<&str> = list.as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    let registry: Vec<&str> = irlint::rules::registry().iter().map(|r| r.id).collect();
    assert_eq!(ids, registry);
    let sb = list.as_array().unwrap().iter().find(|r| r["id"] == SB_RULE).unwrap();
    assert_eq!(sb["default_level"], "warning");
    assert_eq!(sb["options"], serde_json::json!(["cache-line-target"]));
    assert!(sb["summary"].is_string() && sb["doc"].as_str().unwrap().contains("## What it does"));

    let (code, out, _) = run(irlint().arg("--version"));
    assert_eq!(code, 0);
    assert!(out.starts_with(&format!("irlint {}\ncommit: ", env!("CARGO_PKG_VERSION"))), "{out}");
    assert!(out.contains("\nfeatures: ") && out.contains("\ndxc: "), "{out}");

    for shell in ["bash", "zsh", "fish"] {
        let (code, out, _) = run(irlint().args(["completions", shell]));
        assert_eq!(code, 0);
        assert!(out.contains("irlint") && out.contains("write-baseline"), "{shell}: {out}");
    }
}

#[test]
fn pre_commit_hook_runs() {
    // The hook definition: its `entry` is run as pre-commit runs it, with the
    // staged files matching `files` appended.
    let hooks = std::fs::read_to_string(common::root().join(".pre-commit-hooks.yaml")).unwrap();
    let field = |key: &str| {
        hooks
            .lines()
            .find_map(|l| l.trim().strip_prefix(&format!("{key}: ")))
            .unwrap_or_else(|| panic!("no `{key}` in .pre-commit-hooks.yaml"))
            .trim_matches('\'')
            .to_string()
    };
    assert_eq!(field("- id"), "irlint");
    assert_eq!(field("language"), "rust");
    let entry = field("entry");
    let mut words = entry.split_whitespace();
    assert_eq!(words.next(), Some("irlint"));
    let args: Vec<&str> = words.collect();
    let pattern = field("files");
    let exts: Vec<&str> = pattern.trim_start_matches("\\.(").trim_end_matches(")$").split('|').collect();
    let staged = [flagged(), fixtures().join("spirv/sb_stride32_padded.spv"), common::root().join("README.md")];
    let matching: Vec<&PathBuf> =
        staged.iter().filter(|p| p.extension().is_some_and(|e| exts.contains(&e.to_str().unwrap()))).collect();
    assert_eq!(matching.len(), 2, "{pattern}");
    let (code, out, err) = run(irlint().args(&args).args(&matching));
    assert_eq!(code, 1, "the flagged file fails the hook: {out}{err}");
    assert!(out.contains(SB_RULE) && !out.contains("in 2 files"), "quiet: {out}");
    let (code, _, err) = run(irlint().args(&args).arg(fixtures().join("spirv/sb_stride32_padded.spv")));
    assert_eq!(code, 0, "{err}");
}

#[test]
fn hlsl_ergonomics_without_dxc() {
    let tmp = TempDir::new("hlsl");
    let hlsl = tmp.path().join("a.hlsl");
    std::fs::write(&hlsl, "[numthreads(1,1,1)] void main() {}\n").unwrap();

    // `-D NAME=VALUE` points at --define.
    let (code, _, err) = run(irlint().arg("check").arg(&hlsl).args(["-T", "cs_6_0", "-D", "USE_FP16=1"]));
    assert_eq!(code, 2);
    assert!(err.contains("--define USE_FP16=1"), "{err}");

    // Words after `--` go to DXC, not to the inputs; no -E: the entry is `main`.
    let (code, out, err) = run(irlint().arg("check").arg(&hlsl).args([
        "-T",
        "cs_6_9",
        "--skip-hlsl",
        "--format",
        "json",
        "--",
        "-enable-16bit-types",
        "-HV",
        "2021",
    ]));
    assert_eq!(code, 0, "{err}");
    let files: Vec<String> =
        json(&out)["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap().to_string()).collect();
    assert_eq!(files, [hlsl.to_string_lossy().to_string()]);
    assert!(!out.contains("no entry point"), "{out}");

    // IRLINT_DXC naming a missing file: an error naming it, no fall-back.
    let missing = tmp.path().join("nope/libdxcompiler.so");
    let (code, out, _) = run(irlint().arg("check").arg(&hlsl).args(["-T", "cs_6_0"]).env("IRLINT_DXC", &missing));
    assert_eq!(code, 2);
    assert!(
        out.contains(&format!("searched $IRLINT_DXC ({}): does not exist (irlint looks no further", missing.display())),
        "{out}"
    );
    assert!(!out.contains("system library search path"), "{out}");
    // --dxc too.
    let (code, out, _) = run(irlint().arg("check").arg(&hlsl).args(["-T", "cs_6_0", "--dxc"]).arg(&missing));
    assert_eq!(code, 2);
    assert!(out.contains(&format!("searched --dxc ({}): does not exist", missing.display())), "{out}");

    // `dump` takes -T/-E and compiles like check.
    let (code, _, err) =
        run(irlint().arg("dump").arg(&hlsl).args(["-T", "cs_6_0", "-E", "main"]).env("IRLINT_DXC", &missing));
    assert_eq!(code, 2);
    assert!(err.contains("searched $IRLINT_DXC"), "{err}");
    let (code, _, err) = run(irlint().arg("dump").arg(&hlsl));
    assert_eq!(code, 2);
    assert!(err.contains("no target profile"), "{err}");
}

fn checked_paths(dir: &Path, args: &[&str]) -> (i32, Vec<String>, Vec<String>) {
    let (code, out, err) = run(irlint().current_dir(dir).arg("check").args(args).args(["--format", "json"]));
    assert_ne!(code, 2, "{out}{err}");
    let r = json(&out);
    let files = r["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap().to_string()).collect();
    (code, files, finding_paths(&r))
}

#[test]
fn excludes_gitignore_per_file_ignores_globs_and_stdin() {
    let tmp = TempDir::new("project");
    let d = tmp.path();
    for sub in ["a", "b", "third_party", ".git"] {
        std::fs::create_dir_all(d.join(sub)).unwrap();
    }
    let stride48 = fixtures().join("spirv/sb_stride48_rw.spv");
    for f in ["a/x.spv", "a/m.spv", "b/y.spv", "third_party/z.spv"] {
        std::fs::copy(&stride48, d.join(f)).unwrap();
    }
    std::fs::write(d.join(".gitignore"), "b/\n").unwrap();
    let (_, files, _) = checked_paths(d, &["."]);
    assert_eq!(files, ["./a/m.spv", "./a/x.spv", "./third_party/z.spv"]);
    let (_, files, _) = checked_paths(d, &[".", "--no-ignore"]);
    assert_eq!(files, ["./a/m.spv", "./a/x.spv", "./b/y.spv", "./third_party/z.spv"]);
    // Named on the command line: checked even when ignored, and so is a
    // directory named there (`build/` ignored, `irlint check build` walks it).
    let (_, files, _) = checked_paths(d, &["b/y.spv"]);
    assert_eq!(files, ["b/y.spv"]);
    let (_, files, _) = checked_paths(d, &["b"]);
    assert_eq!(files, ["b/y.spv"]);
    std::fs::write(
        d.join("b/.gitignore"),
        "*.spv
",
    )
    .unwrap();
    let (_, files, _) = checked_paths(d, &["b", "a"]);
    assert_eq!(files, ["a/m.spv", "a/x.spv"]);
    std::fs::remove_file(d.join("b/.gitignore")).unwrap();

    std::fs::write(
        d.join("irlint.toml"),
        "exclude = [\"third_party\"]\n[per-file-ignores]\n\"a/m.spv\" = [\"structured-buffer\"]\n",
    )
    .unwrap();
    let (code, files, found) = checked_paths(d, &["."]);
    assert_eq!(files, ["./a/m.spv", "./a/x.spv"]);
    assert_eq!(found, ["./a/x.spv"]);
    assert_eq!(code, 1);
    let (_, files, _) = checked_paths(d, &["third_party"]);
    assert_eq!(files, ["third_party/z.spv"], "a directory named on the command line is walked");

    // Quoted globs.
    let (_, files, _) = checked_paths(d, &["a/*.spv"]);
    assert_eq!(files, ["a/m.spv", "a/x.spv"]);
    let (_, files, _) = checked_paths(d, &["**/z.spv"]);
    assert_eq!(files, ["third_party/z.spv"]);
    let (code, _, err) = run(irlint().current_dir(d).args(["check", "nothing/*.spv"]));
    assert_eq!(code, 2);
    assert!(err.contains("no file matches \"nothing/*.spv\""), "{err}");

    // Bad config values are errors naming the key.
    std::fs::write(d.join("bad.toml"), "[per-file-ignores]\n\"a/*\" = [\"no-such\"]\n").unwrap();
    let (code, _, err) = run(irlint().current_dir(d).args(["check", "a", "--config", "bad.toml"]));
    assert_eq!(code, 2);
    assert!(err.contains("unknown rule `no-such`") && err.contains("per-file-ignores"), "{err}");

    // `-` reads one input from stdin.
    let mut child = irlint()
        .args(["check", "-", "--format", "json"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(&std::fs::read(&stride48).unwrap()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(finding_paths(&json(&String::from_utf8(out.stdout).unwrap())), ["<stdin>"]);
}

#[test]
fn inline_suppression_reads_the_source_embedded_in_dxil() {
    // The DXIL debug module (ILDB) names and embeds its source; the text is
    // edited in the lowered module, since the container stores it encoded.
    use irlint::check::{self, CheckOptions, InputKind};
    let bytes = std::fs::read(fixtures().join("dxil/la_load_stride_mismatch.g.dxil")).unwrap();
    let m = check::load_module(InputKind::Dxil, &bytes, 0).unwrap().unwrap();
    let diags = check::check_module(&m, &CheckOptions::default());
    let d = diags.iter().find(|d| d.rule == "coopvec-stride-mismatch").expect("the fixture's finding");
    let src = d.location.source.clone().unwrap();
    let file = m.source_files.iter().find(|f| f.name == src.file).expect("the finding's file is embedded");
    let text = file.text.clone().expect("embedded text");
    let edit = |comment: &str| -> Vec<(String, String)> {
        let lines: Vec<String> = text
            .lines()
            .enumerate()
            .map(|(i, l)| if i + 1 == src.line as usize { format!("{l} {comment}") } else { l.to_string() })
            .collect();
        vec![(src.file.clone(), lines.join("\n"))]
    };
    let mut hidden = diags.clone();
    irlint::suppress::apply(
        &mut hidden,
        "x.dxil",
        None,
        &edit("// irlint: allow(coopvec-stride-mismatch)"),
        &Default::default(),
    );
    assert!(!hidden.iter().any(|d| d.rule == "coopvec-stride-mismatch" || d.rule == "unused-suppression"));
    let mut kept = diags.clone();
    irlint::suppress::apply(
        &mut kept,
        "x.dxil",
        None,
        &edit("// irlint: allow(coopvec-base-offset-misaligned)"),
        &Default::default(),
    );
    assert!(kept.iter().any(|d| d.rule == "coopvec-stride-mismatch"));
    assert!(kept.iter().any(|d| d.rule == "unused-suppression"));
}

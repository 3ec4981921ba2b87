//! Adoption at scale (issue 18): baselines, inline suppressions, excludes, the
//! exit policy and output conventions, HLSL ergonomics — through the binary.

mod common;

use common::{fixtures, shared};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn irlint() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_irlint"));
    c.env_remove("GITHUB_ACTIONS")
        .env_remove("IRLINT_DXC")
        .env_remove("DXC_PATH")
        .env_remove("CLICOLOR_FORCE")
        .env("NO_COLOR", "1");
    c
}

fn run(c: &mut Command) -> (i32, String, String) {
    let Output { status, stdout, stderr } = c.output().unwrap();
    (status.code().unwrap_or(-1), String::from_utf8(stdout).unwrap(), String::from_utf8(stderr).unwrap())
}

/// A fresh temporary directory (removed on drop).
struct TempDir(PathBuf);
impl TempDir {
    fn new(tag: &str) -> Self {
        let p = std::env::temp_dir().join(format!("irlint-adopt-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    fn path(&self) -> &Path {
        &self.0
    }
}
impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

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

//! What a ruff or clippy user expects of the command line (issue 27, items
//! 1–6 and 10–12): ruff's flag names, level spellings, rule groups
//! everywhere, "did you mean", `check` without a path, config discovery,
//! `check`/`dump` agreement on junk, stdin as a named input, `atoms` options.

mod common;

use common::{irlint, run, TempDir, PTX_WITH_LOC};
use std::path::Path;
use std::process::{Command, Stdio};

const RULE: &str = "atom-tcgen05-kind";

fn json(stdout: &str) -> serde_json::Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

/// A directory with `kernel.ptx` and its `kernel.py`.
fn kernel_dir(tag: &str) -> TempDir {
    let d = TempDir::new(tag);
    std::fs::write(d.path().join("kernel.ptx"), PTX_WITH_LOC).unwrap();
    std::fs::write(d.path().join("kernel.py"), "import triton\n\ndef k(): pass\n").unwrap();
    d
}

/// `(rule, level)` of each finding of a JSON report.
fn findings(v: &serde_json::Value) -> Vec<(String, String)> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["rule"].as_str().unwrap().to_string(), f["level"].as_str().unwrap().to_string()))
        .collect()
}

/// `irlint check kernel.ptx --format json EXTRA...` in `dir`: the exit code and the findings.
fn check_kernel(dir: &Path, extra: &[&str]) -> (i32, Vec<(String, String)>) {
    let (code, out, err) = run(irlint().current_dir(dir).args(["check", "kernel.ptx", "--format", "json"]).args(extra));
    assert!(code == 2 || !out.is_empty(), "{err}");
    if code == 2 {
        return (code, vec![("usage".into(), err)]);
    }
    (code, findings(&json(&out)))
}

fn with_stdin(c: &mut Command, input: &[u8]) -> (i32, String, String) {
    let mut child = c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    {
        use std::io::Write;
        // A command that fails on its arguments exits without reading stdin:
        // the pipe is then closed under the write, which is not the test's concern.
        if let Err(e) = child.stdin.take().unwrap().write_all(input) {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
        }
    }
    let out = child.wait_with_output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

fn error(rule: &str) -> (String, String) {
    (rule.to_string(), "error".to_string())
}

// Item 1.
#[test]
fn output_format_is_an_alias_of_format() {
    let d = kernel_dir("conv-output-format");
    let (code, out, err) = run(irlint().current_dir(d.path()).args(["check", "kernel.ptx", "--output-format", "json"]));
    assert_eq!(code, 1, "{err}");
    assert_eq!(findings(&json(&out)), [error(RULE)]);
    // No file named `json` was written (what clap's old hint led to).
    assert!(!d.path().join("json").exists());
    let (code, out, _) = run(irlint().args(["rules", "--output-format", "json"]));
    assert_eq!(code, 0);
    assert!(json(&out).as_array().is_some_and(|a| a.len() > 10), "{out}");
}

// Item 1.
#[test]
fn select_extend_select_and_ignore_as_ruff_spells_them() {
    let d = kernel_dir("conv-select");
    let p = d.path();
    assert_eq!(check_kernel(p, &[]), (1, vec![error(RULE)]));
    // --ignore takes ids and groups, comma-separated.
    assert_eq!(check_kernel(p, &["--ignore", RULE]), (0, vec![]));
    assert_eq!(check_kernel(p, &["--ignore", "wgmma,atom"]), (0, vec![]));
    // --select replaces the enabled set; the selected rules keep their level.
    assert_eq!(check_kernel(p, &["--select", "wgmma"]), (0, vec![]));
    assert_eq!(check_kernel(p, &["--select", "atom"]), (1, vec![error(RULE)]));
    assert_eq!(check_kernel(p, &["--select", "ALL", "--ignore", RULE]), (0, vec![]));
    // The more specific selector wins, whatever the flag.
    assert_eq!(check_kernel(p, &["--ignore", "atom", "--select", RULE]), (1, vec![error(RULE)]));
    assert_eq!(check_kernel(p, &["--select", "atom", "--ignore", RULE]), (0, vec![]));
    // --extend-select adds; -W/-D apply after the ruff flags.
    assert_eq!(check_kernel(p, &["--select", "wgmma", "--extend-select", RULE]), (1, vec![error(RULE)]));
    assert_eq!(check_kernel(p, &["--select", RULE, "-W", RULE]), (1, vec![(RULE.to_string(), "warning".to_string())]));
    // A misspelt name is a usage error that suggests the group.
    let (code, msg) = check_kernel(p, &["--ignore", "atomm"]);
    assert_eq!(code, 2);
    assert!(msg[0].1.contains("error: --ignore atomm: unknown rule `atomm`; did you mean `atom`?"), "{msg:?}");
}

// Item 1.
#[test]
fn exclude_and_extend_exclude_on_the_command_line() {
    let d = TempDir::new("conv-exclude");
    for sub in ["a", "b", "c"] {
        std::fs::create_dir_all(d.path().join(sub)).unwrap();
        std::fs::write(d.path().join(sub).join("k.ptx"), PTX_WITH_LOC).unwrap();
    }
    std::fs::write(d.path().join("irlint.toml"), "exclude = [\"a\"]\n").unwrap();
    let files = |extra: &[&str]| -> Vec<String> {
        let (_, out, err) = run(irlint().current_dir(d.path()).args(["check", ".", "--format", "json"]).args(extra));
        let v = json(&out);
        let mut f: Vec<String> = v["files"]
            .as_array()
            .unwrap_or_else(|| panic!("{err}"))
            .iter()
            .map(|f| f["path"].as_str().unwrap().to_string())
            .collect();
        f.sort();
        f
    };
    assert_eq!(files(&[]), ["./b/k.ptx", "./c/k.ptx"]);
    // --exclude replaces the config's list; --extend-exclude adds to it.
    assert_eq!(files(&["--exclude", "b"]), ["./a/k.ptx", "./c/k.ptx"]);
    assert_eq!(files(&["--extend-exclude", "b"]), ["./c/k.ptx"]);
    assert_eq!(files(&["--extend-exclude", "b/*.ptx,c"]), Vec::<String>::new());
    // A file named on the command line is checked whatever excludes it.
    let (code, _, _) = run(irlint().current_dir(d.path()).args(["check", "c/k.ptx", "--exclude", "c"]));
    assert_eq!(code, 1);
    let (code, _, err) = run(irlint().current_dir(d.path()).args(["check", ".", "--exclude", "a[", "-q"]));
    assert_eq!(code, 2);
    assert!(err.contains("invalid glob \"a[\" in `--exclude`"), "{err}");
}

// Item 2.
#[test]
fn statistics_prints_only_the_table_and_timings_is_named_for_what_it_shows() {
    let d = kernel_dir("conv-statistics");
    let check = |extra: &[&str]| run(irlint().current_dir(d.path()).args(["check", "kernel.ptx"]).args(extra));
    let (code, out, _) = check(&["--statistics"]);
    assert_eq!(code, 1);
    assert_eq!(out, format!("1  error    {RULE}\n1 diagnostic in 1 rule\n"));
    let (_, out, _) = check(&["--statistics", "--format", "json"]);
    assert_eq!(json(&out), serde_json::json!([{"rule": RULE, "level": "error", "count": 1}]));
    let (_, out, err) = check(&["--timings"]);
    assert!(out.contains("slowest:") && out.contains("MB/s:"), "{out}");
    assert!(!err.contains("deprecated"), "{err}");
    // The old name still works, with a warning on stderr.
    let (code, out, err) = check(&["--stats"]);
    assert_eq!(code, 1);
    assert!(out.contains("slowest:"), "{out}");
    assert!(err.contains("warning: --stats is deprecated: it is now --timings"), "{err}");
    let (_, help, _) = run(irlint().args(["check", "--help"]));
    assert!(help.contains("--timings") && help.contains("--output-format"), "{help}");
    assert!(!help.contains("--stats "), "the deprecated spelling is hidden: {help}");
}

// Item 3.
#[test]
fn config_levels_in_both_spellings_and_groups() {
    let d = kernel_dir("conv-config");
    let p = d.path();
    let with_config = |toml: &str| {
        std::fs::write(p.join("irlint.toml"), toml).unwrap();
        check_kernel(p, &[])
    };
    let warning = (RULE.to_string(), "warning".to_string());
    assert_eq!(with_config(&format!("[rules]\n{RULE} = \"warning\"\n")), (1, vec![warning.clone()]));
    assert_eq!(with_config(&format!("[rules]\n{RULE} = \"warn\"\n")), (1, vec![warning.clone()]));
    assert_eq!(with_config(&format!("[rules]\n{RULE} = \"off\"\n")), (0, vec![]));
    assert_eq!(with_config("[rules]\natom = \"warning\"\n"), (1, vec![warning.clone()]));
    assert_eq!(with_config("[rules]\nall = \"off\"\n"), (0, vec![]));
    assert_eq!(with_config("[rules.atom]\nlevel = \"allow\"\n"), (0, vec![]));
    // The rule id wins over its group, which wins over `all`.
    assert_eq!(with_config(&format!("[rules]\n{RULE} = \"error\"\nall = \"off\"\n")), (1, vec![error(RULE)]));
    assert_eq!(with_config("[rules]\nall = \"off\"\natom = \"warning\"\n"), (1, vec![warning]));
    // Per-file ignores take the same names.
    assert_eq!(with_config("[per-file-ignores]\n\"*.ptx\" = [\"atom\"]\n"), (0, vec![]));
}

// Items 3 and 4.
#[test]
fn inline_suppressions_take_groups_and_suggest_the_nearest_id() {
    let d = kernel_dir("conv-suppress");
    let py = d.path().join("kernel.py");
    std::fs::write(&py, "import triton\n# irlint: allow(atom)\ndef k(): pass\n").unwrap();
    assert_eq!(check_kernel(d.path(), &[]), (0, vec![]));
    std::fs::write(&py, "import triton\n# irlint: allow(all)\ndef k(): pass\n").unwrap();
    assert_eq!(check_kernel(d.path(), &[]), (0, vec![]));
    std::fs::write(&py, "import triton\n# irlint: allow(atom-tcgen05-kidn)\ndef k(): pass\n").unwrap();
    let (code, out, _) = run(irlint().current_dir(d.path()).args(["check", "kernel.ptx"]));
    assert_eq!(code, 1);
    assert!(
        out.contains("unused suppression: unknown rule `atom-tcgen05-kidn`; did you mean `atom-tcgen05-kind`?"),
        "{out}"
    );
}

// Item 4.
#[test]
fn misspelt_rule_ids_suggest_the_nearest_one_everywhere() {
    let d = kernel_dir("conv-didyoumean");
    let want = "unknown rule `atom-tcgen05-kidn`; did you mean `atom-tcgen05-kind`?";
    let (code, _, err) = run(irlint().current_dir(d.path()).args(["check", "kernel.ptx", "-A", "atom-tcgen05-kidn"]));
    assert_eq!(code, 2);
    assert!(err.contains(want), "{err}");
    assert!(!err.contains("wgmma-smem-descriptor"), "no list of every id: {err}");
    let (code, _, err) = run(irlint().args(["explain", "atom-tcgen05-kidn"]));
    assert_eq!((code, err.trim()), (2, format!("error: {want}").as_str()));
    let (code, out, _) = run(irlint().args(["explain", "wgmma"]));
    assert_eq!(code, 0);
    assert!(out.starts_with("`wgmma` is a group of 1 rule (") && out.contains("  wgmma-smem-descriptor  "), "{out}");
    let (_, out, _) = run(irlint().args(["explain", "atom"]));
    assert!(
        out.starts_with("`atom` is a group of ") && out.contains(&format!("  {RULE}  a tcgen05.mma kind word")),
        "{out}"
    );
    let (code, _, err) = run(irlint().args(["explain", "unused-supression"]));
    assert_eq!((code, err.trim()), (2, "error: unknown rule `unused-supression`; did you mean `unused-suppression`?"));
    std::fs::write(d.path().join("irlint.toml"), "[rules]\natom-tcgen05-kidn = \"off\"\n").unwrap();
    let (code, out, _) = run(irlint().current_dir(d.path()).args(["check", "kernel.ptx"]));
    assert_eq!(code, 2);
    assert!(
        out.contains(&format!("configuration error: irlint.toml: {want} (in [rules])\n  --> irlint.toml")),
        "{out}"
    );
}

// Item 5.
#[test]
fn check_without_a_path_checks_the_working_directory() {
    let d = kernel_dir("conv-default-path");
    let (code, out, err) = run(irlint().current_dir(d.path()).args(["check", "--format", "json"]));
    assert_eq!(code, 1, "{err}");
    let v = json(&out);
    assert_eq!(v["files"][0]["path"], "./kernel.ptx");
    assert_eq!(findings(&v), [error(RULE)]);
}

// Item 6.
#[test]
fn the_nearest_config_applies_and_is_not_merged_with_its_parents() {
    let d = TempDir::new("conv-nested-config");
    std::fs::create_dir_all(d.path().join("sub")).unwrap();
    std::fs::write(d.path().join("k.ptx"), PTX_WITH_LOC).unwrap();
    std::fs::write(d.path().join("sub/k.ptx"), PTX_WITH_LOC).unwrap();
    std::fs::write(d.path().join("irlint.toml"), "[rules]\natom = \"off\"\n").unwrap();
    std::fs::write(d.path().join("sub/irlint.toml"), "[rules]\nwgmma = \"off\"\n").unwrap();
    let (code, out, err) = run(irlint().current_dir(d.path()).args(["check", "--format", "json"]));
    assert_eq!(code, 1, "{err}");
    let paths: Vec<String> =
        json(&out)["findings"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap().to_string()).collect();
    // sub/irlint.toml replaces the parent's settings for sub/: `atom = "off"` does not reach it.
    assert_eq!(paths, ["./sub/k.ptx"]);
}

// Item 10.
#[test]
fn check_and_dump_classify_junk_the_same_way() {
    let d = TempDir::new("conv-junk");
    std::fs::write(d.path().join("empty.dxil"), b"").unwrap();
    std::fs::write(d.path().join("fake.spv"), b"hello\n").unwrap();
    std::fs::write(d.path().join("notes.txt"), b"hello\n").unwrap();
    let args = ["empty.dxil", "fake.spv", "missing.spv", "notes.txt", "--format", "json"];
    let (check_code, check_out, _) = run(irlint().current_dir(d.path()).arg("check").args(args));
    let (dump_code, dump_out, _) = run(irlint().current_dir(d.path()).arg("dump").args(args));
    assert_eq!((check_code, dump_code), (2, 2));
    let files = |v: &serde_json::Value| -> Vec<(String, String, String, String)> {
        let mut f: Vec<_> = v["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                let s = |k: &str| f[k].as_str().unwrap_or("").to_string();
                (s("path"), s("kind"), s("status"), s("message"))
            })
            .collect();
        f.sort();
        f
    };
    let (c, dm) = (files(&json(&check_out)), files(&json(&dump_out)));
    assert_eq!(c, dm, "check and dump agree");
    let kinds: Vec<(&str, &str, &str)> = c.iter().map(|(p, k, s, _)| (p.as_str(), k.as_str(), s.as_str())).collect();
    assert_eq!(
        kinds,
        [
            ("empty.dxil", "binary", "error"),
            ("fake.spv", "binary", "error"),
            ("missing.spv", "missing", "error"),
            ("notes.txt", "binary", "skipped"),
        ]
    );
    assert!(
        c[1].3.starts_with(
            "not a shader: a .spv input must hold a SPIR-V module (starting with the magic word 0x07230203)"
        ),
        "{}",
        c[1].3
    );
    assert_eq!(c[3].3, "no embedded shader found");
}

// Item 11.
#[test]
fn stdin_is_checked_like_a_named_input() {
    let d = kernel_dir("conv-stdin");
    // Junk on stdin is an input error, as `irlint.check(b"hello")` raises.
    let (code, out, _) = with_stdin(irlint().args(["check", "-", "--format", "json"]), b"garbage\n");
    assert_eq!(code, 2, "{out}");
    let v = json(&out);
    assert_eq!(v["files"][0]["path"], "<stdin>");
    assert_eq!(v["files"][0]["status"], "error");
    assert_eq!(findings(&v), [error("input-error")]);
    // --stdin-filename names it, and its name gives its kind and its messages.
    let (code, out, _) = with_stdin(
        irlint().current_dir(d.path()).args(["check", "-", "--stdin-filename", "kernel.ptx", "--format", "json"]),
        PTX_WITH_LOC.as_bytes(),
    );
    assert_eq!(code, 1, "{out}");
    let v = json(&out);
    assert_eq!((v["files"][0]["path"].as_str(), v["files"][0]["kind"].as_str()), (Some("kernel.ptx"), Some("ptx")));
    assert_eq!(v["findings"][0]["path"], "kernel.ptx");
    let (code, out, _) = with_stdin(irlint().args(["check", "-", "--stdin-filename", "s.spv"]), b"garbage\n");
    assert_eq!(code, 2);
    assert!(out.contains("a .spv input must hold a SPIR-V module") && out.contains("--> s.spv"), "{out}");
    // The irlint.toml nearest to the name applies.
    std::fs::write(d.path().join("irlint.toml"), "[rules]\natom = \"off\"\n").unwrap();
    let (code, _, _) = with_stdin(
        irlint().current_dir(d.path()).args(["check", "-", "--stdin-filename", "kernel.ptx"]),
        PTX_WITH_LOC.as_bytes(),
    );
    assert_eq!(code, 0);
    // Beside named files, and labelled as `atoms` labels it.
    let (code, out, _) = with_stdin(
        irlint().current_dir(d.path()).args(["check", "-", "kernel.ptx", "-A", "all", "--format", "json"]),
        b"",
    );
    assert_eq!(code, 2);
    let mut paths: Vec<String> =
        json(&out)["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap().to_string()).collect();
    paths.sort();
    assert_eq!(paths, ["<stdin>", "kernel.ptx"]);
    let (_, out, _) = with_stdin(irlint().args(["atoms", "-", "--format", "json"]), b"[]");
    assert_eq!(json(&out)["files"][0]["path"], "<stdin>");
    // --stdin-filename without `-` is a usage error.
    let (code, _, err) = run(irlint().current_dir(d.path()).args(["check", "kernel.ptx", "--stdin-filename", "x.ptx"]));
    assert_eq!(code, 2);
    assert!(err.contains("--stdin-filename names stdin, but no path is `-`"), "{err}");
}

// Item 12.
#[test]
fn atoms_takes_checks_output_options_and_names_records() {
    let bad = br#"[{"verifier": "tcgen05-kind", "raw": 66, "isa": "sm_103a", "id": "k1"}]"#;
    let atoms = |extra: &[&str]| with_stdin(irlint().args(["atoms", "-"]).args(extra), bad);
    let (code, out, _) = atoms(&[]);
    assert_eq!(code, 1);
    assert!(out.contains("= note: in <stdin> (record 0 (id \"k1\"))"), "{out}");
    assert!(!out.contains("function record"), "{out}");
    let (code, out, _) = atoms(&["-q"]);
    assert_eq!(code, 1);
    assert!(out.starts_with("error[atom-tcgen05-kind]") && !out.contains("1 error, 0 warnings"), "{out}");
    assert_eq!(atoms(&["--exit-zero"]).0, 0);
    assert_eq!(atoms(&["-W", "all"]).0, 2, "-W is a check option, not an atoms one");
    let (code, out, _) = atoms(&["--statistics"]);
    assert_eq!((code, out.as_str()), (1, "1  error    atom-tcgen05-kind\n1 diagnostic in 1 rule\n"));
    let (_, out, _) = atoms(&["--color", "always"]);
    assert!(out.contains('\u{1b}'), "{out}");
    let (_, out, _) = atoms(&["--color", "never"]);
    assert!(!out.contains('\u{1b}'), "{out}");
    // --fail-on error: the atom rules are errors, so a finding still fails the run.
    assert_eq!(atoms(&["--fail-on", "error"]).0, 1);
    let ok = br#"[{"verifier": "tma", "mode": "tile", "rank": 3, "target": "sm_90"}]"#;
    assert_eq!(with_stdin(irlint().args(["atoms", "-", "--fail-on", "error"]), ok).0, 0);
}

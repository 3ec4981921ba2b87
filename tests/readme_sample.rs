//! The README's sample output is real: the block after the
//! `<!-- sample-output` marker is what its `$ irlint …` command prints today,
//! run from the repository root, and every file it names exists in the clone.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn readme_sample_output_is_current_and_names_existing_files() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let block = readme.split("<!-- sample-output").nth(1).expect("the README has a sample-output block");
    let block = block.split("```text\n").nth(1).unwrap().split("```").next().unwrap();
    let (command, expected) = block.split_once('\n').unwrap();
    let args: Vec<&str> = command.strip_prefix("$ irlint ").expect("a `$ irlint …` line").split_whitespace().collect();
    let out = Command::new(env!("CARGO_BIN_EXE_irlint"))
        .args(&args)
        .current_dir(&root)
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let actual = String::from_utf8(out.stdout).unwrap();
    assert_eq!(actual, expected, "README.md's sample output is stale; regenerate it with `irlint {}`", args.join(" "));
    // Every `-->` and `in` location names a file under the clone.
    let mut named = 0;
    for line in expected.lines() {
        let t = line.trim_start();
        let loc = t.strip_prefix("--> ").or_else(|| t.strip_prefix("= note: in "));
        if let Some(loc) = loc {
            let file = loc.split([' ', ':']).next().unwrap();
            assert!(root.join(file).is_file(), "the README's sample names {file}, which is not in the clone");
            named += 1;
        }
    }
    assert!(named >= 3, "{named} locations in the sample");
}

/// The quick start (`irlint check shaders/examples`) points at files in the
/// clone: the debug-info examples' HLSL sources sit beside them, and their
/// `irlint.toml` keeps the walk from checking them.
#[test]
fn quick_start_findings_name_files_in_the_clone() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO_BIN_EXE_irlint"))
        .args(["check", "shaders/examples"])
        .current_dir(&root)
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let arrows: Vec<&str> = text.lines().filter_map(|l| l.trim_start().strip_prefix("--> ")).collect();
    assert!(arrows.len() >= 6, "{text}");
    for a in &arrows {
        let file = a.split([' ', ':']).next().unwrap();
        assert!(root.join(file).is_file(), "{file} is not in the clone:\n{text}");
    }
    assert!(arrows.iter().any(|a| a.starts_with("shaders/examples/la_load_stride_mismatch.hlsl:10:15")), "{text}");
    assert!(text.contains(" in 8 files\n") && !text.contains("skipped"), "the sources are not walked:\n{text}");
}

//! A directory of damaged shaders is processed to the end by the CLI: every
//! file appears once in `files`, every error has a message with a byte offset,
//! and the exit code is 2 exactly when some input failed.

mod common;

use std::process::Command;

fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn run_json(dir: &std::path::Path) -> (i32, serde_json::Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_irlint"))
        .args(["check", "--format", "json", "--no-progress"])
        .arg(dir)
        .output()
        .expect("run irlint");
    let json = serde_json::from_slice(&out.stdout).expect("JSON report");
    (out.status.code().unwrap_or(-1), json)
}

#[test]
fn directory_of_mutants_is_reported_in_full() {
    let dir = std::env::temp_dir().join(format!("irlint-mutants-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut sources = common::files_with_suffix(&common::fixtures().join("dxil"), ".dxil");
    sources.extend(common::files_with_suffix(&common::fixtures().join("spirv"), ".spv"));
    let mut seed = 0x1234_5678_9abc_def1u64;
    let mut written = 0;
    for (i, src) in sources.iter().enumerate() {
        let bytes = std::fs::read(src).expect("read fixture");
        for j in 0..6 {
            let mut m = bytes.clone();
            match j {
                0 => m.truncate(bytes.len() / 2),
                1 => m.truncate(37),
                _ => {
                    for _ in 0..j {
                        let k = (xorshift(&mut seed) as usize) % m.len();
                        m[k] ^= 1 << (xorshift(&mut seed) % 8);
                    }
                }
            }
            std::fs::write(dir.join(format!("m{i:03}_{j}.bin")), &m).expect("write mutant");
            written += 1;
        }
    }
    let (code, json) = run_json(&dir);
    let files = json["files"].as_array().expect("files");
    // Every mutant appears (embedded-blob entries may add more for mutants
    // that are scanned as binaries).
    let mut paths: Vec<&str> =
        files.iter().filter(|f| f["blob_offset"].is_null()).filter_map(|f| f["path"].as_str()).collect();
    paths.sort();
    paths.dedup();
    assert_eq!(paths.len(), written, "every mutant reported once");
    let errors: Vec<&serde_json::Value> = files.iter().filter(|f| f["status"] == "error").collect();
    for e in &errors {
        let msg = e["message"].as_str().unwrap_or_default();
        assert!(msg.contains("offset"), "error without byte offset: {e}");
    }
    assert!(!errors.is_empty(), "some mutants must be malformed");
    assert_eq!(code, 2, "exit code 2 when an input failed");
    for f in json["findings"].as_array().expect("findings") {
        assert_ne!(f["rule"], "internal-error", "panic on {f}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn malformed_corpus_directory_exits_2() {
    let Some(dir) = common::shared("corpus-malformed/spirv") else { return };
    let (code, json) = run_json(&dir);
    assert_eq!(code, 2);
    let files = json["files"].as_array().expect("files");
    assert_eq!(files.len(), 3);
    assert!(files.iter().all(|f| f["status"] == "error"));
}

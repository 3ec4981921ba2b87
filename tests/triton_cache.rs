//! `irlint check ~/.triton/cache`: in a Triton cache only the PTX is read, and
//! the other stages (cubin, llir, json, launchers) leave no trace in any report.

mod common;

use common::{irlint, run, TempDir};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Cache keys as Triton names its directories (SHA-256, base32, unpadded).
const KEYS: [&str; 4] = [
    "DIJOSFLGVQEVJAUD7ERP4KHZDF3XQEKQPTC54QFXWAXIUQZN4KJQ",
    "FNV5NIUEN64BKBUDX7EINGG7AUGRF5TIYRMPMHEH4DGQQQRITWEA",
    "PKRJL6O5V7FEQEWQLFYWBAVYLNWA5DFVA43QANOE4ELB5OD6C4OQ",
    "2UBID752UDZOWPM4FB6SBA5XFE3MR6XNYVHVKO4MLUOIYM3HUV5Q",
];

fn spirv() -> Vec<u8> {
    std::fs::read(common::root().join("tests/data/lv_load_aligned_const.spv")).unwrap()
}

/// An ELF-looking object with a SPIR-V module inside: scanned, it would be
/// reported as a binary with one embedded shader.
fn elf_with_spirv() -> Vec<u8> {
    let mut b = b"\x7fELF\x02\x01\x01\0".to_vec();
    b.extend((0..200u32).map(|i| (i as u8).wrapping_mul(31) | 0x80));
    b.extend(spirv());
    b.extend((0..64u32).map(|i| (i as u8).wrapping_mul(7) | 0x80));
    b
}

/// One kernel's cache entry as `triton.compile` writes it: every stage, the
/// metadata and the group file naming them.
fn kernel_entry(dir: &Path, name: &str, ptx: &[u8]) {
    std::fs::create_dir_all(dir).unwrap();
    let stages: [(&str, &[u8]); 5] = [
        ("source", b"#loc = loc(\"kernel.py\":6:0)\nmodule {}\n"),
        ("ttir", b"module { tt.func public @k() { tt.return } }\n"),
        ("ttgir", b"#blocked = #ttg.blocked<{}>\nmodule attributes {\"ttg.num-warps\" = 4 : i32} {}\n"),
        ("llir", b"; ModuleID = 'LLVMDialectModule'\ndefine void @k() { ret void }\n"),
        ("ptx", ptx),
    ];
    let mut group = Vec::new();
    for (ext, bytes) in stages {
        let file = dir.join(format!("{name}.{ext}"));
        std::fs::write(&file, bytes).unwrap();
        group.push(format!("\"{name}.{ext}\": \"{}\"", file.display()));
    }
    std::fs::write(dir.join(format!("{name}.cubin")), elf_with_spirv()).unwrap();
    let meta =
        format!("{{\"hash\": \"0f\", \"target\": {{\"backend\": \"cuda\", \"arch\": 100}}, \"name\": \"{name}\"}}");
    std::fs::write(dir.join(format!("{name}.json")), meta).unwrap();
    let group = format!("{{\"child_paths\": {{{}}}}}", group.join(", "));
    std::fs::write(dir.join(format!("__grp__{name}.json")), group).unwrap();
}

/// A cache with two kernels (one with descriptor findings, one clean), a
/// compiled launcher, autotuning results and a partial write; beside it a
/// directory that is no cache, holding the same kind of object.
fn build_cache(root: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let cache = root.join("cache");
    let bad = std::fs::read(common::root().join("tests/fixtures/ptx_desc/tcgen05_instr_desc.ptx")).unwrap();
    let clean = std::fs::read(common::root().join("tests/fixtures/ptx/loop_phis.ptx")).unwrap();
    let bad_entry = cache.join(KEYS[0]);
    kernel_entry(&bad_entry, "matmul_kernel", &bad);
    kernel_entry(&cache.join(KEYS[1]), "add_kernel", &clean);
    // A partial write left by an interrupted process: not walked.
    let tmp = bad_entry.join("tmp.pid_4242_0b7c1d2e-1111-2222-3333-444455556666");
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::write(tmp.join("matmul_kernel.ptx"), b".version 8.7\n.target sm_100a\n.entry broken(").unwrap();
    // The C launcher Triton builds once per signature (an ELF shared object).
    let launcher = cache.join(KEYS[2]);
    std::fs::create_dir_all(&launcher).unwrap();
    std::fs::write(launcher.join("__triton_launcher.cpython-311-x86_64-linux-gnu.so"), elf_with_spirv()).unwrap();
    let tuned = cache.join(KEYS[3]);
    std::fs::create_dir_all(&tuned).unwrap();
    std::fs::write(tuned.join("matmul_kernel.autotune.json"), b"{\"key\": [1024], \"configs_timings\": []}").unwrap();
    // Not a cache: a directory of build outputs is still scanned for embedded shaders.
    let other = root.join("build");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("app.so"), elf_with_spirv()).unwrap();
    let clean = cache.join(KEYS[1]).join("add_kernel.ptx");
    (cache, bad_entry.join("matmul_kernel.ptx"), clean)
}

fn json(out: &str) -> Value {
    serde_json::from_str(out).unwrap()
}

#[test]
fn cache_reads_only_ptx_in_human_json_and_sarif() {
    let t = TempDir::new("triton-cache");
    let (cache, bad, clean) = build_cache(t.path());

    // Every finding comes from the broken fixture, as when it is checked alone.
    let (_, alone, _) = run(irlint().args(["check", "--format", "json"]).arg(&bad));
    let expected = json(&alone)["findings"].as_array().unwrap().len();
    assert!(expected >= 14, "{alone}");

    let (code, out, err) = run(irlint().arg("check").arg(&cache));
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.is_empty(), "{err}");
    assert!(!out.contains("skipped"), "{out}");
    for noisy in [".cubin", ".llir", ".ttir", ".ttgir", ".source", ".json", ".so", "tmp.pid_"] {
        assert!(!out.contains(noisy), "{noisy} in {out}");
    }
    assert!(out.ends_with(&format!("{expected} errors, 0 warnings in 2 files\n")), "{out}");
    // The kernel is named by its file (Triton names the stages after it) and the PTX entry.
    let first = format!("  --> {}:68 (function invalid_idesc, instruction 1)\n", bad.display());
    assert!(out.contains(&first), "{out}");

    let (code, out, _) = run(irlint().args(["check", "--format", "json"]).arg(&cache));
    assert_eq!(code, 1);
    let r = json(&out);
    let files: Vec<(&str, &str, &str)> = r["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["kind"].as_str().unwrap(), f["status"].as_str().unwrap()))
        .collect();
    assert_eq!(files, [(bad.to_str().unwrap(), "ptx", "ok"), (clean.to_str().unwrap(), "ptx", "ok")]);
    let findings = r["findings"].as_array().unwrap();
    assert_eq!(findings.len(), expected);
    assert!(findings.iter().all(|f| f["path"] == bad.to_str().unwrap() && f["rule"] == "ptx-tcgen05-instr-descriptor"));
    assert_eq!(r["stats"]["files"], 2);

    let (code, out, _) = run(irlint().args(["check", "--format", "sarif"]).arg(&cache));
    assert_eq!(code, 1);
    let s = json(&out);
    let results = s["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), expected);
    let uri = format!("file://{}", bad.display());
    assert!(results.iter().all(|x| x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == uri.as_str()));
    for noisy in [".cubin", ".llir", ".so\"", "tmp.pid_", "autotune"] {
        assert!(!out.contains(noisy), "{noisy} in SARIF");
    }
}

#[test]
fn one_entry_a_renamed_entry_and_a_non_cache_sibling() {
    let t = TempDir::new("triton-entry");
    let (cache, bad, _) = build_cache(t.path());
    // A single entry named on the command line (its name is a cache key).
    let (_, out, _) = run(irlint().args(["check", "--format", "json"]).arg(cache.join(KEYS[0])));
    let r = json(&out);
    assert_eq!(r["files"].as_array().unwrap().len(), 1);
    assert_eq!(r["files"][0]["path"], bad.to_str().unwrap());

    // A copy under another name is recognised by its group file.
    let copy = t.path().join("kept/matmul");
    kernel_entry(&copy, "matmul_kernel", &std::fs::read(&bad).unwrap());
    let (_, out, _) = run(irlint().args(["check", "--format", "json"]).arg(&copy));
    let r = json(&out);
    let paths: Vec<&str> = r["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(paths, [copy.join("matmul_kernel.ptx").to_str().unwrap()]);

    // Outside the cache the walk is unchanged: the object is scanned and its
    // SPIR-V found; a stage named on the command line is checked too.
    let so = t.path().join("build/app.so");
    let cubin = cache.join(KEYS[0]).join("matmul_kernel.cubin");
    let (_, out, _) = run(irlint().args(["check", "--format", "json"]).arg(t.path().join("build")).arg(&cubin));
    let r = json(&out);
    let files: Vec<(&str, &str)> = r["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(
        files,
        [
            (so.to_str().unwrap(), "binary"),
            (so.to_str().unwrap(), "spirv"),
            (cubin.to_str().unwrap(), "binary"),
            (cubin.to_str().unwrap(), "spirv"),
        ]
    );
}

#[test]
fn cache_without_ptx_warns_that_nothing_was_found() {
    // TRITON_STORE_BINARY_ONLY=1 keeps only the cubin and the json.
    let t = TempDir::new("triton-binonly");
    let entry = t.path().join("cache").join(KEYS[0]);
    std::fs::create_dir_all(&entry).unwrap();
    std::fs::write(entry.join("k.cubin"), elf_with_spirv()).unwrap();
    std::fs::write(entry.join("k.json"), b"{\"name\": \"k\"}").unwrap();
    std::fs::write(entry.join("__grp__k.json"), b"{\"child_paths\": {}}").unwrap();
    let (code, out, err) = run(irlint().arg("check").arg(t.path().join("cache")));
    assert_eq!(code, 0);
    assert_eq!(out, "0 errors, 0 warnings in 0 files\n");
    let expected = format!(
        "warning: no input files found in {} (a Triton cache: only its .ptx files are read, and it holds none; \
         Triton keeps no PTX when TRITON_STORE_BINARY_ONLY=1)\n",
        t.path().join("cache").display()
    );
    assert_eq!(err, expected);
    // The same from inside the entry.
    let (_, _, err) = run(irlint().arg("check").arg(&entry));
    assert!(err.ends_with("Triton keeps no PTX when TRITON_STORE_BINARY_ONLY=1)\n"), "{err}");
}

/// The corpus PTX (Triton 3.6.0, four targets) laid out as a cache: every
/// module is read, with the same findings as when checked directly.
#[test]
fn corpus_ptx_as_a_cache() {
    let Some(corpus) = common::shared("corpus/ptx/triton-3.6") else { return };
    let modules = common::files_with_suffix(&corpus, ".ptx");
    assert_eq!(modules.len(), 68);
    let t = TempDir::new("triton-corpus-cache");
    let cache = t.path().join("cache");
    for (i, m) in modules.iter().enumerate() {
        // A distinct cache key per module: the index in base32 digits.
        let mut key: Vec<u8> = KEYS[0].bytes().collect();
        key[50] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"[i / 32];
        key[51] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"[i % 32];
        let name = m.file_stem().unwrap().to_str().unwrap().replace('.', "_");
        kernel_entry(&cache.join(String::from_utf8(key).unwrap()), &name, &std::fs::read(m).unwrap());
    }
    let (_, out, _) = run(irlint().args(["check", "--format", "json"]).arg(&cache));
    let in_cache = json(&out);
    let (_, out, _) = run(irlint().args(["check", "--format", "json"]).args(&modules));
    let direct = json(&out);
    let files = in_cache["files"].as_array().unwrap();
    assert_eq!(files.len(), 68);
    assert!(files.iter().all(|f| f["kind"] == "ptx" && f["status"] == "ok"), "{files:?}");
    let rules = |r: &Value| {
        let mut v: Vec<String> =
            r["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap().to_string()).collect();
        v.sort();
        v
    };
    assert_eq!(rules(&in_cache), rules(&direct));
    assert_eq!(in_cache["stats"]["files"], 68);
}

//! PTX in CUDA fatbins and SPIR-V in Fossilize databases: the nvcc-built
//! fixtures of `tests/fixtures/fatbin` and the written ones of
//! `tests/fixtures/fossilize` report the findings of their modules alone,
//! attributed to the container; hostile containers are errors or skips with
//! the reason, never panics.

mod common;

use common::{fixtures, irlint, run};
use irlint::check::{CheckOptions, FileReport, FileStatus, InputKind};
use irlint::input::{containers, fossilize};
use irlint::read::fatbin;
use irlint::report::{Diagnostic, RunReport};
use std::path::{Path, PathBuf};

fn fatbin_dir() -> PathBuf {
    fixtures().join("fatbin")
}

fn check(path: &Path) -> RunReport {
    irlint::input::batch::check_paths(&[path.to_path_buf()], Default::default())
}

/// What identifies a finding apart from where its module came from.
fn key(d: &Diagnostic) -> (String, String, Option<u32>, Option<String>, Option<u32>, String) {
    (
        d.rule.clone(),
        d.message.clone(),
        d.location.line,
        d.location.function.clone(),
        d.location.instruction,
        format!("{:?}", d.certainty),
    )
}

type Key = (String, String, Option<u32>, Option<String>, Option<u32>, String);

fn alone(name: &str) -> Vec<Key> {
    let r = check(&fatbin_dir().join(name));
    assert_eq!(r.files.len(), 1, "{name}");
    assert_eq!(r.files[0].kind, InputKind::Ptx);
    r.diagnostics.iter().map(key).collect()
}

/// The entries of one container file: (offset, label, status, message).
fn entries(r: &RunReport) -> Vec<(u64, String, FileStatus, String)> {
    r.files
        .iter()
        .filter_map(|f: &FileReport| {
            Some((f.blob_offset?, f.section.clone()?, f.status, f.message.clone().unwrap_or_default()))
        })
        .collect()
}

/// Each PTX entry reports exactly the findings of its PTX alone.
fn assert_ptx_entries_match(name: &str, expect_labels: &[&str]) {
    let r = check(&fatbin_dir().join(name));
    let by_arch = [("compute_80", alone("k.compute_80.ptx")), ("compute_90", alone("k.compute_90.ptx"))];
    assert!(by_arch.iter().all(|(_, k)| k.len() == 1), "the reference PTX has one finding per arch");
    let list = entries(&r);
    let labels: Vec<&str> = list.iter().map(|(_, l, _, _)| l.as_str()).collect();
    assert_eq!(labels, expect_labels, "{name}");
    let mut ptx = 0;
    for (off, label, status, _) in &list {
        if !label.contains(": PTX ") {
            assert_eq!(*status, FileStatus::Skipped, "{name} {label}");
            assert!(r.diagnostics.iter().all(|d| d.location.blob_offset != Some(*off)));
            continue;
        }
        ptx += 1;
        assert_eq!(*status, FileStatus::Ok, "{name} {label}");
        let (_, want) = by_arch.iter().find(|(a, _)| label.contains(a)).unwrap();
        let got: Vec<Key> = r.diagnostics.iter().filter(|d| d.location.blob_offset == Some(*off)).map(key).collect();
        assert_eq!(&got, want, "{name} {label}");
        for d in r.diagnostics.iter().filter(|d| d.location.blob_offset == Some(*off)) {
            assert_eq!(d.location.section.as_deref(), Some(label.as_str()));
            assert!(d.location.path.ends_with(name));
            assert_eq!(d.location.byte_offset, None, "decoded text has no file offsets");
        }
    }
    assert!(ptx >= 2, "{name}: {ptx} PTX entries");
    // The file's own entry sums it up.
    let file = r.files.iter().find(|f| f.blob_offset.is_none()).unwrap();
    assert_eq!(file.status, FileStatus::Ok);
    let skipped = list.len() - ptx;
    assert_eq!(
        file.message.as_deref(),
        Some(format!("{} fatbin entries ({ptx} checked, {skipped} skipped)", list.len()).as_str())
    );
}

#[test]
fn every_compression_mode_reports_the_ptx_findings() {
    for mode in ["default", "size", "balance"] {
        assert_ptx_entries_match(
            &format!("k.{mode}.fatbin"),
            &["fatbin: PTX compute_80, zstd", "fatbin: PTX compute_90, zstd"],
        );
    }
    assert_ptx_entries_match("k.speed.fatbin", &["fatbin: PTX compute_80, lz4", "fatbin: PTX compute_90, lz4"]);
    for plain in ["k.none.fatbin", "k.no-compress.fatbin"] {
        assert_ptx_entries_match(plain, &["fatbin: PTX compute_80", "fatbin: PTX compute_90"]);
    }
    assert_ptx_entries_match(
        "k.concat.fatbin",
        &["fatbin: PTX compute_80, zstd, concatenated", "fatbin: PTX compute_90, zstd, concatenated"],
    );
}

#[test]
fn sass_entries_are_listed_as_skipped_with_their_arch() {
    assert_ptx_entries_match(
        "k.compress-all.fatbin",
        &[
            "fatbin: SASS sm_80, zstd",
            "fatbin: PTX compute_80, zstd",
            "fatbin: SASS sm_90, zstd",
            "fatbin: PTX compute_90, zstd",
        ],
    );
    assert_ptx_entries_match(
        "k.compress-all-speed.fatbin",
        &[
            "fatbin: SASS sm_80, lz4",
            "fatbin: PTX compute_80, lz4",
            "fatbin: SASS sm_90, lz4",
            "fatbin: PTX compute_90, lz4",
        ],
    );
    assert_ptx_entries_match(
        "k.sass.fatbin",
        &["fatbin: SASS sm_80", "fatbin: PTX compute_80, zstd", "fatbin: SASS sm_90", "fatbin: PTX compute_90, zstd"],
    );
    let r = check(&fatbin_dir().join("k.sass.fatbin"));
    let msgs: Vec<String> = entries(&r).into_iter().filter(|e| e.2 == FileStatus::Skipped).map(|e| e.3).collect();
    assert_eq!(
        msgs,
        [
            "SASS (cubin) for sm_80, not analysed: irlint reads PTX",
            "SASS (cubin) for sm_90, not analysed: irlint reads PTX"
        ]
    );
    // A bare cubin is skipped as a whole, naming its arch.
    let r = check(&fatbin_dir().join("k.sm_90.cubin"));
    assert_eq!(r.files.len(), 1);
    assert_eq!(r.files[0].status, FileStatus::Skipped);
    assert_eq!(r.files[0].message.as_deref(), Some("SASS (cubin) for sm_90, not analysed: irlint reads PTX"));
}

#[test]
fn elf_objects_archives_and_libraries() {
    assert_ptx_entries_match("k.o", &[".nv_fatbin: PTX compute_80, zstd", ".nv_fatbin: PTX compute_90, zstd"]);
    assert_ptx_entries_match(
        "k.rdc.o",
        &["__nv_relfatbin: PTX compute_80, zstd", "__nv_relfatbin: PTX compute_90, zstd"],
    );
    assert_ptx_entries_match("libk.so", &[".nv_fatbin: PTX compute_80, zstd", ".nv_fatbin: PTX compute_90, zstd"]);
    assert_ptx_entries_match(
        "libk.a",
        &[
            "libk.a(k.o) .nv_fatbin: PTX compute_80, zstd",
            "libk.a(k.o) .nv_fatbin: PTX compute_90, zstd",
            "libk.a(k.rdc.o) __nv_relfatbin: PTX compute_80, zstd",
            "libk.a(k.rdc.o) __nv_relfatbin: PTX compute_90, zstd",
        ],
    );
    // The relocatable entries carry nvcc's options for ptxas.
    let bytes = std::fs::read(fatbin_dir().join("k.rdc.o")).unwrap();
    let (scan, _) = containers::scan_fatbins("k.rdc.o", &bytes);
    assert_eq!(scan.entries.len(), 2);
    assert_eq!(scan.entries[0].options.as_deref(), Some("--compile-only"));
    assert_eq!((scan.entries[0].arch, scan.entries[0].version), (80, (9, 5)));
}

#[test]
fn json_sarif_and_dump_name_the_entry() {
    let path = fatbin_dir().join("k.concat.fatbin");
    let (code, out, _) = run(irlint().args(["check", "--format", "json"]).arg(&path));
    assert_eq!(code, 1, "{out}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let f = &j["findings"][0];
    assert_eq!(f["rule"], "ptx-shared-address-misaligned");
    assert_eq!(f["section"], "fatbin: PTX compute_80, zstd, concatenated");
    assert_eq!(f["blob_offset"], 88);
    assert_eq!(f["line"], 37);
    let (_, out, _) = run(irlint().args(["check", "--format", "sarif"]).arg(&path));
    let s: serde_json::Value = serde_json::from_str(&out).unwrap();
    let loc = &s["runs"][0]["results"][0]["locations"][0];
    let logical = loc["logicalLocations"].as_array().unwrap();
    assert_eq!(logical[0], serde_json::json!({"name": "_Z1kPj", "kind": "function"}));
    assert_eq!(
        logical.last().unwrap(),
        &serde_json::json!({"name": "fatbin: PTX compute_80, zstd, concatenated", "kind": "module"})
    );
    assert_eq!(loc["physicalLocation"]["region"]["byteOffset"], 88);
    let (code, out, _) = run(irlint().args(["dump", "--blobs"]).arg(fatbin_dir().join("k.sass.fatbin")));
    assert_eq!(code, 0);
    assert!(out.contains("offset 0x00000010  size      3360  sass    fatbin: SASS sm_80  (version 1.8)"), "{out}");
    assert!(out.contains("ptx     fatbin: PTX compute_90, zstd  (version 9.5, 390 stored bytes)"), "{out}");
    let (_, out, _) = run(irlint().args(["dump", "--blobs", "--format", "json"]).arg(fatbin_dir().join("libk.so")));
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let e = &j["files"][0]["entries"];
    assert_eq!(e.as_array().map(Vec::len), Some(2));
    assert_eq!(e[1]["label"], ".nv_fatbin: PTX compute_90, zstd");
    assert_eq!(e[1]["size"], 694);
}

#[test]
fn directory_walk_finds_every_container() {
    let r = check(&fatbin_dir());
    let ptx_entries = r.files.iter().filter(|f| f.section.as_deref().is_some_and(|s| s.contains(": PTX "))).count();
    // 13 containers with two PTX entries, libk.a with four.
    assert_eq!(ptx_entries, 13 * 2 + 4);
    let findings = r.diagnostics.iter().filter(|d| d.rule == "ptx-shared-address-misaligned").count();
    // One per PTX entry, plus the two reference .ptx files.
    assert_eq!(findings, ptx_entries + 2);
}

// ---------------------------------------------------------------- Fossilize

fn foz(name: &str) -> PathBuf {
    fixtures().join("fossilize").join(name)
}

#[test]
fn fossilize_modules_report_their_findings() {
    let r = check(&foz("sb.foz"));
    let list = entries(&r);
    assert_eq!(
        list.iter().map(|e| (e.0, e.1.as_str(), e.2)).collect::<Vec<_>>(),
        [
            (0xA0, "SPIR-V module (compute main)", FileStatus::Ok),
            (0x2CC, "SPIR-V module (fragment main)", FileStatus::Ok),
        ]
    );
    // Each module's entry is named by its hash (`FILE@HASH`); the offset is kept.
    let names: Vec<_> = r.files.iter().filter_map(|f| f.entry.as_deref()).collect();
    assert_eq!(names, ["005b1d4800c0ffee", "5b1d3d0000000002"]);
    let names: Vec<_> = r.diagnostics.iter().map(|d| d.location.entry.as_deref().unwrap()).collect();
    assert_eq!(names, ["005b1d4800c0ffee", "5b1d3d0000000002"]);
    let got: Vec<(u64, String, String)> =
        r.diagnostics.iter().map(|d| (d.location.blob_offset.unwrap(), d.rule.clone(), d.message.clone())).collect();
    let msg =
        "element stride 48 bytes straddles 32-byte lines; pad to 64, reorder fields, or split into parallel buffers";
    let rule = "structured-buffer-stride-not-cache-aligned";
    assert_eq!(got, [(0xA0, rule.into(), msg.into()), (0x2CC, rule.into(), msg.into())]);
    // The same as the modules alone, where the shared fixtures are present.
    if let Some(spirv) = common::shared("fixtures/spirv") {
        for (i, name) in ["sb_stride48_rw.spv", "sb_stride_mixed.spv"].iter().enumerate() {
            let alone = check(&spirv.join(name));
            let want: Vec<_> = alone
                .diagnostics
                .iter()
                .map(|d| (d.rule.clone(), d.message.clone(), d.location.resource.as_ref().map(|r| r.to_string())))
                .collect();
            let off = list[i].0;
            let got: Vec<_> = r
                .diagnostics
                .iter()
                .filter(|d| d.location.blob_offset == Some(off))
                .map(|d| (d.rule.clone(), d.message.clone(), d.location.resource.as_ref().map(|r| r.to_string())))
                .collect();
            assert_eq!(got, want, "{name}");
        }
    } else {
        common::skip_shared("fossilize modules against the shared SPIR-V fixtures");
    }
}

#[test]
fn fossilize_modules_are_named_file_at_hash_in_every_format() {
    let path = foz("sb.foz");
    let shown = path.display().to_string();
    let (code, out, _) = run(irlint().arg("check").arg(&path));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains(&format!("--> {shown}@005b1d4800c0ffee [SPIR-V module (compute main)]\n")), "{out}");
    assert!(out.contains(&format!("--> {shown}@5b1d3d0000000002 [SPIR-V module (fragment main)]\n")), "{out}");
    assert!(!out.contains("@0x"), "{out}");
    // JSON: the name and, for debugging, the entry's offset.
    let (_, out, _) = run(irlint().args(["check", "--format", "json"]).arg(&path));
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let f = &j["findings"][0];
    assert_eq!((&f["entry"], &f["blob_offset"]), (&serde_json::json!("005b1d4800c0ffee"), &serde_json::json!(0xA0)));
    assert_eq!(f["section"], "SPIR-V module (compute main)");
    let files: Vec<_> = j["files"].as_array().unwrap().iter().filter_map(|f| f["entry"].as_str()).collect();
    assert_eq!(files, ["005b1d4800c0ffee", "5b1d3d0000000002"]);
    // SARIF: the module's logical location has the qualified name; the region the offset.
    let (_, out, _) = run(irlint().args(["check", "--format", "sarif"]).arg(&path));
    let s: serde_json::Value = serde_json::from_str(&out).unwrap();
    let loc = &s["runs"][0]["results"][1]["locations"][0];
    let module = loc["logicalLocations"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        module,
        serde_json::json!({"name": "SPIR-V module (fragment main)", "kind": "module",
            "fullyQualifiedName": format!("{shown}@5b1d3d0000000002")})
    );
    assert_eq!(loc["physicalLocation"]["region"]["byteOffset"], 0x2CC);
    assert!(loc["message"]["text"].as_str().unwrap().contains("entry 5b1d3d0000000002 at byte offset 0x2CC"), "{loc}");
    // dump --blobs, text and JSON.
    let (_, out, _) = run(irlint().args(["dump", "--blobs"]).arg(&path));
    assert!(
        out.contains(&format!(
            "offset 0x000000A0  size       575  spirv   {shown}@005b1d4800c0ffee  SPIR-V module (compute main)  (500 stored bytes, zlib)"
        )),
        "{out}"
    );
    let (_, out, _) = run(irlint().args(["dump", "--blobs", "--format", "json"]).arg(&path));
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let e = &j["files"][0]["entries"];
    assert_eq!((&e[1]["entry"], &e[1]["offset"]), (&serde_json::json!("5b1d3d0000000002"), &serde_json::json!(0x2CC)));
    // A skipped module is listed by name too (its declared size is refused).
    let mut b = std::fs::read(&path).unwrap();
    b[0xA0 + 52..0xA0 + 56].copy_from_slice(&(1u32 << 30).to_le_bytes());
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.foz");
    std::fs::write(&big, &b).unwrap();
    let (_, out, _) = run(irlint().arg("check").arg(&big));
    let line =
        format!("  {}@005b1d4800c0ffee: not decompressed: declares 1073741824 decompressed bytes", big.display());
    assert!(out.contains(&line), "{out}");
}

#[test]
fn damaged_fossilize_entries_are_input_errors_and_the_rest_is_checked() {
    let r = check(&foz("damaged.foz"));
    let list = entries(&r);
    assert_eq!(
        list.iter().map(|e| (e.1.as_str(), e.2)).collect::<Vec<_>>(),
        [("SPIR-V module", FileStatus::Error), ("SPIR-V module", FileStatus::Error), ("SPIR-V module", FileStatus::Ok),]
    );
    let names: Vec<_> = r.files.iter().filter_map(|f| f.entry.as_deref()).collect();
    assert_eq!(names, ["005b1d4800c0ffee", "0bad000000000003", "5b1d3d0000000002"]);
    assert!(list[0].3.contains("CRC-32 of the stored bytes is 0x"), "{}", list[0].3);
    assert!(list[1].3.contains("varint data does not hold 256 words"), "{}", list[1].3);
    let errors: Vec<_> = r.diagnostics.iter().filter(|d| d.rule == "input-error").collect();
    assert_eq!(errors.len(), 2);
    assert!(errors[0].message.starts_with("SPIR-V module: malformed: CRC-32"), "{}", errors[0].message);
    assert_eq!(errors[0].location.entry.as_deref(), Some("005b1d4800c0ffee"));
    assert_eq!(errors[0].location.blob_offset, Some(0x10));
    assert_eq!(r.diagnostics.iter().filter(|d| d.rule == "structured-buffer-stride-not-cache-aligned").count(), 1);
}

// ---------------------------------------------------------------- hostile

fn header(kind: u16, size: u32, payload: u64, compressed: u32, arch: u32, flags: u64, decompressed: u64) -> Vec<u8> {
    let mut h = Vec::new();
    h.extend(kind.to_le_bytes());
    h.extend(0x0101u16.to_le_bytes());
    h.extend(size.to_le_bytes());
    h.extend(payload.to_le_bytes());
    h.extend(compressed.to_le_bytes());
    h.extend(0u32.to_le_bytes());
    h.extend(5u16.to_le_bytes());
    h.extend(9u16.to_le_bytes());
    h.extend(arch.to_le_bytes());
    h.extend([0u8; 8]);
    h.extend(flags.to_le_bytes());
    h.extend([0u8; 8]);
    h.extend(decompressed.to_le_bytes());
    h.resize(size.max(64) as usize, 0);
    h
}

fn container(body: &[u8]) -> Vec<u8> {
    let mut c = fatbin::MAGIC.to_le_bytes().to_vec();
    c.extend(1u16.to_le_bytes());
    c.extend(16u16.to_le_bytes());
    c.extend((body.len() as u64).to_le_bytes());
    c.extend(body);
    c
}

fn ptx_entry(text: &[u8]) -> Vec<u8> {
    let mut e = header(1, 64, text.len() as u64, 0, 80, 0x11, 0);
    e.extend(text);
    e
}

fn found(bytes: &[u8]) -> Vec<(u64, String, FileStatus, String)> {
    let f = containers::check("x.fatbin", bytes, &CheckOptions::default());
    f.files
        .iter()
        .map(|f| (f.blob_offset.unwrap(), f.section.clone().unwrap(), f.status, f.message.clone().unwrap_or_default()))
        .collect()
}

const PTX: &[u8] = b".version 8.0\n.target sm_80\n.address_size 64\n";

#[test]
fn written_containers_read_back() {
    let c = container(&[ptx_entry(PTX), ptx_entry(PTX)].concat());
    let got = found(&c);
    assert_eq!(got.len(), 2);
    assert_eq!((got[0].0, got[0].2), (16, FileStatus::Ok));
    assert_eq!((got[1].0, got[1].2), (16 + 64 + PTX.len() as u64, FileStatus::Ok));
}

#[test]
fn truncated_and_inconsistent_containers_are_errors() {
    let good = container(&ptx_entry(PTX));
    // The container declares more than the file holds.
    let got = found(&good[..good.len() - 1]);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].2, FileStatus::Error);
    assert!(got[0].3.contains("the container declares 108 bytes of entries, 107 are left"), "{}", got[0].3);
    // An entry header size under 64, or past the container.
    for bad in [32u32, 4096] {
        let mut e = ptx_entry(PTX);
        e[4..8].copy_from_slice(&bad.to_le_bytes());
        let got = found(&container(&e));
        assert_eq!(got[0].2, FileStatus::Error, "{bad}");
        assert!(got[0].3.contains(&format!("entry header size {bad} (64 to 108 in this container)")), "{}", got[0].3);
    }
    // A payload past the container.
    let mut e = ptx_entry(PTX);
    e[8..16].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let got = found(&container(&e));
    assert!(
        got[0].3.contains("entry payload of 1099511627776 bytes runs past the container (44 left)"),
        "{}",
        got[0].3
    );
    // A compressed size larger than the payload.
    let mut e = header(1, 64, 8, 9, 80, 0x8011, 100);
    e.extend([0u8; 8]);
    let got = found(&container(&e));
    assert!(got[0].3.contains("compressed size 9 is larger than the payload (8 bytes)"), "{}", got[0].3);
    // Both compression flags.
    let mut e = header(1, 64, 8, 8, 80, 0xA011, 100);
    e.extend([0u8; 8]);
    assert!(found(&container(&e))[0].3.contains("name both LZ4 and zstd"));
    // A PTX entry that holds no PTX.
    let got = found(&container(&ptx_entry(b"\x7FELF not ptx at all")));
    assert_eq!(got[0].2, FileStatus::Error);
    assert!(got[0].3.contains("does not hold PTX text"));
    // The same bytes outside a fatbin file or section are a false hit: dropped.
    let mut junk = b"JUNK".to_vec();
    junk.extend(&good[..good.len() - 1]);
    assert!(found(&junk).is_empty());
    assert!(containers::check("x.bin", &junk, &CheckOptions::default()).is_empty());
}

/// A zstd frame of `blocks` RLE blocks of 128 KiB.
fn zstd_rle(blocks: usize) -> Vec<u8> {
    let mut f = vec![0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x58];
    for i in 0..blocks {
        let h = u32::from(i + 1 == blocks) | (1 << 1) | ((128 << 10) << 3);
        f.extend_from_slice(&h.to_le_bytes()[..3]);
        f.push(b' ');
    }
    f
}

#[test]
fn decompression_bombs_are_skipped_or_refused() {
    let bomb = zstd_rle(400); // 50 MiB from 1.6 KB
    let entry = |declared: u64| {
        let mut e = header(1, 64, bomb.len() as u64, bomb.len() as u32, 80, 0x8011, declared);
        e.extend(&bomb);
        container(&e)
    };
    // Declared honestly: over the ratio limit, skipped with the values.
    let got = found(&entry(400 << 17));
    assert_eq!(got[0].2, FileStatus::Skipped);
    assert_eq!(
        got[0].3,
        "not decompressed: declares 52428800 decompressed bytes from 1606 (ratio 32645), over the ratio limit 1000"
    );
    // Declared small: decoding stops one byte past it, an input error.
    let got = found(&entry(4096));
    assert_eq!(got[0].2, FileStatus::Error);
    assert!(got[0].3.contains("zstd data decompresses to 4097 bytes, the entry declares 4096"), "{}", got[0].3);
    // Over the absolute limit.
    let got = found(&entry(1 << 40));
    assert!(got[0].3.contains("over the 268435456-byte limit"), "{}", got[0].3);
    // A Fossilize entry declaring 3 MB from 100 stored bytes is refused before
    // any decoding (a real deflate stream tops out near 1030:1, which only
    // the per-entry slack lets through for small outputs).
    let mut db = irlint::input::fossilize::MAGIC.to_vec();
    db.extend([0, 0, 0, 6]);
    db.extend(format!("{:024x}{:016x}", 4, 0xB0B).as_bytes());
    for w in [100u32, 2, 0, 3 << 20] {
        db.extend(w.to_le_bytes());
    }
    db.extend([0x78; 100]);
    let got = found(&db);
    assert_eq!(got[0].2, FileStatus::Skipped);
    assert!(got[0].3.contains("over the ratio limit 1000"), "{}", got[0].3);
}

#[test]
fn concatenated_groups_are_checked() {
    let bytes = std::fs::read(fatbin_dir().join("k.concat.fatbin")).unwrap();
    let check = |b: &[u8]| found(b).into_iter().map(|e| (e.2, e.3)).collect::<Vec<_>>();
    // Member count larger than the table.
    let mut b = bytes.clone();
    b[0x50..0x54].copy_from_slice(&3u32.to_le_bytes());
    let got = check(&b);
    assert_eq!(got.len(), 1);
    assert!(got[0].1.contains("3 members cannot fit a 168-byte member table"), "{:?}", got);
    // A member that is a group itself: the nesting limit.
    let mut b = bytes.clone();
    b[0x58..0x5A].copy_from_slice(&0x100u16.to_le_bytes());
    assert!(check(&b)[0].1.contains("a concatenated entry inside another (nesting over 1)"));
    // A member past the group's payload.
    let mut b = bytes.clone();
    b[0x5C..0x60].copy_from_slice(&5000u32.to_le_bytes());
    assert!(check(&b)[0].1.contains("member 0 at 5000, 696 bytes, runs past the group's 1392 decompressed bytes"));
}

#[test]
fn every_prefix_and_byte_flip_is_handled() {
    let opts = CheckOptions::default();
    for name in ["k.concat.fatbin", "k.speed.fatbin", "k.sass.fatbin"] {
        let bytes = std::fs::read(fatbin_dir().join(name)).unwrap();
        for n in (0..bytes.len()).step_by(11) {
            let f = containers::check(name, &bytes[..n], &opts);
            // A cut stand-alone fatbin is always reported, never silently empty.
            if n >= 16 {
                assert!(f.files.iter().any(|f| f.status == FileStatus::Error), "{name} cut at {n}");
            }
        }
        for i in (0..bytes.len().min(600)).step_by(3) {
            let mut b = bytes.clone();
            b[i] ^= 0x5A;
            let _ = containers::check(name, &b, &opts);
        }
    }
    let bytes = std::fs::read(foz("sb.foz")).unwrap();
    for n in 0..bytes.len() {
        let _ = containers::check("sb.foz", &bytes[..n], &opts);
    }
    for i in (0..bytes.len()).step_by(5) {
        let mut b = bytes.clone();
        b[i] ^= 0xFF;
        let _ = containers::check("sb.foz", &b, &opts);
    }
}

fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in bytes.chunks(3) {
        let v =
            (u32::from(c[0]) << 16) | (u32::from(*c.get(1).unwrap_or(&0)) << 8) | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            s.push(if i <= c.len() { A[(v >> (18 - 6 * i)) as usize & 63] as char } else { '=' });
        }
    }
    s
}

/// A Fossilize database with one stored shader-module entry holding `payload`.
fn foz_with(payload: &[u8]) -> Vec<u8> {
    let mut db = fossilize::MAGIC.to_vec();
    db.extend([0, 0, 0, 6]);
    db.extend(format!("{:024x}{:016x}", 4, 0x5b1d3d0000000002u64).as_bytes());
    for w in [payload.len() as u32, 1, 0, payload.len() as u32] {
        db.extend(w.to_le_bytes());
    }
    db.extend(payload);
    db
}

/// A module carrying its words as base64 `code` (Fossilize's JSON export
/// form, which its replayer reads) is checked like the varint form; a
/// `code` that does not hold `codeSize` bytes is an error naming the module.
#[test]
fn base64_fossilize_modules_are_read() {
    let good = std::fs::read(foz("sb.foz")).unwrap();
    let db = fossilize::read(&good);
    let e = db.entries.iter().find(|e| e.hash == 0x5b1d3d0000000002).unwrap();
    let spirv = fossilize::shader_modules(&e.payload(&good).unwrap(), e.offset).unwrap().remove(0).spirv;
    let json = format!(
        r#"{{"version":6,"shaderModules":{{"5b1d3d0000000002":{{"flags":0,"codeSize":{},"code":"{}"}}}}}}"#,
        spirv.len(),
        base64(&spirv)
    );
    let f = containers::check("b64.foz", &foz_with(json.as_bytes()), &CheckOptions::default());
    assert_eq!(f.files.len(), 1);
    assert_eq!((f.files[0].status, f.files[0].entry.as_deref()), (FileStatus::Ok, Some("5b1d3d0000000002")));
    let rules: Vec<_> = f.diagnostics.iter().map(|d| d.rule.as_str()).collect();
    assert_eq!(rules, ["structured-buffer-stride-not-cache-aligned"]);
    // codeSize one word more than the text holds.
    let json = json.replace(&format!(r#""codeSize":{}"#, spirv.len()), &format!(r#""codeSize":{}"#, spirv.len() + 4));
    let got = found(&foz_with(json.as_bytes()));
    assert_eq!(got[0].2, FileStatus::Error);
    assert!(got[0].3.contains("module 5b1d3d0000000002: base64 \"code\" of"), "{}", got[0].3);
    // Neither form.
    let got = found(&foz_with(br#"{"version":6,"shaderModules":{"01":{"codeSize":4,"flags":0}}}"#));
    assert!(got[0].3.contains("module 01: neither varint data nor base64 \"code\""), "{}", got[0].3);
}

/// A compression flag other than 1 (stored) and 2 (deflate) is an input
/// error naming the module; its bytes are not read as stored data, and the
/// other modules are still checked (Fossilize's own reader refuses it too).
#[test]
fn unknown_fossilize_compression_flags_are_input_errors() {
    let good = std::fs::read(foz("sb.foz")).unwrap();
    // The stored module (flag 1) at 0x2CC, whose bytes would read as SPIR-V.
    for flags in [0u32, 3, 0x101, 0x8000_0001] {
        let mut b = good.clone();
        b[0x2CC + 44..0x2CC + 48].copy_from_slice(&flags.to_le_bytes());
        let got = found(&b);
        assert_eq!(
            got.iter().map(|e| (e.0, e.2)).collect::<Vec<_>>(),
            [(0xA0, FileStatus::Ok), (0x2CC, FileStatus::Error)],
            "flags {flags}"
        );
        assert_eq!(
            got[1].3,
            format!(
                "unsupported: unknown payload encoding (flags {flags}; Fossilize writes 1, stored, and 2, deflate) at byte offset 0x{:x} ({})",
                0x2CC + 44,
                0x2CC + 44
            )
        );
        let f = containers::check("x.foz", &b, &CheckOptions::default());
        let errors: Vec<_> = f.diagnostics.iter().filter(|d| d.rule == "input-error").collect();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].location.entry.as_deref(), Some("5b1d3d0000000002"));
        assert!(errors[0].message.starts_with("SPIR-V module (fragment main): unsupported: unknown payload encoding"));
        assert_eq!(f.diagnostics.iter().filter(|d| d.rule == "structured-buffer-stride-not-cache-aligned").count(), 1);
    }
}

#[test]
fn hostile_fossilize_tables() {
    let good = std::fs::read(foz("sb.foz")).unwrap();
    // A future version, a version Fossilize no longer reads, a version 5
    // database (the same layout as 6).
    let mut b = good.clone();
    b[15] = 7;
    let got = found(&b);
    assert_eq!(got.len(), 1);
    assert!(
        got[0].3.contains(
            "Fossilize database version 7: newer than the versions Fossilize writes today (versions 5 and 6 are read)"
        ),
        "{}",
        got[0].3
    );
    b[15] = 4;
    let got = found(&b);
    assert!(got[0].3.contains("Fossilize database version 4: written by Fossilize before May 2019"), "{}", got[0].3);
    b[15] = 5;
    assert_eq!(found(&b).iter().filter(|e| e.2 == FileStatus::Ok).count(), 2);
    // A damaged entry name stops the table there; the entries before are kept.
    let mut b = good.clone();
    let second = 0xA0; // the first module's entry
    b[second + 3] = b'z';
    let got = found(&b);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(got[0].3.contains("entry name is not 40 hexadecimal digits"), "{got:?}");
    // Deeply nested JSON is an entry error, not a stack overflow.
    let nested = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let mut db = good[..16].to_vec();
    db.extend(format!("{:024x}{:016x}", 4, 1).as_bytes());
    for w in [nested.len() as u32, 1, 0, nested.len() as u32] {
        db.extend(w.to_le_bytes());
    }
    db.extend(nested.as_bytes());
    let got = found(&db);
    assert_eq!(got[0].2, FileStatus::Error);
    assert!(got[0].3.contains("recursion limit exceeded"), "{}", got[0].3);
    // A codeSize larger than four bytes per varint byte allows.
    let json = br#"{"version":6,"shaderModules":{"0000000000000001":{"varintOffset":0,"varintSize":4,"codeSize":4000000000,"flags":0}}}"#;
    let mut payload = json.to_vec();
    payload.extend([0, 1, 2, 3, 4]);
    let mut db = good[..16].to_vec();
    db.extend(format!("{:024x}{:016x}", 4, 1).as_bytes());
    for w in [payload.len() as u32, 1, 0, payload.len() as u32] {
        db.extend(w.to_le_bytes());
    }
    db.extend(&payload);
    let got = found(&db);
    assert!(got[0].3.contains("codeSize 4000000000 does not fit 4 varint bytes"), "{}", got[0].3);
}

// ---------------------------------------------------------------- scale

/// A minimal little-endian ELF64 shared object with the given sections laid
/// out at the given offsets (`(name, offset, bytes)`; `bytes` = `None`
/// leaves the section a hole of `len` bytes), written sparse: holes cost no
/// disk. Section headers and names go after the last section.
fn write_sparse_elf(path: &Path, sections: &[(&str, u64, u64, Option<&[u8]>)]) -> u64 {
    use std::io::{Seek, SeekFrom, Write};
    let mut names = vec![0u8];
    let mut name_at = Vec::new();
    for (n, ..) in sections {
        name_at.push(names.len() as u32);
        names.extend(n.as_bytes());
        names.push(0);
    }
    let shstr_name = names.len() as u32;
    names.extend(b".shstrtab\0");
    let end = sections.iter().map(|(_, off, len, _)| off + len).max().unwrap_or(0x40);
    let names_at = end.next_multiple_of(8);
    let shoff = (names_at + names.len() as u64).next_multiple_of(8);
    let shnum = sections.len() as u16 + 2;
    let mut f = std::fs::File::create(path).unwrap();
    let mut eh = vec![0x7F, b'E', b'L', b'F', 2, 1, 1, 0];
    eh.resize(16, 0);
    eh.extend(3u16.to_le_bytes()); // ET_DYN
    eh.extend(62u16.to_le_bytes()); // x86-64
    eh.extend(1u32.to_le_bytes());
    eh.extend(0u64.to_le_bytes()); // entry
    eh.extend(0u64.to_le_bytes()); // phoff
    eh.extend(shoff.to_le_bytes());
    eh.extend(0u32.to_le_bytes());
    eh.extend(64u16.to_le_bytes());
    eh.extend([0u8; 4]); // phentsize, phnum
    eh.extend(64u16.to_le_bytes());
    eh.extend(shnum.to_le_bytes());
    eh.extend((shnum - 1).to_le_bytes());
    assert_eq!(eh.len(), 64);
    f.write_all(&eh).unwrap();
    let sh = |name: u32, ty: u32, off: u64, size: u64| {
        let mut h = Vec::new();
        h.extend(name.to_le_bytes());
        h.extend(ty.to_le_bytes());
        h.extend(0u64.to_le_bytes()); // flags
        h.extend(0u64.to_le_bytes()); // addr
        h.extend(off.to_le_bytes());
        h.extend(size.to_le_bytes());
        h.extend([0u8; 8]); // link, info
        h.extend(8u64.to_le_bytes());
        h.extend(0u64.to_le_bytes());
        h
    };
    let mut headers = sh(0, 0, 0, 0);
    for (i, (_, off, len, data)) in sections.iter().enumerate() {
        headers.extend(sh(name_at[i], 1, *off, *len));
        if let Some(d) = data {
            f.seek(SeekFrom::Start(*off)).unwrap();
            f.write_all(d).unwrap();
        }
    }
    headers.extend(sh(shstr_name, 3, names_at, names.len() as u64));
    f.seek(SeekFrom::Start(names_at)).unwrap();
    f.write_all(&names).unwrap();
    f.seek(SeekFrom::Start(shoff)).unwrap();
    f.write_all(&headers).unwrap();
    shoff + headers.len() as u64
}

/// `(peak RssAnon, peak VmHWM)` of a process, in KiB, sampled from `/proc`.
fn rss_kb(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    };
    (field("RssAnon:"), field("VmHWM:"))
}

/// A `libtorch_cuda.so`-shaped input of ~200 MB: a 192 MiB `.text` and a
/// `.nv_fatbin` of 400 containers, each with a stored PTX entry (the
/// fixture kernel, one finding) and a 16 KiB SASS entry. Mapped, the file's
/// pages are file-backed (`RssFile`, dropped by the kernel under pressure,
/// never copied); what irlint allocates itself (`RssAnon`) must stay far
/// below the file's size — before inputs were mapped it held the whole file.
/// The peak `RssAnon` is sampled every 2 ms: a copy of the file would be
/// held for the whole run, so sampling cannot miss it.
#[test]
#[cfg(target_os = "linux")]
fn a_200_mb_library_is_checked_in_memory_bounded_by_its_largest_entry() {
    const CONTAINERS: usize = 400;
    let ptx = std::fs::read(fatbin_dir().join("k.compute_80.ptx")).unwrap();
    let mut nv = Vec::new();
    for _ in 0..CONTAINERS {
        let mut body = ptx_entry(&ptx);
        body.extend(header(2, 64, 16 << 10, 0, 80, 0x11, 0));
        body.extend(std::iter::repeat_n(0x5Au8, 16 << 10));
        nv.extend(container(&body));
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("libbig_cuda.so");
    let text = 192u64 << 20;
    let nv_at = 0x1000 + text;
    let size =
        write_sparse_elf(&path, &[(".text", 0x1000, text, None), (".nv_fatbin", nv_at, nv.len() as u64, Some(&nv))]);
    assert!(size > 200_000_000, "{size}");
    let start = std::time::Instant::now();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_irlint"))
        .args(["check", "-j", "1", "--format", "json"])
        .arg(&path)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).unwrap();
        s
    });
    let (mut anon, mut hwm) = (0, 0);
    let status = loop {
        let (a, h) = rss_kb(pid);
        (anon, hwm) = (anon.max(a), hwm.max(h));
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(start.elapsed().as_secs() < 240, "still running after 240 s");
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    let secs = start.elapsed().as_secs_f64();
    let out = reader.join().unwrap();
    assert_eq!(status.code(), Some(1), "{out}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let findings = j["findings"].as_array().unwrap();
    assert_eq!(findings.len(), CONTAINERS);
    assert!(findings.iter().all(|f| f["rule"] == "ptx-shared-address-misaligned" && f["line"] == 37));
    let files = j["files"].as_array().unwrap();
    let status_of = |s: &str| files.iter().filter(|f| f["status"] == s && f["blob_offset"].is_u64()).count();
    assert_eq!((status_of("ok"), status_of("skipped")), (CONTAINERS, CONTAINERS));
    eprintln!("{} MB file: {secs:.1} s, peak RssAnon {} MB, peak VmHWM {} MB", size >> 20, anon >> 10, hwm >> 10);
    assert!(anon > 0, "RssAnon was not sampled");
    // The file is 200 MB; irlint's own memory for it (one small PTX entry
    // at a time) is a few MB on top of the process's ~10-30 MB.
    assert!(anon < 64 << 10, "peak RssAnon {} MB for a {} MB file", anon >> 10, size >> 20);
}

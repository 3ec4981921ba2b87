//! Embedded-shader scanning: fixture shaders hidden at odd offsets in junk, in
//! a hand-built ELF with a `.shaders` section, and through the batch driver.

mod common;

use common::shared_dir;
use irlint::check::{FileStatus, InputKind};
use irlint::input::embedded::{scan, sections, Blob};
use std::path::{Path, PathBuf};

fn data(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)).unwrap()
}

/// Deterministic junk that never contains a magic by accident.
fn junk(n: usize, seed: u8) -> Vec<u8> {
    (0..n).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) | 0x80).collect()
}

/// Appends pieces; returns the file and the offset of every shader piece.
fn assemble(pieces: &[(&[u8], bool)]) -> (Vec<u8>, Vec<u64>) {
    let mut out = Vec::new();
    let mut offsets = Vec::new();
    for (bytes, is_shader) in pieces {
        if *is_shader {
            offsets.push(out.len() as u64);
        }
        out.extend_from_slice(bytes);
    }
    (out, offsets)
}

#[test]
fn blobs_at_odd_offsets_in_junk() {
    let dxil = data("la_load_stride_ok.dxil");
    let spv = data("lv_load_aligned_const.spv");
    let (file, offs) = assemble(&[
        (&junk(7, 1), false),
        (&dxil, true),
        (&junk(14, 2), false),
        (&spv, true),
        (&junk(5, 3), false),
        (&dxil, true),
        (&spv, true), // directly after another blob
        (&junk(3, 4), false),
    ]);
    let blobs = scan(&file);
    let expect = vec![
        Blob { offset: offs[0], len: dxil.len() as u64, kind: InputKind::Dxil, section: None },
        Blob { offset: offs[1], len: spv.len() as u64, kind: InputKind::Spirv, section: None },
        Blob { offset: offs[2], len: dxil.len() as u64, kind: InputKind::Dxil, section: None },
        Blob { offset: offs[3], len: spv.len() as u64, kind: InputKind::Spirv, section: None },
    ];
    assert_eq!(blobs, expect);
    assert_eq!(offs[0], 7);
    assert_ne!(offs[1] % 4, 0, "the SPIR-V module sits at an unaligned offset");
    // Each blob's bytes are exactly the fixture.
    assert_eq!(&file[blobs[1].range()], &spv[..]);
    assert_eq!(&file[blobs[2].range()], &dxil[..]);
}

#[test]
fn truncated_blob_at_file_end_is_dropped() {
    let dxil = data("la_load_stride_ok.dxil");
    let spv = data("lv_load_aligned_const.spv");
    let mut file = junk(9, 5);
    file.extend_from_slice(&spv);
    file.extend_from_slice(&dxil[..dxil.len() - 1]); // declared size runs past the end
    let blobs = scan(&file);
    assert_eq!(blobs.len(), 1);
    assert_eq!((blobs[0].offset, blobs[0].kind), (9, InputKind::Spirv));
}

/// A minimal ELF64 relocatable file: null, `.rodata`, `.shaders`, `.shstrtab`.
fn elf(rodata: &[u8], shaders: &[u8]) -> (Vec<u8>, u64, u64) {
    let shstrtab = b"\0.rodata\0.shaders\0.shstrtab\0".to_vec();
    let mut out = vec![0u8; 64];
    let align = |v: &mut Vec<u8>| {
        while !v.len().is_multiple_of(8) {
            v.push(0);
        }
    };
    let rodata_off = out.len() as u64;
    out.extend_from_slice(rodata);
    align(&mut out);
    let shaders_off = out.len() as u64;
    out.extend_from_slice(shaders);
    align(&mut out);
    let strtab_off = out.len() as u64;
    out.extend_from_slice(&shstrtab);
    align(&mut out);
    let shoff = out.len() as u64;
    // (name offset, type, file offset, size)
    let headers: [(u32, u32, u64, u64); 4] = [
        (0, 0, 0, 0),
        (1, 1, rodata_off, rodata.len() as u64),
        (9, 1, shaders_off, shaders.len() as u64),
        (18, 3, strtab_off, shstrtab.len() as u64),
    ];
    for (name, ty, off, size) in headers {
        out.extend_from_slice(&name.to_le_bytes());
        out.extend_from_slice(&ty.to_le_bytes());
        out.extend_from_slice(&(if ty == 1 { 2u64 } else { 0 }).to_le_bytes()); // SHF_ALLOC
        out.extend_from_slice(&0u64.to_le_bytes()); // addr
        out.extend_from_slice(&off.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes()); // link
        out.extend_from_slice(&0u32.to_le_bytes()); // info
        out.extend_from_slice(&1u64.to_le_bytes()); // addralign
        out.extend_from_slice(&0u64.to_le_bytes()); // entsize
    }
    let mut h = Vec::new();
    h.extend_from_slice(&[0x7F, b'E', b'L', b'F', 2, 1, 1, 0]);
    h.extend_from_slice(&[0; 8]);
    h.extend_from_slice(&1u16.to_le_bytes()); // ET_REL
    h.extend_from_slice(&62u16.to_le_bytes()); // x86-64
    h.extend_from_slice(&1u32.to_le_bytes());
    h.extend_from_slice(&0u64.to_le_bytes()); // entry
    h.extend_from_slice(&0u64.to_le_bytes()); // phoff
    h.extend_from_slice(&shoff.to_le_bytes());
    h.extend_from_slice(&0u32.to_le_bytes()); // flags
    h.extend_from_slice(&64u16.to_le_bytes()); // ehsize
    h.extend_from_slice(&0u16.to_le_bytes()); // phentsize
    h.extend_from_slice(&0u16.to_le_bytes()); // phnum
    h.extend_from_slice(&64u16.to_le_bytes()); // shentsize
    h.extend_from_slice(&4u16.to_le_bytes()); // shnum
    h.extend_from_slice(&3u16.to_le_bytes()); // shstrndx
    out[..64].copy_from_slice(&h);
    (out, rodata_off, shaders_off)
}

#[test]
fn elf_sections_name_the_blobs() {
    let dxil = data("la_load_stride_ok.dxil");
    let spv = data("lv_load_aligned_const.spv");
    let mut rodata = junk(21, 6);
    rodata.extend_from_slice(&spv);
    let (shaders, offs) = assemble(&[(&junk(3, 7), false), (&dxil, true), (&junk(1, 8), false), (&spv, true)]);
    let (file, rodata_off, shaders_off) = elf(&rodata, &shaders);
    let secs = sections(&file);
    let names: Vec<_> = secs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, [".rodata", ".shaders", ".shstrtab"]);
    let blobs = scan(&file);
    let got: Vec<_> = blobs.iter().map(|b| (b.offset, b.kind, b.section.as_deref())).collect();
    assert_eq!(
        got,
        [
            (rodata_off + 21, InputKind::Spirv, Some(".rodata")),
            (shaders_off + offs[0], InputKind::Dxil, Some(".shaders")),
            (shaders_off + offs[1], InputKind::Spirv, Some(".shaders")),
        ]
    );
}

#[test]
fn goblin_failure_keeps_raw_scan() {
    // An ELF header whose section table points past the end: no sections, blobs still found.
    let spv = data("lv_load_aligned_const.spv");
    let (mut file, _, _) = elf(&spv, &[]);
    let bad = (file.len() as u64 * 4).to_le_bytes();
    file[40..48].copy_from_slice(&bad);
    assert!(sections(&file).is_empty());
    let blobs = scan(&file);
    assert_eq!(blobs.len(), 1);
    assert_eq!(blobs[0].section, None);
}

#[test]
fn batch_reports_file_and_blob_entries() {
    let dxil = data("la_load_stride_ok.dxil");
    let spv = data("lv_load_aligned_const.spv");
    let (shaders, offs) = assemble(&[(&junk(3, 9), false), (&dxil, true), (&junk(2, 1), false), (&spv, true)]);
    let (file, _, shaders_off) = elf(&[], &shaders);
    let dir = std::env::temp_dir().join(format!("irlint-embedded-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("game.so");
    std::fs::write(&path, &file).unwrap();
    std::fs::write(dir.join("notes.txt"), b"no shaders in here").unwrap();
    let report = irlint::input::batch::check_paths(std::slice::from_ref(&dir), Default::default());
    std::fs::remove_dir_all(&dir).unwrap();
    let p = path.to_string_lossy().into_owned();
    let entries: Vec<_> =
        report.files.iter().map(|f| (f.path.as_str(), f.kind, f.blob_offset, f.section.as_deref())).collect();
    assert_eq!(
        entries,
        [
            (p.as_str(), InputKind::Binary, None, None),
            (p.as_str(), InputKind::Dxil, Some(shaders_off + offs[0]), Some(".shaders")),
            (p.as_str(), InputKind::Spirv, Some(shaders_off + offs[1]), Some(".shaders")),
            (dir.join("notes.txt").to_str().unwrap(), InputKind::Binary, None, None),
        ]
    );
    assert_eq!(report.files[0].status, FileStatus::Ok);
    assert_eq!(report.files[0].message.as_deref(), Some("2 embedded shaders"));
    assert_eq!(report.files[3].status, FileStatus::Skipped);
    assert_eq!(report.stats.files, 2);
    assert_eq!(report.stats.bytes, file.len() as u64 + 18);
    // Diagnostics of a blob (whatever the front ends say today) carry its offset and section.
    for d in &report.diagnostics {
        if d.location.path == p {
            assert!(d.location.blob_offset.is_some());
            assert_eq!(d.location.section.as_deref(), Some(".shaders"));
        }
    }
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Concatenates every file under `subs` with junk of 1..=13 bytes between
/// them (so modules sit at every alignment) and expects each back from the
/// scan at its offset with its exact size.
fn concatenation_round_trip(shared: &Path, subs: &[&str]) -> usize {
    let mut paths: Vec<PathBuf> = Vec::new();
    for sub in subs {
        files_under(&shared.join(sub), &mut paths);
    }
    paths.sort();
    assert!(!paths.is_empty());
    let mut file = Vec::new();
    let mut expect = Vec::new();
    for (i, p) in paths.iter().enumerate() {
        file.extend(junk(1 + i % 13, i as u8));
        let bytes = std::fs::read(p).unwrap();
        let kind = if !bytes.starts_with(b"DXBC") {
            InputKind::Spirv
        } else if irlint::check::classify("x", &bytes) == InputKind::Dxbc {
            InputKind::Dxbc
        } else {
            InputKind::Dxil
        };
        expect.push((file.len() as u64, bytes.len() as u64, kind, p.clone()));
        file.extend(bytes);
    }
    let blobs = scan(&file);
    let got: Vec<_> = blobs.iter().map(|b| (b.offset, b.len, b.kind)).collect();
    for (g, e) in got.iter().zip(&expect) {
        assert_eq!(*g, (e.0, e.1, e.2), "first difference at {}", e.3.display());
    }
    assert_eq!(got.len(), expect.len());
    expect.len()
}

#[test]
fn every_shared_fixture_is_found_in_a_concatenation() {
    let Some(shared) = shared_dir() else {
        common::skip_shared("../shared not found (set IRLINT_SHARED)");
        return;
    };
    assert!(concatenation_round_trip(&shared, &["fixtures/dxil", "fixtures/spirv"]) >= 100);
}

#[test]
fn every_corpus_shader_is_found_in_a_concatenation() {
    let Some(shared) = shared_dir().filter(|s| s.join("corpus").is_dir()) else {
        common::skip_shared("../shared/corpus not found (set IRLINT_SHARED)");
        return;
    };
    // 334 DXIL + 544 legacy DXBC + 1597 SPIR-V (graph modules without functions included).
    let n = concatenation_round_trip(&shared, &["corpus/dxil", "corpus/dxbc", "corpus/spirv"]);
    assert!(n >= 2000, "{n}");
}

//! The LLVM 3.7 bitcode decoder on real DXIL: every fixture and corpus module
//! decodes and verifies, instruction counts and dx.op sequences match the DXC
//! disassembly, debug locations resolve, and damaged inputs never panic.

use irlint::dxil::llvm::{decode, LlvmModule};
use irlint::ir::{verify::verify, InstKind, Module};
use irlint::read::bitstream;
use irlint::read::dxbc::{self, FourCc};
use std::path::{Path, PathBuf};

fn shared_dir() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("IRLINT_SHARED") {
        let p = PathBuf::from(p);
        if p.is_dir() {
            return Some(p);
        }
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    [root.join("../shared"), root.join("../../shared")].into_iter().find(|p| p.is_dir())
}

fn shared(sub: &str) -> Option<PathBuf> {
    match shared_dir().map(|s| s.join(sub)) {
        Some(p) if p.exists() => Some(p),
        _ => {
            eprintln!("skipping: ../shared/{sub} not found");
            None
        }
    }
}

fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> =
        std::fs::read_dir(dir).map(|rd| rd.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    v.retain(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(suffix)));
    v.sort();
    v
}

fn stem(p: &Path) -> String {
    let n = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    n.trim_end_matches(".dxil").trim_end_matches(".g").to_string()
}

/// Decodes the given program part of a container.
fn decode_part(bytes: &[u8], cc: FourCc) -> Option<Result<LlvmModule, String>> {
    let c = dxbc::parse(bytes, 0).ok()?;
    let part = c.part(cc)?;
    Some((|| {
        let (_, bc, base) = dxbc::program(part).map_err(|e| e.to_string())?;
        let m = decode(bc, base).map_err(|e| e.to_string())?;
        verify(&m.module).map_err(|e| e.to_string())?;
        Ok(m)
    })())
}

fn decode_file(p: &Path, cc: FourCc) -> LlvmModule {
    let bytes = std::fs::read(p).unwrap();
    match decode_part(&bytes, cc) {
        Some(Ok(m)) => m,
        Some(Err(e)) => panic!("{}: {cc}: {e}", p.display()),
        None => panic!("{}: no {cc} part", p.display()),
    }
}

/// Per `define`: (function name, instruction count, dx.op opcodes in order).
fn parse_ll(text: &str) -> Vec<(String, usize, Vec<u32>)> {
    let mut out = Vec::new();
    let mut cur: Option<(String, usize, Vec<u32>)> = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("define ") {
            let at = rest.find('@').expect("define without @");
            let name = &rest[at + 1..];
            let name = if let Some(q) = name.strip_prefix('"') {
                q[..q.find('"').unwrap()].to_string()
            } else {
                name[..name.find('(').unwrap()].to_string()
            };
            cur = Some((name, 0, Vec::new()));
            continue;
        }
        let Some(c) = cur.as_mut() else { continue };
        if t == "}" {
            out.push(cur.take().unwrap());
            continue;
        }
        if t.is_empty() || t.starts_with(';') || t.split_whitespace().next().is_some_and(|w| w.ends_with(':')) {
            continue;
        }
        c.1 += 1;
        if let Some(p) = t.find("@dx.op.") {
            let args = &t[p..];
            if let Some(a) = args.find("(i32 ") {
                let num: String = args[a + 5..].chars().take_while(|ch| ch.is_ascii_digit() || *ch == '-').collect();
                let v: i64 = num.parse().unwrap();
                c.2.push(v as u32);
            }
        }
    }
    out
}

/// Compares decoded functions with the disassembly; returns the number of functions checked.
fn check_against_ll(m: &Module, ll: &str, what: &str) -> usize {
    let defs = parse_ll(ll);
    assert!(!defs.is_empty(), "{what}: no define in disassembly");
    for (name, count, ops) in &defs {
        let f = m
            .functions
            .values()
            .find(|f| &f.name == name && !f.is_declaration)
            .unwrap_or_else(|| panic!("{what}: function {name} not decoded"));
        let n: usize = f.blocks.values().map(|b| b.insts.len()).sum();
        assert_eq!(n, *count, "{what}: instruction count of {name}");
        assert_eq!(n, f.insts.len(), "{what}: every instruction is in a block");
        let decoded: Vec<u32> = f
            .blocks
            .values()
            .flat_map(|b| b.insts.iter())
            .filter_map(|&h| match &f.insts[h].kind {
                InstKind::Call { dx_op, .. } => *dx_op,
                _ => None,
            })
            .collect();
        assert_eq!(&decoded, ops, "{what}: dx.op opcodes of {name}");
    }
    defs.len()
}

#[test]
fn fixtures_decode_verify_and_match_disassembly() {
    let Some(dir) = shared("fixtures/dxil") else { return };
    let dis = dir.join("../dis");
    let mut checked = 0;
    let all = files(&dir, ".dxil");
    assert!(all.len() >= 40, "expected the fixture set, found {}", all.len());
    for p in &all {
        let is_debug = p.to_string_lossy().ends_with(".g.dxil");
        let m = decode_file(p, FourCc::DXIL);
        assert_eq!(m.triple.as_deref(), Some("dxil-ms-dx"), "{}", p.display());
        assert!(m.module.producer.as_deref().is_some_and(|s| s.starts_with("dxc")), "{}", p.display());
        if is_debug {
            let g = decode_file(p, FourCc::ILDB);
            // The debug module has the same dx.op calls as the stripped one.
            let ops = |m: &Module| -> Vec<u32> {
                m.functions
                    .values()
                    .flat_map(|f| f.insts.values())
                    .filter_map(|i| match &i.kind {
                        InstKind::Call { dx_op, .. } => *dx_op,
                        _ => None,
                    })
                    .collect()
            };
            assert_eq!(ops(&g.module), ops(&m.module), "{}: ILDB vs DXIL dx.op calls", p.display());
            assert!(!g.module.locs.is_empty(), "{}: ILDB has locations", p.display());
        } else if let Ok(ll) = std::fs::read_to_string(dis.join(format!("{}.ll", stem(p)))) {
            checked += check_against_ll(&m.module, &ll, &p.display().to_string());
        }
    }
    assert!(checked >= 30, "only {checked} fixture functions compared");
}

#[test]
fn corpus_decodes_verifies_and_matches_disassembly() {
    let Some(dir) = shared("corpus/dxil/vkd3d-proton") else { return };
    let dis = shared("corpus-dis/vkd3d-proton");
    let all = files(&dir, ".dxil");
    assert_eq!(all.len(), 334);
    let mut compared = 0;
    let mut failures = Vec::new();
    for p in &all {
        let bytes = std::fs::read(p).unwrap();
        let m = match decode_part(&bytes, FourCc::DXIL) {
            Some(Ok(m)) => m,
            Some(Err(e)) => {
                failures.push(format!("{}: {e}", p.display()));
                continue;
            }
            None => panic!("{}: no DXIL part", p.display()),
        };
        if let Some(dis) = &dis {
            let name = p.file_name().unwrap().to_string_lossy().replace(".dxil", ".ll");
            if let Ok(ll) = std::fs::read_to_string(dis.join(name)) {
                compared += check_against_ll(&m.module, &ll, &p.display().to_string());
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    if dis.is_some() {
        assert!(compared >= 334, "only {compared} corpus functions compared");
    }
}

//! The LLVM 3.7 bitcode decoder on real DXIL: every fixture and corpus module
//! decodes and verifies, instruction counts and dx.op sequences match the DXC
//! disassembly, debug locations resolve, and damaged inputs never panic.

mod common;

use common::shared_dir;
use irlint::dxil::llvm::{decode, LlvmModule};
use irlint::ir::{verify::verify, InstKind, Module};
use irlint::read::bitstream;
use irlint::read::dxbc::{self, FourCc};
use std::path::{Path, PathBuf};

fn shared(sub: &str) -> Option<PathBuf> {
    match shared_dir().map(|s| s.join(sub)) {
        Some(p) if p.exists() => Some(p),
        _ => {
            common::skip_shared(&format!("../shared/{sub} not found"));
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

/// Undoes the `\XX` escapes of quoted LLVM names.
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 2 < b.len() && b[i + 1].is_ascii_hexdigit() && b[i + 2].is_ascii_hexdigit() {
            out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// One `define` of a disassembly.
#[derive(Default)]
struct LlFunction {
    name: String,
    /// Instruction count.
    insts: usize,
    /// dx.op opcodes in order.
    ops: Vec<u32>,
    /// Attachment kind names on instructions (`!tbaa`, `!dx.precise`), sorted.
    attachments: Vec<String>,
}

fn parse_ll(text: &str) -> Vec<LlFunction> {
    let mut out = Vec::new();
    let mut cur: Option<LlFunction> = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("define ") {
            let at = rest.find('@').expect("define without @");
            let name = &rest[at + 1..];
            let name = if let Some(q) = name.strip_prefix('"') {
                unescape(&q[..q.find('"').unwrap()])
            } else {
                name[..name.find('(').unwrap()].to_string()
            };
            cur = Some(LlFunction { name, ..Default::default() });
            continue;
        }
        let Some(c) = cur.as_mut() else { continue };
        if t == "}" {
            let mut f = cur.take().unwrap();
            f.attachments.sort();
            out.push(f);
            continue;
        }
        if t.is_empty() || t.starts_with(';') || t.split_whitespace().next().is_some_and(|w| w.ends_with(':')) {
            continue;
        }
        c.insts += 1;
        let code = t.split("  ;").next().unwrap_or(t);
        for (k, _) in code.match_indices(", !") {
            let name: String = code[k + 3..].chars().take_while(|ch| !ch.is_whitespace()).collect();
            if code[k + 3 + name.len()..].trim_start().starts_with('!') {
                c.attachments.push(name);
            }
        }
        if let Some(p) = t.find("@dx.op.").or_else(|| t.find("@\"dx.op.")) {
            let args = &t[p..];
            if let Some(a) = args.find("(i32 ") {
                let num: String = args[a + 5..].chars().take_while(|ch| ch.is_ascii_digit() || *ch == '-').collect();
                let v: i64 = num.parse().unwrap();
                c.ops.push(v as u32);
            }
        }
    }
    out
}

/// Compares decoded functions with the disassembly; returns the number of functions checked.
fn check_against_ll(lm: &LlvmModule, ll: &str, what: &str) -> usize {
    let m = &lm.module;
    let defs = parse_ll(ll);
    assert!(!defs.is_empty(), "{what}: no define in disassembly");
    for LlFunction { name, insts: count, ops, attachments } in &defs {
        let (fh, f) = m
            .functions
            .iter()
            .find(|(_, f)| &f.name == name && !f.is_declaration)
            .unwrap_or_else(|| panic!("{what}: function {name} not decoded"));
        let mut kinds: Vec<String> = lm
            .attachments
            .iter()
            .filter(|a| a.function == fh && a.inst.is_some())
            .map(|a| lm.kind_name(a.kind).unwrap_or("?").to_string())
            .collect();
        kinds.sort();
        assert_eq!(&kinds, attachments, "{what}: attachments of {name}");
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
            checked += check_against_ll(&m, &ll, &p.display().to_string());
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
    let mut attached = 0;
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
        attached += m.attachments.iter().filter(|a| a.inst.is_some()).count();
        if let Some(dis) = &dis {
            let name = p.file_name().unwrap().to_string_lossy().replace(".dxil", ".ll");
            if let Ok(ll) = std::fs::read_to_string(dis.join(name)) {
                compared += check_against_ll(&m, &ll, &p.display().to_string());
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    if dis.is_some() {
        assert!(compared >= 334, "only {compared} corpus functions compared");
    }
    // 136 !tbaa, 32 !noalias, 7 !dx.precise, 5 !dx.controlflow.hints, 4 !llvm.loop in the disassembly.
    assert_eq!(attached, 184);
}

#[test]
fn debug_location_of_vector_load_matches_expect_line() {
    let Some(dir) = shared("fixtures") else { return };
    let hlsl = std::fs::read_to_string(dir.join("hlsl/lv_load_misaligned_const.hlsl")).unwrap();
    let expect_line = hlsl.lines().position(|l| l.contains("// expect:")).unwrap() as u32 + 1;
    let m = decode_file(&dir.join("dxil/lv_load_misaligned_const.g.dxil"), FourCc::ILDB).module;
    let f = m.functions.values().find(|f| f.name == "main").unwrap();
    let load = f
        .insts
        .values()
        .find(|i| matches!(i.kind, InstKind::Call { dx_op: Some(303), .. }))
        .expect("rawBufferVectorLoad call");
    let loc = &m.locs[load.span.loc.expect("load has a location")];
    assert_eq!(loc.line, expect_line);
    assert!(loc.column > 0);
    let file = &m.source_files[loc.file as usize];
    assert!(file.name.ends_with("lv_load_misaligned_const.hlsl"), "{}", file.name);
    let text = file.text.as_deref().expect("source text embedded");
    assert!(text.contains("g_Data.Load<vector<float, 8> >(12)"), "{text}");
    // The load's span points into the ILDB bitcode and carries its value number.
    assert_ne!(load.span.id, u32::MAX);
    eprintln!("files: {:?}", m.source_files.iter().map(|f| &f.name).collect::<Vec<_>>());
}

/// xorshift64* — a tiny seeded PRNG for reproducible mutations.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Decodes damaged bitcode: Ok or Err, never a panic; errors point inside the input.
fn survive(bc: &[u8], base: u64, what: &str) -> bool {
    match decode(bc, base) {
        Ok(m) => {
            let _ = verify(&m.module);
            true
        }
        Err(e) => {
            assert!(
                e.offset >= base && e.offset <= base + bc.len() as u64,
                "{what}: error offset {:#x} outside [{base:#x}, {:#x}]: {e}",
                e.offset,
                base + bc.len() as u64
            );
            false
        }
    }
}

fn mutate_program(bc: &[u8], base: u64, seed: u64, what: &str) -> (usize, usize) {
    let (mut ok, mut err) = (0, 0);
    let mut tally = |r: bool| if r { ok += 1 } else { err += 1 };
    // Truncations at 40 points spread over the stream plus the first and last bytes.
    let n = bc.len();
    let mut cuts: Vec<usize> = (0..40).map(|k| k * n / 40).collect();
    cuts.extend([1, 3, 4, 5, 8, n.saturating_sub(1), n.saturating_sub(4)]);
    for cut in cuts {
        tally(survive(&bc[..cut.min(n)], base, what));
    }
    // 50 single bit flips and 10 multi-byte smashes.
    let mut rng = Rng(seed | 1);
    let mut buf = bc.to_vec();
    for k in 0..60 {
        buf.copy_from_slice(bc);
        if k < 50 {
            let bit = rng.below(n * 8);
            buf[bit / 8] ^= 1 << (bit % 8);
        } else {
            for _ in 0..8 {
                let i = rng.below(n);
                buf[i] = rng.next() as u8;
            }
        }
        tally(survive(&buf, base, what));
    }
    (ok, err)
}

#[test]
fn damaged_bitcode_never_panics() {
    let Some(fx) = shared("fixtures/dxil") else { return };
    let mut inputs = files(&fx, ".dxil");
    if let Some(corpus) = shared("corpus/dxil/vkd3d-proton") {
        inputs.extend(files(&corpus, ".dxil").into_iter().step_by(11));
    }
    let (mut ok, mut err) = (0, 0);
    for (i, p) in inputs.iter().enumerate() {
        let bytes = std::fs::read(p).unwrap();
        let c = dxbc::parse(&bytes, 0).unwrap();
        for cc in [FourCc::DXIL, FourCc::ILDB] {
            let Some(part) = c.part(cc) else { continue };
            let (_, bc, base) = dxbc::program(part).unwrap();
            let what = format!("{} {cc}", p.display());
            let (o, e) = mutate_program(bc, base, 0x9E37_79B9_7F4A_7C15 ^ i as u64, &what);
            ok += o;
            err += e;
        }
    }
    eprintln!("damaged inputs: {ok} decoded, {err} rejected");
    assert!(err > 1000, "truncations must be rejected ({err})");
}

#[test]
fn bitstream_walk_counts_records() {
    let Some(fx) = shared("fixtures/dxil") else { return };
    let bytes = std::fs::read(fx.join("lv_load_misaligned_const.dxil")).unwrap();
    let c = dxbc::parse(&bytes, 0).unwrap();
    let (_, bc, base) = dxbc::program(c.part(FourCc::DXIL).unwrap()).unwrap();
    let n = bitstream::walk(bc, base).unwrap();
    assert!(n > 50, "{n} records");
    // Trailing zero words after the module block are padding, not an error.
    let mut padded = bc.to_vec();
    padded.extend_from_slice(&[0; 16]);
    assert_eq!(bitstream::walk(&padded, base).unwrap(), n);
    assert!(decode(&padded, base).is_ok());
    // Garbage after the module block is an error.
    padded.extend_from_slice(&[0xFF; 4]);
    assert!(bitstream::walk(&padded, base).is_err());
}

#[test]
fn decoded_values_match_disassembly_details() {
    use irlint::ir::{BinOp, ConstKind, Type, Value};
    let Some(fx) = shared("fixtures/dxil") else { return };
    let p = fx.join("lv_load_misaligned_const.dxil");
    let bytes = std::fs::read(&p).unwrap();
    let c = dxbc::parse(&bytes, 0).unwrap();
    let (_, bc, base) = dxbc::program(c.part(FourCc::DXIL).unwrap()).unwrap();
    let m = decode(bc, base).unwrap().module;
    let main = m.functions.values().find(|f| f.name == "main").unwrap();
    assert!(!main.is_declaration);
    assert_eq!(main.blocks.len(), 1);
    let tid = m.functions.values().find(|f| f.name == "dx.op.threadId.i32").unwrap();
    assert!(tid.is_declaration);
    assert_eq!(tid.params.len(), 2);
    let insts: Vec<_> = main.blocks.values().next().unwrap().insts.iter().map(|&h| &main.insts[h]).collect();
    assert_eq!(insts.len(), 10);
    // Offsets are increasing and inside the bitcode; value numbers are consecutive.
    for w in insts.windows(2) {
        assert!(w[0].span.offset < w[1].span.offset);
    }
    assert!(insts.iter().all(|i| i.span.offset >= base && i.span.offset < base + bc.len() as u64));
    assert_eq!(insts[1].span.id, insts[0].span.id + 1);
    assert_eq!(insts[8].span.id, u32::MAX, "void call defines no value");
    // %1 = createHandleFromBinding(i32 217, ResBind { i32 0, i32 0, i32 0, i8 1 }, i32 0, i1 false)
    let InstKind::Call { args, dx_op: Some(217), .. } = &insts[0].kind else { panic!("{:?}", insts[0].kind) };
    let Value::Const(bind) = args[1] else { panic!() };
    let ConstKind::Aggregate(fields) = &m.constants[bind].kind else { panic!() };
    let ints: Vec<u64> = fields.iter().map(|&v| m.const_int(v).unwrap()).collect();
    assert_eq!(ints, [0, 0, 0, 1]);
    assert_eq!(m.const_int(args[3]), Some(0));
    // %4 = annotateHandle(i32 216, %2, { i32 11, i32 0 })
    let InstKind::Call { args, dx_op: Some(216), .. } = &insts[3].kind else { panic!() };
    assert_eq!(args[1], Value::Inst(main.blocks.values().next().unwrap().insts[1]));
    // %5 = rawBufferVectorLoad.v8f32(i32 303, %4, i32 12, i32 undef, i32 4)
    let InstKind::Call { args, dx_op: Some(303), .. } = &insts[4].kind else { panic!() };
    assert_eq!(m.const_int(args[2]), Some(12));
    assert_eq!(m.const_int(args[4]), Some(4));
    let Value::Const(u) = args[3] else { panic!() };
    assert_eq!(m.constants[u].kind, ConstKind::Undef);
    assert!(matches!(&m.types[insts[4].ty], Type::Struct { name: Some(n), .. } if n == "dx.types.ResRet.v8f32"));
    // %6 = extractvalue %5, 0 : <8 x float>
    assert!(matches!(insts[5].kind, InstKind::ExtractValue { ref indices, .. } if indices[..] == [0]));
    let Type::Vector { elem, count: 8 } = m.types[insts[5].ty] else { panic!("{:?}", m.types[insts[5].ty]) };
    assert_eq!(m.types[elem], Type::Float { bits: 32 });
    // %7 = shl i32 %3, 5
    let InstKind::Binary { op: BinOp::Shl, rhs, .. } = insts[6].kind else { panic!() };
    assert_eq!(m.const_int(rhs), Some(5));
    assert!(matches!(insts[9].kind, InstKind::Ret { value: None }));

    // Experimental opcode (i32 -2147483623) and `i1 true` (stored as -1).
    let p = fx.join("la_load_branch_stride.dxil");
    let bytes = std::fs::read(&p).unwrap();
    let c = dxbc::parse(&bytes, 0).unwrap();
    let (_, bc, base) = dxbc::program(c.part(FourCc::DXIL).unwrap()).unwrap();
    let m = decode(bc, base).unwrap().module;
    let mul = m
        .functions
        .values()
        .flat_map(|f| f.insts.values())
        .find_map(|i| match &i.kind {
            InstKind::Call { dx_op: Some(0x8000_0019), args, .. } => Some(args.clone()),
            _ => None,
        })
        .expect("linAlgMatVecMul call");
    assert_eq!(m.const_int(mul[0]), Some(0x8000_0019));
    assert_eq!(m.const_int(mul[2]), Some(1));
    assert_eq!(m.const_int(mul[4]), Some(8));
}

/// A longer mutation campaign (run with `cargo test --release --test dxil_decode -- --ignored`).
#[test]
#[ignore]
fn damaged_bitcode_soak() {
    let Some(fx) = shared("fixtures/dxil") else { return };
    let mut inputs = files(&fx, ".dxil");
    if let Some(corpus) = shared("corpus/dxil/vkd3d-proton") {
        inputs.extend(files(&corpus, ".dxil"));
    }
    let rounds: usize = std::env::var("SOAK_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(300);
    let (mut ok, mut err) = (0usize, 0usize);
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    for p in &inputs {
        let bytes = std::fs::read(p).unwrap();
        let c = dxbc::parse(&bytes, 0).unwrap();
        for cc in [FourCc::DXIL, FourCc::ILDB] {
            let Some(part) = c.part(cc) else { continue };
            let (_, bc, base) = dxbc::program(part).unwrap();
            let what = format!("{} {cc}", p.display());
            let n = bc.len();
            for _ in 0..rounds {
                let mut buf = bc.to_vec();
                match rng.below(5) {
                    0 => {
                        for _ in 0..1 + rng.below(4) {
                            let bit = rng.below(n * 8);
                            buf[bit / 8] ^= 1 << (bit % 8);
                        }
                    }
                    1 => {
                        let i = rng.below(n);
                        buf[i] = rng.next() as u8;
                    }
                    2 => buf.truncate(rng.below(n)),
                    3 => {
                        // Duplicate a chunk somewhere else.
                        let a = rng.below(n);
                        let len = rng.below(64).min(n - a);
                        let chunk = buf[a..a + len].to_vec();
                        let at = rng.below(n);
                        buf.splice(at..at, chunk);
                    }
                    _ => {
                        let a = rng.below(n);
                        let len = rng.below(16).min(n - a);
                        let v = if rng.below(2) == 0 { 0 } else { 0xFF };
                        buf[a..a + len].fill(v);
                    }
                }
                if survive(&buf, base, &what) {
                    ok += 1;
                } else {
                    err += 1;
                }
            }
        }
    }
    eprintln!("soak: {ok} decoded, {err} rejected");
}

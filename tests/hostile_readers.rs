//! Hostile inputs for the shader readers (issue 25, classes 2, 3, 8, 9, 10
//! and 13; issue 29 §2): truncated SPIR-V, DXBC containers without a shader
//! part, source-file tables, shared embedded source text, access chains on
//! access chains, and PE/ELF hosts with many sections. Every input is built
//! here and run through the real binary with a time limit and a peak-RSS
//! check, alone and in a batch beside a fixture with a finding.
//!
//! Time limits are the (5 s a file, 30 s a batch) for a release
//! build; an unoptimised test build gets four times as long.
//!
//! `IRLINT_HOSTILE_READERS_OUT=DIR cargo test --test hostile_readers --
//! --ignored write_cases` writes every case to DIR, for measuring a build
//! with `/usr/bin/time -v`.

mod common;
#[path = "support/hostile.rs"]
mod hostile;

#[path = "support/runner.rs"]
mod runner;
#[path = "support/scratch.rs"]
mod tmp;
use hostile::{op, Ab, BitWriter, Spv, METADATA_BLOCK, MODULE_BLOCK};
use runner::{irlint, json, limit};
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> tmp::Scratch {
    tmp::scratch_in("irlint-hostile-readers", name)
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write input");
    p
}

/// `check --format json FILE`: exit code and report.
fn check_alone(path: &Path) -> (i32, serde_json::Value) {
    let r = irlint(&["check", "--format", "json", path.to_str().unwrap()], limit(5));
    let rep = json(&r);
    (r.code, rep)
}

fn input_errors(report: &serde_json::Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "input-error")
        .map(|f| f["message"].as_str().unwrap().to_string())
        .collect()
}

/// The one input error of a report, which must also say exit 2 and status `error`.
fn the_input_error(code: i32, report: &serde_json::Value) -> String {
    let errs = input_errors(report);
    assert_eq!(errs.len(), 1, "expected one input-error, got {errs:?}\n{report:#}");
    assert_eq!(code, 2, "{report:#}");
    assert_eq!(report["files"][0]["status"], "error", "{report:#}");
    errs[0].clone()
}

fn fixture(rel: &str) -> Vec<u8> {
    std::fs::read(common::root().join("tests/fixtures").join(rel)).unwrap()
}

// ---------------------------------------------------------------------------
// SPIR-V builders

mod spv {
    pub const SOURCE_CONTINUED: u32 = 2;
    pub const SOURCE: u32 = 3;
    pub const STRING: u32 = 7;
    pub const LINE: u32 = 8;
    pub const EXT_INST_IMPORT: u32 = 11;
    pub const EXT_INST: u32 = 12;
    pub const ENTRY_POINT: u32 = 15;
    pub const SPEC_CONSTANT_OP: u32 = 52;
    pub const ACCESS_CHAIN: u32 = 65;
    pub const IN_BOUNDS_ACCESS_CHAIN: u32 = 66;
    pub const PTR_ACCESS_CHAIN: u32 = 67;
    pub const CAP_LINKAGE: u32 = 5;
}

/// A literal string as words.
fn words_of(s: &[u8]) -> Vec<u32> {
    let mut b = s.to_vec();
    b.push(0);
    b.resize(b.len().div_ceil(4) * 4, 0);
    b.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn op_with_string(s: &mut Spv, opcode: u32, before: &[u32], text: &[u8]) {
    let mut ops = before.to_vec();
    ops.extend(words_of(text));
    s.op(opcode, &ops);
}

/// Instruction boundaries (byte offsets) of a little-endian module.
fn boundaries(bytes: &[u8]) -> Vec<usize> {
    let mut out = vec![20];
    let mut at = 20;
    while at + 4 <= bytes.len() {
        let w = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        at += 4 * (w >> 16).max(1) as usize;
        out.push(at);
    }
    out
}

// ---------------------------------------------------------------------------
// Class 2: truncated SPIR-V

#[test]
fn spirv_cut_at_any_instruction_boundary_is_an_input_error() {
    for rel in ["spirv/sb_heap_stride24.spv", "spirv/sb_heap_stride24.g.spv", "spirv/lv_load_misaligned_const.spv"] {
        let bytes = fixture(rel);
        irlint::spirv::lower(&bytes, 0).unwrap_or_else(|e| panic!("{rel} whole: {e}"));
        let cuts = boundaries(&bytes);
        assert_eq!(*cuts.last().unwrap(), bytes.len(), "{rel}");
        for &cut in &cuts[..cuts.len() - 1] {
            let e = irlint::spirv::lower(&bytes[..cut], 0).expect_err(&format!("{rel} cut at {cut} is accepted"));
            assert!(e.offset <= cut as u64, "{rel} cut at {cut}: {e}");
        }
    }
}

/// A compute module: capability, memory model, entry point, `void main()` with
/// one label, optionally cut off after `stop` instructions of the body.
fn small_module(body_len: usize, end: bool) -> Vec<u8> {
    let mut s = Spv::new();
    s.preamble(&[hostile::CAP_SHADER]);
    let void = s.id();
    let fty = s.id();
    let main = s.id();
    op_with_string(&mut s, spv::ENTRY_POINT, &[5, main], b"main");
    s.op(op::TYPE_VOID, &[void]);
    s.op(op::TYPE_FUNCTION, &[fty, void]);
    let u = s.id();
    s.op(op::TYPE_INT, &[u, 32, 0]);
    let c = s.id();
    s.op(op::CONSTANT, &[u, c, 3]);
    s.op(op::FUNCTION, &[void, main, 0, fty]);
    let l = s.id();
    s.op(op::LABEL, &[l]);
    for _ in 0..body_len {
        let r = s.id();
        s.op(128, &[u, r, c, c]); // OpIAdd
    }
    if end {
        s.op(op::RETURN, &[]);
        s.op(op::FUNCTION_END, &[]);
    }
    s.bytes()
}

#[test]
fn truncated_spirv_shapes_are_input_errors_naming_the_offset() {
    let dir = scratch("truncated");
    let whole = small_module(3, true);
    let header_only = whole[..20].to_vec();
    let mut after_function = small_module(0, false);
    // Drop the OpLabel too: the module ends right after OpFunction.
    after_function.truncate(after_function.len() - 8);
    let mid_body = small_module(3, false);
    let mut no_memory_model = Spv::new();
    no_memory_model.op(op::CAPABILITY, &[hostile::CAP_SHADER]);
    no_memory_model.function(&[], |_, _| {});
    let mut entry_cut = Spv::new();
    entry_cut.preamble(&[hostile::CAP_SHADER]);
    op_with_string(&mut entry_cut, spv::ENTRY_POINT, &[5, 9], b"main");
    let mut only_types = Spv::new();
    only_types.preamble(&[hostile::CAP_SHADER]);
    let u = only_types.id();
    only_types.op(op::TYPE_INT, &[u, 32, 0]);
    let mut nested = Spv::new();
    nested.preamble(&[hostile::CAP_SHADER]);
    nested.function(&[], |s, _| {
        let void = s.id();
        s.op(op::TYPE_VOID, &[void]);
        let g = s.id();
        s.op(op::FUNCTION, &[void, g, 0, void]);
    });
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("header_only.spv", header_only, "no OpMemoryModel"),
        ("after_function.spv", after_function.clone(), "the module ends inside function %3"),
        ("mid_body.spv", mid_body.clone(), "no OpFunctionEnd (truncated module?)"),
        ("no_memory_model.spv", no_memory_model.bytes(), "no OpMemoryModel"),
        ("entry_point_cut.spv", entry_cut.bytes(), "OpEntryPoint names %9, which no OpFunction defines"),
        ("only_types.spv", only_types.bytes(), "no OpEntryPoint, no function, no graph and no Linkage capability"),
        ("nested_function.spv", nested.bytes(), "has no OpFunctionEnd before the next OpFunction"),
    ];
    for (name, bytes, want) in &cases {
        let p = write(&dir, name, bytes);
        let (code, rep) = check_alone(&p);
        let msg = the_input_error(code, &rep);
        assert!(msg.contains(want), "{name}: {msg}");
        assert!(msg.contains("at byte offset 0x"), "{name}: {msg}");
        assert_eq!(rep["findings"][0]["path"], p.to_str().unwrap(), "{name}");
    }
    // The offset of a module that ends inside a function is its end.
    let e = irlint::spirv::lower(&mid_body, 0).unwrap_err();
    assert_eq!(e.offset, mid_body.len() as u64);
    let e = irlint::spirv::lower(&after_function, 0).unwrap_err();
    assert_eq!(e.offset, after_function.len() as u64);
    assert!(e.detail.contains(&format!("(at byte offset {})", after_function.len() - 20)), "{e}");
    // Whole modules stay valid: with an entry point, as a Linkage library
    // without one, and with a function but no entry point (irlint checks
    // every function).
    let mut library = Spv::new();
    library.preamble(&[hostile::CAP_SHADER, spv::CAP_LINKAGE]);
    let u = library.id();
    library.op(op::TYPE_INT, &[u, 32, 0]);
    let mut no_entry = Spv::new();
    no_entry.preamble(&[hostile::CAP_SHADER]);
    no_entry.function(&[], |_, _| {});
    for (name, bytes) in [("whole.spv", whole), ("library.spv", library.bytes()), ("no_entry.spv", no_entry.bytes())] {
        let p = write(&dir, name, &bytes);
        let (code, rep) = check_alone(&p);
        assert_eq!(code, 0, "{name}: {rep:#}");
        assert_eq!(rep["files"][0]["status"], "ok", "{name}: {rep:#}");
    }
}

// ---------------------------------------------------------------------------
// Class 3 / issue 29 §2: DXBC containers without a shader part

fn container(parts: &[(&[u8; 4], &[u8])]) -> Vec<u8> {
    let header = 32 + 4 * parts.len();
    let mut offsets = Vec::new();
    let mut body = Vec::new();
    for (cc, data) in parts {
        offsets.push((header + body.len()) as u32);
        body.extend_from_slice(*cc);
        body.extend_from_slice(&(data.len() as u32).to_le_bytes());
        body.extend_from_slice(data);
    }
    let mut out = b"DXBC".to_vec();
    out.extend_from_slice(&[0x5A; 16]);
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&((header + body.len()) as u32).to_le_bytes());
    out.extend_from_slice(&(parts.len() as u32).to_le_bytes());
    for o in offsets {
        out.extend_from_slice(&o.to_le_bytes());
    }
    out.extend_from_slice(&body);
    out
}

/// A version 1.1 root signature (`RootSignature = "RootConstants(num32BitConstants=4, b0)"`
/// as `dxc -T rootsig_1_1` lays it out): header, one root parameter of type
/// 32-bit constants, no static samplers.
fn root_signature() -> Vec<u8> {
    let mut rs = Vec::new();
    for w in [2u32, 1, 24, 0, 24, 0] {
        // version 1.1, 1 parameter at 24, 0 samplers at 24, flags 0
        rs.extend_from_slice(&w.to_le_bytes());
    }
    for w in [1u32, 0, 36] {
        // D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS, visibility all, payload at 36
        rs.extend_from_slice(&w.to_le_bytes());
    }
    for w in [0u32, 0, 4] {
        // shader register b0, space 0, 4 constants
        rs.extend_from_slice(&w.to_le_bytes());
    }
    rs
}

#[test]
fn dxbc_without_a_shader_part() {
    let dir = scratch("dxbc");
    let rts0 = root_signature();
    let errors: Vec<(&str, Vec<u8>, &str)> = vec![
        ("zero_parts.dxil", container(&[]), "no shader part: the DXBC container holds no parts"),
        (
            "unknown_parts.dxil",
            container(&[(b"ABCD", &[1, 2, 3, 4]), (b"XYZW", &[])]),
            "no shader part: the DXBC container holds only unknown parts (ABCD, XYZW)",
        ),
    ];
    for (name, bytes, want) in &errors {
        let p = write(&dir, name, bytes);
        let (code, rep) = check_alone(&p);
        let msg = the_input_error(code, &rep);
        assert!(msg.contains(want), "{name}: {msg}");
        assert!(msg.contains("at byte offset 0x1c"), "{name}: {msg}");
        // `dump` says the same.
        let d = irlint(&["dump", "--format", "json", p.to_str().unwrap()], limit(5));
        assert!(d.text().contains("no shader part"), "{name}: {}", d.text());
    }
    let skipped: Vec<(&str, Vec<u8>, &str)> = vec![
        ("rootsig.dxil", container(&[(b"RTS0", &rts0)]), "root signature (no shader)"),
        (
            "rootsig_signed.cso",
            container(&[(b"RTS0", &rts0), (b"HASH", &[0; 20]), (b"PRIV", &[7; 8])]),
            "root signature (no shader)",
        ),
        (
            "signatures_only.dxil",
            container(&[(b"ISG1", &[0; 8]), (b"OSG1", &[0; 8]), (b"ABCD", &[])]),
            "no shader: the container holds only ISG1 (input signature), OSG1 (output signature)",
        ),
        ("legacy.dxbc", container(&[(b"RDEF", &[0; 8]), (b"SHEX", &[0; 8])]), "legacy DXBC (SM 4/5), not analysed"),
    ];
    for (name, bytes, want) in &skipped {
        let p = write(&dir, name, bytes);
        let (code, rep) = check_alone(&p);
        assert_eq!(code, 0, "{name}: {rep:#}");
        assert!(input_errors(&rep).is_empty(), "{name}: {rep:#}");
        assert_eq!(rep["files"][0]["status"], "skipped", "{name}");
        assert_eq!(rep["files"][0]["kind"], "dxbc", "{name}");
        assert_eq!(rep["files"][0]["message"], *want, "{name}");
        // The human report says what was skipped.
        let h = irlint(&["check", "--format", "human", "--color", "never", p.to_str().unwrap()], limit(5));
        assert!(h.text().contains(want), "{name}: {}", h.text());
    }
    // Embedded in a binary, a container with no known part is not a shader.
    let mut host = b"IRLINT-HOST".to_vec();
    host.extend(container(&[(b"ABCD", &[1, 2, 3, 4])]));
    host.extend(container(&[(b"RTS0", &rts0)]));
    let blobs = irlint::input::embedded::scan(&host);
    assert_eq!(blobs.len(), 1, "{blobs:?}");
    assert_eq!(blobs[0].offset, 11 + 36 + 12);
}

// ---------------------------------------------------------------------------
// Class 8: source-file tables

/// `files` distinct `OpString` file names, each named by an `OpLine` in one function.
fn spv_many_files(files: usize) -> Vec<u8> {
    let mut s = Spv::new();
    s.preamble(&[hostile::CAP_SHADER]);
    let ids: Vec<u32> = (0..files)
        .map(|i| {
            let id = s.id();
            op_with_string(&mut s, spv::STRING, &[id], format!("src/dir/file{i:07}.hlsl").as_bytes());
            id
        })
        .collect();
    s.function(&[], |s, _| {
        for (k, &id) in ids.iter().enumerate() {
            s.op(spv::LINE, &[id, k as u32 + 1, 1]);
        }
    });
    s.bytes()
}

/// One file with a 64 KiB name, named by `lines` `OpLine`s.
fn spv_long_file_name(lines: usize) -> Vec<u8> {
    let mut s = Spv::new();
    s.preamble(&[hostile::CAP_SHADER]);
    let id = s.id();
    op_with_string(&mut s, spv::STRING, &[id], &vec![b'n'; 64 << 10]);
    s.function(&[], |s, _| {
        for k in 0..lines {
            s.op(spv::LINE, &[id, k as u32, 1]);
        }
    });
    s.bytes()
}

/// DXIL bitcode: `void f()` whose `ret` carries `files` DEBUG_LOCs, each with a
/// distinct `DIFile` scope.
fn dxil_many_files(files: usize) -> Vec<u8> {
    let mut w = BitWriter::new();
    w.magic();
    w.enter(MODULE_BLOCK, 3);
    w.record(1, &[1]);
    w.enter(17, 4); // TYPE_BLOCK
    w.record(1, &[2]); // NUMENTRY
    w.record(2, &[]); // VOID
    w.record(21, &[0, 0]); // FUNCTION [vararg, retty]
    w.end();
    w.record(8, &[1, 0, 0, 0, 0, 0, 0, 0]); // FUNCTION [type, cc, isproto, ...]
    w.enter(METADATA_BLOCK, 4);
    w.define_abbrev(&[Ab::Lit(1), Ab::Array, Ab::Fixed(8)]);
    let string = |w: &mut BitWriter, s: &[u8]| {
        w.write(4, 4);
        w.vbr(s.len() as u64, 6);
        for &c in s {
            w.write(u64::from(c), 8);
        }
    };
    string(&mut w, b"C:/src"); // md 0
    for i in 0..files as u64 {
        string(&mut w, format!("f{i}.hlsl").as_bytes()); // md 1 + 2i
        w.record(16, &[0, 2 + 2 * i, 1]); // FILE [distinct, filename+1, directory+1]: md 2 + 2i
    }
    w.end();
    w.enter(12, 4); // FUNCTION_BLOCK
    w.record(1, &[1]); // DECLAREBLOCKS
    w.record(10, &[]); // RET
    for i in 0..files as u64 {
        w.record(35, &[i + 1, 1, 3 + 2 * i, 0]); // DEBUG_LOC [line, col, scope+1, ia+1]
    }
    w.end();
    w.end();
    hostile::dxil_container(&w.finish())
}

#[test]
fn source_file_tables_are_interned_in_linear_time() {
    let m = irlint::spirv::lower(&spv_many_files(1000), 0).unwrap();
    assert_eq!(m.source_files.len(), 1000);
    assert_eq!(m.source_files[999].name, "src/dir/file0000999.hlsl");
    let m = irlint::spirv::lower(&spv_long_file_name(10), 0).unwrap();
    assert_eq!(m.source_files.len(), 1);
    let dxil = dxil_many_files(300);
    let m = irlint::check::load_module(irlint::check::InputKind::Dxil, &dxil, 0).unwrap().unwrap();
    assert_eq!(m.source_files.len(), 300);
    assert_eq!(m.source_files[299].name, "C:/src/f299.hlsl");
    let dir = scratch("files");
    for (name, bytes) in [
        ("many_files.spv", spv_many_files(110_000)),
        ("long_name.spv", spv_long_file_name(200_000)),
        ("many_files.dxil", dxil_many_files(150_000)),
    ] {
        assert!(bytes.len() > 3 << 20, "{name}: {} bytes", bytes.len());
        let p = write(&dir, name, &bytes);
        let (code, rep) = check_alone(&p);
        assert_eq!(code, 0, "{name}: {rep:#}");
        assert_eq!(rep["files"][0]["status"], "ok", "{name}");
    }
}

// ---------------------------------------------------------------------------
// Class 9: shared embedded source text

/// A debug-info module whose `DebugSource` holds a `text_len`-byte string,
/// followed by `copies` `DebugSourceContinued` (or, with `repeat_source`,
/// `DebugSource`) instructions naming that same string.
fn spv_shared_source(text_len: usize, copies: usize, repeat_source: bool) -> Vec<u8> {
    let mut s = Spv::new();
    s.preamble(&[hostile::CAP_SHADER]);
    let set = s.id();
    op_with_string(&mut s, spv::EXT_INST_IMPORT, &[set], b"NonSemantic.Shader.DebugInfo.100");
    let file = s.id();
    op_with_string(&mut s, spv::STRING, &[file], b"big.hlsl");
    let text = s.id();
    let mut t = b"// irlint: allow(structured-buffer-stride-not-cache-aligned)\n".to_vec();
    t.resize(text_len, b'x');
    op_with_string(&mut s, spv::STRING, &[text], &t);
    let void = s.id();
    s.op(op::TYPE_VOID, &[void]);
    let src = s.id();
    s.op(spv::EXT_INST, &[void, src, set, 35, file, text]);
    for _ in 0..copies {
        let r = s.id();
        if repeat_source {
            s.op(spv::EXT_INST, &[void, r, set, 35, file, text]);
        } else {
            s.op(spv::EXT_INST, &[void, r, set, 102, text]);
        }
    }
    s.function(&[], |_, _| {});
    s.bytes()
}

/// `OpSource` with inline text, then `copies` `OpSourceContinued` of `chunk` bytes each.
fn spv_source_continued(chunk: usize, copies: usize) -> Vec<u8> {
    let mut s = Spv::new();
    s.preamble(&[hostile::CAP_SHADER]);
    let file = s.id();
    op_with_string(&mut s, spv::STRING, &[file], b"a.hlsl");
    op_with_string(&mut s, spv::SOURCE, &[5, 600, file], b"// start\n");
    let text = vec![b'y'; chunk];
    for _ in 0..copies {
        op_with_string(&mut s, spv::SOURCE_CONTINUED, &[], &text);
    }
    s.function(&[], |_, _| {});
    s.bytes()
}

/// DXIL bitcode whose metadata holds one `text_len`-byte string and `nodes`
/// `dx.source.contents` entries pairing a file name (distinct, or all the same
/// with `same_name`) with that string.
fn dxil_shared_source(text_len: usize, nodes: usize, same_name: bool) -> Vec<u8> {
    let mut w = BitWriter::new();
    w.magic();
    w.enter(MODULE_BLOCK, 3);
    w.record(1, &[1]);
    w.enter(METADATA_BLOCK, 4);
    // Abbreviation 4: METADATA_STRING [array of fixed(8)].
    w.define_abbrev(&[Ab::Lit(1), Ab::Array, Ab::Fixed(8)]);
    let string = |w: &mut BitWriter, s: &[u8]| {
        w.write(4, 4);
        w.vbr(s.len() as u64, 6);
        for &c in s {
            w.write(u64::from(c), 8);
        }
    };
    let mut text = b"// irlint: allow(structured-buffer-stride-not-cache-aligned)\n".to_vec();
    text.resize(text_len, b'z');
    string(&mut w, &text); // md 0
    let mut next = 1u64;
    let mut list = Vec::new();
    for i in 0..nodes {
        let name = if same_name { "main.hlsl".to_string() } else { format!("f{i}.hlsl") };
        string(&mut w, name.as_bytes());
        let name_id = next;
        next += 1;
        w.record(3, &[name_id + 1, 1]); // NODE [name, text] (+1 references)
        list.push(next);
        next += 1;
    }
    let name = b"dx.source.contents";
    w.record(4, &name.iter().map(|&c| u64::from(c)).collect::<Vec<_>>());
    w.record(10, &list);
    w.end();
    w.end();
    hostile::dxil_container(&w.finish())
}

#[test]
fn shared_source_text_is_copied_at_most_up_to_the_limit() {
    let cap = irlint::read::limits::MAX_SOURCE_TEXT_BYTES as usize;
    // Small: every copy kept, as before.
    let m = irlint::spirv::lower(&spv_shared_source(1000, 3, false), 0).unwrap();
    assert_eq!(m.source_files[0].text.as_ref().unwrap().len(), 4000);
    // Past the limit: the text stops at a whole copy under it, with a remark.
    let m = irlint::spirv::lower(&spv_shared_source(200_000, 1000, false), 0).unwrap();
    let kept = m.source_files[0].text.as_ref().unwrap().len();
    assert!(kept <= cap && kept > cap - 200_000, "{kept}");
    assert!(
        m.remarks.iter().any(|r| r.contains("embedded source text past 33554432 bytes dropped")),
        "{:?}",
        m.remarks
    );
    let m = irlint::spirv::lower(&spv_source_continued(1 << 16, 1000), 0).unwrap();
    assert!(m.source_files[0].text.as_ref().unwrap().len() <= cap);
    let dir = scratch("source");
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("continued.spv", spv_shared_source(200_000, 20_000, false)),
        ("repeated_source.spv", spv_shared_source(200_000, 20_000, true)),
        ("source_continued.spv", spv_source_continued(1 << 16, 150)),
        ("contents_distinct.dxil", dxil_shared_source(200_000, 5_000, false)),
        ("contents_same_name.dxil", dxil_shared_source(200_000, 5_000, true)),
    ];
    for (name, bytes) in &cases {
        assert!(bytes.len() < 10 << 20, "{name}");
        let p = write(&dir, name, bytes);
        let (code, rep) = check_alone(&p);
        assert!(code <= 1, "{name}: {rep:#}");
        assert_ne!(rep["files"][0]["status"], "error", "{name}: {rep:#}");
    }
    // DXIL: the last node naming a file wins, the others are never copied.
    let dxil = dxil_shared_source(100, 3, true);
    let m = irlint::check::load_module(irlint::check::InputKind::Dxil, &dxil, 0).unwrap().unwrap();
    let files: Vec<_> = m.source_files.iter().filter(|f| f.text.is_some()).collect();
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].name, "main.hlsl");
    let dxil = dxil_shared_source(1 << 20, 100, false);
    let m = irlint::check::load_module(irlint::check::InputKind::Dxil, &dxil, 0).unwrap().unwrap();
    let total: usize = m.source_files.iter().filter_map(|f| f.text.as_ref()).map(String::len).sum();
    assert_eq!(total, 32 << 20, "32 whole copies of 1 MiB fit the limit");
    assert!(m.remarks.iter().any(|r| r.contains("embedded source text past")), "{:?}", m.remarks);
}

// ---------------------------------------------------------------------------
// Class 10: access chains on access chains

#[derive(Clone, Copy)]
enum Chain {
    Access,
    InBounds,
    /// `OpPtrAccessChain %base %c0 %c0`: element 0, then one index.
    Ptr,
    /// Three indices per instruction.
    Wide,
    /// `OpSpecConstantOp AccessChain` at module scope.
    Spec,
}

/// A chain of `n` access chains, each on the previous one, from a storage
/// buffer variable; a cooperative-vector load through the last one (so the
/// function is analysed).
fn spv_access_chains(n: usize, kind: Chain) -> Vec<u8> {
    let mut s = Spv::new();
    s.preamble(&[hostile::CAP_SHADER, hostile::CAP_COOP_VEC_NV]);
    let u = s.id();
    s.op(op::TYPE_INT, &[u, 32, 0]);
    let c0 = s.id();
    s.op(op::CONSTANT, &[u, c0, 0]);
    let v4 = s.id();
    s.op(op::TYPE_VECTOR, &[v4, u, 4]);
    let ptr = s.id();
    s.op(op::TYPE_POINTER, &[ptr, 12, u]);
    let var = s.id();
    s.op(op::VARIABLE, &[ptr, var, 12]);
    let mut prev = var;
    if let Chain::Spec = kind {
        for _ in 0..n {
            let r = s.id();
            s.op(spv::SPEC_CONSTANT_OP, &[ptr, r, spv::ACCESS_CHAIN, prev, c0]);
            prev = r;
        }
    }
    s.function(&[], |s, _| {
        if !matches!(kind, Chain::Spec) {
            for _ in 0..n {
                let r = s.id();
                match kind {
                    Chain::Access => s.op(spv::ACCESS_CHAIN, &[ptr, r, prev, c0]),
                    Chain::InBounds => s.op(spv::IN_BOUNDS_ACCESS_CHAIN, &[ptr, r, prev, c0]),
                    Chain::Ptr => s.op(spv::PTR_ACCESS_CHAIN, &[ptr, r, prev, c0, c0]),
                    _ => s.op(spv::ACCESS_CHAIN, &[ptr, r, prev, c0, c0, c0]),
                }
                prev = r;
            }
        }
        let l = s.id();
        s.op(op::COOP_VEC_LOAD_NV, &[v4, l, prev, c0]);
    });
    s.bytes()
}

/// `chains` chains of `len` access chains each, every chain from the variable.
fn spv_many_chains(chains: usize, len: usize) -> Vec<u8> {
    let mut s = Spv::new();
    s.preamble(&[hostile::CAP_SHADER, hostile::CAP_COOP_VEC_NV]);
    let u = s.id();
    s.op(op::TYPE_INT, &[u, 32, 0]);
    let c0 = s.id();
    s.op(op::CONSTANT, &[u, c0, 0]);
    let v4 = s.id();
    s.op(op::TYPE_VECTOR, &[v4, u, 4]);
    let ptr = s.id();
    s.op(op::TYPE_POINTER, &[ptr, 12, u]);
    let var = s.id();
    s.op(op::VARIABLE, &[ptr, var, 12]);
    s.function(&[], |s, _| {
        for _ in 0..chains {
            let mut prev = var;
            for _ in 0..len {
                let r = s.id();
                s.op(spv::ACCESS_CHAIN, &[ptr, r, prev, c0]);
                prev = r;
            }
            let l = s.id();
            s.op(op::COOP_VEC_LOAD_NV, &[v4, l, prev, c0]);
        }
    });
    s.bytes()
}

#[test]
fn access_chains_on_access_chains_are_bounded() {
    let dir = scratch("chains");
    let cases = [
        ("access.spv", Chain::Access, 200_000),
        ("in_bounds.spv", Chain::InBounds, 200_000),
        ("ptr.spv", Chain::Ptr, 160_000),
        ("wide.spv", Chain::Wide, 140_000),
        ("spec.spv", Chain::Spec, 160_000),
    ];
    for (name, kind, n) in cases {
        let bytes = spv_access_chains(n, kind);
        assert!(bytes.len() > 3 << 20 && bytes.len() < 10 << 20, "{name}: {}", bytes.len());
        let p = write(&dir, name, &bytes);
        let (code, rep) = check_alone(&p);
        let msg = the_input_error(code, &rep);
        assert!(
            msg.contains("levels from its root variable (through access chains on access chains)"),
            "{name}: {msg}"
        );
        assert!(msg.contains("deeper than any type can nest (limit 257)"), "{name}: {msg}");
        // Under the limit: a valid module, analysed.
        let p = write(&dir, &format!("ok_{name}"), &spv_access_chains(80, kind));
        let (code, rep) = check_alone(&p);
        assert!(code <= 1, "ok_{name}: {rep:#}");
        assert_eq!(rep["files"][0]["status"], "ok", "ok_{name}: {rep:#}");
    }
    // Many chains, each under the per-chain limit: their total is bounded.
    let bytes = spv_many_chains(800, 250);
    let p = write(&dir, "many_chains.spv", &bytes);
    let (code, rep) = check_alone(&p);
    let msg = the_input_error(code, &rep);
    assert!(msg.contains("access chains in this function index more than 4194304 levels in total"), "{msg}");
    let p = write(&dir, "some_chains.spv", &spv_many_chains(100, 60));
    let (code, rep) = check_alone(&p);
    assert!(code <= 1, "{rep:#}");
    assert_eq!(rep["files"][0]["status"], "ok", "{rep:#}");
}

// ---------------------------------------------------------------------------
// Class 13: host files with many sections

/// A PE32+ image with `sections` sections and `exports` named exports; the
/// last section holds `payload` (an embedded shader) and the export
/// directory, so every RVA lookup by section walks the whole table.
fn pe(sections: usize, exports: usize, payload: &[u8]) -> Vec<u8> {
    let put16 = |b: &mut Vec<u8>, v: u16| b.extend_from_slice(&v.to_le_bytes());
    let put32 = |b: &mut Vec<u8>, v: u32| b.extend_from_slice(&v.to_le_bytes());
    let table = 0x40 + 4 + 20 + 240;
    let data_off = (table + 40 * sections).div_ceil(0x200) * 0x200;
    let last_va: u32 = 0x1000_0000;
    // The last section: payload, export directory, functions, names, ordinals, strings.
    let mut data = payload.to_vec();
    data.resize(data.len().div_ceil(16) * 16, 0);
    let dir_rva = last_va + data.len() as u32;
    let funcs = dir_rva + 40;
    let names = funcs + 4 * exports as u32;
    let ords = names + 4 * exports as u32;
    let strings = ords + 2 * exports as u32;
    let mut strs = b"x.dll\0".to_vec();
    let mut name_rvas = Vec::new();
    for i in 0..exports {
        name_rvas.push(strings + strs.len() as u32);
        strs.extend_from_slice(format!("e{i}\0").as_bytes());
    }
    for v in [0u32, 0, 0] {
        put32(&mut data, v);
    }
    put32(&mut data, strings);
    for v in [1u32, exports as u32, exports as u32, funcs, names, ords] {
        put32(&mut data, v);
    }
    for _ in 0..exports {
        put32(&mut data, last_va); // each export's code: the payload
    }
    for &r in &name_rvas {
        put32(&mut data, r);
    }
    for i in 0..exports {
        put16(&mut data, i as u16);
    }
    data.extend_from_slice(&strs);
    let export_size = data.len() as u32 - (dir_rva - last_va);

    let mut b = vec![0u8; 0x40];
    b[0] = b'M';
    b[1] = b'Z';
    b[0x3C..0x40].copy_from_slice(&0x40u32.to_le_bytes());
    b.extend_from_slice(b"PE\0\0");
    put16(&mut b, 0x8664);
    put16(&mut b, sections as u16);
    put32(&mut b, 0);
    put32(&mut b, 0);
    put32(&mut b, 0);
    put16(&mut b, 240);
    put16(&mut b, 0x2022);
    // Optional header, PE32+.
    put16(&mut b, 0x20B);
    b.extend_from_slice(&[14, 0]);
    for _ in 0..5 {
        put32(&mut b, 0); // code/data sizes, entry point, base of code
    }
    b.extend_from_slice(&0x1_8000_0000u64.to_le_bytes());
    put32(&mut b, 0x10); // section alignment
    put32(&mut b, 0x10); // file alignment
    for _ in 0..6 {
        put16(&mut b, 6);
    }
    put32(&mut b, 0);
    put32(&mut b, last_va + data.len() as u32 + 0x1000); // size of image
    put32(&mut b, data_off as u32); // size of headers
    put32(&mut b, 0);
    put16(&mut b, 2);
    put16(&mut b, 0x160);
    for _ in 0..4 {
        b.extend_from_slice(&0x10_0000u64.to_le_bytes());
    }
    put32(&mut b, 0);
    put32(&mut b, 16);
    put32(&mut b, dir_rva);
    put32(&mut b, export_size);
    b.resize(table, 0);
    for i in 0..sections {
        let mut name = format!(".s{i}").into_bytes();
        name.resize(8, 0);
        b.extend_from_slice(&name);
        if i + 1 == sections {
            put32(&mut b, data.len() as u32);
            put32(&mut b, last_va);
            put32(&mut b, data.len() as u32);
            put32(&mut b, data_off as u32);
        } else {
            put32(&mut b, 0x10);
            put32(&mut b, 0x1000 + 0x10 * i as u32);
            put32(&mut b, 0);
            put32(&mut b, 0);
        }
        b.extend_from_slice(&[0; 12]);
        put32(&mut b, 0x4000_0040);
    }
    b.resize(data_off, 0);
    b.extend_from_slice(&data);
    b
}

/// An ELF64 file with `sections` PROGBITS sections over one payload.
fn elf_many_sections(sections: usize, payload: &[u8]) -> Vec<u8> {
    let mut b = vec![0u8; 64];
    b[..4].copy_from_slice(b"\x7FELF");
    b[4] = 2;
    b[5] = 1;
    b[6] = 1;
    let payload_off = b.len() as u64;
    b.extend_from_slice(payload);
    let strtab_off = b.len() as u64;
    let mut strtab = b"\0.shstrtab\0".to_vec();
    let name_at = strtab.len() as u32;
    strtab.extend_from_slice(b".shaders\0");
    b.extend_from_slice(&strtab);
    b.resize(b.len().div_ceil(8) * 8, 0);
    let shoff = b.len() as u64;
    let total = sections + 2; // null + sections + .shstrtab
    for i in 0..total {
        let (name, ty, off, size) = match i {
            0 => (0, 0, 0, 0),
            _ if i == total - 1 => (1, 3, strtab_off, strtab.len() as u64),
            _ => (name_at, 1, payload_off, payload.len() as u64),
        };
        b.extend_from_slice(&name.to_le_bytes());
        b.extend_from_slice(&(ty as u32).to_le_bytes());
        b.extend_from_slice(&[0; 16]);
        b.extend_from_slice(&off.to_le_bytes());
        b.extend_from_slice(&size.to_le_bytes());
        b.extend_from_slice(&[0; 24]);
    }
    b[0x10..0x12].copy_from_slice(&3u16.to_le_bytes());
    b[0x28..0x30].copy_from_slice(&shoff.to_le_bytes());
    b[0x3A..0x3C].copy_from_slice(&64u16.to_le_bytes());
    b[0x3C..0x3E].copy_from_slice(&(total as u16).to_le_bytes());
    b[0x3E..0x40].copy_from_slice(&((total - 1) as u16).to_le_bytes());
    b
}

#[test]
fn host_files_with_many_sections_are_read_in_linear_time() {
    let spv = fixture("spirv/sb_heap_stride24.spv");
    // Small PE: the blob is labelled with its section.
    let small = pe(3, 2, &spv);
    let secs = irlint::input::embedded::sections(&small);
    let names: Vec<_> = secs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, [".s2"], "zero-sized sections are left out");
    let blobs = irlint::input::embedded::scan(&small);
    assert_eq!(blobs.len(), 1);
    assert_eq!(blobs[0].section.as_deref(), Some(".s2"));
    assert_eq!(blobs[0].offset, 0x200);
    let elf = elf_many_sections(3, &spv);
    let blobs = irlint::input::embedded::scan(&elf);
    assert_eq!(blobs.len(), 1);
    assert_eq!(blobs[0].section.as_deref(), Some(".shaders"));

    let dir = scratch("hosts");
    let cases = [
        ("many_sections_exports.dll", pe(20_000, 50_000, &spv)),
        ("many_sections.dll", pe(65_535, 10, &spv)),
        ("many_exports.dll", pe(40, 400_000, &spv)),
        ("many_sections.so", elf_many_sections(65_000, &spv)),
    ];
    for (name, bytes) in &cases {
        assert!(bytes.len() < 10 << 20, "{name}: {}", bytes.len());
        let p = write(&dir, name, bytes);
        let (code, rep) = check_alone(&p);
        assert!(code <= 1, "{name}: {rep:#}");
        let files = rep["files"].as_array().unwrap();
        assert_eq!(files.len(), 2, "{name}: {rep:#}");
        assert_eq!(files[1]["kind"], "spirv", "{name}");
        assert!(files[1]["section"].is_string(), "{name}: {rep:#}");
    }
}

// ---------------------------------------------------------------------------
// All classes in one batch, beside a fixture with a finding.

fn all_cases() -> Vec<(&'static str, Vec<u8>)> {
    let spv = fixture("spirv/sb_heap_stride24.spv");
    let cut = boundaries(&spv);
    vec![
        ("truncated_header.spv", spv[..20].to_vec()),
        ("truncated_mid.spv", spv[..cut[cut.len() - 3]].to_vec()),
        ("no_parts.dxil", container(&[])),
        ("unknown_parts.dxil", container(&[(b"QQQQ", &[0; 4])])),
        ("rootsig.dxil", container(&[(b"RTS0", &root_signature())])),
        ("many_files.spv", spv_many_files(110_000)),
        ("shared_source.spv", spv_shared_source(200_000, 20_000, false)),
        ("shared_contents.dxil", dxil_shared_source(200_000, 5_000, false)),
        ("chains.spv", spv_access_chains(200_000, Chain::Access)),
        ("host.dll", pe(20_000, 50_000, &spv)),
    ]
}

#[test]
fn a_batch_of_reader_cases_reports_every_file() {
    let dir = scratch("batch");
    let cases = all_cases();
    for (name, bytes) in &cases {
        write(&dir, name, bytes);
    }
    std::fs::copy(common::root().join("tests/fixtures/dxil/sb_heap_stride24.dxil"), dir.join("finding.dxil")).unwrap();
    let r = irlint(&["check", "--format", "json", "-j", "2", dir.to_str().unwrap()], limit(30));
    assert_eq!(r.code, 2, "input errors make the batch exit 2");
    let rep = json(&r);
    let files = rep["files"].as_array().unwrap();
    let top: Vec<(&str, &str)> = files
        .iter()
        .filter(|f| f["blob_offset"].is_null())
        .map(|f| (f["path"].as_str().unwrap().rsplit('/').next().unwrap(), f["status"].as_str().unwrap()))
        .collect();
    assert_eq!(top.len(), cases.len() + 1, "{top:?}");
    let status = |n: &str| top.iter().find(|(p, _)| *p == n).map(|(_, s)| *s);
    for n in ["truncated_header.spv", "truncated_mid.spv", "no_parts.dxil", "unknown_parts.dxil", "chains.spv"] {
        assert_eq!(status(n), Some("error"), "{n}: {top:?}");
    }
    assert_eq!(status("rootsig.dxil"), Some("skipped"));
    assert_eq!(status("many_files.spv"), Some("ok"));
    assert_eq!(status("finding.dxil"), Some("ok"));
    let finding = rep["findings"].as_array().unwrap().iter().any(|f| {
        f["rule"] == "structured-buffer-stride-not-cache-aligned"
            && f["path"].as_str().is_some_and(|p| p.ends_with("finding.dxil"))
    });
    assert!(finding, "the fixture's finding is missing:\n{rep:#}");
}

/// Writes every case (and the larger variants) to `$IRLINT_HOSTILE_READERS_OUT`
/// for measuring a build by hand.
#[test]
#[ignore]
fn write_cases() {
    let Ok(out) = std::env::var("IRLINT_HOSTILE_READERS_OUT") else {
        common::skip("IRLINT_HOSTILE_READERS_OUT is not set");
        return;
    };
    let out = PathBuf::from(out);
    std::fs::create_dir_all(&out).unwrap();
    for (name, bytes) in all_cases() {
        write(&out, name, &bytes);
    }
    write(&out, "long_name.spv", &spv_long_file_name(200_000));
    write(&out, "many_files.dxil", &dxil_many_files(150_000));
    write(&out, "repeated_source.spv", &spv_shared_source(200_000, 20_000, true));
    write(&out, "contents_same_name.dxil", &dxil_shared_source(200_000, 5_000, true));
    write(&out, "chains_ptr.spv", &spv_access_chains(160_000, Chain::Ptr));
    write(&out, "chains_spec.spv", &spv_access_chains(160_000, Chain::Spec));
    write(&out, "many_chains.spv", &spv_many_chains(800, 250));
    write(&out, "many_sections.so", &elf_many_sections(65_000, &fixture("spirv/sb_heap_stride24.spv")));
}

/// Writes small instances of each class to `fuzz/seeds/<target>/` (run by
/// hand when the builders change; the seeds are committed).
#[test]
#[ignore]
fn write_fuzz_seeds() {
    let spv = fixture("spirv/sb_heap_stride24.spv");
    let cut = boundaries(&spv);
    let rts0 = container(&[(b"RTS0", &root_signature())]);
    let spirv: Vec<(&str, Vec<u8>)> = vec![
        ("readers-truncated_mid.spv", spv[..cut[cut.len() - 3]].to_vec()),
        ("readers-truncated_after_function.spv", {
            let mut m = small_module(0, false);
            m.truncate(m.len() - 8);
            m
        }),
        ("readers-many_files.spv", spv_many_files(64)),
        ("readers-shared_source.spv", spv_shared_source(2000, 40, false)),
        ("readers-source_continued.spv", spv_source_continued(256, 8)),
        ("readers-access_chains.spv", spv_access_chains(300, Chain::Access)),
        ("readers-access_chains_spec.spv", spv_access_chains(300, Chain::Spec)),
    ];
    let containers: Vec<(&str, Vec<u8>)> = vec![
        ("readers-no_parts.dxil", container(&[])),
        ("readers-unknown_parts.dxil", container(&[(b"ABCD", &[1, 2, 3, 4])])),
        ("readers-rootsig.dxil", rts0),
    ];
    let dxil: Vec<(&str, Vec<u8>)> = vec![("readers-shared_contents.dxil", dxil_shared_source(2000, 40, false))];
    let hosts: Vec<(&str, Vec<u8>)> =
        vec![("readers-host_pe.dll", pe(40, 60, &spv)), ("readers-host_elf.so", elf_many_sections(40, &spv))];
    let seeds = common::root().join("fuzz/seeds");
    for (target, set) in [
        ("spirv", &spirv),
        ("container", &containers),
        ("dxil_module", &dxil),
        ("pipeline", &spirv),
        ("pipeline", &containers),
        ("pipeline", &dxil),
        ("pipeline", &hosts),
    ] {
        for (name, bytes) in set {
            assert!(bytes.len() < 16 << 10, "{name}: {} bytes", bytes.len());
            write(&seeds.join(target), name, bytes);
        }
    }
}

//! Hostile inputs (issue: no crash, hang or memory blow-up on any input). One
//! test per defect class, each with several shapes of the defect built here,
//! run through the real binary with a time limit and a peak-RSS check, alone
//! and in a batch; plus the files `../shared/hostile/generate.py` writes, when
//! it and `python3` are present.
//!
//! Time limits are the (5 s a file, 30 s a batch) for a release build;
//! an unoptimised test build gets four times as long.

mod common;
#[path = "support/hostile.rs"]
mod hostile;

#[path = "support/runner.rs"]
mod runner;
#[path = "support/scratch.rs"]
mod tmp;
use hostile::{op, Ab, BitWriter, Spv, BLOCKINFO, METADATA_BLOCK, MODULE_BLOCK};
use runner::{irlint, json, limit};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A fresh scratch directory under the system temp dir.
fn scratch(name: &str) -> tmp::Scratch {
    tmp::scratch_in("irlint-hostile", name)
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write input");
    p
}

/// `check --format json FILE` alone: returns the report.
fn check_alone(path: &Path) -> serde_json::Value {
    let r = irlint(&["check", "--format", "json", path.to_str().unwrap()], limit(5));
    json(&r)
}

/// The single input-error message of a report.
fn input_error(report: &serde_json::Value) -> String {
    let errs: Vec<String> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "input-error")
        .map(|f| f["message"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(errs.len(), 1, "expected one input-error, got {errs:?}\n{report:#}");
    errs[0].clone()
}

fn file_status(report: &serde_json::Value) -> String {
    report["files"][0]["status"].as_str().unwrap().to_string()
}

// ---------------------------------------------------------------------------
// 1. Type recursion

/// `%t` declared twice, the second time in terms of itself, then used where
/// the lowering walks it (`OpUConvert` to `%t`).
fn spv_redeclared(second: impl FnOnce(&mut Spv, u32, u32)) -> Vec<u8> {
    let mut s = Spv::new();
    s.preamble(&[hostile::CAP_SHADER]);
    let u32t = s.id();
    s.op(op::TYPE_INT, &[u32t, 32, 0]);
    let c7 = s.id();
    s.op(op::CONSTANT, &[u32t, c7, 7]);
    let t = s.id();
    s.op(op::TYPE_INT, &[t, 32, 0]);
    second(&mut s, t, u32t);
    s.function(&[], |s, _| {
        let r = s.id();
        s.op(op::UCONVERT, &[t, r, c7]);
    });
    s.bytes()
}

/// A chain of `depth` types, each built on the previous one.
fn spv_chain(depth: usize, kind: u32) -> Vec<u8> {
    let mut s = Spv::new();
    s.preamble(&[hostile::CAP_SHADER]);
    let u32t = s.id();
    s.op(op::TYPE_INT, &[u32t, 32, 0]);
    let c = s.id();
    s.op(op::CONSTANT, &[u32t, c, 7]);
    let two = s.id();
    s.op(op::CONSTANT, &[u32t, two, 2]);
    let mut prev = u32t;
    for _ in 0..depth {
        let t = s.id();
        match kind {
            op::TYPE_VECTOR => s.op(op::TYPE_VECTOR, &[t, prev, 2]),
            op::TYPE_ARRAY => s.op(op::TYPE_ARRAY, &[t, prev, two]),
            op::TYPE_RUNTIME_ARRAY => s.op(op::TYPE_RUNTIME_ARRAY, &[t, prev]),
            op::TYPE_STRUCT => s.op(op::TYPE_STRUCT, &[t, prev]),
            _ => s.op(op::TYPE_FUNCTION, &[t, prev, prev]),
        }
        prev = t;
    }
    s.function(&[], |s, _| {
        let r = s.id();
        s.op(op::UCONVERT, &[prev, r, c]);
    });
    s.bytes()
}

#[test]
fn type_that_contains_itself_is_an_input_error() {
    let dir = scratch("selfref");
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("vector_of_itself.spv", spv_redeclared(|s, t, _| s.op(op::TYPE_VECTOR, &[t, t, 4]))),
        ("struct_of_itself.spv", spv_redeclared(|s, t, u| s.op(op::TYPE_STRUCT, &[t, u, t]))),
        ("array_of_itself.spv", spv_redeclared(|s, t, _| s.op(op::TYPE_RUNTIME_ARRAY, &[t, t]))),
        ("int_twice.spv", spv_redeclared(|s, t, _| s.op(op::TYPE_INT, &[t, 16, 0]))),
        ("forward_pointer_as_struct.spv", {
            let mut s = Spv::new();
            s.preamble(&[hostile::CAP_SHADER, hostile::CAP_PHYSICAL_STORAGE_BUFFER]);
            let p = s.id();
            s.op(op::TYPE_FORWARD_POINTER, &[p, 5349]);
            let u = s.id();
            s.op(op::TYPE_INT, &[u, 32, 0]);
            s.op(op::TYPE_STRUCT, &[p, u, p]);
            s.function(&[], |_, _| {});
            s.bytes()
        }),
    ];
    for (name, bytes) in cases {
        let p = write(&dir, name, &bytes);
        let r = check_alone(&p);
        let msg = input_error(&r);
        assert!(msg.contains("is declared twice") || msg.contains("forward-declared as a pointer"), "{name}: {msg}");
        assert!(msg.contains("byte offset"), "{name}: {msg}");
        assert_eq!(file_status(&r), "error", "{name}");
    }
}

#[test]
fn pointer_cycles_stay_legal() {
    // struct Node { u32 value; Node* next; } through OpTypeForwardPointer, in
    // PhysicalStorageBuffer, used as a function parameter.
    let mut s = Spv::new();
    s.preamble(&[hostile::CAP_SHADER, hostile::CAP_PHYSICAL_STORAGE_BUFFER]);
    let p = s.id();
    s.op(op::TYPE_FORWARD_POINTER, &[p, 5349]);
    let u = s.id();
    s.op(op::TYPE_INT, &[u, 32, 0]);
    let node = s.id();
    s.op(op::TYPE_STRUCT, &[node, u, p]);
    s.op(op::TYPE_POINTER, &[p, 5349, node]);
    s.function(&[p], |_, _| {});
    let dir = scratch("ptrcycle");
    let path = write(&dir, "linked_list.spv", &s.bytes());
    let r = check_alone(&path);
    assert_eq!(file_status(&r), "ok", "{r:#}");
    assert!(r["findings"].as_array().unwrap().is_empty(), "{r:#}");
    // And `dump --ir` prints the recursive type in bounded text.
    let d = irlint(&["dump", "--ir", path.to_str().unwrap()], limit(5));
    assert_eq!(d.code, 0);
    assert!(d.stdout.len() < 64 * 1024, "{} bytes", d.stdout.len());
}

#[test]
fn deep_type_chains_are_refused_at_the_limit() {
    let dir = scratch("deep");
    for (kind, name) in [
        (op::TYPE_VECTOR, "vector"),
        (op::TYPE_ARRAY, "array"),
        (op::TYPE_RUNTIME_ARRAY, "runtime_array"),
        (op::TYPE_STRUCT, "struct"),
        (op::TYPE_FUNCTION, "function"),
    ] {
        // Deep enough to overflow any stack if walked recursively.
        let p = write(&dir, &format!("deep_{name}.spv"), &spv_chain(400_000, kind));
        let r = check_alone(&p);
        let msg = input_error(&r);
        assert!(msg.contains("nests 257 levels deep, over the limit of 256"), "{name}: {msg}");
        // Just under the limit: a valid module, analysed (bounded walks).
        let p = write(&dir, &format!("ok_{name}.spv"), &spv_chain(250, kind));
        let r = check_alone(&p);
        assert_eq!(file_status(&r), "ok", "{name}: {r:#}");
        let d = irlint(&["dump", "--ir", p.to_str().unwrap()], limit(5));
        assert_eq!(d.code, 0, "{name}");
    }
}

#[test]
fn deep_types_are_safe_on_small_worker_stacks() {
    // The library on a 256 KiB stack (rayon workers get 2 MiB): nothing recurses per level.
    let modules: Vec<Vec<u8>> = [op::TYPE_VECTOR, op::TYPE_STRUCT, op::TYPE_ARRAY]
        .iter()
        .flat_map(|&k| [spv_chain(250, k), spv_chain(300_000, k)])
        .collect();
    let h = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            modules
                .iter()
                .map(|m| irlint::check::check_bytes("deep.spv", m, &Default::default()).files[0].status)
                .collect::<Vec<_>>()
        })
        .unwrap();
    let statuses = h.join().expect("no stack overflow");
    assert_eq!(statuses.len(), 6);
    for (i, s) in statuses.iter().enumerate() {
        let want = if i % 2 == 0 { irlint::check::FileStatus::Ok } else { irlint::check::FileStatus::Error };
        assert_eq!(*s, want, "module {i}");
    }
}

/// Bitcode whose TYPE_BLOCK holds i32 and then `depth` types, each built on the previous one.
fn dxil_type_chain(depth: u64, code: u64) -> Vec<u8> {
    let mut w = BitWriter::new();
    w.magic();
    w.enter(MODULE_BLOCK, 3);
    w.record(1, &[1]);
    w.enter(17, 4);
    w.record(1, &[depth + 1]); // NUMENTRY
    w.record(7, &[32]); // INTEGER
    for i in 0..depth {
        match code {
            11 => w.record(11, &[2, i]),    // ARRAY [numelts, eltty]
            18 => w.record(18, &[0, i, i]), // STRUCT_ANON [ispacked, eltty...]
            _ => w.record(21, &[0, i, i]),  // FUNCTION [vararg, retty, paramty...]
        }
    }
    w.end();
    w.end();
    hostile::dxil_container(&w.finish())
}

#[test]
fn deep_dxil_types_are_refused_at_the_limit() {
    let dir = scratch("dxil_deep");
    for (code, name) in [(11, "array"), (18, "struct"), (21, "function")] {
        let p = write(&dir, &format!("deep_{name}.dxil"), &dxil_type_chain(300_000, code));
        let msg = input_error(&check_alone(&p));
        assert!(msg.contains("nests 257 levels deep, over the limit of 256"), "{name}: {msg}");
        // Under the limit the type table is accepted (the module may fail later for other reasons).
        let p = write(&dir, &format!("ok_{name}.dxil"), &dxil_type_chain(250, code));
        let r = irlint(&["check", "--format", "json", p.to_str().unwrap()], limit(5));
        assert!(!r.text().contains("levels deep"), "{name}: {}", r.text());
    }
}

// ---------------------------------------------------------------------------
// 2. Zero-value folding

/// `OpConstantNull` of an aggregate `levels` deep with `fan` members or
/// elements per level (`arrays_only`: arrays of arrays), extracted in a
/// function that holds a cooperative-vector load (so it is analysed).
fn spv_nested_null(levels: usize, fan: u32, arrays_only: bool, composite: bool) -> Vec<u8> {
    let mut s = Spv::new();
    s.preamble(&[hostile::CAP_SHADER, hostile::CAP_COOP_VEC_NV]);
    let u = s.id();
    s.op(op::TYPE_INT, &[u, 32, 0]);
    let n = s.id();
    s.op(op::CONSTANT, &[u, n, fan]);
    let zero = s.id();
    s.op(op::CONSTANT, &[u, zero, 0]);
    let mut prev = u;
    let mut prev_c = zero;
    for lvl in 0..levels {
        let t = s.id();
        if lvl % 2 == 0 && !arrays_only {
            let mut ops = vec![t];
            ops.extend(std::iter::repeat_n(prev, fan as usize));
            s.op(op::TYPE_STRUCT, &ops);
        } else {
            s.op(op::TYPE_ARRAY, &[t, prev, n]);
        }
        if composite {
            // The same constant `fan` times at every level: fan^levels leaves.
            let c = s.id();
            let mut ops = vec![t, c];
            ops.extend(std::iter::repeat_n(prev_c, fan as usize));
            s.op(op::CONSTANT_COMPOSITE, &ops);
            prev_c = c;
        }
        prev = t;
    }
    let top = if composite {
        prev_c
    } else {
        let null = s.id();
        s.op(op::CONSTANT_NULL, &[prev, null]);
        null
    };
    let v4 = s.id();
    s.op(op::TYPE_VECTOR, &[v4, u, 4]);
    let ptr = s.id();
    s.op(op::TYPE_POINTER, &[ptr, 12, u]);
    let buf = s.id();
    s.op(op::VARIABLE, &[ptr, buf, 12]);
    s.function(&[], |s, _| {
        let x = s.id();
        let mut ops = vec![u, x, top];
        ops.extend(std::iter::repeat_n(0, levels));
        s.op(op::COMPOSITE_EXTRACT, &ops);
        let l = s.id();
        s.op(op::COOP_VEC_LOAD_NV, &[v4, l, buf, x]);
    });
    s.bytes()
}

#[test]
fn nested_zero_values_fold_in_bounded_time() {
    let dir = scratch("null");
    let cases = [
        ("struct_array_10x16.spv", spv_nested_null(10, 16, false, false)),
        ("arrays_12x12.spv", spv_nested_null(12, 12, true, false)),
        ("arrays_40x2.spv", spv_nested_null(40, 2, true, false)),
        ("composite_8x16.spv", spv_nested_null(8, 16, false, true)),
        ("small_2x4.spv", spv_nested_null(2, 4, true, false)),
    ];
    for (name, bytes) in cases {
        let p = write(&dir, name, &bytes);
        let r = irlint(&["check", "--format", "json", p.to_str().unwrap()], limit(5));
        let rep = json(&r);
        assert_eq!(file_status(&rep), "ok", "{name}: {rep:#}");
        assert!(r.code <= 1, "{name}");
    }
}

// ---------------------------------------------------------------------------
// 3 and 7. Bitstream operand counts and abbreviation state

fn bitcode_walk(bc: &[u8]) -> Result<u64, irlint::read::ReadError> {
    irlint::read::bitstream::walk(bc, 0)
}

/// A METADATA_BLOCK whose abbreviation has the given operands, used by `records` records.
fn metadata_records(abbrev: &[Ab], records: usize, body: impl Fn(&mut BitWriter)) -> Vec<u8> {
    let mut w = BitWriter::new();
    w.magic();
    w.enter(MODULE_BLOCK, 3);
    w.record(1, &[1]);
    w.enter(METADATA_BLOCK, 3);
    w.define_abbrev(abbrev);
    for _ in 0..records {
        w.write(4, 3);
        body(&mut w);
    }
    w.end();
    w.end();
    w.finish()
}

#[test]
fn array_elements_must_cost_bits() {
    let dir = scratch("zerowidth");
    for (name, elt) in
        [("literal", Ab::Lit(0)), ("fixed0", Ab::Fixed(0)), ("vbr0", Ab::Vbr(0)), ("literal7", Ab::Lit(7))]
    {
        let bc = metadata_records(&[Ab::Lit(3), Ab::Array, elt], 120, |w| w.vbr(1 << 20, 6));
        let e = bitcode_walk(&bc).expect_err(name);
        assert!(e.to_string().contains("array element is a literal or a 0-bit field"), "{name}: {e}");
        let p = write(&dir, &format!("{name}.dxil"), &hostile::dxil_container(&bc));
        let msg = input_error(&check_alone(&p));
        assert!(msg.contains("array element is a literal"), "{name}: {msg}");
        assert!(msg.contains("byte offset"), "{name}: {msg}");
    }
    // A 1-bit element still works, and the length is checked against the bits left.
    let bc = metadata_records(&[Ab::Lit(3), Ab::Array, Ab::Fixed(1)], 1, |w| {
        w.vbr(5, 6);
        w.write(0b10110, 5);
    });
    assert_eq!(bitcode_walk(&bc).unwrap(), 2); // VERSION + the node
    let bc = metadata_records(&[Ab::Lit(3), Ab::Array, Ab::Fixed(1)], 1, |w| w.vbr(1 << 20, 6));
    let e = bitcode_walk(&bc).unwrap_err();
    assert!(e.to_string().contains("exceeds the data left"), "{e}");
}

#[test]
fn literal_operands_cannot_amplify_a_stream() {
    // Every record is 3 bits and carries 1,000 literal operands.
    let mut ops = vec![Ab::Lit(3)];
    ops.extend(std::iter::repeat_n(Ab::Lit(1), 1000));
    let bc = metadata_records(&ops, 200_000, |_| {});
    let e = bitcode_walk(&bc).unwrap_err();
    assert!(e.to_string().contains("operands in total"), "{e}");
    let dir = scratch("amplify");
    let p = write(&dir, "literal_records.dxil", &hostile::dxil_container(&bc));
    let msg = input_error(&check_alone(&p));
    assert!(msg.contains("operands in total"), "{msg}");
}

#[test]
fn closed_blocks_and_later_blockinfo_free_their_abbreviations() {
    // 200 metadata blocks, each defining 100 abbreviations of 1,000 char6
    // operands (20 M operands in all; 100 k live at a time).
    let mut w = BitWriter::new();
    w.magic();
    w.enter(MODULE_BLOCK, 3);
    w.record(1, &[1]);
    let abbrev = vec![Ab::Char6; 1000];
    for _ in 0..200 {
        w.enter(METADATA_BLOCK, 3);
        for _ in 0..100 {
            w.define_abbrev(&abbrev);
        }
        w.end();
    }
    w.end();
    let bc = w.finish();
    assert_eq!(bitcode_walk(&bc).unwrap(), 1);
    // Many BLOCKINFO blocks: only the first is read (as in LLVM).
    let mut w = BitWriter::new();
    w.magic();
    for bid in 0..200u64 {
        w.enter(BLOCKINFO, 3);
        w.record(1, &[100 + bid]);
        for _ in 0..100 {
            w.define_abbrev(&abbrev);
        }
        w.end();
    }
    w.enter(MODULE_BLOCK, 3);
    w.record(1, &[1]);
    w.end();
    let bc2 = w.finish();
    assert_eq!(bitcode_walk(&bc2).unwrap(), 1);
    let dir = scratch("abbrevs");
    for (name, bc) in [("closed_blocks.dxil", &bc), ("many_blockinfo.dxil", &bc2)] {
        let p = write(&dir, name, &hostile::dxil_container(bc));
        let r = irlint(&["check", "--format", "json", p.to_str().unwrap()], limit(5));
        let text = r.text();
        assert!(!text.contains("defined at once"), "{name}: {text}");
    }
}

#[test]
fn abbreviation_state_is_capped() {
    // One BLOCKINFO block for 300 block ids.
    let mut w = BitWriter::new();
    w.magic();
    w.enter(BLOCKINFO, 3);
    for bid in 0..300u64 {
        w.record(1, &[bid + 20]);
        w.define_abbrev(&[Ab::Lit(1)]);
    }
    w.end();
    let e = bitcode_walk(&w.finish()).unwrap_err();
    assert!(e.to_string().contains("more than 256 block ids"), "{e}");
    // 2,000 abbreviations of 1,000 operands in one BLOCKINFO block.
    let mut w = BitWriter::new();
    w.magic();
    w.enter(BLOCKINFO, 3);
    w.record(1, &[15]);
    for _ in 0..2000 {
        w.define_abbrev(&vec![Ab::Char6; 1000]);
    }
    w.end();
    let e = bitcode_walk(&w.finish()).unwrap_err();
    assert!(e.to_string().contains("abbreviation operands defined at once"), "{e}");
}

#[test]
fn entering_blocks_does_not_copy_blockinfo_abbreviations() {
    // 4,000 BLOCKINFO abbreviations for METADATA_BLOCK, then 300,000 empty
    // metadata blocks: entering one must not cost 4,000 copies.
    let mut w = BitWriter::new();
    w.magic();
    w.enter(BLOCKINFO, 3);
    w.record(1, &[METADATA_BLOCK]);
    for _ in 0..4000 {
        w.define_abbrev(&[Ab::Lit(1)]);
    }
    w.end();
    w.enter(MODULE_BLOCK, 3);
    w.record(1, &[1]);
    for _ in 0..300_000 {
        w.enter(METADATA_BLOCK, 3);
        w.end();
    }
    w.end();
    let bc = w.finish();
    let t = Instant::now();
    assert_eq!(bitcode_walk(&bc).unwrap(), 1);
    assert!(t.elapsed() < limit(2), "{:?}", t.elapsed());
    let dir = scratch("enter");
    let p = write(&dir, "many_blocks.dxil", &hostile::dxil_container(&bc));
    irlint(&["check", "--format", "json", p.to_str().unwrap()], limit(5));
}

// ---------------------------------------------------------------------------
// 4. FIFOs and devices

#[test]
fn special_files_are_refused_before_opening() {
    let dir = scratch("fifo");
    let fifo = dir.join("pipe.dxil");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a path we own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    for (path, what) in [(fifo.to_str().unwrap(), "a FIFO"), ("/dev/zero", "a character device")] {
        let r = irlint(&["check", "--format", "json", path], limit(5));
        assert_eq!(r.code, 2, "{path}");
        assert!(r.secs < 2.0, "{path} took {:.2} s", r.secs);
        assert!(r.rss_kb < 64 * 1024, "{path}: {} MB", r.rss_kb / 1024);
        let msg = input_error(&json(&r));
        assert_eq!(msg, format!("not a regular file ({what}); only regular files are read"));
    }
    // A walk lists the regular files and never opens the FIFO.
    let fixture = common::root().join("tests/fixtures/dxil/sb_heap_stride24.dxil");
    std::fs::copy(&fixture, dir.join("sb.dxil")).unwrap();
    let r = irlint(&["check", "--format", "json", dir.to_str().unwrap()], limit(5));
    let rep = json(&r);
    let files: Vec<&str> = rep["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(files[0].ends_with("sb.dxil"));
    assert_eq!(r.code, 1);
}

// ---------------------------------------------------------------------------
// 5. Embedded scan

/// Back-to-back 32-byte blocks, each a plausible SPIR-V header whose
/// instruction walk steps over the next block's magic.
fn many_magic(total: usize, big_endian: bool, shift: usize) -> Vec<u8> {
    let words = [
        hostile::SPIRV_MAGIC,
        0x0001_0000,
        (4 << 16) | 0xFFF0,
        64,
        0,
        (2 << 16) | op::CAPABILITY,
        (1 << 16) | 0xFFF1,
        (3 << 16) | 0xFFF2,
    ];
    let block: Vec<u8> =
        words.iter().flat_map(|w| if big_endian { w.to_be_bytes() } else { w.to_le_bytes() }).collect();
    let mut out = b"IRLINT-HOSTILE-SCAN\0".to_vec();
    out.extend(std::iter::repeat_n(0xAAu8, shift));
    while out.len() + 32 <= total {
        out.extend_from_slice(&block);
    }
    out
}

/// Back-to-back DXBC headers, each declaring the rest of the file and 1,024 parts.
fn many_dxbc(total: usize) -> Vec<u8> {
    let mut out = b"IRLINT".to_vec();
    while out.len() + 36 <= total {
        let rest = (total - out.len()) as u32;
        out.extend_from_slice(b"DXBC");
        out.extend_from_slice(&[7; 16]);
        out.extend_from_slice(&[1, 0, 0, 0]);
        out.extend_from_slice(&rest.to_le_bytes());
        out.extend_from_slice(&1024u32.to_le_bytes());
        out.extend_from_slice(&36u32.to_le_bytes());
    }
    out
}

#[test]
fn embedded_scan_is_linear() {
    use irlint::input::embedded::scan_bounded;
    let dir = scratch("scan");
    let cases = [
        ("magic_le.bin", many_magic(4 << 20, false, 0)),
        ("magic_be.bin", many_magic(4 << 20, true, 0)),
        ("magic_shift3.bin", many_magic(4 << 20, false, 3)),
        ("dxbc.bin", many_dxbc(4 << 20)),
    ];
    for (name, bytes) in &cases {
        let t = thread_cpu();
        let s = scan_bounded(bytes);
        let spent = thread_cpu() - t;
        assert!(spent < limit(2), "{name}: {spent:?} of CPU time");
        if let Some((_, why)) = &s.stopped {
            assert!(why.contains("work limit"), "{name}: {why}");
        }
        let p = write(&dir, name, bytes);
        let r = irlint(&["check", "--format", "json", p.to_str().unwrap()], limit(5));
        assert!(r.code <= 1, "{name}");
    }
    // Twice the bytes, about twice the time: not quadratic.
    let small = many_magic(1 << 20, false, 0);
    let big = many_magic(2 << 20, false, 0);
    let (ts, tb) = (time(|| scan_bounded(&small)), time(|| scan_bounded(&big)));
    assert!(tb < ts * 4.0 + 0.05, "1 MB: {ts:.3} s, 2 MB: {tb:.3} s");
    // The note says where the scan stopped.
    let r = irlint(&["check", "--format", "json", dir.join("magic_le.bin").to_str().unwrap()], limit(5));
    let rep = json(&r);
    let notes: Vec<&str> = rep["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "analysis-budget-exceeded")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(notes.len(), 1, "{rep:#}");
    assert!(notes[0].starts_with("embedded-shader scan stopped at byte offset "), "{}", notes[0]);
}

#[test]
fn embedded_scan_still_finds_real_modules_in_big_files() {
    use irlint::input::embedded::scan_bounded;
    let spv = std::fs::read(common::root().join("tests/fixtures/spirv/sb_heap_stride24.spv")).unwrap();
    let mut bin = vec![0x5Au8; 8 << 20];
    bin.extend_from_slice(&spv);
    bin.extend(std::iter::repeat_n(0u8, 1 << 20));
    bin.extend_from_slice(&spv);
    let s = scan_bounded(&bin);
    assert_eq!(s.stopped, None);
    assert_eq!(s.blobs.len(), 2);
    assert_eq!(s.blobs[0].offset, 8 << 20);
    assert_eq!(s.blobs[0].len, spv.len() as u64);
}

/// The CPU time this thread has used: unlike wall time it does not grow when
/// the machine is loaded (CI neighbours, parallel test binaries).
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// The fastest of five runs, in thread CPU time.
fn time<T>(f: impl Fn() -> T) -> f64 {
    (0..5)
        .map(|_| {
            let t = thread_cpu();
            std::hint::black_box(f());
            (thread_cpu() - t).as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

// ---------------------------------------------------------------------------
// 6. Dump width

#[test]
fn dump_output_is_bounded() {
    let dir = scratch("dump");
    // Anonymous structs 16 deep, 4 wide, as a parameter type: 4^16 leaves.
    let mut s = Spv::new();
    s.preamble(&[hostile::CAP_SHADER]);
    let u = s.id();
    s.op(op::TYPE_INT, &[u, 32, 0]);
    let mut prev = u;
    for _ in 0..16 {
        let t = s.id();
        s.op(op::TYPE_STRUCT, &[t, prev, prev, prev, prev]);
        prev = t;
    }
    s.function(&[prev], |_, _| {});
    let structs = write(&dir, "wide_structs.spv", &s.bytes());
    // Constants: composites 8 deep, 16 wide, all the same member.
    let composites = write(&dir, "wide_constants.spv", &spv_nested_null(8, 16, true, true));
    // Function types of wide struct parameters.
    for p in [&structs, &composites] {
        for args in [vec!["dump", "--ir"], vec!["dump"], vec!["dump", "--ir", "--format", "json"]] {
            let mut a = args.clone();
            a.push(p.to_str().unwrap());
            let r = irlint(&a, limit(5));
            assert_eq!(r.code, 0, "{a:?}");
            assert!(r.stdout.len() < 256 * 1024, "{a:?}: {} bytes", r.stdout.len());
        }
    }
    let r = irlint(&["dump", "--ir", structs.to_str().unwrap()], limit(5));
    assert!(r.text().contains("{{{{"), "{}", r.text());
    assert!(r.text().contains("..."), "{}", r.text());
}

// ---------------------------------------------------------------------------
// A batch of every class, plus a fixture with a finding.

fn all_cases() -> Vec<(&'static str, Vec<u8>)> {
    let mut ops = vec![Ab::Lit(3)];
    ops.extend(std::iter::repeat_n(Ab::Lit(1), 1000));
    vec![
        ("self_ref.spv", spv_redeclared(|s, t, _| s.op(op::TYPE_VECTOR, &[t, t, 4]))),
        ("deep.spv", spv_chain(300_000, op::TYPE_STRUCT)),
        ("null.spv", spv_nested_null(10, 16, false, false)),
        (
            "zero_width.dxil",
            hostile::dxil_container(&metadata_records(&[Ab::Lit(3), Ab::Array, Ab::Lit(0)], 120, |w| {
                w.vbr(1 << 20, 6)
            })),
        ),
        ("amplify.dxil", hostile::dxil_container(&metadata_records(&ops, 100_000, |_| {}))),
        ("magic.bin", many_magic(2 << 20, false, 1)),
        ("dxbc.bin", many_dxbc(2 << 20)),
    ]
}

fn batch_keeps_every_file(dir: &Path, expected_files: usize) {
    std::fs::copy(common::root().join("tests/fixtures/dxil/sb_heap_stride24.dxil"), dir.join("finding.dxil")).unwrap();
    let r = irlint(&["check", "--format", "json", "-j", "2", dir.to_str().unwrap()], limit(30));
    assert!(r.code == 1 || r.code == 2, "exit {}", r.code);
    let rep = json(&r);
    let files = rep["files"].as_array().unwrap();
    let top: std::collections::BTreeSet<&str> =
        files.iter().filter(|f| f["blob_offset"].is_null()).map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(top.len(), expected_files + 1, "{top:?}");
    let finding = rep["findings"].as_array().unwrap().iter().any(|f| {
        f["rule"] == "structured-buffer-stride-not-cache-aligned"
            && f["path"].as_str().is_some_and(|p| p.ends_with("finding.dxil"))
    });
    assert!(finding, "the fixture's finding is missing:\n{rep:#}");
}

#[test]
fn a_batch_of_hostile_files_reports_every_file() {
    let dir = scratch("batch");
    let cases = all_cases();
    for (name, bytes) in &cases {
        write(&dir, name, bytes);
    }
    batch_keeps_every_file(&dir, cases.len());
}

// ---------------------------------------------------------------------------
// The published generator's files.

fn generated() -> Option<tmp::Scratch> {
    let gen = common::shared("hostile/generate.py")?;
    let dir = scratch("generated");
    match Command::new("python3").arg(&gen).arg(&*dir).status() {
        Ok(s) if s.success() => Some(dir),
        other => {
            common::skip(&format!("python3 {} failed: {other:?}", gen.display()));
            None
        }
    }
}

#[test]
fn generated_hostile_files_alone_and_in_a_batch() {
    let Some(dir) = generated() else { return };
    let mut names: Vec<String> =
        std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert!(names.len() >= 7, "{names:?}");
    for name in &names {
        let p = dir.join(name);
        let path = p.to_str().unwrap();
        let r = if name.contains("dump") {
            irlint(&["dump", "--ir", path], limit(5))
        } else {
            irlint(&["check", "--format", "json", path], limit(5))
        };
        eprintln!("{name}: exit {} in {:.2} s, {} MB", r.code, r.secs, r.rss_kb / 1024);
        if name.starts_with("spv_self_ref") || name.starts_with("spv_deep") || name.starts_with("dxil_") {
            let msg = input_error(&json(&r));
            assert!(msg.contains("byte offset"), "{name}: {msg}");
        }
    }
    batch_keeps_every_file(&dir, names.len());
}

// ---------------------------------------------------------------------------
// PTX: one function defined many times

/// ptxas refuses a second definition of a function; lowering each body over
/// the last one made N copies cost O(N^2). The second definition is an input
/// error naming both lines, found before any body is lowered.
#[test]
fn ptx_function_defined_twice_is_an_input_error() {
    let dir = scratch("ptx_dup");
    let body = ".visible .entry k(.param .u64 p)\n{\n\t.reg .b32 %r<4>;\n\tmov.u32 %r1, %tid.x;\n\tshl.b32 %r2, %r1, 4;\n\tret;\n}\n";
    for copies in [2usize, 4000] {
        let mut text = String::from(".version 8.7\n.target sm_90a\n.address_size 64\n\n");
        for _ in 0..copies {
            text.push_str(body);
        }
        let p = write(&dir, &format!("dup{copies}.ptx"), text.as_bytes());
        let rep = check_alone(&p);
        assert_eq!(file_status(&rep), "error", "{rep:#}");
        let msg = input_error(&rep);
        assert!(msg.contains("line 12, column 10: function k is defined twice (first at line 5)"), "{msg}");
    }
    // A prototype followed by its definition stays legal.
    let text = ".version 8.7\n.target sm_90a\n.address_size 64\n.func f();\n.func f()\n{\n\tret;\n}\n";
    let m = irlint::ptx::lower(text.as_bytes(), 0).unwrap();
    assert_eq!(m.functions.len(), 1);
}

//! An instruction finding in a stripped module can be looked up: `byte_offset`
//! is where the instruction's record / words are in the file, and `value` is
//! the number `dxc -dumpbin` (DXIL) or `spirv-dis --raw-id` (SPIR-V) prints.

mod common;

use irlint::check::{check_bytes, CheckOptions};
use std::path::Path;

fn findings(path: &Path) -> (Vec<u8>, Vec<irlint::report::Diagnostic>) {
    let bytes = std::fs::read(path).expect("read fixture");
    let r = check_bytes(&path.display().to_string(), &bytes, &CheckOptions::default());
    (bytes, r.diagnostics)
}

/// The `@dx.op.name.overload` an IR line calls.
fn dx_op(line: &str) -> Option<&str> {
    let start = line.find("@dx.op.")?;
    let rest = &line[start..];
    Some(&rest[..rest.find('(').unwrap_or(rest.len())])
}

/// Every DXIL finding's `value` names, in DXC's own disassembly of the same
/// stripped module, the instruction the finding's IR line shows.
#[test]
fn dxil_values_match_dxc_disassembly() {
    let Some(dis) = common::shared("fixtures/dis") else { return };
    let mut checked = 0;
    for path in common::files_with_suffix(&common::fixtures().join("dxil"), ".dxil") {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if name.ends_with(".g.dxil") {
            continue;
        }
        let Ok(ll) = std::fs::read_to_string(dis.join(name.replace(".dxil", ".ll"))) else { continue };
        let (bytes, diags) = findings(&path);
        for d in diags.iter().filter(|d| d.location.instruction.is_some()) {
            let loc = &d.location;
            let off = loc.byte_offset.expect("instruction findings have a byte offset");
            assert!(off > 0 && off < bytes.len() as u64, "{name}: byte offset {off} outside the file");
            let ir = loc.ir.as_deref().expect("ir");
            let Some(value) = &loc.value else {
                assert!(ir.starts_with("call void"), "{name}: only void instructions have no value: {ir}");
                continue;
            };
            let prefix = format!("  {value} = ");
            let line = ll
                .lines()
                .find(|l| l.starts_with(&prefix))
                .unwrap_or_else(|| panic!("{name}: {value} not defined in the disassembly"));
            assert_eq!(dx_op(line), dx_op(ir), "{name}: {value} is `{line}` in dxc's numbering, irlint shows `{ir}`");
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} findings compared with the disassembly");
}

/// Every SPIR-V finding's `byte_offset` is the first word of an instruction
/// whose result id is `value` (for a resource finding: its `OpVariable`).
#[test]
fn spirv_byte_offsets_point_at_the_instruction() {
    let mut checked = 0;
    for path in common::files_with_suffix(&common::fixtures().join("spirv"), ".spv") {
        let (bytes, diags) = findings(&path);
        let word = |off: usize| -> u32 { u32::from_le_bytes(bytes[off..off + 4].try_into().expect("4 bytes")) };
        for d in &diags {
            let loc = &d.location;
            let off = loc.byte_offset.expect("byte offset") as usize;
            assert_eq!(off % 4, 0);
            let count = (word(off) >> 16) as usize;
            assert!(count >= 1 && off + 4 * count <= bytes.len());
            let id: u32 = loc.value.as_deref().and_then(|v| v.strip_prefix('%')).expect("value").parse().unwrap();
            // The result id is the first or second operand word (after a result type).
            assert!(
                (1..count.min(3)).any(|i| word(off + 4 * i) == id),
                "{}: no result id {id} at byte offset {off}",
                path.display()
            );
            checked += 1;
        }
    }
    assert!(checked >= 8, "only {checked} SPIR-V findings checked");
}

/// Findings on a buffer access name the buffer too (the fact's resolved resource).
#[test]
fn access_findings_name_their_buffer() {
    let mut checked = 0;
    for path in common::files_with_suffix(&common::fixtures().join("dxil"), ".dxil") {
        let (_, diags) = findings(&path);
        for d in diags.iter().filter(|d| d.rule.starts_with("long-vector-bytebuf")) {
            let r = d
                .location
                .resource
                .as_ref()
                .unwrap_or_else(|| panic!("{}: {} has no resource", path.display(), d.rule));
            assert_eq!(r.kind, "RawBuffer", "{}", path.display());
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} long-vector findings checked");
}

/// A debug (ILDB) module names some values; `dxc -dumpbin` disassembles that
/// module and prints them by name, and the numbers of the others skip them.
/// (Checked against `llvm-dis-14` of the ILDB part.)
#[test]
fn dxil_debug_module_values_use_the_symbol_table() {
    let dxil = common::fixtures().join("dxil");
    let value = |name: &str| {
        let (_, d) = findings(&dxil.join(name));
        d.iter().find(|d| d.location.instruction.is_some()).and_then(|d| d.location.value.clone())
    };
    assert_eq!(value("lv_load_misaligned_const.g.dxil").as_deref(), Some("%RawBufferVectorLoad"));
    assert_eq!(value("lv_load_misaligned_const.dxil").as_deref(), Some("%5"));
    // `%g_Weights_texture_rawbuf = createHandle…`, `%1 = threadId`, …: the LinAlg load is `%3`.
    assert_eq!(value("la_load_stride_mismatch.g.dxil").as_deref(), Some("%3"));
    assert_eq!(value("la_load_stride_mismatch.dxil").as_deref(), Some("%5"));
    assert_eq!(irlint::rules::llvm_local_name("a.b-c$1"), "%a.b-c$1");
    assert_eq!(irlint::rules::llvm_local_name("9lives"), "%\"9lives\"");
    assert_eq!(irlint::rules::llvm_local_name("a \"b\""), "%\"a \\22b\\22\"");
}

/// Every DXIL fixture (debug builds included): each finding's `value` is
/// defined by the same dx.op call in `llvm-dis-14`'s disassembly of the
/// analysed program part. Skips visibly without `llvm-dis-14`.
#[test]
fn dxil_values_match_llvm_dis() {
    let dis = std::env::var("IRLINT_LLVM_DIS").unwrap_or_else(|_| "llvm-dis-14".into());
    if std::process::Command::new(&dis).arg("--version").output().is_err() {
        eprintln!("skipping: {dis} not found (set IRLINT_LLVM_DIS)");
        return;
    }
    let tmp = std::env::temp_dir().join(format!("irlint-locations-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut checked = 0;
    for path in common::files_with_suffix(&common::fixtures().join("dxil"), ".dxil") {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_irlint"))
            .args(["dump", "--format", "json"])
            .arg(&path)
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let p = &v["files"][0]["program"];
        let (Some(off), Some(size)) = (p["bitcode_offset"].as_u64(), p["bitcode_size"].as_u64()) else { continue };
        let (bytes, diags) = findings(&path);
        let bc = tmp.join("m.bc");
        std::fs::write(&bc, &bytes[off as usize..(off + size) as usize]).unwrap();
        let ll = std::process::Command::new(&dis).arg(&bc).arg("-o").arg("-").output().unwrap();
        assert!(ll.status.success(), "{dis} failed on {}", path.display());
        let ll = String::from_utf8_lossy(&ll.stdout);
        for d in diags.iter().filter(|d| d.location.instruction.is_some()) {
            let Some(value) = &d.location.value else { continue };
            let prefix = format!("  {value} = ");
            let line = ll
                .lines()
                .find(|l| l.starts_with(&prefix))
                .unwrap_or_else(|| panic!("{}: {value} not defined in {dis}'s output", path.display()));
            assert_eq!(dx_op(line), dx_op(d.location.ir.as_deref().unwrap()), "{}: {value}", path.display());
            checked += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(checked >= 30, "only {checked} findings compared with {dis}");
}

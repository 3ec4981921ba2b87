//! `irlint dump` on real inputs: fixtures, the legacy DXBC corpus, damaged files.

mod common;

use common::shared_dir;
use irlint::check::{FileStatus, InputKind, LEGACY_DXBC};
use irlint::dump::{dump_bytes, render_text, DumpOptions};
use serde_json::Value as Json;
use std::path::{Path, PathBuf};

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

#[test]
fn legacy_dxbc_corpus_is_skipped() {
    let Some(shared) = shared_dir() else {
        common::skip_shared("../shared not found");
        return;
    };
    let mut files = Vec::new();
    files_under(&shared.join("corpus/dxbc"), &mut files);
    assert_eq!(files.len(), 544);
    for p in &files {
        let bytes = std::fs::read(p).unwrap();
        let d = dump_bytes(&p.display().to_string(), &bytes, &DumpOptions::default());
        assert_eq!(d.status, FileStatus::Skipped, "{}: {:?}", p.display(), d.message);
        assert_eq!(d.kind, InputKind::Dxbc, "{}", p.display());
        assert_eq!(d.message.as_deref(), Some(LEGACY_DXBC));
        let parts = d.details["container"]["parts"].as_array().unwrap();
        assert!(parts.iter().any(|p| matches!(p["fourcc"].as_str(), Some("SHDR" | "SHEX"))), "{}", p.display());
    }
}

#[test]
fn malformed_container_is_an_error_with_offset() {
    let Some(shared) = shared_dir() else {
        common::skip_shared("../shared not found");
        return;
    };
    let mut bytes = std::fs::read(shared.join("fixtures/dxil/sb_stride20_pos_uv.dxil")).unwrap();
    // Declare the first part 1 MiB long: it runs past the container end.
    let first = u32::from_le_bytes(bytes[32..36].try_into().unwrap()) as usize;
    bytes[first + 4..first + 8].copy_from_slice(&(1u32 << 20).to_le_bytes());
    let d = dump_bytes("bad.dxil", &bytes, &DumpOptions::default());
    assert_eq!(d.status, FileStatus::Error);
    let msg = d.message.unwrap();
    assert!(msg.contains(&format!("0x{:x}", first + 4)), "{msg}");

    // Truncated program part: the container is consistent but the DXIL header is not.
    let d = dump_bytes("empty.dxil", b"DXBC", &DumpOptions::default());
    assert_eq!(d.status, FileStatus::Error);
    assert!(d.message.unwrap().contains("byte offset"));
}

#[test]
fn fixture_container_and_program_header() {
    let Some(shared) = shared_dir() else {
        common::skip_shared("../shared not found");
        return;
    };
    let bytes = std::fs::read(shared.join("fixtures/dxil/la_load_stride_mismatch.g.dxil")).unwrap();
    let d = dump_bytes("la.g.dxil", &bytes, &DumpOptions::default());
    assert_eq!(d.kind, InputKind::Dxil);
    let c = &d.details["container"];
    assert_eq!(c["digest"], "preview-bypass");
    let parts: Vec<&str> = c["parts"].as_array().unwrap().iter().map(|p| p["fourcc"].as_str().unwrap()).collect();
    assert!(parts.contains(&"DXIL") && parts.contains(&"ILDB"), "{parts:?}");
    let p = &d.details["program"];
    assert_eq!(p["part"], "ILDB");
    assert_eq!(p["shader_model"], "cs_6_10");
    assert_eq!(p["stage"], "compute");
    assert_eq!(p["dxil_version"], "1.10");
}

fn dump_fixture(shared: &Path, name: &str) -> irlint::dump::DumpFile {
    let bytes = std::fs::read(shared.join("fixtures/dxil").join(name)).unwrap();
    let d = dump_bytes(name, &bytes, &DumpOptions { ir: true });
    assert_eq!(d.status, FileStatus::Ok, "{name}: {:?}", d.message);
    d
}

#[test]
fn fixture_dumps() {
    let Some(shared) = shared_dir() else {
        common::skip_shared("../shared not found");
        return;
    };
    for suffix in ["dxil", "g.dxil"] {
        let d = dump_fixture(&shared, &format!("sb_stride20_pos_uv.{suffix}"));
        let res = d.details["resources"].as_array().unwrap();
        assert!(
            res.iter().any(|r| r["kind"] == "StructuredBuffer" && r["stride"] == 20 && r["class"] == "srv"),
            "{res:?}"
        );

        let d = dump_fixture(&shared, &format!("la_load_stride_mismatch.{suffix}"));
        assert_eq!(d.details["target"], "cs_6_10");
        let ops = d.details["ops"].as_array().unwrap();
        let load = ops.iter().find(|o| o["op"] == "linAlgMatrixLoadFromDescriptor").expect("linalg load");
        assert_eq!(load["stride"], 16);
        assert_eq!(load["layout"], 0);
        assert_eq!(load["rows"], 16);
        assert_eq!(load["cols"], 16);
        assert_eq!(load["element"], 8);
        assert_eq!(load["element_name"], "F16");
        assert_eq!(load["align"], 128);
        let text = load["text"].as_str().unwrap();
        assert!(
            text.starts_with(
                "linAlgMatrixLoadFromDescriptor F16 16x16 use=A scope=Thread layout=RowMajor(0) stride=16 offset=0 align=128"
            ),
            "{text}"
        );

        let d = dump_fixture(&shared, &format!("lv_load_misaligned_const.{suffix}"));
        let ops = d.details["ops"].as_array().unwrap();
        let ld = ops.iter().find(|o| o["op"] == "rawBufferVectorLoad").expect("vector load");
        assert_eq!(ld["count"], 8);
        assert_eq!(ld["component_bytes"], 4);
        assert_eq!(ld["float"], true);
        assert_eq!(ld["index"], 12);
        assert_eq!(ld["element_offset"], "undef");
        assert_eq!(ld["resource_kind"], "RawBuffer");
        assert!(ld["text"].as_str().unwrap().starts_with("rawBufferVectorLoad v8f32"), "{}", ld["text"]);
        let text = render_text(&[d]);
        assert!(text.contains("rawBufferVectorLoad v8f32"), "{text}");
        assert!(text.contains("index=12 elementOffset=undef align=4"), "{text}");
    }
}

#[test]
fn json_shape_is_stable() {
    let Some(shared) = shared_dir() else {
        common::skip_shared("../shared not found");
        return;
    };
    let bytes = std::fs::read(shared.join("fixtures/dxil/sb_stride20_pos_uv.dxil")).unwrap();
    let d = dump_bytes("sb.dxil", &bytes, &DumpOptions::default());
    let j: Json = serde_json::to_value(&d).unwrap();
    for key in ["path", "kind", "status", "message", "bytes", "container", "program"] {
        assert!(j.get(key).is_some(), "missing {key}: {j}");
    }
    assert!(j.get("ir").is_none());
}

#[test]
fn raw_bitcode_uses_shader_model_metadata() {
    let Some(shared) = shared_dir() else {
        common::skip_shared("../shared not found");
        return;
    };
    let bytes = std::fs::read(shared.join("fixtures/dxil/lv_load_misaligned_const.dxil")).unwrap();
    let c = irlint::read::dxbc::parse(&bytes, 0).unwrap();
    let part = c.part(irlint::read::dxbc::FourCc::DXIL).unwrap();
    let (_, bc, _) = irlint::read::dxbc::program(part).unwrap();
    let d = dump_bytes("x.bc", bc, &DumpOptions::default());
    assert_eq!(d.kind, InputKind::Bitcode);
    assert_eq!(d.status, FileStatus::Ok, "{:?}", d.message);
    assert_eq!(d.details["target"], "cs_6_9");
    assert_eq!(d.details["entry_points"][0]["stage"], "compute");
    let ops = d.details["ops"].as_array().unwrap();
    assert_eq!(ops.len(), 2);
    assert_eq!(ops[0]["op"], "rawBufferVectorLoad");
    assert_eq!(ops[0]["index"], 12);
    assert_eq!(ops[1]["op"], "rawBufferVectorStore");
}

#[test]
fn spirv_input_goes_through_the_spirv_front_end() {
    let Some(shared) = shared_dir() else {
        common::skip_shared("../shared not found");
        return;
    };
    let bytes = std::fs::read(shared.join("fixtures/spirv/sb_stride20_pos_uv.spv")).unwrap();
    let d = dump_bytes("sb.spv", &bytes, &DumpOptions::default());
    assert_eq!(d.kind, InputKind::Spirv);
    match d.status {
        // SPIR-V uses std430: float3 + float2 is 32 bytes there.
        FileStatus::Ok => {
            let res = d.details["resources"].as_array().unwrap();
            assert!(res.iter().any(|r| r["kind"] == "StructuredBuffer" && r["stride"] == 32), "{res:?}");
        }
        FileStatus::Error => assert!(!d.message.unwrap_or_default().is_empty()),
        FileStatus::Skipped => panic!("SPIR-V must not be skipped"),
    }
}

#[test]
fn ir_option_prints_the_module() {
    let Some(shared) = shared_dir() else {
        common::skip_shared("../shared not found");
        return;
    };
    let bytes = std::fs::read(shared.join("fixtures/dxil/sb_stride20_pos_uv.dxil")).unwrap();
    let d = dump_bytes("sb.dxil", &bytes, &DumpOptions { ir: true });
    let ir = d.ir.as_deref().unwrap();
    assert!(ir.contains("define void @main("), "{ir}");
    assert!(ir.contains("stride Some(20)"), "{ir}");
    let text = render_text(&[d]);
    assert!(text.contains("resource #0: srv StructuredBuffer t0 space0 stride=20"), "{text}");
}

/// On PTX, `dump --ir` shows the known bits recovered for tcgen05 descriptors
/// and their decoded fields (the Triton pattern `or(zext(bfe(x, 4, 14)), 0x4000404000000000)`).
#[test]
fn ptx_dump_decodes_descriptor_fields() {
    let p = common::root().join("tests/fixtures/ptx_desc/tcgen05_smem_desc.ptx");
    let bytes = std::fs::read(&p).unwrap();
    let d = dump_bytes("tcgen05_smem_desc.ptx", &bytes, &DumpOptions { ir: true });
    assert_eq!(d.status, FileStatus::Ok, "{:?}", d.message);
    let text = render_text(&[d]);
    let line = text.lines().find(|l| l.contains("(line 23)")).expect("the fact on line 23");
    assert!(
        line.contains("idesc 136314896 [sparse_id2=0 sparse=0 saturate=0 d_format=1 a_format=0 b_format=0 negate_a=0 negate_b=0 a_major=0 b_major=0 n_dim=16 m_dim=8 max_shift=0]"),
        "{line}"
    );
    assert!(
        line.contains("a-desc %4 = bits 14-63 = 0x4000404000000000 [start_address=? reserved=0 lbo=0 reserved=0 sbo=64 version=1 base_offset=0 lbo_mode=0 reserved=0 layout_type=2]"),
        "{line}"
    );
}

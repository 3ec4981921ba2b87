//! `irlint::api` and `irlint::cli::main_with_args`, the entry points the
//! Python package calls: in-memory data checked as the file would be, configs
//! from text, kinds, and the command line run in-process.

use irlint::api::{self, Config};
use irlint::check::{FileStatus, InputKind};
use irlint::input::BatchOptions;
use irlint::report::{json, INPUT_ERROR};

const SB: &str = "shaders/examples/sb_stride20_pos_uv.dxil";
const RULE: &str = "structured-buffer-stride-not-cache-aligned";

/// The JSON report with the run's seconds zeroed.
fn json_text(r: &irlint::report::RunReport) -> String {
    let mut r = r.clone();
    r.stats.seconds = 0.0;
    json::render(&r)
}

#[test]
fn data_is_checked_as_the_file_is() {
    let bytes = std::fs::read(SB).unwrap();
    let data = api::check_data(SB, bytes, None, None, BatchOptions::default()).unwrap();
    let paths = api::check_paths(&[SB.into()], None, BatchOptions::default(), true).unwrap();
    assert!(paths.warnings.is_empty());
    assert_eq!(json_text(&data), json_text(&paths.report));
    assert_eq!(data.diagnostics.len(), 1);
    assert_eq!(data.diagnostics[0].rule, RULE);
    assert_eq!((data.stats.files, data.stats.modules, data.stats.bytes), (1, 1, 3460));
    assert_eq!(data.exit_code(), 1);
}

#[test]
fn data_without_a_shader_is_an_input_error() {
    let r = api::check_data("<bytes>", b"hello".to_vec(), None, None, BatchOptions::default()).unwrap();
    assert_eq!(r.exit_code(), 2);
    assert_eq!(r.files[0].status, FileStatus::Error);
    assert_eq!(r.diagnostics[0].rule, INPUT_ERROR);
    assert_eq!(
        r.diagnostics[0].message,
        "not a shader: the input must hold a DXBC container, a SPIR-V module, LLVM bitcode or PTX text (a \
         `.version` directive), and no shader is embedded in it; it holds text (first bytes at offset 0: 68 65 6C \
         6C 6F)"
    );
    // Named as a shader, the message is the one a file of that name gets.
    let r = api::check_data("x.spv", Vec::new(), None, None, BatchOptions::default()).unwrap();
    assert_eq!(
        r.diagnostics[0].message,
        "empty file: a .spv input must hold a SPIR-V module (starting with the magic word 0x07230203)"
    );
}

#[test]
fn kind_reads_the_data_as_that_kind() {
    let spv = std::fs::read("shaders/examples/sb_stride48_rw.spv").unwrap();
    let r = api::check_data("<bytes>", spv.clone(), Some(InputKind::Spirv), None, BatchOptions::default()).unwrap();
    assert_eq!((r.exit_code(), r.files[0].kind), (1, InputKind::Spirv));
    let r = api::check_data("<bytes>", spv, Some(InputKind::Dxil), None, BatchOptions::default()).unwrap();
    assert_eq!(
        r.diagnostics[0].message,
        "bad magic: not a DXBC container (magic is not 'DXBC') at byte offset 0x0 (0)"
    );
    assert_eq!(api::parse_kind("ptx"), Ok(InputKind::Ptx));
    assert_eq!(
        api::parse_kind("atoms"),
        Err("unknown kind `atoms`; expected one of: dxil, spirv, ptx, hlsl, bitcode, dxbc, binary".to_string())
    );
}

#[test]
fn config_from_text() {
    let bytes = std::fs::read(SB).unwrap();
    let cfg =
        Config::parse(&format!("[rules.{RULE}]\nlevel = \"deny\"\ncache-line-target = 64\n"), "<config>").unwrap();
    let r = api::check_data(SB, bytes.clone(), None, Some(cfg), BatchOptions::default()).unwrap();
    let d = &r.diagnostics[0];
    assert_eq!(d.level, irlint::report::Level::Error);
    assert!(d.values.iter().any(|(k, v)| k == "cache_line_target" && v.to_string() == "64"), "{:?}", d.values);
    let cfg = Config::parse(&format!("[per-file-ignores]\n\"shaders/**\" = [\"{RULE}\"]\n"), "<config>").unwrap();
    let r = api::check_data(SB, bytes, None, Some(cfg), BatchOptions::default()).unwrap();
    assert!(r.diagnostics.is_empty());
    let err = Config::parse("[rules]\nnope = \"deny\"\n", "<config>").unwrap_err();
    assert_eq!(
        err,
        "<config>: unknown rule `nope`; `irlint rules` lists the rules, and a group is `all` or an id prefix such as \
         `coopvec` (in [rules])"
    );
    let err = Config::parse("[hlsl]\nprofile = 6\n", "<config>").unwrap_err();
    assert_eq!(err, "<config>: `hlsl.profile` must be a string");
}

#[test]
fn usage_errors_are_errors() {
    let e = api::check_paths(&["nowhere/*.spv".into()], None, BatchOptions::default(), true).unwrap_err();
    assert_eq!(e, "no file matches \"nowhere/*.spv\"");
    let opts = BatchOptions {
        overrides: vec![("no-such".into(), irlint::config::RuleLevel::Deny)],
        ..BatchOptions::default()
    };
    let e = api::check_data("<bytes>", Vec::new(), None, None, opts).unwrap_err();
    assert!(e.starts_with("command line: unknown rule `no-such`"), "{e}");
}

#[test]
fn an_empty_walk_warns() {
    let dir = std::env::temp_dir().join(format!("irlint-api-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let checked = api::check_paths(std::slice::from_ref(&dir), None, BatchOptions::default(), true).unwrap();
    let _ = std::fs::remove_dir(&dir);
    assert_eq!(checked.warnings, vec![format!("no input files found in {}", dir.display())]);
    assert_eq!(checked.report.exit_code(), 0);
}

#[test]
fn the_command_line_runs_in_process() {
    assert_eq!(irlint::cli::main_with_args(["irlint", "explain", "no-such-rule"]), 2);
    assert_eq!(irlint::cli::main_with_args(["irlint", "--no-such-flag"]), 2);
    let out = std::env::temp_dir().join(format!("irlint-api-cli-{}.json", std::process::id()));
    let out_arg = out.display().to_string();
    let code = irlint::cli::main_with_args(["irlint", "check", "--format", "json", "-o", &out_arg, SB]);
    let written = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    assert_eq!(code, 1);
    let api = api::check_paths(&[SB.into()], None, BatchOptions::default(), true).unwrap();
    let zero = |s: &str| {
        s.lines()
            .map(|l| if l.trim_start().starts_with("\"seconds\"") { "seconds" } else { l })
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(zero(&written), zero(&json::render(&api.report)));
}

//! Where reports point, in every format (human, JSON, GitHub, SARIF):
//! source paths from debug info resolved to files that open (issue 27 item
//! 7), input-error positions (item 8) and the caret under the statement
//! (item 9).

#[path = "support/scratch.rs"]
mod tmp;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// A scratch directory of its own for each test.
fn scratch(name: &str) -> tmp::Scratch {
    tmp::scratch_in("irlint-positions", name)
}

/// `irlint ARGS` run in `cwd`: (stdout, exit code).
fn irlint(cwd: &Path, args: &[&str]) -> (String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_irlint"))
        .args(args)
        .current_dir(cwd)
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (String::from_utf8(out.stdout).unwrap(), out.status.code().unwrap_or(-1))
}

fn json(s: &str) -> Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("not JSON ({e}):\n{s}"))
}

/// Line 3 of the Python source, the statement at column 12.
const PY: &str = "import triton\n\n    acc += tl.dot(x, y)  # tensor cores, not a statement\n";

/// A Triton-like PTX kernel recording `file` as source 1, with one
/// misaligned `mbarrier.init` (an error finding) at `.loc 1 3 12`.
fn ptx(file: &str) -> String {
    format!(
        ".version 8.7\n.target sm_100a\n.address_size 64\n.file 1 \"{file}\"\n.visible .entry k(.param .u32 p)\n{{\n\
         \t.reg .b32 %r<4>;\n\tmov.u32 %r1, 1028;\n\t.loc 1 3 12\n\tmbarrier.init.shared::cta.b64 [%r1], 1; // barrier\n\tret;\n}}\n"
    )
}

/// `dir/supp/k.ptx` recording `k.py` (relative to where the compiler ran:
/// `supp/`), with `dir/supp/k.py` beside it when `with_source`.
fn kernel_in_subdir(dir: &Path, with_source: bool) {
    std::fs::create_dir_all(dir.join("supp")).unwrap();
    std::fs::write(dir.join("supp/k.ptx"), ptx("k.py")).unwrap();
    if with_source {
        std::fs::write(dir.join("supp/k.py"), PY).unwrap();
    }
}

/// The source path every format names for the one finding of `input`, run in `cwd`.
fn source_paths(cwd: &Path, input: &str) -> [String; 4] {
    let (human, code) = irlint(cwd, &["check", input]);
    assert_eq!(code, 1, "{human}");
    let arrow = human.lines().find(|l| l.trim_start().starts_with("-->")).unwrap().trim_start();
    let human_path = arrow.trim_start_matches("--> ").rsplit_once(":3:12").unwrap().0.to_string();
    let j = json(&irlint(cwd, &["check", input, "--format", "json"]).0);
    let json_path = j["findings"][0]["source"]["file"].as_str().unwrap().to_string();
    let gh = irlint(cwd, &["check", input, "--format", "github"]).0;
    let gh_path = gh.split("file=").nth(1).unwrap().split(',').next().unwrap().to_string();
    assert!(gh.contains(",line=3,col=12,"), "{gh}");
    let sarif = json(&irlint(cwd, &["check", input, "--format", "sarif"]).0);
    let run = &sarif["runs"][0];
    let art = &run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    let uri = art["uri"].as_str().unwrap().to_string();
    if art.get("uriBaseId").is_some() {
        assert_eq!(art["uriBaseId"], "%SRCROOT%");
        let root = run["originalUriBaseIds"]["%SRCROOT%"]["uri"].as_str().unwrap();
        let cwd_uri = format!("file://{}/", std::fs::canonicalize(cwd).unwrap().display());
        assert_eq!(root, cwd_uri, "%SRCROOT% is the working directory");
    }
    [human_path, json_path, gh_path, uri]
}

#[test]
fn recorded_relative_source_resolves_next_to_the_input_in_every_format() {
    let scratch_dir = scratch("resolve");
    let dir = std::fs::canonicalize(&*scratch_dir).unwrap();
    kernel_in_subdir(&dir, true);
    // From the directory above: `supp/k.py`, the file irlint read the line from.
    assert_eq!(source_paths(&dir, "supp/k.ptx"), ["supp/k.py", "supp/k.py", "supp/k.py", "supp/k.py"]);
    // The input named by an absolute path: still relative to the working directory.
    let abs = dir.join("supp/k.ptx");
    assert_eq!(source_paths(&dir, abs.to_str().unwrap()), ["supp/k.py", "supp/k.py", "supp/k.py", "supp/k.py"]);
    // From `supp/` itself: `k.py`.
    assert_eq!(source_paths(&dir.join("supp"), "k.ptx"), ["k.py", "k.py", "k.py", "k.py"]);
    // The source line shown is the file's own.
    let human = irlint(&dir, &["check", "supp/k.ptx"]).0;
    assert!(human.contains("acc += tl.dot(x, y)"), "{human}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An absolute recorded name (Triton records the kernel's absolute path)
/// stays absolute in JSON, for library users comparing it with their own
/// paths; the text formats and SARIF show it relative to the working directory.
#[test]
fn an_absolute_recorded_source_is_shown_relative() {
    let scratch_dir = scratch("absolute");
    let dir = std::fs::canonicalize(&*scratch_dir).unwrap();
    std::fs::create_dir_all(dir.join("supp")).unwrap();
    let abs = dir.join("supp/k.py");
    std::fs::write(&abs, PY).unwrap();
    std::fs::write(dir.join("supp/k.ptx"), ptx(abs.to_str().unwrap())).unwrap();
    let abs = abs.display().to_string();
    assert_eq!(source_paths(&dir, "supp/k.ptx"), ["supp/k.py", abs.as_str(), "supp/k.py", "supp/k.py"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_source_that_is_nowhere_keeps_its_recorded_name() {
    let scratch_dir = scratch("missing");
    let dir = std::fs::canonicalize(&*scratch_dir).unwrap();
    kernel_in_subdir(&dir, false);
    assert_eq!(source_paths(&dir, "supp/k.ptx"), ["k.py", "k.py", "k.py", "k.py"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A PTX file cut inside an instruction: the parse error's line and column
/// reach every format, not only the message text.
#[test]
fn ptx_parse_error_position_in_every_format() {
    let dir = scratch("ptxerr");
    let text = ptx("k.py");
    let cut = text.find("b64 [").unwrap() + 3; // `mbarrier.init.shared::cta.b64` then the end
    std::fs::write(dir.join("trunc.ptx"), &text[..cut]).unwrap();
    let line = text[..cut].lines().count() as u64;
    let column = (cut - text[..cut].rfind('\n').unwrap()) as u64; // one past the last character
    assert_eq!((line, column), (10, 31));

    let (human, code) = irlint(&dir, &["check", "trunc.ptx"]);
    assert_eq!(code, 2, "{human}");
    assert!(human.contains("error[input-error]"), "{human}");
    assert!(human.contains("  --> trunc.ptx:10:31\n"), "{human}");

    let j = json(&irlint(&dir, &["check", "trunc.ptx", "--format", "json"]).0);
    let f = &j["findings"][0];
    assert_eq!(f["rule"], "input-error");
    assert_eq!((f["line"].as_u64(), f["column"].as_u64()), (Some(10), Some(31)));
    assert_eq!(f["byte_offset"].as_u64(), Some(cut as u64));

    let gh = irlint(&dir, &["check", "trunc.ptx", "--format", "github"]).0;
    assert!(gh.starts_with("::error file=trunc.ptx,line=10,col=31,title=input-error::"), "{gh}");

    let sarif = json(&irlint(&dir, &["check", "trunc.ptx", "--format", "sarif"]).0);
    let n = &sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"][0];
    assert_eq!(n["descriptor"]["id"], "input-error");
    let physical = &n["locations"][0]["physicalLocation"];
    assert_eq!(physical["artifactLocation"]["uri"], "trunc.ptx");
    assert_eq!(physical["region"], serde_json::json!({"startLine": 10, "startColumn": 31}));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A DXBC container cut short: the reader's byte offset (the container's
/// size field, at byte 0x18) reaches every format.
#[test]
fn binary_reader_error_offset_in_every_format() {
    let dir = scratch("binerr");
    let whole =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/examples/la_load_stride_ok.dxil")).unwrap();
    std::fs::write(dir.join("cut.dxil"), &whole[..2000]).unwrap();

    let (human, code) = irlint(&dir, &["check", "cut.dxil"]);
    assert_eq!(code, 2, "{human}");
    assert!(human.contains("  --> cut.dxil (at byte 0x18)\n"), "{human}");

    let j = json(&irlint(&dir, &["check", "cut.dxil", "--format", "json"]).0);
    let f = &j["findings"][0];
    assert_eq!(f["rule"], "input-error");
    assert_eq!(f["byte_offset"].as_u64(), Some(0x18));
    assert!(f.get("line").is_none() && f.get("column").is_none(), "{f}");

    // GitHub annotations have no byte position: the message says it.
    let gh = irlint(&dir, &["check", "cut.dxil", "--format", "github"]).0;
    assert!(gh.starts_with("::error file=cut.dxil,title=input-error::"), "{gh}");
    assert!(gh.contains("at byte offset 0x18 (24)"), "{gh}");

    let sarif = json(&irlint(&dir, &["check", "cut.dxil", "--format", "sarif"]).0);
    let n = &sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"][0];
    assert_eq!(n["locations"][0]["physicalLocation"]["region"], serde_json::json!({"byteOffset": 24}));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The caret under a finding's source line spans the statement at the
/// column, not the comment after it.
#[test]
fn caret_underlines_the_statement_not_the_comment() {
    let dir = scratch("caret");
    kernel_in_subdir(&dir, true);
    let human = irlint(&dir, &["check", "supp/k.ptx"]).0;
    let lines: Vec<&str> = human.lines().collect();
    let src = lines.iter().position(|l| l.contains("acc += tl.dot")).unwrap();
    let caret = lines[src + 1];
    let text_start = lines[src].find("    acc").unwrap();
    let start = caret.find('^').unwrap();
    let width = caret.matches('^').count();
    assert_eq!(&lines[src][start..start + width], "tl.dot(x, y)", "{human}");
    assert_eq!(start - text_start, 11, "column 12: {human}");
    std::fs::remove_dir_all(&dir).unwrap();
}

//! Shared helpers for integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared` (or `$IRLINT_SHARED`), when present. Tests that need it print a
/// visible skip message when it is absent.
pub fn shared_dir() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("IRLINT_SHARED") {
        let p = PathBuf::from(p);
        if p.is_dir() {
            return Some(p);
        }
    }
    let root = root();
    [root.join("../shared"), root.join("../../shared")].into_iter().find(|up| up.is_dir())
}

/// A subdirectory of `../shared`, or `None` after reporting the skip
/// ([`skip_shared`]: a failure when `IRLINT_REQUIRE_SHARED=1`).
pub fn shared(sub: &str) -> Option<PathBuf> {
    match shared_dir().map(|s| s.join(sub)) {
        Some(p) if p.exists() => Some(p),
        _ => {
            skip_shared(&format!("../shared/{sub} not found (set IRLINT_SHARED to the shared folder)"));
            None
        }
    }
}

/// Reports a skipped test where a person sees it: written straight to stderr,
/// which libtest does not capture (it hides `eprintln!` of passing tests).
pub fn skip(why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED: {why}");
}

/// A skip for want of `../shared`. With `IRLINT_REQUIRE_SHARED=1` (as CI runs)
/// it is a failure: a gate must not pass because its data was missing.
pub fn skip_shared(why: &str) {
    if std::env::var("IRLINT_REQUIRE_SHARED").is_ok_and(|v| v == "1") {
        panic!("{why}; IRLINT_REQUIRE_SHARED=1 requires it");
    }
    skip(why);
}

/// Files under `dir` (recursive) whose name ends with `suffix`, sorted.
pub fn files_with_suffix(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(suffix)) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The project's own fixture folder (copied from ../shared/fixtures).
pub fn fixtures() -> PathBuf {
    root().join("tests/fixtures")
}

/// The `irlint` binary with the environment that would change its output
/// (GitHub detection, DXC lookup, colour) cleared.
pub fn irlint() -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_irlint"));
    c.env_remove("GITHUB_ACTIONS")
        .env_remove("IRLINT_DXC")
        .env_remove("DXC_PATH")
        .env_remove("CLICOLOR_FORCE")
        .env("NO_COLOR", "1");
    c
}

/// Runs a command: (exit code, stdout, stderr).
pub fn run(c: &mut std::process::Command) -> (i32, String, String) {
    let std::process::Output { status, stdout, stderr } = c.output().unwrap();
    (status.code().unwrap_or(-1), String::from_utf8(stdout).unwrap(), String::from_utf8(stderr).unwrap())
}

/// A fresh temporary directory (removed on drop).
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> Self {
        let p = std::env::temp_dir().join(format!("irlint-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// ptxas from PyPI `nvidia-cuda-nvcc` (or `$PTXAS`), when installed.
pub fn ptxas() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("PTXAS") {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import site,glob,os\nfor b in site.getsitepackages():\n    for p in sorted(glob.glob(os.path.join(b,'nvidia','cu*','bin','ptxas'))): print(p)",
        ])
        .output()
        .ok()?;
    let s = String::from_utf8(out.stdout).ok()?;
    s.lines().next().map(PathBuf::from).filter(|p| p.is_file())
}

/// A Triton-style kernel: PTX naming its Python source (`kernel.py`) with
/// `.file`/`.loc`, one invalid tcgen05 form (`atom-tcgen05-kind`) on source line 3.
pub const PTX_WITH_LOC: &str = ".version 8.8
.target sm_100a
.address_size 64
\t.file\t1 \"kernel.py\"

.visible .entry k()
{
\t.reg .pred \t%p<2>;
\t.reg .b32 \t%r<12>;
\t.reg .b64 \t%rd<6>;
\t.loc\t1 3 0
\ttcgen05.mma.cta_group::1.kind::f16.block_scale [%r1], %rd2, %rd3, %r2, [%r4], [%r5], %p1;
\tret;
}
";

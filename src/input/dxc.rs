//! HLSL input compiled through DXC (`libdxcompiler.so`, loaded at run time by
//! hassle-rs; feature `dxc`, on by default).
//!
//! Profile, entry point, defines, include directories and extra arguments
//! come from, in increasing priority: the `[hlsl]` table of `irlint.toml`, a
//! first-line directive in the file (`// irlint: -T cs_6_9 -E main`), and the
//! command line. DXIL is compiled with `-Zi -Qembed_debug` (the debug module
//! carries source lines), SPIR-V with `-spirv -Zi -fspv-debug=vulkan-with-source` (the
//! NonSemantic debug info with the source, so SPIR-V findings carry HLSL lines too).
//!
//! The library is looked up in this order: `--dxc PATH`, `$IRLINT_DXC`,
//! `$DXC_PATH` (each a file or a directory holding it), then the platform's
//! library search path.

use crate::check::InputKind;
use crate::report::SourceLocation;
use std::path::{Path, PathBuf};

/// The DXC library's file name on this platform.
pub const LIBRARY_NAME: &str = if cfg!(windows) {
    "dxcompiler.dll"
} else if cfg!(target_os = "macos") {
    "libdxcompiler.dylib"
} else {
    "libdxcompiler.so"
};

/// How to compile HLSL.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HlslOptions {
    /// Target profile (`-T cs_6_9`).
    pub profile: Option<String>,
    /// Entry point (`-E main`).
    pub entry: Option<String>,
    /// Defines (`-D NAME[=VALUE]`).
    pub defines: Vec<(String, Option<String>)>,
    /// Include directories (`-I DIR`).
    pub include_dirs: Vec<PathBuf>,
    /// Extra DXC arguments, passed as they are.
    pub extra_args: Vec<String>,
    /// Compile to SPIR-V instead of DXIL.
    pub spirv: bool,
    /// Skip HLSL inputs that cannot be compiled (no DXC, no target profile)
    /// instead of reporting them as input errors (`--skip-hlsl`, `hlsl.skip`).
    pub skip: bool,
}

impl HlslOptions {
    /// Layers `over` on top of `self`: its profile/entry win when set, lists
    /// are appended, `spirv` is or-ed.
    pub fn merged(&self, over: &HlslOptions) -> HlslOptions {
        let mut out = self.clone();
        if over.profile.is_some() {
            out.profile.clone_from(&over.profile);
        }
        if over.entry.is_some() {
            out.entry.clone_from(&over.entry);
        }
        out.defines.extend(over.defines.iter().cloned());
        out.include_dirs.extend(over.include_dirs.iter().cloned());
        out.extra_args.extend(over.extra_args.iter().cloned());
        out.spirv |= over.spirv;
        out.skip |= over.skip;
        out
    }

    /// The kind of module the compile produces.
    pub fn output_kind(&self) -> InputKind {
        if self.spirv {
            InputKind::Spirv
        } else {
            InputKind::Dxil
        }
    }
}

/// Parses `NAME` or `NAME=VALUE`.
pub fn parse_define(s: &str) -> (String, Option<String>) {
    match s.split_once('=') {
        Some((n, v)) => (n.to_string(), Some(v.to_string())),
        None => (s.to_string(), None),
    }
}

/// Parses DXC-style arguments (`-T cs_6_9 -E main -D X=1 -I inc -spirv ...`);
/// anything not recognised is kept as an extra argument.
pub fn parse_args(tokens: &[String]) -> Result<HlslOptions, String> {
    let mut o = HlslOptions::default();
    let mut it = tokens.iter();
    while let Some(t) = it.next() {
        let mut value = |flag: &str, attached: &str| -> Result<String, String> {
            if attached.is_empty() {
                it.next().cloned().ok_or_else(|| format!("`{flag}` needs a value"))
            } else {
                Ok(attached.to_string())
            }
        };
        match t.as_str() {
            "-spirv" | "--spirv" => o.spirv = true,
            s if s.starts_with("-T") => o.profile = Some(value("-T", &s[2..])?),
            s if s.starts_with("-E") => o.entry = Some(value("-E", &s[2..])?),
            s if s.starts_with("-D") => o.defines.push(parse_define(&value("-D", &s[2..])?)),
            s if s.starts_with("-I") => o.include_dirs.push(PathBuf::from(value("-I", &s[2..])?)),
            _ => o.extra_args.push(t.clone()),
        }
    }
    Ok(o)
}

/// Reads the first-line directive `// irlint: ARGS`. `None` when the first
/// line is not a directive.
pub fn parse_directive(source: &str) -> Option<Result<HlslOptions, String>> {
    let first = source.trim_start_matches('\u{feff}').lines().next()?.trim();
    let rest = first.strip_prefix("//")?.trim_start().strip_prefix("irlint:")?;
    let tokens: Vec<String> = rest.split_whitespace().map(str::to_string).collect();
    Some(parse_args(&tokens).map_err(|e| format!("in the `// irlint:` directive: {e}")))
}

/// Reads the `[hlsl]` table of an `irlint.toml` (other tables are ignored):
/// `profile`, `entry`, `defines = ["NAME=VALUE"]`, `include-dirs = ["dir"]`
/// (relative to the config file), `args = [..]`, `spirv = true`, `skip = true`.
pub fn parse_config(text: &str, config_path: &Path) -> Result<HlslOptions, String> {
    let origin = config_path.display();
    let value: toml::Table = text.parse().map_err(|e| format!("{origin}: {e}"))?;
    let mut o = HlslOptions::default();
    let Some(table) = value.get("hlsl") else { return Ok(o) };
    let table = table.as_table().ok_or_else(|| format!("{origin}: `hlsl` must be a table"))?;
    let base = config_path.parent().unwrap_or(Path::new("."));
    let string = |key: &str, v: &toml::Value| -> Result<String, String> {
        v.as_str().map(str::to_string).ok_or_else(|| format!("{origin}: `hlsl.{key}` must be a string"))
    };
    let strings = |key: &str, v: &toml::Value| -> Result<Vec<String>, String> {
        v.as_array()
            .and_then(|a| a.iter().map(|x| x.as_str().map(str::to_string)).collect::<Option<Vec<_>>>())
            .ok_or_else(|| format!("{origin}: `hlsl.{key}` must be an array of strings"))
    };
    for (key, v) in table {
        match key.as_str() {
            "profile" => o.profile = Some(string(key, v)?),
            "entry" => o.entry = Some(string(key, v)?),
            "defines" => o.defines = strings(key, v)?.iter().map(|d| parse_define(d)).collect(),
            "include-dirs" => o.include_dirs = strings(key, v)?.iter().map(|d| base.join(d)).collect(),
            "args" => o.extra_args = strings(key, v)?,
            "spirv" => o.spirv = v.as_bool().ok_or_else(|| format!("{origin}: `hlsl.spirv` must be true or false"))?,
            "skip" => o.skip = v.as_bool().ok_or_else(|| format!("{origin}: `hlsl.skip` must be true or false"))?,
            other => {
                return Err(format!(
                    "{origin}: unknown key `hlsl.{other}` (expected profile, entry, defines, include-dirs, args, spirv, skip)"
                ))
            }
        }
    }
    Ok(o)
}

/// The DXC arguments besides profile, entry and defines (which DXC takes as
/// separate parameters).
pub fn build_args(o: &HlslOptions) -> Vec<String> {
    let mut args: Vec<String> = if o.spirv {
        // The NonSemantic debug info with the embedded source: findings carry HLSL lines.
        vec!["-spirv".into(), "-Zi".into(), "-fspv-debug=vulkan-with-source".into()]
    } else {
        vec!["-Zi".into(), "-Qembed_debug".into()]
    };
    for dir in &o.include_dirs {
        args.push("-I".into());
        args.push(dir.to_string_lossy().into_owned());
    }
    args.extend(o.extra_args.iter().cloned());
    args
}

/// Where the DXC library is looked for, in order: `(what, path)`.
pub fn library_candidates(cli: Option<&Path>) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let as_file = |p: PathBuf| if p.is_dir() { p.join(LIBRARY_NAME) } else { p };
    if let Some(p) = cli {
        out.push(("--dxc".to_string(), as_file(p.to_path_buf())));
    }
    for var in ["IRLINT_DXC", "DXC_PATH"] {
        if let Some(v) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            out.push((format!("${var}"), as_file(PathBuf::from(v))));
        }
    }
    out
}

/// The message for a missing DXC: a first line saying so, then one line per
/// place searched, then how to point irlint at a DXC.
pub fn missing_library_message(tried: &[(String, String)]) -> String {
    let mut s = format!("HLSL input needs DXC, but {LIBRARY_NAME} could not be loaded");
    // In the documented search order: --dxc, $IRLINT_DXC, $DXC_PATH, the system path.
    let mut lines: Vec<(usize, String)> = tried
        .iter()
        .map(|(what, err)| {
            let rank = if what.starts_with("--dxc") {
                0
            } else if what.starts_with("$IRLINT_DXC") {
                1
            } else if what.starts_with("$DXC_PATH") {
                2
            } else {
                3
            };
            (rank, format!("searched {what}: {err}"))
        })
        .collect();
    if !tried.iter().any(|(w, _)| w.starts_with("$IRLINT_DXC")) {
        lines.push((1, "searched $IRLINT_DXC: not set".into()));
    }
    if !tried.iter().any(|(w, _)| w.starts_with("$DXC_PATH")) {
        lines.push((2, "searched $DXC_PATH: not set".into()));
    }
    lines.sort_by_key(|(rank, _)| *rank);
    for (_, line) in lines {
        s.push('\n');
        s.push_str(&line);
    }
    s.push_str(&format!(
        "\ninstall DXC ({LIBRARY_NAME} ships with the Vulkan SDK and with the DirectXShaderCompiler releases, \
         https://github.com/microsoft/DirectXShaderCompiler/releases) and point irlint at it with \
         `--dxc PATH` or `IRLINT_DXC=PATH` (the library file or its directory)"
    ));
    s
}

/// The first `file:line:col: error: ...` line of DXC's output, as a source
/// location and the message text after it.
pub fn first_error(output: &str) -> Option<(SourceLocation, String)> {
    for line in output.lines() {
        let Some(idx) = line.find(": error: ").or_else(|| line.find(": fatal error: ")) else { continue };
        let (head, msg) = line.split_at(idx);
        let msg = msg.trim_start_matches(':').trim();
        let msg = msg.strip_prefix("fatal error: ").or_else(|| msg.strip_prefix("error: ")).unwrap_or(msg).to_string();
        // head = FILE:LINE:COL (FILE may itself hold colons, e.g. `C:\x.hlsl`).
        let mut parts = head.rsplitn(3, ':');
        let col = parts.next().and_then(|c| c.parse::<u32>().ok());
        let ln = parts.next().and_then(|l| l.parse::<u32>().ok());
        let file = parts.next();
        if let (Some(column), Some(line), Some(file)) = (col, ln, file) {
            return Some((SourceLocation { file: file.to_string(), line, column }, msg));
        }
        return Some((SourceLocation { file: head.to_string(), line: 0, column: 0 }, msg));
    }
    None
}

/// The headline of a DXC compile error and its source location: `HLSL
/// compilation failed: MESSAGE` at the first located error; DXC's own first
/// line when it names no location (`invalid profile cs_5_0`).
pub fn compile_error_headline(output: &str) -> (String, Option<SourceLocation>) {
    match first_error(output) {
        Some((loc, msg)) if loc.line > 0 => (format!("HLSL compilation failed: {msg}"), Some(loc)),
        Some((_, msg)) if !msg.is_empty() => (msg, None),
        _ => match output.lines().map(str::trim).find(|l| !l.is_empty()) {
            Some(first) => (first.trim_start_matches("fatal error: ").trim_start_matches("error: ").to_string(), None),
            None => ("HLSL compilation failed".to_string(), None),
        },
    }
}

/// Why an HLSL file produced no module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HlslError {
    /// No DXC library (or built without the `dxc` feature); the message says what was searched.
    NoCompiler(String),
    /// The options lack a profile or entry point, or are malformed.
    Options(String),
    /// DXC rejected the shader; its output as printed.
    Compile(String),
}

/// A loaded DXC.
#[cfg(feature = "dxc")]
pub struct Compiler {
    dxc: hassle_rs::Dxc,
    /// The library that was loaded (for messages).
    pub loaded_from: String,
}

#[cfg(not(feature = "dxc"))]
/// A loaded DXC (this build has no `dxc` feature, so none can be loaded).
pub struct Compiler {
    _private: (),
}

// One compile at a time: DXC's COM objects are not shared across threads.
#[cfg(feature = "dxc")]
static COMPILE_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl Compiler {
    /// Loads DXC from the candidates, then from the library search path.
    #[cfg(feature = "dxc")]
    pub fn load(cli: Option<&Path>) -> Result<Compiler, HlslError> {
        let mut tried = Vec::new();
        let mut candidates: Vec<(String, Option<PathBuf>)> =
            library_candidates(cli).into_iter().map(|(w, p)| (w, Some(p))).collect();
        candidates.push(("the system library search path".to_string(), None));
        for (what, path) in candidates {
            let label = match &path {
                Some(p) => format!("{what} ({})", p.display()),
                None => format!("{what} ({LIBRARY_NAME})"),
            };
            // A path named by `--dxc` or `$IRLINT_DXC` that does not exist is an
            // error naming it, never a silent fall-back to another library.
            if path.as_ref().is_some_and(|p| !p.exists()) && what != "$DXC_PATH" {
                tried.push((label, format!("does not exist (irlint looks no further when {what} names a library)")));
                return Err(HlslError::NoCompiler(missing_library_message(&tried)));
            }
            let loaded = std::panic::catch_unwind(|| hassle_rs::Dxc::new(path.clone()));
            match loaded {
                Ok(Ok(dxc)) => {
                    // `libdxil.so` (the validator) loads too, but makes no compiler.
                    if dxc.create_compiler().is_err() {
                        tried.push((
                            label,
                            "loads, but is not the DXC compiler (libdxil is the validator; \
                                            point at libdxcompiler)"
                                .to_string(),
                        ));
                        continue;
                    }
                    return Ok(Compiler { dxc, loaded_from: label });
                }
                Ok(Err(e)) => tried.push((label, short_load_error(&e))),
                Err(_) => tried.push((label, "panicked while loading".to_string())),
            }
        }
        Err(HlslError::NoCompiler(missing_library_message(&tried)))
    }

    /// Loads DXC (always fails: built without the `dxc` feature).
    #[cfg(not(feature = "dxc"))]
    pub fn load(_cli: Option<&Path>) -> Result<Compiler, HlslError> {
        Err(HlslError::NoCompiler(
            "HLSL input needs DXC, but this irlint was built without the `dxc` feature \
             (rebuild with default features)"
                .into(),
        ))
    }

    /// Where the library was loaded from (for `--version`).
    #[cfg(feature = "dxc")]
    pub fn describe(&self) -> String {
        self.loaded_from.clone()
    }

    /// Where the library was loaded from (never: no `dxc` feature).
    #[cfg(not(feature = "dxc"))]
    pub fn describe(&self) -> String {
        String::new()
    }

    /// Compiles `source` (read from `path`) into a DXIL container or SPIR-V module.
    #[cfg(feature = "dxc")]
    pub fn compile(&self, path: &str, source: &str, o: &HlslOptions) -> Result<(Vec<u8>, InputKind), HlslError> {
        let (profile, entry) = require_target(o)?;
        let args = build_args(o);
        let all: Vec<&str> = args
            .iter()
            .map(String::as_str)
            .chain([path, profile, entry])
            .chain(o.defines.iter().flat_map(|(n, v)| std::iter::once(n.as_str()).chain(v.as_deref())))
            .collect();
        if all.iter().any(|a| a.contains('\0')) {
            return Err(HlslError::Options("an argument contains a NUL character".into()));
        }
        let _guard = COMPILE_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let run = || -> Result<Vec<u8>, HlslError> {
            let compiler = self.dxc.create_compiler().map_err(|e| HlslError::Compile(e.to_string()))?;
            let library = self.dxc.create_library().map_err(|e| HlslError::Compile(e.to_string()))?;
            let blob =
                library.create_blob_with_encoding_from_str(source).map_err(|e| HlslError::Compile(e.to_string()))?;
            let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
            let defines: Vec<(&str, Option<&str>)> =
                o.defines.iter().map(|(n, v)| (n.as_str(), v.as_deref())).collect();
            let mut includes = FileIncludes;
            match compiler.compile(&blob, path, entry, profile, &arg_refs, Some(&mut includes), &defines) {
                Ok(result) => {
                    let out = result.get_result().map_err(|e| HlslError::Compile(e.to_string()))?;
                    Ok(out.to_vec::<u8>())
                }
                Err((result, hr)) => {
                    let text = result
                        .get_error_buffer()
                        .ok()
                        .and_then(|b| library.get_blob_as_string(&b.into()).ok())
                        .filter(|t| !t.trim().is_empty())
                        .unwrap_or_else(|| format!("DXC failed with HRESULT {hr:?}"));
                    Err(HlslError::Compile(text))
                }
            }
        };
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
            Ok(r) => r.map(|bytes| (bytes, o.output_kind())),
            Err(_) => Err(HlslError::Compile("DXC panicked (hassle-rs) while compiling".into())),
        }
    }

    /// Compiles (always fails: built without the `dxc` feature).
    #[cfg(not(feature = "dxc"))]
    pub fn compile(&self, _path: &str, _source: &str, _o: &HlslOptions) -> Result<(Vec<u8>, InputKind), HlslError> {
        Err(HlslError::NoCompiler("built without the `dxc` feature".into()))
    }
}

/// The entry point when none is given, as DXC's own default.
pub const DEFAULT_ENTRY: &str = "main";

/// Profile and entry point (`main` unless given), or the error that names the
/// missing profile.
pub fn require_target(o: &HlslOptions) -> Result<(&str, &str), HlslError> {
    match (o.profile.as_deref(), o.entry.as_deref()) {
        (Some(p), Some(e)) => Ok((p, e)),
        (Some(p), None) => Ok((p, DEFAULT_ENTRY)),
        (None, _) => Err(HlslError::Options(
            "no target profile: pass `-T PROFILE` (e.g. `-T cs_6_9`), set `[hlsl] profile` in irlint.toml, \
             or start the file with `// irlint: -T cs_6_9 -E main`"
                .into(),
        )),
    }
}

#[cfg(feature = "dxc")]
fn short_load_error(e: &hassle_rs::HassleError) -> String {
    match e {
        hassle_rs::HassleError::LoadLibraryError { inner, .. } => inner.to_string(),
        other => other.to_string(),
    }
}

/// `#include` resolution: DXC hands over candidate paths; read them from disk.
#[cfg(feature = "dxc")]
struct FileIncludes;

#[cfg(feature = "dxc")]
impl hassle_rs::DxcIncludeHandler for FileIncludes {
    fn load_source(&mut self, filename: String) -> Option<String> {
        let limit = crate::read::limits::MAX_SOURCE_FILE_BYTES;
        super::batch::read_bounded_text(std::path::Path::new(&filename), limit, "source file").ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn directive_parsing() {
        let src = "// irlint: -T cs_6_9 -E main -D N=4 -DFLAG -I inc -enable-16bit-types\n[numthreads(1,1,1)]";
        let o = parse_directive(src).unwrap().unwrap();
        assert_eq!(o.profile.as_deref(), Some("cs_6_9"));
        assert_eq!(o.entry.as_deref(), Some("main"));
        assert_eq!(o.defines, vec![("N".into(), Some("4".into())), ("FLAG".into(), None)]);
        assert_eq!(o.include_dirs, vec![PathBuf::from("inc")]);
        assert_eq!(o.extra_args, vec!["-enable-16bit-types".to_string()]);
        assert!(!o.spirv);
        assert!(parse_directive("// compile: -T cs_6_9\n").is_none());
        assert!(parse_directive("").is_none());
        let e = parse_directive("//irlint: -T").unwrap().unwrap_err();
        assert!(e.contains("`-T` needs a value"), "{e}");
        let o = parse_directive("\u{feff}//   irlint: -Tlib_6_3 -spirv").unwrap().unwrap();
        assert_eq!(o.profile.as_deref(), Some("lib_6_3"));
        assert!(o.spirv);
    }

    #[test]
    fn argument_building() {
        let o = parse_args(&toks("-T cs_6_9 -E main -I a -I b -O3")).unwrap();
        assert_eq!(build_args(&o), toks("-Zi -Qembed_debug -I a -I b -O3"));
        let s = HlslOptions { spirv: true, ..o };
        assert_eq!(build_args(&s), toks("-spirv -Zi -fspv-debug=vulkan-with-source -I a -I b -O3"));
        assert_eq!(s.output_kind(), InputKind::Spirv);
    }

    #[test]
    fn merge_priority() {
        let config = parse_args(&toks("-T cs_6_6 -E main -D A")).unwrap();
        let directive = parse_args(&toks("-T cs_6_9 -D B")).unwrap();
        let cli = parse_args(&toks("-E other")).unwrap();
        let m = config.merged(&directive).merged(&cli);
        assert_eq!(m.profile.as_deref(), Some("cs_6_9"));
        assert_eq!(m.entry.as_deref(), Some("other"));
        assert_eq!(m.defines.len(), 2);
    }

    #[test]
    fn config_table() {
        let text = "[rules]\nx = \"deny\"\n[hlsl]\nprofile = \"cs_6_9\"\nentry = \"main\"\ndefines = [\"N=2\"]\ninclude-dirs = [\"inc\"]\n";
        let o = parse_config(text, Path::new("/p/irlint.toml")).unwrap();
        assert_eq!(o.profile.as_deref(), Some("cs_6_9"));
        assert_eq!(o.defines, vec![("N".into(), Some("2".into()))]);
        assert_eq!(o.include_dirs, vec![PathBuf::from("/p/inc")]);
        let e = parse_config("[hlsl]\nprofil = \"x\"\n", Path::new("irlint.toml")).unwrap_err();
        assert!(e.contains("unknown key `hlsl.profil`"), "{e}");
        assert_eq!(parse_config("", Path::new("irlint.toml")).unwrap(), HlslOptions::default());
    }

    #[test]
    fn dxc_error_mapping() {
        let out = "shaders/a.hlsl:7:12: warning: implicit truncation\nshaders/a.hlsl:9:5: error: use of undeclared identifier 'x'\n    x = 1;\n    ^\n";
        let (loc, msg) = first_error(out).unwrap();
        assert_eq!(loc, SourceLocation { file: "shaders/a.hlsl".into(), line: 9, column: 5 });
        assert_eq!(msg, "use of undeclared identifier 'x'");
        let (loc, _) = first_error("C:\\s\\b.hlsl:3:1: fatal error: 'x.h' file not found").unwrap();
        assert_eq!((loc.file.as_str(), loc.line), ("C:\\s\\b.hlsl", 3));
        assert!(first_error("all good").is_none());
    }

    #[test]
    fn missing_library_message_names_the_search() {
        let m = missing_library_message(&[("--dxc (/opt/x.so)".into(), "cannot open".into())]);
        assert!(m.contains(LIBRARY_NAME));
        assert!(m.lines().next().unwrap().ends_with("could not be loaded"));
        assert!(m.contains("\nsearched --dxc (/opt/x.so): cannot open"));
        assert!(m.contains("\nsearched $IRLINT_DXC: not set"));
        assert!(m.contains("\nsearched $DXC_PATH: not set"));
        assert!(m.contains("Vulkan SDK"));
        assert!(m.contains("IRLINT_DXC=PATH"));
        // The documented order, whatever order the attempts were listed in.
        let m = missing_library_message(&[
            ("the system library search path (x)".into(), "not found".into()),
            ("$DXC_PATH (/d)".into(), "not found".into()),
        ]);
        let order: Vec<&str> = m.lines().filter_map(|l| l.strip_prefix("searched ")).collect();
        assert_eq!(
            order,
            ["$IRLINT_DXC: not set", "$DXC_PATH (/d): not found", "the system library search path (x): not found"]
        );
    }

    #[test]
    fn compile_error_headlines() {
        let (h, loc) = compile_error_headline("a.hlsl:3:5: error: use of undeclared identifier 'x'\n  x = 1;\n");
        assert_eq!(h, "HLSL compilation failed: use of undeclared identifier 'x'");
        assert_eq!(loc.map(|l| (l.line, l.column)), Some((3, 5)));
        assert_eq!(compile_error_headline("invalid profile cs_5_0\n"), ("invalid profile cs_5_0".into(), None));
        assert_eq!(compile_error_headline("error: invalid profile cs_5_0"), ("invalid profile cs_5_0".into(), None));
        assert_eq!(compile_error_headline("\n"), ("HLSL compilation failed".into(), None));
    }

    #[test]
    fn target_required() {
        let e = require_target(&HlslOptions::default()).unwrap_err();
        assert!(matches!(e, HlslError::Options(ref m) if m.contains("-T PROFILE")));
        let o = HlslOptions { profile: Some("cs_6_9".into()), ..Default::default() };
        // The entry point defaults to `main`, as DXC's does.
        assert_eq!(require_target(&o).unwrap(), ("cs_6_9", "main"));
    }
}

//! Path helpers shared by the input filters, the pipeline (source files named
//! by debug info) and the SARIF emitter.

use std::path::{Component, Path, PathBuf};

/// `a/./b/../c` → `a/c` without touching the file system (a leading `..`
/// that cannot be resolved is kept).
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The file a source name from debug info (PTX `.file`, SPIR-V
/// `OpSource`/`DebugSource`, DXIL `DIFile`) stands for on disk, if any.
///
/// Compilers record names relative to the directory they ran in, which is
/// usually not the one irlint runs in; the input usually sits where the
/// compiler wrote it. So a relative name is looked for next to the input
/// first (`supp/k.ptx` recording `k.py` → `supp/k.py`), then as written
/// (relative to the working directory), then by its file name next to the
/// input. An absolute name is taken as written, then by its file name next
/// to the input (a source copied beside its PTX). The returned path is
/// lexically normalized; `None` when no candidate is a regular file.
pub fn find_source(input: &str, recorded: &str) -> Option<PathBuf> {
    if recorded.is_empty() || recorded.contains('\0') {
        return None;
    }
    let p = Path::new(recorded);
    let dir = Path::new(input).parent().unwrap_or(Path::new(""));
    let mut candidates: Vec<PathBuf> =
        if p.is_absolute() { vec![p.to_path_buf()] } else { vec![dir.join(p), p.to_path_buf()] };
    if let Some(name) = p.file_name() {
        candidates.push(dir.join(name));
    }
    candidates.into_iter().map(|c| normalize(&c)).find(|c| c.is_file())
}

/// A path as reports name it: relative to `cwd` when it lies under it (an
/// absolute path outside it stays absolute; a relative one stays as it is,
/// already relative to the working directory).
pub fn relative_to(p: &Path, cwd: Option<&Path>) -> String {
    if p.is_absolute() {
        if let Some(rel) = cwd.and_then(|c| p.strip_prefix(normalize(c)).ok()) {
            if !rel.as_os_str().is_empty() {
                return rel.to_string_lossy().into_owned();
            }
        }
    }
    p.to_string_lossy().into_owned()
}

/// A source name from debug info as reports carry it: the file
/// [`find_source`] finds — relative to the working directory when it lies
/// under it, so that a click in a terminal or a code-scanning annotation
/// opens it — or the recorded name when no file is found. An absolute name
/// that exists as recorded is kept absolute (the text formats show it
/// relative, see [`shown`]): library users such as the Python Triton hook
/// compare it with their own absolute paths.
pub fn display_source(input: &str, recorded: &str, cwd: Option<&Path>) -> String {
    match find_source(input, recorded) {
        Some(found) if Path::new(recorded).is_absolute() && found == normalize(Path::new(recorded)) => {
            recorded.to_string()
        }
        Some(found) => relative_to(&found, cwd),
        None => recorded.to_string(),
    }
}

/// A source file as the text formats (human, GitHub) print it: an absolute
/// path under the working directory relative to it, anything else as is.
pub fn shown(file: &str) -> std::borrow::Cow<'_, str> {
    let p = Path::new(file);
    if !p.is_absolute() {
        return std::borrow::Cow::Borrowed(file);
    }
    let cwd = std::env::current_dir().ok();
    match relative_to(p, cwd.as_deref()) {
        r if r == file => std::borrow::Cow::Borrowed(file),
        r => std::borrow::Cow::Owned(r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_to_the_working_directory() {
        let cwd = Path::new("/work/proj");
        assert_eq!(relative_to(Path::new("/work/proj/supp/k.py"), Some(cwd)), "supp/k.py");
        assert_eq!(relative_to(Path::new("/elsewhere/k.py"), Some(cwd)), "/elsewhere/k.py");
        assert_eq!(relative_to(Path::new("supp/k.py"), Some(cwd)), "supp/k.py");
        assert_eq!(relative_to(Path::new("/work/proj/k.py"), None), "/work/proj/k.py");
    }

    #[test]
    fn nothing_found_for_odd_names() {
        assert_eq!(find_source("a/b.ptx", ""), None);
        assert_eq!(find_source("a/b.ptx", "x\0y"), None);
        assert_eq!(display_source("a/b.ptx", "<built-in:hlsl>/dx/linalg.h", None), "<built-in:hlsl>/dx/linalg.h");
    }
}

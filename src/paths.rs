//! Path helpers shared by the input filters and the SARIF emitter.

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

//! Expands command-line paths into input files.
//!
//! A directory is walked recursively; every regular file in it is an input
//! (files are recognised by content, not extension). Hidden entries (`.git`,
//! `.cache`, dot-files) and `irlint.toml` files are skipped, entries are visited in sorted order,
//! directory symlinks are followed once (a canonical-path set breaks loops),
//! and a file reached twice is listed once. A path given explicitly is always
//! an input, even when it does not exist — reading it then reports the error.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// One input file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// Path to open.
    pub path: PathBuf,
    /// Path as reported (the command-line spelling, extended by the walk).
    pub display: String,
    /// Named on the command line (not found by walking a directory).
    pub explicit: bool,
    /// Set when the walk could not list a directory.
    pub error: Option<String>,
}

impl Input {
    fn new(path: PathBuf, explicit: bool) -> Self {
        let display = path.to_string_lossy().into_owned();
        Input { path, display, explicit, error: None }
    }
}

fn is_hidden(name: &std::ffi::OsStr) -> bool {
    name.to_string_lossy().starts_with('.')
}

/// Expands `paths` (files and directories) into input files.
pub fn discover(paths: &[PathBuf]) -> Vec<Input> {
    let mut out = Vec::new();
    let mut seen_files = HashSet::new();
    let mut seen_dirs = HashSet::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out, &mut seen_files, &mut seen_dirs);
        } else {
            let key = std::fs::canonicalize(p).unwrap_or_else(|_| p.clone());
            if seen_files.insert(key) {
                out.push(Input::new(p.clone(), true));
            }
        }
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<Input>, seen_files: &mut HashSet<PathBuf>, seen_dirs: &mut HashSet<PathBuf>) {
    let Ok(canon) = std::fs::canonicalize(dir) else {
        let mut i = Input::new(dir.to_path_buf(), false);
        i.error = Some("cannot resolve directory".into());
        out.push(i);
        return;
    };
    if !seen_dirs.insert(canon) {
        return; // a symlink loop or a directory named twice
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) => {
            let mut i = Input::new(dir.to_path_buf(), false);
            i.error = Some(format!("cannot list directory: {e}"));
            out.push(i);
            return;
        }
    };
    let mut names: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.file_name()).collect();
    names.sort();
    for name in names {
        // Hidden entries (.git, dot-files) and irlint's own config are not inputs.
        if is_hidden(&name) || name == "irlint.toml" {
            continue;
        }
        let path = dir.join(&name);
        // `metadata` follows symlinks: a link to a directory is walked (once),
        // a link to a file is an input, a broken link is reported when read.
        match std::fs::metadata(&path) {
            Ok(m) if m.is_dir() => walk(&path, out, seen_files, seen_dirs),
            Ok(m) if m.is_file() => {
                let key = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
                if seen_files.insert(key) {
                    out.push(Input::new(path, false));
                }
            }
            Ok(_) => {} // fifo, socket, device: never opened by a walk
            Err(_) => {
                if std::fs::symlink_metadata(&path).is_ok() {
                    out.push(Input::new(path, false));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_sorted_skips_hidden_and_dedupes() {
        let dir = std::env::temp_dir().join(format!("irlint-discover-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("b/.git")).unwrap();
        std::fs::create_dir_all(dir.join("a")).unwrap();
        std::fs::write(dir.join("b/z.bin"), b"z").unwrap();
        std::fs::write(dir.join("b/.git/HEAD"), b"x").unwrap();
        std::fs::write(dir.join("a/y.spv"), b"y").unwrap();
        std::fs::write(dir.join(".hidden"), b"h").unwrap();
        std::fs::write(dir.join("c.dxil"), b"c").unwrap();
        std::fs::write(dir.join("a/irlint.toml"), b"").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&dir, dir.join("a/loop")).unwrap();
        let inputs = discover(&[dir.clone(), dir.join("c.dxil"), dir.join("missing.dxil")]);
        let rel: Vec<_> = inputs
            .iter()
            .map(|i| i.path.strip_prefix(&dir).map(|p| p.to_string_lossy().into_owned()).unwrap_or_default())
            .collect();
        assert_eq!(rel, ["a/y.spv", "b/z.bin", "c.dxil", "missing.dxil"]);
        assert!(inputs[3].explicit && !inputs[0].explicit);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

//! Expands command-line paths into input files, in report order.
//!
//! A directory is walked recursively; every regular file in it is an input
//! (files are recognised by content, not extension). Hidden entries (`.git`,
//! `.cache`, dot-files) and `irlint.toml` files are skipped, directory symlinks
//! are followed once, and a file reached twice (through a symlink, or a hard
//! link) is listed once. A path given explicitly is always an input, even when
//! it does not exist — reading it then reports the error.
//!
//! ## Triton caches
//!
//! A directory written by Triton's cache manager (`~/.triton/cache`, and the
//! dump and override folders that share its layout) holds one directory per
//! cache key: the key's SHA-256 in unpadded base32 (52 characters `A-Z2-7`),
//! with the kernel's stages side by side (`k.source`, `k.ttir`, `k.ttgir`,
//! `k.llir`, `k.ptx`, `k.cubin`, `k.json`, `__grp__k.json`; `.amdgcn` and
//! `.hsaco` for AMD), or a compiled launcher (`cuda_utils….so`), or autotuning
//! results (`k.autotune.json`). In such a directory, one whose name is a cache
//! key or that holds a `__grp__*.json` group file, only the `*.ptx` files are
//! inputs: the other stages are not shaders irlint reads, and scanning the ELF
//! cubin and launcher objects for embedded DXIL or SPIR-V only listed them as
//! skipped. Its subdirectories (`tmp.pid_*`, partial writes) are not walked.
//! A file named on the command line is checked whatever its directory.
//!
//! ## Order
//!
//! Inputs come out in the order of their display paths as strings, which is
//! the order of the report: a directory's entries are sorted by name, a
//! directory's name taken with its trailing `/` (`a-b` comes before `a/x`, as
//! the strings `a-b` and `a/x` do). The batch driver can therefore write each
//! input's findings as soon as the inputs before it are done. When the
//! command-line paths overlap (`dir` and `dir/sub`), the walk is collected and
//! sorted first.
//!
//! ## Cost
//!
//! One `statx` and one listing (`openat`, `getdents64`, `close`) per directory;
//! nothing per file: the entry type and inode come with the listing, so a
//! regular file is neither `stat`ed nor canonicalised (only a symlink is
//! `stat`ed, to follow it). Directories are remembered by `(dev, inode)` to
//! break symlink loops, files by `(dev, inode)` to list each once. The
//! `irlint.toml` that applies to each input is found from the listings as the
//! walk goes down (the ancestors of a command-line path are searched once).

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::ffi::{OsStr, OsString};
use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    /// The `irlint.toml` that applies to this input (the nearest one in the
    /// input's directory or its ancestors, as an absolute path), if any.
    pub config: Option<Arc<PathBuf>>,
}

impl Input {
    fn new(path: PathBuf, explicit: bool, config: Option<Arc<PathBuf>>) -> Self {
        let display = path.to_string_lossy().into_owned();
        Input { path, display, explicit, error: None, config }
    }

    fn failed(path: PathBuf, display: String, error: String, config: Option<Arc<PathBuf>>) -> Self {
        Input { path, display, explicit: false, error: Some(error), config }
    }
}

/// The display of `parent.join(name)` from the parent's display (what
/// `Path::push` does on unix: a `/` unless the parent is empty or ends with one),
/// without converting the whole path again.
fn join_display(parent: &str, name: &str) -> String {
    let mut s = String::with_capacity(parent.len() + 1 + name.len());
    s.push_str(parent);
    if !parent.is_empty() && !parent.ends_with('/') {
        s.push('/');
    }
    s.push_str(name);
    s
}

/// A name as the report prints it (lossy only when it is not UTF-8).
fn lossy(name: &OsStr) -> std::borrow::Cow<'_, str> {
    match name.to_str() {
        Some(s) => s.into(),
        None => name.to_string_lossy(),
    }
}

/// `dir.join(name)` in one allocation.
fn join(dir: &Path, name: &OsStr) -> PathBuf {
    let mut p = PathBuf::with_capacity(dir.as_os_str().len() + 1 + name.len());
    p.push(dir);
    p.push(name);
    p
}

fn is_hidden(name: &OsStr) -> bool {
    name.as_encoded_bytes().first() == Some(&b'.')
}

/// A Triton cache key as a directory name: a SHA-256 in base32 without its
/// `====` padding (`triton.runtime.cache._base32`).
fn is_triton_key(name: &OsStr) -> bool {
    let b = name.as_encoded_bytes();
    b.len() == 52 && b.iter().all(|&c| c.is_ascii_uppercase() || (b'2'..=b'7').contains(&c))
}

/// Triton's group file, `__grp__KERNEL.json`: it lists a compiled kernel's stages.
fn is_triton_group(name: &OsStr) -> bool {
    let b = name.as_encoded_bytes();
    b.starts_with(b"__grp__") && b.ends_with(b".json")
}

fn is_ptx(name: &OsStr) -> bool {
    let b = name.as_encoded_bytes();
    b.len() > 4 && b[b.len() - 4..].eq_ignore_ascii_case(b".ptx")
}

/// Identity of a file or directory: `(dev, inode)`.
type Id = (u64, u64);

#[cfg(unix)]
fn meta_id(_path: &Path, m: &Metadata) -> Id {
    use std::os::unix::fs::MetadataExt;
    (m.dev(), m.ino())
}

#[cfg(not(unix))]
fn meta_id(path: &Path, _: &Metadata) -> Id {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()).hash(&mut h);
    (0, h.finish())
}

/// The id of a regular file from its directory entry: no system call on unix.
#[cfg(unix)]
fn entry_id(dir_dev: u64, e: &std::fs::DirEntry) -> Option<Id> {
    use std::os::unix::fs::DirEntryExt;
    Some((dir_dev, e.ino()))
}

#[cfg(not(unix))]
fn entry_id(_: u64, e: &std::fs::DirEntry) -> Option<Id> {
    Some(meta_id(&e.path(), &e.metadata().ok()?))
}

/// A directory entry that the walk keeps.
enum Kind {
    File(Option<Id>),
    Dir(Option<Metadata>),
    /// A symlink whose target does not exist: an input, reported when read.
    Broken,
    /// A directory that cannot be listed (found ahead of time, see `Walker::dir`).
    Unlistable(String),
}

struct Child {
    /// Sort key: the name as the report prints it, `/` appended for a directory.
    key: String,
    name: OsString,
    kind: Kind,
}

/// The depth-first walk in report order.
struct Walker<'a> {
    seen_files: HashSet<Id>,
    seen_dirs: HashSet<Id>,
    /// Directory (absolute) → the config that applies there, for command-line paths.
    ancestors: HashMap<PathBuf, Option<Arc<PathBuf>>>,
    emit: &'a mut dyn FnMut(Input),
}

impl Walker<'_> {
    /// The config for inputs directly in `dir`, searched up from `dir` (once per directory).
    fn config_above(&mut self, dir: Option<&Path>) -> Option<Arc<PathBuf>> {
        let dir = dir?;
        if let Some(c) = self.ancestors.get(dir) {
            return c.clone();
        }
        let found = crate::config::discover(dir).map(Arc::new);
        self.ancestors.insert(dir.to_path_buf(), found.clone());
        found
    }

    fn root(&mut self, p: &Path, meta: Option<Metadata>) {
        let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        match meta {
            Some(m) if m.is_dir() => {
                let inherited = self.config_above(abs.parent());
                self.dir(p, &p.to_string_lossy(), Some(m), inherited);
            }
            meta => {
                let config = self.config_above(abs.parent());
                let fresh = match &meta {
                    Some(m) => self.seen_files.insert(meta_id(p, m)),
                    None => true,
                };
                if fresh {
                    (self.emit)(Input::new(p.to_path_buf(), true, config));
                }
            }
        }
    }

    /// Walks one directory: one `statx`, one listing; `stat` only for symlinks.
    fn dir(&mut self, dir: &Path, display: &str, meta: Option<Metadata>, inherited: Option<Arc<PathBuf>>) {
        let meta = match meta.map_or_else(|| std::fs::metadata(dir), Ok) {
            Ok(m) => m,
            Err(_) => {
                let why = "cannot resolve directory".to_string();
                return (self.emit)(Input::failed(dir.to_path_buf(), display.to_string(), why, inherited));
            }
        };
        let id = meta_id(dir, &meta);
        if !self.seen_dirs.insert(id) {
            return; // a symlink loop or a directory reached twice
        }
        let entries = match std::fs::read_dir(dir) {
            Ok(rd) => rd,
            Err(e) => {
                let msg = format!("cannot list directory: {e}");
                return (self.emit)(Input::failed(dir.to_path_buf(), display.to_string(), msg, inherited));
            }
        };
        let mut has_config = false;
        let mut triton = dir.file_name().is_some_and(is_triton_key);
        let mut children = Vec::new();
        for e in entries.filter_map(Result::ok) {
            let name = e.file_name();
            // `file_type` comes with the listing (d_type); no stat.
            let Ok(ft) = e.file_type() else { continue };
            if name == "irlint.toml" {
                has_config = ft.is_file() || (ft.is_symlink() && dir.join(&name).is_file());
                continue;
            }
            // Hidden entries (.git, dot-files) are not inputs.
            if is_hidden(&name) {
                continue;
            }
            if ft.is_file() && is_triton_group(&name) {
                triton = true;
            }
            let kind = if ft.is_file() {
                Kind::File(entry_id(id.0, &e))
            } else if ft.is_dir() {
                Kind::Dir(None)
            } else if ft.is_symlink() {
                // Follow it: a link to a directory is walked (once), a link to
                // a file is an input, a broken link is reported when read.
                let path = dir.join(&name);
                match std::fs::metadata(&path) {
                    Ok(m) if m.is_dir() => Kind::Dir(Some(m)),
                    Ok(m) if m.is_file() => Kind::File(Some(meta_id(&path, &m))),
                    Ok(_) => continue,
                    Err(_) => Kind::Broken,
                }
            } else {
                continue; // fifo, socket, device: never opened by a walk
            };
            let is_dir = matches!(kind, Kind::Dir(_));
            let mut key = String::with_capacity(name.len() + usize::from(is_dir));
            key.push_str(&lossy(&name));
            if is_dir {
                key.push('/');
            }
            children.push(Child { key, name, kind });
        }
        if triton {
            // A Triton cache entry: its PTX only (see the module doc).
            children.retain(|c| matches!(c.kind, Kind::File(_) | Kind::Broken) && is_ptx(&c.name));
        }
        children.sort_unstable_by(|a, b| a.key.cmp(&b.key));
        self.check_unlistable(dir, &mut children);
        let config = if has_config {
            let file = dir.join("irlint.toml");
            Some(Arc::new(std::path::absolute(&file).unwrap_or(file)))
        } else {
            inherited
        };
        for c in children {
            let path = join(dir, &c.name);
            let shown = join_display(display, c.key.strip_suffix('/').unwrap_or(&c.key));
            let error = match c.kind {
                Kind::Dir(m) => {
                    self.dir(&path, &shown, m, config.clone());
                    continue;
                }
                Kind::File(Some(id)) if !self.seen_files.insert(id) => continue,
                Kind::File(_) | Kind::Broken => None,
                Kind::Unlistable(msg) => Some(msg),
            };
            (self.emit)(Input { path, display: shown, explicit: false, error, config: config.clone() });
        }
    }

    /// A directory that cannot be listed is reported under its own name
    /// (`sub`), which sorts before `sub/...`; when a sibling sorts between the
    /// two (`sub-old`), the directory is tried now so that its error entry
    /// lands in report order. Rare: only such pairs of names cost a listing more.
    fn check_unlistable(&self, dir: &Path, children: &mut [Child]) {
        let mut changed = false;
        for i in 1..children.len() {
            let (before, rest) = children.split_at_mut(i);
            let (Some(prev), Some(c)) = (before.last(), rest.first_mut()) else { continue };
            let Kind::Dir(meta) = &c.kind else { continue };
            let stem = &c.key[..c.key.len() - 1];
            if !prev.key.starts_with(stem) {
                continue;
            }
            let path = dir.join(&c.name);
            let error = match meta.as_ref().map_or_else(|| std::fs::metadata(&path), |m| Ok(m.clone())) {
                Err(_) => Some("cannot resolve directory".to_string()),
                Ok(_) => std::fs::read_dir(&path).err().map(|e| format!("cannot list directory: {e}")),
            };
            if let Some(msg) = error {
                c.key.pop();
                c.kind = Kind::Unlistable(msg);
                changed = true;
            }
        }
        if changed {
            children.sort_by(|a, b| a.key.cmp(&b.key));
        }
    }
}

/// Calls `emit` for every input under `paths`, in report order (the order of
/// the display paths as strings).
pub fn walk(paths: &[PathBuf], emit: &mut dyn FnMut(Input)) {
    let mut roots: Vec<(String, &PathBuf, Option<Metadata>)> = paths
        .iter()
        .map(|p| {
            let meta = std::fs::metadata(p).ok();
            let mut key = p.to_string_lossy().into_owned();
            if meta.as_ref().is_some_and(Metadata::is_dir) && !key.ends_with('/') {
                key.push('/');
            }
            (key, p, meta)
        })
        .collect();
    let mut sorted: Vec<usize> = (0..roots.len()).collect();
    sorted.sort_by(|&a, &b| roots[a].0.cmp(&roots[b].0));
    // Disjoint paths walk in sorted order; a path inside another (or twice)
    // makes the walk order the command-line order, sorted afterwards.
    let overlap = sorted.windows(2).any(|w| {
        let (a, b) = (&roots[w[0]].0, &roots[w[1]].0);
        a == b || (a.ends_with('/') && b.starts_with(a.as_str()))
    });
    let mut missing = std::collections::HashSet::new();
    let mut collected = Vec::new();
    let mut collect = |i: Input| collected.push(i);
    let sink: &mut dyn FnMut(Input) = if overlap { &mut collect } else { emit };
    let mut w = Walker {
        seen_files: HashSet::default(),
        seen_dirs: HashSet::default(),
        ancestors: HashMap::default(),
        emit: sink,
    };
    let order: Vec<usize> = if overlap { (0..roots.len()).collect() } else { sorted };
    for i in order {
        let (_, p, meta) = &mut roots[i];
        if meta.is_none() && !missing.insert(p.as_path()) {
            continue;
        }
        w.root(p, meta.take());
    }
    if overlap {
        collected.sort_by(|a, b| a.display.cmp(&b.display));
        for i in collected {
            emit(i);
        }
    }
}

/// The warning for a walk of `paths` that found no input. A Triton cache
/// whose entries hold no PTX (`TRITON_STORE_BINARY_ONLY=1` keeps only the
/// cubin and the metadata) is named as such; looking costs one listing per
/// named directory, and only in this case.
pub fn no_input_warning(paths: &[PathBuf]) -> String {
    let named: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let mut msg = format!("no input files found in {}", named.join(", "));
    let is_cache = |p: &PathBuf| {
        p.file_name().is_some_and(is_triton_key)
            || std::fs::read_dir(p).is_ok_and(|rd| {
                rd.filter_map(Result::ok).any(|e| {
                    let name = e.file_name();
                    (is_triton_key(&name) && e.file_type().is_ok_and(|t| t.is_dir())) || is_triton_group(&name)
                })
            })
    };
    if paths.iter().any(is_cache) {
        msg.push_str(
            " (a Triton cache: only its .ptx files are read, and it holds none; \
             Triton keeps no PTX when TRITON_STORE_BINARY_ONLY=1)",
        );
    }
    msg
}

/// Expands `paths` (files and directories) into input files, in report order.
pub fn discover(paths: &[PathBuf]) -> Vec<Input> {
    let mut out = Vec::new();
    walk(paths, &mut |i| out.push(i));
    out
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

    #[test]
    fn triton_names() {
        let key = "DIJOSFLGVQEVJAUD7ERP4KHZDF3XQEKQPTC54QFXWAXIUQZN4KJQ";
        assert!(is_triton_key(OsStr::new(key)));
        assert!(!is_triton_key(OsStr::new(&key[1..])), "51 characters");
        assert!(!is_triton_key(OsStr::new(&format!("{key}A"))), "53 characters");
        assert!(!is_triton_key(OsStr::new(&key.replace('D', "d"))), "lowercase");
        assert!(!is_triton_key(OsStr::new(&key.replace('4', "1"))), "1 is no base32 digit");
        assert!(!is_triton_key(OsStr::new(&key.replace('7', "8"))), "8 is no base32 digit");
        assert!(is_triton_group(OsStr::new("__grp__matmul_kernel.json")));
        assert!(!is_triton_group(OsStr::new("matmul_kernel.json")));
        assert!(is_ptx(OsStr::new("k.ptx")) && is_ptx(OsStr::new("K.PTX")));
        assert!(!is_ptx(OsStr::new(".ptx")) && !is_ptx(OsStr::new("k.ptx.tmp")));
    }
}

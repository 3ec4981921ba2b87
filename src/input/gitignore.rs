//! `.gitignore` and `.git/info/exclude` inside a git work tree, as git reads
//! them: per directory, the last matching pattern decides, `!` re-includes,
//! a trailing `/` matches directories only (`GitIgnores`, used by
//! [`super::filters::ProjectFilters`]; `--no-ignore` turns it off).

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One directory's ignore patterns (`.git/info/exclude` first at a work
/// tree's root, then `.gitignore`), compiled into two sets: patterns without a
/// `/` match a path's last component only, so they are tested against the
/// name, not the whole path; the others against the path from the file's
/// directory. The last pattern that matches decides, as in git.
#[derive(Default)]
struct IgnoreFile {
    names: GlobSet,
    paths: GlobSet,
    /// Per pattern of `names`, then of `paths`: `(line order, negated, dir_only)`.
    name_kinds: Vec<(usize, bool, bool)>,
    path_kinds: Vec<(usize, bool, bool)>,
}

impl IgnoreFile {
    fn is_empty(&self) -> bool {
        self.name_kinds.is_empty() && self.path_kinds.is_empty()
    }

    /// Whether the last pattern matching `sub` (relative to this file's
    /// directory; its last component is `name`) ignores it (`Some(true)`),
    /// re-includes it (`Some(false)`), or none matches (`None`). `hits` is
    /// scratch space.
    fn decide(&self, sub: &str, name: &str, is_dir: bool, hits: &mut Vec<usize>) -> Option<bool> {
        let mut best: Option<(usize, bool)> = None;
        for (set, kinds, text) in [(&self.names, &self.name_kinds, name), (&self.paths, &self.path_kinds, sub)] {
            if kinds.is_empty() {
                continue;
            }
            set.matches_into(text, hits);
            for &i in hits.iter() {
                if let Some(&(order, negated, dir_only)) = kinds.get(i) {
                    if (!dir_only || is_dir) && best.is_none_or(|(o, _)| order > o) {
                        best = Some((order, !negated));
                    }
                }
            }
        }
        best.map(|(_, ignored)| ignored)
    }
}

/// Compiles ignore-file text (`origin` names it in errors). More than
/// [`MAX_IGNORE_PATTERNS`](crate::read::limits::MAX_IGNORE_PATTERNS) patterns
/// is an error.
fn parse_gitignore(text: &str, origin: &Path) -> Result<IgnoreFile, String> {
    let max = crate::read::limits::MAX_IGNORE_PATTERNS;
    let (mut names, mut paths) = (GlobSetBuilder::new(), GlobSetBuilder::new());
    let mut f = IgnoreFile::default();
    let mut order = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (negated, line) = match line.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, line.strip_prefix('\\').unwrap_or(line)),
        };
        let (dir_only, line) = match line.strip_suffix('/') {
            Some(rest) => (true, rest),
            None => (false, line),
        };
        if order == max {
            return Err(format!(
                "{}: more than {max} patterns (irlint's limit; --no-ignore reads no ignore files)",
                origin.display()
            ));
        }
        // A pattern with a `/` (other than at the end) is anchored to the
        // `.gitignore`'s directory; one without matches a name at any depth.
        if line.contains('/') {
            if let Ok(g) = GlobBuilder::new(line.trim_start_matches('/')).literal_separator(true).build() {
                paths.add(g);
                f.path_kinds.push((order, negated, dir_only));
            }
        } else if let Ok(g) = GlobBuilder::new(line).literal_separator(true).build() {
            names.add(g);
            f.name_kinds.push((order, negated, dir_only));
        }
        order += 1;
    }
    let built = |b: GlobSetBuilder| b.build().map_err(|e| format!("{}: {e}", origin.display()));
    f.names = built(names)?;
    f.paths = built(paths)?;
    Ok(f)
}

/// Reads an ignore file: `None` when there is none, an error when it cannot
/// be read (a FIFO, over [`MAX_IGNORE_FILE_BYTES`](crate::read::limits::MAX_IGNORE_FILE_BYTES)).
fn read_ignore_file(path: &Path) -> Result<Option<String>, String> {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        _ => super::batch::read_bounded_text_lossy(path, crate::read::limits::MAX_IGNORE_FILE_BYTES, "ignore file")
            .map(Some)
            .map_err(|e| format!("{}: {e}", path.display())),
    }
}

/// The ignore files that apply in a directory, deepest first: each with the
/// number of path components from the work tree's root to its directory, and
/// how many ignore files are in force there (itself included).
struct Level {
    depth: usize,
    count: usize,
    file: Arc<IgnoreFile>,
    up: Option<Arc<Level>>,
}

/// What is known about one directory of a work tree.
#[derive(Clone)]
struct DirState {
    /// Ignore files in force (this directory's and its ancestors').
    levels: Option<Arc<Level>>,
    /// The directory (or one above it, below the walk root) is ignored, for
    /// the walk root depth it was computed with.
    ignored: bool,
}

/// `.gitignore` files by directory, each read and compiled once; directories
/// are decided once, from their parent's state, so a file costs one match
/// per ignore file in force above it, whatever the depth.
#[derive(Default)]
pub(super) struct GitIgnores {
    roots: HashMap<PathBuf, Option<PathBuf>>,
    /// `(directory, walk-root depth)` → its state.
    dirs: HashMap<(PathBuf, usize), DirState>,
    hits: Vec<usize>,
    /// The first ignore file that could not be used.
    pub(super) error: Option<String>,
}

impl GitIgnores {
    /// The work tree holding `dir` (a directory with `.git`), if any.
    fn root(&mut self, dir: &Path) -> Option<PathBuf> {
        let mut missing = Vec::new();
        let mut found = None;
        for a in dir.ancestors() {
            if let Some(r) = self.roots.get(a) {
                found = r.clone();
                break;
            }
            if a.join(".git").exists() {
                found = Some(a.to_path_buf());
                missing.push(a);
                break;
            }
            missing.push(a);
        }
        for a in missing {
            self.roots.insert(a.to_path_buf(), found.clone());
        }
        found
    }

    /// The compiled ignore file of `dir` (`is_root`: also `.git/info/exclude`).
    fn load(&mut self, dir: &Path, is_root: bool) -> Option<Arc<IgnoreFile>> {
        let mut text = String::new();
        let mut read = |p: PathBuf, text: &mut String| match read_ignore_file(&p) {
            Ok(Some(t)) => {
                text.push_str(&t);
                text.push('\n');
            }
            Ok(None) => {}
            Err(e) => {
                self.error.get_or_insert(e);
            }
        };
        if is_root && dir.join(".git").is_dir() {
            read(dir.join(".git/info/exclude"), &mut text);
        }
        read(dir.join(".gitignore"), &mut text);
        if text.trim().is_empty() {
            return None;
        }
        match parse_gitignore(&text, &dir.join(".gitignore")) {
            Ok(f) if !f.is_empty() => Some(Arc::new(f)),
            Ok(_) => None,
            Err(e) => {
                self.error.get_or_insert(e);
                None
            }
        }
    }

    /// The last decision of the ignore files in force for `rel` (relative
    /// to the work tree's root, `/`-separated), deepest file first.
    fn decide(&mut self, levels: &Option<Arc<Level>>, rel: &str, starts: &[usize], is_dir: bool) -> bool {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        let mut cur = levels.as_ref();
        while let Some(l) = cur {
            let sub = starts.get(l.depth).and_then(|&i| rel.get(i..)).unwrap_or("");
            if let Some(ignored) = l.file.decide(sub, name, is_dir, &mut self.hits) {
                return ignored;
            }
            cur = l.up.as_ref();
        }
        false
    }

    /// Whether git would ignore the file `abs` (or a directory above it and
    /// below `walk_root`, the directory named on the command line).
    pub(super) fn ignored(&mut self, abs: &Path, walk_root: Option<&Path>) -> bool {
        let Some(dir) = abs.parent() else { return false };
        let Some(root) = self.root(dir) else { return false };
        let Ok(rel) = abs.strip_prefix(&root) else { return false };
        let named = walk_root.and_then(|w| w.strip_prefix(&root).ok()).map_or(0, |w| w.components().count());
        // `rel` as a string, with the byte offset where each component starts.
        let comps: Vec<&std::ffi::OsStr> = rel.components().map(|c| c.as_os_str()).collect();
        let mut text = String::new();
        let mut starts = Vec::with_capacity(comps.len() + 1);
        for c in &comps {
            if !text.is_empty() {
                text.push('/');
            }
            starts.push(text.len());
            text.push_str(&c.to_string_lossy());
        }
        starts.push(text.len() + 1);
        // Directories from the deepest one already decided down to the parent.
        let n = comps.len();
        let dirs: Vec<&Path> = dir.ancestors().take(n).collect();
        let mut known = dirs.len();
        let mut state = None;
        for (i, d) in dirs.iter().enumerate() {
            if let Some(s) = self.dirs.get(&(d.to_path_buf(), named)) {
                known = i;
                state = Some(s.clone());
                break;
            }
        }
        // Above the work tree's root: nothing in force.
        let mut state = state.unwrap_or(DirState { levels: None, ignored: false });
        for i in (0..known).rev() {
            let d = dirs[i];
            // `d` has `n - 1 - i` components below the root.
            let depth = n - 1 - i;
            let ignored = state.ignored
                || (depth > named && {
                    let end = starts.get(depth).map_or(text.len(), |&s| s - 1);
                    let target = text.get(..end).unwrap_or("");
                    let levels = state.levels.clone();
                    self.decide(&levels, target, &starts, true)
                });
            let levels = match self.load(d, depth == 0) {
                Some(file) => {
                    let count = state.levels.as_ref().map_or(0, |l| l.count) + 1;
                    let max = crate::read::limits::MAX_IGNORE_FILES_ON_PATH;
                    if count > max {
                        self.error.get_or_insert_with(|| {
                            format!(
                                "{}: more than {max} nested directories with ignore files on one path (irlint's \
                                 limit; --no-ignore reads no ignore files)",
                                d.join(".gitignore").display()
                            )
                        });
                    }
                    Some(Arc::new(Level { depth, count, file, up: state.levels.clone() }))
                }
                None => state.levels.clone(),
            };
            state = DirState { levels, ignored };
            self.dirs.insert((d.to_path_buf(), named), state.clone());
        }
        state.ignored || {
            let levels = state.levels.clone();
            self.decide(&levels, &text, &starts, false)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gitignore_lines() {
        let f = parse_gitignore("# c\n*.tmp\n/build/\n!keep.tmp\nsub/x.spv\n", Path::new(".gitignore")).unwrap();
        let mut hits = Vec::new();
        let mut m = |s: &str, dir: bool| f.decide(s, s.rsplit('/').next().unwrap(), dir, &mut hits) == Some(true);
        assert!(m("a/b.tmp", false));
        assert!(!m("a/keep.tmp", false));
        assert!(m("build", true));
        assert!(!m("build", false));
        assert!(m("sub/x.spv", false));
        assert!(!m("a/sub/x.spv", false));
    }

    #[test]
    fn too_many_ignore_patterns_is_an_error() {
        let max = crate::read::limits::MAX_IGNORE_PATTERNS;
        let text: String = (0..=max).map(|i| format!("p{i}\n")).collect();
        let e = parse_gitignore(&text, Path::new("x/.gitignore")).err().unwrap();
        assert_eq!(
            e,
            format!("x/.gitignore: more than {max} patterns (irlint's limit; --no-ignore reads no ignore files)")
        );
        let text: String = (0..max).map(|i| format!("p{i}\n")).collect();
        assert_eq!(parse_gitignore(&text, Path::new(".gitignore")).unwrap().name_kinds.len(), max);
    }
}

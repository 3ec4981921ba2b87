//! Project filters applied around a check, outside the walk and the batch:
//!
//! - quoted globs on the command line (`irlint check 'shaders/**/*.spv'`)
//!   expanded into the files they match ([`expand_globs`]);
//! - `-` reading one input from stdin ([`stdin_input`]);
//! - `.gitignore` (inside a git work tree; `--no-ignore` turns it off) and
//!   `exclude = [globs]` of `irlint.toml` leaving walked files out (a file
//!   named on the command line is always checked);
//! - `[per-file-ignores]` dropping a rule's findings for matching files, as a
//!   pass over the finished report.
//!
//! `exclude` and `per-file-ignores` globs are relative to the directory of
//! the `irlint.toml` that applies to the file (`--config FILE`: that file's
//! directory). A glob without `/` matches a file name or any directory name
//! (`exclude = ["third_party"]`); one with `/` matches the path from that
//! directory (`"shaders/generated/**"`).

use super::discover::Input;
use crate::config::{self, Settings};
use crate::paths::normalize;
use crate::report::run::{is_tool_outcome, RunReport};
use globset::{Glob, GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

fn absolute(p: &Path) -> PathBuf {
    normalize(&std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()))
}

/// [`absolute`] against a working directory read once (the walk's inputs are
/// relative to it), normalising only paths that have `.` or `..` in them.
fn absolute_in(cwd: &Path, p: &Path) -> PathBuf {
    let joined = if p.is_absolute() { p.to_path_buf() } else { cwd.join(p) };
    if joined.components().any(|c| matches!(c, Component::CurDir | Component::ParentDir)) {
        normalize(&joined)
    } else {
        joined
    }
}

fn has_glob_chars(s: &str) -> bool {
    s.contains(['*', '?', '[', '{'])
}

/// Expands command-line paths that do not exist and hold glob characters
/// (`*`, `?`, `[`, `{`) into the files they match, sorted; `**` crosses
/// directories. Other paths are kept as given. A glob matching nothing is an
/// error naming it.
pub fn expand_globs(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        let s = p.to_string_lossy();
        if p.exists() || !has_glob_chars(&s) {
            out.push(p.clone());
            continue;
        }
        let glob = GlobBuilder::new(&s)
            .literal_separator(true)
            .build()
            .map_err(|e| format!("invalid glob {s:?}: {e}"))?
            .compile_matcher();
        // Walk from the longest leading part without glob characters.
        let mut base = PathBuf::new();
        for c in p.components() {
            if has_glob_chars(&c.as_os_str().to_string_lossy()) {
                break;
            }
            base.push(c.as_os_str());
        }
        let start = if base.as_os_str().is_empty() { PathBuf::from(".") } else { base.clone() };
        let mut found = Vec::new();
        let mut stack = vec![start];
        while let Some(dir) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&dir) else { continue };
            for e in rd.flatten() {
                let name = e.file_name();
                if name.to_string_lossy().starts_with('.') {
                    continue;
                }
                let path = if base.as_os_str().is_empty() && dir == Path::new(".") {
                    PathBuf::from(&name)
                } else {
                    dir.join(&name)
                };
                match e.file_type() {
                    Ok(t) if t.is_dir() => stack.push(path),
                    Ok(_) if glob.is_match(&path) => found.push(path),
                    _ => {}
                }
            }
        }
        if found.is_empty() {
            return Err(format!("no file matches {s:?}"));
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

/// Reads stdin into a temporary file for `-`: the input is reported as `-`.
/// The caller removes the file ([`StdinInput`] does on drop).
pub fn stdin_input() -> Result<StdinInput, String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(crate::read::limits::MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read stdin: {e}"))?;
    let path = std::env::temp_dir().join(format!("irlint-stdin-{}", std::process::id()));
    std::fs::write(&path, &bytes).map_err(|e| format!("cannot buffer stdin in {}: {e}", path.display()))?;
    Ok(StdinInput { path })
}

/// Stdin buffered in a temporary file (removed on drop).
#[derive(Debug)]
pub struct StdinInput {
    /// The temporary file.
    pub path: PathBuf,
}

impl StdinInput {
    /// The input, reported as `-`.
    pub fn input(&self) -> Input {
        Input { path: self.path.clone(), display: "-".into(), explicit: true, error: None, config: None }
    }
}

impl Drop for StdinInput {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// `exclude` and `per-file-ignores` of one config, compiled.
struct Compiled {
    root: PathBuf,
    exclude: Patterns,
    ignores: Vec<(Patterns, Vec<String>)>,
}

/// Globs split by whether they hold a `/` (see the module doc).
struct Patterns {
    by_name: GlobSet,
    by_path: GlobSet,
}

impl Patterns {
    fn new<'a>(globs: impl IntoIterator<Item = &'a String>) -> Patterns {
        let mut by_name = GlobSetBuilder::new();
        let mut by_path = GlobSetBuilder::new();
        for g in globs {
            let anchored = g.trim_start_matches("./").trim_start_matches('/');
            if anchored.contains('/') {
                if let Ok(glob) = GlobBuilder::new(anchored).literal_separator(true).build() {
                    by_path.add(glob);
                }
            } else if let Ok(glob) = Glob::new(anchored) {
                by_name.add(glob);
            }
        }
        Patterns {
            by_name: by_name.build().unwrap_or_else(|_| GlobSet::empty()),
            by_path: by_path.build().unwrap_or_else(|_| GlobSet::empty()),
        }
    }

    /// `rel` is the path from the config's directory; its first `skip`
    /// components (the directory named on the command line) are not matched
    /// as directories.
    fn matches(&self, rel: &Path, skip: usize) -> bool {
        if self.by_path.is_match(rel) {
            return true;
        }
        // A directory matched by a glob excludes what is under it.
        let mut prefix = PathBuf::new();
        for (i, c) in rel.components().enumerate() {
            prefix.push(c.as_os_str());
            if i < skip {
                continue;
            }
            if self.by_name.is_match(Path::new(c.as_os_str())) || (prefix != rel && self.by_path.is_match(&prefix)) {
                return true;
            }
        }
        false
    }
}

/// `exclude`, `.gitignore` and `per-file-ignores`, with configs looked up
/// per directory (as the batch does) or from `--config`.
pub struct ProjectFilters {
    explicit: Option<Option<Arc<Compiled>>>,
    gitignore: bool,
    by_dir: HashMap<PathBuf, Option<Arc<Compiled>>>,
    by_config: HashMap<PathBuf, Option<Arc<Compiled>>>,
    git: GitIgnores,
}

fn compile(settings: &Settings, root: PathBuf) -> Option<Arc<Compiled>> {
    if settings.exclude.is_empty() && settings.per_file_ignores.is_empty() {
        return None;
    }
    Some(Arc::new(Compiled {
        root,
        exclude: Patterns::new(&settings.exclude),
        ignores: settings.per_file_ignores.iter().map(|(g, rules)| (Patterns::new([g]), rules.clone())).collect(),
    }))
}

impl ProjectFilters {
    /// Filters from `--config FILE` (its settings already loaded), else from
    /// the `irlint.toml` found above each input; `gitignore`: respect
    /// `.gitignore` files in walks.
    pub fn new(config: Option<(&Path, &Settings)>, gitignore: bool) -> Self {
        let explicit = config.map(|(path, s)| {
            let root = absolute(path).parent().map(Path::to_path_buf).unwrap_or_default();
            compile(s, root)
        });
        ProjectFilters {
            explicit,
            gitignore,
            by_dir: HashMap::new(),
            by_config: HashMap::new(),
            git: GitIgnores::default(),
        }
    }

    /// The filters of the config the walk already found for an input (no
    /// second search of its ancestors: that cost a failing `statx` per level).
    fn compiled_for_config(&mut self, cfg: Option<&Path>) -> Option<Arc<Compiled>> {
        if let Some(c) = &self.explicit {
            return c.clone();
        }
        let cfg = cfg?;
        self.by_config
            .entry(cfg.to_path_buf())
            .or_insert_with(|| {
                let s = config::load(cfg).ok()?;
                compile(&s, cfg.parent().map(Path::to_path_buf).unwrap_or_default())
            })
            .clone()
    }

    fn compiled_for(&mut self, abs: &Path) -> Option<Arc<Compiled>> {
        if let Some(c) = &self.explicit {
            return c.clone();
        }
        let dir = abs.parent().map(Path::to_path_buf).unwrap_or_default();
        if let Some(c) = self.by_dir.get(&dir) {
            return c.clone();
        }
        let found = config::discover(&dir).and_then(|cfg| {
            self.by_config
                .entry(cfg.clone())
                .or_insert_with(|| {
                    // A broken config is reported by the batch; it filters nothing here.
                    let s = config::load(&cfg).ok()?;
                    compile(&s, cfg.parent().map(Path::to_path_buf).unwrap_or_default())
                })
                .clone()
        });
        self.by_dir.insert(dir, found.clone());
        found
    }

    /// Leaves out walked inputs that `.gitignore` or `exclude` name; inputs
    /// named on the command line are kept, and so is what is under a
    /// directory named there (`roots`: the command-line paths) unless a
    /// pattern names something below it — `irlint check build/shaders` walks
    /// `build/shaders` even where `.gitignore` lists `build/`.
    pub fn filter_inputs(&mut self, roots: &[PathBuf], inputs: Vec<Input>) -> Vec<Input> {
        let roots: Vec<PathBuf> = roots.iter().map(|r| absolute(r)).collect();
        let cwd = std::env::current_dir().unwrap_or_default();
        inputs
            .into_iter()
            .filter(|i| {
                if i.explicit || i.error.is_some() {
                    return true;
                }
                let abs = absolute_in(&cwd, &i.path);
                let root = roots.iter().filter(|r| abs.starts_with(r)).max_by_key(|r| r.components().count());
                if self.gitignore && self.git.ignored(&abs, root.map(PathBuf::as_path)) {
                    return false;
                }
                match self.compiled_for_config(i.config.as_deref().map(PathBuf::as_path)) {
                    Some(c) => !abs.strip_prefix(&c.root).is_ok_and(|rel| {
                        let skip =
                            root.and_then(|r| r.strip_prefix(&c.root).ok()).map_or(0, |r| r.components().count());
                        c.exclude.matches(rel, skip)
                    }),
                    None => true,
                }
            })
            .collect()
    }

    /// True when a config that governs one of `inputs` has `[per-file-ignores]`
    /// (they are applied to the finished report).
    pub fn has_per_file_ignores(&mut self, inputs: &[Input]) -> bool {
        inputs.iter().any(|i| {
            self.compiled_for_config(i.config.as_deref().map(PathBuf::as_path)).is_some_and(|c| !c.ignores.is_empty())
        })
    }

    /// Drops the findings `[per-file-ignores]` names for their file.
    pub fn apply_per_file_ignores(&mut self, report: &mut RunReport) {
        let mut memo: HashMap<String, Vec<String>> = HashMap::new();
        let mut diags = std::mem::take(&mut report.diagnostics);
        diags.retain(|d| {
            if is_tool_outcome(&d.rule) || d.location.path == "-" {
                return true;
            }
            let ignored = memo.entry(d.location.path.clone()).or_insert_with(|| {
                let abs = absolute(Path::new(&d.location.path));
                let Some(c) = self.compiled_for(&abs) else { return Vec::new() };
                let Ok(rel) = abs.strip_prefix(&c.root) else { return Vec::new() };
                c.ignores.iter().filter(|(p, _)| p.matches(rel, 0)).flat_map(|(_, r)| r.iter().cloned()).collect()
            });
            !ignored.contains(&d.rule)
        });
        report.diagnostics = diags;
    }
}

/// One `.gitignore` line, compiled.
struct GitPattern {
    matcher: GlobMatcher,
    negated: bool,
    dir_only: bool,
}

/// `.gitignore` files by directory, read once.
#[derive(Default)]
struct GitIgnores {
    files: HashMap<PathBuf, Arc<Vec<GitPattern>>>,
    roots: HashMap<PathBuf, Option<PathBuf>>,
}

fn parse_gitignore(text: &str) -> Vec<GitPattern> {
    let mut out = Vec::new();
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
        // A pattern with a `/` (other than at the end) is anchored to the
        // `.gitignore`'s directory; one without matches at any depth.
        let glob = if line.contains('/') { line.trim_start_matches('/').to_string() } else { format!("**/{line}") };
        if let Ok(g) = GlobBuilder::new(&glob).literal_separator(true).build() {
            out.push(GitPattern { matcher: g.compile_matcher(), negated, dir_only });
        }
    }
    out
}

impl GitIgnores {
    /// The work tree holding `dir` (a directory with `.git`), if any.
    fn root(&mut self, dir: &Path) -> Option<PathBuf> {
        if let Some(r) = self.roots.get(dir) {
            return r.clone();
        }
        let r =
            if dir.join(".git").exists() { Some(dir.to_path_buf()) } else { dir.parent().and_then(|p| self.root(p)) };
        self.roots.insert(dir.to_path_buf(), r.clone());
        r
    }

    fn patterns(&mut self, dir: &Path) -> Arc<Vec<GitPattern>> {
        self.files
            .entry(dir.to_path_buf())
            .or_insert_with(|| {
                let mut p =
                    std::fs::read_to_string(dir.join(".gitignore")).map(|t| parse_gitignore(&t)).unwrap_or_default();
                if dir.join(".git").is_dir() {
                    if let Ok(t) = std::fs::read_to_string(dir.join(".git/info/exclude")) {
                        let mut info = parse_gitignore(&t);
                        info.append(&mut p);
                        p = info;
                    }
                }
                Arc::new(p)
            })
            .clone()
    }

    /// Whether git would ignore the file `abs` (or a directory above it and
    /// below `walk_root`, the directory named on the command line).
    fn ignored(&mut self, abs: &Path, walk_root: Option<&Path>) -> bool {
        let Some(dir) = abs.parent() else { return false };
        let Some(root) = self.root(dir) else { return false };
        let Ok(rel) = abs.strip_prefix(&root) else { return false };
        let named = walk_root.and_then(|w| w.strip_prefix(&root).ok()).map_or(0, |w| w.components().count());
        // Each directory from the walk root down, then the file: an ignored
        // directory cannot have its contents re-included.
        let comps: Vec<_> = rel.components().collect();
        for depth in (named + 1).min(comps.len())..=comps.len() {
            let is_dir = depth < comps.len();
            let target: PathBuf = comps[..depth].iter().collect();
            let mut ignored = false;
            // .gitignore files from the root down to the target's parent; later
            // (deeper) files and later lines win.
            for level in 0..depth {
                let base: PathBuf = comps[..level].iter().collect();
                let pats = self.patterns(&root.join(&base));
                let Ok(sub) = target.strip_prefix(&base) else { continue };
                for p in pats.iter() {
                    if (!p.dir_only || is_dir) && p.matcher.is_match(sub) {
                        ignored = !p.negated;
                    }
                }
            }
            if ignored {
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        let p = Patterns::new(&["third_party".to_string(), "gen/**/*.spv".to_string()]);
        assert!(p.matches(Path::new("a/third_party/x.dxil"), 0));
        assert!(p.matches(Path::new("gen/a/b.spv"), 0));
        assert!(!p.matches(Path::new("src/gen/b.spv"), 0));
        assert!(!p.matches(Path::new("a/b.dxil"), 0));
        // `irlint check a/third_party`: the named directory is walked.
        assert!(!p.matches(Path::new("a/third_party/x.dxil"), 2));
        let p = Patterns::new(&["gen".to_string(), "build/out".to_string()]);
        assert!(p.matches(Path::new("build/out/x.spv"), 0));
    }

    #[test]
    fn gitignore_lines() {
        let pats = parse_gitignore("# c\n*.tmp\n/build/\n!keep.tmp\nsub/x.spv\n");
        let m = |s: &str, dir: bool| {
            let mut ig = false;
            for p in &pats {
                if (!p.dir_only || dir) && p.matcher.is_match(s) {
                    ig = !p.negated;
                }
            }
            ig
        };
        assert!(m("a/b.tmp", false));
        assert!(!m("a/keep.tmp", false));
        assert!(m("build", true));
        assert!(!m("build", false));
        assert!(m("sub/x.spv", false));
        assert!(!m("a/sub/x.spv", false));
    }
}

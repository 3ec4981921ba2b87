//! Project filters applied around a check, outside the walk and the batch:
//!
//! - quoted globs on the command line (`irlint check 'shaders/**/*.spv'`)
//!   expanded into the files they match ([`expand_globs`]);
//! - `-` reading one input from stdin ([`read_stdin`], reported as [`STDIN_LABEL`]);
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
use super::gitignore::GitIgnores;
use crate::config::{self, Settings};
use crate::paths::normalize;
use crate::report::run::{is_tool_outcome, RunReport};
use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
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

/// How stdin (`-`) is named in reports unless `--stdin-filename` names it
/// (`irlint check` and `irlint atoms` alike).
pub const STDIN_LABEL: &str = "<stdin>";

/// Reads stdin (`-`) into memory, up to the input size limit.
pub fn read_stdin() -> Result<Vec<u8>, String> {
    use std::io::Read;
    let limit = crate::read::limits::MAX_FILE_BYTES;
    let mut bytes = Vec::new();
    std::io::stdin().take(limit + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read stdin: {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(format!("stdin is over the {limit}-byte input limit"));
    }
    Ok(bytes)
}

/// `--exclude` / `--extend-exclude`: globs relative to the working
/// directory that leave walked files out, as `exclude` does.
#[derive(Debug, Clone, Default)]
pub struct CliExclude {
    /// The globs.
    pub globs: Vec<String>,
    /// `--exclude` was given: the configs' own `exclude` lists are not used.
    pub replace: bool,
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

impl Patterns {
    /// [`Patterns::matches`] with the directories above `rel` decided once
    /// each (`memo`, keyed by `key`, `skip` and the directory): a file costs
    /// a match of its own name and path, whatever its depth.
    fn matches_memo(
        &self,
        rel: &Path,
        skip: usize,
        key: usize,
        memo: &mut HashMap<(usize, usize, PathBuf), bool>,
    ) -> bool {
        let n = rel.components().count();
        if self.by_path.is_match(rel)
            || (n > skip && rel.file_name().is_some_and(|f| self.by_name.is_match(Path::new(f))))
        {
            return true;
        }
        // Directories above the file, deepest first, until one is known.
        let dirs: Vec<&Path> = rel.ancestors().skip(1).take(n.saturating_sub(1)).collect();
        let mut known = dirs.len();
        let mut excluded = false;
        for (i, d) in dirs.iter().enumerate() {
            if let Some(&e) = memo.get(&(key, skip, d.to_path_buf())) {
                known = i;
                excluded = e;
                break;
            }
        }
        for i in (0..known).rev() {
            let d = dirs[i];
            // `d` has `dirs.len() - i` components.
            let depth = dirs.len() - i;
            excluded = excluded
                || (depth > skip
                    && (d.file_name().is_some_and(|f| self.by_name.is_match(Path::new(f)))
                        || self.by_path.is_match(d)));
            memo.insert((key, skip, d.to_path_buf()), excluded);
        }
        excluded
    }
}

/// `exclude`, `.gitignore` and `per-file-ignores`, with configs looked up
/// per directory (as the batch does) or from `--config`.
pub struct ProjectFilters {
    explicit: Option<Option<Arc<Compiled>>>,
    /// `--exclude`/`--extend-exclude` (rooted at the working directory), and
    /// whether they replace the configs' `exclude`.
    cli_exclude: Option<(Arc<Compiled>, bool)>,
    gitignore: bool,
    by_dir: HashMap<PathBuf, Option<Arc<Compiled>>>,
    /// `(config, skip, directory relative to the config)` → excluded: each
    /// directory is matched once, not once per file under it.
    excluded_dirs: HashMap<(usize, usize, PathBuf), bool>,
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
            cli_exclude: None,
            gitignore,
            by_dir: HashMap::new(),
            excluded_dirs: HashMap::new(),
            by_config: HashMap::new(),
            git: GitIgnores::default(),
        }
    }

    /// Adds `--exclude`/`--extend-exclude` (an invalid glob is an error).
    pub fn set_cli_exclude(&mut self, exclude: &CliExclude) -> Result<(), String> {
        if exclude.globs.is_empty() {
            return Ok(());
        }
        config::check_globs(&exclude.globs, if exclude.replace { "--exclude" } else { "--extend-exclude" })?;
        let root = absolute(Path::new("."));
        let compiled = Compiled { root, exclude: Patterns::new(&exclude.globs), ignores: Vec::new() };
        self.cli_exclude = Some((Arc::new(compiled), exclude.replace));
        Ok(())
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
    ///
    /// An ignore file that cannot be used (unreadable, over
    /// [`MAX_IGNORE_FILE_BYTES`](crate::read::limits::MAX_IGNORE_FILE_BYTES) or
    /// [`MAX_IGNORE_PATTERNS`](crate::read::limits::MAX_IGNORE_PATTERNS)) is an
    /// error naming it: what it would leave out is unknown.
    pub fn filter_inputs(&mut self, roots: &[PathBuf], inputs: Vec<Input>) -> Result<Vec<Input>, String> {
        let roots: Vec<PathBuf> = roots.iter().map(|r| absolute(r)).collect();
        let cwd = std::env::current_dir().unwrap_or_default();
        let cli = self.cli_exclude.clone();
        let kept = inputs
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
                let excluded_by = |c: &Arc<Compiled>, memo: &mut HashMap<(usize, usize, PathBuf), bool>| {
                    abs.strip_prefix(&c.root).is_ok_and(|rel| {
                        let skip =
                            root.and_then(|r| r.strip_prefix(&c.root).ok()).map_or(0, |r| r.components().count());
                        c.exclude.matches_memo(rel, skip, Arc::as_ptr(c) as usize, memo)
                    })
                };
                if let Some((c, replace)) = &cli {
                    if excluded_by(c, &mut self.excluded_dirs) {
                        return false;
                    }
                    if *replace {
                        return true;
                    }
                }
                match self.compiled_for_config(i.config.as_deref().map(PathBuf::as_path)) {
                    Some(c) => !excluded_by(&c, &mut self.excluded_dirs),
                    None => true,
                }
            })
            .collect();
        match self.git.error.take() {
            Some(e) => Err(e),
            None => Ok(kept),
        }
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
            if is_tool_outcome(&d.rule) || d.location.path == STDIN_LABEL {
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
        // The memoised walk agrees with the plain one, file by file.
        let mut memo = HashMap::new();
        for (rel, skip) in [
            ("a/third_party/x.dxil", 0),
            ("a/third_party/y.dxil", 0),
            ("a/third_party/x.dxil", 2),
            ("gen/a/b.spv", 0),
            ("src/gen/b.spv", 0),
            ("a/b.dxil", 0),
            ("third_party", 0),
        ] {
            assert_eq!(
                p.matches_memo(Path::new(rel), skip, 1, &mut memo),
                p.matches(Path::new(rel), skip),
                "{rel} {skip}"
            );
        }
        // `irlint check a/third_party`: the named directory is walked.
        assert!(!p.matches(Path::new("a/third_party/x.dxil"), 2));
        let p = Patterns::new(&["gen".to_string(), "build/out".to_string()]);
        assert!(p.matches(Path::new("build/out/x.spv"), 0));
    }
}

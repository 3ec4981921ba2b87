//! Inline suppressions: `irlint: allow(RULE, …)` in the source a finding
//! points at — `// irlint: allow(RULE)` in HLSL, `# irlint: allow(RULE)` in a
//! Triton kernel — on the flagged line or on the line above it.
//!
//! The source is the text the module embeds (DXIL `dx.source.contents` from
//! the ILDB/SRCI parts, SPIR-V `OpSource`/`DebugSource` as DXC writes them with
//! `-fspv-debug=vulkan-with-source`) or, when the module only names it (PTX
//! `.file`/`.loc`, HLSL compiled without embedded source), the file read from
//! disk — as written, or next to the input.
//!
//! `RULE` is a rule selector ([`crate::selector`]): a rule id, a group (an
//! id prefix such as `coopvec`) or `all`. Only the rules named are hidden. A suppression that hid nothing is reported
//! as an `unused-suppression` note at its line, as clippy does; for a file
//! read from disk this is only known when some finding of the input points
//! into that file, and only for the lines the module has code from (it or the
//! line below has a debug location): a file on disk holds more than one
//! module was compiled from — a Triton `.py` holds many kernels, each its own
//! PTX module, and a suppression in one is no concern of the others.

use crate::report::is_tool_outcome;
use crate::report::{Certainty, Diagnostic, Level, SourceLocation};
use std::collections::{HashMap, HashSet};

/// Reserved id of the note for a suppression that hid nothing.
pub const UNUSED_SUPPRESSION: &str = "unused-suppression";

/// The marker that starts a suppression.
pub const MARKER: &str = "irlint: allow(";

/// The lines each source file has a debug location on (by file name), for
/// the files a module does not embed ([`apply`]).
pub type Covered = HashMap<String, HashSet<u32>>;

/// The lines of each source file that the module's debug locations name.
pub fn covered_lines(m: &crate::ir::Module) -> Covered {
    let mut out = Covered::new();
    for loc in m.locs.values() {
        if let Some(f) = m.source_files.get(loc.file as usize) {
            if f.text.is_none() {
                out.entry(f.name.clone()).or_default().insert(loc.line);
            }
        }
    }
    out
}

/// A source file's text with its line starts indexed once, so that the line
/// of each finding is found without rescanning the file.
#[derive(Debug, Default)]
pub struct SourceLines {
    text: String,
    /// Byte offset of each line's start.
    starts: Vec<usize>,
}

impl SourceLines {
    /// Indexes `text`.
    pub fn new(text: String) -> Self {
        let starts = line_starts(&text);
        SourceLines { text, starts }
    }

    /// The whole text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Line `n` (1-based) without its line ending, as `str::lines` gives it.
    pub fn line(&self, n: u32) -> Option<&str> {
        line_at(&self.text, &self.starts, n)
    }
}

pub use crate::read::lines::{line_at, line_starts};

/// The rule ids a line suppresses (`irlint: allow(a, b)` → `["a", "b"]`),
/// every occurrence of the marker on the line.
pub fn parse_line(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find(MARKER) {
        rest = &rest[i + MARKER.len()..];
        let Some(end) = rest.find(')') else { break };
        out.extend(rest[..end].split(',').map(str::trim).filter(|r| !r.is_empty()));
        rest = &rest[end + 1..];
    }
    out
}

#[derive(Debug)]
struct Suppression {
    /// 1-based line of the comment.
    line: u32,
    /// The selector as written.
    rule: String,
    /// The rule ids it selects (empty: it names no rule).
    ids: Vec<&'static str>,
    text: String,
    used: bool,
}

fn suppressions(text: &str) -> Vec<Suppression> {
    let mut out = Vec::new();
    // Each distinct selector is resolved once (a source may hold many suppressions).
    let mut resolved: HashMap<&str, Vec<&'static str>> = HashMap::new();
    for (i, l) in text.lines().enumerate() {
        if !l.contains(MARKER) {
            continue;
        }
        for rule in parse_line(l) {
            let ids =
                resolved.entry(rule).or_insert_with(|| crate::selector::resolve(rule).unwrap_or_default()).clone();
            out.push(Suppression { line: i as u32 + 1, rule: rule.to_string(), ids, text: l.to_string(), used: false });
        }
    }
    out
}

/// A source named by debug info, read from disk: the file
/// [`crate::paths::find_source`] finds (next to the input, as written, by its
/// file name next to the input) — the same file reports name.
pub fn read_source_near(input: &str, file: &str) -> Option<String> {
    let found = crate::paths::find_source(input, file)?;
    crate::read::file::read_bounded_text_lossy(&found, crate::read::limits::MAX_SOURCE_FILE_BYTES, "source file").ok()
}

/// Applies the suppressions of one module's sources to its diagnostics
/// (which carry their input path): `embedded` are the `(name, text)` pairs
/// the module embeds; files it does not embed are read from disk near
/// `input`. Suppressed findings are removed; unused suppressions are added
/// as notes — in a file read from disk, only those on or just above a line in
/// `covered` (see the module doc).
pub fn apply(
    diags: &mut Vec<Diagnostic>,
    input: &str,
    blob_offset: Option<u64>,
    embedded: &[(String, String)],
    covered: &Covered,
) {
    // Findings name files as reports do (cut at `MAX_REPORT_PATH_BYTES`).
    let embedded: Vec<(String, &String)> = embedded.iter().map(|(n, t)| (crate::report::capped_path(n), t)).collect();
    let embedded_names: HashSet<&str> = embedded.iter().map(|(n, _)| n.as_str()).collect();
    // file → suppressions (only files that have some).
    let mut files: Vec<(String, Vec<Suppression>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (name, text) in &embedded {
        if text.contains(MARKER) && !index.contains_key(name) {
            index.insert(name.clone(), files.len());
            files.push((name.clone(), suppressions(text)));
        }
    }
    let mut tried: HashSet<String> = HashSet::new();
    for d in diags.iter() {
        let Some(src) = &d.location.source else { continue };
        if is_tool_outcome(&d.rule) || embedded_names.contains(src.file.as_str()) || !tried.insert(src.file.clone()) {
            continue;
        }
        if let Some(text) = read_source_near(input, &src.file).filter(|t| t.contains(MARKER)) {
            index.insert(src.file.clone(), files.len());
            files.push((src.file.clone(), suppressions(&text)));
        }
    }
    if files.is_empty() {
        return;
    }
    // (file, rule, line) → the suppressions there, so that each finding
    // looks up its two lines instead of scanning every suppression.
    let mut by_line: HashMap<(usize, &str, u32), Vec<usize>> = HashMap::new();
    for (fi, (_, sups)) in files.iter().enumerate() {
        for (si, s) in sups.iter().enumerate() {
            for id in &s.ids {
                by_line.entry((fi, id, s.line)).or_default().push(si);
            }
        }
    }
    let mut used: HashSet<(usize, usize)> = HashSet::new();
    diags.retain(|d| {
        let Some(src) = &d.location.source else { return true };
        let Some(&i) = index.get(&src.file) else { return true };
        if is_tool_outcome(&d.rule) {
            return true;
        }
        let mut hidden = false;
        for line in [Some(src.line), src.line.checked_sub(1)].into_iter().flatten() {
            if let Some(sups) = by_line.get(&(i, d.rule.as_str(), line)) {
                used.extend(sups.iter().map(|&s| (i, s)));
                hidden = true;
            }
        }
        !hidden
    });
    drop(by_line);
    for (fi, si) in used {
        if let Some(s) = files.get_mut(fi).and_then(|f| f.1.get_mut(si)) {
            s.used = true;
        }
    }
    // The "did you mean" of each distinct unknown name, worked out once.
    let mut unknown: HashMap<String, String> = HashMap::new();
    for (file, sups) in files {
        let on_disk = !embedded_names.contains(file.as_str());
        let lines = covered.get(&file);
        let in_module = |line: u32| lines.is_some_and(|l| l.contains(&line) || l.contains(&(line + 1)));
        for s in sups.into_iter().filter(|s| !s.used && (!on_disk || in_module(s.line))) {
            let why = match s.ids.len() {
                0 => {
                    let why = unknown.entry(s.rule.clone()).or_insert_with(|| crate::selector::unknown(&s.rule));
                    format!("unused suppression: {why}")
                }
                1 if s.ids[0] == s.rule => {
                    format!("unused suppression: no `{}` finding on this line or the next", s.rule)
                }
                n => format!("unused suppression: no finding of `{}` ({n} rules) on this line or the next", s.rule),
            };
            let mut d = Diagnostic::new(UNUSED_SUPPRESSION, Level::Note, Certainty::Proven, why);
            d.location.path = input.to_string();
            d.location.blob_offset = blob_offset;
            let column = s.text.find("irlint:").map_or(0, |i| s.text[..i].chars().count() as u32 + 1);
            d.location.source = Some(SourceLocation { file: file.clone(), line: s.line, column });
            d.location.source_text = Some(s.text);
            diags.push(d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_index_matches_str_lines() {
        for text in ["", "a", "a\n", "a\nb", "a\r\nb\r\n", "\n\nx\n", "é\nü\r\n\n", "a\r", "a\rb\n"] {
            let s = SourceLines::new(text.to_string());
            let want: Vec<&str> = text.lines().collect();
            let got: Vec<&str> = (1..=want.len() as u32 + 1).map_while(|n| s.line(n)).collect();
            assert_eq!(got, want, "{text:?}");
            assert_eq!(s.line(0), None);
        }
    }

    #[test]
    fn parses() {
        assert_eq!(parse_line("x; // irlint: allow(a, b-c)"), ["a", "b-c"]);
        assert_eq!(parse_line("# irlint: allow(a) irlint: allow(b)"), ["a", "b"]);
        assert!(parse_line("// irlint: allow(").is_empty());
        assert!(parse_line("// irlint allow(a)").is_empty());
    }

    fn finding(rule: &str, line: u32) -> Diagnostic {
        let mut d = Diagnostic::new(rule, Level::Warning, Certainty::Proven, "m");
        d.location.path = "x.spv".into();
        d.location.source = Some(SourceLocation { file: "a.hlsl".into(), line, column: 1 });
        d
    }

    #[test]
    fn same_line_or_line_above_and_only_that_rule() {
        let src = "// irlint: allow(coopvec-stride-mismatch)\nA;\nB; // irlint: allow(wgmma-smem-descriptor)\nC; // irlint: allow(coopvec-stride-mismatch)\n".to_string();
        let embedded = [("a.hlsl".to_string(), src)];
        let mut d = vec![
            finding("coopvec-stride-mismatch", 2),
            finding("wgmma-smem-descriptor", 2),
            finding("wgmma-smem-descriptor", 3),
        ];
        apply(&mut d, "x.spv", None, &embedded, &Covered::new());
        let left: Vec<(&str, u32)> =
            d.iter().map(|d| (d.rule.as_str(), d.location.source.as_ref().unwrap().line)).collect();
        // coopvec-stride-mismatch on line 2 hidden by line 1, wgmma-smem-descriptor on line 2 kept, wgmma-smem-descriptor on line 3 hidden; line 4 unused.
        assert_eq!(left, [("wgmma-smem-descriptor", 2), (UNUSED_SUPPRESSION, 4)]);
        assert_eq!(d[1].level, Level::Note);
    }

    #[test]
    fn groups_and_misspelt_ids() {
        let src =
            "// irlint: allow(coopvec)\nA;\nB; // irlint: allow(all)\n// irlint: allow(coopvec-stride-mismatchh)\nC;\n"
                .to_string();
        let embedded = [("a.hlsl".to_string(), src)];
        let mut d = vec![
            finding("coopvec-stride-mismatch", 2),
            finding("wgmma-smem-descriptor", 2),
            finding("wgmma-smem-descriptor", 3),
            finding("coopvec-stride-mismatch", 5),
        ];
        apply(&mut d, "x.spv", None, &embedded, &Covered::new());
        let left: Vec<(&str, u32, &str)> =
            d.iter().map(|d| (d.rule.as_str(), d.location.source.as_ref().unwrap().line, d.message.as_str())).collect();
        assert_eq!(
            left,
            [
                ("wgmma-smem-descriptor", 2, "m"),
                ("coopvec-stride-mismatch", 5, "m"),
                (
                    UNUSED_SUPPRESSION,
                    4,
                    "unused suppression: unknown rule `coopvec-stride-mismatchh`; did you mean `coopvec-stride-mismatch`?"
                ),
            ]
        );
    }

    #[test]
    fn unused_on_disk_only_where_the_module_has_code() {
        // One Triton file, two kernels: this module is the first (lines 3-4).
        let dir = std::env::temp_dir().join(format!("irlint-suppress-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let py = dir.join("k.py");
        let text = "def a():\n    # irlint: allow(coopvec-stride-mismatch)\n    x = 1\n    y = 2  # irlint: allow(wgmma-smem-descriptor)\ndef b():\n    z = 3  # irlint: allow(coopvec-stride-mismatch)\n";
        std::fs::write(&py, text).unwrap();
        let name = py.to_string_lossy().into_owned();
        let mut d = vec![finding("coopvec-stride-mismatch", 3)];
        d[0].location.source.as_mut().unwrap().file = name.clone();
        let covered = Covered::from([(name.clone(), HashSet::from([3, 4]))]);
        apply(&mut d, "k.ptx", None, &[], &covered);
        std::fs::remove_dir_all(&dir).unwrap();
        let left: Vec<(&str, u32)> =
            d.iter().map(|d| (d.rule.as_str(), d.location.source.as_ref().unwrap().line)).collect();
        // coopvec-stride-mismatch on line 3 hidden by line 2; wgmma-smem-descriptor on line 4 unused; line 6 is the other kernel's.
        assert_eq!(left, [(UNUSED_SUPPRESSION, 4)]);
    }
}

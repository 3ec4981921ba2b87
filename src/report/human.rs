//! rustc/clippy-style text: `error[rule]: message`, a `-->` location, the
//! source line as an annotated snippet when the module embeds its source, the
//! IR line, notes, help, and a summary line.

use super::run::{plural, RunReport};
use super::{Diagnostic, Level, Location};
use annotate_snippets::{AnnotationKind, Group, Level as ALevel, Renderer, Snippet};
use std::ops::Range;

/// Options of the human renderer.
#[derive(Debug, Clone, Copy, Default)]
pub struct HumanOptions {
    /// ANSI styling (only when stdout is a terminal).
    pub color: bool,
    /// Append the `--stats` section.
    pub stats: bool,
}

/// `path`, `path:12`, `path:599:20`, `path@0x1A0`, `path@0x1A0 [.shaders]`,
/// `cache.foz@005b1d4800c0ffee [SPIR-V module (compute main)]` (an entry with a name).
pub fn input_location(loc: &Location) -> String {
    let mut s = loc.path.clone();
    if let Some(line) = loc.line {
        s.push_str(&format!(":{line}"));
        if let Some(col) = loc.column {
            s.push_str(&format!(":{col}"));
        }
    }
    if let Some(name) = &loc.entry {
        s.push_str(&format!("@{name}"));
    } else if let Some(off) = loc.blob_offset {
        s.push_str(&format!("@0x{off:X}"));
    }
    if let Some(sec) = &loc.section {
        s.push_str(&format!(" [{sec}]"));
    }
    s
}

/// `(function main, instruction 12 %5 at byte 0x1A4)`, `(function main)` or
/// empty. The value name is the disassembler's (`dxc -dumpbin`, `spirv-dis`),
/// the byte offset where the instruction's record or first word is (PTX lines
/// are shown on the path instead).
pub fn code_location(loc: &Location) -> String {
    let mut inst = loc.instruction.map(|i| format!("instruction {i}"));
    if let Some(i) = &mut inst {
        if let Some(v) = &loc.value {
            i.push_str(&format!(" {v}"));
        }
        if let (Some(off), None) = (loc.byte_offset, loc.line) {
            i.push_str(&format!(" at byte 0x{off:X}"));
        }
    }
    // `irlint atoms` places a finding at a record (`record 1 (id "k1")`), not a function.
    let scope = |f: &str| if f.starts_with("record ") { f.to_string() } else { format!("function {f}") };
    match (&loc.function, inst) {
        (Some(f), Some(i)) => format!("({}, {i})", scope(f)),
        (Some(f), None) => format!("({})", scope(f)),
        (None, Some(i)) => format!("({i})"),
        (None, None) => String::new(),
    }
}

/// The bytecode location: input path (+ blob offset) and function/instruction.
pub fn bytecode_location(loc: &Location) -> String {
    let code = code_location(loc);
    if code.is_empty() {
        input_location(loc)
    } else {
        format!("{} {}", input_location(loc), code)
    }
}

/// With a source position shown, the bytecode location is worth a note unless
/// it only repeats the same file (HLSL compile errors).
pub fn needs_bytecode_note(loc: &Location) -> bool {
    match &loc.source {
        None => false,
        Some(src) => {
            src.file != loc.path || loc.blob_offset.is_some() || loc.function.is_some() || loc.instruction.is_some()
        }
    }
}

fn level(l: Level) -> ALevel<'static> {
    match l {
        Level::Error => ALevel::ERROR,
        Level::Warning => ALevel::WARNING,
        Level::Note => ALevel::NOTE,
    }
}

/// The comment syntax of a source file, by its extension: `#` for Python
/// (Triton kernels, whose PTX `.loc` lines point into `.py` files), `//`
/// otherwise (HLSL, CUDA C++, Slang, GLSL).
fn hash_comments(file: &str) -> bool {
    let ext = std::path::Path::new(file).extension().and_then(|e| e.to_str()).unwrap_or("");
    ["py", "pyi"].iter().any(|x| x.eq_ignore_ascii_case(ext))
}

/// Where the statement in `rest` ends: the first `;` or comment start (`#`
/// with `hash`, else `//`) outside a string or character literal.
fn statement_end(rest: &str, hash: bool) -> Option<usize> {
    let b = rest.as_bytes();
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(_) if c == b'\\' => i += 1,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                b'"' | b'\'' => quote = Some(c),
                b';' => return Some(i),
                b'#' if hash => return Some(i),
                b'/' if !hash && b.get(i + 1) == Some(&b'/') => return Some(i),
                _ => {}
            },
        }
        i += 1;
    }
    None
}

/// Byte range of the highlighted part of a source line: from the (1-based,
/// character) column — or the first non-blank character when the column is
/// unknown — to the end of the statement (the next `;` or the start of a
/// comment, outside string literals, else the end of the line), trailing
/// blanks excluded. `hash` selects `#` comments (Python) over `//`.
fn highlight(text: &str, column: u32, hash: bool) -> Range<usize> {
    let first = text.len() - text.trim_start().len();
    let line_end = text.trim_end().len();
    let start = if column > 0 {
        text.char_indices().nth(column as usize - 1).map(|(i, _)| i).unwrap_or(line_end)
    } else {
        first
    };
    // Column past the text: point at the whole line.
    let start = if start >= line_end { first.min(line_end) } else { start };
    let rest = &text[start..];
    let cut = statement_end(rest, hash).map(|i| start + i).unwrap_or(line_end);
    let end = start + text[start..cut.max(start)].trim_end().len();
    if end > start {
        start..end
    } else {
        start..line_end.max(start)
    }
}

/// ANSI styles of the hand-drawn parts (the same colours annotate-snippets uses).
struct Paint {
    on: bool,
}

impl Paint {
    fn wrap(&self, code: &str, text: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
    fn level(&self, l: Level, text: &str) -> String {
        let code = match l {
            Level::Error => "1;91",
            Level::Warning => "1;93",
            Level::Note => "1;92",
        };
        self.wrap(code, text)
    }
    fn bold(&self, text: &str) -> String {
        self.wrap("1", text)
    }
    fn blue(&self, text: &str) -> String {
        self.wrap("1;94", text)
    }
}

/// The footer lines (`= note: ...`, `= ir: ...`, `= help: ...`) as (label, text).
fn footer(d: &Diagnostic) -> Vec<(&'static str, String)> {
    let loc = &d.location;
    let mut out = Vec::new();
    if needs_bytecode_note(loc) {
        out.push(("note", format!("in {}", bytecode_location(loc))));
    }
    if let Some(ir) = &loc.ir {
        out.push(("ir", ir.clone()));
    }
    if let Some(res) = &loc.resource {
        out.push(("note", format!("resource {res}")));
    }
    for f in &loc.inlined_from {
        let pos =
            if f.column > 0 { format!("{}:{}:{}", f.file, f.line, f.column) } else { format!("{}:{}", f.file, f.line) };
        out.push(("note", format!("inlined from {pos}")));
    }
    for n in &d.notes {
        out.push(("note", n.clone()));
    }
    if let Some(h) = &d.help {
        out.push(("help", h.clone()));
    }
    out
}

/// The diagnostic with its source files as the text formats print them
/// ([`crate::paths::shown`]: absolute paths under the working directory made
/// relative), copied only when one changes.
pub(crate) fn shown_sources(d: &Diagnostic) -> std::borrow::Cow<'_, Diagnostic> {
    let l = &d.location;
    let changes = |f: &str| matches!(crate::paths::shown(f), std::borrow::Cow::Owned(_));
    if !l.source.iter().chain(&l.inlined_from).any(|s| changes(&s.file)) {
        return std::borrow::Cow::Borrowed(d);
    }
    let mut d = d.clone();
    let l = &mut d.location;
    for s in l.source.iter_mut().chain(l.inlined_from.iter_mut()) {
        s.file = crate::paths::shown(&s.file).into_owned();
    }
    std::borrow::Cow::Owned(d)
}

/// Renders one diagnostic (no trailing newline). With the source line at hand
/// the snippet is drawn by annotate-snippets; otherwise the same layout is
/// written directly (`  --> location` and `   = label: text` lines).
pub fn render_diagnostic(d: &Diagnostic, color: bool) -> String {
    let d = &*super::escape::diagnostic(d);
    let d = &*shown_sources(d);
    let loc = &d.location;
    let source_text = loc.source_text.as_deref().map(|t| t.trim_end_matches(['\n', '\r']));
    if let (Some(src), Some(text)) = (&loc.source, source_text) {
        if !text.trim().is_empty() {
            let span = highlight(text, src.column, hash_comments(&src.file));
            let mut group: Group<'_> = level(d.level).primary_title(d.message.as_str()).id(d.rule.as_str()).element(
                Snippet::source(text)
                    .line_start(src.line.max(1) as usize)
                    .path(src.file.as_str())
                    .annotation(AnnotationKind::Primary.span(span)),
            );
            for (label, text) in footer(d) {
                let l = match label {
                    "help" => ALevel::HELP,
                    "note" => ALevel::NOTE,
                    other => ALevel::NOTE.with_name(other),
                };
                group = group.element(l.message(text));
            }
            let renderer = if color { Renderer::styled() } else { Renderer::plain() };
            return renderer.render(&[group]);
        }
    }
    let p = Paint { on: color };
    let mut out = format!(
        "{}{}",
        p.level(d.level, &format!("{}[{}]", d.level.as_str(), d.rule)),
        p.bold(&format!(": {}", d.message))
    );
    let place = match &loc.source {
        Some(src) if src.column > 0 => format!("{}:{}:{}", src.file, src.line, src.column),
        Some(src) => format!("{}:{}", src.file, src.line),
        // An input error in binary data: where the reader stopped.
        None if d.rule == super::INPUT_ERROR && loc.line.is_none() && loc.instruction.is_none() => {
            match loc.byte_offset {
                Some(off) => format!("{} (at byte 0x{off:X})", input_location(loc)),
                None => bytecode_location(loc),
            }
        }
        None => bytecode_location(loc),
    };
    out.push_str(&format!("\n  {} {place}", p.blue("-->")));
    for (label, text) in footer(d) {
        // Continuation lines (DXC's output, multi-line notes) align under the text.
        let indent = format!("\n{}", " ".repeat(5 + label.len() + 2));
        let text = text.trim_end().replace('\n', &indent);
        out.push_str(&format!("\n   {} {}: {text}", p.blue("="), p.bold(label)));
    }
    out
}

/// The summary line: `0 errors, 2 warnings, 1 input error in 3 files (1 skipped)`.
/// Input errors are counted apart from findings.
pub fn summary(report: &RunReport) -> String {
    let c = report.counts();
    let mut s = format!("{}, {}", plural(c.errors, "error"), plural(c.warnings, "warning"));
    if c.notes > 0 {
        s.push_str(&format!(", {}", plural(c.notes, "note")));
    }
    if c.input_errors > 0 {
        s.push_str(&format!(", {}", plural(c.input_errors, "input error")));
    }
    s.push_str(&format!(" in {}", plural(report.stats.files as usize, "file")));
    let skipped = report.skipped().count();
    if skipped > 0 {
        s.push_str(&format!(" ({skipped} skipped)"));
    }
    s
}

/// Skipped inputs with their reasons: one line each up to [`MAX_SKIP_LINES`],
/// then one line per reason with its count. Empty when nothing was skipped.
pub fn skipped_lines(report: &RunReport) -> String {
    let skipped: Vec<_> = report.skipped().collect();
    if skipped.is_empty() {
        return String::new();
    }
    let reason = |f: &&super::files::FileReport| {
        f.message.as_deref().map_or_else(|| "skipped".into(), |m| super::escape::clean(m, false).into_owned())
    };
    let mut out = String::from("skipped:\n");
    if skipped.len() <= MAX_SKIP_LINES {
        for f in &skipped {
            let mut loc = super::escape::clean(&f.path, false).into_owned();
            if let Some(name) = &f.entry {
                loc.push_str(&format!("@{}", super::escape::clean(name, false)));
            } else if let Some(off) = f.blob_offset {
                loc.push_str(&format!("@0x{off:X}"));
            }
            out.push_str(&format!("  {loc}: {}\n", reason(f)));
        }
    } else {
        let mut by_reason: std::collections::BTreeMap<String, usize> = Default::default();
        for f in &skipped {
            *by_reason.entry(reason(f)).or_default() += 1;
        }
        for (r, n) in by_reason {
            out.push_str(&format!("  {}: {r}\n", plural(n, "file")));
        }
    }
    out
}

/// Skipped inputs listed one by one up to this many.
pub const MAX_SKIP_LINES: usize = 20;

/// Renders the whole report. Every diagnostic, input errors included, is
/// printed once; the summary counts input errors apart from findings.
pub fn render(report: &RunReport, opts: &HumanOptions) -> String {
    let mut out = String::new();
    for d in &report.diagnostics {
        out.push_str(&render_diagnostic(d, opts.color));
        out.push_str("\n\n");
    }
    out.push_str(&summary(report));
    out.push('\n');
    out.push_str(&skipped_lines(report));
    if opts.stats {
        out.push('\n');
        out.push_str(&report.stats.render_text());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn highlight_columns() {
        assert_eq!(highlight("    x = f(a);  ", 5, false), 4..12);
        assert_eq!(highlight("    x = f(a);", 0, false), 4..12);
        assert_eq!(highlight("    x = f(a); // note", 9, false), 8..12);
        assert_eq!(highlight("    x = f(a) // no semicolon", 9, false), 8..12);
        assert_eq!(highlight("  return;", 3, false), 2..8);
        assert_eq!(highlight(";", 1, false), 0..1);
        assert_eq!(highlight("ab", 9, false), 0..2);
        // Multi-byte characters: column counts characters.
        assert_eq!(highlight("é = g();", 5, false), 5..8);
    }

    #[test]
    fn highlight_stops_at_comments_not_in_strings() {
        // Python (Triton): a `#` comment ends the statement, a `#` in a string does not.
        let py = "        acc += tl.dot(x, y)  # tensor cores";
        assert_eq!(&py[highlight(py, 16, true)], "tl.dot(x, y)");
        let s = "    p = tl.load(ptr, other='#')  # pad";
        assert_eq!(&s[highlight(s, 9, true)], "tl.load(ptr, other='#')");
        // C-like: `//` inside a string literal is not a comment; `#` is not one.
        let c = r#"    printf("a//b; %d", x); // log"#;
        assert_eq!(&c[highlight(c, 5, false)], r#"printf("a//b; %d", x)"#);
        let e = r#"    s = "say \"hi\"; ok"; // x"#;
        assert_eq!(&e[highlight(e, 5, false)], r#"s = "say \"hi\"; ok""#);
        assert!(hash_comments("supp/k.py") && hash_comments("K.PY") && !hash_comments("a.hlsl"));
    }

    #[test]
    fn locations() {
        let mut l = Location { path: "a.bin".into(), ..Default::default() };
        assert_eq!(bytecode_location(&l), "a.bin");
        l.blob_offset = Some(0x1a0);
        l.function = Some("main".into());
        l.instruction = Some(12);
        assert_eq!(bytecode_location(&l), "a.bin@0x1A0 (function main, instruction 12)");
        l.section = Some(".shaders".into());
        l.instruction = None;
        assert_eq!(bytecode_location(&l), "a.bin@0x1A0 [.shaders] (function main)");
    }
}

//! GitHub Actions workflow commands, one per diagnostic:
//! `::error file=PATH,line=N,col=C,title=RULE::message`.
//!
//! `file` is the source file when debug info names one, else the input path;
//! `line`/`col` only when known. Levels map to `error`, `warning`, `notice`.
//! Escaping follows `@actions/core`: `%`, `\r`, `\n` in the message, and also
//! `:` and `,` in property values.

use super::human::bytecode_location;
use super::run::RunReport;
use super::{Diagnostic, Level};

/// Escapes a message (the data after `::`).
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escapes a property value (`file=`, `title=`).
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

fn command(level: Level) -> &'static str {
    match level {
        Level::Error => "error",
        Level::Warning => "warning",
        Level::Note => "notice",
    }
}

/// One workflow command line (no trailing newline).
pub fn render_diagnostic(d: &Diagnostic) -> String {
    let d = &*super::escape::diagnostic(d);
    let d = &*super::human::shown_sources(d);
    let loc = &d.location;
    let mut props = Vec::new();
    match &loc.source {
        Some(src) => {
            props.push(format!("file={}", escape_property(&src.file)));
            if src.line > 0 {
                props.push(format!("line={}", src.line));
                if src.column > 0 {
                    props.push(format!("col={}", src.column));
                }
            }
        }
        None => {
            props.push(format!("file={}", escape_property(&loc.path)));
            if let Some(line) = loc.line {
                props.push(format!("line={line}"));
                if let Some(col) = loc.column {
                    props.push(format!("col={col}"));
                }
            }
        }
    }
    props.push(format!("title={}", escape_property(&d.rule)));
    let mut message = d.message.clone();
    // Where in the bytecode, unless `file=` already says everything.
    let code = loc.blob_offset.is_some() || loc.function.is_some() || loc.instruction.is_some();
    if super::human::needs_bytecode_note(loc) || (loc.source.is_none() && code) {
        message.push_str(&format!("\nin {}", bytecode_location(loc)));
    }
    if let Some(ir) = &loc.ir {
        message.push_str(&format!("\nir: {ir}"));
    }
    if let Some(res) = &loc.resource {
        message.push_str(&format!("\nresource: {res}"));
    }
    for n in &d.notes {
        message.push_str(&format!("\nnote: {n}"));
    }
    if let Some(h) = &d.help {
        message.push_str(&format!("\nhelp: {h}"));
    }
    format!("::{} {}::{}", command(d.level), props.join(","), escape_data(&message))
}

/// All diagnostics, one line each.
pub fn render(report: &RunReport) -> String {
    let mut out = String::new();
    for d in &report.diagnostics {
        out.push_str(&render_diagnostic(d));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(escape_data("50% a\r\nb"), "50%25 a%0D%0Ab");
        assert_eq!(escape_property("C:\\a,b%"), "C%3A\\a%2Cb%25");
    }
}

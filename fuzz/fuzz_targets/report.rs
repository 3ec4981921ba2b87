//! Text reports of input-derived strings: arbitrary bytes are split into the
//! strings a diagnostic takes from an input (function, source file, source
//! line, path, resource, message, note) and rendered as human and GitHub
//! output. No raw control character (C0 other than tab and newline, DEL,
//! C1) may reach the output, and names stay within their report limits.
#![no_main]

use irlint::report::{Certainty, Diagnostic, Level, SourceLocation};
use libfuzzer_sys::fuzz_target;

fn raw_control(s: &str) -> Option<char> {
    s.chars().find(|&c| c.is_control() && c != '\n' && c != '\t')
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.split('\u{0}').map(str::to_string);
    let mut next = || parts.next().unwrap_or_default();
    let mut d = Diagnostic::new("ptx-shared-address-misaligned", Level::Error, Certainty::Proven, next());
    d.location.path = next();
    d.location.function = Some(next());
    d.location.value = Some(next());
    d.location.ir = Some(next());
    let (file, line) = (next(), data.first().copied().unwrap_or(1) as u32);
    d.location.source = Some(SourceLocation { file, line, column: data.get(1).copied().unwrap_or(0) as u32 });
    d.location.source_text = Some(next());
    d.location.section = Some(next());
    d.notes.push(next());
    d.help = Some(next());
    d.location.inlined_from.push(SourceLocation { file: next(), line: 2, column: 0 });
    d.cap_strings();
    assert!(d.location.function.as_ref().is_some_and(|f| f.len() <= irlint::read::limits::MAX_REPORT_NAME_BYTES));
    for color in [false, true] {
        let human = irlint::report::human::render_diagnostic(&d, color);
        // With colour, irlint's own SGR sequences (ESC [ ... m) are the only escapes.
        let checked = if color { strip_sgr(&human) } else { human.clone() };
        assert_eq!(raw_control(&checked), None, "human (color {color}): {human:?}");
    }
    let gh = irlint::report::github::render_diagnostic(&d);
    assert_eq!(raw_control(&gh), None, "github: {gh:?}");
});

/// Removes `ESC [ digits;digits m` sequences.
fn strip_sgr(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\u{1b}' && it.peek() == Some(&'[') {
            it.next();
            let mut ok = false;
            while let Some(&n) = it.peek() {
                it.next();
                if n == 'm' {
                    ok = true;
                    break;
                }
                if !(n.is_ascii_digit() || n == ';') {
                    break;
                }
            }
            if ok {
                continue;
            }
            out.push('\u{1b}');
            continue;
        }
        out.push(c);
    }
    out
}

//! Terminal-safe text for the human and GitHub emitters.
//!
//! Every string a report takes from an input — function, resource and source
//! file names, source lines, paths, messages that quote them — may hold
//! control characters: an ESC or OSC sequence in a PTX `.file` name would
//! clear the screen, retitle the terminal or hide the rest of the report, even
//! with `--color never`. Before a diagnostic is rendered as text, each C0
//! control character (other than tab, and newline where a text may span
//! lines), DEL and each C1 control character is written as a visible escape:
//! `\x1B`, `\x7F`, `\u{9B}`. JSON and SARIF escape control characters by their
//! own format rules (serde_json writes `\u001b`).

use super::Diagnostic;
use std::borrow::Cow;

/// Whether `c` is written escaped (`newlines`: keep `\n` as it is).
fn is_unsafe(c: char, newlines: bool) -> bool {
    match c {
        '\t' => false,
        '\n' => !newlines,
        c => c.is_control(),
    }
}

/// `s` with its control characters escaped (see the module doc); borrowed
/// when there is none. `newlines` keeps `\n` for texts that span lines.
pub fn clean(s: &str, newlines: bool) -> Cow<'_, str> {
    if !s.chars().any(|c| is_unsafe(c, newlines)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if !is_unsafe(c, newlines) {
            out.push(c);
        } else if (c as u32) < 0x80 {
            out.push_str(&format!("\\x{:02X}", c as u32));
        } else {
            out.push_str(&format!("\\u{{{:X}}}", c as u32));
        }
    }
    Cow::Owned(out)
}

fn fix(s: &mut String, newlines: bool) {
    if let Cow::Owned(o) = clean(s, newlines) {
        *s = o;
    }
}

fn needs(s: &str, newlines: bool) -> bool {
    s.chars().any(|c| is_unsafe(c, newlines))
}

/// The diagnostic with every text escaped (see the module doc); borrowed when
/// nothing needs escaping, which is the common case.
pub fn diagnostic(d: &Diagnostic) -> Cow<'_, Diagnostic> {
    let l = &d.location;
    let names = [Some(&d.rule), Some(&l.path), l.section.as_ref(), l.function.as_ref(), l.value.as_ref()];
    let dirty = names.into_iter().flatten().any(|s| needs(s, false))
        || [Some(&d.message), d.help.as_ref(), l.ir.as_ref(), l.source_text.as_ref()]
            .into_iter()
            .flatten()
            .chain(&d.notes)
            .any(|s| needs(s, true))
        || l.source.iter().chain(&l.inlined_from).any(|s| needs(&s.file, false))
        || l.resource.as_ref().is_some_and(|r| needs(&r.label, false));
    if !dirty {
        return Cow::Borrowed(d);
    }
    let mut d = d.clone();
    for s in [&mut d.message].into_iter().chain(d.help.as_mut()).chain(d.notes.iter_mut()) {
        fix(s, true);
    }
    fix(&mut d.rule, false);
    let l = &mut d.location;
    fix(&mut l.path, false);
    for s in [&mut l.section, &mut l.function, &mut l.value].into_iter().flatten() {
        fix(s, false);
    }
    for s in [&mut l.ir, &mut l.source_text].into_iter().flatten() {
        fix(s, true);
    }
    for src in l.source.iter_mut().chain(l.inlined_from.iter_mut()) {
        fix(&mut src.file, false);
    }
    if let Some(r) = &mut l.resource {
        fix(&mut r.label, false);
    }
    Cow::Owned(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_c0_c1_and_del_only() {
        assert_eq!(clean("a\x1b]0;t\x07b", false), "a\\x1B]0;t\\x07b");
        assert_eq!(clean("x\u{9b}2J\x7f", false), "x\\u{9B}2J\\x7F");
        assert_eq!(clean("a\r\nb\tc", true), "a\\x0D\nb\tc");
        assert_eq!(clean("a\nb", false), "a\\x0Ab");
        assert!(matches!(clean("plain é ✓", false), Cow::Borrowed(_)));
    }
}

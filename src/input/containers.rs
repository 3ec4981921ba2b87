//! Shaders inside containers that hold them encoded: PTX in CUDA fatbins
//! ([`crate::read::fatbin`]) and SPIR-V in Fossilize databases
//! ([`super::fossilize`]).
//!
//! The batch driver calls [`check()`] on every binary it scans for embedded
//! shaders. Each PTX entry of a fatbin and each SPIR-V module of a Fossilize
//! database is checked as its own input — a fatbin entry as `FILE@OFFSET`, a
//! Fossilize module as `FILE@HASH` (its 16-hex-digit hash, in
//! [`Location::entry`](crate::report::Location::entry); the offset is kept in
//! `blob_offset`) — with a section label naming the entry (`.nv_fatbin: PTX
//! compute_80, zstd`, `SPIR-V module (compute main)`), so every finding says
//! which container and which entry it came from. SASS, LTO-IR and other entries are listed as
//! skipped with their architecture; a damaged container or entry is an input
//! error naming it, and the other entries are still checked.
//!
//! Entries are decoded one at a time and dropped after checking, so memory
//! stays bounded by the largest entry (or concatenated group), not the file.
//! The decompressed bytes of one file are limited to
//! [`limits::DECOMPRESSED_PER_FILE_BYTE`] per byte of the file plus
//! [`limits::MAX_DECOMPRESSED_BYTES`]; past it the remaining entries are
//! skipped with an `analysis-budget-exceeded` note.

use super::batch::Outcome;
use super::embedded;
use super::fossilize;
use crate::check::{self, CheckOptions, FileReport, FileStatus, InputKind};
use crate::read::decompress::{self, Codec};
use crate::read::fatbin::{self, EntryKind, GroupCache};
use crate::read::{limits, ReadError};
use crate::report::{Certainty, Diagnostic, Level, BUDGET_EXCEEDED, INPUT_ERROR};
use std::ops::Range;

/// What [`check()`] found in one file.
#[derive(Debug, Default)]
pub struct Found {
    /// One entry per container entry (checked, skipped or in error).
    pub files: Vec<FileReport>,
    /// Their findings and input errors.
    pub diagnostics: Vec<Diagnostic>,
    /// Entries checked as shaders.
    pub checked: usize,
    /// Entries listed as skipped.
    pub skipped: usize,
    /// `fatbin` and/or `Fossilize`.
    what: Vec<&'static str>,
}

impl Found {
    /// True when the file holds no fatbin or Fossilize data.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.diagnostics.is_empty()
    }

    /// `3 fatbin entries (2 checked, 1 skipped)`, for the file's entry.
    pub fn summary(&self) -> String {
        let n = self.files.len();
        format!(
            "{n} {} entr{} ({} checked, {} skipped)",
            self.what.join(" and "),
            if n == 1 { "y" } else { "ies" },
            self.checked,
            self.skipped
        )
    }

    /// Moves everything into the batch outcome.
    pub(super) fn into_outcome(self, out: &mut Outcome) {
        out.files.extend(self.files);
        out.diagnostics.extend(self.diagnostics);
    }

    fn entry(&mut self, path: &str, at: &At, status: FileStatus, message: String, bytes: u64) {
        let label = &at.label;
        match status {
            FileStatus::Skipped => self.skipped += 1,
            FileStatus::Ok => self.checked += 1,
            FileStatus::Error => {
                let mut d =
                    Diagnostic::new(INPUT_ERROR, Level::Error, Certainty::Proven, format!("{label}: {message}"));
                d.location.path = path.to_string();
                d.location.blob_offset = Some(at.offset);
                d.location.entry.clone_from(&at.name);
                d.location.section = Some(label.clone());
                self.diagnostics.push(d);
            }
        }
        self.files.push(FileReport {
            path: path.to_string(),
            kind: InputKind::Binary,
            status,
            message: Some(message),
            blob_offset: Some(at.offset),
            section: Some(label.clone()),
            entry: at.name.clone(),
            bytes,
            modules: 0,
            spec_ids: Vec::new(),
        });
    }

    /// Checks one decoded module and files it at `at`.
    fn module(&mut self, path: &str, kind: InputKind, code: &[u8], at: &At, opts: &CheckOptions) {
        let label = &at.label;
        let (mut f, mut diags) = check::check_blob(path, kind, code, Some(at.offset), opts);
        f.section = Some(label.clone());
        f.entry.clone_from(&at.name);
        if f.status == FileStatus::Ok {
            self.checked += 1;
        } else if f.status == FileStatus::Skipped {
            self.skipped += 1;
        }
        for d in &mut diags {
            d.location.section = Some(label.clone());
            d.location.entry.clone_from(&at.name);
            // Offsets inside decoded text or words are not offsets in the file.
            d.location.byte_offset = None;
            if d.rule == INPUT_ERROR && !d.message.starts_with(label.as_str()) {
                d.message = format!("{label}: {}", d.message);
            }
        }
        self.files.push(f);
        self.diagnostics.extend(diags);
    }

    fn budget_note(&mut self, path: &str, at: u64) {
        let mut d = Diagnostic::new(
            BUDGET_EXCEEDED,
            Level::Note,
            Certainty::Proven,
            format!(
                "the decompression budget of this file ({} bytes per byte of the file plus {} bytes) was spent at entry 0x{at:X}; the remaining compressed entries were not decompressed",
                limits::DECOMPRESSED_PER_FILE_BYTE,
                limits::MAX_DECOMPRESSED_BYTES
            ),
        );
        d.location.path = path.to_string();
        self.diagnostics.push(d);
    }
}

/// Where a container entry is: its offset in the file, the label naming
/// what it holds, and its own name where it has one (a Fossilize module's
/// hash: reports show `FILE@NAME` instead of `FILE@0xOFFSET`).
struct At {
    offset: u64,
    label: String,
    name: Option<String>,
}

impl At {
    fn new(offset: u64, label: impl Into<String>) -> Self {
        At { offset, label: label.into(), name: None }
    }

    /// A Fossilize module: named by its hash.
    fn module(offset: u64, hash: u64, uses: &std::collections::HashMap<u64, Vec<fossilize::Use>>) -> Self {
        At { offset, label: fossilize::module_label(uses.get(&hash)), name: Some(fossilize::hash_name(hash)) }
    }
}

/// The bytes all the entries of a file of `len` bytes may decompress to.
pub fn file_budget(len: usize) -> u64 {
    (len as u64).saturating_mul(limits::DECOMPRESSED_PER_FILE_BYTE).saturating_add(limits::MAX_DECOMPRESSED_BYTES)
}

/// The reason a binary that holds no shader is skipped: a bare cubin names its
/// architecture.
pub fn skip_reason(bytes: &[u8]) -> String {
    match fatbin::cubin_arch(bytes) {
        Some(arch) => format!("SASS (cubin) for sm_{arch}, not analysed: irlint reads PTX"),
        None => "no embedded shader found".into(),
    }
}

/// The ELF/PE/Mach-O sections of a file, when it has fatbin data to place;
/// for a static archive (`ar`), the sections of each member, named
/// `libk.a(k.o) .nv_fatbin` (goblin under `catch_unwind`; a failure only
/// loses the names). Inner ranges come first, so the lookup finds them.
fn fatbin_sections(path: &str, bytes: &[u8]) -> Vec<(String, Range<u64>)> {
    if !bytes.starts_with(b"!<arch>\n") {
        return embedded::sections(bytes);
    }
    let file =
        std::path::Path::new(path).file_name().map_or_else(|| path.to_string(), |n| n.to_string_lossy().into_owned());
    std::panic::catch_unwind(|| {
        let mut out = Vec::new();
        let Ok(archive) = goblin::archive::Archive::parse(bytes) else { return out };
        for i in 0..archive.len() {
            let Some(m) = archive.get_at(i) else { continue };
            let start = m.offset;
            let end = start.saturating_add(m.size() as u64);
            let Some(data) =
                usize::try_from(start).ok().zip(usize::try_from(end).ok()).and_then(|(s, e)| bytes.get(s..e))
            else {
                continue;
            };
            let member = format!("{file}({})", m.extended_name());
            for (name, r) in embedded::sections(data) {
                out.push((format!("{member} {name}"), r.start + start..r.end + start));
            }
            out.push((member, start..end));
        }
        out
    })
    .unwrap_or_default()
}

fn section_of(sections: &[(String, Range<u64>)], at: u64) -> Option<&str> {
    sections.iter().find(|(_, r)| r.contains(&at)).map(|(n, _)| n.as_str())
}

/// Scans a file's fatbins (containers expected where the file is one, or in
/// a `.nv_fatbin` / `__nv_relfatbin` section).
pub fn scan_fatbins(path: &str, bytes: &[u8]) -> (fatbin::Scan, Vec<(String, Range<u64>)>) {
    let whole = fatbin::is_fatbin(bytes);
    // Sections are only looked up when the magic occurs at all.
    let magic = fatbin::MAGIC.to_le_bytes();
    if !whole && !bytes.windows(4).any(|w| w == magic) {
        return (fatbin::Scan::default(), Vec::new());
    }
    let sections = fatbin_sections(path, bytes);
    let expected = |at: u64| {
        (whole && at == 0)
            || section_of(&sections, at)
                .is_some_and(|s| s == ".nv_fatbin" || s == "__nv_relfatbin" || s.ends_with("nv_fatbin"))
    };
    let scan = fatbin::scan(bytes, &expected);
    (scan, sections)
}

fn codec_suffix(c: Codec) -> String {
    if c == Codec::None {
        String::new()
    } else {
        format!(", {}", c.name())
    }
}

/// `.nv_fatbin: PTX compute_80, zstd`.
pub fn fatbin_label(sections: &[(String, Range<u64>)], e: &fatbin::Entry, group_codec: Option<Codec>) -> String {
    let place = section_of(sections, e.offset).unwrap_or("fatbin");
    let codec = group_codec.map_or_else(|| codec_suffix(e.codec), |c| format!("{}, concatenated", codec_suffix(c)));
    format!("{place}: {} {}{codec}", e.kind.name(), e.arch_name())
}

/// Checks every fatbin entry and Fossilize module in `bytes`.
pub fn check(path: &str, bytes: &[u8], opts: &CheckOptions) -> Found {
    let mut found = Found::default();
    let mut budget = file_budget(bytes.len());
    if fossilize::is_fossilize(bytes) {
        found.what.push("Fossilize");
        check_fossilize(path, bytes, opts, &mut budget, &mut found);
        return found;
    }
    let (scan, sections) = scan_fatbins(path, bytes);
    if scan.entries.is_empty() && scan.errors.is_empty() {
        return found;
    }
    found.what.push("fatbin");
    for e in &scan.errors {
        let at = At::new(e.offset, section_of(&sections, e.offset).unwrap_or("fatbin"));
        found.entry(path, &at, FileStatus::Error, e.to_string(), 0);
    }
    if let Some((at, why)) = &scan.stopped {
        let mut d = Diagnostic::new(
            BUDGET_EXCEEDED,
            Level::Note,
            Certainty::Proven,
            format!("fatbin scan stopped at byte offset {at}: {why}"),
        );
        d.location.path = path.to_string();
        found.diagnostics.push(d);
    }
    let mut cache = GroupCache::default();
    let mut spent = false;
    for e in &scan.entries {
        let group_codec = e.group.and_then(|g| scan.groups.get(g)).map(|g| g.codec);
        let at = At::new(e.offset, fatbin_label(&sections, e, group_codec));
        if e.kind != EntryKind::Ptx {
            let what = match e.kind {
                EntryKind::Sass => "SASS (cubin)".to_string(),
                EntryKind::LtoIr => "LTO-IR".to_string(),
                k => format!("fatbin entry of {}", k.name()),
            };
            let msg = format!("{what} for {}, not analysed: irlint reads PTX", e.arch_name());
            found.entry(path, &at, FileStatus::Skipped, msg, e.data.end - e.data.start);
            continue;
        }
        if let Some(why) = refusal(&scan, e) {
            found.entry(path, &at, FileStatus::Skipped, format!("not decompressed: {why}"), 0);
            continue;
        }
        let cost = scan.cost(e, &cache);
        if spent || cost > budget {
            if !spent {
                found.budget_note(path, e.offset);
                spent = true;
            }
            found.entry(
                path,
                &at,
                FileStatus::Skipped,
                "not decompressed: the file's decompression budget is spent".into(),
                0,
            );
            continue;
        }
        budget -= cost;
        match scan.payload(bytes, e, &mut cache) {
            Ok(payload) => {
                let text = fatbin::ptx_text(&payload);
                if !crate::ptx::is_ptx(text) {
                    let msg = format!("the {} entry does not hold PTX text (no `.version` directive)", e.arch_name());
                    found.entry(path, &at, FileStatus::Error, msg, payload.len() as u64);
                } else {
                    found.module(path, InputKind::Ptx, text, &at, opts);
                }
            }
            Err(err) => entry_error(&mut found, path, &at, err),
        }
    }
    found
}

/// Why an entry's (or its group's) declared decompressed size is refused.
fn refusal(scan: &fatbin::Scan, e: &fatbin::Entry) -> Option<String> {
    let (codec, stored, declared) = match e.group.and_then(|g| scan.groups.get(g)) {
        Some(g) => (g.codec, g.data.end - g.data.start, g.decompressed),
        None => (e.codec, e.data.end - e.data.start, e.decompressed),
    };
    (codec != Codec::None).then(|| decompress::refuse_size(stored, declared)).flatten()
}

/// A declared size over the limits is a skip with the reason; any other
/// decoding failure is an input error.
fn entry_error(found: &mut Found, path: &str, at: &At, err: ReadError) {
    if err.kind == crate::read::ErrorKind::LimitExceeded {
        found.entry(path, at, FileStatus::Skipped, format!("not decompressed: {}", err.detail), 0);
    } else {
        found.entry(path, at, FileStatus::Error, err.to_string(), 0);
    }
}

fn check_fossilize(path: &str, bytes: &[u8], opts: &CheckOptions, budget: &mut u64, found: &mut Found) {
    let db = fossilize::read(bytes);
    if let Some(e) = &db.error {
        found.entry(path, &At::new(e.offset, "Fossilize database"), FileStatus::Error, e.to_string(), 0);
    }
    let uses = fossilize::module_uses(bytes, &db, budget);
    let mut spent = false;
    for e in db.entries.iter().filter(|e| e.tag == fossilize::TAG_SHADER_MODULE) {
        let at = At::module(e.offset, e.hash, &uses);
        let stored = e.stored.end - e.stored.start;
        if let Some(why) =
            (e.codec() == Some(Codec::Zlib)).then(|| decompress::refuse_size(stored, u64::from(e.size))).flatten()
        {
            found.entry(path, &at, FileStatus::Skipped, format!("not decompressed: {why}"), 0);
            continue;
        }
        if spent || u64::from(e.size) > *budget {
            if !spent {
                found.budget_note(path, e.offset);
                spent = true;
            }
            found.entry(
                path,
                &at,
                FileStatus::Skipped,
                "not decompressed: the file's decompression budget is spent".into(),
                0,
            );
            continue;
        }
        *budget -= u64::from(e.size);
        let modules = e.payload(bytes).and_then(|p| fossilize::shader_modules(&p, e.offset));
        match modules {
            Ok(list) => {
                for m in list {
                    let at = At::module(e.offset, m.hash, &uses);
                    if !crate::spirv::is_spirv(&m.spirv) {
                        let msg = "the module's words do not start with the SPIR-V magic".to_string();
                        found.entry(path, &at, FileStatus::Error, msg, m.spirv.len() as u64);
                        continue;
                    }
                    found.module(path, InputKind::Spirv, &m.spirv, &at, opts);
                }
            }
            Err(err) => entry_error(found, path, &at, err),
        }
    }
}

/// `irlint dump --blobs` lines for the fatbin entries and Fossilize modules
/// of a file (empty when it has none).
pub fn render_blobs(path: &str, bytes: &[u8]) -> String {
    let mut out = String::new();
    for b in list(path, bytes) {
        out.push_str(&format!("  offset 0x{:08X}  size {:>9}  {:<6}  ", b.offset, b.size, b.kind));
        if let Some(name) = &b.name {
            out.push_str(&format!("{path}@{name}  "));
        }
        out.push_str(&b.label);
        if let Some(d) = b.detail {
            out.push_str(&format!("  ({d})"));
        }
        out.push('\n');
    }
    out
}

/// `irlint dump --blobs --format json` entries, added to a file's object as
/// `"entries"`.
pub fn add_json(file: &mut serde_json::Value, path: &str, bytes: &[u8]) {
    let entries: Vec<serde_json::Value> = list(path, bytes)
        .into_iter()
        .map(|b| {
            serde_json::json!({
                "offset": b.offset, "entry": b.name, "size": b.size, "kind": b.kind, "label": b.label,
                "detail": b.detail,
            })
        })
        .collect();
    if let (false, Some(obj)) = (entries.is_empty(), file.as_object_mut()) {
        obj.insert("entries".into(), serde_json::Value::Array(entries));
    }
}

/// One listed entry.
struct Listed {
    offset: u64,
    size: u64,
    kind: &'static str,
    /// The entry's own name (a Fossilize module's hash), shown `FILE@NAME`.
    name: Option<String>,
    label: String,
    detail: Option<String>,
}

/// Lists entries without decompressing anything (Fossilize pipeline entries
/// are decoded for the module labels, within the file's budget).
fn list(path: &str, bytes: &[u8]) -> Vec<Listed> {
    let mut out = Vec::new();
    if fossilize::is_fossilize(bytes) {
        let db = fossilize::read(bytes);
        let mut budget = file_budget(bytes.len());
        let uses = fossilize::module_uses(bytes, &db, &mut budget);
        for e in db.entries.iter().filter(|e| e.tag == fossilize::TAG_SHADER_MODULE) {
            let codec = e.codec().map_or_else(|| format!("flags {}", e.flags), |c| c.name().to_string());
            out.push(Listed {
                offset: e.offset,
                size: u64::from(e.size),
                kind: "spirv",
                name: Some(e.hash_hex()),
                label: fossilize::module_label(uses.get(&e.hash)),
                detail: Some(format!("{} stored bytes, {codec}", e.stored.end - e.stored.start)),
            });
        }
        if let Some(err) = db.error {
            out.push(Listed {
                offset: err.offset,
                size: 0,
                kind: "error",
                name: None,
                label: err.to_string(),
                detail: None,
            });
        }
        return out;
    }
    let (scan, sections) = scan_fatbins(path, bytes);
    for e in &scan.entries {
        let group_codec = e.group.and_then(|g| scan.groups.get(g)).map(|g| g.codec);
        let mut detail = vec![format!("version {}.{}", e.version.0, e.version.1)];
        if e.codec != Codec::None {
            detail.push(format!("{} stored bytes", e.data.end - e.data.start));
        }
        if let Some(n) = &e.name {
            detail.push(format!("name {n}"));
        }
        if let Some(o) = &e.options {
            detail.push(format!("options {o}"));
        }
        out.push(Listed {
            offset: e.offset,
            size: e.decompressed,
            kind: match e.kind {
                EntryKind::Ptx => "ptx",
                EntryKind::Sass => "sass",
                EntryKind::LtoIr => "lto-ir",
                EntryKind::Other(_) => "other",
            },
            name: None,
            label: fatbin_label(&sections, e, group_codec),
            detail: Some(detail.join(", ")),
        });
    }
    for err in scan.errors {
        out.push(Listed {
            offset: err.offset,
            size: 0,
            kind: "error",
            name: None,
            label: err.to_string(),
            detail: None,
        });
    }
    out
}

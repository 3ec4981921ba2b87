//! `irlint dump`: what the readers recovered from an input — container parts,
//! shader model, entry points, resources, and every raw-vector / matrix memory
//! op with its operands shown as constants where they are constants.
//!
//! (Interface stub: the DXIL work fills it in; the CLI calls [`dump_bytes`],
//! [`render_text`] and serialises [`DumpFile`] for `--format json`.)

use crate::check::{FileStatus, InputKind};
use serde::Serialize;

/// Options for a dump.
#[derive(Debug, Clone, Default)]
pub struct DumpOptions {
    /// Also print the lowered IR as text.
    pub ir: bool,
}

/// One entry of `{"version": 1, "files": [...]}`.
#[derive(Debug, Clone, Serialize)]
pub struct DumpFile {
    /// Input path.
    pub path: String,
    /// Kind.
    pub kind: InputKind,
    /// Status.
    pub status: FileStatus,
    /// Why skipped / what failed (with byte offset).
    pub message: Option<String>,
    /// Everything else recovered (design documented in docs/dump.md).
    #[serde(flatten)]
    pub details: serde_json::Map<String, serde_json::Value>,
    /// The IR text when `--ir` was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ir: Option<String>,
}

/// Dumps one input's bytes.
pub fn dump_bytes(path: &str, bytes: &[u8], _opts: &DumpOptions) -> DumpFile {
    let kind = crate::check::classify(path, bytes);
    DumpFile {
        path: path.to_string(),
        kind,
        status: FileStatus::Skipped,
        message: Some("dump not implemented yet".into()),
        details: serde_json::Map::new(),
        ir: None,
    }
}

/// Human-readable text for a set of dumped files.
pub fn render_text(files: &[DumpFile]) -> String {
    let mut out = String::new();
    for f in files {
        out.push_str(&format!("{}: {:?} {:?}\n", f.path, f.kind, f.status));
    }
    out
}

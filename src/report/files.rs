//! The report's per-input entries: what an input is ([`InputKind`]), how its
//! check ended ([`FileStatus`]) and the `files` element of a report
//! ([`FileReport`]). Part of the report model with [`super::diagnostic`]: the
//! pipeline (`crate::check`, `crate::input`) produces these and every emitter
//! reads them, so they live here and import nothing above the model.

use serde::Serialize;

/// What an input is, by content (HLSL by extension).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum InputKind {
    /// DXBC container with a DXIL program.
    Dxil,
    /// SPIR-V module.
    Spirv,
    /// Legacy DXBC container (SM 4/5) — or an unreadable DXBC container.
    Dxbc,
    /// Raw LLVM bitcode.
    Bitcode,
    /// HLSL source.
    Hlsl,
    /// PTX text (recognised by its `.version` directive).
    Ptx,
    /// Matrix-atom records (`irlint atoms`; never chosen by content).
    Atoms,
    /// Anything else: scanned for embedded shaders.
    Binary,
    /// Nothing exists at the path (reported as an input error).
    Missing,
}

/// Outcome for one input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileStatus {
    /// Analysed.
    Ok,
    /// Recognised but not analysed (legacy DXBC, no DXC for HLSL, no shader inside).
    Skipped,
    /// Malformed or unreadable.
    Error,
}

/// One entry of the report's `files` list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileReport {
    /// Input path.
    pub path: String,
    /// Kind.
    pub kind: InputKind,
    /// Status.
    pub status: FileStatus,
    /// Why skipped / what failed.
    pub message: Option<String>,
    /// Offset of an embedded blob inside `path`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blob_offset: Option<u64>,
    /// Section of the blob, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// The container entry's name, where it has one (a Fossilize module's
    /// hash): shown as `path@NAME`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<String>,
    /// Bytes read.
    #[serde(skip)]
    pub bytes: u64,
    /// Modules analysed.
    #[serde(skip)]
    pub modules: u32,
    /// SpecIds the analysed module declares (to warn about `--spec-constant`
    /// overrides no module uses).
    #[serde(skip)]
    pub spec_ids: Vec<u32>,
}

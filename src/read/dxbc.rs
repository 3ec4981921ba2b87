//! DXBC container reader (DXIL and legacy DXBC share the outer format).
//!
//! Layout (formats.md §A): a 32-byte header (`DXBC`, 16-byte digest, version,
//! total size, part count), a table of part offsets, then parts of
//! `FourCC, size, data`. Every part is kept as `(FourCC, bytes)`.

use super::cursor::ByteReader;
use super::error::{ErrorKind, ReadError, Result};
use super::limits;
use std::fmt;

/// A four-character code, stored as its little-endian u32 (open: unknown codes are kept).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FourCc(pub u32);

impl FourCc {
    /// `DXBC` container magic.
    pub const DXBC: FourCc = FourCc::new(b"DXBC");
    /// Program part (stripped module).
    pub const DXIL: FourCc = FourCc::new(b"DXIL");
    /// Program part with the full debug module.
    pub const ILDB: FourCc = FourCc::new(b"ILDB");
    /// Debug (PDB) name.
    pub const ILDN: FourCc = FourCc::new(b"ILDN");
    /// Reflection module.
    pub const STAT: FourCc = FourCc::new(b"STAT");
    /// Legacy SM4 bytecode.
    pub const SHDR: FourCc = FourCc::new(b"SHDR");
    /// Legacy SM5 bytecode.
    pub const SHEX: FourCc = FourCc::new(b"SHEX");
    /// Shader hash.
    pub const HASH: FourCc = FourCc::new(b"HASH");
    /// Compiler version.
    pub const VERS: FourCc = FourCc::new(b"VERS");

    /// From four ASCII bytes.
    pub const fn new(b: &[u8; 4]) -> Self {
        FourCc(u32::from_le_bytes(*b))
    }

    /// The four bytes as text (non-printable bytes escaped).
    pub fn as_string(self) -> String {
        self.0.to_le_bytes().iter().map(|&c| if c.is_ascii_graphic() { c as char } else { '?' }).collect()
    }
}

impl fmt::Debug for FourCc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.as_string())
    }
}
impl fmt::Display for FourCc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.as_string())
    }
}

/// One part of a container.
#[derive(Debug, Clone, Copy)]
pub struct Part<'a> {
    /// Its FourCC.
    pub fourcc: FourCc,
    /// Absolute offset of the part data (after the 8-byte part header).
    pub offset: u64,
    /// Part data.
    pub data: &'a [u8],
}

/// What the 16-byte digest says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Digest {
    /// All zero: not validated.
    Unsigned,
    /// 16 bytes of 0x02: the preview-bypass hash of experimental shader models.
    PreviewBypass,
    /// Any other value: a validator hash.
    Signed,
}

/// A parsed container.
#[derive(Debug, Clone)]
pub struct Container<'a> {
    /// The digest kind.
    pub digest: Digest,
    /// Container version (major, minor).
    pub version: (u16, u16),
    /// Declared total size.
    pub size: u32,
    /// Parts in file order.
    pub parts: Vec<Part<'a>>,
    /// Absolute offset of the container's first byte.
    pub base: u64,
}

/// What a container without a DXIL program (`DXIL` or `ILDB` part) holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoProgram {
    /// Legacy SM 4/5 bytecode (`SHDR` / `SHEX`).
    Legacy,
    /// Only known parts that are not shaders; the text says what (`root
    /// signature (no shader)`, `no shader: only ISG1, OSG1`).
    NotAShader(String),
}

/// Parts DXC and FXC write besides the shader itself (DxilContainer.h's
/// `DxilFourCC` and the legacy FXC chunks), with what each is.
const NON_SHADER_PARTS: &[(&[u8; 4], &str)] = &[
    (b"RTS0", "root signature"),
    (b"RDEF", "resource definitions"),
    (b"ISGN", "input signature"),
    (b"OSGN", "output signature"),
    (b"OSG5", "output signature"),
    (b"PCSG", "patch-constant signature"),
    (b"ISG1", "input signature"),
    (b"OSG1", "output signature"),
    (b"PSG1", "patch-constant signature"),
    (b"STAT", "statistics"),
    (b"SFI0", "feature info"),
    (b"PRIV", "private data"),
    (b"PSV0", "pipeline state validation"),
    (b"RDAT", "runtime data"),
    (b"HASH", "shader hash"),
    (b"SRCI", "source info"),
    (b"PDBI", "PDB info"),
    (b"VERS", "compiler version"),
    (b"ILDN", "debug name"),
    (b"IFCE", "interfaces"),
    (b"SDBG", "debug info"),
    (b"SPDB", "PDB"),
    (b"Aon9", "feature level 9 shader"),
    (b"XNAP", "Xbox data"),
    (b"XNAS", "Xbox data"),
    (b"LIBF", "library functions"),
    (b"LIBH", "library header"),
    (b"LFS0", "library function signatures"),
    (b"CTAB", "constant table"),
];

impl<'a> Container<'a> {
    /// First part with this FourCC.
    pub fn part(&self, cc: FourCc) -> Option<&Part<'a>> {
        self.parts.iter().find(|p| p.fourcc == cc)
    }

    /// True when the container holds legacy SM4/5 bytecode and no DXIL program.
    pub fn is_legacy(&self) -> bool {
        self.part(FourCc::DXIL).is_none()
            && self.part(FourCc::ILDB).is_none()
            && (self.part(FourCc::SHDR).is_some() || self.part(FourCc::SHEX).is_some())
    }

    /// For a container without a DXIL program: legacy bytecode, known
    /// non-shader parts only (a root signature from `dxc -T rootsig_1_1`,
    /// signatures, reflection), or an error when no part is one DXC or FXC
    /// writes (no parts at all, or only unknown FourCCs): such a file holds no
    /// shader part and is not a container any compiler produced.
    pub fn no_program(&self) -> Result<NoProgram> {
        if self.is_legacy() {
            return Ok(NoProgram::Legacy);
        }
        let known = |p: &&Part<'_>| NON_SHADER_PARTS.iter().any(|(cc, _)| FourCc::new(cc) == p.fourcc);
        if self.part(FourCc::new(b"RTS0")).is_some() {
            return Ok(NoProgram::NotAShader("root signature (no shader)".to_string()));
        }
        let names: Vec<String> = self.parts.iter().map(|p| p.fourcc.as_string()).collect();
        if self.parts.iter().any(|p| known(&p)) {
            let mut what: Vec<String> = self
                .parts
                .iter()
                .filter_map(|p| NON_SHADER_PARTS.iter().find(|(cc, _)| FourCc::new(cc) == p.fourcc))
                .map(|(cc, d)| format!("{} ({d})", FourCc::new(cc)))
                .collect();
            what.dedup();
            return Ok(NoProgram::NotAShader(format!("no shader: the container holds only {}", what.join(", "))));
        }
        let holds = if names.is_empty() {
            "no parts".to_string()
        } else {
            format!("only unknown parts ({})", names.join(", "))
        };
        Err(ReadError::malformed(
            self.base.saturating_add(28),
            format!("no shader part: the DXBC container holds {holds}, no DXIL, ILDB, SHDR or SHEX part"),
        ))
    }
}

/// True when `data` starts with the `DXBC` magic.
pub fn is_container(data: &[u8]) -> bool {
    data.get(0..4) == Some(b"DXBC")
}

/// Parses a container. `base` is the absolute offset of `data[0]` in the input.
pub fn parse(data: &[u8], base: u64) -> Result<Container<'_>> {
    let mut r = ByteReader::new(data, base);
    let magic = r.u32()?;
    if FourCc(magic) != FourCc::DXBC {
        return Err(ReadError::new(ErrorKind::BadMagic, base, "not a DXBC container (magic is not 'DXBC')"));
    }
    let digest_bytes = r.bytes(16)?;
    let digest = if digest_bytes.iter().all(|&b| b == 0) {
        Digest::Unsigned
    } else if digest_bytes.iter().all(|&b| b == 2) {
        Digest::PreviewBypass
    } else {
        Digest::Signed
    };
    let major = r.u16()?;
    let minor = r.u16()?;
    let size_off = r.offset();
    let size = r.u32()?;
    if u64::from(size) > limits::MAX_CONTAINER_BYTES || (size as usize) > data.len() || size < 32 {
        return Err(ReadError::new(
            ErrorKind::BadSize,
            size_off,
            format!("container size {size} does not fit the {} bytes available", data.len()),
        ));
    }
    // Limit everything below to the declared container.
    let data = data.get(..size as usize).unwrap_or(data);
    let count_off = r.offset();
    let count = r.u32()?;
    if count > limits::MAX_PARTS {
        return Err(ReadError::limit(count_off, format!("part count {count} exceeds {}", limits::MAX_PARTS)));
    }
    let table_end = 32usize.checked_add((count as usize).saturating_mul(4));
    if table_end.is_none_or(|e| e > data.len()) {
        return Err(ReadError::new(
            ErrorKind::BadSize,
            count_off,
            format!("part table of {count} entries runs past the container end"),
        ));
    }
    let mut parts = Vec::with_capacity(count as usize);
    let mut r = ByteReader::new(data, base);
    r.seek(32)?;
    for i in 0..count {
        let entry_off = r.offset();
        let off = r.u32()? as usize;
        let mut pr = ByteReader::new(data, base);
        pr.seek(off).map_err(|_| {
            ReadError::new(ErrorKind::BadSize, entry_off, format!("part {i} offset {off} is outside the container"))
        })?;
        let fourcc = FourCc(pr.u32().map_err(|e| e.context(format!("part {i} header")))?);
        let psize_off = pr.offset();
        let psize = pr.u32().map_err(|e| e.context(format!("part {i} header")))? as usize;
        let pdata_off = pr.offset();
        let pdata = pr.bytes(psize).map_err(|_| {
            ReadError::new(
                ErrorKind::BadSize,
                psize_off,
                format!("part {i} ({fourcc}) size {psize} runs past the container end"),
            )
        })?;
        parts.push(Part { fourcc, offset: pdata_off, data: pdata });
    }
    Ok(Container { digest, version: (major, minor), size, parts, base })
}

/// The DXIL program header at the start of a DXIL / ILDB / STAT part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProgramHeader {
    /// Shader kind (Pixel 0, Vertex 1, ..., Compute 5, Library 6, ...).
    pub shader_kind: u32,
    /// Shader model major.
    pub sm_major: u32,
    /// Shader model minor.
    pub sm_minor: u32,
    /// DXIL version (major, minor).
    pub dxil_version: (u32, u32),
}

impl ProgramHeader {
    /// Profile text such as `cs_6_10` or `lib_6_3`.
    pub fn profile(&self) -> String {
        let stage = match self.shader_kind {
            0 => "ps",
            1 => "vs",
            2 => "gs",
            3 => "hs",
            4 => "ds",
            5 => "cs",
            6 => "lib",
            7..=12 => "lib",
            13 => "ms",
            14 => "as",
            15 => "node",
            _ => "unknown",
        };
        format!("{stage}_{}_{}", self.sm_major, self.sm_minor)
    }

    /// The stage name (`compute`, `pixel`, ...).
    pub fn stage(&self) -> &'static str {
        match self.shader_kind {
            0 => "pixel",
            1 => "vertex",
            2 => "geometry",
            3 => "hull",
            4 => "domain",
            5 => "compute",
            6 => "library",
            7 => "raygeneration",
            8 => "intersection",
            9 => "anyhit",
            10 => "closesthit",
            11 => "miss",
            12 => "callable",
            13 => "mesh",
            14 => "amplification",
            15 => "node",
            _ => "unknown",
        }
    }
}

/// Splits a program part into its header and bitcode. Returns the bitcode slice
/// and its absolute offset.
pub fn program<'a>(part: &Part<'a>) -> Result<(ProgramHeader, &'a [u8], u64)> {
    let mut r = ByteReader::new(part.data, part.offset);
    let version = r.u32()?;
    let _size_dwords = r.u32()?;
    let magic_pos = r.pos();
    let magic_off = r.offset();
    let magic = r.u32()?;
    if FourCc(magic) != FourCc::DXIL {
        return Err(ReadError::new(ErrorKind::BadMagic, magic_off, "program header magic is not 'DXIL'"));
    }
    let dxil_version = r.u32()?;
    let bc_off_pos = r.offset();
    let bc_offset = r.u32()? as usize;
    let bc_size = r.u32()? as usize;
    let start = magic_pos.checked_add(bc_offset);
    let end = start.and_then(|s| s.checked_add(bc_size));
    let bitcode = match (start, end) {
        (Some(s), Some(e)) => part.data.get(s..e),
        _ => None,
    };
    let Some(bitcode) = bitcode else {
        return Err(ReadError::new(
            ErrorKind::BadSize,
            bc_off_pos,
            format!("bitcode offset {bc_offset} + size {bc_size} runs past the {}-byte part", part.data.len()),
        ));
    };
    let header = ProgramHeader {
        shader_kind: version >> 16,
        sm_major: (version >> 4) & 0xF,
        sm_minor: version & 0xF,
        dxil_version: (dxil_version >> 8, dxil_version & 0xFF),
    };
    Ok((header, bitcode, part.offset + (magic_pos + bc_offset) as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn container(parts: &[(&[u8; 4], &[u8])]) -> Vec<u8> {
        let header = 32 + 4 * parts.len();
        let mut offsets = Vec::new();
        let mut body = Vec::new();
        for (cc, data) in parts {
            offsets.push((header + body.len()) as u32);
            body.extend_from_slice(*cc);
            body.extend_from_slice(&(data.len() as u32).to_le_bytes());
            body.extend_from_slice(data);
        }
        let total = header + body.len();
        let mut out = b"DXBC".to_vec();
        out.extend_from_slice(&[2u8; 16]);
        out.extend_from_slice(&1u16.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&(total as u32).to_le_bytes());
        out.extend_from_slice(&(parts.len() as u32).to_le_bytes());
        for o in offsets {
            out.extend_from_slice(&o.to_le_bytes());
        }
        out.extend_from_slice(&body);
        out
    }

    #[test]
    fn parses_parts_and_preview_digest() {
        let c = container(&[(b"SFI0", &[0; 8]), (b"SHEX", &[1, 2, 3, 4])]);
        let p = parse(&c, 0).unwrap();
        assert_eq!(p.digest, Digest::PreviewBypass);
        assert_eq!(p.parts.len(), 2);
        assert_eq!(p.parts[1].fourcc, FourCc::SHEX);
        assert_eq!(p.parts[1].data, &[1, 2, 3, 4]);
        assert!(p.is_legacy());
    }

    #[test]
    fn rejects_part_past_end_with_offset() {
        let mut c = container(&[(b"DXIL", &[0; 8])]);
        // Part size field of the only part: header 32 + 4 table + 4 fourcc.
        c[40..44].copy_from_slice(&1000u32.to_le_bytes());
        let e = parse(&c, 0x100).unwrap_err();
        assert_eq!(e.kind, ErrorKind::BadSize);
        assert_eq!(e.offset, 0x100 + 40);
        assert!(e.to_string().contains("0x128"), "{e}");
    }

    #[test]
    fn truncations_never_panic() {
        let c = container(&[(b"DXIL", &[0; 24]), (b"HASH", &[0; 20])]);
        for n in 0..c.len() {
            let _ = parse(&c[..n], 0);
        }
    }
}

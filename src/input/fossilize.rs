//! Fossilize databases (`.foz`): the Vulkan pipeline caches of Steam's shader
//! pre-caching, `fossilize-replay` and vkd3d-proton / DXVK captures.
//!
//! The format is ValveSoftware/Fossilize's `StreamArchive` (`fossilize_db.cpp`),
//! little-endian:
//!
//! ```text
//! header  "\x81FOSSILIZEDB", 3 zero bytes, u8 version (5 or 6)
//! entry   40 ASCII hex digits: the tag (24, the resource type) and the hash (16),
//!         u32 stored size, u32 flags (1 stored, 2 zlib), u32 CRC-32 of the
//!         stored bytes (0: none), u32 size once decompressed, the stored bytes
//! ```
//!
//! A shader-module entry (tag 4) decompresses to JSON
//! (`{"version":6,"shaderModules":{"HASH":{"varintOffset":0,"varintSize":N,
//! "codeSize":M,"flags":0}}}`), a NUL, and the module's SPIR-V words in
//! Fossilize's varint encoding (7 bits a byte, low bits first, high bit set on
//! every byte but a word's last). A module may instead carry its words as
//! base64 `"code"` (Fossilize's JSON export writes that form, and its replayer
//! reads both). Pipeline entries (tags 6, 7, 9) name the stage and entry
//! point each module is used with.
//!
//! Versions: Fossilize (`fossilize_types.hpp`, checked at commit `de951cf`,
//! 2026-08) writes version 6 and reads 5 and 6 (`FOSSILIZE_FORMAT_VERSION`,
//! `FOSSILIZE_FORMAT_MIN_COMPAT_VERSION`); 6 only marks that entries are not
//! hashed against the application info, the layout is the same. Versions 4
//! and older (before May 2019) named entries with 32 hex digits and are
//! refused by Fossilize itself; they are refused here too, with an error
//! naming the version, as is a version newer than 6.
//!
//! Every size is checked against the file before use; the decompressed size
//! against [`decompress::output_limit`]; a module's word count against its
//! varint bytes (a word takes at least one byte) before the words are
//! allocated. A damaged entry (CRC mismatch, bad zlib stream, bad JSON or
//! varint data) is an error for that entry only: the next entry starts where
//! its stored size says. A damaged entry table (a tag or hash that is not hex)
//! ends the reading of the file. A truncated last entry is ignored, as
//! Fossilize itself ignores it.

use crate::read::decompress::{self, Codec};
use crate::read::limits;
use crate::read::{ErrorKind, ReadError, Result};
use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

/// The first 12 bytes of a database.
pub const MAGIC: &[u8; 12] = b"\x81FOSSILIZEDB";
/// Resource tag of a shader module.
pub const TAG_SHADER_MODULE: u32 = 4;
const TAG_GRAPHICS_PIPELINE: u32 = 6;
const TAG_COMPUTE_PIPELINE: u32 = 7;
const TAG_RAYTRACING_PIPELINE: u32 = 9;
const NAME_LEN: usize = 40;
const ENTRY_HEADER: usize = NAME_LEN + 16;

/// True when `bytes` starts like a Fossilize database.
pub fn is_fossilize(bytes: &[u8]) -> bool {
    bytes.get(..12) == Some(&MAGIC[..])
}

/// One entry of the database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Byte offset of the entry (its tag) in the file.
    pub offset: u64,
    /// Resource tag (4: shader module, 6/7/9: graphics/compute/ray-tracing pipeline).
    pub tag: u32,
    /// The entry's hash.
    pub hash: u64,
    /// The stored bytes in the file.
    pub stored: Range<u64>,
    /// The flags field (1: stored, 2: zlib).
    pub flags: u32,
    /// CRC-32 of the stored bytes, 0 when not recorded.
    pub crc: u32,
    /// Size once decompressed.
    pub size: u32,
}

impl Entry {
    /// The encoding the flags name.
    pub fn codec(&self) -> Option<Codec> {
        match self.flags {
            1 => Some(Codec::None),
            2 => Some(Codec::Zlib),
            _ => None,
        }
    }

    /// The decoded payload: CRC checked, decompressed (bounded).
    pub fn payload<'a>(&self, bytes: &'a [u8]) -> Result<Cow<'a, [u8]>> {
        let r = usize::try_from(self.stored.start).unwrap_or(usize::MAX)
            ..usize::try_from(self.stored.end).unwrap_or(usize::MAX);
        let stored = bytes.get(r).ok_or_else(|| ReadError::eof(self.stored.start, "entry payload"))?;
        if self.crc != 0 {
            let crc = decompress::crc32(stored);
            if crc != self.crc {
                return Err(ReadError::malformed(
                    self.stored.start,
                    format!("CRC-32 of the stored bytes is 0x{crc:08X}, the entry records 0x{:08X}", self.crc),
                ));
            }
        }
        match self.codec() {
            Some(Codec::None) if stored.len() as u64 == u64::from(self.size) => Ok(Cow::Borrowed(stored)),
            Some(Codec::None) => Err(ReadError::new(
                ErrorKind::BadSize,
                self.offset + NAME_LEN as u64 + 12,
                format!("a stored entry of {} bytes declares {} bytes", stored.len(), self.size),
            )),
            Some(codec) => {
                decompress::decompress(codec, stored, u64::from(self.size), self.stored.start).map(Cow::Owned)
            }
            None => Err(ReadError::new(
                ErrorKind::Unsupported,
                self.offset + NAME_LEN as u64 + 4,
                format!("unknown payload encoding (flags {}; Fossilize writes 1, stored, and 2, deflate)", self.flags),
            )),
        }
    }

    /// `0123456789abcdef`: the hash as Fossilize names it.
    pub fn hash_hex(&self) -> String {
        hash_name(self.hash)
    }
}

/// The entry table of a database.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Database {
    /// The format version (header byte 15).
    pub version: u8,
    /// The entries, in file order.
    pub entries: Vec<Entry>,
    /// Offset of a truncated last entry, ignored.
    pub truncated_tail: Option<u64>,
    /// Why the table could not be read to its end (entries before it are kept).
    pub error: Option<ReadError>,
}

fn hex(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 24 || !s.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    let text = std::str::from_utf8(s).ok()?;
    // A tag is 24 digits with leading zeros.
    let digits = text.trim_start_matches('0');
    if digits.len() > 16 {
        return None;
    }
    u64::from_str_radix(if digits.is_empty() { "0" } else { digits }, 16).ok()
}

/// Reads the entry table (the payloads are decoded later, one at a time).
pub fn read(bytes: &[u8]) -> Database {
    let mut db = Database::default();
    if !is_fossilize(bytes) || bytes.len() < 16 {
        db.error = Some(ReadError::new(ErrorKind::BadMagic, 0, "not a Fossilize database"));
        return db;
    }
    db.version = bytes[15];
    if bytes[12..15] != [0, 0, 0] || !(5..=6).contains(&db.version) {
        let why = match db.version {
            _ if bytes[12..15] != [0, 0, 0] => "the three header bytes after the magic are not zero",
            0..=4 => "written by Fossilize before May 2019 (32-digit entry names); Fossilize itself no longer reads it",
            _ => "newer than the versions Fossilize writes today",
        };
        db.error = Some(ReadError::new(
            ErrorKind::Unsupported,
            12,
            format!("Fossilize database version {}: {why} (versions 5 and 6 are read)", db.version),
        ));
        return db;
    }
    let mut pos = 16usize;
    while pos < bytes.len() {
        if db.entries.len() >= limits::MAX_FOSSILIZE_ENTRIES {
            db.error = Some(ReadError::limit(
                pos as u64,
                format!("more than {} entries in one database", limits::MAX_FOSSILIZE_ENTRIES),
            ));
            break;
        }
        let Some(head) = bytes.get(pos..pos + ENTRY_HEADER) else {
            db.truncated_tail = Some(pos as u64);
            break;
        };
        let (Some(tag), Some(hash)) = (hex(&head[..24]), hex(&head[24..40])) else {
            db.error = Some(ReadError::malformed(
                pos as u64,
                "entry name is not 40 hexadecimal digits (tag and hash): the entry table is damaged from here",
            ));
            break;
        };
        let word = |i: usize| u32::from_le_bytes([head[40 + i], head[41 + i], head[42 + i], head[43 + i]]);
        let (stored, flags, crc, size) = (word(0), word(4), word(8), word(12));
        let start = pos + ENTRY_HEADER;
        let end = start.saturating_add(stored as usize);
        if end > bytes.len() {
            db.truncated_tail = Some(pos as u64);
            break;
        }
        db.entries.push(Entry {
            offset: pos as u64,
            tag: u32::try_from(tag).unwrap_or(u32::MAX),
            hash,
            stored: start as u64..end as u64,
            flags,
            crc,
            size,
        });
        pos = end;
    }
    db
}

/// One SPIR-V module of a shader-module entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    /// The module's hash (its key in the entry's JSON).
    pub hash: u64,
    /// The SPIR-V, little-endian words.
    pub spirv: Vec<u8>,
}

/// The JSON part and the binary part (after the NUL) of a payload.
fn split(payload: &[u8]) -> (&[u8], &[u8]) {
    match payload.iter().position(|&b| b == 0) {
        Some(i) => (&payload[..i], &payload[i + 1..]),
        None => (payload, &[]),
    }
}

fn json(text: &[u8], at: u64) -> Result<serde_json::Value> {
    serde_json::from_slice(text).map_err(|e| ReadError::malformed(at, format!("entry JSON: {e}")))
}

/// The modules of a shader-module entry's payload. `at` is the entry's
/// offset, for errors.
pub fn shader_modules(payload: &[u8], at: u64) -> Result<Vec<Module>> {
    let (text, binary) = split(payload);
    let doc = json(text, at)?;
    let modules = doc
        .get("shaderModules")
        .and_then(|m| m.as_object())
        .ok_or_else(|| ReadError::malformed(at, "shader-module entry without a \"shaderModules\" object"))?;
    let mut out = Vec::new();
    for (key, m) in modules {
        let hash = u64::from_str_radix(key, 16)
            .map_err(|_| ReadError::malformed(at, format!("shader module key {key:?} is not a hexadecimal hash")))?;
        let field = |name: &str| m.get(name).and_then(|v| v.as_u64());
        let code_size =
            field("codeSize").ok_or_else(|| ReadError::malformed(at, format!("module {key}: no \"codeSize\"")))?;
        let (Some(offset), Some(size)) = (field("varintOffset"), field("varintSize")) else {
            // Fossilize's JSON export (and so a database converted from one)
            // carries the words as base64 `code`; its replayer reads both.
            let Some(code) = m.get("code").and_then(|c| c.as_str()) else {
                return Err(ReadError::malformed(at, format!("module {key}: neither varint data nor base64 \"code\"")));
            };
            let spirv = usize::try_from(code_size)
                .ok()
                .filter(|n| n.is_multiple_of(4) && *n > 0)
                .and_then(|n| decode_base64(code.as_bytes(), n))
                .ok_or_else(|| {
                    ReadError::malformed(
                        at,
                        format!(
                            "module {key}: base64 \"code\" of {} characters does not hold codeSize {code_size} bytes",
                            code.len()
                        ),
                    )
                })?;
            out.push(Module { hash, spirv });
            continue;
        };
        let words = code_size / 4;
        if code_size % 4 != 0 || words == 0 || words > size {
            return Err(ReadError::new(
                ErrorKind::BadSize,
                at,
                format!("module {key}: codeSize {code_size} does not fit {size} varint bytes"),
            ));
        }
        let range = usize::try_from(offset).ok().zip(usize::try_from(offset.saturating_add(size)).ok());
        let data = range.and_then(|(s, e)| binary.get(s..e)).ok_or_else(|| {
            ReadError::new(
                ErrorKind::BadSize,
                at,
                format!(
                    "module {key}: varint bytes {offset}..+{size} run past the {} bytes after the JSON",
                    binary.len()
                ),
            )
        })?;
        let spirv = decode_varint(data, words as usize).ok_or_else(|| {
            ReadError::malformed(at, format!("module {key}: varint data does not hold {words} words"))
        })?;
        out.push(Module { hash, spirv });
    }
    Ok(out)
}

/// Decodes exactly `words` varint words filling `data`; `None` otherwise
/// (as Fossilize's `decode_varint`). `words` ≤ `data.len()` bounds the output.
pub fn decode_varint(data: &[u8], words: usize) -> Option<Vec<u8>> {
    if words > data.len() {
        return None;
    }
    let mut out = Vec::with_capacity(words * 4);
    let mut it = data.iter();
    for _ in 0..words {
        let mut w = 0u32;
        let mut shift = 0u32;
        loop {
            let b = *it.next()?;
            if shift >= 32 {
                return None;
            }
            w |= u32::from(b & 0x7F) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                break;
            }
        }
        out.extend_from_slice(&w.to_le_bytes());
    }
    it.next().is_none().then_some(out)
}

/// Decodes base64 text (standard alphabet, `=` padding, as Fossilize's
/// `encode_base64` writes a module's `code`) to exactly `size` bytes; `None`
/// otherwise. The output is bounded by the text (3 bytes per 4 characters)
/// before it is allocated.
pub fn decode_base64(text: &[u8], size: usize) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(4) || size > text.len() / 4 * 3 {
        return None;
    }
    let value = |b: u8| -> Option<u32> {
        Some(u32::from(match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        }))
    };
    let mut out = Vec::with_capacity(size);
    let quads = text.len() / 4;
    for (i, q) in text.chunks_exact(4).enumerate() {
        let pad = q.iter().rev().take_while(|&&b| b == b'=').count();
        if pad > 2 || (pad > 0 && i + 1 != quads) {
            return None;
        }
        let mut v = 0u32;
        for &b in &q[..4 - pad] {
            v = (v << 6) | value(b)?;
        }
        v <<= 6 * pad as u32;
        out.extend_from_slice(&v.to_be_bytes()[1..4 - pad]);
    }
    (out.len() == size).then_some(out)
}

/// Encodes SPIR-V words as Fossilize does (for tests and fixtures).
pub fn encode_varint(spirv: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for c in spirv.chunks_exact(4) {
        let mut w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        while w >= 0x80 {
            out.push((w as u8 & 0x7F) | 0x80);
            w >>= 7;
        }
        out.push(w as u8);
    }
    out
}

/// `0123456789abcdef`: a hash as Fossilize names it (16 hex digits), the
/// name of a module's entry in reports (`FILE@0123456789abcdef`).
pub fn hash_name(hash: u64) -> String {
    format!("{hash:016x}")
}

/// A use of a module by a pipeline: `(stage, entry point)`.
pub type Use = (u32, String);

/// The modules a pipeline entry uses: `(module hash, stage, entry point)`.
pub fn pipeline_uses(payload: &[u8], at: u64) -> Result<Vec<(u64, Use)>> {
    let (text, _) = split(payload);
    let doc = json(text, at)?;
    let mut out = Vec::new();
    let mut stage = |s: &serde_json::Value| {
        let module = s.get("module").and_then(|m| m.as_str()).and_then(|m| u64::from_str_radix(m, 16).ok());
        let bits = s.get("stage").and_then(|v| v.as_u64()).and_then(|v| u32::try_from(v).ok());
        let name = s.get("name").and_then(|v| v.as_str()).unwrap_or("");
        if let (Some(m), Some(bits)) = (module, bits) {
            out.push((m, (bits, name.chars().take(256).collect())));
        }
    };
    for key in ["graphicsPipelines", "computePipelines", "raytracingPipelines"] {
        let Some(pipes) = doc.get(key).and_then(|p| p.as_object()) else { continue };
        for p in pipes.values() {
            if let Some(s) = p.get("stage") {
                stage(s);
            }
            for s in p.get("stages").and_then(|s| s.as_array()).into_iter().flatten() {
                stage(s);
            }
        }
    }
    Ok(out)
}

/// The Vulkan name of a shader stage bit (`VkShaderStageFlagBits`).
pub fn stage_name(bits: u32) -> String {
    let name = match bits {
        0x1 => "vertex",
        0x2 => "tessellation control",
        0x4 => "tessellation evaluation",
        0x8 => "geometry",
        0x10 => "fragment",
        0x20 => "compute",
        0x40 => "task",
        0x80 => "mesh",
        0x100 => "raygen",
        0x200 => "any-hit",
        0x400 => "closest-hit",
        0x800 => "miss",
        0x1000 => "intersection",
        0x2000 => "callable",
        _ => return format!("stage 0x{bits:X}"),
    };
    name.to_string()
}

/// Every module's uses, from the pipeline entries of the database. Pipeline
/// entries that cannot be decoded are skipped here (their errors are not the
/// modules'). Charged to `budget` (decompressed bytes).
pub fn module_uses(bytes: &[u8], db: &Database, budget: &mut u64) -> HashMap<u64, Vec<Use>> {
    let mut uses: HashMap<u64, Vec<Use>> = HashMap::new();
    for e in &db.entries {
        if !matches!(e.tag, TAG_GRAPHICS_PIPELINE | TAG_COMPUTE_PIPELINE | TAG_RAYTRACING_PIPELINE) {
            continue;
        }
        let Some(left) = budget.checked_sub(u64::from(e.size)) else { break };
        *budget = left;
        let Ok(payload) = e.payload(bytes) else { continue };
        for (module, u) in pipeline_uses(&payload, e.offset).unwrap_or_default() {
            let list = uses.entry(module).or_default();
            if list.len() < limits::MAX_FOSSILIZE_MODULE_USES && !list.contains(&u) {
                list.push(u);
            }
        }
    }
    uses
}

/// `SPIR-V module (compute main, fragment main)`: the label of a module
/// whose entry is named by its hash (`FILE@0123456789abcdef`, [`hash_name`]).
pub fn module_label(uses: Option<&Vec<Use>>) -> String {
    let mut s = "SPIR-V module".to_string();
    if let Some(u) = uses.filter(|u| !u.is_empty()) {
        let list: Vec<String> = u.iter().map(|(bits, name)| format!("{} {name}", stage_name(*bits))).collect();
        s.push_str(&format!(" ({})", list.join(", ")));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varint_round_trip_and_bounds() {
        let words: Vec<u8> =
            [0x0723_0203u32, 0, 127, 128, 16383, 16384, u32::MAX].iter().flat_map(|w| w.to_le_bytes()).collect();
        let enc = encode_varint(&words);
        assert_eq!(enc.len(), 4 + 1 + 1 + 2 + 2 + 3 + 5);
        assert_eq!(decode_varint(&enc, 7), Some(words));
        // Wrong word counts, trailing bytes, a word running off the end, a
        // word over 32 bits.
        assert_eq!(decode_varint(&enc, 6), None);
        assert_eq!(decode_varint(&enc, 8), None);
        assert_eq!(decode_varint(&enc[..enc.len() - 1], 7), None);
        assert_eq!(decode_varint(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x01], 1), None);
        // More words than bytes is refused before allocating.
        assert_eq!(decode_varint(&[0; 4], 1 << 40), None);
    }

    #[test]
    fn base64_as_fossilize_writes_it() {
        assert_eq!(decode_base64(b"AwIjBw==", 4), Some(vec![3, 2, 0x23, 7]));
        assert_eq!(decode_base64(b"AwIjBwAA", 6), Some(vec![3, 2, 0x23, 7, 0, 0]));
        assert_eq!(decode_base64(b"AwIjBwA=", 5), Some(vec![3, 2, 0x23, 7, 0]));
        assert_eq!(decode_base64(b"+/+/", 3), Some(vec![0xFB, 0xFF, 0xBF]));
        // The wrong size, padding inside the text, a stray character, a length
        // that is not a multiple of 4, a size the text cannot hold.
        assert_eq!(decode_base64(b"AwIjBw==", 8), None);
        assert_eq!(decode_base64(b"Aw==AwIj", 4), None);
        assert_eq!(decode_base64(b"AwI*Bw==", 4), None);
        assert_eq!(decode_base64(b"AwIjBw=", 4), None);
        assert_eq!(decode_base64(b"A===", 0), None);
        assert_eq!(decode_base64(b"AAAA", usize::MAX), None);
    }

    #[test]
    fn hex_names() {
        assert_eq!(hex(b"000000000000000000000004"), Some(4));
        assert_eq!(hex(b"00000000deadbeef"), Some(0xDEAD_BEEF));
        assert_eq!(hex(b"0000000000000000000000g4"), None);
        assert_eq!(hex(b"100000000000000000000004"), None);
    }

    #[test]
    fn stage_names() {
        assert_eq!(
            module_label(Some(&vec![(0x20, "main".into()), (0x10, "ps".into())])),
            "SPIR-V module (compute main, fragment ps)"
        );
        assert_eq!(module_label(None), "SPIR-V module");
        assert_eq!(hash_name(0xAB), "00000000000000ab");
        assert_eq!(stage_name(0x4000), "stage 0x4000");
    }
}

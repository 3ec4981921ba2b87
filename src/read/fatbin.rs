//! CUDA fat binaries: the containers nvcc writes to a `.fatbin` file, to the
//! `.nv_fatbin` section of an executable, shared library or object, and to the
//! `__nv_relfatbin` section of a relocatable (`-rdc`) object.
//!
//! No public specification exists; the layout below is what nvcc 13.5 writes
//! (checked on the fixtures in `tests/fixtures/fatbin`) and what open readers
//! (`cuda-fatbin-decompression`, `nvopen-tools`) describe. All integers are
//! little-endian.
//!
//! ```text
//! container  u32 magic 0xBA55ED50, u16 version 1, u16 header size 16,
//!            u64 size of the entries that follow
//! entry      +0  u16 kind (1 PTX, 2 ELF/SASS, 8 LTO-IR, 0x100 concatenated group)
//!            +4  u32 header size (64..; the payload follows the header)
//!            +8  u64 payload size (stored, padded)
//!            +16 u32 compressed size          +20 u32 offset of the options pair
//!            +24 u16 minor, +26 u16 major     +28 u32 arch (80 = sm_80 / compute_80)
//!            +32 u32 name offset, +36 length  +40 u64 flags (0x2000 LZ4, 0x8000 zstd)
//!            +56 u64 decompressed size
//!            options pair: u32 offset, u32 length of the ptxas options text
//! group      (kind 0x100, `nvcc --concat`) its options pair is (member count,
//!            table size); the member headers follow it, each with the
//!            member's offset in the group's decompressed payload at +4
//! ```
//!
//! [`scan`] finds every container in a file by its magic, at any offset,
//! in time linear in the file size. A candidate must have version 1 and a
//! 16-byte header and fit the file; where the caller says a container is
//! expected (a stand-alone fatbin, or inside a `.nv_fatbin` section) a
//! candidate that fails is an error, elsewhere it is dropped as a false hit.
//! Every header size, payload range and member range is checked against its
//! container before use; entry counts and nesting are limited
//! ([`limits::MAX_FATBIN_ENTRIES`], [`limits::MAX_FATBIN_NESTING`]).
//! Decompression is [`super::decompress`], bounded by the declared size.

use super::decompress::{self, Codec};
use super::error::{ErrorKind, ReadError, Result};
use super::limits;
use std::borrow::Cow;
use std::ops::Range;

/// The container magic.
pub const MAGIC: u32 = 0xBA55_ED50;
/// Entry flag: the payload is an LZ4 block.
pub const FLAG_LZ4: u64 = 0x2000;
/// Entry flag: the payload is a zstd frame.
pub const FLAG_ZSTD: u64 = 0x8000;
const KIND_PTX: u16 = 1;
const KIND_ELF: u16 = 2;
const KIND_LTO: u16 = 8;
const KIND_GROUP: u16 = 0x100;
const ENTRY_MIN: u64 = 64;

/// What an entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntryKind {
    /// PTX text.
    Ptx,
    /// A cubin (SASS in an ELF file).
    Sass,
    /// LTO-IR (NVVM bitcode for link-time optimisation).
    LtoIr,
    /// A kind this reader does not know.
    Other(u16),
}

impl EntryKind {
    fn from_u16(k: u16) -> Self {
        match k {
            KIND_PTX => EntryKind::Ptx,
            KIND_ELF => EntryKind::Sass,
            KIND_LTO => EntryKind::LtoIr,
            k => EntryKind::Other(k),
        }
    }

    /// `PTX`, `SASS`, `LTO-IR` or `kind 0x40`.
    pub fn name(self) -> String {
        match self {
            EntryKind::Ptx => "PTX".into(),
            EntryKind::Sass => "SASS".into(),
            EntryKind::LtoIr => "LTO-IR".into(),
            EntryKind::Other(k) => format!("kind 0x{k:X}"),
        }
    }
}

/// One entry of a fatbin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Byte offset of the entry's header in the file.
    pub offset: u64,
    /// What it holds.
    pub kind: EntryKind,
    /// The architecture number (`80` for `sm_80` / `compute_80`).
    pub arch: u32,
    /// The version the header names: the PTX ISA version of a PTX entry
    /// (`(9, 5)`), the cubin format of a SASS entry.
    pub version: (u16, u16),
    /// The header's flags.
    pub flags: u64,
    /// The payload's encoding.
    pub codec: Codec,
    /// The stored payload: a range of the file, or for a member of a
    /// concatenated group, of the group's decompressed payload.
    pub data: Range<u64>,
    /// Size of the payload once decompressed.
    pub decompressed: u64,
    /// The source file the header names (`-G` builds), if any.
    pub name: Option<String>,
    /// The ptxas options the header carries (`--compile-only`), if any.
    pub options: Option<String>,
    /// For a member of a concatenated group: the group's index in
    /// [`Scan::groups`].
    pub group: Option<usize>,
}

impl Entry {
    /// `compute_80` for PTX, `sm_80` for SASS, `lto_80` for LTO-IR.
    pub fn arch_name(&self) -> String {
        match self.kind {
            EntryKind::Ptx => format!("compute_{}", self.arch),
            EntryKind::LtoIr => format!("lto_{}", self.arch),
            _ => format!("sm_{}", self.arch),
        }
    }
}

/// A concatenated group (`nvcc --concat`): one compressed payload holding
/// the payloads of its members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// Byte offset of the group's header in the file.
    pub offset: u64,
    /// The stored (compressed) payload in the file.
    pub data: Range<u64>,
    /// Its encoding.
    pub codec: Codec,
    /// Size once decompressed.
    pub decompressed: u64,
}

/// What [`scan`] found in a file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scan {
    /// Every container: its byte range in the file.
    pub containers: Vec<Range<u64>>,
    /// Every entry, in file order (members of a group after its header).
    pub entries: Vec<Entry>,
    /// Concatenated groups.
    pub groups: Vec<Group>,
    /// Containers (or the rest of one) that could not be read.
    pub errors: Vec<ReadError>,
    /// Where the scan stopped early and why (the entry limit).
    pub stopped: Option<(u64, String)>,
}

fn u16_at(b: &[u8], at: u64) -> Option<u16> {
    let at = usize::try_from(at).ok()?;
    let s = b.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([s[0], s[1]]))
}

fn u32_at(b: &[u8], at: u64) -> Option<u32> {
    let at = usize::try_from(at).ok()?;
    let s = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

fn u64_at(b: &[u8], at: u64) -> Option<u64> {
    let at = usize::try_from(at).ok()?;
    let s = b.get(at..at.checked_add(8)?)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(s);
    Some(u64::from_le_bytes(a))
}

/// True when `bytes` starts with a fatbin container header.
pub fn is_fatbin(bytes: &[u8]) -> bool {
    u32_at(bytes, 0) == Some(MAGIC) && u16_at(bytes, 4) == Some(1) && u16_at(bytes, 6) == Some(16)
}

/// The architecture of a bare cubin (an ELF file for `EM_CUDA`): `Some(90)`
/// for sm_90.
pub fn cubin_arch(bytes: &[u8]) -> Option<u32> {
    if bytes.get(0..4) != Some(b"\x7FELF") || bytes.get(5) != Some(&1) {
        return None;
    }
    if u16_at(bytes, 18) != Some(190) {
        return None;
    }
    let flags = match bytes.get(4) {
        Some(2) => u32_at(bytes, 48)?,
        Some(1) => u32_at(bytes, 36)?,
        _ => return None,
    };
    // CUDA ELF ABI version 0x41 (CUDA 12.x and later) moved the SM number up a byte.
    Some(if bytes.get(7) == Some(&0x41) { (flags >> 8) & 0xFF } else { flags & 0xFF })
}

/// Finds every fatbin container in `bytes` and lists its entries.
/// `expected(offset)` says whether a container is expected at that offset
/// (the file is a fatbin, or the offset is inside a `.nv_fatbin` section):
/// there a damaged candidate is an error, elsewhere it is dropped.
pub fn scan(bytes: &[u8], expected: &dyn Fn(u64) -> bool) -> Scan {
    let mut out = Scan::default();
    let mut i = 0usize;
    let magic = MAGIC.to_le_bytes();
    while i + 16 <= bytes.len() {
        let Some(rel) = bytes.get(i..).and_then(|s| s.iter().position(|&b| b == magic[0])) else { break };
        i += rel;
        if bytes.get(i..i + 4) != Some(&magic[..]) {
            i += 1;
            continue;
        }
        let at = i as u64;
        let strict = expected(at);
        match container_at(bytes, at, &mut out) {
            Ok(Some(end)) => i = end as usize,
            Ok(None) => i += 1,
            Err((e, end)) => {
                if strict {
                    out.errors.push(e.context(format!("fatbin container at 0x{at:X}")));
                    i = end.map_or(i + 1, |e| e as usize);
                } else {
                    i += 1;
                }
            }
        }
        if out.stopped.is_some() {
            break;
        }
    }
    out
}

/// Reads the container at `at`. `Ok(None)`: not a container header at all
/// (silently dropped even where one is expected only if the magic is a
/// coincidence: version or header size wrong). On an error, the entries read
/// so far are discarded and the end of the container is returned when its
/// size was readable.
fn container_at(bytes: &[u8], at: u64, out: &mut Scan) -> std::result::Result<Option<u64>, (ReadError, Option<u64>)> {
    let len = bytes.len() as u64;
    let (Some(version), Some(hsize), Some(size)) =
        (u16_at(bytes, at + 4), u16_at(bytes, at + 6), u64_at(bytes, at + 8))
    else {
        return Err((ReadError::eof(at, "container header (16 bytes)"), None));
    };
    if version != 1 || hsize != 16 {
        return Err((
            ReadError::new(
                ErrorKind::Unsupported,
                at,
                format!("container version {version} with a {hsize}-byte header (only version 1, 16 bytes, is known)"),
            ),
            None,
        ));
    }
    let end = at.checked_add(16).and_then(|s| s.checked_add(size)).filter(|e| *e <= len).ok_or_else(|| {
        (
            ReadError::eof(at, format!("the container declares {size} bytes of entries, {} are left", len - at - 16)),
            None,
        )
    })?;
    let (n_entries, n_groups) = (out.entries.len(), out.groups.len());
    let mut pos = at + 16;
    let mut result = Ok(());
    while pos < end {
        match entry_at(bytes, pos, end, out) {
            Ok(next) => pos = next,
            Err(e) => {
                result = Err(e);
                break;
            }
        }
        if out.stopped.is_some() {
            break;
        }
    }
    match result {
        Ok(()) => {
            out.containers.push(at..end);
            Ok(Some(end))
        }
        Err(e) => {
            out.entries.truncate(n_entries);
            out.groups.truncate(n_groups);
            Err((e, Some(end)))
        }
    }
}

/// One entry header at `pos` (inside a container ending at `end`); returns
/// the offset after its payload.
fn entry_at(bytes: &[u8], pos: u64, end: u64, out: &mut Scan) -> Result<u64> {
    if end - pos < ENTRY_MIN {
        return Err(ReadError::eof(pos, format!("entry header (64 bytes), {} left in the container", end - pos)));
    }
    let h = Header::read(bytes, pos, end - pos)?;
    let header_len = u64::from(h.header_size);
    if !(ENTRY_MIN..=limits::MAX_FATBIN_ENTRY_HEADER).contains(&header_len) || header_len > end - pos {
        return Err(ReadError::new(
            ErrorKind::BadSize,
            pos + 4,
            format!("entry header size {header_len} (64 to {} in this container)", end - pos),
        ));
    }
    let data_start = pos + header_len;
    let data_end = data_start.checked_add(h.payload).filter(|e| *e <= end).ok_or_else(|| {
        ReadError::new(
            ErrorKind::BadSize,
            pos + 8,
            format!("entry payload of {} bytes runs past the container ({} left)", h.payload, end - data_start),
        )
    })?;
    let (codec, stored) = h.codec(pos)?;
    if stored > h.payload {
        return Err(ReadError::new(
            ErrorKind::BadSize,
            pos + 16,
            format!("compressed size {stored} is larger than the payload ({} bytes)", h.payload),
        ));
    }
    if h.kind == KIND_GROUP {
        return group_at(bytes, pos, &h, data_start..data_start + stored, codec, out).map(|()| data_end);
    }
    push_entry(out, pos, &h, codec, data_start..data_start + stored, bytes, None)?;
    Ok(data_end)
}

/// The fields of one entry header.
struct Header {
    kind: u16,
    header_size: u32,
    payload: u64,
    compressed: u32,
    options_pair: u32,
    version: (u16, u16),
    arch: u32,
    name: (u32, u32),
    flags: u64,
    decompressed: u64,
}

impl Header {
    fn read(b: &[u8], pos: u64, avail: u64) -> Result<Header> {
        let eof = || ReadError::eof(pos, format!("entry header (64 bytes), {avail} left"));
        Ok(Header {
            kind: u16_at(b, pos).ok_or_else(eof)?,
            header_size: u32_at(b, pos + 4).ok_or_else(eof)?,
            payload: u64_at(b, pos + 8).ok_or_else(eof)?,
            compressed: u32_at(b, pos + 16).ok_or_else(eof)?,
            options_pair: u32_at(b, pos + 20).ok_or_else(eof)?,
            version: (u16_at(b, pos + 26).ok_or_else(eof)?, u16_at(b, pos + 24).ok_or_else(eof)?),
            arch: u32_at(b, pos + 28).ok_or_else(eof)?,
            name: (u32_at(b, pos + 32).ok_or_else(eof)?, u32_at(b, pos + 36).ok_or_else(eof)?),
            flags: u64_at(b, pos + 40).ok_or_else(eof)?,
            decompressed: u64_at(b, pos + 56).ok_or_else(eof)?,
        })
    }

    /// The encoding and stored size of the payload.
    fn codec(&self, pos: u64) -> Result<(Codec, u64)> {
        let codec = match (self.flags & FLAG_LZ4 != 0, self.flags & FLAG_ZSTD != 0) {
            (false, false) => return Ok((Codec::None, self.payload)),
            (true, false) => Codec::Lz4,
            (false, true) => Codec::Zstd,
            (true, true) => {
                return Err(ReadError::new(
                    ErrorKind::Unsupported,
                    pos + 40,
                    format!("entry flags 0x{:X} name both LZ4 and zstd compression", self.flags),
                ))
            }
        };
        Ok((codec, u64::from(self.compressed)))
    }

    /// The text at (offset, length) inside this header of `len` bytes at `pos`.
    fn text(b: &[u8], pos: u64, len: u64, off: u32, n: u32) -> Option<String> {
        let (off, n) = (u64::from(off), u64::from(n));
        if n == 0 || off < ENTRY_MIN || off.checked_add(n)? > len {
            return None;
        }
        let s = b.get(usize::try_from(pos + off).ok()?..usize::try_from(pos + off + n).ok()?)?;
        let s = String::from_utf8_lossy(s);
        let s = s.trim_end_matches(['\0', ' ']).trim();
        (!s.is_empty()).then(|| s.to_string())
    }

    /// The options text, through the options pair.
    fn options(&self, b: &[u8], pos: u64, len: u64) -> Option<String> {
        let p = u64::from(self.options_pair);
        if p < ENTRY_MIN || p + 8 > len {
            return None;
        }
        Self::text(b, pos, len, u32_at(b, pos + p)?, u32_at(b, pos + p + 4)?)
    }
}

fn push_entry(
    out: &mut Scan,
    pos: u64,
    h: &Header,
    codec: Codec,
    data: Range<u64>,
    bytes: &[u8],
    group: Option<usize>,
) -> Result<()> {
    if out.entries.len() >= limits::MAX_FATBIN_ENTRIES {
        out.stopped = Some((pos, format!("more than {} fatbin entries in one file", limits::MAX_FATBIN_ENTRIES)));
        return Ok(());
    }
    let header_len = if group.is_some() { member_header_len(bytes, pos, h) } else { u64::from(h.header_size) };
    let decompressed = if codec == Codec::None { data.end - data.start } else { h.decompressed };
    out.entries.push(Entry {
        offset: pos,
        kind: EntryKind::from_u16(h.kind),
        arch: h.arch,
        version: h.version,
        flags: h.flags,
        codec,
        data,
        decompressed,
        name: Header::text(bytes, pos, header_len, h.name.0, h.name.1),
        options: h.options(bytes, pos, header_len),
        group,
    });
    Ok(())
}

/// The length of a member header of a concatenated group: 64 bytes, plus its
/// options pair and text with a NUL, rounded up to 8 (as nvcc lays out every
/// entry header).
fn member_header_len(bytes: &[u8], pos: u64, h: &Header) -> u64 {
    let p = u64::from(h.options_pair);
    if p < ENTRY_MIN {
        return ENTRY_MIN;
    }
    let (Some(off), Some(len)) = (u32_at(bytes, pos + p), u32_at(bytes, pos + p + 4)) else { return ENTRY_MIN };
    let end = (u64::from(off).max(p + 8)).saturating_add(u64::from(len)).saturating_add(1);
    end.saturating_add(7) & !7
}

/// A concatenated group at `pos`: its member table, then its members.
fn group_at(bytes: &[u8], pos: u64, h: &Header, data: Range<u64>, codec: Codec, out: &mut Scan) -> Result<()> {
    let header_end = pos + u64::from(h.header_size);
    let table = pos + u64::from(h.options_pair);
    let (Some(count), Some(table_len)) = (u32_at(bytes, table), u32_at(bytes, table + 4)) else {
        return Err(ReadError::eof(table, "member table of a concatenated entry"));
    };
    if u64::from(h.options_pair) < ENTRY_MIN || table + u64::from(table_len) != header_end || table_len < 8 {
        return Err(ReadError::new(
            ErrorKind::BadSize,
            table,
            format!(
                "member table of {table_len} bytes at header offset {} does not end the {}-byte header",
                h.options_pair, h.header_size
            ),
        ));
    }
    if count as usize > limits::MAX_FATBIN_ENTRIES || u64::from(count) * ENTRY_MIN > u64::from(table_len) {
        return Err(ReadError::new(
            ErrorKind::BadSize,
            table,
            format!("{count} members cannot fit a {table_len}-byte member table"),
        ));
    }
    let decompressed = if codec == Codec::None { data.end - data.start } else { h.decompressed };
    let index = out.groups.len();
    out.groups.push(Group { offset: pos, data, codec, decompressed });
    let mut m = table + 8;
    for i in 0..count {
        let left = header_end - m.min(header_end);
        if left < ENTRY_MIN {
            return Err(ReadError::eof(m, format!("member {i} header (64 bytes), {left} left in the table")));
        }
        let mh = Header::read(bytes, m, left)?;
        if mh.kind == KIND_GROUP {
            return Err(ReadError::limit(
                m,
                format!("a concatenated entry inside another (nesting over {})", limits::MAX_FATBIN_NESTING),
            ));
        }
        if mh.flags & (FLAG_LZ4 | FLAG_ZSTD) != 0 {
            return Err(ReadError::new(
                ErrorKind::Unsupported,
                m + 40,
                format!("member {i} of a concatenated entry is compressed again (flags 0x{:X})", mh.flags),
            ));
        }
        // A member's header-size field is its offset in the group's payload.
        let start = u64::from(mh.header_size);
        let range = start.checked_add(mh.payload).filter(|e| *e <= decompressed).ok_or_else(|| {
            ReadError::new(
                ErrorKind::BadSize,
                m + 4,
                format!(
                    "member {i} at {start}, {} bytes, runs past the group's {decompressed} decompressed bytes",
                    mh.payload
                ),
            )
        })?;
        let len = member_header_len(bytes, m, &mh);
        if len > left {
            return Err(ReadError::eof(m, format!("member {i} header of {len} bytes, {left} left in the table")));
        }
        push_entry(out, m, &mh, Codec::None, start..range, bytes, Some(index))?;
        if out.stopped.is_some() {
            return Ok(());
        }
        m += len;
    }
    if m != header_end {
        return Err(ReadError::new(
            ErrorKind::BadSize,
            m,
            format!("{} bytes left in the member table after {count} members", header_end - m),
        ));
    }
    Ok(())
}

/// A decompressed group payload kept between members of the same group.
#[derive(Debug, Default)]
pub struct GroupCache {
    group: Option<usize>,
    data: Vec<u8>,
}

impl Scan {
    /// The bytes an entry will decompress to, counting a group's whole
    /// payload for its first member (what decoding it costs).
    pub fn cost(&self, e: &Entry, cache: &GroupCache) -> u64 {
        match e.group {
            Some(g) if cache.group == Some(g) => 0,
            Some(g) => self.groups.get(g).map_or(0, |g| g.decompressed),
            None if e.codec == Codec::None => 0,
            None => e.decompressed,
        }
    }

    /// An entry's payload, decompressed (a group's payload is decompressed
    /// once and kept in `cache` for its next member).
    pub fn payload<'a>(&self, bytes: &'a [u8], e: &Entry, cache: &'a mut GroupCache) -> Result<Cow<'a, [u8]>> {
        let range = |r: &Range<u64>| {
            usize::try_from(r.start).unwrap_or(usize::MAX)..usize::try_from(r.end).unwrap_or(usize::MAX)
        };
        match e.group {
            None => {
                let stored = bytes.get(range(&e.data)).ok_or_else(|| ReadError::eof(e.data.start, "entry payload"))?;
                if e.codec == Codec::None {
                    return Ok(Cow::Borrowed(stored));
                }
                decompress::decompress(e.codec, stored, e.decompressed, e.data.start).map(Cow::Owned)
            }
            Some(g) => {
                let group = self.groups.get(g).ok_or_else(|| ReadError::malformed(e.offset, "group index"))?;
                if cache.group != Some(g) {
                    cache.group = None;
                    cache.data = Vec::new();
                    let stored = bytes
                        .get(range(&group.data))
                        .ok_or_else(|| ReadError::eof(group.data.start, "concatenated payload"))?;
                    cache.data = if group.codec == Codec::None {
                        stored.to_vec()
                    } else {
                        decompress::decompress(group.codec, stored, group.decompressed, group.data.start)
                            .map_err(|err| err.context(format!("concatenated entry at 0x{:X}", group.offset)))?
                    };
                    cache.group = Some(g);
                }
                cache
                    .data
                    .get(range(&e.data))
                    .map(Cow::Borrowed)
                    .ok_or_else(|| ReadError::eof(e.offset, "member payload past the group's payload"))
            }
        }
    }
}

/// A PTX payload as text: up to its first NUL (nvcc pads the text with NULs
/// to 8 bytes).
pub fn ptx_text(payload: &[u8]) -> &[u8] {
    let end = payload.iter().position(|&b| b == 0).unwrap_or(payload.len());
    payload.get(..end).unwrap_or(payload)
}

//! Shaders embedded in other files (executables, libraries, pak archives).
//!
//! One linear pass over the bytes looks for the `DXBC` container magic and the
//! SPIR-V magic `0x07230203` in either byte order, at any byte offset. Each hit
//! is validated before it counts, and a false hit is silently dropped:
//!
//! - **DXBC**: the declared container size fits the bytes left, and
//!   [`crate::read::dxbc::parse`] accepts the candidate slice (part table
//!   inside the container, every part inside it), with at least one part,
//!   printable FourCCs, and a part DXC or FXC writes (see
//!   [`crate::read::dxbc::Container::no_program`]).
//! - **SPIR-V**: version 1.0–1.6, id bound > 0 (and within the reader's limit),
//!   schema 0, first instruction `OpCapability`, an `OpMemoryModel` inside the
//!   module (the logical layout requires one). The instruction stream is then
//!   walked by word count until a word count of 0, an instruction that runs
//!   past the end of the file, another SPIR-V magic, or — right after an
//!   `OpFunctionEnd` — anything but `OpFunction`, `OpExtInst`, `OpLine` or
//!   `OpNoLine` (nothing else may follow a function). The module ends after
//!   the last `OpFunctionEnd` (or `OpGraphEndARM`) of that walk; a module
//!   without either ends after the longest run of known opcodes.
//!
//! Nothing past a blob's declared size is ever read, and scanning resumes after
//! each accepted blob. For ELF, PE and Mach-O files the section holding each
//! blob is named from the section headers, read by a bounded walk ([`sections`]);
//! headers that do not parse only lose the section names.

use crate::check::InputKind;
use crate::read::dxbc::{self, FourCc};
use crate::read::limits;
use std::ops::Range;

/// One shader found inside a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blob {
    /// Byte offset in the file.
    pub offset: u64,
    /// Size in bytes.
    pub len: u64,
    /// `Dxil`, `Dxbc` (legacy container) or `Spirv`.
    pub kind: InputKind,
    /// The object-file section holding it, when the file is ELF/PE/Mach-O.
    pub section: Option<String>,
}

impl Blob {
    /// The blob's byte range in the file.
    pub fn range(&self) -> Range<usize> {
        self.offset as usize..(self.offset + self.len) as usize
    }
}

const SPIRV_MAGIC: u32 = 0x0723_0203;
const OP_CAPABILITY: u32 = 17;
const OP_MEMORY_MODEL: u32 = 14;
const OP_FUNCTION_END: u32 = 56;
const OP_FUNCTION: u32 = 54;
const OP_EXT_INST: u32 = 12;
const OP_LINE: u32 = 8;
const OP_NO_LINE: u32 = 317;
const OP_GRAPH_ARM: u32 = 4183;
const OP_GRAPH_END_ARM: u32 = 4186;

/// Finds every embedded shader, in file order (see [`scan_bounded`]).
pub fn scan(bytes: &[u8]) -> Vec<Blob> {
    scan_bounded(bytes).blobs
}

/// What [`scan_bounded`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scan {
    /// The shaders found, in file order.
    pub blobs: Vec<Blob>,
    /// Where the scan stopped early and why, when a limit was reached: the
    /// bytes from there on were not scanned.
    pub stopped: Option<(u64, String)>,
}

/// Finds embedded shaders in time linear in the file size. Each candidate
/// header's validation is charged to one work allowance for the file
/// ([`limits::EMBEDDED_SCAN_WORK_PER_BYTE`] per byte plus
/// [`limits::EMBEDDED_SCAN_SLACK`]); a file of crafted headers whose instruction
/// walks overlap exhausts it and the scan stops there, as it does after
/// [`limits::MAX_EMBEDDED_BLOBS`] shaders. Real files, whose accepted blobs are
/// skipped over, stay far below both.
pub fn scan_bounded(bytes: &[u8]) -> Scan {
    let mut out = Scan::default();
    let mut budget = (bytes.len() as u64)
        .saturating_mul(limits::EMBEDDED_SCAN_WORK_PER_BYTE)
        .saturating_add(limits::EMBEDDED_SCAN_SLACK);
    let mut i = 0usize;
    while i + 4 <= bytes.len() {
        let found = match bytes.get(i) {
            Some(b'D') => dxbc_at(bytes, i, &mut budget),
            Some(0x03) | Some(0x07) => spirv_at(bytes, i, &mut budget),
            _ => Ok(None),
        };
        match found {
            Ok(Some((len, kind))) => {
                if out.blobs.len() >= limits::MAX_EMBEDDED_BLOBS {
                    out.stopped = Some((
                        i as u64,
                        format!("more than {} embedded shaders in one file", limits::MAX_EMBEDDED_BLOBS),
                    ));
                    break;
                }
                out.blobs.push(Blob { offset: i as u64, len: len as u64, kind, section: None });
                i += len.max(1);
            }
            Ok(None) => i += 1,
            Err(Exhausted) => {
                out.stopped = Some((
                    i as u64,
                    "the scan's work limit was reached (many overlapping candidate shader headers)".to_string(),
                ));
                break;
            }
        }
    }
    if !out.blobs.is_empty() {
        let sections = sections(bytes);
        for b in &mut out.blobs {
            b.section =
                sections.iter().find(|(_, r)| r.start <= b.offset && b.offset < r.end).map(|(name, _)| name.clone());
        }
    }
    out
}

/// The scan's work allowance ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Exhausted;

/// Takes `n` units from the allowance.
fn charge(budget: &mut u64, n: u64) -> Result<(), Exhausted> {
    *budget = budget.checked_sub(n).ok_or(Exhausted)?;
    Ok(())
}

fn u32_le(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// A valid DXBC container at `at`: its size and kind.
fn dxbc_at(bytes: &[u8], at: usize, budget: &mut u64) -> Result<Option<(usize, InputKind)>, Exhausted> {
    if bytes.get(at..at + 4) != Some(b"DXBC") {
        return Ok(None);
    }
    // Parsing reads the part table: charge its declared length first.
    let parts = u32_le(bytes, at + 28).map_or(0, |n| n.min(limits::MAX_PARTS));
    charge(budget, 1 + u64::from(parts))?;
    Ok(dxbc_candidate(bytes, at))
}

fn dxbc_candidate(bytes: &[u8], at: usize) -> Option<(usize, InputKind)> {
    let size = u32_le(bytes, at + 24)? as usize;
    if size < 32 || size as u64 > limits::MAX_CONTAINER_BYTES {
        return None;
    }
    let slice = bytes.get(at..at.checked_add(size)?)?;
    let c = dxbc::parse(slice, at as u64).ok()?;
    if c.parts.is_empty() || !c.parts.iter().all(|p| p.fourcc.0.to_le_bytes().iter().all(u8::is_ascii_alphanumeric)) {
        return None;
    }
    let kind = if c.part(FourCc::DXIL).is_some() || c.part(FourCc::ILDB).is_some() {
        InputKind::Dxil
    } else if c.no_program().is_ok() {
        InputKind::Dxbc
    } else {
        // No part any compiler writes: not a container, a false hit.
        return None;
    };
    Some((size, kind))
}

/// A plausible SPIR-V module at `at`: its length and kind. Every instruction
/// walked is charged to the scan's allowance.
fn spirv_at(bytes: &[u8], at: usize, budget: &mut u64) -> Result<Option<(usize, InputKind)>, Exhausted> {
    let mut walked = 0u64;
    let found = spirv_walk(bytes, at, *budget, &mut walked);
    charge(budget, walked.max(1))?;
    Ok(found)
}

/// The walk behind [`spirv_at`]; it stops once `walked` passes `allowance`.
fn spirv_walk(bytes: &[u8], at: usize, allowance: u64, walked: &mut u64) -> Option<(usize, InputKind)> {
    let raw = u32_le(bytes, at)?;
    let big_endian = match raw {
        SPIRV_MAGIC => false,
        m if m.swap_bytes() == SPIRV_MAGIC => true,
        _ => return None,
    };
    let word = |index: usize| -> Option<u32> {
        let w = u32_le(bytes, at.checked_add(index.checked_mul(4)?)?)?;
        Some(if big_endian { w.swap_bytes() } else { w })
    };
    let version = word(1)?;
    let (major, minor) = ((version >> 16) & 0xFF, (version >> 8) & 0xFF);
    if version & 0xFF00_00FF != 0 || major != 1 || minor > 6 {
        return None;
    }
    let bound = word(3)?;
    if bound == 0 || bound > limits::MAX_SPIRV_ID_BOUND || word(4)? != 0 {
        return None;
    }
    // Words available from `at` to the end of the file.
    let total_words = (bytes.len() - at) / 4;
    let mut pos = 5usize;
    // End of the last function (or ARM graph), and end of the run of
    // instructions with opcodes the `spirv` crate knows (the fallback end for
    // a module without functions).
    let mut last_unit_end: Option<usize> = None;
    let mut known_end: Option<usize> = None;
    let mut all_known = true;
    // End of the first OpMemoryModel: a module has one (the logical layout
    // requires it), so a candidate without it is not a module.
    let mut memory_model_end: Option<usize> = None;
    while pos < total_words {
        *walked += 1;
        if *walked > allowance {
            return None;
        }
        let w = word(pos)?;
        if w == SPIRV_MAGIC || w.swap_bytes() == SPIRV_MAGIC {
            break;
        }
        let (count, opcode) = ((w >> 16) as usize, w & 0xFFFF);
        if count == 0 || pos + count > total_words {
            break;
        }
        if pos == 5 && opcode != OP_CAPABILITY {
            return None;
        }
        // After a function (or graph) only another one, or line / non-semantic
        // debug instructions, may follow; anything else is past the module.
        if last_unit_end.is_some_and(|e| e == pos)
            && !matches!(opcode, OP_FUNCTION | OP_GRAPH_ARM | OP_EXT_INST | OP_LINE | OP_NO_LINE)
        {
            break;
        }
        pos += count;
        if opcode == OP_MEMORY_MODEL && memory_model_end.is_none() {
            memory_model_end = Some(pos);
        }
        all_known &= spirv::Op::from_u32(opcode).is_some();
        if all_known {
            known_end = Some(pos);
        }
        if opcode == OP_FUNCTION_END || opcode == OP_GRAPH_END_ARM {
            last_unit_end = Some(pos);
        }
    }
    let end_words = last_unit_end.or(known_end)?;
    if memory_model_end.is_none_or(|m| m > end_words) {
        return None;
    }
    Some((end_words * 4, InputKind::Spirv))
}

/// File-backed sections of an ELF, PE or Mach-O file: `(name, file range)`.
/// Empty for other files or when the headers do not parse.
///
/// Only the section headers are read, by a bounded walk of our own: a full
/// object parser (goblin parses PE exports, ELF symbols and relocations,
/// Mach-O export tries) does work the labels do not need, some of it
/// superlinear on crafted files. At most [`limits::MAX_HOST_SECTIONS`]
/// sections are read; each header is read once, so the walk is linear in the
/// file size.
pub fn sections(bytes: &[u8]) -> Vec<(String, Range<u64>)> {
    let mut out = Vec::new();
    let mut push = |name: &[u8], offset: u64, size: u64| {
        let name = name.split(|&b| b == 0).next().unwrap_or(&[]);
        if size > 0 && !name.is_empty() && out.len() < limits::MAX_HOST_SECTIONS {
            out.push((String::from_utf8_lossy(name).into_owned(), offset..offset.saturating_add(size)));
        }
    };
    match bytes.get(0..4) {
        Some([0x7F, b'E', b'L', b'F']) => elf_sections(bytes, &mut push),
        Some([b'M', b'Z', _, _]) => pe_sections(bytes, &mut push),
        _ => macho_sections(bytes, &mut push),
    };
    out
}

/// Little- or big-endian field reads at an offset (`None` past the end).
struct Fields<'a> {
    b: &'a [u8],
    big: bool,
}

impl Fields<'_> {
    fn get<const N: usize>(&self, at: u64) -> Option<[u8; N]> {
        let at = usize::try_from(at).ok()?;
        let s = self.b.get(at..at.checked_add(N)?)?;
        let mut a: [u8; N] = s.try_into().ok()?;
        if self.big {
            a.reverse();
        }
        Some(a)
    }
    fn u16(&self, at: u64) -> Option<u64> {
        self.get::<2>(at).map(|a| u64::from(u16::from_le_bytes(a)))
    }
    fn u32(&self, at: u64) -> Option<u64> {
        self.get::<4>(at).map(|a| u64::from(u32::from_le_bytes(a)))
    }
    fn u64(&self, at: u64) -> Option<u64> {
        self.get::<8>(at).map(u64::from_le_bytes)
    }
    fn bytes(&self, at: u64, n: usize) -> Option<&[u8]> {
        let at = usize::try_from(at).ok()?;
        self.b.get(at..at.checked_add(n)?)
    }
}

/// ELF section headers (`e_shoff`, `e_shnum`, names from `e_shstrndx`);
/// `SHT_NOBITS` sections hold no file bytes and are left out.
fn elf_sections(bytes: &[u8], push: &mut impl FnMut(&[u8], u64, u64)) -> Option<()> {
    let is64 = match bytes.get(4)? {
        1 => false,
        2 => true,
        _ => return None,
    };
    let big = *bytes.get(5)? == 2;
    let f = Fields { b: bytes, big };
    let (shoff, shentsize, shnum, shstrndx) = if is64 {
        (f.u64(0x28)?, f.u16(0x3A)?, f.u16(0x3C)?, f.u16(0x3E)?)
    } else {
        (f.u32(0x20)?, f.u16(0x2E)?, f.u16(0x30)?, f.u16(0x32)?)
    };
    let min = if is64 { 0x40 } else { 0x28 };
    if shentsize < min {
        return None;
    }
    // (offset, size, type) of header `i`; the name offset is read separately.
    let header = |i: u64| -> Option<(u64, u64, u64, u64)> {
        let h = shoff.checked_add(i.checked_mul(shentsize)?)?;
        if is64 {
            Some((f.u32(h)?, f.u32(h + 4)?, f.u64(h + 0x18)?, f.u64(h + 0x20)?))
        } else {
            Some((f.u32(h)?, f.u32(h + 4)?, f.u32(h + 0x10)?, f.u32(h + 0x14)?))
        }
    };
    // Extended numbering: the real counts live in section 0.
    let (shnum, shstrndx) = match (shnum, shstrndx) {
        (0, _) | (_, 0xFFFF) if shoff != 0 => {
            let h = shoff;
            let n = if shnum == 0 {
                if is64 {
                    f.u64(h + 0x20)?
                } else {
                    f.u32(h + 0x14)?
                }
            } else {
                shnum
            };
            let x = if shstrndx == 0xFFFF { f.u32(h + if is64 { 0x2C } else { 0x1C })? } else { shstrndx };
            (n, x)
        }
        other => other,
    };
    let shnum = shnum.min(limits::MAX_HOST_SECTIONS as u64);
    let strtab = header(shstrndx).map(|(_, _, off, size)| (off, size));
    for i in 0..shnum {
        let Some((name, ty, off, size)) = header(i) else { break };
        if ty == 8 {
            continue; // SHT_NOBITS
        }
        let name = strtab
            .filter(|&(_, size)| name < size)
            .and_then(|(base, size)| {
                let start = base.checked_add(name)?;
                let n = usize::try_from(size - name).ok()?.min(256);
                f.bytes(start, n).or_else(|| f.bytes(start, bytes.len().saturating_sub(start as usize).min(n)))
            })
            .unwrap_or(&[]);
        push(name, off, size);
    }
    Some(())
}

/// PE/COFF section table (`PointerToRawData`, `SizeOfRawData`, 8-byte names).
fn pe_sections(bytes: &[u8], push: &mut impl FnMut(&[u8], u64, u64)) -> Option<()> {
    let f = Fields { b: bytes, big: false };
    let pe = f.u32(0x3C)?;
    if f.bytes(pe, 4)? != b"PE\0\0" {
        return None;
    }
    let coff = pe + 4;
    let count = f.u16(coff + 2)?.min(limits::MAX_HOST_SECTIONS as u64);
    let table = coff + 20 + f.u16(coff + 16)?;
    for i in 0..count {
        let h = table + i * 40;
        let (Some(name), Some(size), Some(off)) = (f.bytes(h, 8), f.u32(h + 16), f.u32(h + 20)) else { break };
        push(name, off, size);
    }
    Some(())
}

/// Mach-O `LC_SEGMENT` / `LC_SEGMENT_64` sections, named `segment,section`
/// (thin files; a fat file's slices are not labelled).
fn macho_sections(bytes: &[u8], push: &mut impl FnMut(&[u8], u64, u64)) -> Option<()> {
    let magic = u32::from_le_bytes(bytes.get(0..4)?.try_into().ok()?);
    let (is64, big) = match magic {
        0xFEED_FACE => (false, false),
        0xFEED_FACF => (true, false),
        0xCEFA_EDFE => (false, true),
        0xCFFA_EDFE => (true, true),
        _ => return None,
    };
    let f = Fields { b: bytes, big };
    let ncmds = f.u32(16)?;
    let mut at: u64 = if is64 { 32 } else { 28 };
    let mut sections = 0usize;
    for _ in 0..ncmds {
        let (cmd, size) = (f.u32(at)?, f.u32(at + 4)?);
        if size < 8 {
            return Some(());
        }
        let (seg64, nsects_at, first, sect_size) = match cmd {
            0x1 => (false, at + 48, at + 56, 68),
            0x19 => (true, at + 64, at + 72, 80),
            _ => {
                at = at.checked_add(size)?;
                continue;
            }
        };
        let nsects = f.u32(nsects_at)?;
        for k in 0..nsects {
            if sections >= limits::MAX_HOST_SECTIONS {
                return Some(());
            }
            sections += 1;
            let s = first + k * sect_size;
            if s + sect_size > at + size {
                break;
            }
            let (Some(sect), Some(seg)) = (f.bytes(s, 16), f.bytes(s + 16, 16)) else { return Some(()) };
            let (size, off) = if seg64 { (f.u64(s + 40)?, f.u32(s + 48)?) } else { (f.u32(s + 36)?, f.u32(s + 40)?) };
            let trim = |b: &[u8]| b.split(|&c| c == 0).next().unwrap_or(&[]).to_vec();
            let mut name = trim(seg);
            name.push(b',');
            name.extend(trim(sect));
            push(&name, off, size);
        }
        at = at.checked_add(size)?;
    }
    Some(())
}

/// `irlint dump --blobs` text for one file: one line per blob with offset,
/// size, kind and section.
pub fn render_blobs(path: &str, blobs: &[Blob]) -> String {
    let mut out = format!("{path}: {} embedded shader{}\n", blobs.len(), if blobs.len() == 1 { "" } else { "s" });
    for b in blobs {
        let kind = serde_json::to_value(b.kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        out.push_str(&format!("  offset 0x{:08X}  size {:>9}  {kind:<6}", b.offset, b.len));
        if let Some(s) = &b.section {
            out.push_str(&format!("  section {s}"));
        }
        out.push('\n');
    }
    out
}

/// `irlint dump --blobs --format json` entry for one file.
pub fn blobs_json(path: &str, blobs: &[Blob]) -> serde_json::Value {
    serde_json::json!({
        "path": path,
        "blobs": blobs.iter().map(|b| serde_json::json!({
            "offset": b.offset,
            "size": b.len,
            "kind": b.kind,
            "section": b.section,
        })).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spirv_words(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// Header + OpCapability Shader + OpFunction... OpFunctionEnd.
    fn tiny_module() -> Vec<u32> {
        vec![
            SPIRV_MAGIC,
            0x0001_0300,
            0,
            10,
            0,
            (2 << 16) | OP_CAPABILITY,
            1,
            (3 << 16) | OP_MEMORY_MODEL,
            0,
            1,
            (5 << 16) | 54, // OpFunction
            1,
            2,
            0,
            3,
            (2 << 16) | 248, // OpLabel
            4,
            (1 << 16) | 253, // OpReturn
            (1 << 16) | OP_FUNCTION_END,
        ]
    }

    #[test]
    fn spirv_module_ends_after_last_function_end() {
        let mut bytes = vec![0xAAu8; 3];
        bytes.extend(spirv_words(&tiny_module()));
        // Junk that parses as one more instruction (word count 1, opcode 0x1234).
        bytes.extend(spirv_words(&[0x0001_1234]));
        bytes.extend([0xFF; 5]);
        let blobs = scan(&bytes);
        assert_eq!(blobs, vec![Blob { offset: 3, len: 19 * 4, kind: InputKind::Spirv, section: None }]);
    }

    #[test]
    fn back_to_back_modules_at_any_alignment() {
        for gap in 0..4 {
            let mut bytes = spirv_words(&tiny_module());
            bytes.extend(vec![0x99u8; gap]);
            bytes.extend(spirv_words(&tiny_module()));
            let got: Vec<_> = scan(&bytes).iter().map(|b| (b.offset, b.len)).collect();
            assert_eq!(got, [(0, 76), (76 + gap as u64, 76)], "gap {gap}");
        }
    }

    #[test]
    fn module_without_functions_ends_at_known_opcodes() {
        // Header, OpCapability, OpMemoryModel, then a word with an unknown opcode.
        let mut m = tiny_module()[..7].to_vec();
        m.extend([(3 << 16) | 14, 0, 1]);
        m.extend([(1 << 16) | 0xFFF0, 0]);
        let blobs = scan(&spirv_words(&m));
        assert_eq!((blobs[0].offset, blobs[0].len), (0, 40));
    }

    #[test]
    fn big_endian_spirv() {
        let mut bytes = vec![0u8; 1];
        bytes.extend(tiny_module().iter().flat_map(|w| w.to_be_bytes()));
        let blobs = scan(&bytes);
        assert_eq!(blobs.len(), 1);
        assert_eq!((blobs[0].offset, blobs[0].len), (1, 76));
    }

    #[test]
    fn false_spirv_magic_is_dropped() {
        let mut m = tiny_module();
        m[4] = 1; // schema must be 0
        assert!(scan(&spirv_words(&m)).is_empty());
        let mut m = tiny_module();
        m[1] = 0x0001_0700; // version 1.7
        assert!(scan(&spirv_words(&m)).is_empty());
        let mut m = tiny_module();
        m[5] = (2 << 16) | 5; // first instruction is not OpCapability
        assert!(scan(&spirv_words(&m)).is_empty());
        // Just the magic at the end of the file.
        assert!(scan(&[0, 3, 2, 0x23, 7]).is_empty());
        // No OpMemoryModel: not a module (a header and a capability are 28 bytes
        // any binary may hold by chance).
        let mut m = tiny_module();
        m.drain(7..10);
        assert!(scan(&spirv_words(&m)).is_empty());
    }

    #[test]
    fn false_dxbc_magic_is_dropped() {
        let mut b = b"DXBC".to_vec();
        b.extend([0u8; 20]);
        b.extend(100u32.to_le_bytes()); // size past the end
        b.extend(1u32.to_le_bytes());
        assert!(scan(&b).is_empty());
        assert!(scan(b"xxDXBC").is_empty());
    }
}

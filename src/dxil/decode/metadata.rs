//! METADATA blocks (formats.md §B.7) and debug locations (§F.1).

use super::{chars, field, Decoder};
use crate::dxil::llvm::{MdId, Metadata};
use crate::ir::{DebugLoc, LocH, SourceFile};
use crate::read::bitstream::{Cursor, Item};
use crate::read::{limits, ReadError, Result};
use rustc_hash::FxHashMap;

/// `ops[i] - 1`, `None` for 0 (the "+1" reference convention).
#[inline]
fn ref1(ops: &[u64], i: usize) -> Option<MdId> {
    match field(ops, i) {
        0 => None,
        v => Some((v - 1) as MdId),
    }
}

impl Decoder {
    pub(super) fn metadata_block(&mut self, rd: &mut Cursor<'_>) -> Result<()> {
        let mut pending_name: Option<String> = None;
        self.metadata.reserve((rd.block_remaining_bits() / 24).min(1 << 16) as usize);
        while let Some(item) = rd.next_item()? {
            self.off = rd.record_offset();
            let code = match item {
                Item::End => return Ok(()),
                Item::Enter(_) => {
                    rd.skip_block()?;
                    continue;
                }
                Item::Record(code) => code,
            };
            let ops = rd.ops();
            let md = match code {
                1 => Metadata::String(ops.iter().map(|&c| c as u8).collect()),
                2 => {
                    if ops.len() != 2 {
                        return Err(self.bad("METADATA_VALUE record needs 2 operands"));
                    }
                    let ty = self.ty(ops[0])?;
                    let Some(&(value, _)) = self.vals.get(ops[1] as usize) else {
                        return Err(self.bad(format!("METADATA_VALUE refers to undefined value {}", ops[1])));
                    };
                    Metadata::Value { ty, value }
                }
                3 | 5 => Metadata::Node {
                    distinct: code == 5,
                    ops: ops.iter().map(|&v| if v == 0 { None } else { Some((v - 1) as MdId) }).collect(),
                },
                4 => {
                    pending_name = Some(chars(ops));
                    continue;
                }
                10 => {
                    let Some(name) = pending_name.take() else {
                        return Err(self.bad("METADATA_NAMED_NODE without a preceding NAME"));
                    };
                    self.named.push((name, ops.iter().map(|&v| v as MdId).collect()));
                    continue;
                }
                // KIND [id, name...]: no MD id.
                6 => {
                    if let Some((&id, name)) = ops.split_first() {
                        if self.kinds.is_empty() {
                            // DXC writes ~30 kinds of ~12 characters.
                            self.kinds.reserve(40);
                            self.kind_text.reserve(512);
                        }
                        let start = self.kind_text.len();
                        self.kind_text.extend(name.iter().map(|&c| char::from(c as u8)));
                        if self.kind_text.len() <= u32::MAX as usize {
                            self.kinds.push((id as u32, start as u32, self.kind_text.len() as u32));
                        }
                    }
                    continue;
                }
                7 => Metadata::Location {
                    line: field(ops, 1) as u32,
                    column: field(ops, 2) as u32,
                    scope: ops.get(3).map(|&v| v as MdId),
                    inlined_at: ref1(ops, 4),
                },
                16 => Metadata::File { filename: ref1(ops, 1), directory: ref1(ops, 2) },
                21 => Metadata::Subprogram {
                    scope: ref1(ops, 1),
                    name: ref1(ops, 2),
                    file: ref1(ops, 4),
                    line: field(ops, 5) as u32,
                },
                22 => Metadata::LexicalBlock {
                    scope: ref1(ops, 1),
                    file: ref1(ops, 2),
                    line: field(ops, 3) as u32,
                    column: field(ops, 4) as u32,
                },
                23 => Metadata::LexicalBlock { scope: ref1(ops, 1), file: ref1(ops, 2), line: 0, column: 0 },
                8 | 9 | 12..=15 | 17..=20 | 24..=32 => Metadata::Other { code, ops: ops.to_vec() },
                // Unknown records define nothing (as in LLVM 3.7).
                _ => continue,
            };
            if self.metadata.len() >= limits::MAX_METADATA {
                return Err(ReadError::limit(self.off, format!("more than {} metadata nodes", limits::MAX_METADATA)));
            }
            self.metadata.push(md);
        }
        Err(ReadError::eof(rd.offset(), "bitcode ends inside a METADATA_BLOCK"))
    }

    fn md_string(&self, id: Option<MdId>) -> Option<&[u8]> {
        match self.metadata.get(id? as usize)? {
            Metadata::String(s) => Some(s),
            _ => None,
        }
    }

    /// The source file index of a scope (DISubprogram / DILexicalBlock(File) / DIFile).
    pub(crate) fn scope_file(&mut self, scope: Option<MdId>) -> u32 {
        let Some(scope) = scope else { return self.file_named("<unknown>".to_string()) };
        if let Some(&f) = self.scope_files.get(&scope) {
            return f;
        }
        let mut cur = Some(scope);
        let mut file_md: Option<MdId> = None;
        for _ in 0..limits::MAX_RECURSION {
            let Some(id) = cur else { break };
            match self.metadata.get(id as usize) {
                Some(Metadata::File { .. }) => {
                    file_md = Some(id);
                    break;
                }
                Some(Metadata::Subprogram { file: Some(f), .. })
                | Some(Metadata::LexicalBlock { file: Some(f), .. }) => {
                    file_md = Some(*f);
                    break;
                }
                Some(Metadata::Subprogram { scope, .. }) | Some(Metadata::LexicalBlock { scope, .. }) => cur = *scope,
                _ => break,
            }
        }
        let idx = match file_md.and_then(|f| self.metadata.get(f as usize)) {
            Some(Metadata::File { filename, directory }) => {
                let key = (*filename, *directory);
                match self.file_by_md.get(&key) {
                    Some(&idx) => idx,
                    None => {
                        let file = self.md_string(key.0).unwrap_or(b"");
                        let dir = self.md_string(key.1).unwrap_or(b"");
                        let idx = self.file_named(join_path(dir, file));
                        self.file_by_md.insert(key, idx);
                        idx
                    }
                }
            }
            _ => self.file_named("<unknown>".to_string()),
        };
        self.scope_files.insert(scope, idx);
        idx
    }

    /// Interns a source-file name by hash (not by a linear search).
    pub(crate) fn file_named(&mut self, name: String) -> u32 {
        if let Some(&f) = self.file_by_name.get(&name) {
            return f;
        }
        let f = self.m.source_files.len() as u32;
        self.m.source_files.push(SourceFile { name: name.clone(), text: None });
        self.file_by_name.insert(name, f);
        f
    }

    /// A location from DEBUG_LOC operands.
    pub(crate) fn make_loc(&mut self, line: u32, column: u32, scope: Option<MdId>, ia: Option<MdId>) -> LocH {
        let file = self.scope_file(scope);
        let inlined_at = ia.and_then(|ia| self.md_loc(ia, 0));
        self.m.add_loc(DebugLoc { file, line, column, inlined_at })
    }

    /// The LocH for a DILocation MD node (inlinedAt chains), cached.
    fn md_loc(&mut self, id: MdId, depth: u32) -> Option<LocH> {
        if let Some(&l) = self.md_locs.get(&id) {
            return Some(l);
        }
        if depth >= limits::MAX_RECURSION {
            return None;
        }
        let Some(Metadata::Location { line, column, scope, inlined_at }) = self.metadata.get(id as usize) else {
            return None;
        };
        let (line, column, scope, inlined_at) = (*line, *column, *scope, *inlined_at);
        let file = self.scope_file(scope);
        let parent = inlined_at.and_then(|p| self.md_loc(p, depth + 1));
        let l = self.m.add_loc(DebugLoc { file, line, column, inlined_at: parent });
        self.md_locs.insert(id, l);
        Some(l)
    }

    /// Fills `SourceFile::text` from `dx.source.contents` (or `llvm.dbg.contents`).
    pub(super) fn embed_sources(&mut self) {
        let list = match self.named_ops("dx.source.contents").or_else(|| self.named_ops("llvm.dbg.contents")) {
            Some(l) => l.to_vec(),
            None => return,
        };
        // The last node naming a file wins; earlier ones are never copied. Nodes
        // naming one file by one MD string are found by id, without decoding it.
        let mut by_name_md: FxHashMap<MdId, usize> = FxHashMap::default();
        let mut chosen: Vec<(MdId, MdId)> = Vec::new();
        for node in list {
            let Some(Metadata::Node { ops, .. }) = self.metadata.get(node as usize) else { continue };
            let (Some(name), Some(text)) = (ops.first().copied().flatten(), ops.get(1).copied().flatten()) else {
                continue;
            };
            if self.md_string(Some(name)).is_none() || self.md_string(Some(text)).is_none() {
                continue;
            }
            match by_name_md.get(&name) {
                Some(&k) => {
                    if let Some(c) = chosen.get_mut(k) {
                        c.1 = text;
                    }
                }
                None => {
                    by_name_md.insert(name, chosen.len());
                    chosen.push((name, text));
                }
            }
        }
        let mut copied = 0u64;
        for (name, text) in chosen {
            let (Some(name), Some(bytes)) = (self.md_string(Some(name)), self.md_string(Some(text))) else { continue };
            let name = String::from_utf8_lossy(name).into_owned();
            // Every copy is charged to the module's allowance before it is made.
            let total = copied.saturating_add(bytes.len() as u64);
            if total > limits::MAX_SOURCE_TEXT_BYTES {
                let n = limits::MAX_SOURCE_TEXT_BYTES;
                self.remark(|| format!("embedded source text past {n} bytes dropped (from {name} on)"));
                break;
            }
            copied = total;
            let text = String::from_utf8_lossy(bytes).into_owned();
            let idx = self.file_named(name) as usize;
            if let Some(f) = self.m.source_files.get_mut(idx) {
                f.text = Some(text);
            }
        }
    }
}

/// `directory + filename` (filename alone when absolute or the directory is empty).
fn join_path(dir: &[u8], file: &[u8]) -> String {
    let file = String::from_utf8_lossy(file);
    let absolute = file.starts_with('/') || file.starts_with('\\') || file.as_bytes().get(1) == Some(&b':');
    if dir.is_empty() || absolute {
        return file.into_owned();
    }
    let dir = String::from_utf8_lossy(dir);
    if dir.ends_with('/') || dir.ends_with('\\') {
        format!("{dir}{file}")
    } else {
        format!("{dir}/{file}")
    }
}

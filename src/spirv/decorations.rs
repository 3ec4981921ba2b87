//! Names and decorations collected in one pass before lowering, and the
//! storage-buffer / uniform-buffer resource classification that uses them.

use rustc_hash::{FxHashMap, FxHashSet};

use super::reader::{RawInst, Words};
use crate::ir::{Binding, ResourceClass, ResourceKind};

/// Decorations of one id that the lowering uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Deco {
    /// `SpecId`.
    pub spec_id: Option<u32>,
    /// `ArrayStride`.
    pub array_stride: Option<u32>,
    /// `DescriptorSet`.
    pub set: Option<u32>,
    /// `Binding`.
    pub binding: Option<u32>,
    /// `Block`.
    pub block: bool,
    /// `BufferBlock`.
    pub buffer_block: bool,
    /// `NonWritable`.
    pub non_writable: bool,
    /// `BuiltIn`.
    pub builtin: Option<u32>,
    /// The HLSL buffer type `UserTypeGOOGLE` names (DXC `-fspv-reflect`):
    /// `Some(true)` a byte-address buffer, `Some(false)` a structured buffer.
    pub user_type_raw: Option<bool>,
}

impl Deco {
    fn merge(&mut self, o: &Deco) {
        self.spec_id = self.spec_id.or(o.spec_id);
        self.array_stride = self.array_stride.or(o.array_stride);
        self.set = self.set.or(o.set);
        self.binding = self.binding.or(o.binding);
        self.block |= o.block;
        self.buffer_block |= o.buffer_block;
        self.non_writable |= o.non_writable;
        self.builtin = self.builtin.or(o.builtin);
        self.user_type_raw = self.user_type_raw.or(o.user_type_raw);
    }
}

/// Decoration numbers used here.
mod d {
    pub const SPEC_ID: u32 = 1;
    pub const BLOCK: u32 = 2;
    pub const BUFFER_BLOCK: u32 = 3;
    pub const ARRAY_STRIDE: u32 = 6;
    pub const BUILTIN: u32 = 11;
    pub const NON_WRITABLE: u32 = 24;
    pub const OFFSET: u32 = 35;
    pub const BINDING: u32 = 33;
    pub const DESCRIPTOR_SET: u32 = 34;
}

/// Names and decorations by id.
#[derive(Debug, Default)]
pub struct Annotations {
    /// `OpName` instructions by target id (`RawInst::len == 0`: none); grown on demand
    /// up to the id bound.
    pub names: Vec<RawInst>,
    /// The module's id bound.
    pub bound: u32,
    /// Decorations by target id.
    pub decos: FxHashMap<u32, Deco>,
    /// `(struct id, member)` pairs decorated `NonWritable`.
    pub member_non_writable: FxHashSet<(u32, u32)>,
    /// `Offset` of `(struct id, member)`.
    pub member_offsets: FxHashMap<(u32, u32), u32>,
}

impl Annotations {
    /// Decorations of `id` (all unset when none).
    pub fn deco(&self, id: u32) -> Deco {
        self.decos.get(&id).copied().unwrap_or_default()
    }

    /// The `OpName` of `id`, when present and not empty.
    pub fn name(&self, w: &Words, id: u32) -> Option<String> {
        let inst = self.names.get(id as usize).filter(|i| i.len > 0)?;
        let ops = w.operands(*inst);
        let (s, _) = super::reader::string(ops.get(1..)?);
        (!s.is_empty()).then_some(s)
    }

    /// Records one annotation instruction (`OpName`, `OpDecorate`, `OpMemberDecorate`).
    /// Returns false for other opcodes.
    pub fn record(&mut self, w: &Words, inst: RawInst, groups: &mut Vec<RawInst>) -> bool {
        let ops = w.operands(inst);
        match inst.opcode {
            5 => {
                if let Some(&target) = ops.first().filter(|&&t| t < self.bound) {
                    let t = target as usize;
                    if t >= self.names.len() {
                        let want = (t + 1).max(self.names.len() * 2).min(self.bound as usize);
                        self.names.resize(want, RawInst { start: 0, len: 0, opcode: 0 });
                    }
                    if let Some(slot) = self.names.get_mut(t).filter(|s| s.len == 0) {
                        *slot = inst;
                    }
                }
            }
            71 => {
                if let [target, deco, rest @ ..] = ops {
                    let e = self.decos.entry(*target).or_default();
                    let lit = rest.first().copied();
                    match *deco {
                        d::SPEC_ID => e.spec_id = lit,
                        d::BLOCK => e.block = true,
                        d::BUFFER_BLOCK => e.buffer_block = true,
                        d::ARRAY_STRIDE => e.array_stride = lit,
                        d::NON_WRITABLE => e.non_writable = true,
                        d::BUILTIN => e.builtin = lit,
                        d::BINDING => e.binding = lit,
                        d::DESCRIPTOR_SET => e.set = lit,
                        _ => {}
                    }
                }
            }
            72 => match ops {
                [st, member, d::NON_WRITABLE, ..] => {
                    self.member_non_writable.insert((*st, *member));
                }
                [st, member, d::OFFSET, offset, ..] => {
                    self.member_offsets.insert((*st, *member), *offset);
                }
                _ => {}
            },
            74 | 75 => groups.push(inst),
            // OpDecorateString (OpDecorateStringGOOGLE) UserTypeGOOGLE "structuredbuffer:<uint>".
            5632 => {
                if let [target, 5636, rest @ ..] = ops {
                    let (text, _) = super::reader::string(rest);
                    if let Some(raw) = buffer_type_is_raw(&text) {
                        self.decos.entry(*target).or_default().user_type_raw = Some(raw);
                    }
                }
            }
            _ => return false,
        }
        true
    }

    /// Applies `OpGroupDecorate` / `OpGroupMemberDecorate` (deprecated decoration groups).
    pub fn apply_groups(&mut self, w: &Words, groups: &[RawInst]) {
        for g in groups {
            let ops = w.operands(*g);
            let Some((&group, targets)) = ops.split_first() else { continue };
            let deco = self.deco(group);
            if g.opcode == 74 {
                for t in targets {
                    self.decos.entry(*t).or_default().merge(&deco);
                }
            } else if deco.non_writable {
                for pair in targets.chunks_exact(2) {
                    self.member_non_writable.insert((pair[0], pair[1]));
                }
            }
        }
    }
}

/// Whether an HLSL buffer type name (a `UserTypeGOOGLE` string such as
/// `rwstructuredbuffer:<uint>`) is a byte-address buffer (`true`) or a
/// structured buffer (`false`).
pub fn buffer_type_is_raw(name: &str) -> Option<bool> {
    let name = name.to_ascii_lowercase();
    let base = name.split([':', '.', '<']).next().unwrap_or("");
    match base {
        "byteaddressbuffer" | "rwbyteaddressbuffer" => Some(true),
        "structuredbuffer"
        | "rwstructuredbuffer"
        | "appendstructuredbuffer"
        | "consumestructuredbuffer"
        | "rasterizerorderedstructuredbuffer" => Some(false),
        _ => None,
    }
}

/// The same for DXC's block-struct names (`type.RWStructuredBuffer.uint`,
/// `type.ByteAddressBuffer`). Only DXC's `type.` names count: Slang names the
/// block of a `ByteAddressBuffer` `StructuredBuffer`.
pub fn dxc_block_name_is_raw(name: &str) -> Option<bool> {
    buffer_type_is_raw(name.strip_prefix("type.")?)
}

/// What a buffer variable is, from its storage class and the decorations of its
/// block struct. `None` when it is not a buffer resource.
pub struct BufferShape {
    /// Storage class of the variable.
    pub storage_class: u32,
    /// Decorations of the block struct.
    pub struct_deco: Deco,
    /// Decorations of the variable.
    pub var_deco: Deco,
    /// The last member is an array: its stride and whether it is the only member and
    /// a 32-bit unsigned integer array (ByteAddressBuffer shape).
    pub last_array: Option<(Option<u32>, bool)>,
    /// The last member (the array) is `NonWritable`.
    pub last_member_non_writable: bool,
    /// The HLSL type the module names (`UserTypeGOOGLE`, then DXC's block
    /// name): `Some(true)` byte-address, `Some(false)` structured; `None` when
    /// it names none and the kind is guessed from the shape.
    pub declared_raw: Option<bool>,
}

/// Resource class, kind, stride and binding of a buffer, or `None`.
pub fn classify(s: &BufferShape) -> Option<(ResourceClass, ResourceKind, Option<u32>, Binding)> {
    const UNIFORM: u32 = 2;
    const STORAGE_BUFFER: u32 = 12;
    let binding = Binding::Descriptor { set: s.var_deco.set, binding: s.var_deco.binding };
    let is_ssbo = (s.storage_class == STORAGE_BUFFER && (s.struct_deco.block || s.struct_deco.buffer_block))
        || (s.storage_class == UNIFORM && s.struct_deco.buffer_block);
    if is_ssbo {
        let (stride, raw_shape) = s.last_array?;
        // Without a declared type a lone `uint[]` with stride 4 is a guess: a
        // ByteAddressBuffer and a StructuredBuffer<uint> compile to the same shape.
        let raw = s.declared_raw.unwrap_or(raw_shape && stride == Some(4));
        let kind = if raw { ResourceKind::RAW_BUFFER } else { ResourceKind::STRUCTURED_BUFFER };
        let class =
            if s.var_deco.non_writable || s.last_member_non_writable { ResourceClass::Srv } else { ResourceClass::Uav };
        return Some((class, kind, stride, binding));
    }
    if s.storage_class == UNIFORM && s.struct_deco.block {
        return Some((ResourceClass::CBuffer, ResourceKind::CBUFFER, None, binding));
    }
    None
}

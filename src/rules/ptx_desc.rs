//! Shared reading of the PTX descriptors the descriptor rules decode
//! (PTX ISA, tcgen05 and wgmma matrix descriptors): a field is judged only when every value the
//! dataflow admits for it is invalid, so a field with no known bit, or one that
//! admits a valid value, never fires.

use crate::analysis::{AbsValue, Admitted, KnownBits};

/// Bits of the tcgen05 / wgmma shared-memory matrix descriptor.
pub const SMEM_DESC_BITS: u32 = 64;
/// Bits of the tcgen05 instruction descriptor.
pub const IDESC_BITS: u32 = 32;

/// The field's known bits (`None` for ⊥ or a field with no known bit).
pub fn field_bits(v: &AbsValue, lo: u32, len: u32, bits: u32) -> Option<KnownBits> {
    let f = v.field(lo, len, bits);
    let kb = f.known_bits(len)?;
    (kb.known() != 0).then_some(kb)
}

/// The values the field admits when at least one of its bits is known and
/// they are at most 16; `None` otherwise.
pub fn admitted(v: &AbsValue, lo: u32, len: u32, bits: u32) -> Option<Admitted> {
    // As `field_bits`, on the one field value.
    let field = v.field(lo, len, bits);
    if field.known_bits(len)?.known() == 0 {
        return None;
    }
    let vals = field.admitted(len, 4)?;
    (!vals.is_empty()).then_some(vals)
}

/// The admitted values of the field when every one of them is invalid.
pub fn all_invalid(v: &AbsValue, lo: u32, len: u32, bits: u32, invalid: impl Fn(u64) -> bool) -> Option<Admitted> {
    let vals = admitted(v, lo, len, bits)?;
    vals.iter().all(|x| invalid(*x)).then_some(vals)
}

/// The known-one bits of a field that must be zero (`None` when none is known
/// to be 1: then zero is admitted).
pub fn known_ones(v: &AbsValue, lo: u32, len: u32, bits: u32) -> Option<u64> {
    let kb = field_bits(v, lo, len, bits)?;
    (kb.one != 0).then_some(kb.one)
}

/// `5`, `5 or 7` (the values a field admits).
pub fn values_text(v: &[u64]) -> String {
    super::or_list(v)
}

/// The field as a JSON value: its constant, or the set it admits.
pub fn values_json(v: &[u64]) -> crate::report::FindingValue {
    match v {
        [x] => crate::report::FindingValue::Int(*x),
        _ => crate::report::FindingValue::Set(v.to_vec()),
    }
}

/// Name of the tcgen05 layout / swizzle type (bits 61–63).
pub fn tcgen05_layout_name(x: u64) -> &'static str {
    match x {
        0 => "SWIZZLE_NONE",
        1 => "SWIZZLE_128B_BASE32B",
        2 => "SWIZZLE_128B",
        4 => "SWIZZLE_64B",
        6 => "SWIZZLE_32B",
        _ => "undefined",
    }
}

/// One decoded field: name, first bit, width.
pub type FieldSpec = (&'static str, u32, u32);

/// The tcgen05 shared-memory descriptor's fields (PTX ISA "Shared memory
/// descriptor"; CUTLASS `UMMA::SmemDescriptor`).
pub const TCGEN05_SMEM_FIELDS: &[FieldSpec] = &[
    ("start_address", 0, 14),
    ("reserved", 14, 2),
    ("lbo", 16, 14),
    ("reserved", 30, 2),
    ("sbo", 32, 14),
    ("version", 46, 3),
    ("base_offset", 49, 3),
    ("lbo_mode", 52, 1),
    ("reserved", 53, 8),
    ("layout_type", 61, 3),
];

/// The sm_90 `wgmma` shared-memory descriptor's fields (PTX ISA "Matrix
/// Descriptor Format" for wgmma; CUTLASS `GMMA::GmmaDescriptor`).
pub const WGMMA_SMEM_FIELDS: &[FieldSpec] = &[
    ("start_address", 0, 14),
    ("reserved", 14, 2),
    ("lbo", 16, 14),
    ("reserved", 30, 2),
    ("sbo", 32, 14),
    ("reserved", 46, 3),
    ("base_offset", 49, 3),
    ("reserved", 52, 10),
    ("layout_type", 62, 2),
];

/// The tcgen05 instruction descriptor's fields for `.kind::f16`, `::tf32`,
/// `::f8f6f4` and `::i8` (PTX ISA Table 42; CUTLASS `UMMA::InstrDescriptor`).
pub const TCGEN05_IDESC_FIELDS: &[FieldSpec] = &[
    ("sparse_id2", 0, 2),
    ("sparse", 2, 1),
    ("saturate", 3, 1),
    ("d_format", 4, 2),
    ("a_format", 7, 3),
    ("b_format", 10, 3),
    ("negate_a", 13, 1),
    ("negate_b", 14, 1),
    ("a_major", 15, 1),
    ("b_major", 16, 1),
    ("n_dim", 17, 6),
    ("m_dim", 24, 5),
    ("max_shift", 30, 2),
];

/// The block-scaled instruction descriptor's fields (`.kind::mxf8f6f4`,
/// `::mxf4`, `::mxf4nvf4`; CUTLASS `UMMA::InstrDescriptorBlockScaled`).
pub const TCGEN05_IDESC_BLOCK_SCALED_FIELDS: &[FieldSpec] = &[
    ("sparse_id2", 0, 2),
    ("sparse", 2, 1),
    ("b_sf_id", 4, 2),
    ("a_format", 7, 3),
    ("b_format", 10, 3),
    ("negate_a", 13, 1),
    ("negate_b", 14, 1),
    ("a_major", 15, 1),
    ("b_major", 16, 1),
    ("n_dim", 17, 6),
    ("scale_format", 23, 1),
    ("m_dim", 24, 5),
    ("a_sf_id", 29, 2),
    ("k_size", 31, 1),
];

/// Decodes every field of a descriptor value: `name=value` for known fields,
/// `name=?` otherwise (for `irlint dump --ir`).
pub fn decode(v: &AbsValue, fields: &[FieldSpec], bits: u32) -> String {
    let parts: Vec<String> = fields
        .iter()
        .map(|(name, lo, len)| match v.known_field(*lo, *len, bits) {
            Some(x) => format!("{name}={x}"),
            None => format!("{name}=?"),
        })
        .collect();
    parts.join(" ")
}

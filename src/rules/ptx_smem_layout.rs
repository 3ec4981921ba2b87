//! The layout a tcgen05 / wgmma shared-memory matrix descriptor encodes,
//! checked as a whole (shared by `ptx-tcgen05-smem-descriptor` and
//! `wgmma-smem-descriptor`). Every check is proven-only: it fires when every
//! value the dataflow admits for the fields it reads is wrong.
//!
//! - `start_address`: the byte address packed into bits 0–13 as
//!   `(addr >> 4) & 0x3FFF` has known non-zero bits below 16 (the shift drops
//!   them: the operand starts elsewhere than the code computed);
//! - `base_offset`: a swizzled layout whose start address is at the start of
//!   the swizzle pattern (a multiple of 1024, 512 or 256 bytes for 128-, 64-,
//!   32-byte swizzling) has phase 0 there, so a known non-zero base offset
//!   shifts the pattern;
//! - `sbo` / `lbo`: in a K-major operand, the 8-row groups (stride SBO) of a
//!   swizzled layout overlap inside one swizzle atom when SBO is below the
//!   atom's size, and the core matrices of a non-swizzled one overlap when SBO
//!   or LBO is below 128 bytes or both are equal; and an operand whose last
//!   group (or, without swizzling, second K core matrix) starts past the
//!   shared memory the kernel can have (its static `.shared` size plus the
//!   1 KB the system reserves, else 228 KB) — LBO or SBO written in bytes
//!   instead of 16-byte units.

use super::ptx_desc::{values_json, SMEM_DESC_BITS};
use crate::analysis::{AbsValue, Analysis};
use crate::ir::{BinOp, CastOp, FuncH, InstKind, Module, OpSemantics, Operand, Type, TypeH, Value};
use crate::report::FindingValue;

/// Shared memory a CTA can address on sm_90 / sm_100 (228 KB per SM; 227 KB
/// for one block plus the 1 KB reserved for the system).
pub const MAX_SHARED_BYTES: u64 = 228 * 1024;
/// Shared memory the system reserves at the start of a CTA's window.
const RESERVED_SHARED_BYTES: u64 = 1024;

/// The swizzle of a descriptor's layout type, as bytes per swizzled row
/// (`0` for no swizzling; `None` for an undefined or unknown type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// tcgen05 (layout type in bits 61–63).
    Tcgen05,
    /// wgmma (layout type in bits 62–63).
    Wgmma,
}

impl Family {
    fn swizzle_bytes(self, v: &AbsValue) -> Option<u64> {
        match self {
            Family::Tcgen05 => match v.known_field(61, 3, SMEM_DESC_BITS)? {
                0 => Some(0),
                1 | 2 => Some(128),
                4 => Some(64),
                6 => Some(32),
                _ => None,
            },
            Family::Wgmma => match v.known_field(62, 2, SMEM_DESC_BITS)? {
                0 => Some(0),
                1 => Some(128),
                2 => Some(64),
                _ => Some(32),
            },
        }
    }
}

/// What the instruction says about one descriptor operand.
#[derive(Debug, Clone, Copy)]
pub struct Operand8 {
    /// The operand is known K-major.
    pub k_major: bool,
    /// Rows of the operand in its M / N dimension (known), else `None`.
    pub rows: Option<u64>,
}

/// The most a start address plus a span may reach in this module: the static
/// `.shared` variables' total size plus the reserved kilobyte when there are
/// some and none is unsized (`extern .shared … []`, dynamic shared memory),
/// else [`MAX_SHARED_BYTES`].
pub fn shared_limit(m: &Module) -> u64 {
    let mut total: u64 = 0;
    let mut any = false;
    for (_, g) in m.globals.iter() {
        if g.space != 3 {
            continue;
        }
        any = true;
        match type_size(m, g.value_ty, 0) {
            Some(s) if s > 0 => total = total.saturating_add(s),
            _ => return MAX_SHARED_BYTES,
        }
    }
    if !any {
        // No shared variable: the addresses come from elsewhere.
        return MAX_SHARED_BYTES;
    }
    total.saturating_add(RESERVED_SHARED_BYTES).min(MAX_SHARED_BYTES)
}

fn type_size(m: &Module, ty: TypeH, depth: u32) -> Option<u64> {
    if depth > 8 {
        return None;
    }
    match m.types.try_get(ty)? {
        Type::Int { bits } => Some(u64::from(*bits).div_ceil(8)),
        Type::Float { bits } => Some(u64::from(*bits).div_ceil(8)),
        Type::Array { elem, count, .. } => type_size(m, *elem, depth + 1)?.checked_mul((*count)?),
        _ => None,
    }
}

/// The byte address a descriptor's start field was computed from: the `x` of
/// `(x >> 4) & 0x3FFF` found through `or`, `and`, `zext` / `trunc` (the forms
/// compilers use: Triton's `bfe.u32 %r, %addr, 4, 14`, CUTLASS's shift, mask
/// and `mov.b64 {lo, hi}`, an [`OpSemantics::Pack`]).
fn start_source(m: &Module, f: FuncH, v: Value, depth: u32) -> Option<Value> {
    if depth > 8 {
        return None;
    }
    let Value::Inst(h) = v else { return None };
    let inst = m.functions.try_get(f)?.insts.try_get(h)?;
    match &inst.kind {
        InstKind::Binary { op: BinOp::LShr, lhs, rhs } if m.const_int(*rhs) == Some(4) => Some(*lhs),
        InstKind::Binary { op: BinOp::Or, lhs, rhs } => {
            start_source(m, f, *lhs, depth + 1).or_else(|| start_source(m, f, *rhs, depth + 1))
        }
        InstKind::Binary { op: BinOp::And, lhs, rhs } => {
            let keeps_start = |c: Option<u64>| c.is_some_and(|c| c & 0x3FFF == 0x3FFF);
            if keeps_start(m.const_int(*rhs)) {
                start_source(m, f, *lhs, depth + 1)
            } else if keeps_start(m.const_int(*lhs)) {
                start_source(m, f, *rhs, depth + 1)
            } else {
                None
            }
        }
        InstKind::Cast { op: CastOp::ZExt | CastOp::Trunc, value } => start_source(m, f, *value, depth + 1),
        // `mov.b64 {lo, hi}`: the field (bits 0-13) is in the lowest element.
        InstKind::Other { opcode, operands } if m.op_semantics(*opcode) == OpSemantics::Pack => {
            let bits = match m.types.try_get(inst.ty)? {
                Type::Int { bits } => u32::from(*bits),
                _ => return None,
            };
            let n = u32::try_from(operands.len()).ok().filter(|n| *n > 0)?;
            if bits / n < 14 {
                return None;
            }
            start_source(m, f, *operands.first()?, depth + 1)
        }
        _ => None,
    }
}

/// Runs the layout checks on one descriptor: `(field, message, value)`.
pub fn check(
    m: &Module,
    a: &Analysis,
    f: FuncH,
    desc: Operand,
    family: Family,
    op: Operand8,
) -> Vec<(&'static str, String, FindingValue)> {
    let mut out = Vec::new();
    let v = a.value(m, f, desc);
    let bits = SMEM_DESC_BITS;
    // start_address: the address before `>> 4`.
    if let Operand::Value(dv) = desc {
        if let Some(src) = start_source(m, f, dv, 0) {
            let addr = a.value(m, f, Operand::Value(src));
            if let Some(low) = addr.field(0, 4, 64).admitted(4, 4) {
                if !low.is_empty() && low.iter().all(|x| *x != 0) {
                    out.push((
                        "start_address",
                        format!(
                            "start_address (bits 0-13) built from a shared address that is {} mod 16 ({}); `>> 4` drops those bytes, so the operand is read from 16-byte-aligned {}",
                            super::or_list(&low),
                            addr.describe(),
                            if low.len() == 1 { "address below it" } else { "addresses below them" }
                        ),
                        values_json(&low),
                    ));
                }
            }
        }
    }
    let Some(sw) = family.swizzle_bytes(&v) else { return out };
    let start = v.field(0, 14, bits);
    let start_min = start.known_bits(14).map_or(0, |k| k.umin());
    // base_offset: a start address at the start of its swizzle pattern has
    // phase 0 there, so a non-zero base offset shifts the pattern. (The
    // converse is not checked: DeepGEMM starts operands 256 bytes into the
    // 1024-byte pattern with base offset 0, relying on the hardware taking
    // the phase from the address bits.)
    if sw > 0 {
        let pattern_units = sw * 8 / 16; // 64, 32, 16 units of 16 bytes
        let at_start = start.known_bits(14).is_some_and(|k| {
            let low = pattern_units - 1;
            k.zero & low == low
        });
        if let (true, Some(offs)) = (at_start, v.field(49, 3, bits).admitted(3, 3)) {
            if !offs.is_empty() && offs.iter().all(|o| *o != 0) {
                out.push((
                    "base_offset",
                    format!(
                        "base_offset (bits 49-51) = {}, but the start address ({}) is at the start of its {}-byte swizzle pattern, where the base offset is 0 ((addr >> 7) & {})",
                        super::or_list(&offs),
                        describe_start(&start),
                        sw * 8,
                        sw / 16 - 1
                    ),
                    values_json(&offs),
                ));
            }
        }
    }
    if !op.k_major {
        return out;
    }
    let groups = op.rows.map_or(1, |r| r / 8);
    let sbo = v.field(32, 14, bits).known_bits(14).map(|k| (k.umin(), k.umax(14)));
    let lbo = v.field(16, 14, bits).known_bits(14).map(|k| (k.umin(), k.umax(14)));
    let limit = shared_limit(m);
    if groups >= 2 {
        if let Some((smin, smax)) = sbo {
            let atom = if sw > 0 { 8 * sw } else { 128 };
            if smax * 16 < atom {
                out.push((
                    "sbo",
                    format!(
                        "sbo (bits 32-45) = {} ({} bytes): the {groups} groups of 8 rows overlap inside one {atom}-byte {} (SBO must be at least {} in 16-byte units)",
                        fmt_range(smin, smax),
                        fmt_range(smin * 16, smax * 16),
                        if sw > 0 { "swizzle atom" } else { "core matrix" },
                        atom / 16
                    ),
                    FindingValue::Int(smin),
                ));
            } else {
                let reach = start_min * 16 + (groups - 1) * smin * 16;
                if reach >= limit {
                    out.push((
                        "sbo",
                        format!(
                            "sbo (bits 32-45) = {} ({} bytes): the last of {groups} groups of 8 rows starts at byte {reach} or later, past the {limit} bytes of shared memory the kernel can have (LBO and SBO are in 16-byte units)",
                            fmt_range(smin, smax),
                            fmt_range(smin * 16, smax * 16)
                        ),
                        FindingValue::Int(smin),
                    ));
                }
            }
        }
    }
    if sw == 0 {
        if let Some((lmin, lmax)) = lbo {
            let same = sbo.is_some_and(|(a, b)| a == b && lmin == lmax && a == lmin) && groups >= 2;
            if lmax * 16 < 128 || same {
                out.push((
                    "lbo",
                    format!(
                        "lbo (bits 16-29) = {} ({} bytes): the two core matrices along K overlap{} (each is 128 bytes)",
                        fmt_range(lmin, lmax),
                        fmt_range(lmin * 16, lmax * 16),
                        if same { " those of the next 8-row group (LBO = SBO)" } else { "" }
                    ),
                    FindingValue::Int(lmin),
                ));
            } else if start_min * 16 + lmin * 16 >= limit {
                out.push((
                    "lbo",
                    format!(
                        "lbo (bits 16-29) = {} ({} bytes): the second core matrix along K starts at byte {} or later, past the {limit} bytes of shared memory the kernel can have (LBO and SBO are in 16-byte units)",
                        fmt_range(lmin, lmax),
                        fmt_range(lmin * 16, lmax * 16),
                        start_min * 16 + lmin * 16
                    ),
                    FindingValue::Int(lmin),
                ));
            }
        }
    }
    out
}

/// The start field as a byte address (`0 mod 1024`).
fn describe_start(start: &AbsValue) -> String {
    match start.as_const() {
        Some(x) => format!("byte {}", x * 16),
        None => {
            let k = start.known_bits(14).map_or(0, |k| k.low_congruence(14).1);
            let rem = start.known_bits(14).map_or(0, |kb| kb.low_congruence(14).0);
            format!("{} mod {} bytes", rem * 16, 16u64 << k)
        }
    }
}

fn fmt_range(lo: u64, hi: u64) -> String {
    if lo == hi {
        lo.to_string()
    } else {
        format!("{lo} to {hi}")
    }
}

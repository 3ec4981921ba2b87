//! The memory accesses of PTX instructions, read from the instruction word:
//! which operands are addresses, and the alignment the PTX ISA requires of
//! them (§6.4.1 "Addresses as Operands": natural alignment to the access size,
//! the total number of bytes accessed; `cp.async.bulk`: 16 bytes).
//!
//! The PTX lowering records every instruction [`AccessForm::parse`] accepts
//! in [`crate::ir::Function::mem_accesses`]; [`access_operands`] gives the
//! operand list the slots index.

use super::{InstKind, Value};

/// Where the required alignment of an access comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessAlign {
    /// A fixed number of bytes (a power of two, at least 2).
    Bytes(u64),
    /// The constant operand at this slot (`cp.async`'s `cp-size`: 4, 8 or 16).
    Operand(usize),
}

/// The memory access of one PTX instruction word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccessForm {
    /// `ld`, `ldu`, `st`, `st.bulk`, `atom`, `red`, `multimem`, `cp.async`,
    /// `cp.async.bulk`.
    pub family: &'static str,
    /// The state space written in the word (`global`, `shared::cta`, ...), or
    /// `generic` when none is.
    pub space: &'static str,
    /// The slots of the address operands: the first, and `cp.async`'s source
    /// (none for `st.bulk`, whose address the ISA puts no alignment on).
    pub addresses: [Option<usize>; 2],
    /// The alignment every address needs.
    pub align: AccessAlign,
    /// The slot of a byte count that must be a multiple of the alignment
    /// (`cp.async.bulk`'s `size`).
    pub size: Option<usize>,
}

/// The bytes of one element of a PTX type word used by memory instructions;
/// `None` for a word that is not such a type (`L2::128B`, `acc::f32`, `noftz`).
pub fn access_type_bytes(t: &str) -> Option<u64> {
    Some(match t {
        "b8" | "u8" | "s8" | "e4m3" | "e5m2" => 1,
        "b16" | "u16" | "s16" | "f16" | "bf16" | "e4m3x2" | "e5m2x2" => 2,
        "b32" | "u32" | "s32" | "f32" | "f16x2" | "bf16x2" | "e4m3x4" | "e5m2x4" | "tf32" => 4,
        "b64" | "u64" | "s64" | "f64" => 8,
        "b128" => 16,
        _ => return None,
    })
}

/// The state space a modifier names, if it is one.
fn space_word(m: &str) -> Option<&'static str> {
    Some(match m {
        "global" => "global",
        "shared" => "shared",
        "shared::cta" => "shared::cta",
        "shared::cluster" => "shared::cluster",
        "local" => "local",
        "const" => "const",
        "param" => "param",
        "param::entry" => "param::entry",
        "param::func" => "param::func",
        _ => return None,
    })
}

impl AccessForm {
    /// The access of an instruction word, or `None` when it is no memory
    /// access this module describes (tensor copies, `cp.async`
    /// group waits, an access of one byte, a word without a type).
    pub fn parse(word: &str) -> Option<AccessForm> {
        let mut parts = word.split('.');
        let base = parts.next()?;
        let second = parts.clone().next();
        let space = parts.clone().find_map(space_word).unwrap_or("generic");
        match base {
            "ld" | "ldu" | "st" | "atom" | "red" | "multimem" => {
                if base == "st" && second == Some("bulk") {
                    // `st.bulk [a], size, 0`: the ISA states no alignment for
                    // `a`, only that `size` is a multiple of 8.
                    return Some(AccessForm {
                        family: "st.bulk",
                        space,
                        addresses: [None, None],
                        align: AccessAlign::Bytes(8),
                        size: Some(1),
                    });
                }
                if base == "multimem" && !matches!(second, Some("ld_reduce" | "st" | "red")) {
                    return None;
                }
                let mut elem = None;
                let mut count = 1u64;
                for m in parts {
                    match m {
                        "v2" => count = 2,
                        "v4" => count = 4,
                        "v8" => count = 8,
                        _ => {
                            if let Some(b) = access_type_bytes(m) {
                                elem = Some(b);
                            }
                        }
                    }
                }
                let size = elem?.checked_mul(count)?;
                (size > 1 && size.is_power_of_two()).then_some(AccessForm {
                    family: match base {
                        "ld" => "ld",
                        "ldu" => "ldu",
                        "st" => "st",
                        "atom" => "atom",
                        "red" => "red",
                        _ => "multimem",
                    },
                    space,
                    addresses: [Some(0), None],
                    align: AccessAlign::Bytes(size),
                    size: None,
                })
            }
            "cp" => {
                if word.contains(".tensor") {
                    return None;
                }
                let rest: Vec<&str> = parts.take(3).collect();
                let bulk = AccessForm {
                    family: "cp.async.bulk",
                    space,
                    addresses: [Some(0), Some(1)],
                    align: AccessAlign::Bytes(16),
                    size: Some(2),
                };
                match rest.as_slice() {
                    ["async", "ca" | "cg", ..] => Some(AccessForm {
                        family: "cp.async",
                        space,
                        addresses: [Some(0), Some(1)],
                        align: AccessAlign::Operand(2),
                        size: None,
                    }),
                    ["async", "bulk", "prefetch"] => Some(AccessForm {
                        family: "cp.async.bulk",
                        space,
                        addresses: [Some(0), None],
                        align: AccessAlign::Bytes(16),
                        size: Some(1),
                    }),
                    ["async", "bulk", x] if !x.ends_with("_group") => Some(bulk),
                    ["reduce", "async", "bulk"] => Some(bulk),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The slots whose values the access check reads.
    pub fn slots(&self) -> impl Iterator<Item = usize> + '_ {
        let align = match self.align {
            AccessAlign::Operand(s) => Some(s),
            AccessAlign::Bytes(_) => None,
        };
        self.addresses.into_iter().chain([self.size, align]).flatten()
    }
}

/// The operands the slots of an [`AccessForm`] index: a load's or a store's
/// address alone (`ld`/`st` with one address and no extra operand are lowered
/// to `Load`/`Store`), else every operand after the destination.
pub fn access_operands(kind: &InstKind) -> &[Value] {
    match kind {
        InstKind::Load { ptr } | InstKind::Store { ptr, .. } => std::slice::from_ref(ptr),
        InstKind::Other { operands, .. } => operands,
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(word: &str) -> Option<u64> {
        match AccessForm::parse(word)?.align {
            AccessAlign::Bytes(b) => Some(b),
            AccessAlign::Operand(_) => None,
        }
    }

    #[test]
    fn access_sizes() {
        assert_eq!(bytes("ld.shared.v4.b32"), Some(16));
        assert_eq!(bytes("ld.global.nc.L2::128B.v4.f32"), Some(16));
        assert_eq!(bytes("ld.global.v8.f32"), Some(32));
        assert_eq!(bytes("st.global.b128"), Some(16));
        assert_eq!(bytes("ldu.global.v2.f64"), Some(16));
        assert_eq!(bytes("atom.global.add.noftz.f16x2"), Some(4));
        assert_eq!(bytes("atom.shared.cas.b128"), Some(16));
        assert_eq!(bytes("red.global.add.noftz.v2.bf16x2"), Some(8));
        assert_eq!(bytes("multimem.ld_reduce.relaxed.sys.global.add.acc::f32.v4.bf16x2"), Some(16));
        assert_eq!(bytes("multimem.st.relaxed.sys.global.v2.f32"), Some(8));
        assert_eq!(bytes("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32"), Some(16));
        assert_eq!(bytes("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.inc.u32"), Some(4));
        assert_eq!(bytes("ld.global.u8"), None);
        let f = AccessForm::parse("st.bulk.weak.shared::cta").unwrap_or_else(|| panic!("st.bulk"));
        assert_eq!((f.addresses, f.size, f.align), ([None, None], Some(1), AccessAlign::Bytes(8)));
        assert_eq!(AccessForm::parse("multimem.cp.async.bulk.global.shared::cta"), None);
        assert_eq!(AccessForm::parse("cp.async.bulk.tensor.2d.shared::cluster.global.tile"), None);
        assert_eq!(AccessForm::parse("cp.async.bulk.commit_group"), None);
        assert_eq!(AccessForm::parse("cp.async.mbarrier.arrive.b64"), None);
        assert_eq!(AccessForm::parse("ld.global"), None);
    }

    #[test]
    fn spaces_and_slots() {
        let f = AccessForm::parse("ld.v2.u32").unwrap_or_else(|| panic!("ld.v2.u32"));
        assert_eq!((f.family, f.space), ("ld", "generic"));
        let f = AccessForm::parse("cp.async.cg.shared.global").unwrap_or_else(|| panic!("cp.async"));
        assert_eq!((f.space, f.align), ("shared", AccessAlign::Operand(2)));
        assert_eq!(f.slots().collect::<Vec<_>>(), vec![0, 1, 2]);
        let f = AccessForm::parse("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes")
            .unwrap_or_else(|| panic!("bulk"));
        assert_eq!((f.family, f.size, f.align), ("cp.async.bulk", Some(2), AccessAlign::Bytes(16)));
        let f = AccessForm::parse("cp.async.bulk.prefetch.L2.global").unwrap_or_else(|| panic!("prefetch"));
        assert_eq!((f.addresses, f.size), ([Some(0), None], Some(1)));
        let f = AccessForm::parse("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32")
            .unwrap_or_else(|| panic!("reduce"));
        assert_eq!(f.addresses, [Some(0), Some(1)]);
    }
}

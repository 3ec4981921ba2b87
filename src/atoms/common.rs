//! Values shared by several verifiers: swizzles and compilation targets.

use std::fmt;

/// CuTe's `Swizzle<B,M,S>` on byte addresses: XORs the `B` bits at
/// `[M+S, M+S+B)` into `[M, M+B)`. `[3,4,3]` is the 128-byte swizzle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Swizzle {
    /// Number of bits in the mask.
    pub b: u8,
    /// Number of least-significant bits kept constant.
    pub m: u8,
    /// Distance to shift the mask.
    pub s: u8,
}

impl Swizzle {
    /// `Swizzle<b,m,s>`.
    pub const fn new(b: u8, m: u8, s: u8) -> Swizzle {
        Swizzle { b, m, s }
    }

    /// The hardware swizzles of shared-memory descriptors and tensor maps.
    pub const NONE: Swizzle = Swizzle::new(0, 4, 3);
    /// 32-byte swizzle.
    pub const SW32: Swizzle = Swizzle::new(1, 4, 3);
    /// 64-byte swizzle.
    pub const SW64: Swizzle = Swizzle::new(2, 4, 3);
    /// 128-byte swizzle.
    pub const SW128: Swizzle = Swizzle::new(3, 4, 3);
    /// 128-byte swizzle with 32-byte atoms (`SWIZZLE_128B_BASE32B`, UMMA MN-major only).
    pub const SW128_BASE32B: Swizzle = Swizzle::new(2, 5, 2);

    /// The swizzle period in bytes, `2^(B+M+S)` (`None` if it exceeds 2^63).
    pub const fn period(self) -> Option<u64> {
        let bits = self.b as u32 + self.m as u32 + self.s as u32;
        if bits > 63 {
            None
        } else {
            Some(1u64 << bits)
        }
    }
}

impl fmt::Display for Swizzle {
    /// As CuTe prints it: `Sw<3,4,3>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sw<{},{},{}>", self.b, self.m, self.s)
    }
}

/// A target's suffix: none (portable), `a` (architecture-specific), `f` (family).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Suffix {
    /// `sm_100`.
    None,
    /// `sm_100a`.
    A,
    /// `sm_100f`.
    F,
}

/// A PTX compilation target (`sm_100a`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Target {
    /// The SM number (`100` for `sm_100a`).
    pub sm: u16,
    /// The suffix.
    pub suffix: Suffix,
}

impl Target {
    /// `sm_<sm><suffix>`.
    pub const fn new(sm: u16, suffix: Suffix) -> Target {
        Target { sm, suffix }
    }

    /// Parses `sm_100a`, `sm_90`, `sm_120f` (also `compute_…`; case-insensitive prefix).
    pub fn parse(s: &str) -> Option<Target> {
        let t = s.trim();
        let rest = t.strip_prefix("sm_").or_else(|| t.strip_prefix("compute_"))?;
        let (digits, suffix) = match rest.as_bytes().last()? {
            b'a' => (&rest[..rest.len() - 1], Suffix::A),
            b'f' => (&rest[..rest.len() - 1], Suffix::F),
            _ => (rest, Suffix::None),
        };
        if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        Some(Target { sm: digits.parse().ok()?, suffix })
    }

    /// Has the `a` suffix (arch-conditional, ptx-atoms.md D5).
    pub const fn is_arch_specific(self) -> bool {
        matches!(self.suffix, Suffix::A)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let suffix = match self.suffix {
            Suffix::None => "",
            Suffix::A => "a",
            Suffix::F => "f",
        };
        write!(f, "sm_{}{suffix}", self.sm)
    }
}

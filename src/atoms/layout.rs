//! A CuTe layout value: a shape and a congruent stride, both nested integer
//! tuples, in elements. Parsed from CuTe's printed notation:
//!
//! ```
//! use irlint::atoms::Layout;
//! let l: Layout = "((8,16),16):((64,512),1)".parse().unwrap();
//! assert_eq!((l.rank(), l.size(), l.cosize()), (2, 2048, 8144));
//! assert_eq!(l.to_string(), "((8,16),16):((64,512),1)");
//! let s = Layout::parse("(_8,_64):(_64,_1)").unwrap(); // CuTe's static ints
//! assert_eq!(s.mode(1), &[irlint::atoms::Leaf { shape: 64, stride: 1 }]);
//! ```
//!
//! A layout without `:stride` gets CuTe's default compact column-major strides.
//! Strides are non-negative. The parsed value keeps the tree (for printing) and
//! the leaves of each top-level mode in one flat array, so verifiers read a
//! mode as a slice without allocating.

use std::fmt;
use std::ops::Range;

/// At most this many leaves (the seed's cap on shape/stride pairs).
pub const MAX_LEAVES: usize = 128;
/// At most this nesting depth.
pub const MAX_DEPTH: usize = 8;

/// A nested integer tuple (`8`, `(8,16)`, `((8,16),16)`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum IntTuple {
    /// One integer.
    Int(u64),
    /// A tuple of tuples.
    Tuple(Vec<IntTuple>),
}

impl IntTuple {
    fn leaves(&self, out: &mut Vec<u64>) {
        match self {
            IntTuple::Int(v) => out.push(*v),
            IntTuple::Tuple(t) => t.iter().for_each(|x| x.leaves(out)),
        }
    }

    fn congruent(&self, other: &IntTuple) -> bool {
        match (self, other) {
            (IntTuple::Int(_), IntTuple::Int(_)) => true,
            (IntTuple::Tuple(a), IntTuple::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.congruent(y))
            }
            _ => false,
        }
    }

    /// The same structure with `f` applied to the leaves in order.
    fn map_leaves(&self, f: &mut impl FnMut(u64) -> u64) -> IntTuple {
        match self {
            IntTuple::Int(v) => IntTuple::Int(f(*v)),
            IntTuple::Tuple(t) => IntTuple::Tuple(t.iter().map(|x| x.map_leaves(f)).collect()),
        }
    }
}

impl fmt::Display for IntTuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IntTuple::Int(v) => write!(f, "{v}"),
            IntTuple::Tuple(t) => {
                f.write_str("(")?;
                for (i, x) in t.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// One (shape, stride) pair of a flattened layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Leaf {
    /// Extent.
    pub shape: u64,
    /// Stride.
    pub stride: u64,
}

/// Why a layout could not be built or parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// Text that is not CuTe layout notation.
    #[error("bad layout at byte {at}: {what}")]
    Syntax {
        /// Byte offset in the text.
        at: usize,
        /// What was expected.
        what: &'static str,
    },
    /// Shape and stride have different tuple structure.
    #[error("shape {shape} and stride {stride} are not congruent")]
    NotCongruent {
        /// The shape.
        shape: String,
        /// The stride.
        stride: String,
    },
    /// A zero extent.
    #[error("a shape extent is 0")]
    ZeroExtent,
    /// More than [`MAX_LEAVES`] leaves or deeper than [`MAX_DEPTH`].
    #[error("layout too large (at most {MAX_LEAVES} modes, nesting depth {MAX_DEPTH})")]
    TooLarge,
    /// Size or cosize does not fit in 64 bits.
    #[error("layout size overflows 64 bits")]
    Overflow,
}

/// A CuTe layout (see the module doc).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Layout {
    shape: IntTuple,
    stride: IntTuple,
    leaves: Vec<Leaf>,
    modes: Vec<Range<usize>>,
    size: u64,
    cosize: u64,
}

impl Layout {
    /// Builds a layout from a shape and a congruent stride.
    pub fn new(shape: IntTuple, stride: IntTuple) -> Result<Layout, LayoutError> {
        if !shape.congruent(&stride) {
            return Err(LayoutError::NotCongruent { shape: shape.to_string(), stride: stride.to_string() });
        }
        let top: Vec<(&IntTuple, &IntTuple)> = match (&shape, &stride) {
            (IntTuple::Tuple(a), IntTuple::Tuple(b)) => a.iter().zip(b).collect(),
            _ => vec![(&shape, &stride)],
        };
        let mut leaves = Vec::new();
        let mut modes = Vec::with_capacity(top.len());
        let (mut s, mut d) = (Vec::new(), Vec::new());
        for (ms, md) in top {
            s.clear();
            d.clear();
            ms.leaves(&mut s);
            md.leaves(&mut d);
            let start = leaves.len();
            leaves.extend(s.iter().zip(&d).map(|(&shape, &stride)| Leaf { shape, stride }));
            modes.push(start..leaves.len());
        }
        if leaves.len() > MAX_LEAVES {
            return Err(LayoutError::TooLarge);
        }
        let mut size: u64 = 1;
        let mut top_index: u64 = 0;
        for l in &leaves {
            if l.shape == 0 {
                return Err(LayoutError::ZeroExtent);
            }
            size = size.checked_mul(l.shape).ok_or(LayoutError::Overflow)?;
            let span = (l.shape - 1).checked_mul(l.stride).ok_or(LayoutError::Overflow)?;
            top_index = top_index.checked_add(span).ok_or(LayoutError::Overflow)?;
        }
        let cosize = top_index.checked_add(1).ok_or(LayoutError::Overflow)?;
        Ok(Layout { shape, stride, leaves, modes, size, cosize })
    }

    /// A compact column-major layout of a shape (CuTe's `make_layout(shape)`).
    pub fn column_major(shape: IntTuple) -> Result<Layout, LayoutError> {
        let mut acc: u64 = 1;
        let mut overflow = false;
        let stride = shape.map_leaves(&mut |s| {
            let d = acc;
            acc = acc.checked_mul(s).unwrap_or_else(|| {
                overflow = true;
                0
            });
            d
        });
        if overflow {
            return Err(LayoutError::Overflow);
        }
        Layout::new(shape, stride)
    }

    /// Parses CuTe's printed notation (`(8,64):(64,1)`, `_8` static ints allowed).
    pub fn parse(text: &str) -> Result<Layout, LayoutError> {
        let mut p = Parser { s: text.as_bytes(), pos: 0, leaves: 0 };
        let shape = p.tuple(0)?;
        p.ws();
        let layout = if p.eat(b':') {
            let stride = p.tuple(0)?;
            Layout::new(shape, stride)?
        } else {
            Layout::column_major(shape)?
        };
        p.ws();
        if p.pos != p.s.len() {
            return Err(LayoutError::Syntax { at: p.pos, what: "end of layout" });
        }
        Ok(layout)
    }

    /// The shape tree.
    pub fn shape(&self) -> &IntTuple {
        &self.shape
    }

    /// The stride tree.
    pub fn stride(&self) -> &IntTuple {
        &self.stride
    }

    /// Number of top-level modes (1 for a scalar layout such as `8:1`).
    pub fn rank(&self) -> usize {
        self.modes.len()
    }

    /// The leaves of top-level mode `i`, in order (empty when out of range).
    pub fn mode(&self, i: usize) -> &[Leaf] {
        self.modes.get(i).and_then(|r| self.leaves.get(r.clone())).unwrap_or(&[])
    }

    /// Product of the extents of mode `i`.
    pub fn mode_size(&self, i: usize) -> u64 {
        // Cannot overflow: it divides `size`, which was checked.
        self.mode(i).iter().map(|l| l.shape).product()
    }

    /// All leaves, flattened, in order.
    pub fn leaves(&self) -> &[Leaf] {
        &self.leaves
    }

    /// Number of coordinates (product of all extents).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// One past the largest index the layout maps to (`layout(size-1) + 1`).
    pub fn cosize(&self) -> u64 {
        self.cosize
    }

    /// The flattened layout: one top-level mode per leaf.
    pub fn flatten(&self) -> Layout {
        let leaves = self.leaves.clone();
        let modes = (0..leaves.len()).map(|i| i..i + 1).collect();
        let shape = IntTuple::Tuple(leaves.iter().map(|l| IntTuple::Int(l.shape)).collect());
        let stride = IntTuple::Tuple(leaves.iter().map(|l| IntTuple::Int(l.stride)).collect());
        Layout { shape, stride, leaves, modes, size: self.size, cosize: self.cosize }
    }

    /// The layout in 16-byte units (§3.3 of ptx-atoms.md, CuTe's `upcast`) for
    /// elements of `elem_bits` bits: each leaf is recast with [`recast_leaf_16b`],
    /// extent-1 leaves are dropped, and each top-level mode is kept (an emptied
    /// mode becomes `1:0`). `None` when a stride is not expressible in units.
    pub fn recast_16b(&self, elem_bits: u32) -> Option<Layout> {
        let per_unit = elems_per_16b(elem_bits)?;
        let mut shapes = Vec::with_capacity(self.rank());
        let mut strides = Vec::with_capacity(self.rank());
        for i in 0..self.rank() {
            let mut s = Vec::new();
            let mut d = Vec::new();
            for l in self.mode(i) {
                if let Some(u) = recast_leaf_16b(*l, per_unit)? {
                    s.push(IntTuple::Int(u.shape));
                    d.push(IntTuple::Int(u.stride));
                }
            }
            let (s, d) = match s.len() {
                0 => (IntTuple::Int(1), IntTuple::Int(0)),
                1 => (s.remove(0), d.remove(0)),
                _ => (IntTuple::Tuple(s), IntTuple::Tuple(d)),
            };
            shapes.push(s);
            strides.push(d);
        }
        let (shape, stride) = if shapes.len() == 1 {
            (shapes.remove(0), strides.remove(0))
        } else {
            (IntTuple::Tuple(shapes), IntTuple::Tuple(strides))
        };
        Layout::new(shape, stride).ok()
    }
}

/// Elements per 16-byte unit for a supported element width (4, 8, 16, 32 bits).
pub const fn elems_per_16b(elem_bits: u32) -> Option<u64> {
    match elem_bits {
        4 | 8 | 16 | 32 => Some(128 / elem_bits as u64),
        _ => None,
    }
}

/// Recasts one element leaf to 16-byte units (`per_unit` elements per unit):
/// stride 0 stays; stride 1 → `ceil(s/T):1`; a stride multiple of T → `s:d/T`;
/// `1 < d < T` dividing T → `ceil(s/(T/d)):1`. Returns `None` when the stride
/// is not expressible in units, `Some(None)` when the leaf has extent 1 (dropped).
pub fn recast_leaf_16b(l: Leaf, per_unit: u64) -> Option<Option<Leaf>> {
    let t = per_unit.max(1);
    let out = if l.shape == 1 {
        return Some(None);
    } else if l.stride == 0 {
        l
    } else if l.stride == 1 {
        Leaf { shape: l.shape.div_ceil(t), stride: 1 }
    } else if l.stride.is_multiple_of(t) {
        Leaf { shape: l.shape, stride: l.stride / t }
    } else if l.stride < t && t.is_multiple_of(l.stride) {
        Leaf { shape: l.shape.div_ceil(t / l.stride), stride: 1 }
    } else {
        return None;
    };
    Some(if out.shape == 1 { None } else { Some(out) })
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.shape, self.stride)
    }
}

impl std::str::FromStr for Layout {
    type Err = LayoutError;
    fn from_str(s: &str) -> Result<Layout, LayoutError> {
        Layout::parse(s)
    }
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    leaves: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.s.get(self.pos).is_some_and(|c| c.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.s.get(self.pos) == Some(&c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn tuple(&mut self, depth: usize) -> Result<IntTuple, LayoutError> {
        if depth > MAX_DEPTH {
            return Err(LayoutError::TooLarge);
        }
        if self.eat(b'(') {
            let mut items = vec![self.tuple(depth + 1)?];
            while self.eat(b',') {
                items.push(self.tuple(depth + 1)?);
            }
            if !self.eat(b')') {
                return Err(LayoutError::Syntax { at: self.pos, what: "`,` or `)`" });
            }
            return Ok(IntTuple::Tuple(items));
        }
        self.ws();
        if self.s.get(self.pos) == Some(&b'_') {
            self.pos += 1;
        }
        let start = self.pos;
        let mut v: u64 = 0;
        while let Some(c) = self.s.get(self.pos).filter(|c| c.is_ascii_digit()) {
            v = v.checked_mul(10).and_then(|v| v.checked_add(u64::from(c - b'0'))).ok_or(LayoutError::Overflow)?;
            self.pos += 1;
        }
        if self.pos == start {
            return Err(LayoutError::Syntax { at: self.pos, what: "an integer or `(`" });
        }
        self.leaves += 1;
        if self.leaves > 2 * MAX_LEAVES {
            return Err(LayoutError::TooLarge);
        }
        Ok(IntTuple::Int(v))
    }
}

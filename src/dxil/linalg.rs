//! SM 6.10 LinAlg matrix types (formats.md §C.5): the named struct
//! `%dx.types.LinAlgMatrixC<ct>M<m>N<n>U<use>S<scope>` and `!dx.targetTypes`.

use super::llvm::{LlvmModule, Metadata};
use crate::ir::{Module, Type, TypeH};
use rustc_hash::FxHashMap;

/// Prefix of the matrix struct name.
pub const MATRIX_TYPE_PREFIX: &str = "dx.types.LinAlgMatrix";

/// Component type, dimensions, use and scope of a LinAlg matrix type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatrixType {
    /// DXIL ComponentType (HEAD numbering: 8 F16, 9 F32, 19 I8, 20 U8, ...).
    pub component: u32,
    /// Rows.
    pub m: u32,
    /// Columns.
    pub n: u32,
    /// Use: 0 A, 1 B, 2 Accumulator.
    pub matrix_use: u32,
    /// Scope: 0 Thread, 1 Wave, 2 ThreadGroup.
    pub scope: u32,
}

/// Parses the mangling `C<ct>M<m>N<n>U<use>S<scope>` (with or without the
/// `dx.types.LinAlgMatrix` / `%` prefix, or the `m` overload prefix).
pub fn parse_mangling(name: &str) -> Option<MatrixType> {
    let s = name.trim_start_matches('%');
    let s = s.strip_prefix(MATRIX_TYPE_PREFIX).or_else(|| s.strip_prefix('m')).unwrap_or(s);
    let mut vals = [0u32; 5];
    let mut rest = s;
    for (i, key) in ['C', 'M', 'N', 'U', 'S'].iter().enumerate() {
        rest = rest.strip_prefix(*key)?;
        let digits = rest.bytes().take_while(|b| b.is_ascii_digit()).count();
        let slot = vals.get_mut(i)?;
        *slot = rest.get(..digits)?.parse().ok()?;
        rest = rest.get(digits..)?;
    }
    // Suffixes such as `.0` from LLVM type renaming are allowed.
    if !(rest.is_empty() || rest.starts_with('.')) {
        return None;
    }
    let [component, m, n, matrix_use, scope] = vals;
    Some(MatrixType { component, m, n, matrix_use, scope })
}

/// Matrix types known from `!dx.targetTypes` and from struct names.
#[derive(Debug, Default, Clone)]
pub struct MatrixTypes {
    by_type: FxHashMap<TypeH, MatrixType>,
}

impl MatrixTypes {
    /// Reads `!dx.targetTypes` entries
    /// `!{%T undef, i32 ct, i32 M, i32 N, i32 use, i32 scope}`.
    pub fn from_metadata(llvm: &LlvmModule) -> Self {
        let mut by_type = FxHashMap::default();
        for id in llvm.named("dx.targetTypes").unwrap_or(&[]) {
            let Some(ops) = llvm.node(*id) else { continue };
            let Some(Some(Metadata::Value { ty, .. })) = ops.first().map(|o| o.and_then(|i| llvm.md(i))) else {
                continue;
            };
            let ints: Vec<Option<u64>> = ops.iter().skip(1).map(|o| o.and_then(|i| llvm.int(i))).collect();
            if let [Some(c), Some(m), Some(n), Some(u), Some(s)] = ints.as_slice() {
                by_type.insert(
                    *ty,
                    MatrixType {
                        component: *c as u32,
                        m: *m as u32,
                        n: *n as u32,
                        matrix_use: *u as u32,
                        scope: *s as u32,
                    },
                );
            }
        }
        MatrixTypes { by_type }
    }

    /// The matrix type `ty`: metadata first, then the struct name.
    pub fn get(&self, m: &Module, ty: TypeH) -> Option<MatrixType> {
        if let Some(t) = self.by_type.get(&ty) {
            return Some(*t);
        }
        match m.types.try_get(ty)? {
            Type::Struct { name: Some(n), .. } => parse_mangling(n),
            Type::Opaque { name } => parse_mangling(name),
            _ => None,
        }
    }
}

/// Name of a DXIL ComponentType (HEAD numbering unless `preview`, where 19/20 swap).
pub fn component_name(v: u64, preview: bool) -> &'static str {
    match v {
        0 => "Invalid",
        1 => "I1",
        2 => "I16",
        3 => "U16",
        4 => "I32",
        5 => "U32",
        6 => "I64",
        7 => "U64",
        8 => "F16",
        9 => "F32",
        10 => "F64",
        11 => "SNormF16",
        12 => "UNormF16",
        13 => "SNormF32",
        14 => "UNormF32",
        15 => "SNormF64",
        16 => "UNormF64",
        17 => "PackedS8x32",
        18 => "PackedU8x32",
        19 if preview => "U8",
        19 => "I8",
        20 if preview => "I8",
        20 => "U8",
        21 => "F8_E4M3FN",
        22 => "F8_E5M2",
        23 => "BF16",
        _ => "Unknown",
    }
}

/// Name of a matrix layout value (`linalg`: SM 6.10 numbering; else preview).
pub fn layout_name(v: u64, linalg: bool) -> &'static str {
    match (v, linalg) {
        (0, _) => "RowMajor",
        (1, _) => "ColumnMajor",
        (2, _) => "MulOptimal",
        (3, false) => "OuterProductOptimal",
        (3, true) => "MulOptimalTranspose",
        (4, true) => "OuterProductOptimal",
        (5, true) => "OuterProductOptimalTranspose",
        _ => "Unknown",
    }
}

/// Name of a matrix use.
pub fn use_name(v: u32) -> &'static str {
    match v {
        0 => "A",
        1 => "B",
        2 => "Accumulator",
        _ => "Unknown",
    }
}

/// Name of a matrix scope.
pub fn scope_name(v: u32) -> &'static str {
    match v {
        0 => "Thread",
        1 => "Wave",
        2 => "ThreadGroup",
        _ => "Unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mangling() {
        let t = parse_mangling("dx.types.LinAlgMatrixC8M16N16U0S0").unwrap();
        assert_eq!(t, MatrixType { component: 8, m: 16, n: 16, matrix_use: 0, scope: 0 });
        let t = parse_mangling("mC9M32N8U2S1").unwrap();
        assert_eq!((t.component, t.m, t.n, t.matrix_use, t.scope), (9, 32, 8, 2, 1));
        assert_eq!(parse_mangling("dx.types.LinAlgMatrixC8M16N16U0S0.1").map(|t| t.m), Some(16));
        assert_eq!(parse_mangling("dx.types.Handle"), None);
        assert_eq!(parse_mangling("dx.types.LinAlgMatrixC8M16"), None);
    }
}

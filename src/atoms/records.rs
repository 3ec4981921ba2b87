//! The `irlint atoms` record format (pinned; other tools write it) and its
//! parser into typed atoms.
//!
//! Input: a JSON array of records, or JSON Lines (one record per line). Each
//! record is an object with `"verifier"` and an optional `"id"` (any JSON
//! value, echoed back); the other keys depend on the verifier (see
//! `docs/atoms.md`). Names of modes and types are the seed's, a leading `.`
//! accepted. A record with a missing required key, an unknown key, a wrong type
//! or an unknown value becomes a [`RecordError`] naming the key; the other
//! records are still parsed.

use super::*;
use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt;

/// An atom with owned inputs (what a record parses into); [`OwnedAtom::as_atom`]
/// borrows it as the [`Atom`] the verifiers take. Fields are the record keys.
#[derive(Debug, Clone)]
#[allow(missing_docs)] // the fields are the record keys of docs/atoms.md
pub enum OwnedAtom {
    /// `ldsm`.
    Ldsm { mode: LdsmMode, size: SizePattern, num_matrices: u32, transpose: bool, result_shape: Vec<u64> },
    /// `stsm`.
    Stsm { mode: StsmMode, size: SizePattern, num_matrices: u32, transpose: bool, result_shape: Vec<u64> },
    /// `matrix-copy`.
    MatrixCopy {
        direction: CopyDirection,
        src: MemSpace,
        dst: MemSpace,
        mode: CopyMode,
        num_matrices: u32,
        result_shape: Vec<u64>,
        shared_alignment: u64,
    },
    /// `register-fragment`.
    RegisterFragment { layout: Layout, register_count: u64 },
    /// `umma-layout`.
    Umma { direction: UmmaDirection, elem_bits: u32, swizzle: Swizzle, layout: Layout },
    /// `tcgen05-kind`.
    Tcgen05(Tcgen05Input),
    /// `sm120-block-scale`.
    Sm120(Sm120Input),
    /// `swizzle-commutation`.
    SwizzleCommutation { swizzle: Swizzle, offset: i64 },
    /// `tma`.
    Tma { mode: TmaMode, rank: u32, target: Target },
}

impl OwnedAtom {
    /// The typed atom, borrowing shapes and layouts.
    pub fn as_atom(&self) -> Atom<'_> {
        match self {
            OwnedAtom::Ldsm { mode, size, num_matrices, transpose, result_shape } => Atom::Ldsm(LdsmTuple {
                mode: *mode,
                size: *size,
                num_matrices: *num_matrices,
                transpose: *transpose,
                result_shape,
            }),
            OwnedAtom::Stsm { mode, size, num_matrices, transpose, result_shape } => Atom::Stsm(StsmTuple {
                mode: *mode,
                size: *size,
                num_matrices: *num_matrices,
                transpose: *transpose,
                result_shape,
            }),
            OwnedAtom::MatrixCopy { direction, src, dst, mode, num_matrices, result_shape, shared_alignment } => {
                Atom::MatrixCopy(MatrixCopy {
                    direction: *direction,
                    src: *src,
                    dst: *dst,
                    mode: *mode,
                    num_matrices: *num_matrices,
                    result_shape,
                    shared_alignment: *shared_alignment,
                })
            }
            OwnedAtom::RegisterFragment { layout, register_count } => {
                Atom::RegisterFragment { layout, register_count: *register_count }
            }
            OwnedAtom::Umma { direction, elem_bits, swizzle, layout } => {
                Atom::Umma(UmmaInput { direction: *direction, elem_bits: *elem_bits, swizzle: *swizzle, layout })
            }
            OwnedAtom::Tcgen05(t) => Atom::Tcgen05(*t),
            OwnedAtom::Sm120(s) => Atom::Sm120(*s),
            OwnedAtom::SwizzleCommutation { swizzle, offset } => {
                Atom::SwizzleCommutation { swizzle: *swizzle, offset: *offset }
            }
            OwnedAtom::Tma { mode, rank, target } => Atom::Tma { mode: *mode, rank: *rank, target: *target },
        }
    }
}

/// Why a record could not be turned into an atom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordError {
    /// The offending key (`None` when the record itself is malformed).
    pub key: Option<String>,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.key {
            Some(k) => write!(f, "key `{k}`: {}", self.reason),
            None => f.write_str(&self.reason),
        }
    }
}

/// One input record.
#[derive(Debug, Clone)]
pub struct Record {
    /// 0-based position in its input.
    pub index: usize,
    /// 1-based line where the record starts, when known.
    pub line: Option<u32>,
    /// The `id`, echoed back (`Null` when absent).
    pub id: Value,
    /// The `verifier` name, when it is a string.
    pub verifier: Option<String>,
    /// The parsed atom or the input error.
    pub atom: Result<OwnedAtom, RecordError>,
}

impl Record {
    /// `record 3` or `record 3 (id "k1")`.
    pub fn label(&self) -> String {
        match &self.id {
            Value::Null => format!("record {}", self.index),
            id => format!("record {} (id {id})", self.index),
        }
    }
}

/// The verifier names of the record format.
pub const VERIFIERS: [&str; 9] = [
    "ldsm",
    "stsm",
    "matrix-copy",
    "register-fragment",
    "umma-layout",
    "tcgen05-kind",
    "sm120-block-scale",
    "swizzle-commutation",
    "tma",
];

/// The error for an input of `n` records, over
/// [`MAX_ATOMS_RECORDS`](crate::read::limits::MAX_ATOMS_RECORDS).
fn too_many_records(n: usize) -> String {
    let max = crate::read::limits::MAX_ATOMS_RECORDS;
    format!("{n} records, over the limit of {max} per input; split the input into several files")
}

/// Parses a whole input: a JSON array of records, else JSON Lines. `Err`
/// when the input is a JSON array that does not parse (no record can be
/// told apart) or holds more than
/// [`MAX_ATOMS_RECORDS`](crate::read::limits::MAX_ATOMS_RECORDS) records
/// (counted before any is parsed); a bad JSON Lines line is an input error
/// of that record.
pub fn parse_input(text: &str) -> Result<Vec<Record>, String> {
    let max = crate::read::limits::MAX_ATOMS_RECORDS;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let trimmed = text.trim();
    if trimmed.starts_with('[') {
        let n = element_lines(text).len();
        if n > max {
            return Err(too_many_records(n));
        }
        let v: Value = serde_json::from_str(trimmed).map_err(|e| format!("invalid JSON array of records: {e}"))?;
        let Value::Array(items) = v else {
            return Err("expected a JSON array of records".into());
        };
        let lines = element_lines(text);
        return Ok(items
            .into_iter()
            .enumerate()
            .map(|(i, v)| Record { line: lines.get(i).copied(), ..parse_record(i, v) })
            .collect());
    }
    // A single pretty-printed object is one record.
    if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(trimmed) {
        let line = text.lines().position(|l| !l.trim().is_empty()).and_then(|n| u32::try_from(n + 1).ok());
        return Ok(vec![Record { line, ..parse_record(0, v) }]);
    }
    let n = text.lines().filter(|l| !l.trim().is_empty()).count();
    if n > max {
        return Err(too_many_records(n));
    }
    Ok(text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .enumerate()
        .map(|(i, (n, line))| {
            let line_no = u32::try_from(n + 1).ok();
            match serde_json::from_str::<Value>(line.trim()) {
                Ok(v) => Record { line: line_no, ..parse_record(i, v) },
                Err(e) => Record {
                    index: i,
                    line: line_no,
                    id: Value::Null,
                    verifier: None,
                    atom: Err(RecordError { key: None, reason: format!("invalid JSON: {e}") }),
                },
            }
        })
        .collect())
}

/// The 1-based line on which each element of a top-level JSON array starts
/// (a lexical scan: strings and nesting are tracked, nothing is parsed).
fn element_lines(text: &str) -> Vec<u32> {
    let mut out = Vec::new();
    let (mut line, mut depth) = (1u32, 0u32);
    let (mut in_string, mut escaped, mut expect_value) = (false, false, false);
    for c in text.chars() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            if c == '\n' {
                line = line.saturating_add(1);
            }
            continue;
        }
        if depth == 1 && expect_value && !c.is_whitespace() && c != ']' {
            out.push(line);
            expect_value = false;
        }
        match c {
            '\n' => line = line.saturating_add(1),
            '"' => in_string = true,
            '[' | '{' => {
                depth = depth.saturating_add(1);
                expect_value = depth == 1;
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 1 => expect_value = true,
            _ => {}
        }
    }
    out
}

/// Parses one record value.
pub fn parse_record(index: usize, v: Value) -> Record {
    let Value::Object(obj) = v else {
        let reason = format!("a record is a JSON object, got {}", type_name(&v));
        return Record {
            index,
            line: None,
            id: Value::Null,
            verifier: None,
            atom: Err(RecordError { key: None, reason }),
        };
    };
    let id = obj.get("id").cloned().unwrap_or(Value::Null);
    let verifier = obj.get("verifier").and_then(Value::as_str).map(String::from);
    let atom = Fields { obj: &obj }.atom();
    Record { index, line: None, id, verifier, atom }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn err<T>(key: &str, reason: impl Into<String>) -> Result<T, RecordError> {
    Err(RecordError { key: Some(key.to_string()), reason: reason.into() })
}

struct Fields<'a> {
    obj: &'a Map<String, Value>,
}

type R<T> = Result<T, RecordError>;

impl Fields<'_> {
    fn atom(&self) -> R<OwnedAtom> {
        let verifier = match self.obj.get("verifier") {
            None => return err("verifier", format!("missing (one of: {})", VERIFIERS.join(", "))),
            Some(Value::String(s)) => s.as_str(),
            Some(v) => return err("verifier", format!("expected a string, got {}", type_name(v))),
        };
        let keys: &[&str] = match verifier {
            "ldsm" | "stsm" => &["mode", "size", "num_matrices", "transpose", "result_shape"],
            "matrix-copy" => &["direction", "src", "dst", "mode", "num_matrices", "result_shape", "shared_alignment"],
            "register-fragment" => &["layout", "register_count"],
            "umma-layout" => &["direction", "elem_bits", "swizzle", "layout"],
            "tcgen05-kind" => &["raw", "collector", "sparse", "block_scale_opcode", "is_arch_cond", "isa"],
            "sm120-block-scale" => &["k", "a_type", "b_type", "sf_type", "scale_vector_size", "scale_fragment_bits"],
            "swizzle-commutation" => &["swizzle", "offset"],
            "tma" => &["mode", "rank", "target"],
            other => return err("verifier", format!("unknown value \"{other}\" (one of: {})", VERIFIERS.join(", "))),
        };
        for k in self.obj.keys() {
            if k != "verifier" && k != "id" && !keys.contains(&k.as_str()) {
                return err(k, format!("unknown key for verifier {verifier} (keys: id, {})", keys.join(", ")));
            }
        }
        Ok(match verifier {
            "ldsm" => OwnedAtom::Ldsm {
                mode: self.name("mode", LdsmMode::parse, LdsmMode::names)?,
                size: self.name("size", SizePattern::parse, SizePattern::names)?,
                num_matrices: self.u32("num_matrices")?,
                transpose: self.bool("transpose")?,
                result_shape: self.shape("result_shape")?,
            },
            "stsm" => OwnedAtom::Stsm {
                mode: self.name("mode", StsmMode::parse, StsmMode::names)?,
                size: self.name("size", SizePattern::parse, SizePattern::names)?,
                num_matrices: self.u32("num_matrices")?,
                transpose: self.bool("transpose")?,
                result_shape: self.shape("result_shape")?,
            },
            "matrix-copy" => {
                let direction = self.name("direction", CopyDirection::parse, CopyDirection::names)?;
                let mode = match direction {
                    CopyDirection::Load => CopyMode::Ldsm(self.name("mode", LdsmMode::parse, LdsmMode::names)?),
                    CopyDirection::Store => CopyMode::Stsm(self.name("mode", StsmMode::parse, StsmMode::names)?),
                };
                let shared_alignment = self.u64("shared_alignment")?;
                if !shared_alignment.is_power_of_two() {
                    return err("shared_alignment", format!("{shared_alignment} is not a power of two"));
                }
                OwnedAtom::MatrixCopy {
                    direction,
                    src: self.name("src", MemSpace::parse, MemSpace::names)?,
                    dst: self.name("dst", MemSpace::parse, MemSpace::names)?,
                    mode,
                    num_matrices: self.u32("num_matrices")?,
                    result_shape: self.shape("result_shape")?,
                    shared_alignment,
                }
            }
            "register-fragment" => OwnedAtom::RegisterFragment {
                layout: self.layout("layout")?,
                register_count: self.u64("register_count")?,
            },
            "umma-layout" => OwnedAtom::Umma {
                direction: self.name("direction", UmmaDirection::parse, UmmaDirection::names)?,
                elem_bits: self.u32("elem_bits")?,
                swizzle: self.swizzle("swizzle")?,
                layout: self.layout("layout")?,
            },
            "tcgen05-kind" => {
                let raw = self.u64("raw")?;
                let Ok(raw) = u16::try_from(raw) else {
                    return err("raw", format!("{raw} does not fit a 9-bit word"));
                };
                let mut t = Tcgen05Input::new(raw);
                if let Some(c) = self.opt("collector", |s, k| s.u64(k))? {
                    t.collector =
                        u8::try_from(c).or_else(|_| err("collector", format!("{c} is not a collector word")))?;
                }
                t.sparse = self.opt("sparse", |s, k| s.bool(k))?.unwrap_or(false);
                if let Some(b) = self.opt("block_scale_opcode", |s, k| s.bool(k))? {
                    t.block_scale_opcode = b;
                }
                let isa = self.opt("isa", |s, k| s.target(k))?;
                t.is_arch_cond = match self.opt("is_arch_cond", |s, k| s.bool(k))? {
                    Some(b) => b,
                    None => isa.is_some_and(Target::is_arch_specific),
                };
                if let Some(isa) = isa {
                    t.isa = isa;
                }
                OwnedAtom::Tcgen05(t)
            }
            "sm120-block-scale" => OwnedAtom::Sm120(Sm120Input {
                k: self.u32("k")?,
                a_type: self.name("a_type", Sm120Type::parse, Sm120Type::names)?,
                b_type: self.name("b_type", Sm120Type::parse, Sm120Type::names)?,
                sf_type: self.name("sf_type", ScaleFactorType::parse, ScaleFactorType::names)?,
                scale_vector_size: self.u32("scale_vector_size")?,
                scale_fragment_bits: self.u32("scale_fragment_bits")?,
            }),
            "swizzle-commutation" => {
                OwnedAtom::SwizzleCommutation { swizzle: self.swizzle("swizzle")?, offset: self.i64("offset")? }
            }
            _ => OwnedAtom::Tma {
                mode: self.name("mode", TmaMode::parse, TmaMode::names)?,
                rank: self.u32("rank")?,
                target: self.target("target")?,
            },
        })
    }

    fn get(&self, key: &str) -> R<&Value> {
        self.obj.get(key).map_or_else(|| err(key, "missing"), Ok)
    }

    fn opt<T>(&self, key: &str, f: impl Fn(&Self, &str) -> R<T>) -> R<Option<T>> {
        match self.obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(_) => f(self, key).map(Some),
        }
    }

    fn name<T>(&self, key: &str, parse: fn(&str) -> Option<T>, names: fn() -> String) -> R<T> {
        match self.get(key)? {
            Value::String(s) => {
                parse(s).map_or_else(|| err(key, format!("unknown value \"{s}\" (one of: {})", names())), Ok)
            }
            v => err(key, format!("expected a string, got {}", type_name(v))),
        }
    }

    fn u64(&self, key: &str) -> R<u64> {
        match self.get(key)? {
            Value::Number(n) => {
                n.as_u64().map_or_else(|| err(key, format!("expected a non-negative integer, got {n}")), Ok)
            }
            Value::String(s) => parse_int(s).map_or_else(|| err(key, format!("expected an integer, got \"{s}\"")), Ok),
            v => err(key, format!("expected an integer, got {}", type_name(v))),
        }
    }

    fn u32(&self, key: &str) -> R<u32> {
        let v = self.u64(key)?;
        u32::try_from(v).or_else(|_| err(key, format!("{v} is too large")))
    }

    fn i64(&self, key: &str) -> R<i64> {
        match self.get(key)? {
            Value::Number(n) => n.as_i64().map_or_else(|| err(key, format!("expected an integer, got {n}")), Ok),
            v => err(key, format!("expected an integer, got {}", type_name(v))),
        }
    }

    fn bool(&self, key: &str) -> R<bool> {
        match self.get(key)? {
            Value::Bool(b) => Ok(*b),
            v => err(key, format!("expected true or false, got {}", type_name(v))),
        }
    }

    fn shape(&self, key: &str) -> R<Vec<u64>> {
        match self.get(key)? {
            Value::Array(items) => items
                .iter()
                .map(|x| x.as_u64().map_or_else(|| err(key, format!("extents are non-negative integers, got {x}")), Ok))
                .collect(),
            v => err(key, format!("expected an array of extents, got {}", type_name(v))),
        }
    }

    fn swizzle(&self, key: &str) -> R<Swizzle> {
        let bad = || err(key, "expected [B, M, S] (three integers 0..=31)");
        let Value::Array(items) = self.get(key)? else { return bad() };
        let v: Vec<u8> = items.iter().filter_map(Value::as_u64).filter(|x| *x < 32).map(|x| x as u8).collect();
        match v[..] {
            [b, m, s] if items.len() == 3 => Ok(Swizzle::new(b, m, s)),
            _ => bad(),
        }
    }

    fn layout(&self, key: &str) -> R<Layout> {
        match self.get(key)? {
            Value::String(s) => Layout::parse(s).or_else(|e| err(key, e.to_string())),
            v => err(key, format!("expected a CuTe layout string such as \"(8,64):(64,1)\", got {}", type_name(v))),
        }
    }

    fn target(&self, key: &str) -> R<Target> {
        match self.get(key)? {
            Value::String(s) => Target::parse(s)
                .map_or_else(|| err(key, format!("unknown target \"{s}\" (e.g. sm_100a, sm_90, sm_120f)")), Ok),
            v => err(key, format!("expected a target string such as \"sm_100a\", got {}", type_name(v))),
        }
    }
}

fn parse_int(s: &str) -> Option<u64> {
    let s = s.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

/// The outcome of one record.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// The verifier accepted the atom.
    Ok(AtomValue),
    /// The verifier's diagnostic.
    Diag(AtomDiag),
    /// The record is malformed.
    Input(RecordError),
}

/// Runs one record.
pub fn run_record(r: &Record) -> Outcome {
    match &r.atom {
        Err(e) => Outcome::Input(e.clone()),
        Ok(a) => match verify(&a.as_atom()) {
            Ok(v) => Outcome::Ok(v),
            Err(d) => Outcome::Diag(d),
        },
    }
}

/// The JSON of a success value (`{"opcode": 10522}`, …; `null` for SM120).
pub fn value_json(v: &AtomValue) -> Value {
    match v {
        AtomValue::Registers(n) => serde_json::json!({ "registers": n }),
        AtomValue::Opcode(n) => serde_json::json!({ "opcode": n }),
        AtomValue::Umma(u) => {
            serde_json::json!({ "elem_class": u.elem_class, "k_size": u.k_size, "mn_size": u.mn_size })
        }
        AtomValue::Period(p) => serde_json::json!({ "period": p }),
        AtomValue::Rank(r) => serde_json::json!({ "rank": r }),
        AtomValue::Unit => Value::Null,
    }
}

/// One entry of the JSON `results` array.
#[derive(Debug, Clone, Serialize)]
pub struct ResultJson {
    /// The input the record came from.
    pub path: String,
    /// 0-based index in that input.
    pub index: usize,
    /// The record's id (null when absent).
    pub id: Value,
    /// The verifier name (null when missing or not a string).
    pub verifier: Option<String>,
    /// The verifier accepted the atom.
    pub ok: bool,
    /// The rule that fired (`input-error` for a malformed record).
    pub rule: Option<String>,
    /// The diagnostic.
    pub message: Option<String>,
    /// What the verifier returned on success.
    pub value: Value,
}

impl ResultJson {
    /// The entry for a record and its outcome.
    pub fn new(path: &str, r: &Record, o: &Outcome) -> ResultJson {
        let (ok, rule, message, value) = match o {
            Outcome::Ok(v) => (true, None, None, value_json(v)),
            Outcome::Diag(d) => (false, Some(d.rule.id().to_string()), Some(d.message()), Value::Null),
            Outcome::Input(e) => {
                (false, Some(crate::report::INPUT_ERROR.to_string()), Some(e.to_string()), Value::Null)
            }
        };
        ResultJson {
            path: path.to_string(),
            index: r.index,
            id: r.id.clone(),
            verifier: r.verifier.clone(),
            ok,
            rule,
            message,
            value,
        }
    }
}

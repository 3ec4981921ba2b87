//! The one `Diagnostic` model shared by rules, tool-level outcomes and every
//! emitter (human, JSON, SARIF, GitHub).

use serde::Serialize;

/// Severity. Only these three exist (rules.md §0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Informational.
    Note,
    /// Should be looked at.
    Warning,
    /// Wrong or undefined behaviour.
    Error,
}

impl Level {
    /// One step down (error → warning → note → note), used for `possible` findings.
    pub fn lowered(self) -> Level {
        match self {
            Level::Error => Level::Warning,
            _ => Level::Note,
        }
    }

    /// `error`, `warning`, `note`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Note => "note",
        }
    }
}

/// How sure a finding is (rules.md §0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Certainty {
    /// Every value the dataflow admits violates the rule.
    Proven,
    /// Some values of a finite set violate the rule.
    Possible,
}

/// A number a finding reasoned with, as it appears in JSON `values`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum FindingValue {
    /// A constant.
    Int(u64),
    /// A finite set of constants (sorted).
    Set(Vec<u64>),
    /// `rem mod modulus`.
    Congruence {
        /// Remainder.
        rem: u64,
        /// Modulus (a power of two).
        #[serde(rename = "mod")]
        modulus: u64,
    },
    /// A name (`f16`, `row-major`).
    Text(String),
    /// Spec-constant defaults a finding assumed (`{"15": 0}`: SpecId → value),
    /// because no `--spec-constant` overrode them.
    Assumed(std::collections::BTreeMap<String, u64>),
}

impl std::fmt::Display for FindingValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FindingValue::Int(v) => write!(f, "{v}"),
            FindingValue::Set(v) => {
                let parts: Vec<String> = v.iter().map(|x| x.to_string()).collect();
                write!(f, "{{{}}}", parts.join(", "))
            }
            FindingValue::Congruence { rem, modulus } => write!(f, "{rem} mod {modulus}"),
            FindingValue::Assumed(m) => {
                let parts: Vec<String> = m.iter().map(|(k, v)| format!("{k}: {v}")).collect();
                write!(f, "{{{}}}", parts.join(", "))
            }
            FindingValue::Text(s) => f.write_str(s),
        }
    }
}

/// A source position from debug info.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceLocation {
    /// File as named by the debug info.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column (0 when unknown).
    pub column: u32,
}

/// Where a diagnostic points.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Location {
    /// Input path as given on the command line (or found in a directory walk).
    pub path: String,
    /// Offset of an embedded blob inside `path`.
    pub blob_offset: Option<u64>,
    /// The name of the container entry the blob was decoded from, where it
    /// has one (a Fossilize module's hash, 16 hex digits): reports show
    /// `path@NAME` instead of `path@0xOFFSET`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<String>,
    /// Section holding the embedded blob, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// Entry point / function name.
    pub function: Option<String>,
    /// Instruction index within the function (body order, from 0).
    pub instruction: Option<u32>,
    /// 1-based line of the instruction in a text input (PTX), or of the
    /// position an input error names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// 1-based column on `line` of the position an input error names (PTX
    /// parse errors).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// Absolute byte offset in `path` of the instruction's record (DXIL: the
    /// byte holding the record's first bit) or SPIR-V instruction's first word.
    pub byte_offset: Option<u64>,
    /// The instruction's value as disassemblers print it: DXIL `%N` in the
    /// numbering of `dxc -dumpbin`, or `%name` for a value the module names
    /// (none for void instructions); SPIR-V `%id` (the result id, as
    /// `spirv-dis --raw-id` prints it).
    pub value: Option<String>,
    /// The IR text of the instruction.
    #[serde(skip)]
    pub ir: Option<String>,
    /// The resource the finding is about (JSON/SARIF `resource`); its
    /// `Display` is the description (`g_Buf (t0 space0)`).
    #[serde(skip)]
    pub resource: Option<ResourceRef>,
    /// Source position (outermost frame), when debug info has it.
    pub source: Option<SourceLocation>,
    /// Inner inlined frames (innermost first), shown as notes.
    #[serde(skip)]
    pub inlined_from: Vec<SourceLocation>,
    /// Source line text, when the module embeds the source.
    #[serde(skip)]
    pub source_text: Option<String>,
}

/// How the resource of a finding is bound.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ResourceBinding {
    /// DXIL register binding: `register` `t0`, `space`, `count` (`None`: unbounded).
    Register {
        /// Register letter and first register (`t0`, `u4`, `b1`, `s0`).
        register: String,
        /// Register space.
        space: u32,
        /// Number of registers in the range; `None` when unbounded.
        count: Option<u32>,
    },
    /// SPIR-V `DescriptorSet` / `Binding` decorations (`None` when missing).
    Descriptor {
        /// Descriptor set.
        set: Option<u32>,
        /// Binding.
        binding: Option<u32>,
    },
    /// SM 6.6 descriptor heap (`ResourceDescriptorHeap[...]`): the handle's
    /// `annotateHandle` site.
    Heap {
        /// Function of the site.
        function: String,
        /// Instruction index of the site (body order, as `instruction`).
        instruction: Option<u32>,
    },
}

/// The resource a finding is about, as the JSON `resource` object.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ResourceRef {
    /// Human description: `g_Buf (t0 space0)`, `unnamed StructuredBuffer (u3 space0)`.
    pub label: String,
    /// Name from the module (`None` in stripped DXIL).
    pub name: Option<String>,
    /// `srv`, `uav`, `cbuffer`, `sampler`.
    pub class: String,
    /// DXIL resource kind name (`StructuredBuffer`, `RawBuffer`, ...).
    pub kind: String,
    /// Binding.
    pub binding: ResourceBinding,
    /// DXIL per-class record ID (the `ID` column of `dxc -dumpbin`'s resource
    /// table: `T0`, `U1`, ...), SPIR-V variable result id; `None` for heap handles.
    pub id: Option<u32>,
}

impl std::fmt::Display for ResourceRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.label)
    }
}

impl Serialize for ResourceRef {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("name", &self.name)?;
        m.serialize_entry("class", &self.class)?;
        m.serialize_entry("kind", &self.kind)?;
        match &self.binding {
            ResourceBinding::Register { register, space, count } => {
                m.serialize_entry("register", register)?;
                m.serialize_entry("space", space)?;
                m.serialize_entry("count", count)?;
            }
            ResourceBinding::Descriptor { set, binding } => {
                m.serialize_entry("set", set)?;
                m.serialize_entry("binding", binding)?;
            }
            ResourceBinding::Heap { function, instruction } => {
                #[derive(Serialize)]
                struct Site<'a> {
                    function: &'a str,
                    instruction: Option<u32>,
                }
                m.serialize_entry("heap", &Site { function, instruction: *instruction })?;
            }
        }
        m.serialize_entry("id", &self.id)?;
        m.serialize_entry("label", &self.label)?;
        m.end()
    }
}

/// A finding or a tool-level outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Rule id (kebab-case) or a reserved id (`input-error`, `analysis-budget-exceeded`,
    /// `internal-error`).
    pub rule: String,
    /// Level after configuration.
    pub level: Level,
    /// Certainty.
    pub certainty: Certainty,
    /// One-line message, lowercase start, no trailing period.
    pub message: String,
    /// Suggested action.
    pub help: Option<String>,
    /// Extra notes.
    pub notes: Vec<String>,
    /// Where.
    pub location: Location,
    /// Structured values (ordered).
    pub values: Vec<(String, FindingValue)>,
}

impl Diagnostic {
    /// A new diagnostic with empty location.
    pub fn new(rule: impl Into<String>, level: Level, certainty: Certainty, message: impl Into<String>) -> Self {
        Diagnostic {
            rule: rule.into(),
            level,
            certainty,
            message: message.into(),
            help: None,
            notes: Vec::new(),
            location: Location::default(),
            values: Vec::new(),
        }
    }

    /// Adds a structured value.
    pub fn value(mut self, key: &str, v: FindingValue) -> Self {
        self.values.push((key.to_string(), v));
        self
    }

    /// Sets the help line.
    pub fn help(mut self, h: impl Into<String>) -> Self {
        self.help = Some(h.into());
        self
    }

    /// Cuts every input-derived string to its report limit
    /// ([`MAX_REPORT_NAME_BYTES`](crate::read::limits::MAX_REPORT_NAME_BYTES) for
    /// names, [`MAX_REPORT_TEXT_BYTES`](crate::read::limits::MAX_REPORT_TEXT_BYTES)
    /// for messages, notes, source lines and IR text), so that a huge name in
    /// the input is not copied whole into every finding. The input path is
    /// kept: it comes from the command line or the walk.
    pub fn cap_strings(&mut self) {
        use crate::read::limits::{MAX_REPORT_NAME_BYTES as NAME, MAX_REPORT_TEXT_BYTES as TEXT};
        cap(&mut self.message, TEXT);
        if let Some(h) = &mut self.help {
            cap(h, TEXT);
        }
        for n in &mut self.notes {
            cap(n, TEXT);
        }
        let l = &mut self.location;
        for s in [&mut l.section, &mut l.function, &mut l.value].into_iter().flatten() {
            cap(s, NAME);
        }
        for s in [&mut l.ir, &mut l.source_text].into_iter().flatten() {
            cap(s, TEXT);
        }
        for src in l.source.iter_mut().chain(l.inlined_from.iter_mut()) {
            cap(&mut src.file, crate::read::limits::MAX_REPORT_PATH_BYTES);
        }
        if let Some(r) = &mut l.resource {
            cap(&mut r.label, NAME);
            if let Some(n) = &mut r.name {
                cap(n, NAME);
            }
            if let ResourceBinding::Heap { function, .. } = &mut r.binding {
                cap(function, NAME);
            }
        }
        for (_, v) in &mut self.values {
            if let FindingValue::Text(t) = v {
                cap(t, NAME);
            }
        }
    }

    /// Deterministic order: path, blob offset, function, instruction, rule,
    /// resource, message.
    pub fn sort_key(&self) -> impl Ord + '_ {
        (
            &self.location.path,
            self.location.blob_offset,
            self.location.function.as_deref(),
            self.location.instruction,
            &self.rule,
            self.location.resource.as_ref(),
            &self.message,
        )
    }
}

/// Cuts `s` to at most `max` bytes at a character boundary, ending in `…`
/// when anything was cut.
pub fn cap(s: &mut String, max: usize) {
    if s.len() <= max {
        return;
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s.truncate(end);
    s.push('…');
}

/// A copy of a name cut to
/// [`MAX_REPORT_NAME_BYTES`](crate::read::limits::MAX_REPORT_NAME_BYTES) (see
/// [`cap`]), without copying the rest.
pub fn capped_name(s: &str) -> String {
    capped(s, crate::read::limits::MAX_REPORT_NAME_BYTES)
}

/// A copy of a source file name cut to
/// [`MAX_REPORT_PATH_BYTES`](crate::read::limits::MAX_REPORT_PATH_BYTES).
pub fn capped_path(s: &str) -> String {
    capped(s, crate::read::limits::MAX_REPORT_PATH_BYTES)
}

/// A copy of a text cut to
/// [`MAX_REPORT_TEXT_BYTES`](crate::read::limits::MAX_REPORT_TEXT_BYTES).
pub fn capped_text(s: &str) -> String {
    capped(s, crate::read::limits::MAX_REPORT_TEXT_BYTES)
}

fn capped(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = String::with_capacity(end + 3);
    out.push_str(&s[..end]);
    out.push('…');
    out
}

/// Reserved id: a malformed or unreadable input.
pub const INPUT_ERROR: &str = "input-error";
/// Reserved id: the per-module analysis budget ran out.
pub const BUDGET_EXCEEDED: &str = "analysis-budget-exceeded";
/// Reserved id: a caught panic.
pub const INTERNAL_ERROR: &str = "internal-error";

/// True for the reserved ids that describe the tool's own outcome, not a finding.
pub fn is_tool_outcome(rule: &str) -> bool {
    matches!(rule, INPUT_ERROR | INTERNAL_ERROR | BUDGET_EXCEEDED)
}

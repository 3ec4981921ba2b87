//! Typed reader errors: a kind, the absolute byte offset (and bit offset for
//! bitcode) and a context path such as `DXIL part > FUNCTION_BLOCK #3`.

use std::fmt;

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// The input ends before a declared structure does.
    UnexpectedEof,
    /// A magic number does not match.
    BadMagic,
    /// A declared size, count or offset is inconsistent or out of range.
    BadSize,
    /// A declared count exceeds a documented limit (see `read::limits`).
    LimitExceeded,
    /// A structural rule of the format is broken.
    Malformed,
    /// A valid but unsupported construct.
    Unsupported,
}

impl ErrorKind {
    fn as_str(&self) -> &'static str {
        match self {
            ErrorKind::UnexpectedEof => "unexpected end of data",
            ErrorKind::BadMagic => "bad magic",
            ErrorKind::BadSize => "bad size",
            ErrorKind::LimitExceeded => "limit exceeded",
            ErrorKind::Malformed => "malformed",
            ErrorKind::Unsupported => "unsupported",
        }
    }
}

/// A reader error. `Display` prints the offset in hex and decimal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    /// Kind.
    pub kind: ErrorKind,
    /// Absolute byte offset in the input file (or blob).
    pub offset: u64,
    /// Human-readable detail.
    pub detail: String,
    /// Context path, outermost first.
    pub context: Vec<String>,
    /// 1-based line and column in a text input (PTX), when the error knows them.
    pub text_position: Option<TextPosition>,
}

/// A position in a text input: 1-based line and (character) column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextPosition {
    /// 1-based line.
    pub line: u32,
    /// 1-based column (0 when unknown).
    pub column: u32,
}

impl ReadError {
    /// A new error at `offset`.
    pub fn new(kind: ErrorKind, offset: u64, detail: impl Into<String>) -> Self {
        ReadError { kind, offset, detail: detail.into(), context: Vec::new(), text_position: None }
    }

    /// Shorthand for [`ErrorKind::UnexpectedEof`].
    pub fn eof(offset: u64, what: impl Into<String>) -> Self {
        Self::new(ErrorKind::UnexpectedEof, offset, what)
    }

    /// Shorthand for [`ErrorKind::Malformed`].
    pub fn malformed(offset: u64, what: impl Into<String>) -> Self {
        Self::new(ErrorKind::Malformed, offset, what)
    }

    /// Shorthand for [`ErrorKind::LimitExceeded`].
    pub fn limit(offset: u64, what: impl Into<String>) -> Self {
        Self::new(ErrorKind::LimitExceeded, offset, what)
    }

    /// Records the line and column of a text input where the error is.
    pub fn at_text(mut self, line: u32, column: u32) -> Self {
        self.text_position = Some(TextPosition { line, column });
        self
    }

    /// Adds an outer context element (`"DXIL part"`), returning self.
    pub fn context(mut self, ctx: impl Into<String>) -> Self {
        self.context.insert(0, ctx.into());
        self
    }

    /// Shifts the offset by `base` (a part or blob start).
    pub fn rebase(mut self, base: u64) -> Self {
        self.offset = self.offset.saturating_add(base);
        self
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} at byte offset 0x{:x} ({})", self.kind.as_str(), self.detail, self.offset, self.offset)?;
        if !self.context.is_empty() {
            write!(f, " in {}", self.context.join(" > "))?;
        }
        Ok(())
    }
}

impl std::error::Error for ReadError {}

/// Result alias for readers.
pub type Result<T> = std::result::Result<T, ReadError>;

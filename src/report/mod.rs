//! Diagnostics and their emitters.

pub mod diagnostic;
pub mod escape;
pub mod files;
pub mod github;
pub mod human;
pub mod json;
pub mod policy;
pub mod run;
pub mod sarif;
pub mod stream;

pub use diagnostic::*;
pub use files::{FileReport, FileStatus, InputKind};
pub use run::{render, unused_spec_constants, Format, RunReport, Stats};

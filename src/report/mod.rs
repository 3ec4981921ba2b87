//! Diagnostics and their emitters.

pub mod diagnostic;

pub use diagnostic::*;

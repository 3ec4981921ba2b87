//! The one SSA IR both front ends lower into.
//!
//! # Model
//! - A [`Module`] owns arenas of types, constants, globals, functions and
//!   resources, plus typed [`Fact`]s the rules consume.
//! - A [`Function`] owns its blocks and instructions; a block lists instruction
//!   handles with phis first and exactly one terminator last.
//! - Operands are [`Value`]s: handles rather than front-end ids, so a DXIL value
//!   number or SPIR-V result id never leaks past the front end (it is kept in
//!   each [`Span`] for messages).
//!
//! # Invariants (checked by [`verify::verify`] right after lowering)
//! - every handle indexes its arena; `Value::Inst` refers to an instruction of the
//!   enclosing function that one of its blocks lists (never a removed one);
//! - a use follows its definition except through phis;
//! - constants and types are module-level;
//! - each block ends in a terminator and has phis only at its start.
//!
//! After `verify` succeeds, analyses and rules index arenas directly.

pub mod facts;
pub mod handle;
pub mod inst;
pub mod module;
pub mod print;
pub mod ptx;
pub mod ptx_access;
pub mod verify;

pub use facts::*;
pub use handle::{Arena, Handle, HandleVec};
pub use module::*;
pub use ptx::*;
pub use ptx_access::*;

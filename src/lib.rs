//! # irlint — lints compiled GPU shaders
//!
//! Data flows one way: **input → reader → IR → dataflow → rules → report**.
//!
//! - [`input`] finds what to analyse: files, directories, shaders embedded in
//!   binaries, HLSL compiled through DXC.
//! - [`read`] holds zero-copy, never-panicking byte readers (DXBC container,
//!   LLVM bitstream) with typed errors that carry absolute byte offsets.
//! - [`dxil`] decodes LLVM 3.7 bitcode as DXC writes it and lowers it into
//!   [`ir`]; [`spirv`] does the same for SPIR-V. Both produce one
//!   [`ir::Module`]: arenas of types, constants, functions (SSA basic blocks,
//!   phis first), resources, and typed [`ir::Fact`]s (matrix memory ops,
//!   raw-buffer vector accesses) that the rules consume.
//! - [`analysis`] runs a sparse constant + known-bits dataflow over the SSA:
//!   every integer value becomes a small set of constants, known bits (per
//!   bit 0, 1 or unknown; `r mod 2^k` is "the low `k` bits known"), or unknown.
//! - [`rules`] turn facts plus dataflow values into [`report::Diagnostic`]s;
//!   [`report`] renders them (human, JSON, SARIF, GitHub annotations).
//! - [`check`] ties the pipeline together for one input; [`api`] runs
//!   `irlint check` over paths or in-memory data and returns the report, and
//!   [`cli`] is the whole command line (the binary and `python -m irlint`).
//! - [`atoms`] stands beside the pipeline: pure verifiers of NVIDIA matrix
//!   atoms (LDSM/STSM, UMMA layouts, tcgen05 kind words, TMA, …) for DSL
//!   compilers, behind `irlint atoms`.
//!
//! ```no_run
//! let bytes = std::fs::read("shader.dxil").unwrap();
//! let options = irlint::check::CheckOptions::default();
//! let result = irlint::check::check_bytes("shader.dxil", &bytes, &options);
//! for d in &result.diagnostics {
//!     println!("{}: {}", d.rule, d.message);
//! }
//! ```

#![warn(missing_docs)]

pub mod analysis;
pub mod api;
pub mod atoms;
pub mod baseline;
pub mod check;
pub mod cli;
pub mod config;
pub mod dump;
pub mod dxil;
pub mod input;
pub mod ir;
pub mod paths;
pub mod ptx;
pub mod read;
pub mod report;
pub mod rules;
pub mod selector;
pub mod spirv;
pub mod suppress;

/// The crate version, as reported by `--version` and SARIF.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

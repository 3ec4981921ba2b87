//! Finding what to analyse and running the checks over it.
//!
//! - [`discover`](mod@discover): command-line paths → input files (recursive, by content).
//! - [`embedded`]: DXBC / SPIR-V blobs inside other files (ELF, PE, Mach-O
//!   sections or raw bytes).
//! - [`containers`]: PTX in CUDA fatbins, SPIR-V in Fossilize databases
//!   ([`fossilize`]), each fatbin entry checked as `FILE@OFFSET`, each
//!   Fossilize module as `FILE@HASH`.
//! - [`dxc`]: HLSL compiled through a run-time loaded DXC.
//! - [`batch`]: reads and checks one input; settings per config file.
//! - [`pipeline`]: the parallel driver (walker, workers, writer) that feeds
//!   a report sink in report order.

pub mod batch;
pub mod containers;
pub mod discover;
pub mod dxc;
pub mod embedded;
pub mod filters;
pub mod fossilize;
pub mod pipeline;

pub use batch::{Batch, BatchOptions};
pub use discover::{discover, Input};

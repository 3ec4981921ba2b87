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
pub mod gitignore;
pub mod pipeline;

pub use batch::{Batch, BatchOptions};
pub use discover::{discover, Input};

/// What an input classified [`InputKind::Binary`](crate::check::InputKind::Binary) that holds no shader
/// (none embedded, no container to read) comes to — the one wording `check`
/// and `dump` share: `Err(message)`, an input error, for a file named as a
/// shader ([`named_as_shader`](crate::check::named_as_shader)) or for in-memory `data` (stdin, the Python
/// `irlint.check`); else `Ok(reason)` for a skipped file.
pub fn no_shader_found(path: &str, bytes: &[u8], data: bool) -> Result<String, String> {
    if crate::check::named_as_shader(path) {
        Err(crate::check::not_a_shader(path, bytes))
    } else if data {
        Err(crate::check::data_not_a_shader(bytes))
    } else {
        Ok(containers::skip_reason(bytes))
    }
}
